"""The deal: all the chance of a game, drawn up front from one seeded generator.

Randomness enters the simulator here and nowhere else in the rules. A batch of deals is made in
one go; any game of the batch can be cut out (`deals[i]`) and played alone with the same result.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from .component_files import as_component_set
from .components import ComponentSet
from .constants import COLONY_LEVELS, COLOURS, EPOCHS, MAX_PLAYERS, MIN_PLAYERS
from .problems import is_whole


class TooManyDeals(MemoryError):
    """More games dealt at once than memory holds: the size asked for (a command's --games), not a defect."""


@dataclass
class Deals:
    """A batch of deals for games of `players` players; every array has the game axis first."""

    players: int
    advanced: bool
    game_id: np.ndarray      # (games,) int64: global number of the game, keys a policy's randomness
    initiative: np.ndarray   # (games, players) int8: initiative 1..5 of each seat's setup card
    colour_order: np.ndarray  # (games, 5) int8: deck colour at board position k, clockwise
    decks: np.ndarray        # (games, 3, 5, 2*players) int16: card index, [epoch-1, colour, top first]
    colonies: np.ndarray     # (games, 5, players) int16: colony tile index, [level, top first]

    def __len__(self) -> int:
        return len(self.game_id)

    def __getitem__(self, index) -> "Deals":
        if isinstance(index, (list, np.ndarray)):
            picks = np.asarray(index)
            if picks.ndim != 1 or (picks.size and picks.dtype.kind not in "iub"):
                raise TypeError(f"deals[...] takes a list or array of whole numbers (or booleans, one per deal), "
                                f"not {picks.ndim}-d of {picks.dtype}")
        elif not (is_whole(index) or isinstance(index, slice)):  # "a", 1.0, None, True: numpy's IndexError, or deal 1
            raise TypeError(f"deals are indexed by a whole number, a slice or a list of numbers (deals[3], "
                            f"deals[10:20], deals[[0, 2]]), not {type(index).__name__} {index!r:.40}")
        if is_whole(index):
            if not -len(self) <= index < len(self):  # a slice past the end is an empty batch, not an error
                raise IndexError(f"deal {index} of a batch of {len(self)}")
            index = slice(index, index + 1) if index != -1 else slice(-1, None)
        return Deals(self.players, self.advanced,
                     **{f.name: getattr(self, f.name)[index] for f in fields(self)[2:]})

    def to_json(self, g: int | None = None) -> dict:
        """Game g of the batch as plain JSON values (g may be left out in a batch of one)."""
        if g is None:
            if len(self) != 1:  # deals.to_json() of a batch gave its first deal alone, silently
                raise ValueError(f"to_json gives one deal: to_json(g) for deal g of this batch of {len(self)}")
            g = 0
        return {"players": self.players, "advanced": self.advanced,
                **{f.name: getattr(self, f.name)[g].tolist() for f in fields(self)[2:]}}

    @classmethod
    def from_json(cls, data: dict) -> "Deals":
        """A batch of the one deal `to_json` gave (a dict, as a trace's header holds it)."""
        dtypes = {"game_id": np.int64, "initiative": np.int8, "colour_order": np.int8,
                  "decks": np.int16, "colonies": np.int16}
        missing = ["players", "advanced", *dtypes] if not isinstance(data, dict) else \
            [k for k in ("players", "advanced", *dtypes) if k not in data]
        if missing:  # JSON text stopped with "string indices must be integers", a partial dict with KeyError
            what = f"lacks {', '.join(missing)}" if isinstance(data, dict) else f"is {type(data).__name__}"
            raise ValueError(f"Deals.from_json reads the dict of Deals.to_json(g) (json.loads its text first); "
                             f"this {what}")
        return cls(data["players"], data["advanced"],
                   **{k: np.array([data[k]], dtype=t) for k, t in dtypes.items()})

    @staticmethod
    def concat(parts: list["Deals"]) -> "Deals":
        """One batch of the deals of `parts`, batches of one player count and game kind."""
        kinds = {(p.players, p.advanced) for p in parts}
        if len(kinds) != 1:  # numpy's "all the input array dimensions ... must match exactly", or an IndexError
            shown = ", ".join(f"{n} players {'advanced' if a else 'basic'}" for n, a in sorted(kinds)) or "no batch"
            raise ValueError(f"Deals.concat joins batches of one player count and game kind, got {shown}")
        first = parts[0]
        return Deals(first.players, first.advanced,
                     **{f.name: np.concatenate([getattr(p, f.name) for p in parts])
                        for f in fields(first)[2:]})


def _shuffled(rng: np.random.Generator, pool: np.ndarray, games: int, take: int,
              kept_out: np.ndarray | None = None) -> np.ndarray:
    """`take` items of `pool` in random order, independently for each game. Items `kept_out` (a
    mask over `pool`) are shuffled too and then skipped, so that keeping a card out leaves the
    other cards in the order they have without it: deals with and without a granted card differ
    by that card alone."""
    keys = rng.random((games, len(pool)))
    if kept_out is not None:
        keys[:, kept_out] = np.inf
    order = keys.argsort(axis=1)[:, :take]
    return pool[order]


def make_deals(components: ComponentSet, players: int, games: int, seed=0,
               advanced: bool = False, first_game: int = 0, exclude=()) -> Deals:
    """Deal `games` games from a seed (an int or a numpy SeedSequence).

    Cards in `exclude` (indices) stay in the box: a scenario grants them to a seat instead.
    """
    components = as_component_set(components)
    for name, value, low in (("players", players, MIN_PLAYERS), ("games", games, 0), ("first_game", first_game, 0)):
        if not is_whole(value) or value < low:
            raise ValueError(f"{name} is a whole number of at least {low}, got {value!r}")
    if players > MAX_PLAYERS:
        raise ValueError(f"players must be {MIN_PLAYERS}..{MAX_PLAYERS}, got {players}")
    if not isinstance(seed, np.random.SeedSequence) and (not is_whole(seed) or seed < 0):
        raise ValueError(f"seed is a whole number of at least 0 (or a numpy SeedSequence), got {seed!r}")
    if not isinstance(advanced, bool):
        raise ValueError(f"advanced is True or False, not {advanced!r:.40}")
    if not isinstance(exclude, (list, tuple, set, frozenset, range, np.ndarray)):
        raise ValueError(f"exclude is a list of cards (indices or ids), not {type(exclude).__name__}")
    excluded = set()
    for card in exclude:  # a card's index or its id ("II-Y-05")
        index = components.card_index.get(card) if isinstance(card, str) else card
        if not is_whole(index) or not 0 <= index < components.n_cards:
            raise ValueError(f"exclude names cards by index (0..{components.n_cards - 1}) or id, got {card!r}")
        excluded.add(int(index))
    try:
        return _dealt(components, players, games, np.random.default_rng(seed), advanced, first_game, excluded)
    except MemoryError:  # numpy's "Unable to allocate 373. GiB for an array with shape (10000000000, 5)"
        raise TooManyDeals(f"{games:,} deals at once need more memory than there is: deal fewer per call (a run "
                           "deals its games chunk by chunk)") from None


def _dealt(components: ComponentSet, players: int, games: int, rng: np.random.Generator, advanced: bool,
           first_game: int, excluded: set[int]) -> Deals:
    """The deals of `make_deals`, its arguments checked."""
    initiative = (rng.random((games, 5)).argsort(axis=1)[:, :players] + 1).astype(np.int8)
    colour_order = rng.random((games, len(COLOURS))).argsort(axis=1).astype(np.int8)
    decks = np.empty((games, len(EPOCHS), len(COLOURS), 2 * players), np.int16)
    for e, epoch in enumerate(EPOCHS):
        for colour in range(len(COLOURS)):
            pool = np.asarray(components.cards_of(epoch, colour, advanced))
            kept_out = np.isin(pool, list(excluded))
            if len(pool) - kept_out.sum() < 2 * players:
                raise ValueError(f"cannot keep {kept_out.sum()} card(s) out of the epoch {epoch} "
                                 f"{COLOURS[colour]} deck: {players} players need {2 * players} of "
                                 f"its {len(pool)} cards")
            decks[:, e, colour] = _shuffled(rng, pool, games, 2 * players, kept_out if kept_out.any() else None)
    colonies = np.empty((games, COLONY_LEVELS, players), np.int16)
    for level in range(COLONY_LEVELS):
        pool = np.flatnonzero(components.colony_level == level)
        colonies[:, level] = _shuffled(rng, pool, games, players)
    game_id = np.arange(first_game, first_game + games, dtype=np.int64)
    return Deals(players, advanced, game_id, initiative, colour_order, decks, colonies)

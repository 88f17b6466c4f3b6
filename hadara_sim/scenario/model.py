"""The scenario model: what a batch run plays, as the checked scenario holds it.

`Scenario` is the run (name, games, seed, chunk size, component set, the swept values) and its
`combinations`; each `Combination` is one cell of the sweep, a `Config` played on every deal of the
run: the player count, game kind, `PolicyEntry`s and how they take the seats, the `Setup`, the
board's colour order and the `GrantEntry`s. The names of the format (the keys of each table, their
choices and defaults) are here too, for the checks that read them. Every `to_dict` gives the JSON
form stored in a run's metadata.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..components import OVERRIDABLE, ComponentSet
from ..constants import COLOURS, MAX_GAMES
from ..problems import Problem, is_whole
from .checks import ScenarioError

DEFAULT_GAMES = 10_000
DEFAULT_CHUNK = 2_000
DEFAULT_PLAYERS = 4
GAME_KINDS = ("basic", "advanced")
ASSIGNMENTS = ("fixed", "rotated", "permutations")
SIDE_NAMES = ("A", "B")
CARD_MODES = ("random", "grid")
SIDE_MODES = ("policy", "random", "grid")

RUN_KEYS = ("name", "description", "games", "seed", "chunk", "components")
SWEEPABLE = ("players", "game", "policies", "seats", "assignment", "setup", "board", "grants", "restrict")
TOP_KEYS = (*RUN_KEYS, *SWEEPABLE, "sweep")
POLICY_KEYS = ("policy", "params", "label")
SETUP_KEYS = ("cards", "sides", "focus_seat")
BOARD_KEYS = ("colour_order",)
GRANT_KEYS = ("card", "epoch", "seat")
RESTRICT_KEYS = ("seek", "avoid", "seat", "cost")
COMPONENTS_KEYS = ("path", *OVERRIDABLE)  # a [components] table: the set's path and its overrides



@dataclass(frozen=True)
class PolicyEntry:
    """A policy as the scenario names it: registry spec, parameters and a label for tables."""

    policy: str
    params: dict
    label: str

    def to_dict(self) -> dict:
        return {"policy": self.policy, "params": self.params, "label": self.label}


@dataclass(frozen=True)
class GrantEntry:
    """Card `card` (kept out of the decks) given to `seat` (or seat game % players: "rotate") at
    the start of `epoch`."""

    card: str
    card_index: int
    effect: str | None
    epoch: int
    seat: int | str

    @property
    def name(self) -> str:
        return self.effect or self.card

    def to_dict(self) -> dict:
        return {"card": self.card, "effect": self.effect, "epoch": self.epoch, "seat": self.seat}


@dataclass(frozen=True)
class Restriction:
    """Restricted play of one seat (`seat`, or seat game % players: "rotate"): its policy takes
    `avoid` and `seek` (kernels/restrict.py); the printed cost of every card named changes by `cost`
    for every seat (the card at another price)."""

    seek: tuple[str, ...]
    avoid: tuple[str, ...]
    seat: int | str
    cost: int

    def to_dict(self) -> dict:
        return {"seek": list(self.seek), "avoid": list(self.avoid), "seat": self.seat, "cost": self.cost}


@dataclass(frozen=True)
class Setup:
    """The setup cards and sides of the seats, fixed, drawn or gridded."""

    cards: str | tuple[int, ...]  # "random", "grid" or the initiative of each seat's setup card
    sides: str | tuple[str, ...]  # "policy", "random", "grid" or "A"/"B" for each seat
    focus_seat: int | str         # the seat whose card and side a grid sets; "rotate": game mod players

    def to_dict(self) -> dict:
        return {"cards": self.cards if isinstance(self.cards, str) else list(self.cards),
                "sides": self.sides if isinstance(self.sides, str) else list(self.sides),
                "focus_seat": self.focus_seat}


@dataclass(frozen=True)
class Config:
    """One fully resolved set-up of the games: what a combination plays."""

    players: int
    advanced: bool
    policies: tuple[PolicyEntry, ...]
    assignment: str
    setup: Setup
    colour_order: tuple[int, ...] | None  # deck colour at each board position; None = random
    grants: tuple[GrantEntry, ...]
    overrides: dict = field(default_factory=dict)  # [components] overrides, e.g. {"setup": {"3B": {...}}}
    components: ComponentSet | None = field(default=None, compare=False, repr=False)  # with overrides
    restriction: Restriction | None = None  # restricted play of one seat; None: every seat plays freely

    def to_dict(self) -> dict:
        out = {"players": self.players, "game": GAME_KINDS[self.advanced],
               "policies": [p.to_dict() for p in self.policies], "assignment": self.assignment,
               "setup": self.setup.to_dict(),
               "board": {"colour_order": "random" if self.colour_order is None
                         else [COLOURS[c] for c in self.colour_order]},
               "grants": [g.to_dict() for g in self.grants]}
        if self.restriction is not None:
            out["restrict"] = self.restriction.to_dict()
        if self.overrides:
            out["components"] = self.overrides
        return out


@dataclass(frozen=True)
class Combination:
    """One cell of the sweep: a config played on every deal of the run."""

    index: int
    sweep: dict                          # swept key -> value of this cell (grid keys included)
    config: Config
    arrangement: tuple[int, ...] | None  # assignment "permutations": policy index of each seat
    setup_card: int | None               # setup grid: initiative of the focus seat's card
    setup_side: int | None               # setup grid: side of the focus seat (0 = A, 1 = B)
    exclude: tuple[int, ...]             # cards kept out of the decks (every grant of the group)

    @property
    def players(self) -> int:
        return self.config.players

    @property
    def advanced(self) -> bool:
        return self.config.advanced

    def to_dict(self, components: ComponentSet) -> dict:
        """The combination as a run's metadata stores it (`exclude` as card ids)."""
        return {"index": self.index, "sweep": self.sweep, "players": self.players,
                "game": GAME_KINDS[self.advanced],
                "arrangement": list(self.arrangement) if self.arrangement is not None else None,
                "setup_card": self.setup_card,
                "setup_side": None if self.setup_side is None else SIDE_NAMES[self.setup_side],
                "exclude": [components.card_ids[i] for i in self.exclude],
                "config": self.config.to_dict()}


def given_as_data(path: str | None) -> bool:
    """Whether a scenario's path names no file: none, or a placeholder ("<scenario>", "<dict>") for a
    scenario given as text or a dict, whose files are named from the working folder."""
    return not path or path.startswith("<")


@dataclass(frozen=True)
class Scenario:
    """A checked scenario: the run's settings and every combination it plays."""

    name: str
    description: str
    path: str | None          # the file it was read from (`given_as_data`: none)
    text: str                 # the TOML text ("" when built from a dict)
    games: int
    seed: int
    chunk: int
    components: ComponentSet = field(repr=False)
    components_path: str | None
    sweep: dict               # swept key -> list of values, in file order
    combinations: tuple[Combination, ...] = field(repr=False)
    settings: tuple[str, ...] = ()  # KEY=VALUE changes made on the command line (--set) to `text`

    def with_overrides(self, games: int | None = None, seed: int | None = None,
                       chunk: int | None = None) -> "Scenario":
        """The same scenario with a different number of games, seed or chunk size (checked as the
        file's keys are)."""
        given = {"games": games, "seed": seed, "chunk": chunk}
        for name, value in given.items():
            if value is None:
                continue
            if not is_whole(value):
                raise ScenarioError([Problem(self.path or "<scenario>", None, name,
                                             f"expected a whole number, got {value!r}")])
            value = given[name] = int(value)  # numpy's integers too
            low = 0 if name == "seed" else 1
            if value < low or (name == "games" and value > MAX_GAMES):
                limit = f"{low}..{MAX_GAMES:,}" if name == "games" else f"at least {low}"
                raise ScenarioError([Problem(self.path or "<scenario>", None, name, f"must be {limit}, got {value:,}")])
        return replace(self, **{name: getattr(self, name) if value is None else value for name, value in given.items()})

    @property
    def total_games(self) -> int:
        return self.games * len(self.combinations)

    def to_dict(self) -> dict:
        """The parsed form (JSON values), as stored in a run's metadata."""
        return {"name": self.name, "description": self.description, "path": self.path,
                "games": self.games, "seed": self.seed, "chunk": self.chunk,
                "components": {"path": self.components_path, "digest": self.components.digest},
                "sweep": self.sweep,
                "combinations": [c.to_dict(self.components) for c in self.combinations]}


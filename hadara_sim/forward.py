"""The forward model: what a policy may imagine about the rest of the game without seeing hidden cards.

At a decision, `decision.forward` (set by both engines when their caller passes `forward=Forward`) can

- `determinise(copies, seed)` (an int, or one per game): deal `copies` games per game of the decision that agree with everything
  the acting player has seen and resample everything hidden from them: the unseen deck cards and their
  order (in every epoch), the cards other players sold face down in draw rounds (this epoch's and
  earlier epochs'), the
  colony tiles under each visible top and the top's back (a tile with the same front), and the choices
  of other players the acting player has not seen yet (simultaneous side choices and draw choices of
  the current draw round). Nothing else of the true game reaches the copies: two games the acting
  player cannot tell apart give the same copies for the same seed.
- `play(options, copies, me, others, seed)`: play on from the decision in each copy, once per
  candidate option, all as one batch in the batch engine: `me` plays the acting seat after the
  decision, `others` the other seats. Candidates share their copies (common random numbers).

A copy starts from the game as it stood at the start of the current epoch (the batch engine keeps
it; `game.Start`) and replays only this epoch's choices on the determinised deal: earlier epochs are
not played again. That start is determinised too (`redeal_start`): a card another seat sold face down
in an earlier epoch is replaced by the card the copy's deal put in its place, and the ledger of who
could have bought what (`card_offered`, read by the results only) is cleared, so the copies name no
hidden past card more often than chance. A decision without such a start (the setup sides, or a game
of the reference engine) is rebuilt from the deal, replaying every past choice.

Everything a `Determinisation` holds is determinised; the model's own access to the true game
(`Forward._source`, like a view's `_source`) is private, not part of the policies' interface.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

import numpy as np
from numba import njit

from .constants import (COLONY_LEVELS, COLOURS, EPOCHS, LOC_BOX, LOC_DECK, LOC_OWNED, LOC_PILE, LOC_REMOVED,
                        LOC_SOLD)
from .deal import Deals
from .engine.game import BatchGame, Replay
from .policy import PRIVATE_FIELDS, Decision, View

HIDDEN = -1  # a past choice the acting player has not seen: played again by a policy
PHASE_A = 0  # `card_when % 2` of a card taken in a draw round


class _Replay:
    """Replays recorded choices (a HIDDEN one by `fill`) up to the recorded length, noting the draws
    and sides it saw on the way; there it keeps the decision (`reached`, on a copy of the state) and
    stops the batch's policies (`game.stopped`): the engine plays the rest out without asking."""

    name = "replay"

    def __init__(self, history, lengths, fill=None):
        self.history = history.copy() if history.shape[1] else np.zeros((len(history), 1), np.int16)
        self.lengths, self.fill = lengths, fill
        self.draws = []   # per draw decision asked: arrays row, serial, seat, epoch, round, hand (n, 2), choice
        self.sides = []   # per side decision asked: arrays row, serial, seat
        self.game, self.reached = None, None

    def decide(self, d: Decision) -> np.ndarray:
        rows = self.rows_of(d)
        serial = d.serial.astype(np.int64)
        if (serial >= self.lengths[rows]).any():
            # Stopping by an exception would leak what the compiled steps hold at that moment.
            self.reached = frozen(d)
            self.game.stopped[0] = 1
            return d.legal.argmax(axis=1)
        choice = self.history[rows, serial].astype(np.int64)
        free = np.flatnonzero(choice < 0)
        if len(free):
            choice[free] = self.fill.decide(subset(d, free))
        self.note(d, rows, choice)
        self.history[rows, serial] = choice
        return choice

    def rows_of(self, d: Decision) -> np.ndarray:
        return np.asarray(d.view._idx).reshape(-1) if not isinstance(d.view._idx, slice) else np.arange(len(d))

    def note(self, d: Decision, rows, choice):
        v = d.view
        if d.kind == "draw":
            self.draws.append((rows, d.serial.astype(np.int64), v.player.astype(np.int64), v.epoch.astype(np.int64),
                               v.draw_round.astype(np.int64), v.hand.astype(np.int64), choice))
        elif d.kind == "side":
            self.sides.append((rows, d.serial.astype(np.int64), v.player.astype(np.int64)))

    def drawn(self):
        """Every draw decision noted, as arrays: row, serial, seat, epoch, round, hand (n, 2), choice."""
        if not self.draws:
            return tuple(np.zeros((0, 2) if k == 5 else 0, np.int64) for k in range(7))
        return tuple(np.concatenate(parts) for parts in zip(*self.draws))


def one_policy(deals: Deals) -> np.ndarray:
    """A seat-to-policy table giving every seat policy 0: the replay sees each step's games at once."""
    return np.zeros((len(deals), deals.players), np.int64)


def subset(d: Decision, rows: np.ndarray) -> Decision:
    """The decision in some of its games only (the same view, cut to those rows)."""
    v = d.view
    idx = np.arange(len(d)) if isinstance(v._idx, slice) else np.asarray(v._idx)
    private = {name: v.__dict__[name][rows] for name in PRIVATE_FIELDS if name in v.__dict__}
    view = View(v._source, idx[rows], v.players, v.components, **private)
    return Decision(d.kind, d.legal[rows], view, d.game_id[rows], d.serial[rows])


def reach(components, past: dict, fill=None) -> tuple[Decision, "_Replay"]:
    """Replay `past` (deals, lengths, history, sides, grants) up to its current decision, HIDDEN
    choices played by `fill`; returns that decision (its view reads the replayed state) and the
    replay, whose `history` then holds the choices made."""
    policy = _Replay(past["history"], np.asarray(past["lengths"], np.int64), fill)
    policy.game = BatchGame(past["deals"], components, [policy], one_policy(past["deals"]),
                            sides=past["sides"], grants=past["grants"], start=past.get("start"), keep_totals=False)
    policy.game.play()
    if policy.reached is None:
        raise RuntimeError("forward model: the replay never reached the decision")
    return policy.reached, policy


def frozen(d: Decision) -> Decision:
    """The decision with its view on a copy of the batch's state as it is now."""
    v = d.view
    state = v._source
    copy = replace(state, **{f.name: getattr(state, f.name).copy() for f in fields(state)
                             if isinstance(getattr(state, f.name), np.ndarray)})
    private = {name: v.__dict__[name] for name in PRIVATE_FIELDS if name in v.__dict__}
    return Decision(d.kind, d.legal.copy(), View(copy, v._idx, v.players, v.components, **private), d.game_id,
                    d.serial)


@dataclass
class Determinisation:
    """`copies` deals per game of a decision (game-major) and the past choices to replay on them."""

    deals: Deals          # (games * copies) determinised deals
    history: np.ndarray   # (games * copies, L) int16 past choices, HIDDEN where the player has not seen them
    lengths: np.ndarray   # (games * copies,) decisions before the current one
    sides: np.ndarray | None
    grants: list
    seat: np.ndarray      # (games * copies,) the acting seat
    copies: int
    start: object = None  # game.Start of each copy, or None: replayed from the deal

    def past(self) -> dict:
        return {"deals": self.deals, "lengths": self.lengths, "history": self.history, "sides": self.sides,
                "grants": self.grants, "start": self.start}


class Forward:
    """The forward model of one decision (see the module docstring)."""

    def __init__(self, components, kind: str, seat: np.ndarray, source):
        self.c, self.kind = components, kind
        self.seat = np.asarray(seat, np.int64)
        self._source = source  # () -> the past of the decision's games; hidden from the policy

    def cut(self, rows: np.ndarray) -> "Forward":
        """The forward model of the decision in some of its games only (the rows `subset` keeps)."""
        whole = self._source

        def past() -> dict:
            p = whole()
            lengths = np.asarray(p["lengths"], np.int64)[rows]
            return {"deals": p["deals"][rows], "lengths": lengths,
                    "start": None if p.get("start") is None else p["start"][rows],
                    "history": p["history"][rows, :lengths.max(initial=0)],
                    "sides": None if p["sides"] is None else p["sides"][rows],
                    "grants": [type(grant)(grant.epoch, grant.card, grant.seat[rows]) for grant in p["grants"]]}
        return Forward(self.c, self.kind, self.seat[rows], past)

    def determinise(self, copies: int, seed=0) -> Determinisation:
        """`copies` deals per game consistent with what the acting player has seen."""
        past = self._source()
        deals, history = past["deals"], past["history"]
        games = len(deals)
        lengths = np.asarray(past["lengths"], np.int64)
        history = history[:, :lengths.max()]
        at, rec = reach(self.c, past)
        state, rows = at.view._source, rec.rows_of(at)
        order = np.argsort(rows)
        if not np.array_equal(rows[order], np.arange(games)):
            raise RuntimeError("forward model: not every game of the decision was reached at once")
        hand = at.view.__dict__.get("hand")
        hidden = self._hidden_choices(rec, state, lengths)
        known = self._known(state, hand[order] if hand is not None else None, past["grants"])
        seeds = self._seeds(seed, games)
        decks = redeal_decks(deals.decks, known, self._deck_pools(deals.advanced), copies, seeds)
        colonies = redeal_colonies(deals.colonies, state.colony_ptr.astype(np.int64), self._colony_pools(),
                                   copies, seeds)
        hist = history.copy()
        hist[hidden] = HIDDEN

        def rep(a):
            return None if a is None else np.repeat(a, copies, axis=0)

        dealt = Deals(deals.players, deals.advanced, rep(deals.game_id), rep(deals.initiative),
                      rep(deals.colour_order), decks, colonies)
        grants = [type(grant)(grant.epoch, grant.card, rep(grant.seat)) for grant in past["grants"]]
        start = past.get("start")
        if start is not None:
            start = start[np.repeat(np.arange(games), copies)]
            state_of = start.state
            redeal_start(deals.decks, decks, known, copies, start.epoch, state_of["location"], state_of["card_seat"],
                         state_of["card_when"])
            state_of["card_offered"][:] = 0
        return Determinisation(dealt, rep(hist), rep(lengths), rep(past["sides"]), grants, rep(self.seat), copies,
                               start)

    def play(self, options: np.ndarray, copies: int, me, others, seed=0, last_epoch: int = EPOCHS[-1],
             value=None) -> dict[str, np.ndarray]:
        """Play on from the decision in `copies` determinised copies per game, once per candidate
        option `options` (games, K); returns the score pad as (games, K, copies, P) arrays. `others`
        is one policy for every other seat or a list with one per seat. An option repeated in a row is
        played once (on the same copies it would give the same games). With `last_epoch` before the
        last, the copies stop at its end and `value(state, last_epoch)` (games, P) stands for their
        totals (a learned position value: `hadara_sim.policies.value`)."""
        if last_epoch < EPOCHS[-1] and value is None:
            raise ValueError(f"copies stopped after epoch {last_epoch} need a value to score them by")
        options = np.asarray(options, np.int64)
        games, K = options.shape
        det = self.determinise(copies, seed)
        P = det.deals.players
        per_seat = list(others) if isinstance(others, (list, tuple)) else [others] * P
        # each candidate's first place in its row: the (game, candidate) pairs actually played
        first = np.argmax(options[:, :, None] == options[:, None, :], axis=2)
        pair_game, pair_k = np.nonzero(first == np.arange(K)[None, :])
        # inner game (pair, j) uses copy (game of the pair, j): pair-major, then copy
        copy = (pair_game[:, None] * copies + np.arange(copies)[None, :]).reshape(-1)
        deals = det.deals[copy]
        # fresh game ids keep the continuations' own randomness apart from the real games'
        deals.game_id = (self._seeds(seed, games)[copy // copies] % (1 << 40)) * 4096 + copy % copies
        root = np.repeat(options[pair_game, pair_k], copies)
        # the recorded choices are played again inside the engine; then `me` (policy 0) plays the
        # acting seat and others[s] (policy 1 + s) seat s, built-in bots at compiled speed
        acting = det.seat[copy]
        seats = np.arange(P)[None, :]
        table = np.where(seats == acting[:, None], 0, 1 + seats)
        replay = Replay(det.history[copy], det.lengths[copy], root, self.kind)
        grants = [type(grant)(grant.epoch, grant.card, grant.seat[copy]) for grant in det.grants]
        sides = None if det.sides is None else det.sides[copy]
        start = None if det.start is None else det.start[copy]
        game = BatchGame(deals, self.c, [me, *per_seat], table, sides=sides, grants=grants, replay=replay,
                         start=start, keep_totals=False, forward=Forward, last_epoch=last_epoch)
        sheet = game.play()
        if last_epoch < EPOCHS[-1]:
            sheet["total"] = value(game.s, last_epoch)
        slot = np.full((games, K), -1, np.int64)
        slot[pair_game, pair_k] = np.arange(len(pair_game))
        where = slot[np.arange(games)[:, None], first]  # every candidate reads its first place's games
        return {name: value.reshape(len(pair_game), copies, *value.shape[1:])[where] for name, value in sheet.items()}

    @staticmethod
    def _seeds(seed, games: int) -> np.ndarray:
        """One seed per game: `seed` itself if it is a sequence (so a game's copies do not depend on
        the other games of the batch), else spawned from it."""
        if np.ndim(seed):
            return np.asarray(seed, np.int64)
        return np.random.default_rng(seed).integers(0, 1 << 62, size=games)

    # --- what the acting player has seen ------------------------------------------------------

    def _hidden_choices(self, rec: _Replay, state, lengths) -> np.ndarray:
        """(games, L) past choices of other players not yet seen: simultaneous sides at a side
        decision, and draw choices of the current draw round not yet resolved."""
        hidden = np.zeros((len(lengths), max(1, int(lengths.max()))), bool)
        if self.kind == "side":
            for row, serial, seat in rec.sides:
                other = seat != self.seat[row]
                hidden[row[other], serial[other]] = True
        row, serial, seat, epoch, rnd, hand, _ = rec.drawn()
        unresolved = (state.location[row[:, None], hand] == LOC_DECK).all(axis=1)
        pending = ((seat != self.seat[row]) & (epoch == state.epoch_now) & (state.phase_now == 0)
                   & (rnd == state.round_now) & unresolved)
        hidden[row[pending], serial[pending]] = True
        return hidden[:, :lengths.max()] if lengths.max() else hidden[:, :0]

    def _known(self, state, hand, grants) -> np.ndarray:
        """(games, C) cards whose place the acting player knows: owned, in a pile, removed, sold in
        the open (phase B) or by the player, in the player's hand, or granted by the scenario. A
        card another seat sold in a draw round (phase A, any epoch) was never shown."""
        loc = state.location
        games = len(loc)
        sold_unseen = ((loc == LOC_SOLD) & (state.card_seat != self.seat[:, None])
                       & (state.card_when % 2 == PHASE_A))
        known = ((loc >= LOC_OWNED) | (loc == LOC_PILE) | (loc == LOC_REMOVED)
                 | ((loc == LOC_SOLD) & ~sold_unseen))
        if hand is not None:
            known[np.arange(games)[:, None], hand.astype(np.int64)] = True
        for grant in grants:
            known[:, grant.card] = True
        return known

    def _deck_pools(self, advanced: bool) -> np.ndarray:
        """(3, 5, n) the cards that may enter each epoch's deck of each colour, -1 padded."""
        pools = [[self.c.cards_of(epoch, colour, advanced) for colour in range(len(COLOURS))] for epoch in EPOCHS]
        out = np.full((len(EPOCHS), len(COLOURS), max(len(p) for row in pools for p in row)), -1, np.int64)
        for e, row in enumerate(pools):
            for colour, pool in enumerate(row):
                out[e, colour, :len(pool)] = pool
        return out

    def _colony_pools(self) -> np.ndarray:
        """(5, n, 1 + 4) per level its tiles (-1 padded) with their fronts (requirement, plunder,
        integrate, front points): a top is redrawn among the tiles with its front."""
        c = self.c
        front = np.stack([c.colony_requirement, c.colony_plunder, c.colony_integrate, c.colony_front_points], 1)
        tiles = [np.flatnonzero(c.colony_level == level) for level in range(COLONY_LEVELS)]
        out = np.full((COLONY_LEVELS, max(len(t) for t in tiles), 5), -1, np.int64)
        for level, ids in enumerate(tiles):
            out[level, :len(ids), 0] = ids
            out[level, :len(ids), 1:] = front[ids]
        return out


@njit(cache=True)
def redeal_decks(decks, known, pools, copies, seeds):
    """(games * copies, 3, 5, 2P) decks: seen cards stay where they are; in every epoch the others
    are drawn anew from the cards of that epoch and colour the player has not seen (in an epoch
    over, those are the cards other seats sold face down). Each game's copies come from its own seed
    alone."""
    games = decks.shape[0]
    out = np.empty((games * copies,) + decks.shape[1:], decks.dtype)
    for g in range(games):
        np.random.seed(seeds[g] % 4294967296)
        for j in range(copies):
            out[g * copies + j] = decks[g]
            for e in range(decks.shape[1]):
                for colour in range(decks.shape[2]):
                    pool = np.array([x for x in pools[e, colour] if x >= 0 and not known[g, x]], np.int64)
                    np.random.shuffle(pool)
                    n = 0
                    for k in range(decks.shape[3]):
                        if not known[g, decks[g, e, colour, k]]:
                            out[g * copies + j, e, colour, k] = pool[n]
                            n += 1
    return out


@njit(cache=True)
def redeal_start(decks, redealt, known, copies, epoch, location, card_seat, card_when):
    """Each copy's epoch start (`location`, `card_seat`, `card_when`, (games * copies, C), changed in
    place) made to agree with its redealt decks: in the epochs before `epoch`, the card another seat
    sold face down at an unseen place of a deck is the card the copy dealt there, sold by the same
    seat at the same time, and the true one goes back to the box."""
    games, _, colours, size = decks.shape
    for g in range(games):
        for j in range(copies):
            row = g * copies + j
            seat = np.full((epoch - 1, colours, size), -1, np.int64)
            when = np.zeros((epoch - 1, colours, size), np.int64)
            for e in range(epoch - 1):  # the true hidden cards leave the copy first: a new card may be one
                for colour in range(colours):
                    for k in range(size):
                        old = decks[g, e, colour, k]
                        if not known[g, old]:
                            seat[e, colour, k], when[e, colour, k] = card_seat[row, old], card_when[row, old]
                            location[row, old], card_seat[row, old], card_when[row, old] = LOC_BOX, -1, 0
            for e in range(epoch - 1):
                for colour in range(colours):
                    for k in range(size):
                        if not known[g, decks[g, e, colour, k]]:
                            new = redealt[row, e, colour, k]
                            location[row, new] = LOC_SOLD
                            card_seat[row, new], card_when[row, new] = seat[e, colour, k], when[e, colour, k]


@njit(cache=True)
def redeal_colonies(stacks, ptr, pools, copies, seeds):
    """(games * copies, 5, P) stacks: taken tiles stay; the top is a tile with the same front as the
    visible one, the tiles under it any of the level's other tiles not taken."""
    games, levels, depth = stacks.shape
    out = np.empty((games * copies, levels, depth), stacks.dtype)
    for g in range(games):
        np.random.seed((seeds[g] // 7 + 12345) % 4294967296)  # apart from the decks' stream
        for j in range(copies):
            out[g * copies + j] = stacks[g]
            for level in range(levels):
                top = ptr[g, level]
                if top >= depth:
                    continue
                taken = stacks[g, level, :top]
                pool = np.array([x for x in pools[level, :, 0] if x >= 0 and not (taken == x).any()], np.int64)
                shown = stacks[g, level, top]
                same = np.array([pools[level, i, 0] for i in range(pools.shape[1]) if pools[level, i, 0] >= 0
                                 and not (taken == pools[level, i, 0]).any()
                                 and (pools[level, i, 1:] == _front(pools, level, shown)).all()], np.int64)
                first = same[np.random.randint(len(same))]
                rest = np.array([x for x in pool if x != first], np.int64)
                np.random.shuffle(rest)
                out[g * copies + j, level, top] = first
                out[g * copies + j, level, top + 1:] = rest[:depth - top - 1]
    return out


@njit(cache=True)
def _front(pools, level, tile):
    """The front (requirement, plunder, integrate, front points) of a tile of a level."""
    for i in range(pools.shape[1]):
        if pools[level, i, 0] == tile:
            return pools[level, i, 1:]
    raise RuntimeError("forward model: a colony tile is not in its level")

"""A batch of games played in lockstep: the epoch's steps in order, and the asking of policies.

`BatchGame(deals, components, policies).play()` plays every game of `deals` and returns the final
score pad as (games, P) arrays. Policies decide for all games at once; which policy plays a seat
may differ from game to game (`seat_policy`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from ..components import ComponentSet
from ..constants import EPOCH_NAMES, EPOCHS, PICKS_PER_PHASE_B
from ..deal import Deals
from ..forward import Forward
from ..policy import Decision, View, choose
from .cards import gain
from .colonies import colony_step
from .draft import draw_round, lay_out_decks, set_wheel
from .feeding import feed_people
from .income import collect_income
from .medals import medal_step
from .pick import pick_turn
from .scoring import final_scores, score
from .state import BatchState
from .statues import statue_step


def first_players(initiative: np.ndarray) -> np.ndarray:
    """(games, 3) seat of the first player in epochs I, II, III (RULINGS 1)."""
    order = np.argsort(initiative, axis=1, kind="stable")
    if initiative.shape[1] == 2:
        return order[:, [0, 1, 0]]
    return order[:, :3]


def extra_coins(initiative: np.ndarray) -> np.ndarray:
    """(games, P) 1 for each seat that gets an extra coin at the start of epoch I (RULINGS 1)."""
    games, players = initiative.shape
    order = np.argsort(initiative, axis=1, kind="stable")
    extra = np.zeros((games, players), np.int32)
    if players == 2:
        extra[np.arange(games), order[:, 1]] = 1
    elif players >= 4:
        for k in range(3, players):
            extra[np.arange(games), order[:, k]] = 1
    return extra


@dataclass
class Grant:
    """Give `card` (kept out of the decks) to one seat per game at the start of `epoch`."""

    epoch: int
    card: int
    seat: np.ndarray  # (games,) seat that receives the card, -1 for none


class BatchGame:
    """Plays a batch of deals with one policy per seat (or a per-game seat-to-policy table).

    Options for experiments: `sides` (games, P) fixes the setup sides instead of asking the
    policies (an entry of -1 leaves that seat's choice to its policy); `grants` gives chosen cards to chosen seats at the start of an epoch.
    """

    def __init__(self, deals: Deals, components: ComponentSet, policies, seat_policy=None, recorder=None,
                 sides=None, grants=()):
        self.s = BatchState.new(deals, components)
        self.c = components
        self.policies = list(policies)
        P = deals.players
        if seat_policy is None:
            if len(self.policies) != P:
                raise ValueError(f"{P} players need {P} policies, got {len(self.policies)}")
            seat_policy = np.broadcast_to(np.arange(P), (len(deals), P))
        self.seat_policy = np.ascontiguousarray(seat_policy)
        self.recorder = recorder
        self.serial = np.zeros(len(deals), np.int32)
        self.history = np.zeros((len(deals), 64), np.int16)  # choice at each asked decision, by serial
        self.firsts = first_players(deals.initiative)
        self.sides = sides
        self.grants = list(grants)
        self.epoch_totals = np.zeros((len(deals), P, len(EPOCHS)), np.int64)  # running totals

    # --- the whole game -------------------------------------------------------------------

    def play(self) -> dict[str, np.ndarray]:
        self.set_up()
        for epoch in EPOCHS:
            self.play_epoch(epoch)
        sheet = final_scores(self.s)
        if self.recorder:
            self.recorder.final(sheet)
        return sheet

    def set_up(self):
        """Each player takes a setup card side, its coins and track values; some get an extra coin.

        Sides are chosen at the same time: every seat decides before any side is stored.
        """
        s, c = self.s, self.c
        g = np.arange(s.games)
        chosen = np.zeros((s.games, s.players), np.int8)
        for seat in range(s.players):
            seats = np.full(s.games, seat)
            if not s.deals.advanced:
                continue
            if self.sides is not None:
                chosen[:, seat] = self.sides[:, seat]
                free = np.flatnonzero(self.sides[:, seat] < 0)  # -1: the seat's policy chooses
                if len(free):
                    chosen[free, seat] = self.ask("side", free, seats[free], np.ones((len(free), 2), bool))
            else:
                chosen[:, seat] = self.ask("side", g, seats, np.ones((s.games, 2), bool))
        s.side[:] = chosen
        card = s.initiative.astype(np.int64) - 1
        side = s.side.astype(np.int64)
        s.coins[:] = c.setup_coins[card, side] + extra_coins(s.initiative)
        s.tracks[:] = c.setup_values[card, side]
        self.record("setup")

    def play_epoch(self, epoch: int):
        """Phase A (draw rounds, income, colonies, statues), then phase B (picks, the same steps,
        feeding, medals)."""
        s = self.s
        s.epoch_now, s.phase_now, s.round_now = epoch, 0, 0
        lay_out_decks(s)
        s.first_player[:] = self.firsts[:, epoch - 1]
        for grant in self.grants:
            if grant.epoch == epoch:
                g = np.flatnonzero(grant.seat >= 0)
                gain(s, g, grant.seat[g], np.full(len(g), grant.card), self.ask)
        set_wheel(s, self.ask)
        self.record("wheel")
        for s.round_now in range(5):
            draw_round(s, self.ask)
            self.record(f"draw{s.round_now + 1}")
        self.steps_after_phase()
        s.phase_now = 1
        for turn in range(PICKS_PER_PHASE_B * s.players):
            pick_turn(s, self.seat_in_turn(turn), self.ask)
            self.record(f"pick{turn + 1}")
        self.steps_after_phase()
        for k in range(s.players):
            feed_people(s, self.seat_in_turn(k), self.ask)
        self.record("feeding")
        for k in range(s.players):
            medal_step(s, self.seat_in_turn(k), self.ask)
        self.record("medals")
        self.epoch_totals[:, :, epoch - 1] = score(s)["total"]

    def steps_after_phase(self):
        """Income, then a colony step and a statue step, each from the first player clockwise."""
        s = self.s
        collect_income(s)
        self.record("income")
        for k in range(s.players):
            colony_step(s, self.seat_in_turn(k), self.ask)
        self.record("colonies")
        for k in range(s.players):
            statue_step(s, self.seat_in_turn(k), self.ask)
        self.record("statues")

    def seat_in_turn(self, k: int) -> np.ndarray:
        """(games,) the k-th seat clockwise from the first player."""
        return (self.s.first_player.astype(np.int64) + k) % self.s.players

    # --- decisions ------------------------------------------------------------------------

    def ask(self, kind: str, g: np.ndarray, seat: np.ndarray, legal: np.ndarray, **private) -> np.ndarray:
        """The policies of the acting seats pick one legal option in each game `g`; a single legal
        option is taken unasked."""
        choices, asked = np.empty(len(g), np.int64), np.empty(len(g), bool)
        if _unasked(legal, choices, asked):
            # `take` rather than fancy indexing: the same rows, several times faster
            owner = self.seat_policy.take(g * self.s.players + seat)
            order, starts = _by_owner(asked, owner, len(self.policies))
            for k in range(len(self.policies)):
                mine = order[starts[k]:starts[k + 1]]
                if not len(mine):
                    continue
                rows = mine if len(mine) < len(g) else slice(None)
                rows_of = (lambda a: a) if len(mine) == len(g) else (lambda a: a.take(mine, axis=0))
                games = rows_of(g)
                view = View(self.s, games, self.s.players, self.c, player=rows_of(seat),
                            **{name: rows_of(value) for name, value in private.items()})
                decision = Decision(kind, rows_of(legal), view, self.s.deals.game_id.take(games),
                                    self.serial.take(games),
                                    Forward(self.c, kind, view.player, lambda games=games: self.past(games)))
                policy = self.policies[k]
                choices[rows] = choose(policy, decision)
            self.remember(g[asked], choices[asked])
        if self.recorder:
            self.recorder.decision(kind, g[asked], seat[asked], legal[asked], choices[asked])
        return choices

    def remember(self, g: np.ndarray, choices: np.ndarray):
        """Keep the choices of the asked decisions (the forward model replays them)."""
        serial = self.serial[g]
        if len(g) and serial.max() >= self.history.shape[1]:
            self.history = np.concatenate([self.history, np.zeros_like(self.history)], axis=1)
        self.history[g, serial] = choices
        self.serial[g] = serial + 1

    def past(self, games: np.ndarray) -> dict:
        """Deals, experiment options and choices so far of some games, for the forward model."""
        return {"deals": self.s.deals[games], "lengths": self.serial[games].copy(),
                "history": self.history[games, :self.serial[games].max()].copy(),
                "sides": None if self.sides is None else self.sides[games],
                "grants": [Grant(grant.epoch, grant.card, grant.seat[games]) for grant in self.grants]}

    def record(self, step: str):
        if self.recorder:
            label = step if step == "setup" else f"{EPOCH_NAMES[self.s.epoch_now]}.{'AB'[self.s.phase_now]}.{step}"
            self.recorder.state(label, self.s.snapshot())


def play_batch(deals: Deals, components: ComponentSet, policies, seat_policy=None, recorder=None, **options):
    """Play every game of `deals`; returns the final score pad as (games, P) arrays."""
    return BatchGame(deals, components, policies, seat_policy, recorder, **options).play()


@njit(cache=True)
def _unasked(legal, choices, asked):
    """The first legal option of each game, and whether it has more than one (then it is asked);
    returns how many are asked."""
    for i in range(legal.shape[0]):
        count, choices[i] = 0, 0
        for j in range(legal.shape[1]):
            if legal[i, j]:
                choices[i] = j if count == 0 else choices[i]
                count += 1
        asked[i] = count > 1
    return asked.sum()


@njit(cache=True)
def _by_owner(asked, owner, policies):
    """Asked games grouped by the policy that owns the seat: `order[starts[k]:starts[k + 1]]` are
    policy k's, in game order."""
    starts = np.zeros(policies + 1, np.int64)
    for i in range(len(asked)):
        if asked[i]:
            starts[owner[i] + 1] += 1
    starts = np.cumsum(starts)
    order = np.empty(starts[-1], np.int64)
    filled = starts[:-1].copy()
    for i in range(len(asked)):
        if asked[i]:
            order[filled[owner[i]]] = i
            filled[owner[i]] += 1
    return order, starts

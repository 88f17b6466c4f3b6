"""A batch of games played in lockstep: the epoch's steps in order.

`BatchGame(deals, components, policies).play()` plays every game of `deals` and returns the final
score pad as (games, P) arrays. Policies decide for all games at once; which policy plays a seat
may differ from game to game (`seat_policy`). Each epoch is one compiled call (`play_epoch`) that
asks the players through `decide.ask`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import typeof

from .. import actions as A
from ..components import ComponentSet, original
from ..constants import EFFECT_INDEX, EPOCHS, PICKS_PER_PHASE_B, REQUIREMENT_MAX_COINS
from ..deal import Deals
from ..kernels.address import address_for, call_at, type_key
from ..signals import check_held, held_signals
from .cards import gain
from .colonies import colony_options, take_colony
from .decide import (
    ACT_AT, ASK_AT, COLONIES, COLONY, DRAW_AT, DRAWN, FED, INCOME, MEDALS, NO_NUMBER, PICK_AT, PICKED, SETUP, SIDE,
    STATUE, STATUES, WHEEL_SET, ask, ask_plain, ask_policies, ask_types, history_width, make_deciders, record,
    register,
)
from .draft import draw_round, lay_out_decks, set_wheel
from .feeding import feed_people
from .income import collect_income
from .medals import medal_step
from .pick import pick_turn
from .scoring import final_scores, score
from .state import GAME_ARRAYS, BatchState, compiled_step, inlined_step
from .statues import carve_statue, statue_options

DOUBLE_EFFECT = EFFECT_INDEX["double_actions"]
COLONY_OPTIONS, STATUE_OPTIONS = A.option_count("colony"), A.option_count("statue")


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


@dataclass
class Start:
    """Games as they stood at the start of an epoch, to play on from there instead of from the deal."""

    epoch: int                    # the epoch about to start
    state: dict                   # per-game state arrays at that moment (`state.GAME_ARRAYS`), game axis first
    serial: np.ndarray            # (games,) decisions asked before it
    totals: np.ndarray            # (games, P, 3) running totals of the epochs before it

    def __getitem__(self, index) -> "Start":
        return Start(self.epoch, {name: a[index] for name, a in self.state.items()}, self.serial[index],
                     self.totals[index])


@dataclass
class Replay:
    """Choices to play again before the policies take over: the forward model's continuations."""

    history: np.ndarray   # (games, L) int16: choice at each asked decision, HIDDEN (-1): the seat's policy's
    lengths: np.ndarray   # (games,) decisions to play again
    root: np.ndarray      # (games,) the option taken at the decision after them
    kind: str             # that decision's kind


class BatchGame:
    """Plays a batch of deals with one policy per seat (or a per-game seat-to-policy table).

    Options for experiments: `sides` (games, P) fixes the setup sides instead of asking the
    policies (an entry of -1 leaves that seat's choice to its policy); `grants` gives chosen cards to
    chosen seats at the start of an epoch; `replay` plays recorded choices first; `start` plays on
    from the start of an epoch (the forward model's continuations), set-up and earlier epochs done;
    `last_epoch` ends the batch after that epoch, its score pad as if the game ended there (the forward
    model's depth-limited copies); `keep_totals=False` skips the running totals of each epoch (only the
    results read them); `forward`,
    the forward model (`hadara_sim.forward.Forward`), makes `decision.forward` for the policies asked
    in Python (None: their decisions carry none; the engine does not import the model above it).
    """

    def __init__(self, deals: Deals, components: ComponentSet, policies, seat_policy=None, recorder=None,
                 sides=None, grants=(), replay: Replay | None = None, start: Start | None = None,
                 keep_totals: bool = True, forward=None, last_epoch: int = EPOCHS[-1]):
        if last_epoch not in EPOCHS:
            raise ValueError(f"last_epoch must be one of {EPOCHS}, got {last_epoch}")
        components = original(components)
        self.s = BatchState.new(deals, components)
        self.c = components
        self.policies = list(policies)
        P = deals.players
        if seat_policy is None:
            if len(self.policies) != P:
                raise ValueError(f"{P} players need {P} policies, got {len(self.policies)}")
            seat_policy = np.broadcast_to(np.arange(P), (len(deals), P))
        # Always a writable int64 copy: numba types a read-only array (a one-game broadcast, a caller's
        # frozen table) apart from a writable one and would compile the whole engine a second time.
        self.seat_policy = np.array(seat_policy, np.int64)
        self.recorder = recorder
        self.forward = forward
        self.serial = np.zeros(len(deals), np.int32)
        self.history = np.zeros((len(deals), 0), np.int16)  # choice at each asked decision, by serial
        self.firsts = first_players(deals.initiative)
        self.sides = sides
        self.grants = list(grants)
        self.replay = replay
        self.stopped = np.zeros(1, np.int64)  # 1: the policies are no longer asked (see decide.ask)
        self.epoch_totals = np.zeros((len(deals), P, len(EPOCHS)), np.int64)  # running totals
        self.start, self.keep_totals, self.last_epoch = start, keep_totals, last_epoch
        if start is not None:  # before the deciders are made: they hold the state's arrays
            for name, value in start.state.items():
                setattr(self.s, name, value.copy())
            self.serial[:] = start.serial
            self.epoch_totals[:] = start.totals
        self.handle = register(self)
        self.k = make_deciders(self, history_width(P, components.n_cards, len(self.grants)))
        # Games at the start of the epoch being played, for the forward model: kept when some policy is
        # asked in Python (only those can ask for it), else never copied.
        self.epoch_start: Start | None = None

    def play(self) -> dict[str, np.ndarray]:
        """Set-up, the epochs up to `last_epoch` and the score pad (from `start`'s epoch if given)."""
        with held_signals():  # a Ctrl-C stops the batch between steps, not inside compiled code
            if self.start is None:
                self.set_up()
            for epoch in EPOCHS[EPOCHS.index(self.start.epoch) if self.start else 0:self.last_epoch]:
                check_held()
                self.play_epoch(epoch)
        sheet = final_scores(self.s)
        if self.recorder:
            self.recorder.final(sheet)
        return sheet

    def set_up(self):
        """Each player takes a setup card side (advanced game), its coins and track values; some get an
        extra coin."""
        s, c = self.s, self.c
        self.bind()
        sides = np.full((s.games, s.players), -1, np.int8) if self.sides is None else np.asarray(self.sides, np.int8)
        s.side[:] = self.choose_sides(sides) if s.deals.advanced else 0
        card, side = s.initiative.astype(np.int64) - 1, s.side.astype(np.int64)
        s.coins[:] = c.setup_coins[card, side] + extra_coins(s.initiative)
        s.tracks[:] = c.setup_values[card, side]
        record(self.k, SETUP, NO_NUMBER)

    def choose_sides(self, sides: np.ndarray) -> np.ndarray:
        """(games, P) each seat's setup side: `sides` where given (>= 0), else its policy's choice.

        Sides are chosen at the same time: every seat decides before any side is stored.
        """
        s = self.s
        chosen = sides.copy()
        arrays, tables = s.arrays, s.tables
        for seat in range(s.players):
            free = np.flatnonzero(sides[:, seat] < 0)
            n = len(free)
            if n:
                chosen[free, seat] = ask(arrays, tables, self.k, SIDE, free, np.full(n, seat), np.ones((n, 2), bool),
                                         np.zeros((n, 2), np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64))
        return chosen

    def play_epoch(self, epoch: int):
        """One epoch in every game (`play_epoch` below), then the running score totals."""
        s = self.s
        self.bind()
        if self.history.shape[1]:
            self.epoch_start = Start(epoch, {name: getattr(s, name).copy() for name in GAME_ARRAYS},
                                     self.serial.copy(), self.epoch_totals.copy())
        play_epoch(*self.epoch_arguments(epoch))
        if self.keep_totals:
            self.epoch_totals[:, :, epoch - 1] = score(s)["total"]

    def epoch_arguments(self, epoch: int) -> tuple:
        """The arguments of the compiled `play_epoch` for `epoch` (their types are its signature:
        `warm` compiles it from them)."""
        s = self.s
        grant_epoch = np.array([grant.epoch for grant in self.grants], np.int64)
        grant_card = np.array([grant.card for grant in self.grants], np.int64)
        grant_seat = np.array([grant.seat for grant in self.grants], np.int64).reshape(len(self.grants), s.games)
        return (s.arrays, s.tables, self.k, epoch, self.firsts[:, epoch - 1].astype(np.int64),
                grant_epoch, grant_card, grant_seat)

    def bind(self):
        """The addresses of the steps called through one (`decide.ASK_AT`, ...), compiled or loaded
        once per process, in the batch's deciders (before the first step is played)."""
        k = self.k
        if k.calls[ASK_AT]:
            return
        arguments = type_key((self.s.arrays, self.s.tables, k))
        for at, function in enumerate(CALLED_STEPS):
            k.calls[at], k.checks[at] = address_for(function, arguments, lambda: called_types(self.s, k)[at])

    def past(self, games: np.ndarray) -> dict:
        """Deals, experiment options, choices so far and the epoch's start of some games, for the
        forward model (no start during set-up)."""
        return {"deals": self.s.deals[games], "lengths": self.serial[games].copy(),
                "start": None if self.epoch_start is None else self.epoch_start[games],
                "history": self.history[games, :self.serial[games].max()].copy(),
                "sides": None if self.sides is None else self.sides[games],
                "grants": [Grant(grant.epoch, grant.card, grant.seat[games]) for grant in self.grants]}


def play_batch(deals: Deals, components: ComponentSet, policies, seat_policy=None, recorder=None, **options):
    """Play every game of `deals`; returns the final score pad as (games, P) arrays."""
    return BatchGame(deals, components, policies, seat_policy, recorder, **options).play()


@compiled_step
def play_epoch(s, t, k, epoch, first, grant_epoch, grant_card, grant_seat):
    """Phase A (the wheel, five draw rounds, then income, colonies, statues), then phase B (picks,
    the same steps, feeding, medals)."""
    s.clock[0], s.clock[1], s.clock[2] = epoch, 0, 0
    players = s.coins.shape[1]
    lay_out_decks(s, epoch)
    s.first_player[:] = first
    for j in range(len(grant_epoch)):
        if grant_epoch[j] == epoch:
            given = np.flatnonzero(grant_seat[j] >= 0)
            gain(s, t, k, given, grant_seat[j][given], np.full(len(given), grant_card[j]))
    for phase in range(2):  # one call site per step: each passes the state's arrays, compiled at every site
        s.clock[1] = phase
        if phase == 0:
            set_wheel(s, t, k)
            record(k, WHEEL_SET, NO_NUMBER)
            for draw in range(5):
                s.clock[2] = draw
                call_at(k.calls[DRAW_AT], k.checks[DRAW_AT], (s, t, k))  # draw_round
                record(k, DRAWN, draw + 1)
        else:
            for turn in range(PICKS_PER_PHASE_B * players):
                call_at(k.calls[PICK_AT], k.checks[PICK_AT], (s, t, k, seat_in_turn(first, turn, players)))  # pick_turn
                record(k, PICKED, turn + 1)
        steps_after_phase(s, t, k, first)
    for turn in range(players):
        feed_people(s, t, k, seat_in_turn(first, turn, players))
    record(k, FED, NO_NUMBER)
    for turn in range(players):
        medal_step(s, t, k, seat_in_turn(first, turn, players))
    record(k, MEDALS, NO_NUMBER)


@inlined_step
def steps_after_phase(s, t, k, first):
    """Income, then a colony step and a statue step, each from the first player clockwise."""
    players = s.coins.shape[1]
    collect_income(s)
    record(k, INCOME, NO_NUMBER)
    for kind in (COLONY, STATUE):
        for turn in range(players):  # act_in_step, by its address
            call_at(k.calls[ACT_AT], k.checks[ACT_AT], (s, t, k, seat_in_turn(first, turn, players), kind))
        record(k, COLONIES if kind == COLONY else STATUES, NO_NUMBER)


@compiled_step
def act_in_step(s, t, k, seat, kind):
    """One seat's colony (or statue) step in every game: act once, or twice with double_actions,
    both actions sharing the step's requirement_purchase budget; declining ends the step."""
    players = s.coins.shape[1]
    g = np.arange(len(seat))
    seat = seat.copy()
    budget = np.full(len(g), REQUIREMENT_MAX_COINS)
    actions = np.empty(len(g), np.int64)
    for i in range(len(g)):
        actions[i] = 1 + s.effects[g[i], seat[i], DOUBLE_EFFECT]
    for step in range(2):
        live = np.flatnonzero(actions > step)
        g, seat, budget, actions = g[live], seat[live], budget[live], actions[live]
        legal = np.zeros((len(g), COLONY_OPTIONS if kind == COLONY else STATUE_OPTIONS), np.bool_)
        if kind == COLONY:
            colony_options(s, t, g, seat, budget, players, legal)
        else:
            statue_options(s, t, g, seat, budget, players, legal)
        choice = ask_plain(s, t, k, kind, g, seat, legal)
        took = np.flatnonzero(choice != A.NONE)
        g, seat, budget, actions, choice = g[took], seat[took], budget[took], actions[took], choice[took]
        paid = np.zeros(len(g), np.int64)
        if kind == COLONY:
            take_colony(s, t, g, seat, choice, paid)
        else:
            carve_statue(s, t, g, seat, choice, paid)
        budget = budget - paid


@inlined_step
def seat_in_turn(first, turn, players):
    """(games,) the turn-th seat clockwise from the first player."""
    return (first + turn) % players


CALLED_STEPS = (ask_policies, draw_round, pick_turn, act_in_step)  # by decide.ASK_AT, DRAW_AT, PICK_AT, ACT_AT


def called_types(state, k) -> list:
    """numba's types of the arguments of each of `CALLED_STEPS` in a batch of `state` and deciders `k`."""
    s, t, deciders = typeof(state.arrays), typeof(state.tables), typeof(k)
    seats, kind = typeof(np.zeros(1, np.int64)), typeof(np.int64(0))
    return [ask_types(state, k), (s, t, deciders), (s, t, deciders, seats), (s, t, deciders, seats, kind)]

"""Asking the players: the compiled `ask` that the steps of the epoch call at every decision.

A built-in bot decides inside compiled code (`hadara_sim.kernels.decide`); any other policy, and
any decision kind a subclass of a built-in overrides, is asked in Python through the policy
interface (`policy.choose` with a `View` and a `Decision`), by a call from the compiled code back
into the interpreter (numba's `objmode`). Which is which is fixed per policy before the batch
starts (`Deciders`), so the compiled steps never look at a Python object.
"""

from __future__ import annotations

import itertools
import weakref
from collections import namedtuple

import numpy as np
from numba import njit, objmode, typeof

from ..actions import KINDS
from ..compiled_only import compiled_only
from ..constants import COLONY_LEVELS, EPOCH_NAMES, PICKS_PER_PHASE_B
from ..kernels import layout
from ..kernels.address import address_for, call_at, type_key
from ..kernels.decide import DECIDE, checked_kernel
from ..kernels.restrict import policy_mask, restrict_rows
from ..policy import Decision, View, check_choices, choose
from ..signals import check_held
from .state import colony_fronts

# Decision kinds and step labels are numpy integers, not Python ints: numba would compile a copy of
# `ask` for every literal value passed to it.
WHEEL, SIDE, DRAW, TILE, PICK, COLONY, STATUE, FEED, MEDAL = (np.int64(KINDS.index(k)) for k in (
    "wheel", "side", "draw", "tile", "pick", "colony", "statue", "feed", "medal"))

# What the compiled steps know of the policies and of the decisions made so far.
Deciders = namedtuple("Deciders", (
    "handle",        # int: key of the BatchGame in `_GAMES`, for the calls back into Python
    "seat_policy",   # (games, P) int64: policy index of each seat
    "code",          # (K,) int64: the policy's kernel (layout.PLANNER, ...), 0 = asked in Python
    "kinds",         # (K,) int64: bit k set when the kernel decides kind k for that policy
    "params",        # (K, L) float64: each policy's kernel parameters
    "tables",        # (K, 3, 2, C) float64: each policy's value table (greedy), zeros otherwise
    "restrict",      # (K, C) int8: each kernel policy's restricted play per card (kernels.restrict: FREE,
                     # AVOID, SEEK); a Python policy restricts itself
    "restricting",   # (K,) bool: the policy's row of `restrict` names some card
    "seen",          # layout.KernelView of the state's arrays: all a kernel may read of the state
    "policy_tables",  # the components' compiled arrays (ComponentSet.compiled)
    "colony_front",  # (games, 5, 4) int16: scratch for the top colony tiles at a colony decision
    "serial",        # (games,) int32: decisions already asked in each game
    "history",       # (games, W) int16: choice at each asked decision by serial (W = 0: not kept)
    "recording",     # bool: a recorder takes every decision and state
    "replay_history",  # (games, L) int16: choices to play again (game.Replay), HIDDEN (-1): the policy's
    "replay_length",   # (games,) int64: decisions to play again (0: none)
    "replay_root",     # (games,) int64: the option taken at the decision after them, -1 none
    "replay_kind",     # int64: that decision's kind
    "stopped",       # (1,) int64: 1 once the policies are no longer asked (BatchGame.stopped)
    "decide_at",     # (K,) int64: address of the policy's compiled entry (kernels.decide.DECIDE), 0 = none
    "decide_check",  # int: checksum of the argument types they were compiled for (kernels.address)
    "calls",         # (CALLED,) int64: address of each step called through one (ASK_AT, ...), 0 = not yet bound
    "checks",        # (CALLED,) int64: checksum of the argument types each was compiled for
))
# The compiled steps called through their addresses (kernels/address.py), each compiled once instead
# of into every step that calls it: `ask_policies`, and the epoch's draw rounds, picks and colony or
# statue steps (engine/game.py binds them).
ASK_AT, DRAW_AT, PICK_AT, ACT_AT = range(4)
CALLED = 4

# The batches being played, by handle, for the calls back into Python (gone with the batch).
_GAMES: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
_HANDLES = itertools.count(1)

# Step labels of the state records, by code (see `record`).
SETUP, WHEEL_SET, DRAWN, INCOME, COLONIES, STATUES, PICKED, FED, MEDALS = (np.int64(k) for k in range(9))
NO_NUMBER = np.int64(0)
STEP_NAMES = ("setup", "wheel", "draw", "income", "colonies", "statues", "pick", "feeding", "medals")


def history_width(players: int, n_cards: int, grants: int) -> int:
    """An upper bound of the decisions asked in one game: sides; per epoch the wheel, five draws and
    the picks (each with a bonus tile), two colony and two statue actions per income step, a medal
    step of at most five purchases, feeding (a card removed or paid at a time) and the grants' tiles."""
    per_player = 2 * (5 + PICKS_PER_PHASE_B) + 2 * 2 * 2 + 5 + 6
    return players + 3 * (1 + players * per_player + n_cards) + grants * players


def register(game) -> int:
    """A handle by which the compiled steps name the batch when they call back into Python."""
    handle = next(_HANDLES)
    _GAMES[handle] = game
    return handle


def _private(kind: int, hand, card, feed_need) -> dict:
    """The decision-specific view fields of a kind (policy.PRIVATE_FIELDS)."""
    name = KINDS[kind]
    return {"draw": {"hand": hand}, "tile": {"card": card}, "feed": {"feed_need": feed_need}}.get(name, {})


def python_choose(handle, k, kind, g, seat, legal, hand, card, feed_need):
    """Policy k's checked choices, asked through the policy interface."""
    check_held()
    game = _GAMES[handle]
    s = game.s
    view = View(s, g, s.players, game.c, player=seat, **_private(kind, hand, card, feed_need))
    forward = game.forward and game.forward(game.c, KINDS[kind], seat, lambda games=g: game.past(games))
    decision = Decision(KINDS[kind], legal, view, s.deals.game_id.take(g), game.serial.take(g), forward)
    return choose(game.policies[k], decision)


def python_refuse(handle, k, kind, g, seat, legal, choices):
    """Raise IllegalChoice naming the built-in policy k (a kernel chose an illegal option)."""
    game = _GAMES[handle]
    view = View(game.s, g, game.s.players, game.c, player=seat)
    check_choices(game.policies[k], Decision(KINDS[kind], legal, view, game.s.deals.game_id.take(g),
                                             game.serial.take(g)), choices)


def python_record_decision(handle, kind, g, seat, legal, choices):
    """The asked decisions of a step, for the batch's recorder."""
    check_held()
    _GAMES[handle].recorder.decision(KINDS[kind], g, seat, legal, choices)


def python_record_state(handle, step, number):
    """The state after a step, labelled as the reference engine labels it, for the batch's recorder."""
    game = _GAMES[handle]
    s = game.s
    label = STEP_NAMES[step] + (str(number) if number else "")  # draw3, pick12; income
    if step != SETUP:
        label = f"{EPOCH_NAMES[s.epoch_now]}.{'AB'[s.phase_now]}.{label}"
    game.recorder.state(label, s.snapshot())


# Each call back into Python is a compiled function of its own: numba cannot lower an `objmode`
# block inside the loops and branches of `ask`.

@compiled_only()
def _choose_in_python(handle, p, kind, g, seat, legal, hand, card, feed_need):
    with objmode(out="int64[:]"):
        out = python_choose(handle, p, kind, g, seat, legal, hand, card, feed_need)
    return out


@compiled_only()
def _refuse_in_python(handle, p, kind, g, seat, legal, choices):
    with objmode():
        python_refuse(handle, p, kind, g, seat, legal, choices)


@compiled_only()
def _record_decision_in_python(handle, kind, g, seat, legal, choices):
    with objmode():
        python_record_decision(handle, kind, g, seat, legal, choices)


@compiled_only()
def _record_state_in_python(handle, step, number):
    with objmode():
        python_record_state(handle, step, number)


@njit(cache=True)  # set-up calls it from Python
def record(k, step, number):
    """A state record for the trace (only when recording); `number` is the draw round or pick turn."""
    if k.recording:
        _record_state_in_python(k.handle, step, number)


@njit(cache=True)  # set-up calls it from Python
def ask(s, t, k, kind, g, seat, legal, hand, card, feed_need):
    """The acting seats' policies pick one legal option in each game `g` (rows of `legal`, `hand`,
    `card`, `feed_need`); a single legal option is taken unasked (`ask_policies`, through its address)."""
    choices = np.empty(len(g), np.int64)
    call_at(k.calls[ASK_AT], k.checks[ASK_AT], (s, t, k, kind, g, seat, legal, hand, card, feed_need, choices))
    return choices


def ask_types(s, k) -> tuple:
    """numba's types of `ask_policies`' arguments in a batch of state `s` and deciders `k`."""
    vector, matrix = typeof(np.zeros(1, np.int64)), typeof(np.zeros((1, 2), np.int64))
    return (typeof(s.arrays), typeof(s.tables), typeof(k), typeof(np.int64(0)), vector, vector,
            typeof(np.zeros((1, 1), np.bool_)), matrix, vector, vector, vector)


@compiled_only()
def ask_policies(s, t, k, kind, g, seat, legal, hand, card, feed_need, choices):
    """`ask`, its choices into `choices`."""
    n = len(g)
    asked = np.empty(n, np.bool_)
    if k.stopped[0]:  # the batch is only played out (the forward model has what it replayed for)
        _unasked(legal, choices, asked)
        return
    if _unasked(legal, choices, asked):
        owner = np.empty(n, np.int64)
        for i in range(n):
            owner[i] = k.seat_policy[g[i], seat[i]]
            fixed = _replayed(k, kind, g[i]) if asked[i] else -1
            if fixed >= 0:  # played again as recorded: no policy is asked
                if fixed >= legal.shape[1] or not legal[i, fixed]:
                    raise RuntimeError("forward model: a replayed choice is not legal in a determinised copy")
                choices[i], owner[i] = fixed, -1
        order, starts = _by_owner(asked, owner, len(k.code))
        for p in range(len(k.code)):
            mine = order[starts[p]:starts[p + 1]]
            if len(mine) == 0:
                continue
            if k.code[p] != 0 and (k.kinds[p] >> kind) & 1:
                if kind == COLONY:
                    colony_fronts(s, t, g, mine, k.colony_front)
                offered = legal
                if k.restricting[p] and (kind == DRAW or kind == PICK):
                    offered = legal.copy()  # the recorded options stay the rules' own
                    restrict_rows(kind, k.seen.piles, k.seen.pile_size, mine, g, offered, hand, k.restrict[p])
                call_at(k.decide_at[p], k.decide_check, (kind, k.seen, mine, g, seat, s.clock[0], s.clock[1], offered,
                                                         hand, card, feed_need, k.colony_front, k.policy_tables,
                                                         k.params[p], k.tables[p], choices))
                if _illegal_count(offered, mine, choices):
                    _refuse_in_python(k.handle, p, kind, g[mine], seat[mine], offered[mine], choices[mine])
            else:
                out = _choose_in_python(k.handle, p, kind, g[mine], seat[mine], legal[mine], hand[mine], card[mine],
                                        feed_need[mine])
                for i in range(len(mine)):
                    choices[mine[i]] = out[i]
        _remember(k, g, asked, choices)
    if k.recording:
        picked = np.flatnonzero(asked)
        _record_decision_in_python(k.handle, kind, g[picked], seat[picked], legal[picked], choices[picked])


@njit(cache=True, inline="always")
def ask_plain(s, t, k, kind, g, seat, legal):
    """`ask` for a decision without private information (everything but draw, tile and feed)."""
    n = len(g)
    return ask(s, t, k, kind, g, seat, legal, np.zeros((n, 2), np.int64), np.zeros(n, np.int64),
               np.zeros(n, np.int64))


@compiled_only()
def _replayed(k, kind, game):
    """The choice a replay fixes at a game's next decision: a recorded choice, or the candidate option
    at the decision explored; -1 when the seat's policy decides (after the replay, or a HIDDEN one)."""
    serial = k.serial[game]
    if serial < k.replay_length[game]:
        return np.int64(k.replay_history[game, serial])
    if serial == k.replay_length[game] and k.replay_root[game] >= 0:
        if kind != k.replay_kind:
            raise RuntimeError("forward model lost its place: the replay reached another kind of decision")
        return k.replay_root[game]
    return np.int64(-1)


@compiled_only()
def _remember(k, g, asked, choices):
    """Count the asked decisions of each game, and keep their choices (the forward model replays them)."""
    width = k.history.shape[1]
    for i in range(len(g)):
        if asked[i]:
            serial = k.serial[g[i]]
            if width:
                if serial >= width:
                    raise RuntimeError("more decisions in a game than history_width allows")
                k.history[g[i], serial] = choices[i]
            k.serial[g[i]] = serial + 1


@compiled_only()
def _unasked(legal, choices, asked):
    """The first legal option of each game, and whether it has more than one (then it is asked);
    returns how many are asked."""
    count_asked = 0
    for i in range(legal.shape[0]):
        count, choices[i] = 0, 0
        for j in range(legal.shape[1]):
            if legal[i, j]:
                choices[i] = j if count == 0 else choices[i]
                count += 1
        asked[i] = count > 1
        count_asked += asked[i]
    return count_asked


@compiled_only()
def _by_owner(asked, owner, policies):
    """Asked games grouped by the policy that owns the seat: `order[starts[k]:starts[k + 1]]` are
    policy k's, in game order (an owner of -1: no policy)."""
    starts = np.zeros(policies + 1, np.int64)
    for i in range(len(asked)):
        if asked[i] and owner[i] >= 0:
            starts[owner[i] + 1] += 1
    starts = np.cumsum(starts)
    order = np.empty(starts[-1], np.int64)
    filled = starts[:-1].copy()
    for i in range(len(asked)):
        if asked[i] and owner[i] >= 0:
            order[filled[owner[i]]] = i
            filled[owner[i]] += 1
    return order, starts


@compiled_only()
def _illegal_count(legal, rows, choices):
    """How many of the choices of `rows` are not a legal option."""
    count = 0
    for i in rows:
        if choices[i] < 0 or choices[i] >= legal.shape[1] or not legal[i, choices[i]]:
            count += 1
    return count


def make_deciders(game, history_width_: int) -> Deciders:
    """The compiled view of a batch's policies: a kernel for each built-in, Python for the rest."""
    c, policies = game.c, game.policies
    specs = [checked_kernel(policy, c, game.s.players, bool(game.s.deals.advanced)) for policy in policies]
    length = max([len(spec.params) for spec in specs if spec is not None], default=1)
    params = np.zeros((len(policies), length))
    tables = np.zeros((len(policies), 3, 2, max(c.n_cards, layout.SCRATCH)))  # a planner's scratch
    code, kinds = np.zeros(len(policies), np.int64), np.zeros(len(policies), np.int64)
    restrict = np.zeros((len(policies), c.n_cards), np.int8)
    restricting = np.zeros(len(policies), np.bool_)
    for p, spec in enumerate(specs):
        if spec is not None and spec.kinds:
            code[p] = spec.code
            kinds[p] = sum(1 << KINDS.index(kind) for kind in spec.kinds)
            params[p, :len(spec.params)] = spec.params
            if spec.table is not None and spec.table.size > 1:
                tables[p, :, :, :c.n_cards] = spec.table
            mask = policy_mask(policies[p], c)
            if mask is not None:
                restrict[p], restricting[p] = mask, True
    G = len(game.s.coins)
    width = history_width_ if (code == 0).any() or (kinds != (1 << len(KINDS)) - 1).any() else 0
    game.history = np.zeros((G, width), np.int16)
    # The same arrays and types as a Python policy's gathered view: one compiled kernel for both,
    # and the kernel cannot read what a player may not see.
    view = layout.KernelView(**{name: getattr(game.s, name) for name in layout.VIEW_ARRAYS})
    replay = game.replay
    if replay is None:
        replay_arrays = (np.zeros((G, 0), np.int16), np.zeros(G, np.int64), np.full(G, -1, np.int64), np.int64(-1))
    else:
        replay_arrays = (np.ascontiguousarray(replay.history, np.int16), np.asarray(replay.lengths, np.int64),
                         np.asarray(replay.root, np.int64), np.int64(KINDS.index(replay.kind)))
    k = Deciders(game.handle, np.ascontiguousarray(game.seat_policy, np.int64), code, kinds, params, tables,
                 restrict, restricting, view, c.compiled, np.zeros((G, COLONY_LEVELS, 4), np.int16), game.serial,
                 game.history, game.recorder is not None, *replay_arrays, game.stopped,
                 np.zeros(len(policies), np.int64), 0, np.zeros(CALLED, np.int64), np.zeros(CALLED, np.int64))
    arguments, check = type_key(k), 0
    for p in np.flatnonzero(code):  # only the kernels of the built-ins seated are loaded (or compiled)
        k.decide_at[p], check = address_for(DECIDE[code[p]], arguments, lambda: decide_types(k))
    return k._replace(decide_check=check)


def decide_types(k: Deciders) -> tuple:
    """numba's types of the arguments `ask` passes to the built-ins' entries in a batch (see
    `decide_planner` in hadara_sim/kernels/decide.py): kind, the seen state, rows, games, seats,
    epoch, phase, legal options, hand, card, feeding need, colony fronts, the components' arrays,
    parameters, value table, out."""
    vector, integer = typeof(np.zeros(1, np.int64)), typeof(np.int64(0))
    return (integer, typeof(k.seen), vector, vector, vector, integer, integer,
            typeof(np.zeros((1, 1), np.bool_)), typeof(np.zeros((1, 2), np.int64)), vector, vector,
            typeof(k.colony_front), typeof(k.policy_tables), typeof(k.params[0]), typeof(k.tables[0]), vector)

"""The built-ins' compiled entries (`decide_planner`, `decide_expert`, `decide_greedy`: `DECIDE` by
kernel code), and `choose`, their call from the Python policy interface (the engine calls them
through their addresses).
"""

from __future__ import annotations

import numpy as np

from hadara_sim.actions import KINDS
from hadara_sim.components import kernel_arrays
from hadara_sim.policy import Kernel, PolicyError, kernel_of, policy_name
from hadara_sim.problems import is_whole

from .basics import _first_legal, inner, inner_only
from .expert import _expert, learns, STATUE_INPUTS, TREES_AT
from .greedy import _greedy
from .layout import (EXPERT, gather, GREEDY, GREEDY_FIELDS, KIND_CODE, PLANNER, PLANNER_PARAMS, SCRATCH, SIDE_TABLE,
                     SIDES_AT)
from .planner import _planner


def choose(kernel: Kernel, kind: str, d, offered: np.ndarray | None = None) -> np.ndarray:
    """`decide` for the decision `d` of a Python policy: its view gathered, rows split by epoch and
    phase (in practice all rows share them); `offered`: the legal options the policy may take, when a
    restriction leaves fewer than `d.legal` (`restrict.restricted`)."""
    view = d.view
    n = len(d)
    v = gather(view, kind)
    legal = np.require(d.legal if offered is None else offered, requirements=("C", "W"))  # writable: the engine's type, one compiled decide
    hand = _private(view, "hand", kind == "draw", (n, 2))
    card = _private(view, "card", kind == "tile", (n,))
    feed_need = _private(view, "feed_need", kind == "feed", (n,))
    front = np.ascontiguousarray(view.colony_front, np.int16) if kind == "colony" else np.zeros((1, 5, 4), np.int16)
    seat = np.asarray(view.player, np.int64)
    epoch, phase = np.asarray(view.epoch, np.int64), np.asarray(view.phase, np.int64)
    _check(kernel, view.components.n_cards)
    ct = kernel_arrays(view.components)
    table = kernel.table
    # scratch space, as in the engine: for `_pick_ahead`, and for the expert's statue trees' inputs
    if kernel.code in (PLANNER, EXPERT) and kind in ("pick", "statue"):
        table = np.zeros((3, 2, max(len(ct.card_points), SCRATCH)))
    out = np.empty(n, np.int64)
    g = np.arange(n)
    for e, p in sorted(set(zip(epoch.tolist(), phase.tolist()))):
        rows = g if (epoch == e).all() and (phase == p).all() else np.flatnonzero((epoch == e) & (phase == p))
        decide(kernel.code, KIND_CODE[kind], v, rows, g, seat, e, p, legal, hand, card, feed_need, front, ct,
               kernel.params, table, out)
    return out


_CHECKED: dict[int, Kernel] = {}  # the Kernels `_check` passed, by id (each kept, so that its id is not reused)


def _check(kernel, n_cards: int) -> None:
    """A Kernel checked before compiled code reads it, once per Kernel: the batch engine checks a user's
    kernel() override (`checked_kernel`), but the Python path (`play`, a built-in's decide()) did not: a
    (3, 2, 1) table was read past its end for a whole game (exit 0), a 2-d one stopped on numba's
    TypingError, an int on "'int' object has no attribute 'table'". A ValueError the policy is named by."""
    if _CHECKED.get(id(kernel)) is kernel:
        return
    if not isinstance(kernel, Kernel):
        raise ValueError(f"its kernel() returned {type(kernel).__name__}, not the hadara_sim.policy.Kernel its "
                         "built-in's decide() plays (leave kernel() to the built-in it subclasses)")
    problem = kernel_problem(kernel, n_cards)
    if problem:
        raise ValueError(f"its kernel() returned a Kernel whose {problem} (leave kernel() to the built-in it "
                         "subclasses, or change only its settings)")
    if len(_CHECKED) >= 64:
        _CHECKED.clear()
    _CHECKED[id(kernel)] = kernel


def _private(view, name: str, needed: bool, shape) -> np.ndarray:
    """A decision-specific view field as int64 rows, zeros when the kind (or the view) has none."""
    value = getattr(view, name, None) if needed else None
    return np.zeros(shape, np.int64) if value is None else np.ascontiguousarray(value, np.int64)


@inner
def decide_planner(kind, v, rows, g, seat, epoch, phase, legal, hand, card, feed_need, colony_front, ct, params,
                   table, out):
    """The planner's choice in each row i of `rows` (game g[i], acting seat seat[i]) into out[i], always
    a legal option; the other rows are left alone (the engine passes one decision's rows of a policy)."""
    _planner(kind, v, rows, g, seat, epoch, phase, legal, hand, colony_front, ct, params, table, out)
    _settle(legal, rows, out)


@inner
def decide_expert(kind, v, rows, g, seat, epoch, phase, legal, hand, card, feed_need, colony_front, ct, params,
                  table, out):
    """`decide_planner` for the expert: its learned correction of the planner where its weights
    learn the kind, the planner's own choice elsewhere."""
    if learns(kind, table):
        _expert(kind, v, rows, g, seat, epoch, phase, legal, hand, colony_front, ct, params, table, out)
    else:
        _planner(kind, v, rows, g, seat, epoch, phase, legal, hand, colony_front, ct, params, table, out)
    _settle(legal, rows, out)


@inner
def decide_greedy(kind, v, rows, g, seat, epoch, phase, legal, hand, card, feed_need, colony_front, ct, params,
                  table, out):
    """`decide_planner` for greedy, the one-step value of each option."""
    _greedy(kind, v, rows, g, seat, epoch, phase, legal, hand, colony_front, ct, params, table, out)
    _settle(legal, rows, out)


@inner_only
def _settle(legal, rows, out):
    """Where no value beat -inf (a weight so large that values overflow) a row's choice is the first
    legal option."""
    for i in rows:
        if out[i] < 0 or out[i] >= legal.shape[1] or not legal[i, out[i]]:
            out[i] = _first_legal(legal, i, 0)


# Each built-in's compiled entry, by kernel code: separate functions, so that the engine (which calls
# them through their addresses, engine/decide.py) loads, and a first run compiles, only the kernels
# of the bots it seats.
DECIDE = {PLANNER: decide_planner, EXPERT: decide_expert, GREEDY: decide_greedy}


def decide(code, *arguments):
    """Built-in policy `code`'s choices (`decide_planner`'s arguments), from Python."""
    DECIDE[code](*arguments)


def checked_kernel(policy, components, players: int, advanced: bool) -> Kernel | None:
    """`kernel_of`, its contents checked before compiled code reads them: a user's kernel() returning a
    Kernel of the wrong code, kinds, params or table was only checked to be a Kernel, and compiled
    code read past its arrays (a side table's side 7, a tree's feature 99) or stopped on an unexpected
    KeyError; now a PolicyError naming the policy and what is wrong."""
    spec = kernel_of(policy, components, players, advanced)
    problem = None if spec is None else kernel_problem(spec, components.n_cards)
    if problem:
        raise PolicyError(f"policy '{policy_name(policy)}': its kernel() returned a Kernel whose {problem} (leave "
                          "kernel() to the built-in it subclasses, or change only its settings)")
    return spec


def kernel_problem(spec: Kernel, n_cards: int) -> str | None:
    """What in `spec` compiled code cannot read safely, or None. Values past any range (inf, nan) are the
    kernels' to weigh, which still take a legal option; what indexes an array is checked."""
    code, kinds = spec.code, spec.kinds
    if not is_whole(code) or code not in DECIDE:
        return f"code {code!r:.40} is no built-in's kernel ({PLANNER} planner, {GREEDY} greedy, {EXPERT} expert)"
    if not isinstance(kinds, (set, frozenset, tuple, list)) or not all(isinstance(k, str) and k in KINDS
                                                                       for k in kinds):
        return f"kinds {kinds!r:.60} are not a set of decision kinds ({', '.join(KINDS)})"
    try:
        params = np.asarray(spec.params, np.float64)
        table = None if spec.table is None else np.asarray(spec.table, np.float64)
    except (TypeError, ValueError, OverflowError):
        return "params or table are not numbers"
    if params.ndim != 1:
        return f"params are not a row of numbers (shape {params.shape})"
    if table is not None and (table.size > 1 or code == GREEDY) and table.shape != (3, 2, n_cards):
        return f"table is not (3, 2, {n_cards}) numbers (epoch, phase, card; shape {table.shape})"
    if code == GREEDY:
        return None if len(params) == len(GREEDY_FIELDS) else (f"params hold {len(params)} numbers, not greedy's "
                                                               f"{len(GREEDY_FIELDS)}")
    if len(params) < PLANNER_PARAMS or (code == PLANNER and len(params) != PLANNER_PARAMS):
        return f"params hold {len(params)} numbers, not the planner's {PLANNER_PARAMS}"
    sides = params[SIDES_AT:SIDES_AT + 5]
    # a side past 1 was read past a decision's two options (one past any whole number is read as none)
    if params[SIDE_TABLE] and (np.isfinite(sides) & ~np.isin(sides, (-1, 0, 1))).any():
        return f"side table {sides.tolist()} is not a side per setup card: -1 (chosen by play), 0 (A) or 1 (B)"
    return _trees_problem(params) if code == EXPERT else None


def _trees_problem(params: np.ndarray) -> str | None:
    """What is wrong with the expert's statue trees in `params` (from `TREES_AT`), or None."""
    if len(params) < TREES_AT + 1:
        return f"params hold {len(params)} numbers, fewer than the expert reads"
    trees = params[TREES_AT]
    if not trees > 0:  # 0, or nan: the kernel walks no trees
        return None
    depth = params[TREES_AT + 1] if len(params) > TREES_AT + 1 else -1.0
    if not (np.isfinite(trees) and trees == int(trees) and depth in range(17)):
        return f"statue trees ({trees:g} of depth {depth:g}) are not a whole count of trees of depth 0..16"
    trees, splits = int(trees), 2 ** int(depth) - 1
    if len(params) != TREES_AT + 3 + trees * (3 * splits + 1):
        return f"params hold {len(params)} numbers, not the {TREES_AT + 3 + trees * (3 * splits + 1)} of its trees"
    starts = TREES_AT + 3 + np.arange(trees) * (3 * splits + 1)
    features = params[starts[:, None] + np.arange(splits)]
    bad = ~((features == np.floor(features)) & (features >= 0) & (features < len(STATUE_INPUTS)))
    if bad.any():
        return (f"statue tree {int(np.flatnonzero(bad.any(axis=1))[0])} splits on inputs other than the "
                f"{len(STATUE_INPUTS)} it is given")
    return None

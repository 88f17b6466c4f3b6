"""The built-ins' compiled entries (`decide_planner`, `decide_expert`, `decide_greedy`: `DECIDE` by
kernel code), and `choose`, their call from the Python policy interface (the engine calls them
through their addresses).
"""

from __future__ import annotations

import numpy as np

from hadara_sim.components import kernel_arrays
from hadara_sim.policy import Kernel

from .basics import _first_legal, inner, inner_only
from .expert import _expert, learns
from .greedy import _greedy
from .layout import EXPERT, gather, GREEDY, KIND_CODE, PLANNER, SCRATCH
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

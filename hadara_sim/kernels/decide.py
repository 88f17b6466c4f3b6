"""`decide`, the one compiled entry of the built-ins' decisions, and `choose`, its call from the
Python policy interface (the engines call `decide` directly).
"""

from __future__ import annotations

import numpy as np

from hadara_sim.policy import Kernel

from .basics import _first_legal, inner
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
    ct = view.components.compiled
    table = kernel.table
    if kernel.code in (PLANNER, EXPERT) and kind == "pick":  # scratch space for `_pick_ahead`, as in the engine
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
def decide(code, kind, v, rows, g, seat, epoch, phase, legal, hand, card, feed_need, colony_front, ct, params,
           table, out):
    """Built-in policy `code`'s choice in each row i of `rows` (game g[i], acting seat seat[i]) into
    out[i], always a legal option; the other rows are left alone (the engine passes one decision's rows
    of every policy)."""
    if code == PLANNER or (code == EXPERT and not learns(kind, table)):
        _planner(kind, v, rows, g, seat, epoch, phase, legal, hand, colony_front, ct, params, table, out)
    elif code == EXPERT:
        _expert(kind, v, rows, g, seat, epoch, phase, legal, hand, colony_front, ct, params, table, out)
    elif code == GREEDY:
        _greedy(kind, v, rows, g, seat, epoch, phase, legal, hand, colony_front, ct, params, table, out)
    else:
        for i in rows:
            out[i] = _first_legal(legal, i, 0)
    for i in rows:  # no value beat -inf (a weight so large that values overflow): the first legal option
        if out[i] < 0 or out[i] >= legal.shape[1] or not legal[i, out[i]]:
            out[i] = _first_legal(legal, i, 0)

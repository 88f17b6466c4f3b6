"""Small compiled helpers every kernel shares: the decorators, sums in numpy's order, the best legal
option, and plain facts of a player's position (card counts, the deck it faces, a card's steps).
The rules the engine applies too (prices, sets) are in hadara_sim/rules.py.
"""

from __future__ import annotations

from llvmlite import ir
from numba import njit, types
from numba.core import cgutils, config
from numba.extending import intrinsic

import hadara_sim.jit_cache  # noqa: F401  (drops numba's cached code when its sources changed)
from hadara_sim.compiled_only import compiled_only

from .layout import AFFINITY


# `decide` and its helpers allocate nothing and count no references to the arrays they are passed
# (numba would at every call, which costs more than their arithmetic), so a compiled engine built
# without reference counting can call it. The small helpers of this module are plain calls, which
# LLVM inlines where they are called; inlining them at numba's IR level as well (`_better` alone has
# 41 call sites) cost a quarter of the engine's first compile and no speed.
# The kernels, the helpers and these small ones are called only from compiled code (the entries of
# kernels/decide.py), so they are built without a Python entry point (`inner_only`, `helper`: its
# unboxing of the view's and tables' arrays was a quarter of the planner's first compile, see
# hadara_sim/compiled_only.py). `inner` is for what Python calls as well (the entries, the training kernel).
inner = njit(cache=True, _nrt=False)
inner_only = compiled_only(_nrt=False)
# The kernels' larger helpers must be inlined: left as calls (LLVM's own choice for functions this
# size), each call passes the view and table tuples (dozens of array structs) at every row, which
# costs more than their work (the bots played 35-40 % fewer games a second). numba's `forceinline`
# marks them `alwaysinline` for LLVM, which inlines each compiled helper where it is called: the
# same speed and the same games as inlining them at numba's IR level (`inline="always"`), which
# typed and lowered every helper again at each call site (the planner's kernel 94 -> 44 CPU s to
# compile, the training kernel 73 -> 28). A bounds-checked build (`make boundscheck`) checks the
# same indices and is not played for speed: there they are plain calls.
helper = compiled_only(_nrt=False, **({} if config.BOUNDSCHECK else {"forceinline": True}))


@intrinsic
def _fma(typingctx, a, b, c):
    """a * b + c with one rounding (llvm.fma), as OpenBLAS's compute kernels do."""
    sig = types.float64(types.float64, types.float64, types.float64)

    def codegen(context, builder, signature, args):
        double = ir.DoubleType()
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(double, [double] * 3), "llvm.fma.f64")
        return builder.call(fn, args)

    return sig, codegen


@inner_only
def _dot_lanes(a, b):
    """a . b of two 4-vectors summed as numpy's einsum does (two lanes)."""
    return (a[0] * b[0] + a[2] * b[2]) + (a[1] * b[1] + a[3] * b[3])


@inner_only
def _dot_fma(a, b):
    """a . b of two 4-vectors summed as OpenBLAS's matrix product does (fused, in order)."""
    return _fma(a[3], b[3], _fma(a[2], b[2], _fma(a[1], b[1], a[0] * b[0])))


@inner_only
def _better(legal, i, j, value, top, choice):
    """(top, choice) after option j of row i: options are offered in order, and the highest-valued
    legal one wins (the first on ties; option 0 when no legal value beats -inf), as `common.best`."""
    if legal[i, j] and value > top:
        return value, j
    return top, choice


@inner_only
def _first_legal(legal, i, start):
    """The first legal option of row i from `start` on (`Policy.default` from 0), 0 if none."""
    for j in range(start, legal.shape[1]):
        if legal[i, j]:
            return j
    return 0


@inner_only
def _income_left(epoch, phase):
    """Income steps still to come, the current phase's included."""
    return 2 * (3 - epoch) + (2 if phase == 0 else 1)


@inner_only
def _top(v, gi, colour):
    """The top card of a discard pile (card 0 for an empty pile)."""
    return max(v.piles[gi, colour, max(v.pile_size[gi, colour] - 1, 0)], 0)


@inner_only
def _faced(v, gi, me, k):
    """The deck colour seat `me` faces in draw round 1 when seat 0 faces board position k."""
    return v.colour_order[gi, (k + me) % 5]


@inner_only
def _card_count(v, gi, me):
    total = 0
    for k in range(5):
        total += v.colour_count[gi, me, k]
    return total


@inner_only
def _step(v, gi, me, ct, card, colour, t):
    """Steps of track t that `card` gives: its value, one more if affinity_<t> and the card is of colour t."""
    step = float(ct.card_values[card, t])
    if colour == t and v.effects[gi, me, AFFINITY + t]:
        step += 1.0
    return step

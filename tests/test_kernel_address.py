"""A compiled call through an address (hadara_sim/kernels/address.py): how the engine's steps call
the built-in bots' entries without compiling the kernels into each of them."""

import numpy as np
import pytest
from numba import njit, typeof

from hadara_sim.component_files import load_components
from hadara_sim.deal import make_deals
from hadara_sim.engine.decide import decide_types
from hadara_sim.engine.game import BatchGame
from hadara_sim.kernels.address import address_of, call_at, checksum
from hadara_sim.kernels.decide import DECIDE
from hadara_sim.kernels.layout import GREEDY
from hadara_sim.registry import make_policy


@njit
def _scale(values, factor, out):
    for i in range(len(values)):
        if values[i] < 0:
            raise ValueError("a negative value")
        out[i] = values[i] * factor


@njit
def _caller(at, check, values, factor, out):
    call_at(at, check, (values, factor, out))
    return out.sum()


def _arguments(values):
    return np.asarray(values, np.float64), 2.0, np.zeros(len(values))


def test_the_callee_runs_with_the_callers_arguments():
    values, factor, out = _arguments([1.0, 2.0, 3.0])
    at, check = address_of(_scale, [typeof(x) for x in (values, factor, out)])
    assert _caller(at, check, values, factor, out) == 12.0
    assert out.tolist() == [2.0, 4.0, 6.0]


def test_the_callees_exception_reaches_the_caller():
    values, factor, out = _arguments([1.0, -1.0])
    at, check = address_of(_scale, [typeof(x) for x in (values, factor, out)])
    with pytest.raises(ValueError, match="a negative value"):
        _caller(at, check, values, factor, out)


def test_an_address_compiled_for_other_types_is_refused_not_called():
    values, factor, out = _arguments([1.0])
    other = [typeof(x) for x in (values.astype(np.float32), factor, out)]
    at, check = address_of(_scale, other)
    assert check == checksum(other) != checksum([typeof(x) for x in (values, factor, out)])
    with pytest.raises(RuntimeError, match="argument types differ"):
        _caller(at, check, values, factor, out)


def test_a_batch_loads_only_the_kernels_of_the_built_ins_it_seats():
    components = load_components()
    deals = make_deals(components, 2, 1)
    python_only = BatchGame(deals, components, [make_policy("random"), make_policy("random")]).k
    assert python_only.decide_at.tolist() == [0, 0]
    built_in = BatchGame(deals, components, [make_policy("greedy"), make_policy("random")]).k
    assert built_in.decide_at[0] != 0 and built_in.decide_at[1] == 0
    assert built_in.decide_check == checksum(decide_types(built_in))
    three = make_deals(components, 3, 1)
    two = BatchGame(three, components, [make_policy("greedy"), make_policy("balanced"), make_policy("greedy")]).k
    assert two.decide_at[0] == two.decide_at[2] != two.decide_at[1] != 0
    assert two.decide_at[0] == address_of(DECIDE[GREEDY], decide_types(two))[0]


def test_the_steps_call_each_other_through_addresses_bound_before_the_first_step():
    from hadara_sim.engine.decide import ASK_AT, CALLED
    from hadara_sim.engine.game import pick_turn

    components = load_components()
    game = BatchGame(make_deals(components, 2, 1), components, [make_policy("greedy"), make_policy("random")])
    assert game.k.calls.tolist() == [0] * CALLED  # nothing compiled or loaded for a batch not played
    with pytest.raises(RuntimeError, match="argument types differ"):  # unbound: refused, never a jump to 0
        pick_turn(game.s.arrays, game.s.tables, game.k, np.zeros(1, np.int64))
    game.play()
    assert all(game.k.calls) and game.k.checks[ASK_AT] != 0


def test_the_type_key_tells_apart_what_numba_types_apart():
    from hadara_sim.kernels.address import type_key

    a = np.zeros((3, 2))
    frozen = a.copy()
    frozen.flags.writeable = False
    variants = [a, a.astype(np.float32), a.T, a[:, 0], frozen, a.reshape(6), (a,), [a]]
    assert len({type_key(v) for v in variants}) == len(variants)
    assert type_key((a, 1)) == type_key((np.ones((5, 7)), 2))  # sizes and values are not types

"""Functions compiled without a Python entry point: compiled code calls them, Python gets a message."""

import pytest
from numba import njit

from hadara_sim.compiled_only import CompiledOnly, compiled_only


@compiled_only()
def twice(x):
    return 2 * x


@njit(cache=True)
def twice_from_compiled_code(x):
    return twice(x) + 1


def test_compiled_code_calls_it():
    assert twice_from_compiled_code(3) == 7


def test_a_call_from_python_is_refused_with_its_name_not_a_crash():
    with pytest.raises(TypeError, match=r"test_compiled_only\.twice is compiled without a Python entry point"):
        twice(3)


def test_the_engine_rules_and_the_kernels_helpers_have_no_python_entry_point():
    from hadara_sim.engine.cards import gain_card, remove_card
    from hadara_sim.engine.decide import ask_policies
    from hadara_sim.kernels.planner import _planner
    from hadara_sim.kernels.valuation import _card_worth

    assert all(isinstance(f, CompiledOnly) for f in (gain_card, ask_policies, _planner, _card_worth))
    assert not isinstance(remove_card, CompiledOnly)  # `entry`: a test of a rare path calls it from Python

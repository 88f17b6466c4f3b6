"""Property: whatever scenario file or component set a user gives `simulate`, it exits 0 or 2
with a message, never a traceback, and writes nothing but its results directory.

A few examples here keep CI fast; scripts/fuzz_inputs.py runs the same property as a campaign."""

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings

from input_strategies import apply_edits, check_simulate, component_edits, garbage_lines, scenario_dicts, toml_text

FAST = settings(max_examples=25, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@FAST
@given(data=scenario_dicts(), garbage=garbage_lines)
def test_any_scenario_file_exits_0_or_2_and_writes_only_its_results(data, garbage):
    with tempfile.TemporaryDirectory() as tmp:
        verdict, output = check_simulate(Path(tmp), toml_text(data, garbage))
    assert verdict.startswith("ok"), f"{verdict}\n{toml_text(data, garbage)}\n{output}"


@FAST
@given(edits=component_edits())
def test_any_component_set_exits_0_or_2_and_writes_only_its_results(edits):
    with tempfile.TemporaryDirectory() as tmp:
        apply_edits(Path(tmp) / "components", edits)
        verdict, output = check_simulate(Path(tmp), 'players = 2\npolicies = ["greedy", "random"]\n',
                                         Path(tmp) / "components")
    assert verdict.startswith("ok"), f"{verdict}\n{edits}\n{output}"

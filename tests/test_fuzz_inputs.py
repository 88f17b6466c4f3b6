"""Property: whatever scenario file or component set a user gives `simulate`, it exits 0 or 2
with a message, never a traceback, and writes nothing but its results directory.

A few examples here keep CI fast; scripts/fuzz_inputs.py runs the same property as a campaign."""

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings

from input_strategies import (
    check_component_set, check_results, check_simulate, component_edits, garbage_lines, results_edits, scenario_dicts,
    toml_text, typed_scenario_dicts,
)

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
        verdict, output = check_component_set(Path(tmp), edits)
    assert verdict.startswith("ok"), f"{verdict}\n{edits}\n{output}"


@settings(max_examples=10, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(edits=results_edits())
def test_any_damaged_results_directory_is_refused_or_read_cleanly(edits):
    with tempfile.TemporaryDirectory() as tmp:
        verdict, output = check_results(Path(tmp), edits, ["report", "winrate"])
    assert verdict.startswith("ok"), f"{verdict}\n{edits}\n{output}"


@settings(max_examples=8, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=typed_scenario_dicts())
def test_scenarios_of_the_right_types_run_or_are_refused_before_playing(data):
    with tempfile.TemporaryDirectory() as tmp:
        verdict, output = check_simulate(Path(tmp), toml_text(data))
    assert verdict.startswith("ok"), f"{verdict}\n{toml_text(data)}\n{output}"

"""Properties over generated inputs: whatever scenario file or component set a user gives
`simulate`, it exits 0 or 2 with a message, never a traceback, and writes nothing but its results
directory; whatever damage a results directory has, `report` and a resume read it or refuse it
in one line and delete nothing they did not write.

A few examples here keep CI fast; scripts/fuzz_inputs.py runs the same properties as a campaign."""

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from input_strategies import (
    check_cli, check_component_set, check_results, check_simulate, cli_invocations, command_table, component_edits,
    garbage_lines, results_edits, scenario_dicts, toml_text, typed_scenario_dicts, OPTION_VALUES, ARGUMENT_VALUES,
)


def ci(examples: int):
    """Hypothesis settings for CI: few examples, the same ones every run."""
    return settings(max_examples=examples, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@ci(25)
@given(data=scenario_dicts(), garbage=garbage_lines)
def test_any_scenario_file_exits_0_or_2_and_writes_only_its_results(data, garbage):
    with tempfile.TemporaryDirectory() as tmp:
        verdict, output = check_simulate(Path(tmp), toml_text(data, garbage))
    assert verdict.startswith("ok"), f"{verdict}\n{toml_text(data, garbage)}\n{output}"


@ci(8)
@given(data=typed_scenario_dicts())
def test_scenarios_of_the_right_types_run_or_are_refused_before_playing(data):
    with tempfile.TemporaryDirectory() as tmp:
        verdict, output = check_simulate(Path(tmp), toml_text(data))
    assert verdict.startswith("ok"), f"{verdict}\n{toml_text(data)}\n{output}"


@ci(25)
@given(edits=component_edits())
def test_any_component_set_exits_0_or_2_and_writes_only_its_results(edits):
    with tempfile.TemporaryDirectory() as tmp:
        verdict, output = check_component_set(Path(tmp), edits)
    assert verdict.startswith("ok"), f"{verdict}\n{edits}\n{output}"


@ci(10)
@given(edits=results_edits(), resume=st.booleans())
def test_any_damaged_results_directory_is_read_or_refused_cleanly(edits, resume):
    with tempfile.TemporaryDirectory() as tmp:
        verdict, output = check_results(Path(tmp), edits, ["simulate"] if resume else ["report", "winrate"])
    assert verdict.startswith("ok"), f"{verdict}\n{edits}\n{output}"


def test_every_option_of_every_command_has_values_to_fuzz():
    """A new option must be given a pool of values here before it ships."""
    for path, params in command_table().items():
        for param in params:
            if param.param_type_name == "argument":
                assert param.name in ARGUMENT_VALUES, (path, param.name)
            elif not param.is_flag and "--help" not in param.opts:
                assert max(param.opts, key=len) in OPTION_VALUES, (path, param.opts)


@ci(30)
@given(args=cli_invocations())
def test_any_command_line_exits_0_1_or_2_with_a_message(args):
    with tempfile.TemporaryDirectory() as tmp:
        verdict, output = check_cli(Path(tmp), args)
    assert verdict.startswith("ok"), f"{verdict}\n{output}"

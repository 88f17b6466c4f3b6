"""`hadara-sim policies tune`: tuning on common deals, then a held-out check on fresh ones."""

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from hadara_sim import load_components
from hadara_sim.cli import app
from hadara_sim.tune import Range, toml_string, tune

HERE = Path(__file__).parent


def test_tune_runs_end_to_end_and_writes_the_command_next_to_the_weights(tmp_path):
    out = tmp_path / "skilled.toml"
    spec = f"{HERE / 'tune_policies.py'}:Skilled"
    args = ["policies", "tune", spec, "--param", "skill=0:1", "--trials", "4", "--games", "30",
            "--validation-games", "200", "--seed", "1", "--out", str(out), "-q"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    written = tomllib.loads(out.read_text())
    assert written["params"]["skill"] > 0.5
    assert written["validation_passed"] is True
    assert written["command"].startswith(f"hadara-sim policies tune {spec} --opponent start --players 2")
    low, high = written["validation"][0]["ci95"]
    assert 0.5 < low < written["validation"][0]["win_share"] < high


def test_the_held_out_check_rejects_a_candidate_that_only_won_on_the_training_deals():
    c = load_components()
    result = tune(c, f"{HERE / 'tune_policies.py'}:Lucky", ["start"], [2], trials=12, games=16,
                  validation_games=400, seed=3, space={"luck": Range(0, 1000)})
    assert result.training_score >= 0.65  # a lucky stream on 16 training deals
    assert not result.passed                # and no better than the start on fresh deals
    assert len(result.validation_shares) == 400


def test_a_bad_parameter_range_is_a_one_line_error():
    result = CliRunner().invoke(app, ["policies", "tune", "greedy", "--param", "coin=high"])
    assert result.exit_code == 2
    assert "name=low:high" in result.output


def test_a_range_for_a_tuple_parameter_says_to_give_choices():
    """--param colours=1:2 (greedy's colours is a tuple) ended in 'unexpected TypeError: float() argument
    must be a string or a real number, not 'tuple'', exit 1."""
    result = CliRunner().invoke(app, ["policies", "tune", "greedy", "--param", "colours=1:2", "--trials", "1"])
    assert result.exit_code == 2, result.output
    assert ("--param colours=1:2: colours is a tuple of 5 entries, tuned by choices for each entry: write "
            "colours=a,b,c") in " ".join(result.output.split())


def test_a_parameter_given_twice_is_refused():
    """--param coin=1:2 --param coin=1:3 tuned coin in 1..3 and dropped 1..2 without a word."""
    result = CliRunner().invoke(app, ["policies", "tune", "greedy", "--param", "coin=1:2", "--param", "coin=1:3",
                                      "--trials", "1"])
    assert result.exit_code == 2, result.output
    assert "--param coin is given more than once; give each parameter one range or set of choices" in result.output


def test_the_same_command_chooses_the_same_parameters():
    c = load_components()
    runs = [tune(c, f"{HERE / 'tune_policies.py'}:Skilled", ["start", "greedy"], [2, 3], trials=3, games=12,
                 validation_games=20, seed=4, space={"skill": Range(0, 1)}) for _ in range(2)]
    assert runs[0].params == runs[1].params
    assert runs[0].trials == runs[1].trials


def plays_tuned_file(name: str, command: str) -> tuple[dict, dict]:
    """(the tuned file of built-in `name`, its settings), after checking that the file was written by
    `command` with a passed held-out check and that the policy plays every weight in it."""
    from hadara_sim.registry import make_policy
    from hadara_sim.policies.tuned import TUNED_DIR

    written = tomllib.loads((TUNED_DIR / f"{name}.toml").read_text())
    assert written["command"].startswith(command)
    assert written["validation_passed"] is True
    settings = make_policy(name).settings
    for key, value in written["params"].items():
        assert settings[key] == (tuple(value) if isinstance(value, list) else value)
    return written, settings


def test_balanced_plays_the_weights_written_by_the_tune_command():
    from hadara_sim.registry import make_policy

    written, balanced = plays_tuned_file("balanced", "hadara-sim policies tune balanced-v1 ")
    v1 = make_policy("balanced-v1").settings
    # and its sides are derived by play (policies/sides.py), where balanced-v1 keeps its table
    assert {k for k in v1 if v1[k] != balanced[k]} == set(written["params"]) | {"side_choice"}


def test_tuning_against_a_search_field_runs_end_to_end_on_a_tiny_budget(components):
    """The strongest field can be the opponent of a tuning (expert iteration's first step): every
    candidate plays search on the same deals, and the validation runs."""
    result = tune(components, "balanced-v1", ["search"], [2], trials=2, games=2, validation_games=2, seed=3,
                  advanced=True, space={"coin": Range(0.5, 0.7)})
    assert len(result.trials) == 2 and 0.5 <= result.params["coin"] <= 0.7
    assert len(result.validation) == 1 and len(result.validation[0].shares) == 2


def test_a_whole_number_setting_is_tuned_in_whole_numbers(components):
    """silver_min is a whole number: a range tunes it over whole numbers (a float would be refused)."""
    result = tune(components, "balanced-v1", ["start"], [2], trials=3, games=2, validation_games=2, seed=3,
                  advanced=True, space={"silver_min": Range(4, 6)})
    assert all(type(t["silver_min"]) is int and 4 <= t["silver_min"] <= 6 for t in result.trials)
    assert type(result.params["silver_min"]) is int


def test_foresight_plays_the_weights_written_by_the_tune_command():
    """foresight's weights are the tune command's (against a balanced field), written with its held-out
    check; every other setting is balanced's or its own pick lookahead's default."""
    from hadara_sim.registry import make_policy
    from hadara_sim.policies.styles import Foresight

    written, foresight = plays_tuned_file("foresight", "hadara-sim policies tune foresight --opponent balanced ")
    balanced = make_policy("balanced").settings
    own = set(Foresight.params) - set(balanced)
    assert own == {"rival_weight", "pick_rounds", "deny"}
    assert {k for k in balanced if foresight[k] != balanced[k]} <= set(written["params"])


def test_a_side_table_is_tuned_only_in_advanced_games():
    """README's `policies tune balanced-v1 --param sides=-1,0,1` without --advanced tuned a side table the
    basic game never plays ("chosen: sides=(-1, -1, -1, -1, -1)"): refused, and left out by default."""
    from hadara_sim.tune import default_space

    assert "sides" in default_space("balanced-v1") and "sides" not in default_space("balanced-v1", advanced=False)
    with pytest.raises(ValueError, match="sides is the setup side table, which only the advanced game plays"):
        tune(load_components(), "balanced-v1", ["start"], [2], 1, 2, 2, advanced=False,
             space={"sides": Range(choices=(-1, 0, 1))})


def test_the_held_out_check_is_written_as_numbers_in_csv_and_json():
    """csv and json wrote the table's cells, "30.0%" and "[10.8, 60.3]", as text: a reader got no numbers."""
    import json

    from test_cli_tables import assert_machine_numbers

    args = ["policies", "tune", "greedy", "--param", "coin=0.5:1.5", "--trials", "2", "--games", "4",
            "--validation-games", "10", "--seed", "1", "-q"]
    csv = CliRunner().invoke(app, [*args, "--format", "csv"])
    assert csv.stdout.startswith("table,players,games,win_pct,win_low_pct,win_high_pct"), csv.output
    assert_machine_numbers(csv.stdout)
    row = json.loads(CliRunner().invoke(app, [*args, "--format", "json"]).stdout)["tables"][0]["data"][0]
    assert row["games"] == 10 and row["win_low_pct"] <= row["win_pct"] <= row["win_high_pct"]


@pytest.mark.parametrize("trials, games", [(10**20, 500), (10**9, 10**6)])
def test_tune_refuses_a_run_longer_than_any_run_plays(trials, games, tmp_path):
    """--trials 10**20 was taken and ran behind its progress bar without end; each option within its range
    but their product past the most games a run plays is refused too, before any game and any file."""
    result = CliRunner().invoke(app, ["policies", "tune", "greedy", "--trials", str(trials), "--games", str(games),
                                      "--out", str(tmp_path / "w.toml")], env={"COLUMNS": "200"})
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and ("--trials" in result.output) and not (tmp_path / "w.toml").exists()


@settings(max_examples=300, deadline=None)
@given(st.text(st.characters(codec=None, exclude_categories=())))
def test_a_string_written_into_a_tuned_weights_or_value_file_reads_back_as_it_was(text):
    """toml_string wrote DEL (0x7f) as it is, which TOML does not allow: the file did not read back; and a lone
    surrogate (a name's byte that is not UTF-8) raised UnicodeEncodeError as the file was written, after the work.
    Now every text reads back the same, or is refused with a ValueError naming the character."""
    if any("\ud800" <= ch <= "\udfff" for ch in text):
        with pytest.raises(ValueError, match=r"holds U\+D[89A-F][0-9A-F]{2}, a byte that is no UTF-8 text"):
            toml_string(text)
        return
    written = f"command = {toml_string(text)}\n".encode()  # as the files are written, in UTF-8
    assert tomllib.loads(written.decode())["command"] == text


def test_tune_refuses_a_command_its_file_cannot_hold_before_tuning(tmp_path):
    """A --components folder whose name is no UTF-8 (a lone surrogate in Python) stopped the writing of --out
    with "unexpected UnicodeEncodeError", after every trial had been played."""
    from hadara_sim.component_files import default_components_path

    odd = tmp_path / "set-\udcff"
    shutil.copytree(default_components_path(), odd)
    result = CliRunner().invoke(app, ["policies", "tune", "greedy", "--trials", "1", "--games", "2",
                                      "--validation-games", "2", "--components", str(odd), "-q",
                                      "--out", str(tmp_path / "w.toml")])
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), result.output
    assert "cannot record the command" in result.output and "U+DCFF" in result.output, result.output
    assert "trying" not in result.output and not (tmp_path / "w.toml").exists()


def test_a_policy_failing_in_a_trial_is_named_without_optuna_s_traceback(tmp_path):
    """optuna logged each failed trial as a warning with its traceback ("Trial 0 failed ... Traceback"),
    before the command's own one-line error."""
    (tmp_path / "my.py").write_text("from hadara_sim.policies.greedy import Greedy\n\n\nclass P(Greedy):\n"
                                    "    def kernel(self, *a, **k):\n        return 5\n")
    done = subprocess.run([sys.executable, "-m", "hadara_sim", "policies", "tune", "my.py:P", "--trials", "1",
                           "--games", "2", "--validation-games", "2", "-q"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 1 and "its kernel() returned int" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and "Trial 0 failed" not in done.stderr, done.stderr

"""Help a newcomer can read: -h and --version, no type placeholders such as <bool> or
<list[str]>, docstrings not broken mid-sentence, and a help text on every option."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main
from typer.testing import CliRunner

import hadara_sim
from hadara_sim.cli import app

runner = CliRunner()


def commands():
    out = []

    def walk(command, path):
        out.append((path, command))
        for name, sub in sorted(getattr(command, "commands", {}).items()):
            walk(sub, path + [name])

    walk(typer.main.get_command(app), [])
    return out


@pytest.mark.parametrize("path", [p for p, _ in commands()], ids=lambda p: " ".join(p) or "hadara-sim")
def test_help_has_no_type_placeholders(path):
    result = runner.invoke(app, [*path, "-h"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "Usage" in result.output
    for placeholder in ("<bool>", "<list[", "<str>..."):
        assert placeholder not in result.output


def test_every_option_has_help():
    missing = [f"{' '.join(path)} {param.name}" for path, command in commands()
               for param in command.params if not (getattr(param, "help", None) or "").strip()]
    assert not missing


def test_every_command_that_plays_games_can_be_quiet():
    """Progress that --quiet silences: every command that plays games (it takes --components) but the
    component tables takes -q (balance check, suggest and sensitivity had none)."""
    loud = [" ".join(path) for path, command in commands()
            if any(p.name == "components" for p in command.params) and path[:1] != ["components"]
            and not any("--quiet" in p.opts and "-q" in p.opts for p in command.params)]
    assert loud == []


def test_paragraphs_are_not_broken_mid_sentence():
    result = runner.invoke(app, ["verify", "--help"], env={"COLUMNS": "200"})
    assert "the same legal options at every decision" in result.output


def test_summary_out_says_where_the_html_goes():
    """`report summary --out` was 'Directory for the charts', as for the reports that save charts: the
    summary saves none, and takes a folder (summary.html in it) or a file ending .html."""
    (param,) = [p for path, command in commands() if path == ["report", "summary"]
                for p in command.params if p.name == "out"]
    assert "summary.html" in param.help and ".html" in param.help and "charts" not in param.help


def test_version():
    for flag in ("--version", "-V"):
        result = runner.invoke(app, [flag])
        assert result.exit_code == 0 and result.output.strip() == f"hadara-sim {hadara_sim.__version__}"


def test_the_command_line_starts_without_the_engine():
    """`--help`, `--version` and the start of every command load neither numpy nor numba (the
    engine, a second of start-up): each command imports the library when it runs."""
    import subprocess
    import sys

    probe = "import sys, hadara_sim.cli; print(sorted(m for m in ('numba', 'numpy', 'polars') if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


SCRIPTS = sorted((Path(__file__).parents[1] / "scripts").glob("*.py"))


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_every_script_explains_itself(script):
    """The scripts behind committed numbers answer --help (compile_profile.py took it for a part to
    compile and stopped with a KeyError)."""
    result = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True,
                            env={**os.environ, "COLUMNS": "200"}, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "usage" in result.stdout.lower()


@pytest.mark.parametrize("args", [
    ["verdict_trace.py", "{tmp}"],                     # a folder that is not a results directory
    ["fit_compare.py", "{tmp}", "{tmp}"],              # a folder where a fix file was expected
    ["duel.py", "expert", "foresight", "-p", "6"],     # a player count the game does not have
    ["round_robin.py", "--seed", "-1"],                # a seed numpy's SeedSequence refuses
    ["leak_probe.py", "--players", "7"],
    ["startup_time.py", "--runs", "0"],                # no run to time
    ["measure_speeds.py", "--seconds", "0", "--out", "{tmp}/speeds.toml"],  # wrote one chunk's rates down
    ["bench_compare.py", "--base", "{tmp}/python", "--new", "{tmp}/python"],  # no Python there
    ["ablate_expert.py", "--zero", "colony", "--out", "{tmp}/w.toml"],  # a kind foresight decides alone
    ["ablate_expert.py", "--zero", "draw", "--weights", "{tmp}", "--out", "{tmp}/w.toml"],  # a folder as weights
    ["report_cost.py", "{tmp}"],                       # a folder that is not a results directory
    ["report_cost.py", "{tmp}", "--table", "medals"],  # a table it does not build
], ids=lambda a: " ".join(a))
def test_scripts_tell_bad_input_in_one_line(args, tmp_path):
    """A script's wrong input is told as the commands tell it, exit 2 (verdict_trace.py on a folder
    without metadata.json and duel.py -p 6 stopped with a traceback), and nothing is written."""
    script, *rest = args
    result = subprocess.run([sys.executable, str(SCRIPTS[0].parent / script), *(a.format(tmp=tmp_path) for a in rest)],
                            capture_output=True, text=True, env={**os.environ, "COLUMNS": "200"}, timeout=120)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and ("error" in result.stderr.lower()), result.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args", [["kind_decisions.py", "medal"], ["pick_decisions.py"], ["side_probe.py"],
                                  ["duel.py", "greedy", "random"], ["strength.py", "greedy"]], ids=lambda a: a[0])
def test_a_seed_past_the_commands_cap_is_refused_by_its_option(args):
    """kind_decisions.py, pick_decisions.py and side_probe.py --seed 10**23 stopped in a traceback where a
    policy refused the seed; duel.py and strength.py said so without naming --seed."""
    script, *rest = args
    result = subprocess.run([sys.executable, str(SCRIPTS[0].parent / script), *rest, "--seed", str(10**23)],
                            capture_output=True, text=True, env={**os.environ, "COLUMNS": "200"}, timeout=120)
    assert result.returncode == 2, result.stderr
    assert "Invalid value for '--seed' / '-s'" in result.stderr and "0<=x<=9223372036854775807" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("args, words", [
    (["--games-of", "foo"], "Invalid value for --games-of: 'foo': write bot=N"),
    (["--games-of", "greedy=0"], "Invalid value for --games-of: 'greedy=0': write bot=N"),
    (["--set", "balnced:coin=0.5"], "Invalid value for --set: 'balnced:coin=0.5': write bot:name=value, the bot one "
                                    "of greedy, balanced"),
], ids=["games-of foo", "games-of greedy=0", "set of a policy not at the table"])
def test_strength_refuses_a_games_of_or_set_it_cannot_use(args, words):
    """strength.py --games-of foo stopped in a traceback, greedy=0 printed 'nan%', and a --set of a
    policy not at the table (a typo) was passed over: the run played without it."""
    result = subprocess.run([sys.executable, str(SCRIPTS[0].parent / "strength.py"), "greedy", "-n", "4", "-p", "2",
                             *args], capture_output=True, text=True, env={**os.environ, "COLUMNS": "300"}, timeout=120)
    assert result.returncode == 2, result.stderr
    assert words in " ".join(result.stderr.replace("│", " ").split()) and "Traceback" not in result.stderr


@pytest.mark.parametrize("args, words", [
    (["--policy", "greedy", "--policy", "greedy"], "Invalid value for --policy: a round robin needs two different "
                                                   "policies at least, got 1 (greedy)"),
    (["--policy", "greedy", "--policy", "random", "--games-of", "grdy=4"], "--games-of 'grdy=4': no policy named "
                                                                          "'grdy' plays; the names are greedy, random"),
], ids=["one policy", "games-of a policy not playing"])
def test_round_robin_refuses_a_field_it_cannot_play(args, words):
    """round_robin.py with one policy stopped in a traceback (max() of no designs); --games-of of a
    misspelt name was passed over, the footer printing it as set."""
    result = subprocess.run([sys.executable, str(SCRIPTS[0].parent / "round_robin.py"), "-n", "4", "-p", "2", "-q",
                             *args], capture_output=True, text=True, env={**os.environ, "COLUMNS": "300"}, timeout=120)
    assert result.returncode == 2, result.stderr
    assert words in " ".join(result.stderr.replace("│", " ").split()) and "Traceback" not in result.stderr


@pytest.mark.parametrize("args, words", [
    (["--games", "5"], "Invalid value for '--games': 5 is not in the range x>=20"),
    (["-p", "9"], "Invalid value for '--players' / '-p': 9 is not in the range 2<=x<=5"),
    (["--holdout", "0"], "Invalid value for '--holdout': 0 is not in the range x>=20"),
], ids=["games", "players", "holdout"])
def test_fit_value_names_the_option_out_of_range(args, words, tmp_path):
    """fit_value.py said 'players 2-5, games and holdout at least 20' whichever of the three was wrong."""
    result = subprocess.run([sys.executable, str(SCRIPTS[0].parent / "fit_value.py"), "--out", str(tmp_path / "v.toml"),
                             *args], capture_output=True, text=True, env={**os.environ, "COLUMNS": "300"}, timeout=120)
    assert result.returncode == 2, result.stderr
    assert words in result.stderr and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args, words", [
    (["verdict_trace.py", "{tmp}", "--margin", "nan"], "Invalid value for '--margin' / '-m': nan is not a number"),
    (["verdict_trace.py", "{tmp}", "-m", "-3"], "-3: the margin is a positive number of percentage points"),
    (["hint_check.py", "{tmp}", "2P2A", "--margin", "0"], "0: the margin is a positive number of percentage points"),
    (["hint_check.py", "{tmp}", "2P2A", "--reps", "0"], "Invalid value for '--reps': 0 is not in the range x>=1"),
    (["hint_check.py", "{tmp}", "2P2A", "--seed", "-1"], "Invalid value for '--seed': -1 is not in the range"),
], ids=["verdict_trace nan", "verdict_trace negative", "hint_check zero", "hint_check reps", "hint_check seed"])
def test_the_verdict_scripts_check_their_options_as_the_reports_do(args, words, tmp_path):
    """verdict_trace.py and hint_check.py --margin nan, 0 or -3 stopped in a traceback (the library's
    ValueError in fractions), hint_check.py --seed -1 in numpy's; --margin is now the reports' option."""
    script, *rest = args
    result = subprocess.run([sys.executable, str(SCRIPTS[0].parent / script), *(a.format(tmp=tmp_path) for a in rest)],
                            capture_output=True, text=True, env={**os.environ, "COLUMNS": "300"}, timeout=120)
    assert result.returncode == 2, result.stderr
    assert words in " ".join(result.stderr.replace("│", " ").split()) and "Traceback" not in result.stderr


def test_hint_check_names_the_rows_it_has(tmp_path):
    """hint_check.py RESULTS 9P9Z stopped in a traceback ('9P9Z' is not in list) after loading the table."""
    import report_data as R

    R.write_results(R.four_games(), tmp_path / "results")
    result = subprocess.run([sys.executable, str(SCRIPTS[0].parent / "hint_check.py"), str(tmp_path / "results"),
                             "2P1A", "9P9Z"], capture_output=True, text=True, env={**os.environ, "COLUMNS": "300"},
                            timeout=120)
    assert result.returncode == 2, result.stderr
    said = " ".join(result.stderr.replace("│", " ").split())
    assert "Invalid value for ROWS: 9P9Z: no such row of the setup-card table; its rows are 2P1A, 2P2A" in said
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("args, words", [
    (["side_probe.py", "--policy", "nosuch"], "Invalid value for --policy: unknown policy 'nosuch'"),
    (["kind_decisions.py", "medal", "--bot", "nosuch"], "Invalid value for --bot: policy 'search' parameter rollout: "
                                                        "unknown policy 'nosuch'"),
    (["kind_decisions.py", "medal", "--field", "nosuch"], "Invalid value for --field: unknown policy 'nosuch'"),
], ids=["side_probe --policy", "kind_decisions --bot", "kind_decisions --field"])
def test_the_probe_scripts_name_an_unknown_policy_by_its_option(args, words):
    """side_probe.py --policy nosuch and kind_decisions.py --bot/--field nosuch stopped in a traceback
    (PolicyNotFound, or search's ValueError for its rollout)."""
    script, *rest = args
    result = subprocess.run([sys.executable, str(SCRIPTS[0].parent / script), *rest, "-n", "2", "-p", "2"],
                            capture_output=True, text=True, env={**os.environ, "COLUMNS": "300"}, timeout=120)
    assert result.returncode == 2, result.stderr
    assert words in " ".join(result.stderr.replace("│", " ").split()) and "Traceback" not in result.stderr


def test_pick_decisions_checks_its_out_before_the_games(tmp_path):
    """pick_decisions.py --out FOLDER played its games, then stopped in a traceback (IsADirectoryError)."""
    result = subprocess.run([sys.executable, str(SCRIPTS[0].parent / "pick_decisions.py"), "--out", str(tmp_path),
                             "-n", "2", "--budget", "1"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, result.stderr
    assert f"--out {tmp_path} is a folder, not a file; give a file path" in result.stderr
    assert "Traceback" not in result.stderr and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args, words", [
    (["--scenarios", "{tmp}"], "Invalid value for --scenarios: {tmp} holds no scenario files (*.toml)"),
    (["--only", "nosuch"], "Invalid value for --only: nosuch: no such scenario in"),
], ids=["empty folder", "unknown name"])
def test_dataset_digest_refuses_to_digest_nothing(args, words, tmp_path):
    """dataset_digest.py with a folder of no scenarios or an --only naming none printed nothing and
    exited 0: the before/after diff it is run for then passes."""
    result = subprocess.run([sys.executable, str(SCRIPTS[0].parent / "dataset_digest.py"),
                             *(a.format(tmp=tmp_path) for a in args)],
                            capture_output=True, text=True, env={**os.environ, "COLUMNS": "500"}, timeout=120)
    assert result.returncode == 2, result.stderr
    assert words.format(tmp=tmp_path) in " ".join(result.stderr.replace("│", " ").split()), result.stderr


@pytest.mark.parametrize("script", ["fit_diagnostics.py", "fit_holdout.py"])
@pytest.mark.parametrize("args, words", [
    (["--confirm-games", "xx"], "Invalid value: --confirm-games xx: 'xx' is not a number of games"),
    (["--confirm-games", "100", "--points", "0"], "Invalid value: points=0: a whole number of at least 1"),
], ids=["confirm-games", "points"])
def test_the_fit_scripts_tell_a_plan_they_cannot_make(script, args, words, tmp_path):
    """fit_diagnostics.py and fit_holdout.py --confirm-games xx or --points 0 stopped in a traceback of
    the plan's ValueError."""
    result = subprocess.run([sys.executable, str(SCRIPTS[0].parent / script), str(tmp_path), "-p", "2", "-n", "10",
                             *args], capture_output=True, text=True, env={**os.environ, "COLUMNS": "300"}, timeout=120)
    assert result.returncode == 2, result.stderr
    assert words in " ".join(result.stderr.replace("│", " ").split()) and "Traceback" not in result.stderr


@pytest.mark.parametrize("args, words", [
    (["--policy", "greedy", "--out", "{tmp}/none.toml"],
     "--policy keeps the other policies' rows of --out {tmp}/none.toml, which is not a speeds file"),
    (["--out", "{tmp}"], "--out {tmp} is a folder; give the path of the speeds file"),
], ids=["--policy without a file", "--out a folder"])
def test_measure_speeds_checks_its_out_before_measuring(args, words, tmp_path):
    """--policy with an --out that is no speeds file stopped in a traceback, and --out a folder after
    minutes of measuring every policy (IsADirectoryError on writing)."""
    result = subprocess.run([sys.executable, str(SCRIPTS[0].parent / "measure_speeds.py"), "--seconds", "0.01",
                             *(a.format(tmp=tmp_path) for a in args)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, result.stderr
    assert words.format(tmp=tmp_path) in result.stderr and "Traceback" not in result.stderr
    assert list(tmp_path.iterdir()) == []

"""What a newcomer meets in the first hour: a plugin written against the built-ins' old import
path is told the new one, a mistyped name gets a "did you mean", and `simulate` changes the player
count or any scenario value from the command line, checked like the file."""

import re
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hadara_sim.cli import app
from hadara_sim.registry import PolicyNotFound, make_policy

runner = CliRunner()


def test_a_plugin_on_the_old_import_path_is_told_the_new_one(tmp_path, monkeypatch):
    """`from policies.styles import Balanced` (as earlier docs showed) stops with its file, line and
    the line as it should read, not a ModuleNotFoundError."""
    root = Path(__file__).resolve().parent.parent  # `python -m pytest` there finds its folder policies/
    monkeypatch.setattr(sys, "path", [p for p in sys.path if Path(p or ".").resolve() != root])
    for name in [m for m in sys.modules if m == "policies" or m.startswith("policies.")]:
        monkeypatch.delitem(sys.modules, name)
    plugin = tmp_path / "mine.py"
    plugin.write_text('"""My bot."""\nfrom policies.styles import Balanced\n\n\nclass Mine(Balanced):\n    name = "mine"\n')
    with pytest.raises(PolicyNotFound) as err:
        make_policy(f"{plugin}:Mine")
    assert (f"{plugin}, line 2: `from policies.styles import Balanced` should read "
            "`from hadara_sim.policies.styles import Balanced`") in str(err.value)
    result = runner.invoke(app, ["play", "-p", "2", "--policy", f"{plugin}:Mine,greedy"], env={"COLUMNS": "300"})
    assert result.exit_code == 2 and "from hadara_sim.policies.styles import Balanced" in result.output
    plugin.write_text("from hadara_sim.policies.styles import Balanced\n\n\nclass Mine(Balanced):\n    name = 'mine'\n")
    assert make_policy(f"{plugin}:Mine").name == "mine"


def test_a_mistyped_policy_gets_a_did_you_mean():
    with pytest.raises(PolicyNotFound, match=r"unknown policy 'ballanced' \(did you mean balanced\?\)"):
        make_policy("ballanced")


def test_set_refuses_a_bad_key_or_value_at_its_own_position(tmp_path):
    """A mistyped key is refused as the file's would be, at `--set KEY=VALUE` instead of a line,
    with the closest key; a value out of range likewise; nothing is written."""
    bad = runner.invoke(app, ["simulate", "scenarios/default.toml", "--set", "playrs=3", "--out", str(tmp_path / "r")],
                        env={"COLUMNS": "300"})
    assert bad.exit_code == 2
    assert "--set playrs=3: playrs: unknown key 'playrs'; did you mean 'players'?" in bad.output
    wide = runner.invoke(app, ["simulate", "scenarios/default.toml", "--set", "seats.x=1", "--set",
                               "board.silver_price=[4, 9]", "--out", str(tmp_path / "r")], env={"COLUMNS": "300"})
    assert wide.exit_code == 2 and "--set board.silver_price=[4, 9]: board.silver_price:" in wide.output
    shape = runner.invoke(app, ["simulate", "scenarios/default.toml", "--set", "players"], env={"COLUMNS": "300"})
    assert shape.exit_code == 2 and "--set players: expected KEY=VALUE" in shape.output
    assert not (tmp_path / "r").exists()


def test_set_examples_work_as_printed_and_a_table_the_setting_made_up_is_its_fault(tmp_path):
    """The KEY=VALUE example named `components.overrides...`, a key no scenario has; a problem with a
    table the setting created was put at the scenario file."""
    shape = runner.invoke(app, ["simulate", "scenarios/default.toml", "--set", "=3"], env={"COLUMNS": "300"})
    example = re.search(r"or --set (\S+)", shape.output).group(1)
    assert runner.invoke(app, ["simulate", "scenarios/default.toml", "--set", example, "--dry-run"]).exit_code == 0
    wrong = runner.invoke(app, ["simulate", "scenarios/default.toml", "--set", "components.overrides.board.sell_price=3",
                                "--dry-run"], env={"COLUMNS": "300"})
    assert wrong.exit_code == 2 and "--set components.overrides.board.sell_price=3: components.overrides: unknown key" \
        in " ".join(wrong.output.split())


def test_players_or_a_value_the_scenario_sweeps_is_refused_with_the_sweep_to_change(tmp_path):
    """--players 3 on the setup grid (which sweeps players 2-5) was silently overridden by the sweep
    and still wrote results/setup-cards-players=3; its hint works as printed. The refusal names the
    option given: --players 3 was told as --set players=3."""
    out = runner.invoke(app, ["simulate", "scenarios/setup-cards.toml", "--players", "3", "--dry-run"],
                        env={"COLUMNS": "300"})
    text = " ".join(out.output.split())
    assert out.exit_code == 2 and "--players 3: players: this scenario sweeps players over [2, 3, 4, 5]" in text
    assert "--set players" not in text
    setting = runner.invoke(app, ["simulate", "scenarios/setup-cards.toml", "--set", "players=3", "--dry-run"],
                            env={"COLUMNS": "300"})
    assert setting.exit_code == 2 and "--set players=3: players: this scenario sweeps" in " ".join(setting.output.split())
    hint = re.search(r"\(--set '(.+?)'\)", text).group(1)
    fixed = runner.invoke(app, ["simulate", "scenarios/setup-cards.toml", "--set", hint, "--dry-run"],
                          env={"COLUMNS": "300"})
    assert fixed.exit_code == 0 and "results/setup-cards-sweep.players=_3" in fixed.output
    value = runner.invoke(app, ["simulate", "scenarios/3b-culture-coins.toml", "--set",
                                "components.setup.3B.culture=4", "--dry-run"], env={"COLUMNS": "300"})
    assert value.exit_code == 2 and "sweeps components.setup.3B.culture over [2, 3, 4, 5]" in " ".join(value.output.split())


def test_players_and_set_change_the_run_and_its_replay(tmp_path):
    """--players 2 and --set game=advanced play that game into their own default directory name;
    the run keeps its settings, so a traced game replays from the dataset exactly."""
    from hadara_sim.results import load_results

    out = tmp_path / "r"
    result = runner.invoke(app, ["simulate", "scenarios/default.toml", "--players", "2", "--set", "game=advanced",
                                 "--games", "20", "--jobs", "1", "--out", str(out), "--trace-games", "1"],
                           env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    df = load_results(out)
    assert set(df["players"]) == {2} and "wrote 1 game traces" in result.output
    dry = runner.invoke(app, ["simulate", "scenarios/default.toml", "--players", "3", "--dry-run"],
                        env={"COLUMNS": "200"})
    assert "results/default-players=3" in dry.output


def test_curve_draws_the_surface_of_two_swept_keys_and_says_what_makes_a_sweep(tmp_path):
    """Two numeric keys swept: `report curve` draws their surface without --key; a mistyped key gets
    a "did you mean"; a dataset with no sweep names the scenarios that make one."""
    from hadara_sim import simulate

    scenario = tmp_path / "two.toml"
    scenario.write_text('players = 2\npolicies = ["greedy"]\ngames = 20\nchunk = 20\n[setup]\ncards = [1, 2]\n'
                        '[sweep]\n"components.setup.1A.coins" = [0, 15, 30]\n"components.setup.1A.food" = [0, 4, 9]\n')
    simulate(scenario, out=tmp_path / "two", jobs=1)
    both = runner.invoke(app, ["report", "curve", str(tmp_path / "two"), "--out", str(tmp_path / "charts")],
                         env={"COLUMNS": "220"})
    assert both.exit_code == 0, both.output
    assert any(p.name.startswith("surface") for p in (tmp_path / "charts").iterdir())
    typo = runner.invoke(app, ["report", "curve", str(tmp_path / "two"), "--key", "components.setup.1A.coin"],
                         env={"COLUMNS": "300"})
    assert typo.exit_code == 2 and "did you mean components.setup.1A.coins?" in typo.output
    flat = tmp_path / "flat.toml"
    flat.write_text('players = 2\npolicies = ["greedy"]\ngames = 10\nchunk = 10\n')
    simulate(flat, out=tmp_path / "flat", jobs=1)
    none = runner.invoke(app, ["report", "curve", str(tmp_path / "flat")], env={"COLUMNS": "300"})
    assert none.exit_code == 2 and "`hadara-sim simulate 3b-culture-coins`" in " ".join(none.output.split())


def simulated(tmp_path, name: str, scenario: str) -> str:
    """What `simulate` of the scenario text `scenario` into tmp_path/name prints."""
    path = tmp_path / f"{name}.toml"
    path.write_text(scenario)
    result = runner.invoke(app, ["simulate", str(path), "--jobs", "1", "--out", str(tmp_path / name)],
                           env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.output


def test_the_closing_table_labels_combinations_in_words_and_points_to_the_report(tmp_path):
    """A grant sweep's rows read 'no grant (the control)' and 'grant I-B-01' (not JSON), the control
    first, and the run ends with the report that reads such a sweep, as a command to type."""
    output = simulated(tmp_path, "g", 'name = "g"\nplayers = 2\npolicies = ["greedy"]\ngames = 10\nchunk = 10\n'
                                      '[sweep]\ngrants = ["I-B-01", "I-B-02", "none"]\n')
    rows = [line for line in output.splitlines() if "grant" in line and "%" in line]
    assert "no grant (the control)" in rows[0] and any("grant I-B-01" in r for r in rows)
    assert '{"grants"' not in output
    assert f"next: hadara-sim report cards {tmp_path / 'g'}" in output


@pytest.mark.parametrize("scenario, report", [("default", "ratings"), ("seats", "seats"),
                                              ("setup-cards-fields", "setup-cards"), ("3b-culture-coins", "curve")])
def test_the_report_a_run_points_to_reads_it(tmp_path, scenario, report):
    """The run's closing `next:` works as printed: it pointed the setup grid under two fields (one policy
    per game) to `report ratings`, which refuses a run that never seats two policies."""
    out = tmp_path / "r"
    result = runner.invoke(app, ["simulate", f"scenarios/{scenario}.toml", "--games", "12", "--jobs", "1", "--set",
                                 "chunk=12", "--out", str(out)], env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    hint = next(line for line in result.output.splitlines() if line.startswith("next: "))
    words = hint.split(" (")[0].split()
    assert words[2:4] == ["report", report] and words[4] == str(out), hint
    followed = runner.invoke(app, words[2:], env={"COLUMNS": "300"})
    assert followed.exit_code == 0, (hint, followed.output)


def test_a_grid_of_sides_alone_points_to_the_setup_report(tmp_path):
    """docs/scenarios.md's "side B against side A of cards 3 and 1" (sides = "grid", cards fixed) pointed
    to `report seats`, whose seat rates the forced sides inflate (seat 0 at 69 %)."""
    output = simulated(tmp_path, "s", 'name = "sides"\nplayers = 2\ngame = "advanced"\npolicies = ["greedy"]\n'
                                      'games = 8\nchunk = 8\n[setup]\ncards = [3, 1]\nsides = "grid"\n')
    assert f"next: hadara-sim report setup-cards {tmp_path / 's'}" in output


def _imported_by(args: list[str]) -> list[str]:
    """The modules a fresh `hadara-sim ARGS` process has imported when it ends."""
    import subprocess

    code = (f"import sys\nfrom hadara_sim.cli import main\nsys.argv = ['hadara-sim', *{args!r}]\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\nprint(' '.join(sorted(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parent.parent)
    return done.stdout.strip().splitlines()[-1].split() if done.stdout.strip() else [done.stderr]


def test_a_quiet_run_starts_without_the_libraries_it_does_not_use(tmp_path):
    """A quiet 20-game simulate imports neither statsmodels (only a side trial needs it) nor pandas
    (pyarrow's `pa.array` would import it to ask about its input: `results._arrow` builds the
    columns from their buffers), nor joblib (a run in this process starts no worker), nor
    pyarrow.compute (`results._column` converts in numpy), nor scipy.linalg (numba's BLAS probe,
    skipped by `numba_start`): each costs a tenth of a second to a second of every run's start-up."""
    modules = _imported_by(["simulate", "scenarios/default.toml", "--games", "20", "--jobs", "1", "-q",
                            "--out", str(tmp_path / "r")])
    assert "hadara_sim.runner" in modules, modules
    unwanted = {"statsmodels", "pandas", "joblib", "pyarrow.compute", "polars", "matplotlib"}
    assert sorted(unwanted & {m.split(".")[0] for m in modules} | unwanted & set(modules)) == []
    assert "scipy.linalg" not in modules and "numba.np.arraymath" in modules


def test_the_closing_table_of_a_sweep_imports_no_charts(tmp_path):
    """simulate's closing table labels a sweep's combinations in words (`fields.value_label`) without
    the report sections, whose charts import matplotlib (a third of a second of every sweep's run)."""
    scenario = tmp_path / "swept.toml"
    scenario.write_text('players = 2\npolicies = ["greedy"]\ngames = 10\n[sweep]\ngrants = ["none", "sell_bonus"]\n')
    modules = _imported_by(["simulate", str(scenario), "--jobs", "1", "--out", str(tmp_path / "r")])
    assert "hadara_sim.report.fields" in modules and "statsmodels.stats.proportion" in modules, modules
    assert {"matplotlib", "hadara_sim.report.sections", "hadara_sim.report.charts"} & set(modules) == set()


STATISTICS = {"statsmodels", "scipy.stats", "pandas"}  # statsmodels imports the other two: 1.8 CPU s together


@pytest.mark.parametrize("args", [["report", "winrate", "{tmp}/none"], ["report", "curve", "{tmp}/none"],
                                  ["policies", "tune", "nonexistent"]], ids=" ".join)
def test_a_command_refusing_its_input_loads_no_statistics(args, tmp_path):
    """A report of a folder that holds no run and `policies tune` of an unknown policy stop before any
    statistic: they imported statsmodels with the report modules (about 2 CPU s instead of 1)."""
    modules = set(_imported_by([a.format(tmp=tmp_path) for a in args]))
    assert "hadara_sim.report.inference" in modules, sorted(modules)
    assert STATISTICS & (modules | {m.split(".")[0] for m in modules}) == set()


def test_the_modules_that_compute_statistics_load_them_when_they_compute():
    """Importing the reports, the expert's training and the value fit imports neither statsmodels nor
    scipy.stats: the functions that compute with them do (the training scripts' --help paid 1.6 s)."""
    import subprocess

    modules = ["hadara_sim.report.summary", "hadara_sim.report.curve", "hadara_sim.report.surface",
               "hadara_sim.report.ratings", "hadara_sim.report.worth", "hadara_sim.learn", "hadara_sim.value_fit"]
    code = (f"import importlib, sys\nfor name in {modules!r}:\n    importlib.import_module(name)\n"
            f"print(sorted(m for m in sys.modules if m in {sorted(STATISTICS)!r} or m.split('.')[0] == 'statsmodels'))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parent.parent)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr


def test_a_command_imports_only_its_own_group():
    """`simulate --help` loads the simulate command alone: no other command's module, no numerical
    library, no report beyond the table type (the command line builds each command when it runs)."""
    modules = _imported_by(["simulate", "--help"])
    assert "hadara_sim.cli.simulate" in modules, modules
    ours = {m for m in modules if m.startswith("hadara_sim.")}
    assert ours <= {"hadara_sim.cli", "hadara_sim.cli.simulate", "hadara_sim.cli.common", "hadara_sim.cli.limits",
                    "hadara_sim.invocation",
                    "hadara_sim.process", "hadara_sim.report", "hadara_sim.report.table",
                    "hadara_sim.signals", "hadara_sim.constants", "hadara_sim.problems"}, ours
    # signals: the Ctrl-C the command line remembers (stdlib only); constants: MAX_GAMES (no imports);
    # problems: the one rule of a whole number in text (stdlib only), COLUMNS read by it
    heavy = {"numpy", "numba", "polars", "pyarrow", "statsmodels", "scipy", "matplotlib", "pandas", "joblib"}
    assert heavy & {m.split(".")[0] for m in modules} == set()


def test_a_mistyped_group_gets_a_did_you_mean():
    import polars as pl

    from hadara_sim.report.dataset import ReportError, resolve_by

    df = pl.DataFrame({"policy_label": ["a"], "players": [2], "seat": [0]})
    with pytest.raises(ReportError, match=r"cannot group by 'playrs' \(did you mean players\?\)"):
        resolve_by(df, ["playrs"])


def test_the_resume_hint_names_the_program_as_it_was_started(tmp_path, monkeypatch):
    """After `make demo` nothing is on PATH: the command printed to resume is `.venv/bin/hadara-sim ...`,
    which works as printed; on PATH it is plain `hadara-sim`."""
    from hadara_sim.invocation import program, resume_command

    script = tmp_path / ".venv" / "bin" / "hadara-sim"
    script.parent.mkdir(parents=True)
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", [str(script), "simulate", "my scenario.toml"])
    monkeypatch.setenv("PATH", "/usr/bin")
    assert program() == ".venv/bin/hadara-sim"
    assert resume_command() == ".venv/bin/hadara-sim simulate 'my scenario.toml'"
    monkeypatch.setenv("PATH", str(script.parent))
    assert program() == "hadara-sim"


def test_python_m_hadara_sim_runs_the_command_and_names_itself_so(tmp_path):
    """`python -m hadara_sim` said "No module named hadara_sim.__main__"; its usage now names the Python that ran
    it and `-m hadara_sim`, which runs as printed."""
    import os
    import subprocess

    env = {**os.environ, "COLUMNS": "200"}
    done = subprocess.run([sys.executable, "-m", "hadara_sim", "--help"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert re.search(r"Usage: \S*python\S* -m hadara_sim \[OPTIONS\] COMMAND", done.stdout), done.stdout
    wrong = subprocess.run([sys.executable, "-m", "hadara_sim", "play", "-p", "9"], cwd=tmp_path, env=env,
                           capture_output=True, text=True, timeout=120)
    assert wrong.returncode == 2 and re.search(r"Try '\S*python\S* -m hadara_sim play -h'", wrong.stderr), wrong.stderr


def test_every_command_a_message_names_is_the_program_as_started(tmp_path, monkeypatch, capsys):
    """After `make demo` nothing is on PATH. The command line's own hints named `.venv/bin/hadara-sim`, but
    the library's messages below it (a report's rerun hint, a grant sweep without a control, an unknown
    card of restricted play, a policy with nothing to tune, a folder without results, the human seat, a
    fit's command) and click's "Try 'hadara-sim verify -h'" still told plain `hadara-sim`."""
    import polars as pl

    from hadara_sim.balance_fit import command_line
    from hadara_sim.balance_fit.plan import FitPlan
    from hadara_sim.cli import main
    from hadara_sim.component_files import load_components
    from hadara_sim.kernels.restrict import restriction_mask
    from hadara_sim.registry import PolicyNotFound, resolve_policy
    from hadara_sim.report.dataset import ReportError, check_columns
    from hadara_sim.report.grants import grant_control
    from hadara_sim.results import ResultsError, read_metadata
    from hadara_sim.tune import tune

    script = tmp_path / ".venv" / "bin" / "hadara-sim"
    script.parent.mkdir(parents=True)
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", [str(script), "report", "winrate", "r"])
    monkeypatch.setenv("PATH", "/usr/bin")
    named = "`.venv/bin/hadara-sim "
    told = []
    for call, error in ((lambda: check_columns(pl.DataFrame({"game": [0]}), "winrate"), ReportError),
                        (lambda: check_columns(pl.DataFrame({"game": [], "players": [], "win_share": []}), "winrate"),
                         ReportError),
                        (lambda: grant_control(pl.DataFrame({"sweep_grants": ["x"], "granted": ["x"]}), "sweep_grants"),
                         ReportError),
                        (lambda: restriction_mask({"avoid": ["no-such-card"]}, load_components(None), "p"), ValueError),
                        (lambda: tune(load_components(None), "random", ["start"], [2], 1, 2, 2), ValueError),
                        (lambda: read_metadata(tmp_path), ResultsError),
                        (lambda: resolve_policy("human"), PolicyNotFound)):
        with pytest.raises(error) as caught:
            call()
        told.append(str(caught.value))
    assert all(named in message and "`hadara-sim " not in message for message in told), told
    assert command_line(FitPlan(players=[2])).startswith(".venv/bin/hadara-sim balance fit -p 2 ")
    monkeypatch.setattr(sys, "argv", [str(script), "verify", "--no-such-option"])
    with pytest.raises(SystemExit) as ended:
        main()
    assert ended.value.code == 2 and "Try '.venv/bin/hadara-sim verify -h' for help" in capsys.readouterr().err


def test_the_resume_hint_resumes_a_run_started_with_overwrite(monkeypatch):
    """An interrupted `simulate --overwrite` printed itself with --overwrite, which cleared the chunks
    it had completed and played them all again: the printed command resumes instead."""
    from hadara_sim.invocation import resume_command

    monkeypatch.setattr(sys, "argv", ["hadara-sim", "simulate", "default", "--overwrite", "--out", "r"])
    assert resume_command() == "hadara-sim simulate default --out r"


def test_commands_told_under_python_m_run_as_printed(tmp_path, monkeypatch):
    """Run as `python -m hadara_sim`, the closing table's report, the resume hint and the next report
    quoted the program whole ('.../python -m hadara_sim' report ...), which names no file; a results
    folder with a brace in its name stopped the next-report hint with a KeyError."""
    import shlex
    import types

    import polars as pl

    from hadara_sim.cli.simulate import next_report, win_table
    from hadara_sim.invocation import resume_command
    from hadara_sim.scenario.read import parse_scenario

    main = types.ModuleType("__main__")
    main.__spec__ = types.SimpleNamespace(name="hadara_sim.__main__")
    monkeypatch.setitem(sys.modules, "__main__", main)
    monkeypatch.setattr(sys, "argv", ["x", "simulate", "my scenario.toml"])
    assert shlex.split(resume_command())[1:] == ["-m", "hadara_sim", "simulate", "my scenario.toml"]
    df = pl.DataFrame({"sweep": ["{}", "{}"], "policy_label": ["greedy", "greedy"], "game": [0, 0], "seat": [0, 1],
                       "granted": [None, None], "seek": [None, None], "avoid": [None, None],
                       "players": [2, 2], "win_share": [1.0, 0.0], "total": [50, 40]},
                      schema_overrides={"granted": pl.String, "seek": pl.String, "avoid": pl.String})
    told = win_table(df, "t", tmp_path / "r{1}").caption.split("`")[1]
    assert shlex.split(told)[1:] == ["-m", "hadara_sim", "report", "winrate", str(tmp_path / "r{1}"), "--by", "seat"]
    hint = next_report(parse_scenario('players = 2\npolicies = ["greedy"]\n'), tmp_path / "r{1}")
    assert shlex.split(hint.split(" (")[0])[1:] == ["-m", "hadara_sim", "report", "seats", str(tmp_path / "r{1}")]


def _make_dry_run(target: str, path: str | None = None) -> list[str]:
    """The commands `make TARGET` would run (the environment taken as installed), as printed."""
    import os
    import subprocess

    # Under `make test` (CI) the parent make's MAKELEVEL/MAKEFLAGS would make this one print "Entering
    # directory" lines around the commands: a make of its own, as a user types it.
    env = {key: value for key, value in os.environ.items() if key not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS")}
    env.update({"PATH": path} if path else {})
    done = subprocess.run(["make", "-n", "-o", ".venv/.installed", "-o", ".venv/.notebook", target], env=env,
                          capture_output=True, text=True, cwd=Path(__file__).resolve().parent.parent)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()


@pytest.mark.parametrize("uid, allowed", [("0", True), ("1000", False)])
def test_make_notebook_lets_jupyter_run_as_root_and_only_then(tmp_path, uid, allowed):
    """Jupyter refuses root ("Running as root is not recommended") unless given --allow-root: `make
    notebook` gives it as root (a container's usual user), and not otherwise."""
    import os

    fake = tmp_path / "id"
    fake.write_text(f"#!/bin/sh\necho {uid}\n")
    fake.chmod(0o755)
    lines = _make_dry_run("notebook", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    assert lines[-1].startswith(".venv/bin/jupyter lab") and ("--allow-root" in lines[-1]) == allowed


def test_make_demo_compiles_what_its_scenario_plays_and_the_bytecode_before_it_plays():
    lines = _make_dry_run("demo")
    warm = next(i for i, line in enumerate(lines) if "-m hadara_sim.warm" in line)
    assert "--for scenarios/default.toml" in lines[warm] and "--bytecode hadara_sim.cli" in lines[warm]
    assert warm < next(i for i, line in enumerate(lines) if "hadara-sim simulate scenarios/default.toml" in line)


def test_make_demo_ends_with_how_to_run_the_tool_from_the_shell():
    """`make demo` puts nothing on PATH: its last words name .venv/bin/hadara-sim and the activate script."""
    last = " ".join(_make_dry_run("demo")[-2:])
    assert ".venv/bin/hadara-sim --help" in last and "source .venv/bin/activate" in last


def test_numba_starts_without_scipy_linalg_and_still_reaches_blas():
    """A chunk's module loads numba's implementations without numba's BLAS probe (which imports
    scipy.linalg: a third of a second); afterwards scipy.linalg imports as usual, and numba's own
    check before compiling a matrix product (`ensure_blas`) finds BLAS."""
    import subprocess

    code = ("import sys\nimport hadara_sim.chunks\n"
            "print('numba.np.arraymath' in sys.modules, 'scipy.linalg' in sys.modules)\n"
            "from numba.np.linalg import ensure_blas\nensure_blas()\nimport scipy.linalg\n"
            "print(scipy.linalg.det([[2.0, 0.0], [0.0, 3.0]]) == 6.0)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parent.parent)
    assert done.stdout.split() == ["True", "False", "True"], done.stderr


def test_a_mistyped_report_or_command_gets_a_did_you_mean():
    report = runner.invoke(app, ["report", "winrat", "results/x"], env={"COLUMNS": "200"})
    assert report.exit_code == 2 and "No such command 'winrat'. Did you mean 'winrate'?" in report.output
    command = runner.invoke(app, ["simulat", "scenarios/default.toml"], env={"COLUMNS": "200"})
    assert command.exit_code == 2 and "Did you mean 'simulate'?" in command.output


@pytest.mark.parametrize("scenario, why", [("setup-cards", "setup sides set by the run (setup.sides = 'grid')"),
                                           ("balance-fix", "setup sides set by the run (setup.sides = 'random')"),
                                           ("card-grants", "granted cards")])
def test_traces_of_a_run_the_reference_cannot_replay_are_refused_before_it_plays(tmp_path, scenario, why):
    """--trace-games on the setup grid played all 40 chunks and then failed, naming 'fixed setup sides'
    also for balance-fix's random ones; show-game gives the same reason."""
    out = tmp_path / "r"
    traced = runner.invoke(app, ["simulate", f"scenarios/{scenario}.toml", "--games", "4", "--jobs", "1",
                                 "--trace-games", "2", "--out", str(out)], env={"COLUMNS": "300"})
    text = " ".join(traced.output.split())
    assert traced.exit_code == 2 and f"plays with {why}, which the reference engine cannot replay" in text, text
    assert not out.exists()
    assert runner.invoke(app, ["simulate", f"scenarios/{scenario}.toml", "--games", "4", "--jobs", "1", "--set",
                               "chunk=4", "--out", str(out), "-q"]).exit_code == 0
    combo = 1 if scenario == "card-grants" else 0  # card-grants' combination 0 is its control, no grant
    shown = runner.invoke(app, ["show-game", str(out), "--game", "1", "--combo", str(combo)], env={"COLUMNS": "300"})
    assert shown.exit_code == 2 and why in " ".join(shown.output.split())


def test_a_shipped_scenario_plays_by_name_from_any_folder(tmp_path, monkeypatch):
    """README's `simulate scenarios/default.toml` and the hints' `scenarios/seats.toml` work from a
    notebook's folder or a results folder too (the shipped scenario, said so), or as a bare name; a
    file of that name here is the user's and wins; a name that is neither gets the shipped names."""
    from hadara_sim.scenario.checks import ScenarioError
    from hadara_sim.scenario.read import load_scenario, shipped_scenarios

    root = Path(__file__).resolve().parent.parent
    assert shipped_scenarios() == {p.stem: p for p in sorted((root / "scenarios").glob("*.toml"))}
    listed = (root / "docs" / "scenarios.md").read_text()
    assert [name for name in shipped_scenarios() if f"`{name}.toml`" not in listed] == []
    monkeypatch.chdir(tmp_path)
    for typed in ("scenarios/seats.toml", "seats", "seats.toml"):
        result = runner.invoke(app, ["simulate", typed, "--games", "4", "--jobs", "1", "--out", "run", "--overwrite"])
        assert result.exit_code == 0, result.output
        assert f"note: no file {typed} here: the shipped scenario {root / 'scenarios' / 'seats.toml'}" in result.output
        assert load_scenario(typed) == load_scenario(root / "scenarios" / "seats.toml")
    (tmp_path / "scenarios").mkdir()
    (tmp_path / "scenarios" / "seats.toml").write_text('name = "mine"\nplayers = 2\npolicies = ["greedy"]\n')
    assert load_scenario("scenarios/seats.toml").name == "mine" and load_scenario("seats").name == "seats"
    result = runner.invoke(app, ["simulate", "sets", "--games", "4"])
    assert result.exit_code == 2 and "sets: no such scenario file; did you mean 'seats'?" in result.output
    assert "(the shipped scenarios, by name from any folder: 3b-culture-coins, " in result.output
    with pytest.raises(ScenarioError, match="no such scenario file"):
        load_scenario("elsewhere/seats.toml")  # a path of its own is the user's, never a shipped name

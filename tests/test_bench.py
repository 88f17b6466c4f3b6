"""`hadara-sim bench`: quick by default, greedy and the planner mix, the first call reported apart."""

import json

import pytest
from typer.testing import CliRunner

from hadara_sim.cli import app

runner = CliRunner()


def test_bench_reports_the_first_call_and_both_default_policy_sets():
    result = runner.invoke(app, ["bench", "--batch", "16", "--reference-games", "1", "--players", "2", "-q"])
    assert result.exit_code == 0, result.output
    assert "first call (compile, or load from numba's cache):" in result.output
    rows = [[cell.strip() for cell in line.strip("│ ").split("│")] for line in result.output.splitlines()
            if line.strip("│ ").startswith(("greedy", "planner mix"))]
    assert [row[0] for row in rows] == ["greedy", "planner mix"]
    assert all(row[3] == "16" for row in rows)  # batch column


def test_bench_prints_its_table_in_the_machine_formats():
    """README promised --format on every command that prints a table; bench had none."""
    import json

    result = runner.invoke(app, ["bench", "--batch", "16", "--reference-games", "1", "--players", "2", "-q",
                                 "--policy", "greedy", "--format", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    (row,) = doc["tables"][0]["data"]
    assert row["policies"] == "greedy" and row["batch"] == 16 and row["games_per_second"] > 0
    assert row["ratio"] == pytest.approx(row["games_per_second"] / row["reference_games_per_second"], rel=0.5)
    assert any(note.startswith("first call") for note in doc["notes"])


def test_a_player_count_given_twice_is_benched_once():
    result = runner.invoke(app, ["bench", "--batch", "8", "--reference-games", "1", "-p", "2", "-p", "2", "-q",
                                 "--policy", "greedy", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert len(json.loads(result.output)["tables"][0]["data"]) == 1  # was two rows alike


def test_a_batch_size_or_policy_given_twice_is_benched_once():
    result = runner.invoke(app, ["bench", "-b", "8", "-b", "4", "-b", "8", "--reference-games", "1", "-p", "2", "-q",
                                 "--policy", "greedy", "--policy", "greedy", "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)["tables"][0]["data"]
    assert [(r["policies"], r["batch"]) for r in rows] == [("greedy", 4), ("greedy", 8)]  # was 8, 4, 8 twice over


def test_bench_refuses_a_bad_player_count_as_the_other_commands_do():
    """bench checked --players in its body with its own words; now typer's range, as play and simulate."""
    result = runner.invoke(app, ["bench", "--players", "7", "-q"])
    assert result.exit_code == 2
    assert "Invalid value for '--players' / '-p': 7 is not in the range 2<=x<=5" in result.output


@pytest.mark.parametrize("option", ["--batch", "--reference-games"])
def test_a_batch_too_large_for_memory_names_the_options(option):
    """--batch 10**14 stopped with "unexpected MemoryError ... please report it", exit 1."""
    result = runner.invoke(app, ["bench", "-p", "2", "--batch", "2", "--reference-games", "1", "-q", "--policy", "greedy",
                                 option, str(10**14)])
    assert result.exit_code == 2 and result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "needs more memory than there is at once: give smaller ones" in " ".join(result.output.split())
    assert "unexpected" not in result.output


def test_bench_refuses_bad_options_before_timing_the_start_up(monkeypatch):
    """`--startup 5 -p 6` timed fresh processes for a minute, then said '--players must be 2..5 and
    --batch positive' (which of the two?); now the bad value is named before any timing."""
    import hadara_sim.bench

    monkeypatch.setattr(hadara_sim.bench, "startup_seconds", lambda *a, **k: pytest.fail("timed before checking"))
    result = runner.invoke(app, ["bench", "--startup", "1", "--batch", "0", "-q"])
    assert result.exit_code == 2
    assert "Invalid value for '--batch' / '-b': 0 is not in the range x>=1" in result.output


def test_bench_startup_times_fresh_simulate_processes_to_their_exit():
    result = runner.invoke(app, ["bench", "--startup", "1", "--batch", "16", "--reference-games", "1",
                                 "--players", "2", "--policy", "greedy", "-q"])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if line.startswith("start-up:")]
    assert len(lines) == 2
    assert "a 100-game simulate -q, whole process" in lines[0]
    assert "a 100-game simulate with its closing table, whole process" in lines[1]
    for line in lines:
        assert line.endswith("target 1.0 s") and "(median [min, max] of 1)" in line
        wall, cpu = (float(line.split(word)[1].split()[0]) for word in ("wall ", "CPU "))
        assert wall > 0 and cpu > 0
    floor = [line for line in result.output.splitlines() if line.startswith("start-up floor")]
    assert len(floor) == 1 and "one cached function called" in floor[0] and "(median [min, max] of 1)" in floor[0]


def test_a_timed_process_that_fails_says_why(tmp_path):
    from hadara_sim.bench import simulate_command, timed_process

    command = simulate_command(tmp_path / "run")
    with pytest.raises(RuntimeError, match="missing.toml"):
        timed_process([*command[:command.index("simulate")], "simulate", str(tmp_path / "missing.toml")])


def test_a_floor_run_that_fails_says_why(monkeypatch):
    import hadara_sim.bench

    monkeypatch.setattr(hadara_sim.bench, "startup_seconds", lambda *a, **k: hadara_sim.bench.Startup([1.0], [1.0]))

    def broken(runs, env=None):
        raise RuntimeError("floor.py failed (1): no numba here")

    monkeypatch.setattr(hadara_sim.bench, "floor_seconds", broken)
    result = runner.invoke(app, ["bench", "--startup", "1", "-q"])
    assert result.exit_code == 1 and "no numba here" in result.output and "Traceback" not in result.output

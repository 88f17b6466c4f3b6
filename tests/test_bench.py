"""`hadara-sim bench`: quick by default, greedy and the planner mix, the first call reported apart."""

from typer.testing import CliRunner

from hadara_sim.cli import app

runner = CliRunner()


def test_bench_reports_the_first_call_and_both_default_policy_sets():
    result = runner.invoke(app, ["bench", "--batch", "16", "--reference-games", "1", "--players", "2", "-q"])
    assert result.exit_code == 0, result.output
    assert "first call (compile, or load from numba's cache):" in result.output
    rows = [line.split() for line in result.output.splitlines() if line.strip().startswith(("greedy", "planner mix"))]
    assert [row[0] for row in rows] == ["greedy", "planner"]
    assert all(row[-6] == "16" for row in rows)  # batch column


def test_bench_refuses_a_bad_player_count():
    result = runner.invoke(app, ["bench", "--players", "7", "-q"])
    assert result.exit_code == 2
    assert "--players must be 2..5" in result.output

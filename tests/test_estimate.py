"""Run-time estimates before long work: from measured speeds per policy and player count."""

import os
import threading

import pytest
from typer.testing import CliRunner

from hadara_sim import estimate as E
from hadara_sim.cli import app
from hadara_sim.registry import built_in_policies
from hadara_sim.scenario.read import scenario_from_dict


def scenario(policies, players=2, games=10_000, chunk=1_000):
    return scenario_from_dict({"name": "e", "players": players, "policies": policies, "games": games,
                               "chunk": chunk})


def test_the_shipped_speeds_cover_every_built_in_policy_at_every_player_count():
    measured = E.speeds()
    for name in built_in_policies():
        assert set(measured[name]) == {2, 3, 4, 5} and all(v > 0 for v in measured[name].values())


@pytest.mark.parametrize("text", ["games_per_second = 5", '[games_per_second]\ngreedy = {2 = "fast"}',
                                  "[games_per_second]\ngreedy = {two = 5, 3 = 40.0}", "[games_per_second]\ngreedy = 3"])
def test_a_speeds_file_of_one_s_own_with_entries_that_are_no_speeds_leaves_them_out(tmp_path, monkeypatch, text):
    """HADARA_SIM_SPEEDS (docs/scenarios.md) naming a file whose table or entries are no speeds stopped
    `simulate` with "unexpected AttributeError" or "ValueError", exit 1: such entries are left out, as missing ones."""
    (tmp_path / "speeds.toml").write_text(text + "\n")
    monkeypatch.setenv("HADARA_SIM_SPEEDS", str(tmp_path / "speeds.toml"))
    assert E.speeds() == ({"greedy": {3: 40.0}} if "40.0" in text else {})
    result = CliRunner().invoke(app, ["simulate", "default", "--dry-run", "--out", str(tmp_path / "out")])
    assert result.exit_code == 0 and "no measured speed for" in " ".join(result.output.split()), result.output


def test_a_speeds_file_that_is_a_named_pipe_is_not_waited_on(tmp_path, monkeypatch):
    """HADARA_SIM_SPEEDS naming a named pipe: every simulate, dry or not, waited for ever for a writer."""
    import os
    import subprocess
    import sys

    os.mkfifo(tmp_path / "speeds")
    monkeypatch.setenv("HADARA_SIM_SPEEDS", str(tmp_path / "speeds"))
    done = subprocess.run([sys.executable, "-c", "from hadara_sim.estimate import speeds; print(speeds())"],
                          capture_output=True, text=True, timeout=60)  # in a process of its own: it waited for ever
    assert done.stdout.strip() == "{}", done.stderr


def test_each_seat_costs_its_policy_share_of_a_game():
    measured = {"fast": {2: 100.0}, "slow": {2: 25.0}}
    cost, unknown = E.seconds_per_game(["fast", "slow"], 2, measured)
    assert abs(cost - (1 / 100 + 1 / 25) / 2) < 1e-12 and unknown == []
    cost, unknown = E.seconds_per_game(["fast", "mine.py:Bot"], 2, measured)
    assert abs(cost - 1 / 100 / 2) < 1e-12 and unknown == ["mine.py:Bot"]


def test_an_estimate_grows_with_the_games_and_shrinks_with_the_processes(monkeypatch, tmp_path):
    speeds = tmp_path / "speeds.toml"
    speeds.write_text('[games_per_second]\n"greedy" = { 2 = 1000 }\n"random" = { 2 = 500 }\n')
    monkeypatch.setenv("HADARA_SIM_SPEEDS", str(speeds))
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(os, "getloadavg", lambda: (0.0, 0.0, 0.0))  # a quiet machine
    sc = scenario(["greedy", "random"])
    one = E.estimate_run(sc, jobs=1, cold=False)
    cpu = 10_000 * (1 / 1000 + 1 / 500) / 2 + 10 * E.CHUNK_SECONDS  # the games, and 10 chunks of 1,000
    assert abs(one.seconds - (E.START_SECONDS + cpu)) < 1e-9 and one.workers == 1
    two = E.estimate_run(sc, jobs=2, cold=False)
    assert abs(two.seconds - (E.START_SECONDS + cpu / 2)) < 1e-9 and two.workers == 2
    assert abs(E.estimate_run(sc, jobs=-1, games=20_000, cold=False).seconds - (E.START_SECONDS + cpu)) < 1e-9
    cold = E.estimate_run(sc, jobs=1, cold=True)
    assert abs(cold.seconds - one.seconds - E.compile_seconds(E.PLAYED)) < 1e-9 and "first compile" in cold.text()
    single_chunk = E.estimate_run(scenario(["greedy", "random"], chunk=10_000), jobs=2, cold=False)
    assert single_chunk.workers == 1  # one chunk plays in one process


def test_a_busy_machine_gives_each_process_its_share_of_a_core(monkeypatch, tmp_path):
    """At load 10 on 2 cores, 2 more processes get 2 / 12 of a core each: starting and playing take 6
    times as long as on a quiet machine, and the estimate says why."""
    speeds = tmp_path / "speeds.toml"
    speeds.write_text('[games_per_second]\n"greedy" = { 2 = 1000 }\n')
    monkeypatch.setenv("HADARA_SIM_SPEEDS", str(speeds))
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    sc = scenario(["greedy"])
    monkeypatch.setattr(os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    quiet = E.estimate_run(sc, jobs=2, cold=False)
    assert quiet.share == 1.0 and "busy" not in quiet.text()
    monkeypatch.setattr(os, "getloadavg", lambda: (10.0, 0.0, 0.0))
    busy = E.estimate_run(sc, jobs=2, cold=False)
    assert abs(busy.seconds / quiet.seconds - 6.0) < 1e-9
    assert "the machine is busy: about 17% of a core for each" in busy.text()


def test_a_policy_of_no_measured_speed_makes_the_estimate_a_lower_bound(tmp_path):
    user_policy = tmp_path / "mine.py"
    user_policy.write_text("from hadara_sim.policies.greedy import Greedy\n\n\nclass Bot(Greedy):\n    pass\n")
    sc = scenario([f"{user_policy}:Bot", "greedy"])
    guess = E.estimate_run(sc, jobs=1, cold=False)
    assert guess.unknown == [f"{user_policy}:Bot"] and "at least" in guess.text()


def test_dry_runs_play_and_write_nothing(tmp_path, monkeypatch):
    import hadara_sim.balance

    def no_play(*args, **kwargs):
        raise AssertionError("a dry run played")

    monkeypatch.setattr(hadara_sim.balance, "suggest", no_play)
    monkeypatch.setattr(hadara_sim.balance, "baseline", no_play)
    path = tmp_path / "s.toml"
    path.write_text('name = "dry"\nplayers = 3\npolicies = ["greedy", "random"]\ngames = 5000000\n')
    result = CliRunner().invoke(app, ["simulate", str(path), "--dry-run", "--out", str(tmp_path / "out")],
                                env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    assert "nothing was played or written" in result.output and "for 5,000,000 games" in result.output
    assert not (tmp_path / "out").exists()
    for args in (["balance", "suggest", "--dry-run", "--side", "3B"], ["balance", "check", "--dry-run"]):
        result = CliRunner().invoke(app, args, env={"COLUMNS": "300"})
        assert result.exit_code == 0 and "nothing was played" in result.output, result.output


def test_a_runs_chunks_carry_their_policies_costs_to_the_progress(monkeypatch, tmp_path):
    """A sweep of a fast and a slow field: the progress is told each chunk's expected seconds (its
    games at its combination's cost) and the whole run's, and on resuming the cost already there; a
    field of no measured speed leaves the progress counting games. Each chunk comes with the seconds
    its process took and the process (for the pace, `progress.Pace`)."""
    from contextlib import contextmanager

    from hadara_sim import runner

    speeds = tmp_path / "speeds.toml"
    speeds.write_text('[games_per_second]\n"greedy" = { 2 = 1000 }\n"random" = { 2 = 10 }\n')
    monkeypatch.setenv("HADARA_SIM_SPEEDS", str(speeds))
    told = []

    @contextmanager
    def progress_bar(total, done, quiet, console, name, parallel=1, **costs):
        told.append({"costs": costs, "chunks": []})
        def advance(n, cost=None, seconds=None, worker=None):
            assert seconds > 0 and worker == (os.getpid(), threading.get_ident())  # jobs=1: in this process
            told[-1]["chunks"].append((n, cost))

        yield advance

    monkeypatch.setattr(runner, "progress_bar", progress_bar)
    sweep = scenario_from_dict({"name": "e", "players": 2, "policies": ["greedy"], "games": 20, "chunk": 10,
                                "sweep": {"policies": [["greedy"], ["random"]]}})
    out = tmp_path / "out"
    runner.run(sweep, out, jobs=1, quiet=False)
    fast, slow = E.CHUNK_SECONDS + 10 / 1000, E.CHUNK_SECONDS + 10 / 10
    assert told[0]["costs"] == {"total_cost": pytest.approx(2 * fast + 2 * slow), "done_cost": 0.0}
    assert sorted(told[0]["chunks"]) == [(10, fast)] * 2 + [(10, slow)] * 2
    next(out.glob("part-c0001-k00001*")).unlink()  # a slow chunk lost: the rerun plays it
    runner.run(sweep, out, jobs=1, quiet=False)
    assert told[1]["costs"] == {"total_cost": pytest.approx(2 * fast + 2 * slow),
                                "done_cost": pytest.approx(2 * fast + slow)}
    assert told[1]["chunks"] == [(10, slow)]
    mine = scenario_from_dict({"name": "e", "players": 2, "policies": ["greedy", "balanced"], "games": 10})
    runner.run(mine, None, jobs=1, quiet=False)
    assert told[2]["costs"] == {} and told[2]["chunks"] == [(10, None)]

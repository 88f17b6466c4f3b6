"""Batch runs: determinism across jobs and backends, resume after interruption, refusing to mix
runs, the Python API, and common random numbers across combinations and scenarios."""

import json
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from filelock import FileLock
from typer.testing import CliRunner

import hadara_sim
from hadara_sim.cli import app
from hadara_sim.results import ResultsError, load_results
from hadara_sim.chunks import plan_chunks
from hadara_sim.runner import RunError, run
from hadara_sim.scenario.read import load_scenario, parse_scenario

# 4 players, one greedy and three random seats rotated: quick, and every seat's policy matters.
SMALL = """
name = "small"
players = 4
policies = ["greedy", "random", "random", "random"]
assignment = "rotated"
games = {games}
seed = 5
chunk = {chunk}
"""


def scenario_file(tmp_path, text=SMALL, name="small.toml", **fmt):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text.format(**fmt) if fmt else text).lstrip())
    return path


def cli(*args):
    result = CliRunner().invoke(app, ["simulate", *map(str, args)])
    return result


def same(a: pl.DataFrame, b: pl.DataFrame) -> bool:
    return a.shape == b.shape and a.equals(b)


@pytest.fixture(scope="module")
def small_reference(tmp_path_factory):
    """A clean 6-chunk run (120 games) in one process: the dataset the others must reproduce."""
    tmp = tmp_path_factory.mktemp("ref")
    path = scenario_file(tmp, games=120, chunk=20)
    result = cli(path, "--jobs", "1", "--quiet", "--out", tmp / "out")
    assert result.exit_code == 0, result.output
    return path, load_results(tmp / "out")


def test_dataset_shape_and_files(small_reference, tmp_path):
    path, df = small_reference
    assert df.height == 120 * 4
    assert df["game"].unique().sort().to_list() == list(range(120))
    sums = df.group_by("game").agg(pl.col("win_share").sum())["win_share"]
    assert np.allclose(sums.to_numpy(), 1.0)
    assert (df["total_epoch3"] == df["total"]).all()
    # rotated: every policy plays every seat equally often
    counts = df.group_by(["seat", "policy_index"]).len()["len"]
    assert counts.n_unique() == 1 and len(counts) == 16


def test_jobs_1_and_2_give_identical_datasets(small_reference, tmp_path):
    path, reference = small_reference
    result = cli(path, "--jobs", "2", "--quiet", "--out", tmp_path / "j2")
    assert result.exit_code == 0, result.output
    assert same(load_results(tmp_path / "j2"), reference)


def test_interrupted_run_resumes_to_the_same_dataset(small_reference, tmp_path):
    path, reference = small_reference
    sc = load_scenario(path)
    out = tmp_path / "out"

    def stop(chunk, played):
        if played == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run(sc, out, jobs=1, after_chunk=stop)
    assert len(list(out.glob("part-*.parquet"))) == 2
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["status"] == "interrupted"
    with pytest.warns(UserWarning, match="4 of 6 chunks are missing"):
        partial = load_results(out)
    assert partial.height == 2 * 20 * 4
    (out / ".part-c0000-k00003.parquet.12345.tmp").write_bytes(b"half a file")  # a killed write
    (out / ".my-notes.tmp").write_text("the user's own file")
    summary = run(sc, out, jobs=1)
    assert (summary.already, summary.played) == (2, 4)
    assert [f.name for f in out.glob(".*.tmp")] == [".my-notes.tmp"]  # only what the run wrote is removed
    with FileLock(str(out / ".lock"), timeout=0):  # the lock is free again
        pass
    assert json.loads((out / "metadata.json").read_text())["status"] == "complete"
    assert same(load_results(out), reference)
    assert run(sc, out, jobs=1).played == 0  # nothing left to play


def test_killed_process_resumes_to_the_same_dataset(small_reference, tmp_path):
    path, reference = small_reference
    out = tmp_path / "out"
    command = [sys.executable, "-c", "from hadara_sim.cli import main; main()", "simulate", str(path),
               "--jobs", "1", "--quiet", "--out", str(out)]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 120
        while not list(out.glob("part-*.parquet")) and time.time() < deadline and proc.poll() is None:
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=60)
    done = len(list(out.glob("part-*.parquet")))
    assert 1 <= done < 6, "the kill should land mid-run"
    result = cli(path, "--jobs", "1", "--out", out)
    assert result.exit_code == 0, result.output
    assert f"{done} of 6 chunks were already there" in " ".join(result.output.split())
    assert same(load_results(out), reference)


def test_refuses_another_seed_or_scenario_unless_overwrite(small_reference, tmp_path):
    path, reference = small_reference
    out = tmp_path / "out"
    assert cli(path, "--jobs", "1", "--quiet", "--out", out, "--games", "40").exit_code == 0
    result = cli(path, "--jobs", "1", "--quiet", "--out", out, "--games", "40", "--seed", "6")
    assert result.exit_code == 2
    text = " ".join(result.output.split())
    assert "holds another run" in text and "seed 5 there, 6 here" in text and "--overwrite" in text
    assert "Traceback" not in result.output
    other = scenario_file(tmp_path, SMALL.replace('"greedy", "random"', '"random", "greedy"'), "other.toml",
                          games=40, chunk=20)
    result = cli(other, "--jobs", "1", "--quiet", "--out", out)
    assert result.exit_code == 2 and "a different scenario" in " ".join(result.output.split())
    result = cli(other, "--jobs", "1", "--quiet", "--out", out, "--overwrite")
    assert result.exit_code == 0, result.output
    df = load_results(out)
    assert df.height == 40 * 4 and df.filter(pl.col("seat") == 0)["policy"][0] == "random"
    assert json.loads((out / "metadata.json").read_text())["seed"] == 5


def test_more_games_extend_a_run(small_reference, tmp_path):
    path, reference = small_reference
    out = tmp_path / "out"
    assert cli(path, "--jobs", "1", "--quiet", "--out", out, "--games", "50").exit_code == 0  # 20+20+10
    summary = run(load_scenario(path), out, jobs=1)  # 120 games: chunks 0, 1 stay, chunk 2 grows
    assert (summary.already, summary.played) == (2, 4)
    assert same(load_results(out), reference)
    result = cli(path, "--jobs", "1", "--quiet", "--out", out, "--games", "40")
    assert result.exit_code == 2 and "keep `game < 40` (the deals a run of them plays)" in " ".join(result.output.split())


def test_the_hint_for_fewer_games_says_which_of_them_a_run_of_fewer_would_deal(small_reference, tmp_path):
    """The hint "keep `game < N`" implied the deals of a run of N; a chunk (20 games here) deals its games
    together, so a run of 30 deals games 20..29 otherwise than the first 30 of a run of 120."""
    path, reference = small_reference
    result = cli(path, "--jobs", "1", "--quiet", "--out", tmp_path / "out", "--games", "40")
    result = cli(path, "--jobs", "1", "--quiet", "--out", tmp_path / "out", "--games", "30")
    assert result.exit_code == 2 and ("keep `game < 30` (fair deals, but not those a run of 30 plays after game 19: the "
                                      "games of a chunk, up to 20, are dealt together)") in " ".join(result.output.split())
    assert cli(path, "--jobs", "1", "--quiet", "--out", tmp_path / "thirty", "--games", "30").exit_code == 0
    thirty, first = load_results(tmp_path / "thirty"), reference.filter(pl.col("game") < 30)
    assert same(thirty.filter(pl.col("game") < 20), first.filter(pl.col("game") < 20))
    assert not same(thirty.filter(pl.col("game") >= 20), first.filter(pl.col("game") >= 20))


def test_dask_backend_equals_local(small_reference, tmp_path):
    distributed = pytest.importorskip("distributed")
    path, reference = small_reference
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        summary = run(load_scenario(path), tmp_path / "dask", backend="dask",
                      scheduler=cluster.scheduler_address)
    assert summary.played == 6
    assert same(load_results(tmp_path / "dask"), reference)


def test_dask_missing_says_how_to_install(small_reference, tmp_path, monkeypatch):
    path, _ = small_reference
    monkeypatch.setitem(sys.modules, "distributed", None)  # import fails as if not installed
    result = cli(path, "--quiet", "--out", tmp_path / "x", "--backend", "dask", "--scheduler", "tcp://127.0.0.1:1")
    assert result.exit_code == 2
    # hadara-sim is on no package index: the command installs the extra from this checkout
    top = Path(hadara_sim.__file__).resolve().parents[1]
    assert f"pip install -e '{top}[dask]'" in " ".join(result.output.split())
    assert (top / "pyproject.toml").is_file() and "dask = [" in (top / "pyproject.toml").read_text()


def test_python_api(small_reference, tmp_path):
    path, reference = small_reference
    df = hadara_sim.simulate(path, jobs=1)  # nothing written
    assert same(df, reference)
    df = hadara_sim.simulate(str(path), games=40, seed=5, out=tmp_path / "api", jobs=1)
    assert same(df, reference.filter(pl.col("game") < 40))
    assert same(hadara_sim.load_results(tmp_path / "api"), df)
    lazy = hadara_sim.scan_results(tmp_path / "api").collect().sort(["combo", "game", "seat"])
    assert same(lazy, df)
    text = path.read_text()
    assert same(hadara_sim.simulate(text, games=40, jobs=1), df)  # TOML text works too
    with pytest.raises(ResultsError, match="does not exist"):
        hadara_sim.load_results(tmp_path / "nowhere")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ResultsError, match="no metadata.json"):
        hadara_sim.load_results(tmp_path / "empty")
    meta = json.loads((tmp_path / "api" / "metadata.json").read_text())
    meta["schema_version"] = 99
    (tmp_path / "api" / "metadata.json").write_text(json.dumps(meta))
    with pytest.raises(ResultsError, match="schema version 99"):
        hadara_sim.load_results(tmp_path / "api")
    # newer than this version: the advice for an older run, --overwrite, deleted them
    newer = r"written by a newer hadara-sim .*upgrade hadara-sim.* --overwrite would delete them"
    with pytest.raises(ResultsError, match=newer):
        hadara_sim.load_results(tmp_path / "api")


def test_lock_refuses_a_concurrent_run(small_reference, tmp_path):
    path, _ = small_reference
    out = tmp_path / "out"
    out.mkdir()
    with FileLock(str(out / ".lock")):  # another run holds the directory
        with pytest.raises(RunError, match="another run is writing"):
            run(load_scenario(path), out, jobs=1)
    assert run(load_scenario(path), out, jobs=1).played == 6


def test_an_out_that_cannot_be_written_names_why(small_reference, tmp_path):
    """A symbolic link to nowhere, and a folder where the lock file goes: "File exists" and "Is a
    directory" named neither the link nor the file."""
    path, _ = small_reference
    (tmp_path / "link").symlink_to(tmp_path / "gone")
    with pytest.raises(RunError, match="is a symbolic link to .*gone, which does not exist"):
        run(load_scenario(path), tmp_path / "link", jobs=1)
    (tmp_path / "out" / ".lock").mkdir(parents=True)
    with pytest.raises(RunError, match=r"cannot write to --out .*out \(.*\.lock\): Is a directory"):
        run(load_scenario(path), tmp_path / "out", jobs=1)


GRANTS = """
players = 4
policies = ["greedy", "random"]
assignment = "rotated"
games = 40
chunk = 20
seed = 9
[sweep]
grants = ["none", {card = "set_collector", epoch = 3, seat = 0}, {card = "sell_bonus"}]
"""


def test_grant_sweep_plays_the_same_deals(tmp_path):
    df = hadara_sim.simulate(parse_scenario(GRANTS), jobs=1)
    assert df["sweep_grants"].unique(maintain_order=True).to_list() == [
        "none", '{"card": "set_collector", "epoch": 3, "seat": 0}', '{"card": "sell_bonus"}']
    control = df.filter(pl.col("combo") == 0)
    late = df.filter(pl.col("combo") == 1)
    rotate = df.filter(pl.col("combo") == 2)
    deal = ["game", "seat", "setup_card", "colour_order", "first_player_epoch1", "first_player_epoch2",
            "first_player_epoch3", "policy"]
    for other in (late, rotate):
        assert same(other.select(deal), control.select(deal))
    # Nothing differs before the grant arrives at the start of epoch III...
    before = ["total_epoch1", "total_epoch2"]
    assert same(late.select(before), control.select(before))
    # ... then only the treated seat owns the card, and the game moves on from there.
    assert control["granted"].null_count() == control.height
    assert late.filter(pl.col("seat") == 0)["granted"].to_list() == ["III-P-02"] * 40
    assert late.filter(pl.col("seat") != 0)["granted"].null_count() == 120
    assert (late.filter(pl.col("seat") != 0)["set_collector_points"] == 0).all()
    assert (late.filter(pl.col("seat") != 0)["effect_set_collector"] == 0).all()
    # the control keeps the card in its deck (deals differ by the granted card alone): drafted there
    assert (control["effect_set_collector"] > 0).any()
    assert (late.filter(pl.col("seat") == 0)["total"] != control.filter(pl.col("seat") == 0)["total"]).any()
    # the default seat = "rotate": game g's seat g mod 4 receives it
    owner = rotate.filter(pl.col("granted") == "I-P-01")
    assert owner.height == 40 and (owner["seat"] == owner["game"] % 4).all()
    assert (owner["granted_epoch"] == 1).all()


def test_same_seed_same_deals_across_scenarios_and_player_sweeps(tmp_path):
    swept = hadara_sim.simulate(parse_scenario(
        'policies = ["random"]\ngames = 30\nchunk = 10\nseed = 4\n[sweep]\nplayers = [2, 3]\n'), jobs=1)
    alone = hadara_sim.simulate(parse_scenario(
        'players = 3\npolicies = ["random"]\ngames = 30\nchunk = 10\nseed = 4\n'), jobs=1)
    cols = [c for c in alone.columns if c not in ("combo", "sweep")]
    assert same(swept.filter(pl.col("players") == 3).select(cols), alone.select(cols))
    greedy = hadara_sim.simulate(parse_scenario(
        'players = 3\npolicies = ["greedy"]\ngames = 30\nchunk = 10\nseed = 4\n'), jobs=1)
    deal = ["game", "seat", "setup_card", "colour_order"]
    assert same(greedy.select(deal), alone.select(deal))


def test_setup_grid_and_fixed_board(tmp_path):
    df = hadara_sim.simulate(parse_scenario("""
        players = 3
        game = "advanced"
        policies = ["greedy"]
        games = 10
        chunk = 10
        [setup]
        cards = "grid"
        sides = "grid"
        focus_seat = 1
        [board]
        colour_order = ["green", "blue", "red", "yellow", "purple"]
    """.replace("\n        ", "\n")), jobs=1)
    assert df["combo"].n_unique() == 10
    focus = df.filter(pl.col("seat") == 1)
    assert (focus["setup_card"] == focus["sweep_setup_card"]).all()
    assert (focus["setup_side"] == focus["sweep_setup_side"]).all()
    per_game = df.group_by(["combo", "game"]).agg(pl.col("setup_card").n_unique())
    assert (per_game["setup_card"] == 3).all()  # still three different cards
    assert (df["colour_order"] == "GBRYP").all()


def test_plan_is_chunk_major(tmp_path):
    sc = parse_scenario('policies = ["random"]\ngames = 25\nchunk = 10\n[sweep]\nplayers = [2, 3]\n')
    chunks = plan_chunks(sc)
    assert [(c.index, c.combo, c.first_game, c.games) for c in chunks] == [
        (0, 0, 0, 10), (0, 1, 0, 10), (1, 0, 10, 10), (1, 1, 10, 10), (2, 0, 20, 5), (2, 1, 20, 5)]


def test_fixed_sides_with_minus_one_leave_the_choice_to_the_policy(components):
    """The engine hook the setup grid uses: -1 in `sides` asks that seat's policy."""
    from hadara_sim.deal import make_deals
    from hadara_sim.engine.game import BatchGame
    from hadara_sim.policy import Policy

    class AlwaysB(Policy):
        name = "always_b"

        def side(self, decision):
            return np.ones(len(decision), np.int64)

    deals = make_deals(components, 3, 8, seed=1, advanced=True)
    sides = np.full((8, 3), -1, np.int8)
    sides[:, 1] = 0
    game = BatchGame(deals, components, [AlwaysB()] * 3, sides=sides)
    game.set_up()
    assert (game.s.side == np.array([1, 0, 1])).all()


def test_components_option_replaces_the_scenarios_set(tmp_path):
    """--components plays the scenario on another component set, and a broken one exits 2."""
    import shutil

    from typer.testing import CliRunner

    from hadara_sim.cli import app
    from hadara_sim.component_files import default_components_path

    mine = tmp_path / "mine"
    shutil.copytree(default_components_path(), mine)
    cards = (mine / "cards.csv").read_text().splitlines()
    cards[1] = cards[1].replace(",2,2,1,0,0,0,,", ",2,9,1,0,0,0,,")  # I-Y-01 scores 9 points
    (mine / "cards.csv").write_text("\n".join(cards) + "\n")
    runner = CliRunner()
    args = ["simulate", "scenarios/default.toml", "--games", "20", "--jobs", "1", "-q"]
    result = runner.invoke(app, [*args, "--out", str(tmp_path / "a"), "--components", str(mine)])
    assert result.exit_code == 0, result.output
    meta = (tmp_path / "a" / "metadata.json").read_text()
    assert str(mine.resolve()) in meta
    (mine / "board.toml").write_text("[sell\n")
    result = runner.invoke(app, [*args, "--out", str(tmp_path / "b"), "--components", str(mine)])
    assert result.exit_code == 2 and "board.toml:1" in result.output and "Traceback" not in result.output


def test_changed_policy_defaults_are_not_resumed_into_an_old_run(tmp_path, monkeypatch):
    """A run played with other built-in defaults is refused, not silently extended."""
    from hadara_sim import simulate
    from hadara_sim.runner import RunError
    from hadara_sim.policies.greedy import Greedy

    scenario = {"players": 2, "policies": ["greedy", "random"], "games": 20, "chunk": 10, "seed": 3}
    simulate(scenario, out=tmp_path / "run", jobs=1)
    monkeypatch.setattr(Greedy, "params", {**Greedy.params, "coin": 0.9})
    with pytest.raises(RunError, match="policy_settings"):
        simulate({**scenario, "games": 40}, out=tmp_path / "run", jobs=1)


def test_closing_table_keeps_combinations_and_seats_apart():
    """One policy on every seat of a sweep: one row per combination and seat, never pooled."""
    from rich.console import Console

    from hadara_sim.cli.simulate import win_table

    df = hadara_sim.simulate(parse_scenario(
        'players = 2\npolicies = ["greedy"]\ngames = 30\nchunk = 30\n[sweep]\ngame = ["basic", "advanced"]\n'),
        jobs=1)
    console = Console(width=200, record=True)
    console.print(win_table(df, "t", Path("r")))
    text = console.export_text()
    assert "win rate per seat and combination" in text
    rows = [line for line in text.splitlines() if "['basic'" in line or "['advanced'" in line]
    assert len(rows) == 4  # 2 combinations x 2 seats
    assert "%" in rows[0] and "[" in rows[0]


def test_closing_table_gives_the_numbers_of_report_winrate():
    """Two seats of each policy in every deal (the interval on the clustered effective sample size)
    over a sweep: each row's seats played, win rate, 95% CI and fair share are `win_rates`' (what
    `report winrate` prints), its mean total `mean_ci`'s over deals."""
    from hadara_sim.cli.simulate import combination_words, win_table
    from hadara_sim.report.estimates import mean_ci
    from hadara_sim.report.wins import win_rates

    df = hadara_sim.simulate(parse_scenario(
        'players = 4\npolicies = ["greedy", "random"]\ngames = 40\nchunk = 40\n[sweep]\ngame = ["basic", "advanced"]\n'),
        jobs=1)
    keys = ["sweep", "policy_label"]
    totals = mean_ci(df, "total", keys).select(*keys, pl.col("mean").alias("total"))
    expected = win_rates(df, keys).join(totals, on=keys)
    assert (expected["rows"] == 2 * expected["n"]).all()  # two seats a deal: the clustered interval
    cells = {(row[0], row[1]): row[2:] for row in win_table(df, "t", Path("r")).rows}
    assert len(cells) == expected.height == 4
    for row in expected.iter_rows(named=True):
        assert cells[combination_words(row["sweep"]), row["policy_label"]] == [
            f"{row['rows']:,}", f"{100 * row['mean']:.1f}%", f"[{100 * row['ci_low']:.1f}, {100 * row['ci_high']:.1f}]",
            f"{100 * row['fair']:.1f}%", f"{row['total']:.1f}"]


def test_the_closing_table_names_the_report_of_its_own_rows(tmp_path):
    """A table per seat and combination said its numbers were those of `hadara-sim report winrate`, which
    groups by policy and pools a grant sweep's combinations: it names the report, on this run, that gives
    these very rows with their tests, and runs as written."""
    import shlex

    from hadara_sim.cli.simulate import win_table

    scenario = 'players = 2\npolicies = ["greedy"]\ngames = 30\nchunk = 30\n[sweep]\ngame = ["basic", "advanced"]\n'
    out = tmp_path / "run"
    df = hadara_sim.simulate(parse_scenario(scenario), out=out, jobs=1)
    table = win_table(df, "t", out)
    told = table.caption.split("`")[1]
    assert shlex.split(told) == ["hadara-sim", "report", "winrate", str(out), "--by", "combination", "--by", "seat"]
    assert "no test, so no correction" in table.caption
    result = CliRunner().invoke(app, [*shlex.split(told)[1:], "--out", str(tmp_path / "report"), "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["tables"][0]["data"]
    assert sorted(r["mean_pct"] for r in rows) == pytest.approx(sorted(100 * table.data["mean"].to_numpy()))
    several = win_table(hadara_sim.simulate(parse_scenario('players = 2\npolicies = ["greedy", "random"]\ngames = 10\n'),
                                            jobs=1), "t", out)
    assert shlex.split(several.caption.split("`")[1])[2:] == ["winrate", str(out), "--by", "policy"]


def test_progress_reaches_a_log_as_plain_lines(tmp_path, monkeypatch):
    """Output to a file or a pipe: no bar (it would show only its last frame) but a plain line at
    least every PLAIN_EVERY seconds with games done, rate and time left, and one at the end."""
    import hadara_sim.progress as progress

    monkeypatch.setattr(progress, "PLAIN_EVERY", 0.05)
    scenario = tmp_path / "logged.toml"
    scenario.write_text('name = "logged"\nplayers = 4\npolicies = ["balanced"]\ngames = 800\nchunk = 100\n')
    result = CliRunner().invoke(app, ["simulate", str(scenario), "--jobs", "1", "--out", str(tmp_path / "run")],
                                env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if line.startswith("logged: ") and " of 800 games" in line]
    assert len(lines) >= 2 and lines[-1].endswith("done") and "games/s" in lines[-1]
    assert not any("━" in line and "games" in line for line in result.output.splitlines())  # no bar in the log
    quiet = CliRunner().invoke(app, ["simulate", str(scenario), "--jobs", "1", "--out", str(tmp_path / "quiet"),
                                     "--quiet"])
    assert " of 800 games" not in quiet.output


def test_a_cold_cache_is_compiled_once_in_the_parent_and_said(tmp_path, monkeypatch):
    """With numba's cache cold, a parallel run compiles in the parent first (one line saying so)
    instead of every worker compiling in silence, with a line every PLAIN_EVERY seconds into a log
    meanwhile; the dataset is the same."""
    import hadara_sim.runner as runner
    from hadara_sim import jit_cache, warm

    scenario = tmp_path / "cold.toml"
    scenario.write_text('name = "cold"\nplayers = 2\npolicies = ["greedy"]\ngames = 40\nchunk = 20\n')
    monkeypatch.setattr(jit_cache, "is_warm", lambda: False)
    real_play_one = warm.play_one

    def slow_compile(scenario):  # the compile's last game, long enough for the log to hear of it meanwhile
        time.sleep(0.3)
        return real_play_one(scenario)

    monkeypatch.setattr(runner, "PLAIN_EVERY", 0.05)
    monkeypatch.setattr(warm, "play_one", slow_compile)
    cold = CliRunner().invoke(app, ["simulate", str(scenario), "--jobs", "2", "--out", str(tmp_path / "cold")])
    assert cold.exit_code == 0, cold.output
    assert "compiling the engine (first run after an install or update" in cold.output
    assert "s so far" in cold.output and "compiled the engine in" in cold.output
    monkeypatch.setattr(jit_cache, "is_warm", lambda: True)
    warm = CliRunner().invoke(app, ["simulate", str(scenario), "--jobs", "1", "--out", str(tmp_path / "warm")])
    assert warm.exit_code == 0 and "compiling the engine" not in warm.output
    assert load_results(tmp_path / "cold").equals(load_results(tmp_path / "warm"))


def test_a_long_default_folder_name_keeps_a_digest_of_the_whole_so_two_runs_never_meet():
    """The name was cut at 200 characters: two runs whose settings differed past the cut shared a folder."""
    from hadara_sim.cli.simulate import NAME_LIMIT, changed_name

    long = [f"components.cards.I-Y-0{k}.cost=3" for k in range(1, 8)]
    one, other = changed_name("default", [*long, "seed=1"]), changed_name("default", [*long, "seed=2"])
    assert one != other and len(one) == len(other) == NAME_LIMIT and one[:150] == other[:150]
    assert changed_name("default", ["players=3"]) == "default-players=3"


def test_traces_that_no_longer_describe_their_games_go_with_them(tmp_path):
    """A rerun with more games deals the last chunk anew, and --overwrite replaces the run: both kept
    traces/game-...jsonl of the old games, now other deals. Traces of games dealt alike stay."""
    from hadara_sim.results import our_traces, trace_path

    path = scenario_file(tmp_path, games=30, chunk=20)
    out = tmp_path / "out"
    assert cli(path, "--jobs", "1", "--quiet", "--out", out, "--trace-games", "4").exit_code == 0
    before = {f.name for f in our_traces(out)}
    assert trace_path(out, 0, 0).name in before and any("g00000" in n and int(n[-13:-6]) >= 20 for n in before)
    assert cli(path, "--jobs", "1", "--quiet", "--out", out, "--games", "40").exit_code == 0
    kept = {f.name for f in our_traces(out)}
    assert kept == {n for n in before if int(n[-13:-6]) < 20} and kept
    (out / "traces" / "notes.txt").write_text("mine")
    assert cli(path, "--jobs", "1", "--quiet", "--out", out, "--games", "40", "--seed", "9", "--overwrite").exit_code == 0
    assert our_traces(out) == [] and (out / "traces" / "notes.txt").read_text() == "mine"


def test_a_scenario_dict_of_numpy_values_tuples_and_paths_plays_as_its_plain_values(tmp_path):
    plain = {"players": 3, "policies": ["random", "greedy"], "games": 4, "seed": 2, "chunk": 4}
    odd = {"players": np.int64(3), "policies": np.array(["random", "greedy"]), "games": np.int32(4),
           "seed": np.uint64(2), "chunk": 4, "components": Path(hadara_sim.load_components().path)}
    assert same(hadara_sim.simulate(odd, jobs=1), hadara_sim.simulate(plain, jobs=1))
    assert not hadara_sim.simulate({**plain, "sweep": {"players": (2, 3)}}, jobs=1).is_empty()
    with pytest.raises(hadara_sim.ScenarioError, match="games: expected a whole number"):
        hadara_sim.simulate({**plain, "games": {1, 2}})


def test_jobs_takes_a_numpy_whole_number_as_games_and_seed_do():
    """jobs=np.int64(2) was 'jobs must be a number of processes ..., not np.int64(2)'."""
    plain = {"players": 2, "policies": ["random"], "games": 4, "chunk": 2}
    assert same(hadara_sim.simulate(plain, jobs=np.int64(1)), hadara_sim.simulate(plain, jobs=1))
    for wrong in (1.0, True, "2", 0):
        with pytest.raises(RunError, match="jobs must be a number of processes"):
            hadara_sim.simulate(plain, jobs=wrong)


def test_overwrite_or_quiet_that_is_not_a_bool_is_refused_and_the_run_in_out_stays(tmp_path):
    """overwrite="no" is truthy: it replaced the run in `out` by another seed's."""
    plain = {"players": 2, "policies": ["random"], "games": 4, "chunk": 2}
    kept = hadara_sim.simulate(plain, out=tmp_path / "run", jobs=1)
    for flags in ({"overwrite": "no"}, {"overwrite": 0}, {"quiet": "yes"}):
        with pytest.raises(TypeError, match=f"{next(iter(flags))} is True or False, not"):
            hadara_sim.simulate({**plain, "seed": 9}, out=tmp_path / "run", jobs=1, **flags)
    assert same(load_results(tmp_path / "run"), kept)


def test_simulate_from_python_changes_a_scenario_as_set_does():
    """`simulate --set` / `--players` changed a scenario's values from the command line; a notebook had no
    counterpart but to copy the file: `settings` does it for a file, a shipped name, text or a dict."""
    shipped = hadara_sim.simulate("seats", games=4, chunk=4, jobs=1,
                                  settings=["sweep.players=[3]", 'policies=["greedy"]', "game=basic"])
    assert shipped["players"].unique().to_list() == [3] and shipped["policy_label"].unique().to_list() == ["greedy"]
    text = 'players = 2\npolicies = ["greedy"]\ngames = 4\nchunk = 4\n'
    assert hadara_sim.simulate(text, jobs=1, settings="players=4")["players"].unique().to_list() == [4]
    as_dict = {"players": 2, "policies": ["greedy"], "games": 4, "chunk": 4}
    assert hadara_sim.simulate(as_dict, jobs=1, settings=["players=3"])["players"].unique().to_list() == [3]
    assert as_dict["players"] == 2  # the caller's dict is left as it was
    with pytest.raises(TypeError, match="load_scenario"):
        hadara_sim.simulate(parse_scenario(text), settings=["players=3"])


def test_the_closing_table_of_a_setup_grid_shows_the_focus_seat(tmp_path):
    """A setup grid's first look gave every seat of every cell, each near 1/P (the focus seat rotates,
    the others play as dealt): 3B's +19 pp at 4 players read as 25%. It gives the focus seat's win rate
    per cell, the numbers of `report setup-cards`, which its caption names."""
    import shlex

    from hadara_sim.cli.simulate import win_table
    from hadara_sim.report.setup import setup_card_balance
    from hadara_sim.results import scan_results

    out = tmp_path / "grid"
    hadara_sim.simulate({"players": 2, "game": "advanced", "policies": ["greedy"], "games": 20, "chunk": 20,
                         "setup": {"cards": "grid", "sides": "grid"}}, out=out, jobs=1)
    table = win_table(scan_results(out, sweep_columns=False), "t", out)
    assert "the focus seat's win rate per combination" in table.title and len(table.rows) == 10
    assert shlex.split(table.caption.split("`")[1])[1:] == ["report", "setup-cards", str(out)]
    cells = setup_card_balance(load_results(out))
    assert sorted(table.data["mean"].to_list()) == pytest.approx(sorted(cells["win"].to_list()))
    assert sorted(table.data["n"].to_list()) == sorted(cells["n"].to_list())


def test_the_closing_table_of_a_grant_or_restricted_sweep_shows_the_treated_seat(tmp_path):
    """A grant sweep's first look gave every seat of every combination, each near 1/P (the granted seat
    rotates): sell_bonus's +38 pp at 3 players read as 33%. It gives the granted (or restricted) seat's
    win rate, and in the control the same seats of the same deals, as `report purple` pairs them."""
    import shlex

    from hadara_sim.cli.simulate import win_table
    from hadara_sim.report.grants import grant_effects
    from hadara_sim.results import scan_results

    out = tmp_path / "grants"
    hadara_sim.simulate({"players": 3, "policies": ["greedy"], "games": 30, "chunk": 30,
                         "sweep": {"grants": ["none", "sell_bonus"]}}, out=out, jobs=1)
    table = win_table(scan_results(out, sweep_columns=False), "t", out)
    assert "the granted seat's win rate per combination" in table.title and len(table.rows) == 2
    assert shlex.split(table.caption.split("`")[1])[1:] == ["report", "purple", str(out)]
    effect = grant_effects(load_results(out)).row(0, named=True)
    assert table.data["mean"].to_list() == pytest.approx([effect["win_b"], effect["win_a"]])
    out = tmp_path / "restricted"
    hadara_sim.simulate({"players": 2, "policies": ["greedy"], "games": 20, "chunk": 20,
                         "sweep": {"restrict": ["none", {"seek": ["II-B-02"]}]}}, out=out, jobs=1)
    table = win_table(scan_results(out, sweep_columns=False), "t", out)
    assert "the restricted seat's win rate" in table.title and table.data["n"].to_list() == [20, 20]


def test_the_closing_table_of_one_combination_with_a_grant_keys_its_rows_on_the_seat():
    """One combination granting a card to the rotating seat, one policy: the treated seat's rows had no
    key left to group and join on, and the closing table stopped inside polars after the games were played."""
    from hadara_sim.cli.simulate import win_table

    df = hadara_sim.simulate({"players": 3, "policies": ["greedy"], "games": 12, "chunk": 12,
                              "grants": ["sell_bonus"]}, jobs=1)
    table = win_table(df, "t", Path("r"))
    assert "the granted seat's win rate per seat" in table.title and [r[0] for r in table.rows] == ["0", "1", "2"]

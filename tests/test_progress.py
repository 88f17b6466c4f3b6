"""Progress of a run as a person reads it: counts with thousands separators in the bar and in the
plain lines of a pipe, no rate before there is one, and once the rate is measured past the
processes' start, the run's time at that rate whenever it passes half a minute."""

import io
import time

from rich.console import Console

from hadara_sim import progress


def played(terminal: bool, total: int, steps, monkeypatch) -> str:
    """What progress_bar prints for `steps` (games per chunk, 10 ms apart) on a terminal or a pipe."""
    monkeypatch.setattr(progress, "PLAIN_EVERY", 0.02)
    out = io.StringIO()
    console = Console(file=out, force_terminal=terminal, width=120, force_jupyter=False)
    with progress.progress_bar(total, 0, False, console, "demo") as advance:
        time.sleep(0.05)  # starting: the timer speaks before any game is in
        for n in steps:
            time.sleep(0.01)
            advance(n)
    return out.getvalue()


def test_the_piped_bar_has_separators_and_says_starting_before_a_rate(monkeypatch):
    text = played(False, 20_000, [5_000, 5_000, 10_000], monkeypatch)
    lines = text.splitlines()
    assert "demo: 0 of 20,000 games, starting, 0 s so far" in lines
    assert lines[-1].startswith("demo: 20,000 of 20,000 games, ") and lines[-1].endswith("done")
    assert not any("- games/s" in line for line in lines)


def test_the_terminal_bar_has_separators(monkeypatch):
    text = played(True, 20_000, [5_000, 15_000], monkeypatch)
    assert "20,000 of 20,000 games" in text and "20000/20000" not in text


def test_the_time_measured_past_the_start_is_said_once_when_it_passes_half_a_minute(monkeypatch):
    """A million games at a few hundred games a second: measured from the second chunk on, the pace
    says minutes, once; a run measured to end within half a minute says nothing more."""
    long = played(False, 1_000_000, [10, 10, 10], monkeypatch)
    said = [line for line in long.splitlines() if line.startswith("expected at ")]
    assert len(said) == 1 and "measured on 10 games past the processes' start" in said[0]
    assert " min " in said[0] and "in all" in said[0]
    short = played(False, 30, [10, 10, 10], monkeypatch)
    assert "expected" not in short


def arrivals(pace: progress.Pace, start: float, play: float, games: int, workers: int, chunks: int,
             cost=None) -> list:
    """Plant a run's timings: each of `workers` processes starts in `start` seconds, then plays chunks
    of `games` in `play` seconds each, the processes 0.5 s apart; `pace` told of each arrival in
    turn (a process's first chunk took its start too). Returns (time, whether the pace was
    measured, the expected end then) at each arrival."""
    chunks_in = sorted((start + w * 0.5 + play * (k + 1), w, k) for w in range(workers) for k in range(chunks // workers))
    seen = []
    for t, w, k in chunks_in:
        pace.arrived(games, t, cost, play + (start + w * 0.5 if k == 0 else 0.0), worker=w)
        seen.append((t, pace.measured, pace.expected() if pace.measured else None))
    return seen


def test_the_pace_leaves_out_the_processes_start():
    """100,000 games in chunks of 10,000 on two processes that take 18 s to start (a busy machine) and
    10 s a chunk: ends at 68.5 s. The first chunk's rate (start included) said 140 s; measured on
    the chunks after each process's first: right, from the first of them on."""
    pace = progress.Pace(100_000, 0, 2, start=0.0)
    seen = arrivals(pace, start=18.0, play=10.0, games=10_000, workers=2, chunks=10)
    end = seen[-1][0]
    assert end == 68.5
    assert [measured for _, measured, _ in seen] == [False, False] + [True] * 8  # the first wave carries the start
    first_estimate = seen[2][2]
    assert abs(first_estimate - end) / end < 0.05, first_estimate
    first_chunk_rate = 10_000 / 28.0  # the old correction: the first chunk's games over the time to it
    assert 28.0 + (100_000 - 2 * 10_000) / (2 * first_chunk_rate) > 2 * end  # what it said: twice as long
    assert pace.rate(end) == 2_000  # two processes, 1,000 games a second each


def test_one_process_is_measured_from_its_second_chunk():
    pace = progress.Pace(50_000, 0, 1, start=0.0)
    seen = arrivals(pace, start=6.0, play=4.0, games=10_000, workers=1, chunks=5)  # ends at 26 s
    assert [measured for _, measured, _ in seen] == [False, True, True, True, True]
    assert seen[1][2] == 26.0  # 14 s, then 30,000 games at 2,500 a second
    assert pace.rate(seen[1][0]) == 2_500


def test_a_resumed_run_counts_what_was_there_and_measures_what_it_plays():
    pace = progress.Pace(100_000, 60_000, 2, start=0.0)
    seen = arrivals(pace, start=18.0, play=10.0, games=10_000, workers=2, chunks=4)  # ends at 38.5 s
    assert seen[2][1] and abs(seen[2][2] - 38.5) < 3.0


def test_a_cluster_of_unknown_size_is_counted_by_the_workers_seen():
    """Four workers that start at once and play 10 s chunks, 120 chunks: ends at 301.5 s; told none
    of it, the pace finds four at a time once each has delivered a chunk."""
    pace = progress.Pace(120_000, 0, None, start=0.0)
    seen = arrivals(pace, start=0.0, play=10.0, games=1_000, workers=4, chunks=120)
    assert seen[-1][0] == 301.5
    assert all(abs(end - 301.5) < 5 for _, measured, end in seen[4:] if measured)


def test_the_expected_line_follows_the_measured_time_not_the_first_estimate(monkeypatch):
    """Planted clock: 40,000 games on two processes with a 20 s start and 10 s chunks of 5,000 ends
    after 60.5 s: the line says about a minute (passes 30 s); the same run with chunks of 500 games
    ends within 30 s and says nothing."""

    def run(games: int) -> str:
        clock = {"now": 0.0}
        monkeypatch.setattr(progress.time, "perf_counter", lambda: clock["now"])
        out = io.StringIO()
        console = Console(file=out, force_terminal=False, width=160, force_jupyter=False)
        play = 10.0 * games / 5_000
        with progress.progress_bar(8 * games, 0, False, console, "demo", parallel=2) as advance:
            for t, w, k in sorted((20.0 + w * 0.5 + play * (k + 1), w, k) for w in range(2) for k in range(4)):
                clock["now"] = t
                advance(games, None, play + (20.0 + w * 0.5 if k == 0 else 0.0), w)
        return out.getvalue()

    said = [line for line in run(5_000).splitlines() if line.startswith("expected")]
    assert said == ["expected at 1,000 games/s (measured on 5,000 games past the processes' start): about 1 min 2 s "
                    "in all, 22 s left"]
    assert "expected" not in run(500)


def test_a_grid_whose_last_rung_is_slow_is_timed_by_the_chunks_left_not_the_games():
    """A grid played chunk-major on two processes: per wave, 4 chunks of a fast policy (1 s each) and
    1 of a policy a hundred times slower (100 s); this machine plays at half the speeds file's pace.
    Measured after the fast chunks of the first wave came in (the slow one still being played), the
    time in games says the run ends within a minute and a half; weighed by the chunks' expected
    costs, it is right within a slow chunk, and so at every arrival after."""
    costs = ([0.5] * 4 + [50.0]) * 6            # expected seconds, at the file's pace
    free, end = [0.0, 0.0], 0.0                 # when each process is free; the run's end
    chunks_in = []
    for cost in costs:                          # each chunk to the process free first
        w = free.index(min(free))
        free[w] += 2 * cost
        chunks_in.append((free[w], w, cost))
    end = max(free)
    by_games = progress.Pace(len(costs) * 1_000, 0, 2, start=0.0)
    weighed = progress.Pace(len(costs) * 1_000, 0, 2, start=0.0, total_cost=sum(costs), done_cost=0.0)
    for k, (t, w, cost) in enumerate(sorted(chunks_in)):
        by_games.arrived(1_000, t, None, 2 * cost, w)
        weighed.arrived(1_000, t, cost, 2 * cost, w)
        if k == 3:
            assert by_games.expected() < 90 < end - 100
        if weighed.measured:
            assert abs(weighed.expected() - end) <= 100.0, (k, weighed.expected(), end)
    assert weighed.left(end) == 0.0


def test_a_resumed_run_weighs_the_chunks_that_were_there():
    """Half of the chunks' cost already in: the pace of the chunks played now times the other half."""
    pace = progress.Pace(10_000, 5_000, 1, start=0.0, total_cost=100.0, done_cost=50.0)
    pace.arrived(1_000, 10.0, 10.0, 10.0, "a")
    pace.arrived(1_000, 20.0, 10.0, 10.0, "a")  # 1 expected second per second
    assert pace.expected() == 50.0 and pace.left(20.0) == 30.0


def test_the_expected_line_of_a_weighed_run_says_its_pace_is_this_machines(monkeypatch):
    clock = {"now": 0.0}
    monkeypatch.setattr(progress.time, "perf_counter", lambda: clock["now"])
    out = io.StringIO()
    console = Console(file=out, force_terminal=False, width=200, force_jupyter=False)
    with progress.progress_bar(5_000, 0, False, console, "grid", total_cost=200.0, done_cost=0.0) as advance:
        for t, cost in ((1.0, 1.0), (2.0, 1.0), (102.0, 100.0), (103.0, 1.0), (200.0, 97.0)):
            clock["now"] = t
            advance(1_000, cost, t - clock.get("last", 0.0), "one process")
            clock["last"] = t
    said = [line for line in out.getvalue().splitlines() if line.startswith("expected")]
    assert said == ["expected: about 3 min 20 s in all, 3 min 18 s left (this machine's pace measured on 1,000 "
                    "games past the processes' start; the chunks left weighed by their policies' speeds)"]


def test_a_long_duration_is_told_in_hours_and_days():
    """A dry run of 10**12 games said 'about 1010114 min 20 s'."""
    assert [progress.duration(s) for s in (0.2, 59, 130, 3600 * 3 + 1200, 60606860)] == [
        "1 s", "59 s", "2 min 10 s", "3 h 20 min", "701 days 11 h"]

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
    """A million games at a few hundred games a second: measured from the second chunk on, the rate
    says minutes, once; a run measured to end within half a minute says nothing more."""
    long = played(False, 1_000_000, [10, 10, 10], monkeypatch)
    said = [line for line in long.splitlines() if line.startswith("expected at ")]
    assert len(said) == 1 and "measured on the 10 games after the first chunk" in said[0]
    assert " min " in said[0] and "in all" in said[0]
    short = played(False, 30, [10, 10, 10], monkeypatch)
    assert "expected" not in short


def arrivals(pace: progress.Pace, start: float, play: float, games: int, workers: int, chunks: int) -> list:
    """Plant a run's timings: each of `workers` processes starts in `start` seconds, then plays chunks
    of `games` in `play` seconds each, the processes 0.5 s apart; `pace` told of each arrival in
    turn. Returns (time, whether the rate was measured, the expected end then) at each arrival."""
    times = sorted(start + w * 0.5 + play * (k + 1) for w in range(workers) for k in range(chunks // workers))
    seen = []
    for t in times:
        pace.arrived(games, t)
        seen.append((t, pace.measured, pace.expected() if pace.measured else None))
    return seen


def test_the_rate_leaves_out_the_processes_start():
    """100,000 games in chunks of 10,000 on two processes that take 18 s to start (a busy machine) and
    10 s a chunk: ends at 68.5 s. The first chunk's rate (start included) said 140 s; measured from
    the first chunk's arrival on, once each process delivered a chunk after it: within a few %."""
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


def test_the_expected_line_follows_the_measured_time_not_the_first_estimate(monkeypatch):
    """Planted clock: 40,000 games on two processes with a 20 s start and 10 s chunks of 5,000 ends
    after 60.5 s: the line says about a minute (passes 30 s); the same run with chunks of 500 games
    ends within 30 s and says nothing."""

    def run(games: int) -> str:
        clock = {"now": 0.0}
        monkeypatch.setattr(progress.time, "perf_counter", lambda: clock["now"])
        out = io.StringIO()
        console = Console(file=out, force_terminal=False, width=160, force_jupyter=False)
        with progress.progress_bar(8 * games, 0, False, console, "demo", parallel=2) as advance:
            for t in sorted(20.0 + w * 0.5 + 10.0 * (k + 1) * games / 5_000 for w in range(2) for k in range(4)):
                clock["now"] = t
                advance(games)
        return out.getvalue()

    said = [line for line in run(5_000).splitlines() if line.startswith("expected")]
    assert said == ["expected at 1,000 games/s (measured on the 10,000 games after the first chunk, past the "
                    "processes' start): about 1 min 2 s in all, 22 s left"]
    assert "expected" not in run(500)

"""Progress of a run as a person reads it: counts with thousands separators in the bar and in the
plain lines of a pipe, no rate before there is one, and once the first games are in, the run's time
measured at their rate whenever it passes half a minute."""

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


def test_the_time_measured_on_the_first_games_is_said_once_when_it_passes_half_a_minute(monkeypatch):
    """A million games at a few hundred games a second: the first chunk's rate says minutes, once;
    a run measured to end within half a minute says nothing more."""
    long = played(False, 1_000_000, [10, 10, 10], monkeypatch)
    said = [line for line in long.splitlines() if line.startswith("expected, measured on the first 10 games")]
    assert len(said) == 1 and " min " in said[0] and "in all" in said[0]
    short = played(False, 30, [10, 10, 10], monkeypatch)
    assert "expected" not in short

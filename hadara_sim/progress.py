"""Progress of long work: a bar in a terminal or a notebook, a line every few seconds into a log."""

from __future__ import annotations

import time
from contextlib import contextmanager


@contextmanager
def every(seconds: float, say):
    """Within the block, `say()` every `seconds` from a timer thread (a log or a pipe cannot show a
    bar or a spinner, and a silent minute reads as a hang)."""
    import threading

    stop = threading.Event()

    def tick():
        while not stop.wait(seconds):
            say()

    thread = threading.Thread(target=tick, name="progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


PLAIN_EVERY = 8.0  # seconds between progress lines into a file or a pipe (so a gap never reaches 10 s)
LONG_SECONDS = 30.0  # runs expected to take longer say so: before they start, and again once measured


def _left(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


@contextmanager
def progress_bar(total: int, done: int, quiet: bool, console, name: str, parallel: int = 1):
    """Progress over games with games per second and time left; `advance(n)`. A rich bar in a
    terminal or a notebook; elsewhere (a log, a pipe, CI) a plain line at least every PLAIN_EVERY
    seconds, since a bar that cannot redraw shows only its last frame. `parallel`: chunks played at
    once (the first wave of them ends together)."""
    if quiet:
        yield lambda n: None
        return
    start = time.perf_counter()
    state = {"played": 0, "done": done, "measured": False}

    def rate() -> float:
        elapsed = time.perf_counter() - start
        return state["played"] / elapsed if state["played"] and elapsed > 0 else 0.0

    def left() -> str:
        r = rate()
        if state["done"] >= total:
            return "done"
        return f"{_left((total - state['done']) / r)} left" if r else "-:--:-- left"

    def measured(say):
        """Once, when the first chunks are in: the whole run's time at the rate measured on them
        (the speeds file behind the first estimate knows neither this machine nor its load)."""
        if state["measured"] or not state["played"] or state["done"] >= total:
            return
        state["measured"] = True
        elapsed = time.perf_counter() - start
        # the other chunks of the first wave are about done too: the rest plays `parallel` at a time
        first = state["played"]
        expected = elapsed + max(0, total - state["done"] - (parallel - 1) * first) / (parallel * rate())
        if expected > LONG_SECONDS:
            say(f"expected, measured on the first {state['played']:,} games ({rate():,.0f} games/s): about "
                f"{duration(expected)} in all, {duration(expected - elapsed)} left")

    if not (console.is_terminal or console.is_jupyter):
        yield from _plain_progress(total, state, rate, left, console, name, measured)
        return
    from rich.progress import BarColumn, Progress, ProgressColumn, TextColumn, TimeElapsedColumn
    from rich.text import Text

    class Rate(ProgressColumn):
        def render(self, task):
            r = rate()
            return Text(f"{r:,.0f} games/s" if r else "- games/s", style="progress.data.speed")

    class Left(ProgressColumn):
        def render(self, task):
            return Text(left(), style="progress.remaining")

    columns = [TextColumn("[bold]{task.description}"), BarColumn(),
               TextColumn("{task.completed:,.0f} of {task.total:,.0f} games", style="progress.download"), Rate(),
               TimeElapsedColumn(), Left()]
    with Progress(*columns, console=console, transient=False, refresh_per_second=4) as progress:
        task = progress.add_task(name, total=total, completed=done)

        def advance(n: int):
            state["played"] += n
            state["done"] += n
            progress.advance(task, n)
            measured(lambda text: progress.console.print(text, highlight=False, soft_wrap=True))

        yield advance


def duration(seconds: float) -> str:
    """'2 min 10 s', '12 s'."""
    s = round(seconds)
    return f"{s // 60} min {s % 60} s" if s >= 60 else f"{max(s, 1)} s"


def _plain_progress(total: int, state: dict, rate, left, console, name: str, measured):
    """Plain progress lines: one every PLAIN_EVERY seconds from a timer thread (also while a chunk
    takes long), and one at the end; before the first games are in, how long it has been starting."""
    start = time.perf_counter()

    def line():
        r = rate()
        so_far = (f"{r:,.0f} games/s, {left()}" if r else
                  f"starting, {time.perf_counter() - start:.0f} s so far")
        console.print(f"{name}: {state['done']:,} of {total:,} games, {so_far}", highlight=False, soft_wrap=True)

    def advance(n: int):
        state["played"] += n
        state["done"] += n
        measured(lambda text: console.print(text, highlight=False, soft_wrap=True))

    try:
        with every(PLAIN_EVERY, line):
            yield advance
    finally:
        line()

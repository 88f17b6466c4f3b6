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


def _left(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


@contextmanager
def progress_bar(total: int, done: int, quiet: bool, console, name: str):
    """Progress over games with games per second and time left; `advance(n)`. A rich bar in a
    terminal or a notebook; elsewhere (a log, a pipe, CI) a plain line at least every PLAIN_EVERY
    seconds, since a bar that cannot redraw shows only its last frame."""
    if quiet:
        yield lambda n: None
        return
    start = time.perf_counter()
    state = {"played": 0, "done": done}

    def rate() -> float:
        elapsed = time.perf_counter() - start
        return state["played"] / elapsed if state["played"] and elapsed > 0 else 0.0

    def left() -> str:
        r = rate()
        if state["done"] >= total:
            return "done"
        return f"{_left((total - state['done']) / r)} left" if r else "-:--:-- left"

    if not (console.is_terminal or console.is_jupyter):
        yield from _plain_progress(total, state, rate, left, console, name)
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn, TimeElapsedColumn
    from rich.text import Text

    class Rate(ProgressColumn):
        def render(self, task):
            r = rate()
            return Text(f"{r:,.0f} games/s" if r else "- games/s", style="progress.data.speed")

    class Left(ProgressColumn):
        def render(self, task):
            return Text(left(), style="progress.remaining")

    columns = [TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("games"), Rate(), TimeElapsedColumn(), Left()]
    with Progress(*columns, console=console, transient=False, refresh_per_second=4) as progress:
        task = progress.add_task(name, total=total, completed=done)

        def advance(n: int):
            state["played"] += n
            state["done"] += n
            progress.advance(task, n)

        yield advance


def _plain_progress(total: int, state: dict, rate, left, console, name: str):
    """Plain progress lines: one every PLAIN_EVERY seconds from a timer thread (also while a chunk
    takes long), and one at the end."""
    def line():
        r = rate()
        console.print(f"{name}: {state['done']:,} of {total:,} games, "
                      f"{f'{r:,.0f} games/s' if r else '- games/s'}, {left()}", highlight=False, soft_wrap=True)

    def advance(n: int):
        state["played"] += n
        state["done"] += n

    try:
        with every(PLAIN_EVERY, line):
            yield advance
    finally:
        line()

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


class Pace:
    """How fast a run goes and when it will end, from the times its chunks come in.

    The first chunk of each process also carries that process's start (imports, the compiled code
    loaded: seconds, many on a busy machine), so the rate is measured from the first chunk's arrival
    on, over whole rounds: to the latest arrival a multiple of `parallel` chunks later (the processes
    taking turns, each delivered one chunk of the round, whatever it had played before the round
    began). Until the first round is in, the rate over the run so far."""

    def __init__(self, total: int, done: int, parallel: int, start: float):
        self.total, self.done, self.parallel, self.start = total, done, max(1, parallel), start
        self.played = 0     # games played by this run so far
        self.first = None   # (time, games played) at the first chunk's arrival
        self.round = None   # (time, games played) at the latest arrival whole rounds after the first
        self.last = start   # time of the latest arrival
        self.chunks = 0     # chunks come in so far

    def arrived(self, games: int, now: float) -> None:
        """A chunk of `games` came in at `now`."""
        self.played += games
        self.done += games
        self.last = now
        self.chunks += 1
        if self.first is None:
            self.first = (now, self.played)
        elif (self.chunks - 1) % self.parallel == 0 and now > self.first[0]:
            self.round = (now, self.played)

    @property
    def measured(self) -> bool:
        """Whether the rate is measured past the processes' start (a round is in, see the class)."""
        return self.round is not None

    def rate(self, now: float) -> float:
        """Games per second: over the rounds after the first arrival once measured, else over the run
        so far."""
        if self.round is not None:
            (since, before), (at, played) = self.first, self.round
            return (played - before) / (at - since)
        return self.played / (now - self.start) if self.played and now > self.start else 0.0

    def expected(self) -> float:
        """The whole run's expected seconds at the measured rate (once `measured`), from the latest
        arrival: the process that delivered it starts a chunk, the others are half through theirs on
        average."""
        in_flight = (self.parallel - 1) / 2 * self.played / self.chunks
        return self.last - self.start + max(0.0, self.total - self.done - in_flight) / self.rate(self.last)


@contextmanager
def progress_bar(total: int, done: int, quiet: bool, console, name: str, parallel: int = 1):
    """Progress over games with games per second and time left; `advance(n)`. A rich bar in a
    terminal or a notebook; elsewhere (a log, a pipe, CI) a plain line at least every PLAIN_EVERY
    seconds, since a bar that cannot redraw shows only its last frame. `parallel`: chunks played at
    once. Once the rate is measured past the processes' start (`Pace`), the run's expected time is
    said, when it passes LONG_SECONDS."""
    if quiet:
        yield lambda n: None
        return
    pace = Pace(total, done, parallel, time.perf_counter())
    state = {"said": False}

    def rate() -> float:
        return pace.rate(time.perf_counter())

    def left() -> str:
        r = rate()
        if pace.done >= total:
            return "done"
        return f"{_left((total - pace.done) / r)} left" if r else "-:--:-- left"

    def measured(n: int, say):
        """A chunk came in; the first time the rate is measured, the whole run's time at that rate
        (the speeds file behind the first estimate knows neither this machine nor its load)."""
        now = time.perf_counter()
        pace.arrived(n, now)
        if state["said"] or not pace.measured or pace.done >= total:
            return
        state["said"] = True
        expected = pace.expected()
        if expected > LONG_SECONDS:
            say(f"expected at {pace.rate(now):,.0f} games/s (measured on the {pace.round[1] - pace.first[1]:,} games "
                f"after the first chunk, past the processes' start): about {duration(expected)} in all, "
                f"{duration(expected - (now - pace.start))} left")

    if not (console.is_terminal or console.is_jupyter):
        yield from _plain_progress(total, pace, rate, left, console, name, measured)
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
            progress.advance(task, n)
            measured(n, lambda text: progress.console.print(text, highlight=False, soft_wrap=True))

        yield advance


def duration(seconds: float) -> str:
    """'2 min 10 s', '12 s'."""
    s = round(seconds)
    return f"{s // 60} min {s % 60} s" if s >= 60 else f"{max(s, 1)} s"


def _plain_progress(total: int, pace: Pace, rate, left, console, name: str, measured):
    """Plain progress lines: one every PLAIN_EVERY seconds from a timer thread (also while a chunk
    takes long), and one at the end; before the first games are in, how long it has been starting."""
    start = time.perf_counter()

    def line():
        r = rate()
        so_far = (f"{r:,.0f} games/s, {left()}" if r else
                  f"starting, {time.perf_counter() - start:.0f} s so far")
        console.print(f"{name}: {pace.done:,} of {total:,} games, {so_far}", highlight=False, soft_wrap=True)

    def advance(n: int):
        measured(n, lambda text: console.print(text, highlight=False, soft_wrap=True))

    try:
        with every(PLAIN_EVERY, line):
            yield advance
    finally:
        line()

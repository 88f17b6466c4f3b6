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
    """How fast a run goes and when it will end, from its chunks as they come in.

    Each chunk comes with the seconds its process took to play it (`chunks.timed_chunk`). A process's
    first chunk also carries that process's start (the compiled code loaded: seconds, many on a busy
    machine), so the pace is measured on the chunks after it. Chunks may cost very different times (a
    grid whose last rung is `search`, hundreds of times slower than the other fields): each is weighed
    by its expected cost (`cost`, the speeds file's seconds: `estimate.chunk_costs`; without one, its
    games), and the pace is the measured chunks' seconds per unit of cost. So the fast chunks that come
    in first measure this machine against the file, the slow chunks left are counted as slow, and a
    slow chunk still being played when the fast ones arrive does not make the run look fast. The time
    left is the cost left at that pace, shared by the processes playing at once (`parallel`; None, a
    cluster of unknown size: the workers seen so far)."""

    def __init__(self, total: int, done: int, parallel: int | None, start: float,
                 total_cost: float | None = None, done_cost: float | None = None):
        self.done, self.parallel, self.start = done, parallel, start  # games in; processes at once; start time
        self.weighed = total_cost is not None  # whether chunks carry costs (else a game is the unit)
        self.total_cost = float(total if total_cost is None else total_cost)  # every chunk's expected cost
        self.done_cost = float(done if done_cost is None else done_cost)      # the chunks in, before this run too
        self.played = 0       # games played by this run so far
        self.spent = 0.0      # expected cost of the chunks this run played
        self.latest = 0.0     # expected cost of the latest chunk in
        self.last = start     # time of the latest arrival
        self.workers = set()  # the workers (processes) whose first chunk is in
        self.games = 0        # games of the measured chunks (each past its process's first)
        self.cost = 0.0       # their expected cost
        self.seconds = 0.0    # the seconds they took

    def arrived(self, games: int, now: float, cost: float | None = None, seconds: float | None = None,
                worker=None) -> None:
        """A chunk of `games` (of expected `cost`; None: its games) came in at `now`, played by the
        process `worker` in `seconds` (None: one process, playing since the previous arrival)."""
        cost = float(games if cost is None else cost)
        seconds = now - self.last if seconds is None else seconds
        self.played += games
        self.done += games
        self.spent += cost
        self.done_cost += cost
        self.latest = cost
        self.last = now
        if worker in self.workers:
            self.games += games
            self.cost += cost
            self.seconds += seconds
        self.workers.add(worker)

    @property
    def measured(self) -> bool:
        """Whether the pace is measured past the processes' start (a chunk after a process's first)."""
        return self.seconds > 0

    def _processes(self) -> int:
        """The processes playing at once: `parallel`, or for a cluster of unknown size the workers seen."""
        return max(1, self.parallel if self.parallel is not None else len(self.workers))

    def rate(self, now: float) -> float:
        """Games per second: the measured chunks' on every process at once, else the run's so far."""
        if self.measured:
            return self.games / self.seconds * self._processes()
        return self.played / (now - self.start) if self.played and now > self.start else 0.0

    def expected(self) -> float:
        """The whole run's expected seconds at the measured pace (once `measured`), from the latest
        arrival: the process that delivered it starts a chunk, the others are half through theirs on
        average (chunks like the latest)."""
        processes = self._processes()
        in_flight = (processes - 1) / 2 * self.latest
        left = max(0.0, self.total_cost - self.done_cost - in_flight)
        return self.last - self.start + left * self.seconds / self.cost / processes

    def left(self, now: float) -> float | None:
        """Seconds left from `now`: at the measured pace, else at the run's pace so far (None before
        any chunk is in)."""
        if self.measured:
            return max(0.0, self.start + self.expected() - now)
        pace = self.spent / (now - self.start) if self.spent and now > self.start else 0.0
        return max(0.0, self.total_cost - self.done_cost) / pace if pace else None


@contextmanager
def progress_bar(total: int, done: int, quiet: bool, console, name: str, parallel: int | None = 1,
                 total_cost: float | None = None, done_cost: float | None = None):
    """Progress over games with games per second and time left; `advance(n, cost, seconds, worker)`
    as each chunk of `n` games comes in (all but `n` optional). A rich bar in a terminal or a
    notebook; elsewhere (a log, a pipe, CI) a plain line at least every PLAIN_EVERY seconds, since a
    bar that cannot redraw shows only its last frame. `parallel`: chunks played at once (None:
    unknown); `total_cost`, `done_cost` and each chunk's `cost`: expected costs that weigh the time
    left; a chunk's `seconds` and `worker`: how long its process took (`Pace`). Once the pace is
    measured past the processes' start, the run's expected time is said, when it passes LONG_SECONDS."""
    if quiet:
        yield lambda n, cost=None, seconds=None, worker=None: None
        return
    pace = Pace(total, done, parallel, time.perf_counter(), total_cost, done_cost)
    state = {"said": False}

    def rate() -> float:
        return pace.rate(time.perf_counter())

    def left() -> str:
        if pace.done >= total:
            return "done"
        seconds = pace.left(time.perf_counter())
        return "-:--:-- left" if seconds is None else f"{_left(seconds)} left"

    def measured(n: int, cost: float | None, seconds: float | None, worker, say):
        """A chunk came in; the first time the pace is measured, the whole run's time at that pace
        (the speeds file behind the first estimate knows neither this machine nor its load)."""
        now = time.perf_counter()
        pace.arrived(n, now, cost, seconds, worker)
        if state["said"] or not pace.measured or pace.done >= total:
            return
        state["said"] = True
        expected = pace.expected()
        if expected <= LONG_SECONDS:
            return
        measured_on = f"measured on {pace.games:,} games past the processes' start"
        in_all = f"about {duration(expected)} in all, {duration(expected - (now - pace.start))} left"
        if pace.weighed:
            say(f"expected: {in_all} (this machine's pace {measured_on}; the chunks left weighed by their "
                f"policies' speeds)")
        else:
            say(f"expected at {pace.rate(now):,.0f} games/s ({measured_on}): {in_all}")

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

    columns = [TextColumn("{task.description}", style="bold", markup=False), BarColumn(),
               TextColumn("{task.completed:,.0f} of {task.total:,.0f} games", style="progress.download"), Rate(),
               TimeElapsedColumn(), Left()]
    with Progress(*columns, console=console, transient=False, refresh_per_second=4) as progress:
        task = progress.add_task(name, total=total, completed=done)

        def advance(n: int, cost: float | None = None, seconds: float | None = None, worker=None):
            progress.advance(task, n)
            measured(n, cost, seconds, worker,
                     lambda text: progress.console.print(text, highlight=False, soft_wrap=True))

        yield advance


def duration(seconds: float) -> str:
    """'12 s', '2 min 10 s', '3 h 20 min', '41 days 6 h' (a dry run of 10**12 games said '1010114 min 20 s')."""
    s = round(seconds)
    if s >= 86400:
        return f"{s // 86400:,} days {s % 86400 // 3600} h"
    if s >= 3600:
        return f"{s // 3600} h {s % 3600 // 60} min"
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

    def advance(n: int, cost: float | None = None, seconds: float | None = None, worker=None):
        measured(n, cost, seconds, worker, lambda text: console.print(text, highlight=False, soft_wrap=True))

    try:
        with every(PLAIN_EVERY, line):
            yield advance
    finally:
        line()

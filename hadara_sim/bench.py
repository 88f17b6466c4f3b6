"""Speed and memory of the batch engine, and its ratio to the reference engine on the same deals."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from dataclasses import dataclass
from pathlib import Path

from .components import ComponentSet
from .deal import make_deals
from .engine.game import BatchGame
from .forward import Forward
from .reference import Game
from .verify import seat_table


ROOT = Path(__file__).resolve().parent.parent
STARTUP_SCENARIO = ROOT / "scenarios" / "default.toml"
STARTUP_GAMES = 100
STARTUP_TARGET_SECONDS = 1.0  # the fixed cost of a small run, whole process (issue 33)


@dataclass
class BenchRow:
    players: int
    advanced: bool
    batch: int
    games_per_second: float
    peak_mib: float           # peak traced allocation while playing one batch
    peak_mib_after_3: float   # the same over three batches in a row (equal: no growth across batches)
    reference_games_per_second: float

    @property
    def ratio(self) -> float:
        return self.games_per_second / self.reference_games_per_second


def play(components: ComponentSet, players: int, advanced: bool, games: int, policies, seed: int):
    """Play `games` deals with the policies' seats rotated from game to game."""
    deals = make_deals(components, players, games, seed=seed, advanced=advanced)
    BatchGame(deals, components, policies, seat_table(games, players, len(policies)), forward=Forward).play()


def first_call_seconds(components: ComponentSet, policies, seed: int = 0) -> float:
    """Seconds of the first batch in this process: compiling the engine and the policies, or loading
    them from numba's cache after the first run of an install."""
    start = time.perf_counter()
    for players, advanced in ((2, False), (4, True)):
        play(components, players, advanced, 4, policies, seed)
    return time.perf_counter() - start


def reference_speed(components: ComponentSet, players: int, advanced: bool, policies, games: int, seed: int) -> float:
    """Games per second of the reference engine on the first `games` deals (seats rotated)."""
    deals = make_deals(components, players, games, seed=seed, advanced=advanced)
    table = seat_table(games, players, len(policies))
    start = time.perf_counter()
    for i in range(games):
        Game(deals[i], components, [policies[k] for k in table[i]], forward=Forward).play()
    return games / (time.perf_counter() - start)


def bench_one(components: ComponentSet, players: int, advanced: bool, batch: int, policies, seed: int,
              reference_gps: float) -> BenchRow:
    """Time one batch, then measure peak traced memory over one and over three batches."""
    start = time.perf_counter()
    play(components, players, advanced, batch, policies, seed)
    gps = batch / (time.perf_counter() - start)
    tracemalloc.start()
    peaks = []
    for k in range(3):
        play(components, players, advanced, batch, policies, seed + k)
        peaks.append(tracemalloc.get_traced_memory()[1] / 2**20)
    tracemalloc.stop()
    return BenchRow(players, advanced, batch, gps, peaks[0], peaks[-1], reference_gps)


@dataclass
class Startup:
    """Wall and CPU seconds (user + system: fairer on a shared machine) of fresh `simulate` processes."""
    wall: list[float]
    cpu: list[float]

    def text(self) -> str:
        def spread(values):
            return f"{statistics.median(values):.2f} s [{min(values):.2f}, {max(values):.2f}]"

        return f"wall {spread(self.wall)}, CPU {spread(self.cpu)} (median [min, max] of {len(self.wall)})"


def timed_process(command: list[str], env: dict | None = None) -> tuple[float, float, str]:
    """(wall, CPU) seconds of `command` run as a child process to its end, exit included, and what it
    printed; a failed run raises RuntimeError with its error output."""
    import resource  # Unix only: imported by the start-up line alone

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}): {done.stderr.strip()}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.stdout


def simulate_command(out: Path, games: int = STARTUP_GAMES, quiet: bool = True) -> list[str]:
    """The command line of a `games`-game run of the default scenario into `out`, as a user types it
    (the `hadara-sim` beside this Python, else the same entry point through `python -c`)."""
    program = Path(sys.executable).parent / "hadara-sim"
    start = [str(program)] if program.exists() else [sys.executable, "-c", "from hadara_sim.cli import main; main()"]
    return [*start, "simulate", str(STARTUP_SCENARIO), "--games", str(games), "--overwrite", "--out", str(out),
            *(["-q"] if quiet else [])]


def startup_seconds(runs: int, games: int = STARTUP_GAMES, env: dict | None = None, quiet: bool = True,
                    warm: bool = True) -> Startup:
    """The fixed cost of a small run: `runs` fresh processes of a `games`-game `simulate -q` (or, not
    `quiet`, as a user types it: with its closing win-rate table), each to its exit, after one not
    counted (it compiles the engine when numba's cache is cold; not `warm`: none, the cache is warm)."""
    with tempfile.TemporaryDirectory() as folder:
        command = simulate_command(Path(folder) / "run", games, quiet)
        if warm:
            timed_process(command, env)
        walls, cpus, _ = zip(*(timed_process(command, env) for _ in range(runs)))
    return Startup(list(walls), list(cpus))


# The least a program on this stack can start in: numpy and numba imported, one function loaded from
# numba's cache and called, the interpreter's exit. The start-up target cannot be met below it.
FLOOR_PROGRAM = """
import numba, numpy
@numba.njit(cache=True)
def total(values):
    s = 0
    for v in values:
        s += v
    return s
total(numpy.arange(10))
"""


def floor_seconds(runs: int, env: dict | None = None) -> Startup:
    """The whole-process time of `runs` fresh runs of FLOOR_PROGRAM (after one uncounted run, which
    compiles its function into a cache of its own)."""
    with tempfile.TemporaryDirectory() as folder:
        program = Path(folder) / "floor.py"
        program.write_text(FLOOR_PROGRAM)
        env = {**(os.environ if env is None else env), "NUMBA_CACHE_DIR": str(Path(folder) / "cache")}
        command = [sys.executable, str(program)]
        timed_process(command, env)
        walls, cpus, _ = zip(*(timed_process(command, env) for _ in range(runs)))
    return Startup(list(walls), list(cpus))


def bytecode_words(env: dict | None = None) -> str:
    """Whether Python writes bytecode caches in `env` (the timings differ when it may not)."""
    off = (os.environ if env is None else env).get("PYTHONDONTWRITEBYTECODE")
    return "PYTHONDONTWRITEBYTECODE=1" if off else "bytecode written"

"""How long a run will take, before it starts: from measured games per second of each built-in policy
at each player count (data/speeds.toml, written by scripts/measure_speeds.py; HADARA_SIM_SPEEDS names
a file of your own machine's), the chunks and the processes, and the first compile of what numba's
cache lacks (hadara_sim/warm.py). A policy of no measured speed (your own) makes the estimate a lower
bound, and says so.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from .chunks import Chunk, plan_chunks
from .problems import not_a_file
from .progress import LONG_SECONDS, duration  # noqa: F401  (LONG_SECONDS: the commands print an estimate above it)
from .results import chunks_per_combination
from .scenario.model import Scenario
from .warm import PLAYED, compile_seconds, missing, parts_for

SPEEDS = Path(__file__).resolve().parent / "data" / "speeds.toml"
START_SECONDS = 1.5      # imports, the compiled code loaded, workers started
CHUNK_SECONDS = 0.015    # CPU of a chunk beside its games: its deals, the batch set up, its Parquet file


@dataclass
class Estimate:
    seconds: float                                # expected wall time
    games: int                                    # games to play
    unknown: list[str] = field(default_factory=list)  # policies of no measured speed (counted as free)
    compile: float = 0.0                          # seconds of it the first compile (0: compiled already)
    workers: int = 1                              # processes playing at once
    share: float = 1.0                            # of a core each process can expect (below 1: a busy machine)

    def text(self) -> str:
        """'about 2 min 10 s for 400,000 games (...)', saying what it includes or leaves out."""
        when = duration(self.seconds)
        notes = []
        if self.share < 1.0:
            notes.append(f"the machine is busy: about {self.share:.0%} of a core for each")
        if self.compile:
            notes.append(f"{self.compile:.0f} s of it the first compile")
        if self.unknown:
            notes.append(f"at least: no measured speed for {', '.join(self.unknown)}")
        on = f"{self.workers} process{'es' * (self.workers > 1)}"
        return f"about {when} for {self.games:,} games on {on}" + (f" ({'; '.join(notes)})" if notes else "")


def speeds(path: str | Path | None = None) -> dict[str, dict[int, float]]:
    """Policy -> player count -> games per second (one process), from the speeds file."""
    path = Path(path or os.environ.get("HADARA_SIM_SPEEDS") or SPEEDS)
    if not_a_file(path):  # a named pipe: reading it waited for a writer, and every simulate with it
        return {}
    try:
        table = tomllib.loads(path.read_text())["games_per_second"]
    except (OSError, ValueError, KeyError, RecursionError):
        return {}
    # A file of one's own (HADARA_SIM_SPEEDS) is read as the shipped one is, an entry that is no speed left
    # out as a missing one is ("no measured speed for ..."): games_per_second = 5, or {2 = "fast"}, stopped
    # simulate with "unexpected AttributeError" or "ValueError", exit 1
    measured = {}
    for name, cells in table.items() if isinstance(table, dict) else ():
        for players, value in cells.items() if isinstance(cells, dict) else ():
            try:
                players, value = int(players), float(value)
            except (TypeError, ValueError, OverflowError):
                continue
            if value > 0:
                measured.setdefault(name, {})[players] = value
    return measured


def seconds_per_game(policies: list[str], players: int, measured: dict) -> tuple[float, list[str]]:
    """One game's CPU seconds with these policies rotating over the seats: each seat costs its
    policy's share of a game it plays on every seat. Returns (seconds, unmeasured policies)."""
    cost, unknown = 0.0, []
    for name in policies:
        speed = measured.get(name, {}).get(players)
        if speed is None:
            unknown.append(name)
        else:
            cost += 1.0 / speed / len(policies)
    return cost, unknown


@dataclass(frozen=True)
class ChunkCosts:
    """Expected CPU seconds of a run's chunks: CHUNK_SECONDS each, plus its games at its combination's
    cost per game (`seconds_per_game`; a policy of no measured speed counted as free)."""

    per_game: dict[int, float]  # combination index -> seconds per game
    games: int                  # games per combination
    chunk: int                  # games per chunk

    def __call__(self, chunk: Chunk) -> float:
        return CHUNK_SECONDS + chunk.games * self.per_game[chunk.combo]

    @property
    def total(self) -> float:
        """Every chunk of the run."""
        chunks = len(self.per_game) * chunks_per_combination(self.games, self.chunk)
        return chunks * CHUNK_SECONDS + self.games * sum(self.per_game.values())


def run_costs(scenario: Scenario, games: int | None = None) -> tuple[ChunkCosts, set[str]]:
    """The costs of `games` of each combination of `scenario` (default: its own), and the policies of
    no measured speed."""
    measured = speeds()
    per_game, unknown = {}, set()
    for combo in scenario.combinations:
        names = [entry.policy for entry in combo.config.policies]
        per_game[combo.index], unmeasured = seconds_per_game(names, combo.players, measured)
        unknown |= set(unmeasured)
    return ChunkCosts(per_game, scenario.games if games is None else games, scenario.chunk), unknown


def chunk_costs(scenario: Scenario) -> ChunkCosts | None:
    """The expected costs that weigh the time left of a run whose combinations differ in speed
    (`progress.Pace`); None when a policy has no measured speed (a game is then the unit)."""
    costs, unknown = run_costs(scenario)
    return None if unknown else costs


def processes(jobs: int) -> int:
    """The processes a local run of --jobs `jobs` plays on (-1 every core, -2 all but one; the run
    itself checks `jobs`)."""
    cores = os.cpu_count() or 1
    return cores if jobs == -1 else max(1, cores + 1 + jobs) if jobs < 0 else jobs


def core_share(workers: int) -> float:
    """Of a core each of `workers` new processes can expect, given what already runs (the load average
    of the last minute): the speeds file was measured with a core to itself, and a machine at load
    10 on 2 cores gives each of 2 more processes a sixth of one. Where the load cannot be read, a
    core each."""
    try:
        load = os.getloadavg()[0]
    except OSError:
        return 1.0
    return min(1.0, (os.cpu_count() or 1) / (load + workers))


def estimate_run(scenario: Scenario, jobs: int, games: int | None = None, cold: bool | None = None) -> Estimate:
    """The wall time of playing `games` of every combination (default: the scenario's) with `jobs`
    processes (-1: every core), each at its share of a core on a busy machine (`core_share`), and
    the first compile of what numba's cache lacks of it (`cold`: True, all of it; False, nothing)."""
    games = scenario.games if games is None else games
    costs, unknown = run_costs(scenario, games)
    workers = max(1, min(processes(jobs), os.cpu_count() or 1, len(plan_chunks(scenario))))
    compiling = compile_seconds(missing(parts_for(scenario)) if cold is None else PLAYED if cold else ())
    share = core_share(workers)
    total = (START_SECONDS + costs.total / workers) / share + compiling  # starting is CPU work too
    return Estimate(total, games * len(scenario.combinations), sorted(unknown), compiling, workers, share)

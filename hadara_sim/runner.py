"""Batch runs: a scenario's games cut into chunks, played in parallel, written as Parquet files.

Common random numbers: chunk k of every combination plays the deals of
`np.random.SeedSequence(seed, spawn_key=(k,))` numbered from `k * chunk`, so combinations of one
run, and scenarios that differ only in policies or grants, play the same deals. Policy seeds come
from the scenario seed and the policy's place in the list, never from the chunk, and the built-in
random policy is keyed by game number, so a dataset does not depend on `jobs`, on the backend or on
the order in which chunks finish.

A run into a directory writes each chunk to a temporary name and renames it into place when
complete: an interrupted run leaves complete chunks and temporary files only, and running it again
plays just the missing chunks (after checking that the directory holds the same run).
"""

from __future__ import annotations

import json
import os
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterator

import numpy as np
import pyarrow as pa

from .components import ComponentSet
from .deal import make_deals
from .engine.game import BatchGame, Grant
from .results import (
    METADATA_FILE, PART_GLOB, SCHEMA_VERSION, build_table, read_metadata, write_metadata, write_table,
)
from .scenario import Combination, Scenario, identity_digest

POLICY_STREAM = 0x706F6C  # spawn-key prefix of the policies' seeds, apart from the chunks' (k,)
SIDE_STREAM = 1           # spawn key (k, 1): random setup sides of chunk k
LOCK_FILE = ".lock"
BACKENDS = ("local", "dask")


class RunError(RuntimeError):
    """A run that cannot start: a directory holding another run, a busy directory, no backend."""


@dataclass(frozen=True)
class Chunk:
    """Deals first_game .. first_game + games - 1 played under one combination."""

    combo: int
    index: int
    first_game: int
    games: int
    players: int
    advanced: bool

    @property
    def file(self) -> str:
        return f"part-c{self.combo:04d}-k{self.index:05d}.parquet"

    def to_dict(self) -> dict:
        return {"file": self.file, "combo": self.combo, "chunk": self.index,
                "first_game": self.first_game, "games": self.games, "players": self.players,
                "game": "advanced" if self.advanced else "basic"}


def plan_chunks(scenario: Scenario) -> list[Chunk]:
    """Every chunk of the run, chunk-major: a partial run covers all combinations evenly."""
    n = -(-scenario.games // scenario.chunk)
    return [Chunk(combo.index, k, k * scenario.chunk, min(scenario.chunk, scenario.games - k * scenario.chunk),
                  combo.players, combo.advanced)
            for k in range(n) for combo in scenario.combinations]


def policy_seed(seed: int, index: int) -> int:
    """The seed of the scenario's policy number `index`: from the scenario seed only."""
    return int(np.random.SeedSequence(seed, spawn_key=(POLICY_STREAM, index)).generate_state(1)[0])


# --- playing one chunk ------------------------------------------------------------------------

def _place_card(initiative: np.ndarray, seat: np.ndarray, card: int):
    """Give each game's `seat` the setup card `card`: swapped with the seat holding it, if any."""
    holder = initiative == card
    rows = np.flatnonzero(holder.any(axis=1))
    other = holder.argmax(axis=1)[rows]
    initiative[rows, other] = initiative[rows, seat[rows]]
    initiative[np.arange(len(initiative)), seat] = card


def focus_seats(setup, game_id: np.ndarray, players: int) -> np.ndarray:
    """(games,) the focus seat of a setup grid: fixed, or game number mod players ("rotate"), so
    that every seat is the focus equally often."""
    if setup.focus_seat == "rotate":
        return (game_id % players).astype(np.int64)
    return np.full(len(game_id), setup.focus_seat, np.int64)


def chunk_setup(combo: Combination, seed: int, chunk: Chunk, deals) -> np.ndarray | None:
    """Apply the combination's setup cards and board to the deals; the (games, P) fixed sides
    (-1 where the policy chooses), or None when every policy chooses."""
    config = combo.config
    setup = config.setup
    n, P = len(deals), config.players
    focus = focus_seats(setup, deals.game_id, P)
    if isinstance(setup.cards, tuple):
        deals.initiative[:] = np.array(setup.cards, np.int8)
    elif combo.setup_card is not None:
        _place_card(deals.initiative, focus, combo.setup_card)
    if config.colour_order is not None:
        deals.colour_order[:] = np.array(config.colour_order, np.int8)
    if not config.advanced:
        return None
    if setup.sides == "policy":
        sides = None
    elif setup.sides in ("random", "grid"):
        if setup.sides == "random":
            rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(chunk.index, SIDE_STREAM)))
            sides = rng.integers(0, 2, (n, P)).astype(np.int8)
        else:
            sides = np.full((n, P), -1, np.int8)
        if combo.setup_side is not None:
            sides[np.arange(n), focus] = combo.setup_side
    else:
        sides = np.broadcast_to(np.array([0 if s == "A" else 1 for s in setup.sides], np.int8), (n, P)).copy()
    return sides


def seat_table(combo: Combination, game_id: np.ndarray) -> np.ndarray:
    """(games, P) index of the policy playing each seat."""
    config = combo.config
    P, k = config.players, len(config.policies)
    seats = np.arange(P)[None, :]
    if combo.arrangement is not None:
        return np.broadcast_to(np.array(combo.arrangement), (len(game_id), P)).copy()
    if config.assignment == "rotated":
        return (seats + game_id[:, None]) % k
    return np.broadcast_to(seats % k, (len(game_id), P)).copy()


def play_chunk(components: ComponentSet, combo: Combination, seed: int, chunk: Chunk) -> tuple[Chunk, pa.Table]:
    """Play one chunk and return its rows (runs in a worker process)."""
    from .registry import make_policy

    config = combo.config
    deals = make_deals(components, config.players, chunk.games,
                       seed=np.random.SeedSequence(seed, spawn_key=(chunk.index,)),
                       advanced=config.advanced, first_game=chunk.first_game, exclude=combo.exclude)
    sides = chunk_setup(combo, seed, chunk, deals)
    table = seat_table(combo, deals.game_id)
    policies = [make_policy(p.policy, seed=policy_seed(seed, i), **p.params)
                for i, p in enumerate(config.policies)]
    grants, grant_rows = [], []
    for g in config.grants:
        if g.seat == "rotate":
            seat = (deals.game_id % config.players).astype(np.int64)
        else:
            seat = np.full(chunk.games, g.seat, np.int64)
        grants.append(Grant(g.epoch, g.card_index, seat))
        grant_rows.append((g.epoch, g.card, seat))
    game = BatchGame(deals, components, policies, table, sides=sides, grants=grants)
    sheet = game.play()
    return chunk, build_table(game, sheet, combo, policies, table, grant_rows)


# --- backends ---------------------------------------------------------------------------------

def _dask_client(scheduler: str | None, jobs: int):
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise RunError("the dask backend needs dask.distributed, which is not installed; install it with "
                       "`pip install 'hadara-sim[dask]'` (on this machine and on every worker)") from None
    if scheduler:
        try:
            return Client(scheduler, timeout="15s", set_as_default=False), None
        except (OSError, TimeoutError, ValueError) as err:
            raise RunError(f"cannot reach the dask scheduler at {scheduler}: {err}") from None
    workers = jobs if jobs and jobs > 0 else (os.cpu_count() or 1)
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, dashboard_address=None)
    return Client(cluster, set_as_default=False), cluster


def _execute(scenario: Scenario, todo: list[Chunk], jobs: int, backend: str,
             scheduler: str | None) -> Iterator[tuple[Chunk, pa.Table]]:
    from joblib import Parallel, delayed, parallel_config

    combos = scenario.combinations
    calls = (delayed(play_chunk)(scenario.components, combos[c.combo], scenario.seed, c) for c in todo)
    if backend == "local":
        if jobs == 1 or len(todo) <= 1:
            for c in todo:  # in-process: no worker start-up, and exceptions keep their traceback
                yield play_chunk(scenario.components, combos[c.combo], scenario.seed, c)
            return
        results = Parallel(n_jobs=jobs, return_as="generator_unordered")(calls)
        try:
            yield from results
        finally:
            results.close()
        return
    client, cluster = _dask_client(scheduler, jobs)
    try:
        with parallel_config(backend="dask", client=client):
            results = Parallel(n_jobs=-1, return_as="generator_unordered")(calls)
            try:
                yield from results
            finally:
                results.close()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


# --- a run ------------------------------------------------------------------------------------

@dataclass
class RunSummary:
    out: Path | None
    chunks: int                 # chunks in the run
    already: int                # chunks found complete in `out` before this call
    played: int = 0             # chunks played by this call
    games_played: int = 0       # games (one per deal and combination) played by this call
    seconds: float = 0.0
    tables: list[pa.Table] = field(default_factory=list, repr=False)  # when out is None

    @property
    def rate(self) -> float:
        return self.games_played / self.seconds if self.seconds else 0.0

    @property
    def complete(self) -> bool:
        return self.already + self.played == self.chunks


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _first_difference(a, b, path: str = "") -> str | None:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in list(a) + [k for k in b if k not in a]:
            if key not in a or key not in b:
                return f"{path}.{key}".lstrip(".")
            found = _first_difference(a[key], b[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path} ({len(a)} vs {len(b)} entries)".lstrip(".")
        for i, (x, y) in enumerate(zip(a, b)):
            found = _first_difference(x, y, f"{path}[{i}]")
            if found:
                return found
        return None
    return None if a == b else f"{path}: {json.dumps(a)} there, {json.dumps(b)} here".lstrip(".")


def describe_mismatch(old: dict, new: dict) -> str:
    """Why a directory's run is not this run, in a sentence."""
    labels = {"seed": "seed", "chunk": "chunk size",
              "components_digest": "component set", "package_version": "hadara-sim version",
              "schema_version": "results schema version"}
    reasons = [f"{text} {json.dumps(old.get(key))} there, {json.dumps(new.get(key))} here"
               for key, text in labels.items() if old.get(key) != new.get(key)]
    if old.get("combinations") != new.get("combinations"):
        where = _first_difference(old.get("combinations"), new.get("combinations"), "combinations")
        reasons.append(f"a different scenario (first difference: {where})")
    if old.get("policy_settings") != new.get("policy_settings"):
        where = _first_difference(old.get("policy_settings"), new.get("policy_settings"), "policy_settings")
        reasons.append(f"policies with other parameters (first difference: {where})")
    return "; ".join(reasons) or "a different run"


@contextmanager
def _lock(out: Path):
    path = out / LOCK_FILE
    for _ in range(2):
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            try:
                pid = int(path.read_text().strip() or 0)
            except (OSError, ValueError):
                pid = 0
            alive = False
            if pid > 0 and pid != os.getpid():
                try:
                    os.kill(pid, 0)
                    alive = True
                except ProcessLookupError:
                    alive = False
                except PermissionError:
                    alive = True
            if alive:
                raise RunError(f"another run (process {pid}) is writing to {out}; wait for it or stop it "
                               f"(if none is, delete {path})") from None
            path.unlink(missing_ok=True)  # left by a run that was killed
            continue
        with os.fdopen(fd, "w") as f:
            f.write(str(os.getpid()))
        break
    try:
        yield
    finally:
        path.unlink(missing_ok=True)


def _clear(out: Path):
    """Remove what a run writes (only that: other files in the directory stay)."""
    for f in out.glob(PART_GLOB):
        f.unlink()
    (out / METADATA_FILE).unlink(missing_ok=True)
    _clean_temp(out)


def _clean_temp(out: Path):
    for f in out.glob(".*.tmp"):
        f.unlink(missing_ok=True)


def _prepare(scenario: Scenario, out: Path, chunks: list[Chunk], overwrite: bool) -> tuple[dict, set[str]]:
    """Check the directory holds this run (or nothing), clean temporary files; the metadata to
    write and the files already complete."""
    from . import __version__

    identity = scenario.identity(__version__, SCHEMA_VERSION)
    digest = identity_digest(identity)
    meta_path = out / METADATA_FILE
    old = None
    if meta_path.exists():
        try:
            old = read_metadata(out)
        except Exception as err:
            if not overwrite:
                raise RunError(f"{out} holds a results directory whose {METADATA_FILE} cannot be read "
                               f"({err}); use --overwrite to replace it, or another --out") from None
    elif any(out.glob(PART_GLOB)) and not overwrite:
        raise RunError(f"{out} holds chunk files but no {METADATA_FILE}: not a run this command can "
                       "resume; use --overwrite to replace them, or another --out")
    if overwrite:
        _clear(out)
        old = None
    extended_from = old.get("extended_from_games") if old else None
    if old is not None:
        if old.get("identity") != digest:
            reason = describe_mismatch(old.get("identity_fields", {}), identity)
            name = old.get("scenario", {}).get("name", "?")
            raise RunError(f"{out} holds another run (scenario '{name}'; {reason}). Use --overwrite to "
                           "replace it, or --out for another directory")
        old_games = old.get("games")
        if old_games != scenario.games:
            if not isinstance(old_games, int) or old_games > scenario.games:
                raise RunError(f"{out} holds a run of {old_games} games per combination; this run asks for "
                               f"{scenario.games}. To use fewer, load the results and keep `game < "
                               f"{scenario.games}`; or use --overwrite to replace them, or another --out")
            # More games extend the run: full chunks stay, a partial last chunk grows (is replayed).
            extended_from = old_games
            planned = {c.file: c.games for c in chunks}
            for entry in old.get("chunks", []):
                if planned.get(entry.get("file")) != entry.get("games"):
                    (out / entry["file"]).unlink(missing_ok=True)
    _clean_temp(out)
    done = {c.file for c in chunks if (out / c.file).is_file()}
    sessions = old.get("sessions", []) if old else []
    meta = {
        "schema_version": SCHEMA_VERSION,
        "package_version": __version__,
        "identity": digest,
        "identity_fields": identity,
        "scenario": {"name": scenario.name, "path": scenario.path, "text": scenario.text,
                     "parsed": scenario.to_dict()},
        "seed": scenario.seed,
        "games": scenario.games,
        "chunk_size": scenario.chunk,
        "components": {"path": scenario.components_path, "digest": scenario.components.digest},
        "started": old.get("started") if old else _now(),
        "extended_from_games": extended_from,
        "finished": None,
        "status": "running",
        "sessions": sessions,
        "combinations": [c.to_dict(scenario.components) for c in scenario.combinations],
        "chunks": [c.to_dict() for c in chunks],
    }
    return meta, done


def run(scenario: Scenario, out: str | Path | None = None, *, jobs: int = -1, backend: str = "local",
        scheduler: str | None = None, overwrite: bool = False, quiet: bool = True, console=None,
        after_chunk: Callable[[Chunk, int], None] | None = None) -> RunSummary:
    """Play every chunk of `scenario` not yet in `out` (all of them, kept in memory, if out is None).

    `after_chunk(chunk, played_so_far)` is called after each chunk is stored (a hook for progress
    reporting and tests). KeyboardInterrupt leaves `out` resumable.
    """
    if backend not in BACKENDS:
        raise RunError(f"unknown backend '{backend}' (choose {' or '.join(BACKENDS)})")
    if scheduler and backend != "dask":
        raise RunError("--scheduler is for --backend dask")
    if jobs == 0:
        raise RunError("jobs must be a number of processes (or -1 for all cores, -2 for all but one), not 0")
    chunks = plan_chunks(scenario)
    if out is None:
        return _run_chunks(scenario, chunks, None, jobs, backend, scheduler, quiet, console, after_chunk, {})
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise RunError(f"--out {out} is a file, not a directory")
    out.mkdir(parents=True, exist_ok=True)
    with _lock(out):
        meta, done = _prepare(scenario, out, chunks, overwrite)
        session = {"started": _now(), "finished": None, "chunks_played": 0, "jobs": jobs, "backend": backend}
        meta["sessions"].append(session)
        write_metadata(out, meta)
        todo = [c for c in chunks if c.file not in done]
        summary = RunSummary(out, len(chunks), len(done))
        try:
            summary = _run_chunks(scenario, todo, out, jobs, backend, scheduler, quiet, console,
                                  after_chunk, {"chunks": len(chunks), "already": len(done)})
            status = "complete" if summary.complete else "incomplete"
        except KeyboardInterrupt:
            status = "interrupted"
            raise
        except BaseException:
            status = "failed"
            raise
        finally:
            present = sum((out / c.file).is_file() for c in chunks)
            session["finished"] = _now()
            session["chunks_played"] = present - len(done)
            if present == len(chunks):
                status = "complete"
            meta["status"] = status
            meta["finished"] = _now() if status == "complete" else None
            _clean_temp(out)
            write_metadata(out, meta)
    return summary


def _run_chunks(scenario, todo, out, jobs, backend, scheduler, quiet, console, after_chunk, counts) -> RunSummary:
    total_chunks = counts.get("chunks", len(todo))
    already = counts.get("already", 0)
    summary = RunSummary(out, total_chunks, already)
    games_total = scenario.total_games
    games_done = games_total - sum(c.games for c in todo)
    start = time.perf_counter()
    with progress_bar(games_total, games_done, quiet or not todo, console, scenario.name) as advance:
        for chunk, table in _execute(scenario, todo, jobs, backend, scheduler):
            if out is None:
                summary.tables.append(table)
            else:
                write_table(table, out / chunk.file)
            summary.played += 1
            summary.games_played += chunk.games
            summary.seconds = time.perf_counter() - start
            advance(chunk.games)
            if after_chunk:
                after_chunk(chunk, summary.played)
    summary.seconds = time.perf_counter() - start
    return summary


# --- progress ---------------------------------------------------------------------------------

@contextmanager
def progress_bar(total: int, done: int, quiet: bool, console, name: str):
    """A rich progress bar over games with games per second and time left; `advance(n)`."""
    if quiet:
        yield lambda n: None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn, TimeElapsedColumn
    from rich.text import Text

    start = time.perf_counter()
    state = {"played": 0}

    def rate() -> float:
        elapsed = time.perf_counter() - start
        return state["played"] / elapsed if state["played"] and elapsed > 0 else 0.0

    class Rate(ProgressColumn):
        def render(self, task):
            r = rate()
            return Text(f"{r:,.0f} games/s" if r else "- games/s", style="progress.data.speed")

    class Left(ProgressColumn):
        def render(self, task):
            r = rate()
            if task.completed >= task.total:
                return Text("done", style="progress.remaining")
            if not r:
                return Text("-:--:-- left", style="progress.remaining")
            seconds = int((task.total - task.completed) / r)
            return Text(f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d} left",
                        style="progress.remaining")

    columns = [TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("games"), Rate(), TimeElapsedColumn(), Left()]
    with Progress(*columns, console=console, transient=False, refresh_per_second=4) as progress:
        task = progress.add_task(name, total=total, completed=done)

        def advance(n: int):
            state["played"] += n
            progress.advance(task, n)

        yield advance


# --- the Python API ---------------------------------------------------------------------------

def as_scenario(scenario) -> Scenario:
    """A Scenario from a Scenario, a path to a TOML file, TOML text or a dict of its values."""
    from .scenario import load_scenario, parse_scenario, scenario_from_dict

    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, dict):
        return scenario_from_dict(scenario, file="<dict>")
    if isinstance(scenario, Path) or (isinstance(scenario, str) and "\n" not in scenario and "=" not in scenario):
        return load_scenario(scenario)
    if isinstance(scenario, str):
        return parse_scenario(scenario, file="<string>")
    raise TypeError(f"expected a Scenario, a path, TOML text or a dict, got {type(scenario).__name__}")


def simulate(scenario, games: int | None = None, seed: int | None = None, out: str | Path | None = None,
             jobs: int = -1, quiet: bool = True, *, backend: str = "local", scheduler: str | None = None,
             overwrite: bool = False, chunk: int | None = None):
    """Play a scenario and return its results as a polars DataFrame (one row per game and seat).

    `scenario`: a path to a scenario file, TOML text, a dict, or a `Scenario`. `games`, `seed` and
    `chunk` override the scenario's. With `out`, the dataset is also written there (and an
    interrupted run into the same directory resumes); without, nothing is written.
    """
    import polars as pl

    from .results import SCHEMA, SORT_KEYS, add_sweep_columns, load_results

    sc = as_scenario(scenario).with_overrides(games=games, seed=seed, chunk=chunk)
    summary = run(sc, out, jobs=jobs, backend=backend, scheduler=scheduler, overwrite=overwrite, quiet=quiet)
    if out is not None:
        return load_results(out)
    table = pa.concat_tables(summary.tables) if summary.tables else SCHEMA.empty_table()
    df = pl.from_arrow(table).sort(SORT_KEYS)
    return add_sweep_columns(df, [c.to_dict(sc.components) for c in sc.combinations])

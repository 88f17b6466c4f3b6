"""Batch runs: a scenario's games cut into chunks (`chunks.py`: the same deals and seeds for any number
of jobs), played in parallel, written as Parquet files.

A run into a directory holds its lock (`process.directory_lock`), writes each chunk to a temporary
name and renames it into place when complete, tagged with the run's identity digest: an
interrupted run leaves complete chunks and temporary files only, and running it again plays just
the missing chunks (after checking that the directory, and every part in it, holds the same run).
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterator

import pyarrow as pa

from .chunks import Chunk, ChunkPlan, plan_chunks, timed_chunk
from .estimate import chunk_costs, processes
from .process import (BACKENDS, ClusterLost, LockBusy, dask_parallel, directory_lock, local_parallel,
                      quiet_dask)
from .problems import is_whole, not_a_file
from .progress import PLAIN_EVERY, duration, every, progress_bar
from .results import (
    METADATA_FILE, SCHEMA_VERSION, TRACE_NAME, ResultsError, check_part, check_part_is_file, check_schema_version,
    chunks_per_combination, is_temp_file, our_parts, our_traces, part_name, read_metadata, results_path, resume_one,
    write_metadata, write_table,
)
from .scenario.identity import identity_digest, run_identity
from .scenario.model import Scenario, given_as_data
from .signals import raise_if_swallowed

LOCK_FILE = ".lock"      # held with filelock while a run writes to the directory


class RunError(RuntimeError):
    """A run that cannot start: a directory holding another run, a busy directory, no backend."""


class RunFailed(RuntimeError):
    """A run that failed while playing: a worker died, the scheduler went away, a disk filled up."""



# --- backends ---------------------------------------------------------------------------------

def _checkout() -> str:
    """The checkout hadara-sim is installed from (it is on no package index), for a pip command; a
    placeholder where this copy is not one (installed from a wheel)."""
    top = Path(__file__).resolve().parents[1]
    return str(top) if (top / "pyproject.toml").is_file() else "/path/to/hadara-sim"


def _dask_client(scheduler: str | None, jobs: int):
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise RunError("the dask backend needs dask.distributed, which is not installed; install it with "
                       f"`pip install -e '{_checkout()}[dask]'` (on this machine and on every worker)") from None
    if scheduler:
        try:
            return Client(scheduler, timeout="15s", set_as_default=False), None
        except Exception as err:  # distributed raises OSError, TimeoutError, ValueError and its own
            raise RunError(f"cannot reach the dask scheduler at {scheduler}: {err}") from None
    workers = jobs if jobs and jobs > 0 else max(1, (os.cpu_count() or 1) + 1 + jobs)
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, dashboard_address=None,
                           silence_logs=logging.CRITICAL)  # the workers' logs too: the run reports failures
    return Client(cluster, set_as_default=False), cluster


def _execute(scenario: Scenario, todo: Iterator[Chunk], count: int, jobs: int, backend: str,
             scheduler: str | None) -> Iterator[tuple[Chunk, pa.Table, float, tuple[int, int]]]:
    """The played chunks of `todo` (`count` of them), in the order they finish, each with the seconds
    it took and the worker that played it (`timed_chunk`)."""
    combos = scenario.combinations
    if backend == "local":
        if jobs == 1 or count <= 1:
            for c in todo:  # in-process: no worker start-up
                yield timed_chunk(combos[c.combo].config.components, combos[c.combo], scenario.seed, c)
            return
        yield from local_parallel(timed_chunk, ((combos[c.combo].config.components, combos[c.combo], scenario.seed,
                                                 c) for c in todo), jobs)
        return
    with quiet_dask():
        client, cluster = _dask_client(scheduler, jobs)
        try:
            yield from dask_parallel(client, timed_chunk, ((combos[c.combo].config.components, combos[c.combo],
                                                            scenario.seed, c) for c in todo), shared=2)
        except ClusterLost as err:
            raise RunFailed(f"{err}; the completed chunks are kept: run the same command again to resume") \
                from None
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
    old_code, new_code = old.get("policy_code", {}), new.get("policy_code", {})
    if old_code != new_code:
        changed = sorted(k for k in {**old_code, **new_code} if old_code.get(k) != new_code.get(k))
        reasons.append(f"the code of policy {', '.join(changed)} changed since that run was played")
    if old.get("policy_settings") != new.get("policy_settings"):
        where = _first_difference(old.get("policy_settings"), new.get("policy_settings"), "policy_settings")
        reasons.append(f"policies with other parameters (first difference: {where})")
    return "; ".join(reasons) or "a different run"


def _clear(out: Path):
    """Remove what a run writes (only that: other files in the directory stay)."""
    for f in [*our_parts(out), *our_traces(out)]:
        f.unlink()
    (out / METADATA_FILE).unlink(missing_ok=True)
    _clean_temp(out)


def _clean_temp(out: Path):
    """Remove the temporary files of runs (named by `results.temp_name`), nothing else."""
    for f in out.glob(".*.tmp"):
        if is_temp_file(f.name):
            f.unlink(missing_ok=True)


def _nothing_played(out: Path) -> bool:
    """Whether `out` holds a run's metadata and nothing else it wrote (its lock, temporary files): no
    chunk, trace or report to lose. After a policy failed at its first chunk, the fixed policy's run
    was refused as "another run" until --overwrite."""
    return all(f.name in (METADATA_FILE, LOCK_FILE) or is_temp_file(f.name) for f in out.iterdir())


def _check_place(out: Path) -> None:
    """RunError unless `out` is a folder a run can write in, or can be made one (a dry run said a run would
    play into a folder under a file, or a read-only one, which the run then refused)."""
    if out.exists() and not out.is_dir():
        raise RunError(f"--out {out} is a file, not a directory")
    if out.is_symlink() and not out.exists():  # mkdir said only "File exists"
        raise RunError(f"--out {out} is a symbolic link to {os.readlink(out)}, which does not exist; make that "
                       "folder, or give another --out")
    if out.is_dir():
        probe = out / f".probe.{os.getpid()}"
    else:
        above = next(folder for folder in out.absolute().parents if folder.exists())  # "/" at last
        if not above.is_dir():
            raise RunError(f"--out {out} is inside {above}, which is a file, not a folder; give another --out")
        probe = above / out.absolute().relative_to(above).parts[0]
    # made and removed as a run makes its folder or a file in it: os.access says yes to root everywhere,
    # also in a read-only or immutable folder, where a dry run said a run would play
    try:
        probe.mkdir()
        probe.rmdir()
    except OSError as err:
        raise RunError(f"cannot write to --out {out}: {err.strerror or err}") from None


def _check_own_files(out: Path, overwrite: bool) -> None:
    """RunError for a file of the run's names that the run would stop at (a dry run said it would play):
    a folder in its place, which --overwrite cannot delete; without it, a part that is no file of its own."""
    if overwrite:
        stuck = next((f for f in [*our_parts(out), *our_traces(out)] if f.is_dir() and not f.is_symlink()), None)
        if stuck is not None:
            raise RunError(f"{stuck} is a folder where the run writes a file, and --overwrite deletes only the "
                           "files a run writes: move it away, then run again")
        return
    for part in our_parts(out):
        try:
            check_part_is_file(part)
        except ResultsError as err:
            raise RunError(f"{err}; {resume_one()}") from None


def check_out(scenario: Scenario, out: str | Path, overwrite: bool = False) -> dict | None:
    """RunError unless `out` can take this run: not a file, a name the system takes, a place a folder can
    be made in, and empty or holding this run (any with `overwrite`, or one of which nothing was played).
    Nothing is left written (a probe folder is made and removed): `simulate --dry-run` checks what a run
    would. Returns the metadata of this run already there (None: nothing, or a run to replace)."""
    from . import __version__

    out = results_path(out, "out (the results directory)", RunError)
    try:
        _check_place(out)
        if out.is_dir():
            _check_own_files(out, overwrite)
        kind = not_a_file(out / METADATA_FILE)
        if kind:  # told "use --overwrite", which then failed writing there ("Is a directory")
            raise RunError(f"{out / METADATA_FILE} is {kind}, where a run writes its metadata: move it away, then "
                           "run again (with --overwrite to replace the rest), or give another --out")
        if overwrite or not out.is_dir():
            return None
        old = None
        if (out / METADATA_FILE).exists():
            try:
                old = read_metadata(out)
            except ResultsError as err:
                raise RunError(f"{out} holds a results directory that cannot be used ({err}); use "
                               "--overwrite to replace it, or another --out") from None
        elif any(our_parts(out)):
            raise RunError(f"{out} holds chunk files but no {METADATA_FILE}: not a run this command can "
                           "resume; use --overwrite to replace them, or another --out")
    except OSError as err:  # a name too long, a folder that cannot be read
        raise RunError(f"cannot write to --out {out}: {err.strerror or err}") from None
    if old is not None:
        identity = run_identity(scenario, __version__, SCHEMA_VERSION)
        if old.get("identity") != identity_digest(identity):
            if _nothing_played(out):  # a run that failed at its first decision: nothing to keep
                return None
            reason = describe_mismatch(old.get("identity_fields", {}), identity)
            name = old.get("scenario", {}).get("name", "?")
            raise RunError(f"{out} holds another run (scenario '{name}'; {reason}). Use --overwrite to "
                           "replace it, or --out for another directory (from Python: overwrite=True, or out=)")
        try:  # its keys (games, ...) are checked only in metadata of this schema: [None] games was a TypeError
            check_schema_version(old, out)
        except ResultsError as err:
            raise RunError(f"{out} holds a results directory that cannot be used ({err}); use --overwrite to "
                           "replace it, or another --out") from None
        if old["games"] > scenario.games:
            # A chunk deals all its games from one stream, so a chunk cut short deals other games: the first
            # N games of a longer run are the deals of a run of N only where N fills whole chunks.
            whole = scenario.games // scenario.chunk * scenario.chunk
            same = ("the deals a run of them plays" if whole == scenario.games else
                    f"fair deals, but not those a run of {scenario.games} plays"
                    + (f" after game {whole - 1}" if whole else "")
                    + f": the games of a chunk, up to {scenario.chunk:,}, are dealt together")
            raise RunError(f"{out} holds a run of {old['games']} games per combination; this run asks for "
                           f"{scenario.games}. To use fewer, load the results and keep `game < "
                           f"{scenario.games}` ({same}); or use --overwrite to replace them, or another --out "
                           "(from Python: overwrite=True, or out=)")
    return old


def _prepare(scenario: Scenario, out: Path, chunks: ChunkPlan, overwrite: bool) -> tuple[dict, set[str]]:
    """Check the directory holds this run (or nothing), clean temporary files; the metadata to
    write and the files already complete."""
    from . import __version__

    identity = run_identity(scenario, __version__, SCHEMA_VERSION)
    digest = identity_digest(identity)
    old = check_out(scenario, out, overwrite)
    if overwrite:
        _clear(out)
    extended_from = old.get("extended_from_games") if old else None
    if old is not None:
        old_games = old["games"]
        if old_games != scenario.games:
            # More games extend the run: full chunks stay, a partial last chunk grows (is replayed).
            extended_from = old_games
            last = chunks_per_combination(old_games, scenario.chunk) - 1
            if old_games % scenario.chunk:
                for combo in range(len(chunks.combos)):
                    old_part = out / part_name(combo, last)
                    if old_part.is_file():
                        _check_part(old_part, digest, combo, last, old_games - last * scenario.chunk)
                        old_part.unlink()
                # that chunk's games are dealt anew (a chunk deals its games together): their traces are stale
                for f in our_traces(out):
                    if int(TRACE_NAME.fullmatch(f.name).group(2)) >= last * scenario.chunk:
                        f.unlink()
    _clean_temp(out)
    done = set()
    for f in our_parts(out):
        chunk = _planned(chunks, f.name)
        if chunk is None:
            raise RunError(f"{f} is not a chunk of this run (no such combination or chunk); move it "
                           "away, or use --overwrite to replace the directory")
        _check_part(f, digest, chunk.combo, chunk.index, chunk.games, scenario.combinations[chunk.combo].players)
        done.add(f.name)
    sessions = old.get("sessions", []) if old else []
    meta = {
        "schema_version": SCHEMA_VERSION,
        "package_version": __version__,
        "identity": digest,
        "identity_fields": identity,
        # Paths as found from anywhere: show-game reads the scenario's text again relative to its folder
        # (a policy file named relative to it), and from another working folder did not find it.
        "scenario": {"name": scenario.name, "path": _absolute(scenario.path), "text": scenario.text,
                     "settings": list(scenario.settings), "parsed": scenario.to_dict(),
                     # a scenario given as data named its files from the working folder, as it is read again
                     **({"folder": str(Path.cwd())} if given_as_data(scenario.path) else {})},
        "seed": scenario.seed,
        "games": scenario.games,
        "chunk_size": scenario.chunk,
        "components": {"path": _absolute(scenario.components_path), "digest": scenario.components.digest},
        "started": old.get("started") if old else _now(),
        "extended_from_games": extended_from,
        "finished": None,
        "status": "running",
        "sessions": sessions,
        "combinations": [c.to_dict(scenario.components) for c in scenario.combinations],
        "chunks_per_combination": chunks.per_combo,
    }
    return meta, done


def _planned(chunks: ChunkPlan, name: str) -> Chunk | None:
    """The chunk of the plan a part file name stands for, or None."""
    from .results import parse_part_name

    found = parse_part_name(name)
    if found is None or found[0] >= len(chunks.combos) or found[1] >= chunks.per_combo:
        return None
    return chunks.chunk(*found)


def _absolute(path: str | None) -> str | None:
    """A file's path from anywhere; None, and a scenario given as data ("<dict>"), as they are."""
    return path if given_as_data(path) else str(Path(path).resolve())


def _check_part(path: Path, digest: str, combo: int, index: int, games: int, players: int | None = None):
    try:
        check_part(path, digest, combo, index, games, players)
    except ResultsError as err:
        raise RunError(f"{err}; {resume_one()}") from None


def _part_info(digest: str, seed: int, chunk: Chunk) -> dict:
    return {"run": digest, "seed": seed, "combo": chunk.combo, "chunk": chunk.index,
            "first_game": chunk.first_game, "games": chunk.games}


def check_scheduler(address: str) -> None:
    """A dask scheduler address must be protocol://host:port with a protocol dask speaks."""
    import re

    if not re.fullmatch(r"(tcp|tls|ws|wss|ucx|inproc)://[^\s/:]+(:\d{1,5})?(/\S*)?", address or ""):
        raise RunError(f"--scheduler '{address}' is not a dask scheduler address; give one like "
                       "tcp://10.0.0.5:8786 (protocol tcp, tls, ws, wss or ucx)")


def run(scenario: Scenario, out: str | Path | None = None, *, jobs: int = -1, backend: str = "local",
        scheduler: str | None = None, overwrite: bool = False, quiet: bool = True, console=None,
        after_chunk: Callable[[Chunk, int], None] | None = None) -> RunSummary:
    """Play every chunk of `scenario` not yet in `out` (all of them, kept in memory, if out is None).

    `after_chunk(chunk, played_so_far)` is called after each chunk is stored (a hook for progress
    reporting and tests). KeyboardInterrupt leaves `out` resumable; a failure while playing is
    RunFailed (or the policy's PolicyError) and leaves it resumable too.
    """
    if backend not in BACKENDS:
        raise RunError(f"unknown backend '{backend}' (choose {' or '.join(BACKENDS)})")
    if scheduler and backend != "dask":
        raise RunError("--scheduler is for --backend dask")
    if scheduler:
        check_scheduler(scheduler)
    for name, flag in (("overwrite", overwrite), ("quiet", quiet)):
        if not isinstance(flag, bool):  # overwrite="no" is truthy: it replaced the run in `out`
            raise TypeError(f"{name} is True or False, not {flag!r:.40}")
    if not is_whole(jobs) or jobs == 0 or jobs < -(os.cpu_count() or 1):  # numpy's too, as games and seed take
        raise RunError(f"jobs must be a number of processes (or -1 for all cores, -2 for all but one), not {jobs!r}")
    jobs = int(jobs)
    chunks = plan_chunks(scenario)
    if out is None:
        return _run_chunks(scenario, iter(chunks), len(chunks), None, None, jobs, backend, scheduler, quiet,
                           console, after_chunk, [])
    out = results_path(out, "out (the results directory)", RunError)
    try:
        _check_place(out)
        out.mkdir(parents=True, exist_ok=True)
        with directory_lock(out / LOCK_FILE):
            return _run_into(scenario, out, chunks, jobs, backend, scheduler, overwrite, quiet, console,
                             after_chunk)
    except LockBusy as err:
        raise RunError(str(err)) from None
    except OSError as err:  # the file at fault too: a folder where the lock file goes said only "Is a directory"
        where = f" ({err.filename})" if err.filename and Path(err.filename) != out else ""
        raise RunError(f"cannot write to --out {out}{where}: {err.strerror or err}") from None


def _run_into(scenario, out, chunks, jobs, backend, scheduler, overwrite, quiet, console, after_chunk):
    meta, done = _prepare(scenario, out, chunks, overwrite)
    session = {"started": _now(), "finished": None, "chunks_played": 0, "jobs": jobs, "backend": backend}
    meta["sessions"].append(session)
    write_metadata(out, meta)
    todo = (c for c in chunks if c.file not in done)
    status = "failed"
    try:
        summary = _run_chunks(scenario, todo, len(chunks) - len(done), out, meta["identity"], jobs, backend,
                              scheduler, quiet, console, after_chunk, [_planned(chunks, name) for name in done])
        status = "complete" if summary.complete else "incomplete"
    except KeyboardInterrupt:
        status = "interrupted"
        raise
    finally:
        present = sum(1 for f in our_parts(out) if _planned(chunks, f.name) is not None)
        session["finished"] = _now()
        session["chunks_played"] = present - len(done)
        if present == len(chunks):
            status = "complete"
        meta["status"] = status
        meta["finished"] = _now() if status == "complete" else None
        _clean_temp(out)
        write_metadata(out, meta)
    return summary


def _run_chunks(scenario, todo, count, out, digest, jobs, backend, scheduler, quiet, console, after_chunk,
                done: list[Chunk]) -> RunSummary:
    """Play the chunks `todo` (`count` of them; `done`: those already in `out`) with a progress bar."""
    if console is None:  # the Python API: rich's own console (a bar in a terminal or a notebook)
        from rich import get_console

        console = get_console()
    summary = RunSummary(out, len(done) + count, len(done))
    if backend == "local" and jobs != 1 and count:  # one chunk too: it compiled in silence under "starting"
        compile_first(scenario, quiet, console)
    raise_if_swallowed()
    start = time.perf_counter()
    parallel = min(count, processes(jobs)) if backend == "local" else None  # a cluster's: measured
    cost = chunk_costs(scenario) if count and not quiet else None
    costs = {} if cost is None else {"total_cost": cost.total, "done_cost": sum(map(cost, done))}
    with progress_bar(scenario.total_games, sum(c.games for c in done), quiet or not count, console, scenario.name,
                      parallel, **costs) as advance:
        try:
            for chunk, table, seconds, worker in _execute(scenario, todo, count, jobs, backend, scheduler):
                if out is None:
                    summary.tables.append(table)
                else:
                    try:
                        write_table(table, out / chunk.file, _part_info(digest, scenario.seed, chunk))
                    except OSError as err:
                        raise RunFailed(f"cannot write {out / chunk.file}: {err.strerror or err} (disk "
                                        "full?); free space and run the same command again") from None
                summary.played += 1
                summary.games_played += chunk.games
                summary.seconds = time.perf_counter() - start
                advance(chunk.games, None if cost is None else cost(chunk), seconds, worker)
                if after_chunk:
                    after_chunk(chunk, summary.played)
                raise_if_swallowed()
        except _worker_died():
            raise RunFailed("a worker process died (killed by a signal, or out of memory?); run the same "
                            "command again to resume, perhaps with fewer --jobs or a smaller chunk") from None
        except MemoryError as err:  # a chunk's arrays are made at once: its size is the scenario's to choose
            raise RunFailed(f"a chunk of {scenario.chunk:,} games does not fit in memory ({err}): give the scenario "
                            "a smaller chunk, e.g. chunk = 10000 (--set chunk=10000), into a new --out or with "
                            "--overwrite, since chunks of another size make another run") from None
    summary.seconds = time.perf_counter() - start
    return summary


def _worker_died():
    """loky's error for a worker process that died, when the run started workers; else () (catches
    nothing): a run played in this process never imports joblib, a quarter of a second of start-up."""
    loky = sys.modules.get("joblib.externals.loky.process_executor")
    return loky.TerminatedWorkerError if loky is not None else ()


def compile_first(scenario: Scenario, quiet: bool, console) -> None:
    """Compile what the scenario's games play (`warm.parts_for`) once, on two cores
    (`warm.compile_engine`), saying so, when numba's cache lacks it: otherwise every worker compiles
    all of it on its own, and a newcomer cannot tell the silence from a hang."""
    from . import warm

    parts = warm.parts_for(scenario)
    todo = warm.missing(parts)
    if not todo:
        return

    def compile_engine():
        warm.compile_engine(lambda: warm.play_one(scenario), parts)

    message = (f"compiling the engine (first run after an install or update, about "
               f"{duration(warm.compile_seconds(todo))} on two cores)")
    if quiet:
        compile_engine()
        return
    start = time.perf_counter()
    if console.is_terminal:
        with console.status(message):
            compile_engine()
    else:
        console.print(message, highlight=False, soft_wrap=True)
        with every(PLAIN_EVERY, lambda: console.print(
                f"compiling the engine: {time.perf_counter() - start:.0f} s so far", highlight=False)):
            compile_engine()
    console.print(f"compiled the engine in {time.perf_counter() - start:.0f} s", highlight=False)

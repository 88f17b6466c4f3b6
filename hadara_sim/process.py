"""Processes of a run: the directory lock, termination signals, and workers that never outlive it.

A results directory is locked with `filelock` (an OS lock, released by the kernel when the holder
dies, so a killed run never leaves a stale lock). SIGTERM is turned into `Terminated`, a
KeyboardInterrupt, so a terminated run cleans up like an interrupted one; while compiled code runs,
both signals are held until it can stop. Local workers start in process groups of their own, so a
Ctrl-C at the terminal reaches only the run, which stops them; they ask the kernel to kill them when
their parent dies (Linux `PR_SET_PDEATHSIG`), so even a SIGKILLed run leaves no worker behind, and an
interrupted run kills its workers before it returns.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

BACKENDS = ("local", "dask")  # where a run's chunks play: local processes (joblib) or a dask cluster

PR_SET_PDEATHSIG = 1


class LockBusy(RuntimeError):
    """Another process holds the directory's lock."""


class Terminated(KeyboardInterrupt):
    """The process received SIGTERM; handled like Ctrl-C (exit code 143 instead of 130)."""


@contextmanager
def directory_lock(path: Path):
    """Hold the lock file `path` (exclusive between processes) or raise LockBusy at once."""
    lock = FileLock(str(path), timeout=0)
    try:
        lock.acquire()
    except Timeout:
        raise LockBusy(f"another run is writing to {path.parent}; wait for it to finish or stop it") from None
    try:
        yield
    finally:
        lock.release()


@contextmanager
def sigterm_as_interrupt():
    """Within the block, SIGTERM raises `Terminated` in the main thread (only there: signal
    handlers can only be set from it)."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _spawn_in_own_group(cmd: list[str], keep_fds, env: dict | None = None) -> int:
    """Start a loky worker as loky's own `fork_exec(cmd, keep_fds, env)` does (the command with
    os.environ and `env`, only `keep_fds` and stdio open, its pid returned), in a process group of its
    own: the terminal sends Ctrl-C to its foreground group, so it reaches the run and not its
    workers, and the run never has to ignore it (an ignored Ctrl-C is lost, not delayed; the workers
    used to inherit an ignored one while this process ignored it during their start)."""
    keep = {0, 1, 2, *map(int, keep_fds)}
    close = [(os.POSIX_SPAWN_CLOSE, fd) for fd in _inheritable_fds() if fd not in keep]
    pid = os.posix_spawn(cmd[0], list(cmd), {**os.environ, **(env or {})}, setpgroup=0, file_actions=close)
    _SPAWNED.add(pid)
    return pid


# Every worker this process started: a Ctrl-C between a worker's start and loky sending it its task left
# one loky did not know, which met the closed pipe when this process exited and printed its traceback
# ("EOFError: Ran out of input") on the terminal.
_SPAWNED: set[int] = set()


def _inheritable_fds() -> list[int]:
    """This process's file descriptors that a started program would inherit."""
    found = []
    for name in os.listdir("/dev/fd"):
        try:
            if os.get_inheritable(int(name)):
                found.append(int(name))
        except OSError:  # the listing's own descriptor, closed by now
            continue
    return found


def workers_in_own_groups() -> None:
    """From now on, loky starts its workers with `_spawn_in_own_group` (it looks its `fork_exec` up
    at every start; POSIX only: Windows has no process groups to mind)."""
    if os.name != "posix":
        return
    from joblib.externals.loky.backend import fork_exec as loky_spawn

    loky_spawn.fork_exec = _spawn_in_own_group


def die_with_parent() -> None:
    """In a worker process: be killed when the parent dies (Linux; elsewhere nothing)."""
    if getattr(die_with_parent, "done", False) or not sys.platform.startswith("linux"):
        return
    die_with_parent.done = True
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() == 1:  # the parent died before the request was made
        os._exit(1)


def _in_worker(function, args):
    die_with_parent()
    return function(*args)


def local_parallel(function, calls, jobs: int, ordered: bool = False):
    """The results of `function(*args)` for each args of `calls` (an iterable, made as it is
    consumed), from joblib's local worker processes, in the order they finish unless `ordered`. The
    workers run out of reach of the terminal's Ctrl-C and die with this process; if the caller stops
    early (an interrupt, a failure), they are killed before this returns."""
    from joblib import Parallel, delayed, effective_n_jobs

    # In this process: no worker to start, nothing to die with. joblib runs the calls here too when `jobs` comes
    # to one process (--jobs -2 on two cores), and this process then asked to be killed with its parent (the
    # shell nohup keeps it from), and exited at once where that parent was gone: no chunk played, no message.
    if effective_n_jobs(jobs) == 1:
        yield from (function(*args) for args in calls)
        return
    workers_in_own_groups()
    results, finished = None, False
    try:  # a Ctrl-C may come while joblib starts the workers and the first tasks
        results = Parallel(n_jobs=jobs, return_as="generator" if ordered else "generator_unordered")(
            delayed(_in_worker)(function, args) for args in calls)
        yield from results
        finished = True
    finally:
        if results is not None:
            results.close()
        if not finished:
            stop_local_workers()


class ClusterLost(RuntimeError):
    """The dask scheduler went away, or no worker was left for WORKERLESS_SECONDS."""


WORKERLESS_SECONDS = 60.0  # a cluster without a worker this long is given up (dask would wait forever)


@contextmanager
def quiet_dask():
    """Within the block, dask and tornado log nothing: they log every lost connection and every
    failed task with its traceback, which the run reports itself, in one line."""
    import logging

    try:
        import distributed  # noqa: F401  (its import configures its loggers: quiet them after it)
    except ImportError:
        pass
    names = ["distributed", "tornado", "bokeh", *(n for n in logging.root.manager.loggerDict
                                                  if n.startswith(("distributed.", "tornado.")))]
    loggers = [logging.getLogger(n) for n in names]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for lg, level in zip(loggers, levels):
            lg.setLevel(level)


RESENDS = 8  # cancelled tasks sent again in a row before the run gives up on the cluster


def dask_parallel(client, function, calls, shared: int = 0):
    """The results of `function(*args)` for each args of `calls`, from the workers of a dask client,
    in the order they finish: a few tasks per worker in flight (so `calls` is made as consumed); the
    first `shared` arguments are large and repeat (a component set), and each distinct one is sent to
    the cluster once. A task's own exception (a policy's) is raised as it is; a lost scheduler or an
    empty cluster is ClusterLost, in one line."""
    from concurrent.futures import CancelledError

    calls = iter(calls)
    sent: dict[int, object] = {}  # id(argument) -> its future on the cluster
    keep: list = []  # the arguments sent, alive so that their ids stay unique
    asked: dict[str, tuple] = {}  # a running task's key -> its arguments (to send it again)

    def send(args):
        for arg in args[:shared]:
            if id(arg) not in sent:
                sent[id(arg)] = client.scatter(arg, broadcast=True, hash=False)
                keep.append(arg)
        future = client.submit(function, *(sent[id(a)] for a in args[:shared]), *args[shared:], pure=False)
        asked[future.key] = args
        return future

    def submit():
        args = next(calls, None)
        return None if args is None else send(args)

    def again(future):
        """A task cancelled while the scheduler is still there: a killed worker took the only copy of
        its scattered arguments with it (distributed cannot recover scattered data), so they are
        scattered anew and the task sent again."""
        sent.clear()
        return send(asked.pop(future.key))

    try:
        with client.as_current():  # distributed.wait asks for the current client
            yield from _as_finished(client, submit, again, lambda future: asked.pop(future.key, None))
    except ClusterLost:
        raise
    except (CancelledError, OSError, TimeoutError) as err:  # OSError: distributed's CommClosedError too
        raise ClusterLost(f"the connection to the dask scheduler was lost ({type(err).__name__})") from None


def _as_finished(client, submit, again, forget):
    """Results as their tasks finish, a new task submitted for each (a task cancelled while the client
    still runs is sent `again`, at most RESENDS times in a row); ClusterLost when the client loses its
    scheduler or the cluster has no worker for WORKERLESS_SECONDS."""
    import time
    from concurrent.futures import CancelledError

    from distributed import wait

    running = [f for f in (submit() for _ in range(2 * max(1, len(client.scheduler_info().get("workers", {})))))
               if f is not None]
    alone_since = None
    resent = 0
    while running:
        try:
            done = wait(running, timeout=5, return_when="FIRST_COMPLETED").done
        except TimeoutError:  # nothing finished in 5 s: is anyone still working?
            done = set()
        except CancelledError:  # some were cancelled: sent again below, while the client still runs
            done = {future for future in running if future.cancelled()}
            if not done or client.status != "running":
                raise
        if not done:
            if client.status != "running":
                raise ClusterLost("the connection to the dask scheduler was lost")
            if client.scheduler_info().get("workers"):
                alone_since = None
            elif alone_since is None:
                alone_since = time.monotonic()
            elif time.monotonic() - alone_since > WORKERLESS_SECONDS:
                raise ClusterLost(f"the dask cluster has had no worker for {WORKERLESS_SECONDS:.0f} s")
            continue
        for future in done:
            running.remove(future)
            try:
                result = future.result()
            except CancelledError:
                if client.status != "running" or resent >= RESENDS:
                    raise
                resent += 1
                running.append(again(future))
                continue
            resent = 0
            forget(future)
            yield result
            follow = submit()
            if follow is not None:
                running.append(follow)


def stop_local_workers() -> None:
    """Kill the reusable loky executor's workers (after an interrupt or a failure), so that none
    outlives the run or keeps its output open."""
    from joblib.externals.loky import reusable_executor

    executor = getattr(reusable_executor, "_executor", None)
    if executor is not None:
        executor.shutdown(wait=False, kill_workers=True)
    for pid in _SPAWNED:  # those loky had not registered yet too, before this process closes their pipes
        if _our_child(pid):  # not a process that took the number of one of ours reaped since
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
    _SPAWNED.clear()


def _our_child(pid: int) -> bool:
    """Whether `pid` is a child of this process (Linux's /proc; elsewhere no)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return int(stat.read().rsplit(")", 1)[1].split()[1]) == os.getpid()
    except (OSError, ValueError, IndexError):
        return False

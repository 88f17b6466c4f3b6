"""Processes of a run: the directory lock, termination signals, and workers that never outlive it.

A results directory is locked with `filelock` (an OS lock, released by the kernel when the holder
dies, so a killed run never leaves a stale lock). SIGTERM is turned into `Terminated`, a
KeyboardInterrupt, so a terminated run cleans up like an interrupted one. Local workers ask the
kernel to kill them when their parent dies (Linux `PR_SET_PDEATHSIG`), so even a SIGKILLed run
leaves no worker behind, and an interrupted run kills its workers before it returns.
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


def stop_local_workers() -> None:
    """Kill the reusable loky executor's workers (after an interrupt or a failure), so that none
    outlives the run or keeps its output open."""
    from joblib.externals.loky import reusable_executor

    executor = getattr(reusable_executor, "_executor", None)
    if executor is not None:
        executor.shutdown(wait=False, kill_workers=True)

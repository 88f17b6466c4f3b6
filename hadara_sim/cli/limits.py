"""Options checked before any work: process counts within the machine."""

from __future__ import annotations

import os

from .common import err_console, fail


def jobs_or_exit(jobs: int, option: str = "--jobs") -> int:
    """A process count for joblib: at most the machine's cores (more only adds memory and
    start-up time, never speed), negative counting back from all cores (-1 all, -2 all but one)."""
    cores = os.cpu_count() or 1
    if jobs == 0 or jobs < -cores:
        fail(f"{option} must be a number of processes 1..{cores}, or -1 for all cores (-2 all but one), "
             f"got {jobs}")
    if jobs > cores:
        err_console.print(f"note: {option} {jobs} is more than the {cores} cores of this machine; using {cores}",
                          highlight=False)
        return cores
    return jobs

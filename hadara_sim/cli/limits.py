"""Options checked before any work: process counts within the machine, the command to resume."""

from __future__ import annotations

import os
import shlex
import shutil
import sys

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


def program() -> str:
    """This program as the shell would run it: `hadara-sim` where the shell finds this very script on
    PATH, else the path it was started by (`.venv/bin/hadara-sim` after `make demo`, which puts nothing
    on PATH)."""
    started = sys.argv[0]
    if os.path.basename(started) != "hadara-sim":  # python -m, a test's runner: the name is all we know
        return "hadara-sim"
    found = shutil.which("hadara-sim")
    if found and os.path.realpath(found) == os.path.realpath(started):
        return "hadara-sim"
    path = os.path.abspath(started)
    relative = os.path.relpath(path)
    return relative if not relative.startswith("..") else path


def resume_command() -> str:
    """The command line of this process, to run again after an interruption."""
    # --overwrite again would clear the chunks this process completed and play them all anew: once it has
    # started, the directory holds this run, which the command without it resumes.
    return " ".join(shlex.quote(a) for a in [program(), *(a for a in sys.argv[1:] if a != "--overwrite")])

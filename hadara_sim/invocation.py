"""How this process was started: the program's name as the shell would run it, and the command line
that resumes it. Every printed hint names the program this way, the library's messages as the command
line's: nothing here imports the rest of the package, so any of its modules can."""

from __future__ import annotations

import os
import shlex
import shutil
import sys


def program() -> str:
    """This program as the shell would run it: `hadara-sim` where the shell finds this very script on
    PATH, else the path it was started by (`.venv/bin/hadara-sim` after `make demo`, which puts nothing
    on PATH); `python -m hadara_sim` so, with the Python that runs it named the same way."""
    main = sys.modules.get("__main__")
    if getattr(getattr(main, "__spec__", None), "name", None) == "hadara_sim.__main__":
        # the path, not its link's target: a virtual environment's python links to the system's
        return f"{_as_run('python', sys.executable, os.path.abspath)} -m hadara_sim"
    started = sys.argv[0]
    if os.path.basename(started) != "hadara-sim":  # a test's runner: the name is all we know
        return "hadara-sim"
    return _as_run("hadara-sim", started, os.path.realpath)


def _as_run(name: str, started: str, same) -> str:
    """`name` where the shell finds the file `started` by it on PATH (`same` tells the two paths alike),
    else the path, relative where it lies under the current folder."""
    found = shutil.which(name)
    if found and same(found) == same(started):
        return name
    path = os.path.abspath(started)
    relative = os.path.relpath(path)
    return relative if not relative.startswith("..") else path


def command(*args: str) -> str:
    """This program with `args`, as the shell runs it: each argument quoted, the program not, since
    `python -m hadara_sim` is three words and quoted whole named no file."""
    return " ".join([program(), *map(shlex.quote, args)])


def resume_command() -> str:
    """The command line of this process, to run again after an interruption."""
    # --overwrite again would clear the chunks this process completed and play them all anew: once it has
    # started, the directory holds this run, which the command without it resumes.
    return command(*(a for a in sys.argv[1:] if a != "--overwrite"))

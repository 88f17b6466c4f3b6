"""The fixed cost of a small run: a 100-game `simulate` timed as a whole process, with and without
PYTHONDONTWRITEBYTECODE, against the target of 1.0 s (issue 33).

    .venv/bin/python scripts/startup_time.py [--runs 5] [--games 100] [--table]

Each run is a fresh `hadara-sim simulate scenarios/default.toml --games N -q --overwrite` into a
temporary folder (`--table`: without -q, so the closing win-rate table is printed too), after one
run that is not counted (it compiles the engine when numba's cache is cold). Printed: the median and
the spread of the wall time and of the CPU time (user + system, the process's own accounting: fairer
on a shared machine, where the wall time grows with the load), and the load average at the start.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_SECONDS = 1.0


def one_run(command: list[str], env: dict) -> tuple[float, float]:
    """(wall, cpu) seconds of one run of `command` as a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        sys.exit(f"the run failed ({done.returncode}): {done.stderr.strip()}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--table", action="store_true", help="print the closing table (no -q)")
    args = parser.parse_args()
    program = Path(sys.executable).parent / "hadara-sim"
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; {args.runs} runs each, "
          f"{args.games} games{'' if args.table else ', -q'}; target {TARGET_SECONDS:.1f} s whole process")
    with tempfile.TemporaryDirectory() as folder:
        command = [str(program), "simulate", "scenarios/default.toml", "--games", str(args.games), "--overwrite",
                   "--out", str(Path(folder) / "run"), *([] if args.table else ["-q"])]
        for label, bytecode in (("bytecode written", None), ("PYTHONDONTWRITEBYTECODE=1", "1")):
            env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
            if bytecode:
                env["PYTHONDONTWRITEBYTECODE"] = bytecode
            one_run(command, env)
            walls, cpus = zip(*(one_run(command, env) for _ in range(args.runs)))
            print(f"{label:>26}: wall median {statistics.median(walls):.2f} s [{min(walls):.2f}, {max(walls):.2f}], "
                  f"CPU median {statistics.median(cpus):.2f} s [{min(cpus):.2f}, {max(cpus):.2f}]")


if __name__ == "__main__":
    main()

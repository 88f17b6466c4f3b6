"""The fixed cost of a small run: a 100-game `simulate` timed as a whole process, with and without
PYTHONDONTWRITEBYTECODE, against the target of 1.0 s (issue 33).

    .venv/bin/python scripts/startup_time.py [--runs 5] [--games 100] [--phases [--table]]

Each run is a fresh `hadara-sim simulate scenarios/default.toml --games N -q --overwrite` into a
temporary folder, and the same without -q (as a user types it: the closing win-rate table is printed
too), each after one run that is not counted (it compiles the engine when numba's cache is cold).
Printed, for each command and bytecode setting: the median and the spread of the wall time and of
the CPU time (user + system, the process's own accounting: fairer on a shared machine, where the
wall time grows with the load), and the load average at the start; then the floor: the same figures
for a one-function numba program (numpy and numba imported, one function loaded from numba's cache and
called), the least any run on this stack starts in on the machine. (`hadara-sim bench --startup 5`
prints the same figures for the environment it runs in.)

`--phases`: where a run's CPU time goes instead, phase by phase (medians over --runs fresh
processes, each importing the pieces in the order the command needs them, then running the same
command in process): the interpreter, each library, our own modules, numba's implementations, and
the command itself split into its option parsing, the compiled code loaded from numba's cache (the
costliest functions named) and the rest (the run), then the interpreter's exit (the process's whole
CPU time less what it had spent when the command returned); and which heavy modules it imported.
With `--table` (the command without -q): also the libraries the closing table needs, each its own
phase (polars reads the results; statsmodels' Wilson interval, `proportion_confint`, imports
scipy.stats and pandas), and the table itself (reading, estimating, printing) apart from the run.

The table's floor: its rates' 95% CIs are Wilson's on the deal-clustered effective sample size, whose
counts are fractional; statsmodels' `proportion_confint` is the one library interval that takes them
(scipy's `binomtest` wants whole counts, scipy.special has none, and the standards forbid our own),
and its module imports scipy.stats and pandas at its top. `--phases --table` on a shared machine
(3 runs, load 2.4, CPU): polars 0.14 s, scipy.stats 0.98 s, pandas 0.30 s, statsmodels 0.02 s, our
report modules 0.01 s, the table itself 0.03 s, of 2.82 s in all; everything else the table's statistics
import when they compute (statsmodels' multitest and weightstats, scipy.special) adds 0.01-0.03 s to that. So
the table costs about 1.5 CPU s there (scipy.stats alone 0.54 s on a quiet machine), and a 100-game
simulate that prints it cannot reach 1.0 s whole process without an interval of our own.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

from hadara_sim.bench import (STARTUP_TARGET_SECONDS as TARGET_SECONDS, Startup, floor_seconds, simulate_command,
                              timed_process)
from hadara_sim.cli.common import whole_number

HEAVY = ("pydantic", "scipy", "scipy.linalg", "polars", "pandas", "statsmodels", "joblib", "matplotlib")

# One process's CPU seconds by phase, printed as JSON; argv[1]: the command's arguments (JSON).
# Each phase costs what the phases before it left to do.
PHASES = r"""
import json, sys, time
marks = [("interpreter and site", time.process_time())]
arguments, heavy = map(json.loads, sys.argv[1:])
def mark(name):
    marks.append((name, time.process_time()))
import typer, rich.console, hadara_sim.cli
mark("typer, rich, the command table")
table = "-q" not in arguments
import numpy
mark("numpy")
import numba
mark("numba")
import hadara_sim.jit_cache
mark("jit_cache (the sources' digest)")
import pyarrow, pyarrow.parquet
mark("pyarrow")
import hadara_sim.cli.simulate, hadara_sim.runner, hadara_sim.chunks, hadara_sim.estimate, hadara_sim.scenario.read
mark("our modules")
from numba.core.registry import cpu_target
cpu_target.typing_context.refresh()
cpu_target.target_context.refresh()
mark("numba's implementations")
if table:
    import polars
    mark("polars (the table reads the results)")
    import scipy.stats
    mark("scipy.stats (the table's interval)")
    import pandas
    mark("pandas (statsmodels imports it)")
    import statsmodels.stats.proportion
    mark("statsmodels.stats.proportion")
    import hadara_sim.report.wins
    mark("our report modules")
from numba.core import caching
from typer._click.core import Parameter
spent = {"option parsing": 0.0, "loads": {}, "table": 0.0}
def timed(function, add):
    def wrapper(*args, **kwargs):
        start = time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            add(args, time.process_time() - start)
    return wrapper
def add_load(args, seconds):
    name = args[0]._py_func.__qualname__
    spent["loads"][name] = spent["loads"].get(name, 0.0) + seconds
def add_parsing(args, seconds):
    spent["option parsing"] += seconds
def add_table(args, seconds):
    spent["table"] += seconds
import hadara_sim.results, hadara_sim.cli.simulate as simulate
hadara_sim.results.scan_results = timed(hadara_sim.results.scan_results, add_table)
simulate.win_table = timed(simulate.win_table, add_table)
simulate.emit = timed(simulate.emit, add_table)
caching.Cache.load_overload = timed(caching.Cache.load_overload, add_load)
classes = [Parameter]  # each class of typer's parameters that converts values in its own way
for cls in classes:
    classes.extend(cls.__subclasses__())
    if "process_value" in vars(cls):
        cls.process_value = timed(cls.process_value, add_parsing)
sys.argv = ["hadara-sim", *arguments]
try:
    hadara_sim.cli.main()
except SystemExit:
    pass
mark("the command")
print(json.dumps({"marks": marks, **spent, "imported": [m for m in heavy if m in sys.modules]}))
"""


def phases(arguments: list[str], runs: int, env: dict) -> None:
    """Print the median CPU seconds of each phase of `runs` runs (see PHASES)."""
    command = [sys.executable, "-c", PHASES, json.dumps(arguments), json.dumps(HEAVY)]
    timed_process(command, env)
    found = []
    for _ in range(runs):
        _, cpu, printed = timed_process(command, env)
        found.append({**json.loads(printed.strip().splitlines()[-1]), "whole": cpu})
    rows = []
    for i, (name, _) in enumerate(found[0]["marks"]):
        seconds = [f["marks"][i][1] - (f["marks"][i - 1][1] if i else 0.0) for f in found]
        if name == "the command":
            parsing = [f["option parsing"] for f in found]
            loads = [sum(f["loads"].values()) for f in found]
            tables = [f["table"] for f in found]
            rows.append(("the command: option parsing", parsing))
            rows.append(("the command: compiled code loaded", loads))
            for function in sorted(found[0]["loads"], key=lambda k: -found[0]["loads"][k])[:4]:
                rows.append((f"    {function}", [f["loads"].get(function, 0.0) for f in found]))
            if any(tables):
                rows.append(("the command: the closing table", tables))
            rows.append(("the command: the rest (the run)",
                         [s - p - k - t for s, p, k, t in zip(seconds, parsing, loads, tables)]))
        else:
            rows.append((name, seconds))
    rows.append(("the exit (the interpreter's shutdown)", [f["whole"] - f["marks"][-1][1] for f in found]))
    totals = [f["whole"] for f in found]
    for name, seconds in rows:
        print(f"{name:>40}: {statistics.median(seconds):5.2f} s [{min(seconds):.2f}, {max(seconds):.2f}]")
    print(f"{'total':>40}: {statistics.median(totals):5.2f} s [{min(totals):.2f}, {max(totals):.2f}]")
    print(f"{'heavy modules imported':>40}: {', '.join(found[0]['imported']) or 'none'}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=whole_number(1), default=5)
    parser.add_argument("--games", type=whole_number(1), default=100)
    parser.add_argument("--table", action="store_true", help="with --phases: the command with its closing table (no -q)")
    parser.add_argument("--phases", action="store_true", help="where the CPU time goes, phase by phase")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; {args.runs} runs each, "
          f"{args.games} games; target {TARGET_SECONDS:.1f} s whole process")
    with tempfile.TemporaryDirectory() as folder:
        if args.phases:
            command = simulate_command(Path(folder) / "run", args.games, quiet=not args.table)
            print(f"CPU seconds by phase{' (with the closing table)' if args.table else ', -q'}: median [min, max]")
            phases(command[command.index("simulate"):], args.runs, dict(os.environ))
            return
        for table in (False, True):
            command = simulate_command(Path(folder) / "run", args.games, quiet=not table)
            for label, bytecode in (("bytecode written", None), ("PYTHONDONTWRITEBYTECODE=1", "1")):
                env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
                if bytecode:
                    env["PYTHONDONTWRITEBYTECODE"] = bytecode
                timed_process(command, env)
                walls, cpus, _ = zip(*(timed_process(command, env) for _ in range(args.runs)))
                print(f"{'with the table' if table else '-q':>14}, {label:>25}: {Startup(list(walls), list(cpus)).text()}")
        print(f"{'the floor':>14}, {'a one-function numba program':>25}: {floor_seconds(args.runs).text()}")

if __name__ == "__main__":
    main()

"""The time and peak memory of the report tables that read every seat's cards, tiles and statues, on a
results directory of yours (the big runs are where they cost).

    .venv/bin/python scripts/report_cost.py RESULTS [--table cards --table colonies ...]

Each table is built in a fresh process of this Python, which loads the results, notes its peak
resident memory then (the results alone), builds the table and notes the time and the peak again:
the memory a table adds is the difference. Fresh processes, because a process's peak only grows:
tables built one after another in one process would each report the largest before them. To compare
two trees, run it with PYTHONPATH=<the other tree> too.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import typer

TABLES = {
    "cards": "from hadara_sim.report.cards import card_table as build; args = (None,)",
    "colonies": "from hadara_sim.report.cards import colony_table as build; args = (None,)",
    "statues": "from hadara_sim.report.cards import statue_table as build; args = (None,)",
    "owners": "from hadara_sim.report.grants import owner_effects as build; args = ()",
}

WORKER = r"""
import json, resource, sys, time
from hadara_sim import load_results
{table}
start = time.perf_counter()
df = load_results(sys.argv[1])
loaded, load_time = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, time.perf_counter() - start
start = time.perf_counter()
build(df, *args)
print(json.dumps({{"rows": df.height, "load_s": load_time, "table_s": time.perf_counter() - start,
                  "loaded_kib": loaded, "peak_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}}))
"""


def measure(results: Path, table: str) -> dict:
    """One table built from `results` in a fresh process: its rows, times (s) and peak memory (KiB)."""
    # -P: the hadara_sim of this environment (or of PYTHONPATH, to compare two trees), not one the
    # current folder happens to hold
    done = subprocess.run([sys.executable, "-P", "-c", WORKER.format(table=TABLES[table]), str(results)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"the {table} table of {results} failed:\n{done.stderr.strip()}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(results: Path = typer.Argument(..., help="A results directory (`hadara-sim simulate --out`)."),
         table: list[str] = typer.Option(list(TABLES), "--table", "-t",
                                         help=f"A table to build ({', '.join(TABLES)}); repeat for several "
                                              "(default: all).")) -> None:
    """Print each table's time and peak memory on RESULTS, each built in a fresh process."""
    if unknown := sorted(set(table) - set(TABLES)):
        raise typer.BadParameter(f"{', '.join(unknown)}: the tables are {', '.join(TABLES)}", param_hint="--table")
    if not (results / "metadata.json").is_file():
        raise typer.BadParameter(f"{results} is not a results directory (no metadata.json in it)",
                                 param_hint="RESULTS")
    print(f"{'table':<10} {'seats':>11} {'load s':>7} {'table s':>8} {'results GB':>11} {'peak GB':>8} {'added GB':>9}")
    for name in table:
        try:
            m = measure(results, name)
        except RuntimeError as err:
            print(err, file=sys.stderr)
            raise typer.Exit(1) from None
        loaded, peak = m["loaded_kib"] / 2**20, m["peak_kib"] / 2**20
        print(f"{name:<10} {m['rows']:>11,} {m['load_s']:>7.1f} {m['table_s']:>8.1f} {loaded:>11.2f} {peak:>8.2f} "
              f"{peak - loaded:>9.2f}", flush=True)


if __name__ == "__main__":
    typer.run(main)

"""Side-by-side speed of two installs of hadara-sim on identical deals (e.g. before and after a change).

    python scripts/bench_compare.py --base ../base/.venv/bin/python --new .venv/bin/python

Each measurement is a fresh subprocess of one install's Python: it plays a warm-up batch (compiles or
loads the compiled code), then times one batch of the same deals in both installs (same seed, same
policies, seats rotated), and reports games per second by wall clock and by the process's CPU time
(fairer on a shared machine), and the peak resident memory of the process. Runs alternate between
the installs and each is repeated; the best of the repeats is kept. `same`: whether both installs
produced the same final score sheets (every line, every seat) on those deals.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

WORKER = r"""
import hashlib, json, resource, sys, time
import numpy as np
from hadara_sim import load_components
from hadara_sim.deal import make_deals
from hadara_sim.engine.game import BatchGame
from hadara_sim.registry import make_policy
from hadara_sim.verify import seat_table

players, advanced, games, seed, names = json.loads(sys.argv[1])
c = load_components()
policies = [make_policy(name, seed=i) for i, name in enumerate(names)]

def play(n, deal_seed):
    deals = make_deals(c, players, n, seed=deal_seed, advanced=advanced)
    table = seat_table(n, players, len(policies))
    wall, cpu = time.perf_counter(), time.process_time()
    sheet = BatchGame(deals, c, policies, table).play()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    digest = hashlib.sha1()
    for key in sorted(sheet):
        digest.update(np.ascontiguousarray(sheet[key], np.float64).tobytes())
    return wall, cpu, digest.hexdigest()

first = play(64, seed + 1)
wall, cpu, digest = play(games, seed)
print(json.dumps({"first_s": first[0], "wall_gps": games / wall, "cpu_gps": games / cpu, "sheet": digest,
                  "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

MIXES = {"greedy": ["greedy"], "planner mix": ["balanced", "military", "culture", "economy"],
         "foresight": ["foresight"]}


def measure(python: str, players: int, advanced: bool, games: int, seed: int, names: list[str]) -> dict:
    args = json.dumps([players, advanced, games, seed, names])
    # -I: the install's own package, never one in the current directory
    out = subprocess.run([python, "-I", "-c", WORKER, args], check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="Python of the install to compare against")
    parser.add_argument("--new", required=True, help="Python of the install under test")
    parser.add_argument("--games", type=int, default=2000, help="games per timed batch (default 2000)")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--repeats", type=int, default=2, help="runs per install and configuration")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", help="also write the rows to this file")
    args = parser.parse_args(argv)
    # checked here, not by hadara_sim's helpers: this script may run on a Python without the package
    for option, python in (("--base", args.base), ("--new", args.new)):
        if not os.access(python, os.X_OK):
            parser.error(f"{option} {python}: no Python there (give the python of an install, e.g. .venv/bin/python)")
    if args.games < 1 or args.repeats < 1 or args.seed < 0 or not all(2 <= p <= 5 for p in args.players):
        parser.error("--games and --repeats at least 1, --seed at least 0, --players 2..5")
    rows = []
    head = (f"{'players':>7} {'game':>8} {'policies':>11} | {'base g/s (cpu)':>14} {'new g/s (cpu)':>13} "
            f"{'x (cpu)':>7} | {'base g/s (wall)':>15} {'new g/s (wall)':>14} {'x (wall)':>8} | "
            f"{'base MiB':>8} {'new MiB':>7} | {'new 1st call s':>14} | same")
    print(head, flush=True)
    for players in args.players:
        for advanced in (False, True):
            for mix, names in MIXES.items():
                runs = {"base": [], "new": []}
                for _ in range(args.repeats):
                    for which in ("base", "new"):
                        python = args.base if which == "base" else args.new
                        runs[which].append(measure(python, players, advanced, args.games, args.seed, names))
                best = {k: {"cpu_gps": max(r["cpu_gps"] for r in v), "wall_gps": max(r["wall_gps"] for r in v),
                            "peak_mib": max(r["peak_mib"] for r in v), "first_s": min(r["first_s"] for r in v),
                            "sheets": {r["sheet"] for r in v}}
                        for k, v in runs.items()}
                same = best["base"].pop("sheets") == best["new"].pop("sheets")
                b, n = best["base"], best["new"]
                row = dict(players=players, game="advanced" if advanced else "basic", policies=mix, base=b, new=n,
                           same=same)
                rows.append(row)
                print(f"{players:>7} {row['game']:>8} {mix:>11} | {b['cpu_gps']:>14,.0f} {n['cpu_gps']:>13,.0f} "
                      f"{n['cpu_gps'] / b['cpu_gps']:>6.1f}x | {b['wall_gps']:>15,.0f} {n['wall_gps']:>14,.0f} "
                      f"{n['wall_gps'] / b['wall_gps']:>7.1f}x | {b['peak_mib']:>8,.0f} {n['peak_mib']:>7,.0f} | "
                      f"{n['first_s']:>14.2f} | {'yes' if same else 'NO'}", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())

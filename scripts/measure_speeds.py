"""Measure the games per second of every built-in policy at 2-5 players, for run-time estimates.

    .venv/bin/python scripts/measure_speeds.py [--seconds 3] [--out hadara_sim/data/speeds.toml] [--policy NAME ...]

With --policy, only the policies named are measured; the file's other rows are kept as they are.

Each policy plays on every seat, basic game, in one process with the compiled code warm, for about
`--seconds` of CPU per cell (at least one chunk). The rate is per second of this process's CPU time,
what a process plays with a core to itself, so a busy machine measures it as a quiet one would; the
estimate scales it by the share of a core a run can expect (`estimate.core_share`). The file it
writes is what `simulate --dry-run` and the estimate printed before long runs read
(hadara_sim/estimate.py), and what weighs each chunk of a run whose policies differ in speed in its
time left (`progress.Pace`); rerun it on your own machine for estimates of your own (pass `--out` a
path and set HADARA_SIM_SPEEDS to it).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
import tomllib
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hadara_sim import __version__  # noqa: E402
from hadara_sim.registry import built_in_policies  # noqa: E402
from hadara_sim.runner import run  # noqa: E402
from hadara_sim.scenario.read import scenario_from_dict  # noqa: E402


def games_per_second(policy: str, players: int, seconds: float) -> float:
    """Games per CPU second of `policy` on every seat, growing the batch until it takes `seconds` of CPU."""
    games = 20
    while True:
        sc = scenario_from_dict({"name": "speed", "players": players, "policies": [policy], "games": games,
                                 "chunk": min(games, 5000), "seed": 1})
        start = time.process_time()
        run(sc, None, jobs=1)
        took = time.process_time() - start
        if took >= seconds or games >= 200_000:
            return games / took
        games = int(games * min(20.0, max(2.0, 1.2 * seconds / max(took, 1e-3))))


def kept_rows(path: Path) -> dict[str, str]:
    """The rows of the speeds file at `path` by policy, as written: --policy keeps the others. A file
    missing or not a speeds file is a ValueError saying so (it was a traceback before any measurement)."""
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8"))["games_per_second"]
        return {name: ", ".join(f"{p} = {s:.4g}" for p, s in row.items()) for name, row in table.items()}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, KeyError, AttributeError, TypeError) as err:
        raise ValueError(f"--policy keeps the other policies' rows of --out {path}, which is not a speeds file "
                         f"({type(err).__name__}: {err}); measure every policy (no --policy) to write it whole") \
            from None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU seconds per cell, more than 0")
    parser.add_argument("--out", type=Path, default=ROOT / "hadara_sim" / "data" / "speeds.toml")
    parser.add_argument("--policy", action="append", default=[], choices=sorted(built_in_policies()),
                        help="measure only this policy (repeatable)")
    args = parser.parse_args()
    if not args.seconds > 0:  # 0 measured one chunk of each and wrote its rates down as the machine's
        parser.error(f"--seconds must be more than 0, got {args.seconds}")
    if args.out.is_dir():  # found on writing, after every measurement
        parser.error(f"--out {args.out} is a folder; give the path of the speeds file, e.g. {args.out / 'speeds.toml'}")
    kept = {}
    if args.policy:
        try:
            kept = kept_rows(args.out)
        except ValueError as err:
            parser.error(str(err))
    run(scenario_from_dict({"name": "warm", "players": 2, "policies": ["random"], "games": 2, "chunk": 2}), None,
        jobs=1)  # the compile is not part of any cell
    lines = ["# Games per CPU second of each built-in policy on every seat (basic game, one process, compiled",
             f"# code warm): scripts/measure_speeds.py, {date.today()}, hadara-sim {__version__},",
             f"# {platform.machine()} {platform.processor() or ''} with {os.cpu_count()} cores. Read by",
             "# hadara_sim/estimate.py for the estimate printed before long runs and to weigh the time",
             "# left of a run whose policies differ in speed.", "", "[games_per_second]"]
    for name in sorted(built_in_policies()):
        if args.policy and name not in args.policy and name in kept:
            cells = kept[name]
        else:
            speeds = {p: games_per_second(name, p, args.seconds) for p in (2, 3, 4, 5)}
            cells = ", ".join(f"{p} = {s:.4g}" for p, s in speeds.items())
            print(f"{name}: {cells}", flush=True)
        lines.append(f'"{name}" = {{ {cells} }}')
    args.out.write_text("\n".join(lines) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

"""How far apart two `balance fit` change sets are, from their fix.toml files: the values each changes,
those both change, how many of those move the same way, and the distance between the two sets in
steps (`balance.STEPS`: 2 coins or 1 track step) against each set's own size.

    python scripts/fit_compare.py results/fit-balanced-v2/fix.toml results/fit-foresight-v2/fix.toml
"""

from __future__ import annotations

from pathlib import Path

import typer

from hadara_sim import balance
from hadara_sim import balance_fit as F
from hadara_sim.component_files import load_components
from hadara_sim.cli.common import run_script


def changes(path: Path, now: dict[str, dict[str, int]]) -> dict[tuple[str, str], int]:
    """(side, value) -> change from the shipped set, of a fix.toml."""
    setup = balance.read_overrides(path).get("setup", {})
    return {(s, f): v - now[s][f] for s, values in setup.items() for f, v in values.items() if v != now[s][f]}


def steps(change: dict[tuple[str, str], int]) -> float:
    return sum(abs(d) / balance.STEPS[f] for (_, f), d in change.items())


def main(first: Path, second: Path):
    now = F.currents(load_components(None))
    a, b = changes(first, now), changes(second, now)
    both = sorted(set(a) & set(b))
    same = [k for k in both if (a[k] > 0) == (b[k] > 0)]
    apart = sum(abs(a.get(k, 0) - b.get(k, 0)) / balance.STEPS[k[1]] for k in set(a) | set(b))
    print(f"{first}: {len(a)} changed values, {steps(a):g} steps; {second}: {len(b)} changed values, {steps(b):g} steps")
    print(f"both change {len(both)} values, {len(same)} of them the same way: "
          + ", ".join(f"{s} {f} {a[(s, f)]:+d}/{b[(s, f)]:+d}" for s, f in both))
    print(f"the two sets lie {apart:g} steps apart")


if __name__ == "__main__":
    run_script(main)

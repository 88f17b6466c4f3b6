"""Head to head of two policies on fresh deals, seats rotated: the numbers behind docs and notes.

    python scripts/duel.py balanced balanced-v1 --players 2 --players 4 --games 3000 --seed 101
    python scripts/duel.py search balanced --set budget=4 --games 200 --seed 202
    python scripts/duel.py search balanced --games 1000 --jobs 2     # both cores

The games are split over `--jobs` processes (the same results for any number: a game plays the same
in any batch); the clock starts after each process has played a game (warm compiled code).

Prints per player count: games, A's win share with its 95 % Wilson interval, games per second, and
the mean total of the winner (A's wins, B's wins) to compare with the rulebook's 149-point example.
"""

from __future__ import annotations

import time

import numpy as np
import typer

from hadara_sim import load_components
from hadara_sim.cli.common import run_script
from hadara_sim.constants import MAX_SEED
from hadara_sim.params import parse_value
from hadara_sim.registry import make_policy
from hadara_sim.report.inference import rate_interval
from hadara_sim.tune import match


def main(a: str, b: str, players: list[int] = typer.Option([2], "--players", "-p", min=2, max=5),
         games: int = typer.Option(1000, "--games", "-n", min=1),
         seed: int = typer.Option(0, "--seed", "-s", min=0, max=MAX_SEED),
         basic: bool = typer.Option(False, "--basic", help="Basic game (default: advanced)."),
         set_: list[str] = typer.Option([], "--set", help="A parameter of A: name=value."),
         set_b: list[str] = typer.Option([], "--set-b", help="A parameter of B: name=value."),
         jobs: int = typer.Option(1, "--jobs", "-j", min=1, help="Processes to split the games over.")):
    c = load_components()

    def params(items):
        return {k: parse_value(v) for k, _, v in (x.partition("=") for x in items)}

    try:
        pa, pb = make_policy(a, seed=seed, **params(set_)), make_policy(b, seed=seed + 1, **params(set_b))
    except (ValueError, LookupError) as err:  # an unknown policy or a bad --set
        raise typer.BadParameter(str(err)) from None
    for p in players:
        match(c, pa, pb, p, max(jobs, 2), np.random.SeedSequence([seed, p, 1]), not basic, jobs=jobs)  # warm up
        t = time.perf_counter()
        m = match(c, pa, pb, p, games, np.random.SeedSequence([seed, p]), not basic, jobs=jobs)
        dt = time.perf_counter() - t
        low, high = rate_interval(m.shares)
        print(f"{a}{params(set_) or ''} vs {b}{params(set_b) or ''}, {p} players, {'basic' if basic else 'advanced'}: "
              f"{games} games, win share {100 * m.shares.mean():.1f}% [95% Wilson {100 * low:.1f}, "
              f"{100 * high:.1f}], {games / dt:.2f} games/s ({jobs} process{'es' if jobs > 1 else ''}); mean winning total: {a} {m.a_totals.mean():.1f} "
              f"({len(m.a_totals)} wins), {b} {m.b_totals.mean():.1f} ({len(m.b_totals)} wins)", flush=True)


if __name__ == "__main__":
    run_script(main)

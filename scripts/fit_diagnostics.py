"""Why a `balance fit` does not settle, from its own runs: per player count, how far one step of each
value moves a side's win share and how well the designed sweep knows it (round 1's surrogate, the
share's slope near 1/P with its cluster-robust standard error), and round 1's fits and proposal timed
against the estimate `balance_fit.fitting_seconds` prints before a fit.

    python scripts/fit_diagnostics.py results/fit -p 2 -p 4 --games 4000 --confirm-games 60000 --seed 1
    python scripts/fit_diagnostics.py results/fit -p 2 --games 16000 --confirm-games 2=100000,4=40000

The options must be the fit's own (they rebuild its design points); the runs are read from
RESULTS/runs/p<P>-design-<k>, never played again.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import typer

from hadara_sim import balance
from hadara_sim import balance_fit as F
from hadara_sim.component_files import load_components
from hadara_sim.results import load_results
from hadara_sim.cli.common import run_script


def main(results: Path, players: list[int] = typer.Option(..., "--players", "-p", min=2, max=5),
         games: int = typer.Option(..., "--games", "-n", min=1),
         confirm_games: str = typer.Option(..., "--confirm-games"),
         points: int = F.POINTS, max_changed: int = F.MAX_CHANGED, seed: int = 1):
    for p in players:
        try:
            plan = F.FitPlan(players=[p], games=games, points=points, rounds=1, max_changed=max_changed, seed=seed,
                             confirm_games=F.read_confirm_games(confirm_games))
        except ValueError as err:  # --points 0 or --confirm-games xx, in the plan's words: it was a traceback
            raise typer.BadParameter(str(err)) from None
        now = F.currents(load_components(None))
        runs = [F.Run(p, c, seed, f"design {k}", load_results(results / "runs" / f"p{p}-design-{k}").select(
                "game", "seat", "players", "setup_card", "setup_side", "win_share"))
                for k, c in enumerate([{}] + F.design(plan, now))]
        start = time.process_time()
        model = F.fit_surrogate(runs, plan)
        F.propose({p: model.anchor(runs[0])}, plan, now)
        real = time.process_time() - start
        estimated = F.fitting_seconds(plan)
        near = (1 / p) * (1 - 1 / p)   # d share / d strength at 1/P
        se = np.sqrt(np.diag(model.cov))
        steps = [(name, 100 * near * model.params[j] * balance.STEPS[name.split(" ")[1]],
                  100 * near * se[j] * balance.STEPS[name.split(" ")[1]])
                 for j, name in enumerate(model.columns) if name.split(" ")[0] in F.SIDES and " " in name
                 and name.split(" ")[1] in balance.STEPS]
        ses = np.array([s for _, _, s in steps])
        print(f"{p} players: one step's effect on the share, pp (± its standard error; median SE "
              f"{np.median(ses):.2f}, range {ses.min():.2f} to {ses.max():.2f}):")
        for side in F.SIDES:
            mine = [f"{name.split(' ')[1]} {b:+.1f}±{s:.1f}" for name, b, s in steps if name.startswith(side + " ")]
            if mine:
                print(f"  {side}: {', '.join(mine)}")
        print(f"  round 1's fits and proposal: {real:.1f} s of CPU; estimated {estimated:.1f} s")


if __name__ == "__main__":
    run_script(main)

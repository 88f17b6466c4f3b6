"""How well a `balance fit`'s surrogate predicts the next round, from the fit's own runs: per player count
and round k >= 2, the surrogate fitted to the designed sweep and the rounds before k (terms chosen on
the sweep, as the fit does), anchored to round k-1's run, predicts the win share of every side under
round k's set; printed, the root mean square miss over the sides against round k's fresh deals, the
misses of the sides whose values round k moved from round k-1 and of those it left alone, each with
and without the table terms (`--no-table-terms`), and the table terms the sweep demanded; then the
misses of the moved sides whose every value stays within the sweep's one step of the shipped set,
and of those beyond it (with table terms).

    python scripts/fit_holdout.py results/fit-balanced -p 2 -p 3 -p 4 --games 16000 --points 12 \\
        --confirm-games 2=100000,3=60000,4=40000 --max-changed 3

The options must be the fit's own (they rebuild its design points); the runs are read from
RESULTS/runs/, never played again; each round's change set from its run's metadata.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import typer

from hadara_sim import balance
from hadara_sim import balance_fit as F
from hadara_sim.cli.common import run_script
from hadara_sim.component_files import load_components
from hadara_sim.results import load_results

COLUMNS = ["game", "seat", "players", "setup_card", "setup_side", "win_share"]


def round_change(run: Path, now: dict[str, dict[str, int]]) -> F.Change:
    """A round's change set, read from the component overrides its run played."""
    meta = json.loads((run / "metadata.json").read_text())
    setup = meta["identity_fields"]["combinations"][0]["config"]["components"].get("setup", {})
    return {s: {f: v - now[s][f] for f, v in values.items() if v != now[s][f]} for s, values in setup.items()
            if any(v != now[s][f] for f, v in values.items())}


def main(results: Path, players: list[int] = typer.Option(..., "--players", "-p", min=2, max=5),
         games: int = typer.Option(..., "--games", "-n", min=1),
         confirm_games: str = typer.Option(..., "--confirm-games"),
         points: int = F.POINTS, max_changed: int = F.MAX_CHANGED, seed: int = 1):
    now = F.currents(load_components(None))
    for p in players:
        try:
            plan = F.FitPlan(players=[p], games=games, points=points, max_changed=max_changed, seed=seed,
                             confirm_games=F.read_confirm_games(confirm_games))
        except ValueError as err:  # --points 0 or --confirm-games xx, in the plan's words: it was a traceback
            raise typer.BadParameter(str(err)) from None
        design = [F.Run(p, c, seed, f"design {k}", load_results(results / "runs" / f"p{p}-design-{k}").select(COLUMNS))
                  for k, c in enumerate([{}] + F.design(plan, now))]
        rounds = sorted((results / "runs").glob(f"p{p}-round-*"), key=lambda d: int(d.name.split("-")[2]))
        played = [F.Run(p, round_change(d, now), seed + int(d.name.split("-")[2]), d.name,
                        load_results(d).select(COLUMNS)) for d in rounds]
        models = {table: F.fit_surrogate(design, replace(plan, table=table)) for table in (False, True)}
        print(f"{p} players: table terms demanded by the sweep: {', '.join(models[True].added) or 'none'}")
        inside, outside = [], []   # misses of moved sides whose values stay within the sweep's step, or not
        for k in range(1, len(played)):
            last, next_ = played[k - 1], played[k]
            seen = F.verdicts([next_], list(F.SIDES), plan.margin)
            observed = np.array([seen.filter(side=s)["mean"].item() for s in F.SIDES])
            moved = np.array([next_.change.get(s, {}) != last.change.get(s, {}) for s in F.SIDES])
            line = []
            for table, first in models.items():
                model = F.fit_surrogate(design + played[:k], replace(plan, table=table), first).anchor(last)
                miss = model.shares(next_.change) - observed
                if table:
                    for i in np.flatnonzero(moved):
                        far = max([abs(d) / balance.STEPS[f] for f, d in next_.change.get(F.SIDES[i], {}).items()],
                                  default=0)
                        (inside if far <= 1 else outside).append(miss[i])
                line.append(f"{'with' if table else 'without'} table terms {100 * np.sqrt(np.mean(miss ** 2)):.2f} pp"
                            f" (moved sides {100 * np.sqrt(np.mean(miss[moved] ** 2)):.2f}, left alone "
                            f"{100 * np.sqrt(np.mean(miss[~moved] ** 2)) if (~moved).any() else float('nan'):.2f})")
            print(f"  round {k + 1} from round {k} ({moved.sum()} sides moved): " + "; ".join(line))
        for name, misses in (("within one step of the shipped set", inside), ("beyond it", outside)):
            if misses:
                print(f"  moved sides {name}: {100 * np.sqrt(np.mean(np.square(misses))):.2f} pp "
                      f"({len(misses)} side-rounds)")


if __name__ == "__main__":
    run_script(main)

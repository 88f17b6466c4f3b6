"""Do the bots' setup sides follow the components? The side-adaptation probe of issue 21.

    python scripts/side_probe.py --players 2 --players 4 --games 2000

For the shipped components and two overrides of side 3B (made poor, made excellent), every seat
played by each policy given (default: tuned `balanced`, whose side table is derived by play, and the
yardstick `balanced-v1`): how often the holder of each setup card chose side B in `--games` fresh
deals, and, for a policy that derives its table, the trial's B - A effect of card 3 with its 95 %
interval.
"""

from __future__ import annotations

import numpy as np
import typer

from hadara_sim import load_components
from hadara_sim.constants import MAX_SEED
from hadara_sim.deal import make_deals
from hadara_sim.engine.game import BatchGame
from hadara_sim.registry import make_policy
from hadara_sim.policies.sides import derived_sides
from hadara_sim.cli.common import run_script

CASES = {
    "shipped": {},
    "3B poor": {"setup": {"3B": {"coins": 2, "culture": 0, "food": 2}}},
    "3B excellent": {"setup": {"3B": {"coins": 14, "culture": 8, "income": 3}}},
}


def main(players: list[int] = typer.Option([2, 4], "--players", "-p", min=2, max=5),
         games: int = typer.Option(2000, "--games", "-n", min=1),
         policy: list[str] = typer.Option(["balanced", "balanced-v1"], "--policy"),
         seed: int = typer.Option(3, "--seed", "-s", min=0, max=MAX_SEED)):
    base = load_components()
    try:
        for name in policy:  # each made once before any case plays: an unknown one stopped in a traceback
            make_policy(name, seed=seed)
    except (ValueError, LookupError) as err:
        raise typer.BadParameter(str(err), param_hint="--policy") from None
    for case, overrides in CASES.items():
        c = base.with_overrides(overrides)
        for name in policy:
            bot = make_policy(name, seed=seed)
            for p in players:
                deals = make_deals(c, p, games, seed=np.random.SeedSequence([seed, p]), advanced=True)
                game = BatchGame(deals, c, [bot], np.zeros((games, p), np.int64))
                game.play()
                chose_b = [game.s.side[game.s.initiative == card].mean() for card in range(1, 6)]
                line = "  ".join(f"{card}B {100 * b:5.1f}%" for card, b in zip(range(1, 6), chose_b)
                                 if not np.isnan(b))
                note = ""
                if bot.settings.get("side_choice") == "derived":
                    t = derived_sides(bot, c, p)
                    note = (f"   trial 3B-3A {100 * t.effect[2]:+5.1f} pp [{100 * t.low[2]:+5.1f}, "
                            f"{100 * t.high[2]:+5.1f}] (up to {t.deals} paired deals per card, {t.rounds} round(s))")
                print(f"{case:<13} {name:<12} {p}P  chose B: {line}{note}", flush=True)


if __name__ == "__main__":
    run_script(main)

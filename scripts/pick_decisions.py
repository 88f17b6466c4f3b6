"""Search's choices at the phase-B picks, recorded for distilling a fast policy (issue 21, item 3).

    python scripts/pick_decisions.py --players 2 --games 200 --out picks.parquet

Searching the picks alone carries search's whole edge over `balanced` at 2 players (94 % against it,
`scripts/strength.py search --set "search:kinds=('pick',)"`), so the picks are where a fast policy has
most to learn. One seat per game (rotating) plays search on its picks and `balanced` elsewhere; the
other seats play `balanced`. At every pick of that seat the script writes one row: game, seat,
epoch, pick turn, the seat's coins and tracks, per colour the top card of the pile (-1 empty) and
what the seat would pay for it, the legal options, search's choice and balanced's choice (option =
2 x colour + 0 buy / 1 sell, `hadara_sim.actions.pick_option`). It prints how often they agree.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import typer

from hadara_sim import load_components
from hadara_sim.constants import MAX_SEED
from hadara_sim.deal import make_deals
from hadara_sim.engine.game import play_batch
from hadara_sim.forward import Forward
from hadara_sim.policies.common import price
from hadara_sim.registry import make_policy
from hadara_sim.cli.common import run_script, writable_file


class Recorder:
    """Search on the picks, balanced elsewhere; notes every pick it makes."""

    name = "pick-recorder"

    def __init__(self, budget: int, seed: int):
        self.search = make_policy("search", seed=seed, budget=budget, kinds=("pick",))
        self.balanced = make_policy("balanced")
        self.rows: list[dict] = []

    def decide(self, d):
        if d.kind != "pick":
            return self.balanced.decide(d)
        chosen, plain = self.search.decide(d), self.balanced.decide(d)
        v = d.view
        piles, sizes = v.piles, v.pile_size
        top = np.where(sizes > 0, np.take_along_axis(piles, np.maximum(sizes - 1, 0)[:, :, None], 2)[:, :, 0], -1)
        pay = np.where(top >= 0, price(v, np.maximum(top, 0)), -1)
        coins, tracks = v.own("coins"), v.own("tracks")
        for i in range(len(d)):
            self.rows.append({"game": int(d.game_id[i]), "seat": int(v.player[i]), "epoch": int(v.epoch[i]),
                              "serial": int(d.serial[i]), "coins": int(coins[i]),
                              **{f"track{t}": int(tracks[i, t]) for t in range(4)},
                              **{f"top{c}": int(top[i, c]) for c in range(5)},
                              **{f"price{c}": int(pay[i, c]) for c in range(5)},
                              "legal": d.legal[i].tolist(), "search": int(chosen[i]), "balanced": int(plain[i])})
        return chosen


def main(players: int = typer.Option(2, "--players", "-p", min=2, max=5),
         games: int = typer.Option(200, "--games", "-n", min=1),
         budget: int = typer.Option(8, "--budget", min=1, help="search's budget at the picks."),
         seed: int = typer.Option(0, "--seed", "-s", min=0, max=MAX_SEED),
         out: Path = typer.Option(Path("picks.parquet"), "--out")):
    writable_file(out)  # before the games: a folder stopped in a traceback after them
    c = load_components()
    recorder = Recorder(budget, seed)
    deals = make_deals(c, players, games, seed=np.random.SeedSequence([seed, players]), advanced=True)
    table = np.where(np.arange(players)[None, :] == (np.arange(games) % players)[:, None], 0, 1)
    play_batch(deals, c, [recorder, make_policy("balanced")], table, forward=Forward)
    frame = pl.DataFrame(recorder.rows)
    frame.write_parquet(out)
    agree = (frame["search"] == frame["balanced"]).mean()
    sells = (frame["search"] % 2 == 1).mean(), (frame["balanced"] % 2 == 1).mean()
    print(f"{frame.height} picks in {games} games at {players} players written to {out}; search and balanced "
          f"agree on {100 * agree:.1f}%; they sell {100 * sells[0]:.1f}% and {100 * sells[1]:.1f}% of the time")
    for epoch, part in frame.group_by("epoch", maintain_order=True):
        print(f"  epoch {epoch[0]}: {part.height} picks, agree {100 * (part['search'] == part['balanced']).mean():.1f}%")


if __name__ == "__main__":
    run_script(main)

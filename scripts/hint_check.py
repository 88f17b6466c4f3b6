"""Does a sample-size hint keep its promise? For rows of `report setup-cards`, the hint before (one
row's nearer one-sided test at 5 %, normal approximation, no correction) and after (the table's Holm-
corrected TOST, `inference.deals_to_decide`), and the share of "fair" when the hinted games are added.

    python scripts/hint_check.py results/setup-cards 2P2A 2P4B 3P2A 4P5A --reps 400

A simulation at the level of the statistics, from planted rates: every row of the table is planted at
its observed per-deal distribution (the shares of deals in which the focus seat won alone, tied or lost:
a multinomial count of each value), more games add deals to every row in proportion, and each of
`--reps` tables is judged as the report judges it: per row the TOST within ±margin as
`statsmodels.ttost_paired` computes it (two one-sided t-tests over deals, df = n - 1, from the row's
simulated mean and sd), Holm over the table's rows. This differs from the hint's own model (normal
estimates, known sd, z) in everything but the planted rates.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import typer
from scipy import stats

from hadara_sim.report import inference as I
from hadara_sim.report.dataset import load_dataset
from hadara_sim.report.setup import setup_card_balance, setup_rows
from hadara_sim.cli.common import margin_in_pp, run_script
from hadara_sim.constants import MAX_SEED


def old_hint(diff: float, sd: float, n: int, margin: float) -> float:
    """The hint before: ((z_0.95 + z_0.8) sd / (margin - |diff|))^2 - n, one row alone, uncorrected."""
    if abs(diff) >= margin or not sd > 0:
        return math.nan
    return max(0.0, math.ceil(((stats.norm.ppf(0.95) + stats.norm.ppf(0.8)) * sd / (margin - abs(diff))) ** 2 - n))


def fair_share(dists: list[tuple[np.ndarray, np.ndarray]], fair: np.ndarray, n: np.ndarray, at: int, margin: float,
               reps: int, rng: np.random.Generator) -> float:
    """Share of `reps` simulated tables (row i: n[i] deals drawn from its per-deal values and their
    shares, `dists[i]`) that call row `at` fair."""
    hits = 0
    for _ in range(reps):
        mean, sd = np.empty(len(dists)), np.empty(len(dists))
        for i, (values, shares) in enumerate(dists):
            counts = rng.multinomial(int(n[i]), shares)
            mean[i] = counts @ values / n[i]
            sd[i] = math.sqrt(max(0.0, (counts @ (values - mean[i]) ** 2) / (n[i] - 1)))
        se = np.where(sd > 0, sd / np.sqrt(n), np.nan)
        d = mean - fair
        p = np.maximum(stats.t.sf((d + margin) / se, n - 1), stats.t.cdf((d - margin) / se, n - 1))
        hits += I.adjust(p, "holm")[at] < I.ALPHA
    return hits / reps


def distributions(df: pl.DataFrame, table: pl.DataFrame) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each row's per-deal values of the focus seat's win share and their shares."""
    rows, _ = setup_rows(df)
    counts = rows.group_by("players", "setup_card", "setup_side", "win_share").len()
    out = []
    for r in table.iter_rows(named=True):
        part = counts.filter((pl.col("players") == r["players"]) & (pl.col("setup_card") == r["setup_card"])
                             & (pl.col("setup_side") == r["setup_side"]))
        out.append((part["win_share"].to_numpy(), part["len"].to_numpy() / part["len"].sum()))
    return out


def main(results: str, rows: list[str] = typer.Argument(..., help="Rows as 2P2A (players, card, side)."),
         reps: int = typer.Option(400, min=1, help="Simulated tables per hint."),
         margin: float = typer.Option(2.0, "--margin", "-m", max=50.0, callback=margin_in_pp,
                                      help="Equivalence margin in pp."),
         seed: int = typer.Option(36, min=0, max=MAX_SEED)):
    df, info = load_dataset(results)
    margin /= 100
    table = setup_card_balance(df, margin)
    games = info["deals"]
    names = [f"{r['players']}P{r['setup_card']}{r['setup_side']}" for r in table.to_dicts()]
    dists, fair = distributions(df, table), table["fair"].to_numpy()
    n = table["n"].to_numpy().astype(float)
    unknown = [name for name in rows if name not in names]
    if unknown:  # names.index stopped in a traceback
        raise typer.BadParameter(f"{', '.join(unknown)}: no such row of the setup-card table; its rows are "
                                 f"{', '.join(names) or 'none'}", param_hint="ROWS")
    rng = np.random.default_rng(seed)
    print(f"{results}: {table.height} rows, --games {games:,}, margin ±{100 * margin:g} pp, {reps} tables per hint")
    print("row    | n     | win share | vs 1/P  | verdict  | hint before (share fair) | hint after (share fair)")
    for name in rows:
        at = names.index(name)
        r = table.row(at, named=True)
        cells = []
        for more in (old_hint(r["diff"], r["sd"], r["n"], margin), r.get("more", math.nan)):
            if not math.isfinite(more):
                cells.append("none")
                continue
            extra = math.ceil(more * games / r["n"])
            share = fair_share(dists, fair, n * (games + extra) / games, at, margin, reps, rng)
            cells.append(f"{more:,.0f} deals, --games {games + extra:,} ({100 * share:.1f} %)")
        print(f"{name:6} | {r['n']:,} | {100 * r['win']:.1f} % | {100 * r['diff']:+.2f} pp | {r['verdict']:8} | "
              f"{cells[0]} | {cells[1]}")


if __name__ == "__main__":
    run_script(main)

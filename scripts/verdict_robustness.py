"""Do the setup-card verdicts hold under a second opponent field?

    python scripts/verdict_robustness.py --field balanced --field balanced-v1 --games 1000

Plays scenarios/setup-cards.toml once per field (every seat played by that policy; the same deals),
computes the report's setup-card table for each (win share against fair 1/P, Benjamini-Hochberg over
the table) and prints every cell's verdict under each field: strong / weak (significant) or n.s.
(not significant: not a claim of fairness), and whether the verdicts agree.
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import typer

from hadara_sim import simulate
from hadara_sim.report.stats import setup_card_balance

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "setup-cards.toml"


def verdicts(field: str, games: int, seed: int | None) -> pl.DataFrame:
    text = re.sub(r"(?m)^policies = .*$", f'policies = ["{field}"]', SCENARIO.read_text(encoding="utf-8"))
    table = setup_card_balance(simulate(text, games=games, seed=seed, jobs=1))
    verdict = (pl.when(~pl.col("significant")).then(pl.lit("n.s."))
               .when(pl.col("win") > pl.col("fair")).then(pl.lit("strong")).otherwise(pl.lit("weak")))
    return table.select("players", "setup_card", "setup_side", "n",
                        (100 * pl.col("win")).round(1).alias(f"win % {field}"), verdict.alias(field))


def main(field: list[str] = typer.Option(["balanced", "balanced-v1"], "--field", help="Policy on every seat."),
         games: int = typer.Option(1000, "--games", "-n", help="Games per cell."),
         seed: int = typer.Option(None, "--seed", "-s", help="Deal seed (default: the scenario's).")):
    tables = [verdicts(f, games, seed) for f in field]
    joined = tables[0]
    for t in tables[1:]:
        joined = joined.join(t.drop("n"), on=["players", "setup_card", "setup_side"])
    joined = joined.with_columns(pl.concat_list(field).list.n_unique().eq(1).alias("holds"))
    with pl.Config(tbl_rows=100, tbl_cols=20):
        print(joined.sort("players", "setup_card", "setup_side"))
    changed = joined.filter(~pl.col("holds")).height
    print(f"{changed} of {joined.height} verdicts change between {' and '.join(field)} "
          f"({games} games per cell per field; verdict: BH q < 0.05 on the win share against 1/P)")


if __name__ == "__main__":
    typer.run(main)

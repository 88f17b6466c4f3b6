"""What a card is worth at its price, from restricted play (Jaffe et al., AIIDE 2012; scenario key
`restrict`, `scenarios/card-worth.toml`).

One seat (rotating with the deal) plays once seeking a card (buying it whenever it is offered and
affordable) and once avoiding it (never buying it), on the same deals, every other seat the same.
Seek minus avoid, paired on the deal and seat, is what buying the card when one can is worth at its
price: a relative contrast, in points of win share. With the restricted card's cost changed by the
sweep (`restrict.cost`), the difference falls as the price rises; the **fair cost** is where the
fitted line meets zero (seeking and avoiding are level), with its 95% CI, by the fit and crossing of
`report curve` (`curve.fit`, `curve.crossing`: a linear model with cluster-robust errors by deal, the
delta method).

A restriction of several cards at once is not a card's worth and is left out of these tables. A run
that also sweeps an opponent field or another key has a worth per value of it (`field`), never one
pooled over them: the worth holds for the field that played it.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from . import inference as I
from .curve import Crossing, crossing, fit
from .dataset import ReportError, polars_frame, run_components
from .estimates import group_means, paired_diff
from .fields import field_label_expr
from .verdict import with_verdicts


def restricted_pairs(df: pl.DataFrame) -> pl.DataFrame | None:
    """Each seat that sought one card beside the same seat of the same deal that avoided it, at the same
    cost change and the same values of every other swept key: card_id, cost_change, players, game,
    seat, win_seek, win_avoid, total_seek, total_avoid. None when the dataset has no such pair."""
    polars_frame(df)
    if "seek" not in df.columns or df["seek"].is_null().all():
        return None
    others = [c for c in df.columns if c.startswith("sweep_") and not c.startswith("sweep_restrict")]
    keys = ["game", "seat", "players", "advanced", "cost_change", *others]

    def side(name: str) -> pl.DataFrame:
        one = pl.col(name).is_not_null() & ~pl.col(name).str.contains(",")
        return df.filter(one).select(*keys, pl.col(name).alias("card_id"), pl.col("win_share").alias(f"win_{name}"),
                                     pl.col("total").alias(f"total_{name}"))

    pairs = side("seek").join(side("avoid"), on=[*keys, "card_id"], how="inner")
    if not pairs.height:
        return None
    swept = [c for c in others if c != "sweep_players" and pairs[c].n_unique() > 1]
    return pairs.with_columns(field_label_expr(swept).alias("field")) if swept else pairs


def _cell(pairs: pl.DataFrame) -> list[str]:
    """What one worth is of: a card at a player count, and the field or other swept value it played under."""
    return ["card_id", "players", *(["field"] if "field" in pairs.columns else [])]


def _pairs_or_error(pairs: pl.DataFrame | None) -> pl.DataFrame:
    """The restricted pairs, or a ReportError when a dataset had none (restricted_pairs gave None)."""
    if pairs is None:
        raise ReportError("this dataset has no restricted play (a seat seeking a card beside one avoiding it): a "
                          "run of scenarios/card-worth.toml has it")
    return pairs


def _printed(components) -> pl.DataFrame:
    return pl.DataFrame({"card_id": [c.id for c in components.cards], "epoch": [c.epoch for c in components.cards],
                         "printed_cost": [c.cost for c in components.cards]})


def seek_avoid(pairs: pl.DataFrame, components, margin: float = I.MARGIN) -> pl.DataFrame:
    """Seek minus avoid per card, player count and cost change: card_id, epoch, printed_cost, players,
    cost_change, cost (printed + change), n (deals), rows, win_a (seeking), win_b (avoiding), win_diff,
    win_low, win_high, win_p, win_q, win_verdict (Benjamini-Hochberg and TOST over the table), score_diff,
    score_low, score_high, and per field where a run swept one (`field`); largest gain first."""
    components = run_components(components)
    pairs = _pairs_or_error(pairs)
    by = [*_cell(pairs), "cost_change"]
    win = with_verdicts(paired_diff(pairs, "win_seek", "win_avoid", by, prefix="win_", margin=margin),
                        p="win_p", equiv_p="win_equiv_p", diff="win_diff", margin=margin, prefix="win_")
    score = paired_diff(pairs, "total_seek", "total_avoid", by, prefix="score_", margin=None).drop("n", "rows")
    return (win.join(score, on=by, how="left").join(_printed(components), on="card_id", how="left")
            .with_columns((pl.col("printed_cost") + pl.col("cost_change")).alias("cost"))
            .sort("win_diff", descending=True))


def fair_costs(pairs: pl.DataFrame, components) -> pl.DataFrame:
    """Per card and player count swept at two or more costs: the cost at which seeking and avoiding are
    level. Columns: card_id, epoch, players, printed_cost, costs (the swept costs), n (deals), fair_cost,
    fair_low, fair_high (95% CI), gap (fair - printed: above 0 the card is worth more than it costs),
    slope (win share per coin, a fraction), slope_p, extrapolated, and per field where a run swept one
    (`field`); largest gap (either sign) first, cards without a crossing last."""
    components = run_components(components)
    pairs = _pairs_or_error(pairs)
    printed = dict(_printed(components).select("card_id", "printed_cost").iter_rows())
    # each deal's mean from `group_means`, summed in a fixed order: the pairs come out of a join in no
    # fixed order, and a polars group_by's sum followed it into the last bits of the fair cost
    cell = _cell(pairs)
    per_deal = (group_means(pairs, [*cell, "cost_change", "game"],
                            {"diff": pl.col("win_seek") - pl.col("win_avoid")})
                .with_columns(pl.col("card_id").replace_strict(printed, return_dtype=pl.Int64).alias("printed_cost"))
                .with_columns((pl.col("printed_cost") + pl.col("cost_change")).alias("cost")))
    rows = []
    for (card_id, players, *field), deals in per_deal.group_by(*cell, maintain_order=True):
        costs = np.sort(deals["cost"].unique().to_numpy())
        if len(costs) < 2:
            continue
        if deals["diff"].n_unique() < 2:  # the same difference in every deal (a tiny run): no line to fit
            found, slope = Crossing(math.nan, math.nan, math.nan, math.nan, False), 0.0
        else:
            result = fit(deals, "cost", "diff")
            found, slope = crossing(result, 0.0, costs), float(result.params[1])
        rows.append({"card_id": card_id, "players": players, "printed_cost": printed[card_id],
                     "costs": ", ".join(str(int(c)) for c in costs), "n": deals["game"].n_unique(),
                     "fair_cost": found.value, "fair_low": found.low, "fair_high": found.high,
                     "gap": found.value - printed[card_id], "slope": slope,
                     "slope_p": found.slope_p, "extrapolated": found.extrapolated,
                     **({"field": field[0]} if field else {})})
    schema = {"card_id": pl.String, "players": pl.Int8, "printed_cost": pl.Int64, "costs": pl.String, "n": pl.Int64,
              "fair_cost": pl.Float64, "fair_low": pl.Float64, "fair_high": pl.Float64, "gap": pl.Float64,
              "slope": pl.Float64, "slope_p": pl.Float64, "extrapolated": pl.Boolean,
              **({"field": pl.String} if len(cell) > 2 else {})}
    out = pl.DataFrame(rows, schema=schema).join(_printed(components).select("card_id", "epoch"), on="card_id",
                                                 how="left")
    return (out.with_columns(pl.col("gap").abs().fill_nan(None).alias("_size"))
            .sort(["_size", "card_id"], descending=[True, False], nulls_last=True).drop("_size"))


def gap_text(r: dict) -> str:
    """A row's fair cost in words: 'fair at 4.3 [3.1, 5.6]', or why there is none."""
    if not math.isfinite(r["slope_p"]):
        return "no crossing (the difference does not move with the cost)"
    if not math.isfinite(r["fair_cost"]):
        return f"no crossing (slope p = {r['slope_p']:.2g})"
    return (f"{r['fair_cost']:.1f} [{r['fair_low']:.1f}, {r['fair_high']:.1f}]"
            + (" extrapolated" if r["extrapolated"] else ""))

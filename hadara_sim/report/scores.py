"""Where the points come from: the mean score sheet per group split into the parts a breakdown
stacks (each purple bonus out of the line that holds it), and the score trajectory (the running
total after each epoch, and how often the leader after an epoch goes on to win)."""

from __future__ import annotations

import numbers
from typing import Sequence

import numpy as np
import polars as pl

from ..constants import EPOCHS
from ..problems import is_whole
from ..results import EXTRA_POINTS, SHEET_COLUMNS
from .dataset import ReportError, group_columns
from .estimates import mean_ci, mean_cis

# Score sheet lines split into the parts stacked in the breakdown: a purple bonus part is taken
# out of the line that contains it, so the stack still sums to `total`.
BONUS_OF = {"statues": ("patron_points",), "silver": ("silver_full_points",),
            "gold": ("set_collector_points", "wildcard_points")}
PART_LABELS = {
    "colonies": "colonies", "statues": "statues", "patron_points": "statue_patron bonus",
    "silver": "silver medals", "silver_full_points": "silver_full bonus",
    "gold": "gold medals", "set_collector_points": "set_collector bonus",
    "wildcard_points": "gold_wildcard bonus", "cards": "card points", "coins": "coins",
}
STACK_ORDER = ("colonies", "statues", "patron_points", "silver", "silver_full_points", "gold",
               "set_collector_points", "wildcard_points", "cards", "coins")
BONUS_PARTS = tuple(EXTRA_POINTS)


def score_parts(df: pl.DataFrame) -> pl.DataFrame:
    """The stack parts as columns: bonus parts split out of the sheet lines that contain them."""
    exprs = []
    for line in SHEET_COLUMNS:
        bonus = BONUS_OF.get(line, ())
        e = pl.col(line).cast(pl.Int32)
        for b in bonus:
            e = e - pl.col(b).cast(pl.Int32)
        exprs.append(e.alias(f"part_{line}"))
    exprs += [pl.col(b).cast(pl.Int32).alias(f"part_{b}") for b in BONUS_PARTS]
    return df.with_columns(exprs)


def score_breakdown(df: pl.DataFrame, by: Sequence[str] | None = None) -> pl.DataFrame:
    """Mean score sheet per group, long format: one row per group and part (the stack order of
    STACK_ORDER, then `total`), with n, mean and its 95% CI. Bonus parts (purple effects) are
    separate rows and are not counted in their sheet line's row, so the parts sum to the total.
    Without `by`, the groups of `report breakdown` (`dataset.default_groups`)."""
    by = group_columns(df, "breakdown", by)
    order = (*STACK_ORDER, "total")
    means = mean_cis(score_parts(df), ["total" if part == "total" else f"part_{part}" for part in order], by)
    out = pl.concat([s.with_columns(pl.lit(part).alias("part"), pl.lit(PART_LABELS.get(part, part)).alias("label"),
                                    pl.lit(k).alias("order"), pl.lit(part in BONUS_PARTS).alias("bonus"))
                     for k, (part, s) in enumerate(zip(order, means))])
    return out.sort([*by, "order"]) if by else out.sort("order")


# --- trajectory -------------------------------------------------------------------------------

def running_scores(df: pl.DataFrame, by: Sequence[str] | None = None) -> pl.DataFrame:
    """Mean running total at the end of each epoch per group, with 95% CI: by, epoch, n, mean, ...
    Without `by`, the groups of `report trajectory` (`dataset.default_groups`)."""
    by = group_columns(df, "trajectory", by)
    frames = [s.with_columns(pl.lit(e).cast(pl.Int8).alias("epoch"))
              for e, s in zip(EPOCHS, mean_cis(df, [f"total_epoch{e}" for e in EPOCHS], by))]
    out = pl.concat(frames)
    return out.sort([*by, "epoch"])


def leader_wins(df: pl.DataFrame, epochs: Sequence[int] = (1, 2), by: Sequence[str] = ("players",)) -> pl.DataFrame:
    """How often the leader after an epoch goes on to win.

    Per game, the leaders after epoch e are the seats with the highest running total; the outcome
    is the win share they end up with (1 when the leader wins alone, 0 when someone else wins).
    `chance` is what leaders would get if the lead meant nothing (leaders / players). Columns: by,
    epoch, n (deals), rows (games), mean, ci_low, ci_high, fair (= chance), diff, ..., p."""
    by = group_columns(df, "trajectory", by)
    given = epochs
    epochs = [epochs] if isinstance(epochs, numbers.Integral) else list(epochs) \
        if isinstance(epochs, (list, tuple, range, np.ndarray)) else []
    if not epochs or any(not is_whole(e) or e not in EPOCHS for e in epochs):
        raise ReportError(f"epochs are the epochs after which the leader is taken, some of 1, 2 and 3, not {given!r:.40}")
    epochs = [int(e) for e in epochs]
    seats = df.group_by(["combo", "game"]).agg(pl.len().alias("seats"), pl.col("players").first())
    partial = seats.filter(pl.col("seats") != pl.col("players")).height
    if partial:  # a frame filtered to some seats: its only seat would always "lead"
        raise ReportError(f"{partial:,} of the {seats.height:,} games hold only some of their seats: who leads "
                          "needs every seat of a game (filter by game, combination or players, not by seat or policy)")
    frames = []
    for e in epochs:
        col = f"total_epoch{e}"
        # the leaders marked over each game first: filtered inside the aggregation they took 2 GB of a card-worth run
        lead = (pl.col(col) == pl.col(col).max().over(["combo", "game"])).alias("_lead")
        g = (df.with_columns(lead).group_by(["combo", "game"])
             .agg(*[pl.col(b).first() for b in by if b not in ("combo", "game")],
                  (pl.col("win_share") * pl.col("_lead")).sum().alias("leader_share"),
                  pl.col("_lead").sum().alias("leaders"), pl.col("players").first().alias("_players")))
        g = g.with_columns((pl.col("leaders") / pl.col("_players").cast(pl.Float64)).alias("chance"))
        frames.append(mean_ci(g, "leader_share", by, fair="chance", rate=True)
                      .with_columns(pl.lit(e).cast(pl.Int8).alias("epoch")))
    out = pl.concat(frames)
    return out.select(*by, "epoch", *[c for c in out.columns if c not in (*by, "epoch")]).sort([*by, "epoch"])

"""Who wins: the win share per group, per seat and of each epoch's first player against the fair
share 1/P, and each value of a swept key against its first value, paired on the deal (estimates with
their 95% CIs, tests and corrected verdicts, from `estimates`)."""

from __future__ import annotations

from typing import Sequence

import polars as pl

from ..constants import EPOCHS
from . import inference as I
from .dataset import (SETUP_SWEEPS, analysed_sweeps, check_columns, combination_by, fmt_value, group_columns,
                      polars_frame)
from .estimates import CLUSTER, mean_ci, paired_diff
from .verdict import with_verdicts


def win_rates(df: pl.DataFrame, by: Sequence[str] | None = None, margin: float = I.MARGIN) -> pl.DataFrame:
    """Win share per group (1 = a sole win, 1/k for a k-way tie) with its 95% CI and sample size,
    against the fair share 1/players: `fair`, `diff` (= mean - fair) with its CI, and `p`. Without
    `by`, the groups of `report winrate` (`dataset.default_groups`)."""
    by = group_columns(df, "winrate", by)
    out = mean_ci(df, "win_share", by, fair=1.0 / pl.col("players").cast(pl.Float64), rate=True, margin=margin)
    whole = whole_games(df, by)
    out = out.join(whole, on=by, how="left", maintain_order="left", nulls_equal=True) if by else \
        out.join(whole, how="cross")
    # every seat of each game: the shares add up to 1, the rate is 1/P whatever was played, and no
    # test says anything of it (a mirror by policy was called "fair within ±2 pp" with a CI)
    return out.with_columns(pl.when(pl.col("whole")).then(None).otherwise(pl.col(c)).alias(c) for c in ("p", "equiv_p"))


def whole_games(df: pl.DataFrame, by: Sequence[str]) -> pl.DataFrame:
    """Per group of `by`, `whole`: whether it holds every seat of each of its games, whose win share is
    then 1/P by construction."""
    game = [c for c in ("combo", CLUSTER) if c in df.columns]
    seats = df.group_by([*by, *game]).agg(pl.len().alias("_seats"), pl.col("players").first().alias("_players"))
    full = (pl.col("_seats") == pl.col("_players").cast(pl.UInt32)).all().alias("whole")
    return seats.group_by(by).agg(full) if by else seats.select(full)


def seat_rates(df: pl.DataFrame, margin: float = I.MARGIN) -> pl.DataFrame:
    """Win share per seat (0 = the seat the game starts from) for every player count and
    combination (pooled over the cells of a setup grid), against 1/P, corrected over the table."""
    check_columns(df, "winrate", ["seat"])
    out = mean_ci(df, "win_share", [*combination_by(df, skip=SETUP_SWEEPS), "seat"],
                  fair=1.0 / pl.col("players").cast(pl.Float64), rate=True, margin=margin)
    return with_verdicts(out, margin=margin)


def first_player_rates(df: pl.DataFrame, margin: float = I.MARGIN) -> pl.DataFrame:
    """The first player of each epoch: their win share per player count and combination, against
    1/P, with verdicts corrected over the table. Columns: epoch, players, ..., as `mean_ci`."""
    check_columns(df, "winrate", [f"first_player_epoch{e}" for e in EPOCHS])
    by = combination_by(df, skip=SETUP_SWEEPS)
    frames = [mean_ci(df.filter(pl.col(f"first_player_epoch{e}")), "win_share", by,
                      fair=1.0 / pl.col("players").cast(pl.Float64), rate=True, margin=margin)
              .with_columns(pl.lit(e).cast(pl.Int8).alias("epoch")) for e in EPOCHS]
    out = pl.concat(frames)
    out = out.select("epoch", *[c for c in out.columns if c != "epoch"]).sort(["epoch", *by])
    return with_verdicts(out, margin=margin)


def sweep_contrasts(df: pl.DataFrame, margin: float = I.MARGIN) -> dict[str, pl.DataFrame]:
    """Every value of each swept key (but the player count, the setup grid and grants, which have
    their own reports) against the key's first value, paired on the deal: per deal, the win share
    of the seats of each policy (by its place in the policy list, so a swept parameter keeps its
    policy) under the value minus under the first value, on the same deal and the same values of
    the other swept keys; verdicts corrected over each key's table. Needs two or more policies
    (with one policy on every seat the seats always share 1/P). Key -> table with the key's
    column, policy_index, policy (label under the value), other swept keys, n, rows, a, b, diff,
    low, high, p, ..., verdict, and `first` (the value compared against)."""
    polars_frame(df)
    if "policy_index" not in df.columns or df["policy_index"].n_unique() < 2:
        return {}
    skip = ("sweep_players", *analysed_sweeps(df))
    keys = [c for c in df.columns if c.startswith("sweep_") and c not in skip and df[c].n_unique() > 1]
    out = {}
    for key in keys:
        others = [c for c in combination_by(df) if c != key and c not in skip and c in df.columns]
        first = df.sort("combo")[key][0]
        per_deal = (df.group_by([key, *others, "policy_index", CLUSTER])
                    .agg(pl.col("win_share").mean(), pl.col("policy_label").first()))
        base = per_deal.filter(pl.col(key) == first).select(
            *others, "policy_index", CLUSTER, pl.col("win_share").alias("win_first"))
        pairs = (per_deal.filter(pl.col(key) != first)
                 .join(base, on=[*others, "policy_index", CLUSTER], how="inner"))
        if pairs.height == 0:
            continue
        by = [key, *others, "policy_index"]
        table = with_verdicts(paired_diff(pairs, "win_share", "win_first", by, margin=margin), margin=margin)
        labels = pairs.group_by(by).agg(pl.col("policy_label").first().alias("policy"))
        out[key] = (table.join(labels, on=by, how="left", maintain_order="left")
                    .with_columns(pl.lit(fmt_value(first)).alias("first")))
    return out

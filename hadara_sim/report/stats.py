"""The statistics of the reports: pure functions from a results DataFrame (polars) to small polars
DataFrames of estimates, each with its sample size and a 95% confidence interval.

Every interval and test comes from scipy (`ttest_1samp`, `ttest_rel`, their `confidence_interval`
and `false_discovery_control`); nothing here computes a standard error by hand.

The unit of analysis is the **deal** (`game`): rows of a group that come from the same deal
(several seats of one game, or one deal played under several combinations) are not independent, so
they are averaged into one value per deal first, and the t-test runs over deals. `n` is therefore
the number of deals; `rows` the number of seats played. Where a group holds one row per deal (a
policy in a rotated run, the focus seat of a setup grid), the two are the same thing.
"""

from __future__ import annotations

import json
import math
import warnings
from typing import Iterable, Sequence

import numpy as np
import polars as pl
from scipy import stats as sps

from .. import provenance
from ..constants import COLOURS, EFFECT_IDS, EPOCHS, PURPLE
from ..results import EXTRA_POINTS, SHEET_COLUMNS
from ..swept_key import sweep_column_name
from . import inference as I

LEVEL = 0.95
ALPHA = 1 - LEVEL
CLUSTER = "game"

# --by aliases: what the user types -> the columns grouped on.
BY_ALIASES: dict[str, tuple[str, ...]] = {
    "policy": ("policy_label",),
    "seat": ("seat",),
    "setup": ("setup_card", "setup_side"),
    "card": ("setup_card",),
    "side": ("setup_side",),
    "players": ("players",),
    "game-kind": ("advanced",),
}

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

# What each report needs from the dataset.
REQUIRED: dict[str, tuple[str, ...]] = {
    "winrate": ("game", "players", "win_share"),
    "breakdown": ("game", "players", "total", *SHEET_COLUMNS, *EXTRA_POINTS),
    "setup-cards": ("game", "players", "setup_card", "setup_side", "win_share", "total"),
    "purple": ("game", "seat", "players", "advanced", "combo", "win_share", "total", "granted",
               *(f"effect_{e}" for e in EFFECT_IDS)),
    "trajectory": ("game", "combo", "players", "policy_label", "win_share",
                   *(f"total_epoch{e}" for e in EPOCHS)),
    "cards": ("combo", "game", "seat", "players", "win_share", "total", "granted", "bought", "bought_in_b",
              "sold", "fed_away", "offered", *(f"colony_tile{k}" for k in range(1, 6)),
              *(f"colony_level{k}" for k in range(1, 6)), *(f"statue{k}" for k in range(1, 5))),
}
SIMULATE_HINT = ("rerun the scenario with this version of hadara-sim: "
                 "`hadara-sim simulate SCENARIO --out DIR` (add --overwrite to replace the old directory)")


class ReportError(ValueError):
    """A dataset a report cannot be made from (missing columns, no rows, an unknown --by)."""


# --- checks -----------------------------------------------------------------------------------

def check_columns(df: pl.DataFrame, report: str, extra: Iterable[str] = ()) -> None:
    """Raise ReportError naming every column `report` needs that `df` lacks."""
    needed = [*REQUIRED[report], *extra]
    missing = [c for c in dict.fromkeys(needed) if c not in df.columns]
    if missing:
        raise ReportError(f"the dataset lacks {len(missing)} column{'s' * (len(missing) > 1)} that "
                          f"`report {report}` needs: {', '.join(missing)}. It was probably written by an "
                          f"older hadara-sim (or is not a results dataset); {SIMULATE_HINT}")
    if df.height == 0:
        raise ReportError("the dataset has no rows (did the run play any chunk?); "
                          "run `hadara-sim simulate SCENARIO --out DIR` to complete it")


def resolve_by(df: pl.DataFrame, by: Sequence[str] | str | None, default: Sequence[str] = ("policy",)) -> list[str]:
    """The columns behind --by values: aliases (policy, seat, setup, players, ...), column names,
    or swept keys without their `sweep_` prefix; comma-separated values are split."""
    items: list[str] = []
    for item in ([by] if isinstance(by, str) else list(by or default)):
        items += [p.strip() for p in str(item).split(",") if p.strip()]
    columns: list[str] = []
    for item in items:
        if item in BY_ALIASES and all(c in df.columns for c in BY_ALIASES[item]):
            found = list(BY_ALIASES[item])
        elif item in df.columns:
            found = [item]
        elif f"sweep_{item}" in df.columns:
            found = [f"sweep_{item}"]
        elif sweep_column_name(item) in df.columns:  # a dotted swept key: components.setup.3B.culture
            found = [sweep_column_name(item)]
        elif item.replace("-", "_") in df.columns:
            found = [item.replace("-", "_")]
        else:
            sweeps = [c for c in df.columns if c.startswith("sweep_")]
            raise ReportError(f"cannot group by '{item}': it is neither an alias "
                              f"({', '.join(BY_ALIASES)}) nor a column of the dataset"
                              + (f" (swept keys: {', '.join(sweeps)})" if sweeps else "")
                              + "; see docs/results.md for the columns")
        columns += [c for c in found if c not in columns]
    return columns


def analysed_sweeps(df: pl.DataFrame) -> tuple[str, ...]:
    """Swept keys that a report of their own analyses (setup grid, grants)."""
    return (*SETUP_SWEEPS, *filter(None, [grant_sweep_column(df)]))


def default_by(df: pl.DataFrame, sweeps: bool = False) -> list[str]:
    """Group by policy, and by player count when the dataset mixes several; with `sweeps`, also by
    every swept key but those the setup-card and purple reports analyse (setup grid, grants)."""
    cols = ["policy_label"]
    if "players" in df.columns and df["players"].n_unique() > 1:
        cols.append("players")
    if sweeps:
        skip = ("sweep_players", *analysed_sweeps(df))
        cols += [c for c in df.columns if c.startswith("sweep_") and c not in skip and df[c].n_unique() > 1]
    return cols


# --- the core estimators ----------------------------------------------------------------------

def _ttest_1samp(x: np.ndarray):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        res = sps.ttest_1samp(x, 0.0)
        low, high = res.confidence_interval(LEVEL)
    return float(low), float(high)


def _ttest_rel(a: np.ndarray, b: np.ndarray):
    """Paired t-test of a - b: (p, low, high); p is NaN for fewer than 2 pairs or no variance
    (p = 0 when every difference is the same non-zero number)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        res = sps.ttest_rel(a, b)
        low, high = res.confidence_interval(LEVEL)
    return float(res.pvalue), float(low), float(high)


def _grouped(df: pl.DataFrame, by: Sequence[str]) -> tuple[pl.DataFrame, list[str]]:
    if by:
        return df, list(by)
    return df.with_columns(pl.lit("all").alias("_all")), ["_all"]


def mean_ci(df: pl.DataFrame, value: str | pl.Expr, by: Sequence[str] = (), *, fair: str | pl.Expr | None = None,
            cluster: str = CLUSTER, rate: bool = False, margin: float = I.MARGIN) -> pl.DataFrame:
    """Mean of `value` per group with its 95% confidence interval, over deals.

    Rows of one group and one `cluster` value (deal) are averaged first. A plain mean gets the t
    interval of the deal means (`scipy.stats.ttest_1samp(...).confidence_interval`). With `rate`
    (a share in [0, 1]) the interval is Wilson's (statsmodels), with the effective sample size
    of the clustered seats (`inference.rate_interval`): never of zero width, never outside [0, 1].

    With `fair` (a column or expression: the value expected by chance, e.g. 1 / players), also
    `fair` (its mean), `diff` (mean - fair) with its interval, `p` (against fair: the score test
    for a rate with one fair value, else the paired t-test of the deal means against the deal's
    fair value), `equiv_p` (TOST: |diff| < margin) and `sd` (of the per-deal differences) with
    `needed`, the deals a 95% CI of ±1 pp needs.

    Returns `by` columns, n (deals), rows (seats), mean, ci_low, ci_high [, fair, diff, diff_low,
    diff_high, p, equiv_p, sd, needed], sorted by `by`.
    """
    expr = pl.col(value) if isinstance(value, str) else value
    data, keys = _grouped(df, by)
    aggs = [expr.cast(pl.Float64).mean().alias("_x"), pl.len().alias("_rows")]
    if fair is not None:
        fexpr = pl.col(fair) if isinstance(fair, str) else fair
        aggs.append(fexpr.cast(pl.Float64).mean().alias("_f"))
    per_deal = data.group_by([*keys, cluster]).agg(aggs).sort([*keys, cluster])
    groups = (per_deal.group_by(keys, maintain_order=True)
              .agg(pl.col("_x"), pl.col("_rows").sum().alias("rows"), pl.len().alias("n"),
                   *([pl.col("_f")] if fair is not None else [])))
    extra = ("fair", "diff", "diff_low", "diff_high", "p", "equiv_p", "sd", "needed")
    out: dict[str, list] = {k: groups[k].to_list() for k in keys}
    out.update(n=groups["n"].to_list(), rows=groups["rows"].to_list(), mean=[], ci_low=[], ci_high=[])
    if fair is not None:
        out.update({k: [] for k in extra})
    for i, xs in enumerate(groups["_x"].to_list()):
        x = np.asarray(xs, dtype=float)
        rows = int(groups["rows"][i])
        low, high = I.rate_interval(x, rows) if rate else _ttest_1samp(x)
        out["mean"].append(float(x.mean()))
        out["ci_low"].append(low)
        out["ci_high"].append(high)
        if fair is not None:
            f = np.asarray(groups["_f"][i].to_list(), dtype=float)
            one_fair = rate and len(f) and float(f.min()) == float(f.max())
            if one_fair:
                p, dlow, dhigh = I.rate_p(x, float(f[0]), rows), low - f[0], high - f[0]
            else:
                p, dlow, dhigh = _ttest_rel(x, f)
            sd = float((x - f).std(ddof=1)) if len(x) > 1 else math.nan
            for k, v in zip(extra, (f.mean(), (x - f).mean(), dlow, dhigh, p, I.equivalence_p(x, f, margin),
                                    sd, I.games_needed(sd))):
                out[k].append(float(v))
    schema = {k: groups.schema[k] for k in keys}
    schema.update(n=pl.Int64, rows=pl.Int64, mean=pl.Float64, ci_low=pl.Float64, ci_high=pl.Float64)
    if fair is not None:
        schema.update({k: pl.Float64 for k in extra})
    result = pl.DataFrame(out, schema=schema)
    if not by:
        result = result.drop("_all")
    else:
        result = result.sort(list(by), nulls_last=True)
    return result


def with_verdicts(table: pl.DataFrame, p: str = "p", equiv_p: str = "equiv_p", diff: str = "diff",
                  margin: float = I.MARGIN, method: str = I.CORRECTION, prefix: str = "") -> pl.DataFrame:
    """A table with its corrected p-values and verdicts: `{prefix}q` (the difference, corrected over
    the table by `method`), `{prefix}q_equiv` (the TOST, Holm over the table: the "fair" words are
    controlled family-wise, `inference.EQUIVALENCE_CORRECTION`), `{prefix}significant` (q < 0.05)
    and `{prefix}verdict` (stronger / weaker / fair within ±margin / undecided)."""
    q = I.adjust(table[p], method)
    qe = (I.adjust(table[equiv_p], I.EQUIVALENCE_CORRECTION) if equiv_p in table.columns
          else np.full(table.height, np.nan))
    verdicts = [I.verdict(d if d is not None else math.nan, a, b, margin)
                for d, a, b in zip(table[diff].to_list(), q, qe)]
    return table.with_columns(pl.Series(f"{prefix}q", q), pl.Series(f"{prefix}q_equiv", qe),
                              pl.Series(f"{prefix}significant", np.nan_to_num(q, nan=1.0) < ALPHA),
                              pl.Series(f"{prefix}verdict", verdicts, dtype=pl.String))


def paired_diff(pairs: pl.DataFrame, a: str, b: str, by: Sequence[str] = (), cluster: str = CLUSTER,
                prefix: str = "", margin: float = I.MARGIN) -> pl.DataFrame:
    """Paired difference a - b per group: pairs of one deal are averaged first, then
    `scipy.stats.ttest_rel(a, b)` over deals gives the p-value and `confidence_interval(0.95)`;
    the paired TOST (statsmodels) whether |a - b| < margin; `sd` of the per-deal differences and
    `needed`, the deals a 95% CI of ±1 pp needs.

    Returns `by`, n (deals), rows (pairs), {prefix}a, {prefix}b, {prefix}diff, {prefix}low,
    {prefix}high, {prefix}p, {prefix}equiv_p, {prefix}sd, {prefix}needed.
    """
    data, keys = _grouped(pairs, by)
    per_deal = (data.group_by([*keys, cluster])
                .agg(pl.col(a).cast(pl.Float64).mean().alias("_a"), pl.col(b).cast(pl.Float64).mean().alias("_b"),
                     pl.len().alias("_rows"))
                .sort([*keys, cluster]))
    groups = (per_deal.group_by(keys, maintain_order=True)
              .agg(pl.col("_a"), pl.col("_b"), pl.len().alias("n"), pl.col("_rows").sum().alias("rows")))
    names = [f"{prefix}{s}" for s in ("a", "b", "diff", "low", "high", "p", "equiv_p", "sd", "needed")]
    out: dict[str, list] = {k: groups[k].to_list() for k in keys}
    out.update(n=groups["n"].to_list(), rows=groups["rows"].to_list(), **{n: [] for n in names})
    for xa, xb in zip(groups["_a"].to_list(), groups["_b"].to_list()):
        va, vb = np.asarray(xa, dtype=float), np.asarray(xb, dtype=float)
        p, low, high = _ttest_rel(va, vb)
        sd = float((va - vb).std(ddof=1)) if len(va) > 1 else math.nan
        for name, v in zip(names, (va.mean(), vb.mean(), (va - vb).mean(), low, high, p,
                                   I.equivalence_p(va, vb, margin), sd, I.games_needed(sd))):
            out[name].append(float(v))
    schema = {k: groups.schema[k] for k in keys}
    schema.update(n=pl.Int64, rows=pl.Int64, **{n: pl.Float64 for n in names})
    result = pl.DataFrame(out, schema=schema)
    if not by:
        return result.drop("_all")
    return result.sort(list(by), nulls_last=True)


def significance(p: pl.Series | Sequence[float], method: str = I.CORRECTION) -> pl.Series:
    """Adjusted p-values of a table (Benjamini-Hochberg by default, statsmodels `multipletests`)
    of its finite p-values; NaN stays NaN."""
    return pl.Series("q", I.adjust(p, method))


# --- the reports ------------------------------------------------------------------------------

def win_rates(df: pl.DataFrame, by: Sequence[str] = ("policy_label",), margin: float = I.MARGIN) -> pl.DataFrame:
    """Win share per group (1 = a sole win, 1/k for a k-way tie) with its 95% CI and sample size,
    against the fair share 1/players: `fair`, `diff` (= mean - fair) with its CI, and `p`."""
    check_columns(df, "winrate", by)
    return mean_ci(df, "win_share", by, fair=1.0 / pl.col("players").cast(pl.Float64), rate=True, margin=margin)


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


def score_breakdown(df: pl.DataFrame, by: Sequence[str] = ("policy_label",)) -> pl.DataFrame:
    """Mean score sheet per group, long format: one row per group and part (the stack order of
    STACK_ORDER, then `total`), with n, mean and its 95% CI. Bonus parts (purple effects) are
    separate rows and are not counted in their sheet line's row, so the parts sum to the total."""
    check_columns(df, "breakdown", by)
    parts = score_parts(df)
    frames = []
    for k, part in enumerate((*STACK_ORDER, "total")):
        column = "total" if part == "total" else f"part_{part}"
        s = mean_ci(parts, column, by).with_columns(
            pl.lit(part).alias("part"), pl.lit(PART_LABELS.get(part, part)).alias("label"),
            pl.lit(k).alias("order"), pl.lit(part in BONUS_PARTS).alias("bonus"))
        frames.append(s)
    out = pl.concat(frames)
    return out.sort([*by, "order"]) if by else out.sort("order")


SETUP_SWEEPS = ("sweep_setup_card", "sweep_setup_side", "sweep_setup_focus_seat")


def focus_seat_expr(df: pl.DataFrame) -> pl.Expr:
    """The focus seat of each row's game in a setup grid: `setup.focus_seat` of the combination
    ("rotate": game mod players); in datasets from before it was recorded, the seat holding the
    grid's card, else seat 0."""
    if "sweep_setup_focus_seat" in df.columns:
        focus = pl.col("sweep_setup_focus_seat").cast(pl.String)
        rotated = (pl.col("game") % pl.col("players").cast(pl.Int64)).cast(pl.String)
        return pl.when(focus == "rotate").then(rotated).otherwise(focus).cast(pl.Int64)
    if "sweep_setup_card" in df.columns:
        holder = pl.col("setup_card") == pl.col("sweep_setup_card")
        return pl.col("seat").filter(holder).first().over(["combo", "game"]).cast(pl.Int64)
    return pl.lit(0, pl.Int64)


def setup_rows(df: pl.DataFrame) -> tuple[pl.DataFrame, str]:
    """The rows a setup-card study uses, and its design.

    A setup grid (a `setup.card` or `setup.side` sweep) is an experiment: only the focus seat's
    rows, with a `focus_seat` column. Otherwise, the cards are as dealt and the sides as the
    policies chose: every row, an observational comparison."""
    if "sweep_setup_card" in df.columns or "sweep_setup_side" in df.columns:
        rows = df.with_columns(focus_seat_expr(df).alias("focus_seat"))
        return rows.filter(pl.col("seat") == pl.col("focus_seat")), "experimental"
    return df, "observational"


def _grid_by(rows: pl.DataFrame) -> list[str]:
    """Swept keys besides the grid (and the player count) that split a setup study."""
    return [c for c in rows.columns if c.startswith("sweep_") and c not in SETUP_SWEEPS
            and c != "sweep_players" and rows[c].n_unique() > 1]


def setup_card_balance(df: pl.DataFrame, margin: float = I.MARGIN) -> pl.DataFrame:
    """Win share and mean score per player count, setup card (initiative) and side, with a verdict
    against the fair share 1/P and, in a setup grid, a relative contrast.

    The verdict is absolute: the focus seat's win share with the cell's card and side against 1/P
    (Wilson interval, score test, TOST within ±margin). In a setup grid (experimental) the focus seat
    rotates over the seats with the deal, so seat effects cancel and 1/P is the reference a designer
    means by "fair". The grid also gives the relative contrast, paired: the cell against the mean of
    every cell of the grid on the same deal and seat ("the average side"), with verdicts of its own
    words (`rel_verdict`: above / below / level with the average side). That mean sits below 1/P
    when the other seats choose their sides and the focus seat is forced, so the two can disagree.
    Without a grid (observational) there is no relative contrast.

    Columns: players, [other swept keys], setup_card, setup_side, n, rows, win, win_low, win_high,
    fair (1/P), diff (win - 1/P), diff_low, diff_high, p, equiv_p, sd, needed (deals for ±1 pp), q,
    q_equiv, significant, verdict, more (deals an undecided verdict needs), [rel_diff, rel_low,
    rel_high, rel_p, rel_equiv_p, rel_q, rel_q_equiv, rel_significant, rel_verdict: the grid
    contrast], score, score_low, score_high, design ("experimental" or "observational")."""
    check_columns(df, "setup-cards")
    rows, design = setup_rows(df)
    if rows.height == 0:
        raise ReportError("no rows of the focus seat of a setup grid cell")
    by = ["players", *_grid_by(rows), "setup_card", "setup_side"]
    fair = 1.0 / pl.col("players").cast(pl.Float64)
    win = mean_ci(rows, "win_share", by, fair=fair, rate=True, margin=margin)
    out = with_verdicts(win.rename({"mean": "win", "ci_low": "win_low", "ci_high": "win_high"}), margin=margin)
    out = out.with_columns(pl.Series("more", [I.deals_to_decide(sd, d, n, margin) if v == "undecided" else math.nan
                                              for sd, d, n, v in out.select("sd", "diff", "n", "verdict").iter_rows()],
                                     dtype=pl.Float64))
    if design == "experimental":
        deal = [c for c in by if c not in ("setup_card", "setup_side")] + [CLUSTER]
        grid = rows.with_columns(pl.col("win_share").mean().over(deal).alias("_grid"))
        contrast = with_verdicts(paired_diff(grid, "win_share", "_grid", by, prefix="rel_", margin=margin),
                                 p="rel_p", equiv_p="rel_equiv_p", diff="rel_diff", margin=margin, prefix="rel_")
        contrast = contrast.select(*by, "rel_diff", "rel_low", "rel_high", "rel_p", "rel_equiv_p", "rel_q",
                                   "rel_q_equiv", "rel_significant",
                                   pl.col("rel_verdict").map_elements(lambda v: I.relative_verdict(v, margin),
                                                                      return_dtype=pl.String))
        out = out.join(contrast, on=by, how="left", maintain_order="left")
    score = mean_ci(rows, "total", by).select(
        *by, pl.col("mean").alias("score"), pl.col("ci_low").alias("score_low"),
        pl.col("ci_high").alias("score_high"))
    return out.join(score, on=by, how="left", maintain_order="left").with_columns(pl.lit(design).alias("design"))


def setup_side_pairs(df: pl.DataFrame) -> pl.DataFrame | None:
    """The focus seat's win share with side B and with side A of each card on each deal (columns
    players, [swept keys], setup_card, game, A, B), or None without a setup grid over sides."""
    rows, design = setup_rows(df)
    if design != "experimental" or "sweep_setup_side" not in rows.columns:
        return None
    keys = ["players", *_grid_by(rows), "setup_card", CLUSTER]
    wide = (rows.group_by([*keys, "setup_side"]).agg(pl.col("win_share").mean())
            .pivot(on="setup_side", index=keys, values="win_share"))
    if not {"A", "B"} <= set(wide.columns):
        return None
    if "combo" in rows.columns:  # the order the fields were swept in (a ladder's order)
        wide = wide.join(rows.group_by(keys).agg(pl.col("combo").min()), on=keys, how="left")
    return wide.drop_nulls(["A", "B"])


def setup_side_contrasts(df: pl.DataFrame, margin: float = I.MARGIN) -> pl.DataFrame | None:
    """Side B against side A of each card for the focus seat, paired on the deal (a setup grid over
    sides; None otherwise): a relative contrast. Columns: players, [swept keys], setup_card, n,
    rows, a (side B), b (side A), diff, low, high, p, equiv_p, sd, needed, q, q_equiv, significant,
    verdict."""
    wide = setup_side_pairs(df)
    if wide is None:
        return None
    by = [c for c in wide.columns if c not in (CLUSTER, "A", "B", "combo")]
    return with_verdicts(paired_diff(wide, "B", "A", by, margin=margin), margin=margin)


def setup_card_contrasts(df: pl.DataFrame, margin: float = I.MARGIN) -> pl.DataFrame | None:
    """Every setup card against every other for the focus seat, both sides averaged, paired on
    the deal (a setup grid over cards; None otherwise). Columns: players, [swept keys], card,
    other, n, rows, a, b, diff (card minus other), low, high, p, ..., verdict."""
    rows, design = setup_rows(df)
    if design != "experimental" or "sweep_setup_card" not in rows.columns:
        return None
    keys = ["players", *_grid_by(rows), CLUSTER]
    per_card = rows.group_by([*keys, "setup_card"]).agg(pl.col("win_share").mean())
    pairs = (per_card.join(per_card, on=keys, suffix="_other")
             .filter(pl.col("setup_card") < pl.col("setup_card_other"))
             .rename({"setup_card": "card", "setup_card_other": "other"}))
    if pairs.height == 0:
        return None
    out = paired_diff(pairs, "win_share", "win_share_other", [*keys[:-1], "card", "other"], margin=margin)
    return with_verdicts(out, margin=margin)


def focus_seat_rates(df: pl.DataFrame, margin: float = I.MARGIN) -> pl.DataFrame | None:
    """The focus seat's win share over the whole grid, per player count and focus seat, against
    1/P: the seat's own advantage inside the grid (None without a grid)."""
    rows, design = setup_rows(df)
    if design != "experimental":
        return None
    out = mean_ci(rows, "win_share", ["players", *_grid_by(rows), "focus_seat"],
                  fair=1.0 / pl.col("players").cast(pl.Float64), rate=True, margin=margin)
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


# --- robustness to the opponent field -----------------------------------------------------------

FIELD_KEYS = ("policies", "seats")


def field_columns(df: pl.DataFrame) -> list[str]:
    """The swept keys that change the opponent field (`policies`, `seats`, or a key inside them such
    as `policies.0.params.coin`) with two or more values in `df`."""
    return [c for c in df.columns if c.startswith(tuple(f"sweep_{k}" for k in FIELD_KEYS)) and df[c].n_unique() > 1]


def field_label(value) -> str:
    """A field value as a short label: a list of policies as their labels in results joined with
    '+' (`["balanced"]` -> "balanced", `[{"policy": "search", "params": {"budget": 2}}]` ->
    "search(budget=2)"), anything else as `fmt_value` shows it."""
    from ..scenario.policies import policy_label

    try:
        parsed = json.loads(value) if isinstance(value, str) else value
    except ValueError:
        parsed = value
    if not isinstance(parsed, list) or not parsed:
        return fmt_value(value)
    names = [p if isinstance(p, str) else p.get("label") or policy_label(p.get("policy", "?"), p.get("params") or {})
             for p in parsed if isinstance(p, (str, dict))]
    return "+".join(names) if len(names) == len(parsed) else fmt_value(value)


def _field_label_expr(fields: Sequence[str]) -> pl.Expr:
    """One label per opponent field from its swept columns (`field_label` for a whole policy list)."""
    whole = tuple(f"sweep_{k}" for k in FIELD_KEYS)  # a whole list of policies; else one key inside it
    return pl.concat_str([pl.col(f).map_elements(field_label if f in whole else
                                                 lambda v, k=f[len("sweep_"):]: f"{k}={fmt_value(v)}",
                                                 return_dtype=pl.String) for f in fields], separator=", ")


def field_count(df: pl.DataFrame, fields: Sequence[str]) -> int:
    """How many opponent fields a run played (1 when no field key was swept)."""
    return df.select(fields).n_unique() if fields else 1


def field_robustness(pairs: pl.DataFrame, a: str, b: str, cell: Sequence[str], fields: Sequence[str],
                     margin: float = I.MARGIN, steps: bool = False) -> pl.DataFrame | None:
    """Whether each effect of a report table depends on the opponent field (None with fewer than two
    fields), judged on the effects, not on their verdicts.

    `pairs` holds the rows of the table's contrast (the effect of a row is a - b: a cell's win share
    minus 1/P, side B minus side A, a granted seat minus its control), with `cell` (the table's
    groups but the field), the `fields` columns and the deal. Every field plays the same deals, so
    the effect under each field is compared with the effect under the first field paired on the deal:
    per deal, (a - b) under the field minus (a - b) under the first, `scipy.stats.ttest_rel` over
    deals and the paired TOST within ±margin. Over the table's comparisons, the differences are
    corrected by Holm and the TOSTs by Holm, so each word is controlled family-wise at 5 %: a table
    of identical fields says "depends on the bots" in at most 5 % of tables.

    One row per cell: `cell`, `effect <field>` per field (mean of a - b), per field after the first
    `difference <field>`, `low <field>`, `high <field>`, `q <field>`, `q_equiv <field>` (that field
    minus the first), `fields` and `robust`: "robust" when every field's difference is equivalent to
    zero, "depends on the bots" when one differs significantly (and is not equivalent), else
    "undecided".

    With `steps`, a ladder: each field is compared with the one before it in the order swept (a
    strength ladder lists the weakest first), the columns are named as above, and `robust` says
    whether the effect has settled by the last, strongest field: "settled" when the last step is
    equivalent to zero, "still moving" when it differs from zero, else "undecided"."""
    if not fields or pairs.select(fields).n_unique() < 2:
        return None
    labelled = pairs.with_columns(_field_label_expr(fields).alias("_field"))
    names = (labelled.group_by("_field").agg(pl.col("combo").min()).sort(["combo", "_field"])["_field"].to_list()
             if "combo" in pairs.columns else sorted(labelled["_field"].unique().to_list()))
    per_deal = (labelled.group_by([*cell, "_field", CLUSTER])
                .agg((pl.col(a).cast(pl.Float64) - pl.col(b).cast(pl.Float64)).mean().alias("_effect")))
    first, rest = names[0], names[1:]
    effects = (per_deal.group_by([*cell, "_field"]).agg(pl.col("_effect").mean())
               .pivot(on="_field", index=list(cell), values="_effect"))
    out = effects.select(*cell, *[pl.col(n).alias(f"effect {n}") for n in names if n in effects.columns])
    tables = []
    for before, name in zip(names if steps else [first] * len(rest), rest):
        base = per_deal.filter(pl.col("_field") == before).select(*cell, CLUSTER, pl.col("_effect").alias("_first"))
        joined = (per_deal.filter(pl.col("_field") == name).join(base, on=[*cell, CLUSTER], how="inner"))
        if joined.height:
            tables.append(paired_diff(joined, "_effect", "_first", cell, margin=margin)
                          .with_columns(pl.lit(name).alias("_field")))
    if not tables:
        return None
    long = pl.concat(tables)
    long = long.with_columns(pl.Series("q", I.adjust(long["p"], "holm")),
                             pl.Series("q_equiv", I.adjust(long["equiv_p"], "holm")))
    long = long.with_columns(pl.Series("_word", [I.robustness_word(q, e) for q, e in
                                                 zip(long["q"].to_list(), long["q_equiv"].to_list())]))
    for name in rest:
        part = long.filter(pl.col("_field") == name).select(
            *cell, *[pl.col(c).alias(f"{c.replace('diff', 'difference')} {name}")
                     for c in ("diff", "low", "high", "q", "q_equiv")])
        out = out.join(part, on=list(cell), how="left", maintain_order="left")
    if steps:
        last = {"robust": "settled", "depends on the bots": "still moving", "undecided": "undecided"}
        words = long.filter(pl.col("_field") == rest[-1]).select(
            *cell, pl.col("_word").replace_strict(last, return_dtype=pl.String).alias("robust"))
        out = out.join(words, on=list(cell), how="left", maintain_order="left")
        return (out.with_columns(pl.lit(len(names)).alias("fields"), pl.col("robust").fill_null("undecided"))
                .sort(list(cell), nulls_last=True))
    words = long.group_by(list(cell)).agg(pl.col("_word"), pl.len().alias("_compared"))
    word = (pl.when(pl.col("_compared") < len(rest)).then(pl.lit("undecided"))
            .when(pl.col("_word").list.eval(pl.element() == "robust").list.all()).then(pl.lit("robust"))
            .when(pl.col("_word").list.contains("depends on the bots")).then(pl.lit("depends on the bots"))
            .otherwise(pl.lit("undecided")))
    out = (out.join(words.select(*cell, word.alias("robust")), on=list(cell), how="left", maintain_order="left")
           .with_columns(pl.lit(len(names)).alias("fields"), pl.col("robust").fill_null("undecided")))
    return out.sort(list(cell), nulls_last=True)


def setup_field_pairs(df: pl.DataFrame) -> tuple[pl.DataFrame, str, str]:
    """The setup grid's cells as pairs for `field_robustness`: the focus seat's win share and 1/P."""
    rows, _ = setup_rows(df)
    return rows.with_columns((1.0 / pl.col("players").cast(pl.Float64)).alias("_fair")), "win_share", "_fair"


# --- seats and turn order ---------------------------------------------------------------------

def combination_by(df: pl.DataFrame, skip: Sequence[str] = ()) -> list[str]:
    """The player count and every swept key with several values (but `skip`): the columns that
    keep the combinations of a run apart."""
    cols = ["players"]
    cols += [c for c in df.columns if c.startswith("sweep_") and c != "sweep_players" and c not in skip
             and df[c].n_unique() > 1]
    return cols


def _varies(df: pl.DataFrame, column: str) -> bool:
    return column in df.columns and df[column].n_unique() > 1


def pooled_over(df: pl.DataFrame, by: Sequence[str]) -> list[str]:
    """Swept keys (and the player count) with several values that a grouping by `by` pools over."""
    cols = [c for c in combination_by(df) if c not in by and _varies(df, c)]
    if "players" in cols and "sweep_players" in by:
        cols.remove("players")
    return cols


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


# --- purple effects ---------------------------------------------------------------------------

def grant_sweep_column(df: pl.DataFrame) -> str | None:
    """The `sweep_*` column of a sweep over grants, if the dataset has one."""
    cols = [c for c in df.columns if c.startswith("sweep_grants")]
    return cols[0] if cols else None


def grant_control(df: pl.DataFrame, column: str) -> object:
    """The grant-sweep value that grants nothing (the control, "none"), or ReportError."""
    per_value = (df.group_by(column).agg(pl.col("granted").is_not_null().any().alias("grants"))
                 .filter(~pl.col("grants")))
    values = per_value[column].to_list()
    if not values:
        raise ReportError(f"the grant sweep ({column}) has no control: no value of it grants nothing. "
                          "Add \"none\" to the scenario's grants sweep and rerun `hadara-sim simulate`")
    if len(values) > 1:
        values.sort(key=lambda v: (v != "none", str(v)))
    return values[0]


def _grant_sweep(df: pl.DataFrame):
    """(grant column, its control value, the other sweep columns, the pairing keys), or None."""
    check_columns(df, "purple")
    column = grant_sweep_column(df)
    if column is None:
        return None
    others = [c for c in df.columns if c.startswith("sweep_") and c != column]
    return column, grant_control(df, column), others, ["game", "seat", "players", "advanced", *others]


def _paired_grants(pairs: pl.DataFrame, by: list[str], margin: float = I.MARGIN) -> pl.DataFrame:
    """Paired differences of win share and total (granted minus its comparison) per `by` group, with
    each group's `epoch` and `control`, corrected over the table (`win_q`, `win_verdict`, ...),
    largest win-share gain first."""
    win = with_verdicts(paired_diff(pairs, "win_share", "win_control", by, prefix="win_", margin=margin),
                        p="win_p", equiv_p="win_equiv_p", diff="win_diff", margin=margin, prefix="win_")
    score = paired_diff(pairs, "total", "total_control", by, prefix="score_").drop("n", "rows")
    extra = pairs.group_by(by).agg(pl.col("epoch").min(), pl.col("control").first())
    return (win.join(score, on=by, how="left", maintain_order="left")
            .join(extra, on=by, how="left", maintain_order="left")
            .sort("win_diff", descending=True))


def grant_pairs(df: pl.DataFrame) -> pl.DataFrame | None:
    """Each granted seat's row beside the same seat of the same deal in the control combination (and
    the same values of every other swept key): grant, the pairing keys, win_share, total, epoch,
    win_control, total_control, control, and the granted row's combo (the order swept). None without
    a grant sweep."""
    sweep = _grant_sweep(df)
    if sweep is None:
        return None
    column, control, others, keys = sweep
    treat = (df.filter((pl.col(column) != control) & pl.col("granted").is_not_null())
             .select(*keys, pl.col(column).alias("grant"), "win_share", "total",
                     pl.col("granted_epoch").alias("epoch"), *[c for c in ("combo",) if c in df.columns]))
    ctrl = (df.filter(pl.col(column) == control)
            .select(*keys, pl.col("win_share").alias("win_control"), pl.col("total").alias("total_control"),
                    pl.lit(str(control)).alias("control")))
    pairs = treat.join(ctrl, on=keys, how="inner")
    if pairs.height == 0:
        raise ReportError(f"the grant sweep ({column}) has no granted seat that pairs with a seat of the "
                          f"control '{control}' on the same deal; check the scenario's sweep")
    return pairs


def _sweeps_of(pairs: pl.DataFrame) -> list[str]:
    return [c for c in pairs.columns if c.startswith("sweep_")]


def grant_effects(df: pl.DataFrame, margin: float = I.MARGIN) -> pl.DataFrame | None:
    """What each granted card is worth, from a grant sweep (None when there is none): a relative
    contrast, the granted seat against the same seat of the same deal in the control combination.

    The paired differences of win share and of total score, `ttest_rel` over deals. Columns: grant
    (the swept value), the other sweep columns, n (deals), rows, win_a (granted), win_b (control),
    win_diff, win_low, win_high, win_p, win_q, win_verdict, ..., score_a, score_b, score_diff,
    score_low, score_high, score_p, epoch (of the grant), control."""
    pairs = grant_pairs(df)
    return None if pairs is None else grant_table(pairs, margin)


def grant_table(pairs: pl.DataFrame, margin: float = I.MARGIN) -> pl.DataFrame:
    """The grant table (columns as `grant_effects`) of pairs from `grant_pairs` or `placebo_pairs`."""
    return _paired_grants(pairs, ["grant", *_sweeps_of(pairs)], margin)


def _component_set(components):
    """A ComponentSet from a set, a directory (the run's `--components`) or None (the shipped set);
    the shipped set when the run's directory can no longer be read."""
    from ..components import ComponentError, ComponentSet
    from ..component_files import load_components

    if isinstance(components, ComponentSet):
        return components
    try:
        return load_components(components)
    except (ComponentError, OSError):
        return load_components()


def _grant_kinds(df: pl.DataFrame, column: str, control, components=None) -> tuple[dict, dict, list[str]]:
    """Each granted value of the sweep as an effect (value -> epoch), a placebo (value -> epoch: a
    plain purple card, given by id, at the start of its own epoch), or refused (with the reason).
    `components`: the run's component set (a ComponentSet or its directory; None: the shipped one)."""
    c = _component_set(components)
    effects, placebos, refused = {}, {}, []
    per_value = (df.filter((pl.col(column) != control) & pl.col("granted").is_not_null())
                 .group_by(column).agg(pl.col("granted").first(), pl.col("granted_epoch").first()))
    for value, granted, epoch in per_value.sort(column).iter_rows():
        name = str(value)
        card_id = str(granted).split(",")[0]
        card = c.cards[c.card_index[card_id]] if card_id in c.card_index else None
        if "," in str(granted) or card is None:
            refused.append(f"'{name}' is not a placebo: it grants {granted}, not one card of the component set")
        elif card.effect:
            effects[name] = int(epoch)
        elif card.colour != PURPLE:
            refused.append(f"'{name}' is not a placebo: {card.id} is a {COLOURS[card.colour]} card; a placebo "
                           "is a plain purple card (no effect) of the effect's epoch")
        elif int(epoch) != card.epoch:
            refused.append(f"'{name}' is not a placebo: {card.id} is an epoch {card.epoch} card granted at the "
                           f"start of epoch {epoch}; grant it in its own epoch")
        else:
            placebos[name] = card.epoch
    return effects, placebos, refused


def _placebo_pairs(df: pl.DataFrame, components=None):
    """(the granted rows of every value with its kind, the placebo mean per deal and seat, refused
    values, pairing keys), or None without a grant sweep."""
    sweep = _grant_sweep(df)
    if sweep is None:
        return None
    column, control, others, keys = sweep
    effects, placebos, refused = _grant_kinds(df, column, control, components)
    granted = (df.filter(pl.col(column).cast(pl.String).is_in([*effects, *placebos]) & pl.col("granted").is_not_null())
               .select(*keys, pl.col(column).cast(pl.String).alias("grant"), "win_share", "total",
                       pl.col("granted_epoch").cast(pl.Int8).alias("epoch"),
                       *[c for c in ("combo",) if c in df.columns]))  # the order swept (a ladder's)
    plain = granted.filter(pl.col("grant").is_in(list(placebos)))
    mean = (plain.group_by([*keys, "epoch"])
            .agg(pl.col("win_share").mean().alias("win_control"), pl.col("total").mean().alias("total_control"),
                 pl.len().alias("placebos")))
    return granted, plain, mean, effects, refused, keys, others


def placebo_pairs(df: pl.DataFrame, components=None) -> tuple[pl.DataFrame | None, list[str]]:
    """Each effect card's granted row beside the placebo mean of the same deal and seat (columns as
    `grant_pairs`), and the grants refused as placebos (with the reason)."""
    found = _placebo_pairs(df, components)
    if found is None:
        return None, []
    granted, _, mean, effects, refused, keys, others = found
    pairs = (granted.filter(pl.col("grant").is_in(list(effects)))
             .join(mean, on=[*keys, "epoch"], how="inner")
             .with_columns(pl.format("mean of {} plain epoch {} cards", "placebos", "epoch").alias("control")))
    return (pairs if pairs.height else None), refused


def placebo_effects(df: pl.DataFrame, components=None, margin: float = I.MARGIN) -> tuple[pl.DataFrame | None, list[str]]:
    """Each effect card against the plain purple cards of its epoch (the placebo), and the grants
    refused as placebos (with the reason).

    A granted card brings its effect and also one more purple card (sets, the colour discount). The
    placebo is the average, on the same deal and seat, over every plain purple card of the epoch
    granted in the sweep (by card id, in its own epoch); anything else given by id is refused, not
    taken as a placebo. The difference is the effect card's worth against a typical plain purple
    card. Columns as `grant_effects`, with `control` naming how many plain cards the mean takes."""
    pairs, refused = placebo_pairs(df, components)
    return (None if pairs is None else grant_table(pairs, margin)), refused


def placebo_spread(df: pl.DataFrame, components=None, margin: float = I.MARGIN) -> pl.DataFrame | None:
    """Each plain purple card against the mean of the plain cards of its epoch, paired on the deal
    and seat: how much the placebos differ among themselves (None without placebos)."""
    found = _placebo_pairs(df, components)
    if found is None:
        return None
    _, plain, mean, _, _, keys, others = found
    if plain.height == 0 or mean["placebos"].max() < 2:
        return None
    pairs = plain.join(mean, on=[*keys, "epoch"], how="inner").with_columns(pl.lit("plain mean").alias("control"))
    return _paired_grants(pairs, ["grant", *others], margin).sort(["epoch", "win_diff"], descending=[False, True])


def card_grant_pairs(df: pl.DataFrame, components=None) -> tuple[pl.DataFrame | None, list[str]]:
    """Each granted card's row beside the mean, on the same deal and seat, of every card of the
    same colour and epoch granted at the same epoch in the sweep (the card's placebo: an average
    card of its kind); the values refused (several cards, or alone in their group) with the reason.
    Columns as `grant_pairs`, `control` naming the group."""
    sweep = _grant_sweep(df)
    if sweep is None:
        return None, []
    column, control, _, keys = sweep
    c = _component_set(components)
    per_value = (df.filter((pl.col(column) != control) & pl.col("granted").is_not_null())
                 .group_by(pl.col(column).cast(pl.String).alias("grant")).agg(pl.col("granted").first()))
    kind, refused = {}, []
    for value, granted in per_value.sort("grant").iter_rows():
        card = c.cards[c.card_index[granted]] if granted in c.card_index else None
        if card is None:
            refused.append(f"'{value}' grants {granted}, not one card of the component set")
        else:
            kind[value] = f"{COLOURS[card.colour]} epoch {card.epoch}"
    rows = (df.filter(pl.col(column).cast(pl.String).is_in(list(kind)) & pl.col("granted").is_not_null())
            .select(*keys, pl.col(column).cast(pl.String).alias("grant"), "win_share", "total",
                    pl.col("granted_epoch").cast(pl.Int8).alias("epoch"))
            .with_columns(pl.col("grant").replace_strict(kind).alias("kind")))
    group = [*keys, "kind", "epoch"]
    mean = rows.group_by(group).agg(pl.col("win_share").mean().alias("win_control"),
                                    pl.col("total").mean().alias("total_control"), pl.len().alias("cards"))
    pairs = (rows.join(mean, on=group, how="inner").filter(pl.col("cards") >= 2)
             .with_columns(pl.format("mean of {} {} cards", "cards", "kind").alias("control")))
    alone = sorted(set(kind) - set(pairs["grant"].unique().to_list()))
    refused += [f"'{v}' is the only {kind[v]} card granted at its epoch: nothing to compare it with" for v in alone]
    return (pairs if pairs.height else None), refused


def owner_effects(df: pl.DataFrame) -> pl.DataFrame | None:
    """Observational: seats that own a purple effect at the end (`effect_<id>` > 0) against the
    other seats of the same game, in games without grants (None when no seat owns any effect).

    For each game with an owner, the owner's win share and total against the mean of the
    non-owners of that game; games of one deal are averaged, then `ttest_rel` over deals. This
    compares players who chose (and kept) the card with those who did not: it is not the effect of
    the card. Columns: effect, [players], n (deals), rows (games), owned (share of games in which
    some seat owns it), win_a (owner), win_b (others), win_diff/low/high/p, score_a/b/diff/low/high/p."""
    check_columns(df, "purple")
    base = df.filter(~pl.col("granted").is_not_null().any().over(["combo", "game"]))
    if base.height == 0:
        return None
    by_players = base["players"].n_unique() > 1
    games_at = dict(base.group_by("players").agg(pl.struct("combo", "game").n_unique().alias("g")).iter_rows())
    by = ["players"] if by_players else []
    aggs = [pl.col("players").first(), pl.len().alias("_seats")]
    for effect in EFFECT_IDS:
        own = pl.col(f"effect_{effect}") > 0
        aggs += [own.sum().alias(f"{effect}|owners"),
                 pl.col("win_share").filter(own).mean().alias(f"{effect}|win_own"),
                 pl.col("win_share").filter(~own).mean().alias(f"{effect}|win_other"),
                 pl.col("total").filter(own).mean().alias(f"{effect}|total_own"),
                 pl.col("total").filter(~own).mean().alias(f"{effect}|total_other")]
    per_game = base.group_by(["combo", "game"]).agg(aggs)  # one pass for every effect
    frames = []
    for effect in EFFECT_IDS:
        owners = pl.col(f"{effect}|owners")
        g = (per_game.filter((owners > 0) & (owners < pl.col("_seats")))
             .select("combo", "game", "players",
                     *[pl.col(f"{effect}|{k}").alias(k) for k in ("win_own", "win_other", "total_own", "total_other")]))
        if g.height == 0:
            continue
        win = paired_diff(g, "win_own", "win_other", by, prefix="win_")
        score = paired_diff(g, "total_own", "total_other", by, prefix="score_").drop("n", "rows")
        part = win.join(score, on=by, how="left") if by else pl.concat([win, score], how="horizontal")
        owned = (g.group_by("players").len().with_columns(
            (pl.col("len") / pl.col("players").replace_strict(games_at, return_dtype=pl.Float64)).alias("owned")))
        if by:
            part = part.join(owned.select("players", "owned"), on="players", how="left")
        else:
            part = part.with_columns(pl.lit(owned["owned"][0]).alias("owned"))
        frames.append(part.with_columns(pl.lit(effect).alias("effect")))
    if not frames:
        return None
    out = pl.concat(frames, how="diagonal_relaxed")
    first = ["effect", *(["players"] if by_players else [])]
    return out.select(*first, *[c for c in out.columns if c not in first]).sort("win_diff", descending=True)


# --- trajectory -------------------------------------------------------------------------------

def running_scores(df: pl.DataFrame, by: Sequence[str] = ("policy_label",)) -> pl.DataFrame:
    """Mean running total at the end of each epoch per group, with 95% CI: by, epoch, n, mean, ..."""
    check_columns(df, "trajectory", by)
    frames = [mean_ci(df, f"total_epoch{e}", by).with_columns(pl.lit(e).cast(pl.Int8).alias("epoch"))
              for e in EPOCHS]
    out = pl.concat(frames)
    return out.sort([*by, "epoch"])


def leader_wins(df: pl.DataFrame, epochs: Sequence[int] = (1, 2), by: Sequence[str] = ("players",)) -> pl.DataFrame:
    """How often the leader after an epoch goes on to win.

    Per game, the leaders after epoch e are the seats with the highest running total; the outcome
    is the win share they end up with (1 when the leader wins alone, 0 when someone else wins).
    `chance` is what leaders would get if the lead meant nothing (leaders / players). Columns: by,
    epoch, n (deals), rows (games), mean, ci_low, ci_high, fair (= chance), diff, ..., p."""
    check_columns(df, "trajectory", by)
    frames = []
    for e in epochs:
        col = f"total_epoch{e}"
        lead = pl.col(col) == pl.col(col).max()
        g = (df.group_by(["combo", "game"])
             .agg(*[pl.col(b).first() for b in by if b not in ("combo", "game")],
                  pl.col("win_share").filter(lead).sum().alias("leader_share"),
                  lead.sum().alias("leaders"), pl.col("players").first().alias("_players")))
        g = g.with_columns((pl.col("leaders") / pl.col("_players").cast(pl.Float64)).alias("chance"))
        frames.append(mean_ci(g, "leader_share", by, fair="chance", rate=True)
                      .with_columns(pl.lit(e).cast(pl.Int8).alias("epoch")))
    out = pl.concat(frames)
    return out.select(*by, "epoch", *[c for c in out.columns if c not in (*by, "epoch")]).sort([*by, "epoch"])


# --- dataset facts ----------------------------------------------------------------------------

def dataset_info(df: pl.DataFrame, meta: dict | None = None) -> dict:
    """Name, description and size of a dataset, for titles and the summary."""
    meta = meta or {}
    scenario = meta.get("scenario", {}) or {}
    info = {
        "scenario": scenario.get("name") or "unnamed dataset",
        "description": scenario.get("description") or (scenario.get("parsed") or {}).get("description") or "",
        "rows": df.height,
        "deals": df["game"].n_unique() if "game" in df.columns else 0,
        "games": df.select(pl.struct("combo", "game").n_unique()).item()
        if {"combo", "game"} <= set(df.columns) and df.height else 0,
        "combinations": df["combo"].n_unique() if "combo" in df.columns else 0,
        "players": sorted(df["players"].unique().to_list()) if "players" in df.columns else [],
        "policies": sorted(df["policy_label"].unique().to_list()) if "policy_label" in df.columns else [],
        "advanced": sorted(df["advanced"].unique().to_list()) if "advanced" in df.columns else [],
        "sweeps": [c for c in df.columns if c.startswith("sweep_")],
        "seed": meta.get("seed"),
        "schema_version": meta.get("schema_version"),
        "package_version": meta.get("package_version"),
        "status": meta.get("status"),
        "finished": meta.get("finished"),
        "provenance": provenance.of_run(meta),
        "components_path": (meta.get("components") or {}).get("path"),
    }
    return info


def fmt_value(value) -> str:
    """A group value for labels: None as "none", floats trimmed, JSON kept."""
    if value is None:
        return "none"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, dict)):
        return json.dumps(value)
    return str(value)


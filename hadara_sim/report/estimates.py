"""Estimates over a results table: the mean of a column per group with its 95% confidence
interval (and, against a fair value, its difference, tests and the deals a narrower interval needs),
and paired differences. Every report's numbers come from these; `inference` holds the intervals, tests
and corrections they apply to per-deal values, and `verdict` turns them into a table's verdicts.
A share of games or of takers (`shares_by`) has its Wilson interval clustered on the deal.

Every interval and test comes from scipy (`ttest_1samp`, `ttest_rel` and their
`confidence_interval`) or statsmodels (`inference`); nothing here computes a standard error by hand.

The unit of analysis is the **deal** (`game`): rows of a group that come from the same deal
(several seats of one game, or one deal played under several combinations) are not independent, so
they are averaged into one value per deal first, and the t-test runs over deals. `n` is therefore
the number of deals; `rows` the number of seats played. Where a group holds one row per deal (a
policy in a rotated run, the focus seat of a setup grid), the two are the same thing.
"""

from __future__ import annotations

import difflib
import math
import numbers
import warnings
from typing import Sequence

import numpy as np
import polars as pl

from . import inference as I
from .dataset import ReportError, polars_frame
from .verdict import with_verdicts  # noqa: F401  (its old home: callers outside the reports import it here)

CLUSTER = "game"


def _ttest_1samp(x: np.ndarray):
    """The 95% t interval of the mean of `x`: (low, high); NaN for fewer than 2 values, and for values
    without spread, which bound nothing unseen (a bonus no deal scored was 0.0 [0.0, 0.0]), as `_ttest_rel`."""
    from scipy.stats import ttest_1samp

    if I.no_spread(x):
        return math.nan, math.nan
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        res = ttest_1samp(x, 0.0)
        low, high = res.confidence_interval(I.LEVEL)
    return float(low), float(high)


def _ttest_rel(a: np.ndarray, b: np.ndarray):
    """Paired t-test of a - b: (p, low, high), NaN for fewer than 2 pairs. A difference of shares lies
    in [-w, w] (`inference.share_width`: 1 for win shares), and so does its interval (3 deals gave
    [-158.4, +91.7] pp); pairs of shares that all differ by the same amount get
    `inference.no_spread_interval` and its test, not the t test's zero width and p = 0 (3 deals all won
    by one side were "<0.001"); other values without spread have neither."""
    from scipy.stats import ttest_rel

    width = I.share_width(a, b)
    if len(a) > 1 and I.no_spread(a - b):
        if not math.isfinite(width):
            return math.nan, math.nan, math.nan
        c = float(np.mean(a - b))
        return (I.no_spread_p(c, len(a), width), *I.no_spread_interval(c, len(a), width))
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        res = ttest_rel(a, b)
        low, high = res.confidence_interval(I.LEVEL)
    if math.isfinite(width):
        low, high = np.clip((low, high), -width, width)  # NaN (one pair) stays NaN
    return float(res.pvalue), float(low), float(high)


def _grouped(df: pl.DataFrame, by: Sequence[str] | str, values: Sequence = (),
             cluster: str = CLUSTER) -> tuple[pl.DataFrame, list[str]]:
    """`df` and the keys to group it on: `by` (a name or names), or one group of every row ("_all")
    without `by`; a ReportError naming a group or value column `df` lacks, or values that are no numbers
    (from Python these stopped inside polars, and a name given alone was grouped letter by letter)."""
    polars_frame(df)
    if by is None or not isinstance(by, (str, Sequence)):
        raise TypeError(f"by is a column name or a list of them (empty for one group), not {by!r:.40}")
    by = [by] if isinstance(by, str) else list(by)
    for value in values:
        if not isinstance(value, (str, pl.Expr)):
            raise TypeError(f"a value is a column name or a polars expression, not {type(value).__name__} {value!r:.40}")
    for name in [*by, cluster]:
        if not isinstance(name, str):
            raise TypeError(f"by and cluster name columns, not {type(name).__name__} {name!r:.40}")
    for name in [*by, *(v for v in values if isinstance(v, str)), cluster]:
        if name not in df.columns:
            close = difflib.get_close_matches(name, df.columns, n=1)
            raise ReportError(f"no column '{name}' in the frame" + (f" (did you mean {close[0]}?)" if close else ""))
    for name in (v for v in values if isinstance(v, str)):
        dtype = df.schema[name]
        if not (dtype.is_numeric() or dtype == pl.Boolean):
            raise ReportError(f"column '{name}' holds {dtype}, not numbers: a mean or a difference needs numbers")
    if by:
        return df, by
    # a whole number: group_means sorts those in numpy (a text took polars' sort, 9 s of a card-worth run's summary)
    return df.with_columns(pl.lit(0, pl.Int8).alias("_all")), ["_all"]


def mean_ci(df: pl.DataFrame, value: str | pl.Expr, by: Sequence[str] = (), *, fair: str | pl.Expr | None = None,
            cluster: str = CLUSTER, rate: bool = False, margin: float = I.MARGIN) -> pl.DataFrame:
    """Mean of `value` per group with its 95% confidence interval, over deals (`mean_cis` of one value).

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
    return mean_cis(df, [value], by, fair=fair, cluster=cluster, rate=rate, margin=margin)[0]


def mean_cis(df: pl.DataFrame, values: Sequence[str | pl.Expr], by: Sequence[str] = (), *,
             fair: str | pl.Expr | None = None, cluster: str = CLUSTER, rate: bool = False,
             margin: float = I.MARGIN) -> list[pl.DataFrame]:
    """`mean_ci` of each of `values` over the same groups, in order: the per-deal means of every value
    are taken once (the slow part on a large table: a card-worth run's score sheet took them 11 times)."""
    if not isinstance(rate, bool):
        raise TypeError(f"rate is True (a share in [0, 1]) or False, not {rate!r:.40}")
    if rate:
        margin = I.check_margin(margin)
    if isinstance(fair, numbers.Real) and not isinstance(fair, bool):
        fair = pl.lit(float(fair))  # one fair value for every row, such as 0.25
    data, keys = _grouped(df, by, [*values, *([fair] if fair is not None else [])], cluster)
    exprs = {f"_x{j}": pl.col(v) if isinstance(v, str) else v for j, v in enumerate(values)}
    fexpr = (pl.col(fair) if isinstance(fair, str) else fair) if fair is not None else None
    per_deal = group_means(data, [*keys, cluster], {**exprs, **({"_f": fexpr} if fair is not None else {})},
                           rows="_rows")  # sorted by keys and cluster, each deal's mean in a fixed order
    groups = (per_deal.group_by(keys, maintain_order=True)
              .agg(*exprs, pl.col("_rows").sum().alias("rows"), pl.len().alias("n"),
                   *([pl.col("_f")] if fair is not None else [])))
    return [_mean_table(groups, name, keys, by, fair is not None, rate, margin) for name in exprs]


def _mean_table(groups: pl.DataFrame, name: str, keys: list[str], by: Sequence[str], fair: bool, rate: bool,
                margin: float) -> pl.DataFrame:
    """`mean_ci`'s table of one value from the per-deal means of each group (`groups`: keys, the value's
    deal means `name`, rows, n and with `fair` the deals' fair values `_f`)."""
    extra = ("fair", "diff", "diff_low", "diff_high", "p", "equiv_p", "sd", "needed")
    out: dict[str, list] = {k: groups[k].to_list() for k in keys}
    out.update(n=groups["n"].to_list(), rows=groups["rows"].to_list(), mean=[], ci_low=[], ci_high=[])
    if fair:
        out.update({k: [] for k in extra})
    for i, xs in enumerate(groups[name].to_list()):
        x = np.asarray(xs, dtype=float)
        rows = int(groups["rows"][i])
        low, high = I.rate_interval(x, rows) if rate else _ttest_1samp(x)
        out["mean"].append(float(x.mean()))
        out["ci_low"].append(low)
        out["ci_high"].append(high)
        if fair:
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
    if fair:
        schema.update({k: pl.Float64 for k in extra})
    result = pl.DataFrame(out, schema=schema)
    if not by:
        result = result.drop("_all")
    else:
        result = result.sort(keys, nulls_last=True)
    return result


def paired_diff(pairs: pl.DataFrame, a: str, b: str, by: Sequence[str] = (), cluster: str = CLUSTER,
                prefix: str = "", margin: float | None = I.MARGIN) -> pl.DataFrame:
    """Paired difference a - b per group: pairs of one deal are averaged first, then
    `scipy.stats.ttest_rel(a, b)` over deals gives the p-value and `confidence_interval(0.95)`;
    the paired TOST (statsmodels) whether |a - b| < margin; `sd` of the per-deal differences and
    `needed`, the deals a 95% CI of ±1 pp needs. `margin=None` for values that are not shares (scores):
    equiv_p and needed are NaN, since a margin and ±1 pp of a share mean nothing in points.

    Returns `by`, n (deals), rows (pairs), {prefix}a, {prefix}b, {prefix}diff, {prefix}low,
    {prefix}high, {prefix}p, {prefix}equiv_p, {prefix}sd, {prefix}needed.
    """
    return paired_diffs(pairs, [(a, b, prefix, margin)], by, cluster)[0]


def paired_diffs(pairs: pl.DataFrame, contrasts: Sequence[tuple[str, str, str, float | None]], by: Sequence[str] = (),
                 cluster: str = CLUSTER) -> list[pl.DataFrame]:
    """`paired_diff` of each contrast (a, b, prefix, margin) of one table, in order: the per-deal
    means of every column are taken once (the slow part on a large table)."""
    if not all(isinstance(c, str) for a, b, _, _ in contrasts for c in (a, b)):
        raise TypeError("a and b name the two columns of a paired difference")
    columns = list(dict.fromkeys(c for a, b, _, _ in contrasts for c in (a, b)))
    data, keys = _grouped(pairs, by, columns, cluster)
    groups, per_deal = _deal_means(data, keys, cluster, columns)
    # per_deal is sorted by group, so each group's deals are one slice of its columns
    bounds = np.cumsum([0, *groups["n"].to_list()])
    values = {}
    for c, x in zip(columns, per_deal):
        values[c] = [x[i:j] for i, j in zip(bounds[:-1], bounds[1:])]
    schema = {k: groups.schema[k] for k in keys}
    schema.update(n=pl.Int64, rows=pl.Int64)
    tables = []
    for a, b, prefix, margin in contrasts:
        names = [f"{prefix}{s}" for s in ("a", "b", "diff", "low", "high", "p", "equiv_p", "sd", "needed")]
        out: dict[str, list] = {k: groups[k].to_list() for k in keys}
        out.update(n=groups["n"].to_list(), rows=groups["rows"].to_list(), **{n: [] for n in names})
        for va, vb in zip(values[a], values[b]):
            p, low, high = _ttest_rel(va, vb)
            sd = float((va - vb).std(ddof=1)) if len(va) > 1 else math.nan
            share = margin is not None
            for name, v in zip(names, (va.mean(), vb.mean(), (va - vb).mean(), low, high, p,
                                       I.equivalence_p(va, vb, margin) if share else math.nan, sd,
                                       I.games_needed(sd) if share else math.nan)):
                out[name].append(float(v))
        result = pl.DataFrame(out, schema={**schema, **{n: pl.Float64 for n in names}})
        tables.append(result.drop("_all") if not by else result.sort(keys, nulls_last=True))
    return tables


def _deal_means(data: pl.DataFrame, keys: list[str], cluster: str,
                columns: list[str]) -> tuple[pl.DataFrame, list[np.ndarray]]:
    """The groups of `keys` (`keys`, n: deals, rows: rows; sorted by `keys`) and per column the mean of
    each group's rows of one deal, sorted by `keys` and `cluster`: a polars group_by and sort. Where the
    keys and the cluster are integers without nulls (the cards, tiles and statues of `report cards`, a
    deal per game) the rows are sorted in numpy and, when no deal of a group holds two rows, each row is
    its own deal's mean, taken as it is: at 7.7 million rows of a 200,000-game run the group_by and sort
    took 17 s, the numpy sort 0.2 s. Deals of several rows are averaged by `group_means`, whose mean of
    a deal's rows does not depend on their order (a polars group_by's did)."""
    names = [*keys, cluster]
    if data.height and all(data.schema[k].is_integer() and data[k].null_count() == 0 for k in names):
        ids = [data[k].to_numpy() for k in names]
        order = np.lexsort(ids[::-1])  # by keys, then cluster; stable
        ids = [i[order] for i in ids]
        if len(_starts(ids, len(order))) == len(order):  # a row per group and deal: one value's mean is itself
            starts = _starts(ids[:-1], len(order))
            n = np.diff(np.r_[starts, len(order)])
            groups = data.select(keys)[order[starts]].with_columns(pl.Series("n", n, pl.UInt32),
                                                                   pl.Series("rows", n, pl.UInt32))
            return groups, [data[c].cast(pl.Float64).to_numpy()[order] for c in columns]
    per_deal = group_means(data, names, {f"_{i}": c for i, c in enumerate(columns)}, rows="_rows")
    groups = per_deal.group_by(keys, maintain_order=True).agg(pl.len().alias("n"), pl.col("_rows").sum().alias("rows"))
    return groups, [per_deal[f"_{i}"].to_numpy() for i in range(len(columns))]


def _starts(ids: list[np.ndarray], rows: int) -> np.ndarray:
    """The first row of each run of equal values of `ids` (sorted arrays of `rows` values; one run without)."""
    apart = np.zeros(rows, bool)
    apart[0] = True
    for i in ids:
        apart[1:] |= i[1:] != i[:-1]
    return np.flatnonzero(apart)


def _codes(column: pl.Series) -> np.ndarray:
    """A group column as whole numbers in its sorted order, a missing value last, for numpy to sort:
    polars' sort of the text keys of a card-worth run (5 million rows) took most of its summary's time."""
    if column.dtype.is_integer() and not column.null_count():
        return column.to_numpy()
    distinct = column.drop_nulls().unique().sort()  # a few values, however many rows: ranking the rows took 17 s
    return column.replace_strict(distinct, np.arange(len(distinct)), default=len(distinct),
                                 return_dtype=pl.Int64).to_numpy()


def group_means(frame: pl.DataFrame, keys: Sequence[str], values: dict[str, str | pl.Expr],
                rows: str | None = None) -> pl.DataFrame:
    """One row per group of `keys` (sorted by `keys`, a missing value last) with the mean of each of
    `values` (name: column or expression) over the group's rows, nulls skipped as polars' `mean` skips
    them (null where a group has none), and with `rows` the group's rows.

    Every report averages per group here, not with a polars group_by: polars sums a group's floats in
    an order that depends on its threads and on the order of the rows (the colony and statue rows of
    `report cards` on a setup-cards run differed in their last bits from one run to the next). Here a
    group's values are summed in numpy in ascending order, so that its mean depends only on the values,
    whatever the order of the rows, the threads or the chunks of the run."""
    keys = list(keys)
    data = frame.select(*keys, *[(pl.col(v) if isinstance(v, str) else v).cast(pl.Float64).alias(f"_v{i}")
                                 for i, v in enumerate(values.values())])
    if not data.height:
        return data.select(*keys, *[pl.col(f"_v{i}").alias(n) for i, n in enumerate(values)],
                           *([pl.lit(0, pl.UInt32).alias(rows)] if rows else [])).clear()
    ids = [_codes(data[k]) for k in keys]
    order = np.lexsort(ids[::-1]) if ids else np.arange(data.height)
    starts = _starts([i[order] for i in ids], len(order))
    segment = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, len(order)]))
    out = data.select(keys)[order[starts]]
    for i, name in enumerate(values):
        column = data[f"_v{i}"]
        x = column.fill_null(0.0).to_numpy()[order]  # a null adds 0.0 to the sum and is not counted
        counted = np.add.reduceat(column.is_not_null().to_numpy()[order].astype(np.int64), starts)
        x = x[np.lexsort((x, segment))]  # each group's values in ascending order: a fixed order of summation
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.add.reduceat(x, starts) / counted
        out = out.with_columns(pl.when(pl.Series(counted > 0)).then(pl.Series(mean)).alias(name))
    if rows:
        out = out.with_columns(pl.Series(rows, np.diff(np.r_[starts, len(order)]), pl.UInt32))
    return out


def significance(p: pl.Series | Sequence[float], method: str = I.CORRECTION) -> pl.Series:
    """Adjusted p-values of a table (Benjamini-Hochberg by default, statsmodels `multipletests`)
    of its finite p-values; NaN stays NaN."""
    return pl.Series("q", I.adjust(p, method))


# --- shares clustered on the deal -------------------------------------------------------------

def rate_intervals(hits: np.ndarray, trials: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per column of `hits` (deals, columns) and `trials` (the same, or (deals, 1) for one number of
    trials per deal), the 95 % Wilson interval of the pooled rate sum(hits) / sum(trials), clustered on
    the deal (`inference.ratio_interval`). NaN where a column has no trial."""
    trials = np.broadcast_to(trials, hits.shape)
    low, high = np.full(hits.shape[1], np.nan), np.full(hits.shape[1], np.nan)
    # each column's deals side by side: a column of a (200,000 deals, 162 cards) matrix read in place
    # one card at a time cost 8 s of report cards; the values are the same
    columns = np.ascontiguousarray(hits.T)
    one = trials.shape[1] > 0 and trials.strides[1] == 0  # one number of trials per deal, broadcast
    each = np.ascontiguousarray(trials[:, 0]) if one else np.ascontiguousarray(trials.T)
    for j in np.flatnonzero(trials.sum(axis=0) > 0):
        low[j], high[j] = I.ratio_interval(columns[j], each if each.ndim == 1 else each[j])
    return low, high


def shares_by(hits: pl.DataFrame, games: pl.DataFrame | None, key: str, name: str) -> pl.DataFrame:
    """Per value of `key` in `hits`: `name`, the share of trials that are hits, with its 95 % Wilson
    interval clustered on the deal (`{name}_low`, `{name}_high`; `rate_intervals`: the games of one deal
    in several combinations count once). `hits` holds rows of the games (`combo`, `game` and `key`).
    With `games` (`combo`, `game`: one row per game), a trial is a game and a hit a game with a row of
    `hits` (the share of games in which some seat took it); with `games` None, every row of `hits` is
    a trial and its boolean `hit` column says whether it is a hit. The shares of `report cards` and
    the games owned of `report purple`."""
    deals = np.sort((hits if games is None else games)["game"].unique().to_numpy())
    keys = np.sort(hits[key].unique().to_numpy())
    if games is None:
        counted = hits.group_by("game", key).agg(pl.col("hit").cast(pl.Int64).sum().alias("hits"),
                                                 pl.len().alias("trials"))
        hit, tried = (_deal_matrix(counted, deals, key, keys, c) for c in ("hits", "trials"))
    else:
        counted = hits.select("combo", "game", key).unique().group_by("game", key).agg(pl.len().alias("hits"))
        hit = _deal_matrix(counted, deals, key, keys, "hits")
        tried = games.group_by("game").agg(pl.len()).sort("game")["len"].to_numpy()[:, None]
    low, high = rate_intervals(hit, tried)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = hit.sum(axis=0) / np.broadcast_to(tried, hit.shape).sum(axis=0)
    return pl.DataFrame({key: keys, name: share, f"{name}_low": low, f"{name}_high": high}).with_columns(
        pl.col(key).cast(hits.schema[key]))


def _deal_matrix(counted: pl.DataFrame, deals: np.ndarray, key: str, keys: np.ndarray, value: str) -> np.ndarray:
    """(deals, keys): `value` of each row of `counted` (one per deal `game` and `key`) at its place;
    0 elsewhere (`deals`, `keys` sorted)."""
    out = np.zeros((len(deals), len(keys)), np.int64)
    out[np.searchsorted(deals, counted["game"].to_numpy()), np.searchsorted(keys, counted[key].to_numpy())] = (
        counted[value].to_numpy())
    return out

"""Policy ratings from any dataset with two or more policies: a head-to-head matrix, finishing
positions and tie rates, and Bradley-Terry ratings with deal-clustered standard errors.

Every game contributes one comparison per pair of seats held by different policies: the seat
ranked higher beats the other (a tie counts half). Bradley-Terry models the chance that policy a
beats policy b as logistic(r_a - r_b); the ratings come from a binomial GLM (statsmodels) whose
standard errors are clustered on the deal, because the comparisons of one deal (several seat pairs,
several combinations) are not independent.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import polars as pl

from . import inference as I
from .dataset import ReportError, polars_frame

CLUSTER = "game"


def needs(frame: pl.DataFrame, columns: tuple[str, ...], what: str) -> None:
    """A ReportError naming the columns `frame` lacks and what the function takes (the results frame
    given to bradley_terry stopped inside polars: column "opponent" not found)."""
    polars_frame(frame)
    named = [c for c in columns if not isinstance(c, str)]
    if named:  # a cluster given as a frame or a number
        raise TypeError(f"a column is named by its text, such as 'game', not {named[0]!r:.40}")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ReportError(f"no column {', '.join(missing)} in the frame: this takes {what}")


def pairwise(df: pl.DataFrame) -> pl.DataFrame:
    """One row per game and pair of seats with different policies (a before b alphabetically):
    policy, opponent, result (1 = policy ranked higher, 0.5 tie, 0 lower), game, players."""
    needs(df, ("combo", "game", "players", "seat", "policy_label", "rank"), "a results frame (load_results)")
    seats = df.select("combo", "game", "players", "seat", "policy_label", "rank")
    pairs = (seats.join(seats, on=["combo", "game"], suffix="_b")
             .filter(pl.col("policy_label") < pl.col("policy_label_b")))
    return pairs.select(
        pl.col("policy_label").alias("policy"), pl.col("policy_label_b").alias("opponent"),
        pl.when(pl.col("rank") < pl.col("rank_b")).then(1.0)
        .when(pl.col("rank") == pl.col("rank_b")).then(0.5).otherwise(0.0).alias("result"),
        "game", "players")


# A rating, its standard error and its CI bounds are log-odds: in csv and json rating_logodds, se_logodds,
# low_logodds and high_logodds (Table.units), in every table of ratings alike
RATING_UNITS = dict.fromkeys(("rating", "se", "low", "high"), "log-odds")

PRIOR_TEXT = ("a policy never or always won, so the unpenalised fit has no finite rating: a weak prior added "
              "one tied comparison to every pair of policies that met (bounded ratings; CIs then reflect the "
              "prior as well as the data)")


def separated(a: np.ndarray, b: np.ndarray, result: np.ndarray, k: int) -> bool:
    """Whether the Bradley-Terry likelihood has no finite maximum: the graph of "won at least once
    against" (a tie counts both ways) is not strongly connected (Zermelo's condition; scipy
    `connected_components`)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    won = np.zeros((k, k), dtype=bool)
    won[a[result > 0], b[result > 0]] = True
    won[b[result < 1], a[result < 1]] = True
    count, _ = connected_components(csr_matrix(won), directed=True, connection="strong")
    return count > 1


def bradley_terry(pairs: pl.DataFrame, cluster: str = CLUSTER) -> pl.DataFrame:
    """Bradley-Terry ratings (log-odds scale, centred on the mean policy) with deal-clustered 95%
    CIs: a binomial GLM of `result` on +1 for `policy` and -1 for `opponent` (statsmodels,
    cov_type="cluster" on `cluster`). When a policy never or always wins (separation: no finite
    maximum likelihood, so the fit would diverge with a falsely tight interval) a weak prior adds
    one tied comparison per pair of policies that met, each its own cluster, and `prior` is true.
    Columns: policy, rating, se, low, high, comparisons, prior."""
    import pandas as pd
    from statsmodels.genmod import families
    from statsmodels.genmod.generalized_linear_model import GLM

    needs(pairs, ("policy", "opponent", "result", cluster), "the pairs of ratings.pairwise(df)")
    names = sorted(set(pairs["policy"].to_list()) | set(pairs["opponent"].to_list()))
    k = len(names)
    if k < 2 or pairs.height < 2:
        return pl.DataFrame(schema={"policy": pl.String, "rating": pl.Float64, "se": pl.Float64,
                                    "low": pl.Float64, "high": pl.Float64, "comparisons": pl.Int64,
                                    "prior": pl.Boolean})
    index = {n: i for i, n in enumerate(names)}
    a = np.array([index[n] for n in pairs["policy"].to_list()])
    b = np.array([index[n] for n in pairs["opponent"].to_list()])
    y = pairs["result"].to_numpy().astype(float)
    groups = pairs[cluster].to_numpy().astype(str)
    counts = np.bincount(np.concatenate([a, b]), minlength=k)
    prior = separated(a, b, y, k)
    if prior:
        met = sorted(set(zip(np.minimum(a, b).tolist(), np.maximum(a, b).tolist())))
        a = np.concatenate([a, [i for i, _ in met]])
        b = np.concatenate([b, [j for _, j in met]])
        y = np.concatenate([y, np.full(len(met), 0.5)])
        groups = np.concatenate([groups, [f"prior {i}-{j}" for i, j in met]])
    x = np.zeros((len(y), k))
    x[np.arange(len(a)), a] = 1.0
    x[np.arange(len(b)), b] = -1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = GLM(y, x[:, 1:], family=families.Binomial()).fit(
            cov_type="cluster", cov_kwds={"groups": pd.factorize(groups)[0]})
    # Ratings with the first policy at 0, then centred: r = L beta with L = (I - J/k) E.
    embed = np.vstack([np.zeros(k - 1), np.eye(k - 1)])
    centre = np.eye(k) - np.full((k, k), 1.0 / k)
    lin = centre @ embed
    rating = lin @ np.asarray(fit.params)
    cov = lin @ np.asarray(fit.cov_params()) @ lin.T
    se = np.sqrt(np.clip(np.diag(cov), 0, None))
    z = 1.959963984540054
    return (pl.DataFrame({"policy": names, "rating": rating, "se": se, "low": rating - z * se,
                          "high": rating + z * se, "comparisons": counts.astype(np.int64),
                          "prior": np.full(k, prior)})
            .sort("rating", descending=True))


def head_to_head(pairs: pl.DataFrame, cluster: str = CLUSTER) -> pl.DataFrame:
    """Share of the comparisons each policy won against each opponent (ties half), both ways, with
    a Wilson interval on the deal-clustered effective sample size and the p-value against an even
    0.5 (corrected over the matrix, Holm). Columns: policy, opponent, n (deals), rows, share,
    low, high, p, q, significant."""
    needs(pairs, ("policy", "opponent", "result", "players", cluster), "the pairs of ratings.pairwise(df)")
    both = pl.concat([pairs, pairs.select(pl.col("opponent").alias("policy"), pl.col("policy").alias("opponent"),
                                          (1 - pl.col("result")).alias("result"), cluster, "players")])
    per_deal = (both.group_by(["policy", "opponent", cluster]).agg(pl.col("result").mean(), pl.len().alias("rows"))
                .sort(["policy", "opponent", cluster]))
    groups = per_deal.group_by(["policy", "opponent"], maintain_order=True).agg(pl.col("result"), pl.col("rows").sum())
    rows = []
    for policy, opponent, results, count in groups.iter_rows():
        x = np.asarray(results, dtype=float)
        low, high = I.rate_interval(x, int(count))
        rows.append({"policy": policy, "opponent": opponent, "n": len(x), "rows": int(count),
                     "share": float(x.mean()), "low": low, "high": high, "p": I.rate_p(x, 0.5, int(count))})
    if not rows:  # one policy, or no comparison at all: an empty matrix, as bradley_terry's empty ratings
        return pl.DataFrame(schema={"policy": pl.String, "opponent": pl.String, "n": pl.Int64, "rows": pl.Int64,
                                    "share": pl.Float64, "low": pl.Float64, "high": pl.Float64, "p": pl.Float64,
                                    "q": pl.Float64, "significant": pl.Boolean})
    out = pl.DataFrame(rows)
    # Each unordered pair appears twice (a vs b, b vs a) with the same p: correct over the pairs.
    unique = out.filter(pl.col("policy") < pl.col("opponent"))
    q = dict(zip(zip(unique["policy"], unique["opponent"]), I.adjust(unique["p"], "holm")))
    qs = [q.get((a, b), q.get((b, a), math.nan)) for a, b in zip(out["policy"], out["opponent"])]
    return out.with_columns(pl.Series("q", qs), (pl.Series(qs).fill_nan(1.0) < I.ALPHA).alias("significant"))


def finishing(df: pl.DataFrame) -> pl.DataFrame:
    """Per policy: win share (Wilson, deal-clustered), mean finishing position (rank, 1 = best)
    with its t interval over deals (`rank_half`, half its width: NaN where every deal gave the same
    position, as `estimates.mean_ci` gives a mean without spread) and tie rate (the share of its seats
    that tied for first) with its Wilson interval, all from `estimates.mean_ci` (a policy that always
    came second is not "2.00 ±0.00")."""
    from .estimates import mean_ci

    needs(df, ("policy_label", CLUSTER, "win_share", "rank"), "a results frame (load_results)")
    by = ["policy_label"]
    tied = ((pl.col("win_share") > 0) & (pl.col("win_share") < 1)).cast(pl.Float64)
    win = mean_ci(df, "win_share", by, rate=True)
    rank = mean_ci(df, "rank", by).select(*by, pl.col("mean").alias("rank"),
                                          ((pl.col("ci_high") - pl.col("ci_low")) / 2).alias("rank_half"))
    tie = mean_ci(df, tied, by, rate=True).select(*by, pl.col("mean").alias("tie_rate"),
                                                  pl.col("ci_low").alias("tie_low"), pl.col("ci_high").alias("tie_high"))
    return (win.select(pl.col("policy_label").alias("policy"), "n", "rows", pl.col("mean").alias("win"),
                       pl.col("ci_low").alias("win_low"), pl.col("ci_high").alias("win_high"), *by)
            .join(rank, on=by).join(tie, on=by).drop(by))

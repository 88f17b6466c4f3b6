"""The inference behind every report table, from statsmodels: rate intervals that stay honest at
0 % and 100 %, multiple-comparison corrections, equivalence (TOST) verdicts, sample-size hints and
Bradley-Terry ratings.

Every function takes plain numpy arrays of per-deal values (the deal is the unit of analysis: seats
of one game and one deal played under several combinations are not independent).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from statsmodels.stats.multitest import multipletests
from scipy.stats import norm
from statsmodels.stats.proportion import proportion_confint, proportions_ztest
from statsmodels.stats.weightstats import ttost_paired

LEVEL = 0.95
ALPHA = 1 - LEVEL
MARGIN = 0.02          # default equivalence margin: "fair within ±2 pp"
TARGET_HALF_WIDTH = 0.01  # the sample-size hint: deals for a 95% CI of ±1 pp
CORRECTIONS = {"fdr_bh": "Benjamini-Hochberg", "holm": "Holm"}
CORRECTION = "fdr_bh"
_Z_TWO_SIDED, _Z_ONE_SIDED, _Z_POWER = (float(z) for z in norm.ppf([1 - ALPHA / 2, 1 - ALPHA, 0.8]))
# "Fair" and "robust" are claims a designer acts on, so each table controls them family-wise: Holm
# over the table's equivalence tests keeps the chance of even one wrong "fair" in a table at most
# ALPHA, however many of its rows sit on the margin (Benjamini-Hochberg would let that chance grow
# with the number of such rows). See docs/reports.md.
EQUIVALENCE_CORRECTION = "holm"


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def effective_n(x: np.ndarray, rows: int) -> float:
    """Kish's effective sample size of a rate from clustered rows: `rows` seats in len(x) deals
    whose deal means are `x`, divided by the design effect (the cluster-robust variance of the
    mean, from the deal means, over the binomial variance of `rows` independent seats); `rows`
    when either variance is 0."""
    n = len(x)
    p = float(x.mean()) if n else math.nan
    if n < 2 or rows <= n:
        return float(rows)
    robust = float(x.var(ddof=1)) / n
    binomial = p * (1 - p) / rows
    if robust <= 0 or binomial <= 0:
        return float(rows)
    return rows * binomial / robust  # rows / design effect


def rate_interval(x: np.ndarray, rows: int | None = None) -> tuple[float, float]:
    """95% Wilson interval (statsmodels `proportion_confint`) of a rate from per-deal values `x`
    (win shares, mean over the deal's `rows` seats). With several seats per deal the count and
    the number of trials are scaled to the effective sample size (cluster-robust). Never of zero
    width: 0 wins of 200 gives [0, 1.9 %]."""
    x = np.asarray(x, dtype=float)
    if len(x) == 0:
        return math.nan, math.nan
    nobs = effective_n(x, rows if rows is not None else len(x))
    low, high = _quiet(proportion_confint, float(x.mean()) * nobs, nobs, alpha=ALPHA, method="wilson")
    return float(low), float(high)


def rate_p(x: np.ndarray, fair: float, rows: int | None = None) -> float:
    """Two-sided p-value of the score test of a rate against `fair` (statsmodels
    `proportions_ztest` with the null's variance, so that 0 of 200 has a finite p)."""
    x = np.asarray(x, dtype=float)
    if len(x) == 0 or not 0 < fair < 1:
        return math.nan
    nobs = effective_n(x, rows if rows is not None else len(x))
    _, p = _quiet(proportions_ztest, float(x.mean()) * nobs, nobs, value=fair, prop_var=fair)
    return float(p)


def adjust(p, method: str = CORRECTION) -> np.ndarray:
    """Adjusted p-values (statsmodels `multipletests`) of the finite p-values of one table; NaN
    stays NaN. Holm's are computed here as `multipletests(method="holm")` gives them (step-down:
    sorted p times the tests left, running maximum, capped at 1; the test suite checks the two
    agree) because statsmodels 0.15 runs a full garbage collection on every Holm call, about 0.1 s
    in a process holding a large dataset, once per table."""
    arr = np.asarray(list(p), dtype=float)
    out = np.full(arr.shape, np.nan)
    ok = np.isfinite(arr)
    if not ok.any():
        return out
    if method == "holm":
        values = arr[ok]
        order = np.argsort(values, kind="stable")
        stepped = np.maximum.accumulate(values[order] * np.arange(len(values), 0, -1))
        adjusted = np.empty_like(values)
        adjusted[order] = np.minimum(stepped, 1.0)
        out[ok] = adjusted
    else:
        out[ok] = multipletests(arr[ok], alpha=ALPHA, method=method)[1]
    return out


def correction_text(rows: int, method: str = CORRECTION) -> str:
    """The caption fragment that states a table's correction."""
    return (f"marks at q < {ALPHA:g} after {CORRECTIONS[method]} correction over the {rows} "
            f"row{'s' * (rows != 1)} of this table")


def equivalence_caption(rows: int, margin: float = MARGIN) -> str:
    """The caption fragment that states the error rate the table's "fair" words control."""
    return (f"'fair within ±{100 * margin:g} pp' = equivalent by TOST after {CORRECTIONS[EQUIVALENCE_CORRECTION]} "
            f"correction over the {rows} row{'s' * (rows != 1)} of this table: the chance that even one row of "
            f"the table is called fair while its true effect lies at or beyond the margin is at most "
            f"{100 * ALPHA:g}%")


def equivalence_p(a: np.ndarray, b: np.ndarray, margin: float = MARGIN) -> float:
    """p-value of the paired TOST (statsmodels `ttost_paired`) that mean(a - b) lies within
    ±margin; small p = equivalent. NaN for fewer than 2 pairs."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if len(a) < 2:
        return math.nan
    d = a - b
    if float(d.std()) == 0:  # no spread: equivalent exactly when the constant difference is inside
        return 0.0 if abs(float(d.mean())) < margin else 1.0
    p, _, _ = _quiet(ttost_paired, a, b, -margin, margin)
    return float(p)


def verdict(diff: float, q: float, q_equiv: float, margin: float = MARGIN) -> str:
    """The row's verdict: "stronger"/"weaker" (differs, corrected), "fair within ±m pp"
    (equivalent, corrected TOST), or "undecided" (neither: more games needed). A row can differ
    and still be equivalent when the difference is small and well measured."""
    m = f"±{100 * margin:g} pp"
    differs = math.isfinite(q) and q < ALPHA
    equivalent = math.isfinite(q_equiv) and q_equiv < ALPHA
    if equivalent:
        return f"fair within {m}" + ((" (slightly " + ("stronger)" if diff > 0 else "weaker)")) if differs else "")
    if differs:
        return "stronger" if diff > 0 else "weaker"
    return "undecided"


RELATIVE_WORDS = {"stronger": "above the average side", "weaker": "below the average side"}


def relative_verdict(text: str | None, margin: float = MARGIN) -> str:
    """A verdict against a relative reference (the average side of the same deal and seat) in
    words of its own, so that it is never read as a verdict against the fair share."""
    kind = verdict_kind(text)
    if kind == "fair":
        return f"level with the average side (±{100 * margin:g} pp)"
    return RELATIVE_WORDS.get(kind, kind)


def robustness_word(q_diff: float, q_equiv: float) -> str:
    """Whether an effect depends on the opponent field, from the paired difference between fields:
    "robust" (the difference is equivalent to zero within the margin), "depends on the bots" (it
    differs from zero), else "undecided"; both q corrected over the table."""
    if math.isfinite(q_equiv) and q_equiv < ALPHA:
        return "robust"
    if math.isfinite(q_diff) and q_diff < ALPHA:
        return "depends on the bots"
    return "undecided"


def deals_to_decide(sd: float, diff: float, n: int, margin: float = MARGIN) -> float:
    """About how many more deals an undecided equivalence verdict needs: the deals at which the
    nearer one-sided test of the TOST (a difference `diff` with per-deal sd `sd`, against ±margin)
    reaches 80 % power, ((z_0.95 + z_0.8) sd / (margin - |diff|))^2 (normal approximation, scipy
    `norm.ppf`), minus the `n` played; NaN when `diff` is not inside the margin (more deals would
    then show a difference, never fairness) or nothing is known."""
    if not (math.isfinite(sd) and math.isfinite(diff)) or sd <= 0 or abs(diff) >= margin:
        return math.nan
    need = ((_Z_ONE_SIDED + _Z_POWER) * sd / (margin - abs(diff))) ** 2
    return float(max(0, math.ceil(need - n)))


def verdict_kind(text: str | None) -> str:
    """What a verdict claims: "stronger", "weaker", "fair" (equivalent within the margin, with or
    without "slightly") or "undecided"; two verdicts agree when their kinds are the same."""
    text = text or "undecided"
    return "fair" if text.startswith("fair") else text


def games_needed(sd: float, half_width: float = TARGET_HALF_WIDTH) -> float:
    """Deals for a 95% CI of ±half_width on a mean whose per-deal standard deviation is `sd`:
    (z_0.975 sd / half_width)^2, the normal-approximation sample size (scipy `norm.ppf`); in the
    hundreds of deals and beyond, where it is used, it equals the t-test's within a deal or two and
    costs microseconds instead of a root search per table row."""
    if not math.isfinite(sd) or sd <= 0 or half_width <= 0:
        return math.nan
    return float(math.ceil((_Z_TWO_SIDED * sd / half_width) ** 2))
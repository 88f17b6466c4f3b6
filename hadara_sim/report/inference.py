"""The inference behind every report table, from statsmodels: rate intervals that stay honest at
0 % and 100 %, multiple-comparison corrections, equivalence (TOST) tests and sample-size hints; the
verdicts and their words are built from these numbers in one place, `verdict`.

Every function takes plain numpy arrays of per-deal values (the deal is the unit of analysis: seats
of one game and one deal played under several combinations are not independent).

statsmodels and scipy are imported by the functions that compute with them: statsmodels pulls in
scipy.stats and pandas, about 1.8 CPU s, which a command that computes no statistic (a report's
error for a wrong folder, `policies tune` of an unknown policy) paid when this module was imported.
"""

from __future__ import annotations

import functools
import math
import warnings

import numpy as np

LEVEL = 0.95
ALPHA = 1 - LEVEL
MARGIN = 0.02          # default equivalence margin: "fair within ±2 pp"
TARGET_HALF_WIDTH = 0.01  # the sample-size hint: deals for a 95% CI of ±1 pp
CORRECTIONS = {"fdr_bh": "Benjamini-Hochberg", "holm": "Holm"}
CORRECTION = "fdr_bh"
# "Fair" and "robust" are claims a designer acts on, so each table controls them family-wise: Holm
# over the table's equivalence tests keeps the chance of even one wrong "fair" in a table at most
# ALPHA, however many of its rows sit on the margin (Benjamini-Hochberg would let that chance grow
# with the number of such rows). See docs/reports.md.
EQUIVALENCE_CORRECTION = "holm"


@functools.cache
def normal_quantile(q: float) -> float:
    """The standard normal's q quantile (scipy `norm.ppf`), computed once per q."""
    from scipy.stats import norm

    return float(norm.ppf(q))


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def effective_n(x: np.ndarray, rows: int) -> float:
    """Kish's effective sample size of a rate from clustered rows: `rows` seats in len(x) deals
    whose deal means are `x`, divided by the design effect (the cluster-robust variance of the
    mean, from the deal means, over the binomial variance of `rows` independent seats), never more
    than `rows`; `rows` when either variance is 0 (deal means equal up to rounding included: a policy
    on every seat has a variance of 1e-33 from the last bits of 1/3, which made its 95% CI [33.3, 33.3]);
    one deal is one observation (no spread of deal means to measure its clustering by)."""
    n = len(x)
    p = float(x.mean()) if n else math.nan
    if n < 2:  # its rows were taken as independent: 14 seats of one tournament deal said "weaker", p < 0.001
        return float(n)
    if rows <= n or no_spread(x):
        return float(rows)
    robust = float(x.var(ddof=1)) / n
    binomial = p * (1 - p) / rows
    if robust <= 0 or binomial <= 0:
        return float(rows)
    # A design effect below 1 estimated from a few deal means is mostly their noise: 42 seats in 3 deals
    # of a tournament counted as 425 and gave "stronger" at p < 1e-5; never more than the seats played.
    return min(float(rows), rows * binomial / robust)  # rows / design effect


def rate_interval(x: np.ndarray, rows: int | None = None) -> tuple[float, float]:
    """95% Wilson interval (statsmodels `proportion_confint`) of a rate from per-deal values `x`
    (win shares, mean over the deal's `rows` seats). With several seats per deal the count and
    the number of trials are scaled to the effective sample size (cluster-robust). Never of zero
    width: 0 wins of 200 gives [0, 1.9 %]."""
    from statsmodels.stats.proportion import proportion_confint

    x = np.asarray(x, dtype=float)
    if len(x) == 0:
        return math.nan, math.nan
    nobs = effective_n(x, rows if rows is not None else len(x))
    p = float(x.mean())
    low, high = _quiet(proportion_confint, p * nobs, nobs, alpha=ALPHA, method="wilson")
    return _holding(low, high, p)


def _holding(low: float, high: float, p: float) -> tuple[float, float]:
    """A Wilson interval that holds its rate within [0, 1]: statsmodels' rounding put 0 of 200 at
    [1.7e-18, 0.019], a low end above the share it is of."""
    return max(0.0, min(float(low), p)), min(1.0, max(float(high), p))


def ratio_interval(hits: np.ndarray, trials: np.ndarray) -> tuple[float, float]:
    """95% Wilson interval of the pooled rate sum(hits) / sum(trials) from per-deal counts whose deals
    hold unequal numbers of trials (the share of a statue's carvings made points side up): the trials
    scaled to the effective sample size of the ratio estimator clustered on the deal, as `effective_n`
    does for deals of equal size (one deal is one observation; never more than the trials)."""
    from statsmodels.stats.proportion import proportion_confint

    hits, trials = np.asarray(hits, float), np.asarray(trials, float)
    hits, trials = hits[trials > 0], trials[trials > 0]
    deals, total = len(trials), float(trials.sum())
    if deals == 0:
        return math.nan, math.nan
    p = float(hits.sum()) / total
    nobs = total
    if deals < 2:
        nobs = float(deals)
    else:
        robust = deals / (deals - 1) * float(((hits - p * trials) ** 2).sum()) / total ** 2
        binomial = p * (1 - p) / total
        if robust > 0 and binomial > 0:
            nobs = min(total, total * binomial / robust)
    low, high = _quiet(proportion_confint, p * nobs, nobs, alpha=ALPHA, method="wilson")
    return _holding(low, high, p)


def rate_p(x: np.ndarray, fair: float, rows: int | None = None) -> float:
    """Two-sided p-value of the score test of a rate against `fair` (statsmodels
    `proportions_ztest` with the null's variance, so that 0 of 200 has a finite p)."""
    from statsmodels.stats.proportion import proportions_ztest

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
    if not isinstance(method, str):
        raise TypeError(f"method is the name of a correction, such as 'fdr_bh' or 'holm', not {method!r:.40}")
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
        from statsmodels.stats.multitest import multipletests

        try:
            out[ok] = multipletests(arr[ok], alpha=ALPHA, method=method)[1]
        except ValueError:
            raise ValueError(f"method={method!r}: a correction statsmodels' multipletests knows, such as "
                             "'fdr_bh' (the reports' default), 'holm' or 'bonferroni'") from None
    return out


def no_spread(d: np.ndarray) -> bool:
    """Values all equal up to rounding (a spread of at most 1e-12 of their size): win shares averaged
    over seats differ in their last bits where the shares themselves are equal."""
    d = np.asarray(d, dtype=float)
    return bool(len(d)) and float(np.ptp(d)) <= 1e-12 * max(1.0, float(np.abs(d).max()))


def share_width(a: np.ndarray, b: np.ndarray) -> float:
    """How far one pair of a contrast of shares may differ at most: 1 when both sides lie in [0, 1] (win
    shares), 2 when they lie in [-1, 1] (effects: a share minus another); NaN for other values."""
    if not len(a):
        return math.nan
    low, high = min(a.min(), b.min()), max(a.max(), b.max())
    return 1.0 if low >= 0 and high <= 1 else 2.0 if low >= -1 and high <= 1 else math.nan


def no_spread_interval(c: float, n: int, width: float = 1.0) -> tuple[float, float]:
    """The 95% interval of a paired difference of shares whose n pairs all differ by the same `c`: a
    difference in [-width, width] (`share_width`) that puts a share s of its pairs elsewhere has its mean
    at most s (width + c) below c and s (width - c) above it, and no pair of n shows such a share with
    chance below 2.5 % each way when s >= 1 - 0.025^(1/n) (the exact form of the rule of three); so never
    of zero width: 10 pairs equal at 0 give ±0.31, 10,000 give ±0.0004; 3 deals all won by one side
    (c = 1) give [-0.42, 1], not a difference."""
    q = 1.0 - ((1.0 - LEVEL) / 2) ** (1.0 / n)
    return max(-width, c - q * (width + c)), min(width, c + q * (width - c))


def no_spread_p(c: float, n: int, width: float = 1.0) -> float:
    """The two-sided p-value of "no difference" for n pairs of shares that all differ by the same `c`, the
    test `no_spread_interval` inverts: a difference in [-width, width] of mean 0 equals c in a share at
    most width / (width + |c|) of its pairs, so all n do with chance at most that to the n (3 deals all
    won by one side: 2 * 2^-3 = 0.25, the sign test's; 10: 0.002)."""
    return min(1.0, 2.0 * (width / (width + abs(c))) ** n)


def check_margin(margin) -> float:
    """A win share's equivalence margin as a fraction (0.02: ±2 pp), or a ValueError saying so: from
    Python, margin=2 meant "±200 pp" and called every row fair (the command line's --margin 50 is 0.5)."""
    if isinstance(margin, bool) or not isinstance(margin, (int, float, np.integer, np.floating)) \
            or not 0 < margin <= 0.5:
        raise ValueError(f"margin={margin!r}: a win share's equivalence margin is a fraction above 0 and at most "
                         "0.5, e.g. margin=0.02 for ±2 pp (the command line's --margin 2)")
    return float(margin)


def equivalence_p(a: np.ndarray, b: np.ndarray, margin: float = MARGIN) -> float:
    """p-value of the paired TOST (statsmodels `ttost_paired`) that mean(a - b) lies within
    ±margin; small p = equivalent. NaN for fewer than 2 pairs. Pairs that all differ by the same
    amount have no spread for the t test: for values in [0, 1] (win shares) the chance that every pair
    of n equals c when the mean lies at the margin is at most ((1 - margin) / (1 - |c|))^n (`share_width`:
    2 for effects in [-1, 1]), so ten equal pairs are not called equivalent and ten thousand are; other
    values, without a bound on how far an unseen pair may lie, NaN."""
    from statsmodels.stats.weightstats import ttost_paired

    if isinstance(margin, bool) or not isinstance(margin, (int, float, np.integer, np.floating)) \
            or not 0 < margin < math.inf:  # margin=0 or -1 made every contrast "not equivalent", 5 every one
        raise ValueError(f"margin={margin!r}: an equivalence margin is a number above 0, in the contrast's unit "
                         "(0.02 for ±2 pp of a win share)")
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if margin > 0.5 and share_width(a, b) == 1:
        check_margin(margin)  # shares: margin=5 called every contrast equivalent
    if len(a) < 2:
        return math.nan
    d = a - b
    if no_spread(d):  # the t test cannot say how far the mean may lie
        c = float(d.mean())
        if abs(c) >= margin:
            return 1.0
        width = share_width(a, b)  # as in no_spread_p: a mean at ±margin is c in a share (w - margin) / (w - |c|)
        return ((width - margin) / (width - abs(c))) ** len(d) if math.isfinite(width) else math.nan
    p, _, _ = _quiet(ttost_paired, a, b, -margin, margin)
    return float(p)


HINT_POWER = 0.8      # a hint promises this chance that the hinted deals decide "fair"
HINT_DRAWS = 2000     # simulated tables per step of a hint's search (common random numbers, seeded)
HINT_FIGURES = 2      # a hint's significant figures (`two_figures_up`)
# The simulation costs rows x hinted rows x HINT_DRAWS: 100 of each took 5 s, 400 took 76 s, and the
# 13,000 setup cells of a card-worth run's observational table hung `report summary` for hours. Past this
# product the hint is Bonferroni's closed form, which bounds Holm's from above (`deals_to_decide`).
HINT_SIMULATED = 10_000


def tost_power(diff: float, se: float, margin: float = MARGIN, alpha: float = ALPHA) -> float:
    """Chance that a TOST at level `alpha` shows |difference| < margin when the estimate is normal
    with mean `diff` and standard error `se`: P(-margin + z se < estimate < margin - z se)."""
    from scipy.stats import norm

    z = normal_quantile(1 - alpha)
    return max(0.0, float(norm.cdf((margin - z * se - diff) / se) - norm.cdf((-margin + z * se - diff) / se)))


def _bonferroni_scale(diff: float, sd: float, n: float, margin: float, rows: int, power: float) -> float:
    """The factor on the deals at which the row's TOST at level ALPHA / rows reaches `power` (closed
    form power, root by bisection on a log scale): Holm's step-down rejects every row that this test
    rejects, so it bounds the Holm hint from above."""
    def short(f: float) -> bool:
        return tost_power(diff, sd / math.sqrt(n * f), margin, ALPHA / rows) < power
    low, high = 1.0, 2.0
    while short(high):
        low, high = high, high * 2
        if high > 1e9:
            return math.inf
    while high / low > 1.001:
        mid = math.sqrt(low * high)
        low, high = (mid, high) if short(mid) else (low, mid)
    return high


def deals_to_decide(diff, sd, n, undecided, margin: float = MARGIN, power: float = HINT_POWER,
                    seed: int = 0) -> np.ndarray:
    """Per row of a table, about how many more deals of that row would make its "fair" verdict come
    out with chance `power` under the test the table applies: each row's TOST within ±margin, `method`
    (Holm) over the table's rows. More games of a run add deals to every row of its table in
    proportion, so the table is simulated as a whole: each row's estimate normal around its `diff`
    with standard error sd / sqrt(n f) (the normal approximation of the t-tests over deals), the
    rows' TOST p-values Holm-corrected together (EQUIVALENCE_CORRECTION), and f found where the row's corrected q < ALPHA in a
    share `power` of HINT_DRAWS tables (common random numbers, so the search is monotone and the
    hint deterministic). Holm has no closed form over a table; Bonferroni's (the row alone at
    ALPHA / rows) bounds the search from above, the uncorrected one from below. Returns the more
    deals n (f - 1) of each `undecided` row (`two_figures_up`), NaN where the row is decided, its difference is not
    inside the margin (more deals would then show a difference, never fairness) or nothing is known. A
    table too large to simulate (rows x hinted rows past HINT_SIMULATED) gets Bonferroni's bound: at most
    that many deals."""
    from scipy.special import ndtr

    diff, sd, n = (np.asarray(v, dtype=float) for v in (diff, sd, n))
    out = np.full(diff.shape, np.nan)
    known = np.isfinite(diff) & np.isfinite(sd) & (sd > 0) & (n > 1)
    targets = [i for i in np.flatnonzero(known & np.asarray(undecided, dtype=bool)) if abs(diff[i]) < margin]
    if not targets:
        return out
    rows = np.flatnonzero(known)
    if len(rows) * len(targets) > HINT_SIMULATED:
        for i in targets:
            high = _bonferroni_scale(diff[i], sd[i], n[i], margin, len(rows), power)
            out[i] = two_figures_up(n[i] * (high - 1)) if math.isfinite(high) else math.nan
        return out
    z = np.random.default_rng(seed).standard_normal((HINT_DRAWS, len(rows)))
    d, s, k = diff[rows], sd[rows], n[rows]

    def share(f: float, at: int) -> float:
        se = s / np.sqrt(k * f)
        est = d + z * se
        p = np.maximum(ndtr(-(est + margin) / se), ndtr((est - margin) / se))
        # Holm's step-down as `adjust` computes it: the row's q is the running maximum at its rank
        stepped = np.maximum.accumulate(np.sort(p, axis=1) * np.arange(len(rows), 0, -1), axis=1)
        rank = (p < p[:, [at]]).sum(axis=1)
        return float((stepped[np.arange(len(p)), rank] < ALPHA).mean())

    for i in targets:
        at = int(np.searchsorted(rows, i))
        high = _bonferroni_scale(diff[i], sd[i], n[i], margin, len(rows), power)
        if not math.isfinite(high):
            continue
        low = _bonferroni_scale(diff[i], sd[i], n[i], margin, 1, power) if high > 1 else 1.0
        if share(low, at) >= power:
            high = low
        while high / low > 1.02:
            mid = math.sqrt(low * high)
            low, high = (mid, high) if share(mid, at) < power else (low, mid)
        out[i] = two_figures_up(n[i] * (high - 1))
    return out


def two_figures_up(deals: float) -> float:
    """A hint's deals rounded up to HINT_FIGURES significant figures (64,018 -> 65,000): it takes the
    measured difference for the truth and its search stops within 2 %, so a fifth figure would claim
    a precision it does not have; rounding up keeps the promised chance."""
    if not deals > 0:
        return 0.0
    unit = 10.0 ** max(0, math.floor(math.log10(deals)) + 1 - HINT_FIGURES)
    return float(math.ceil(round(deals / unit, 9)) * unit)


def z_90() -> float:
    """The half-width of a 90% CI in standard errors: the TOST at 5 % each side."""
    return normal_quantile(0.95)


def fit_deals_to_decide(win: float, low: float, high: float, fair: float, margin: float, deals: int,
                        power: float = HINT_POWER) -> float:
    """More deals per point of a fit at which a fitted win share `win` inside fair ± margin, whose 90% CI
    [low, high] reaches past it, has its 90% CI inside with chance `power` (taking `win` as the truth;
    the CI narrows as 1 / sqrt(deals)): each half of the CI (a logistic fit's need not be symmetric) must
    shrink to (its bound - win) z_0.95 / (z_0.95 + z_power), the one that fails the most deciding."""
    above, below = fair + margin - win, win - (fair - margin)
    if above <= 0 or below <= 0:  # on the edge (a difference that rounds to just inside): never shown fair
        return math.nan
    z = z_90()
    scale = (z + normal_quantile(power)) / z
    factor = max(((high - win) * scale / above) ** 2, ((win - low) * scale / below) ** 2)
    return two_figures_up(deals * (factor - 1))


def games_needed(sd: float, half_width: float = TARGET_HALF_WIDTH) -> float:
    """Deals for a 95% CI of ±half_width on a mean whose per-deal standard deviation is `sd`:
    (z_0.975 sd / half_width)^2, the normal-approximation sample size (scipy `norm.ppf`); in the
    hundreds of deals and beyond, where it is used, it equals the t-test's within a deal or two and
    costs microseconds instead of a root search per table row."""
    if not math.isfinite(sd) or sd <= 0 or half_width <= 0:
        return math.nan
    return float(math.ceil((normal_quantile(1 - ALPHA / 2) * sd / half_width) ** 2))


"""The fair value of a component: the affected seat's win share and score against a swept value.

A sweep of one component value (`"components.setup.3B.culture" = [2, 3, 4, 5]`) plays every value
on the same deals. For the rows the value affects (the seat holding setup card 3 on side B, or rows
chosen with `where`), `curve` gives per value the mean win share and the score margin (the seat's
total minus the mean of the other seats of its game), each with n and a 95% CI (`stats.mean_ci`:
Wilson for the win share, t for the margin), the paired difference to a reference value on the
same deals (`stats.paired_diff`), and two fits over all values:

- win share: a binomial GLM with logit link (statsmodels), win share per deal as the response;
- score margin: a linear model (Gaussian GLM).

Both use cluster-robust standard errors by deal, since one deal is played under every value. The
crossing of fair (win share 1/P, score margin 0) is where the fitted line meets it, with a 95% CI
by the delta method; the band is the 95% CI of the fitted mean.
"""

from __future__ import annotations

import difflib
import json
import math
import numbers
import warnings
from dataclasses import dataclass, field

import numpy as np
import polars as pl

from ..swept_key import SweptKey
from . import inference as I
from . import estimates as S
from . import verdict as V
from .dataset import ReportError, full_info, polars_frame, pooled_over
from .inference import LEVEL

@dataclass(frozen=True)
class Crossing:
    """Where a fitted line meets fair: `value` with its 95% CI; nan when the slope is not
    significant (no crossing can be placed)."""

    value: float
    low: float
    high: float
    slope_p: float       # p-value of the slope (cluster-robust Wald test)
    extrapolated: bool   # the crossing lies outside the swept values

    @property
    def found(self) -> bool:
        return math.isfinite(self.value)


@dataclass
class Curve:
    key: str
    where: str                   # which rows the value affects, in words
    fair: float                  # fair win share (mean 1/P of the affected rows)
    pooled: list[str]            # the other swept keys (and player counts) of those rows it averages over
    reference: float             # the value paired differences are taken against
    points: pl.DataFrame         # one row per value: n, win share and margin with CIs, paired diffs
    band: pl.DataFrame           # x, fitted win share and margin with their 95% CI
    win: Crossing
    score: Crossing
    fits: dict = field(default_factory=dict, repr=False)  # "win"/"score" -> statsmodels results


def curve_keys(df: pl.DataFrame, combinations: list[dict]) -> list[str]:
    """The swept component values whose values are all numbers: the keys a curve can take."""
    keys: list[SweptKey] = []
    for combo in combinations:
        for text, value in combo.get("sweep", {}).items():
            if SweptKey(text) not in keys and isinstance(value, (int, float)) and not isinstance(value, bool):
                keys.append(SweptKey(text))
    return [k.text for k in keys
            if k.component_value and k.column in df.columns and df[k.column].dtype.is_numeric()]


def affected(df: pl.DataFrame, key: SweptKey, where: dict[str, str] | None = None) -> tuple[pl.DataFrame, str]:
    """The rows a swept value affects and how they were chosen: for a setup card value the seats
    holding that card and side; otherwise the rows matching `where` (column -> value)."""
    if where is not None and not isinstance(where, dict):
        raise TypeError(f"where is a dict of column -> value, such as {{'seat': 0}}, not {type(where).__name__} "
                        f"{where!r:.40}")
    conditions, words = [], []
    found = key.setup_value
    if found and not where:
        card, side, _ = found
        conditions = [pl.col("setup_card") == card, pl.col("setup_side") == side]
        words = [f"the seat holding setup card {card} side {side}"]
    elif where:
        for column, text in where.items():
            if column not in df.columns:
                close = difflib.get_close_matches(column, df.columns, n=1)
                raise ReportError(f"--where {column}: no such column"
                                  + (f" (did you mean {close[0]}?)" if close else "")
                                  + f"; columns: {', '.join(df.columns)}")
            dtype = df[column].dtype
            try:
                value = text if dtype == pl.String else pl.Series([text]).cast(dtype, strict=True)[0]
            except Exception:
                raise ReportError(f"--where {column}={text}: not a value of column {column} ({dtype})") from None
            conditions.append(pl.col(column) == value)
            words.append(f"{column} = {text}")
    else:
        raise ReportError(f"which seats does {key.text} affect? It may touch any seat (the buyers of a card, "
                          "the takers of a colony differ from deal to deal): choose the rows with --where "
                          "COLUMN=VALUE (e.g. --where policy_label=greedy or --where seat=0)")
    rows = df.filter(pl.all_horizontal(conditions))
    if rows.is_empty():
        raise ReportError(f"no rows with {' and '.join(words)}")
    seats = rows.group_by(["combo", "game"]).agg(n=pl.len(), players=pl.col("players").first())
    if (seats["n"] == seats["players"]).all():  # their mean win share is 1/P at every value: no curve to fit
        others = [f"--where {c}" for c in ("seat=0", "policy_label=NAME") if c.partition("=")[0] not in (where or {})]
        raise ReportError(f"the rows with {' and '.join(words)} are every seat of each game, whose win shares "
                          "add up to 1 whatever the value: choose the seats the value affects"
                          + (f", e.g. {' or '.join(others)}" if others else " (a column that differs between the seats)"))
    return rows, " and ".join(words)


def with_margin(df: pl.DataFrame) -> pl.DataFrame:
    """`margin`: each row's total minus the mean total of the other seats of its game."""
    other = (pl.col("total").sum().over(["combo", "game"]) - pl.col("total")) / (pl.col("players") - 1)
    return df.with_columns(margin=pl.col("total") - other)


def per_deal(rows: pl.DataFrame, x: str) -> pl.DataFrame:
    """One row per (value, deal): mean win share, margin and fair share of the affected rows."""
    return (rows.group_by([x, "game"])
            .agg(win=pl.col("win_share").mean(), margin=pl.col("margin").mean(),
                 fair=(1 / pl.col("players")).mean(), rows=pl.len())
            .sort([x, "game"]))


def fit(deals: pl.DataFrame, x: str, response: str):
    """The cluster-robust GLM of `response` ("win": binomial, logit; "margin": Gaussian) on the value."""
    from statsmodels.genmod import families
    from statsmodels.genmod.generalized_linear_model import GLM
    from statsmodels.tools.tools import add_constant

    exog = add_constant(deals[x].cast(pl.Float64).to_numpy())
    family = families.Binomial() if response == "win" else families.Gaussian()
    model = GLM(deals[response].to_numpy(), exog, family=family)  # one value per deal, as in stats.py
    return clustered(model, deals["game"].to_numpy())


def clustered(model, groups: np.ndarray):
    """`model` fitted with its CIs clustered on the deal (`groups`); a ReportError when these deals
    cannot carry the fit."""
    from statsmodels.tools.sm_exceptions import PerfectSeparationWarning, SingularMatrixWarning

    held = len(np.unique(groups))
    if held < 2:  # one deal has no spread between deals
        raise ReportError(f"only {held} deal holds the rows fitted: a fit needs two or more (play more games)")
    # A small run's seat that always or never won: its slope's wide CI says so, and a fit that ran to
    # infinities (numpy's divide and invalid warnings inside the link) gives the not-finite estimates
    # that `crossing` and the verdicts read as "not found"; if it is singular, the ReportError below.
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        warnings.simplefilter("ignore", PerfectSeparationWarning)
        warnings.simplefilter("ignore", SingularMatrixWarning)
        try:
            return model.fit(cov_type="cluster", cov_kwds={"groups": groups})
        except (np.linalg.LinAlgError, ZeroDivisionError):
            raise ReportError(f"the {held} deals holding the rows cannot carry the fit (their win shares leave a "
                              "coefficient undetermined: too few deals, or a seat that always or never won); play "
                              "more games") from None


def crossing(result, target: float, values: np.ndarray) -> Crossing:
    """The value where the fitted linear predictor equals `target` (on the link scale), with a 95%
    CI by the delta method; nan when the slope is not significant at 5%, or nothing but rounding (a
    change below 1e-9 over the values: deals whose difference does not move with the value, whose
    clustered standard error is 0 too, gave a "significant" -4.5e-18 crossing at 2.5e16)."""
    b0, b1 = result.params
    p = float(result.pvalues[1])
    if not np.isfinite(b1) or abs(b1) * np.ptp(values) <= 1e-9:
        return Crossing(math.nan, math.nan, math.nan, math.nan, False)  # no slope to test
    if p >= 1 - LEVEL:
        return Crossing(math.nan, math.nan, math.nan, p, False)
    x = (target - b0) / b1
    grad = np.array([-1 / b1, -(target - b0) / b1 ** 2])
    variance = float(grad @ result.cov_params() @ grad)
    if not math.isfinite(variance) or variance <= 0:  # a degenerate fit (a handful of deals): no interval
        return Crossing(math.nan, math.nan, math.nan, p, False)
    se = math.sqrt(variance)
    z = I.normal_quantile(0.5 + LEVEL / 2)
    return Crossing(float(x), float(x - z * se), float(x + z * se), p,
                    bool(x < values.min() or x > values.max()))


def as_written(value) -> str:
    """A number as a user writes it: 99, not 99.0 (typer reads --reference 99 as a float)."""
    value = float(value)
    return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)


def number(value, name: str) -> float:
    """`value` when it is a finite real number, else a TypeError or ValueError naming `name` (a text
    "3" stopped inside statsmodels with "data type must provide an itemsize")."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} is a number, not {type(value).__name__} {value!r:.40}")
    if not math.isfinite(value):
        raise ValueError(f"{name} is a finite number, not {value}")
    return float(value)


def swept_key_text(key) -> str:
    """`key` when it is text, else a TypeError saying what a key is (None stopped in its parser)."""
    if not isinstance(key, str):
        raise TypeError(f"a key is the text of a swept key, such as 'components.setup.3B.culture', not "
                        f"{type(key).__name__} {key!r:.40}")
    return key


def curve(df: pl.DataFrame, key: str, where: dict[str, str] | None = None,
          reference: float | None = None, margin: float = I.MARGIN) -> Curve:
    """The curve of `key` (a swept numeric key) for the rows it affects: at each value the seat's
    win share with its verdict against the fair share 1/P (`verdict.with_verdicts`, corrected over
    the values), and the paired differences against `reference` (default: the smallest swept
    value), a relative contrast."""
    from statsmodels.tools.tools import add_constant

    polars_frame(df)
    swept = SweptKey(swept_key_text(key))
    x = swept.column
    if x not in df.columns:
        swept_here = list(dict.fromkeys(k for text in df["sweep"].unique().to_list() if text
                                        for k in json.loads(text))) if "sweep" in df.columns else []
        close = difflib.get_close_matches(key, swept_here, n=1)
        raise ReportError(f"'{key}' is not swept in this dataset" + (f" (did you mean {close[0]}?)" if close else "")
                          + f"; swept here: {', '.join(swept_here) or 'nothing'}")
    rows, words = affected(with_margin(df), swept, where)
    deals = per_deal(rows, x)
    values = np.sort(deals[x].unique().to_numpy())
    if len(values) < 2:
        raise ReportError(f"'{key}' takes one value only in these rows: a curve needs two or more")
    if reference is None:
        reference = values[0]
    elif isinstance(reference, numbers.Real) and not isinstance(reference, bool) and reference not in values:
        # an out-of-range --reference (99, -1.5, inf) named as given, with the values it can take
        raise ReportError(f"--reference {as_written(reference)} is not a swept value of {key}: give one of "
                          f"{', '.join(map(as_written, values))}, or leave --reference out for the smallest")
    else:
        reference = number(reference, "reference")
    base = deals.filter(pl.col(x) == reference).select("game", win_ref="win", margin_ref="margin")
    win = {r[x]: r for r in V.with_verdicts(S.mean_ci(rows, "win_share", [x], fair=1 / pl.col("players"), rate=True,
                                                      margin=margin), margin=margin, hints=True).to_dicts()}
    margins = {r[x]: r for r in S.mean_ci(rows, "margin", [x]).to_dicts()}
    pairs = deals.join(base, on="game")
    diffs = {what: {r[x]: r for r in S.paired_diff(pairs, what, f"{what}_ref", [x]).to_dicts()}
             for what in ("win", "margin")}
    points = []
    for v in values:
        w, m = win[v], margins[v]
        point = {"value": float(v), "n": w["n"], "rows": w["rows"], "win": w["mean"], "win_low": w["ci_low"],
                 "win_high": w["ci_high"], "margin": m["mean"], "margin_low": m["ci_low"],
                 "margin_high": m["ci_high"], "paired": diffs["win"].get(v, {"n": 0})["n"],
                 "vs_fair": w["diff"], "q": w["q"], "verdict": w["verdict"], "more": w["more"]}
        for what in ("win", "margin"):
            d = diffs[what].get(v, {"diff": math.nan, "low": math.nan, "high": math.nan})
            mean, low, high = (d["diff"], d["low"], d["high"]) if v != reference else (0.0, math.nan, math.nan)
            point |= {f"{what}_diff": mean, f"{what}_diff_low": low, f"{what}_diff_high": high}
        points.append(point)
    fair = float(deals["fair"].mean())
    fits = {"win": fit(deals, x, "win"), "score": fit(deals, x, "margin")}
    grid = np.linspace(values.min(), values.max(), 50)
    band = {"x": grid}
    for name, res in fits.items():
        with np.errstate(invalid="ignore"):  # a degenerate fit's negative variance: a nan band, not numpy's warning
            frame = res.get_prediction(add_constant(grid)).summary_frame(alpha=1 - LEVEL)
        band |= {name: frame["mean"].to_numpy(), f"{name}_low": frame["mean_ci_lower"].to_numpy(),
                 f"{name}_high": frame["mean_ci_upper"].to_numpy()}
    logit_fair = math.log(fair / (1 - fair))
    return Curve(key, words, fair, pooled_over(rows, [x]), float(reference), pl.DataFrame(points),
                 pl.DataFrame(band), crossing(fits["win"], logit_fair, values), crossing(fits["score"], 0.0, values),
                 fits)


def predict(c: Curve, value: float, alpha: float = 1 - LEVEL) -> tuple[float, float, float]:
    """The fitted win share at `value` with its (1 - alpha) CI."""
    if not isinstance(c, Curve):
        raise TypeError(f"predict takes a curve (curve.curve(df, key)), not a {type(c).__name__}")
    if not 0 < number(alpha, "alpha") < 1:
        raise ValueError(f"alpha is between 0 and 1 (0.05 for a 95% CI), not {alpha}")
    frame = c.fits["win"].get_prediction(np.array([[1.0, number(value, "value")]])).summary_frame(alpha=alpha)
    return float(frame["mean"].iloc[0]), float(frame["mean_ci_lower"].iloc[0]), float(frame["mean_ci_upper"].iloc[0])


# --- presentation -----------------------------------------------------------------------------

NO_SLOPE = "no slope to test"  # a fit whose slope p is nan, said so rather than "p = nan"


def slope_text(c: Crossing) -> str:
    """The fit's test of its slope: 'slope p = 0.03', or that there is none to test (not 'p = nan')."""
    return NO_SLOPE if math.isnan(c.slope_p) else f"slope p = {c.slope_p:.2g}"


def describe(c: Crossing, unit: str = "") -> str:
    if not isinstance(c, Crossing):
        raise TypeError(f"describe takes a crossing, such as a curve's .win or .score, not a {type(c).__name__}")
    # Only a p of 0.05 or more is "not significant": a nan p (no slope to test) and a significant slope
    # whose crossing has no interval read "the fitted slope is not significant (p = nan)" or "(p = 0.01)".
    if math.isnan(c.slope_p):
        return (f"no crossing: the fitted line has {NO_SLOPE} (flat, or run to infinity by a seat that always "
                "or never won: play more games)")
    if not c.found and c.slope_p < 1 - LEVEL:
        return (f"no crossing: the slope (p = {c.slope_p:.2g}) gives the crossing no interval (a degenerate fit "
                "of a handful of deals: play more games)")
    if not c.found:
        return f"no crossing: the fitted slope is not significant (p = {c.slope_p:.2g})"
    text = f"{c.value:.2f} (95% CI {c.low:.2f} to {c.high:.2f})"
    return text + (" — extrapolated beyond the swept values" if c.extrapolated else "")


def section(df: pl.DataFrame, info: dict, key: str, where: dict[str, str] | None = None,
            reference: float | None = None, margin: float = I.MARGIN):
    """The curve report: a table per value, the crossings, and the chart."""
    from .. import provenance
    from .sections import Section, num, num_ci, pct, pct_ci, pooled_words, pp, pp_ci
    from .table import Table

    info = full_info(df, info)
    c = curve(df, key, where, reference, margin)
    scope = provenance.field_line(info)
    pooled = pooled_words(c.pooled)
    rows = []
    for p in c.points.to_dicts():
        rows.append([f"{p['value']:g}", f"{p['n']:,}", pct(p["win"]), pct_ci(p["win_low"], p["win_high"]),
                     pp(p["vs_fair"]), V.render(p, games=info.get("deals"), margin=margin), pp(p["win_diff"]),
                     pp_ci(p["win_diff_low"], p["win_diff_high"]),
                     num(p["margin"], sign=True), num_ci(p["margin_low"], p["margin_high"], sign=True)])
    table = Table(f"{key}: {c.where}{pooled}",
                  ["value", "n deals", "win share", "95% CI", "vs 1/P", "verdict vs 1/P",
                   f"vs {c.reference:g} (relative, paired)", "95% CI", "score margin", "95% CI"], rows,
                  # the levels in words: csv and json carry the bounds without the terminal's "95% CI" headers
                  caption=f"fair win share {100 * c.fair:.1f}% (1/P); win share: 95% Wilson CI, score test "
                          f"against 1/P; {V.caption(c.points.height, margin)}; score margin = the seat's total "
                          f"minus the mean of the other seats, 95% t CI over deals; relative, paired = the same "
                          f"deals at both values, 95% t CI over deals; {scope}",
                  marked=[v in ("stronger", "weaker") for v in c.points["verdict"].to_list()],
                  # csv and json: the value beside its key, as a surface's value1 and value2 beside key1 and key2
                  data=c.points.select(pl.lit(key).alias("key"), pl.all()))
    fits = (("win share = 1/P", c.win), ("score margin = 0", c.score))
    crossings = Table("Value at which the seat is fair (fit over all values, cluster-robust by deal)",
                      ["measure", "fair at", "fit"],
                      [["win share = 1/P", describe(c.win), f"logit GLM, {slope_text(c.win)}"],
                       ["score margin = 0", describe(c.score), f"linear, {slope_text(c.score)}"]],
                      caption=f"the fair value with its 95% CI by the delta method, none where the slope is not "
                              f"significant (slope p: its cluster-robust Wald test); {scope}",
                      data=pl.DataFrame({"key": key, "measure": [n for n, _ in fits],
                                         "fair_at": [x.value for _, x in fits], "fair_at_low": [x.low for _, x in fits],
                                         "fair_at_high": [x.high for _, x in fits],
                                         "slope_p": [x.slope_p for _, x in fits],
                                         "extrapolated": [x.extrapolated for _, x in fits]},
                                        schema_overrides={"fair_at": pl.Float64, "fair_at_low": pl.Float64,
                                                          "fair_at_high": pl.Float64, "slope_p": pl.Float64}))
    s = Section("curve", f"Curve of {key}{pooled}", f"Win share and score margin of {c.where} against {key}"
                f"{pooled}.",
                tables=[table, crossings])
    s.figures.append((f"curve-{SweptKey(key).stem}", chart(c, info)))
    return s, c


def chart(c: Curve, info: dict):
    """Two panels: win share and score margin against the value, with the fit's 95% band, fair
    dashed and the crossing with its CI shaded."""
    from .charts import BLUE, GREY, ORANGE, _err, _figure, _finish, _legend_above, footer
    from .sections import pooled_words

    fig = _figure(11, 4.6)
    pts, band = c.points, c.band
    for i, (name, fair, label, scale) in enumerate([("win", c.fair, "win share (%)", 100),
                                                     ("margin", 0.0, "score margin (points)", 1)]):
        ax = fig.add_subplot(1, 2, i + 1)
        fitted = "win" if name == "win" else "score"
        ax.fill_between(band["x"], band[f"{fitted}_low"] * scale, band[f"{fitted}_high"] * scale,
                        color=BLUE, alpha=0.18, lw=0, label="fit, 95% band")
        ax.plot(band["x"], band[fitted] * scale, color=BLUE, lw=1.6)
        mean, err = _err(pts[name], pts[f"{name}_low"], pts[f"{name}_high"], scale)
        ax.errorbar(pts["value"], mean, yerr=err, fmt="o", color=BLUE, capsize=4,
                    label="per value, 95% CI")
        ax.axhline(fair * scale, color=GREY, ls="--", lw=1.2,
                   label=f"fair {fair * scale:.1f}%" if name == "win" else "fair (0)")
        cross = c.win if name == "win" else c.score
        if cross.found:
            ax.axvspan(cross.low, cross.high, color=ORANGE, alpha=0.15, lw=0)
            ax.axvline(cross.value, color=ORANGE, lw=1.4, label=f"fair at {cross.value:.2f} [{cross.low:.2f}, {cross.high:.2f}]")
        ax.set_xlabel(c.key)
        ax.set_ylabel(label)
        ax.set_xticks(pts["value"].to_list())
        ax.grid(alpha=0.3)
        _legend_above(ax, ncol=2)
    n = int(pts["n"].sum())
    return _finish(fig, f"Fair value of {c.key} for {c.where}{pooled_words(c.pooled)}",
                   footer(info, f"{n:,} (value, deal) pairs", "bars: 95% CI over deals; band: 95% CI of the "
                                                             "cluster-robust fit; crossing CI: delta method"))

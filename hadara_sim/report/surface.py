"""The fair trade-off between two component values swept together (a two-key sweep).

A sweep of two values (`"components.setup.3B.culture" = [2, 3, 4]` and `"components.setup.3B.coins" =
[3, 4, 5, 6]`) plays every pair on the same deals. For the rows both affect (`curve.affected`), a
binomial GLM with logit link fits the win share on both values and their product (cluster-robust by
deal, as `curve.fit`); where the fitted win share equals the fair share 1/P is the fair line, given
as the second value for each first value, with a 95% CI by the delta method. The fair pairs are the
whole-value pairs inside the swept box whose fitted win share has its 90% CI inside 1/P ± margin
(two one-sided tests at 5%: `verdict.of_fit`, as `balance suggest` judges a single value).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import polars as pl

from ..swept_key import SweptKey
from . import inference as I
from . import estimates as S
from . import verdict as V
from .curve import affected, clustered, swept_key_text, with_margin
from .dataset import ReportError, full_info, polars_frame, pooled_over
from .inference import LEVEL


@dataclass
class Surface:
    keys: tuple[str, str]
    where: str                 # which rows the values affect, in words
    fair: float                # fair win share (mean 1/P of the affected rows)
    pooled: list[str]          # the other swept keys (and player counts) of those rows it averages over
    # The two keys' values are value1 and value2 (as a curve's is `value`); the keys are `keys`.
    cells: pl.DataFrame        # one row per swept pair: n, win share with CI and verdict against 1/P
    line: pl.DataFrame         # value1 -> fair_value2 (the second key's value at which it is fair), 95% CI
    pairs: pl.DataFrame        # whole-value pairs in the swept box: fitted win share, 90% CI, fair
    interaction_p: float       # p-value of the product term (does one value change the other's worth?)
    fit: object = field(default=None, repr=False)

    @property
    def fair_pairs(self) -> pl.DataFrame:
        return self.pairs.filter(pl.col("fair"))


def _design(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
    return np.column_stack([np.ones_like(x1, dtype=float), x1, x2, x1 * x2])


def fit_surface(deals: pl.DataFrame, x1: str, x2: str):
    """The cluster-robust binomial GLM (logit) of the per-deal win share on x1, x2 and x1 * x2."""
    from statsmodels.genmod import families
    from statsmodels.genmod.generalized_linear_model import GLM

    a, b = (deals[c].cast(pl.Float64).to_numpy() for c in (x1, x2))
    model = GLM(deals["win"].to_numpy(), _design(a, b), family=families.Binomial())
    return clustered(model, deals["game"].to_numpy())


def fair_line(result, target: float, grid: np.ndarray) -> pl.DataFrame:
    """For each first value in `grid`, the second value at which the linear predictor equals
    `target` (logit of 1/P), with a 95% CI by the delta method (nan where the second value has no
    effect there)."""
    b0, b1, b2, b3 = result.params
    cov = result.cov_params()
    z = I.normal_quantile(0.5 + LEVEL / 2)
    rows = []
    for a in grid:
        slope = b2 + b3 * a
        if slope == 0 or not math.isfinite(slope):
            rows.append((a, math.nan, math.nan, math.nan))
            continue
        x = (target - b0 - b1 * a) / slope
        grad = np.array([-1, -a, -x, -a * x]) / slope
        variance = float(grad @ cov @ grad)
        se = math.sqrt(variance) if variance > 0 else math.nan
        rows.append((float(a), float(x), float(x - z * se), float(x + z * se)))
    return pl.DataFrame(rows, schema={"value1": pl.Float64, "fair_value2": pl.Float64, "fair_value2_low": pl.Float64,
                                      "fair_value2_high": pl.Float64}, orient="row")


MAX_PAIRS = 40_000  # whole-value pairs a surface predicts (200 values of each key)


def surface(df: pl.DataFrame, key1: str, key2: str, where: dict[str, str] | None = None,
            margin: float = I.MARGIN) -> Surface:
    """The fitted win share over two swept keys for the rows both affect, its fair line and the
    fair whole-value pairs."""
    polars_frame(df)
    swept1, swept2 = SweptKey(swept_key_text(key1)), SweptKey(swept_key_text(key2))
    x1, x2 = swept1.column, swept2.column
    if x1 == x2:
        raise ReportError(f"a surface is over two different keys, got {key1} twice: its curve is `report curve "
                          f"--key {key1}` (curve.curve from Python)")
    for key, column in ((key1, x1), (key2, x2)):
        if column not in df.columns or not df[column].dtype.is_numeric():
            raise ReportError(f"'{key}' is not a numeric swept key of this dataset")
    first, second = swept1.setup_value, swept2.setup_value
    if not where and first and second and first[:2] != second[:2]:
        raise ReportError(f"{key1} and {key2} belong to different setup card sides: choose the rows with --where")
    rows, words = affected(with_margin(df), swept1 if first or where else swept2, where)
    deals = (rows.group_by([x1, x2, "game"])
             .agg(win=pl.col("win_share").mean(), fair=(1 / pl.col("players")).mean())
             .sort([x1, x2, "game"]))
    v1, v2 = (np.sort(deals[c].unique().to_numpy()) for c in (x1, x2))
    if len(v1) < 2 or len(v2) < 2:
        raise ReportError(f"a surface needs two or more values of each key here ({key1}: {len(v1)}, {key2}: {len(v2)})")
    fair = float(deals["fair"].mean())
    cells = V.with_verdicts(S.mean_ci(rows, "win_share", [x1, x2], fair=1 / pl.col("players"), rate=True,
                                      margin=margin), margin=margin).sort([x1, x2])
    result = fit_surface(deals, x1, x2)
    target = math.log(fair / (1 - fair))
    line = fair_line(result, target, np.linspace(v1.min(), v1.max(), 25)).with_columns(
        extrapolated=~pl.col("fair_value2").is_between(float(v2.min()), float(v2.max()))
        & pl.col("fair_value2").is_finite())
    count1, count2 = (max(0, math.floor(v.max()) - math.ceil(v.min()) + 1) for v in (v1, v2))
    if count1 * count2 > MAX_PAIRS:  # checked before the grid is made: each pair is a prediction
        raise ReportError(f"the fair pairs of {key1} {v1.min():g}..{v1.max():g} and {key2} {v2.min():g}..{v2.max():g} "
                          f"would be {count1 * count2:,} whole-value pairs, more than the {MAX_PAIRS:,} a surface "
                          f"lists; sweep narrower ranges of the two keys (about {math.isqrt(MAX_PAIRS)} whole "
                          "values each), or read one key at a time with a single --key")
    whole1 = np.arange(math.ceil(v1.min()), math.floor(v1.max()) + 1, dtype=float)
    whole2 = np.arange(math.ceil(v2.min()), math.floor(v2.max()) + 1, dtype=float)
    a, b = (g.ravel() for g in np.meshgrid(whole1, whole2, indexing="ij"))
    frame = result.get_prediction(_design(a, b)).summary_frame(alpha=0.10)
    win, low, high = (frame[c].to_numpy() for c in ("mean", "mean_ci_lower", "mean_ci_upper"))
    pairs = pl.DataFrame({"value1": a, "value2": b, "win": win, "low": low, "high": high,
                          "fair": [V.of_fit(*f, fair, margin).equivalent for f in zip(win, low, high)]},
                         schema_overrides={"fair": pl.Boolean})
    return Surface((key1, key2), words, fair, pooled_over(rows, [x1, x2]), cells.rename({x1: "value1", x2: "value2"}),
                   line, pairs, float(result.pvalues[3]), result)


def section(df: pl.DataFrame, info: dict, key1: str, key2: str, where: dict[str, str] | None = None,
            margin: float = I.MARGIN):
    """The surface report: the cells, the fair line, the fair pairs, and the chart."""
    from .. import provenance
    from .sections import Section, pct, pct_ci, pooled_words, pp
    from .table import Table

    info = full_info(df, info)
    s = surface(df, key1, key2, where, margin)
    scope = provenance.field_line(info)
    pooled = pooled_words(s.pooled)

    def named(frame: pl.DataFrame) -> pl.DataFrame:
        """csv and json: each value beside the key it is of (a curve's rows name their key too)."""
        return frame.select(pl.lit(key1).alias("key1"), "value1", pl.lit(key2).alias("key2"), pl.exclude("value1"))

    cells = Table(f"{key1} x {key2}: {s.where}{pooled}",
                  [key1, key2, "n deals", "win share", "95% CI", "vs 1/P", "verdict"],
                  [[f"{r['value1']:g}", f"{r['value2']:g}", f"{r['n']:,}", pct(r["mean"]),
                    pct_ci(r["ci_low"], r["ci_high"]), pp(r["diff"]), V.render(r)] for r in s.cells.to_dicts()],
                  caption=f"fair win share {100 * s.fair:.1f}% (1/P); 95% Wilson CI; score test against 1/P; "
                          f"{V.caption(s.cells.height, margin)}; {scope}",
                  marked=[v in ("stronger", "weaker") for v in s.cells["verdict"].to_list()], data=named(s.cells))
    line = Table(f"The fair line: the {key2} at which the seat is fair, for each {key1}",
                 [key1, f"fair {key2}", "95% CI", "note"],
                 [[f"{r['value1']:g}", f"{r['fair_value2']:.2f}",
                   f"[{r['fair_value2_low']:.2f}, {r['fair_value2_high']:.2f}]",
                   f"extrapolated: {key2} was swept over {s.cells['value2'].min():g} to {s.cells['value2'].max():g}"
                   if r["extrapolated"] else ""]
                  for r in s.line.to_dicts() if float(r["value1"]).is_integer()],
                 caption=f"where the fitted win share (logit GLM on both values and their product, cluster-robust "
                         f"by deal) equals 1/P; 95% CI by the delta method; product term p = {s.interaction_p:.2g}; "
                         f"a fair value outside the swept values is extrapolated (confirm with a run there); "
                         f"{scope}", data=named(s.line))
    fair = s.fair_pairs
    pairs = Table(f"Fair pairs: whole values inside the swept box within ±{100 * margin:g} pp of 1/P",
                  [key1, key2, "fitted win share", "90% CI"],
                  [[f"{r['value1']:g}", f"{r['value2']:g}", pct(r["win"]), pct_ci(r["low"], r["high"])]
                   for r in fair.to_dicts()],
                  caption="two one-sided tests at 5% on the fitted win share (its 90% CI inside 1/P ± margin), as "
                          "balance suggest judges one value"
                          + ("" if fair.height else "; none listed: no swept pair is shown fair yet"),
                  # the bounds of a share: bare low and high were written low_pp and high_pp, as a difference's
                  data=named(fair.rename({"low": "win_low", "high": "win_high"})))
    out = Section("surface", f"Surface of {key1} and {key2}{pooled}",
                  f"Win share of {s.where} over every pair of {key1} and {key2}, on the same deals{pooled}.",
                  tables=[cells, line, pairs])
    out.figures.append((f"surface-{SweptKey(key1).stem}-{SweptKey(key2).stem}", chart(s, info)))
    return out, s


def chart(s: Surface, info: dict):
    """A heat map of the observed win share per pair, the fitted fair contour with its 95% band,
    and the fair whole-value pairs marked."""
    from .charts import GREY, ORANGE, _figure, _finish, footer
    from .sections import pooled_words

    fig = _figure(8.5, 6.2)
    ax = fig.add_subplot(1, 1, 1)
    v1, v2 = sorted(s.cells["value1"].unique().to_list()), sorted(s.cells["value2"].unique().to_list())
    grid = np.full((len(v2), len(v1)), np.nan)
    for r in s.cells.to_dicts():
        grid[v2.index(r["value2"]), v1.index(r["value1"])] = 100 * r["mean"]
    spread = max(abs(np.nanmax(grid) - 100 * s.fair), abs(np.nanmin(grid) - 100 * s.fair), 1.0)
    mesh = ax.pcolormesh(_edges(v1), _edges(v2), grid, cmap="RdBu_r", vmin=100 * s.fair - spread,
                         vmax=100 * s.fair + spread, shading="flat")
    fig.colorbar(mesh, ax=ax, label="observed win share (%)")
    for i, a in enumerate(v1):
        for j, b in enumerate(v2):
            if np.isfinite(grid[j, i]):
                ax.text(a, b, f"{grid[j, i]:.1f}", ha="center", va="center", fontsize=8)
    line = s.line.filter(pl.col("fair_value2").is_finite())
    ax.plot(line["value1"], line["fair_value2"], color="black", lw=1.8, label="fitted fair line (win share = 1/P)")
    ax.fill_between(line["value1"], line["fair_value2_low"], line["fair_value2_high"], color=GREY, alpha=0.3, lw=0,
                    label="its 95% CI")
    fair = s.fair_pairs
    if fair.height:
        ax.scatter(fair["value1"], fair["value2"], marker="s", facecolor="none", edgecolor=ORANGE, s=260, lw=2,
                   label="fair whole-value pair")
    ax.set_xlim(_edges(v1)[0], _edges(v1)[-1])
    ax.set_ylim(_edges(v2)[0], _edges(v2)[-1])
    ax.set_xlabel(s.keys[0])
    ax.set_ylabel(s.keys[1])
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2, fontsize=8.5, frameon=False)
    n = int(s.cells["n"].sum())
    return _finish(fig, f"Fair trade-off of {s.keys[0]} and {s.keys[1]} for {s.where}{pooled_words(s.pooled)}",
                   footer(info, f"{n:,} (pair, deal) cells; fair share {100 * s.fair:.1f}%",
                          "fit: logit GLM on both values and their product, cluster-robust by deal"))


def _edges(values: list[float]) -> np.ndarray:
    """Cell edges around sorted values (midpoints, the ends half a step out)."""
    v = np.asarray(values, float)
    mids = (v[:-1] + v[1:]) / 2
    return np.concatenate([[v[0] - (mids[0] - v[0])], mids, [v[-1] + (v[-1] - mids[-1])]])

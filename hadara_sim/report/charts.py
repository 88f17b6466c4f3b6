"""The report charts: matplotlib Figures built without pyplot (no global state, any backend).

Every chart has a bold title, axis labels with units, group labels carrying their sample size,
and a footer naming the scenario, the sample size and what the error bars are. Save one with
`save(fig, path)`; in a notebook, `display(fig)` shows it.
"""

from __future__ import annotations

import io
import textwrap
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import polars as pl
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.text import Text

from .. import provenance
from ..problems import as_path
from .dataset import ReportError, in_group, polars_frame
from .estimates import group_means
from .fields import value_label
from .scores import BONUS_PARTS, PART_LABELS, STACK_ORDER

CI_NOTE = "error bars: 95% CI (t-test over deals)"
RATE_NOTE = "error bars: 95% Wilson CI (deal-clustered effective sample size)"
BLUE, ORANGE, GREY, RED = "#1f5f99", "#d9711c", "#8a8a8a", "#b2182b"
PART_COLOURS = {
    # Colonies in military red, statues in culture blue: never two neighbours of one hue.
    "colonies": "#b2182b", "statues": "#3a7dc2", "patron_points": "#9b6fc4",
    "silver": "#9aa5ad", "silver_full_points": "#b48fd6", "gold": "#e0b400",
    "set_collector_points": "#7b3fb0", "wildcard_points": "#5b2a86",
    "cards": "#4c9a4c", "coins": "#8c564b",
}
FORMATS = ("png", "svg")
# A chart of more groups draws their extremes: 2,616 seats of a card-worth run made a 31 MB picture
# 300 inches tall, which no one could read (the table has every group).
MAX_GROUPS = 30
Label = Callable[[dict], str]


def _figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), dpi=110, layout="constrained")
    return fig


def _finish(fig: Figure, title: str, footer: str) -> Figure:
    width = fig.get_figwidth()
    fig.suptitle("\n".join(textwrap.wrap(title, max(30, int(width * 8.5)))), fontsize=13, fontweight="bold")
    fig.supxlabel(_wrapped(footer, max(40, int(width * 15))), fontsize=8.5, color="#555555")
    for text in fig.findobj(Text):  # a label "costs $5 to $6" is text, not mathtext ("a $\frac$" failed)
        text.set_parse_math(False)
    return fig


def _drawable(table: pl.DataFrame, columns: tuple[str, ...], source: str, label=str) -> None:
    """A ReportError unless `table` is a polars table with rows and the columns a chart draws from: an
    empty one stopped inside matplotlib or numpy, a table of another kind inside polars; a TypeError
    unless `label` (a group's row -> its name) can be called."""
    polars_frame(table)
    if not callable(label):
        raise TypeError(f"label is a function from a group's row to its name (such as str), not {label!r:.40}")
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise ReportError(f"nothing to draw from a table without {', '.join(missing)}: this chart draws {source}")
    if table.is_empty():
        raise ReportError(f"nothing to draw: the table is empty (this chart draws {source})")


def _keys(table: pl.DataFrame, by: Sequence[str] | str) -> list[str]:
    """The group columns of a chart: `by` (a name or names), each a column of `table` (a name given
    alone was grouped letter by letter)."""
    keys = [by] if isinstance(by, str) else list(by)
    missing = [k for k in keys if k not in table.columns]
    if missing:
        raise ReportError(f"no column {', '.join(missing)} to group by in the table: pass the `by` that made it")
    return keys


def _wrapped(text: str, width: int) -> str:
    """`text` wrapped at words into lines of `width` characters, its own line ends kept: a footer, or a
    group's label (a long one, such as a policy's label with its parameters, ran into its neighbours or
    pushed the axes off the figure)."""
    return "\n".join(line for part in text.split("\n")
                     for line in textwrap.wrap(part, width, break_on_hyphens=False) or [part])


def _legend_above(ax, handles=None, ncol: int = 2, x: float = 0.5):
    """A legend in one row above the axes (constrained layout keeps it clear of the title); none when
    nothing is labelled (a chart of a frame with nothing to compare)."""
    if handles is None and not ax.get_legend_handles_labels()[0]:
        return
    kw = {"handles": handles} if handles is not None else {}
    ax.legend(**kw, loc="lower center", bbox_to_anchor=(x, 1.0 if not ax.get_title() else 1.08), ncol=ncol,
              fontsize=8.5, frameon=False)


def footer(info: dict, extra: str | Sequence[str] = "", note: str = CI_NOTE) -> str:
    """The footer line: scenario, sample size, the chart's own `extra` (a text, or several), what the
    bars are (each that `info` holds: a notebook may pass only some, or none)."""
    if info is not None and not isinstance(info, dict):
        raise TypeError(f"info is the dict dataset_info(df) gives (or None), not {type(info).__name__}")
    info = info or {}
    size = f"{info['games']:,} games" if info.get("games") else ""
    if info.get("deals") and info.get("games") != info.get("deals"):
        size += f" on {info['deals']:,} deals"
    parts = [f"scenario '{info['scenario']}'" if info.get("scenario") else "", size,
             *([extra] if isinstance(extra, str) else extra), note]
    prov = {k: v for k, v in info.get("provenance", {}).items() if k not in ("scenario", "games")}
    return "  ·  ".join(p for p in parts if p) + (f"\n{provenance.text(prov)}" if prov else "")


def save(fig: Figure, path: str | Path, fmt: str | None = None) -> Path:
    """Write `fig` (PNG, SVG or any format matplotlib writes, from the suffix or `fmt`) and return the path."""
    path = as_path(path, "the chart's file")
    fmt = fmt or path.suffix.lstrip(".") or "png"
    written = fig.canvas.get_supported_filetypes()
    if not isinstance(fmt, str) or fmt.lower() not in written:
        raise ReportError(f"a chart is written as one of {', '.join(sorted(written))}, not {fmt!r:.40}")
    fmt = fmt.lower()
    if path.suffix.lstrip(".") != fmt:
        path = path.with_suffix(f".{fmt}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, format=fmt, dpi=110 if fmt == "png" else None)
    except OSError as err:
        raise ReportError(f"cannot write the chart to {path}: {err.strerror or err}") from None
    return path


def check_format(fmt: str) -> str:
    """A chart format the reports embed and the command line writes (a PDF or JPEG went into the summary
    labelled as a PNG)."""
    if not isinstance(fmt, str) or fmt not in FORMATS:
        raise ReportError(f"charts are {' or '.join(FORMATS)}, not {fmt!r:.40}")
    return fmt


def to_bytes(fig: Figure, fmt: str = "png") -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format=fmt, dpi=110 if fmt == "png" else None)
    return buf.getvalue()


def _pct_axis(ax, axis: str = "x"):
    from matplotlib.ticker import FuncFormatter

    fmt = FuncFormatter(lambda v, _: f"{v:g}%")
    (ax.xaxis if axis == "x" else ax.yaxis).set_major_formatter(fmt)


def _err(mean, low, high, scale: float = 1.0):
    m, lo, hi = (np.asarray(v, dtype=float) * scale for v in (mean, low, high))
    lower = np.where(np.isfinite(lo), m - lo, 0.0)
    upper = np.where(np.isfinite(hi), hi - m, 0.0)
    return m, np.vstack([np.maximum(lower, 0), np.maximum(upper, 0)])


# --- win rate ---------------------------------------------------------------------------------

def winrate_chart(stats: pl.DataFrame, label: Label, info: dict, by_text: str) -> Figure:
    """Win share per group as points with 95% CI error bars; the fair share dashed."""
    _drawable(stats, ("n", "mean", "ci_low", "ci_high", "fair"), "wins.win_rates(df)", label)
    every = stats.to_dicts()
    rows = _extremes(every, (stats["diff"] if "diff" in stats.columns else stats["mean"] - stats["fair"]).to_list())
    k = len(rows)
    ticks = [_wrapped(f"{label(r)}  (n={r['n']:,})", 40) for r in rows]
    fig = _figure(8.5, 1.9 + 0.42 * k + 0.17 * sum(t.count("\n") for t in ticks))  # room for wrapped labels
    ax = fig.add_subplot()
    y = np.arange(k)[::-1]
    m, err = _err([r["mean"] for r in rows], [r["ci_low"] for r in rows], [r["ci_high"] for r in rows], 100)
    ax.errorbar(m, y, xerr=err, fmt="o", color=BLUE, ecolor=BLUE, capsize=4, markersize=6, lw=1.6,
                label="win share, 95% CI")
    fair = np.array([r["fair"] for r in rows]) * 100
    if np.allclose(fair, fair[0]):
        ax.axvline(fair[0], color=GREY, ls="--", lw=1.2, label=f"fair share 1/P = {fair[0]:.1f}%")
    else:
        ax.scatter(fair, y, marker="|", s=300, color=GREY, label="fair share 1/P", zorder=3)
    hi = m + err[1]
    for yi, mi, h in zip(y, m, hi):
        ax.annotate(f"{mi:.1f}%", (h, yi), xytext=(5, 0), textcoords="offset points", va="center",
                    fontsize=8.5, color="#333333")
    ax.set_yticks(y, ticks)
    ax.set_xlabel("win share (%)  — 1 per sole win, 1/k per k-way tie")
    ax.set_ylabel(by_text)
    lo_all = np.nanmin(np.concatenate([m - err[0], fair]))
    hi_all = np.nanmax(np.concatenate([hi, fair]))
    pad = max(2.0, 0.12 * (hi_all - lo_all))
    ax.set_xlim(max(-3.0, lo_all - pad), min(103.0, hi_all + 2.5 * pad))
    ax.set_ylim(-0.7, k - 0.3)
    _pct_axis(ax)
    ax.grid(axis="x", alpha=0.3)
    _legend_above(ax, ncol=2)
    shown = _drawn_words(k, len(every), "against the fair share")
    return _finish(fig, f"Win rate by {by_text}",
                   footer(info, (shown, "n = deals per group"), note=RATE_NOTE))


# --- score breakdown --------------------------------------------------------------------------

def breakdown_chart(long: pl.DataFrame, by: Sequence[str], label: Label, info: dict, by_text: str) -> Figure:
    """Mean score sheet per group as stacked bars (purple bonus parts hatched), total with its CI."""
    _drawable(long, ("part", "n", "mean", "ci_low", "ci_high"), "scores.score_breakdown(df, by)", label)
    keys = _keys(long, by)
    every = long.filter(pl.col("part") == "total").to_dicts()
    groups = _extremes(every, [g["mean"] for g in every])
    k = len(groups)
    fig = _figure(max(7.5, 2.8 + 0.95 * k), 5.6)
    ax = fig.add_subplot()
    x = np.arange(k)
    sep = "\n" if k <= 6 else " "
    bottom = np.zeros(k)
    shown = []
    for part in STACK_ORDER:
        sub = long.filter(pl.col("part") == part)
        if keys:
            vals = []
            for g in groups:
                row = in_group(sub, keys, g)
                vals.append(row["mean"][0] if row.height else 0.0)
            vals = np.array(vals, dtype=float)
        else:
            vals = sub["mean"].to_numpy().astype(float)
        if not np.any(np.abs(vals) > 1e-9):
            continue
        bonus = part in BONUS_PARTS
        ax.bar(x, vals, 0.62, bottom=bottom, color=PART_COLOURS[part], edgecolor="white", linewidth=0.6,
               hatch="///" if bonus else None)
        shown.append(part)
        bottom += vals
    m, err = _err([g["mean"] for g in groups], [g["ci_low"] for g in groups], [g["ci_high"] for g in groups])
    ax.errorbar(x, m, yerr=err, fmt="none", ecolor="black", capsize=5, lw=1.4)
    for xi, mi, e in zip(x, m, err[1]):
        ax.annotate(f"{mi:.1f}", (xi, mi + e), xytext=(0, 3), textcoords="offset points", ha="center",
                    fontsize=9, fontweight="bold")
    ax.set_xticks(x, [_wrapped(f"{label(g)}{sep}(n={g['n']:,})", 16 if k <= 6 else 32) for g in groups],
                  rotation=0 if k <= 6 else 30, ha="center" if k <= 6 else "right", fontsize=9)
    ax.set_ylabel("mean points per seat")
    ax.set_xlabel(by_text)
    ax.set_ylim(0, float(np.nanmax(m + err[1])) * 1.1 if k else 1)
    ax.grid(axis="y", alpha=0.3)
    handles = [Patch(facecolor=PART_COLOURS[p], hatch="///" if p in BONUS_PARTS else None,
                     edgecolor="white", label=PART_LABELS[p] + (" (purple)" if p in BONUS_PARTS else ""))
               for p in reversed(shown)]
    handles.append(Line2D([], [], color="black", marker="_", markersize=10, lw=1.4, label="total, 95% CI"))
    fig.legend(handles=handles, loc="outside right center", fontsize=8.5, title="score sheet line",
               title_fontsize=9)
    shown = _drawn_words(k, len(every), "mean totals")
    return _finish(fig, f"Mean score sheet by {by_text}",
                   footer(info, (shown, "n = deals per group")))


def totals_chart(df: pl.DataFrame, by: Sequence[str], label: Label, info: dict, by_text: str) -> Figure:
    """The distribution of final totals per group: histogram 'violins' (exact counts in 2-point
    bins, width = share of the group), with the mean (dot) and the quartiles (bars)."""
    _drawable(df, ("game", "total"), "the results (load_results)", label)
    keys = _keys(df, by)
    if keys:
        # the groups drawn first, then their totals: a card-worth run's 654 lists of totals took 2.2 GB
        every = group_means(df, keys, {"total": "total"})
        drawn = pl.DataFrame(_extremes(every.to_dicts(), every["total"].to_list()), schema=every.schema).select(keys)
        groups = df.join(drawn, on=keys, how="semi", nulls_equal=True).group_by(keys).agg(pl.col("total")).sort(keys)
    else:
        every = groups = df.select(pl.col("total").implode())
    rows = groups.to_dicts()
    k = len(rows)
    fig = _figure(max(7.5, 2.8 + 0.95 * k), 5.2)
    ax = fig.add_subplot()
    all_totals = df["total"].to_numpy()
    lo, hi = int(np.floor(all_totals.min())), int(np.ceil(all_totals.max()))
    width = 2 if hi - lo > 60 else 1
    edges = np.arange(lo - 0.5, hi + width + 0.5, width)
    centres = (edges[:-1] + edges[1:]) / 2
    sep = "\n" if k <= 6 else " "
    for i, r in enumerate(rows):
        t = np.asarray(r["total"], dtype=float)
        counts, _ = np.histogram(t, edges)
        share = counts / max(counts.max(), 1) * 0.42
        ax.fill_betweenx(centres, i - share, i + share, step="mid", color=BLUE, alpha=0.55, lw=0)
        q1, med, q3 = np.percentile(t, [25, 50, 75])
        ax.vlines(i, q1, q3, color="black", lw=4)
        ax.scatter([i], [t.mean()], color="white", edgecolor="black", zorder=3, s=28)
        ax.hlines(med, i - 0.08, i + 0.08, color="white", lw=1.5, zorder=3)
    ax.set_xticks(np.arange(k), [_wrapped(f"{label(r)}{sep}(n={len(r['total']):,} seats)", 16 if k <= 6 else 32)
                                 for r in rows],
                  rotation=0 if k <= 6 else 30, ha="center" if k <= 6 else "right", fontsize=9)
    ax.set_ylabel("final score (points)")
    ax.set_xlabel(by_text)
    ax.grid(axis="y", alpha=0.3)
    handles = [Patch(color=BLUE, alpha=0.55, label=f"share of seats ({width}-point bins)"),
               Line2D([], [], color="black", lw=4, label="interquartile range"),
               Line2D([], [], marker="o", ls="", markerfacecolor="white", markeredgecolor="black", label="mean")]
    _legend_above(ax, handles, ncol=3)
    return _finish(fig, f"Distribution of final scores by {by_text}",
                   footer(info, _drawn_words(k, len(every), "mean totals"), note="one row per seat played"))


# --- setup cards ------------------------------------------------------------------------------

def setup_chart(bal: pl.DataFrame, info: dict, focus: str | None = None) -> Figure:
    """Per player count (columns): win share (top) and mean score (bottom) per setup card and side,
    with 95% CIs; the fair share dashed; cards that differ significantly from fair marked; `focus`:
    how a setup grid's focus seat was chosen, in words (None: not said)."""
    _drawable(bal, ("players", "setup_card", "setup_side", "n", "win", "win_low", "win_high"),
              "setup.setup_card_balance(df)")
    players = sorted(bal["players"].unique().to_list())
    sides = sorted(bal["setup_side"].unique().to_list())
    ncol = len(players)
    fig = _figure(max(7.5, 3.3 * ncol + 0.6), 7.2)
    axes = fig.subplots(2, ncol, squeeze=False, sharey="row")
    colours = {"A": BLUE, "B": ORANGE}
    offset = {s: (i - (len(sides) - 1) / 2) * 0.22 for i, s in enumerate(sides)}
    for j, p in enumerate(players):
        sub = bal.filter(pl.col("players") == p)
        top, bottom = axes[0][j], axes[1][j]
        n = sub["n"].min()
        for side in sides:
            s = sub.filter(pl.col("setup_side") == side).sort("setup_card")
            if s.height == 0:
                continue
            x = s["setup_card"].to_numpy() + offset[side]
            c = colours.get(side, GREY)
            m, err = _err(s["win"], s["win_low"], s["win_high"], 100)
            sig = s["significant"].to_numpy()
            top.errorbar(x, m, yerr=err, fmt="none", ecolor=c, capsize=3, lw=1.3)
            top.scatter(x[~sig], m[~sig], color="white", edgecolor=c, s=30, zorder=3, lw=1.5)
            top.scatter(x[sig], m[sig], color=c, edgecolor=c, s=70, marker="*", zorder=4)
            ms, errs = _err(s["score"], s["score_low"], s["score_high"])
            bottom.errorbar(x, ms, yerr=errs, fmt="o", color=c, ecolor=c, capsize=3, lw=1.3, markersize=5)
        top.axhline(100.0 / p, color=GREY, ls="--", lw=1.1)
        top.set_title(f"{p} players (n ≥ {n:,} per card)", fontsize=10)
        for ax in (top, bottom):
            ax.set_xticks(range(1, 6))
            ax.set_xlim(0.5, 5.5)
            ax.grid(axis="y", alpha=0.3)
        bottom.set_xlabel("setup card (initiative)")
        _pct_axis(top, "y")
    axes[0][0].set_ylabel("win share (%)")
    axes[1][0].set_ylabel("mean final score (points)")
    handles = [Line2D([], [], marker="o", ls="", markerfacecolor="white", markeredgecolor=colours.get(s, GREY),
                      label=f"side {s}") for s in sides]
    handles += [Line2D([], [], marker="*", ls="", color=GREY, markersize=10,
                       label="differs from the fair share (BH q < 0.05)"),
                Line2D([], [], color=GREY, ls="--", label="fair share 1/P")]
    fig.legend(handles=handles, loc="outside right center", fontsize=8.5)
    design = bal["design"][0]
    what = (f"focus seat of the setup grid{f', {focus}' if focus else ''} (experiment, paired on the deal)"
            if design == "experimental" else "cards as dealt, sides as chosen (observational)")
    title = "Setup cards: win share against the fair share 1/P, and mean score per card and side"
    return _finish(fig, title,
                   footer(info, what + "; n = deals per card and side"))


def ladder_chart(effects: pl.DataFrame, steps: pl.DataFrame, cell: Sequence[str], info: dict,
                 what: str = "side B minus side A") -> Figure:
    """An effect under each field of a ladder, weakest first (x), with 95% CIs: a panel per group of
    `cell` but its last column, a line per value of that last one (a setup card), each ending in
    whether its last step settled (`fields.field_robustness(..., steps=True)`). `effects` holds each
    cell's effect under each field (`diff`, `low`, `high`, shares, and the field's label in `field`)."""
    _drawable(effects, (*cell, "field", "diff", "low", "high"), "an effect per cell and field (setup_side_contrasts)")
    _drawable(steps, (*cell, "robust"), "a ladder's steps (field_robustness with steps=True)")
    names = [c[len("effect "):] for c in steps.columns if c.startswith("effect ")]
    panel, line = list(cell[:-1]), cell[-1]
    groups = effects.select(panel).unique(maintain_order=True).sort(panel).to_dicts() if panel else [{}]
    words = {tuple(r[c] for c in cell): r["robust"] for r in steps.to_dicts()}
    fig = _figure(max(8.0, 5.6 * len(groups) + 0.6), 5.2)
    axes = fig.subplots(1, len(groups), squeeze=False, sharey=True)[0]
    x = np.arange(len(names))
    for ax, group in zip(axes, groups):
        sub = effects.filter(*[pl.col(c) == v for c, v in group.items()]) if group else effects
        values = sorted(sub[line].unique().to_list())
        for k, value in enumerate(values):
            rows = {r["field"]: r for r in sub.filter(pl.col(line) == value).to_dicts()}
            shown = [i for i, n in enumerate(names) if n in rows]
            m, err = _err([rows[names[i]]["diff"] for i in shown], [rows[names[i]]["low"] for i in shown],
                          [rows[names[i]]["high"] for i in shown], 100)
            colour = LINE_COLOURS[k % len(LINE_COLOURS)]
            offset = (k - (len(values) - 1) / 2) * 0.06  # the CIs side by side, not on top of each other
            ax.errorbar(x[shown] + offset, m, yerr=err, fmt="o-", color=colour, ecolor=colour, capsize=3, lw=1.3,
                        markersize=4.5, label=f"{value_label(line, value)}: {words.get((*group.values(), value), 'n/a')}")
        ax.axhline(0, color="black", lw=0.9)
        ax.set_xticks(x, [_wrapped(n, 14) for n in names], fontsize=9)
        ax.set_xlim(-0.4, len(names) - 0.6)
        ax.grid(axis="y", alpha=0.3)
        ax.set_title(", ".join(value_label(c, v) for c, v in group.items()), fontsize=10)
        ax.set_xlabel("opponent field, weakest first")
        ax.legend(fontsize=8, frameon=False, title="by the strongest field", title_fontsize=8, loc="upper left",
                  bbox_to_anchor=(1.0, 1.0))  # beside the panel: the lines cross where a legend inside would sit
    axes[0].set_ylabel(f"{what} (percentage points)")
    return _finish(fig, f"Does {what} settle as the fields grow stronger? ({' < '.join(names)})",
                   footer(info, "paired on the deal and seat; settled = the last step equivalent to zero within the "
                                "margin (TOST, Holm over the steps); n = deals per point"))


# --- purple effects ---------------------------------------------------------------------------

def forest_chart(tab: pl.DataFrame, label: Label, info: dict, *, observational: bool,
                 split: str | None = None, split_label: Callable[[object], str] = str,
                 placebo: bool = False) -> Figure:
    """Two panels: the difference in win share (percentage points) and in final score (points) per
    effect, with 95% CIs, sorted by the win-share difference; zero = no difference.

    With `split` (a column such as players), one row per effect (`label`) with one marker per value
    of `split`, side by side in its own colour."""
    if tab is None:  # grant_effects or placebo_effects of a dataset without that experiment
        raise ReportError("nothing to draw: the table is None, as grant_effects and placebo_effects give for a "
                          "dataset without a sweep over grants (scenarios/purple-effects.toml has one)")
    splits = sorted(tab[split].unique().to_list()) if split else [None]
    rows = tab.to_dicts()
    keys: dict[str, list[dict]] = {}
    for r in rows:
        keys.setdefault(label(r), []).append(r)
    order = sorted(keys, key=lambda k: np.nanmean([r["win_diff"] for r in keys[k]]))
    k = len(order)
    per_row = 0.36 if len(splits) == 1 else 0.2 + 0.12 * len(splits)
    fig = _figure(11.0, 2.1 + per_row * k)
    axes = fig.subplots(1, 2, sharey=True)
    palette = [ORANGE, BLUE, "#3b8f3b", RED, "#7b3fb0", GREY] if observational else \
        [BLUE, ORANGE, "#3b8f3b", RED, "#7b3fb0", GREY]
    step = 0.7 / len(splits)
    for j, value in enumerate(splits):
        colour = palette[j % len(palette)]
        ys, sel = [], []
        for i, key in enumerate(order):
            for r in keys[key]:
                if split is None or r[split] == value:
                    ys.append(i + (j - (len(splits) - 1) / 2) * step * (-1))
                    sel.append(r)
        for ax, name, scale in ((axes[0], "win", 100), (axes[1], "score", 1)):
            m, err = _err([r[f"{name}_diff"] for r in sel], [r[f"{name}_low"] for r in sel],
                          [r[f"{name}_high"] for r in sel], scale)
            ax.errorbar(m, ys, xerr=err, fmt="o", color=colour, ecolor=colour, capsize=2.5,
                        markersize=4.5 if split else 5, lw=1.3,
                        label=split_label(value) if split and ax is axes[0] else None)
    for ax, xlabel in ((axes[0], "difference in win share (percentage points)"),
                       (axes[1], "difference in final score (points)")):
        ax.axvline(0, color="black", lw=0.9)
        ax.set_xlabel(xlabel)
        ax.grid(axis="x", alpha=0.3)
    ticks = []
    for key in order:
        ns = [r["n"] for r in keys[key]]
        ticks.append(f"{key}  (n={min(ns):,})" if min(ns) == max(ns) else f"{key}  (n={min(ns):,}-{max(ns):,})")
    axes[0].set_yticks(np.arange(k), ticks, fontsize=9)
    axes[0].set_ylim(-0.7, k - 0.3)
    if split:
        for i in range(1, k):
            for ax in axes:
                ax.axhline(i - 0.5, color="#dddddd", lw=0.6)
        _legend_above(axes[0], ncol=len(splits))
    if observational:
        title = "Purple effects, observational: owners vs the other seats of the same game"
        note = "not causal: owners chose and kept the card; n = deals with an owner"
    else:
        controls = sorted({str(r.get("control", "none")) for r in rows}) or ["none"]
        if placebo:
            title = "Purple effects, experiment: effect card vs the plain purple cards of its epoch"
            note = f"paired on deal and seat against the {'; '.join(controls)}; n = deals"
        else:
            title = "Purple effects, experiment: granted seat vs the same seat in the control"
            note = f"paired on deal and seat against grants = '{controls[0]}'; n = deals"
    return _finish(fig, title, footer(info, note))


# --- trajectory -------------------------------------------------------------------------------

LINE_COLOURS = ("#1f5f99", "#d9711c", "#3b8f3b", "#b2182b", "#7b3fb0", "#8c564b", "#e377c2", "#555555",
                "#bcbd22", "#17becf")  # ten lines at most: an eleventh would repeat a colour


def trajectory_chart(running: pl.DataFrame, leaders: pl.DataFrame, by: Sequence[str], label: Label,
                     info: dict, by_text: str) -> Figure:
    """Left: mean running score after each epoch per group (95% CIs). Right: how often the leader
    after epoch I / II goes on to win, per player count, against chance (leaders / players)."""
    _drawable(running, ("epoch", "n", "mean", "ci_low", "ci_high"), "scores.running_scores(df, by)", label)
    fig = _figure(12.0, 5.2)
    left, right = fig.subplots(1, 2, width_ratios=[1.25, 1])
    keys = _keys(running, by)
    groups = running.select(keys).unique(maintain_order=True).to_dicts() if keys else [{}]
    final = [in_group(running, keys, g).sort("epoch")["mean"][-1] for g in groups]
    drawn = _extremes(groups, final, len(LINE_COLOURS))
    for colour, g in zip(LINE_COLOURS, drawn):
        sub = in_group(running, keys, g).sort("epoch")
        x = sub["epoch"].to_numpy()  # every group at the true epoch: a sideways dodge slants the lines
        m, err = _err(sub["mean"], sub["ci_low"], sub["ci_high"])
        name = label(g) if keys else "all seats"
        left.errorbar(x, m, yerr=err, fmt="-o", color=colour, capsize=3, markersize=4, lw=1.5,
                      label=_wrapped(f"{name} (n={sub['n'].min():,})", 40))
    left.set_xticks([1, 2, 3], ["after epoch I", "after epoch II", "end (epoch III)"])
    left.set_ylabel("mean running score (points)")
    left.set_xlabel("time in the game")
    left.set_title(f"Running score by {by_text}", fontsize=10)
    left.grid(axis="y", alpha=0.3)
    left.legend(fontsize=8, loc="upper left", framealpha=0.9)

    players = sorted(leaders["players"].unique().to_list())
    epochs = sorted(leaders["epoch"].unique().to_list())
    bw = 0.8 / max(len(epochs), 1)
    names = {1: "I", 2: "II", 3: "III"}
    for j, e in enumerate(epochs):
        sub = leaders.filter(pl.col("epoch") == e).sort("players")
        x = np.arange(len(players)) + (j - (len(epochs) - 1) / 2) * bw
        m, err = _err(sub["mean"], sub["ci_low"], sub["ci_high"], 100)
        right.bar(x, m, bw * 0.9, yerr=err, capsize=4, color=[BLUE, ORANGE, GREY][j % 3], alpha=0.85,
                  label=f"leader after epoch {names.get(e, e)}")
        right.hlines(sub["fair"].to_numpy() * 100, x - bw * 0.45, x + bw * 0.45, colors="black",
                     linestyles="--", lw=1.3, zorder=3, label="chance (leaders / players)" if j == 0 else None)
        for xi, mi in zip(x, m):
            right.annotate(f"{mi:.0f}%", (xi, mi), xytext=(8, 3), textcoords="offset points",
                           ha="left", fontsize=8.5, fontweight="bold")
    ns = leaders.group_by("players").agg(pl.col("n").min()).sort("players")["n"].to_list()
    right.set_xticks(np.arange(len(players)), [f"{p} players\n(n={n:,})" for p, n in zip(players, ns)])
    right.set_ylabel("leader's win share (%)")
    right.set_xlabel("player count")
    right.set_ylim(0, 105)
    _pct_axis(right, "y")
    right.set_title("How often the leader goes on to win", fontsize=10)
    right.grid(axis="y", alpha=0.3)
    right.legend(fontsize=8, loc="upper right", framealpha=0.9)
    shown = _drawn_words(len(drawn), len(groups), "at the end")
    return _finish(fig, "Score trajectory and the value of an early lead",
                   footer(info, (shown, "n = deals")))


def _extremes(groups: list, values: Sequence[float], limit: int = MAX_GROUPS) -> list:
    """The groups a chart draws: all of them up to `limit`, else the `limit // 2` highest and lowest by
    `values` (one per group; an unknown one counts as neither), in the table's order."""
    if len(groups) <= limit:
        return list(groups)
    values = np.asarray(values, dtype=float)
    order = [i for i in np.argsort(values, kind="stable") if np.isfinite(values[i])]
    keep = set(order[: limit // 2]) | set(order[-(limit // 2):])
    return [g for i, g in enumerate(groups) if i in keep]


def _drawn_words(drawn: int, groups: int, what: str) -> str:
    """What a chart of a few of its groups left out, for its footer ("" when it draws them all)."""
    if drawn == groups:
        return ""
    return f"{drawn} of {groups:,} groups drawn, the {drawn // 2} highest and {drawn // 2} lowest {what} (the table has all)"


# Card colours as on the cards (purple a little lighter so its error bars stay visible).
CARD_COLOURS = {"yellow": "#d4a600", "red": "#c0392b", "blue": "#2e6fb7", "green": "#3c8f3c", "purple": "#8e5bb5"}


def card_value_chart(cards: pl.DataFrame, info: dict) -> Figure:
    """Printed cost against the measured win-share difference of buyers (observational), one panel
    per epoch, points coloured by card colour, with 95% CIs."""
    _drawable(cards, ("epoch", "colour", "cost", "win_diff", "win_low", "win_high"), "cards.card_table(df, components)")
    epochs = sorted(cards["epoch"].unique().to_list())
    fig = _figure(4.2 * len(epochs) + 0.6, 4.6)
    axes = fig.subplots(1, len(epochs), sharey=True, squeeze=False)[0]
    for ax, epoch in zip(axes, epochs):
        part = cards.filter((pl.col("epoch") == epoch) & pl.col("win_diff").is_not_nan())
        for k, colour in enumerate(CARD_COLOURS):
            rows = part.filter(pl.col("colour") == colour)
            if rows.height == 0:
                continue
            x = rows["cost"].to_numpy() + (k - 2) * 0.09  # side by side: several cards share a cost
            y, err = _err(rows["win_diff"], rows["win_low"], rows["win_high"], 100)
            ax.errorbar(x, y, yerr=err, fmt="o", ms=4.5, color=CARD_COLOURS[colour], ecolor=CARD_COLOURS[colour],
                        elinewidth=0.8, alpha=0.85, label=colour)
        ax.axhline(0, color=GREY, linewidth=0.8)
        ax.set_title(f"epoch {epoch}", fontsize=10)
        ax.set_xlabel("printed cost (coins)")
        ax.grid(axis="y", color="#e5e5e5", linewidth=0.6)
    low, high = axes[0].get_ylim()
    axes[0].set_ylim(max(low, -105), min(high, 105))  # a difference of shares lies within ±100 pp
    axes[0].set_ylabel("buyers' win share minus passers' (pp)")
    _legend_above(axes[len(axes) // 2], ncol=5)
    n = int(cards["n"].fill_null(0).max() or 0)
    return _finish(fig, "Card cost against how its buyers fared (observational)",
                   footer(info, f"up to {n:,} deals a card; each point: buyers against seats of the same game that "
                                "could have bought the card and did not, paired on deals; buyers chose the card, so "
                                "this is not the card's causal effect"))


def fair_cost_chart(fair: pl.DataFrame, info: dict) -> Figure:
    """Printed cost (x) against the fair cost found by restricted play (y) with its 95% CI, one panel per
    player count (and field, where a run swept one), the diagonal where a card costs what it is worth;
    cards without a crossing are left out."""
    _drawable(fair, ("players", "printed_cost", "fair_cost", "fair_low", "fair_high"), "worth.fair_costs(pairs, components)")
    by = ["players", *(["field"] if "field" in fair.columns else [])]
    panels = fair.select(by).unique().sort(by).rows()
    fig = _figure(4.6 * len(panels) + 0.6, 4.8)
    axes = fig.subplots(1, len(panels), sharey=True, squeeze=False)[0]
    found = fair.filter(pl.col("fair_cost").is_not_nan())
    top = max([float(found["fair_high"].max() or 0), float(fair["printed_cost"].max() or 0)]) + 1
    bottom = min([float(found["fair_low"].min() or 0), 0.0]) - 1
    for ax, (players, *field) in zip(axes, panels):
        here = pl.all_horizontal([pl.col(c) == v for c, v in zip(by, (players, *field))])
        part = found.filter(here)
        ax.plot([bottom, top], [bottom, top], color=GREY, ls="--", lw=1.0, label="fair cost = printed cost")
        jitter = (np.arange(part.height) % 5 - 2) * 0.06  # side by side: several cards share a cost
        y, err = _err(part["fair_cost"], part["fair_low"], part["fair_high"])
        ax.errorbar(part["printed_cost"].to_numpy() + jitter, y, yerr=err, fmt="o", ms=4, color=BLUE, ecolor=BLUE,
                    elinewidth=0.8, alpha=0.8, label="fair cost, 95% CI")
        ax.set_xlim(bottom, top)
        ax.set_ylim(bottom, top)
        ax.set_title(f"{players} players{''.join(f', {f}' for f in field)} ({part.height} of "
                     f"{fair.filter(here).height} cards with a crossing)", fontsize=10)
        ax.set_xlabel("printed cost (coins)")
        ax.grid(color="#e5e5e5", linewidth=0.6)
    axes[0].set_ylabel("fair cost: seek and avoid level (coins)")
    _legend_above(axes[0], ncol=2)
    return _finish(fig, "What each card should cost: printed cost against the cost at which buying it is level "
                        "with never buying it",
                   footer(info, "above the diagonal: worth more than its price; fit of seek - avoid over the swept "
                                "costs, paired on deals", "error bars: 95% CI (delta method, cluster-robust by deal)"))

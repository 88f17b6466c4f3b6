"""A fit's output: the command that makes it, the change set, the before/after table and chart (see the
package docstring)."""

from __future__ import annotations


import numpy as np
import polars as pl

from ..components import SETUP_VALUES
from .driver import Fit
from .plan import SIDES, FitPlan

def command_line(plan: FitPlan) -> str:
    """The command that makes this fit."""
    parts = ["hadara-sim balance fit", *[f"-p {p}" for p in plan.players], f"--policy {plan.policy}"]
    if sorted(plan.sides) != sorted(SIDES):
        parts += [f"--side {s}" for s in plan.sides]
    if list(plan.fields) != list(SETUP_VALUES):
        parts.append(f"--values {','.join(plan.fields)}")
    parts += [f"--games {plan.games}", f"--points {plan.points}", *([f"--resweep {plan.resweep}"] if plan.resweep else []),
              f"--confirm-games {plan.confirm_option()}",
              f"--rounds {plan.rounds}", f"--margin {100 * plan.margin:g}", f"--aim {plan.aim:g}",
              f"--reach {plan.reach}", f"--max-changed {plan.max_changed}",
              *([] if plan.table else ["--no-table-terms"]), f"--seed {plan.seed}"]
    if plan.components:
        parts.append(f"--components {plan.components}")
    return " ".join(parts)


def change_table(result: Fit) -> pl.DataFrame:
    """One row per changed value: side, field, current, proposed, change."""
    rows = [{"side": s, "value": f, "now": result.now[s][f], "proposed": result.now[s][f] + d, "change": d}
            for s, values in sorted(result.change.items()) for f, d in values.items()]
    return pl.DataFrame(rows, schema={"side": pl.String, "value": pl.String, "now": pl.Int64, "proposed": pl.Int64,
                                      "change": pl.Int64})


def before_after(result: Fit) -> pl.DataFrame:
    """Per named side and player count: win share with its 95% CI and verdict before (the current set)
    and after (the change set), both on the last confirmation's deals."""
    cols = ["players", "side", "n", "mean", "ci_low", "ci_high", "q_equiv", "verdict", "more", "more_games"]
    before = result.before.select(cols).rename({c: f"before_{c}" for c in cols[2:]})
    after = result.after.select(cols).rename({c: f"after_{c}" for c in cols[2:]})
    return before.join(after, on=["players", "side"]).sort(["players", "side"])


def chart(result: Fit, info: dict):
    """Per player count: every named side's win share before and after with its 95% CI, against 1/P
    with the fair band."""
    from matplotlib.lines import Line2D

    from ..report.charts import BLUE, GREY, RATE_NOTE, _err, _figure, _finish, _pct_axis, footer

    table = before_after(result)
    counts = sorted(table["players"].unique().to_list())
    fig = _figure(max(7.5, 3.6 * len(counts) + 0.6), 4.6)
    axes = fig.subplots(1, len(counts), squeeze=False)[0]
    for ax, p in zip(axes, counts):
        sub = table.filter(pl.col("players") == p)
        x = np.arange(sub.height)
        ax.axhspan(100 * (1 / p - result.plan.margin), 100 * (1 / p + result.plan.margin), color=GREY, alpha=0.15,
                   lw=0)
        ax.axhline(100 / p, color=GREY, ls="--", lw=1.1)
        for when, colour, shift in (("before", GREY, -0.15), ("after", BLUE, 0.15)):
            m, err = _err(sub[f"{when}_mean"], sub[f"{when}_ci_low"], sub[f"{when}_ci_high"], 100)
            ax.errorbar(x + shift, m, yerr=err, fmt="o", color=colour, ecolor=colour, capsize=3, markersize=5)
        changed = [s in result.change for s in sub["side"].to_list()]
        ax.set_xticks(x, [f"{s}*" if c else s for s, c in zip(sub["side"].to_list(), changed)])
        ax.set_title(f"{p} players (n ≥ {min(sub['before_n'].min(), sub['after_n'].min()):,} deals per side)",
                     fontsize=10)
        ax.grid(axis="y", alpha=0.3)
        _pct_axis(ax, "y")
    axes[0].set_ylabel("win share (%)")
    handles = [Line2D([], [], marker="o", ls="", color=GREY, label="before (current set)"),
               Line2D([], [], marker="o", ls="", color=BLUE, label="after (change set)"),
               Line2D([], [], color=GREY, ls="--", label="fair share 1/P"),
               Line2D([], [], color=GREY, lw=6, alpha=0.3, label=f"±{100 * result.plan.margin:g} pp")]
    fig.legend(handles=handles, loc="outside lower center", ncol=4, fontsize=8.5, frameon=False)
    return _finish(fig, "Setup card sides before and after the fitted change set, against 1/P",
                   footer(info, "* = a side the set changes; both on the same fresh deals", RATE_NOTE))

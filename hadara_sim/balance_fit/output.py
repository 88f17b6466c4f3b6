"""A fit's output: the command that makes it, the change set, the before/after table and chart (see the
package docstring)."""

from __future__ import annotations

import shlex

import numpy as np
import polars as pl

from ..components import SETUP_VALUES
from ..invocation import program
from .cards import CardFit, CardPlan
from .driver import Fit
from .plan import SIDES, FitPlan

def command_line(plan: FitPlan) -> str:
    """The command that makes this fit."""
    parts = [f"{program()} balance fit", *[f"-p {p}" for p in plan.players], f"--policy {shlex.quote(plan.policy)}"]
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
        parts.append(f"--components {shlex.quote(plan.components)}")
    return " ".join(parts)


def change_table(result: Fit) -> pl.DataFrame:
    """One row per changed value: side, field, current, proposed, change."""
    rows = [{"side": s, "value": f, "now": result.now[s][f], "proposed": result.now[s][f] + d, "change": d}
            for s, values in sorted(result.change.items()) for f, d in values.items()]
    return pl.DataFrame(rows, schema={"side": pl.String, "value": pl.String, "now": pl.Int64, "proposed": pl.Int64,
                                      "change": pl.Int64})


def card_command_line(plan: CardPlan) -> str:
    """The command that makes this card-cost fit."""
    parts = [f"{program()} balance fit", *[f"-p {p}" for p in plan.players], f"--policy {shlex.quote(plan.policy)}",
             *[f"--card {k}" for k in plan.cards], f"--games {plan.games}", f"--points {plan.points}",
             f"--confirm-games {plan.confirm_option()}", f"--rounds {plan.rounds}", f"--margin {100 * plan.margin:g}",
             f"--aim {plan.aim:g}", f"--reach {plan.reach}", f"--seed {plan.seed}"]
    if plan.components:
        parts.append(f"--components {shlex.quote(plan.components)}")
    return " ".join(parts)


def card_change_table(result: CardFit) -> pl.DataFrame:
    """One row per changed cost: card, value ("cost"), current, proposed, change."""
    rows = [{"card": k, "value": "cost", "now": result.now[k], "proposed": result.now[k] + d, "change": d}
            for k, d in sorted(result.change.items())]
    return pl.DataFrame(rows, schema={"card": pl.String, "value": pl.String, "now": pl.Int64, "proposed": pl.Int64,
                                      "change": pl.Int64})


def card_before_after(result: CardFit) -> pl.DataFrame:
    """Per named card and player count: seek minus avoid with its 95% CI and verdict before (the
    current costs) and after (the fitted costs), both on the best round's deals."""
    cols = ["players", "card_id", "n", "diff", "low", "high", "q_equiv", "verdict", "more", "more_games"]
    names = {"diff": "mean", "low": "ci_low", "high": "ci_high"}

    def part(table: pl.DataFrame, when: str) -> pl.DataFrame:
        return table.select(cols).rename({c: f"{when}_{names.get(c, c)}" for c in cols[2:]})

    return part(result.before, "before").join(part(result.after, "after"), on=["players", "card_id"]).sort(
        ["players", "card_id"])


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
    from ..report.charts import RATE_NOTE

    return _before_after_chart(before_after(result), "side", "side", lambda p: 1 / p, result.plan.margin,
                               result.change,
                               "win share (%)", ("fair share 1/P", "current set", "change set"),
                               "Setup card sides before and after the fitted change set, against 1/P",
                               "* = a side the set changes; both on the same fresh deals", RATE_NOTE, info)


def card_chart(result: CardFit, info: dict):
    """Per player count: every named card's seek minus avoid before and after with its 95% CI,
    against level (0) with the fair band."""
    from ..report.charts import CI_NOTE

    return _before_after_chart(card_before_after(result), "card_id", "card", lambda p: 0.0, result.plan.margin,
                               result.change, "seek - avoid (pp of win share)",
                               ("level: worth its price", "current costs", "fitted costs"),
                               "Card costs before and after the fit: seeking minus avoiding each card",
                               "* = a card whose cost the set changes; restricted play, paired on the same fresh "
                               "deals (a relative contrast)", CI_NOTE, info)


def _before_after_chart(table: pl.DataFrame, key: str, key_word: str, reference, margin: float, changed, ylabel: str,
                        names: tuple[str, str, str], title: str, note: str, bars: str, info: dict):
    """Per player count, each row's estimate before (grey) and after (blue) with its 95% CI (`bars`
    says which), against `reference(players)` and the band of ± margin around it."""
    from matplotlib.lines import Line2D

    from ..report.charts import BLUE, GREY, _err, _figure, _finish, _pct_axis, footer

    counts = sorted(table["players"].unique().to_list())
    fig = _figure(max(7.5, 3.6 * len(counts) + 0.6) + 1.8, 4.6)  # the legend at the right
    axes = fig.subplots(1, len(counts), squeeze=False)[0]
    for ax, p in zip(axes, counts):
        sub = table.filter(pl.col("players") == p)
        x = np.arange(sub.height)
        ax.axhspan(100 * (reference(p) - margin), 100 * (reference(p) + margin), color=GREY, alpha=0.15, lw=0)
        ax.axhline(100 * reference(p), color=GREY, ls="--", lw=1.1)
        for when, colour, shift in (("before", GREY, -0.15), ("after", BLUE, 0.15)):
            m, err = _err(sub[f"{when}_mean"], sub[f"{when}_ci_low"], sub[f"{when}_ci_high"], 100)
            ax.errorbar(x + shift, m, yerr=err, fmt="o", color=colour, ecolor=colour, capsize=3, markersize=5)
        labels = [f"{s}*" if s in changed else s for s in sub[key].to_list()]
        crowded = sum(map(len, labels)) > 36  # card ids side by side would overlap
        ax.set_xticks(x, labels, rotation=60 if crowded else 0, ha="right" if crowded else "center",
                      rotation_mode="anchor", fontsize=8 if crowded else None)
        ax.set_title(f"{p} players (n ≥ {min(sub['before_n'].min(), sub['after_n'].min()):,} deals per {key_word})",
                     fontsize=10)
        ax.grid(axis="y", alpha=0.3)
        _pct_axis(ax, "y")
    axes[0].set_ylabel(ylabel)
    handles = [Line2D([], [], marker="o", ls="", color=GREY, label=f"before ({names[1]})"),
               Line2D([], [], marker="o", ls="", color=BLUE, label=f"after ({names[2]})"),
               Line2D([], [], color=GREY, ls="--", label=names[0]),
               Line2D([], [], color=GREY, lw=6, alpha=0.3, label=f"±{100 * margin:g} pp")]
    fig.legend(handles=handles, loc="outside right center", fontsize=8.5)
    return _finish(fig, title, footer(info, note, bars))

"""The reports as sections: the estimates (`wins`, `scores`, `ratings`, ...) formatted as tables,
with their charts (`charts`). The command line prints a section's tables and saves its charts; the
HTML summary renders every section that applies (`summary`).

Here: the section model, how cells, groups and verdicts read in a table, the tables several sections
share (paired differences, robustness to the opponent field), and the sections on players and
policies (win rate, score breakdown, seats, ratings, trajectory); `component_sections` holds those
on the components (setup cards, purple effects, cards).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import polars as pl
from matplotlib.figure import Figure

from .. import provenance
from . import charts
from . import inference as I
from . import verdict as V
from .dataset import (INFO_KEYS, SETUP_SWEEPS, ReportError, check_columns, combination_by, full_info,
                      group_columns, in_group, mirror, pooled_over)
from .fields import AGREEMENT, value_label
from .scores import PART_LABELS, STACK_ORDER, leader_wins, running_scores, score_breakdown
from .table import Table
from .verdict import NA
from .wins import first_player_rates, seat_rates, sweep_contrasts, win_rates

POINTS = dict.fromkeys(("mean", "ci_low", "ci_high"), "points")   # a table of scores, not shares


@dataclass
class Section:
    """One report: its tables, its charts and notes on the parts left out."""

    key: str
    title: str
    intro: str
    tables: list[Table] = field(default_factory=list)
    figures: list[tuple[str, Figure]] = field(default_factory=list)  # (file stem, figure)
    notes: list[str] = field(default_factory=list)                    # parts skipped and why


def scoped(section: Section, info: dict) -> Section:
    """`section` with the caption of every table that gives verdicts ending in the policy field and the
    component values they hold for (`provenance.field_line`), once: a verdict on a card or a seat says
    nothing of other bots, and only the setup cells' table said so."""
    scope = provenance.field_line(info)
    for t in section.tables:
        gives = t.data is not None and any(c.endswith("verdict") or c == "robust" for c in t.data.columns)
        if gives and scope not in t.caption:
            t.caption = f"{t.caption}; {scope}" if t.caption else scope
    return section


# --- formatting -------------------------------------------------------------------------------

def finite(x) -> bool:
    """Whether `x` is a finite number (not None, NaN or infinite)."""
    return x is not None and isinstance(x, (int, float)) and math.isfinite(x)


def pct(x) -> str:
    """A share in percent: 0.123 -> '12.3%'."""
    return f"{100 * x:.1f}%" if finite(x) else NA


def pct_ci(lo, hi) -> str:
    """A CI of a share in percent: '[10.1, 14.5]'."""
    return f"[{100 * lo:.1f}, {100 * hi:.1f}]" if finite(lo) and finite(hi) else NA


def pp(x) -> str:
    """A difference of shares in percentage points: '+1.2 pp'."""
    return f"{100 * x:+.1f} pp" if finite(x) else NA


def pp_ci(lo, hi) -> str:
    """A CI of a difference of shares in percentage points: '[-0.3, +2.7]'."""
    return f"[{100 * lo:+.1f}, {100 * hi:+.1f}]" if finite(lo) and finite(hi) else NA


def num(x, digits: int = 1, sign: bool = False) -> str:
    """A number with `digits` decimals (and its sign with `sign`)."""
    return f"{x:{'+' if sign else ''}.{digits}f}" if finite(x) else NA


def num_ci(lo, hi, digits: int = 1, sign: bool = False) -> str:
    """A CI of a number, as `num` writes it."""
    s = "+" if sign else ""
    return f"[{lo:{s}.{digits}f}, {hi:{s}.{digits}f}]" if finite(lo) and finite(hi) else NA


def pval(p) -> str:
    """A p- or q-value: three decimals, '<0.001' below that."""
    if not finite(p):
        return NA
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def pooled_title(df: pl.DataFrame, by) -> str:
    """" (pooled over ...)" when the grouping mixes combinations of the run."""
    return pooled_words(pooled_over(df, by))


def pooled_words(pooled: Sequence[str]) -> str:
    """" (pooled over ...)" naming the columns `pooled`, or nothing without any."""
    return f" (pooled over {', '.join(column_name(c) for c in pooled)})" if pooled else ""


COLUMN_NAMES = {"policy_label": "policy", "seat": "seat", "players": "players", "setup_card": "setup card",
                "setup_side": "side", "advanced": "game", "colour_order": "colour order"}


def column_name(col: str) -> str:
    """A column's name in a table header: policy_label -> 'policy', sweep_x_y -> 'x y'."""
    if col in COLUMN_NAMES:
        return COLUMN_NAMES[col]
    if col.startswith("sweep_"):
        return col[len("sweep_"):].replace("_", " ")
    return col.replace("_", " ")


def group_label(by: Sequence[str]):
    """A function: group row (dict) -> a short label such as "balanced, 4 players"."""
    by = list(by)

    def label(row: dict) -> str:
        if not by:
            return "all seats"
        return ", ".join(value_label(c, row.get(c)) for c in by)
    return label


def by_text(by: Sequence[str]) -> str:
    """The groups of a table in words: 'policy and players'."""
    return " and ".join(column_name(c) for c in by) if by else "dataset"


def _stem(by: Sequence[str]) -> str:
    """A chart file name's part for the groups: 'policy-players'."""
    return "-".join(column_name(c).replace(" ", "-") for c in by) or "all"


# --- tables several sections share --------------------------------------------------------------

def paired_table(title: str, first: str, a: str, b: str, tab: pl.DataFrame, label, margin: float,
                 columns: tuple[str, str] = ("a", "b"), games: int | None = None) -> Table:
    """A table of paired differences a - b (`estimates.paired_diff` with verdicts), one row per group;
    `columns` name the two means in `tab`; `games`: the run's games per combination (its hints' --games)."""
    rows = [[label(r), f"{r['n']:,}", pct(r[columns[0]]), pct(r[columns[1]]), pp(r["diff"]), pp_ci(r["low"], r["high"]),
             pval(r["q"]), V.render(r)] for r in tab.to_dicts()]
    return Table(title, [first, "n (deals)", a, b, "difference", "95% CI", "q", "verdict"], rows,
                 caption="paired t-test over deals, 95% CI; " + V.caption(tab.height, margin)
                 + V.precision_caption(tab, games=games),
                 marked=tab["significant"].to_list(), data=tab)


def robustness_table(what: str, first: str, tab: pl.DataFrame | None, label) -> Table | None:
    """Whether each effect of a report table holds under every opponent field (a table from
    `fields.field_robustness`; None passes through), in two levels: first the effect and its verdict
    under every field, the range of sizes and whether the verdicts agree; then the paired interaction
    test, each field's effect minus the first field's with its CI, and its word."""
    if tab is None:
        return None
    names = [c[len("effect "):] for c in tab.columns if c.startswith("effect ")]
    first_field, rest = names[0], names[1:]
    counts = {w: int((tab["robust"] == w).sum()) for w in ("robust", "depends on the bots", "undecided")}
    agree = {w: int((tab["agreement"] == w).sum()) for w in AGREEMENT}
    rows = [[label(r), *[f"{pp(r[f'effect {n}'])} {V.cell(r[f'verdict {n}'])}" for n in names],
             f"{pp(r['size_low'])} to {pp(r['size_high'])}", r["agreement"] or NA,
             *[cell for n in rest for cell in (pp(r[f"difference {n}"]), pp_ci(r[f"low {n}"], r[f"high {n}"]))],
             V.undecided_text(r.get("more")) if r["robust"] == "undecided" else r["robust"]] for r in tab.to_dicts()]
    columns = [first, *[f"under {n}" for n in names], "sizes across fields", "verdicts",
               *[c for n in rest for c in (f"{n} minus {first_field}", "95% CI")], "interaction test"]
    return Table(f"Does each effect hold under every opponent field? {what}: {agree[AGREEMENT[0]]} same verdict "
                 f"under every field, {agree[AGREEMENT[1]]} verdicts differ, {agree[AGREEMENT[2]]} undecided under "
                 f"a field; interaction test: {counts['robust']} robust, {counts['depends on the bots']} depend on "
                 f"the bots, {counts['undecided']} undecided ({' vs '.join(names)})", columns, rows,
                 caption="first level, under each field: the effect and its verdict (paired t-test and TOST over "
                         "deals against zero, corrected over every row and field of this table: Benjamini-Hochberg "
                         "for stronger / weaker, Holm for fair); same verdict under every field = every field "
                         "decided alike; verdicts differ = two fields decided differently; undecided under a field "
                         "= neither; sizes across fields = the smallest and largest effect. Second level, the "
                         "interaction test: every field plays the same deals, so per deal the effect under a field "
                         "minus the effect under the first field, paired t-test over deals (scipy ttest_rel; 95% CI) and "
                         "paired TOST within the margin; robust = that difference is equivalent to zero; depends on "
                         "the bots = it differs from zero (and is not equivalent); undecided = neither, more deals "
                         f"needed; both corrected by Holm over the {tab.height} row{'s' * (tab.height != 1)} of this "
                         "table, so each word is wrong in at most 5 % of tables; marked rows: verdicts differ",
                 marked=[r == AGREEMENT[1] for r in tab["agreement"].to_list()], data=tab)


def ladder_table(what: str, first: str, tab: pl.DataFrame | None, label) -> Table | None:
    """Whether each effect settles as the opponent fields grow stronger (a table from
    `fields.field_robustness(..., steps=True)`, fields in the order swept, weakest first; None passes
    through): the effect under every field, each step from one field to the next with its CI, and
    whether the last step is equivalent to zero."""
    if tab is None:
        return None
    names = [c[len("effect "):] for c in tab.columns if c.startswith("effect ")]
    counts = {w: int((tab["robust"] == w).sum()) for w in ("settled", "still moving", "undecided")}
    rows = [[label(r), *[pp(r[f"effect {n}"]) for n in names],
             *[cell for n in names[1:] for cell in (pp(r[f"difference {n}"]), pp_ci(r[f"low {n}"], r[f"high {n}"]))],
             V.undecided_text(r.get("more")) if r["robust"] == "undecided" else r["robust"]] for r in tab.to_dicts()]
    columns = [first, *[f"effect under {n}" for n in names],
               *[c for before, n in zip(names, names[1:]) for c in (f"{n} minus {before}", "95% CI")],
               "by the strongest field"]
    return Table(f"Does each effect settle as the fields grow stronger? {what}: {counts['settled']} settled, "
                 f"{counts['still moving']} still moving, {counts['undecided']} undecided "
                 f"(ladder, in the order swept: {' < '.join(names)})", columns, rows,
                 caption="every field plays the same deals: per deal, the effect under a field minus the effect "
                         "under the field before it, paired t-test over deals (scipy ttest_rel; 95% CI) and paired TOST within "
                         "the margin, each corrected by Holm over the steps of this table; settled = the last step "
                         "(to the strongest field) is equivalent to zero; still moving = it differs from zero (the "
                         "verdict may change again with stronger bots); undecided = neither, with about how many "
                         "more deals would show the last step flat with 80 % chance (none given when the step lies "
                         "outside the margin: more deals would show a difference; it takes the step measured for the "
                         "true one, rounded up to two figures); marked rows are still moving",
                 marked=[r == "still moving" for r in tab["robust"].to_list()], data=tab)


# --- sections ---------------------------------------------------------------------------------

def winrate(df: pl.DataFrame, info: dict, by: Sequence[str] | None = None, margin: float = I.MARGIN) -> Section:
    """Win share per group against 1/P, and each swept value against the first, per policy."""
    info = full_info(df, info)
    by = group_columns(df, "winrate", by)  # from Python as from --by: a name, a list, an alias, or none
    st = V.with_verdicts(win_rates(df, by, margin), margin=margin)
    label = group_label(by)
    rows = [[label(r), f"{r['n']:,}", f"{r['rows']:,}", pct(r["mean"]), pct_ci(r["ci_low"], r["ci_high"]),
             pct(r["fair"]), pp(r["diff"]), pval(r["p"]), pval(r["q"]), V.render(r, margin=margin)] for r in st.to_dicts()]
    title = f"Win rate by {by_text(by)}{pooled_title(df, by)}"
    table = Table(title,
                  [by_text(by), "n (deals)", "seats", "win share", "95% CI", "fair 1/P", "vs fair", "p", "q",
                   "verdict"],
                  rows, caption="win share: 1 per sole win, 1/k per k-way tie; 95% CI: Wilson (statsmodels) on "
                                "the deal-clustered effective sample size; p: score test against 1/P; "
                                + V.caption(st.height, margin)
                                + (f"; '{V.BY_CONSTRUCTION}': the group holds every seat of its games, whose "
                                   "shares add up to 1, so it is not tested" if st["whole"].any() else "")
                                + V.precision_caption(st, games=info.get("deals")),
                  marked=st["significant"].to_list(), data=st)
    fig = charts.winrate_chart(st, label, info, by_text(by))
    tables = [table]
    for key, tab in (sweep_contrasts(df, margin) if "policy_label" in by else {}).items():
        others = [c for c in tab.columns if c.startswith("sweep_") and c != key]
        extra = group_label(["players", *others])
        lab = lambda r, k=key, e=extra: f"{column_name(k)} = {value_label(k, r[k])}: {r['policy']} ({e(r)})"  # noqa: E731
        tables.append(paired_table(f"Sweep of {column_name(key)}: each value against {column_name(key)} = "
                                    f"{tab['first'][0]}, per policy (paired on the deal)", "value, policy",
                                    "win share", "first value", tab, lab, margin, games=info.get("deals")))
    return scoped(Section("winrate", title,
                   "The share of wins each group took, with its 95% confidence interval, against the fair "
                   "share 1/P that a player without an edge would take. Marked rows differ from fair after "
                   "the table's multiple-comparison correction. A sweep's values are also compared with its "
                   "first value on the same deals." + _mirror_words(df, by),
                   tables, [(f"winrate-by-{_stem(by)}", fig)]), info)


def _mirror_words(df: pl.DataFrame, by: Sequence[str]) -> str:
    """What a win-rate table of a mirror says: one policy on every seat takes 1/P by construction."""
    if not mirror(df):
        return ""
    who = df["policy_label"][0]
    if "policy_label" in by:
        return (f" One policy ({who}) plays every seat here, so its win share is 1/P by construction: its rows "
                f"test nothing (--by seat compares the seats).")
    return (f" One policy ({who}) plays every seat here (its own share is 1/P by construction): the groups are seats."
            if "seat" in by else "")


def breakdown(df: pl.DataFrame, info: dict, by: Sequence[str] | None = None) -> Section:
    """The mean score sheet per group (a table, stacked bars) and the distribution of totals."""
    info = full_info(df, info)
    by = group_columns(df, "breakdown", by)  # from Python as from --by: a name, a list, an alias, or none
    long = score_breakdown(df, by)
    label = group_label(by)
    totals = long.filter(pl.col("part") == "total").to_dicts()
    present = [p for p in STACK_ORDER
               if long.filter((pl.col("part") == p) & (pl.col("mean").abs() > 1e-9)).height]
    columns = [by_text(by), "n (deals)", *[PART_LABELS[p] for p in present], "total", "total 95% CI"]
    rows = []
    for t in totals:
        cells = [label(t), f"{t['n']:,}"]
        for p in present:
            r = in_group(long.filter(pl.col("part") == p), by, t).to_dicts()[0]
            cells.append(f"{num(r['mean'])} ±{num((r['ci_high'] - r['ci_low']) / 2, 1)}"
                         if finite(r["ci_low"]) else num(r["mean"]))
        cells += [num(t["mean"]), num_ci(t["ci_low"], t["ci_high"])]
        rows.append(cells)
    table = Table(f"Mean score sheet by {by_text(by)}", columns, rows,
                  caption="mean points per seat ± half the 95% CI; each purple bonus has its own column, "
                          "taken out of the score pad line that holds it: 'gold medals' = results `gold` minus "
                          "the set_collector and gold_wildcard bonuses, 'silver medals' = `silver` minus "
                          "silver_full, 'statues' = `statues` minus statue_patron; the parts add up to the "
                          "total (docs/results.md)", data=long, units=POINTS)
    figs = [(f"breakdown-by-{_stem(by)}", charts.breakdown_chart(long, by, label, info, by_text(by))),
            (f"totals-by-{_stem(by)}", charts.totals_chart(df, by, label, info, by_text(by)))]
    return Section("breakdown", f"Score breakdown by {by_text(by)}",
                   "Where the points come from: the mean score sheet per group as stacked bars, and the "
                   "distribution of final totals.", [table], figs)


def seats(df: pl.DataFrame, info: dict, margin: float = I.MARGIN) -> Section:
    """Win share by seat and by the first player of each epoch, per player count and combination."""
    info = full_info(df, info)
    st = seat_rates(df, margin)
    by = combination_by(df, skip=SETUP_SWEEPS)
    label = group_label([*by, "seat"])
    several = df["policy_label"].n_unique() > 1
    note = (" (several policies: every seat's rate averages over the policies that sat there)" if several else "")
    rows = [[label(r), f"{r['n']:,}", pct(r["mean"]), pct_ci(r["ci_low"], r["ci_high"]), pct(r["fair"]),
             pp(r["diff"]), pval(r["q"]), V.render(r, margin=margin)] for r in st.to_dicts()]
    t1 = Table(f"Win share by seat{note}",
               ["seat", "n (deals)", "win share", "95% CI", "fair 1/P", "vs fair", "q", "verdict"], rows,
               caption="95% Wilson CI (statsmodels); score test against 1/P; " + V.caption(st.height, margin)
                       + V.precision_caption(st, games=info.get("deals")), marked=st["significant"].to_list(),
               data=st)
    fp = first_player_rates(df, margin)
    label2 = group_label(by)
    rows2 = [[f"epoch {'I' * r['epoch']}" if r["epoch"] < 3 else "epoch III", label2(r), f"{r['n']:,}",
              pct(r["mean"]), pct_ci(r["ci_low"], r["ci_high"]), pct(r["fair"]), pp(r["diff"]), pval(r["q"]),
              V.render(r)] for r in fp.to_dicts()]
    t2 = Table("Win share of the first player of each epoch",
               ["first player in", "games", "n (deals)", "win share", "95% CI", "fair 1/P", "vs fair", "q",
                "verdict"], rows2,
               caption="the seat that was first player in the epoch (one per game); observational: the first "
                       "player is the holder of the lowest initiative in epoch I, the second lowest in II, the third in III "
                       "(at 2 players the lower in I and III), decided by the deal, so this mixes the turn order with "
                       "that setup card and its side; "
                       "95% Wilson CI; " + V.caption(fp.height, margin), marked=fp["significant"].to_list(),
               # the summary lists a table without a design as an experiment ("causal for the policies played")
               data=fp.with_columns(pl.lit("observational").alias("design")))
    fig = charts.winrate_chart(st, label, info, "seat")
    intro = ("Seat and turn-order effects: the win share of each seat and of each epoch's first player, against "
             "1/P. With the same policy on every seat (scenarios/seats.toml) every difference is the seat's. "
             "Policy comparisons need seats rotated (assignment = \"rotated\", the default) to cancel these.")
    return scoped(Section("seats", "Seats and turn order", intro, [t1, t2], [("seats", fig)]), info)


def ratings(df: pl.DataFrame, info: dict) -> Section:
    """Head-to-head matrix, finishing positions and Bradley-Terry ratings of the policies."""
    from . import ratings as R

    info = full_info(df, info)
    check_columns(df, "ratings")  # a frame without rank was told it had fewer than two policies
    if df["policy_label"].n_unique() < 2:
        raise ReportError("ratings need a dataset with two or more policies (e.g. scenarios/tournament.toml)")
    pairs = R.pairwise(df)
    if pairs.height == 0:
        raise ReportError("no game seats two different policies: nothing to rate")
    bt = R.bradley_terry(pairs)
    fin = R.finishing(df).join(bt.select("policy", "rating", "low", "high"), on="policy", how="left")
    fin = fin.sort("rating", descending=True, nulls_last=True)
    pooled = pooled_title(df, ["policy_label"])
    t1 = Table(f"Policies: Bradley-Terry rating, win share, finishing position and ties{pooled}",
               ["policy", "n (deals)", "rating", "95% CI", "win share", "95% CI", "mean position", "ties", "95% CI"],
               [[r["policy"], f"{r['n']:,}", num(r["rating"], 2, True), num_ci(r["low"], r["high"], 2, True),
                 pct(r["win"]), pct_ci(r["win_low"], r["win_high"]),
                 f"{num(r['rank'], 2)} ±{num(r['rank_half'], 2)}", pct(r["tie_rate"]),
                 pct_ci(r["tie_low"], r["tie_high"])] for r in fin.to_dicts()],
               caption="rating: Bradley-Terry log-odds of beating the average policy, from every pair of seats "
                       "with different policies (binomial GLM, statsmodels; CIs clustered on the deal); position: "
                       "1 = best, ±half its 95% t CI over deals (– where every deal gave the same position); ties: share of "
                       "its seats that tied for first, 95% Wilson CI on the deal-clustered effective sample size"
                       + (f"; {R.PRIOR_TEXT}" if bt["prior"].any() else ""), data=fin,
               units=R.RATING_UNITS)
    h2h = R.head_to_head(pairs)
    order = fin["policy"].to_list()
    cells = {(r["policy"], r["opponent"]): r for r in h2h.to_dicts()}
    rows = []
    for a in order:
        row = [a]
        for b in order:
            r = cells.get((a, b))
            row.append("–" if r is None else f"{100 * r['share']:.1f} {pct_ci(r['low'], r['high'])}"
                       + ("*" if r["significant"] else ""))
        rows.append(row)
    t2 = Table(f"Head to head: % of comparisons the row policy won against the column policy{pooled}", ["", *order],
               rows, caption="a comparison: two seats of one game held by the two policies (ties count half); "
                             "[95% Wilson CI on the deal-clustered effective sample size]; * = differs from 50 "
                             f"(Holm correction over the {h2h.height // 2} pair{'s' * (h2h.height // 2 != 1)})", data=h2h,
               units={"low": "%", "high": "%"})
    return Section("ratings", "Policy ratings",
                   "How the policies rank against each other, from every game in which they met.", [t1, t2], [])


def trajectory(df: pl.DataFrame, info: dict, by: Sequence[str] | None = None) -> Section:
    """The running score after each epoch per group, and how often the leader goes on to win."""
    info = full_info(df, info)
    by = group_columns(df, "trajectory", by)  # from Python as from --by: a name, a list, an alias, or none
    running = running_scores(df, by)
    leaders = leader_wins(df)
    label = group_label(by)
    names = {1: "I", 2: "II", 3: "III"}
    groups = running.select(by).unique(maintain_order=True).to_dicts() if by else [{}]
    rows = []
    for g in groups:
        sub = in_group(running, by, g).sort("epoch").to_dicts()
        cells = [label(g), f"{sub[0]['n']:,}"]
        for r in sub:
            cells += [num(r["mean"]), num_ci(r["ci_low"], r["ci_high"])]
        rows.append(cells)
    t1 = Table(f"Mean running score by {by_text(by)}",
               [by_text(by), "n (deals)", *[x for e in (1, 2, 3) for x in
                                            (f"after epoch {names[e]}" if e < 3 else "final", "95% CI")]],
               rows, caption="points as if the game ended at the end of the epoch; 95% t CI over deals", data=running, units=POINTS)
    lrows = [[str(r["players"]), f"epoch {names[r['epoch']]}", f"{r['n']:,}", pct(r["mean"]),
              pct_ci(r["ci_low"], r["ci_high"]), pct(r["fair"]), pval(r["p"])] for r in leaders.to_dicts()]
    t2 = Table("How often the leader after an epoch goes on to win",
               ["players", "leader after", "n (deals)", "leader's win share", "95% CI", "chance", "p"], lrows,
               caption="leader's win share: the win share of the seat(s) with the highest running total "
                       "(1 = the leader won alone), 95% Wilson CI; chance = leaders / players; p against chance "
                       "(score test, or a paired t-test over deals where ties make chance differ between deals), "
                       "each row on its own, no correction; csv and json add diff (leader's win share minus chance, "
                       f"95% CI), equiv_p (TOST: the p-value that the leader's win share lies within "
                       f"±{100 * I.MARGIN:g} pp of chance, each row on its own, no correction) and needed (the deals "
                       "for a 95% CI of ±1 pp on the leader's win share, from the per-deal sd, normal approximation)"
                       + V.precision_caption(leaders, games=info.get("deals")),
               # leader_wins' `fair` is chance, not 1/P: as fair_pct a reader took it for the fair share
               data=leaders.rename({"fair": "chance"}))
    fig = charts.trajectory_chart(running, leaders, by, label, info, by_text(by))
    return Section("trajectory", "Score trajectory",
                   "The mean running score after each epoch, and how decisive an early lead is.",
                   [t1, t2], [("trajectory", fig)])


def overview(info: dict) -> Table:
    """The dataset's facts: scenario, sizes, players, policies, seed, component set."""
    if not isinstance(info, dict) or not INFO_KEYS <= info.keys():
        raise ReportError("overview takes the whole info of a dataset: dataset.full_info(df, info) completes one")
    rows = [["scenario", info["scenario"]], ["description", info["description"] or NA],
            ["games", f"{info['games']:,}"], ["deals", f"{info['deals']:,}"],
            ["combinations", f"{info['combinations']:,}"], ["rows (seats played)", f"{info['rows']:,}"],
            ["players", ", ".join(map(str, info["players"]))],
            ["game", ", ".join("advanced" if a else "basic" for a in info["advanced"])],
            ["policies", ", ".join(info["policies"])],
            ["swept keys", ", ".join(c[len("sweep_"):] for c in info["sweeps"]) or NA],
            ["seed", str(info["seed"])], ["run status", str(info["status"] or NA)],
            ["hadara-sim / schema", f"{info['package_version']} / {info['schema_version']}"]]
    prov = info.get("provenance") or {}
    if prov.get("components"):
        rows.append(["component set", provenance.components_text(prov["components"])[len("components: "):]])
    if prov.get("policies"):
        rows.append(["policy settings", provenance.policies_text(prov["policies"], prov.get("policy_params"))[
            len("policies: "):]
                     + " (full parameters in metadata.json)"])
    return Table("Dataset", ["", ""], rows)

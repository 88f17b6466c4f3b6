"""The reports as sections: the statistics (stats.py), formatted as tables, and their charts
(charts.py). The command line prints a section's tables and saves its charts; the HTML summary
renders every section that applies to the dataset.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import polars as pl
from matplotlib.figure import Figure

from .. import provenance
from . import charts
from . import stats as S
from .table import Table

NA = "–"


POINTS = dict.fromkeys(("mean", "ci_low", "ci_high"), "points")   # a table of scores, not shares
GRANT_UNITS = {"win_low": "pp", "win_high": "pp"}                  # paired_diff's CI of win_diff


@dataclass
class Section:
    key: str
    title: str
    intro: str
    tables: list[Table] = field(default_factory=list)
    figures: list[tuple[str, Figure]] = field(default_factory=list)  # (file stem, figure)
    notes: list[str] = field(default_factory=list)                    # parts skipped and why


# --- formatting -------------------------------------------------------------------------------

def _ok(x) -> bool:
    return x is not None and isinstance(x, (int, float)) and math.isfinite(x)


def pct(x) -> str:
    return f"{100 * x:.1f}%" if _ok(x) else NA


def pct_ci(lo, hi) -> str:
    return f"[{100 * lo:.1f}, {100 * hi:.1f}]" if _ok(lo) and _ok(hi) else NA


def pp(x) -> str:
    return f"{100 * x:+.1f} pp" if _ok(x) else NA


def pp_ci(lo, hi) -> str:
    return f"[{100 * lo:+.1f}, {100 * hi:+.1f}]" if _ok(lo) and _ok(hi) else NA


def num(x, digits: int = 1, sign: bool = False) -> str:
    return f"{x:{'+' if sign else ''}.{digits}f}" if _ok(x) else NA


def num_ci(lo, hi, digits: int = 1, sign: bool = False) -> str:
    s = "+" if sign else ""
    return f"[{lo:{s}.{digits}f}, {hi:{s}.{digits}f}]" if _ok(lo) and _ok(hi) else NA


def pval(p) -> str:
    if not _ok(p):
        return NA
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def verdict_cell(r: dict, key: str = "verdict") -> str:
    v = r.get(key) or NA
    return {"stronger": "▲ stronger", "weaker": "▼ weaker"}.get(v, v)


def needed_text(table: pl.DataFrame, column: str = "needed") -> str:
    """The sample-size hint of a table: deals per row for a 95% CI of ±1 pp."""
    if column not in table.columns or table.height == 0:
        return ""
    values = [v for v in table[column].to_list() if _ok(v)]
    if not values:
        return ""
    return (f"; a 95% CI of ±1 pp needs about {max(values):,.0f} deals per row "
            f"(normal approximation; n now {table['n'].min():,})")


def verdict_caption(rows: int, margin: float = S.I.MARGIN) -> str:
    return (f"verdict: ▲/▼ = differs ({S.I.correction_text(rows)}); {S.I.equivalence_caption(rows, margin)}; "
            "'undecided' = neither, more games needed. Not significant is never shown as fair")


def pooled_title(df: pl.DataFrame, by) -> str:
    """" (pooled over ...)" when the grouping mixes combinations of the run."""
    pooled = S.pooled_over(df, by)
    return f" (pooled over {', '.join(column_name(c) for c in pooled)})" if pooled else ""


COLUMN_NAMES = {"policy_label": "policy", "seat": "seat", "players": "players", "setup_card": "setup card",
                "setup_side": "side", "advanced": "game", "colour_order": "colour order"}


def column_name(col: str) -> str:
    if col in COLUMN_NAMES:
        return COLUMN_NAMES[col]
    if col.startswith("sweep_"):
        return col[len("sweep_"):].replace("_", " ")
    return col.replace("_", " ")


def value_label(col: str, value) -> str:
    if col == "seat":
        return f"seat {value}"
    if col == "players":
        return f"{value} players"
    if col == "setup_card":
        return f"card {value}"
    if col == "setup_side":
        return f"side {value}"
    if col == "advanced":
        return "advanced" if value else "basic"
    if col.startswith("first_player_epoch"):
        return f"first player in epoch {col[-1]}: " + ("yes" if value else "no")
    if col == "focus_seat":
        return f"focus seat {value}"
    if col.startswith(tuple(f"sweep_{k}" for k in S.FIELD_KEYS)):
        return S.field_label(value)
    return S.fmt_value(value)


def group_label(by: Sequence[str]):
    """A function: group row (dict) -> a short label such as "balanced, 4 players"."""
    by = list(by)

    def label(row: dict) -> str:
        if not by:
            return "all seats"
        return ", ".join(value_label(c, row.get(c)) for c in by)
    return label


def by_text(by: Sequence[str]) -> str:
    return " and ".join(column_name(c) for c in by) if by else "dataset"


def _stem(by: Sequence[str]) -> str:
    return "-".join(column_name(c).replace(" ", "-") for c in by) or "all"


# --- sections ---------------------------------------------------------------------------------

def winrate(df: pl.DataFrame, info: dict, by: Sequence[str], margin: float = S.I.MARGIN) -> Section:
    by = list(by)
    st = S.with_verdicts(S.win_rates(df, by, margin), margin=margin)
    label = group_label(by)
    rows = [[label(r), f"{r['n']:,}", f"{r['rows']:,}", pct(r["mean"]), pct_ci(r["ci_low"], r["ci_high"]),
             pct(r["fair"]), pp(r["diff"]), pval(r["p"]), pval(r["q"]), verdict_cell(r)] for r in st.to_dicts()]
    title = f"Win rate by {by_text(by)}{pooled_title(df, by)}"
    table = Table(title,
                  [by_text(by), "n (deals)", "seats", "win share", "95% CI", "fair 1/P", "vs fair", "p", "q",
                   "verdict"],
                  rows, caption="win share: 1 per sole win, 1/k per k-way tie; 95% CI: Wilson (statsmodels) on "
                                "the deal-clustered effective sample size; p: score test against 1/P; "
                                + verdict_caption(st.height, margin) + needed_text(st),
                  marked=st["significant"].to_list(), data=st)
    fig = charts.winrate_chart(st, label, info, by_text(by))
    tables = [table]
    for key, tab in (S.sweep_contrasts(df, margin) if "policy_label" in by else {}).items():
        others = [c for c in tab.columns if c.startswith("sweep_") and c != key]
        extra = group_label(["players", *others])
        lab = lambda r, k=key, e=extra: f"{column_name(k)} = {value_label(k, r[k])}: {r['policy']} ({e(r)})"  # noqa: E731
        tables.append(_paired_table(f"Sweep of {column_name(key)}: each value against {column_name(key)} = "
                                    f"{tab['first'][0]}, per policy (paired on the deal)", "value, policy",
                                    "win share", "first value", tab, lab, margin))
    return Section("winrate", title,
                   "The share of wins each group took, with its 95% confidence interval, against the fair "
                   "share 1/P that a player without an edge would take. Marked rows differ from fair after "
                   "the table's multiple-comparison correction. A sweep's values are also compared with its "
                   "first value on the same deals.",
                   tables, [(f"winrate-by-{_stem(by)}", fig)])


def breakdown(df: pl.DataFrame, info: dict, by: Sequence[str]) -> Section:
    by = list(by)
    long = S.score_breakdown(df, by)
    label = group_label(by)
    totals = long.filter(pl.col("part") == "total").to_dicts()
    present = [p for p in S.STACK_ORDER
               if long.filter((pl.col("part") == p) & (pl.col("mean").abs() > 1e-9)).height]
    columns = [by_text(by), "n (deals)", *[S.PART_LABELS[p] for p in present], "total", "total 95% CI"]
    rows = []
    for t in totals:
        key = {c: t[c] for c in by}
        cells = [label(t), f"{t['n']:,}"]
        for p in present:
            sub = long.filter(pl.col("part") == p)
            for c in by:
                sub = sub.filter(pl.col(c) == key[c])
            r = sub.to_dicts()[0]
            cells.append(f"{num(r['mean'])} ±{num((r['ci_high'] - r['ci_low']) / 2, 1)}"
                         if _ok(r["ci_low"]) else num(r["mean"]))
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


def _paired_table(title: str, first: str, a: str, b: str, tab: pl.DataFrame, label, margin: float) -> Table:
    """A table of paired differences a - b (`stats.paired_diff` with verdicts), one row per group."""
    rows = [[label(r), f"{r['n']:,}", pct(r["a"]), pct(r["b"]), pp(r["diff"]), pp_ci(r["low"], r["high"]),
             pval(r["q"]), verdict_cell(r)] for r in tab.to_dicts()]
    return Table(title, [first, "n (deals)", a, b, "difference", "95% CI", "q", "verdict"], rows,
                 caption="paired t-test over deals; " + verdict_caption(tab.height, margin) + needed_text(tab),
                 marked=tab["significant"].to_list(), data=tab)


def robustness_table(what: str, first: str, tab: pl.DataFrame | None, label) -> Table | None:
    """Whether each effect of a report table depends on the opponent field (a table from
    `stats.field_robustness`; None passes through): the effect under every field, the paired
    difference of each field from the first with its CI, and one word."""
    if tab is None:
        return None
    names = [c[len("effect "):] for c in tab.columns if c.startswith("effect ")]
    first_field, rest = names[0], names[1:]
    counts = {w: int((tab["robust"] == w).sum()) for w in ("robust", "depends on the bots", "undecided")}
    rows = [[label(r), *[pp(r[f"effect {n}"]) for n in names],
             *[cell for n in rest for cell in (pp(r[f"difference {n}"]), pp_ci(r[f"low {n}"], r[f"high {n}"]))],
             r["robust"]] for r in tab.to_dicts()]
    columns = [first, *[f"effect under {n}" for n in names],
               *[c for n in rest for c in (f"{n} minus {first_field}", "95% CI")], "across fields"]
    return Table(f"Does each effect depend on the opponent field? {what}: {counts['robust']} robust, "
                 f"{counts['depends on the bots']} depend on the bots, {counts['undecided']} undecided "
                 f"({' vs '.join(names)})", columns, rows,
                 caption="every field plays the same deals: per deal, the effect under a field minus the effect "
                         "under the first field, paired t-test over deals (scipy ttest_rel) and paired TOST within "
                         "the margin; robust = that difference is equivalent to zero; depends on the bots = it "
                         "differs from zero (and is not equivalent); undecided = neither, more deals needed; both "
                         f"corrected by Holm over the {tab.height} row{'s' * (tab.height != 1)} of this table, so "
                         "each word is wrong in at most 5 % of tables; marked rows depend on the bots",
                 marked=[r == "depends on the bots" for r in tab["robust"].to_list()], data=tab)


def ladder_table(what: str, first: str, tab: pl.DataFrame | None, label) -> Table | None:
    """Whether each effect settles as the opponent fields grow stronger (a table from
    `stats.field_robustness(..., steps=True)`, fields in the order swept, weakest first; None passes
    through): the effect under every field, each step from one field to the next with its CI, and
    whether the last step is equivalent to zero."""
    if tab is None:
        return None
    names = [c[len("effect "):] for c in tab.columns if c.startswith("effect ")]
    counts = {w: int((tab["robust"] == w).sum()) for w in ("settled", "still moving", "undecided")}
    rows = [[label(r), *[pp(r[f"effect {n}"]) for n in names],
             *[cell for n in names[1:] for cell in (pp(r[f"difference {n}"]), pp_ci(r[f"low {n}"], r[f"high {n}"]))],
             r["robust"]] for r in tab.to_dicts()]
    columns = [first, *[f"effect under {n}" for n in names],
               *[c for before, n in zip(names, names[1:]) for c in (f"{n} minus {before}", "95% CI")],
               "by the strongest field"]
    return Table(f"Does each effect settle as the fields grow stronger? {what}: {counts['settled']} settled, "
                 f"{counts['still moving']} still moving, {counts['undecided']} undecided "
                 f"(ladder, in the order swept: {' < '.join(names)})", columns, rows,
                 caption="every field plays the same deals: per deal, the effect under a field minus the effect "
                         "under the field before it, paired t-test over deals (scipy ttest_rel) and paired TOST within "
                         "the margin, each corrected by Holm over the steps of this table; settled = the last step "
                         "(to the strongest field) is equivalent to zero; still moving = it differs from zero (the "
                         "verdict may change again with stronger bots); undecided = neither, more deals needed; "
                         "marked rows are still moving",
                 marked=[r == "still moving" for r in tab["robust"].to_list()], data=tab)


def setup_cards(df: pl.DataFrame, info: dict, margin: float = S.I.MARGIN) -> Section:
    bal = S.setup_card_balance(df, margin)
    design = bal["design"][0]
    experimental = design == "experimental"
    others = [c for c in bal.columns if c.startswith("sweep_")]
    fields = S.field_columns(df)

    def label(r: dict, columns: Sequence[str] = others) -> str:
        return f"{r['players']}P {r['setup_card']}{r['setup_side']}" + (
            f" ({group_label(columns)(r)})" if columns else "")

    def verdict_text(r: dict) -> str:
        more = r.get("more")
        if r["verdict"] == "undecided" and _ok(more):
            return f"undecided, about {more:,.0f} more deals needed"
        return verdict_cell(r)
    rows = [[label(r), f"{r['n']:,}", pct(r["win"]), pct_ci(r["win_low"], r["win_high"]), pct(r["fair"]),
             pp(r["diff"]), pp_ci(r["diff_low"], r["diff_high"]), pval(r["q"]), verdict_text(r),
             *([pp(r["rel_diff"]), pp_ci(r["rel_low"], r["rel_high"]), r["rel_verdict"] or NA] if experimental else []),
             num(r["score"])] for r in bal.to_dicts()]
    if experimental:
        intro = ("A setup grid: the focus seat played every setup card on every side, on the same deals, and the "
                 "focus seat rotates over the seats with the deal, so seat advantages cancel. The verdict is "
                 "absolute: each card and side against the fair share 1/P. Beside it, a relative contrast: the "
                 "cell against the average side (the mean of all cells on the same deal and seat), paired; that "
                 "average sits below 1/P when the other seats choose their sides and the focus seat is forced, so "
                 "'above the average side' does not mean 'too strong'. Side B is compared with side A, and card "
                 "with card, the same way.")
        relative = ["vs average side (relative)", "95% CI", "relative verdict"]
    else:
        intro = ("Cards as dealt and sides as the policies chose them: an observational comparison (a side "
                 "chosen by a policy is chosen because it looked better for that deal), pooled over seats. For an "
                 "experiment, run scenarios/setup-cards.toml.")
        relative = []
    tables = [Table(f"Setup cards: win share per player count, card and side, against the fair share 1/P"
                    f"{pooled_title(df, ['players', *others, *S.SETUP_SWEEPS])}",
                    ["players, card, side", "n (deals)", "win share", "95% CI", "1/P", "vs 1/P", "95% CI", "q",
                     "verdict vs 1/P", *relative, "mean score"], rows,
                    caption="score test of the win share against 1/P; win share CI: Wilson; "
                    + verdict_caption(bal.height, margin) + needed_text(bal)
                    + ("; relative: paired t-test over deals of the cell minus the average side of the same deal "
                       "and seat, its own correction over the table; " + provenance.field_line(info)
                       if experimental else "; " + provenance.field_line(info)),
                    marked=bal["significant"].to_list(), data=bal)]
    rest = [c for c in others if c not in fields]
    pairs, a, b = S.setup_field_pairs(df)
    tables.append(robustness_table("Setup cards, win share minus 1/P", "players, card, side", S.field_robustness(
        pairs, a, b, ["players", *rest, "setup_card", "setup_side"], fields, margin), lambda r: label(r, rest)))
    ladder = S.field_count(df, fields) > 2  # three fields or more: read them as a ladder too
    if ladder:
        tables.append(ladder_table("Setup cards, win share minus 1/P", "players, card, side", S.field_robustness(
            pairs, a, b, ["players", *rest, "setup_card", "setup_side"], fields, margin, steps=True),
            lambda r: label(r, rest)))
    sides = S.setup_side_contrasts(df, margin)
    if sides is not None:
        lab = group_label(["players", *[c for c in sides.columns if c.startswith("sweep_")], "setup_card"])
        tables.append(_paired_table("Setup cards: side B minus side A of each card (relative; paired on the deal "
                                    "and seat)", "card", "side B", "side A", sides, lab, margin))
        cell = ["players", *[c for c in sides.columns if c.startswith("sweep_") and c not in fields], "setup_card"]
        tables.append(robustness_table("Side B minus side A", "card", S.field_robustness(
            S.setup_side_pairs(df), "B", "A", cell, fields, margin), group_label(cell)))
        if ladder:
            tables.append(ladder_table("Side B minus side A", "card", S.field_robustness(
                S.setup_side_pairs(df), "B", "A", cell, fields, margin, steps=True), group_label(cell)))
    cards = S.setup_card_contrasts(df, margin)
    if cards is not None:
        extra = [c for c in cards.columns if c.startswith("sweep_")]
        base = group_label(["players", *extra])
        lab = lambda r: f"{base(r)}: card {r['card']} vs card {r['other']}"  # noqa: E731
        tables.append(_paired_table("Setup cards: card against card, both sides averaged (relative; paired on the "
                                    "deal and seat)", "cards", "card", "other", cards, lab, margin))
    focus = S.focus_seat_rates(df, margin)
    if focus is not None:
        lab = group_label(["players", *[c for c in focus.columns if c.startswith("sweep_")], "focus_seat"])
        tables.append(Table("Setup grid: the focus seat's win share over all cells, per focus seat (the seat effect)",
                            ["focus seat", "n (deals)", "win share", "95% CI", "1/P", "vs 1/P", "q", "verdict"],
                            [[lab(r), f"{r['n']:,}", pct(r["mean"]), pct_ci(r["ci_low"], r["ci_high"]), pct(r["fair"]),
                              pp(r["diff"]), pval(r["q"]), verdict_cell(r)] for r in focus.to_dicts()],
                            caption="Wilson CI, score test against 1/P; " + verdict_caption(focus.height, margin),
                            marked=focus["significant"].to_list(), data=focus))
    return Section("setup-cards", "Setup cards", intro, [t for t in tables if t is not None],
                   [("setup-cards", charts.setup_chart(bal, info))])


def seats(df: pl.DataFrame, info: dict, margin: float = S.I.MARGIN) -> Section:
    """Win share by seat and by the first player of each epoch, per player count and combination."""
    st = S.seat_rates(df, margin)
    by = S.combination_by(df, skip=S.SETUP_SWEEPS)
    label = group_label([*by, "seat"])
    several = df["policy_label"].n_unique() > 1
    note = (" (several policies: every seat's rate averages over the policies that sat there)" if several else "")
    rows = [[label(r), f"{r['n']:,}", pct(r["mean"]), pct_ci(r["ci_low"], r["ci_high"]), pct(r["fair"]),
             pp(r["diff"]), pval(r["q"]), verdict_cell(r)] for r in st.to_dicts()]
    t1 = Table(f"Win share by seat{note}",
               ["seat", "n (deals)", "win share", "95% CI", "fair 1/P", "vs fair", "q", "verdict"], rows,
               caption="Wilson CI (statsmodels); score test against 1/P; " + verdict_caption(st.height, margin)
                       + needed_text(st), marked=st["significant"].to_list(), data=st)
    fp = S.first_player_rates(df, margin)
    label2 = group_label(by)
    rows2 = [[f"epoch {'I' * r['epoch']}" if r["epoch"] < 3 else "epoch III", label2(r), f"{r['n']:,}",
              pct(r["mean"]), pct_ci(r["ci_low"], r["ci_high"]), pct(r["fair"]), pp(r["diff"]), pval(r["q"]),
              verdict_cell(r)] for r in fp.to_dicts()]
    t2 = Table("Win share of the first player of each epoch",
               ["first player in", "games", "n (deals)", "win share", "95% CI", "fair 1/P", "vs fair", "q",
                "verdict"], rows2,
               caption="the seat that was first player in the epoch (one per game); Wilson CI; "
                       + verdict_caption(fp.height, margin), marked=fp["significant"].to_list(), data=fp)
    fig = charts.winrate_chart(st, label, info, "seat")
    intro = ("Seat and turn-order effects: the win share of each seat and of each epoch's first player, against "
             "1/P. With the same policy on every seat (scenarios/seats.toml) every difference is the seat's. "
             "Policy comparisons need seats rotated (assignment = \"rotated\", the default) to cancel these.")
    return Section("seats", "Seats and turn order", intro, [t1, t2], [("seats", fig)])


def ratings(df: pl.DataFrame, info: dict) -> Section:
    """Head-to-head matrix, finishing positions and Bradley-Terry ratings of the policies."""
    from . import ratings as R

    if "rank" not in df.columns or df["policy_label"].n_unique() < 2:
        raise S.ReportError("ratings need a dataset with two or more policies (e.g. scenarios/tournament.toml)")
    pairs = R.pairwise(df)
    if pairs.height == 0:
        raise S.ReportError("no game seats two different policies: nothing to rate")
    bt = R.bradley_terry(pairs)
    fin = R.finishing(df).join(bt.select("policy", "rating", "low", "high"), on="policy", how="left")
    fin = fin.sort("rating", descending=True, nulls_last=True)
    pooled = pooled_title(df, ["policy_label"])
    t1 = Table(f"Policies: Bradley-Terry rating, win share, finishing position and ties{pooled}",
               ["policy", "n (deals)", "rating", "95% CI", "win share", "95% CI", "mean position", "ties"],
               [[r["policy"], f"{r['n']:,}", num(r["rating"], 2, True), num_ci(r["low"], r["high"], 2, True),
                 pct(r["win"]), pct_ci(r["win_low"], r["win_high"]),
                 f"{num(r['rank'], 2)} ±{num(r['rank_half'], 2)}", pct(r["tie_rate"])] for r in fin.to_dicts()],
               caption="rating: Bradley-Terry log-odds of beating the average policy, from every pair of seats "
                       "with different policies (binomial GLM, statsmodels; CIs clustered on the deal); position: "
                       "1 = best, ±half its 95% CI; ties: share of its seats that tied for first"
                       + (f"; {R.PRIOR_TEXT}" if bt["prior"].any() else ""), data=fin,
               units={"rating": "log-odds", "low": "log-odds", "high": "log-odds"})
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
                             f"(Holm correction over the {h2h.height // 2} pairs)", data=h2h,
               units={"low": "%", "high": "%"})
    return Section("ratings", "Policy ratings",
                   "How the policies rank against each other, from every game in which they met.", [t1, t2], [])


def _grant_rows(tab: pl.DataFrame, label, control: bool = False) -> list[list[str]]:
    return [[label(r), *([r["control"]] if control else []), f"{r['n']:,}", pct(r["win_a"]), pct(r["win_b"]),
             pp(r["win_diff"]), pp_ci(r["win_low"], r["win_high"]), pval(r["win_q"]), verdict_cell(r, "win_verdict"),
             num(r["score_diff"], 2, True), num_ci(r["score_low"], r["score_high"], 2, True)]
            for r in tab.to_dicts()]


def _grant_robustness(what: str, pairs: pl.DataFrame | None, fields: list[str], margin: float) -> list[Table]:
    """The robustness table of a grant contrast under several opponent fields (none with one field), and
    with three fields or more its ladder table (fields in the order swept, weakest first)."""
    if pairs is None:
        return []
    cell = ["grant", *[c for c in pairs.columns if c.startswith("sweep_") and c not in fields]]
    found = S.field_robustness(pairs, "win_share", "win_control", cell, fields, margin)
    if found is None:
        return []
    tables = [robustness_table(what, "granted", found, group_label(cell))]
    if S.field_count(pairs, fields) > 2:
        steps = S.field_robustness(pairs, "win_share", "win_control", cell, fields, margin, steps=True)
        tables.append(ladder_table(what, "granted", steps, group_label(cell)))
    return [t for t in tables if t is not None]


GRANT_COLUMNS = ["n (deals)", "win share granted", "control", "difference", "95% CI", "q", "verdict",
                 "score difference (points)", "95% CI"]


def purple(df: pl.DataFrame, info: dict, margin: float = S.I.MARGIN) -> Section:
    section = Section("purple", "Purple effects",
                      "What each purple effect is worth. The grant experiment gives one seat (rotating with the "
                      "deal) the card for free and compares it with the same seat on the same deal in the control "
                      "combination: a causal, paired estimate. The observational part compares seats that ended up "
                      "owning an effect with the other seats of their game: owners chose (and kept) the card, so the "
                      "difference mixes the card's value with the situations in which it is taken.")
    components = info.get("components_path")
    fields = S.field_columns(df)
    try:
        granted = S.grant_pairs(df)
        grants = None if granted is None else S.grant_table(granted, margin)
    except S.ReportError as err:
        if not any(c.startswith("sweep_grants") for c in df.columns):
            raise
        section.notes.append(f"Grant experiment skipped: {err}")
        grants = False
    if grants is False:
        pass
    elif grants is None:
        section.notes.append("No grant experiment: the dataset has no sweep over `grants` (run "
                             "scenarios/purple-effects.toml for one).")
    else:
        others = [c for c in grants.columns if c.startswith("sweep_")]
        label = group_label(["grant", *others])
        split = others[0] if len(others) == 1 and grants[others[0]].n_unique() > 1 else None
        section.tables.append(Table(
            f"Experiment: granted seat vs the same seat under grants = '{grants['control'][0]}' (paired on deal)",
            ["granted" + (", " + ", ".join(column_name(c) for c in others) if others else ""), *GRANT_COLUMNS],
            _grant_rows(grants, label),
            caption="paired t-test (scipy ttest_rel) over deals: same deal, same seat, same policies; "
                    + verdict_caption(grants.height, margin) + needed_text(grants, "win_needed"),
            marked=grants["win_significant"].to_list(), data=grants, units=GRANT_UNITS))
        section.tables += _grant_robustness("Granted card vs no grant", granted, fields, margin)
        section.figures.append(("purple-grants", charts.forest_chart(
            grants, group_label(["grant"]) if split else label, info, observational=False, split=split,
            split_label=lambda v, c=split: value_label(c, v) if c == "players" else f"{column_name(c)} = {v}")))
    placebo_pairs, refused = S.placebo_pairs(df, components) if isinstance(grants, pl.DataFrame) else (None, [])
    placebo = None if placebo_pairs is None else S.grant_table(placebo_pairs, margin)
    section.notes += [f"Refused as a placebo: {r}." for r in refused]
    if placebo is not None:
        section.tables.append(Table(
            "Effect card vs the mean of every plain purple card of its epoch (the placebo), same deal and seat",
            ["effect", "placebo", *GRANT_COLUMNS], _grant_rows(placebo, group_label(["grant"]), control=True),
            caption="both are one more purple card (sets, discounts); the placebo is the average over the plain "
                    "purple cards of the epoch granted the same way, so this is the effect card's worth against "
                    "a typical plain purple card; paired t-test over deals; " + verdict_caption(placebo.height, margin)
                    + needed_text(placebo, "win_needed"),
            marked=placebo["win_significant"].to_list(), data=placebo, units=GRANT_UNITS))
        section.tables += _grant_robustness("Effect card vs the placebo", placebo_pairs, fields, margin)
        section.figures.append(("purple-beyond-placebo", charts.forest_chart(
            placebo, group_label(["grant"]), info, observational=False, placebo=True)))
        spread = S.placebo_spread(df, components, margin)
        if spread is not None:
            section.tables.append(Table(
                "The placebos among themselves: each plain purple card vs the mean of the plain cards of its epoch",
                ["plain card", *GRANT_COLUMNS], _grant_rows(spread, group_label(["grant"])),
                caption="the spread of the placebo: how much a plain card's own tracks and points matter; "
                        "paired t-test over deals; " + verdict_caption(spread.height, margin),
                marked=spread["win_significant"].to_list(), data=spread, units=GRANT_UNITS))
    elif isinstance(grants, pl.DataFrame):
        section.notes.append("The grant experiment measures the card, not only its effect: a granted card is "
                             "also one more purple card. Add the plain purple cards of each epoch to the grants "
                             "sweep by card id (placebos, as in scenarios/purple-effects.toml) to compare "
                             "each effect card with a plain purple card.")
    owners = S.owner_effects(df)
    if owners is None:
        section.notes.append("No observational comparison: no seat owns a purple effect at the end of a game "
                             "without grants (a grant sweep's control combination counts).")
    else:
        by = ["effect", *(["players"] if "players" in owners.columns else [])]
        label = group_label(by)
        rows = [[label(r), f"{r['n']:,}", pct(r["owned"]), pct(r["win_a"]), pct(r["win_b"]), pp(r["win_diff"]),
                 pp_ci(r["win_low"], r["win_high"]), num(r["score_diff"], 2, True),
                 num_ci(r["score_low"], r["score_high"], 2, True)] for r in owners.to_dicts()]
        section.tables.append(Table(
            "Observational (not causal): owners vs the other seats of the same game",
            [by_text(by), "n (deals)", "games owned", "owner win share", "others", "difference", "95% CI",
             "score difference (points)", "95% CI"], rows,
            caption="OBSERVATIONAL: owners chose and kept the card; only games without grants; games owned: "
                    "share of the games at that player count; paired t-test over deals of owner vs mean of the "
                    "other seats; no row is marked", data=owners, units=GRANT_UNITS))
        split = "players" if "players" in owners.columns else None
        section.figures.append(("purple-owners", charts.forest_chart(
            owners, group_label(["effect"]), info, observational=True, split=split,
            split_label=lambda v: value_label("players", v))))
    return section


def trajectory(df: pl.DataFrame, info: dict, by: Sequence[str]) -> Section:
    by = list(by)
    running = S.running_scores(df, by)
    leaders = S.leader_wins(df)
    label = group_label(by)
    names = {1: "I", 2: "II", 3: "III"}
    groups = running.select(by).unique(maintain_order=True).to_dicts() if by else [{}]
    rows = []
    for g in groups:
        sub = running
        for c in by:
            sub = sub.filter(pl.col(c) == g[c])
        sub = sub.sort("epoch").to_dicts()
        cells = [label(g), f"{sub[0]['n']:,}"]
        for r in sub:
            cells += [num(r["mean"]), num_ci(r["ci_low"], r["ci_high"])]
        rows.append(cells)
    t1 = Table(f"Mean running score by {by_text(by)}",
               [by_text(by), "n (deals)", *[x for e in (1, 2, 3) for x in
                                            (f"after epoch {names[e]}" if e < 3 else "final", "95% CI")]],
               rows, caption="points as if the game ended at the end of the epoch", data=running, units=POINTS)
    lrows = [[str(r["players"]), f"epoch {names[r['epoch']]}", f"{r['n']:,}", pct(r["mean"]),
              pct_ci(r["ci_low"], r["ci_high"]), pct(r["fair"]), pval(r["p"])] for r in leaders.to_dicts()]
    t2 = Table("How often the leader after an epoch goes on to win",
               ["players", "leader after", "n (deals)", "leader's win share", "95% CI", "chance", "p"], lrows,
               caption="leader's win share: the win share of the seat(s) with the highest running total "
                       "(1 = the leader won alone); chance = leaders / players; p against chance",
               data=leaders)
    fig = charts.trajectory_chart(running, leaders, by, label, info, by_text(by))
    return Section("trajectory", "Score trajectory",
                   "The mean running score after each epoch, and how decisive an early lead is.",
                   [t1, t2], [("trajectory", fig)])


def overview(info: dict) -> Table:
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


def summary_sections(df: pl.DataFrame, info: dict, margin: float = S.I.MARGIN,
                     progress=None) -> tuple[list[Section], list[str]]:
    """Every section that applies to the dataset, and notes on those skipped; `progress(name)` is
    told each section as it starts. Win rates and breakdowns are per combination of the run (player
    count and every swept key but the setup grid and grants, which have their own sections)."""
    sections, notes = [], []
    for report in S.REQUIRED:
        S.check_columns(df, report)
    by = S.default_by(df, sweeps=True)
    multi_policy = df["policy_label"].n_unique() > 1
    seat_by = [*S.combination_by(df, skip=S.SETUP_SWEEPS), "seat"]
    builders = [("win rate by policy", lambda: winrate(df, info, by, margin)) if multi_policy else None,
                ("ratings", lambda: ratings(df, info)) if multi_policy else None,
                ("seats", lambda: seats(df, info, margin)),
                ("score breakdown", lambda: breakdown(df, info, by if multi_policy else seat_by)),
                ("setup cards", lambda: setup_cards(df, info, margin)),
                ("purple effects", lambda: purple(df, info, margin)),
                ("cards", lambda: cards(df, info, margin=margin)),
                ("trajectory", lambda: trajectory(df, info, by))]
    for name, build in filter(None, builders):
        if progress:
            progress(name)
        try:
            section = build()
        except S.ReportError as err:
            notes.append(f"The {name} section is left out: {err}")
            continue
        if section.tables:
            sections.append(section)
        notes += [n for n in section.notes if not section.tables]
    if not multi_policy:
        notes.append("One policy on every seat: win rates are shown by seat (Seats and turn order) instead of by "
                     "policy.")
    return sections, notes


def _card_rows(tab: pl.DataFrame) -> list[list[str]]:
    return [[r["card_id"], r["colour"], str(r["cost"]), str(r["points"]), str(r["track_sum"]), pct(r["offered"]),
             pct(r["bought"]), pct(r["sold"]), pct(r["take_rate"]), num(r["bought_epoch"], 2), pct(r["phase_a"]),
             f"{r['n']:,}" if r["n"] is not None else NA, pp(r["win_diff"]), pp_ci(r["win_low"], r["win_high"]),
             pval(r["win_q"])] for r in tab.to_dicts()]


CARD_COLUMNS = ["card", "colour", "cost", "points", "tracks", "offered", "bought", "sold", "bought when offered",
                "epoch bought", "in phase A", "n (deals)", "buyers - passers", "95% CI", "q"]


def cards(df: pl.DataFrame, info: dict, top: int = 10, margin: float = S.I.MARGIN) -> Section:
    """Every civilization card, colony tile and statue: how often it is offered and taken and how its
    takers fared (observational); granted cards against their colour and epoch (experiment)."""
    from . import cards as K

    components = S._component_set(info.get("components_path"))
    section = Section("cards", "Cards, colonies and statues",
                      "How often each civilization card is offered, bought and sold, and how its buyers fared "
                      "against the seats of the same game that could have bought it and did not. OBSERVATIONAL: "
                      "buyers chose the card, so a difference mixes the card's value with the games in which it "
                      "is bought; a grant sweep over card ids (scenarios/card-grants.toml) gives the causal answer.")
    table = K.card_table(df, components, margin)
    if table.height == 0:
        raise S.ReportError("no seat of the dataset's games could buy any card (the card columns are empty): "
                            "nothing to report on cards")
    ranked = table.filter(pl.col("win_diff").is_not_nan())
    shown = ranked.head(top) if ranked.height <= 2 * top else pl.concat([ranked.head(top), ranked.tail(top)])
    section.tables.append(Table(
        f"Observational: the {min(top, ranked.height)} cards whose buyers did best and the {min(top, ranked.height)} "
        f"that did worst (of {table.height} cards offered; all of them in --format csv/json)", CARD_COLUMNS,
        _card_rows(shown),
        caption="offered / bought / sold: share of the games in which some seat could have bought / bought / sold "
                "the card; buyers - passers: win share of the buyer minus the mean of the seats of the same game "
                "that could have bought it and did not, paired t-test over deals; q: Benjamini-Hochberg over the "
                f"{ranked.height} cards; * = q < 0.05 (not a verdict: the comparison is observational)",
        marked=shown["win_significant"].to_list(), data=table, units=GRANT_UNITS))
    section.figures.append(("card-values", charts.card_value_chart(table, info)))
    colonies = K.colony_table(df, components)
    section.tables.append(None if colonies.height == 0 else Table(
        "Observational: colony tiles, takers against the other seats of the game",
        ["colony", "level", "plunder", "integrate", "points front / back", "taken", "integrated", "n (deals)",
         "takers - others", "95% CI", "q"],
        [[r["colony_id"], str(r["level"]), str(r["plunder"]), str(r["integrate"]),
          f"{r['front_points']} / {r['back_points']}", pct(r["taken"]), pct(r["integrated"]), f"{r['n']:,}",
          pp(r["win_diff"]), pp_ci(r["win_low"], r["win_high"]), pval(r["win_q"])] for r in colonies.to_dicts()],
        caption="taken: share of the games in which some seat took the tile; the comparison counts only those games "
                "(where a tile was not taken the results do not say whether it was dealt); integrated: share of its takers who integrated it; "
                "paired t-test over deals; q: Benjamini-Hochberg over the tiles",
        marked=colonies["win_significant"].to_list(), data=colonies, units=GRANT_UNITS))
    section.tables = [table for table in section.tables if table is not None]
    statues = K.statue_table(df, components)
    section.tables.append(Table(
        "Observational: statues, carvers against the other seats of the game",
        ["statue", "requirement", "points", "bonus", "carved", "points side up", "n (deals)", "carvers - others",
         "95% CI", "q"],
        [[str(r["statue"]), str(r["requirement"]), str(r["points"]), str(r["bonus"]), pct(r["taken"]),
          pct(r["points_side"]), f"{r['n'] or 0:,}", pp(r["win_diff"]), pp_ci(r["win_low"], r["win_high"]),
          pval(r["win_q"])] for r in statues.to_dicts()],
        caption="carved: share of the games in which some seat carved it; a comparison needs a game in which one "
                "seat carved it and another did not (– where none did); paired t-test over deals; "
                "q: Benjamini-Hochberg over the statues",
        marked=statues["win_significant"].fill_null(False).to_list(), data=statues, units=GRANT_UNITS))
    pairs, refused = S.card_grant_pairs(df, components)
    section.notes += [f"Not compared: {r}." for r in refused]
    if pairs is not None:
        grants = S.grant_table(pairs, margin)
        section.tables.append(Table(
            "Experiment: each granted card vs the mean of the cards of its colour and epoch granted the same way "
            "(same deal and seat)", ["granted", "placebo", *GRANT_COLUMNS],
            _grant_rows(grants, group_label(["grant", *[c for c in grants.columns if c.startswith("sweep_")]]),
                        control=True),
            caption="a causal, relative contrast: the card against an average card of its kind, given the same way; "
                    "paired t-test over deals; " + verdict_caption(grants.height, margin)
                    + needed_text(grants, "win_needed"),
            marked=grants["win_significant"].to_list(), data=grants, units=GRANT_UNITS))
    else:
        section.notes.append("No card grant experiment: the dataset has no sweep over `grants` by card id "
                             "(scenarios/card-grants.toml has one).")
    return section

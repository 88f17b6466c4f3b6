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

NA = "–"


@dataclass
class Table:
    title: str
    columns: list[str]
    rows: list[list[str]]
    caption: str = ""
    marked: list[bool] = field(default_factory=list)  # rows to highlight (significant)
    data: pl.DataFrame | None = None                  # the numbers behind the table

    def _repr_html_(self) -> str:
        """In a notebook, the table as the HTML summary shows it (percent, CIs, marked rows)."""
        from .html import table_html

        return table_html(self)


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

def winrate(df: pl.DataFrame, info: dict, by: Sequence[str]) -> Section:
    by = list(by)
    st = S.win_rates(df, by)
    label = group_label(by)
    rows = [[label(r), f"{r['n']:,}", f"{r['rows']:,}", pct(r["mean"]), pct_ci(r["ci_low"], r["ci_high"]),
             pct(r["fair"]), pp(r["diff"]), pval(r["p"])] for r in st.to_dicts()]
    table = Table(f"Win rate by {by_text(by)}",
                  [by_text(by), "n (deals)", "seats", "win share", "95% CI", "fair 1/P", "vs fair", "p"],
                  rows, caption="win share: 1 per sole win, 1/k per k-way tie; CI and p: t-test over deals "
                                "(p against the fair share 1/P)",
                  marked=[_ok(r["p"]) and r["p"] < S.ALPHA for r in st.to_dicts()], data=st)
    fig = charts.winrate_chart(st, label, info, by_text(by))
    return Section("winrate", f"Win rate by {by_text(by)}",
                   "The share of wins each group took, with its 95% confidence interval, against the fair "
                   "share 1/P that a player without an edge would take. Rows marked differ from fair at p < 0.05.",
                   [table], [(f"winrate-by-{_stem(by)}", fig)])


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
                  caption="mean points per seat ± half the 95% CI; purple bonus parts (statue_patron, "
                          "silver_full, set_collector, gold_wildcard) are shown apart from the line that "
                          "contains them, so the parts add up to the total", data=long)
    figs = [(f"breakdown-by-{_stem(by)}", charts.breakdown_chart(long, by, label, info, by_text(by))),
            (f"totals-by-{_stem(by)}", charts.totals_chart(df, by, label, info, by_text(by)))]
    return Section("breakdown", f"Score breakdown by {by_text(by)}",
                   "Where the points come from: the mean score sheet per group as stacked bars, and the "
                   "distribution of final totals.", [table], figs)


def setup_cards(df: pl.DataFrame, info: dict) -> Section:
    bal = S.setup_card_balance(df)
    design = bal["design"][0]
    rows, marked = [], []
    for r in bal.to_dicts():
        mark = ""
        if r["significant"]:
            mark = "▲ strong" if r["diff"] > 0 else "▼ weak"
        rows.append([str(r["players"]), str(r["setup_card"]), r["setup_side"], f"{r['n']:,}", pct(r["win"]),
                     pct_ci(r["win_low"], r["win_high"]), pct(r["fair"]), pp(r["diff"]), pval(r["p"]),
                     pval(r["q"]), mark, num(r["score"]), num_ci(r["score_low"], r["score_high"])])
        marked.append(bool(r["significant"]))
    if design == "experimental":
        intro = ("A setup grid: the focus seat played every setup card on every side, on the same deals, so "
                 "these are experimental comparisons (only the focus seat's rows are used).")
    else:
        intro = ("Cards as dealt and sides as the policies chose them: an observational comparison (a side "
                 "chosen by a policy is chosen because it looked better for that deal). For an experiment, "
                 "run scenarios/setup-cards.toml.")
    table = Table("Setup cards: win share and mean score per player count, card and side",
                  ["players", "card", "side", "n (deals)", "win share", "95% CI", "fair 1/P", "vs fair", "p",
                   "q (BH)", "differs", "mean score", "95% CI"], rows,
                  caption="p: t-test of the win share against 1/P over deals; q: Benjamini-Hochberg adjusted "
                          "over the table; 'differs' marks q < 0.05", marked=marked, data=bal)
    return Section("setup-cards", "Setup cards", intro, [table], [("setup-cards", charts.setup_chart(bal, info))])


def purple(df: pl.DataFrame, info: dict) -> Section:
    section = Section("purple", "Purple effects",
                      "What each purple effect is worth. The grant experiment gives one seat the card for free "
                      "and compares it with the same seat on the same deal in the control combination: a causal, "
                      "paired estimate. The observational part compares seats that ended up owning an effect with "
                      "the other seats of their game: owners chose (and kept) the card, so the difference mixes "
                      "the card's value with the situations in which it is taken.")
    try:
        grants = S.grant_effects(df)
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
        rows = [[label(r), f"{r['n']:,}", pct(r["win_a"]), pct(r["win_b"]), pp(r["win_diff"]),
                 pp_ci(r["win_low"], r["win_high"]), pval(r["win_p"]), num(r["score_diff"], 2, True),
                 num_ci(r["score_low"], r["score_high"], 2, True), pval(r["score_p"])] for r in grants.to_dicts()]
        section.tables.append(Table(
            f"Experiment: granted seat vs the same seat under grants = '{grants['control'][0]}' (paired on deal)",
            ["granted" + (", " + ", ".join(column_name(c) for c in others) if others else ""), "n (deals)",
             "win share granted", "control", "difference", "95% CI", "p", "score difference (points)",
             "95% CI", "p"], rows,
            caption="paired t-test (scipy ttest_rel) over deals: same deal, same seat, same policies",
            marked=[_ok(r["win_p"]) and r["win_p"] < S.ALPHA for r in grants.to_dicts()], data=grants))
        section.figures.append(("purple-grants", charts.forest_chart(
            grants, group_label(["grant"]) if split else label, info, observational=False, split=split,
            split_label=lambda v, c=split: value_label(c, v) if c == "players" else f"{column_name(c)} = {v}")))
    placebo = S.placebo_effects(df) if isinstance(grants, pl.DataFrame) else None
    if placebo is not None:
        rows = [[r["grant"], r["control"], f"{r['n']:,}", pct(r["win_a"]), pct(r["win_b"]), pp(r["win_diff"]),
                 pp_ci(r["win_low"], r["win_high"]), pval(r["win_p"]), num(r["score_diff"], 2, True),
                 num_ci(r["score_low"], r["score_high"], 2, True), pval(r["score_p"])]
                for r in placebo.to_dicts()]
        section.tables.append(Table(
            "Effect card vs a plain purple card of its epoch (the placebo), granted the same way",
            ["effect", "placebo", "n (deals)", "win share effect", "placebo", "difference", "95% CI", "p",
             "score difference (points)", "95% CI", "p"], rows,
            caption="both are one more purple card (sets, discounts); the placebo brings its own tracks and "
                    "points where the effect card brings its effect, so this is the effect card's worth "
                    "against a typical plain purple card; paired t-test over deals",
            marked=[_ok(r["win_p"]) and r["win_p"] < S.ALPHA for r in placebo.to_dicts()], data=placebo))
        section.figures.append(("purple-beyond-placebo", charts.forest_chart(
            placebo, group_label(["grant"]), info, observational=False, placebo=True)))
    elif isinstance(grants, pl.DataFrame):
        section.notes.append("The grant experiment measures the card, not only its effect: a granted card is "
                             "also one more purple card. Add a plain purple card of each epoch to the grants "
                             "sweep by card id (a placebo, as in scenarios/purple-effects.toml) to compare "
                             "each effect card with a plain purple card.")
    owners = S.owner_effects(df)
    if owners is None:
        section.notes.append("No observational comparison: no seat owns a purple effect at the end of a game "
                             "without grants.")
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
            caption="OBSERVATIONAL: owners chose and kept the card; games with a grant are left out; "
                    "paired t-test over deals of owner vs mean of the other seats", data=owners))
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
               rows, caption="points as if the game ended at the end of the epoch", data=running)
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
        rows.append(["policy settings", provenance.policies_text(prov["policies"])[len("policies: "):]
                     + " (full parameters in metadata.json)"])
    return Table("Dataset", ["", ""], rows)


def summary_sections(df: pl.DataFrame, info: dict) -> tuple[list[Section], list[str]]:
    """Every section that applies to the dataset, and notes on those skipped."""
    sections, notes = [], []
    for report in S.REQUIRED:
        S.check_columns(df, report)
    by = S.default_by(df, sweeps=True)
    multi_policy = df["policy_label"].n_unique() > 1
    seat_by = ["seat", *by[1:]]
    builders = [("win rate by policy", lambda: winrate(df, info, by)) if multi_policy else None,
                ("win rate by seat", lambda: winrate(df, info, seat_by)),
                ("score breakdown", lambda: breakdown(df, info, by if multi_policy else seat_by)),
                ("setup cards", lambda: setup_cards(df, info)),
                ("purple effects", lambda: purple(df, info)),
                ("trajectory", lambda: trajectory(df, info, by))]
    for name, build in filter(None, builders):
        try:
            section = build()
        except S.ReportError as err:
            notes.append(f"The {name} section is left out: {err}")
            continue
        if section.tables:
            sections.append(section)
        notes += [n for n in section.notes if not section.tables]
    if not multi_policy:
        notes.append("One policy on every seat: win rates are shown by seat instead of by policy.")
    return sections, notes

"""The one verdict model: what a row of a report or balance table claims against its reference, built
in one place (`judge`, over the whole table) and rendered by its own methods for the terminal, the
machine formats (csv and json, through its record in the table's data) and the captions.

A verdict holds its estimate (the row's difference from its reference, a share), its 95% interval, the
two tests (a difference: the table's p; equivalence within ±margin: the TOST), their corrections over
the table (Benjamini-Hochberg for the marks, Holm for "fair", so a table's "fair" words are wrong in at
most 5 % of tables), the sample-size hint of an undecided row (`inference.deals_to_decide`: deals of
the row, stated in the `--games` of the run's scenario) and its words. Reference: the fair share 1/P,
unless the verdict is `relative` (the average side of the same deal and seat); the difference is a
share, written in percentage points.

A fitted win share (`balance suggest`'s candidate value, its pair, a sensitivity draw's whole values) is
judged by the same model from its 90% CI (`of_fit`), its hint stated in the run's option that adds deals
(`--curve-games`). `inference` computes the numbers (intervals, tests, corrections, the hints); this
module alone turns them into a verdict and words.
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np
import polars as pl

from . import inference as I
from .dataset import ReportError, polars_frame

NA = "–"
# A hint for a difference this close to the margin (a share of it) says why it asks for so many deals:
# balance suggest advised "about 23,028,403 more deals" for a side 2.0 pp off with a margin of 2 pp.
NEAR_EDGE = 0.8
ARROWS = {"stronger": "▲ stronger", "weaker": "▼ weaker"}
RELATIVE_WORDS = {"stronger": "above the average side", "weaker": "below the average side"}
# The verdict of a group holding every seat of its games: its shares add up to 1/P, nothing is tested.
BY_CONSTRUCTION = "1/P by construction"
# What every "about N more deals" hint takes for granted, for the captions of the tables that show one.
HINT_ASSUMES = (f"an 'about N more deals' hint: the deals that would decide it with {100 * I.HINT_POWER:.0f} % "
                f"chance if the difference measured were the true one, which its CI may put far off; rounded up "
                f"to {I.HINT_FIGURES} figures; in a table of very many rows, Bonferroni's bound: at most that many")


@dataclass(frozen=True)
class Verdict:
    """One row's verdict, as `judge` builds it for a whole table."""

    diff: float            # the estimate: the row minus its reference, a share (0.012 = +1.2 pp)
    p: float               # two-sided test of a difference from the reference
    equiv_p: float         # TOST: |diff| < margin
    q: float               # p corrected over the table (`correction`)
    q_equiv: float         # equiv_p corrected over the table (Holm, inference.EQUIVALENCE_CORRECTION)
    n: int                 # deals behind the row
    margin: float          # the equivalence margin, a share
    rows: int              # rows of the table the corrections run over
    correction: str = I.CORRECTION
    more: float = math.nan  # an undecided row: about how many more deals of it would decide it (NaN: none)
    relative: bool = False  # against the average side of the same deal and seat, not the fair share 1/P
    option: str = "--games"  # the option of the run whose value the hint states
    per: str = ""            # what the hint's deals are counted per ("swept value": a curve's deals per value)

    @property
    def significant(self) -> bool:
        """The difference holds after the table's correction (a marked row)."""
        return math.isfinite(self.q) and self.q < I.ALPHA

    @property
    def equivalent(self) -> bool:
        """The row is within ±margin of its reference after the table's Holm correction."""
        return math.isfinite(self.q_equiv) and self.q_equiv < I.ALPHA

    @property
    def kind(self) -> str:
        """What the verdict claims: "fair" (equivalent, with or without "slightly"), "stronger",
        "weaker" or "undecided"."""
        if self.equivalent:
            return "fair"
        if self.significant:
            return "stronger" if self.diff > 0 else "weaker"
        return "undecided"

    @property
    def words(self) -> str:
        """The verdict in words: "stronger" / "weaker" (differs), "fair within ±m pp" (equivalent;
        "(slightly stronger)" when it also differs), "undecided" (neither: more games needed); a
        relative verdict says "above / below / level with the average side". A row can differ and
        still be equivalent when the difference is small and well measured."""
        kind = self.kind
        m = f"±{100 * self.margin:g} pp"
        if kind == "fair":
            slightly = ("stronger" if self.diff > 0 else "weaker") if self.significant else ""
            if self.relative:
                return f"level with the average side ({m}" + (f"; slightly {RELATIVE_WORDS[slightly][:5]})"
                                                               if slightly else ")")
            return f"fair within {m}" + (f" (slightly {slightly})" if slightly else "")
        return RELATIVE_WORDS.get(kind, kind) if self.relative else kind

    @property
    def settling(self) -> str:
        """The verdict of a ladder's last step (the effect under the strongest field minus under the one
        before it) in its words: "settled" (equivalent to zero), "still moving" (differs), "undecided"."""
        return {"fair": "settled", "undecided": "undecided"}.get(self.kind, "still moving")

    @property
    def robustness(self) -> str:
        """The verdict of an interaction test (an effect under one opponent field minus under another) in
        its words: "robust" (equivalent to zero), "depends on the bots" (differs from zero), "undecided"."""
        return {"fair": "robust", "undecided": "undecided"}.get(self.kind, "depends on the bots")

    @property
    def short_of_deals(self) -> bool:
        """Not shown fair, with a hint: more deals, not another value, would decide it."""
        return not self.equivalent and math.isfinite(self.more)

    def hint(self, games: int | None = None) -> str:
        """A verdict short of deals with its hint: about how many more deals of the row and, given the
        run's `games` per combination (of which the row holds `n` deals), the value of the run's option
        (`--games` of the scenario) that would decide it."""
        text = undecided_text(self.more, self.n, games, self.option, self.per, self.diff, self.margin)
        return text if self.kind == "undecided" else cell(self.words) + text.removeprefix("undecided")

    def text(self, games: int | None = None) -> str:
        """The verdict as a terminal cell: an arrow for a difference (▲ stronger, ▼ weaker), a verdict
        short of deals with its hint in the run's option (the scenario's --games)."""
        return self.hint(games) if self.short_of_deals or self.kind == "undecided" else cell(self.words)

    def record(self, prefix: str = "", hints: bool = False) -> dict:
        """The verdict's columns in its table's data (what csv and json write): q, q_equiv, significant,
        verdict (the words) and, with `hints`, more."""
        out = {f"{prefix}q": self.q, f"{prefix}q_equiv": self.q_equiv, f"{prefix}significant": self.significant,
               f"{prefix}verdict": self.words}
        return out | ({f"{prefix}more": self.more} if hints else {})


def columns(verdicts: Sequence[Verdict], prefix: str = "", hints: bool = False) -> dict[str, list]:
    """A table's verdicts as the columns of its data, name -> one value per row (`Verdict.record`)."""
    names = [f"{prefix}{k}" for k in ("q", "q_equiv", "significant", "verdict", *(("more",) if hints else ()))]
    records = [v.record(prefix, hints) for v in verdicts]
    return {name: [r[name] for r in records] for name in names}


def judge(diff, p, equiv_p, n, margin: float = I.MARGIN, method: str = I.CORRECTION, sd=None,
          relative: bool = False, hinted=None) -> list[Verdict]:
    """The verdicts of a whole table, one per row, from its differences, tests and deals: the p-values
    corrected over the table by `method`, the TOSTs by Holm, and with `sd` (the per-deal standard
    deviation of each row) the hint of every undecided row (of the rows `hinted`, a mask; default all)
    whose difference lies inside the margin (`inference.deals_to_decide`: Holm over the table, by
    simulation)."""
    margin = I.check_margin(margin)
    try:
        diff, p, equiv_p, rows = (np.asarray(v, dtype=float) for v in (diff, p, equiv_p, n))
    except (TypeError, ValueError):
        raise TypeError("diff, p, equiv_p and n are sequences of numbers, one per row of the table") from None
    if {a.ndim for a in (diff, p, equiv_p, rows)} != {1} or len({len(a) for a in (diff, p, equiv_p, rows)}) > 1:
        # zip stopped at the shortest and judged fewer rows than the table has
        raise ValueError(f"diff, p, equiv_p and n are one value per row each, got shapes "
                         f"{diff.shape}, {p.shape}, {equiv_p.shape} and {rows.shape}")
    q = I.adjust(p, method)
    qe = I.adjust(equiv_p, I.EQUIVALENCE_CORRECTION)
    n = [int(k) if np.isfinite(k) else 0 for k in rows]
    verdicts = [Verdict(float(d), float(a), float(b), float(x), float(y), k, margin, len(diff), method,
                        relative=relative) for d, a, b, x, y, k in zip(diff, p, equiv_p, q, qe, n)]
    if sd is None:
        return verdicts
    more = I.deals_to_decide(diff, np.asarray(sd, dtype=float), np.asarray(n, dtype=float),
                             [v.kind == "undecided" and (hinted is None or bool(h))
                              for v, h in zip(verdicts, hinted if hinted is not None else verdicts)], margin)
    return [replace(v, more=float(m)) for v, m in zip(verdicts, more)]


def of_fit(win: float, low: float, high: float, fair: float, margin: float = I.MARGIN, deals: int = 0,
           option: str = "--games", per: str = "") -> Verdict:
    """The verdict of a fitted win share (a curve's or a surface's at one value) against the fair share
    `fair`, from the fit's 90% CI [low, high] (a logistic fit's, so not symmetric on the share scale): its
    TOST within ±margin is the two one-sided tests at 5 %, each with the standard error of its own half of
    the CI, so "fair" is exactly "the 90% CI inside fair ± margin"; its test of a difference uses the half
    that faces `fair`. One fit alone: nothing to correct over. With `deals`, the fit's deals per point
    (`option` of its run, counted `per` what), a fit inside the margin but not shown fair gets its hint
    (`inference.fit_deals_to_decide`)."""
    from scipy.special import ndtr

    margin = I.check_margin(margin)
    z = I.z_90()
    upper, lower = (high - win) / z, (win - low) / z
    if not all(math.isfinite(x) and x > 0 for x in (upper, lower)):
        return Verdict(win - fair, math.nan, math.nan, math.nan, math.nan, deals, margin, 1, option=option, per=per)
    diff = win - fair
    equiv_p = float(max(ndtr((diff - margin) / upper), ndtr(-(diff + margin) / lower)))
    p = float(2 * ndtr(-abs(diff) / (lower if diff > 0 else upper)))
    more = (I.fit_deals_to_decide(win, low, high, fair, margin, deals)
            if deals and equiv_p >= I.ALPHA and abs(diff) < margin else math.nan)
    return Verdict(diff, p, equiv_p, p, equiv_p, deals, margin, 1, more=more, option=option, per=per)


def render(row: dict, prefix: str = "", games: int | None = None, option: str = "--games",
           margin: float = I.MARGIN) -> str:
    """A verdict's record in a table's data (`Verdict.record`: rows survive a report's joins and sorts)
    as a terminal cell, as `Verdict.text` writes it: the words with their arrow, an undecided verdict with
    its hint where the record has one (the row's `n` deals and the run's `games` per combination give the
    value of its `option`, the scenario's --games)."""
    words = row.get(f"{prefix}verdict")
    if words == "undecided":
        return undecided_text(row.get(f"{prefix}more"), row.get("n"), games, option, diff=row.get(f"{prefix}diff"),
                              margin=margin)
    return cell(words)


def decided(row: dict, prefix: str = "") -> bool:
    """Whether a verdict's record in a table's data (`Verdict.record`) claims something, as `Verdict.kind`
    decides it: shown to differ (`significant`) or shown fair (`q_equiv` < ALPHA)."""
    q_equiv = row.get(f"{prefix}q_equiv")
    return bool(row.get(f"{prefix}significant")) or (q_equiv is not None and math.isfinite(q_equiv)
                                                      and q_equiv < I.ALPHA)


def cell(words: str | None) -> str:
    """A verdict's words as a terminal cell, with its arrow (▲ stronger, ▼ weaker)."""
    words = words or NA
    return ARROWS.get(words, words)


def kind_of(words: str | None) -> str:
    """What verdict words claim: "stronger", "weaker", "fair" (with or without "slightly") or
    "undecided"; two verdicts agree when their kinds are the same."""
    words = words or "undecided"
    return "fair" if words.startswith("fair") else words


def undecided_text(more: float | None, n: int | None = None, games: int | None = None, option: str = "--games",
                   per: str = "", diff: float | None = None, margin: float = I.MARGIN) -> str:
    """"undecided", with the hint when known: the more deals of the row (`per` what they are counted
    per) and, given the run's `games` per combination and the row's `n` deals, the value of the run's
    `option` (the scenario's `--games`) that would decide it; for a difference `diff` near the `margin`,
    why the hint asks for so many."""
    if more is None or not math.isfinite(more):
        return "undecided"
    text = f"undecided, about {more:,.0f} more deals" + (f" per {per}" if per else "")
    if games and n:
        text += f" ({option} {games_for(more, n, games)})"  # no separators: a value to type
    if diff is not None and math.isfinite(diff) and abs(diff) >= NEAR_EDGE * margin:
        text += (f": its difference, {100 * diff:+.1f} pp, lies near the margin of ±{100 * margin:g} pp, where the "
                 "deals needed grow without bound")
    return text


def games_for(deals: float, n: int, games: int) -> int:
    """The `--games` of a run whose `games` per combination gave a row `n` deals that brings the row
    `deals` more deals (a row holds a share n / games of the run's deals)."""
    return games + math.ceil(deals * games / n)


def correction_text(rows: int, method: str = I.CORRECTION) -> str:
    """The caption fragment that states a table's correction of its marks."""
    return (f"marks at q < {I.ALPHA:g} after {I.CORRECTIONS[method]} correction over the {rows} "
            f"row{'s' * (rows != 1)} of this table")


def equivalence_caption(rows: int, margin: float = I.MARGIN) -> str:
    """The caption fragment that states the error rate the table's "fair" words control."""
    return (f"'fair within ±{100 * margin:g} pp' = equivalent by TOST after "
            f"{I.CORRECTIONS[I.EQUIVALENCE_CORRECTION]} correction over the {rows} row{'s' * (rows != 1)} of this "
            f"table: the chance that even one row of the table is called fair while its true effect lies at or "
            f"beyond the margin is at most {100 * I.ALPHA:g}%")


def caption(rows: int, margin: float = I.MARGIN) -> str:
    """The caption fragment that says how a table's verdicts are reached."""
    return (f"verdict: ▲/▼ = differs ({correction_text(rows)}); {equivalence_caption(rows, margin)}; "
            f"'undecided' = neither, more games needed ({HINT_ASSUMES}). Not significant is never shown as fair")


def precision_caption(table, column: str = "needed", games: int | None = None) -> str:
    """The sample-size caption of a table (a polars frame with `n` and `column`, the deals per row a 95%
    CI of ±1 pp needs, `inference.games_needed`): the most deals a row needs and, given the run's
    `games` per combination, the `--games` of the scenario that brings every row there (two figures,
    rounded up, as every hint of deals: the per-deal spread behind it is itself an estimate)."""
    if column not in table.columns or table.height == 0:
        return ""
    pairs = [(int(k), I.two_figures_up(d)) for k, d in zip(table["n"].to_list(), table[column].to_list())
             if d is not None and math.isfinite(d) and k]
    if not pairs:
        return ""
    scenario = (f"--games {max(games_for(max(0.0, d - k), k, games) for k, d in pairs)}; " if games else "")
    return (f"; a 95% CI of ±1 pp needs about {max(d for _, d in pairs):,.0f} deals per row ({scenario}normal "
            f"approximation; n now {table['n'].min():,})")


def with_verdicts(table: pl.DataFrame, p: str = "p", equiv_p: str = "equiv_p", diff: str = "diff",
                  margin: float = I.MARGIN, method: str = I.CORRECTION, prefix: str = "",
                  hints: bool = False, relative: bool = False) -> pl.DataFrame:
    """A table with its verdicts (`judge`, over the whole table) written as their records: `{prefix}q`
    (the difference, corrected over the table by `method`), `{prefix}q_equiv` (the TOST, Holm over the
    table: the "fair" words are controlled family-wise, `inference.EQUIVALENCE_CORRECTION`),
    `{prefix}significant` (q < 0.05), `{prefix}verdict` (the words: stronger / weaker / fair within
    ±margin / undecided; with `relative`, against the average side) and, with `hints`, `{prefix}more`:
    for an undecided row whose difference lies inside the margin, about how many more deals of the row
    would make it "fair" with 80 % chance under this table's Holm correction (`inference.deals_to_decide`,
    from the row's `{prefix}sd` and `n`, a simulation of the table: tens of milliseconds a row), else NaN."""
    polars_frame(table)
    if not all(isinstance(name, str) for name in (diff, p, equiv_p)):
        raise TypeError(f"diff, p and equiv_p name columns of the table, not {diff!r:.30}, {p!r:.30}, {equiv_p!r:.30}")
    missing = [name for name in dict.fromkeys((diff, p, equiv_p, "n")) if name not in table.columns]
    if missing:  # a misspelt p="pval" made every row "undecided"
        close = {name: difflib.get_close_matches(name, table.columns, n=1) for name in missing}
        raise ReportError(f"the table has no column {', '.join(repr(m) for m in missing)} "
                          + "".join(f"(did you mean {c[0]}?) " for c in close.values() if c)
                          + "(with_verdicts reads a table of mean_ci, paired_diff or win_rates)")

    def column(name: str) -> np.ndarray:
        return (table[name].cast(pl.Float64).fill_null(math.nan).to_numpy() if name in table.columns
                else np.full(table.height, np.nan))

    verdicts = judge(column(diff), column(p), column(equiv_p), column("n"), margin, method,
                     sd=column(f"{prefix}sd") if hints else None, relative=relative)
    types = {f"{prefix}significant": pl.Boolean, f"{prefix}verdict": pl.String}
    out = table.with_columns(pl.Series(name, values, dtype=types.get(name, pl.Float64))
                             for name, values in columns(verdicts, prefix, hints).items())
    if "whole" not in table.columns:
        return out
    # a group of every seat of its games (`wins.whole_games`) was not tested: no word claims it is fair
    return out.with_columns(pl.when(pl.col("whole")).then(pl.lit(BY_CONSTRUCTION))
                            .otherwise(pl.col(f"{prefix}verdict")).alias(f"{prefix}verdict"))

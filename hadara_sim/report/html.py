"""The summary report: one self-contained HTML file (charts embedded as base64, tables as HTML)."""

from __future__ import annotations

import base64
from dataclasses import replace
from datetime import datetime, timezone
from html import escape
from pathlib import Path
from typing import Sequence

from . import charts
from . import inference as I
from . import verdict as V
from .dataset import ReportError
from .fields import AGREEMENT
from .sections import Section, finite, overview, pp, pp_ci
from .table import MARKED_CSS, Table, machine_csv, plain, table_html

CSS = """
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2rem auto; max-width: 1200px;
       padding: 0 1.5rem; color: #222; line-height: 1.45; }
h1 { margin-bottom: 0.2rem; } h2 { border-bottom: 2px solid #ddd; padding-bottom: 0.2rem; margin-top: 2.5rem; }
.sub { color: #666; margin-top: 0; }
table { border-collapse: collapse; margin: 0.8rem 0 0.3rem; font-size: 0.88rem; }
th, td { border: 1px solid #ddd; padding: 0.25rem 0.55rem; text-align: right; white-space: nowrap; }
th { background: #f3f3f3; } td:first-child, th:first-child { text-align: left; }
caption { caption-side: top; text-align: left; font-weight: 600; padding-bottom: 0.3rem; }
.caption { color: #666; font-size: 0.82rem; margin: 0 0 1rem; }
.note { background: #f5f7fa; border-left: 4px solid #9ab; padding: 0.5rem 0.8rem; margin: 0.8rem 0; }
img { max-width: 100%; border: 1px solid #eee; margin: 0.6rem 0; }
.scroll { overflow-x: auto; }
.facts td { text-align: left; white-space: normal; } .facts td:first-child { white-space: nowrap; }
.findings { border: 2px solid #9ab; padding: 0 0.8rem; margin: 1rem 0; }
.findings td { text-align: left; white-space: normal; }
.more { margin: 0 0 0.4rem; }
""" + MARKED_CSS


def how_to_read(margin: float = I.MARGIN) -> str:
    """The summary's "How to read" note, stating the margin its verdicts used (`report summary --margin`):
    a fixed ±2 pp contradicted tables judged "fair within ±1 pp"."""
    return (
        "Every rate and difference comes with its sample size n and a 95% confidence interval. n counts deals "
        "(<code>game</code>): seats of one game (and one deal played under several combinations) are not "
        "independent, so rates get Wilson intervals on the deal-clustered effective sample size (statsmodels) and "
        "paired differences Student t intervals over deals (scipy). Every table that marks rows corrects for its "
        "number of rows (Benjamini-Hochberg, or Holm for head-to-head tables) and says so in its caption: "
        "&#9650; / &#9660; mark a difference after that correction; "
        f"'fair within &plusmn;{100 * margin:g} pp' is an equivalence "
        "test (TOST), Holm-corrected over the table, so that even one wrong 'fair' in a table has at most a 5% "
        "chance; 'undecided' means more games are needed; a difference that is not significant is never shown "
        "as fair. Verdicts are against the fair share 1/P unless a table names its contrast relative (the average "
        "side, side A, a control). Experimental comparisons (setup grid, grant sweep) pair on the deal and are "
        "causal for these policies; observational ones are labelled so and are not.")


# A longer table shows this many of its rows, those that matter, and writes every row to a CSV beside
# the page: a card-worth run's summary held 20,000 table rows (8 MB) that nobody could read.
ROWS_SHOWN = 40
FINDINGS = "key-findings"  # the anchor of the key findings, and the name of their CSV

# A table's own verdict (the prefix of its `verdict.Verdict` records) and the columns of the size it
# judges, in the order looked for: (prefix, size, low, high).
VERDICT_COLUMNS = (("", "diff", "diff_low", "diff_high"), ("", "diff", "low", "high"),
                   ("win_", "win_diff", "win_low", "win_high"))


def _design(t: Table) -> str:
    """Whether a table's rows are an experiment or observational (its data's `design`, else its title)."""
    if t.data is not None and "design" in t.data.columns and t.data.height:
        return "observational" if t.data["design"][0] == "observational" else "experiment"
    return "observational" if "observational" in t.title.lower() else "experiment"


def _findings(t: Table) -> list[tuple[str, str, str, float] | None] | None:
    """A table's findings, one per row: (verdict, size, 95% CI, the size's magnitude) of a decided row,
    None for an undecided one; None when the table has no verdicts. A verdict is read from its record in
    the table's data (`verdict.decided`, `verdict.cell`); a robustness table's from the agreement of its
    fields' verdicts, its size the range of the effect over the fields."""
    if t.data is None or t.data.height != len(t.rows):
        return None
    names = set(t.data.columns)
    if {"agreement", "size_low", "size_high"} <= names:
        return [(r["agreement"], f"{pp(r['size_low'])} to {pp(r['size_high'])}", "range over the fields",
                 _magnitude(r["size_low"], r["size_high"]))
                if r["agreement"] in AGREEMENT[:2] else None for r in t.data.to_dicts()]
    found = next((c for c in VERDICT_COLUMNS if {f"{c[0]}verdict", f"{c[0]}q_equiv", f"{c[0]}significant", *c[1:]}
                  <= names), None)
    if found is None:
        return None
    prefix, size, low, high = found
    return [(V.cell(r[f"{prefix}verdict"]), pp(r[size]), pp_ci(r[low], r[high]), _magnitude(r[size]))
            if V.decided(r, prefix) else None for r in t.data.to_dicts()]


def _magnitude(*sizes) -> float:
    """The largest absolute value of `sizes`, 0 where none is known: how large a finding is, to rank it."""
    return max((abs(x) for x in sizes if finite(x)), default=0.0)


def key_findings(sections: Sequence[Section]) -> Table | None:
    """Every decided verdict of every section in one table, each with its size, 95% CI, naming (and
    linking to) the table it comes from: first the experiments' (causal for the policies played), then
    the observational comparisons' (associations, not causes), each marked with its design; undecided
    rows are counted. None when no table has verdicts."""
    found, undecided = {"experiment": [], "observational": []}, 0
    for i, s in enumerate(sections):
        for j, t in enumerate(s.tables):
            findings = _findings(t)
            if findings is None:
                continue
            design = _design(t)
            # A row is named by every cell before its n (a seat's "epoch I" alone lacked "2 players").
            first = next((k for k, c in enumerate(t.columns) if plain(c).split(" (")[0] == "n"), 1) or 1
            deals = t.data["n"].to_list() if "n" in t.data.columns else [None] * len(t.rows)
            for row, n, f in zip(t.rows, deals, findings):
                if f is None:
                    undecided += 1
                    continue
                label = ", ".join(plain(c) for c in row[:first])
                found[design].append(([s.title, label, f"{n:,}" if n is not None else V.NA, *f[:3], design,
                                       t.title], f"{s.key}-{i}-t{j}", f[3]))
    if sum(map(len, found.values())) > ROWS_SHOWN:  # the page shows the first: the largest of each design
        found = {design: sorted(rows, key=lambda r: -r[2]) for design, rows in found.items()}
    listed = found["experiment"] + found["observational"]
    if not listed and not undecided:
        return None
    caption = ("experiments first (paired on the deal: causal for the policies played), then observational "
               "comparisons (associations, not causes)" + (", the largest of each first" if len(listed) > ROWS_SHOWN
                                                            else "")
               + "; each table states its reference, correction and the field it holds for")
    if undecided:
        caption = (f"{undecided:,} row{'s' * (undecided != 1)} of these tables {'are' if undecided != 1 else 'is'} "
                   f"undecided (more games needed) and not listed; " + caption)
    return Table("Key findings: every decided verdict of this report",
                 ["section", "row", "n (deals)", "verdict", "size", "95% CI", "design", "table"], [r for r, _, _ in listed],
                 caption=caption, links=[link for _, link, _ in listed])


def _ranked(t: Table) -> tuple[list[int], str]:
    """The rows of a table in the order a long one is cut, and that order in words: decided verdicts
    first, the largest first, then the undecided; in a table without verdicts, marked rows first."""
    findings = _findings(t)
    rows = range(len(t.rows))
    if findings is not None:
        return (sorted(rows, key=lambda i: (findings[i] is None, -findings[i][3] if findings[i] else 0.0, i)),
                "decided verdicts first, the largest first")
    if any(t.marked):
        return sorted(rows, key=lambda i: not (i < len(t.marked) and t.marked[i])), "marked rows first"
    return list(rows), "the first in the table's order"


def csv_name(folder: str, anchor: str) -> str:
    """Where the page says the rows of a long table are: its CSV in `folder`, beside the page."""
    return f"{folder}/{anchor}.csv"


def long_tables(sections: Sequence[Section]) -> list[tuple[str, Table]]:
    """(anchor, table) of every table of the summary longer than the page shows, the key findings
    included: each has its every row in a CSV beside the page (`csv_name`)."""
    findings = key_findings(sections)
    tables = [(FINDINGS, findings)] if findings is not None else []
    tables += [(f"{s.key}-{i}-t{j}", t) for i, s in enumerate(sections) for j, t in enumerate(s.tables)]
    return [(anchor, t) for anchor, t in tables if len(t.rows) > ROWS_SHOWN]


def shown_html(t: Table, anchor: str, folder: str) -> str:
    """A table as the page shows it: whole up to ROWS_SHOWN rows, else the ROWS_SHOWN that matter most
    (`_ranked`) and a line naming how many more there are and the CSV that holds every row."""
    if len(t.rows) <= ROWS_SHOWN:
        return table_html(t, anchor)
    order, words = _ranked(t)
    keep = order[:ROWS_SHOWN]
    short = replace(t, rows=[t.rows[i] for i in keep], marked=[i < len(t.marked) and t.marked[i] for i in keep],
                    links=[t.links[i] for i in keep] if t.links else None)
    name = escape(csv_name(folder, anchor))
    return table_html(short, anchor) + (
        f'<p class="more"><b>{len(t.rows) - ROWS_SHOWN:,} more rows</b>: {ROWS_SHOWN} of {len(t.rows):,} shown here, '
        f'{words}; every row is in <a href="{name}">{name}</a> (the numbers, as --format csv writes them).</p>')


def image_html(fig, fmt: str, alt: str) -> str:
    mime = "image/svg+xml" if fmt == "svg" else "image/png"
    data = base64.b64encode(charts.to_bytes(fig, fmt)).decode("ascii")
    return f'<img alt="{escape(alt)}" src="data:{mime};base64,{data}">'


def render(sections: Sequence[Section], info: dict, notes: Sequence[str] = (), fmt: str = "png",
           margin: float = I.MARGIN, folder: str = "summary-tables") -> str:
    """The whole report as one HTML string; `margin` is the equivalence margin its verdicts used;
    `folder`, beside the page, holds the CSV of every table longer than the page shows (`long_tables`)."""
    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    parts = [f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
             f"<title>hadara-sim report: {escape(info['scenario'])}</title><style>{CSS}</style></head><body>",
             f"<h1>hadara-sim report: {escape(info['scenario'])}</h1>",
             f'<p class="sub">{escape(info["description"])} · {info["games"]:,} games · written {now}</p>',
             f'<div class="facts">{table_html(overview(info))}</div>',
             f'<div class="note"><b>How to read this report.</b> {how_to_read(margin)}</div>']
    findings = key_findings(sections)
    if findings is not None:
        parts.append(f'<div class="findings">{shown_html(findings, FINDINGS, folder)}</div>')
    for n in notes:
        parts.append(f'<div class="note">{escape(n)}</div>')
    if sections:
        parts.append("<p>Contents: " + " · ".join(
            f'<a href="#{escape(s.key)}-{i}">{escape(s.title)}</a>' for i, s in enumerate(sections)) + "</p>")
    for i, s in enumerate(sections):
        parts.append(f'<h2 id="{escape(s.key)}-{i}">{escape(s.title)}</h2><p>{escape(s.intro)}</p>')
        for n in s.notes:
            parts.append(f'<div class="note">{escape(n)}</div>')
        for stem, fig in s.figures:
            parts.append(image_html(fig, fmt, stem))
        for j, t in enumerate(s.tables):
            parts.append(shown_html(t, f"{s.key}-{i}-t{j}", folder))
    parts.append("</body></html>")
    return "\n".join(parts)


def tables_folder(page: Path) -> Path:
    """The folder beside a summary page that holds its long tables' every row (`long_tables`)."""
    return page.parent / f"{page.stem}-tables"


def write(path: str | Path, sections: Sequence[Section], info: dict, notes: Sequence[str] = (),
          fmt: str = "png", margin: float = I.MARGIN) -> Path:
    """The summary page at `path`, and beside it the CSV of every table longer than it shows; CSVs an
    earlier page left there and this one does not link are removed, so the folder holds this page's."""
    path = Path(path)
    folder = tables_folder(path)
    page = render(sections, info, notes, fmt, margin, folder.name)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        written = set()
        for anchor, t in long_tables(sections):
            csv = path.parent / csv_name(folder.name, anchor)
            csv.parent.mkdir(exist_ok=True)
            csv.write_text(machine_csv([t]), encoding="utf-8")
            written.add(csv)
        for stale in set(folder.glob("*.csv")) - written if folder.is_dir() else ():
            stale.unlink()
        path.write_text(page, encoding="utf-8")
    except OSError as err:
        raise ReportError(f"cannot write the summary to {path}: {err.strerror or err}") from None
    return path

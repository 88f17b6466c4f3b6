"""The HTML summary: every section that applies to a dataset, after a table of the dataset's facts,
in one self-contained file (`write_summary`)."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from ..problems import as_path
from . import charts, html
from . import inference as I
from .component_sections import cards, purple, setup_cards
from .dataset import REQUIRED, ReportError, check_columns, full_info, mirror
from .sections import Section, breakdown, ratings, seats, trajectory, winrate


def summary_sections(df: pl.DataFrame, info: dict, margin: float = I.MARGIN,
                     progress=None) -> tuple[list[Section], list[str]]:
    """Every section that applies to the dataset, and notes on those skipped; `progress(name)` is
    told each section as it starts. Win rates and breakdowns are per combination of the run (player
    count and every swept key but the setup grid and grants, which have their own sections)."""
    info = full_info(df, info)
    sections, notes = [], []
    for report in REQUIRED:
        check_columns(df, report)
    multi_policy = not mirror(df)
    builders = [("win rate by policy", lambda: winrate(df, info, margin=margin)) if multi_policy else None,
                ("ratings", lambda: ratings(df, info)) if multi_policy else None,
                ("seats", lambda: seats(df, info, margin)),
                ("score breakdown", lambda: breakdown(df, info)),
                ("setup cards", lambda: setup_cards(df, info, margin)),
                ("purple effects", lambda: purple(df, info, margin)),
                ("cards", lambda: cards(df, info, margin=margin)),
                ("trajectory", lambda: trajectory(df, info))]
    for name, build in filter(None, builders):
        if progress:
            progress(name)
        try:
            section = build()
        except ReportError as err:
            notes.append(f"The {name} section is left out: {err}")
            continue
        if section.tables:
            sections.append(section)
        notes += [n for n in section.notes if not section.tables]
    if not multi_policy:
        notes.append("One policy on every seat: win rates are shown by seat (Seats and turn order) instead of by "
                     "policy.")
    return sections, notes


def write_summary(df: pl.DataFrame, info: dict, out, fmt: str = "png", margin: float = I.MARGIN,
                  progress=None) -> Path:
    """Every report that applies to `df` in one HTML file `out` (a file path or a directory, where
    it is written as summary.html); `margin` is the equivalence margin of the verdicts; `progress`
    is told the name of each section as it starts."""
    info = full_info(df, info)
    out = as_path(out, "out (the summary's file or folder)")
    charts.check_format(fmt)
    if out.suffix.lower() != ".html":
        if out.is_file():
            raise ReportError(f"{out} is a file: give a folder for summary.html, or a path ending in .html")
        out = out / "summary.html"
    secs, notes = summary_sections(df, info, margin, progress)
    try:
        return html.write(out, secs, info, notes, fmt, margin)
    finally:
        for s in secs:
            for _, fig in s.figures:
                fig.clear()

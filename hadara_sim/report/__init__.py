"""Reports over a results dataset: win rates, seats, policy ratings, score breakdowns, setup-card
and purple-effect balance, score trajectories, each with sample sizes, 95% confidence intervals,
corrected marks and verdicts.

- `stats`: pure functions from a results DataFrame to DataFrames of estimates (use them in notebooks);
- `inference`: the intervals, corrections, equivalence tests and sample sizes (statsmodels);
- `ratings`: head-to-head matrices and Bradley-Terry ratings;
- `charts`: matplotlib figures of those estimates;
- `sections`: estimates + tables + charts per report, as the command line and the summary use them;
- `html`: the self-contained HTML summary.

    from hadara_sim.report import load_dataset, stats
    df, info = load_dataset("results/default")
    stats.win_rates(df, ["policy_label"])
"""

from __future__ import annotations

from pathlib import Path

from . import charts, html, inference, ratings, sections, stats
from .stats import ReportError, dataset_info


def load_dataset(path) -> tuple["pl.DataFrame", dict]:  # noqa: F821
    """A results directory as (DataFrame, info): `info` has the scenario name, sizes and run facts.
    Raises ResultsError (unreadable, older schema) like `load_results`."""
    from ..results import load_results, read_metadata

    from ..provenance import with_combination_labels

    meta = read_metadata(Path(path))
    df = load_results(path)
    return with_combination_labels(df, meta), dataset_info(df, meta)


def write_summary(df, info: dict, out, fmt: str = "png", margin: float = inference.MARGIN, progress=None) -> Path:
    """Every report that applies to `df` in one HTML file `out` (a file path or a directory, where
    it is written as summary.html); `margin` is the equivalence margin of the verdicts; `progress`
    is told the name of each section as it starts."""
    out = Path(out)
    if out.suffix.lower() != ".html":
        out = out / "summary.html"
    secs, notes = sections.summary_sections(df, info, margin, progress)
    try:
        return html.write(out, secs, info, notes, fmt)
    finally:
        for s in secs:
            for _, fig in s.figures:
                fig.clear()


__all__ = ["ReportError", "charts", "dataset_info", "html", "inference", "load_dataset", "ratings", "sections", "stats",
           "write_summary"]

"""`hadara-sim report`: tables in the terminal and charts on disk from a results directory."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Optional

import typer
from rich.table import Table as RichTable

from .common import console, fail

app = typer.Typer(help="Reports over a results directory: win rates, score breakdowns, setup-card and "
                       "purple-effect balance, score trajectories, and an HTML summary; every rate with its "
                       "sample size and 95% confidence interval.", no_args_is_help=True)

RESULTS = typer.Argument(..., help="A results directory written by `hadara-sim simulate` (e.g. results/default).",
                         show_default=False)
OUT = typer.Option(None, "--out", "-o", help="Directory for the charts (default: RESULTS/report).",
                   show_default=False)
FORMAT = typer.Option("png", "--format", "-f", help="Chart format: png or svg.")
BY = typer.Option(None, "--by", "-b", help="Group by: policy, seat, setup (card and side), players, or any "
                                           "column / swept key (repeat or comma-separate to combine). "
                                           "Default: policy, per player count and swept key (a setup grid "
                                           "and grants have their own reports); titles name what is pooled.",
                  show_default=False)
MARGIN = typer.Option(2.0, "--margin", "-m", min=0.01, max=50.0,
                      help="Equivalence margin in percentage points: a difference shown to lie within ±MARGIN "
                           "(TOST) is called 'fair within ±MARGIN pp'.")


def _load(results: Path):
    """(df, info) or a clean failure saying what is wrong and how to fix it."""
    from ..report import dataset_info
    from ..results import ResultsError, load_results, read_metadata

    try:
        meta = read_metadata(results)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            df = load_results(results)
    except ResultsError as err:
        message = str(err)
        if "hadara-sim simulate" not in message:
            message += ("\nTo (re)create it, run the scenario with this version of hadara-sim: "
                        "hadara-sim simulate SCENARIO --out DIR [--overwrite]")
        fail(message)
    for w in caught:
        console.print(f"[yellow]warning:[/] {w.message}", highlight=False)
    return df, dataset_info(df, meta)


def _check_format(fmt: str) -> str:
    from ..report.charts import FORMATS

    fmt = fmt.lower().lstrip(".")
    if fmt not in FORMATS:
        fail(f"--format must be {' or '.join(FORMATS)}, got '{fmt}'")
    return fmt


def _out_dir(results: Path, out: Optional[Path]) -> Path:
    out = out if out is not None else results / "report"
    if out.exists() and not out.is_dir():
        fail(f"--out {out} is a file, not a directory")
    return out


def print_table(t) -> None:
    table = RichTable(title=t.title, caption=t.caption or None, title_justify="left", caption_justify="left")
    for i, name in enumerate(t.columns):
        table.add_column(name, justify="left" if i == 0 else "right")
    for i, row in enumerate(t.rows):
        marked = i < len(t.marked) and t.marked[i]
        table.add_row(*row, style="bold yellow" if marked else None)
    console.print(table)


def _emit(section, out: Path, fmt: str) -> list[Path]:
    from ..report.charts import save

    for note in section.notes:
        console.print(f"[dim]{note}[/]", highlight=False)
    for t in section.tables:
        print_table(t)
    paths = []
    for stem, fig in section.figures:
        paths.append(save(fig, out / f"{stem}.{fmt}", fmt))
        fig.clear()
    for p in paths:
        console.print(f"chart: {p}", highlight=False)
    return paths


def _run(results: Path, out: Optional[Path], fmt: str, build) -> None:
    import matplotlib

    matplotlib.use("Agg")
    from ..report import ReportError

    fmt = _check_format(fmt)
    out = _out_dir(results, out)
    df, info = _load(results)
    try:
        section = build(df, info)
    except ReportError as err:
        fail(str(err))
    _emit(section, out, fmt)


def _by(df, by: Optional[list[str]]) -> list[str]:
    from ..report import ReportError, stats

    try:
        return stats.resolve_by(df, by) if by else stats.default_by(df, sweeps=True)
    except ReportError as err:
        fail(str(err))


@app.command()
def winrate(results: Path = RESULTS, by: Optional[list[str]] = BY, out: Optional[Path] = OUT,
            fmt: str = FORMAT, margin: float = MARGIN):
    """Win share per group with its 95% CI and sample size, against the fair share 1/P."""
    from ..report import sections

    _run(results, out, fmt, lambda df, info: sections.winrate(df, info, _by(df, by), margin / 100))


@app.command()
def breakdown(results: Path = RESULTS, by: Optional[list[str]] = BY, out: Optional[Path] = OUT,
              fmt: str = FORMAT):
    """The mean score sheet per group (colonies, statues, silver, gold, cards, coins and the purple
    bonus parts) as stacked bars, and the distribution of final totals."""
    from ..report import sections

    _run(results, out, fmt, lambda df, info: sections.breakdown(df, info, _by(df, by)))


@app.command("setup-cards")
def setup_cards(results: Path = RESULTS, out: Optional[Path] = OUT, fmt: str = FORMAT, margin: float = MARGIN):
    """Setup-card balance: in a setup grid each card and side against the grid mean of the same
    deal and seat, side B against side A and card against card, all paired on the deal, with
    verdicts; otherwise win share against 1/P (observational)."""
    from ..report import sections

    _run(results, out, fmt, lambda df, info: sections.setup_cards(df, info, margin / 100))


@app.command()
def seats(results: Path = RESULTS, out: Optional[Path] = OUT, fmt: str = FORMAT, margin: float = MARGIN):
    """Seat and turn-order effects: win share by seat and of the first player of each epoch, per
    player count and combination, against 1/P (run scenarios/seats.toml for a clean measurement)."""
    from ..report import sections

    _run(results, out, fmt, lambda df, info: sections.seats(df, info, margin / 100))


@app.command()
def ratings(results: Path = RESULTS, out: Optional[Path] = OUT, fmt: str = FORMAT):
    """Policy ratings: Bradley-Terry ratings with deal-clustered CIs, win share, finishing position,
    tie rate and the head-to-head matrix (datasets with two or more policies)."""
    from ..report import sections

    _run(results, out, fmt, sections.ratings)


@app.command()
def purple(results: Path = RESULTS, out: Optional[Path] = OUT, fmt: str = FORMAT, margin: float = MARGIN):
    """What each purple effect is worth: paired differences from a grant sweep (experiment), and
    owners against the other seats of their game (observational)."""
    from ..report import sections

    def build(df, info):
        section = sections.purple(df, info, margin / 100)
        if not section.tables:
            from ..report import ReportError

            raise ReportError("nothing to report on purple effects: " + " ".join(section.notes))
        return section

    _run(results, out, fmt, build)


@app.command()
def trajectory(results: Path = RESULTS, by: Optional[list[str]] = BY, out: Optional[Path] = OUT,
               fmt: str = FORMAT):
    """The mean running score after each epoch per group, and how often the leader after epoch I or
    II goes on to win."""
    from ..report import sections

    _run(results, out, fmt, lambda df, info: sections.trajectory(df, info, _by(df, by)))


@app.command()
def summary(results: Path = RESULTS, out: Optional[Path] = OUT, fmt: str = FORMAT, margin: float = MARGIN):
    """Every report that applies to the dataset in one self-contained HTML file (charts embedded)."""
    import matplotlib

    matplotlib.use("Agg")
    from ..report import ReportError, write_summary

    fmt = _check_format(fmt)
    out = _out_dir(results, out)
    df, info = _load(results)
    with console.status("writing the summary report"):
        try:
            path = write_summary(df, info, out, fmt, margin / 100)
        except ReportError as err:
            fail(str(err))
    console.print(f"summary report: [bold]{path}[/] ({path.stat().st_size / 1024:,.0f} KiB)", highlight=False)
    console.print(f"open it in a browser: {path.resolve().as_uri()}", highlight=False, soft_wrap=True)

"""`hadara-sim report`: tables in the terminal and charts on disk from a results directory."""

from __future__ import annotations

import difflib
import warnings
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Optional

import typer
from rich.markup import escape
from .common import (FORMAT_OPTION, MARGIN_OPTION, RESULTS_ARGUMENT as RESULTS, check_format, console, emit,
                     err_console, fail, not_nan, writable_folder)
from ..invocation import program

app = typer.Typer(help="Reports over a results directory: win rates, score breakdowns, setup-card and "
                       "purple-effect balance, score trajectories, and an HTML summary; every rate with its "
                       "sample size and 95% confidence interval.", no_args_is_help=True)

OUT = typer.Option(None, "--out", "-o", help="Directory for the charts (default: RESULTS/report).",
                   show_default=False)
SUMMARY_OUT = typer.Option(None, "--out", "-o", help="Where to write the HTML: a folder (summary.html in it) or a "
                                                     "file ending .html (default: RESULTS/report).", show_default=False)
FORMAT = typer.Option("png", "--chart-format", help="Chart format: png or svg.")
TABLES = FORMAT_OPTION
# Columns a narrow terminal may leave out (the CI says what p says; 1/P and chance are constant).
OPTIONAL = ("p", "q (BH)", "fair 1/P", "chance", "rows")
BY_HELP = ("Group by: policy, seat, setup (card and side), players, or any column / swept key (repeat or "
           "comma-separate to combine). Default: policy, per player count and swept key (a setup grid and grants "
           "have their own reports){}; titles name what is pooled.")
BY = typer.Option(None, "--by", "-b", help=BY_HELP.format(", or seat where one policy plays every seat (its win "
                                                          "share is 1/P by construction)"), show_default=False)
# the running totals of one policy on every seat test nothing against 1/P: its default stays by policy
TRAJECTORY_BY = typer.Option(None, "--by", "-b", help=BY_HELP.format(", also where one policy plays every seat"),
                             show_default=False)
MARGIN = MARGIN_OPTION


def _load(results: Path):
    """(df, info) or a clean failure saying what is wrong and how to fix it."""
    from ..report.dataset import dataset_info
    from ..results import ResultsError, load_results, read_metadata

    try:
        meta = read_metadata(results)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            df = load_results(results)
    except ResultsError as err:
        _unreadable(err)
    for w in caught:
        err_console.print(f"[yellow]warning:[/] {escape(str(w.message))}", highlight=False)
    from ..provenance import with_combination_labels

    return with_combination_labels(df, meta), dataset_info(df, meta)


def _unreadable(err) -> NoReturn:
    """A clean failure for results that cannot be read, saying how to make them: a damaged part by
    resuming the run (its chunk alone: --overwrite, said for every problem, played them all again)."""
    from ..results import DamagedPart, resume_one

    message = str(err)
    if isinstance(err, DamagedPart):
        command = f"the run's simulate command ({program()} simulate SCENARIO --out DIR)"
        fail(f"{message}\nTo mend it, {resume_one(command)}")
    # (not for a newer hadara-sim's results: --overwrite would delete them)
    if not any(told in message for told in (f"{program()} simulate", "that holds it", "give one of them",
                                            "written by a newer hadara-sim")):
        message += ("\nTo (re)create it, run the scenario with this version of hadara-sim: "
                    f"{program()} simulate SCENARIO --out DIR [--overwrite]")
    fail(message)


def _check_format(fmt: str) -> str:
    from ..report.charts import check_format
    from ..report.dataset import ReportError

    try:
        return check_format(fmt.lower().lstrip("."))
    except ReportError as err:
        fail(f"--chart-format: {err}")


def _out_dir(results: Path, out: Optional[Path], files: tuple[str, ...] = ()) -> Path:
    """--out, or RESULTS/report once RESULTS is a results directory (not a file in one); a file of a
    suffix in `files` too (the summary's .html)."""
    from ..results import ResultsError, read_metadata

    if out is None:
        try:
            read_metadata(results)
        except ResultsError as err:
            _unreadable(err)
    return writable_folder(out if out is not None else results / "report", files=files)


def _emit(section, info: dict, out: Path, fmt: str, tables: str = "table") -> list[Path]:
    """Print a section's tables with its provenance footer, save its charts."""
    from .. import provenance
    from ..report.charts import save

    notes = [section.intro, *section.notes] if tables == "table" else list(section.notes)
    prov = info.get("provenance", {})
    emit([replace(t, optional=OPTIONAL) for t in section.tables], tables, notes=notes,
         footer=provenance.text(prov), footer_data=prov)
    paths = []
    for stem, fig in section.figures:
        paths.append(save(fig, out / f"{stem}.{fmt}", fmt))
        fig.clear()
    for p in paths:
        (console if tables == "table" else err_console).print(f"chart: {p}", markup=False, highlight=False)
    return paths


@contextmanager
def _only_reading(results: Path):
    """Within the block, a Ctrl-C is told as such, and that the results were left as they were (typer
    ended the command silently, exit 130)."""
    try:
        yield
    except KeyboardInterrupt:
        err_console.print(f"\n[yellow]interrupted[/]: the report is unfinished (a chart being written may be cut "
                          f"short); the run in {escape(str(results))} was only read, not changed; run the same "
                          "command again for the whole report",
                          highlight=False, soft_wrap=True)
        raise typer.Exit(130) from None


def _run(results: Path, out: Optional[Path], fmt: str, build, tables: str = "table") -> None:
    """The report `build` makes of `results`, told as interrupted on a Ctrl-C."""
    with _only_reading(results):
        _report(results, out, fmt, build, tables)


def _report(results: Path, out: Optional[Path], fmt: str, build, tables: str) -> None:
    """Read the results, build the report's section, print its tables and save its charts."""
    import matplotlib

    matplotlib.use("Agg")
    from ..report.dataset import ReportError
    from ..results import ResultsError

    fmt = _check_format(fmt)
    tables = check_format(tables)
    out = _out_dir(results, out)
    # A large run takes minutes to read and test (a 4-player ladder of 96,000 deals: about 3): a status
    # line says what is under way. It shows only in a terminal and is gone before the tables print.
    with console.status(f"reading {escape(str(results))}") as status:
        df, info = _load(results)
        status.update(f"computing the report over {df.height:,} rows")
        try:
            section = build(df, info)
        except ReportError as err:
            fail(str(err))
        except ResultsError as err:
            fail(f"{results}: {err}")
    try:
        _emit(section, info, out, fmt, tables)
    except ReportError as err:
        fail(str(err))


def _by(df, by: Optional[list[str]], report: str) -> list[str]:
    """The --by columns, or without them `report`'s default groups, as the library takes them
    (`group_columns`: by policy, by seat where one policy plays every seat)."""
    from ..report.dataset import ReportError, group_columns

    if by and "combination" in df.columns:  # the combination's name rather than its number
        by = [",".join("combination" if p.strip() == "combo" else p for p in item.split(",")) for item in by]
    try:
        return group_columns(df, report, by or None)
    except ReportError as err:
        fail(str(err))


@app.command()
def winrate(results: Path = RESULTS, by: Optional[list[str]] = BY, out: Optional[Path] = OUT,
            fmt: str = FORMAT, tables: str = TABLES, margin: float = MARGIN):
    """Win share per group with its 95% CI and sample size, against the fair share 1/P."""
    from ..report import sections

    _run(results, out, fmt, lambda df, info: sections.winrate(df, info, _by(df, by, "winrate"), margin / 100), tables)


@app.command()
def breakdown(results: Path = RESULTS, by: Optional[list[str]] = BY, out: Optional[Path] = OUT,
              fmt: str = FORMAT, tables: str = TABLES):
    """The mean score sheet per group (colonies, statues, silver, gold, cards, coins and the purple
    bonus parts) as stacked bars, and the distribution of final totals."""
    from ..report import sections

    _run(results, out, fmt, lambda df, info: sections.breakdown(df, info, _by(df, by, "breakdown")), tables)


@app.command("setup-cards")
def setup_cards(results: Path = RESULTS, out: Optional[Path] = OUT, fmt: str = FORMAT, tables: str = TABLES,
                margin: float = MARGIN):
    """Setup-card balance: each card and side against the fair share 1/P with a verdict; in a setup
    grid also against the average side of the same deal and seat, side B against side A and card
    against card (relative contrasts, paired on the deal); otherwise observational."""
    from ..report import component_sections

    _run(results, out, fmt, lambda df, info: component_sections.setup_cards(df, info, margin / 100), tables)


@app.command()
def seats(results: Path = RESULTS, out: Optional[Path] = OUT, fmt: str = FORMAT, tables: str = TABLES,
                margin: float = MARGIN):
    """Seat and turn-order effects: win share by seat and of the first player of each epoch, per
    player count and combination, against 1/P (run scenarios/seats.toml for a clean measurement)."""
    from ..report import sections

    _run(results, out, fmt, lambda df, info: sections.seats(df, info, margin / 100), tables)


@app.command()
def ratings(results: Path = RESULTS, out: Optional[Path] = OUT, fmt: str = FORMAT, tables: str = TABLES):
    """Policy ratings: Bradley-Terry ratings with deal-clustered CIs, win share, finishing position,
    tie rate and the head-to-head matrix (datasets with two or more policies)."""
    from ..report import sections

    _run(results, out, fmt, sections.ratings, tables)


@app.command()
def purple(results: Path = RESULTS, out: Optional[Path] = OUT, fmt: str = FORMAT, tables: str = TABLES,
                margin: float = MARGIN):
    """What each purple effect is worth: paired differences from a grant sweep (experiment), and
    owners against the other seats of their game (observational)."""
    from ..report import component_sections

    def build(df, info):
        section = component_sections.purple(df, info, margin / 100)
        if not section.tables:
            from ..report.dataset import ReportError

            raise ReportError("nothing to report on purple effects: " + " ".join(section.notes))
        return section

    _run(results, out, fmt, build, tables)


@app.command()
def cards(results: Path = RESULTS, top: int = typer.Option(10, "--top", min=1, max=1000,
                                                           help="Cards shown at each end of the ranking in the "
                                                                "terminal (csv and json hold every card)."),
          out: Optional[Path] = OUT, fmt: str = FORMAT, tables: str = TABLES, margin: float = MARGIN):
    """Every civilization card, colony tile and statue: how often it was offered, bought, sold and
    taken, and how its buyers fared against the seats that could have bought it and did not
    (observational, paired on deals); with a grant sweep over card ids, each card against the mean of
    its colour and epoch (experiment)."""
    from ..report import component_sections

    _run(results, out, fmt, lambda df, info: component_sections.cards(df, info, top, margin / 100), tables)


@app.command()
def trajectory(results: Path = RESULTS, by: Optional[list[str]] = TRAJECTORY_BY, out: Optional[Path] = OUT,
               fmt: str = FORMAT, tables: str = TABLES):
    """The mean running score after each epoch per group, and how often the leader after epoch I or
    II goes on to win."""
    from ..report import sections

    _run(results, out, fmt, lambda df, info: sections.trajectory(df, info, _by(df, by, "trajectory")),
         tables)


@app.command()
def summary(results: Path = RESULTS, out: Optional[Path] = SUMMARY_OUT, fmt: str = FORMAT, margin: float = MARGIN):
    """Every report that applies to the dataset in one self-contained HTML file (charts embedded); a
    table of more than 40 rows shows the 40 that matter most, and every row is in a CSV beside the page."""
    import matplotlib

    matplotlib.use("Agg")
    from ..report.dataset import ReportError
    from ..report.html import tables_folder
    from ..report.summary import write_summary

    fmt = _check_format(fmt)
    out = _out_dir(results, out, files=(".html",))
    with _only_reading(results):
        df, info = _load(results)
        with console.status("writing the summary report") as status:
            def progress(name: str):
                # A terminal sees the status line change; a log or a pipe gets one line per section.
                (status.update if console.is_terminal else err_console.print)(f"summary report: {name}")
            try:
                path = write_summary(df, info, out, fmt, margin / 100, progress)
            except ReportError as err:
                fail(str(err))
    console.print(f"summary report: [bold]{escape(str(path))}[/] ({path.stat().st_size / 1024:,.0f} KiB)", highlight=False)
    tables = sorted(tables_folder(path).glob("*.csv"))
    if tables:
        console.print(f"every row of its {len(tables)} long table{'s' * (len(tables) > 1)}, as CSV: "
                      f"{escape(str(tables_folder(path)))}", highlight=False, soft_wrap=True)
    console.print(f"open it in a browser: {path.resolve().as_uri()}", markup=False, highlight=False, soft_wrap=True)


@app.command()
def curve(results: Path = RESULTS,
          key: Optional[list[str]] = typer.Option(None, "--key", "-k", help="The swept component value, e.g. "
                                                  "components.setup.3B.culture (default: the only one swept); "
                                                  "give two (--key A --key B) for the surface of a two-key sweep: "
                                                  "its fair line and fair pairs.", show_default=False),
          where: Optional[list[str]] = typer.Option(None, "--where", "-w", help="COLUMN=VALUE: the rows the "
                                                    "value affects (repeat to combine). Default for a setup "
                                                    "card value: the seat holding that card and side.",
                                                    show_default=False),
          reference: Optional[float] = typer.Option(None, "--reference", callback=not_nan, help="Value the paired differences "
                                                    "are taken against (default: the smallest).",
                                                    show_default=False),
          out: Optional[Path] = OUT, fmt: str = FORMAT, tables: str = TABLES, margin: float = MARGIN):
    """Win share and score margin of the affected seat against a swept component value, paired on
    deals, with a fitted 95% band and the value at which the seat is fair (with its 95% CI). With
    two keys: the win share over every pair, the fair line through it and the fair pairs."""
    from ..report.dataset import ReportError
    from ..report import surface
    from ..report.curve import curve_keys, section
    from ..results import read_metadata

    if key and len(key) > 2:
        fail(f"--key: give one swept key for a curve or two for a surface, not {len(key)}")
    if key and len(key) == 2 and key[0] == key[1]:
        fail(f"--key {key[0]} is given twice: a surface needs two different swept keys (one --key for its curve)")
    if key and len(key) == 2 and reference is not None:
        fail("--reference is for the curve of one key; a surface of two keys has no reference value")

    conditions = {}
    for item in where or []:
        column, sep, value = item.partition("=")
        if not sep or not column.strip():
            fail(f"--where {item}: expected COLUMN=VALUE, e.g. --where seat=0")
        if column.strip() in conditions:
            fail(f"--where {column.strip()} is given twice: the conditions must all hold, and a row has one "
                 f"value of {column.strip()}")
        conditions[column.strip()] = value.strip()

    def build(df, info):
        combinations = read_metadata(results).get("combinations", [])
        keys = curve_keys(df, combinations)
        if not keys:
            swept = list(dict.fromkeys(text for combo in combinations for text in combo.get("sweep", {})))
            raise ReportError("no component value is swept in this dataset"
                              + (f" (it sweeps {', '.join(swept)}: settings to choose among, not a number of the "
                                 "component set, and their own reports compare them)" if swept else "")
                              # whole commands, by the shipped scenarios' names: `simulate scenarios/...` ran
                              # neither without the program nor outside the project's folder
                              + f": a curve needs a run whose scenario sweeps a component value, e.g. "
                              f"`{program()} simulate balance-fix` (one key) or "
                              f"`{program()} simulate 3b-culture-coins` (two keys, a surface)")
        for k in key or []:
            if k not in keys:
                close = difflib.get_close_matches(k, keys, n=1)
                raise ReportError(f"--key {k} is not swept here as a component value"
                                  + (f" (did you mean {close[0]}?)" if close else "")
                                  + f"; component values swept here: {', '.join(keys)}")
        chosen = list(key or keys)
        if len(chosen) == 2:
            return surface.section(df, info, chosen[0], chosen[1], conditions or None, margin / 100)[0]
        if len(chosen) > 2:
            raise ReportError(f"choose one swept key (a curve) or two (a surface) with --key; component values "
                              f"swept here: {', '.join(keys)}")
        return section(df, info, chosen[0], conditions or None, reference, margin / 100)[0]

    _run(results, out, fmt, build, tables)

"""Shared pieces of the commands: the console, clean failures, loading components and policies, and
printing tables (`report.table.Table`) in every format."""

from __future__ import annotations

import json
import math
import os
import shlex
import shutil
import sys
from pathlib import Path
from typing import NoReturn, Optional, Sequence

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table as RichTable
from rich.text import Text

from ..problems import ascii_whole
from ..report.table import Table, machine_csv, plain


console = Console()
err_console = Console(stderr=True)

COMPONENTS_OPTION = typer.Option(
    None, "--components", help="Directory of a component set (default: the shipped reconstruction).",
    show_default=False)


def fail(message: str, code: int = 2) -> NoReturn:
    """Print an error that says how to fix it, and exit non-zero without a traceback."""
    say_error(message)
    raise typer.Exit(code)


def say_error(message: str) -> None:
    """Print an error that says how to fix it. The message is text, not markup: a key such as
    [components.setup] is printed as written. Lines are not wrapped here (the terminal wraps them), so
    a long path stays whole and can be copied."""
    err_console.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)


# The errors that say what to fix in what a script read: (module, class); an error of a module not
# yet imported cannot have been raised, so none is imported here (learn's would compile kernels).
TOLD_ERRORS = (("hadara_sim.problems", "InputError"), ("hadara_sim.results", "ResultsError"),
               ("hadara_sim.report.dataset", "ReportError"), ("hadara_sim.runner", "RunError"),
               ("hadara_sim.policy", "IllegalChoice"), ("hadara_sim.learn", "LearnError"))


def run_script(main) -> None:
    """Run a script's typer `main` (scripts/) as the commands run: a mistake in what it read (a results
    folder, a component set, a scenario, a policy) told in one line, exit 2; a Ctrl-C exits 130. The
    scripts stopped with a traceback where `hadara-sim report` says what to fix."""
    try:
        typer.run(main)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        sys.exit(130)
    except Exception as err:
        told = tuple(getattr(sys.modules[module], name) for module, name in TOLD_ERRORS if module in sys.modules)
        if not isinstance(err, told):
            raise
        say_error(str(err))
        sys.exit(2)


def whole_number(low: int, high: int | None = None):
    """An argparse type: a whole number in low..high (the argparse scripts took --games 0 or --players 7
    and stopped in a traceback, or measured nothing and wrote it down)."""
    import argparse

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"{value} is not in {low}..{high}" if high is not None
                                             else f"{value} is less than {low}")
        return value

    return parse


def _creatable(path: Path, option: str) -> None:
    """Fail unless the nearest existing folder above `path` is a writable folder."""
    parent = path.absolute().parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        fail(f"{option} {path}: {parent} is a file, not a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        fail(f"{option} {path}: cannot write in {parent} (permission denied); choose another path")
    probe = parent / path.absolute().relative_to(parent).parts[0]
    try:  # os.access says yes to root everywhere, also where nothing can be made (/proc)
        probe.mkdir()
        probe.rmdir()
    except OSError as err:
        fail(f"{option} {path}: nothing can be made in {parent} ({err.strerror or err}); choose another path")


FILE_SUFFIXES = (".png", ".svg", ".pdf", ".jpg", ".jpeg", ".html", ".csv", ".json", ".md", ".txt", ".parquet")


def _looked_up(path: Path, option: str) -> None:
    """Fail unless the file system can look `path` up: a name too long for it (ENAMETOOLONG) raised
    from pathlib's checks below, an "unexpected OSError"."""
    try:
        path.exists()
    except OSError as err:
        fail(f"{option} {path}: {err.strerror or err}; choose another path")


def writable_folder(path: Path, option: str = "--out", files: tuple[str, ...] = ()) -> Path:
    """`path` if it is (or can become) a writable folder, or a file of a suffix in `files`; checked before
    any work, not after it."""
    _looked_up(path, option)
    suffix = path.suffix.lower()
    if suffix in files:
        return writable_file(path, option)
    if path.exists():
        if not path.is_dir():
            fail(f"{option} {path} is a file, not a folder; give a folder path")
        if not os.access(path, os.W_OK | os.X_OK):
            fail(f"{option} {path}: cannot write in it (permission denied); choose another folder")
        return path
    if suffix in FILE_SUFFIXES:  # `--out chart.png` made a folder chart.png/ with the chart in it
        fail(f"{option} {path}: give a folder (the files go inside it); '{path.name}' reads as a file name, "
             f"e.g. {option} {path.with_suffix('')}")
    _creatable(path, option)
    return path


def writable_file(path: Path, option: str = "--out") -> Path:
    """`path` if a file can be written there; checked before any work, not after it."""
    _looked_up(path, option)
    if path.is_dir():
        fail(f"{option} {path} is a folder, not a file; give a file path")
    if path.exists():
        if not os.access(path, os.W_OK):
            fail(f"{option} {path}: cannot overwrite it (permission denied); choose another path")
        return path
    _creatable(path, option)
    return path


def recordable(command: str, out: Path) -> str:
    """`command`, which the file written at `out` records, if TOML can hold it; else a clean failure now,
    before the work: a lone surrogate (a byte of a path given that is no UTF-8) stopped the writing of
    the file after a long run (`policies tune`, scripts/train_expert.py, scripts/fit_value.py)."""
    from ..tune import toml_string

    try:
        toml_string(command)
    except ValueError as err:
        fail(f"--out {out}: cannot record the command in it: {err}")
    return command


def components_or_exit(path: Optional[Path]) -> "ComponentSet":  # noqa: F821
    from ..components import ComponentError  # numpy and the set: not at start-up
    from ..component_files import load_components
    from ..invocation import program

    try:
        return load_components(path)
    except ComponentError as err:
        lines = "\n".join(f"  {p}" for p in err.problems)
        fail(f"the component set at {path} is not valid ({len(err.problems)} problem"
             f"{'s' * (len(err.problems) != 1)}):\n{lines}\n"
             f"Check it with: {program()} components validate {shlex.quote(str(path))}")


def _policy_parts(spec: str) -> list[str]:
    """One --policy value split at its commas outside brackets: a parameter's list or tuple
    (balanced:sides=[1,0,1,-1,-1]) stays whole; it was cut into 'balanced:sides=[1' and four policies."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(spec):
        depth += (char in "([{") - (char in ")]}" and depth > 0)
        if char == "," and depth == 0:
            parts.append(spec[start:i])
            start = i + 1
    return [*parts, spec[start:]]


def split_specs(specs: Sequence[str]) -> list[str]:
    """--policy values, repeated or comma-separated: ["a,b", "c"] -> ["a", "b", "c"]. An empty name
    (--policy '', a doubled comma) is refused: it was read as none given, and the default played under it."""
    parts = [(spec, part.strip()) for spec in specs for part in _policy_parts(spec)]
    empty = next((spec for spec, part in parts if not part), None)
    if empty is not None:
        fail(f"--policy '{empty}' has an empty policy name; give a name in every place (e.g. --policy "
             "greedy,random), or leave --policy out for the default")
    return [part for _, part in parts]


def seat_count_problem(specs: list[str], players: int, ask: str) -> str:
    """What is wrong with `specs` for `players` seats, and the fix: that count of policies, or the
    player count the policies name where a game can seat it."""
    fix = (f"give {players}, or set the player count with --players {len(specs)}" if 2 <= len(specs) <= 5
           else f"give {players} (a game seats 2 to 5 players)")
    return f"{ask}: got {len(specs)} for {players} players ({', '.join(specs)}); {fix}"


def policies_or_exit(specs: list[str], players: int, seed: int):
    """One policy per seat from the --policy options (repeated or comma-separated): none = greedy
    everywhere, one = everywhere, otherwise one per seat."""
    from ..registry import PolicyNotFound, make_policy

    specs = split_specs(specs) or ["greedy"]
    if len(specs) == 1:
        specs = specs * players
    if len(specs) != players:
        fail(seat_count_problem(specs, players, "give one --policy for every seat or a single one for all"))
    policies, made = [], {}
    for seat, spec in enumerate(specs):
        if spec not in made:
            try:
                made[spec] = make_policy(spec, seed=seed + seat)
            except (PolicyNotFound, ValueError) as err:  # a user's policy that fails in any other way is named so
                fail(str(err))
        policies.append(made[spec])
    return policies


def playable_or_exit(policies, components) -> None:
    """Fail unless every policy can play games of `components` (the expert's weights were learned on one
    set), before the first game; a check that fails in another way is the policy's fault (PolicyError),
    named by `main` with exit 1."""
    from ..policy import playable_on

    for policy in {id(p): p for p in policies}.values():
        try:
            playable_on(policy, components)
        except ValueError as err:
            fail(str(err))


def not_nan(value: float | None) -> float | None:
    """A number option's value; nan, which passes typer's range checks, is refused."""
    if value is not None and value != value:
        raise typer.BadParameter("nan is not a number: give a number")
    return value


def margin_in_pp(value: float) -> float:
    """--margin in percentage points; a value below 0.1 is the old fraction spelling, refused."""
    if not_nan(value) <= 0:
        raise typer.BadParameter(f"{value:g}: the margin is a positive number of percentage points, e.g. "
                                 "--margin 2 for ±2 pp")
    if value < 0.1:
        raise typer.BadParameter(f"{value:g} looks like a fraction (the old spelling): the margin is in "
                                 f"percentage points everywhere, e.g. --margin {100 * value:g} for ±{100 * value:g} pp")
    return value


def results_given(value: Optional[Path]) -> Path:
    """RESULTS, or a failure naming the runs there are to give (click said only "Missing argument")."""
    if value is None:
        from ..invocation import command
        from ..results import runs_text

        runs = runs_text(Path("results"))
        fail("give a results directory: " + (f"results/ holds {runs}" if runs else
                                               f"none in results/ yet; write one with {command('simulate', 'default')}"))
    return value


# Optional to click, so that a missing one is told with the runs there are (`results_given`).
RESULTS_ARGUMENT = typer.Argument(None, help="A results directory written by `hadara-sim simulate` (e.g. "
                                             "results/default).", show_default=False, callback=results_given)


MARGIN_OPTION = typer.Option(
    2.0, "--margin", "-m", max=50.0, callback=margin_in_pp,
    help="Equivalence margin in percentage points (2 = ±2 pp): a difference shown to lie within ±MARGIN "
         "(TOST) is called 'fair within ±MARGIN pp'.")


# --- tables in every format -------------------------------------------------------------------

FORMATS = ("table", "csv", "markdown", "json")
FORMAT_OPTION = typer.Option(
    "table", "--format", help="How to print the tables: table (for the terminal), markdown, or for machines "
                              "csv (one CSV: a `table` column names each row's table; numbers raw, the unit in "
                              "the column name) or json (each table's title, caption and numbers; provenance). "
                              "Choices: table, csv, markdown, json.")


def check_format(fmt: str) -> str:
    """The --format value, or a clean failure listing the choices."""
    fmt = fmt.lower()
    if fmt == "md":
        fmt = "markdown"
    if fmt not in FORMATS:
        fail(f"--format must be {', '.join(FORMATS[:-1])} or {FORMATS[-1]}, got '{fmt}'")
    return fmt


def output_width() -> int | None:
    """The width to fit tables into: $COLUMNS, else the terminal's; None when piped (no limit)."""
    columns = ascii_whole(os.environ.get("COLUMNS", ""))  # COLUMNS=² was "unexpected ValueError"
    if columns:
        return columns
    if sys.stdout.isatty():
        return shutil.get_terminal_size().columns
    return None


def emit(tables: Sequence[Table], fmt: str = "table", *, notes: Sequence[str] = (),
         footer: str = "", footer_data: dict | None = None) -> None:
    """Print tables (with notes before them and a provenance footer after) in one format."""
    fmt = check_format(fmt)
    if fmt == "json":
        doc = {"tables": [_json_table(t) for t in tables]}
        if notes:
            doc["notes"] = [plain(n) for n in notes]
        if footer_data or footer:
            doc["provenance"] = footer_data or footer
        sys.stdout.write(json.dumps(_strict(doc), indent=1, default=str, allow_nan=False) + "\n")
    elif fmt == "csv":
        sys.stdout.write(machine_csv(tables))
    elif fmt == "markdown":
        parts = [plain(n) for n in notes]
        for t in tables:
            parts.append(_markdown_table(t))
        if footer:
            parts.append(f"<sub>{plain(footer)}</sub>")
        sys.stdout.write("\n\n".join(parts) + "\n")
    else:
        for n in notes:
            console.print(Text(plain(n), style="dim"))
        for t in tables:
            print_table(t)
        if footer:
            console.print(Text(plain(footer), style="dim"), soft_wrap=output_width() is None)


def _strict(value):
    """A JSON document's values with every float that is not finite as null (strict JSON has no NaN)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _strict(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_strict(v) for v in value]
    return value


def _json_schema(frame) -> dict[str, str]:
    """Each column's type in the JSON: integer, number, boolean or string (null: not known)."""
    import polars as pl

    return {name: ("integer" if dtype.is_integer() else "number" if dtype.is_numeric() else
                   "boolean" if dtype == pl.Boolean else "string") for name, dtype in frame.schema.items()}


def _json_table(t: Table) -> dict:
    """A table for --format json: title, caption, its numbers (else its cells) and marked rows."""
    doc = {"title": plain(t.title)}
    if t.caption:
        doc["caption"] = plain(t.caption)
    if t.data is not None:
        frame = t.machine()
        doc["schema"] = _json_schema(frame)
        doc["data"] = frame.to_dicts()
    else:
        doc["columns"] = [plain(c) for c in t.columns]
        doc["rows"] = [[plain(c) for c in row] for row in t.rows]
    if any(t.marked):
        doc["marked"] = [bool(m) for m in t.marked]
    return doc


def _markdown_table(t: Table) -> str:
    """A table for --format markdown: bold title, a pipe table (marked rows bold), italic caption."""

    def cell(c) -> str:  # a label "<b>" is text: markdown would read it as HTML
        return plain(c).replace("|", "\\|").replace("<", "\\<").replace("\n", " ")

    lines = [f"**{cell(t.title)}**", "", "| " + " | ".join(cell(c) or " " for c in t.columns) + " |",
             "| " + " | ".join("---" if i == 0 else "---:" for i in range(len(t.columns))) + " |"]
    for i, row in enumerate(t.rows):
        marked = i < len(t.marked) and t.marked[i]
        cells = [cell(c) for c in row]
        lines.append("| " + " | ".join(f"**{c}**" if marked and c else c for c in cells) + " |")
    if t.caption:
        lines += ["", f"_{cell(t.caption)}_"]
    return "\n".join(lines)


# Terminal tables: widths decided here, so that rich never has to cut a cell.

_PAD, _GAP = 2, 1  # rich's default cell padding (one space each side) and one border per column


def _width(text: str) -> int:
    return max((Text(line).cell_len for line in text.split("\n")), default=0)


def _longest_word(text: str) -> int:
    return max((Text(w).cell_len for w in text.split()), default=0)


def _is_text(name: str, cells: list[str]) -> bool:
    """A column of prose (wraps at words) rather than of numbers or ids (never cut)."""
    return any(len(c.split()) >= 3 and any(ch.isalpha() for ch in c) for c in cells)


def _layout(t: Table):
    """Per column: (index, minimum width, natural width, wraps, left-aligned)."""
    cols = []
    for j, name in enumerate(t.columns):
        cells = [plain(row[j]) if j < len(row) else "" for row in t.rows]
        wraps = name in t.wrap if t.wrap is not None else _is_text(name, cells)
        natural = max([_width(plain(name)), *map(_width, cells)])
        if wraps:
            least = max([_longest_word(plain(name)), *map(_longest_word, cells)], default=1)
            least = max(least, min(natural, 16))
        else:
            least = max([_longest_word(plain(name)), *map(_width, cells)], default=1)
        left = j == 0 or wraps or any(sum(ch.isalpha() for ch in c) > 2 for c in cells)
        cols.append((j, least, natural, wraps, left))
    return cols


def _fit(cols, width: int) -> list[int] | None:
    """Column widths that fit `width` (borders and padding included), or None."""
    overhead = _GAP + sum(_PAD + _GAP for _ in cols)
    if sum(c[1] for c in cols) + overhead > width:
        return None
    widths = [c[1] for c in cols]
    room = width - overhead - sum(widths)
    # Text columns get room first (fewer wrapped lines), then headers of number columns.
    for first in (True, False):
        for i, (_, least, natural, wraps, _) in enumerate(cols):
            if wraps == first and room > 0:
                extra = min(room, natural - widths[i])
                widths[i] += extra
                room -= extra
    return widths


def _blocks(cols, width: int):
    """Split columns into blocks that fit `width`, each repeating the first column."""
    key, rest = cols[0], cols[1:]
    blocks, current = [], [key]
    for c in rest:
        if len(current) > 1 and _fit([*current, c], width) is None:
            blocks.append(current)
            current = [key, c]
        else:
            current.append(c)
    blocks.append(current)
    return blocks


def total_width(widths: list[int]) -> int:
    """A table's width in the terminal from its column widths."""
    return sum(widths) + _GAP + len(widths) * (_PAD + _GAP)


def print_table(t: Table, width: int | None = None) -> None:
    """One table in the terminal: text columns wrap, numbers and ids never do."""
    width = width if width is not None else output_width()
    cols = _layout(t)
    dropped = []
    if width is not None and _fit(cols, width) is None:
        kept = [c for c in cols if t.columns[c[0]] not in t.optional]
        if _fit(kept, width) is not None:
            dropped = [t.columns[c[0]] for c in cols if c not in kept]
            cols = kept
    if width is None:
        blocks, widths = [cols], [[c[2] for c in cols]]
    else:
        blocks = [cols] if _fit(cols, width) else _blocks(cols, width)
        widths = [_fit(b, width) or [c[1] for c in b] for b in blocks]
    total = 0
    for k, (block, ws) in enumerate(zip(blocks, widths)):
        title = t.title
        if len(blocks) > 1:
            title += f" ({k + 1} of {len(blocks)}{': more columns below' if k < len(blocks) - 1 else ''})"
        _print_at(Text(plain(title), style="italic"), width or total_width(ws))
        table = RichTable()
        for (j, _, _, _, left), w in zip(block, ws):
            table.add_column(Text(plain(t.columns[j])), justify="left" if left else "right", width=w,
                             overflow="fold")
        for i, row in enumerate(t.rows):
            marked = i < len(t.marked) and t.marked[i]
            table.add_row(*(_cell(row[j]) if j < len(row) else "" for j, *_ in block),
                          style="bold yellow" if marked else None)
        total = max(total, total_width(ws))
        _print_at(table, max(total, width or 0))
    caption = t.caption
    if dropped:
        left_out = (f"left out at this width: {', '.join(dropped)} "
                    "(a wider terminal or --format csv shows every column)")
        caption = f"{caption}; {left_out}" if caption else left_out
    if caption:
        _print_at(Text(plain(caption), style="dim"), width or total)


def _cell(cell) -> Text:
    """A cell for rich: its text as written (rich would read a plain string as markup)."""
    return cell if isinstance(cell, Text) else Text(str(cell))


def _print_at(renderable, width: int) -> None:
    """Print at exactly `width` columns (wider than the terminal only when nothing else fits)."""
    Console(width=width).print(renderable)

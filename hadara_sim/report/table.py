"""The one table model of reports and of the command line: a table's cells as text, the numbers
behind them with their units (`machine`, for csv and json), how the terminal may narrow it
(`optional`, `wrap`), and how it renders in HTML (`table_html`).

Nothing here loads polars or the statistics: the command line builds its tables from this module at
start-up (polars is imported where a table's numbers are read).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape
from typing import TYPE_CHECKING, Sequence

from rich.text import Text

if TYPE_CHECKING:
    import polars as pl

# The unit of each numeric column of a table's data, by name, for the machine formats (csv, json):
# "%" (a share, written x100 as <name>_pct), "pp" (a difference of shares, x100 as <name>_pp),
# "points", "log-odds" and "coins" (written as they are, <name>_points, <name>_logodds, <name>_coins,
# as `components show` names a card's cost_coins). A table overrides
# the names whose unit differs in it (`Table.units`); columns named nowhere keep name and value.
UNIT_OF = {
    **dict.fromkeys(("win", "win_low", "win_high", "fair", "a", "b", "win_a", "win_b", "mean", "ci_low", "ci_high",
                     "share", "owned", "tie_rate", "tie_low", "tie_high", "chance", "side_a", "side_b", "card_win",
                     "other_win"), "%"),
    **dict.fromkeys(("diff", "diff_low", "diff_high", "rel_diff", "rel_low", "rel_high", "low", "high", "win_diff",
                     "vs_fair", "win_diff_low", "win_diff_high", "effect", "difference", "size_low", "size_high",
                     # the per-deal spread of a share or of a difference of shares: beside mean_pct a bare "sd" of 0.47
                     # read as 0.47 pp, and the captions' (1.96 sd / 1 pp)^2 came out wrong by 10^4
                     "sd", "win_sd"), "pp"),
    **dict.fromkeys(("score", "score_low", "score_high", "score_a", "score_b", "score_diff", "margin", "margin_low",
                     "margin_high", "margin_diff", "margin_diff_low", "margin_diff_high", "score_sd"), "points"),
}
# A marked row (significant, or not shown fair) in HTML: the summary's page and a notebook's output alike.
MARKED_CSS = "tr.marked td { background: #fff4d6; font-weight: 600; }"
SUFFIX = {"%": ("pct", 100.0), "pp": ("pp", 100.0), "points": ("points", 1.0), "log-odds": ("logodds", 1.0),
          "coins": ("coins", 1.0)}


@dataclass
class Table:
    """A table: cells, title and caption are plain text, printed as written (a policy labelled
    "[v2]" or a value "[/x]" is text, never rich markup); a cell the terminal styles is a rich `Text`
    (`styled`), plain text everywhere else. Numbers and ids are never
    cut: a table too wide for the terminal wraps its text columns, then leaves out its `optional`
    columns (saying so below it), then continues its columns in a second block."""

    title: str
    columns: list[str]
    rows: list[list[str | Text]]  # a Text only where the terminal styles the cell (`styled`)
    caption: str = ""
    marked: list[bool] = field(default_factory=list)  # rows to highlight (significant)
    data: pl.DataFrame | None = None                  # the numbers behind the table, for csv and json
    # Overrides of UNIT_OF for this table's data; None: the data's column names already carry their
    # units (a frame the command line built for machines), written as they are.
    units: dict[str, str] | None = field(default_factory=dict)
    optional: tuple[str, ...] = ()                    # columns the terminal leaves out first when too wide
    wrap: tuple[str, ...] | None = None               # text columns that may wrap (default: guessed)
    links: list[str] | None = None                    # in HTML, the anchor each row's last cell links to

    def machine(self) -> pl.DataFrame:
        """The table for machines: the numbers behind it with each column's unit in its name (shares
        and differences of shares in percent and percentage points; nested columns left out; a number
        that is not known, NaN in the statistics, is null), or its cells as plain text when it has no
        numbers."""
        import polars as pl  # here: the command line imports this module at start-up

        if self.data is None:
            names = [plain(c) or f"column {j + 1}" for j, c in enumerate(self.columns)]
            return pl.DataFrame([[plain(c) for c in row] for row in self.rows], schema=names, orient="row")
        exprs = []
        for name, dtype in self.data.schema.items():
            if dtype.is_nested() or dtype == pl.Object:
                continue
            measure, _, rest = name.partition(" ")  # "effect balanced": a measure under a field
            unit = None if self.units is None else (self.units.get(name) or self.units.get(measure)
                                                     or UNIT_OF.get(name) or UNIT_OF.get(measure))
            if unit is None or not dtype.is_numeric():
                exprs.append(pl.col(name).fill_nan(None) if dtype.is_float() else pl.col(name))
                continue
            suffix, scale = SUFFIX[unit]
            exprs.append((pl.col(name).cast(pl.Float64) * scale).fill_nan(None)
                         .alias(f"{measure}_{suffix}" + (f" {rest}" if rest else "")))
        return self.data.select(exprs)

    def _repr_html_(self) -> str:
        """In a notebook, the table as the HTML summary shows it (percent, CIs, marked rows: the
        summary's rule for them comes along, the notebook has none)."""
        return f"<style>{MARKED_CSS}</style>" + table_html(self)


def machine_csv(tables: Sequence[Table]) -> str:
    """Every table as one CSV with raw numbers: a first column `table` (the table's title) and the
    union of the tables' columns. A number not known (or a column a table has not) is written NaN, so
    that a reader guessing types from the first rows (polars reads 100) sees a number, never an
    empty text; an empty cell is a missing text."""
    import polars as pl

    frames = [t.machine().with_columns(pl.lit(plain(t.title)).alias("table")) for t in tables]
    if not frames:
        return ""
    both = pl.concat(frames, how="diagonal_relaxed")
    both = both.with_columns(pl.col(name).cast(pl.Float64).fill_null(float("nan")) for name, dtype in both.schema.items()
                             if dtype.is_numeric() and both[name].null_count())
    return both.select("table", pl.exclude("table")).write_csv()


def plain(cell) -> str:
    """A cell as text: a styled cell without its style, anything else as `str` writes it."""
    return cell.plain if isinstance(cell, Text) else str(cell)


def styled(value, style: str) -> Text:
    """A cell the terminal prints in `style` (bold, dim, green...), plain text in every other format."""
    return Text(str(value), style=style)


def table_html(t: Table, anchor: str = "") -> str:
    """A table as HTML (`anchor`: its id, for links to it); a table with `links` links each row's last
    cell to the anchor it names."""
    head = "".join(f"<th>{escape(plain(c))}</th>" for c in t.columns) if any(t.columns) else ""
    body = []
    for i, row in enumerate(t.rows):
        cls = ' class="marked"' if i < len(t.marked) and t.marked[i] else ""
        cells = [escape(plain(c)) for c in row]
        if t.links:
            cells[-1] = f'<a href="#{escape(t.links[i])}">{cells[-1]}</a>'
        body.append(f"<tr{cls}>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    html = (f'<div class="scroll"{f" id={chr(34)}{escape(anchor)}{chr(34)}" if anchor else ""}><table>'
            f"<caption>{escape(plain(t.title))}</caption>"
            + (f"<thead><tr>{head}</tr></thead>" if head else "") + f"<tbody>{''.join(body)}</tbody></table></div>")
    if t.caption:
        html += f'<p class="caption">{escape(plain(t.caption))}</p>'
    return html

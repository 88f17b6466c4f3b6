"""Tables at any width and in every format: a terminal table never cuts a number or an id (80 and
200 columns, and piped), `--format` prints csv, markdown and json on every command that prints a
table, reports end with their provenance, and `show-game` tells a game of a dataset exactly as
`play` tells the same deal."""

from __future__ import annotations

import csv
import io
import json
import re

import numpy as np
import pandas as pd
import polars as pl
import pytest
from rich.text import Text
from typer.testing import CliRunner

import hadara_sim
from hadara_sim.cli import app
from hadara_sim.cli.common import emit, print_table
from hadara_sim.cli.human_view import wrap_phrases
from hadara_sim.component_files import load_components
from hadara_sim.report.table import Table, styled

runner = CliRunner()
WIDE = Table("Mean score sheet by policy",
             ["policy", "n (deals)", "colonies", "statues", "silver medals", "silver_full bonus", "gold medals",
              "set_collector bonus", "card points", "coins", "total", "p", "95% CI"],
             [["balanced", "20,000", "21.9 ±1.3", "20.4 ±1.3", "20.7 ±0.9", "2.5 ±0.6", "20.0 ±1.5", "1.2 ±0.3",
               "56.2 ±0.7", "1.9 ±0.2", "145.0", "<0.001", "[143.4, 146.7]"],
              ["affinity_military", "19,876", "11.8 ±0.6", "46.0 ±1.1", "16.2 ±1.0", "1.4 ±0.4", "10.1 ±1.0",
               "0.5 ±0.2", "54.7 ±0.6", "2.2 ±0.1", "142.8", "0.012", "[141.1, 144.6]"]],
             caption="mean points per seat ± half the 95% CI", optional=("p",))


def run(*args, columns: int | None = 200):
    env = {"COLUMNS": str(columns)} if columns else {"COLUMNS": ""}
    return runner.invoke(app, [str(a) for a in args], env=env)


def cells_of(t: Table) -> set[str]:
    return {Text.from_markup(c).plain for row in t.rows for c in row if c}


def printed(t: Table, width: int | None, capsys) -> str:
    print_table(t, width)
    return capsys.readouterr().out


def table_cells(output: str) -> set[str]:
    """Every cell of the box-drawn tables in the output."""
    return {c.strip() for line in output.splitlines() if line.startswith("│")
            for c in line.strip("│").split("│") if c.strip()}


# --- width ------------------------------------------------------------------------------------

@pytest.mark.parametrize("width", [80, 200, None], ids=["80 columns", "200 columns", "piped"])
def test_wide_table_never_cuts_a_cell(width, capsys):
    """Every id and number appears whole on one line, and no line is wider than the terminal."""
    out = printed(WIDE, width, capsys)
    assert "…" not in out
    assert cells_of(WIDE) - {"<0.001", "0.012"} <= table_cells(out)
    if width is not None:
        assert max(len(line) for line in out.splitlines()) <= width


def test_narrow_terminal_continues_columns_in_blocks(capsys):
    """At 80 columns the table continues in blocks, each repeating the policy column; optional
    columns are kept when blocks are needed anyway."""
    out = printed(WIDE, 80, capsys)
    assert "(1 of " in out and "more columns below" in out
    assert out.count("affinity_military") >= 2 and "0.012" in out


def test_optional_columns_left_out_with_a_note(capsys):
    """When leaving out the optional columns makes a table fit, they go and a note says which."""
    t = Table("win rate", ["policy", "n (deals)", "win share", "95% CI", "fair 1/P", "p"],
              [["balanced", "20,000", "33.9%", "[32.1, 35.6]", "25.0%", "<0.001"]], optional=("fair 1/P", "p"))
    out = printed(t, 60, capsys)
    assert "fair 1/P" not in out.split("left out")[0] and "left out at this width: fair 1/P, p" in " ".join(out.split())
    assert "[32.1, 35.6]" in out
    assert "left out" not in printed(t, 200, capsys)


def test_piped_table_keeps_its_full_width(capsys, monkeypatch):
    """Piped (no terminal, no COLUMNS) a table is one block at its natural width."""
    monkeypatch.delenv("COLUMNS", raising=False)
    out = printed(WIDE, None, capsys)
    assert "(1 of" not in out
    assert max(len(line) for line in out.splitlines()) > 150


def test_text_columns_wrap_at_words(capsys):
    t = Table("Policies", ["name", "description"],
              [["balanced", "The strongest all-rounder: the planner's full evaluation with lookahead to the next "
                            "colony and statue requirement, expected colony backs and feeding risk."]])
    out = printed(t, 60, capsys)
    assert max(len(line) for line in out.splitlines()) <= 60
    words = " ".join(line.strip("│ ").split("│")[-1].strip() for line in out.splitlines() if line.startswith("│"))
    assert "expected colony backs and feeding risk." in " ".join(words.split())


@pytest.mark.parametrize("columns", [80, 200])
def test_components_show_keeps_every_id(columns):
    """The issue's example: epoch II red cards at 80 columns showed every id as 'II-…'."""
    result = run("components", "show", "--epoch", 2, "--colour", "red", columns=columns)
    assert result.exit_code == 0, result.output
    ids = [c.id for c in load_components().cards if c.epoch == 2 and c.colour == 1]
    assert len(ids) == 10 and all(i in result.output for i in ids)
    assert "…" not in result.output


@pytest.mark.parametrize("columns", [80, 120, None], ids=["80", "120", "piped"])
def test_play_score_pad_headers_whole(columns):
    result = run("play", "-p", 4, "--policy", "balanced,military,culture,economy", "-q", columns=columns)
    assert result.exit_code == 0, result.output
    assert "…" not in result.output
    for name in ("balanced", "military", "culture", "economy", "coins left"):
        assert name in result.output


def test_play_score_pad_for_machines_names_its_units():
    """The score pad's numbers went to csv and json as the dataset names them: score lines bare, and a
    win_share of 1.0 where every other table writes a share in % (win_pct) and points as *_points."""
    result = run("play", "-p", 2, "--seed", 2, "-q", "--format", "json")
    assert result.exit_code == 0, result.output
    [seat0, seat1] = json.loads(result.stdout)["tables"][0]["data"]
    assert {"colonies_points", "cards_points", "coins_points", "total_points", "win_share_pct"} <= set(seat0)
    assert "win_share" not in seat0 and "total" not in seat0
    assert sorted([seat0["win_share_pct"], seat1["win_share_pct"]]) == [0.0, 100.0]
    frame = pd.read_csv(io.StringIO(run("play", "-p", 2, "--seed", 2, "-q", "--format", "csv").stdout))
    assert frame["win_share_pct"].sum() == pytest.approx(100.0)


def test_play_narrative_at_80_columns_wraps_between_phrases():
    """Each told line fits 80 columns; a wrapped line continues indented, never splitting a card's
    bracketed details or a word from its number ("for 4"), and a statue or medal is told once."""
    result = run("play", "-p", 4, "--seed", 1, columns=80)
    assert result.exit_code == 0, result.output
    told = [line for line in result.output.splitlines() if line.startswith("  ") and "│" not in line]
    assert all(len(line) <= 80 for line in told)
    assert any(line.startswith("      ") for line in told)
    for line in told:
        assert line.count("(") == line.count(")"), line
        assert not line.strip()[0].isdigit(), line
        assert not line.rstrip().endswith((" for", " statue", " now", " collects")), line
    assert "carves statue" in result.output and "carve statue" not in result.output
    assert "buys a silver medal" in result.output or "buys a gold medal" in result.output


def test_wrap_phrases_keeps_phrases_whole():
    line = "  seat 1 (greedy) buys I-Y-10 (yellow, +2 income +1 military, cost 4, 3 pts) for 4"
    assert wrap_phrases(line, 80) == ("  seat 1 (greedy) buys I-Y-10 (yellow, +2 income +1 military, cost 4, 3 pts)\n"
                                      "      for 4")
    assert wrap_phrases(line, 200) == line


# --- formats ----------------------------------------------------------------------------------

def test_every_format_of_one_table(capsys):
    emit([WIDE], "csv", footer="scenario 'x'")
    text = capsys.readouterr().out
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ["table", *WIDE.columns] and rows[2][1] == "affinity_military"
    assert rows[2][-1] == "[141.1, 144.6]" and not text.startswith("#")  # a text table stays text, nothing else
    emit([WIDE], "markdown")
    md = capsys.readouterr().out
    assert "| policy | n (deals) |" in md and "| affinity_military | 19,876 |" in md
    emit([WIDE], "json", footer_data={"seed": 1})
    doc = json.loads(capsys.readouterr().out)
    assert doc["tables"][0]["rows"][1][0] == "affinity_military" and doc["provenance"] == {"seed": 1}


def test_the_spread_of_a_share_is_written_in_the_unit_of_the_share():
    """"sd" of the per-deal win shares was written as a fraction beside mean_pct (0.47 for 47 pp), under a
    name without its unit; a score's spread is in points."""
    data = pl.DataFrame({"mean": [0.34], "sd": [0.47], "win_sd": [0.6], "score_sd": [20.5]})
    out = Table("t", ["x"], [["1"]], data=data).machine()
    assert out.columns == ["mean_pct", "sd_pp", "win_sd_pp", "score_sd_points"]
    assert out.row(0) == pytest.approx((34.0, 47.0, 60.0, 20.5))


BRACKETS = Table("Win rate by label [v2]", ["policy [a]", "n"],
                 [["[/old]", "1"], ["balanced [v2]", styled("2", "bold")], ["<b>x|y", "3"]], caption="[/] in a caption")


@pytest.mark.parametrize("fmt", ["table", "csv", "markdown", "json"])
def test_brackets_in_a_table_are_text_not_markup(fmt, capsys, monkeypatch):
    """A policy labelled "balanced [v2]" or "[/old]" (or a value, a path) is printed as written in
    every format: rich would read the first as a style and hide it, and fail on the second. A styled
    cell is its text everywhere but the terminal."""
    monkeypatch.delenv("COLUMNS", raising=False)
    emit([BRACKETS], fmt, notes=["a note [/x]"], footer="policies: [/old]")
    out = capsys.readouterr().out
    cells = ["[/old]", "balanced [v2]", "policy [a]"]
    if fmt == "csv":
        assert list(csv.reader(io.StringIO(out)))[1:] == [["Win rate by label [v2]", "[/old]", "1"],
                                                          ["Win rate by label [v2]", "balanced [v2]", "2"],
                                                          ["Win rate by label [v2]", "<b>x|y", "3"]]
    elif fmt == "json":
        doc = json.loads(out)
        assert doc["tables"][0]["rows"] == [["[/old]", "1"], ["balanced [v2]", "2"], ["<b>x|y", "3"]]
        assert doc["notes"] == ["a note [/x]"] and doc["provenance"] == "policies: [/old]"
    elif fmt == "markdown":
        assert "| \\<b>x\\|y | 3 |" in out  # text, not HTML, and not a cell border
    if fmt in ("table", "markdown"):
        words = " ".join(out.split())  # the title wraps at the table's width
        assert all(c in words for c in [*cells, "Win rate by label [v2]", "[/] in a caption", "a note [/x]",
                                        "policies: [/old]"]), out


def assert_machine_numbers(text: str):
    """A CSV for machines: pandas and polars read every number as a number (no "20,000", "35.0%",
    "[34.3, 35.6]" or "26.2 ±0.2"), each unit is in its column's name, and CI bounds stand alone."""
    frame = pd.read_csv(io.StringIO(text))
    assert frame.columns[0] == "table" and len(frame)
    for name, dtype in frame.dtypes.items():
        if name.endswith(("_pct", "_pp", "_points", "_logodds")) or name in ("n", "rows", "p", "q"):
            assert pd.api.types.is_numeric_dtype(dtype), (name, dtype)
        elif dtype == object:
            values = frame[name].dropna().astype(str)
            assert not values.str.fullmatch(r"[-+]?[\d,.]+\s*(%|pp)?|\[.*\]|.*±.*").any(), name
    loaded = pl.read_csv(io.StringIO(text), infer_schema_length=None)
    for name, dtype in loaded.schema.items():
        if name.endswith(("_pct", "_pp", "_points", "_logodds")):
            assert dtype.is_numeric(), (name, dtype)


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "tiny"
    scenario = {"name": "tiny", "players": 3, "game": "basic", "policies": ["balanced", "military", "greedy"],
                "assignment": "rotated", "games": 12, "seed": 3, "chunk": 12}
    hadara_sim.simulate(scenario, out=out, jobs=1)
    return out


COMMANDS = [
    ["components", "show", "--epoch", "1", "--colour", "purple"],
    ["components", "show", "--what", "board"],
    ["components", "effects"],
    ["policies", "list"],
    ["policies", "show", "military"],
    ["play", "-p", "2", "--seed", "2"],
]
REPORTS = ["winrate", "breakdown", "setup-cards", "trajectory", "seats", "ratings"]


@pytest.mark.parametrize("fmt", ["table", "csv", "markdown", "json"])
@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_format_on_every_table_command(args, fmt):
    result = run(*args, "--format", fmt)
    assert result.exit_code == 0, result.output
    out = result.output
    if fmt == "json":
        first = json.loads(out)["tables"][0]
        assert first.get("data") or first.get("rows")  # its numbers (with a schema), else its cells
    elif fmt == "csv":
        assert out.startswith("table,") and "," in out and "┃" not in out
    elif fmt == "markdown":
        assert "| --- |" in out
    else:
        assert "┃" in out


@pytest.mark.parametrize("fmt", ["table", "csv", "markdown", "json"])
@pytest.mark.parametrize("report", REPORTS)
def test_format_on_every_report(dataset, tmp_path, report, fmt):
    result = run("report", report, dataset, "--out", tmp_path, "--format", fmt)
    assert result.exit_code == 0, result.output
    out = result.stdout
    if fmt == "json":
        doc = json.loads(out)
        assert doc["tables"] and doc["provenance"]["components"]["digest"]
        assert all(isinstance(v, (int, float, bool, type(None))) for t in doc["tables"] for r in t["data"]
                   for k, v in r.items() if k.endswith(("_pct", "_pp", "_points")))
    elif fmt == "csv":
        assert "┃" not in out
        assert_machine_numbers(out)
    elif fmt == "markdown":
        assert "| --- |" in out
    else:
        assert "┃" in out


@pytest.mark.parametrize("fmt", ["csv", "json", "markdown"])
def test_a_run_in_a_machine_format_writes_the_table_alone_to_standard_output(tmp_path, fmt):
    """`simulate --format json | jq` reads JSON: the run's header, progress and closing lines go to
    standard error in a machine format (they came first on standard output, so no reader could parse it);
    in the terminal's format they stay on standard output, before the table."""
    args = ["simulate", "scenarios/seats.toml", "--games", "4", "--jobs", "1", "--out", tmp_path / "r"]
    result = run(*args, "--format", fmt)
    assert result.exit_code == 0, result.output
    assert "played 16 games" in result.stderr and "games in" not in result.stdout
    if fmt == "json":  # numbers and provenance, as --format promises (it gave the cells: "34.0%", no provenance)
        doc = json.loads(result.stdout)
        first = doc["tables"][0]["data"][0]
        assert isinstance(first["mean_pct"], float) and isinstance(first["total_points"], float)
        assert doc["provenance"]["scenario"] == "seats" and doc["provenance"]["components"]["digest"]
    elif fmt == "csv":
        assert result.stdout.startswith("table,") and len(pd.read_csv(io.StringIO(result.stdout)))
        assert_machine_numbers(result.stdout)
    else:
        assert result.stdout.startswith("**") and "| --- |" in result.stdout
    result = run(*args, "--overwrite")
    assert "played 16 games" in result.stdout and "┃" in result.stdout


def test_the_ladder_in_a_machine_format_writes_numbers():
    """The head-to-head matrix went out as its cells, "10 [2, 40]": no reader takes that for a number."""
    args = ["policies", "ladder", "--games", "10", "-p", "2", "--policy", "greedy,random", "-q"]
    doc = json.loads(run(*args, "--format", "json").stdout)
    pairs = doc["tables"][0]["data"]
    assert {(r["policy"], r["opponent"]) for r in pairs} == {("greedy", "random"), ("random", "greedy")}
    assert all(isinstance(r[k], (int, float)) for r in pairs for k in ("win_pct", "ci_low_pct", "ci_high_pct", "q"))
    # the caption's mean and win pts, which only the terminal had: each row policy's, beside its pairs
    for r in pairs:
        assert r["row_mean_pct"] == pytest.approx(r["win_pct"])  # one opponent: its mean is that pair's
        assert r["win_points"] is None or 50 < r["win_points"] < 300
    assert "row_mean_pct" in doc["tables"][0]["caption"]
    # the ratings' log-odds went out as bare rating, se, low and high, where report ratings names the unit
    ratings = doc["tables"][1]["data"]
    assert {"rating_logodds", "se_logodds", "low_logodds", "high_logodds"} <= set(ratings[0])
    assert not {"rating", "se", "low", "high"} & set(ratings[0])
    assert all(r["low_logodds"] < r["rating_logodds"] < r["high_logodds"] for r in ratings)
    assert_machine_numbers(run(*args, "--format", "csv").stdout)


@pytest.mark.parametrize("what, numbers", [
    ("cards", ("epoch", "cost_coins", "points", "income", "military", "culture", "food")),
    ("colonies", ("level", "requirement_military", "plunder_coins", "integrate_coins", "front_points",
                  "back_income", "back_points")),
    ("setup", ("initiative", "coins", "income", "military", "culture", "food")),
    ("board", ("epoch", "coins", "tiles", "requirement_culture", "points", "bonus"))])
def test_components_show_in_a_machine_format_writes_numbers(what, numbers):
    """components show --format json/csv wrote its cells as text ("3"), where --format's help promises
    numbers with the unit in the column name."""
    result = run("components", "show", "--what", what, "--format", "json")
    assert result.exit_code == 0, result.output
    table = json.loads(result.stdout)["tables"][0]
    assert "rows" not in table and all(table["schema"][name] == "integer" for name in numbers)
    assert any(isinstance(r[name], int) for r in table["data"] for name in numbers)
    csv_text = run("components", "show", "--what", what, "--format", "csv").stdout
    assert_machine_numbers(csv_text)
    assert all(pd.api.types.is_numeric_dtype(pd.read_csv(io.StringIO(csv_text))[name]) for name in numbers)
    if what == "board":  # a value a row, in the column of its unit
        rows = {r["item"]: r for r in table["data"] if r["epoch"] in (None, 2)}
        assert rows["sell"]["coins"] == 3 and rows["statue 2"]["requirement_culture"] == 12


def test_components_show_in_a_machine_format_names_the_printed_values_of_each_row():
    """Bold (exact) and dim (estimated) do not reach a file: csv and json carry a column `exact` naming
    the row's printed values among its own columns, `;`-separated as in the component files."""
    c = load_components()
    card_columns = {"cost": "cost_coins", "points": "points", "income": "income", "military": "military",
                    "culture": "culture", "food": "food", "effect": "effect"}

    def rows(what):
        table = json.loads(run("components", "show", "--what", what, "--format", "json").stdout)["tables"][0]
        return table["data"]

    cards = {r["id"]: r["exact"] for r in rows("cards")}
    assert cards == {card.id: ";".join(v for k, v in card_columns.items() if k in card.exact) for card in c.cards}
    colonies = {r["id"]: r["exact"].split(";") for r in rows("colonies")}
    exact_colony = next(k for k in c.colonies if "requirement" in k.exact)
    assert "requirement_military" in colonies[exact_colony.id]
    board = {(r["item"], r["epoch"]): r["exact"] for r in rows("board")}
    assert board["sell", 1] == ("coins" if "coins" in c.board_exact["sell"] else "")
    assert board["statue 1", None] == ";".join(n for k, n in (("requirement", "requirement_culture"),
                                                              ("points", "points"), ("bonus", "bonus"))
                                               if k in c.statues[0].exact)
    assert board["statue 1", None]  # the shipped set prints statue 1's culture and points
    setup = pd.read_csv(io.StringIO(run("components", "show", "--what", "setup", "--format", "csv").stdout))
    assert "exact" in setup.columns and len(setup) == len(c.setup_cards)


def test_bad_format_is_refused():
    result = run("components", "effects", "--format", "xml")
    assert result.exit_code == 2 and "--format must be table, csv, markdown or json" in result.output


# --- provenance -------------------------------------------------------------------------------

def test_report_footer_names_components_and_estimates(dataset, tmp_path):
    result = run("report", "winrate", dataset, "--out", tmp_path)
    text = " ".join(result.output.split())
    assert re.search(r"components: shipped reconstruction \([0-9a-f]{16}; \d+ of \d+ values estimated\)", text)
    assert "scenario 'tiny'" in text and "seed 3" in text and "policies: balanced, military, greedy" in text


def test_setup_cards_says_observational_in_the_terminal(dataset, tmp_path):
    result = run("report", "setup-cards", dataset, "--out", tmp_path)
    assert result.exit_code == 0, result.output
    assert "observational" in result.output


def test_policies_show_explains_every_parameter():
    result = run("policies", "show", "military", "--format", "json")
    doc = json.loads(result.output)
    meanings = {row[0]: row[2] for row in doc["tables"][0]["rows"]}
    assert len(meanings) == 19 and "(not described)" not in meanings.values()  # avoid and seek too
    colours = {row[0]: row[1] for row in doc["tables"][0]["rows"]}["colours"]
    assert colours == "red 1"
    assert "Base class" not in result.output


@pytest.mark.parametrize("name", ["random", "greedy", "military", "culture", "economy", "sets", "balanced",
                                  "balanced-v1", "search"])
def test_every_built_in_parameter_is_explained(name):
    doc = json.loads(run("policies", "show", name, "--format", "json").output)
    assert "(not described)" not in {row[2] for row in doc["tables"][0]["rows"]}


# --- sample games -----------------------------------------------------------------------------

def test_show_game_agrees_with_play_on_the_same_deal(dataset, tmp_path):
    """Game 5 of the run, told by show-game, is the game `play` tells on that deal with those seats."""
    from hadara_sim.deal import Deals
    from hadara_sim.registry import make_policy
    from hadara_sim.reference import Game
    from hadara_sim.chunks import policy_seed
    from hadara_sim.trace import read_trace

    trace = tmp_path / "g5.jsonl"
    result = run("show-game", dataset, "--game", 5, "--trace", trace)
    assert result.exit_code == 0, result.output
    assert "played again and checked" in " ".join(result.output.split())
    records = read_trace(trace)
    header = records[0]
    labels = ["balanced", "military", "greedy"]
    names = [labels[(s + 5) % 3] for s in range(3)]  # seats rotated: game g, seat s plays (s + g) % 3
    assert [p.split("(")[0] for p in header["policies"]] == names
    seats = [make_policy(name, seed=policy_seed(3, labels.index(name))) for name in names]
    sheet = Game(Deals.from_json(header["deal"]), load_components(), seats).play()
    assert sheet == records[-1]["sheet"]
    rows = hadara_sim.load_results(dataset).filter(pl.col("game") == 5).sort("seat")
    assert rows["total"].to_list() == [r["total"] for r in sheet]


def test_show_game_refuses_a_game_out_of_range(dataset):
    result = run("show-game", dataset, "--game", 12)
    assert result.exit_code == 2 and "--game must be 0..11" in result.output


def test_simulate_trace_games_writes_verified_traces(tmp_path):
    from hadara_sim.trace import read_trace, replay

    result = run("simulate", "scenarios/default.toml", "-n", 8, "-o", tmp_path / "r", "--trace-games", 2,
                 "-j", 1, "-q")
    assert result.exit_code == 0, result.output
    files = sorted((tmp_path / "r" / "traces").glob("*.jsonl"))
    assert [f.name for f in files] == ["game-c0000-g0000000.jsonl", "game-c0000-g0000007.jsonl"]
    totals = hadara_sim.load_results(tmp_path / "r").filter(pl.col("game") == 7).sort("seat")["total"].to_list()
    assert [r["total"] for r in replay(read_trace(files[1]))] == totals


def test_simulate_trace_games_beyond_the_run_says_it_traced_every_game(tmp_path):
    """`simulate -n 5 --trace-games 10` wrote 5 traces and said "wrote 5 game traces", not that 10 were asked."""
    result = run("simulate", "scenarios/default.toml", "-n", 3, "-o", tmp_path / "r", "--trace-games", 10, "-j", 1)
    assert result.exit_code == 0, result.output
    assert len(list((tmp_path / "r" / "traces").glob("*.jsonl"))) == 3
    assert "wrote all 3 game traces (--trace-games 10 asked for more than the run's 3 games)" in " ".join(
        result.output.split())
    quiet = run("simulate", "scenarios/default.toml", "-n", 3, "-o", tmp_path / "q", "--trace-games", 10, "-j", 1, "-q")
    assert quiet.exit_code == 0 and "trace" not in quiet.output


def test_the_show_game_a_traced_run_names_runs(tmp_path):
    """It said "tell one with hadara-sim show-game", which needs the run, and the game to tell; and a run
    of policies given as code needs --allow-code."""
    import shlex

    (tmp_path / "mine.py").write_text("from hadara_sim.policies import Greedy\n\n\nclass Mine(Greedy):\n"
                                      "    name = 'mine'\n")
    for policies, code in (('["greedy"]', False), (f'["{tmp_path / "mine.py"}:Mine", "greedy"]', True)):
        out = tmp_path / ("code" if code else "plain")
        result = run("simulate", "scenarios/seats.toml", "-n", 3, "-o", out, "--set", f"policies={policies}",
                     "--set", "sweep.players=[2, 3]", "--trace-games", 2, "-j", 1)
        told = " ".join(result.output.split())
        command = shlex.split(re.search(r"tell one with (hadara-sim show-game [^)]*)\)", told).group(1))
        assert command[2:] == [str(out), "--game", "2", "--combo", "1", *(["--allow-code"] if code else [])]
        shown = run(*command[1:], "-q")
        assert shown.exit_code == 0 and "played again and checked" in " ".join(shown.output.split()), shown.output


def test_sample_ids_spread_over_the_run():
    from hadara_sim.sample import sample_ids

    assert sample_ids(10, 3, 4) == [(0, 0), (1, 0), (1, 9), (2, 9)]  # games 0, 10, 19, 29 of 30
    assert len(sample_ids(2, 1, 5)) == 2
    assert np.all(np.diff([c * 10 + g for c, g in sample_ids(10, 3, 7)]) > 0)


def test_html_summary_names_the_component_set(dataset, tmp_path):
    result = run("report", "summary", dataset, "--out", tmp_path)
    assert result.exit_code == 0, result.output
    html = (tmp_path / "summary.html").read_text(encoding="utf-8")
    assert "<td>component set</td><td>shipped reconstruction (" in html and "values estimated)" in html
    assert "<td>policy settings</td><td>balanced, military, greedy" in html


def test_combinations_are_named_for_by_combo(tmp_path):
    from hadara_sim.provenance import combination_labels

    meta = {"combinations": [
        {"index": 0, "sweep": {}, "arrangement": [1, 0],
         "config": {"policies": [{"policy": "greedy", "label": "greedy"}, {"policy": "random", "label": "random"}]}},
        {"index": 1, "sweep": {"grants": "sell_bonus", "players": 3}, "arrangement": None, "config": {"policies": []}}]}
    assert combination_labels(meta) == {0: "random vs greedy", 1: "grants = sell_bonus, players = 3"}


def test_a_table_in_a_notebook_shows_its_marked_rows():
    """Jupyter shows a Table by `_repr_html_`: its marked rows carry the summary's rule with them (the
    class alone left them looking like every other row, the only mark some tables have)."""
    from hadara_sim.report.html import CSS
    from hadara_sim.report.table import MARKED_CSS

    html = Table("t", ["a"], [["1"], ["2"]], marked=[True, False])._repr_html_()
    assert html.startswith(f"<style>{MARKED_CSS}</style>") and '<tr class="marked"><td>1</td>' in html
    assert MARKED_CSS in CSS


def test_show_game_finds_a_policy_file_named_relative_to_the_scenario_from_any_folder(tmp_path, monkeypatch):
    """The run's metadata kept the scenario's path as typed ("scen.toml"), so show-game read its text
    again relative to the working folder and, from another folder, missed bots/mine.py."""
    (tmp_path / "s" / "bots").mkdir(parents=True)
    (tmp_path / "s" / "bots" / "mine.py").write_text("from hadara_sim.policies import BUILTIN\nMine = BUILTIN['greedy']\n")
    (tmp_path / "s" / "scen.toml").write_text('players = 2\npolicies = ["bots/mine.py:Mine", "random"]\ngames = 6\n')
    monkeypatch.chdir(tmp_path / "s")
    assert run("simulate", "scen.toml", "-q", "-j", 1, "--out", "res").exit_code == 0
    monkeypatch.chdir(tmp_path)
    result = run("show-game", tmp_path / "s" / "res", "--game", 2, "--allow-code", "-q")
    assert result.exit_code == 0, result.output
    assert "the reference engine agrees with the batch engine" in " ".join(result.output.split())


def test_show_game_finds_a_policy_file_of_a_scenario_given_as_data_from_any_folder(tmp_path, monkeypatch):
    """A dict or TOML text given to simulate() named bots/mine.py from the working folder; show-game from
    another folder read it again there: "policy file 'bots/mine.py' does not exist"."""
    import hadara_sim

    (tmp_path / "s" / "bots").mkdir(parents=True)
    (tmp_path / "s" / "bots" / "mine.py").write_text("from hadara_sim.policies import BUILTIN\nMine = BUILTIN['greedy']\n")
    monkeypatch.chdir(tmp_path / "s")
    hadara_sim.simulate({"players": 2, "policies": ["bots/mine.py:Mine", "random"], "games": 4}, out="dict", jobs=1)
    hadara_sim.simulate('players = 2\npolicies = ["bots/mine.py:Mine", "random"]\ngames = 4\n', out="text", jobs=1)
    monkeypatch.chdir(tmp_path)
    for res in ("dict", "text"):
        result = run("show-game", tmp_path / "s" / res, "--game", 1, "--allow-code", "-q")
        assert result.exit_code == 0, result.output
        assert "the reference engine agrees with the batch engine" in " ".join(result.output.split())


def test_the_ladder_marks_a_pair_that_differs_without_colour():
    """The ladder marked a pair that differs from even by colour alone: in markdown, a pipe or NO_COLOR the
    mark its caption promised was gone. A star marks it, as report ratings' head-to-head does."""
    args = ["policies", "ladder", "--games", "40", "-p", "2", "--policy", "greedy,random", "-q"]
    text = run(*args, "--format", "markdown").stdout
    greedy = next(line for line in text.splitlines() if line.startswith("| greedy |"))
    assert "]*" in greedy and "* = differs from even" in text

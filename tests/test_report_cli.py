"""`hadara-sim report ...` on results directories: tables and charts from hand-made datasets, every
command on a tiny real run, the HTML summary, and clean failures (exit 2, no traceback)."""

import base64
import json
import re
import warnings

import pytest
from typer.testing import CliRunner

from hadara_sim import simulate
from hadara_sim.cli import app
from hadara_sim.results import SCHEMA

import report_data as R

runner = CliRunner()
COMMANDS = ["winrate", "breakdown", "setup-cards", "purple", "trajectory", "seats", "ratings", "cards", "summary"]


def run(*args):
    return runner.invoke(app, [str(a) for a in args], env={"COLUMNS": "220"})


def no_traceback(result):
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def charts_in(folder, fmt="png"):
    files = sorted(folder.glob(f"*.{fmt}"))
    assert files, f"no .{fmt} chart in {folder}"
    for f in files:
        assert f.stat().st_size > 5000, f
    return files


@pytest.fixture(scope="module")
def four(tmp_path_factory):
    effects = {(0, 0): {"effect_sell_bonus": 1}, (1, 1): {"effect_sell_bonus": 1}}
    return R.write_results(R.four_games(effects), tmp_path_factory.mktemp("four") / "results", name="four")


@pytest.fixture(scope="module")
def grants(tmp_path_factory):
    df, combos = R.grant_sweep()
    return R.write_results(df, tmp_path_factory.mktemp("grants") / "results", combos, name="grant-test")


@pytest.fixture(scope="module")
def real_run(tmp_path_factory):
    """A tiny real run: a grant sweep (control + 2 effects) with two policies rotated, basic game."""
    scenario = {"name": "tiny-grants", "description": "two grants and a control", "players": 3,
                "game": "basic", "policies": ["balanced", "military", "economy"], "assignment": "rotated",
                "games": 48, "seed": 5, "chunk": 48, "sweep": {"grants": ["none", "sell_bonus", "colony_bounty"]}}
    out = tmp_path_factory.mktemp("real") / "tiny"
    simulate(scenario, out=out, jobs=1)
    return out


# --- values in the tables ---------------------------------------------------------------------

def test_winrate_table_and_chart(four, tmp_path):
    result = run("report", "winrate", four, "--by", "policy", "--out", tmp_path)
    no_traceback(result)
    assert result.exit_code == 0, result.output
    a = next(line for line in result.output.splitlines() if line.strip("│ ").startswith("A "))
    assert "62.5%" in a and "50.0%" in a and "+12.5 pp" in a  # A: wins 1, 0, 1/2, 1 of 4 deals
    assert re.search(r"│\s+4\s+│", a)                             # n = 4 deals
    assert [p.name for p in charts_in(tmp_path)] == ["winrate-by-policy.png"]


def test_winrate_by_seat_svg(four, tmp_path):
    result = run("report", "winrate", four, "--by", "seat", "--chart-format", "svg", "--out", tmp_path)
    assert result.exit_code == 0, result.output
    assert "seat 0" in result.output and "62.5%" in result.output
    [svg] = charts_in(tmp_path, "svg")
    assert svg.read_text().lstrip().startswith("<?xml") and "Win rate by seat" in svg.read_text()


def test_breakdown(four, tmp_path):
    result = run("report", "breakdown", four, "--out", tmp_path)
    assert result.exit_code == 0, result.output
    assert "132.5" in result.output and "121.2" in result.output  # mean totals of A and B (121.25)
    assert "statue_patron bonus" in result.output
    assert {p.name for p in charts_in(tmp_path)} == {"breakdown-by-policy.png", "totals-by-policy.png"}


def test_trajectory(four, tmp_path):
    result = run("report", "trajectory", four, "--out", tmp_path)
    assert result.exit_code == 0, result.output
    assert "50.0%" in result.output and "87.5%" in result.output  # leader after epoch I / II
    assert [p.name for p in charts_in(tmp_path)] == ["trajectory.png"]


def test_trajectory_json_names_chance_as_chance(four, tmp_path):
    """The leader's reference is chance (leaders / players: after epoch I one leader in three deals of
    2 seats and two in one), not the fair share 1/P: written as fair_pct it read as 1/P."""
    import json

    result = run("report", "trajectory", four, "--out", tmp_path, "--format", "json")
    assert result.exit_code == 0, result.output
    leaders = next(t for t in json.loads(result.stdout)["tables"] if t["title"].startswith("How often the leader"))
    first = leaders["data"][0]
    assert "fair_pct" not in first and first["chance_pct"] == pytest.approx(100 * (0.5 + 0.5 + 1 + 0.5) / 4)


def test_setup_cards(four, tmp_path):
    result = run("report", "setup-cards", four, "--out", tmp_path)
    assert result.exit_code == 0, result.output
    assert "62.5%" in result.output and "37.5%" in result.output  # card 1 = seat 0, card 2 = seat 1
    assert [p.name for p in charts_in(tmp_path)] == ["setup-cards.png"]


def test_purple_grants(grants, tmp_path):
    result = run("report", "purple", grants, "--out", tmp_path)
    assert result.exit_code == 0, result.output
    line = next(line for line in result.output.splitlines() if "sell_bonus" in line)
    assert "+37.5 pp" in line and "+5.00" in line
    assert "No observational comparison" in result.output
    assert [p.name for p in charts_in(tmp_path)] == ["purple-grants.png"]


def test_purple_observational_only(four, tmp_path):
    result = run("report", "purple", four, "--out", tmp_path)
    assert result.exit_code == 0, result.output
    assert "No grant experiment" in result.output and "Observational (not causal)" in result.output
    assert [p.name for p in charts_in(tmp_path)] == ["purple-owners.png"]


def test_purple_in_csv_is_numbers_for_machines(grants, tmp_path):
    from test_cli_tables import assert_machine_numbers

    result = run("report", "purple", grants, "--out", tmp_path, "--format", "csv")
    assert result.exit_code == 0, result.output
    assert_machine_numbers(result.stdout)


def test_summary_embeds_every_chart(grants, tmp_path):
    result = run("report", "summary", grants, "--out", tmp_path)
    assert result.exit_code == 0, result.output
    # not a terminal: each section is named as it starts
    assert "summary report: purple effects" in result.output and "summary report: seats" in result.output
    html = tmp_path / "summary.html"
    assert str(html) in result.output.replace("\n", "")
    text = html.read_text()
    # the key findings come first, every row linking to the table it comes from
    assert text.index("Key findings") < text.index("<h2")
    targets = re.findall(r'<a href="#([^"]+)">', text[text.index("Key findings"):text.index("<h2")])
    assert targets and all(f'id="{t}"' in text for t in set(targets))
    images = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', text)
    assert len(images) >= 5
    assert all(base64.b64decode(i)[:8] == b"\x89PNG\r\n\x1a\n" for i in images)
    assert "grant-test" in text and "Experiment: granted seat" in text and "+37.5 pp" in text
    assert not list(tmp_path.glob("*.png"))  # one self-contained file
    assert "as CSV" not in result.output  # no table longer than the page shows


def test_summary_names_the_folder_of_its_long_tables(grants, tmp_path, monkeypatch):
    """A table longer than the page shows has every row in a CSV beside it: the command says where."""
    from hadara_sim.report import html

    monkeypatch.setattr(html, "ROWS_SHOWN", 2)
    result = run("report", "summary", grants, "--out", tmp_path)
    assert result.exit_code == 0, result.output
    csvs = list((tmp_path / "summary-tables").glob("*.csv"))
    told = " ".join(result.output.split())
    assert csvs and f"every row of its {len(csvs)} long tables, as CSV: {tmp_path / 'summary-tables'}" in told


def test_default_out_dir_is_inside_results(four):
    result = run("report", "trajectory", four)
    assert result.exit_code == 0, result.output
    assert (four / "report" / "trajectory.png").stat().st_size > 5000


# --- every command on a real run --------------------------------------------------------------

def test_every_report_of_a_one_game_run_works_or_says_why(tmp_path):
    """Down to one game (one deal, no interval possible): every report prints or refuses in one
    line, never a ZeroDivisionError."""
    out = tmp_path / "one"
    simulate({"name": "one", "players": 3, "games": 1, "chunk": 1, "seed": 2,
              "policies": ["greedy", "random", "balanced"]}, out=out, jobs=1, quiet=True)
    for command in COMMANDS:
        result = CliRunner().invoke(app, ["report", command, str(out), "--out", str(tmp_path / command)],
                                    env={"COLUMNS": "200"})
        assert result.exception is None or isinstance(result.exception, SystemExit), (command, result.exception)
        assert result.exit_code in (0, 2) and "Traceback" not in result.output, (command, result.output)
        assert result.exit_code == 0 or "error:" in result.output, (command, result.output)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_on_a_real_run(real_run, tmp_path, command):
    result = run("report", command, real_run, "--out", tmp_path)
    no_traceback(result)
    assert result.exit_code == 0, result.output
    if command == "summary":
        text = (tmp_path / "summary.html").read_text()
        assert text.count("data:image/png;base64,") >= 6 and "tiny-grants" in text
        for heading in ("Win rate by policy", "Score breakdown", "Setup cards", "Purple effects",
                        "Score trajectory", "Seats and turn order", "Policy ratings", "Bradley-Terry"):
            assert heading in text
    elif command == "ratings":
        assert "Bradley-Terry" in result.output and "Head to head" in result.output
    else:
        charts_in(tmp_path)
    if command == "purple":
        assert "sell_bonus" in result.output and "colony_bounty" in result.output


# --- failures ---------------------------------------------------------------------------------

def test_older_schema_fails_cleanly(four, tmp_path):
    old = R.write_results(R.four_games(), tmp_path / "old", schema_version=0)
    for command in COMMANDS:
        result = run("report", command, old)
        no_traceback(result)
        assert result.exit_code == 2, (command, result.output)
        assert "schema version 0" in result.output and "rerun" in result.output


def test_a_newer_schema_is_not_told_to_be_overwritten(four, tmp_path):
    """Results of a newer hadara-sim were told "rerun ... (or with --overwrite)": following it deleted them."""
    new = R.write_results(R.four_games(), tmp_path / "new", schema_version=R.SCHEMA_VERSION + 1)
    result = run("report", "winrate", new)
    no_traceback(result)
    text = " ".join(result.output.split())
    assert result.exit_code == 2 and "written by a newer hadara-sim" in text and "upgrade hadara-sim" in text, text
    assert "[--overwrite]" not in text and "--overwrite would delete them" in text


def test_missing_columns_fail_cleanly(tmp_path):
    df = R.four_games()
    full = df.select([f.name for f in SCHEMA]).to_arrow().cast(SCHEMA)
    keep = [f.name for f in SCHEMA if f.name not in ("win_share", "total_epoch1")]
    table = full.select(keep).replace_schema_metadata(SCHEMA.metadata)
    broken = R.write_results(df, tmp_path / "broken", table=table)
    result = run("report", "winrate", broken)
    no_traceback(result)
    assert result.exit_code == 2
    out = " ".join(result.output.split())
    assert "missing columns: total_epoch1, win_share" in out and "hadara-sim simulate" in out


def test_not_a_results_directory(tmp_path):
    result = run("report", "summary", tmp_path / "nothing")
    no_traceback(result)
    assert result.exit_code == 2 and "does not exist" in result.output
    (tmp_path / "empty").mkdir()
    result = run("report", "winrate", tmp_path / "empty")
    assert result.exit_code == 2 and "hadara-sim simulate" in result.output


def test_a_folder_of_runs_names_the_runs_in_it(four, tmp_path):
    """results/ itself, not one run in it: the runs are named, not how to write one."""
    import shutil

    for name in ("a", "b"):
        shutil.copytree(four, tmp_path / "results" / name)
    result = run("report", "winrate", tmp_path / "results")
    no_traceback(result)
    out = "".join(result.output.split())
    assert result.exit_code == 2 and "holds2runs" in out and str(tmp_path / "results" / "b") in out
    assert "simulate" not in out


def test_a_folder_that_cannot_be_searched_for_runs_says_it_holds_no_run(tmp_path, monkeypatch):
    """A folder with a subfolder it may not look into (pathlib's is_file lets that PermissionError
    through; the tests run as root, so it is raised by hand): told it is no results directory."""
    import pathlib

    (tmp_path / "locked").mkdir()
    real = pathlib.Path.is_file

    def is_file(self):
        if self.parent.name == "locked":
            raise PermissionError(13, "Permission denied", str(self))
        return real(self)

    monkeypatch.setattr(pathlib.Path, "is_file", is_file)
    result = run("report", "winrate", tmp_path)
    no_traceback(result)
    assert result.exit_code == 2 and "is not a results directory" in result.output


def test_bad_options_fail_cleanly(four):
    result = run("report", "winrate", four, "--by", "colour")
    no_traceback(result)
    assert result.exit_code == 2 and "cannot group by 'colour'" in result.output
    for empty in ("", " , "):  # an unset shell variable: once one pooled row, as if asked for
        result = run("report", "winrate", four, "--by", empty)
        no_traceback(result)
        assert result.exit_code == 2 and "it names no column" in result.output
    result = run("report", "winrate", four, "--chart-format", "gif")
    assert result.exit_code == 2 and "png or svg" in result.output
    result = run("report", "purple", R.write_results(R.four_games(), four.parent / "plain"))
    assert result.exit_code == 2 and "nothing to report on purple effects" in result.output


@pytest.mark.parametrize("command", ["breakdown", "trajectory"])
def test_seats_granted_nothing_are_a_group_of_their_own(grants, tmp_path, command):
    """--by granted: the seats granted nothing (null) are the group "none", as in winrate: the
    control's seat 0 and every seat 1, 105.0 points on average; the sell_bonus seats 110.0."""
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="Comparisons with None")
        result = run("report", command, grants, "--by", "granted", "--out", tmp_path)
    assert result.exit_code == 0, result.output
    rows = {line.strip("│ ").split()[0]: line for line in result.output.splitlines() if line.startswith("│")}
    assert "105.0" in rows["none"] and "110.0" in rows["I-P-01"] and "105.0" in rows["II-P-01"]


@pytest.mark.parametrize("command", ["winrate", "breakdown", "trajectory"])
@pytest.mark.parametrize("by, words", [("game", "it is the deal"), ("total", "it is a score or outcome"),
                                       ("win-share", "it is a score or outcome"),
                                       ("bought", "it is a bit set of cards"), ("offered", "it is a bit set of cards")])
def test_what_a_report_measures_or_pairs_on_is_refused_as_a_group(four, tmp_path, command, by, words):
    from test_hardening import clean_failure

    for fmt in ("table", "csv"):
        clean_failure(run("report", command, four, "--by", f"policy,{by}", "--format", fmt, "--out", tmp_path), 2,
                      f"cannot group by '{by}': {words}", "group by an alias (policy, seat, setup")


def test_report_help_lists_every_command():
    result = run("report", "--help")
    assert result.exit_code == 0
    for command in COMMANDS:
        assert command in result.output


def test_summary_skips_what_does_not_apply(tmp_path):
    """A grant sweep without its control: the summary still comes out, saying what it left out."""
    import polars as pl

    df, combos = R.grant_sweep()
    df = df.filter(pl.col("sweep_grants") != "none")
    results = R.write_results(df, tmp_path / "results", [c for c in combos if c["index"]], name="no-control")
    result = run("report", "summary", results, "--out", tmp_path / "out")
    no_traceback(result)
    assert result.exit_code == 0, result.output
    text = (tmp_path / "out" / "summary.html").read_text()
    assert "Grant experiment skipped" in text and "no control" in text
    assert "Score trajectory" in text
    result = run("report", "purple", results)
    assert result.exit_code == 2 and "no control" in result.output


def test_margin_sets_the_equivalence_verdict(four, tmp_path):
    result = run("report", "winrate", four, "--out", tmp_path, "--margin", "5")
    assert result.exit_code == 0, result.output
    assert "±5 pp" in result.output and "Benjamini-Hochberg" in result.output
    bad = run("report", "winrate", four, "--out", tmp_path, "--margin", "0")
    assert bad.exit_code == 2 and "margin" in bad.output


# One fresh process runs the commands one after the other (each a new process would pay the start-up four
# times): the policy file is imported by none of them until the last, which trusts it; after each the
# marker says whether that command imported it.
_IN_ORDER = """
import json, pathlib, sys
from typer.testing import CliRunner
from hadara_sim.cli import app
marker = pathlib.Path(sys.argv[1])
steps = []
for args in json.loads(sys.argv[2]):
    result = CliRunner().invoke(app, args)
    steps.append({"code": result.exit_code, "stdout": result.stdout, "stderr": result.stderr,
                  "imported": marker.exists()})
print(json.dumps(steps))
"""


def test_reports_read_a_results_directory_as_data_and_never_run_its_policy_code(tmp_path):
    """A run whose policy file writes a file whenever it is imported: every report of its directory
    (run in a fresh process, so nothing is imported already) describes the policy from the record
    and writes nothing."""
    import json
    import subprocess
    import sys

    marker = tmp_path / "imported.txt"
    bot = tmp_path / "hostile.py"
    bot.write_text("import pathlib\n"
                   f"pathlib.Path({str(marker)!r}).write_text('policy code ran')\n"
                   "from hadara_sim.policies.greedy import Greedy\n\n\nclass Bot(Greedy):\n    pass\n")
    out = tmp_path / "run"
    simulate({"name": "hostile", "players": 2, "game": "basic", "games": 4, "seed": 1, "chunk": 4,
              "policies": [f"{bot}:Bot", {"policy": "greedy", "params": {"coin": 0.7}}]},
             out=out, jobs=1, quiet=True)
    marker.unlink()
    commands = [["report", "summary", str(out), "--out", str(tmp_path / "html")],
                ["report", "winrate", str(out), "--format", "json", "--out", str(tmp_path / "charts")],
                # show-game plays a game again, so it would run the policy: it refuses unless told the code is trusted
                ["show-game", str(out), "-q"],
                ["show-game", str(out), "-q", "--allow-code"]]
    done = subprocess.run([sys.executable, "-c", _IN_ORDER, str(marker), json.dumps(commands)], capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    summary, winrate, refused, trusted = json.loads(done.stdout)
    for args, step in zip(commands, (summary, winrate)):
        assert step["code"] == 0, step["stderr"]
        assert not step["imported"], args
    doc = json.loads(winrate["stdout"])
    assert doc["provenance"]["policy_params"] == {"greedy(coin=0.7)": {"coin": 0.7}}
    assert f"{bot}:Bot" in doc["provenance"]["policies"]
    assert refused["code"] == 2 and "--allow-code" in refused["stderr"]
    assert f"{bot}:Bot" in " ".join(refused["stderr"].split())
    assert not refused["imported"]
    assert trusted["code"] == 0, trusted["stderr"]
    assert trusted["imported"]


@pytest.mark.parametrize("command, fixture", [(c, "four") for c in ("seats", "trajectory", "setup-cards", "purple")]
                         + [(c, "grants") for c in ("purple", "seats")])
def test_every_interval_written_for_machines_has_its_level_in_the_caption(command, fixture, request, tmp_path):
    """csv and json carry each CI's bounds (ci_low_pct, win_high_pp, ...) and the caption, not the
    terminal's "95% CI" headers: the first player's, the leader's, the running score's, the placebos' and
    the owners' tables said no level (the sample-size sentence's "a 95% CI of ±1 pp" is not one)."""
    import json

    result = run("report", command, request.getfixturevalue(fixture), "--out", tmp_path, "--format", "json")
    assert result.exit_code == 0, result.output
    for table in json.loads(result.stdout)["tables"]:
        bounds = [c for c in table["schema"] if re.search(r"(^|_)(low|high)_(pct|pp|points)", c)
                  and not c.startswith("size_")]
        said = re.sub(r"a 95% CI of ±1 pp needs[^)]*\)", "", table["caption"] or "")
        assert not bounds or "95%" in said, (table["title"], bounds)


def test_the_first_player_s_win_share_is_observational(real_run, tmp_path):
    """The first player holds the setup card of lowest initiative, as dealt: the summary listed its
    verdicts among the experiments ("causal for the policies played"), though they mix the turn order
    with that card."""
    import json

    from hadara_sim.report.html import _design
    from hadara_sim.report.sections import seats
    from hadara_sim.report.dataset import load_dataset

    result = run("report", "seats", real_run, "--out", tmp_path, "--format", "json")
    first = next(t for t in json.loads(result.stdout)["tables"] if t["title"].startswith("Win share of the first"))
    assert first["data"] and {r["design"] for r in first["data"]} == {"observational"}
    assert "lowest initiative in epoch I, the second lowest in II, the third in III" in first["caption"]
    df, info = load_dataset(real_run)
    table = next(t for t in seats(df, info).tables if t.title.startswith("Win share of the first"))
    assert _design(table) == "observational"


def test_the_leader_table_says_what_its_equiv_p_and_needed_are(four, tmp_path):
    """csv and json wrote equiv_p and needed beside the leader's win share, and the caption said nothing of
    either: not the margin of the equivalence test, nor what `needed` counts."""
    import json

    from hadara_sim.report import inference as I

    result = run("report", "trajectory", four, "--out", tmp_path, "--format", "json")
    assert result.exit_code == 0, result.output
    leaders = next(t for t in json.loads(result.stdout)["tables"] if t["title"].startswith("How often the leader"))
    assert {"equiv_p", "needed"} <= set(leaders["schema"])
    caption = leaders["caption"]
    assert f"equiv_p (TOST: the p-value that the leader's win share lies within ±{100 * I.MARGIN:g} pp of chance" in caption
    assert "needed (the deals for a 95% CI of ±1 pp on the leader's win share" in caption
    assert "no correction" in caption and "a 95% CI of ±1 pp needs about" in caption


def test_a_mirror_s_win_rates_are_by_seat_since_one_policy_s_share_is_1_over_p_by_construction(tmp_path):
    """One policy on every seat took 1/P of the wins by construction, and `report winrate` called it "fair
    within ±2 pp" with a CI, as if measured: by default a mirror's rows are its seats (as in the
    summary); grouped by policy on request, the report says its rows test nothing."""
    out = tmp_path / "mirror"
    simulate({"players": 3, "policies": ["greedy"], "games": 60, "chunk": 60, "seed": 3}, out=out, jobs=1)
    default = run("report", "winrate", out, "--format", "json")
    assert default.exit_code == 0, default.output
    rows = json.loads(default.stdout)["tables"][0]["data"]
    assert sorted(r["seat"] for r in rows) == [0, 1, 2] and sum(r["mean_pct"] for r in rows) == pytest.approx(100)
    assert "One policy (greedy) plays every seat here" in " ".join(run("report", "winrate", out).output.split())
    by_policy = run("report", "winrate", out, "--by", "policy")
    assert by_policy.exit_code == 0 and "its rows test nothing" in " ".join(by_policy.output.split())
    breakdown = json.loads(run("report", "breakdown", out, "--format", "json").stdout)["tables"][0]["data"]
    assert {r["seat"] for r in breakdown} == {0, 1, 2}


def test_the_library_groups_a_mirror_as_the_command_line_does(tmp_path):
    """`wins.win_rates(df)` from a notebook grouped a mirror by policy, one row at 1/P by construction, and
    `score_breakdown(df)` pooled its seats, while `report winrate` and `breakdown` gave a row per seat: the
    library's default groups are now the command line's (`dataset.default_groups`), per seat in a mirror,
    per policy and player count otherwise."""
    import json

    import polars as pl

    from hadara_sim.report import scores, wins
    from hadara_sim.report.dataset import load_dataset

    out = tmp_path / "mirror"
    simulate({"players": 3, "policies": ["greedy"], "games": 30, "chunk": 30, "seed": 3}, out=out, jobs=1)
    df, _ = load_dataset(out)
    cli = json.loads(run("report", "winrate", out, "--format", "json").stdout)["tables"][0]["data"]
    assert wins.win_rates(df)["seat"].to_list() == [r["seat"] for r in cli] == [0, 1, 2]
    assert wins.win_rates(df)["mean"].to_list() == pytest.approx([r["mean_pct"] / 100 for r in cli])
    assert scores.score_breakdown(df)["seat"].unique().sort().to_list() == [0, 1, 2]
    mixed = pl.concat([df, df.with_columns(pl.lit("random").alias("policy_label"), pl.col("game") + 1000)])
    assert wins.win_rates(mixed).columns[0] == "policy_label" and wins.win_rates(mixed).height == 2


def test_each_report_s_by_help_says_the_default_it_takes_on_a_mirror(tmp_path):
    """`report trajectory --help` said its default was "seat where one policy plays every seat", as
    winrate's and breakdown's is, but trajectory groups a mirror by policy: each help now says its own."""
    import json

    out = tmp_path / "mirror"
    simulate({"players": 3, "policies": ["greedy"], "games": 30, "chunk": 30, "seed": 3}, out=out, jobs=1)
    for report in ("winrate", "breakdown", "trajectory"):
        helped = " ".join(run("report", report, "--help").output.replace("│", " ").split())
        tables = json.loads(run("report", report, out, "--format", "json").stdout)["tables"]
        by_seat = "seat" in tables[0]["schema"]
        assert ("or seat where one policy plays every seat" in helped) == by_seat, (report, helped)


def test_a_group_of_every_seat_of_its_games_is_not_called_fair(tmp_path):
    """A mirror grouped by policy (or by any swept key without the seat) holds every seat of each game:
    its win share is 1/P whatever was played, yet the table tested it and said "fair within ±2 pp". Such
    a row now has no test and says "1/P by construction"; rows of a policy among others are tested."""
    import json

    import polars as pl

    from hadara_sim.report import wins
    from hadara_sim.report.dataset import load_dataset

    out = tmp_path / "mirror"
    simulate({"players": 3, "policies": ["greedy"], "games": 30, "chunk": 30, "seed": 3}, out=out, jobs=1)
    rows = json.loads(run("report", "winrate", out, "--by", "policy", "--format", "json").stdout)["tables"][0]["data"]
    assert [(r["verdict"], r["p"], r["q_equiv"]) for r in rows] == [("1/P by construction", None, None)]
    df, _ = load_dataset(out)
    assert wins.win_rates(df, [])["whole"].to_list() == [True]
    assert not wins.win_rates(df, ["seat"])["whole"].any()
    mixed = pl.concat([df.filter(pl.col("seat") == 0), df.filter(pl.col("seat") > 0).with_columns(
        pl.lit("other").alias("policy_label"))])
    assert wins.win_rates(mixed, ["policy_label"])["p"].is_not_null().all()


@pytest.mark.parametrize("command", ["winrate", "summary"])
def test_a_ctrl_c_during_a_report_says_the_results_are_unchanged(four, tmp_path, monkeypatch, command):
    """typer turned the KeyboardInterrupt into a silent exit 130."""
    from hadara_sim.cli import report

    def pressed(results):
        raise KeyboardInterrupt

    monkeypatch.setattr(report, "_load", pressed)
    result = run("report", command, four, "--out", tmp_path / "charts")
    text = "".join(result.output.split())
    assert result.exit_code == 130 and "interrupted" in text, result.output
    assert f"therunin{four}wasonlyread,notchanged" in text, result.output


def test_a_ctrl_c_during_simulates_closing_table_says_the_run_is_whole(tmp_path, monkeypatch):
    from hadara_sim.cli import simulate as command

    def pressed(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(command, "win_table", pressed)
    scenario = tmp_path / "tiny.toml"
    scenario.write_text('name = "tiny"\nplayers = 2\npolicies = ["greedy", "random"]\ngames = 4\nchunk = 4\n')
    result = run("simulate", scenario, "--out", tmp_path / "out", "-j", "1")
    text = "".join(result.output.split())
    assert result.exit_code == 130 and "interrupted" in text and "1of1chunksarecomplete" in text, result.output
    assert "reportratings" in text  # the report of the run's design, as the closing line names it

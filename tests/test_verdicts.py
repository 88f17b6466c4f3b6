"""What a verdict promises, kept: the sample-size hint of an undecided row reaches its power under the
table's own Holm correction when the hinted deals are played, `balance suggest` tells a value short of
deals from a value that is not fair, and every report and balance command writes numbers as numbers
(csv read by pandas and polars, json parsed strictly)."""

import io
import json
import math
import re

import numpy as np
import pandas as pd
import polars as pl
import pytest
from scipy.stats import norm
from scipy.stats import t as t_dist
from typer.testing import CliRunner

from hadara_sim import simulate
from hadara_sim.balance import Suggestion, candidate
from hadara_sim.cli import app
from hadara_sim.cli.common import machine_csv
from hadara_sim.report import inference as I
from hadara_sim.report import verdict as V
from hadara_sim.report.curve import curve
from hadara_sim.report.estimates import mean_ci, with_verdicts
from hadara_sim.report.table import Table

from test_report_curve import KEY, planted

# --- the hint keeps its promise ---------------------------------------------------------------

# A table of ten rows at 4 players (fair share 25 %): the planted row 0.8 pp above fair, two more
# inside the margin, the rest well outside it (their TOSTs never help the planted row's Holm step).
RATES = [0.258, 0.25, 0.265, 0.33, 0.17, 0.35, 0.15, 0.31, 0.19, 0.40]


def _table(rng, deals: int) -> pl.DataFrame:
    """One simulated table: per row and deal a win (1) or loss (0) at the row's planted rate."""
    wins = (rng.random((len(RATES), deals)) < np.array(RATES)[:, None]).astype(float)
    return pl.DataFrame({"row": np.repeat(np.arange(len(RATES)), deals), "game": np.tile(np.arange(deals), len(RATES)),
                         "players": 4, "win_share": wins.ravel()})


def _judged(df: pl.DataFrame, hints: bool = False) -> pl.DataFrame:
    return with_verdicts(mean_ci(df, "win_share", ["row"], fair=1 / pl.col("players"), rate=True), hints=hints)


def _tost_p(wins: np.ndarray, deals: int) -> np.ndarray:
    """The TOST p-value of each row (within ±2 pp of 1/4) as the reports compute it from one win or loss
    per deal (statsmodels' paired t-tests over deals), from the rows' win counts: vectorised."""
    mean = wins / deals
    se = np.sqrt(mean * (1 - mean) * deals / (deals - 1)) / np.sqrt(deals)
    d = mean - 0.25
    return np.maximum(t_dist.sf((d + 0.02) / se, deals - 1), t_dist.cdf((d - 0.02) / se, deals - 1))


def test_the_vectorised_tost_is_the_reports_own():
    rng = np.random.default_rng(2)
    table = _table(rng, 300)
    wins = table.group_by("row").agg(pl.col("win_share").sum()).sort("row")["win_share"].to_numpy()
    assert _tost_p(wins, 300) == pytest.approx(_judged(table)["equiv_p"].to_numpy(), rel=1e-6)


def test_the_hinted_deals_make_a_planted_row_fair_with_the_promised_chance():
    """The hint of the planted row, from the truth (rate and per-deal sd), played: 400 tables with the
    hinted deals added to every row, judged as the reports judge them (t-test TOST per row, the same
    as the reports' own above, Holm over the table), call the planted row fair in at least 80 % of them
    (less 2 binomial SEs), and not far beyond (the hint is not padded). The heavier check on real rows,
    with each row's observed distribution, is scripts/hint_check.py."""
    n = 600
    diff = np.array(RATES) - 0.25
    sd = np.sqrt(np.array(RATES) * (1 - np.array(RATES)))
    more = I.deals_to_decide(diff, sd, np.full(len(RATES), n), [True] * len(RATES))
    assert np.isfinite(more[:3]).all() and np.isnan(more[3:]).all()  # outside the margin: never fair
    # the uncorrected one-sided hint (the old one) asks for fewer deals than the table's test needs
    naive = ((norm.ppf(0.95) + norm.ppf(0.8)) * sd[0] / (0.02 - diff[0])) ** 2 - n
    assert more[0] > 1.3 * naive
    deals = n + int(more[0])
    wins = np.random.default_rng(36).binomial(deals, RATES, (400, len(RATES)))
    share = float(np.mean([I.adjust(_tost_p(w, deals), "holm")[0] < I.ALPHA for w in wins]))
    assert 0.8 - 2 * math.sqrt(0.16 / 400) <= share <= 0.93, share
    # a hint a fifth short fails the same bound: the check tells a wrong hint from a right one
    short = n + int(0.8 * more[0])
    wins = np.random.default_rng(37).binomial(short, RATES, (400, len(RATES)))
    assert np.mean([I.adjust(_tost_p(w, short), "holm")[0] < I.ALPHA for w in wins]) < 0.8 - 2 * math.sqrt(0.16 / 400)


def test_a_hint_claims_two_figures_rounded_up_and_its_captions_say_what_it_takes_for_granted():
    """A hint rests on the measured difference (its CI wide where a hint is given) and its search stops
    within 2 %: it said "about 64,018 more deals", five figures of a number good to one or two. It now
    says 65,000, rounded up so the promised chance still holds, in every table's words and records."""
    shown = [I.two_figures_up(x) for x in (0, -3, 0.3, 7, 64.2, 99.5, 9_481, 12_000, 64_018, 23_028_403)]
    assert shown == [0, 0, 1, 7, 65, 100, 9_500, 12_000, 65_000, 24_000_000]
    judged = _judged(_table(np.random.default_rng(1), 300), hints=True)
    more = [m for m in judged["more"].to_list() if math.isfinite(m)]
    assert more and all(m == I.two_figures_up(m) for m in more)
    fit = V.of_fit(0.255, 0.235, 0.28, 0.25, deals=500)
    assert math.isfinite(fit.more) and fit.more == I.two_figures_up(fit.more)
    assert "if the difference measured were the true one" in V.caption(10)


def test_a_table_too_large_to_simulate_gets_bonferronis_bound_which_is_never_below_holms_need(monkeypatch):
    """The hint simulates the whole table for every hinted row: 13,000 setup cells of a card-worth run
    (`report summary`) ran for hours. Past HINT_SIMULATED it takes Bonferroni's closed form, which asks at
    least as many deals as the table's Holm correction needs, so the promised chance still holds."""
    rng = np.random.default_rng(7)
    diff, sd, n = rng.normal(0, 0.008, 20), np.full(20, 0.43), np.full(20, 500.0)
    holm = I.deals_to_decide(diff, sd, n, [True] * 20)
    monkeypatch.setattr(I, "HINT_SIMULATED", 20 * 20 - 1)
    bound = I.deals_to_decide(diff, sd, n, [True] * 20)
    hinted = np.isfinite(holm)
    assert hinted.sum() >= 15 and np.array_equal(hinted, np.isfinite(bound))
    assert np.all(bound[hinted] >= holm[hinted]) and np.any(bound[hinted] > holm[hinted])
    assert all(m == I.two_figures_up(m) for m in bound[hinted])


def test_an_undecided_row_states_its_hint_in_deals_and_in_the_games_of_the_run():
    judged = _judged(_table(np.random.default_rng(1), 300), hints=True).to_dicts()[0]
    assert judged["verdict"] == "undecided" and judged["more"] > 0
    text = V.undecided_text(judged["more"], judged["n"], 900)  # a row held in a third of 900 games
    assert text == f"undecided, about {judged['more']:,.0f} more deals (--games {900 + math.ceil(judged['more'] * 3)})"
    assert V.undecided_text(math.nan) == "undecided"


# --- one verdict model -------------------------------------------------------------------------

def test_a_table_s_verdicts_are_built_once_and_every_rendering_reads_the_same_object():
    """`verdict.judge` corrects a table's tests together and words each row; its record (the columns
    csv and json write) renders in the terminal exactly as the object does, relative words included."""
    diff = [0.05, -0.04, 0.004, 0.001, 0.03]
    p = [1e-6, 1e-5, 0.001, 0.9, 0.2]
    equiv_p = [1.0, 1.0, 1e-4, 0.2, 0.9]
    judged = V.judge(diff, p, equiv_p, [500] * 5, margin=0.02)
    assert [v.words for v in judged] == ["stronger", "weaker", "fair within ±2 pp (slightly stronger)", "undecided",
                                         "undecided"]
    assert [v.q for v in judged] == pytest.approx(I.adjust(p, I.CORRECTION))
    assert [v.q_equiv for v in judged] == pytest.approx(I.adjust(equiv_p, "holm"))
    relative = V.judge(diff, p, equiv_p, [500] * 5, margin=0.02, relative=True)
    assert [v.words for v in relative][:3] == ["above the average side", "below the average side",
                                               "level with the average side (±2 pp; slightly above)"]
    assert [v.robustness for v in judged] == ["depends on the bots", "depends on the bots", "robust", "undecided",
                                              "undecided"]
    for v in [*judged, *relative]:
        assert V.render({**v.record(hints=True), "n": v.n}, games=1500) == v.text(1500)
    assert judged[0].text() == "▲ stronger" and judged[1].text() == "▼ weaker"


def test_the_precision_caption_says_the_scenario_s_games():
    """Rows of 300 and 100 deals of a run of 300 games per combination, needing 1,200 deals for ±1 pp:
    the row holding a third of the deals needs 1,100 more, so --games 3600."""
    table = pl.DataFrame({"n": [300, 100], "needed": [1200.0, 1200.0]})
    assert V.precision_caption(table, games=300) == ("; a 95% CI of ±1 pp needs about 1,200 deals per row "
                                                      "(--games 3600; normal approximation; n now 100)")
    assert V.precision_caption(table) == ("; a 95% CI of ±1 pp needs about 1,200 deals per row (normal "
                                          "approximation; n now 100)")
    # two figures, rounded up, as every hint of deals: 9,628 claimed a precision the spread behind it lacks
    assert "needs about 9,700 deals per row (--games 9700;" in V.precision_caption(
        pl.DataFrame({"n": [400], "needed": [9628.0]}), games=400)


# --- balance suggest: short of deals is not short of a value ----------------------------------

def test_a_value_fair_by_its_fit_but_short_of_deals_is_undecided_and_preferred_over_a_pair():
    """3B's culture planted fair at exactly 3 on a small curve: the whole value 3 fits inside ±2 pp
    but its 90 % CI reaches past it. The candidate says so with the curve games that would decide it,
    and the suggestion proposes it (a single change) without trying a pair."""
    c = curve(planted(deals=500, values=(2, 3, 4), points=0.0), KEY)
    cand = candidate("culture", 4, [4, 3, 2], c, 0.02, 500)
    assert not cand.fair and cand.undecided and cand.value == 3
    assert abs(cand.win - 0.25) < 0.02 and cand.high - cand.low > 0.02
    more = cand.judged.more
    assert cand.judged.text(500) == f"undecided, about {more:,.0f} more deals per swept value (--curve-games {500 + more:.0f})"
    assert cand.note.startswith("short of deals, not of a value")
    # the CI shrinks as 1 / sqrt(games): at the hinted games its half-width fits the room left
    half = cand.high - cand.win if cand.win >= 0.25 else cand.win - cand.low
    room = 0.02 - abs(cand.win - 0.25)
    assert half * math.sqrt(500 / (500 + more)) < room
    unfair = candidate("coins", 12, [12, 10], curve(planted(deals=300, values=(2, 3), slope=0.0, points=0.0), KEY),
                       0.02, 300)
    assert not unfair.undecided
    s = Suggestion(side=None, candidates=[unfair, cand], seconds=0.0)
    assert s.best is cand and s.pair is None
    assert cand.worth == 1


# --- numbers in every format ------------------------------------------------------------------

def strict(text: str):
    """json.loads refusing NaN and infinities."""
    def refuse(name):
        raise ValueError(f"not JSON: {name}")
    return json.loads(text, parse_constant=refuse)


def numeric_columns(doc) -> set[str]:
    """The columns the json of a command declares numbers (integer or number) in any of its tables."""
    return {name for t in doc["tables"] for name, kind in t.get("schema", {}).items() if kind in ("integer", "number")}


def check_formats(command: list[str]) -> None:
    """A command's json parses strictly and declares its numbers; its csv, read by pandas and by
    polars (types guessed from the first 100 rows), has every one of them numeric."""
    env = {"COLUMNS": "200"}
    doc_run = CliRunner().invoke(app, [*command, "--format", "json"], env=env)
    assert doc_run.exit_code == 0, doc_run.output
    csv_run = CliRunner().invoke(app, [*command, "--format", "csv"], env=env)
    assert csv_run.exit_code == 0, csv_run.output
    check_texts(doc_run.stdout, csv_run.stdout, command)


def check_texts(json_text: str, text: str, command) -> None:
    """`check_formats` on the json and csv a command printed."""
    doc = strict(json_text)
    for t in doc["tables"]:
        if "data" in t:
            assert set(t["schema"]) == set(t["data"][0]) if t["data"] else True, t["title"]
    numbers = numeric_columns(doc)
    assert numbers, command
    by_pandas = pd.read_csv(io.StringIO(text))
    by_polars = pl.read_csv(io.StringIO(text))
    for name in numbers & set(by_pandas.columns):
        assert pd.api.types.is_numeric_dtype(by_pandas[name]), (command, name, by_pandas[name].dtype)
        assert by_polars.schema[name].is_numeric(), (command, name, by_polars.schema[name])
    for shown in ("%", " pp"):  # display strings stay in the terminal's tables
        assert not any(str(v).endswith(shown) for v in by_polars.select(pl.col(pl.String)).to_numpy().ravel()
                       if v is not None and str(v)[:1] in "+-0123456789"), command


def test_a_csv_column_empty_in_its_first_rows_is_still_read_as_numbers():
    """A table whose number is missing in its first 150 rows (as `report cards` colony columns are):
    pandas and polars read the column as numbers; json says null."""
    data = pl.DataFrame({"card": [f"c{i}" for i in range(200)],
                         "share": [None] * 150 + [0.5] * 50, "n": [None] * 150 + list(range(50)),
                         "p": [math.nan] * 150 + [0.01] * 50})
    t = Table("empty first rows", ["card"], [[c] for c in data["card"]], data=data)
    text = machine_csv([t])
    assert pl.read_csv(io.StringIO(text)).schema["share_pct"].is_numeric()
    assert pl.read_csv(io.StringIO(text)).schema["n"].is_numeric()
    assert pd.api.types.is_numeric_dtype(pd.read_csv(io.StringIO(text))["p"])
    assert t.machine()["p"].null_count() == 150


@pytest.fixture(scope="module")
def grid(tmp_path_factory):
    """A tiny setup grid under two opponent fields (robustness tables, side B - A)."""
    out = tmp_path_factory.mktemp("grid") / "fields"
    simulate({"name": "fields", "players": 2, "game": "advanced", "policies": ["balanced"], "games": 12, "seed": 7,
              "chunk": 12, "setup": {"cards": "grid", "sides": "grid", "focus_seat": "rotate"},
              "sweep": {"policies": [["balanced"], ["greedy"]]}}, out=out, jobs=1, quiet=True)
    return out


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    """A tiny real run: a grant sweep with two policies rotated, and a swept setup value for `curve`."""
    out = tmp_path_factory.mktemp("real") / "tiny"
    simulate({"name": "tiny", "players": 3, "game": "advanced", "policies": ["balanced", "military", "economy"],
              "assignment": "rotated", "games": 30, "seed": 5, "chunk": 30, "setup": {"sides": "random"},
              "sweep": {"grants": ["none", "sell_bonus"], "components.setup.3B.culture": [2, 3]}},
             out=out, jobs=1, quiet=True)
    return out


REPORTS = ["winrate", "breakdown", "setup-cards", "purple", "trajectory", "seats", "ratings", "cards"]


@pytest.mark.parametrize("command", REPORTS)
def test_every_report_writes_numbers_as_numbers(real, tmp_path, command):
    check_formats(["report", command, str(real), "--out", str(tmp_path)])


def test_the_setup_report_with_fields_writes_numbers_and_names_the_sides(grid, tmp_path):
    check_formats(["report", "setup-cards", str(grid), "--out", str(tmp_path)])
    doc = strict(CliRunner().invoke(app, ["report", "setup-cards", str(grid), "--out", str(tmp_path),
                                          "--format", "json"]).stdout)
    sides = next(t for t in doc["tables"] if t["title"].startswith("Setup cards: side B minus side A"))
    assert {"side_b_pct", "side_a_pct", "diff_pp"} <= set(sides["schema"]) and "a_pct" not in sides["schema"]
    row = sides["data"][0]
    assert row["diff_pp"] == pytest.approx(row["side_b_pct"] - row["side_a_pct"])


@pytest.mark.parametrize("run, command", [("real", c) for c in REPORTS] + [("grid", "setup-cards"), ("grid", "purple")])
def test_every_table_of_verdicts_names_the_field_it_holds_for(run, command, request, tmp_path):
    """Only the setup cells' table said which policy field its verdicts hold for; side B - A, card
    against card, the focus seats, win rates, seats, grants and cards gave verdicts without it."""
    doc = strict(CliRunner().invoke(app, ["report", command, str(request.getfixturevalue(run)), "--out",
                                          str(tmp_path), "--format", "json"]).stdout)
    judged = [t for t in doc["tables"] if any(c.endswith("verdict") or c == "robust" for c in t["schema"])]
    assert judged or command in ("breakdown", "trajectory", "ratings", "cards", "purple")
    for t in judged:
        assert "these verdicts hold for the policy field played (" in t["caption"], (t["title"], t["caption"])


def test_the_curve_report_writes_numbers_as_numbers(real, tmp_path):
    check_formats(["report", "curve", str(real), "--key", "components.setup.3B.culture", "--out", str(tmp_path)])


def test_a_played_game_s_score_pad_writes_numbers_and_its_provenance():
    """`play --format json` wrote the score pad's cells as text ("30") without a schema or provenance."""
    command = ["play", "-p", "3", "--policy", "greedy,random,balanced", "--seed", "4"]
    check_formats(command)
    doc = strict(CliRunner().invoke(app, [*command, "--format", "json"]).stdout)
    pad = doc["tables"][0]
    assert [row["policy"] for row in pad["data"]] == ["greedy", "random", "balanced"]
    assert pad["schema"]["total_points"] == "number" and sum(row["win_share_pct"] for row in pad["data"]) == 100
    assert doc["provenance"]["seed"] == 4 and doc["provenance"]["components"]["digest"]


def test_balance_check_writes_numbers_and_says_its_changes_in_words(tmp_path):
    fix = tmp_path / "fix.toml"
    fix.write_text('[components.setup."5B"]\nmilitary = 3\n')
    command = ["balance", "check", "-p", "2", "-n", "40", "--jobs", "1", "--overrides", str(fix)]
    check_formats(command)
    doc = strict(CliRunner().invoke(app, [*command, "--format", "json"]).stdout)
    table = doc["tables"][0]
    assert "with 5B military 3" in table["title"] and "{" not in table["title"]
    assert {"n", "win_pct", "tost_p", "q_equiv", "more", "more_games"} <= set(table["schema"])
    assert table["schema"]["tost_p"] == "number" and all(r["mark"] in ("", "not shown fair") for r in table["data"])


def test_balance_sensitivity_writes_numbers_and_a_word_for_its_marks():
    command = ["balance", "sensitivity", "-p", "2", "--draws", "2", "--games", "40", "--jobs", "1"]
    check_formats(command)
    doc = strict(CliRunner().invoke(app, [*command, "--format", "json"]).stdout)
    table = doc["tables"][0]
    assert "data" in table and {"win_pct", "holds_pct", "reading"} <= set(table["schema"])
    assert {r["reading"] for r in table["data"]} <= {"holds", "rests on the estimates"}


def test_balance_fit_writes_numbers_as_numbers(capsys):
    """balance fit's tables (the change set, the rounds, before and after), from a fit on the synthetic
    game of test_balance_fit (no simulator), printed as json and csv."""
    from hadara_sim.balance_fit import fit
    from hadara_sim.cli.balance_fit import _tables
    from hadara_sim.cli.common import emit
    from test_balance_fit import THREE_B, plan, synthetic

    result = fit(plan(rounds=1, confirm_games=2000, games=400, points=4), synthetic({"3B": 0.5}, {"3B": THREE_B}))
    tables = _tables(result, "hadara-sim balance fit")
    capsys.readouterr()
    emit(tables, "json")
    json_text = capsys.readouterr().out
    emit(tables, "csv")
    check_texts(json_text, capsys.readouterr().out, "balance fit")
    before_after = next(t for t in strict(json_text)["tables"] if t["title"].startswith("Before and after"))
    assert before_after["schema"]["after_pct"] == "number" and before_after["schema"]["after_more"] == "number"


def test_balance_suggest_writes_numbers_as_numbers():
    check_formats(["balance", "suggest", "-p", "2", "-n", "40", "--curve-games", "20", "--side", "1A",
                   "--jobs", "1"])


# --- the key findings -------------------------------------------------------------------------

def test_each_key_finding_has_its_size_ci_and_design_and_no_count_of_zero_undecided_rows():
    """The key findings read each row's verdict from its record (`verdict.judge`'s columns), list the
    experiments' findings before the observational ones, each with its size, CI and design, and count
    the undecided rows only when there are some."""
    from hadara_sim.report.html import key_findings
    from hadara_sim.report.sections import Section

    observed_verdicts = V.judge([0.05, 0.001], [1e-6, 0.8], [1.0, 1e-5], [2000, 2000])
    data = pl.DataFrame({"diff": [0.05, 0.001], "diff_low": [0.02, -0.004], "diff_high": [0.08, 0.006],
                         **V.columns(observed_verdicts), "design": ["observational"] * 2})
    observed = Table("Setup cards", ["epoch", "players", "n (deals)"], [["I", "2 players", "2,000"], ["II", "2 players",
                                                                                                 "2,000"]],
                     data=data.with_columns(n=pl.lit(2000)))
    grants = Table("Experiment: granted seat vs control", ["granted"], [["sell_bonus"]],
                   data=pl.DataFrame({"win_diff": [0.1], "win_low": [0.04], "win_high": [0.16],
                                      **V.columns(V.judge([0.1], [1e-4], [1.0], [500]), prefix="win_")}))
    found = key_findings([Section("setup-cards", "Setup cards", "", [observed]),
                          Section("purple", "Purple effects", "", [grants])])
    assert found.columns == ["section", "row", "n (deals)", "verdict", "size", "95% CI", "design", "table"]
    # a row is named by its cells before n, its group included ("epoch I" alone lacked its player count)
    assert [r[1:7] for r in found.rows] == [
        ["sell_bonus", "–", "▲ stronger", "+10.0 pp", "[+4.0, +16.0]", "experiment"],
        ["I, 2 players", "2,000", "▲ stronger", "+5.0 pp", "[+2.0, +8.0]", "observational"],
        ["II, 2 players", "2,000", "fair within ±2 pp", "+0.1 pp", "[-0.4, +0.6]", "observational"]]
    assert found.links == ["purple-1-t0", "setup-cards-0-t0", "setup-cards-0-t0"]
    assert "0 " not in found.caption and "undecided" not in found.caption
    assert "experiments first" in found.caption
    undecided = data.with_columns(pl.Series(name, values) for name, values in
                                  V.columns(V.judge([0.05, 0.001], [1e-6, 0.8], [1.0, 0.5], [2000, 2000])).items())
    one = key_findings([Section("setup-cards", "Setup cards", "", [Table("t", ["row"], [["a"], ["b"]],
                                                                         data=undecided)])])
    assert one.caption.startswith("1 row of these tables is undecided") and len(one.rows) == 1


def test_a_long_table_shows_its_decided_rows_largest_first_and_writes_every_row_beside_the_page(tmp_path):
    """A card-worth run's summary held 20,000 table rows (8 MB): a table of more than 40 rows shows 40,
    its decided verdicts first, the largest first, says how many more there are and links the CSV that
    holds every row; so do the key findings when they are more than 40; a short table stays whole."""
    import report_data as R
    from hadara_sim.report import html
    from hadara_sim.report.dataset import full_info
    from hadara_sim.report.sections import Section

    diffs = [0.001 * k for k in range(60)]  # from 0 to 5.9 pp: the larger ones decided
    verdicts = V.judge(diffs, [1e-12 if d > 0.03 else 0.5 for d in diffs], [0.5] * 60, [4000] * 60)
    data = pl.DataFrame({"diff": diffs, "diff_low": [d - 0.01 for d in diffs], "diff_high": [d + 0.01 for d in diffs],
                         **V.columns(verdicts), "n": [4000] * 60})
    long = Table("Setup cards", ["cell", "n (deals)", "verdict"], [[f"cell {k}", "4,000", V.render(r)]
                                                                    for k, r in enumerate(data.to_dicts())],
                 marked=data["significant"].to_list(), data=data)
    short = Table("Statues", ["statue"], [["1"], ["2"]])
    page = html.write(tmp_path / "summary.html", [Section("setup-cards", "Setup cards", "", [long, short])],
                      full_info(R.four_games(), {})).read_text()
    table = page[page.index('id="setup-cards-0-t0"'):page.index('id="setup-cards-0-t1"')]
    shown = [int(c) for c in re.findall(r"<td>cell (\d+)</td>", table)]
    assert shown[:3] == [59, 58, 57] and len(shown) == 40 and set(range(31, 60)) <= set(shown)
    assert "20 more rows</b>: 40 of 60 shown here, decided verdicts first, the largest first" in table
    assert 'href="summary-tables/setup-cards-0-t0.csv"' in table
    every = pl.read_csv(tmp_path / "summary-tables" / "setup-cards-0-t0.csv")
    assert every.height == 60 and every["diff_pp"].to_list() == pytest.approx([100 * d for d in diffs])
    assert "more rows" not in page[page.index('id="setup-cards-0-t1"'):]
    assert not (tmp_path / "summary-tables" / "setup-cards-0-t1.csv").exists()
    # 29 decided rows: the key findings stay whole
    assert 'href="summary-tables/key-findings.csv"' not in page

    wide = V.judge(diffs, [1e-12] * 60, [0.5] * 60, [4000] * 60)
    data = data.with_columns(pl.Series(name, values) for name, values in V.columns(wide).items())
    found = html.write(tmp_path / "all.html", [Section("setup-cards", "Setup cards", "", [
        Table("Setup cards", ["cell", "n (deals)"], [[f"cell {k}", "4,000"] for k in range(60)], data=data)])],
        full_info(R.four_games(), {})).read_text()
    findings = found[found.index("Key findings"):found.index("<h2")]
    assert re.findall(r"<td>cell (\d+)</td>", findings)[:2] == ["59", "58"]
    assert "20 more rows" in findings and 'href="all-tables/key-findings.csv"' in findings
    assert pl.read_csv(tmp_path / "all-tables" / "key-findings.csv").height == 60
    # written again with short tables only: the folder holds no CSV of the earlier page
    html.write(tmp_path / "all.html", [Section("setup-cards", "Setup cards", "", [short])], full_info(R.four_games(), {}))
    assert list((tmp_path / "all-tables").glob("*.csv")) == []


# --- balance suggest's fits, judged by the one model ------------------------------------------

@pytest.mark.parametrize("low, high, fair", [(0.232, 0.268, True), (0.229, 0.262, False), (0.241, 0.2705, False),
                                              (0.2305, 0.2695, True)])
def test_a_fitted_share_is_fair_exactly_when_its_90_ci_lies_inside_the_margin(low, high, fair):
    """`verdict.of_fit` judges a fit's (asymmetric) 90 % CI: its TOST is fair exactly when the CI lies
    inside 1/P ± margin; inside the margin but not shown fair, it says how many more deals per point."""
    v = V.of_fit(0.25 if fair or low < 0.23 else 0.255, low, high, 0.25, 0.02, deals=1000, option="--curve-games",
                 per="swept value")
    assert v.equivalent is fair and v.kind == ("fair" if fair else "undecided")
    assert v.short_of_deals is (not fair) and (math.isnan(v.more) if fair else v.more > 0)
    if not fair:
        assert v.text(1000) == f"undecided, about {v.more:,.0f} more deals per swept value (--curve-games " \
                               f"{1000 + v.more:.0f})"
    outside = V.of_fit(0.30, 0.28, 0.32, 0.25, 0.02, deals=1000)
    assert outside.text() == "▲ stronger" and math.isnan(outside.more)


@pytest.mark.parametrize("win, low, high", [(0.30, 0.20, 0.31), (0.20, 0.19, 0.29)])
def test_a_fitted_share_on_the_margins_edge_is_undecided_without_a_hint(win, low, high):
    """0.30 against 0.25 ± 0.05 is on the edge, though 0.30 - 0.25 rounds to just inside: no number of
    deals shows it fair, and the hint divided by the room left, 0 (a ZeroDivisionError)."""
    v = V.of_fit(win, low, high, 0.25, 0.05, deals=500)
    assert v.kind == "undecided" and math.isnan(v.more)
    assert v.text(500) == "undecided"


def test_a_hint_of_a_difference_near_the_margin_says_why_it_asks_so_much():
    """`balance suggest` advised "about 23,028,403 more deals (--games 56722205)" for a side 2.0 pp off
    with a margin of 2 pp, as if that were a plan."""
    near = V.Verdict(-0.0199, 0.3, 0.4, 0.3, 0.4, 9_000, 0.02, 10, more=23_028_403.0)
    assert near.text(20_000).startswith("undecided, about 23,028,403 more deals (--games 51194229)")
    assert near.text(20_000).endswith(": its difference, -2.0 pp, lies near the margin of ±2 pp, where the deals "
                                      "needed grow without bound")
    assert "margin of" not in V.Verdict(-0.005, 0.3, 0.4, 0.3, 0.4, 9_000, 0.02, 10, more=12_000.0).text(20_000)
    record = {"diff": -0.0199, "n": 9_000, **near.record(hints=True)}  # a report's table renders its rows' records alike
    assert V.render(record, games=20_000) == near.text(20_000)

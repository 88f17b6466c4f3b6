"""The curve of a swept component value: a planted relation is recovered, and a tiny real run works
end to end through `hadara-sim report curve`."""

import json
import math

import numpy as np
import polars as pl
import pytest

from hadara_sim.report.dataset import ReportError
from hadara_sim.report.curve import curve

KEY = "components.setup.3B.culture"
COLUMN = "sweep_components_setup_3B_culture"


def planted(deals=3000, values=(1, 2, 3, 4, 5), slope=0.5, points=4.0, seed=0) -> pl.DataFrame:
    """4-player games where seat 0 holds card 3B and wins with logit(p) = logit(1/4) + slope (x - 3)
    and scores `points` per unit of x above 3 over the other seats: fair at exactly x = 3."""
    rng = np.random.default_rng(seed)
    rows = []
    luck = rng.normal(0, 5, deals)  # a deal effect shared by every value: pairing removes it
    for combo, x in enumerate(values):
        p = 1 / (1 + math.exp(-(math.log(1 / 3) + slope * (x - 3))))
        winner0 = rng.random(deals) < p
        other = rng.integers(1, 4, deals)
        for g in range(deals):
            for seat in range(4):
                win = float(winner0[g]) if seat == 0 else float(not winner0[g] and seat == other[g])
                total = 100 + luck[g] + (points * (x - 3) if seat == 0 else 0) + rng.normal(0, 3)
                rows.append((g, combo, seat, 4, total, win, 3 if seat == 0 else seat + 1,
                             "B" if seat == 0 else "A", x))
    return pl.DataFrame(rows, orient="row", schema={
        "game": pl.Int64, "combo": pl.Int32, "seat": pl.Int8, "players": pl.Int8, "total": pl.Float64,
        "win_share": pl.Float64, "setup_card": pl.Int8, "setup_side": pl.String, COLUMN: pl.Int64})


def test_curve_recovers_a_planted_relation():
    c = curve(planted(), KEY)
    assert c.where == "the seat holding setup card 3 side B" and c.fair == 0.25
    assert c.points["n"].to_list() == [3000] * 5
    assert c.win.low < 3 < c.win.high and c.win.high - c.win.low < 1.0
    assert c.score.low < 3 < c.score.high and c.score.high - c.score.low < 0.2
    slope = c.fits["win"].params[1]
    assert 0.4 < slope < 0.6
    # paired differences against the smallest value: +4 points per unit, the deal luck cancelled
    margin = c.points["margin_diff"].to_list()
    assert np.allclose(margin, [0, 4, 8, 12, 16], atol=0.5)
    widths = (c.points["margin_diff_high"] - c.points["margin_diff_low"]).to_list()[1:]
    assert all(0 < w < 0.6 for w in widths)


def test_no_relation_gives_no_crossing():
    c = curve(planted(deals=800, slope=0.0, points=0.0), KEY)
    assert not c.win.found and not c.score.found and c.win.slope_p > 0.05


def test_rows_must_be_named_for_card_values():
    """The hint said the results do not record card or colony ownership, which `bought` and
    `colony_tile1..5` do; the --where it suggests chooses the rows."""
    df = planted(deals=10).rename({COLUMN: "sweep_components_cards_I_Y_03_cost"})
    with pytest.raises(ReportError, match=r"It may touch any seat .* choose the rows with --where COLUMN=VALUE \(e.g. "
                                          r"--where policy_label=greedy or --where seat=0\)") as told:
        curve(df, "components.cards.I-Y-03.cost")
    assert "record" not in str(told.value)
    c = curve(df, "components.cards.I-Y-03.cost", where={"seat": "0"})
    assert c.where == "seat = 0"


def test_rows_held_in_one_deal_have_no_curve():
    """`balance suggest --curve-games 10` at 2 players: a side held in one deal only reached the fit's
    cluster correction, a division by zero (scripts/fuzz_inputs.py)."""
    with pytest.raises(ReportError, match="only 1 deal holds the rows fitted: a fit needs two or more"):
        curve(planted(deals=1), KEY)
    assert curve(planted(deals=2), KEY).points["n"].to_list() == [2] * 5


def test_deals_that_cannot_carry_a_fit_are_a_report_error_not_a_linear_algebra_one():
    """`report curve` of two keys on a 25-game run: statsmodels' clustered covariance met a singular
    matrix (an undetermined coefficient), which reached the user as `unexpected LinAlgError`."""
    import warnings

    from statsmodels.genmod import families
    from statsmodels.genmod.generalized_linear_model import GLM

    from hadara_sim.report.curve import clustered

    x = np.arange(8.0)
    tied = GLM(np.array([0, 1, 0, 1, 1, 0, 1, 0.0]), np.column_stack([np.ones(8), x, x]), family=families.Binomial())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ReportError, match="the 4 deals holding the rows cannot carry the fit"):
            clustered(tied, np.arange(8) % 4)


def test_rows_of_every_seat_have_no_curve_and_a_misspelt_column_has_a_suggestion():
    df = planted(deals=10).rename({COLUMN: "sweep_components_cards_I_Y_03_cost"})
    with pytest.raises(ReportError, match="the rows with players = 4 are every seat of each game.*--where seat=0"):
        curve(df, "components.cards.I-Y-03.cost", where={"players": "4"})
    # one policy on every seat: the hint offered the form just refused (--where policy_label=NAME)
    with pytest.raises(ReportError, match=r"policy_label = \S+ are every seat .*affects, e\.g\. --where seat=0$"):
        curve(df.with_columns(policy_label=pl.lit("balanced")), "components.cards.I-Y-03.cost",
              where={"policy_label": "balanced"})
    with pytest.raises(ReportError, match=r"--where seta: no such column \(did you mean seat\?\)"):
        curve(df, "components.cards.I-Y-03.cost", where={"seta": "0"})


def test_report_curve_on_a_tiny_run(tmp_path):
    """Coins of setup card 1A swept from 0 to 30 on 60 deals: the seat's margin rises with them."""
    from typer.testing import CliRunner

    from hadara_sim import simulate
    from hadara_sim.cli import app

    scenario = tmp_path / "tiny.toml"
    scenario.write_text('players = 2\npolicies = ["greedy"]\ngames = 60\nchunk = 60\n'
                        '[setup]\ncards = [1, 2]\n[sweep]\n"components.setup.1A.coins" = [0, 15, 30]\n')
    simulate(scenario, out=tmp_path / "res", jobs=1)
    result = CliRunner().invoke(app, ["report", "curve", str(tmp_path / "res"), "--out", str(tmp_path / "charts")],
                                env={"COLUMNS": "220"})
    assert result.exit_code == 0, result.output
    assert "the seat holding setup card 1 side A" in result.output and "score margin = 0" in result.output
    assert (tmp_path / "charts" / "curve-components-setup-1A-coins.png").stat().st_size > 5000
    assert "verdict vs 1/P" in result.output and "hold for the policy field played (greedy)" in " ".join(
        result.output.split())
    machine = CliRunner().invoke(app, ["report", "curve", str(tmp_path / "res"), "--out", str(tmp_path / "charts"),
                                       "--format", "csv"])
    assert machine.exit_code == 0, machine.output
    from test_cli_tables import assert_machine_numbers

    assert_machine_numbers(machine.stdout)
    doc = json.loads(CliRunner().invoke(app, ["report", "curve", str(tmp_path / "res"), "--out",
                                              str(tmp_path / "charts"), "--format", "json"]).stdout)
    fair = next(t for t in doc["tables"] if t["title"].startswith("Value at which"))["data"]
    assert {r["measure"] for r in fair} == {"win share = 1/P", "score margin = 0"}
    assert all(isinstance(r["fair_at"], (float, type(None))) for r in fair)
    bad = CliRunner().invoke(app, ["report", "curve", str(tmp_path / "res"), "--key", "players"])
    assert bad.exit_code == 2 and "not swept" in bad.output and "Traceback" not in bad.output
    twice = CliRunner().invoke(app, ["report", "curve", str(tmp_path / "res"), "-w", "seat=0", "-w", "seat=1"])
    assert twice.exit_code == 2 and "--where seat is given twice" in twice.output
    from test_hardening import clean_failure

    for given in ("99", "-1.5", "inf"):  # 99 was told as "reference 99.0", inf as an unexpected ValueError
        clean_failure(CliRunner().invoke(app, ["report", "curve", str(tmp_path / "res"), "--reference", given]), 2,
                      f"--reference {given} is not a swept value of components.setup.1A.coins: give one of 0, 15, 30")


def test_a_reference_not_swept_names_the_option_as_written_and_the_values_it_can_take():
    df = planted(deals=10)
    for given, shown in ((99, "99"), (99.0, "99"), (2.5, "2.5"), (math.inf, "inf")):
        with pytest.raises(ReportError, match=rf"^--reference {shown} is not a swept value of {KEY}: give one of "
                                              r"1, 2, 3, 4, 5, or leave --reference out"):
            curve(df, KEY, reference=given)
    assert curve(df, KEY, reference=3.0).reference == 3.0


def test_reports_group_by_a_dotted_swept_key():
    from hadara_sim.report.dataset import resolve_by

    assert resolve_by(planted(deals=2), [KEY]) == [COLUMN]


def test_only_component_values_are_curve_keys():
    """players and a setup grid's setup.card are numbers too, but they name settings to choose among:
    no curve over them means anything."""
    from hadara_sim.report.curve import curve_keys

    df = planted(deals=2).with_columns(sweep_players=pl.lit(4), sweep_setup_card=pl.col("setup_card"))
    combos = [{"index": i, "sweep": {"players": 4, "setup.card": 1 + i % 5, KEY: x}} for i, x in enumerate(range(1, 6))]
    assert curve_keys(df, combos) == [KEY]
    assert curve_keys(df.drop(COLUMN), [{"index": 0, "sweep": {"players": 4, "setup.card": 1}}]) == []


def test_a_run_without_a_swept_component_value_has_no_curve_and_is_told_which_run_makes_one(tmp_path, monkeypatch):
    """A setup grid over players and setup.card, even with the rows chosen as its hint used to ask."""
    from typer.testing import CliRunner

    from hadara_sim.cli import app
    from test_hardening import clean_failure
    import report_data as R

    combos = [{"index": c, "sweep": {"players": 2, "setup.card": card}} for c, card in enumerate((1, 2))]
    rows = [dict(game=g, seat=seat, players=2, combo=c, setup_card=card if seat == 0 else 3, setup_side="A",
                 win_share=float(seat == g % 2), total=100, policy_label="p")
            for c, card in enumerate((1, 2)) for g in range(4) for seat in range(2)]
    grid = R.write_results(R.frame(rows, combos), tmp_path / "grid", combos)
    for where in ([], ["--where", "seat=0"], ["--key", "setup.card"]):
        result = CliRunner().invoke(app, ["report", "curve", str(grid), *where, "--out", str(tmp_path / "charts")])
        clean_failure(result, 2, "no component value is swept in this dataset (it sweeps players, setup.card:",
                      "`hadara-sim simulate 3b-culture-coins` (two keys, a surface)")
    # each command it names runs as printed, from any folder (`simulate scenarios/...` named no program and
    # found no file outside the project's folder)
    import re
    import shlex

    monkeypatch.chdir(tmp_path)
    hints = re.findall(r"`(hadara-sim simulate [^`]+)`", " ".join(result.output.split()))
    assert len(hints) == 2
    for hinted in hints:
        program, *args = shlex.split(hinted)
        dry = CliRunner().invoke(app, [*args, "--dry-run", "--out", str(tmp_path / "r")])
        assert program == "hadara-sim" and dry.exit_code == 0 and "dry run" in dry.output, (hinted, dry.output)


def test_a_curve_of_one_key_of_two_says_what_it_pooled_over():
    from hadara_sim.report.curve import section
    from hadara_sim.report.dataset import dataset_info

    one = planted(deals=100)
    other = "sweep_components_setup_3B_coins"
    two = pl.concat([one.with_columns(pl.lit(k).alias(other), pl.col("combo") + 10 * i) for i, k in enumerate((3, 5))])
    s, c = section(two, dataset_info(two), KEY)
    assert c.pooled == [other]
    assert s.title == f"Curve of {KEY} (pooled over components setup 3B coins)"
    assert s.tables[0].title == f"{KEY}: the seat holding setup card 3 side B (pooled over components setup 3B coins)"
    s, c = section(one, dataset_info(one), KEY)
    assert c.pooled == [] and s.title == f"Curve of {KEY}"


def test_a_seat_that_never_won_is_charted():
    """Wilson's interval of no wins can start a rounding error above zero (1.4e-17 on a run of 7 deals):
    the chart's error bars start at the point, never below it."""
    from hadara_sim.report.curve import chart
    from hadara_sim.report.dataset import dataset_info

    df = planted(deals=20)
    c = curve(df, KEY)
    c.points = c.points.with_columns(win=pl.lit(0.0), win_low=pl.lit(1.3878e-17))
    assert chart(c, dataset_info(df)).get_axes()


def test_a_curve_s_arguments_of_the_wrong_kind_say_what_they_are():
    """From a notebook: a key None, a value "3", alpha 1.5 (a CI whose low end lay above its high end),
    a reference "3", where "seat=0" and describe(curve) stopped inside statsmodels or polars, or gave
    a wrong answer silently."""
    from hadara_sim.report.curve import describe, predict

    df = planted(deals=300)
    c = curve(df, KEY)
    assert predict(c, 3)[1] < predict(c, 3)[2]
    for call, kind, words in [
        (lambda: curve(df, None), TypeError, "a key is the text of a swept key"),
        (lambda: predict(c, "3"), TypeError, "value is a number, not str '3'"),
        (lambda: predict(c, 3, alpha=1.5), ValueError, "alpha is between 0 and 1"),
        (lambda: predict(c, 3, alpha=-0.1), ValueError, "alpha is between 0 and 1"),
        (lambda: curve(df, KEY, reference="3"), TypeError, "reference is a number"),
        (lambda: curve(df, KEY, where="seat=0"), TypeError, "where is a dict of column -> value"),
        (lambda: describe(c), TypeError, "describe takes a crossing, such as a curve's .win"),
        (lambda: curve(df.to_pandas(), KEY), TypeError, "polars.from_pandas"),
    ]:
        with pytest.raises(kind, match=words.replace("(", r"\(").replace(".", r"\.")):
            call()
    assert curve(df, KEY, where={"seat": 0}).where == "seat = 0"


def test_a_crossing_not_placed_says_why_and_calls_only_a_p_of_5_percent_or_more_not_significant():
    """'no crossing: the fitted slope is not significant (p = nan)' for a fit run off by a seat that (almost)
    never won, and '(p = 0.01)' for a significant slope whose crossing had no interval."""
    from hadara_sim.report.curve import Crossing, describe

    nan = math.nan
    assert "no slope to test" in describe(Crossing(nan, nan, nan, nan, False))
    assert describe(Crossing(nan, nan, nan, 0.01, False)).startswith(
        "no crossing: the slope (p = 0.01) gives the crossing no interval")
    assert describe(Crossing(nan, nan, nan, 0.3, False)) == "no crossing: the fitted slope is not significant (p = 0.3)"
    assert describe(Crossing(2.5, 2.0, 3.0, 0.001, False)) == "2.50 (95% CI 2.00 to 3.00)"


def test_the_fit_column_says_there_is_no_slope_to_test_rather_than_p_nan():
    """A seat that never won: the fit column read "logit GLM, slope p = nan"."""
    from hadara_sim.balance import candidate
    from hadara_sim.report.curve import section
    from hadara_sim.report.dataset import dataset_info

    df = planted(deals=50).with_columns(win_share=pl.when(pl.col("seat") == 0).then(0.0).otherwise(pl.col("win_share")))
    s, c = section(df, dataset_info(df), KEY)
    fits = {row[0]: row[2] for row in s.tables[1].rows}
    assert fits["win share = 1/P"] == "logit GLM, no slope to test"
    assert fits["score margin = 0"].startswith("linear, slope p = ")
    assert "nan" not in candidate("culture", 3, [1, 2, 3, 4, 5], c, 0.02, 100).note


def test_the_captions_give_the_level_of_every_interval():
    """csv and json carry the bounds (win_low_pct, fair_at_low, ...) and the captions, not the terminal's
    "95% CI" headers: the level of the fair value's CI, and of the margin's, was said nowhere there."""
    from hadara_sim.report.curve import section
    from hadara_sim.report.dataset import dataset_info

    df = planted(deals=50)
    s, _ = section(df, dataset_info(df), KEY)
    points, crossings = s.tables
    assert "95% Wilson CI" in points.caption and points.caption.count("95% t CI over deals") == 2
    assert "95% CI by the delta method" in crossings.caption


def test_a_degenerate_fit_draws_a_nan_band_without_numpy_s_warning():
    """A handful of deals where the seat won once: statsmodels' 'invalid value encountered in sqrt' reached the notebook."""
    import warnings

    import hadara_sim
    from hadara_sim.report.curve import describe

    key = "components.setup.5B.military"
    df = hadara_sim.simulate({"players": 2, "game": "advanced", "policies": ["balanced"], "games": 30, "chunk": 30,
                              "setup": {"sides": "random"}, "sweep": {key: [1, 3]}}, jobs=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        c = curve(df, key)
    assert "no slope to test" in describe(c.win)

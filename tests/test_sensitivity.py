"""Draws of the estimated component values (`hadara_sim.sensitivity`) and `balance sensitivity`:
exact values never move, every moved value stays in its kind's range, a draw is the same whatever
the number of draws, and the table counts the verdicts of the draws."""

import json
import math
import re

import numpy as np
import pytest
from typer.testing import CliRunner

from hadara_sim.balance import Side
from hadara_sim.report.verdict import Verdict
from hadara_sim.cli import app
from hadara_sim.component_files import load_components
from hadara_sim.balance import overlaid
from hadara_sim.sensitivity import _bounds, _card_kind, draw_overrides, draws, table

C = load_components()


def test_a_draw_moves_only_estimated_values_by_one_step_within_their_kind():
    cards = {c.id: c for c in C.cards}
    tiles = {t.id: t for t in C.colonies}
    moved = 0
    for seed in range(20):
        draw = draw_overrides(C, np.random.default_rng(seed))
        drawn = C.with_overrides(draw)  # every draw is a valid override table
        for card_id, values in draw.get("cards", {}).items():
            card = cards[card_id]
            old = {"cost": card.cost, "points": card.points, **dict(zip(("income", "military", "culture", "food"),
                                                                          card.values))}
            for name, v in values.items():
                moved += 1
                assert name not in card.exact, (card_id, name)
                assert abs(v - old[name]) == 1 and old[name] != 0 or name in ("cost", "points"), (card_id, name)
                assert abs(v - old[name]) <= 1
                low, high = _bounds(C.cards, lambda x: (x.epoch, _card_kind(x)), (name,))[((card.epoch, _card_kind(card)),
                                                                                           name)]
                assert low <= v <= high
        for tile_id, values in draw.get("colonies", {}).items():
            tile = tiles[tile_id]
            assert not set(values) & tile.exact
            new = drawn.colonies[tile.index]
            assert new.back_points >= new.front_points
        for name, values in draw.get("setup", {}).items():
            card = C.setup_cards[(int(name[0]), name[1])]
            assert not set(values) & card.exact
    assert moved > 1000  # it does move things


def test_draw_i_is_the_same_for_any_number_of_draws():
    assert draws(C, 3, seed=5) == draws(C, 6, seed=5)[:3]
    assert draws(C, 2, seed=5) != draws(C, 2, seed=6)


def test_the_users_own_overrides_stay_fixed_in_every_draw():
    user = {"setup": {"3B": {"culture": 2}}, "board": {"sell_price": [1, 2, 3]}}
    draw = {"setup": {"3B": {"culture": 6, "coins": 8}}, "cards": {"I-Y-01": {"cost": 3}}}
    assert overlaid(draw, user) == {"setup": {"3B": {"culture": 2, "coins": 8}}, "cards": {"I-Y-01": {"cost": 3}},
                                  "board": {"sell_price": [1, 2, 3]}}


# each verdict's words from its tests: (difference, q, q of the TOST)
TESTS = {"stronger": (0.1, 0.01, 1.0), "weaker": (-0.1, 0.01, 1.0), "fair within ±2 pp": (0.0, 1.0, 0.01),
         "undecided": (0.0, 1.0, 1.0)}


def _side(name, verdict, win):
    diff, q, q_equiv = TESTS[verdict]
    side = Side(int(name[0]), name[1], win, win - 0.05, win + 0.05, Verdict(diff, q, q_equiv, q, q_equiv, 100, 0.02, 2))
    assert side.judged.words == verdict
    return side


def test_the_table_counts_the_verdicts_of_the_draws():
    base = [_side("3B", "stronger", 0.5), _side("1A", "fair within ±2 pp", 0.25)]
    runs = [[_side("3B", "stronger", 0.45), _side("1A", "weaker", 0.2)],
            [_side("3B", "stronger", 0.55), _side("1A", "fair within ±2 pp", 0.26)],
            [_side("3B", "undecided", 0.30), _side("1A", "fair within ±2 pp", 0.24)],
            [_side("3B", "stronger", 0.50), _side("1A", "fair within ±2 pp", 0.25)]]
    rows = {r.side: r for r in table(base, runs)}
    assert rows["3B"].holds == 0.75 and rows["3B"].shares == {"stronger": 0.75, "undecided": 0.25}
    assert rows["1A"].holds == 0.75 and rows["1A"].shares["weaker"] == 0.25
    assert (rows["3B"].win_low, rows["3B"].win_high) == (np.percentile([0.45, 0.55, 0.3, 0.5], 5),
                                                          np.percentile([0.45, 0.55, 0.3, 0.5], 95))


def test_balance_sensitivity_prints_the_table_and_a_dry_run_plays_nothing():
    result = CliRunner().invoke(app, ["balance", "sensitivity", "-p", "2", "--draws", "2", "--games", "200",
                                      "--jobs", "1"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "under 2 draws of the estimated values" in result.output and "holds in" in result.output
    assert result.output.count("draw ") >= 2  # a progress line per draw where stderr is not a terminal
    for side in ("1A", "3B", "5B"):
        assert f"│ {side}" in result.output
    result = CliRunner().invoke(app, ["balance", "sensitivity", "-p", "2", "--draws", "4", "--dry-run"])
    assert result.exit_code == 0 and "5 runs" in result.output and "nothing was played" in result.output


def test_the_fair_value_spread_separates_the_estimates_from_the_games_noise():
    """Three draws whose fair values are 2.8, 3.0 and 3.4, each with a 95% CI of ±0.392 (SE 0.2): with
    noise the draws share entirely (the same influence of every deal) the estimates' spread is their
    sd; the games' noise is the SE, both together their root sum of squares; a whole value's share
    counts the draws in which it is fair."""
    from hadara_sim.sensitivity import FairDraw, FairSpread

    shared = {g: 0.2 / 10 * (-1) ** g for g in range(100)}  # sum of squares 0.04: SE 0.2

    def draw(i, x, fair, influence=shared):
        return FairDraw(i, x, x - 0.392, x + 0.392, False, fair, fair, influence)

    spread = FairSpread(draw(None, 3.0, [3]), [draw(1, 2.8, [3]), draw(2, 3.0, [3]), draw(3, 3.4, [3, 4])],
                        [1, 2, 3, 4, 5])
    assert spread.noise_in_spread == pytest.approx(0.0, abs=1e-12)
    assert spread.estimates_sd == pytest.approx(np.std([2.8, 3.0, 3.4], ddof=1))
    assert spread.sampling_se == pytest.approx(0.2, rel=1e-3)
    assert spread.total_sd == pytest.approx(np.hypot(spread.estimates_sd, spread.sampling_se))
    assert (spread.share(3), spread.share(4), spread.share(2)) == (1.0, pytest.approx(1 / 3), 0.0)
    # noise the draws do not share at all (each on deals of its own): its variance, 0.04, leaves the spread
    apart = [draw(i, x, [3], {100 * i + g: v for g, v in shared.items()}) for i, x in ((1, 2.8), (2, 3.0), (3, 3.4))]
    spread = FairSpread(draw(None, 3.0, [3]), apart, [1, 2, 3, 4, 5])
    assert spread.noise_in_spread == pytest.approx(0.04)
    assert spread.estimates_sd == pytest.approx(math.sqrt(np.var([2.8, 3.0, 3.4], ddof=1) - 0.04))


def test_with_fewer_than_two_crossings_the_estimates_spread_is_not_known():
    """No draw's fair value crossed (a small run, a flat curve): the spread of the estimates read 0.00,
    as if the estimates moved nothing, where there was no spread to measure."""
    from hadara_sim.sensitivity import FairDraw, FairSpread

    none = [FairDraw(i, math.nan, math.nan, math.nan, False, [], [], {}) for i in (None, 1, 2)]
    spread = FairSpread(none[0], none[1:], [2, 3, 4])
    assert math.isnan(spread.estimates_sd) and math.isnan(spread.total_sd)
    one = FairDraw(1, 3.0, 2.6, 3.4, False, [3], [3], {0: 0.2})
    assert math.isnan(FairSpread(none[0], [one, none[2]], [2, 3, 4]).estimates_sd)


def test_a_draw_s_per_deal_influences_give_its_cluster_robust_variance():
    """The crossing's per-deal influences sum in squares to the GLM's cluster-robust variance of the
    crossing (up to statsmodels' small-sample factor), on a planted curve."""
    from hadara_sim.report.curve import curve
    from hadara_sim.sensitivity import crossing_influence

    from test_report_curve import KEY, planted

    c = curve(planted(deals=400, values=(2, 3, 4), points=0.0), KEY)
    influence = crossing_influence(c)
    se = (c.win.high - c.win.low) / (2 * 1.959964)
    deals = len(influence)
    factor = deals / (deals - 1) * (3 * deals - 1) / (3 * deals - 2)
    assert math.sqrt(sum(v * v for v in influence.values()) * factor) == pytest.approx(se, rel=0.02)


def test_balance_sensitivity_fair_value_prints_every_draw_and_the_two_spreads():
    result = CliRunner().invoke(app, ["balance", "sensitivity", "-p", "3", "--draws", "1", "--games", "60",
                                      "--fair-value", "3B.culture", "--swept", "3,5", "--jobs", "1",
                                      "--format", "json"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout, parse_constant=lambda name: pytest.fail(f"not JSON: {name}"))
    per_draw, summary = doc["tables"]
    assert [r["draw"] for r in per_draw["data"]] == [None, 1]
    assert {r["measure"] for r in summary["data"]} >= {"observed_sd", "noise_in_spread_sd", "estimates_sd",
                                                       "sampling_se", "total_sd", "fair_share_4_pct"}
    # the shares of the draws in %, named so: a bare fair_share_4 of 1.0 sat among values of culture
    shares = [r["value"] for r in summary["data"] if r["measure"].endswith("_share_4_pct")]
    assert len(shares) == 2 and all(v in (0.0, 100.0) for v in shares)
    assert "a measure ending _pct is a share of the draws in %, the others are in culture" in summary["caption"]
    bad = CliRunner().invoke(app, ["balance", "sensitivity", "--fair-value", "3B.gold"])
    assert bad.exit_code == 2 and "expected a side and one of its values" in bad.output
    lower = CliRunner().invoke(app, ["balance", "sensitivity", "--fair-value", "3b.culture", "--dry-run"])
    assert lower.exit_code == 0 and "dry run" in lower.output, lower.output  # 3b is 3B, as for --side
    assert not re.search(r"\d{3,} s in all", lower.output), lower.output  # was 'about 347 s in all'
    alone = CliRunner().invoke(app, ["balance", "sensitivity", "--swept", "3,5", "--dry-run"])  # was ignored
    assert alone.exit_code == 2 and "give the value too, e.g. --fair-value 3B.culture --swept 3,5" in alone.output

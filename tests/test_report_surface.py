"""Two-key sweeps: the fitted surface recovers a planted one, and its fair line and pairs follow."""

import math

import numpy as np
import polars as pl
import pytest

from hadara_sim.report.surface import surface

KEY1, KEY2 = "components.setup.3B.culture", "components.setup.3B.coins"
B0, B1, B2 = -4.0, 0.5, 0.4   # planted: logit(win) = B0 + B1 culture + B2 coins (no product term)


def planted(deals=4000, seed=7) -> pl.DataFrame:
    """4-player rows: seat 0 holds 3B; its win chance follows the planted surface on every pair of
    culture 2..5 and coins 3..6, the same deals under every pair."""
    rng = np.random.default_rng(seed)
    rows = []
    cultures, coins = [2, 3, 4, 5], [3, 4, 5, 6]
    combo = 0
    for c in cultures:
        for k in coins:
            p = 1 / (1 + math.exp(-(B0 + B1 * c + B2 * k)))
            wins = rng.random(deals) < p
            for seat in range(4):
                rows.append(pl.DataFrame({
                    "combo": combo, "game": np.arange(deals), "seat": seat, "players": 4,
                    "setup_card": 3 if seat == 0 else seat + 1, "setup_side": "B" if seat == 0 else "A",
                    "win_share": np.where(wins, 1.0, 0.0) if seat == 0 else np.where(wins, 0.0, 1 / 3),
                    "total": rng.normal(140, 10, deals), "sweep_components_setup_3B_culture": c,
                    "sweep_components_setup_3B_coins": k}))
            combo += 1
    return pl.concat(rows)


def test_the_fit_recovers_a_planted_surface_and_its_fair_line():
    s = surface(planted(), KEY1, KEY2)
    low, high = s.fit.conf_int(alpha=0.01).T
    for true, lo, hi in zip([B0, B1, B2, 0.0], low, high):
        assert lo < true < hi
    target = math.log(0.25 / 0.75)
    for r in s.line.to_dicts():  # the true fair coins for this culture lies in the line's CI
        true = (target - B0 - B1 * r["value1"]) / B2
        assert r["fair_value2_low"] < true < r["fair_value2_high"], r
        assert r["extrapolated"] == (not 3 <= r["fair_value2"] <= 6), r  # coins were swept over 3..6
    assert s.interaction_p > 0.001  # no product term was planted
    for r in s.fair_pairs.to_dicts():  # a pair called fair is near the planted fair share
        win = 1 / (1 + math.exp(-(B0 + B1 * r["value1"] + B2 * r["value2"])))
        assert abs(win - 0.25) < 0.02 + 0.01


def test_the_fair_pairs_write_their_bounds_as_shares_and_every_caption_its_level():
    """The fair pairs' 90% CI bounds of the fitted win share went to csv and json as low_pp and high_pp,
    the unit of a difference; the cells' and the fair line's CIs had no level in their captions."""
    from hadara_sim.report.dataset import dataset_info
    from hadara_sim.report.surface import section

    df = planted()
    out, s = section(df, dataset_info(df), KEY1, KEY2, margin=0.05)
    cells, line, pairs = out.tables
    assert s.fair_pairs.height  # some pair within 5 pp of the planted fair share
    written = pairs.machine()
    assert {"win_pct", "win_low_pct", "win_high_pct"} <= set(written.columns)
    assert not [c for c in written.columns if c.endswith("_pp")]
    assert (written["win_low_pct"] <= written["win_pct"]).all() and (written["win_pct"] <= written["win_high_pct"]).all()
    assert "95% Wilson CI" in cells.caption and "95% CI by the delta method" in line.caption


def test_the_two_keys_and_their_values_are_named_in_csv_and_json_as_a_curve_names_its_key():
    """The surface's tables wrote the swept values as x1 and x2 (and the fair line x2_low, x2_high): which
    key each was of, csv and json did not say. Each value sits beside its key, as a curve's `value`
    beside its `key`."""
    from hadara_sim.report.curve import section as curve_section
    from hadara_sim.report.dataset import dataset_info
    from hadara_sim.report.surface import section

    from test_report_curve import KEY, planted as planted_curve

    df = planted()
    out, _ = section(df, dataset_info(df), KEY1, KEY2, margin=0.05)
    cells, line, pairs = (t.machine() for t in out.tables)
    for written in (cells, pairs):
        assert written.columns[:4] == ["key1", "value1", "key2", "value2"], written.columns
    assert line.columns[:6] == ["key1", "value1", "key2", "fair_value2", "fair_value2_low", "fair_value2_high"]
    for written in (cells, line, pairs):
        assert set(written["key1"]) == {KEY1} and set(written["key2"]) == {KEY2}
        assert not {"x1", "x2"} & set(written.columns) and not [c for c in written.columns if c.startswith("x2_")]
    one = planted_curve(deals=50)
    points, crossings = (t.machine() for t in curve_section(one, dataset_info(one), KEY)[0].tables)
    assert points.columns[:2] == ["key", "value"] and set(points["key"]) == set(crossings["key"]) == {KEY}


def test_keys_of_different_card_sides_need_where():
    from hadara_sim.report.dataset import ReportError

    df = planted(200).with_columns(pl.col("sweep_components_setup_3B_coins").alias("sweep_components_setup_2A_coins"))
    with pytest.raises(ReportError, match="different setup card sides"):
        surface(df, KEY1, "components.setup.2A.coins")



def test_a_surface_of_one_key_twice_points_to_its_curve():
    """surface(df, K, K) stopped inside polars with a DuplicateError."""
    from hadara_sim.report.dataset import ReportError

    with pytest.raises(ReportError, match="a surface is over two different keys, got .* twice: its curve is"):
        surface(planted(deals=50), KEY1, KEY1)

def test_balance_proposes_the_cheapest_fair_pair_of_a_surface():
    """`balance.pair_candidate` picks, among the fair whole pairs, the one of smallest worth
    (coins count 1 a step, culture 1): on the planted surface, the fair pair nearest today's 5 / 6."""
    from hadara_sim.balance import Candidate, pair_candidate

    s = surface(planted(), KEY1, KEY2, margin=0.04)
    culture, coins = Candidate("culture", 5, [5, 4, 3, 2], None), Candidate("coins", 6, [6, 5, 4, 3], None)
    pair = pair_candidate(culture, coins, s, 0.04)
    fair = s.fair_pairs.to_dicts()
    assert fair and pair.value is not None
    cheapest = min(abs(r["value1"] - 5) + abs(r["value2"] - 6) for r in fair)
    assert pair.worth == cheapest and (pair.value[0], pair.value[1]) in {(r["value1"], r["value2"]) for r in fair}
    assert pair.low > 0.21 and pair.high < 0.29
    nothing = pair_candidate(culture, coins, surface(planted(), KEY1, KEY2, margin=0.0001), 0.0001)
    assert nothing.value is None and "no swept pair" in nothing.note and "shown fair" in nothing.note


def test_a_surface_too_large_to_list_is_refused_before_its_grid_is_made():
    """Values [0, 1e5] of both keys would be 1e10 whole-value pairs (74.5 GiB on f37aba5)."""
    from hadara_sim.report.dataset import ReportError

    df = planted(200).with_columns(pl.col("sweep_components_setup_3B_culture") * 25_000 - 50_000,
                                   pl.col("sweep_components_setup_3B_coins") * 25_000 - 75_000)
    with pytest.raises(ReportError, match="whole-value pairs, more than the 40,000 a surface lists; sweep narrower"):
        surface(df, KEY1, KEY2)


def test_a_repeated_key_and_a_reference_with_two_keys_are_refused(tmp_path):
    from typer.testing import CliRunner

    from hadara_sim.cli import app

    for extra, message in ((["--key", KEY1, "--key", KEY1], "is given twice"),
                           (["--key", KEY1, "--key", KEY2, "--reference", "99"], "--reference is for the curve")):
        result = CliRunner().invoke(app, ["report", "curve", str(tmp_path), *extra], env={"COLUMNS": "200"})
        assert result.exit_code == 2 and message in " ".join(result.output.split())


def test_one_key_of_a_two_key_sweep_draws_its_curve_when_the_other_holds_one_value(tmp_path):
    """Found by the fuzz campaign: rows without a policy label (a hand-made dataset) ended the curve in a
    TypeError where its caption names the policy field."""
    from typer.testing import CliRunner

    from hadara_sim.cli import app
    from input_strategies import KEYS, two_key_run

    out = two_key_run(tmp_path / "run", [3], [1, 2, 3])
    result = CliRunner().invoke(app, ["report", "curve", str(out), "--key", KEYS[1], "--out", str(tmp_path / "c")],
                                env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "Value at which the seat is fair" in result.output
    result = CliRunner().invoke(app, ["report", "curve", str(out), "--key", KEYS[0]], env={"COLUMNS": "200"})
    assert result.exit_code == 2 and "takes one value only" in result.output


def test_a_surface_of_two_keys_of_three_says_what_it_pooled_over():
    from hadara_sim.report.dataset import dataset_info
    from hadara_sim.report.surface import section

    two = planted(300)
    third = "sweep_components_setup_3B_food"
    three = pl.concat([two.with_columns(pl.lit(k).alias(third), pl.col("combo") + 100 * i) for i, k in enumerate((1, 2))])
    out, s = section(three, dataset_info(three), KEY1, KEY2)
    assert s.pooled == [third]
    assert out.title == f"Surface of {KEY1} and {KEY2} (pooled over components setup 3B food)"
    assert out.tables[0].title.endswith("(pooled over components setup 3B food)")
    assert surface(two, KEY1, KEY2).pooled == []

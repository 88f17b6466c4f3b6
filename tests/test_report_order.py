"""A report's means do not depend on the order of the rows: a polars group_by summed a group's floats
in an order set by its threads and by the order of its input, so that `report cards` on a setup-cards
run (each deal played in 40 combinations) printed colony-tile and statue rows that differed in their
last bits from one run to the next. The same rows shuffled must give the same bits."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from hadara_sim import load_results, simulate
from hadara_sim.report import cards as K
from hadara_sim.report.estimates import group_means, mean_ci, mean_cis, paired_diffs

from test_cards import COMPONENTS
from test_cards import _planted as planted

SEEDS = (1, 2, 3)


def _shuffled(df: pl.DataFrame, seed: int) -> pl.DataFrame:
    return df.sample(fraction=1.0, shuffle=True, seed=seed)


def _same(a: pl.DataFrame, b: pl.DataFrame):
    assert_frame_equal(a, b, check_exact=True)  # every bit: a report printed twice is the same file


def _deals(rng: np.random.Generator, deals: int = 300, combos: int = 7) -> pl.DataFrame:
    """Seats of `deals` deals, each played in `combos` combinations: several rows per deal and group,
    with values whose sum depends on the order in which it is taken."""
    n = deals * combos * 2
    return pl.DataFrame({"game": np.tile(np.repeat(np.arange(deals), 2), combos),
                         "combo": np.repeat(np.arange(combos), deals * 2),
                         "group": rng.integers(0, 3, n), "label": rng.choice(["x", "y"], n),
                         "a": rng.random(n) * 100, "b": rng.random(n) * 100})


def test_group_means_depend_on_the_values_only():
    """The mean of each group, nulls skipped (null where a group has none, as polars' mean), the
    same to the bit whatever the order of the rows, sorted as polars sorts the keys: integers, or
    strings, numbers (NaN among them) and booleans with missing values (numbered in their order for
    numpy to sort: polars' sort of a card-worth run's text keys took most of its summary's time)."""
    rng = np.random.default_rng(0)
    n = 20000
    df = pl.DataFrame({"k": rng.integers(0, 30, n), "s": rng.choice(["a", "b", "c"], n), "x": rng.random(n) * 100})
    f = [None if i % 9 == 0 else v for i, v in enumerate(rng.choice([0.5, np.nan, -1.0, 2.0], n).tolist())]
    df = df.with_columns(pl.Series("f", f, pl.Float64), (pl.col("k") % 3 == 0).alias("t"))
    df = df.with_columns(pl.when(pl.col("s") == "c").then(None).otherwise("s").alias("s"),
                         pl.when(pl.col("k") == 5).then(None).otherwise("t").alias("t"),
                         pl.when((pl.col("x") < 20) | (pl.col("k") == 7)).then(None).otherwise(pl.col("x") / 7).alias("y"))
    values = {"x": "x", "y": "y", "xy": pl.col("x") - pl.col("y")}
    for keys in (["f", "t", "s"], ["s", "k"], ["k"]):
        want = group_means(df, keys, values, rows="rows")
        for seed in SEEDS:
            _same(group_means(_shuffled(df, seed), keys, values, rows="rows"), want)
        polars = (df.group_by(keys).agg(*[(pl.col(v) if isinstance(v, str) else v).mean().alias(k)
                                          for k, v in values.items()], pl.len().alias("rows"))
                  .sort(keys, nulls_last=True))
        assert_frame_equal(want, polars, check_exact=False, rel_tol=1e-12, check_dtypes=False)
    assert want.filter(pl.col("k") == 7)["y"].is_null().all()  # no value: null, as polars' mean


@pytest.mark.parametrize("by", [["label", "group"], []])
def test_the_means_of_several_values_at_once_are_those_of_each_alone(by):
    """A score sheet's eleven lines take their deal means once (`mean_cis`), each table to the bit
    that of `mean_ci` on its own, with a fair value too."""
    df = _deals(np.random.default_rng(4)).with_columns(pl.when(pl.col("a") < 10).then(None).otherwise("b").alias("c"))
    values = ["a", "c", pl.col("b") / 100]
    for got, value in zip(mean_cis(df, values, by), values):
        _same(got, mean_ci(df, value, by))
    fair = pl.col("a") / 200
    for got, value in zip(mean_cis(df, values[2:], by, fair=fair, rate=True), values[2:]):
        _same(got, mean_ci(df, value, by, fair=fair, rate=True))


@pytest.mark.parametrize("by", [["group"], ["label", "group"], []])
def test_a_deals_mean_over_several_rows_does_not_depend_on_their_order(by):
    """`mean_ci` and `paired_diffs` average each deal's rows (several combinations of one deal) first:
    the same rows in another order give the same table to the bit."""
    df = _deals(np.random.default_rng(1))
    fair = pl.col("b") / 100
    want = (mean_ci(df, "a", by), mean_ci(df, pl.col("a") / 100, by, fair=fair),
            *paired_diffs(df, [("a", "b", "", 2.0), ("b", "a", "r_", None)], by))
    for seed in SEEDS:
        rows = _shuffled(df, seed)
        got = (mean_ci(rows, "a", by), mean_ci(rows, pl.col("a") / 100, by, fair=fair),
               *paired_diffs(rows, [("a", "b", "", 2.0), ("b", "a", "r_", None)], by))
        for a, b in zip(got, want):
            _same(a, b)


def test_takers_against_the_others_of_several_combinations_do_not_depend_on_row_order():
    """The colony and statue rows that differed: each game's takers and other seats, averaged over
    the combinations of its deal, the same to the bit whatever the order of the seats."""
    rng = np.random.default_rng(3)
    deals, combos, seats, statues = 200, 4, 3, 4
    n = deals * combos * seats * statues
    combo, game, seat, statue = (a.ravel() for a in np.meshgrid(np.arange(combos), np.arange(deals), np.arange(seats),
                                                                 np.arange(1, statues + 1), indexing="ij"))
    per_seat = pl.DataFrame({"combo": combo, "game": game, "seat": seat, "statue": statue.astype(np.int8),
                             "took": rng.random(n) < 0.4, "win_share": rng.random(n), "total": rng.random(n) * 80})
    want = K._takers_vs_others([per_seat], "statue")
    assert want["n"].min() > 100  # deals with takers and others in several combinations
    for seed in SEEDS:
        _same(K._takers_vs_others([_shuffled(per_seat, seed)], "statue"), want)


def test_the_card_table_of_several_combinations_is_the_same_on_every_call_and_row_order():
    """The card table's buyers against passers, averaged over the combinations of each deal: on the
    same rows it changed its last bits from one call to the next."""
    strong, weak = COMPONENTS.card_index["I-B-01"], COMPONENTS.card_index["I-R-02"]
    one = planted(300, strong, weak)
    rng = np.random.default_rng(4)
    df = pl.concat([one.with_columns(pl.lit(c, one.schema["combo"]).alias("combo"),
                                     pl.Series("win_share", rng.random(one.height))) for c in range(3)])
    want = K.card_table(df, COMPONENTS)
    for seed in SEEDS:
        _same(K.card_table(df, COMPONENTS), want)
        _same(K.card_table(_shuffled(df, seed), COMPONENTS), want)


@pytest.fixture(scope="module")
def setup_run(tmp_path_factory):
    """A small real setup grid: every deal played in 10 combinations (5 cards x 2 sides)."""
    out = tmp_path_factory.mktemp("order") / "grid"
    simulate({"name": "grid", "games": 16, "chunk": 8, "seed": 3, "players": 3, "game": "advanced",
              "policies": ["balanced"], "setup": {"cards": "grid", "sides": "grid", "focus_seat": "rotate"}},
             out=out, jobs=1, quiet=True)
    return load_results(out)


@pytest.mark.parametrize("table", [K.card_table, K.colony_table, K.statue_table])
def test_the_card_colony_and_statue_tables_of_a_multi_combination_run_do_not_depend_on_row_order(setup_run, table):
    """The rows `report cards` printed with other last bits on every run: each deal's takers and
    other seats averaged over its combinations, and the mean win share of a policy the card table
    adjusts by, summed in a fixed order."""
    want = table(setup_run, COMPONENTS)
    assert want.height
    for seed in SEEDS:
        _same(table(_shuffled(setup_run, seed), COMPONENTS), want)


def test_the_fair_costs_of_restricted_play_do_not_depend_on_the_order_of_the_pairs():
    """`report cards`' fair costs average each deal's pairs (several seats, several values of other
    swept keys) first; the pairs come out of a join, in no fixed order: the same bits in any order."""
    from hadara_sim.report import worth as W

    rng = np.random.default_rng(5)
    deals, copies = 400, 6
    n = deals * copies * 3
    pairs = pl.DataFrame({"card_id": "II-B-02", "players": np.int8(4),
                          "cost_change": np.repeat(np.array([-2, 0, 2], np.int8), deals * copies),
                          "game": np.tile(np.arange(deals), copies * 3), "seat": np.tile(np.arange(n // 3) % 4, 3),
                          "win_seek": rng.random(n), "win_avoid": rng.random(n),
                          "total_seek": rng.random(n) * 90, "total_avoid": rng.random(n) * 90})
    want = W.fair_costs(pairs, COMPONENTS)
    for seed in SEEDS:
        _same(W.fair_costs(_shuffled(pairs, seed), COMPONENTS), want)

"""The round robin of policies (hadara_sim/round_robin.py, scripts/round_robin.py): its designs, its
Bradley-Terry ratings recovering a planted strength order, and the same seed giving the same table."""

import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from hadara_sim import load_components
from hadara_sim.registry import make_policy
from hadara_sim.round_robin import design_rates, designs, modelled, ratings, round_robin, seat_table

sys.path.insert(0, str(Path(__file__).parents[1] / "scripts"))
import round_robin as script  # noqa: E402


def test_every_pair_meets_one_against_the_rest_both_ways_and_half_and_half_at_four():
    five = list("abcde")
    assert len(designs(five, 2)) == 10 and {k for *_, k in designs(five, 2)} == {"1 v 1"}
    four = designs(five, 4)
    assert len(four) == 20 + 10
    assert ("a", "b", "1 v 3") in four and ("b", "a", "1 v 3") in four and ("a", "b", "2 + 2") in four
    assert {k for *_, k in designs(five, 3)} == {"1 v 2"}  # no half and half at an odd count


def test_seats_rotate_one_seat_of_a_or_half_the_seats():
    one = seat_table("1 v 3", 8, 4)
    assert (one == 0).sum(axis=1).tolist() == [1] * 8
    assert np.bincount(np.argmin(one, axis=1), minlength=4).tolist() == [2, 2, 2, 2]
    half = seat_table("2 + 2", 8, 4)
    assert (half == 0).sum(axis=1).tolist() == [2] * 8 and (half == 0).sum(axis=0).tolist() == [4] * 4


def planted(strength: dict[str, float], players: int, games: int, seed: int) -> pl.DataFrame:
    """A round robin's seat rows where each seat finishes in the order of its policy's strength plus
    Gumbel noise (a Plackett-Luce game: one policy finishes ahead of another with chance
    logistic(s_a - s_b), the Bradley-Terry model)."""
    rng = np.random.default_rng(seed)
    frames = []
    for number, (a, b, kind) in enumerate(designs(list(strength), players)):
        table = seat_table(kind, games, players)
        value = np.where(table == 0, strength[a], strength[b]) + rng.gumbel(size=table.shape)
        rank = 1 + (value[:, None, :] > value[:, :, None]).sum(axis=2)
        frames.append(pl.DataFrame({
            "players": players, "design": number, "a": a, "b": b, "kind": kind,
            "game": np.repeat(np.arange(games), players), "seat": np.tile(np.arange(players), games),
            "policy_label": np.where(table == 0, a, b).ravel(), "rank": rank.ravel(),
            "win_share": (rank == 1).ravel().astype(float)}))
    return pl.concat(frames)


@pytest.mark.parametrize("players", [2, 4])
def test_the_ratings_recover_a_planted_strength_order(players):
    strength = {"weak": -0.6, "middling": 0.0, "strong": 0.3, "best": 0.9}
    rated = ratings(planted(strength, players, 400, seed=players), players)
    assert rated["policy"].to_list() == ["best", "strong", "middling", "weak"]
    centre = np.mean(list(strength.values()))
    for r in rated.iter_rows(named=True):
        assert r["low"] < strength[r["policy"]] - centre < r["high"]
        assert r["high"] - r["low"] > 0


def test_a_fair_pool_gives_each_design_its_fair_share_within_the_interval():
    rates = design_rates(planted({"x": 0.0, "y": 0.0}, 4, 600, seed=5), 4)
    assert sorted(rates["fair"].to_list()) == [0.25, 0.25, 0.5]
    assert all(lo < fair < hi for lo, fair, hi in zip(rates["low"], rates["fair"], rates["high"]))


def test_a_tiny_round_robin_plays_end_to_end_and_the_same_seed_gives_the_same_table():
    c = load_components()
    pool = lambda: {n: make_policy(n, seed=k) for k, n in enumerate(["random", "greedy", "balanced"])}  # noqa: E731
    first = round_robin(c, pool(), (2, 4), games=8, seed=3)
    again = round_robin(c, pool(), (2, 4), games=8, seed=3)
    assert first.equals(again)
    text = script.tables(first, [2, 4])
    assert text == script.tables(again, [2, 4])
    assert "2 players: Bradley-Terry" in text and "4 players: Bradley-Terry" in text and "2 + 2" in text
    # 3 designs at 2 players, 6 + 3 at 4, each on deals 0..7 of its player count
    assert first.group_by("players").agg(pl.col("design").n_unique()).sort("players")["design"].to_list() == [3, 9]
    assert first.filter(pl.col("players") == 4)["game"].max() == 7


def test_search_models_exactly_the_policy_it_plays_its_copies_with_and_those_designs_can_be_left_out():
    """search with the expert's rollouts models the expert exactly (same policy, same parameters), not
    an expert of other parameters nor balanced; search with balanced rollouts models balanced; the
    ratings without a pair's designs are those of the frame without its rows."""
    pool = {"expert": make_policy("expert"), "balanced": make_policy("balanced"),
            "search (expert)": make_policy("search"), "search (balanced)": make_policy("search", rollout="balanced"),
            "expert, other": make_policy("expert", rival_weight=1.5)}
    assert modelled(pool) == {("search (expert)", "expert"), ("search (balanced)", "balanced")}
    frame = planted({"x": 1.0, "y": 0.0, "z": -1.0}, 2, 400, seed=9)
    without = ratings(frame, 2, {("x", "y")})
    kept = frame.filter(~((pl.col("a") == "x") & (pl.col("b") == "y")) & ~((pl.col("a") == "y") & (pl.col("b") == "x")))
    assert without.equals(ratings(kept, 2))
    assert not without.equals(ratings(frame, 2))
    text = script.tables(frame, [2], frozenset({("x", "y")}))
    assert "without the designs where a policy models its opponent exactly (x v y" in text


def test_a_designs_share_does_not_depend_on_the_order_of_the_rows():
    """a's share is the mean over games of its seats' win shares summed per game: the games came out of
    a polars group_by in no fixed order, and the mean of shares that are not whole numbers (ties)
    changed its last bits with that order."""
    frame = planted({"x": 0.0, "y": 0.0}, 4, 600, seed=5)
    frame = frame.with_columns(pl.Series("win_share", np.random.default_rng(7).random(frame.height)))
    want = design_rates(frame, 4)
    for seed in (1, 2, 3):
        got = design_rates(frame.sample(fraction=1.0, shuffle=True, seed=seed), 4)
        assert got.sort("a", "b", "kind").equals(want.sort("a", "b", "kind"))

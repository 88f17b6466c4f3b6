"""The rules the compiled engine and the bots' kernels share (hadara_sim/rules.py), on hand-worked
numbers; both call these helpers, so a changed ruling reaches the bots' valuations too."""

from collections import namedtuple

import numpy as np
import pytest

from hadara_sim import rules
from hadara_sim.component_files import load_components
from hadara_sim.constants import (
    EFFECT_IDS, EFFECT_INDEX, MEDAL_DISCOUNT_GOLD, MEDAL_DISCOUNT_SILVER, REQUIREMENT_CUT, SELL_BONUS,
)

State = namedtuple("State", ("colour_count", "effects"))


def state(counts=(0, 0, 0, 0, 0), *effects) -> State:
    """One game, one seat: its count of each colour and its purple effects."""
    owned = np.zeros((1, 1, len(EFFECT_IDS)), np.bool_)
    for name in effects:
        owned[0, 0, EFFECT_INDEX[name]] = True
    return State(np.array(counts, np.int16).reshape(1, 1, 5), owned)


@pytest.fixture(scope="module")
def c():
    return load_components()


def test_a_card_costs_its_price_less_one_per_owned_card_of_its_colour_never_below_zero(c):
    t = c.compiled
    card = int(np.flatnonzero(c.card_cost >= 3)[0])
    colour, cost = int(c.card_colour[card]), int(c.card_cost[card])
    counts = [0] * 5
    assert rules.card_price(state(counts), t, 0, 0, card) == cost
    counts[colour] = 2
    assert rules.card_price(state(counts), t, 0, 0, card) == cost - 2
    counts[colour] = cost + 5
    assert rules.card_price(state(counts), t, 0, 0, card) == 0
    assert rules.price_for(5, 2.0) == 3.0  # a position only imagined counts its cards as floats


def test_selling_pays_the_epochs_price_and_one_more_with_sell_bonus(c):
    t = c.compiled
    for epoch in (1, 2, 3):
        assert rules.sale_price(state(), t, 0, 0, epoch) == c.sell[epoch - 1]
        assert rules.sale_price(state((0,) * 5, "sell_bonus"), t, 0, 0, epoch) == c.sell[epoch - 1] + SELL_BONUS


def test_medal_discount_lowers_medal_prices_from_epoch_two(c):
    t = c.compiled
    discount = state((0,) * 5, "medal_discount")
    assert rules.medal_prices(discount, t, 0, 0, 1) == (c.silver_price[0], c.gold_price[0])
    for epoch in (2, 3):
        assert rules.medal_prices(state(), t, 0, 0, epoch) == (c.silver_price[epoch - 1], c.gold_price[epoch - 1])
        assert rules.medal_prices(discount, t, 0, 0, epoch) == (MEDAL_DISCOUNT_SILVER[epoch],
                                                                 MEDAL_DISCOUNT_GOLD[epoch])


def test_a_track_lacks_the_requirement_less_its_value_and_requirement_cut_lowers_it():
    assert rules.lacking(12, False, 9) == 3
    assert rules.lacking(12, False, 15) == 0
    assert rules.lacking(12, True, 6) == 12 - REQUIREMENT_CUT - 6
    assert rules.lacking(12, True, 9.0) == 0.0


Seat = namedtuple("Seat", ("effects", "tracks", "coins"))


@pytest.mark.parametrize("effects,coins,budget,expected", [
    ((), 50, 30, (9, False)),                                        # short 3, no requirement_purchase
    (("requirement_purchase",), 50, 30, (9, True)),                  # 3 coins per missing point
    (("requirement_purchase",), 8, 30, (9, False)),                  # not enough coins
    (("requirement_purchase",), 50, 8, (9, False)),                  # over the step's budget
    (("requirement_purchase", "requirement_cut"), 50, 30, (0, True)),  # 4 lower: met
])
def test_a_requirement_is_met_or_bought_at_three_coins_a_point_within_the_budget(effects, coins, budget, expected):
    """A statue of requirement 12 for culture 9 (RULINGS 6: requirement_purchase, the double-action budget)."""
    seat = Seat(state((0,) * 5, *effects).effects, np.array([[[0, 0, 9, 0]]], np.int16),
                np.array([[coins]], np.int32))
    cost, reachable = rules.requirement_payment(seat, 0, 0, 12, 2, budget)
    assert (cost, bool(reachable)) == expected


@pytest.mark.parametrize("counts,wildcard,sets", [
    ((2, 2, 2, 2, 2), False, 2),
    ((3, 1, 2, 2, 4), False, 1),
    ((3, 1, 2, 2, 4), True, 2),     # one gap (the second red): the wildcard fills it
    ((3, 0, 2, 0, 4), True, 0),     # two gaps in the first set: a wildcard fills only one
    ((0, 0, 0, 0, 0), False, 0),
])
def test_complete_sets_count_five_colours_and_a_wildcard_fills_one_gap(counts, wildcard, sets):
    assert rules.complete_sets(state(counts), 0, 0, wildcard) == sets

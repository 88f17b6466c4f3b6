"""The rules both the compiled engine and the bots' compiled decisions apply, each once.

Each helper reads the state through `s` and the component arrays through `t` by field name, so the
engine passes its `Arrays` and a bot's kernel its view (the same fields, in dtypes that give the same
numbers), both with the component set's `compiled` arrays; a kernel valuing a position it only
imagines passes plain numbers to the helpers that take them. The reference engine states the same rules apart, on purpose
(the twin the compiled engine is checked against).
"""

from __future__ import annotations

import numpy as np
from numba import njit

import hadara_sim.jit_cache  # noqa: F401  (drops numba's cached code when its sources changed)

from .constants import (
    EFFECT_INDEX, MEDAL_DISCOUNT_GOLD, MEDAL_DISCOUNT_SILVER, REQUIREMENT_CUT, REQUIREMENT_PRICE, SELL_BONUS,
)

# A line or two each, called inside the engine's and the kernels' loops: LLVM inlines them where they
# are called (inlining them at numba's IR level too cost compile time and gained no speed).
rule = njit(cache=True, _nrt=False)

SELL_BONUS_EFFECT = EFFECT_INDEX["sell_bonus"]
DISCOUNT_EFFECT = EFFECT_INDEX["medal_discount"]
CUT_EFFECT = EFFECT_INDEX["requirement_cut"]
PURCHASE_EFFECT = EFFECT_INDEX["requirement_purchase"]
# Discounted medal prices by epoch (medal_discount applies from epoch II; index 0 is unused).
DISCOUNT_SILVER = np.array([0, 0, MEDAL_DISCOUNT_SILVER[2], MEDAL_DISCOUNT_SILVER[3]])
DISCOUNT_GOLD = np.array([0, 0, MEDAL_DISCOUNT_GOLD[2], MEDAL_DISCOUNT_GOLD[3]])


@rule
def price_for(cost, owned):
    """A card's printed cost less 1 per owned card of its colour, never below 0."""
    return max(0, cost - owned)


@rule
def card_price(s, t, g, seat, card):
    """What seat pays for `card` in game g (`price_for` its colour count)."""
    return price_for(t.card_cost[card], s.colour_count[g, seat, t.card_colour[card]])


@rule
def sale_price(s, t, g, seat, epoch):
    """Coins for selling a card: the epoch's price, SELL_BONUS more with sell_bonus."""
    return t.sell[epoch - 1] + SELL_BONUS * s.effects[g, seat, SELL_BONUS_EFFECT]


@rule
def medal_prices(s, t, g, seat, epoch):
    """Silver and gold prices this epoch (medal_discount lowers them in epochs II and III)."""
    if epoch > 1 and s.effects[g, seat, DISCOUNT_EFFECT]:
        return DISCOUNT_SILVER[epoch], DISCOUNT_GOLD[epoch]
    return t.silver_price[epoch - 1], t.gold_price[epoch - 1]


@rule
def lacking(requirement, cut, track):
    """Points a track lacks to meet a requirement (REQUIREMENT_CUT lower with requirement_cut)."""
    return max(0, requirement - REQUIREMENT_CUT * cut - track)


@rule
def requirement_payment(s, g, seat, requirement, track, budget):
    """(coins to pay, reachable): 0 if the track meets the requirement (`lacking`); with
    requirement_purchase REQUIREMENT_PRICE coins per missing point, within the step's budget."""
    missing = lacking(requirement, s.effects[g, seat, CUT_EFFECT], s.tracks[g, seat, track])
    if missing == 0:
        return 0, True
    cost = REQUIREMENT_PRICE * missing
    return cost, (cost <= min(budget, s.coins[g, seat])) & s.effects[g, seat, PURCHASE_EFFECT]


@rule
def complete_sets(s, g, seat, wildcard):
    """Sets of 5 differently coloured cards; a wildcard (gold_wildcard) fills one gap in one set."""
    colours = s.colour_count.shape[2]
    sets = s.colour_count[g, seat, 0]
    for colour in range(1, colours):
        sets = min(sets, s.colour_count[g, seat, colour])
    if not wildcard:
        return sets
    gaps = 0
    for colour in range(colours):
        gaps += max(0, sets + 1 - s.colour_count[g, seat, colour])
    return sets + (1 if gaps <= 1 else 0)

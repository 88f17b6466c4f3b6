"""Meeting colony and statue requirements, with requirement_cut and requirement_purchase."""

from __future__ import annotations

from ..constants import EFFECT_INDEX, REQUIREMENT_PRICE
from ..rules import lacking
from .state import compiled

CUT_EFFECT = EFFECT_INDEX["requirement_cut"]
PURCHASE_EFFECT = EFFECT_INDEX["requirement_purchase"]


@compiled
def requirement_payment(s, g, seat, requirement, track, budget):
    """(coins to pay, reachable): 0 if the track meets the requirement (4 lower with
    requirement_cut); with requirement_purchase 3 coins per missing point within the step's budget."""
    missing = lacking(requirement, s.effects[g, seat, CUT_EFFECT], s.tracks[g, seat, track])
    if missing == 0:
        return 0, True
    cost = REQUIREMENT_PRICE * missing
    return cost, (cost <= min(budget, s.coins[g, seat])) & s.effects[g, seat, PURCHASE_EFFECT]

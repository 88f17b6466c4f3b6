"""Meeting colony and statue requirements, with requirement_cut and requirement_purchase."""

from __future__ import annotations

import numpy as np

from .. import actions as A
from ..constants import EFFECT_INDEX, REQUIREMENT_CUT, REQUIREMENT_MAX_COINS, REQUIREMENT_PRICE
from .state import BatchState, compiled

CUT_EFFECT = EFFECT_INDEX["requirement_cut"]
PURCHASE_EFFECT = EFFECT_INDEX["requirement_purchase"]
DOUBLE_EFFECT = EFFECT_INDEX["double_actions"]


@compiled
def requirement_payment(s, g, seat, requirement, track, budget):
    """(coins to pay, reachable): 0 if the track meets the requirement (4 lower with
    requirement_cut); with requirement_purchase 3 coins per missing point within the step's budget."""
    requirement = requirement - REQUIREMENT_CUT * s.effects[g, seat, CUT_EFFECT]
    lacking = max(0, requirement - s.tracks[g, seat, track])
    if lacking == 0:
        return 0, True
    cost = REQUIREMENT_PRICE * lacking
    return cost, (cost <= min(budget, s.coins[g, seat])) & s.effects[g, seat, PURCHASE_EFFECT]


def actions_per_step(s: BatchState, g, seat) -> np.ndarray:
    """How many colonies (statues) a player may take in one step: 2 with double_actions."""
    return 1 + s.effects[g, seat, DOUBLE_EFFECT]


def act_in_step(s: BatchState, seat: np.ndarray, ask, kind: str, n_options: int, options, act):
    """One seat's colony or statue step in every game: act once, or twice with double_actions,
    both actions sharing the step's requirement_purchase budget; declining ends the step.

    `options(arrays, tables, g, seat, budget, players, legal)` marks the legal options and
    `act(arrays, tables, g, seat, option, paid)` acts, noting the coins paid for the requirement:
    compiled loops over the games `g`.
    """
    g = np.arange(s.games)
    seat = seat[g]
    budget = np.full(s.games, REQUIREMENT_MAX_COINS)
    actions = actions_per_step(s, g, seat)
    for k in range(2):
        live = actions > k
        g, seat, budget, actions = g[live], seat[live], budget[live], actions[live]
        legal = np.zeros((len(g), n_options), bool)
        options(s.arrays, s.tables, g, seat, budget, s.players, legal)
        choice = ask(kind, g, seat, legal)
        took = choice != A.NONE
        g, seat, budget, actions = g[took], seat[took], budget[took], actions[took]
        paid = np.zeros(len(g), np.int64)
        act(s.arrays, s.tables, g, seat, choice[took], paid)
        budget = budget - paid

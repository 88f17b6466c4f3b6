"""Take a colony: at most one per step (two with double_actions), one per level per game."""

from __future__ import annotations

import numpy as np

from .. import actions as A
from ..constants import COLONY_BOUNTY, COLONY_LEVELS, EFFECT_INDEX, MILITARY, REQUIREMENT_MAX_COINS
from .requirements import act_in_step, requirement_payment
from .state import BatchState

BOUNTY_EFFECT = EFFECT_INDEX["colony_bounty"]


def colony_options(s: BatchState, g, seat, budget) -> np.ndarray:
    """(n, 11) legal colony options: none, or plunder / integrate the top tile of a level."""
    c = s.components
    legal = np.zeros((len(g), 11), bool)
    legal[:, A.NONE] = True
    top = s.colony_top()[g]
    bounty = COLONY_BOUNTY * s.effects[g, seat, BOUNTY_EFFECT]
    coins = s.coins[g, seat]
    for level in range(COLONY_LEVELS):
        tile = top[:, level]
        pay, reachable = requirement_payment(s, g, seat, c.colony_requirement[tile], MILITARY, budget)
        open_ = (s.colony_ptr[g, level] < s.players) & (s.colonies[g, seat, level] == 0) & reachable
        legal[:, A.colony_option(level, A.PLUNDER)] = open_
        legal[:, A.colony_option(level, A.INTEGRATE)] = open_ & (coins - pay + bounty >= c.colony_integrate[tile])
    return legal


def take_colony(s: BatchState, g, seat, option) -> np.ndarray:
    """Take the top tile of a level: plunder its coins, or pay to integrate it (gain the back).
    colony_bounty pays 4 coins on taking. Returns the coins paid for the requirement."""
    c = s.components
    level, action = np.divmod(option - 1, 2)
    tile = s.colony_top()[g, level]
    s.colony_ptr[g, level] += 1
    pay, _ = requirement_payment(s, g, seat, c.colony_requirement[tile], MILITARY, REQUIREMENT_MAX_COINS)
    integrate = action == A.INTEGRATE
    s.coins[g, seat] += (COLONY_BOUNTY * s.effects[g, seat, BOUNTY_EFFECT] - pay
                         + np.where(integrate, -c.colony_integrate[tile], c.colony_plunder[tile]))
    s.tracks[g, seat] += c.colony_back_values[tile] * integrate[:, None]
    s.colonies[g, seat, level] = np.where(integrate, 2, 1)
    s.colony_tile[g, seat, level] = tile
    return pay


def colony_step(s: BatchState, seat: np.ndarray, ask):
    """One seat's colony step in every game."""
    act_in_step(s, seat, ask, "colony", colony_options, take_colony)

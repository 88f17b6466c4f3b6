"""Carve a statue: at most one per step (two with double_actions), each statue once per game."""

from __future__ import annotations

import numpy as np

from .. import actions as A
from ..constants import CULTURE, EFFECT_INDEX, PATRON_BONUS, REQUIREMENT_MAX_COINS, STATUES
from .requirements import act_in_step, requirement_payment
from .state import BatchState

PATRON_EFFECT = EFFECT_INDEX["statue_patron"]


def statue_options(s: BatchState, g, seat, budget) -> np.ndarray:
    """(n, 33) legal statue options: none, or a statue with one of the free tiles, either side."""
    c = s.components
    legal = np.zeros((len(g), 33), bool)
    legal[:, A.NONE] = True
    free = s.tiles[g, seat] > 0
    for statue in range(STATUES):
        _, reachable = requirement_payment(s, g, seat, c.statue_requirement[statue], CULTURE, budget)
        open_ = (s.statues[g, seat, statue] < 0) & reachable
        for track in range(4):
            ok = open_ & free[:, track]
            legal[:, A.statue_option(statue, track, A.COLOURED)] = ok
            legal[:, A.statue_option(statue, track, A.POINTS_SIDE)] = ok
    return legal


def carve_statue(s: BatchState, g, seat, option) -> np.ndarray:
    """Place an unused tile on the statue: coloured side raises its track by the statue's bonus
    (+2 with statue_patron), points side scores the bonus at the end. Returns coins paid."""
    c = s.components
    k = option - 1
    statue, track, side = k // 8, (k % 8) // 2, k % 2
    pay, _ = requirement_payment(s, g, seat, c.statue_requirement[statue], CULTURE, REQUIREMENT_MAX_COINS)
    s.coins[g, seat] -= pay
    s.tiles[g, seat, track] -= 1
    s.statues[g, seat, statue] = 2 * track + side
    bonus = c.statue_bonus[statue] + PATRON_BONUS * s.effects[g, seat, PATRON_EFFECT]
    s.tracks[g, seat, track] += np.where(side == A.COLOURED, bonus, 0).astype(np.int16)
    return pay


def statue_step(s: BatchState, seat: np.ndarray, ask):
    """One seat's statue step in every game."""
    act_in_step(s, seat, ask, "statue", statue_options, carve_statue)

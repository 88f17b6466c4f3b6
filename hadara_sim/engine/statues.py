"""Carve a statue: at most one per step (two with double_actions), each statue once per game."""

from __future__ import annotations

from .. import actions as A
from ..constants import CULTURE, EFFECT_INDEX, PATRON_BONUS, REQUIREMENT_MAX_COINS, STATUES
from ..rules import requirement_payment
from .state import compiled

PATRON_EFFECT = EFFECT_INDEX["statue_patron"]


@compiled
def statue_options(s, t, g, seat, budget, players, legal):
    """(n, 33) legal statue options: none, or a statue with one of the free tiles, either side."""
    for i in range(len(g)):
        legal[i, A.NONE] = True
        for statue in range(STATUES):
            _, reachable = requirement_payment(s, g[i], seat[i], t.statue_requirement[statue], CULTURE, budget[i])
            if s.statues[g[i], seat[i], statue] < 0 and reachable:
                for track in range(4):
                    free = s.tiles[g[i], seat[i], track] > 0
                    legal[i, A.statue_option(statue, track, A.COLOURED)] = free
                    legal[i, A.statue_option(statue, track, A.POINTS_SIDE)] = free


@compiled
def carve_statue(s, t, g, seat, option, paid):
    """Place an unused tile on the statue: coloured side raises its track by the statue's bonus
    (+2 with statue_patron), points side scores the bonus at the end. `paid`: coins paid."""
    for i in range(len(g)):
        k = option[i] - 1
        statue, track, side = k // 8, (k % 8) // 2, k % 2
        pay, _ = requirement_payment(s, g[i], seat[i], t.statue_requirement[statue], CULTURE, REQUIREMENT_MAX_COINS)
        s.coins[g[i], seat[i]] -= pay
        s.tiles[g[i], seat[i], track] -= 1
        s.statues[g[i], seat[i], statue] = 2 * track + side
        if side == A.COLOURED:
            bonus = t.statue_bonus[statue] + PATRON_BONUS * s.effects[g[i], seat[i], PATRON_EFFECT]
            s.tracks[g[i], seat[i], track] += bonus
        paid[i] = pay

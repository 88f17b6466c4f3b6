"""Take a colony: at most one per step (two with double_actions), one per level per game."""

from __future__ import annotations

from .. import actions as A
from ..constants import COLONY_BOUNTY, COLONY_LEVELS, EFFECT_INDEX, MILITARY, REQUIREMENT_MAX_COINS
from ..rules import requirement_payment
from .state import compiled

BOUNTY_EFFECT = EFFECT_INDEX["colony_bounty"]


@compiled
def colony_top(s, g, level, players):
    """The tile on top of a level's stack (the last tile when empty)."""
    return s.deal_colonies[g, level, min(s.colony_ptr[g, level], players - 1)]


@compiled
def colony_options(s, t, g, seat, budget, players, legal):
    """(n, 11) legal colony options: none, or plunder / integrate the top tile of a level."""
    for i in range(len(g)):
        legal[i, A.NONE] = True
        bounty = COLONY_BOUNTY * s.effects[g[i], seat[i], BOUNTY_EFFECT]
        coins = s.coins[g[i], seat[i]]
        for level in range(COLONY_LEVELS):
            tile = colony_top(s, g[i], level, players)
            pay, reachable = requirement_payment(s, g[i], seat[i], t.colony_requirement[tile], MILITARY, budget[i])
            if s.colony_ptr[g[i], level] < players and s.colonies[g[i], seat[i], level] == 0 and reachable:
                legal[i, A.colony_option(level, A.PLUNDER)] = True
                legal[i, A.colony_option(level, A.INTEGRATE)] = coins - pay + bounty >= t.colony_integrate[tile]


@compiled
def take_colony(s, t, g, seat, option, paid):
    """Take the top tile of a level: plunder its coins, or pay to integrate it (gain the back).
    colony_bounty pays 4 coins on taking. `paid`: the coins paid for the requirement."""
    players = s.coins.shape[1]
    for i in range(len(g)):
        level, action = divmod(option[i] - 1, 2)
        tile = colony_top(s, g[i], level, players)
        s.colony_ptr[g[i], level] += 1
        pay, _ = requirement_payment(s, g[i], seat[i], t.colony_requirement[tile], MILITARY, REQUIREMENT_MAX_COINS)
        integrate = action == A.INTEGRATE
        gain = t.colony_plunder[tile]
        if integrate:
            gain = -t.colony_integrate[tile]
            for track in range(4):
                s.tracks[g[i], seat[i], track] += t.colony_back_values[tile, track]
        s.coins[g[i], seat[i]] += COLONY_BOUNTY * s.effects[g[i], seat[i], BOUNTY_EFFECT] - pay + gain
        s.colonies[g[i], seat[i], level] = 2 if integrate else 1
        s.colony_tile[g[i], seat[i], level] = tile
        paid[i] = pay

"""Greedy: each option's immediate value in points, cards looked up in its value table.
"""

from __future__ import annotations

import numpy as np

from hadara_sim import actions as A
from hadara_sim.constants import COLONY_BOUNTY, FEED_COIN_PRICE, GOLD_POINTS_PER_SET
from hadara_sim.rules import card_price, complete_sets, medal_prices, sale_price

from .basics import (
    _better, _dot_fma, _dot_lanes, _faced, _first_legal, _income_left, inner_only, _top,
)
from .layout import (
    COLONY, COLONY_BOUNTY_EFFECT, DRAW, FEED, G_COIN, G_CULTURE, G_FOOD,
    G_INCOME, G_MILITARY, G_POINTS, MEDAL, PICK, SIDE, STATUE, TILE, WHEEL,
)


@inner_only
def _greedy(kind, v, rows, g, seat, epoch, phase, legal, hand, colony_front, ct, params, table, out):
    """Greedy: each option's immediate value in points, cards looked up in its value `table`."""
    coin, points = params[G_COIN], params[G_POINTS]
    # points per track step: income earns its coins until the end, the others are flat
    tw = (params[G_INCOME] * coin * float(_income_left(epoch, phase)), params[G_MILITARY], params[G_CULTURE],
          params[G_FOOD])
    worth = table[epoch - 1, phase]
    for i in rows:
        gi, me = g[i], seat[i]
        top, choice = -np.inf, 0
        if kind == DRAW:
            sell = coin * sale_price(v, ct, gi, me, epoch)
            for d in range(2):
                kept = hand[i, 1 - d]
                buy = worth[kept] - coin * card_price(v, ct, gi, me, kept)
                # among equal values, discard the card worth less (it feeds phase B for everyone)
                gone = 0.01 * worth[hand[i, d]]
                top, choice = _better(legal, i, A.draw_option(d, A.BUY), buy - gone, top, choice)
                top, choice = _better(legal, i, A.draw_option(d, A.SELL), sell - gone, top, choice)
        elif kind == PICK:
            sell = coin * sale_price(v, ct, gi, me, epoch)
            for colour in range(5):
                card = _top(v, gi, colour)
                buy = worth[card] - coin * card_price(v, ct, gi, me, card)
                top, choice = _better(legal, i, A.pick_option(colour, A.BUY), buy, top, choice)
                top, choice = _better(legal, i, A.pick_option(colour, A.SELL), sell, top, choice)
        elif kind == TILE:
            for t in range(4):
                top, choice = _better(legal, i, t, tw[t], top, choice)
        elif kind == SIDE:
            init = v.initiative[gi, me] - 1
            for s in range(2):
                value = coin * ct.setup_coins[init, s] + _dot_lanes(ct.setup_values[init, s], tw)
                top, choice = _better(legal, i, s, value, top, choice)
        elif kind == WHEEL:
            # face first the deck of the colour the player holds most of (cheapest buys)
            for k in range(5):
                top, choice = _better(legal, i, k, float(v.colour_count[gi, me, _faced(v, gi, me, k)]), top, choice)
        elif kind == COLONY:
            bounty = COLONY_BOUNTY * np.int64(v.effects[gi, me, COLONY_BOUNTY_EFFECT])
            top, choice = _better(legal, i, A.NONE, 0.0, top, choice)
            for level in range(colony_front.shape[1]):
                back_track_value = _dot_fma(ct.mean_back[level], tw)
                value = coin * (float(colony_front[gi, level, 1]) + bounty) + points * float(colony_front[gi, level, 3])
                top, choice = _better(legal, i, A.colony_option(level, A.PLUNDER), value, top, choice)
                value = (points * ct.mean_back_points[level] + back_track_value
                         - coin * (float(colony_front[gi, level, 2]) - bounty))
                top, choice = _better(legal, i, A.colony_option(level, A.INTEGRATE), value, top, choice)
        elif kind == STATUE:
            top, choice = _better(legal, i, A.NONE, 0.0, top, choice)
            for s in range(len(ct.statue_requirement)):
                base = points * ct.statue_points[s]
                for t in range(4):
                    value = base + tw[t] * ct.statue_bonus[s]
                    top, choice = _better(legal, i, A.statue_option(s, t, A.COLOURED), value, top, choice)
                    # a points side spends the tile: prefer spending the least useful colour
                    value = base + points * ct.statue_bonus[s] - 0.01 * tw[t]
                    top, choice = _better(legal, i, A.statue_option(s, t, A.POINTS_SIDE), value, top, choice)
        elif kind == FEED:
            cards = len(worth)
            for c in range(cards):
                top, choice = _better(legal, i, c, -worth[c], top, choice)
            top, choice = _better(legal, i, cards, -coin * FEED_COIN_PRICE, top, choice)
        elif kind == MEDAL:
            silver_cost, gold_cost = medal_prices(v, ct, gi, me, epoch)
            top, choice = _better(legal, i, A.MEDAL_STOP, 0.0, top, choice)
            for t in range(4):
                value = points * np.ceil(float(v.tracks[gi, me, t]) / 2) - coin * silver_cost
                top, choice = _better(legal, i, 1 + t, value, top, choice)
            value = points * GOLD_POINTS_PER_SET * complete_sets(v, gi, me, False) - coin * gold_cost
            top, choice = _better(legal, i, A.MEDAL_GOLD, value, top, choice)
        else:
            choice = _first_legal(legal, i, 0)
        out[i] = choice

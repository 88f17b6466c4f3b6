"""The planner styles' decision of each kind, from the valuation of the acting player's position.
"""

from __future__ import annotations

import numpy as np

from hadara_sim import actions as A
from hadara_sim.constants import (
    COINS_PER_POINT, COLONY_BOUNTY, CULTURE, FEED_COIN_PRICE, FOOD, GOLD_POINTS_PER_SET, MILITARY, PATRON_BONUS,
    REQUIREMENT_PRICE,
)
from hadara_sim.rules import card_price, complete_sets, lacking, medal_prices, sale_price

from .basics import (
    _better, _dot_fma, _dot_lanes, _faced, _first_legal, helper, inner_only, _top,
)
from .layout import (
    ANY_COLONY, COLONY, COLONY_BOUNTY_EFFECT, CULTURE_SILVER, CUT, DENY, DRAW, EFFECT_VALUES, ENDGAME, FEED,
    GROWTH, INTEGRATE_MARGIN, MEDAL, PATRON, PICK, PICK_AHEAD, POINTS, POINTS_SIDE_FROM, SCRATCH, SETS_TO_COME,
    SIDE, SIDE_TABLE, SIDES_AT, SILVER_FULL, SILVER_MIN, STATUE, TILE, WHEEL, WILDCARD,
)
from .lookahead import _pick_ahead
from .valuation import _card_value, _context, _rival_gains


@inner_only
def _planner(kind, v, rows, g, seat, epoch, phase, legal, hand, colony_front, ct, params, table, out):
    """The planner styles: each row's context (coin, track, set and prize values), then the kind's values."""
    for i in rows:
        gi, me = g[i], seat[i]
        at = _context(v, gi, me, epoch, phase, params, ct)
        tv, sv = at.tv, at.sv
        if kind == DRAW:
            choice = _planner_draw(v, gi, me, i, epoch, phase, legal, hand, ct, params, at)
        elif kind == PICK and params[PICK_AHEAD] and table.shape[2] >= SCRATCH:
            choice = _pick_ahead(v, gi, me, i, epoch, phase, legal, ct, params, table)
        elif kind == PICK:
            choice = _planner_pick(v, gi, me, i, epoch, phase, legal, ct, params, at)
        elif kind == TILE:
            top, choice = -np.inf, 0
            for t in range(4):
                top, choice = _better(legal, i, t, tv[t], top, choice)
        elif kind == SIDE:
            choice = _planner_side(v, gi, me, i, legal, ct, params, at)
        elif kind == WHEEL:
            top, choice = -np.inf, 0
            for k in range(5):
                colour = _faced(v, gi, me, k)
                base = tv[colour] if colour < 4 else 0.0
                value = (base + sv[colour]) + 0.3 * v.colour_count[gi, me, colour]
                top, choice = _better(legal, i, k, value, top, choice)
        elif kind == COLONY:
            choice = _planner_colony(v, gi, me, i, legal, colony_front, ct, params, at)
        elif kind == STATUE:
            choice = _planner_statue(v, gi, me, i, epoch, phase, legal, ct, params, at)
        elif kind == FEED:
            choice = _planner_feed(i, legal, ct, params, at)
        elif kind == MEDAL and params[ENDGAME] and epoch == 3:
            choice = _last_medal(v, gi, me, i, legal, ct)
        elif kind == MEDAL:
            choice = _planner_medal(v, gi, me, i, epoch, legal, ct, params, at)
        else:
            choice = _first_legal(legal, i, 0)
        out[i] = choice


@helper
def _planner_draw(v, gi, me, i, epoch, phase, legal, hand, ct, params, at):
    """Buy or sell the card kept, by `_draw_values`."""
    values = _draw_values(v, gi, me, i, epoch, phase, hand, ct, params, at)
    top, choice = -np.inf, 0
    for option in range(4):
        top, choice = _better(legal, i, option, values[option], top, choice)
    return choice


@helper
def _draw_values(v, gi, me, i, epoch, phase, hand, ct, params, at):
    """The value of each draw option (`A.draw_option` order): the card kept bought or sold; the
    discarded card feeds phase B for everyone, so all else equal keep the better one, and with `deny`
    discard the card a rival would gain least from."""
    coin = at.coin
    worth0 = _card_value(v, gi, me, hand[i, 0], epoch, phase, ct, params, at)
    worth1 = _card_value(v, gi, me, hand[i, 1], epoch, phase, ct, params, at)
    sell = coin * sale_price(v, ct, gi, me, epoch)
    deny0, deny1 = 0.0, 0.0
    if params[DENY] > 0:  # each rival's context once for both cards
        deny0, deny1 = _rival_gains(v, gi, me, hand[i, 0], hand[i, 1], epoch, ct, params)
    discard0 = 0.05 * worth0 + (params[DENY] * deny0 if params[DENY] > 0 else 0.0)
    discard1 = 0.05 * worth1 + (params[DENY] * deny1 if params[DENY] > 0 else 0.0)
    buy0 = worth1 - coin * card_price(v, ct, gi, me, hand[i, 1])
    buy1 = worth0 - coin * card_price(v, ct, gi, me, hand[i, 0])
    return buy0 - discard0, sell - discard0, buy1 - discard1, sell - discard1


@helper
def _planner_pick(v, gi, me, i, epoch, phase, legal, ct, params, at):
    """Buy or sell the top card of a discard pile."""
    coin = at.coin
    sell = coin * sale_price(v, ct, gi, me, epoch)
    top, choice = -np.inf, 0
    for colour in range(5):
        if legal[i, A.pick_option(colour, A.BUY)]:
            card = _top(v, gi, colour)
            worth = _card_value(v, gi, me, card, epoch, phase, ct, params, at)
            buy = worth - coin * card_price(v, ct, gi, me, card)
            top, choice = _better(legal, i, A.pick_option(colour, A.BUY), buy, top, choice)
        top, choice = _better(legal, i, A.pick_option(colour, A.SELL), sell, top, choice)
    return choice


@helper
def _planner_side(v, gi, me, i, legal, ct, params, at):
    """The setup side worth most (coins and track values); balanced's side table overrules."""
    coin, tv = at.coin, at.tv
    init = v.initiative[gi, me] - 1
    top, choice = -np.inf, 0
    for s in range(2):
        value = coin * ct.setup_coins[init, s] + _dot_lanes(ct.setup_values[init, s], tv)
        top, choice = _better(legal, i, s, value, top, choice)
    if params[SIDE_TABLE]:
        fixed = int(params[SIDES_AT + init])
        choice = fixed if fixed >= 0 else choice
        if not legal[i, choice]:
            choice = _first_legal(legal, i, 0)
    return choice


@helper
def _planner_colony(v, gi, me, i, legal, colony_front, ct, params, at):
    """Plunder the front's coins and points, or integrate for the level's expected back (track steps and
    points) at its cost; colony_bounty's coins count either way, and missing military costs 3 coins a
    point (requirement_purchase). Military takes any colony rather than none."""
    coin, tracks, tv = at.coin, at.tracks, at.tv
    points, margin = params[POINTS], params[INTEGRATE_MARGIN]
    gain = COLONY_BOUNTY * np.int64(v.effects[gi, me, COLONY_BOUNTY_EFFECT])
    cut = np.int64(v.effects[gi, me, CUT])
    top, choice = _better(legal, i, A.NONE, 0.0, -np.inf, 0)
    for level in range(colony_front.shape[1]):
        requirement, plunder = colony_front[gi, level, 0], colony_front[gi, level, 1]
        integrate, front_points = colony_front[gi, level, 2], colony_front[gi, level, 3]
        back = ct.mean_back[level]
        # a one-row matrix product was a matrix-vector product in numpy, summed differently
        back_track_value = _dot_fma(back, tv)
        missing = lacking(requirement, cut, tracks[MILITARY])
        cost = coin * REQUIREMENT_PRICE * missing
        value = (coin * (plunder + gain) + points * front_points) - cost
        top, choice = _better(legal, i, A.colony_option(level, A.PLUNDER), value, top, choice)
        value = (points * ct.mean_back_points[level] + back_track_value - coin * (integrate - gain) - margin) - cost
        top, choice = _better(legal, i, A.colony_option(level, A.INTEGRATE), value, top, choice)
    if params[ANY_COLONY] and choice == A.NONE:
        choice = _first_legal(legal, i, 1)
    return choice


@helper
def _planner_statue(v, gi, me, i, epoch, phase, legal, ct, params, at):
    """The statue option of the highest `statue_value` (none unless one is worth more than nothing)."""
    top, choice = _better(legal, i, A.NONE, 0.0, -np.inf, 0)
    for option in range(1, 1 + 8 * len(ct.statue_requirement)):
        top, choice = _better(legal, i, option, statue_value(v, gi, me, option, epoch, phase, ct, params, at), top,
                              choice)
    return choice


@helper
def statue_value(v, gi, me, option, epoch, phase, ct, params, at):
    """A statue option's value: the statue's points less the coins for missing culture, plus its bonus
    on the tile's track (coloured side, +2 with statue_patron) or as points (points side: better late,
    and spending the least useful tile); none, 0. With `endgame`, epoch III's last statue (after phase B)
    goes on its points side (a coloured side is not valued: -inf), spending the tile of the lowest track
    (the others may still carry a silver medal)."""
    if option == A.NONE:
        return 0.0
    s, t, side, missing, bonus = statue_facts(v, gi, me, option, ct, at)
    coin, tracks, tv = at.coin, at.tracks, at.tv
    points = params[POINTS]
    base = points * ct.statue_points[s] - coin * REQUIREMENT_PRICE * missing
    if params[ENDGAME] and epoch == 3 and phase == 1:
        return base + points * bonus - 0.01 * tracks[t] if side == A.POINTS_SIDE else -np.inf
    if side == A.COLOURED:
        return base + tv[t] * bonus
    return (base + points * bonus - 0.05 * tv[t]) + (1.0 if epoch >= params[POINTS_SIDE_FROM] else -1.0)


@helper
def statue_facts(v, gi, me, option, ct, at):
    """A statue option's (statue, tile track, side) as `A.decode_statue` reads them, the culture points
    it lacks (`lacking`, requirement_cut counted) and its bonus (+2 with statue_patron)."""
    s, t, side = (option - 1) // 8, ((option - 1) % 8) // 2, (option - 1) % 2
    missing = lacking(ct.statue_requirement[s], np.int64(v.effects[gi, me, CUT]), at.tracks[CULTURE])
    return s, t, side, missing, ct.statue_bonus[s] + PATRON_BONUS * np.int64(v.effects[gi, me, PATRON])


@helper
def _planner_feed(i, legal, ct, params, at):
    """Minus the value of keeping each card (points, track steps, set value, effect; its food counts
    thrice: losing food forces more removals), or minus the coins of feeding with coins."""
    coin, tv, sv = at.coin, at.tv, at.sv
    cards = len(ct.card_points)
    top, choice = -np.inf, 0
    for c in range(cards):
        if legal[i, c]:  # only owned cards can go
            dot = _dot_lanes(ct.card_values[c], tv)
            keep = params[POINTS] * ct.card_points[c] + dot + 3.0 * ct.card_values[c, FOOD] + sv[ct.card_colour[c]]
            top, choice = _better(legal, i, c, -(keep + EFFECT_VALUES[ct.card_effect[c]]), top, choice)
    top, choice = _better(legal, i, cards, -FEED_COIN_PRICE * coin, top, choice)
    return choice


@helper
def _planner_medal(v, gi, me, i, epoch, legal, ct, params, at):
    """Medals on the tracks and sets projected to the end (today's plus what the remaining epochs
    typically add): a silver medal scores half its track (all of it, the first, with silver_full) if
    that reaches `silver_min`, less its price and a tile a statue may need; a gold medal scores 7 per
    projected set (a wildcard counts 0.7 of one). Culture puts a silver medal on culture when free."""
    coin, tracks = at.coin, at.tracks
    points = params[POINTS]
    silver_cost, gold_cost = medal_prices(v, ct, gi, me, epoch)
    growth = GROWTH[epoch]
    full = v.effects[gi, me, SILVER_FULL] and v.silver[gi, me, 0] < 0 and v.silver[gi, me, 1] < 0
    statues_left, tiles = 0, 0
    for s in range(v.statues.shape[2]):
        statues_left += v.statues[gi, me, s] < 0
    for t in range(4):
        tiles += v.tiles[gi, me, t]
    tile_cost = 3.0 if tiles - 1 < statues_left else 0.0
    top, choice = _better(legal, i, A.MEDAL_STOP, 0.0, -np.inf, 0)
    for t in range(4):
        end_track = tracks[t] * (1 + growth)
        silver_points = end_track if full else np.ceil(end_track / 2)
        value = points * silver_points - coin * silver_cost - tile_cost
        top, choice = _better(legal, i, 1 + t, value if silver_points >= params[SILVER_MIN] else -1.0, top, choice)
    sets_now = complete_sets(v, gi, me, False)
    end_sets = sets_now + SETS_TO_COME[epoch] * (1 if sets_now >= 0 else 0)
    wildcard = np.int64(v.effects[gi, me, WILDCARD])
    value = points * GOLD_POINTS_PER_SET * (end_sets + wildcard * 0.7) - coin * gold_cost
    top, choice = _better(legal, i, A.MEDAL_GOLD, value, top, choice)
    culture_silver = 1 + CULTURE
    if params[CULTURE_SILVER] and 1 <= choice <= 4 and legal[i, culture_silver]:
        choice = culture_silver
    return choice


@helper
def _last_medal(v, gi, me, i, legal, ct):
    """With `endgame`, the game's last decision (epoch III's medals): the medal that adds most to the
    final score as it will stand, its points less the points its price takes from floor(coins / 5);
    none if no medal gains (coins left also break ties)."""
    coins = np.int64(v.coins[gi, me])
    silver_cost, gold_cost = medal_prices(v, ct, gi, me, 3)
    silvers = (v.silver[gi, me, 0] >= 0) + (v.silver[gi, me, 1] >= 0)
    full = v.effects[gi, me, SILVER_FULL] and silvers == 0
    top, choice = _better(legal, i, A.MEDAL_STOP, 0.0, -np.inf, 0)
    lost = coins // COINS_PER_POINT - (coins - silver_cost) // COINS_PER_POINT
    for t in range(4):
        track = np.int64(v.tracks[gi, me, t])
        gain = track if full else (track + 1) // 2
        top, choice = _better(legal, i, 1 + t, float(gain - lost), top, choice)
    sets = complete_sets(v, gi, me, v.effects[gi, me, WILDCARD])
    lost = coins // COINS_PER_POINT - (coins - gold_cost) // COINS_PER_POINT
    top, choice = _better(legal, i, A.MEDAL_GOLD, float(GOLD_POINTS_PER_SET * sets - lost), top, choice)
    return choice

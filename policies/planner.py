"""`Planner`: a policy that values every option by the points it is expected to bring by the end.

It looks beyond the immediate gain: coins lose value as the game runs out, income pays until the
end, a military or culture step is worth a colony or statue when it reaches the next requirement
in time, a card beyond the food track costs a card at the next feeding, a card of a missing colour
is worth a set to a player with gold medals, and medals are bought while they are cheap and will
pay. The built-in styles (`military`, `culture`, `economy`, `sets`, `balanced`) are planners with
different weights and a few rules of their own.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np
from numba import njit

from hadara_sim import actions as A
from hadara_sim.constants import (
    COLONY_BOUNTY, CULTURE, EFFECT_INDEX, FEED_COIN_PRICE, FOOD, GOLD_POINTS_PER_SET, INCOME,
    MEDAL_DISCOUNT_GOLD, MEDAL_DISCOUNT_SILVER, MILITARY, REQUIREMENT_CUT,
    SET_COLLECTOR_POINTS,
)
from hadara_sim.policy import Decision, Policy

from .common import EFFECT_VALUES, best, income_steps_left, own, price, sell_value

_E = EFFECT_INDEX
# By epoch (index 0 unused): medal_discount's prices, the typical growth of a track by the end, and
# the sets typically still to come.
DISCOUNT_SILVER = np.array([0, 0, MEDAL_DISCOUNT_SILVER[2], MEDAL_DISCOUNT_SILVER[3]])
DISCOUNT_GOLD = np.array([0, 0, MEDAL_DISCOUNT_GOLD[2], MEDAL_DISCOUNT_GOLD[3]])
GROWTH = np.array([0.0, 1.0, 0.55, 0.15])
SETS_TO_COME = np.array([0, 2.0, 1.0, 0.0])
AFFINITY = _E["affinity_income"]  # affinity_<track t> is effect AFFINITY + t
SILVER_FULL, SET_COLLECTOR, CUT = _E["silver_full"], _E["set_collector"], _E["requirement_cut"]


class Context:
    """What the planner derives about the acting player, (games, ...) arrays computed on first use."""

    def __init__(self, view, w: dict):
        self.view, self.c, self.w = view, view.components, w
        self.n = len(view)
        self.epoch = view.epoch.astype(np.int64)
        self.phase = view.phase.astype(np.int64)
        # Steps still to come after this decision (the current phase's steps included); a colony
        # and a statue step follow each income step.
        self.income_left = income_steps_left(self.epoch, self.phase)
        self.steps_left = self.income_left
        self.feeds_left = 3 - self.epoch + 1
        self.coin = w["coin_end"] + (w["coin"] - w["coin_end"]) * self.income_left / 6.0

    tracks = cached_property(lambda self: self.view.own("tracks").astype(np.float64))
    coins = cached_property(lambda self: self.view.own("coins").astype(np.float64))
    counts = cached_property(lambda self: self.view.own("colour_count").astype(np.int64))
    tiles = cached_property(lambda self: self.view.own("tiles").astype(np.int64))
    statues = cached_property(lambda self: self.view.own("statues").astype(np.int64))
    silver = cached_property(lambda self: self.view.own("silver").astype(np.int64))
    gold = cached_property(lambda self: self.view.own("gold").astype(np.int64))
    colonies = cached_property(lambda self: self.view.own("colonies").astype(np.int64))
    effects = cached_property(lambda self: self.view.own("effects"))

    @cached_property
    def track_value(self) -> np.ndarray:
        """Points from one more step on each track, (games, 4)."""
        return self._derived[0]

    @cached_property
    def set_value(self) -> np.ndarray:
        """Points from one more card of each colour through gold medals and set_collector (games, 5)."""
        return self._derived[1]

    @cached_property
    def requirements(self) -> np.ndarray:
        """(games, 2) the next military and culture requirement (`next_requirement`)."""
        return self._derived[2]

    @cached_property
    def _derived(self) -> tuple:
        """Track values, set values and next requirements, from one compiled call."""
        w, c = self.w, self.c
        weights = (float(w["income"]), float(w["military"]), float(w["culture"]), float(w["food"]),
                   float(w["sets"]), int(w["gold_plan"]))
        return _derive(weights, self.coin, self.income_left, self.steps_left, self.feeds_left, self.epoch,
                       self.tracks, self.counts, self.silver, self.gold, self.colonies, self.view.colony_left,
                       self.statues, self.effects, c.level_requirement, c.statue_requirement)

    @cached_property
    def prize(self) -> dict:
        """Points a card is worth for reaching the next colony / statue requirement in time."""
        return {MILITARY: np.full(self.n, self.w["colony_prize"]), CULTURE: np.full(self.n, self.w["statue_prize"])}

    def has(self, effect: str) -> np.ndarray:
        return self.effects[:, _E[effect]]


    def card_values(self, cards: np.ndarray) -> np.ndarray:
        """Points-equivalent of owning each card of `cards` (games, k), before its price: points,
        track steps (affinity cards add one step per owned card of their colour, and later ones too),
        set value, colour bonus, effect, the lookahead to the next requirement, less the feeding risk."""
        c, w = self.c, self.w
        table = (c.card_values, c.card_colour, c.card_points, c.card_effect)
        prizes = np.stack([self.prize[MILITARY], self.prize[CULTURE]], axis=1)
        if_short = np.where(self.has("feed_with_coins"), FEED_COIN_PRICE * self.coin, w["feed_loss"])
        weight = (float(w["points"]), float(w["effects"]), np.asarray(w["colours"], float))
        return _card_values(np.asarray(cards, np.int64), table, weight, self.effects, self.counts, self.tracks,
                            self.track_value, self.set_value, self.requirements, prizes, self.steps_left,
                            self.income_left, self.phase, if_short)

    def next_requirement(self, track: int) -> np.ndarray:
        """The lowest requirement still open on a track (colony levels or statues), inf if none."""
        return self.requirements[:, 0 if track == MILITARY else 1]



@njit(cache=True)
def _derive(weights, coin, income_left, steps_left, feeds_left, epoch, tracks, counts, silver, gold, colonies,
            colony_left, statues, effects, level_requirement, statue_requirement):
    """`Context.track_value`, `set_value` and `requirements`."""
    income, military, culture, food, sets, gold_plan = weights
    track_value = _track_values(income, military, culture, food, coin, income_left, steps_left, feeds_left, tracks,
                                counts, silver, effects[:, SILVER_FULL])
    # gold medals the player can still expect to buy (0..2 - owned) make sets worth more
    planned = np.where(epoch < 3, np.maximum(0, min(2, gold_plan) - gold), 0)
    per_set = GOLD_POINTS_PER_SET * (gold + planned) + SET_COLLECTOR_POINTS * effects[:, SET_COLLECTOR]
    requirements = _open_requirements(colonies, colony_left, statues, effects[:, CUT],
                                      level_requirement, statue_requirement)
    return track_value, _set_values(sets, per_set, counts), requirements


@njit(cache=True)
def _open_requirements(colonies, colony_left, statues, cut, level_requirement, statue_requirement):
    """The lowest requirement of a colony level the player has not taken while tiles are left, and of
    a statue not carved yet (4 lower with requirement_cut), inf if none (games, 2)."""
    n = len(colonies)
    req = np.full((n, 2), np.inf)
    for g in range(n):
        for level in range(len(level_requirement)):
            if colonies[g, level] == 0 and colony_left[g, level] > 0:
                req[g, 0] = min(req[g, 0], level_requirement[level])
        for statue in range(len(statue_requirement)):
            if statues[g, statue] < 0:
                req[g, 1] = min(req[g, 1], statue_requirement[statue])
        req[g] -= REQUIREMENT_CUT * cut[g]
    return req


@njit(cache=True)
def _track_values(income, military, culture, food, coin, income_left, steps_left, feeds_left, tracks, counts,
                  silver, silver_full):
    """Points from one more step on each track (games, 4): income pays coins at every income step to
    come, military and culture count while steps remain, food while a feeding is near, and a track
    under a silver medal scores half a point more per step (all of it with silver_full)."""
    n = len(coin)
    tv = np.empty((n, 4))
    for g in range(n):
        tv[g, INCOME] = income * coin[g] * income_left[g]
        active = min(steps_left[g], 4) / 4.0
        tv[g, MILITARY] = military * active
        tv[g, CULTURE] = culture * active
        slack = tracks[g, FOOD] - counts[g].sum()
        tv[g, FOOD] = food * (1.0 if slack <= 1 else 0.35) * (feeds_left[g] > 0)
        for t in range(4):
            silver_on = float((silver[g, 0] == t) + (silver[g, 1] == t))
            tv[g, t] += (1.0 if silver_full[g] else 0.5) * min(silver_on, 1.0) + 0.5 * max(silver_on - 1.0, 0.0)
    return tv


@njit(cache=True)
def _set_values(sets, per_set, counts):
    """Points from one more card of each colour (games, 5): a share of a set for the colours the
    player lacks most, 15% of one for the others."""
    n, colours = counts.shape
    value = np.empty((n, colours))
    for g in range(n):
        low = counts[g].min()
        lacking = 0
        for k in range(colours):
            lacking += counts[g, k] == low
        for k in range(colours):
            value[g, k] = sets * per_set[g] * ((1 / lacking) if counts[g, k] == low else 0.15)
    return value


@njit(cache=True)
def _card_values(cards, table, weight, effects, counts, tracks, track_value, set_value, requirements, prizes,
                 steps_left, income_left, phase, if_short):
    """See `Context.card_values`. A card that lifts military or culture to the next requirement
    before the next colony or statue step is worth part of that colony or statue (the prize); one
    beyond the food track risks a card at the next feeding (`if_short`, less in phase A)."""
    card_values, card_colour, card_points, card_effect = table
    points, effects_weight, colours = weight
    n, k = cards.shape
    value = np.empty((n, k))
    steps = np.empty(4)
    for g in range(n):
        effect_scale = min(1.0, income_left[g] / 4.0)
        for j in range(k):
            card = cards[g, j]
            colour = card_colour[card]
            for t in range(4):
                steps[t] = card_values[card, t]
                if colour == t and effects[g, AFFINITY + t]:
                    steps[t] += 1.0
            # summed in the order of numpy's einsum (two lanes), which the planner was tuned with
            dot = ((steps[0] * track_value[g, 0] + steps[2] * track_value[g, 2])
                   + (steps[1] * track_value[g, 1] + steps[3] * track_value[g, 3]))
            v = points * card_points[card] + dot
            v += set_value[g, colour]
            v += colours[colour]
            effect = card_effect[card]
            if AFFINITY <= effect < AFFINITY + 4:
                v += counts[g, effect - AFFINITY] * track_value[g, effect - AFFINITY] + 1.0
            else:
                v += EFFECT_VALUES[effect] * effects_weight * effect_scale
            bonus = 0.0
            for r, track in enumerate((MILITARY, CULTURE)):
                need = requirements[g, r] - tracks[g, track]
                if need > 0 and steps[track] >= need and steps_left[g] > 0:
                    bonus += prizes[g, r]
            v += bonus
            slack = tracks[g, FOOD] - counts[g].sum() - 1 + steps[FOOD]
            if slack < 0:
                v -= if_short[g] * (1.0 if phase[g] == 1 else 0.6)
            value[g, j] = v
    return value


def expected_backs(c) -> tuple[np.ndarray, np.ndarray]:
    """(5, 4) mean track values and (5,) mean points of the backs of each level's colony tiles (made
    once per component set)."""
    cached = c.__dict__.get("_expected_backs")
    if cached is None:
        levels = range(5)
        cached = (np.array([c.colony_back_values[c.colony_level == lv].mean(0) for lv in levels]),
                  np.array([c.colony_back_points[c.colony_level == lv].mean() for lv in levels]))
        c.__dict__["_expected_backs"] = cached
    return cached


@njit(cache=True)
def _colony_values(points, margin, front, coin, back_track_value, back_points, bounty, cut, tracks):
    """(games, 11) values of the colony options: plunder the front's coins and points, or integrate
    for the level's expected back (track steps and points) at its cost; colony_bounty's coins count
    either way, and missing military costs 3 coins a point (requirement_purchase)."""
    n = len(coin)
    values = np.zeros((n, 11))
    for g in range(n):
        gain = COLONY_BOUNTY * bounty[g]
        for level in range(front.shape[1]):
            requirement, plunder, integrate, front_points = front[g, level]
            missing = max(0.0, float(requirement - REQUIREMENT_CUT * cut[g]) - tracks[g, MILITARY])
            cost = coin[g] * 3 * missing
            values[g, A.colony_option(level, A.PLUNDER)] = (
                coin[g] * (plunder + gain) + points * front_points) - cost
            values[g, A.colony_option(level, A.INTEGRATE)] = (
                points * back_points[level] + back_track_value[g, level] - coin[g] * (integrate - gain) - margin) - cost
    return values


@njit(cache=True)
def _statue_values(points, statues, late, coin, track_value, tracks, patron, cut):
    """(games, 33) values of the statue options: the statue's points less the coins for missing
    culture, plus its bonus on the tile's track (coloured side, +2 with statue_patron) or as points
    (points side: better late, and spending the least useful tile)."""
    requirement, statue_points, statue_bonus = statues
    n = len(coin)
    values = np.zeros((n, 33))
    for g in range(n):
        bonus_extra = 2 * patron[g]
        for s in range(len(requirement)):
            missing = max(0.0, float(requirement[s] - REQUIREMENT_CUT * cut[g]) - tracks[g, CULTURE])
            base = points * statue_points[s] - coin[g] * 3 * missing
            bonus = statue_bonus[s] + bonus_extra
            for t in range(4):
                values[g, A.statue_option(s, t, A.COLOURED)] = base + track_value[g, t] * bonus
                side = base + points * bonus - 0.05 * track_value[g, t]
                values[g, A.statue_option(s, t, A.POINTS_SIDE)] = side + (1.0 if late[g] else -1.0)
    return values


@njit(cache=True)
def _feed_values(points, table, track_value, set_value, coin):
    """(games, C + 1) values of the feeding options: minus the value of keeping each card (points,
    track steps, set value, effect; its food counts thrice: losing food forces more removals), or
    minus the coins of feeding with coins."""
    card_values, card_colour, card_points, card_effect = table
    n, cards = len(coin), len(card_points)
    values = np.empty((n, cards + 1))
    for g in range(n):
        for c in range(cards):
            # summed in the order of numpy's einsum (two lanes), which the planner was tuned with
            dot = ((card_values[c, 0] * track_value[g, 0] + card_values[c, 2] * track_value[g, 2])
                   + (card_values[c, 1] * track_value[g, 1] + card_values[c, 3] * track_value[g, 3]))
            keep = points * card_points[c] + dot + 3.0 * card_values[c, FOOD] + set_value[g, card_colour[c]]
            values[g, c] = -(keep + EFFECT_VALUES[card_effect[c]])
        values[g, cards] = -FEED_COIN_PRICE * coin[g]
    return values


@njit(cache=True)
def _medal_values(points, silver_min, prices, epoch, coin, tracks, counts, silver, statues, tiles, discount,
                  silver_full, wildcard):
    """(games, 6) values of the medal options, on the tracks and sets projected to the end (today's
    plus what the remaining epochs typically add): a silver medal scores half its track (all of it,
    the first, with silver_full) if that reaches `silver_min`, less its price and a tile a statue
    may need; a gold medal scores 7 per projected set (a wildcard counts 0.7 of one)."""
    silver_price, gold_price = prices
    n = len(coin)
    values = np.zeros((n, 6))
    for g in range(n):
        e = epoch[g]
        cheap = discount[g] and e > 1
        silver_cost = DISCOUNT_SILVER[e] if cheap else silver_price[e - 1]
        gold_cost = DISCOUNT_GOLD[e] if cheap else gold_price[e - 1]
        growth = GROWTH[e]
        full = silver_full[g] and (silver[g] >= 0).sum() == 0
        statues_left = (statues[g] < 0).sum()
        tile_cost = 3.0 if tiles[g].sum() - 1 < statues_left else 0.0
        for t in range(4):
            end_track = tracks[g, t] * (1 + growth)
            silver_points = end_track if full else np.ceil(end_track / 2)
            value = points * silver_points - coin[g] * silver_cost - tile_cost
            values[g, 1 + t] = value if silver_points >= silver_min else -1.0
        sets_now = counts[g].min()
        end_sets = sets_now + SETS_TO_COME[e] * (1 if sets_now >= 0 else 0)
        values[g, 5] = points * GOLD_POINTS_PER_SET * (end_sets + wildcard[g] * 0.7) - coin[g] * gold_cost
    return values


class Planner(Policy):
    name = "planner"
    description = ("Values every option by the points it is expected to bring by the end of the game "
                   "(projected tracks, colony and statue thresholds, feeding risk, sets, medal timing).")
    # General weights found by a random search (see `Balanced`); the styles change a few.
    params = {
        "coin": 0.55, "coin_end": 0.3, "points": 0.8, "income": 0.7, "military": 0.8,
        "culture": 1.0, "food": 1.6, "sets": 0.5, "effects": 1.5, "colours": (0.0, 0.0, 0.0, 0.0, 0.0),
        "gold_plan": 0, "feed_loss": 3.0, "colony_prize": 3.0, "statue_prize": 3.0,
        "points_side_from": 3, "integrate_margin": 0.0, "silver_min": 10,
    }

    def context(self, view) -> Context:
        return Context(view, self.settings)

    # --- cards ------------------------------------------------------------------------------

    def _buy_sell_values(self, ctx: Context, cards: np.ndarray, legal_buy: np.ndarray, worth=None) -> np.ndarray:
        worth = ctx.card_values(cards) if worth is None else worth
        buy = worth - ctx.coin[:, None] * price(ctx.view, cards)
        sell = np.broadcast_to((ctx.coin * sell_value(ctx.view))[:, None], buy.shape)
        return np.stack([np.where(legal_buy, buy, -np.inf), sell], axis=2)

    def draw(self, d: Decision):
        ctx = self.context(d.view)
        hand = d.view.hand.astype(np.int64)
        worth = ctx.card_values(hand)
        kept = hand[:, ::-1]  # option "discard card 0" keeps card 1
        values = self._buy_sell_values(ctx, kept, d.legal[:, [0, 2]], worth[:, ::-1]).reshape(len(d), 4)
        # The discarded card feeds phase B for everyone: keep the better one, all else equal.
        values -= 0.05 * np.repeat(worth, 2, axis=1)
        return best(values, d.legal)

    def pick(self, d: Decision):
        ctx = self.context(d.view)
        v = d.view
        top = np.take_along_axis(v.piles, np.maximum(v.pile_size.astype(np.int64) - 1, 0)[:, :, None],
                                 axis=2)[:, :, 0]
        top = np.maximum(top, 0).astype(np.int64)
        values = self._buy_sell_values(ctx, top, d.legal[:, 0::2]).reshape(len(d), 10)
        return best(values, d.legal)

    def tile(self, d: Decision):
        return best(self.context(d.view).track_value, d.legal)

    def side(self, d: Decision):
        ctx = self.context(d.view)
        c = d.view.components
        init = own(d.view, "initiative").astype(np.int64) - 1
        values = (ctx.coin[:, None] * c.setup_coins[init]
                  + np.einsum("gst,gt->gs", c.setup_values[init].astype(float), ctx.track_value))
        return best(values, d.legal)

    def wheel(self, d: Decision):
        """Face first the deck of the colour the player values most (its cheapest, most useful buys)."""
        v = d.view
        ctx = self.context(v)
        colour_value = np.concatenate([ctx.track_value, np.zeros((len(d), 1))], axis=1) + ctx.set_value
        colour_value += 0.3 * ctx.counts
        seat = v.player.astype(np.int64)
        positions = (np.arange(5)[None, :] + seat[:, None]) % 5
        faced = np.take_along_axis(v.colour_order.astype(np.int64), positions, axis=1)
        return best(np.take_along_axis(colour_value, faced, axis=1), d.legal)

    # --- colonies, statues --------------------------------------------------------------------

    def colony(self, d: Decision):
        v = d.view
        ctx = self.context(v)
        c, w = v.components, self.settings
        mean_back, mean_back_points = expected_backs(c)
        values = _colony_values(float(w["points"]), float(w["integrate_margin"]), v.colony_front, ctx.coin,
                                ctx.track_value @ mean_back.T, mean_back_points, ctx.has("colony_bounty"),
                                ctx.has("requirement_cut"), ctx.tracks)
        return best(values, d.legal)

    def statue(self, d: Decision):
        v = d.view
        ctx = self.context(v)
        c, w = v.components, self.settings
        statues = (c.statue_requirement, c.statue_points, c.statue_bonus)
        values = _statue_values(float(w["points"]), statues, ctx.epoch >= w["points_side_from"], ctx.coin,
                                ctx.track_value, ctx.tracks, ctx.has("statue_patron"), ctx.has("requirement_cut"))
        return best(values, d.legal)

    # --- feeding and medals -----------------------------------------------------------------

    def feed(self, d: Decision):
        v = d.view
        ctx = self.context(v)
        c = v.components
        table = (c.card_values, c.card_colour, c.card_points, c.card_effect)
        values = _feed_values(float(self.settings["points"]), table, ctx.track_value, ctx.set_value, ctx.coin)
        return best(values, d.legal)

    def medal(self, d: Decision):
        v = d.view
        ctx = self.context(v)
        c, w = v.components, self.settings
        prices = (np.asarray(c.silver_price, np.int64), np.asarray(c.gold_price, np.int64))
        values = _medal_values(float(w["points"]), float(w["silver_min"]), prices, ctx.epoch, ctx.coin, ctx.tracks,
                               ctx.counts, ctx.silver, ctx.statues, ctx.tiles, ctx.has("medal_discount"),
                               ctx.has("silver_full"), ctx.has("gold_wildcard"))
        return best(values, d.legal)

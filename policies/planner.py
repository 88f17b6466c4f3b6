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
        front = v.colony_front.astype(float)
        bounty = COLONY_BOUNTY * ctx.has("colony_bounty")
        levels = range(5)
        mean_back = np.array([c.colony_back_values[c.colony_level == lv].mean(0) for lv in levels])
        mean_back_points = np.array([c.colony_back_points[c.colony_level == lv].mean() for lv in levels])
        plunder = ctx.coin[:, None] * (front[:, :, 1] + bounty[:, None]) + w["points"] * front[:, :, 3]
        integrate = (w["points"] * mean_back_points[None] + ctx.track_value @ mean_back.T
                     - ctx.coin[:, None] * (front[:, :, 2] - bounty[:, None]) - w["integrate_margin"])
        missing = np.maximum(0, front[:, :, 0] - REQUIREMENT_CUT * ctx.has("requirement_cut")[:, None]
                             - ctx.tracks[:, MILITARY, None])
        cost = ctx.coin[:, None] * 3 * missing
        values = np.zeros((len(d), 11))
        values[:, 1::2] = plunder - cost
        values[:, 2::2] = integrate - cost
        return best(values, d.legal)

    def statue(self, d: Decision):
        v = d.view
        ctx = self.context(v)
        c, w = v.components, self.settings
        patron = 2 * ctx.has("statue_patron")
        late = ctx.epoch >= w["points_side_from"]
        values = np.full((len(d), 33), 0.0)
        for s in range(4):
            missing = np.maximum(0, c.statue_requirement[s] - REQUIREMENT_CUT * ctx.has("requirement_cut")
                                 - ctx.tracks[:, CULTURE])
            base = w["points"] * c.statue_points[s] - ctx.coin * 3 * missing
            for t in range(4):
                coloured = base + ctx.track_value[:, t] * (c.statue_bonus[s] + patron)
                points = base + w["points"] * (c.statue_bonus[s] + patron) - 0.05 * ctx.track_value[:, t]
                points = points + np.where(late, 1.0, -1.0)
                values[:, A.statue_option(s, t, A.COLOURED)] = coloured
                values[:, A.statue_option(s, t, A.POINTS_SIDE)] = points
        return best(values, d.legal)

    # --- feeding and medals -----------------------------------------------------------------

    def feed(self, d: Decision):
        v = d.view
        ctx = self.context(v)
        c = v.components
        # Value of keeping each card: points, tracks, sets, effect; losing food forces more removals.
        keep = (self.settings["points"] * c.card_points[None, :]
                + np.einsum("ct,gt->gc", c.card_values.astype(float), ctx.track_value)
                + 3.0 * c.card_values[None, :, FOOD]
                + ctx.set_value[:, c.card_colour.astype(np.int64)]
                + EFFECT_VALUES[c.card_effect][None, :])
        pay = (-FEED_COIN_PRICE * ctx.coin)[:, None]
        return best(np.concatenate([-keep, pay], axis=1), d.legal)

    def medal(self, d: Decision):
        v = d.view
        ctx = self.context(v)
        c, w = v.components, self.settings
        epoch = ctx.epoch
        discount = ctx.has("medal_discount") & (epoch > 1)
        silver_price = np.where(discount, np.array([0, 0, MEDAL_DISCOUNT_SILVER[2], MEDAL_DISCOUNT_SILVER[3]])[epoch],
                                np.asarray(c.silver_price)[epoch - 1])
        gold_price = np.where(discount, np.array([0, 0, MEDAL_DISCOUNT_GOLD[2], MEDAL_DISCOUNT_GOLD[3]])[epoch],
                              np.asarray(c.gold_price)[epoch - 1])
        # Projected end tracks and sets: today's plus what the remaining epochs typically add.
        growth = np.array([0.0, 1.0, 0.55, 0.15])[epoch]
        end_tracks = ctx.tracks * (1 + growth[:, None])
        sets_now = ctx.counts.min(axis=1)
        end_sets = sets_now + np.array([0, 2.0, 1.0, 0.0])[epoch] * np.where(ctx.counts.min(axis=1) >= 0, 1, 0)
        full = ctx.has("silver_full") & ((ctx.silver >= 0).sum(axis=1) == 0)
        silver_points = np.where(full[:, None], end_tracks, np.ceil(end_tracks / 2))
        # A tile spent on a silver medal is not available for a statue.
        statues_left = (ctx.statues < 0).sum(axis=1)
        tiles_left = ctx.tiles.sum(axis=1)
        tile_cost = np.where(tiles_left - 1 < statues_left, 3.0, 0.0)
        values = np.zeros((len(d), 6))
        values[:, 1:5] = (w["points"] * silver_points - ctx.coin[:, None] * silver_price[:, None]
                          - tile_cost[:, None])
        values[:, 1:5] = np.where(silver_points >= w["silver_min"], values[:, 1:5], -1.0)
        wildcard = ctx.has("gold_wildcard")
        values[:, 5] = (w["points"] * GOLD_POINTS_PER_SET * (end_sets + wildcard * 0.7)
                        - ctx.coin * gold_price)
        return best(values, d.legal)

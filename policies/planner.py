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

from hadara_sim import actions as A
from hadara_sim.constants import (
    COLONY_BOUNTY, CULTURE, EFFECT_INDEX, FEED_COIN_PRICE, FOOD, GOLD_POINTS_PER_SET, INCOME,
    MEDAL_DISCOUNT_GOLD, MEDAL_DISCOUNT_SILVER, MILITARY, REQUIREMENT_CUT,
    SET_COLLECTOR_POINTS,
)
from hadara_sim.policy import Decision, Policy

from .common import EFFECT_VALUES, best, income_steps_left, own, price, sell_value

_E = EFFECT_INDEX


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

    @cached_property
    def track_value(self) -> np.ndarray:
        return self._track_values()

    @cached_property
    def set_value(self) -> np.ndarray:
        return self._set_values()

    @cached_property
    def prize(self) -> dict:
        """Points a card is worth for reaching the next colony / statue requirement in time."""
        return {MILITARY: np.full(self.n, self.w["colony_prize"]), CULTURE: np.full(self.n, self.w["statue_prize"])}

    def has(self, effect: str) -> np.ndarray:
        return self.view.own("effects", _E[effect])

    def _track_values(self) -> np.ndarray:
        """Points from one more step on each track, (games, 4)."""
        w = self.w
        tv = np.empty((self.n, 4))
        tv[:, INCOME] = w["income"] * self.coin * self.income_left
        active = np.minimum(self.steps_left, 4) / 4.0
        tv[:, MILITARY] = w["military"] * active
        tv[:, CULTURE] = w["culture"] * active
        slack = self.tracks[:, FOOD] - self.counts.sum(axis=1)
        tv[:, FOOD] = w["food"] * np.where(slack <= 1, 1.0, 0.35) * (self.feeds_left > 0)
        silver_on = (self.silver[:, :, None] == np.arange(4)).sum(axis=1).astype(np.float64)
        full = self.has("silver_full")
        tv += np.where(full[:, None], 1.0, 0.5) * np.minimum(silver_on, 1) + 0.5 * np.maximum(silver_on - 1, 0)
        return tv

    def _set_values(self) -> np.ndarray:
        """Points from one more card of each colour through gold medals and set_collector (games, 5)."""
        golds = self.gold + self.planned_golds()
        per_set = GOLD_POINTS_PER_SET * golds + SET_COLLECTOR_POINTS * self.has("set_collector")
        low = self.counts.min(axis=1, keepdims=True)
        lacking = (self.counts == low)
        share = lacking / lacking.sum(axis=1, keepdims=True)
        return self.w["sets"] * per_set[:, None] * np.where(lacking, share, 0.15)

    def planned_golds(self) -> np.ndarray:
        """Gold medals the player can still expect to buy (0..2 - owned)."""
        return np.where(self.epoch < 3, np.maximum(0, np.minimum(2, self.w["gold_plan"]) - self.gold), 0)

    def feed_penalty(self, food_gain: np.ndarray) -> np.ndarray:
        """Expected loss at the next feeding from owning one more card with `food_gain` food."""
        slack = self.tracks[:, FOOD, None] - self.counts.sum(axis=1, keepdims=True) - 1 + food_gain
        if_short = np.where(self.has("feed_with_coins")[:, None], FEED_COIN_PRICE * self.coin[:, None],
                            self.w["feed_loss"])
        weight = np.where(self.phase == 1, 1.0, 0.6)[:, None]
        return np.where(slack < 0, if_short * weight, 0.0)

    def card_values(self, cards: np.ndarray) -> np.ndarray:
        """Points-equivalent of owning each card of `cards` (games, k), before its price."""
        c, w = self.c, self.w
        values = c.card_values[cards].astype(np.float64)
        colour = c.card_colour[cards].astype(np.int64)
        # affinity cards add one step per owned card of their colour, and later ones too
        for t in range(4):
            aff = self.has(f"affinity_{('income', 'military', 'culture', 'food')[t]}")
            values[:, :, t] += (colour == t) * aff[:, None]
        value = w["points"] * c.card_points[cards] + np.einsum("gkt,gt->gk", values, self.track_value)
        value += np.take_along_axis(self.set_value, colour, axis=1)
        value += np.asarray(w["colours"], float)[colour]
        value += self.effect_values(cards)
        value += self.threshold_bonus(values)
        value -= self.feed_penalty(values[:, :, FOOD])
        return value

    def effect_values(self, cards: np.ndarray) -> np.ndarray:
        effect = self.c.card_effect[cards]
        value = EFFECT_VALUES[effect] * self.w["effects"] * np.minimum(1.0, self.income_left / 4.0)[:, None]
        for t, name in enumerate(("affinity_income", "affinity_military", "affinity_culture", "affinity_food")):
            m = effect == _E[name]
            value = np.where(m, self.counts[:, t, None] * self.track_value[:, t, None] + 1.0, value)
        return value

    def next_requirement(self, track: int) -> np.ndarray:
        """The lowest requirement still open on a track (colony levels or statues), inf if none."""
        return self._next_requirements[track]

    @cached_property
    def _next_requirements(self) -> dict:
        return {MILITARY: self._open_requirement(MILITARY), CULTURE: self._open_requirement(CULTURE)}

    def _open_requirement(self, track: int) -> np.ndarray:
        c = self.c
        cut = REQUIREMENT_CUT * self.has("requirement_cut")
        if track == MILITARY:
            req = np.where(self.colonies == 0, c.level_requirement[None, :], np.inf)
            req = np.where(self.view.colony_left > 0, req, np.inf)
        else:
            req = np.where(self.statues < 0, c.statue_requirement[None, :], np.inf)
        return req.min(axis=1) - cut

    def threshold_bonus(self, values: np.ndarray) -> np.ndarray:
        """Lookahead: a card that lifts military or culture to the next requirement before the next
        colony or statue step is worth part of that colony or statue."""
        bonus = np.zeros(values.shape[:2])
        for track, prize in self.prize.items():
            need = self.next_requirement(track)[:, None] - self.tracks[:, track, None]
            reach = (need > 0) & (values[:, :, track] >= need) & (self.steps_left[:, None] > 0)
            bonus += reach * prize[:, None]
        return bonus


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

"""`greedy`: at every decision, the option with the best immediate value.

Values are in points: a card is worth its points plus its track steps times a weight per track
(income earns its coins until the end) plus a flat value for a purple effect and a bonus per colour;
coins are worth `coin` points each. Colonies, statues and medals are valued by the points and steps
they give at once. No lookahead: a baseline that plays every decision sensibly.
"""

import numpy as np

from hadara_sim import actions as A
from hadara_sim.constants import (
    COLONY_BOUNTY, EFFECT_INDEX, GOLD_POINTS_PER_SET, MEDAL_DISCOUNT_GOLD, MEDAL_DISCOUNT_SILVER,
)
from hadara_sim.policy import Decision, Policy

from .common import (
    best, card_value, income_steps_left, own, price, sell_value, track_weights, value_table,
)


class Greedy(Policy):
    name = "greedy"
    description = ("Takes the option with the best immediate value in points, under weights for "
                   "tracks, coins, points and card colours. No lookahead.")
    params = {"income": 1.0, "military": 0.8, "culture": 0.8, "food": 1.3, "coin": 0.35,
              "points": 1.0, "colours": (0.0, 0.0, 0.0, 0.0, 0.0)}

    def track_weights(self, view) -> np.ndarray:
        """(games, 4) points per track step at this point of each game."""
        return track_weights(self.settings, income_steps_left(view.epoch, view.phase))

    def values(self, view):
        """This policy's card value table for the view's component set (computed once)."""
        c = view.components
        if getattr(self, "_table_for", None) is not c:
            self._table, self._table_for = value_table(c, self.settings), c
        return self._table

    def _buy_or_sell(self, view, cards, legal_buy):
        """Values (games, k, 2) of buying or selling each card."""
        w = self.settings
        buy = card_value(view, cards, self.values(view)) - w["coin"] * price(view, cards)
        sell = np.broadcast_to((w["coin"] * sell_value(view))[:, None], buy.shape)
        return np.stack([np.where(legal_buy, buy, -np.inf), sell], axis=2)

    def draw(self, d: Decision):
        v = d.view
        hand = v.hand.astype(np.int64)
        kept = hand[:, ::-1]  # option discard 0 keeps card 1, discard 1 keeps card 0
        values = self._buy_or_sell(v, kept, d.legal[:, [0, 2]]).reshape(len(d), 4)
        # Among equal values, discard the card worth less (it feeds phase B for everyone).
        values = values - 0.01 * np.repeat(card_value(v, hand, self.values(v)), 2, axis=1)
        return best(values, d.legal)

    def pick(self, d: Decision):
        v = d.view
        n = len(d)
        top = np.take_along_axis(v.piles, np.maximum(v.pile_size.astype(np.int64) - 1, 0)[:, :, None],
                                 axis=2)[:, :, 0].astype(np.int64)
        top = np.maximum(top, 0)
        values = self._buy_or_sell(v, top, d.legal[:, 0::2]).reshape(n, 10)
        return best(values, d.legal)

    def tile(self, d: Decision):
        return best(self.track_weights(d.view), d.legal)

    def side(self, d: Decision):
        v = d.view
        c = v.components
        w = self.settings
        init = own(v, "initiative").astype(np.int64) - 1
        tw = self.track_weights(v)
        values = w["coin"] * c.setup_coins[init] + np.einsum("gst,gt->gs", c.setup_values[init], tw)
        return best(values, d.legal)

    def wheel(self, d: Decision):
        """Face first the deck of the colour the player holds most of (cheapest buys)."""
        v = d.view
        counts = own(v, "colour_count")[:, :5]
        seat = v.player.astype(np.int64)
        positions = (np.arange(5)[None, :] + seat[:, None]) % 5
        faced = np.take_along_axis(v.colour_order.astype(np.int64), positions, axis=1)
        return best(np.take_along_axis(counts, faced, axis=1).astype(float), d.legal)

    def colony(self, d: Decision):
        v = d.view
        c = v.components
        w = self.settings
        tw = self.track_weights(v)
        front = v.colony_front.astype(float)
        bounty = COLONY_BOUNTY * v.own("effects", EFFECT_INDEX["colony_bounty"])
        levels = np.arange(5)
        mean_back = np.array([c.colony_back_values[c.colony_level == lv].mean(0) for lv in levels])
        mean_back_points = np.array([c.colony_back_points[c.colony_level == lv].mean() for lv in levels])
        plunder = w["coin"] * (front[:, :, 1] + bounty[:, None]) + w["points"] * front[:, :, 3]
        integrate = (w["points"] * mean_back_points[None] + tw @ mean_back.T
                     - w["coin"] * (front[:, :, 2] - bounty[:, None]))
        values = np.zeros((len(d), 11))
        values[:, 1::2] = plunder
        values[:, 2::2] = integrate
        return best(values, d.legal)

    def statue(self, d: Decision):
        v = d.view
        c = v.components
        w = self.settings
        tw = self.track_weights(v)
        values = np.zeros((len(d), 33))
        for s in range(4):
            for t in range(4):
                base = w["points"] * c.statue_points[s]
                values[:, A.statue_option(s, t, A.COLOURED)] = base + tw[:, t] * c.statue_bonus[s]
                # A points side spends the tile; prefer spending the least useful colour.
                values[:, A.statue_option(s, t, A.POINTS_SIDE)] = (
                    base + w["points"] * c.statue_bonus[s] - 0.01 * tw[:, t])
        return best(values, d.legal)

    def feed(self, d: Decision):
        v = d.view
        table = self.values(v)[v.epoch.astype(np.int64) - 1, v.phase.astype(np.int64)]
        pay = np.full((len(d), 1), -self.settings["coin"] * 2)
        return best(np.concatenate([-table, pay], axis=1), d.legal)

    def medal(self, d: Decision):
        v = d.view
        c = v.components
        w = self.settings
        epoch = v.epoch.astype(np.int64)
        discount = v.own("effects", EFFECT_INDEX["medal_discount"])
        silver_price = np.where(discount & (epoch > 1),
                                np.array([0, 0, MEDAL_DISCOUNT_SILVER[2], MEDAL_DISCOUNT_SILVER[3]])[epoch],
                                np.asarray(c.silver_price)[epoch - 1])
        gold_price = np.where(discount & (epoch > 1),
                              np.array([0, 0, MEDAL_DISCOUNT_GOLD[2], MEDAL_DISCOUNT_GOLD[3]])[epoch],
                              np.asarray(c.gold_price)[epoch - 1])
        tracks = own(v, "tracks").astype(float)
        sets = own(v, "colour_count").min(axis=1)
        values = np.zeros((len(d), 6))
        values[:, 1:5] = w["points"] * np.ceil(tracks / 2) - w["coin"] * silver_price[:, None]
        values[:, 5] = w["points"] * GOLD_POINTS_PER_SET * sets - w["coin"] * gold_price
        return best(values, d.legal)

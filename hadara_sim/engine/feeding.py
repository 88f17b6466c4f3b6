"""Feed your people (phase B): one food per card owned, or lose cards."""

from __future__ import annotations

import numpy as np

from ..constants import (
    EFFECT_INDEX, FEED_COIN_MAX_CARDS, FEED_COIN_PRICE, FOOD, LOC_OWNED, SURPLUS_COINS_PER_FOOD,
    SURPLUS_MAX,
)
from .cards import remove_card
from .state import BatchState

FEED_WITH_COINS_EFFECT = EFFECT_INDEX["feed_with_coins"]
SURPLUS_EFFECT = EFFECT_INDEX["food_surplus"]


def feed_people(s: BatchState, seat: np.ndarray, ask):
    """While cards exceed food, remove a card (or pay 2 coins per card with feed_with_coins, at
    most 6); with food_surplus, 3 coins per surplus food (at most 12)."""
    n_cards = s.components.n_cards
    g = np.arange(s.games)
    seat = seat[g]
    paid = np.zeros(s.games, np.int64)
    live_g, live_seat = g, seat
    while len(live_g):
        need = s.colour_count[live_g, live_seat].sum(axis=1) - s.tracks[live_g, live_seat, FOOD] - paid[live_g]
        hungry = need > 0
        live_g, live_seat, need = live_g[hungry], live_seat[hungry], need[hungry]
        if not len(live_g):
            break
        legal = np.empty((len(live_g), n_cards + 1), bool)
        legal[:, :n_cards] = s.location[live_g] == (LOC_OWNED + live_seat)[:, None]
        legal[:, n_cards] = (s.effects[live_g, live_seat, FEED_WITH_COINS_EFFECT]
                             & (paid[live_g] < FEED_COIN_MAX_CARDS)
                             & (s.coins[live_g, live_seat] >= FEED_COIN_PRICE))
        choice = ask("feed", live_g, live_seat, legal, feed_need=need)
        pays = choice == n_cards
        s.coins[live_g[pays], live_seat[pays]] -= FEED_COIN_PRICE
        paid[live_g[pays]] += 1
        removes = ~pays
        remove_card(s, live_g[removes], live_seat[removes], choice[removes])
    surplus = s.tracks[g, seat, FOOD] - s.colour_count[g, seat].sum(axis=1)
    gains = np.minimum(SURPLUS_MAX, SURPLUS_COINS_PER_FOOD * np.maximum(surplus, 0))
    s.coins[g, seat] += gains * s.effects[g, seat, SURPLUS_EFFECT]

"""Feed your people (phase B): one food per card owned, or lose cards."""

from __future__ import annotations

import numpy as np

from ..constants import (
    EFFECT_INDEX, FEED_COIN_MAX_CARDS, FEED_COIN_PRICE, FOOD, LOC_OWNED, SURPLUS_COINS_PER_FOOD,
    SURPLUS_MAX,
)
from .cards import remove_card
from .decide import FEED, ask
from .state import compiled, inlined_step

FEED_WITH_COINS_EFFECT = EFFECT_INDEX["feed_with_coins"]
SURPLUS_EFFECT = EFFECT_INDEX["food_surplus"]


@compiled
def hunger(s, g, seat, paid):
    """Cards owned beyond food and the cards already paid for with coins."""
    return s.colour_count[g, seat].sum() - s.tracks[g, seat, FOOD] - paid


@compiled
def cards_to_feed(s, g, seat, paid, need):
    """`need`: the cards each seat still has to feed."""
    for i in range(len(g)):
        need[i] = hunger(s, g[i], seat[i], paid[g[i]])


@compiled
def feed_options(s, g, seat, paid, legal):
    """(n, C + 1) legal options: remove an owned card, or pay coins (feed_with_coins, at most 6
    cards, 2 coins each)."""
    n_cards = s.location.shape[1]
    for i in range(len(g)):
        for card in range(n_cards):
            legal[i, card] = s.location[g[i], card] == LOC_OWNED + seat[i]
        legal[i, n_cards] = (s.effects[g[i], seat[i], FEED_WITH_COINS_EFFECT] and paid[g[i]] < FEED_COIN_MAX_CARDS
                             and s.coins[g[i], seat[i]] >= FEED_COIN_PRICE)


@compiled
def feed(s, t, g, seat, choice, paid):
    """Pay 2 coins for a card (feed_with_coins) or remove the chosen card."""
    n_cards = s.location.shape[1]
    for i in range(len(g)):
        if choice[i] == n_cards:
            s.coins[g[i], seat[i]] -= FEED_COIN_PRICE
            paid[g[i]] += 1
        else:
            remove_card(s, t, g[i], seat[i], choice[i])


@compiled
def food_surplus(s, seat):
    """food_surplus: 3 coins per food beyond the cards owned, at most 12."""
    for g in range(len(seat)):
        surplus = -hunger(s, g, seat[g], 0)
        if s.effects[g, seat[g], SURPLUS_EFFECT]:
            s.coins[g, seat[g]] += min(SURPLUS_MAX, SURPLUS_COINS_PER_FOOD * max(surplus, 0))


@inlined_step
def feed_people(s, t, k, seat):
    """While cards exceed food, remove a card (or pay 2 coins per card with feed_with_coins, at
    most 6); with food_surplus, 3 coins per surplus food (at most 12)."""
    games = len(seat)
    n_cards = s.location.shape[1]
    paid = np.zeros(games, np.int64)
    live_g, live_seat = np.arange(games), seat.copy()
    while len(live_g):
        need = np.empty(len(live_g), np.int64)
        cards_to_feed(s, live_g, live_seat, paid, need)
        hungry = np.flatnonzero(need > 0)
        live_g, live_seat, need = live_g[hungry], live_seat[hungry], need[hungry]
        if not len(live_g):
            break
        legal = np.empty((len(live_g), n_cards + 1), np.bool_)
        feed_options(s, live_g, live_seat, paid, legal)
        n = len(live_g)
        choice = ask(s, t, k, FEED, live_g, live_seat, legal, np.zeros((n, 2), np.int64), np.zeros(n, np.int64), need)
        feed(s, t, live_g, live_seat, choice, paid)
    food_surplus(s, seat)

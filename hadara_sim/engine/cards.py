"""Buying, selling, discarding and losing cards, for a subset `g` of games and a seat in each.

Every function takes `g`, an index array of games, and `seat`, the acting seat in each of them.
"""

from __future__ import annotations

import numpy as np

from .. import actions as A
from ..constants import (
    AFFINITY_TRACK, BONUS_TILE_CARD_VALUE, EFFECT_INDEX, LOC_OWNED, LOC_PILE, LOC_REMOVED, LOC_SOLD,
    PATRON_BONUS, PURPLE, SELL_BONUS, TRACKS,
)
from .state import BatchState

# The affinity effect matching each track colour (yellow..green); purple has none.
AFFINITY_OF_COLOUR = np.array([EFFECT_INDEX[f"affinity_{t}"] for t in TRACKS])
SELL_BONUS_EFFECT = EFFECT_INDEX["sell_bonus"]
BONUS_TILE_EFFECT = EFFECT_INDEX["bonus_tile_card"]
PATRON_EFFECT = EFFECT_INDEX["statue_patron"]


def price(s: BatchState, g, seat, card) -> np.ndarray:
    """Printed cost less 1 per owned card of the same colour, never below 0."""
    c = s.components
    return np.maximum(0, c.card_cost[card] - s.colour_count[g, seat, c.card_colour[card]])


def can_buy(s: BatchState, g, seat, card) -> np.ndarray:
    """Enough coins, and a free tile for the bonus-tile card."""
    ok = s.coins[g, seat] >= price(s, g, seat, card)
    needs_tile = s.components.card_effect[card] == BONUS_TILE_EFFECT
    return ok & (~needs_tile | (s.tiles[g, seat].sum(axis=-1) > 0))


def discard(s: BatchState, g, card):
    """Put a card face up on top of its colour's discard pile."""
    colour = s.components.card_colour[card]
    s.piles[g, colour, s.pile_size[g, colour]] = card
    s.pile_size[g, colour] += 1
    s.location[g, card] = LOC_PILE


def sell_card(s: BatchState, g, seat, card):
    """Selling pays 2 / 3 / 4 coins by epoch (+1 with sell_bonus); the card leaves the game."""
    s.coins[g, seat] += s.components.sell[s.epoch_now - 1] + SELL_BONUS * s.effects[g, seat, SELL_BONUS_EFFECT]
    s.location[g, card] = LOC_SOLD


def buy_card(s: BatchState, g, seat, card, ask):
    """Pay the price, then gain the card."""
    s.coins[g, seat] -= price(s, g, seat, card)
    gain_card(s, g, seat, card, ask)


def buy_or_sell(s: BatchState, g, seat, card, action, ask):
    buy = action == A.BUY
    buy_card(s, g[buy], seat[buy], card[buy], ask)
    sell = ~buy
    sell_card(s, g[sell], seat[sell], card[sell])


def gain_card(s: BatchState, g, seat, card, ask):
    """The card's track values and effect apply at once."""
    c = s.components
    s.location[g, card] = LOC_OWNED + seat
    s.tracks[g, seat] += c.card_values[card]
    colour = c.card_colour[card]
    s.colour_count[g, seat, colour] += 1
    _affinity_for(s, g, seat, colour, +1)
    effect = c.card_effect[card]
    has = effect >= 0
    s.effects[g[has], seat[has], effect[has]] = True
    s.effect_epoch[g[has], seat[has], effect[has]] = s.epoch_now
    for e, track in AFFINITY_TRACK.items():
        m = effect == e
        s.tracks[g[m], seat[m], track] += s.colour_count[g[m], seat[m], track]
    m = effect == BONUS_TILE_EFFECT
    if m.any():
        gm, sm = g[m], seat[m]
        track = ask("tile", gm, sm, s.tiles[gm, sm] > 0, card=card[m])
        s.tiles[gm, sm, track] -= 1
        s.bonus_card_tile[gm, sm] = track
        s.tracks[gm, sm, track] += BONUS_TILE_CARD_VALUE
    m = effect == PATRON_EFFECT
    apply_patron(s, g[m], seat[m], +1)


def remove_card(s: BatchState, g, seat, card):
    """A removed card takes its track values and effect with it; no coins."""
    c = s.components
    s.location[g, card] = LOC_REMOVED
    s.tracks[g, seat] -= c.card_values[card]
    colour = c.card_colour[card]
    s.colour_count[g, seat, colour] -= 1
    _affinity_for(s, g, seat, colour, -1)
    effect = c.card_effect[card]
    has = effect >= 0
    s.effects[g[has], seat[has], effect[has]] = False
    s.effect_epoch[g[has], seat[has], effect[has]] = 0
    for e, track in AFFINITY_TRACK.items():
        m = effect == e
        s.tracks[g[m], seat[m], track] -= s.colour_count[g[m], seat[m], track]
    m = effect == BONUS_TILE_EFFECT
    gm, sm = g[m], seat[m]
    track = s.bonus_card_tile[gm, sm]
    s.tracks[gm, sm, track] -= BONUS_TILE_CARD_VALUE
    s.tiles[gm, sm, track] += 1
    s.bonus_card_tile[gm, sm] = -1
    m = effect == PATRON_EFFECT
    apply_patron(s, g[m], seat[m], -1)


def _affinity_for(s: BatchState, g, seat, colour, sign: int):
    """affinity_<track>: a card of the matching colour gained (or lost) moves that track by 1."""
    m = colour != PURPLE
    gm, sm, cm = g[m], seat[m], colour[m]
    s.tracks[gm, sm, cm] += sign * s.effects[gm, sm, AFFINITY_OF_COLOUR[cm]]


def apply_patron(s: BatchState, g, seat, sign: int):
    """statue_patron: +2 on the tile's track of every statue carved coloured side up."""
    statues = s.statues[g, seat]
    for j in range(statues.shape[1]):
        m = (statues[:, j] >= 0) & (statues[:, j] % 2 == A.COLOURED)
        s.tracks[g[m], seat[m], statues[m, j] // 2] += sign * PATRON_BONUS

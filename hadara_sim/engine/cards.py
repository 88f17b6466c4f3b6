"""Buying, selling, discarding and losing cards, one game `g` and its acting `seat` at a time.

These are compiled (numba) functions on the state arrays `s` (`state.Arrays`) and the component
tables `t` (`ComponentSet.compiled`); the steps of the epoch call them in loops over the games of a batch.
"""

from __future__ import annotations

import numpy as np

from .. import actions as A
from ..constants import (
    BONUS_TILE_CARD_VALUE, EFFECT_INDEX, LOC_OWNED, LOC_PILE, LOC_REMOVED, LOC_SOLD, PATRON_BONUS,
    PURPLE, TRACKS,
)
from ..rules import card_price, sale_price
from .decide import TILE, ask
from .state import compiled, entry, inlined_step

# The affinity effect matching each track colour (yellow..green); purple has none.
AFFINITY_OF_COLOUR = np.array([EFFECT_INDEX[f"affinity_{t}"] for t in TRACKS])
BONUS_TILE_EFFECT = EFFECT_INDEX["bonus_tile_card"]
PATRON_EFFECT = EFFECT_INDEX["statue_patron"]
AFFINITY_FIRST = EFFECT_INDEX["affinity_income"]  # affinity_<track t> is effect AFFINITY_FIRST + t


@compiled
def can_buy(s, t, g, seat, card):
    """Enough coins, and a free tile for the bonus-tile card."""
    if s.coins[g, seat] < card_price(s, t, g, seat, card):
        return False
    return t.card_effect[card] != BONUS_TILE_EFFECT or s.tiles[g, seat].sum() > 0


@compiled
def offer(s, t, g, seat, card):
    """`can_buy`, noting in the card's record that the seat could have bought it."""
    if can_buy(s, t, g, seat, card):
        s.card_offered[g, card] |= np.uint8(1 << seat)
        return True
    return False


@compiled
def note_taken(s, g, seat, card):
    """Record who took a card (bought, granted or sold) and when: 2 * epoch + phase."""
    s.card_seat[g, card] = seat
    s.card_when[g, card] = 2 * s.clock[0] + s.clock[1]


@compiled
def discard(s, t, g, card):
    """Put a card face up on top of its colour's discard pile."""
    colour = t.card_colour[card]
    s.piles[g, colour, s.pile_size[g, colour]] = card
    s.pile_size[g, colour] += 1
    s.location[g, card] = LOC_PILE


@compiled
def sell_card(s, t, g, seat, card, epoch):
    """Selling pays 2 / 3 / 4 coins by epoch (+1 with sell_bonus); the card leaves the game."""
    s.coins[g, seat] += sale_price(s, t, g, seat, epoch)
    s.location[g, card] = LOC_SOLD
    note_taken(s, g, seat, card)


@compiled
def buy_or_sell(s, t, g, seat, card, action, epoch):
    """Buy (pay the price, then gain the card) or sell; True when the card bought asks for a
    bonus tile (`place_bonus_tiles`)."""
    if action == A.BUY:
        s.coins[g, seat] -= card_price(s, t, g, seat, card)
        return gain_card(s, t, g, seat, card, epoch)
    sell_card(s, t, g, seat, card, epoch)
    return False


@compiled
def gain_card(s, t, g, seat, card, epoch):
    """The card's track values and effect apply at once; True when it is the bonus-tile card,
    whose tile the owner places next (`place_bonus_tiles`)."""
    s.location[g, card] = LOC_OWNED + seat
    note_taken(s, g, seat, card)
    for track in range(4):
        s.tracks[g, seat, track] += t.card_values[card, track]
    colour = t.card_colour[card]
    s.colour_count[g, seat, colour] += 1
    _affinity_for(s, g, seat, colour, 1)
    effect = t.card_effect[card]
    if effect >= 0:
        s.effects[g, seat, effect] = True
        s.effect_epoch[g, seat, effect] = epoch
    if AFFINITY_FIRST <= effect < AFFINITY_FIRST + 4:
        track = effect - AFFINITY_FIRST
        s.tracks[g, seat, track] += s.colour_count[g, seat, track]
    if effect == PATRON_EFFECT:
        apply_patron(s, g, seat, 1)
    return effect == BONUS_TILE_EFFECT


@entry
def remove_card(s, t, g, seat, card):
    """A removed card takes its track values and effect with it; no coins."""
    s.location[g, card] = LOC_REMOVED
    for track in range(4):
        s.tracks[g, seat, track] -= t.card_values[card, track]
    colour = t.card_colour[card]
    s.colour_count[g, seat, colour] -= 1
    _affinity_for(s, g, seat, colour, -1)
    effect = t.card_effect[card]
    if effect >= 0:
        s.effects[g, seat, effect] = False
        s.effect_epoch[g, seat, effect] = 0
    if AFFINITY_FIRST <= effect < AFFINITY_FIRST + 4:
        track = effect - AFFINITY_FIRST
        s.tracks[g, seat, track] -= s.colour_count[g, seat, track]
    if effect == BONUS_TILE_EFFECT and s.bonus_card_tile[g, seat] >= 0:  # a tile lies on it
        track = s.bonus_card_tile[g, seat]
        s.tracks[g, seat, track] -= BONUS_TILE_CARD_VALUE
        s.tiles[g, seat, track] += 1
        s.bonus_card_tile[g, seat] = -1
    if effect == PATRON_EFFECT:
        apply_patron(s, g, seat, -1)


@compiled
def _affinity_for(s, g, seat, colour, sign):
    """affinity_<track>: a card of the matching colour gained (or lost) moves that track by 1."""
    if colour != PURPLE:
        s.tracks[g, seat, colour] += sign * s.effects[g, seat, AFFINITY_OF_COLOUR[colour]]


@compiled
def apply_patron(s, g, seat, sign):
    """statue_patron: +2 on the tile's track of every statue carved coloured side up."""
    for j in range(s.statues.shape[2]):
        statue = s.statues[g, seat, j]
        if statue >= 0 and statue % 2 == A.COLOURED:
            s.tracks[g, seat, statue // 2] += sign * PATRON_BONUS


@compiled
def gain_cards(s, t, g, seat, card, epoch, tile):
    """`gain_card` in each game of `g`; `tile` marks those that ask for a bonus tile."""
    for i in range(len(g)):
        tile[i] = gain_card(s, t, g[i], seat[i], card[i], epoch)


@compiled
def _place_tiles(s, g, seat, track):
    for i in range(len(g)):
        s.tiles[g[i], seat[i], track[i]] -= 1
        s.bonus_card_tile[g[i], seat[i]] = track[i]
        s.tracks[g[i], seat[i], track[i]] += BONUS_TILE_CARD_VALUE


@inlined_step
def place_bonus_tiles(s, t, k, g, seat, card):
    """bonus_tile_card: its owner puts an unused bonus tile on it; that track rises by 2. An owner
    with no unused tile (only a granted card can find one so) places none."""
    free = np.zeros(len(g), np.bool_)
    for i in range(len(g)):
        free[i] = s.tiles[g[i], seat[i]].sum() > 0
    placing = np.flatnonzero(free)
    n = len(placing)
    if n:
        g, seat, card = g[placing], seat[placing], card[placing]
        legal = np.empty((n, 4), np.bool_)
        for i in range(n):
            for track in range(4):
                legal[i, track] = s.tiles[g[i], seat[i], track] > 0
        none = np.zeros(n, np.int64)
        track = ask(s, t, k, TILE, g, seat, legal, np.zeros((n, 2), np.int64), card, none)
        _place_tiles(s, g, seat, track)


@inlined_step
def gain(s, t, k, g, seat, card):
    """Give `card[i]` to `seat[i]` in game `g[i]` (no payment), bonus tile included."""
    tile = np.zeros(len(g), np.bool_)
    gain_cards(s, t, g, seat, card, s.clock[0], tile)
    given = np.flatnonzero(tile)
    place_bonus_tiles(s, t, k, g[given], seat[given], card[given])

"""What each seat did with the cards, as bit sets for the results' card columns.

The engine notes who took each card and when (`cards.note_taken`) and who could have bought it
(`cards.offer`); one compiled pass turns that record into a bit set per (game, seat) and column: bit
c % 8 of byte c // 8 stands for card c.
"""

from __future__ import annotations

import numpy as np

from ..constants import LOC_REMOVED, LOC_SOLD
from .state import entry


@entry
def card_bits(card_seat, location, card_when, card_offered, granted, bought, bought_in_b, sold, fed_away, offered):
    """Fill the (games * P, bytes) bit sets: cards bought (granted ones not; those later removed in
    feeding too), the ones of them bought in phase B, sold, removed in feeding, and offered."""
    games, cards = card_seat.shape
    players = bought.shape[0] // games
    for g in range(games):
        for c in range(cards):
            byte, bit = c // 8, np.uint8(1 << (c % 8))
            seat = card_seat[g, c]
            if seat >= 0:
                row = g * players + seat
                if location[g, c] == LOC_SOLD:
                    sold[row, byte] |= bit
                else:
                    if location[g, c] == LOC_REMOVED:
                        fed_away[row, byte] |= bit
                    if not granted[g, c]:
                        bought[row, byte] |= bit
                        if card_when[g, c] % 2 == 1:
                            bought_in_b[row, byte] |= bit
            seats, p = card_offered[g, c], 0
            while seats:  # most cards are offered to nobody, or to one or two seats
                if seats & 1:
                    offered[g * players + p, byte] |= bit
                seats >>= 1
                p += 1

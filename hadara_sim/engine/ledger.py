"""What each seat did with the cards, as flat arrays for the results' list columns.

The engine notes who took each card and when (`cards.note_taken`); these loops turn that record
into one list per (game, seat) without visiting anything twice: a pass to count, a pass to fill.
"""

from __future__ import annotations

from ..constants import LOC_OWNED, LOC_REMOVED, LOC_SOLD
from .state import compiled

BOUGHT, SOLD, FED_AWAY = range(3)


@compiled
def _kind(location, granted):
    """BOUGHT, SOLD or FED_AWAY for a card its seat took, -1 for a granted card it still owns."""
    if location == LOC_SOLD:
        return SOLD
    if location == LOC_REMOVED:
        return FED_AWAY
    return -1 if granted else BOUGHT


@compiled
def count_cards(card_seat, location, granted, counts):
    """`counts` (3, games * P): cards bought (granted ones not), sold and fed away per (game, seat)."""
    games, cards = card_seat.shape
    players = counts.shape[1] // games
    for g in range(games):
        for c in range(cards):
            seat = card_seat[g, c]
            if seat >= 0:
                row = g * players + seat
                kind = _kind(location[g, c], granted[g, c])
                if kind >= 0:
                    counts[kind, row] += 1
                if kind == FED_AWAY and not granted[g, c]:
                    counts[BOUGHT, row] += 1


@compiled
def list_cards(card_seat, location, card_when, granted, fill, bought, bought_when, sold, fed_away):
    """Fill the lists from `fill` (3, games * P), the start of each (game, seat)'s list in `bought`,
    `sold` and `fed_away` (moved on as they fill); cards ascending within each list."""
    games, cards = card_seat.shape
    players = fill.shape[1] // games
    for g in range(games):
        for c in range(cards):
            seat = card_seat[g, c]
            if seat < 0:
                continue
            row = g * players + seat
            kind = _kind(location[g, c], granted[g, c])
            if kind == SOLD:
                sold[fill[SOLD, row]] = c
                fill[SOLD, row] += 1
            elif kind == FED_AWAY:
                fed_away[fill[FED_AWAY, row]] = c
                fill[FED_AWAY, row] += 1
            if kind == BOUGHT or (kind == FED_AWAY and not granted[g, c]):
                bought[fill[BOUGHT, row]] = c
                bought_when[fill[BOUGHT, row]] = card_when[g, c]
                fill[BOUGHT, row] += 1

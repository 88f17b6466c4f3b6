"""Phase B: from the first player clockwise, take the top card of any discard pile."""

from __future__ import annotations

import numpy as np

from .. import actions as A
from .cards import buy_or_sell, offer, place_bonus_tiles
from .decide import PICK, ask_plain
from .state import compiled, compiled_step


@compiled
def pick_options(s, t, seat, legal):
    """(games, 10) legal picks: the top card of a non-empty pile, bought if affordable or sold."""
    for g in range(len(seat)):
        for colour in range(5):
            size = s.pile_size[g, colour]
            if size > 0:
                legal[g, A.pick_option(colour, A.BUY)] = offer(s, t, g, seat[g], s.piles[g, colour, size - 1])
                legal[g, A.pick_option(colour, A.SELL)] = True


@compiled
def take_picks(s, t, seat, choice, epoch, cards, tile):
    """Take the chosen pile's top card in every game (`cards`) and buy or sell it; `tile` marks the
    games where the card bought asks for a bonus tile."""
    for g in range(len(seat)):
        colour, action = divmod(choice[g], 2)
        s.pile_size[g, colour] -= 1
        cards[g] = s.piles[g, colour, s.pile_size[g, colour]]
        s.piles[g, colour, s.pile_size[g, colour]] = -1
        tile[g] = buy_or_sell(s, t, g, seat[g], cards[g], action, epoch)


@compiled_step
def pick_turn(s, t, k, seat):
    """Take the top card of a non-empty pile, then buy or sell it."""
    games = len(seat)
    legal = np.zeros((games, 10), np.bool_)
    pick_options(s, t, seat, legal)
    choice = ask_plain(s, t, k, PICK, np.arange(games), seat, legal)
    cards, tile = np.empty(games, np.int64), np.zeros(games, np.bool_)
    take_picks(s, t, seat, choice, s.clock[0], cards, tile)
    bought = np.flatnonzero(tile)
    place_bonus_tiles(s, t, k, bought, seat[bought], cards[bought])

"""Phase B: from the first player clockwise, take the top card of any discard pile."""

from __future__ import annotations

import numpy as np

from .. import actions as A
from .cards import buy_or_sell, can_buy, place_bonus_tiles
from .state import BatchState, compiled


def pile_tops(s: BatchState) -> np.ndarray:
    """(games, 5) top card of each discard pile (0 where empty; check pile_size)."""
    top = np.maximum(s.pile_size.astype(np.int64) - 1, 0)
    return np.maximum(np.take_along_axis(s.piles, top[:, :, None], axis=2)[:, :, 0], 0).astype(np.int64)


@compiled
def pick_options(s, t, seat, legal):
    """(games, 10) legal picks: the top card of a non-empty pile, bought if affordable or sold."""
    for g in range(len(seat)):
        for colour in range(5):
            size = s.pile_size[g, colour]
            if size > 0:
                legal[g, A.pick_option(colour, A.BUY)] = can_buy(s, t, g, seat[g], s.piles[g, colour, size - 1])
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


def pick_turn(s: BatchState, seat: np.ndarray, ask):
    """Take the top card of a non-empty pile, then buy or sell it."""
    g = np.arange(s.games)
    legal = np.zeros((s.games, 10), bool)
    pick_options(s.arrays, s.tables, seat, legal)
    choice = ask("pick", g, seat, legal)
    cards, tile = np.empty(s.games, np.int64), np.zeros(s.games, bool)
    take_picks(s.arrays, s.tables, seat, choice, s.epoch_now, cards, tile)
    place_bonus_tiles(s, g[tile], seat[tile], cards[tile], ask)

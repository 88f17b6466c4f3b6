"""Phase B: from the first player clockwise, take the top card of any discard pile."""

from __future__ import annotations

import numpy as np

from .. import actions as A
from .cards import buy_or_sell, can_buy
from .state import BatchState


def pile_tops(s: BatchState) -> np.ndarray:
    """(games, 5) top card of each discard pile (0 where empty; check pile_size)."""
    top = np.maximum(s.pile_size.astype(np.int64) - 1, 0)
    return np.maximum(np.take_along_axis(s.piles, top[:, :, None], axis=2)[:, :, 0], 0).astype(np.int64)


def pick_turn(s: BatchState, seat: np.ndarray, ask):
    """Take the top card of a non-empty pile, then buy or sell it."""
    g = np.arange(s.games)
    tops = pile_tops(s)
    filled = s.pile_size > 0
    legal = np.empty((s.games, 10), bool)
    legal[:, A.pick_option(0, A.BUY)::2] = filled & can_buy(s, g[:, None], seat[:, None], tops)
    legal[:, A.pick_option(0, A.SELL)::2] = filled
    colour, action = np.divmod(ask("pick", g, seat, legal), 2)
    card = tops[g, colour]
    s.pile_size[g, colour] -= 1
    s.piles[g, colour, s.pile_size[g, colour]] = -1
    buy_or_sell(s, g, seat, card, action, ask)

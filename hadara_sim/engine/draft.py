"""Phase A: the first player sets the wheel, then five draw rounds."""

from __future__ import annotations

import numpy as np

from .. import actions as A
from ..constants import COLOURS, LOC_DECK
from .cards import buy_or_sell, can_buy, discard
from .state import BatchState


def lay_out_decks(s: BatchState):
    """Each colour deck gets the 2 x P cards the deal chose for this epoch, face down."""
    decks = s.deals.decks[:, s.epoch_now - 1].reshape(s.games, -1).astype(np.int64)
    np.put_along_axis(s.location, decks, LOC_DECK, axis=1)
    s.deck_ptr[:] = 0
    s.piles[:] = -1
    s.pile_size[:] = 0


def set_wheel(s: BatchState, ask):
    """The first player turns the wheel: which board position seat 0 faces in round 1."""
    g = np.arange(s.games)
    s.rotation[:] = -1
    s.rotation[:] = ask("wheel", g, s.first_player.astype(np.int64), np.ones((s.games, 5), bool))


def faced_colour(s: BatchState, seat: int) -> np.ndarray:
    """The deck colour a seat faces in the current draw round (the wheel turns each round)."""
    position = (s.rotation.astype(np.int64) + seat + s.round_now) % len(COLOURS)
    return np.take_along_axis(s.deals.colour_order, position[:, None], axis=1)[:, 0].astype(np.int64)


def draw_round(s: BatchState, ask):
    """All players draw 2 from the deck they face, discard 1 face up, buy or sell the other.

    Players decide at the same time: every decision sees the state before anyone resolves.
    """
    g = np.arange(s.games)
    decks = s.deals.decks[:, s.epoch_now - 1]
    hands = []
    for seat in range(s.players):
        colour = faced_colour(s, seat)
        ptr = s.deck_ptr[g, colour].astype(np.int64)
        hands.append(np.stack([decks[g, colour, ptr], decks[g, colour, ptr + 1]], axis=1).astype(np.int64))
        s.deck_ptr[g, colour] += 2
    choices = []
    for seat, hand in enumerate(hands):
        seats = np.full(s.games, seat)
        legal = np.ones((s.games, 4), bool)
        legal[:, A.draw_option(0, A.BUY)] = can_buy(s, g, seats, hand[:, 1])
        legal[:, A.draw_option(1, A.BUY)] = can_buy(s, g, seats, hand[:, 0])
        choices.append(ask("draw", g, seats, legal, hand=hand))
    for seat, (hand, choice) in enumerate(zip(hands, choices)):
        seats = np.full(s.games, seat)
        dropped, action = np.divmod(choice, 2)
        discard(s, g, hand[g, dropped])
        buy_or_sell(s, g, seats, hand[g, 1 - dropped], action, ask)

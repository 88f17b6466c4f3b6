"""Phase A: the first player sets the wheel, then five draw rounds."""

from __future__ import annotations

import numpy as np

from .. import actions as A
from ..constants import COLOURS, LOC_DECK
from .cards import buy_or_sell, can_buy, discard, place_bonus_tiles
from .state import BatchState, compiled


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


@compiled
def faced_colour(s, g, seat, draw_round):
    """The deck colour a seat faces in the current draw round (the wheel turns each round)."""
    return s.colour_order[g, (s.rotation[g] + seat + draw_round) % len(COLOURS)]


@compiled
def draw_hands(s, t, epoch, draw_round, hands, legal):
    """Every seat draws the top 2 cards of the deck it faces into `hands` (P, games, 2); `legal`
    (P, games, 4) marks the draw options (discard either card; buy the other if affordable)."""
    games, players = s.coins.shape
    for g in range(games):
        for seat in range(players):
            colour = faced_colour(s, g, seat, draw_round)
            ptr = s.deck_ptr[g, colour]
            hands[seat, g, 0] = s.deal_decks[g, epoch - 1, colour, ptr]
            hands[seat, g, 1] = s.deal_decks[g, epoch - 1, colour, ptr + 1]
            s.deck_ptr[g, colour] += 2
        for seat in range(players):
            legal[seat, g, A.draw_option(0, A.BUY)] = can_buy(s, t, g, seat, hands[seat, g, 1])
            legal[seat, g, A.draw_option(1, A.BUY)] = can_buy(s, t, g, seat, hands[seat, g, 0])


@compiled
def resolve_draw(s, t, seat, hand, choice, epoch, tile):
    """One seat's draw in every game: discard the chosen card, buy or sell the other; `tile`
    marks the games where the card bought asks for a bonus tile."""
    for g in range(len(hand)):
        dropped, action = divmod(choice[g], 2)
        discard(s, t, g, hand[g, dropped])
        tile[g] = buy_or_sell(s, t, g, seat, hand[g, 1 - dropped], action, epoch)


def draw_round(s: BatchState, ask):
    """All players draw 2 from the deck they face, discard 1 face up, buy or sell the other.

    Players decide at the same time: every decision sees the state before anyone resolves.
    """
    g = np.arange(s.games)
    hands = np.empty((s.players, s.games, 2), np.int64)
    legal = np.ones((s.players, s.games, 4), bool)
    draw_hands(s.arrays, s.tables, s.epoch_now, s.round_now, hands, legal)
    choices = [ask("draw", g, np.full(s.games, seat), legal[seat], hand=hands[seat]) for seat in range(s.players)]
    for seat, (hand, choice) in enumerate(zip(hands, choices)):
        tile = np.zeros(s.games, bool)
        resolve_draw(s.arrays, s.tables, seat, hand, choice, s.epoch_now, tile)
        kept = hand[g, 1 - choice // 2]
        place_bonus_tiles(s, g[tile], np.full(int(tile.sum()), seat), kept[tile], ask)

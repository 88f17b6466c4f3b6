"""Phase A: the first player sets the wheel, then five draw rounds."""

from __future__ import annotations

import numpy as np

from .. import actions as A
from ..constants import COLOURS, LOC_DECK
from .cards import buy_or_sell, discard, offer, place_bonus_tiles
from .decide import DRAW, WHEEL, ask, ask_plain
from .state import compiled, compiled_step, inlined_step


@compiled
def lay_out_decks(s, epoch):
    """Each colour deck gets the 2 x P cards the deal chose for this epoch, face down."""
    games, colours, size = s.deck_ptr.shape[0], s.deal_decks.shape[2], s.deal_decks.shape[3]
    for g in range(games):
        for colour in range(colours):
            for k in range(size):
                s.location[g, s.deal_decks[g, epoch - 1, colour, k]] = LOC_DECK
            s.deck_ptr[g, colour] = 0
            s.pile_size[g, colour] = 0
            for k in range(s.piles.shape[2]):
                s.piles[g, colour, k] = -1


@inlined_step
def set_wheel(s, t, k):
    """The first player turns the wheel: which board position seat 0 faces in round 1."""
    games = len(s.rotation)
    s.rotation[:] = -1
    s.rotation[:] = ask_plain(s, t, k, WHEEL, np.arange(games), s.first_player.astype(np.int64),
                              np.ones((games, 5), np.bool_))


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
            legal[seat, g, A.draw_option(0, A.BUY)] = offer(s, t, g, seat, hands[seat, g, 1])
            legal[seat, g, A.draw_option(1, A.BUY)] = offer(s, t, g, seat, hands[seat, g, 0])


@compiled
def resolve_draw(s, t, seat, hand, choice, epoch, tile):
    """One seat's draw in every game: discard the chosen card, buy or sell the other; `tile`
    marks the games where the card bought asks for a bonus tile."""
    for g in range(len(hand)):
        dropped, action = divmod(choice[g], 2)
        discard(s, t, g, hand[g, dropped])
        tile[g] = buy_or_sell(s, t, g, seat, hand[g, 1 - dropped], action, epoch)


@compiled_step
def draw_round(s, t, k):
    """All players draw 2 from the deck they face, discard 1 face up, buy or sell the other.

    Players decide at the same time: every decision sees the state before anyone resolves.
    """
    games, players = s.coins.shape
    epoch, draw_round = s.clock[0], s.clock[2]
    g = np.arange(games)
    hands = np.empty((players, games, 2), np.int64)
    legal = np.ones((players, games, 4), np.bool_)
    draw_hands(s, t, epoch, draw_round, hands, legal)
    choices = np.empty((players, games), np.int64)
    none = np.zeros(games, np.int64)
    for seat in range(players):
        choices[seat] = ask(s, t, k, DRAW, g, np.full(games, seat), legal[seat], hands[seat], none, none)
    for seat in range(players):
        tile = np.zeros(games, np.bool_)
        resolve_draw(s, t, seat, hands[seat], choices[seat], epoch, tile)
        bought = np.flatnonzero(tile)
        kept = np.empty(len(bought), np.int64)
        for i in range(len(bought)):
            kept[i] = hands[seat, bought[i], 1 - choices[seat, bought[i]] // 2]
        place_bonus_tiles(s, t, k, bought, np.full(len(bought), seat), kept)

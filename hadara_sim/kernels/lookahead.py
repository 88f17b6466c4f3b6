"""foresight's phase B lookahead (rule `pick_ahead`): every pick tried, the next round of picks
played forward on the public piles with each seat taking its best pick by its own valuation.
"""

from __future__ import annotations

import numpy as np

from hadara_sim import actions as A
from hadara_sim.constants import FOOD
from hadara_sim.rules import card_price, price_for, sale_price

from .basics import _better, _card_count, helper, _step
from .layout import CARDS, COIN_AT, COUNTS, FOOD_AT, MONEY, PICK_ROUNDS, RIVAL_WEIGHT, SALE, SIZES
from .valuation import _card_worth, _context, _feed_risk


@helper
def _pick_ahead(v, gi, me, i, epoch, phase, legal, ct, params, table):
    """Buy or sell the top card of a discard pile by what the player's picks bring over the next
    `pick_rounds` rounds of picks (0: the rest of phase B), played forward on the public piles with
    every seat taking the best pick by its own valuation, less `rival_weight` times what a rival's
    picks bring on average (`_pick_line`)."""
    _pick_worths(v, gi, epoch, phase, ct, params, table)
    top, choice = -np.inf, 0
    for colour in range(5):
        for action in (A.BUY, A.SELL):
            option = A.pick_option(colour, action)
            if not legal[i, option]:
                continue
            total = _pick_line(v, gi, me, colour, action == A.SELL, ct, params, table)
            top, choice = _better(legal, i, option, total, top, choice)
    return choice


@helper
def _pick_worths(v, gi, epoch, phase, ct, params, table):
    """Every seat's worth of each card in the piles, its coin's value and its sale price into the
    scratch `table`, for `_pick_line`."""
    players = v.tracks.shape[1]
    state = table[2, 1]
    for s in range(players):
        at = _context(v, gi, s, epoch, phase, params, ct)
        for colour in range(5):
            for k in range(v.pile_size[gi, colour]):
                card = v.piles[gi, colour, k]
                table[s // 2, s % 2, card] = _card_worth(v, gi, s, card, epoch, phase, ct, params, at)
        state[COIN_AT + s] = at.coin
        state[SALE + s] = sale_price(v, ct, gi, s, epoch)


@helper
def _pick_line(v, gi, me, colour, sale, ct, params, table):
    """What seat me's pick (pile `colour`, sold or bought) and its next picks bring, less `rival_weight`
    times a rival's on average, the phase played forward (`_pick_worths` filled `table`)."""
    players = v.tracks.shape[1]
    rival = params[RIVAL_WEIGHT] / max(players - 1, 1)
    horizon = int(params[PICK_ROUNDS]) * players
    left = _start_forward(v, gi, players, table[2, 1])
    total = _take(v, gi, me, colour, sale, ct, params, table)
    turn = me + 1
    for _ in range(min(left - 1, horizon) if horizon > 0 else left - 1):
        s = turn % players
        pile, pile_sale = _best_pick(v, gi, s, ct, params, table)
        value = _take(v, gi, s, pile, pile_sale, ct, params, table)
        total += value if s == me else -rival * value
        turn += 1
    return total


@helper
def _start_forward(v, gi, players, state):
    """The phase as it stands into the scratch `state`; the number of cards left in the piles."""
    left = 0
    for colour in range(5):
        state[SIZES + colour] = v.pile_size[gi, colour]
        left += v.pile_size[gi, colour]
    for s in range(players):
        state[MONEY + s] = v.coins[gi, s]
        state[CARDS + s] = _card_count(v, gi, s)
        state[FOOD_AT + s] = v.tracks[gi, s, FOOD]
        for colour in range(5):
            state[COUNTS + 5 * s + colour] = v.colour_count[gi, s, colour]
    return left


@helper
def _best_pick(v, gi, s, ct, params, table):
    """Seat s's best pick in the phase played forward, as the planner values it: (pile, sale); a seat
    that cannot pay for a card must sell it."""
    state = table[2, 1]
    best, best_colour, best_sale = -np.inf, 0, True
    for colour in range(5):
        if state[SIZES + colour] > 0:
            card = v.piles[gi, colour, int(state[SIZES + colour]) - 1]
            if state[MONEY + s] >= price_for(ct.card_cost[card], state[COUNTS + 5 * s + ct.card_colour[card]]):
                value = _buy_now(v, gi, s, card, ct, params, table)
                if value > best:
                    best, best_colour, best_sale = value, colour, False
            value = state[COIN_AT + s] * state[SALE + s]
            if value > best:
                best, best_colour, best_sale = value, colour, True
    return best_colour, best_sale


@helper
def _buy_now(v, gi, s, card, ct, params, table):
    """Seat s's value of buying `card` in the phase played forward: its worth less price and feeding."""
    state = table[2, 1]
    colour = ct.card_colour[card]
    price = price_for(ct.card_cost[card], state[COUNTS + 5 * s + colour])
    slack = state[FOOD_AT + s] - state[CARDS + s] - 1 + _step(v, gi, s, ct, card, colour, FOOD)
    coin = state[COIN_AT + s]
    return table[s // 2, s % 2, card] - coin * price - _feed_risk(v, gi, s, slack, 1, params, coin)


@helper
def _rival_worth(v, gi, me, card, ct, table):
    """The most a rival of seat me would gain by buying `card` now, its worth less its price (0 if
    none would), as `_pick_worths` filled `table`."""
    best = 0.0
    for s in range(v.tracks.shape[1]):
        if s != me:
            best = max(best, table[s // 2, s % 2, card] - table[2, 1][COIN_AT + s] * card_price(v, ct, gi, s, card))
    return best


@helper
def _take(v, gi, s, colour, sale, ct, params, table):
    """Seat s takes the top card of pile `colour` in the phase played forward; its value to s."""
    state = table[2, 1]
    size = int(state[SIZES + colour])
    card = v.piles[gi, colour, size - 1]
    state[SIZES + colour] = size - 1
    if sale:
        state[MONEY + s] += state[SALE + s]
        return state[COIN_AT + s] * state[SALE + s]
    value = _buy_now(v, gi, s, card, ct, params, table)
    card_colour = ct.card_colour[card]
    state[MONEY + s] -= price_for(ct.card_cost[card], state[COUNTS + 5 * s + card_colour])
    state[CARDS + s] += 1
    state[FOOD_AT + s] += _step(v, gi, s, ct, card, card_colour, FOOD)
    state[COUNTS + 5 * s + card_colour] += 1
    return value

"""Vectorised helpers for policies: the acting player's own rows and simple valuations."""

from __future__ import annotations

import numpy as np
from numba import njit

from hadara_sim.constants import EFFECT_INDEX, INCOME, PURPLE, SELL_BONUS
from hadara_sim.kernels.layout import EFFECT_VALUES
from hadara_sim.policy import View
from hadara_sim.rules import price_for


def own(view: View, field: str) -> np.ndarray:
    """The acting player's row of a (games, P, ...) field."""
    return view.own(field)


def price(view: View, cards: np.ndarray) -> np.ndarray:
    """What the acting player pays for each card in `cards` (games, k): cost less owned colour."""
    c = view.components
    return _price(np.asarray(cards, np.int64), own(view, "colour_count"), c.card_cost, c.card_colour)


@njit(cache=True)
def _price(cards, counts, cost, colour):
    n, k = cards.shape
    paid = np.empty((n, k), np.int64)
    for g in range(n):
        for j in range(k):
            paid[g, j] = price_for(cost[cards[g, j]], counts[g, colour[cards[g, j]]])
    return paid


def income_steps_left(epoch, phase):
    """Income steps still to come, the current phase's included (arrays or plain numbers)."""
    return 2 * (3 - np.asarray(epoch, np.int64)) + np.where(np.asarray(phase) == 0, 2, 1)


def track_weights(weights: dict, steps) -> np.ndarray:
    """Points-equivalent of one step on each track (..., 4) with `steps` income steps to come:
    income earns coins until the end, the other tracks have flat weights."""
    steps = np.asarray(steps, np.float64)
    w = np.empty(steps.shape + (4,))
    w[..., INCOME] = weights["income"] * weights["coin"] * steps
    w[..., 1] = weights["military"]
    w[..., 2] = weights["culture"]
    w[..., 3] = weights["food"]
    return w


def value_table(components, weights: dict) -> np.ndarray:
    """(3 epochs, 2 phases, C) points-equivalent of owning each card, before paying for it.

    Valuations depend only on the card, the weights and the point in the game, so a policy
    computes them once and then only looks them up.
    """
    c = components
    table = np.empty((3, 2, c.n_cards))
    colours = np.asarray(weights["colours"], float)
    static = (weights["points"] * c.card_points + EFFECT_VALUES[c.card_effect]
              + colours[c.card_colour])
    for epoch in (1, 2, 3):
        for phase in (0, 1):
            tw = track_weights(weights, income_steps_left(epoch, phase))
            table[epoch - 1, phase] = static + c.card_values @ tw
    return table


def card_value(view: View, cards: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Look up the value of each card in `cards` (games, k) at this point of each game."""
    epoch = view.epoch.astype(np.int64) - 1
    phase = view.phase.astype(np.int64)
    return table[epoch[:, None], phase[:, None], cards]


def sell_value(view: View) -> np.ndarray:
    """Coins for selling a card now (games,)."""
    sell = np.asarray(view.components.sell)[view.epoch.astype(np.int64) - 1]
    bonus = view.own("effects", EFFECT_INDEX["sell_bonus"])
    return sell + SELL_BONUS * bonus


def best(values: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """Index of the highest-valued legal option in each game (first on ties)."""
    return _best(np.asarray(values, np.float64), legal)


@njit(cache=True)
def _best(values, legal):
    n, options = legal.shape
    choice = np.zeros(n, np.int64)  # the first option when no legal value beats -inf, as argmax does
    for i in range(n):
        top = -np.inf
        for j in range(options):
            if legal[i, j] and values[i, j] > top:
                top, choice[i] = values[i, j], j
    return choice


def purple_count(view: View) -> np.ndarray:
    return own(view, "colour_count")[:, PURPLE]

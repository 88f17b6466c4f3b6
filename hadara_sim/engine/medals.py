"""Buy medals (phase B, last): any number per step, at most 2 silver and 2 gold per game."""

from __future__ import annotations

import numpy as np

from .. import actions as A
from ..constants import (
    EFFECT_INDEX, GOLD_MAX, MEDAL_DISCOUNT_GOLD, MEDAL_DISCOUNT_SILVER, SILVER_MAX,
)
from .state import BatchState

DISCOUNT_EFFECT = EFFECT_INDEX["medal_discount"]


def medal_prices(s: BatchState, g, seat):
    """Silver and gold prices this epoch (medal_discount lowers them in epochs II and III)."""
    c = s.components
    silver = np.full(len(g), c.silver_price[s.epoch_now - 1])
    gold = np.full(len(g), c.gold_price[s.epoch_now - 1])
    if s.epoch_now in MEDAL_DISCOUNT_SILVER:
        discount = s.effects[g, seat, DISCOUNT_EFFECT]
        silver[discount] = MEDAL_DISCOUNT_SILVER[s.epoch_now]
        gold[discount] = MEDAL_DISCOUNT_GOLD[s.epoch_now]
    return silver, gold


def medal_options(s: BatchState, g, seat) -> np.ndarray:
    silver, gold = medal_prices(s, g, seat)
    coins = s.coins[g, seat]
    legal = np.zeros((len(g), 6), bool)
    legal[:, A.MEDAL_STOP] = True
    can_silver = ((s.silver[g, seat] >= 0).sum(axis=1) < SILVER_MAX) & (coins >= silver)
    legal[:, 1:5] = can_silver[:, None] & (s.tiles[g, seat] > 0)
    legal[:, A.MEDAL_GOLD] = (s.gold[g, seat] < GOLD_MAX) & (coins >= gold)
    return legal


def buy_medals(s: BatchState, g, seat, option):
    """Pay for a silver medal (placing a tile of the chosen track) or a gold medal."""
    silver, gold = medal_prices(s, g, seat)
    is_gold = option == A.MEDAL_GOLD
    s.coins[g, seat] -= np.where(is_gold, gold, silver)
    s.gold[g[is_gold], seat[is_gold]] += 1
    gs, ss, track = g[~is_gold], seat[~is_gold], option[~is_gold] - 1
    s.tiles[gs, ss, track] -= 1
    slot = (s.silver[gs, ss] >= 0).sum(axis=1)
    s.silver[gs, ss, slot] = track


def medal_step(s: BatchState, seat: np.ndarray, ask):
    """One seat buys medals until it stops, in every game."""
    g = np.arange(s.games)
    seat = seat[g]
    while len(g):
        choice = ask("medal", g, seat, medal_options(s, g, seat))
        buying = choice != A.MEDAL_STOP
        g, seat, choice = g[buying], seat[buying], choice[buying]
        buy_medals(s, g, seat, choice)

"""Buy medals (phase B, last): any number per step, at most 2 silver and 2 gold per game."""

from __future__ import annotations

import numpy as np

from .. import actions as A
from ..constants import GOLD_MAX, SILVER_MAX
from ..rules import medal_prices
from .decide import MEDAL, ask_plain
from .state import compiled, inlined_step


@compiled
def medal_options(s, t, g, seat, epoch, legal):
    """(n, 6) legal options: stop, a silver medal with a free tile, or a gold medal."""
    for i in range(len(g)):
        silver, gold = medal_prices(s, t, g[i], seat[i], epoch)
        coins = s.coins[g[i], seat[i]]
        legal[i, A.MEDAL_STOP] = True
        silvers = (s.silver[g[i], seat[i], 0] >= 0) + (s.silver[g[i], seat[i], 1] >= 0)
        for track in range(4):
            legal[i, 1 + track] = silvers < SILVER_MAX and coins >= silver and s.tiles[g[i], seat[i], track] > 0
        legal[i, A.MEDAL_GOLD] = s.gold[g[i], seat[i]] < GOLD_MAX and coins >= gold


@compiled
def buy_medals(s, t, g, seat, option, epoch):
    """Pay for a silver medal (placing a tile of the chosen track) or a gold medal."""
    for i in range(len(g)):
        silver, gold = medal_prices(s, t, g[i], seat[i], epoch)
        if option[i] == A.MEDAL_GOLD:
            s.coins[g[i], seat[i]] -= gold
            s.gold[g[i], seat[i]] += 1
        else:
            track = option[i] - 1
            s.coins[g[i], seat[i]] -= silver
            s.tiles[g[i], seat[i], track] -= 1
            slot = (s.silver[g[i], seat[i], 0] >= 0) + (s.silver[g[i], seat[i], 1] >= 0)
            s.silver[g[i], seat[i], slot] = track


@inlined_step
def medal_step(s, t, k, seat):
    """One seat buys medals until it stops, in every game."""
    epoch = s.clock[0]
    g = np.arange(len(seat))
    seat = seat.copy()
    while len(g):
        legal = np.zeros((len(g), 6), np.bool_)
        medal_options(s, t, g, seat, epoch, legal)
        choice = ask_plain(s, t, k, MEDAL, g, seat, legal)
        buying = np.flatnonzero(choice != A.MEDAL_STOP)
        g, seat, choice = g[buying], seat[buying], choice[buying]
        buy_medals(s, t, g, seat, choice, epoch)

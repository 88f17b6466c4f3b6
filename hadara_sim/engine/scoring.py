"""Final scoring: colonies, statues, silver, gold, cards and coins; ties by leftover coins."""

from __future__ import annotations

import numpy as np

from .. import actions as A
from ..constants import (
    COINS_PER_POINT, EFFECT_INDEX, GOLD_POINTS_PER_SET, LOC_OWNED, PATRON_BONUS, SET_COLLECTOR_POINTS,
)
from ..rules import complete_sets
from .state import BatchState, colony_points, entry

# The lines `score_pad` fills, in this order; the score sheet adds rank and win share.
PAD_LINES = ("colonies", "statues", "silver", "gold", "cards", "coins", "total", "leftover_coins",
             "patron_points", "silver_full_points", "set_collector_points", "wildcard_points")
SCORE_COLUMNS = PAD_LINES + ("rank", "win_share")
PATRON_EFFECT, SILVER_FULL_EFFECT = EFFECT_INDEX["statue_patron"], EFFECT_INDEX["silver_full"]
SET_COLLECTOR_EFFECT, WILDCARD_EFFECT = EFFECT_INDEX["set_collector"], EFFECT_INDEX["gold_wildcard"]


def score(s: BatchState) -> dict[str, np.ndarray]:
    """Every line of the score pad, (games, P) each, as if the game ended now."""
    arguments = score_arguments(s)
    score_pad(*arguments)
    return dict(zip(PAD_LINES, arguments[-1]))


def score_arguments(s: BatchState) -> tuple:
    """The arguments of the compiled `score_pad` for the games of `s`: their arrays and a blank pad
    (their types are its signature: `warm` compiles it from them)."""
    return s.arrays, s.tables, np.zeros((len(PAD_LINES), s.games, s.players), np.int64)


@entry
def score_pad(s, t, pad):
    """`pad` (PAD_LINES, games, P): colonies; statues (their points, points-side bonuses, +2 per
    points-side tile with statue_patron); silver (half the medal's track rounded up, the other half
    of the better one with silver_full); gold (7 per medal and complete set, gold_wildcard filling a
    gap, 4 per set with set_collector); printed card points; a point per 5 coins."""
    games, players = s.coins.shape
    for g in range(games):
        for seat in range(players):
            pad[0, g, seat] = colony_points(s, t, g, seat)
            points_side, statues = 0, 0
            for j in range(s.statues.shape[2]):
                statue = s.statues[g, seat, j]
                if statue >= 0:
                    statues += t.statue_points[j]
                    if statue % 2 == A.POINTS_SIDE:
                        statues += t.statue_bonus[j]
                        points_side += 1
            patron = PATRON_BONUS * points_side * s.effects[g, seat, PATRON_EFFECT]
            pad[1, g, seat] = statues + patron
            halves, full = 0, 0
            for k in range(s.silver.shape[2]):
                if s.silver[g, seat, k] >= 0:
                    track = np.int64(s.tracks[g, seat, s.silver[g, seat, k]])
                    half = (track + 1) // 2
                    halves += half
                    full = max(full, track - half)
            full *= s.effects[g, seat, SILVER_FULL_EFFECT]
            pad[2, g, seat] = halves + full
            plain = complete_sets(s, g, seat, False)
            gold_sets = complete_sets(s, g, seat, s.effects[g, seat, WILDCARD_EFFECT])
            set_collector = SET_COLLECTOR_POINTS * plain * s.effects[g, seat, SET_COLLECTOR_EFFECT]
            pad[3, g, seat] = GOLD_POINTS_PER_SET * s.gold[g, seat] * gold_sets + set_collector
            pad[5, g, seat] = s.coins[g, seat] // COINS_PER_POINT
            pad[7, g, seat] = s.coins[g, seat] % COINS_PER_POINT
            pad[8, g, seat] = patron
            pad[9, g, seat] = full
            pad[10, g, seat] = set_collector
            pad[11, g, seat] = GOLD_POINTS_PER_SET * s.gold[g, seat] * (gold_sets - plain)
        for card in range(s.location.shape[1]):
            if s.location[g, card] >= LOC_OWNED:
                pad[4, g, s.location[g, card] - LOC_OWNED] += t.card_points[card]
        for seat in range(players):
            for line in range(6):  # total: the six lines
                pad[6, g, seat] += pad[line, g, seat]


def final_scores(s: BatchState) -> dict[str, np.ndarray]:
    """The score pad plus rank and win share: most points, then most leftover coins; a remaining
    tie is shared."""
    sheet = {k: v.astype(np.int64) for k, v in score(s).items()}
    key = sheet["total"] * COINS_PER_POINT + sheet["leftover_coins"]
    sheet["rank"] = 1 + (key[:, None, :] > key[:, :, None]).sum(axis=2)
    winners = key == key.max(axis=1, keepdims=True)
    sheet["win_share"] = winners / winners.sum(axis=1, keepdims=True)
    return sheet

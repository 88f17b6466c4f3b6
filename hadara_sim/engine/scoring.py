"""Final scoring: colonies, statues, silver, gold, cards and coins; ties by leftover coins."""

from __future__ import annotations

import numpy as np

from .. import actions as A
from ..constants import (
    COINS_PER_POINT, EFFECT_INDEX, GOLD_POINTS_PER_SET, LOC_OWNED, PATRON_BONUS, SET_COLLECTOR_POINTS,
)
from .state import BatchState, compiled

SCORE_COLUMNS = ("colonies", "statues", "silver", "gold", "cards", "coins", "total", "leftover_coins",
                 "patron_points", "silver_full_points", "set_collector_points", "wildcard_points",
                 "rank", "win_share")


def complete_sets(colour_count: np.ndarray, wildcard: np.ndarray | None = None) -> np.ndarray:
    """Sets of 5 differently coloured cards; a wildcard fills one gap in one set."""
    k = colour_count.min(axis=-1)
    if wildcard is not None:
        gaps = np.maximum(0, k[..., None] + 1 - colour_count).sum(axis=-1)
        k = k + (wildcard & (gaps <= 1))
    return k


def score(s: BatchState) -> dict[str, np.ndarray]:
    """Every line of the score pad, (games, P) each, as if the game ended now."""
    c = s.components
    e = s.effects
    colonies = s.colony_points.astype(np.int64)
    carved = s.statues >= 0
    points_side = carved & (s.statues % 2 == A.POINTS_SIDE)
    patron = PATRON_BONUS * points_side.sum(axis=2) * e[:, :, EFFECT_INDEX["statue_patron"]]
    statues = ((c.statue_points * carved).sum(axis=2) + (c.statue_bonus * points_side).sum(axis=2)
               + patron)
    track = np.take_along_axis(s.tracks, np.maximum(s.silver, 0).astype(np.int64), axis=2)
    has_silver = s.silver >= 0
    halves = np.where(has_silver, (track + 1) // 2, 0)
    full = np.where(has_silver, track - halves, 0).max(axis=2) * e[:, :, EFFECT_INDEX["silver_full"]]
    silver = halves.sum(axis=2) + full
    plain = complete_sets(s.colour_count)
    gold_sets = complete_sets(s.colour_count, e[:, :, EFFECT_INDEX["gold_wildcard"]])
    set_collector = SET_COLLECTOR_POINTS * plain * e[:, :, EFFECT_INDEX["set_collector"]]
    wildcard = GOLD_POINTS_PER_SET * s.gold * (gold_sets - plain)
    gold = GOLD_POINTS_PER_SET * s.gold * gold_sets + set_collector
    cards = np.zeros((s.games, s.players), np.int64)
    card_points(s.location, s.tables, cards)
    coins = s.coins // COINS_PER_POINT
    lines = dict(colonies=colonies, statues=statues, silver=silver, gold=gold, cards=cards, coins=coins)
    total = sum(lines.values())
    return {**lines, "total": total, "leftover_coins": s.coins % COINS_PER_POINT,
            "patron_points": patron, "silver_full_points": full, "set_collector_points": set_collector,
            "wildcard_points": wildcard}


@compiled
def card_points(location, t, points):
    """Printed points of the cards each seat owns."""
    for g in range(location.shape[0]):
        for card in range(location.shape[1]):
            if location[g, card] >= LOC_OWNED:
                points[g, location[g, card] - LOC_OWNED] += t.card_points[card]


def final_scores(s: BatchState) -> dict[str, np.ndarray]:
    """The score pad plus rank and win share: most points, then most leftover coins; a remaining
    tie is shared."""
    sheet = {k: v.astype(np.int64) for k, v in score(s).items()}
    key = sheet["total"] * COINS_PER_POINT + sheet["leftover_coins"]
    sheet["rank"] = 1 + (key[:, None, :] > key[:, :, None]).sum(axis=2)
    winners = key == key.max(axis=1, keepdims=True)
    sheet["win_share"] = winners / winners.sum(axis=1, keepdims=True)
    return sheet

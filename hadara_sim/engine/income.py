"""Income: coins equal to the income track."""

from __future__ import annotations

from ..constants import DIVERSITY_COINS, DIVERSITY_MAX, EFFECT_INDEX, INCOME
from .state import compiled

DIVERSITY_EFFECT = EFFECT_INDEX["income_diversity"]


@compiled
def collect_income(s):
    """Every player gains coins equal to income (income_diversity: +2 per other track above
    income, at most 6)."""
    games, players = s.coins.shape
    for g in range(games):
        for seat in range(players):
            income = s.tracks[g, seat, INCOME]
            above = 0
            for track in range(1, 4):
                above += s.tracks[g, seat, track] > income
            bonus = min(DIVERSITY_MAX, DIVERSITY_COINS * above) * s.effects[g, seat, DIVERSITY_EFFECT]
            s.coins[g, seat] += income + bonus

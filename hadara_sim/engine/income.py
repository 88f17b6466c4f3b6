"""Income: coins equal to the income track."""

from __future__ import annotations

import numpy as np

from ..constants import DIVERSITY_COINS, DIVERSITY_MAX, EFFECT_INDEX, INCOME
from .state import BatchState

DIVERSITY_EFFECT = EFFECT_INDEX["income_diversity"]


def collect_income(s: BatchState):
    """Every player gains coins equal to income (income_diversity: +2 per other track above
    income, at most 6)."""
    income = s.tracks[:, :, INCOME]
    above = (s.tracks[:, :, 1:] > income[:, :, None]).sum(axis=2)
    bonus = np.minimum(DIVERSITY_MAX, DIVERSITY_COINS * above) * s.effects[:, :, DIVERSITY_EFFECT]
    s.coins += income + bonus

"""A complete user policy: plays like `balanced`, but always plunders and never buys silver.

Use it with:  hadara-sim play --policy docs/examples/plunderer.py:Plunderer
"""

import numpy as np

from hadara_sim import actions as A
from hadara_sim.params import Param
from hadara_sim.policy import Decision
from hadara_sim.policies.styles import Balanced


class Plunderer(Balanced):
    name = "plunderer"
    description = "Balanced, but takes colonies only to plunder them and buys no silver medals."
    params = {**Balanced.params, "min_plunder": 0}
    declared = {**Balanced.declared,
                "min_plunder": Param(0, 20, help="fewest coins a colony must give to be plundered")}

    def colony(self, d: Decision) -> np.ndarray:
        legal = d.legal.copy()
        legal[:, 2::2] = False  # integrate options are 1 + 2*level + 1
        coins = d.view.colony_front[:, :, 1]  # plunder coins of each level's top tile
        legal[:, 1::2] &= coins >= self.settings["min_plunder"]
        values = np.where(legal[:, 1::2], coins, -1)
        choice = 1 + 2 * values.argmax(axis=1)
        return np.where(legal[:, 1::2].any(axis=1), choice, A.NONE)

    def medal(self, d: Decision) -> np.ndarray:
        choice = super().medal(d)
        silver = (choice >= 1) & (choice <= 4)
        return np.where(silver, A.MEDAL_STOP, choice)

"""A user policy of one idea, statues first: plays like `balanced`, but whenever a statue can be carved
it carves the largest one it can, on its points side where that is open.

Use it with:  hadara-sim play --policy docs/examples/sculptor.py:Sculptor
"""

import numpy as np

from hadara_sim.policy import Decision
from hadara_sim.policies.styles import Balanced


class Sculptor(Balanced):
    name = "sculptor"
    description = "Balanced, but always carves the largest statue it can, points side first."

    def statue(self, d: Decision) -> np.ndarray:
        # statue options: 0 = none, then 1 + 8 * statue + 2 * track + side (side 1 = points), so the
        # last legal option is the largest statue's points side on its last open track
        width = d.legal.shape[1]
        return width - 1 - np.argmax(d.legal[:, ::-1], axis=1)

"""A user policy built on a compiled one: the expert playing a mixed strategy at its phase B picks.

At a pick it adds keyed Gumbel noise of scale `tau` (in points) to each option's value and takes the
best, so it takes an option with probability softmax(value / tau): near-equal picks become a coin
toss a rival cannot foresee, clear ones stay as they were. The noise is keyed on (seed, game,
decision number, option), so a game plays the same in any batch. `tau = 0` plays the expert's
games exactly.

It measures how much of search's edge over the expert is its exact model of the expert's near-ties
(docs/expert-log.md, "That edge is the exact model"):

    python scripts/duel.py docs/examples/mixed_expert.py:MixedExpert expert --set tau=1 -p 2 -n 3000 --seed 71
    python scripts/duel.py search docs/examples/mixed_expert.py:MixedExpert --set rollout=expert --set-b tau=1 -p 2 -n 300 --seed 72
"""

import numpy as np

from hadara_sim.kernels import expert as learned
from hadara_sim.kernels.layout import KIND_CODE
from hadara_sim.params import Param
from hadara_sim.policies.expert import Expert
from hadara_sim.policies.random import _mix, uniform
from hadara_sim.policy import Decision


class MixedExpert(Expert):
    name = "mixed-expert"
    description = "The expert, its phase B picks drawn with probability softmax(value / tau)."
    params = {**Expert.params, "tau": 1.0}
    declared = {**Expert.declared, "tau": Param(0, 50, help="the noise's scale in points (0: the expert itself)")}

    def kernel(self, components=None, players=None, advanced=True):
        """The expert's kernel, its picks left to `pick` (in Python)."""
        spec = super().kernel(components, players, advanced)
        return spec._replace(kinds=spec.kinds - {"pick"})

    def pick(self, d: Decision) -> np.ndarray:
        values = self.values(d)
        values = np.where(np.isfinite(values), values, -1e9)  # an option foresight does not weigh comes last
        legal = np.asarray(d.legal)
        with np.errstate(over="ignore"):  # the hash wraps around by design
            key = _mix(np.uint64(self.seed))
        noise = np.stack([uniform(int(key ^ np.uint64(option + 1)), d.game_id, d.serial)
                          for option in range(legal.shape[1])], axis=1)
        gumbel = -np.log(-np.log(np.clip(noise, 1e-300, 1.0 - 1e-16)))
        return np.where(legal, values + float(self.settings["tau"]) * gumbel, -np.inf).argmax(axis=1)

    def values(self, d: Decision) -> np.ndarray:
        """(games, options) each option's value as the expert's kernel sums it: foresight's, then the
        learned correction added feature by feature (the same order, so tau = 0 ties break alike)."""
        spec = super().kernel(d.view.components, d.view.players)
        base, features = learned.learned_options(spec, d)
        weights = self.weights.at(d.view.players).reshape(learned.BLOCKS, len(learned.FEATURES))
        block = np.array([learned.block(KIND_CODE[d.kind], int(e)) for e in np.asarray(d.view.epoch)])
        correction = np.zeros(base.shape)
        for k in range(len(learned.FEATURES)):
            correction += weights[block, k][:, None] * features[:, :, k]
        return base + correction

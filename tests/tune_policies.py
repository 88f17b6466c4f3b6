"""Policies with one tunable number, for the tuning tests."""

import numpy as np

from hadara_sim.policies.greedy import Greedy
from hadara_sim.policies.random import Random, uniform


class Skilled(Greedy):
    """Plays greedy with probability `skill`, else uniformly at random: more skill wins more."""

    name = "skilled"
    params = {**Greedy.params, "skill": 0.0}

    def decide(self, decision):
        good = super().decide(decision)
        bad = Random(seed=self.seed).decide(decision)
        lucky = uniform(self.seed + 7, decision.game_id, decision.serial) < self.settings["skill"]
        return np.where(lucky, good, bad)


class Lucky(Random):
    """Plays uniformly at random from a stream chosen by `luck`: no setting is better than another."""

    name = "lucky"
    params = {"luck": 0.0}

    def decide(self, decision):
        return Random(seed=int(self.settings["luck"])).decide(decision)

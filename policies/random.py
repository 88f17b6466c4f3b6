"""`random`: uniform over the legal options (the baseline)."""

import numpy as np

from hadara_sim.kernels.restrict import RESTRICTION, restricted
from hadara_sim.policy import Decision, Policy

_MASK = np.uint64(0xFFFFFFFFFFFFFFFF)


def _mix(x: np.ndarray) -> np.ndarray:
    """SplitMix64 finaliser: a well-spread 64-bit hash of each element."""
    x = (x + np.uint64(0x9E3779B97F4A7C15)) & _MASK
    x = ((x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)) & _MASK
    x = ((x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)) & _MASK
    return x ^ (x >> np.uint64(31))


def uniform(seed: int, game_id: np.ndarray, serial: np.ndarray) -> np.ndarray:
    """A uniform number in [0, 1) per game, fixed by (seed, game, decision number).

    Keyed rather than drawn from a stream, so a game's random choices are the same whichever
    batch it is played in, and in either engine.
    """
    with np.errstate(over="ignore"):
        key = _mix(np.uint64(seed) ^ _mix(game_id.astype(np.uint64)))
        bits = _mix(key ^ serial.astype(np.uint64))
    return (bits >> np.uint64(11)).astype(np.float64) / float(1 << 53)


class Random(Policy):
    name = "random"
    description = "Picks uniformly among the legal options at every decision: the baseline."
    params = {"avoid": (), "seek": ()}
    declared = RESTRICTION

    def decide(self, decision: Decision) -> np.ndarray:
        legal = restricted(self, decision)
        count = legal.sum(axis=1)
        k = (uniform(self.seed, decision.game_id, decision.serial) * count).astype(np.int64)
        return (legal.cumsum(axis=1) > k[:, None]).argmax(axis=1)

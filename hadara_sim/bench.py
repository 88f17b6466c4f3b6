"""Speed and memory of the batch engine, and its ratio to the reference engine on the same deals."""

from __future__ import annotations

import time
import tracemalloc
from dataclasses import dataclass

from .components import ComponentSet
from .deal import make_deals
from .engine.game import BatchGame
from .reference import Game


@dataclass
class BenchRow:
    players: int
    advanced: bool
    batch: int
    games_per_second: float
    peak_mib: float
    peak_mib_after_3: float
    reference_games_per_second: float

    @property
    def ratio(self) -> float:
        return self.games_per_second / self.reference_games_per_second


def reference_speed(components: ComponentSet, players: int, advanced: bool, policy, games: int, seed: int) -> float:
    """Games per second of the reference engine on the first `games` deals."""
    deals = make_deals(components, players, games, seed=seed, advanced=advanced)
    start = time.perf_counter()
    for i in range(games):
        Game(deals[i], components, [policy] * players).play()
    return games / (time.perf_counter() - start)


def bench_one(components: ComponentSet, players: int, advanced: bool, batch: int, policy, seed: int,
              reference_gps: float) -> BenchRow:
    """Time one batch, then measure peak traced memory over one and over three batches."""
    deals = make_deals(components, players, batch, seed=seed, advanced=advanced)
    start = time.perf_counter()
    BatchGame(deals, components, [policy] * players).play()
    gps = batch / (time.perf_counter() - start)
    tracemalloc.start()
    peaks = []
    for k in range(3):
        deals = make_deals(components, players, batch, seed=seed + k, advanced=advanced)
        BatchGame(deals, components, [policy] * players).play()
        del deals
        peaks.append(tracemalloc.get_traced_memory()[1] / 2**20)
    tracemalloc.stop()
    return BenchRow(players, advanced, batch, gps, peaks[0], peaks[-1], reference_gps)

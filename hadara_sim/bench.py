"""Speed and memory of the batch engine, and its ratio to the reference engine on the same deals."""

from __future__ import annotations

import time
import tracemalloc
from dataclasses import dataclass

from .components import ComponentSet
from .deal import make_deals
from .engine.game import BatchGame
from .forward import Forward
from .reference import Game
from .verify import seat_table


@dataclass
class BenchRow:
    players: int
    advanced: bool
    batch: int
    games_per_second: float
    peak_mib: float           # peak traced allocation while playing one batch
    peak_mib_after_3: float   # the same over three batches in a row (equal: no growth across batches)
    reference_games_per_second: float

    @property
    def ratio(self) -> float:
        return self.games_per_second / self.reference_games_per_second


def play(components: ComponentSet, players: int, advanced: bool, games: int, policies, seed: int):
    """Play `games` deals with the policies' seats rotated from game to game."""
    deals = make_deals(components, players, games, seed=seed, advanced=advanced)
    BatchGame(deals, components, policies, seat_table(games, players, len(policies)), forward=Forward).play()


def first_call_seconds(components: ComponentSet, policies, seed: int = 0) -> float:
    """Seconds of the first batch in this process: compiling the engine and the policies, or loading
    them from numba's cache after the first run of an install."""
    start = time.perf_counter()
    for players, advanced in ((2, False), (4, True)):
        play(components, players, advanced, 4, policies, seed)
    return time.perf_counter() - start


def reference_speed(components: ComponentSet, players: int, advanced: bool, policies, games: int, seed: int) -> float:
    """Games per second of the reference engine on the first `games` deals (seats rotated)."""
    deals = make_deals(components, players, games, seed=seed, advanced=advanced)
    table = seat_table(games, players, len(policies))
    start = time.perf_counter()
    for i in range(games):
        Game(deals[i], components, [policies[k] for k in table[i]], forward=Forward).play()
    return games / (time.perf_counter() - start)


def bench_one(components: ComponentSet, players: int, advanced: bool, batch: int, policies, seed: int,
              reference_gps: float) -> BenchRow:
    """Time one batch, then measure peak traced memory over one and over three batches."""
    start = time.perf_counter()
    play(components, players, advanced, batch, policies, seed)
    gps = batch / (time.perf_counter() - start)
    tracemalloc.start()
    peaks = []
    for k in range(3):
        play(components, players, advanced, batch, policies, seed + k)
        peaks.append(tracemalloc.get_traced_memory()[1] / 2**20)
    tracemalloc.stop()
    return BenchRow(players, advanced, batch, gps, peaks[0], peaks[-1], reference_gps)

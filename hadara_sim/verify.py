"""Replay equivalence: games played by the batch engine, replayed by the reference engine."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .components import ComponentSet
from .deal import make_deals
from .engine.game import BatchGame
from .engine.record import BatchRecorder
from .forward import Forward
from .trace import ReplayMismatch, replay


@dataclass
class VerifyResult:
    games: int = 0
    agreed: int = 0
    failures: list[tuple[int, str]] = field(default_factory=list)  # (game id, first difference)

    def merge(self, other: "VerifyResult") -> "VerifyResult":
        return VerifyResult(self.games + other.games, self.agreed + other.agreed,
                            self.failures + other.failures)


def seat_table(games: int, players: int, policies: int, offset: int = 0) -> np.ndarray:
    """(games, P) policy index of each seat, rotating so every policy plays every seat."""
    return (np.arange(players)[None, :] + np.arange(offset, offset + games)[:, None]) % policies


def verify_chunk(components: ComponentSet, players: int, advanced: bool, games: int, seed: int,
                 chunk: int, policies) -> VerifyResult:
    """Play one chunk of games in the batch engine and replay each in the reference engine."""
    first = chunk * games
    deals = make_deals(components, players, games, seed=np.random.SeedSequence(seed, spawn_key=(chunk,)),
                       advanced=advanced, first_game=first)
    table = seat_table(games, players, len(policies), first)
    recorder = BatchRecorder(deals, components, [[str(policies[k]) for k in row] for row in table])
    BatchGame(deals, components, policies, table, recorder, forward=Forward).play()
    result = VerifyResult(games=games)
    for i in range(games):
        try:
            replay(recorder.trace(i), components)
            result.agreed += 1
        except ReplayMismatch as err:
            result.failures.append((first + i, str(err)))
    return result

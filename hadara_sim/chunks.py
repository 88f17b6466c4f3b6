"""One chunk of a run: which deals it plays, under which seats, setup cards and grants, and its rows.

Common random numbers: chunk k of every combination plays the deals of
`np.random.SeedSequence(seed, spawn_key=(k,))` numbered from `k * chunk`, so combinations of one
run, and scenarios that differ only in policies or grants, play the same deals. Policy seeds come
from the scenario seed and the policy's place in the list, never from the chunk, and the built-in
random policy is keyed by game number, so a dataset does not depend on `jobs`, on the backend or on
the order in which chunks finish. The plan of chunks is lazy, so nothing before the first game grows
with the number of games.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from typing import Iterator

import numpy as np
import pyarrow as pa

from . import numba_start  # noqa: F401  (numba's first call without importing scipy.linalg)
from .components import ComponentSet
from .deal import make_deals
from .engine.game import BatchGame, Grant
from .forward import Forward
from .policy import PolicyError
from .registry import PolicyNotFound, make_policy
from .results import build_table, chunks_per_combination, part_name
from .scenario.model import Combination, Scenario

POLICY_STREAM = 0x706F6C  # spawn-key prefix of the policies' seeds, apart from the chunks' (k,)
SIDE_STREAM = 1           # spawn key (k, 1): random setup sides of chunk k


@dataclass(frozen=True)
class Chunk:
    """Deals first_game .. first_game + games - 1 played under one combination."""

    combo: int
    index: int
    first_game: int
    games: int
    players: int
    advanced: bool

    @property
    def file(self) -> str:
        return part_name(self.combo, self.index)

    def to_dict(self) -> dict:
        return {"file": self.file, "combo": self.combo, "chunk": self.index,
                "first_game": self.first_game, "games": self.games, "players": self.players,
                "game": "advanced" if self.advanced else "basic"}


class ChunkPlan:
    """Every chunk of the run, chunk-major (a partial run covers all combinations evenly), made on
    demand: memory does not grow with the number of games."""

    def __init__(self, scenario: Scenario):
        self.games, self.size = scenario.games, scenario.chunk
        self.combos = [(c.index, c.players, c.advanced) for c in scenario.combinations]
        self.per_combo = chunks_per_combination(self.games, self.size)

    def __len__(self) -> int:
        return self.per_combo * len(self.combos)

    def __iter__(self) -> Iterator[Chunk]:
        for k in range(self.per_combo):
            for combo in range(len(self.combos)):
                yield self.chunk(combo, k)

    def __getitem__(self, i: int) -> Chunk:
        if not 0 <= i < len(self):
            raise IndexError(i)
        return self.chunk(i % len(self.combos), i // len(self.combos))

    def chunk(self, combo: int, k: int) -> Chunk:
        index, players, advanced = self.combos[combo]
        return Chunk(index, k, k * self.size, min(self.size, self.games - k * self.size), players, advanced)


def plan_chunks(scenario: Scenario) -> ChunkPlan:
    """Every chunk of the run, chunk-major, as a lazy sequence."""
    return ChunkPlan(scenario)


def policy_seed(seed: int, index: int) -> int:
    """The seed of the scenario's policy number `index`: from the scenario seed only."""
    return int(np.random.SeedSequence(seed, spawn_key=(POLICY_STREAM, index)).generate_state(1)[0])



def _place_card(initiative: np.ndarray, seat: np.ndarray, card: int):
    """Give each game's `seat` the setup card `card`: swapped with the seat holding it, if any."""
    holder = initiative == card
    rows = np.flatnonzero(holder.any(axis=1))
    other = holder.argmax(axis=1)[rows]
    initiative[rows, other] = initiative[rows, seat[rows]]
    initiative[np.arange(len(initiative)), seat] = card


def focus_seats(setup, game_id: np.ndarray, players: int) -> np.ndarray:
    """(games,) the focus seat of a setup grid: fixed, or game number mod players ("rotate"), so
    that every seat is the focus equally often."""
    if setup.focus_seat == "rotate":
        return (game_id % players).astype(np.int64)
    return np.full(len(game_id), setup.focus_seat, np.int64)


def chunk_setup(combo: Combination, seed: int, chunk: Chunk, deals) -> np.ndarray | None:
    """Apply the combination's setup cards and board to the deals; the (games, P) fixed sides
    (-1 where the policy chooses), or None when every policy chooses."""
    config = combo.config
    setup = config.setup
    n, P = len(deals), config.players
    focus = focus_seats(setup, deals.game_id, P)
    if isinstance(setup.cards, tuple):
        deals.initiative[:] = np.array(setup.cards, np.int8)
    elif combo.setup_card is not None:
        _place_card(deals.initiative, focus, combo.setup_card)
    if config.colour_order is not None:
        deals.colour_order[:] = np.array(config.colour_order, np.int8)
    if not config.advanced:
        return None
    if setup.sides == "policy":
        sides = None
    elif setup.sides in ("random", "grid"):
        if setup.sides == "random":
            rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(chunk.index, SIDE_STREAM)))
            sides = rng.integers(0, 2, (n, P)).astype(np.int8)
        else:
            sides = np.full((n, P), -1, np.int8)
        if combo.setup_side is not None:
            sides[np.arange(n), focus] = combo.setup_side
    else:
        sides = np.broadcast_to(np.array([0 if s == "A" else 1 for s in setup.sides], np.int8), (n, P)).copy()
    return sides


def seat_table(combo: Combination, game_id: np.ndarray) -> np.ndarray:
    """(games, P) index of the policy playing each seat."""
    config = combo.config
    P, k = config.players, len(config.policies)
    seats = np.arange(P)[None, :]
    if combo.arrangement is not None:
        return np.broadcast_to(np.array(combo.arrangement), (len(game_id), P)).copy()
    if config.assignment == "rotated":
        return (seats + game_id[:, None]) % k
    return np.broadcast_to(seats % k, (len(game_id), P)).copy()


def play_chunk(components: ComponentSet, combo: Combination, seed: int, chunk: Chunk) -> tuple[Chunk, pa.Table]:
    """Play one chunk and return its rows (runs in a worker process)."""
    config = combo.config
    deals = make_deals(components, config.players, chunk.games,
                       seed=np.random.SeedSequence(seed, spawn_key=(chunk.index,)),
                       advanced=config.advanced, first_game=chunk.first_game, exclude=combo.exclude)
    sides = chunk_setup(combo, seed, chunk, deals)
    table = seat_table(combo, deals.game_id)
    policies = []
    for i, p in enumerate(config.policies):
        try:
            policies.append(make_policy(p.policy, seed=policy_seed(seed, i), **p.params))
        except (PolicyNotFound, ValueError) as err:  # made once as the scenario was read: a user's policy that
            # fails only now (with this seed) stops the run as the policy's failure, not as an input problem
            raise PolicyError(str(err) if isinstance(err, PolicyNotFound) else f"policy '{p.policy}': {err}") from None
    grants, grant_rows = [], []
    for g in config.grants:
        if g.seat == "rotate":
            seat = (deals.game_id % config.players).astype(np.int64)
        else:
            seat = np.full(chunk.games, g.seat, np.int64)
        grants.append(Grant(g.epoch, g.card_index, seat))
        grant_rows.append((g.epoch, g.card, seat))
    players, seats, restricted = restricted_seats(config, policies, deals.game_id, table, seed)
    game = BatchGame(deals, components, players, seats, sides=sides, grants=grants, forward=Forward)
    sheet = game.play()
    return chunk, build_table(game, sheet, combo, policies, table, grant_rows, restricted)


def timed_chunk(components: ComponentSet, combo: Combination, seed: int,
                chunk: Chunk) -> tuple[Chunk, pa.Table, float, tuple[int, int]]:
    """`play_chunk`, with the seconds it took and the worker that played it (its process and thread:
    a dask worker may play chunks on several threads): a run's progress measures the machine's pace
    from them (`progress.Pace`)."""
    start = time.perf_counter()
    chunk, table = play_chunk(components, combo, seed, chunk)
    return chunk, table, time.perf_counter() - start, (os.getpid(), threading.get_ident())


def restricted_seats(config, policies: list, game_id: np.ndarray, table: np.ndarray, seed: int):
    """The policies that play and their seat table, with the restricted seat's policy (`restrict`) made
    again with its `seek` and `avoid` (the same seed: where the restriction leaves a choice free, it
    chooses as its unrestricted self), and the restricted seat of each game (-1 without a restriction)."""
    r = config.restriction
    if r is None:
        return policies, table, np.full(len(game_id), -1, np.int64)
    seat = (game_id % config.players if r.seat == "rotate" else np.full(len(game_id), r.seat)).astype(np.int64)
    rows = np.arange(len(game_id))
    k = len(policies)
    variants = []
    for i, p in enumerate(config.policies):
        try:
            variants.append(make_policy(p.policy, seed=policy_seed(seed, i), **{**p.params, "seek": list(r.seek),
                                                                                 "avoid": list(r.avoid)}))
        except (PolicyNotFound, ValueError) as err:
            raise PolicyError(f"policy '{p.policy}' cannot play restricted (restrict: seek {list(r.seek)}, avoid "
                              f"{list(r.avoid)}): {err}") from None
    seats = table.copy()
    seats[rows, seat] += k
    return [*policies, *variants], seats, seat


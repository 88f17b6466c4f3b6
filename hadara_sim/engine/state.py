"""The state of a batch of games as a dataclass of arrays, game axis first.

All games of a batch have the same player count and game kind and move through the same steps in
lockstep, so the epoch, phase and draw round are one clock for the batch. Sentinels: -1 marks an empty slot
(no card in a pile position, no tile on a statue, no silver medal, no colony tile).
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np
from numba import njit

from .. import jit_cache  # noqa: F401  (drops numba's cached code when its sources changed)
from ..compiled_only import compiled_only
from ..components import CompiledArrays, ComponentSet
from ..constants import COLONY_LEVELS, EFFECT_IDS, LOC_BOX, LOC_OWNED, STATUES
from ..deal import Deals


@dataclass(eq=False)
class BatchState:
    players: int
    components: ComponentSet
    deals: Deals
    clock: np.ndarray             # (3,) int64: epoch 1..3, phase 0 = A / 1 = B, draw round 0..4
    first_player: np.ndarray      # (games,) int8: seat of this epoch's first player
    initiative: np.ndarray        # (games, P) int8: initiative 1..5 of each seat's setup card
    side: np.ndarray              # (games, P) int8: setup side 0 = A, 1 = B, -1 not chosen yet
    coins: np.ndarray             # (games, P) int32
    tracks: np.ndarray            # (games, P, 4) int16: income, military, culture, food
    location: np.ndarray          # (games, C) int8: where each card is (constants.LOC_*)
    colour_count: np.ndarray      # (games, P, 5) int16: owned cards per colour
    effects: np.ndarray           # (games, P, E) bool: purple effects owned
    effect_epoch: np.ndarray      # (games, P, E) int8: epoch each owned effect was gained, 0 none
    tiles: np.ndarray             # (games, P, 4) int8: unused bonus tiles per track
    colonies: np.ndarray          # (games, P, 5) int8: per level 0 none, 1 plundered, 2 integrated
    colony_tile: np.ndarray       # (games, P, 5) int16: tile taken at each level, -1 none
    colony_ptr: np.ndarray        # (games, 5) int8: tiles already taken from each level's stack
    statues: np.ndarray           # (games, P, 4) int8: -1 not carved, else 2 * tile track + side
    silver: np.ndarray            # (games, P, 2) int8: track of each silver medal's tile, -1 none
    gold: np.ndarray              # (games, P) int8: gold medals bought
    bonus_card_tile: np.ndarray   # (games, P) int8: track of the tile on the bonus-tile card, -1
    deck_ptr: np.ndarray          # (games, 5) int8: cards already drawn from each colour's deck
    piles: np.ndarray             # (games, 5, P) int16: discard piles bottom to top, -1 empty
    pile_size: np.ndarray         # (games, 5) int8
    rotation: np.ndarray          # (games,) int8: board position seat 0 faces in round 1, -1 unset
    # What happened to each card, for the results (no rule reads these):
    card_seat: np.ndarray         # (games, C) int8: seat that bought, was granted or sold the card, -1 none
    card_when: np.ndarray         # (games, C) int8: 2 * epoch + phase (A 0, B 1) when it was taken, 0 never
    card_offered: np.ndarray      # (games, C) uint8: bit p set when seat p could have bought the card

    @classmethod
    def new(cls, deals: Deals, components: ComponentSet) -> "BatchState":
        """Everything empty before set-up: no coins, no cards, all tiles unused."""
        G, P, C = len(deals), deals.players, components.n_cards
        return cls(
            players=P, components=components, deals=deals, clock=np.array([1, 0, 0], np.int64),
            first_player=np.zeros(G, np.int8), initiative=deals.initiative.copy(),
            side=np.full((G, P), -1, np.int8), coins=np.zeros((G, P), np.int32),
            tracks=np.zeros((G, P, 4), np.int16), location=np.full((G, C), LOC_BOX, np.int8),
            colour_count=np.zeros((G, P, 5), np.int16),
            effects=np.zeros((G, P, len(EFFECT_IDS)), bool),
            effect_epoch=np.zeros((G, P, len(EFFECT_IDS)), np.int8),
            tiles=np.full((G, P, 4), components.tiles_per_colour, np.int8),
            colonies=np.zeros((G, P, COLONY_LEVELS), np.int8),
            colony_tile=np.full((G, P, COLONY_LEVELS), -1, np.int16),
            colony_ptr=np.zeros((G, COLONY_LEVELS), np.int8),
            statues=np.full((G, P, STATUES), -1, np.int8), silver=np.full((G, P, 2), -1, np.int8),
            gold=np.zeros((G, P), np.int8), bonus_card_tile=np.full((G, P), -1, np.int8),
            deck_ptr=np.zeros((G, 5), np.int8), piles=np.full((G, 5, P), -1, np.int16),
            pile_size=np.zeros((G, 5), np.int8), rotation=np.full(G, -1, np.int8),
            card_seat=np.full((G, C), -1, np.int8), card_when=np.zeros((G, C), np.int8),
            card_offered=np.zeros((G, C), np.uint8))

    @property
    def games(self) -> int:
        return len(self.coins)

    # The clock as plain numbers (the compiled steps read and set `clock` itself).
    epoch_now = property(lambda self: int(self.clock[0]))
    phase_now = property(lambda self: int(self.clock[1]))
    round_now = property(lambda self: int(self.clock[2]))

    # Views a policy may read that are derived rather than stored (see policy.VIEW_FIELDS).
    @property
    def epoch(self) -> np.ndarray:
        return np.full(self.games, self.epoch_now, np.int8)

    @property
    def phase(self) -> np.ndarray:
        return np.full(self.games, self.phase_now, np.int8)

    @property
    def draw_round(self) -> np.ndarray:
        return np.full(self.games, self.round_now, np.int8)

    @property
    def colour_order(self) -> np.ndarray:
        return self.deals.colour_order

    @property
    def owned(self) -> np.ndarray:
        """(games, P, C) bool: cards each seat owns."""
        seats = LOC_OWNED + np.arange(self.players, dtype=np.int8)
        return self.location[:, None, :] == seats[None, :, None]

    @property
    def colony_points(self) -> np.ndarray:
        points = np.zeros((self.games, self.players), np.int16)
        all_colony_points(self.arrays, self.tables, points)
        return points

    @property
    def colony_left(self) -> np.ndarray:
        return (self.players - self.colony_ptr).astype(np.int8)

    @property
    def colony_front(self) -> np.ndarray:
        front = np.zeros((self.games, COLONY_LEVELS, 4), np.int16)
        every = np.arange(self.games)
        colony_fronts(self.arrays, self.tables, every, every, front)
        return front

    @property
    def arrays(self) -> "Arrays":
        """The state and deal arrays in one tuple, as the compiled rule steps take them."""
        d = self.deals
        return Arrays(*(getattr(self, name) for name in STATE_ARRAYS), d.decks, d.colonies, d.colour_order)

    @property
    def tables(self) -> CompiledArrays:
        """The component arrays the compiled rule steps read."""
        return self.components.compiled

    def snapshot(self) -> dict[str, np.ndarray]:
        """Copies of the arrays of the trace's state record (`reference.Game.snapshot`)."""
        return {name: getattr(self, name).copy() for name in SNAPSHOT_FIELDS}


# Fields of a trace state record, in the reference engine's order.
SNAPSHOT_FIELDS = ("coins", "tracks", "tiles", "side", "colonies", "colony_tile", "statues", "silver",
                   "gold", "bonus_card_tile", "piles", "rotation", "location")


# The rule steps are compiled (numba) loops over the games of a batch, cached on disk. They allocate
# nothing (callers pass the output arrays): with `_nrt=False` numba counts no references to the
# arrays of `Arrays` and the components' arrays at each call, which would cost more than the rules themselves.
# Only compiled code calls them, so they are built without a Python entry point (hadara_sim/compiled_only.py:
# each one's would unbox the state's dozens of arrays, and took a fifth of the engine's first compile);
# `entry` is one that Python (the engine's set-up and reports, tests of a rare path) calls as well.
compiled = compiled_only(_nrt=False)
entry = njit(cache=True, _nrt=False)
# The steps of the epoch that ask the players and make their own arrays (numba's memory management on).
compiled_step = njit(cache=True)
# Small steps are inlined into their caller at numba's IR level; the draw rounds, picks and colony or
# statue steps, and the policies' `ask`, are called through their addresses (decide.ASK_AT, ...):
# numba would re-optimise each inside every caller. (Feeding, medals and grants called so as well
# took as long to compile: each such call passes the state's hundreds of array fields, which LLVM
# takes seconds to lower; so did inlining the small steps in LLVM, `forceinline` as the kernels'
# helpers: the engine's steps 111 -> 134 CPU s.)
inlined_step = njit(cache=True, inline="always")

# The arrays handed to the compiled rule steps (numba kernels take arrays, not dataclasses).
STATE_ARRAYS = ("clock", "first_player", "initiative", "side", "coins", "tracks", "location", "colour_count",
                "effects", "effect_epoch", "tiles", "colonies", "colony_tile", "colony_ptr", "statues",
                "silver", "gold", "bonus_card_tile", "deck_ptr", "piles", "pile_size", "rotation", "card_seat",
                "card_when", "card_offered")
Arrays = namedtuple("Arrays", STATE_ARRAYS + ("deal_decks", "deal_colonies", "colour_order"))

# Every per-game array of the state: what a continuation copies to play on from the start of an epoch
# (the clock is the batch's, set by each epoch).
GAME_ARRAYS = tuple(name for name in STATE_ARRAYS if name != "clock")

@entry
def colony_fronts(s, t, g, rows, front):
    """The top tile of each level's stack as (requirement, plunder, integrate cost, points) in the
    games g[i] of `rows`, into `front` (games, 5, 4); zeros when the stack is empty."""
    players = s.coins.shape[1]
    for i in rows:
        for level in range(front.shape[1]):
            for k in range(4):
                front[g[i], level, k] = 0
            if s.colony_ptr[g[i], level] < players:
                tile = s.deal_colonies[g[i], level, s.colony_ptr[g[i], level]]
                front[g[i], level, 0] = t.colony_requirement[tile]
                front[g[i], level, 1] = t.colony_plunder[tile]
                front[g[i], level, 2] = t.colony_integrate[tile]
                front[g[i], level, 3] = t.colony_front_points[tile]


@compiled
def colony_points(s, t, g, seat):
    """Points of a seat's colonies as they lie: the front of a plundered tile, the back of an
    integrated one."""
    points = 0
    for level in range(s.colonies.shape[2]):
        tile = s.colony_tile[g, seat, level]
        if s.colonies[g, seat, level] == 2:
            points += t.colony_back_points[tile]
        elif s.colonies[g, seat, level] == 1:
            points += t.colony_front_points[tile]
    return points


@entry
def all_colony_points(s, t, points):
    """`colony_points` of every seat (games, P)."""
    games, players = points.shape
    for g in range(games):
        for seat in range(players):
            points[g, seat] = colony_points(s, t, g, seat)

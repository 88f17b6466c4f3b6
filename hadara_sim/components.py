"""Component sets: the epoch cards, colonies, setup cards and board constants of one edition.

A component set is a directory of four human-editable files (see docs/components.md):
`cards.csv`, `colonies.csv`, `setup_cards.csv` and `board.toml`, read and checked by
`component_files.load_components`. The validated set exposes plain Python records, numpy arrays for
the engines (`compiled`: the arrays compiled code reads) and overrides of single values.
"""

from __future__ import annotations

import copy
import difflib
import hashlib
import json
from collections import namedtuple
from dataclasses import dataclass, field, replace
from functools import cached_property
from types import MappingProxyType

import numpy as np

from .constants import (
    COLONY_LEVELS,
    COLOURS,
    EFFECT_INDEX,
    EPOCHS,
    TRACKS,
)
from .problems import InputError, Problem

FILES = ("cards.csv", "colonies.csv", "setup_cards.csv", "board.toml")
# The arrays compiled code reads (the engine's rule steps and the bots' kernels, by field name), in
# one dtype: int64, and float64 for the mean backs of each level's colony tiles (what a bot expects
# to find under a tile it integrates).
COMPILED_FIELDS = ("card_colour", "card_cost", "card_points", "card_values", "card_effect", "colony_requirement",
                   "colony_plunder", "colony_integrate", "colony_front_points", "colony_back_values",
                   "colony_back_points", "statue_requirement", "statue_points", "statue_bonus", "sell",
                   "silver_price", "gold_price", "setup_coins", "setup_values", "level_requirement",
                   "mean_back", "mean_back_points")
CompiledArrays = namedtuple("CompiledArrays", COMPILED_FIELDS)
CARD_COLUMNS = ("id", "epoch", "colour", "starred", "cost", "points", *TRACKS, "effect", "exact")
CARD_VALUES = ("cost", "points", *TRACKS, "effect")
COLONY_COLUMNS = ("id", "level", "requirement", "plunder", "integrate", "front_points",
                  *(f"back_{t}" for t in TRACKS), "back_points", "exact")
COLONY_VALUES = COLONY_COLUMNS[2:-1]
SETUP_COLUMNS = ("initiative", "side", "coins", *TRACKS, "exact")
SETUP_VALUES = ("coins", *TRACKS)
BOARD_VALUES = {"sell": ("coins",), "medals": ("silver", "gold"), "bonus_tiles": ("per_colour",)}  # board.toml's tables
STATUE_VALUES = ("requirement", "points", "bonus")  # each [[statues]] table's
SIDES = ("A", "B")
# Plausibility ranges: a value outside is almost certainly a typo.
RANGES = {"cost": (0, 40), "points": (0, 20), "track": (0, 10), "coins": (0, 30),
          "requirement": (0, 60), "colony_coins": (0, 20), "colony_points": (0, 40),
          "sell": (0, 20), "medal": (0, 60)}
# The values an override may change (see `ComponentSet.with_overrides`), by section, with the
# range each must keep. Structure (ids, epochs, colours, levels, requirements) is never overridden:
# it decides the deals, which every combination of a sweep shares.
OVERRIDABLE = {
    "cards": {"cost": "cost", "points": "points", **{t: "track" for t in TRACKS}},
    "colonies": {"plunder": "colony_coins", "integrate": "colony_coins", "front_points": "colony_points",
                 **{f"back_{t}": "track" for t in TRACKS}, "back_points": "colony_points"},
    "setup": {"coins": "coins", **{t: "track" for t in TRACKS}},
    "board": {"sell_price": "sell", "silver_price": "medal", "gold_price": "medal"},
}


class ComponentError(InputError):
    """A component set failed validation; `problems` lists every problem found."""


@dataclass(frozen=True)
class Card:
    """One epoch card. `values` are the track values (income, military, culture, food)."""

    index: int
    id: str
    epoch: int
    colour: int
    starred: bool
    cost: int
    points: int
    values: tuple[int, int, int, int]
    effect: str | None
    exact: frozenset[str]

    def describe(self) -> str:
        if self.effect:
            what = self.effect
        else:
            what = " ".join(f"+{v} {t}" for v, t in zip(self.values, TRACKS) if v) or "no tracks"
        return f"{self.id} ({COLOURS[self.colour]}, {what}, cost {self.cost}, {self.points} pt{'' if self.points == 1 else 's'})"


@dataclass(frozen=True)
class Colony:
    """One colony tile: the front (requirement, plunder coins, integrate cost, points) and back."""

    index: int
    id: str
    level: int  # 0-based requirement level
    requirement: int
    plunder: int
    integrate: int
    front_points: int
    back_values: tuple[int, int, int, int]
    back_points: int
    exact: frozenset[str]


@dataclass(frozen=True)
class SetupCard:
    initiative: int
    side: str
    coins: int
    values: tuple[int, int, int, int]
    exact: frozenset[str]


@dataclass(frozen=True)
class Statue:
    requirement: int
    points: int
    bonus: int
    exact: frozenset[str]


@dataclass
class ComponentSet:
    """A validated component set with array views for the engines (index = position in file)."""

    path: str
    cards: list[Card]
    colonies: list[Colony]
    setup_cards: dict[tuple[int, str], SetupCard]
    statues: list[Statue]
    sell: tuple[int, int, int]
    silver_price: tuple[int, int, int]
    gold_price: tuple[int, int, int]
    tiles_per_colour: int
    digest: str
    board_exact: dict[str, frozenset[str]] = field(default_factory=dict)
    base_digest: str = ""  # the digest of the set as loaded, before any overrides (what-if changes of it)

    def __post_init__(self):
        self.base_digest = self.base_digest or self.digest
        c = self.cards
        self.n_cards = len(c)
        self.card_epoch = np.array([x.epoch for x in c], np.int8)
        self.card_colour = np.array([x.colour for x in c], np.int8)
        self.card_starred = np.array([x.starred for x in c], bool)
        self.card_cost = np.array([x.cost for x in c], np.int16)
        self.card_points = np.array([x.points for x in c], np.int16)
        self.card_values = np.array([x.values for x in c], np.int16).reshape(-1, 4)
        self.card_effect = np.array([EFFECT_INDEX[x.effect] if x.effect else -1 for x in c], np.int8)
        self.card_ids = [x.id for x in c]
        self.card_index = {x.id: x.index for x in c}
        self.effect_card = {x.effect: x.index for x in c if x.effect}
        k = self.colonies
        self.colony_level = np.array([x.level for x in k], np.int8)
        self.colony_requirement = np.array([x.requirement for x in k], np.int16)
        self.colony_plunder = np.array([x.plunder for x in k], np.int16)
        self.colony_integrate = np.array([x.integrate for x in k], np.int16)
        self.colony_front_points = np.array([x.front_points for x in k], np.int16)
        self.colony_back_values = np.array([x.back_values for x in k], np.int16).reshape(-1, 4)
        self.colony_back_points = np.array([x.back_points for x in k], np.int16)
        self.level_requirement = np.array(
            [min(x.requirement for x in k if x.level == lv) for lv in range(COLONY_LEVELS)], np.int16)
        self.setup_coins = np.array([[self.setup_cards[(i, s)].coins for s in SIDES]
                                     for i in range(1, 6)], np.int16)
        self.setup_values = np.array([[self.setup_cards[(i, s)].values for s in SIDES]
                                      for i in range(1, 6)], np.int16)
        self.statue_requirement = np.array([s.requirement for s in self.statues], np.int16)
        self.statue_points = np.array([s.points for s in self.statues], np.int16)
        self.statue_bonus = np.array([s.bonus for s in self.statues], np.int16)

    @cached_property
    def compiled(self) -> CompiledArrays:
        """The arrays compiled code reads (COMPILED_FIELDS), made once per component set."""
        levels = range(COLONY_LEVELS)
        mean_back = np.array([self.colony_back_values[self.colony_level == lv].mean(0) for lv in levels])
        mean_back_points = np.array([self.colony_back_points[self.colony_level == lv].mean() for lv in levels])
        return CompiledArrays(*(np.asarray(getattr(self, name), np.int64) for name in COMPILED_FIELDS[:-2]),
                              mean_back, mean_back_points)

    @cached_property
    def lent(self) -> "ComponentSet":
        """This set as a user's policy is handed it (`view.components`), made once per set (a process keeps
        the sets it read, `load_components`): arrays no one can write or make writable, lists and tables
        that cannot be changed, and no attribute set. A policy of `play` or `verify` that wrote into the engine's set
        (`card_cost[3] = 0`, `compiled.card_cost`) changed the rules for the rest of the game; one that
        changed a copy of its own would have changed what every later policy of the process is shown."""
        lent = copy.copy(self)
        for name, value in vars(self).items():
            if isinstance(value, np.ndarray):
                vars(lent)[name] = _read_only(value)
            elif isinstance(value, (list, dict)):
                vars(lent)[name] = tuple(value) if isinstance(value, list) else MappingProxyType(dict(value))
        vars(lent).update(compiled=CompiledArrays(*map(_read_only, self.compiled)), _origin=self)
        lent.__class__ = _LentSet
        return lent

    def __getstate__(self) -> dict:
        # the lent copy stays with the process: a worker makes its own (and a pickled array is writable)
        return {name: value for name, value in vars(self).items() if name != "lent"}

    def with_overrides(self, overrides: dict) -> "ComponentSet":
        """This set with single values replaced, e.g. `{"setup": {"3B": {"culture": 4}}}`.

        Sections: `cards` and `colonies` by id, `setup` by initiative and side ("3B"), `board`
        (`sell_price`, `silver_price`, `gold_price`: three values per epoch, or a table of epoch
        -> value). Raises ComponentError naming every unknown id or field and out-of-range value.
        """
        problems = override_problems(self, overrides)
        if problems:
            raise ComponentError([Problem("components", None, ".".join(map(str, path)), message)
                                  for path, message in problems])
        if not any(overrides.values()):
            return self
        cards = [_overridden(c, overrides.get("cards", {}).get(c.id)) for c in self.cards]
        colonies = [_overridden(c, overrides.get("colonies", {}).get(c.id)) for c in self.colonies]
        setup = {key: _overridden(card, overrides.get("setup", {}).get(f"{key[0]}{key[1]}"))
                 for key, card in self.setup_cards.items()}
        board = overrides.get("board", {})
        prices = {name: _prices(getattr(self, attr), board.get(name))
                  for name, attr in (("sell_price", "sell"), ("silver_price", "silver_price"),
                                     ("gold_price", "gold_price"))}
        digest = hashlib.sha256((self.digest + json.dumps(overrides, sort_keys=True)).encode())
        return replace(self, cards=cards, colonies=colonies, setup_cards=setup, sell=prices["sell_price"],
                       silver_price=prices["silver_price"], gold_price=prices["gold_price"],
                       digest=digest.hexdigest()[:16])

    def cards_of(self, epoch: int, colour: int, advanced: bool) -> np.ndarray:
        """Indices of the cards that may enter the deck of this epoch and colour."""
        mask = (self.card_epoch == epoch) & (self.card_colour == colour)
        if not advanced:
            mask &= ~self.card_starred
        return np.flatnonzero(mask)


class _LentSet(ComponentSet):
    """`ComponentSet.lent`: a policy's attempt to set one of its values is a ValueError, as a write into
    one of its arrays is."""

    def __setattr__(self, name, value):
        if "_origin" in vars(self):  # not a set made from it (`with_overrides`), which is the policy's own
            raise ValueError(f"the component set lent to a policy is read-only (its {name} cannot be set)")
        super().__setattr__(name, value)


def _read_only(array: np.ndarray) -> np.ndarray:
    """A copy of `array` that cannot be written, nor made writable (numpy refuses it for memory a bytes
    object owns, where an array owning its own memory could be made writable again)."""
    return np.frombuffer(np.ascontiguousarray(array).tobytes(), array.dtype).reshape(array.shape)


def original(components: ComponentSet) -> ComponentSet:
    """The set a `lent` copy was made of, else the set itself: what the engines play and the kernels read. A
    built-in's Python code reaches them with a user's lent set (a subclass calling super()), and numba
    typed its read-only arrays anew: the engine compiled again for two minutes to play a side trial."""
    return getattr(components, "__dict__", {}).get("_origin", components)


def kernel_arrays(components: ComponentSet) -> CompiledArrays:
    """The `compiled` arrays of the set a lent copy was made of (`original`), as compiled code takes them."""
    return original(components).compiled


def override_problems(components: ComponentSet, overrides) -> list[tuple[tuple, str]]:
    """Every problem of an override table, as (key path, message): unknown sections, ids and
    fields, values that are not whole numbers or leave their range, and back points of a colony
    below its front points."""
    if not isinstance(overrides, dict):
        return [((), f"expected a table of overrides, got {overrides!r}")]
    problems = []
    known_ids = {"cards": components.card_index, "colonies": {c.id: c for c in components.colonies},
                 "setup": {f"{i}{s}": None for i, s in components.setup_cards}}

    def value(path, v, range_key):
        low, high = RANGES[range_key]
        if isinstance(v, bool) or not isinstance(v, int):
            problems.append((path, f"expected a whole number, got {v!r}"))
        elif not low <= v <= high:
            problems.append((path, f"{v} is out of range {low}..{high}"))

    for section, table in overrides.items():
        if section not in OVERRIDABLE:
            problems.append(((section,), f"unknown section '{section}' (known: {', '.join(OVERRIDABLE)})"))
            continue
        fields_ = OVERRIDABLE[section]
        if not isinstance(table, dict):
            problems.append(((section,), f"expected a table, got {table!r}"))
            continue
        if section == "board":
            for name, v in table.items():
                if name not in fields_:
                    problems.append(((section, name), f"unknown field '{name}' (known: {', '.join(fields_)})"))
                elif isinstance(v, list) and len(v) == len(EPOCHS):
                    for i, x in enumerate(v):
                        value((section, name, i), x, fields_[name])
                elif isinstance(v, dict):
                    for epoch, x in v.items():
                        if str(epoch) not in {str(e) for e in EPOCHS}:
                            problems.append(((section, name, epoch), f"unknown epoch '{epoch}' (epochs: 1, 2, 3)"))
                        else:
                            value((section, name, epoch), x, fields_[name])
                else:
                    problems.append(((section, name), f"expected {len(EPOCHS)} values (epochs I-III) or a "
                                                      f"table of epoch = value, got {v!r}"))
            continue
        for item, values in table.items():
            if item not in known_ids[section]:
                close = difflib.get_close_matches(str(item), list(known_ids[section]), n=1)
                hint = f"; did you mean '{close[0]}'?" if close else ""
                what = {"cards": "card id", "colonies": "colony id", "setup": "setup card (initiative and side, e.g. '3B')"}
                problems.append(((section, item), f"unknown {what[section]} '{item}'{hint}"))
                continue
            if not isinstance(values, dict):
                problems.append(((section, item), f"expected a table of field = value, got {values!r}"))
                continue
            before = len(problems)
            for name, v in values.items():
                if name not in fields_:
                    problems.append(((section, item, name), f"unknown field '{name}' (known: {', '.join(fields_)})"))
                else:
                    value((section, item, name), v, fields_[name])
            if section == "colonies" and len(problems) == before:
                tile = known_ids[section][item]
                front, back = values.get("front_points", tile.front_points), values.get("back_points", tile.back_points)
                if back < front:
                    problems.append(((section, item, "back_points" if "back_points" in values else "front_points"),
                                     f"back_points {back} would be lower than front_points {front}"))
    return problems


def _overridden(record, values: dict | None):
    """A card, colony or setup card with some of its values replaced."""
    if not values:
        return record
    changed = {k: v for k, v in values.items() if k in ("cost", "points", "coins", "plunder", "integrate",
                                                          "front_points", "back_points")}
    prefix = "back_" if isinstance(record, Colony) else ""
    attr = "back_values" if isinstance(record, Colony) else "values"
    tracks = [values.get(prefix + t, old) for t, old in zip(TRACKS, getattr(record, attr))]
    return replace(record, **changed, **{attr: tuple(tracks)})


def _prices(old: tuple[int, int, int], new) -> tuple[int, int, int]:
    """Per-epoch prices with an override: a full list, or a table of epoch -> value."""
    if new is None:
        return old
    if isinstance(new, list):
        return tuple(new)
    return tuple(new.get(str(e), new.get(e, p)) for e, p in zip(EPOCHS, old))

"""Component sets: the epoch cards, colonies, setup cards and board constants of one edition.

A component set is a directory of four human-editable files (see docs/components.md):
`cards.csv`, `colonies.csv`, `setup_cards.csv` and `board.toml`. `load_components` reads and
validates a set completely and raises `ComponentError` listing every problem with its file, line
and field. The validated set exposes plain Python records and numpy arrays for the engines.
"""

from __future__ import annotations

import csv
import difflib
import hashlib
import json
import tomllib
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path

import numpy as np

from .constants import (
    CARDS_PER_COLOUR,
    COLONY_LEVELS,
    COLOURS,
    EFFECT_INDEX,
    EFFECTS,
    EPOCHS,
    PURPLE,
    PURPLE_PER_EPOCH,
    STATUES,
    TRACKS,
)
from .problems import InputError, Problem, toml_error_line

FILES = ("cards.csv", "colonies.csv", "setup_cards.csv", "board.toml")
CARD_COLUMNS = ("id", "epoch", "colour", "starred", "cost", "points", *TRACKS, "effect", "exact")
CARD_VALUES = ("cost", "points", *TRACKS, "effect")
COLONY_COLUMNS = ("id", "level", "requirement", "plunder", "integrate", "front_points",
                  *(f"back_{t}" for t in TRACKS), "back_points", "exact")
COLONY_VALUES = COLONY_COLUMNS[2:-1]
SETUP_COLUMNS = ("initiative", "side", "coins", *TRACKS, "exact")
SETUP_VALUES = ("coins", *TRACKS)
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
        return f"{self.id} ({COLOURS[self.colour]}, {what}, cost {self.cost}, {self.points} pts)"


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

    def __post_init__(self):
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


def default_components_path() -> Path:
    return Path(str(resources.files("hadara_sim") / "data" / "default"))


_CACHE: dict[tuple, ComponentSet] = {}


def load_components(path: str | Path | None = None) -> ComponentSet:
    """Read and validate the component set in directory `path` (default: the shipped set).

    A set already read is reused until one of its files changes.
    """
    directory = Path(path) if path is not None else default_components_path()
    stamps = []
    for name in FILES:
        try:
            stat = (directory / name).stat()
            stamps.append((stat.st_mtime_ns, stat.st_size))
        except OSError:
            stamps.append(None)
    key = (str(directory.resolve()), tuple(stamps))
    if key not in _CACHE:
        _CACHE[key] = _load(directory)
    return _CACHE[key]


def validate_components(path: str | Path) -> list[Problem]:
    """Every problem in the component set at `path` (empty when valid)."""
    try:
        _load(Path(path))
    except ComponentError as err:
        return err.problems
    return []


def _load(directory: Path) -> ComponentSet:
    problems: list[Problem] = []
    if not directory.is_dir():
        raise ComponentError([Problem(str(directory), None, "path", "is not a directory of component files")])
    missing = [f for f in FILES if not (directory / f).is_file()]
    if missing:
        raise ComponentError([Problem(str(directory / f), None, "file", "is missing") for f in missing])
    digest = hashlib.sha256()
    for name in FILES:
        digest.update(name.encode() + b"\0" + (directory / name).read_bytes())
    cards = _read_cards(directory / "cards.csv", problems)
    colonies = _read_colonies(directory / "colonies.csv", problems)
    setup = _read_setup(directory / "setup_cards.csv", problems)
    board = _read_board(directory / "board.toml", problems)
    if problems:
        raise ComponentError(problems)
    return ComponentSet(path=str(directory), cards=cards, colonies=colonies, setup_cards=setup,
                        digest=digest.hexdigest()[:16], **board)


class _Rows:
    """CSV rows with their line numbers, and typed field access that records problems."""

    def __init__(self, path: Path, columns: tuple[str, ...], problems: list[Problem]):
        self.name, self.problems = path.name, problems
        self.rows: list[tuple[int, dict[str, str]]] = []
        try:
            text = path.read_text(encoding="utf-8-sig")  # a byte order mark, as Excel writes, is not a column
        except (OSError, UnicodeDecodeError) as err:
            self.report(None, "file", f"cannot be read: {err}")
            return
        reader = csv.DictReader(text.splitlines())
        header = tuple(h.strip() for h in (reader.fieldnames or ()))
        twice = sorted({c for c in header if header.count(c) > 1})
        if twice:
            self.report(1, "header", f"column{'s' * (len(twice) > 1)} {', '.join(map(repr, twice))} "
                                     "given more than once; keep one of each")
            return
        absent = [c for c in columns if c not in header]
        extra = [c for c in header if c not in columns]
        if absent or extra:
            msg = ", ".join([f"missing column '{c}'" for c in absent] + [f"unknown column '{c}'" for c in extra])
            self.report(1, "header", f"{msg} (expected: {','.join(columns)})")
            return
        for row in reader:
            clean = {k.strip(): (v or "").strip() for k, v in row.items() if k is not None}
            if None in row:
                self.report(reader.line_num, "row", "has more fields than the header")
            if not any(clean.values()):
                continue
            self.rows.append((reader.line_num, clean))

    def report(self, line, field_, message):
        self.problems.append(Problem(self.name, line, field_, message))

    def integer(self, line, row, name, low, high):
        text = row.get(name, "")
        try:
            value = int(text)
        except ValueError:
            self.report(line, name, f"expected a whole number, got '{text}'")
            return 0
        if not low <= value <= high:
            self.report(line, name, f"{value} is out of range {low}..{high}")
        return value

    def choice(self, line, row, name, allowed):
        text = row.get(name, "")
        if text not in allowed:
            self.report(line, name, f"'{text}' is not one of {', '.join(map(str, allowed))}")
            return None
        return text

    def exact(self, line, row, allowed):
        names = frozenset(x.strip() for x in row.get("exact", "").split(";") if x.strip())
        for bad in sorted(names - set(allowed)):
            self.report(line, "exact", f"'{bad}' is not a value field (allowed: {', '.join(allowed)})")
        return names & frozenset(allowed)


def _read_cards(path: Path, problems: list[Problem]) -> list[Card]:
    rows = _Rows(path, CARD_COLUMNS, problems)
    cards, ids, effect_rows = [], {}, {}
    lo_c, hi_c = RANGES["cost"]
    lo_p, hi_p = RANGES["points"]
    lo_t, hi_t = RANGES["track"]
    for line, row in rows.rows:
        card_id = row["id"]
        if not card_id:
            rows.report(line, "id", "is empty")
        elif card_id in ids:
            rows.report(line, "id", f"'{card_id}' repeats the card on line {ids[card_id]}")
        ids[card_id] = line
        epoch = rows.integer(line, row, "epoch", 1, 3)
        colour_name = rows.choice(line, row, "colour", COLOURS)
        colour = COLOURS.index(colour_name) if colour_name else 0
        starred = rows.choice(line, row, "starred", ("0", "1")) == "1"
        cost = rows.integer(line, row, "cost", lo_c, hi_c)
        points = rows.integer(line, row, "points", lo_p, hi_p)
        values = tuple(rows.integer(line, row, t, lo_t, hi_t) for t in TRACKS)
        effect = row["effect"] or None
        if effect is not None:
            if effect not in EFFECTS:
                rows.report(line, "effect", f"unknown effect '{effect}' (known: {', '.join(EFFECTS)})")
                effect = None
            else:
                effect_rows.setdefault(effect, []).append(line)
                want_epoch, want_star = EFFECTS[effect]
                if colour != PURPLE:
                    rows.report(line, "colour", f"effect '{effect}' must be on a purple card")
                if epoch != want_epoch:
                    rows.report(line, "epoch", f"effect '{effect}' belongs to epoch {want_epoch}")
                if starred != want_star:
                    rows.report(line, "starred", f"effect '{effect}' must be {'starred (advanced)' if want_star else 'unstarred (basic)'}")
                if any(values):
                    rows.report(line, "effect", "an effect card carries no track values")
        elif starred:
            rows.report(line, "starred", "only purple effect cards are starred")
        exact = rows.exact(line, row, CARD_VALUES)
        cards.append(Card(len(cards), card_id, epoch, colour, starred, cost, points, values, effect, exact))
    for effect in EFFECTS:
        lines = effect_rows.get(effect, [])
        if not lines:
            rows.report(None, "effect", f"effect '{effect}' is on no card (each effect is on exactly one card)")
        elif len(lines) > 1:
            rows.report(lines[1], "effect", f"effect '{effect}' is on {len(lines)} cards (lines {', '.join(map(str, lines))}); it must be on exactly one")
    if rows.rows and not any(p.field == "header" for p in problems):
        for epoch in EPOCHS:
            for colour, name in enumerate(COLOURS):
                n = sum(1 for c in cards if c.epoch == epoch and c.colour == colour)
                want = PURPLE_PER_EPOCH if colour == PURPLE else CARDS_PER_COLOUR
                if n != want:
                    rows.report(None, "colour", f"epoch {epoch} has {n} {name} cards, expected {want}")
            stars = sum(1 for c in cards if c.epoch == epoch and c.starred)
            if stars != 4:
                rows.report(None, "starred", f"epoch {epoch} has {stars} starred cards, expected 4")
    return cards


def _read_colonies(path: Path, problems: list[Problem]) -> list[Colony]:
    rows = _Rows(path, COLONY_COLUMNS, problems)
    colonies, ids, level_req = [], {}, {}
    for line, row in rows.rows:
        tile_id = row["id"]
        if not tile_id:
            rows.report(line, "id", "is empty")
        elif tile_id in ids:
            rows.report(line, "id", f"'{tile_id}' repeats the tile on line {ids[tile_id]}")
        ids[tile_id] = line
        level = rows.integer(line, row, "level", 1, COLONY_LEVELS) - 1
        requirement = rows.integer(line, row, "requirement", *RANGES["requirement"])
        plunder = rows.integer(line, row, "plunder", *RANGES["colony_coins"])
        integrate = rows.integer(line, row, "integrate", *RANGES["colony_coins"])
        front = rows.integer(line, row, "front_points", *RANGES["colony_points"])
        back_values = tuple(rows.integer(line, row, f"back_{t}", *RANGES["track"]) for t in TRACKS)
        back = rows.integer(line, row, "back_points", *RANGES["colony_points"])
        if back < front:
            rows.report(line, "back_points", f"{back} is lower than front_points {front}")
        if level in level_req and level_req[level][0] != requirement:
            rows.report(line, "requirement", f"{requirement} differs from {level_req[level][0]} on line {level_req[level][1]}: one requirement per level")
        level_req.setdefault(level, (requirement, line))
        exact = rows.exact(line, row, COLONY_VALUES)
        colonies.append(Colony(len(colonies), tile_id, level, requirement, plunder, integrate,
                               front, back_values, back, exact))
    if rows.rows and not any(p.field == "header" and p.file == rows.name for p in problems):
        for level in range(COLONY_LEVELS):
            n = sum(1 for c in colonies if c.level == level)
            if n != 5:
                rows.report(None, "level", f"level {level + 1} has {n} tiles, expected 5")
        reqs = [level_req[lv][0] for lv in range(COLONY_LEVELS) if lv in level_req]
        if reqs != sorted(set(reqs)):
            rows.report(None, "requirement", f"requirements must rise with the level, got {reqs}")
    return colonies


def _read_setup(path: Path, problems: list[Problem]) -> dict[tuple[int, str], SetupCard]:
    rows = _Rows(path, SETUP_COLUMNS, problems)
    cards: dict[tuple[int, str], SetupCard] = {}
    lines: dict[tuple[int, str], int] = {}
    for line, row in rows.rows:
        initiative = rows.integer(line, row, "initiative", 1, 5)
        side = rows.choice(line, row, "side", SIDES)
        coins = rows.integer(line, row, "coins", *RANGES["coins"])
        values = tuple(rows.integer(line, row, t, *RANGES["track"]) for t in TRACKS)
        exact = rows.exact(line, row, SETUP_VALUES)
        key = (initiative, side)
        if key in lines:
            rows.report(line, "side", f"initiative {initiative} side {side} repeats line {lines[key]}")
        lines[key] = line
        cards[key] = SetupCard(initiative, side or "A", coins, values, exact)
    if rows.rows and not any(p.field == "header" and p.file == rows.name for p in problems):
        for initiative in range(1, 6):
            for side in SIDES:
                if (initiative, side) not in cards:
                    rows.report(None, "initiative", f"no card for initiative {initiative} side {side}")
    return cards


def _read_board(path: Path, problems: list[Problem]) -> dict:
    name = path.name

    def report(field_, message, line=None):
        problems.append(Problem(name, line, field_, message))

    try:
        text = path.read_text(encoding="utf-8-sig")
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        report("toml", f"not valid TOML: {err}", toml_error_line(err, text))
        return {}
    except (OSError, UnicodeDecodeError) as err:
        report("file", f"cannot be read: {err}")
        return {}

    def table(section):
        value = data.get(section, {})
        if not isinstance(value, dict):
            report(section, f"expected a table [{section}], got {value!r}")
            return {}
        return value

    def whole(v) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    def numbers(section, key, count, low, high):
        value = table(section).get(key)
        if (not isinstance(value, list) or len(value) != count
                or not all(whole(v) and low <= v <= high for v in value)):
            report(f"{section}.{key}", f"expected {count} whole numbers in {low}..{high}, got {value!r}")
            return (0,) * count
        return tuple(value)

    def exact(section_data, section):
        names = section_data.get("exact", []) if isinstance(section_data, dict) else []
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            report(f"{section}.exact", "expected a list of field names")
            return frozenset()
        return frozenset(names)

    sell = numbers("sell", "coins", 3, *RANGES["sell"])
    silver = numbers("medals", "silver", 3, *RANGES["medal"])
    gold = numbers("medals", "gold", 3, *RANGES["medal"])
    tiles = table("bonus_tiles").get("per_colour")
    if not whole(tiles) or not 1 <= tiles <= 4:
        report("bonus_tiles.per_colour", f"expected a whole number in 1..4, got {tiles!r}")
        tiles = 2
    statues = []
    raw = data.get("statues", [])
    if not isinstance(raw, list) or len(raw) != STATUES:
        report("statues", f"expected {STATUES} [[statues]] tables, got {len(raw) if isinstance(raw, list) else raw!r}")
        raw = []
    for i, s in enumerate(raw):
        vals = {}
        for key, high in (("requirement", 60), ("points", 60), ("bonus", 20)):
            v = s.get(key) if isinstance(s, dict) else None
            if not whole(v) or not 0 <= v <= high:
                report(f"statues[{i}].{key}", f"expected a whole number in 0..{high}, got {v!r}")
                v = 0
            vals[key] = v
        statues.append(Statue(**vals, exact=exact(s, f"statues[{i}]")))
    reqs = [s.requirement for s in statues]
    if reqs != sorted(set(reqs)):
        report("statues", f"requirements must rise from statue to statue, got {reqs}")
    board_exact = {sec: exact(data.get(sec, {}), sec) for sec in ("sell", "medals", "bonus_tiles")}
    return dict(statues=statues, sell=sell, silver_price=silver, gold_price=gold,
                tiles_per_colour=tiles, board_exact=board_exact)

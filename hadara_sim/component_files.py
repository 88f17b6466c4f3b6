"""Reading a component set from its four files (see docs/components.md): `load_components` reads and
validates a set completely and raises `ComponentError` listing every problem with its file, line and
field; a set already read is reused until one of its files changes.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import tomllib
from dataclasses import asdict, is_dataclass
from importlib import resources
from pathlib import Path

from .components import (
    BOARD_VALUES, CARD_COLUMNS, CARD_VALUES, COLONY_COLUMNS, COLONY_VALUES, FILES, RANGES, SETUP_COLUMNS, SETUP_VALUES,
    SIDES, STATUE_VALUES, Card, Colony, ComponentError, ComponentSet, SetupCard, Statue,
)
from .constants import (
    CARDS_PER_COLOUR, COLONY_LEVELS, COLOURS, EFFECTS, EPOCHS, PURPLE, PURPLE_PER_EPOCH, STATUES, TRACKS,
)
from .problems import TOO_DEEP, NotText, Problem, as_path, ascii_whole, not_a_file, read_text, toml_error_line
from .tomlpos import key_lines, line_of


def default_components_path() -> Path:
    return Path(str(resources.files("hadara_sim") / "data" / "default"))


_CACHE: dict[tuple, ComponentSet] = {}


def load_components(path: str | Path | None = None) -> ComponentSet:
    """Read and validate the component set in directory `path` (default: the shipped set).

    A set already read is reused until one of its files changes.
    """
    directory = as_path(path, "the component set's folder") if path is not None else default_components_path()
    if "\x00" in str(directory):  # a scenario's "\u0000": pathlib raised "embedded null byte" ValueErrors
        raise ComponentError([Problem(str(directory).replace("\x00", "\\x00"), None, "path",
                                      "holds a NUL character (\\x00), which no folder's name can: give the folder "
                                      f"that holds {', '.join(FILES)}")])
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


def as_component_set(value, what: str = "components") -> ComponentSet:
    """`value` as a ComponentSet: itself, or the set in the folder it names; else a TypeError saying
    what to pass (None stopped deep inside at `.n_cards`)."""
    if isinstance(value, ComponentSet):
        return value
    if isinstance(value, (str, os.PathLike)):
        return load_components(value)
    raise TypeError(f"{what} is a component set: hadara_sim.load_components() gives the shipped one, "
                    f"load_components(FOLDER) one of your own; got {type(value).__name__}")


def validate_components(path: str | Path) -> list[Problem]:
    """Every problem in the component set at `path` (empty when valid)."""
    try:
        _load(Path(path))
    except ComponentError as err:
        return err.problems
    return []


def _load(directory: Path) -> ComponentSet:
    problems: list[Problem] = []
    try:
        is_dir = directory.is_dir()
    except OSError as err:  # a name too long for the file system: "unexpected OSError" before
        raise ComponentError([Problem(str(directory), None, "path", f"cannot be looked up ({err.strerror}): "
                                                                     "give the folder that holds "
                                                                     f"{', '.join(FILES)}")]) from None
    if not is_dir:
        what = "is a file, not a folder" if directory.exists() else "does not exist"
        raise ComponentError([Problem(str(directory), None, "path", f"{what}: give the folder that holds "
                                                                     f"{', '.join(FILES)}")])
    wrong = [Problem(str(directory / f), None, "file", f"is {kind}, not a file") for f in FILES
             if (kind := not_a_file(directory / f))]
    # a set made by copying some files said only "is missing": which files a set holds, and where one is
    wrong += [Problem(str(directory / f), None, "file", f"is missing: a component set holds {', '.join(FILES)}; "
                      f"copy it from the shipped set, {default_components_path() / f}") for f in FILES
              if not (directory / f).exists()]
    if wrong:
        raise ComponentError(wrong)
    cards = _read_cards(directory / "cards.csv", problems)
    colonies = _read_colonies(directory / "colonies.csv", problems)
    setup = _read_setup(directory / "setup_cards.csv", problems)
    board = _read_board(directory / "board.toml", problems)
    if problems:
        raise ComponentError(problems)
    return ComponentSet(path=str(directory), cards=cards, colonies=colonies, setup_cards=setup,
                        digest=content_digest(cards, colonies, setup, board), **board)


def content_digest(cards, colonies, setup, board: dict) -> str:
    """The 16 hex digits that name a component set: of the values read, not of the files' bytes, so the
    same set saved with other line ends, a byte order mark, another delimiter, blank lines or comments
    is the same set (expert weights learned on it still play it)."""
    def plain(value):
        if is_dataclass(value):
            return plain(asdict(value))
        if isinstance(value, dict):
            return {str(k): plain(v) for k, v in value.items()}
        if isinstance(value, (frozenset, set)):
            return sorted(value)
        if isinstance(value, (list, tuple)):
            return [plain(v) for v in value]
        return value

    content = {"cards": cards, "colonies": colonies, "setup": {f"{i}{side}": card for (i, side), card in setup.items()},
               "board": board}
    return hashlib.sha256(json.dumps(plain(content), sort_keys=True).encode()).hexdigest()[:16]


class _Rows:
    """CSV rows with their line numbers, and typed field access that records problems."""

    def __init__(self, path: Path, columns: tuple[str, ...], problems: list[Problem]):
        self.name, self.problems = path.name, problems
        self.rows: list[tuple[int, dict[str, str]]] = []
        self.seen_ids: dict[str, int] = {}  # id -> the line it first appeared on
        self.whole = False  # read to its end: checks of the whole file (every effect once) apply
        try:
            text = read_text(path)
        except NotText as err:
            self.report(err.line, "file", str(err))
            return
        except OSError as err:
            self.report(None, "file", f"cannot be read: {err}")
            return
        lines = text.splitlines()
        # Excel writes ';' (or a tab) between fields where the decimal mark is a comma: the header says which.
        header_line = lines[0] if lines else ""
        delimiter = next((d for d in (",", ";", "\t") if d in header_line), ",")
        # Any line ends, kept in a quoted field.
        reader = csv.DictReader((line + "\n" for line in lines), delimiter=delimiter)
        try:
            self._read(reader, lines, columns)
        except csv.Error as err:  # a field past the csv module's 131,072 characters was "unexpected Error"
            # (the reader counts the lines it finished: the field's is the next)
            self.report(reader.line_num + 1, "row", f"cannot be read as CSV ({err}): a field this long is a mistake (a "
                                                    "file pasted into one cell, a quote (\") left open): shorten it")

    def _read(self, reader, lines: list[str], columns: tuple[str, ...]) -> None:
        """The rows of `reader` (over `lines`) into `rows`, their problems reported."""
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
        end = reader.line_num  # of the header
        for row in reader:
            start, end = end + 1, reader.line_num
            while start < end and not lines[start - 1].strip():  # blank lines before the row
                start += 1
            if start < end:  # a quote opened a field that ran over line ends
                self.report(start, "row", f"a quote (\") opens a field that runs on to line {end}: close the "
                                          "quote or remove it")
                continue
            clean = {k.strip(): (v or "").strip() for k, v in row.items() if k is not None}
            if None in row:
                self.report(reader.line_num, "row", "has more fields than the header")
            if not any(clean.values()):
                continue
            first = next(iter(clean.values()), "")
            if first.startswith("#"):  # a note line was a problem for each of its empty fields
                self.report(reader.line_num, "row", f"'{first[:40]}' reads as a note, but a CSV file has no "
                                                    "comment lines: delete the line")
                continue
            self.rows.append((reader.line_num, clean))
        self.whole = True

    def report(self, line, field_, message):
        self.problems.append(Problem(self.name, line, field_, message))

    def identifier(self, line, row, what):
        """The row's `id`, reported if empty or already on an earlier line (`what`: "card", "tile")."""
        ident = row["id"]
        if not ident:
            self.report(line, "id", "is empty")
        elif ident in self.seen_ids:
            self.report(line, "id", f"'{ident}' repeats the {what} on line {self.seen_ids[ident]}")
        self.seen_ids[ident] = line
        return ident

    def integer(self, line, row, name, low, high):
        text = row.get(name, "")
        value = ascii_whole(text, signed=True)
        if value is None:
            self.report(line, name, f"expected a whole number (digits 0-9 only), got '{text}'")
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
    cards, effect_rows = [], {}
    lo_c, hi_c = RANGES["cost"]
    lo_p, hi_p = RANGES["points"]
    lo_t, hi_t = RANGES["track"]
    for line, row in rows.rows:
        card_id = rows.identifier(line, row, "card")
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
    for effect in EFFECTS if rows.whole else ():
        lines = effect_rows.get(effect, [])
        if not lines:
            rows.report(None, "effect", f"effect '{effect}' is on no card (each effect is on exactly one card)")
        elif len(lines) > 1:
            rows.report(lines[1], "effect", f"effect '{effect}' is on {len(lines)} cards (lines {', '.join(map(str, lines))}); it must be on exactly one")
    if rows.whole and rows.rows:
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
    colonies, level_req = [], {}
    for line, row in rows.rows:
        tile_id = rows.identifier(line, row, "tile")
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
    if rows.whole and rows.rows:
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
    if rows.whole and rows.rows:
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
        text = read_text(path)
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        report("toml", f"not valid TOML: {err}", toml_error_line(err, text))
        return {}
    except NotText as err:
        report("file", str(err), err.line)
        return {}
    except RecursionError:
        report("toml", TOO_DEEP)
        return {}
    except OSError as err:
        report("file", f"cannot be read: {err}")
        return {}

    def table(section):
        value = data.get(section, {})
        if not isinstance(value, dict):
            report(section, f"expected a table [{section}], got {value!r}", line_of(lines, (section,)))
            return {}
        return value

    def whole(v) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    def numbers(section, key, count, low, high):
        value = table(section).get(key)
        if (not isinstance(value, list) or len(value) != count
                or not all(whole(v) and low <= v <= high for v in value)):
            report(f"{section}.{key}", f"expected {count} whole numbers in {low}..{high}, got {value!r}",
                   line_of(lines, (section, key)))
            return (0,) * count
        return tuple(value)

    lines = key_lines(text)  # a value's problem names its line (its table's, where the key is missing)

    def dotted(path: tuple) -> str:
        """A table's name in a problem: sell, statues[3]."""
        return f"{path[0]}{''.join(f'[{k}]' for k in path[1:])}"

    def exact(section_data, path: tuple, allowed: tuple[str, ...]):
        """The table's `exact` names, each one of its value fields `allowed` (as a CSV row's)."""
        field_ = f"{dotted(path)}.exact"
        names = section_data.get("exact", []) if isinstance(section_data, dict) else []
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            report(field_, "expected a list of field names", line_of(lines, (*path, "exact")))
            return frozenset()
        for i, bad in enumerate(names):
            if bad not in allowed:
                report(field_, f"'{bad}' is not a value field (allowed: {', '.join(allowed)})",
                       line_of(lines, (*path, "exact", i)))
        return frozenset(names) & frozenset(allowed)

    def unknown(table_data, path: tuple, known) -> None:
        """Report the keys of a table that are none of `known`: a misspelt key was skipped and the
        value under it never read (per_color = 3 left 2 tiles per colour, and the set 'valid')."""
        for key in table_data if isinstance(table_data, dict) else ():
            if key not in known:
                report(f"{dotted(path)}.{key}" if path else key, f"unknown key; the keys here are {', '.join(known)}",
                       line_of(lines, (*path, key)))

    unknown(data, (), (*BOARD_VALUES, "statues"))
    for sec, allowed in BOARD_VALUES.items():
        unknown(data.get(sec), (sec,), (*allowed, "exact"))
    for i, s in enumerate(data.get("statues", []) if isinstance(data.get("statues"), list) else []):
        unknown(s, ("statues", i), (*STATUE_VALUES, "exact"))
    sell = numbers("sell", "coins", 3, *RANGES["sell"])
    silver = numbers("medals", "silver", 3, *RANGES["medal"])
    gold = numbers("medals", "gold", 3, *RANGES["medal"])
    tiles = table("bonus_tiles").get("per_colour")
    if not whole(tiles) or not 1 <= tiles <= 4:
        report("bonus_tiles.per_colour", f"expected a whole number in 1..4, got {tiles!r}",
               line_of(lines, ("bonus_tiles", "per_colour")))
        tiles = 2
    statues = []
    raw = data.get("statues", [])
    if not isinstance(raw, list) or len(raw) != STATUES:
        report("statues", f"expected {STATUES} [[statues]] tables, got {len(raw) if isinstance(raw, list) else raw!r}",
               line_of(lines, ("statues",)))
        raw = []
    for i, s in enumerate(raw):
        vals = {}
        for key, high in zip(STATUE_VALUES, (60, 60, 20)):
            v = s.get(key) if isinstance(s, dict) else None
            if not whole(v) or not 0 <= v <= high:
                report(f"statues[{i}].{key}", f"expected a whole number in 0..{high}, got {v!r}",
                       line_of(lines, ("statues", i, key)))
                v = 0
            vals[key] = v
        statues.append(Statue(**vals, exact=exact(s, ("statues", i), STATUE_VALUES)))
    reqs = [s.requirement for s in statues]
    if reqs != sorted(set(reqs)):
        report("statues", f"requirements must rise from statue to statue, got {reqs}")
    board_exact = {sec: exact(data.get(sec, {}), (sec,), allowed) for sec, allowed in BOARD_VALUES.items()}
    return dict(statues=statues, sell=sell, silver_price=silver, gold_price=gold,
                tiles_per_colour=tiles, board_exact=board_exact)

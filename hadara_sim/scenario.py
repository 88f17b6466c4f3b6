"""Scenario files: what a batch run plays, read from TOML and validated completely.

A scenario names the player count, game kind, component set, the policies and how they take the
seats, setup cards and sides, the board's colour order, cards granted to seats, the number of games,
the seed and the chunk size; a `[sweep]` table plays the run once for every combination of listed
values, on the same deals. `[components.*]` tables override single component values. See docs/scenarios.md for the format.

`load_scenario(path)` returns a `Scenario` whose `combinations` are fully resolved, or raises
`ScenarioError` listing every problem found with its file, line and key.
"""

from __future__ import annotations

import copy
import difflib
import hashlib
import itertools
import json
import re
import tomllib
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .components import OVERRIDABLE, ComponentError, ComponentSet, override_problems
from .component_files import load_components
from .constants import COLOURS, EFFECT_IDS, EPOCHS, MAX_PLAYERS, MIN_PLAYERS, PURPLE
from .problems import InputError, Problem, toml_error_line
from .tomlpos import key_lines, line_of

DEFAULT_GAMES = 10_000
DEFAULT_CHUNK = 2_000
DEFAULT_PLAYERS = 4
GAME_KINDS = ("basic", "advanced")
ASSIGNMENTS = ("fixed", "rotated", "permutations")
SIDE_NAMES = ("A", "B")
CARD_MODES = ("random", "grid")
SIDE_MODES = ("policy", "random", "grid")

RUN_KEYS = ("name", "description", "games", "seed", "chunk", "components")
SWEEPABLE = ("players", "game", "policies", "seats", "assignment", "setup", "board", "grants")
TOP_KEYS = (*RUN_KEYS, *SWEEPABLE, "sweep")
POLICY_KEYS = ("policy", "params", "label")
SETUP_KEYS = ("cards", "sides", "focus_seat")
BOARD_KEYS = ("colour_order",)
GRANT_KEYS = ("card", "epoch", "seat")
COMPONENTS_KEYS = ("path", *OVERRIDABLE)  # a [components] table: the set's path and its overrides


# --- problems ---------------------------------------------------------------------------------

class ScenarioError(InputError):
    """A scenario failed validation; `problems` lists every problem found."""


class DesignWarning(UserWarning):
    """A valid scenario whose design biases a comparison (fixed seats for several policies)."""


def show_path(path: tuple) -> str:
    """("seats", 1, "params", "coin") -> "seats[1].params.coin"."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def policy_label(spec: str, params: dict) -> str:
    """A policy's default label in results: its name, with the parameters it sets: greedy(coin=0.5)."""
    return spec if not params else f"{spec}({', '.join(f'{k}={_show(v)}' for k, v in params.items())})"


def _show(value) -> str:
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {_show(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    return repr(value)


def _type_name(value) -> str:
    return {bool: "a boolean", int: "a whole number", float: "a number", str: "a string",
            list: "a list", dict: "a table"}.get(type(value), type(value).__name__)


def _suggest(word: str, known) -> str:
    close = difflib.get_close_matches(str(word), [str(k) for k in known], n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""


class _Check:
    """Collects problems; paths are turned into lines through the text's key positions."""

    def __init__(self, file: str, lines: dict[tuple, int]):
        self.file, self.lines = file, lines
        self.problems: list[Problem] = []
        # While checking sweep combinations: the combination's "with k = v, ...: ", its swept
        # (path, line path of the value, "with k = v: ") and the problems found, for merging.
        self.context = ""
        self.swept: list[tuple[tuple, tuple, str]] = []
        self.found: list[tuple] | None = None

    def report(self, path: tuple, message: str):
        if self.found is not None:
            cause = None
            for swept, where, value_context in self.swept:
                if path[:len(swept)] == swept or (len(path) > 1 and swept[:len(path)] == path):
                    cause = (where, value_context)  # caused by this swept value
                    break
            self.found.append((path, message, cause, self.context))
            return
        self.add(Problem(self.file, line_of(self.lines, path), show_path(path), message))

    @property
    def count(self) -> int:
        return len(self.problems) + len(self.found or ())

    def add(self, problem: Problem):
        if problem not in self.problems:
            self.problems.append(problem)

    def merge_combinations(self, found: list[tuple], combinations: int):
        """Problems of the sweep combinations: one found in every combination once, without
        context; one due to a swept value at that value's line; others with the first combination
        they occur in."""
        groups: dict[tuple, list] = {}
        for path, message, cause, context in found:
            groups.setdefault((path, message), []).append((cause, context))
        for (path, message), hits in groups.items():
            if len(hits) >= combinations:
                self.add(Problem(self.file, line_of(self.lines, path), show_path(path), message))
                continue
            for cause in dict.fromkeys(h[0] for h in hits):
                contexts = [h[1] for h in hits if h[0] == cause]
                if cause is not None:
                    line_path, context = cause
                else:
                    line_path, context = path, contexts[0]
                    if len(contexts) > 1:
                        context = context[:-2] + f" (and {len(contexts) - 1} more combination" \
                                                 f"{'s' * (len(contexts) > 2)}): "
                self.add(Problem(self.file, line_of(self.lines, line_path), show_path(path), context + message))

    def unknown_keys(self, table: dict, path: tuple, known) -> None:
        for key in table:
            if key not in known:
                self.report(path + (key,), f"unknown key '{key}'{_suggest(key, known)} "
                                           f"(known keys: {', '.join(known)})")

    def integer(self, table: dict, path: tuple, default, low=None, high=None):
        key = path[-1]
        if key not in table:
            return default
        value = table[key]
        if isinstance(value, bool) or not isinstance(value, int):
            self.report(path, f"expected a whole number, got {_type_name(value)} {_show(value)}")
            return None
        if (low is not None and value < low) or (high is not None and value > high):
            if high is None:
                self.report(path, f"must be at least {low}, got {value}")
            else:
                self.report(path, f"must be {low}..{high}, got {value}")
            return None
        return value

    def string(self, table: dict, path: tuple, default, choices=None):
        key = path[-1]
        if key not in table:
            return default
        value = table[key]
        if not isinstance(value, str):
            expect = f"one of {', '.join(map(_show, choices))}" if choices else "a string"
            self.report(path, f"expected {expect}, got {_type_name(value)} {_show(value)}")
            return None
        if choices is not None and value not in choices:
            self.report(path, f"'{value}' is not one of {', '.join(map(_show, choices))}"
                              f"{_suggest(value, choices)}")
            return None
        return value


# --- the parsed form --------------------------------------------------------------------------

@dataclass(frozen=True)
class PolicyEntry:
    """A policy as the scenario names it: registry spec, parameters and a label for tables."""

    policy: str
    params: dict
    label: str

    def to_dict(self) -> dict:
        return {"policy": self.policy, "params": self.params, "label": self.label}


@dataclass(frozen=True)
class GrantEntry:
    """Card `card` (kept out of the decks) given to `seat` (or seat game % players: "rotate") at
    the start of `epoch`."""

    card: str
    card_index: int
    effect: str | None
    epoch: int
    seat: int | str

    @property
    def name(self) -> str:
        return self.effect or self.card

    def to_dict(self) -> dict:
        return {"card": self.card, "effect": self.effect, "epoch": self.epoch, "seat": self.seat}


@dataclass(frozen=True)
class Setup:
    cards: str | tuple[int, ...]  # "random", "grid" or the initiative of each seat's setup card
    sides: str | tuple[str, ...]  # "policy", "random", "grid" or "A"/"B" for each seat
    focus_seat: int | str         # the seat whose card and side a grid sets; "rotate": game mod players

    def to_dict(self) -> dict:
        return {"cards": self.cards if isinstance(self.cards, str) else list(self.cards),
                "sides": self.sides if isinstance(self.sides, str) else list(self.sides),
                "focus_seat": self.focus_seat}


@dataclass(frozen=True)
class Config:
    """One fully resolved set-up of the games: what a combination plays."""

    players: int
    advanced: bool
    policies: tuple[PolicyEntry, ...]
    assignment: str
    setup: Setup
    colour_order: tuple[int, ...] | None  # deck colour at each board position; None = random
    grants: tuple[GrantEntry, ...]
    overrides: dict = field(default_factory=dict)  # [components] overrides, e.g. {"setup": {"3B": {...}}}
    components: ComponentSet | None = field(default=None, compare=False, repr=False)  # with overrides

    def to_dict(self) -> dict:
        out = {"players": self.players, "game": GAME_KINDS[self.advanced],
               "policies": [p.to_dict() for p in self.policies], "assignment": self.assignment,
               "setup": self.setup.to_dict(),
               "board": {"colour_order": "random" if self.colour_order is None
                         else [COLOURS[c] for c in self.colour_order]},
               "grants": [g.to_dict() for g in self.grants]}
        if self.overrides:
            out["components"] = self.overrides
        return out


@dataclass(frozen=True)
class Combination:
    """One cell of the sweep: a config played on every deal of the run."""

    index: int
    sweep: dict                          # swept key -> value of this cell (grid keys included)
    config: Config
    arrangement: tuple[int, ...] | None  # assignment "permutations": policy index of each seat
    setup_card: int | None               # setup grid: initiative of the focus seat's card
    setup_side: int | None               # setup grid: side of the focus seat (0 = A, 1 = B)
    exclude: tuple[int, ...]             # cards kept out of the decks (every grant of the group)

    @property
    def players(self) -> int:
        return self.config.players

    @property
    def advanced(self) -> bool:
        return self.config.advanced

    def to_dict(self, components: ComponentSet) -> dict:
        return {"index": self.index, "sweep": self.sweep, "players": self.players,
                "game": GAME_KINDS[self.advanced],
                "arrangement": list(self.arrangement) if self.arrangement is not None else None,
                "setup_card": self.setup_card,
                "setup_side": None if self.setup_side is None else SIDE_NAMES[self.setup_side],
                "exclude": [components.card_ids[i] for i in self.exclude],
                "config": self.config.to_dict()}


@dataclass(frozen=True)
class Scenario:
    name: str
    description: str
    path: str | None          # the file it was read from
    text: str                 # the TOML text ("" when built from a dict)
    games: int
    seed: int
    chunk: int
    components: ComponentSet = field(repr=False)
    components_path: str | None
    sweep: dict               # swept key -> list of values, in file order
    combinations: tuple[Combination, ...] = field(repr=False)

    def with_overrides(self, games: int | None = None, seed: int | None = None,
                       chunk: int | None = None) -> "Scenario":
        """The same scenario with a different number of games, seed or chunk size."""
        for name, value in (("games", games), ("seed", seed), ("chunk", chunk)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise ScenarioError([Problem(self.path or "<scenario>", None, name,
                                             f"expected a whole number, got {value!r}")])
            if value is not None and (value < 0 if name == "seed" else value <= 0):
                limit = "at least 0" if name == "seed" else "at least 1"
                raise ScenarioError([Problem(self.path or "<scenario>", None, name,
                                             f"must be {limit}, got {value}")])
        return replace(self, games=self.games if games is None else games,
                       seed=self.seed if seed is None else seed,
                       chunk=self.chunk if chunk is None else chunk)

    @property
    def total_games(self) -> int:
        return self.games * len(self.combinations)

    def to_dict(self) -> dict:
        """The parsed form (JSON values), as stored in a run's metadata."""
        return {"name": self.name, "description": self.description, "path": self.path,
                "games": self.games, "seed": self.seed, "chunk": self.chunk,
                "components": {"path": self.components_path, "digest": self.components.digest},
                "sweep": self.sweep,
                "combinations": [c.to_dict(self.components) for c in self.combinations]}

    def identity(self, package_version: str, schema_version: int) -> dict:
        """What decides the results, but for the number of games: two runs with the same identity
        play the same games (a run of more games extends one of fewer)."""
        return {"schema_version": schema_version, "package_version": package_version,
                "seed": self.seed, "chunk": self.chunk,
                "components_digest": self.components.digest,
                "combinations": [c.to_dict(self.components) for c in self.combinations],
                "policy_settings": self.policy_settings(), "policy_code": self.policy_code()}

    def policy_code(self) -> dict:
        """The digest of each user policy's code (file.py:attr, module:attr): a policy edited
        between an interrupted run and its resume would mix two policies in one dataset."""
        from .registry import policy_code

        specs = {e.policy for c in self.combinations for e in c.config.policies}
        return {spec: digest for spec in sorted(specs) if (digest := policy_code(spec)) is not None}

    def policy_settings(self) -> dict:
        """Every policy's full parameters, defaults included, by label: a change of a built-in's
        defaults changes what a run plays, so a directory of the old play is not resumed."""
        from .registry import make_policy

        settings = {}
        for combo in self.combinations:
            for entry in combo.config.policies:
                if entry.label not in settings:
                    policy = make_policy(entry.policy, **entry.params)
                    settings[entry.label] = json.loads(json.dumps(getattr(policy, "settings", {}), default=str))
        return settings


def identity_digest(identity: dict) -> str:
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:16]


MAX_NAME = 100
PLAIN_NAME = re.compile(r"[^\W][\w.\- ]*", re.UNICODE)


def is_plain_name(name: str) -> bool:
    """A name usable as one directory under results/: no separators, no '..', not hidden."""
    return (isinstance(name, str) and 0 < len(name) <= MAX_NAME and PLAIN_NAME.fullmatch(name) is not None
            and not name.endswith((" ", ".")))


# --- reading ----------------------------------------------------------------------------------

def load_scenario(path: str | Path, components: str | Path | None = None) -> Scenario:
    """Read and validate a scenario file; `components` replaces its component set."""
    path = Path(path)
    if not path.exists():
        raise ScenarioError([Problem(str(path), None, "", "no such scenario file")])
    if not path.is_file():
        raise ScenarioError([Problem(str(path), None, "", "is not a file")])
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ScenarioError([Problem(str(path), None, "", f"cannot be read: {err}")]) from None
    return parse_scenario(text, file=str(path), base_dir=path.parent, default_name=path.stem,
                          components=components)


def parse_scenario(text: str, file: str = "<scenario>", base_dir: str | Path | None = None,
                   default_name: str = "scenario", components: str | Path | None = None) -> Scenario:
    """Validate a scenario given as TOML text; relative paths are taken from `base_dir`.
    `components` (a directory) replaces the scenario's component set."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        line = toml_error_line(err, text)
        raise ScenarioError([Problem(file, line, "", f"not valid TOML: {err}")]) from None
    if components is not None and isinstance(data.get("components"), dict):
        data["components"]["path"] = str(Path(components).resolve())  # the overrides stay
    elif components is not None:
        data["components"] = str(Path(components).resolve())
    return scenario_from_dict(data, file=file, base_dir=base_dir, default_name=default_name,
                              text=text, lines=key_lines(text))


def scenario_from_dict(data: dict, file: str = "<scenario>", base_dir: str | Path | None = None,
                       default_name: str = "scenario", text: str = "",
                       lines: dict | None = None) -> Scenario:
    """Validate a scenario given as plain values (the TOML document's dict)."""
    check = _Check(file, lines or {})
    base_dir = Path(base_dir) if base_dir is not None else Path.cwd()
    if not isinstance(data, dict):
        raise ScenarioError([Problem(file, None, "", f"expected a table of keys, got {_type_name(data)}")])
    check.unknown_keys(data, (), TOP_KEYS)

    name = check.string(data, ("name",), default_name if is_plain_name(default_name) else "scenario")
    if name is not None and not is_plain_name(name):
        check.report(("name",), f"{_show(name)} cannot name the results directory results/<name>: use "
                                f"1..{MAX_NAME} letters, digits, '-', '_', '.' or spaces, not starting with "
                                "'.' or a space (no '/', '..' or absolute paths)")
        name = None
    description = check.string(data, ("description",), "")
    games = check.integer(data, ("games",), DEFAULT_GAMES, low=1)
    seed = check.integer(data, ("seed",), 0, low=0)
    chunk = check.integer(data, ("chunk",), DEFAULT_CHUNK, low=1)
    raw_components = data.get("components")
    if isinstance(raw_components, dict):
        check.unknown_keys(raw_components, ("components",), COMPONENTS_KEYS)
        components_path = check.string(raw_components, ("components", "path"), None)
    else:
        components_path = check.string(data, ("components",), None)
    components = None
    if components_path is not None:
        where = Path(components_path).expanduser()
        if not where.is_absolute():
            where = base_dir / where
        components_path = str(where)
        try:
            components = load_components(where)
        except ComponentError as err:
            shown = "\n  ".join(str(p) for p in err.problems[:10])
            more = f"\n  ... and {len(err.problems) - 10} more" if len(err.problems) > 10 else ""
            check.report(("components",), f"the component set at {where} is not valid:\n  {shown}{more}")
    elif raw_components is None or (isinstance(raw_components, dict) and "path" not in raw_components):
        components = load_components()
    sweep = _read_sweep(data, check)
    if components is None:
        raise ScenarioError(check.problems)

    policy_cache: dict[str, str | None] = {}
    override_cache: dict[str, ComponentSet | list] = {}
    configs: list[tuple[dict, Config]] = []
    if not sweep:  # with a sweep, only the combinations are checked: a swept key's own value is unused
        base = _config(data, check, components, base_dir, policy_cache, override_cache)
        if base is not None:
            configs.append(({}, base))
    else:
        keys = list(sweep)
        check.found, count = [], 0
        for picks in itertools.product(*(range(len(sweep[k][1])) for k in keys)):
            raw = data
            values, failed = {}, False
            check.swept = []
            for key, i in zip(keys, picks):
                path, options = sweep[key]
                check.swept.append((path, ("sweep", key, i), f"with {key} = {_show(options[i])}: "))
                try:
                    raw = _apply(raw, path, options[i])
                except _PathError as err:
                    check.found, check.swept = None, []
                    check.report(("sweep", key), f"'{key}' does not name a place in the scenario: {err}")
                    failed = True
                    break
                values[key] = options[i]
            if failed:
                break
            count += 1
            check.context = "with " + ", ".join(f"{k} = {_show(v)}" for k, v in values.items()) + ": "
            config = _config(raw, check, components, base_dir, policy_cache, override_cache)
            if config is not None:
                configs.append((values, config))
        if check.found is not None:
            check.merge_combinations(check.found, count)
        check.context, check.swept, check.found = "", [], None

    combos = _expand(configs, components)
    _check_decks(combos, components, check, sweep)
    if check.problems:
        raise ScenarioError(check.problems)
    return Scenario(name=name, description=description, path=file, text=text, games=games,
                    seed=seed, chunk=chunk, components=components, components_path=components_path,
                    sweep={k: v[1] for k, v in sweep.items()}, combinations=tuple(combos))


# --- sweeps -----------------------------------------------------------------------------------

class _PathError(Exception):
    pass


def parse_key(key: str) -> tuple:
    """"policies[0].params.coin" or "policies.0.params.coin" -> ("policies", 0, "params", "coin")."""
    key = re.sub(r"\[(\d+)\]", r".\1", key)
    return tuple(int(p) if p.isdigit() else p for p in key.split(".") if p != "")


def _read_sweep(data: dict, check: _Check) -> dict[str, tuple[tuple, list]]:
    raw = data.get("sweep", {})
    if not isinstance(raw, dict):
        check.report(("sweep",), f"expected a table of key = [values], got {_type_name(raw)}")
        return {}
    sweep = {}
    for key, values in raw.items():
        path = parse_key(key)
        if not path or isinstance(path[0], int):
            check.report(("sweep", key), f"'{key}' is not a scenario key")
            continue
        top = path[0]
        if top == "components" and len(path) > 2 and path[1] in OVERRIDABLE:
            path = tuple(map(str, path))  # ids and epochs are table keys: "3" in silver_price.3
        elif top in RUN_KEYS or top == "sweep":
            also = (": sweep single values instead, e.g. \"components.setup.3B.culture\""
                    if top == "components" else "")
            check.report(("sweep", key), f"'{top}' cannot be swept: a run has one {top} "
                                         f"(sweepable: {', '.join(SWEEPABLE)}){also}")
            continue
        if top not in SWEEPABLE and top != "components":
            check.report(("sweep", key), f"unknown key '{top}'{_suggest(top, SWEEPABLE)} "
                                         f"(sweepable: {', '.join(SWEEPABLE)})")
            continue
        if not isinstance(values, list) or not values:
            check.report(("sweep", key), f"expected a non-empty list of values to sweep over, got "
                                         f"{_type_name(values)} {_show(values)}")
            continue
        seen = []
        for i, v in enumerate(values):
            if v in seen:
                check.report(("sweep", key, i), f"value {_show(v)} is listed twice")
            seen.append(v)
        sweep[key] = (path, values)
    return sweep


def _apply(raw: dict, path: tuple, value) -> dict:
    """A copy of `raw` with the value at `path` replaced."""
    data = copy.deepcopy(raw)
    node: Any = data
    for depth, key in enumerate(path):
        last = depth == len(path) - 1
        if isinstance(node, list):
            if not isinstance(key, int):
                raise _PathError(f"{show_path(path[:depth])} is a list: use an index, not '{key}'")
            if key >= len(node):
                raise _PathError(f"{show_path(path[:depth])} has {len(node)} entries, no [{key}]")
        elif isinstance(node, dict):
            if isinstance(key, int):
                raise _PathError(f"{show_path(path[:depth]) or 'the scenario'} is a table, not a list")
        else:
            raise _PathError(f"{show_path(path[:depth])} is {_type_name(node)}, not a table")
        if last:
            node[key] = copy.deepcopy(value)
            return data
        child = node[key] if isinstance(node, list) else node.get(key)
        if child is None:
            child = {}
            node[key] = child
        elif isinstance(child, str) and path[0] in ("policies", "seats") and depth == 1:
            child = {"policy": child}  # "greedy" -> {policy = "greedy"} to set its params
            node[key] = child
        elif isinstance(child, str) and path[0] == "components" and depth == 0:
            child = {"path": child}  # components = "dir" -> {path = "dir"} to override its values
            node[key] = child
        node = child
    return data


# --- one configuration ------------------------------------------------------------------------

def _config(data: dict, check: _Check, components: ComponentSet, base_dir: Path,
            policy_cache: dict, override_cache: dict) -> Config | None:
    before = check.count
    components, overrides = _overrides(data, check, components, override_cache)
    players = check.integer(data, ("players",), DEFAULT_PLAYERS, MIN_PLAYERS, MAX_PLAYERS)
    game = check.string(data, ("game",), "basic", GAME_KINDS)
    advanced = game == "advanced"
    policies, policies_key = _policies(data, check, base_dir, policy_cache)
    default_assignment = "fixed" if "seats" in data else "rotated"
    assignment = check.string(data, ("assignment",), default_assignment, ASSIGNMENTS)
    if players is not None and policies and assignment is not None:
        n = len(policies)
        if assignment == "fixed" and n not in (1, players):
            check.report((policies_key,), f"assignment \"fixed\" needs one policy per seat ({players}) "
                                          f"or a single policy for all seats, got {n}; use assignment = "
                                          "\"rotated\" or \"permutations\" to spread policies over seats")
        if assignment == "permutations" and n < players:
            check.report((policies_key,), f"assignment \"permutations\" needs at least as many policies "
                                          f"as seats ({players}), got {n}; use \"rotated\"")
    if assignment == "fixed" and len({p.label for p in policies}) >= 2 and check.count == before:
        warnings.warn(DesignWarning(
            f"{check.file}: {len({p.label for p in policies})} different policies on fixed seats: "
            "seat advantages (seat 0 wins about 52 % of 2-player games with one policy everywhere) are mixed into "
            "every policy comparison; use assignment = \"rotated\" (or \"permutations\") to compare policies"),
            stacklevel=2)
    setup = _setup(data, check, players, advanced)
    colour_order = _board(data, check)
    grants = _grants(data, check, components, players, advanced)
    if check.count > before or players is None:
        return None
    return Config(players, advanced, tuple(policies), assignment, setup, colour_order, tuple(grants),
                  overrides, components)


def _overrides(data: dict, check: _Check, components: ComponentSet, cache: dict):
    """The component set with the scenario's `[components.*]` overrides applied, and the overrides."""
    raw = data.get("components")
    if not isinstance(raw, dict):
        return components, {}
    overrides = {k: v for k, v in raw.items() if k in OVERRIDABLE}
    if not overrides:
        return components, {}
    key = json.dumps(overrides, sort_keys=True)
    if key not in cache:
        problems = override_problems(components, overrides)
        cache[key] = problems or components.with_overrides(overrides)
    if isinstance(cache[key], list):
        for path, message in cache[key]:
            check.report(("components", *path), message)
        return components, overrides
    return cache[key], overrides


def _policies(data: dict, check: _Check, base_dir: Path, cache: dict):
    if "policies" in data and "seats" in data:
        check.report(("seats",), "give either `policies` or `[[seats]]`, not both")
        return [], "policies"
    key = "seats" if "seats" in data else "policies"
    if key not in data:
        check.report((), "no policies: add `policies = [\"greedy\", ...]` or one `[[seats]]` table "
                         "per seat with `policy = \"...\"`")
        return [], key
    raw = data[key]
    if isinstance(raw, (str, dict)):
        raw = [raw]
    if not isinstance(raw, list) or not raw:
        check.report((key,), f"expected a non-empty list of policies, got {_type_name(raw)} {_show(raw)}")
        return [], key
    entries = []
    for i, item in enumerate(raw):
        path = (key, i)
        if isinstance(item, str):
            item = {"policy": item}
        if not isinstance(item, dict):
            check.report(path, f"expected a policy name or a table with `policy` and `params`, got "
                               f"{_type_name(item)} {_show(item)}")
            continue
        check.unknown_keys(item, path, POLICY_KEYS)
        spec = check.string(item, path + ("policy",), None)
        if spec is None:
            if "policy" not in item:
                check.report(path, "missing key `policy` (the policy's name, e.g. \"greedy\")")
            continue
        params = item.get("params", {})
        if not isinstance(params, dict):
            check.report(path + ("params",), f"expected a table of parameters, got {_type_name(params)}")
            continue
        try:
            json.dumps(params)
        except TypeError:
            check.report(path + ("params",), "parameters must be numbers, strings, booleans, lists or tables")
            continue
        spec = _resolve_spec(spec, base_dir)
        label = check.string(item, path + ("label",), None)
        if label is None:
            label = policy_label(spec, params)
        cache_key = json.dumps([spec, params], sort_keys=True)
        if cache_key not in cache:
            cache[cache_key] = _policy_problem(spec, params)
        if isinstance(cache[cache_key], list):
            for where, message in cache[cache_key]:
                check.report(path + ("params", *where), f"policy '{spec}': {message}")
            continue
        if cache[cache_key] is not None:
            where, message = cache[cache_key]
            check.report(path + ((where,) if where in item else ("policy",)), message)
            continue
        entries.append(PolicyEntry(spec, params, label))
    return entries, key


def _policy_problem(spec: str, params: dict):
    """None when the policy can be made with these parameters; else a list of (key path in
    params, message), or (key of the entry at fault, message)."""
    from .params import check_params
    from .registry import PolicyNotFound, make_policy, resolve_policy

    try:
        declared = getattr(resolve_policy(spec), "params", None)
    except PolicyNotFound as err:
        return ("policy", str(err))
    problems = check_params(declared if isinstance(declared, dict) else {}, params)
    if problems:
        return problems
    try:
        make_policy(spec, seed=0, **params)
    except PolicyNotFound as err:
        return ("policy", str(err))
    except (ValueError, TypeError) as err:
        return ("params", f"policy '{spec}' does not accept these parameters: {err}")
    except (Exception, SystemExit) as err:  # a user's policy may fail in any way
        return ("policy", f"policy '{spec}' cannot be made: {type(err).__name__}: {err}")
    return None


def _resolve_spec(spec: str, base_dir: Path) -> str:
    """A `file.py:attr` spec with a path relative to the scenario's folder made absolute."""
    where, sep, attr = spec.rpartition(":")
    if sep and where.endswith(".py") and not Path(where).is_absolute():
        candidate = base_dir / where
        if candidate.is_file():
            return f"{candidate.resolve()}:{attr}"
    return spec


def _setup(data: dict, check: _Check, players: int | None, advanced: bool) -> Setup | None:
    raw = data.get("setup", {})
    if not isinstance(raw, dict):
        check.report(("setup",), f"expected a table ([setup]), got {_type_name(raw)}")
        return None
    check.unknown_keys(raw, ("setup",), SETUP_KEYS)
    cards = raw.get("cards", "random")
    if isinstance(cards, str):
        if cards not in CARD_MODES:
            check.report(("setup", "cards"), f"'{cards}' is not one of \"random\", \"grid\" or a list of "
                                             f"initiatives (1..5), one per seat{_suggest(cards, CARD_MODES)}")
            cards = None
    elif isinstance(cards, list):
        if players is not None and len(cards) != players:
            check.report(("setup", "cards"), f"expected {players} initiatives (one per seat), got {len(cards)}")
            cards = None
        elif not all(isinstance(c, int) and not isinstance(c, bool) and 1 <= c <= 5 for c in cards):
            check.report(("setup", "cards"), f"initiatives must be whole numbers 1..5, got {_show(cards)}")
            cards = None
        elif len(set(cards)) != len(cards):
            check.report(("setup", "cards"), f"each setup card exists once: {_show(cards)} repeats one")
            cards = None
        else:
            cards = tuple(cards)
    else:
        check.report(("setup", "cards"), f"expected \"random\", \"grid\" or a list of initiatives, got "
                                         f"{_type_name(cards)} {_show(cards)}")
        cards = None
    sides = raw.get("sides", "policy")
    if isinstance(sides, str):
        if sides not in SIDE_MODES:
            check.report(("setup", "sides"), f"'{sides}' is not one of \"policy\", \"random\", \"grid\" or a "
                                             f"list of \"A\"/\"B\", one per seat{_suggest(sides, SIDE_MODES)}")
            sides = None
        elif sides in ("random", "grid") and not advanced:
            check.report(("setup", "sides"), f"sides = \"{sides}\" needs game = \"advanced\": the basic game "
                                             "plays side A only")
            sides = None
    elif isinstance(sides, list):
        if players is not None and len(sides) != players:
            check.report(("setup", "sides"), f"expected {players} sides (one per seat), got {len(sides)}")
            sides = None
        elif not all(s in SIDE_NAMES for s in sides):
            check.report(("setup", "sides"), f"sides must be \"A\" or \"B\", got {_show(sides)}")
            sides = None
        elif not advanced and "B" in sides:
            check.report(("setup", "sides"), "side B needs game = \"advanced\": the basic game plays side A only")
            sides = None
        else:
            sides = tuple(sides)
    else:
        check.report(("setup", "sides"), f"expected \"policy\", \"random\", \"grid\" or a list of sides, got "
                                         f"{_type_name(sides)} {_show(sides)}")
        sides = None
    focus = raw.get("focus_seat", "rotate")
    if focus != "rotate":
        focus = check.integer(raw, ("setup", "focus_seat"), 0, 0, (players or MAX_PLAYERS) - 1)
    if cards is None or sides is None or focus is None:
        return None
    return Setup(cards, sides, focus)


def _board(data: dict, check: _Check) -> tuple[int, ...] | None:
    raw = data.get("board", {})
    if not isinstance(raw, dict):
        check.report(("board",), f"expected a table ([board]), got {_type_name(raw)}")
        return None
    check.unknown_keys(raw, ("board",), BOARD_KEYS)
    order = raw.get("colour_order", "random")
    if order == "random":
        return None
    if (not isinstance(order, list) or sorted(map(str, order)) != sorted(COLOURS)):
        check.report(("board", "colour_order"), f"expected \"random\" or the 5 colours in board order "
                                                f"({', '.join(map(_show, COLOURS))}), got {_show(order)}")
        return None
    return tuple(COLOURS.index(c) for c in order)


def _grants(data: dict, check: _Check, c: ComponentSet, players: int | None, advanced: bool):
    raw = data.get("grants", [])
    if raw == "none":
        raw = []
    elif isinstance(raw, (str, dict)):
        raw = [raw]
    if not isinstance(raw, list):
        check.report(("grants",), f"expected a list of grants, got {_type_name(raw)} {_show(raw)}")
        return []
    names = [*c.card_ids, *EFFECT_IDS]
    grants, seen = [], {}
    for i, item in enumerate(raw):
        path = ("grants", i)
        if isinstance(item, str):
            item = {"card": item}
        if not isinstance(item, dict):
            check.report(path, f"expected a card id, an effect id or a table with `card`, got "
                               f"{_type_name(item)} {_show(item)}")
            continue
        check.unknown_keys(item, path, GRANT_KEYS)
        name = check.string(item, path + ("card",), None)
        if name is None:
            if "card" not in item:
                check.report(path, "missing key `card` (a card id like \"II-P-03\" or an effect id like "
                                   "\"sell_bonus\")")
            continue
        if name in c.card_index:
            index = c.card_index[name]
        elif name in c.effect_card:
            index = c.effect_card[name]
        else:
            check.report(path + ("card",), f"no card or effect '{name}' in the component set{_suggest(name, names)}")
            continue
        card = c.cards[index]
        if card.starred and not advanced:
            check.report(path + ("card",), f"{card.id} ({card.effect or 'starred'}) is an advanced-game card; "
                                           "the basic game has no starred cards (set game = \"advanced\")")
            continue
        epoch = check.integer(item, path + ("epoch",), card.epoch, 1, len(EPOCHS))
        seat = item.get("seat", "rotate")
        if seat != "rotate":
            seat = check.integer(item, path + ("seat",), 0, 0, (players or MAX_PLAYERS) - 1)
        if epoch is None or seat is None:
            continue
        if index in seen:
            check.report(path + ("card",), f"{card.id} is granted twice (also grants[{seen[index]}]); "
                                           "each card exists once")
            continue
        seen[index] = i
        grants.append(GrantEntry(card.id, index, card.effect, epoch, seat))
    return grants


# --- combinations -----------------------------------------------------------------------------

def _expand(configs: list[tuple[dict, Config]], c: ComponentSet) -> list[Combination]:
    """Every (swept values, setup grid cell, seat arrangement) in order, with the cards to keep out
    of the decks: the cards the combination grants. The deal skips a kept-out card and leaves the
    others in their order (`deal.make_deals`), so combinations of a group play the same deals but
    for the granted card."""
    combos = []
    for values, config in configs:
        setup = config.setup
        cards = range(1, 6) if setup.cards == "grid" else [None]
        sides = range(2) if setup.sides == "grid" else [None]
        if config.assignment == "permutations":
            arrangements = list(itertools.permutations(range(len(config.policies)), config.players))
        else:
            arrangements = [None]
        exclude = tuple(sorted(g.card_index for g in config.grants))
        for card, side, arrangement in itertools.product(cards, sides, arrangements):
            sweep = dict(values)
            if card is not None:
                sweep["setup.card"] = card
            if side is not None:
                sweep["setup.side"] = SIDE_NAMES[side]
            if card is not None or side is not None:
                sweep["setup.focus_seat"] = setup.focus_seat
            combos.append(Combination(len(combos), sweep, config, arrangement, card, side, exclude))
    return combos


def _check_decks(combos: list[Combination], c: ComponentSet, check: _Check, sweep: dict):
    """Every grant must leave each deck enough cards: 2 per player."""
    where = ("sweep", "grants") if "grants" in sweep else ("grants",)
    done = set()
    for combo in combos:
        key = (combo.players, combo.advanced, combo.exclude)
        if key in done or not combo.exclude:
            continue
        done.add(key)
        need = 2 * combo.players
        for epoch in EPOCHS:
            for colour, colour_name in enumerate(COLOURS):
                pool = c.cards_of(epoch, colour, combo.advanced)
                out = [i for i in combo.exclude if i in set(pool.tolist())]
                if out and len(pool) - len(out) < need:
                    kind = GAME_KINDS[combo.advanced]
                    shown = ", ".join(f"{c.card_ids[i]}" + (f" ({c.cards[i].effect})" if c.cards[i].effect else "")
                                      for i in out)
                    what = "purple" if colour == PURPLE else colour_name
                    also = ""
                    check.report(where, f"impossible grant at {combo.players} players, {kind} game: the epoch "
                                        f"{epoch} {what} deck needs {need} cards ({combo.players} players x 2) "
                                        f"but only {len(pool) - len(out)} of its {len(pool)} remain once "
                                        f"{shown} {'is' if len(out) == 1 else 'are'} kept out for granting{also}")

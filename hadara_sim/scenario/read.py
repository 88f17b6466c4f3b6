"""Reading a scenario: a TOML file, TOML text or plain values into a checked `Scenario`.

`load_scenario(path)` reads a file, `parse_scenario(text)` TOML text and `scenario_from_dict(data)`
the document's values. Each checks the run's own keys (name, games, seed, chunk, the component set)
and reads the configuration (`config.py`) once, or once per combination of a sweep (`sweep.py`),
and either returns a `Scenario` whose combinations are fully resolved or raises `ScenarioError`
with every problem found, each with its file, line and key.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import Sequence

from ..component_files import load_components
from ..components import ComponentError, ComponentSet
from ..constants import MAX_COMBINATIONS, MAX_GAMES, MAX_SEED
from ..problems import (TOO_DEEP, NotText, Problem, as_path, backslash_hint, not_a_file, read_text,
                        toml_error_line)
from ..tomlpos import key_lines
from ..swept_key import SweptKey
from .checks import Check, ScenarioError, control_character, show_path, show_value, suggest, type_name
from .config import read_config
from .model import COMPONENTS_KEYS, DEFAULT_CHUNK, DEFAULT_GAMES, TOP_KEYS, Config, Scenario
from .sweep import PathError, check_decks, expand, read_sweep, set_value, swept_configs

MAX_NAME = 100
PLAIN_NAME = re.compile(r"[^\W][\w.\- ]*", re.UNICODE)


def is_plain_name(name: str) -> bool:
    """A name usable as one directory under results/: no separators, no '..', not hidden."""
    return (isinstance(name, str) and 0 < len(name) <= MAX_NAME and PLAIN_NAME.fullmatch(name) is not None
            and not name.endswith((" ", ".")))


def shipped_scenarios() -> dict[str, Path]:
    """The scenarios that come with hadara-sim (the project's scenarios/ folder, installed with the
    package), by name."""
    folder = Path(str(resources.files("hadara_sim") / "data" / "scenarios")).resolve()  # the link, followed
    return {file.stem: file for file in sorted(folder.glob("*.toml"))}


def shipped_scenario(path: str | Path) -> Path | None:
    """The shipped scenario a path names that is no file here: `default`, `default.toml` or
    `scenarios/default.toml` from any folder (a notebook's, a results folder's), else None."""
    path = Path(path)
    if path.exists() or path.is_absolute() or path.parts[:-1] not in ((), ("scenarios",)) \
            or path.suffix not in ("", ".toml"):
        return None
    return shipped_scenarios().get(path.stem)


def load_scenario(path: str | Path, components: str | Path | None = None, settings: Sequence[str] = ()) -> Scenario:
    """Read and validate a scenario file, or a shipped scenario by name (`shipped_scenario`);
    `components` replaces its component set, and each `settings` entry KEY=VALUE (`apply_settings`)
    one of its values."""
    if isinstance(path, dict):
        raise TypeError("load_scenario reads a file or a shipped scenario's name; scenario_from_dict(data) reads a "
                        "dict (simulate takes either)")
    given = as_path(path, "the scenario")
    try:
        given.exists()
    except OSError as err:  # a name too long for the file system: pathlib's checks below raise it
        raise ScenarioError([Problem(str(given), None, "", f"cannot be looked up: {err.strerror or err}")]) from None
    path = shipped_scenario(given) or given
    if not path.exists() and _toml_text(str(path)):  # was named as a file "players = 2\npolicies = [...]"
        raise ScenarioError([Problem("<string>", None, "", "load_scenario reads a file or a shipped scenario's name, "
                                     "and this is TOML text: parse_scenario(text) from hadara_sim.scenario.read "
                                     "reads text (simulate takes either)")])
    if not path.exists():
        names = list(shipped_scenarios())
        raise ScenarioError([Problem(str(path), None, "", f"no such scenario file{suggest(path.stem, names)} "
                                     f"(the shipped scenarios, by name from any folder: {', '.join(names)})")])
    if path.is_dir():  # `simulate scenarios` or `simulate results/default`: said only "is not a file"
        inside = sorted(p.name for p in path.glob("*.toml"))
        fix = (f"give one of its .toml files, e.g. {path / inside[0]}" if inside else
               "give a scenario file (.toml), or a shipped scenario by its name, e.g. default")
        raise ScenarioError([Problem(str(path), None, "", f"is a folder, not a scenario file: {fix}")])
    kind = not_a_file(path)
    if kind:
        raise ScenarioError([Problem(str(path), None, "", f"is {kind}, not a scenario file")])
    try:
        text = read_text(path)
    except NotText as err:
        raise ScenarioError([Problem(str(path), err.line, "", str(err))]) from None
    except OSError as err:
        raise ScenarioError([Problem(str(path), None, "", f"cannot be read: {err}")]) from None
    return parse_scenario(text, file=str(path), base_dir=path.parent, default_name=path.stem,
                          components=components, settings=settings)


def _toml_text(name: str) -> bool:
    """Whether a name given as a file is TOML text: several lines, or one that reads as TOML keys
    ("players = 2"; a file of that name would have been found)."""
    if "\n" in name:
        return True
    try:
        return "=" in name and bool(tomllib.loads(name))
    except (tomllib.TOMLDecodeError, RecursionError):
        return False


def setting_list(settings) -> list[str]:
    """`settings` as a list of KEY=VALUE texts: one text is one setting, not its letters."""
    settings = [settings] if isinstance(settings, str) else [] if settings is None else \
        list(settings) if isinstance(settings, (list, tuple)) else [settings]
    if not all(isinstance(s, str) for s in settings):
        raise TypeError(f"settings are KEY=VALUE texts, such as [\"players=3\"]; got {settings!r:.80}")
    return settings


def parse_scenario(text: str, file: str = "<scenario>", base_dir: str | Path | None = None,
                   default_name: str = "scenario", components: str | Path | None = None,
                   settings: Sequence[str] = ()) -> Scenario:
    """Validate a scenario given as TOML text; relative paths are taken from `base_dir`.
    `components` (a directory) replaces the scenario's component set; `settings` (KEY=VALUE each)
    replace or add values, checked as if the file held them, a problem with one named by it."""
    settings = setting_list(settings)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        line = toml_error_line(err, text)
        raise ScenarioError([Problem(file, line, "", f"not valid TOML: {err}{backslash_hint(text, line)}")]) from None
    except RecursionError:
        raise ScenarioError([Problem(file, None, "", TOO_DEEP)]) from None
    changed = apply_settings(data, settings)
    if components is not None:
        components = as_path(components, "components (the component set's folder)")
    if components is not None and isinstance(data.get("components"), dict):
        data["components"]["path"] = str(Path(components).resolve())  # the overrides stay
    elif components is not None:
        data["components"] = str(Path(components).resolve())
    lines = {key: line for key, line in key_lines(text).items()
             if not any(key[:len(path)] == path for path in changed)}  # a value set here has no line there
    try:
        scenario = scenario_from_dict(data, file=file, base_dir=base_dir, default_name=default_name,
                                      text=text, lines=lines)
    except ScenarioError as err:
        raise ScenarioError([_at_setting(problem, changed) for problem in err.problems]) from None
    return replace(scenario, settings=tuple(settings)) if settings else scenario


def apply_settings(data: dict, settings: Sequence[str]) -> dict[tuple, str]:
    """Set each KEY=VALUE of `settings` in the document `data`: KEY a scenario key as a sweep names it
    (players, components.board.sell_price, policies[0].params.coin or policies.0.params.coin), VALUE a
    TOML value (3, "x", [1, 2], {a = 1}) or else the text itself. Returns each key path with the
    setting that made it; ScenarioError for a setting that is not KEY=VALUE, whose path runs through a
    value that is not a table or list, or that sets the place another setting or the sweep sets."""
    changed: dict[tuple, str] = {}
    for setting in settings:
        key, eq, value = setting.partition("=")
        where = f"--set {setting}"
        parts = [part.strip() for part in key.split(".")]
        if not eq or not all(parts):
            raise ScenarioError([Problem(where, None, "", "expected KEY=VALUE, e.g. --set players=3 or "
                                                           "--set components.board.sell_price=[3,4,5]")])
        path = SweptKey(".".join(parts)).path
        if not path or isinstance(path[0], int):
            raise ScenarioError([Problem(where, None, "", f"'{key.strip()}' is not a scenario key")])
        if path in changed:  # the later one won, in a folder named after both
            raise ScenarioError([Problem(where, None, show_path(path), f"{changed[path]!r} sets the same place: "
                                                                       "keep one of them")])
        try:
            set_value(data, path, parsed_value(setting))
        except PathError as err:
            raise ScenarioError([Problem(where, None, show_path(path), str(err))]) from None
        changed[path] = setting
    swept = data.get("sweep") if isinstance(data.get("sweep"), dict) else {}
    swept_paths = {SweptKey(text).path: text for text in swept}
    for path, setting in changed.items():
        if path[0] != "sweep" and path in swept_paths:
            key = swept_paths[path]
            raise ScenarioError([Problem(f"--set {setting}", None, key, (
                f"this scenario sweeps {key} over {show_value(swept[key])}, and the sweep sets it in every "
                f"combination: change the sweep instead"
                + (f" (--set 'sweep.{key}=[{show_value(parsed_value(setting))}]')" if len(path) == 1 else "")))])
    return changed


def parsed_value(setting: str):
    """The value of a KEY=VALUE setting as `apply_settings` reads it: TOML, or else the text."""
    value = setting.partition("=")[2].strip()
    try:
        return tomllib.loads(f"value = {value}")["value"]
    except (tomllib.TOMLDecodeError, RecursionError):
        return value  # a bare word: the text (--set game=advanced)


def _at_setting(problem: Problem, changed: dict[tuple, str]) -> Problem:
    """A problem with a value a setting gave, placed at that setting (`--set KEY=VALUE: key: ...`)."""
    for path, setting in changed.items():
        key = show_path(path)
        if problem.field == key or problem.field.startswith((key + ".", key + "[")) or key.startswith(
                (problem.field + ".", problem.field + "[")):
            return Problem(f"--set {setting}", None, problem.field, problem.message)
    return problem


def scenario_from_dict(data: dict, file: str = "<scenario>", base_dir: str | Path | None = None,
                       default_name: str = "scenario", text: str = "",
                       lines: dict | None = None) -> Scenario:
    """Validate a scenario given as plain values (the TOML document's dict)."""
    check = Check(file, lines or {})
    base_dir = Path(base_dir) if base_dir is not None else Path.cwd()
    if not isinstance(data, dict):
        raise ScenarioError([Problem(file, None, "", f"expected a table of keys, got {type_name(data)}")])
    check.unknown_keys(data, (), TOP_KEYS)

    name = check.string(data, ("name",), default_name if is_plain_name(default_name) else "scenario")
    if name is not None and not is_plain_name(name):
        check.report(("name",), f"{show_value(name)} cannot name the results directory results/<name>: use "
                                f"1..{MAX_NAME} letters, digits, '-', '_', '.' or spaces, not starting with "
                                "'.' or a space (no '/', '..' or absolute paths)")
        name = None
    description = check.string(data, ("description",), "")
    odd = control_character(description or "", allowed="\r\n\t")
    if odd:  # lines and tabs are a description's own (a Windows file's lines end in \r\n); a NUL is no text
        check.report(("description",), f"holds {odd}: give the description as text (lines and tabs are fine)")
        description = None
    games = check.integer(data, ("games",), DEFAULT_GAMES, low=1, high=MAX_GAMES)
    seed = check.integer(data, ("seed",), 0, low=0, high=MAX_SEED)  # as --seed: a bigger one compiled the engine anew
    chunk = check.integer(data, ("chunk",), DEFAULT_CHUNK, low=1)
    raw_components = data.get("components")
    if isinstance(raw_components, dict):
        check.unknown_keys(raw_components, ("components",), COMPONENTS_KEYS)
        components_path = check.string(raw_components, ("components", "path"), None)
    elif raw_components is not None and not isinstance(raw_components, str):  # "expected a string" hid the table
        check.report(("components",), f"expected a component set's folder (a string) or a [components] table of "
                                      f"path and overrides, got {type_name(raw_components)} {show_value(raw_components)}")
        components_path = None
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
    sweep = read_sweep(data, check)
    if components is None:
        raise ScenarioError(check.problems)

    policy_cache: dict[str, str | None] = {}
    override_cache: dict[str, ComponentSet | list] = {}

    def config_of(raw: dict) -> Config | None:
        """The configuration of one document (the scenario's, or a combination's of its sweep)."""
        return read_config(raw, check, components, base_dir, policy_cache, override_cache)

    configs = swept_configs(data, sweep, check, config_of)
    combos = expand(configs)
    if len(combos) > MAX_COMBINATIONS:
        check.report(("sweep",) if sweep else ("setup",),
                     f"{len(combos):,} combinations with the setup grid and the seat permutations; a run takes at most "
                     f"{MAX_COMBINATIONS:,}: sweep fewer values, or split the sweep into runs")
        raise ScenarioError(check.problems)
    check_decks(combos, components, check, sweep)
    if check.problems:
        raise ScenarioError(check.problems)
    return Scenario(name=name, description=description, path=file, text=text, games=games,
                    seed=seed, chunk=chunk, components=components, components_path=components_path,
                    sweep={k.text: v for k, v in sweep.items()}, combinations=tuple(combos))

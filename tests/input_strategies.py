"""Hypothesis strategies for malformed (and sometimes valid) user inputs: scenario files and
component sets, and the check every one of them must pass through the command line.

Used by tests/test_fuzz_inputs.py (a few examples, in CI) and scripts/fuzz_inputs.py (a campaign).
"""

from __future__ import annotations

import json
import math
import os
import shutil
from datetime import date, time, timezone
from pathlib import Path

from hypothesis import strategies as st
from typer.testing import CliRunner

from hadara_sim.cli import app
from hadara_sim.component_files import default_components_path

# Text rich would read as markup: printed anywhere as markup, the first hides, the second fails.
MARKUP = ["x [v2]", "[/old]"]
CARD_IDS = ["I-Y-01", "II-P-03", "III-P-01", "I-P-01", "IV-Z-09"]
EFFECTS = ["sell_bonus", "set_collector", "colony_bounty", "double_actions", "no_such_effect"]
POLICIES = ["greedy", "random", "military", "balanced", "sets", "nobody", "math:pi", "os:getcwd",
            "missing.py:X", ""]
GREEDY_PARAMS = ["income", "military", "culture", "food", "coin", "points", "colours", "focus", "gold_plan",
                 "silver_min"]
NAMES = ["ok", "../../escaped", "/abs/olute", "", ".", "..", "a" * 300, "a/b", ".hidden", "con", "x\ny",
         "naïve run", " lead", "trail ", "a\\b", "~", "$HOME", *MARKUP]

# TOML's own kinds of value beyond JSON's: a date, a time, a date and time (with or without its zone)
toml_times = st.one_of(st.dates(), st.times(), st.datetimes(),
                       st.datetimes(timezones=st.just(timezone.utc)))


def _junk(*more):
    """Values of every kind, nested: JSON's, and `more`."""
    return st.recursive(
        st.one_of(st.none(), st.booleans(), st.integers(-10**20, 10**20), st.integers(-3, 8),
                  st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=12), st.sampled_from(NAMES), *more),
        lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=3)),
        max_leaves=8)


junk = _junk(toml_times)  # what a TOML file or --set can hold
json_junk = _junk()  # what a JSON file can hold (metadata.json, a side-trial cache file)
number = st.one_of(st.floats(-5, 5), st.integers(-3, 12), st.floats(allow_nan=True, allow_infinity=True),
                   st.floats(-1e300, 1e300), junk)
params = st.dictionaries(st.sampled_from(GREEDY_PARAMS + ["nonsense"]),
                         st.one_of(number, st.lists(number, min_size=0, max_size=6)), max_size=3)
policy = st.one_of(st.sampled_from(POLICIES),
                   st.fixed_dictionaries({"policy": st.sampled_from(POLICIES)},
                                         optional={"params": st.one_of(params, junk),
                                                   "label": st.one_of(st.text(max_size=8), st.sampled_from(MARKUP), junk)}),
                   junk)
grant = st.one_of(st.sampled_from(CARD_IDS + EFFECTS + ["none"]),
                  st.fixed_dictionaries({"card": st.sampled_from(CARD_IDS + EFFECTS)},
                                        optional={"epoch": st.one_of(st.integers(0, 4), junk),
                                                  "seat": st.one_of(st.integers(-1, 5), st.just("rotate"), junk)}),
                  junk)
# [components.*] overrides of one value, a whole card or a table where a value belongs
override_value = st.one_of(toml_times, junk)
component_overrides = st.fixed_dictionaries({}, optional={
    "setup": st.one_of(st.fixed_dictionaries({"3B": st.fixed_dictionaries({"culture": override_value})}), junk),
    "board": st.one_of(st.fixed_dictionaries({"sell_price": st.one_of(st.lists(override_value, max_size=4),
                                                                       override_value)}), junk),
    "cards": st.one_of(st.dictionaries(st.sampled_from(CARD_IDS), st.one_of(
        st.fixed_dictionaries({"cost": override_value}), junk), max_size=2), junk)})
SWEEP_KEYS = ["players", "game", "policies", "policies[0].params.coin", "policies[1]", "policies.0.params.colours",
              "seats[0].policy", "assignment", "setup.cards", "setup.sides", "board.colour_order", "grants",
              "grants[0].epoch", "seed", "nowhere", "policies[9].params.x", "[", ""]
VALUES = {
    "name": st.one_of(st.sampled_from(NAMES), junk),
    "description": st.one_of(st.text(max_size=20), junk),
    "players": st.one_of(st.integers(1, 6), junk),
    "game": st.one_of(st.sampled_from(["basic", "advanced", "expert"]), junk),
    "policies": st.one_of(st.lists(policy, min_size=0, max_size=5), policy),
    "seats": st.lists(st.one_of(policy, junk), max_size=5),
    "assignment": st.one_of(st.sampled_from(["fixed", "rotated", "permutations", "random"]), junk),
    "setup": st.one_of(st.fixed_dictionaries({}, optional={
        "cards": st.one_of(st.sampled_from(["random", "grid"]), st.lists(st.integers(0, 6), max_size=6), junk),
        "sides": st.one_of(st.sampled_from(["policy", "random", "grid"]),
                           st.lists(st.sampled_from(["A", "B", "C"]), max_size=6), junk),
        "focus_seat": st.one_of(st.integers(-1, 5), junk)}), junk),
    "board": st.one_of(st.fixed_dictionaries({}, optional={"colour_order": st.one_of(
        st.just("random"), st.permutations(["yellow", "red", "blue", "green", "purple"]),
        st.lists(st.sampled_from(["yellow", "red", "blue", "green", "purple", "pink"]), max_size=6), junk)}), junk),
    "grants": st.one_of(st.lists(grant, max_size=3), grant),
    "games": st.one_of(st.integers(1, 6), junk),
    "seed": st.one_of(st.integers(0, 5), st.integers(-5, -1), junk),
    "chunk": st.one_of(st.integers(1, 4), junk),
    "sweep": st.one_of(st.dictionaries(st.sampled_from(SWEEP_KEYS),
                                       st.one_of(st.lists(junk, min_size=0, max_size=3),
                                                 st.lists(st.sampled_from([2, 3, "greedy", "random", "advanced"]),
                                                          max_size=3), junk), max_size=2), junk),
    "components": st.one_of(st.sampled_from(["../nowhere", "", "/proc/self"]), component_overrides),
    "unknown_key": junk,
}


@st.composite
def scenario_dicts(draw) -> dict:
    """A scenario's values: a valid core most of the time, then keys changed or added at random."""
    data = {"players": 2, "policies": ["greedy", "random"], "games": 2, "chunk": 2}
    keys = draw(st.lists(st.sampled_from(sorted(VALUES)), max_size=4, unique=True))
    for key in keys:
        data[key] = draw(VALUES[key])
    for key in draw(st.lists(st.sampled_from(["players", "policies", "games", "chunk"]), max_size=1)):
        data.pop(key, None)
    return data


def toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, (date, time)):
        return value.isoformat()
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # TOML takes JSON's escapes but for surrogate pairs
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value if v is not None) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {toml_value(v)}" for k, v in value.items()
                               if v is not None) + "}"
    return '"?"'


def toml_text(data: dict, garbage: str = "") -> str:
    """A scenario dict as TOML (inline tables; None values left out), with a garbage line."""
    lines = [f"{json.dumps(k)} = {toml_value(v)}" for k, v in data.items() if v is not None]
    if garbage:
        lines.insert(len(lines) // 2, garbage)
    return "\n".join(lines) + "\n"


garbage_lines = st.one_of(st.just(""), st.just(""), st.just("[table"), st.just("x = "), st.just("= 1"),
                          st.just("\ufeffplayers = 2"), st.text(max_size=15))

# --- component sets ---------------------------------------------------------------------------

CSV_FILES = ["cards.csv", "colonies.csv", "setup_cards.csv"]
cell_values = st.one_of(st.sampled_from(["", "-1", "0", "99999", "1.5", "true", "x", "yellow", "I-Y-01", '"',
                                         "1,2", "\ufeff", "nan", "sell_bonus", " 3 ", *MARKUP]), st.text(max_size=6))
board_values = st.one_of(st.integers(-3, 80), st.booleans(), st.floats(allow_nan=True),
                         st.lists(st.integers(-1, 70), max_size=5), st.text(max_size=5))
BOARD_KEYS = [("sell", "coins"), ("medals", "silver"), ("medals", "gold"), ("bonus_tiles", "per_colour"),
              ("sell", None), ("medals", None), ("statues", None)]


@st.composite
def component_edits(draw) -> list[tuple]:
    """Edits to the default component set: a cell, a whole line, a column, a byte order mark,
    a board value, a file removed."""
    kinds = st.one_of(
        st.tuples(st.just("cell"), st.sampled_from(CSV_FILES), st.integers(0, 80), st.integers(0, 13), cell_values),
        st.tuples(st.just("drop_line"), st.sampled_from(CSV_FILES), st.integers(0, 80)),
        st.tuples(st.just("dup_line"), st.sampled_from(CSV_FILES), st.integers(1, 80)),
        st.tuples(st.just("dup_column"), st.sampled_from(CSV_FILES), st.integers(0, 11)),
        st.tuples(st.just("bom"), st.sampled_from(CSV_FILES + ["board.toml"])),
        st.tuples(st.just("board"), st.sampled_from(BOARD_KEYS), board_values),
        st.tuples(st.just("remove"), st.sampled_from(CSV_FILES + ["board.toml"])),
        st.tuples(st.just("bytes"), st.sampled_from(CSV_FILES + ["board.toml"]), st.binary(max_size=8)),
    )
    return draw(st.lists(kinds, min_size=1, max_size=3))


def apply_edits(directory: Path, edits: list[tuple]) -> None:
    """Write the default component set into `directory`, then apply `edits`."""
    shutil.copytree(default_components_path(), directory)
    import tomllib

    for edit in edits:
        kind, file = edit[0], edit[1]
        if kind == "board":
            (section, key), value = edit[1], edit[2]
            path = directory / "board.toml"
            if not path.exists():
                continue
            try:
                data = tomllib.loads(path.read_text(encoding="utf-8-sig"))
            except (ValueError, UnicodeDecodeError):  # an earlier edit broke it already
                continue
            if key is None:
                data[section] = value
            elif isinstance(data.get(section), dict):
                data[section][key] = value
            path.write_text(_board_toml(data))
            continue
        path = directory / file
        if not path.exists():
            continue
        if kind == "remove":
            path.unlink()
        elif kind == "bom":
            path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
        elif kind == "bytes":
            data = path.read_bytes()
            path.write_bytes(data[: len(data) // 2] + edit[2] + data[len(data) // 2:])
        else:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
            if kind == "cell":
                row = edit[2] % len(lines)
                cells = lines[row].split(",")
                cells[edit[3] % len(cells)] = edit[4]
                lines[row] = ",".join(cells)
            elif kind == "drop_line":
                del lines[edit[2] % len(lines)]
            elif kind == "dup_line":
                lines.append(lines[edit[2] % len(lines)])
            elif kind == "dup_column":
                col = edit[2]
                lines = [line + "," + (line.split(",") + [""] * 12)[col] for line in lines]
            path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _board_toml(data: dict) -> str:
    out = []
    for key, value in data.items():
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            for item in value:
                out.append(f"[[{key}]]")
                out += [f"{k} = {toml_value(v)}" for k, v in item.items()]
        elif isinstance(value, dict):
            out.append(f"[{key}]")
            out += [f"{k} = {toml_value(v)}" for k, v in value.items()]
        else:
            out.insert(0, f"{key} = {toml_value(value)}")
    return "\n".join(out) + "\n"


# --- the property -----------------------------------------------------------------------------

def tree(root: Path) -> dict[str, bytes | None]:
    """Every file under `root` with its content (None for directories)."""
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None) for p in root.rglob("*")}


def invoke_in(folder: Path, args: list[str]):
    """The app invoked with `folder` as the working directory."""
    import os

    cwd = os.getcwd()
    os.chdir(folder)
    try:
        return CliRunner().invoke(app, args)
    finally:
        os.chdir(cwd)


def raised(result, output: str) -> tuple[str, str] | None:
    """The verdict when the command raised instead of exiting, with its traceback."""
    if result.exception is None or isinstance(result.exception, SystemExit):
        return None
    import traceback

    return f"traceback: {type(result.exception).__name__}", output + "".join(
        traceback.format_exception(result.exception))


def check_simulate(root: Path, scenario_text: str, components: Path | None = None) -> tuple[str, str]:
    """Run `hadara-sim simulate` on the input, from root/a/b/work without --out (so the results go
    to results/<name>), and check the property: exit 0 or 2, no traceback, a message with every
    failure, nothing written but under work/results/. Returns (verdict, output); verdict is
    "ok (exit 0)", "ok (exit 2)" or says what misbehaved."""
    work = root / "a" / "b" / "work"
    work.mkdir(parents=True, exist_ok=True)
    scenario = work / "scenario.toml"
    scenario.write_bytes(scenario_text.encode("utf-8", errors="surrogatepass"))
    before = tree(root)
    args = ["simulate", str(scenario), "--quiet", "--jobs", "1", "--games", "2"]
    if components is not None:
        args += ["--components", str(components)]
    result = invoke_in(work, args)
    after = tree(root)
    output = result.output
    if raised(result, output):
        return raised(result, output)
    if "Traceback" in output:
        return "traceback in output", output
    if result.exit_code not in (0, 2):
        return f"exit {result.exit_code}", output
    changed = sorted(k for k in set(after) | set(before) if before.get(k, 0) != after.get(k, 0))
    outside = [k for k in changed if k != "a/b/work/results" and not k.startswith("a/b/work/results/")]
    if outside or Path("/abs/olute").exists():
        return f"wrote outside results/<name>: {outside[:3]}", output
    if result.exit_code == 2 and not output.strip():
        return "exit 2 without a message", output
    if result.exit_code == 0 and len({k.split("/")[4] for k in changed if k.count("/") >= 4}) != 1:
        return f"exit 0 but not one results directory: {changed[:3]}", output
    return f"ok (exit {result.exit_code})", output


def check_component_set(root: Path, edits: list[tuple]) -> tuple[str, str]:
    """check_simulate with a small valid scenario on the default component set after `edits`."""
    apply_edits(root / "components", edits)
    return check_simulate(root, 'players = 2\npolicies = ["greedy", "random"]\n', root / "components")


# --- results directories ----------------------------------------------------------------------

META_KEYS = ["schema_version", "identity", "games", "chunk_size", "seed", "combinations", "chunks_per_combination",
             "scenario", "sessions", "identity_fields", "status", "chunks"]
PARTS = ["part-c0000-k00000.parquet", "part-c0000-k00001.parquet"]


@st.composite
def results_edits(draw) -> list[tuple]:
    """Edits to a finished two-chunk run: metadata keys changed or removed, parts truncated,
    swapped, renamed or copied in from another run, stray files."""
    kinds = st.one_of(
        st.tuples(st.just("meta_set"), st.sampled_from(META_KEYS), json_junk),
        st.tuples(st.just("meta_del"), st.sampled_from(META_KEYS)),
        st.tuples(st.just("combo_set"), st.sampled_from(["index", "sweep"]), json_junk),
        st.tuples(st.just("meta_text"), st.sampled_from(["", "{", "[]", "null", '{"schema_version": 1}', "\ufeff{}"])),
        st.tuples(st.just("truncate"), st.sampled_from(PARTS), st.floats(0, 1)),
        st.tuples(st.just("swap"),),
        st.tuples(st.just("rename"), st.sampled_from(PARTS), st.sampled_from(
            ["part-c0001-k00000.parquet", "part-c0000-k00002.parquet", "part-c0000-k99999.parquet",
             "part-x.parquet", ".part-c0000-k00000.parquet.1.tmp"])),
        st.tuples(st.just("foreign"), st.sampled_from(PARTS)),
        st.tuples(st.just("stray"), st.sampled_from(["notes.txt", "part-c0000-k00003.parquet", ".lock"]),
                  st.binary(max_size=20)),
        # no file in a file's place: a pipe in a part's was read, waiting for ever
        st.tuples(st.just("special"), st.sampled_from([*PARTS, "metadata.json"]),
                  st.sampled_from(["fifo", "folder", "dev_zero", "loop"])),
    )
    return draw(st.lists(kinds, min_size=1, max_size=3))


def make_run(directory: Path, seed: int) -> Path:
    """A finished 2-player run of two chunks."""
    from hadara_sim.runner import run
    from hadara_sim.scenario.read import parse_scenario

    sc = parse_scenario(f'players = 2\npolicies = ["greedy", "random"]\ngames = 4\nchunk = 2\nseed = {seed}\n')
    run(sc, directory, jobs=1)
    return directory


def apply_results_edits(out: Path, other: Path, edits: list[tuple]) -> None:
    # The places a `special` edit made a pipe, folder or link are left alone by the edits after it:
    # truncating a part that had become a pipe opened it, waiting for a writer for ever (seed 6301).
    specials: set[str] = set()
    for edit in edits:
        kind = edit[0]
        meta_path = out / "metadata.json"
        places = ({"metadata.json"} if kind in ("meta_set", "meta_del", "combo_set", "meta_text")
                  else set(PARTS) if kind == "swap" else {edit[1]})
        if places & specials:
            continue
        if kind in ("meta_set", "meta_del", "combo_set"):
            try:
                meta = json.loads(meta_path.read_text())
            except (OSError, ValueError):
                continue
            if not isinstance(meta, dict):
                continue
            if kind == "meta_set":
                meta[edit[1]] = edit[2]
            elif kind == "meta_del":
                meta.pop(edit[1], None)
            elif isinstance(meta.get("combinations"), list) and meta["combinations"] and \
                    isinstance(meta["combinations"][0], dict):
                meta["combinations"][0][edit[1]] = edit[2]
            meta_path.write_text(json.dumps(meta, allow_nan=True))
        elif kind == "meta_text":
            meta_path.write_text(edit[1])
        elif kind == "truncate" and (out / edit[1]).exists():
            data = (out / edit[1]).read_bytes()
            (out / edit[1]).write_bytes(data[: int(len(data) * edit[2])])
        elif kind == "swap" and all((out / p).exists() for p in PARTS):
            a, b = (out / p for p in PARTS)
            data = a.read_bytes()
            a.write_bytes(b.read_bytes())
            b.write_bytes(data)
        elif kind == "rename" and (out / edit[1]).exists():
            (out / edit[1]).rename(out / edit[2])
        elif kind == "foreign":
            shutil.copy(other / edit[1], out / edit[1])
        elif kind == "stray":
            (out / edit[1]).write_bytes(edit[2])
        elif kind == "special" and (out / edit[1]).is_file() and not (out / edit[1]).is_symlink():
            place = out / edit[1]
            place.unlink()
            specials.add(edit[1])
            {"fifo": lambda: os.mkfifo(place), "folder": place.mkdir,
             "dev_zero": lambda: place.symlink_to("/dev/zero"), "loop": lambda: place.symlink_to(place.name)}[edit[2]]()


def check_results(root: Path, edits: list[tuple], command: list[str]) -> tuple[str, str]:
    """Run a command (`report ...` or `simulate` to resume) on an edited results directory:
    exit 0 or 2, no traceback; a report writes nothing but under its --out."""
    out, other = make_run(root / "run", 1), make_run(root / "other", 2)
    apply_results_edits(out, other, edits)
    before = tree(root)
    if command[0] == "simulate":
        scenario = root / "s.toml"
        scenario.write_text('players = 2\npolicies = ["greedy", "random"]\ngames = 4\nchunk = 2\nseed = 1\n')
        before = tree(root)
        args = ["simulate", str(scenario), "--out", str(out), "-q", "--jobs", "1"]
    else:
        args = [*command, str(out), "--out", str(root / "charts")]
    result = CliRunner().invoke(app, args)
    output = result.output
    if raised(result, output):
        return raised(result, output)
    if result.exit_code not in (0, 2) or "Traceback" in output:
        return f"exit {result.exit_code}", output
    after = tree(root)
    allowed = ("run/", "charts") if command[0] == "simulate" else ("charts",)
    changed = [k for k in set(after) | set(before) if before.get(k, 0) != after.get(k, 0)
               and not k.startswith(allowed)]
    if changed:
        return f"changed outside its place: {sorted(changed)[:3]}", output
    if command[0] == "simulate":
        gone = [k for k in before if k.startswith("run/") and k not in after
                and not k.startswith(("run/part-c", "run/.part-c", "run/metadata.json", "run/.metadata.json"))]
        if gone:
            return f"deleted what it did not write: {gone[:3]}", output
    return f"ok (exit {result.exit_code})", output


# --- scenario files of the right types, with extreme values -----------------------------------

def _like(default):
    """Values of the same type and shape as a policy parameter's default, extremes included."""
    if isinstance(default, bool):
        return st.booleans()
    if isinstance(default, int):
        return st.one_of(st.integers(-3, 12), st.integers(-2**62, 2**62))
    if isinstance(default, float):
        return st.one_of(st.floats(-5, 5), st.floats(-1e300, 1e300), st.just(0.0), st.integers(-5, 5))
    if isinstance(default, (list, tuple)):
        return st.tuples(*(_like(d) for d in default)).map(list)
    return st.just(default)


def _at_limits(default, limit):
    """Values at a declared limit and just beyond it (a range's ends and their neighbours, the
    choices and a stranger), shaped like the default."""
    if limit is None:
        return _like(default)
    if isinstance(limit, tuple):
        low, high = limit
        edge = st.sampled_from([low - 1, low, high, high + 1, 10**8, -(10**8)])
    else:
        edge = st.sampled_from(sorted(limit, key=str) + ["nosuch", -1, 10**8])
    if isinstance(default, (list, tuple)):
        return st.lists(edge, min_size=len(default), max_size=len(default))
    return edge


@st.composite
def typed_scenario_dicts(draw) -> dict:
    """Scenarios whose every value has the right type: built-in policies with parameters of any
    size, every assignment, setup, board and grant, small sweeps. They must run (exit 0) or be
    refused with a reason (exit 2: e.g. a grant that empties a deck), never fail mid-run."""
    from hadara_sim.policies import BUILTIN

    players = draw(st.integers(2, 5))
    names = draw(st.lists(st.sampled_from(sorted(BUILTIN)), min_size=1, max_size=min(players, 3)))
    policies = []
    for name in names:
        defaults, declared = BUILTIN[name].params, BUILTIN[name].declared
        keys = draw(st.lists(st.sampled_from(sorted(defaults)), max_size=3, unique=True)) if defaults else []
        params = {k: draw(st.one_of(_like(defaults[k]), _at_limits(defaults[k], declared[k].limit))) for k in keys}
        policies.append({"policy": name, "params": params} if params else name)
    advanced = draw(st.booleans())
    data = {"players": players, "game": "advanced" if advanced else "basic", "policies": policies,
            "assignment": draw(st.sampled_from(["fixed", "rotated", "permutations"])),
            "games": draw(st.integers(1, 3)), "chunk": draw(st.integers(2, 3)), "seed": draw(st.integers(0, 2**32))}
    data["setup"] = {"cards": draw(st.one_of(st.just("random"), st.just("grid"),
                                             st.permutations([1, 2, 3, 4, 5]).map(lambda c: c[:players]))),
                     "sides": draw(st.sampled_from(["policy", "random", "grid"] if advanced else ["policy"])),
                     "focus_seat": draw(st.integers(0, players - 1))}
    data["board"] = {"colour_order": draw(st.one_of(st.just("random"),
                                                    st.permutations(["yellow", "red", "blue", "green", "purple"])))}
    grants = draw(st.lists(st.sampled_from(EFFECTS[:4] + CARD_IDS[:3]), max_size=2, unique=True))
    data["grants"] = [{"card": g, "seat": draw(st.one_of(st.integers(0, players - 1), st.just("rotate")))}
                      for g in grants]
    if draw(st.booleans()):
        data["sweep"] = {"players": draw(st.lists(st.integers(2, 5), min_size=1, max_size=2, unique=True))}
    return data


# --- every option of every command ------------------------------------------------------------

INTS = ["-1", "0", "1", "2", "3", "x", "1.5", "", "99999999999999999999"]
SMALL = ["-1", "0", "1", "2", "3", "x", ""]  # options that cost time per unit: never large
POLICY_SPECS = ["greedy", "random", "balanced", "military", "nosuch", "math:pi", "os:getcwd", "missing.py:X",
                "", "greedy,random", "greedy,greedy", "balanced-v1", "[/old]", "n" * 300 + ".py:X"]
OPTION_VALUES = {
    "--games": SMALL, "--top": SMALL, "--draws": SMALL, "--draw-seed": ["-1", "0", "1", "x"], "--fair-value": ["3B.culture", "3B.coins", "9Z.culture", "3B.nosuch", "", "x"], "--swept": ["1,2,3", "3", "", "x", "-5,1e9", "1,1"], "--curve-games": SMALL, "--validation-games": SMALL, "--trials": SMALL,
    "--reference-games": SMALL, "--batch": SMALL, "--chunk": SMALL, "--trace-games": SMALL,
    "--startup": ["-1", "0", "101", "x"],  # each refused or off: a valid count starts that many processes
    "--game": INTS, "--combo": INTS, "--seed": ["-1", "0", "1", str(2**63 - 1), str(2**64), "x"],
    "--players": ["1", "2", "3", "5", "6", "-1", "x"], "--jobs": ["-3", "-2", "-1", "0", "1", "2", "64", "x"],
    "--margin": ["-1", "0", "0.05", "2", "50", "100", "nan", "inf", "x"],
    "--policy": POLICY_SPECS, "--opponent": POLICY_SPECS + ["start"],
    "--param": ["coin=0:1", "coin=nan:inf", "kinds=0:1", "sides=-1,100000000", "budget=0:5", "x", "=", ""],
    "--components": ["{components}", "{root}/nowhere", "{file}", "/proc/self", "", "{root}/" + "n" * 300],
    "--overrides": ["{file}", "{root}/nowhere", "{overrides}", "{folder}"],
    "--out": ["{root}/new", "{file}", "{folder}", "/proc/self/x", "", "{root}/a/b/c", "{root}/x[/old]",
              "{root}/" + "n" * 300,  # a name past 255 bytes: pathlib's checks raised "unexpected OSError"
              "{file}/x", "{root}/r\u00e9sultats d'\u00e9t\u00e9 \u2713"],
    "--trace": ["{root}/t.jsonl", "{file}", "{folder}", "/proc/self/x", "{root}/" + "n" * 300 + ".jsonl"],
    "--format": ["table", "csv", "json", "markdown", "xml", ""], "--chart-format": ["png", "svg", "pdf", "jpg", ""],
    "--by": ["players", "seat", "policy_label", "nosuch", "", "players,seat", *MARKUP],
    "--set": ["players=3", "playrs=3", "players", "=", "game=advanced", "name.x=1", "players=[", "",
              "[/old]=1", 'policies=[{{policy="greedy",label="[/old]"}},"random"]'],  # {{ }}: see check_cli
    "--key": ["players", "nosuch", "setup.sides", "", "[/old]"], "--where": ["players=2", "x", "=", "", "[/old]=1"],
    "--reference": ["0", "x", "nan", "2"], "--side": ["3B", "1A", "6C", "x", ""],
    "--epoch": ["1", "3", "0", "4", "x"], "--colour": ["red", "pink", "", "x"],
    "--what": ["cards", "colonies", "setup", "x"], "--backend": ["local", "dask", "x"],
    "--scheduler": ["not-a-url", "udp://1:1", ""],
    "--values": ["coins,culture", "culture", "gold", "", ","], "--points": SMALL, "--confirm-games": SMALL,
    "--rounds": SMALL, "--aim": ["0", "0.5", "1", "2", "nan", "x"], "--reach": SMALL, "--max-changed": SMALL,
    "--resweep": SMALL, "--card": ["II-B-02", "II-P", "i-y-01", "II-X-99", "", "x", "[/old]"],
}
ARGUMENT_VALUES = {
    "scenario": ["{scenario}", "{root}/nowhere.toml", "{folder}", "{file}", "{root}/" + "n" * 300 + ".toml", ""],
    "results": ["{results}", "{root}/nowhere", "{file}", "{folder}", "{root}/" + "n" * 300, ""],
    "path": ["{components}", "{root}/nowhere", "{file}", ""],
    "name": POLICY_SPECS, "policy": POLICY_SPECS,
}
# Left out, with why: bench --full (minutes by design); the other options of bench and verify that
# only add work take small values above.
LEFT_OUT = {("bench", "--full")}
# Always given unless the fuzzer picks the option itself, so that a valid invocation stays small.
CHEAP = {"balance": ["--games", "10", "--curve-games", "10", "-p", "2", "--jobs", "1"],
         "bench": ["--batch", "10", "--reference-games", "2", "-p", "2"],
         "verify": ["--games", "2", "-p", "2", "--jobs", "1"], "policies ladder": ["--games", "10", "-p", "2"],
         "policies tune": ["--trials", "1", "--games", "2", "--validation-games", "2"],
         "simulate": ["--games", "2", "--jobs", "1"],
         "balance fit": ["--confirm-games", "10", "--points", "3", "--rounds", "1"]}


def command_table() -> dict[str, list]:
    """Every command of the app: its path and its click parameters."""
    import typer.main

    from hadara_sim.cli import app

    out = {}

    def walk(command, path):
        subs = getattr(command, "commands", None)
        if subs:
            for name, sub in sorted(subs.items()):
                walk(sub, path + [name])
        else:
            out[" ".join(path)] = command.params

    walk(typer.main.get_command(app), [])
    return out


@st.composite
def cli_invocations(draw) -> list[str]:
    """A command with a random subset of its options (every option can be drawn), each with a value
    from its pool (valid ones and malformed ones), placeholders like {root} left for `check_cli`."""
    table = command_table()
    path = draw(st.sampled_from(sorted(table)))
    args = path.split()
    chosen = []
    for param in table[path]:
        if param.param_type_name == "argument":
            args.append(draw(st.sampled_from(ARGUMENT_VALUES[param.name])))
            continue
        name = max(param.opts, key=len)
        if (path, name) in LEFT_OUT or name in ("--help",) or not draw(st.booleans()):
            continue
        chosen.append(name)
        if param.is_flag:
            args.append(draw(st.sampled_from([*param.opts, *param.secondary_opts])))
        else:
            args += [name, draw(st.sampled_from(OPTION_VALUES[name]))]
    for key, cheap in CHEAP.items():
        if path == key or path.startswith(key + " "):
            pairs = [cheap[i:i + 2] for i in range(0, len(cheap), 2)]
            for option, value in pairs:
                if option not in chosen and not (option == "-p" and "--players" in chosen):
                    args += [option, value]
    return args


def cli_fixtures(root: Path) -> dict[str, str]:
    """The files an invocation may name: a scenario, a finished run, a component set, overrides."""
    (root / "folder").mkdir()
    (root / "file").write_text("x = \n")
    (root / "scenario.toml").write_text('players = 2\npolicies = ["greedy", "random"]\ngames = 4\nchunk = 2\n')
    make_run(root / "results", 1)
    shutil.copytree(default_components_path(), root / "components")
    (root / "overrides.toml").write_text('[components.setup."3"]\nB_coins = 5\n')
    return {"root": str(root), "folder": str(root / "folder"), "file": str(root / "file"),
            "scenario": str(root / "scenario.toml"), "results": str(root / "results"),
            "components": str(root / "components"), "overrides": str(root / "overrides.toml")}


def check_cli(root: Path, args: list[str]) -> tuple[str, str]:
    """Run one invocation from root/work: exit 0, 1 (with a message) or 2 (with a message), no
    traceback, the inputs unchanged, nothing written in the project folder."""
    places = cli_fixtures(root)
    args = [a.format(**places) for a in args]
    work = root / "work"
    work.mkdir()
    inputs = {k: tree(root / k) for k in ("components", "folder")}
    inputs["scenario"] = (root / "scenario.toml").read_bytes()
    project = sorted(p.name for p in Path.cwd().iterdir())
    result = invoke_in(work, args)
    output = result.output
    shown = " ".join(args)
    if raised(result, shown + "\n" + output):
        return raised(result, shown + "\n" + output)
    if "Traceback" in output:
        return "traceback in output", shown + "\n" + output
    if result.exit_code not in (0, 1, 2):
        return f"exit {result.exit_code}", shown + "\n" + output
    if result.exit_code and not output.strip():
        return f"exit {result.exit_code} without a message", shown
    if sorted(p.name for p in Path.cwd().iterdir()) != project:
        return "wrote into the project folder", shown
    changed = [k for k in ("components",) if tree(root / k) != inputs[k]]
    if (root / "scenario.toml").read_bytes() != inputs["scenario"]:
        changed.append("scenario")
    if "--out" not in args and "--trace" not in args and tree(root / "folder") != inputs["folder"]:
        changed.append("folder")
    if changed:
        return f"changed an input: {changed}", shown
    return f"ok (exit {result.exit_code})", shown


# --- the human seat's answers -------------------------------------------------------------------

ODD_ANSWERS = ["²", "٣", "９", "1²", "9" * 4301, "1" + "0" * 5000, "-1", "0", "1.0", " 1 ", "\x00", "v", "h", "?",
               "", "1e3", "0x1", "一", "\udcff", "1" * 30]
human_answers = st.tuples(st.lists(st.one_of(st.sampled_from(ODD_ANSWERS), st.text(max_size=8)), min_size=1,
                                   max_size=6),
                          st.sampled_from(["finish", "end", "quit"]))


def check_human(root: Path, case) -> tuple[str, str]:
    """`play` with a human seat given these answers, then first options to the end (finish), nothing
    (end: the input ends) or q (quit): every odd answer is asked again; the game ends with exit 0, or
    1 saying the input ended; never a policy failure."""
    answers, ending = case
    lines = "".join(a.replace("\n", " ").replace("\r", " ") + "\n" for a in answers)
    text = lines + {"finish": "1\n" * 400, "end": "", "quit": "q\n"}[ending]
    result = CliRunner().invoke(app, ["play", "-p", "2", "--policy", "human,greedy", "--seed", "1"],
                                input=text.encode("utf-8", errors="surrogateescape"))
    output = result.output
    if raised(result, output):
        return raised(result, output)
    if "raised" in output or "Traceback" in output:
        return "an answer failed the human seat", output[-2000:]
    if result.exit_code == 1 and "input ended" in output:
        return "ok (input ended)", ""
    if result.exit_code != 0:
        return f"exit {result.exit_code}", output[-2000:]
    return "ok (exit 0)", ""


# --- side-trial cache files ---------------------------------------------------------------------

TRIAL = {"players": 2, "sides": [1, 0, 1, -1, -1], "effect": [0.01, -0.02, 0.05, 0.0, 0.0],
         "low": [-0.01, -0.04, 0.03, -0.02, -0.02], "high": [0.03, 0.0, 0.07, 0.02, 0.02], "deals": 1000, "rounds": 3}
SPECIAL_FILES = ["dev_zero", "fifo", "folder", "huge", "dangling", "dev_null"]
cache_files = st.one_of(
    st.tuples(st.just("value"), st.sampled_from(sorted(TRIAL)), st.one_of(json_junk, st.just("1e400"))),
    st.tuples(st.just("json"), st.dictionaries(st.sampled_from([*TRIAL, "inputs", "x"]), json_junk, max_size=8)),
    st.tuples(st.just("text"), st.sampled_from(["", "{", "null", "[]", "\ufeff{}", "[" * 100000, '{"deals": 1e400}'])),
    st.tuples(st.just("bytes"), st.binary(max_size=64)),
    st.tuples(st.just("special"), st.sampled_from(SPECIAL_FILES)),
)


def _write_cache_file(path: Path, case) -> None:
    import os

    kind = case[0]
    if kind == "value":
        text = json.dumps({**TRIAL, case[1]: "@"}).replace('"@"', case[2] if case[2] == "1e400" else
                                                           json.dumps(case[2], allow_nan=True))
        path.write_text(text)
    elif kind == "json":
        path.write_text(json.dumps(case[1], allow_nan=True))
    elif kind == "text":
        path.write_text(case[1])
    elif kind == "bytes":
        path.write_bytes(case[1])
    elif case[1] == "fifo":
        os.mkfifo(path)
    elif case[1] == "folder":
        path.mkdir()
    elif case[1] == "huge":
        path.write_text(json.dumps({**TRIAL, "inputs": "x" * (8 << 20)}))
    else:
        path.symlink_to({"dev_zero": "/dev/zero", "dev_null": "/dev/null", "dangling": "/nonexistent/x"}[case[1]])


def sane_trial(trial) -> bool:
    """A trial read back holds values a trial can have (checked apart from policies/sides.py)."""
    counts = [trial.players, trial.deals, trial.rounds]
    shares = [*trial.effect, *trial.low, *trial.high]
    return (all(type(n) is int and 1 <= n <= 10**9 for n in counts) and trial.players == 2
            and len(trial.sides) == len(trial.effect) == len(trial.low) == len(trial.high) == 5
            and all(s in (-1, 0, 1) and type(s) is int for s in trial.sides)
            and all(isinstance(x, (int, float)) and math.isfinite(x) and -1 <= x <= 1 for x in shares))


READ_TRIAL = """
import pickle, sys, time
from hadara_sim.policies import sides
import resource
size = int(next(l for l in open("/proc/self/status") if l.startswith("VmSize")).split()[1]) * 1024
resource.setrlimit(resource.RLIMIT_AS, (size + (1 << 30), size + (1 << 30)))  # the read may take 1 GB more
sys.stdout.buffer.write(b"!")
sys.stdout.buffer.flush()
start = time.perf_counter()
try:
    trial = sides._read(__import__("pathlib").Path(sys.argv[1]), 2)
    sys.stdout.buffer.write(pickle.dumps(("read", trial, time.perf_counter() - start)))
except BaseException as err:
    sys.stdout.buffer.write(pickle.dumps(("raised", f"{type(err).__name__}: {err}", time.perf_counter() - start)))
"""


def check_cache_file(root: Path, case) -> tuple[str, str]:
    """policies/sides.py reading a side-trial cache file: a trial with sane values, or None (played
    again), within 30 s of reading (the import not counted) and without a runaway read; never an
    exception. Read in a process of its own with 1 GB of memory, so a read without bound cannot harm
    the campaign."""
    import os
    import pickle
    import subprocess
    import sys

    path = root / "trial.json"
    _write_cache_file(path, case)

    reader = subprocess.Popen([sys.executable, "-c", READ_TRIAL, str(path)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    # Imported: the import alone takes seconds on a busy machine, the read is timed. One byte off the
    # pipe itself: a buffered read(1) may take the answer too when it is already there (a quick read
    # on a busy machine), and `communicate` reads the pipe, not that buffer.
    os.read(reader.stdout.fileno(), 1)
    try:
        answer, errors = reader.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        reader.kill()
        reader.communicate()
        return "hang (no answer in 30 s)", repr(case)
    try:
        what, value, seconds = pickle.loads(answer)
    except Exception:
        return "the reading process died (memory?)", errors.decode(errors="replace")[-2000:]
    if seconds > 30:
        return "slow read (over 30 s)", repr(case)
    if what == "raised":
        return f"raised {value.split(':')[0]}", value
    if value is None:
        return "ok (played again)", ""
    return ("ok (read)", "") if sane_trial(value) else ("read insane values", repr(value))


# --- crafted card columns ----------------------------------------------------------------------

CARD_COLUMNS = ["bought", "bought_in_b", "sold", "fed_away", "offered"]
CARD_CHANGES = ["longer", "shorter", "past_last", "ones", "random", "empty", "other_seat", "in_b_only", "same"]
card_edits = st.lists(st.tuples(st.sampled_from(CARD_COLUMNS), st.integers(0, 3), st.sampled_from(CARD_CHANGES),
                                st.binary(min_size=1, max_size=4)), min_size=1, max_size=3)


def _card_change(rows: list, i: int, change: str, noise: bytes, bought: list) -> bytes:
    b = rows[i] or b""
    if change == "longer":
        return b + noise
    if change == "shorter":
        return b[:-len(noise)]
    if change == "past_last":
        return b[:-1] + bytes([(b[-1:] or b"\0")[0] | 0x80])
    if change == "ones":
        return b"\xff" * len(b)
    if change == "random":
        return (noise * 21)[:len(b)]
    if change == "empty":
        return b""
    if change == "other_seat":  # the other seat's purchases in this row too
        other = bought[i ^ 1] or b""
        return bytes(x | y for x, y in zip(b.ljust(len(other), b"\0"), other))
    if change == "in_b_only":
        return b
    return b


def card_oracle(tables, n_cards: int) -> bool:
    """Whether the card columns of these Arrow tables keep the schema's rules, checked row by row with
    Python integers (apart from hadara_sim.results)."""
    width = -(-n_cards // 8)
    for table in tables:
        data = table.to_pydict()
        taken: dict = {}
        for r in range(table.num_rows):
            sets = {}
            for c in CARD_COLUMNS:
                b = data[c][r] or b""
                if len(b) not in (0, width):
                    return False
                sets[c] = int.from_bytes(b, "little")
                if sets[c] >> n_cards:
                    return False
            if sets["bought_in_b"] & ~sets["bought"] or sets["bought"] & sets["sold"]:
                return False
            game = (data["combo"][r], data["game"][r])
            mine = sets["bought"] | sets["sold"]
            if taken.get(game, 0) & mine:
                return False
            taken[game] = taken.get(game, 0) | mine
    return True


def check_card_columns(root: Path, edits: list[tuple]) -> tuple[str, str]:
    """`report cards` on a run whose first chunk's card columns were crafted: read when they keep the
    schema's rules; else refused (exit 2) naming the column and the row or game; never a traceback."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from hadara_sim.component_files import load_components

    out = make_run(root / "run", 1)
    part = out / PARTS[0]
    table = pq.read_table(part)
    data = {c: table[c].to_pylist() for c in CARD_COLUMNS}
    for column, row, change, noise in edits:
        if change == "in_b_only":
            data["bought_in_b"][row] = bytes(x | y for x, y in zip(data["bought_in_b"][row], noise.ljust(21, b"\0")))
        else:
            data[column][row] = _card_change(data[column], row, change, noise, data["bought"])
    for c in CARD_COLUMNS:
        at = table.schema.get_field_index(c)
        table = table.set_column(at, table.schema.field(c), pa.array(data[c], pa.binary()))
    pq.write_table(table, part)
    valid = card_oracle([table, pq.read_table(out / PARTS[1])], load_components().n_cards)
    result = CliRunner().invoke(app, ["report", "cards", str(out), "--out", str(root / "charts")])
    output = result.output
    if raised(result, output):
        return raised(result, output)
    if "Traceback" in output or result.exit_code not in (0, 2):
        return f"exit {result.exit_code}", output
    if not valid and result.exit_code == 0:
        return "reported broken card columns as data", repr(edits)
    text = " ".join(output.split())
    if not valid and not any(c in text for c in CARD_COLUMNS):
        return "refused broken card columns without naming the column", text
    return f"ok (exit {result.exit_code}{', refused' if not valid else ''})", ""


# --- two-key curves -----------------------------------------------------------------------------

KEYS = ["components.setup.3B.culture", "components.setup.3B.coins"]
key_values = st.lists(st.sampled_from([0, 1, 2, 3, 5, 0.5, -5, 3000, 100000, 10**9]), min_size=1, max_size=3,
                      unique=True)
curve_requests = st.tuples(key_values, key_values,
                           st.lists(st.sampled_from([*KEYS, KEYS[0], "nosuch.key", "players"]), min_size=1,
                                    max_size=3),
                           st.one_of(st.none(), st.sampled_from(["99", "0", "1", "nan", "1e400"])))


def two_key_run(out: Path, values1: list, values2: list, deals: int = 30) -> Path:
    """A hand-made results directory of a two-key sweep of setup card 3B: every pair of values, the
    same deals under each, seat 0 holding 3B."""
    import numpy as np

    from report_data import frame, write_results

    rng = np.random.default_rng(0)
    combos, rows = [], []
    for a in values1:
        for b in values2:
            sweep = {KEYS[0]: a, KEYS[1]: b}
            combos.append({"index": len(combos), "sweep": sweep})
            wins = rng.random(deals) < 0.5
            for game in range(deals):
                for seat in (0, 1):
                    won = wins[game] == (seat == 0)
                    rows.append({"combo": len(combos) - 1, "game": game, "seat": seat, "players": 2,
                                 "setup_card": 3 if seat == 0 else 1, "setup_side": "B" if seat == 0 else "A",
                                 "win_share": 1.0 if won else 0.0, "total": int(rng.integers(100, 160)),
                                 "sweep": json.dumps(sweep)})
    return write_results(frame(rows, combos), out, combos)


def check_curve(root: Path, case) -> tuple[str, str]:
    """`report curve` of a two-key sweep: exit 0 or 2 with a message within 60 s; a repeated --key or
    a --reference with two keys refused."""
    import time

    values1, values2, keys, reference = case
    out = two_key_run(root / "run", values1, values2)
    args = ["report", "curve", str(out), "--out", str(root / "charts")]
    args += [x for k in keys for x in ("--key", k)] + (["--reference", reference] if reference else [])
    start = time.perf_counter()
    result = CliRunner().invoke(app, args)
    seconds = time.perf_counter() - start
    output = result.output
    shown = " ".join(args[2:]) + f" over {values1} x {values2}"
    if raised(result, output):
        return raised(result, shown + "\n" + output)
    if "Traceback" in output or "unexpected" in output or result.exit_code not in (0, 2):
        return f"exit {result.exit_code}{' (unexpected error)' if 'unexpected' in output else ''}", shown + "\n" + output
    if seconds > 60:
        return "slow (over 60 s)", shown
    if result.exit_code == 0 and len(keys) == 2 and (keys[0] == keys[1] or reference):
        return "a repeated key or a reference with two keys accepted", shown
    if result.exit_code == 2 and not output.strip():
        return "exit 2 without a message", shown
    return f"ok (exit {result.exit_code})", ""


# --- simulate --dry-run makes the checks a run makes ----------------------------------------------

# Each kind of --out, and the exit a run into it makes without and with --overwrite.
OUT_TARGETS = {"own run": (0, 0), "own run, a chunk missing": (0, 0), "missing": (0, 0), "empty folder": (0, 0),
               "other run": (2, 0), "file": (2, 2), "overlong name": (2, 2), "inside a file": (2, 2),
               "parts without metadata": (2, 0), "damaged metadata": (2, 0), "metadata a folder": (2, 2),
               "a part a folder": (2, 2), "another schema": (2, 0), "a stranger's file": (0, 0)}
OUT_NAMES = ["out", "r\u00e9sultats d'\u00e9t\u00e9 \u2713", "-out", "[/old]", "out.parquet"]
dry_runs = st.tuples(st.sampled_from(sorted(OUT_TARGETS)), st.booleans(), st.booleans(), st.sampled_from(OUT_NAMES))


def make_out(root: Path, target: str, name: str) -> Path:
    """An --out of kind `target` (OUT_TARGETS) named `name` under `root`."""
    out = root / name
    out.parent.mkdir(parents=True, exist_ok=True)  # a name holding a slash ('[/old]')
    if target.startswith("own run") or target in ("parts without metadata", "damaged metadata", "metadata a folder",
                                                  "a part a folder", "another schema", "a stranger's file"):
        make_run(out, 1)
    part = sorted(out.glob("part-*.parquet"))[:1]
    if target == "own run, a chunk missing":
        part[0].unlink()
    elif target == "a part a folder":
        part[0].unlink()
        part[0].mkdir()
    elif target == "parts without metadata":
        (out / "metadata.json").unlink()
    elif target == "damaged metadata":
        (out / "metadata.json").write_text("{")
    elif target == "metadata a folder":
        (out / "metadata.json").unlink()
        (out / "metadata.json").mkdir()
    elif target == "another schema":
        meta = json.loads((out / "metadata.json").read_text())
        (out / "metadata.json").write_text(json.dumps({**meta, "schema_version": meta["schema_version"] - 1}))
    elif target == "a stranger's file":
        (out / "notes.txt").write_text("keep")
    elif target == "other run":
        make_run(out, 2)
    elif target == "file":
        out.write_text("keep")
    elif target == "empty folder":
        out.mkdir()
    elif target == "overlong name":
        out = root / ("x" * 300)
    elif target == "inside a file":
        (root / "keep").write_text("keep")
        out = root / "keep" / name
    return out


def check_dry_run(root: Path, case) -> tuple[str, str]:
    """`simulate --dry-run` (or a run), with or without --overwrite, into an --out of each kind and name: it
    accepts what a run accepts and refuses what a run refuses (OUT_TARGETS), and a dry run writes nothing."""
    target, dry, overwrite, name = case
    scenario = root / "s.toml"
    scenario.write_text('players = 2\npolicies = ["greedy", "random"]\ngames = 4\nchunk = 2\nseed = 1\n')
    out = make_out(root, target, name)
    before = tree(root)
    result = CliRunner().invoke(app, ["simulate", str(scenario), f"--out={out}", "-q", "--jobs", "1",
                                      *(["--dry-run"] if dry else []), *(["--overwrite"] if overwrite else [])])
    output = result.output
    if raised(result, output):
        return raised(result, output)
    if "Traceback" in output or "unexpected" in output:
        return "unexpected error", output
    expected = OUT_TARGETS[target][overwrite]
    if result.exit_code != expected:
        return f"{'dry run' if dry else 'run'}{' --overwrite' * overwrite} into {target}: exit {result.exit_code}, " \
               f"expected {expected}", output
    if result.exit_code == 2 and not output.strip():
        return "exit 2 without a message", output
    if dry and tree(root) != before:
        return "a dry run wrote", target
    if target == "a stranger's file" and not (out / "notes.txt").is_file():
        return "a file the run did not write was deleted", output
    return f"ok (exit {result.exit_code})", ""


# --- the library as a notebook calls it -------------------------------------------------------------

# What a notebook passes by mistake: every call below gets one or two of its arguments replaced by these
# (frames of the wrong kind, paths of the wrong kind, numbers out of range, text for numbers).
WRONG = ["None", "5", "-1", "0", "2.5", "float('nan')", "True", "''", "'x'", "'seat=0'", "[]", "{}", "('a',)",
         "'polcy'", "pandas frame", "lazy frame", "empty frame", "missing path", "a file", "results frame",
         "pl.col('seat')", "10**13", "'3b'"]


_WORLD: dict = {}


def _world() -> dict:
    """The right arguments of the calls, made once per process in a folder of their own: hand-made
    datasets (report_data), their info, the shipped component set, a results directory, a small curve."""
    if _WORLD:
        return _WORLD
    import tempfile

    import numpy as np
    import polars as pl

    import report_data as R
    from hadara_sim.component_files import load_components
    from hadara_sim.report import curve, ratings, wins
    from hadara_sim.report.dataset import dataset_info

    df = R.four_games()
    grants, combos = R.grant_sweep()
    grid = R.setup_grid(np.random.default_rng(1), deals=30)
    rng = np.random.default_rng(2)
    values = [1, 2, 3, 4]
    column = "sweep_components_setup_3B_culture"
    rows = [(g, k, seat, 2, float(100 + rng.normal()), float(w if seat == 0 else 1 - w), 3 if seat == 0 else 1,
             "B" if seat == 0 else "A", x)
            for k, x in enumerate(values) for g in range(60) for w in [float(rng.random() < 0.3 + 0.1 * x)]
            for seat in (0, 1)]
    swept = pl.DataFrame(rows, orient="row", schema={
        "game": pl.Int64, "combo": pl.Int32, "seat": pl.Int8, "players": pl.Int8, "total": pl.Float64,
        "win_share": pl.Float64, "setup_card": pl.Int8, "setup_side": pl.String, column: pl.Int64})
    root = Path(tempfile.mkdtemp(prefix="hadara-api-"))
    results = R.write_results(df, root / "results")
    (root / "a file").write_text("x")
    pairs = df.filter(pl.col("seat") == 0).select("game", a="win_share").join(
        df.filter(pl.col("seat") == 1).select("game", b="win_share"), on="game")
    _WORLD.update(df=df, info=dataset_info(df), comps=load_components(), grants=grants, grid=grid, swept=swept,
                  curve=curve.curve(swept, "components.setup.3B.culture"), results=results, pairs=pairs,
                  rated=ratings.pairwise(df), table=wins.win_rates(df, ["policy_label"]), root=root)
    return _WORLD


def _wrong(name: str, world: dict):
    import polars as pl

    import uuid

    made = {"None": None, "pandas frame": world["df"].to_pandas(), "lazy frame": world["df"].lazy(),
            "empty frame": world["df"].head(0), "missing path": world["root"] / "no" / uuid.uuid4().hex,
            "a file": world["root"] / "a file", "results frame": world["df"], "pl.col('seat')": pl.col("seat")}
    return made[name] if name in made else eval(name)  # noqa: S307 (the pool's own literals)


def _calls() -> list[tuple[str, object]]:
    """(name, world -> (function, arguments)) of the library's public calls, each with right arguments:
    (keyword or None for a positional one, value)."""
    import hadara_sim as H
    from hadara_sim import balance
    from hadara_sim.report import (cards, charts, component_sections, curve, dataset, estimates, grants, ratings,
                                   scores, sections, setup, summary, verdict, wins)

    def at(*values, **keywords):
        return [(None, v) for v in values] + list(keywords.items())

    return [
        ("win_rates", lambda w: (wins.win_rates, at(w["df"], ["policy_label"], 0.02))),
        ("sweep_contrasts", lambda w: (wins.sweep_contrasts, at(w["grants"], 0.02))),
        ("mean_ci", lambda w: (estimates.mean_ci, at(w["df"], "win_share", ["seat"], fair=0.5, cluster="game",
                                                      rate=True, margin=0.02))),
        ("paired_diff", lambda w: (estimates.paired_diff, at(w["pairs"], "a", "b", [], "game", "", 0.02))),
        ("with_verdicts", lambda w: (verdict.with_verdicts, at(w["table"], "p", "equiv_p", "diff", 0.02, "fdr_bh"))),
        ("judge", lambda w: (verdict.judge, at([0.1, 0.0], [0.01, 0.5], [0.9, 0.01], [100, 100], 0.02, "fdr_bh"))),
        ("leader_wins", lambda w: (scores.leader_wins, at(w["df"], (1, 2), ["players"]))),
        ("running_scores", lambda w: (scores.running_scores, at(w["df"], ["policy_label"]))),
        ("score_breakdown", lambda w: (scores.score_breakdown, at(w["df"], ["policy_label"]))),
        ("pairwise", lambda w: (ratings.pairwise, at(w["df"]))),
        ("bradley_terry", lambda w: (ratings.bradley_terry, at(w["rated"], "game"))),
        ("head_to_head", lambda w: (ratings.head_to_head, at(w["rated"], "game"))),
        ("finishing", lambda w: (ratings.finishing, at(w["df"]))),
        ("setup_card_balance", lambda w: (setup.setup_card_balance, at(w["grid"], 0.02))),
        ("setup_side_contrasts", lambda w: (setup.setup_side_contrasts, at(w["grid"], 0.02))),
        ("grant_effects", lambda w: (grants.grant_effects, at(w["grants"], 0.02))),
        ("placebo_effects", lambda w: (grants.placebo_effects, at(w["grants"], w["comps"], 0.02))),
        ("card_table", lambda w: (cards.card_table, at(w["df"], w["comps"], 0.02))),
        ("section winrate", lambda w: (sections.winrate, at(w["df"], w["info"], ["policy"], 0.02))),
        ("section seats", lambda w: (sections.seats, at(w["df"], w["info"], 0.02))),
        ("section trajectory", lambda w: (sections.trajectory, at(w["df"], w["info"], ["policy"]))),
        ("section ratings", lambda w: (sections.ratings, at(w["df"], w["info"]))),
        ("section cards", lambda w: (component_sections.cards, at(w["df"], w["info"], 10, 0.02))),
        ("write_summary", lambda w: (summary.write_summary, at(w["df"], w["info"], w["root"] / "summary", "png", 0.02))),
        ("winrate_chart", lambda w: (charts.winrate_chart, at(w["table"], str, w["info"], "policy"))),
        ("dataset_info", lambda w: (dataset.dataset_info, at(w["df"], {}))),
        ("card_events", lambda w: (H.card_events, at(w["df"], w["comps"]))),
        ("load_results", lambda w: (H.load_results, at(w["results"], sweep_columns=True, allow_partial=True))),
        ("load_scenario", lambda w: (H.load_scenario, at("default", None, ["players=3"]))),
        ("make_deals", lambda w: (H.make_deals, at(w["comps"], 2, 3, 1, False, 0, ()))),
        ("with_overrides", lambda w: (H.load_scenario("default").with_overrides, at(10, 1, 5))),
        ("curve", lambda w: (curve.curve, at(w["swept"], "components.setup.3B.culture", None, None, 0.02))),
        ("predict", lambda w: (curve.predict, at(w["curve"], 2.5, 0.05))),
        ("balance plan", lambda w: (balance.Plan, at(2, "balanced", 10, 10, 0.02, 1, None, 1, ["3B"]))),
    ]


api_calls = st.tuples(st.integers(0, 10**6),
                      st.lists(st.tuples(st.integers(0, 8), st.sampled_from(WRONG)), min_size=1, max_size=2))


def check_api(root: Path, case) -> tuple[str, str]:
    """One library call with one or two arguments of the wrong kind: it returns, or raises one of the
    library's errors, or a TypeError/ValueError/IndexError of its own making (a `raise` in hadara_sim);
    an error from inside polars, numpy, pathlib or statsmodels, or an AttributeError, misbehaves. The
    call runs in `root`: a wrong path is relative ('seat=0' as write_summary's folder wrote
    seat=0/summary.html into the checkout); the right arguments are made once per process, `_world`."""
    import contextlib
    import traceback
    import warnings

    import hadara_sim

    calls = _calls()
    pick, wrongs = case
    name, make = calls[pick % len(calls)]
    world = _world()
    function, arguments = make(world)
    shown = []
    for position, wrong in wrongs:
        i = position % len(arguments)
        arguments[i] = (arguments[i][0], _wrong(wrong, world))
        shown.append(f"{arguments[i][0] or f'argument {i}'} = {wrong}")
    what = f"{name}({', '.join(shown)})"
    try:
        with warnings.catch_warnings(), contextlib.chdir(root):
            warnings.simplefilter("ignore")
            function(*[v for k, v in arguments if k is None], **{k: v for k, v in arguments if k is not None})
    except Exception as err:  # noqa: BLE001 (which kind, raised where, is the finding)
        last = traceback.extract_tb(err.__traceback__)[-1]
        ours = Path(last.filename).resolve().is_relative_to(Path(hadara_sim.__file__).resolve().parent)
        if ours and (last.line or "").lstrip().startswith("raise") and not isinstance(err, AttributeError):
            return "ok (refused)", ""
        return f"{type(err).__name__} from {Path(last.filename).name}", \
            what + "\n" + "".join(traceback.format_exception(err))[-2500:]
    return "ok (returned)", ""


# --- a user's policy that answers wrongly -----------------------------------------------------------

# What decide() does instead of answering well: a return of the wrong kind, a raise of any kind, a write
# into or a rebinding of what it was lent. `c` is the first legal option per game, `d` the decision. Not a
# raised KeyboardInterrupt: under CliRunner, without main()'s handler, it is a Ctrl-C (tests/test_hardening.py
# runs it through the real command).
POLICY_ANSWERS = [
    "return c.astype(float)", "return np.full(len(d), np.nan)", "return c - 100", "return c + 2**62",
    "return np.full(len(d), 2**64 - 1, np.uint64)", "return c.tolist()", "return None", "return np.array(0)",
    "return c.astype(bool)", "return np.ma.masked_array(c, mask=np.ones(len(c), bool))", "return c[:, None]",
    "return np.array(c, object)", "return '0'", "return (x for x in c)", "return c.astype('m8[s]')",
    "return c.astype(complex)", "raise ValueError('v')", "raise SystemExit(0)",
    "raise GeneratorExit", "raise BaseException('b')", "raise MemoryError", "return self.decide(d)",
    "d.legal = np.ones_like(d.legal); return (~legal).argmax(axis=1)",
    "d.legal.flags.writeable = True; d.legal[:] = True; return (~legal).argmax(axis=1)",
    "d.view.coins[:] = 99; return c", "d.game_id[:] = 0; d.serial[:] = 0; return c", "d.kind = 'x'; return c",
    "return c",
]
policy_answers = st.tuples(st.sampled_from(POLICY_ANSWERS), st.integers(0, 40), st.integers(0, 3))

POLICY_FILE = """import numpy as np
from hadara_sim.policy import Policy


class Odd(Policy):
    name = "odd"
    asked = 0

    def decide(self, d):
        legal = d.legal.copy()
        c = legal.argmax(axis=1)
        self.asked += 1
        if self.asked <= {after}:
            return c
        {answer}
"""


def check_policy_answer(root: Path, case) -> tuple[str, str]:
    """`play` with a user's policy that answers well `after` times, then as `answer`: the game ends (exit 0)
    or stops naming the policy (exit 2), never "unexpected" nor a traceback nor a crash."""
    answer, after, seed = case
    (root / "odd.py").write_text(POLICY_FILE.format(after=after, answer=answer.replace("; ", "\n        ")))
    result = invoke_in(root, ["play", "-p", "2", "--policy", "odd.py:Odd,greedy", "--seed", str(seed), "-q"])
    output = result.output
    if raised(result, output):
        return raised(result, output)
    if "Traceback" in output or "unexpected" in output or result.exit_code not in (0, 2):
        return f"exit {result.exit_code}", f"{answer} after {after}\n{output[-2000:]}"
    if result.exit_code == 2 and "policy 'odd'" not in output:
        return "stopped without naming the policy", f"{answer} after {after}\n{output[-2000:]}"
    return f"ok (exit {result.exit_code})", ""


# A user's policy class that misbehaves outside its answers: an attribute that raises or is of the wrong kind,
# prints where --format json is written, a `kernel` of its own. Each line is one class attribute or method of
# `P`; `base` is Greedy (a built-in's subclass) or a class of decide() alone.
POLICY_CLASS_PARTS = [
    "@property\ndef name(self): raise RuntimeError('n')", "name = 5", "name = ''", "name = None", "name = '[/old]'",
    "name = 'x\\ny'", "description = 5", "description = '[/old] x'", "params = 5", "params = ['a']",
    "params = {1: 2}", "params = {'a': object()}", "params = None", "declared = 5", "declared = {'coin': 5}",
    "__doc__ = 5", "def __init__(self, seed=0, **kw):\n    print('made')\n    super().__init__(seed, **kw)",
    "def check_components(self, c): print('checked')", "check_components = 5",
    "def decide(self, d):\n    print('decides')\n    return super().decide(d)",
    "@property\ndef decide(self): raise RuntimeError('d')", "kernel = 5",
    "def kernel(self, *a, **k): raise RuntimeError('k')", "def kernel(self, *a, **k): return 5",
]
POLICY_CLASS_COMMANDS = [
    ["play", "-p", "2", "--format", "json", "--policy", "my.py:P,greedy"],
    ["policies", "show", "my.py:P", "--format", "json"],
    ["simulate", "s.toml", "--format", "json", "--jobs", "1", "--out", "out"],
    ["policies", "tune", "my.py:P", "--trials", "1", "--games", "2", "--validation-games", "2", "--format", "json", "-q"],
]
policy_classes = st.tuples(st.sampled_from(["Greedy", "Plain"]), st.lists(st.sampled_from(POLICY_CLASS_PARTS),
                                                                        min_size=1, max_size=3, unique=True),
                           st.sampled_from(range(len(POLICY_CLASS_COMMANDS))))

POLICY_CLASS_FILE = """from hadara_sim.policies.greedy import Greedy


class Plain:
    def __init__(self, seed=0, **params):
        pass

    def decide(self, d):
        return d.legal.argmax(axis=1)


class P({base}):
{body}
"""


def check_policy_class(root: Path, case) -> tuple[str, str]:
    """A command given a policy class that misbehaves outside decide(): it plays, or stops naming the policy
    (exit 2, or a PolicyError, which `main` prints with exit 1), never "unexpected" nor a traceback; and
    where it exits 0, its standard output is whole JSON (the policy's prints go to standard error)."""
    from hadara_sim.policy import IllegalChoice

    base, parts, which = case
    body = "\n".join("    " + line for part in parts for line in part.splitlines())
    (root / "my.py").write_text(POLICY_CLASS_FILE.format(base=base, body=body))
    (root / "s.toml").write_text('players = 2\npolicies = ["my.py:P", "greedy"]\ngames = 2\nchunk = 2\n')
    command = POLICY_CLASS_COMMANDS[which]
    shown = f"{base} {parts} {' '.join(command)}"
    result = invoke_in(root, command)
    output = result.output
    # A name of its own (a non-empty str, as policy_name takes it): the policy is named by it, as it asked
    own = [part[len("name = '"):-1].replace("\\n", "\n") for part in parts if part.startswith("name = '")
           and len(part) > len("name = ''")]

    def named(text: str) -> bool:  # by its spec, by its own name, or by its class's name where it has none
        return "my.py:P" in "".join(text.split()) or "policy 'P'" in text or any(f"policy '{n}'" in text for n in own)

    if isinstance(result.exception, IllegalChoice):  # main() names it: "error: ...; fix the policy" (exit 1)
        if named(str(result.exception)):
            return "ok (exit 1, named)", ""
        return "policy error naming another policy", f"{shown}\n{result.exception}"
    if raised(result, output):
        return raised(result, output)
    if "Traceback" in output or "unexpected" in output or result.exit_code not in (0, 1, 2) \
            or result.exit_code == 1 and "error: " not in output:  # exit 1: tune's held-out check failed, said so
        return f"exit {result.exit_code}", f"{shown}\n{output[-2000:]}"
    if result.exit_code == 2 and not named(output):
        return "stopped without naming the policy", f"{shown}\n{output[-2000:]}"
    if result.exit_code == 0:
        try:
            json.loads(result.stdout)
        except ValueError:
            return "standard output is not JSON", f"{shown}\n{result.stdout[-2000:]}"
    return f"ok (exit {result.exit_code})", ""

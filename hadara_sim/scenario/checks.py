"""The checks of a scenario's values: the problems found, each with its file, line and key.

`Check` collects every problem of a scenario (reading goes on after the first, so one run of
`simulate` lists them all) and finds each problem's line from the text's key positions; while the
combinations of a sweep are checked, it holds the problems back to merge them (`merge_combinations`).
`ScenarioError` carries the problems out; `DesignWarning` flags a valid but biased design.
"""

from __future__ import annotations

import difflib
import json
import unicodedata

from ..problems import InputError, Problem
from ..tomlpos import line_of


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


def control_character(text: str, allowed: str = "") -> str | None:
    """The first character of `text` not in `allowed` that breaks a line or is no text (a line break,
    NUL, another control character, a line or paragraph separator), named for a message; None if none."""
    for ch in text:
        if ch not in allowed and unicodedata.category(ch) in ("Cc", "Zl", "Zp"):
            name = {"\n": "a line break", "\r": "a carriage return", "\x00": "a NUL", "\t": "a tab",
                    "\u2028": "a line separator", "\u2029": "a paragraph separator"}
            return f"{name.get(ch, 'a control character')} (U+{ord(ch):04X})"
    return None


def show_value(value) -> str:
    """A value as TOML writes it, for messages: "greedy" with its quotes, true, [1, 2], {k = v}."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # "défaut", not "d\u00e9faut"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {show_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(show_value(v) for v in value) + "]"
    return repr(value)


def type_name(value) -> str:
    """The kind of a TOML value in words: "a whole number", "a table"."""
    return {bool: "a boolean", int: "a whole number", float: "a number", str: "a string",
            list: "a list", dict: "a table"}.get(type(value), type(value).__name__)


def suggest(word: str, known) -> str:
    """"; did you mean 'x'?" for the closest known word, or ""."""
    close = difflib.get_close_matches(str(word), [str(k) for k in known], n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""


class Check:
    """Collects problems; paths are turned into lines through the text's key positions."""

    def __init__(self, file: str, lines: dict[tuple, int]):
        self.file, self.lines = file, lines
        self.problems: list[Problem] = []
        # While checking sweep combinations: the combination's "with k = v, ...: ", its swept
        # (path, line path of the value, "with k = v: ") and the problems found, for merging.
        self.context = ""
        self.swept: list[tuple[tuple, tuple, str]] = []
        self.found: list[tuple] | None = None
        # Keys a table took in where a single value was expected: `[players]` for `players = 4` holds
        # every key below it, which are then not missing (no "no policies" beside the cause)
        self.taken_in: set[str] = set()

    def report(self, path: tuple, message: str):
        """A problem at `path`; while combinations are checked, held back for merging."""
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
                causes = [cause for cause, _ in hits if cause is not None]
                # a place only a swept key names (components.setup.3C) has no line of its own: the key's
                line_path = causes[0][0][:2] if causes and path not in self.lines else path
                self.add(Problem(self.file, line_of(self.lines, line_path), show_path(path), message))
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
        """A problem for each key of `table` not in `known`, with the closest known key."""
        for key in table:
            if key not in known:
                self.report(path + (key,), f"unknown key '{key}'{suggest(key, known)} "
                                           f"(known keys: {', '.join(known)})")

    def table_for_value(self, path: tuple, value, expect: str, example) -> bool:
        """True, with one problem, when `value` is a table where `expect` (a single value) belongs: a
        `[players]` header written for `players = 4`, which also took in the keys below it."""
        if not isinstance(value, dict) or not all(isinstance(part, str) for part in path):
            return False
        name, own = show_path(path), self.lines.get(path, 0)
        if any(self.lines.get(path + (key,), 0) > own for key in value):  # a [name] header: the keys below are its
            self.taken_in.update(value)
            given = f"a [{name}] table was given, which took in the keys below it ({', '.join(value)})"
        else:
            given = f"a table {show_value(value)} was given" if value else f"a [{name}] table was given"
        where = " above the first [table]" if self.taken_in.intersection(value) else ""
        self.report(path, f"must be {expect}; {given}: write {path[-1]} = {show_value(example)}{where}")
        return True

    def integer(self, table: dict, path: tuple, default, low=None, high=None):
        """The whole number at `path` (its last key in `table`), `default` when absent, None when wrong."""
        key = path[-1]
        if key not in table:
            return default
        value = table[key]
        if self.table_for_value(path, value, "a whole number" + (f" {low}..{high}" if high is not None else
                                                                 f" of at least {low}" if low is not None else ""),
                                default if default is not None else low if low is not None else 1):
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            self.report(path, f"expected a whole number, got {type_name(value)} {show_value(value)}")
            return None
        if (low is not None and value < low) or (high is not None and value > high):
            if high is None:
                self.report(path, f"must be at least {low}, got {value}")
            else:
                self.report(path, f"must be {low}..{high}, got {value}")
            return None
        return value

    def string(self, table: dict, path: tuple, default, choices=None):
        """The string at `path` (one of `choices` if given), `default` when absent, None when wrong."""
        key = path[-1]
        if key not in table:
            return default
        value = table[key]
        if self.table_for_value(path, value, f"one of {', '.join(map(show_value, choices))}" if choices else "a string",
                                default if default is not None else choices[0] if choices else "..."):
            return None
        if not isinstance(value, str):
            expect = f"one of {', '.join(map(show_value, choices))}" if choices else "a string"
            self.report(path, f"expected {expect}, got {type_name(value)} {show_value(value)}")
            return None
        if choices is not None and value not in choices:
            self.report(path, f"'{value}' is not one of {', '.join(map(show_value, choices))}"
                              f"{suggest(value, choices)}")
            return None
        return value

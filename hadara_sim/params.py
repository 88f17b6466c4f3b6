"""Policy parameters checked against the policy's declared defaults: same types, same shapes.

A policy declares its parameters with their defaults (`Policy.params`); a value given in a scenario
must look like the default it replaces: a number for a number (finite: no nan or inf), a whole
number for a whole number, a boolean for a boolean, a string for a string, a list of as many
entries for a list (a list of names, such as the decision kinds `search` searches or the cards a
built-in avoids, may have any number of names), a table with known keys for a table.

A policy declares each parameter once (`Policy.declared`, a `Param`): the values it takes, `(low,
high)` inclusive for a number or every number of a list, or a set of choices for a value or every entry
of a list (with at least `fewest` entries), and a word on what it does. Every built-in parameter is
declared, so no value that overflows or indexes out of bounds reaches compiled code; the same check
runs wherever a value enters (a scenario, the command line, `tune`, `make_policy`).
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Param:
    """One parameter's declaration: the values it takes (its type is its default's) and what it does."""

    low: float | None = None        # inclusive bounds of a number, or of every number of a list
    high: float | None = None
    choices: frozenset | None = None  # or the values allowed (for a value, or every entry of a list)
    help: str = ""                  # a word on what it does, for `policies show`
    fewest: int = 0                 # fewest entries of a list of names

    @property
    def limit(self):
        """(low, high), the set of choices, or None when the declaration bounds nothing."""
        if self.choices is not None:
            return self.choices
        return None if self.low is None else (self.low, self.high)

    def allowed(self) -> str:
        """The allowed values in words: "0..10", "-1, 0 or 1", "–" when nothing is bounded."""
        limit = self.limit
        if limit is None:
            return "–"
        if isinstance(limit, tuple):
            return f"{limit[0]}..{limit[1]}"
        names = [str(v) for v in sorted(limit, key=str)]
        text = ", ".join(names[:-1]) + f" or {names[-1]}" if len(names) > 1 else names[0]
        return f"{self.fewest} or more of {text}" if self.fewest else text

    def problems(self, value, path: tuple) -> list[tuple[tuple, str]]:
        """(key path, message) for a value this declaration does not allow."""
        if self.fewest and isinstance(value, (list, tuple)) and len(value) < self.fewest:
            entries = "entry" if self.fewest == 1 else "entries"
            return [(path, f"needs at least {self.fewest} {entries}, got {len(value)}")]
        return [] if self.limit is None else limit_problems(self.limit, value, path)


def parse_value(text: str):
    """A parameter value as typed on a command line (`name=value`): a Python literal (a number, a
    tuple, a quoted string), else the bare text as a string (`rollout=foresight`). Nothing is run."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def kind_of(value) -> str:
    """A value's type in words ("a number", "a list of 5 numbers")."""
    if isinstance(value, (list, tuple)) and value:
        inner = kind_of(value[0]).removeprefix("a ")
        return f"a list of {len(value)} {inner}s" if not isinstance(value[0], str) else f"a list of {inner}s"
    return _kind(value)


def _kind(value) -> str:
    return {bool: "a boolean", int: "a whole number", float: "a number", str: "a string",
            list: "a list", tuple: "a list", dict: "a table"}.get(type(value), type(value).__name__)


def non_finite(value, path: tuple = ()) -> list[tuple[tuple, str]]:
    """Problems for every nan or inf inside `value`."""
    if isinstance(value, float) and not math.isfinite(value):
        return [(path, f"must be a finite number, got {value}")]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in non_finite(v, path + (k,))]
    if isinstance(value, (list, tuple)):
        return [p for i, v in enumerate(value) for p in non_finite(v, path + (i,))]
    return []


def param_problems(default, value, path: tuple = ()) -> list[tuple[tuple, str]]:
    """(key path, message) for every place where `value` does not match the shape of `default`."""
    if default is None:
        return non_finite(value, path)
    if isinstance(default, bool):
        ok = isinstance(value, bool)
    elif isinstance(default, int):
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif isinstance(default, float):
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    elif isinstance(default, str):
        ok = isinstance(value, str)
    elif isinstance(default, (list, tuple)):
        names = all(isinstance(d, str) for d in default)  # a list of names (none by default): any number of them
        if not isinstance(value, (list, tuple)) and names:
            return [(path, f"expected a list of names, any number of them (e.g. {[str(value)]!r}), got "
                           f"{_kind(value)} {value!r}")]
        if not isinstance(value, (list, tuple)):
            return [(path, f"expected a list of {len(default)} entries like {list(default)!r}, got "
                           f"{_kind(value)} {value!r}")]
        if names:
            return [(path + (i,), f"expected a string, got {_kind(v)} {v!r}")
                    for i, v in enumerate(value) if not isinstance(v, str)]
        if len(value) != len(default):
            return [(path, f"expected {len(default)} entries (like the default {list(default)!r}), got "
                           f"{len(value)}")]
        return [p for i, (d, v) in enumerate(zip(default, value)) for p in param_problems(d, v, path + (i,))]
    elif isinstance(default, dict):
        if not isinstance(value, dict):
            return [(path, f"expected a table like {default!r}, got {_kind(value)} {value!r}")]
        problems = [(path + (k,), f"unknown key '{k}' (known: {', '.join(map(str, default))})")
                    for k in value if k not in default]
        return problems + [p for k, v in value.items() if k in default
                           for p in param_problems(default[k], v, path + (k,))]
    else:
        return non_finite(value, path)
    if not ok:
        return [(path, f"expected {_kind(default)} like the default {default!r}, got {_kind(value)} {value!r}")]
    return non_finite(value, path)


def _scalars(value, path: tuple):
    if isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            yield from _scalars(v, path + (i,))
    else:
        yield path, value


def limit_problems(limit, value, path: tuple = ()) -> list[tuple[tuple, str]]:
    """(key path, message) for every number outside `limit` = (low, high), or every entry not among
    the choices of `limit` = a set."""
    problems = []
    for where, v in _scalars(value, path):
        if isinstance(limit, tuple):
            low, high = limit
            if isinstance(v, (int, float)) and not isinstance(v, bool) and not low <= v <= high:
                problems.append((where, f"must lie in {low}..{high}, got {v!r}"))
        elif v not in limit:
            problems.append((where, f"must be one of {', '.join(map(repr, sorted(limit, key=str)))}, got {v!r}"))
    return problems


def check_params(defaults: dict, params: dict, declared: dict | None = None,
                 settings: dict | None = None) -> list[tuple[tuple, str]]:
    """Problems of `params` against a policy's defaults (unknown names are left to the policy, which
    lists its parameters), then of `settings` (default: `params`) against the `declared` `Param`s."""
    problems = [p for key, value in params.items()
                for p in (param_problems(defaults[key], value, (key,)) if key in defaults
                          else non_finite(value, (key,)))]
    checked = params if settings is None else settings
    return problems or [p for key, value in checked.items() if key in (declared or {})
                        for p in declared[key].problems(value, (key,))]

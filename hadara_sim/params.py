"""Policy parameters checked against the policy's declared defaults: same types, same shapes.

A policy declares its parameters with their defaults (`Policy.params`); a value given in a scenario
must look like the default it replaces: a number for a number (finite: no nan or inf), a whole
number for a whole number, a boolean for a boolean, a string for a string, a list of as many
entries for a list (a list of names, such as the decision kinds `search` searches or the cards a
built-in avoids, may have any number of names), a table with known keys for a table.

A policy may also bound a parameter (`Policy.limits`): `(low, high)`, inclusive, for a number or
every number of a list, or a set of choices for a value or every entry of a list. Values that reach
compiled code as an index (a side, an option count) are bounded there, so an out-of-range value is
refused with its allowed range instead of reading out of bounds.
"""

from __future__ import annotations

import ast
import math


def parse_value(text: str):
    """A parameter value as typed on a command line (`name=value`): a Python literal (a number, a
    tuple, a quoted string), else the bare text as a string (`rollout=foresight`). Nothing is run."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


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
        if not isinstance(value, (list, tuple)):
            return [(path, f"expected a list of {len(default)} entries like {list(default)!r}, got "
                           f"{_kind(value)} {value!r}")]
        if all(isinstance(d, str) for d in default):  # a list of names (none by default): any number of them
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


def check_params(declared: dict, params: dict, limits: dict | None = None,
                 settings: dict | None = None) -> list[tuple[tuple, str]]:
    """Problems of `params` against a policy's declared defaults (unknown names are left to the
    policy, which lists its parameters), then of `settings` (default: `params`) against `limits`."""
    problems = [p for key, value in params.items()
                for p in (param_problems(declared[key], value, (key,)) if key in declared
                          else non_finite(value, (key,)))]
    checked = params if settings is None else settings
    return problems or [p for key, value in checked.items() if key in (limits or {})
                        for p in limit_problems(limits[key], value, (key,))]

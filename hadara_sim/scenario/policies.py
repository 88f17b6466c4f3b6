"""The policies of a scenario: its `policies` list or `[[seats]]` tables read into `PolicyEntry`s.

Each entry's spec is resolved (a `file.py:attr` taken from the scenario's folder), its label made
(`policy_label`) and the policy built once with its parameters, so a scenario that names a policy
the registry cannot find, or parameters it does not take, fails with the entry's line.
"""

from __future__ import annotations

import json
from pathlib import Path

from .checks import Check, control_character, show_value, type_name
from .model import POLICY_KEYS, PolicyEntry


def policy_label(spec: str, params: dict) -> str:
    """A policy's default label in results: its name, with the parameters it sets: greedy(coin=0.5)."""
    return spec if not params else f"{spec}({', '.join(f'{k}={show_value(v)}' for k, v in params.items())})"


def read_policies(data: dict, check: Check, base_dir: Path, cache: dict, components) -> tuple[list[PolicyEntry], str]:
    """The policy entries of `policies` or `[[seats]]` and which of the two keys named them."""
    if "policies" in data and "seats" in data:
        check.report(("seats",), "give either `policies` or `[[seats]]`, not both")
        return [], "policies"
    key = "seats" if "seats" in data else "policies"
    if key not in data:
        if not {"policies", "seats"} & check.taken_in:  # not missing: taken in by a [players] table, told there
            check.report((), "no policies: add `policies = [\"greedy\", ...]` or one `[[seats]]` table "
                             "per seat with `policy = \"...\"`")
        return [], key
    raw = data[key]
    if isinstance(raw, (str, dict)):
        raw = [raw]
    if not isinstance(raw, list) or not raw:
        check.report((key,), f"expected a non-empty list of policies, got {type_name(raw)} {show_value(raw)}")
        return [], key
    entries, first_of_label = [], {}  # label -> (index, entry) of the first entry with it
    for i, item in enumerate(raw):
        path = (key, i)
        if isinstance(item, str):
            item = {"policy": item}
        if not isinstance(item, dict):
            # a notebook's own class or instance: the run's workers and its identity need a file to load
            how = ("; a policy is named, not passed: save its class in a file and name it path/to/file.py:Class"
                   if isinstance(item, type) or callable(getattr(item, "decide", None)) else "")
            check.report(path, f"expected a policy name or a table with `policy` and `params`, got "
                               f"{type_name(item)} {show_value(item)}{how}")
            continue
        check.unknown_keys(item, path, POLICY_KEYS)
        spec = check.string(item, path + ("policy",), None)
        if spec is None:
            if "policy" not in item:
                check.report(path, "missing key `policy` (the policy's name, e.g. \"greedy\")")
            continue
        params = item.get("params", {})
        if not isinstance(params, dict):
            check.report(path + ("params",), f"expected a table of parameters, got {type_name(params)}")
            continue
        try:
            json.dumps(params)
        except TypeError:
            check.report(path + ("params",), "parameters must be numbers, strings, booleans, lists or tables")
            continue
        spec = resolve_spec(spec, base_dir)
        label = check.string(item, path + ("label",), None)
        if label is not None and not label.strip():
            check.report(path + ("label",), "a label names the policy's rows in every report: give it a word, "
                                            "or leave `label` out for the policy's own name")
            continue
        odd = control_character(label or "")
        if odd:  # it split the rows of every table, the CSV and Markdown ones, and the results' JSON lines
            check.report(path + ("label",), f"{show_value(label)} holds {odd}: a label names the policy's rows "
                                            "on one line of every report; give it without")
            continue
        if label is None:
            label = policy_label(spec, params)
        cache_key = json.dumps([spec, params, components.base_digest], sort_keys=True)
        if cache_key not in cache:
            cache[cache_key] = policy_problem(spec, params, components)
        if isinstance(cache[cache_key], list):
            for where, message in cache[cache_key]:
                check.report(path + ("params", *where), f"policy '{spec}': {message}")
            continue
        if cache[cache_key] is not None:
            where, message = cache[cache_key]
            check.report(path + ((where,) if where in item else ("policy",)), message)
            continue
        entry = PolicyEntry(spec, params, label)
        j, first = first_of_label.setdefault(label, (i, entry))
        if (first.policy, first.params) != (spec, params):  # the reports would add up two policies' games as one
            check.report(path + (("label",) if "label" in item else ("policy",)),
                         f"label '{label}' is already {key}[{j}]'s ({policy_label(first.policy, first.params)}), "
                         f"a different policy: give each its own label")
            continue
        entries.append(entry)
    return entries, key


def policy_problem(spec: str, params: dict, components):
    """None when the policy can be made with these parameters and play games of `components`; else a
    list of (key path in params, message), or (key of the entry at fault, message)."""
    from ..params import check_params
    from ..policy import PolicyError, playable_on
    from ..registry import PolicyNotFound, about_policy, make_policy, reserved_param

    try:
        defaults = about_policy(spec).params
    except PolicyNotFound as err:
        return ("policy", str(err))
    reserved = reserved_param(params)
    if reserved:
        return [((reserved[0],), reserved[1])]
    problems = check_params(defaults, params)
    if problems:
        return problems
    try:
        policy = make_policy(spec, seed=0, **params)
    except PolicyNotFound as err:
        return ("policy", str(err))
    except ValueError as err:  # a user's policy that fails in any other way is a PolicyNotFound naming it
        return ("params", f"policy '{spec}' does not accept these parameters: {err}")
    try:
        playable_on(policy, components)
    except ValueError as err:  # the expert's weights learned on another set: stopped mid-run as an internal error
        return ("params" if params else "policy", str(err))
    except PolicyError as err:
        return ("policy", str(err))
    return None


def resolve_spec(spec: str, base_dir: Path) -> str:
    """A `file.py:attr` spec with a relative path made absolute: from the scenario's folder, else from
    the working folder (a `--set` typed there): the run's record of it then finds it from anywhere
    (`show-game` from another folder did not)."""
    where, sep, attr = spec.rpartition(":")
    if sep and where.endswith(".py") and not Path(where).is_absolute():
        for candidate in (base_dir / where, Path(where)):
            try:
                found = candidate.is_file()
            except OSError:  # a name too long for the file system: not found here, told as the policy loads
                found = False
            if found:
                return f"{candidate.resolve()}:{attr}"
    return spec

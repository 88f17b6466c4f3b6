"""Finding policies: built-in names, installed entry points, `module:attr` and `file.py:attr`, each
optionally with parameters on the command line (`search:budget=2:rollout=expert`)."""

from __future__ import annotations

import difflib
import hashlib
import importlib
import importlib.util
import re
import sys
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path

from .invocation import program
from .params import Param, parse_value
from .policy import PolicyError, policy_attribute, prints_apart
from .problems import not_a_file, raised
from .signals import users_interrupt

ENTRY_POINT_GROUP = "hadara_sim.policies"
_ABSENT = object()  # a module's attribute that is not there (None may be one that is)


class PolicyNotFound(LookupError):
    """A policy spec that names nothing loadable; the message lists what exists."""


def built_in_policies() -> dict[str, type]:
    """The policies shipped in `policies/`, by name (an installed policy cannot take their names)."""
    from hadara_sim.policies import BUILTIN, REFERENCE

    return {**BUILTIN, **REFERENCE}


def available_policies() -> dict[str, type]:
    """Every policy known by name: the built-ins, then installed entry points."""
    found = built_in_policies()
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        found.setdefault(ep.name, ep)
    return found


def resolve_policy(spec: str):
    """The policy class (or factory) a spec names."""
    built_in = built_in_policies().get(spec)
    if built_in is not None:  # without scanning the installed entry points, which is slow
        return built_in
    known = available_policies()
    if spec in known:
        target = known[spec]
        return target.load() if hasattr(target, "load") else target
    if spec == "human":  # the seat of hadara-sim play (cli/human.py), not a policy a batch can run
        raise PolicyNotFound(f"policy 'human' is you at the keyboard: it takes a seat only in `{program()} play "
                             f"-p 2 --policy human,greedy`; here choose a policy that plays by itself: "
                             f"{', '.join(sorted(known))}")
    if ":" not in spec:
        close = difflib.get_close_matches(spec, list(known), n=1)
        raise PolicyNotFound(f"unknown policy '{spec}'{f' (did you mean {close[0]}?)' if close else ''}. "
                             f"Available: {', '.join(sorted(known))}; or give module:attr or path/to/file.py:attr")
    where, _, attr = spec.rpartition(":")
    if where in known and "=" in attr:  # was "write each parameter ... (greedy:coin=1=VALUE)"
        raise PolicyNotFound(f"policy '{spec}': here a policy is named without parameters ({where}); give them apart "
                             f"(in a scenario: params = {{ {attr.replace('=', ' = ')} }}), or after its name where a "
                             f"command plays it (--policy {spec})")
    if where in known:  # "greedy:coin" was "cannot load policy module 'greedy'"
        raise PolicyNotFound(f"policy '{spec}': write each parameter of {where} as key=value ({where}:{attr}=VALUE)")
    if where == "__main__":  # found in this process only: every worker of a run stopped, "'__main__' has no attribute"
        raise PolicyNotFound(f"policy '{spec}': a policy defined in the notebook or script being run cannot be loaded "
                             f"by a run's worker processes; save it in a file and name it path/to/file.py:{attr}")
    module = _load_module(where)
    try:  # a module's __getattr__ or the target's `decide` property may raise anything
        target = policy_attribute(module, attr, _ABSENT, spec) if attr.isidentifier() else _ABSENT
        decide = policy_attribute(target, "decide", None, spec)
    except PolicyError as err:
        raise PolicyNotFound(str(err)) from None
    if target is _ABSENT:
        raise PolicyNotFound(f"policy '{spec}': '{where}' has no attribute '{attr}'")
    if not callable(target) and not callable(decide):
        raise PolicyNotFound(f"policy '{spec}': '{attr}' is {type(target).__name__}, not a policy class, "
                             "factory or instance (one with a decide(decision) method)")
    return target


def _load_module(where: str):
    """The module of a `module:attr` or `file.py:attr` spec; PolicyNotFound when it cannot load."""
    try:
        with prints_apart():
            return _import(where)
    except PolicyNotFound:
        raise
    except ModuleNotFoundError as err:
        if err.name == "policies" or (err.name or "").startswith("policies."):
            raise PolicyNotFound(f"cannot load policy module '{where}': {moved_policies(err)}") from None
        raise PolicyNotFound(f"cannot load policy module '{where}': {type(err).__name__}: {err}") from None
    except BaseException as err:  # a user's module can fail in any way on import: GeneratorExit, its own Ctrl-C
        if users_interrupt(err):
            raise
        raise PolicyNotFound(f"cannot load policy module '{where}': {raised(err)}") from None


def _import(where: str):
    """The module of `where`, a file.py path or a module name, imported."""
    if where.endswith(".py"):
        path = Path(where)
        if path.is_dir():  # was "does not exist", which sent the user looking for a missing file
            raise PolicyNotFound(f"policy file '{where}' is a directory: name the .py file in it that holds "
                                 "the policy (path/to/file.py:attr)")
        kind = not_a_file(path)
        if kind:  # a named pipe was read (imported) waiting for ever
            raise PolicyNotFound(f"policy file '{where}' is {kind}, not a file")
        if not path.is_file():
            raise PolicyNotFound(f"policy file '{where}' does not exist")
        name = f"_hadara_user_{hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:12]}"
        if name in sys.modules and getattr(sys.modules[name], "__hadara_digest__", None) == code_digest(path):
            return sys.modules[name]
        module_spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(module_spec)
        module.__hadara_digest__ = code_digest(path)
        sys.modules[name] = module  # dataclasses and pickling look the module up by name
        try:
            module_spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
        # joblib's worker processes cannot import it by that name: cloudpickle (joblib's pickler) sends
        # its classes by value instead, so a plugin plays in split batches (`ladder.play_split`) too.
        import cloudpickle
        cloudpickle.register_pickle_by_value(module)
        return module
    return importlib.import_module(where)


def moved_policies(err: ModuleNotFoundError) -> str:
    """The fix for a plugin written against the built-ins' old import path (`policies.styles`): they
    install as `hadara_sim.policies` (a top-level `policies` could clash with another package)."""
    import traceback

    where = next((f for f in reversed(traceback.extract_tb(err.__traceback__)) if "policies" in (f.line or "")), None)
    moved = "the built-in policies are imported from hadara_sim.policies now, no longer from policies"
    if where is None:
        return f"{moved}: write e.g. `from hadara_sim.policies.styles import Balanced`"
    fixed = re.sub(r"(?<![.\w])policies\b", "hadara_sim.policies", where.line)
    return f"{where.filename}, line {where.lineno}: `{where.line}` should read `{fixed}` ({moved})"


def code_digest(path: Path) -> str:
    """sha256 of a policy file's bytes (part of a run's identity)."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]
    except OSError:
        return "unreadable"


def policy_code(spec: str) -> str | None:
    """The digest of the code behind a user policy spec (file.py:attr or module:attr), or None for
    a built-in or installed policy (those are covered by the package versions)."""
    if ":" not in spec or spec in built_in_policies() or spec in available_policies():
        return None
    where = spec.rpartition(":")[0]
    if where.endswith(".py"):
        return code_digest(Path(where))
    module = sys.modules.get(where)
    file = getattr(module, "__file__", None)
    return code_digest(Path(file)) if file else None


def split_spec(spec: str) -> tuple[str, dict]:
    """A command line's policy with its parameters, `name:key=value:...` -> (name, params): the trailing
    parts holding "=" are parameters (a value a Python literal or else its text), so `module:attr` and
    `file.py:attr` take them too (`expert:weights=my.toml`)."""
    parts = spec.split(":")
    named = len(parts)
    while named > 1 and "=" in parts[named - 1]:
        named -= 1
    params = {}
    for part in parts[named:]:
        key, _, value = part.partition("=")
        if not key.strip().isidentifier():
            raise ValueError(f"policy '{spec}': '{part}' is no parameter: write each as key=value "
                             "(search:budget=2:rollout=expert)")
        params[key.strip()] = parse_value(value.strip())
    return ":".join(parts[:named]), params


def reserved_param(params: dict) -> tuple[str, str] | None:
    """(name, message) for a parameter make_policy passes itself (`seed`, `make_policy`), else None: given
    as a parameter, the call stopped with Python's "got multiple values for keyword argument 'seed'"."""
    name = next((k for k in ("seed", "make_policy") if k in params), None)
    if name is None:
        return None
    return name, (f"'{name}' is not a parameter: every policy is given the run's seed (--seed, or the scenario's "
                  "`seed`), each seat its own" if name == "seed" else f"'{name}' is not a parameter")


def make_policy(spec: str, seed: int = 0, **params):
    """A ready policy instance from a spec (`split_spec`: with parameters of its own) and parameters."""
    spec, inline = split_spec(spec)
    reserved = reserved_param(inline)
    if reserved:
        raise ValueError(f"policy '{spec}': {reserved[1]}")
    params = {**inline, **params}
    target = resolve_policy(spec)
    about_policy(spec, target)  # a `params` of the wrong kind is named as such, not as its constructor's failure
    try:
        return _made(spec, target, seed, params)
    except PolicyError as err:  # one of its attributes raised when read (a property)
        raise PolicyNotFound(str(err)) from None


def _made(spec: str, target, seed: int, params: dict):
    """`make_policy`'s policy from the class, factory or instance `spec` resolved to."""
    if isinstance(target, type) or callable(target) and policy_attribute(target, "decide", None, spec) is None:
        builds = {"make_policy": make_policy} if policy_attribute(target, "builds_policies", False, spec) else {}
        try:
            with prints_apart():
                policy = target(seed=seed, **builds, **params)
        except ValueError:  # a parameter refused, with its own words
            raise
        except BaseException as err:  # a user's policy may fail in any way: sys.exit, GeneratorExit, its own Ctrl-C
            if spec in built_in_policies() or users_interrupt(err):
                raise
            call = f"{spec.rpartition(':')[2]}(seed={seed}{''.join(f', {k}=...' for k in params)})"
            how = (" (a policy class or factory is called with seed= and the policy's parameters as keywords, and "
                   "makes an object with a decide(decision) method)" if isinstance(err, TypeError) else "")
            raise PolicyNotFound(f"policy '{spec}' cannot be made: {call} raised {raised(err)}{how}") \
                from None
    elif params:
        raise ValueError(f"policy '{spec}' is an instance and takes no parameters")
    else:
        policy = target
    if not callable(policy_attribute(policy, "decide", None, spec)):
        raise PolicyNotFound(f"policy '{spec}' made a {type(policy).__name__}, which has no "
                             "decide(decision) method: not a policy")
    policy_attribute(policy, "name", None, spec)  # one that raises is said here, with the spec (`policy_name`)
    return policy


@dataclass(frozen=True)
class About:
    """What a policy says of itself: its name, description, each parameter's default and its declaration."""

    name: str
    description: str
    params: dict
    declared: dict


def about_policy(spec: str, target=None) -> About:
    """The `name`, `description`, `params` and `declared` of the policy class, factory or instance `spec`
    names (`target`, if resolved already), as `policies show`, `tune` and a scenario's check of parameters
    read them. One that raises when read, or is of the wrong kind, is a PolicyNotFound naming the policy and
    the attribute: a `params = 5` or a `declared` of plain numbers were "unexpected" errors there."""
    target = resolve_policy(spec) if target is None else target
    try:
        name, description, params, declared = (policy_attribute(target, attr, None, spec)
                                               for attr in ("name", "description", "params", "declared"))
    except PolicyError as err:
        raise PolicyNotFound(str(err)) from None
    params = {} if params is None else params
    if not isinstance(params, dict) or not all(isinstance(k, str) and k.isidentifier() for k in params):
        raise PolicyNotFound(f"policy '{spec}': its `params` is {type(params).__name__} {repr(params):.60}, not a "
                             "dict of each parameter's name and default, e.g. params = {\"coin\": 1.0} (docs/policies.md)")
    declared = {} if declared is None else declared
    wrong = (f"{type(declared).__name__} {repr(declared):.60}" if not isinstance(declared, dict) else
             next((f"{{{k!r}: {type(v).__name__} ...}}" for k, v in declared.items() if not isinstance(v, Param)), None))
    if wrong:
        raise PolicyNotFound(f"policy '{spec}': its `declared` is {wrong}, not a dict of a "
                             "hadara_sim.params.Param per parameter, e.g. declared = {\"coin\": Param(0, 5)} (docs/policies.md)")
    return About(name if isinstance(name, str) and name else spec, description if isinstance(description, str) else "",
                 dict(params), dict(declared))

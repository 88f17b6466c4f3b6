"""Finding policies: built-in names, installed entry points, `module:attr` and `file.py:attr`."""

from __future__ import annotations

import importlib
import importlib.util
from importlib.metadata import entry_points
from pathlib import Path

ENTRY_POINT_GROUP = "hadara_sim.policies"


class PolicyNotFound(LookupError):
    """A policy spec that names nothing loadable; the message lists what exists."""


def available_policies() -> dict[str, type]:
    """Every policy known by name: the built-ins, then installed entry points."""
    from policies import BUILTIN, REFERENCE

    found = {**BUILTIN, **REFERENCE}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        found.setdefault(ep.name, ep)
    return found


def resolve_policy(spec: str):
    """The policy class (or factory) a spec names."""
    known = available_policies()
    if spec in known:
        target = known[spec]
        return target.load() if hasattr(target, "load") else target
    if ":" not in spec:
        raise PolicyNotFound(f"unknown policy '{spec}'. Available: {', '.join(sorted(known))}; "
                             "or give module:attr or path/to/file.py:attr")
    where, _, attr = spec.rpartition(":")
    try:
        if where.endswith(".py"):
            path = Path(where)
            if not path.is_file():
                raise PolicyNotFound(f"policy file '{where}' does not exist")
            module_spec = importlib.util.spec_from_file_location(f"_hadara_user_{path.stem}", path)
            module = importlib.util.module_from_spec(module_spec)
            module_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(where)
    except PolicyNotFound:
        raise
    except Exception as err:  # a user's module can fail in any way on import
        raise PolicyNotFound(f"cannot load policy module '{where}': {type(err).__name__}: {err}") from None
    if not hasattr(module, attr):
        raise PolicyNotFound(f"'{where}' has no attribute '{attr}'")
    return getattr(module, attr)


def make_policy(spec: str, seed: int = 0, **params):
    """A ready policy instance from a spec and parameters."""
    target = resolve_policy(spec)
    if isinstance(target, type) or callable(target) and not hasattr(target, "decide"):
        return target(seed=seed, **params)
    if params:
        raise ValueError(f"policy '{spec}' is an instance and takes no parameters")
    return target

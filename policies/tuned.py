"""Parameters of the built-ins written by `hadara-sim policies tune`, one TOML file per policy.

Each file holds the `params` the command chose, the exact `command` that produced them and the
held-out validation it passed, so a user with a different component set can rerun it.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

TUNED_DIR = Path(__file__).parent / "tuned"


def tuned_params(name: str) -> dict:
    """The tuned parameters of a built-in (tuples for lists), or {} if it was never tuned."""
    path = TUNED_DIR / f"{name}.toml"
    if not path.is_file():
        return {}
    params = tomllib.loads(path.read_text(encoding="utf-8"))["params"]
    return {k: tuple(v) if isinstance(v, list) else v for k, v in params.items()}

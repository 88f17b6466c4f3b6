"""The installs reproduce: constraints.txt pins every dependency, `make` installs through it, and
this environment holds the pinned versions (CI builds it with `make test` from the lock)."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _name(requirement: str) -> str:
    return re.split(r"[\s\[<>=!~;]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def pins() -> dict[str, str]:
    """Package -> version of every pin in constraints.txt."""
    found = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        if line and not line.startswith((" ", "#")):
            name, _, pinned = line.partition("==")
            found[name.strip().lower().replace("_", "-")] = pinned.strip()
    return found


def direct_dependencies() -> list[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return [_name(r) for r in [*project["dependencies"], *project["optional-dependencies"]["test"]]]


def test_every_dependency_is_pinned_to_one_version():
    locked = pins()
    missing = [name for name in direct_dependencies() if name not in locked]
    assert not missing, f"not in constraints.txt: {missing}; run `make lock`"
    assert all(re.fullmatch(r"[0-9][0-9A-Za-z.+!-]*", v) for v in locked.values())


def test_make_installs_through_the_lock():
    makefile = (ROOT / "Makefile").read_text()
    installs = [line for line in makefile.splitlines() if "pip install" in line]
    assert len(installs) >= 3 and all("-c constraints.txt" in line for line in installs)
    assert "make test" in (ROOT / ".ci" / "run").read_text()


def test_this_environment_holds_the_locked_versions():
    locked = pins()
    wrong = {}
    for name in direct_dependencies():
        try:
            installed = version(name)
        except PackageNotFoundError:
            wrong[name] = "not installed"
            continue
        if installed != locked[name]:
            wrong[name] = f"{installed} installed, {locked[name]} locked"
    assert not wrong, f"{wrong}: rebuild the environment with `make clean test`"

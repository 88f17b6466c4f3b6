"""Parameters of the built-ins written by `hadara-sim policies tune`, one TOML file per policy.

Each file holds the `params` the command chose, the exact `command` that produced them and the
held-out validation it passed, so a user with a different component set can rerun it.
"""

from __future__ import annotations

import math
import os
import tomllib
from pathlib import Path

from hadara_sim.problems import NotText, not_a_file, read_text

TUNED_DIR = Path(__file__).parent / "tuned"


def checkout_script(name: str, module: str) -> Path:
    """scripts/`name` at the top of the checkout that holds the policy `module` (its __file__): above
    policies/ (imported as `policies`) or above hadara_sim/ (as `hadara_sim.policies`, a link to
    ../policies there, not resolved); an installed package has none, and then where it would be."""
    tops = Path(module).parents[1:3]
    return next((found for found in (top / "scripts" / name for top in tops) if found.is_file()),
                tops[-1] / "scripts" / name)


def script_command(script: Path, args: str = "") -> str:
    """The command that runs `script` (scripts/ of a checkout) with `args`, in backticks: the script as
    found in a checkout; an installed package has no scripts/ folder, so there the command is said to
    run in a checkout."""
    if script.is_file():
        try:
            relative = os.path.relpath(script)  # scripts/NAME at the checkout's top
        except ValueError:  # another drive (Windows)
            relative = ".."
        shown = script if relative.startswith("..") else relative
        return f"`python {shown}{' ' + args if args else ''}`"
    return (f"`python scripts/{script.name}{' ' + args if args else ''}` in a checkout of hadara-sim (the "
            "installed package has no scripts/ folder)")


def tuned_params(name: str) -> dict:
    """The tuned parameters of a built-in (tuples for lists), or {} if it was never tuned."""
    path = TUNED_DIR / f"{name}.toml"
    if not path.is_file():
        return {}
    params = tomllib.loads(path.read_text(encoding="utf-8"))["params"]
    return {k: tuple(v) if isinstance(v, list) else v for k, v in params.items()}


def read_learned(path: str | Path, where: str, writer: str, text: str | None = None) -> dict:
    """The TOML table of a learned file (the expert's weights, search's position value), or a
    ValueError starting with `where` that says what is wrong and names the `writer` to give it; `text`:
    the file's text as `learned_text` read it."""
    try:
        return tomllib.loads(learned_text(path, where, writer) if text is None else text)
    except tomllib.TOMLDecodeError as err:
        raise ValueError(f"{where}: not a TOML file ({err})") from None


def learned_text(path: str | Path, where: str, writer: str) -> str:
    """The text of a learned file, or a ValueError as `read_learned` words it."""
    kind = not_a_file(Path(path))
    if kind:
        raise ValueError(f"{where}: it is {kind}, not a file; give the file {writer} wrote")
    try:
        return read_text(Path(path))
    except OSError as err:
        raise ValueError(f"{where}: cannot read it ({err.strerror or err}); give the file {writer} wrote") from None
    except NotText as err:  # saved again as UTF-16 by an editor: the raw codec message said neither line nor fix
        raise ValueError(f"{where}: line {err.line}: {err}") from None


LEARNED_LIMIT = 1000.0  # a learned number beyond this is no fitted value (each feature is tens at most)


def learned_row(row, length: int, shape: str, at: str, noun: str) -> list:
    """A learned file's row, checked to be `length` numbers (else ValueError `shape`), each finite and
    within +-LEARNED_LIMIT (else a ValueError at `at` naming the `noun`)."""
    if (not isinstance(row, list) or len(row) != length
            or not all(isinstance(w, (int, float)) and not isinstance(w, bool) for w in row)):
        raise ValueError(shape)
    if not all(math.isfinite(w) and abs(w) <= LEARNED_LIMIT for w in row):
        raise ValueError(f"{at}: every {noun} must be finite and within +-{LEARNED_LIMIT:g}")
    return row

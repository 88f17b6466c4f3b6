"""Parameters as people read them, for `hadara-sim policies show` (their meanings are declared with
them: `Policy.declared`, `hadara_sim.params.Param`)."""

from __future__ import annotations

from hadara_sim.constants import COLOURS


def value_text(name: str, value) -> str:
    """A parameter value as people read it: colour weights by colour name."""
    if name == "colours" and isinstance(value, (list, tuple)) and len(value) == len(COLOURS):
        shown = [f"{c} {v:g}" for c, v in zip(COLOURS, value) if v]
        return ", ".join(shown) if shown else "none"
    return repr(value) if isinstance(value, str) else f"{value}"

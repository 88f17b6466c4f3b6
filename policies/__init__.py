"""Built-in policies. `BUILTIN` maps each name to its class (see docs/policies.md)."""

from .greedy import Greedy
from .planner import Planner
from .random import Random
from .styles import Balanced, Culture, Economy, Military, Sets

BUILTIN = {cls.name: cls for cls in (Random, Greedy, Military, Culture, Economy, Sets, Balanced)}
__all__ = ["BUILTIN", "Planner"]

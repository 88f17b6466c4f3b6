"""Built-in policies. `BUILTIN` maps each name to its class (see docs/policies.md)."""

from .greedy import Greedy
from .planner import Planner
from .random import Random
from .styles import Balanced, BalancedV1, Culture, Economy, Military, Sets

BUILTIN = {cls.name: cls for cls in (Random, Greedy, Military, Culture, Economy, Sets, Balanced, BalancedV1)}
__all__ = ["BUILTIN", "Planner"]

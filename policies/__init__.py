"""Built-in policies. `BUILTIN` maps each name to its class (see docs/policies.md)."""

from .greedy import Greedy
from .planner import Planner
from .random import Random
from .search import Search
from .styles import Balanced, BalancedV1, Culture, Economy, Military, Sets

BUILTIN = {cls.name: cls for cls in (Random, Greedy, Military, Culture, Economy, Sets, Balanced, BalancedV1)}
# Slow policies: available by name, left out of the default ladder and the every-built-in tests.
REFERENCE = {Search.name: Search}
__all__ = ["BUILTIN", "REFERENCE", "Planner"]

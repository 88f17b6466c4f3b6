"""Built-in policies. `BUILTIN` maps each name to its class (see docs/policies.md)."""

from .expert import Expert
from .greedy import Greedy
from .planner import Planner
from .random import Random
from .search import Search
from .styles import Balanced, BalancedV1, Culture, Economy, Foresight, Military, Sets

BUILTIN = {cls.name: cls for cls in (Random, Greedy, Military, Culture, Economy, Sets, Balanced, Foresight)}
# Yardsticks (the slow `search`, `balanced` before tuning) and the learned `expert` (its weights hold
# for one component set): available by name, not in the tournament; the default ladder adds the expert
# where its weights fit the set (`ladder.default_field`).
REFERENCE = {cls.name: cls for cls in (Search, BalancedV1, Expert)}
__all__ = ["BUILTIN", "REFERENCE", "Planner"]

"""Built-in policies. Each module defines one `Policy` subclass; `BUILTIN` maps names to them."""

from .greedy import Greedy
from .random import Random

BUILTIN = {cls.name: cls for cls in (Random, Greedy)}

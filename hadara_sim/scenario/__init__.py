"""Scenario files: what a batch run plays, read from TOML and checked completely.

A scenario names the player count, game kind, component set, the policies and how they take the
seats, setup cards and sides, the board's colour order, cards granted to seats, the number of games,
the seed and the chunk size; a `[sweep]` table plays the run once for every combination of listed
values, on the same deals. `[components.*]` tables override single component values. See
docs/scenarios.md for the format.

`load_scenario(path)` returns a `Scenario` whose `combinations` are fully resolved, or raises
`ScenarioError` listing every problem found with its file, line and key. The parts, top to bottom
(pyproject.toml checks that each imports only those below it):

- `read`: a file, TOML text or plain values into a `Scenario`, the run's own keys;
- `sweep`: the `[sweep]` table, its combinations and the decks their grants leave;
- `config`: one configuration (players, game, assignment, setup, board, grants, overrides);
- `policies`: the policy entries, their labels and whether each can be made;
- `identity`: what decides a run's results, and its digest;
- `model`: the dataclasses and the names of the format;
- `checks`: the problems, with file, line and key.
"""

from .checks import ScenarioError
from .model import Scenario
from .read import load_scenario

__all__ = ["Scenario", "ScenarioError", "load_scenario"]

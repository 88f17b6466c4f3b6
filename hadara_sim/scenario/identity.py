"""The identity of a run: everything that decides its results, and the digest that names it.

A results directory records the digest of its run's identity: a run that finds its own digest there
resumes (or extends) it, one that finds another is refused (unless it overwrites), and a game is
played again from the directory only under the same digest. The identity holds the combinations
as played, the seed and chunk size, the component set's digest, each policy's full settings
(defaults included) and the digest of each user policy's code, but not the number of games: a run
of more games extends one of fewer.
"""

from __future__ import annotations

import hashlib
import json

from .model import Scenario


def run_identity(scenario: Scenario, package_version: str, schema_version: int) -> dict:
    """What decides the results, but for the number of games: two runs with the same identity
    play the same games (a run of more games extends one of fewer)."""
    return {"schema_version": schema_version, "package_version": package_version,
            "seed": scenario.seed, "chunk": scenario.chunk,
            "components_digest": scenario.components.digest,
            "combinations": [c.to_dict(scenario.components) for c in scenario.combinations],
            "policy_settings": policy_settings(scenario), "policy_code": policy_code(scenario)}


def identity_digest(identity: dict) -> str:
    """The 16 hex digits that name an identity."""
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:16]


def policy_code(scenario: Scenario) -> dict:
    """The digest of each user policy's code (file.py:attr, module:attr): a policy edited
    between an interrupted run and its resume would mix two policies in one dataset."""
    from ..registry import policy_code as code_digest

    specs = {e.policy for c in scenario.combinations for e in c.config.policies}
    return {spec: digest for spec in sorted(specs) if (digest := code_digest(spec)) is not None}


def policy_settings(scenario: Scenario) -> dict:
    """Every policy's full parameters, defaults included, by label: a change of a built-in's
    defaults changes what a run plays, so a directory of the old play is not resumed."""
    from ..registry import make_policy

    settings = {}
    for combo in scenario.combinations:
        for entry in combo.config.policies:
            if entry.label not in settings:
                policy = make_policy(entry.policy, **entry.params)
                settings[entry.label] = json.loads(json.dumps(getattr(policy, "settings", {}), default=str))
    return settings

"""`search`: determinised flat Monte Carlo, a teacher for the fast bots (slow by design).

At each decision of the searched kinds, every legal option is tried in `budget` determinised copies of
the game (the forward model, `hadara_sim.forward`): the acting seat then plays on with the `rollout`
policy (any policy but search; default `expert`), the other seats with the `opponent` policy as a
model of the opponents (default: the rollout policy), through `depth` epochs (the current one
counted; default 1): a copy stopped before the game's end is scored by the learned position value
(`value.py`), which measured both faster and stronger than playing every copy to the end
(docs/policies.md). Search exploits its model: its win rate against a field it models measures how
well it exploits the model, not its strength (measure that head to head against fields it does not
model, scripts/round_robin.py). All options and copies of all games of the decision are played as
one batch, on the same copies (common random numbers). The option with the best mean margin (own
total minus the best other total) is taken; other kinds are left to the rollout policy. The engines
get the forward model from their caller (the runs and the commands pass it): a game played without
one stops with a message saying so.
"""

from __future__ import annotations

import numpy as np

from hadara_sim.actions import KINDS
from hadara_sim.constants import EPOCHS
from hadara_sim.kernels.restrict import RESTRICTION, restricted
from hadara_sim.params import Param
from hadara_sim.policy import Decision, Policy, playable_on

from .random import _mix
from .value import VALUE_FILE, PositionValue, read_value


class Search(Policy):
    name = "search"
    description = ("Determinised flat Monte Carlo: tries every legal option in `budget` sampled copies of "
                   "the game played on by the rollout policy (default: expert) to the end of the epoch "
                   "(`depth`), scored by a learned position value, and takes the best mean margin. Slow; a "
                   "teacher that exploits the field it models, not a yardstick.")
    params = {"budget": 8, "rollout": "expert", "opponent": "", "depth": 1, "value": "",
              "kinds": ("side", "wheel", "draw", "pick", "colony", "tile"), "max_options": 12, "avoid": (), "seek": ()}
    # budget 0 or max_options under 2 would search nothing and play exactly like the rollout policy.
    declared = {
        "budget": Param(1, 1000, help="determinised copies of the game each candidate option is played out in "
                                      "(more = stronger and slower)"),
        "rollout": Param(help="the policy that plays the copies on, for the searching seat and, unless "
                              "opponent names another, its opponents (any policy name but search; default expert)"),
        "opponent": Param(help="the policy the opponents play the copies on with: search's model of them (any "
                               "policy name but search; \"\": the rollout policy)"),
        "depth": Param(1, 3, help="epochs each copy is played through, the current one counted: 3 plays it to the "
                                  "end; 1 or 2 stop it at the end of an earlier epoch, where the learned position "
                                  "value (the value file) predicts each seat's final total"),
        "value": Param(help="the position value file written by scripts/fit_value.py (\"\": the built-in "
                            "policies/tuned/position-value.toml, fitted on the shipped component set); read "
                            "only with depth below 3"),
        "kinds": Param(choices=frozenset(KINDS), fewest=1,
                       help="the decision kinds that are searched; any other kind is left to the rollout policy "
                            "(medals only with depth 3: at depth 1 the position value prices coins above the "
                            "medals they buy: searched medals won 16% of 2-player games against the expert)"),
        "max_options": Param(2, 64, help="most options tried at one decision, starting with the rollout policy's "
                                         "own choice"),
        **RESTRICTION,
    }

    # The registry hands over its `make_policy` to build the rollout policy by name (a user's too): the
    # bots sit below the registry, so search does not import it.
    builds_policies = True

    def __init__(self, seed: int = 0, make_policy=None, **params):
        super().__init__(seed, **params)
        if make_policy is None:
            raise TypeError("search builds its rollout policy by name: make it with "
                            "hadara_sim.registry.make_policy('search', ...)")
        for key in ("rollout", "opponent"):
            if self.settings[key] == self.name:
                raise ValueError(f"policy 'search' parameter {key}: must not be 'search' itself (each rollout "
                                 f"would search again without end); use a fast policy such as 'expert'")
        # The searching seat plays on under its restriction; its rivals are modelled without one.
        restriction = {k: self.settings[k] for k in ("avoid", "seek") if self.settings[k]}
        self.rollout = _named(make_policy, "rollout", self.settings["rollout"], seed=seed, **restriction)
        opponent = self.settings["opponent"] or self.settings["rollout"]
        self.rivals = (_named(make_policy, "opponent", opponent, seed=seed)
                       if restriction or opponent != self.settings["rollout"] else self.rollout)
        self.value = (read_value(self.settings["value"] or VALUE_FILE)
                      if int(self.settings["depth"]) < len(EPOCHS) else None)

    def check_components(self, components) -> None:
        """Stop unless its value and the policies it plays on with were learned on this set."""
        if self.value is not None:
            self.value.check(components)
        for policy in {id(p): p for p in (self.rollout, self.rivals)}.values():
            playable_on(policy, components)

    def decide(self, d: Decision) -> np.ndarray:
        if d.kind not in self.settings["kinds"]:
            return self.rollout.decide(d)
        if d.forward is None:
            raise RuntimeError("search needs the forward model: pass forward=hadara_sim.forward.Forward to "
                               "BatchGame, play_batch or Game (hadara-sim's runs and commands do)")
        if self.value is not None:
            self.value.check(d.forward.c)
        options = self.candidates(d)
        if options.shape[1] == 1:
            return options[:, 0]
        margin = margins(d, options, int(self.settings["budget"]), self.rollout, self.keys(d), self.rivals,
                         int(self.settings["depth"]), self.value)
        return options[np.arange(len(d)), margin.argmax(axis=1)]

    def candidates(self, d: Decision) -> np.ndarray:
        """(games, K) legal options (as the restriction leaves them), the rollout policy's own choice
        first; short rows repeat it."""
        legal = restricted(self, d).copy()
        first = self.rollout.decide(d)
        rows = np.arange(len(d))
        legal[rows, first] = False
        k = min(int(self.settings["max_options"]) - 1, int(legal.sum(axis=1).max()))
        order = np.argsort(~legal, axis=1, kind="stable")[:, :k]
        taken = np.take_along_axis(legal, order, axis=1)
        rest = np.where(taken, order, first[:, None])
        return np.concatenate([first[:, None], rest], axis=1)

    def keys(self, d: Decision) -> np.ndarray:
        """A seed per game from (policy seed, game, decision number): the same in any batch."""
        return decision_keys(self.seed, d)


def _named(make_policy, key: str, spec: str, **kwargs):
    """The policy a parameter names; an unknown name is a fault of that parameter, not of search."""
    try:
        return make_policy(spec, **kwargs)
    except LookupError as err:  # the registry's PolicyNotFound: search sits below the registry
        raise ValueError(f"policy 'search' parameter {key}: {err}") from None


def stop_epoch(d: Decision) -> int:
    """The epoch of the decision (a set-up side choice counts as epoch I's)."""
    return max(int(np.max(d.view.epoch)), EPOCHS[0])


def decision_keys(seed: int, d: Decision) -> np.ndarray:
    """A seed per game of `d` from (seed, game, decision number): the same in any batch."""
    with np.errstate(over="ignore"):
        key = _mix(np.uint64(seed) ^ _mix(d.game_id.astype(np.uint64)) ^ d.serial.astype(np.uint64))
    return (key >> np.uint64(2)).astype(np.int64)


def margins(d: Decision, options: np.ndarray, copies: int, policy, seeds, rivals=None, depth: int = len(EPOCHS),
            value: PositionValue | None = None) -> np.ndarray:
    """(games, K) mean margin (own total less the best other) of each candidate option of `d`, played
    on in `copies` determinised copies by `policy` on the deciding seat and `rivals` (default: `policy`)
    on the others: to the end, or through `depth` epochs (the current one counted), each seat's total
    then `value`'s prediction."""
    rivals = policy if rivals is None else rivals
    last = min(stop_epoch(d) + depth - 1, EPOCHS[-1])
    sheet = d.forward.play(options, copies, policy, rivals, seed=seeds, last_epoch=last,
                           value=None if value is None else value.totals)
    total = sheet["total"].astype(np.float64)  # (g, K, c, P)
    me = d.view.player.astype(np.int64)
    rows = np.arange(len(d))
    mine = total[rows, :, :, me]
    others = total.copy()
    others[rows, :, :, me] = -np.inf
    return (mine - others.max(axis=3)).mean(axis=2)

"""The proposer: the change set the surrogates predict fair at every player count (see the package
docstring)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from .. import balance
from .plan import SIDES, Change, FitPlan, allowed, worth
from .surrogate import Surrogate

def side_options(side: str, plan: FitPlan, now: dict[str, dict[str, int]]) -> list[dict[str, int]]:
    """Every change of one side with at most `max_changed` values changed, in the order the proposer
    prefers them: fewest changed values, then the smallest worth, then the smallest steps."""
    per_field = {f: [d for d in allowed(f, now[side][f], plan.reach) if d] for f in plan.fields}
    options: list[dict[str, int]] = [{}]
    for k in range(1, plan.max_changed + 1):
        for fields in itertools.combinations(plan.fields, k):
            for deltas in itertools.product(*(per_field[f] for f in fields)):
                options.append(dict(zip(fields, deltas)))
    return sorted(options, key=lambda c: (len(c), worth(c), tuple(sorted((abs(d), f) for f, d in c.items()))))


@dataclass
class Proposal:
    change: Change
    predicted: dict[int, np.ndarray]           # players -> predicted share of every side
    blocked: dict[str, str] = field(default_factory=dict)   # side -> why no change in range is fair

    def worst(self, sides: list[str]) -> float:
        """The largest predicted distance from 1/P over the named sides and player counts."""
        return max(abs(self.predicted[p][SIDES.index(s)] - 1 / p) for p in self.predicted for s in sides)


def propose(surrogates: dict[int, Surrogate], plan: FitPlan, now: dict[str, dict[str, int]],
            around: Change | None = None, passes: int = 20) -> Proposal:
    """The change set the surrogates predict fair (each side within `aim` x margin of 1/P at every
    player count), side by side, the furthest from fair first, until a whole pass moves no side. A
    side's change is judged by every named side's predicted share (`Surrogate.option_shares`): it
    takes the first that makes it fair and leaves no other named side further beyond the aim than it
    was, else the fair one that harms them least (planted: a side whose cheapest fix costs another
    side its share through the table terms takes a fix that does not).
    With `around` (the set the last round played) the passes start from it, every value stays within
    one step of it, and each side takes the smallest move from it that is predicted fair (then the
    fewest values, then the smallest worth): the surrogate is trusted near the games it has seen, and
    a linear fit far from them is not (measured: free proposals jumped between distant sets from round
    to round, each predicted fair and played 4-9 pp off; proposals re-chosen by fewest values each
    round swapped one value for another and played a new direction the fit knew least)."""
    options = {s: [o for o in side_options(s, plan, now)
                   if around is None or all(abs(o.get(f, 0) - around.get(s, {}).get(f, 0)) <= balance.STEPS[f]
                                            for f in plan.fields)]
               for s in plan.sides}
    if around is not None:
        for s in plan.sides:
            last = around.get(s, {})
            options[s].sort(key=lambda o: worth({f: o.get(f, 0) - last.get(f, 0) for f in plan.fields}))
    tol = plan.aim * plan.margin
    change: Change = {s: c for s, c in (around or {}).items() if s in plan.sides and c}
    blocked: dict[str, str] = {}
    named = [SIDES.index(s) for s in plan.sides]
    fair = np.array([1 / p for p in surrogates])

    def excess(side: str, opts: list[dict[str, int]]) -> np.ndarray:
        """(options, named sides) how far beyond `tol` each named side's worst player count lies when
        `side` takes each option (<= 0: fine)."""
        shares = np.array([m.option_shares(change, side, opts) for m in surrogates.values()])
        return np.max(np.abs(shares[..., named] - fair[:, None, None]) - tol, axis=0)

    for _ in range(passes):
        current = np.max([np.abs(m.shares(change)[named] - 1 / p) for p, m in surrogates.items()], axis=0) - tol
        order = [plan.sides[k] for k in np.argsort(-current, kind="stable")]
        moved = False
        blocked = {}
        for s in order:
            me = plan.sides.index(s)
            over = excess(s, options[s] + [change.get(s, {})])
            own, others = over[:, me], np.delete(over, me, axis=1).max(1, initial=-np.inf)
            # fair itself, leaving no other named side further beyond the aim than it is now; else fair
            # itself with the least harm to the others (they move in their turn)
            fine = np.flatnonzero(own[:-1] <= 0)
            if len(fine):
                kind = fine[others[fine] <= max(others[-1], 0.0)]
                fine = kind if len(kind) else fine[[np.argmin(others[fine])]]
            pick = int(fine[0]) if len(fine) else int(np.argmin(own[:-1]))
            if not len(fine):
                best = np.array([m.option_shares(change, s, [options[s][pick]])[0, SIDES.index(s)]
                                 for m in surrogates.values()])
                blocked[s] = (f"no change of at most {plan.max_changed} of its values within {plan.reach} steps"
                              f"{' (and one step of the set last played)' if around is not None else ''} "
                              f"brings it within {100 * tol:g} pp of 1/P at every player count (the surrogate's "
                              f"best, {change_words(options[s][pick]) or 'no change'}, predicts "
                              + ", ".join(f"{100 * x:.1f} % at {p} players" for p, x in zip(surrogates, best))
                              + f": {100 * own[pick]:.1f} pp beyond)")
            if options[s][pick] != change.get(s, {}):
                others_ = {k: v for k, v in change.items() if k != s}
                change = others_ | ({s: options[s][pick]} if options[s][pick] else {})
                moved = True
        if not moved:
            break
    predicted = {p: m.shares(change) for p, m in surrogates.items()}
    return Proposal(change, predicted, blocked)


def change_words(change: dict[str, int]) -> str:
    return ", ".join(f"{f} {d:+d}" for f, d in change.items())

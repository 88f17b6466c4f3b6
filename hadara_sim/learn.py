"""Expert iteration for `expert` (Anthony et al. 2017): search labels better card decisions, a fit
learns them, and new weights replace the old only when they beat them head to head.

One iteration: the current expert plays itself (`label`); at a sample of its draws, picks and
statues (or of the kinds the budget names) every legal option is played on in determinised copies
with the current expert on every seat (the forward model, as `search` does), each option's label
being its mean margin (own total less the best other).
`fit` regresses the labels, within each decision, on foresight's value of the option and the option's
features (one block per epoch and kind): the new weights are the features' coefficients over the
value's, so that value + weights . features ranks options as the labels do. An iteration moves the
weights `step` of the way from the current ones to the fitted ones (1: the fit itself; below 1 a damped
step, as conservative policy iteration does, for when the fit overshoots; a weight the labels do not
bear on keeps its value). The new weights are kept
only if they beat the current ones head to head on fresh deals, seats rotated, at every player count
trained together (the lower end of the pooled 95 % Wilson interval above one half); the iterations
go on while they do. Training can go on from a weights file (`lineage` reads its iterations): the
file written then holds every iteration, each with the command that ran it.
"""

from __future__ import annotations

import dataclasses
import time
import tomllib
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .components import ComponentSet
from .constants import EPOCHS
from .deal import make_deals
from .engine.game import play_batch
from .forward import Forward, subset
from .kernels import expert as kernel
from .kernels.layout import KIND_CODE
from .policies.expert import Expert, StatueTrees, Weights
from .policies.random import uniform
from .policies.search import decision_keys, margins
from .policies.value import VALUE_FILE, PositionValue, read_value
from .policy import Kernel, Policy
from .problems import ascii_whole
from .report.inference import rate_interval
from .tune import match, toml_string


@dataclass(frozen=True)
class Budget:
    """What one training run spends."""

    players: tuple[int, ...] = (2, 4)
    iterations: int = 3
    games: int = 60           # self-play games per player count whose decisions are labelled
    rate: float = 0.25        # share of the card-decision steps labelled
    copies: int = 8           # determinised copies per option
    duel_games: int = 2000    # head-to-head games per player count
    seed: int = 0
    step: float = 1.0         # share of the way from the current weights to the fitted ones
    alone: bool = False       # learn the weights of the one player count of `players` for it alone
    depth: int = 3            # epochs the copies are played through, the current one counted (search's depth)
    value: str = ""           # the position value file the shorter copies stop at ("": the built-in one)
    kinds: tuple = kernel.KINDS  # the decision kinds labelled (the other kinds' weights stay as they are)
    statue_model: str = "linear"  # "trees": the statues valued by regression trees (`fit_trees`), not weights


@dataclass
class Samples:
    """Labelled options, one row per legal option of a labelled decision."""

    decision: list = field(default_factory=list)  # per row: the decision's number in the run
    label: list = field(default_factory=list)     # mean margin of the option in the copies
    value: list = field(default_factory=list)     # foresight's value of the option
    block: list = field(default_factory=list)     # the weights' block (epoch, kind)
    features: list = field(default_factory=list)  # (FEATURES,) the option's features
    inputs: list = field(default_factory=list)    # a statue option's (STATUE_INPUTS,) for its trees, else None

    def __len__(self) -> int:
        return len(self.label)

    @property
    def decisions(self) -> int:
        return self.decision[-1] + 1 if self.decision else 0


@dataclass
class Iteration:
    """One iteration: what it labelled and fitted, and how the new weights did against the old."""

    number: int
    decisions: int
    options: int
    value_coefficient: float   # the labels' slope on foresight's value (must be positive)
    shares: dict               # players -> (games, win share, (low, high)) of new against old
    pooled: tuple              # (games, win share, (low, high)) over the player counts
    accepted: bool
    step: float                # share of the way from the current weights to the fitted ones
    command: str               # the training command that ran it ("": the run being written)
    seconds: float
    alone: int = 0             # the player count whose own weights it learned (0: the shared ones)
    kinds: tuple = kernel.KINDS  # the decision kinds it labelled
    model: str = "linear"      # how it valued the statues: "linear" (weights) or "trees" (`fit_trees`)


class Teacher(Policy):
    """The expert on every seat, labelling a sample of its decisions of `kinds` (some of the learned
    `kernel.KINDS`) by search (rollouts and opponents: the expert itself) into `samples`; every other
    decision is the expert's, compiled.
    Each game's decision is in the sample with probability `rate`, drawn from (seed, game, decision
    number): the same in any batch, and spread over every epoch and kind (a draw per decision of the
    whole batch, whose games reach their decisions together, could leave an epoch's picks out)."""

    name = "teacher"

    def __init__(self, expert: Expert, copies: int, rate: float, seed: int, samples: Samples, depth: int = 3,
                 value: PositionValue | None = None, kinds: tuple = kernel.KINDS, every_face: bool = False):
        super().__init__(seed)
        self.expert, self.copies, self.rate, self.samples = expert, copies, rate, samples
        self.kinds = tuple(kinds)
        self.every_face = every_face  # label the statue faces foresight does not weigh too (trees value them)
        self.depth, self.value = depth, value
        self.sampling = int(np.random.SeedSequence([seed, 1]).generate_state(1)[0])  # apart from the copies' keys

    def kernel(self, components, players=None, advanced=True) -> Kernel:
        spec = self.expert.kernel(components, players, advanced)
        return spec._replace(kinds=spec.kinds - set(self.kinds))

    def decide(self, d):
        choice = self.expert.decide(d)
        if d.kind in self.kinds:
            rows = np.flatnonzero(uniform(self.sampling, d.game_id, d.serial) < self.rate)
            if len(rows):
                self.label(dataclasses.replace(subset(d, rows), forward=d.forward.cut(rows)))
        return choice

    def label(self, d) -> None:
        """Every legal option of the decision that foresight weighs (with `every_face`, every statue
        option) played on by search; its rows into `samples`."""
        spec = self.expert.kernel(d.view.components, d.view.players)
        values, features = kernel.learned_options(spec, d)
        statue = d.kind == "statue"
        legal = np.asarray(d.legal) & (np.isfinite(values) | (statue and self.every_face))
        count = legal.sum(axis=1)
        order = np.argsort(~legal, axis=1, kind="stable")[:, :int(count.max())]
        options = np.where(np.take_along_axis(legal, order, axis=1), order, order[:, :1])  # pad: the first again
        margin = margins(d, options, self.copies, self.expert, decision_keys(self.seed, d), depth=self.depth,
                         value=self.value)
        epochs = np.asarray(d.view.epoch, np.int64)
        for g in np.flatnonzero(count > 1):
            number = self.samples.decisions
            block = kernel.block(KIND_CODE[d.kind], epochs[g])
            for k in range(int(count[g])):
                option = options[g, k]
                self.samples.decision.append(number)
                self.samples.label.append(margin[g, k])
                self.samples.value.append(values[g, option])
                self.samples.block.append(block)
                self.samples.features.append(features[g, option, :len(kernel.FEATURES)])
                self.samples.inputs.append(features[g, option] if statue else None)


def label(components: ComponentSet, expert: Expert, budget: Budget, iteration: int,
          samples: Samples | None = None) -> Samples:
    """Self-play games of `expert` at each player count, a sample of their card decisions labelled."""
    samples = samples if samples is not None else Samples()
    value = read_value(budget.value or VALUE_FILE) if budget.depth < len(EPOCHS) else None
    if value is not None:
        value.check(components)
    for players in budget.players:
        seed = np.random.SeedSequence([budget.seed, iteration, players, 0])
        deals = make_deals(components, players, budget.games, seed=seed, advanced=True)
        teacher = Teacher(expert, budget.copies, budget.rate, int(seed.generate_state(1)[0]), samples,
                          budget.depth, value, budget.kinds, budget.statue_model == "trees")
        play_batch(deals, components, [teacher], np.zeros((budget.games, players), np.int64), forward=Forward)
    return samples


class LearnError(Exception):
    """The labels cannot be fitted (too few, or not following foresight's values at all)."""


def fit(samples: Samples) -> tuple[np.ndarray, float]:
    """New weights (kernel order) and the labels' slope on foresight's value: an OLS fit (statsmodels)
    within decisions (labels, values and features less their decision's mean) of the labels on the
    value and the features in their blocks. A weight no labelled decision bears on (its block not
    labelled, or its feature alike across the options of every decision) is NaN: not learned."""
    # imported here: statsmodels (with scipy.stats and pandas) takes seconds to load, which the training
    # scripts' --help and their refusals of bad input paid
    from statsmodels.regression.linear_model import OLS
    from statsmodels.tools.sm_exceptions import SingularMatrixWarning

    if samples.decisions < 10:
        raise LearnError(f"only {samples.decisions} decisions labelled: give more games or a higher rate")
    decision = np.array(samples.decision)
    F = len(kernel.FEATURES)
    X = np.zeros((len(samples), 1 + kernel.WEIGHTS))
    X[:, 0] = samples.value
    phi = np.array(samples.features)
    block = np.array(samples.block)
    for b in range(kernel.BLOCKS):
        X[block == b, 1 + b * F:1 + (b + 1) * F] = phi[block == b]
    y = np.array(samples.label)
    scale = np.maximum(1.0, np.abs(X).max(axis=0))
    X = _within(X, decision)
    # a feature never seen to differ within a decision is not learned (the group means leave ~1e-16)
    varies = np.flatnonzero(np.abs(X).max(axis=0) > 1e-9 * scale)
    with warnings.catch_warnings():  # features tied within every decision: pinv's least-norm split is fine
        warnings.simplefilter("ignore", SingularMatrixWarning)
        result = OLS(_within(y, decision), X[:, varies]).fit()
    coefficients = np.full(X.shape[1], np.nan)
    coefficients[varies] = result.params
    slope = float(coefficients[0])
    if not slope > 0:
        raise LearnError(f"the labels do not rise with foresight's value (slope {slope:.3g}): more games or copies")
    return coefficients[1:] / slope, slope


TREES, TREE_DEPTH, TREE_LEAF, TREE_RATE = 50, 4, 40, 0.1  # the statue trees' size: each is walked at each statue option


def fit_trees(samples: Samples, seed: int) -> StatueTrees:
    """Statue trees fitted to the labelled statue options: gradient-boosted regression trees
    (scikit-learn, each on half the options, seeded) of the labels less their decision's mean on the
    options' `kernel.STATUE_INPUTS`, so that the trees rank a decision's options as the labels do."""
    from sklearn.ensemble import GradientBoostingRegressor

    rows = [i for i, x in enumerate(samples.inputs) if x is not None]
    decision = np.array(samples.decision)[rows]
    if len(np.unique(decision)) < 10:
        raise LearnError(f"only {len(np.unique(decision))} statue decisions labelled: give more games or a higher "
                         f"rate")
    X = np.array([samples.inputs[i] for i in rows])
    y = _within(np.array(samples.label)[rows], decision)
    model = GradientBoostingRegressor(n_estimators=TREES, max_depth=TREE_DEPTH, min_samples_leaf=TREE_LEAF,
                                      learning_rate=TREE_RATE, subsample=0.5, random_state=seed).fit(X, y)
    return export_trees(model)


def export_trees(model) -> StatueTrees:
    """A fitted scikit-learn gradient boosting regressor as `StatueTrees`: every tree's nodes one after
    another (children renumbered; a leaf's children -1), the shrinkage in the leaves' values."""
    roots, parts = [], []
    for estimator in model.estimators_[:, 0]:
        tree, at = estimator.tree_, sum(len(p[0]) for p in parts)
        leaf = tree.children_left < 0
        roots.append(at)
        parts.append((np.where(leaf, -1, tree.feature), np.where(leaf, 0.0, tree.threshold),
                      np.where(leaf, -1, tree.children_left + at), np.where(leaf, -1, tree.children_right + at),
                      np.where(leaf, model.learning_rate * tree.value[:, 0, 0], 0.0)))
    feature, threshold, left, right, value = (np.concatenate(column) for column in zip(*parts))
    return StatueTrees(float(np.ravel(model.init_.constant_)[0]), np.array(roots, np.int64), feature.astype(np.int64),
                       threshold, left.astype(np.int64), right.astype(np.int64), value)


def _without_statues(samples: Samples) -> Samples:
    """The samples but the statue options (which trees value), decisions numbered again from 0."""
    rows = [i for i, x in enumerate(samples.inputs) if x is None]
    kept = Samples()
    if rows:
        kept.decision = np.unique(np.array(samples.decision)[rows], return_inverse=True)[1].tolist()
    for name in ("label", "value", "block", "features", "inputs"):
        setattr(kept, name, [getattr(samples, name)[i] for i in rows])
    return kept


def _within(a: np.ndarray, decision: np.ndarray) -> np.ndarray:
    """Each row of `a` less the mean of its decision's rows."""
    import pandas as pd

    frame = pd.DataFrame(a.reshape(len(a), -1))
    return (frame - frame.groupby(decision).transform("mean")).to_numpy().reshape(a.shape)


def duel(components: ComponentSet, new: Expert, old: Expert, budget: Budget, iteration: int) -> tuple[dict, tuple]:
    """`new` against `old` on fresh deals at each player count, seats rotated: per count and pooled,
    (games, win share, 95 % Wilson interval)."""
    per, pooled = {}, []
    for players in budget.players:
        m = match(components, new, old, players, budget.duel_games,
                  np.random.SeedSequence([budget.seed, iteration, players, 1]), True)
        per[players] = (len(m.shares), float(m.shares.mean()), m.wilson())
        pooled.append(m.shares)
    shares = np.concatenate(pooled)
    return per, (len(shares), float(shares.mean()), rate_interval(shares))


def train(components: ComponentSet, budget: Budget, start: Weights | None = None, say=print,
          first: int = 1) -> tuple[Weights, list]:
    """Expert iteration from `start` (no correction: foresight) while new weights beat the current,
    the iterations numbered from `first` (their seeds follow the number): the weights kept and every
    iteration's record."""
    current = start or Weights("(foresight)", components.digest, np.zeros(kernel.WEIGHTS))
    alone = budget.players[0] if budget.alone else None
    trees = budget.statue_model == "trees" and "statue" in budget.kinds
    if budget.alone and len(budget.players) != 1:
        raise LearnError("weights of a player count's own are learned at that one count: give one player count")
    if trees and budget.alone:
        raise LearnError("statue trees are shared by every player count (the count is one of their inputs): "
                         "learn them without --alone")
    weighs = not trees or set(budget.kinds) - {"statue"}  # learns weights, not only trees
    own = sorted(set(current.by_players) & set(budget.players)) if alone is None and weighs else []
    if own:
        raise LearnError(f"the starting weights have weights of their own at {', '.join(map(str, own))} players, "
                         f"which the shared ones would not change there: learn those alone")
    history = []
    for number in range(first, first + budget.iterations):
        began = time.perf_counter()
        say(f"iteration {number}: labelling {budget.games} self-play games per player count "
            f"({', '.join(map(str, budget.players))}P), {budget.rate:.0%} of {', '.join(budget.kinds)} decisions, "
            f"{budget.copies} copies")
        samples = label(components, Expert.with_weights(current), budget, number)
        linear = _without_statues(samples) if trees else samples
        fitted, slope = fit(linear) if len(linear) or not trees else (np.full(kernel.WEIGHTS, np.nan), np.nan)
        before = current.at(alone)
        vector = np.where(np.isnan(fitted), before, before + budget.step * (fitted - before))
        say(f"iteration {number}: fitted on {samples.decisions} decisions ({len(samples)} options); slope on "
            f"foresight's value {slope:.3f}{'; statue trees' if trees else ''}; step {budget.step:g}; new against "
            f"current, {budget.duel_games} games per player count")
        new = current.replaced(vector, alone, f"(iteration {number})")
        if trees:
            new = dataclasses.replace(new, trees=fit_trees(samples, int(np.random.SeedSequence(
                [budget.seed, number, 2]).generate_state(1)[0])))
        per, pooled = duel(components, Expert.with_weights(new), Expert.with_weights(current), budget, number)
        games, share, (low, high) = pooled
        accepted = low > 0.5
        history.append(Iteration(number, samples.decisions, len(samples), slope, per, pooled, accepted,
                                 budget.step, "", time.perf_counter() - began, alone or 0, tuple(budget.kinds),
                                 "trees" if trees else "linear"))
        say(f"iteration {number}: new weights win {100 * share:.1f}% [{100 * low:.1f}, {100 * high:.1f}] of "
            f"{games} games: {'kept' if accepted else 'not better; the current weights stay'} "
            f"({history[-1].seconds:.0f} s)")
        if not accepted:
            break
        current = new
    return current, history


def lineage(path) -> list[Iteration]:
    """The iterations recorded in a weights file written by `weights_toml`, each with its command (a
    file from before iterations named theirs: the file's command)."""
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        before_statues = kernel.KINDS[:kernel.EARLIER_KINDS[0]]  # what iterations naming no kinds labelled
        history = []
        for it in data.get("iterations", []):
            shares = {int(key[1:]): (r["games"], r["win_share"], tuple(r["ci95"]))
                      for key, r in it.items() if key[:1] == "p" and ascii_whole(key[1:]) is not None}
            history.append(Iteration(it["number"], it["decisions"], it["options"], it["value_coefficient"], shares,
                                     (it["games"], it["win_share"], tuple(it["ci95"])), it["accepted"],
                                     it.get("step", 1.0), it.get("command", data["command"]), it["seconds"],
                                     it.get("alone", 0), tuple(it.get("kinds", before_statues)),
                                     it.get("model", "linear")))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError, KeyError, TypeError, ValueError,
            AttributeError) as err:
        raise ValueError(f"expert weights {path}: its iterations cannot be read ({err!r}); start from a file "
                         f"scripts/train_expert.py wrote") from None
    return history


def weights_toml(weights: Weights, history: list, command: str, script: str = "scripts/train_expert.py") -> str:
    """The weights file: the command that made it, the component set, the layout, the weights (the
    shared ones, then each player count's own) and every iteration's head to head with the command that
    ran it (`command` where it names none)."""
    lines = [f"# Written by {script}. `command` made these weights (from the file it names, if any); each",
             "# iteration names the command that ran it: rerun those in order to learn them again.",
             f"command = {toml_string(command)}",
             f"components = {toml_string(weights.components)}",
             "features = [" + ", ".join(f'"{f}"' for f in kernel.FEATURES) + "]",
             "kinds = [" + ", ".join(f'"{k}"' for k in kernel.KINDS) + "]",
             "", "[weights]  # per kind, one row per epoch (I, II, III), one weight per feature; every player count",
             *_rows(weights.vector)]
    for players, vector in sorted(weights.by_players.items()):
        lines += ["", f"[weights.p{players}]  # at {players} players instead (learned there alone)", *_rows(vector)]
    if weights.trees is not None:
        lines += ["", "[statue_trees]  # the statues' value instead of their weights (hadara_sim/kernels/expert.py)",
                  "inputs = [" + ", ".join(f'"{name}"' for name in kernel.STATUE_INPUTS) + "]",
                  f"base = {float(weights.trees.base)!r}"]
        for name in ("roots", "feature", "threshold", "left", "right", "value"):
            lines += _wrapped(name, getattr(weights.trees, name))
    for it in history:
        games, share, (low, high) = it.pooled
        lines += ["", "[[iterations]]", f"number = {it.number}", f"decisions = {it.decisions}",
                  f"options = {it.options}", f"value_coefficient = {it.value_coefficient:.4f}",
                  f"games = {games}", f"win_share = {share:.4f}  # new weights against the current, pooled",
                  f"ci95 = [{low:.4f}, {high:.4f}]", f"accepted = {'true' if it.accepted else 'false'}",
                  f"step = {it.step:g}", f"command = {toml_string(it.command or command)}", f"seconds = {it.seconds:.0f}"]
        if it.alone:
            lines += [f"alone = {it.alone}  # learned the weights of this player count alone"]
        lines += ["kinds = [" + ", ".join(f'"{k}"' for k in it.kinds) + "]  # the decision kinds it labelled"]
        if it.model != "linear":
            lines += [f'model = "{it.model}"  # the statues valued by regression trees']
        for players, (n, s, (lo, hi)) in it.shares.items():
            lines += [f"p{players} = {{ games = {n}, win_share = {s:.4f}, ci95 = [{lo:.4f}, {hi:.4f}] }}"]
    return "\n".join(lines) + "\n"


def _wrapped(name: str, numbers: np.ndarray) -> list[str]:
    """`name = [...]` over lines of 12 numbers: whole numbers as they are, others exactly (repr)."""
    whole = np.issubdtype(numbers.dtype, np.integer)
    text = [str(int(n)) if whole else repr(float(n)) for n in numbers]
    return [f"{name} = ["] + ["    " + ", ".join(text[k:k + 12]) + "," for k in range(0, len(text), 12)] + ["]"]


def _rows(vector: np.ndarray) -> list[str]:
    """One weights table's lines: per kind, a row per epoch."""
    blocks = vector.reshape(3, len(kernel.KINDS), len(kernel.FEATURES))
    return [f"{kind} = [\n" + ",\n".join("    [" + ", ".join(f"{w:.6g}" for w in blocks[e, k]) + "]"
                                          for e in range(3)) + ",\n]" for k, kind in enumerate(kernel.KINDS)]

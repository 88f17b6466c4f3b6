"""`expert`: foresight with a learned correction of its card and statue decisions (draws, picks, statues).

The correction is a linear evaluation of each option's plain facts (`hadara_sim.kernels.expert`), or
for statues, where the weights file has them, regression trees of those facts and the situation,
evaluated inside the compiled kernels, its weights learned by expert iteration
(`scripts/train_expert.py`, `hadara_sim.learn`) and read from a TOML file (`Weights`): the built-in
`policies/tuned/expert-weights.toml`, or a file of a user's own training (`weights = "PATH"`). The
weights hold for the component set they were learned on and its overrides (what-if changes of single
values); games of another set stop with a message.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from hadara_sim.kernels import expert as learned
from hadara_sim.kernels.layout import EXPERT
from hadara_sim.params import Param
from hadara_sim.policy import Kernel
from hadara_sim.problems import ascii_whole

from .styles import Foresight
from .tuned import TUNED_DIR, checkout_script, learned_row, learned_text, read_learned, script_command

WEIGHTS_FILE = TUNED_DIR / "expert-weights.toml"
TRAIN_SCRIPT = checkout_script("train_expert.py", __file__)


def train(args: str = "") -> str:
    """The command that learns weights, in backticks (`tuned.script_command`)."""
    return script_command(TRAIN_SCRIPT, args)


TREES_LIMIT = 100_000  # nodes: a fitted statue model has thousands; more is no file the training wrote
TREES_DEPTH = 8        # the deepest tree played (the training fits depth 4): each is laid out complete


@dataclass(frozen=True)
class StatueTrees:
    """Regression trees valuing a statue option from its `learned.STATUE_INPUTS` (`learned.statue_trees`):
    their base plus, in each tree, the value of the leaf the inputs reach."""

    base: float
    roots: np.ndarray      # (trees,) int: each tree's first node
    feature: np.ndarray    # (nodes,) int: the input a node splits on (-1 at a leaf)
    threshold: np.ndarray  # (nodes,) float: the walk goes left where the input is <= it
    left: np.ndarray       # (nodes,) int: a node's children, -1 at a leaf; always after the node
    right: np.ndarray      # (nodes,) int
    value: np.ndarray      # (nodes,) float: a leaf's value

    def params(self) -> np.ndarray:
        """The trees as the kernel reads them (`_laid`: laid out once, each expert of a run shares them)."""
        return self._laid

    @functools.cached_property
    def _laid(self) -> np.ndarray:
        """The trees as the kernel reads them at `learned.TREES_AT`: trees, depth, base, then each tree
        as a complete tree of that depth, heap-ordered (node i's children 2i + 1 and 2i + 2): its
        splits' features, their thresholds, its leaves' values. A leaf above the full depth becomes a
        split whose every leaf below holds its value, so the kernel walks every tree the same number of
        steps without a branch to mispredict (walking the nodes as stored, 100 trees made the expert
        play a third as many games a second)."""
        depth = max(self._depth(root) for root in self.roots)
        splits = 2 ** depth - 1
        blocks = []
        for root in self.roots:
            feature, threshold, leaves = np.zeros(splits), np.zeros(splits), np.zeros(splits + 1)
            self._lay(int(root), 0, depth, feature, threshold, leaves)
            blocks += [feature, threshold, leaves]
        laid = np.concatenate([[len(self.roots), depth, self.base], *blocks]).astype(np.float64)
        laid.setflags(write=False)
        return laid

    def _depth(self, node: int) -> int:
        """The depth of the tree below `node` (0 at a leaf)."""
        if self.left[node] < 0:
            return 0
        return 1 + max(self._depth(int(self.left[node])), self._depth(int(self.right[node])))

    def _lay(self, node: int, at: int, depth: int, feature, threshold, leaves) -> None:
        """The tree below `node` into heap place `at` of a complete tree of `depth` splits."""
        splits = len(feature)
        if at >= splits:
            leaves[at - splits] = self.value[node]
            return
        below = (node, node)  # a leaf above the full depth: any split, the same leaf both ways
        if self.left[node] >= 0:
            feature[at], threshold[at] = self.feature[node], self.threshold[node]
            below = (int(self.left[node]), int(self.right[node]))
        self._lay(below[0], 2 * at + 1, depth, feature, threshold, leaves)
        self._lay(below[1], 2 * at + 2, depth, feature, threshold, leaves)

    @classmethod
    def read(cls, table, where: str) -> "StatueTrees":
        """The trees of a weights file's `[statue_trees]`, checked: the inputs the kernel reads, finite
        numbers, and nodes whose every walk ends at a leaf (children after their node, within range)."""
        inputs = table.get("inputs") if isinstance(table, dict) else None
        if inputs != list(learned.STATUE_INPUTS):
            raise ValueError(f"{where}: statue_trees read the inputs {inputs}, but this expert gives them "
                             f"{list(learned.STATUE_INPUTS)}: learn them again with {train('--out FILE')}")
        count = len(table["feature"]) if isinstance(table.get("feature"), list) else 0
        if not 1 <= count <= TREES_LIMIT:
            raise ValueError(f"{where}: statue_trees.feature must list 1 to {TREES_LIMIT:,} nodes")
        numbers = {name: np.array(learned_row(table.get(name), count,
                                              f"{where}: statue_trees.{name} must be {count} numbers, one per node",
                                              f"{where}: statue_trees.{name}", "number"), np.float64)
                   for name in ("threshold", "value")}
        nodes = {name: _whole(table.get(name), count, f"{where}: statue_trees.{name}")
                 for name in ("feature", "left", "right")}
        roots = _whole(table.get("roots"), None, f"{where}: statue_trees.roots")
        base = learned_row([table.get("base")], 1, f"{where}: statue_trees.base must be a number",
                           f"{where}: statue_trees.base", "number")[0]
        index, leaf = np.arange(count), nodes["left"] < 0
        split = (~leaf & (nodes["left"] > index) & (nodes["right"] > index) & (nodes["left"] < count)
                 & (nodes["right"] < count) & (nodes["feature"] >= 0) & (nodes["feature"] < len(learned.STATUE_INPUTS)))
        if not (len(roots) and np.all(leaf | split) and np.all((roots >= 0) & (roots < count))):
            raise ValueError(f"{where}: statue_trees are no trees (a node's children must come after it, a "
                             f"leaf's be -1, its feature one of the {len(learned.STATUE_INPUTS)} inputs, each root a "
                             f"node): give a file the training wrote ({train()})")
        trees = cls(float(base), roots, nodes["feature"], numbers["threshold"], nodes["left"], nodes["right"],
                    numbers["value"])
        if max(trees._depth(int(root)) for root in roots) > TREES_DEPTH:
            raise ValueError(f"{where}: a statue tree deeper than {TREES_DEPTH} splits: the expert plays trees of "
                             f"up to {TREES_DEPTH}; learn them with {train()}")
        return trees


def _whole(row, length: int | None, at: str) -> np.ndarray:
    """A list of whole numbers (of `length`, if given) from a learned file, or a ValueError at `at`."""
    if (not isinstance(row, list) or (length is not None and len(row) != length)
            or not all(isinstance(n, int) and not isinstance(n, bool) and abs(n) <= TREES_LIMIT for n in row)):
        raise ValueError(f"{at} must be {length if length is not None else 'a list of'} whole numbers "
                         f"within +-{TREES_LIMIT:,}")
    return np.array(row, np.int64)


@dataclass(frozen=True)
class Weights:
    """The learned weights of a file: per kind (`learned.KINDS`) and epoch, one per `learned.FEATURES`."""

    path: str
    components: str      # the digest of the component set they were learned on
    vector: np.ndarray   # (learned.WEIGHTS,) in the kernel's order: block (epoch-major, then kind), feature
    by_players: dict = field(default_factory=dict)  # player count -> (learned.WEIGHTS,) weights of its own
    trees: StatueTrees | None = None  # values the statues instead of their weights, at every player count

    def at(self, players: int | None) -> np.ndarray:
        """The weights played at `players` players: that count's own (learned at it alone), else the
        shared ones."""
        return self.by_players.get(players, self.vector)

    def replaced(self, vector: np.ndarray, players: int | None, path: str) -> "Weights":
        """These weights with `vector` as the shared ones (`players` None) or as that count's own."""
        if players is None:
            return Weights(path, self.components, vector, self.by_players, self.trees)
        return Weights(path, self.components, self.vector, {**self.by_players, players: vector}, self.trees)

    def check(self, components) -> None:
        """Stop unless the games are of the component set the weights were learned on, or of what-if
        changes of it (overrides: a balance fit's design points, a swept value): the expert is then a
        strong player of that set meeting a changed value, which is the question those runs ask."""
        if components.base_digest != self.components:
            raise ValueError(
                f"expert weights {self.path} were learned on the component set {self.components}, but these games "
                f"use {components.base_digest}: learn weights for it with {train('--components PATH --out FILE')} "
                f"and play them with --policy expert:weights=FILE (in a scenario: params = {{weights = \"FILE\"}})")


def read_weights(path: str | Path) -> Weights:
    """The weights in a file written by the training (`hadara_sim.learn.weights_toml`), checked: the
    features and kinds the kernel reads, in its order, three epochs each, finite and in range; the
    shared ones in `[weights]`, a player count's own in `[weights.pN]`. Read afresh, parsed once per
    content (`_weights_of`)."""
    return _weights_of(str(path), learned_text(path, f"expert weights {path}", f"the training ({train()})"))


@functools.lru_cache(maxsize=8)
def _weights_of(path: str, text: str) -> Weights:
    """The weights of a file's text: a run makes an expert per chunk, and parsing the shipped file's 50
    statue trees took 54 ms each time (35 s of a 61 s card-worth run). The arrays are read-only, so
    every expert can share them."""
    where = f"expert weights {path}"
    data = read_learned(path, where, f"the training ({train()})", text)
    features, kinds = data.get("features"), data.get("kinds")
    if features is None and kinds is None:
        raise ValueError(f"{where}: no `features` or `kinds` in it: not a weights file; give one the training "
                         f"wrote ({train()})")
    # A file of an earlier layout (the features or kinds then, the first of today's) plays as it did: the
    # features and kinds added since weigh nothing until a training from it (--start) learns them.
    known = [list(learned.FEATURES[:n]) for n in (*learned.EARLIER_LAYOUTS, len(learned.FEATURES))]
    known_kinds = [list(learned.KINDS[:n]) for n in (*learned.EARLIER_KINDS, len(learned.KINDS))]
    if features not in known or kinds not in known_kinds:
        raise ValueError(f"{where}: made for features {features} of kinds {kinds}, but this expert reads features "
                         f"{list(learned.FEATURES)} of kinds {list(learned.KINDS)}: learn them again with "
                         f"{train('--out FILE')}")
    if not isinstance(data.get("components"), str):
        raise ValueError(f"{where}: field components (the digest of the component set) is missing")
    table = data.get("weights")
    table = table if isinstance(table, dict) else {}
    by_players = {}
    for key, own in table.items():
        if key in learned.KINDS:
            continue
        players = (ascii_whole(key[1:]) or 0) if key[:1] == "p" else 0
        if not 2 <= players <= 5 or not isinstance(own, dict):
            raise ValueError(f"{where}: weights.{key} is neither a kind ({', '.join(learned.KINDS)}) nor a player "
                             f"count's own table (weights.p2 .. weights.p5)")
        by_players[players] = _vector(own, len(features), kinds, f"{where}: weights.{key}")
    trees = StatueTrees.read(data["statue_trees"], where) if "statue_trees" in data else None
    weights = Weights(path, data["components"], _vector(table, len(features), kinds, f"{where}: weights"),
                      by_players, trees)
    tree_arrays = (trees.roots, trees.feature, trees.threshold, trees.left, trees.right, trees.value) if trees else ()
    for array in (weights.vector, *by_players.values(), *tree_arrays):
        array.setflags(write=False)
    return weights


def _vector(table: dict, features: int, kinds: list, where: str) -> np.ndarray:
    """One table's weights (a row per epoch for each of the file's `kinds`, of its first `features`) in
    the kernel's order, checked; a feature or kind the file has not, weighing nothing."""
    blocks = np.zeros((3 * len(learned.KINDS), len(learned.FEATURES)))
    for epoch in range(3):
        for k, kind in enumerate(kinds):
            rows = table.get(kind)
            row = rows[epoch] if isinstance(rows, list) and len(rows) == 3 else None
            shape = f"{where}.{kind} must be 3 rows (epochs I-III) of {features} numbers, one per feature"
            blocks[epoch * len(learned.KINDS) + k, :features] = learned_row(row, features, shape,
                                                                             f"{where}.{kind} epoch {epoch + 1}", "weight")
    return blocks.reshape(-1)


class Expert(Foresight):
    name = "expert"
    description = ("foresight, its draws, picks and statues valued with a learned correction: a linear "
                   "evaluation of each option's facts (the card's or statue's points, track steps, price, set, "
                   "effect, feeding, the next requirement, what a rival would gain from a pick's card and the "
                   "one it uncovers, a statue's face) per epoch, or for statues regression trees of those facts "
                   "and the situation (tracks, tiles, coins, cards, statues and colonies, the rivals' too), "
                   "learned by expert iteration "
                   "(scripts/train_expert.py: search with the expert as rollout and opponent model labels better "
                   "options, a fit learns them, new weights replace the old only when they win head to head). Compiled, no search at play time; its "
                   "weights hold for the component set they were learned on and its overrides.")
    params = {**Foresight.params, "weights": ""}
    declared = {**Foresight.declared,
                "weights": Param(help="the weights file written by scripts/train_expert.py (\"\": the built-in "
                                      "policies/tuned/expert-weights.toml, learned on the shipped component set)")}

    def __init__(self, seed: int = 0, **params):
        super().__init__(seed, **params)
        self.weights = read_weights(self.settings["weights"] or WEIGHTS_FILE)
        # Foresight's own settings only: a subclass's parameters (docs/examples/mixed_expert.py) are not its.
        self.foresight = Foresight(seed, **{k: v for k, v in self.settings.items() if k in Foresight.params})

    def kernel_settings(self, components, players, advanced) -> dict:
        """foresight's, its side table derived by play included (the correction leaves the sides alone)."""
        return self.foresight.kernel_settings(components, players, advanced)

    @classmethod
    def with_weights(cls, weights: Weights, seed: int = 0) -> "Expert":
        """An expert playing `weights` (already checked), as the training tries them."""
        expert = cls(seed)
        expert.weights = weights
        return expert

    def check_components(self, components) -> None:
        """Stop unless the weights were learned on this component set (`Weights.check`)."""
        self.weights.check(components)

    def kernel(self, components=None, players: int | None = None, advanced: bool = True) -> Kernel:
        """foresight's kernel with the learned weights for `players` after its params (the weights'
        component set checked whenever the games' is known)."""
        if components is not None:
            self.weights.check(components)
        base = super().kernel(components, players, advanced)
        vector = self.weights.at(players)
        made = self.__dict__.setdefault("_expert_kernels", {})
        key = (id(base), id(vector), id(self.weights.trees))
        if key not in made:
            trees = self.weights.trees.params() if self.weights.trees else np.zeros(1)
            made[key] = (base, vector, self.weights.trees,
                         Kernel(EXPERT, np.concatenate([base.params, vector, trees]), base.table, base.kinds))
        return made[key][-1]

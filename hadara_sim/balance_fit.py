"""Balance fit: one set of whole-number changes of setup card values that makes every named side fair
against 1/P at every player count at once, found with a surrogate of the simulated win shares.

`balance suggest` fixes one side at a time, each judged alone; but the sides share deals and
opponents, so weakening 3B moves every other side's share. The fit treats the set as a whole:

1. **Designed sweep.** Per player count, the current set and `points` design points, each changing
   every changeable value by -1, 0 or +1 step (`balance.STEPS`: 2 coins or 1 track step), balanced
   over the points and shuffled from the seed; all played on the same deals.
2. **Surrogate.** Per player count, a multinomial (conditional) logit on the winner of each game:
   the seat holding side s has strength `alpha_s + sum_t beta_{s,t} term_t(change_s) + gamma_seat`,
   and wins with the softmax of the seats' strengths, so a change to one side moves every side it
   meets. `term_t` are the side's changes (linear); the squares and within-side products of its
   changes, and its *table terms* (its strength's response to the summed changes of a value at the
   other seats: a side's military is worth what the table's is not), join only where the data demand
   them (cluster-robust Wald test, Holm over the candidate terms; `_demanded`). Fitted by maximum likelihood with statsmodels (`GenericLikelihoodModel`, Newton steps) on
   the games grouped by run and sides held (the likelihood of a group is its games', so a fit's work
   stays put as the games grow), standard errors cluster-robust by deal (a deal is played at every
   design point). Before each
   proposal it is anchored to the set last played in full (`Surrogate.anchor`: side offsets that
   reproduce the shares observed there), so the model gives the step and the games the level.
3. **Proposer.** Over whole-number changes within each value's range and `reach` steps of its
   current value (after the first round, within one step of the set last played: a trust region),
   side by side (the furthest from fair first, repeated until no side moves): the
   change of the side with the fewest changed values, then the smallest worth of change
   (`balance.WORTH`), whose predicted win share lies within `aim` x margin of 1/P at every player
   count, given the other sides' changes, and that leaves no other named side further beyond the aim
   than it was (else the fair change that harms them least); after the first round, starting from the
   set last played, the smallest move from it first. A side no change in range brings there is
   *blocked*.
4. **Confirmation.** The proposal is played on fresh deals (`confirm_games`, per player count if
   asked: a side's share at 2 players needs ~2.7x the games of 4 players' for the same CI); every
   named side at every player count gets the verdict of `balance check` (TOST against 1/P within the
   margin, Holm over all the cells of the table, with `inference.deals_to_decide` hints). The
   confirmation's games join the surrogate's data, the surrogate is fitted again and the next
   proposal played, until the set is
   confirmed, a refit proposes the set just played again (it stops and says why: a side blocked for
   want of a value in range, or cells undecided for want of deals, with the deals that would decide
   them), or the rounds run out.

Every run is a `simulate` run (into `out/runs/...` when given, so an interrupted fit resumes), and
every choice comes from the seed: the same seed gives the same set.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import time
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

import numpy as np
import polars as pl
from scipy import sparse
from scipy.special import logsumexp, softmax
from scipy.stats import norm

from . import balance
from .component_files import load_components
from .components import RANGES, SETUP_VALUES, ComponentSet
from .estimate import Estimate, estimate_run
from .report import inference as I
from .report.estimates import mean_ci, with_verdicts
from .report.verdict import undecided_text
from .scenario.read import scenario_from_dict
from .sensitivity import merged

SIDES = tuple(f"{card}{side}" for card in range(1, 6) for side in "AB")
REACH = 3            # steps of `balance.STEPS` a value may move from its current value (coins 6, tracks 3)
MAX_CHANGED = 2      # values of one side a proposal may change
AIM = 0.5            # the proposer's target: predicted win share within AIM x margin of 1/P
POINTS = 12          # design points besides the current set
REFERENCE_DEALS = 5000  # deals the surrogate averages its predicted shares over
SAMPLE_GAMES = 400      # games a design point of the random sample `fitting_seconds` times the fits on

Change = dict[str, dict[str, int]]   # side ("3B") -> field -> change from its current value
Play = Callable[[int, Change, int, int, str], pl.DataFrame]  # (players, change, seed, games, label) -> rows


@dataclass
class FitPlan:
    """What `fit` plays and aims at."""

    sides: list[str] = field(default_factory=lambda: list(SIDES))   # the sides to make fair
    fields: list[str] = field(default_factory=lambda: list(SETUP_VALUES))  # the values each may change
    players: list[int] = field(default_factory=lambda: [2, 3, 4])
    policy: str = "balanced"
    games: int = 3000            # games per design point and player count
    points: int = POINTS         # design points besides the current set
    confirm_games: int | dict[int, int] = 30000   # fresh games for each confirmation: one number for every
                                                  # player count, or players -> games (2 players need ~2.7x 4's)
    rounds: int = 4              # proposals played at most
    margin: float = I.MARGIN     # equivalence margin on the win share
    aim: float = AIM             # the proposer's target, a share of the margin
    reach: int = REACH           # steps a value may move from its current value
    max_changed: int = MAX_CHANGED
    table: bool = True           # the surrogate may give a side terms for the other seats' changes
    seed: int = 1
    components: str | None = None
    overrides: dict = field(default_factory=dict)  # [components] overrides the set starts from
    jobs: int = 1
    out: str | None = None       # the results directory (runs/ inside it): resumable

    def __post_init__(self):
        if not isinstance(self.confirm_games, int):
            missing = [p for p in self.players if p not in self.confirm_games]
            if missing or any(g < 1 for g in self.confirm_games.values()):
                raise ValueError(f"--confirm-games {self.confirm_option()}: give the games of every player count "
                                 f"the fit plays ({', '.join(map(str, self.players))}) as P=GAMES, e.g. "
                                 f"2=160000,3=100000,4=60000, or one number for all")

    def confirming(self, players: int) -> int:
        """The fresh games a confirmation plays at `players` (and the current set's run in the design)."""
        if isinstance(self.confirm_games, int):
            return self.confirm_games
        return self.confirm_games[players]

    def confirm_text(self) -> str:
        """The confirmation's games in words: "60,000 games per player count" or "160,000 / 60,000 games at 2 /
        4 players"."""
        if isinstance(self.confirm_games, int):
            return f"{self.confirm_games:,} games per player count"
        return (" / ".join(f"{self.confirming(p):,}" for p in self.players) + " games at "
                + " / ".join(str(p) for p in self.players) + " players")

    def confirm_option(self) -> str:
        """`--confirm-games` as the command line writes it: 60000, or 2=160000,4=60000."""
        if isinstance(self.confirm_games, int):
            return str(self.confirm_games)
        return ",".join(f"{p}={g}" for p, g in sorted(self.confirm_games.items()))


def read_confirm_games(text: str) -> int | dict[int, int]:
    """`--confirm-games` read: one number of games, or P=GAMES pairs separated by commas."""
    def games(word: str) -> int:
        try:
            n = int(word.strip().replace("_", ""))
        except ValueError:
            n = 0
        if n < 10:
            raise ValueError(f"--confirm-games {text}: {word.strip()!r} is not a number of games (10 or more)")
        return n

    if "=" not in text:
        return games(text)
    out: dict[int, int] = {}
    for pair in (w.strip() for w in text.split(",") if w.strip()):
        players, _, n = pair.partition("=")
        if players.strip() not in {"2", "3", "4", "5"}:
            raise ValueError(f"--confirm-games {text}: expected P=GAMES with P a player count 2 to 5, e.g. "
                             f"2=160000,3=100000,4=60000; got {pair!r}")
        out[int(players)] = games(n)
    return out


# --- the values a fit may change -------------------------------------------------------------

def currents(components: ComponentSet) -> dict[str, dict[str, int]]:
    """Every setup card side's values by field name."""
    return {f"{i}{s}": {"coins": card.coins, **dict(zip(SETUP_VALUES[1:], card.values))}
            for (i, s), card in components.setup_cards.items()}


def value_range(field_: str) -> tuple[int, int]:
    return RANGES["coins" if field_ == "coins" else "track"]


def allowed(field_: str, current: int, reach: int) -> list[int]:
    """The changes of a value the proposer may choose: whole numbers within `reach` steps and its range."""
    low, high = value_range(field_)
    far = reach * balance.STEPS[field_]
    return [d for d in range(-far, far + 1) if low <= current + d <= high]


def design(plan: FitPlan, now: dict[str, dict[str, int]]) -> list[Change]:
    """The design points: every changeable value at -1, 0 or +1 step (moved inside its range at a
    bound), each level at about a third of the points, shuffled per value from the seed."""
    rng = np.random.default_rng(np.random.SeedSequence([plan.seed, 35]))
    points: list[Change] = [{} for _ in range(plan.points)]
    for side in plan.sides:
        for f in plan.fields:
            step = balance.STEPS[f]
            low, high = value_range(f)
            levels = [d for d in (-step, 0, step) if low <= now[side][f] + d <= high]
            if len(levels) < 3:  # at a bound: two steps inwards instead
                inside = [d for d in (-2 * step, -step, step, 2 * step) if low <= now[side][f] + d <= high]
                levels = sorted({0, *inside}, key=abs)[:3]
            column = rng.permutation(np.resize(levels, plan.points))
            for point, delta in zip(points, column):
                if delta:
                    point.setdefault(side, {})[f] = int(delta)
    return points


def worth(change: dict[str, int]) -> float:
    """The worth of one side's change (`balance.WORTH`)."""
    return sum(abs(d) * balance.WORTH[f] for f, d in change.items())


def count(change: Change) -> int:
    return sum(len(c) for c in change.values())


def as_overrides(change: Change, now: dict[str, dict[str, int]]) -> dict:
    """A change set as a `[components]` override table of the new values."""
    setup = {side: {f: now[side][f] + d for f, d in sorted(values.items(), key=lambda kv: SETUP_VALUES.index(kv[0]))}
             for side, values in sorted(change.items()) if values}
    return {"setup": setup} if setup else {}


# --- the surrogate -----------------------------------------------------------------------------

Term = tuple[str, ...]   # the fields whose changes multiply: ("culture",), ("culture", "culture"), ("coins", "food")


@dataclass
class Run:
    """One played run: its change set and its rows (one per game and seat)."""

    players: int
    change: Change
    seed: int
    label: str
    rows: pl.DataFrame


def _groups(run: Run) -> tuple[np.ndarray, np.ndarray]:
    """A run's games as (sides held per seat, win share per seat), both (games, players)."""
    df = run.rows.sort(["game", "seat"])
    p = run.players
    if df.height % p or df["setup_card"].null_count():
        raise ValueError(f"run {run.label}: every game needs {p} seats with a setup card")
    sides = ((df["setup_card"].to_numpy() - 1) * 2 + (df["setup_side"].to_numpy() == "B")).reshape(-1, p)
    wins = df["win_share"].to_numpy().astype(float).reshape(-1, p)
    return sides.astype(int), wins


def dealt(players: int, games: int) -> float:
    """The expected number of distinct seatings of sides (which side each seat holds) among `games`
    games: the sides are dealt at random, so each of the 10 x 8 x ... ordered seatings is equally likely."""
    seatings = math.prod(len(SIDES) - 2 * i for i in range(players))
    return seatings * -math.expm1(games * math.log1p(-1 / seatings))


def table_name(side: str, field_: str) -> str:
    """The column of a side's response to the other seats' changes of one value: "4A table military"."""
    return f"{side} table {field_}"


def table_fields(table: dict[str, list[str]]) -> list[str]:
    """The values some side's table terms read, in `SETUP_VALUES` order."""
    used = {f for fs in table.values() for f in fs}
    return [f for f in SETUP_VALUES if f in used]


def change_matrix(change: Change, fields: list[str]) -> np.ndarray:
    """(10, len(fields)) every side's change of each value."""
    return np.array([[change.get(s, {}).get(f, 0) for f in fields] for s in SIDES], dtype=float).reshape(
        len(SIDES), len(fields))


def others_changes(changes: np.ndarray, held: np.ndarray) -> np.ndarray:
    """(games, players, fields) per seat, the changes of the sides the *other* seats hold, summed:
    `changes` is (10, fields), or (games, 10, fields) one per game; `held` (games, players)."""
    if changes.ndim == 2:
        mine = changes[held]                                              # (games, players, fields)
    else:
        mine = np.take_along_axis(changes, held[:, :, None], axis=1)
    return mine.sum(1, keepdims=True) - mine


class Strengths:
    """The design of the softmax model: strengths of the seats from the sides they hold, their seat and
    their sides' changes (a sparse matrix, rows = group x seat). The games of one run whose seats hold
    the same sides share their strengths, so the likelihood sums them as one *group* (the wins of its
    seats added, its games counted): at 2 players at most 80 groups a run, however many games
    (`dealt`), and a fit's work no longer grows with the games. The deals stay, game by game, for the
    cluster-robust covariance."""

    def __init__(self, runs: list[Run], terms: dict[str, list[Term]], table: dict[str, list[str]] | None = None):
        self.players = runs[0].players
        self.terms = terms
        self.table = table or {}
        self.columns = ([f"side {s}" for s in SIDES[1:]] + [f"seat {i}" for i in range(1, self.players)]
                        + [f"{s} {'*'.join(t)}" for s in SIDES for t in terms.get(s, [])]
                        + [table_name(s, f) for s in SIDES for f in self.table.get(s, [])])
        self.index = {name: j for j, name in enumerate(self.columns)}
        held, wins, deals, values = [], [], [], []
        fields = table_fields(self.table)
        changes = np.array([change_matrix(run.change, fields) for run in runs]).reshape(len(runs), len(SIDES),
                                                                                       len(fields))
        for run in runs:
            sides, w = _groups(run)
            held.append(sides)
            wins.append(w)
            deals.append(run.seed * 10_000_000 + run.rows.sort(["game", "seat"])["game"].to_numpy()[::run.players])
            values.append([[math.prod(run.change.get(s, {}).get(f, 0) for f in t) for t in terms.get(s, [])]
                           for s in SIDES])
        held_games = np.vstack(held)
        y = np.vstack(wins)
        total = y.sum(1)
        keep = total > 0
        y = y[keep] / total[keep, None]
        held_games = held_games[keep]
        run_of = np.repeat(np.arange(len(runs)), [len(w) for w in wins])[keep]
        n, p = held_games.shape
        key = run_of.astype(np.int64)
        for j in range(p):
            key = key * len(SIDES) + held_games[:, j]
        _, first, self.group_of = np.unique(key, return_index=True, return_inverse=True)
        self.group_of = self.group_of.ravel()     # (games,) the group of each game
        self.held = held_games[first]             # (groups, players) sides held per seat
        self.games = np.bincount(self.group_of).astype(float)          # (groups,) games in each group
        self.y = np.stack([np.bincount(self.group_of, y[:, j], len(first)) for j in range(p)], axis=1)
        self.game_y = y                           # (games, players) win share of each seat, game by game
        self.deals = np.unique(np.concatenate(deals)[keep], return_inverse=True)[1].ravel()  # (games,) deal index
        table_values = others_changes(changes[run_of[first]], self.held).reshape(len(first) * p, -1)
        self.matrix = self._matrix(self.held, run_of[first], values, table_values)
        # a row's terms depend only on its run, side and seat, and the changes the other seats hold: the
        # Hessian's sum over rows runs over those kinds
        kind = (np.repeat(run_of[first], p) * len(SIDES) + self.held.ravel()) * p + np.tile(np.arange(p), len(first))
        _, one, self.kind_of = np.unique(np.column_stack([kind, table_values]), axis=0, return_index=True,
                                         return_inverse=True)
        self.kinds = self.matrix[one].toarray()   # (kinds, terms) the distinct rows of the matrix
        self.kind_of = self.kind_of.ravel()       # (groups x players,) the kind of each row
        g = len(first)
        self.sum_games = sparse.csr_matrix((np.ones(g * p), (np.repeat(np.arange(g), p), np.arange(g * p))),
                                           shape=(g, g * p))

    def _matrix(self, held, run_of, values, table) -> sparse.csr_matrix:
        n, p = held.shape
        rows_i, cols, vals = [], [], []
        flat = held.ravel()
        row = np.arange(n * p)
        side_row = flat > 0
        rows_i.append(row[side_row]); cols.append(flat[side_row] - 1); vals.append(np.ones(side_row.sum()))
        seat = np.tile(np.arange(p), n)
        seat_row = seat > 0
        rows_i.append(row[seat_row]); cols.append(len(SIDES) - 2 + seat[seat_row]); vals.append(np.ones(seat_row.sum()))
        runs = np.repeat(run_of, p)
        for s_index, s in enumerate(SIDES):
            for t_index, t in enumerate(self.terms.get(s, [])):
                mine = flat == s_index
                v = np.array([values[r][s_index][t_index] for r in range(len(values))], dtype=float)[runs[mine]]
                nz = v != 0
                rows_i.append(row[mine][nz]); cols.append(np.full(nz.sum(), self.index[f"{s} {'*'.join(t)}"]))
                vals.append(v[nz])
        fields = table_fields(self.table)
        for s_index, s in enumerate(SIDES):
            mine = flat == s_index
            for f in self.table.get(s, []):
                v = table[mine, fields.index(f)]
                nz = v != 0
                rows_i.append(row[mine][nz]); cols.append(np.full(nz.sum(), self.index[table_name(s, f)]))
                vals.append(v[nz])
        return sparse.csr_matrix((np.concatenate(vals), (np.concatenate(rows_i), np.concatenate(cols))),
                                 shape=(n * p, len(self.columns)))

    def deal_scores(self, chance: np.ndarray) -> sparse.csr_matrix:
        """(deals, terms) the score of the log-likelihood summed over each deal's games, given the
        groups' win chances (groups, players): what the cluster-robust covariance needs, without a
        row per game."""
        n, p = self.game_y.shape
        residual = self.game_y - chance[self.group_of]
        by_deal = sparse.csr_matrix((residual.ravel(), (np.repeat(self.deals, p),
                                                        (self.group_of[:, None] * p + np.arange(p)).ravel())),
                                    shape=(self.deals.max() + 1, self.matrix.shape[0]))
        return by_deal @ self.matrix


def _model_class():
    """The softmax likelihood as a statsmodels GenericLikelihoodModel (imported when first fitted)."""
    from statsmodels.base.model import GenericLikelihoodModel

    class Softmax(GenericLikelihoodModel):
        """Multinomial logit on the winner of each game (win shares of ties split), one row per group of
        games (`Strengths`): its seats' wins added, its chances weighed by its games."""

        def __init__(self, design: Strengths):
            self.design = design
            super().__init__(design.y[:, 0], None, missing="none", extra_params_names=list(design.columns))

        def _probabilities(self, params):
            d = self.design
            theta = (d.matrix @ params).reshape(d.y.shape)
            return theta, softmax(theta, axis=1)

        def loglikeobs(self, params):
            theta, _ = self._probabilities(params)
            return (self.design.y * (theta - logsumexp(theta, axis=1, keepdims=True))).sum(1)

        def loglike(self, params):
            return float(self.loglikeobs(params).sum())

        def score_obs(self, params):
            d = self.design
            _, p = self._probabilities(params)
            return (d.sum_games @ d.matrix.multiply((d.y - d.games[:, None] * p).ravel()[:, None])).toarray()

        def score(self, params):
            d = self.design
            _, p = self._probabilities(params)
            return d.matrix.T @ (d.y - d.games[:, None] * p).ravel()

        def hessian(self, params):
            d = self.design
            _, p = self._probabilities(params)
            per_game = (d.sum_games @ d.matrix.multiply(p.ravel()[:, None])).toarray()   # (groups, terms)
            by_kind = np.bincount(d.kind_of, (d.games[:, None] * p).ravel(), len(d.kinds))
            return -(d.kinds.T @ (d.kinds * by_kind[:, None]) - per_game.T @ (per_game * d.games[:, None]))

    return Softmax


@dataclass
class Surrogate:
    """The fitted softmax model of one player count."""

    players: int
    terms: dict[str, list[Term]]
    params: np.ndarray
    cov: np.ndarray
    columns: list[str]
    deals: np.ndarray      # reference deals: the distinct seatings of sides (seatings, players) of the current set's run
    weights: np.ndarray    # (seatings,) how many of its games each seating holds
    added: list[str]       # curvature, interaction and table terms the data demanded
    table: dict[str, list[str]] = field(default_factory=dict)  # side -> values whose changes at the other seats
                                                               # move its strength (`table_name` columns)
    offset: np.ndarray = field(default_factory=lambda: np.zeros(len(SIDES)))  # (10,) strengths `anchor` adds

    def _slopes(self, side: str) -> np.ndarray:
        """(terms,) coefficients of one side's own terms."""
        return self.params[[self.columns.index(f"{side} {'*'.join(t)}") for t in self.terms.get(side, [])]]

    def _base(self) -> np.ndarray:
        """(10,) side strengths of the current set, side 1A the reference."""
        return np.concatenate([[0.0], self.params[:len(SIDES) - 1]])

    def _seats(self) -> np.ndarray:
        """(players,) seat strengths, seat 0 the reference."""
        return np.concatenate([[0.0], self.params[len(SIDES) - 1:len(SIDES) - 1 + self.players - 1]])

    def _responses(self) -> tuple[list[str], np.ndarray]:
        """The values the table terms read, and (10, those values) each side's response to the other
        seats' summed changes of each (0 where the side has no such term)."""
        fields = table_fields(self.table)
        out = np.zeros((len(SIDES), len(fields)))
        for i, s in enumerate(SIDES):
            for f in self.table.get(s, []):
                out[i, fields.index(f)] = self.params[self.columns.index(table_name(s, f))]
        return fields, out

    def term_values(self, side: str, changes: list[dict[str, int]]) -> np.ndarray:
        """(len(changes), terms) values of one side's terms under each of its changes."""
        return np.array([[math.prod(c.get(f, 0) for f in t) for t in self.terms.get(side, [])] for c in changes],
                        dtype=float).reshape(len(changes), len(self.terms.get(side, [])))

    def strengths(self, change: Change) -> np.ndarray:
        """(10,) side strengths under a change set from the side's own changes (the table terms aside)."""
        out = self._base() + self.offset
        for i, s in enumerate(SIDES):
            if change.get(s) and self.terms.get(s):
                out[i] += self._slopes(s) @ self.term_values(s, [change[s]])[0]
        return out

    def seat_strengths(self, change: Change, deals: np.ndarray) -> np.ndarray:
        """(games, players) every seat's strength in each of `deals` (sides held per seat) under a change
        set: its side's, its seat's, and its side's response to the changes the other seats' sides hold."""
        theta = self.strengths(change)[deals] + self._seats()
        fields, responses = self._responses()
        if fields:
            theta = theta + (responses[deals] * others_changes(change_matrix(change, fields), deals)).sum(-1)
        return theta

    def shares(self, change: Change, deals: np.ndarray | None = None, weights: np.ndarray | None = None) -> np.ndarray:
        """(10,) predicted win share of every side under a change set, over the reference deals (or
        `deals`, each seating with its `weights` in games)."""
        deals, weights = (self.deals, self.weights) if deals is None else (deals, weights)
        chance = softmax(self.seat_strengths(change, deals), axis=1) * weights[:, None]
        with np.errstate(invalid="ignore", divide="ignore"):
            return (np.bincount(deals.ravel(), chance.ravel(), len(SIDES))
                    / np.bincount(deals.ravel(), np.repeat(weights, deals.shape[1]), len(SIDES)))

    def option_shares(self, change: Change, side: str, options: list[dict[str, int]], block: int = 256) -> np.ndarray:
        """(len(options), 10) every side's predicted win share when `side` takes each of its `options`,
        the other sides changed as in `change`: only the reference deals that hold the side move, its
        own strength and, through their table terms, the strengths of the seats it meets."""
        i = SIDES.index(side)
        rest = {k: v for k, v in change.items() if k != side}
        holds = (self.deals == i).any(1)
        onehot = np.zeros((self.deals.size, len(SIDES)))
        onehot[np.arange(self.deals.size), self.deals.ravel()] = 1.0
        held = onehot.reshape(*self.deals.shape, len(SIDES))
        theta = self.seat_strengths(rest, self.deals)                       # (seatings, players)
        elsewhere = (softmax(theta[~holds], axis=1) * self.weights[~holds, None]).ravel() @ held[~holds].reshape(
            -1, len(SIDES))
        theta, deals, weights, held = theta[holds], self.deals[holds], self.weights[holds], held[holds]
        mine = deals == i                                                   # (deals holding it, players)
        fields, responses = self._responses()
        out = []
        for at in range(0, len(options), block):
            chunk = options[at:at + block]
            step = np.zeros((len(chunk), *deals.shape))                     # (options, deals, players)
            if self.terms.get(side):
                step += (self.term_values(side, chunk) @ self._slopes(side))[:, None, None] * mine
            if fields:   # the side's option changes what the other seats' table terms read
                moved = np.array([[o.get(f, 0) for f in fields] for o in chunk], dtype=float)
                step += np.moveaxis(responses[deals] @ moved.T, -1, 0) * ~mine
            chance = softmax(theta + step, axis=-1) * weights[:, None]
            out.append(chance.reshape(len(chunk), -1) @ held.reshape(-1, len(SIDES)))
        with np.errstate(invalid="ignore", divide="ignore"):
            return (np.concatenate(out) + elsewhere) / (self.weights @ onehot.reshape(*self.deals.shape, -1).sum(1))

    def anchor(self, run: Run, iterations: int = 500) -> Surrogate:
        """The surrogate with each side's strength offset so that at `run`'s change set, on `run`'s deals,
        it predicts the win shares `run` observed: the model then serves for the step from the set last
        played, not for the level (see docs/reports.md for the measured gain). Found by the
        minorise-maximise update of Bradley-Terry fits, offset += log(observed / predicted), until no
        share is 1e-6 off (the equations of a side's maximum-likelihood offset: they have a solution)."""
        sides, wins = _groups(run)
        wins = wins / np.maximum(wins.sum(1, keepdims=True), 1e-12)
        observed = np.array([wins[sides == i].mean() if (sides == i).any() else np.nan for i in range(len(SIDES))])
        seen = np.isfinite(observed) & (observed > 0)
        deals, weights = seatings(sides)
        on_run = replace(self, offset=np.zeros(len(SIDES)))
        for _ in range(iterations):
            predicted = on_run.shares(run.change, deals, weights)
            if np.max(np.abs(observed[seen] - predicted[seen])) < 1e-6:
                break
            on_run.offset[seen] += np.log(observed[seen] / predicted[seen])
        return replace(self, offset=on_run.offset)


def seatings(held: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct seatings of sides among games (games, players), and how many games hold each."""
    deals, weights = np.unique(held, axis=0, return_counts=True)
    return deals, weights.astype(float)


def _fit(design: Strengths, start: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The maximum-likelihood fit, from `start` (a refit starts from the last fit: fewer Newton steps),
    as (parameters, covariance); the covariance cluster-robust by deal (a deal is played at every
    design point): the CRV1 sandwich of statsmodels' `cov_type="cluster"`, small-sample factor and
    all, built from the scores summed per deal (sparse: statsmodels' own would want a dense row per
    game or deal, and sum them in a Python loop). ValueError when the data cannot place every term
    (too few games)."""
    model = _model_class()(design)
    params = cov = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            res = model.fit(start_params=np.zeros(len(design.columns)) if start is None else start,
                            method="newton", maxiter=100, disp=0)
            if not res.mle_retvals.get("converged", True):   # diverging: a direction the data do not place
                raise np.linalg.LinAlgError
            params = np.asarray(res.params)
            _, chance = model._probabilities(params)
            scores = design.deal_scores(chance)
            bread = np.linalg.inv(model.hessian(params))
            (deals, k), games = scores.shape, len(design.deals)
            cov = bread @ (scores.T @ scores).toarray() @ bread * (deals / (deals - 1) * (games - 1) / (games - k))
        except np.linalg.LinAlgError:
            pass
    if params is None or not np.all(np.isfinite(params)) or not np.all(np.isfinite(np.diag(cov))):
        raise ValueError(f"the surrogate at {design.players} players cannot be fitted: {len(design.deals):,} games "
                         f"cannot place its {len(design.columns)} terms (every changeable value of every named side); "
                         f"play more --games per design point, or name fewer --side or --values")
    return params, cov


def _varying(runs: list[Run], sides: list[str], fields: list[str]) -> dict[str, dict[str, set[int]]]:
    """Per side, the changeable fields that take two or more values over the runs, with their values."""
    out: dict[str, dict[str, set[int]]] = {}
    for s in sides:
        for f in fields:
            seen = {r.change.get(s, {}).get(f, 0) for r in runs}
            if len(seen) > 1:
                out.setdefault(s, {})[f] = seen
    return out


def fit_surrogate(runs: list[Run], plan: FitPlan, previous: Surrogate | None = None) -> Surrogate:
    """The surrogate of one player count: linear terms of every changed value, then the candidates the
    data demand (`_demanded`): squares and within-side products of a side's changes, and with
    `plan.table` every side's response to the other seats' changes. The terms are chosen on the
    designed sweep, where the values vary together; a refit after a confirmation keeps the `previous`
    surrogate's terms."""
    varying = _varying(runs, plan.sides, plan.fields)
    main = {s: [(f,) for f in fs] for s, fs in varying.items()}
    candidates = {s: [t for t in itertools.combinations_with_replacement(fs, 2)
                      if t[0] != t[1] or len(fs[t[0]]) > 2] for s, fs in varying.items()}
    fields = [f for f in SETUP_VALUES if any(f in fs for fs in varying.values())] if plan.table else []
    if previous is not None:
        terms, table, added = previous.terms, previous.table, previous.added
    else:
        terms, table, added = main, {}, []
        if any(candidates.values()) or fields:
            try:
                terms, table, added = _demanded(runs, main, candidates, fields)
            except ValueError:  # too few games to place the candidates: they cannot be demanded
                pass
    design_ = Strengths(runs, terms, table)
    params, cov = _fit(design_, previous.params if previous is not None
                       and len(previous.params) == len(design_.columns) else None)
    reference = next(r for r in runs if not count(r.change))
    deals, weights = seatings(_groups(reference)[0][:REFERENCE_DEALS])
    return Surrogate(runs[0].players, terms, params, cov, design_.columns, deals, weights, added, table)


def _demanded(runs: list[Run], main: dict[str, list[Term]], candidates: dict[str, list[Term]],
              fields: list[str]) -> tuple[dict[str, list[Term]], dict[str, list[str]], list[str]]:
    """The terms the runs demand beyond the linear ones: every candidate fitted at once, kept where its
    cluster-robust Wald test rejects 0, Holm over all the candidates. The candidates: the squares and
    within-side products of a side's changes, and per value in `fields` every side's *table* term, its
    strength's response to the summed changes of that value at the other seats (military is a contest:
    a side's step is worth what the table's is not). A response every side shares is invisible to the
    softmax (it moves every seat alike, as a change of the changed side's own slope), so only the
    differences between the sides' responses are tested: each side's response less the mean response
    of the reference sides, at first all ten; the most unlike side demanded leaves the reference and the
    rest are tested again, until none is demanded (so that one side's large response does not make the
    others look unlike their mean) or two are left. The sides that left get table terms, fitted against
    the reference sides' response held at 0. Returns the own terms, the table terms and the names added."""
    design = Strengths(runs, {s: main[s] + candidates[s] for s in main}, {s: list(fields) for s in SIDES[1:]})
    params, cov = _fit(design)
    own = [f"{s} {'*'.join(t)}" for s in SIDES for t in candidates.get(s, [])]
    at = [design.columns.index(n) for n in own]
    # the table terms as (10 per value) responses, 1A's held at 0: rows of `lift` pick them from the params
    lift = np.zeros((len(SIDES) * len(fields), len(params)))
    for k, f in enumerate(fields):
        for i, s in enumerate(SIDES[1:], 1):
            lift[k * len(SIDES) + i, design.columns.index(table_name(s, f))] = 1.0
    alike = {f: set(SIDES) for f in fields}   # per value, the sides whose mean response is the reference
    while True:
        centre = np.zeros((len(SIDES) * len(fields), len(SIDES) * len(fields)))
        for k, f in enumerate(fields):
            block = np.eye(len(SIDES))
            block[:, [SIDES.index(s) for s in alike[f]]] -= 1 / len(alike[f])
            centre[k * len(SIDES):(k + 1) * len(SIDES), k * len(SIDES):(k + 1) * len(SIDES)] = block
        contrast = np.vstack([np.eye(len(params))[at], centre @ lift])
        with np.errstate(invalid="ignore", divide="ignore"):  # a candidate the data cannot place: not demanded
            z = np.abs(contrast @ params) / np.sqrt(np.einsum("ij,jk,ik->i", contrast, cov, contrast))
        demanded = I.adjust(2 * norm.sf(z), "holm") < I.ALPHA
        unlike = [(z[j], f, s) for j, (f, s) in enumerate(((f, s) for f in fields for s in SIDES), len(own))
                  if demanded[j] and s in alike[f] and len(alike[f]) > 2]
        if not unlike:
            break
        _, f, s = max(unlike)
        alike[f].discard(s)     # the most unlike side leaves the reference, the rest are tested again
    keep = {n for n, d in zip(own, demanded) if d} | {table_name(s, f) for f in fields for s in SIDES
                                                      if s not in alike[f]}
    terms = {s: main[s] + [t for t in candidates[s] if f"{s} {'*'.join(t)}" in keep] for s in main}
    table: dict[str, list[str]] = {}
    for f in fields:
        for s in SIDES:
            if s not in alike[f]:
                table.setdefault(s, []).append(f)
    added = sorted([f"{s} {'*'.join(t)}" for s in terms for t in terms[s][len(main[s]):]]
                   + [table_name(s, f) for s in table for f in table[s]])
    return terms, table, added


# --- the proposer -------------------------------------------------------------------------------

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
                              f"best, {_words(options[s][pick]) or 'no change'}, predicts "
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


def _words(change: dict[str, int]) -> str:
    return ", ".join(f"{f} {d:+d}" for f, d in change.items())


# --- playing and judging ------------------------------------------------------------------------

def simulate_play(plan: FitPlan, now: dict[str, dict[str, int]]) -> Play:
    """The real game: each run a `simulate` of `balance.scenario` with the change as overrides on top of
    the plan's, into `out/runs/<label>` when the plan has `out` (resumable)."""
    from .api import simulate

    def play(players: int, change: Change, seed: int, games: int, label: str) -> pl.DataFrame:
        base = balance.Plan(players=players, policy=plan.policy, games=games, seed=seed,
                            components=plan.components, jobs=plan.jobs,
                            overrides=merged(plan.overrides, as_overrides(change, now)))
        out = Path(plan.out) / "runs" / label if plan.out else None
        df = simulate(balance.scenario(base, games), jobs=plan.jobs, out=out, quiet=True)
        return df.select("game", "seat", "players", "setup_card", "setup_side", "win_share")

    return play


def verdicts(runs: list[Run], sides: list[str], margin: float) -> pl.DataFrame:
    """Every named side at every player count of the runs (one run per count): win share with its
    95% CI, TOST against 1/P, verdicts Holm-corrected over all the cells, and for an undecided cell the
    more deals (and games) that would decide it (`report.estimates.with_verdicts`)."""
    rows = pl.concat([r.rows.with_columns(pl.col("players").cast(pl.Int64)) for r in runs])
    rows = rows.with_columns(side=pl.format("{}{}", "setup_card", "setup_side")).filter(pl.col("side").is_in(sides))
    table = with_verdicts(mean_ci(rows, "win_share", ["players", "side"], fair=1.0 / pl.col("players").cast(pl.Float64),
                                  rate=True, margin=margin), margin=margin, hints=True)
    games = {r.players: r.rows["game"].n_unique() for r in runs}
    return table.with_columns(
        games=pl.col("players").replace_strict(games, return_dtype=pl.Int64),
        fair=(pl.col("q_equiv") < I.ALPHA).fill_null(False)).with_columns(
        more_games=(pl.col("more") * pl.col("games") / pl.col("n")).ceil())


@dataclass
class Round:
    """One proposal and its confirmation on fresh deals."""

    number: int
    proposal: Proposal
    seed: int
    table: pl.DataFrame          # `verdicts` of the proposal's confirmation
    added: dict[int, list[str]]  # players -> terms the surrogate added

    @property
    def confirmed(self) -> bool:
        return bool(self.table["fair"].all())

    @property
    def missed(self) -> float:
        """How far the surrogate's predictions missed the shares played: the root mean square over the
        named cells of predicted minus played win share."""
        gaps = [self.proposal.predicted[r["players"]][SIDES.index(r["side"])] - r["mean"]
                for r in self.table.to_dicts()]
        return float(np.sqrt(np.mean(np.square(gaps))))


@dataclass
class Fit:
    plan: FitPlan
    now: dict[str, dict[str, int]]
    rounds: list[Round]
    before: pl.DataFrame | None  # the current set on the deals of the best round's confirmation
    reason: str                  # why it stopped
    status: str                  # "confirmed", "blocked", "too few deals" or "rounds"
    games: int                   # every game played
    seconds: float
    cpu_seconds: float

    @property
    def best(self) -> Round | None:
        """The round whose set the fit ends with: the most cells confirmed fair (the later of a tie)."""
        return max(reversed(self.rounds), key=lambda r: int(r.table["fair"].sum())) if self.rounds else None

    @property
    def change(self) -> Change:
        return self.best.proposal.change if self.rounds else {}

    @property
    def after(self) -> pl.DataFrame | None:
        return self.best.table if self.rounds else None

    @property
    def overrides(self) -> dict:
        """The set the fit ends with as a `[components]` override table: the plan's own overrides with
        the change set on top."""
        return merged(self.plan.overrides, as_overrides(self.change, self.now))


def estimate(plan: FitPlan, cold: bool | None = None) -> tuple[Estimate, Estimate]:
    """How long the designed sweep takes, and at most the confirmations (every round, and the current
    set on the best round's deals), before anything is played."""
    def runs(games: Callable[[int], int], count_: int, cold_: bool | None) -> Estimate:
        """`count_` runs at every player count, of `games(players)` games."""
        total, n, workers, unknown, compiled = 0.0, 0, 1, [], False
        for p in plan.players:
            one = estimate_run(scenario_from_dict(balance.scenario(
                balance.Plan(players=p, policy=plan.policy, seed=plan.seed, components=plan.components,
                             jobs=plan.jobs, overrides=plan.overrides), games(p))), plan.jobs, cold=cold_)
            total += one.seconds * count_
            n += one.games * count_
            workers, unknown, compiled = one.workers, one.unknown, compiled or one.compile
            cold_ = False
        return Estimate(total, n, unknown, compiled, workers)

    sweep = runs(lambda p: plan.games, plan.points, cold)
    confirm = runs(plan.confirming, plan.rounds + 2, False)  # the current set in the design, each round, before
    return sweep, confirm


def _blank_run(players: int, change: Change, games: int, seed: int) -> Run:
    """A run of made-up games of a real run's shape, for timing: sides dealt at random, the winner drawn
    from the softmax of side strengths spread as the shipped set's under `balanced` (-0.7 to +0.7
    log-odds, 3B at 2 players winning about two games in three), each changed value adding 0.1 a
    step (a fit's Newton steps, and so its time, grow with how far its parameters lie from 0)."""
    rng = np.random.default_rng([seed, players, games])
    strength = np.linspace(-0.7, 0.7, len(SIDES)) + [0.1 * sum(change.get(s, {}).values()) for s in SIDES]
    cards = np.argsort(rng.random((games, 5)), axis=1)[:, :players]
    sides = cards * 2 + rng.integers(0, 2, (games, players))
    chance = softmax(strength[sides], axis=1)
    winner = (rng.random(games)[:, None] > np.cumsum(chance, axis=1)).sum(1).clip(0, players - 1)
    win = np.zeros((games, players))
    win[np.arange(games), winner] = 1.0
    rows = pl.DataFrame({"game": np.repeat(np.arange(games), players), "seat": np.tile(np.arange(players), games),
                         "players": players, "setup_card": (sides // 2 + 1).ravel(),
                         "setup_side": np.where(sides.ravel() % 2 == 1, "B", "A"), "win_share": win.ravel()})
    return Run(players, change, seed, "timing", rows)


def fitting_seconds(plan: FitPlan) -> float:
    """How long the fit spends fitting its surrogates and proposing, before anything is played: the
    first round's fits and a proposal timed here (CPU time, as the games' speeds are measured) on
    random games of the plan's design
    (at most `SAMPLE_GAMES` a design point, the reference deals in full), each fit scaled by the rows it
    will hold (a fit's work grows with its distinct pairs of run and sides held, `Strengths`: the
    design, the current set and every confirmation so far)."""
    now = currents(load_components(plan.components).with_overrides(plan.overrides))
    points = design(plan, now)
    sample_games = min(plan.games, SAMPLE_GAMES)
    fitting, surrogates = 0.0, {}
    for p in plan.players:
        reference = min(plan.confirming(p), REFERENCE_DEALS)
        runs = [_blank_run(p, {}, reference, plan.seed)] + [_blank_run(p, c, sample_games, plan.seed) for c in points]
        sample = sum(len(np.unique(_groups(r)[0], axis=0)) for r in runs)
        start = time.process_time()
        try:
            first = fit_surrogate(runs, plan)
        except ValueError:
            sampled = " (a timing sample of the plan)" if sample_games < plan.games else ""
            raise ValueError(f"the surrogate at {p} players cannot be fitted: {plan.points} design points of "
                             f"{sample_games:,} games{sampled} cannot tell apart the effects of every changeable "
                             f"value of every named side; use more --points or --games, or name fewer --side or "
                             f"--values") from None
        middle = time.process_time()
        surrogates[p] = fit_surrogate(runs, plan, replace(first, params=np.array([]))).anchor(runs[0])  # cold: at most
        end = time.process_time()
        held = [plan.points * dealt(p, plan.games) + r * dealt(p, plan.confirming(p))
                for r in range(1, plan.rounds + 1)]
        fitting += (middle - start) * held[0] / sample + (end - middle) * sum(held[1:]) / sample
    start = time.process_time()
    propose(surrogates, plan, now)
    return fitting + plan.rounds * (time.process_time() - start)


def fit(plan: FitPlan, play: Play | None = None, progress=None) -> Fit:
    """The fit: designed sweep, surrogate, proposal, confirmation on fresh deals, refit, until it stops
    (see the module's docstring). `play` plays one run (default: the real game, `simulate_play`);
    `progress(text)` is called before each step."""
    say = progress or (lambda text: None)
    unknown = [s for s in plan.sides if s not in SIDES]
    bad_fields = [f for f in plan.fields if f not in SETUP_VALUES]
    if unknown or bad_fields or not plan.sides or not plan.fields or not plan.players:
        raise ValueError(f"a fit needs sides among {', '.join(SIDES)} and values among {', '.join(SETUP_VALUES)}"
                         + (f"; unknown: {', '.join(unknown + bad_fields)}" if unknown or bad_fields else ""))
    now = currents(load_components(plan.components).with_overrides(plan.overrides))
    play = play or simulate_play(plan, now)
    start, cpu_start = time.perf_counter(), _cpu()
    data: dict[int, list[Run]] = {p: [] for p in plan.players}
    played = 0
    points = [{}] + design(plan, now)
    for p in plan.players:
        for k, point in enumerate(points):
            games = plan.confirming(p) if k == 0 else plan.games  # the current set's shares pin the surrogate
            say(f"design: {p} players, point {k + 1} of {len(points)}, {games:,} games")
            data[p].append(Run(p, point, plan.seed, f"p{p}-design-{k}", play(p, point, plan.seed, games,
                                                                            f"p{p}-design-{k}")))
            played += games
    rounds: list[Round] = []
    status, reason = "rounds", ""
    surrogates: dict[int, Surrogate] = {}
    last = {p: data[p][0] for p in plan.players}   # the set last played in full: the current set, then each round's
    for r in range(1, plan.rounds + 1):
        say(f"round {r}: fitting the surrogates")
        surrogates = {p: fit_surrogate(data[p], plan, surrogates.get(p)).anchor(last[p]) for p in plan.players}
        proposal = propose(surrogates, plan, now, rounds[-1].proposal.change if rounds else None)
        if rounds and proposal.change == rounds[-1].proposal.change:
            status, reason = _why(rounds[-1], proposal, plan)
            break
        seed = plan.seed + r
        confirm = []
        for p in plan.players:
            say(f"round {r}: confirming {count(proposal.change)} changes at {p} players, {plan.confirming(p):,} "
                f"fresh games")
            label = f"p{p}-round-{r}-{_digest(proposal.change)}"
            run = Run(p, proposal.change, seed, label, play(p, proposal.change, seed, plan.confirming(p), label))
            confirm.append(run)
            data[p].append(run)
            last[p] = run
            played += plan.confirming(p)
        rounds.append(Round(r, proposal, seed, verdicts(confirm, plan.sides, plan.margin),
                            {p: m.added for p, m in surrogates.items()}))
        if rounds[-1].confirmed:
            status, reason = "confirmed", (f"confirmed: every named side is fair within ±{100 * plan.margin:g} pp "
                                           f"of 1/P at {_counts(plan.players)} players on fresh deals")
            break
    else:
        final = rounds[-1]
        status, reason = _why(final, final.proposal, plan)
        if status == "rounds":
            reason = f"{plan.rounds} rounds played: " + reason
    before = None
    if rounds:
        seed = max(reversed(rounds), key=lambda r: int(r.table["fair"].sum())).seed  # `Fit.best`'s deals
        base = []
        for p in plan.players:
            say(f"before: the current set at {p} players on the best round's {plan.confirming(p):,} deals")
            label = f"p{p}-before-seed-{seed}"
            base.append(Run(p, {}, seed, label, play(p, {}, seed, plan.confirming(p), label)))
            played += plan.confirming(p)
        before = verdicts(base, plan.sides, plan.margin)
    return Fit(plan, now, rounds, before, reason, status, played, time.perf_counter() - start, _cpu() - cpu_start)


def _digest(change: Change) -> str:
    """A short name of a change set, so that a run directory holds one set (a resumed fit finds it)."""
    return hashlib.sha256(json.dumps(change, sort_keys=True).encode()).hexdigest()[:8]


def _counts(players: list[int]) -> str:
    names = [str(p) for p in sorted(players)]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _why(last: Round, proposal: Proposal, plan: FitPlan) -> tuple[str, str]:
    """Why the fit stops at the set `last` played (the refit proposes it again, or the rounds ran out):
    the sides the proposer could not bring to fair, else the cells short of deals, else the cells the
    play found unfair."""
    if proposal.blocked:
        return "blocked", "; ".join(f"{s} is blocked: {why}" for s, why in proposal.blocked.items())
    open_ = last.table.filter(~pl.col("fair"))
    short = open_.filter(pl.col("more").is_not_null() & pl.col("more").is_not_nan())
    if open_.height and short.height == open_.height:
        cells = "; ".join(f"{r['side']} at {r['players']} players: "
                          + undecided_text(r["more"], r["n"], r["games"], "--confirm-games") for r in short.to_dicts())
        return "too few deals", f"too few deals to confirm the set: {cells}"
    cells = ", ".join(f"{r['side']} at {r['players']} players ({r['verdict']})" for r in open_.to_dicts())
    return "rounds", f"not confirmed: {cells}"


def _cpu() -> float:
    """CPU seconds of this process and its finished children (the workers of a run)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


# --- output -----------------------------------------------------------------------------------

def command_line(plan: FitPlan) -> str:
    """The command that makes this fit."""
    parts = ["hadara-sim balance fit", *[f"-p {p}" for p in plan.players], f"--policy {plan.policy}"]
    if sorted(plan.sides) != sorted(SIDES):
        parts += [f"--side {s}" for s in plan.sides]
    if list(plan.fields) != list(SETUP_VALUES):
        parts.append(f"--values {','.join(plan.fields)}")
    parts += [f"--games {plan.games}", f"--points {plan.points}", f"--confirm-games {plan.confirm_option()}",
              f"--rounds {plan.rounds}", f"--margin {100 * plan.margin:g}", f"--aim {plan.aim:g}",
              f"--reach {plan.reach}", f"--max-changed {plan.max_changed}",
              *([] if plan.table else ["--no-table-terms"]), f"--seed {plan.seed}"]
    if plan.components:
        parts.append(f"--components {plan.components}")
    return " ".join(parts)


def change_table(result: Fit) -> pl.DataFrame:
    """One row per changed value: side, field, current, proposed, change."""
    rows = [{"side": s, "value": f, "now": result.now[s][f], "proposed": result.now[s][f] + d, "change": d}
            for s, values in sorted(result.change.items()) for f, d in values.items()]
    return pl.DataFrame(rows, schema={"side": pl.String, "value": pl.String, "now": pl.Int64, "proposed": pl.Int64,
                                      "change": pl.Int64})


def before_after(result: Fit) -> pl.DataFrame:
    """Per named side and player count: win share with its 95% CI and verdict before (the current set)
    and after (the change set), both on the last confirmation's deals."""
    cols = ["players", "side", "n", "mean", "ci_low", "ci_high", "q_equiv", "verdict", "more", "more_games"]
    before = result.before.select(cols).rename({c: f"before_{c}" for c in cols[2:]})
    after = result.after.select(cols).rename({c: f"after_{c}" for c in cols[2:]})
    return before.join(after, on=["players", "side"]).sort(["players", "side"])


def chart(result: Fit, info: dict):
    """Per player count: every named side's win share before and after with its 95% CI, against 1/P
    with the fair band."""
    from matplotlib.lines import Line2D

    from .report.charts import BLUE, GREY, RATE_NOTE, _err, _figure, _finish, _pct_axis, footer

    table = before_after(result)
    counts = sorted(table["players"].unique().to_list())
    fig = _figure(max(7.5, 3.6 * len(counts) + 0.6), 4.6)
    axes = fig.subplots(1, len(counts), squeeze=False)[0]
    for ax, p in zip(axes, counts):
        sub = table.filter(pl.col("players") == p)
        x = np.arange(sub.height)
        ax.axhspan(100 * (1 / p - result.plan.margin), 100 * (1 / p + result.plan.margin), color=GREY, alpha=0.15,
                   lw=0)
        ax.axhline(100 / p, color=GREY, ls="--", lw=1.1)
        for when, colour, shift in (("before", GREY, -0.15), ("after", BLUE, 0.15)):
            m, err = _err(sub[f"{when}_mean"], sub[f"{when}_ci_low"], sub[f"{when}_ci_high"], 100)
            ax.errorbar(x + shift, m, yerr=err, fmt="o", color=colour, ecolor=colour, capsize=3, markersize=5)
        changed = [s in result.change for s in sub["side"].to_list()]
        ax.set_xticks(x, [f"{s}*" if c else s for s, c in zip(sub["side"].to_list(), changed)])
        ax.set_title(f"{p} players (n ≥ {min(sub['before_n'].min(), sub['after_n'].min()):,} deals per side)",
                     fontsize=10)
        ax.grid(axis="y", alpha=0.3)
        _pct_axis(ax, "y")
    axes[0].set_ylabel("win share (%)")
    handles = [Line2D([], [], marker="o", ls="", color=GREY, label="before (current set)"),
               Line2D([], [], marker="o", ls="", color=BLUE, label="after (change set)"),
               Line2D([], [], color=GREY, ls="--", label="fair share 1/P"),
               Line2D([], [], color=GREY, lw=6, alpha=0.3, label=f"±{100 * result.plan.margin:g} pp")]
    fig.legend(handles=handles, loc="outside lower center", ncol=4, fontsize=8.5, frameon=False)
    return _finish(fig, "Setup card sides before and after the fitted change set, against 1/P",
                   footer(info, "* = a side the set changes; both on the same fresh deals", RATE_NOTE))

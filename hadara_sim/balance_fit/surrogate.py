"""The surrogate: a softmax model of the winner fitted to the runs, its terms chosen where the data
demand them (see the package docstring)."""

from __future__ import annotations

import itertools
import math
import warnings
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from ..components import SETUP_VALUES
from ..report import inference as I
from .plan import REFERENCE_DEALS, SIDES, Change, FitPlan

if TYPE_CHECKING:  # scipy is imported where the fits compute: `balance check --card` imports this package
    from scipy import sparse

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
        from scipy import sparse

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
        # Hessian's sum over rows runs over those kinds when they are few (a dense product), else over the
        # sparse rows themselves (table terms of most sides make most rows distinct; a dense product of
        # them would cost rows x terms^2 and spin BLAS threads)
        kind = (np.repeat(run_of[first], p) * len(SIDES) + self.held.ravel()) * p + np.tile(np.arange(p), len(first))
        _, one, kind_of = np.unique(np.column_stack([kind, table_values]), axis=0, return_index=True,
                                    return_inverse=True)
        few = 4 * len(one) <= len(kind)
        self.kinds = self.matrix[one].toarray() if few else None   # (kinds, terms) the distinct rows of the matrix
        self.kind_of = kind_of.ravel()            # (groups x players,) the kind of each row
        g = len(first)
        self.sum_games = sparse.csr_matrix((np.ones(g * p), (np.repeat(np.arange(g), p), np.arange(g * p))),
                                           shape=(g, g * p))

    def _matrix(self, held, run_of, values, table) -> sparse.csr_matrix:
        from scipy import sparse

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
        from scipy import sparse

        n, p = self.game_y.shape
        residual = self.game_y - chance[self.group_of]
        by_deal = sparse.csr_matrix((residual.ravel(), (np.repeat(self.deals, p),
                                                        (self.group_of[:, None] * p + np.arange(p)).ravel())),
                                    shape=(self.deals.max() + 1, self.matrix.shape[0]))
        return by_deal @ self.matrix


def _model_class():
    """The softmax likelihood as a statsmodels GenericLikelihoodModel (imported when first fitted)."""
    from scipy.special import logsumexp, softmax
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
            weight = (d.games[:, None] * p).ravel()                                       # (rows,)
            if d.kinds is None:
                rows = (d.matrix.T @ d.matrix.multiply(weight[:, None])).toarray()
            else:
                rows = d.kinds.T @ (d.kinds * np.bincount(d.kind_of, weight, len(d.kinds))[:, None])
            return -(rows - per_game.T @ (per_game * d.games[:, None]))

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
        from scipy.special import softmax

        deals, weights = (self.deals, self.weights) if deals is None else (deals, weights)
        chance = softmax(self.seat_strengths(change, deals), axis=1) * weights[:, None]
        with np.errstate(invalid="ignore", divide="ignore"):
            return (np.bincount(deals.ravel(), chance.ravel(), len(SIDES))
                    / np.bincount(deals.ravel(), np.repeat(weights, deals.shape[1]), len(SIDES)))

    def option_shares(self, change: Change, side: str, options: list[dict[str, int]], block: int = 256) -> np.ndarray:
        """(len(options), 10) every side's predicted win share when `side` takes each of its `options`,
        the other sides changed as in `change`: only the reference deals that hold the side move, its
        own strength and, through their table terms, the strengths of the seats it meets."""
        from scipy import sparse
        from scipy.special import softmax

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
        # each seat's chance added to the side it holds: a sparse product (a dense one spins BLAS threads)
        to_sides = sparse.csr_matrix(held.reshape(-1, len(SIDES))).T
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
            out.append((to_sides @ chance.reshape(len(chunk), -1).T).T)
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


def fit_surrogate(runs: list[Run], plan: FitPlan, previous: Surrogate | None = None,
                  centre: Change | None = None) -> Surrogate:
    """The surrogate of one player count: linear terms of every changed value, then the candidates the
    data demand (`_demanded`): squares and within-side products of a side's changes, and with
    `plan.table` every side's response to the other seats' changes. The terms are chosen on the
    designed sweep, where the values vary together; a refit after a confirmation keeps the `previous`
    surrogate's terms. Its reference deals are those of the run of the `centre` set (default the
    current set): the design's centre."""
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
    reference = next(r for r in runs if r.change == (centre or {}))
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
    from scipy.stats import norm

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

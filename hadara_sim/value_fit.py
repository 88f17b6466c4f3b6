"""Fit the position value `search` stops its depth-limited copies at (`hadara_sim.policies.value`).

A field of one policy (the expert by default: search's default rollout) plays itself; at the end of
epochs I and II each seat's board is read (`position_features`) and regressed on the seat's final total
(statsmodels OLS with an intercept), one fit per player count and epoch, on basic and advanced games
alike (half each). Fresh games of the same field, `holdout` of them, then say how well the fit ranks
seats: the correlation of predicted and final margins (own total less the best other, what search
compares) and how often it names the winner. Same arguments, same coefficients.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from .components import ComponentSet
from .constants import EPOCHS
from .deal import make_deals
from .engine.game import BatchGame
from .engine.scoring import final_scores
from .policies.value import FEATURES, STOPS, PositionValue, position_features
from .policy import Policy
from .tune import toml_string


@dataclass(frozen=True)
class FitQuality:
    """How one (players, epoch) fit predicts fresh games."""

    games: int                # games fitted
    holdout: int              # fresh games it was checked on
    r2: float                 # of the final totals, on the fresh games
    margin_correlation: float  # predicted against final margin, on the fresh games
    winner: float             # share of fresh games whose winner the prediction names


def self_play(components: ComponentSet, policy: Policy, players: int, games: int, seed) -> tuple[dict, np.ndarray]:
    """`games` games of `policy` on every seat, half basic, half advanced: each seat's features at the end
    of each stop epoch, {epoch: (games, P, FEATURES)}, and the final totals (games, P)."""
    features, totals = {epoch: [] for epoch in STOPS}, []
    for advanced, (n, part) in zip((False, True), ((games // 2, 0), (games - games // 2, 1))):
        if not n:
            continue
        deals = make_deals(components, players, n, seed=np.random.SeedSequence([*seed, part]), advanced=advanced)
        game = BatchGame(deals, components, [policy] * players, keep_totals=False)
        game.set_up()
        for epoch in EPOCHS:
            game.play_epoch(epoch)
            if epoch in STOPS:
                features[epoch].append(position_features(game.s))
        totals.append(final_scores(game.s)["total"].astype(np.float64))
    return {epoch: np.concatenate(f) for epoch, f in features.items()}, np.concatenate(totals)


def fit_value(components: ComponentSet, policy: Policy, players: tuple[int, ...], games: int, holdout: int,
              seed: int, say=print) -> tuple[PositionValue, dict]:
    """The fitted value at each player count, and its quality per (players, epoch) on fresh games."""
    # imported here: statsmodels (with scipy.stats and pandas) takes seconds to load, which
    # scripts/fit_value.py's --help paid
    from statsmodels.regression.linear_model import OLS
    from statsmodels.tools.sm_exceptions import SingularMatrixWarning

    coefficients, quality = {}, {}
    for P in players:
        say(f"{P} players: {games} self-play games of {policy.name} to fit, {holdout} fresh ones to check")
        features, totals = self_play(components, policy, P, games, (seed, P, 0))
        fresh, fresh_totals = self_play(components, policy, P, holdout, (seed, P, 1))
        for epoch in STOPS:
            X = features[epoch].reshape(-1, len(FEATURES))
            with warnings.catch_warnings():  # a feature constant so far (no gold in epoch I): pinv gives it 0
                warnings.simplefilter("ignore", SingularMatrixWarning)
                result = OLS(totals.reshape(-1), np.column_stack([np.ones(len(X)), X])).fit()
            coefficients[(P, epoch)] = np.asarray(result.params, np.float64)
            predicted = coefficients[(P, epoch)][0] + fresh[epoch] @ coefficients[(P, epoch)][1:]
            quality[(P, epoch)] = _quality(games, predicted, fresh_totals)
            q = quality[(P, epoch)]
            say(f"{P} players, after epoch {epoch}: fresh games' totals R2 {q.r2:.3f}, margins correlate "
                f"{q.margin_correlation:.3f}, winner named in {100 * q.winner:.1f}%")
    return PositionValue("(fitted)", components.base_digest, policy.name, coefficients), quality


def _quality(games: int, predicted: np.ndarray, final: np.ndarray) -> FitQuality:
    """How `predicted` totals (games, P) match the `final` ones."""
    r2 = 1 - ((final - predicted) ** 2).sum() / ((final - final.mean()) ** 2).sum()
    return FitQuality(games, len(final), float(r2), float(np.corrcoef(margins(predicted).ravel(),
                                                                       margins(final).ravel())[0, 1]),
                      float(np.mean(predicted.argmax(axis=1) == final.argmax(axis=1))))


def margins(totals: np.ndarray) -> np.ndarray:
    """(games, P) each seat's total less the best other seat's."""
    P = totals.shape[1]
    others = np.where(np.eye(P, dtype=bool)[None], -np.inf, totals[:, None, :])  # (games, seat, other)
    return totals - others.max(axis=2)


def value_toml(value: PositionValue, quality: dict, command: str) -> str:
    """The value file: the command that made it, the component set and field, the features, the
    coefficients per player count (a row per stop epoch: intercept, then one per feature) and each fit's
    quality on fresh games."""
    lines = ["# Written by scripts/fit_value.py: `command` fitted these coefficients; rerun it to fit them again.",
             f"command = {toml_string(command)}", f"components = {toml_string(value.components)}",
             f"field = {toml_string(value.field)}",
             "features = [" + ", ".join(f'"{f}"' for f in FEATURES) + "]", "", "[coefficients]"]
    for P in sorted({p for p, _ in value.coefficients}):
        rows = [value.coefficients[(P, epoch)] for epoch in STOPS]
        lines += [f"p{P} = [  # after epoch " + ", ".join(map(str, STOPS)) + ": intercept, then per feature"]
        lines += ["    [" + ", ".join(f"{c:.6g}" for c in row) + "]," for row in rows] + ["]"]
    for (P, epoch), q in sorted(quality.items()):
        lines += ["", "[[quality]]  # on fresh games of the same field", f"players = {P}", f"epoch = {epoch}",
                  f"games = {q.games}", f"holdout = {q.holdout}", f"r2 = {q.r2:.4f}",
                  f"margin_correlation = {q.margin_correlation:.4f}", f"winner = {q.winner:.4f}"]
    return "\n".join(lines) + "\n"

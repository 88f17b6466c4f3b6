"""The learned position value: what a game stopped at the end of an epoch is worth to each seat.

`search` plays its copies of the game on to the end; with `depth` below 3 it stops them at the end of
an earlier epoch and scores each seat by this value instead: a linear prediction of the seat's final
total from what its board holds then (the score pad as if the game ended there, line by line, the
tracks, coins, cards per colour, purple effects and unused bonus tiles), one fit per player count and
epoch. The fit (`hadara_sim.learn.fit_value`, `scripts/fit_value.py`) regresses the final totals of
self-play games of a field (the expert's by default) on these features at the end of epochs I and II
(statsmodels OLS), so the value is the field's expected final total from there: it holds for the
component set and the field it was fitted on, as the expert's weights do.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hadara_sim.constants import COLOURS, EPOCHS, MAX_PLAYERS, MIN_PLAYERS, TRACKS
from hadara_sim.engine.scoring import score
from hadara_sim.engine.state import BatchState

from .tuned import TUNED_DIR, checkout_script, learned_row, read_learned, script_command

VALUE_FILE = TUNED_DIR / "position-value.toml"
FIT_SCRIPT = checkout_script("fit_value.py", __file__)
PAD_FEATURES = ("colonies", "statues", "silver", "gold", "cards", "coins")  # score pad lines (points)
FEATURES = (*(f"{line}_points" for line in PAD_FEATURES), *TRACKS, "coins_held",
            *(f"{colour}_cards" for colour in COLOURS), "effects", "unused_tiles")
STOPS = EPOCHS[:-1]          # the epochs a copy may stop after


def fit(args: str = "") -> str:
    """The command that fits a position value, in backticks (`tuned.script_command`)."""
    return script_command(FIT_SCRIPT, args)


def position_features(s: BatchState) -> np.ndarray:
    """(games, P, FEATURES) each seat's board as the value reads it."""
    pad = score(s)
    columns = ([pad[line] for line in PAD_FEATURES] + [s.tracks[:, :, t] for t in range(len(TRACKS))]
               + [s.coins] + [s.colour_count[:, :, c] for c in range(len(COLOURS))]
               + [s.effects.sum(axis=2), s.tiles.sum(axis=2)])
    return np.stack([np.asarray(column, np.float64) for column in columns], axis=2)


@dataclass(frozen=True)
class PositionValue:
    """Fitted coefficients: per player count and stop epoch, an intercept then one per FEATURES."""

    path: str
    components: str         # the digest of the component set the games were played on
    field: str              # the policy whose self-play games were fitted
    coefficients: dict      # (players, epoch) -> (1 + len(FEATURES),) float64

    def totals(self, s: BatchState, epoch: int) -> np.ndarray:
        """(games, P) each seat's predicted final total from the end of `epoch`."""
        key = (s.players, epoch)
        if key not in self.coefficients:
            raise ValueError(f"position value {self.path} has no fit for {s.players} players after epoch {epoch}: "
                             f"fit it with {fit(f'-p {s.players} --out FILE')}")
        c = self.coefficients[key]
        return c[0] + position_features(s) @ c[1:]

    def check(self, components) -> None:
        """Stop unless the games are of the component set the value was fitted on (or what-if changes of it)."""
        if components.base_digest != self.components:
            raise ValueError(f"position value {self.path} was fitted on the component set {self.components}, but "
                             f"these games use {components.base_digest}: fit one for it with "
                             f"{fit('--components PATH --set weights=WEIGHTS --out FILE')} (WEIGHTS: expert "
                             "weights learned on that set, as train_expert.py beside it writes them: the fit plays "
                             "the expert) and play it with --policy search:value=FILE (in a scenario: params = "
                             f"{{value = \"FILE\"}})")


def read_value(path: str | Path) -> PositionValue:
    """The value in a file written by `scripts/fit_value.py`, checked: the features this module reads, in
    its order, finite coefficients in range, under `[pN]` tables with one row per stop epoch."""
    where = f"position value {path}"
    data = read_learned(path, where, f"the fit ({fit()})")
    if "features" not in data:
        raise ValueError(f"{where}: no `features` in it: not a position value file; give one the fit "
                         f"({fit()}) wrote")
    if data.get("features") != list(FEATURES):
        raise ValueError(f"{where}: made for features {data.get('features')}, but search reads {list(FEATURES)}: "
                         f"fit it again with {fit('--out FILE')}")
    for key in ("components", "field"):
        if not isinstance(data.get(key), str):
            raise ValueError(f"{where}: field {key} is missing")
    coefficients = {}
    for players in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        rows = data.get("coefficients", {}).get(f"p{players}")
        if rows is None:
            continue
        if not isinstance(rows, list) or len(rows) != len(STOPS):
            raise ValueError(f"{where}: coefficients.p{players} must be {len(STOPS)} rows, one per epoch a copy "
                             f"may stop after ({', '.join(map(str, STOPS))})")
        for epoch, row in zip(STOPS, rows):
            at = f"{where}: coefficients.p{players} epoch {epoch}"
            shape = f"{at} must be {1 + len(FEATURES)} numbers: the intercept, then one per feature"
            coefficients[(players, epoch)] = np.array(learned_row(row, 1 + len(FEATURES), shape, at, "coefficient"),
                                                      np.float64)
    if not coefficients:
        raise ValueError(f"{where}: no [coefficients] table of any player count (p2 .. p5)")
    return PositionValue(str(path), data["components"], data["field"], coefficients)

"""The built-in playing styles: planners with their own weights and a few rules of their own."""

from __future__ import annotations

import numpy as np
from numba import njit

from hadara_sim.constants import CULTURE, MILITARY
from hadara_sim.policy import Decision

from .common import own
from .planner import Planner
from .tuned import tuned_params


class Military(Planner):
    name = "military"
    description = ("Builds military early and takes a colony at every step it can, the highest level in "
                   "reach; integrates when the expected back (mean of the level's unseen backs) is worth "
                   "more than the plunder. Red cards and military tiles are preferred.")
    params = {**Planner.params, "military": 1.8, "culture": 0.6, "colours": (0.0, 1.0, 0.0, 0.0, 0.0),
              "colony_prize": 6.0, "statue_prize": 1.5}

    def colony(self, d: Decision):
        """Any colony beats none; among colonies, the planner's valuation decides."""
        choice = super().colony(d)
        taking = d.legal[:, 1:].any(axis=1)
        fallback = d.legal[:, 1:].argmax(axis=1) + 1
        return np.where((choice == 0) & taking, fallback, choice)


class Culture(Planner):
    name = "culture"
    description = ("Drives culture to carve all four statues early, placing coloured tiles (culture "
                   "first) while the tracks still pay and points-side tiles late in epoch III; blue "
                   "cards and silver medals on culture are preferred.")
    params = {**Planner.params, "culture": 1.8, "military": 0.6, "colours": (0.0, 0.0, 1.0, 0.0, 0.0),
              "statue_prize": 6.0, "colony_prize": 1.5, "points_side_from": 3}

    def medal(self, d: Decision):
        """Silver medals go on culture when that tile is free."""
        choice = super().medal(d)
        culture_silver = 1 + CULTURE
        prefer = (choice >= 1) & (choice <= 4) & d.legal[:, culture_silver]
        return np.where(prefer, culture_silver, choice)


class Economy(Planner):
    name = "economy"
    description = ("Invests in income first (yellow cards, income tiles and colony backs), sells freely "
                   "early, and converts coins into points in epoch III: points-heavy cards, medals and "
                   "statues bought with the money.")
    params = {**Planner.params, "income": 1.2, "colours": (1.0, 0.0, 0.0, 0.0, 0.0)}

    def context(self, view):
        """Points weigh more once income no longer compounds (epoch III)."""
        ctx = super().context(view)
        late = ctx.epoch == 3
        ctx.track_value[:, MILITARY] *= np.where(late, 0.8, 1.0)
        return ctx


class Sets(Planner):
    name = "sets"
    description = ("Collects five-colour sets: values each card by whether it completes a set, buys both "
                   "gold medals early while they are cheap, and prizes set_collector and gold_wildcard.")
    params = {**Planner.params, "sets": 1.5, "gold_plan": 2, "colours": (0.0, 0.0, 0.0, 0.0, 0.5)}


class BalancedV1(Planner):
    name = "balanced-v1"
    description = ("The first `balanced`, kept as a yardstick: the planner's full evaluation, leaning into "
                   "whichever of military and culture it leads in; sides chosen by the planner's valuation.")
    # Found by a random search (script not kept) against military, culture and economy at 2 and 4 players.
    params = {**Planner.params, "focus": 1.3, "unfocus": 0.3, "focus_prize": 3.0, "other_prize": 3.0,
              "sides": (-1, -1, -1, -1, -1)}

    def side(self, d: Decision):
        """The side table's side for the player's setup card; -1 leaves it to the planner's valuation."""
        table = np.asarray(self.settings["sides"], np.int64)
        fixed = table[own(d.view, "initiative").astype(np.int64) - 1]
        chosen = np.where(fixed >= 0, fixed, super().side(d))
        return np.where(d.legal[np.arange(len(d)), chosen], chosen, d.legal.argmax(axis=1))

    def context(self, view):
        ctx = super().context(view)
        w = self.settings
        military_first = _military_first(view.tracks, np.asarray(view.player, np.int64))
        for track, first in ((MILITARY, military_first), (CULTURE, ~military_first)):
            ctx.track_value[:, track] *= np.where(first, w["focus"], w["unfocus"])
            ctx.prize[track] = np.where(first, w["focus_prize"], w["other_prize"])
        return ctx


class Balanced(BalancedV1):
    name = "balanced"
    description = ("The strongest all-rounder: the planner's full evaluation (lookahead to the next colony "
                   "and statue requirement, expected colony backs, feeding risk, set value, medal timing, "
                   "purple effects), and it specialises as the game unfolds: it leans into whichever of "
                   "military and culture it leads in against its rivals. Its weights and setup side per "
                   "card come from `hadara-sim policies tune` (policies/tuned/balanced.toml).")
    params = {**BalancedV1.params, **tuned_params("balanced")}


@njit(cache=True)
def _military_first(tracks, player):
    """Whether each player leans into military rather than culture: its lead over the strongest rival
    on military against that on culture, plus half its own military-culture edge (contested tracks
    are worth less to chase)."""
    n, players = tracks.shape[:2]
    first = np.empty(n, np.bool_)
    for g in range(n):
        me = player[g]
        rival_military, rival_culture = -np.inf, -np.inf
        for seat in range(players):
            if seat != me:
                rival_military = max(rival_military, float(tracks[g, seat, MILITARY]))
                rival_culture = max(rival_culture, float(tracks[g, seat, CULTURE]))
        military, culture = float(tracks[g, me, MILITARY]), float(tracks[g, me, CULTURE])
        first[g] = ((military - rival_military) - (culture - rival_culture) + 0.5 * (military - culture)) >= 0
    return first

"""The built-in playing styles: planners with their own weights and a few rules of their own."""

from __future__ import annotations

from hadara_sim.params import Param

from .planner import Planner
from .sides import derived_sides
from .tuned import tuned_params


class Military(Planner):
    name = "military"
    description = ("Builds military early and takes a colony at every step it can, the highest level in "
                   "reach; integrates when the expected back (mean of the level's unseen backs) is worth "
                   "more than the plunder. Red cards and military tiles are preferred.")
    params = {**Planner.params, "military": 1.8, "culture": 0.6, "colours": (0.0, 1.0, 0.0, 0.0, 0.0),
              "colony_prize": 6.0, "statue_prize": 1.5}
    # Any colony beats none; among colonies, the planner's valuation decides.
    rules = frozenset({"any_colony"})


class Culture(Planner):
    name = "culture"
    description = ("Drives culture to carve all four statues early, placing coloured tiles (culture "
                   "first) while the tracks still pay and points-side tiles late in epoch III; blue "
                   "cards and silver medals on culture are preferred.")
    params = {**Planner.params, "culture": 1.8, "military": 0.6, "colours": (0.0, 0.0, 1.0, 0.0, 0.0),
              "statue_prize": 6.0, "colony_prize": 1.5, "points_side_from": 3}
    # Silver medals go on culture when that tile is free.
    rules = frozenset({"culture_silver"})


class Economy(Planner):
    name = "economy"
    description = ("Invests in income first (yellow cards, income tiles and colony backs), sells freely "
                   "early, and converts coins into points in epoch III: points-heavy cards, medals and "
                   "statues bought with the money.")
    params = {**Planner.params, "income": 1.2, "colours": (1.0, 0.0, 0.0, 0.0, 0.0)}
    # Points weigh more once income no longer compounds: military is valued x0.8 in epoch III.
    rules = frozenset({"late_military"})


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
              "sides": (-1, -1, -1, -1, -1), "side_choice": "table"}
    # The side table's side for the player's setup card (-1 leaves it to the planner's valuation; an
    # illegal side gives the first legal one), and the focus: track values and prizes scaled by
    # focus / focus_prize on whichever of military and culture the player leads in against its rivals
    # (`hadara_sim.kernels.valuation._military_first`), by unfocus / other_prize on the other.
    rules = frozenset({"focus", "side_table"})
    declared = {
        **Planner.declared,
        "focus": Param(0.0, 10.0, help="multiplier of the track values of the track (military or culture) the "
                                       "policy specialises in"),
        "unfocus": Param(0.0, 10.0, help="multiplier of the track values of the other of military and culture"),
        "focus_prize": Param(0.0, 20.0, help="colony / statue prize on the track the policy specialises in"),
        "other_prize": Param(0.0, 20.0, help="colony / statue prize on the other track"),
        "sides": Param(choices=frozenset({-1, 0, 1}),  # an index of the side in compiled code
                       help="setup side per setup card 1-5 (0 = A, 1 = B, -1 = chosen by the planner's "
                            "valuation); written by hadara-sim policies tune; with side_choice \"derived\", only "
                            "where the trial starts"),
        "side_choice": Param(choices=frozenset({"table", "derived"}),
                             help="\"derived\": each setup card's side found by play on the game's own components "
                                  "and player count (A against B on the same deals, cached); \"table\": the sides "
                                  "table as it is"),
    }

    def kernel_settings(self, components, players, advanced) -> dict:
        """With side_choice "derived", in the advanced game (the basic game has no sides to choose), the
        side table found by play for these components and this player count (`policies.sides`);
        `sides` is then only where that trial starts."""
        if self.settings["side_choice"] != "derived" or components is None or not players or not advanced:
            return self.settings
        found = self.__dict__.setdefault("_derived", {})  # a search builds many games: look up once
        key = (components.digest, players)
        if key not in found:
            found[key] = {**self.settings, "sides": derived_sides(self, components, players).sides}
        return found[key]


class Balanced(BalancedV1):
    name = "balanced"
    description = ("The all-rounder of the hand-written styles: the planner's full evaluation (lookahead to "
                   "the next colony and statue requirement, expected colony backs, feeding risk, set value, medal "
                   "timing, purple effects), and it specialises as the game unfolds: it leans into whichever of "
                   "military and culture it leads in against its rivals. Its weights come from "
                   "`hadara-sim policies tune` (policies/tuned/balanced.toml); its setup side per card is "
                   "found by play on the game's own components and player count (policies/sides.py).")
    params = {**BalancedV1.params, **tuned_params("balanced"), "side_choice": "derived"}


class Foresight(Balanced):
    name = "foresight"
    description = ("`balanced`, with its phase B picks played forward: the piles are public, so for each "
                   "pick it plays the next round of picks with every seat taking its best pick by its own "
                   "valuation, and takes the pick whose line brings it most, less `rival_weight` times "
                   "what it brings a rival; in a draw round it discards the card a rival would gain least "
                   "from; after epoch III's phase B, when only the final score is left to play for, it "
                   "carves on the points side and buys a medal only if it adds to the final score. "
                   "Compiled, at engine speed.")
    params = {**Balanced.params, "rival_weight": 1.0, "pick_rounds": 1, "deny": 0.3,
              **tuned_params("foresight")}
    rules = frozenset({"pick_ahead", "endgame"})
    # pick_rounds 0 plays to the end of the phase; deny weighs a rival's gain from the card discarded
    # in a draw round (it may be picked in phase B).
    declared = {
        **Balanced.declared,
        "rival_weight": Param(0.0, 10.0, help="phase B picks played forward: weight of what the rivals' picks bring "
                                              "them on average against what the policy's own picks bring it (1 = a "
                                              "rival's point counts as much as its own)"),
        "pick_rounds": Param(0, 5, help="rounds of picks played forward after each phase B pick (0 = to the end of "
                                        "the phase)"),
        "deny": Param(0.0, 10.0, help="in a draw round, points per point a rival would gain from the card discarded "
                                      "(it may be picked in phase B)"),
    }

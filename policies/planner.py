"""`Planner`: a policy that values every option by the points it is expected to bring by the end.

It looks beyond the immediate gain: coins lose value as the game runs out, income pays until the
end, a military or culture step is worth a colony or statue when it reaches the next requirement
in time, a card beyond the food track costs a card at the next feeding, a card of a missing colour
is worth a set to a player with gold medals, and medals are bought while they are cheap and will
pay. The built-in styles (`military`, `culture`, `economy`, `sets`, `balanced`) are planners with
different weights and a few rules of their own. The valuation is compiled: `hadara_sim.kernels`.
"""

from __future__ import annotations

from hadara_sim.constants import COLOURS
from hadara_sim.params import Param
from hadara_sim.policy import Decision, Kernel, Policy

from hadara_sim.kernels import layout
from hadara_sim.kernels.decide import choose
from hadara_sim.kernels.restrict import RESTRICTION, restricted


class Planner(Policy):
    name = "planner"
    description = ("Values every option by the points it is expected to bring by the end of the game "
                   "(projected tracks, colony and statue thresholds, feeding risk, sets, medal timing).")
    # General weights found by a random search (see `Balanced`); the styles change a few.
    params = {
        "coin": 0.55, "coin_end": 0.3, "points": 0.8, "income": 0.7, "military": 0.8,
        "culture": 1.0, "food": 1.6, "sets": 0.5, "effects": 1.5, "colours": (0.0, 0.0, 0.0, 0.0, 0.0),
        "gold_plan": 0, "feed_loss": 3.0, "colony_prize": 3.0, "statue_prize": 3.0,
        "points_side_from": 3, "integrate_margin": 0.0, "silver_min": 10,
        "avoid": (), "seek": (),
    }
    # Weights are bounded so that no valuation overflows in the compiled code.
    declared = {
        "coin": Param(0.0, 10.0, help="points one coin is worth early in the game (falls to coin_end by the last "
                                      "income step)"),
        "coin_end": Param(0.0, 10.0, help="points one coin is worth at the last income step, when coins can only "
                                          "buy points"),
        "points": Param(0.0, 10.0, help="weight of printed points (cards, colonies, statues, medals): 1 = take "
                                        "them at face value"),
        "income": Param(0.0, 10.0, help="points per step of income, per income step still to come (times the "
                                        "coin value)"),
        "military": Param(0.0, 10.0, help="points per step of military (reaching colonies), scaled down near the "
                                          "end of the game"),
        "culture": Param(0.0, 10.0, help="points per step of culture (reaching statues), scaled down near the end "
                                         "of the game"),
        "food": Param(0.0, 10.0, help="points per step of food while the track is close to the card count (less "
                                      "when there is slack)"),
        "sets": Param(0.0, 10.0, help="weight of the set value of a card: how much it adds to five-colour sets "
                                      "for gold medals and set_collector"),
        "effects": Param(0.0, 10.0, help="weight of a purple effect's rough value (see hadara-sim components "
                                         "effects), fading in the last epoch"),
        "colours": Param(-10.0, 10.0, help=f"extra points for a card of each colour ({', '.join(COLOURS)}): the "
                                           "style's favourite colour"),
        "gold_plan": Param(0, 2, help="gold medals the policy plans to buy; cards for sets are valued with them "
                                      "in mind"),
        "feed_loss": Param(0.0, 20.0, help="points lost when a card must be given up at feeding, used to price a "
                                           "card over the food track"),
        "colony_prize": Param(0.0, 20.0, help="bonus points for a card that brings military up to the next colony "
                                              "requirement in time"),
        "statue_prize": Param(0.0, 20.0, help="bonus points for a card that brings culture up to the next statue "
                                              "requirement in time"),
        "points_side_from": Param(1, 4, help="from this epoch on, statues are placed on their points side instead "
                                             "of the coloured side (4: never)"),
        "integrate_margin": Param(-20.0, 20.0, help="points an integration must beat a plunder by before the "
                                                    "policy integrates"),
        "silver_min": Param(0, 50, help="smallest number of points a silver medal must bring for the policy to "
                                        "buy it"),
        **RESTRICTION,
    }

    # Style rules a subclass turns on (policies/styles.py, `hadara_sim.kernels.layout.RULES`).
    rules: frozenset = frozenset()

    def kernel(self, components=None, players: int | None = None, advanced: bool = True) -> Kernel:
        """The planner kernel with this policy's settings (`kernel_settings`) and the rules of its class
        and its bases; a kind whose method a subclass overrides is left to that method."""
        settings = self.kernel_settings(components, players, advanced)
        key = tuple(settings.get("sides", ()))
        kernels_made = self.__dict__.setdefault("_kernels", {})
        if key not in kernels_made:
            params = layout.planner_params(settings, self.style_rules())
            kernels_made[key] = Kernel(layout.PLANNER, params, layout.NO_TABLE, layout.kernel_kinds(self, Planner))
        return kernels_made[key]

    @classmethod
    def style_rules(cls) -> frozenset:
        """The style rules of this class and its bases (`rules`)."""
        return frozenset().union(*(vars(c).get("rules", ()) for c in cls.__mro__))

    def kernel_settings(self, components, players, advanced) -> dict:
        """The settings the kernel plays by in games of `components` at `players` players."""
        return self.settings

    def draw(self, d: Decision):
        """Buy or sell the card kept, valued by what it brings by the end less its price."""
        # The kernel at the game's player count: a subclass's parameters may depend on it (the expert's weights).
        return choose(self.kernel(None, d.view.players), "draw", d, restricted(self, d))

    def pick(self, d: Decision):
        """Buy or sell the top card of a discard pile, valued like a drawn card."""
        return choose(self.kernel(None, d.view.players), "pick", d, restricted(self, d))

    def tile(self, d: Decision):
        """A bonus tile on the track where one more step is worth most."""
        return choose(self.kernel(), "tile", d)

    def side(self, d: Decision):
        """The setup side worth most: its coins and its track steps at their value."""
        return choose(self.kernel(d.view.components, d.view.players), "side", d)

    def wheel(self, d: Decision):
        """Face first the deck of the colour the player values most (its cheapest, most useful buys)."""
        return choose(self.kernel(), "wheel", d)

    def colony(self, d: Decision):
        """Plunder for the front's coins and points, or integrate for the level's expected back."""
        return choose(self.kernel(), "colony", d)

    def statue(self, d: Decision):
        """A statue's points and bonus, on the coloured side early and the points side late."""
        return choose(self.kernel(), "statue", d)

    def feed(self, d: Decision):
        """Give up the card worth least to keep, or pay coins when that costs less."""
        return choose(self.kernel(), "feed", d)

    def medal(self, d: Decision):
        """Silver and gold medals on the tracks and sets projected to the end, while cheap."""
        return choose(self.kernel(), "medal", d)

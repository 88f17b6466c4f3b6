"""`greedy`: at every decision, the option with the best immediate value.

Values are in points: a card is worth its points plus its track steps times a weight per track
(income earns its coins until the end) plus a flat value for a purple effect and a bonus per colour;
coins are worth `coin` points each. Colonies, statues and medals are valued by the points and steps
they give at once. No lookahead: a baseline that plays every decision sensibly. The valuation is
compiled (`hadara_sim.kernels`); the card values come from a table made once per component set.
"""

from hadara_sim.policy import Decision, Kernel, Policy

from hadara_sim.kernels import layout
from hadara_sim.kernels.decide import choose
from hadara_sim.kernels.restrict import restricted
from .common import value_table
from .planner import Planner


class Greedy(Policy):
    name = "greedy"
    description = ("Takes the option with the best immediate value in points, under weights for "
                   "tracks, coins, points and card colours. No lookahead.")
    params = {"income": 1.0, "military": 0.8, "culture": 0.8, "food": 1.3, "coin": 0.35,
              "points": 1.0, "colours": (0.0, 0.0, 0.0, 0.0, 0.0), "avoid": (), "seek": ()}
    declared = {name: Planner.declared[name] for name in params}  # the planner's weights, in the same words

    def values(self, components):
        """This policy's card value table for a component set (computed once per set)."""
        tables = self.__dict__.setdefault("_tables", {})
        if components.digest not in tables:
            tables[components.digest] = value_table(components, self.settings)
        return tables[components.digest]

    def kernel(self, components, players: int | None = None, advanced: bool = True) -> Kernel:
        """The greedy kernel with this policy's settings and value table for `components`; a kind whose
        method a subclass overrides is left to that method."""
        kernels = self.__dict__.setdefault("_kernels", {})
        if components.digest not in kernels:
            kernels[components.digest] = Kernel(layout.GREEDY, layout.greedy_params(self.settings),
                                                self.values(components), layout.kernel_kinds(self, Greedy))
        return kernels[components.digest]

    def _choose(self, kind: str, d: Decision):
        return choose(self.kernel(d.view.components), kind, d, restricted(self, d))

    def draw(self, d: Decision):
        """Buy or sell the card kept; among equal values, discard the card worth less."""
        return self._choose("draw", d)

    def pick(self, d: Decision):
        """Buy or sell the top card of a discard pile at its table value less its price."""
        return self._choose("pick", d)

    def tile(self, d: Decision):
        """A bonus tile on the track whose step is worth most."""
        return self._choose("tile", d)

    def side(self, d: Decision):
        """The setup side whose coins and track steps are worth most."""
        return self._choose("side", d)

    def wheel(self, d: Decision):
        """Face first the deck of the colour the player holds most of (cheapest buys)."""
        return self._choose("wheel", d)

    def colony(self, d: Decision):
        """Plunder or integrate, valued by the coins, points and expected back steps at once."""
        return self._choose("colony", d)

    def statue(self, d: Decision):
        """The statue's points and its bonus on the tile's track or as points (spending the least useful tile)."""
        return self._choose("statue", d)

    def feed(self, d: Decision):
        """Give up the card worth least, or pay coins when that costs less."""
        return self._choose("feed", d)

    def medal(self, d: Decision):
        """A silver medal on the track scoring most, or gold for the sets owned, less the price."""
        return self._choose("medal", d)

"""What each built-in parameter means, in words, for `hadara-sim policies show`.

Kept apart from the policies' code: a policy of your own can add `param_help = {name: text}` as a
class attribute, which `policies show` prefers to the texts here.
"""

from __future__ import annotations

from hadara_sim.constants import COLOURS

PARAM_HELP = {
    "coin": "points one coin is worth early in the game (falls to coin_end by the last income step)",
    "coin_end": "points one coin is worth at the last income step, when coins can only buy points",
    "points": "weight of printed points (cards, colonies, statues, medals): 1 = take them at face value",
    "income": "points per step of income, per income step still to come (times the coin value)",
    "military": "points per step of military (reaching colonies), scaled down near the end of the game",
    "culture": "points per step of culture (reaching statues), scaled down near the end of the game",
    "food": "points per step of food while the track is close to the card count (less when there is slack)",
    "sets": "weight of the set value of a card: how much it adds to five-colour sets for gold medals "
            "and set_collector",
    "effects": "weight of a purple effect's rough value (see hadara-sim components effects), fading in "
               "the last epoch",
    "colours": "extra points for a card of each colour ({colours}): the style's favourite colour",
    "gold_plan": "gold medals the policy plans to buy (0-2); cards for sets are valued with them in mind",
    "feed_loss": "points lost when a card must be given up at feeding, used to price a card over the food track",
    "colony_prize": "bonus points for a card that brings military up to the next colony requirement in time",
    "statue_prize": "bonus points for a card that brings culture up to the next statue requirement in time",
    "points_side_from": "from this epoch on, statues are placed on their points side instead of the coloured side",
    "integrate_margin": "points an integration must beat a plunder by before the policy integrates",
    "silver_min": "smallest number of points a silver medal must bring for the policy to buy it",
    "focus": "multiplier of the track values of the track (military or culture) the policy specialises in",
    "unfocus": "multiplier of the track values of the other of military and culture",
    "focus_prize": "colony / statue prize on the track the policy specialises in",
    "other_prize": "colony / statue prize on the other track",
    "sides": "setup side per setup card 1-5 (0 = A, 1 = B, -1 = chosen by the planner's valuation); "
             "written by hadara-sim policies tune; with side_choice \"derived\", only where the trial starts",
    "side_choice": "\"derived\": each setup card's side found by play on the game's own components and player "
                   "count (A against B on the same deals, cached); \"table\": the sides table as it is",
    "rival_weight": "phase B picks played forward: weight of what the rivals' picks bring them on average "
                    "against what the policy's own picks bring it (1 = a rival's point counts as much as its own)",
    "pick_rounds": "rounds of picks played forward after each phase B pick (0 = to the end of the phase)",
    "deny": "in a draw round, points per point a rival would gain from the card discarded (it may be picked "
            "in phase B)",
    "budget": "determinised copies of the game each candidate option is played out in (more = stronger "
              "and slower)",
    "rollout": "the policy that plays the copies on, for the searching seat and its opponents",
    "kinds": "the decision kinds that are searched; any other kind is left to the rollout policy",
    "max_options": "most options tried at one decision, starting with the rollout policy's own choice",
    "avoid": "restricted play: card ids the policy never buys (drawn or picked, they are discarded or sold)",
    "seek": "restricted play: card ids the policy buys whenever one is offered and affordable",
}


def param_text(cls, name: str) -> str:
    """A parameter's meaning in words ('' when nobody wrote one)."""
    own = getattr(cls, "param_help", {}) or {}
    text = own.get(name) or PARAM_HELP.get(name, "")
    return text.format(colours=", ".join(COLOURS))


def value_text(name: str, value) -> str:
    """A parameter value as people read it: colour weights by colour name."""
    if name == "colours" and isinstance(value, (list, tuple)) and len(value) == len(COLOURS):
        shown = [f"{c} {v:g}" for c, v in zip(COLOURS, value) if v]
        return ", ".join(shown) if shown else "none"
    return repr(value) if isinstance(value, str) else f"{value}"

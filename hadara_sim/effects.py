"""What each purple effect does, in our words (the rule as the engines apply it, with the rulings of
docs/rules.md). `hadara-sim components effects` prints this table."""

from __future__ import annotations

EFFECT_TEXT = {
    "sell_bonus": "Each card you sell brings you 1 coin more.",
    "bonus_tile_card": "When you buy it, put one of your unused bonus tiles on it: that track goes up by 2. "
                       "If the card is removed later, the 2 steps go and the tile is yours to use again.",
    "affinity_income": "Your income goes up by 1 for every yellow card you own, those you already have and "
                       "those you get later; losing a yellow card (or this one) takes the step away.",
    "affinity_military": "As affinity_income, for red cards and the military track.",
    "affinity_culture": "As affinity_income, for blue cards and the culture track.",
    "affinity_food": "As affinity_income, for green cards and the food track.",
    "colony_bounty": "Each time you take a colony you get 4 coins at once, before choosing to plunder or "
                     "integrate (so they can help pay the integration).",
    "medal_discount": "Medals cost you less: silver 4 and gold 6 in epoch II, silver 15 and gold 22 in "
                      "epoch III (no change in epoch I).",
    "feed_with_coins": "At feeding you may pay 2 coins for a card instead of giving it up, for up to 6 cards "
                       "per feeding step.",
    "food_surplus": "At feeding, after removals and payments, each point of food above your card count brings "
                    "3 coins, at most 12 per feeding step.",
    "income_diversity": "At each income step, 2 extra coins for each of military, culture and food that is "
                        "higher than your income track, at most 6.",
    "statue_patron": "Every statue you own or carve later is worth 2 more: 2 more steps on its tile's track if "
                     "the tile is coloured side up, 2 more points if it is points side up.",
    "silver_full": "One of your silver medals (the one that gains most) scores its whole track instead of "
                   "half of it.",
    "set_collector": "At the end, 4 points for each set of five cards of different colours.",
    "gold_wildcard": "For gold medals only, one set may count a card you are missing, of any colour; it does "
                     "not count for set_collector.",
    "double_actions": "In each colony step and each statue step you may act twice; if you pass on the first "
                      "action you are not asked again that step.",
    "requirement_cut": "Colony and statue requirements are 4 lower for you.",
    "requirement_purchase": "You may make up a missing colony or statue requirement by paying 3 coins per "
                            "missing point, at most 30 coins per colony step and per statue step.",
}

"""The contract between the built-ins' compiled decisions and their callers: kernel codes, the
layout of a policy's flat `params`, the view and component arrays `decide` reads, and the builders
of each (made in Python, once per policy or component set).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from hadara_sim import actions as A
from hadara_sim.constants import EFFECT_INDEX


PLANNER, GREEDY = 1, 2  # kernel codes (0 means "no kernel: ask the Python policy")
EXPERT = 3  # the planner with a learned correction (kernels/expert.py; its params: the planner's, then weights)
KIND_CODE = {kind: i for i, kind in enumerate(A.KINDS)}
WHEEL, SIDE, DRAW, TILE, PICK, COLONY, STATUE, FEED, MEDAL = (KIND_CODE[k] for k in A.KINDS)

# A planner's flat `params`, one slot per name, in this order: its settings (colours and setup sides
# five wide), then its style rules (1.0 on) and their settings. `decide` reads each slot by the index
# named below; `planner_params` fills them by name.
PLANNER_FIELDS = (
    "coin", "coin_end", "points", "income", "military", "culture", "food", "sets", "effects",
    *(f"colours[{k}]" for k in range(5)),
    "gold_plan", "feed_loss", "colony_prize", "statue_prize", "points_side_from", "integrate_margin", "silver_min",
    "any_colony", "culture_silver", "late_military",
    "focus_rule", "focus", "unfocus", "focus_prize", "other_prize",
    "side_table", *(f"sides[{k}]" for k in range(5)),
    "pick_ahead", "rival_weight", "pick_rounds", "deny",
    "endgame",
)
AT = {name: i for i, name in enumerate(PLANNER_FIELDS)}
PLANNER_PARAMS = len(PLANNER_FIELDS)

# The settings every planner has, and those of a style rule (read only when the rule is on).
PLANNER_SETTINGS = ("coin", "coin_end", "points", "income", "military", "culture", "food", "sets", "effects",
                    "gold_plan", "feed_loss", "colony_prize", "statue_prize", "points_side_from", "integrate_margin",
                    "silver_min")
RULE_SETTINGS = {"focus": ("focus", "unfocus", "focus_prize", "other_prize"),
                 "pick_ahead": ("rival_weight", "pick_rounds", "deny")}

# The style rules a planner class may name in `Planner.rules` (policies/styles.py), by their flag.
RULES = {"any_colony": AT["any_colony"], "culture_silver": AT["culture_silver"],
         "late_military": AT["late_military"], "focus": AT["focus_rule"], "side_table": AT["side_table"],
         "pick_ahead": AT["pick_ahead"], "endgame": AT["endgame"]}
COIN, COIN_END, POINTS, W_INCOME, W_MILITARY, W_CULTURE, W_FOOD, SETS, EFFECTS = (AT[name] for name in (
    "coin", "coin_end", "points", "income", "military", "culture", "food", "sets", "effects"))
COLOURS_AT, SIDES_AT = AT["colours[0]"], AT["sides[0]"]
GOLD_PLAN, FEED_LOSS, COLONY_PRIZE, STATUE_PRIZE, POINTS_SIDE_FROM, INTEGRATE_MARGIN, SILVER_MIN = (
    AT[name] for name in ("gold_plan", "feed_loss", "colony_prize", "statue_prize", "points_side_from",
                          "integrate_margin", "silver_min"))
ANY_COLONY, CULTURE_SILVER, LATE_MILITARY, FOCUS_RULE, SIDE_TABLE, PICK_AHEAD, ENDGAME = (
    RULES[name] for name in ("any_colony", "culture_silver", "late_military", "focus", "side_table", "pick_ahead",
                             "endgame"))
FOCUS, UNFOCUS, FOCUS_PRIZE, OTHER_PRIZE = (AT[name] for name in RULE_SETTINGS["focus"])
RIVAL_WEIGHT, PICK_ROUNDS, DENY = (AT[name] for name in RULE_SETTINGS["pick_ahead"])

# Greedy's flat `params`, by name in this order; its colours only enter its value table.
GREEDY_FIELDS = ("income", "military", "culture", "food", "coin", "points")
G_INCOME, G_MILITARY, G_CULTURE, G_FOOD, G_COIN, G_POINTS = range(len(GREEDY_FIELDS))

_E = EFFECT_INDEX
AFFINITY = _E["affinity_income"]  # affinity_<track t> is effect AFFINITY + t
SILVER_FULL, SET_COLLECTOR, CUT = _E["silver_full"], _E["set_collector"], _E["requirement_cut"]
FEED_WITH_COINS, COLONY_BOUNTY_EFFECT, PATRON = _E["feed_with_coins"], _E["colony_bounty"], _E["statue_patron"]
WILDCARD = _E["gold_wildcard"]  # the medal discount and sell bonus are read by hadara_sim/rules.py

# By epoch (index 0 unused): the typical growth of a track by the end, and the sets typically still
# to come.
GROWTH = np.array([0.0, 1.0, 0.55, 0.15])
SETS_TO_COME = np.array([0, 2.0, 1.0, 0.0])

# The visible fields `decide` may read, with the dtype and dimensions the engine stores them in.
VIEW_ARRAYS = {"coins": (np.int32, 2), "tracks": (np.int16, 3), "colour_count": (np.int16, 3),
               "effects": (np.bool_, 3), "tiles": (np.int8, 3), "colonies": (np.int8, 3), "colony_ptr": (np.int8, 2),
               "statues": (np.int8, 3), "silver": (np.int8, 3), "gold": (np.int8, 2), "initiative": (np.int8, 2),
               "piles": (np.int16, 3), "pile_size": (np.int8, 2), "colour_order": (np.int8, 2)}
KernelView = namedtuple("KernelView", VIEW_ARRAYS)

# The fields every planner decision reads (its context), and those only some kinds read.
CONTEXT_FIELDS = ("tracks", "colour_count", "effects", "colonies", "colony_ptr", "statues", "silver", "gold")
KIND_FIELDS = {"pick": ("piles", "pile_size", "coins"), "side": ("initiative",), "wheel": ("colour_order",),
               "medal": ("tiles", "coins"), "statue": ("tiles", "coins")}
_EMPTY = {name: np.zeros((1,) * ndim, dtype) for name, (dtype, ndim) in VIEW_ARRAYS.items()}

NO_TABLE = np.zeros((1, 1, 1))


def planner_params(settings: dict, rules) -> np.ndarray:
    """A planner's settings and style rules as the flat `params` of `decide` (PLANNER_FIELDS)."""
    params = np.zeros(PLANNER_PARAMS)
    for name in PLANNER_SETTINGS:
        params[AT[name]] = settings[name]
    params[COLOURS_AT:COLOURS_AT + 5] = settings["colours"]
    for rule in rules:
        params[RULES[rule]] = 1.0
        for name in RULE_SETTINGS.get(rule, ()):
            params[AT[name]] = settings[name]
    if "side_table" in rules:
        params[SIDES_AT:SIDES_AT + 5] = settings["sides"]
    return params


def greedy_params(settings: dict) -> np.ndarray:
    """Greedy's settings as the flat `params` of `decide`."""
    return np.array([float(settings[name]) for name in GREEDY_FIELDS])


def kernel_kinds(policy, base: type) -> frozenset:
    """The kinds whose method `policy` takes unchanged from `base` (a subclass's own method is its own
    decision, asked in Python); none if its class decides in its own `decide`."""
    cls = type(policy)
    if cls.decide is not base.decide:
        return frozenset()
    return frozenset(kind for kind in A.KINDS if getattr(cls, kind, None) is getattr(base, kind))


def gather(view, kind: str) -> KernelView:
    """The fields `decide` reads for a decision kind from a policy's view, in the engine's dtypes;
    fields the kind does not read are passed empty (gathering every seat's rows costs time)."""
    fields = {}
    for name, (dtype, _) in VIEW_ARRAYS.items():
        if name in CONTEXT_FIELDS or name in KIND_FIELDS.get(kind, ()):
            value = view.players - np.asarray(view.colony_left) if name == "colony_ptr" else getattr(view, name)
            fields[name] = np.ascontiguousarray(value, dtype)
        else:
            fields[name] = _EMPTY[name]
    return KernelView(**fields)


# `_pick_ahead`'s scratch, the planner's `table` (3, 2, >= SCRATCH): seat s's worth of each card at
# [s // 2, s % 2, card] (five seats at most), and at [2, 1] the phase played forward: pile sizes,
# then per seat its coins, cards, food track, value of a coin, coins for a sale, and its count of
# each colour.
SIZES, MONEY, CARDS, FOOD_AT, COIN_AT, SALE, COUNTS, SCRATCH = 0, 5, 10, 15, 20, 25, 30, 55
EFFECT_VALUE = {  # rough points-equivalent of each purple effect for a simple player
    "sell_bonus": 2.0, "bonus_tile_card": 2.0, "affinity_income": 4.0, "affinity_military": 3.0,
    "affinity_culture": 3.0, "affinity_food": 3.0, "colony_bounty": 3.0, "medal_discount": 4.0,
    "feed_with_coins": 2.0, "food_surplus": 2.0, "income_diversity": 3.0, "statue_patron": 4.0,
    "silver_full": 6.0, "set_collector": 6.0, "gold_wildcard": 4.0, "double_actions": 3.0,
    "requirement_cut": 4.0, "requirement_purchase": 2.0,
}

# by effect index; the extra last entry (index -1) is "no effect"
EFFECT_VALUES = np.array([EFFECT_VALUE[e] for e in EFFECT_INDEX] + [0.0])

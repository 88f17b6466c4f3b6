"""The built-in bots' decisions as one compiled function, `decide`: the planner styles and greedy.

`decide` values every option of one decision kind for each row (a game and its acting seat) and takes
the best legal one. The Python methods of `Planner` and `Greedy` call it through `choose`, and a
compiled engine can call it directly, so the decision logic exists once.

Decisions are bit for bit those of the numpy code this replaced: every sum is written in the order
numpy computed it. einsum summed 4-term dot products in two lanes, `(a0*b0 + a2*b2) + (a1*b1 + a3*b3)`
(`_dot_lanes`); the planner's and greedy's `track values @ mean_back.T` was an OpenBLAS matmul, which
for more than one row fuses each step (`fma(a3, b3, fma(a2, b2, fma(a1, b1, a0*b0)))`, `_dot_fma`).
For a single row numpy summed in two lanes instead; `decide` always fuses, so that a game's decisions
never depend on how many other games share its batch (and both engines sum alike).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

import hadara_sim.jit_cache  # noqa: F401  (drops numba's cached code when its sources changed)
from hadara_sim import actions as A
from hadara_sim.constants import (
    COLONY_BOUNTY, CULTURE, EFFECT_INDEX, FEED_COIN_PRICE, FOOD, GOLD_POINTS_PER_SET, INCOME,
    MEDAL_DISCOUNT_GOLD, MEDAL_DISCOUNT_SILVER, MILITARY, REQUIREMENT_CUT, SET_COLLECTOR_POINTS,
)
from hadara_sim.policy import Kernel

from .common import EFFECT_VALUES

PLANNER, GREEDY = 1, 2  # kernel codes (0 means "no kernel: ask the Python policy")
KIND_CODE = {kind: i for i, kind in enumerate(A.KINDS)}
WHEEL, SIDE, DRAW, TILE, PICK, COLONY, STATUE, FEED, MEDAL = (KIND_CODE[k] for k in A.KINDS)

# Layout of a planner's `params`: its settings in this order (colours 5 wide), then its style rules.
COIN, COIN_END, POINTS, W_INCOME, W_MILITARY, W_CULTURE, W_FOOD, SETS, EFFECTS = range(9)
COLOURS_AT = 9
GOLD_PLAN, FEED_LOSS, COLONY_PRIZE, STATUE_PRIZE, POINTS_SIDE_FROM, INTEGRATE_MARGIN, SILVER_MIN = range(14, 21)
ANY_COLONY, CULTURE_SILVER, LATE_MILITARY = 21, 22, 23  # rule flags (1.0 on, 0.0 off)
FOCUS_RULE, FOCUS, UNFOCUS, FOCUS_PRIZE, OTHER_PRIZE = 24, 25, 26, 27, 28
SIDE_TABLE, SIDES_AT = 29, 30
PICK_AHEAD, RIVAL_WEIGHT, PICK_ROUNDS, DENY = 35, 36, 37, 38
PLANNER_PARAMS = 39
# Layout of greedy's `params`; its colours only enter its value table.
G_INCOME, G_MILITARY, G_CULTURE, G_FOOD, G_COIN, G_POINTS = range(6)

# The style rules a planner class may name in `Planner.rules` (policies/styles.py).
RULES = {"any_colony": ANY_COLONY, "culture_silver": CULTURE_SILVER, "late_military": LATE_MILITARY,
         "focus": FOCUS_RULE, "side_table": SIDE_TABLE, "pick_ahead": PICK_AHEAD}

_E = EFFECT_INDEX
AFFINITY = _E["affinity_income"]  # affinity_<track t> is effect AFFINITY + t
SILVER_FULL, SET_COLLECTOR, CUT = _E["silver_full"], _E["set_collector"], _E["requirement_cut"]
FEED_WITH_COINS, COLONY_BOUNTY_EFFECT, PATRON = _E["feed_with_coins"], _E["colony_bounty"], _E["statue_patron"]
DISCOUNT, WILDCARD, SELL_BONUS = _E["medal_discount"], _E["gold_wildcard"], _E["sell_bonus"]
# By epoch (index 0 unused): medal_discount's prices, the typical growth of a track by the end, and
# the sets typically still to come.
DISCOUNT_SILVER = np.array([0, 0, MEDAL_DISCOUNT_SILVER[2], MEDAL_DISCOUNT_SILVER[3]])
DISCOUNT_GOLD = np.array([0, 0, MEDAL_DISCOUNT_GOLD[2], MEDAL_DISCOUNT_GOLD[3]])
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
               "medal": ("tiles",)}
_EMPTY = {name: np.zeros((1,) * ndim, dtype) for name, (dtype, ndim) in VIEW_ARRAYS.items()}

# Component arrays `decide` reads, in the dtypes the numpy code used (see `policy_tables`).
TABLE_FIELDS = ("card_values", "card_colour", "card_points", "card_effect", "card_cost", "sell", "setup_coins",
                "setup_values", "level_requirement", "statue_requirement", "statue_points", "statue_bonus",
                "silver_price", "gold_price", "mean_back", "mean_back_points")
PolicyTables = namedtuple("PolicyTables", TABLE_FIELDS)
NO_TABLE = np.zeros((1, 1, 1))


def expected_backs(c) -> tuple[np.ndarray, np.ndarray]:
    """(5, 4) mean track values and (5,) mean points of the backs of each level's colony tiles (made
    once per component set)."""
    cached = c.__dict__.get("_expected_backs")
    if cached is None:
        levels = range(5)
        cached = (np.array([c.colony_back_values[c.colony_level == lv].mean(0) for lv in levels]),
                  np.array([c.colony_back_points[c.colony_level == lv].mean() for lv in levels]))
        c.__dict__["_expected_backs"] = cached
    return cached


def policy_tables(components) -> PolicyTables:
    """The component set's arrays for `decide` (made once per component set)."""
    c = components
    cached = c.__dict__.get("_policy_tables")
    if cached is None:
        mean_back, mean_back_points = expected_backs(c)
        as_int64 = ("sell", "silver_price", "gold_price")  # tuples in the component set
        cached = PolicyTables(*(np.asarray(getattr(c, name), np.int64 if name in as_int64 else None)
                                for name in TABLE_FIELDS[:-2]), mean_back, mean_back_points)
        c.__dict__["_policy_tables"] = cached
    return cached


def planner_params(settings: dict, rules) -> np.ndarray:
    """A planner's settings and style rules as the flat `params` of `decide`."""
    params = np.zeros(PLANNER_PARAMS)
    for k, name in enumerate(("coin", "coin_end", "points", "income", "military", "culture", "food", "sets",
                              "effects")):
        params[k] = settings[name]
    params[COLOURS_AT:COLOURS_AT + 5] = settings["colours"]
    for k, name in enumerate(("gold_plan", "feed_loss", "colony_prize", "statue_prize", "points_side_from",
                              "integrate_margin", "silver_min"), GOLD_PLAN):
        params[k] = settings[name]
    for rule in rules:
        params[RULES[rule]] = 1.0
    if "focus" in rules:
        params[FOCUS:OTHER_PRIZE + 1] = [settings[k] for k in ("focus", "unfocus", "focus_prize", "other_prize")]
    if "side_table" in rules:
        params[SIDES_AT:SIDES_AT + 5] = settings["sides"]
    if "pick_ahead" in rules:
        params[RIVAL_WEIGHT] = settings["rival_weight"]
        params[PICK_ROUNDS] = settings["pick_rounds"]
        params[DENY] = settings["deny"]
    return params


def greedy_params(settings: dict) -> np.ndarray:
    """Greedy's settings as the flat `params` of `decide`."""
    return np.array([float(settings[k]) for k in ("income", "military", "culture", "food", "coin", "points")])


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


def choose(kernel: Kernel, kind: str, d) -> np.ndarray:
    """`decide` for the decision `d` of a Python policy: its view gathered, rows split by epoch and
    phase (in practice all rows share them)."""
    view = d.view
    n = len(d)
    v = gather(view, kind)
    legal = np.require(d.legal, requirements=("C", "W"))  # writable: the engine's type, one compiled decide
    hand = _private(view, "hand", kind == "draw", (n, 2))
    card = _private(view, "card", kind == "tile", (n,))
    feed_need = _private(view, "feed_need", kind == "feed", (n,))
    front = np.ascontiguousarray(view.colony_front, np.int16) if kind == "colony" else np.zeros((1, 5, 4), np.int16)
    seat = np.asarray(view.player, np.int64)
    epoch, phase = np.asarray(view.epoch, np.int64), np.asarray(view.phase, np.int64)
    ct = policy_tables(view.components)
    table = kernel.table
    if kernel.code == PLANNER and kind == "pick":  # scratch space for `_pick_ahead`, as in the engine
        table = np.zeros((3, 2, max(len(ct.card_points), SCRATCH)))
    out = np.empty(n, np.int64)
    g = np.arange(n)
    for e, p in sorted(set(zip(epoch.tolist(), phase.tolist()))):
        rows = g if (epoch == e).all() and (phase == p).all() else np.flatnonzero((epoch == e) & (phase == p))
        decide(kernel.code, KIND_CODE[kind], v, rows, g, seat, e, p, legal, hand, card, feed_need, front, ct,
               kernel.params, table, out)
    return out


def _private(view, name: str, needed: bool, shape) -> np.ndarray:
    """A decision-specific view field as int64 rows, zeros when the kind (or the view) has none."""
    value = getattr(view, name, None) if needed else None
    return np.zeros(shape, np.int64) if value is None else np.ascontiguousarray(value, np.int64)


# `decide` and its helpers allocate nothing and count no references to the arrays they are passed
# (numba would at every call, which costs more than their arithmetic), so a compiled engine built
# without reference counting can call it. Small helpers are inlined into `_planner` and `_greedy`:
# passing them the view and table tuples (dozens of array structs) would cost more than their work.
inner = njit(cache=True, _nrt=False)
helper = njit(cache=True, _nrt=False, inline="always")


@intrinsic
def _fma(typingctx, a, b, c):
    """a * b + c with one rounding (llvm.fma), as OpenBLAS's compute kernels do."""
    sig = types.float64(types.float64, types.float64, types.float64)

    def codegen(context, builder, signature, args):
        double = ir.DoubleType()
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(double, [double] * 3), "llvm.fma.f64")
        return builder.call(fn, args)

    return sig, codegen


@helper
def _dot_lanes(a, b):
    """a . b of two 4-vectors summed as numpy's einsum does (two lanes)."""
    return (a[0] * b[0] + a[2] * b[2]) + (a[1] * b[1] + a[3] * b[3])


@helper
def _dot_fma(a, b):
    """a . b of two 4-vectors summed as OpenBLAS's matrix product does (fused, in order)."""
    return _fma(a[3], b[3], _fma(a[2], b[2], _fma(a[1], b[1], a[0] * b[0])))


@inner
def decide(code, kind, v, rows, g, seat, epoch, phase, legal, hand, card, feed_need, colony_front, ct, params,
           table, out):
    """Built-in policy `code`'s choice in each row i of `rows` (game g[i], acting seat seat[i]) into
    out[i]; the other rows are left alone (the engine passes one decision's rows of every policy)."""
    if code == PLANNER:
        _planner(kind, v, rows, g, seat, epoch, phase, legal, hand, colony_front, ct, params, table, out)
    elif code == GREEDY:
        _greedy(kind, v, rows, g, seat, epoch, phase, legal, hand, colony_front, ct, params, table, out)
    else:
        for i in rows:
            out[i] = _first_legal(legal, i, 0)


@helper
def _better(legal, i, j, value, top, choice):
    """(top, choice) after option j of row i: options are offered in order, and the highest-valued
    legal one wins (the first on ties; option 0 when no legal value beats -inf), as `common.best`."""
    if legal[i, j] and value > top:
        return value, j
    return top, choice


@helper
def _first_legal(legal, i, start):
    """The first legal option of row i from `start` on (`Policy.default` from 0), 0 if none."""
    for j in range(start, legal.shape[1]):
        if legal[i, j]:
            return j
    return 0


@helper
def _income_left(epoch, phase):
    """Income steps still to come, the current phase's included."""
    return 2 * (3 - epoch) + (2 if phase == 0 else 1)


@helper
def _price(v, gi, me, ct, card):
    """What the player pays for `card`: cost less owned cards of its colour."""
    return max(0, ct.card_cost[card] - v.colour_count[gi, me, ct.card_colour[card]])


@helper
def _sell_value(v, gi, me, epoch, ct):
    """Coins for selling a card now."""
    return ct.sell[epoch - 1] + np.int64(v.effects[gi, me, SELL_BONUS])


@helper
def _top(v, gi, colour):
    """The top card of a discard pile (card 0 for an empty pile)."""
    return max(v.piles[gi, colour, max(v.pile_size[gi, colour] - 1, 0)], 0)


@helper
def _faced(v, gi, me, k):
    """The deck colour seat `me` faces in draw round 1 when seat 0 faces board position k."""
    return v.colour_order[gi, (k + me) % 5]


@helper
def _card_count(v, gi, me):
    total = 0
    for k in range(5):
        total += v.colour_count[gi, me, k]
    return total


@helper
def _fewest(v, gi, me):
    """The count of the colour the player owns fewest cards of (complete sets)."""
    low = v.colour_count[gi, me, 0]
    for k in range(1, 5):
        low = min(low, v.colour_count[gi, me, k])
    return low


@inner
def _planner(kind, v, rows, g, seat, epoch, phase, legal, hand, colony_front, ct, params, table, out):
    """The planner styles: each row's context (coin, track, set and prize values), then the kind's values."""
    for i in rows:
        gi, me = g[i], seat[i]
        tracks = (float(v.tracks[gi, me, 0]), float(v.tracks[gi, me, 1]), float(v.tracks[gi, me, 2]),
                  float(v.tracks[gi, me, 3]))
        coin, tv, sv, req, prize = _context(v, gi, me, epoch, phase, params, ct, tracks)
        if kind == DRAW:
            choice = _planner_draw(v, gi, me, i, epoch, phase, legal, hand, ct, params, coin, tracks, tv, sv, req,
                                   prize)
        elif kind == PICK and params[PICK_AHEAD] and table.shape[2] >= SCRATCH:
            choice = _pick_ahead(v, gi, me, i, epoch, phase, legal, ct, params, table)
        elif kind == PICK:
            choice = _planner_pick(v, gi, me, i, epoch, phase, legal, ct, params, coin, tracks, tv, sv, req, prize)
        elif kind == TILE:
            top, choice = -np.inf, 0
            for t in range(4):
                top, choice = _better(legal, i, t, tv[t], top, choice)
        elif kind == SIDE:
            choice = _planner_side(v, gi, me, i, legal, ct, params, coin, tv)
        elif kind == WHEEL:
            top, choice = -np.inf, 0
            for k in range(5):
                colour = _faced(v, gi, me, k)
                base = tv[colour] if colour < 4 else 0.0
                value = (base + sv[colour]) + 0.3 * v.colour_count[gi, me, colour]
                top, choice = _better(legal, i, k, value, top, choice)
        elif kind == COLONY:
            choice = _planner_colony(v, gi, me, i, legal, colony_front, ct, params, coin, tracks, tv)
        elif kind == STATUE:
            choice = _planner_statue(v, gi, me, i, epoch, legal, ct, params, coin, tracks, tv)
        elif kind == FEED:
            choice = _planner_feed(i, legal, ct, params, coin, tv, sv)
        elif kind == MEDAL:
            choice = _planner_medal(v, gi, me, i, epoch, legal, ct, params, coin, tracks)
        else:
            choice = _first_legal(legal, i, 0)
        out[i] = choice


@helper
def _context(v, gi, me, epoch, phase, params, ct, tracks):
    """(coin, track values, set values, next requirements, prizes) of the acting player; a coin's value
    falls from `coin` to `coin_end` as the income steps run out."""
    income_left = _income_left(epoch, phase)
    coin = params[COIN_END] + (params[COIN] - params[COIN_END]) * income_left / 6.0
    income, military, culture, food = _track_values(v, gi, me, epoch, income_left, params, coin, tracks)
    prize_military, prize_culture = params[COLONY_PRIZE], params[STATUE_PRIZE]
    if params[FOCUS_RULE]:
        # balanced: lean into whichever of military and culture the player leads in
        first = _military_first(v, gi, me)
        military *= params[FOCUS] if first else params[UNFOCUS]
        culture *= params[UNFOCUS] if first else params[FOCUS]
        prize_military = params[FOCUS_PRIZE] if first else params[OTHER_PRIZE]
        prize_culture = params[OTHER_PRIZE] if first else params[FOCUS_PRIZE]
    if params[LATE_MILITARY]:
        # economy: points weigh more once income no longer compounds (epoch III)
        military *= 0.8 if epoch == 3 else 1.0
    tv = (income, military, culture, food)
    return coin, tv, _set_values(v, gi, me, epoch, params), _requirements(v, gi, me, ct), (prize_military,
                                                                                           prize_culture)


@helper
def _track_values(v, gi, me, epoch, income_left, params, coin, tracks):
    """Points from one more step on each track: income pays coins at every income step to come,
    military and culture count while steps remain, food while a feeding is near, and a track under a
    silver medal scores half a point more per step (all of it with silver_full)."""
    steps_left = income_left
    feeds_left = 3 - epoch + 1
    active = min(steps_left, 4) / 4.0
    slack = tracks[FOOD] - _card_count(v, gi, me)
    full = v.effects[gi, me, SILVER_FULL]
    income = params[W_INCOME] * coin * income_left + _silver_bonus(v, gi, me, INCOME, full)
    military = params[W_MILITARY] * active + _silver_bonus(v, gi, me, MILITARY, full)
    culture = params[W_CULTURE] * active + _silver_bonus(v, gi, me, CULTURE, full)
    food = (params[W_FOOD] * (1.0 if slack <= 1 else 0.35) * (1.0 if feeds_left > 0 else 0.0)
            + _silver_bonus(v, gi, me, FOOD, full))
    return income, military, culture, food


@helper
def _silver_bonus(v, gi, me, t, full):
    """Points per step of track t from the player's silver medals on it."""
    silver_on = float((v.silver[gi, me, 0] == t) + (v.silver[gi, me, 1] == t))
    return (1.0 if full else 0.5) * min(silver_on, 1.0) + 0.5 * max(silver_on - 1.0, 0.0)


@helper
def _set_values(v, gi, me, epoch, params):
    """Points from one more card of each colour through gold medals (owned and planned) and
    set_collector: a share of a set for the colours the player lacks most, 15% of one for the others."""
    gold = np.int64(v.gold[gi, me])
    planned = max(0, min(2, int(params[GOLD_PLAN])) - gold) if epoch < 3 else 0
    per_set = GOLD_POINTS_PER_SET * (gold + planned) + SET_COLLECTOR_POINTS * np.int64(v.effects[gi, me, SET_COLLECTOR])
    low = _fewest(v, gi, me)
    lacking = 0
    for k in range(5):
        lacking += v.colour_count[gi, me, k] == low
    scale = params[SETS] * per_set
    share = 1 / lacking
    return (scale * (share if v.colour_count[gi, me, 0] == low else 0.15),
            scale * (share if v.colour_count[gi, me, 1] == low else 0.15),
            scale * (share if v.colour_count[gi, me, 2] == low else 0.15),
            scale * (share if v.colour_count[gi, me, 3] == low else 0.15),
            scale * (share if v.colour_count[gi, me, 4] == low else 0.15))


@helper
def _requirements(v, gi, me, ct):
    """The lowest requirement of a colony level the player has not taken while tiles are left, and of
    a statue not carved yet (4 lower with requirement_cut), inf if none."""
    players = v.tracks.shape[1]
    military, culture = np.inf, np.inf
    for level in range(len(ct.level_requirement)):
        if v.colonies[gi, me, level] == 0 and players - v.colony_ptr[gi, level] > 0:
            military = min(military, ct.level_requirement[level])
    for statue in range(len(ct.statue_requirement)):
        if v.statues[gi, me, statue] < 0:
            culture = min(culture, ct.statue_requirement[statue])
    cut = REQUIREMENT_CUT * np.int64(v.effects[gi, me, CUT])
    return military - cut, culture - cut


@helper
def _military_first(v, gi, me):
    """Whether the player leans into military rather than culture: its lead over the strongest rival
    on military against that on culture, plus half its own military-culture edge (contested tracks
    are worth less to chase)."""
    rival_military, rival_culture = -np.inf, -np.inf
    for other in range(v.tracks.shape[1]):
        if other != me:
            rival_military = max(rival_military, float(v.tracks[gi, other, MILITARY]))
            rival_culture = max(rival_culture, float(v.tracks[gi, other, CULTURE]))
    military, culture = float(v.tracks[gi, me, MILITARY]), float(v.tracks[gi, me, CULTURE])
    return ((military - rival_military) - (culture - rival_culture) + 0.5 * (military - culture)) >= 0


@helper
def _step(v, gi, me, ct, card, colour, t):
    """Steps of track t that `card` gives: its value, one more if affinity_<t> and the card is of colour t."""
    step = float(ct.card_values[card, t])
    if colour == t and v.effects[gi, me, AFFINITY + t]:
        step += 1.0
    return step


@helper
def _card_value(v, gi, me, card, epoch, phase, ct, params, coin, tracks, tv, sv, req, prize):
    """Points-equivalent of owning `card`, before its price: its worth (`_card_worth`) less the
    feeding risk of a card beyond the food track."""
    value = _card_worth(v, gi, me, card, epoch, phase, ct, params, coin, tracks, tv, sv, req, prize)
    food = _step(v, gi, me, ct, card, ct.card_colour[card], FOOD)
    return value - _feed_risk(v, gi, me, tracks[FOOD] - _card_count(v, gi, me) - 1 + food, phase, params, coin)


@helper
def _feed_risk(v, gi, me, slack, phase, params, coin):
    """What a card costs at the next feeding when the food track falls `slack` short (nothing if
    slack >= 0): `feed_loss`, or the coins with feed_with_coins; less in phase A."""
    if slack >= 0:
        return 0.0
    if_short = FEED_COIN_PRICE * coin if v.effects[gi, me, FEED_WITH_COINS] else params[FEED_LOSS]
    return if_short * (1.0 if phase == 1 else 0.6)


@helper
def _card_worth(v, gi, me, card, epoch, phase, ct, params, coin, tracks, tv, sv, req, prize):
    """Points-equivalent of owning `card`, before its price and feeding: points, track steps (affinity
    cards add one step per owned card of their colour, and later ones too), set value, colour bonus,
    effect, part of the next colony or statue (the prize) when the card lifts military or culture to
    its requirement before the next step."""
    income_left = _income_left(epoch, phase)
    steps_left = income_left
    effect_scale = min(1.0, income_left / 4.0)
    colour = ct.card_colour[card]
    steps = (_step(v, gi, me, ct, card, colour, 0), _step(v, gi, me, ct, card, colour, 1),
             _step(v, gi, me, ct, card, colour, 2), _step(v, gi, me, ct, card, colour, 3))
    value = params[POINTS] * ct.card_points[card] + _dot_lanes(steps, tv)
    value += sv[colour]
    value += params[COLOURS_AT + colour]
    effect = ct.card_effect[card]
    if AFFINITY <= effect < AFFINITY + 4:
        value += v.colour_count[gi, me, effect - AFFINITY] * tv[effect - AFFINITY] + 1.0
    else:
        value += EFFECT_VALUES[effect] * params[EFFECTS] * effect_scale
    bonus = 0.0
    need = req[0] - tracks[MILITARY]
    if need > 0 and steps[MILITARY] >= need and steps_left > 0:
        bonus += prize[0]
    need = req[1] - tracks[CULTURE]
    if need > 0 and steps[CULTURE] >= need and steps_left > 0:
        bonus += prize[1]
    value += bonus
    return value


@helper
def _planner_draw(v, gi, me, i, epoch, phase, legal, hand, ct, params, coin, tracks, tv, sv, req, prize):
    """Buy or sell the card kept; the discarded card feeds phase B for everyone, so all else equal
    keep the better one, and with `deny` discard the card a rival would gain least from."""
    worth0 = _card_value(v, gi, me, hand[i, 0], epoch, phase, ct, params, coin, tracks, tv, sv, req, prize)
    worth1 = _card_value(v, gi, me, hand[i, 1], epoch, phase, ct, params, coin, tracks, tv, sv, req, prize)
    sell = coin * _sell_value(v, gi, me, epoch, ct)
    deny0, deny1 = 0.0, 0.0
    if params[DENY] > 0:  # each rival's context once for both cards
        deny0, deny1 = _rival_gains(v, gi, me, hand[i, 0], hand[i, 1], epoch, ct, params)
    top, choice = -np.inf, 0
    for d in range(2):
        kept = hand[i, 1 - d]
        kept_worth = worth1 if d == 0 else worth0
        gone = worth0 if d == 0 else worth1
        discard = 0.05 * gone
        if params[DENY] > 0:
            discard += params[DENY] * (deny0 if d == 0 else deny1)
        buy = kept_worth - coin * _price(v, gi, me, ct, kept)
        top, choice = _better(legal, i, A.draw_option(d, A.BUY), buy - discard, top, choice)
        top, choice = _better(legal, i, A.draw_option(d, A.SELL), sell - discard, top, choice)
    return choice


@helper
def _rival_gains(v, gi, me, card0, card1, epoch, ct, params):
    """The most a rival would gain by buying each of two cards in phase B (0 if none would)."""
    best0, best1 = 0.0, 0.0
    for s in range(v.tracks.shape[1]):
        if s != me:
            tracks = (float(v.tracks[gi, s, 0]), float(v.tracks[gi, s, 1]), float(v.tracks[gi, s, 2]),
                      float(v.tracks[gi, s, 3]))
            coin, tv, sv, req, prize = _context(v, gi, s, epoch, 1, params, ct, tracks)
            worth = _card_value(v, gi, s, card0, epoch, 1, ct, params, coin, tracks, tv, sv, req, prize)
            best0 = max(best0, worth - coin * _price(v, gi, s, ct, card0))
            worth = _card_value(v, gi, s, card1, epoch, 1, ct, params, coin, tracks, tv, sv, req, prize)
            best1 = max(best1, worth - coin * _price(v, gi, s, ct, card1))
    return best0, best1


@helper
def _planner_pick(v, gi, me, i, epoch, phase, legal, ct, params, coin, tracks, tv, sv, req, prize):
    """Buy or sell the top card of a discard pile."""
    sell = coin * _sell_value(v, gi, me, epoch, ct)
    top, choice = -np.inf, 0
    for colour in range(5):
        if legal[i, A.pick_option(colour, A.BUY)]:
            card = _top(v, gi, colour)
            worth = _card_value(v, gi, me, card, epoch, phase, ct, params, coin, tracks, tv, sv, req, prize)
            buy = worth - coin * _price(v, gi, me, ct, card)
            top, choice = _better(legal, i, A.pick_option(colour, A.BUY), buy, top, choice)
        top, choice = _better(legal, i, A.pick_option(colour, A.SELL), sell, top, choice)
    return choice


# `_pick_ahead`'s scratch, the planner's `table` (3, 2, >= SCRATCH): seat s's worth of each card at
# [s // 2, s % 2, card] (five seats at most), and at [2, 1] the phase played forward: pile sizes,
# then per seat its coins, cards, food track, value of a coin, coins for a sale, and its count of
# each colour.
SIZES, MONEY, CARDS, FOOD_AT, COIN_AT, SALE, COUNTS, SCRATCH = 0, 5, 10, 15, 20, 25, 30, 55


@helper
def _pick_ahead(v, gi, me, i, epoch, phase, legal, ct, params, table):
    """Buy or sell the top card of a discard pile by what the player's picks bring over the next
    `pick_rounds` rounds of picks (0: the rest of phase B), played forward on the public piles with
    every seat taking the best pick by its own valuation, less `rival_weight` times what a rival's
    picks bring on average."""
    players = v.tracks.shape[1]
    state = table[2, 1]
    for s in range(players):
        tracks = (float(v.tracks[gi, s, 0]), float(v.tracks[gi, s, 1]), float(v.tracks[gi, s, 2]),
                  float(v.tracks[gi, s, 3]))
        coin, tv, sv, req, prize = _context(v, gi, s, epoch, phase, params, ct, tracks)
        for colour in range(5):
            for k in range(v.pile_size[gi, colour]):
                card = v.piles[gi, colour, k]
                table[s // 2, s % 2, card] = _card_worth(v, gi, s, card, epoch, phase, ct, params, coin, tracks,
                                                         tv, sv, req, prize)
        state[COIN_AT + s] = coin
        state[SALE + s] = _sell_value(v, gi, s, epoch, ct)
    rival = params[RIVAL_WEIGHT] / max(players - 1, 1)
    horizon = int(params[PICK_ROUNDS]) * players
    top, choice = -np.inf, 0
    for colour in range(5):
        for action in (A.BUY, A.SELL):
            option = A.pick_option(colour, action)
            if not legal[i, option]:
                continue
            left = _start_forward(v, gi, players, state)
            total = _take(v, gi, me, colour, action == A.SELL, ct, params, table)
            turn = me + 1
            for _ in range(min(left - 1, horizon) if horizon > 0 else left - 1):
                s = turn % players
                pile, sale = _best_pick(v, gi, s, ct, params, table)
                value = _take(v, gi, s, pile, sale, ct, params, table)
                total += value if s == me else -rival * value
                turn += 1
            top, choice = _better(legal, i, option, total, top, choice)
    return choice


@helper
def _start_forward(v, gi, players, state):
    """The phase as it stands into the scratch `state`; the number of cards left in the piles."""
    left = 0
    for colour in range(5):
        state[SIZES + colour] = v.pile_size[gi, colour]
        left += v.pile_size[gi, colour]
    for s in range(players):
        state[MONEY + s] = v.coins[gi, s]
        state[CARDS + s] = _card_count(v, gi, s)
        state[FOOD_AT + s] = v.tracks[gi, s, FOOD]
        for colour in range(5):
            state[COUNTS + 5 * s + colour] = v.colour_count[gi, s, colour]
    return left


@helper
def _best_pick(v, gi, s, ct, params, table):
    """Seat s's best pick in the phase played forward, as the planner values it: (pile, sale); a seat
    that cannot pay for a card must sell it."""
    state = table[2, 1]
    best, best_colour, best_sale = -np.inf, 0, True
    for colour in range(5):
        if state[SIZES + colour] > 0:
            card = v.piles[gi, colour, int(state[SIZES + colour]) - 1]
            if state[MONEY + s] >= _price_now(ct, card, state[COUNTS + 5 * s + ct.card_colour[card]]):
                value = _buy_now(v, gi, s, card, ct, params, table)
                if value > best:
                    best, best_colour, best_sale = value, colour, False
            value = state[COIN_AT + s] * state[SALE + s]
            if value > best:
                best, best_colour, best_sale = value, colour, True
    return best_colour, best_sale


@helper
def _price_now(ct, card, owned):
    """The card's price to a seat owning `owned` cards of its colour."""
    return max(0.0, ct.card_cost[card] - owned)


@helper
def _buy_now(v, gi, s, card, ct, params, table):
    """Seat s's value of buying `card` in the phase played forward: its worth less price and feeding."""
    state = table[2, 1]
    colour = ct.card_colour[card]
    price = _price_now(ct, card, state[COUNTS + 5 * s + colour])
    slack = state[FOOD_AT + s] - state[CARDS + s] - 1 + _step(v, gi, s, ct, card, colour, FOOD)
    coin = state[COIN_AT + s]
    return table[s // 2, s % 2, card] - coin * price - _feed_risk(v, gi, s, slack, 1, params, coin)


@helper
def _take(v, gi, s, colour, sale, ct, params, table):
    """Seat s takes the top card of pile `colour` in the phase played forward; its value to s."""
    state = table[2, 1]
    size = int(state[SIZES + colour])
    card = v.piles[gi, colour, size - 1]
    state[SIZES + colour] = size - 1
    if sale:
        state[MONEY + s] += state[SALE + s]
        return state[COIN_AT + s] * state[SALE + s]
    value = _buy_now(v, gi, s, card, ct, params, table)
    card_colour = ct.card_colour[card]
    state[MONEY + s] -= _price_now(ct, card, state[COUNTS + 5 * s + card_colour])
    state[CARDS + s] += 1
    state[FOOD_AT + s] += _step(v, gi, s, ct, card, card_colour, FOOD)
    state[COUNTS + 5 * s + card_colour] += 1
    return value


@helper
def _planner_side(v, gi, me, i, legal, ct, params, coin, tv):
    """The setup side worth most (coins and track values); balanced's side table overrules."""
    init = v.initiative[gi, me] - 1
    top, choice = -np.inf, 0
    for s in range(2):
        value = coin * ct.setup_coins[init, s] + _dot_lanes(ct.setup_values[init, s], tv)
        top, choice = _better(legal, i, s, value, top, choice)
    if params[SIDE_TABLE]:
        fixed = int(params[SIDES_AT + init])
        choice = fixed if fixed >= 0 else choice
        if not legal[i, choice]:
            choice = _first_legal(legal, i, 0)
    return choice


@helper
def _planner_colony(v, gi, me, i, legal, colony_front, ct, params, coin, tracks, tv):
    """Plunder the front's coins and points, or integrate for the level's expected back (track steps and
    points) at its cost; colony_bounty's coins count either way, and missing military costs 3 coins a
    point (requirement_purchase). Military takes any colony rather than none."""
    points, margin = params[POINTS], params[INTEGRATE_MARGIN]
    gain = COLONY_BOUNTY * np.int64(v.effects[gi, me, COLONY_BOUNTY_EFFECT])
    cut = np.int64(v.effects[gi, me, CUT])
    top, choice = _better(legal, i, A.NONE, 0.0, -np.inf, 0)
    for level in range(colony_front.shape[1]):
        requirement, plunder = colony_front[gi, level, 0], colony_front[gi, level, 1]
        integrate, front_points = colony_front[gi, level, 2], colony_front[gi, level, 3]
        back = ct.mean_back[level]
        # a one-row matrix product was a matrix-vector product in numpy, summed differently
        back_track_value = _dot_fma(back, tv)
        missing = max(0.0, float(requirement - REQUIREMENT_CUT * cut) - tracks[MILITARY])
        cost = coin * 3 * missing
        value = (coin * (plunder + gain) + points * front_points) - cost
        top, choice = _better(legal, i, A.colony_option(level, A.PLUNDER), value, top, choice)
        value = (points * ct.mean_back_points[level] + back_track_value - coin * (integrate - gain) - margin) - cost
        top, choice = _better(legal, i, A.colony_option(level, A.INTEGRATE), value, top, choice)
    if params[ANY_COLONY] and choice == A.NONE:
        choice = _first_legal(legal, i, 1)
    return choice


@helper
def _planner_statue(v, gi, me, i, epoch, legal, ct, params, coin, tracks, tv):
    """The statue's points less the coins for missing culture, plus its bonus on the tile's track
    (coloured side, +2 with statue_patron) or as points (points side: better late, and spending the
    least useful tile)."""
    points = params[POINTS]
    late = epoch >= params[POINTS_SIDE_FROM]
    bonus_extra = 2 * np.int64(v.effects[gi, me, PATRON])
    cut = np.int64(v.effects[gi, me, CUT])
    top, choice = _better(legal, i, A.NONE, 0.0, -np.inf, 0)
    for s in range(len(ct.statue_requirement)):
        missing = max(0.0, float(ct.statue_requirement[s] - REQUIREMENT_CUT * cut) - tracks[CULTURE])
        base = points * ct.statue_points[s] - coin * 3 * missing
        bonus = ct.statue_bonus[s] + bonus_extra
        for t in range(4):
            value = base + tv[t] * bonus
            top, choice = _better(legal, i, A.statue_option(s, t, A.COLOURED), value, top, choice)
            side = base + points * bonus - 0.05 * tv[t]
            value = side + (1.0 if late else -1.0)
            top, choice = _better(legal, i, A.statue_option(s, t, A.POINTS_SIDE), value, top, choice)
    return choice


@helper
def _planner_feed(i, legal, ct, params, coin, tv, sv):
    """Minus the value of keeping each card (points, track steps, set value, effect; its food counts
    thrice: losing food forces more removals), or minus the coins of feeding with coins."""
    cards = len(ct.card_points)
    top, choice = -np.inf, 0
    for c in range(cards):
        if legal[i, c]:  # only owned cards can go
            dot = _dot_lanes(ct.card_values[c], tv)
            keep = params[POINTS] * ct.card_points[c] + dot + 3.0 * ct.card_values[c, FOOD] + sv[ct.card_colour[c]]
            top, choice = _better(legal, i, c, -(keep + EFFECT_VALUES[ct.card_effect[c]]), top, choice)
    top, choice = _better(legal, i, cards, -FEED_COIN_PRICE * coin, top, choice)
    return choice


@helper
def _planner_medal(v, gi, me, i, epoch, legal, ct, params, coin, tracks):
    """Medals on the tracks and sets projected to the end (today's plus what the remaining epochs
    typically add): a silver medal scores half its track (all of it, the first, with silver_full) if
    that reaches `silver_min`, less its price and a tile a statue may need; a gold medal scores 7 per
    projected set (a wildcard counts 0.7 of one). Culture puts a silver medal on culture when free."""
    points = params[POINTS]
    cheap = v.effects[gi, me, DISCOUNT] and epoch > 1
    silver_cost = DISCOUNT_SILVER[epoch] if cheap else ct.silver_price[epoch - 1]
    gold_cost = DISCOUNT_GOLD[epoch] if cheap else ct.gold_price[epoch - 1]
    growth = GROWTH[epoch]
    full = v.effects[gi, me, SILVER_FULL] and v.silver[gi, me, 0] < 0 and v.silver[gi, me, 1] < 0
    statues_left, tiles = 0, 0
    for s in range(v.statues.shape[2]):
        statues_left += v.statues[gi, me, s] < 0
    for t in range(4):
        tiles += v.tiles[gi, me, t]
    tile_cost = 3.0 if tiles - 1 < statues_left else 0.0
    top, choice = _better(legal, i, A.MEDAL_STOP, 0.0, -np.inf, 0)
    for t in range(4):
        end_track = tracks[t] * (1 + growth)
        silver_points = end_track if full else np.ceil(end_track / 2)
        value = points * silver_points - coin * silver_cost - tile_cost
        top, choice = _better(legal, i, 1 + t, value if silver_points >= params[SILVER_MIN] else -1.0, top, choice)
    sets_now = _fewest(v, gi, me)
    end_sets = sets_now + SETS_TO_COME[epoch] * (1 if sets_now >= 0 else 0)
    wildcard = np.int64(v.effects[gi, me, WILDCARD])
    value = points * GOLD_POINTS_PER_SET * (end_sets + wildcard * 0.7) - coin * gold_cost
    top, choice = _better(legal, i, A.MEDAL_GOLD, value, top, choice)
    culture_silver = 1 + CULTURE
    if params[CULTURE_SILVER] and 1 <= choice <= 4 and legal[i, culture_silver]:
        choice = culture_silver
    return choice


@inner
def _greedy(kind, v, rows, g, seat, epoch, phase, legal, hand, colony_front, ct, params, table, out):
    """Greedy: each option's immediate value in points, cards looked up in its value `table`."""
    coin, points = params[G_COIN], params[G_POINTS]
    # points per track step: income earns its coins until the end, the others are flat
    tw = (params[G_INCOME] * coin * float(_income_left(epoch, phase)), params[G_MILITARY], params[G_CULTURE],
          params[G_FOOD])
    worth = table[epoch - 1, phase]
    for i in rows:
        gi, me = g[i], seat[i]
        top, choice = -np.inf, 0
        if kind == DRAW:
            sell = coin * _sell_value(v, gi, me, epoch, ct)
            for d in range(2):
                kept = hand[i, 1 - d]
                buy = worth[kept] - coin * _price(v, gi, me, ct, kept)
                # among equal values, discard the card worth less (it feeds phase B for everyone)
                gone = 0.01 * worth[hand[i, d]]
                top, choice = _better(legal, i, A.draw_option(d, A.BUY), buy - gone, top, choice)
                top, choice = _better(legal, i, A.draw_option(d, A.SELL), sell - gone, top, choice)
        elif kind == PICK:
            sell = coin * _sell_value(v, gi, me, epoch, ct)
            for colour in range(5):
                card = _top(v, gi, colour)
                buy = worth[card] - coin * _price(v, gi, me, ct, card)
                top, choice = _better(legal, i, A.pick_option(colour, A.BUY), buy, top, choice)
                top, choice = _better(legal, i, A.pick_option(colour, A.SELL), sell, top, choice)
        elif kind == TILE:
            for t in range(4):
                top, choice = _better(legal, i, t, tw[t], top, choice)
        elif kind == SIDE:
            init = v.initiative[gi, me] - 1
            for s in range(2):
                value = coin * ct.setup_coins[init, s] + _dot_lanes(ct.setup_values[init, s], tw)
                top, choice = _better(legal, i, s, value, top, choice)
        elif kind == WHEEL:
            # face first the deck of the colour the player holds most of (cheapest buys)
            for k in range(5):
                top, choice = _better(legal, i, k, float(v.colour_count[gi, me, _faced(v, gi, me, k)]), top, choice)
        elif kind == COLONY:
            bounty = COLONY_BOUNTY * np.int64(v.effects[gi, me, COLONY_BOUNTY_EFFECT])
            top, choice = _better(legal, i, A.NONE, 0.0, top, choice)
            for level in range(colony_front.shape[1]):
                back_track_value = _dot_fma(ct.mean_back[level], tw)
                value = coin * (float(colony_front[gi, level, 1]) + bounty) + points * float(colony_front[gi, level, 3])
                top, choice = _better(legal, i, A.colony_option(level, A.PLUNDER), value, top, choice)
                value = (points * ct.mean_back_points[level] + back_track_value
                         - coin * (float(colony_front[gi, level, 2]) - bounty))
                top, choice = _better(legal, i, A.colony_option(level, A.INTEGRATE), value, top, choice)
        elif kind == STATUE:
            top, choice = _better(legal, i, A.NONE, 0.0, top, choice)
            for s in range(4):
                base = points * ct.statue_points[s]
                for t in range(4):
                    value = base + tw[t] * ct.statue_bonus[s]
                    top, choice = _better(legal, i, A.statue_option(s, t, A.COLOURED), value, top, choice)
                    # a points side spends the tile: prefer spending the least useful colour
                    value = base + points * ct.statue_bonus[s] - 0.01 * tw[t]
                    top, choice = _better(legal, i, A.statue_option(s, t, A.POINTS_SIDE), value, top, choice)
        elif kind == FEED:
            cards = len(worth)
            for c in range(cards):
                top, choice = _better(legal, i, c, -worth[c], top, choice)
            top, choice = _better(legal, i, cards, -coin * 2, top, choice)
        elif kind == MEDAL:
            cheap = v.effects[gi, me, DISCOUNT] and epoch > 1
            silver_cost = DISCOUNT_SILVER[epoch] if cheap else ct.silver_price[epoch - 1]
            gold_cost = DISCOUNT_GOLD[epoch] if cheap else ct.gold_price[epoch - 1]
            top, choice = _better(legal, i, A.MEDAL_STOP, 0.0, top, choice)
            for t in range(4):
                value = points * np.ceil(float(v.tracks[gi, me, t]) / 2) - coin * silver_cost
                top, choice = _better(legal, i, 1 + t, value, top, choice)
            value = points * GOLD_POINTS_PER_SET * _fewest(v, gi, me) - coin * gold_cost
            top, choice = _better(legal, i, A.MEDAL_GOLD, value, top, choice)
        else:
            choice = _first_legal(legal, i, 0)
        out[i] = choice

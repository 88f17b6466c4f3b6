"""`expert`: foresight's valuation of the card and statue decisions plus a learned correction.

At a draw, a pick or a statue, each option's value is foresight's (the planner's for a draw or a
statue, the phase played forward for a pick) plus a linear evaluation `w . phi` of the option's plain
facts (`FEATURES`: the card it takes or the statue it carves, the coins it moves, the track steps it
gives). The weights come from expert iteration (hadara_sim/learn.py), one block of `FEATURES` per
epoch and decision kind (`block`), and sit in the policy's flat `params` after the planner's
(`WEIGHTS_AT`). A statue may instead be valued by learned regression trees (`statue_trees`) of the
option's `FEATURES` and its `SITUATION` (foresight's value among them), which follow the rivals, the
tiles and the epoch where a linear correction cannot; their nodes follow the weights (`TREES_AT`),
and an option's inputs are laid in the scratch `table` (its [2, 0] row, which a pick fills afresh).
Every other decision is foresight's own.
"""

from __future__ import annotations

import numpy as np

from hadara_sim import actions as A
from hadara_sim.components import kernel_arrays
from hadara_sim.constants import CULTURE, FOOD, MILITARY, REQUIREMENT_PRICE
from hadara_sim.rules import card_price, complete_sets, sale_price

from .basics import _better, _card_count, helper, inner, inner_only, _step, _top
from .layout import DRAW, gather, KIND_CODE, PICK, PLANNER_PARAMS, SCRATCH, STATUE
from .lookahead import _pick_line, _pick_worths, _rival_worth
from .planner import _draw_values, statue_facts, statue_value
from .valuation import _context

# One option's facts, as `_features` returns them: whether it buys a card (a statue: carves one), the
# coins it moves (minus the price, or the sale; a statue: minus the coins for missing culture), the
# points it scores (a card's; a statue's, with its bonus on the points side) and the track steps it
# gives (a statue's coloured side: its bonus), whether its colour is one the player has fewest of (a
# set), whether it carries a purple effect, whether it leaves the food track short of the cards to
# feed, and whether it lifts military or culture to the next colony or statue requirement; at a pick,
# the most a rival would gain from the card taken (bought or sold, it leaves the pile: `rival`) and
# from the card it uncovers beneath (`uncover`); at a statue, whether it shows its points side.
FEATURES = ("buy", "coins", "points", "income", "military", "culture", "food", "set", "effect", "short", "prize",
            "rival", "uncover", "points_side")
EARLIER_LAYOUTS = (11, 13)  # feature counts of the layouts shipped before (the first of FEATURES), still read
KINDS = ("draw", "pick", "statue")             # the decisions the learned evaluation corrects
EARLIER_KINDS = (2,)                           # kind counts of the layouts shipped before (the first of KINDS)
BLOCKS = 3 * len(KINDS)                        # one block of weights per epoch and kind (`block`)
WEIGHTS = BLOCKS * len(FEATURES)
WEIGHTS_AT = PLANNER_PARAMS                    # the weights' first slot in the expert's params
OPTIONS = 10                                   # options of a pick (a draw has 4)
TREES_AT = WEIGHTS_AT + WEIGHTS                # the statue trees' first slot (`statue_trees`): 0 trees = none

# What the statue trees read beside an option's `FEATURES`: foresight's value of the option
# (`UNWEIGHED` for a face its endgame rule does not weigh), the player count, the epoch and phase (A 0,
# B 1), the statue and its tile's track; the player's tracks, unused tiles per track, coins, cards,
# statues carved and colonies held, and the most any rival has of each.
SITUATION = ("value", "players", "epoch", "phase", "statue", "track",
             "own_income", "own_military", "own_culture", "own_food",
             "rival_income", "rival_military", "rival_culture", "rival_food",
             "income_tiles", "military_tiles", "culture_tiles", "food_tiles",
             "own_coins", "rival_coins", "own_cards", "rival_cards", "own_statues", "rival_statues",
             "own_colonies", "rival_colonies")
STATUE_INPUTS = FEATURES + SITUATION           # the statue trees' inputs, in this order
UNWEIGHED = -100.0                             # the value input of a face foresight gives -inf, far below any other


@inner
def block(kind, epoch):
    """The weights' block of a decision kind (draw, pick or statue) in an epoch: epoch-major."""
    return len(KINDS) * (epoch - 1) + (0 if kind == DRAW else 1 if kind == PICK else 2)


@helper
def learns(kind, table):
    """Whether the learned correction values this decision: a draw, a statue, or a pick with a scratch
    table to play the phase forward in (foresight decides every other one alone)."""
    return kind == DRAW or kind == STATUE or (kind == PICK and table.shape[2] >= SCRATCH)


@helper
def _options(kind, ct):
    """The options a decision of the kind has: a draw's 4, a pick's 10, none and each statue's 8 faces."""
    return 4 if kind == DRAW else OPTIONS if kind == PICK else 1 + 8 * len(ct.statue_requirement)


@inner_only
def _expert(kind, v, rows, g, seat, epoch, phase, legal, hand, colony_front, ct, params, table, out):
    """foresight's valuation of a card or statue decision (one `learns` holds for) with the learned correction
    added. It does not call foresight's kernel for the other kinds (`decide` does): so the two compile
    apart, each on a core of its own (hadara_sim/warm.py)."""
    at_weights = WEIGHTS_AT + block(kind, epoch) * len(FEATURES)
    options = _options(kind, ct)
    trees = kind == STATUE and params[TREES_AT] > 0 and table.shape[2] >= len(STATUE_INPUTS)
    for i in rows:
        gi, me = g[i], seat[i]
        at = _context(v, gi, me, epoch, phase, params, ct)
        draws = _row_start(kind, v, gi, me, i, epoch, phase, hand, ct, params, table, at)
        if trees:
            board = _board(v, gi, me)
        top, choice = -np.inf, 0
        for option in range(options):
            if legal[i, option]:
                phi = _features(kind, v, gi, me, i, option, epoch, hand, ct, at, table)
                value = _option_value(kind, v, gi, me, option, epoch, phase, ct, params, table, at, draws)
                if trees:
                    inputs = table[2, 0]
                    _place(inputs, phi + _situation(board, option, epoch, phase, value))
                    value = statue_trees(params, inputs)
                else:
                    for k in range(len(FEATURES)):
                        value += params[at_weights + k] * phi[k]
                top, choice = _better(legal, i, option, value, top, choice)
        out[i] = choice


@inner
def option_table(kind, v, rows, g, seat, epoch, phase, legal, hand, ct, params, table, values, features):
    """For training: each legal option's value before the learned correction into values[i, option]
    and its `FEATURES` into features[i, option] (a statue's: its `STATUE_INPUTS`, where features is
    that wide; illegal options left alone)."""
    options = _options(kind, ct)
    situations = kind == STATUE and features.shape[2] >= len(STATUE_INPUTS)
    for i in rows:
        gi, me = g[i], seat[i]
        at = _context(v, gi, me, epoch, phase, params, ct)
        draws = _row_start(kind, v, gi, me, i, epoch, phase, hand, ct, params, table, at)
        if situations:
            board = _board(v, gi, me)
        for option in range(options):
            if legal[i, option]:
                phi = _features(kind, v, gi, me, i, option, epoch, hand, ct, at, table)
                for k in range(len(FEATURES)):
                    features[i, option, k] = phi[k]
                value = _option_value(kind, v, gi, me, option, epoch, phase, ct, params, table, at, draws)
                values[i, option] = value
                if situations:
                    situation = _situation(board, option, epoch, phase, value)
                    for k in range(len(SITUATION)):
                        features[i, option, len(FEATURES) + k] = situation[k]


@helper
def _row_start(kind, v, gi, me, i, epoch, phase, hand, ct, params, table, at):
    """What a row's options share: a draw's four values, or the pile worths a pick line reads (a
    statue's options share nothing)."""
    if kind == DRAW:
        return _draw_values(v, gi, me, i, epoch, phase, hand, ct, params, at)
    if kind == PICK:
        _pick_worths(v, gi, epoch, phase, ct, params, table)
    return 0.0, 0.0, 0.0, 0.0


@helper
def _option_value(kind, v, gi, me, option, epoch, phase, ct, params, table, at, draws):
    """foresight's value of a draw, pick or statue option (`draws`: the row's draw values); -inf for an
    option foresight does not weigh (a coloured side where its endgame rule shows the points side)."""
    if kind == DRAW:
        return draws[option]
    if kind == STATUE:
        return statue_value(v, gi, me, option, epoch, phase, ct, params, at)
    return _pick_line(v, gi, me, option // 2, option % 2 == A.SELL, ct, params, table)


@helper
def _features(kind, v, gi, me, i, option, epoch, hand, ct, at, table):
    """The option's `FEATURES`: a sale moves only coins; a buy takes the card kept (draw) or the
    pile's top card (pick) at its price; a pick, bought or sold, takes its card from the rivals and
    uncovers the next (the rivals' gains from `_pick_worths`' table); a statue (`_statue_features`)."""
    if kind == STATUE:
        return _statue_features(v, gi, me, option, ct, at)
    rival, uncover = 0.0, 0.0
    if kind == PICK:
        colour = option // 2
        size = v.pile_size[gi, colour]
        rival = _rival_worth(v, gi, me, v.piles[gi, colour, size - 1], ct, table)
        uncover = _rival_worth(v, gi, me, v.piles[gi, colour, size - 2], ct, table) if size >= 2 else 0.0
    if option % 2 == A.SELL:
        return (0.0, float(sale_price(v, ct, gi, me, epoch)), 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, rival,
                uncover, 0.0)
    card = hand[i, 1 - option // 2] if kind == DRAW else _top(v, gi, option // 2)
    colour = ct.card_colour[card]
    steps = (_step(v, gi, me, ct, card, colour, 0), _step(v, gi, me, ct, card, colour, 1),
             _step(v, gi, me, ct, card, colour, 2), _step(v, gi, me, ct, card, colour, 3))
    fewest = 1.0 if v.colour_count[gi, me, colour] == complete_sets(v, gi, me, False) else 0.0
    effect = 1.0 if ct.card_effect[card] >= 0 else 0.0
    short = 1.0 if at.tracks[FOOD] - _card_count(v, gi, me) - 1 + steps[FOOD] < 0 else 0.0
    return (1.0, -float(card_price(v, ct, gi, me, card)), float(ct.card_points[card]), steps[0], steps[1], steps[2],
            steps[3], fewest, effect, short, _prize(at, steps), rival, uncover, 0.0)


@helper
def _statue_features(v, gi, me, option, ct, at):
    """A statue option's `FEATURES`: none has none; a statue carved pays REQUIREMENT_PRICE coins per
    missing culture point and scores its points, its bonus (+2 with statue_patron) as steps on the
    tile's track (coloured side) or as points (points side)."""
    if option == A.NONE:
        return (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    s, t, side, missing, bonus = statue_facts(v, gi, me, option, ct, at)
    coloured = side == A.COLOURED
    step = float(bonus) if coloured else 0.0
    steps = (step if t == 0 else 0.0, step if t == 1 else 0.0, step if t == 2 else 0.0, step if t == 3 else 0.0)
    short = 1.0 if at.tracks[FOOD] - _card_count(v, gi, me) + steps[FOOD] < 0 else 0.0
    return (1.0, -float(REQUIREMENT_PRICE * missing), float(ct.statue_points[s] + (0 if coloured else bonus)),
            steps[0], steps[1], steps[2], steps[3], 0.0, 0.0, short, _prize(at, steps), 0.0, 0.0,
            0.0 if coloured else 1.0)


@helper
def _board(v, gi, me):
    """What a statue decision's `SITUATION` holds for every option: the player count; the player's
    tracks, the most any rival has on each, the player's unused tiles per track; then coins, cards,
    statues and colonies, the player's and the most any rival has."""
    players = v.tracks.shape[1]
    own = _holdings(v, gi, me)
    rival = (-1.0, -1.0, -1.0, -1.0, -1.0, -1.0, -1.0, -1.0)
    for p in range(players):
        if p != me:
            rival = _most(rival, _holdings(v, gi, p))
    tiles = (float(v.tiles[gi, me, 0]), float(v.tiles[gi, me, 1]), float(v.tiles[gi, me, 2]),
             float(v.tiles[gi, me, 3]))
    return ((float(players),) + own[:4] + rival[:4] + tiles
            + (own[4], rival[4], own[5], rival[5], own[6], rival[6], own[7], rival[7]))


@helper
def _situation(board, option, epoch, phase, value):
    """A statue option's `SITUATION`, as the statue trees read it: its value, the decision's `_board`
    around the epoch, phase, statue and tile track."""
    track = float(((option - 1) % 8) // 2) if option != A.NONE else -1.0
    statue = float((option - 1) // 8) if option != A.NONE else -1.0
    return ((value if value > UNWEIGHED else UNWEIGHED, board[0], float(epoch), float(phase), statue, track)
            + board[1:])


@helper
def _holdings(v, gi, p):
    """Seat p's tracks (income, military, culture, food), coins, cards, statues carved and colonies."""
    statues, colonies = 0, 0
    for s in range(v.statues.shape[2]):
        statues += v.statues[gi, p, s] >= 0
    for level in range(v.colonies.shape[2]):
        colonies += v.colonies[gi, p, level] > 0
    return (float(v.tracks[gi, p, 0]), float(v.tracks[gi, p, 1]), float(v.tracks[gi, p, 2]), float(v.tracks[gi, p, 3]),
            float(v.coins[gi, p]), float(_card_count(v, gi, p)), float(statues), float(colonies))


@inner_only
def _most(a, b):
    """Each of two seats' holdings, the larger."""
    return (max(a[0], b[0]), max(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]), max(a[4], b[4]), max(a[5], b[5]),
            max(a[6], b[6]), max(a[7], b[7]))


@inner_only
def _place(to, values):
    """The tuple `values` into the first slots of the array `to`, where the trees read them by an
    index known only as they walk."""
    k = 0
    for value in values:
        to[k] = value
        k += 1


@helper
def statue_trees(params, x):
    """The statue trees' value of an option whose `STATUE_INPUTS` are x: their base plus, in each tree,
    the leaf x reaches (at each split: to the right where x[feature] > threshold). They sit at
    `TREES_AT` as `StatueTrees.params` lays them: trees, depth, base, then per tree complete and
    heap-ordered, its splits' features, their thresholds and its leaves' values, so every walk takes
    `depth` steps and no branch."""
    trees, depth, total = int(params[TREES_AT]), int(params[TREES_AT + 1]), params[TREES_AT + 2]
    splits = 2 ** depth - 1
    at = TREES_AT + 3
    for t in range(trees):
        node = 0
        for step in range(depth):
            right = x[int(params[at + node])] > params[at + splits + node]
            node = 2 * node + 1 + int(right)
        total += params[at + 2 * splits + node - splits]
        at += 3 * splits + 1
    return total


@helper
def _prize(at, steps):
    """1.0 if the track steps lift military or culture to the next colony or statue requirement."""
    military_need, culture_need = at.req[0] - at.tracks[MILITARY], at.req[1] - at.tracks[CULTURE]
    return 1.0 if (0 < military_need <= steps[MILITARY]) or (0 < culture_need <= steps[CULTURE]) else 0.0


def learned_options(kernel, d):
    """For training, `option_table` for the Python decision `d` (a draw, pick or statue) of the expert
    `kernel`: (values, features), (games, options) and (games, options, FEATURES) (a statue's:
    STATUE_INPUTS), zeros where illegal (a legal option foresight does not weigh: value -inf)."""
    view, kind = d.view, KIND_CODE[d.kind]
    n = len(d)
    # Writable C arrays whatever the decision holds (an engine's view may be read-only): one compiled
    # signature, the one `hadara_sim.warm` compiles at the install.
    legal = np.require(d.legal, np.bool_, ("C", "W"))
    hand = np.require(view.hand, np.int64, ("C", "W")) if d.kind == "draw" else np.zeros((n, 2), np.int64)
    seat = np.require(view.player, np.int64, ("C", "W"))
    ct = kernel_arrays(view.components)
    values = np.zeros(legal.shape)
    features = np.zeros(legal.shape + (len(STATUE_INPUTS if d.kind == "statue" else FEATURES),))
    epoch, phase = np.asarray(view.epoch, np.int64), np.asarray(view.phase, np.int64)
    g = np.arange(n)
    for e, p in sorted(set(zip(epoch.tolist(), phase.tolist()))):
        rows = np.flatnonzero((epoch == e) & (phase == p))
        table = np.zeros((3, 2, max(len(ct.card_points), SCRATCH)))
        option_table(kind, gather(view, d.kind), rows, g, seat, e, p, legal, hand, ct, kernel.params, table, values,
                     features)
    return values, features

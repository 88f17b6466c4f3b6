"""The planner's valuation of a position: a coin's worth, track and set values, and each card's
worth to a seat (`_card_worth`), with the feeding risk of one card too many.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from hadara_sim.constants import (
    CULTURE, FEED_COIN_PRICE, FOOD, GOLD_POINTS_PER_SET, INCOME, MILITARY, REQUIREMENT_CUT, SET_COLLECTOR_POINTS,
)
from hadara_sim.rules import card_price, complete_sets

from .basics import _card_count, _dot_lanes, helper, _income_left, _step
from .layout import (
    AFFINITY, COIN, COIN_END, COLONY_PRIZE, COLOURS_AT, CUT, EFFECT_VALUES, EFFECTS, FEED_LOSS, FEED_WITH_COINS,
    FOCUS, FOCUS_PRIZE, FOCUS_RULE, GOLD_PLAN, LATE_MILITARY, OTHER_PRIZE, POINTS, SET_COLLECTOR, SETS, SILVER_FULL,
    STATUE_PRIZE, UNFOCUS, W_CULTURE, W_FOOD, W_INCOME, W_MILITARY,
)


# A seat's position as the planner values it (`_context`): a coin's worth in points, its tracks, the
# points of one more step on each track (tv) and of one more card of each colour (sv), the lowest
# military and culture requirements still to meet, and the prizes for meeting them.
Position = namedtuple("Position", ("coin", "tracks", "tv", "sv", "req", "prize"))


@helper
def _context(v, gi, me, epoch, phase, params, ct):
    """Seat me's `Position`; a coin's value falls from `coin` to `coin_end` as the income steps run out."""
    tracks = (float(v.tracks[gi, me, 0]), float(v.tracks[gi, me, 1]), float(v.tracks[gi, me, 2]),
              float(v.tracks[gi, me, 3]))
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
    return Position(coin, tracks, tv, _set_values(v, gi, me, epoch, params), _requirements(v, gi, me, ct),
                    (prize_military, prize_culture))


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
    low = complete_sets(v, gi, me, False)
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
def _card_value(v, gi, me, card, epoch, phase, ct, params, at):
    """Points-equivalent of owning `card`, before its price: its worth (`_card_worth`) less the
    feeding risk of a card beyond the food track."""
    value = _card_worth(v, gi, me, card, epoch, phase, ct, params, at)
    food = _step(v, gi, me, ct, card, ct.card_colour[card], FOOD)
    return value - _feed_risk(v, gi, me, at.tracks[FOOD] - _card_count(v, gi, me) - 1 + food, phase, params, at.coin)


@helper
def _feed_risk(v, gi, me, slack, phase, params, coin):
    """What a card costs at the next feeding when the food track falls `slack` short (nothing if
    slack >= 0): `feed_loss`, or the coins with feed_with_coins; less in phase A."""
    if slack >= 0:
        return 0.0
    if_short = FEED_COIN_PRICE * coin if v.effects[gi, me, FEED_WITH_COINS] else params[FEED_LOSS]
    return if_short * (1.0 if phase == 1 else 0.6)


@helper
def _card_worth(v, gi, me, card, epoch, phase, ct, params, at):
    """Points-equivalent of owning `card`, before its price and feeding: points, track steps (affinity
    cards add one step per owned card of their colour, and later ones too), set value, colour bonus,
    effect, part of the next colony or statue (the prize) when the card lifts military or culture to
    its requirement before the next step."""
    tracks, tv, sv, req, prize = at.tracks, at.tv, at.sv, at.req, at.prize
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
def _rival_gains(v, gi, me, card0, card1, epoch, ct, params):
    """The most a rival would gain by buying each of two cards in phase B (0 if none would)."""
    best0, best1 = 0.0, 0.0
    for s in range(v.tracks.shape[1]):
        if s != me:
            at = _context(v, gi, s, epoch, 1, params, ct)
            worth = _card_value(v, gi, s, card0, epoch, 1, ct, params, at)
            best0 = max(best0, worth - at.coin * card_price(v, ct, gi, s, card0))
            worth = _card_value(v, gi, s, card1, epoch, 1, ct, params, at)
            best1 = max(best1, worth - at.coin * card_price(v, ct, gi, s, card1))
    return best0, best1

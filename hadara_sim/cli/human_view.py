"""What the person in a `play --policy human` seat sees: each option with what it costs or pays *them*
(their discounts and purple effects applied, by the same rules the engines charge), and the board.

Every price comes from `hadara_sim.rules`, the helpers both engines use, called as plain Python on
the decision's view (their `py_func`: the same fields, one game); an option that moves the person's
coins ends with the coins they will have after it, "(then 7 coins)".
"""

from __future__ import annotations

import re
import textwrap

from ..actions import MEDAL_GOLD, MEDAL_STOP, NONE, decode_statue
from ..constants import (BONUS_TILE_CARD_VALUE, COLONY_BOUNTY, COLOURS, EFFECT_INDEX, EPOCH_NAMES,
                         FEED_COIN_PRICE, GOLD_MAX, GOLD_POINTS_PER_SET, PATRON_BONUS, REQUIREMENT_MAX_COINS,
                         SILVER_MAX, TRACKS, extra_coin_seats, first_player_seats)
from ..rules import card_price, complete_sets, medal_prices, requirement_payment, sale_price

MILITARY, CULTURE = TRACKS.index("military"), TRACKS.index("culture")


def coins(n: int) -> str:
    """'1 coin', '3 coins'."""
    return f"{n} coin" if n == 1 else f"{n} coins"


def points(n: int) -> str:
    return f"{n} point" if n == 1 else f"{n} points"


def a_an(word: str) -> str:
    """The word with its indefinite article: 'an income tile', 'a food tile'."""
    return ("an " if word[0] in "aeiou" else "a ") + word


def then(view, change: int) -> str:
    """The coins the acting seat will have after an option that moves them by `change`."""
    return f" (then {coins(_coins(view) + change)})"


def _seat(view) -> int:
    return int(view.player[0])


def _coins(view) -> int:
    return int(view.coins[0, _seat(view)])


def _has(view, effect: str) -> bool:
    return bool(view.effects[0, _seat(view), EFFECT_INDEX[effect]])


def _epoch(view) -> int:
    return int(view.epoch[0])


def price(view, card: int) -> int:
    """What the acting seat pays for `card` (`rules.card_price`)."""
    return int(card_price.py_func(view, view.components.compiled, 0, _seat(view), card))


def sale(view) -> int:
    """What the acting seat gets for selling a card now (`rules.sale_price`)."""
    return int(sale_price.py_func(view, view.components.compiled, 0, _seat(view), _epoch(view)))


def medals(view) -> tuple[int, int]:
    """(silver, gold) prices for the acting seat now (`rules.medal_prices`)."""
    silver, gold = medal_prices.py_func(view, view.components.compiled, 0, _seat(view), _epoch(view))
    return int(silver), int(gold)


def requirement_terms(view, requirement: int, track: int) -> tuple[str, int]:
    """('military 6, you have 7', coins paid) for a requirement on `track` (`rules.requirement_payment`)."""
    have = int(view.tracks[0, _seat(view), track])
    pay, _ = requirement_payment.py_func(view, 0, _seat(view), requirement, track, REQUIREMENT_MAX_COINS)
    text = f"{TRACKS[track]} {requirement} needed, you have {have}"
    if _has(view, "requirement_cut"):
        text += ", 4 fewer needed for you"
    if pay:
        text += f"; you pay {coins(int(pay))} for what you lack"
    return text, int(pay)


def card_text(view, card: int, buy: bool, where: str = "") -> str:
    """'buy I-G-07 (green, ...) from the green pile for 1, 1 off for your green card', or 'sell I-G-07
    (...) for 2': the price the engine will charge or pay."""
    c = view.components
    if not buy:
        return f"sell {c.cards[card].describe()}{where} for {sale(view)}"
    cost, paid = c.cards[card].cost, price(view, card)
    text = f"buy {c.cards[card].describe()}{where} for {paid}"
    if paid < cost:
        colour = COLOURS[c.cards[card].colour]
        owned = int(view.colour_count[0, _seat(view), c.cards[card].colour])
        text += f", {cost - paid} off for your {owned} {colour} card{'s' if owned != 1 else ''}"
    return text


def option_text(kind: str, option: int, view, hand) -> str:
    """An option in words, with what it costs or pays the person and what they need to judge it."""
    return _OPTION[kind](option, view, hand)


def _wheel(option, view, hand) -> str:
    order = view.colour_order[0]
    seat = _seat(view)
    decks = [COLOURS[int(order[(option + seat + r) % len(COLOURS)])] for r in range(len(COLOURS))]
    return f"seat 0 faces board position {option}: you draw from the {decks[0]} deck first, then " + \
        ", ".join(decks[1:])


def _side(option, view, hand) -> str:
    c, seat = view.components, _seat(view)
    initiative = int(view.initiative[0, seat])
    extra = seat in extra_coin_seats([int(i) for i in view.initiative[0]])
    money = int(c.setup_coins[initiative - 1, option])
    values = ", ".join(f"{t} {int(v)}" for t, v in zip(TRACKS, c.setup_values[initiative - 1, option]))
    start = f"{coins(money + 1)} ({money} and 1 extra for your seat)" if extra else coins(money)
    return f"side {'AB'[option]} of setup card {initiative}: {start}, {values}"


def _draw(option, view, hand) -> str:
    discard, sell = divmod(option, 2)
    kept, dropped = int(hand[0][1 - discard]), int(hand[0][discard])
    change = sale(view) if sell else -price(view, kept)
    return f"{card_text(view, kept, not sell)}; discard {view.components.card_ids[dropped]}" + then(view, change)


def _tile(option, view, hand) -> str:
    left = int(view.tiles[0, _seat(view), option])
    card = view.components.card_ids[int(view.card[0])]
    return (f"{a_an(TRACKS[option])} tile on {card}: +{BONUS_TILE_CARD_VALUE} {TRACKS[option]} "
            f"({left} such tile{'s' if left != 1 else ''} unused)")


def _pick(option, view, hand) -> str:
    colour, sell = divmod(option, 2)
    card = int(view.piles[0, colour, int(view.pile_size[0, colour]) - 1])
    change = sale(view) if sell else -price(view, card)
    return card_text(view, card, not sell, f" from the {COLOURS[colour]} pile") + then(view, change)


def _colony(option, view, hand) -> str:
    if option == NONE:
        return "no colony"
    level, integrate = divmod(option - 1, 2)
    requirement, plunder, cost, front = (int(x) for x in view.colony_front[0, level])
    needed, pay = requirement_terms(view, requirement, MILITARY)
    bounty = COLONY_BOUNTY if _has(view, "colony_bounty") else 0
    terms = f", +{coins(bounty)} bounty" if bounty else ""
    where = f"the level {level + 1} colony [{needed}]"
    if integrate:
        what = f"integrate {where} for {cost}: its hidden back's track values and at least {points(front)}"
        change = bounty - pay - cost
    else:
        what = f"plunder {where}: +{coins(plunder)}, {points(front)}"
        change = bounty - pay + plunder
    return what + terms + then(view, change)


def _statue(option, view, hand) -> str:
    if option == NONE:
        return "no statue"
    c = view.components
    statue, track, side = decode_statue(option)
    bonus = int(c.statue_bonus[statue]) + (PATRON_BONUS if _has(view, "statue_patron") else 0)
    needed, pay = requirement_terms(view, int(c.statue_requirement[statue]), CULTURE)
    face = f"coloured side up: +{bonus} {TRACKS[track]}" if side == 0 else f"points side up: +{points(bonus)} at the end"
    text = (f"carve statue {statue + 1} [{needed}] for {points(int(c.statue_points[statue]))}, "
            f"{a_an(TRACKS[track])} tile {face}")
    return text + (then(view, -pay) if pay else "")


def _feed(option, view, hand) -> str:
    c = view.components
    if option == c.n_cards:
        return f"pay {coins(FEED_COIN_PRICE)} instead of removing a card" + then(view, -FEED_COIN_PRICE)
    return f"remove {c.cards[option].describe()}"


def _medal(option, view, hand) -> str:
    if option == MEDAL_STOP:
        return "stop buying medals"
    silver, gold = medals(view)
    seat = _seat(view)
    if option == MEDAL_GOLD:
        sets = int(complete_sets.py_func(view, 0, seat, _has(view, "gold_wildcard")))
        return (f"buy a gold medal for {gold}: {GOLD_POINTS_PER_SET} points per complete set of 5 colours, "
                f"you have {sets} now" + then(view, -gold))
    track = option - 1
    value = int(view.tracks[0, seat, track])
    return (f"buy a silver medal for {silver} with {a_an(TRACKS[track])} tile: half your {TRACKS[track]} at "
            f"the end, {points((value + 1) // 2)} now" + then(view, -silver))


_OPTION = {"wheel": _wheel, "side": _side, "draw": _draw, "tile": _tile, "pick": _pick, "colony": _colony,
           "statue": _statue, "feed": _feed, "medal": _medal}


def board_view(view, setting_up: bool = False) -> str:
    """The board as the person sees it: discard piles and their tops, colony stacks and their top tiles,
    statues and their requirements, medal and sale prices, and the deck they face next. While the
    players choose their setup sides (`setting_up`) no epoch has begun: the header says who will be
    first player in epoch I (RULINGS 1), not the first player of an epoch."""
    c, seat, epoch = view.components, _seat(view), _epoch(view)
    if setting_up:
        first = first_player_seats([int(x) for x in view.initiative[0]])[0]
        lines = [f"Board before epoch I (setup; seat {first}, the lowest initiative, will be its first player):"]
    else:
        lines = [f"Board, epoch {EPOCH_NAMES[epoch]} phase {'AB'[int(view.phase[0])]}, "
                 f"first player seat {int(view.first_player[0])}:"]
    lines.append("  discard piles (top card first):")
    for colour, name in enumerate(COLOURS):
        size = int(view.pile_size[0, colour])
        cards = [c.cards[int(view.piles[0, colour, k])] for k in range(size - 1, -1, -1)]
        shown = (cards[0].describe() + (f", under it {', '.join(x.id for x in cards[1:])}" if size > 1 else "")
                 if cards else "empty")
        lines.append(f"    {name}: {shown}")
    lines.append("  colonies (the top tile of each level's stack; its back is hidden):")
    for level in range(view.colony_front.shape[1]):
        left = int(view.colony_left[0, level])
        requirement, plunder, cost, front = (int(x) for x in view.colony_front[0, level])
        taken = " (you have one of this level)" if view.colonies[0, seat, level] else ""
        lines.append(f"    level {level + 1}: " + (
            f"{left} left; top tile military {requirement}, plunder +{plunder}, integrate for {cost}, "
            f"front {points(front)}{taken}" if left else "none left"))
    lines.append("  statues (culture needed: points, bonus of the tile placed on it):")
    for s in range(len(c.statue_requirement)):
        carved = "carved by you" if view.statues[0, seat, s] >= 0 else "open to you"
        others = [str(k) for k in range(view.players) if k != seat and view.statues[0, k, s] >= 0]
        lines.append(f"    statue {s + 1}: culture {int(c.statue_requirement[s])}: "
                     f"{points(int(c.statue_points[s]))}, bonus {int(c.statue_bonus[s])}; {carved}"
                     + (f", carved by seat {', '.join(others)}" if others else ""))
    silver, gold = medals(view)
    mine = int((view.silver[0, seat] >= 0).sum()), int(view.gold[0, seat])
    when = "in epoch I" if setting_up else "this epoch"
    lines.append(f"  medals {when} for you: silver {silver}, gold {gold}; you have {mine[0]} of "
                 f"{SILVER_MAX} silver and {mine[1]} of {GOLD_MAX} gold")
    lines.append(f"  a card sells for {sale(view)} {when}")
    lines.append(f"  {next_deck(view)}")
    return "\n".join(lines)


def next_deck(view) -> str:
    """The deck the acting seat draws from next in this epoch's phase A, if any."""
    rotation, round_ = int(view.rotation[0]), int(view.draw_round[0])
    if int(view.phase[0]) == 1 or rotation < 0:
        return "next deck: none this phase (phase B takes from the discard piles)" if rotation >= 0 else \
            "next deck: the first player turns the wheel first"
    later = round_ + 1
    if later >= len(COLOURS):
        return "next deck: none, this was the last draw round of the phase"
    position = (rotation + _seat(view) + later) % len(COLOURS)
    return f"next deck: in draw round {later + 1} you face the {COLOURS[int(view.colour_order[0, position])]} deck"


def table_view(view) -> str:
    """Every seat's public state, one line each."""
    lines = []
    for seat in range(view.players):
        medal_count = int((view.silver[0, seat] >= 0).sum())
        colours = ", ".join(f"{n} {colour}" for colour, n in zip(COLOURS, view.colour_count[0, seat]) if n)
        lines.append(f"  seat {seat}: {coins(int(view.coins[0, seat]))}; "
                     + ", ".join(f"{t} {int(v)}" for t, v in zip(TRACKS, view.tracks[0, seat]))
                     + f"; cards {colours or 'none'}; colonies {int((view.colonies[0, seat] > 0).sum())}; "
                     f"statues {int((view.statues[0, seat] >= 0).sum())}; medals {medal_count} silver, "
                     f"{int(view.gold[0, seat])} gold")
    return "\n".join(lines)


# textwrap breaks lines at ASCII whitespace only: a no-break space holds a phrase together.
NBSP = "\u00a0"


def wrap_phrases(line: str, width: int, indent: str = "      ") -> str:
    """`line` wrapped to `width` between phrases: a bracketed detail and a word with its number
    ("for 4", "statue 1") stay on one line, continuation lines indented."""
    keep = re.sub(r"\([^()]*\)|\w+ \d+", lambda m: m.group().replace(" ", NBSP), line)
    lines = textwrap.wrap(keep, max(width, 40), subsequent_indent=indent, break_long_words=False,
                          break_on_hyphens=False)
    return "\n".join(part.replace(NBSP, " ") for part in lines)

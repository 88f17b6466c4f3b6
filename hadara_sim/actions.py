"""Decision points and the fixed enumeration of options at each.

Every decision has a kind and a fixed-size list of options; the engine marks which are legal and a
policy returns the index of one legal option. Both engines use these encodings, so a trace of one
replays in the other. A decision with a single legal option is not asked: it is applied directly.

kind       options (index: meaning)
wheel      r: seat 0 faces board position r in draw round 1 (5 options)
side       0: setup side A, 1: side B (advanced game)
draw       2*d + a: discard drawn card d (0 or 1), then a=0 buy / a=1 sell the other card
tile       t: put a bonus tile of track t on the bonus-tile card (income, military, culture, food)
pick       2*c + a: take the top card of discard pile colour c, a=0 buy / a=1 sell
colony     0: take none; 1 + 2*level + a: take the top tile of that level, a=0 plunder / a=1 integrate
statue     0: carve none; 1 + 8*s + 2*t + side: carve statue s with a tile of track t, side 0 coloured
           (raise track t) / side 1 points
feed       c < n_cards: remove owned card c; n_cards: pay coins instead (feed_with_coins)
medal      0: stop buying; 1 + t: silver medal with a tile of track t; 5: gold medal
"""

from __future__ import annotations

from numba.extending import register_jitable

from .constants import COLOURS, TRACKS

KINDS = ("wheel", "side", "draw", "tile", "pick", "colony", "statue", "feed", "medal")
BUY, SELL = 0, 1
PLUNDER, INTEGRATE = 0, 1
COLOURED, POINTS_SIDE = 0, 1
NONE = 0
MEDAL_STOP, MEDAL_GOLD = 0, 5


def option_count(kind: str, n_cards: int = 162) -> int:
    """Number of options of a decision kind."""
    return {"wheel": 5, "side": 2, "draw": 4, "tile": 4, "pick": 10, "colony": 11,
            "statue": 33, "feed": n_cards + 1, "medal": 6}[kind]


@register_jitable  # callable from the compiled rule steps too
def draw_option(discard: int, action: int) -> int:
    return 2 * discard + action


@register_jitable  # callable from the compiled rule steps too
def pick_option(colour: int, action: int) -> int:
    return 2 * colour + action


@register_jitable  # callable from the compiled rule steps too
def colony_option(level: int, action: int) -> int:
    return 1 + 2 * level + action


@register_jitable  # callable from the compiled rule steps too
def statue_option(statue: int, track: int, side: int) -> int:
    return 1 + 8 * statue + 2 * track + side


def decode_statue(option: int) -> tuple[int, int, int]:
    """(statue, tile track, side) of a statue option other than NONE."""
    k = option - 1
    return k // 8, (k % 8) // 2, k % 2


def statue_face(option: int) -> str:
    """The face a statue option shows: a track's coloured side, or the points side (and its tile)."""
    _, track, side = decode_statue(option)
    return f"{TRACKS[track]} side" if side == COLOURED else f"points side ({TRACKS[track]} tile)"


def describe(kind: str, option: int, components=None, hand=None) -> str:
    """Short human-readable text of an option."""
    if kind == "wheel":
        return f"seat 0 faces board position {option}"
    if kind == "side":
        return "side " + "AB"[option]
    if kind == "draw":
        discard, action = divmod(option, 2)
        what = ("buy", "sell")[action]
        if hand is not None and components is not None:
            return (f"discard {components.card_ids[hand[discard]]}, "
                    f"{what} {components.card_ids[hand[1 - discard]]}")
        return f"discard card {discard}, {what} the other"
    if kind == "tile":
        return f"{TRACKS[option]} tile"
    if kind == "pick":
        colour, action = divmod(option, 2)
        return f"{('buy', 'sell')[action]} top of {COLOURS[colour]} pile"
    if kind == "colony":
        if option == NONE:
            return "no colony"
        level, action = divmod(option - 1, 2)
        return f"{('plunder', 'integrate')[action]} level {level + 1} colony"
    if kind == "statue":
        if option == NONE:
            return "no statue"
        return f"carve statue {decode_statue(option)[0] + 1} with {statue_face(option)}"
    if kind == "feed":
        n_cards = components.n_cards if components is not None else 162
        if option == n_cards:
            return "pay coins instead of removing a card"
        return f"remove {components.card_ids[option]}" if components is not None else f"remove card {option}"
    if kind == "medal":
        if option == MEDAL_STOP:
            return "stop buying medals"
        if option == MEDAL_GOLD:
            return "buy gold medal"
        return f"buy silver medal ({TRACKS[option - 1]} tile)"
    raise ValueError(f"unknown decision kind {kind!r}")

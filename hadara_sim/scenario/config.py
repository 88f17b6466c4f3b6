"""One configuration of a scenario: what its games play, read from the scenario's values.

`read_config` reads the player count, game kind, policies (`policies.py`) and their assignment to the
seats, `[setup]`, `[board]`, the grants and the `[components.*]` overrides of one scenario document;
a sweep calls it once for each combination of swept values. Each problem goes to the `Check`.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

from ..components import OVERRIDABLE, ComponentSet, override_problems
from ..constants import COLOURS, EFFECT_IDS, EPOCHS, MAX_PLAYERS, MIN_PLAYERS
from .checks import Check, DesignWarning, show_value, suggest, type_name
from .model import (ASSIGNMENTS, BOARD_KEYS, CARD_MODES, DEFAULT_PLAYERS, GAME_KINDS, GRANT_KEYS, RESTRICT_KEYS,
                    SETUP_KEYS, SIDE_MODES, SIDE_NAMES, Config, GrantEntry, Restriction, Setup)
from .policies import read_policies


def read_config(data: dict, check: Check, components: ComponentSet, base_dir: Path,
                policy_cache: dict, override_cache: dict) -> Config | None:
    """The one configuration `data` describes, or None when it has problems (reported to `check`)."""
    before = check.count
    components, overrides = _overrides(data, check, components, override_cache)
    players = check.integer(data, ("players",), DEFAULT_PLAYERS, MIN_PLAYERS, MAX_PLAYERS)
    game = check.string(data, ("game",), "basic", GAME_KINDS)
    advanced = game == "advanced"
    policies, policies_key = read_policies(data, check, base_dir, policy_cache, components)
    default_assignment = "fixed" if "seats" in data else "rotated"
    assignment = check.string(data, ("assignment",), default_assignment, ASSIGNMENTS)
    if players is not None and policies and assignment is not None:
        n = len(policies)
        if assignment == "fixed" and n not in (1, players):
            check.report((policies_key,), f"assignment \"fixed\" needs one policy per seat ({players}) "
                                          f"or a single policy for all seats, got {n}; use assignment = "
                                          "\"rotated\" or \"permutations\" to spread policies over seats")
        if assignment == "permutations" and n < players:
            check.report((policies_key,), f"assignment \"permutations\" needs at least as many policies "
                                          f"as seats ({players}), got {n}; use \"rotated\"")
    if assignment == "fixed" and len({p.label for p in policies}) >= 2 and check.count == before:
        warnings.warn(DesignWarning(
            f"{check.file}: {len({p.label for p in policies})} different policies on fixed seats: "
            "seat advantages (seat 0 wins about 52 % of 2-player games with one policy everywhere) are mixed into "
            "every policy comparison; use assignment = \"rotated\" (or \"permutations\") to compare policies"),
            stacklevel=2)
    setup = _setup(data, check, players, advanced)
    colour_order = _board(data, check)
    grants = _grants(data, check, components, players, advanced)
    for i, entry in enumerate(policies):
        _card_ids(entry.params, check, (policies_key, i, "params"), components)
    restriction = _restriction(data, check, components, players)
    if check.count > before or players is None:
        return None
    if restriction is not None and restriction.cost:
        changed = {card: {"cost": components.cards[components.card_index[card]].cost + restriction.cost}
                   for card in (*restriction.seek, *restriction.avoid)}
        components = components.with_overrides({"cards": changed})
    return Config(players, advanced, tuple(policies), assignment, setup, colour_order, tuple(grants),
                  overrides, components, restriction)


def _overrides(data: dict, check: Check, components: ComponentSet, cache: dict):
    """The component set with the scenario's `[components.*]` overrides applied, and the overrides."""
    raw = data.get("components")
    if not isinstance(raw, dict):
        return components, {}
    overrides = {k: v for k, v in raw.items() if k in OVERRIDABLE}
    if not overrides:
        return components, {}
    key = json.dumps(overrides, sort_keys=True, default=repr)  # a TOML date is no JSON; override_problems names it
    if key not in cache:
        problems = override_problems(components, overrides)
        cache[key] = problems or components.with_overrides(overrides)
    if isinstance(cache[key], list):
        for path, message in cache[key]:
            check.report(("components", *path), message)
        return components, overrides
    return cache[key], overrides


def _setup(data: dict, check: Check, players: int | None, advanced: bool) -> Setup | None:
    """The `[setup]` table: the seats' setup cards, their sides and the focus seat of a grid."""
    raw = data.get("setup", {})
    if not isinstance(raw, dict):
        check.report(("setup",), f"expected a table ([setup]), got {type_name(raw)}")
        return None
    check.unknown_keys(raw, ("setup",), SETUP_KEYS)
    cards = raw.get("cards", "random")
    if isinstance(cards, str):
        if cards not in CARD_MODES:
            check.report(("setup", "cards"), f"'{cards}' is not one of \"random\", \"grid\" or a list of "
                                             f"initiatives (1..5), one per seat{suggest(cards, CARD_MODES)}")
            cards = None
    elif isinstance(cards, list):
        if players is not None and len(cards) != players:
            check.report(("setup", "cards"), f"expected {players} initiatives (one per seat), got {len(cards)}")
            cards = None
        elif not all(isinstance(c, int) and not isinstance(c, bool) and 1 <= c <= 5 for c in cards):
            check.report(("setup", "cards"), f"initiatives must be whole numbers 1..5, got {show_value(cards)}")
            cards = None
        elif len(set(cards)) != len(cards):
            check.report(("setup", "cards"), f"each setup card exists once: {show_value(cards)} repeats one")
            cards = None
        else:
            cards = tuple(cards)
    else:
        check.report(("setup", "cards"), f"expected \"random\", \"grid\" or a list of initiatives, got "
                                         f"{type_name(cards)} {show_value(cards)}")
        cards = None
    sides = raw.get("sides", "policy")
    if isinstance(sides, str):
        if sides not in SIDE_MODES:
            check.report(("setup", "sides"), f"'{sides}' is not one of \"policy\", \"random\", \"grid\" or a "
                                             f"list of \"A\"/\"B\", one per seat{suggest(sides, SIDE_MODES)}")
            sides = None
        elif sides in ("random", "grid") and not advanced:
            check.report(("setup", "sides"), f"sides = \"{sides}\" needs game = \"advanced\": the basic game "
                                             "plays side A only")
            sides = None
    elif isinstance(sides, list):
        if players is not None and len(sides) != players:
            check.report(("setup", "sides"), f"expected {players} sides (one per seat), got {len(sides)}")
            sides = None
        elif not all(s in SIDE_NAMES for s in sides):
            check.report(("setup", "sides"), f"sides must be \"A\" or \"B\", got {show_value(sides)}")
            sides = None
        elif not advanced and "B" in sides:
            check.report(("setup", "sides"), "side B needs game = \"advanced\": the basic game plays side A only")
            sides = None
        else:
            sides = tuple(sides)
    else:
        check.report(("setup", "sides"), f"expected \"policy\", \"random\", \"grid\" or a list of sides, got "
                                         f"{type_name(sides)} {show_value(sides)}")
        sides = None
    focus = raw.get("focus_seat", "rotate")
    if focus != "rotate":
        focus = check.integer(raw, ("setup", "focus_seat"), 0, 0, (players or MAX_PLAYERS) - 1)
    if cards is None or sides is None or focus is None:
        return None
    return Setup(cards, sides, focus)


def _board(data: dict, check: Check) -> tuple[int, ...] | None:
    """The `[board]` colour order as colour indices, or None for a random order."""
    raw = data.get("board", {})
    if not isinstance(raw, dict):
        check.report(("board",), f"expected a table ([board]), got {type_name(raw)}")
        return None
    check.unknown_keys(raw, ("board",), BOARD_KEYS)
    order = raw.get("colour_order", "random")
    if order == "random":
        return None
    if (not isinstance(order, list) or sorted(map(str, order)) != sorted(COLOURS)):
        check.report(("board", "colour_order"), f"expected \"random\" or the 5 colours in board order "
                                                f"({', '.join(map(show_value, COLOURS))}), got {show_value(order)}")
        return None
    return tuple(COLOURS.index(c) for c in order)


def _grants(data: dict, check: Check, c: ComponentSet, players: int | None, advanced: bool) -> list[GrantEntry]:
    """The cards granted to seats (`grants`), each card once."""
    raw = data.get("grants", [])
    if raw == "none":
        raw = []
    elif isinstance(raw, (str, dict)):
        raw = [raw]
    if not isinstance(raw, list):
        check.report(("grants",), f"expected a list of grants, got {type_name(raw)} {show_value(raw)}")
        return []
    names = [*c.card_ids, *EFFECT_IDS]
    grants, seen = [], {}
    for i, item in enumerate(raw):
        path = ("grants", i)
        if isinstance(item, str):
            item = {"card": item}
        if not isinstance(item, dict):
            check.report(path, f"expected a card id, an effect id or a table with `card`, got "
                               f"{type_name(item)} {show_value(item)}")
            continue
        check.unknown_keys(item, path, GRANT_KEYS)
        name = check.string(item, path + ("card",), None)
        if name is None:
            if "card" not in item:
                check.report(path, "missing key `card` (a card id like \"II-P-03\" or an effect id like "
                                   "\"sell_bonus\")")
            continue
        if name in c.card_index:
            index = c.card_index[name]
        elif name in c.effect_card:
            index = c.effect_card[name]
        else:
            check.report(path + ("card",), f"no card or effect '{name}' in the component set{suggest(name, names)}")
            continue
        card = c.cards[index]
        if card.starred and not advanced:
            check.report(path + ("card",), f"{card.id} ({card.effect or 'starred'}) is an advanced-game card; "
                                           "the basic game has no starred cards (set game = \"advanced\")")
            continue
        epoch = check.integer(item, path + ("epoch",), card.epoch, 1, len(EPOCHS))
        seat = item.get("seat", "rotate")
        if seat != "rotate":
            seat = check.integer(item, path + ("seat",), 0, 0, (players or MAX_PLAYERS) - 1)
        if epoch is None or seat is None:
            continue
        if index in seen:
            check.report(path + ("card",), f"{card.id} is granted twice (also grants[{seen[index]}]); "
                                           "each card exists once")
            continue
        seen[index] = i
        grants.append(GrantEntry(card.id, index, card.effect, epoch, seat))
    return grants


def _card_ids(raw: dict, check: Check, path: tuple, c: ComponentSet) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The cards of restricted play (`seek`, `avoid`: a card id or a list of them) in `raw`, each checked
    against the component set; a card in both lists is refused."""
    found = {}
    for key in ("seek", "avoid"):
        value = raw.get(key, [])
        value = [value] if isinstance(value, str) else value
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            check.report(path + (key,), f"expected a list of card ids, got {type_name(value)} {show_value(value)}")
            value = []
        for i, card in enumerate(value):
            if card not in c.card_index:
                check.report(path + (key, i), f"no card '{card}' in the component set{suggest(card, c.card_ids)}")
        found[key] = tuple(v for v in value if v in c.card_index)
    for card in sorted(set(found["seek"]) & set(found["avoid"])):
        check.report(path, f"{card} is in both seek and avoid: a seat cannot both buy it whenever it can and never")
    return found["seek"], found["avoid"]


def _restriction(data: dict, check: Check, c: ComponentSet, players: int | None) -> Restriction | None:
    """The `restrict` table: restricted play of one seat (its policy's `seek` and `avoid`) and a
    change of those cards' cost; "none", or a table naming no card, restricts nothing."""
    raw = data.get("restrict", "none")
    if raw == "none":
        return None
    if not isinstance(raw, dict):
        check.report(("restrict",), f"expected \"none\" or a table like {{seek = [\"II-B-01\"]}}, got "
                                    f"{type_name(raw)} {show_value(raw)}")
        return None
    check.unknown_keys(raw, ("restrict",), RESTRICT_KEYS)
    seek, avoid = _card_ids(raw, check, ("restrict",), c)
    seat = raw.get("seat", "rotate")
    if seat != "rotate":
        seat = check.integer(raw, ("restrict", "seat"), 0, 0, (players or MAX_PLAYERS) - 1)
    cost = check.integer(raw, ("restrict", "cost"), 0, -20, 20)
    if seat is None or cost is None or not (seek or avoid):
        return None
    for card in (*seek, *avoid):
        printed = c.cards[c.card_index[card]].cost
        if printed + cost < 0:
            check.report(("restrict", "cost"), f"{card} costs {printed}: a change of {cost} makes it negative")
    return Restriction(seek, avoid, seat, cost)

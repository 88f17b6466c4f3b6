"""Sweeps: the `[sweep]` table's keys and values, and the combinations they make.

`read_sweep` checks each swept key (a `SweptKey`: its text read into a path into the scenario) and
its list of values; `swept_configs` plays every combination of values into a copy of the scenario's
document (`apply_value`) and reads the configuration each makes, merging problems that several
combinations share; `expand` spreads each configuration over its setup grid cells and seat
arrangements into the run's `Combination`s, and `check_decks` checks every grant leaves its decks
enough cards.
"""

from __future__ import annotations

import copy
import itertools
import math
from typing import Any, Callable

from ..components import OVERRIDABLE, ComponentSet
from ..constants import COLOURS, EPOCHS, MAX_COMBINATIONS, PURPLE
from ..swept_key import FOCUS_SEAT, SETUP_CARD, SETUP_SIDE, SweptKey
from .checks import Check, show_path, show_value, suggest, type_name
from .model import GAME_KINDS, RUN_KEYS, SIDE_NAMES, SWEEPABLE, Combination, Config


class PathError(Exception):
    """A swept key that leads nowhere in the scenario's document."""


def read_sweep(data: dict, check: Check) -> dict[SweptKey, list]:
    """The swept keys of `[sweep]` with their values, in file order."""
    raw = data.get("sweep", {})
    if not isinstance(raw, dict):
        check.report(("sweep",), f"expected a table of key = [values], got {type_name(raw)}")
        return {}
    sweep = {}
    for text, values in raw.items():
        key = SweptKey(text)
        path = key.path
        if not path or isinstance(path[0], int):
            check.report(("sweep", text), f"'{text}' is not a scenario key")
            continue
        top = path[0]
        overrides = top == "components" and len(path) > 2 and path[1] in OVERRIDABLE
        if (top in RUN_KEYS or top == "sweep") and not overrides:
            also = (": sweep single values instead, e.g. \"components.setup.3B.culture\""
                    if top == "components" else "")
            check.report(("sweep", text), f"'{top}' cannot be swept: a run has one {top} "
                                          f"(sweepable: {', '.join(SWEEPABLE)}){also}")
            continue
        if top not in SWEEPABLE and top != "components":
            check.report(("sweep", text), f"unknown key '{top}'{suggest(top, SWEEPABLE)} "
                                          f"(sweepable: {', '.join(SWEEPABLE)})")
            continue
        if not isinstance(values, list) or not values:
            check.report(("sweep", text), f"expected a non-empty list of values to sweep over, got "
                                          f"{type_name(values)} {show_value(values)}")
            continue
        same = next((other for other in sweep if other.path == path), None)
        if same is not None:  # both were played, the later one in every combination, under both labels
            check.report(("sweep", text), f"'{text}' and '{same.text}' sweep the same place: keep one of them")
            continue
        seen = []
        for i, v in enumerate(values):
            if v in seen:
                check.report(("sweep", text, i), f"value {show_value(v)} is listed twice")
            seen.append(v)
        sweep[key] = values
    return sweep


def swept_configs(data: dict, sweep: dict[SweptKey, list], check: Check,
                  config_of: Callable[[dict], Config | None]) -> list[tuple[dict, Config]]:
    """Each combination of swept values (key text -> value) with the configuration `config_of`
    reads from the document it makes; without a sweep, the document's one configuration."""
    if not sweep:  # with a sweep, only the combinations are checked: a swept key's own value is unused
        base = config_of(data)
        return [] if base is None else [({}, base)]
    found: list[tuple[dict, Config]] = []
    keys = list(sweep)
    count = math.prod(len(values) for values in sweep.values())
    if count > MAX_COMBINATIONS:
        check.report(("sweep",), f"{count:,} combinations of swept values "
                                 f"({' x '.join(str(len(values)) for values in sweep.values())}); a run takes at most "
                                 f"{MAX_COMBINATIONS:,}: sweep fewer values, or split the sweep into runs")
        return found
    check.found, count = [], 0
    # a combination's document needs no [sweep] (`config_of` reads the values set in it): copied with every
    # value of every combination, card-worth's 654-value sweep was most of its scenario's reading (1 s)
    plain = {key: value for key, value in data.items() if key != "sweep"}
    for picks in itertools.product(*(range(len(sweep[k])) for k in keys)):
        raw = plain
        values, failed = {}, False
        check.swept = []
        for key, i in zip(keys, picks):
            options = sweep[key]
            check.swept.append((key.path, ("sweep", key.text, i), f"with {key.text} = {show_value(options[i])}: "))
            try:
                raw = apply_value(raw, key.path, options[i])
            except PathError as err:
                check.found, check.swept = None, []
                check.report(("sweep", key.text), f"'{key.text}' does not name a place in the scenario: {err}")
                failed = True
                break
            values[key.text] = options[i]
        if failed:
            break
        count += 1
        check.context = "with " + ", ".join(f"{k} = {show_value(v)}" for k, v in values.items()) + ": "
        config = config_of(raw)
        if config is not None:
            found.append((values, config))
    if check.found is not None:
        check.merge_combinations(check.found, count)
    check.context, check.swept, check.found = "", [], None
    return found


def apply_value(raw: dict, path: tuple, value) -> dict:
    """A copy of `raw` with the value at `path` replaced."""
    data = copy.deepcopy(raw)
    set_value(data, path, value)
    return data


def set_value(data: dict, path: tuple, value) -> None:
    """Replace the value at `path` (a `SweptKey.path`) in the document `data`, making the tables on the
    way (a policy given by name becomes a table to set its parameters); PathError where the path runs
    through a value that is no table or list, or past a list's end."""
    node: Any = data
    for depth, key in enumerate(path):
        if isinstance(node, list):
            if not isinstance(key, int):
                raise PathError(f"{show_path(path[:depth])} is a list: use an index, not '{key}'")
            if key >= len(node):
                raise PathError(f"{show_path(path[:depth])} has {len(node)} entries, no [{key}]")
        elif isinstance(node, dict):
            if isinstance(key, int):
                raise PathError(f"{show_path(path[:depth]) or 'the scenario'} is a table, not a list")
        else:
            raise PathError(f"{show_path(path[:depth])} is {type_name(node)} {show_value(node)}, not a table of keys: "
                            "set it whole")
        if depth == len(path) - 1:
            node[key] = copy.deepcopy(value)
            return
        child = node[key] if isinstance(node, list) else node.get(key)
        if child is None:
            child = {}
            node[key] = child
        elif isinstance(child, str) and path[0] in ("policies", "seats") and depth == 1:
            child = {"policy": child}  # "greedy" -> {policy = "greedy"} to set its params
            node[key] = child
        elif child == "none" and path[0] == "restrict" and depth == 0:
            child = {}  # restrict = "none" -> {} to set its cost: a restriction of no card, the control
            node[key] = child
        elif isinstance(child, str) and path[0] == "components" and depth == 0:
            child = {"path": child}  # components = "dir" -> {path = "dir"} to override its values
            node[key] = child
        node = child


def expand(configs: list[tuple[dict, Config]]) -> list[Combination]:
    """Every (swept values, setup grid cell, seat arrangement) in order, with the cards to keep out
    of the decks: the cards the combination grants. The deal skips a kept-out card and leaves the
    others in their order (`deal.make_deals`), so combinations of a group play the same deals but
    for the granted card."""
    combos = []
    for values, config in configs:
        setup = config.setup
        cards = range(1, 6) if setup.cards == "grid" else [None]
        sides = range(2) if setup.sides == "grid" else [None]
        if config.assignment == "permutations":
            arrangements = list(itertools.permutations(range(len(config.policies)), config.players))
        else:
            arrangements = [None]
        exclude = tuple(sorted(g.card_index for g in config.grants))
        for card, side, arrangement in itertools.product(cards, sides, arrangements):
            sweep = dict(values)
            if card is not None:
                sweep[SETUP_CARD.text] = card
            if side is not None:
                sweep[SETUP_SIDE.text] = SIDE_NAMES[side]
            if card is not None or side is not None:
                sweep[FOCUS_SEAT.text] = setup.focus_seat
            combos.append(Combination(len(combos), sweep, config, arrangement, card, side, exclude))
    return combos


def check_decks(combos: list[Combination], c: ComponentSet, check: Check, sweep: dict[SweptKey, list]):
    """Every grant must leave each deck enough cards: 2 per player."""
    where = ("sweep", "grants") if SweptKey("grants") in sweep else ("grants",)
    done = set()
    for combo in combos:
        key = (combo.players, combo.advanced, combo.exclude)
        if key in done or not combo.exclude:
            continue
        done.add(key)
        need = 2 * combo.players
        for epoch in EPOCHS:
            for colour, colour_name in enumerate(COLOURS):
                pool = c.cards_of(epoch, colour, combo.advanced)
                out = [i for i in combo.exclude if i in set(pool.tolist())]
                if out and len(pool) - len(out) < need:
                    kind = GAME_KINDS[combo.advanced]
                    shown = ", ".join(f"{c.card_ids[i]}" + (f" ({c.cards[i].effect})" if c.cards[i].effect else "")
                                      for i in out)
                    what = "purple" if colour == PURPLE else colour_name
                    also = ""
                    check.report(where, f"impossible grant at {combo.players} players, {kind} game: the epoch "
                                        f"{epoch} {what} deck needs {need} cards ({combo.players} players x 2) "
                                        f"but only {len(pool) - len(out)} of its {len(pool)} remain once "
                                        f"{shown} {'is' if len(out) == 1 else 'are'} kept out for granting{also}")

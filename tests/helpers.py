"""Shared helpers for the tests: hand-built game states and a scripted policy.

A hand-built state starts from a real deal (`make_deals(...)[0]`) so that every array the engine
expects is there, then sets the players' belongings directly. Two ways to give a player a card:

- `gain(game, seat, "I-B-01")` goes through `Game.gain_card`: tracks and effects apply, as if bought;
- `give(game, seat, "I-B-01")` only edits the card list and `location`: tracks stay as they are.
"""

from __future__ import annotations

import csv
import io
import shutil
from pathlib import Path

import numpy as np

from hadara_sim import actions as A
from hadara_sim.component_files import default_components_path
from hadara_sim.constants import (
    AFFINITY_TRACK, BONUS_TILE_CARD_VALUE, EFFECT_INDEX, LOC_OWNED, PATRON_BONUS,
)
from hadara_sim.deal import make_deals
from hadara_sim.policy import Policy
from hadara_sim.reference import Game

INCOME, MILITARY, CULTURE, FOOD = range(4)


class UnexpectedDecision(AssertionError):
    """The engine asked a scripted policy something the test did not expect."""


class Scripted(Policy):
    """Answers decisions from a queue of (kind, option) pairs, in order.

    Fails loudly when asked a decision that is not next in the queue, when the queue is empty, or
    when the scripted option is not legal. Every question asked is kept in `asked` as
    (kind, legal options, private fields such as hand / card / feed_need).
    """

    name = "scripted"

    def __init__(self, script=(), seed: int = 0):
        super().__init__(seed)
        self.script = list(script)
        self.asked: list[tuple[str, list[int], dict]] = []

    def add(self, *pairs):
        self.script.extend(pairs)
        return self

    def decide(self, decision):
        legal = np.flatnonzero(decision.legal[0]).tolist()
        private = {k: decision.view.__dict__[k][0].tolist()
                   for k in ("hand", "card", "feed_need") if k in decision.view.__dict__}
        self.asked.append((decision.kind, legal, private))
        if not self.script:
            raise UnexpectedDecision(f"unscripted '{decision.kind}' decision (legal options {legal})")
        kind, option = self.script.pop(0)
        if kind != decision.kind:
            raise UnexpectedDecision(f"expected a '{kind}' decision, the engine asked '{decision.kind}' "
                                     f"(legal options {legal})")
        if option not in legal:
            raise UnexpectedDecision(f"scripted '{kind}' option {option} is not legal; legal: {legal}")
        return np.array([option])

    def kinds(self) -> list[str]:
        return [kind for kind, _, _ in self.asked]

    def assert_done(self):
        assert not self.script, f"scripted decisions never asked: {self.script}"


def new_game(components, players: int = 2, advanced: bool = False, seed: int = 0, epoch: int = 1,
             initiative=None) -> Game:
    """A game of `players` scripted seats after setup (side A for everyone), in `epoch`."""
    deal = make_deals(components, players, 1, seed=seed, advanced=advanced)[0]
    if initiative is not None:
        deal.initiative[0] = initiative
    policies = [Scripted([("side", 0)] if advanced else []) for _ in range(players)]
    game = Game(deal, components, policies)
    game.set_up()
    game.epoch = epoch
    for p in policies:
        p.assert_done()
        p.asked.clear()
    return game


def scripted(game: Game, seat: int = 0) -> Scripted:
    return game.policies[seat]


def card(components, key: str) -> int:
    """A card index from an effect id ("sell_bonus") or a card id ("I-B-01")."""
    if key in components.effect_card:
        return components.effect_card[key]
    return components.card_index[key]


def give(game: Game, seat: int, *keys) -> list[int]:
    """Put cards into a player's hand without touching tracks (direct list edit)."""
    p = game.seats[seat]
    out = []
    for key in keys:
        i = card(game.c, key) if isinstance(key, str) else int(key)
        p.cards.append(i)
        game.location[i] = LOC_OWNED + seat
        out.append(i)
    return out


def gain(game: Game, seat: int, *keys) -> list[int]:
    """Gain cards through the engine (tracks and effects apply), without paying."""
    out = []
    for key in keys:
        i = card(game.c, key) if isinstance(key, str) else int(key)
        game.gain_card(game.seats[seat], i)
        out.append(i)
    return out


def set_tracks(player, income=None, military=None, culture=None, food=None):
    for t, v in enumerate((income, military, culture, food)):
        if v is not None:
            player.tracks[t] = v


def colony_on_top(game: Game, tile_id: str) -> int:
    """Make a colony tile the top of its level's stack (replacing the old top if not dealt)."""
    c = game.c
    tile = next(k.index for k in c.colonies if k.id == tile_id)
    stack = game.colony_stacks[int(c.colony_level[tile])]
    if tile in stack:
        stack.remove(tile)
        stack.insert(0, tile)
    else:
        stack[0] = tile
    return tile


def colony_tile(components, tile_id: str) -> int:
    return next(k.index for k in components.colonies if k.id == tile_id)


def expected_tracks(components, state: dict, initiatives) -> list[list[int]]:
    """Every seat's tracks rebuilt from their sources in a state snapshot: setup card + owned
    cards + integrated colony backs + coloured statue bonuses (+2 each with statue_patron) + the
    bonus-tile card's +2 + affinity (+1 per owned card of the matching colour)."""
    c = components
    location = np.asarray(state["location"])
    out = []
    for s, init in enumerate(initiatives):
        tracks = np.array(c.setup_values[init - 1, state["side"][s]], np.int64)
        owned = np.flatnonzero(location == LOC_OWNED + s)
        tracks += c.card_values[owned].sum(axis=0)
        effects = {int(e) for e in c.card_effect[owned] if e >= 0}
        for level, how in enumerate(state["colonies"][s]):
            if how == 2:
                tracks += c.colony_back_values[state["colony_tile"][s][level]]
        for statue, code in enumerate(state["statues"][s]):
            if code >= 0 and code % 2 == A.COLOURED:
                tracks[code // 2] += int(c.statue_bonus[statue])
                if EFFECT_INDEX["statue_patron"] in effects:
                    tracks[code // 2] += PATRON_BONUS
        if state["bonus_card_tile"][s] >= 0:
            tracks[state["bonus_card_tile"][s]] += BONUS_TILE_CARD_VALUE
        for e in effects:
            if e in AFFINITY_TRACK:
                t = AFFINITY_TRACK[e]
                tracks[t] += int((c.card_colour[owned] == t).sum())
        out.append(tracks.tolist())
    return out


def game_expected_tracks(game: Game) -> list[list[int]]:
    return expected_tracks(game.c, game.snapshot(), [p.initiative for p in game.seats])


def tile_count(state: dict, seat: int, per_colour: int = 2) -> list[int]:
    """Bonus tiles of each track in use or unused (must always be `per_colour`)."""
    counts = list(state["tiles"][seat])
    for code in state["statues"][seat]:
        if code >= 0:
            counts[code // 2] += 1
    for t in state["silver"][seat]:
        if t >= 0:
            counts[t] += 1
    if state["bonus_card_tile"][seat] >= 0:
        counts[state["bonus_card_tile"][seat]] += 1
    return counts


# --- component sets in tmp directories ---------------------------------------------------------

def copy_default(tmp_path: Path, name: str = "set") -> Path:
    target = tmp_path / name
    shutil.copytree(default_components_path(), target)
    return target


def read_csv(path: Path) -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))


def write_csv(path: Path, rows: list[list[str]]):
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    path.write_text(buf.getvalue(), encoding="utf-8")


def edit_csv(path: Path, row_id: str, column: str, value: str) -> int:
    """Set one field of the row whose first column is `row_id`; returns the file line number."""
    rows = read_csv(path)
    col = rows[0].index(column)
    for n, row in enumerate(rows):
        if row and row[0] == row_id:
            row[col] = value
            write_csv(path, rows)
            return n + 1
    raise KeyError(row_id)





def pick(components, n: int = 1, epoch: int | None = 1, colour: int | None = None, food: int | None = None,
         min_cost: int = 0, exclude=(), where=None) -> list[str]:
    """Ids of `n` cards without an effect matching the filters (so tests do not depend on the
    estimated values of the default set: expectations are computed from the chosen cards)."""
    out = []
    for c in components.cards:
        if c.effect or c.id in exclude:
            continue
        if epoch is not None and c.epoch != epoch:
            continue
        if colour is not None and c.colour != colour:
            continue
        if food is not None and c.values[3] != food:
            continue
        if c.cost < min_cost or (where is not None and not where(c)):
            continue
        out.append(c.id)
        if len(out) == n:
            return out
    raise LookupError(f"the component set has no {n} cards like that (found {out})")


def values(components, key) -> list[int]:
    return list(components.cards[card(components, key)].values)


class InPython(Policy):
    """A built-in asked through its Python methods at every decision (the engine sees no kernel)."""

    def __init__(self, inner):
        super().__init__()
        self.inner, self.name = inner, inner.name

    def decide(self, decision):
        return self.inner.decide(decision)


def hinted_script_parses(message: str) -> Path:
    """The `python scripts/NAME ARGS` a message names: the script exists, and ARGS parse as its
    command line (every option it requires given, none it lacks); its path."""
    import importlib.util
    import re

    import typer
    import typer.main

    script, args = re.search(r"`python (\S+\.py)((?: [^`]*)?)`", message).groups()
    spec = importlib.util.spec_from_file_location(f"hinted_{Path(script).stem}", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    app = typer.Typer()
    app.command()(module.main)
    typer.main.get_command(app).make_context(Path(script).name, args.split())
    return Path(script)

"""Rule paths that simulated games never reach, on hand-built states, in both engines.

Each test builds one situation in the reference engine (`hadara_sim.reference`, with the helpers of
`tests/helpers.py`), copies it into a batch of one game of the compiled engine (`in_batch_engine`),
plays the same step in both with the same scripted choices, and checks the rule's numbers in each
and that the two engines end in the same state (every field of a trace state record).
"""

import numpy as np
import pytest

from hadara_sim import actions as A
from hadara_sim.component_files import load_components
from hadara_sim.constants import EFFECT_INDEX, LOC_OWNED, LOC_SOLD, PURPLE, YELLOW
from hadara_sim.engine.decide import STATUE
from hadara_sim.engine.game import BatchGame, act_in_step
from hadara_sim.engine.pick import pick_turn
from hadara_sim.engine.scoring import SCORE_COLUMNS, final_scores
from hadara_sim.engine.state import SNAPSHOT_FIELDS

from helpers import (
    CULTURE, FOOD, INCOME, MILITARY, Scripted, card, copy_default, gain, new_game, scripted, set_tracks,
)


# --- the same hand-built state in the compiled engine --------------------------------------------

def in_batch_engine(game, scripts) -> BatchGame:
    """The reference game's current state as a batch of one game of the compiled engine, seat k
    played by a `Scripted` policy with `scripts[k]`. Arrays are filled in place: the engine's
    deciders hold them."""
    batch = BatchGame(game.deal, game.c, [Scripted(script) for script in scripts])
    s, snap = batch.s, game.snapshot()
    for name in SNAPSHOT_FIELDS:
        getattr(s, name)[0] = np.asarray(snap[name])
    s.clock[:] = (game.epoch, game.phase, game.draw_round)
    s.first_player[0] = game.first
    for colour, pile in enumerate(game.piles):
        s.pile_size[0, colour] = len(pile)
    for level, stack in enumerate(game.colony_stacks):
        ptr = game.players - len(stack)
        assert stack == game.deal.colonies[0, level, ptr:].tolist(), "colony stacks must stay as dealt"
        s.colony_ptr[0, level] = ptr
    for colour, deck in enumerate(game.decks):
        s.deck_ptr[0, colour] = 2 * game.players - len(deck)
    for p in game.seats:
        for colour in range(5):
            s.colour_count[0, p.seat, colour] = game.colour_count(p, colour)
        for effect in game.effects_of(p):
            s.effects[0, p.seat, EFFECT_INDEX[effect]] = True
            s.effect_epoch[0, p.seat, EFFECT_INDEX[effect]] = game.epoch
    assert same_state(game, batch) == []
    batch.bind()  # the steps below are called directly, not by `play`: the addresses they call through
    return batch


def same_state(game, batch) -> list[str]:
    """The fields of the trace state record on which the two engines differ (empty: none)."""
    ref, comp = game.snapshot(), batch.s.snapshot()
    return [name for name in SNAPSHOT_FIELDS if np.asarray(ref[name]).tolist() != comp[name][0].tolist()]


def seats(*seat):
    return np.array(seat, np.int64)


# --- 1. the bonus-tile card with no unused bonus tile ----------------------------------------------

@pytest.fixture(scope="module")
def one_tile_per_colour(tmp_path_factory):
    """The default set with 1 bonus tile per colour (board.toml `bonus_tiles.per_colour`, 1..4).

    With the printed 2 per colour a player never runs out: 4 statues + 2 silver medals + the card
    itself use at most 7 of the 8 tiles. With 4 tiles, four carved statues use them all."""
    d = copy_default(tmp_path_factory.mktemp("tiles"))
    board = d / "board.toml"
    text = board.read_text(encoding="utf-8")
    assert "per_colour = 2" in text
    board.write_text(text.replace("per_colour = 2", "per_colour = 1"), encoding="utf-8")
    c = load_components(d)
    assert c.tiles_per_colour == 1
    return c


@pytest.mark.parametrize("statues,legal,choice", [
    # four statues carved: no unused tile, so the affordable card can only be sold
    (4, [A.pick_option(YELLOW, A.BUY), A.pick_option(YELLOW, A.SELL), A.pick_option(PURPLE, A.SELL)],
     A.pick_option(PURPLE, A.SELL)),
    # three statues carved: the food tile is free, the card can be bought and the tile goes on it
    (3, [A.pick_option(YELLOW, A.BUY), A.pick_option(YELLOW, A.SELL), A.pick_option(PURPLE, A.BUY),
         A.pick_option(PURPLE, A.SELL)], A.pick_option(PURPLE, A.BUY)),
], ids=["no-tile-left", "one-tile-left"])
def test_bonus_tile_card_without_a_free_tile_can_only_be_sold(one_tile_per_colour, statues, legal, choice):
    """bonus_tile_card (RULINGS 4, "Bonus tiles"; docs/rules.md 8): statues, silver medals and the
    bonus-tile card all draw from the player's bonus tiles, and a player with no suitable tile cannot
    take that option. A phase B pick of the card, affordable (50 coins, cost 3), with all tiles on
    statues offers only selling it (2 coins in epoch I); with one tile left it can be bought and
    that tile goes on it, unasked, +2 on its track."""
    c = one_tile_per_colour
    game = new_game(c, players=2, epoch=1)
    game.phase = 1
    p = game.seats[0]
    set_tracks(p, culture=30)
    for s in range(statues):  # statue s with the tile of track s, points side: tracks unchanged
        game.carve_statue(p, A.statue_option(s, s, A.POINTS_SIDE))
    assert p.tiles == [0, 0, 0, 4 - statues]
    p.coins = 50
    bonus, yellow = card(c, "bonus_tile_card"), card(c, "I-Y-01")
    game.discard(yellow)
    game.discard(bonus)
    assert game.price(p, bonus) == 3
    tracks = list(p.tracks)

    batch = in_batch_engine(game, [[("pick", choice)], []])
    scripted(game).add(("pick", choice))
    game.pick_turn(p)
    pick_turn(batch.s.arrays, batch.s.tables, batch.k, seats(0))

    for policy in (scripted(game), batch.policies[0]):
        policy.assert_done()
        assert policy.asked == [("pick", legal, {})]
    if statues == 4:
        assert p.coins == 52 and game.location[bonus] == LOC_SOLD
        assert p.tiles == [0, 0, 0, 0] and p.bonus_card_tile == -1 and p.tracks == tracks
    else:
        assert p.coins == 47 and game.location[bonus] == LOC_OWNED + 0
        assert p.tiles == [0, 0, 0, 0] and p.bonus_card_tile == FOOD
        assert p.tracks == [*tracks[:FOOD], tracks[FOOD] + 2]
    assert same_state(game, batch) == []


def test_a_granted_bonus_tile_card_with_no_free_tile_holds_none(one_tile_per_colour):
    """A grant (an experiment's option, not a purchase) can give the bonus-tile card to a player with
    no unused tile; "a player with no suitable tile cannot take that option" (RULINGS 4): the card is
    owned, nothing is asked, no tile goes on it and no track rises; removed when feeding, it gives
    back no tile and takes no 2 points. (Before, the batch engine placed a tile of the income track
    it did not have and the reference engine asked with no legal option.)"""
    from hadara_sim.engine.cards import gain, remove_card

    c = one_tile_per_colour
    game = new_game(c, players=2, epoch=1)
    p = game.seats[0]
    set_tracks(p, culture=30)
    for s in range(4):
        game.carve_statue(p, A.statue_option(s, s, A.POINTS_SIDE))
    assert p.tiles == [0, 0, 0, 0]
    bonus = card(c, "bonus_tile_card")
    tracks = list(p.tracks)
    batch = in_batch_engine(game, [[], []])

    game.gain_card(p, bonus)
    gain(batch.s.arrays, batch.s.tables, batch.k, seats(0), seats(0), np.array([bonus]))
    for policy in (scripted(game), batch.policies[0]):
        assert policy.asked == []
    assert game.location[bonus] == LOC_OWNED + 0 and p.bonus_card_tile == -1
    assert p.tiles == [0, 0, 0, 0] and p.tracks == tracks
    assert same_state(game, batch) == []

    game.remove_card(p, bonus)
    remove_card(batch.s.arrays, batch.s.tables, 0, 0, bonus)
    assert p.tiles == [0, 0, 0, 0] and p.tracks == tracks
    assert same_state(game, batch) == []


# --- 2. a three-way shared win ----------------------------------------------------------------

def test_three_way_tie_on_total_and_leftover_coins_is_shared(components):
    """Final scoring (RULINGS 5): highest total wins; a tie goes to the most coins left after the
    conversion (coins mod 5); a remaining tie is shared, 1/k each (docs/rules.md 8: rank counts the
    players strictly ahead on (total, leftover coins)). Five players, 13 points three different ways
    with 2 coins left each, share the win 1/3 each: a fourth on 13 points with 1 coin left loses the
    tie-break (rank 4), a fifth with 4 coins left but 12 points is last."""
    game = new_game(components, players=5, epoch=3)
    s0, s1, s2, s3, s4 = game.seats
    set_tracks(s0, culture=12)
    game.carve_statue(s0, A.statue_option(1, FOOD, A.POINTS_SIDE))  # statue 12: 8 points + bonus 3
    s0.coins = 12                                                   # 2 points, 2 left
    s1.coins = 67                                                   # 13 points, 2 left
    s2.coins = 66                                                   # 13 points, 1 left
    set_tracks(s3, culture=6)
    game.carve_statue(s3, A.statue_option(0, INCOME, A.COLOURED))    # statue 6: 4 points
    s3.silver = [CULTURE]                                           # half of culture 10: 5 points
    s3.tiles[CULTURE] -= 1
    set_tracks(s3, culture=10)
    s3.coins = 22                                                   # 4 points, 2 left
    s4.coins = 64                                                   # 12 points, 4 left
    batch = in_batch_engine(game, [[]] * 5)

    reference = {k: [row[k] for row in game.score_sheet()] for k in SCORE_COLUMNS}
    compiled = {k: v[0].tolist() for k, v in final_scores(batch.s).items()}
    assert compiled == reference
    assert reference["statues"] == [11, 0, 0, 4, 0]
    assert reference["silver"] == [0, 0, 0, 5, 0]
    assert reference["total"] == [13, 13, 13, 13, 12]
    assert reference["leftover_coins"] == [2, 2, 1, 2, 4]
    assert reference["rank"] == [1, 1, 4, 1, 5]
    assert reference["win_share"] == [1 / 3, 1 / 3, 0.0, 1 / 3, 0.0]
    assert sum(reference["win_share"]) == pytest.approx(1.0)


# --- 3. requirement_purchase under double_actions: the second statue ------------------------------

def statue_numbers(legal) -> list[int]:
    """The statues a statue decision offers (any tile, either side)."""
    return sorted({A.decode_statue(o)[0] for o in legal if o != A.NONE})


# culture, coins, first statue, second statue, statues offered at the second action, coins after,
# culture after (statue 6 is always met: the second action is always asked)
DOUBLE_PURCHASE = {
    # statue 12 lacks 1 (3 coins); then statue 20 lacks 9: 27 coins, within the 27 left of the
    # step's 30, but only 26 coins are left in hand
    "coins-run-out": (11, 29, A.statue_option(1, FOOD, A.POINTS_SIDE),
                      A.statue_option(0, INCOME, A.POINTS_SIDE), [0], 26, 11),
    # one coin more: 3 + 27 coins, exactly the step's 30 and every coin in hand
    "coins-just-enough": (11, 30, A.statue_option(1, FOOD, A.POINTS_SIDE),
                          A.statue_option(2, INCOME, A.POINTS_SIDE), [0, 2], 0, 11),
    # statue 20 lacks 10: 30 coins, the whole budget; statue 12 lacks 2 (6 coins) though 70 coins
    # are in hand
    "budget-runs-out": (10, 100, A.statue_option(2, FOOD, A.POINTS_SIDE),
                        A.statue_option(0, INCOME, A.POINTS_SIDE), [0], 70, 10),
    # culture 11: statue 20 lacks 9 (27 coins), statue 12 lacks 1: 3 coins, exactly what is left
    "budget-just-enough": (11, 100, A.statue_option(2, FOOD, A.POINTS_SIDE),
                           A.statue_option(1, INCOME, A.POINTS_SIDE), [0, 1], 70, 11),
    # statue 20 lacks 10 (30 coins) and gets the culture tile coloured side up: culture 10 + 4 = 14
    # meets statue 12 without paying, with nothing left of the budget and 5 coins in hand
    "bonus-lifts-culture": (10, 35, A.statue_option(2, CULTURE, A.COLOURED),
                            A.statue_option(1, MILITARY, A.POINTS_SIDE), [0, 1], 5, 14),
    # the same statue with the tile points side up: culture stays 10, statue 12 lacks 2 (6 coins)
    "points-side-no-lift": (10, 35, A.statue_option(2, CULTURE, A.POINTS_SIDE),
                            A.statue_option(0, MILITARY, A.POINTS_SIDE), [0], 5, 10),
}


@pytest.mark.parametrize("culture,coins,first,second,offered,coins_after,culture_after",
                         list(DOUBLE_PURCHASE.values()), ids=list(DOUBLE_PURCHASE))
def test_requirement_purchase_binds_on_the_second_statue_of_a_double_step(
        components, culture, coins, first, second, offered, coins_after, culture_after):
    """requirement_purchase (RULINGS 6): pay 3 coins per point of requirement you lack, at most 30
    coins per step, colony and statue steps separately; double_actions: act twice in each statue
    step. Both actions share the step's 30 coins (docs/rules.md 8) and pay from the coins in hand,
    so what the first statue paid can leave too little for the second: a statue that would need
    more (of the budget or of the coins) is not offered. A coloured culture tile on the first
    statue raises culture, and the second statue is judged on the new culture."""
    game = new_game(components, players=2, advanced=True, epoch=3)
    p = game.seats[0]
    gain(game, 0, "requirement_purchase", "double_actions")
    set_tracks(p, culture=culture)
    p.coins = coins
    script = [("statue", first), ("statue", second)]
    batch = in_batch_engine(game, [script, []])
    scripted(game).add(*script)
    game.statue_step(p)
    act_in_step(batch.s.arrays, batch.s.tables, batch.k, seats(0), STATUE)

    for policy in (scripted(game), batch.policies[0]):
        policy.assert_done()
        assert policy.kinds() == ["statue", "statue"]
        assert statue_numbers(policy.asked[0][1]) == [0, 1, 2]  # statue 30 lacks 19 or more
        assert statue_numbers(policy.asked[1][1]) == offered
    assert sorted(p.statues) == sorted(A.decode_statue(o)[0] for _, o in script)
    assert p.coins == coins_after and p.tracks[CULTURE] == culture_after
    assert same_state(game, batch) == []

"""The reference engine on hand-built states: the rulebook's worked examples and the rules of
RULINGS sections 1-5, one rule per test."""

import numpy as np
import pytest

from hadara_sim import actions as A
from hadara_sim.constants import (
    BLUE, GREEN, LOC_OWNED, LOC_PILE, LOC_REMOVED, LOC_SOLD, RED, YELLOW, extra_coin_seats,
    first_player_seats,
)
from hadara_sim.deal import make_deals
from hadara_sim.reference import Game
from hadara_sim.trace import Recorder
from policies import Random

from helpers import (
    CULTURE, FOOD, INCOME, MILITARY, Scripted, card, colony_on_top, colony_tile, gain, give, new_game, scripted,
    set_tracks,
)


def ids(components, indices):
    return sorted(components.card_ids[i] for i in indices)


# --- the rulebook's worked examples ---------------------------------------------------------

def test_rulebook_score_sheet_149(game):
    """Scoring example: colonies 26, statues 30, silver 14 + 9, gold 21, cards 47, coins 2 = 149."""
    c = game.c
    p = game.seats[0]
    # 16 cards, 3+ of every colour (4 yellow), points 3,2,4,4 / 4,1,1 / 2,2,2 / 4,3,6 / 2,2,5 = 47.
    give(game, 0, "I-Y-05", "I-Y-01", "II-Y-01", "II-Y-04",
         "II-R-07", "I-R-02", "II-R-04",
         "I-B-01", "I-B-04", "I-B-07",
         "II-G-02", "I-G-03", "III-G-09",
         "II-P-07", "II-P-08", "II-P-11")
    assert sorted(c.cards[x].points for x in p.cards) == sorted(
        [3, 2, 4, 4, 4, 1, 1, 2, 2, 2, 4, 3, 5, 2, 6, 2])
    # Colonies 2 + 5 + 8 + 11: plundered level 1, integrated C2-1 (back 5), plundered 3 and 4.
    p.colonies = {0: (colony_tile(c, "C1-1"), False), 1: (colony_tile(c, "C2-1"), True),
                  2: (colony_tile(c, "C3-1"), False), 3: (colony_tile(c, "C4-1"), False)}
    # Statues 4 + 8 + 14, and a red tile points side up on statue 3 worth 4.
    p.statues = {0: (FOOD, A.COLOURED), 1: (CULTURE, A.COLOURED), 2: (MILITARY, A.POINTS_SIDE)}
    p.silver = [MILITARY, INCOME]
    p.gold = 1
    set_tracks(p, income=18, military=27, culture=20, food=16)
    p.coins = 11
    row = game.score(p)
    assert {k: row[k] for k in ("colonies", "statues", "silver", "gold", "cards", "coins")} == dict(
        colonies=26, statues=30, silver=14 + 9, gold=21, cards=47, coins=2)
    assert row["total"] == 149
    assert row["leftover_coins"] == 1
    assert game.sets(p) == 3


def test_cost_reduction_example(game, components):
    """A cost-5 blue card costs 3 with 2 blue cards owned; never below 0."""
    p = game.seats[0]
    blue5 = card(components, "I-B-03")
    assert (components.cards[blue5].cost, components.cards[blue5].colour) == (5, BLUE)
    assert game.price(p, blue5) == 5
    give(game, 0, "I-B-01", "I-B-02")
    assert game.price(p, blue5) == 3
    p.coins = 3
    game.buy_card(p, blue5)
    assert p.coins == 0 and game.location[blue5] == LOC_OWNED + 0
    give(game, 0, "I-B-04", "I-B-05", "I-B-06", "I-B-07")
    assert game.price(p, card(components, "I-B-08")) == 0  # cost 4, 6 blue owned


def test_buying_raises_tracks(game, components):
    """A bought card raises its tracks at once (the printed blue card: +2 culture +1 food)."""
    p = game.seats[0]
    before = list(p.tracks)
    p.coins = 10
    game.buy_card(p, card(components, "I-B-01"))
    assert p.coins == 7
    assert p.tracks == [before[0], before[1], before[2] + 2, before[3] + 1]


@pytest.mark.parametrize("epoch,coins", [(1, 2), (2, 3), (3, 4)])
def test_selling_pays_by_epoch(game, components, epoch, coins):
    """Selling pays 2 / 3 / 4 coins in epoch I / II / III; the sold card leaves the game."""
    game.epoch = epoch
    p = game.seats[0]
    p.coins = 0
    x = card(components, "I-R-01")
    before = list(p.tracks)
    game.sell_card(p, x)
    assert p.coins == coins and game.location[x] == LOC_SOLD and p.tracks == before and x not in p.cards


def test_feeding_enough_food_removes_nothing(game, components):
    """Food 9 and 6 cards: the people are fed, nothing is asked or removed."""
    p = game.seats[0]
    give(game, 0, "I-Y-01", "I-R-01", "I-B-02", "I-G-03", "I-P-07", "I-Y-03")
    set_tracks(p, food=9)
    game.feed_people(p)
    assert len(p.cards) == 6 and scripted(game).asked == []


def test_feeding_one_card_too_many(game, components):
    """Food 6 and 7 cards: exactly one removal decision; the removed card's tracks are lost."""
    p = game.seats[0]
    gain(game, 0, "I-Y-02", "I-R-01", "I-B-02", "I-B-04", "I-R-03", "I-Y-03", "I-R-05")  # no food
    set_tracks(p, food=6)
    before, coins = list(p.tracks), p.coins
    removed = card(components, "I-Y-02")  # +1 income +1 military
    scripted(game).add(("feed", removed))
    game.feed_people(p)
    (kind, legal, private), = scripted(game).asked
    assert kind == "feed" and private["feed_need"] == 1
    assert legal == sorted(p.cards + [removed])  # any owned card; no paying without the purple card
    assert len(p.cards) == 6 and game.location[removed] == LOC_REMOVED
    assert p.tracks == [before[0] - 1, before[1] - 1, before[2], before[3]]
    assert p.coins == coins  # no coins for removing


def test_removing_food_card_forces_more_removals(game, components):
    """Removing a card with food lowers the food track, which may force more removals."""
    p = game.seats[0]
    food_card = card(components, "I-G-02")  # +2 food
    gain(game, 0, "I-G-02", "I-R-01", "I-B-02", "I-B-04", "I-R-03", "I-Y-03", "I-R-05")
    set_tracks(p, food=6)
    coins = p.coins
    scripted(game).add(("feed", food_card), ("feed", card(components, "I-R-01")),
                       ("feed", card(components, "I-R-03")))
    game.feed_people(p)
    assert [a[2]["feed_need"] for a in scripted(game).asked] == [1, 2, 1]
    assert len(p.cards) == 4 and p.tracks[FOOD] == 4 and p.coins == coins
    scripted(game).assert_done()


def test_colony_example_integrate(game, components):
    """Military 12 takes the C2-1 tile and integrates it for 1 coin: +2 military +1 culture, 5 points."""
    p = game.seats[0]
    set_tracks(p, income=2, military=12, culture=3, food=4)
    p.coins = 1
    tile = colony_on_top(game, "C2-1")
    option = A.colony_option(1, A.INTEGRATE)
    scripted(game).add(("colony", option))
    game.colony_step(p)
    (_, legal, _), = scripted(game).asked
    # Levels 1 and 2 (requirements 3 and 8) are in reach; level 3 (15) is not. Level 1 integrate
    # depends on its top tile's cost.
    assert {A.colony_option(0, A.PLUNDER), A.colony_option(1, A.PLUNDER), option} <= set(legal)
    assert A.colony_option(2, A.PLUNDER) not in legal
    assert p.coins == 0 and p.tracks == [2, 14, 4, 4]
    assert p.colonies == {1: (tile, True)}
    assert game.score(p)["colonies"] == 5


def test_colony_example_plunder(game):
    """Military 19 plunders the requirement-15 tile C3-1: 5 coins, 8 points at the end."""
    p = game.seats[0]
    set_tracks(p, military=19)
    p.coins = 0
    before = list(p.tracks)
    tile = colony_on_top(game, "C3-1")
    option = A.colony_option(2, A.PLUNDER)
    scripted(game).add(("colony", option))
    game.colony_step(p)
    (_, legal, _), = scripted(game).asked
    assert option in legal and A.colony_option(3, A.PLUNDER) not in legal  # level 4 needs 21
    assert p.coins == 5 and p.tracks == before
    assert p.colonies == {2: (tile, False)} and game.score(p)["colonies"] == 8
    assert game.colony_stacks[2][0] != tile  # the next tile of the stack is now on top


def test_integrate_needs_the_coins(game):
    """Integrating needs the coins to pay for it; plundering does not."""
    p = game.seats[0]
    set_tracks(p, military=12)
    colony_on_top(game, "C2-3")  # integrate 3
    p.coins = 2
    legal = game.colony_options(p, 30)
    assert legal[A.colony_option(1, A.PLUNDER)] and not legal[A.colony_option(1, A.INTEGRATE)]
    p.coins = 3
    assert game.colony_options(p, 30)[A.colony_option(1, A.INTEGRATE)]


def test_statue_example_coloured(game):
    """Culture 13 carves the 12 statue with a yellow tile coloured side up: income +3, 8 points."""
    p = game.seats[0]
    set_tracks(p, income=2, military=1, culture=13, food=4)
    option = A.statue_option(1, INCOME, A.COLOURED)
    scripted(game).add(("statue", option))
    game.statue_step(p)
    (_, legal, _), = scripted(game).asked
    carvable = {A.decode_statue(o)[0] for o in legal if o != A.NONE}
    assert carvable == {0, 1}  # culture 13 reaches statues 6 and 12, not 20 or 30
    assert p.tracks == [5, 1, 13, 4]
    assert p.tiles == [1, 2, 2, 2]
    assert game.score(p)["statues"] == 8


def test_statue_example_points_side(game):
    """Culture 20 carves the 20 statue with a red tile points side up: 4 points on top of 14."""
    p = game.seats[0]
    set_tracks(p, culture=20)
    before = list(p.tracks)
    scripted(game).add(("statue", A.statue_option(2, MILITARY, A.POINTS_SIDE)))
    game.statue_step(p)
    assert p.tracks == before and p.tiles == [2, 1, 2, 2]
    assert game.score(p)["statues"] == 14 + 4


# --- setup, first player and the extra coin (RULINGS 1) ---------------------------------------

@pytest.mark.parametrize("initiative,firsts,extra", [
    ([4, 2], (1, 0, 1), (0,)),                    # 2 players: lower initiative first in I and III
    ([5, 1, 3], (1, 2, 0), ()),                   # 3 players: nobody gets the coin
    ([3, 5, 1, 2], (2, 3, 0), (1,)),              # 4 players: the one never first gets 1 coin
    ([5, 4, 3, 2, 1], (4, 3, 2), (0, 1)),         # 5 players: two are never first
])
def test_first_player_and_extra_coin(components, initiative, firsts, extra):
    """First player of each epoch by initiative; the extra coin at the start of epoch I."""
    assert first_player_seats(initiative) == firsts
    assert tuple(extra_coin_seats(initiative)) == extra
    game = new_game(components, players=len(initiative), initiative=initiative)
    for p in game.seats:
        setup = components.setup_cards[(p.initiative, "A")]
        assert p.tracks == list(setup.values)
        assert p.coins == setup.coins + (1 if p.seat in extra else 0)
    # In a played game, the first player of each epoch is the one who turns the wheel.
    deal = make_deals(components, len(initiative), 1, seed=5)[0]
    deal.initiative[0] = initiative
    recorder = Recorder()
    Game(deal, components, [Random(seed=s) for s in range(len(initiative))], recorder).play()
    wheel = [r["player"] for r in recorder.records if r["type"] == "decision" and r["kind"] == "wheel"]
    assert tuple(wheel) == firsts


def test_advanced_game_asks_for_a_side(components):
    """Advanced game: each player chooses side A or B of their setup card; basic uses side A."""
    deal = make_deals(components, 2, 1, seed=1, advanced=True)[0]
    policies = [Scripted([("side", 1)]), Scripted([("side", 0)])]
    game = Game(deal, components, policies)
    game.set_up()
    for p, side in zip(game.seats, (1, 0)):
        assert p.side == side
        assert p.tracks == list(components.setup_values[p.initiative - 1, side])
    basic = new_game(components, players=2)
    assert [p.side for p in basic.seats] == [0, 0]


# --- phase A and phase B (RULINGS 2-3) --------------------------------------------------------

def deal_hands(game, hands):
    """Put a 2-card hand on top of the deck each seat faces in draw round 1 (rotation 0)."""
    game.rotation, game.draw_round = 0, 0
    for seat, (a, b) in enumerate(hands):
        colour = game.faced_colour(seat)
        assert game.c.cards[a].colour == colour == game.c.cards[b].colour
        game.decks[colour] = [a, b]


def cards_of_colour(components, colour, n, epoch=1, min_cost=1):
    return [int(i) for i in components.cards_of(epoch, colour, False)
            if components.card_cost[i] >= min_cost][:n]


def test_player_who_cannot_pay_must_sell(game, components):
    """In a draw round a player who cannot pay for either card may only sell; the other card is
    discarded face up on its colour's pile."""
    game.rotation, game.draw_round = 0, 0
    hands = [cards_of_colour(components, game.faced_colour(s), 2) for s in range(2)]
    deal_hands(game, hands)
    p0, p1 = game.seats
    p0.coins, p1.coins = 0, 50
    scripted(game, 0).add(("draw", A.draw_option(0, A.SELL)))
    scripted(game, 1).add(("draw", A.draw_option(1, A.BUY)))
    game.draw_round_of_phase_a()
    assert scripted(game, 0).asked[0][1] == [A.draw_option(0, A.SELL), A.draw_option(1, A.SELL)]
    assert scripted(game, 0).asked[0][2]["hand"] == hands[0]
    assert scripted(game, 1).asked[0][1] == [0, 1, 2, 3]
    assert p0.coins == 2 and game.location[hands[0][1]] == LOC_SOLD
    assert game.location[hands[0][0]] == LOC_PILE
    assert p1.cards == [hands[1][0]] and game.location[hands[1][1]] == LOC_PILE
    c0, c1 = (components.cards[h[0]].colour for h in hands)
    assert game.piles[c0] == [hands[0][0]] and game.piles[c1] == [hands[1][1]]


def test_free_card_can_be_bought_without_coins(game, components):
    """A card whose cost is fully reduced can be bought with no coins."""
    p = game.seats[0]
    p.coins = 0
    give(game, 0, "I-R-05", "I-R-07")
    cheap = card(components, "I-R-03")  # cost 2, 2 red owned
    assert game.price(p, cheap) == 0 and game.can_buy(p, cheap)
    assert not game.can_buy(p, card(components, "I-R-01"))  # cost 4 - 2


def test_pick_takes_the_top_card(game, components):
    """Phase B: a player takes the top card of a chosen pile and buys or sells it."""
    p = game.seats[0]
    p.coins = 20
    bottom, top = card(components, "I-G-01"), card(components, "I-G-02")
    red = card(components, "I-R-01")
    game.piles[GREEN] = [bottom, top]
    game.piles[RED] = [red]
    scripted(game).add(("pick", A.pick_option(GREEN, A.BUY)))
    game.pick_turn(p)
    (_, legal, _), = scripted(game).asked
    assert legal == [A.pick_option(RED, A.BUY), A.pick_option(RED, A.SELL),
                     A.pick_option(GREEN, A.BUY), A.pick_option(GREEN, A.SELL)]
    assert p.cards == [top] and game.piles[GREEN] == [bottom] and p.coins == 20 - 3


def test_pick_without_coins_sells(game, components):
    """Phase B: with no coins and one pile left, the only option (sell) is taken unasked."""
    p = game.seats[0]
    p.coins = 0
    x = card(components, "I-Y-10")
    game.piles[YELLOW] = [x]
    game.pick_turn(p)
    assert scripted(game).asked == [] and game.location[x] == LOC_SOLD and p.coins == 2


def test_wheel_turns_every_round(game):
    """After each draw round every seat faces the next deck; over 5 rounds each seat faces each
    colour once."""
    for rotation in range(5):
        game.rotation = rotation
        for seat in range(2):
            seen = []
            for game.draw_round in range(5):
                seen.append(game.faced_colour(seat))
            assert sorted(seen) == [0, 1, 2, 3, 4]
        for game.draw_round in range(5):
            assert game.faced_colour(0) != game.faced_colour(1)


# --- income, colonies, statues (RULINGS 4) ----------------------------------------------------

def test_income(game):
    """Income: coins equal to the income track."""
    p = game.seats[0]
    p.coins = 3
    set_tracks(p, income=12)
    game.collect_income(p)
    assert p.coins == 15


def test_one_colony_per_level_per_game(game):
    """A player takes at most one colony of each requirement level in the whole game."""
    p = game.seats[0]
    set_tracks(p, military=40)
    p.coins = 50
    p.colonies[0] = (game.colony_stacks[0].pop(0), False)
    legal = game.colony_options(p, 30)
    assert not legal[A.colony_option(0, A.PLUNDER)] and not legal[A.colony_option(0, A.INTEGRATE)]
    assert all(legal[A.colony_option(level, A.PLUNDER)] for level in range(1, 5))


def test_one_colony_per_step(game):
    """Without the double-action card a colony step takes at most one colony."""
    p = game.seats[0]
    set_tracks(p, military=40)
    scripted(game).add(("colony", A.colony_option(4, A.PLUNDER)))
    game.colony_step(p)
    assert list(p.colonies) == [4] and len(scripted(game).asked) == 1


def test_empty_colony_stack(components):
    """When a level's stack is empty, nobody can take a colony of that level."""
    game = new_game(components, players=2)
    p = game.seats[0]
    set_tracks(p, military=40)
    game.colony_stacks[3] = []
    assert not game.colony_options(p, 30)[A.colony_option(3, A.PLUNDER)]


def test_colonies_are_never_lost(game, components):
    """A colony stays when military later drops below its requirement (feeding)."""
    p = game.seats[0]
    gain(game, 0, "I-R-09")  # +3 military
    set_tracks(p, military=3, food=0)
    colony_on_top(game, "C1-1")
    scripted(game).add(("colony", A.colony_option(0, A.PLUNDER)), ("feed", card(components, "I-R-09")))
    game.colony_step(p)
    game.feed_people(p)
    assert p.tracks[MILITARY] == 0 and 0 in p.colonies and game.score(p)["colonies"] == 2


def test_statue_each_once(game):
    """Each statue can be carved once; a carved statue is no longer offered."""
    p = game.seats[0]
    set_tracks(p, culture=40)
    p.statues[0] = (FOOD, A.COLOURED)
    p.tiles[FOOD] -= 1
    legal = game.statue_options(p, 30)
    assert {A.decode_statue(o)[0] for o in np.flatnonzero(legal) if o != A.NONE} == {1, 2, 3}


def test_statue_needs_a_tile(game):
    """A player with no unused bonus tile cannot carve a statue or buy a silver medal."""
    p = game.seats[0]
    set_tracks(p, culture=40)
    p.tiles = [0, 0, 0, 0]
    p.coins = 100
    assert np.flatnonzero(game.statue_options(p, 30)).tolist() == [A.NONE]
    scripted(game).add(("medal", A.MEDAL_STOP))
    game.medal_step(p)
    assert scripted(game).asked[0][1] == [A.MEDAL_STOP, A.MEDAL_GOLD]


def test_statue_only_with_a_tile_of_that_track(game):
    """Coloured and points side both need an unused tile of the chosen track."""
    p = game.seats[0]
    set_tracks(p, culture=40)
    p.tiles = [0, 0, 1, 0]
    options = np.flatnonzero(game.statue_options(p, 30)).tolist()
    assert all(A.decode_statue(o)[1] == CULTURE for o in options if o != A.NONE)
    assert len(options) == 1 + 4 * 2


# --- medals (RULINGS 4) -----------------------------------------------------------------------

def test_at_most_two_silver_and_two_gold(game):
    """Any number of medals in one step, at most 2 silver and 2 gold per game."""
    p = game.seats[0]
    p.coins = 1000
    scripted(game).add(("medal", 1 + MILITARY), ("medal", A.MEDAL_GOLD), ("medal", 1 + MILITARY),
                       ("medal", A.MEDAL_GOLD))
    game.medal_step(p)  # after 2 + 2 only "stop" is left: not asked
    scripted(game).assert_done()
    assert p.silver == [MILITARY, MILITARY] and p.gold == 2 and p.tiles == [2, 0, 2, 2]
    assert p.coins == 1000 - 2 * 4 - 2 * 6
    game.epoch = 2
    game.medal_step(p)
    assert len(scripted(game).asked) == 4 and p.coins == 1000 - 20


def test_medal_prices_by_epoch(game):
    """Medals cost silver 4 / 9 / 20 and gold 6 / 12 / 30 in epochs I / II / III."""
    p = game.seats[0]
    for epoch, prices in ((1, (4, 6)), (2, (9, 12)), (3, (20, 30))):
        game.epoch = epoch
        assert game.medal_prices(p) == prices
    p.coins = 19  # epoch III: too few coins for any medal, so nothing is asked
    game.medal_step(p)
    assert scripted(game).asked == [] and p.coins == 19 and p.silver == [] and p.gold == 0


def test_silver_scores_half_rounded_up(game):
    """A silver medal scores half its track, rounded up (military 27: 14)."""
    p = game.seats[0]
    p.silver = [MILITARY]
    set_tracks(p, military=27)
    assert game.score(p)["silver"] == 14
    set_tracks(p, military=30)
    assert game.score(p)["silver"] == 15


def test_gold_scores_seven_per_set_per_medal(game):
    """Gold: 7 points per complete set of 5 colours, per gold medal (3 sets, 2 medals: 42)."""
    p = game.seats[0]
    give(game, 0, "I-Y-01", "I-Y-02", "I-Y-03", "I-R-01", "I-R-02", "I-R-03", "I-B-01", "I-B-02",
         "I-B-04", "I-G-01", "I-G-02", "I-G-03", "I-P-07", "I-P-08", "I-P-09", "I-P-10")
    p.gold = 2
    assert game.sets(p) == 3 and game.score(p)["gold"] == 42
    p.gold = 0
    assert game.score(p)["gold"] == 0


def test_coins_score_one_point_per_five(game):
    """Coins: 1 point per 5 coins; the rest are kept for ties."""
    p = game.seats[0]
    for coins, points, left in ((0, 0, 0), (4, 0, 4), (5, 1, 0), (23, 4, 3)):
        p.coins = coins
        row = game.score(p)
        assert (row["coins"], row["leftover_coins"]) == (points, left)


# --- ties (RULINGS 5) -------------------------------------------------------------------------

def test_tie_goes_to_most_leftover_coins(components):
    """Equal totals: the player with more coins left after conversion wins."""
    game = new_game(components, players=3)
    for p, coins in zip(game.seats, (14, 13, 4)):
        p.coins = coins  # 2 points with 4 left, 2 points with 3 left, 0 points with 4 left
    sheet = game.score_sheet()
    assert [r["total"] for r in sheet] == [2, 2, 0]
    assert [r["win_share"] for r in sheet] == [1.0, 0.0, 0.0]
    assert [r["rank"] for r in sheet] == [1, 2, 3]


def test_remaining_tie_is_shared(components):
    """Equal totals and equal leftover coins: each tied winner gets 1/k of the win."""
    game = new_game(components, players=4)
    for p, coins in zip(game.seats, (7, 7, 2, 7)):
        p.coins = coins
    sheet = game.score_sheet()
    assert [r["win_share"] for r in sheet] == pytest.approx([1 / 3, 1 / 3, 0, 1 / 3])
    assert [r["rank"] for r in sheet] == [1, 1, 4, 1]
    assert sum(r["win_share"] for r in sheet) == pytest.approx(1.0)


def test_reference_plays_one_deal_at_a_time(components):
    """The reference engine refuses a batch of several deals and a wrong number of policies."""
    deals = make_deals(components, 2, 3)
    with pytest.raises(ValueError):
        Game(deals, components, [Random(), Random()])
    with pytest.raises(ValueError):
        Game(deals[0], components, [Random()])

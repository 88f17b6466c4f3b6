"""The reference engine on hand-built states: the rulebook's worked examples and the rules of
RULINGS sections 1-5, one rule per test."""

import numpy as np
import pytest

from hadara_sim import actions as A
from hadara_sim.component_files import load_components
from hadara_sim.constants import (
    BLUE, GREEN, LOC_OWNED, LOC_PILE, LOC_REMOVED, LOC_SOLD, RED, YELLOW, extra_coin_seats,
    first_player_seats,
)
from hadara_sim.deal import make_deals
from hadara_sim.reference import Game
from hadara_sim.trace import Recorder
from hadara_sim.policies import Random

from helpers import (
    CULTURE, FOOD, INCOME, MILITARY, Scripted, card, colony_on_top, copy_default, edit_csv, gain, give,
    new_game, pick, scripted, set_tracks, values,
)


# --- the rulebook's worked examples (the 149-point score sheet is in test_scoring.py) ----------

def blue_cost_five(components, tmp_path):
    """A component set with a blue cost-5 card: the default one if it has such a card, else a copy
    with I-B-03 set to cost 5."""
    for c in components.cards:
        if c.colour == BLUE and c.cost == 5 and not c.effect:
            return components, c.id
    d = copy_default(tmp_path)
    edit_csv(d / "cards.csv", "I-B-03", "cost", "5")
    return load_components(d), "I-B-03"


def test_cost_reduction_example(components, tmp_path):
    """A cost-5 blue card costs 3 with 2 blue cards owned; never below 0."""
    c, blue5_id = blue_cost_five(components, tmp_path)
    game = new_game(c)
    p = game.seats[0]
    blue5 = card(c, blue5_id)
    assert game.price(p, blue5) == 5
    give(game, 0, *pick(c, 2, epoch=None, colour=BLUE, exclude=[blue5_id]))
    assert game.price(p, blue5) == 3
    p.coins = 3
    game.buy_card(p, blue5)
    assert p.coins == 0 and game.location[blue5] == LOC_OWNED + 0
    other = pick(c, 1, epoch=None, colour=BLUE, exclude=[c.card_ids[x] for x in p.cards])[0]
    give(game, 0, *pick(c, c.cards[card(c, other)].cost, epoch=None, colour=BLUE,
                         exclude=[other, *(c.card_ids[x] for x in p.cards)]))
    assert game.price(p, card(c, other)) == 0  # more blue cards owned than its cost


def test_buying_raises_tracks(game, components):
    """A bought card raises its tracks at once (the printed blue card: +2 culture +1 food, cost 3)."""
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
    give(game, 0, *pick(components, 6, epoch=None))
    set_tracks(p, food=9)
    game.feed_people(p)
    assert len(p.cards) == 6 and scripted(game).asked == []


def test_feeding_one_card_too_many(game, components):
    """Food 6 and 7 cards: exactly one removal decision; the removed card's tracks are lost."""
    p = game.seats[0]
    hand = pick(components, 7, epoch=None, food=0, where=lambda c: sum(c.values) > 0)
    gain(game, 0, *hand)
    set_tracks(p, food=6)
    before, coins = list(p.tracks), p.coins
    removed = card(components, hand[0])
    scripted(game).add(("feed", removed))
    game.feed_people(p)
    (kind, legal, private), = scripted(game).asked
    assert kind == "feed" and private["feed_need"] == 1
    assert legal == sorted(p.cards + [removed])  # any owned card; no paying without the purple card
    assert len(p.cards) == 6 and game.location[removed] == LOC_REMOVED
    assert p.tracks == [b - v for b, v in zip(before, values(components, hand[0]))]
    assert p.coins == coins  # no coins for removing


def test_removing_food_card_forces_more_removals(game, components):
    """Removing a card with food lowers the food track, which may force more removals."""
    p = game.seats[0]
    food_id = pick(components, 1, epoch=None, where=lambda c: c.values[FOOD] >= 2)[0]
    food = values(components, food_id)[FOOD]
    others = pick(components, 6 + food, epoch=None, food=0)
    gain(game, 0, food_id, *others[:6])
    set_tracks(p, food=6)  # 7 cards: one too many
    coins = p.coins
    scripted(game).add(("feed", card(components, food_id)),
                       *[("feed", card(components, x)) for x in others[:food]])
    game.feed_people(p)
    # food 6 - f for 6 cards: f more cards must go, one decision each
    assert [a[2]["feed_need"] for a in scripted(game).asked] == [1, *range(food, 0, -1)]
    assert len(p.cards) == 6 - food and p.tracks[FOOD] == 6 - food and p.coins == coins
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
    assert option in legal
    for level in range(5):  # every level whose requirement military 12 meets, and no other
        assert (A.colony_option(level, A.PLUNDER) in legal) == (components.level_requirement[level] <= 12)
    assert A.colony_option(2, A.PLUNDER) not in legal  # requirement 15
    assert p.coins == 0 and p.tracks == [2, 14, 4, 4]
    assert p.colonies == {1: (tile, True)}
    assert game.score(p)["colonies"] == 5


def test_colony_example_plunder(game, components):
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
    assert option in legal
    assert (A.colony_option(3, A.PLUNDER) in legal) == (components.level_requirement[3] <= 19)
    assert p.coins == 5 and p.tracks == before
    assert p.colonies == {2: (tile, False)} and game.score(p)["colonies"] == 8
    assert game.colony_stacks[2][0] != tile  # the next tile of the stack is now on top


def test_integrate_needs_the_coins(game):
    """Integrating needs the coins to pay for it; plundering does not (C2-1 costs 1 to integrate)."""
    p = game.seats[0]
    set_tracks(p, military=12)
    colony_on_top(game, "C2-1")
    p.coins = 0
    legal = game.colony_options(p, 30)
    assert legal[A.colony_option(1, A.PLUNDER)] and not legal[A.colony_option(1, A.INTEGRATE)]
    p.coins = 1
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
    return [card(components, x) for x in pick(components, n, epoch=epoch, colour=colour, min_cost=min_cost)]


def test_player_who_cannot_pay_must_sell(game, components):
    """A player who cannot pay for either drawn card must sell; the discard goes on its pile."""
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
    """A card whose cost is fully reduced can be bought with no coins; others cannot."""
    p = game.seats[0]
    p.coins = 0
    cheap = pick(components, 1, colour=RED, min_cost=1)[0]
    cost = components.cards[card(components, cheap)].cost
    give(game, 0, *pick(components, cost, epoch=None, colour=RED, exclude=[cheap]))
    assert game.price(p, card(components, cheap)) == 0 and game.can_buy(p, card(components, cheap))
    dear = pick(components, 1, epoch=None, colour=RED, min_cost=cost + 1)[0]
    assert not game.can_buy(p, card(components, dear))


def test_pick_takes_the_top_card(game, components):
    """Phase B: a player takes the top card of a chosen pile and buys or sells it."""
    p = game.seats[0]
    p.coins = 20
    bottom, top = (card(components, x) for x in pick(components, 2, colour=GREEN))
    red = card(components, pick(components, 1, colour=RED)[0])
    game.piles[GREEN] = [bottom, top]
    game.piles[RED] = [red]
    price = game.price(p, top)
    scripted(game).add(("pick", A.pick_option(GREEN, A.BUY)))
    game.pick_turn(p)
    (_, legal, _), = scripted(game).asked
    assert legal == [A.pick_option(RED, A.BUY), A.pick_option(RED, A.SELL),
                     A.pick_option(GREEN, A.BUY), A.pick_option(GREEN, A.SELL)]
    assert p.cards == [top] and game.piles[GREEN] == [bottom] and p.coins == 20 - price


def test_pick_without_coins_sells(game, components):
    """Phase B: with no coins and one pile left, the only option (sell) is taken unasked."""
    p = game.seats[0]
    p.coins = 0
    x = card(components, pick(components, 1, colour=YELLOW, min_cost=1)[0])
    game.piles[YELLOW] = [x]
    game.pick_turn(p)
    assert scripted(game).asked == [] and game.location[x] == LOC_SOLD and p.coins == 2


def test_wheel_turns_every_round(game):
    """The wheel turns one deck per round: each seat faces each colour once in 5 rounds."""
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
    set_tracks(p, military=60)  # the highest requirement a set may have
    p.coins = 50
    p.colonies[0] = (game.colony_stacks[0].pop(0), False)
    legal = game.colony_options(p, 30)
    assert not legal[A.colony_option(0, A.PLUNDER)] and not legal[A.colony_option(0, A.INTEGRATE)]
    assert all(legal[A.colony_option(level, A.PLUNDER)] for level in range(1, 5))


def test_one_colony_per_step(game):
    """Without the double-action card a colony step takes at most one colony."""
    p = game.seats[0]
    set_tracks(p, military=60)  # the highest requirement a set may have
    scripted(game).add(("colony", A.colony_option(4, A.PLUNDER)))
    game.colony_step(p)
    assert list(p.colonies) == [4] and len(scripted(game).asked) == 1


def test_empty_colony_stack(components):
    """When a level's stack is empty, nobody can take a colony of that level."""
    game = new_game(components, players=2)
    p = game.seats[0]
    set_tracks(p, military=60)  # the highest requirement a set may have
    game.colony_stacks[3] = []
    assert not game.colony_options(p, 30)[A.colony_option(3, A.PLUNDER)]


def test_colonies_are_never_lost(game, components):
    """A colony stays when military later drops below its requirement (feeding)."""
    p = game.seats[0]
    red = pick(components, 1, colour=RED, food=0, where=lambda c: c.values[MILITARY] > 0)[0]
    gain(game, 0, red)
    set_tracks(p, military=3, food=0)
    colony_on_top(game, "C1-1")  # requirement 3, front 2 points
    scripted(game).add(("colony", A.colony_option(0, A.PLUNDER)))
    game.colony_step(p)
    game.feed_people(p)  # the only card goes (a single option is not asked)
    assert p.cards == [] and p.tracks[MILITARY] < 3
    assert 0 in p.colonies and game.score(p)["colonies"] == 2


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


def test_reference_plays_one_deal_at_a_time(components):
    """The reference engine refuses a batch of several deals and a wrong number of policies."""
    deals = make_deals(components, 2, 3)
    with pytest.raises(ValueError):
        Game(deals, components, [Random(), Random()])
    with pytest.raises(ValueError):
        Game(deals[0], components, [Random()])
    for wrong in ([deals[0]], 0, None):
        with pytest.raises(TypeError, match="deal is a batch of one deal from hadara_sim.make_deals"):
            Game(wrong, components, [Random(), Random()])

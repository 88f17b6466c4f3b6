"""The 18 purple effect cards (15 effects, 4 affinity cards) of RULINGS section 6, each on a
hand-built state, and what their removal at feeding undoes."""

import pytest

from hadara_sim import actions as A
from hadara_sim.constants import BLUE, EFFECTS, GREEN, LOC_REMOVED, LOC_SOLD, RED, YELLOW

from helpers import (
    CULTURE, FOOD, INCOME, MILITARY, card, colony_on_top, gain, give, new_game, pick, scripted,
    set_tracks,
)


def has(game, seat, effect):
    return game.has(game.seats[seat], effect)


def feed_removing(game, seat, *keys):
    """Feed with the scripted removals `keys` (card ids or effect ids), in order."""
    s = scripted(game, seat)
    for key in keys:
        s.add(("feed", card(game.c, key)))
    game.feed_people(game.seats[seat])
    s.assert_done()


# --- removal at feeding undoes every effect exactly -------------------------------------------

@pytest.mark.parametrize("effect", list(EFFECTS))
def test_removed_effect_card_restores_state(components, effect):
    """A purple card removed at feeding takes its effect with it: state as before it came."""
    game = new_game(components, players=2, epoch=3)
    p = game.seats[0]
    gain(game, 0, "I-Y-01", "I-Y-02", "I-R-01", "I-B-01", "II-B-03", "I-R-03")  # no green card
    set_tracks(p, culture=20)
    game.carve_statue(p, A.statue_option(0, MILITARY, A.COLOURED))
    game.carve_statue(p, A.statue_option(1, CULTURE, A.POINTS_SIDE))
    p.silver, p.gold, p.coins = [MILITARY], 1, 10
    p.tiles[MILITARY] -= 1
    p.tracks[FOOD] = len(p.cards)  # fed exactly, before the purple card
    before = dict(tracks=list(p.tracks), tiles=list(p.tiles), coins=p.coins, score=game.score(p),
                  bonus_card_tile=p.bonus_card_tile)
    if effect == "bonus_tile_card":
        scripted(game).add(("tile", INCOME))
    x = gain(game, 0, effect)[0]
    assert has(game, 0, effect)
    feed_removing(game, 0, effect)  # one card too many: remove the purple card
    assert game.location[x] == LOC_REMOVED and not has(game, 0, effect)
    after = dict(tracks=list(p.tracks), tiles=list(p.tiles), coins=p.coins, score=game.score(p),
                 bonus_card_tile=p.bonus_card_tile)
    assert after == before


# --- epoch I ----------------------------------------------------------------------------------

def test_sell_bonus(game, components):
    """sell_bonus: +1 coin whenever you sell a card; gone once the card is removed."""
    p = game.seats[0]
    gain(game, 0, "sell_bonus", "I-R-01")
    p.coins = 0
    game.sell_card(p, card(components, "I-Y-01"))
    assert p.coins == 3
    game.epoch = 3
    game.sell_card(p, card(components, "III-Y-01"))
    assert p.coins == 3 + 5
    set_tracks(p, food=1)
    feed_removing(game, 0, "sell_bonus")
    game.sell_card(p, card(components, "III-Y-02"))
    assert p.coins == 8 + 4
    assert game.location[card(components, "III-Y-02")] == LOC_SOLD


def test_bonus_tile_card(game, components):
    """bonus_tile_card: on purchase put an unused tile on it (a tile decision), +2 on that track."""
    p = game.seats[0]
    p.tiles = [0, 1, 2, 0]
    p.coins = 10
    x = card(components, "bonus_tile_card")
    before = list(p.tracks)
    scripted(game).add(("tile", CULTURE))
    game.buy_card(p, x)
    (kind, legal, private), = scripted(game).asked
    assert (kind, legal, private["card"]) == ("tile", [MILITARY, CULTURE], x)
    assert p.tiles == [0, 1, 1, 0] and p.bonus_card_tile == CULTURE
    assert p.tracks == [before[0], before[1], before[2] + 2, before[3]]
    assert p.coins == 10 - components.cards[x].cost


def test_bonus_tile_card_single_tile_is_not_asked(game, components):
    """With a single kind of unused tile, the tile goes on the card without a decision."""
    p = game.seats[0]
    p.tiles = [0, 0, 0, 1]
    food = p.tracks[FOOD]
    gain(game, 0, "bonus_tile_card")
    assert scripted(game).asked == [] and p.tiles == [0, 0, 0, 0] and p.tracks[FOOD] == food + 2


def test_bonus_tile_card_removed_frees_the_tile(game, components):
    """bonus_tile_card removed at feeding: -2 on the track and the tile is free again."""
    p = game.seats[0]
    scripted(game).add(("tile", MILITARY))
    gain(game, 0, "bonus_tile_card", "I-R-01")
    military = p.tracks[MILITARY]
    set_tracks(p, food=1)
    feed_removing(game, 0, "bonus_tile_card")
    assert p.tracks[MILITARY] == military - 2 and p.tiles == [2, 2, 2, 2] and p.bonus_card_tile == -1
    assert p.cards == [card(components, "I-R-01")]


def test_bonus_tile_card_needs_a_free_tile(game, components):
    """Without an unused tile the bonus-tile card cannot be bought: a pick of it can only sell."""
    p = game.seats[0]
    p.tiles = [0, 0, 0, 0]
    p.coins = 50
    x = card(components, "bonus_tile_card")
    assert not game.can_buy(p, x)
    game.piles[4] = [x]
    game.pick_turn(p)  # only "sell" is legal, so nothing is asked
    assert scripted(game).asked == [] and game.location[x] == LOC_SOLD and p.coins == 52


AFFINITY = [  # effect, colour / track, two cards of that colour, a later one
    ("affinity_income", YELLOW, ("I-Y-01", "I-Y-03"), "I-Y-09"),
    ("affinity_military", RED, ("I-R-01", "I-R-03"), "I-R-05"),
    ("affinity_culture", BLUE, ("I-B-02", "I-B-04"), "I-B-06"),
    ("affinity_food", GREEN, ("I-G-01", "I-G-05"), "I-G-07"),
]


@pytest.mark.parametrize("effect,colour,owned,later", AFFINITY)
def test_affinity(advanced_game, components, effect, colour, owned, later):
    """affinity: +1 per matching card now and later; removing either card undoes it."""
    game, t = advanced_game, colour
    p = game.seats[0]
    gain(game, 0, *owned, "I-P-07")  # a purple value card does not count
    base = p.tracks[t]
    gain(game, 0, effect)
    assert p.tracks[t] == base + 2
    value = components.cards[card(components, later)].values[t]
    gain(game, 0, later)
    assert p.tracks[t] == base + 2 + value + 1
    other = "I-Y-05" if colour != YELLOW else "I-R-01"  # another colour: only its own values
    before = list(p.tracks)
    gain(game, 0, other)
    assert p.tracks[t] == before[t] + components.cards[card(components, other)].values[t]
    first = card(components, owned[0])
    game.remove_card(p, first)
    plain = base + value + components.cards[card(components, other)].values[t] \
        - components.cards[first].values[t]
    assert p.tracks[t] == plain + 2  # two matching cards left
    game.remove_card(p, card(components, effect))
    assert p.tracks[t] == plain


@pytest.mark.parametrize("effect,colour,owned,later", AFFINITY)
def test_affinity_removed_at_feeding(advanced_game, components, effect, colour, owned, later):
    """affinity removed at feeding loses +1 per matching card (food: forces 2 more removals)."""
    game, t = advanced_game, colour
    p = game.seats[0]
    gain(game, 0, *owned)
    base = list(p.tracks)
    fillers = pick(components, 2, colour=YELLOW if colour == RED else RED, food=0)  # not matching
    gain(game, 0, effect, *fillers)
    assert p.tracks[t] == base[t] + 2 + sum(components.cards[card(components, f)].values[t] for f in fillers)
    set_tracks(p, food=4)  # 5 cards, food 4: one card must go
    feed_removing(game, 0, effect, *(fillers if t == FOOD else ()))
    assert not has(game, 0, effect)
    if t == FOOD:
        assert [a[2]["feed_need"] for a in scripted(game).asked] == [1, 2, 1]
        assert p.tracks[FOOD] == 2 and len(p.cards) == 2
    else:
        assert p.tracks[t] == base[t] + sum(components.cards[card(components, f)].values[t] for f in fillers)
        assert len(p.cards) == 4


# --- epoch II ---------------------------------------------------------------------------------

def test_colony_bounty(game, components):
    """colony_bounty: +4 coins whenever you take a colony, plundered or integrated."""
    game.epoch = 2
    p = game.seats[0]
    gain(game, 0, "colony_bounty")
    set_tracks(p, military=20)
    p.coins = 0
    colony_on_top(game, "C3-1")
    scripted(game).add(("colony", A.colony_option(2, A.PLUNDER)))
    game.colony_step(p)
    assert p.coins == 5 + 4


def test_colony_bounty_helps_pay_integration(game, components):
    """colony_bounty's 4 coins can pay for integrating: with 0 coins C2-1 (cost 1) can be integrated."""
    p = game.seats[0]
    set_tracks(p, military=12)
    p.coins = 0
    colony_on_top(game, "C2-1")
    assert not game.colony_options(p, 30)[A.colony_option(1, A.INTEGRATE)]
    gain(game, 0, "colony_bounty")
    assert game.colony_options(p, 30)[A.colony_option(1, A.INTEGRATE)]
    scripted(game).add(("colony", A.colony_option(1, A.INTEGRATE)))
    game.colony_step(p)
    assert p.coins == 3 and p.colonies[1][1] is True


def test_colony_bounty_removed(game, components):
    """Once the colony_bounty card is removed, taking a colony pays no bounty."""
    p = game.seats[0]
    gain(game, 0, "colony_bounty", "I-R-01")
    set_tracks(p, military=20, food=1)
    feed_removing(game, 0, "colony_bounty")
    p.coins = 0
    colony_on_top(game, "C3-1")
    scripted(game).add(("colony", A.colony_option(2, A.PLUNDER)))
    game.colony_step(p)
    assert p.coins == 5


def test_medal_discount(game, components):
    """medal_discount: silver 4 / gold 6 in epoch II and silver 15 / gold 22 in epoch III."""
    p = game.seats[0]
    gain(game, 0, "medal_discount")
    prices = {}
    for game.epoch in (1, 2, 3):
        prices[game.epoch] = game.medal_prices(p)
    assert prices == {1: (4, 6), 2: (4, 6), 3: (15, 22)}
    game.epoch = 2
    p.coins = 10
    scripted(game).add(("medal", 1 + FOOD))  # silver for 4, then gold for 6: nothing else affordable
    scripted(game).add(("medal", A.MEDAL_GOLD))
    game.medal_step(p)
    assert p.coins == 0 and p.silver == [FOOD] and p.gold == 1


def test_medal_discount_removed(game, components):
    """Without the medal_discount card the printed prices apply again."""
    p = game.seats[0]
    gain(game, 0, "medal_discount", "I-R-01")
    set_tracks(p, food=1)
    feed_removing(game, 0, "medal_discount")
    game.epoch = 3
    assert game.medal_prices(p) == (20, 30)


def test_feed_with_coins_rulebook_example(advanced_game, components):
    """feed_with_coins: food 9 and 11 cards: pay 4 coins instead of removing 2 cards."""
    game = advanced_game
    p = game.seats[0]
    give(game, 0, "feed_with_coins", "I-Y-01", "I-Y-02", "I-Y-03", "I-R-01", "I-R-02", "I-R-03",
         "I-B-01", "I-B-02", "I-G-01", "I-G-02")
    set_tracks(p, food=9)
    p.coins = 10
    pay = components.n_cards
    scripted(game).add(("feed", pay), ("feed", pay))
    game.feed_people(p)
    assert len(p.cards) == 11 and p.coins == 6
    assert [a[2]["feed_need"] for a in scripted(game).asked] == [2, 1]
    assert all(pay in a[1] for a in scripted(game).asked)


def test_feed_with_coins_mixed(advanced_game, components):
    """feed_with_coins: paying for one card and removing another is allowed."""
    game = advanced_game
    p = game.seats[0]
    give(game, 0, "feed_with_coins", "I-Y-01", "I-Y-02", "I-R-01")
    set_tracks(p, food=2)
    p.coins = 2
    scripted(game).add(("feed", components.n_cards), ("feed", card(components, "I-Y-01")))
    game.feed_people(p)
    assert p.coins == 0 and len(p.cards) == 3


def test_feed_with_coins_at_most_six(advanced_game, components):
    """feed_with_coins: at most 6 cards paid for per feeding; the rest must be removed."""
    game = advanced_game
    p = game.seats[0]
    owned = give(game, 0, "feed_with_coins", "I-Y-01", "I-Y-02", "I-Y-03", "I-R-01", "I-R-02",
                 "I-R-03", "I-B-02", "I-B-04", "I-B-06")
    set_tracks(p, food=2)  # 10 cards: 8 too many
    p.coins = 100
    pay = components.n_cards
    scripted(game).add(*[("feed", pay)] * 6, ("feed", owned[-1]), ("feed", owned[-2]))
    game.feed_people(p)
    asked = scripted(game).asked
    assert [pay in legal for _, legal, _ in asked] == [True] * 6 + [False, False]
    assert p.coins == 88 and len(p.cards) == 8


def test_feed_with_coins_limit_is_per_feeding(advanced_game, components):
    """feed_with_coins: the 6-card limit starts afresh at the next feeding step."""
    game = advanced_game
    p = game.seats[0]
    give(game, 0, "feed_with_coins", "I-Y-01", "I-Y-02")
    set_tracks(p, food=2)
    p.coins = 10
    pay = components.n_cards
    scripted(game).add(("feed", pay))
    game.feed_people(p)
    scripted(game).add(("feed", pay))
    game.feed_people(p)
    assert p.coins == 6 and len(p.cards) == 3


def test_feed_with_coins_needs_coins(advanced_game, components):
    """feed_with_coins: paying needs 2 coins; with 1 coin a card must be removed."""
    game = advanced_game
    p = game.seats[0]
    give(game, 0, "feed_with_coins", "I-Y-01", "I-Y-02")
    set_tracks(p, food=2)
    p.coins = 1
    scripted(game).add(("feed", card(components, "I-Y-01")))
    game.feed_people(p)
    assert components.n_cards not in scripted(game).asked[0][1] and p.coins == 1


def test_feed_with_coins_only_with_the_card(game, components):
    """Without the card, paying coins is never an option."""
    p = game.seats[0]
    give(game, 0, "I-Y-01", "I-Y-02", "I-Y-03")
    set_tracks(p, food=2)
    p.coins = 10
    scripted(game).add(("feed", card(components, "I-Y-01")))
    game.feed_people(p)
    assert components.n_cards not in scripted(game).asked[0][1] and p.coins == 10


@pytest.mark.parametrize("food,cards,coins", [(10, 6, 12), (8, 6, 6), (30, 5, 12), (6, 6, 0), (7, 6, 3)])
def test_food_surplus(advanced_game, components, food, cards, coins):
    """food_surplus: 3 coins per food above the card count, at most 12 per feeding."""
    game = advanced_game
    p = game.seats[0]
    give(game, 0, "food_surplus", *[c.id for c in components.cards if c.epoch == 1 and c.colour == RED][:cards - 1])
    set_tracks(p, food=food)
    p.coins = 0
    game.feed_people(p)
    assert p.coins == coins and len(p.cards) == cards


def test_food_surplus_only_with_the_card(game, components):
    """Without food_surplus, surplus food pays nothing."""
    p = game.seats[0]
    give(game, 0, "I-Y-01")
    set_tracks(p, food=9)
    p.coins = 0
    game.feed_people(p)
    assert p.coins == 0


@pytest.mark.parametrize("tracks,income", [
    ((2, 5, 2, 3), 2 + 4),     # military and food above income; culture equal does not count
    ((2, 3, 4, 5), 2 + 6),     # all three above: +6 (the maximum)
    ((5, 5, 1, 0), 5),         # none above
    ((0, 1, 0, 0), 0 + 2),
])
def test_income_diversity(advanced_game, tracks, income):
    """income_diversity: +2 coins per other track above income in each income step, at most 6."""
    game = advanced_game
    p = game.seats[0]
    gain(game, 0, "income_diversity")
    p.tracks = list(tracks)
    p.coins = 0
    game.collect_income(p)
    assert p.coins == income


def test_income_diversity_removed(advanced_game):
    """Once income_diversity is removed, income is the income track alone."""
    game = advanced_game
    p = game.seats[0]
    gain(game, 0, "income_diversity", "I-Y-01")
    p.tracks = [2, 9, 9, 1]
    feed_removing(game, 0, "income_diversity")
    p.coins = 0
    game.collect_income(p)
    assert p.coins == 2


def test_statue_patron(advanced_game, components):
    """statue_patron: +2 per coloured statue (now and later), +2 points per points side; undone on removal."""
    game = advanced_game
    game.epoch = 2
    p = game.seats[0]
    set_tracks(p, culture=40)
    game.carve_statue(p, A.statue_option(0, MILITARY, A.COLOURED))
    game.carve_statue(p, A.statue_option(1, INCOME, A.POINTS_SIDE))
    gain(game, 0, "I-Y-01")
    tracks = list(p.tracks)
    statues = game.score(p)["statues"]
    gain(game, 0, "statue_patron")
    assert p.tracks == [tracks[0], tracks[1] + 2, tracks[2], tracks[3]]
    assert game.score(p)["statues"] == statues + 2 and game.score(p)["patron_points"] == 2
    game.carve_statue(p, A.statue_option(2, CULTURE, A.COLOURED))  # bonus 4 + 2
    assert p.tracks[CULTURE] == tracks[CULTURE] + 4 + 2
    game.carve_statue(p, A.statue_option(3, FOOD, A.POINTS_SIDE))
    assert game.score(p)["patron_points"] == 4
    set_tracks(p, food=1)  # 2 cards: one must go
    feed_removing(game, 0, "statue_patron")
    assert p.tracks == [tracks[0], tracks[1], tracks[2] + 4, 1]
    assert game.score(p)["patron_points"] == 0
    assert game.score(p)["statues"] == int(components.statue_points.sum() + components.statue_bonus[1]
                                           + components.statue_bonus[3])  # the points sides


# --- epoch III --------------------------------------------------------------------------------

def test_silver_full(game, components):
    """silver_full: the best of your silver medals scores the full track instead of half."""
    p = game.seats[0]
    p.silver = [MILITARY, INCOME]
    set_tracks(p, income=18, military=27)
    assert game.score(p)["silver"] == 14 + 9
    gain(game, 0, "silver_full")
    row = game.score(p)
    assert row["silver"] == 27 + 9 and row["silver_full_points"] == 13
    p.silver = [MILITARY, MILITARY]
    assert game.score(p)["silver"] == 27 + 14  # only one medal scores in full
    p.silver = []
    assert game.score(p)["silver"] == 0


SETS_2 = ("I-Y-01", "I-Y-02", "I-R-01", "I-R-02", "I-B-01", "I-B-02", "I-G-01", "I-G-02", "I-P-07")


def test_set_collector(game, components):
    """set_collector: +4 points per complete set of 5 colours at the end, with or without gold."""
    p = game.seats[0]
    give(game, 0, *SETS_2, "set_collector")  # purple: I-P-07 and the card itself
    assert game.sets(p) == 2
    row = game.score(p)
    assert row["set_collector_points"] == 8 and row["gold"] == 8
    p.gold = 1
    assert game.score(p)["gold"] == 14 + 8


def test_gold_wildcard(game, components):
    """gold_wildcard: colours 2,2,2,1,2 with 1 gold score 2 sets for gold; set_collector counts 1."""
    p = game.seats[0]
    give(game, 0, "I-Y-01", "I-Y-02", "I-R-01", "I-R-02", "I-B-01", "I-B-02", "I-G-01",
         "gold_wildcard", "set_collector")
    p.gold = 1
    assert game.sets(p) == 1 and game.sets(p, wildcard=True) == 2
    row = game.score(p)
    assert row["gold"] == 2 * 7 + 4 and row["wildcard_points"] == 7 and row["set_collector_points"] == 4
    p.gold = 2
    assert game.score(p)["gold"] == 2 * 2 * 7 + 4


def test_gold_wildcard_fills_one_gap_only(game, components):
    """gold_wildcard fills one missing card: two gaps (2,2,2,1,1 with purple) are not filled."""
    p = game.seats[0]
    give(game, 0, "I-Y-01", "I-Y-02", "I-R-01", "I-R-02", "I-B-01", "I-B-02", "I-G-01", "gold_wildcard")
    p.gold = 1
    assert [game.colour_count(p, c) for c in range(5)] == [2, 2, 2, 1, 1]
    assert game.sets(p, wildcard=True) == 1 and game.score(p)["gold"] == 7
    p2 = game.seats[1]  # no gold medal: the wildcard scores nothing
    give(game, 1, "I-Y-03", "I-R-03", "I-B-04", "gold_wildcard")
    assert game.score(p2)["gold"] == 0 and game.score(p2)["wildcard_points"] == 0


def test_double_actions_two_colonies(advanced_game):
    """double_actions: two colonies of different levels in one colony step."""
    game = advanced_game
    p = game.seats[0]
    gain(game, 0, "double_actions")
    set_tracks(p, military=20)
    p.coins = 0
    scripted(game).add(("colony", A.colony_option(2, A.PLUNDER)), ("colony", A.colony_option(0, A.PLUNDER)))
    game.colony_step(p)
    assert sorted(p.colonies) == [0, 2]
    second = scripted(game).asked[1][1]
    assert A.colony_option(2, A.PLUNDER) not in second and A.NONE in second


def test_double_actions_may_stop_after_one(advanced_game):
    """double_actions: the second action is optional."""
    game = advanced_game
    p = game.seats[0]
    gain(game, 0, "double_actions")
    set_tracks(p, military=20)
    scripted(game).add(("colony", A.colony_option(2, A.PLUNDER)), ("colony", A.NONE))
    game.colony_step(p)
    assert list(p.colonies) == [2]


def test_double_actions_two_statues(advanced_game):
    """double_actions: two statues in one statue step."""
    game = advanced_game
    p = game.seats[0]
    gain(game, 0, "double_actions")
    set_tracks(p, culture=20)
    scripted(game).add(("statue", A.statue_option(2, FOOD, A.POINTS_SIDE)),
                       ("statue", A.statue_option(0, INCOME, A.COLOURED)))
    game.statue_step(p)
    assert p.statues == {2: (FOOD, A.POINTS_SIDE), 0: (INCOME, A.COLOURED)}
    assert p.tiles == [1, 2, 2, 1]


def test_requirement_cut(advanced_game, components):
    """requirement_cut: colony and statue requirements are 4 lower (culture 8 reaches statue 12)."""
    game = advanced_game
    p = game.seats[0]
    level2 = int(components.level_requirement[1])
    set_tracks(p, military=level2 - 4, culture=8)
    assert not game.colony_options(p, 30)[A.colony_option(1, A.PLUNDER)]
    assert not game.statue_options(p, 30)[A.statue_option(1, FOOD, A.COLOURED)]
    gain(game, 0, "requirement_cut")
    assert game.colony_options(p, 30)[A.colony_option(1, A.PLUNDER)]
    assert game.statue_options(p, 30)[A.statue_option(1, FOOD, A.COLOURED)]
    assert not game.statue_options(p, 30)[A.statue_option(2, FOOD, A.COLOURED)]  # 20 - 4 > 8
    set_tracks(p, military=level2 - 5)
    assert not game.colony_options(p, 30)[A.colony_option(1, A.PLUNDER)]


def test_requirement_purchase_rulebook_example(advanced_game):
    """requirement_purchase: military 14 takes a requirement-15 colony for 3 coins."""
    game = advanced_game
    p = game.seats[0]
    set_tracks(p, military=14)
    p.coins = 10
    assert not game.colony_options(p, 30)[A.colony_option(2, A.PLUNDER)]
    gain(game, 0, "requirement_purchase")
    colony_on_top(game, "C3-1")
    scripted(game).add(("colony", A.colony_option(2, A.PLUNDER)))
    game.colony_step(p)
    assert p.coins == 10 - 3 + 5


def test_requirement_purchase_limits(advanced_game, components):
    """requirement_purchase: at most 30 coins (10 points) per step, and only with the coins."""
    game = advanced_game
    p = game.seats[0]
    gain(game, 0, "requirement_purchase")
    p.coins = 100
    set_tracks(p, military=5, culture=10)
    assert game.colony_options(p, 30)[A.colony_option(2, A.PLUNDER)]          # 15: lacks 10, 30 coins
    assert game.statue_options(p, 30)[A.statue_option(2, FOOD, A.COLOURED)]   # 20: lacks 10
    assert not game.statue_options(p, 30)[A.statue_option(3, FOOD, A.COLOURED)]  # 30: lacks 20
    set_tracks(p, military=4)
    assert not game.colony_options(p, 30)[A.colony_option(2, A.PLUNDER)]      # lacks 11: 33 coins
    set_tracks(p, culture=11)
    p.coins = 2
    assert not game.statue_options(p, 30)[A.statue_option(1, FOOD, A.COLOURED)]  # 3 coins needed
    p.coins = 3
    assert game.statue_options(p, 30)[A.statue_option(1, FOOD, A.COLOURED)]


def test_requirement_purchase_and_integration(advanced_game, components):
    """requirement_purchase: integrating needs the requirement coins plus the integration cost."""
    game = advanced_game
    p = game.seats[0]
    gain(game, 0, "requirement_purchase")
    colony_on_top(game, "C2-1")
    set_tracks(p, military=int(components.level_requirement[1]) - 1)  # lacks 1: 3 coins
    p.coins = 3
    legal = game.colony_options(p, 30)
    assert legal[A.colony_option(1, A.PLUNDER)] and not legal[A.colony_option(1, A.INTEGRATE)]
    p.coins = 4
    scripted(game).add(("colony", A.colony_option(1, A.INTEGRATE)))
    game.colony_step(p)
    assert p.coins == 0 and p.colonies[1][1] is True


def test_requirement_purchase_budget_per_step(advanced_game):
    """requirement_purchase: 30 coins per step, shared by two colonies, new for the statue step."""
    game = advanced_game
    p = game.seats[0]
    gain(game, 0, "requirement_purchase", "double_actions")
    p.coins = 100
    set_tracks(p, military=5, culture=10)
    scripted(game).add(("colony", A.colony_option(2, A.PLUNDER)), ("colony", A.NONE))
    game.colony_step(p)  # 10 missing points: 30 coins
    second = scripted(game).asked[1][1]
    level2 = int(game.c.level_requirement[1])
    assert (A.colony_option(1, A.PLUNDER) in second) == (level2 <= 5)  # nothing left to pay with
    assert A.colony_option(0, A.PLUNDER) in second                     # level 1 (3) needs nothing
    tile = p.colonies[2][0]
    assert p.coins == 100 - 30 + int(game.c.colony_plunder[tile])
    coins = p.coins
    scripted(game).add(("statue", A.statue_option(2, FOOD, A.COLOURED)), ("statue", A.NONE))
    game.statue_step(p)  # statue 20 lacks 10: 30 coins again, in a new step
    assert p.coins == coins - 30
    second = scripted(game).asked[-1][1]
    assert A.statue_option(1, FOOD, A.COLOURED) not in second  # statue 12 lacks 2: 6 > 0 left
    assert A.statue_option(0, FOOD, A.COLOURED) in second      # statue 6 needs nothing

"""Final scoring (RULINGS 5): each score line, the rulebook's 149-point example, purple bonuses
inside their lines, and ties."""

import pytest

from hadara_sim import actions as A
from hadara_sim.deal import make_deals
from hadara_sim.reference import SCORE_LINES, Game
from hadara_sim.policies import Greedy, Random

from hadara_sim.component_files import load_components

from helpers import (
    CULTURE, FOOD, INCOME, MILITARY, colony_tile, copy_default, edit_csv, give, new_game, read_csv,
    set_tracks,
)


# --- the rulebook's worked examples ---------------------------------------------------------

# The rulebook's 16 cards: 47 points, at least 3 of every colour (here 4 yellow).
EXAMPLE_CARDS = {  # id: points
    "I-Y-01": 3, "I-Y-02": 2, "II-Y-01": 4, "II-Y-02": 4,
    "I-R-01": 4, "I-R-02": 1, "II-R-01": 1,
    "I-B-02": 2, "I-B-04": 2, "I-B-05": 2,
    "I-G-01": 4, "I-G-02": 3, "II-G-01": 5,
    "I-P-07": 2, "I-P-08": 6, "I-P-09": 2,
}


def example_components(tmp_path):
    """The default set with the estimated values the example needs fixed: the 16 cards' points
    (the rulebook prints only their sum) and the level-4 tile C4-1's front points 11 (the last of
    the rulebook's four colonies 2 + 5 + 8 + 11)."""
    d = copy_default(tmp_path)
    for card_id, points in EXAMPLE_CARDS.items():
        edit_csv(d / "cards.csv", card_id, "points", str(points))
    rows = {r[0]: r for r in read_csv(d / "colonies.csv")}
    back = max(11, int(rows["C4-1"][rows["id"].index("back_points")]))
    edit_csv(d / "colonies.csv", "C4-1", "front_points", "11")
    edit_csv(d / "colonies.csv", "C4-1", "back_points", str(back))
    return load_components(d)


def test_rulebook_score_sheet_149(tmp_path):
    """Scoring example: colonies 26, statues 30, silver 14 + 9, gold 21, cards 47, coins 2 = 149."""
    c = example_components(tmp_path)
    game = new_game(c)
    p = game.seats[0]
    give(game, 0, *EXAMPLE_CARDS)
    assert sum(c.cards[x].points for x in p.cards) == 47 == sum(
        [3, 2, 4, 4, 4, 1, 1, 2, 2, 2, 4, 3, 5, 2, 6, 2])  # the rulebook's list
    # Colonies 2 + 5 + 8 + 11: plundered C1-1 (front 2), integrated C2-1 (back 5), plundered C3-1
    # (front 8) and a plundered level-4 tile (front 11).
    p.colonies = {0: (colony_tile(c, "C1-1"), False), 1: (colony_tile(c, "C2-1"), True),
                  2: (colony_tile(c, "C3-1"), False), 3: (colony_tile(c, "C4-1"), False)}
    # Statues 4 + 8 + 14, and a red tile points side up on the third statue, worth 4.
    p.statues = {0: (FOOD, A.COLOURED), 1: (CULTURE, A.COLOURED), 2: (MILITARY, A.POINTS_SIDE)}
    # Silver medals on military 27 (14 points) and income 18 (9 points); one gold medal.
    p.silver = [MILITARY, INCOME]
    p.gold = 1
    set_tracks(p, income=18, military=27, culture=20, food=16)
    p.coins = 11
    row = game.score(p)
    assert {k: row[k] for k in SCORE_LINES} == dict(
        colonies=26, statues=30, silver=14 + 9, gold=21, cards=47, coins=2)
    assert game.sets(p) == 3
    assert row["total"] == 149
    assert row["leftover_coins"] == 1


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


# --- more score lines ---------------------------------------------------------------------------

def test_colony_points_front_or_back(game, components):
    """A plundered colony scores its front points, an integrated one its back points."""
    p = game.seats[0]
    for tile in range(len(components.colonies)):
        level = int(components.colony_level[tile])
        p.colonies = {level: (tile, False)}
        assert game.score(p)["colonies"] == components.colony_front_points[tile]
        p.colonies = {level: (tile, True)}
        assert game.score(p)["colonies"] == components.colony_back_points[tile]
    p.colonies = {level: (colony_tile(components, f"C{level + 1}-1"), False) for level in range(5)}
    assert game.score(p)["colonies"] == sum(
        components.colony_front_points[colony_tile(components, f"C{level + 1}-1")] for level in range(5))


def test_statue_points(game, components):
    """A statue scores its points, plus its bonus value when the tile lies points side up."""
    p = game.seats[0]
    p.statues = {3: (FOOD, A.POINTS_SIDE)}
    assert game.score(p)["statues"] == int(components.statue_points[3] + components.statue_bonus[3])
    p.statues = {3: (FOOD, A.COLOURED), 0: (INCOME, A.COLOURED)}
    assert game.score(p)["statues"] == int(components.statue_points[3] + components.statue_points[0])


def test_card_points_include_purple(game, components):
    """Card points: the points of every owned card, purple effect cards included."""
    p = game.seats[0]
    owned = give(game, 0, "III-P-09", "set_collector", "I-Y-03")
    assert game.score(p)["cards"] == sum(components.cards[x].points for x in owned)
    assert components.cards[owned[1]].points > 0


def test_sets_need_all_five_colours(game, components):
    """A set is 5 differently coloured cards: without purple there is no set."""
    p = game.seats[0]
    give(game, 0, "I-Y-01", "I-R-01", "I-B-01", "I-G-01", "I-G-02")
    p.gold = 2
    assert game.sets(p) == 0 and game.score(p)["gold"] == 0
    give(game, 0, "I-P-07")
    assert game.sets(p) == 1 and game.score(p)["gold"] == 14


def test_total_is_sum_of_lines(game, components):
    """The total is the sum of the six score lines; purple bonuses sit inside their lines."""
    p = game.seats[0]
    give(game, 0, "I-Y-01", "I-R-01", "I-B-01", "I-G-01", "I-P-07", "silver_full", "set_collector",
         "statue_patron", "gold_wildcard")
    p.statues = {0: (FOOD, A.POINTS_SIDE)}
    p.silver = [MILITARY]
    p.gold = 1
    set_tracks(p, military=9)
    p.coins = 17
    row = game.score(p)
    assert row["total"] == sum(row[k] for k in SCORE_LINES)
    assert row["patron_points"] == 2 and row["silver_full_points"] == 4
    assert row["set_collector_points"] == 4 and row["wildcard_points"] == 0  # purple 5: no gap
    assert row["statues"] == 4 + components.statue_bonus[0] + 2
    assert row["silver"] == 9 and row["gold"] == 7 + 4


def test_gold_line_minus_its_bonus_parts_is_the_medal_points(game):
    """The gold line holds the medals and both gold bonuses: 2 medals, 2 plain sets and a third
    set missing only purple. Medals 7 x 2 x 2 = 28, set_collector 4 x 2 plain sets = 8,
    gold_wildcard fills the purple gap for the medals only: 7 x 2 x 1 = 14; gold 28 + 8 + 14 = 50."""
    p = game.seats[0]
    give(game, 0, "I-Y-01", "I-Y-02", "I-Y-03", "I-R-01", "I-R-02", "I-R-03", "I-B-01", "I-B-02",
         "I-B-04", "I-G-01", "I-G-02", "I-G-03", "set_collector", "gold_wildcard")
    p.gold = 2
    row = game.score(p)
    assert game.sets(p) == 2
    assert (row["gold"], row["set_collector_points"], row["wildcard_points"]) == (50, 8, 14)
    assert row["gold"] - row["set_collector_points"] - row["wildcard_points"] == 28


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_played_game_sheet(components, players):
    """A played game returns one row per seat; win shares sum to 1 and go to the best rows."""
    for g in range(3):
        deal = make_deals(components, players, 1, seed=100 + g)[0]
        policies = [(Greedy if s % 2 else Random)(seed=s) for s in range(players)]
        game = Game(deal, components, policies)
        sheet = game.play()
        assert [r["seat"] for r in sheet] == list(range(players))
        assert sum(r["win_share"] for r in sheet) == pytest.approx(1.0)
        best = max((r["total"], r["leftover_coins"]) for r in sheet)
        for r in sheet:
            assert (r["win_share"] > 0) == ((r["total"], r["leftover_coins"]) == best)
            assert r["total"] == sum(r[k] for k in SCORE_LINES)
            assert r == {**game.score(game.seats[r["seat"]]), "rank": r["rank"], "win_share": r["win_share"]}

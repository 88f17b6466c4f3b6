"""The component set: the shipped reconstruction keeps every printed fact, the validator names the
file, line and field of every problem, and the deal draws from the right cards."""

import csv
import json
import re
from pathlib import Path

import numpy as np
import pytest

from hadara_sim.components import ComponentError
from hadara_sim.component_files import default_components_path, load_components, validate_components
from hadara_sim.constants import (
    CARDS_PER_COLOUR, COLOURS, EFFECTS, EPOCHS, PURPLE, PURPLE_PER_EPOCH, TRACKS,
)
from hadara_sim.deal import Deals, make_deals
from hadara_sim.registry import make_policy

from helpers import colony_tile, copy_default, edit_csv, read_csv, write_csv


# --- the shipped set: printed facts (RULINGS 6-7) ---------------------------------------------

def test_default_set_is_valid(components):
    """The shipped reconstruction passes its own validator."""
    assert validate_components(Path(components.path)) == []


def test_card_counts(components):
    """162 epoch cards: per epoch 10 of each track colour and 14 purple, 4 starred purple."""
    assert components.n_cards == 162
    for epoch in EPOCHS:
        for colour in range(len(COLOURS)):
            n = int(((components.card_epoch == epoch) & (components.card_colour == colour)).sum())
            assert n == (PURPLE_PER_EPOCH if colour == PURPLE else CARDS_PER_COLOUR)
        starred = (components.card_epoch == epoch) & components.card_starred
        assert int(starred.sum()) == 4
        assert set(components.card_colour[starred]) == {PURPLE}


def test_each_effect_on_one_card(components):
    """Each purple effect is on exactly one purple card of its epoch; starred = advanced only."""
    effects = [c.effect for c in components.cards if c.effect]
    assert sorted(effects) == sorted(EFFECTS)
    for effect, (epoch, starred) in EFFECTS.items():
        c = components.cards[components.effect_card[effect]]
        assert (c.epoch, c.colour, c.starred, c.values) == (epoch, PURPLE, starred, (0, 0, 0, 0))
    for epoch in EPOCHS:  # 6 effect cards and 8 value cards per epoch
        purple = [c for c in components.cards if c.epoch == epoch and c.colour == PURPLE]
        assert sum(1 for c in purple if c.effect) == 6
        assert all(sum(c.values) > 0 for c in purple if not c.effect)


def test_printed_blue_card(components):
    """The rulebook's example card: blue, epoch I, +2 culture +1 food, cost 3, 2 points."""
    c = components.cards[components.card_index["I-B-01"]]
    assert (c.epoch, COLOURS[c.colour], c.cost, c.points, c.values) == (1, "blue", 3, 2, (0, 0, 2, 1))
    assert {"cost", "points", "culture", "food"} <= c.exact


def test_printed_colonies(components):
    """25 colonies in 5 levels of 5; the printed tiles C1-1, C2-1, C3-1; backs never below fronts."""
    c = components
    assert len(c.colonies) == 25
    assert np.bincount(c.colony_level).tolist() == [5] * 5
    t = colony_tile(c, "C1-1")
    assert (c.colony_requirement[t], c.colony_plunder[t], c.colony_integrate[t], c.colony_front_points[t],
            c.colony_back_values[t].tolist(), c.colony_back_points[t]) == (3, 3, 1, 2, [1, 1, 0, 0], 2)
    t = colony_tile(c, "C2-1")
    assert (c.colony_integrate[t], c.colony_back_values[t].tolist(), c.colony_back_points[t]) == (1, [0, 2, 1, 0], 5)
    assert c.colony_requirement[t] <= 12  # it was taken with military 12
    t = colony_tile(c, "C3-1")
    assert (c.colony_requirement[t], c.colony_plunder[t], c.colony_front_points[t]) == (15, 5, 8)
    assert (c.colony_back_points >= c.colony_front_points).all()
    for level in range(5):  # one requirement per level, rising
        reqs = set(c.colony_requirement[c.colony_level == level].tolist())
        assert len(reqs) == 1
    assert list(c.level_requirement) == sorted(c.level_requirement)


def test_printed_board(components):
    """Statues 6/12/20/30, points 4/8/14, bonuses 3 and 4; sell 2/3/4; medals 4/9/20 and 6/12/30."""
    c = components
    assert c.statue_requirement.tolist() == [6, 12, 20, 30]
    assert c.statue_points.tolist()[:3] == [4, 8, 14]
    assert c.statue_bonus.tolist()[1:3] == [3, 4]
    assert c.sell == (2, 3, 4)
    assert c.silver_price == (4, 9, 20) and c.gold_price == (6, 12, 30)
    assert c.tiles_per_colour == 2


def test_printed_setup_card(components):
    """Setup card initiative 2 side A: 8 coins, income 2, military 1, culture 3, food 4."""
    s = components.setup_cards[(2, "A")]
    assert (s.coins, s.values) == (8, (2, 1, 3, 4))
    assert components.setup_coins.shape == (5, 2) and components.setup_values.shape == (5, 2, 4)


def test_basic_pool_excludes_starred(components):
    """Basic game purple decks draw from the 10 unstarred cards; advanced from all 14."""
    for epoch in EPOCHS:
        basic = components.cards_of(epoch, PURPLE, advanced=False)
        advanced = components.cards_of(epoch, PURPLE, advanced=True)
        assert len(basic) == 10 and len(advanced) == 14
        assert not components.card_starred[basic].any()


# --- the deal -----------------------------------------------------------------------------------

@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("advanced", [False, True])
def test_deal_draws_2p_cards_of_each_deck(components, players, advanced):
    """Each epoch deck gets 2 x P distinct cards of its epoch and colour; P colony tiles per level."""
    deals = make_deals(components, players, 20, seed=3, advanced=advanced)
    assert deals.decks.shape == (20, 3, 5, 2 * players)
    for g in range(20):
        for e, epoch in enumerate(EPOCHS):
            for colour in range(5):
                deck = deals.decks[g, e, colour]
                assert len(set(deck.tolist())) == 2 * players
                assert (components.card_epoch[deck] == epoch).all()
                assert (components.card_colour[deck] == colour).all()
                if not advanced:
                    assert not components.card_starred[deck].any()
        for level in range(5):
            assert (components.colony_level[deals.colonies[g, level]] == level).all()
        assert sorted(deals.colour_order[g].tolist()) == [0, 1, 2, 3, 4]
        init = deals.initiative[g].tolist()
        assert len(set(init)) == players and all(1 <= i <= 5 for i in init)


def test_deal_is_seeded_and_sliceable(components):
    """The same seed gives the same deals; deals[i] is game i alone and survives JSON."""
    a = make_deals(components, 3, 5, seed=11)
    b = make_deals(components, 3, 5, seed=11)
    assert all(np.array_equal(getattr(a, k), getattr(b, k))
               for k in ("initiative", "colour_order", "decks", "colonies"))
    one = a[2]
    assert len(one) == 1 and np.array_equal(one.decks[0], a.decks[2])
    back = Deals.from_json(one.to_json())
    assert back.to_json() == one.to_json() == a.to_json(2)
    with pytest.raises(ValueError, match=re.escape("to_json gives one deal: to_json(g) for deal g of this batch of 5")):
        a.to_json()
    for wrong, words in ((json.dumps(one.to_json()), "this is str"), ({"players": 3}, "this lacks advanced, game_id")):
        with pytest.raises(ValueError, match=re.escape(f"Deals.from_json reads the dict of Deals.to_json(g) "
                                                       f"(json.loads its text first); {words}")):
            Deals.from_json(wrong)
    with pytest.raises(ValueError):
        make_deals(components, 6, 1)
    with pytest.raises(MemoryError, match="1,000,000,000,000 deals at once need more memory than there is: deal fewer"):
        make_deals(components, 4, 10**12)
    assert len(Deals.concat([a, b[1:3]])) == 7
    for parts, words in (([a, make_deals(components, 4, 2)], "got 3 players basic, 4 players basic"), ([], "got no batch")):
        with pytest.raises(ValueError, match=f"Deals.concat joins batches of one player count and game kind, {words}"):
            Deals.concat(parts)


# --- validation of broken sets (library level; CLI in test_cli_basics) ------------------------

def problems_of(path):
    return [str(p) for p in validate_components(path)]


def test_bad_number_names_file_line_field(tmp_path):
    """A non-number names the file, line and field."""
    d = copy_default(tmp_path)
    line = edit_csv(d / "cards.csv", "I-Y-04", "cost", "x")
    assert line == 5
    assert problems_of(d) == ["cards.csv:5: cost: expected a whole number (digits 0-9 only), got 'x'"]
    with pytest.raises(ComponentError) as err:
        load_components(d)
    assert err.value.problems[0].line == 5 and err.value.problems[0].field == "cost"


@pytest.mark.parametrize("text", ["1_0", "\uff11\uff10", "\u0661", "0x1"])
def test_a_number_written_as_no_spreadsheet_writes_one_is_refused(tmp_path, text):
    """int() took '1_0' and fullwidth or Arabic-Indic digits as numbers."""
    d = copy_default(tmp_path)
    line = edit_csv(d / "cards.csv", "I-Y-04", "cost", text)
    assert problems_of(d) == [f"cards.csv:{line}: cost: expected a whole number (digits 0-9 only), got '{text}'"]


def test_every_problem_is_listed(tmp_path):
    """Several problems in several files are all reported, each with its own place."""
    d = copy_default(tmp_path)
    l1 = edit_csv(d / "cards.csv", "II-R-03", "points", "-4")
    l2 = edit_csv(d / "cards.csv", "I-P-07", "effect", "teleport")
    l3 = edit_csv(d / "colonies.csv", "C4-2", "back_points", "3")
    l4 = edit_csv(d / "setup_cards.csv", "3", "food", "four")
    found = problems_of(d)
    assert any(p.startswith(f"cards.csv:{l1}: points: -4 is out of range") for p in found)
    assert any(p.startswith(f"cards.csv:{l2}: effect: unknown effect 'teleport'") for p in found)
    assert any(p.startswith(f"colonies.csv:{l3}: back_points: 3 is lower than front_points") for p in found)
    assert any(p.startswith(f"setup_cards.csv:{l4}: food: expected a whole number") for p in found)


def test_missing_column(tmp_path):
    """A missing column is reported on the header line with the expected columns."""
    d = copy_default(tmp_path)
    rows = read_csv(d / "colonies.csv")
    col = rows[0].index("plunder")
    write_csv(d / "colonies.csv", [r[:col] + r[col + 1:] for r in rows])
    found = problems_of(d)
    assert found and found[0].startswith("colonies.csv:1: header: missing column 'plunder'")



@pytest.mark.parametrize("delimiter", [";", "\t"])
def test_a_set_saved_by_excel_with_semicolons_or_tabs_loads_the_same(tmp_path, delimiter):
    """Excel writes ';' between fields where the decimal mark is a comma (and a tab as "text"): the
    header says which, and the set is the same set (it named every column missing, then every effect
    on no card)."""
    d = copy_default(tmp_path)
    for name in ("cards.csv", "colonies.csv", "setup_cards.csv"):
        rows = read_csv(d / name)
        with (d / name).open("w", newline="") as f:
            csv.writer(f, delimiter=delimiter).writerows(rows)
    assert problems_of(d) == []
    mine, shipped = load_components(d), load_components(default_components_path())
    assert (mine.cards, mine.colonies, mine.setup_cards) == (shipped.cards, shipped.colonies, shipped.setup_cards)


def test_a_broken_header_is_one_problem_not_a_cascade(tmp_path):
    """A misspelt column is named once: the checks of the whole file (every effect on one card, the
    counts per colour) wait for a file that can be read."""
    d = copy_default(tmp_path)
    rows = read_csv(d / "cards.csv")
    rows[0][rows[0].index("colour")] = "color"
    write_csv(d / "cards.csv", rows)
    assert problems_of(d) == ["cards.csv:1: header: missing column 'colour', unknown column 'color' (expected: "
                              "id,epoch,colour,starred,cost,points,income,military,culture,food,effect,exact)"]

def test_wrong_counts(tmp_path):
    """Too few cards of a colour, a duplicate effect and a missing colony are all counted."""
    d = copy_default(tmp_path)
    rows = read_csv(d / "cards.csv")
    rows = [r for r in rows if r[0] != "II-G-05"]
    write_csv(d / "cards.csv", rows)
    edit_csv(d / "cards.csv", "I-P-07", "effect", "sell_bonus")
    crows = [r for r in read_csv(d / "colonies.csv") if r[0] != "C5-5"]
    write_csv(d / "colonies.csv", crows)
    found = problems_of(d)
    assert "cards.csv: colour: epoch 2 has 9 green cards, expected 10" in found
    assert any(p.startswith("cards.csv:") and "effect 'sell_bonus' is on 2 cards" in p for p in found)
    assert "colonies.csv: level: level 5 has 4 tiles, expected 5" in found


def test_effect_rules_checked(tmp_path):
    """An effect on a non-purple card, in the wrong epoch or with track values is rejected."""
    d = copy_default(tmp_path)
    line = edit_csv(d / "cards.csv", "I-P-01", "epoch", "2")
    line2 = edit_csv(d / "cards.csv", "I-P-02", "culture", "1")
    found = problems_of(d)
    assert f"cards.csv:{line}: epoch: effect 'sell_bonus' belongs to epoch 1" in found
    assert f"cards.csv:{line2}: effect: an effect card carries no track values" in found


def test_board_problems(tmp_path):
    """board.toml problems name the line and the key (a value's said no line); a missing file is named."""
    d = copy_default(tmp_path)
    text = (d / "board.toml").read_text().replace("silver = [4, 9, 20]", "silver = [4, 9]")
    (d / "board.toml").write_text(text)
    line = next(i for i, row in enumerate(text.splitlines(), 1) if row.startswith("silver = [4, 9]"))
    assert any(p.startswith(f"board.toml:{line}: medals.silver: expected 3 whole numbers") for p in problems_of(d))
    (d / "board.toml").write_text(text.replace("points = 4\n", "points = -4\n", 1))
    line = text.splitlines().index("points = 4") + 1
    assert f"board.toml:{line}: statues[0].points: expected a whole number in 0..60, got -4" in problems_of(d)
    (d / "setup_cards.csv").unlink()
    found = problems_of(d)
    assert len(found) == 1 and found[0].endswith(  # with what to do: a set copied in part said only "is missing"
        f"setup_cards.csv: file: is missing: a component set holds cards.csv, colonies.csv, setup_cards.csv, "
        f"board.toml; copy it from the shipped set, {default_components_path() / 'setup_cards.csv'}")


def test_a_path_that_is_no_folder_says_what_it_is(tmp_path):
    """A mistyped folder and a file given for the folder were both 'is not a directory of component
    files': now which, and what to give."""
    (missing,) = problems_of(tmp_path / "nope")
    assert missing.endswith("nope: path: does not exist: give the folder that holds cards.csv, colonies.csv, "
                            "setup_cards.csv, board.toml")
    d = copy_default(tmp_path)
    (a_file,) = problems_of(d / "cards.csv")
    assert "cards.csv: path: is a file, not a folder: give the folder that holds" in a_file


def test_a_note_line_in_a_csv_is_one_problem(tmp_path):
    """A '# ...' line in cards.csv was told as nine problems, one per empty field ("epoch: expected a
    whole number, got ''", ...); it is one, saying what to do."""
    d = copy_default(tmp_path)
    text = (d / "cards.csv").read_text()
    (d / "cards.csv").write_text(text.replace("\nI-Y-02", "\n# checked against my copy\nI-Y-02", 1))
    assert problems_of(d) == ["cards.csv:3: row: '# checked against my copy' reads as a note, but a CSV file has "
                              "no comment lines: delete the line"]


def test_board_unknown_keys_are_refused(tmp_path):
    """A misspelt board.toml key was skipped: `per_color = 3` left 2 tiles per colour and the set
    'valid'. Every key that is none of its table's is named with its line."""
    d = copy_default(tmp_path)
    text = (d / "board.toml").read_text()
    text = text.replace("per_colour = 2", "per_colour = 2\nper_color = 3").replace("[sell]", "[sel]")
    (d / "board.toml").write_text(text.replace("bonus = 5", "bonus = 5\nbouns = 1"))
    found = problems_of(d)
    assert "board.toml:2: sel: unknown key; the keys here are sell, medals, bonus_tiles, statues" in found
    assert "board.toml:13: bonus_tiles.per_color: unknown key; the keys here are per_colour, exact" in found
    assert any(p.startswith("board.toml:38: statues[3].bouns: unknown key") for p in found)


def test_edited_set_loads_with_new_values(tmp_path):
    """A user's edited set loads and the engine sees its values."""
    d = copy_default(tmp_path)
    edit_csv(d / "cards.csv", "I-B-03", "cost", "7")
    c = load_components(d)
    assert c.cards[c.card_index["I-B-03"]].cost == 7
    assert c.digest != load_components().digest
    assert TRACKS == ("income", "military", "culture", "food")


def test_the_same_values_saved_another_way_are_the_same_set(tmp_path):
    """The digest was of the files' bytes: the shipped set saved with Windows line ends, a byte order
    mark, tabs, a blank line or a comment got another, and the expert refused it ("learned on ...").
    It is of the values read; a changed value or `exact` label still changes it."""
    shipped = load_components()
    d = copy_default(tmp_path)
    cards = (d / "cards.csv").read_text()
    (d / "cards.csv").write_bytes(b"\xef\xbb\xbf" + cards.replace(",", "\t").replace("\n", "\r\n\r\n").encode())
    (d / "colonies.csv").write_bytes(((d / "colonies.csv").read_text() + "\n\n").replace("\n", "\r\n").encode())
    (d / "board.toml").write_text("# my copy\n\n" + (d / "board.toml").read_text().replace(" = ", "="))
    saved = load_components(d)
    assert saved.digest == shipped.digest and saved.path != shipped.path
    make_policy("expert").check_components(saved)  # learned on the shipped set: plays this one
    edit_csv(d / "setup_cards.csv", "3", "exact", "coins")
    assert load_components(d).digest != shipped.digest

"""Component overrides in scenarios: one value changed, validated with file, line and key, swept
on the same deals."""

import json
from pathlib import Path
import textwrap

import numpy as np
import pytest

from hadara_sim import simulate
from hadara_sim.components import ComponentError
from hadara_sim.deal import make_deals
from hadara_sim.reference import Game
from hadara_sim.registry import make_policy
from hadara_sim.scenario.checks import ScenarioError
from hadara_sim.scenario.identity import run_identity
from hadara_sim.scenario.read import load_scenario
from hadara_sim.trace import Recorder

ARRAYS = ("card_cost", "card_points", "card_values", "colony_plunder", "colony_integrate",
          "colony_front_points", "colony_back_values", "colony_back_points", "setup_coins",
          "setup_values", "statue_points")


def write(tmp_path, text, name="s.toml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip())
    return path


def changed_arrays(a, b) -> dict:
    """Every array entry of two component sets that differs: {name: [(index, a, b), ...]}."""
    out = {}
    for name in ARRAYS:
        x, y = getattr(a, name), getattr(b, name)
        where = np.argwhere(x != y)
        if len(where):
            out[name] = [(tuple(i.tolist()), x[tuple(i)].item(), y[tuple(i)].item()) for i in where]
    return out


def test_override_changes_exactly_the_named_values(components):
    over = components.with_overrides({"cards": {"I-Y-03": {"cost": 5}}, "setup": {"3B": {"culture": 4}},
                                      "colonies": {"C3-2": {"plunder": 7}},
                                      "board": {"silver_price": {"3": 18}}})
    y03 = components.card_index["I-Y-03"]
    c32 = next(c.index for c in components.colonies if c.id == "C3-2")
    assert changed_arrays(components, over) == {
        "card_cost": [((y03,), 2, 5)],
        "colony_plunder": [((c32,), 5, 7)],
        "setup_values": [((2, 1, 2), 5, 4)],  # initiative 3, side B, culture
    }
    assert (components.silver_price, over.silver_price) == ((4, 9, 20), (4, 9, 18))
    assert over.digest != components.digest
    assert components.with_overrides({}) is components


def test_override_is_visible_in_the_trace(components):
    """The setup record of a game's trace differs only in the overridden seat's culture."""
    over = components.with_overrides({"setup": {"3A": {"culture": 6}}})
    deal = make_deals(components, 3, 1, seed=4)
    deal.initiative[0] = [3, 1, 5]  # seat 0 holds setup card 3
    seat = 0
    records = []
    for c in (components, over):
        recorder = Recorder(deal, c, ["greedy"] * 3)
        Game(deal, c, [make_policy("greedy", seed=0)] * 3, recorder=recorder).play()
        records.append(next(r["state"] for r in recorder.records if r["type"] == "state" and r["step"] == "setup"))
    base, changed = records
    assert changed["tracks"][seat][2] == 6 and base["tracks"][seat][2] == 2
    changed["tracks"][seat][2] = base["tracks"][seat][2]
    assert changed == base


@pytest.mark.parametrize("overrides, key, words", [
    ({"cards": {"I-Y-99": {"cost": 3}}}, "cards.I-Y-99", "unknown card id 'I-Y-99'"),
    ({"cards": {"I-Y-03": {"colour": 2}}}, "cards.I-Y-03.colour", "unknown field 'colour'"),
    ({"setup": {"3C": {"coins": 3}}}, "setup.3C", "unknown setup card"),
    ({"setup": {"3B": {"culture": 11}}}, "setup.3B.culture", "11 is out of range 0..10"),
    ({"colonies": {"C1-1": {"front_points": 9}}}, "colonies.C1-1.front_points", "lower than front_points 9"),
    ({"board": {"gold_price": [1, 2]}}, "board.gold_price", "expected 3 values"),
    ({"cardz": {}}, "cardz", "unknown section"),
])
def test_bad_override_is_refused(components, overrides, key, words):
    with pytest.raises(ComponentError) as err:
        components.with_overrides(overrides)
    [problem] = err.value.problems
    assert problem.field == key and words in problem.message, str(problem)


@pytest.mark.parametrize("text, line, key, words", [
    ('[components.cards."I-Y-99"]\ncost = 2\n', 4, "components.cards.I-Y-99", "unknown card id"),
    ('[components.setup."3B"]\ncoins = 3\nculturr = 4\n', 6, "components.setup.3B.culturr", "unknown field"),
    ('[components.colonies."C3-2"]\nplunder = 40\n', 5, "components.colonies.C3-2.plunder", "out of range 0..20"),
    ('[components]\npath = 3\n', 5, "components.path", "expected a string"),
    ('[sweep]\n"components.setup.3B.culture" = [4, 12]\n', 5, "components.setup.3B.culture",
     "with components.setup.3B.culture = 12: 12 is out of range"),
    ('[sweep]\ncomponents = ["a", "b"]\n', 5, "sweep.components", "cannot be swept"),
    # a TOML date or time is no JSON: the overrides' cache key stopped with "unexpected TypeError"
    ('[components.setup."3B"]\nculture = 1979-05-27\n', 5, "components.setup.3B.culture",
     "expected a whole number, got datetime.date(1979, 5, 27)"),
    ('[components.board]\nsell_price = [3, 07:32:00, 5]\n', 5, "components.board.sell_price[1]",
     "expected a whole number, got datetime.time(7, 32)"),
])
def test_scenario_override_problems_name_file_line_and_key(tmp_path, text, line, key, words):
    path = write(tmp_path, 'players = 2\npolicies = ["greedy"]\ngame = "advanced"\n' + text)
    with pytest.raises(ScenarioError) as err:
        load_scenario(path)
    [problem] = err.value.problems
    assert (problem.file, problem.line, problem.field) == (str(path), line, key), str(problem)
    assert words in problem.message, str(problem)


def test_override_recorded_in_identity_and_metadata(tmp_path):
    plain = load_scenario(write(tmp_path, 'players = 2\npolicies = ["greedy"]\n', "a.toml"))
    over = load_scenario(write(tmp_path, 'players = 2\npolicies = ["greedy"]\n'
                                         '[components]\npath = "{}"\n[components.setup."2A"]\ncoins = 9\n'
                                         .format(plain.components.path), "b.toml"))
    [combo] = over.combinations
    assert combo.config.overrides == {"setup": {"2A": {"coins": 9}}}
    assert combo.config.components.setup_coins[1, 0] == 9 and over.components.setup_coins[1, 0] == 8
    assert combo.to_dict(over.components)["config"]["components"] == {"setup": {"2A": {"coins": 9}}}
    assert run_identity(plain, "v", 1) != run_identity(over, "v", 1)
    assert "components" not in plain.combinations[0].to_dict(plain.components)["config"]


def test_sweep_of_an_override_plays_identical_deals(tmp_path):
    path = write(tmp_path, """
        players = 3
        policies = ["greedy", "economy", "military"]
        assignment = "rotated"
        games = 12
        chunk = 5
        components = "%s"
        [sweep]
        "components.cards.I-Y-03.cost" = [1, 5]
        "components.board.silver_price.2" = [9, 12]
        """ % load_scenario(write(tmp_path, 'policies = ["greedy"]\n', "x.toml")).components.path)
    sc = load_scenario(path)
    assert [c.sweep for c in sc.combinations] == [
        {"components.cards.I-Y-03.cost": a, "components.board.silver_price.2": b} for a in (1, 5) for b in (9, 12)]
    sets = [c.config.components for c in sc.combinations]
    assert [int(s.card_cost[s.card_index["I-Y-03"]]) for s in sets] == [1, 1, 5, 5]
    assert [s.silver_price for s in sets] == [(4, 9, 20), (4, 12, 20)] * 2
    deals = [make_deals(s, 3, 5, seed=np.random.SeedSequence(0, spawn_key=(0,))) for s in sets]
    for d in deals[1:]:
        for name in ("initiative", "colour_order", "decks", "colonies"):
            assert np.array_equal(getattr(d, name), getattr(deals[0], name)), name
    df = simulate(sc, jobs=1)
    deal_columns = ["game", "seat", "setup_card", "colour_order", "policy"]
    first = df.filter(df["combo"] == 0).select(deal_columns)
    for combo in range(1, 4):
        assert df.filter(df["combo"] == combo).select(deal_columns).equals(first)
    assert json.loads(df["sweep"][0]) == sc.combinations[0].sweep
    scores = [df.filter(df["combo"] == c)["total"].to_list() for c in range(4)]
    assert scores[0] != scores[2]  # the cost of I-Y-03 changed play


def test_components_option_keeps_the_overrides(components):
    from hadara_sim.scenario.read import parse_scenario

    sc = parse_scenario('players = 2\npolicies = ["greedy"]\n[components.setup."2A"]\ncoins = 9\n',
                        components=components.path)
    assert sc.components_path == str(Path(components.path).resolve())
    assert sc.combinations[0].config.components.setup_coins[1, 0] == 9

"""A card's worth at its price (restricted play): the scenario's `restrict`, the results it writes, seek
minus avoid and the fair cost in `report cards`, checked on planted data and on a small run."""

import re
import textwrap

import numpy as np
import polars as pl
import pytest

import hadara_sim
from hadara_sim import load_components
from hadara_sim.report import worth as W
from hadara_sim.report.component_sections import cards as cards_section
from hadara_sim.scenario.checks import ScenarioError
from hadara_sim.scenario.read import load_scenario


@pytest.fixture(scope="module")
def components():
    return load_components()


def planted(worth: float, printed: int, deals: int = 6000, slope: float = 0.02, seed: int = 1) -> pl.DataFrame:
    """Pairs of a card whose seeker gains `slope` of win share per coin its cost lies below `worth`: at a
    cost equal to `worth`, seeking and avoiding are level. Win shares are 0 or 1, drawn per deal; as in
    play, the two games of a deal differ only where the card was offered (a fifth of the deals here)."""
    rng = np.random.default_rng(seed)
    frames = []
    for change in (-2, 0, 2):
        gain = slope * (worth - (printed + change))
        avoid = rng.random(deals) < 0.3
        seek = np.where(rng.random(deals) < 0.2, rng.random(deals) < 0.3 + 5 * gain, avoid)
        frames.append(pl.DataFrame({"card_id": "II-B-02", "players": 4, "cost_change": change,
                                    "game": np.arange(deals), "seat": np.arange(deals) % 4,
                                    "win_seek": seek.astype(float), "win_avoid": avoid.astype(float),
                                    "total_seek": 50.0 + 10 * seek, "total_avoid": 50.0 + 10 * avoid}))
    return pl.concat(frames).with_columns(pl.col("players").cast(pl.Int8), pl.col("cost_change").cast(pl.Int8))


def test_a_card_worth_exactly_its_cost_comes_out_level(components):
    printed = components.cards[components.card_index["II-B-02"]].cost
    pairs = planted(printed, printed)
    fair = W.fair_costs(pairs, components).row(0, named=True)
    assert fair["fair_low"] <= printed <= fair["fair_high"]
    assert abs(fair["fair_cost"] - printed) < 0.5 and fair["fair_high"] - fair["fair_low"] < 2.5
    worth = {r["cost_change"]: r for r in W.seek_avoid(pairs, components).to_dicts()}
    assert worth[0]["win_verdict"].startswith("fair")  # level at its printed cost, by the equivalence test
    assert worth[-2]["win_verdict"] == "stronger" and worth[2]["win_verdict"] == "weaker"


def test_the_fair_cost_follows_the_planted_worth(components):
    printed = components.cards[components.card_index["II-B-02"]].cost
    fair = W.fair_costs(planted(printed + 1.5, printed, seed=2), components).row(0, named=True)
    assert fair["fair_low"] <= printed + 1.5 <= fair["fair_high"] and fair["fair_low"] > printed
    assert fair["gap"] == pytest.approx(fair["fair_cost"] - printed)


def test_no_crossing_when_the_price_does_not_matter(components):
    fair = W.fair_costs(planted(0, 6, slope=0.0, seed=3), components).row(0, named=True)
    assert np.isnan(fair["fair_cost"]) and W.gap_text(fair).startswith("no crossing")


def test_the_fair_cost_table_writes_its_slope_in_pp_per_coin(components, monkeypatch):
    """The fitted slope is a share of win per coin (0.02 planted): written bare as `slope`, 0.02 stood
    among the _pct and _pp columns of the machine formats as if it were 0.02 pp."""
    from hadara_sim.report.component_sections import _worth
    from hadara_sim.report.sections import Section

    printed = components.cards[components.card_index["II-B-02"]].cost
    monkeypatch.setattr(W, "restricted_pairs", lambda df: planted(printed + 1.5, printed, seed=2))
    section = Section("cards", "cards", "")
    _worth(section, pl.DataFrame(), components, {"scenario": "worth"}, 5, 0.02)
    [fair] = [t for t in section.tables if "fair cost" in t.title]
    out = fair.machine()
    assert "slope" not in out.columns
    # titles count in words: "(2 cells of card, player count and cost)", not "(2 card, player count and cost
    # cells)"; and "(all 1 in --format csv/json)" said of a table that shows its every row
    [worth] = [t for t in section.tables if t.title.startswith("Experiment: what a card is worth")]
    assert re.search(r"\(\d+ cells? of card, player count and cost\)$", worth.title), worth.title
    assert len(fair.rows) == out.height and "(all " not in fair.title, fair.title
    # 5 x 0.02 of win share per coin among the fifth of deals that differ: -2 pp per coin
    assert out["slope_per_coin_pp"][0] == pytest.approx(-2.0, abs=0.6)


def test_the_costs_of_restricted_play_are_named_in_coins(components, monkeypatch):
    """The fair cost and its gap went to csv and json as bare `fair_cost` and `gap` (and the printed cost
    and the cost played as `printed_cost`, `cost`): numbers of coins that did not say so."""
    from hadara_sim.report.component_sections import _worth
    from hadara_sim.report.sections import Section

    printed = components.cards[components.card_index["II-B-02"]].cost
    monkeypatch.setattr(W, "restricted_pairs", lambda df: planted(printed + 1.5, printed, seed=2))
    section = Section("cards", "cards", "")
    _worth(section, pl.DataFrame(), components, {"scenario": "worth"}, 5, 0.02)
    [worth] = [t.machine() for t in section.tables if "seek - avoid" in t.title]
    [fair] = [t.machine() for t in section.tables if "fair cost" in t.title]
    assert {"printed_cost_coins", "cost_change_coins", "cost_coins"} <= set(worth.columns)
    assert {"printed_cost_coins", "fair_cost_coins", "fair_cost_low_coins", "fair_cost_high_coins",
            "gap_coins"} <= set(fair.columns)
    assert not {"fair_cost", "fair_low", "fair_high", "gap", "printed_cost", "cost"} & set(worth.columns + fair.columns)
    row = fair.row(0, named=True)
    assert row["gap_coins"] == pytest.approx(row["fair_cost_coins"] - printed)
    assert row["fair_cost_low_coins"] < row["fair_cost_coins"] < row["fair_cost_high_coins"]


def test_a_gap_whose_interval_holds_the_printed_cost_is_not_called_worth_more(components, monkeypatch):
    """The caption said "fair - printed above 0: the card is worth more than it costs" of every row, also
    of a card level at its price whose point estimate sat a little above it; it says which rows show it."""
    from hadara_sim.report.component_sections import _worth
    from hadara_sim.report.sections import Section

    printed = components.cards[components.card_index["II-B-02"]].cost
    monkeypatch.setattr(W, "restricted_pairs", lambda df: planted(printed, printed))
    section = Section("cards", "cards", "")
    _worth(section, pl.DataFrame(), components, {"scenario": "worth"}, 5, 0.02)
    [fair] = [t for t in section.tables if "fair cost" in t.title]
    assert fair.marked == [False]  # level at its price: the CI holds the printed cost
    assert "the card is worth more than it costs" not in fair.caption
    assert "only where the 95% CI excludes the printed cost (marked" in fair.caption


def test_the_fair_cost_table_says_its_marks_are_not_corrected_and_names_its_field(components, monkeypatch):
    """The fair-cost table marked a card wherever its own 95% CI excluded the printed cost, over every card
    of the run (218 at 2 and 4 players) and among the largest gaps, without saying that no correction over
    the table was applied; its field was "the policy field played", unnamed."""
    from hadara_sim.report.component_sections import _worth
    from hadara_sim.report.sections import Section

    printed = components.cards[components.card_index["II-B-02"]].cost
    monkeypatch.setattr(W, "restricted_pairs", lambda df: planted(printed, printed + 2))
    section = Section("cards", "cards", "")
    _worth(section, pl.DataFrame(), components, {"scenario": "worth", "policies": ["greedy"]}, 5, 0.02)
    [fair] = [t for t in section.tables if "fair cost" in t.title]
    assert "not corrected over the table (1 row)" in fair.caption
    assert "the marks hold for the policy field played (greedy)" in fair.caption


SCENARIO = """
    name = "worth"
    players = 2
    game = "advanced"
    policies = ["greedy"]
    games = 24
    seed = 3
    chunk = 24
    [sweep]
    restrict = ["none", {seek = ["I-B-01"]}, {avoid = ["I-B-01"]}]
    "restrict.cost" = [-1, 1]
"""


def test_a_restriction_sweep_plays_one_rotating_seat_on_the_control_deals(tmp_path, components):
    path = tmp_path / "worth.toml"
    path.write_text(textwrap.dedent(SCENARIO))
    scenario = load_scenario(path)
    changed = {c.sweep["restrict.cost"]: c.config.components for c in scenario.combinations
               if c.config.restriction is not None}
    printed = components.cards[components.card_index["I-B-01"]].cost
    assert {k: v.cards[v.card_index["I-B-01"]].cost for k, v in changed.items()} == {-1: printed - 1, 1: printed + 1}
    df = hadara_sim.simulate(path, quiet=True, out=tmp_path / "run")
    restricted = df.filter(pl.col("seek").is_not_null() | pl.col("avoid").is_not_null())
    assert (restricted["seat"] == restricted["game"] % 2).all()
    assert restricted.height == 4 * 24  # one seat of each game of the 4 restricted combinations
    assert set(restricted["cost_change"].to_list()) == {-1, 1}
    assert (df.filter(pl.col("sweep_restrict") == "none")["cost_change"] == 0).all()
    section = cards_section(df, {"components_path": None, "scenario": "worth"}, top=5)
    titles = [t.title for t in section.tables]
    assert any("seek - avoid" in t for t in titles) and any("fair cost" in t for t in titles)
    assert len(section.tables[-1].data) == 0 or "card_id" in section.tables[-1].data.columns


def test_a_run_under_two_fields_has_a_worth_per_field_never_one_pooled_over_them(tmp_path, components):
    """`report cards` on a card-worth run that also swept the opponent field gave one seek - avoid and one
    fair cost per card, pooled over the fields, under a caption saying it held for the field played."""
    printed = components.cards[components.card_index["II-B-02"]].cost
    pairs = pl.concat([planted(printed + 2, printed, seed=4).with_columns(pl.lit("balanced").alias("field")),
                       planted(printed - 2, printed, seed=5).with_columns(pl.lit("greedy").alias("field"))])
    fair = {r["field"]: r for r in W.fair_costs(pairs, components).to_dicts()}
    assert fair["balanced"]["fair_low"] > printed > fair["greedy"]["fair_high"]
    worth = W.seek_avoid(pairs, components)
    assert worth.height == 6 and worth.group_by("field").len()["len"].to_list() == [3, 3]
    path = tmp_path / "fields.toml"
    path.write_text(textwrap.dedent(SCENARIO).replace('"restrict.cost" = [-1, 1]',
                                                      'policies = [["greedy"], ["random"]]'))
    df = hadara_sim.simulate(path, quiet=True, out=tmp_path / "run")
    assert set(W.restricted_pairs(df)["field"]) == {"greedy", "random"}
    section = cards_section(df, {"components_path": None, "scenario": "fields"}, top=5)
    table = next(t for t in section.tables if "seek - avoid" in t.title)
    assert "field" in table.columns and {r[2] for r in table.rows} == {"greedy", "random"}
    # and whether each worth depends on the bots: the interaction test of the setup and purple reports
    robust = next(t for t in section.tables if t.title.startswith("Does each effect hold under every opponent field? "
                                                                   "A card's worth"))
    assert set(robust.data["robust"]) <= {"robust", "depends on the bots", "undecided"}
    assert robust.data.height == W.seek_avoid(W.restricted_pairs(df), components).height // 2


@pytest.mark.parametrize("restrict, where, message", [
    ('{seek = ["I-B-99"]}', "restrict.seek[0]", "no card 'I-B-99'"),
    ('{seek = ["I-B-01"], avoid = ["I-B-01"]}', "restrict", "in both seek and avoid"),
    ('{avoid = ["I-Y-01"], cost = -9}', "restrict.cost", "makes it negative"),
    ('{seek = ["I-B-01"], seats = 1}', "restrict", "seats"),
    ('"some"', "restrict", "expected \"none\" or a table"),
])
def test_a_bad_restriction_is_named_by_file_and_field(tmp_path, restrict, where, message):
    path = tmp_path / "bad.toml"
    path.write_text(f'policies = ["greedy"]\nrestrict = {restrict}\n')
    with pytest.raises(ScenarioError) as err:
        load_scenario(path)
    text = str(err.value)
    assert where in text and message in text and "bad.toml:2" in text


def test_a_policy_parameter_naming_an_unknown_card_is_refused(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('policies = [{policy = "greedy", params = {avoid = ["II-Q-01"]}}]\n')
    with pytest.raises(ScenarioError, match=r"policies\[0\]\.params\.avoid\[0\].*no card 'II-Q-01'"):
        load_scenario(path)


def test_a_card_that_changed_no_game_has_no_crossing_and_no_error(components):
    """A tiny run: seeking and avoiding gave the same result in every deal at every cost."""
    pairs = planted(6, 6, deals=5).with_columns(pl.col("win_avoid").alias("win_seek"))
    fair = W.fair_costs(pairs, components).row(0, named=True)
    assert np.isnan(fair["fair_cost"]) and W.gap_text(fair) == "no crossing (the difference does not move with the cost)"


def test_a_difference_that_differs_by_deal_but_not_by_cost_has_no_crossing(components):
    """Each deal's difference the same at every cost, the deals unlike: the fitted slope is rounding, and
    was tested as a slope (a 3-game card-worth run: p = 0, "significant", a fair cost of 2.5e16 in the json)."""
    pairs = planted(6, 6, deals=40)
    level = (pairs["game"] % 3 == 0).cast(pl.Float64)  # deal by deal, whatever the cost
    fair = W.fair_costs(pairs.with_columns(win_seek=level, win_avoid=0.0), components).row(0, named=True)
    assert np.isnan(fair["fair_cost"]) and np.isnan(fair["slope_p"]) and abs(fair["slope"]) < 1e-12
    assert W.gap_text(fair) == "no crossing (the difference does not move with the cost)"

"""The designs behind the verdicts, against known truths: null designs mark no more than the stated
false-discovery rate, a planted stronger setup card is recovered by the paired contrast, seats and
ratings read what was built into the data, and scenarios default to rotated seats."""

import shutil
import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import hadara_sim
from hadara_sim.component_files import load_components
from hadara_sim.deal import make_deals
from hadara_sim.report import ratings
from hadara_sim.report.dataset import dataset_info
from hadara_sim.report.estimates import with_verdicts
from hadara_sim.report.setup import (focus_seat_rates, setup_card_balance, setup_card_contrasts, setup_rows,
                                     setup_side_contrasts)
from hadara_sim.report.wins import first_player_rates, seat_rates, sweep_contrasts, win_rates
from hadara_sim.scenario.checks import DesignWarning
from hadara_sim.scenario.read import parse_scenario

from report_data import setup_grid

DATA = Path(hadara_sim.__file__).parent / "data" / "default"


def test_null_setup_grid_marks_at_most_the_stated_false_discovery_rate():
    """Cards without effect: under the complete null, Benjamini-Hochberg at 5 % keeps the share of
    tables with any mark (every mark is false) at about 5 %."""
    rng = np.random.default_rng(20261123)
    reps, marked_tables, marks = 60, 0, 0
    for _ in range(reps):
        df = setup_grid(rng, deals=60)
        tables = [setup_card_balance(df), setup_side_contrasts(df), setup_card_contrasts(df)]
        any_mark = any(t["significant"].any() for t in tables)
        marked_tables += any_mark
        marks += sum(int(t["significant"].sum()) for t in tables)
        assert not any(t["verdict"].str.starts_with("fair").any() for t in tables)  # 60 deals prove nothing fair
    # 3 tables per run at 5 % each: at most ~15 % of runs with a mark; 26 % would fail this.
    assert marked_tables / reps <= 0.25, (marked_tables, marks)
    assert marks / (reps * (10 + 5 + 10)) <= 0.02


def test_null_win_rates_of_identical_policies_mark_at_most_the_fdr():
    """Eight labels of one coin-flip policy, one seat each in a 2-player game: no label is better."""
    rng = np.random.default_rng(7)
    marked = 0
    for _ in range(60):
        g = np.repeat(np.arange(400), 2)
        win = rng.random(400) < 0.5
        df = pl.DataFrame({"game": g, "players": np.full(800, 2, np.int8),
                           "win_share": np.column_stack([win, ~win]).ravel().astype(float),
                           "policy_label": [f"p{(x + s) % 8}" for x in range(400) for s in range(2)]})
        out = with_verdicts(win_rates(df, ["policy_label"]))
        marked += bool(out["significant"].any())
    assert marked / 60 <= 0.15


def test_a_planted_card_is_judged_against_the_fair_share_and_the_average_side_in_synthetic_data():
    df = setup_grid(np.random.default_rng(3), deals=400, players=2, effect={(3, "A"): 0.15})
    out = setup_card_balance(df)
    planted = out.filter((pl.col("setup_card") == 3) & (pl.col("setup_side") == "A")).to_dicts()[0]
    assert planted["verdict"] == "stronger" and planted["diff_low"] > 0.05
    assert planted["rel_verdict"] == "above the average side" and planted["rel_low"] > 0
    # only the planted cell is above the fair share; the others sit 1.5 pp under the average it raised
    assert out.filter(pl.col("verdict") == "stronger")["setup_card"].to_list() == [3]
    assert out.filter(pl.col("setup_card") != 3)["rel_diff"].mean() == pytest.approx(-0.15 / 10, abs=0.01)
    sides = setup_side_contrasts(df).filter(pl.col("setup_card") == 3).to_dicts()[0]
    assert sides["diff"] < 0 and sides["verdict"] == "weaker"  # B is worse than the planted A


def test_a_forced_side_below_the_average_is_not_called_fair_against_the_average():
    """Every cell 5 pp under the fair share (the average side sits there too): the relative
    contrast calls the cells level with the average side, the verdict against 1/P calls them weaker."""
    df = setup_grid(np.random.default_rng(4), deals=3000, players=2, effect={
        (card, side): -0.05 for card in range(1, 6) for side in "AB"})
    out = setup_card_balance(df, margin=0.04)
    assert (out["verdict"] == "weaker").all()
    assert (out["rel_verdict"] == "level with the average side (±4 pp)").all()


def test_paired_contrast_recovers_a_card_made_stronger_in_a_component_set(tmp_path):
    """Setup card 3 side A edited to hand out far more coins and income: the grid finds it."""
    components = tmp_path / "strong-3a"
    shutil.copytree(DATA, components)
    sheet = components / "setup_cards.csv"
    lines = sheet.read_text().splitlines()
    lines = [("3,A,25,6,4,4,6," if line.startswith("3,A,") else line) for line in lines]
    sheet.write_text("\n".join(lines) + "\n")
    scenario = {"players": 2, "game": "basic", "policies": ["greedy"], "games": 160, "seed": 12, "chunk": 160,
                "components": str(components), "setup": {"cards": "grid"}}
    df = hadara_sim.simulate(scenario, jobs=1)
    out = setup_card_balance(df)
    three = out.filter(pl.col("setup_card") == 3).to_dicts()[0]
    assert three["verdict"] == "stronger" and three["diff_low"] > 0
    assert three["rel_verdict"] == "above the average side" and three["rel_low"] > 0
    others = out.filter(pl.col("setup_card") != 3)
    assert (others["diff"] < three["diff"]).all()
    cards = setup_card_contrasts(df)
    assert (cards.filter(pl.col("card") == 3)["diff"] > 0).all() and (cards.filter(pl.col("other") == 3)["diff"] < 0).all()
    # the focus seat rotates: both seats are the focus in half of the deals
    assert sorted(focus_seat_rates(df)["n"].to_list()) == [80, 80]


def test_focus_seat_rotates_with_the_deal_in_a_real_grid():
    scenario = {"players": 3, "game": "advanced", "policies": ["greedy"], "games": 6, "seed": 1, "chunk": 6,
                "setup": {"cards": "grid", "sides": "grid"}}
    df = hadara_sim.simulate(scenario, jobs=1)
    rows, design = setup_rows(df)
    assert design == "experimental"
    assert (rows["seat"] == rows["game"] % 3).all()
    assert (rows["setup_card"] == rows["sweep_setup_card"]).all()
    assert (rows["setup_side"] == rows["sweep_setup_side"]).all()


# --- seats and ratings ------------------------------------------------------------------------

def _seat_games(n: int = 2000, p0: float = 0.6) -> pl.DataFrame:
    rng = np.random.default_rng(1)
    seat0 = rng.random(n) < p0
    first = rng.integers(0, 2, n)
    rows = {"game": np.repeat(np.arange(n), 2), "seat": np.tile([0, 1], n).astype(np.int8),
            "players": np.full(2 * n, 2, np.int8), "combo": np.zeros(2 * n, np.int32),
            "win_share": np.column_stack([seat0, ~seat0]).ravel().astype(float),
            "policy_label": ["p"] * (2 * n)}
    for e in (1, 2, 3):
        rows[f"first_player_epoch{e}"] = (np.tile([0, 1], n) == np.repeat(first if e == 1 else 1 - first, 2))
    return pl.DataFrame(rows)


def test_seat_rates_find_the_seat_advantage_and_first_players():
    df = _seat_games()
    seats = seat_rates(df)
    s0 = seats.filter(pl.col("seat") == 0).to_dicts()[0]
    assert s0["mean"] == pytest.approx(0.6, abs=0.03) and s0["verdict"] == "stronger"
    assert seats.filter(pl.col("seat") == 1)["verdict"].to_list() == ["weaker"]
    firsts = first_player_rates(df)
    assert firsts["epoch"].to_list() == [1, 2, 3]
    assert firsts.filter(pl.col("epoch") == 1)["n"].item() == 2000  # one first player per game


def test_fair_within_the_margin_is_its_own_verdict():
    df = _seat_games(n=40000, p0=0.5)
    assert set(seat_rates(df)["verdict"]) == {"fair within ±2 pp"}
    small = _seat_games(n=100, p0=0.5)
    assert set(seat_rates(small)["verdict"]) == {"undecided"}  # not significant is not fair


def test_bradley_terry_orders_policies_by_built_in_strength():
    rng = np.random.default_rng(5)
    strength = {"strong": 1.0, "middle": 0.0, "weak": -1.0}
    rows = []
    names = list(strength)
    for g in range(1500):
        a, b = rng.choice(3, 2, replace=False)
        pa = 1 / (1 + np.exp(-(strength[names[a]] - strength[names[b]])))
        a_wins = rng.random() < pa
        rows += [dict(combo=0, game=g, players=2, seat=0, policy_label=names[a], rank=1 if a_wins else 2,
                      win_share=float(a_wins)),
                 dict(combo=0, game=g, players=2, seat=1, policy_label=names[b], rank=2 if a_wins else 1,
                      win_share=float(not a_wins))]
    df = pl.DataFrame(rows)
    pairs = ratings.pairwise(df)
    bt = ratings.bradley_terry(pairs)
    assert bt["policy"].to_list() == ["strong", "middle", "weak"]
    strong = bt.row(0, named=True)
    assert strong["rating"] == pytest.approx(1.0, abs=0.2) and strong["low"] < 1.0 < strong["high"] + 0.2
    h2h = ratings.head_to_head(pairs)
    sw = h2h.filter((pl.col("policy") == "strong") & (pl.col("opponent") == "weak")).to_dicts()[0]
    assert sw["share"] == pytest.approx(1 / (1 + np.exp(-2)), abs=0.06) and sw["significant"]
    fin = ratings.finishing(df)
    assert fin.filter(pl.col("policy") == "strong")["rank"].item() < 1.5



def test_one_policy_has_empty_ratings_and_an_empty_matrix():
    """A mirror (one policy on every seat) has no comparison: bradley_terry gave an empty frame and
    head_to_head stopped inside polars (no column "policy"); both are empty, with their columns."""
    rows = [dict(combo=0, game=g, players=2, seat=s, policy_label="greedy", rank=1 + s, win_share=float(s == 0))
            for g in range(10) for s in range(2)]
    pairs = ratings.pairwise(pl.DataFrame(rows))
    assert ratings.bradley_terry(pairs).is_empty()
    h2h = ratings.head_to_head(pairs)
    assert h2h.is_empty() and {"policy", "opponent", "share", "q", "significant"} <= set(h2h.columns)

def test_a_policy_that_never_wins_gets_a_bounded_rating_under_a_stated_prior():
    """Separation: "never" loses every game. The plain fit would diverge with a tight interval;
    the weak prior (one tied comparison per pair) gives a finite rating with a wide interval."""
    rng = np.random.default_rng(8)
    rows = []
    for g in range(600):
        a, b = sorted(rng.choice(["even1", "even2", "never"], 2, replace=False))
        a_wins = b == "never" or rng.random() < 0.5
        rows.append(dict(policy=a, opponent=b, result=float(a_wins), game=g, players=2))
    pairs = pl.DataFrame(rows)
    assert ratings.separated(*[np.array([{"even1": 0, "even2": 1, "never": 2}[n] for n in pairs[c]])
                               for c in ("policy", "opponent")], pairs["result"].to_numpy(), 3)
    bt = ratings.bradley_terry(pairs)
    never = bt.filter(pl.col("policy") == "never").to_dicts()[0]
    assert bt["prior"].all() and -12 < never["rating"] < -2 and never["high"] - never["low"] > 0.5
    assert not ratings.bradley_terry(pairs.filter(pl.col("opponent") != "never"))["prior"].any()


def test_the_ladder_corrects_over_unordered_pairs():
    from hadara_sim.component_files import load_components
    from hadara_sim.ladder import ladder
    from hadara_sim.report.inference import adjust

    frame = ladder(load_components(), ["greedy", "random", "economy"], player_counts=(2,), games=24, seed=3)
    forward = frame.filter(pl.col("policy") < pl.col("opponent")).sort(["policy", "opponent"])
    backward = frame.filter(pl.col("policy") > pl.col("opponent")).sort(["opponent", "policy"])
    assert forward["q"].to_list() == backward["q"].to_list()  # both orderings of a pair: one test
    assert forward["q"].to_numpy() == pytest.approx(adjust(forward["p_value"], "holm"))


# --- scenario defaults ------------------------------------------------------------------------

def test_policies_rotate_by_default_and_fixed_seats_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error", DesignWarning)
        sc = parse_scenario('players = 2\npolicies = ["greedy", "random"]\n')
    assert sc.combinations[0].config.assignment == "rotated"
    with pytest.warns(DesignWarning, match="2 different policies on fixed seats"):
        parse_scenario('players = 2\npolicies = ["greedy", "random"]\nassignment = "fixed"\n')
    with warnings.catch_warnings():
        warnings.simplefilter("error", DesignWarning)
        parse_scenario('players = 2\npolicies = ["greedy"]\nassignment = "fixed"\n')  # one policy: no bias


def test_a_kept_out_card_leaves_the_other_cards_in_their_order():
    c = load_components()
    full = make_deals(c, 3, 50, seed=4, advanced=True)
    card = c.card_index["I-P-08"]
    kept = make_deals(c, 3, 50, seed=4, advanced=True, exclude=[card])
    assert (kept.initiative == full.initiative).all() and (kept.colonies == full.colonies).all()
    purple_i = (0, 4)
    for g in range(50):
        before = [x for x in full.decks[g][purple_i].tolist() if x != card]
        assert kept.decks[g][purple_i].tolist()[:len(before)] == before
        assert card not in kept.decks[g][purple_i].tolist()
    others = np.ones(5, bool)
    others[4] = False
    assert (kept.decks[:, :, others] == full.decks[:, :, others]).all()


def test_sweep_values_are_compared_with_the_first_value_on_the_same_deals():
    """A swept parameter of policy 0: at x = 2 policy 0 wins every game, at x = 1 half of them."""
    rows = []
    combos = [{"index": 0, "sweep": {"x": 1}}, {"index": 1, "sweep": {"x": 2}}]
    for combo, x in ((0, 1), (1, 2)):
        for g in range(200):
            win0 = 1.0 if x == 2 else float(g % 2)
            for seat in range(2):
                index = (seat + g) % 2  # rotated: policy 0 sits in seat g mod 2
                rows.append(dict(combo=combo, game=g, seat=seat, players=2, policy_index=index,
                                 policy_label=f"p{index}(x={x})" if index == 0 else "p1",
                                 win_share=win0 if index == 0 else 1 - win0, sweep_x=x))
    df = pl.DataFrame(rows, schema_overrides={"players": pl.Int8, "policy_index": pl.Int8})
    tables = sweep_contrasts(df)
    tab = tables["sweep_x"]
    p0 = tab.filter(pl.col("policy_index") == 0).row(0, named=True)
    assert p0["first"] == "1" and p0["policy"] == "p0(x=2)" and p0["n"] == 200
    assert p0["diff"] == pytest.approx(0.5) and p0["verdict"] == "stronger"
    assert tab.filter(pl.col("policy_index") == 1)["verdict"].to_list() == ["weaker"]
    assert sweep_contrasts(df.with_columns(pl.lit(0, pl.Int8).alias("policy_index"))) == {}


def test_a_grid_under_three_fields_reads_them_as_a_ladder_in_the_order_swept():
    from hadara_sim.report import component_sections

    scenario = {"players": 2, "game": "advanced", "policies": ["balanced"], "games": 8, "seed": 3, "chunk": 8,
                "setup": {"cards": "grid", "sides": "grid"},
                "sweep": {"policies": [["random"], ["greedy"], ["balanced"]]}}
    df = hadara_sim.simulate(scenario, jobs=1)
    section = component_sections.setup_cards(df, dataset_info(df))
    titles = [t.title for t in section.tables if t is not None]
    ladders = [t for t in titles if t.startswith("Does each effect settle")]
    assert len(ladders) == 2 and all("random < greedy < balanced" in t for t in ladders)
    # the side B - A ladder drawn: a line per card over the fields in the order swept, each labelled
    # with its last step's word from the ladder table
    figures = dict(section.figures)
    ax = figures["setup-sides-ladder"].axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["random", "greedy", "balanced"]
    table = next(t for t in section.tables if t.title.startswith("Does each effect settle as the fields grow stronger? Side B"))
    words = dict(zip(table.data["setup_card"].to_list(), table.data["robust"].to_list()))
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [f"card {c}: {w}" for c, w in sorted(words.items())]


def test_a_grant_sweep_under_three_fields_reads_them_as_a_ladder_in_the_order_swept():
    """Both purple ladders (granted vs none, effect vs placebo) list the fields in the order swept,
    not alphabetically."""
    from hadara_sim.report import component_sections

    scenario = {"players": 3, "game": "advanced", "policies": ["balanced"], "games": 12, "seed": 3, "chunk": 12,
                "sweep": {"policies": [["random"], ["greedy"], ["balanced"]],
                          "grants": ["none", "I-P-07", "I-P-08", "sell_bonus"]}}
    df = hadara_sim.simulate(scenario, jobs=1)
    section = component_sections.purple(df, dataset_info(df))
    ladders = [t.title for t in section.tables if t is not None and t.title.startswith("Does each effect settle")]
    assert len(ladders) == 2 and all("random < greedy < balanced" in t for t in ladders)


def test_the_cards_section_reads_a_frame_of_one_seat_per_game():
    """A notebook's frame filtered to one seat: a colony no seat of it took has no deals (n null), which
    stopped the section (and the summary) with a TypeError formatting None."""
    from hadara_sim.report import component_sections
    from hadara_sim.report.dataset import dataset_info

    df = hadara_sim.simulate({"players": 2, "policies": ["balanced", "greedy"], "games": 20, "chunk": 20}, jobs=1)
    one_seat = df.filter(pl.col("seat") == 0)
    section = component_sections.cards(one_seat, dataset_info(one_seat, {"scenario": {"name": "one seat"}}))
    assert any(t.title.startswith("Observational: colony tiles") for t in section.tables)


def test_the_card_against_card_table_names_its_two_shares():
    """It wrote a_pct and b_pct: whose win shares, csv and json did not say (the side table names its
    side_b_pct and side_a_pct)."""
    from hadara_sim.report import component_sections

    df = setup_grid(np.random.default_rng(5), deals=40)
    section = component_sections.setup_cards(df, dataset_info(df))
    written = next(t for t in section.tables if t.title.startswith("Setup cards: card against card")).machine()
    assert {"card", "other", "card_win_pct", "other_win_pct"} <= set(written.columns)
    assert not {"a_pct", "b_pct"} & set(written.columns)
    assert written["diff_pp"].to_numpy() == pytest.approx((written["card_win_pct"] - written["other_win_pct"]).to_numpy())

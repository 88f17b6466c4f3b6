"""What each seat did with the cards (the `bought`, `sold`, `fed_away`, `offered` lists and the
colony tiles), and `report cards` built on them: every card in exactly one place at the end, the
lists agreeing with the reference engine's replay, a card grant equal to the effect grant, and the
statistics recovering what was planted."""

import json
import re
import shutil

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from typer.testing import CliRunner

from hadara_sim import card_events, load_components, load_results, simulate
from hadara_sim.cli import app
from hadara_sim.constants import LOC_OWNED, LOC_REMOVED, LOC_SOLD
from hadara_sim.results import ResultsError, card_sets, decode_cards, encode_cards
from hadara_sim.report import cards as K
from hadara_sim.report.grants import card_grant_pairs, grant_table
from hadara_sim.sample import sample_game

import report_data as R

COMPONENTS = load_components()
CARDS_PER_SEAT = 30  # 5 draws and 5 picks in each of three epochs, each a card bought or sold


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Small real runs: 2 and 5 players basic, 3 players advanced with a grant of a purple card."""
    base = tmp_path_factory.mktemp("cards")
    out = {"paths": {}}
    for name, scenario in {
        "two": {"players": 2, "game": "basic", "policies": ["balanced", "greedy"], "assignment": "rotated"},
        "five": {"players": 5, "game": "basic", "policies": ["balanced"]},
        "three": {"players": 3, "game": "advanced", "policies": ["balanced", "random", "economy"],
                  "sweep": {"grants": ["none", "feed_with_coins", "II-P-07"]}},
    }.items():
        simulate({"name": name, "games": 24, "chunk": 12, "seed": 8, **scenario}, out=base / name, jobs=1, quiet=True)
        out[name], out["paths"][name] = load_results(base / name), base / name
    return out


@pytest.mark.parametrize("name", ["two", "five", "three"])
def test_every_card_is_in_exactly_one_place(runs, name):
    df = runs[name]
    players = int(df["players"][0])
    points = np.array([c.points for c in COMPONENTS.cards])
    for raw in df.iter_rows(named=True):
        row = {**raw, **{k: decode_cards(raw[k]) for k in ("bought", "bought_in_b", "sold", "fed_away", "offered")}}
        assert len(row["bought"]) + len(row["sold"]) == CARDS_PER_SEAT
        assert set(row["bought_in_b"]) <= set(row["bought"]) and not set(row["bought"]) & set(row["sold"])
        granted = [COMPONENTS.card_index[g] for g in (row["granted"] or "").split(",") if g]
        assert set(row["fed_away"]) <= set(row["bought"]) | set(granted)
        assert set(row["bought"]) <= set(row["offered"])
        owned = (set(row["bought"]) | set(granted)) - set(row["fed_away"])
        for colour, count in zip(("yellow", "red", "blue", "green", "purple"), np.bincount(
                [COMPONENTS.cards[i].colour for i in owned], minlength=5)):
            assert row[f"cards_{colour}"] == count
        assert row["cards"] == points[list(owned)].sum()  # the score line: points printed on owned cards
    for _, game in df.group_by("combo", "game"):
        taken = [c for row in game.iter_rows(named=True) for c in decode_cards(row["bought"]) + decode_cards(row["sold"])]
        assert len(taken) == len(set(taken)) == CARDS_PER_SEAT * players  # every dealt card taken once


def test_card_lists_agree_with_the_reference_engine(runs):
    """The reference engine's replay of a game ends with every card where the lists say."""
    df, results = runs["two"], runs["paths"]["two"]
    for game in (0, 7):
        sample = sample_game(results, game)
        location = np.array([r for r in sample.records if r["type"] == "state"][-1]["state"]["location"])
        rows = df.filter(pl.col("game") == game).sort("seat").iter_rows(named=True)
        sold, removed = set(), set()
        for row in rows:
            kept = set(decode_cards(row["bought"])) - set(decode_cards(row["fed_away"]))
            assert kept == set(np.flatnonzero(location == LOC_OWNED + row["seat"]).tolist())
            sold |= set(decode_cards(row["sold"]))
            removed |= set(decode_cards(row["fed_away"]))
        assert sold == set(np.flatnonzero(location == LOC_SOLD).tolist())
        assert removed == set(np.flatnonzero(location == LOC_REMOVED).tolist())


def test_granting_a_purple_card_by_id_equals_granting_its_effect(runs, tmp_path):
    df = runs["three"]
    by_id = COMPONENTS.cards[COMPONENTS.effect_card["feed_with_coins"]].id
    simulate({"name": "three", "players": 3, "game": "advanced", "policies": ["balanced", "random", "economy"],
              "games": 24, "chunk": 12, "seed": 8, "sweep": {"grants": ["none", by_id, "II-P-07"]}},
             out=tmp_path / "by-id", jobs=1, quiet=True)
    other = load_results(tmp_path / "by-id")
    keep = [c for c in df.columns if not c.startswith("sweep") and c not in ("sweep", "policy_params")]
    assert df.select(keep).equals(other.select(keep))


def test_card_events_decodes_the_lists(runs):
    df = runs["two"].filter(pl.col("game") == 3)
    events = card_events(df, COMPONENTS)
    for row in df.iter_rows(named=True):
        for event in ("offered", "bought", "sold", "fed_away"):
            mine = events.filter(event=event, seat=row["seat"])["card"].to_list()
            assert mine == decode_cards(row[event]) and encode_cards(mine, COMPONENTS.n_cards) == row[event]
        in_b = events.filter(event="bought", seat=row["seat"], when_phase="B")["card"].to_list()
        assert in_b == decode_cards(row["bought_in_b"])
    bought = events.filter(event="bought")
    assert set(bought["when_phase"]) == {"A", "B"} and (bought["card_epoch"] == bought["when_epoch"]).all()
    assert events.filter(event="sold")["when_phase"].is_null().all()


@pytest.mark.parametrize("change, said, call", [
    (lambda df: df.drop("offered"), "but here offered is missing", card_events),
    (lambda df: df.with_columns(bought=pl.lit(3)), "but here bought is Int32", card_events),
    (lambda df: df.with_columns(bought=pl.lit(3)), "but here bought is Int32", K.card_table),
    (lambda df: df.with_columns(bought=pl.lit(None, pl.Binary)), "but here bought is all null", card_sets),
    (lambda df: df.with_columns(sold=pl.lit(None, pl.Binary)), "but here sold is all null", K.card_table),
], ids=["card_events, a column dropped", "card_events, a column of numbers", "card_table, a column of numbers",
        "card_sets, bought all null", "card_table, sold all null"])
def test_card_events_names_a_card_column_it_cannot_read(runs, change, said, call):
    """A frame without `offered` stopped inside polars ('"offered" not found'), one with `bought` of
    numbers in a SchemaError ('expected `Binary`'), in card_events as in report.cards.card_table. A
    `bought` all null was named as bought_in_b ('a card bought in phase B that is not in bought')."""
    df = change(runs["two"])
    with pytest.raises(ResultsError, match=f"are bit sets \\(Binary\\), {said}: give the frame load_results"):
        call(df, COMPONENTS)


# --- the statistics on hand-made data ---------------------------------------------------------

def _planted(deals: int, strong: int, weak: int, seed: int = 0, edge: float = 0.8) -> pl.DataFrame:
    """2-player games in which both seats are offered cards `strong` and `weak` and one seat buys
    each: the buyer of `strong` wins a share `edge` of the games, the buyer of `weak` half."""
    rng = np.random.default_rng(seed)
    rows = []
    for game in range(deals):
        strong_seat = int(rng.integers(2))
        weak_seat = int(rng.integers(2))
        winner = strong_seat if rng.random() < edge else 1 - strong_seat
        for seat in range(2):
            bought = sorted([c for c, s in ((strong, strong_seat), (weak, weak_seat)) if s == seat])
            rows.append({"game": game, "seat": seat, "players": 2, "win_share": float(seat == winner),
                         "total": 100 + 10 * (seat == winner), "bought": encode_cards(bought, COMPONENTS.n_cards),
                         "offered": encode_cards([strong, weak], COMPONENTS.n_cards),
                         **{f"colony_tile{k}": -1 for k in range(1, 6)}, **{f"statue{k}": -1 for k in range(1, 5)}})
    return R.frame(rows)


def test_card_table_recovers_planted_buyer_advantages():
    strong, weak = COMPONENTS.card_index["I-B-01"], COMPONENTS.card_index["I-R-02"]
    table = K.card_table(_planted(400, strong, weak), COMPONENTS)
    row = {r["card_id"]: r for r in table.to_dicts()}
    assert row["I-B-01"]["win_low"] > 0.5 and row["I-B-01"]["win_diff"] == pytest.approx(0.6, abs=0.1)
    assert row["I-B-01"]["win_significant"] and row["I-B-01"]["n"] == 400
    # The weak card's buyer is independent of the winner here: no difference.
    assert row["I-R-02"]["win_low"] < 0 < row["I-R-02"]["win_high"]
    assert row["I-B-01"]["offered"] == row["I-B-01"]["bought"] == 1.0 and row["I-B-01"]["take_rate"] == 1.0
    # The n behind each share: 400 games of 400 deals, the card offered in all and bought once in each.
    assert (row["I-B-01"]["games"], row["I-B-01"]["deals"], row["I-B-01"]["offered_games"],
            row["I-B-01"]["purchases"]) == (400, 400, 400, 400)
    assert table["card_id"].to_list()[0] == "I-B-01"  # strongest first


def test_buyers_and_passers_are_those_of_a_polars_group_by():
    """The per-game means behind the card table, taken in numpy, equal the straightforward polars
    computation (offers joined with purchases, grouped by game and card), to rounding."""
    rng = np.random.default_rng(3)
    rows = []
    for game in range(300):
        offered = rng.random((4, 8)) < 0.6
        buyer = [int(rng.choice(np.flatnonzero(offered[:, c]))) if offered[:, c].any() and rng.random() < 0.7
                 else -1 for c in range(8)]
        for seat in range(4):
            rows.append({"game": game, "seat": seat, "players": 4, "policy_label": "ab"[seat % 2],
                         "win_share": float(rng.random()) / 3, "total": int(rng.integers(80, 200)),
                         "offered": encode_cards(np.flatnonzero(offered[seat]).tolist(), COMPONENTS.n_cards),
                         "bought": encode_cards([c for c in range(8) if buyer[c] == seat], COMPONENTS.n_cards)})
    df = R.frame(rows)
    game_index = df["game"].to_numpy()
    seats = df.select("game", "seat", "win_share", "total", (pl.col("win_share") - pl.col("win_share").mean()
                                                             .over("policy_label", "players")).alias("win_adj"))
    per_game, buying, compared = K._buyers_and_passers(
        card_sets(df, COMPONENTS, packed=True), game_index, 300,
        seats.select("win_share", "win_adj", pl.col("total").cast(pl.Float64)).to_numpy(), np.arange(300),
        COMPONENTS.n_cards)
    selection = pl.DataFrame({"card": np.arange(COMPONENTS.n_cards, dtype=np.int16), "buying": buying.astype(np.uint32),
                              "compared": compared.astype(np.uint32)})
    events = card_events(df, COMPONENTS)
    took = (events.filter(event="offered").select("game", "seat", "card")
            .join(events.filter(event="bought").select("game", "seat", "card", buyer=pl.lit(True)),
                  on=["game", "seat", "card"], how="left", maintain_order="left")
            .with_columns(pl.col("buyer").fill_null(False))
            .join(seats, on=["game", "seat"], how="left", maintain_order="left"))
    expected = (took.group_by("game", "card")
                .agg(*[pl.col(c).filter(who).mean().alias(f"{name}_{label}")
                       for name, c in (("win", "win_share"), ("adj", "win_adj"), ("total", "total"))
                       for label, who in (("buyer", pl.col("buyer")), ("passed", ~pl.col("buyer")))]))
    compared = expected.drop_nulls().sort("game", "card")
    assert compared.height > 300
    assert_frame_equal(per_game.sort("game", "card"), compared.select(per_game.columns), rel_tol=1e-12, abs_tol=1e-15)
    counted = expected.group_by("card").agg(compared=(pl.col("win_buyer").is_not_null()
                                                      & pl.col("win_passed").is_not_null()).sum())
    assert counted.sort("card").equals(selection.filter(pl.col("buying") > 0).select("card", "compared"))


def test_card_table_on_shuffled_labels_marks_nothing():
    """The null check: with the winner drawn independently of the buyers, no card is marked."""
    strong, weak = COMPONENTS.card_index["I-B-01"], COMPONENTS.card_index["I-R-02"]
    for seed in range(5):
        table = K.card_table(_planted(400, strong, weak, seed=seed, edge=0.5), COMPONENTS)
        assert not table["win_significant"].any(), seed


def test_card_grants_against_their_colour_recover_a_planted_card():
    """Three blue epoch II cards granted in turn; the first adds 30 pp: against the mean of the three
    it stands out by 20 pp, the others lie 10 pp below."""
    rng = np.random.default_rng(4)
    grants = ["II-B-01", "II-B-02", "II-B-03"]
    combos = [{"index": 0, "sweep": {"grants": "none"}}] + [{"index": i + 1, "sweep": {"grants": g}}
                                                           for i, g in enumerate(grants)]
    rows = []
    for combo in combos:
        grant = combo["sweep"]["grants"]
        for game in range(300):
            base = rng.random() < 0.5
            for seat in range(2):
                granted = grant if grant != "none" and seat == game % 2 else None
                p = 0.5 + (0.3 if granted == "II-B-01" else 0.0)
                win = float(rng.random() < p) if granted else float(base)
                rows.append({"game": game, "seat": seat, "players": 2, "combo": combo["index"],
                             "sweep": f'{{"grants": "{grant}"}}', "granted": granted,
                             "granted_epoch": 2 if granted else 0, "win_share": win, "total": 100})
    pairs, refused = card_grant_pairs(R.frame(rows, combos), COMPONENTS)
    table = grant_table(pairs).sort("grant")
    assert refused == []
    first, second, third = table.to_dicts()
    assert first["win_diff"] == pytest.approx(0.2, abs=0.06) and first["win_low"] > 0.1
    assert second["win_high"] < 0 and third["win_high"] < 0
    assert first["control"] == "mean of 3 blue epoch 2 cards"


def test_report_cards_on_a_real_run(runs, tmp_path):
    results = runs["paths"]["three"]
    result = CliRunner().invoke(app, ["report", "cards", str(results), "--out", str(tmp_path), "--top", "3"],
                                env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    text = result.output
    assert "OBSERVATIONAL" in text and "colony tiles" in text and "statues" in text
    assert "Experiment: each granted card" in text and "mean of 2 purple epoch 2 cards" in text
    assert (tmp_path / "card-values.png").stat().st_size > 5000
    shown = [line for line in text.splitlines() if line.startswith("│ I")]
    assert len(shown) >= 6  # 3 best and 3 worst cards (and colonies)
    result = CliRunner().invoke(app, ["report", "cards", str(results), "--out", str(tmp_path), "--format", "csv"])
    assert result.exit_code == 0, result.output
    offered = K.card_table(runs["three"], COMPONENTS).height
    card_rows = [line for line in result.output.splitlines() if line.startswith("Observational: the")]
    assert len(card_rows) == offered  # every card offered, not only the ends of the ranking


def test_a_run_whose_component_set_is_gone_is_not_read_with_the_shipped_one(runs, tmp_path):
    """The component set a run was given (--components) that can no longer be read is not replaced
    by the shipped set, whose cards may differ: `report cards` fails naming it, `report purple` keeps
    its grant experiment and says why it has no placebo, the summary says why it has no cards."""
    results, gone = tmp_path / "moved", tmp_path / "gone"
    shutil.copytree(runs["paths"]["three"], results)
    meta = json.loads((results / "metadata.json").read_text())
    meta["components"]["path"] = str(gone)
    (results / "metadata.json").write_text(json.dumps(meta))

    def report(*args):
        return CliRunner().invoke(app, ["report", *args, str(results), "--out", str(tmp_path / "out")],
                                  env={"COLUMNS": "400"})

    said = f"the run's component set at {gone} cannot be read"
    cards = report("cards")
    assert cards.exit_code == 2 and said in " ".join(cards.output.split())
    purple = report("purple")
    assert purple.exit_code == 0, purple.output
    assert "Experiment: granted seat" in purple.output and f"No placebo comparison: {said}" in " ".join(
        purple.output.split())
    assert report("summary").exit_code == 0
    html = (tmp_path / "out" / "summary.html").read_text(encoding="utf-8")
    assert "The cards section is left out: the run&#x27;s component set at" in html


def test_the_card_tables_machine_columns_carry_their_units():
    """csv and json wrote the shares of games (offered, take_rate ...) and the policy-adjusted difference
    as fractions beside _pct and _pp columns (adj_high 0.127 next to win_high_pp 12.7)."""
    from hadara_sim.report import component_sections

    strong, weak = COMPONENTS.card_index["I-B-01"], COMPONENTS.card_index["I-R-02"]
    section = component_sections.cards(_planted(200, strong, weak), {"components_path": None})
    data = section.tables[0].machine()
    row = data.filter(pl.col("card_id") == "I-B-01").row(0, named=True)
    assert row["offered_pct"] == row["take_rate_pct"] == 100.0
    assert row["adj_low_pp"] < row["adj_diff_pp"] < row["adj_high_pp"] and 40 < row["win_diff_pp"] < 80
    assert not {"offered", "take_rate", "adj_diff", "adj_low", "adj_high"} & set(data.columns)


def _shares(table: pl.DataFrame) -> list[str]:
    """The shares of a card, colony or statue table that carry an interval."""
    return [c[:-4] for c in table.columns if c.endswith("_low") and f"{c[:-4]}_high" in table.columns
            and c[:-4] in table.columns]


def test_every_share_of_the_card_colony_and_statue_tables_has_its_interval_around_it(runs):
    for name in ("two", "three"):
        for table in (K.card_table(runs[name], COMPONENTS), K.colony_table(runs[name], COMPONENTS),
                      K.statue_table(runs[name], COMPONENTS)):
            shares = _shares(table)
            assert shares
            for share in shares:
                known = table.filter(pl.col(share).is_not_null() & pl.col(share).is_not_nan())
                assert known.height and (known[f"{share}_low"] <= known[share]).all(), share
                assert (known[share] <= known[f"{share}_high"]).all(), share
                assert (known[f"{share}_high"] > known[f"{share}_low"]).all(), share  # never of zero width
    card = {"card": "offered bought sold fed_away take_rate phase_a".split(), "colony": ["taken", "integrated"],
            "statue": ["taken", "points_side"]}
    assert set(_shares(K.card_table(runs["two"], COMPONENTS))) == set(card["card"])
    assert set(_shares(K.colony_table(runs["two"], COMPONENTS))) == set(card["colony"])
    assert set(_shares(K.statue_table(runs["two"], COMPONENTS))) == set(card["statue"])


def test_a_deal_played_in_two_combinations_counts_once_in_a_share():
    """The games of one deal in several combinations of a sweep are not independent: two copies of
    each game make the share's interval no narrower."""
    strong, weak = COMPONENTS.card_index["I-B-01"], COMPONENTS.card_index["I-R-02"]
    third = COMPONENTS.card_index["I-G-01"]
    one = _planted(300, strong, weak)
    rng = np.random.default_rng(3)
    sold = rng.random(300) < 0.3  # a share strictly between 0 and 1: a third card sold in some games
    one = one.with_columns(pl.lit(encode_cards(sorted([strong, weak, third]), COMPONENTS.n_cards)).alias("offered"),
                           pl.when(pl.Series(np.repeat(sold, 2)) & (pl.col("seat") == 0))
                           .then(pl.lit(encode_cards([third], COMPONENTS.n_cards))).otherwise(pl.col("sold"))
                           .alias("sold"))
    two = pl.concat([one, one.with_columns(pl.lit(1, one.schema["combo"]).alias("combo"))])
    rows = [K.card_table(df, COMPONENTS).filter(pl.col("card_id") == "I-G-01").row(0, named=True)
            for df in (one, two)]
    assert rows[0]["sold"] == rows[1]["sold"] == pytest.approx(sold.mean())
    width = [r["sold_high"] - r["sold_low"] for r in rows]
    assert width[1] == pytest.approx(width[0], rel=0.02)  # not narrower by a factor of 1.4


@pytest.mark.parametrize("name", ["two", "three"])
def test_the_card_table_read_in_parts_of_whole_deals_is_the_table_read_at_once(runs, monkeypatch, name):
    """The card sets are decoded a part at a time (3.8 million seats at once took 18 GB); parts of a few
    rows, each of whole deals (the sweep of "three" plays every deal in three combinations), give the
    same table."""
    whole = K.card_table(runs[name], COMPONENTS)
    monkeypatch.setattr(K, "PART_ROWS", 7)
    parts = K._parts(np.repeat(np.arange(12), 3), np.arange(0, 12, 2), 7)  # 3 seats, deals of 2 games
    assert len(parts) > 1 and all(len(p) % 6 == 0 for p in parts)  # whole deals only
    assert np.array_equal(np.concatenate(parts), np.arange(36))
    assert_frame_equal(K.card_table(runs[name], COMPONENTS), whole, check_exact=False, rel_tol=1e-12)


def test_the_share_of_games_owned_of_report_purple_has_its_interval_around_it(runs):
    """`report purple`'s games owned was the last share printed without its n and CI: the interval of
    `estimates.shares_by` (as the card tables' shares), never of zero width, and the n of the share."""
    from hadara_sim.report import component_sections
    from hadara_sim.report.grants import owner_effects

    for name in ("two", "three"):
        out = owner_effects(runs[name])
        assert out.height
        assert (out["owned_low"] < out["owned"]).all() and (out["owned"] < out["owned_high"]).all()
        deals = runs[name].filter(pl.col("granted").is_null())["game"].n_unique()
        assert (out["deals"] == deals).all() and (out["games"] == deals).all()  # "three": its control combination
        assert ((out["owned"] * out["games"]).round(6) >= out["n"]).all()  # the pairs: games with an owner and another
    section = component_sections.purple(runs["two"], {"components_path": None})
    table = next(t for t in section.tables if t.title.startswith("Observational"))
    cell = table.rows[0][table.columns.index("games owned")]
    assert re.fullmatch(r"\d+\.\d% \[\d+\.\d, \d+\.\d\]", cell), cell  # "20.8% [9.1, 40.9]"
    assert "24 games (24 deals)" in table.caption
    data = table.machine()
    assert {"owned_pct", "owned_low_pct", "owned_high_pct", "games", "deals", "n"} <= set(data.columns)
    assert (data["owned_low_pct"] < data["owned_pct"]).all() and (data["owned_pct"] < data["owned_high_pct"]).all()


def test_a_deal_played_in_two_combinations_counts_once_in_the_games_owned(runs):
    """Two copies of each game (the same deal in two combinations) leave the share owned and its
    interval as they were: the deals are the n, not the games."""
    from hadara_sim.report.grants import owner_effects

    one = runs["two"]
    two = pl.concat([one, one.with_columns(pl.lit(1, one.schema["combo"]).alias("combo"))])
    a, b = (owner_effects(df).sort("effect") for df in (one, two))
    assert (b["games"] == 2 * a["games"]).all() and (b["deals"] == a["deals"]).all()
    assert np.allclose(a["owned"], b["owned"])
    assert np.allclose(b["owned_high"] - b["owned_low"], a["owned_high"] - a["owned_low"], rtol=0.02)


@pytest.mark.parametrize("name", ["two", "three"])
def test_the_colony_table_read_in_parts_of_whole_deals_is_the_table_read_at_once(runs, monkeypatch, name):
    """Every seat joined with the tiles dealt in its game, for 3.8 million seats at once, took 11.8 GB:
    the colony table joins a part of whole deals at a time (the sweep of "three" plays every deal in
    three combinations), and parts of a few rows give the same table."""
    whole = K.colony_table(runs[name], COMPONENTS)
    read, join = [], K._colony_seats
    monkeypatch.setattr(K, "PART_ROWS", 7)
    monkeypatch.setattr(K, "_colony_seats", lambda seats: read.append(seats) or join(seats))
    parts = K.colony_table(runs[name], COMPONENTS)
    assert len(read) > 1 and all(part.height < 7 + 3 * 3 for part in read)  # a part: 7 rows and the rest of a deal
    deals = [set(part["game"].unique()) for part in read]
    assert all(not a & b for i, a in enumerate(deals) for b in deals[i + 1:])  # a deal in one part only
    assert sum(part.height for part in read) == K._ungranted(runs[name]).height
    assert_frame_equal(parts, whole, check_exact=False, rel_tol=1e-12)


def test_report_cost_times_each_table_on_a_run_in_a_fresh_process(runs):
    """scripts/report_cost.py: each table's seats, times and peak memory, the peak never below the
    results' own, for the measurements behind `report cards`' memory (docs/reports.md)."""
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).parents[1] / "scripts" / "report_cost.py"
    done = subprocess.run([sys.executable, str(script), str(runs["paths"]["three"]), "-t", "cards", "-t", "owners"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    head, *lines = done.stdout.splitlines()
    assert head.split()[:2] == ["table", "seats"] and [line.split()[0] for line in lines] == ["cards", "owners"]
    for line in lines:
        seats, load_s, table_s, loaded, peak, added = (float(v.replace(",", "")) for v in line.split()[1:])
        assert seats == runs["three"].height and table_s > 0 and 0 < loaded <= peak and added == pytest.approx(
            peak - loaded, abs=0.011)


def test_the_card_tables_counts_are_whole_numbers_of_any_run_size(runs):
    """The per-deal counts are kept in the smallest type a deal's rows fit (one byte for these runs);
    the table's counts are still 64-bit integers, summed without wrapping."""
    table = K.card_table(runs["three"], COMPONENTS)
    assert table.schema["purchases"] == table.schema["offered_games"] == pl.Int64
    games = K._ungranted(runs["three"]).select(pl.struct("combo", "game").n_unique()).item()
    assert (table["offered_games"] == (table["offered"] * games).round()).all() and table["offered_games"].max() <= games

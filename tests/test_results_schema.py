"""The results schema: docs/results.md documents exactly the columns and types of SCHEMA, and
every chunk table is built with it."""

import json
import os
import re
from pathlib import Path

import polars as pl
import pyarrow as pa
import pytest

import hadara_sim
from hadara_sim import results
from hadara_sim.constants import EFFECT_IDS
from hadara_sim.results import (
    COLUMNS, PART_KEY, SCHEMA, SCHEMA_KEY, SCHEMA_VERSION, load_results, scan_results, schema_markdown,
)
from hadara_sim.scenario.read import parse_scenario

DOC = Path(__file__).resolve().parent.parent / "docs" / "results.md"


def documented_columns() -> list[tuple[str, str]]:
    """(name, dtype) of each row of the column table under '## Columns' in docs/results.md."""
    text = DOC.read_text()
    section = text.split("\n## Columns\n", 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]
    rows = []
    for line in section.splitlines():
        found = re.match(r"^\|\s*`([^`]+)`\s*\|\s*([^|]+?)\s*\|", line)
        if found:
            rows.append((found.group(1), found.group(2)))
    return rows


def test_docs_table_matches_schema():
    assert documented_columns() == [(f.name, str(f.type)) for f in SCHEMA]


def test_docs_table_is_the_generated_one():
    assert schema_markdown() in DOC.read_text()  # meanings too: regenerate with schema_markdown()


def test_schema_is_versioned_and_named_as_asked():
    assert SCHEMA_VERSION == 2
    assert SCHEMA.metadata[b"hadara_sim.schema_version"] == b"2"
    names = [name for name, _, _ in COLUMNS]
    assert len(names) == len(set(names))
    for required in ["game", "seat", "players", "advanced", "policy", "policy_params", "setup_card",
                     "setup_side", "first_player_epoch1", "income", "military", "culture", "food",
                     "coins_held", "colonies", "statues", "silver", "gold", "cards", "coins",
                     "patron_points", "silver_full_points", "set_collector_points", "wildcard_points",
                     "total", "total_epoch1", "total_epoch2", "total_epoch3", "rank", "win_share",
                     "cards_yellow", "cards_purple", "colony_level1", "colony_level5", "statue1",
                     "statue4", "statues_carved", "silver_medals", "silver_track1", "gold_medals",
                     "colony_tile1", "colony_tile5", "bought", "bought_in_b", "sold", "fed_away",
                     "offered", *[f"effect_{e}" for e in EFFECT_IDS]]:
        assert required in names, required


@pytest.fixture(scope="module")
def advanced_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("schema") / "out"
    sc = parse_scenario('players = 3\ngame = "advanced"\npolicies = ["greedy", "random", "balanced"]\n'
                        'assignment = "rotated"\ngames = 60\nchunk = 30\nseed = 2\n[setup]\nsides = "random"\n')
    hadara_sim.simulate(sc, out=out, jobs=1)
    return out


def test_gold_minus_its_bonus_columns_is_the_medal_points(tmp_path):
    """`gold` is the score sheet's gold line; without set_collector_points and wildcard_points it
    is 7 points per gold medal per plain set (the fewest cards of one colour)."""
    sc = parse_scenario('players = 3\ngame = "advanced"\npolicies = ["sets"]\ngames = 30\nseed = 3\n'
                        '[sweep]\ngrants = ["set_collector", "gold_wildcard"]\n')
    df = hadara_sim.simulate(sc, jobs=1)
    plain = pl.min_horizontal([f"cards_{c}" for c in ("yellow", "red", "blue", "green", "purple")])
    df = df.with_columns(plain=plain, medals=pl.col("gold") - pl.col("set_collector_points") - pl.col("wildcard_points"))
    assert (df["medals"] == 7 * df["gold_medals"] * df["plain"]).all()
    assert (df["set_collector_points"] == 4 * df["plain"] * (df["effect_set_collector"] > 0)).all()
    assert (df["set_collector_points"] > 0).any() and (df["wildcard_points"] > 0).any()


def test_files_have_the_schema(advanced_run):
    import pyarrow.parquet as pq

    files = sorted(advanced_run.glob("part-*.parquet"))
    assert len(files) == 2
    for f in files:
        schema = pq.read_schema(f)
        assert schema.equals(SCHEMA) and schema.metadata[SCHEMA_KEY] == SCHEMA.metadata[SCHEMA_KEY]
        part = json.loads(schema.metadata[PART_KEY])  # the run and chunk the file belongs to
        assert part["combo"] == int(f.name[6:10]) and part["chunk"] == int(f.name[12:17])
        assert part["run"] == json.loads((advanced_run / "metadata.json").read_text())["identity"]


def test_values_are_consistent(advanced_run):
    df = load_results(advanced_run)
    assert df.height == 60 * 3
    sheet = df["colonies"] + df["statues"] + df["silver"] + df["gold"] + df["cards"] + df["coins"]
    assert (sheet == df["total"]).all()
    assert (df["coins"] == df["coins_held"] // 5).all() and (df["leftover_coins"] == df["coins_held"] % 5).all()
    assert (df["total_epoch3"] == df["total"]).all()
    firsts = df.group_by("game").agg([pl.col(f"first_player_epoch{e}").sum() for e in (1, 2, 3)])
    assert (firsts.select(pl.exclude("game")) == 1).to_numpy().all()
    assert df["setup_side"].unique().sort().to_list() == ["A", "B"]
    assert set(df["policy"].unique()) == {"greedy", "random", "balanced"}
    assert (df["statues_carved"] == sum((df[f"statue{k}"] >= 0).cast(pl.Int8) for k in range(1, 5))).all()
    assert (df["colonies_taken"] == sum((df[f"colony_level{k}"] > 0).cast(pl.Int8) for k in range(1, 6))).all()
    effects = df.select([f"effect_{e}" for e in EFFECT_IDS]).to_numpy()
    assert ((effects >= 0) & (effects <= 3)).all() and effects.any()
    # the rank is 1 + seats strictly ahead
    best = df.group_by("game").agg(pl.col("rank").min())["rank"]
    assert (best == 1).all()
    assert df["policy_params"].str.starts_with("{").all()
    cards = df.select([f"cards_{c}" for c in ("yellow", "red", "blue", "green", "purple")]).to_numpy()
    assert (cards >= 0).all()


@pytest.mark.parametrize("read", [load_results, lambda out: scan_results(out).collect()], ids=["load", "scan"])
def test_a_part_this_user_may_not_read_is_said_so_not_called_damaged(advanced_run, tmp_path, monkeypatch, read):
    """A chunk without read permission was "cannot be read (damaged?)". The tests run as root, whom a
    mode does not stop, so the permission is taken away by hand (os.access)."""
    import os
    import shutil

    from hadara_sim import results
    from hadara_sim.results import ResultsError

    out = tmp_path / "out"
    shutil.copytree(advanced_run, out)
    part = sorted(out.glob("part-*.parquet"))[0]
    part.write_bytes(b"not parquet")  # reading fails, as it would without permission
    readable = os.access  # results.os is os: the patch is seen everywhere, so it keeps the real one
    monkeypatch.setattr(results.os, "access", lambda path, mode: Path(path) != part and readable(path, mode))
    with pytest.raises(ResultsError, match="permission denied") as err:
        read(out)
    assert part.name in str(err.value) and "damaged" not in str(err.value)


@pytest.mark.parametrize("damage, message", [
    (lambda t, pa, pc: t.slice(0, 50), "holds 50 rows where its 30 games of 3 players have 90: damaged"),
    (lambda t, pa, pc: t.set_column(t.schema.get_field_index("win_share"), "win_share",
                                    pc.if_else(pc.equal(t["game"], 4), pa.scalar(5.0), t["win_share"])),
     "row 12, column win_share: a win share outside 0..1"),
    (lambda t, pa, pc: t.set_column(t.schema.get_field_index("seat"), "seat",
                                    pc.if_else(pc.equal(t["game"], 4), pa.scalar(9, t["seat"].type), t["seat"])),
     "row 12, column seat: a seat outside 0..players - 1"),
    (lambda t, pa, pc: t.set_column(t.schema.get_field_index("total"), "total",
                                    pc.if_else(pc.equal(t["game"], 4), pa.scalar(None, t["total"].type), t["total"])),
     "row 12, column total: a score that is missing or below 0"),
])
@pytest.mark.parametrize("read", [load_results, lambda out: scan_results(out).collect()], ids=["load", "scan"])
def test_a_damaged_part_is_named_with_what_is_wrong(advanced_run, tmp_path, damage, message, read):
    """Read silently before: a part cut to some of its rows, a win share of 5, a seat 9 at 3 players, a
    null total (which then stopped a chart: "cannot convert float NaN to integer"). scan_results, which
    simulate's summary and show-game read, let the values through after load_results refused them."""
    import shutil

    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from hadara_sim.results import ResultsError

    out = tmp_path / "out"
    shutil.copytree(advanced_run, out)
    part = sorted(out.glob("part-*.parquet"))[0]
    table = pq.read_table(part)
    pq.write_table(damage(table, pa, pc).replace_schema_metadata(table.schema.metadata), part)
    with pytest.raises(ResultsError, match=re.escape(message)) as err:
        read(out)
    assert part.name in str(err.value)


def test_the_metadata_table_names_every_key_a_run_writes(advanced_run, tmp_path):
    """docs/results.md's metadata.json table: each key a run writes, and those of `scenario` and of a
    session by name (it left out `settings`, and named a session's keys in words)."""
    section = DOC.read_text().split("\n## metadata.json\n", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")] if line.startswith("| `") else []
        for key in re.findall(r"`([^`]+)`", cells[0]) if cells else []:
            rows[key] = re.findall(r"`([^`]+)`", cells[1])
    sc = parse_scenario('players = 2\npolicies = ["greedy"]\ngames = 4\n', settings=["players=3"])
    hadara_sim.simulate(sc, out=tmp_path / "out", jobs=1, quiet=True)
    for out in (advanced_run, tmp_path / "out"):
        meta = json.loads((out / "metadata.json").read_text())
        assert set(rows) == set(meta)
        assert set(meta["scenario"]) <= set(rows["scenario"])
        assert all(set(session) <= set(rows["sessions"]) for session in meta["sessions"])
    assert meta["scenario"]["settings"] == ["players=3"]


@pytest.mark.parametrize("read", [load_results, lambda out: scan_results(out).collect()], ids=["load", "scan"])
def test_a_copy_of_a_part_under_a_longer_name_is_refused(advanced_run, tmp_path, read):
    """part-c00000-k00000 (a zero more) is also combination 0, chunk 0: its rows were read a second time,
    by a scan silently, and load_results blamed a card two seats took."""
    import shutil

    from hadara_sim.results import ResultsError

    out = tmp_path / "out"
    shutil.copytree(advanced_run, out)
    shutil.copy(out / "part-c0000-k00000.parquet", out / "part-c00000-k00000.parquet")
    with pytest.raises(ResultsError, match=r"part-c00000-k00000.parquet is not named as a run names its chunks "
                                           r"\(that chunk is named part-c0000-k00000.parquet\)"):
        read(out)


def test_a_file_is_on_disk_before_it_takes_its_name(tmp_path, monkeypatch):
    """metadata.json and a chunk were renamed into place unsynced: after a power loss the new name
    could hold an empty file, and the run would stop as damaged instead of resuming."""
    events = []
    sync, replace = os.fsync, os.replace
    monkeypatch.setattr(results.os, "fsync", lambda fd: events.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")))
                        or sync(fd))
    monkeypatch.setattr(results.os, "replace", lambda a, b: events.append(("replace", str(a), str(b)))
                        or replace(a, b))
    results.write_metadata(tmp_path, {"seed": 1})
    results.write_table(pa.table({"x": [1, 2]}), tmp_path / "part.parquet")
    for final in ("metadata.json", "part.parquet"):
        moved = next(i for i, e in enumerate(events) if e[0] == "replace" and e[2].endswith(final))
        tmp = events[moved][1]
        assert ("fsync", tmp) in events[:moved]  # the bytes first
        assert ("fsync", str(tmp_path)) in events[moved + 1:]  # then the folder's entry
    assert json.loads((tmp_path / "metadata.json").read_text()) == {"seed": 1}


def test_a_run_is_loaded_without_copying_its_rows(tmp_path, monkeypatch):
    """A card-worth run's 5 million rows took 2.5 GB, and loading them 6 GB: sorting rows already in
    order, joining the swept values on combo and checking the card sets of every part at once each
    copied them. Rows in order are not sorted again (rows out of order still are), the swept values are
    looked up, and each part is checked on its own."""
    import report_data as R

    sorts, checked = [], []
    sort, check = pl.DataFrame.sort, results.card_set_problem
    monkeypatch.setattr(pl.DataFrame, "sort", lambda self, *a, **k: sorts.append(a) or sort(self, *a, **k))
    monkeypatch.setattr(pl.DataFrame, "join", lambda *a, **k: pytest.fail("the rows were joined"))
    monkeypatch.setattr(results, "card_set_problem", lambda part: checked.append(part.height) or check(part))
    df, combos = R.grant_sweep()
    ordered = load_results(R.write_results(df, tmp_path / "ordered", combos))
    assert sorts == [] and ordered.drop(c for c in ordered.columns if c.startswith("sweep_")).equals(
        df.sort(results.SORT_KEYS).select(c for c in ordered.columns if not c.startswith("sweep_")))
    assert ordered["sweep_grants"].to_list() == [next(c["sweep"]["grants"] for c in combos if c["index"] == k)
                                                 for k in ordered["combo"]]
    assert checked == [df.filter(pl.col("combo") == c["index"]).height for c in combos]
    shuffled = R.write_results(df.sample(fraction=1.0, shuffle=True, seed=3), tmp_path / "shuffled", combos)
    assert load_results(shuffled).equals(ordered) and sorts


def test_swept_keys_of_one_column_make_it_once():
    """Two keys whose columns coincide (a damaged or hand-edited metadata.json: "a.b" and "a-b") stopped
    inside polars ("the name 'sweep_a_b' ... is duplicate") once the columns were looked up by combo."""
    df = pl.DataFrame({"combo": [0, 1]}, schema={"combo": pl.Int32})
    combos = [{"index": 0, "sweep": {"a.b": 1, "a-b": 5}}, {"index": 1, "sweep": {"a.b": 2}}]
    for frame in (df, df.lazy()):
        out = results.add_sweep_columns(frame, combos)
        assert (out.collect() if isinstance(out, pl.LazyFrame) else out)["sweep_a_b"].to_list() == [1, 2]

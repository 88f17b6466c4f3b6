"""Setup sides that follow the components (policies/sides.py): `balanced` finds each card's side by
play on the game's own component set and player count, so an override that makes a side poor or
excellent changes the side its holder takes; with `side_choice = "table"` it keeps the tuned table."""

import json

import numpy as np
import pytest

from hadara_sim import make_deals
from hadara_sim.engine.game import BatchGame
from hadara_sim.registry import make_policy
from hadara_sim.policies import sides

POOR = {"setup": {"3B": {"coins": 2, "culture": 0, "food": 2}}}
EXCELLENT = {"setup": {"3B": {"coins": 14, "culture": 8, "income": 3}}}


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    """Each test with an empty trial cache of its own, on disk and in memory."""
    monkeypatch.setenv("HADARA_SIM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(sides, "_MEMORY", {})


def chosen_sides(components, policy, players, games=300):
    """(share of holders of each card 1..5 on side B) when `policy` plays every seat."""
    deals = make_deals(components, players, games, seed=11, advanced=True)
    game = BatchGame(deals, components, [policy], np.zeros((games, players), np.int64))
    game.play()
    return [float(game.s.side[game.s.initiative == card].mean()) for card in range(1, 6)]


@pytest.mark.parametrize("players", [2, 4])
def test_holders_of_card_3_take_a_when_3b_is_made_poor_and_b_when_it_is_made_excellent(components, players):
    poor, excellent = components.with_overrides(POOR), components.with_overrides(EXCELLENT)
    balanced, table = make_policy("balanced"), make_policy("balanced", side_choice="table")
    assert chosen_sides(poor, balanced, players)[2] == 0.0
    assert chosen_sides(excellent, balanced, players)[2] == 1.0
    trial = sides.derived_sides(balanced, poor, players)
    assert trial.sides[2] == 0 and trial.high[2] < 0  # 3B measured worse, its interval clear of zero
    assert sides.derived_sides(balanced, excellent, players).low[2] > 0
    # today's tuned table would take 3B whatever the components say
    assert chosen_sides(poor, table, players)[2] == chosen_sides(excellent, table, players)[2] == 1.0


def test_a_trial_keeps_an_undecided_card_on_its_table_entry(components):
    """Where the interval straddles zero the table keeps its entry (the tuned side or -1)."""
    player = sides.table_player(make_policy("balanced"), (1, 0, 1, -1, -1))
    trial = sides.side_effects(player, (1, 0, 1, -1, -1), components, 2, deals=250)
    for card in range(5):
        if trial.low[card] <= 0 <= trial.high[card]:
            assert trial.sides[card] == (1, 0, 1, -1, -1)[card]
        else:
            assert trial.sides[card] == int(trial.low[card] > 0)
    assert trial.sides[2] == 1 and trial.low[2] > 0  # 3B is far better on the shipped set


def test_a_trial_is_kept_on_disk_and_a_damaged_file_is_played_again(components, monkeypatch, tmp_path):
    monkeypatch.setattr(sides, "DEALS", 250)
    balanced = make_policy("balanced")
    first = sides.derived_sides(balanced, components, 3)
    [path] = (tmp_path / "cache" / "sides").glob("*.json")
    assert json.loads(path.read_text())["inputs"]["players"] == 3

    def no_play(*args, **kwargs):
        raise AssertionError("played again")

    monkeypatch.setattr(sides, "_MEMORY", {})
    monkeypatch.setattr(sides, "play_trial", no_play)
    assert sides.derived_sides(balanced, components, 3) == first  # read back, not played
    for damage in ("import os", json.dumps({**json.loads(path.read_text()), "sides": [7, 0, 1, 1, 0]})):
        path.write_text(damage)
        monkeypatch.setattr(sides, "_MEMORY", {})
        with pytest.raises(AssertionError, match="played again"):
            sides.derived_sides(balanced, components, 3)


def test_the_trial_depends_on_components_players_settings_and_style_rules(components, monkeypatch):
    balanced = make_policy("balanced")
    key = sides.trial_key(balanced, components, 2)
    assert key == sides.trial_key(make_policy("balanced"), components, 2)
    assert key != sides.trial_key(balanced, components, 3)
    assert key != sides.trial_key(balanced, components.with_overrides(POOR), 2)
    assert key != sides.trial_key(make_policy("balanced", food=1.5), components, 2)
    monkeypatch.setattr(type(balanced), "rules", type(balanced).rules | {"endgame"})  # same settings, new rule
    assert key != sides.trial_key(balanced, components, 2)


def test_the_basic_game_and_a_fixed_table_play_no_trial(components, monkeypatch):
    def no_trial(*args):
        raise AssertionError("a trial was played")

    monkeypatch.setattr("hadara_sim.policies.styles.derived_sides", no_trial)
    deals = make_deals(components, 2, 20, seed=1, advanced=False)
    BatchGame(deals, components, [make_policy("balanced")], np.zeros((20, 2), np.int64)).play()
    table = make_policy("balanced", side_choice="table")
    assert chosen_sides(components, table, 2, games=40)[2] == 1.0  # the tuned table: 3B


def test_the_python_methods_choose_the_derived_sides_as_the_kernel_does(components):
    """A Python caller of `side` (the reference engine, a subclass) reads the same derived table."""
    from helpers import InPython

    poor = components.with_overrides(POOR)
    balanced = make_policy("balanced")
    assert chosen_sides(poor, InPython(balanced), 2) == chosen_sides(poor, balanced, 2)


def test_the_policies_sides_command_prints_the_table_with_its_evidence(monkeypatch):
    from typer.testing import CliRunner

    from hadara_sim.cli import app

    monkeypatch.setattr(sides, "DEALS", 250)
    result = CliRunner().invoke(app, ["policies", "sides", "-p", "2", "--format", "json", "-q"])
    assert result.exit_code == 0, result.output
    [table] = json.loads(result.output)["tables"]
    rows = {r["card"]: r for r in table["data"]}
    assert rows[3]["side"] == "B" and rows[3]["diff_low_pp"] > 0  # 3B measured better than 3A
    assert all(r["diff_low_pp"] <= r["diff_pp"] <= r["diff_high_pp"] for r in rows.values())
    # why each side: found by play where its interval clears zero, else the tuned entry kept
    assert rows[3]["because"] == "B above A" and all(
        r["because"] == "undecided: tuned entry kept" for r in rows.values() if r["diff_low_pp"] < 0 < r["diff_high_pp"])
    assert "(95% t interval)" in table["caption"]  # the bounds' level, which json has no header to carry
    refused = CliRunner().invoke(app, ["policies", "sides", "--policy", "greedy"])
    assert refused.exit_code == 2 and "no side_choice parameter" in refused.output


GOOD = {"players": 3, "sides": [1, 0, 1, -1, -1], "effect": [0.01, -0.02, 0.05, 0.0, 0.0],
        "low": [-0.01, -0.04, 0.03, -0.02, -0.02], "high": [0.03, 0.0, 0.07, 0.02, 0.02], "deals": 1000, "rounds": 3}


def read_within(path, seconds=20):
    """sides._read(path), or AssertionError when it has not returned in `seconds` (a FIFO blocked it)."""
    import threading

    found = []
    reader = threading.Thread(target=lambda: found.append(sides._read(path, 3)), daemon=True)
    reader.start()
    reader.join(seconds)
    assert found, f"reading {path} did not return"
    return found[0]


@pytest.mark.parametrize("change", [{"deals": "1e400"}, {"deals": "0"}, {"rounds": "true"}, {"effect": "[1e400, 0, 0, 0, 0]"},
                                    {"sides": "[0.5, 0, 1, 1, 0]"}, {"low": "[NaN, 0, 0, 0, 0]"},
                                    {"players": "[3]"}, {"effect": "[0, 0, 0, 0]"}])
def test_a_cache_file_with_insane_values_is_played_again(tmp_path, change):
    path = tmp_path / "trial.json"
    path.write_text(json.dumps(GOOD))
    assert sides._read(path, 3) == sides.SideTrial(3, (1, 0, 1, -1, -1), *(tuple(GOOD[k]) for k in
                                                   ("effect", "low", "high")), 1000, 3)
    text = json.dumps(GOOD)
    for key, value in change.items():
        text = text.replace(f'"{key}": {json.dumps(GOOD[key])}', f'"{key}": {value}')
    path.write_text(text)
    assert sides._read(path, 3) is None


def test_a_cache_file_is_read_only_when_it_is_a_small_regular_file(tmp_path):
    import os

    link = tmp_path / "zero.json"
    link.symlink_to("/dev/zero")
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    huge = tmp_path / "huge.json"
    huge.write_text(json.dumps({**GOOD, "padding": "x" * (1 << 20)}))
    folder = tmp_path / "folder.json"
    folder.mkdir()
    for path in (link, fifo, huge, folder, tmp_path / "missing.json"):
        assert read_within(path) is None, path

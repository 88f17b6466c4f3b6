"""Traces: the records of a game, written as JSON Lines, replayed through the reference engine;
any change to a trace is caught as a ReplayMismatch."""

import copy
import json
import re

import pytest

from hadara_sim.component_files import load_components
from hadara_sim.deal import make_deals
from hadara_sim.reference import Game
from hadara_sim.trace import TRACE_VERSION, Recorder, ReplayMismatch, read_trace, replay, write_trace
from hadara_sim.policies import Greedy, Random

from helpers import copy_default, edit_csv


def record_game(components, players=3, advanced=False, seed=4):
    deal = make_deals(components, players, 1, seed=seed, advanced=advanced)[0]
    policies = [(Random if s % 2 == 0 else Greedy)(seed=s) for s in range(players)]
    recorder = Recorder(deal, components, policies)
    sheet = Game(deal, components, policies, recorder=recorder).play()
    return recorder.records, sheet


@pytest.fixture(scope="module", params=[(2, False), (4, True)], ids=["2p-basic", "4p-advanced"])
def recorded(request, components):
    players, advanced = request.param
    return record_game(components, players, advanced)


def step_labels(players):
    labels = ["setup"]
    for epoch in ("I", "II", "III"):
        labels += [f"{epoch}.A.wheel", *(f"{epoch}.A.draw{k}" for k in range(1, 6)),
                   f"{epoch}.A.income", f"{epoch}.A.colonies", f"{epoch}.A.statues",
                   *(f"{epoch}.B.pick{k}" for k in range(1, 5 * players + 1)),
                   f"{epoch}.B.income", f"{epoch}.B.colonies", f"{epoch}.B.statues",
                   f"{epoch}.B.feeding", f"{epoch}.B.medals"]
    return labels


def test_trace_layout(recorded, components):
    """A trace: header with the deal, decisions and a state after every step, then the score sheet."""
    records, sheet = recorded
    header = records[0]
    assert header["type"] == "header" and header["version"] == TRACE_VERSION
    assert header["components"] == components.digest
    players = header["deal"]["players"]
    assert len(header["policies"]) == players
    assert [r["step"] for r in records if r["type"] == "state"] == step_labels(players)
    assert records[-1] == {"type": "score", "sheet": sheet}
    for r in records:
        if r["type"] == "decision":
            assert r["choice"] in r["options"] and len(r["options"]) >= 2
    json.dumps(records)  # plain JSON values only


def test_trace_file_round_trip(recorded, components, tmp_path):
    """A trace written to a file reads back equal and replays to the same score sheet."""
    records, sheet = recorded
    path = tmp_path / "game.jsonl"
    write_trace(records, path)
    assert len(path.read_text().splitlines()) == len(records)
    back = read_trace(path)
    assert back == json.loads(json.dumps(records))
    assert replay(back, components) == sheet


def decisions(records):
    return [i for i, r in enumerate(records) if r["type"] == "decision"]


@pytest.mark.parametrize("where", [0.1, 0.5, 0.9])
def test_changed_choice_is_caught(recorded, components, where):
    """Changing one recorded choice to another legal option makes the replay fail."""
    records = copy.deepcopy(recorded[0])
    i = decisions(records)[int(where * len(decisions(records)))]
    r = records[i]
    r["choice"] = next(o for o in r["options"] if o != r["choice"])
    with pytest.raises(ReplayMismatch):
        replay(records, components)


def test_illegal_choice_is_a_mismatch(recorded, components):
    """A recorded choice outside the legal options is a ReplayMismatch."""
    records = copy.deepcopy(recorded[0])
    i = decisions(records)[len(decisions(records)) // 2]
    records[i]["choice"] = max(records[i]["options"]) + 1
    with pytest.raises(ReplayMismatch):
        replay(records, components)


@pytest.mark.parametrize("field", ["coins", "tracks", "location", "tiles"])
def test_changed_state_value_is_caught(recorded, components, field):
    """Changing one value of one recorded state makes the replay fail, naming step and field."""
    records = copy.deepcopy(recorded[0])
    states = [i for i, r in enumerate(records) if r["type"] == "state"]
    record = records[states[len(states) // 2]]
    value = record["state"][field]
    if field in ("tracks", "tiles"):
        value[0][1] += 1
    elif field == "location":
        value[0] = 7
    else:
        value[-1] += 1
    with pytest.raises(ReplayMismatch, match=f"state after step {record['step']} differs in {field}"):
        replay(records, components)


def test_changed_score_is_caught(recorded, components):
    """A changed final score sheet is caught."""
    records = copy.deepcopy(recorded[0])
    records[-1]["sheet"][0]["total"] += 1
    with pytest.raises(ReplayMismatch, match="final score"):
        replay(records, components)


def test_truncated_or_extended_trace_is_caught(recorded, components):
    """A trace cut short, or with records after the score, is caught."""
    records = recorded[0]
    with pytest.raises(ReplayMismatch, match="ended"):
        replay(records[: len(records) // 2], components)
    with pytest.raises(ReplayMismatch):
        replay(records + [records[-1]], components)
    with pytest.raises(ReplayMismatch):
        replay(records[:5] + records[6:], components)


def test_header_is_required(recorded, components):
    """A trace without its header, or from another component set, does not replay."""
    records = recorded[0]
    with pytest.raises(ReplayMismatch, match="header"):
        replay(records[1:], components)
    other = copy.deepcopy(records)
    other[0]["components"] = "0" * 16
    with pytest.raises(ReplayMismatch, match="component set"):
        replay(other, components)


def test_changed_deal_is_caught(recorded, components):
    """Swapping two cards of the dealt decks changes the game and is caught."""
    records = copy.deepcopy(recorded[0])
    decks = records[0]["deal"]["decks"]
    decks[0][0][0], decks[0][0][1] = decks[0][0][1], decks[0][0][0]
    with pytest.raises(ReplayMismatch):
        replay(records, components)


def test_bad_json_line(tmp_path):
    """An unreadable trace line is reported with file and line number."""
    path = tmp_path / "bad.jsonl"
    path.write_text('{"type": "header"}\n{not json\n')
    with pytest.raises(ReplayMismatch, match=r"bad.jsonl:2"):
        read_trace(path)


def test_trace_with_own_component_set(tmp_path):
    """A game played on a user's component set replays with that set, not with the default."""
    d = copy_default(tmp_path)
    edit_csv(d / "cards.csv", "I-Y-01", "cost", "0")
    custom = load_components(d)
    records, sheet = record_game(custom, players=2, seed=8)
    assert replay(records, custom) == sheet
    # it said "pass the same --components", an option of commands; replay is called from Python
    with pytest.raises(ReplayMismatch, match=r"component set .*: pass that set, replay\(records, "
                                             r"load_components\(PATH\)\)") as told:
        replay(records)
    call = re.search(r"(replay\(records, load_components\(PATH\)\))", str(told.value)).group(1)
    assert eval(call, {"replay": replay, "records": records, "load_components": load_components, "PATH": d}) == sheet

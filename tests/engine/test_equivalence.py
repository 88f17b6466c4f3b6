"""The batch engine and the reference engine agree on every game (replay equivalence)."""

import numpy as np
import pytest

from hadara_sim import load_components, make_deals
from hadara_sim.engine.game import BatchGame, play_batch
from hadara_sim.engine.record import BatchRecorder
from hadara_sim.policy import IllegalChoice, Policy
from hadara_sim.reference import Game
from hadara_sim.registry import make_policy
from hadara_sim.trace import ReplayMismatch, replay
from hadara_sim.verify import verify_chunk

GAMES = 120  # per player count and game kind


@pytest.fixture(scope="module")
def components():
    return load_components()


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("advanced", [False, True], ids=["basic", "advanced"])
def test_every_batch_game_replays_in_the_reference_engine(components, players, advanced):
    """Same legal options at every decision, same state after every step, same score sheet."""
    policies = [make_policy("random", seed=11), make_policy("greedy")]
    result = verify_chunk(components, players, advanced, GAMES, seed=5, chunk=0, policies=policies)
    assert result.games == GAMES
    assert result.failures == []
    assert result.agreed == GAMES


def test_a_changed_choice_in_an_exported_trace_is_caught(components):
    """Replay really checks: altering one recorded choice makes it fail."""
    deals = make_deals(components, 3, 4, seed=2)
    recorder = BatchRecorder(deals, components)
    play_batch(deals, components, [make_policy("random", seed=1)] * 3, recorder=recorder)
    records = recorder.trace(1)
    draw = next(r for r in records if r["type"] == "decision" and r["kind"] == "draw")
    draw["choice"] = next(o for o in draw["options"] if o != draw["choice"])
    with pytest.raises(ReplayMismatch):
        replay(records, components)


@pytest.mark.parametrize("policy", ["greedy", "random"])
@pytest.mark.parametrize("advanced", [False, True], ids=["basic", "advanced"])
def test_a_game_cut_out_of_a_batch_plays_the_same_alone(components, policy, advanced):
    """Game i of a batch gives the same sheet alone, in either engine."""
    deals = make_deals(components, 4, 40, seed=9, advanced=advanced)
    pol = make_policy(policy, seed=4)
    sheet = play_batch(deals, components, [pol] * 4)
    for i in (0, 17, 39):
        alone = play_batch(deals[i], components, [pol] * 4)
        assert all(np.array_equal(alone[k][0], sheet[k][i]) for k in sheet)
        reference = Game(deals[i], components, [pol] * 4).play()
        assert [row["total"] for row in reference] == sheet["total"][i].tolist()
        assert [row["win_share"] for row in reference] == sheet["win_share"][i].tolist()


def test_same_seed_twice_gives_identical_results(components):
    deals_a = make_deals(components, 5, 64, seed=3, advanced=True)
    deals_b = make_deals(components, 5, 64, seed=3, advanced=True)
    pols = [make_policy("random", seed=8)] * 5
    a, b = play_batch(deals_a, components, pols), play_batch(deals_b, components, pols)
    assert all(np.array_equal(a[k], b[k]) for k in a)


def test_policies_never_change_the_deals(components):
    """Deal chance and policy chance are separate streams: the deals depend on the seed only."""
    deals = make_deals(components, 4, 32, seed=21)
    before = deals.decks.copy()
    play_batch(deals, components, [make_policy("random", seed=1)] * 4)
    play_batch(deals, components, [make_policy("greedy")] * 4)
    again = make_deals(components, 4, 32, seed=21)
    assert np.array_equal(before, deals.decks) and np.array_equal(again.decks, deals.decks)
    assert np.array_equal(again.colonies, deals.colonies)


def test_seats_can_be_played_by_different_policies_per_game(components):
    """A seat-to-policy table routes each seat of each game to its policy."""
    deals = make_deals(components, 2, 50, seed=1)
    table = np.array([[g % 2, 1 - g % 2] for g in range(50)])
    sheet = play_batch(deals, components, [make_policy("greedy"), make_policy("random", seed=2)], table)
    greedy_scores = np.where(table == 0, sheet["total"], 0).sum() / 50
    random_scores = np.where(table == 1, sheet["total"], 0).sum() / 50
    assert greedy_scores > random_scores


class _Cheat(Policy):
    name = "cheat"

    def draw(self, decision):
        return np.full(len(decision), 7)  # not an option of a draw decision


def test_an_illegal_choice_names_the_policy_and_the_decision(components):
    deals = make_deals(components, 3, 8, seed=1)
    with pytest.raises(IllegalChoice, match=r"policy 'cheat' chose option 7 at decision 'draw'"):
        BatchGame(deals, components, [_Cheat()] * 3).play()
    with pytest.raises(IllegalChoice, match=r"policy 'cheat'.*'draw'"):
        Game(deals[0], components, [_Cheat()] * 3).play()

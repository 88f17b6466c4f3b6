"""The compiled engine asks built-in bots inside compiled code and every other policy in Python:
both ways give the same games, and a kernel's mistake is reported like a Python policy's."""

import numpy as np
import pytest

from hadara_sim import make_deals
from hadara_sim.engine.decide import history_width
from hadara_sim.engine.game import BatchGame, Grant, Replay, play_batch
from hadara_sim.policy import Policy
from hadara_sim.registry import make_policy
from hadara_sim.verify import seat_table

from helpers import InPython

BUILT_INS = ["balanced", "military", "culture", "economy", "sets", "balanced-v1", "greedy"]


@pytest.mark.parametrize("players,advanced", [(2, False), (3, True), (4, False), (5, True)])
def test_kernels_in_the_engine_play_as_the_python_methods(components, players, advanced):
    """Every built-in decides the same inside the compiled engine as through its Python methods (which
    gather the view): identical score sheets, sides, grants and seats rotated included."""
    games = 60
    deals = make_deals(components, players, games, seed=players, advanced=advanced, exclude=(41,))
    table = seat_table(games, players, len(BUILT_INS))
    options = {"grants": [Grant(1, 41, np.arange(games) % players)]}
    if advanced:
        fixed = np.arange(games * players).reshape(games, players) % 3 == 0
        options["sides"] = np.where(fixed, 1, -1).astype(np.int8)  # a third fixed to B, the rest chosen
    compiled = play_batch(deals, components, [make_policy(name) for name in BUILT_INS], table, **options)
    python = play_batch(deals, components, [InPython(make_policy(name)) for name in BUILT_INS], table, **options)
    for line in compiled:
        assert np.array_equal(compiled[line], python[line]), line


def test_a_subclass_keeps_the_kernel_for_the_kinds_it_does_not_override(components):
    """A subclass of a built-in that overrides one kind is asked in Python for that kind only."""
    from hadara_sim.policies.styles import Balanced

    asked = []

    class NoSilver(Balanced):
        name = "no-silver"

        def medal(self, d):
            asked.append(len(d))
            choice = super().medal(d)
            return np.where((choice >= 1) & (choice <= 4), 0, choice)

    policy = NoSilver()
    kinds = {"wheel", "side", "draw", "tile", "pick", "colony", "statue", "feed"}
    assert policy.kernel(components).kinds == frozenset(kinds)
    deals = make_deals(components, 3, 30, seed=4)
    sheet = play_batch(deals, components, [policy, make_policy("military"), make_policy("culture")])
    assert asked and sum(asked) >= 30  # every game reached a medal step of seat 0
    assert sheet["silver"][:, 0].sum() == 0


def test_a_kernel_that_values_every_option_as_nan_still_chooses_a_legal_one(components):
    """No value beats -inf: the kernel falls back to the first legal option (the engine refuses an
    illegal one by name, so the game completing shows every choice was legal)."""
    policy = make_policy("balanced")
    kernel = policy.kernel(components)
    policy.kernel = lambda components=None, **shape: kernel._replace(params=np.full_like(kernel.params, np.nan))
    deals = make_deals(components, 2, 10, seed=1)
    sheet = play_batch(deals, components, [policy, make_policy("greedy")])
    assert (sheet["total"] >= 0).all()


def test_the_history_of_a_game_fits_its_bound(components):
    """The forward model's record of choices never outgrows `history_width` (random play asks most)."""
    for players in (2, 5):
        deals = make_deals(components, players, 200, seed=players, advanced=True)
        game = BatchGame(deals, components, [make_policy("random", seed=1)] * players)
        game.play()
        assert game.history.shape[1] == history_width(players, components.n_cards, 0)
        assert 0 < game.serial.max() <= game.history.shape[1]
        kept = game.history[np.arange(200), game.serial - 1]
        assert (kept >= 0).all()


class NeverAsked(Policy):
    name = "never-asked"

    def decide(self, decision):
        raise AssertionError(f"asked at a replayed '{decision.kind}' decision")


@pytest.mark.parametrize("players,advanced", [(2, True), (4, False)])
def test_a_replay_plays_the_recorded_game_again_without_asking(components, players, advanced):
    """The forward model's replay inside the engine: a whole game's recorded choices give the same game."""
    deals = make_deals(components, players, 40, seed=3, advanced=advanced)
    game = BatchGame(deals, components, [make_policy("random", seed=2), make_policy("balanced")] * (players // 2))
    sheet = game.play()
    replay = Replay(game.history, game.serial.astype(np.int64), np.full(40, -1), "draw")
    again = play_batch(deals, components, [NeverAsked()] * players, replay=replay)
    for line in sheet:
        assert np.array_equal(sheet[line], again[line]), line

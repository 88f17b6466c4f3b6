"""`search`: flat Monte Carlo over the forward model."""

import numpy as np
import pytest

from hadara_sim import load_components, make_deals
from hadara_sim.engine.game import play_batch
from hadara_sim.forward import Forward
from hadara_sim.policy import PolicyError
from hadara_sim.reference import Game
from hadara_sim.registry import make_policy


def test_search_plays_legally_and_a_game_plays_the_same_alone_as_in_a_batch():
    c = load_components()
    deals = make_deals(c, 2, 3, seed=5, advanced=True)
    search = make_policy("search", seed=1, budget=2, kinds=("side", "draw"))
    sheet = play_batch(deals, c, [search, make_policy("balanced")], forward=Forward)
    alone = play_batch(deals[2], c, [search, make_policy("balanced")], forward=Forward)
    assert np.array_equal(alone["total"][0], sheet["total"][2])
    reference = Game(deals[2], c, [search, make_policy("balanced")], forward=Forward).play()
    assert [row["total"] for row in reference] == sheet["total"][2].tolist()


def test_search_without_the_forward_model_says_so():
    """The engines do not import the forward model (it sits above them): a game played without one
    stops at search's first searched decision, naming the policy, instead of playing its rollout."""
    c = load_components()
    deals = make_deals(c, 2, 2, seed=5, advanced=True)
    search = make_policy("search", seed=1, budget=2, kinds=("draw",))
    with pytest.raises(PolicyError, match="search.*needs the forward model.*forward=hadara_sim.forward.Forward"):
        play_batch(deals, c, [search, make_policy("balanced")])


def test_search_keeps_the_rollout_policy_choice_among_its_candidates():
    c = load_components()
    deals = make_deals(c, 2, 2, seed=1, advanced=True)
    search = make_policy("search", max_options=3)
    seen = []

    class Spy:
        name = "spy"

        def decide(self, d):
            if d.kind == "pick":
                options = search.candidates(d)
                seen.append((options, search.rollout.decide(d), d.legal))
            return search.rollout.decide(d)

    play_batch(deals, c, [Spy(), make_policy("balanced")])
    for options, first, legal in seen:
        assert options.shape[1] <= 3
        assert np.array_equal(options[:, 0], first)
        assert np.take_along_axis(legal, options, axis=1).all()


def test_search_models_its_opponents_with_the_opponent_policy():
    """rollout plays the searching seat's copies on, opponent the other seats' (default: the rollout);
    a game with an opponent model of its own plays legally and alike alone and in a batch."""
    c = load_components()
    plain = make_policy("search", rollout="foresight")
    assert plain.rivals is plain.rollout
    search = make_policy("search", seed=1, budget=2, kinds=("draw",), rollout="foresight", opponent="balanced")
    assert (search.rollout.name, search.rivals.name) == ("foresight", "balanced")
    deals = make_deals(c, 2, 2, seed=5, advanced=True)
    sheet = play_batch(deals, c, [search, make_policy("balanced")], forward=Forward)
    alone = play_batch(deals[1], c, [search, make_policy("balanced")], forward=Forward)
    assert np.array_equal(alone["total"][0], sheet["total"][1])

"""`search`: flat Monte Carlo over the forward model."""

import numpy as np
import pytest

from hadara_sim import load_components, make_deals
from hadara_sim.engine.game import play_batch
from hadara_sim.forward import Forward
from hadara_sim.policies.search import margins
from hadara_sim.policies.value import VALUE_FILE
from hadara_sim.policy import PolicyError
from hadara_sim.reference import Game
from hadara_sim.registry import make_policy


@pytest.mark.parametrize("depth", [1, 3])
def test_search_plays_legally_and_a_game_plays_the_same_alone_as_in_a_batch(depth):
    c = load_components()
    deals = make_deals(c, 2, 3, seed=5, advanced=True)
    search = make_policy("search", seed=1, budget=2, depth=depth, kinds=("side", "draw", "pick"))
    assert (search.value is None) == (depth == 3)  # the position value is read only for shorter copies
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


def test_depth_limited_search_compares_options_by_the_value_at_the_epoch_end():
    """At an epoch-I pick, depth 1 stops the copies at the end of epoch I and ranks options by the
    value's margins there; depth 3 plays them to the end."""
    c = load_components()
    deals = make_deals(c, 2, 2, seed=3, advanced=True)
    shallow = make_policy("search", seed=1, budget=2, depth=1)
    deep = make_policy("search", seed=1, budget=2, depth=3)
    seen = {}

    class Spy:
        name = "spy"

        def decide(self, d):
            if d.kind == "pick" and not seen:
                options = shallow.candidates(d)
                for name, policy in (("shallow", shallow), ("deep", deep)):
                    seen[name] = margins(d, options, 2, policy.rollout, policy.keys(d), policy.rivals,
                                         int(policy.settings["depth"]), policy.value)
                total = d.forward.play(options, 2, shallow.rollout, shallow.rivals, seed=shallow.keys(d),
                                       last_epoch=1, value=shallow.value.totals)["total"]
                me = d.view.player.astype(np.int64)
                rows = np.arange(len(d))
                others = total.copy()
                others[rows, :, :, me] = -np.inf
                seen["by_hand"] = (total[rows, :, :, me] - others.max(axis=3)).mean(axis=2)
            return shallow.rollout.decide(d)

    play_batch(deals, c, [Spy(), make_policy("balanced")], forward=Forward)
    assert np.allclose(seen["shallow"], seen["by_hand"])
    assert not np.allclose(seen["shallow"], seen["deep"])


def test_search_refuses_a_value_of_another_component_set(tmp_path):
    c = load_components()
    text = VALUE_FILE.read_text(encoding="utf-8").replace(f'components = "{c.base_digest}"',
                                                           'components = "0123456789abcdef"')
    (tmp_path / "v.toml").write_text(text, encoding="utf-8")
    search = make_policy("search", budget=1, depth=1, value=str(tmp_path / "v.toml"), kinds=("pick",))
    deals = make_deals(c, 2, 1, seed=3, advanced=True)
    with pytest.raises(PolicyError, match="fitted on the component set 0123456789abcdef"):
        play_batch(deals, c, [search, make_policy("balanced")], forward=Forward)

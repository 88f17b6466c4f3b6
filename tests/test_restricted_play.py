"""Restricted play: a built-in with `avoid` never buys those cards, with `seek` buys one whenever it can,
in both engines and through every path a built-in decides by (its kernel, its Python methods)."""

import numpy as np
import pytest

from hadara_sim import load_components, make_deals
from hadara_sim.actions import BUY, draw_option, pick_option
from hadara_sim.constants import LOC_SOLD
from hadara_sim.engine.game import BatchGame
from hadara_sim.kernels.restrict import restriction_mask
from hadara_sim.policy import Policy
from hadara_sim.reference import Game
from hadara_sim.registry import make_policy

from helpers import InPython

GAMES = 40


@pytest.fixture(scope="module")
def components():
    return load_components()


def _cards(components, epochs=(1, 2), colours=(0, 2)):
    """Many cards, so that a restricted seat meets them often: every card of some colours and epochs."""
    return [c.id for c in components.cards if c.epoch in epochs and c.colour in colours]


def _bought(game: BatchGame, seat: int) -> np.ndarray:
    """(games, C) cards the seat bought (kept or later fed away): taken by it and not sold."""
    s = game.s
    return (s.card_seat == seat) & (s.location != LOC_SOLD)


def _sold(game: BatchGame, seat: int) -> np.ndarray:
    s = game.s
    return (s.card_seat == seat) & (s.location == LOC_SOLD)


@pytest.mark.parametrize("policy", ["greedy", "economy", "random"])
def test_an_avoided_card_is_never_bought_but_still_drawn_and_sold(components, policy):
    deals = make_deals(components, 4, GAMES, seed=3, advanced=True)
    avoid = _cards(components)
    index = [components.card_index[c] for c in avoid]
    free = make_policy(policy, seed=1)
    restricted = make_policy(policy, seed=1, avoid=avoid)
    control = BatchGame(deals, components, [free] * 4)
    control.play()
    game = BatchGame(deals, components, [restricted, free, free, free])
    game.play()
    assert _bought(control, 0)[:, index].sum() > GAMES  # unrestricted, the seat buys them often
    assert _bought(game, 0)[:, index].sum() == 0
    assert _sold(game, 0)[:, index].sum() > 0  # drafted and sold, never bought
    assert _bought(game, 1)[:, index].sum() > 0  # the other seats play freely


class Watched(Policy):
    """A built-in asked in Python at every decision; each draw and pick is checked against its restriction:
    no avoided card bought, and a sought card bought whenever its purchase is legal."""

    def __init__(self, inner, mask):
        super().__init__()
        self.inner, self.name, self.mask, self.checked = inner, inner.name, mask, {"avoid": 0, "seek": 0}

    def decide(self, d):
        choices = self.inner.decide(d)
        if d.kind in ("draw", "pick"):
            for i, choice in enumerate(choices.tolist()):
                offers = self._purchases(d, i)
                bought = dict(offers).get(choice)
                assert bought is None or self.mask[bought] != 1, f"bought avoided card {bought}"
                sought = [option for option, card in offers if d.legal[i, option] and self.mask[card] == 2]
                if sought:
                    assert choice in sought, f"a sought card could be bought ({sought}) but {choice} was chosen"
                    self.checked["seek"] += 1
                if any(self.mask[card] == 1 for _, card in offers):
                    self.checked["avoid"] += 1
        return choices

    @staticmethod
    def _purchases(d, i):
        """(option, card) of every purchase the decision offers in row i."""
        if d.kind == "draw":
            return [(draw_option(k, BUY), int(d.view.hand[i, 1 - k])) for k in range(2)]
        sizes, piles = d.view.pile_size[i], d.view.piles[i]
        return [(pick_option(c, BUY), int(piles[c, sizes[c] - 1])) for c in range(5) if sizes[c] > 0]


@pytest.mark.parametrize("policy", ["balanced-v1", "greedy", "random"])
def test_a_sought_card_is_bought_whenever_offered_and_affordable_in_both_engines(components, policy):
    seek = _cards(components, epochs=(1, 2, 3), colours=(1, 3))
    avoid = _cards(components, epochs=(1, 2, 3), colours=(0,))
    inner = make_policy(policy, seed=2, seek=seek, avoid=avoid)
    mask = restriction_mask(inner.settings, components, policy)
    free = make_policy(policy, seed=2)
    deals = make_deals(components, 3, 6, seed=8, advanced=True)
    watched = Watched(inner, mask)
    batch = BatchGame(deals, components, [watched, free, free])  # the Python path, in the batch engine
    sheet = batch.play()
    kernel = BatchGame(deals, components, [inner, free, free]).play()  # the kernel path
    assert all(np.array_equal(kernel[k], sheet[k]) for k in sheet)
    for i in range(len(deals)):  # the reference engine, game by game
        reference = Game(deals[i], components, [watched, free, free]).play()
        assert [row["total"] for row in reference] == sheet["total"][i].tolist()
    assert watched.checked["seek"] > 10 and watched.checked["avoid"] > 10


def test_an_unrestricted_built_in_plays_as_before(components):
    """No card named: the same games as a policy that was never given the parameters."""
    deals = make_deals(components, 2, 20, seed=4)
    a = BatchGame(deals, components, [make_policy("greedy", avoid=[], seek=[])] * 2).play()
    b = BatchGame(deals, components, [InPython(make_policy("greedy"))] * 2).play()
    assert all(np.array_equal(a[k], b[k]) for k in a)


def test_restricted_play_refuses_unknown_cards_and_a_card_in_both_lists(components):
    with pytest.raises(ValueError, match="in both avoid and seek"):
        make_policy("balanced", avoid=["I-B-01"], seek=["I-B-01", "I-B-02"])
    with pytest.raises(ValueError, match="parameter avoid: no card 'I-X-99'"):
        restriction_mask({"avoid": ["I-X-99"]}, components, "greedy")
    with pytest.raises(ValueError, match="parameter seek"):
        make_policy("greedy", seek=[3])

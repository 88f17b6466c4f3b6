"""Information rules (RULINGS 3): a policy sees public information and its own cards only."""

import numpy as np
import pytest

from hadara_sim import load_components, make_deals
from hadara_sim.engine.game import play_batch
from hadara_sim.reference import Game
from hadara_sim.policies.greedy import Greedy


class Peeker(Greedy):
    """Plays greedy; tries to read hidden state and records what draw decisions show."""

    name = "peeker"

    def __init__(self, **kw):
        super().__init__(**kw)
        self.hidden_refused = []
        self.draws = []  # (draw round, seat, pile sizes seen, hand)

    def decide(self, decision):
        for hidden in ("location", "decks", "deals", "colony_tile", "deck_ptr"):
            try:
                getattr(decision.view, hidden)
            except AttributeError as err:
                self.hidden_refused.append(str(err))
            else:
                raise AssertionError(f"a policy could read hidden state {hidden!r}")
        if decision.kind == "draw":
            v = decision.view
            self.draws.append((int(v.draw_round[0]), v.player.copy(), v.pile_size.copy(), v.hand.copy()))
        return super().decide(decision)


@pytest.mark.parametrize("engine", ["batch", "reference"])
def test_hidden_state_cannot_be_read(engine):
    c = load_components()
    deals = make_deals(c, 3, 4, seed=1, advanced=True)
    peeker = Peeker()
    if engine == "batch":
        play_batch(deals, c, [peeker] * 3)
    else:
        Game(deals[0], c, [peeker] * 3).play()
    assert peeker.hidden_refused and "cannot see" in peeker.hidden_refused[0]


def test_simultaneous_draws_show_every_seat_the_piles_before_the_round():
    """Nobody sees another's discard of the same draw round before deciding."""
    c = load_components()
    deals = make_deals(c, 4, 16, seed=2)
    peeker = Peeker()
    play_batch(deals, c, [peeker] * 4)
    # draws come seat by seat within a round: 4 calls per round, 5 rounds per epoch, 3 epochs
    assert len(peeker.draws) == 4 * 5 * 3
    for r in range(0, len(peeker.draws), 4):
        round_calls = peeker.draws[r:r + 4]
        assert len({call[0] for call in round_calls}) == 1
        first_piles = round_calls[0][2]
        for _, _, piles, _ in round_calls:
            assert np.array_equal(piles, first_piles)
        # each seat's hand is its own: the four hands of a round are distinct cards
        hands = np.stack([call[3] for call in round_calls], axis=1)  # (games, seats, 2)
        flat = hands.reshape(len(hands), -1)
        assert all(len(set(row)) == flat.shape[1] for row in flat.tolist())

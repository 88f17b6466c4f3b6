"""Both engines show a policy the same thing at every decision, field by field."""

import numpy as np
import pytest

from hadara_sim import load_components, make_deals
from hadara_sim.engine.game import play_batch
from hadara_sim.policy import PRIVATE_FIELDS, VIEW_FIELDS
from hadara_sim.reference import Game
from hadara_sim.registry import make_policy


class Recorder:
    """Plays like `inner` and keeps, per (game, decision number), the kind, the legal options and
    every visible and private field of the acting player's view."""

    name = "recorder"

    def __init__(self, inner):
        self.inner = inner
        self.seen: dict[tuple[int, int], dict] = {}

    def decide(self, decision):
        v = decision.view
        fields = {name: np.asarray(getattr(v, name)) for name in VIEW_FIELDS}
        fields.update({name: np.asarray(v.__dict__[name]) for name in PRIVATE_FIELDS if name in v.__dict__})
        for i, (game, serial) in enumerate(zip(decision.game_id.tolist(), decision.serial.tolist())):
            self.seen[game, serial] = {"kind": decision.kind, "legal": decision.legal[i].copy(),
                                       **{name: value[i].copy() for name, value in fields.items()}}
        return self.inner.decide(decision)


def differences(batch: dict, reference: dict) -> list[str]:
    out = []
    for key in sorted(set(batch) | set(reference)):
        a, b = batch.get(key), reference.get(key)
        if a is None or b is None:
            out.append(f"game {key[0]} decision {key[1]}: asked in one engine only")
            continue
        for name in a.keys() | b.keys():
            if name not in a or name not in b or not np.array_equal(a[name], b[name]):
                out.append(f"game {key[0]} decision {key[1]} ({a['kind']}): {name} "
                           f"batch {a.get(name)} reference {b.get(name)}")
    return out


@pytest.mark.parametrize("players", [2, 3, 5])
@pytest.mark.parametrize("policy", ["random", "balanced"])
def test_every_decision_shows_the_same_view_in_both_engines(players, policy):
    c = load_components()
    deals = make_deals(c, players, 3, seed=21 + players, advanced=True)
    batch = Recorder(make_policy(policy, seed=3))
    play_batch(deals, c, [batch] * players)
    reference = Recorder(make_policy(policy, seed=3))
    for i in range(len(deals)):
        Game(deals[i], c, [reference] * players).play()
    assert len(batch.seen) > 30 * players * len(deals)
    assert differences(batch.seen, reference.seen) == []


def test_setup_sides_are_chosen_without_seeing_earlier_seats():
    """Sides are simultaneous: every seat's side decision shows all sides unchosen (-1)."""
    c = load_components()
    deals = make_deals(c, 4, 5, seed=1, advanced=True)
    rec = Recorder(make_policy("random", seed=2))
    play_batch(deals, c, [rec] * 4)
    sides = [view["side"] for view in rec.seen.values() if view["kind"] == "side"]
    assert len(sides) == 4 * len(deals)
    assert all((side == -1).all() for side in sides)


def test_the_wheel_shows_draw_round_zero_in_every_epoch():
    c = load_components()
    deals = make_deals(c, 3, 2, seed=4, advanced=True)
    rec = Recorder(make_policy("random", seed=2))
    for i in range(len(deals)):
        Game(deals[i], c, [rec] * 3).play()
    wheels = [view for view in rec.seen.values() if view["kind"] == "wheel"]
    assert sorted(int(v["epoch"]) for v in wheels) == [1, 1, 2, 2, 3, 3]
    assert all(int(v["draw_round"]) == 0 for v in wheels)

"""The compiled decisions of the built-in bots (hadara_sim/kernels/): hand-worked choices, the kinds a
subclass keeps for itself, and the same choice through the Python methods and a direct call."""

from types import SimpleNamespace

import numpy as np
import pytest

from hadara_sim import load_components, make_deals
from hadara_sim.components import kernel_arrays
from hadara_sim.constants import COLONY_LEVELS, EFFECT_IDS, MILITARY
from hadara_sim.engine.game import play_batch
from hadara_sim.policy import Decision, Policy, View
from hadara_sim.registry import make_policy
from hadara_sim.kernels import layout as kernels
from hadara_sim.kernels.decide import decide
from hadara_sim.policies.greedy import Greedy
from hadara_sim.policies.planner import Planner
from hadara_sim.policies.styles import Balanced, Culture, Military

RED_2 = 16   # I-R-07: red, cost 2, 2 points, one military step
BLUE_2 = 23  # I-B-04: blue, cost 2, 2 points, one culture step


@pytest.fixture(scope="module")
def components():
    return load_components()


def decision(components, kind, legal, epoch=1, phase=0, players=2, **state):
    """A one-game decision for seat 0 with an empty board, `state` overriding fields of that game."""
    P = players
    fields = dict(
        epoch=[epoch], phase=[phase], coins=np.zeros((1, P)), tracks=np.zeros((1, P, 4)),
        colour_count=np.zeros((1, P, 5)), effects=np.zeros((1, P, len(EFFECT_IDS)), bool),
        tiles=np.full((1, P, 4), 2), colonies=np.zeros((1, P, COLONY_LEVELS)), statues=np.full((1, P, 4), -1),
        silver=np.full((1, P, 2), -1), gold=np.zeros((1, P)), initiative=np.arange(1, P + 1)[None],
        piles=np.full((1, 5, P), -1), pile_size=np.zeros((1, 5)), colony_left=np.full((1, COLONY_LEVELS), P),
        colony_front=np.zeros((1, COLONY_LEVELS, 4)), colour_order=np.arange(5)[None])
    private = {name: np.asarray(state.pop(name))[None] for name in ("hand", "card", "feed_need") if name in state}
    for name, value in state.items():
        fields[name] = np.asarray(value)
    source = SimpleNamespace(**{name: np.asarray(value) for name, value in fields.items()})
    view = View(source, np.array([0]), P, components, player=np.array([0]), **private)
    return Decision(kind, np.array([legal], bool), view, np.array([0]), np.array([0], np.int32))


def test_a_card_reaching_the_next_colony_requirement_is_worth_the_prize(components):
    """Two cards alike but for the track: the planner values culture (1.0) over military (0.8) and
    buys the blue card, unless the red one lifts military to the level-1 colony (3) in time: then its
    colony_prize (3.0) decides."""
    tracks = np.zeros((1, 2, 4))
    tracks[0, 0, 3] = 5  # food to spare: no feeding risk
    hand = [RED_2, BLUE_2]  # option 0 discards the red card and buys the blue one, option 2 the reverse
    far = decision(components, "draw", [1, 1, 1, 1], tracks=tracks, hand=hand)
    assert Planner().draw(far)[0] == 0
    tracks[0, 0, MILITARY] = 2
    near = decision(components, "draw", [1, 1, 1, 1], tracks=tracks, hand=hand)
    assert Planner().draw(near)[0] == 2


def test_tile_goes_where_a_step_is_worth_most(components):
    """Last income step of the game: income 0.7 * 0.342 coin, military 0.8 and culture 1.0 a quarter
    active, food 1.6 * 0.35 with slack: food (0.56); a silver medal on culture adds 0.5 (0.75)."""
    tracks = np.zeros((1, 2, 4))
    tracks[0, 0, 3] = 5
    assert Planner().tile(decision(components, "tile", [1] * 4, epoch=3, phase=1, tracks=tracks))[0] == 3
    silver = np.full((1, 2, 2), -1)
    silver[0, 0, 0] = 2
    assert Planner().tile(decision(components, "tile", [1] * 4, epoch=3, phase=1, tracks=tracks,
                                   silver=silver))[0] == 2


def test_military_takes_a_colony_the_planner_would_leave(components):
    """A level-1 colony 3 military away, nothing to plunder: buying the military costs more than it
    gives, so the planner takes none; military takes the first colony option."""
    front = np.zeros((1, COLONY_LEVELS, 4))
    front[0, 0] = (3, 0, 10, 0)
    legal = [1, 1, 1] + [0] * 8
    assert Planner().colony(decision(components, "colony", legal, colony_front=front))[0] == 0
    assert Military().colony(decision(components, "colony", legal, colony_front=front))[0] == 1


def test_culture_puts_a_silver_medal_on_culture(components):
    """Military 12 projects to 24 by the end: a silver medal on it scores 12 >= silver_min; culture's
    rule moves the planner's pick to the culture tile when that is legal."""
    tracks = np.zeros((1, 2, 4))
    tracks[0, 0, MILITARY] = 12
    legal = [1, 1, 1, 1, 1, 0]
    assert Planner().medal(decision(components, "medal", legal, tracks=tracks))[0] == 1 + MILITARY
    assert Culture().medal(decision(components, "medal", legal, tracks=tracks))[0] == 3


def test_greedy_faces_the_colour_it_holds_most_of(components):
    counts = np.zeros((1, 2, 5))
    counts[0, 1, 3] = 5  # seat 1 holds five green cards; seat 1 faces position k + 1
    d = decision(components, "wheel", [1] * 5, colour_count=counts)
    d.view.player = np.array([1])
    assert Greedy().wheel(d)[0] == 2


def test_a_subclass_keeps_the_kinds_it_overrides(components):
    plunderer = make_policy("docs/examples/plunderer.py:Plunderer")
    assert plunderer.kernel(components).kinds == frozenset(kernels.KIND_CODE) - {"colony", "medal"}
    assert Balanced().kernel(components).kinds == frozenset(kernels.KIND_CODE)

    class Own(Greedy):
        def decide(self, d):
            return super().decide(d)

    assert Own().kernel(components).kinds == frozenset()
    assert Policy().kernel(components) is None and make_policy("random").kernel(components) is None


def _changed(base, **changes):
    """A user's subclass of `base` whose kernel() returns the built-in's Kernel with `changes` made."""

    class Changed(base):
        name = "changed"

        def kernel(self, components, players=None, advanced=True):
            spec = super().kernel(components, players, advanced)
            made = {name: change(spec) if callable(change) else change for name, change in changes.items()}
            return spec._replace(**made)

    return Changed()


def _trees_feature(spec, feature):
    """The expert's params with one statue tree of depth 1 splitting on input `feature`."""
    from hadara_sim.kernels.expert import TREES_AT

    return np.concatenate([spec.params[:TREES_AT], [1, 1, 0.0, feature, 0.5, 1.0, 2.0]])


@pytest.mark.parametrize("base, changes, words", [
    (Greedy, {"code": 7}, "code 7 is no built-in's kernel"),
    (Greedy, {"code": [2]}, "code [2] is no built-in's kernel"),
    (Greedy, {"kinds": {"draws"}}, "kinds {'draws'} are not a set of decision kinds"),
    (Greedy, {"kinds": "draw"}, "kinds 'draw' are not a set of decision kinds"),
    (Greedy, {"params": lambda spec: spec.params[:-1]}, "params hold 5 numbers, not greedy's 6"),
    (Greedy, {"params": lambda spec: spec.params[None]}, "params are not a row of numbers (shape (1, 6))"),
    (Greedy, {"table": lambda spec: spec.table[:, :, :3]}, "table is not (3, 2, "),
    (Greedy, {"params": "coin"}, "params or table are not numbers"),
    (Balanced, {"params": lambda spec: np.r_[spec.params, 0.0]}, "not the planner's"),
    (Balanced, {"params": lambda spec: _with_sides(spec.params, [7, 0, 0, 0, 0])}, "side table [7.0, 0.0, 0.0"),
    ("expert", {"params": lambda spec: _trees_feature(spec, 99)}, "statue tree 0 splits on inputs other than"),
    ("expert", {"params": lambda spec: spec.params[:-1]}, "of its trees"),
    ("expert", {"params": lambda spec: spec.params[:kernels.PLANNER_PARAMS]}, "fewer than the expert reads"),
])
def test_a_kernel_of_wrong_contents_is_the_policys_fault_before_compiled_code_reads_it(components, base, changes,
                                                                                      words):
    """A user's kernel() was only checked to return a Kernel: a side table's side 7 or a tree's input 99 was read
    past their arrays by compiled code, a code of 7 stopped on an unexpected KeyError."""
    from hadara_sim.policies.expert import Expert
    from hadara_sim.policy import PolicyError

    changed = _changed(Expert if base == "expert" else base, **changes)
    deals = make_deals(components, 2, 2, seed=1)
    with pytest.raises(PolicyError, match="policy 'changed': its kernel\\(\\) returned a Kernel whose ") as told:
        play_batch(deals, components, [changed, make_policy("random")])
    assert words in str(told.value)


def _with_sides(params, sides):
    params = params.copy()
    params[kernels.SIDE_TABLE], params[kernels.SIDES_AT:kernels.SIDES_AT + 5] = 1.0, sides
    return params


def test_every_built_in_kernel_passes_the_contents_check(components):
    from hadara_sim.kernels.decide import kernel_problem
    from hadara_sim.registry import available_policies

    for name in sorted(set(available_policies()) - {"human"}):
        for players in (2, 5):
            spec = make_policy(name).kernel(components, players=players)
            assert spec is None or kernel_problem(spec, components.n_cards) is None, name
    trees = make_policy("expert").kernel(components, players=2)
    assert kernel_problem(trees._replace(params=_trees_feature(trees, 3)), components.n_cards) is None


def scratch_or_table(kernel, view):
    """A kernel's table as the engine passes it: a planner's is scratch space of the engine's width."""
    if kernel.code not in (kernels.PLANNER, kernels.EXPERT):
        return kernel.table
    return np.zeros((3, 2, max(view.components.n_cards, kernels.SCRATCH)))


class Checked(Policy):
    """Plays `inner` and checks each of its kernel's choices against a direct `decide` call on the
    batch engine's own state arrays, the way the compiled engine calls it."""

    def __init__(self, inner):
        super().__init__()
        self.inner, self.checked = inner, set()

    def decide(self, d):
        choice = self.inner.decide(d)
        view = d.view
        s = view._source
        kernel = self.inner.kernel(view.components)
        if d.kind in kernel.kinds:
            g = np.arange(s.games)[view._idx] if isinstance(view._idx, slice) else np.asarray(view._idx, np.int64)
            n = len(g)
            rows = lambda name, shape: (np.asarray(getattr(view, name), np.int64) if name in view.__dict__
                                        else np.zeros(shape, np.int64))
            out = np.empty(n, np.int64)
            seen = kernels.KernelView(**{name: getattr(s, name) for name in kernels.VIEW_ARRAYS})
            decide(kernel.code, kernels.KIND_CODE[d.kind], seen, np.arange(n), g, view.player.astype(int),
                           s.epoch_now, s.phase_now, np.array(d.legal), rows("hand", (n, 2)),
                           rows("card", n), rows("feed_need", n), s.colony_front,
                           kernel_arrays(view.components), kernel.params, scratch_or_table(kernel, view), out)
            assert np.array_equal(out, choice), d.kind
            self.checked.add(d.kind)
        return choice


@pytest.mark.parametrize("players", [2, 4])
def test_python_methods_and_a_direct_call_agree(components, players):
    names = ["balanced", "military", "culture", "economy", "sets", "balanced-v1", "greedy", "foresight"]
    policies = [Checked(make_policy(name)) for name in names]
    deals = make_deals(components, players, 70, seed=players, advanced=True)
    seats = (np.arange(players)[None, :] + np.arange(70)[:, None]) % len(names)
    play_batch(deals, components, policies, seats)
    assert set().union(*(p.checked for p in policies)) == set(kernels.KIND_CODE)


def test_foresight_takes_the_card_its_rival_needs_first(components):
    """Phase B at 2 players: the blue card is worth more to seat 0 (it leads on culture), the red one to
    seat 1 (one military step from the level-1 colony). `balanced` buys blue and leaves red to its
    rival; `foresight` plays the round forward, sees the rival take red, and takes red first (it sells
    it: the coins are worth more to it than the card); with rival_weight 0 (only its own picks count)
    it buys blue again."""
    tracks = np.zeros((1, 2, 4))
    tracks[0, :, 3] = 5  # food to spare
    tracks[0, 0, 2], tracks[0, 1, 1] = 2, 2
    piles = np.full((1, 5, 2), -1)
    piles[0, 1, 0], piles[0, 2, 0] = RED_2, BLUE_2
    legal = [0, 0, 1, 1, 1, 1, 0, 0, 0, 0]  # buy or sell red (options 2, 3) or blue (4, 5)
    state = dict(phase=1, tracks=tracks, piles=piles, pile_size=np.array([[0, 1, 1, 0, 0]]),
                 coins=np.array([[10, 10]]))
    assert Balanced().pick(decision(components, "pick", legal, **state))[0] == 4
    assert make_policy("foresight", rival_weight=1.0).pick(decision(components, "pick", legal, **state))[0] == 3
    assert make_policy("foresight", rival_weight=0.0).pick(decision(components, "pick", legal, **state))[0] == 4



def test_foresight_buys_the_games_last_medals_by_the_final_score(components):
    """Epoch III's medals are the game's last decision (endgame rule): a medal is bought when its
    points exceed the points its price takes from floor(coins / 5). Military 9: a silver scores 5;
    at 24 coins its 20 cost 4 points (24 // 5 - 4 // 5): +1, bought; `balanced` projects the track
    on and wants silver_min points, so it buys nothing. Military 7 scores 4 for the same 4: nothing
    gained, none bought (the coins left also break ties). Two complete sets and 30 coins: a gold
    medal scores 14 for 6 points of coins, better than the silver."""
    tracks = np.zeros((1, 2, 4))
    tracks[0, 0, MILITARY] = 9
    legal = [1, 1, 1, 1, 1, 1]
    last = dict(epoch=3, phase=1, tracks=tracks, coins=np.array([[24, 0]]))
    assert Balanced().medal(decision(components, "medal", legal, **last))[0] == 0
    assert make_policy("foresight").medal(decision(components, "medal", legal, **last))[0] == 1 + MILITARY
    tracks[0, 0, MILITARY] = 7
    assert make_policy("foresight").medal(decision(components, "medal", legal, **last))[0] == 0
    last.update(coins=np.array([[30, 0]]), colour_count=np.full((1, 2, 5), 2))
    assert make_policy("foresight").medal(decision(components, "medal", legal, **last))[0] == 5


def test_foresight_carves_its_last_statue_on_the_points_side(components):
    """After epoch III's phase B a statue's track steps can no longer pay (endgame rule). Culture 12,
    six cards on six food: `balanced` values a food step at its full weight (a feeding is near) and
    puts the second statue (8 points, bonus 3) coloured side up on food, option 1 + 8 + 2 * 3;
    foresight puts it on its points side with the tile of the lowest track (military 3), option
    1 + 8 + 2 * 1 + 1. After phase A foresight still chooses as `balanced`."""
    tracks = np.array([[[5, 3, 12, 6], [0, 0, 0, 0]]])
    state = dict(epoch=3, tracks=tracks, coins=np.array([[10, 0]]), colour_count=np.array([[[2, 1, 1, 1, 1]] * 2]))
    legal = [1] * 33
    phase_b = decision(components, "statue", legal, phase=1, **state)
    assert Balanced().statue(phase_b)[0] == 15
    assert make_policy("foresight").statue(phase_b)[0] == 12
    phase_a = decision(components, "statue", legal, phase=0, **state)
    assert make_policy("foresight").statue(phase_a)[0] == Balanced().statue(phase_a)[0] == 15

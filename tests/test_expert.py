"""`expert`: foresight plus a learned correction of its draws, picks and statues (policies/expert.py,
hadara_sim/kernels/expert.py), its weights file, and the expert iteration that learns them
(hadara_sim/learn.py, scripts/train_expert.py)."""

import dataclasses
import re

import numpy as np
import pytest

from hadara_sim import load_components, make_deals
from hadara_sim.engine.game import play_batch
from hadara_sim import actions as A
from hadara_sim.constants import CULTURE, EFFECT_IDS, FOOD, MILITARY, RED, REQUIREMENT_PRICE, YELLOW
from hadara_sim.forward import Forward
from hadara_sim.kernels import expert as kernel
from hadara_sim.kernels.layout import KIND_CODE, PATRON
from hadara_sim import learn
from hadara_sim.learn import Budget, fit, label, lineage, train, weights_toml
from hadara_sim.policies.expert import WEIGHTS_FILE, Expert, Weights, read_weights
from hadara_sim.reference import Game
from hadara_sim.registry import make_policy
from hadara_sim.verify import verify_chunk

from test_policy_kernels import Checked, decision

RED_2 = 16   # I-R-07: red, cost 2, 2 points, one military step
BLUE_2 = 23  # I-B-04: blue, cost 2, 2 points, one culture step
F = len(kernel.FEATURES)


@pytest.fixture(scope="module")
def components():
    return load_components()


def with_weights(components, **by_feature) -> Expert:
    """An expert whose weight of each named feature is the same in every epoch and kind."""
    vector = np.zeros((kernel.BLOCKS, F))
    for name, w in by_feature.items():
        vector[:, kernel.FEATURES.index(name)] = w
    return Expert.with_weights(Weights("test", components.digest, vector.reshape(-1)))


@pytest.fixture(scope="module")
def leaning(components):
    """An expert with a real correction: military steps worth 3 more, coins 0.2 more, points 0.5 less."""
    return with_weights(components, military=3.0, coins=0.2, points=-0.5)


def test_with_no_correction_the_expert_plays_exactly_like_foresight(components):
    for players in (2, 4):
        deals = make_deals(components, players, 40, seed=players, advanced=True)
        seats = (np.arange(players)[None, :] + np.arange(40)[:, None]) % 2
        zero = with_weights(components)
        a = play_batch(deals, components, [zero, make_policy("balanced")], seats, forward=Forward)
        b = play_batch(deals, components, [make_policy("foresight"), make_policy("balanced")], seats, forward=Forward)
        assert all(np.array_equal(a[k], b[k]) for k in a)


def test_the_learned_correction_decides_a_draw(components):
    """Two cards alike but for the track: foresight (leaning into military, where it leads on an empty
    board) buys the red card; a learned weight on culture steps makes the expert buy the blue one."""
    tracks = np.zeros((1, 2, 4))
    tracks[0, 0, 3] = 5  # food to spare
    d = decision(components, "draw", [1, 1, 1, 1], tracks=tracks, hand=[RED_2, BLUE_2], coins=np.full((1, 2), 5))
    assert make_policy("foresight").draw(d)[0] == 2      # discard blue, buy red
    assert with_weights(components).draw(d)[0] == 2
    assert with_weights(components, culture=3.0).draw(d)[0] == 0  # discard red, buy blue
    assert with_weights(components, buy=-20.0).draw(d)[0] in (1, 3)  # buying is worth nothing: sell


def test_a_player_counts_own_weights_play_at_that_count_and_the_shared_ones_elsewhere(components, tmp_path):
    """A file with weights of its own at 2 players (none: foresight's play) and shared ones valuing a
    culture step 3 more: at 2 players the expert buys the red card as foresight does, at 4 the blue."""
    shared = np.zeros((kernel.BLOCKS, F))
    shared[:, kernel.FEATURES.index("culture")] = 3.0
    path = tmp_path / "w.toml"
    path.write_text(weights_toml(Weights("", components.digest, shared.reshape(-1), {2: np.zeros(kernel.WEIGHTS)}),
                                 [], "test"))
    expert = make_policy("expert", weights=str(path))
    assert not expert.weights.at(2).any() and np.array_equal(expert.weights.at(4), shared.reshape(-1))
    assert not expert.kernel(None, 2).params[kernel.WEIGHTS_AT:kernel.TREES_AT].any()
    assert np.array_equal(expert.kernel(None, 4).params[kernel.WEIGHTS_AT:kernel.TREES_AT], shared.reshape(-1))
    for players, bought in ((2, 2), (4, 0)):  # option 2 discards blue and buys red, 0 the reverse
        tracks = np.zeros((1, players, 4))
        tracks[0, 0, 3] = 5
        d = decision(components, "draw", [1, 1, 1, 1], players=players, tracks=tracks, hand=[RED_2, BLUE_2],
                     coins=np.full((1, players), 5))
        assert make_policy("foresight").draw(d)[0] == 2
        assert expert.draw(d)[0] == bought


def test_the_features_of_a_draw_are_the_card_kept_and_its_price(components):
    tracks = np.zeros((1, 2, 4))
    tracks[0, 0, 3] = 5
    d = decision(components, "draw", [1, 1, 1, 1], tracks=tracks, hand=[RED_2, BLUE_2], coins=np.full((1, 2), 5))
    values, phi = kernel.learned_options(with_weights(components).kernel(components, 2), d)
    named = dict(zip(kernel.FEATURES, phi[0, 2]))  # discard blue, buy red
    assert named["buy"] == 1 and named["coins"] == -2 and named["points"] == 2 and named["military"] == 1
    assert named["culture"] == 0 and named["short"] == 0
    sale = dict(zip(kernel.FEATURES, phi[0, 1]))
    assert sale["buy"] == 0 and sale["coins"] == components.sell[0] and sale["points"] == 0
    assert values[0, 2] > values[0, 0]  # foresight's own values: red over blue


@pytest.mark.parametrize("players", [2, 4])
def test_the_expert_replays_in_the_reference_engine_on_every_seat(components, leaning, players):
    result = verify_chunk(components, players, True, 12, seed=3, chunk=0, policies=[leaning])
    assert result.failures == [] and result.agreed == 12


def test_an_expert_with_weights_of_its_own_at_2_players_replays_in_the_reference_engine(components, leaning):
    own = Expert.with_weights(Weights("test", components.digest, np.zeros(kernel.WEIGHTS), {2: leaning.weights.vector}))
    result = verify_chunk(components, 2, True, 12, seed=3, chunk=0, policies=[own])
    assert result.failures == [] and result.agreed == 12


def test_the_expert_decides_alike_in_the_compiled_engine_and_through_python(components, leaning):
    """Its Python methods (the reference engine's way) and the compiled call choose alike at every kind,
    and a game plays to the same sheet in both engines."""
    checked = Checked(leaning)
    deals = make_deals(components, 3, 30, seed=8, advanced=True)
    play_batch(deals, components, [checked], np.zeros((30, 3), np.int64))
    assert {"draw", "pick", "statue"} <= checked.checked
    deals = make_deals(components, 4, 6, seed=4, advanced=True)
    sheet = play_batch(deals, components, [leaning] * 4)
    for i in (0, 5):
        reference = Game(deals[i], components, [leaning] * 4).play()
        assert [row["total"] for row in reference] == sheet["total"][i].tolist()


def test_search_takes_the_expert_as_rollout_and_opponent_model(components):
    search = make_policy("search", rollout="expert", budget=1, kinds=("pick",))
    assert isinstance(search.rollout, Expert)
    deals = make_deals(components, 2, 2, seed=6, advanced=True)
    sheet = play_batch(deals, components, [search, make_policy("foresight")], np.array([[0, 1], [1, 0]]),
                       forward=Forward)
    assert sheet["total"].shape == (2, 2)


def test_the_shipped_weights_load_and_hold_for_the_shipped_components(components):
    expert = make_policy("expert")
    assert expert.weights.vector.shape == (kernel.WEIGHTS,)
    params = expert.kernel(components, 4).params
    trees = expert.weights.trees
    assert params.shape == (kernel.TREES_AT + (len(trees.params()) if trees else 1),)
    assert params[kernel.TREES_AT] == (len(trees.roots) if trees else 0)  # the trees follow the weights


def test_weights_of_another_component_set_stop_with_a_message(components):
    expert = Expert.with_weights(Weights("w.toml", "0123456789abcdef", np.zeros(kernel.WEIGHTS)))
    with pytest.raises(ValueError, match="w.toml were learned on the component set 0123456789abcdef, but these "
                                         f"games use {components.digest}: learn weights for it"):
        expert.kernel(components, 2)
    with pytest.raises(ValueError, match="learned on the component set"):
        play_batch(make_deals(components, 2, 2, seed=1), components, [expert] * 2)
    changed = expert.weights.replaced(expert.weights.vector, None, "w.toml")
    with pytest.raises(ValueError, match=f"learned on the component set 0123456789abcdef, but these games use "
                                         f"{components.digest}"):
        Expert.with_weights(changed).kernel(components.with_overrides({"setup": {"3B": {"culture": 1}}}), 2)


def test_the_mismatch_hint_names_the_training_script_where_it_is_and_a_checkout_where_it_is_not(
        components, monkeypatch, tmp_path):
    """The hint named `python scripts/train_expert.py`, which an installed package (no scripts/) has not."""
    from pathlib import Path

    from hadara_sim.policies import expert as module

    expert = Expert.with_weights(Weights("w.toml", "0123456789abcdef", np.zeros(kernel.WEIGHTS)))
    monkeypatch.chdir(tmp_path)  # the script named by a path that runs from here
    with pytest.raises(ValueError, match=r"learn weights for it with `python (\S+) --components PATH --out FILE` and "
                                         r"play them") as told:
        expert.kernel(components, 2)
    script = re.search(r"`python (\S+) ", str(told.value)).group(1)
    assert Path(script).is_file() and Path(script).name == "train_expert.py"
    import policies.expert  # the same module file, imported by its own name: the script found the same
    assert policies.expert.TRAIN_SCRIPT == module.TRAIN_SCRIPT
    monkeypatch.setattr(module, "TRAIN_SCRIPT", tmp_path / "site-packages" / "scripts" / "train_expert.py")
    with pytest.raises(ValueError, match=r"learn weights for it with `python scripts/train_expert.py --components "
                                         r"PATH --out FILE` in a checkout of hadara-sim \(the installed package has "
                                         r"no scripts/ folder\) and play them"):
        expert.kernel(components, 2)
    with pytest.raises(ValueError, match=r"no `features` or `kinds` in it: not a weights file; give one the training "
                                         r"wrote \(`python scripts/train_expert.py` in a checkout"):
        (tmp_path / "x.toml").write_text("x = 1\n")
        read_weights(tmp_path / "x.toml")


def test_the_hint_for_weights_of_another_layout_names_a_training_that_runs(tmp_path, monkeypatch):
    """It said `learn them again with python scripts/train_expert.py`, without the --out the script requires."""
    from pathlib import Path

    from helpers import hinted_script_parses

    (tmp_path / "old.toml").write_text('features = ["gone"]\nkinds = ["draw"]\ncomponents = "0123456789abcdef"\n')
    monkeypatch.chdir(Path(__file__).resolve().parents[1])
    with pytest.raises(ValueError, match=r"learn them again with `python scripts/train_expert.py --out FILE`") as told:
        read_weights(tmp_path / "old.toml")
    assert hinted_script_parses(str(told.value)) == Path("scripts/train_expert.py")


def test_a_game_of_another_component_set_is_refused_before_it_starts(components, tmp_path):
    """`play --policy expert` of a basic game on another set played on without a word (its kernel was
    asked without the set, and only the advanced game's side decision checked it); `simulate` said
    "unexpected ValueError ... please report it". A scenario now names the entry, the reference engine
    refuses the game, and `play` says why (exit 2)."""
    import shutil

    from typer.testing import CliRunner

    from hadara_sim.cli import app
    from hadara_sim.component_files import default_components_path
    from hadara_sim.scenario import ScenarioError
    from hadara_sim.scenario.read import parse_scenario

    mine = tmp_path / "mine"
    shutil.copytree(default_components_path(), mine)
    cards = (mine / "cards.csv").read_text().splitlines()
    cards[1] = cards[1].replace("I-Y-01,1,yellow,0,2,", "I-Y-01,1,yellow,0,3,")
    (mine / "cards.csv").write_text("\n".join(cards) + "\n")
    other = load_components(mine)
    assert other.base_digest != components.digest
    with pytest.raises(ValueError, match="learned on the component set"):
        Game(make_deals(other, 2, 1, seed=1), other, [make_policy("expert"), make_policy("greedy")])
    with pytest.raises(ScenarioError, match=r"s.toml:2: policies\[0\].policy: expert weights .* learned on the "
                                            "component set"):
        parse_scenario(f'players = 2\npolicies = ["expert", "greedy"]\ncomponents = "{mine}"\n', file="s.toml")
    result = CliRunner().invoke(app, ["play", "-p", "2", "--policy", "expert", "--components", str(mine), "-q"])
    assert result.exit_code == 2 and "learned on the component set" in result.output and "Winner" not in result.output


def test_the_shipped_weights_play_what_if_changes_of_the_shipped_set(components):
    """A balance fit or a swept value changes single values of the set (overrides): the expert learned
    on the set plays them, as a strong player of the set meeting the change."""
    changed = components.with_overrides({"setup": {"3B": {"culture": 1}}, "cards": {}})
    assert changed.digest != components.digest and changed.base_digest == components.digest
    expert = make_policy("expert")
    sheets = play_batch(make_deals(changed, 2, 4, seed=1, advanced=True), changed, [expert] * 2)
    assert np.asarray(sheets["total"]).shape == (4, 2)


@pytest.mark.parametrize("edit, message", [
    (lambda t: t.replace('"points_side"]', '"points_side", "colony"]'), "made for features .* but this expert reads "
                                                                         "features"),
    (lambda t: t.replace('"buy", "coins"', '"coins", "buy"'), "made for features .* but this expert reads features"),
    (lambda t: t.replace('features = [', 'features = "buy" #'), "made for features .* but this expert reads features"),
    (lambda t: t.replace(', "uncover", "points_side"]', ', "points_side"]'),
     "made for features .* but this expert reads features"),  # never shipped
    (lambda t: t.replace('kinds = ["draw", "pick", "statue"]', 'kinds = ["draw"]'), "of kinds"),
    (lambda t: t.replace('kinds = ["draw", "pick", "statue"]', 'kinds = ["draw", "statue"]'), "of kinds"),
    (lambda t: t.replace("draw = [\n    [", "draw = [\n    [1e9, "), "must be 3 rows .* of 14 numbers"),
    (lambda t: t.replace("draw = [\n    [0,", "draw = [\n    [1e9,"), "within"),
    (lambda t: t.replace("draw = [\n    [0,", "draw = [\n    [nan,"), "finite"),
    (lambda t: t.replace('components = "', 'componentz = "'), "components .* is missing"),
    (lambda t: t + "[[[", "not a TOML file"),
    (lambda t: "x = 1\n", "no `features` or `kinds` in it: not a weights file"),
    (lambda t: t + "\n[weights.p9]\n", r"weights.p9 is neither a kind \(draw, pick, statue\) nor a player count's own"),
    (lambda t: t + "\n[weights.p2]\ndraw = [[1.0]]\n", r"weights.p2.draw must be 3 rows"),
    (lambda t: t + '\n[weights."p\u00b2"]\n', r"weights.p\u00b2 is neither a kind"),  # int('\u00b2') failed
])
def test_a_weights_file_that_does_not_fit_the_expert_stops_with_a_message(tmp_path, edit, message):
    path = tmp_path / "w.toml"
    path.write_text(edit(_zero_file()))
    with pytest.raises(ValueError, match=message):
        read_weights(path)
    with pytest.raises(ValueError, match="expert weights"):
        make_policy("expert", weights=str(path))


def test_a_weights_file_saved_again_as_utf16_names_its_line_and_the_fix(tmp_path):
    """An editor's "Unicode" save gave the raw codec message ("'utf-8' codec can't decode byte 0xff")."""
    path = tmp_path / "w.toml"
    path.write_bytes(_zero_file().encode("utf-16"))
    with pytest.raises(ValueError, match=r"expert weights .*w.toml: line 1: is UTF-16 text .*save it as UTF-8"):
        read_weights(path)


def test_a_missing_weights_file_is_named():
    with pytest.raises(ValueError, match="expert weights nowhere.toml: cannot read it"):
        make_policy("expert", weights="nowhere.toml")


def _zero_file() -> str:
    c = load_components()
    return weights_toml(Weights("", c.digest, np.zeros(kernel.WEIGHTS)), [], "test")


@pytest.mark.parametrize("features", [11, 13])
def test_a_weights_file_of_an_earlier_layout_plays_as_it_did(tmp_path, components, features):
    """A file of the layouts shipped before (11 features, before `rival` and `uncover`; 13, before
    `points_side`; both of draws and picks only, before statues were learned) reads with what it has
    not weighing nothing: the expert plays it exactly as the expert of then played it."""
    vector = np.linspace(-1, 1, kernel.WEIGHTS).reshape(3, len(kernel.KINDS), F)
    vector[:, kernel.KINDS.index("statue")] = 0
    vector[:, :, features:] = 0
    text = weights_toml(Weights("", components.digest, vector.reshape(-1)), [], "test")
    dropped = F - features
    earlier = re.sub(r"(, -?[0-9.e-]+){%d}\]" % dropped, "]", text)
    earlier = re.sub(r"\nstatue = \[\n(    \[.*\],\n){3}\]", "", earlier)
    earlier = earlier.replace(", " + ", ".join(f'"{f}"' for f in kernel.FEATURES[features:]), "")
    earlier = earlier.replace('kinds = ["draw", "pick", "statue"]', 'kinds = ["draw", "pick"]')
    assert "statue" not in earlier and f'"{kernel.FEATURES[features - 1]}"]' in earlier
    path = tmp_path / "earlier.toml"
    path.write_text(earlier)
    assert np.allclose(read_weights(path).vector, vector.reshape(-1), atol=1e-5)


def test_the_statue_of_the_endgame_shows_its_points_and_the_features_say_what_it_carves(components):
    """Culture 10, one statue carved: the second statue (12 culture, 8 points, bonus 3) lacks 2 culture;
    its coloured side on military gives 3 military steps, its points side 8 + 3 points; with
    statue_patron the bonus is 5. Carving none has no features. At epoch III's last statue foresight
    shows the points side (endgame rule): it does not weigh a coloured side (-inf), and the training
    labels only the options it weighs."""
    tracks = np.array([[[5, 3, 10, 6], [0, 0, 0, 0]]])
    state = dict(epoch=2, tracks=tracks, coins=np.array([[10, 0]]), colour_count=np.array([[[2, 1, 1, 1, 1]] * 2]))
    expert = with_weights(components)
    coloured, flat = A.statue_option(1, MILITARY, A.COLOURED), A.statue_option(1, FOOD, A.POINTS_SIDE)

    def features(**more):
        values, phi = kernel.learned_options(expert.kernel(components, 2), decision(components, "statue", [1] * 33,
                                                                                     **{**state, **more}))
        return values, [dict(zip(kernel.FEATURES, phi[0, option])) for option in (A.NONE, coloured, flat)]

    values, (none, military, points) = features()
    assert not any(none.values()) and values[0, A.NONE] == 0
    assert military["buy"] == 1 and military["coins"] == -2 * REQUIREMENT_PRICE and military["points"] == 8
    assert military["military"] == 3 and military["points_side"] == 0 and military["culture"] == 0
    assert points["points"] == 11 and points["food"] == 0 and points["points_side"] == 1
    effects = np.zeros((1, 2, len(EFFECT_IDS)), bool)
    effects[0, 0, PATRON] = True
    _, (_, military, points) = features(effects=effects)
    assert military["military"] == 5 and points["points"] == 13
    values, _ = features(epoch=3, phase=1)
    assert np.isneginf(values[0, coloured]) and np.isfinite(values[0, flat])


def test_the_learned_correction_decides_a_statue(components):
    """Where foresight carves the statue's coloured side on one track, a learned weight on another
    track's steps moves it there, a weight on the points side turns it over, and a price on carving
    at all leaves it uncarved; with no correction the expert carves as foresight does."""
    tracks = np.array([[[5, 3, 12, 6], [0, 0, 0, 0]]])
    d = decision(components, "statue", [1] * 33, epoch=2, tracks=tracks, coins=np.array([[10, 0]]),
                 colour_count=np.array([[[2, 1, 1, 1, 1]] * 2]))
    chosen = make_policy("foresight").statue(d)[0]
    statue, track, side = A.decode_statue(chosen)
    assert with_weights(components).statue(d)[0] == chosen and side == A.COLOURED
    other = CULTURE if track != CULTURE else MILITARY
    assert with_weights(components, **{kernel.FEATURES[other + 3]: 5.0}).statue(d)[0] == A.statue_option(
        statue, other, A.COLOURED)
    assert A.decode_statue(with_weights(components, points_side=20.0).statue(d)[0])[2] == A.POINTS_SIDE
    assert with_weights(components, buy=-100.0).statue(d)[0] == A.NONE


def test_the_rival_features_of_a_pick_are_what_the_rival_would_gain(components):
    """At a pick, `rival` is what the strongest rival would gain from the pile's top card and
    `uncover` from the card beneath, the same whether the option buys or sells it: a rival whose
    military one red step short of the first colony values the red card more (`rival` rises), the
    picker's own features stay; a pile of one card uncovers nothing."""
    piles = np.full((1, 5, 2), -1)
    piles[0, RED, :] = [12, RED_2]  # I-R-07 on top of a one-point red card
    piles[0, YELLOW, 0] = 0
    sizes = np.zeros((1, 5))
    sizes[0, RED], sizes[0, YELLOW] = 2, 1
    legal = np.zeros(10, bool)
    legal[[2 * RED, 2 * RED + 1, 2 * YELLOW, 2 * YELLOW + 1]] = True

    def features(rival_military, piles=piles, sizes=sizes):
        tracks = np.zeros((1, 2, 4))
        tracks[0, :, 3] = 5
        tracks[0, 1, MILITARY] = rival_military
        d = decision(components, "pick", legal, phase=1, tracks=tracks, piles=piles, pile_size=sizes,
                     coins=np.full((1, 2), 5))
        return kernel.learned_options(with_weights(components).kernel(components, 2), d)[1][0]

    far, near = features(0), features(2)
    rival, uncover = kernel.FEATURES.index("rival"), kernel.FEATURES.index("uncover")
    for phi in (far, near):
        assert phi[2 * RED, rival] == phi[2 * RED + 1, rival] and phi[2 * RED, uncover] == phi[2 * RED + 1, uncover]
        assert phi[2 * YELLOW, uncover] == 0 and (phi[legal] >= 0)[:, rival:].all()
    assert near[2 * RED, rival] > far[2 * RED, rival] > 0
    assert np.array_equal(near[2 * RED, :rival], far[2 * RED, :rival])
    below = piles.copy()  # the card beneath alone on the pile: what it would give the rival on top
    below[0, RED, :] = [12, -1]
    alone = sizes.copy()
    alone[0, RED] = 1
    beneath = features(2, below, alone)
    assert near[2 * RED, uncover] == beneath[2 * RED, rival] > 0 and beneath[2 * RED, uncover] == 0
    assert near[2 * RED, uncover] != near[2 * RED, rival]


def test_a_written_weights_file_reads_back(tmp_path, components):
    vector = np.linspace(-1, 1, kernel.WEIGHTS)
    path = tmp_path / "w.toml"
    path.write_text(weights_toml(Weights("", components.digest, vector), [], "test"))
    assert np.allclose(read_weights(path).vector, vector, atol=1e-6)
    assert np.array_equal(make_policy("expert", weights=str(path)).weights.vector, read_weights(path).vector)


def test_a_weights_file_is_parsed_once_per_content_and_its_arrays_are_shared_read_only(tmp_path, components):
    """A run makes an expert per chunk, and each parsed the shipped file and its 50 statue trees again (35 s
    of a 61 s card-worth run): the experts now share one reading of each content, read-only so none can
    change another's, and a file written anew is read anew."""
    first, second = make_policy("expert"), make_policy("expert")
    assert first.weights is second.weights and first.weights.trees.params() is second.weights.trees.params()
    for array in (first.weights.vector, first.weights.trees.value, first.weights.trees.params()):
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 1.0
    path = tmp_path / "w.toml"
    for scale in (1.0, 2.0):  # the same path and size, other weights
        path.write_text(weights_toml(Weights("", components.digest, np.full(kernel.WEIGHTS, scale)), [], "test"))
        assert np.all(read_weights(path).vector == scale)


TINY = Budget(players=(2,), iterations=2, games=2, rate=0.3, copies=2, duel_games=8, seed=5)


def test_labels_are_search_margins_of_every_legal_option(components):
    samples = label(components, with_weights(components), TINY, 1)
    assert samples.decisions >= 10
    per = np.bincount(samples.decision)
    assert (per >= 2).all()  # every labelled decision has two options or more
    assert set(samples.block) <= set(range(kernel.BLOCKS))
    assert np.isfinite(samples.label).all() and np.isfinite(samples.value).all()


def test_labels_of_shorter_copies_are_the_value_margins_at_the_epoch_end(components):
    """With depth 1 the teacher labels by the position value at the epoch's end: the same decisions
    and options as with whole copies (the same games: only the labels' copies stop earlier), other
    labels."""
    whole = label(components, with_weights(components), TINY, 1)
    short = label(components, with_weights(components), dataclasses.replace(TINY, depth=1), 1)
    assert short.decision == whole.decision
    assert np.array_equal(np.array(short.features), np.array(whole.features))
    assert np.isfinite(short.label).all() and short.label != whole.label
    again = label(components, with_weights(components), dataclasses.replace(TINY, depth=1), 1)
    assert again.label == short.label


def test_fit_recovers_a_correction_from_labels_that_follow_it(components):
    """Labels made as 2 x (value + w . features) + noise give back the slope 2 and a correction that
    values every labelled option as w does, within its decision (where a tiny sample ties features,
    as a sale's coins and buy, the weights split between them but the values stay)."""
    samples = label(components, with_weights(components), TINY, 1)
    rng = np.random.default_rng(0)
    w = np.zeros((kernel.BLOCKS, F))
    w[:, kernel.FEATURES.index("coins")] = 0.7
    w[:, kernel.FEATURES.index("points")] = -0.4
    phi, block = np.array(samples.features), np.array(samples.block)
    correction = np.einsum("ij,ij->i", phi, w[block])
    samples.label = list(2 * (np.array(samples.value) + correction) + rng.normal(0, 1e-6, len(samples)))
    vector, slope = fit(samples)
    assert slope == pytest.approx(2, rel=1e-4)
    fitted = np.nan_to_num(vector.reshape(kernel.BLOCKS, F))
    decision = np.array(samples.decision)
    within = learn._within
    assert np.allclose(within(np.einsum("ij,ij->i", phi, fitted[block]), decision), within(correction, decision),
                       atol=1e-3)
    assert np.isnan(vector.reshape(kernel.BLOCKS, F)[0, kernel.FEATURES.index("uncover")])  # never varies in a draw


def test_training_on_a_tiny_budget_runs_end_to_end_and_is_deterministic(components, tmp_path):
    lines = []
    weights, history = train(components, TINY, say=lines.append)
    again, history_again = train(components, TINY, say=lambda _: None)
    assert np.array_equal(weights.vector, again.vector)
    assert [dataclasses.replace(h, seconds=0) for h in history] == [dataclasses.replace(h, seconds=0)
                                                                     for h in history_again]
    assert 1 <= len(history) <= 2 and history[0].decisions >= 10
    assert any("labelling" in line for line in lines) and any("win" in line for line in lines)
    path = tmp_path / "w.toml"
    path.write_text(weights_toml(weights, history, "python scripts/train_expert.py --out w.toml"))
    assert np.allclose(read_weights(path).vector, weights.vector, atol=1e-5 * (1 + np.abs(weights.vector).max()))
    kept = [h.accepted for h in history]
    assert kept in ([False], [True, False], [True, True])
    if not kept[0]:
        assert not weights.vector.any()  # nothing beat foresight: its play is kept


def test_training_statues_alone_labels_only_statues_and_keeps_the_card_weights(components):
    """kinds=("statue",): the teacher asks only its statue decisions in Python (the card decisions stay
    compiled), labels only statue blocks, and the fit learns nothing of the draws and picks (NaN: their
    weights keep their values)."""
    budget = dataclasses.replace(TINY, games=6, rate=1.0, copies=1, kinds=("statue",))
    samples = label(components, with_weights(components), budget, 1)
    statue = {kernel.block(KIND_CODE["statue"], epoch) for epoch in (1, 2, 3)}
    assert samples.decisions >= 10 and set(samples.block) <= statue
    blocks = fit(samples)[0].reshape(3, len(kernel.KINDS), F)
    assert np.isnan(blocks[:, :2]).all() and np.isfinite(blocks[1:, 2, kernel.FEATURES.index("points_side")]).all()
    teacher = learn.Teacher(with_weights(components), 1, 1.0, 0, learn.Samples(), kinds=("statue",))
    assert "statue" not in teacher.kernel(components, 2).kinds and "draw" in teacher.kernel(components, 2).kinds
    # the shipped file records what each iteration labelled: statues from iteration 12, before them
    # (files written before kinds were recorded) draws and picks
    kinds = {it.number: it.kinds for it in lineage(WEIGHTS_FILE)}
    assert kinds[1] == ("draw", "pick") and kinds[12] == kinds[14] == ("statue",)


def test_train_expert_refuses_a_kind_the_expert_does_not_learn(tmp_path):
    """--kinds colony (a kind foresight decides alone) stops at once naming the kinds learned, as a
    usage error, and writes nothing."""
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).parent.parent / "scripts" / "train_expert.py"
    out = tmp_path / "w.toml"
    run = subprocess.run([sys.executable, str(script), "--out", str(out), "--kinds", "statue", "--kinds", "colony",
                          "-q"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and "--kinds colony" in run.stderr and "draw, pick, statue" in run.stderr, run.stderr
    assert "Traceback" not in run.stderr and not out.exists()


@pytest.mark.parametrize("args, words", [
    (["--rate", "nan"], "Invalid value for --rate: nan is not a share above 0 and at most 1"),
    (["--depth", "4"], "Invalid value for '--depth': 4 is not in the range 1<=x<=3"),
    (["--alone"], "Invalid value for --alone: it learns the weights of one player count alone: give one -p, not 2"),
], ids=["rate", "depth", "alone"])
def test_train_expert_names_the_option_out_of_range(tmp_path, args, words):
    """It said 'players 2-5 (one count with --alone), iterations, games and copies at least 1, duel games
    at least 2, rate and step in (0, 1], depth 1-3' whichever one was wrong."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).parent.parent / "scripts" / "train_expert.py"
    run = subprocess.run([sys.executable, str(script), "--out", str(tmp_path / "w.toml"), *args, "-q"],
                         capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "300"})
    assert run.returncode == 2 and words in run.stderr, run.stderr
    assert list(tmp_path.iterdir()) == []


def _planted_training(monkeypatch, note):
    """Training with planted labels, a planted fit (returned) and a duel the new weights win; `note(new,
    old, budget, number)` says what to record of each duel, in the list returned."""
    fitted = np.linspace(-2, 2, kernel.WEIGHTS)
    labelled = type("Labelled", (), {"decisions": 10, "__len__": lambda self: 20})()
    monkeypatch.setattr(learn, "label", lambda *args: labelled)
    monkeypatch.setattr(learn, "fit", lambda samples: (fitted, 1.0))
    won = (10, 0.8, (0.6, 0.9))
    tried = []

    def duel(c, new, old, budget, number):
        tried.append(note(new, old, budget, number))
        return {2: won}, won
    monkeypatch.setattr(learn, "duel", duel)
    return fitted, tried


def test_a_damped_step_keeps_the_weights_between_the_current_and_the_fitted(components, monkeypatch):
    """step 0.25: the kept weights are the current ones plus a quarter of the way to the fit; the
    iterations are numbered from `first` and record the step."""
    fitted, tried = _planted_training(monkeypatch, lambda new, old, budget, number: (
        number, new.weights.vector.copy(), old.weights.vector.copy()))
    start = Weights("start", components.digest, np.ones(kernel.WEIGHTS))
    weights, history = train(components, dataclasses.replace(TINY, step=0.25), start, say=lambda _: None, first=3)
    assert [h.number for h in history] == [3, 4] and all(h.step == 0.25 and h.accepted for h in history)
    once = 1 + 0.25 * (fitted - 1)
    assert np.allclose(tried[0][1], once) and np.allclose(tried[1][2], once)
    assert np.allclose(weights.vector, once + 0.25 * (fitted - once))


def test_a_weight_the_labels_do_not_bear_on_keeps_its_value(components, monkeypatch):
    """The fit leaves a weight unlearned (NaN) where no labelled decision tells: its block (epoch and
    kind) not labelled, or its feature alike across each decision's options. A step moves the
    learned weights and keeps the rest: an unlabelled block was pulled to zero before."""
    samples = label(components, with_weights(components), dataclasses.replace(TINY, games=4, rate=1.0, copies=1), 1)
    keep = np.isin(np.array(samples.block), [0])  # epoch I draws only
    for name in ("decision", "label", "value", "block", "features"):
        setattr(samples, name, [x for x, k in zip(getattr(samples, name), keep) if k])
    samples.decision = list(np.unique(samples.decision, return_inverse=True)[1])
    points = kernel.FEATURES.index("points")
    for row, number in zip(samples.features, samples.decision):
        row[points] = 0.1 + 0.7 * number  # alike within each decision, though no whole number
    fitted, _ = fit(samples)
    blocks = fitted.reshape(kernel.BLOCKS, F)
    assert np.isnan(blocks[1:]).all() and np.isfinite(blocks[0, kernel.FEATURES.index("coins")])
    assert np.isnan(blocks[0, kernel.FEATURES.index("uncover")])  # a draw uncovers nothing
    assert np.isnan(blocks[0, points])  # the group means' rounding is not a difference

    fitted, tried = _planted_training(monkeypatch, lambda new, old, budget, number: new.weights.vector.copy())
    fitted[::2] = np.nan
    start = Weights("start", components.digest, np.ones(kernel.WEIGHTS))
    weights, _ = train(components, dataclasses.replace(TINY, iterations=1, step=0.5), start, say=lambda _: None)
    assert np.array_equal(weights.vector[::2], np.ones(kernel.WEIGHTS)[::2])
    assert np.allclose(weights.vector[1::2], 1 + 0.5 * (fitted[1::2] - 1))


def test_the_labelled_sample_is_drawn_per_game_and_decision_the_same_in_any_batch(components):
    """A game's decisions are labelled alike whether it plays beside others or alone (each drawn at
    `rate` from its seed, game and decision number, and its copies keyed the same), and a few games
    label every epoch's draws and picks, and statues (few in epoch I: a statue wants 6 culture) (a draw
    per decision of the whole batch could leave an epoch's picks out, and their weights unlearned)."""
    expert = with_weights(components)
    deals = make_deals(components, 2, 3, seed=11, advanced=True)

    def rows(batches):
        samples = learn.Samples()
        teacher = learn.Teacher(expert, copies=2, rate=0.3, seed=4, samples=samples)
        for batch in batches:
            play_batch(batch, components, [teacher], np.zeros((len(batch), 2), np.int64), forward=Forward)
        return sorted(zip(samples.label, samples.value, samples.block, map(tuple, samples.features))), samples

    together, samples = rows([deals])
    alone, _ = rows([deals[0], deals[1:]])
    assert together == alone and len(together) > 20
    blocks = {kind: {kernel.block(KIND_CODE[kind], epoch) for epoch in (1, 2, 3)} for kind in kernel.KINDS}
    assert blocks["draw"] | blocks["pick"] <= set(samples.block) and blocks["statue"] & set(samples.block)


def test_training_alone_learns_a_player_counts_own_weights_and_leaves_the_shared_ones(components, monkeypatch,
                                                                                      tmp_path):
    """--alone at 2 players: the step starts from the shared weights (no own ones yet), the result is
    the count's own, the duel tries them, the shared ones stay; the file holds both and the iteration
    says so. Shared training over a count with weights of its own, or alone at two counts, is refused."""
    fitted, tried = _planted_training(monkeypatch, lambda new, old, budget, number: (
        new.weights.at(2).copy(), new.weights.at(4).copy(), budget.players))
    shared = np.ones(kernel.WEIGHTS)
    start = Weights("start", components.digest, shared)
    budget = dataclasses.replace(TINY, iterations=1, step=0.5, alone=True)
    weights, history = train(components, budget, start, say=lambda _: None, first=5)
    own = 1 + 0.5 * (fitted - 1)
    assert np.allclose(tried[0][0], own) and np.array_equal(tried[0][1], shared) and tried[0][2] == (2,)
    assert np.array_equal(weights.vector, shared) and np.allclose(weights.at(2), own)
    assert history[0].alone == 2 and history[0].accepted
    path = tmp_path / "w.toml"
    path.write_text(weights_toml(weights, history, "python alone"))
    again = read_weights(path)
    assert np.allclose(again.at(2), own, atol=1e-5) and np.allclose(again.vector, shared) and set(again.by_players) == {2}
    assert lineage(path)[0].alone == 2
    with pytest.raises(learn.LearnError, match="weights of their own at 2 players"):
        train(components, dataclasses.replace(budget, alone=False), weights, say=lambda _: None)
    with pytest.raises(learn.LearnError, match="one player count"):
        train(components, dataclasses.replace(budget, players=(2, 4)), start, say=lambda _: None)


def test_going_on_from_a_weights_file_keeps_its_iterations_and_their_commands(tmp_path, components):
    vector = np.zeros(kernel.WEIGHTS)
    first = learn.Iteration(1, 50, 200, 0.8, {2: (10, 0.7, (0.4, 0.9))}, (10, 0.7, (0.4, 0.9)), True, 1.0, "", 3.0)
    path = tmp_path / "w.toml"
    path.write_text(weights_toml(Weights("", components.digest, vector), [first], "python one"))
    second = dataclasses.replace(first, number=2, accepted=False, step=0.5)
    path.write_text(weights_toml(Weights("", components.digest, vector), lineage(path) + [second], "python two"))
    again = lineage(path)
    assert [(h.number, h.command, h.step, h.accepted) for h in again] == [(1, "python one", 1.0, True),
                                                                        (2, "python two", 0.5, False)]
    assert again[0].shares == {2: (10, 0.7, (0.4, 0.9))} and again[1].pooled == (10, 0.7, (0.4, 0.9))
    assert [h.number for h in lineage(WEIGHTS_FILE)][:2] == [1, 2]  # the shipped file, its first run included
    (tmp_path / "bad.toml").write_text("[[iterations]]\nnumber = 1\n")
    with pytest.raises(ValueError, match="bad.toml: its iterations cannot be read"):
        lineage(tmp_path / "bad.toml")


def _ablate(tmp_path, *kinds):
    """Run scripts/ablate_expert.py on the shipped weights, taking out `kinds`; the file it wrote."""
    import subprocess
    import sys
    from pathlib import Path

    out = tmp_path / f"no-{'-'.join(kinds)}.toml"
    script = Path(__file__).parent.parent / "scripts" / "ablate_expert.py"
    run = subprocess.run([sys.executable, str(script), *[a for k in kinds for a in ("--zero", k)], "--out", str(out)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return out


def test_an_ablated_kind_weighs_nothing_and_the_others_keep_their_weights(tmp_path, components):
    shipped, cut = read_weights(WEIGHTS_FILE), read_weights(_ablate(tmp_path, "draw"))
    draw = kernel.KINDS.index("draw")
    for before, after in [(shipped.vector, cut.vector), *((shipped.by_players[p], cut.by_players[p])
                                                           for p in shipped.by_players)]:
        before, after = (v.reshape(3, len(kernel.KINDS), F) for v in (before, after))
        assert not after[:, draw].any() and before[:, draw].any()
        assert np.array_equal(np.delete(after, draw, axis=1), np.delete(before, draw, axis=1))
    assert cut.by_players.keys() == shipped.by_players.keys() and cut.components == shipped.components
    assert len(lineage(cut.path)) == len(lineage(WEIGHTS_FILE))
    assert (cut.trees is None) == (shipped.trees is None)  # the statues keep their trees


def test_the_expert_with_every_learned_kind_taken_out_plays_as_foresight(tmp_path, components):
    none = Expert.with_weights(read_weights(_ablate(tmp_path, *kernel.KINDS)))
    for players in (2, 4):
        deals = make_deals(components, players, 40, seed=players + 10, advanced=True)
        seats = (np.arange(players)[None, :] + np.arange(40)[:, None]) % 2
        a = play_batch(deals, components, [none, make_policy("balanced")], seats, forward=Forward)
        b = play_batch(deals, components, [make_policy("foresight"), make_policy("balanced")], seats, forward=Forward)
        assert all(np.array_equal(a[k], b[k]) for k in a)


def test_a_command_quoted_by_the_shell_is_written_so_the_file_reads_back(tmp_path, components):
    """`--out "Bob's weights.toml"` is quoted by shlex with a double quote inside; written between bare
    double quotes it ended the TOML string and the weights file could not be read at all."""
    import shlex

    from hadara_sim.policies.value import FEATURES, STOPS, PositionValue, read_value
    from hadara_sim.value_fit import value_toml

    command = "python " + shlex.join(["scripts/train_expert.py", "--out", "Bob's \"best\" weights.toml"])
    first = learn.Iteration(1, 50, 200, 0.8, {2: (10, 0.7, (0.4, 0.9))}, (10, 0.7, (0.4, 0.9)), True, 1.0, "", 3.0)
    path = tmp_path / "w.toml"
    path.write_text(weights_toml(Weights("", components.digest, np.zeros(kernel.WEIGHTS)), [first], command))
    assert [h.command for h in lineage(path)] == [command]
    assert shlex.split(command)[-1] == "Bob's \"best\" weights.toml"
    value = PositionValue("", components.base_digest, "balanced",
                          {(2, e): np.zeros(1 + len(FEATURES)) for e in STOPS})
    path = tmp_path / "v.toml"
    path.write_text(value_toml(value, {}, command.replace("train_expert", "fit_value")), encoding="utf-8")
    assert read_value(path).field == "balanced"


TREES_BUDGET = dataclasses.replace(TINY, games=8, rate=1.0, copies=1, kinds=("statue",), statue_model="trees")


@pytest.fixture(scope="module")
def statue_samples(components):
    return label(components, with_weights(components), TREES_BUDGET, 1)


@pytest.fixture(scope="module")
def trees(statue_samples):
    return learn.fit_trees(statue_samples, seed=3)


def walk(trees, x) -> float:
    """The trees' value of inputs x, walked in Python: the kernel's `statue_trees` read plainly."""
    total = trees.base
    for node in trees.roots:
        while trees.left[node] >= 0:
            node = trees.left[node] if x[trees.feature[node]] <= trees.threshold[node] else trees.right[node]
        total += trees.value[node]
    return total


def test_trees_labels_cover_every_statue_face_with_its_situation(statue_samples, components):
    """With statue trees the teacher labels every legal statue option, the faces foresight's endgame rule
    does not weigh too (their value -inf, read by the trees as UNWEIGHED), each with its situation."""
    inputs = np.array(statue_samples.inputs)
    assert inputs.shape == (len(statue_samples), len(kernel.STATUE_INPUTS))
    named = {name: inputs[:, k] for k, name in enumerate(kernel.STATUE_INPUTS)}
    assert np.array_equal(inputs[:, :F], np.array(statue_samples.features))
    assert set(named["players"]) == {2} and set(named["epoch"]) <= {1, 2, 3} and set(named["phase"]) <= {0, 1}
    unweighed = np.isneginf(statue_samples.value)
    assert unweighed.any() and (named["value"][unweighed] == kernel.UNWEIGHED).all()
    assert ((named["epoch"][unweighed] == 3) & (named["phase"][unweighed] == 1)).all()
    carved = named["buy"] == 1
    assert ((named["statue"] >= 0) == carved).all() and ((named["track"] >= 0) == carved).all()
    assert (named["own_statues"] <= 4).all() and (named["rival_cards"] >= 0).all()


def test_exported_trees_value_inputs_as_the_fitted_regressor_does(statue_samples):
    from sklearn.ensemble import GradientBoostingRegressor

    X = np.array(statue_samples.inputs).astype(np.float32).astype(np.float64)  # sklearn compares in float32
    y = np.array(statue_samples.label)
    model = GradientBoostingRegressor(n_estimators=7, max_depth=3, learning_rate=0.3, random_state=0).fit(X, y)
    exported = learn.export_trees(model)
    assert len(exported.roots) == 7 and (exported.left[exported.roots] > exported.roots).all()
    assert np.allclose([walk(exported, x) for x in X], model.predict(X), rtol=0, atol=1e-9)


def test_fitting_statue_trees_is_deterministic(statue_samples, trees):
    again = learn.fit_trees(statue_samples, seed=3)
    assert all(np.array_equal(getattr(trees, f), getattr(again, f)) for f in ("roots", "feature", "threshold", "value"))
    assert len(trees.roots) == learn.TREES and (trees.feature[trees.left < 0] == -1).all()


def test_the_expert_plays_the_statue_its_trees_value_most(components, trees):
    """At each statue decision the expert with trees carves the legal option whose inputs the trees (read
    plainly) value most, the endgame's coloured faces among them, and the other kinds as before."""
    expert = Expert.with_weights(Weights("test", components.digest, np.zeros(kernel.WEIGHTS), trees=trees))
    seen = []

    class Watch(Expert):
        def decide(self, d):
            choice = expert.decide(d)
            if d.kind == "statue":
                _, inputs = kernel.learned_options(expert.kernel(components, d.view.players), d)
                for i in range(len(d)):
                    legal = np.flatnonzero(d.legal[i])
                    values = [walk(trees, inputs[i, o]) for o in legal]
                    assert choice[i] == legal[int(np.argmax(values))]
                    seen.append(choice[i])
            return choice

    deals = make_deals(components, 2, 20, seed=9, advanced=True)
    watch = Watch.with_weights(expert.weights)
    play_batch(deals, components, [watch, make_policy("foresight")], np.zeros((20, 2), np.int64))
    assert len(seen) >= 20 and len(set(seen)) >= 3


@pytest.mark.parametrize("players", [2, 4])
def test_an_expert_with_statue_trees_replays_in_the_reference_engine(components, trees, players):
    expert = Expert.with_weights(Weights("test", components.digest, np.zeros(kernel.WEIGHTS), trees=trees))
    result = verify_chunk(components, players, True, 12, seed=5, chunk=0, policies=[expert])
    assert result.failures == [] and result.agreed == 12


def test_statue_trees_are_written_exactly_and_read_back(tmp_path, components, trees):
    path = tmp_path / "w.toml"
    path.write_text(weights_toml(Weights("", components.digest, np.zeros(kernel.WEIGHTS), trees=trees), [], "test"))
    back = read_weights(path).trees
    assert back.base == trees.base
    assert all(np.array_equal(getattr(back, f), getattr(trees, f))
               for f in ("roots", "feature", "threshold", "left", "right", "value"))
    assert make_policy("expert", weights=str(path)).weights.trees is not None


def _first(name: str, text: str) -> str:
    """The first number of the trees' array `name` in a weights file's text."""
    return re.search(rf"\n{name} = \[\n    (-?[0-9.e+-]+)", text).group(1)


@pytest.mark.parametrize("edit, message", [
    (lambda t: t.replace('inputs = ["buy"', 'inputs = ["coins"'), "statue_trees read the inputs"),
    (lambda t: t.replace("\nleft = [\n    " + _first("left", t), "\nleft = [\n    0"), "are no trees"),
    (lambda t: t.replace("\nfeature = [\n    " + _first("feature", t), "\nfeature = [\n    40"), "are no trees"),
    (lambda t: t.replace("\nroots = [\n    0", "\nroots = [\n    999999"), "whole numbers within"),
    (lambda t: t.replace("\nthreshold = [\n    " + _first("threshold", t), "\nthreshold = [\n    nan"), "finite"),
    (lambda t: t.replace("\nvalue = [\n    ", "\nvalue = [\n    1.0, "), "must be .* numbers, one per node"),
    (lambda t: t.replace("\nroots = [\n    0", "\nroots = [\n    0.5"), "whole numbers"),
])
def test_statue_trees_that_are_no_trees_stop_with_a_message(tmp_path, components, trees, edit, message):
    text = weights_toml(Weights("", components.digest, np.zeros(kernel.WEIGHTS), trees=trees), [], "test")
    edited = edit(text)
    assert edited != text
    path = tmp_path / "w.toml"
    path.write_text(edited)
    with pytest.raises(ValueError, match=message):
        read_weights(path)


def test_training_statue_trees_runs_end_to_end_and_is_deterministic(components, tmp_path):
    budget = dataclasses.replace(TREES_BUDGET, iterations=1, duel_games=8)
    start = Weights("start", components.digest, np.zeros(kernel.WEIGHTS), {2: np.ones(kernel.WEIGHTS) * 0.01})
    weights, history = train(components, budget, start, say=lambda _: None)
    again, history_again = train(components, budget, start, say=lambda _: None)
    assert [dataclasses.replace(h, seconds=0) for h in history] == [dataclasses.replace(h, seconds=0)
                                                                     for h in history_again]
    assert history[0].model == "trees" and np.isnan(history[0].value_coefficient)
    assert np.array_equal(weights.vector, start.vector) and weights.by_players.keys() == {2}  # weights untouched
    path = tmp_path / "w.toml"
    path.write_text(weights_toml(weights, history, "python scripts/train_expert.py --out w.toml"))
    assert lineage(path)[0].model == "trees"
    with pytest.raises(learn.LearnError, match="without --alone"):
        train(components, dataclasses.replace(budget, alone=True), start, say=lambda _: None)


def test_statue_trees_deeper_than_the_expert_plays_stop_with_a_message():
    """A chain of TREES_DEPTH + 1 splits (each node's left child a leaf, its right the next split) is a
    tree, but deeper than the kernel lays out: refused by name; one split less is played."""
    from hadara_sim.policies.expert import TREES_DEPTH, StatueTrees

    def chain(splits):
        feature, left, right = [], [], []
        for k in range(splits):
            feature += [0, -1]
            left += [2 * k + 1, -1]
            right += [2 * k + 2, -1]
        feature, left, right = feature + [-1], left + [-1], right + [-1]
        n = len(feature)
        return {"inputs": list(kernel.STATUE_INPUTS), "base": 0.0, "roots": [0], "feature": feature,
                "threshold": [0.5] * n, "left": left, "right": right, "value": [1.0] * n}

    with pytest.raises(ValueError, match=f"deeper than {TREES_DEPTH} splits"):
        StatueTrees.read(chain(TREES_DEPTH + 1), "w.toml")
    trees = StatueTrees.read(chain(TREES_DEPTH), "w.toml")
    assert trees.params()[1] == TREES_DEPTH and len(trees.params()) == 3 + 3 * (2 ** TREES_DEPTH - 1) + 1

"""Scenario files: parsing, sweeps, grids, permutations, grants, and validation messages."""

import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hadara_sim.constants import EFFECT_IDS

from hadara_sim.scenario.checks import ScenarioError
from hadara_sim.scenario.read import load_scenario, parse_scenario
from hadara_sim.tomlpos import key_lines
from hadara_sim.policies import BUILTIN

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = sorted((ROOT / "scenarios").glob("*.toml"))


def write(tmp_path, text, name="s.toml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip())
    return path


def problems(tmp_path, text):
    with pytest.raises(ScenarioError) as err:
        load_scenario(write(tmp_path, text))
    return err.value.problems


def one(tmp_path, text):
    found = problems(tmp_path, text)
    assert len(found) == 1, [str(p) for p in found]
    return found[0]


# --- shipped scenarios ------------------------------------------------------------------------

def test_shipped_scenarios_are_valid():
    names = {p.stem for p in SHIPPED}
    assert {"default", "setup-cards", "purple-effects", "tournament"} <= names
    for path in SHIPPED:
        sc = load_scenario(path)
        assert sc.combinations, path


def test_shipped_scenarios_shapes():
    default = load_scenario(ROOT / "scenarios/default.toml")
    assert [p.policy for p in default.combinations[0].config.policies] == ["balanced", "military", "culture", "economy"]
    assert default.combinations[0].config.assignment == "rotated"
    setup = load_scenario(ROOT / "scenarios/setup-cards.toml")
    cells = {(c.players, c.setup_card, c.setup_side) for c in setup.combinations}
    assert cells == {(p, k, s) for p in range(2, 6) for k in range(1, 6) for s in (0, 1)}
    assert all(c.advanced for c in setup.combinations)
    fields = load_scenario(ROOT / "scenarios/setup-cards-fields.toml")  # the same grid under two opponent fields
    played = {(c.players, c.setup_card, c.setup_side, tuple(p.policy for p in c.config.policies))
              for c in fields.combinations}
    assert played == {(p, k, s, (f,)) for p in (2, 4) for k in range(1, 6) for s in (0, 1)
                      for f in ("balanced", "balanced-v1")}
    purple = load_scenario(ROOT / "scenarios/purple-effects.toml")
    granted = [tuple(g.effect for g in c.config.grants) for c in purple.combinations]
    # the control, every plain purple card (placebo) of each epoch, then the 18 effect cards
    assert granted[0] == () and granted[1:25] == [(None,)] * 24 and len(granted) == 43
    assert {g[0] for g in granted[25:]} == set(EFFECT_IDS)
    # each combination keeps only its own granted card out of the decks, and the seat rotates
    assert purple.combinations[0].exclude == ()
    assert all(len(c.exclude) == 1 for c in purple.combinations[1:])
    assert all(g.seat == "rotate" for c in purple.combinations for g in c.config.grants)
    tournament = load_scenario(ROOT / "scenarios/tournament.toml")
    names = [p.policy for p in tournament.combinations[0].config.policies]
    assert set(names) == set(BUILTIN)  # every built-in
    arrangements = [c.arrangement for c in tournament.combinations]
    assert len(set(arrangements)) == len(names) * (len(names) - 1)


# --- parsing ----------------------------------------------------------------------------------

@pytest.mark.filterwarnings("ignore::hadara_sim.scenario.checks.DesignWarning")  # [[seats]] with two policies
def test_defaults_and_forms(tmp_path):
    sc = load_scenario(write(tmp_path, """
        policies = ["greedy"]
    """))
    assert (sc.name, sc.games, sc.seed, sc.chunk) == ("s", 10000, 0, 2000)
    config = sc.combinations[0].config
    assert (config.players, config.advanced, config.assignment) == (4, False, "rotated")
    sc = load_scenario(write(tmp_path, """
        players = 2
        game = "advanced"
        [[seats]]
        policy = "greedy"
        label = "rich"
        [seats.params]
        coin = 0.5
        [[seats]]
        policy = "random"
        [setup]
        cards = [5, 1]
        sides = ["B", "A"]
        [board]
        colour_order = ["purple", "red", "yellow", "green", "blue"]
    """))
    config = sc.combinations[0].config
    assert [(p.policy, p.params, p.label) for p in config.policies] == [
        ("greedy", {"coin": 0.5}, "rich"), ("random", {}, "random")]
    assert config.setup.cards == (5, 1) and config.setup.sides == ("B", "A")
    assert config.colour_order == (4, 1, 0, 3, 2)


def test_sweep_product_and_labels(tmp_path):
    sc = load_scenario(write(tmp_path, """
        policies = ["greedy", "random"]
        assignment = "rotated"
        [sweep]
        players = [2, 3]
        "policies[0].params.coin" = [0.2, 0.5]
    """))
    assert [c.sweep for c in sc.combinations] == [
        {"players": 2, "policies[0].params.coin": 0.2}, {"players": 2, "policies[0].params.coin": 0.5},
        {"players": 3, "policies[0].params.coin": 0.2}, {"players": 3, "policies[0].params.coin": 0.5}]
    assert sc.combinations[1].config.policies[0].label == "greedy(coin=0.5)"
    assert sc.total_games == 4 * sc.games


def test_grid_and_permutations(tmp_path):
    sc = load_scenario(write(tmp_path, """
        players = 3
        game = "advanced"
        policies = ["greedy", "random", "greedy"]
        assignment = "permutations"
        [setup]
        sides = "grid"
        focus_seat = 2
    """))
    assert len(sc.combinations) == 2 * 6
    assert {c.sweep["setup.side"] for c in sc.combinations} == {"A", "B"}
    assert all(c.arrangement is not None for c in sc.combinations)


def test_a_run_of_too_many_combinations_is_refused_before_they_are_read(tmp_path):
    """Eight swept keys of ten values are 10**8 combinations: named at once (it was read for days,
    about 1 ms each, before anything said so), as is a grid times seat permutations past the limit."""
    keys = "".join(f'"components.setup.{card}{side}.coins" = [0,1,2,3,4,5,6,7,8,9]\n'
                   for card, side in zip("12345123", "AAAAABBB"))
    problem = one(tmp_path, 'players = 2\npolicies = ["greedy", "random"]\n[sweep]\n' + keys)
    assert (problem.line, str(problem).split(": ", 1)[1]) == (
        3, "sweep: 100,000,000 combinations of swept values (10 x 10 x 10 x 10 x 10 x 10 x 10 x 10); a run takes "
           "at most 10,000: sweep fewer values, or split the sweep into runs")
    problem = one(tmp_path, """
        players = 5
        game = "advanced"
        policies = ["greedy", "random", "balanced", "military", "culture"]
        assignment = "permutations"
        setup = {cards = "grid", sides = "grid"}
        [sweep]
        "components.setup.1A.coins" = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
    """)
    assert "12,000 combinations with the setup grid and the seat permutations; a run takes at most 10,000" in str(problem)



def test_a_label_names_one_policy(tmp_path):
    """Two different policies under one label were played and then reported as one policy (80 seats
    of random and balanced as "a", its rating the lowest beside the highest win share): refused at the
    second, as is a blank label; the same policy listed twice keeps its shared name."""
    found = [str(p).split("/")[-1] for p in problems(tmp_path, """
        players = 4
        policies = [{policy = "random", label = "a"}, {policy = "balanced", label = "a"}, "greedy",
                    {policy = "economy", label = "greedy"}]
    """)]
    assert found == [
        "s.toml:2: policies[1].label: label 'a' is already policies[0]'s (random), a different policy: give each "
        "its own label",
        "s.toml:3: policies[3].label: label 'greedy' is already policies[2]'s (greedy), a different policy: give "
        "each its own label"]
    assert "a label names the policy's rows in every report" in str(one(tmp_path, """
        players = 2
        policies = [{policy = "greedy", label = " "}, "random"]
    """))
    same = load_scenario(write(tmp_path, 'players = 4\npolicies = ["greedy", "greedy", "balanced", "balanced"]\n'))
    assert [e.label for e in same.combinations[0].config.policies] == ["greedy", "greedy", "balanced", "balanced"]


def test_a_label_or_description_with_a_line_break_or_nul_is_refused_by_file_line_and_key(tmp_path):
    """A label with a line break split its rows in every table (CSV and Markdown too), and one with a NUL or a
    description with one went into the results and reports as they were."""
    found = [str(p).split("/")[-1] for p in problems(tmp_path, r"""
        players = 3
        description = "one\u0000two"
        policies = [{policy = "random", label = "a\nb"}, {policy = "greedy", label = "c\u0000"},
                    {policy = "balanced", label = "d\u2028e"}]
    """)]
    assert found == [
        "s.toml:2: description: holds a NUL (U+0000): give the description as text (lines and tabs are fine)",
        's.toml:3: policies[0].label: "a\\nb" holds a line break (U+000A): a label names the policy\'s rows on one '
        "line of every report; give it without",
        's.toml:3: policies[1].label: "c\\u0000" holds a NUL (U+0000): a label names the policy\'s rows on one '
        "line of every report; give it without",
        's.toml:4: policies[2].label: "d\u2028e" holds a line separator (U+2028): a label names the policy\'s '
        "rows on one line of every report; give it without"]
    lines = load_scenario(write(tmp_path, 'description = """two\n\tlines"""\npolicies = ["greedy"]\n'))
    assert lines.description == "two\n\tlines"


def test_each_combination_keeps_its_own_grants_out(tmp_path):
    sc = load_scenario(write(tmp_path, """
        policies = ["greedy"]
        [sweep]
        grants = ["none", "sell_bonus", {card = "II-P-01", seat = "rotate", epoch = 3}]
    """))
    c = sc.components
    assert [combo.exclude for combo in sc.combinations] == [
        (), (c.effect_card["sell_bonus"],), (c.card_index["II-P-01"],)]
    grant = sc.combinations[2].config.grants[0]
    assert (grant.card, grant.effect, grant.epoch, grant.seat) == ("II-P-01", "colony_bounty", 3, "rotate")


def test_key_lines_of_nested_and_multiline():
    text = 'a = 1\n[[seats]]\npolicy = "x"\n[seats.params]\ncoin = 1\n[sweep]\ngrants = [\n  "none",\n  "b",\n]\n'
    lines = key_lines(text)
    assert lines[("seats", 0, "params", "coin")] == 5
    assert lines[("sweep", "grants", 1)] == 9


# --- validation -------------------------------------------------------------------------------

def test_a_folder_given_for_the_scenario_says_what_to_give(tmp_path):
    """`simulate scenarios` said only 'scenarios: is not a file'."""
    (tmp_path / "mine.toml").write_text('policies = ["greedy"]\n')
    with pytest.raises(ScenarioError) as err:
        load_scenario(tmp_path)
    assert str(err.value.problems[0]).endswith(f"is a folder, not a scenario file: give one of its .toml files, "
                                               f"e.g. {tmp_path / 'mine.toml'}")


def test_a_table_header_for_a_single_value_is_told_once_with_the_fix(tmp_path):
    """`[players]` for `players = 4` took in the keys below it: a long message and a misleading "no
    policies" beside it."""
    p = one(tmp_path, """
        name = "x"
        [players]
        policies = ["greedy"]
        games = 10
        """)
    assert (p.line, p.field) == (2, "players")
    assert p.message == ("must be a whole number 2..5; a [players] table was given, which took in the keys below "
                         "it (policies, games): write players = 4 above the first [table]")
    p = one(tmp_path, 'policies = ["greedy"]\n[game]\n')
    assert (p.line, p.message) == (2, 'must be one of "basic", "advanced"; a [game] table was given: write game = "basic"')
    # an inline table takes nothing in: the policies are missing, and said so
    found = [str(p) for p in problems(tmp_path, "players = {a = 1}\n")]
    assert found[0].endswith("players: must be a whole number 2..5; a table {a = 1} was given: write players = 4")
    assert "no policies" in found[1]


def test_unknown_key_suggests(tmp_path):
    p = one(tmp_path, """
        policies = ["greedy"]
        gmes = 10
    """)
    assert (p.line, p.field) == (2, "gmes") and "did you mean 'games'" in p.message
    assert str(p).startswith(str(tmp_path / "s.toml") + ":2: gmes:")


def test_nested_unknown_key_and_line(tmp_path):
    p = one(tmp_path, """
        policies = ["greedy"]

        [setup]
        cards = "random"
        sidez = "A"
    """)
    assert (p.line, p.field) == (5, "setup.sidez") and "'sides'" in p.message


@pytest.mark.parametrize("text, line, key, words", [
    ('players = 6\npolicies = ["greedy"]', 1, "players", "2..5"),
    ('players = "4"\npolicies = ["greedy"]', 1, "players", "whole number"),
    ('policies = ["greedy"]\ngames = 0', 2, "games", "must be 1..1000000000000, got 0"),
    ('policies = ["greedy"]\nchunk = -5', 2, "chunk", "at least 1"),
    ('policies = ["greedy"]\nseed = 1.5', 2, "seed", "whole number"),
    ('policies = ["greedy"]\nseed = 99999999999999999999', 2, "seed", "must be 0..9223372036854775807"),
    ('policies = ["greedy"]\ncomponents = 5', 2, "components", "folder (a string) or a [components] table"),
    ('policies = ["greedy", "gredy"]', 1, "policies[1].policy", "Available: "),
    ('[[seats]]\npolicy = "greedy"\n[seats.params]\ncoinz = 1', 3, "seats[0].params", "coinz"),
    ('policies = ["greedy"]\ngame = "expert"', 2, "game", '"basic", "advanced"'),
    ('policies = ["greedy", "random"]\nplayers = 3\nassignment = "fixed"', 1, "policies", "one policy per seat"),
    ('policies = ["greedy"]\n[setup]\nsides = ["A", "B", "A", "A"]', 3, "setup.sides", "advanced"),
    ('policies = ["greedy"]\n[setup]\ncards = [1, 1, 2, 3]', 3, "setup.cards", "repeats"),
    ('policies = ["greedy"]\n[board]\ncolour_order = ["red"]', 3, "board.colour_order", "5 colours"),
    ('policies = ["greedy"]\ngrants = ["sell_bonnus"]', 2, "grants[0].card", "did you mean 'sell_bonus'"),
    ('policies = ["greedy"]\ngrants = ["feed_with_coins"]', 2, "grants[0].card", "advanced-game card"),
    ('policies = ["greedy"]\n[[grants]]\ncard = "sell_bonus"\nseat = 4', 4, "grants[0].seat", "0..3"),
    ('policies = ["greedy"]\n[sweep]\nseed = [1, 2]', 3, "sweep.seed", "cannot be swept"),
    ('policies = ["greedy"]\n[sweep]\nplayers = 3', 3, "sweep.players", "non-empty list"),
    ('policies = ["greedy"]\n[sweep]\nplayerz = [3]', 3, "sweep.playerz", "did you mean 'players'"),
    # a place only a swept key names had no line: the problem is at the key's
    ('policies = ["greedy"]\n[sweep]\n"components.setup.3C.culture" = [0, 1]', 3, "components.setup.3C",
     "unknown setup card"),
])
def test_problem_names_line_and_key(tmp_path, text, line, key, words):
    p = one(tmp_path, text)
    assert (p.line, p.field) == (line, key), str(p)
    assert words in p.message, str(p)


def test_a_value_is_shown_as_written(tmp_path):
    """A name not fit for a folder was shown as "d\\u00e9faut \\u2713": a value is quoted as written."""
    p = one(tmp_path, 'policies = ["greedy"]\nname = "défaut ✓"')
    assert p.field == "name" and p.message.startswith('"défaut ✓" cannot name'), str(p)


def test_all_problems_reported_together(tmp_path):
    found = problems(tmp_path, """
        players = 6
        policies = ["gredy"]
        games = 0
        [setup]
        sidez = "A"
    """)
    assert {p.field for p in found} == {"players", "policies[0].policy", "games", "setup.sidez"}


def test_impossible_grant_five_players_basic_purple(tmp_path):
    p = one(tmp_path, """
        policies = ["greedy"]
        [sweep]
        players = [4, 5]
        grants = ["none", "set_collector"]
    """)
    assert (p.line, p.field) == (4, "sweep.grants")
    assert "impossible grant at 5 players, basic game" in p.message and "purple" in p.message
    assert "III-P-" in p.message and "set_collector" in p.message


def test_sweep_value_problem_points_at_the_value(tmp_path):
    p = one(tmp_path, """
        policies = ["greedy"]
        [sweep]
        players = [
          3,
          9,
        ]
    """)
    assert (p.line, p.field) == (5, "players") and p.message.startswith("with players = 9: ")


@pytest.mark.filterwarnings("ignore::hadara_sim.scenario.checks.DesignWarning")
def test_problem_in_some_combinations_names_them(tmp_path):
    p = one(tmp_path, """
        policies = ["greedy", "random"]
        assignment = "fixed"
        [sweep]
        players = [2, 3]
    """)
    assert (p.line, p.field) == (1, "policies") and p.message.startswith("with players = 3: ")


def test_toml_syntax_error_has_line(tmp_path):
    p = one(tmp_path, 'players = 4\npolicies = ["greedy"\n')
    assert p.line == 2 and "not valid TOML" in p.message
    p = one(tmp_path, 'players = 4\nplayers = 5\n')
    assert p.line == 2


def test_missing_file():
    with pytest.raises(ScenarioError, match="no such scenario file"):
        load_scenario("no/such/file.toml")


def test_toml_text_given_to_load_scenario_is_not_taken_for_a_missing_file():
    """The text was shown as a file name: 'players = 2 ... : no such scenario file' and the shipped names."""
    text = 'players = 2\npolicies = ["random"]\n'
    with pytest.raises(ScenarioError, match=re.escape("this is TOML text: parse_scenario(text)")):
        load_scenario(text)
    assert parse_scenario(text).combinations[0].config.players == 2
    # one line of TOML too (a file so named would have been read); a missing file's name with '=' is not
    with pytest.raises(ScenarioError, match=re.escape("this is TOML text")):
        load_scenario("players = 2")
    with pytest.raises(ScenarioError, match="no such scenario file"):
        load_scenario("runs/a=b.toml")


def test_policy_file_spec_relative_to_scenario(tmp_path):
    (tmp_path / "mine.py").write_text(
        "from hadara_sim.policies.random import Random\nclass Mine(Random):\n    name = 'mine'\n")
    sc = load_scenario(write(tmp_path, 'policies = ["mine.py:Mine"]\n'))
    assert sc.combinations[0].config.policies[0].policy == f"{(tmp_path / 'mine.py').resolve()}:Mine"


def test_parse_text_without_file():
    sc = parse_scenario('players = 2\npolicies = ["random"]\ngames = 5\n')
    assert sc.games == 5 and sc.path == "<scenario>"


def test_cli_reports_problems_with_exit_2_and_no_traceback(tmp_path):
    path = write(tmp_path, 'players = 7\npolicies = ["greedy"]\n')
    proc = subprocess.run([sys.executable, "-c", "from hadara_sim.cli import main; main()", "simulate",
                           str(path), "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    text = proc.stdout + proc.stderr
    assert f"{path}:1: players: must be 2..5, got 7" in " ".join(text.split()).replace(" \n", "")
    assert "Traceback" not in text
    assert not (tmp_path / "out").exists()


def test_a_scenario_saved_with_a_byte_order_mark_and_windows_line_ends_loads(tmp_path):
    """Notepad's UTF-8 starts with a byte order mark, which tomllib reads as 'Invalid statement'."""
    path = tmp_path / "notepad.toml"
    path.write_bytes(b'\xef\xbb\xbfplayers = 2\r\npolicies = ["greedy", "random"]\r\ngames = 8\r\n')
    scenario = load_scenario(path)
    assert scenario.games == 8 and scenario.name == "notepad"


def test_a_policy_file_given_from_the_working_folder_is_recorded_by_its_full_path(tmp_path, monkeypatch):
    """`simulate scenarios/x.toml --set 'policies=["docs/examples/plunderer.py:Plunderer", ...]'` from the
    repository's root recorded the path as typed: `show-game` from another folder found no such file."""
    (tmp_path / "bots").mkdir()
    shutil.copy(Path(__file__).resolve().parents[1] / "docs" / "examples" / "plunderer.py", tmp_path / "bots")
    (tmp_path / "scenarios").mkdir()
    (tmp_path / "scenarios" / "s.toml").write_text('players = 2\npolicies = ["greedy", "random"]\n')
    monkeypatch.chdir(tmp_path)
    sc = load_scenario("scenarios/s.toml", settings=['policies=["bots/plunderer.py:Plunderer", "greedy"]'])
    assert sc.combinations[0].config.policies[0].policy == f"{(tmp_path / 'bots' / 'plunderer.py').resolve()}:Plunderer"


def test_one_policy_parameter_is_set_from_the_command_line_in_either_spelling_of_its_key():
    """`--set 'policies[0].params.coin=0.5'` was "unknown key 'policies[0]'" and `policies.0...` "set it
    whole": a setting names a place as a sweep does, and a policy given by name becomes a table."""
    text = 'players = 2\npolicies = ["balanced", "greedy"]\n'
    for key in ("policies[0].params.coin", "policies.0.params.coin"):
        sc = parse_scenario(text, settings=[f"{key}=0.5"])
        first = sc.combinations[0].config.policies[0]
        assert (first.policy, first.params, first.label) == ("balanced", {"coin": 0.5}, "balanced(coin=0.5)")
    for setting, message in (("policies[2].params.coin=0.5", "policies has 2 entries, no [2]"),
                             ("players.x=1", "players is a whole number 2, not a table of keys: set it whole"),
                             ("policies[0].params.bogus=1", "has no parameter bogus")):
        with pytest.raises(ScenarioError, match=re.escape(message)) as err:
            parse_scenario(text, settings=[setting])
        assert str(err.value).count(f"--set {setting}") == 1


def test_two_spellings_of_one_place_are_refused_in_a_sweep_and_in_settings():
    """Both spellings of one swept key were played, the later in every combination, with rows labelled
    by both and two columns; two settings of one place ran into a folder named after both."""
    text = 'players = 2\npolicies = ["greedy", "balanced"]\n[sweep]\n"policies[0].params.coin" = [0.3, 0.5]\n'
    with pytest.raises(ScenarioError, match="'policies.0.params.coin' and 'policies\\[0\\].params.coin' sweep the "
                                            "same place: keep one of them") as err:
        parse_scenario(text + '"policies.0.params.coin" = [0.4]\n', file="s.toml")
    assert "s.toml:5: sweep." in str(err.value)
    with pytest.raises(ScenarioError, match="'players=3' sets the same place: keep one of them"):
        parse_scenario("players = 2\n", settings=["players=3", "players=4"])


@pytest.mark.parametrize("index", ["\u00b2", "\uff11", "[\uff11]"])
def test_a_swept_index_in_digits_other_than_0_9_is_refused(index):
    """'policies.²' stopped in "unexpected ValueError" (str.isdigit() holds for '²', int() refuses it), and
    'policies.１' swept policies[1]."""
    key = f"policies.{index}" if not index.startswith("[") else f"policies{index}"
    text = f'players = 2\npolicies = ["greedy", "random"]\n[sweep]\n"{key}" = ["greedy", "random"]\n'
    with pytest.raises(ScenarioError, match="policies is a list: use an index, not '"):
        parse_scenario(text, file="s.toml")


def test_a_policy_class_or_instance_in_a_scenario_dict_says_to_name_it_from_a_file():
    from hadara_sim.policies.random import Random
    from hadara_sim.scenario.read import scenario_from_dict

    for given in (Random, Random()):
        with pytest.raises(ScenarioError, match="a policy is named, not passed: save its class in a file and name it"):
            scenario_from_dict({"players": 2, "policies": [given, "random"]})

"""Hostile but realistic use: every failure is one line naming its cause, exit 2 (1 during a run),
no traceback, nothing read or written outside the results directory, nothing deleted that the
program did not write, no run mixed with another, no worker left behind."""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from hadara_sim.cli import app
from hadara_sim.components import ComponentError
from hadara_sim.component_files import default_components_path, load_components
from hadara_sim.results import ResultsError, load_results, scan_results
from hadara_sim.runner import run
from hadara_sim.scenario.checks import ScenarioError
from hadara_sim.scenario.read import load_scenario, parse_scenario

from helpers import edit_csv

TINY = """
name = "tiny"
players = 2
policies = ["greedy", "random"]
games = {games}
seed = {seed}
chunk = 4
"""
CLI = [sys.executable, "-c", "from hadara_sim.cli import main; main()"]


def tiny(tmp_path, games=8, seed=1, name="tiny.toml", extra=""):
    path = tmp_path / name
    path.write_text(textwrap.dedent(TINY.format(games=games, seed=seed)) + extra)
    return path


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def clean_failure(result, code=2, *words):
    """Exit `code`, no traceback, and the message names each of `words`."""
    text = " ".join(result.output.split())
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output and result.exception is None or isinstance(result.exception, SystemExit)
    compact = "".join(text.split())  # rich wraps long lines, even inside words
    for word in words:
        assert "".join(word.split()) in compact, (word, text)
    return text


# --- a results directory knows what belongs to it ---------------------------------------------

@pytest.fixture
def two_runs(tmp_path):
    """Two finished runs of one scenario with other seeds."""
    a = tmp_path / "a"
    b = tmp_path / "b"
    assert run(load_scenario(tiny(tmp_path, seed=1)), a, jobs=1).played == 2
    assert run(load_scenario(tiny(tmp_path, seed=2, name="other.toml")), b, jobs=1).played == 2
    return a, b


def test_a_part_from_another_run_is_refused_everywhere(two_runs, tmp_path):
    a, b = two_runs
    shutil.copy(b / "part-c0000-k00001.parquet", a / "part-c0000-k00001.parquet")
    for read in (load_results, scan_results):
        with pytest.raises(ResultsError, match="part-c0000-k00001.parquet belongs to another run"):
            read(a)
    clean_failure(invoke("report", "winrate", a), 2, "part-c0000-k00001.parquet", "another run")
    # a resume refuses it too, rather than keeping it as one of its chunks
    (a / "part-c0000-k00000.parquet").unlink()
    clean_failure(invoke("simulate", tiny(tmp_path, seed=1), "--out", a, "-q", "--jobs", "1"), 2,
                  "part-c0000-k00001.parquet", "another run")


def test_a_part_from_another_player_count_is_refused(two_runs, tmp_path):
    a, _ = two_runs
    other = tmp_path / "three"
    text = textwrap.dedent(TINY.format(games=8, seed=1))
    sc = parse_scenario(text.replace("players = 2", "players = 3").replace('"random"]', '"random", "random"]'))
    run(sc, other, jobs=1)
    shutil.copy(other / "part-c0000-k00000.parquet", a / "part-c0000-k00000.parquet")
    with pytest.raises(ResultsError, match="part-c0000-k00000.parquet belongs to another run"):
        load_results(a)


def test_a_damaged_or_unplanned_part_is_named(two_runs):
    a, _ = two_runs
    data = (a / "part-c0000-k00001.parquet").read_bytes()
    (a / "part-c0000-k00001.parquet").write_bytes(data[: len(data) // 2])
    with pytest.raises(ResultsError, match="part-c0000-k00001.parquet cannot be read"):
        load_results(a)
    # the resume names the way that keeps the three good chunks, not only --overwrite
    clean_failure(invoke("simulate", tiny(a.parent, seed=1), "--out", a, "-q", "--jobs", "1"), 2,
                  "part-c0000-k00001.parquet cannot be read", "move it away and run the same command again: its "
                  "chunk alone is played again (--overwrite would play every chunk again)")
    # a report says so too: it said only to run the scenario again [--overwrite], which plays all four again
    told = " ".join(invoke("report", "winrate", a).output.split())
    assert "To mend it, move it away and run the run's simulate command" in told and "[--overwrite]" not in told
    (a / "part-c0000-k00001.parquet").write_bytes(data)
    shutil.copy(a / "part-c0000-k00001.parquet", a / "part-c0007-k00000.parquet")
    with pytest.raises(ResultsError, match="part-c0007-k00000.parquet is not a chunk of the run"):
        load_results(a)
    clean_failure(invoke("report", "breakdown", a), 2, "part-c0007-k00000.parquet")


def test_a_part_damaged_mid_file_is_named_when_a_scan_is_collected(two_runs):
    """The footer still reads, so the scan starts; collecting it names the file, a query built on the
    scan too, while a fault of the query itself stays polars' own error."""
    import polars as pl

    a, _ = two_runs
    part = a / "part-c0000-k00001.parquet"
    data = bytearray(part.read_bytes())
    data[4:68] = b"\xff" * 64  # the first page, well before the footer
    part.write_bytes(bytes(data))
    lazy = scan_results(a)
    for query in (lazy, lazy.filter(pl.col("seat") == 0).with_columns(pl.col("total") * 2)):
        with pytest.raises(ResultsError, match="part-c0000-k00001.parquet cannot be read"):
            query.collect()
    with pytest.raises(pl.exceptions.ColumnNotFoundError):
        scan_results(a).select("no_such_column").collect()


@pytest.mark.parametrize("change", [
    lambda m: m.update(chunks_per_combination="2"),
    lambda m: m.update(games="8"),
    lambda m: m["combinations"][0].pop("index"),
    lambda m: m.update(combinations="all"),
    lambda m: m.pop("identity"),
    lambda m: m.update(chunks=[{"file": "../../etc/passwd"}], chunks_per_combination=5),
    # read by the reports' titles and footers: each stopped them with AttributeError or TypeError
    lambda m: m.update(components="shipped"),
    lambda m: m.update(components={"path": 5, "digest": None}),
    lambda m: m["scenario"].update(parsed="x"),
    lambda m: m["scenario"].update(name=5),
    lambda m: m["scenario"].update(description=["a"]),
    lambda m: m["combinations"][0].update(config="x"),
    lambda m: m["combinations"][0].update(arrangement=[0, 7]),
])
def test_damaged_metadata_is_refused_by_key(two_runs, tmp_path, change):
    a, _ = two_runs
    meta = json.loads((a / "metadata.json").read_text())
    change(meta)
    (a / "metadata.json").write_text(json.dumps(meta))
    with pytest.raises(ResultsError, match="metadata.json is damaged: key|metadata.json is damaged: combinations"):
        load_results(a)
    clean_failure(invoke("report", "winrate", a), 2, "metadata.json is damaged")
    clean_failure(invoke("simulate", tiny(tmp_path, seed=1), "--out", a, "-q", "--jobs", "1"), 2,
                  "metadata.json is damaged", "--overwrite")


def test_a_schema_version_edited_in_this_runs_metadata_is_refused_on_resume(two_runs, tmp_path):
    """Metadata of another schema has its keys checked by that schema's reader, not this one: with the run's
    identity kept, schema_version {"": null} and games [null] stopped the resuming `simulate` with a TypeError
    (fuzz campaign, seed 6303)."""
    a, _ = two_runs
    meta = json.loads((a / "metadata.json").read_text())
    meta.update(schema_version={"": None}, games=[None])
    (a / "metadata.json").write_text(json.dumps(meta))
    clean_failure(invoke("simulate", tiny(tmp_path, seed=1), "--out", a, "-q", "--jobs", "1"), 2,
                  "holds a results directory that cannot be used", "schema version {'': None}", "--overwrite")
    clean_failure(invoke("report", "winrate", a), 2, "schema version {'': None}")


def test_overwrite_deletes_only_what_a_run_writes(two_runs, tmp_path):
    a, _ = two_runs
    mine = ["notes.txt", ".my-notes.tmp", "part-old.parquet", "part-c1-k1.parquet"]
    for name in mine:
        (a / name).write_text("the user's")
    result = invoke("simulate", tiny(tmp_path, seed=3), "--out", a, "-q", "--jobs", "1", "--overwrite")
    assert result.exit_code == 0, result.output
    assert all((a / name).read_text() == "the user's" for name in mine)
    assert load_results(a).height == 8 * 2


def test_the_lock_holds_under_contention(tmp_path):
    """Two processes taking the directory lock 300 times each, each time reading a counter,
    sleeping and writing it back: no increment is lost, so they were never inside together."""
    counter = tmp_path / "counter"
    counter.write_text("0")
    script = textwrap.dedent(f"""
        import time
        from pathlib import Path
        from hadara_sim.process import LockBusy, directory_lock
        counter, taken = Path({str(counter)!r}), 0
        while taken < 300:
            try:
                with directory_lock(Path({str(tmp_path / '.lock')!r})):
                    n = int(counter.read_text())
                    time.sleep(0.0002)
                    counter.write_text(str(n + 1))
                    taken += 1
            except LockBusy:
                time.sleep(0.0001)
    """)
    procs = [subprocess.Popen([sys.executable, "-c", script]) for _ in range(2)]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    assert counter.read_text() == "600"


# --- paths ------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["../../escaped", "/tmp/absolute", "", ".", "..", "a" * 300, "a/b", ".hidden"])
def test_a_scenario_name_cannot_leave_results(tmp_path, name, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = tiny(tmp_path).read_text().replace('name = "tiny"', f"name = {json.dumps(name)}")
    (tmp_path / "s.toml").write_text(text)
    before = set(tmp_path.rglob("*"))
    result = invoke("simulate", tmp_path / "s.toml", "-q", "--jobs", "1")
    clean_failure(result, 2, "s.toml:2", "name")
    assert set(tmp_path.rglob("*")) == before
    assert not Path("/tmp/absolute").exists()


def test_out_that_cannot_be_a_directory(tmp_path):
    (tmp_path / "file").write_text("x")
    scenario = tiny(tmp_path)
    clean_failure(invoke("simulate", scenario, "--out", tmp_path / "file" / "sub", "-q"), 2, "--out")
    clean_failure(invoke("simulate", scenario, "--out", tmp_path / "file", "-q"), 2, "is a file")
    clean_failure(invoke("simulate", scenario, "--out", "/proc/self", "-q", "--jobs", "1"), 2, "/proc/self")


# --- policy parameters ------------------------------------------------------------------------

@pytest.mark.parametrize("params, where", [
    ("coin = [1]", "policies[0].params.coin"),
    ("colours = [1.0, 2.0]", "policies[0].params.colours"),
    ('colours = "red"', "policies[0].params.colours"),
    ('points = "many"', "policies[0].params.points"),
    ("points = nan", "policies[0].params.points"),
    ("coin = inf", "policies[0].params.coin"),
    ("colours = [0.0, 0.0, 0.0, 0.0, -inf]", "policies[0].params.colours[4]"),
    ("points = true", "policies[0].params.points"),
])
def test_policy_parameters_match_their_defaults(params, where):
    text = f'players = 2\npolicies = [{{policy = "greedy", params = {{{params}}}}}, "random"]\n'
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(text, file="s.toml")
    assert f"s.toml:2: {where}: policy 'greedy'" in str(caught.value)


@pytest.mark.parametrize("policy, params, expected", [
    ("search", 'kinds = "side"', "expected a list of names, any number of them (e.g. ['side']), got a string 'side'"),
    ("greedy", 'avoid = "I-Y-03"', "expected a list of names, any number of them (e.g. ['I-Y-03'])"),
    ("random", "seek = 3", "expected a list of names, any number of them (e.g. ['3']), got a whole number 3"),
])
def test_a_name_where_a_list_of_names_belongs_says_what_a_list_of_names_is(policy, params, expected):
    text = f'players = 2\npolicies = [{{policy = "{policy}", params = {{{params}}}}}, "random"]\n'
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(text, file="s.toml")
    assert expected in str(caught.value) and "entries like" not in str(caught.value)


def test_policy_parameters_are_checked_in_every_sweep_value():
    text = ('players = 2\npolicies = ["greedy", "random"]\n[sweep]\n'
            '"policies[0].params.coin" = [0.5, "lots", [1]]\n')
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(text, file="s.toml")
    message = str(caught.value)
    assert 'policies[0].params.coin = "lots"' in message and "policies[0].params.coin = [1]" in message
    assert "0.5" not in message.replace("like the default 0.5", "")


@pytest.mark.parametrize("key", ["rollout", "opponent"])
def test_an_unknown_policy_named_by_a_search_parameter_is_that_parameter_s_fault(key):
    text = f'players = 2\npolicies = [{{policy = "search", params = {{{key} = "nosuch"}}}}, "random"]\n'
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(text, file="s.toml")
    message = " ".join(str(caught.value).split())
    assert f"s.toml:2: policies[0].params: policy 'search' does not accept these parameters: policy 'search' " \
           f"parameter {key}: unknown policy 'nosuch'" in message
    assert "policies[0].policy" not in message


# --- user policies ----------------------------------------------------------------------------

USER_POLICIES = '''
from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np

from hadara_sim.policy import Policy

NOT_CALLABLE = 42


@dataclass
class Weights:  # a dataclass in a module with postponed annotations
    coin: float = 1.0


class Broken(Policy):
    name = "broken"

    def __init__(self, seed=0, **params):
        raise RuntimeError("no weights file")


def not_a_policy(seed=0):
    return "a string"


class Nameless:  # a policy needs only decide(decision)
    def __init__(self, seed=0):
        pass

    def decide(self, decision):
        return decision.legal.argmax(axis=1)


def exits(seed=0):
    sys.exit("no weights")


def generator_exit(seed=0):
    raise GeneratorExit


def bare_base_exception(seed=0):
    raise BaseException("odd")


def interrupts(seed=0):
    raise KeyboardInterrupt


class RaisesMidGame(Policy):
    name = "raises_mid_game"

    def draw(self, decision):
        raise ZeroDivisionError("division by zero in my heuristic")


class Exits(Policy):
    name = "exits"

    def draw(self, decision):
        sys.exit(3)


class Mutates(Policy):
    name = "mutates"

    def draw(self, decision):
        decision.legal[:] = True
        return decision.legal.argmax(axis=1)


class StopsGenerator(Policy):
    name = "stops_generator"

    def draw(self, decision):
        raise GeneratorExit


class Interrupting:
    def __array__(self, dtype=None, copy=None):
        raise KeyboardInterrupt


class ReturnsInterrupting(Policy):
    name = "returns_interrupting"

    def draw(self, decision):
        return Interrupting()


class Cheats(Policy):
    name = "cheats"

    def decide(self, decision):
        illegal = (~decision.legal).argmax(axis=1)  # an illegal option where there is one
        decision.legal = np.ones_like(decision.legal)
        return illegal


class Unlocks(Policy):
    name = "unlocks"

    def decide(self, decision):
        illegal = (~decision.legal).argmax(axis=1)
        decision.legal.flags.writeable = True
        decision.legal[:] = True
        return illegal


class Fine(Policy):
    name = "fine"
    weights = Weights()


class ChecksBadly(Policy):
    name = "checks_badly"

    def check_components(self, components):
        raise RuntimeError("no such set")
'''


@pytest.fixture
def user_policies(tmp_path):
    (tmp_path / "mine.py").write_text(USER_POLICIES)
    return tmp_path / "mine.py"


@pytest.mark.parametrize("attr, words", [
    ("NOT_CALLABLE", ["'NOT_CALLABLE' is int, not a policy"]),
    ("nothing_here", ["has no attribute 'nothing_here'"]),
    ("Broken", ["cannot be made", "RuntimeError: no weights file"]),
    ("not_a_policy", ["made a str", "not a policy"]),
    # make_policy caught only Exception: GeneratorExit and BaseException ended in a traceback, and sys.exit's
    # message lost the call that made it
    ("exits", ["cannot be made: exits(seed=", "raised SystemExit: no weights"]),
    ("generator_exit", ["cannot be made: generator_exit(seed=", "raised GeneratorExit"]),
    ("bare_base_exception", ["cannot be made: bare_base_exception(seed=", "raised BaseException: odd"]),
])
def test_user_policies_that_cannot_be_made(tmp_path, user_policies, attr, words):
    scenario = tiny(tmp_path).read_text().replace('"greedy"', f'"mine.py:{attr}"')
    (tmp_path / "s.toml").write_text(scenario)
    clean_failure(invoke("simulate", tmp_path / "s.toml", "-q", "--out", tmp_path / "out"), 2, "s.toml:4", *words)
    clean_failure(invoke("play", "--policy", f"{user_policies}:{attr}", "-q"), 2, *words)


def test_the_human_seat_outside_play_says_where_it_plays():
    """It was 'unknown policy 'human'', a name that play's own help offers. The play it names runs as
    written: it said `play --policy human,greedy`, two policies for play's default of 4 players."""
    with pytest.raises(ScenarioError, match=r"s.toml:2: policies\[0\].policy: policy 'human' is you at the keyboard: "
                                            r"it takes a seat only in `hadara-sim play -p 2 --policy human,greedy`") as told:
        parse_scenario('players = 2\npolicies = ["human", "random"]\n', file="s.toml")
    command = re.search(r"`hadara-sim (play [^`]*)`", str(told.value)).group(1).split()
    played = CliRunner().invoke(app, command, input="1\n" * 400, env={"COLUMNS": "120"})
    assert played.exit_code == 0 and "Winner: seat" in played.output, played.output[-500:]


def test_a_policy_or_module_raising_keyboard_interrupt_as_it_is_made_is_named(tmp_path, user_policies):
    """A constructor's or a module's own `raise KeyboardInterrupt` was taken for the user's Ctrl-C: exit 130 with
    no word of the policy (a module's GeneratorExit was a traceback). Each is named like any failing policy."""
    (tmp_path / "stops.py").write_text("raise KeyboardInterrupt\n")
    (tmp_path / "closes.py").write_text("raise GeneratorExit\n")
    for spec, words in ((f"{user_policies}:interrupts", "interrupts(seed=0) raised KeyboardInterrupt"),
                        ("stops.py:P", "cannot load policy module 'stops.py': KeyboardInterrupt"),
                        ("closes.py:P", "cannot load policy module 'closes.py': GeneratorExit")):
        done = subprocess.run([*CLI, "play", "-p", "2", "-q", "--policy", spec], cwd=tmp_path, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 2, (spec, done.stderr)
        assert words in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_a_policy_without_a_name_plays_under_its_class_name(user_policies):
    """make_policy accepts any object with decide(); play then stopped on `p.name`: "unexpected AttributeError"."""
    played = invoke("play", "-p", "2", "-q", "--policy", f"{user_policies}:Nameless,greedy")
    assert played.exit_code == 0, played.output
    assert "Nameless" in played.output


def test_a_seed_given_as_a_policy_parameter_is_refused_by_name(tmp_path):
    """make_policy passes seed= itself: `random:seed=5` or params = {seed = 5} stopped on Python's "got multiple
    values for keyword argument 'seed'", which says neither where nor what to do."""
    words = ["'seed' is not a parameter", "given the run's seed"]
    clean_failure(invoke("play", "-p", "2", "-q", "--policy", "random:seed=5"), 2, "policy 'random'", *words)
    scenario = tiny(tmp_path).read_text().replace('"greedy"', '{ policy = "random", params = { seed = 5 } }')
    (tmp_path / "s.toml").write_text(scenario)
    clean_failure(invoke("simulate", tmp_path / "s.toml", "-q", "--out", tmp_path / "out"), 2,
                  "s.toml:4", "params.seed", *words)


def test_a_policy_file_that_is_a_directory_is_named_so(tmp_path):
    (tmp_path / "mine.py").mkdir()
    clean_failure(invoke("play", "-q", "--policy", f"{tmp_path / 'mine.py'}:P"), 2, "mine.py' is a directory")


def test_a_policy_module_that_prints_on_import_leaves_a_json_table_whole(tmp_path):
    """A module's print() on import went to stdout, ahead of the --format json score pad: not JSON any more."""
    (tmp_path / "loud.py").write_text("print('loading my policy')\nfrom hadara_sim.policies.greedy import Greedy\n")
    done = subprocess.run([*CLI, "play", "-p", "2", "--format", "json", "--policy", "loud.py:Greedy"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["tables"] and "loading my policy" in done.stderr


MISBEHAVING = """
from hadara_sim.params import Param
from hadara_sim.policies.greedy import Greedy
from hadara_sim.policy import Policy


class NameRaises(Greedy):
    @property
    def name(self):
        raise RuntimeError("no name yet")


class _NamesRaise(type):
    @property
    def name(cls):
        raise RuntimeError("no class name")


class ClassNameRaises(Greedy, metaclass=_NamesRaise):
    pass


class DecideRaises:
    def __init__(self, seed=0):
        pass

    @property
    def decide(self):
        raise RuntimeError("no decide yet")


class ParamsNotADict(Greedy):
    params = 5


class DeclaredNotParams(Greedy):
    params = {**Greedy.params, "reach": 1}
    declared = {**Greedy.declared, "reach": 5}


class SeedShy(Greedy):  # made once with seed 0 as the scenario is read, then again in the run's worker
    name = "seed_shy"

    def __init__(self, seed=0, **params):
        if seed:
            raise RuntimeError(f"cannot take seed {seed}")
        super().__init__(seed, **params)


class Chatty:  # no Policy subclass: decide() alone (`simulate` stopped on its missing `kernel`)
    name = "chatty"

    def __init__(self, seed=0):
        print("making chatty")

    def check_components(self, components):
        print("checking chatty")

    def decide(self, decision):
        print("chatty decides")
        return decision.legal.argmax(axis=1)
"""

LOOKUP_RAISES = """
def __getattr__(attr):
    raise RuntimeError(f"no {attr} in here")
"""


@pytest.fixture
def misbehaving(tmp_path):
    (tmp_path / "bad.py").write_text(MISBEHAVING)
    (tmp_path / "lookup.py").write_text(LOOKUP_RAISES)
    return tmp_path


@pytest.mark.parametrize("attr, words", [
    ("NameRaises", "reading its `name` raised RuntimeError: no name yet"),
    ("ClassNameRaises", "reading its `name` raised RuntimeError: no class name"),
    ("DecideRaises", "reading its `decide` raised RuntimeError: no decide yet"),
])
def test_a_policy_attribute_that_raises_is_named_as_the_policys_problem(misbehaving, attr, words):
    """policy_name's getattr(policy, "name", None) let a property's RuntimeError through: `play` said
    "unexpected RuntimeError: no name yet", as did `simulate`, `policies show` and make_policy."""
    spec = f"{misbehaving / 'bad.py'}:{attr}"
    shown = invoke("policies", "show", spec)
    if attr == "ClassNameRaises":  # the class's own name raises (its instances have Greedy's): `show` reads it
        clean_failure(shown, 2, f"policy '{spec}'", words)
        return
    assert shown.exit_code == 0 and "Traceback" not in shown.output, shown.output  # the class is shown
    clean_failure(invoke("play", "-p", "2", "-q", "--policy", f"{spec},greedy"), 2, f"policy '{spec}'", words)
    scenario = tiny(misbehaving).read_text().replace('"greedy"', f'"bad.py:{attr}"')
    (misbehaving / "s.toml").write_text(scenario)
    clean_failure(invoke("simulate", misbehaving / "s.toml", "-q", "--out", misbehaving / "out"), 2, "s.toml:4", words)


def test_a_policy_made_without_make_policy_whose_name_raises_is_a_policy_error(misbehaving):
    """The library's own calls (play_batch, the reference engine) name a policy by `policy_name` as it fails."""
    from hadara_sim.policy import PolicyError, policy_name

    namespace = {}
    exec(MISBEHAVING, namespace)  # noqa: S102 (the test's own policies)
    with pytest.raises(PolicyError, match="policy 'NameRaises': reading its `name` raised RuntimeError"):
        policy_name(namespace["NameRaises"]())
    assert policy_name(namespace["Chatty"]()) == "chatty"


def test_a_module_whose_attribute_lookup_raises_is_named(misbehaving):
    """resolve_policy's hasattr(module, attr) let a module __getattr__'s RuntimeError through."""
    clean_failure(invoke("play", "-p", "2", "-q", "--policy", f"{misbehaving / 'lookup.py'}:Mine"), 2,
                  "reading its `Mine` raised RuntimeError: no Mine in here")


@pytest.mark.parametrize("attr, words", [
    ("ParamsNotADict", "its `params` is int 5, not a dict of each parameter's name and default"),
    ("DeclaredNotParams", "its `declared` is {'reach': int ...}, not a dict of a hadara_sim.params.Param"),
])
def test_a_policy_with_params_or_declared_of_the_wrong_kind_is_named(misbehaving, attr, words):
    """`policies show` stopped on dict(5) ("unexpected TypeError: 'int' object is not iterable") and on
    a declaration's missing .help; `tune` on .items() of an int; a scenario took such params for none."""
    spec = f"{misbehaving / 'bad.py'}:{attr}"
    clean_failure(invoke("policies", "show", spec), 2, f"policy '{spec}'", words)
    clean_failure(invoke("policies", "tune", spec, "--trials", "1", "--games", "2", "--validation-games", "2", "-q"),
                  2, words)
    scenario = tiny(misbehaving).read_text().replace('"greedy"', f'"bad.py:{attr}"')
    (misbehaving / "s.toml").write_text(scenario)
    clean_failure(invoke("simulate", misbehaving / "s.toml", "-q", "--out", misbehaving / "out"), 2, "s.toml:4", words)


def test_a_policy_that_fails_only_in_the_runs_worker_is_named(misbehaving):
    """The scenario makes each policy with seed 0; one that fails with the run's own seed stops the run as the
    policy's failure (exit 1), named once (it read "cannot be made: PolicyNotFound: policy ... cannot be made")."""
    scenario = tiny(misbehaving).read_text().replace('"greedy"', '"bad.py:SeedShy"')
    (misbehaving / "s.toml").write_text(scenario)
    done = subprocess.run([*CLI, "simulate", "s.toml", "-q", "--jobs", "1", "--out", "out"], cwd=misbehaving,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stderr
    assert "SeedShy(seed=" in done.stderr and "raised RuntimeError: cannot take seed" in done.stderr, done.stderr
    assert "unexpected" not in done.stderr and done.stderr.count("cannot be made") == 1, done.stderr


@pytest.mark.parametrize("command", [["play", "-p", "2", "--policy", "bad.py:Chatty,greedy"],
                                     ["simulate", "s.toml", "--jobs", "1", "--out", "out"]])
def test_what_a_policy_prints_as_it_is_made_checks_or_decides_leaves_a_json_table_whole(misbehaving, command):
    """Only a module's prints on import went to standard error: its constructor's, check_components' and
    decide's broke the --format json output. And `simulate` stopped on a policy of decide() alone, which has
    no `kernel` ("unexpected AttributeError")."""
    scenario = tiny(misbehaving).read_text().replace('"greedy"', '"bad.py:Chatty"')
    (misbehaving / "s.toml").write_text(scenario)
    done = subprocess.run([*CLI, *command, "--format", "json"], cwd=misbehaving, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["tables"], done.stdout
    assert "making chatty" in done.stderr and "chatty decides" in done.stderr, done.stderr
    assert command[0] != "play" or "checking chatty" in done.stderr


CHECKS = """
from hadara_sim.policies.greedy import Greedy

class ClosesOnCheck(Greedy):
    name = "closes_on_check"
    def check_components(self, components):
        raise GeneratorExit

class InterruptsOnCheck(Greedy):
    name = "interrupts_on_check"
    def check_components(self, components):
        raise KeyboardInterrupt
"""


def test_a_component_check_raising_generator_exit_or_keyboard_interrupt_is_the_policys_failure(tmp_path):
    """playable_on caught Exception and SystemExit: a check_components raising GeneratorExit was a traceback, one
    raising KeyboardInterrupt an exit 130 saying only that it was interrupted."""
    (tmp_path / "checks.py").write_text(CHECKS)
    for attr in ("ClosesOnCheck", "InterruptsOnCheck"):
        done = subprocess.run([*CLI, "play", "-p", "2", "-q", "--policy", f"checks.py:{attr},greedy"], cwd=tmp_path,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 1, (attr, done.stderr)
        assert "failed checking the component set" in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_module_attr_that_is_not_a_policy():
    clean_failure(invoke("play", "--policy", "math:pi", "-q"), 2, "'pi' is float, not a policy")
    clean_failure(invoke("play", "--policy", "no_such_module_here:x", "-q"), 2, "cannot load policy module")


def test_a_callable_that_is_no_policy_factory_is_named_with_how_a_factory_is_called():
    """os:getcwd is callable, so it passes for a factory until it is called (scripts/fuzz_inputs.py found
    a TypeError in play, policies sides and show)."""
    words = ["policy 'os:getcwd' cannot be made: getcwd(seed=", "raised TypeError", "called with seed= and the policy's parameters"]
    clean_failure(invoke("play", "--policy", "os:getcwd", "-q"), 2, *words)
    clean_failure(invoke("policies", "sides", "--policy", "os:getcwd", "-q"), 2, *words)
    clean_failure(invoke("policies", "ladder", "--policy", "greedy,os:getcwd", "-p", "2", "-n", "10", "-q"), 2, *words)
    for tuned in (["os:getcwd"], ["greedy", "--opponent", "os:getcwd"]):
        out = clean_failure(invoke("policies", "tune", *tuned, "--trials", "1", "--games", "2", "--validation-games",
                                   "2", "-q"), 2, *words)
        assert "Trial 0 failed" not in out  # made before the study starts, not failed in it
    shown = invoke("policies", "show", "os:getcwd")
    assert shown.exit_code == 0 and "current working directory" in shown.output and "Traceback" not in shown.output


@pytest.mark.parametrize("command", [["play"], ["verify", "--games", "2"], ["bench"], ["policies", "ladder"],
                                     ["policies", "tune", "greedy"], ["balance", "check", "--dry-run"],
                                     ["simulate", "scenarios/default.toml", "--dry-run"]])
def test_every_seed_option_takes_the_seeds_a_policy_can_hold(command):
    """A seed past 63 bits overflowed inside the random policy (verify --seed 2**64) and a negative one inside
    numpy (policies ladder --seed -1): every --seed is 0..2**63-1, the next seed (a second policy's) in 64 bits."""
    for seed in ("-1", str(2**63)):
        clean_failure(invoke(*command, "--seed", seed), 2, "--seed", "is not in the range")


def test_a_policy_file_with_postponed_annotations_and_a_dataclass_loads(tmp_path, user_policies):
    scenario = tiny(tmp_path).read_text().replace('"greedy"', '"mine.py:Fine"')
    (tmp_path / "s.toml").write_text(scenario)
    result = invoke("simulate", tmp_path / "s.toml", "-q", "--out", tmp_path / "out", "--jobs", "1")
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("attr, words", [
    ("RaisesMidGame", ["policy 'raises_mid_game' raised ZeroDivisionError", "decision 'draw'"]),
    ("Exits", ["policy 'exits' called sys.exit", "decision 'draw'"]),
    ("Mutates", ["policy 'mutates' tried to change the legality mask"]),
    ("StopsGenerator", ["policy 'stops_generator' raised GeneratorExit", "decision 'draw'"]),
    ("ReturnsInterrupting", ["policy 'returns_interrupting' returned Interrupting for decision 'draw'"]),
    ("Cheats", ["policy 'cheats' chose option", "which is not legal"]),
    ("Unlocks", ["policy 'unlocks' chose option", "which is not legal"]),
])
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_policy_failing_mid_game_is_named(tmp_path, user_policies, attr, words, jobs):
    scenario = tiny(tmp_path).read_text().replace('"greedy"', f'"mine.py:{attr}"')
    (tmp_path / "s.toml").write_text(scenario)
    result = invoke("simulate", tmp_path / "s.toml", "-q", "--out", tmp_path / "out", "--jobs", jobs)
    clean_failure(result, 1, *words, "0 of 2 chunks are complete")
    assert json.loads((tmp_path / "out" / "metadata.json").read_text())["status"] == "failed"


REWRITES = '''
import numpy as np

from hadara_sim.policy import Policy


class RewritesCosts(Policy):
    name = "rewrites_costs"

    def draw(self, d):
        d.view.components.compiled.card_cost[:] = 0
        return d.legal.argmax(axis=1)


class Tampers(Policy):
    """Tries every way into its component set, each refused, and plays on."""
    name = "tampers"
    refused = 0

    def draw(self, d):
        c = d.view.components
        for tamper in (lambda: setattr(c.card_cost.flags, "writeable", True),
                       lambda: setattr(c.compiled.card_cost.flags, "writeable", True),
                       lambda: c.compiled.card_cost.__setitem__(slice(None), 0),
                       lambda: setattr(c, "card_cost", np.zeros_like(c.card_cost)),
                       lambda: c.cards.clear(), lambda: c.card_index.clear(), lambda: c.setup_cards.clear()):
            try:
                tamper()
            except (ValueError, AttributeError, TypeError):
                Tampers.refused += 1
        return d.legal.argmax(axis=1)
'''


@pytest.mark.parametrize("command, code", [(["play", "-p", "2"], 2),
                                           (["verify", "-n", "2", "-p", "2", "--basic", "-j", "1"], 1)])
def test_a_policy_writing_into_the_component_set_is_named(tmp_path, command, code):
    """play and verify lent a user's policy the engine's own component set: a write into its arrays
    changed the card costs for the rest of the game."""
    (tmp_path / "rewrites.py").write_text(REWRITES)
    done = subprocess.run([*CLI, *command, "-q", "--policy", "rewrites.py:RewritesCosts", "--policy", "greedy"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == code, done.stderr
    assert "policy 'rewrites_costs' tried to change the legality mask or the component set" in done.stderr
    assert "at decision 'draw'" in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_no_way_into_the_component_set_a_policy_is_lent_changes_the_rules_or_what_others_see(tmp_path, monkeypatch):
    """The lent copy is kept for the process (as the set is): one a policy could make writable again, or whose
    lists it could empty, would show every later policy the changed set."""
    from hadara_sim import make_deals
    from hadara_sim.engine.game import play_batch
    from hadara_sim.policy import Policy
    from hadara_sim.reference import Game

    (tmp_path / "rewrites.py").write_text(REWRITES)
    monkeypatch.syspath_prepend(tmp_path)
    from rewrites import Tampers

    class Plain(Policy):
        name = "plain"

    components = load_components(default_components_path())
    costs, cards = components.card_cost.copy(), len(components.cards)
    deals = make_deals(components, 2, 6, seed=3)
    tampered = play_batch(deals, components, [Tampers(), Tampers()])
    assert np.array_equal(tampered["total"], play_batch(deals, components, [Plain(), Plain()])["total"])
    one = make_deals(components, 2, 1, seed=3)
    assert Game(one, components, [Tampers()] * 2).play() == Game(one, components, [Plain()] * 2).play()
    assert Tampers.refused and Tampers.refused % 7 == 0
    for shown in (components, components.lent):
        assert np.array_equal(shown.card_cost, costs) and np.array_equal(shown.compiled.card_cost, costs)
        assert len(shown.cards) == len(shown.card_index) == cards and len(shown.setup_cards) == 10


def test_an_edited_policy_file_is_not_resumed(tmp_path, user_policies):
    scenario = tiny(tmp_path, games=8).read_text().replace('"greedy"', '"mine.py:Fine"')
    (tmp_path / "s.toml").write_text(scenario)
    sc = load_scenario(tmp_path / "s.toml")

    def stop(chunk, played):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run(sc, tmp_path / "out", jobs=1, after_chunk=stop)
    user_policies.write_text(USER_POLICIES.replace("coin: float = 1.0", "coin: float = 2.0"))
    result = invoke("simulate", tmp_path / "s.toml", "-q", "--out", tmp_path / "out", "--jobs", "1")
    clean_failure(result, 2, "holds another run", "the code of policy", "mine.py:Fine", "changed")


def test_a_run_that_played_nothing_is_replaced_once_its_policy_is_fixed(tmp_path, user_policies):
    """A policy failing in its first chunks leaves a run with nothing played: fixed, the same command
    plays it (it was refused as "another run" until --overwrite, which the hint asked for)."""
    scenario = tiny(tmp_path).read_text().replace('"greedy"', '"mine.py:RaisesMidGame"')
    (tmp_path / "s.toml").write_text(scenario)
    command = ("simulate", tmp_path / "s.toml", "-q", "--out", tmp_path / "out", "--jobs", "1")
    failed = invoke(*command)
    clean_failure(failed, 1, "0 of 2 chunks are complete", "fix the policy, then run again")
    assert "--overwrite" not in failed.output
    user_policies.write_text(USER_POLICIES.replace('raise ZeroDivisionError("division by zero in my heuristic")',
                                                   "return self.default(decision)"))
    result = invoke(*command)
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "out" / "metadata.json").read_text())["status"] == "complete"


# --- interrupts -------------------------------------------------------------------------------

def _children(pid: int) -> set[int]:
    """Every live descendant of `pid` (from /proc)."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    found, frontier = set(), {pid}
    while frontier:
        frontier = {p for p, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _alive(pids) -> set[int]:
    out = set()
    for pid in pids:
        try:
            state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            out.add(pid)
    return out


LINUX_AND_TWO_CORES = pytest.mark.skipif(not sys.platform.startswith("linux") or (os.cpu_count() or 1) < 2,
                                         reason="reads /proc and needs worker processes (2 cores)")


_STARTED: list = []  # runs a test started: killed with all they started if the test fails midway


@pytest.fixture(autouse=True)
def _no_run_left_behind():
    yield
    while _STARTED:
        proc = _STARTED.pop()
        for pid in [proc.pid, *_children(proc.pid)]:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        proc.communicate()


def _started(proc):
    _STARTED.append(proc)
    return proc


def _start_long_run(tmp_path):
    scenario = tiny(tmp_path, games=100_000)
    out = tmp_path / "out"
    proc = _started(subprocess.Popen([*CLI, "simulate", str(scenario), "--jobs", "2", "--quiet", "--out", str(out)],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    deadline = time.time() + 120
    while len(list(out.glob("part-*.parquet"))) < 2 and time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
    workers = _children(proc.pid)
    assert workers, "the run should have started its workers"
    return proc, out, workers


@LINUX_AND_TWO_CORES
@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_interrupt_or_terminate_stops_workers_and_says_how_to_resume(tmp_path, sig, code):
    proc, out, workers = _start_long_run(tmp_path)
    proc.send_signal(sig)
    stdout, stderr = proc.communicate(timeout=60)  # returns: no worker holds the output open
    assert proc.returncode == code, stderr
    assert "Traceback" not in stdout + stderr
    assert "run the same command again" in stdout and "hadara-sim simulate" in stdout
    time.sleep(1)
    assert not _alive(workers)
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["status"] == "interrupted"
    with pytest.warns(UserWarning, match="chunks are missing"):
        assert load_results(out).height > 0  # the completed chunks are kept


def _kill_and_expect_no_workers(proc, workers):
    """SIGKILL `proc` (nothing of it can clean up), then every worker must be gone within 20 s."""
    proc.kill()
    proc.communicate(timeout=60)
    deadline = time.time() + 20
    while _alive(workers) and time.time() < deadline:
        time.sleep(0.2)
    assert not _alive(workers)


@LINUX_AND_TWO_CORES  # and PR_SET_PDEATHSIG is Linux's
def test_workers_die_with_a_killed_run(tmp_path):
    proc, out, workers = _start_long_run(tmp_path)
    _kill_and_expect_no_workers(proc, workers)


@LINUX_AND_TWO_CORES
def test_verify_workers_die_with_a_killed_verify():
    proc = _started(subprocess.Popen([*CLI, "verify", "--games", "200000", "-p", "2", "--basic", "--jobs", "2", "-q"],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    deadline = time.time() + 120
    workers = set()
    while time.time() < deadline and proc.poll() is None:
        workers = {p for p in _children(proc.pid)
                   if "popen_loky" in (Path("/proc") / str(p) / "cmdline").read_text(errors="replace")}
        if len(workers) >= 2:
            break
        time.sleep(0.1)
    assert workers, "verify should have started its workers"
    time.sleep(3)  # the workers are at work
    _kill_and_expect_no_workers(proc, workers)


@LINUX_AND_TWO_CORES
def test_a_killed_worker_is_one_line_and_exit_1(tmp_path):
    proc, out, workers = _start_long_run(tmp_path)
    loky = {p for p in workers if "popen_loky" in (Path("/proc") / str(p) / "cmdline").read_text(errors="replace")}
    assert loky
    os.kill(min(loky), signal.SIGKILL)  # as the OOM killer would
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 1, stdout + stderr
    assert "Traceback" not in stdout + stderr and "worker process died" in " ".join(stderr.split())
    assert json.loads((out / "metadata.json").read_text())["status"] == "failed"


def test_ctrl_c_while_starting_prints_no_traceback(tmp_path):
    proc = subprocess.Popen([*CLI, "simulate", str(tiny(tmp_path)), "--out", str(tmp_path / "o")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert "Traceback" not in stdout + stderr and proc.returncode in (130, -signal.SIGINT, 0)


def test_ctrl_c_inside_a_compiled_modules_import_is_an_interrupt(monkeypatch, capsys):
    """A pybind11 extension (matplotlib's, scipy's) interrupted while it is imported raises
    ImportError("initialization failed") from the KeyboardInterrupt: still a Ctrl-C, exit 130."""
    import hadara_sim.cli as cli

    def interrupted_import(**kwargs):  # main() passes the program's name (prog_name)
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as err:
            raise ImportError("initialization failed") from err

    monkeypatch.delenv("HADARA_SIM_DEBUG", raising=False)
    monkeypatch.setattr(cli, "app", interrupted_import)
    with pytest.raises(SystemExit) as exit_:
        cli.main()
    assert exit_.value.code == 130 and "interrupted" in capsys.readouterr().err
    monkeypatch.setattr(cli, "app", lambda **kwargs: (_ for _ in ()).throw(ImportError("initialization failed")))
    with pytest.raises(SystemExit) as exit_:
        cli.main()
    assert exit_.value.code == 1 and "unexpected ImportError" in capsys.readouterr().err


def _session_alive(sid: int) -> bool:
    """Whether a live (not zombie) process of session `sid` remains (from /proc): the run and its
    workers, each of which has a process group of its own in the run's session."""
    for entry in Path("/proc").iterdir():
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split() if entry.name.isdigit() else None
        except OSError:
            continue
        if fields and int(fields[3]) == sid and fields[0] != "Z":
            return True
    return False


@LINUX_AND_TWO_CORES
def test_workers_are_out_of_the_terminals_reach_and_inherit_no_stray_descriptor():
    """The terminal sends Ctrl-C to its foreground process group; each worker has a group of its own
    (the run stops them), so the run never has to ignore a Ctrl-C while they start (it once did, and a
    Ctrl-C in those milliseconds was lost: the run played on). Like loky's own start, a worker gets
    only stdio and loky's descriptors: not an inheritable pipe of the parent."""
    from hadara_sim.process import local_parallel, stop_local_workers

    stop_local_workers()  # new workers, started the way a run starts them
    read, write = os.pipe()
    os.set_inheritable(read, True)
    try:
        groups = set(local_parallel(os.getpgid, [(0,)] * 4, 2))
        workers = _children(os.getpid())
        seen = set(local_parallel(os.get_inheritable, [(read,)] * 2, 2, ordered=True))
    except OSError as err:  # the worker has no such descriptor: what this test wants
        seen = {err.errno}
    finally:
        os.close(read)
        os.close(write)
    assert os.getpgrp() not in groups and groups <= workers
    assert seen == {9}  # EBADF: closed in the worker


def test_jobs_that_come_to_one_process_play_here_without_the_workers_death_pact(monkeypatch):
    """--jobs -2 on two cores: joblib ran the calls in this process, through the workers' start, which asked
    the kernel to kill this process with its parent and exited at once where the parent was gone (a run
    started under nohup, or from a shell since closed, stopped silently after writing its metadata)."""
    from hadara_sim import process

    def pact():
        raise AssertionError("die_with_parent called in the main process")

    monkeypatch.setattr(process, "die_with_parent", pact)
    all_but_one = -(os.cpu_count() or 1)  # -N on N cores: one process
    assert list(process.local_parallel(os.getpid, [()] * 3, all_but_one)) == [os.getpid()] * 3


@LINUX_AND_TWO_CORES
def test_the_workers_are_stopped_before_the_interpreter_exits(tmp_path):
    """A Ctrl-C as a run ended, while loky joined its idle workers in its own handler at the
    interpreter's exit, printed "Exception ignored ... KeyboardInterrupt" with a traceback and exited 0
    (12 of 15 Ctrl-Cs 0.70-0.84 s after `played`). main() stops them itself, where a Ctrl-C is the
    command's "interrupted": nothing is left for the exit to wait on."""
    script = tmp_path / "left_at_exit.py"
    script.write_text(textwrap.dedent("""
        from joblib.externals.loky import process_executor
        from hadara_sim.cli import main
        try:
            main()
        except SystemExit as done:
            alive = [t for t in process_executor._threads_wakeups if t.is_alive()]
            print(f"exit {done.code}; {len(alive)} worker manager(s) left to join at exit")
    """))
    done = subprocess.run([sys.executable, str(script), "simulate", str(tiny(tmp_path, games=40)), "-q", "--jobs", "2",
                           "--out", str(tmp_path / "o")], capture_output=True, text=True, timeout=300)
    assert "exit 0; 0 worker manager(s) left" in done.stdout, done.stdout + done.stderr
    assert len(list((tmp_path / "o").glob("part-*.parquet"))) == 10  # the run itself is whole


@LINUX_AND_TWO_CORES
def test_ctrl_c_while_a_worker_starts_stops_the_run(tmp_path):
    """A Ctrl-C at the very moment a worker is started (sent to the run's group from inside the
    start) stops the run: exit 130, no traceback, nothing of the run left."""
    script = tmp_path / "ctrl_c_at_start.py"
    script.write_text(textwrap.dedent("""
        import os, signal, sys
        from hadara_sim import process
        spawn = process._spawn_in_own_group
        def ctrl_c_then_spawn(*args, **kwargs):
            os.killpg(0, signal.SIGINT)
            return spawn(*args, **kwargs)
        process._spawn_in_own_group = ctrl_c_then_spawn
        from hadara_sim.cli import main
        main()
    """))
    scenario = tmp_path / "long.toml"
    scenario.write_text(textwrap.dedent(TINY.format(games=400_000, seed=1)).replace("chunk = 4", "chunk = 5000"))
    proc = _started(subprocess.Popen([sys.executable, str(script), "simulate", str(scenario), "--jobs", "2", "--out",
                                      str(tmp_path / "o")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     start_new_session=True))
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130 and "Traceback" not in stdout + stderr, stdout + stderr
    assert "interrupted" in stdout
    deadline = time.time() + 20
    while _session_alive(proc.pid) and time.time() < deadline:
        time.sleep(0.2)
    assert not _session_alive(proc.pid)


@LINUX_AND_TWO_CORES
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_at_any_moment_of_the_first_seconds_is_clean(tmp_path, jobs):
    """Ctrl-C as a terminal sends it (to every process of the group) at moments spread over the
    start-up, the first compiled steps and the first chunks: no traceback, no "unexpected" error,
    exit 130 (or the plain death of a program still starting), and no process of the run left."""
    import random

    scenario = tmp_path / "mixed.toml"
    scenario.write_text(textwrap.dedent(TINY.format(games=400_000, seed=3)).replace(
        'policies = ["greedy", "random"]', 'policies = ["random", "greedy", "balanced"]\nplayers = 3').replace(
        "players = 2\n", "", 1).replace("chunk = 4", "chunk = 5000"))
    rng = random.Random(int(jobs))  # the same moments every run: one in each second of the start
    moments = [start + rng.uniform(0, 1) for start in (0.2, 1.2, 2.2, 3.2, 4.2)]
    for i, moment in enumerate(moments):
        proc = _started(subprocess.Popen([*CLI, "simulate", str(scenario), "--jobs", jobs, "--out",
                                          str(tmp_path / f"o{i}")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                         text=True, start_new_session=True))
        time.sleep(moment)
        os.killpg(proc.pid, signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=90)
        said = stdout + stderr
        assert "Traceback" not in said and "unexpected" not in said, (moment, said)
        assert proc.returncode in (130, -signal.SIGINT), (moment, proc.returncode, said)
        deadline = time.time() + 20
        while _session_alive(proc.pid) and time.time() < deadline:
            time.sleep(0.2)
        assert not _session_alive(proc.pid), f"a process of the run outlived it (Ctrl-C at {moment:.2f} s)"



SWALLOWING_PLUGIN = """
import ctypes
import signal

from hadara_sim.policies.greedy import Greedy


def press_ctrl_c():
    signal.raise_signal(signal.SIGINT)


if {in_callback}:  # as llvmlite's object cache meets it while numba loads or compiles: Python only reports it
    ctypes.CFUNCTYPE(None)(press_ctrl_c)()
else:  # as a library's optional import meets it: caught and forgotten
    try:
        press_ctrl_c()
    except KeyboardInterrupt:
        pass


class Bot(Greedy):
    pass
"""


@pytest.mark.parametrize("in_callback", [True, False], ids=["callback-from-c", "caught-by-a-library"])
def test_a_ctrl_c_that_a_library_swallows_still_stops_the_run(tmp_path, in_callback):
    """Seen in CI: a Ctrl-C early in a run was lost inside a library and the run played to its end,
    exit 0. The command line remembers it and stops at the next safe point, as for any Ctrl-C."""
    (tmp_path / "swallow.py").write_text(SWALLOWING_PLUGIN.format(in_callback=in_callback))
    scenario = tmp_path / "s.toml"
    scenario.write_text(tiny(tmp_path).read_text().replace('"greedy"', '"swallow.py:Bot"'))
    done = subprocess.run([*CLI, "simulate", str(scenario), "--jobs", "1", "--out", str(tmp_path / "o")],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    said = done.stdout + done.stderr
    assert done.returncode == 130, said
    assert "interrupted" in said and "run the same command again" in said, said
    assert "Traceback" not in said and "Exception ignored" not in said, said
    assert not list((tmp_path / "o").glob("part-*.parquet")), "no chunk is played after the Ctrl-C"


# --- options ----------------------------------------------------------------------------------

@pytest.mark.parametrize("args, words", [
    (["play", "--seed", "-1"], ["--seed"]),
    (["verify", "--chunk", "0"], ["--chunk"]),
    (["verify", "--chunk", "-5"], ["--chunk"]),
    (["verify", "--jobs", "0"], ["--jobs"]),
    (["verify", "--seed", "-1"], ["--seed"]),
    # an empty name played the default greedy policy under it (verify alone said so)
    (["verify", "--policy", "", "--games", "2"], ["--policy '' has an empty policy name"]),
    (["bench", "--policy", ""], ["--policy '' has an empty policy name", "leave --policy out"]),
    (["bench", "--policy", ",,"], ["--policy ',,' has an empty policy name"]),
    (["play", "--policy", ""], ["--policy '' has an empty policy name"]),
    (["play", "--policy", "greedy,,random,greedy"], ["--policy 'greedy,,random,greedy' has an empty policy name"]),
    (["policies", "ladder", "--policy", ""], ["--policy '' has an empty policy name"]),
    (["bench", "--reference-games", "0"], ["--reference-games"]),
    (["simulate", "scenarios/default.toml", "--backend", "dask", "--scheduler", "not-a-url"], ["--scheduler"]),
    (["simulate", "scenarios/default.toml", "--backend", "dask", "--scheduler", "udp://127.0.0.1:1"], ["--scheduler"]),
    (["simulate", "scenarios/default.toml", "--scheduler", "tcp://127.0.0.1:1"], ["--backend dask"]),
    (["simulate", "scenarios/default.toml", "--jobs", "0"], ["--jobs"]),
    (["simulate", "scenarios/default.toml", "--seed", "-1"], ["--seed"]),
    (["balance", "check", "--dry-run", "-n", "100", "--jobs", "0"], ["--jobs must be a number of processes"]),
    (["balance", "fit", "--dry-run", "-n", "100", "--jobs", "-99"], ["--jobs must be a number of processes"]),
])
def test_bad_options_are_one_line(args, words):
    clean_failure(invoke(*args), 2, *words)


HUGE = "99999999999999999999999"  # past 64 bits: an OverflowError deep inside before the cap


@pytest.mark.parametrize("args, words", [
    (["balance", "check", "--dry-run", "-n", HUGE], ["--games", "1000000000000"]),
    (["balance", "suggest", "--dry-run", "-n", "100", "--curve-games", HUGE], ["--curve-games", "1000000000000"]),
    (["balance", "fit", "--dry-run", "-n", "100", "--confirm-games", HUGE], ["--confirm-games", "1,000,000,000,000"]),
    (["balance", "fit", "--dry-run", "-n", "100", "--confirm-games", f"2={HUGE}"], ["--confirm-games", "10 to"]),
    (["simulate", "scenarios/default.toml", "--dry-run", "-n", HUGE], ["--games", "1000000000000"]),
    (["simulate", "scenarios/default.toml", "--dry-run", "--set", f"games={HUGE}"],
     [f"--set games={HUGE}: games: must be 1..1000000000000"]),
])
def test_more_games_than_a_run_can_number_are_refused_by_their_option(args, words):
    clean_failure(invoke(*args), 2, *words)


@pytest.mark.parametrize("args, words", [
    (["balance", "check", "--dry-run", "-n", "100", "-m", "nan"], ["--margin", "nan is not a number"]),
    (["balance", "check", "--dry-run", "-n", "100", "-m", "-1"], ["--margin", "-1: the margin is a positive number"]),
    (["balance", "check", "--dry-run", "-n", "100", "-m", "0"], ["--margin", "0: the margin is a positive number"]),
    (["balance", "fit", "--dry-run", "-n", "100", "--aim", "nan"], ["--aim", "nan is not a number"]),
    (["report", "curve", "results/none", "--reference", "nan"], ["--reference", "nan is not a number"]),
])
def test_a_margin_that_is_no_margin_and_a_nan_are_refused(args, words):
    """typer's range checks let nan through, and -1 was 'a fraction: --margin -100 for ±-100 pp'."""
    text = clean_failure(invoke(*args), 2, *words)
    assert "fraction" not in text


def test_more_games_than_a_run_can_number_are_refused_in_a_scenario(tmp_path):
    with pytest.raises(ScenarioError, match=f"s.toml:5: games: must be 1..1000000000000, got {HUGE}"):
        parse_scenario(TINY.format(games=HUGE, seed=1), file="s.toml")


@pytest.mark.parametrize("command", ["check", "fit"])
def test_a_balance_components_path_that_is_no_set_is_named_as_given(command):
    """It was '<scenario>: components: the component set at ...', a scenario the user never wrote."""
    text = clean_failure(invoke("balance", command, "--dry-run", "-n", "100", "--components", "README.md"), 2,
                         "the component set at README.md is not valid (1 problem):",
                         "components validate README.md")
    assert "<scenario>" not in text


def test_jobs_are_capped_to_the_cores(monkeypatch, capsys):
    from hadara_sim.cli.limits import jobs_or_exit

    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert jobs_or_exit(16) == 2 and "using 2" in capsys.readouterr().err
    assert jobs_or_exit(-1) == -1 and jobs_or_exit(1) == 1


def test_games_too_many_to_deal_at_once_are_the_request_s_fault_not_ours(tmp_path):
    """`policies ladder --games 10**12` (the top of its range) and `policies tune --games 10**11` deal them at once:
    "unexpected MemoryError ... please report it", exit 1."""
    done = subprocess.run([*CLI, "policies", "ladder", "--games", str(10**12), "-p", "2", "--policy", "greedy",
                           "--policy", "random", "-q"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr
    assert "need more memory than there is" in done.stderr and "give a smaller --games" in done.stderr
    assert "unexpected" not in done.stderr and "Traceback" not in done.stderr, done.stderr


@pytest.mark.parametrize("threads", ["0", "abc"])
def test_numba_threads_that_numba_cannot_take_are_named(tmp_path, threads):
    """NUMBA_NUM_THREADS=0 stopped numba's import: "unexpected ValueError ... please report it", exit 1;
    one that is no number printed numba's warning with a traceback. Both: one line naming it, exit 2."""
    done = subprocess.run([*CLI, "simulate", tiny(tmp_path), "--dry-run", "--jobs", "1"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300, env={**os.environ, "NUMBA_NUM_THREADS": threads})
    assert done.returncode == 2, done.stderr
    assert f"NUMBA_NUM_THREADS is '{threads}'" in done.stderr and "unset NUMBA_NUM_THREADS" in done.stderr
    assert "Traceback" not in done.stderr and "unexpected" not in done.stderr, done.stderr


@pytest.mark.parametrize("name, value, said", [("NUMBA_DISABLE_JIT", "1", "not with its compiler off"),
                                               ("NUMBA_DISABLE_JIT", "yes", "numba takes a whole number"),
                                               ("NUMBA_OPT", "9", "supported values are 0, 1, 2, 3")])
def test_numba_variables_that_numba_cannot_take_are_named(tmp_path, name, value, said):
    """NUMBA_DISABLE_JIT=1 stopped in "unexpected TypeError: __class__ assignment ...", exit 1; a value numba
    cannot read (NUMBA_OPT=9, NUMBA_DISABLE_JIT=yes) printed numba's warning with a traceback, then ran.
    Both: one line naming it, exit 2."""
    done = subprocess.run([*CLI, "simulate", tiny(tmp_path), "--dry-run", "--jobs", "1"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300, env={**os.environ, name: value})
    assert done.returncode == 2, done.stderr
    assert f"{name} is '{value}'" in done.stderr and said in done.stderr and f"unset {name}" in done.stderr
    assert "Traceback" not in done.stderr and "unexpected" not in done.stderr, done.stderr


def test_planning_does_not_grow_with_games(tmp_path):
    """10**12 games: the first chunk is played before anything proportional to --games is made."""
    import tracemalloc

    sc = load_scenario(tiny(tmp_path)).with_overrides(games=10**12)

    def stop(chunk, played):
        raise KeyboardInterrupt

    tracemalloc.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            run(sc, tmp_path / "out", jobs=1, after_chunk=stop)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 50 * 2**20
    assert (tmp_path / "out" / "metadata.json").stat().st_size < 100_000
    assert json.loads((tmp_path / "out" / "metadata.json").read_text())["chunks_per_combination"] == 25 * 10**10


# --- components -------------------------------------------------------------------------------

@pytest.fixture
def component_copy(tmp_path):
    mine = tmp_path / "mine"
    shutil.copytree(default_components_path(), mine)
    return mine


def test_components_scalar_sell_and_boolean_tiles(component_copy):
    board = (component_copy / "board.toml").read_text()
    (component_copy / "board.toml").write_text("sell = 3\n" + board.replace("[sell]", "[old_sell]"))
    with pytest.raises(ComponentError, match="board.toml:1: sell: expected a table"):
        load_components(component_copy)
    import re
    tiles = re.sub(r"per_colour = \d+", "per_colour = true", board)
    (component_copy / "board.toml").write_text(tiles)
    line = tiles.splitlines().index("per_colour = true") + 1
    with pytest.raises(ComponentError, match=f"board.toml:{line}: bonus_tiles.per_colour: expected a whole number"):
        load_components(component_copy)


def test_unknown_names_in_board_exact_lists_are_refused_with_line_and_field(component_copy):
    """The CSV files' `exact` columns refused an unknown name (cost;bogus), board.toml's `exact` lists took any
    (and a table marked ["bogus"] counted as printed in the provenance)."""
    board = component_copy / "board.toml"
    statue, sell = 'exact = ["requirement", "pionts"]', 'exact = ["coins", "bogus"]'
    board.write_text(board.read_text().replace('exact = ["coins"]', sell, 1)
                     .replace('exact = ["requirement", "points"]', statue, 1))
    line = board.read_text().splitlines().index
    with pytest.raises(ComponentError) as caught:
        load_components(component_copy)
    assert [str(p) for p in caught.value.problems] == [
        f"board.toml:{line(statue) + 1}: statues[0].exact: 'pionts' is not a value field (allowed: requirement, "
        "points, bonus)",
        f"board.toml:{line(sell) + 1}: sell.exact: 'bogus' is not a value field (allowed: coins)"]
    clean_failure(invoke("components", "validate", component_copy), 2, "board.toml", "sell.exact", "'bogus'")


def test_components_duplicated_column_and_bom(component_copy, components):
    cards = (component_copy / "cards.csv").read_text().splitlines()
    (component_copy / "cards.csv").write_text("\ufeff" + "\n".join(cards) + "\n")  # as Excel writes
    assert load_components(component_copy).card_ids == components.card_ids
    head = cards[0].split(",")
    (component_copy / "cards.csv").write_text(
        "\n".join([cards[0] + ",cost"] + [row + "," for row in cards[1:]]) + "\n")
    assert "cost" in head
    with pytest.raises(ComponentError, match="cards.csv:1: header: column 'cost' given more than once"):
        load_components(component_copy)


def test_files_in_another_encoding_name_it_its_line_and_the_fix(tmp_path, component_copy):
    """A scenario or component file saved as UTF-16 (Windows PowerShell's `>`) or Latin-1 said only
    "cannot be read: 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte"."""
    text = tiny(tmp_path).read_text()
    (tmp_path / "utf16.toml").write_bytes(text.encode("utf-16"))
    (tmp_path / "utf16le.toml").write_bytes(text.encode("utf-16-le"))  # no byte order mark: "Expected '='"
    (tmp_path / "latin1.toml").write_bytes(text.replace('"tiny"\n', '"tiny"\r\ndescription = "café"\n').encode("latin-1"))
    for name, line in (("utf16.toml", 1), ("utf16le.toml", 1), ("latin1.toml", 3)):
        with pytest.raises(ScenarioError) as err:
            load_scenario(tmp_path / name)
        assert str(err.value).startswith(f"{tmp_path / name}:{line}: is "), str(err.value)
        assert "save it as UTF-8" in str(err.value) and "codec" not in str(err.value)
    # a binary file (a results part) given for a scenario was "not UTF-8 text ... Latin-1?", by its first odd byte
    (tmp_path / "part.parquet").write_bytes(b"PAR1\x15\x04\x15\x80\x01\x00\x15" + bytes(range(256)))
    with pytest.raises(ScenarioError, match=r"part.parquet:1: is not a text file \(a NUL byte on this line: a Parquet"):
        load_scenario(tmp_path / "part.parquet")
    from hadara_sim.balance import read_overrides

    (tmp_path / "fix.toml").write_bytes('[components.setup."3B"]\nculture = 4\n'.encode("utf-16"))
    with pytest.raises(ComponentError, match=r"fix.toml:1: is UTF-16 text .*save it as UTF-8"):
        read_overrides(tmp_path / "fix.toml")
    colonies = (component_copy / "colonies.csv").read_text(encoding="utf-8")
    (component_copy / "colonies.csv").write_bytes(colonies.replace("\n", "é\n", 3).encode("latin-1"))
    (component_copy / "board.toml").write_bytes((component_copy / "board.toml").read_text().encode("utf-16"))
    clean_failure(invoke("components", "validate", component_copy), 2,
                  "colonies.csv:1: file: is not UTF-8 text (byte 0xe9 on this line",
                  "board.toml:1: file: is UTF-16 text", "save it as UTF-8")


@pytest.mark.parametrize("path, said", [(r"C:\Users\me\sets", "Invalid hex value"),
                                        (r"C:\sets\mine", "Unescaped '\\' in a string")])
def test_a_windows_path_in_double_quotes_says_how_to_write_it(tmp_path, path, said):
    """components = "C:\\Users\\me" said only "not valid TOML: Invalid hex value": TOML's escapes, not a path."""
    (tmp_path / "win.toml").write_text(tiny(tmp_path).read_text() + f'components = "{path}"\n')
    with pytest.raises(ScenarioError) as err:
        load_scenario(tmp_path / "win.toml")
    assert f"win.toml:8: not valid TOML: {said}" in str(err.value), str(err.value)
    assert "write a Windows path in single quotes ('C:\\sets\\mine') or with slashes (\"C:/sets/mine\")" in str(err.value)


def test_toml_nested_hundreds_deep_is_a_problem_of_its_file(tmp_path, component_copy):
    """tomllib recurses into each [ or {: a scenario, board.toml or overrides file with values nested some 300
    deep stopped with "unexpected RecursionError: maximum recursion depth exceeded", exit 1."""
    from hadara_sim.balance import read_overrides

    deep = "x = " + "[" * 3000 + "]" * 3000 + "\n"
    (tmp_path / "deep.toml").write_text(tiny(tmp_path).read_text() + deep)
    clean_failure(invoke("simulate", tmp_path / "deep.toml", "--dry-run", "-q"), 2,
                  "deep.toml: values nested too deeply for a TOML reader")
    (tmp_path / "fix.toml").write_text('[components.setup."3B"]\n' + deep)
    with pytest.raises(ComponentError, match="fix.toml: values nested too deeply"):
        read_overrides(tmp_path / "fix.toml")
    with (component_copy / "board.toml").open("a") as board:
        board.write(deep)
    clean_failure(invoke("components", "validate", component_copy), 2,
                  "board.toml: toml: values nested too deeply for a TOML reader")


def test_components_repeated_and_empty_ids_name_the_lines(component_copy):
    """A card id on two lines names both lines; an empty colony id names its line."""
    cards = (component_copy / "cards.csv").read_text().splitlines()
    first = cards[1].split(",")[0]
    cards[3] = ",".join([first] + cards[3].split(",")[1:])
    (component_copy / "cards.csv").write_text("\n".join(cards) + "\n")
    colonies = (component_copy / "colonies.csv").read_text().splitlines()
    colonies[2] = "," + colonies[2].split(",", 1)[1]
    (component_copy / "colonies.csv").write_text("\n".join(colonies) + "\n")
    with pytest.raises(ComponentError) as err:
        load_components(component_copy)
    text = str(err.value)
    assert f"cards.csv:4: id: '{first}' repeats the card on line 2" in text
    assert "colonies.csv:3: id: is empty" in text


@pytest.mark.parametrize("closed", [False, True])
def test_a_quote_left_open_in_a_component_file_names_its_line(component_copy, closed):
    """A stray quote swallowed the rest of the file into one field, reported at the file's last line."""
    lines = (component_copy / "cards.csv").read_text().splitlines()
    lines[2] = lines[2].replace(",", ',"', 2).replace(',"', ",", 1)  # a quote before the colour
    if closed:
        lines[4] = '"' + lines[4]
    lines.insert(2, "")
    (component_copy / "cards.csv").write_text("\n".join(lines) + "\n")
    with pytest.raises(ComponentError) as err:
        load_components(component_copy)
    end = 6 if closed else len(lines)
    assert f'cards.csv:4: row: a quote (") opens a field that runs on to line {end}: close the quote' in str(err.value)
    assert len(str(err.value)) < 3000  # not the file's text as a colour


@pytest.mark.parametrize("row", [0, 3])
def test_a_field_longer_than_csv_reads_names_its_line(component_copy, row):
    """A field past the csv module's limit (131,072 characters: a file pasted into one cell) stopped every
    command with "unexpected Error: field larger than field limit (131072)", exit 1."""
    lines = (component_copy / "colonies.csv").read_text().splitlines()
    lines[row] += ',"' + "x" * 200_000 + '"'
    (component_copy / "colonies.csv").write_text("\n".join(lines) + "\n")
    clean_failure(invoke("components", "validate", component_copy), 2,
                  f"colonies.csv:{row + 1}: row: cannot be read as CSV (field larger than field limit (131072))",
                  "a file pasted into one cell")


def test_a_policy_failing_on_dask_is_named(tmp_path, user_policies):
    distributed = pytest.importorskip("distributed")
    scenario = tiny(tmp_path).read_text().replace('"greedy"', '"mine.py:RaisesMidGame"')
    (tmp_path / "s.toml").write_text(scenario)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        result = invoke("simulate", tmp_path / "s.toml", "-q", "--out", tmp_path / "out", "--backend", "dask",
                        "--scheduler", cluster.scheduler_address)
    clean_failure(result, 1, "policy 'raises_mid_game' raised ZeroDivisionError")


def test_a_full_disk_is_one_line_and_resumable(tmp_path, monkeypatch):
    import errno

    import hadara_sim.runner as runner

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(runner, "write_table", full)
    result = invoke("simulate", tiny(tmp_path), "-q", "--out", tmp_path / "out", "--jobs", "1")
    clean_failure(result, 1, "No space left on device", "run the same command again")
    assert json.loads((tmp_path / "out" / "metadata.json").read_text())["status"] == "failed"
    monkeypatch.undo()
    assert invoke("simulate", tiny(tmp_path), "-q", "--out", tmp_path / "out", "--jobs", "1").exit_code == 0


def test_a_chunk_too_large_for_memory_names_the_chunk_key(tmp_path, monkeypatch):
    """It was 'unexpected MemoryError: Unable to allocate 37.3 GiB ... please report it' (chunk = 10**9)."""
    import hadara_sim.runner as runner

    def too_large(*args, **kwargs):
        raise MemoryError("Unable to allocate 37.3 GiB for an array with shape (1000000000, 5)")
        yield

    monkeypatch.setattr(runner, "_execute", too_large)
    result = invoke("simulate", tiny(tmp_path), "-q", "--out", tmp_path / "out", "--jobs", "1")
    clean_failure(result, 1, "a chunk of 4 games does not fit in memory (Unable to allocate 37.3 GiB",
                  "give the scenario a smaller chunk, e.g. chunk = 10000 (--set chunk=10000)")
    assert json.loads((tmp_path / "out" / "metadata.json").read_text())["status"] == "failed"


def test_an_unexpected_error_is_one_line(tmp_path, monkeypatch, capsys):
    import hadara_sim.cli as cli

    def broken(*args, **kwargs):
        raise MemoryError("out of memory")

    monkeypatch.setattr(cli, "app", broken)
    with pytest.raises(SystemExit) as caught:
        cli.main()
    assert caught.value.code == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "MemoryError: out of memory" in err


@pytest.mark.parametrize("command", ["winrate", "summary"])
def test_a_report_on_a_file_of_a_results_directory_names_the_directory(two_runs, command):
    a, _ = two_runs
    part = a / "part-c0000-k00000.parquet"
    text = clean_failure(invoke("report", command, part), 2, f"{part} is not a results directory (it is a file): "
                                                            f"give the results directory that holds it, {a}")
    assert "--out" not in text and "(re)create" not in text and not (a / "report").exists()


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_an_output_encoding_that_cannot_write_a_report_says_how_to_set_one(two_runs, tmp_path, encoding):
    """A table's ▲ under PYTHONIOENCODING=ascii (or a Latin-1 locale, Windows' cp1252 into a file) was
    "unexpected UnicodeEncodeError ... please report it", exit 1."""
    a, _ = two_runs
    done = subprocess.run([*CLI, "report", "winrate", a, "--out", tmp_path / "charts"], capture_output=True,
                          text=True, timeout=300, env={**os.environ, "PYTHONIOENCODING": encoding})
    assert done.returncode == 2, done.stderr
    assert "cannot write '\\u25b2' (U+25B2): set PYTHONIOENCODING=utf-8" in done.stderr, done.stderr
    assert "unexpected" not in done.stderr and "Traceback" not in done.stderr


def test_reports_that_cannot_be_written_are_one_line(two_runs, tmp_path):
    a, _ = two_runs
    (tmp_path / "file").write_text("x")
    clean_failure(invoke("report", "winrate", a, "--out", tmp_path / "file" / "sub"), 2, "file is a file, not a folder")
    clean_failure(invoke("report", "summary", a, "--out", "/proc/self/report"), 2, "cannot write in /proc/self")
    chart = tmp_path / "chart.png"  # became a folder chart.png/ with trajectory.png in it
    clean_failure(invoke("report", "trajectory", a, "--out", chart), 2,
                  f"--out {chart}: give a folder (the files go inside it); 'chart.png' reads as a file name, "
                  f"e.g. --out {tmp_path / 'chart'}")
    assert not chart.exists()
    page = tmp_path / "pages" / "report.html"  # the summary takes a file: written, and written again
    for _ in range(2):
        assert invoke("report", "summary", a, "--out", page).exit_code == 0 and page.is_file()
    meta = json.loads((a / "metadata.json").read_text())
    (a / "metadata.json").write_text(json.dumps({**meta, "scenario": "tiny"}))
    clean_failure(invoke("report", "winrate", a), 2, "key 'scenario' must be a table")


@pytest.mark.parametrize("args, words", [
    (["balance", "suggest", "-p", 2, "--games", 10, "--curve-games", 10, "--out", "{file}"], ["is a file"]),
    (["balance", "suggest", "-p", 2, "--games", 10, "--curve-games", 10, "--out", "{file}/sub"], ["is a file"]),
    # /proc passes os.access for root, and refuses every mkdir: suggest played, then failed to save
    (["balance", "suggest", "-p", 2, "--games", 10, "--curve-games", 10, "--out", "/proc/fix"],
     ["--out /proc/fix:", "/proc"]),
    (["policies", "tune", "greedy", "--trials", 1, "--games", 2, "--out", "/proc/new/x.toml"],
     ["--out /proc/new/x.toml:", "/proc"]),
    (["policies", "tune", "greedy", "--trials", 1, "--games", 2, "--out", "{folder}"], ["is a folder"]),
    (["policies", "tune", "greedy", "--trials", 1, "--games", 2, "--out", "{file}/x.toml"], ["is a file"]),
    (["play", "--trace", "{folder}"], ["--trace", "is a folder"]),
])
def test_outputs_are_checked_before_any_work(tmp_path, monkeypatch, args, words):
    """An output path that cannot be written is refused before a game is played."""
    import hadara_sim.balance
    import hadara_sim.cli.play
    import hadara_sim.tune

    def no_work(*args, **kwargs):
        raise AssertionError("played before checking its output")

    for module, name in ((hadara_sim.balance, "suggest"), (hadara_sim.tune, "tune"), (hadara_sim.cli.play, "tell")):
        monkeypatch.setattr(module, name, no_work)
    (tmp_path / "file").write_text("x")
    (tmp_path / "folder").mkdir()
    args = [str(a).format(file=tmp_path / "file", folder=tmp_path / "folder") for a in args]
    clean_failure(invoke(*args), 2, *words)
    assert (tmp_path / "file").read_text() == "x" and not any((tmp_path / "folder").iterdir())


def test_policy_parameters_are_checked_outside_scenarios_too():
    from hadara_sim.registry import make_policy

    with pytest.raises(ValueError, match="policy 'greedy' parameter colours: expected 5 entries"):
        make_policy("greedy", colours=[1, 2])
    with pytest.raises(ValueError, match="parameter coin: must be a finite number"):
        make_policy("greedy", coin=float("nan"))
    assert make_policy("greedy", coin=1).settings["coin"] == 1  # a whole number is a number


def test_the_documented_pandas_reader_works(two_runs):
    """docs/results.md: pandas reads the part files (the directory also holds metadata.json)."""
    import pandas as pd

    a, _ = two_runs
    assert 'pd.read_parquet(sorted(Path("DIR").glob("part-*.parquet")))' in Path("docs/results.md").read_text()
    df = pd.read_parquet(sorted(Path(a).glob("part-*.parquet")))
    assert len(df) == len(load_results(a))


# --- parameter limits: nothing out of range reaches compiled code -----------------------------

@pytest.mark.parametrize("spec, params, message", [
    ("balanced", {"sides": [100000000, 0, 0, 0, 0]}, "sides.0: must be one of -1, 0, 1, got 100000000"),
    ("balanced-v1", {"sides": [-1, 0, 1, 2, 0]}, "sides.3: must be one of -1, 0, 1, got 2"),
    ("search", {"budget": 0}, "budget: must lie in 1..1000, got 0"),
    ("search", {"max_options": -5}, "max_options: must lie in 2..64, got -5"),
    ("search", {"kinds": ["nosuch"]}, "kinds.0: must be one of 'colony', 'draw'"),
    ("search", {"rollout": "search"}, "must not be 'search' itself"),
    ("search", {"opponent": "search"}, "parameter opponent: must not be 'search' itself"),
])
def test_out_of_range_parameters_are_refused_with_their_allowed_range(spec, params, message):
    from hadara_sim.registry import make_policy

    with pytest.raises(ValueError, match=re.escape(message)):
        make_policy(spec, **params)


def test_a_subclass_with_out_of_range_defaults_is_refused_in_play(tmp_path):
    bot = tmp_path / "sides.py"
    bot.write_text("from hadara_sim.policies.styles import Balanced\n\n\nclass Far(Balanced):\n    name = 'far'\n"
                   "    params = {**Balanced.params, 'sides': (100000000, 0, 0, 0, 0)}\n")
    result = CliRunner().invoke(app, ["play", "-p", "2", "--policy", f"{bot}:Far", "-q"], env={"COLUMNS": "200"})
    assert result.exit_code == 2 and "must be one of -1, 0, 1, got 100000000" in " ".join(result.output.split())


@pytest.mark.parametrize("param, message", [("sides=-1,100000000", "is not a value policy 'balanced' takes"),
                                            ("coin=nan:inf", "write name=low:high")])
def test_tuning_ranges_are_checked_before_any_game(param, message):
    policy = "balanced" if param.startswith("sides") else "greedy"
    result = CliRunner().invoke(app, ["policies", "tune", policy, "--param", param, "--trials", "2", "--games", "4"],
                                env={"COLUMNS": "200"})
    assert result.exit_code == 2 and message in " ".join(result.output.split())
    assert "Trial" not in result.output


def test_tuning_a_policy_with_nothing_to_tune_is_refused_before_any_game(monkeypatch):
    """policies tune random played its training and held-out games, then failed with 'chosen: ' (nothing)."""
    import hadara_sim.tune

    def played(*args, **kwargs):
        raise AssertionError("a game was played")

    monkeypatch.setattr(hadara_sim.tune, "match", played)
    result = invoke("policies", "tune", "random", "--trials", "2", "--games", "4", "--validation-games", "4", "-q")
    clean_failure(result, 2, "policy 'random' has nothing to tune: no number parameter (its parameters: avoid, seek)",
                  "tune a policy with number parameters")


def test_balance_on_a_handful_of_games_and_zero_jobs_ends_with_a_message():
    tiny = CliRunner().invoke(app, ["balance", "suggest", "--games", "10", "--curve-games", "10", "-p", "2",
                                    "--side", "3B", "--jobs", "1"], env={"COLUMNS": "200"})
    assert tiny.exit_code == 0 and "3B" in tiny.output and "math domain" not in tiny.output
    zero = CliRunner().invoke(app, ["balance", "check", "--games", "10", "-p", "2", "--jobs", "0"],
                              env={"COLUMNS": "200"})
    assert zero.exit_code == 2 and "jobs must be a number of processes" in " ".join(zero.output.split())


def test_bracketed_text_survives_in_error_messages(tmp_path):
    overrides = tmp_path / "not-overrides.toml"
    overrides.write_text("x = 1\n")
    result = CliRunner().invoke(app, ["balance", "check", "--overrides", str(overrides)], env={"COLUMNS": "200"})
    assert result.exit_code == 2 and "holds only [components.*] tables, e.g. [components.setup.\"3B\"]" in result.output


def test_show_game_of_a_missing_chunk_says_the_chunk_is_missing(tmp_path):
    import hadara_sim

    out = tmp_path / "run"
    hadara_sim.simulate({"name": "gap", "players": 2, "policies": ["greedy"], "games": 8, "seed": 1, "chunk": 4},
                        out=out, jobs=1, quiet=True)
    (out / "part-c0000-k00001.parquet").unlink()
    result = CliRunner().invoke(app, ["show-game", str(out), "--game", "6"], env={"COLUMNS": "200"})
    text = " ".join(result.output.split())
    assert result.exit_code == 2 and "chunk file is missing" in text and "does not match" not in text


def test_a_scenario_path_with_an_equals_sign_is_a_path(tmp_path):
    import hadara_sim

    folder = tmp_path / "seed=1"
    folder.mkdir()
    scenario = folder / "tiny.toml"
    scenario.write_text('name = "tiny"\nplayers = 2\npolicies = ["greedy"]\ngames = 2\n')
    assert hadara_sim.simulate(str(scenario), jobs=1, quiet=True).height == 4
    assert hadara_sim.simulate('name = "text"\nplayers = 2\npolicies = ["greedy"]\ngames = 2', jobs=1,
                               quiet=True).height == 4


# --- one declaration per parameter, enforced wherever a value enters ---------------------------

def test_every_built_in_parameter_is_declared_with_its_values_and_meaning():
    from hadara_sim.policies import BUILTIN, REFERENCE

    for cls in {**BUILTIN, **REFERENCE}.values():
        assert set(cls.declared) == set(cls.params), cls.name
        for name, param in cls.declared.items():
            assert param.help, (cls.name, name)
            # Left unbounded here only where the value is checked where it is used: a policy name (search's
            # rollout and opponent), card ids against the games' component set (restriction_mask), a weights
            # file (read_weights), a position value file (read_value).
            assert param.limit is not None or name in ("rollout", "opponent", "avoid", "seek", "weights",
                                                       "value"), (cls.name, name)
            assert not param.problems(cls.params[name], (name,)), (cls.name, name)  # the default is allowed


OUT_OF_RANGE = [("balanced", {"gold_plan": 2**64}, "gold_plan: must lie in 0..2"),
                ("balanced", {"gold_plan": -1000}, "gold_plan: must lie in 0..2"),
                ("balanced", {"points_side_from": -7}, "points_side_from: must lie in 1..4"),
                ("balanced", {"silver_min": -100000}, "silver_min: must lie in 0..50"),
                ("search", {"kinds": []}, "kinds: needs at least 1 entry"),
                ("greedy", {"coin": 1e308}, "coin: must lie in 0.0..10.0")]


@pytest.mark.parametrize("spec, params, message", OUT_OF_RANGE)
def test_values_past_a_declared_range_are_refused_by_the_python_api(spec, params, message):
    from hadara_sim.registry import make_policy

    with pytest.raises(ValueError, match=re.escape(message)):
        make_policy(spec, **params)


@pytest.mark.parametrize("spec, params, message", OUT_OF_RANGE)
def test_values_past_a_declared_range_are_refused_in_a_scenario(tmp_path, spec, params, message):
    scenario = tmp_path / "s.toml"
    table = ", ".join(f"{k} = {json.dumps(v)}" for k, v in params.items())
    scenario.write_text(f'name = "s"\nplayers = 2\ngames = 2\npolicies = [{{policy = "{spec}", params = {{{table}}}}}, '
                        '"greedy"]\n')
    result = CliRunner().invoke(app, ["simulate", str(scenario), "--out", str(tmp_path / "run"), "-q"],
                                env={"COLUMNS": "200"})
    text = " ".join(result.output.split())
    assert result.exit_code == 2 and message in text and "s.toml" in text, text
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("policy, param, message", [("greedy", "coin=0:1e308", "must lie in 0.0..10.0"),
                                                    ("balanced", "silver_min=-100000:3", "must lie in 0..50")])
def test_tuning_ranges_past_a_declaration_are_refused_before_any_game(policy, param, message):
    result = CliRunner().invoke(app, ["policies", "tune", policy, "--param", param, "--trials", "2", "--games", "4"],
                                env={"COLUMNS": "200"})
    assert result.exit_code == 2 and message in " ".join(result.output.split())


def test_policies_show_lists_every_range():
    for name, allowed in [("greedy", "0.0..10.0"), ("balanced", "0..50"), ("search", "1 or more of")]:
        result = CliRunner().invoke(app, ["policies", "show", name, "--format", "json"])
        assert result.exit_code == 0
        rows = json.loads(result.output)["tables"][0]["rows"]
        assert all(row[-1] != "–" for row in rows if row[0] not in ("rollout", "opponent", "avoid", "seek", "value")), rows
        assert any(allowed in row[-1] for row in rows)


def test_a_built_in_never_makes_an_illegal_choice_even_when_its_values_overflow():
    """Weights past any range (set behind the declaration's back) make every value nan: the compiled
    decision still takes a legal option, so no run blames the policy for the engine's own bot."""
    from hadara_sim import load_components, make_deals
    from hadara_sim.engine.game import play_batch
    from hadara_sim.policies.greedy import Greedy
    from hadara_sim.policies.styles import Balanced

    class Overflowing(Greedy):
        def kernel(self, components, players=None, advanced=True):
            made = super().kernel(components, players, advanced)
            with np.errstate(over="ignore", invalid="ignore"):
                return made._replace(params=made.params * 1e308 * 1e308, table=made.table * np.inf)

    class OverflowingPlanner(Balanced):
        def kernel(self, components=None, players=None, advanced=True):
            made = super().kernel(components, players, advanced)
            with np.errstate(invalid="ignore"):
                return made._replace(params=made.params * np.inf)

    c = load_components()
    deals = make_deals(c, 3, 4, seed=2, advanced=True)
    sheet = play_batch(deals, c, [Overflowing(), OverflowingPlanner(), Greedy()])
    assert sheet["total"].shape == (4, 3)


# --- every card column checked on read, the file, row and column named -------------------------

def _set_column(file: Path, column: str, change):
    """Rewrite one card column of a part file, its schema and metadata kept: change(list of bytes)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(file)
    values = change(table[column].to_pylist())
    at = table.schema.get_field_index(column)
    pq.write_table(table.set_column(at, table.schema.field(column), pa.array(values, pa.binary())), file)


def _all(value):
    return lambda rows: [value] * len(rows)


def _row(i, change):
    return lambda rows: [change(b) if k == i else b for k, b in enumerate(rows)]


CRAFTED = [
    ("bought", _row(1, lambda b: b + b"\0"), "bought", "bytes"),                       # one byte too long
    ("offered", _row(2, lambda b: b[:-1] + b"\x80"), "offered", "past the last of the 162 cards"),
    ("sold", _all(b"\xff" * 20 + b"\x03"), "sold", "both bought and sold"),               # sold all ones
    ("bought_in_b", _row(0, lambda b: b"\xff" * 20 + b"\x03"), "bought_in_b", "not in bought"),
    ("bought", lambda rows: [rows[0], bytes(a | b for a, b in zip(*rows[:2])), *rows[2:]], "bought",
     "another seat of the same game"),                                                 # seat 0's cards, seat 1's too
    ("sold", lambda rows: [bytes(np.random.default_rng(3).integers(0, 256, 21, np.uint8)) for _ in rows], "sold",
     ""),                                                                              # random bytes
]


@pytest.mark.parametrize("column, change, named, what", CRAFTED)
def test_crafted_card_columns_are_refused_with_file_row_and_column(tmp_path, column, change, named, what):
    out = tmp_path / "run"
    assert run(load_scenario(tiny(tmp_path)), out, jobs=1).played == 2
    part = sorted(out.glob("part-*.parquet"))[0]
    _set_column(part, column, change)
    result = invoke("report", "cards", out)
    text = clean_failure(result, 2, what)
    assert "column" in text and named in text and ("row" in text or "game" in text)
    if "past the last" not in what:  # known without the component set: refused on every read
        with pytest.raises(ResultsError, match=re.escape(part.name)):
            load_results(out)


# --- the human seat: any answer is asked again, a closed input ends cleanly ----------------------

def test_odd_digits_and_enormous_numbers_are_asked_again():
    from hadara_sim.cli.human import option_number

    assert [option_number(a, 12) for a in ("3", "12", "007", "0", "13", "²", "٣", "9" * 4301, "1" + "0" * 5000,
                                           "-1", "1.0", "")] == [3, 12, 7, None, None, None, None, None, None,
                                                                 None, None, None]
    answers = "²\n" + "9" * 4301 + "\n" + "1\n" * 400
    result = CliRunner().invoke(app, ["play", "-p", 2, "--policy", "human,greedy"], input=answers,
                                env={"COLUMNS": "200"})
    assert result.exit_code == 0 and "'²' is not an option" in result.output
    assert "'99999" in result.output and "raised" not in result.output


def test_a_closed_or_unreadable_input_ends_the_game_cleanly():
    from hadara_sim.cli.human import read_line

    def closed():
        raise ValueError("I/O operation on closed file.")

    assert read_line(closed) is None and read_line(lambda: "") is None and read_line(lambda: "2\n") == "2\n"
    command = " ".join(f"'{a}'" for a in CLI) + " play -p 2 --policy human,greedy <&-"
    done = subprocess.run(["sh", "-c", command], capture_output=True, text=True, timeout=300)
    assert done.returncode != 0 and "input ended" in done.stdout + done.stderr, done.stderr
    assert "Traceback" not in done.stderr and "raised" not in done.stdout + done.stderr


# --- simulate --dry-run checks what a run would -------------------------------------------------

@pytest.mark.parametrize("dry", [["--dry-run"], []])
def test_dry_run_and_run_refuse_another_runs_folder_a_file_and_an_overlong_name(two_runs, tmp_path, dry):
    a, _ = two_runs
    other = tiny(tmp_path, seed=3, name="third.toml")
    clean_failure(invoke("simulate", other, "--out", a, "-q", *dry), 2, "holds another run")
    file = tmp_path / "file.txt"
    file.write_text("keep me")
    clean_failure(invoke("simulate", other, "--out", file, "-q", *dry), 2, "is a file")
    assert file.read_text() == "keep me"
    clean_failure(invoke("simulate", other, "--out", tmp_path / ("x" * 300), "-q", *dry), 2, "cannot write to --out")
    assert invoke("simulate", tiny(tmp_path, seed=1), "--out", a, "--dry-run").exit_code == 0  # its own run


def test_the_default_tuning_space_lies_within_every_declared_range():
    from hadara_sim.policies import BUILTIN
    from hadara_sim.tune import check_space, default_space

    for name, cls in BUILTIN.items():
        check_space(name, default_space(name), cls.params)  # raises for a value the policy does not take


def test_brackets_in_labels_values_and_docstrings_are_printed_as_written(tmp_path):
    """Text a user wrote (a policy's label, a value in a component file, a policy's docstring) is
    never read as rich markup or as matplotlib's mathtext: "[/old]" once stopped every table with an
    internal MarkupError, "$\\frac$" every chart, and "[v2]" or "list[int]" vanished from the line."""
    scenario = tmp_path / "labels.toml"
    scenario.write_text(textwrap.dedent("""
        name = "labels"
        players = 2
        policies = [{policy = "greedy", label = "greedy [v2]"}, {policy = "random", label = '[/old] $\\frac$'}]
        games = 8
        seed = 1
        chunk = 8
    """))
    out = tmp_path / "run"
    for args in (["simulate", scenario, "--out", out], ["report", "winrate", out, "--out", tmp_path / "r"],
                 ["report", "ratings", out]):
        result = CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "200"})
        assert result.exit_code == 0, result.output
        assert "greedy [v2]" in result.output and "[/old] $\\frac$" in result.output
    assert (tmp_path / "r" / "winrate-by-policy.png").stat().st_size  # drawn as text, not as mathtext

    components = tmp_path / "components"
    shutil.copytree(default_components_path(), components)
    cards = (components / "cards.csv").read_text().splitlines()
    cells = cards[1].split(",")
    cells[1] = "[/x]"  # the epoch
    (components / "cards.csv").write_text("\n".join([cards[0], ",".join(cells), *cards[2:]]) + "\n")
    result = CliRunner().invoke(app, ["components", "validate", str(components)])
    assert result.exit_code == 2, result.output
    assert "cards.csv:2: epoch: expected a whole number (digits 0-9 only), got '[/x]'" in result.output

    (tmp_path / "bracketed.py").write_text(textwrap.dedent('''
        from hadara_sim.policies import Greedy


        class Bracketed(Greedy):
            """Greedy with a list[int] of weights [/] nothing else."""
    '''))
    result = CliRunner().invoke(app, ["policies", "show", f"{tmp_path / 'bracketed.py'}:Bracketed"])
    assert result.exit_code == 0, result.output
    assert "Greedy with a list[int] of weights [/] nothing else." in result.output


def test_an_empty_string_is_no_path_and_nothing_is_written_into_the_current_folder(tmp_path, monkeypatch):
    """Path("") is the current folder: simulate(out="") wrote metadata.json and the parts into the notebook's
    folder, and load_results("") read whatever run lay there."""
    import hadara_sim as H

    monkeypatch.chdir(tmp_path)
    for call in (lambda: H.simulate("default", games=2, out="", jobs=1), lambda: load_results(""),
                 lambda: load_components(""), lambda: H.simulate("", games=2)):
        with pytest.raises(ValueError, match=re.escape("is an empty string, not a path ('.' names the current folder)")):
            call()
    assert list(tmp_path.iterdir()) == []


def test_a_notebook_s_wrong_kinds_of_argument_are_named_before_any_game_is_played(tmp_path):
    """From Python, each stopped inside pathlib or numpy ("expected str, bytes or os.PathLike object",
    "negative dimensions"), mid-game ("'str' object has no attribute 'decide'"), after the baseline or a
    designed sweep had played, or was taken: games=10**13 started playing, settings="players=3" was read
    letter by letter, deals[5] of three was an empty batch, "3b" in `only` suggested nothing."""
    import hadara_sim as H
    from hadara_sim import balance, sensitivity
    from hadara_sim.balance_fit import FitPlan
    from hadara_sim.reference import play_game

    components = load_components()
    deals = H.make_deals(components, 2, 3, seed=1)
    cases = [
        (lambda: load_results(5), TypeError, "the results directory is a path (a str or pathlib.Path), not int"),
        (lambda: load_scenario({"players": 4}), TypeError, "scenario_from_dict(data) reads a dict"),
        (lambda: load_scenario("default", components=5), TypeError, "components (the component set's folder) is"),
        (lambda: load_components(5), TypeError, "the component set's folder is a path"),
        (lambda: H.simulate("default", games=10, out=5), TypeError, "out (the results directory) is a path"),
        (lambda: H.simulate("default", games=10**13), ScenarioError, "games: must be 1..1,000,000,000,000"),
        (lambda: load_scenario("default").with_overrides(seed=-1), ScenarioError, "seed: must be at least 0"),
        (lambda: H.make_deals(components, 4, -1), ValueError, "games is a whole number of at least 0"),
        (lambda: H.make_deals(components, 4, 3, seed=-1), ValueError, "seed is a whole number of at least 0"),
        (lambda: H.make_deals(None, 4, 3), TypeError, "components is a component set"),
        (lambda: H.make_deals(components, 4, 3, exclude=[9999]), ValueError, "exclude names cards by index"),
        (lambda: deals[5], IndexError, "deal 5 of a batch of 3"),
        (lambda: play_game(deals[0], components, ["greedy", "random"]), TypeError,
         "seat 0's policy is 'greedy', not a policy"),
        (lambda: H.card_events(None, components), TypeError, "read a polars DataFrame, got a NoneType"),
        (lambda: balance.Plan(only=["3b", "6A"]), ValueError, "6A: expected a card and side like 3B"),
        (lambda: balance.Plan(margin=2), ValueError, "margin=2"),
        (lambda: balance.swept_values("coin", 3, True), ValueError, "'coin' is not a value of a setup card side"),
        (lambda: sensitivity.replay(balance.Plan(), -1, seed=7), ValueError, "k is a whole number of at least 0"),
        (lambda: FitPlan(margin=0), ValueError, "margin=0"),
        (lambda: FitPlan(rounds=0), ValueError, "rounds=0: a whole number of at least 1"),
        (lambda: FitPlan(reach=-1), ValueError, "reach=-1: a whole number of at least 1"),
        (lambda: FitPlan(players=[1]), ValueError, "players=[1]: player counts from 2 to 5"),
        (lambda: FitPlan(aim=5), ValueError, "aim=5: a share of the margin"),
    ]
    for call, kind, words in cases:
        with pytest.raises(kind, match=re.escape(words)):
            call()
    assert load_scenario("default").with_overrides(games=np.int64(20)).games == 20
    three = load_scenario("default", settings="players=3")  # one setting, not its letters
    assert three.combinations[0].config.players == 3 and three.settings == ("players=3",)
    assert balance.Plan(only=["3b"]).only == ["3B"]
    assert len(H.make_deals(components, 2, 2, exclude=["I-Y-01"])) == 2 and len(deals[-1]) == 1


def test_deals_indexed_by_a_wrong_kind_say_what_indexes_them():
    """deals["a"] and deals[1.0] gave numpy's "only integers, slices (`:`), ellipsis ..." IndexError,
    deals[True] deal 1 and deals[None] the whole batch."""
    import hadara_sim as H

    deals = H.make_deals(load_components(), 2, 4, seed=1)
    for index, shown in (("a", "str 'a'"), (1.0, "float 1.0"), (True, "bool True"), (None, "NoneType None"),
                         ((0, 1), "tuple (0, 1)")):
        with pytest.raises(TypeError, match=re.escape("deals are indexed by a whole number, a slice or a list of "
                                                      f"numbers (deals[3], deals[10:20], deals[[0, 2]]), not {shown}")):
            deals[index]
    with pytest.raises(TypeError, match=r"a list or array of whole numbers .*, not 1-d of float64"):
        deals[[1.5]]
    with pytest.raises(IndexError, match="deal 4 of a batch of 4"):
        deals[4]
    # the right kinds still cut out their deals
    assert [len(deals[i]) for i in (np.int64(2), -1, slice(1, 3), [0, 2], np.array([True, False, True, True]), [])] \
        == [1, 1, 2, 2, 3, 0]
    assert deals[[0, 2]].game_id.tolist() == deals.game_id[[0, 2]].tolist()


def test_the_new_checks_take_every_kind_of_a_right_value(tmp_path):
    """The checks of wrong kinds let the other right kinds through: numpy integers and floats, a
    SeedSequence, tuples, a path as text, an epoch as a numpy integer."""
    import polars as pl

    import hadara_sim as H
    import report_data as R
    from hadara_sim.report import estimates, scores, wins

    components = load_components()
    deals = H.make_deals(components, np.int64(2), np.int32(3), seed=np.random.SeedSequence(4), advanced=False,
                         first_game=np.int64(5), exclude=np.array([0, 1]))
    assert len(deals) == 3 and deals.game_id.tolist() == [5, 6, 7]
    df = R.four_games()
    assert wins.win_rates(df, ("policy_label",), np.float64(0.02)).height == 2
    assert estimates.mean_ci(df, pl.col("total") * 2, ("seat",), fair=np.float32(100.0)).height == 2
    assert scores.leader_wins(df, epochs=np.int64(1)).height == scores.leader_wins(df, epochs=(1,)).height == 1
    assert load_results(str(R.write_results(df, tmp_path / "r"))).height == df.height


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="process groups and /proc: Linux")
def test_a_worker_started_before_loky_knew_it_dies_with_an_interrupted_run():
    """A Ctrl-C between a worker's start and loky sending it its task (CI: a moment 1.16 s into a run of
    2 jobs) left a worker loky had not registered: when the run exited it met the closed pipe and
    printed "EOFError: Ran out of input" with its traceback on the terminal. The run kills it first."""
    from hadara_sim import process

    pid = process._spawn_in_own_group([sys.executable, "-c", "import time; time.sleep(60)"], [])
    process.stop_local_workers()
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL


def test_a_failure_that_follows_a_swallowed_ctrl_c_is_the_interrupt(monkeypatch):
    """A Ctrl-C during the first compile with --jobs 1: numba swallowed it and then failed ("no object yet
    for <Library '_planner'>"), and the run said "error: unexpected ... please report it" (exit 1)."""
    from hadara_sim import signals

    monkeypatch.setattr(signal, "getsignal", lambda sig: signal.default_int_handler)
    monkeypatch.setattr(signal, "signal", lambda sig, handler: None)
    with pytest.raises(KeyboardInterrupt):
        with signals.remembering_ctrl_c():
            signals._PRESSED.append(signal.SIGINT)  # as the handler notes a Ctrl-C a library then swallows
            raise ValueError("no object yet for <Library '_planner'>")
    with pytest.raises(ValueError, match="a failure of its own"):
        with signals.remembering_ctrl_c():
            raise ValueError("a failure of its own")


def test_a_policy_that_fails_in_bench_verify_or_ladder_is_named_not_reported_as_ours(tmp_path):
    """Every command that plays a user's policy says which policy failed at which decision, exit 1,
    not "unexpected ... please report it" (bench, verify and policies ladder said so)."""
    (tmp_path / "bad.py").write_text("from hadara_sim.policy import Policy\n"
                                     "class DecideRaise(Policy):\n"
                                     "    name = 'decideraise'\n"
                                     "    def draw(self, d):\n"
                                     "        raise ZeroDivisionError('decide boom')\n")
    for command in (["bench", "-q", "-b", "8", "-p", "2", "--reference-games", "1", "--policy", "bad.py:DecideRaise"],
                    ["verify", "--games", "2", "--policy", "bad.py:DecideRaise"],
                    ["policies", "ladder", "-n", "10", "-p", "2", "-q", "--policy", "greedy", "--policy",
                     "bad.py:DecideRaise"]):
        done = subprocess.run([*CLI, *command], cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert done.returncode == 1, (command, done.stderr)
        assert "policy 'decideraise' raised ZeroDivisionError: decide boom at decision 'draw'" in done.stderr
        assert "unexpected" not in done.stderr and "Traceback" not in done.stderr


def test_every_command_checks_the_component_set_the_same_way(tmp_path, user_policies, component_copy):
    """bench and verify played the expert on another component set into "unexpected ValueError ... please
    report it"; a check_components that raised anything else was "unexpected" in play and bench and never
    asked in verify and policies ladder. All four now ask before the first game, as a scenario does."""
    edit_csv(component_copy / "cards.csv", "I-Y-01", "points", "3")
    for command in (["play", "-q"], ["bench", "-q", "-b", "8", "-p", "2", "--reference-games", "1"],
                    ["verify", "--games", "2", "-p", "2", "--basic", "-j", "1", "-q"],
                    ["policies", "ladder", "-n", "10", "-p", "2", "-q", "--policy", "greedy"]):
        clean_failure(invoke(*command, "--policy", "expert", "--components", component_copy), 2,
                      "expert weights", "were learned on the component set")
        done = subprocess.run([*CLI, *command, "--policy", f"{user_policies}:ChecksBadly"], cwd=tmp_path,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 1, (command, done.stderr)
        assert ("policy 'checks_badly' failed checking the component set: RuntimeError: no such set; fix the "
                "policy, then run again") in done.stderr
        assert "unexpected" not in done.stderr and "Traceback" not in done.stderr
    clean_failure(invoke("simulate", tiny(tmp_path), "--dry-run", "--set", f'policies=["{user_policies}:ChecksBadly"]'),
                  2, "policy 'checks_badly' failed checking the component set: RuntimeError: no such set")
    # policies tune met search's value fitted on another set at its first decision, as a failing policy
    clean_failure(invoke("policies", "tune", "search", "--trials", "1", "--games", "2", "--components", component_copy),
                  2, "was fitted on the component set", "--policy search:value=FILE")
    clean_failure(invoke("policies", "tune", "balanced", "-o", "expert", "--trials", "1", "--games", "2",
                         "--components", component_copy), 2, "expert weights", "--policy expert:weights=FILE")


@pytest.mark.parametrize("setting", ["players=2", " players = 3"])
def test_players_given_by_option_and_by_setting_is_refused(tmp_path, setting):
    """simulate --set players=2 --players 3 played 2 players into results/...-players=3-players=2."""
    clean_failure(invoke("simulate", tiny(tmp_path), "--players", "3", "--set", setting, "--dry-run"), 2,
                  f"--players 3 and --set {setting}", "both set the player count", "drop --players or that --set")
    assert invoke("simulate", tiny(tmp_path), "--players", "3", "--set", "game=advanced", "--dry-run").exit_code == 0


def test_show_game_of_missing_chunks_prints_no_raw_warning(tmp_path):
    """show-game of a results folder without parts printed `sample.py:161: UserWarning: ... chunks are missing`
    and its source line before its own message; of a game whose chunk is there, the warning of the others."""
    import hadara_sim

    out = tmp_path / "run"
    hadara_sim.simulate({"name": "gap", "players": 2, "policies": ["greedy"], "games": 8, "seed": 1, "chunk": 4},
                        out=out, jobs=1, quiet=True)
    (out / "part-c0000-k00001.parquet").unlink()
    shown = subprocess.run([*CLI, "show-game", str(out), "--game", "1", "-q"], capture_output=True, text=True,
                           timeout=300)
    assert shown.returncode == 0 and "Warning" not in shown.stderr, shown.stderr
    (out / "part-c0000-k00000.parquet").unlink()
    missing = subprocess.run([*CLI, "show-game", str(out), "-q"], capture_output=True, text=True, timeout=300)
    assert missing.returncode == 2 and "Warning" not in missing.stderr, missing.stderr
    assert missing.stderr.startswith("error: game 0 of combination 0 is not in the dataset") and \
        "chunk file is missing" in missing.stderr


KEYBOARD = '''
import signal

from hadara_sim.policy import Policy


class Raises(Policy):
    name = "raises"

    def decide(self, decision):
        raise KeyboardInterrupt


class PressesCtrlC(Policy):
    name = "presses"

    def decide(self, decision):
        signal.raise_signal(signal.SIGINT)  # the user's Ctrl-C while the policy decides
        return decision.legal.argmax(axis=1)
'''


def test_a_policy_raising_keyboard_interrupt_is_named_and_a_ctrl_c_still_interrupts(tmp_path):
    """A policy's own `raise KeyboardInterrupt` was taken for the user's Ctrl-C: play exited 130 saying only
    "interrupted" (bench too). It is named like any failing policy; a real SIGINT still interrupts, in the
    reference engine (play) and in the batch engine (bench)."""
    (tmp_path / "keys.py").write_text(KEYBOARD)
    bench = ["bench", "-q", "-b", "8", "-p", "2", "--reference-games", "1"]
    for command, code in ((["play", "-p", "2", "-q"], 2), (bench, 1)):
        done = subprocess.run([*CLI, *command, "--policy", "keys.py:Raises"], cwd=tmp_path, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == code, (command, done.stderr)
        assert "policy 'raises' raised KeyboardInterrupt at decision 'wheel'" in done.stderr
        assert "interrupted" not in done.stderr and "Traceback" not in done.stderr
        pressed = subprocess.run([*CLI, *command, "--policy", "keys.py:PressesCtrlC"], cwd=tmp_path,
                                 capture_output=True, text=True, timeout=300)
        assert pressed.returncode == 130, (command, pressed.stderr)
        assert "policy" not in pressed.stderr and "Traceback" not in pressed.stderr


def test_a_results_directory_whose_name_is_not_utf8_is_refused_before_playing(tmp_path):
    """--out $'run\\xff' played every game, then stopped inside pyarrow writing the first chunk: "unexpected
    UnicodeEncodeError". It is refused by name before any game, by simulate, a dry run and report."""
    out = tmp_path / os.fsdecode(b"run\xff")
    words = ["its name holds bytes that are not UTF-8 text"]
    for dry in ([], ["--dry-run"]):
        clean_failure(invoke("simulate", tiny(tmp_path), "-q", "--jobs", "1", "--out", out, *dry), 2, *words)
        assert not out.exists()
    out.mkdir()
    clean_failure(invoke("report", "winrate", out, "--out", tmp_path / "charts"), 2, *words)


LONG = "n" * 300  # longer than a file name may be (255 bytes): pathlib's checks raise OSError ENAMETOOLONG


@pytest.mark.parametrize("args", [
    ["play", "-q", "--trace", "{root}/" + LONG + ".jsonl"],
    ["play", "-q", "--components", "{root}/" + LONG],
    ["report", "winrate", "{root}/" + LONG],
    ["show-game", "{root}/" + LONG],
    ["simulate", "{root}/" + LONG + ".toml"],
    ["policies", "tune", "greedy", "--trials", "1", "--games", "2", "--validation-games", "2", "-q",
     "--out", "{root}/" + LONG + ".toml"],
])
def test_a_path_too_long_for_the_file_system_is_refused_by_name(tmp_path, args):
    """Python 3.11's Path.exists/is_dir let ENAMETOOLONG through: "unexpected OSError: File name too long"."""
    clean_failure(invoke(*[a.format(root=tmp_path) for a in args]), 2, "File name too long")


@pytest.mark.parametrize("entry, words", [
    ('components = "' + LONG + '"', ["components:", "cannot be looked up (File name too long)"]),
    ('components = "set\\u0000"', ["components:", "holds a NUL character"]),
    ('policies = ["' + LONG + '.py:P", "greedy"]', ["policies[0].policy", "File name too long"]),
])
def test_a_scenarios_path_no_file_system_can_hold_is_a_problem_at_its_line(tmp_path, entry, words):
    """A NUL in a scenario's components path stopped in pathlib ("unexpected ValueError: embedded null byte"),
    and a name too long for the file system in its components or a policy file ("unexpected OSError")."""
    key = entry.partition(" =")[0]
    text = "\n".join(line for line in tiny(tmp_path).read_text().splitlines() if not line.startswith(key + " "))
    (tmp_path / "s.toml").write_text(f"{text}\n{entry}\n")
    clean_failure(invoke("simulate", tmp_path / "s.toml", "-q", "--dry-run", "--out", tmp_path / "out"), 2,
                  "s.toml:", *words)


KERNELS = """
from hadara_sim.policies.greedy import Greedy


class Unnamed(Greedy):  # a subclass that names itself not: its failures were greedy's
    def draw(self, decision):
        raise RuntimeError("my draw")


class KernelRaises(Greedy):
    name = "kernel_raises"

    def kernel(self, *args, **kwargs):
        raise RuntimeError("no kernel")


class KernelOdd(Greedy):
    name = "kernel_odd"

    def kernel(self, *args, **kwargs):
        return 5


class ParamsReplaced(Greedy):  # greedy's kernel reads the parameters it dropped
    name = "params_replaced"
    params = {"a": 1}


class TableShort(Greedy):  # a value per epoch and phase, none per card: read past its end
    name = "table_short"

    def kernel(self, components, players=None, advanced=True):
        from hadara_sim.policy import Kernel
        import numpy as np

        own = super().kernel(components, players, advanced)
        return Kernel(own.code, own.params, np.zeros((3, 2, 1)), own.kinds)
"""


@pytest.mark.parametrize("attr, words", [
    ("Unnamed", "policy 'Unnamed' raised RuntimeError: my draw at decision 'draw'"),
    ("KernelRaises", "policy 'kernel_raises': its kernel(components, players=2, advanced=False) raised RuntimeError"),
    ("KernelOdd", "policy 'kernel_odd': its kernel() returned int, not a hadara_sim.policy.Kernel or None"),
    ("ParamsReplaced", "policy 'params_replaced': its kernel(components, players=2, advanced=False) raised KeyError"),
])
def test_a_user_subclass_of_a_built_in_is_named_by_itself_and_its_kernel_failures_are_its_own(tmp_path, attr, words):
    """A subclass of greedy without a name of its own failed as "policy 'greedy' raised ..." (greedy sat in the other
    seat too); a user's kernel() that raised or returned no Kernel stopped `simulate` with a traceback."""
    (tmp_path / "kernels.py").write_text(KERNELS)
    scenario = tiny(tmp_path).read_text().replace('"greedy"', f'"kernels.py:{attr}"').replace('"random"', '"greedy"')
    (tmp_path / "s.toml").write_text(scenario)
    done = subprocess.run([*CLI, "simulate", "s.toml", "-q", "--jobs", "1", "--out", "out"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stderr
    assert words in done.stderr and "unexpected" not in done.stderr and "Traceback" not in done.stderr, done.stderr


@pytest.mark.parametrize("attr, words", [
    ("KernelOdd", "policy 'kernel_odd' raised ValueError: its kernel() returned int, not the hadara_sim.policy.Kernel"),
    ("TableShort", "policy 'table_short' raised ValueError: its kernel() returned a Kernel whose table is not (3, 2, "),
])
def test_a_user_kernel_is_checked_where_play_reads_it_too(tmp_path, attr, words):
    """`simulate` checks a user's kernel() override (`checked_kernel`), but `play` (the Python path: a built-in's
    decide() reads its own kernel()) did not: a (3, 2, 1) table was read past its end for a whole game, exit 0;
    an int stopped on "'int' object has no attribute 'table'"."""
    (tmp_path / "kernels.py").write_text(KERNELS)
    clean_failure(invoke("play", "-p", "2", "-q", "--policy", f"{tmp_path / 'kernels.py'}:{attr},greedy"), 2, words)


@pytest.mark.parametrize("kind", ["pipe", "folder"])
def test_a_part_file_that_is_a_pipe_or_folder_is_refused_not_waited_on(tmp_path, kind):
    """A named pipe in a part file's place: `report` and a resuming `simulate` waited for ever to read it (and
    a SIGTERM, held while the run played, did not end the wait)."""
    out = tmp_path / "out"
    assert invoke("simulate", tiny(tmp_path), "-q", "--out", out).exit_code == 0
    part = sorted(out.glob("part-*.parquet"))[0]
    part.unlink()
    os.mkfifo(part) if kind == "pipe" else part.mkdir()
    for command in (["report", "winrate", out], ["simulate", tiny(tmp_path), "-q", "--out", out]):
        done = subprocess.run([*CLI, *map(str, command)], capture_output=True, text=True, timeout=120)
        assert done.returncode == 2, done.stderr
        assert "is not a file (a folder, pipe or device), not a chunk written by this run" in done.stderr, done.stderr


@pytest.mark.parametrize("kind", ["pipe", "folder"])
def test_a_metadata_file_that_is_a_pipe_or_folder_is_named_as_such(tmp_path, kind):
    """A folder in metadata.json's place was "not a results directory: it has no metadata.json", and the
    resuming simulate's "use --overwrite" then failed writing there ("Is a directory")."""
    out = tmp_path / "out"
    assert invoke("simulate", tiny(tmp_path), "-q", "--out", out).exit_code == 0
    (out / "metadata.json").unlink()
    os.mkfifo(out / "metadata.json") if kind == "pipe" else (out / "metadata.json").mkdir()
    shown = "a named pipe (FIFO)" if kind == "pipe" else "a folder"
    for command in (["report", "winrate", out], ["simulate", tiny(tmp_path), "-q", "--out", out],
                    ["simulate", tiny(tmp_path), "-q", "--out", out, "--overwrite"]):
        done = subprocess.run([*CLI, *map(str, command)], capture_output=True, text=True, timeout=120)
        told = " ".join(done.stderr.split())
        assert done.returncode == 2 and f"metadata.json is {shown}" in told and "move it away" in told, told


@pytest.mark.parametrize("place, overwrite, words", [
    ("folder under a file", False, "which is a file, not a folder"),
    ("folder under a file", True, "which is a file, not a folder"),
    ("a part a folder", False, "is not a file (a folder, pipe or device)"),
    ("a part a folder", True, "is a folder where the run writes a file"),
])
def test_a_dry_run_refuses_an_out_the_run_refuses(tmp_path, place, overwrite, words):
    """simulate --dry-run said a run into a folder under a file, or into a run with a folder in a part's place,
    would play (the part counted as done), and the run then refused it."""
    out = tmp_path / "out"
    if place == "folder under a file":
        (tmp_path / "keep").write_text("keep")
        out = tmp_path / "keep" / "out"
    else:
        assert invoke("simulate", tiny(tmp_path), "-q", "--out", out).exit_code == 0
        part = sorted(out.glob("part-*.parquet"))[0]
        part.unlink()
        part.mkdir()
    for dry in (["--dry-run"], []):
        result = invoke("simulate", tiny(tmp_path), "-q", "--out", out, *dry, *(["--overwrite"] if overwrite else []))
        clean_failure(result, 2, words)


@pytest.mark.parametrize("exists", [False, True])
def test_a_dry_run_refuses_a_read_only_out(tmp_path, monkeypatch, exists):
    """A dry run into a read-only folder (or one in it) said a run would play (os.access says yes to root,
    and the dry run did not ask): the run then refused. Read-only is made here by refusing mkdir in it."""
    import errno

    read_only = tmp_path / "ro"
    read_only.mkdir()
    out = read_only / "out" if not exists else read_only
    real = os.mkdir

    def mkdir(path, *args, **kwargs):
        if Path(path).parent == read_only or Path(path) == read_only / "out":
            raise OSError(errno.EROFS, "Read-only file system", str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, "mkdir", mkdir)
    for dry in (["--dry-run"], []):
        clean_failure(invoke("simulate", tiny(tmp_path), "-q", "--out", out, *dry), 2,
                      f"cannot write to --out {out}: Read-only file system")


@pytest.mark.parametrize("place, command, words", [
    ("fix.toml", ["balance", "check", "--overrides", "fix.toml", "--dry-run"],
     ["fix.toml: is a named pipe (FIFO), not an overrides file"]),
    ("w.toml", ["play", "-p", "2", "-q", "--policy", "expert:weights=w.toml,greedy"],
     ["expert weights w.toml: it is a named pipe (FIFO), not a file"]),
    ("v.toml", ["play", "-p", "2", "-q", "--policy", "search:value=v.toml,greedy"],
     ["position value v.toml: it is a named pipe (FIFO), not a file"]),
    ("s.toml", ["simulate", "s.toml", "-q"], ["s.toml: is a named pipe (FIFO), not a scenario file"]),
    ("set/board.toml", ["components", "validate", "set"], ["board.toml", "is a named pipe (FIFO), not a file"]),
    ("p.py", ["play", "-p", "2", "-q", "--policy", "p.py:P,greedy"],
     ["policy file 'p.py' is a named pipe (FIFO), not a file"]),
])
def test_a_named_pipe_where_a_file_is_read_is_refused_not_waited_on(tmp_path, place, command, words):
    """--overrides, a policy's weights= or value= file waited for ever on a named pipe given in their place (as
    `cat` does); a scenario was "not a file", a component set's pipe "missing" and a policy file's "does not exist"."""
    shutil.copytree(default_components_path(), tmp_path / "set")
    (tmp_path / place).unlink(missing_ok=True)
    os.mkfifo(tmp_path / place)
    done = subprocess.run([*CLI, *command], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    told = done.stdout + done.stderr  # components validate lists its problems on standard output
    assert done.returncode == 2, told
    assert all(word in told for word in words) and "Traceback" not in told, told


@pytest.mark.parametrize("args", [["simulate", "SCENARIO", "--out", ""], ["simulate", ""],
                                  ["report", "winrate", ""], ["report", "winrate", "RUN", "--out", ""]])
def test_an_empty_path_is_refused_not_read_as_the_current_folder(tmp_path, monkeypatch, args):
    """`--out "$DIR"` with DIR unset: pathlib reads "" as ".", and a run wrote its files among the folder's own."""
    monkeypatch.chdir(tmp_path)
    run = tmp_path / "run"
    assert invoke("simulate", tiny(tmp_path), "-q", "--out", run).exit_code == 0
    before = sorted(tmp_path.iterdir())
    given = [{"SCENARIO": tiny(tmp_path), "RUN": run}.get(a, a) for a in args]
    clean_failure(invoke(*given), 2, "is empty (an unset shell variable?)")
    assert sorted(tmp_path.iterdir()) == before


def test_a_terminal_size_in_digits_other_than_0_9_is_ignored(tmp_path):
    """COLUMNS=\u00b2: rich reads it with str.isdigit(), which holds, and int() then failed ("unexpected
    ValueError")."""
    env = {**os.environ, "COLUMNS": "\u00b2", "LINES": "\uff11"}
    done = subprocess.run([*CLI, "policies", "list"], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0 and "greedy" in done.stdout, done.stderr


def test_a_ctrl_c_in_a_command_that_does_not_tell_of_it_says_interrupted(monkeypatch, capsys):
    """typer turned the KeyboardInterrupt into a silent exit 130 (report, play, verify, bench, ...)."""
    import hadara_sim.cli as cli
    from hadara_sim.cli import policies

    def pressed(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.delenv("HADARA_SIM_DEBUG", raising=False)
    monkeypatch.setattr(policies, "available_policies", pressed)
    monkeypatch.setattr(sys, "argv", ["hadara-sim", "policies", "list"])
    with pytest.raises(SystemExit) as exit_:
        cli.main()
    assert exit_.value.code == 130 and "interrupted" in capsys.readouterr().err

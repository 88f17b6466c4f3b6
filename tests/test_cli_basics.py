"""The `hadara-sim` command line: help everywhere, `play` for every table size and game kind,
traces that replay, and clean failures (exit 2, the file, line and field, no traceback) on bad input."""


import pytest
import typer.main
from typer.testing import CliRunner

from hadara_sim.cli import app
from hadara_sim.trace import read_trace, replay

from helpers import copy_default, edit_csv, read_csv, write_csv

runner = CliRunner()


def run(*args):
    """Invoke the app in-process on a wide terminal (rich would wrap tables at 80 columns)."""
    return runner.invoke(app, [str(a) for a in args], env={"COLUMNS": "200"})


def command_paths():
    """Every command and group of the app, as argument lists (the root is [])."""
    out = []

    def walk(command, path):
        out.append(path)
        for name, sub in sorted(getattr(command, "commands", {}).items()):
            walk(sub, path + [name])

    walk(typer.main.get_command(app), [])
    return out


def no_traceback(result):
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


# --- help ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", command_paths(), ids=lambda p: " ".join(p) or "hadara-sim")
def test_every_command_has_help(path):
    """Every command and group answers --help with its usage and a description."""
    result = run(*path, "--help")
    assert result.exit_code == 0, result.output
    assert "Usage" in result.output
    command = typer.main.get_command(app)
    for name in path:
        command = command.commands[name]
    assert (command.help or "").strip(), f"{' '.join(path)} has no help text"


def test_expected_commands_exist():
    """The commands this suite relies on are there."""
    paths = {" ".join(p) for p in command_paths()}
    assert {"play", "components", "components validate", "components show"} <= paths


# --- play ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("advanced", [False, True], ids=["basic", "advanced"])
def test_play(players, advanced):
    """`play` runs a whole game for 2-5 players, basic and advanced, and prints the score pad."""
    result = run("play", "-p", players, "--seed", 3, "-q", *(["--advanced"] if advanced else []))
    assert result.exit_code == 0, result.output
    assert "Final score" in result.output and "Winner: seat" in result.output
    assert result.output.count("seat ") >= players


def test_play_tells_the_game():
    """Without --quiet, `play` tells the game step by step."""
    result = run("play", "-p", 2, "--seed", 1, "--policy", "random")
    assert result.exit_code == 0, result.output
    for text in ("Epoch I", "Epoch II", "Epoch III", "Phase B", "turns the wheel", "Final score"):
        assert text in result.output


@pytest.mark.parametrize("advanced", [False, True], ids=["basic", "advanced"])
def test_play_trace_replays(tmp_path, components, advanced):
    """`play --trace` writes a trace that replays to the same score sheet."""
    path = tmp_path / "game.jsonl"
    result = run("play", "-p", 3, "--seed", 7, "-q", "--trace", path, "--policy", "random",
                 *(["--advanced"] if advanced else []))
    assert result.exit_code == 0, result.output
    records = read_trace(path)
    assert records[0]["deal"]["players"] == 3 and records[0]["deal"]["advanced"] == advanced
    assert replay(records, components) == records[-1]["sheet"]


def test_play_trace_into_a_new_folder(tmp_path):
    """--trace new/game.jsonl passed the check before the game (a folder that can be made), then the
    game was played and the trace lost: 'cannot write the trace to ...: No such file or directory'."""
    path = tmp_path / "new" / "game.jsonl"
    result = run("play", "-p", 2, "-q", "--trace", path)
    assert result.exit_code == 0, result.output
    assert read_trace(path)[0]["deal"]["players"] == 2


def test_play_same_seed_same_game(tmp_path):
    """The same seed and policies give the same game."""
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for path in (a, b):
        assert run("play", "-p", 4, "--seed", 5, "-q", "--trace", path, "--policy", "random").exit_code == 0
    assert a.read_text() == b.read_text()


def test_play_per_seat_policies():
    """One --policy per seat, or one for all; another count exits 2 with a message."""
    ok = run("play", "-p", 2, "-q", "--policy", "random", "--policy", "greedy")
    assert ok.exit_code == 0, ok.output
    bad = run("play", "-p", 3, "-q", "--policy", "random", "--policy", "greedy")
    assert bad.exit_code == 2 and "--policy" in bad.output
    no_traceback(bad)


def test_a_policy_parameter_holding_a_list_keeps_its_commas():
    """--policy greedy:colours=[0,0,0,0,1.5],random was cut at every comma: 'got 6 for 2 players'."""
    result = run("play", "-p", 2, "-q", "--policy", "greedy:colours=[0,0,0,0,1.5],random")
    assert result.exit_code == 0, result.output
    assert "seat 0 (greedy)" in result.output and "seat 1 (random)" in result.output


def test_play_unknown_policy():
    """An unknown policy exits 2 and lists the available ones, without a traceback."""
    result = run("play", "-p", 2, "-q", "--policy", "no-such-policy")
    assert result.exit_code == 2
    assert "no-such-policy" in result.output and "greedy" in result.output and "random" in result.output
    no_traceback(result)


def test_play_bad_player_count():
    """Player counts outside 2-5 are refused."""
    assert run("play", "-p", 6, "-q").exit_code == 2
    assert run("play", "-p", 1, "-q").exit_code == 2


def test_play_with_broken_components(tmp_path):
    """`play --components BROKEN` exits 2, names the problem, and prints no traceback."""
    d = copy_default(tmp_path)
    line = edit_csv(d / "cards.csv", "I-Y-04", "cost", "x")
    result = run("play", "-p", 2, "-q", "--components", d)
    assert result.exit_code == 2
    assert f"cards.csv:{line}: cost:" in result.output
    no_traceback(result)


def test_play_with_valid_own_components(tmp_path):
    """`play --components` accepts a valid set of one's own."""
    d = copy_default(tmp_path)
    edit_csv(d / "cards.csv", "I-Y-04", "cost", "3")
    result = run("play", "-p", 2, "-q", "--components", d)
    assert result.exit_code == 0, result.output


# --- components validate / show -------------------------------------------------------------------

def test_validate_default_set(components):
    """`components validate` on a valid set exits 0."""
    result = run("components", "validate", components.path)
    assert result.exit_code == 0, result.output
    assert "valid" in result.output


def break_cost(d):
    return [f"cards.csv:{edit_csv(d / 'cards.csv', 'I-Y-04', 'cost', 'x')}: cost:"]


def break_effect(d):
    return [f"cards.csv:{edit_csv(d / 'cards.csv', 'II-P-09', 'effect', 'magic')}: effect: unknown effect 'magic'"]


def break_column(d):
    rows = read_csv(d / "cards.csv")
    col = rows[0].index("points")
    write_csv(d / "cards.csv", [r[:col] + r[col + 1:] for r in rows])
    return ["cards.csv:1: header: missing column 'points'"]


def break_counts(d):
    rows = read_csv(d / "cards.csv")
    write_csv(d / "cards.csv", [r for r in rows if r[0] not in ("III-B-02", "III-B-03")])
    return ["cards.csv: colour: epoch 3 has 8 blue cards, expected 10"]


def break_colony(d):
    line = edit_csv(d / "colonies.csv", "C3-2", "requirement", "16")
    return [f"colonies.csv:{line}: requirement: 16 differs from 15"]


def break_setup(d):
    line = edit_csv(d / "setup_cards.csv", "5", "side", "C")
    return [f"setup_cards.csv:{line}: side: 'C' is not one of A, B",
            "setup_cards.csv: initiative: no card for initiative 5 side A"]


def break_board(d):
    text = (d / "board.toml").read_text().replace("per_colour = 2", "per_colour = 9")
    (d / "board.toml").write_text(text)
    line = text.splitlines().index("per_colour = 9") + 1
    return [f"board.toml:{line}: bonus_tiles.per_colour: expected a whole number in 1..4, got 9"]


def break_toml(d):
    (d / "board.toml").write_text("[sell\ncoins = 1\n")
    return ["board.toml", "toml:", "line 1"]  # Python < 3.14: the line is in the message


@pytest.mark.parametrize("breaker", [break_cost, break_effect, break_column, break_counts, break_colony,
                                     break_setup, break_board, break_toml], ids=lambda f: f.__name__)
def test_validate_names_file_line_field(tmp_path, breaker):
    """`components validate` on a broken set exits 2 and names the file, line and field."""
    d = copy_default(tmp_path)
    expected = breaker(d)
    result = run("components", "validate", d)
    assert result.exit_code == 2, result.output
    for text in expected:
        assert text in result.output
    no_traceback(result)


def test_validate_toml_syntax_error_has_line_prefix(tmp_path):
    """A TOML syntax error is reported as board.toml:LINE: toml: like every other problem."""
    d = copy_default(tmp_path)
    (d / "board.toml").write_text("[sell\ncoins = 1\n")
    result = run("components", "validate", d)
    assert result.exit_code == 2 and "board.toml:1: toml:" in result.output


def test_the_hint_to_validate_a_broken_set_runs_as_printed(tmp_path):
    """A broken set given to another command printed `Check it with: hadara-sim components validate my set`,
    which the shell split into two arguments: the printed command now runs and lists the problems."""
    import shlex

    d = copy_default(tmp_path, "my set")
    break_cost(d)
    result = run("simulate", "default", "--games", "20", "--components", d, "--out", tmp_path / "r")
    assert result.exit_code == 2, result.output
    printed = next(line for line in result.output.splitlines() if line.startswith("Check it with: "))
    program, *args = shlex.split(printed.removeprefix("Check it with: "))
    assert program == "hadara-sim" and args[:2] == ["components", "validate"]
    again = run(*args)
    assert again.exit_code == 2 and "cards.csv:" in again.output and "unexpected extra" not in again.output


def test_the_cards_table_names_the_effects_command_as_the_program_was_started(tmp_path, monkeypatch):
    """After `make demo` nothing is on PATH: "effects are explained by: hadara-sim components effects" did
    not run as printed; it names the program as started, as the other printed commands do."""
    import json
    import shlex
    import sys

    script = tmp_path / ".venv" / "bin" / "hadara-sim"
    script.parent.mkdir(parents=True)
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", [str(script), "components", "show"])
    monkeypatch.setenv("PATH", "/usr/bin")
    result = run("components", "show", "--epoch", "1", "--colour", "purple", "--format", "json")
    assert result.exit_code == 0, result.output
    caption = json.loads(result.stdout)["tables"][0]["caption"]
    assert shlex.split(caption.split("effects are explained by: ")[1]) == [".venv/bin/hadara-sim", "components",
                                                                           "effects"]


def test_validate_missing_directory(tmp_path):
    """A path that is not a component directory exits 2 with a message."""
    result = run("components", "validate", tmp_path / "nowhere")
    assert result.exit_code == 2 and "does not exist" in result.output
    no_traceback(result)


@pytest.mark.parametrize("what", ["cards", "colonies", "setup", "board"])
def test_components_show(what):
    """`components show` prints each table."""
    result = run("components", "show", "--what", what)
    assert result.exit_code == 0, result.output


def test_components_show_filters_and_errors():
    """`components show` filters by epoch and colour and refuses unknown colours and tables."""
    result = run("components", "show", "--epoch", 2, "--colour", "green")
    assert result.exit_code == 0
    rows = [line for line in result.output.splitlines() if "-G-" in line or "-Y-" in line]
    assert len(rows) == 10 and all("II-G-" in line for line in rows)
    assert run("components", "show", "--colour", "pink").exit_code == 2
    assert run("components", "show", "--what", "nothing").exit_code == 2
    # the setup cards were printed whole under --epoch 2, as if filtered
    result = run("components", "show", "--what", "setup", "--epoch", 2)
    assert result.exit_code == 2 and "--epoch filters the cards; --what setup has no epochs" in result.output


def test_components_show_reads_a_colour_and_a_table_whatever_their_case():
    """--colour Purple was an unknown colour and --what Cards an unknown table, where --format JSON is read."""
    lower = run("components", "show", "--epoch", 1, "--colour", "purple", "--format", "json")
    assert lower.exit_code == 0, lower.output
    for colour, what in (("Purple", "cards"), ("PURPLE", "Cards")):
        result = run("components", "show", "--epoch", 1, "--colour", colour, "--what", what, "--format", "json")
        assert result.exit_code == 0, result.output
        assert result.output == lower.output
    assert run("components", "show", "--what", "Board").exit_code == 0
    pink = run("components", "show", "--colour", "Pink")
    assert pink.exit_code == 2 and "--colour: unknown colour 'Pink'; choose one of yellow" in pink.output


# --- a seat for a person ----------------------------------------------------------------------

def test_a_human_seat_driven_through_a_pipe_plays_a_whole_legal_game(tmp_path, components):
    """Seat 0 answers 'the first option' (and once each of v, h and a wrong answer) at every
    decision: the game ends with the score pad, and its trace replays."""
    answers = "v\nh\nnonsense\n" + "1\n" * 400
    result = runner.invoke(app, ["play", "-p", 3, "--seed", 4, "--policy", "human,greedy,balanced", "--trace",
                                 tmp_path / "t.jsonl"], input=answers, env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output[-2000:]
    assert "Final score" in result.output and "Winner: seat" in result.output
    assert "seat 0 (human)" in result.output and "your choice (1-" in result.output
    assert "'nonsense' is not an option" in result.output and "q   leave the game" in result.output
    records = read_trace(tmp_path / "t.jsonl")  # every choice the person made was legal: it replays
    assert replay(records, components) == records[-1]["sheet"]


def test_a_human_seat_can_leave_and_an_ended_input_is_one_line():
    left = runner.invoke(app, ["play", "-p", 2, "--policy", "human,greedy"], input="q\n", env={"COLUMNS": "200"})
    assert left.exit_code == 0 and "you left the game" in left.output
    ended = runner.invoke(app, ["play", "-p", 2, "--policy", "human,greedy"], input="1\n", env={"COLUMNS": "200"})
    assert ended.exit_code == 1 and "the input ended before the game did" in ended.output
    alone = runner.invoke(app, ["play", "-p", 2, "--policy", "human"], env={"COLUMNS": "200"})
    assert alone.exit_code == 2 and "--policy human,greedy" in alone.output


@pytest.mark.parametrize("args", [["verify", "-p", "2", "-p", "7"], ["policies", "ladder", "-p", "7"],
                                  ["policies", "sides", "-p", "7"], ["policies", "tune", "greedy", "-p", "7"]])
def test_a_player_count_out_of_range_is_refused_by_its_option(args):
    """verify said '--players must be 2..5, got [2, 7]' and the policies commands '--players must be 2..5'
    (which one?), each from its body after loading the component set; now typer's range names the value."""
    result = run(*args)
    assert result.exit_code == 2
    assert "Invalid value for '--players' / '-p': 7 is not in the range 2<=x<=5" in result.output


def test_verify_plays_a_player_count_given_twice_once():
    """`verify -n 2 -p 2 -p 2` played the same games twice and said '4 of 4 games agree (2, 2 players)'."""
    result = run("verify", "-n", 2, "-p", 2, "-p", 2, "--basic", "--jobs", 1, "-q")
    assert result.exit_code == 0, result.output
    assert "2 of 2 games agree (2 players; basic)" in result.output


def test_a_full_disk_or_a_closed_stdout_is_said_plainly_not_reported_as_our_defect():
    """`> /dev/full` was "unexpected OSError ... please report it", `>&-` "unexpected AttributeError:
    'NoneType' object has no attribute 'isatty'"."""
    import subprocess
    import sys

    command = [sys.executable, "-c", "from hadara_sim.cli import main; main()", "policies", "list"]
    with open("/dev/full", "w") as full:
        done = subprocess.run(command, stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
    assert done.returncode == 1 and done.stderr.startswith("error: cannot write: No space left on device"), done.stderr
    closed = subprocess.run(["sh", "-c", '"$@" >&-', "sh", *command], capture_output=True, text=True, timeout=120)
    assert closed.returncode == 0 and closed.stderr == "", closed.stderr


def test_a_missing_scenario_or_results_directory_says_what_to_give(tmp_path, monkeypatch):
    """`simulate`, `report ...` and `show-game` without their argument said only "Missing argument": they
    name the shipped scenarios, and the runs in results/ (or how to write one)."""
    import hadara_sim

    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    told = runner.invoke(app, ["simulate"])
    assert told.exit_code == 2 and "give a scenario" in told.output and "setup-cards" in told.output
    told = runner.invoke(app, ["report", "setup-cards"])
    assert told.exit_code == 2 and "none in results/ yet; write one with" in told.output
    hadara_sim.simulate({"players": 2, "policies": ["greedy"], "games": 4, "chunk": 4}, out=tmp_path / "results" / "mine",
                        jobs=1)
    for command in (["report", "winrate"], ["show-game", "--game", "1"]):
        told = runner.invoke(app, command)
        assert told.exit_code == 2 and "results/ holds 1 run (results/mine)" in " ".join(told.output.split()), command

"""Every command line written in README.md and docs/*.md runs: a newcomer who copies one gets a
result, not an error. Placeholders (NAME, PATH, RESULTS, `<...>`, `[...]`) are not runnable and are
left out; game counts are capped so the suite stays fast (the command is otherwise as written). A line
that parses to the command and values of one before it (the same example on two pages, options in
another order) runs once."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest
import typer.main
from typer.testing import CliRunner

from hadara_sim.cli import app

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
PLACEHOLDER = re.compile(r"\b[A-Z]{1,}\b|[<\[]|\\\||\.\.\.")
# Option -> the most a test may ask for (whatever the docs say) and what to add when it is absent.
CAPS = {"simulate": {"--games": 24}, "verify": {"--games": 8}, "ladder": {"--games": 10, "--players": 2},
        "bench": {"--players": 2, "--batch": 8, "--reference-games": 1}, "sensitivity": {"--games": 300, "--draws": 2},
        "fit": {"--games": 100, "--points": 12, "--confirm-games": 200, "--rounds": 1}}
ALIASES = {"-n": "--games", "-p": "--players", "-b": "--batch", "-k": "--draws"}
MENTIONS = {"hadara-sim simulate", "hadara-sim report", "hadara-sim report curve", "hadara-sim balance suggest",
            "hadara-sim policies tune", "hadara-sim report seats"}  # names of commands in prose, not command lines


def documented_commands() -> list[tuple[str, str]]:
    """(file, command line) for every `hadara-sim ...` in a code block or inline code span."""
    found = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        candidates = re.findall(r"^\s*(hadara-sim [^\n`]*)$", "\n".join(re.findall(r"```[a-z]*\n(.*?)```", text, re.S)),
                                re.M)
        candidates += re.findall(r"`(hadara-sim [^`]*)`", text)
        for line in candidates:
            line = line.split(" #")[0].split(" > ")[0].strip()
            if PLACEHOLDER.search(line.replace("hadara-sim", "")) or line in MENTIONS:
                continue
            if (doc.name, line) not in found:
                found.append((doc.relative_to(ROOT).as_posix(), line))
    return found


def capped(args: list[str]) -> list[str]:
    """The command with its game counts capped (see CAPS)."""
    caps = next((c for name, c in CAPS.items() if name in args[:2]), {})
    out, i = [], 0
    while i < len(args):
        option = ALIASES.get(args[i], args[i])
        if option in caps and i + 1 < len(args):
            out += [option, str(min(int(args[i + 1]), caps[option]))]
            i += 2
            continue
        out.append(args[i])
        i += 1
    for option, value in caps.items():
        if option not in out:
            out += [option, str(value)]
    return out


def parsed(args: list[str]) -> tuple:
    """What the command line asks for: the command's path and its parameters' values as click parses
    them (the line itself when it does not parse: it then runs, and fails, on its own)."""
    command, rest, path = typer.main.get_command(app), list(args), []
    while getattr(command, "commands", None) and rest and rest[0] in command.commands:
        path.append(rest[0])
        command = command.commands[rest.pop(0)]
    if not path:  # the root's own options (--version) act as they are parsed
        return tuple(args)
    try:
        values = command.make_context(" ".join(path), rest, resilient_parsing=True).params
    except Exception:  # noqa: BLE001 - any failure to parse: the line runs as written
        return tuple(args)
    return tuple(path), tuple(sorted((name, repr(value)) for name, value in values.items()))


COMMANDS = documented_commands()
# Simulations first: the report and show-game examples read the datasets they write.
COMMANDS.sort(key=lambda fc: not fc[1].startswith("hadara-sim simulate"))
RUNS = []
for doc, line in COMMANDS:
    if parsed(capped(shlex.split(line)[1:])) not in {parsed(capped(shlex.split(ran)[1:])) for _, ran in RUNS}:
        RUNS.append((doc, line))


def test_the_docs_have_commands():
    lines = [line for _, line in COMMANDS]
    assert len(lines) >= 15
    assert "hadara-sim play -p 2 --policy docs/examples/plunderer.py:Plunderer --policy greedy" in lines


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    """A working directory laid out like a clone (scenarios, docs examples), empty results."""
    root = tmp_path_factory.mktemp("clone")
    shutil.copytree(ROOT / "scenarios", root / "scenarios")
    shutil.copytree(ROOT / "docs", root / "docs")
    shutil.copytree(ROOT / "hadara_sim" / "data" / "default", root / "my-components")
    return root


@pytest.mark.parametrize("doc,line", RUNS, ids=[line[11:60] for _, line in RUNS])
def test_documented_command_runs(doc, line, clone, monkeypatch):
    monkeypatch.chdir(clone)
    args = capped(shlex.split(line)[1:])
    answers = "1\n" * 400 if "human" in " ".join(args) else None  # a person who always takes the first option
    result = CliRunner().invoke(app, args, input=answers, env={"COLUMNS": "120"})
    assert result.exit_code == 0, f"{doc}: `{line}` -> {' '.join(args)}\n{result.output}"
    assert "Traceback" not in result.output


def test_the_validation_example_is_what_simulate_says(tmp_path, monkeypatch):
    """docs/scenarios.md shows simulate's answer to a scenario with three mistakes; it had fallen behind
    (no "did you mean", four policies fewer). A file with those mistakes on those lines gets that answer."""
    shown = re.search(r"```\n(error: the scenario is not valid.*?)```", (ROOT / "docs" / "scenarios.md").read_text(
        encoding="utf-8"), re.S).group(1)
    (tmp_path / "scenarios").mkdir()
    (tmp_path / "scenarios" / "mine.toml").write_text('name = "mine"\ngames = 100\nplayers = 6\n\npolicies = ["greedy", '
                                                      '"gredy"]\n\n[setup]\ncards = "random"\nsidez = "random"\n')
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["simulate", "scenarios/mine.toml"], env={"COLUMNS": "1000"})
    assert result.exit_code == 2 and result.output.splitlines() == shown.splitlines(), result.output


def test_docs_links_resolve():
    """Relative links in README and docs point to files that exist in a clone."""
    for doc in DOCS:
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", doc.read_text(encoding="utf-8")):
            assert (doc.parent / target).exists(), f"{doc.name} links to {target}, which is not in the repository"
        assert "../shared" not in doc.read_text(encoding="utf-8"), f"{doc.name} points outside the repository"



def test_readme_names_every_shipped_scenario():
    """README's list of the scenarios shipped in scenarios/ left out card-grants.toml and 3b-culture-coins.toml."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    listed = text[text.index("Scenarios shipped in `scenarios/`:"):].split("\n## ")[0]
    missing = [p.name for p in sorted((ROOT / "scenarios").glob("*.toml")) if f"`{p.name}`" not in listed]
    assert not missing, f"README's list of shipped scenarios leaves out {missing}"


def test_the_python_reading_example_measures_the_seat_each_card_was_granted_to(tmp_path, monkeypatch):
    """docs/results.md's example as written, on tiny runs of default and of purple-effects: its gain in
    total is the granted seat's over the same seat in the control, as `grant_effects` measures it. (It
    took seat 0, which holds the grant in a third of the games: +5.5 where the grant is worth +18.6.)"""
    from hadara_sim import load_results, load_scenario, simulate
    from hadara_sim.report.grants import grant_effects

    monkeypatch.chdir(tmp_path)
    simulate("default", games=12, out="results/default", quiet=True)
    grants = load_scenario("purple-effects", settings=['sweep.grants=["none", "sell_bonus", "II-P-10"]'])
    simulate(grants, games=30, out="results/purple-effects", quiet=True)
    block = re.search(r"```python\n(import polars as pl\nimport hadara_sim\n.*?)```",
                      (ROOT / "docs" / "results.md").read_text(encoding="utf-8"), re.S).group(1)
    statements, last = block.rsplit("\n(", 1)  # the example ends with one expression: the gains
    names: dict = {}
    exec(statements, names)  # noqa: S102 (the docs' own text)
    gains = eval("(" + last, names)  # noqa: S307
    measured = dict(zip(gains["sweep_grants"].to_list(), gains["gain"].to_list()))
    assert set(measured) == {"sell_bonus", "II-P-10"} and gains["n"].to_list() == [30, 30]
    for row in grant_effects(load_results("results/purple-effects")).to_dicts():
        assert measured[row["grant"]] == pytest.approx(row["score_diff"])

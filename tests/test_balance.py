"""`balance suggest`: equivalence verdicts per setup card side, the values swept towards fair, and a
tiny end-to-end suggestion."""

import math
import shlex

import numpy as np
import pytest
import polars as pl
from typer.testing import CliRunner

from hadara_sim.balance import Plan, fix_overrides, sides_fairness, suggest, swept_values
from hadara_sim.cli import app
from hadara_sim.components import ComponentError


def sides_data(deals=4000, strong=0.35, seed=0) -> pl.DataFrame:
    """2-player deals: card 1A (win share `strong`) against 2A."""
    rng = np.random.default_rng(seed)
    wins = (rng.random(deals) < strong).astype(float)
    return pl.DataFrame({"game": np.repeat(np.arange(deals), 2), "players": 2,
                         "setup_card": np.tile([1, 2], deals), "setup_side": "A",
                         "win_share": np.column_stack([wins, 1 - wins]).ravel()})


def test_unfair_side_flagged_and_fair_side_passes():
    sides = sides_fairness(sides_data(strong=0.35), margin=0.03)
    assert [(s.name, s.judged.equivalent) for s in sides] == [("1A", False), ("2A", False)]
    assert sides[0].low < 0.35 < sides[0].high and sides[0].judged.n == 4000
    fair = sides_fairness(sides_data(strong=0.5), margin=0.03)
    assert all(s.judged.equivalent and s.judged.equiv_p < 0.05 for s in fair)


def test_values_swept_towards_fair_within_range():
    assert swept_values("coins", 12, too_strong=True) == [6, 8, 10, 12]
    assert swept_values("coins", 2, too_strong=True) == [0, 2]
    assert swept_values("culture", 4, too_strong=False) == [4, 5, 6, 7]
    assert swept_values("food", 0, too_strong=True) == [0]


def test_tiny_suggestion_end_to_end(tmp_path):
    plan = Plan(players=2, games=60, curve_games=40, margin=0.05, jobs=1, only=["5B"])
    sides, [s] = suggest(plan)
    assert len(sides) == 10 and s.side.name == "5B"
    assert [c.field for c in s.candidates] == ["coins", "income", "military", "culture", "food"]
    assert s.candidates[0].current == 12 and (12 in s.candidates[0].swept)
    assert fix_overrides([s]) == ({"setup": {"5B": {s.best.field: s.best.value}}} if s.best else {})
    first = tmp_path / "first.toml"  # an earlier suggestion, refined by this one: its fix stays in the new file
    first.write_text('[components.setup."3B"]\nfood = 2\n')
    result = CliRunner().invoke(app, ["balance", "suggest", "-p", "2", "-n", "60", "--curve-games", "30",
                                      "--side", "1A", "--jobs", "1", "--overrides", str(first), "--out", str(tmp_path)],
                                env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    fix = (tmp_path / "fix.toml").read_text()
    assert "1A" in result.output and '[components.setup."3B"]\nfood = 2\n' in fix
    assert "took" in result.stderr and "\x1b" not in result.stderr  # piped: lines, no spinner
    # the command ends with --out, as balance fit's: without it, it wrote no fix.toml
    assert fix.startswith("# hadara-sim balance suggest --players 2 ")
    assert f"--side 1A --overrides {first} --out {tmp_path}\n" in fix
    named = shlex.split(fix.splitlines()[0].removeprefix("# "))
    assert named[-2:] == ["--out", str(tmp_path)]
    (tmp_path / "fix.toml").unlink()
    again = CliRunner().invoke(app, [*named[1:], "--jobs", "1", "-q"])
    assert again.exit_code == 0 and (tmp_path / "fix.toml").read_text() == fix, again.output
    quiet = CliRunner().invoke(app, ["balance", "suggest", "-p", "2", "-n", "60", "--curve-games", "30",
                                     "--side", "1A", "--jobs", "1", "-q", "--format", "csv"])
    assert quiet.exit_code == 0 and quiet.stderr == "" and quiet.stdout.startswith("table,"), quiet.output
    bad = CliRunner().invoke(app, ["balance", "suggest", "--side", "6C"])
    assert bad.exit_code == 2 and "expected a card and side" in bad.output
    twice = CliRunner().invoke(app, ["balance", "suggest", "--side", "3B", "--side", "3b", "--dry-run"])
    assert twice.exit_code == 0 and "for 1 side (3B)" in twice.output, twice.output  # was '2 sides (3B, 3B)'


def test_the_check_a_suggestion_names_plays_the_fix_it_wrote(tmp_path):
    """An undecided suggestion said "confirm with `balance check`": the set without the change, at 4
    players whatever the suggestion's count. It names the check of the fix.toml written, run here."""
    import shlex

    from hadara_sim.cli.balance import check_command

    (tmp_path / "fix.toml").write_text('# hadara-sim balance suggest --players 2\n[components.setup."5B"]\nmilitary = 3\n')
    command = check_command(2, "balanced", 5.0, 1, None, tmp_path)
    assert command.startswith("hadara-sim balance check --players 2 --policy balanced --margin 5 --seed 2 ")
    result = CliRunner().invoke(app, [*shlex.split(command)[1:], "-n", "20", "--jobs", "1", "-q"], env={"COLUMNS": "200"})
    assert result.exit_code == 0 and "at 2 players" in result.output and "with 5B military 3" in result.output, result.output
    assert check_command(4, "balanced", 2.0, 1, None, None).endswith("--overrides FILE")


def test_the_check_a_suggestion_names_is_the_program_as_started(tmp_path, monkeypatch):
    """After `make demo` nothing is on PATH: the check to confirm a suggestion named plain `hadara-sim`,
    which the shell did not find; it names the program as started, as the other printed hints do."""
    import shlex
    import sys

    from hadara_sim.cli.balance import check_command

    script = tmp_path / ".venv" / "bin" / "hadara-sim"
    script.parent.mkdir(parents=True)
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", [str(script), "balance", "suggest"])
    monkeypatch.setenv("PATH", "/usr/bin")
    assert shlex.split(check_command(2, "balanced", 2.0, 1, None, tmp_path))[:3] == [".venv/bin/hadara-sim", "balance",
                                                                                   "check"]


def test_check_plays_the_overrides_and_refuses_bad_ones_with_file_line_and_key(tmp_path):
    from hadara_sim.balance import read_overrides

    good = tmp_path / "fix.toml"
    good.write_text('# a fix\n[components.setup."5B"]\nmilitary = 3\n')
    assert read_overrides(good) == {"setup": {"5B": {"military": 3}}}
    notepad = tmp_path / "notepad.toml"  # a byte order mark and Windows line ends
    notepad.write_bytes(b'\xef\xbb\xbf[components.setup."5B"]\r\nmilitary = 3\r\n')
    assert read_overrides(notepad) == {"setup": {"5B": {"military": 3}}}
    scenario_keys = tmp_path / "scenario-keys.toml"  # said 'expected only [components.*] tables', no line or key
    scenario_keys.write_text('[components.setup."5B"]\nmilitary = 3\n[setup]\nsides = "B"\n')
    with pytest.raises(ComponentError, match=r"scenario-keys.toml:3: setup: not an override: an overrides file holds "
                                             r"only \[components.\*\] tables"):
        read_overrides(scenario_keys)
    a_path = tmp_path / "a-path.toml"
    a_path.write_text('# the set\ncomponents = "../my-set"\n')
    with pytest.raises(ComponentError, match="a-path.toml:2: components: .* chosen with --components"):
        read_overrides(a_path)
    bad = tmp_path / "bad.toml"
    bad.write_text('[components.setup."5B"]\nmilitary = 3\nculture = 30\n')
    result = CliRunner().invoke(app, ["balance", "check", "--overrides", str(bad)], env={"COLUMNS": "300"})
    assert result.exit_code == 2 and f"{bad}:3: components.setup.5B.culture: 30 is out of range" in result.output
    result = CliRunner().invoke(app, ["balance", "check", "-p", "2", "-n", "20", "--jobs", "1",
                                      "--overrides", str(good)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "with 5B military 3" in result.output and "{" not in result.output and "TOST p" in result.output


def test_overrides_that_are_a_folder_or_no_file_are_told_in_one_line_naming_the_option(tmp_path):
    """`balance check --overrides /tmp` said "cannot be read: [Errno 21] Is a directory"."""
    from hadara_sim.balance import read_overrides
    from test_hardening import clean_failure

    for args, words in [
        ([tmp_path], f"--overrides {tmp_path}: is a folder, not an overrides file: give a TOML file of [components.*] "
                     "overrides (such as the fix.toml `balance suggest --out` writes)"),
        ([tmp_path / "nowhere.toml"], f"--overrides {tmp_path / 'nowhere.toml'}: no such file: give the path of a TOML"),
    ]:
        result = CliRunner().invoke(app, ["balance", "check", "--overrides", *map(str, args)], env={"COLUMNS": "300"})
        clean_failure(result, 2, words)
        assert "Errno" not in result.output and len(result.output.strip().splitlines()) == 1
    (tmp_path / "fix.toml").write_text('[components.setup."5B"]\nmilitary = 3\n')
    with pytest.raises(ComponentError, match=f"is a folder, not an overrides file: .*, e.g. {tmp_path / 'fix.toml'}"):
        read_overrides(tmp_path)


def test_an_undecided_side_says_how_many_more_deals_and_the_verdicts_name_their_scope():
    few = sides_fairness(sides_data(deals=300, strong=0.5, seed=1), margin=0.05)
    v = few[0].judged
    assert v.words == "undecided" and v.more > 0
    # the hint is stated in deals holding the side and in --games of the run (each deal holds a side
    # with its own chance)
    games = few[0].games
    assert v.text(games) == f"undecided, about {v.more:,.0f} more deals (--games {games + math.ceil(v.more * games / v.n)})"
    result = CliRunner().invoke(app, ["balance", "check", "-p", "2", "-n", "20", "--jobs", "1"],
                                env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "NO" not in text.split() and "verdict vs 1/P" in text
    assert "hold for the policy field played (balanced on every seat)" in text and "are estimates" in text


def test_the_margin_is_in_percentage_points_and_the_old_fraction_is_refused_with_a_hint():
    for command in (["balance", "check"], ["report", "winrate", "."]):
        result = CliRunner().invoke(app, [*command, "--margin", "0.02"], env={"COLUMNS": "200"})
        assert result.exit_code == 2 and "--margin 2" in result.output and "percentage points" in result.output


def test_an_unknown_policy_is_named_as_the_option_not_as_a_key_of_the_runs_scenario():
    from typer.testing import CliRunner

    from hadara_sim.cli import app

    for command in (["check"], ["suggest"], ["sensitivity"], ["fit", "--card", "II-Y-05"]):
        result = CliRunner().invoke(app, ["balance", *command, "--policy", "balancd", "--dry-run"])
        assert result.exit_code != 0 and "--policy balancd: unknown policy 'balancd' (did you mean balanced?)" in \
            result.output, (command, result.output)
        assert "<scenario>" not in result.output and "Traceback" not in result.output


def test_a_curve_that_finds_the_current_value_fair_proposes_and_writes_no_change(tmp_path, monkeypatch):
    """A side's culture planted fair at exactly its current 3: the cheapest "fair" candidate was the value
    as it is, proposed as "culture 3 → 3" and written into fix.toml. Nothing is proposed or written; the
    output says why."""
    import hadara_sim.balance as balance
    from hadara_sim.balance import Candidate, Suggestion, candidate
    from hadara_sim.report.curve import curve
    from hadara_sim.report.verdict import of_fit

    from test_report_curve import KEY, planted

    kept = candidate("culture", 3, [3, 4, 5, 6], curve(planted(deals=1500, values=(3, 4, 5, 6)), KEY), 0.02, 1500)
    assert kept.value == 3 and kept.fair and not kept.changes and kept.note.startswith("nothing to change")
    side = sides_fairness(sides_data(strong=0.35), margin=0.03)[0]
    closest = Candidate("coins", 12, [12, 10], None, value=12, win=0.40, low=0.37, high=0.43,
                        judged=of_fit(0.40, 0.37, 0.43, 0.25, 0.02))  # not fair, and the value as it is
    s = Suggestion(side, [kept, closest], 0.0)
    assert s.best is None and s.as_is is kept and fix_overrides([s]) == {}
    monkeypatch.setattr(balance, "suggest", lambda plan, progress=None: ([side], [s]))
    from hadara_sim.cli.common import err_console
    monkeypatch.setattr(err_console, "width", 40)  # a narrow terminal: the path is still on one line
    result = CliRunner().invoke(app, ["balance", "suggest", "-p", "2", "-n", "60", "--curve-games", "30", "--jobs", "1",
                                      "--out", str(tmp_path), "-q"], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    assert "3 → 3" not in text and "none: fair as it is" in text
    assert "12 → 12" not in text and "none: the closest is as it is" in text
    assert "1A: nothing to change, so nothing proposed: the curve of culture finds 3, the current value, fair" in text
    assert "No change to propose: the curves find 1A fair as it is." in text
    assert not (tmp_path / "fix.toml").exists() and f"no fix.toml written to {tmp_path}" in result.stderr
    machine = CliRunner().invoke(app, ["balance", "suggest", "-p", "2", "-n", "60", "--curve-games", "30", "--jobs", "1",
                                       "-q", "--format", "csv"])
    rows = pl.read_csv(machine.stdout.encode()).filter(pl.col("value") == "culture")
    assert rows["proposed"].is_nan().all() and rows["status"].to_list() == ["fair as it is"]


def test_a_pair_changes_only_what_it_moves_and_the_current_pair_is_no_proposal():
    """The cheapest fair pair of a surface can be the pair as it is (no change), or keep one of its two
    values: neither an unchanged pair nor its unchanged half goes into fix.toml."""
    from hadara_sim.balance import Candidate, Pair, Suggestion, pair_candidate, pair_changes
    from hadara_sim.report.surface import surface

    from test_report_surface import KEY1, KEY2, planted as planted_surface

    s = surface(planted_surface(), KEY1, KEY2, margin=0.04)
    fair = s.fair_pairs.row(0, named=True)
    now = Candidate("culture", int(fair["value1"]), [2, 3, 4, 5], None), Candidate("coins", int(fair["value2"]), [3, 4, 5, 6], None)
    pair = pair_candidate(*now, s, 0.04)
    assert pair.value is None and "fair as they are: nothing to change" in pair.note
    half = Pair(("culture", "coins"), (5, 6), ([5, 4], [6, 4]), value=(5, 4))
    assert pair_changes(half) == {"coins": 4}
    side = sides_fairness(sides_data(strong=0.35), margin=0.03)[0]
    assert fix_overrides([Suggestion(side, [], 0.0, pair=half)]) == {"setup": {"1A": {"coins": 4}}}

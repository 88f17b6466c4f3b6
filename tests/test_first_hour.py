"""What a newcomer meets in the first hour: a plugin written against the built-ins' old import
path is told the new one, a mistyped name gets a "did you mean", and `simulate` changes the player
count or any scenario value from the command line, checked like the file."""

import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hadara_sim.cli import app
from hadara_sim.registry import PolicyNotFound, make_policy

runner = CliRunner()


def test_a_plugin_on_the_old_import_path_is_told_the_new_one(tmp_path, monkeypatch):
    """`from policies.styles import Balanced` (as earlier docs showed) stops with its file, line and
    the line as it should read, not a ModuleNotFoundError."""
    root = Path(__file__).resolve().parent.parent  # `python -m pytest` there finds its folder policies/
    monkeypatch.setattr(sys, "path", [p for p in sys.path if Path(p or ".").resolve() != root])
    for name in [m for m in sys.modules if m == "policies" or m.startswith("policies.")]:
        monkeypatch.delitem(sys.modules, name)
    plugin = tmp_path / "mine.py"
    plugin.write_text('"""My bot."""\nfrom policies.styles import Balanced\n\n\nclass Mine(Balanced):\n    name = "mine"\n')
    with pytest.raises(PolicyNotFound) as err:
        make_policy(f"{plugin}:Mine")
    assert (f"{plugin}, line 2: `from policies.styles import Balanced` should read "
            "`from hadara_sim.policies.styles import Balanced`") in str(err.value)
    result = runner.invoke(app, ["play", "-p", "2", "--policy", f"{plugin}:Mine,greedy"], env={"COLUMNS": "300"})
    assert result.exit_code == 2 and "from hadara_sim.policies.styles import Balanced" in result.output
    plugin.write_text("from hadara_sim.policies.styles import Balanced\n\n\nclass Mine(Balanced):\n    name = 'mine'\n")
    assert make_policy(f"{plugin}:Mine").name == "mine"


def test_a_mistyped_policy_gets_a_did_you_mean():
    with pytest.raises(PolicyNotFound, match=r"unknown policy 'ballanced' \(did you mean balanced\?\)"):
        make_policy("ballanced")

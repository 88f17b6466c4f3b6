"""The learned position value search's depth-limited copies stop at: its fit and its file."""

import os

import numpy as np
import pytest

from hadara_sim import load_components, make_deals
from hadara_sim.engine.game import BatchGame
from hadara_sim.policies.value import FEATURES, STOPS, VALUE_FILE, position_features, read_value
from hadara_sim.registry import make_policy
from hadara_sim.value_fit import fit_value, margins, value_toml


@pytest.fixture(scope="module")
def components():
    return load_components()


@pytest.fixture(scope="module")
def fitted(components):
    return fit_value(components, make_policy("balanced"), (2,), 300, 200, seed=4, say=lambda _: None)


def test_features_read_each_seats_board(components):
    """A seat's features are its score pad's lines, tracks, coins, cards per colour, effects and tiles."""
    deals = make_deals(components, 3, 4, seed=2, advanced=True)
    game = BatchGame(deals, components, [make_policy("balanced")] * 3, last_epoch=1)
    sheet = game.play()
    f = position_features(game.s)
    assert f.shape == (4, 3, len(FEATURES))
    at = {name: f[:, :, i] for i, name in enumerate(FEATURES)}
    assert np.array_equal(sum(at[f"{line}_points"] for line in ("colonies", "statues", "silver", "gold", "cards",
                                                                "coins")), sheet["total"])
    assert np.array_equal(at["coins_held"], game.s.coins)
    assert np.array_equal(at["culture"], game.s.tracks[:, :, 2])
    assert np.array_equal(sum(at[f"{c}_cards"] for c in ("yellow", "red", "blue", "green", "purple")),
                          game.s.colour_count.sum(axis=2))


def test_the_fit_predicts_fresh_games_and_is_deterministic(components, fitted):
    value, quality = fitted
    again, _ = fit_value(components, make_policy("balanced"), (2,), 300, 200, seed=4, say=lambda _: None)
    for key in value.coefficients:
        assert np.array_equal(value.coefficients[key], again.coefficients[key])
    # later boards say more of the end; both say more than chance (a margin uncorrelated, the winner a coin toss)
    assert quality[(2, 2)].margin_correlation > quality[(2, 1)].margin_correlation > 0.2
    assert quality[(2, 2)].winner > 0.6


def test_the_value_file_round_trips(components, fitted, tmp_path):
    value, quality = fitted
    path = tmp_path / "value.toml"
    path.write_text(value_toml(value, quality, "python scripts/fit_value.py --out value.toml"), encoding="utf-8")
    back = read_value(path)
    assert (back.components, back.field) == (components.base_digest, "balanced")
    for key, row in value.coefficients.items():
        assert np.allclose(back.coefficients[key], row, rtol=1e-5, atol=1e-4)
    deals = make_deals(components, 2, 5, seed=3, advanced=True)
    game = BatchGame(deals, components, [make_policy("balanced")] * 2, last_epoch=2)
    game.play()
    assert np.allclose(back.totals(game.s, 2), value.totals(game.s, 2), atol=1e-2)
    with pytest.raises(ValueError, match=r"no fit for 2 players after epoch 2.*fit_value.py -p 2 --out FILE"):
        type(back)(back.path, back.components, back.field, {(3, 2): row}).totals(game.s, 2)


def test_the_shipped_value_holds_for_the_shipped_set_at_every_count(components):
    value = read_value(VALUE_FILE)
    value.check(components)
    assert sorted(value.coefficients) == [(p, e) for p in range(2, 6) for e in STOPS]


def test_margins_are_own_total_less_the_best_other():
    assert margins(np.array([[10.0, 7.0, 12.0]])).tolist() == [[-2.0, -5.0, 2.0]]


@pytest.mark.parametrize("edit, message", [
    (lambda t: t.replace('"coins_held"', '"coins"'), "made for features .* but search reads"),
    (lambda t: t.replace("[coefficients]", "[coefficient]"), "no \\[coefficients\\] table"),
    (lambda t: t.replace('field = "balanced"', ""), "field field is missing"),
    (lambda t: t.replace("p2 = [", "p2 = [[1.0],", 1), "p2 must be 2 rows"),
    (lambda t: t.replace("    [", "    [1e9, ", 1), "p2 epoch 1 must be 19 numbers"),
    (lambda t: "features = [", "not a TOML file"),
    (lambda t: "x = 1\n", "no `features` in it: not a position value file"),
])
def test_a_value_file_that_does_not_fit_stops_with_a_clear_message(fitted, tmp_path, edit, message):
    value, quality = fitted
    text = edit(value_toml(value, quality, "c"))
    path = tmp_path / "value.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        read_value(path)


def test_an_intercept_out_of_range_is_refused(fitted, tmp_path):
    value, quality = fitted
    lines = value_toml(value, quality, "c").splitlines()
    row = next(i for i, line in enumerate(lines) if line.startswith("    ["))
    lines[row] = "    [1e9" + lines[row][lines[row].index(","):]
    path = tmp_path / "value.toml"
    path.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(ValueError, match=r"coefficients.p2 epoch 1: every coefficient must be finite and within"):
        read_value(path)


def test_a_value_of_another_component_set_is_refused(components, fitted):
    value, _ = fitted
    other = type(value)(value.path, "0123456789abcdef", value.field, value.coefficients)
    with pytest.raises(ValueError, match="fitted on the component set 0123456789abcdef.*fit one for it"):
        other.check(components)
    with pytest.raises(ValueError, match="cannot read it"):
        read_value("no/such/value.toml")


def test_the_fit_script_writes_a_file_search_reads_and_names_bad_input(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).parent.parent / "scripts" / "fit_value.py"
    out = tmp_path / "new" / "folder" / "v.toml"  # its folders made at the end
    run = subprocess.run([sys.executable, str(script), "--out", str(out), "-p", "2", "--games", "40", "--holdout", "20",
                          "--field", "balanced", "--seed", "3", "-q"], capture_output=True, text=True)
    assert run.returncode == 0 and out.exists(), run.stderr
    value = read_value(out)
    assert value.field == "balanced" and sorted(value.coefficients) == [(2, 1), (2, 2)]
    assert 'command = "python scripts/fit_value.py --out' in out.read_text(encoding="utf-8")
    bad = subprocess.run([sys.executable, str(script), "--out", str(out), "--set", "nosuch=1", "--field", "balanced"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "policy 'balanced' has no parameter nosuch" in bad.stderr


@pytest.mark.parametrize("script", ["fit_value.py", "train_expert.py"])
def test_a_training_script_refuses_an_out_it_cannot_write_before_any_work(tmp_path, script):
    """A folder, or a path under a file, stops at once with a line naming --out (the weights of a long
    run were lost to a traceback at its end before)."""
    import subprocess
    import sys
    from pathlib import Path

    path = Path(__file__).parent.parent / "scripts" / script
    (tmp_path / "file").write_text("x")
    for out, says in ((tmp_path, "is a folder, not a file"), (tmp_path / "file" / "w.toml", "is a file, not a folder")):
        run = subprocess.run([sys.executable, str(path), "--out", str(out), "-p", "2", "-q"], capture_output=True,
                             text=True, timeout=120)
        assert run.returncode == 2 and "--out" in run.stderr and says in run.stderr, run.stderr
        assert "Traceback" not in run.stderr


@pytest.mark.parametrize("script", ["fit_value.py", "train_expert.py"])
def test_a_training_script_refuses_a_command_its_file_cannot_hold_before_any_work(tmp_path, script):
    """An --out (or any argument) with a byte that is no UTF-8 (a lone surrogate in Python) stopped the writing of
    the file, whose `command` records them, after the whole fit or training."""
    import subprocess
    import sys
    from pathlib import Path

    path = Path(__file__).parent.parent / "scripts" / script
    out = os.fsencode(tmp_path) + b"/w-\xff.toml"
    run = subprocess.run([sys.executable, str(path), "--out", out, "-p", "2", "--components", "no/such/set", "-q"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2, run.stderr
    assert "cannot record the command in it" in run.stderr and "U+DCFF" in run.stderr, run.stderr
    assert "Traceback" not in run.stderr and not list(tmp_path.iterdir())


def test_the_value_hints_name_the_fit_as_it_runs_here_or_in_a_checkout(components, fitted, tmp_path, monkeypatch):
    """The hints said `python scripts/fit_value.py -p 2` and `fit it again with python scripts/fit_value.py`,
    without the --out the script requires; one for another component set fitted with the shipped
    expert's weights, refused on that set; and each named scripts/, which an installed package has not."""
    from pathlib import Path

    from hadara_sim.policies import value as module

    from helpers import hinted_script_parses

    root = Path(__file__).resolve().parents[1]
    value, quality = fitted
    other = type(value)(value.path, "0123456789abcdef", value.field, value.coefficients)
    stale = tmp_path / "stale.toml"
    stale.write_text(value_toml(value, quality, "c").replace('"coins_held"', '"coins"'), encoding="utf-8")
    monkeypatch.chdir(root)
    told = []
    for call in (lambda: other.check(components), lambda: read_value(stale)):
        with pytest.raises(ValueError) as err:
            call()
        told.append(str(err.value))
    assert "--set weights=WEIGHTS --out FILE" in told[0] and "fit it again with `python scripts/fit_value.py --out FILE`" in told[1]
    for message in told:
        assert hinted_script_parses(message) == Path("scripts/fit_value.py")
    monkeypatch.setattr(module, "FIT_SCRIPT", tmp_path / "site-packages" / "scripts" / "fit_value.py")
    with pytest.raises(ValueError, match=r"fit it again with `python scripts/fit_value.py --out FILE` in a checkout of "
                                         r"hadara-sim \(the installed package has no scripts/ folder\)"):
        read_value(stale)

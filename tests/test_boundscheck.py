"""The compiled engine and every built-in bot's kernel with numba's bounds checking on.

numba does not check array indices: an index out of range reads or writes memory silently (the
issue's segmentation fault came from a side index of 100000000). With NUMBA_BOUNDSCHECK=1 every
index is checked and an out-of-range one raises IndexError, so whole games at every player count,
both game kinds, every built-in policy, grants and the search bot's forward model must play
through. It compiles the engine afresh (into its own cache folder, about a minute and a half).
"""

import os
import subprocess
import sys
import textwrap

import pytest

# Its own step of CI (`make boundscheck`, run by .ci/run after `make test`): the fresh compile with
# checks takes two and a half minutes of one core, more than the rest of the suite can spare.
pytestmark = pytest.mark.skipif(os.environ.get("HADARA_SIM_BOUNDSCHECK") != "1",
                                reason="set HADARA_SIM_BOUNDSCHECK=1 (make boundscheck)")

SCENARIO = """
name = "{name}"
policies = {policies}
games = {games}
chunk = {games}
seed = 5
assignment = "rotated"
grants = {grants}
[sweep]
players = {players}
game = {kinds}
"""


def test_every_kernel_stays_in_bounds(tmp_path):
    basic_grant = '[{ card = "sell_bonus", seat = "rotate" }]'
    starred_grants = '[{ card = "double_actions", epoch = 2, seat = 0 }, { card = "statue_patron", seat = "rotate" }]'
    bots = ('["balanced", "foresight", "expert", "greedy", "random", "military", "culture", "economy", "sets", '
            '"balanced-v1"]')
    runs = {  # name: policies, player counts, games, grants, game kinds
        "bots": (bots, [2, 3, 4], 24, basic_grant, '["basic", "advanced"]'),
        "five": (bots, [5], 24, "[]", '["basic", "advanced"]'),  # a grant would empty a deck at 5 players
        "starred": (bots, [2, 4], 16, starred_grants, '["advanced"]'),
        "search": ('[{ policy = "search", params = { budget = 1 } }, "balanced"]', [2, 3], 2, basic_grant,
                   '["basic", "advanced"]'),
    }
    env = {**os.environ, "NUMBA_BOUNDSCHECK": "1", "NUMBA_CACHE_DIR": str(tmp_path / "numba-cache")}
    # The checked engine compiles as the install's does, on both cores (hadara_sim/warm.py); the runs
    # below load it from the cache, or compile what is missing.
    warmed = subprocess.run([sys.executable, "-m", "hadara_sim.warm", "--no-training"], env=env, capture_output=True, text=True,
                            timeout=900)
    assert warmed.returncode == 0, warmed.stdout + warmed.stderr
    for name, (policies, players, games, grants, kinds) in runs.items():
        path = tmp_path / f"{name}.toml"
        path.write_text(textwrap.dedent(SCENARIO.format(name=name, policies=policies, players=players, games=games,
                                                        grants=grants, kinds=kinds)))
        done = subprocess.run([sys.executable, "-c", "from hadara_sim.cli import main; main()", "simulate",
                               str(path), "--jobs", "1", "--quiet", "--out", str(tmp_path / name)],
                              env=env, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "IndexError" not in done.stderr

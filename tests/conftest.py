import os
import signal
import sys
from pathlib import Path

# One BLAS thread in the test workers and every process they start (OpenBLAS reads it when numpy is
# imported; xdist starts the workers after this): two workers each running OpenBLAS's threads on two
# cores left them spinning for each other (the documented 3-count `balance fit`: 37 CPU s with the
# default threads, 12 with one, at load 6; docs/reports.md gives the same advice for a shared machine).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import pytest  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))  # `import helpers` from every test module

# pytest-xdist's workers ignore Ctrl-C, and a child process inherits an ignored signal (Python then
# installs no KeyboardInterrupt in it): the tests that interrupt a run need Ctrl-C to reach it as it
# does from a terminal.
signal.signal(signal.SIGINT, signal.default_int_handler)

from hadara_sim.component_files import load_components  # noqa: E402

from helpers import new_game  # noqa: E402


@pytest.fixture(scope="session")
def components():
    """The shipped default component set."""
    return load_components()


@pytest.fixture
def game(components):
    """A fresh 2-player basic game after setup, epoch I, both seats scripted (empty scripts)."""
    return new_game(components, players=2)


@pytest.fixture
def advanced_game(components):
    """A fresh 2-player advanced game after setup (both on side A), epoch I."""
    return new_game(components, players=2, advanced=True)


def pytest_configure(config):
    """With pytest-xdist, compile the engine once here, before the workers start: each worker would
    otherwise compile all of it at the same time as the other, twice the work."""
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        return
    import time

    from hadara_sim import jit_cache
    from hadara_sim.runner import run
    from hadara_sim.scenario.read import scenario_from_dict

    # Run even on a warm cache: `make demo` compiles only what its scenario plays (not greedy's kernel or
    # the forward model); after `make test`'s warm step, which compiles every part, this only loads (2 s).
    start = time.perf_counter()
    if not jit_cache.is_warm():
        print("compiling the engine once for the test workers (minutes)", file=sys.stderr, flush=True)
    bots = ["balanced", "greedy", "random", "military", "culture", "economy", "sets", "balanced-v1"]
    for game in ("basic", "advanced"):
        run(scenario_from_dict({"name": "warm", "players": 3, "game": game, "policies": bots, "games": 8, "chunk": 8,
                                "grants": [{"card": "sell_bonus", "seat": "rotate"}]}), None, jobs=1)
    run(scenario_from_dict({"name": "warm", "players": 2, "policies": [{"policy": "search", "params": {"budget": 1}},
                                                                        "balanced"], "games": 2, "chunk": 2}), None, jobs=1)
    print(f"the engine is compiled ({time.perf_counter() - start:.0f} s)", file=sys.stderr, flush=True)


# The files that take the most time (make test's --durations shows where it goes), longest first. xdist
# hands each worker a whole file at a time (--dist loadfile) in the order collected (pyproject.toml's
# --no-loadscope-reorder: xdist would otherwise order files by their number of tests): starting with
# the long ones leaves only short files for the end, so neither worker finishes long after the other.
# test_cli_help.py (a script's start, 3 s, for each of some 60 tests), test_simulate.py and
# test_value.py (each about as long as test_cli_tables.py, `-n 0`) had been left in the collected
# order, the last two among the files handed out last.
LONGEST_FIRST = ["test_notebooks.py", "test_hardening.py", "test_cli_help.py", "test_docs_commands.py",
                 "test_dask_cluster.py", "test_report_cli.py", "engine/test_equivalence.py", "test_report_stats.py",
                 "test_verdicts.py", "test_reference_properties.py", "test_cli_tables.py", "test_simulate.py",
                 "test_value.py"]


def pytest_collection_modifyitems(items):
    """The test files of LONGEST_FIRST first, in its order; the tests of each file in their order."""
    here = Path(__file__).parent

    def rank(item):
        name = Path(item.fspath).relative_to(here).as_posix()
        return LONGEST_FIRST.index(name) if name in LONGEST_FIRST else len(LONGEST_FIRST)

    items.sort(key=rank)

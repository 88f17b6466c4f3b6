import signal
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # `import helpers` from every test module

# pytest-xdist's workers ignore Ctrl-C, and a child process inherits an ignored signal (Python then
# installs no KeyboardInterrupt in it): the tests that interrupt a run need Ctrl-C to reach it as it
# does from a terminal.
signal.signal(signal.SIGINT, signal.default_int_handler)

from hadara_sim.components import load_components  # noqa: E402

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

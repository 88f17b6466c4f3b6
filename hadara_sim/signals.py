"""Signals held while compiled code runs: a Ctrl-C or SIGTERM stops a batch between its steps.

A KeyboardInterrupt raised inside numba's calls back into Python corrupts the compiled caller's
error state ("TypeError: _choose_in_python expected 9 arguments, got 0"), so while a batch plays,
both signals are only recorded; the batch stops at its next step (`check_held`), and the signal is
raised again, to the handlers that were in place, once the compiled code has returned. A second
Ctrl-C does not wait (during the first compile, say, a step can take a minute).
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager


class Interrupted(Exception):
    """A held Ctrl-C or SIGTERM, carried out of compiled code as an ordinary exception (`held_signals`
    raises the signal itself again once the compiled code has returned)."""


_HELD: list[int] = []  # signals that arrived while held, oldest first


def _hold(signum, frame):
    _HELD.append(signum)
    if signum == signal.SIGINT and _HELD.count(signum) > 1:  # pressed again: the user insists
        raise KeyboardInterrupt


@contextmanager
def held_signals():
    """Within the block (in the main thread), Ctrl-C and SIGTERM wait for `check_held` or the end of
    the block, where a held signal is raised again to the handlers that were in place."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.signal(sig, _hold) for sig in (signal.SIGINT, signal.SIGTERM)
                if signal.getsignal(sig) is not signal.SIG_IGN}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, signal.SIG_DFL if handler is None else handler)  # None: set outside Python
        if _HELD and _hold not in previous.values():  # the outermost block
            held = _HELD[0]
            _HELD.clear()
            signal.raise_signal(held)


def check_held() -> None:
    """Raise Interrupted if a signal is held (a point where compiled code may stop)."""
    if _HELD:
        raise Interrupted("interrupted")

"""Signals held while compiled code runs: a Ctrl-C or SIGTERM stops a batch between its steps.

A KeyboardInterrupt raised inside numba's calls back into Python corrupts the compiled caller's
error state ("TypeError: _choose_in_python expected 9 arguments, got 0"), so while a batch plays,
both signals are only recorded; the batch stops at its next step (`check_held`), and the signal is
raised again, to the handlers that were in place, once the compiled code has returned. A second
Ctrl-C does not wait (during the first compile, say, a step can take a minute).

The command line also remembers each Ctrl-C (`remembering_ctrl_c`): a KeyboardInterrupt raised inside
a library can be lost there (a ctypes callback such as llvmlite's object cache swallows it and prints
"Exception ignored"; a C extension interrupted on import becomes an ImportError that an optional import
catches), and the run then went on to its end and exited 0. A remembered Ctrl-C is raised again at the
next point where stopping is safe (`raise_if_swallowed`: before a batch plays, after each chunk).
"""

from __future__ import annotations

import signal
import sys
import threading
from contextlib import contextmanager


class CtrlC(KeyboardInterrupt):
    """A Ctrl-C (a SIGINT), as the handlers here raise it: where they are in place, a plain
    KeyboardInterrupt was raised by code itself (`raised_by_code`), not by the user."""


class Interrupted(Exception):
    """A held Ctrl-C or SIGTERM, carried out of compiled code as an ordinary exception (`held_signals`
    raises the signal itself again once the compiled code has returned)."""


_HELD: list[int] = []  # signals that arrived while held, oldest first
_PRESSED: list[int] = []  # Ctrl-Cs the command line saw and no one has raised again since


STOPPING = "\nstopping after the step being played (Ctrl-C again stops at once)\n"


def _hold(signum, frame):
    _HELD.append(signum)
    if signum == signal.SIGINT and _HELD.count(signum) > 1:  # pressed again: the user insists
        raise CtrlC
    if signum == signal.SIGINT:  # a first compile holds a step for a minute: say the Ctrl-C was heard
        try:
            sys.stderr.write(STOPPING)
            sys.stderr.flush()
        except Exception:  # noqa: BLE001 (a stream busy in the interrupted code, or closed: the stop still comes)
            pass


@contextmanager
def held_signals():
    """Within the block (in the main thread), Ctrl-C and SIGTERM wait for `check_held` or the end of
    the block, where a held signal is raised again to the handlers that were in place."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    raise_if_swallowed()
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


def _ctrl_c(signum, frame):
    """Ctrl-C: a KeyboardInterrupt, remembered in case a library swallows it."""
    _PRESSED.append(signum)
    raise CtrlC


@contextmanager
def remembering_ctrl_c():
    """Within the block (the command line's main thread), a Ctrl-C that a library swallows is raised
    again by the next `raise_if_swallowed`."""
    if threading.current_thread() is not threading.main_thread() \
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return
    previous_hook = sys.unraisablehook

    def unraisable(hook_args) -> None:
        """A KeyboardInterrupt that Python could only report (raised in a callback from C): remembered,
        without the traceback Python would print; anything else to the hook in place before."""
        if hook_args.exc_type is not None and issubclass(hook_args.exc_type, KeyboardInterrupt):
            _PRESSED.append(signal.SIGINT)
        else:
            previous_hook(hook_args)

    signal.signal(signal.SIGINT, _ctrl_c)
    sys.unraisablehook = unraisable
    try:
        yield
    except Exception:
        # A library that swallowed the Ctrl-C and then failed on it (numba's "no object yet for
        # <Library '_planner'>" after a first compile it stopped): the failure is the interrupt.
        if _PRESSED:
            raise CtrlC from None
        raise
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        sys.unraisablehook = previous_hook
        _PRESSED.clear()


def raise_if_swallowed() -> None:
    """Raise KeyboardInterrupt if a Ctrl-C was pressed and a library swallowed it (a point where
    stopping is safe: outside compiled code)."""
    if _PRESSED:
        _PRESSED.clear()
        raise CtrlC


def raised_by_code(err: KeyboardInterrupt) -> bool:
    """Whether `err` was raised by code (a policy's `raise KeyboardInterrupt`) rather than by a Ctrl-C or
    a SIGTERM: a plain KeyboardInterrupt while a handler here, which raises CtrlC, has the Ctrl-C.
    Under Python's own handler (a notebook, a script) a Ctrl-C is a plain one too: not known, so not."""
    return type(err) is KeyboardInterrupt and signal.getsignal(signal.SIGINT) in (_ctrl_c, _hold)


def users_interrupt(err: BaseException) -> bool:
    """Whether `err` is the user's Ctrl-C (or SIGTERM), not a policy's own failure."""
    return isinstance(err, KeyboardInterrupt) and not raised_by_code(err)

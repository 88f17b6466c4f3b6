"""Ctrl-C and SIGTERM around compiled code: held until a step ends, and never lost in a library."""

import ctypes
import signal

import pytest

from hadara_sim.signals import (STOPPING, CtrlC, Interrupted, check_held, held_signals, raise_if_swallowed,
                                raised_by_code, remembering_ctrl_c)


@pytest.fixture(autouse=True)
def default_ctrl_c():
    """The interpreter's own Ctrl-C handler, as a command line starts with (a test runner may differ)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_a_held_ctrl_c_says_it_was_heard_waits_for_the_step_and_is_raised_after_it(capsys):
    with pytest.raises(KeyboardInterrupt):
        with held_signals():
            signal.raise_signal(signal.SIGINT)  # in the middle of a step: nothing is raised yet
            assert capsys.readouterr().err == STOPPING
            with pytest.raises(Interrupted):
                check_held()  # the step's end: the batch stops here
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_second_ctrl_c_does_not_wait():
    with pytest.raises(KeyboardInterrupt):
        with held_signals():
            signal.raise_signal(signal.SIGINT)
            signal.raise_signal(signal.SIGINT)
            pytest.fail("the second Ctrl-C should have stopped the block at once")


def test_a_ctrl_c_reported_from_a_callback_is_raised_at_the_next_safe_point(capsys):
    """A KeyboardInterrupt raised in a callback from C (llvmlite's object cache, while numba loads or
    compiles) can only be reported by Python: it is kept, silently, for `raise_if_swallowed`."""
    with remembering_ctrl_c():
        ctypes.CFUNCTYPE(None)(lambda: signal.raise_signal(signal.SIGINT))()
        assert capsys.readouterr().err == ""
        with pytest.raises(KeyboardInterrupt):
            raise_if_swallowed()
        raise_if_swallowed()  # raised once: nothing is pending any more
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_swallowed_ctrl_c_stops_a_batch_before_it_plays():
    with remembering_ctrl_c():
        try:
            signal.raise_signal(signal.SIGINT)
        except KeyboardInterrupt:
            pass  # as an optional import of a library catches it
        with pytest.raises(KeyboardInterrupt):
            with held_signals():
                pytest.fail("no step should start after a swallowed Ctrl-C")


def test_other_unraisable_errors_still_reach_the_hook_in_place(monkeypatch):
    seen = []
    monkeypatch.setattr("sys.unraisablehook", lambda hook_args: seen.append(hook_args.exc_type))

    def fail():
        raise ValueError("a callback's own error")

    with remembering_ctrl_c():
        ctypes.CFUNCTYPE(None)(fail)()
        raise_if_swallowed()  # nothing pending: a ValueError is no Ctrl-C
    assert seen == [ValueError]


def test_a_keyboard_interrupt_raised_by_code_is_told_from_a_ctrl_c():
    """Where the handlers here have the Ctrl-C, it raises CtrlC, and a plain KeyboardInterrupt is code's own;
    under Python's own handler a Ctrl-C is a plain one too, so it is taken for one."""
    for block in (remembering_ctrl_c, held_signals):
        with block():
            assert raised_by_code(KeyboardInterrupt()) and not raised_by_code(CtrlC())
    with remembering_ctrl_c():
        with pytest.raises(CtrlC):
            signal.raise_signal(signal.SIGINT)
    assert not raised_by_code(KeyboardInterrupt())

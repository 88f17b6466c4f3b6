"""The `hadara-sim` command line: a thin layer over the library, one module per command group."""

import signal
import sys
import threading

# A Ctrl-C while the command line starts (imports take a second or two) stops it at once: there is
# nothing to clean up yet, and no traceback to print. The usual KeyboardInterrupt is back below.
# (Not in an interactive session or a notebook kernel, which a Ctrl-C must not end.)
_STARTING = (threading.current_thread() is threading.main_thread() and not hasattr(sys, "ps1")
             and "ipykernel" not in sys.modules and signal.getsignal(signal.SIGINT) is signal.default_int_handler)
if _STARTING:
    signal.signal(signal.SIGINT, signal.SIG_DFL)

import typer  # noqa: E402

from . import bench, components, play, policies, verify
from . import simulate as simulate_cli
from . import report as report_cli

app = typer.Typer(
    help="Monte Carlo strategy analysis for the board game Hadara.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(components.app, name="components")
app.add_typer(policies.app, name="policies")
app.add_typer(report_cli.app, name="report")
play.register(app)
verify.register(app)
bench.register(app)
simulate_cli.register(app)


if _STARTING:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def main():
    """The `hadara-sim` command: a Ctrl-C exits 130, an unexpected error one line and 1."""
    import os

    try:
        app()
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        sys.exit(130)
    except Exception as err:
        if os.environ.get("HADARA_SIM_DEBUG"):
            raise
        print(f"error: unexpected {type(err).__name__}: {err} (set HADARA_SIM_DEBUG=1 for the traceback, "
              "and please report it)", file=sys.stderr)
        sys.exit(1)

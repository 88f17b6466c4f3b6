"""The `hadara-sim` command line: a thin layer over the library, one module per command group."""

import typer

from . import balance, bench, components, play, policies, verify
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
app.add_typer(balance.app, name="balance")
play.register(app)
verify.register(app)
bench.register(app)
simulate_cli.register(app)


def main():
    app()

"""Shared pieces of the commands: the console, clean failures, loading components and policies."""

from __future__ import annotations

from pathlib import Path
from typing import NoReturn, Optional

import typer
from rich.console import Console

from ..components import ComponentError, ComponentSet, load_components
from ..registry import PolicyNotFound, make_policy

console = Console()
err_console = Console(stderr=True)

COMPONENTS_OPTION = typer.Option(
    None, "--components", help="Directory of a component set (default: the shipped reconstruction).",
    show_default=False)


def fail(message: str, code: int = 2) -> NoReturn:
    """Print an error that says how to fix it, and exit non-zero without a traceback."""
    err_console.print(f"[bold red]error:[/] {message}", highlight=False)
    raise typer.Exit(code)


def components_or_exit(path: Optional[Path]) -> ComponentSet:
    try:
        return load_components(path)
    except ComponentError as err:
        lines = "\n".join(f"  {p}" for p in err.problems)
        fail(f"the component set at {path} is not valid ({len(err.problems)} problems):\n{lines}\n"
             f"Check it with: hadara-sim components validate {path}")


def policies_or_exit(specs: list[str], players: int, seed: int):
    """One policy per seat from the --policy options: none = greedy everywhere, one = everywhere,
    otherwise one per seat."""
    specs = specs or ["greedy"]
    if len(specs) == 1:
        specs = specs * players
    if len(specs) != players:
        fail(f"give one --policy for every seat or a single one for all: got {len(specs)} for {players} players")
    policies, made = [], {}
    for seat, spec in enumerate(specs):
        if spec not in made:
            try:
                made[spec] = make_policy(spec, seed=seed + seat)
            except (PolicyNotFound, ValueError, TypeError) as err:
                fail(str(err))
            except (Exception, SystemExit) as err:  # a user's policy may fail in any way
                fail(f"policy '{spec}' cannot be made: {type(err).__name__}: {err}")
        policies.append(made[spec])
    return policies

"""The options and helpers that every `hadara-sim balance` command shares (suggest, check,
sensitivity in cli/balance.py, fit in cli/balance_fit.py)."""

from __future__ import annotations

import time
from contextlib import contextmanager

import typer
from rich.text import Text

from ..constants import MAX_GAMES, MAX_SEED
from .common import MARGIN_OPTION, components_or_exit, err_console, fail
from .limits import jobs_or_exit

PLAYERS = typer.Option(4, "--players", "-p", min=2, max=5, help="Player count.")
POLICY = typer.Option("balanced", "--policy", help="The policy on every seat.")
GAMES = typer.Option(20000, "--games", "-n", min=10, max=MAX_GAMES, help="Games of the baseline run.")
MARGIN = MARGIN_OPTION
SEED = typer.Option(1, "--seed", "-s", min=0, max=MAX_SEED, help="Seed of the deals.")
JOBS = typer.Option(-1, "--jobs", "-j", help="Parallel processes (-1: all cores).")
COMPONENTS = typer.Option(None, "--components", help="Directory of a component set (default: the shipped "
                          "reconstruction).", show_default=False)
OVERRIDES = typer.Option(None, "--overrides", help="A TOML file of [components.*] overrides played on top "
                         "of the set, e.g. the fix.toml written by `suggest --out`.", show_default=False)
QUIET = typer.Option(False, "--quiet", "-q", help="No progress, expected times or timings on standard error "
                     "(errors and the tables still).")
DRY_RUN = typer.Option(False, "--dry-run", help="Check the options, print how long the runs would take, and stop: "
                       "nothing is played.")


def plan_or_exit(players, policy, games, margin, seed, jobs, components, overrides, curve_games=0, side=None):
    """The balance plan of the options, or a clean failure for a bad --jobs, --policy, --side or overrides
    file."""
    from ..balance import Plan, read_overrides, side_name
    from ..components import ComponentError
    from ..registry import PolicyNotFound, resolve_policy

    jobs = jobs_or_exit(jobs)  # before a dry run's estimate too
    try:
        resolve_policy(policy)  # named as --policy, not as a key of the runs' scenario
    except PolicyNotFound as err:
        fail(f"--policy {policy}: {err}")
    if components is not None:
        components_or_exit(components)  # named as --components, not as a key of the runs' scenario

    try:
        side = [side_name(name) for name in side or []]
    except ValueError as err:
        fail(f"--side {err}")
    try:
        table = read_overrides(overrides, components) if overrides else {}
    except ComponentError as err:
        if len(err.problems) == 1 and not err.problems[0].field and not err.problems[0].line:
            fail(f"--overrides {err.problems[0]}")  # the file as a whole (a folder, unreadable): one line
        fail("the overrides are not valid:\n" + "\n".join(f"  {p}" for p in err.problems))
    return Plan(players, policy, games, curve_games, margin / 100, seed, str(components) if components else None,
                jobs, list(side or []), table)


def expect(text: str, seconds: float, dry_run: bool, quiet: bool = False) -> bool:
    """Say what a run is expected to take when it is long and not quiet (or a dry run); True for a dry run."""
    from ..estimate import LONG_SECONDS

    if dry_run or (seconds > LONG_SECONDS and not quiet):
        err_console.print(f"{'dry run: ' if dry_run else ''}expected: {text}" + ("; nothing was played" if dry_run else ""),
                          highlight=False, soft_wrap=True)
    return dry_run


@contextmanager
def working(first: str, quiet: bool):
    """A spinner saying what plays, starting with `first`; yields the `progress(text)` that moves it on
    (None when quiet: nothing is shown)."""
    if quiet:
        yield None
        return
    with err_console.status(first) as status:
        yield lambda text: say(status, text)


def took(start: float, quiet: bool, games: int | None = None, cpu_seconds: float | None = None) -> None:
    """The wall time since `start` (and the games and CPU time, when known), unless quiet."""
    if quiet:
        return
    games_text = f"{games:,} games; " if games is not None else ""
    cpu = f" ({cpu_seconds:.0f} s of CPU)" if cpu_seconds is not None else ""
    err_console.print(f"{games_text}took {time.perf_counter() - start:.0f} s{cpu}", highlight=False)


def say(status, text: str):
    """Progress on the spinner, and a line where stderr is a log (the spinner draws nothing there)."""
    status.update(Text(text))
    if not err_console.is_terminal:
        err_console.print(text, markup=False, highlight=False)


@contextmanager
def failing():
    """A bad plan, component set or run as a clean failure naming what is wrong."""
    from ..components import ComponentError
    from ..runner import RunError
    from ..scenario.checks import ScenarioError

    try:
        yield
    except ScenarioError as err:
        fail("the plan is not valid:\n" + "\n".join(f"  {p}" for p in err.problems))
    except ComponentError as err:
        fail("the component set is not valid:\n" + "\n".join(f"  {p}" for p in err.problems))
    except (ValueError, RunError) as err:
        fail(str(err))

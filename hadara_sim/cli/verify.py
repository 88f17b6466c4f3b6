"""`hadara-sim verify`: the batch engine's games replayed by the reference engine."""

from __future__ import annotations

from typing import Optional
from pathlib import Path

import typer
from rich.markup import escape
from rich.progress import Progress

from ..constants import MAX_GAMES, MAX_SEED
from .common import (COMPONENTS_OPTION, components_or_exit, console, playable_or_exit, policies_or_exit,
                     split_specs)
from .limits import jobs_or_exit


def register(app: typer.Typer):
    app.command()(verify)


def verify(
    games: int = typer.Option(1000, "--games", "-n", min=1, max=MAX_GAMES, help="Games per player count and game kind."),
    players: list[int] = typer.Option([], "--players", "-p", min=2, max=5,
                                      help="Player counts to check (default 2-5)."),
    advanced: Optional[bool] = typer.Option(None, "--advanced/--basic", help="Only one game kind (default both)."),
    policy: list[str] = typer.Option(["random", "greedy"], "--policy",
                                     help="Policies to mix; seats rotate over them."),
    seed: int = typer.Option(0, "--seed", "-s", min=0, max=MAX_SEED, help="Seed of the deals."),
    chunk: int = typer.Option(250, min=1, help="Games per batch."),
    jobs: int = typer.Option(-1, "--jobs", "-j", help="Parallel processes (-1: all cores)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    components: Optional[Path] = COMPONENTS_OPTION,
):
    """Check that the vectorised engine and the reference engine agree, game by game.

    Plays games in the vectorised engine and replays each one in the reference engine: the same
    legal options at every decision, the same state after every step, the same score sheet.
    """
    from ..process import local_parallel  # with the engines: not at start-up
    from ..verify import VerifyResult, verify_chunk

    jobs = jobs_or_exit(jobs)
    c = components_or_exit(components)
    counts = sorted(set(players)) or [2, 3, 4, 5]  # -p 2 -p 2 played the same games twice, counted twice
    kinds = [advanced] if advanced is not None else [False, True]
    specs = split_specs(policy)
    pols = policies_or_exit(specs, len(specs), seed)
    playable_or_exit(pols, c)
    n_chunks = -(-games // chunk)
    tasks = ((p, kind, min(chunk, games - k * chunk), k, pols)  # made as played: memory does not grow with --games
             for p in counts for kind in kinds for k in range(n_chunks))
    total = VerifyResult()
    with Progress(console=console, disable=quiet, transient=True) as progress:
        bar = progress.add_task("verifying", total=games * len(counts) * len(kinds))
        calls = ((c, p, kind, size, seed + 1000 * p + 100 * kind, k, pols) for p, kind, size, k, pols in tasks)
        for result in local_parallel(verify_chunk, calls, jobs, ordered=True):
            total = total.merge(result)
            progress.advance(bar, result.games)
    console.print(f"{total.agreed} of {total.games} games agree "
                  f"({', '.join(map(str, counts))} players; {' and '.join('advanced' if k else 'basic' for k in kinds)})")
    if total.failures:
        game, message = total.failures[0]
        console.print(f"[red]{len(total.failures)} disagree.[/] First, game {game}:\n{escape(message)}", highlight=False)
        raise typer.Exit(1)

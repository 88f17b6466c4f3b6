"""`hadara-sim bench`: games per second, peak memory, and the ratio to the reference engine."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.progress import Progress
from rich.table import Table

from ..bench import bench_one, reference_speed
from .common import COMPONENTS_OPTION, components_or_exit, console, fail, policies_or_exit


def register(app: typer.Typer):
    app.command()(bench)


def bench(
    players: list[int] = typer.Option([], "--players", "-p", help="Player counts (default 2-5)."),
    advanced: Optional[bool] = typer.Option(None, "--advanced/--basic", help="Only one game kind (default both)."),
    batch: list[int] = typer.Option([256, 1024, 4096, 16384], "--batch", "-b", help="Batch sizes."),
    policy: str = typer.Option("greedy", help="Policy at every seat."),
    reference_games: int = typer.Option(30, min=1, help="Games the reference engine plays to measure its speed."),
    seed: int = typer.Option(0, "--seed", "-s", min=0, help="Seed of the deals."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    components: Optional[Path] = COMPONENTS_OPTION,
):
    """Measure the speed and memory of the batch engine against the reference engine.

    In one process: games per second and peak memory for each batch size, and the reference
    engine's games per second on the same deals with the ratio between the two.
    """
    c = components_or_exit(components)
    counts = players or [2, 3, 4, 5]
    if any(not 2 <= p <= 5 for p in counts) or any(b < 1 for b in batch):
        fail("--players must be 2..5 and --batch positive")
    kinds = [advanced] if advanced is not None else [False, True]
    pol = policies_or_exit([policy], 1, seed)[0]
    table = Table(title=f"hadara-sim bench ({policy} policy, one process)")
    for head in ("players", "game", "batch", "games/s", "peak MiB", "peak MiB (3 batches)",
                 "reference games/s", "ratio"):
        table.add_column(head, justify="right")
    configs = [(p, k) for p in counts for k in kinds]
    with Progress(console=console, disable=quiet, transient=True) as progress:
        task = progress.add_task("benchmarking", total=len(configs) * (len(batch) + 1))
        for p, kind in configs:
            ref = reference_speed(c, p, kind, pol, reference_games, seed)
            progress.advance(task)
            for size in batch:
                row = bench_one(c, p, kind, size, pol, seed, ref)
                table.add_row(str(p), "advanced" if kind else "basic", str(size), f"{row.games_per_second:,.0f}",
                              f"{row.peak_mib:,.0f}", f"{row.peak_mib_after_3:,.0f}",
                              f"{ref:,.1f}", f"{row.ratio:,.0f}x")
                progress.advance(task)
    console.print(table)

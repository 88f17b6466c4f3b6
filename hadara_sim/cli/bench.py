"""`hadara-sim bench`: games per second, peak memory, and the ratio to the reference engine."""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path
from typing import Optional

import typer
from rich.progress import Progress

from ..constants import MAX_SEED
from ..report.table import Table
from .common import (COMPONENTS_OPTION, FORMAT_OPTION, check_format, components_or_exit, console, emit, err_console,
                     fail, playable_or_exit, policies_or_exit, split_specs)

PLANNER_MIX = "balanced,military,culture,economy"


def register(app: typer.Typer):
    app.command()(bench)


def bench(
    players: list[int] = typer.Option([], "--players", "-p", min=2, max=5,
                                      help="Player counts, each 2-5 (default 4; 2-5 with --full)."),
    advanced: Optional[bool] = typer.Option(None, "--advanced/--basic",
                                            help="Only one game kind (default basic; both with --full)."),
    batch: list[int] = typer.Option([], "--batch", "-b", min=1,
                                    help="Batch sizes (default 2000; 256, 1024, 4096, 16384 with --full)."),
    policy: list[str] = typer.Option(
        [], "--policy",
        help=f"Policies at the table, comma-separated, seats rotated from game to game; repeat to bench "
             f"several (default: greedy, and the planner mix {', '.join(PLANNER_MIX.split(','))})."),
    reference_games: Optional[int] = typer.Option(
        None, min=1, help="Games the reference engine plays to measure its speed (default 5; 30 with --full).",
        show_default=False),
    full: bool = typer.Option(False, "--full", help="The full grid: 2-5 players, both game kinds, four batch sizes."),
    seed: int = typer.Option(0, "--seed", "-s", min=0, max=MAX_SEED, help="Seed of the deals."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    components: Optional[Path] = COMPONENTS_OPTION,
    startup: int = typer.Option(0, "--startup", min=0, max=100, metavar="RUNS",
                                help="Also time the fixed cost of a small run: RUNS fresh processes of a 100-game "
                                     "`simulate -q` of scenarios/default.toml and RUNS of the same with its "
                                     "closing table (no -q), each to its exit (target 1.0 s; e.g. --startup 5), "
                                     "and RUNS of a one-function numba program: the floor of this machine."),
    fmt: str = FORMAT_OPTION,
):
    """Measure the speed and memory of the batch engine against the reference engine.

    In one process: the first call (compiling the engine and bots, or loading them from numba's
    cache), then games per second and peak memory for each configuration, and the reference engine's
    games per second on the same deals with the ratio between the two. Quick by default (seconds);
    `--full` runs the whole grid (minutes). Progress goes to stderr, the table to stdout. With
    `--startup`, first the fixed cost of a small run, timed in fresh processes (wall and CPU), quiet
    and with its closing table, and the least any numba program starts in on this machine.
    """
    from ..bench import bench_one, first_call_seconds, reference_speed  # loads the engine: not at start-up

    fmt = check_format(fmt)
    counts = sorted(set(players)) or ([2, 3, 4, 5] if full else [4])  # -p 2 -p 2: one row, not two alike
    sizes = sorted(set(batch)) or ([256, 1024, 4096, 16384] if full else [2000])  # -b 8 -b 8: as -p 2 -p 2
    notes = startup_lines(startup, quiet) if startup else []
    c = components_or_exit(components)
    kinds = [advanced] if advanced is not None else ([False, True] if full else [False])
    ref_games = reference_games or (30 if full else 5)
    mixes = list(dict.fromkeys(policy)) or ["greedy", PLANNER_MIX]  # a mix given twice: benched once, in order
    tables = {mix: policies_or_exit([mix], len(split_specs([mix])), seed) for mix in mixes}
    playable_or_exit([p for pols in tables.values() for p in pols], c)
    with nullcontext() if quiet else err_console.status("compiling, or loading the compiled engine and bots"):
        first = first_call_seconds(c, tables[mixes[0]], seed)
    notes.append(f"first call (compile, or load from numba's cache): {first:.2f} s")
    if fmt == "table":  # the lines whole, as typed: the machine formats carry them as notes
        for line in notes:
            console.print(line, markup=False, highlight=False, soft_wrap=True)
    rows, data = [], []
    configs = [(mix, p, k) for mix in mixes for p in counts for k in kinds]
    try:
        with Progress(console=err_console, disable=quiet, transient=True) as progress:
            task = progress.add_task("benchmarking", total=len(configs) * (len(sizes) + 1))
            for mix, p, kind in configs:
                pols = tables[mix]
                ref = reference_speed(c, p, kind, pols, ref_games, seed)
                progress.advance(task)
                for size in sizes:
                    row = bench_one(c, p, kind, size, pols, seed, ref)
                    name, game = "planner mix" if mix == PLANNER_MIX else mix, "advanced" if kind else "basic"
                    rows.append([name, str(p), game, str(size), f"{row.games_per_second:,.0f}", f"{row.peak_mib:,.1f}",
                                 f"{row.peak_mib_after_3:,.1f}", f"{ref:,.1f}", f"{row.ratio:,.0f}x"])
                    data.append({"policies": mix, "players": p, "game": game, "batch": size,
                                 "games_per_second": row.games_per_second, "peak_mib": row.peak_mib,
                                 "peak_mib_after_3": row.peak_mib_after_3, "reference_games_per_second": ref,
                                 "ratio": row.ratio})
                    progress.advance(task)
    except MemoryError:  # --batch 10**14 was "unexpected MemoryError ... please report it", exit 1
        fail(f"--batch {max(sizes):,} or --reference-games {ref_games:,} needs more memory than there is at once: "
             "give smaller ones (the default batch is 2000)")
    import polars as pl

    emit([Table("hadara-sim bench (one process)",
                ["policies", "players", "game", "batch", "games/s", "MiB 1", "MiB 3", "ref g/s", "ratio"], rows,
                caption="MiB 1 / MiB 3: peak memory allocated (tracemalloc) while playing one batch / three "
                        "batches in a row (equal: memory does not grow from batch to batch); ref g/s: games per "
                        "second of the reference engine on the same deals; ratio: batch over reference",
                data=pl.DataFrame(data), units=None)], fmt, notes=[] if fmt == "table" else notes)


def startup_lines(runs: int, quiet: bool) -> list[str]:
    """The whole-process time of `runs` 100-game `simulate -q` processes, then of `runs` with the
    closing win-rate table (what a user who types no -q waits for), against the target, and of `runs`
    one-function numba programs: the least any run starts in on this machine."""
    from ..bench import (STARTUP_GAMES, STARTUP_SCENARIO, STARTUP_TARGET_SECONDS, bytecode_words, floor_seconds,
                         startup_seconds)

    if not STARTUP_SCENARIO.exists():
        fail(f"--startup plays {STARTUP_SCENARIO}, which is not here: run it from a checkout of hadara-sim")
    lines = []
    for table in (False, True):  # the quiet runs' uncounted first one has compiled the engine for both
        with nullcontext() if quiet else err_console.status(f"timing {runs + (not table)} fresh simulate processes"):
            try:
                found = startup_seconds(runs, quiet=not table, warm=not table)
            except RuntimeError as err:
                fail(str(err), code=1)
        lines.append(f"start-up: a {STARTUP_GAMES}-game simulate {'with its closing table' if table else '-q'}, "
                     f"whole process ({bytecode_words()}): {found.text()}; target {STARTUP_TARGET_SECONDS:.1f} s")
    with nullcontext() if quiet else err_console.status(f"timing {runs + 1} fresh one-function numba programs"):
        try:
            floor = floor_seconds(runs)
        except RuntimeError as err:
            fail(str(err), code=1)
    lines.append(f"start-up floor of this machine: numpy and numba imported, one cached function called, whole "
                 f"process: {floor.text()}")
    return lines

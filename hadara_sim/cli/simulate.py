"""`hadara-sim simulate SCENARIO`: a batch run into a results directory (thin layer over runner)."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Optional

import typer
from rich.markup import escape
from rich.table import Table

from ..policy import IllegalChoice
from ..results import ResultsError, scan_results
from ..runner import BACKENDS, RunError, plan_chunks, run
from ..scenario import DesignWarning, ScenarioError, load_scenario
from .common import components_or_exit, console, fail


def register(app: typer.Typer):
    app.command()(simulate)


def simulate(
    scenario: Path = typer.Argument(..., help="Scenario file (TOML), e.g. scenarios/default.toml.",
                                    show_default=False),
    games: Optional[int] = typer.Option(None, "--games", "-n", min=1,
                                        help="Games (deals) per combination; overrides the scenario's."),
    seed: Optional[int] = typer.Option(None, "--seed", "-s", min=0, help="Seed; overrides the scenario's."),
    jobs: int = typer.Option(-1, "--jobs", "-j", help="Parallel processes (-1: all cores)."),
    out: Optional[Path] = typer.Option(None, "--out", "-o",
                                       help="Results directory (default: results/<scenario name>)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar and no summary."),
    overwrite: bool = typer.Option(False, "--overwrite",
                                   help="Replace a results directory that holds another run."),
    backend: str = typer.Option("local", "--backend", help=f"Where chunks run: {' or '.join(BACKENDS)}."),
    scheduler: Optional[str] = typer.Option(None, "--scheduler",
                                            help="Address of a dask scheduler (with --backend dask), "
                                                 "e.g. tcp://10.0.0.5:8786; without it a local dask "
                                                 "cluster is started."),
    components: Optional[Path] = typer.Option(
        None, "--components", help="Directory of a component set; replaces the scenario's.", show_default=False),
):
    """Play a scenario's games in parallel chunks and write them as Parquet files plus metadata.json.

    Running the same command again after an interruption plays only the missing chunks."""
    if backend not in BACKENDS:
        fail(f"--backend must be {' or '.join(BACKENDS)}, got '{backend}'")
    if jobs == 0:
        fail("--jobs must be a number of processes, or -1 for all cores")
    try:
        if components is not None:
            components_or_exit(components)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", DesignWarning)
            sc = load_scenario(scenario, components=components).with_overrides(games=games, seed=seed)
    except ScenarioError as err:
        fail(escape(f"the scenario is not valid ({len(err.problems)} problem{'s' * (len(err.problems) > 1)}):\n"
                    + "\n".join(f"  {p}" for p in err.problems)))
    for w in dict.fromkeys(str(w.message) for w in caught):
        console.print(f"[yellow]warning:[/] {escape(w)}", highlight=False)
    out = out if out is not None else Path("results") / sc.name
    chunks = plan_chunks(sc)
    if not quiet:
        console.print(f"[bold]{sc.name}[/]: {sc.games:,} games x {len(sc.combinations)} combination"
                      f"{'s' * (len(sc.combinations) > 1)} = {sc.total_games:,} games in {len(chunks)} "
                      f"chunks of up to {sc.chunk:,}; seed {sc.seed} -> {out}", highlight=False)
    try:
        summary = run(sc, out, jobs=jobs, backend=backend, scheduler=scheduler, overwrite=overwrite,
                      quiet=quiet, console=console)
    except RunError as err:
        fail(escape(str(err)))
    except IllegalChoice as err:
        done = sum((out / c.file).is_file() for c in chunks)
        fail(escape(f"{err}\n{done} of {len(chunks)} chunks are complete in {out}"), code=1)
    except KeyboardInterrupt:
        done = sum((out / c.file).is_file() for c in chunks)
        console.print(f"\n[yellow]interrupted[/]: {done} of {len(chunks)} chunks are complete in {out}; "
                      "run the same command again to play the rest", highlight=False)
        raise typer.Exit(130)
    if quiet:
        return
    if summary.played:
        console.print(f"played {summary.games_played:,} games in {summary.seconds:.1f} s "
                      f"({summary.rate:,.0f} games/s); {summary.already} of {summary.chunks} chunks "
                      f"were already there", highlight=False)
    else:
        console.print(f"all {summary.chunks} chunks were already in {out}: nothing to play", highlight=False)
    try:
        console.print(win_table(scan_results(out, sweep_columns=False), sc.name))
    except ResultsError as err:
        fail(escape(str(err)))


def win_table(results, title: str, limit: int = 40) -> Table:
    """Win rate per combination and policy (per seat when one policy plays every seat), with its
    sample size and a 95% Wilson interval, from a LazyFrame or DataFrame of results (aggregated
    without loading every row). Nothing is pooled over the combinations of a sweep."""
    import polars as pl
    from statsmodels.stats.proportion import proportion_confint

    lf = results.lazy()
    several = lf.select(pl.col("sweep").n_unique()).collect().item() > 1
    one_policy = lf.select(pl.col("policy_label").n_unique()).collect().item() == 1
    who = "seat" if one_policy else "policy_label"
    keys = ["sweep", who] if several else [who]
    stats = (lf.select([*keys, "win_share", "players", "total"])
             .group_by(keys)
             .agg(n=pl.len(), wins=pl.col("win_share").sum(),
                  share=(1 / pl.col("players")).mean(), total=pl.col("total").mean())
             .sort(keys)
             .collect())
    table = Table(title=f"{title}: win rate per {'seat' if one_policy else 'policy'}"
                        f"{' and combination' if several else ''} (fair share = 1 / players)")
    if several:
        table.add_column("combination")
    for name in ("seat" if one_policy else "policy", "seats played", "win rate", "95% CI", "fair share",
                 "mean total"):
        table.add_column(name, justify="left" if name in ("policy", "seat") else "right")
    for row in stats.head(limit).iter_rows(named=True):
        low, high = proportion_confint(row["wins"], row["n"], method="wilson")
        cells = [row["sweep"]] if several else []
        cells += [str(row[who]), f"{row['n']:,}", f"{100 * row['wins'] / row['n']:.1f}%",
                  f"[{100 * low:.1f}, {100 * high:.1f}]", f"{100 * row['share']:.1f}%", f"{row['total']:.1f}"]
        table.add_row(*cells)
    caption = "a first look (Wilson CI over seats); `hadara-sim report` gives the paired, deal-clustered analysis"
    if len(stats) > limit:
        caption = f"first {limit} of {len(stats)} rows; " + caption
    table.caption = caption
    return table

"""`hadara-sim policies`: list, show and rank the available policies."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Optional

import typer
from rich.progress import Progress
from rich.table import Table

from ..ladder import ladder as run_ladder
from ..ladder import ladder_ratings
from ..registry import PolicyNotFound, available_policies, resolve_policy
from .common import COMPONENTS_OPTION, components_or_exit, console, fail

app = typer.Typer(help="List, inspect and rank policies (built-ins, entry points, your own).",
                  no_args_is_help=True)


def _params(target) -> dict:
    return dict(getattr(target, "params", {}) or {})


@app.command("list")
def list_():
    """Every policy available by name, with its description and parameters."""
    table = Table(title="Policies")
    table.add_column("name")
    table.add_column("description")
    table.add_column("parameters (defaults)")
    for name, target in sorted(available_policies().items()):
        cls = target.load() if hasattr(target, "load") else target
        params = ", ".join(f"{k}={v}" for k, v in _params(cls).items())
        about = getattr(cls, "description", "") or inspect.getdoc(cls) or ""
        table.add_row(name, about.split(". ")[0].rstrip(".") + ".", params)
    console.print(table)
    console.print("Use your own with --policy module:attr or --policy path/to/file.py:attr "
                  "(see docs/policies.md).")


@app.command()
def show(name: str = typer.Argument(..., help="A policy name, module:attr or file.py:attr.")):
    """One policy in full: description, plan and every parameter with its default."""
    try:
        cls = resolve_policy(name)
    except PolicyNotFound as err:
        fail(str(err))
    console.print(f"[bold]{getattr(cls, 'name', name)}[/]")
    console.print(getattr(cls, "description", ""))
    doc = inspect.getdoc(cls)
    if doc:
        console.print(f"\n{doc}")
    params = _params(cls)
    if params:
        table = Table(title="parameters")
        table.add_column("name")
        table.add_column("default", justify="right")
        for k, v in params.items():
            table.add_row(k, repr(v))
        console.print(table)


@app.command()
def ladder(
    games: int = typer.Option(1000, "--games", "-n", min=10, help="Games per pair and player count."),
    players: list[int] = typer.Option([2, 3, 4], "--players", "-p", help="Player counts."),
    policy: list[str] = typer.Option([], "--policy", help="Policies to rank (default: every built-in)."),
    seed: int = typer.Option(0, "--seed", "-s"),
    advanced: bool = typer.Option(False, "--advanced", help="Advanced game."),
    quiet: bool = typer.Option(False, "--quiet", "-q"),
    components: Optional[Path] = COMPONENTS_OPTION,
):
    """Rank policies head to head, with 95% confidence intervals and Bradley-Terry ratings.

    Each policy plays each other on the same deals with seats rotated; the table gives the share
    of the wins that went to the row policy (50 = even) and its mean total in the games it won.
    """
    from policies import BUILTIN

    c = components_or_exit(components)
    names = policy or list(BUILTIN)
    for name in names:
        try:
            resolve_policy(name)
        except PolicyNotFound as err:
            fail(str(err))
    if any(not 2 <= p <= 5 for p in players):
        fail("--players must be 2..5")
    pairs = len(names) * (len(names) - 1) // 2 * len(players)
    with Progress(console=console, disable=quiet, transient=True) as progress:
        task = progress.add_task("playing", total=pairs)
        frame = run_ladder(c, names, players, games, seed, advanced, lambda: progress.advance(task))
    for p in players:
        sub = frame.filter(frame["players"] == p)
        table = Table(title=f"{p} players: % of the wins that went to the row policy against the "
                            f"column policy, ± half its 95% CI ({games} games per pair)")
        table.add_column("", no_wrap=True)
        for name in names:
            table.add_column(name, justify="center")
        table.add_column("mean", justify="right")
        table.add_column("win pts", justify="right")
        for a in names:
            cells, rates = [], []
            for b in names:
                if a == b:
                    cells.append("-")
                    continue
                row = sub.filter((sub["policy"] == a) & (sub["opponent"] == b)).row(0, named=True)
                rates.append(row["win_rate"])
                significant = row["q"] < 0.05
                mark = ("[green]" if row["win_rate"] > 0.5 else "[red]") if significant else ""
                end = "[/]" if mark else ""
                half = (row["ci_high"] - row["ci_low"]) / 2
                digits = 0 if half >= 0.01 else 1  # a half-width under 1 pp is never printed as ±0
                cells.append(f"{mark}{100 * row['win_rate']:.{digits}f}±{100 * half:.{digits}f}{end}")
            won = sub.filter(sub["policy"] == a)["winning_scores"].explode().drop_nulls()
            table.add_row(a, *cells, f"{100 * sum(rates) / len(rates):.0f}",
                          f"{won.mean():.0f}" if len(won) else "-")
        console.print(table)
        ratings = ladder_ratings(frame, p)
        bt = Table(title=f"{p} players: Bradley-Terry ratings (log-odds against the average policy, 95% CI "
                         "clustered on the deal)")
        for name in ("policy", "rating", "95% CI"):
            bt.add_column(name, justify="left" if name == "policy" else "right")
        for r in ratings.iter_rows(named=True):
            bt.add_row(r["policy"], f"{r['rating']:+.2f}", f"[{r['low']:+.2f}, {r['high']:+.2f}]")
        console.print(bt)
    console.print("± half the 95% Wilson interval. green: above even, red: below, after Holm correction over "
                  "the pairs of the player count (q < 0.05). mean: the row's mean win %. win pts: the row's mean "
                  "total in the games it won.")

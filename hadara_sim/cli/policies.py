"""`hadara-sim policies`: list, show and rank the available policies."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Optional

import typer
from rich.progress import Progress
from rich.table import Table

from ..ladder import ladder as run_ladder
from ..registry import PolicyNotFound, available_policies, resolve_policy
from .common import COMPONENTS_OPTION, components_or_exit, console, fail

app = typer.Typer(help="List, inspect and rank policies (built-ins, entry points, your own).",
                  no_args_is_help=True)


def check_policies_and_players(names: list[str], players: list[int]):
    """Exit with a one-line message if a policy cannot be found or a player count is out of range."""
    for name in names:
        try:
            resolve_policy(name)
        except PolicyNotFound as err:
            fail(str(err))
    if any(not 2 <= p <= 5 for p in players):
        fail("--players must be 2..5")


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
    """Rank policies head to head, with 95% confidence intervals.

    Each policy plays each other on the same deals with seats rotated; the table gives the share
    of the wins that went to the row policy (50 = even) and its mean total in the games it won.
    """
    from policies import BUILTIN

    c = components_or_exit(components)
    names = policy or list(BUILTIN)
    check_policies_and_players(names, players)
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
                mark = "[green]" if row["ci_low"] > 0.5 else "[red]" if row["ci_high"] < 0.5 else ""
                end = "[/]" if mark else ""
                half = (row["ci_high"] - row["ci_low"]) / 2
                cells.append(f"{mark}{100 * row['win_rate']:.0f}±{100 * half:.0f}{end}")
            won = sub.filter(sub["policy"] == a)["winning_scores"].explode().drop_nulls()
            table.add_row(a, *cells, f"{100 * sum(rates) / len(rates):.0f}",
                          f"{won.mean():.0f}" if len(won) else "-")
        console.print(table)
    console.print("green: significantly above even, red: significantly below (95%). mean: the row's "
                  "mean win %. win pts: the row's mean total in the games it won.")


@app.command()
def tune(
    policy: str = typer.Argument(..., help="The policy to tune (name, module:attr or file.py:attr)."),
    opponent: list[str] = typer.Option(["start"], "--opponent", "-o",
                                       help="The field to beat, repeatable; 'start' is the policy itself "
                                            "with its starting parameters."),
    players: list[int] = typer.Option([2], "--players", "-p", help="Player counts, repeatable."),
    advanced: bool = typer.Option(False, "--advanced", help="Advanced game (setup sides)."),
    trials: int = typer.Option(30, "--trials", min=1, help="Candidates to try (optuna TPE)."),
    games: int = typer.Option(500, "--games", "-n", min=2,
                              help="Training games per candidate, opponent and player count (same deals "
                                   "for every candidate)."),
    validation_games: int = typer.Option(2000, "--validation-games", min=2,
                                         help="Fresh games per player count for the held-out check."),
    param: list[str] = typer.Option([], "--param",
                                    help="Tune this parameter: name=low:high or name=a,b,c (choices per "
                                         "entry, e.g. sides=-1,0,1); repeatable. Default: every number "
                                         "parameter within ±50% and the side table."),
    seed: int = typer.Option(0, "--seed", "-s"),
    out: Optional[Path] = typer.Option(None, "--out", help="Write the chosen parameters, the command "
                                                           "and the validation to this TOML file."),
    quiet: bool = typer.Option(False, "--quiet", "-q"),
    components: Optional[Path] = COMPONENTS_OPTION,
):
    """Tune a policy's parameters against a field, then check the choice on fresh deals.

    Every candidate plays the same training deals; the best must then beat the starting parameters
    head to head on fresh deals (95% Wilson interval above 50%), or nothing is written.
    """
    from ..tune import default_space, parse_range, to_toml
    from ..tune import tune as run_tune

    c = components_or_exit(components)
    check_policies_and_players([policy, *(o for o in opponent if o != "start")], players)
    try:
        space = dict(parse_range(p) for p in param) if param else default_space(policy)
    except ValueError as err:
        fail(str(err))
    argv = ["hadara-sim", "policies", "tune", policy, *[x for o in opponent for x in ("--opponent", o)],
            *[x for p in players for x in ("--players", str(p))], *(["--advanced"] if advanced else []),
            "--trials", str(trials), "--games", str(games), "--validation-games", str(validation_games),
            *[x for p in param for x in ("--param", p)], "--seed", str(seed),
            *(["--components", str(components)] if components else []), *(["--out", str(out)] if out else [])]
    with Progress(console=console, disable=quiet, transient=True) as progress:
        task = progress.add_task("trying candidates", total=trials)
        try:
            result = run_tune(c, policy, opponent, players, trials, games, validation_games, seed, advanced,
                              space, progress=lambda: progress.advance(task))
        except ValueError as err:
            fail(str(err))
    table = Table(title=f"{policy}: the chosen parameters against the starting ones on fresh deals")
    for column in ("players", "games", "win share", "95% CI (Wilson)"):
        table.add_column(column, justify="right")
    for m in result.validation:
        low, high = m.wilson()
        table.add_row(str(m.players), str(len(m.shares)), f"{100 * m.shares.mean():.1f}%",
                      f"[{100 * low:.1f}, {100 * high:.1f}]")
    console.print(table)
    console.print(f"training score (mean win share against the field): {100 * result.training_score:.1f}%")
    console.print("chosen: " + ", ".join(f"{k}={v}" for k, v in result.params.items()))
    if not result.passed:
        fail("the best candidate did not beat the starting parameters on fresh deals (held-out check "
             "failed), so nothing was written; try more --games per candidate or a narrower --param", code=1)
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(to_toml(result, argv), encoding="utf-8")
        console.print(f"wrote {out}")

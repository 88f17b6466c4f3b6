"""`hadara-sim policies`: list, show and rank the available policies."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Optional

import typer
from rich.markup import escape
from rich.progress import Progress

from ..constants import MAX_GAMES, MAX_SEED
from ..invocation import program
from ..registry import PolicyNotFound, about_policy, available_policies, resolve_policy, split_spec
from ..report.table import Table, styled
from .common import (COMPONENTS_OPTION, FORMAT_OPTION, check_format, components_or_exit, console, emit,
                     err_console, fail, playable_or_exit, policies_or_exit, recordable, split_specs,
                     writable_file)

app = typer.Typer(help="List, inspect and rank policies (built-ins, entry points, your own).",
                  no_args_is_help=True)


def check_policies(names: list[str]):
    """Exit with a one-line message if a policy cannot be found."""
    for name in names:
        try:
            resolve_policy(split_spec(name)[0])  # greedy:coin=1 was "write each parameter ... (greedy:coin=1=VALUE)"
        except PolicyNotFound as err:
            fail(str(err))


def _own_doc(cls) -> str:
    """The class's own docstring (not one inherited from the Policy base class); a factory's own. A
    `__doc__` that is no str (a class's `__doc__ = 5`, a property) is none."""
    doc = vars(cls).get("__doc__") if isinstance(cls, type) else getattr(cls, "__doc__", None)
    return inspect.cleandoc(doc) if isinstance(doc, str) and doc else ""


@app.command("list")
def list_(fmt: str = FORMAT_OPTION):
    """Every policy available by name, with its description and parameters."""
    fmt = check_format(fmt)
    table = Table("Policies", ["name", "description", "parameters"], [], wrap=("description",),
                  caption=f"parameters: how many; {program()} policies show NAME explains each one")
    for name, target in sorted(available_policies().items()):
        cls = target.load() if hasattr(target, "load") else target
        try:
            said = about_policy(name, cls)
        except PolicyNotFound as err:  # an installed policy that cannot say what it is: said in its row
            table.rows.append([name, str(err), "?"])
            continue
        about = said.description or _own_doc(cls)
        table.rows.append([name, about.split(". ")[0].rstrip(".") + ".", str(len(said.params))])
    emit([table], fmt)
    if fmt == "table":
        console.print("Use your own with --policy module:attr or --policy path/to/file.py:attr "
                      "(see docs/policies.md).")


@app.command()
def show(name: str = typer.Argument(..., help="A policy name, module:attr or file.py:attr."),
         fmt: str = FORMAT_OPTION):
    """One policy in full: what it does and every parameter with its default and meaning."""
    from hadara_sim.params import Param, kind_of
    from hadara_sim.policies.explain import value_text

    fmt = check_format(fmt)
    try:
        cls = resolve_policy(name)
        said = about_policy(name, cls)
    except PolicyNotFound as err:
        fail(str(err))
    about = said.description
    doc = _own_doc(cls)
    about_param = {k: said.declared.get(k, Param()) for k in said.params}
    table = Table(f"{said.name}: parameters", ["parameter", "default", "type", "meaning", "allowed"],
                  [[k, value_text(k, v), kind_of(v), about_param[k].help or "(not described)",
                    about_param[k].allowed()] for k, v in said.params.items()],
                  wrap=("meaning",),
                  caption="change one on the command line (--policy NAME:key=value), in a scenario (policies = "
                          "[{policy = \"NAME\", params = {...}}]) or from Python: hadara_sim.registry.make_policy(NAME, "
                          "key=value)")
    if fmt == "table":
        console.print(f"[bold]{escape(said.name)}[/]")
        if about:
            console.print(about, markup=False)
        if doc and doc != about:
            console.print(f"\n{doc}", markup=False)
        if table.rows:
            emit([table], fmt)
        else:
            console.print("No parameters.")
    else:
        emit([table], fmt, notes=[n for n in (about, doc) if n])


@app.command()
def ladder(
    games: int = typer.Option(1000, "--games", "-n", min=10, max=MAX_GAMES, help="Games per pair and player count."),
    players: list[int] = typer.Option([2, 3, 4], "--players", "-p", min=2, max=5, help="Player counts."),
    policy: list[str] = typer.Option([], "--policy", help="Policies to rank (default: every built-in, the "
                                                          "expert too where its weights fit the component set)."),
    seed: int = typer.Option(0, "--seed", "-s", min=0, max=MAX_SEED, help="Seed of the deals (and of random policies)."),
    advanced: bool = typer.Option(False, "--advanced", help="Advanced game."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    components: Optional[Path] = COMPONENTS_OPTION,
    fmt: str = FORMAT_OPTION,
):
    """Rank policies head to head, with 95% confidence intervals and Bradley-Terry ratings.

    Each policy plays each other on the same deals with seats rotated; the table gives the share
    of the wins that went to the row policy (50 = even) and its mean total in the games it won.
    """
    # imported here: the ladder's statistics (statsmodels, scipy, matplotlib) take seconds to load,
    # which every other command would pay at start-up
    import polars as pl

    from ..ladder import default_field, ladder_ratings
    from ..ladder import ladder as run_ladder
    from ..report.ratings import PRIOR_TEXT, RATING_UNITS

    fmt = check_format(fmt)
    c = components_or_exit(components)
    names, left_out = (split_specs(policy), "") if policy else default_field(c)
    players = list(dict.fromkeys(players))
    check_policies(names)
    playable_or_exit(policies_or_exit(names, len(names), seed), c)
    pairs = len(names) * (len(names) - 1) // 2 * len(players)
    with Progress(console=console, disable=quiet, transient=True) as progress:
        task = progress.add_task("playing", total=pairs)
        try:
            frame = run_ladder(c, names, players, games, seed, advanced, lambda: progress.advance(task))
        except (ValueError, PolicyNotFound) as err:
            fail(str(err))
    grids = []
    for p in players:
        sub = frame.filter(frame["players"] == p)
        row_mean = sub.group_by("policy").agg(pl.col("win_rate").mean().alias("row_mean"))
        won_points = (sub.select("policy", "winning_scores").explode("winning_scores").drop_nulls()
                      .group_by("policy").agg(pl.col("winning_scores").cast(pl.Float64).mean().alias("win_points")))
        table = Table(f"{p} players: % of the wins that went to the row policy against the column policy, "
                      f"with its 95% CI ({games} games per pair)", ["", *names, "mean", "win pts"], [],
                      caption="[95% Wilson interval]. * = differs from even (green above, red below) after Holm "
                              "correction over the pairs of the player count (q < 0.05). mean: the row's mean win %. "
                              "win pts: the row's mean total in the games it won. In csv and json a row per pair, "
                              "with the row policy's mean (row_mean_pct) and win pts (win_points).",
                      # csv and json: a row per pair with its numbers (the matrix's cells were text, "10 [2, 40]");
                      # the caption's mean and win pts were in the terminal alone
                      data=sub.select("policy", "opponent", "games", pl.col("win_rate").alias("win"),
                                      "ci_low", "ci_high", "q")
                      .join(row_mean, on="policy", how="left").join(won_points, on="policy", how="left"),
                      units={"row_mean": "%"})
        for a in names:
            cells, rates = [], []
            for b in names:
                if a == b:
                    cells.append("-")
                    continue
                row = sub.filter((sub["policy"] == a) & (sub["opponent"] == b)).row(0, named=True)
                rates.append(row["win_rate"])
                significant = row["q"] < 0.05
                # The interval itself: a symmetric ± ran past its bounds at the edges (100±4 for [91, 100]).
                digits = 0 if row["ci_high"] - row["ci_low"] >= 0.02 else 1  # never [50, 50]
                text = f"{100 * row['win_rate']:.{digits}f} [{100 * row['ci_low']:.{digits}f}, {100 * row['ci_high']:.{digits}f}]"
                # the star marks it where colour does not reach (a pipe, markdown, NO_COLOR)
                cells.append(styled(text + "*", "green" if row["win_rate"] > 0.5 else "red") if significant else text)
            won = sub.filter(sub["policy"] == a)["winning_scores"].explode().drop_nulls()
            table.rows.append([a, *cells, f"{100 * sum(rates) / len(rates):.0f}",
                               f"{won.mean():.0f}" if len(won) else "-"])
        grids.append(table)
        ratings = ladder_ratings(frame, p)
        grids.append(Table(f"{p} players: Bradley-Terry ratings (log-odds against the average policy, 95% CI "
                           "clustered on the deal)", ["policy", "rating", "95% CI"],
                           [[r["policy"], f"{r['rating']:+.2f}", f"[{r['low']:+.2f}, {r['high']:+.2f}]"]
                            for r in ratings.iter_rows(named=True)],
                           caption=PRIOR_TEXT if ratings["prior"].any() else "", data=ratings,
                           units=RATING_UNITS))
    emit(grids, fmt, notes=[left_out] if left_out else ())


@app.command()
def sides(
    policy: str = typer.Option("balanced", "--policy", help="A policy with side_choice (balanced and its kin)."),
    players: list[int] = typer.Option([2, 3, 4, 5], "--players", "-p", min=2, max=5, help="Player counts."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress line."),
    components: Optional[Path] = COMPONENTS_OPTION,
    fmt: str = FORMAT_OPTION,
):
    """The setup side per card that a policy finds by play on a component set, with the evidence.

    For each card its holder plays side A and side B on the same deals, every other seat on the
    policy's table; the side with the higher win share is taken where its 95% interval is clear of
    zero, else the table's entry stays. Kept per component set and player count (~/.cache/hadara-sim,
    or $HADARA_SIM_CACHE), so a run does not play it again.
    """
    from ..registry import make_policy

    fmt = check_format(fmt)
    c = components_or_exit(components)
    check_policies([policy])
    try:
        bot = make_policy(policy, side_choice="derived")
    except PolicyNotFound as err:
        fail(str(err))
    except ValueError:
        fail(f"policy '{policy}' has no side_choice parameter: its sides are not found by play "
             "(try --policy balanced)")
    playable_or_exit([bot], c)
    import polars as pl

    from hadara_sim.policies.sides import derived_sides

    grids = []
    for p in players:
        if not quiet:
            err_console.print(f"side trial at {p} players (a few seconds unless kept from before)", highlight=False)
        trial = derived_sides(bot, c, p)
        # A side is found by play only where its interval clears zero; elsewhere the tuned entry stays.
        why = ["B above A" if low > 0 else "A above B" if high < 0 else "undecided: tuned entry kept"
               for low, high in zip(trial.low, trial.high)]
        rows = [[str(card), "valuation" if side < 0 else "AB"[side], because, f"{trial.deals:,}", f"{100 * effect:+.1f}",
                 f"[{100 * low:+.1f}, {100 * high:+.1f}]"]
                for card, side, because, effect, low, high in zip(range(1, 6), trial.sides, why, trial.effect,
                                                                  trial.low, trial.high)]
        grids.append(Table(f"{policy}, {p} players: side per setup card, found by play on {c.digest}",
                           ["card", "side", "because", "n (deals, at most)", "B - A (pp)", "95% CI"], rows,
                           caption=f"relative contrast: the holder's win share on side B minus on side A, paired "
                                   f"on up to {trial.deals} deals per card (95% t interval), every other seat on the "
                                   f"table; {trial.rounds} round(s) until the table repeated. An interval across "
                                   "zero keeps the tuned entry (valuation: the planner's own).",
                           data=pl.DataFrame({"players": [p] * 5, "card": list(range(1, 6)),
                                              "side": ["valuation" if x < 0 else "AB"[x] for x in trial.sides],
                                              "because": why,
                                              "diff_pp": [100 * x for x in trial.effect],
                                              "diff_low_pp": [100 * x for x in trial.low],
                                              "diff_high_pp": [100 * x for x in trial.high],
                                              "deals": [trial.deals] * 5}), units=None))
    emit(grids, fmt)


@app.command()
def tune(
    policy: str = typer.Argument(..., help="The policy to tune (name, module:attr or file.py:attr)."),
    opponent: list[str] = typer.Option(["start"], "--opponent", "-o",
                                       help="The field to beat, repeatable; 'start' is the policy itself "
                                            "with its starting parameters."),
    players: list[int] = typer.Option([2], "--players", "-p", min=2, max=5, help="Player counts, repeatable."),
    advanced: bool = typer.Option(False, "--advanced", help="Advanced game (setup sides)."),
    trials: int = typer.Option(30, "--trials", min=1, max=MAX_GAMES, help="Candidates to try (optuna TPE)."),
    games: int = typer.Option(500, "--games", "-n", min=2, max=MAX_GAMES,
                              help="Training games per candidate, opponent and player count (same deals "
                                   "for every candidate)."),
    validation_games: int = typer.Option(2000, "--validation-games", min=2, max=MAX_GAMES,
                                         help="Fresh games per player count for the held-out check."),
    param: list[str] = typer.Option([], "--param",
                                    help="Tune this parameter: name=low:high or name=a,b,c (choices per "
                                         "entry, e.g. sides=-1,0,1); repeatable. Default: every number "
                                         "parameter within ±50% and the side table."),
    seed: int = typer.Option(0, "--seed", "-s", min=0, max=MAX_SEED, help="Seed of the training and validation deals."),
    out: Optional[Path] = typer.Option(None, "--out", help="Write the chosen parameters, the command "
                                                           "and the validation to this TOML file."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    components: Optional[Path] = COMPONENTS_OPTION,
    fmt: str = FORMAT_OPTION,
):
    """Tune a policy's parameters against a field, then check the choice on fresh deals.

    Every candidate plays the same training deals; the best must then beat the starting parameters
    head to head on fresh deals (95% Wilson interval above 50%), or nothing is written.
    """
    import shlex

    from ..tune import default_space, parse_range, to_toml
    from ..tune import tune as run_tune

    fmt = check_format(fmt)
    total = trials * games * len(opponent) * len(players) + validation_games * len(players)
    if total > MAX_GAMES:  # each option within its range, their product an endless run behind a progress bar
        fail(f"--trials {trials:,} x --games {games:,} x {len(opponent)} opponent field(s) x {len(players)} player "
             f"count(s) is {total:,} games in all, more than any run plays ({MAX_GAMES:,}); give fewer --trials "
             "or --games")
    if out is not None:
        writable_file(out)
    c = components_or_exit(components)
    field = [policy, *(o for o in opponent if o != "start")]
    check_policies(field)
    playable_or_exit(policies_or_exit(field, len(field), seed), c)  # else it failed at its first decision
    try:
        ranges = [parse_range(p) for p in param]
        space = dict(ranges) if param else default_space(policy, advanced)
    except ValueError as err:
        fail(str(err))
    twice = sorted({name for name, _ in ranges if [n for n, _ in ranges].count(name) > 1})
    if twice:  # the last one was tuned, the others dropped without a word
        fail(f"--param {', '.join(twice)} is given more than once; give each parameter one range or set of choices")
    argv = [program(), "policies", "tune", policy, *[x for o in opponent for x in ("--opponent", o)],
            *[x for p in players for x in ("--players", str(p))], *(["--advanced"] if advanced else []),
            "--trials", str(trials), "--games", str(games), "--validation-games", str(validation_games),
            *[x for p in param for x in ("--param", p)], "--seed", str(seed),
            *(["--components", str(components)] if components else []), *(["--out", str(out)] if out else [])]
    if out is not None:
        recordable(shlex.join(argv), out)
    with Progress(console=console, disable=quiet, transient=True) as progress:
        task = progress.add_task("trying candidates", total=trials)
        try:
            result = run_tune(c, policy, opponent, players, trials, games, validation_games, seed, advanced,
                              space, progress=lambda: progress.advance(task))
        except (ValueError, PolicyNotFound) as err:
            fail(str(err))
    import polars as pl

    chosen = ", ".join(f"{k}={v}" for k, v in result.params.items())
    rows, numbers = [], []
    for m in result.validation:
        low, high = m.wilson()
        rows.append([str(m.players), str(len(m.shares)), f"{100 * m.shares.mean():.1f}%",
                     f"[{100 * low:.1f}, {100 * high:.1f}]"])
        numbers.append({"players": m.players, "games": len(m.shares), "win": float(m.shares.mean()), "win_low": low,
                        "win_high": high})
    # The numbers behind the cells: csv and json wrote the cells, "30.0%" and "[10.8, 60.3]", as text.
    emit([Table(f"{policy}: the chosen parameters against the starting ones on fresh deals",
                ["players", "games", "win share", "95% CI (Wilson)"], rows,
                caption=f"training score (mean win share against the field): {100 * result.training_score:.1f}%; "
                        f"chosen: {chosen}",
                data=pl.DataFrame(numbers, schema={"players": pl.Int64, "games": pl.Int64, "win": pl.Float64,
                                                   "win_low": pl.Float64, "win_high": pl.Float64}))], fmt)
    if not result.passed:
        fail("the best candidate did not beat the starting parameters on fresh deals (held-out check "
             "failed), so nothing was written; try more --games per candidate or a narrower --param", code=1)
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(to_toml(result, argv), encoding="utf-8")
        err_console.print(f"wrote {out}", markup=False, highlight=False)

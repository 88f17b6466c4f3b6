"""`hadara-sim simulate SCENARIO`: a batch run into a results directory (thin layer over runner)."""

from __future__ import annotations

import hashlib
import json
import re
import warnings
from dataclasses import replace
from pathlib import Path
from typing import Optional

import typer
from rich.markup import escape

from ..constants import MAX_GAMES, MAX_SEED
from ..process import BACKENDS
from ..report.table import Table
from .common import FORMAT_OPTION, check_format, components_or_exit, console, emit, err_console, fail
from ..invocation import command, resume_command
from .limits import jobs_or_exit


def register(app: typer.Typer):
    app.command()(simulate)


def simulate(
    scenario: Optional[Path] = typer.Argument(None, help="Scenario file (TOML), e.g. scenarios/default.toml; a shipped "
                                  "scenario also by its name from any folder (default, seats, ...).",
                                    show_default=False),
    games: Optional[int] = typer.Option(None, "--games", "-n", min=1, max=MAX_GAMES,
                                        help="Games (deals) per combination; overrides the scenario's."),
    seed: Optional[int] = typer.Option(None, "--seed", "-s", min=0, max=MAX_SEED, help="Seed; overrides the scenario's."),
    players: Optional[int] = typer.Option(None, "--players", "-p", min=2, max=5,
                                          help="Player count; overrides the scenario's (as --set players=N)."),
    settings: list[str] = typer.Option([], "--set", metavar="KEY=VALUE",
                                       help="Change any value of the scenario, checked as in the file: a "
                                            "dotted key and a TOML value, e.g. --set game=advanced, --set "
                                            "'policies=[\"balanced\",\"military\"]' (repeat for more)."),
    jobs: int = typer.Option(-1, "--jobs", "-j", help="Parallel processes (-1: all cores)."),
    out: Optional[Path] = typer.Option(None, "--out", "-o",
                                       help="Results directory (default: results/ and the scenario's name)."),
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
    trace_games: int = typer.Option(0, "--trace-games", min=0, max=1000,
                                    help="Also write the traces of this many games (up to 1000), spread over the "
                                         "run, to OUT/traces (each replayed by the reference engine and "
                                         "checked against the dataset)."),
    dry_run: bool = typer.Option(False, "--dry-run",
                                 help="Check the scenario, print the plan and how long it would take, and "
                                      "stop: nothing is played or written."),
    fmt: str = FORMAT_OPTION,
):
    """Play a scenario's games in parallel chunks and write them as Parquet files plus metadata.json.

    Running the same command again after an interruption plays only the missing chunks. A run
    expected to take more than half a minute says how long first (`--dry-run` says only that)."""
    # The library is imported here, not at start-up: it loads the compiled engine, which `--help`
    # and every other command would pay for.
    from ..policy import IllegalChoice
    from ..process import Terminated, sigterm_as_interrupt
    from .. import provenance
    from ..results import ResultsError, our_parts, read_metadata, scan_results
    from ..chunks import plan_chunks
    from ..runner import RunError, RunFailed, check_out, check_scheduler, run
    from ..scenario.checks import DesignWarning, ScenarioError
    from ..scenario.read import load_scenario, shipped_scenario, shipped_scenarios

    if scenario is None:  # click said only "Missing argument 'scenario'"
        fail(f"give a scenario: a TOML file, or a shipped one by name ({', '.join(shipped_scenarios())}), e.g. "
             f"{command('simulate', 'default', '--games', '2000')}")
    fmt = check_format(fmt)
    talk = console if fmt == "table" else err_console  # csv or json: standard output is the table alone
    if backend not in BACKENDS:
        fail(f"--backend must be {' or '.join(BACKENDS)}, got '{backend}'")
    jobs = jobs_or_exit(jobs)
    both = [s for s in settings if s.partition("=")[0].strip() == "players"] if players is not None else []
    if both:  # which one wins is no more than the order they were applied in
        fail(f"--players {players} and --set {both[0]} both set the player count; give it once: drop --players "
             "or that --set")
    if scheduler is not None:
        if backend != "dask":
            fail("--scheduler is for --backend dask; add --backend dask")
        try:
            check_scheduler(scheduler)
        except RunError as err:
            fail(str(err))
    try:
        if components is not None:
            components_or_exit(components)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", DesignWarning)
            settings = ([f"players={players}"] if players is not None else []) + list(settings)
            sc = load_scenario(scenario, components=components, settings=settings).with_overrides(games=games,
                                                                                                seed=seed)
    except KeyboardInterrupt:
        talk.print("\n[yellow]interrupted[/] before anything was written", highlight=False)
        raise typer.Exit(130)
    except ScenarioError as err:
        # --players went in as the setting players=N: a problem with it names the option the user typed
        typed = {f"--set players={players}": f"--players {players}"} if players is not None else {}
        fail(f"the scenario is not valid ({len(err.problems)} problem{'s' * (len(err.problems) > 1)}):\n"
             + "\n".join(f"  {replace(p, file=typed.get(p.file, p.file))}" for p in err.problems))
    shipped = shipped_scenario(scenario)
    if shipped is not None and not quiet:
        err_console.print(f"note: no file {scenario} here: the shipped scenario {shipped}", markup=False,
                          highlight=False, soft_wrap=True)
    for w in dict.fromkeys(str(w.message) for w in caught):
        talk.print(f"[yellow]warning:[/] {escape(w)}", highlight=False)
    out = out if out is not None else Path("results") / changed_name(sc.name, settings)
    if trace_games:
        from ..sample import sample_ids, unreplayable

        problem = next(filter(None, (unreplayable(sc.combinations[combo])
                                     for combo, _ in sample_ids(sc.games, len(sc.combinations), trace_games))), None)
        if problem:
            fail(f"--trace-games {trace_games}: {problem}; run without --trace-games")
    chunks = plan_chunks(sc)
    if not quiet:
        talk.print(f"[bold]{escape(sc.name)}[/]: {sc.games:,} games x {len(sc.combinations)} combination"
                   f"{'s' * (len(sc.combinations) > 1)} = {sc.total_games:,} games in {len(chunks):,} "
                   f"chunk{'s' * (len(chunks) > 1)} of up to {sc.chunk:,}; seed {sc.seed} -> {escape(str(out))}", highlight=False, soft_wrap=True)

    def chunks_done() -> int:
        return len(our_parts(out)) if out.is_dir() else 0

    def complete() -> str:
        return f"{chunks_done():,} of {len(chunks):,} chunks are complete in {out}"

    from ..estimate import LONG_SECONDS, estimate_run

    try:
        here = check_out(sc, out, overwrite)  # what the run would refuse, before estimating it
    except RunError as err:
        fail(str(err))
    done = len(our_parts(out)) if here is not None else 0
    left = max(0.0, 1.0 - done / max(1, len(chunks)))
    guess = estimate_run(sc, jobs, games=round(sc.games * left)) if backend == "local" else None
    if dry_run:
        talk.print(f"dry run: {done:,} of {len(chunks):,} chunks already in {escape(str(out))}; "
                   + (f"the rest would take {guess.text()}" if guess else
                      "the time on a dask cluster depends on its workers") + "; nothing was played or written",
                   highlight=False, soft_wrap=True)
        return
    if guess is not None and guess.seconds > LONG_SECONDS and not quiet:
        talk.print(f"expected: {guess.text()}", highlight=False, soft_wrap=True)

    try:
        with sigterm_as_interrupt():
            summary = run(sc, out, jobs=jobs, backend=backend, scheduler=scheduler, overwrite=overwrite,
                          quiet=quiet, console=talk)
    except RunError as err:
        fail(str(err))
    except RunFailed as err:
        fail(f"{err}\n{complete()}", code=1)
    except IllegalChoice as err:
        fail(f"{err}\n{complete()}; fix the policy, then run again" + (
            " (with --overwrite once its code changed: the chunks played by the old code cannot be mixed with "
            "the new)" if chunks_done() else ""), code=1)
    except KeyboardInterrupt as err:
        talk.print(f"\n[yellow]{'terminated' if isinstance(err, Terminated) else 'interrupted'}[/]: "
                   f"{escape(complete())}; to play the rest, run the same command again:\n  "
                   f"{escape(resume_command())}", highlight=False, soft_wrap=True)
        raise typer.Exit(143 if isinstance(err, Terminated) else 130)
    if trace_games:
        write_sample_traces(out, trace_games, sc, quiet, talk)
    if quiet:
        return
    if summary.played:
        talk.print(f"played {summary.games_played:,} games in {summary.seconds:.1f} s "
                   f"({summary.rate:,.0f} games/s); {summary.already} of {summary.chunks} "
                   f"{'chunks were' if summary.chunks > 1 else 'chunk was'} already there", highlight=False, soft_wrap=True)
    else:
        talk.print(f"{f'all {summary.chunks} chunks were' if summary.chunks > 1 else 'the chunk was'} already in "
                   f"{out}: nothing to play", markup=False, highlight=False)
    try:
        emit([win_table(scan_results(out, sweep_columns=False), sc.name, out)], fmt,
             footer_data=provenance.of_run(read_metadata(out)))  # json's provenance, as --format says
    except ResultsError as err:
        fail(str(err))
    except KeyboardInterrupt:
        talk.print(f"\n[yellow]interrupted[/] while reading the table back: the run is whole ({escape(complete())}), "
                   f"nothing was lost; its report: {escape(next_report(sc, out))}",
                   highlight=False, soft_wrap=True)
        raise typer.Exit(130) from None
    if fmt == "table":
        console.print(f"next: {escape(next_report(sc, out))}", highlight=False, soft_wrap=True)


def combination_words(label: str) -> str:
    """A combination's label in results (JSON of its swept values) in words: '{"grants": "none"}' ->
    'no grant (the control)', '{"players": 3, "policies": ["balanced"]}' -> '3 players, balanced'."""
    from ..report.fields import value_label  # not `sections`: it imports matplotlib

    try:
        values = json.loads(label)
    except ValueError:
        return label
    if not isinstance(values, dict):
        return label
    words = []
    for key, value in values.items():
        if key == "grants":
            words.append("no grant (the control)" if value == "none" else f"grant {value}")
        elif key in ("players", "game", "policies", "seats"):
            words.append(value_label(key if key in ("players",) else f"sweep_{key}", value)
                         if key != "game" else str(value))
        else:
            words.append(f"{key} = {value}")
    return ", ".join(words)


def grid_focus(lf):
    """The focus seat of each combination of a setup grid, as a frame of `sweep` (its label) and
    `focus` (-1: it rotates with the deal), or None for a run without a grid."""
    import polars as pl

    labels = lf.select(pl.col("sweep").unique()).collect()["sweep"].to_list()
    focus = {}
    for label in labels:
        try:
            values = json.loads(label)
        except (TypeError, ValueError):
            return None
        seat = values.get("setup.focus_seat") if isinstance(values, dict) else None
        if seat is None:
            return None
        focus[label] = -1 if seat == "rotate" else int(seat)
    return pl.LazyFrame({"sweep": list(focus), "focus": list(focus.values())},
                        schema={"sweep": pl.String, "focus": pl.Int64}) if focus else None


def treated_rows(lf):
    """The rows of the seat a grant or restricted play treats (rotating with the deal or fixed), and in
    a combination that treats none (the control) the same seats of the same deals; None for a run
    that treats no seat."""
    import polars as pl

    marked = pl.any_horizontal(pl.col("granted", "seek", "avoid").is_not_null())
    if not lf.select(marked.any()).collect().item():
        return None
    seats = lf.filter(marked).select("game", "seat").unique().with_columns(pl.lit(True).alias("treated_seat"))
    combos = lf.group_by("sweep").agg(marked.any().alias("treats"))
    return (lf.join(combos, on="sweep").join(seats, on=["game", "seat"], how="left")
            .filter(pl.when(pl.col("treats")).then(marked).otherwise(pl.col("treated_seat").fill_null(False))))


def grant_report(grants) -> str:
    """The report of a grant sweep over `grants` (card or effect ids): `purple` for purple cards and
    effects, `cards` for the others."""
    return "purple" if any("-P-" in g or "_" in g for g in grants if g != "none") else "cards"


def next_report(sc, out: Path) -> str:
    """The report that reads this run's design (its sweep, set-up grid or seating), as a command to type."""
    def report(name: str) -> str:
        """The report `name` of this run."""
        return command("report", name, str(out))

    sweep = sc.sweep
    grants = [str(v) for v in sweep.get("grants", [])]
    numeric = [k for k in sweep if k.startswith("components.")]
    if grants:
        return (report("purple") + " (what each purple effect is worth against the control)"
                if grant_report(grants) == "purple"
                else report("cards") + " (each granted card against the control and its colour)")
    if "restrict" in sweep:
        return report("cards") + " (each card sought and avoided against the control: its worth at its price)"
    if len(numeric) in (1, 2):
        return report("curve") + (" (the win share over the swept value and where it is fair)"
                                          if len(numeric) == 1 else " (the surface of the two swept values)")
    if any(c.setup_card is not None or c.setup_side is not None for c in sc.combinations):  # a grid of sides alone too
        return report("setup-cards") + " (each setup card side against the fair share, and B - A)"
    if any(len({(p.policy, repr(p.params)) for p in c.config.policies}) > 1 for c in sc.combinations):
        return report("ratings") + " (each policy's strength against the others)"
    return report("seats") + " (one policy on every seat: what the seat and turn order are worth)"


NAME_LIMIT = 200  # a folder name's length, well under the file systems' 255 bytes


def changed_name(name: str, settings: list[str]) -> str:
    """The default results directory's name of a scenario changed by settings: its own name and
    each setting ('default-players=3'), so that it never meets the unchanged run's directory. A name
    too long keeps its start and ends in a digest of the whole: cut alone, two runs met in one folder."""
    whole = "-".join([name, *(re.sub(r"[^\w.=,+-]+", "_", s).strip("_") for s in settings)])
    if len(whole) <= NAME_LIMIT:
        return whole
    digest = hashlib.sha256("\0".join([name, *settings]).encode()).hexdigest()[:12]
    return f"{whole[:NAME_LIMIT - 13]}-{digest}"


def write_sample_traces(out: Path, k: int, sc, quiet: bool, talk=console) -> None:
    """Traces of k games spread over the run, each verified, as OUT/traces/game-cC-gG.jsonl."""
    from ..results import TRACES_DIR, read_metadata, trace_path
    from ..sample import SampleError, SampleMismatch, outside_code, sample_ids, verified_game
    from ..trace import write_trace

    folder = out / TRACES_DIR
    folder.mkdir(parents=True, exist_ok=True)
    ids = sample_ids(sc.games, len(sc.combinations), k)
    for combo, game in ids:
        try:
            sample, _ = verified_game(out, game, combo, scenario=sc)
        except SampleError as err:
            fail(f"cannot trace game {game} of combination {combo}: {err}",
                 code=1 if isinstance(err, SampleMismatch) else 2)
        write_trace(sample.records, trace_path(out, combo, game))
    if not quiet:
        # --trace-games beyond the run's games traces every game: said, not capped silently
        what = (f"all {sc.total_games} game traces (--trace-games {k} asked for more than the run's "
                f"{sc.total_games} games)" if k > sc.total_games else f"{k} game traces")
        # show-game needs the run and the game (the bare command name did not run), and a run of policies
        # given as code --allow-code: this run just played that code
        combo, game = ids[-1]
        show = command("show-game", str(out), "--game", str(game), *(["--combo", str(combo)] if combo else []),
                       *(["--allow-code"] if outside_code(read_metadata(out)) else []))
        talk.print(f"wrote {what} to {folder} (each replayed by the reference "
                   f"engine and matched with the dataset; tell one with {show})", markup=False, highlight=False)


def win_table(results, title: str, out: Path, limit: int = 40) -> Table:
    """Win rate per combination and policy (per seat when one policy plays every seat; in a setup grid,
    of the focus seat, as `report setup-cards` gives it) with its sample size and 95% CI, as `report winrate` estimates them (`estimates.mean_ci` of the win share as
    `report.wins.win_rates` calls it: the win share over deals, Wilson's interval on the
    deal-clustered effective sample size), its fair share and the mean total (over deals too), from a
    LazyFrame or DataFrame of results (only the columns it needs are read). Nothing is pooled over the
    combinations of a sweep. The tests `win_rates` adds against the fair share, not shown here, are
    left to the report, which its caption names as a command on `out` (a sweep's 86 rows: 0.19 -> 0.03 s)."""
    import polars as pl

    from ..report.estimates import CLUSTER, mean_ci

    lf = results.lazy()
    combinations, policies = lf.select(pl.col("sweep", "policy_label").n_unique()).collect().row(0)
    several, one_policy = combinations > 1, policies == 1
    # A grid, a grant or restricted play treats one seat, rotating with the deal: every seat's rate,
    # near 1/P whatever the treatment, hid it; the treated seat's rows alone show it.
    focus, treated = grid_focus(lf), None
    if focus is not None:
        lf = lf.join(focus, on="sweep").filter(pl.col("seat") == pl.when(pl.col("focus") < 0).then(
            pl.col("game") % pl.col("players").cast(pl.Int64)).otherwise(pl.col("focus")))
    else:
        treated = treated_rows(lf)
    if treated is not None:
        restricted = lf.select(pl.col("seek", "avoid").is_not_null().any()).collect().row(0)
        granted = lf.select(pl.col("granted").drop_nulls().unique()).collect()["granted"].to_list()
        whose = "the restricted seat's " if any(restricted) else "the granted seat's "
        report = command("report", "cards" if any(restricted) else grant_report(granted), str(out))
        lf = treated
    one_seat = focus is not None or treated is not None
    # the treated seat alone needs no seat column, but a run of one combination keys its rows on it
    who = None if one_seat and one_policy and several else "seat" if one_policy else "policy_label"
    keys = [k for k in ("sweep" if several else None, who) if k]
    df = lf.select(*keys, CLUSTER, "players", "win_share", "total").collect()
    means = (df.group_by([*keys, CLUSTER])
             .agg(pl.col("total").cast(pl.Float64).mean(), (1.0 / pl.col("players").cast(pl.Float64)).mean().alias("fair"))
             .group_by(keys).agg(pl.col("total").mean(), pl.col("fair").mean()))
    stats = mean_ci(df, "win_share", keys, rate=True).join(means, on=keys, how="left", maintain_order="left")
    if several:  # the control (a grant of none) first, so that a cut table never hides it
        stats = stats.sort(pl.col("sweep").str.contains('"none"').not_(), maintain_order=True)
    shown = stats.head(limit)
    # csv and json: the numbers, each unit in its column's name, as the reports write theirs (the cells
    # went out as text, "34.0%" and "[22.4, 47.8]")
    named = [{"seat": "seat", "policy_label": "policy"}[who]] if who else []
    per = " and ".join([*named, *(["combination"] if several else [])])
    whose = "the focus seat's " if focus is not None else whose if treated is not None else ""
    control = ", in the control the same seats of the same deals" if treated is not None and several else ""
    table = Table(f"{title}: {whose}win rate{' per ' + per if per else ''}{control} (fair share = 1 / players)",
                  [*(["combination"] if several else []), *named, "seats played", "win rate", "95% CI", "fair share",
                   "mean total"], [],
                  data=shown.select(*keys, "n", "rows", "mean", "ci_low", "ci_high", "fair", "total"),
                  units={"total": "points"})
    for row in shown.iter_rows(named=True):
        cells = [combination_words(row["sweep"])] if several else []
        cells += [*([str(row[who])] if who else []), f"{row['rows']:,}", f"{100 * row['mean']:.1f}%",
                  f"[{100 * row['ci_low']:.1f}, {100 * row['ci_high']:.1f}]", f"{100 * row['fair']:.1f}%",
                  f"{row['total']:.1f}"]
        table.rows.append(cells)
    # the report of these very rows: `report winrate` alone groups by policy and pools a grant sweep's
    # combinations, which said nothing of a table per seat
    tests = "gives these rows with their tests against the fair share, corrected over the table, and verdicts"
    if treated is not None:
        tests = "compares each with the control on the same deals and seats, with its verdict"
    elif focus is not None:
        report = command("report", "setup-cards", str(out))
    else:
        report = command("report", "winrate", str(out), *(["--by", "combination"] if several else []),
                         "--by", "seat" if one_policy else "policy")
    caption = ("a first look: win rate and mean total over deals, 95% CI: Wilson on the deal-clustered effective "
               f"sample size; no test, so no correction: `{report}` {tests}")
    if len(stats) > limit:
        caption = f"first {limit} of {len(stats)} rows; " + caption
    table.caption = caption
    return table

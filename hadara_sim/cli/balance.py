"""`hadara-sim balance suggest|check|sensitivity`: the smallest fix of each unfair setup card side,
the fairness of every side (or the worth of named cards at their price) with a set of overrides, and
how far each verdict rests on the estimated values (thin layer over hadara_sim.balance,
hadara_sim.balance_fit and hadara_sim.sensitivity)."""

from __future__ import annotations

import math
import shlex
import time
from pathlib import Path
from typing import Optional

import typer

from ..constants import MAX_GAMES
from ..invocation import program
from ..report.table import Table
from .balance_fit import fit
from .balance_options import (COMPONENTS, DRY_RUN, GAMES, JOBS, MARGIN, OVERRIDES, PLAYERS, POLICY, QUIET, SEED,
                              expect, failing, plan_or_exit, took, working)
from .common import FORMAT_OPTION, check_format, emit, err_console, fail, writable_folder

app = typer.Typer(help="Balance what-ifs: changes of component values that make the game fair.",
                  no_args_is_help=True)

def _estimates(plan, estimate):
    """The plan's estimates, or a clean failure when its scenario is not valid."""
    from ..scenario.checks import ScenarioError

    try:
        return estimate(plan)
    except ScenarioError as err:
        fail("the plan is not valid:\n" + "\n".join(f"  {p}" for p in err.problems))


def _changes(overrides: dict) -> str:
    """The setup card values an override table changes, in words: '3B culture 2, coins 5'."""
    return "; ".join(f"{name} " + ", ".join(f"{k} {v}" for k, v in values.items())
                     for name, values in overrides.get("setup", {}).items())


def _sides_table(plan, sides) -> Table:
    import polars as pl

    from ..component_files import load_components
    from ..provenance import component_set, verdict_scope
    from ..report.verdict import correction_text, equivalence_caption
    from ..report.sections import pct, pct_ci, pp, pval

    changed = _changes(plan.overrides)
    scope = verdict_scope([f"{plan.policy} on every seat"], component_set(load_components(plan.components)))
    verdicts = [s.judged for s in sides]
    data = pl.DataFrame({"side": [s.name for s in sides], "n": [v.n for v in verdicts],
                         "win": [s.win for s in sides], "win_low": [s.low for s in sides],
                         "win_high": [s.high for s in sides], "vs_fair": [v.diff for v in verdicts],
                         "tost_p": [v.equiv_p for v in verdicts], "q_equiv": [v.q_equiv for v in verdicts],
                         "verdict": [v.words for v in verdicts], "more": [v.more for v in verdicts],
                         "more_games": [s.more_games for s in sides], "fair": [v.equivalent for v in verdicts],
                         "mark": ["" if v.equivalent else "not shown fair" for v in verdicts]},
                        schema_overrides={"more": pl.Float64, "more_games": pl.Float64})
    return Table(
        f"Setup card sides at {plan.players} players ({plan.policy} on every seat, advanced game, sides at "
        f"random{'; with ' + changed if changed else ''})",
        ["side", "n deals", "win share", "95% CI", "vs 1/P", "TOST p", "q (TOST)", "verdict vs 1/P"],
        [[s.name, f"{v.n:,}", pct(s.win), pct_ci(s.low, s.high), pp(v.diff), pval(v.equiv_p),
          pval(v.q_equiv), v.text(s.games)] for s, v in zip(sides, verdicts)],
        caption=(f"fair share 1/P = {100 / plan.players:.1f}%; win share: 95% Wilson CI; the verdicts of `report "
                 f"setup-cards`: stronger / weaker = differs from 1/P ({correction_text(len(sides))}); "
                 f"{equivalence_caption(len(sides), plan.margin)}; undecided = neither, with about how many more "
                 f"deals holding the side would decide it with 80 % chance under the Holm correction if the "
                 f"difference measured were the true one (and the --games of the baseline that brings them: a "
                 f"side is held in only some of its deals); "
                 f"marked = not shown fair; {scope}"),
        marked=[not v.equivalent for v in verdicts], data=data)


@app.command()
def check(players: int = PLAYERS, policy: str = POLICY, games: int = GAMES, margin: float = MARGIN,
          seed: int = SEED, jobs: int = JOBS, components: Optional[Path] = COMPONENTS,
          overrides: Optional[Path] = OVERRIDES,
          card: Optional[list[str]] = typer.Option(None, "--card", show_default=False,
                                                   help="Judge cards instead of the sides: whether each is worth its "
                                                        "price (seek minus avoid level, TOST against 0), e.g. II-B-02 "
                                                        "or II-P for every purple card of epoch II (repeat); --games "
                                                        "of each seek and avoid."),
          dry_run: bool = DRY_RUN, quiet: bool = QUIET, fmt: str = FORMAT_OPTION):
    """Win share of every setup card side with an equivalence verdict (TOST against 1/P), on the
    component set with the given overrides: check a fix on new deals (another --seed). With --card,
    each named card's seek minus avoid (restricted play, one rotating seat) against 0 instead: check
    a `balance fit --card` set."""
    from ..balance import baseline, estimate
    from ..runner import RunError

    fmt = check_format(fmt)
    plan = plan_or_exit(players, policy, games, margin, seed, jobs, components, overrides)
    if card:
        _check_cards(card, plan, dry_run, quiet, fmt)
        return
    base, _ = _estimates(plan, estimate)
    if expect(base.text(), base.seconds, dry_run, quiet):
        return
    start = time.perf_counter()
    try:
        with working(f"{games:,} games", quiet):
            sides = baseline(plan)
    except RunError as err:
        fail(str(err))
    emit([_sides_table(plan, sides)], fmt)
    took(start, quiet)


def _check_cards(names: list[str], base, dry_run: bool, quiet: bool, fmt: str):
    """`balance check --card`: every named card's worth at its price on the set with the overrides."""
    from .. import balance_fit as F
    from ..balance_fit.cards import printed_costs
    from ..component_files import load_components
    from ..provenance import component_set, verdict_scope
    from ..report.verdict import correction_text, equivalence_caption, render

    with failing():
        components = load_components(base.components)
        plan = F.CardPlan(cards=names, players=[base.players],
                          policy=base.policy, margin=base.margin, seed=base.seed, components=base.components,
                          overrides=base.overrides, jobs=base.jobs)
        guess = F.check_cards_estimate(plan, base.games)
    cards = f"{len(plan.cards)} card{'s' * (len(plan.cards) > 1)}"
    if expect(f"{guess.text()} ({cards}, each sought and avoided)", guess.seconds, dry_run, quiet):
        return
    start = time.perf_counter()
    with failing(), working(f"{base.games:,} games x {2 * len(plan.cards)} restrictions", quiet):
        table = F.check_cards(plan, base.seed, base.games)
    changed = "; ".join(f"{k} cost {v['cost']}" for k, v in base.overrides.get("cards", {}).items() if "cost" in v)
    costs = printed_costs(components.with_overrides(plan.overrides), plan.cards)
    scope = verdict_scope([f"{plan.policy} on every seat"], component_set(components))
    emit([Table(
        f"Cards at {base.players} players: seek - avoid ({plan.policy} on every seat, advanced game, one rotating "
        f"seat restricted{'; with ' + changed if changed else ''})",
        ["card", "cost", "n deals", "seek - avoid", "95% CI", "verdict vs 0"],
        [[r["card_id"], str(costs[r["card_id"]]), f"{r['n']:,}", f"{100 * r['diff']:+.1f}",
          f"[{100 * r['low']:+.1f}, {100 * r['high']:+.1f}]", render(r, games=base.games, option="--games", margin=plan.margin)]
         for r in table.to_dicts()],
        caption=(f"pp of win share; a relative contrast: seeking the card (buying it whenever offered and "
                 f"affordable) minus avoiding it, paired on the deal, against 0 (worth its price); stronger = "
                 f"worth more than it costs; CI: t over deals; stronger / weaker: {correction_text(table.height)}; "
                 f"{equivalence_caption(table.height, plan.margin)}; marked = not shown level; {scope}"),
        marked=[not f for f in table["fair"].to_list()],
        data=table.select("card_id", "n", "diff", "low", "high", "equiv_p", "q_equiv", "verdict", "more", "fair"),
        units={"diff": "pp", "low": "pp", "high": "pp"})], fmt)
    took(start, quiet)


def check_command(players: int, policy: str, margin: float, seed: int, components: Path | None,
                  out: Path | None) -> str:
    """The `balance check` that confirms what `suggest` wrote to OUT/fix.toml (FILE without --out) on
    new deals: `balance check` alone played the set without the change. The program as started (as
    every printed hint names it): after `make demo` a plain `hadara-sim` is on no PATH."""
    fix = shlex.quote(str(out / "fix.toml")) if out is not None else "FILE"
    return " ".join([f"{program()} balance check", f"--players {players}", f"--policy {shlex.quote(policy)}",
                     f"--margin {margin:g}", f"--seed {seed + 1}",
                     *([f"--components {shlex.quote(str(components))}"] if components else []), f"--overrides {fix}"])


@app.command()
def suggest(
    players: int = PLAYERS, policy: str = POLICY, games: int = GAMES,
    curve_games: int = typer.Option(8000, "--curve-games", min=10, max=MAX_GAMES, help="Games per swept value of each curve."),
    margin: float = MARGIN, seed: int = SEED, jobs: int = JOBS,
    side: Optional[list[str]] = typer.Option(None, "--side", help="Only these card sides (e.g. 3B; repeat); "
                                             "default: every side that is not fair.", show_default=False),
    components: Optional[Path] = COMPONENTS, overrides: Optional[Path] = OVERRIDES,
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Directory for the curve charts and "
                                       "fix.toml, the suggested overrides.", show_default=False),
    dry_run: bool = DRY_RUN, quiet: bool = QUIET,
    fmt: str = FORMAT_OPTION,
):
    """For every setup card side that is not fair within the margin (TOST against 1/P), the smallest
    single change of its coins or one track that makes it fair, found by running its curves."""
    import matplotlib

    matplotlib.use("Agg")
    from ..balance import estimate, fix_overrides, fix_text, overlaid, pair_changes, suggest as run_suggest
    from ..runner import RunError
    from ..components import ComponentError
    from ..report.charts import save
    from ..report.curve import chart
    from ..report.sections import pct, pct_ci
    from ..report.verdict import NA

    fmt = check_format(fmt)
    if out is not None:
        writable_folder(out)
    plan = plan_or_exit(players, policy, games, margin, seed, jobs, components, overrides, curve_games, side)
    base, per_side = _estimates(plan, estimate)
    sides_text = (f"{len(plan.only)} side{'s' * (len(plan.only) > 1)} ({', '.join(plan.only)})" if plan.only
                  else "each side that is not fair (up to 10)")
    total = base.seconds + per_side.seconds * (len(plan.only) if plan.only else 10)
    if expect(f"the baseline {base.text()}; then for {sides_text}, {per_side.text()} each", total, dry_run, quiet):
        return
    start = time.perf_counter()
    try:
        with working("baseline", quiet) as progress:
            sides, suggestions = run_suggest(plan, progress=progress)
    except ComponentError as err:
        fail("the component set is not valid:\n" + "\n".join(f"  {p}" for p in err.problems))
    except (ValueError, RunError) as err:
        fail(str(err))
    grids = [_sides_table(plan, sides)]
    for s in suggestions:
        rows = []
        for c in s.candidates:
            crossing = (f"{c.curve.win.value:.2f} [{c.curve.win.low:.2f}, {c.curve.win.high:.2f}]"
                        if c.curve is not None and c.curve.win.found else NA)
            proposed = (f"{c.current} → {c.value}" if c.changes else "none: fair as it is" if c.fair
                        else "none: as it is, short of deals" if c.undecided
                        else "none: the closest is as it is" if c.value is not None else NA)
            rows.append([c.field, str(c.current), ", ".join(map(str, c.swept)), crossing, proposed,
                         f"{pct(c.win)} {pct_ci(c.low, c.high)}" if c.value is not None else NA,
                         c.judged.text(curve_games) if c.judged is not None else NA,
                         f"{c.worth:g}" if c.changes and (c.fair or c.undecided) else NA, c.note])
            if out is not None and c.curve is not None:
                fig = chart(c.curve, {"scenario": f"balance suggest, {s.side.name} {c.field}",
                                      "games": curve_games * len(c.swept), "deals": curve_games})
                save(fig, out / f"curve-{s.side.name}-{c.field}.png")
                fig.clear()
        best = s.best
        fit = (lambda x: f"fitted win share {pct(x.win)}, 90% CI {pct_ci(x.low, x.high)}: "
               f"{x.judged.text(curve_games)}")
        if s.as_is is not None:
            kept = s.as_is
            verdict = (f"{s.side.name}: nothing to change, so nothing proposed: the curve of {kept.field} finds "
                       f"{kept.current}, the current value, "
                       + ("fair" if kept.fair else "inside the margin but short of deals") + f" ({fit(kept)})")
        elif best is None and s.pair is not None and s.pair.value is not None:
            p = s.pair
            changed = pair_changes(p)
            verdict = (f"{s.side.name}: no single whole-value change is fair within the margin; "
                       + ("together " if len(changed) > 1 else "")
                       + " and ".join(f"{f} {c} → {v}" for f, c, v in zip(p.fields, p.current, p.value)
                                      if f in changed)
                       + f" ({fit(p)}; worth {p.worth:g})")
        elif best is None:
            verdict = (f"{s.side.name}: no single whole-value change is fair within the margin"
                       + (f"; the pair {' and '.join(s.pair.fields)}: {s.pair.note}" if s.pair is not None else ""))
        elif best.undecided:
            verdict = (f"{s.side.name}: {best.field} {best.current} → {best.value} is short of deals, not of a value "
                       f"({fit(best)}); confirm with `{check_command(players, policy, margin, seed, components, out)}`"
                       + ("" if out is not None else " (FILE: this change as an overrides file, as --out writes it)"))
        else:
            verdict = (f"{s.side.name}: {best.field} {best.current} → {best.value} (fair at "
                       f"{best.curve.win.value:.2f}, 95% CI {best.curve.win.low:.2f} to {best.curve.win.high:.2f}; "
                       f"{fit(best)})")
        grids.append(Table(
            f"{s.side.name}: win share {pct(s.side.win)} {pct_ci(s.side.low, s.side.high)}; the curve of each value",
            ["value", "now", "swept", "fair at (95% CI)", "proposed", "fitted win share (90% CI)", "verdict vs 1/P",
             "worth", "note"],
            rows, marked=[c is best for c in s.candidates], data=_candidates_frame(s.candidates, best),
            units={"fit": "%", "fit_low": "%", "fit_high": "%"},
            caption=f"{verdict}. {curve_games:,} deals per swept value; {s.seconds:.0f} s"))
    changes = fix_overrides(suggestions)
    kept = [s.side.name for s in suggestions if s.as_is is not None]
    notes = [] if suggestions else [f"Every setup card side is fair within ±{margin:g} pp."]
    if kept and not changes:
        notes.append(f"No change to propose: the curves find {', '.join(kept)} fair as "
                     f"{'they are' if len(kept) > 1 else 'it is'}.")
    emit(grids, fmt, notes=notes)
    fixed = overlaid(plan.overrides, changes)
    if out is not None and not fixed:  # a fix.toml of no override changes nothing
        # soft_wrap: a path cut over two lines cannot be copied (nor found by a test in a deep tmp folder)
        err_console.print(f"no change to suggest: no fix.toml written to {out}", markup=False, highlight=False,
                          soft_wrap=True)
    elif out is not None:
        out.mkdir(parents=True, exist_ok=True)
        # The whole set played, the overrides it started from included: a second suggest on top of the first
        # fix.toml wrote its own changes alone, and its command left out --side, --overrides and --components.
        # --out too, as balance fit's: without it the command wrote neither this file nor the curves.
        command = " ".join([f"{program()} balance suggest", f"--players {players}", f"--policy {shlex.quote(policy)}",
                            f"--games {games}", f"--curve-games {curve_games}", f"--margin {margin:g}", f"--seed {seed}",
                            *(f"--side {name}" for name in plan.only),
                            *([f"--components {shlex.quote(str(components))}"] if components else []),
                            *([f"--overrides {shlex.quote(str(overrides))}"] if overrides else []),
                            f"--out {shlex.quote(str(out))}"])
        (out / "fix.toml").write_text(fix_text(fixed, command))
        err_console.print(f"suggested overrides: {out / 'fix.toml'}" if changes else
                          f"no change to suggest: {out / 'fix.toml'} holds the --overrides given, as they are",
                          markup=False, highlight=False, soft_wrap=True)
    took(start, quiet)


@app.command()
def sensitivity(
    players: int = PLAYERS, policy: str = POLICY, games: int = GAMES,
    draws: int = typer.Option(20, "--draws", "-k", min=1, max=1000,
                              help="Draws of the estimated component values, each played on the same deals."),
    draw_seed: int = typer.Option(1, "--draw-seed", min=0, help="Seed of the draws."),
    margin: float = MARGIN, seed: int = SEED, jobs: int = JOBS, components: Optional[Path] = COMPONENTS,
    overrides: Optional[Path] = OVERRIDES, dry_run: bool = DRY_RUN, quiet: bool = QUIET, fmt: str = FORMAT_OPTION,
    fair_value: Optional[str] = typer.Option(None, "--fair-value", help="A side's value, e.g. 3B.culture: "
                                             "instead of the verdicts, its fair value in each draw (a curve of "
                                             "--swept values, --games each), the spread of the estimates "
                                             "separated from the games' noise.", show_default=False),
    swept: Optional[str] = typer.Option(None, "--swept", help="The values the --fair-value curve sweeps, "
                                        "e.g. 1,2,3,4,5 (default: the current value -2 to +2 within range).",
                                        show_default=False),
):
    """How far each setup card side's verdict rests on the estimated component values: the verdicts
    of `balance check` on the set as given, and in each of K draws that move every estimated value by
    at most one step within its kind's range (exact values fixed); per side, the share of draws in
    which its verdict holds. With --fair-value 3B.culture: how much culture makes 3B fair, and how
    sure, given the estimates: its fair value in every draw."""
    from ..balance import estimate
    from ..report.sections import pct
    from ..progress import duration
    from ..runner import RunError
    from ..sensitivity import replay, table

    fmt = check_format(fmt)
    if swept is not None and fair_value is None:
        fail(f"--swept {swept}: the values of a --fair-value curve; give the value too, e.g. --fair-value "
             f"3B.culture --swept {swept}")
    plan = plan_or_exit(players, policy, games, margin, seed, jobs, components, overrides)
    if fair_value is not None:
        return _fair_value(plan, fair_value, swept, draws, draw_seed, dry_run, quiet, fmt)
    base, _ = _estimates(plan, estimate)
    total = base.seconds * (draws + 1)
    if expect(f"{draws + 1} runs of {base.text()} each, about {duration(total)} in all", total, dry_run, quiet):
        return
    start = time.perf_counter()
    try:
        with working("the set as given", quiet) as progress:
            sides, runs, moved = replay(plan, draws, draw_seed, progress=progress)
    except (ValueError, RunError) as err:
        fail(str(err))
    rows = table(sides, runs)
    words = ["stronger", "weaker", "undecided"]
    fair_word = next((w for r in rows for w in [r.verdict, *r.shares] if w.startswith("fair")),
                     f"fair within ±{margin:g} pp")
    words.insert(2, fair_word)
    import polars as pl

    from ..report.verdict import kind_of

    rests = ["rests on the estimates" if r.holds < 0.8 else "holds" for r in rows]
    data = pl.DataFrame({"side": [r.side for r in rows], "verdict": [r.verdict for r in rows],
                         "win": [r.win for r in rows], "holds_pct": [100 * r.holds for r in rows],
                         **{f"{kind_of(w)}_pct": [100 * r.shares.get(w, 0.0) for r in rows] for w in words},
                         "win_p5": [r.win_low for r in rows], "win_p95": [r.win_high for r in rows], "reading": rests})
    grid = Table(
        f"Setup card verdicts at {players} players under {draws} draws of the estimated values "
        f"({policy} on every seat, advanced game, sides at random)",
        ["side", "verdict as given", "win share", "holds in", *[f"{w} in" for w in words], "win share 5-95 %",
         "reading"],
        [[r.side, r.verdict, pct(r.win), pct(r.holds), *[pct(r.shares.get(w, 0.0)) for w in words],
          f"{pct(r.win_low)} to {pct(r.win_high)}", word] for r, word in zip(rows, rests)],
        data=data, units={"win_p5": "%", "win_p95": "%"},
        caption=(f"each draw moves every estimated value by -1, 0 or +1 within the range of its kind "
                 f"(docs/components.md, Sensitivity draws; {min(moved)}-{max(moved)} values moved per draw), exact "
                 f"values fixed; every run plays the same {games:,} deals; verdicts as `balance check` gives them "
                 f"(against 1/P, corrected over the sides); holds in: share of the draws with the verdict as "
                 f"given; marked (reading 'rests on the estimates'): a verdict that holds in fewer than 80 % of the draws"),
        marked=[r.holds < 0.8 for r in rows])
    emit([grid], fmt)
    took(start, quiet)


def _fair_value(plan, target: str, swept_text: str | None, draws: int, draw_seed: int, dry_run: bool, quiet: bool,
                fmt: str):
    """`balance sensitivity --fair-value 3B.culture`: the fair value in each draw and its spread."""
    import numpy as np
    import polars as pl

    from ..balance import estimate, side_name
    from ..component_files import load_components
    from ..components import RANGES, SETUP_VALUES
    from ..progress import duration
    from ..report.sections import num, num_ci
    from ..runner import RunError
    from ..sensitivity import fair_values

    side, _, field_ = target.partition(".")
    try:
        side = side_name(side)  # 3b.culture is 3B's, as --side 3b is 3B
    except ValueError:
        side = ""
    if not side or field_ not in SETUP_VALUES:
        fail(f"--fair-value {target}: expected a side and one of its values like 3B.culture "
             f"({', '.join(SETUP_VALUES)})")
    card = load_components(plan.components).with_overrides(plan.overrides).setup_cards[(int(side[0]), side[1])]
    current = card.coins if field_ == "coins" else dict(zip(SETUP_VALUES[1:], card.values))[field_]
    low, high = RANGES["coins" if field_ == "coins" else "track"]
    try:
        values = ([int(v) for v in swept_text.split(",")] if swept_text
                  else [v for v in range(current - 2, current + 3) if low <= v <= high])
    except ValueError:
        fail(f"--swept {swept_text}: expected whole numbers separated by commas, e.g. 1,2,3,4")
    if len(set(values)) < 2 or not all(low <= v <= high for v in values):
        fail(f"--swept: two or more values within {low}..{high} are needed, got {values}")
    base, _ = _estimates(plan, estimate)
    total = base.seconds * len(values) * (draws + 1)
    if expect(f"{draws + 1} curves of {len(values)} values, each {base.text()}, about {duration(total)} in all", total,
              dry_run, quiet):
        return
    start = time.perf_counter()
    try:
        with working("the set as given", quiet) as progress:
            spread = fair_values(plan, side, field_, draws, draw_seed, sorted(set(values)), progress=progress)
    except (ValueError, RunError) as err:
        fail(str(err))
    every = [spread.given, *spread.draws]
    per_draw = Table(
        f"{side}'s fair {field_} at {plan.players} players, on the set as given and in {draws} draws of the estimated "
        f"values ({plan.policy} on every seat, advanced game, sides at random)",
        ["draw", f"fair {field_} (95% CI)", "whole values fair (90% CI inside the margin)", "extrapolated"],
        [["as given" if d.draw is None else str(d.draw), f"{num(d.value, 2)} {num_ci(d.low, d.high, 2)}",
          ", ".join(map(str, d.fair_values)) or "none", "yes" if d.extrapolated else ""] for d in every],
        caption=(f"each row: {field_} swept over {', '.join(map(str, spread.swept))}, {plan.games:,} games per value "
                 f"on the same deals in every draw; fair {field_} = where the fitted win share (logit GLM, "
                 f"cluster-robust by deal) meets 1/P; each draw moves every other estimated value by -1, 0 or +1 "
                 f"within its kind's range (docs/components.md, Sensitivity draws)"),
        data=pl.DataFrame({"draw": [d.draw for d in every], "fair_value": [d.value for d in every],
                           "fair_low": [d.low for d in every], "fair_high": [d.high for d in every],
                           "extrapolated": [d.extrapolated for d in every],
                           "fair_values": [", ".join(map(str, d.fair_values)) for d in every]},
                          schema_overrides={"draw": pl.Int64, "fair_value": pl.Float64, "fair_low": pl.Float64,
                                            "fair_high": pl.Float64}))
    found = [d.value for d in spread.found]
    whole = list(range(min(spread.swept), max(spread.swept) + 1))
    summary = Table(
        f"How sure: {side}'s fair {field_} at {plan.players} players, the estimates' spread and the games' noise",
        ["measure", "value"],
        [["fair value as given (95% CI)", f"{num(spread.given.value, 2)} {num_ci(spread.given.low, spread.given.high, 2)}"],
         [f"mean over the {len(found)} draws with a crossing", num(float(np.mean(found)) if found else math.nan, 2)],
         ["spread over the draws (sd, as observed)", num(spread.observed_sd, 2)],
         ["of it, the games' noise the draws do not share (sd)", num(math.sqrt(spread.noise_in_spread), 2)],
         ["spread of the estimates (sd, that noise taken out)", num(spread.estimates_sd, 2)],
         ["games' noise within a draw (standard error)", num(spread.sampling_se, 2)],
         ["both together (sd)", num(spread.total_sd, 2)],
         *[[f"{field_} {v}: fair in (fit inside the margin in)",
            f"{100 * spread.share(v):.0f} % ({100 * spread.share(v, inside=True):.0f} %) of draws"] for v in whole]],
        caption=("every draw plays the same deals, so the games' noise the draws share does not spread them; the "
                 "part they do not share (a changed value changes how a deal plays out) does, and is taken out: "
                 "from each draw's per-deal influence on its fair value (logit GLM, delta method), their noise "
                 "covariance over the shared deals gives the variance it adds to the spread. Spread of the "
                 "estimates: the sd over the draws with that noise taken out, what better estimates would shrink; "
                 "games' noise: the fair value's standard error within one draw (from its 95% CI, root mean square "
                 "over the draws), what more games would shrink; more games cannot shrink the first. A whole value "
                 "is fair in a draw when its fitted win share has its 90% CI inside 1/P ± the margin (as `balance "
                 f"suggest` proposes). In csv and json: a measure ending _pct is a share of the draws in %, the "
                 f"others are in {field_}"),
        # One column holds both kinds of number, so each share's measure names its unit: fair_share_4 = 1.0
        # stood among values of culture as if it were one.
        data=pl.DataFrame({"measure": ["given", "given_low", "given_high", "mean", "observed_sd", "noise_in_spread_sd",
                                       "estimates_sd", "sampling_se", "total_sd",
                                       *[f"fair_share_{v}_pct" for v in whole],
                                       *[f"inside_share_{v}_pct" for v in whole]],
                           "value": [spread.given.value, spread.given.low, spread.given.high,
                                     float(np.mean(found)) if found else math.nan, spread.observed_sd,
                                     math.sqrt(spread.noise_in_spread), spread.estimates_sd,
                                     spread.sampling_se, spread.total_sd, *[100 * spread.share(v) for v in whole],
                                     *[100 * spread.share(v, inside=True) for v in whole]]}))
    emit([per_draw, summary], fmt)
    took(start, quiet)


def _candidates_frame(candidates, best):
    """The numbers of a side's candidates for csv and json (null where a value has no curve or crossing;
    proposed and worth null where the value found is the current one, which is no proposal)."""
    import polars as pl

    def crossing(c, part):
        return getattr(c.curve.win, part) if c.curve is not None and c.curve.win.found else None

    return pl.DataFrame({
        "value": [c.field for c in candidates], "current": [c.current for c in candidates],
        "swept": [", ".join(map(str, c.swept)) for c in candidates],
        "fair_at": [crossing(c, "value") for c in candidates], "fair_at_low": [crossing(c, "low") for c in candidates],
        "fair_at_high": [crossing(c, "high") for c in candidates],
        "extrapolated": [bool(crossing(c, "extrapolated")) for c in candidates],
        "proposed": [c.value if c.changes else None for c in candidates], "fit": [c.win for c in candidates],
        "fit_low": [c.low for c in candidates], "fit_high": [c.high for c in candidates],
        "worth": [c.worth if c.changes else None for c in candidates],
        "verdict": [c.judged.words if c.judged is not None else None for c in candidates],
        "status": [("fair" if c.fair else "short of deals" if c.undecided else "not fair")
                   + (" as it is" if (c.fair or c.undecided) and not c.changes else "") for c in candidates],
        "more_curve_games": [c.judged.more if c.judged is not None else None for c in candidates],
        "proposal": [c is best for c in candidates],
        "note": [c.note for c in candidates]},
        schema_overrides={"fair_at": pl.Float64, "fair_at_low": pl.Float64, "fair_at_high": pl.Float64,
                          "proposed": pl.Int64, "worth": pl.Float64, "more_curve_games": pl.Float64,
                          "verdict": pl.String})


app.command()(fit)

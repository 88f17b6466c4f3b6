"""`hadara-sim balance fit`: one set of changes that makes every named setup card side fair at every
player count at once, or with --card one set of card costs that makes every named card worth its price
(thin layer over hadara_sim.balance_fit; registered in the `balance` group)."""

from __future__ import annotations

import shlex
import time
from pathlib import Path
from typing import Optional

import typer

from ..constants import MAX_GAMES
from ..report.table import Table
from .balance_options import (COMPONENTS, DRY_RUN, JOBS, MARGIN, OVERRIDES, POLICY, QUIET, SEED, expect, failing,
                              plan_or_exit, took, working)
from .common import FORMAT_OPTION, check_format, emit, err_console, fail, not_nan, writable_folder

_DEFAULT_VALUES = "coins,income,military,culture,food"


def fit(
    players: Optional[list[int]] = typer.Option(None, "--players", "-p", min=2, max=5, show_default=False,
                                                help="A player count the set must be fair at (repeat; default 2, 3 "
                                                     "and 4)."),
    side: Optional[list[str]] = typer.Option(None, "--side", show_default=False,
                                             help="A card side to make fair, e.g. 3B (repeat; default all ten)."),
    values: str = typer.Option(_DEFAULT_VALUES, "--values",
                               help="The values each side may change, separated by commas."),
    card: Optional[list[str]] = typer.Option(None, "--card", show_default=False,
                                             help="Fit card costs instead of sides: a card to make worth its "
                                                  "price (seeking and avoiding it level), e.g. II-B-02, or the start "
                                                  "of ids, e.g. II-P for every purple card (effect) of epoch II "
                                                  "(repeat)."),
    policy: str = POLICY,
    games: int = typer.Option(3000, "--games", "-n", min=10, max=MAX_GAMES, help="Games per design point and player count."),
    points: int = typer.Option(12, "--points", min=3, max=200, help="Design points besides the current set: each "
                               "moves every changeable value by -1, 0 or +1 step (2 coins, 1 track step)."),
    resweep: int = typer.Option(0, "--resweep", min=0, max=200, help="Design points played around the set "
                                "last played before each later round (--games each, -1, 0 or +1 step of every "
                                "value); the surrogate is then fitted to the runs within one step of that set, "
                                "where the proposal moves (0: the first sweep's surrogate, refitted)."),
    confirm_games: str = typer.Option("30000", "--confirm-games", help="Fresh games per player count that confirm "
                                      "each proposal (and play the current set in the design): one number for "
                                      "every count, or P=GAMES per count, e.g. 2=160000,3=100000,4=60000 (a side's "
                                      "share at 2 players needs ~2.7 times the games of 4 players' for the same "
                                      "precision)."),
    rounds: int = typer.Option(4, "--rounds", min=1, max=20, help="Proposals played at most."),
    margin: float = MARGIN,
    aim: float = typer.Option(0.5, "--aim", min=0.05, max=1.0, callback=not_nan, help="The proposer's target: predicted win share "
                              "within AIM x margin of 1/P at every player count."),
    reach: int = typer.Option(3, "--reach", min=1, max=10, help="Steps (2 coins, 1 track step) a value may move "
                              "from its current value."),
    max_changed: int = typer.Option(2, "--max-changed", min=1, max=3, help="Values of one side a proposal may "
                                    "change."),
    table: bool = typer.Option(True, "--table-terms/--no-table-terms", help="Let the surrogate give a side "
                               "terms for the other seats' changes of a value (its response to the table's), where "
                               "the designed sweep demands them."),
    seed: int = SEED, jobs: int = JOBS, components: Optional[Path] = COMPONENTS,
    overrides: Optional[Path] = OVERRIDES,
    out: Optional[Path] = typer.Option(None, "--out", "-o", show_default=False,
                                       help="Directory for fix.toml (the change set, with the command that made "
                                            "it), fit.png and the runs (a rerun of the same command resumes)."),
    dry_run: bool = DRY_RUN,
    quiet: bool = QUIET,
    fmt: str = FORMAT_OPTION,
):
    """One set of whole-number changes of setup card values that makes every named side fair within
    the margin (TOST against 1/P) at every player count at once, preferring the fewest changed values
    and the smallest changes: a surrogate (softmax model of the winner) fitted to a designed sweep
    proposes, fresh deals confirm, the surrogate is fitted again, until the set is confirmed or a
    side is blocked (no value in range, or too few deals).

    With --card, the same for card costs (purple effects are purple cards): one rotating seat seeks
    and avoids each named card on the same deals (restricted play), and a card is worth its price when
    seek minus avoid is level within the margin (TOST against 0) at every player count; the design
    moves each cost 2 coins either way, a line per card and count proposes."""
    import matplotlib

    matplotlib.use("Agg")
    from .. import balance_fit as F
    from ..components import SETUP_VALUES
    from ..progress import duration

    fmt = check_format(fmt)
    if card:
        sides_only = [name for name, used in (("--side", bool(side)), ("--values", values != _DEFAULT_VALUES),
                                              ("--resweep", bool(resweep)), ("--max-changed", max_changed != 2),
                                              ("--no-table-terms", not table)) if used]
        if sides_only:
            fail(f"--card fits card costs; {', '.join(sides_only)} belong to a fit of setup sides: fit one kind "
                 f"at a time")
        _fit_cards(card, players, policy, games, points, confirm_games, rounds, margin, aim, reach, seed, jobs,
                   components, overrides, out, dry_run, quiet, fmt)
        return
    fields = [v.strip() for v in values.split(",") if v.strip()]
    wrong = [v for v in fields if v not in SETUP_VALUES]
    if wrong or not fields:
        fail(f"--values {values}: expected values among {', '.join(SETUP_VALUES)}, separated by commas")
    if out is not None:
        writable_folder(out)
    base = plan_or_exit(2, policy, games, margin, seed, jobs, components, overrides, 0, side)
    with failing():
        counts = sorted(set(players)) if players else [2, 3, 4]
        plan = F.FitPlan(sides=list(dict.fromkeys(base.only)) if base.only else list(F.SIDES), fields=fields,
                         players=counts, policy=policy, games=games,
                         points=points, resweep=resweep, confirm_games=_confirm_games(confirm_games, counts),
                         rounds=rounds, margin=base.margin, aim=aim, reach=reach, max_changed=max_changed, table=table,
                         seed=seed, components=base.components, overrides=base.overrides, jobs=base.jobs,
                         out=str(out) if out else None)
        sweep, confirm = F.estimate(plan)
        fitting = F.fitting_seconds(plan)
    if expect(f"the designed sweep{' and the local sweeps' if resweep else ''} {sweep.text()}; then the current set "
              f"and at most {rounds} proposals, {confirm.text()}; fitting the surrogates and proposing about "
              f"{duration(fitting)} (timed on a sample here); in all about "
              f"{duration(sweep.seconds + confirm.seconds + fitting)}",
              sweep.seconds + confirm.seconds + fitting, dry_run, quiet):
        return
    _run(F.fit, plan, quiet, fmt, _tables, out, F.command_line(plan), overrides,
         lambda result: F.chart(result, {"scenario": f"balance fit, {policy} on every seat",
                                         "games": sum(map(plan.confirming, plan.players))}))


def _confirm_games(text: str, counts: list[int]) -> int | dict[int, int]:
    """--confirm-games read, refusing games of a player count the fit does not play (-p 3 with
    2=100,3=100 dropped the 2=100 without a word); a plan made in Python may carry them."""
    from .. import balance_fit as F

    confirm = F.read_confirm_games(text)
    unplayed = [] if isinstance(confirm, int) else [p for p in confirm if p not in counts]
    if unplayed:
        fail(f"--confirm-games {text}: the fit plays no {', '.join(map(str, unplayed))}-player games (it plays "
             f"{', '.join(map(str, counts))}); leave those counts out, or add {' '.join(f'-p {p}' for p in unplayed)}")
    return confirm


def _run(fit, plan, quiet: bool, fmt: str, tables, out: Path | None, command: str, overrides: Path | None, chart):
    """Play the fit with progress, print its tables, write fix.toml (headed by `command`) and fit.png
    into `out`, and say what it cost."""
    start = time.perf_counter()
    with failing():
        with working("designed sweep", quiet) as progress:
            result = fit(plan, progress=progress)
    # The command as given, in the caption as in fix.toml: without --overrides the caption's command fitted
    # the set without them. --out too: the runs a rerun resumes from are there (without it the command played
    # them all again).
    command += f" --overrides {shlex.quote(str(overrides))}" if overrides else ""
    command += f" --out {shlex.quote(str(out))}" if out is not None else ""
    emit(tables(result, command), fmt)
    if out is not None:
        from ..balance import fix_text
        from ..report.charts import save

        (out / "fix.toml").write_text(fix_text(result.overrides, command))
        if result.rounds:
            save(chart(result), out / "fit.png")
        err_console.print(f"the change set: {out / 'fix.toml'}", markup=False, highlight=False)
    took(start, quiet, result.games, result.cpu_seconds)


def _tables(result, command: str) -> list[Table]:
    """The change set (its caption naming `command`, the command that made it), the rounds, and the
    before/after table."""
    from .. import balance_fit as F
    from ..report.sections import pct, pct_ci
    from ..report.verdict import correction_text, equivalence_caption

    plan = result.plan
    grids = [_change_set_table(result, command, f"The change set ({result.status})", "side", F.change_table(result)),
             _rounds_table(result, plan.sides, F.count, F.change_words, ("terms_added", lambda r: r.added),
                           ["round", "changed values", "change set", "surrogate's worst cell", "missed by",
                            "fair cells", "terms added"],
                           "surrogate's worst cell: the largest predicted distance from 1/P over the named sides and "
                           "player counts; missed by: root mean square over those cells of the predicted minus the "
                           "played win share; fair cells: confirmed fair within the margin on the round's fresh "
                           f"{plan.confirm_text()}; terms added: squares and products of a side's changes the "
                           "surrogate's data demanded (Wald, Holm)")]
    if result.before is not None:
        table = F.before_after(result)
        cells = table.height
        grids.append(_before_after_table(
            result, table, f"Before and after, per side and player count ({plan.policy} on every seat, advanced "
                           f"game, sides at random)", "side", "side", pct, pct_ci, "%",
            f"both on the same fresh {plan.confirm_text()} (seed {result.best.seed}, round {result.best.number}: the "
            f"round with the most cells fair); * = a side the set changes; fair share 1/P; win share: 95% Wilson CI; "
            f"stronger / weaker: {correction_text(cells)}; {equivalence_caption(cells, plan.margin)} (every side at "
            f"every player count: the set holds as a whole); undecided: with the more deals (--confirm-games) that "
            f"would decide it with 80 % chance if the difference measured were the true one; marked = not fair after; "
            f"{_scope(plan)}"))
    return grids


def _fit_cards(card, players, policy, games, points, confirm_games, rounds, margin, aim, reach, seed, jobs, components,
               overrides, out, dry_run, quiet, fmt):
    """`balance fit --card`: the card-cost fit (hadara_sim.balance_fit.cards)."""
    from .. import balance_fit as F

    if out is not None:
        writable_folder(out)
    base = plan_or_exit(2, policy, games, margin, seed, jobs, components, overrides, 0, None)
    with failing():
        counts = sorted(set(players)) if players else [2, 3, 4]
        plan = F.CardPlan(cards=card, players=counts, policy=policy, games=games,
                          points=points, confirm_games=_confirm_games(confirm_games, counts), rounds=rounds,
                          margin=base.margin, aim=aim, reach=reach, seed=seed, components=base.components,
                          overrides=base.overrides, jobs=base.jobs, out=str(out) if out else None)
        sweep, confirm = F.card_estimate(plan)
    cards = f"{len(plan.cards)} card{'s' * (len(plan.cards) > 1)}"
    if expect(f"the designed sweep {sweep.text()} ({cards}, each sought and avoided); then the "
              f"current costs and at most {rounds} proposals, {confirm.text()}",
              sweep.seconds + confirm.seconds, dry_run, quiet):
        return
    _run(F.fit_cards, plan, quiet, fmt, _card_tables, out, F.card_command_line(plan), overrides,
         lambda result: F.card_chart(result, {"scenario": f"balance fit --card, {policy} on every seat",
                                              "games": 2 * len(plan.cards) * sum(map(plan.confirming, plan.players))}))


def _card_tables(result, command: str) -> list[Table]:
    """The new costs (its caption naming `command`, the command that made them), the rounds, and the
    before/after table of a card-cost fit."""
    from .. import balance_fit as F
    from ..report.verdict import correction_text, equivalence_caption

    plan = result.plan
    grids = [_change_set_table(result, command, f"The new costs ({result.status})", "card",
                               F.card_change_table(result)),
             _rounds_table(result, plan.cards, len, lambda d: f"{d:+d}", ("pooled", lambda r: r.proposal.pooled),
                           ["round", "changed costs", "change set", "lines' worst cell", "missed by", "level cells",
                            "pooled slope"],
                           "lines' worst cell: the largest predicted |seek - avoid| over the named cards and player "
                           "counts; missed by: root mean square over those cells of the predicted minus the played "
                           "seek - avoid; level cells: confirmed level within the margin on the round's fresh "
                           f"{plan.confirm_text()} of each restriction; pooled slope: cards whose own slope was not "
                           "negative at 5 %, given the named cards' mean slope")]
    if result.before is not None:
        table = F.card_before_after(result)
        cells = table.height
        grids.append(_before_after_table(
            result, table, f"Before and after: seek - avoid per card and player count ({plan.policy} on every "
                           f"seat, advanced game, one rotating seat restricted)", "card", "card_id",
            lambda share: f"{100 * share:+.1f}", lambda low, high: f"[{100 * low:+.1f}, {100 * high:+.1f}]", "pp",
            f"pp of win share, both on the same fresh {plan.confirm_text()} of each restriction (seed "
            f"{result.best.seed}, round {result.best.number}: the round with the most cells level); * = a card whose "
            f"cost the set changes; a relative contrast: seeking the card (buying it whenever offered and "
            f"affordable) minus avoiding it, paired on the deal, against 0 (worth its price); stronger = worth more "
            f"than it costs; CI: t over deals; stronger / weaker: {correction_text(cells)}; "
            f"{equivalence_caption(cells, plan.margin)} (every card at every player count); undecided: with the "
            f"more deals (--confirm-games) that would decide it with 80 % chance if the difference measured were "
            f"the true one; marked = not level after; {_scope(plan)}"))
    return grids


def _change_set_table(result, command: str, title: str, column: str, changes) -> Table:
    """The set a fit ends with, a row per changed value of a `column` (side or card), its caption
    saying why the fit stopped and naming `command`, the command that made it."""
    return Table(title, [column, "value", "now", "proposed", "change"],
                 [[r[column], r["value"], str(r["now"]), str(r["proposed"]), f"{r['change']:+d}"]
                  for r in changes.to_dicts()],
                 caption=f"{result.reason}. {result.games:,} games in all ({command})", data=changes)


def _rounds_table(result, names: list[str], changes, words, per_count: tuple, columns: list[str],
                  caption: str) -> Table:
    """Each round of a fit: its proposal (`changes(change)` values changed; the set, a name's change
    in `words(change)`), the model's worst predicted cell over `names`, how far the model missed the
    play, the cells confirmed, and a last column of names by player count (`per_count`: its name in
    the data, and a round's names by count)."""
    import polars as pl

    rounds, (last, by_count) = result.rounds, per_count
    data = pl.DataFrame({
        "round": [r.number for r in rounds],
        "changes": [changes(r.proposal.change) for r in rounds],
        "change_set": ["; ".join(f"{k} {words(c)}" for k, c in sorted(r.proposal.change.items())) or "none"
                       for r in rounds],
        "predicted_worst_pp": [100 * r.proposal.worst(names) for r in rounds],
        "missed_pp": [100 * r.missed for r in rounds],
        "fair_cells": [int(r.table["fair"].sum()) for r in rounds],
        "cells": [r.table.height for r in rounds],
        last: ["; ".join(f"{p}p: {', '.join(k)}" for p, k in by_count(r).items() if k) or "none" for r in rounds]},
        schema_overrides={"predicted_worst_pp": pl.Float64, "missed_pp": pl.Float64})
    return Table("Rounds: each proposal and its confirmation on fresh deals", columns,
                 [[str(r["round"]), str(r["changes"]), r["change_set"], f"{r['predicted_worst_pp']:.1f} pp",
                   f"{r['missed_pp']:.1f} pp", f"{r['fair_cells']} of {r['cells']}", r[last]]
                  for r in data.to_dicts()],
                 caption=caption, data=data, units=None)


def _before_after_table(result, table, title: str, column: str, key: str, value, ci, unit: str,
                        caption: str) -> Table:
    """Per player count and name (`key` in the `before_after` `table`, headed `column`, starred where
    the set changes it): the estimate (`value`) with its CI (`ci`, in `unit` in the data) and verdict
    before and after, marked where it is not fair after."""
    from ..report.verdict import render

    plan = result.plan

    def verdict(r, when):
        record = {"verdict": r[f"{when}_verdict"], "more": r[f"{when}_more"], "n": r[f"{when}_n"]}
        return render(record, games=plan.confirming(r["players"]), option="--confirm-games")

    return Table(
        title, ["players", column, "before", "95% CI", "verdict", "after", "95% CI", "verdict"],
        [[str(r["players"]), f"{r[key]}{'*' if r[key] in result.change else ''}", value(r["before_mean"]),
          ci(r["before_ci_low"], r["before_ci_high"]), verdict(r, "before"), value(r["after_mean"]),
          ci(r["after_ci_low"], r["after_ci_high"]), verdict(r, "after")] for r in table.to_dicts()],
        marked=[not v.startswith("fair") for v in table["after_verdict"].to_list()],
        caption=caption,
        data=table.rename({c: c.replace("_mean", "") for c in table.columns if c.endswith("_mean")}),
        units={c: unit for c in ("before", "after", "before_ci_low", "before_ci_high", "after_ci_low",
                                 "after_ci_high")})


def _scope(plan) -> str:
    """Whose verdicts a fit's are: its policy on every seat, on its component set."""
    from ..component_files import load_components
    from ..provenance import component_set, verdict_scope

    return verdict_scope([f"{plan.policy} on every seat"], component_set(load_components(plan.components)))

"""The fit itself: the designed sweep, rounds of proposal, confirmation on fresh deals and refit, and
its estimate (see the package docstring)."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import polars as pl

from .. import balance
from ..component_files import load_components
from ..components import SETUP_VALUES
from ..estimate import Estimate
from ..report.estimates import mean_ci, with_verdicts
from .ending import Ending, cells
from .plan import (REFERENCE_DEALS, SAMPLE_GAMES, SIDES, Change, FitPlan, Play, apart, as_overrides, count,
                   counts_text, cpu_seconds, currents, design, digest)
from .rounds import FitRuns, estimate_runs
from .search import Proposal, propose
from .surrogate import Run, Surrogate, _groups, dealt, fit_surrogate

def simulate_play(plan: FitPlan, now: dict[str, dict[str, int]]) -> Play:
    """The real game: each run a `simulate` of `balance.scenario` with the change as overrides on top of
    the plan's, into `out/runs/<label>` when the plan has `out` (resumable)."""
    from ..api import simulate

    def play(players: int, change: Change, seed: int, games: int, label: str) -> pl.DataFrame:
        base = balance.Plan(players=players, policy=plan.policy, games=games, seed=seed,
                            components=plan.components, jobs=plan.jobs,
                            overrides=balance.overlaid(plan.overrides, as_overrides(change, now)))
        out = Path(plan.out) / "runs" / label if plan.out else None
        df = simulate(balance.scenario(base, games), jobs=plan.jobs, out=out, quiet=True)
        return df.select("game", "seat", "players", "setup_card", "setup_side", "win_share")

    return play


def verdicts(runs: list[Run], sides: list[str], margin: float) -> pl.DataFrame:
    """Every named side at every player count of the runs (one run per count): win share with its
    95% CI, TOST against 1/P, verdicts Holm-corrected over all the cells, and for an undecided cell the
    more deals (and games) that would decide it (`report.estimates.with_verdicts`)."""
    rows = pl.concat([r.rows.with_columns(pl.col("players").cast(pl.Int64)) for r in runs])
    rows = rows.with_columns(side=pl.format("{}{}", "setup_card", "setup_side")).filter(pl.col("side").is_in(sides))
    table = with_verdicts(mean_ci(rows, "win_share", ["players", "side"], fair=1.0 / pl.col("players").cast(pl.Float64),
                                  rate=True, margin=margin), margin=margin, hints=True)
    return cells(table, {r.players: r.rows["game"].n_unique() for r in runs})


@dataclass
class Round:
    """One proposal and its confirmation on fresh deals."""

    number: int
    proposal: Proposal
    seed: int
    table: pl.DataFrame          # `verdicts` of the proposal's confirmation
    added: dict[int, list[str]]  # players -> terms the surrogate added

    @property
    def confirmed(self) -> bool:
        return bool(self.table["fair"].all())

    @property
    def missed(self) -> float:
        """How far the surrogate's predictions missed the shares played: the root mean square over the
        named cells of predicted minus played win share."""
        gaps = [self.proposal.predicted[r["players"]][SIDES.index(r["side"])] - r["mean"]
                for r in self.table.to_dicts()]
        return float(np.sqrt(np.mean(np.square(gaps))))


@dataclass
class Fit(Ending):
    plan: FitPlan
    now: dict[str, dict[str, int]]
    rounds: list[Round]
    before: pl.DataFrame | None  # the current set on the deals of the best round's confirmation
    reason: str                  # why it stopped
    status: str                  # "confirmed", "blocked", "too few deals" or "rounds"
    games: int                   # every game played
    seconds: float
    cpu_seconds: float

    @property
    def overrides(self) -> dict:
        """The set the fit ends with as a `[components]` override table: the plan's own overrides with
        the change set on top."""
        return balance.overlaid(self.plan.overrides, as_overrides(self.change, self.now))


def estimate(plan: FitPlan, cold: bool | None = None) -> tuple[Estimate, Estimate]:
    """How long the designed sweep takes (with every later round's local sweep, `resweep`), and at most
    the confirmations (every round, and the current set on the best round's deals), before anything is
    played."""
    def scenario(players: int, games: int) -> dict:
        """A run of the plan's set."""
        return balance.scenario(balance.Plan(players=players, policy=plan.policy, seed=plan.seed,
                                             components=plan.components, jobs=plan.jobs, overrides=plan.overrides),
                                games)

    sweep = estimate_runs(plan, scenario, lambda p: plan.games, plan.points + (plan.rounds - 1) * plan.resweep, cold)
    # the current set in the design, each round, before
    confirm = estimate_runs(plan, scenario, plan.confirming, plan.rounds + 2, False)
    return sweep, confirm


def _blank_run(players: int, change: Change, games: int, seed: int) -> Run:
    """A run of made-up games of a real run's shape, for timing: sides dealt at random, the winner drawn
    from the softmax of side strengths spread as the shipped set's under `balanced` (-0.7 to +0.7
    log-odds, 3B at 2 players winning about two games in three), each changed value adding 0.1 a
    step (a fit's Newton steps, and so its time, grow with how far its parameters lie from 0)."""
    from scipy.special import softmax

    rng = np.random.default_rng([seed, players, games])
    strength = np.linspace(-0.7, 0.7, len(SIDES)) + [0.1 * sum(change.get(s, {}).values()) for s in SIDES]
    cards = np.argsort(rng.random((games, 5)), axis=1)[:, :players]
    sides = cards * 2 + rng.integers(0, 2, (games, players))
    chance = softmax(strength[sides], axis=1)
    winner = (rng.random(games)[:, None] > np.cumsum(chance, axis=1)).sum(1).clip(0, players - 1)
    win = np.zeros((games, players))
    win[np.arange(games), winner] = 1.0
    rows = pl.DataFrame({"game": np.repeat(np.arange(games), players), "seat": np.tile(np.arange(players), games),
                         "players": players, "setup_card": (sides // 2 + 1).ravel(),
                         "setup_side": np.where(sides.ravel() % 2 == 1, "B", "A"), "win_share": win.ravel()})
    return Run(players, change, seed, "timing", rows)


def fitting_seconds(plan: FitPlan) -> float:
    """How long the fit spends fitting its surrogates and proposing, before anything is played: the
    first round's fits and a proposal timed here (CPU time, as the games' speeds are measured) on
    random games of the plan's design
    (at most `SAMPLE_GAMES` a design point, the reference deals in full), each fit scaled by the rows it
    will hold (a fit's work grows with its distinct pairs of run and sides held, `Strengths`: the
    design, the current set and every confirmation so far)."""
    now = currents(load_components(plan.components).with_overrides(plan.overrides))
    points = design(plan, now)
    sample_games = min(plan.games, SAMPLE_GAMES)
    fitting, surrogates = 0.0, {}
    for p in plan.players:
        reference = min(plan.confirming(p), REFERENCE_DEALS)
        runs = [_blank_run(p, {}, reference, plan.seed)] + [_blank_run(p, c, sample_games, plan.seed) for c in points]
        sample = sum(len(np.unique(_groups(r)[0], axis=0)) for r in runs)
        start = time.process_time()
        try:
            first = fit_surrogate(runs, plan)
        except ValueError:
            sampled = " (a timing sample of the plan)" if sample_games < plan.games else ""
            raise ValueError(f"the surrogate at {p} players cannot be fitted: {plan.points} design points of "
                             f"{sample_games:,} games{sampled} cannot tell apart the effects of every changeable "
                             f"value of every named side; use more --points or --games, or name fewer --side or "
                             f"--values") from None
        middle = time.process_time()
        surrogates[p] = fit_surrogate(runs, plan, replace(first, params=np.array([]))).anchor(runs[0])  # cold: at most
        end = time.process_time()
        held = [plan.points * dealt(p, plan.games) + r * dealt(p, plan.confirming(p))
                for r in range(1, plan.rounds + 1)]
        if plan.resweep:  # every later round chooses its terms anew on its local sweep, the set and the one before
            near = plan.resweep * dealt(p, plan.games) + 2 * dealt(p, plan.confirming(p))
            fitting += (middle - start) * (held[0] + (plan.rounds - 1) * near) / sample
        else:
            fitting += (middle - start) * held[0] / sample + (end - middle) * sum(held[1:]) / sample
    start = time.process_time()
    propose(surrogates, plan, now)
    return fitting + plan.rounds * (time.process_time() - start)


def fit(plan: FitPlan, play: Play | None = None, progress=None) -> Fit:
    """The fit: designed sweep, surrogate, proposal, confirmation on fresh deals, refit, until it stops
    (see the module's docstring). `play` plays one run (default: the real game, `simulate_play`);
    `progress(text)` is called before each step."""
    say = progress or (lambda text: None)
    unknown = [s for s in plan.sides if s not in SIDES]
    bad_fields = [f for f in plan.fields if f not in SETUP_VALUES]
    if unknown or bad_fields or not plan.sides or not plan.fields or not plan.players:
        raise ValueError(f"a fit needs sides among {', '.join(SIDES)} and values among {', '.join(SETUP_VALUES)}"
                         + (f"; unknown: {', '.join(unknown + bad_fields)}" if unknown or bad_fields else ""))
    now = currents(load_components(plan.components).with_overrides(plan.overrides))
    runs = FitRuns(plan, play or simulate_play(plan, now), Run,
                   lambda confirm: verdicts(confirm, plan.sides, plan.margin), "side",
                   lambda change: f"{count(change)} changes", say)
    start, cpu_start = time.perf_counter(), cpu_seconds()
    runs.sweep(design(plan, now), lambda p, k, point: f"p{p}-design-{k}")
    surrogates: dict[int, Surrogate] = {}

    def propose_round(r: int, rounds: list[Round]) -> Proposal:
        """Round `r`'s proposal, from the surrogates fitted again (with `resweep`, after the first round
        anew to the runs around the set last played, a local sweep around it played first)."""
        data, last = runs.data, runs.last
        if rounds and plan.resweep:
            centre = rounds[-1].proposal.change
            sweep: dict[int, list[Run]] = {p: [] for p in plan.players}
            for p in plan.players:
                for k, point in enumerate(design(plan, now, centre, r)):
                    sweep[p].append(runs.play_run(p, point, last[p].seed, plan.games,
                                                  f"p{p}-local-{r}-{k}-{digest(point)}",
                                                  f"round {r}: local sweep at {p} players, point {k + 1} of "
                                                  f"{plan.resweep}, {plan.games:,} games"))
            say(f"round {r}: fitting the surrogates to the runs around round {r - 1}'s set")
            surrogates.update({p: fit_surrogate(local(data[p], last[p], sweep[p]), plan, centre=centre).anchor(last[p])
                               for p in plan.players})
            for p in plan.players:
                data[p] += sweep[p]
        else:
            say(f"round {r}: fitting the surrogates")
            surrogates.update({p: fit_surrogate(data[p], plan, surrogates.get(p)).anchor(last[p])
                               for p in plan.players})
        return propose(surrogates, plan, now, rounds[-1].proposal.change if rounds else None)

    def new_round(r: int, proposal: Proposal, seed: int, table: pl.DataFrame) -> Round:
        """Round `r` as confirmed, with the terms its surrogates added."""
        return Round(r, proposal, seed, table, {p: m.added for p, m in surrogates.items()})

    rounds, status, reason = runs.confirm_rounds(
        propose_round, new_round, f"confirmed: every named side is fair within ±{100 * plan.margin:g} pp of 1/P at "
                                  f"{counts_text(plan.players)} players on fresh deals")
    before = runs.before(rounds)
    return Fit(plan, now, rounds, before, reason, status, runs.played, time.perf_counter() - start,
               cpu_seconds() - cpu_start)


def local(runs: list[Run], centre: Run, sweep: list[Run]) -> list[Run]:
    """The runs a local surrogate is fitted to: `centre` (the set last played) first, the local `sweep`
    around it (a value at the edge of its range swept two steps inwards), then every earlier run whose
    every value lies within one step of it (earlier sweeps' points and rounds' sets that fall in the
    region the proposer may move in)."""
    return [centre, *sweep] + [run for run in runs if run is not centre and apart(run.change, centre.change) <= 1]

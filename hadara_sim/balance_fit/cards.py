"""Card-cost fit: one set of whole-coin changes of card costs that makes every named card worth its
price at every player count at once, found with a surrogate of restricted play (`report.worth`).

A card is *worth its price* when seeking it (its holder's policy buys it whenever it is offered and
affordable) and avoiding it (never buying it) are level: seek minus avoid, paired on the deal and the
rotating restricted seat, within the margin of 0 (a relative contrast, TOST). A purple effect is a
purple card, so fitting the purple cards' costs balances the effects (`--card II-P`).

1. **Designed sweep.** Per player count, the current costs and `points` design points, each moving
   every named card's cost by -2, 0 or +2 coins (moved inside its range at a bound), each level at
   about a third of the points, shuffled per card from the seed; all on the same deals, and each run
   plays one rotating seat seeking and avoiding every named card in turn (`scenario`).
2. **Surrogate.** Per card and player count, a line of the per-deal seek minus avoid against the
   card's cost (least squares, standard errors cluster-robust by deal: statsmodels). A card whose own
   slope is not negative at the 5% level (a card seldom offered, or too few deals) takes the
   inverse-variance mean of the named cards' slopes at that count. Before each proposal the line is
   anchored at the set last played in full (the current costs, then each round's): the games give
   the level, the line the step, so another card's change that moved this card's worth counts.
3. **Proposer.** Per card, among the whole costs within `reach` x 2 coins of its current cost (and,
   after the first round, within 2 coins of the cost last played: the lines are trusted near the
   games they have seen) and its range, the one nearest the current cost whose predicted seek minus
   avoid lies within `aim` x margin of 0 at every player count. A card no cost in range brings there
   is *blocked*, with why (the counts want different costs, or the fair cost lies out of reach).
4. **Confirmation.** The proposal is played on fresh deals; every named card at every player count
   gets seek minus avoid with its 95% CI and the TOST verdict against 0 within the margin, Holm over
   all the cells, with the deals that would decide an undecided cell. The confirmation joins the
   data, the lines are fitted again, until the set is confirmed, a refit proposes the set just played
   (it says why), or the rounds run out.

Every run is a `simulate` run (into `out/runs/...` when given, so an interrupted fit resumes), and
every choice comes from the seed: the same seed gives the same set.
"""

from __future__ import annotations

import difflib
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import polars as pl

from .. import balance
from ..component_files import load_components
from ..components import RANGES, ComponentSet
from ..estimate import Estimate
from ..report import inference as I
from ..report.estimates import group_means, paired_diff, with_verdicts
from ..report.worth import restricted_pairs
from .ending import Ending, cells
from .plan import AIM, POINTS, REACH, Confirming, counts_text, cpu_seconds, digest
from .rounds import FitRuns, estimate_runs

STEP = 2                 # coins a design point moves a cost, and a later round's proposal at most
CardChange = dict[str, int]   # card id -> change of its cost
CardPlay = Callable[[int, CardChange, int, int, str], pl.DataFrame]
# (players, change, seed, games, label) -> the restricted pairs: card_id, game, win_seek, win_avoid


@dataclass
class CardPlan(Confirming):
    """What `fit_cards` plays and aims at."""

    cards: list[str] = field(default_factory=list)   # the card ids to make worth their price
    players: list[int] = field(default_factory=lambda: [2, 4])
    policy: str = "balanced"
    games: int = 3000            # games per design point, player count and restriction (seek or avoid a card)
    points: int = POINTS         # design points besides the current costs
    confirm_games: int | dict[int, int] = 30000   # fresh games of each restriction in a confirmation
    rounds: int = 4              # proposals played at most
    margin: float = I.MARGIN     # equivalence margin on seek minus avoid
    aim: float = AIM             # the proposer's target, a share of the margin
    reach: int = REACH           # steps of 2 coins a cost may move from its current cost
    seed: int = 1
    components: str | None = None
    overrides: dict = field(default_factory=dict)  # [components] overrides the set starts from
    jobs: int = 1
    out: str | None = None       # the results directory (runs/ inside it): resumable

    def __post_init__(self):
        super().__post_init__()
        # Names as --card takes them ("II-P", "ii-b-02", one name alone), ids in the set's order.
        self.cards = card_ids([self.cards] if isinstance(self.cards, str) else list(self.cards),
                              load_components(self.components))


def card_ids(names: list[str], components: ComponentSet) -> list[str]:
    """The cards named: an id ("II-B-02") or the start of ids ("II-P", every purple card of epoch II),
    each once, in the set's order. Raises ValueError naming an unknown one with the nearest ids."""
    known = [c.id for c in components.cards]
    chosen: set[str] = set()
    for name in names:
        word = name.strip().upper()
        found = [k for k in known if k == word or k.startswith(word.rstrip("-") + "-")]
        if not word or not found:
            near = difflib.get_close_matches(word, known, n=3)
            raise ValueError(f"--card {name}: no card of the component set is {name!r} or starts with it"
                             + (f"; did you mean {', '.join(near)}?" if near else
                                " (ids look like II-B-02; II-P names every purple card of epoch II)"))
        chosen.update(found)
    return [k for k in known if k in chosen]


def printed_costs(components: ComponentSet, cards: list[str]) -> dict[str, int]:
    """Each named card's cost in this set (its overrides applied)."""
    return {k: int(components.cards[components.card_index[k]].cost) for k in cards}


def allowed(cost: int, reach: int, around: int | None = None) -> list[int]:
    """The changes of a card's cost the proposer may choose: whole coins within `reach` steps of 2
    coins and the range of a cost, and within one step of `around` (the change last played) if given."""
    low, high = RANGES["cost"]
    out = [d for d in range(-reach * STEP, reach * STEP + 1) if low <= cost + d <= high]
    return [d for d in out if around is None or abs(d - around) <= STEP]


def design(plan: CardPlan, now: dict[str, int]) -> list[CardChange]:
    """The design points: every named card's cost at -2, 0 or +2 coins (two steps inwards at a bound
    of its range), each level at about a third of the points, shuffled per card from the seed."""
    rng = np.random.default_rng(np.random.SeedSequence([plan.seed, 32, 35]))
    low, high = RANGES["cost"]
    points: list[CardChange] = [{} for _ in range(plan.points)]
    for card in plan.cards:
        levels = [d for d in (-STEP, 0, STEP) if low <= now[card] + d <= high]
        if len(levels) < 3:
            levels = [0, *[d for d in (STEP, 2 * STEP) if now[card] + d <= high]][:3]
        for point, delta in zip(points, rng.permutation(np.resize(levels, plan.points))):
            if delta:
                point[card] = int(delta)
    return points


def as_overrides(change: CardChange, now: dict[str, int]) -> dict:
    """A change set as a `[components]` override table of the new costs."""
    cards = {k: {"cost": now[k] + d} for k, d in sorted(change.items()) if d}
    return {"cards": cards} if cards else {}


def scenario(plan: CardPlan, players: int, change: CardChange, now: dict[str, int], seed: int, games: int) -> dict:
    """A run of the fit: the advanced game, `policy` on every seat, sides at random, the costs changed,
    one seat (rotating with the deal) seeking and then avoiding each named card on the same deals."""
    base = balance.Plan(players=players, policy=plan.policy, games=games, seed=seed, components=plan.components,
                        jobs=plan.jobs, overrides=balance.overlaid(plan.overrides, as_overrides(change, now)))
    arms = [arm for card in plan.cards for arm in ({"seek": [card]}, {"avoid": [card]})]
    return balance.scenario(base, games, sweep={"restrict": arms})


def simulate_play(plan: CardPlan, now: dict[str, int]) -> CardPlay:
    """The real game: each run a `simulate` of `scenario`, into `out/runs/<label>` when the plan has
    `out` (resumable); its restricted pairs."""
    from ..api import simulate

    def play(players: int, change: CardChange, seed: int, games: int, label: str) -> pl.DataFrame:
        out = Path(plan.out) / "runs" / label if plan.out else None
        df = simulate(scenario(plan, players, change, now, seed, games), jobs=plan.jobs, out=out, quiet=True)
        return restricted_pairs(df).select("card_id", "game", "win_seek", "win_avoid")

    return play


@dataclass
class CardRun:
    """One run: the restricted pairs of every named card at one player count and change set."""

    players: int
    change: CardChange
    seed: int
    label: str
    pairs: pl.DataFrame   # card_id, game, win_seek, win_avoid


@dataclass
class Line:
    """A card's seek minus avoid against its cost change at one player count, anchored at the set last
    played in full: `at` + `slope` x (change - `change`)."""

    at: float            # seek minus avoid observed at the set last played
    change: int          # the card's cost change in that set
    slope: float         # per coin (own, or the pooled slope)
    pooled: bool         # the card's own slope was not negative at 5%: the named cards' mean slope

    def predict(self, change: int) -> float:
        return self.at + self.slope * (change - self.change)


def fit_lines(runs: list[CardRun], cards: list[str], last: CardRun) -> dict[str, Line]:
    """Per card, the line of seek minus avoid against its cost (per-deal differences, least squares,
    cluster-robust by deal), anchored at `last`; a card whose own slope is not negative at 5% takes the
    inverse-variance mean of the slopes of the cards whose own is."""
    from statsmodels.regression.linear_model import OLS
    from statsmodels.tools.tools import add_constant

    deals = pl.concat([r.pairs.with_columns(pl.lit(r.seed, pl.Int64).alias("seed"),
                                            pl.col("card_id").replace_strict(r.change, default=0,
                                                                             return_dtype=pl.Int64).alias("x"))
                       for r in runs])
    deals = deals.with_columns((pl.col("win_seek") - pl.col("win_avoid")).alias("diff"))
    own: dict[str, tuple[float, float, float]] = {}
    for card in cards:
        # in a fixed order: OLS sums its rows in theirs, and a join gives them in none (the slope's last bits moved)
        sub = deals.filter(pl.col("card_id") == card).sort("seed", "game", "x", "win_seek", "win_avoid")
        x = sub["x"].to_numpy().astype(float)
        y = sub["diff"].to_numpy()
        if np.unique(x).size < 2 or np.ptp(y) == 0:
            own[card] = (math.nan, math.nan, 1.0)
            continue
        groups = (sub["seed"].to_numpy() << 32) + sub["game"].to_numpy()  # a deal: its seed and number
        result = OLS(y, add_constant(x)).fit(cov_type="cluster", cov_kwds={"groups": groups})
        own[card] = (float(result.params[1]), float(result.bse[1]), float(result.pvalues[1]))
    steep = [(b, se) for b, se, p in own.values() if b < 0 and p < 1 - I.LEVEL and se > 0]
    pooled = (sum(b / se ** 2 for b, se in steep) / sum(1 / se ** 2 for _, se in steep)) if steep else math.nan
    # summed in a fixed order (`group_means`): the pairs come out of a join in no fixed order, and a polars
    # group_by's sum of a card's thousands of pairs changed its last bits with that order and its threads
    observed = dict(group_means(last.pairs, ["card_id"], {"at": pl.col("win_seek") - pl.col("win_avoid")}).iter_rows())
    lines = {}
    for card in cards:
        b, _, p = own[card]
        use_own = b < 0 and p < 1 - I.LEVEL
        lines[card] = Line(float(observed.get(card, math.nan)), last.change.get(card, 0), b if use_own else pooled,
                           not use_own)
    return lines


@dataclass
class CardProposal:
    change: CardChange
    predicted: dict[int, dict[str, float]]         # players -> card -> predicted seek minus avoid
    blocked: dict[str, str] = field(default_factory=dict)   # card -> why no cost in range is worth its price
    pooled: dict[int, list[str]] = field(default_factory=dict)  # players -> cards on the pooled slope

    def worst(self, cards: list[str]) -> float:
        """The largest predicted distance from level over the named cards and player counts."""
        return max(abs(self.predicted[p][k]) for p in self.predicted for k in cards)


def propose(lines: dict[int, dict[str, Line]], plan: CardPlan, now: dict[str, int],
            around: CardChange | None = None) -> CardProposal:
    """Per card, the cost change nearest the current cost (then the smallest worst prediction) whose
    predicted seek minus avoid is within `aim` x margin of 0 at every player count; with `around` (the
    set the last round played) within 2 coins of it. None such: the change with the smallest worst
    prediction, and the card blocked with why."""
    tol = plan.aim * plan.margin
    change: CardChange = {}
    blocked: dict[str, str] = {}
    for card in plan.cards:
        by_count = {p: lines[p][card] for p in plan.players}
        if any(not math.isfinite(line.slope) or not math.isfinite(line.at) or line.slope >= 0
               for line in by_count.values()):
            flat = [str(p) for p, line in by_count.items() if not math.isfinite(line.slope) or line.slope >= 0]
            blocked[card] = (f"its cost does not move its worth at {counts_text(list(map(int, flat)))} players "
                             f"(no card's seek - avoid fell with its cost there: too few deals, or cards seldom "
                             f"offered)" if flat else "no games of it")
            if around is not None and card in around:
                change[card] = around[card]
            continue
        options = allowed(now[card], plan.reach, around.get(card, 0) if around is not None else None)
        worst = {d: max(abs(line.predict(d)) for line in by_count.values()) for d in options}
        fair = [d for d in options if worst[d] <= tol]
        if fair:
            best = min(fair, key=lambda d: (abs(d), worst[d], d))
        else:
            best = min(options, key=lambda d: (worst[d], abs(d), d))
            blocked[card] = _why_blocked(by_count, now[card], options, best, worst[best], tol, around)
        if best:
            change[card] = best
    predicted = {p: {k: lines[p][k].predict(change.get(k, 0)) for k in plan.cards} for p in plan.players}
    pooled = {p: [k for k in plan.cards if lines[p][k].pooled] for p in plan.players}
    return CardProposal(change, predicted, blocked, pooled)


def _why_blocked(by_count: dict[int, Line], cost: int, options: list[int], best: int, worst: float,
                 tol: float, around: CardChange | None) -> str:
    """Why no cost in range brings a card level at every count: where each count would have it level."""
    level = {p: cost + line.change - line.at / line.slope for p, line in by_count.items()}
    where = ", ".join(f"{v:.1f} coins at {p} players" for p, v in sorted(level.items()))
    reach = (f"costs {cost + min(options)} to {cost + max(options)}" + (" (2 coins around the last round's)"
                                                                          if around is not None else ""))
    return (f"level at about {where}; of {reach}, {cost + best} comes nearest, {100 * worst:.1f} pp from level "
            f"(aim ±{100 * tol:.1f} pp)")


def verdicts(runs: list[CardRun], cards: list[str], margin: float) -> pl.DataFrame:
    """Every named card at every player count of the runs (one run per count): seek minus avoid (a
    relative contrast, paired on the deal) with its 95% CI, TOST against 0 within the margin, verdicts
    Holm-corrected over all the cells, and for an undecided cell the more deals that would decide it."""
    pairs = pl.concat([r.pairs.with_columns(pl.lit(r.players, pl.Int64).alias("players")) for r in runs])
    table = paired_diff(pairs.filter(pl.col("card_id").is_in(cards)), "win_seek", "win_avoid", ["players", "card_id"],
                        margin=margin)
    table = with_verdicts(table, margin=margin, hints=True)
    return cells(table, {r.players: r.pairs["game"].n_unique() for r in runs}).sort("players", "card_id")


def check_estimate(plan: CardPlan, games: int) -> Estimate:
    """How long `check` takes."""
    return _estimate_runs(plan, lambda p: games, 1, None)


def check(plan: CardPlan, seed: int, games: int) -> pl.DataFrame:
    """Every named card at every player count of the plan, on the component set with its overrides
    (a fitted set, `--overrides fix.toml`): seek minus avoid on `games` fresh deals of `seed`, with
    the verdicts of a confirmation (`verdicts`, Holm over every card and count)."""
    now = printed_costs(load_components(plan.components).with_overrides(plan.overrides), plan.cards)
    play = simulate_play(plan, now)
    return verdicts([CardRun(p, {}, seed, f"p{p}-check", play(p, {}, seed, games, f"p{p}-check"))
                     for p in plan.players], plan.cards, plan.margin)


@dataclass
class CardRound:
    """One proposal and its confirmation on fresh deals."""

    number: int
    proposal: CardProposal
    seed: int
    table: pl.DataFrame          # `verdicts` of the proposal's confirmation

    @property
    def confirmed(self) -> bool:
        return bool(self.table["fair"].all())

    @property
    def missed(self) -> float:
        """How far the lines' predictions missed the play: the root mean square over the named cells of
        predicted minus played seek minus avoid."""
        gaps = [self.proposal.predicted[r["players"]][r["card_id"]] - r["diff"] for r in self.table.to_dicts()]
        return float(np.sqrt(np.mean(np.square(gaps))))


@dataclass
class CardFit(Ending):
    plan: CardPlan
    now: dict[str, int]          # card -> its current cost
    rounds: list[CardRound]
    before: pl.DataFrame | None  # the current costs on the deals of the best round's confirmation
    reason: str                  # why it stopped
    status: str                  # "confirmed", "blocked", "too few deals" or "rounds"
    games: int                   # every game played (a restriction's games count once each)
    seconds: float
    cpu_seconds: float

    @property
    def overrides(self) -> dict:
        """The set the fit ends with as a `[components]` override table: the plan's own overrides with
        the new costs on top."""
        return balance.overlaid(self.plan.overrides, as_overrides(self.change, self.now))


def estimate(plan: CardPlan, cold: bool | None = None) -> tuple[Estimate, Estimate]:
    """How long the designed sweep takes, and at most the confirmations (every round, the current costs
    in the design and on the best round's deals), before anything is played."""
    return (_estimate_runs(plan, lambda p: plan.games, plan.points, cold),
            _estimate_runs(plan, plan.confirming, plan.rounds + 2, False))


def _estimate_runs(plan: CardPlan, games: Callable[[int], int], count: int, cold: bool | None) -> Estimate:
    """`count` runs at every player count of `games(players)` games of every restriction; the first
    compile once."""
    now = printed_costs(load_components(plan.components).with_overrides(plan.overrides), plan.cards)
    return estimate_runs(plan, lambda p, games_: scenario(plan, p, {}, now, plan.seed, games_), games, count, cold)


def fit_cards(plan: CardPlan, play: CardPlay | None = None, progress=None) -> CardFit:
    """The card-cost fit: designed sweep, lines, proposal, confirmation on fresh deals, refit, until it
    stops (see the module's docstring). `play` plays one run (default: the real game); `progress(text)`
    is called before each step."""
    say = progress or (lambda text: None)
    if not plan.cards or not plan.players:
        raise ValueError("a card-cost fit needs at least one card (--card) and one player count")
    now = printed_costs(load_components(plan.components).with_overrides(plan.overrides), plan.cards)
    runs = FitRuns(plan, play or simulate_play(plan, now), CardRun,
                   lambda confirm: verdicts(confirm, plan.cards, plan.margin), "card_id",
                   lambda change: f"{len(change)} cost changes", say, stem="cards-", current="costs",
                   restrictions=2 * len(plan.cards))
    start, cpu_start = time.perf_counter(), cpu_seconds()
    runs.sweep(design(plan, now), lambda p, k, point: f"p{p}-cards-design-{k}-{digest(point)}")

    def propose_round(r: int, rounds: list[CardRound]) -> CardProposal:
        """Round `r`'s proposal, from the lines fitted again."""
        say(f"round {r}: fitting the lines")
        lines = {p: fit_lines(runs.data[p], plan.cards, runs.last[p]) for p in plan.players}
        return propose(lines, plan, now, rounds[-1].proposal.change if rounds else None)

    rounds, status, reason = runs.confirm_rounds(
        propose_round, CardRound, f"confirmed: seeking and avoiding every named card are level within "
                                  f"±{100 * plan.margin:g} pp at {counts_text(plan.players)} players on fresh deals")
    before = runs.before(rounds)
    return CardFit(plan, now, rounds, before, reason, status, runs.played, time.perf_counter() - start,
                   cpu_seconds() - cpu_start)

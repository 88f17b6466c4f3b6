"""The runs both fits play, the sides' (`driver.fit`) and the card costs' (`cards.fit_cards`): the
designed sweep, rounds of a proposal confirmed on fresh deals until the set is confirmed, a refit
proposes the set just played again or the rounds run out, and then the current set on the best
round's deals (see the package docstring); and how long such runs take."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import polars as pl

from ..estimate import Estimate, estimate_run
from ..scenario.read import scenario_from_dict
from .ending import best_round, why_stopped
from .plan import digest


def estimate_runs(plan, scenario: Callable[[int, int], dict], games: Callable[[int], int], count: int,
                  cold: bool | None) -> Estimate:
    """How long `count` runs take at every player count of the plan, each the scenario document
    `scenario(players, games(players))`: the first compile counted once, not once a run."""
    total, n, workers, unknown, compiled = 0.0, 0, 1, [], 0.0
    for p in plan.players:
        one = estimate_run(scenario_from_dict(scenario(p, games(p))), plan.jobs, cold=cold)
        total += (one.seconds - one.compile) * count + one.compile
        n += one.games * count
        workers, unknown, compiled = one.workers, one.unknown, compiled or one.compile
        cold = False
    return Estimate(total, n, unknown, compiled, workers)


@dataclass
class FitRuns:
    """A fit's runs as it plays them: by player count every run so far (`data`) and the set last
    played in full (`last`), and the games played (`played`); the other fields are what the sides'
    fit and the card-cost fit play, judge, label and say differently."""

    plan: Any                                     # a FitPlan or a CardPlan
    play: Callable[[int, dict, int, int, str], Any]     # (players, change, seed, games, label) -> the run's rows
    make: Callable[[int, dict, int, str, Any], Any]     # (players, change, seed, label, rows) -> a Run or CardRun
    judge: Callable[[list], pl.DataFrame]         # a confirmation's runs (one per player count) -> its verdicts
    key: str                                      # the verdict table's column of names: "side" or "card_id"
    changes: Callable[[dict], str]                # a change set in progress messages, e.g. "3 changes"
    say: Callable[[str], None]
    stem: str = ""                                # after the player count in run labels: "cards-"
    current: str = "set"                          # the current set in progress messages: "set" or "costs"
    restrictions: int = 0                         # restricted plays of every deal (seek and avoid each card); 0: none
    data: dict[int, list] = field(default_factory=dict)
    last: dict[int, Any] = field(default_factory=dict)
    played: int = 0

    @property
    def per_game(self) -> str:
        """What a game is played as, after its count in progress messages."""
        return f" x {self.restrictions} restrictions" if self.restrictions else ""

    def play_run(self, players: int, change: dict, seed: int, games: int, label: str, text: str):
        """One run, said (`text`) before it is played and counted after."""
        self.say(text)
        run = self.make(players, change, seed, label, self.play(players, change, seed, games, label))
        self.played += games * max(self.restrictions, 1)
        return run

    def sweep(self, points: list[dict], label: Callable[[int, int, dict], str]) -> None:
        """The designed sweep on the plan's seed: at every player count the current set, on the
        confirming games (its shares pin the model), then each of `points`; the current set is then
        the set last played in full."""
        plan, points = self.plan, [{}] + points
        for p in plan.players:
            self.data[p] = []
            for k, point in enumerate(points):
                games = plan.confirming(p) if k == 0 else plan.games
                self.data[p].append(self.play_run(p, point, plan.seed, games, label(p, k, point),
                                                  f"design: {p} players, point {k + 1} of {len(points)}, "
                                                  f"{games:,} games{self.per_game}"))
        self.last = {p: self.data[p][0] for p in plan.players}

    def confirm_rounds(self, propose: Callable[[int, list], Any],
                       new_round: Callable[[int, Any, int, pl.DataFrame], Any],
                       confirmed: str) -> tuple[list, str, str]:
        """Round after round, `propose(number, rounds so far)` (fit and propose), played on fresh deals
        (the plan's seed plus the round's number) at every player count, joined to the data and kept
        as `new_round(number, proposal, seed, verdicts)`, until the set is confirmed (why: `confirmed`),
        a refit proposes the set just played again, or the rounds run out: the rounds, the status and
        why it stopped."""
        plan, rounds = self.plan, []
        for r in range(1, plan.rounds + 1):
            proposal = propose(r, rounds)
            if rounds and proposal.change == rounds[-1].proposal.change:
                return (rounds, *why_stopped(rounds[-1].table, proposal.blocked, self.key))
            seed = plan.seed + r
            confirm = []
            for p in plan.players:
                run = self.play_run(p, proposal.change, seed, plan.confirming(p),
                                    f"p{p}-{self.stem}round-{r}-{digest(proposal.change)}",
                                    f"round {r}: confirming {self.changes(proposal.change)} at {p} players, "
                                    f"{plan.confirming(p):,} fresh games{self.per_game}")
                confirm.append(run)
                self.data[p].append(run)
                self.last[p] = run
            rounds.append(new_round(r, proposal, seed, self.judge(confirm)))
            if rounds[-1].confirmed:
                return rounds, "confirmed", confirmed
        status, reason = why_stopped(rounds[-1].table, rounds[-1].proposal.blocked, self.key)
        if status == "rounds":
            reason = f"{plan.rounds} round{'s' * (plan.rounds != 1)} played: " + reason
        return rounds, status, reason

    def before(self, rounds: list) -> pl.DataFrame | None:
        """The current set at every player count on the best round's deals, judged as a confirmation;
        None before any round."""
        if not rounds:
            return None
        seed = best_round(rounds).seed
        return self.judge([self.play_run(p, {}, seed, self.plan.confirming(p), f"p{p}-{self.stem}before-seed-{seed}",
                                         f"before: the current {self.current} at {p} players on the best round's "
                                         f"{self.plan.confirming(p):,} deals")
                           for p in self.plan.players])

"""Where `search` and a fast bot disagree on one kind of decision: where the next edge may be.

    python scripts/kind_decisions.py statue --players 4 --games 600 --budget 16

One seat per game (rotating) plays `search` on the decisions of KIND (its rollouts and the other
kinds played by `--bot`); the other seats play `--field`. At each decision of KIND the script asks
both search and the bot, plays search's choice, and prints the bot's win share in that seat, how often
the two agree, and the most frequent disagreements by epoch and phase (the bot's choice -> search's,
in words). Noisy per decision (search at budget 16 is close to a coin toss near ties): read the
patterns that repeat, then test a rule with `scripts/strength.py` on fresh deals. Found with it:
foresight's `endgame` rule (stop 30: in epoch III search carved on the points side and bought the
medals foresight left).
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import typer

from hadara_sim import actions as A
from hadara_sim import load_components
from hadara_sim.constants import MAX_SEED
from hadara_sim.deal import make_deals
from hadara_sim.engine.game import play_batch
from hadara_sim.forward import Forward
from hadara_sim.registry import make_policy
from hadara_sim.cli.common import run_script


class Recorder:
    """Search on one kind, the bot elsewhere; notes the bot's and search's choice at each decision."""

    name = "kind-recorder"

    def __init__(self, kind: str, bot: str, budget: int, seed: int):
        self.kind = kind
        self.search = make_policy("search", seed=seed, budget=budget, rollout=bot, kinds=(kind,))
        self.bot = make_policy(bot)
        self.seen: Counter = Counter()
        self.decisions = self.agreed = 0

    def decide(self, d):
        if d.kind != self.kind:
            return self.bot.decide(d)
        chosen, plain = self.search.decide(d), self.bot.decide(d)
        epoch, phase = np.asarray(d.view.epoch), np.asarray(d.view.phase)
        self.decisions += len(d)
        self.agreed += int((chosen == plain).sum())
        for i in np.flatnonzero(chosen != plain):
            self.seen[(int(epoch[i]), int(phase[i]), int(plain[i]), int(chosen[i]))] += 1
        return chosen


def made(option: str, make, *args):
    """`make(*args)`, or the policy's refusal as a bad `option` (an unknown one stopped in a traceback)."""
    try:
        return make(*args)
    except (ValueError, LookupError) as err:
        raise typer.BadParameter(str(err), param_hint=option) from None


def main(kind: str = typer.Argument(..., help=f"One of {', '.join(A.KINDS)}."),
         players: int = typer.Option(4, "--players", "-p", min=2, max=5),
         games: int = typer.Option(600, "--games", "-n", min=1),
         budget: int = typer.Option(16, "--budget", min=1, help="search's budget at each decision of KIND."),
         bot: str = typer.Option("foresight", "--bot", help="The fast bot compared (and search's rollouts)."),
         field: str = typer.Option("balanced", "--field", help="The other seats."),
         top: int = typer.Option(25, "--top", help="Disagreements to print."),
         seed: int = typer.Option(77, "--seed", "-s", min=0, max=MAX_SEED)):
    if kind not in A.KINDS:
        raise typer.BadParameter(f"'{kind}' is not a decision kind ({', '.join(A.KINDS)})")
    c = load_components()
    recorder, others = made("--bot", Recorder, kind, bot, budget, seed), made("--field", make_policy, field)
    deals = make_deals(c, players, games, seed=np.random.SeedSequence([seed, players]), advanced=True)
    table = np.where(np.arange(players)[None, :] == (np.arange(games) % players)[:, None], 0, 1)
    sheet = play_batch(deals, c, [recorder, others], table, forward=Forward)
    share = np.where(table == 0, sheet["win_share"], 0.0).sum(axis=1).mean()
    print(f"{kind}, {players}P, one seat of search over {bot} against {field}: win share {100 * share:.1f}% in "
          f"{games} games; {recorder.decisions} decisions, agree on {100 * recorder.agreed / max(recorder.decisions, 1):.1f}%")
    for (epoch, phase, plain, chosen), n in recorder.seen.most_common(top):
        print(f"  {n:5d}  epoch {'I' * epoch} phase {'AB'[phase]}: {bot} {A.describe(kind, plain, c)} "
              f"-> search {A.describe(kind, chosen, c)}")


if __name__ == "__main__":
    run_script(main)

"""What `play` prints while a game is told: the tracks of every seat after each phase."""

from __future__ import annotations

from ..constants import TRACKS
from ..report.table import Table
from ..trace import Recorder
from .common import print_table


class Account(Recorder):
    """Records the trace and prints the tracks of every seat after each phase."""

    def __init__(self, deal, components, policies, quiet: bool, names: list[str]):
        super().__init__(deal, components, policies)
        self.quiet = quiet
        self.names = names

    def state(self, step, state):
        super().state(step, state)
        if not self.quiet and (step.endswith(".A.statues") or step.endswith(".B.medals")):
            table = Table(f"after {step}", ["seat", "policy", "coins", *TRACKS, "cards", "colonies", "statues",
                                            "medals"], [], caption="medals: silver (s) and gold (g)")
            for s in range(len(state["coins"])):
                cards = sum(1 for loc in state["location"] if loc == 8 + s)
                medals = f"{sum(t >= 0 for t in state['silver'][s])}s {state['gold'][s]}g"
                table.rows.append([str(s), self.names[s], str(state["coins"][s]),
                                   *map(str, state["tracks"][s]), str(cards),
                                   str(sum(x > 0 for x in state["colonies"][s])),
                                   str(sum(x >= 0 for x in state["statues"][s])), medals])
            print_table(table)

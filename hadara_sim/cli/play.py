"""`hadara-sim play`: one game, told step by step, with the final score sheet."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from ..constants import TRACKS
from ..deal import make_deals
from ..policy import IllegalChoice
from ..reference import SCORE_LINES, Game
from ..trace import Recorder, write_trace
from .common import COMPONENTS_OPTION, components_or_exit, console, fail, policies_or_exit


def register(app: typer.Typer):
    app.command()(play)


class _Account(Recorder):
    """Records the trace and prints the tracks of every seat after each phase."""

    def __init__(self, deal, components, policies, quiet: bool):
        super().__init__(deal, components, policies)
        self.quiet, self.policies = quiet, policies

    def state(self, step, state):
        super().state(step, state)
        if not self.quiet and (step.endswith(".A.statues") or step.endswith(".B.medals")):
            table = Table(title=f"after {step}", title_justify="left")
            for head in ("seat", "policy", "coins", *TRACKS, "cards", "colonies", "statues", "medals"):
                table.add_column(head, justify="right")
            for s in range(len(state["coins"])):
                cards = sum(1 for loc in state["location"] if loc == 8 + s)
                medals = f"{sum(t >= 0 for t in state['silver'][s])}s {state['gold'][s]}g"
                table.add_row(str(s), self.policies[s].name, str(state["coins"][s]),
                              *map(str, state["tracks"][s]), str(cards),
                              str(sum(x > 0 for x in state["colonies"][s])),
                              str(sum(x >= 0 for x in state["statues"][s])), medals)
            console.print(table)


def play(
    players: int = typer.Option(4, "--players", "-p", min=2, max=5, help="Number of players, 2-5."),
    seed: int = typer.Option(0, "--seed", "-s", min=0, help="Seed of the deal (and of random policies)."),
    advanced: bool = typer.Option(False, "--advanced", help="Advanced game: starred purple cards and setup side B."),
    policy: list[str] = typer.Option([], "--policy", help="Policy of a seat, once per seat in seat order, or "
                                     "once for all seats (default greedy). A name, module:attr or file.py:attr."),
    trace: Optional[Path] = typer.Option(None, "--trace", help="Write the game's trace (JSON Lines) here."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print only the final score sheet."),
    components: Optional[Path] = COMPONENTS_OPTION,
):
    """Play one game and tell it step by step, ending with the score pad."""
    c = components_or_exit(components)
    seats = policies_or_exit(policy, players, seed)
    deal = make_deals(c, players, 1, seed=seed, advanced=advanced)
    account = _Account(deal, c, seats, quiet)

    def narrate(seat, text):
        if not quiet:
            console.print(f"  seat {seat} ({seats[seat].name}) {text}" if seat is not None
                          else f"[bold]{text}[/]", highlight=False)

    kind = "advanced" if advanced else "basic"
    if not quiet:
        console.print(f"[bold]Hadara, {players} players, {kind} game, seed {seed}[/]")
    try:
        sheet = Game(deal, c, seats, recorder=account, narrator=narrate).play()
    except IllegalChoice as err:
        fail(str(err))
    table = Table(title="Final score", title_justify="left")
    table.add_column("")
    for row in sheet:
        table.add_column(f"seat {row['seat']} ({seats[row['seat']].name})", justify="right")
    for line in SCORE_LINES:
        table.add_row(line, *(str(row[line]) for row in sheet))
    table.add_row("[bold]total[/]", *(f"[bold]{row['total']}[/]" for row in sheet))
    table.add_row("coins left", *(str(row["leftover_coins"]) for row in sheet))
    console.print(table)
    winners = [str(row["seat"]) for row in sheet if row["win_share"] > 0]
    console.print(f"Winner: seat {' and '.join(winners)}" + (" (shared)" if len(winners) > 1 else ""))
    if trace:
        try:
            write_trace(account.records, trace)
        except OSError as err:
            fail(f"cannot write the trace to {trace}: {err.strerror}")
        console.print(f"Trace written to {trace}")

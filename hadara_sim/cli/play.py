"""`hadara-sim play`: one game, told step by step, with the final score sheet."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer
from rich.markup import escape

from ..constants import COINS_PER_POINT, MAX_SEED
from ..report.table import Table, styled
from .common import (COMPONENTS_OPTION, FORMAT_OPTION, check_format, components_or_exit, console, emit,
                     err_console, fail, playable_or_exit, policies_or_exit, seat_count_problem, split_specs,
                     writable_file)

# The deal, the reference engine, the trace and the policy interface are imported where a game is
# told: they load numpy and numba, which `--help`, `--version` and every command would pay at start-up.


def register(app: typer.Typer):
    app.command()(play)


def score_pad(sheet: list[dict], names: list[str], numbers: bool = False) -> Table:
    """The final score pad: one column per seat, one row per score line; with `numbers`, for csv and
    json, its numbers too, a row per seat (the cells are text: json wrote "30" for 30)."""
    from ..reference import SCORE_LINES

    table = Table("Final score", ["", *(f"seat {row['seat']} ({names[row['seat']]})" for row in sheet)], [],
                  caption=f"coins: 1 point per {COINS_PER_POINT} coins left at the end; coins left: the "
                          f"remainder, which breaks a tie in total points")
    for line in SCORE_LINES:
        table.rows.append([line, *(str(row[line]) for row in sheet)])
    table.rows.append([styled("total", "bold"), *(styled(row["total"], "bold") for row in sheet)])
    table.rows.append(["coins left", *(str(row["leftover_coins"]) for row in sheet)])
    if not numbers:
        return table
    import polars as pl  # here: a game told in the terminal does without it

    table.data = pl.DataFrame([{"seat": row["seat"], "policy": names[row["seat"]],
                                **{line: row[line] for line in (*SCORE_LINES, "total", "leftover_coins")},
                                "win_share": row["win_share"]} for row in sheet])
    # Each number with its unit, as every table for machines writes it (the closing table of simulate:
    # total_points): the lines bare read as counts, and a win_share of 1.0 beside every other share in %.
    table.units = {**dict.fromkeys((*SCORE_LINES, "total"), "points"), "win_share": "%"}
    return table


def winners_text(sheet: list[dict], names: list[str]) -> str:
    """'Winner: seat 1 (greedy)', or the seats that share the win."""
    winners = [f"{row['seat']} ({names[row['seat']]})" for row in sheet if row["win_share"] > 0]
    return f"Winner: seat {' and '.join(winners)}" + (" (shared)" if len(winners) > 1 else "")


def play(
    players: int = typer.Option(4, "--players", "-p", min=2, max=5, help="Number of players, 2-5."),
    seed: int = typer.Option(0, "--seed", "-s", min=0, max=MAX_SEED, help="Seed of the deal (and of random policies)."),
    advanced: bool = typer.Option(False, "--advanced", help="Advanced game: starred purple cards and setup side B."),
    policy: list[str] = typer.Option([], "--policy", help="Policy of each seat in seat order, repeated or "
                                     "comma-separated (--policy a,b,c), or one for all seats (default greedy). "
                                     "A name, module:attr or file.py:attr, with parameters as NAME:key=value; human is you at the keyboard "
                                     "(-p 3 --policy human,greedy,greedy: the options numbered, h for help)."),
    trace: Optional[Path] = typer.Option(None, "--trace", help="Write the game's trace (JSON Lines) here."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print only the final score sheet."),
    components: Optional[Path] = COMPONENTS_OPTION,
    fmt: str = FORMAT_OPTION,
):
    """Play one game and tell it step by step, ending with the score pad.

    With --format csv, markdown or json only the score pad is printed (a human seat's prompts go to
    standard error then)."""
    from ..deal import make_deals
    from ..policy import policy_name

    fmt = check_format(fmt)
    if trace is not None:
        writable_file(trace, "--trace")
    quiet = quiet or fmt != "table"
    c = components_or_exit(components)
    seats = seats_or_exit(policy, players, seed, machine=fmt != "table")
    playable_or_exit(seats, c)
    deal = make_deals(c, players, 1, seed=seed, advanced=advanced)
    kind = "advanced" if advanced else "basic"
    names = [policy_name(p) for p in seats]  # a policy needs only decide(); `name` is optional
    sheet, records = tell(deal, c, seats, names, quiet,
                          f"Hadara, {players} players, {kind} game, seed {seed}")
    from .. import __version__, provenance

    prov = {"seed": seed, "players": players, "game": kind, "components": provenance.component_set(c),
            "package_version": __version__}
    finish(sheet, records, names, fmt, trace, footer=provenance.text(prov), footer_data=prov)


def seats_or_exit(specs: list[str], players: int, seed: int, machine: bool = False) -> list:
    """`policies_or_exit`, with `human` a seat for the person at the keyboard."""
    from .human import Human

    import difflib

    from ..registry import available_policies

    specs = split_specs(specs)
    for spec in specs:  # the policies' own "did you mean" does not know the seat that only `play` has
        if (spec != "human" and difflib.get_close_matches(spec, ["human"], cutoff=0.75)
                and spec not in available_policies()):
            fail(f"unknown policy '{spec}' (did you mean human? the seat for you at the keyboard)")
    if "human" not in specs:
        return policies_or_exit(specs, players, seed)
    if len(specs) == 1:
        fail(f"--policy human needs a policy for the other seats too, e.g. --policy human,{','.join(['greedy'] * (players - 1))}")
    if len(specs) != players:  # said here, before a stand-in takes the human seat's place below
        fail(seat_count_problem(specs, players, "give one --policy for every seat"))
    bots = policies_or_exit(["greedy" if s == "human" else s for s in specs], players, seed)
    stream = sys.stderr if machine else None  # the score pad's json, csv or markdown keeps standard output
    return [Human(width=console.width, stream=stream) if s == "human" else bot for s, bot in zip(specs, bots)]


def tell(deal, c, seats, names: list[str], quiet: bool, heading: str) -> tuple[list[dict], list[dict]]:
    """Play one deal in the reference engine, telling it unless quiet: (score sheet, trace records)."""
    from ..policy import IllegalChoice
    from ..forward import Forward
    from ..reference import Game
    from .human_view import wrap_phrases
    from .telling import Account

    account = Account(deal, c, seats, quiet, names)

    def narrate(seat, text):
        if quiet:
            return
        if seat is None:
            console.print(f"[bold]{escape(text)}[/]", highlight=False)
        else:
            console.print(escape(wrap_phrases(f"  seat {seat} ({names[seat]}) {text}", console.width)),
                          highlight=False, soft_wrap=True)

    from .human import LeftTheGame

    game = Game(deal, c, seats, recorder=account, narrator=narrate, forward=Forward)
    if not quiet:
        console.print(f"[bold]{escape(heading)}[/]", highlight=False)
    try:
        sheet = game.play()
    except IllegalChoice as err:
        fail(str(err))
    except LeftTheGame as err:
        err_console.print(f"{err}: the game was not finished", markup=False, highlight=False)
        raise typer.Exit(0 if err.by_choice else 1)
    return sheet, account.records


def finish(sheet: list[dict], records: list[dict], names: list[str], fmt: str, trace: Optional[Path],
           footer: str = "", footer_data: dict | None = None) -> None:
    """The score pad, the winner, and the trace file if asked for."""
    emit([score_pad(sheet, names, numbers=fmt in ("csv", "json"))], fmt,
         notes=[] if fmt == "table" else [winners_text(sheet, names)], footer=footer, footer_data=footer_data)
    if fmt == "table":
        console.print(winners_text(sheet, names), markup=False)
    if trace:
        from ..trace import write_trace

        try:
            trace.parent.mkdir(parents=True, exist_ok=True)  # checked makeable before the game; made now
            write_trace(records, trace)
        except OSError as err:
            fail(f"cannot write the trace to {trace}: {err.strerror}")
        if fmt == "table":
            console.print(f"Trace written to {trace}", markup=False)

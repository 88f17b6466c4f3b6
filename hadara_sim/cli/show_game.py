"""`hadara-sim show-game RESULTS --game N`: any game of a results dataset, played again and told."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from .common import FORMAT_OPTION, RESULTS_ARGUMENT, check_format, fail, writable_file


def register(app: typer.Typer):
    app.command("show-game")(show_game)


def show_game(
    results: Path = RESULTS_ARGUMENT,
    game: int = typer.Option(0, "--game", "-g", help="The game (deal) number, 0 to games - 1."),
    combo: int = typer.Option(0, "--combo", help="The combination (the `combo` column), for runs with a sweep."),
    trace: Optional[Path] = typer.Option(None, "--trace", help="Write the game's trace (JSON Lines) here."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print only the final score sheet."),
    allow_code: bool = typer.Option(False, "--allow-code",
                                    help="Play the game again even when the run's policies are code given by "
                                         "path or module (file.py:attr, module:attr): that code runs. Only for "
                                         "results directories you trust."),
    fmt: str = FORMAT_OPTION,
):
    """Play one game of a dataset again from its deal and the run's policies, and tell it.

    The game is rebuilt from the run's scenario, seed and chunk, played in the batch engine as the
    run played it, replayed by the reference engine, and checked against the dataset's rows; then it
    is told step by step as `hadara-sim play` tells a game."""
    from ..results import ResultsError
    from ..sample import SampleError, SampleMismatch, verified_game
    from .play import finish, tell

    fmt = check_format(fmt)
    if trace is not None:
        writable_file(trace, "--trace")
    quiet = quiet or fmt != "table"
    try:
        sample, rows = verified_game(results, game, combo, allow_code=allow_code)
    except (ResultsError, SampleError) as err:
        fail(str(err), code=1 if isinstance(err, SampleMismatch) else 2)
    sc = sample.scenario
    config = sc.combinations[combo].config
    kind = "advanced" if config.advanced else "basic"
    sheet, records = tell(sample.deal, sc.components, sample.seats, sample.names, quiet,
                          f"{sc.name}: game {game} of combination {combo}, {config.players} players, {kind} game")
    if sheet != sample.sheet or records[1:] != sample.records[1:]:
        fail(f"the reference engine told game {game} differently from the batch engine's replay", code=1)
    footer = (f"game {game} of {results} (combination {combo}); played again and checked: the reference engine "
              f"agrees with the batch engine and with the dataset's {rows} rows")
    prov = {"scenario": sc.name, "seed": sc.seed, "results": str(results), "combination": combo, "game": game,
            "checked": footer}
    finish(sheet, records, sample.names, fmt, trace, footer=footer, footer_data=prov)

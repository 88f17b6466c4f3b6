"""`hadara-sim components`: check and look at component sets."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.markup import escape

from ..constants import COLOURS, TRACKS
from ..report.table import Table, styled
from .common import COMPONENTS_OPTION, FORMAT_OPTION, check_format, components_or_exit, console, emit, fail
from ..invocation import program

app = typer.Typer(help="Validate and show component sets (cards, colonies, setup cards, board).",
                  no_args_is_help=True)


@app.command()
def validate(path: Path = typer.Argument(..., help="Directory holding cards.csv, colonies.csv, "
                                                    "setup_cards.csv and board.toml.")):
    """Check a component set completely; list every problem with file, line and field."""
    from ..component_files import validate_components  # numpy and the set: not at start-up

    problems = validate_components(path)
    if problems:
        console.print(f"[red]{len(problems)} problem(s)[/] in {escape(str(path))}:", highlight=False)
        for p in problems:
            console.print(f"  {p}", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(2)
    console.print(f"[green]valid[/]: {escape(str(path))}", highlight=False)


@app.command()
def show(
    epoch: Optional[int] = typer.Option(None, min=1, max=3, help="Only cards of this epoch (1-3)."),
    colour: Optional[str] = typer.Option(None, help=f"Only cards of this colour ({', '.join(COLOURS)})."),
    what: str = typer.Option("cards", help="Which table: cards, colonies, setup or board."),
    components: Optional[Path] = COMPONENTS_OPTION,
    fmt: str = FORMAT_OPTION,
):
    """Print a component set as readable tables: exact values in bold, estimates dim (csv and json: a
    column `exact` names the printed values of each row)."""
    from ..provenance import component_set, components_text

    fmt = check_format(fmt)
    c = components_or_exit(components)
    # --colour Purple and --what Cards as --format JSON: the choices are read whatever their case
    what = what.lower()
    if colour is not None and colour.lower() not in COLOURS:
        fail(f"--colour: unknown colour '{colour}'; choose one of {', '.join(COLOURS)}")
    colour = colour.lower() if colour is not None else None
    filters = [name for name, given in (("--epoch", epoch), ("--colour", colour)) if given is not None]
    if filters and what in ("colonies", "setup", "board"):  # the table was printed whole, as if filtered
        fail(f"{' and '.join(filters)} filter{'s' * (len(filters) == 1)} the cards; --what {what} has no epochs "
             f"or colours: leave {' and '.join(filters)} out, or show --what cards")

    def cell(value, name, exact):
        return styled(value, "bold" if name in exact else "dim")

    import polars as pl  # here: the command line imports this module at start-up

    # csv and json: the numbers behind the cells, each unit in its column's name (a track's value is in
    # steps of that track), as the reports write theirs; the cells went out as text ("3"). Bold and dim
    # do not reach a file, so a last column `exact` names the row's printed values: its own columns,
    # `;`-separated as in the component files (empty: every value estimated).
    def with_data(table: Table, columns: dict, rows: list) -> None:
        table.data = pl.DataFrame(rows, schema={**columns, "exact": pl.String}, orient="row")
        table.units = None

    def printed(exact, names: dict) -> str:
        """The columns (`names`: a component file's field -> its column here) of the printed values."""
        return ";".join(column for name, column in names.items() if name in exact)

    tracks = dict.fromkeys(TRACKS, pl.Int64)

    if what == "cards":
        which = ", ".join(filter(None, [f"epoch {epoch}" if epoch else "", colour or ""]))
        table = Table(f"Epoch cards{f' ({which})' if which else ''}",
                      ["id", "epoch", "colour", "adv", "cost", "points", *TRACKS, "effect"], [],
                      # the program as started, as every printed command: after `make demo` no hadara-sim is on PATH
                      caption="adv: * = advanced game only; bold = exact (printed), dim = estimated; "
                              f"effects are explained by: {program()} components effects")
        numbers = []
        card_columns = {"cost": "cost_coins", "points": "points", **{t: t for t in TRACKS}, "effect": "effect"}
        for card in c.cards:
            if (epoch and card.epoch != epoch) or (colour and COLOURS[card.colour] != colour):
                continue
            numbers.append([card.id, card.epoch, COLOURS[card.colour], card.starred, card.cost, card.points,
                            *card.values, card.effect, printed(card.exact, card_columns)])
            table.rows.append([card.id, str(card.epoch), COLOURS[card.colour], "*" if card.starred else "",
                               cell(card.cost, "cost", card.exact), cell(card.points, "points", card.exact),
                               *(cell(v, t, card.exact) for v, t in zip(card.values, TRACKS)),
                               cell(card.effect or "", "effect", card.exact) if card.effect else ""])
        # A column that the filter fixes or that is empty for every card shown says nothing.
        keep = [j for j, name in enumerate(table.columns)
                if not (name == "epoch" and epoch) and not (name == "colour" and colour)
                and (name not in ("adv", "effect") or any(row[j] for row in table.rows))]
        table.columns = [table.columns[j] for j in keep]
        table.rows = [[row[j] for j in keep] for row in table.rows]
        with_data(table, {"id": pl.String, "epoch": pl.Int64, "colour": pl.String, "advanced_only": pl.Boolean,
                          "cost_coins": pl.Int64, "points": pl.Int64, **tracks, "effect": pl.String}, numbers)
    elif what == "colonies":
        table = Table("Colonies", ["id", "level", "req", "plunder", "integrate", "front", *TRACKS, "back"], [],
                      caption="req: military needed; plunder: coins; integrate: coins to pay; front / back: "
                              "points of the front and back; tracks: the back's values")
        for k in c.colonies:
            names = ("requirement", "plunder", "integrate", "front_points",
                     *(f"back_{t}" for t in TRACKS), "back_points")
            values = (k.requirement, k.plunder, k.integrate, k.front_points, *k.back_values, k.back_points)
            table.rows.append([k.id, str(k.level + 1), *(cell(v, n, k.exact) for v, n in zip(values, names))])
        colony_columns = {"requirement": "requirement_military", "plunder": "plunder_coins",
                          "integrate": "integrate_coins", "front_points": "front_points",
                          **{f"back_{t}": f"back_{t}" for t in TRACKS}, "back_points": "back_points"}
        with_data(table, {"id": pl.String, "level": pl.Int64, **dict.fromkeys(colony_columns.values(), pl.Int64)},
                  [[k.id, k.level + 1, k.requirement, k.plunder, k.integrate, k.front_points, *k.back_values,
                    k.back_points, printed(k.exact, colony_columns)] for k in c.colonies])
    elif what == "setup":
        table = Table("Setup cards", ["initiative", "side", "coins", *TRACKS], [])
        setups = sorted(c.setup_cards.items())
        for (initiative, side), s in setups:
            table.rows.append([str(initiative), side, cell(s.coins, "coins", s.exact),
                               *(cell(v, t, s.exact) for v, t in zip(s.values, TRACKS))])
        setup_columns = {"coins": "coins", **{t: t for t in TRACKS}}
        with_data(table, {"initiative": pl.Int64, "side": pl.String, "coins": pl.Int64, **tracks},
                  [[initiative, side, s.coins, *s.values, printed(s.exact, setup_columns)]
                   for (initiative, side), s in setups])
    elif what == "board":
        table = Table("Board", ["item", "epoch I / II / III or values"], [], wrap=("item",))
        # each board value: its item, the board.toml section and key its exact mark is read from
        board = (("sell", c.sell, "sell", "coins"), ("silver medal", c.silver_price, "medals", "silver"),
                 ("gold medal", c.gold_price, "medals", "gold"))
        exact = c.board_exact
        tiles_exact = exact.get("bonus_tiles", ())
        table.rows += [[item, " / ".join(str(cell(v, key, exact.get(section, ()))) for v in values)]
                       for item, values, section, key in board]
        table.rows.append(["bonus tiles per colour", cell(c.tiles_per_colour, "per_colour", tiles_exact)])
        for i, s in enumerate(c.statues):
            table.rows.append([f"statue {i + 1}", f"culture {cell(s.requirement, 'requirement', s.exact)}: "
                               f"{cell(s.points, 'points', s.exact)} points, bonus {cell(s.bonus, 'bonus', s.exact)}"])
        # one row a value, in the column of its unit (a statue's bonus: track steps or points, as its tile)
        prices = [[item, e + 1, v, None, None, None, None, printed(exact.get(section, ()), {key: "coins"})]
                  for item, values, section, key in board for e, v in enumerate(values)]
        statue_columns = {"requirement": "requirement_culture", "points": "points", "bonus": "bonus"}
        with_data(table, {"item": pl.String, "epoch": pl.Int64, "coins": pl.Int64, "tiles": pl.Int64,
                          "requirement_culture": pl.Int64, "points": pl.Int64, "bonus": pl.Int64},
                  [*prices, ["bonus tiles per colour", None, None, c.tiles_per_colour, None, None, None,
                             printed(tiles_exact, {"per_colour": "tiles"})],
                   *([f"statue {i + 1}", None, None, None, s.requirement, s.points, s.bonus,
                      printed(s.exact, statue_columns)] for i, s in enumerate(c.statues))])
    else:
        fail(f"unknown table '{what}'; choose cards, colonies, setup or board")
    emit([table], fmt, footer=components_text(component_set(c)))


@app.command()
def effects(
    components: Optional[Path] = COMPONENTS_OPTION,
    fmt: str = FORMAT_OPTION,
):
    """The purple effects: which card carries each, its epoch and game, and what it does."""
    from ..constants import EFFECTS
    from ..effects import EFFECT_TEXT
    from ..provenance import component_set, components_text

    fmt = check_format(fmt)
    c = components_or_exit(components)
    epochs = {1: "I", 2: "II", 3: "III"}
    table = Table("Purple effects", ["effect", "card", "epoch", "game", "what it does"], [], wrap=("what it does",),
                  caption="advanced: only in the advanced game (starred cards); a removed purple card takes its "
                          "effect with it. Our wording; the rulings are in docs/rules.md")
    for effect, (epoch, starred) in EFFECTS.items():
        card = c.cards[c.effect_card[effect]].id if effect in c.effect_card else "-"
        table.rows.append([effect, card, epochs[epoch], "advanced" if starred else "basic", EFFECT_TEXT[effect]])
    emit([table], fmt, footer=components_text(component_set(c)))

"""How a fit ends, for the sides' fit and the card-cost fit alike: the round whose set it keeps, and
why it stopped."""

from __future__ import annotations

import polars as pl

from ..report import inference as I
from ..report.verdict import undecided_text


def cells(table: pl.DataFrame, games: dict[int, int]) -> pl.DataFrame:
    """A confirmation's verdict table (`with_verdicts`, with hints) with what a fit reads of each cell:
    the games played at its player count (`games`), `fair` (the Holm TOST at 5 %) and `more_games`, the
    games that would bring the deals its hint asks for."""
    return table.with_columns(
        games=pl.col("players").replace_strict(games, return_dtype=pl.Int64),
        fair=(pl.col("q_equiv") < I.ALPHA).fill_null(False)).with_columns(
        more_games=(pl.col("more") * pl.col("games") / pl.col("n")).ceil())


def best_round(rounds: list):
    """The round whose set a fit ends with: the most cells confirmed fair (the later of a tie); None
    before any round."""
    return max(reversed(rounds), key=lambda r: int(r.table["fair"].sum())) if rounds else None


class Ending:
    """The set a fit ends with, from its `rounds` (each with a verdict `table` and a `proposal`)."""

    rounds: list

    @property
    def best(self):
        return best_round(self.rounds)

    @property
    def change(self) -> dict:
        return self.best.proposal.change if self.rounds else {}

    @property
    def after(self) -> pl.DataFrame | None:
        return self.best.table if self.rounds else None


def why_stopped(table: pl.DataFrame, blocked: dict[str, str], key: str) -> tuple[str, str]:
    """(status, reason) of a fit that stops at the set whose confirmation is `table` (the refit
    proposes it again, or the rounds ran out): the names (`key`: side or card) the proposer could not
    bring to fair, else the cells short of deals with the deals that would decide them, else the cells
    the play found unfair."""
    if blocked:
        return "blocked", "; ".join(f"{name} is blocked: {why}" for name, why in blocked.items())
    open_ = table.filter(~pl.col("fair"))
    short = open_.filter(pl.col("more").is_not_null() & pl.col("more").is_not_nan())
    if open_.height and short.height == open_.height:
        cells = "; ".join(f"{r[key]} at {r['players']} players: "
                          + undecided_text(r["more"], r["n"], r["games"], "--confirm-games") for r in short.to_dicts())
        return "too few deals", f"too few deals to confirm the set: {cells}"
    cells = ", ".join(f"{r[key]} at {r['players']} players ({r['verdict']})" for r in open_.to_dicts())
    return "rounds", f"not confirmed: {cells}"

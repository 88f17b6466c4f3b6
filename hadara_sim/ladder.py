"""Head-to-head strength of policies: win rates on the same deals with seats rotated."""

from __future__ import annotations

import itertools

import numpy as np
import polars as pl

from .components import ComponentSet
from .deal import make_deals
from .engine.game import play_batch
from .forward import Forward
from .registry import make_policy
from .report.inference import adjust, rate_interval, rate_p
from .report.ratings import bradley_terry


def head_to_head_seats(games: int, players: int) -> np.ndarray:
    """(games, P) 0 for policy A and 1 for policy B at each seat.

    Seats alternate A, B, A, ... and the pattern and its mirror are rotated over the seats in turn,
    so both policies sit in every seat equally often and hold half the seats on average.
    """
    patterns = []
    for mirror in (0, 1):
        base = (np.arange(players) + mirror) % 2
        patterns += [np.roll(base, r) for r in range(players)]
    patterns = np.array(patterns)
    return patterns[np.arange(games) % len(patterns)]


def play_head_to_head(components: ComponentSet, a, b, players: int, games: int, seed, advanced: bool,
                      jobs: int = 1):
    """Policy `a` against policy `b` (instances) on `games` deals from `seed`, seats rotated:
    (seats, score sheet), seats (games, P) 0 where `a` sits, 1 where `b` sits."""
    deals = make_deals(components, players, games, seed=seed, advanced=advanced)
    seats = head_to_head_seats(games, players)
    return seats, play_split(deals, components, [a, b], seats, jobs)


def play_split(deals, components: ComponentSet, policies, seat_policy, jobs: int = 1) -> dict[str, np.ndarray]:
    """`play_batch` with the games split over `jobs` processes (joblib): the same score sheet, as a
    game plays the same in any batch."""
    if jobs <= 1 or len(deals) < 2:
        return play_batch(deals, components, policies, seat_policy, forward=Forward)
    from joblib import Parallel, delayed

    parts = np.array_split(np.arange(len(deals)), min(jobs, len(deals)))
    sheets = Parallel(n_jobs=len(parts))(delayed(play_batch)(deals[part], components, policies, seat_policy[part],
                                                             forward=Forward) for part in parts)
    return {name: np.concatenate([sheet[name] for sheet in sheets]) for name in sheets[0]}


def win_rate(shares: np.ndarray) -> dict:
    """Mean win share with its 95% Wilson interval (never of zero width, even at 100 %) and the
    p-value of the score test against an even 0.5."""
    low, high = rate_interval(shares)
    return {"win_rate": float(shares.mean()), "ci_low": low, "ci_high": high, "p_value": rate_p(shares, 0.5)}


def head_to_head(components: ComponentSet, a: str, b: str, players: int, games: int, seed: int = 0,
                 advanced: bool = False, params: dict | None = None) -> dict:
    """A against B: per game, the share of the win that went to A's seats."""
    params = params or {}
    seats, sheet = play_head_to_head(components, make_policy(a, seed=seed, **params.get(a, {})),
                                     make_policy(b, seed=seed + 1, **params.get(b, {})), players, games, seed,
                                     advanced)
    shares = np.where(seats == 0, sheet["win_share"], 0.0).sum(axis=1)
    won = sheet["win_share"] > 0
    return {"players": players, "policy": a, "opponent": b, "games": games, **win_rate(shares),
            "shares": shares.tolist(),
            "mean_score": float(sheet["total"][seats == 0].mean()),
            "winning_scores": sheet["total"][won & (seats == 0)].tolist(),
            "opponent_winning_scores": sheet["total"][won & (seats == 1)].tolist()}


def default_field(components: ComponentSet) -> tuple[list[str], str]:
    """The policies a ladder ranks unless told: every built-in, and the learned `expert` where its
    weights were learned on this component set (else left out, and the words say why)."""
    from hadara_sim.policies import BUILTIN

    try:
        make_policy("expert").check_components(components)
    except ValueError as err:
        return list(BUILTIN), f"expert left out: {err}"
    return [*BUILTIN, "expert"], ""


def ladder_problem(names: list[str]) -> str | None:
    """Why these policies make no ladder (None if they do): it needs two at least, each named once."""
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        return (f"policy {', '.join(twice)} is named more than once: a ladder plays each pair of different "
                f"policies once; name each policy once")
    if len(names) < 2:
        return (f"a ladder needs at least two policies to play each other, got {len(names)} "
                f"({', '.join(names) or 'none'}): add another with --policy NAME")
    return None


def ladder(components: ComponentSet, names: list[str], player_counts=(2, 3, 4), games: int = 1000,
           seed: int = 0, advanced: bool = False, progress=None) -> pl.DataFrame:
    """Every pair of policies head to head at each player count, on the same deals: one row per
    ordered pair, with the row policy's win rate and CI, `q` (Holm-corrected over the unordered
    pairs of the player count: both orderings of a pair are one test), its totals in the games it
    won and its per-game win shares."""
    problem = ladder_problem(list(names))
    if problem:
        raise ValueError(problem)
    rows = []
    for players in player_counts:
        for pair, (a, b) in enumerate(itertools.combinations(names, 2)):
            row = {"pair": pair, **head_to_head(components, a, b, players, games, seed, advanced)}
            theirs = row.pop("opponent_winning_scores")
            rows.append(row)
            rows.append({**row, "policy": b, "opponent": a, "win_rate": 1 - row["win_rate"],
                         "ci_low": 1 - row["ci_high"], "ci_high": 1 - row["ci_low"], "mean_score": None,
                         "winning_scores": theirs, "shares": [1 - x for x in row["shares"]]})
            if progress:
                progress()
    frame = pl.DataFrame(rows, schema_overrides={"mean_score": pl.Float64, "winning_scores": pl.List(pl.Int64),
                                                 "shares": pl.List(pl.Float64)})
    tests = frame.unique(["players", "pair"], keep="first", maintain_order=True).select("players", "pair", "p_value")
    q = tests.with_columns(pl.col("p_value").map_batches(lambda p: pl.Series(adjust(p, "holm"))).over("players")
                           .alias("q")).drop("p_value")
    return frame.join(q, on=["players", "pair"], how="left", maintain_order="left").drop("pair")


def ladder_ratings(frame: pl.DataFrame, players: int) -> pl.DataFrame:
    """Bradley-Terry ratings at one player count from a ladder's per-game win shares, with standard
    errors clustered on the deal (every pair plays the same deals)."""
    sub = frame.filter((pl.col("players") == players) & (pl.col("policy") < pl.col("opponent")))
    pairs = (sub.select("policy", "opponent", pl.col("shares").alias("result"),
                        pl.int_ranges(0, pl.col("shares").list.len()).alias("game"))
             .explode(["result", "game"]))
    return bradley_terry(pairs)

"""A round robin of policies by head-to-head play, rated by Bradley-Terry.

At each player count every pair of policies meets in each design of `designs`: one seat of the first
against the second on every other seat ("1 v 3" at 4 players, "1 v 1" at 2), both ways round, and at
an even count of four or more the mirrored half and half ("2 + 2": seats alternate). Seats rotate
game by game, and every design plays the same fresh deals of its player count (deal g of one design
is deal g of every other), so the ratings compare the policies on the same deals. The ratings are
`report.ratings.bradley_terry` (a statsmodels binomial GLM) on every pair of seats held by different
policies in a game (the higher finish wins, a tie counts half), with standard errors clustered on
the deal.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from .components import ComponentSet
from .deal import make_deals
from .ladder import head_to_head_seats, play_split
from .report.inference import rate_interval
from .report.ratings import bradley_terry, pairwise


def designs(labels: list[str], players: int) -> list[tuple[str, str, str]]:
    """(a, b, design) of a round robin at `players`: "1 v 1" per unordered pair at 2 players, else
    "1 v N" per ordered pair (one seat of a, N of b) and, at an even count, "half + half" per
    unordered pair."""
    out = []
    for i, a in enumerate(labels):
        for j, b in enumerate(labels):
            if a == b or (players == 2 and j < i):
                continue
            out.append((a, b, "1 v 1" if players == 2 else f"1 v {players - 1}"))
    if players >= 4 and players % 2 == 0:
        half = players // 2
        out += [(a, b, f"{half} + {half}") for i, a in enumerate(labels) for b in labels[i + 1:]]
    return out


def seat_table(design: str, games: int, players: int) -> np.ndarray:
    """(games, P) 0 where policy a sits, 1 where b sits: one a seat rotating game by game ("1 v N"),
    or seats alternating with the pattern and its mirror rotated (`ladder.head_to_head_seats`)."""
    if design.startswith("1 v ") and players > 2:
        table = np.ones((games, players), np.int64)
        table[np.arange(games), np.arange(games) % players] = 0
        return table
    return head_to_head_seats(games, players)


def round_robin(components: ComponentSet, policies: dict, player_counts=(2, 4), games=1000, seed: int = 0,
                advanced: bool = True, jobs: int = 1, progress=None) -> pl.DataFrame:
    """Play the round robin of `policies` ({label: policy instance}); `games(a, b, players)` or an
    int gives the games of each design. One row per game and seat: players, design (its number at
    the player count), a, b, kind, game (the deal), seat, policy_label, rank, win_share."""
    labels = list(policies)
    count = games if callable(games) else (lambda a, b, p: games)
    frames = []
    for players in player_counts:
        plan = designs(labels, players)
        most = max(count(a, b, players) for a, b, _ in plan)
        deals = make_deals(components, players, most, seed=np.random.SeedSequence([seed, players]),
                           advanced=advanced)
        for number, (a, b, kind) in enumerate(plan):
            n = count(a, b, players)
            table = seat_table(kind, n, players)
            sheet = play_split(deals[:n], components, [policies[a], policies[b]], table, jobs)
            frames.append(pl.DataFrame({
                "players": np.full(n * players, players), "design": np.full(n * players, number),
                "a": np.full(n * players, a), "b": np.full(n * players, b), "kind": np.full(n * players, kind),
                "game": np.repeat(np.arange(n), players), "seat": np.tile(np.arange(players), n),
                "policy_label": np.where(table == 0, a, b).ravel(),
                "rank": sheet["rank"].ravel().astype(np.int64), "win_share": sheet["win_share"].ravel()}))
            if progress:
                progress(players, a, b, kind, n)
    return pl.concat(frames)


def ratings(frame: pl.DataFrame, players: int, leave_out=frozenset()) -> pl.DataFrame:
    """Bradley-Terry ratings at one player count (`report.ratings.bradley_terry` on every pair of
    seats of different policies, clustered on the deal, which every design shares), without the
    designs of the pairs of labels in `leave_out` (either way round)."""
    seats = frame.filter(pl.col("players") == players)
    pairs = [*leave_out, *((b, a) for a, b in leave_out)]
    if pairs:
        seats = seats.join(pl.DataFrame(pairs, schema=["a", "b"], orient="row"), on=["a", "b"], how="anti")
    return bradley_terry(pairwise(seats.rename({"design": "combo"})))


def modelled(policies: dict) -> set[tuple[str, str]]:
    """The pairs (a, b) of labels where policy a plays its copies of the game with an exact model of
    b (a `search` whose opponent model is b's policy with b's parameters): a's games against b
    measure how well it exploits that model, not its strength (docs/policies.md)."""
    def models(p, q) -> bool:
        rivals = getattr(p, "rivals", None)
        return rivals is not None and type(rivals) is type(q) and rivals.settings == q.settings

    return {(a, b) for a, p in policies.items() for b, q in policies.items() if a != b and models(p, q)}


def design_rates(frame: pl.DataFrame, players: int) -> pl.DataFrame:
    """Per design at one player count: a's share of the wins (its seats' win shares summed per game)
    with its 95 % Wilson interval, n (games) and the share a fair field gives a's seats.
    Columns: a, b, kind, n, share, low, high, fair."""
    rows = []
    sub = frame.filter(pl.col("players") == players)
    for (number, a, b, kind), part in sub.group_by(["design", "a", "b", "kind"], maintain_order=True):
        # the games in order, each game's shares summed in ascending order: a group_by's games came in no
        # fixed order, and the mean over them changed its last bits with it (shares of ties are no whole numbers)
        mine = (part.filter(pl.col("policy_label") == a).sort("game", "win_share")
                .group_by("game", maintain_order=True).agg(pl.col("win_share").sum()))
        shares = mine["win_share"].to_numpy()
        low, high = rate_interval(shares)
        fair = (part["policy_label"] == a).sum() / part.height
        rows.append({"a": a, "b": b, "kind": kind, "n": len(shares), "share": float(shares.mean()), "low": low,
                     "high": high, "fair": float(fair)})
    return pl.DataFrame(rows)

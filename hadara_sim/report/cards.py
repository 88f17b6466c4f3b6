"""Card-level statistics from the card columns of the results (the bit sets `bought`,
`bought_in_b`, `sold`, `fed_away`, `offered`, and `colony_tile1..5`, `statue1..4`): how often each civilization card, colony tile and
statue is offered and taken, and how its takers fared.

Everything here is observational: a seat that bought a card chose it, in a game where it wanted
it, so the difference in win share mixes the card's value with the situations in which it is
bought. The causal answer is the grant experiment (`grants.card_grant_pairs`, `grants.placebo_pairs`).

The comparison for a card is paired on the deal: in each game where one seat bought the card and
another seat could have bought it (it was `offered` to them) and did not, the buyer's win share
against the mean of those seats; games of one deal are averaged, then the paired t-test over deals
(`estimates.paired_diff`), Benjamini-Hochberg over the cards of the table.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from ..constants import COLONY_LEVELS, COLOURS, STATUES
from ..results import card_sets
from . import inference as I
from .dataset import ReportError, check_columns, run_components
from .estimates import paired_diffs, rate_intervals, shares_by

GAME = ["combo", "game"]
EVENTS = ("offered", "bought", "sold", "fed_away")
SEAT = [*GAME, "seat"]


def _ungranted(df: pl.DataFrame) -> pl.DataFrame:
    """The games in which no seat was granted a card or restricted in its purchases, at the printed costs:
    a grant or a restriction changes who buys what."""
    check_columns(df, "cards")
    changed = pl.col("granted").is_not_null()
    if "seek" in df.columns:
        changed = changed | pl.col("seek").is_not_null() | pl.col("avoid").is_not_null() | (pl.col("cost_change") != 0)
    base = df.filter(~changed.any().over(GAME))
    if base.height == 0:
        raise ReportError("every game of the dataset has a granted card or a restricted seat; card statistics need "
                          "games without them (a grant or restriction sweep's control combination counts)")
    return base


def card_table(df: pl.DataFrame, components, margin: float = I.MARGIN) -> pl.DataFrame:
    """Per civilization card: its printed values, how often it was offered, bought, sold and fed
    away (shares of all games), `take_rate` (games bought / games offered), the share of its
    purchases made in phase A and the mean epoch of purchase, and the win share of its buyers
    against the seats of the same game that could have bought it and did not (paired on deals;
    observational), raw and adjusted for the policy mix.

    Two biases of the raw comparison are measured, not hidden. Selection: only games in which some
    seat bought the card and another could have and passed count (`compared` of `buying` games).
    Policy mix: a card bought mostly by a weak policy looks weak; the adjusted difference (`adj_*`)
    takes each seat's win share less its policy's mean at its player count (within policy), then
    compares buyers and passers pooled over policies. What remains is the situation: buyers chose the
    card in the games where they wanted it.

    Every share has its 95 % Wilson interval clustered on the deal (`<share>_low`, `<share>_high`:
    `inference.ratio_interval` of the per-deal counts, so the games of one deal in several combinations
    count once).

    Columns: card, card_id, epoch, colour, effect, cost, points, track_sum, games, deals (the n of the
    shares of games), offered_games (of take_rate), purchases (of phase_a), offered, bought, sold,
    fed_away, take_rate, phase_a (each share with _low and _high), bought_epoch, buying (games
    with a buyer), compared (of them, games with a passer too), n (deals paired), rows, win_a (buyers), win_b (passed), win_diff,
    win_low, win_high, win_p, win_q, win_significant, adj_diff, adj_low, adj_high, adj_p, adj_q,
    adj_significant, score_a, score_b, score_diff, score_low, score_high; strongest (adjusted) first."""
    components = run_components(components)
    margin = I.check_margin(margin)
    base = _ungranted(df)
    n_cards = components.n_cards
    game_index, first, deal = _deal_major(base)
    games = len(deal)
    seats = base.select("win_share", (pl.col("win_share") - pl.col("win_share").mean().over("policy_label", "players"))
                        .alias("win_adj"), pl.col("total").cast(pl.Float64)).to_numpy()
    # Per deal and card, the counts each share is made of, filled a part at a time: in the smallest type
    # that holds a deal's rows (one byte up to 255), since at 200,000 deals the six tables of 4- and 8-byte
    # counts, kept per part and then joined, added 1.6 GB to the table's peak.
    deal_rows = np.bincount(np.searchsorted(first, game_index, side="right") - 1)
    counts_of = {k: np.zeros((len(first), n_cards), np.min_scalar_type(int(deal_rows.max())))
                 for k in (*EVENTS, "in_a", "purchases")}
    per_game, buying, compared = [], 0, 0
    for rows in _parts(game_index, first, PART_ROWS):
        part = _card_part(base, components, rows, game_index, seats, first, deal)
        for k, array in counts_of.items():
            array[part["deals"]] = part[k]
        per_game.append(part["per_game"])
        buying, compared = buying + part["buying"], compared + part["compared"]
    seen = {e: counts_of[e] for e in EVENTS}
    in_a, purchases = counts_of["in_a"], counts_of["purchases"]
    counts = pl.DataFrame({"card": np.arange(n_cards, dtype=np.int16),
                           **{e: seen[e].sum(axis=0, dtype=np.int64) for e in EVENTS},
                           "purchases": purchases.sum(axis=0, dtype=np.int64)})
    games_of_deal = np.diff(np.r_[first, games])[:, None]
    shares = {e: (seen[e], games_of_deal) for e in EVENTS} | {"take_rate": (seen["bought"], seen["offered"]),
                                                              "phase_a": (in_a, purchases)}
    intervals = pl.DataFrame({"card": np.arange(n_cards, dtype=np.int16),
                              **{f"{name}_{end}": bound for name, (hits, trials) in shares.items()
                                 for end, bound in zip(("low", "high"), rate_intervals(hits, trials))}})
    bought = purchases.sum(axis=0) > 0
    # Every purchase is made in the card's own epoch, so the mean epoch of purchase is the card's.
    timing = pl.DataFrame({"card": np.flatnonzero(bought).astype(np.int16),
                           "phase_a": in_a.sum(axis=0)[bought] / purchases.sum(axis=0)[bought],
                           "bought_epoch": [float(c.epoch) for c, b in zip(components.cards, bought) if b]})
    per_game = pl.concat(per_game)
    selection = pl.DataFrame({"card": np.arange(n_cards, dtype=np.int16),
                              "buying": buying.astype(np.uint32), "compared": compared.astype(np.uint32)})
    # the adjusted difference keeps its interval and tests, not its TOST (margin None): one statsmodels
    # call per card, 4 s of a 200,000-game run, for a column the table dropped
    win, adj, score = paired_diffs(per_game, [("win_buyer", "win_passed", "win_", margin),
                                              ("adj_buyer", "adj_passed", "adj_", None),
                                              ("total_buyer", "total_passed", "score_", None)], ["card"])
    win, adj, score = _corrected(win, "win_"), _corrected(adj, "adj_"), score.drop("n", "rows")
    win = win.join(adj.select("card", *[f"adj_{k}" for k in ("diff", "low", "high", "p", "q", "significant")]),
                   on="card", how="left").join(selection, on="card", how="left")
    table = (_printed(components).join(counts, on="card", how="inner").join(timing, on="card", how="left")
             .join(intervals, on="card", how="left")
             .join(win, on="card", how="left").join(score, on="card", how="left")
             .with_columns(pl.lit(games).alias("games"), pl.lit(len(first)).alias("deals"),
                           pl.col("offered").alias("offered_games"),
                           (pl.col("bought").fill_null(0) / pl.col("offered")).alias("take_rate"),
                           *[(pl.col(e).fill_null(0) / games).alias(e) for e in EVENTS]))
    return table.filter(pl.col("offered") > 0).sort("adj_diff", descending=True, nulls_last=True)


PART_ROWS = 250_000  # seats read at a time: the card sets of 3.8 million seats at once took 18 GB, the colony
# table's join of every seat with the tiles dealt in its game 11.8 GB


def _deal_major(base: pl.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The games numbered deal-major (a deal's games in every combination side by side), so that a
    share's counts sum over each deal without reordering, and a part of whole deals is a run of games:
    each row's game (`game_index`), each deal's first game (`first`) and each game's deal (`deal`)."""
    game_index = base.select(pl.struct("game", "combo").rank("dense").cast(pl.Int64) - 1).to_series().to_numpy()
    deal = np.zeros(int(game_index.max()) + 1, np.int64)
    deal[game_index] = base["game"].to_numpy()
    return game_index, np.flatnonzero(np.r_[True, deal[1:] != deal[:-1]]), deal


def _parts(game_index: np.ndarray, first: np.ndarray, size: int) -> list[np.ndarray]:
    """The rows in parts of whole deals (about `size` rows each, a deal never split), each part's rows
    in the order of their games (`first`: each deal's first game, games numbered deal-major)."""
    order = np.argsort(game_index, kind="stable")
    deal_starts = np.searchsorted(game_index[order], first)  # each deal's first row in that order
    at = np.unique(np.searchsorted(deal_starts, np.arange(0, len(order), size)))
    return np.split(order, deal_starts[at[(at > 0) & (at < len(deal_starts))]])


def _card_part(base: pl.DataFrame, components, rows: np.ndarray, game_index: np.ndarray, seats: np.ndarray,
               first: np.ndarray, deal: np.ndarray) -> dict:
    """The card counts of one part of whole deals (`rows` of `base`; its deals the slice `deals`): per
    deal and card the games in which each event happened (one entry per event of EVENTS), the purchases
    and those made in phase A (`purchases`, `in_a`), and the buyers against the passers (`per_game`,
    `buying`, `compared`: `_buyers_and_passers`)."""
    bits = card_sets(base[rows], components, packed=True)
    n_cards = components.n_cards
    g0 = int(game_index[rows[0]])
    local = game_index[rows] - g0
    games = int(local.max()) + 1
    d0, d1 = np.searchsorted(first, [g0, g0 + games])
    starts = first[d0:d1] - g0
    game_rows = np.searchsorted(local, np.arange(games))  # each game's first row (the rows in game order)
    events = {e: _by_deal(_games_with(bits[e], game_rows, n_cards), starts) for e in EVENTS}
    per_game, buying, compared = _buyers_and_passers(bits, local, games, seats[rows], deal[g0:g0 + games], n_cards)
    # One seat of a game at most buys a card (card_sets refuses sets that say otherwise), so a deal's
    # purchases of a card are the games of the deal in which it was bought, and those in phase A the games
    # in which it was bought and not in phase B (counted seat by seat, they took 2 s of 200,000 games)
    in_a = _by_deal(_games_with(bits["bought"] & ~bits["bought_in_b"], game_rows, n_cards), starts)
    return {"deals": slice(d0, d1), **events, "in_a": in_a, "purchases": events["bought"],
            "per_game": per_game, "buying": buying, "compared": compared}


def _games_with(bits: np.ndarray, game_rows: np.ndarray, n_cards: int) -> np.ndarray:
    """Per game and card (games, cards): whether some seat's bit set of `bits` (rows, bytes: packed, a
    game's rows together, `game_rows` the first of each) holds it. The bytes of a game's seats are
    or-ed, then unpacked: the cards of every seat unpacked and set one by one cost 8 s of report cards on
    a 200,000-game run."""
    return _unpack(np.bitwise_or.reduceat(bits, game_rows, axis=0), n_cards)


def _by_deal(seen: np.ndarray, first: np.ndarray) -> np.ndarray:
    """(deals, cards): the games of each deal in which `seen` (games, cards; a deal's games together,
    `first` the first of each) holds the card."""
    return seen.astype(np.int32) if len(first) == len(seen) else np.add.reduceat(seen, first, axis=0, dtype=np.int32)


def _buyers_and_passers(bits: dict, game_index: np.ndarray, games: int, seats: np.ndarray, deal: np.ndarray,
                        n_cards: int):
    """Per game and card offered to two seats or more: the mean win share, policy-adjusted win share
    and total of its buyers and of the seats that could have bought it and passed (`per_game`: game,
    card, win_buyer, win_passed, adj_buyer, adj_passed, total_buyer, total_passed; games with both
    only); and per card the games with a buyer (`buying`) and, of them, with a passer (`compared`).
    `bits`: the packed card bit sets (`card_sets(..., packed=True)`) of rows in game order (`game_index`,
    0 to games - 1); `seats`: each row's win share, adjusted win share and total; `deal`: each game's deal.

    The games with a buyer and with a passer of each card are or-ed from the packed bits of a game's seats,
    and only the seats of the cells with both are unpacked into entries; one cell per (game, card),
    averaged in numpy (`_cell_means`): a polars group_by over the 1.85 million cells of 20,000 4-player
    games took 2 s, and the entries of every offer (11 million in 250,000 seats) 4 s a part."""
    game_rows = np.searchsorted(game_index, np.arange(games))  # each game's first row
    took, passed = bits["offered"] & bits["bought"], bits["offered"] & ~bits["bought"]
    buying = np.bitwise_or.reduceat(took, game_rows, axis=0)
    compared = buying & np.bitwise_or.reduceat(passed, game_rows, axis=0)
    means = []
    for seat_bits in (took, passed):  # a seat is the one or the other of a cell it was offered
        row, card = np.nonzero(_unpack(seat_bits & compared[game_index], n_cards))
        cell = game_index[row] * n_cards + card
        order = np.argsort(cell, kind="stable")  # the seats of each cell together, in row order
        means.append(_cell_means(cell[order], seats[row[order]]))
    (kept, buyers), (_, passers) = means  # the same cells: each has both
    per_game = pl.DataFrame({"game": deal[kept // n_cards], "card": (kept % n_cards).astype(np.int16),
                             **{f"{name}_{who}": means[:, k] for k, name in enumerate(("win", "adj", "total"))
                                for who, means in (("buyer", buyers), ("passed", passers))}})
    return per_game, _unpack(buying, n_cards).sum(axis=0), _unpack(compared, n_cards).sum(axis=0)


def _unpack(bits: np.ndarray, n_cards: int) -> np.ndarray:
    """Packed card bit sets (rows, bytes) as a (rows, cards) bool matrix."""
    return np.unpackbits(bits, axis=1, count=n_cards, bitorder="little").view(bool)


def _cell_means(cell: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The cells of `cell` (sorted) and the mean of each column of `values` (a row per entry of `cell`)
    over each."""
    if not len(cell):
        return cell, np.zeros((0, values.shape[1]))
    first = np.flatnonzero(np.r_[True, cell[1:] != cell[:-1]])
    if len(first) == len(cell):  # an entry per cell (a card's one buyer in a game): its own mean
        return cell, values
    count = np.diff(np.r_[first, len(cell)])
    return cell[first], np.add.reduceat(values, first, axis=0) / count[:, None]


def _corrected(table: pl.DataFrame, prefix: str) -> pl.DataFrame:
    """`{prefix}q` (Benjamini-Hochberg over the table) and `{prefix}significant` (q < 0.05)."""
    table = table.with_columns(pl.Series(f"{prefix}q", I.adjust(table[f"{prefix}p"], "fdr_bh")))
    return table.with_columns((pl.col(f"{prefix}q").fill_nan(1.0) < I.ALPHA).alias(f"{prefix}significant"))


def _printed(components) -> pl.DataFrame:
    """The civilization cards as printed: index, id, epoch, colour, cost, points, track sum."""
    cards = components.cards
    return pl.DataFrame({
        "card": np.arange(len(cards), dtype=np.int16), "card_id": [c.id for c in cards],
        "epoch": [c.epoch for c in cards], "colour": [COLOURS[c.colour] for c in cards],
        "effect": [c.effect for c in cards], "cost": [c.cost for c in cards], "points": [c.points for c in cards],
        "track_sum": [sum(c.values) for c in cards]}, schema_overrides={"effect": pl.String})


def _takers_vs_others(parts, key: str) -> pl.DataFrame:
    """Per value of `key`: takers (rows with `took`) against the other seats of their game, paired on
    deals; plus the share of games in which some seat took it. `parts`: the seats (a row per seat and
    value of `key`, with GAME, `key`, `took`, `win_share`, `total`) in parts of whole deals, each
    reduced to its games and their means before the next is read."""
    hits, games, per_game = [], [], []
    for per_seat in parts:
        hits.append(per_seat.filter(pl.col("took")).select(*GAME, key).unique())
        games.append(per_seat.select(GAME).unique())
        per_game.append(per_seat.group_by(*GAME, key)
                        .agg(pl.col("win_share").filter(pl.col("took")).mean().alias("win_taker"),
                             pl.col("win_share").filter(~pl.col("took")).mean().alias("win_other"),
                             pl.col("total").filter(pl.col("took")).mean().alias("total_taker"),
                             pl.col("total").filter(~pl.col("took")).mean().alias("total_other"))
                        .drop_nulls(["win_taker", "win_other"]))
    taken = shares_by(pl.concat(hits), pl.concat(games), key, "taken")
    win, score = paired_diffs(pl.concat(per_game), [("win_taker", "win_other", "win_", I.MARGIN),
                                                    ("total_taker", "total_other", "score_", None)], [key])
    win, score = _corrected(win, "win_"), score.drop("n", "rows")
    return taken.join(win, on=key, how="left").join(score, on=key, how="left")


def colony_table(df: pl.DataFrame, components) -> pl.DataFrame:
    """Per colony tile: its level and printed values, the share of games in which it was taken,
    the share of takers who integrated it, and takers against the other seats of the same game among
    games where it was dealt (observational). Colonies: column `colony_id`, strongest first.

    Every seat is joined with the tiles dealt in its game, a part of whole deals at a time (`PART_ROWS`
    seats): the join of 3.8 million seats at once took 11.8 GB."""
    components = run_components(components)
    base = _ungranted(df)
    seats = base.select(*SEAT, "win_share", "total", *[f"colony_tile{k}" for k in range(1, COLONY_LEVELS + 1)],
                        *[f"colony_level{k}" for k in range(1, COLONY_LEVELS + 1)])
    game_index, first, _ = _deal_major(base)
    out = _takers_vs_others((_colony_seats(seats[rows]) for rows in _parts(game_index, first, PART_ROWS)), "tile")
    integrated = shares_by(_taken(seats).select("game", "tile", pl.col("integrated").alias("hit")), None, "tile",
                           "integrated")
    tiles = pl.DataFrame({"tile": [c.index for c in components.colonies], "colony_id": [c.id for c in components.colonies],
                          "level": [c.level + 1 for c in components.colonies],
                          "plunder": [c.plunder for c in components.colonies],
                          "integrate": [c.integrate for c in components.colonies],
                          "front_points": [c.front_points for c in components.colonies],
                          "back_points": [c.back_points for c in components.colonies]},
                         schema_overrides={"tile": pl.Int16})
    return (tiles.join(out.with_columns(pl.col("tile").cast(pl.Int16)), on="tile", how="inner")
            .join(integrated.with_columns(pl.col("tile").cast(pl.Int16)), on="tile", how="left")
            .sort("win_diff", descending=True, nulls_last=True))


def _taken(seats: pl.DataFrame) -> pl.DataFrame:
    """The colony tiles the seats took: a row per seat and tile (SEAT, tile, integrated)."""
    return pl.concat([seats.select(*SEAT, pl.col(f"colony_tile{k}").alias("tile"),
                                   (pl.col(f"colony_level{k}") == 2).alias("integrated"))
                      for k in range(1, COLONY_LEVELS + 1)]).filter(pl.col("tile") >= 0)


def _colony_seats(seats: pl.DataFrame) -> pl.DataFrame:
    """Every seat of `seats` (whole deals) with every tile dealt in its game and whether it took it
    (SEAT, win_share, total, tile, took). A tile counts as dealt in a game when some seat took it:
    untaken tiles stay in their stack, whose contents the results do not record."""
    taken = _taken(seats)
    dealt = taken.select(*GAME, "tile").unique()
    return (seats.select(*SEAT, "win_share", "total").join(dealt, on=GAME, how="inner")
            .join(taken.select(*SEAT, "tile").with_columns(pl.lit(True).alias("took")),
                  on=[*SEAT, "tile"], how="left").with_columns(pl.col("took").fill_null(False)))


def statue_table(df: pl.DataFrame, components) -> pl.DataFrame:
    """Per statue (by requirement): printed requirement and points, the share of games in which it
    was carved, the share carved points side up, and carvers against the other seats of the same
    game (observational)."""
    components = run_components(components)
    base = _ungranted(df)
    per_seat = pl.concat([base.select(*SEAT, "win_share", "total", pl.lit(k, pl.Int8).alias("statue"),
                                      (pl.col(f"statue{k}") >= 0).alias("took"),
                                      (pl.col(f"statue{k}") % 2 == 1).alias("points_side"))
                          for k in range(1, STATUES + 1)])
    out = _takers_vs_others([per_seat], "statue")
    sides = shares_by(per_seat.filter(pl.col("took")).rename({"points_side": "hit"}), None, "statue", "points_side")
    printed = pl.DataFrame({"statue": list(range(1, STATUES + 1)),
                            "requirement": [s.requirement for s in components.statues],
                            "points": [s.points for s in components.statues],
                            "bonus": [s.bonus for s in components.statues]}, schema_overrides={"statue": pl.Int8})
    return printed.join(out, on="statue", how="left").join(sides, on="statue", how="left").sort("statue")

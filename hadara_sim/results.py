"""The results of a batch run: one row per game and seat, with a fixed schema.

`COLUMNS` defines every column once (name, Arrow type, meaning); `SCHEMA` is the pyarrow schema
built from it and docs/results.md documents it column by column (a test keeps the two equal).
Column names and types only change together with `SCHEMA_VERSION`, which every results directory
records in `metadata.json` and in each Parquet file.

A results directory holds `metadata.json` and one `part-cCCCC-kKKKKK.parquet` file per chunk
(combination CCCC, chunk KKKKK). Each part carries, in its Parquet key-value metadata, the run it
belongs to (the run's identity digest, seed, combination, chunk and games), so a part copied in from
another run, or a damaged one, is refused with its file name rather than mixed in.
`load_results(path)` reads a directory back as a polars DataFrame.
"""

from __future__ import annotations

import json
import os
import stat
import re
import warnings
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from .component_files import as_component_set
from .constants import COLOURS, EFFECT_IDS, EPOCHS, MAX_PLAYERS, MIN_PLAYERS, STATUES, TRACKS
from .invocation import program
from .problems import as_path, is_whole, not_a_file
from .swept_key import SweptKey

SCHEMA_VERSION = 2
METADATA_FILE = "metadata.json"
PART_GLOB = "part-*.parquet"
SCHEMA_KEY = b"hadara_sim.schema_version"
PART_KEY = b"hadara_sim.part"  # JSON: run (identity digest), seed, combo, chunk, first_game, games
PART_NAME = re.compile(r"part-c(\d{4,})-k(\d{5,})\.parquet")
TEMP_NAME = re.compile(r"\.(part-c\d{4,}-k\d{5,}\.parquet|metadata\.json)\.\d+\.tmp")
TRACES_DIR = "traces"  # `simulate --trace-games`: a game's trace, verified, as traces/game-cCCCC-gGGGGGGG.jsonl
TRACE_NAME = re.compile(r"game-c(\d{4,})-g(\d{7,})\.jsonl")

SHEET_COLUMNS = ("colonies", "statues", "silver", "gold", "cards", "coins")
EXTRA_POINTS = ("patron_points", "silver_full_points", "set_collector_points", "wildcard_points")

_COLUMNS = [
    ("game", pa.int64(), "Deal number, 0-based. The same number is the same deal in every combination "
                         "of the run (common random numbers): pair control and treatment on it."),
    ("seat", pa.int8(), "Seat 0..players-1, clockwise."),
    ("players", pa.int8(), "Player count of the game."),
    ("advanced", pa.bool_(), "Game kind: true = advanced game (B sides, starred purple cards), false = basic."),
    ("combo", pa.int32(), "Index of the combination (sweep cell, setup grid cell, seat permutation) "
                          "in metadata.json `combinations`."),
    ("sweep", pa.string(), "The swept keys of the combination and their values as a JSON object "
                           "(`{}` without a sweep); `load_results` also spreads them into `sweep_*` columns."),
    ("policy", pa.string(), "Policy playing the seat, as named in the scenario (registry name or spec)."),
    ("policy_label", pa.string(), "Label of the policy entry (scenario `label`, or the name plus "
                                  "the given parameters), to tell apart one policy with two settings."),
    ("policy_params", pa.string(), "The policy's full parameters (defaults included) as a JSON object."),
    ("policy_index", pa.int8(), "Index of the policy in the scenario's policy list."),
    ("setup_card", pa.int8(), "Initiative 1..5 of the seat's setup card."),
    ("setup_side", pa.string(), "Side of the setup card played: \"A\" or \"B\"."),
    ("colour_order", pa.string(), "Deck colours around the board, clockwise from position 0, as "
                                  "initials (Y yellow, R red, B blue, G green, P purple), e.g. \"RYPGB\"."),
    *[(f"first_player_epoch{e}", pa.bool_(), f"The seat was first player in epoch {e}.") for e in EPOCHS],
    ("granted", pa.string(), "Card ids granted to this seat by the scenario, comma-separated; null for none."),
    ("granted_epoch", pa.int8(), "Epoch at whose start the (first) granted card arrived; 0 for none."),
    ("seek", pa.string(), "Restricted play (scenario `restrict`): card ids this seat bought whenever offered and "
                          "affordable, comma-separated; null for a seat that played freely."),
    ("avoid", pa.string(), "Restricted play (scenario `restrict`): card ids this seat never bought, "
                           "comma-separated; null for a seat that played freely."),
    ("cost_change", pa.int8(), "Change of the printed cost of the restricted cards in this game (scenario "
                               "`restrict.cost`, for every seat); 0 without a change."),
    *[(t, pa.int16(), f"Final {t} track.") for t in TRACKS],
    ("coins_held", pa.int16(), "Coins held at the end of the game (before converting to points)."),
    ("colonies", pa.int16(), "Score sheet: points from colonies."),
    ("statues", pa.int16(), "Score sheet: the statues line: statues and points-side tiles, plus `patron_points`."),
    ("silver", pa.int16(), "Score sheet: the silver line: silver medals, plus `silver_full_points`."),
    ("gold", pa.int16(), "Score sheet: the gold line: gold medals, plus `set_collector_points` and `wildcard_points`."),
    ("cards", pa.int16(), "Score sheet: points printed on owned cards."),
    ("coins", pa.int16(), "Score sheet: points from coins, floor(coins_held / 5)."),
    ("total", pa.int16(), "Final score: the sum of the six score sheet lines."),
    ("leftover_coins", pa.int8(), "coins_held mod 5: the first tie-breaker."),
    ("patron_points", pa.int16(), "Part of `statues` due to statue_patron (not statue points)."),
    ("silver_full_points", pa.int16(), "Part of `silver` due to silver_full (not the medal's half track)."),
    ("set_collector_points", pa.int16(), "Part of `gold` due to set_collector: 4 per plain set (not medal points)."),
    ("wildcard_points", pa.int16(), "Part of `gold` due to gold_wildcard: the medal points of the set it completes."),
    *[(f"total_epoch{e}", pa.int16(), f"Running total (as if the game ended) at the end of epoch {e}; "
                                      "total_epoch3 equals total.") for e in EPOCHS],
    ("rank", pa.int8(), "1 = best; by total, then leftover coins; tied seats share the better rank."),
    ("win_share", pa.float64(), "1 for a sole winner, 1/k for each of k tied winners, else 0; sums to 1 per game."),
    *[(f"cards_{c}", pa.int8(), f"{c.capitalize()} cards owned at the end (granted cards included).")
      for c in COLOURS],
    *[(f"effect_{e}", pa.int8(), f"Epoch (1-3) in which the seat gained the `{e}` purple effect, if it "
                                 "still owns it at the end; 0 = not owned.") for e in EFFECT_IDS],
    *[(f"colony_level{k}", pa.int8(), f"Colony of requirement level {k}: 0 none, 1 plundered, 2 integrated.")
      for k in range(1, 6)],
    ("colonies_taken", pa.int8(), "Number of colonies taken (0..5)."),
    *[(f"statue{k}", pa.int8(), f"Statue {k} (by requirement, lowest first): -1 not carved, else "
                                "2 * track of the tile + side (0 coloured side up, 1 points side up).")
      for k in range(1, STATUES + 1)],
    ("statues_carved", pa.int8(), "Number of statues carved (0..4)."),
    ("silver_medals", pa.int8(), "Silver medals bought (0..2)."),
    *[(f"silver_track{k}", pa.int8(), f"Track of silver medal {k}: 0 income, 1 military, 2 culture, "
                                      "3 food; -1 none.") for k in (1, 2)],
    ("gold_medals", pa.int8(), "Gold medals bought (0..2)."),
    *[(f"colony_tile{k}", pa.int16(), f"Colony tile taken at requirement level {k}: its row in the component "
                                      "set's `colonies.csv` (0-based, `components.colonies[i].id`); -1 none.")
      for k in range(1, 6)],
    ("bought", pa.binary(), "Civilization cards the seat bought, kept or later removed in feeding (granted cards "
                            "not included, see `granted`), as a bit set over the component set's cards: bit i % 8 "
                            "of byte i // 8 is card i (`components.cards[i]`); each was bought in its own epoch."),
    ("bought_in_b", pa.binary(), "The cards of `bought` bought in phase B (picks), as a bit set; the others were "
                                 "bought in phase A (draw rounds)."),
    ("sold", pa.binary(), "Civilization cards the seat sold, as a bit set."),
    ("fed_away", pa.binary(), "Cards the seat removed while feeding its people (bought or granted before), as a "
                              "bit set."),
    ("offered", pa.binary(), "Cards the seat could legally have bought at one of its decisions (drawn in phase A, "
                             "or on top of a pile at its pick in phase B; affordable, and the bonus_tile_card only "
                             "with an unused bonus tile), as a bit set. "
                             "`results.decode_cards` decodes one bit set, `card_events` every card column."),
]
COLUMNS: tuple[tuple[str, pa.DataType, str], ...] = tuple(_COLUMNS)
SCHEMA = pa.schema([pa.field(name, dtype, nullable=True) for name, dtype, _ in COLUMNS],
                   metadata={SCHEMA_KEY: str(SCHEMA_VERSION).encode()})
SORT_KEYS = ["combo", "game", "seat"]


class ResultsError(ValueError):
    """A results directory that cannot be read: missing, unreadable, or of another schema."""


class DamagedPart(ResultsError):
    """A part file that cannot be read: the run's other chunks are sound, and a resumed run plays its
    chunk alone again (`resume_one`)."""


def resume_one(command: str = "the same command") -> str:
    """How to replace one damaged part: resume the run with `command`."""
    return (f"move it away and run {command} again: its chunk alone is played again (--overwrite would play "
            "every chunk again)")


def schema_markdown() -> str:
    """The column table of docs/results.md."""
    rows = ["| column | dtype | meaning |", "| --- | --- | --- |"]
    rows += [f"| `{name}` | {dtype} | {meaning} |" for name, dtype, meaning in COLUMNS]
    return "\n".join(rows)


# --- building a chunk's table -----------------------------------------------------------------

def build_table(game, sheet: dict, combo, policies, seat_policy: np.ndarray, grant_rows,
                restricted: np.ndarray | None = None) -> pa.Table:
    """The rows of one played batch (`game` a finished BatchGame) as an Arrow table of SCHEMA.

    `policies` are the instances, `seat_policy` (games, P) their index per seat, `grant_rows` a list
    of (epoch, card id, seat array) of the grants played, `restricted` (games,) the seat of the
    combination's restriction in each game (-1 or None: none).
    """
    s = game.s
    deals = s.deals
    n, P = s.games, s.players
    config = combo.config

    def flat(a):
        return np.ascontiguousarray(np.broadcast_to(a, (n, P))).ravel()

    cols: dict[str, object] = {}
    cols["game"] = flat(deals.game_id[:, None])
    cols["seat"] = flat(np.arange(P)[None, :])
    cols["players"] = np.full(n * P, P)
    cols["advanced"] = np.full(n * P, config.advanced)
    cols["combo"] = np.full(n * P, combo.index)
    sweep = json.dumps(combo.sweep, sort_keys=False)
    cols["sweep"] = _strings(np.zeros(n * P, np.int64), [sweep])
    table_idx = flat(seat_policy)
    entries = config.policies
    params = [json.dumps(_jsonable(getattr(p, "settings", e.params)), sort_keys=True)
              for p, e in zip(policies, entries)]
    cols["policy"] = _strings(table_idx, [e.policy for e in entries])
    cols["policy_label"] = _strings(table_idx, [e.label for e in entries])
    cols["policy_params"] = _strings(table_idx, params)
    cols["policy_index"] = table_idx
    cols["setup_card"] = s.initiative.ravel()
    cols["setup_side"] = _strings(s.side.ravel(), ["A", "B"])
    initials = np.array([c[0].upper() for c in COLOURS])
    orders, order_of_game = np.unique(deals.colour_order, axis=0, return_inverse=True)
    cols["colour_order"] = _strings(np.repeat(order_of_game.ravel(), P),
                                    ["".join(row) for row in initials[orders.astype(np.int64)]])
    for e in EPOCHS:
        cols[f"first_player_epoch{e}"] = flat(game.firsts[:, e - 1][:, None] == np.arange(P)[None, :])
    granted = np.full((n, P), None, dtype=object)
    granted_epoch = np.zeros((n, P), np.int8)
    for epoch, card_id, seat in grant_rows:
        rows = np.flatnonzero(seat >= 0)
        for g, k in zip(rows.tolist(), seat[rows].tolist()):
            granted[g, k] = card_id if granted[g, k] is None else f"{granted[g, k]},{card_id}"
            if granted_epoch[g, k] == 0:
                granted_epoch[g, k] = epoch
    labels = sorted({v for v in granted.ravel().tolist() if v is not None})
    code = {v: i for i, v in enumerate(labels)}
    cols["granted"] = _strings(np.array([code.get(v, -1) for v in granted.ravel().tolist()], np.int64), labels)
    cols["granted_epoch"] = granted_epoch.ravel()
    r = config.restriction
    mine = (np.zeros((n, P), bool) if r is None or restricted is None
            else restricted[:, None] == np.arange(P)[None, :]).ravel()
    for name in ("seek", "avoid"):
        cards = ",".join(getattr(r, name)) if r is not None else ""
        cols[name] = _strings(np.where(mine & bool(cards), 0, -1), [cards])
    cols["cost_change"] = np.full(n * P, r.cost if r is not None else 0, np.int8)
    for t, track in enumerate(TRACKS):
        cols[track] = s.tracks[:, :, t].ravel()
    cols["coins_held"] = s.coins.ravel()
    for name in (*SHEET_COLUMNS, "total", "leftover_coins", *EXTRA_POINTS, "rank", "win_share"):
        cols[name] = sheet[name].ravel()
    for e in EPOCHS:
        cols[f"total_epoch{e}"] = game.epoch_totals[:, :, e - 1].ravel()
    for k, colour in enumerate(COLOURS):
        cols[f"cards_{colour}"] = s.colour_count[:, :, k].ravel()
    epochs = np.where(s.effects, s.effect_epoch, 0)
    for k, effect in enumerate(EFFECT_IDS):
        cols[f"effect_{effect}"] = epochs[:, :, k].ravel()
    for k in range(5):
        cols[f"colony_level{k + 1}"] = s.colonies[:, :, k].ravel()
    cols["colonies_taken"] = (s.colonies > 0).sum(axis=2).ravel()
    for k in range(STATUES):
        cols[f"statue{k + 1}"] = s.statues[:, :, k].ravel()
    cols["statues_carved"] = (s.statues >= 0).sum(axis=2).ravel()
    cols["silver_medals"] = (s.silver >= 0).sum(axis=2).ravel()
    cols["silver_track1"] = s.silver[:, :, 0].ravel()
    cols["silver_track2"] = s.silver[:, :, 1].ravel()
    cols["gold_medals"] = s.gold.ravel()
    for k in range(5):
        cols[f"colony_tile{k + 1}"] = s.colony_tile[:, :, k].ravel()
    cols.update(_card_columns(s, grant_rows))
    return pa.Table.from_arrays([_column(cols[f.name], f) for f in SCHEMA], schema=SCHEMA)


def _column(value, f: pa.Field) -> pa.Array:
    """A chunk's column as its field's type. Numbers are converted in numpy, refusing a value that
    does not fit as pyarrow's safe cast would: Arrow's cast imports pyarrow.compute, a sixth of a
    second of every run's start-up."""
    if isinstance(value, pa.Array):
        return value if value.type == f.type else value.cast(f.type)
    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
        dtype = np.dtype(f.type.to_pandas_dtype())
        converted = value.astype(dtype)
        if dtype != value.dtype and not np.array_equal(converted, value, equal_nan="f" in dtype.kind + value.dtype.kind):
            raise ValueError(f"results column {f.name}: a value does not fit its type {f.type}")
        return _arrow(converted)
    return pa.array(value, type=f.type, from_pandas=False)


# pyarrow's `pa.array` imports pandas on its first call (to ask whether its input is a pandas object),
# 0.3-0.6 s of every run's start-up for nothing: a chunk's columns are numpy arrays and strings, which
# `pa.Array.from_buffers` takes as they are.
def _arrow(values: np.ndarray) -> pa.Array:
    """A numpy array of numbers or booleans as an Arrow array of the same type, without pandas."""
    values = np.ascontiguousarray(values)
    if values.dtype == np.bool_:
        bits = np.packbits(values, bitorder="little")
        return pa.Array.from_buffers(pa.bool_(), len(values), [None, pa.py_buffer(bits)])
    return pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), len(values), [None, pa.py_buffer(values)])


CARD_SETS = ("bought", "bought_in_b", "sold", "fed_away", "offered")
# Parquet dictionary-encodes every column but the bit sets, whose values hardly ever repeat.
DICTIONARY_COLUMNS = [name for name, _, _ in COLUMNS if name not in CARD_SETS]


def _card_columns(s, grant_rows) -> dict[str, pa.Array]:
    """The card bit sets of every (game, seat), from the engine's card record."""
    from .engine.ledger import card_bits

    granted = np.zeros(s.card_seat.shape, bool)
    for _, card_id, seat in grant_rows:
        granted[np.flatnonzero(seat >= 0), s.components.card_index[card_id]] = True
    rows, width = s.games * s.players, -(-s.components.n_cards // 8)
    bits = {name: np.zeros((rows, width), np.uint8) for name in CARD_SETS}
    card_bits(s.card_seat, s.location, s.card_when, s.card_offered, granted, *bits.values())
    offsets = pa.py_buffer(np.arange(0, (rows + 1) * width, width, dtype=np.int32))
    return {name: pa.BinaryArray.from_buffers(pa.binary(), rows, [None, offsets, pa.py_buffer(b)])
            for name, b in bits.items()}


def decode_cards(bits: bytes) -> list[int]:
    """The card indices of one bit set of the card columns, ascending."""
    return np.flatnonzero(np.unpackbits(np.frombuffer(bits, np.uint8), bitorder="little")).tolist()


def encode_cards(cards, n_cards: int) -> bytes:
    """The bit set of some card indices (the inverse of `decode_cards`)."""
    mask = np.zeros(n_cards, bool)
    mask[list(cards)] = True
    return np.packbits(mask, bitorder="little").tobytes()


def _unpacked(column, width: int) -> np.ndarray:
    """A column of bit sets as a (rows, 8 * width) bool matrix (empty or missing sets allowed)."""
    return np.unpackbits(_card_bytes(column, width), axis=1, bitorder="little").view(bool)


def _card_bytes(column, width: int) -> np.ndarray:
    """A column of bit sets, each empty, missing or `width` bytes long (a shorter one padded with zero
    bytes), as a (rows, width) uint8 matrix: read from the column's Arrow buffers, as reading its values
    one by one into Python took 12 s of `report cards` on a 200,000-game run (800,000 seats)."""
    sizes, offsets, data = _binary_buffers(column)
    if (sizes > width).any():  # not bit sets of this width: as the values read one by one, refused
        values = [b or b"" for b in column.to_list()]
        return np.frombuffer(b"".join(b.ljust(width, b"\0") for b in values), np.uint8).reshape(len(sizes), width)
    matrix = _byte_matrix(sizes, offsets, data, width)
    return matrix if matrix.base is None else matrix.copy()  # not a view of the column's Arrow buffer


def _binary_buffers(column) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A Binary column's value sizes (0 for a missing one), start offsets into its data, and data bytes."""
    array = column.rechunk().to_arrow()
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    if array.type != pa.large_binary():
        array = array.cast(pa.large_binary())
    rows = len(array)
    offsets = np.frombuffer(array.buffers()[1], np.int64, rows + 1, array.offset * 8) if rows else np.zeros(1, np.int64)
    sizes = np.diff(offsets)
    if array.null_count:
        sizes = np.where(array.is_null().to_numpy(zero_copy_only=False), 0, sizes)
    data = np.frombuffer(array.buffers()[2], np.uint8) if sizes.any() else np.zeros(0, np.uint8)
    return sizes, offsets, data


def _byte_matrix(sizes: np.ndarray, offsets: np.ndarray, data: np.ndarray, width: int) -> np.ndarray:
    """The (rows, width) uint8 matrix of bit sets of at most `width` bytes (shorter ones padded with zero
    bytes), given as `_binary_buffers`; when every set is full and side by side, a read-only view of `data`."""
    rows = len(sizes)
    if (sizes == width).all() and (offsets[-1] - offsets[0]) == rows * width:  # every set full, side by side
        return data[offsets[0]:offsets[-1]].reshape(rows, width)
    out = np.zeros((rows, width), np.uint8)
    for size in np.unique(sizes[sizes > 0]):  # the full sets, then any shorter ones (padded), a length at a time
        at = np.flatnonzero(sizes == size)
        out[at, :size] = data[offsets[at][:, None] + np.arange(size)]
    return out


def polars_frame(df) -> None:
    """A TypeError saying what to pass unless `df` is a polars DataFrame (a notebook may hold a pandas
    frame or scan_results' LazyFrame; both stopped deep inside with AttributeError 'height')."""
    import polars as pl

    if not isinstance(df, pl.DataFrame):
        hint = ("call .collect() on it" if isinstance(df, pl.LazyFrame) else
                "polars.from_pandas(frame) converts it" if type(df).__module__.startswith("pandas") else
                "hadara_sim.load_results(FOLDER) gives one")
        raise TypeError(f"the reports (and card_events) read a polars DataFrame, got a {type(df).__name__}: {hint}")


VALUE_COLUMNS = ("players", "seat", "win_share", "total")  # the columns value_problem reads


def value_problem(df) -> tuple[int, str, str] | None:
    """(row, column, what is wrong) for the first row of `df` whose player count, seat, win share or score
    cannot be, or None: a damaged part read silently (win_share 5.0, seat 9 at 4 players, a null total
    that stopped a chart with "cannot convert float NaN to integer")."""
    if df.height == 0:
        return None
    players = df["players"].fill_null(0).to_numpy()
    checks = (("players", (players < MIN_PLAYERS) | (players > MAX_PLAYERS), "a player count outside 2..5"),
              ("seat", _outside(df["seat"], 0, players - 1), "a seat outside 0..players - 1"),
              ("win_share", _outside(df["win_share"], 0.0, 1.0), "a win share outside 0..1"),
              ("total", _outside(df["total"], 0, np.inf), "a score that is missing or below 0"))
    for column, wrong, what in checks:
        at = np.flatnonzero(wrong)
        if len(at):
            return int(at[0]), column, what
    return None


def _outside(column, low, high) -> np.ndarray:
    """Rows of a column that are null, NaN or outside [low, high] (bounds per row or one for all)."""
    values = column.cast(float).fill_null(np.nan).to_numpy()
    with np.errstate(invalid="ignore"):
        return ~((values >= low) & (values <= high))


def card_set_problem(df, n_cards: int | None = None) -> tuple[int, str, str] | None:
    """(row, column, what is wrong) for the first row of `df` whose card bit sets break the schema's
    rules, or None: every set `width` bytes long (one bit per card; empty allowed), no bit past the last
    card (when `n_cards` is known), `bought_in_b` inside `bought`, no card both bought and sold, and in
    each game a card bought or sold by one seat at most."""
    columns = [c for c in CARD_SETS if c in df.columns]
    if not columns or df.height == 0:
        return None
    # each column's Arrow buffers read once, for the sizes and the sets both (polars' bin.size per
    # column took a third of the check's time on a card-worth run)
    buffers = {c: _binary_buffers(df[c]) for c in columns}
    sizes = {c: buffers[c][0] for c in columns}
    if n_cards is None:  # the width most sets have (one row too long must not set it)
        every = np.concatenate([v[v > 0] for v in sizes.values()])
        if not len(every):
            return None
        width = int(np.bincount(every).argmax())
    else:
        width = -(-n_cards // 8)
    for c in columns:
        wrong = np.flatnonzero((sizes[c] != 0) & (sizes[c] != width))
        if len(wrong):
            return int(wrong[0]), c, f"a bit set of {int(sizes[c][wrong[0]])} bytes, where every set has {width}"
    sets = {c: _byte_matrix(*buffers[c], width) for c in columns}
    if n_cards is not None and n_cards % 8:
        past = np.uint8(0xFF ^ ((1 << (n_cards % 8)) - 1))
        for c in columns:
            wrong = _first_row(sets[c][:, -1:] & past)
            if wrong is not None:
                return wrong, c, f"a card past the last of the {n_cards} cards"
    rules = (("bought_in_b", "bought", lambda a, b: a & ~b, "a card bought in phase B that is not in bought"),
             ("sold", "bought", lambda a, b: a & b, "a card both bought and sold"))
    for column, other, clash, what in rules:
        if column in sets and other in sets:
            wrong = _first_row(clash(sets[column], sets[other]))
            if wrong is not None:
                return wrong, column, what
    keys = [k for k in ("combo", "game") if k in df.columns]
    held = [sets[c] for c in ("bought", "sold") if c in sets]
    if "game" in keys and held:
        taken = np.bitwise_or.reduce(held) if len(held) > 1 else held[0]
        game = np.zeros(df.height, np.int64)
        for k in keys:
            game = game * (int(df[k].max()) + 1) + df[k].cast(int).to_numpy()
        order = np.argsort(game, kind="stable")
        starts = np.flatnonzero(np.r_[True, np.diff(game[order]) != 0])
        rows = _words(taken)[order]
        # a game's sets are disjoint exactly when adding them carries nowhere: their sum is then their union
        # (32-bit words summed in 64 bits cannot wrap back to it); half the time of counting bits per byte
        summed = np.add.reduceat(rows, starts, axis=0, dtype=np.uint64)
        group = _first_row(summed != np.bitwise_or.reduceat(rows, starts, axis=0))
        if group is not None:
            end = starts[group + 1] if group + 1 < len(starts) else len(order)
            seen = np.zeros(width, np.uint8)
            for i in order[starts[group]:end]:
                if (seen & taken[i]).any():
                    bought = "bought" in sets and (seen & sets["bought"][i]).any()
                    return int(i), "bought" if bought else "sold", "a card another seat of the same game took too"
                seen |= taken[i]
    return None


def _words(matrix: np.ndarray) -> np.ndarray:
    """A (rows, bytes) uint8 matrix as (rows, words) uint32, each row padded with zero bytes to whole words."""
    padded = np.zeros((len(matrix), -(-matrix.shape[1] // 4) * 4), np.uint8)
    padded[:, :matrix.shape[1]] = matrix
    return padded.view(np.uint32)


def _first_row(matrix: np.ndarray) -> int | None:
    """The first row of a 2-d array with a nonzero value in it, or None."""
    if not np.count_nonzero(matrix):  # the usual case, and far quicker than any(axis=1) over every row
        return None
    return int(np.flatnonzero(matrix)[0] // matrix.shape[1])


def card_sets(df, components, packed: bool = False) -> dict[str, np.ndarray]:
    """The card bit sets of a results frame (`bought`, `bought_in_b`, `sold`, `fed_away`, `offered`) as
    (rows, cards) bool matrices, one column per card of `components`, after checking them against it.
    With `packed`, as they are stored: (rows, bytes) uint8 matrices, card k the bit k % 8 of byte k // 8
    (`np.unpackbits(..., axis=1, count=n_cards, bitorder="little")` gives the bool matrix), for work on
    bits of whole games at once."""
    import polars as pl

    polars_frame(df)
    components = as_component_set(components)
    # A column missing or of another kind stopped inside polars ('"offered" not found', 'expected Binary'); one
    # all null was read as empty sets, and an empty bought was told as bought_in_b's cards outside it
    wrong = [f"{c} is {'missing' if c not in df.columns else df[c].dtype if df[c].dtype != pl.Binary else 'all null'}"
             for c in CARD_SETS if c not in df.columns or df[c].dtype != pl.Binary
             or 0 < df.height == df[c].null_count()]
    if wrong:
        raise ResultsError(f"the card columns of a results frame ({', '.join(CARD_SETS)}) are bit sets (Binary), "
                           f"but here {', '.join(wrong)}: give the frame load_results or simulate returns, with "
                           "those columns as they are")
    problem = card_set_problem(df, components.n_cards)
    if problem:
        row, column, what = problem
        keys = [k for k in ("combo", "game", "seat") if k in df.columns]
        where = ", ".join(f"{k} {df[k][row]}" for k in keys) or f"row {row}"
        raise ResultsError(f"column {column} at {where} holds {what}: these results were not written by "
                           f"hadara-sim for this component set ({components.n_cards} cards)")
    width = -(-components.n_cards // 8)
    if packed:
        return {c: _card_bytes(df[c], width) for c in CARD_SETS}
    return {c: _unpacked(df[c], width)[:, :components.n_cards] for c in CARD_SETS}


def card_events(df, components):
    """The card bit sets of a results frame as one long polars frame: a row per (game, seat, card,
    event), event one of bought / sold / fed_away / offered, with the card's id, epoch and colour,
    and for purchases the epoch (the card's own) and phase ("A" / "B") of buying.

    Give the component set the run played (its metadata.json `components`: the path and digest): a
    polars frame carries no metadata, so a frame of another set is refused only when its card columns
    do not fit this set's card count; one of another set with as many cards is read as this set's."""
    import polars as pl

    polars_frame(df)
    components = as_component_set(components)
    keys = [k for k in ("combo", "game", "seat") if k in df.columns]
    cards = pl.DataFrame({"card": np.arange(components.n_cards, dtype=np.int16),
                          "card_id": list(components.card_ids),
                          "card_epoch": np.array([c.epoch for c in components.cards], np.int8),
                          "colour": [COLOURS[c.colour] for c in components.cards]})
    index, sets = df.select(keys), card_sets(df, components)
    frames = []
    for event in ("bought", "sold", "fed_away", "offered"):
        row, card = np.nonzero(sets[event])
        phase = np.where(sets["bought_in_b"][row, card], "B", "A") if event == "bought" else np.full(len(row), None)
        frames.append(index[row].with_columns(card=pl.Series(card.astype(np.int16)), event=pl.lit(event),
                                              when_phase=pl.Series(phase.tolist(), dtype=pl.String)))
    events = pl.concat(frames).join(cards, on="card", how="left")
    return events.with_columns(when_epoch=pl.when(pl.col("event") == "bought").then(pl.col("card_epoch")))


def _strings(index: np.ndarray, values: list[str]) -> pa.Array:
    """A string column of `values[index]` (null where the index is negative), its buffers made in
    numpy: no Python string per row, no pandas (`_arrow`), and no pyarrow.compute (a dictionary
    column's decoding imports it: a sixth of a second of every run's start-up)."""
    data = [v.encode() for v in values] or [b""]  # no values: every row is null
    lengths = np.array([len(d) for d in data], np.int64)
    valid = np.asarray(index) >= 0
    row = np.where(valid, index, 0).astype(np.int64)
    row_lengths = np.where(valid, lengths[row], 0)
    offsets = np.concatenate([[0], np.cumsum(row_lengths)]).astype(np.int32)
    starts = np.cumsum(lengths) - lengths  # where each value's bytes start in the joined values
    where = np.repeat(starts[row] - offsets[:-1], row_lengths) + np.arange(offsets[-1])
    text = np.frombuffer(b"".join(data), np.uint8)[where]
    nulls = None if valid.all() else pa.py_buffer(np.packbits(valid, bitorder="little"))
    return pa.Array.from_buffers(pa.string(), len(valid), [nulls, pa.py_buffer(offsets), pa.py_buffer(text)])


def _jsonable(value):
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


# --- files ------------------------------------------------------------------------------------

def part_name(combo: int, chunk: int) -> str:
    """The file name of chunk `chunk` of combination `combo`."""
    return f"part-c{combo:04d}-k{chunk:05d}.parquet"


def parse_part_name(name: str) -> tuple[int, int] | None:
    """(combo, chunk) of a part file name, or None for any other name."""
    found = PART_NAME.fullmatch(name)
    if not found:
        return None
    combo, chunk = int(found.group(1)), int(found.group(2))
    # part-c00000-k00000 (a zero more) is the chunk of part-c0000-k00000 too: its rows were read twice
    return (combo, chunk) if name == part_name(combo, chunk) else None


def chunks_per_combination(games: int, chunk: int) -> int:
    return -(-games // chunk)


def our_parts(out: Path) -> list[Path]:
    """The part files in a results directory (by their exact name pattern), sorted."""
    return sorted(f for f in Path(out).glob(PART_GLOB) if PART_NAME.fullmatch(f.name))


def trace_path(out: Path, combo: int, game: int) -> Path:
    """Where `simulate --trace-games` writes the trace of one game of a run."""
    return Path(out) / TRACES_DIR / f"game-c{combo:04d}-g{game:07d}.jsonl"


def our_traces(out: Path) -> list[Path]:
    """The game traces `simulate --trace-games` wrote in a results directory (by their exact name)."""
    return sorted(f for f in (Path(out) / TRACES_DIR).glob("game-*.jsonl") if TRACE_NAME.fullmatch(f.name))


def is_temp_file(name: str) -> bool:
    """A temporary file this program writes (`temp_name`), which a later run may remove."""
    return TEMP_NAME.fullmatch(name) is not None


def temp_name(final: Path) -> Path:
    """Where a file is written before it is moved into place (cleaned by the next run)."""
    return final.with_name(f".{final.name}.{os.getpid()}.tmp")


def _durable_replace(tmp: Path, path: Path):
    """Move a written file into place so that a power loss leaves the old file or the whole new one:
    its bytes reach the disk before the rename, the rename before we go on."""
    with open(tmp, "rb") as written:
        os.fsync(written.fileno())
    os.replace(tmp, path)
    try:
        folder = os.open(path.parent, os.O_RDONLY)
    except OSError:
        return  # a folder that cannot be opened to sync (some platforms): the rename itself stands
    try:
        os.fsync(folder)
    except OSError:
        pass  # not every file system syncs a directory; the file's own bytes are already on disk
    finally:
        os.close(folder)


def write_table(table: pa.Table, path: Path, part: dict | None = None):
    """Write a Parquet file atomically: a temporary name, then one rename. `part` (the run and
    chunk the rows belong to) goes into the file's key-value metadata."""
    if part is not None:
        table = table.replace_schema_metadata({**(table.schema.metadata or {}),
                                               PART_KEY: json.dumps(part, sort_keys=True).encode()})
    tmp = temp_name(path)
    try:
        pq.write_table(table, tmp, compression="zstd", use_dictionary=DICTIONARY_COLUMNS)
        _durable_replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def write_metadata(out: Path, metadata: dict):
    path = out / METADATA_FILE
    tmp = temp_name(path)
    try:
        tmp.write_text(json.dumps(metadata, indent=1) + "\n", encoding="utf-8")
        _durable_replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def _is_count(value, low: int = 1) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= low


def metadata_problem(meta) -> str | None:
    """What makes run metadata unusable (a key and why), or None."""
    if not isinstance(meta, dict) or "schema_version" not in meta:
        return "it is not hadara-sim run metadata (no schema_version)"
    if meta["schema_version"] != SCHEMA_VERSION:
        return None  # reported by check_schema_version, with how to fix it
    if not isinstance(meta.get("identity"), str):
        return "key 'identity' is missing or not a string"
    for key in ("games", "chunk_size", "seed"):
        if not _is_count(meta.get(key), 0 if key == "seed" else 1):
            return f"key '{key}' must be a whole number, got {json.dumps(meta.get(key))}"
    for key, kind, name in (("scenario", dict, "a table"), ("identity_fields", dict, "a table"),
                            ("sessions", list, "a list")):
        if key in meta and not isinstance(meta[key], kind):
            return f"key '{key}' must be {name}, got {json.dumps(meta[key])[:40]}"
    # The reports' titles and footers read these too (the component set is loaded again from its path):
    # a text in their place stopped them with AttributeError or TypeError
    scenario = meta.get("scenario", {})
    parsed = scenario.get("parsed")
    if parsed is not None and not isinstance(parsed, dict):
        return f"key 'scenario.parsed' must be a table, got {json.dumps(parsed)[:40]}"
    for key, value in (("name", scenario.get("name")), ("description", scenario.get("description")),
                       ("parsed.description", (parsed or {}).get("description"))):
        if value is not None and not isinstance(value, str):  # the summary's title escapes it as text
            return f"key 'scenario.{key}' must be text, got {json.dumps(value)[:40]}"
    components = meta.get("components")
    if components is not None and not (isinstance(components, dict)
                                       and isinstance(components.get("path"), (str, type(None)))):
        return f"key 'components' must be a table with a path (text or null), got {json.dumps(components)[:40]}"
    combos = meta.get("combinations")
    if not isinstance(combos, list) or not combos:
        return "key 'combinations' must be a non-empty list"
    seen = set()
    for i, combo in enumerate(combos):
        if not isinstance(combo, dict) or not _is_count(combo.get("index"), 0) or combo["index"] in seen:
            return f"combinations[{i}] must be a table with its own index (a whole number)"
        seen.add(combo["index"])
        if not isinstance(combo.get("sweep", {}), dict):
            return f"combinations[{i}].sweep must be a table"
        config = combo.get("config", {})
        if not isinstance(config, dict) or not (isinstance(config.get("policies", []), list)
                                                and all(isinstance(p, dict) for p in config.get("policies", []))):
            return f"combinations[{i}].config must be a table whose policies are a list of tables"
        arrangement = combo.get("arrangement")
        if arrangement is not None and not (isinstance(arrangement, list) and all(
                _is_count(k, 0) and k < len(config.get("policies", [])) for k in arrangement)):
            return f"combinations[{i}].arrangement must be a list of policy numbers, got {json.dumps(arrangement)[:40]}"
    if "chunks_per_combination" not in meta:
        return "key 'chunks_per_combination' is missing (written by an older hadara-sim?)"
    if meta["chunks_per_combination"] != chunks_per_combination(meta["games"], meta["chunk_size"]):
        return (f"key 'chunks_per_combination' is {json.dumps(meta['chunks_per_combination'])}, but "
                f"{meta['games']} games in chunks of {meta['chunk_size']} make "
                f"{chunks_per_combination(meta['games'], meta['chunk_size'])}")
    return None


def _runs_in(folder: Path) -> list[Path]:
    """The results directories directly in `folder` (none where it or one of them cannot be read)."""
    try:
        return sorted(d for d in folder.iterdir() if (d / METADATA_FILE).is_file())
    except OSError:  # is_file lets a folder's PermissionError through
        return []


def runs_text(folder: Path) -> str:
    """The runs in `folder` in words, "6 runs (results/a, ... and 1 more)", or "" for none."""
    runs = _runs_in(folder)
    if not runs:
        return ""
    shown = ", ".join(str(d) for d in runs[:5]) + (f" and {len(runs) - 5} more" if len(runs) > 5 else "")
    return f"{len(runs)} run{'s' * (len(runs) > 1)} ({shown})"


def results_path(value, what: str, error: type[Exception] = ResultsError) -> Path:
    """`value` as a results directory's Path, or `error` when its name is no UTF-8 text: pyarrow and polars
    take paths as UTF-8, and a name of other bytes (`--out $'run\\xff'`) stopped inside pyarrow
    ("unexpected UnicodeEncodeError") once the games were played."""
    out = as_path(value, what)
    try:
        os.fspath(out).encode("utf-8")
    except UnicodeEncodeError:
        shown = os.fsencode(out).decode("utf-8", errors="replace")
        raise error(f"{what} '{shown}': its name holds bytes that are not UTF-8 text, which the Parquet files "
                    "cannot be written or read under; rename it, or choose another path") from None
    return out


def read_metadata(out: Path) -> dict:
    """The metadata of a results directory, or ResultsError saying what is wrong."""
    out = results_path(out, "the results directory")
    try:
        exists = out.exists()
    except OSError as err:  # a name too long for the file system: "unexpected OSError" in report and show-game
        raise ResultsError(f"no results at {out}: {err.strerror or err}") from None
    if not exists:
        raise ResultsError(f"no results at {out}: the directory does not exist")
    if not out.is_dir():
        inside = (out.parent / METADATA_FILE).is_file()
        raise ResultsError(f"{out} is not a results directory (it is a file)"
                           + (f": give the results directory that holds it, {out.parent}" if inside else ""))
    path = out / METADATA_FILE
    kind = not_a_file(path)
    if kind:  # a folder there was told "it has no metadata.json"; a pipe, read, waits for ever
        raise ResultsError(f"{out} is a damaged results directory: its {METADATA_FILE} is {kind}, not the JSON "
                           f"file simulate writes; move it away, then run the scenario into {out} again "
                           f"(`{program()} simulate SCENARIO --out DIR --overwrite`)")
    if not path.is_file():
        # a folder of runs (results/) was told only to write a run, not which of its folders to give
        runs = runs_text(out)
        if runs:
            raise ResultsError(f"{out} is not a results directory: it has no {METADATA_FILE}, but holds "
                               f"{runs}: give one of them")
        raise ResultsError(f"{out} is not a results directory: it has no {METADATA_FILE} "
                           f"(write one with `{program()} simulate SCENARIO --out DIR`)")
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as err:
        raise ResultsError(f"{path} cannot be read: {err}") from None
    problem = metadata_problem(meta)
    if problem:
        raise ResultsError(f"{path} is damaged: {problem}")
    return meta


def check_schema_version(meta: dict, where) -> None:
    version = meta.get("schema_version")
    if is_whole(version) and version > SCHEMA_VERSION:  # --overwrite, as said for an older run, lost the newer one
        raise ResultsError(f"{where} holds results of schema version {version}, written by a newer hadara-sim than "
                           f"this one (which reads version {SCHEMA_VERSION}): read them with that version (upgrade "
                           "hadara-sim), or rerun the scenario into a new directory; --overwrite would delete them")
    if version != SCHEMA_VERSION:
        raise ResultsError(f"{where} holds results of schema version {version}, but this hadara-sim "
                           f"reads version {SCHEMA_VERSION}; rerun its scenario into a new directory "
                           "(or with --overwrite)")


def check_part_is_file(file: Path) -> None:
    """ResultsError unless `file`, in a part's place, is a regular file of its own (not a link)."""
    if file.is_symlink():
        raise ResultsError(f"{file} is a symbolic link, not a chunk written by this run")
    try:
        regular = stat.S_ISREG(file.stat().st_mode)
    except OSError as err:
        raise _unreadable(file, err) from None
    if not regular:  # a FIFO in its place: reading it waited for ever, and SIGTERM too (held while it ran)
        raise ResultsError(f"{file} is not a file (a folder, pipe or device), not a chunk written by this run")


def check_part(file: Path, run: str, combo: int, chunk: int, games: int | None, players: int | None = None) -> None:
    """ResultsError unless `file` is a readable part of the current schema written by run `run`
    for this combination and chunk (with `games` rows per seat, unless None; and with `players`, a row
    for every seat of them)."""
    check_part_is_file(file)
    try:
        footer = pq.read_metadata(file)
        schema = footer.schema.to_arrow_schema()
    except (OSError, pa.ArrowException) as err:
        raise _unreadable(file, err) from None
    version = (schema.metadata or {}).get(SCHEMA_KEY)
    if version != str(SCHEMA_VERSION).encode():
        shown = version.decode(errors="replace") if version else "unknown"
        raise ResultsError(f"{file} has schema version {shown}, not {SCHEMA_VERSION}; "
                           "rerun its scenario into a new directory")
    if not schema.equals(SCHEMA, check_metadata=False):
        missing = [n for n in SCHEMA.names if n not in schema.names]
        changed = [n for n in SCHEMA.names if n in schema.names and schema.field(n).type != SCHEMA.field(n).type]
        detail = "; ".join(part for part in (
            f"missing columns: {', '.join(missing)}" if missing else "",
            f"columns of another type: {', '.join(changed)}" if changed else "",
            f"unknown columns: {', '.join(n for n in schema.names if n not in SCHEMA.names)}"
            if set(schema.names) - set(SCHEMA.names) else "") if part)
        raise ResultsError(f"{file} does not have the columns of schema version {SCHEMA_VERSION} "
                           f"({detail}); rerun its scenario into a new directory")
    try:
        part = json.loads((schema.metadata or {}).get(PART_KEY, b"null"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        part = None
    if not isinstance(part, dict):
        raise ResultsError(f"{file} does not say which run wrote it: not a chunk of this run")
    expected = {"run": run, "combo": combo, "chunk": chunk, **({"games": games} if games is not None else {})}
    wrong = [k for k, v in expected.items() if part.get(k) != v]
    if wrong:
        shown = ", ".join(f"{k} {json.dumps(part.get(k))} (expected {json.dumps(expected[k])})" for k in wrong)
        raise ResultsError(f"{file} belongs to another run or chunk ({shown}): it is not a chunk of this run")
    if isinstance(games, int) and isinstance(players, int) and footer.num_rows != games * players:  # cut short
        raise ResultsError(f"{file} holds {footer.num_rows:,} rows where its {games:,} games of {players} players "
                           f"have {games * players:,}: damaged; delete it and run the same simulate command again "
                           "to play its chunk afresh")


def result_files(path, *, allow_partial: bool = True) -> tuple[dict, list[Path]]:
    """The metadata and the checked chunk files of a results directory: every part file must be a
    chunk of the run that metadata.json describes."""
    out = results_path(path, "the results directory")
    if not isinstance(allow_partial, bool):  # a frame or a text here was read as true
        raise TypeError(f"allow_partial is True or False, not {allow_partial!r:.40}")
    meta = read_metadata(out)
    check_schema_version(meta, out)
    combos, per_combo = {c["index"] for c in meta["combinations"]}, meta["chunks_per_combination"]
    players = {c["index"]: c.get("players") for c in meta["combinations"]}
    games, size = meta["games"], meta["chunk_size"]
    present = our_parts(out)
    for file in present:
        found = parse_part_name(file.name)
        if found is None:
            raise ResultsError(f"{file} is not named as a run names its chunks (that chunk is named "
                               f"{part_name(*map(int, PART_NAME.fullmatch(file.name).groups()))}): not a chunk "
                               "of this run; move it away")
        combo, chunk = found
        if combo not in combos or chunk >= per_combo:
            raise ResultsError(f"{file} is not a chunk of the run in {out / METADATA_FILE} (it has "
                               f"{len(combos)} combinations of {per_combo} chunks)")
        check_part(file, meta["identity"], combo, chunk, min(size, games - chunk * size), players.get(combo))
    planned = len(combos) * per_combo
    if len(present) < planned:
        message = (f"{out}: {planned - len(present)} of {planned} chunks are missing (an "
                   "interrupted run?); run the same simulate command again to complete it")
        if not allow_partial:
            raise ResultsError(message)
        warnings.warn(message, stacklevel=3)
    return meta, present


def _unreadable(file: Path, err: Exception) -> ResultsError:
    """The error of a part file that cannot be read: one this user may not read is not damaged."""
    if isinstance(err, PermissionError) or not os.access(file, os.R_OK):
        return ResultsError(f"{file} cannot be read: permission denied (its owner or mode, `ls -l`, keeps you "
                            "from reading it)")
    return DamagedPart(f"{file} cannot be read (damaged?): {err}")


def _damaged_part(files: list[Path]) -> ResultsError | None:
    """The error naming the first part file that cannot be read (after polars failed), if any."""
    for f in files:
        try:
            pq.read_table(f)
        except Exception as err:
            return _unreadable(f, err)
    return None


def _read_parts(files: list[Path], path):
    """The rows of the part files; a file that cannot be read is named."""
    import polars as pl

    try:
        df = pl.read_parquet([str(f) for f in files])
    except Exception:  # polars raises its own exception types; find the file at fault
        raise (_damaged_part(files) or ResultsError(f"{path}: the chunk files cannot be read together")) from None
    start = 0
    for f in files:  # part by part: the card sets of a whole card-worth run unpacked took 1.8 GB more
        rows = pq.read_metadata(f).num_rows
        part = df.slice(start, rows)
        problem = value_problem(part) or card_set_problem(part)
        if problem:
            raise _bad_value(f, *problem)
        start += rows
    return df


def _check_values(files: list[Path]) -> None:
    """ResultsError naming the first part whose values cannot be (`value_problem`), read part by part and
    only its VALUE_COLUMNS: a scan reads nothing else up front, and its memory does not grow with the run
    (a win share of 5.0 went into simulate's summary unseen)."""
    import polars as pl

    for f in files:
        try:
            values = pl.read_parquet(f, columns=list(VALUE_COLUMNS))
        except Exception as err:  # polars raises its own exception types
            raise _unreadable(f, err) from None
        problem = value_problem(values)
        if problem:
            raise _bad_value(f, *problem)


def _bad_value(file: Path, row: int, column: str, what: str) -> ResultsError:
    return ResultsError(f"{file}, row {row}, column {column}: {what}; not a chunk as hadara-sim writes it "
                        "(rerun its scenario into a new directory)")


def _results_frame(files: list[Path]):
    """A LazyFrame class over these part files whose `collect` names a damaged file (polars says only
    what failed); every query built on it has the class too (polars keeps a LazyFrame's subclass)."""
    import polars as pl

    errors = pl.exceptions
    query_faults = (errors.ColumnNotFoundError, errors.SchemaError, errors.SchemaFieldNotFoundError,
                    errors.InvalidOperationError, errors.DuplicateError, errors.StructFieldNotFoundError)

    def collect(self, *args, **kwargs):
        try:
            return pl.LazyFrame.collect(self, *args, **kwargs)
        except query_faults:
            raise
        except Exception as err:
            damaged = _damaged_part(files)
            if damaged is None:  # the query's own fault after all
                raise
            raise damaged from err

    return type("ResultsFrame", (pl.LazyFrame,), {"collect": collect, "__doc__": _results_frame.__doc__})


def load_results(path, *, sweep_columns: bool = True, allow_partial: bool = True):
    """A results directory as a polars DataFrame, one row per game and seat, sorted by combination,
    game and seat.

    With `sweep_columns`, each swept key also gets a typed column `sweep_<key>` (dots and brackets
    as underscores), read from the combination's values. An interrupted run loads what it has, with
    a warning (`allow_partial=False` makes that an error). For datasets larger than memory, use
    `scan_results`.
    """
    import polars as pl

    if not isinstance(sweep_columns, bool):
        raise TypeError(f"sweep_columns is True or False, not {sweep_columns!r:.40}")
    meta, files = result_files(path, allow_partial=allow_partial)
    if files:
        df = _read_parts(files, path)
        if not _in_order(df, SORT_KEYS):  # read in the parts' order, they are: sorting anyway took 5.8 GB for 2.5
            df = df.sort(SORT_KEYS)
    else:
        df = pl.from_arrow(SCHEMA.empty_table())
    if sweep_columns:
        df = add_sweep_columns(df, meta.get("combinations", []))
    return df


def _in_order(df, keys: list[str]) -> bool:
    """Whether the rows of `df` are sorted by its whole-number columns `keys`, checked on the keys alone."""
    tied = np.ones(max(df.height - 1, 0), bool)  # each row equal to the one before it on the keys so far
    for key in keys:
        step = np.diff(df[key].to_numpy().astype(np.int64))
        if (tied & (step < 0)).any():
            return False
        tied &= step == 0
    return True


def scan_results(path, *, sweep_columns: bool = True, allow_partial: bool = True):
    """A results directory as a polars LazyFrame (unsorted): select and aggregate before
    `.collect()`, so memory does not grow with the number of games. Each part's player counts, seats,
    win shares and totals are checked first, as `load_results` checks them (ResultsError)."""
    import polars as pl

    if not isinstance(sweep_columns, bool):
        raise TypeError(f"sweep_columns is True or False, not {sweep_columns!r:.40}")
    meta, files = result_files(path, allow_partial=allow_partial)
    _check_values(files)
    if files:
        lf = pl.scan_parquet([str(f) for f in files])
    else:
        lf = pl.from_arrow(SCHEMA.empty_table()).lazy()
    if sweep_columns:
        lf = add_sweep_columns(lf, meta.get("combinations", []))
    return _results_frame(files)._from_pyldf(lf._ldf)


def add_sweep_columns(df, combinations: list[dict]):
    """One typed column per swept key (`SweptKey.column`), looked up by `combo` (a join copied every
    column: a card-worth run's 2.5 GB of rows took 5 GB); the keys are read back from the
    combinations' stored text."""
    import polars as pl

    keys: dict[str, SweptKey] = {}  # by column: two texts of one column ("a.b", "a-b") make it once
    for combo in combinations:
        for text in combo.get("sweep", {}):
            keys.setdefault(SweptKey(text).column, SweptKey(text))
    if not keys:
        return df
    index = [c["index"] for c in combinations]
    columns = []
    for key in keys.values():
        values = [c.get("sweep", {}).get(key.text) for c in combinations]
        kinds = {type(v) for v in values if v is not None}
        if kinds <= {bool}:
            dtype = pl.Boolean
        elif kinds <= {int}:
            dtype = pl.Int64
        elif kinds <= {int, float}:
            dtype, values = pl.Float64, [None if v is None else float(v) for v in values]
        elif kinds <= {str}:
            dtype = pl.String
        else:
            dtype = pl.String  # strings as they are, anything else (tables, lists) as JSON
            values = [v if v is None or isinstance(v, str) else json.dumps(v) for v in values]
        columns.append(pl.col("combo").replace_strict(index, pl.Series(values, dtype=dtype), default=None,
                                                       return_dtype=dtype).alias(key.column))
    return df.with_columns(columns)

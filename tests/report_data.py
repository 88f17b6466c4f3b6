"""Tiny hand-made results datasets for the report tests: every schema column present, the few that
matter set by hand, so that each estimate can be checked against a hand computation."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa

from hadara_sim.results import (
    COLUMNS, SCHEMA, SCHEMA_VERSION, add_sweep_columns, part_name, write_metadata, write_table,
)


def _default(dtype: pa.DataType):
    if pa.types.is_list(dtype):
        return []
    if pa.types.is_binary(dtype):
        return b""
    if pa.types.is_boolean(dtype):
        return False
    if pa.types.is_string(dtype):
        return None
    if pa.types.is_floating(dtype):
        return 0.0
    return 0


def frame(rows: list[dict], combos: list[dict] | None = None) -> pl.DataFrame:
    """A results DataFrame (schema dtypes, sweep columns spread) from rows giving a few columns;
    every other column gets 0 / false / null. `combos` as in metadata.json (index, sweep)."""
    data = {name: [row.get(name, _default(dtype)) for row in rows] for name, dtype, _ in COLUMNS}
    for row in rows:
        if "sweep" not in row:
            row["sweep"] = "{}"
    data["sweep"] = [row.get("sweep", "{}") for row in rows]
    table = pa.Table.from_pydict(data, schema=SCHEMA)
    df = pl.from_arrow(table)
    return add_sweep_columns(df, combos or [])


def sheet(total_parts: dict) -> dict:
    """Score sheet columns with `total` as their sum."""
    lines = ("colonies", "statues", "silver", "gold", "cards", "coins")
    out = {k: total_parts.get(k, 0) for k in lines}
    out["total"] = sum(out.values())
    for k in ("patron_points", "silver_full_points", "set_collector_points", "wildcard_points"):
        if k in total_parts:
            out[k] = total_parts[k]
    return out


# --- the 4 games x 2 seats dataset ------------------------------------------------------------
#
# Policies A and B, 2 players, seats rotated: A sits in seat 0 in games 0 and 2, seat 1 in 1 and 3.
#   game 0: seat 0 (A) wins                 A 1   B 0
#   game 1: seat 0 (B) wins                 A 0   B 1
#   game 2: tie                             A .5  B .5
#   game 3: seat 1 (A) wins                 A 1   B 0
# Leaders: after epoch I seat 0, seat 1, both (tie), seat 0; after epoch II seat 0, seat 0, seat 0, seat 1.
FOUR = [
    # game, seat, policy, win, totals per epoch (I, II, final), sheet
    (0, 0, "A", 1.0, (20, 60, 130), dict(colonies=30, statues=20, silver=10, gold=14, cards=50, coins=6,
                                         patron_points=4, set_collector_points=7)),
    (0, 1, "B", 0.0, (10, 50, 120), dict(colonies=20, statues=30, silver=10, gold=0, cards=58, coins=2)),
    (1, 0, "B", 1.0, (10, 70, 125), dict(colonies=25, statues=25, silver=15, gold=7, cards=50, coins=3)),
    (1, 1, "A", 0.0, (12, 40, 110), dict(colonies=10, statues=20, silver=20, gold=7, cards=50, coins=3,
                                         silver_full_points=5)),
    (2, 0, "A", 0.5, (15, 65, 140), dict(colonies=40, statues=20, silver=10, gold=14, cards=50, coins=6)),
    (2, 1, "B", 0.5, (15, 55, 140), dict(colonies=30, statues=30, silver=10, gold=14, cards=50, coins=6)),
    (3, 0, "B", 0.0, (30, 50, 100), dict(colonies=20, statues=10, silver=10, gold=7, cards=50, coins=3)),
    (3, 1, "A", 1.0, (20, 60, 150), dict(colonies=50, statues=20, silver=10, gold=14, cards=50, coins=6)),
]


def four_games(effects: dict | None = None) -> pl.DataFrame:
    """The 4 x 2 dataset above; `effects` maps (game, seat) -> {"effect_x": epoch}."""
    rows = []
    for game, seat, policy, win, epochs, parts in FOUR:
        s = sheet(parts)
        assert s["total"] == epochs[2], (game, seat, s["total"])
        row = dict(game=game, seat=seat, players=2, combo=0, sweep="{}", policy=policy, policy_label=policy,
                   policy_params="{}", policy_index=0 if policy == "A" else 1,
                   setup_card=1 + seat, setup_side="A", win_share=win,
                   rank=1 if win > 0 else 2, total_epoch1=epochs[0], total_epoch2=epochs[1],
                   total_epoch3=epochs[2], **s)
        row.update((effects or {}).get((game, seat), {}))
        rows.append(row)
    return frame(rows)


# --- a grant sweep: control "none", "sell_bonus", "colony_bounty"; seat 0 granted -------------
#
# seat 0 win share, control vs sell_bonus: [0, 1, 0, .5] vs [1, 1, 0, 1] -> differences 1, 0, 0, .5
# seat 0 total, control vs sell_bonus: [100, 120, 90, 110] vs [110, 125, 95, 110] -> 10, 5, 5, 0
# colony_bounty plays exactly like the control: differences all 0.
CONTROL_WIN = [0.0, 1.0, 0.0, 0.5]
CONTROL_TOTAL = [100, 120, 90, 110]
SELL_WIN = [1.0, 1.0, 0.0, 1.0]
SELL_TOTAL = [110, 125, 95, 110]
GRANT_COMBOS = [{"index": 0, "sweep": {"grants": "none"}},
                {"index": 1, "sweep": {"grants": "sell_bonus"}},
                {"index": 2, "sweep": {"grants": "colony_bounty"}}]


def grant_sweep(sell_win: list[float] = SELL_WIN) -> tuple[pl.DataFrame, list[dict]]:
    """The grant sweep above; `sell_win`: seat 0's win shares under sell_bonus."""
    rows = []
    for combo, (wins, totals, granted) in enumerate([(CONTROL_WIN, CONTROL_TOTAL, None),
                                                      (sell_win, SELL_TOTAL, "I-P-01"),
                                                      (CONTROL_WIN, CONTROL_TOTAL, "II-P-01")]):
        for game in range(4):
            for seat in range(2):
                win = wins[game] if seat == 0 else 1 - wins[game]
                total = totals[game] if seat == 0 else 105
                effect = {}
                if granted and seat == 0:
                    effect = {("effect_sell_bonus" if combo == 1 else "effect_colony_bounty"): combo}
                rows.append(dict(game=game, seat=seat, players=2, advanced=True, combo=combo,
                                 sweep=json.dumps(GRANT_COMBOS[combo]["sweep"]), policy="balanced",
                                 policy_label="balanced", policy_params="{}", setup_card=1 + seat,
                                 setup_side="A", granted=granted if seat == 0 else None,
                                 granted_epoch=(1 if combo == 1 else 2) if granted and seat == 0 else 0,
                                 win_share=win, total=total, cards=total, total_epoch1=total // 4,
                                 total_epoch2=total // 2, total_epoch3=total, **effect))
    return frame(rows, GRANT_COMBOS), GRANT_COMBOS


# --- a synthetic setup grid, and one dataset per opponent field ------------------------------

def setup_grid(rng: np.random.Generator, deals: int, players: int = 2, effect: dict | None = None) -> pl.DataFrame:
    """A synthetic setup grid (5 cards x 2 sides, focus seat rotated): the focus seat wins with a
    probability that depends on the deal only (cards have no effect) plus `effect[(card, side)]`."""
    cells = [(card, side) for card in range(1, 6) for side in "AB"]
    base = rng.uniform(0.2, 0.8, deals)  # some deals favour the focus seat, some do not
    rows = {k: [] for k in ("combo", "game", "seat", "players", "setup_card", "setup_side", "win_share",
                            "total", "sweep_setup_card", "sweep_setup_side", "sweep_setup_focus_seat")}
    for combo, (card, side) in enumerate(cells):
        p = np.clip(base + (effect or {}).get((card, side), 0.0), 0, 1)
        win = (rng.random(deals) < p).astype(float)
        for g in range(deals):
            focus = g % players
            for seat in range(players):
                mine = seat == focus
                for k, v in (("combo", combo), ("game", g), ("seat", seat), ("players", players),
                             ("setup_card", card if mine else 0), ("setup_side", side),
                             ("win_share", win[g] if mine else (1 - win[g]) / (players - 1)), ("total", 100),
                             ("sweep_setup_card", card), ("sweep_setup_side", side),
                             ("sweep_setup_focus_seat", "rotate")):
                    rows[k].append(v)
    return pl.DataFrame(rows, schema_overrides={"players": pl.Int8, "game": pl.Int64})


def fields(frames: dict[str, pl.DataFrame]) -> pl.DataFrame:
    """One dataset of several opponent fields: each frame (the same deals) as the combinations of
    one value of a `policies` sweep (`sweep_policies`, JSON as `load_results` writes it)."""
    parts = [df.with_columns(pl.col("combo").cast(pl.Int32) + 100 * i, pl.lit(json.dumps([name])).alias("sweep_policies"))
             for i, (name, df) in enumerate(frames.items())]
    return pl.concat(parts, how="diagonal_relaxed")


# --- writing a results directory --------------------------------------------------------------

def write_results(df: pl.DataFrame, out: Path, combos: list[dict] | None = None, name: str = "tiny",
                  schema_version: int = SCHEMA_VERSION, table: pa.Table | None = None) -> Path:
    """`df` as a results directory (one chunk file and metadata.json), as `hadara-sim simulate`
    writes them; `table` replaces the chunk's Arrow table (to write a broken one)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    combos = combos or [{"index": 0, "sweep": {}}]
    games = df["game"].n_unique()
    for combo in (c["index"] for c in combos):
        part = table if table is not None and combo == combos[0]["index"] else (
            df.filter(pl.col("combo") == combo).select([name for name, _, _ in COLUMNS]).to_arrow().cast(SCHEMA))
        write_table(part, out / part_name(combo, 0),
                    {"run": "hand-made", "seed": 0, "combo": combo, "chunk": 0, "first_game": 0, "games": games})
    meta = {"schema_version": schema_version, "package_version": "test", "identity": "hand-made",
            "scenario": {"name": name, "path": None, "text": "", "parsed": {"description": "hand-made"}},
            "seed": 0, "games": games, "chunk_size": games,
            "status": "complete", "combinations": combos, "chunks_per_combination": 1}
    write_metadata(out, meta)
    return out

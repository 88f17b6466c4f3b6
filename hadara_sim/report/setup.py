"""Setup-card balance: each card and side against the fair share 1/P, and in a setup grid (an
experiment: the focus seat plays every cell on the same deals) the relative contrasts, paired on the
deal: each cell against the average side, side B against side A, card against card, and the focus
seat's own advantage."""

from __future__ import annotations

import polars as pl

from . import inference as I
from .dataset import SETUP_SWEEPS, ReportError, check_columns
from .estimates import CLUSTER, mean_ci, paired_diff
from .verdict import with_verdicts


def focus_seat_expr(df: pl.DataFrame) -> pl.Expr:
    """The focus seat of each row's game in a setup grid: `setup.focus_seat` of the combination
    ("rotate": game mod players); in datasets from before it was recorded, the seat holding the
    grid's card, else seat 0."""
    if "sweep_setup_focus_seat" in df.columns:
        focus = pl.col("sweep_setup_focus_seat").cast(pl.String)
        rotated = (pl.col("game") % pl.col("players").cast(pl.Int64)).cast(pl.String)
        return pl.when(focus == "rotate").then(rotated).otherwise(focus).cast(pl.Int64)
    if "sweep_setup_card" in df.columns:
        holder = pl.col("setup_card") == pl.col("sweep_setup_card")
        return pl.col("seat").filter(holder).first().over(["combo", "game"]).cast(pl.Int64)
    return pl.lit(0, pl.Int64)


def focus_settings(df: pl.DataFrame) -> list[str]:
    """The `setup.focus_seat` settings a setup grid played: "rotate" and the fixed seats ("0"), sorted;
    none when the dataset does not record the setting."""
    if "sweep_setup_focus_seat" not in df.columns:
        return []
    return sorted(df["sweep_setup_focus_seat"].drop_nulls().cast(pl.String).unique().to_list())


def setup_rows(df: pl.DataFrame) -> tuple[pl.DataFrame, str]:
    """The rows a setup-card study uses, and its design.

    A setup grid (a `setup.card` or `setup.side` sweep) is an experiment: only the focus seat's
    rows, with a `focus_seat` column. Otherwise, the cards are as dealt and the sides as the
    policies chose: every row, an observational comparison."""
    check_columns(df, "setup-cards")
    if "sweep_setup_card" in df.columns or "sweep_setup_side" in df.columns:
        rows = df.with_columns(focus_seat_expr(df).alias("focus_seat"))
        return rows.filter(pl.col("seat") == pl.col("focus_seat")), "experimental"
    return df, "observational"


def _grid_by(rows: pl.DataFrame) -> list[str]:
    """Swept keys besides the grid (and the player count) that split a setup study."""
    return [c for c in rows.columns if c.startswith("sweep_") and c not in SETUP_SWEEPS
            and c != "sweep_players" and rows[c].n_unique() > 1]


def setup_card_balance(df: pl.DataFrame, margin: float = I.MARGIN) -> pl.DataFrame:
    """Win share and mean score per player count, setup card (initiative) and side, with a verdict
    against the fair share 1/P and, in a setup grid, a relative contrast.

    The verdict is absolute: the focus seat's win share with the cell's card and side against 1/P
    (Wilson interval, score test, TOST within ±margin). In a setup grid (experimental) the focus seat
    rotates over the seats with the deal, so seat effects cancel and 1/P is the reference a designer
    means by "fair". The grid also gives the relative contrast, paired: the cell against the mean of
    every cell of the grid on the same deal and seat ("the average side"), with verdicts of its own
    words (`rel_verdict`: above / below / level with the average side). That mean sits below 1/P
    when the other seats choose their sides and the focus seat is forced, so the two can disagree.
    Without a grid (observational) there is no relative contrast.

    Columns: players, [other swept keys], setup_card, setup_side, n, rows, win, win_low, win_high,
    fair (1/P), diff (win - 1/P), diff_low, diff_high, p, equiv_p, sd, needed (deals for ±1 pp), q,
    q_equiv, significant, verdict, more (deals an undecided verdict needs), [rel_diff, rel_low,
    rel_high, rel_p, rel_equiv_p, rel_q, rel_q_equiv, rel_significant, rel_verdict: the grid
    contrast], score, score_low, score_high, design ("experimental" or "observational")."""
    check_columns(df, "setup-cards")
    rows, design = setup_rows(df)
    if rows.height == 0:
        raise ReportError("no rows of the focus seat of a setup grid cell")
    by = ["players", *_grid_by(rows), "setup_card", "setup_side"]
    fair = 1.0 / pl.col("players").cast(pl.Float64)
    win = mean_ci(rows, "win_share", by, fair=fair, rate=True, margin=margin)
    out = with_verdicts(win.rename({"mean": "win", "ci_low": "win_low", "ci_high": "win_high"}), margin=margin,
                        hints=True)
    if design == "experimental":
        deal = [c for c in by if c not in ("setup_card", "setup_side")] + [CLUSTER]
        grid = rows.with_columns(pl.col("win_share").mean().over(deal).alias("_grid"))
        contrast = with_verdicts(paired_diff(grid, "win_share", "_grid", by, prefix="rel_", margin=margin),
                                 p="rel_p", equiv_p="rel_equiv_p", diff="rel_diff", margin=margin, prefix="rel_",
                                 relative=True)
        contrast = contrast.select(*by, "rel_diff", "rel_low", "rel_high", "rel_p", "rel_equiv_p", "rel_q",
                                   "rel_q_equiv", "rel_significant", "rel_verdict")
        out = out.join(contrast, on=by, how="left", maintain_order="left")
    score = mean_ci(rows, "total", by).select(
        *by, pl.col("mean").alias("score"), pl.col("ci_low").alias("score_low"),
        pl.col("ci_high").alias("score_high"))
    return out.join(score, on=by, how="left", maintain_order="left").with_columns(pl.lit(design).alias("design"))


def setup_side_pairs(df: pl.DataFrame) -> pl.DataFrame | None:
    """The focus seat's win share with side B and with side A of each card on each deal (columns
    players, [swept keys], setup_card, game, A, B), or None without a setup grid over sides."""
    rows, design = setup_rows(df)
    if design != "experimental" or "sweep_setup_side" not in rows.columns:
        return None
    keys = ["players", *_grid_by(rows), "setup_card", CLUSTER]
    wide = (rows.group_by([*keys, "setup_side"]).agg(pl.col("win_share").mean())
            .pivot(on="setup_side", index=keys, values="win_share"))
    if not {"A", "B"} <= set(wide.columns):
        return None
    if "combo" in rows.columns:  # the order the fields were swept in (a ladder's order)
        wide = wide.join(rows.group_by(keys).agg(pl.col("combo").min()), on=keys, how="left")
    return wide.drop_nulls(["A", "B"])


def setup_side_contrasts(df: pl.DataFrame, margin: float = I.MARGIN) -> pl.DataFrame | None:
    """Side B against side A of each card for the focus seat, paired on the deal (a setup grid over
    sides; None otherwise): a relative contrast. Columns: players, [swept keys], setup_card, n,
    rows, side_b, side_a (the win shares), diff (B - A), low, high, p, equiv_p, sd, needed, q, q_equiv,
    significant, verdict."""
    wide = setup_side_pairs(df)
    if wide is None:
        return None
    by = [c for c in wide.columns if c not in (CLUSTER, "A", "B", "combo")]
    return with_verdicts(paired_diff(wide, "B", "A", by, margin=margin).rename({"a": "side_b", "b": "side_a"}),
                         margin=margin)


def setup_card_contrasts(df: pl.DataFrame, margin: float = I.MARGIN) -> pl.DataFrame | None:
    """Every setup card against every other for the focus seat, both sides averaged, paired on
    the deal (a setup grid over cards; None otherwise). Columns: players, [swept keys], card,
    other, n, rows, card_win, other_win (the win shares with each), diff (card minus other), low, high,
    p, ..., verdict."""
    rows, design = setup_rows(df)
    if design != "experimental" or "sweep_setup_card" not in rows.columns:
        return None
    keys = ["players", *_grid_by(rows), CLUSTER]
    per_card = rows.group_by([*keys, "setup_card"]).agg(pl.col("win_share").mean())
    pairs = (per_card.join(per_card, on=keys, suffix="_other")
             .filter(pl.col("setup_card") < pl.col("setup_card_other"))
             .rename({"setup_card": "card", "setup_card_other": "other"}))
    if pairs.height == 0:
        return None
    out = paired_diff(pairs, "win_share", "win_share_other", [*keys[:-1], "card", "other"], margin=margin)
    # named as the side table's side_b and side_a: a bare a and b said whose share neither was
    return with_verdicts(out.rename({"a": "card_win", "b": "other_win"}), margin=margin)


def focus_seat_rates(df: pl.DataFrame, margin: float = I.MARGIN) -> pl.DataFrame | None:
    """The focus seat's win share over the whole grid, per player count and focus seat, against
    1/P: the seat's own advantage inside the grid (None without a grid)."""
    rows, design = setup_rows(df)
    if design != "experimental":
        return None
    out = mean_ci(rows, "win_share", ["players", *_grid_by(rows), "focus_seat"],
                  fair=1.0 / pl.col("players").cast(pl.Float64), rate=True, margin=margin)
    return with_verdicts(out, margin=margin)


def setup_field_pairs(df: pl.DataFrame) -> tuple[pl.DataFrame, str, str]:
    """The setup grid's cells as pairs for `field_robustness`: the focus seat's win share and 1/P."""
    rows, _ = setup_rows(df)
    return rows.with_columns((1.0 / pl.col("players").cast(pl.Float64)).alias("_fair")), "win_share", "_fair"

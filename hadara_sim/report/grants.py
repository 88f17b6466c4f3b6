"""What a card is worth from a grant sweep (the experiment: one seat is given the card, paired
with the same seat of the same deal in the control): each granted card against the control, each
effect card against the plain purple cards of its epoch (the placebo), each card against the cards
of its colour and epoch; and, observational, the owners of a purple effect against the other seats
of their game."""

from __future__ import annotations

import polars as pl

from ..constants import COLOURS, EFFECT_IDS, PURPLE
from ..invocation import program
from . import inference as I
from .dataset import ReportError, check_columns, grant_sweep_column, run_components
from .estimates import paired_diff, shares_by
from .verdict import with_verdicts


def grant_control(df: pl.DataFrame, column: str) -> object:
    """The grant-sweep value that grants nothing (the control, "none"), or ReportError."""
    per_value = (df.group_by(column).agg(pl.col("granted").is_not_null().any().alias("grants"))
                 .filter(~pl.col("grants")))
    values = per_value[column].to_list()
    if not values:
        raise ReportError(f"the grant sweep ({column}) has no control: no value of it grants nothing. "
                          f"Add \"none\" to the scenario's grants sweep and rerun `{program()} simulate`")
    if len(values) > 1:
        values.sort(key=lambda v: (v != "none", str(v)))
    return values[0]


def _grant_sweep(df: pl.DataFrame):
    """(grant column, its control value, the other sweep columns, the pairing keys), or None."""
    check_columns(df, "purple")
    column = grant_sweep_column(df)
    if column is None:
        return None
    others = [c for c in df.columns if c.startswith("sweep_") and c != column]
    return column, grant_control(df, column), others, ["game", "seat", "players", "advanced", *others]


def _paired_grants(pairs: pl.DataFrame, by: list[str], margin: float = I.MARGIN) -> pl.DataFrame:
    """Paired differences of win share and total (granted minus its comparison) per `by` group, with
    each group's `epoch` and `control`, corrected over the table (`win_q`, `win_verdict`, ...),
    largest win-share gain first."""
    win = with_verdicts(paired_diff(pairs, "win_share", "win_control", by, prefix="win_", margin=margin),
                        p="win_p", equiv_p="win_equiv_p", diff="win_diff", margin=margin, prefix="win_")
    score = paired_diff(pairs, "total", "total_control", by, prefix="score_", margin=None).drop("n", "rows")
    extra = pairs.group_by(by).agg(pl.col("epoch").min(), pl.col("control").first())
    return (win.join(score, on=by, how="left", maintain_order="left")
            .join(extra, on=by, how="left", maintain_order="left")
            .sort("win_diff", descending=True))


def grant_pairs(df: pl.DataFrame) -> pl.DataFrame | None:
    """Each granted seat's row beside the same seat of the same deal in the control combination (and
    the same values of every other swept key): grant, the pairing keys, win_share, total, epoch,
    win_control, total_control, control, and the granted row's combo (the order swept). None without
    a grant sweep."""
    sweep = _grant_sweep(df)
    if sweep is None:
        return None
    column, control, others, keys = sweep
    treat = (df.filter((pl.col(column) != control) & pl.col("granted").is_not_null())
             .select(*keys, pl.col(column).alias("grant"), "win_share", "total",
                     pl.col("granted_epoch").alias("epoch"), *[c for c in ("combo",) if c in df.columns]))
    ctrl = (df.filter(pl.col(column) == control)
            .select(*keys, pl.col("win_share").alias("win_control"), pl.col("total").alias("total_control"),
                    pl.lit(str(control)).alias("control")))
    pairs = treat.join(ctrl, on=keys, how="inner")
    if pairs.height == 0:
        raise ReportError(f"the grant sweep ({column}) has no granted seat that pairs with a seat of the "
                          f"control '{control}' on the same deal; check the scenario's sweep")
    return pairs


def _sweeps_of(pairs: pl.DataFrame) -> list[str]:
    """The swept-key columns of a table of pairs."""
    return [c for c in pairs.columns if c.startswith("sweep_")]


def grant_effects(df: pl.DataFrame, margin: float = I.MARGIN) -> pl.DataFrame | None:
    """What each granted card is worth, from a grant sweep (None when there is none): a relative
    contrast, the granted seat against the same seat of the same deal in the control combination.

    The paired differences of win share and of total score, `ttest_rel` over deals. Columns: grant
    (the swept value), the other sweep columns, n (deals), rows, win_a (granted), win_b (control),
    win_diff, win_low, win_high, win_p, win_q, win_verdict, ..., score_a, score_b, score_diff,
    score_low, score_high, score_p, epoch (of the grant), control."""
    pairs = grant_pairs(df)
    return None if pairs is None else grant_table(pairs, margin)


def grant_table(pairs: pl.DataFrame, margin: float = I.MARGIN) -> pl.DataFrame:
    """The grant table (columns as `grant_effects`) of pairs from `grant_pairs` or `placebo_pairs`."""
    return _paired_grants(pairs, ["grant", *_sweeps_of(pairs)], margin)


# --- against a placebo: cards of the same kind ---------------------------------------------------

def _grant_kinds(df: pl.DataFrame, column: str, control, components=None) -> tuple[dict, dict, list[str]]:
    """Each granted value of the sweep as an effect (value -> epoch), a placebo (value -> epoch: a
    plain purple card, given by id, at the start of its own epoch), or refused (with the reason).
    `components`: the run's component set (a ComponentSet or its directory; None: the shipped one)."""
    c = run_components(components)
    effects, placebos, refused = {}, {}, []
    per_value = (df.filter((pl.col(column) != control) & pl.col("granted").is_not_null())
                 .group_by(column).agg(pl.col("granted").first(), pl.col("granted_epoch").first()))
    for value, granted, epoch in per_value.sort(column).iter_rows():
        name = str(value)
        card_id = str(granted).split(",")[0]
        card = c.cards[c.card_index[card_id]] if card_id in c.card_index else None
        if "," in str(granted) or card is None:
            refused.append(f"'{name}' is not a placebo: it grants {granted}, not one card of the component set")
        elif card.effect:
            effects[name] = int(epoch)
        elif card.colour != PURPLE:
            refused.append(f"'{name}' is not a placebo: {card.id} is a {COLOURS[card.colour]} card; a placebo "
                           "is a plain purple card (no effect) of the effect's epoch")
        elif int(epoch) != card.epoch:
            refused.append(f"'{name}' is not a placebo: {card.id} is an epoch {card.epoch} card granted at the "
                           f"start of epoch {epoch}; grant it in its own epoch")
        else:
            placebos[name] = card.epoch
    return effects, placebos, refused


def _placebo_pairs(df: pl.DataFrame, components=None):
    """(the granted rows of every value with its kind, the placebo mean per deal and seat, refused
    values, pairing keys), or None without a grant sweep."""
    sweep = _grant_sweep(df)
    if sweep is None:
        return None
    column, control, others, keys = sweep
    effects, placebos, refused = _grant_kinds(df, column, control, components)
    granted = (df.filter(pl.col(column).cast(pl.String).is_in([*effects, *placebos]) & pl.col("granted").is_not_null())
               .select(*keys, pl.col(column).cast(pl.String).alias("grant"), "win_share", "total",
                       pl.col("granted_epoch").cast(pl.Int8).alias("epoch"),
                       *[c for c in ("combo",) if c in df.columns]))  # the order swept (a ladder's)
    plain = granted.filter(pl.col("grant").is_in(list(placebos)))
    mean = (plain.group_by([*keys, "epoch"])
            .agg(pl.col("win_share").mean().alias("win_control"), pl.col("total").mean().alias("total_control"),
                 pl.len().alias("placebos")))
    return granted, plain, mean, effects, refused, keys, others


def placebo_pairs(df: pl.DataFrame, components=None) -> tuple[pl.DataFrame | None, list[str]]:
    """Each effect card's granted row beside the placebo mean of the same deal and seat (columns as
    `grant_pairs`), and the grants refused as placebos (with the reason)."""
    found = _placebo_pairs(df, components)
    if found is None:
        return None, []
    granted, _, mean, effects, refused, keys, others = found
    pairs = (granted.filter(pl.col("grant").is_in(list(effects)))
             .join(mean, on=[*keys, "epoch"], how="inner")
             .with_columns(pl.format("mean of {} plain epoch {} cards", "placebos", "epoch").alias("control")))
    return (pairs if pairs.height else None), refused


def placebo_effects(df: pl.DataFrame, components=None, margin: float = I.MARGIN) -> tuple[pl.DataFrame | None, list[str]]:
    """Each effect card against the plain purple cards of its epoch (the placebo), and the grants
    refused as placebos (with the reason).

    A granted card brings its effect and also one more purple card (sets, the colour discount). The
    placebo is the average, on the same deal and seat, over every plain purple card of the epoch
    granted in the sweep (by card id, in its own epoch); anything else given by id is refused, not
    taken as a placebo. The difference is the effect card's worth against a typical plain purple
    card. Columns as `grant_effects`, with `control` naming how many plain cards the mean takes."""
    pairs, refused = placebo_pairs(df, components)
    return (None if pairs is None else grant_table(pairs, margin)), refused


def placebo_spread(df: pl.DataFrame, components=None, margin: float = I.MARGIN) -> pl.DataFrame | None:
    """Each plain purple card against the mean of the plain cards of its epoch, paired on the deal
    and seat: how much the placebos differ among themselves (None without placebos)."""
    found = _placebo_pairs(df, components)
    if found is None:
        return None
    _, plain, mean, _, _, keys, others = found
    if plain.height == 0 or mean["placebos"].max() < 2:
        return None
    pairs = plain.join(mean, on=[*keys, "epoch"], how="inner").with_columns(pl.lit("plain mean").alias("control"))
    return _paired_grants(pairs, ["grant", *others], margin).sort(["epoch", "win_diff"], descending=[False, True])


def card_grant_pairs(df: pl.DataFrame, components=None) -> tuple[pl.DataFrame | None, list[str]]:
    """Each granted card's row beside the mean, on the same deal and seat, of every card of the
    same colour and epoch granted at the same epoch in the sweep (the card's placebo: an average
    card of its kind); the values refused (several cards, or alone in their group) with the reason.
    Columns as `grant_pairs`, `control` naming the group."""
    sweep = _grant_sweep(df)
    if sweep is None:
        return None, []
    column, control, _, keys = sweep
    c = run_components(components)
    per_value = (df.filter((pl.col(column) != control) & pl.col("granted").is_not_null())
                 .group_by(pl.col(column).cast(pl.String).alias("grant")).agg(pl.col("granted").first()))
    kind, refused = {}, []
    for value, granted in per_value.sort("grant").iter_rows():
        card = c.cards[c.card_index[granted]] if granted in c.card_index else None
        if card is None:
            refused.append(f"'{value}' grants {granted}, not one card of the component set")
        else:
            kind[value] = f"{COLOURS[card.colour]} epoch {card.epoch}"
    rows = (df.filter(pl.col(column).cast(pl.String).is_in(list(kind)) & pl.col("granted").is_not_null())
            .select(*keys, pl.col(column).cast(pl.String).alias("grant"), "win_share", "total",
                    pl.col("granted_epoch").cast(pl.Int8).alias("epoch"))
            .with_columns(pl.col("grant").replace_strict(kind).alias("kind")))
    group = [*keys, "kind", "epoch"]
    mean = rows.group_by(group).agg(pl.col("win_share").mean().alias("win_control"),
                                    pl.col("total").mean().alias("total_control"), pl.len().alias("cards"))
    pairs = (rows.join(mean, on=group, how="inner").filter(pl.col("cards") >= 2)
             .with_columns(pl.format("mean of {} {} cards", "cards", "kind").alias("control")))
    alone = sorted(set(kind) - set(pairs["grant"].unique().to_list()))
    refused += [f"'{v}' is the only {kind[v]} card granted at its epoch: nothing to compare it with" for v in alone]
    return (pairs if pairs.height else None), refused


# --- observational: owners -------------------------------------------------------------------

def owner_effects(df: pl.DataFrame) -> pl.DataFrame | None:
    """Observational: seats that own a purple effect at the end (`effect_<id>` > 0) against the
    other seats of the same game, in games without grants (None when no seat owns any effect).

    For each game with an owner, the owner's win share and total against the mean of the
    non-owners of that game; games of one deal are averaged, then `ttest_rel` over deals. This
    compares players who chose (and kept) the card with those who did not: it is not the effect of
    the card. Columns: effect, [players], n (deals), rows (games), owned (share of games in which
    some seat owns it, of the `games` of `deals` without grants at that player count) with its 95 %
    Wilson interval clustered on the deal (owned_low, owned_high: `estimates.shares_by`, the games of
    one deal in several combinations count once), games, deals, win_a (owner), win_b (others),
    win_diff/low/high/p, score_a/b/diff/low/high/p."""
    check_columns(df, "purple")
    share, points = pl.col("win_share").cast(pl.Float64), pl.col("total").cast(pl.Float64)
    aggs = [pl.col("players").first(), pl.len().alias("_seats"), share.sum().alias("_win"),
            points.sum().alias("_total")]
    for effect in EFFECT_IDS:
        own = pl.col(f"effect_{effect}") > 0
        aggs += [own.sum().alias(f"{effect}|owners"), (share * own).sum().alias(f"{effect}|win"),
                 (points * own).sum().alias(f"{effect}|total")]
    # one lazy pass for every effect, of sums: the seats kept copied, and each seat's mean filtered per
    # effect, took 14 s and 4.4 GB on a card-worth run
    per_game = (df.lazy().filter(~pl.col("granted").is_not_null().any().over(["combo", "game"]))
                .group_by(["combo", "game"]).agg(aggs).collect())
    if per_game.height == 0:
        return None
    by_players = per_game["players"].n_unique() > 1
    by = ["players"] if by_players else []
    frames = []
    for effect in EFFECT_IDS:
        owners = pl.col(f"{effect}|owners")
        others = pl.col("_seats") - owners
        g = (per_game.filter((owners > 0) & (others > 0))
             .select("combo", "game", "players", (pl.col(f"{effect}|win") / owners).alias("win_own"),
                     ((pl.col("_win") - pl.col(f"{effect}|win")) / others).alias("win_other"),
                     (pl.col(f"{effect}|total") / owners).alias("total_own"),
                     ((pl.col("_total") - pl.col(f"{effect}|total")) / others).alias("total_other")))
        if g.height == 0:
            continue
        win = paired_diff(g, "win_own", "win_other", by, prefix="win_")
        score = paired_diff(g, "total_own", "total_other", by, prefix="score_", margin=None).drop("n", "rows")
        part = win.join(score, on=by, how="left") if by else pl.concat([win, score], how="horizontal")
        frames.append(part.with_columns(pl.lit(effect).alias("effect")))
    if not frames:
        return None
    out = pl.concat(frames, how="diagonal_relaxed").join(_owned(per_game, by), on=["effect", *by], how="left")
    first = ["effect", *(["players"] if by_players else [])]
    return out.select(*first, *[c for c in out.columns if c not in first]).sort("win_diff", descending=True)


def _owned(per_game: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """Per effect [and player count]: owned, the share of the games of `per_game` (combo, game,
    players and `<effect>|owners` of every effect) in which some seat owns it, with its interval
    (owned_low, owned_high), and its n: games, deals."""
    frames = []
    for (players,), games in per_game.select("combo", "game", "players").group_by("players"):
        here = per_game.filter(pl.col("players") == players)
        # effect by effect: the games owned of every effect at once took 1.2 GB on a card-worth run
        shares = pl.concat([shares_by(here.filter(pl.col(f"{effect}|owners") > 0)
                                      .select("combo", "game", pl.lit(effect).alias("effect")), games, "effect", "owned")
                            for effect in EFFECT_IDS])
        frames.append(shares.with_columns(pl.lit(games.height, pl.Int64).alias("games"),
                                          pl.lit(games["game"].n_unique(), pl.Int64).alias("deals"),
                                          pl.lit(players, per_game.schema["players"]).alias("players")))
    return pl.concat(frames).select("effect", *by, "owned", "owned_low", "owned_high", "games", "deals")

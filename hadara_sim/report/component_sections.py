"""The sections on the game's components: setup cards (balance against 1/P and the setup grid's
relative contrasts), purple effects (the grant experiment, its placebo, the owners) and the cards,
colony tiles and statues (observational, and a card grant experiment), each as tables and charts."""

from __future__ import annotations

from typing import Sequence

import polars as pl

from .. import provenance
from . import charts
from . import inference as I
from . import verdict as V
from .dataset import SETUP_SWEEPS, ReportError, full_info, run_components
from .fields import field_columns, field_count, field_label_expr, field_robustness
from .grants import card_grant_pairs, grant_pairs, grant_table, owner_effects, placebo_pairs, placebo_spread
from .sections import (NA, Section, by_text, column_name, group_label, ladder_table, num, num_ci, paired_table, pct,
                       pct_ci, pooled_title, pp, pp_ci, pval, robustness_table, scoped, value_label)
from .setup import (focus_seat_rates, focus_settings, setup_card_balance, setup_card_contrasts, setup_field_pairs,
                    setup_side_contrasts, setup_side_pairs)
from .table import Table

GRANT_UNITS = {"win_low": "pp", "win_high": "pp"}  # paired_diff's CI of win_diff
# The card table's shares of games and its policy-adjusted difference: fractions beside _pct and _pp
# columns in csv and json (adj_high 0.127 next to win_high_pp 12.7) until named with their units.
CARD_UNITS = {**GRANT_UNITS, **dict.fromkeys(("adj_diff", "adj_low", "adj_high"), "pp"),
              **{f"{share}{end}": "%" for share in ("offered", "bought", "sold", "fed_away", "take_rate", "phase_a")
                 for end in ("", "_low", "_high")}}
# The owners table's share of games owned: its CI beside owned_pct.
OWNER_UNITS = {**GRANT_UNITS, "owned_low": "%", "owned_high": "%"}
# The colony and statue tables' shares (of games, of takers, of carvings) and their CIs, the same way.
TAKEN_UNITS = {**GRANT_UNITS, **{f"{share}{end}": "%" for share in ("taken", "integrated", "points_side")
                                 for end in ("", "_low", "_high")}}
# A card's costs in the restricted-play tables: a bare fair_cost 4.3 or gap -1.2 did not say it was coins.
COST_UNITS = dict.fromkeys(("printed_cost", "cost_change", "cost", "fair_cost", "fair_cost_low", "fair_cost_high",
                            "gap"), "coins")


def focus_words(settings: Sequence[str]) -> tuple[str, str]:
    """How a setup grid's focus seat was chosen (its `setup.focus_seat` settings) and what that means
    for seat advantages, in words: ("rotated over the seats with the deal", "so seat advantages cancel")."""
    seats = [s for s in settings if s != "rotate"]
    if not settings:
        return "as the run chose it (this dataset does not record setup.focus_seat)", ""
    if not seats:
        return "rotated over the seats with the deal", "so seat advantages cancel"
    fixed = f"seat {seats[0]}" if len(seats) == 1 else f"one of seats {', '.join(seats)} per combination"
    edge = "that seat's result with the card and side, its seat's edge included"
    if "rotate" in settings:
        return (f"rotated over the seats with the deal in some combinations and {fixed} in the others",
                f"so seat advantages cancel only in the rotated ones: elsewhere a verdict is {edge}")
    return (f"always {fixed} (setup.focus_seat)",
            f"so seat advantages do not cancel: each verdict is {edge} (rotate the focus seat to measure the card "
            "alone)")


def setup_cards(df: pl.DataFrame, info: dict, margin: float = I.MARGIN) -> Section:
    """Setup-card balance: each card and side against 1/P, and the setup grid's relative contrasts."""
    info = full_info(df, info)
    bal = setup_card_balance(df, margin)
    design = bal["design"][0]
    experimental = design == "experimental"
    chosen = focus_words(focus_settings(df))
    others = [c for c in bal.columns if c.startswith("sweep_")]
    fields = field_columns(df)

    def label(r: dict, columns: Sequence[str] = others) -> str:
        return f"{r['players']}P {r['setup_card']}{r['setup_side']}" + (
            f" ({group_label(columns)(r)})" if columns else "")

    rows = [[label(r), f"{r['n']:,}", pct(r["win"]), pct_ci(r["win_low"], r["win_high"]), pct(r["fair"]),
             pp(r["diff"]), pp_ci(r["diff_low"], r["diff_high"]), pval(r["q"]), V.render(r, games=info.get("deals"), margin=margin),
             *([pp(r["rel_diff"]), pp_ci(r["rel_low"], r["rel_high"]), r["rel_verdict"] or NA] if experimental else []),
             num(r["score"])] for r in bal.to_dicts()]
    if experimental:
        intro = ("A setup grid: the focus seat played every setup card on every side, on the same deals, with "
                 f"the focus seat {', '.join(filter(None, chosen))}. The verdict is "
                 "absolute: each card and side against the fair share 1/P. Beside it, a relative contrast: the "
                 "cell against the average side (the mean of all cells on the same deal and seat), paired; that "
                 "average sits below 1/P when the other seats choose their sides and the focus seat is forced, so "
                 "'above the average side' does not mean 'too strong'. Side B is compared with side A, and card "
                 "with card, the same way.")
        relative = ["vs average side (relative)", "95% CI", "relative verdict"]
    else:
        intro = ("Cards as dealt and sides as the policies chose them: an observational comparison (a side "
                 "chosen by a policy is chosen because it looked better for that deal), pooled over seats. For an "
                 "experiment, run scenarios/setup-cards.toml.")
        relative = []
    tables = [Table(f"Setup cards: win share per player count, card and side, against the fair share 1/P"
                    f"{pooled_title(df, ['players', *others, *SETUP_SWEEPS])}",
                    ["players, card, side", "n (deals)", "win share", "95% CI", "1/P", "vs 1/P", "95% CI", "q",
                     "verdict vs 1/P", *relative, "mean score"], rows,
                    caption="score test of the win share against 1/P; win share: 95% Wilson CI; "
                    + V.caption(bal.height, margin) + V.precision_caption(bal, games=info.get("deals"))
                    + ("; relative: paired t-test over deals (95% CI) of the cell minus the average side of the same deal "
                       "and seat, its own correction over the table" if experimental else ""),
                    marked=bal["significant"].to_list(), data=bal)]
    rest = [c for c in others if c not in fields]
    pairs, a, b = setup_field_pairs(df)
    tables.append(robustness_table("Setup cards, win share minus 1/P", "players, card, side", field_robustness(
        pairs, a, b, ["players", *rest, "setup_card", "setup_side"], fields, margin), lambda r: label(r, rest)))
    ladder = field_count(df, fields) > 2  # three fields or more: read them as a ladder too
    if ladder:
        tables.append(ladder_table("Setup cards, win share minus 1/P", "players, card, side", field_robustness(
            pairs, a, b, ["players", *rest, "setup_card", "setup_side"], fields, margin, steps=True),
            lambda r: label(r, rest)))
    sides = setup_side_contrasts(df, margin)
    figures = [("setup-cards", charts.setup_chart(bal, info, chosen[0]))]
    if sides is not None:
        lab = group_label(["players", *[c for c in sides.columns if c.startswith("sweep_")], "setup_card"])
        tables.append(paired_table("Setup cards: side B minus side A of each card (relative; paired on the deal "
                                    "and seat)", "card", "side B", "side A", sides, lab, margin, ("side_b", "side_a"),
                                    games=info.get("deals")))
        cell = ["players", *[c for c in sides.columns if c.startswith("sweep_") and c not in fields], "setup_card"]
        side_pairs = setup_side_pairs(df)
        tables.append(robustness_table("Side B minus side A", "card", field_robustness(
            side_pairs, "B", "A", cell, fields, margin), group_label(cell)))
        steps = field_robustness(side_pairs, "B", "A", cell, fields, margin, steps=True) if ladder else None
        if steps is not None:
            tables.append(ladder_table("Side B minus side A", "card", steps, group_label(cell)))
            figures.append(("setup-sides-ladder", charts.ladder_chart(
                sides.with_columns(field_label_expr(fields).alias("field")), steps, cell, info)))
    cards = setup_card_contrasts(df, margin)
    if cards is not None:
        extra = [c for c in cards.columns if c.startswith("sweep_")]
        base = group_label(["players", *extra])
        lab = lambda r: f"{base(r)}: card {r['card']} vs card {r['other']}"  # noqa: E731
        tables.append(paired_table("Setup cards: card against card, both sides averaged (relative; paired on the "
                                    "deal and seat)", "cards", "card", "other", cards, lab, margin,
                                    ("card_win", "other_win"), games=info.get("deals")))
    focus = focus_seat_rates(df, margin)
    if focus is not None:
        lab = group_label(["players", *[c for c in focus.columns if c.startswith("sweep_")], "focus_seat"])
        tables.append(Table("Setup grid: the focus seat's win share over all cells, per focus seat (the seat effect)",
                            ["focus seat", "n (deals)", "win share", "95% CI", "1/P", "vs 1/P", "q", "verdict"],
                            [[lab(r), f"{r['n']:,}", pct(r["mean"]), pct_ci(r["ci_low"], r["ci_high"]), pct(r["fair"]),
                              pp(r["diff"]), pval(r["q"]), V.render(r, margin=margin)] for r in focus.to_dicts()],
                            caption="95% Wilson CI, score test against 1/P; " + V.caption(focus.height, margin),
                            marked=focus["significant"].to_list(), data=focus))
    return scoped(Section("setup-cards", "Setup cards", intro, [t for t in tables if t is not None], figures), info)


# --- purple effects ---------------------------------------------------------------------------

def _grant_rows(tab: pl.DataFrame, label, control: bool = False) -> list[list[str]]:
    """The cells of a grant table (`control`: with the control's name after the label)."""
    return [[label(r), *([r["control"]] if control else []), f"{r['n']:,}", pct(r["win_a"]), pct(r["win_b"]),
             pp(r["win_diff"]), pp_ci(r["win_low"], r["win_high"]), pval(r["win_q"]), V.render(r, "win_"),
             num(r["score_diff"], 2, True), num_ci(r["score_low"], r["score_high"], 2, True)]
            for r in tab.to_dicts()]


def _grant_robustness(what: str, pairs: pl.DataFrame | None, fields: list[str], margin: float) -> list[Table]:
    """The robustness tables of a grant contrast under several opponent fields (`_robustness`)."""
    if pairs is None:
        return []
    cell = ["grant", *[c for c in pairs.columns if c.startswith("sweep_") and c not in fields]]
    return _robustness(what, "granted", pairs, "win_share", "win_control", cell, fields, margin)


def _robustness(what: str, first: str, pairs: pl.DataFrame, a: str, b: str, cell: list[str], fields: list[str],
                margin: float) -> list[Table]:
    """The robustness table of a contrast a - b per `cell` under several opponent fields (none with one
    field), and with three fields or more its ladder table (fields in the order swept, weakest first)."""
    found = field_robustness(pairs, a, b, cell, fields, margin)
    if found is None:
        return []
    tables = [robustness_table(what, first, found, group_label(cell))]
    if field_count(pairs, fields) > 2:
        tables.append(ladder_table(what, first, field_robustness(pairs, a, b, cell, fields, margin, steps=True),
                                   group_label(cell)))
    return [t for t in tables if t is not None]


GRANT_COLUMNS = ["n (deals)", "win share granted", "control", "difference", "95% CI", "q", "verdict",
                 "score difference (points)", "95% CI"]


def _add_placebo(section: Section, df: pl.DataFrame, info: dict, fields: list[str], margin: float) -> None:
    """The purple section's placebo part: each effect card against the plain purple cards of its epoch
    and the plain cards among themselves, or a note saying why not (no placebos, or the run's
    component set, which tells plain cards from effect cards, can no longer be read)."""
    components = info.get("components_path")
    try:
        pairs, refused = placebo_pairs(df, components)
    except ReportError as err:
        section.notes.append(f"No placebo comparison: {err}.")
        return
    section.notes += [f"Refused as a placebo: {r}." for r in refused]
    if pairs is None:
        section.notes.append("The grant experiment measures the card, not only its effect: a granted card is "
                             "also one more purple card. Add the plain purple cards of each epoch to the grants "
                             "sweep by card id (placebos, as in scenarios/purple-effects.toml) to compare "
                             "each effect card with a plain purple card.")
        return
    placebo = grant_table(pairs, margin)
    section.tables.append(Table(
        "Effect card vs the mean of every plain purple card of its epoch (the placebo), same deal and seat",
        ["effect", "placebo", *GRANT_COLUMNS], _grant_rows(placebo, group_label(["grant"]), control=True),
        caption="both are one more purple card (sets, discounts); the placebo is the average over the plain "
                "purple cards of the epoch granted the same way, so this is the effect card's worth against "
                "a typical plain purple card; paired t-test over deals, 95% CI; " + V.caption(placebo.height, margin)
                + V.precision_caption(placebo, "win_needed", info.get("deals")),
        marked=placebo["win_significant"].to_list(), data=placebo, units=GRANT_UNITS))
    section.tables += _grant_robustness("Effect card vs the placebo", pairs, fields, margin)
    section.figures.append(("purple-beyond-placebo", charts.forest_chart(
        placebo, group_label(["grant"]), info, observational=False, placebo=True)))
    spread = placebo_spread(df, components, margin)
    if spread is not None:
        section.tables.append(Table(
            "The placebos among themselves: each plain purple card vs the mean of the plain cards of its epoch",
            ["plain card", *GRANT_COLUMNS], _grant_rows(spread, group_label(["grant"])),
            caption="the spread of the placebo: how much a plain card's own tracks and points matter; "
                    "paired t-test over deals, 95% CI; " + V.caption(spread.height, margin),
            marked=spread["win_significant"].to_list(), data=spread, units=GRANT_UNITS))


def purple(df: pl.DataFrame, info: dict, margin: float = I.MARGIN) -> Section:
    """Purple effects: the grant experiment, its placebo and the owners (observational)."""
    info = full_info(df, info)
    section = Section("purple", "Purple effects",
                      "What each purple effect is worth. The grant experiment gives one seat (rotating with the "
                      "deal) the card for free and compares it with the same seat on the same deal in the control "
                      "combination: a causal, paired estimate. The observational part compares seats that ended up "
                      "owning an effect with the other seats of their game: owners chose (and kept) the card, so the "
                      "difference mixes the card's value with the situations in which it is taken.")
    fields = field_columns(df)
    try:
        granted = grant_pairs(df)
        grants = None if granted is None else grant_table(granted, margin)
    except ReportError as err:
        if not any(c.startswith("sweep_grants") for c in df.columns):
            raise
        section.notes.append(f"Grant experiment skipped: {err}")
        grants = False
    if grants is False:
        pass
    elif grants is None:
        section.notes.append("No grant experiment: the dataset has no sweep over `grants` (run "
                             "scenarios/purple-effects.toml for one).")
    else:
        others = [c for c in grants.columns if c.startswith("sweep_")]
        label = group_label(["grant", *others])
        split = others[0] if len(others) == 1 and grants[others[0]].n_unique() > 1 else None
        section.tables.append(Table(
            f"Experiment: granted seat vs the same seat under grants = '{grants['control'][0]}' (paired on deal)",
            ["granted" + (", " + ", ".join(column_name(c) for c in others) if others else ""), *GRANT_COLUMNS],
            _grant_rows(grants, label),
            caption="paired t-test (scipy ttest_rel) over deals, 95% CI: same deal, same seat, same policies; "
                    + V.caption(grants.height, margin)
                    + V.precision_caption(grants, "win_needed", info.get("deals")),
            marked=grants["win_significant"].to_list(), data=grants, units=GRANT_UNITS))
        section.tables += _grant_robustness("Granted card vs no grant", granted, fields, margin)
        section.figures.append(("purple-grants", charts.forest_chart(
            grants, group_label(["grant"]) if split else label, info, observational=False, split=split,
            split_label=lambda v, c=split: value_label(c, v) if c == "players" else f"{column_name(c)} = {v}")))
    if isinstance(grants, pl.DataFrame):
        _add_placebo(section, df, info, fields, margin)
    owners = owner_effects(df)
    if owners is None:
        section.notes.append("No observational comparison: no seat owns a purple effect at the end of a game "
                             "without grants (a grant sweep's control combination counts).")
    else:
        by = ["effect", *(["players"] if "players" in owners.columns else [])]
        label = group_label(by)
        rows = [[label(r), f"{r['n']:,}", _share_ci(r, "owned"), pct(r["win_a"]), pct(r["win_b"]), pp(r["win_diff"]),
                 pp_ci(r["win_low"], r["win_high"]), num(r["score_diff"], 2, True),
                 num_ci(r["score_low"], r["score_high"], 2, True)] for r in owners.to_dicts()]
        section.tables.append(Table(
            "Observational (not causal): owners vs the other seats of the same game",
            [by_text(by), "n (deals)", "games owned", "owner win share", "others", "difference", "95% CI",
             "score difference (points)", "95% CI"], rows,
            caption="OBSERVATIONAL: owners chose and kept the card; only games without grants; games owned: "
                    f"share of the {_games_of(owners)} in which some seat owns it, with its 95% Wilson CI "
                    "clustered on the deal (columns owned_low_pct and owned_high_pct of --format csv/json); "
                    "paired t-test over deals (95% CI) of owner vs mean of the other seats; no row is marked",
            data=owners, units=OWNER_UNITS))
        split = "players" if "players" in owners.columns else None
        section.figures.append(("purple-owners", charts.forest_chart(
            owners, group_label(["effect"]), info, observational=True, split=split,
            split_label=lambda v: value_label("players", v))))
    return scoped(section, info)


def _games_of(owners: pl.DataFrame) -> str:
    """The n of the owners' shares of games, in words: '2,000 games (500 deals)', or per player count
    '2,000 games (500 deals) at 2 players, 1,200 games (300 deals) at 3 players'."""
    counts = owners.select(*(["players"] if "players" in owners.columns else []), "games", "deals").unique()
    text = [f"{r['games']:,} games ({r['deals']:,} deals)" + (f" at {r['players']} players" if "players" in r else "")
            for r in counts.sort(counts.columns).to_dicts()]
    return ", ".join(text)


# --- cards, colony tiles and statues ---------------------------------------------------------

def _card_rows(tab: pl.DataFrame) -> list[list[str]]:
    """The cells of the card table."""
    return [[r["card_id"], r["colour"], str(r["cost"]), str(r["points"]), str(r["track_sum"]), pct(r["offered"]),
             pct(r["bought"]), pct(r["sold"]), _share_ci(r, "take_rate"), num(r["bought_epoch"], 2), pct(r["phase_a"]),
             f"{r['compared'] or 0:,} of {r['buying'] or 0:,}", f"{r['n']:,}" if r["n"] is not None else NA,
             pp(r["win_diff"]), pp(r["adj_diff"]), pp_ci(r["adj_low"], r["adj_high"]), pval(r["adj_q"])]
            for r in tab.to_dicts()]


def _share_ci(row: dict, share: str) -> str:
    """A share with its 95% CI in one cell: '92.6% [91.0, 94.0]'."""
    return f"{pct(row[share])} {pct_ci(row[f'{share}_low'], row[f'{share}_high'])}"


def _widest(tab: pl.DataFrame, shares: Sequence[str]) -> str:
    """The widest half-width of the 95% CIs of `shares` over the rows of `tab`, in percentage points."""
    half = max((tab[f"{s}_high"] - tab[f"{s}_low"]).max() or 0.0 for s in shares) / 2
    return f"±{100 * half:.1f} pp"


CARD_COLUMNS = ["card", "colour", "cost", "points", "tracks", "offered", "bought", "sold", "bought when offered",
                "epoch bought", "in phase A", "games compared", "n (deals)", "buyers - passers",
                "adjusted for policy", "95% CI", "q"]


def cards(df: pl.DataFrame, info: dict, top: int = 10, margin: float = I.MARGIN) -> Section:
    """Every civilization card, colony tile and statue: how often it is offered and taken and how its
    takers fared (observational); granted cards against their colour and epoch (experiment)."""
    from . import cards as K

    info = full_info(df, info)
    if isinstance(top, bool) or not isinstance(top, int) or top < 1:
        raise ValueError(f"top is how many cards to show at each end, a whole number of at least 1, not {top!r}")
    components = run_components(info.get("components_path"))
    section = Section("cards", "Cards, colonies and statues",
                      "How often each civilization card is offered, bought and sold, and how its buyers fared "
                      "against the seats of the same game that could have bought it and did not. OBSERVATIONAL: "
                      "buyers chose the card, so a difference mixes the card's value with the games in which it "
                      "is bought; a grant sweep over card ids (scenarios/card-grants.toml) gives the causal answer.")
    table = K.card_table(df, components, margin)
    if table.height == 0:
        raise ReportError("no seat of the dataset's games could buy any card (the card columns are empty): "
                          "nothing to report on cards")
    ranked = table.filter(pl.col("adj_diff").is_not_nan())
    shown = ranked.head(top) if ranked.height <= 2 * top else pl.concat([ranked.head(top), ranked.tail(top)])
    section.tables.append(Table(
        f"Observational: the {min(top, ranked.height)} cards whose buyers did best and the {min(top, ranked.height)} "
        f"that did worst (of {table.height} cards offered; all of them in --format csv/json)", CARD_COLUMNS,
        _card_rows(shown),
        caption=f"offered / bought / sold: share of the {table['games'][0]:,} games in which some seat could "
                "have bought / bought / sold the card; bought when offered: of the games in which it was offered, "
                "the share in which some seat bought it, with its 95% CI; in phase A: share of its purchases. Each "
                "share has a 95% Wilson CI clustered on the deal (columns _low_pct and _high_pct of --format "
                "csv/json): those of offered, bought, sold and in phase A are within "
                f"{_widest(shown, ('offered', 'bought', 'sold', 'phase_a'))} here. Buyers - passers: win share of the buyer minus the mean of the seats of the same game "
                "that could have bought it and did not, paired t-test over deals (95% CI). Selection: only games with a "
                "buyer and a passer count (games compared, of the games in which it was bought). Adjusted for "
                "policy: each seat's win share less its policy's mean at its player count, then buyers - passers "
                "pooled over policies (the policy mix removed). What remains: buyers chose the card in the games "
                "where they wanted it, so this is not its worth (seek - avoid is); q: Benjamini-Hochberg over the "
                f"{ranked.height} cards, adjusted; * = q < 0.05 (not a verdict: the comparison is observational)",
        marked=shown["adj_significant"].to_list(), data=table, units=CARD_UNITS))
    section.figures.append(("card-values", charts.card_value_chart(table, info)))
    colonies = K.colony_table(df, components)
    section.tables.append(None if colonies.height == 0 else Table(
        "Observational: colony tiles, takers against the other seats of the game",
        ["colony", "level", "plunder", "integrate", "points front / back", "taken", "integrated", "n (deals)",
         "takers - others", "95% CI", "q"],
        [[r["colony_id"], str(r["level"]), str(r["plunder"]), str(r["integrate"]),
          f"{r['front_points']} / {r['back_points']}", _share_ci(r, "taken"), _share_ci(r, "integrated"),
          f"{r['n'] or 0:,}",
          pp(r["win_diff"]), pp_ci(r["win_low"], r["win_high"]), pval(r["win_q"])] for r in colonies.to_dicts()],
        caption="taken: share of the games in which some seat took the tile, 95% Wilson CI clustered on the deal "
                "(as integrated's); the comparison counts only those games "
                "(where a tile was not taken the results do not say whether it was dealt); integrated: share of its takers who integrated it; "
                "paired t-test over deals, 95% CI; q: Benjamini-Hochberg over the tiles",
        marked=colonies["win_significant"].to_list(), data=colonies, units=TAKEN_UNITS))
    section.tables = [table for table in section.tables if table is not None]
    statues = K.statue_table(df, components)
    section.tables.append(Table(
        "Observational: statues, carvers against the other seats of the game",
        ["statue", "requirement", "points", "bonus", "carved", "points side up", "n (deals)", "carvers - others",
         "95% CI", "q"],
        [[str(r["statue"]), str(r["requirement"]), str(r["points"]), str(r["bonus"]), _share_ci(r, "taken"),
          _share_ci(r, "points_side"), f"{r['n'] or 0:,}", pp(r["win_diff"]), pp_ci(r["win_low"], r["win_high"]),
          pval(r["win_q"])] for r in statues.to_dicts()],
        caption="carved: share of the games in which some seat carved it; points side up: share of its carvings; "
                "95% Wilson CIs clustered on the deal; a comparison needs a game in which one "
                "seat carved it and another did not (– where none did); paired t-test over deals, 95% CI; "
                "q: Benjamini-Hochberg over the statues",
        marked=statues["win_significant"].fill_null(False).to_list(), data=statues, units=TAKEN_UNITS))
    _worth(section, df, components, info, top, margin)
    pairs, refused = card_grant_pairs(df, components)
    section.notes += [f"Not compared: {r}." for r in refused]
    if pairs is not None:
        grants = grant_table(pairs, margin)
        section.tables.append(Table(
            "Experiment: each granted card vs the mean of the cards of its colour and epoch granted the same way "
            "(same deal and seat)", ["granted", "placebo", *GRANT_COLUMNS],
            _grant_rows(grants, group_label(["grant", *[c for c in grants.columns if c.startswith("sweep_")]]),
                        control=True),
            caption="a causal, relative contrast: the card against an average card of its kind, given the same way "
                    "and for free: it measures the card's content, not its worth at its price (seek - avoid does); "
                    "paired t-test over deals, 95% CI; " + V.caption(grants.height, margin)
                    + V.precision_caption(grants, "win_needed", info.get("deals")),
            marked=grants["win_significant"].to_list(), data=grants, units=GRANT_UNITS))
    else:
        section.notes.append("No card grant experiment: the dataset has no sweep over `grants` by card id "
                             "(scenarios/card-grants.toml has one).")
    return scoped(section, info)


def _worth(section: Section, df: pl.DataFrame, components, info: dict, top: int, margin: float) -> None:
    """The tables of restricted play, when the dataset has it: seek - avoid per card at each cost, and
    the fair cost against the printed one with its chart."""
    from . import worth as W

    pairs = W.restricted_pairs(df)
    if pairs is None:
        section.notes.append("No restricted play: the dataset has no seat that sought one card and none that "
                             "avoided it on the same deals (scenarios/card-worth.toml has them): a card's worth at "
                             "its price is not measured.")
        return
    tab = W.seek_avoid(pairs, components, margin)
    field = ["field"] if "field" in tab.columns else []  # a worth per opponent field, never pooled over them
    shown = tab.sort(["players", *field, "cost_change", "win_diff"],
                     descending=[False, *[False] * len(field), False, True])
    section.tables.append(Table(
        f"Experiment: what a card is worth at its price, seek - avoid ({tab.height} cell{'s' * (tab.height != 1)} "
        f"of card, player count{', field' if field else ''} and cost)",
        ["card", "players", *field, "printed cost", "cost played", "n (deals)",
         "win share seeking", "avoiding", "seek - avoid", "95% CI", "q", "verdict"],
        [[r["card_id"], str(r["players"]), *[r[c] for c in field], str(r["printed_cost"]), str(r["cost"]),
          f"{r['n']:,}", pct(r["win_a"]), pct(r["win_b"]), pp(r["win_diff"]), pp_ci(r["win_low"], r["win_high"]),
          pval(r["win_q"]), V.render(r, "win_", margin=margin)] for r in shown.to_dicts()],
        caption="one seat (rotating with the deal) buys the card whenever it is offered and affordable (seek), "
                "against the same seat of the same deal never buying it (avoid), every other seat the same; the "
                "cost played is the card's cost for every seat; a relative contrast: ▲ = buying it when one can "
                "beats never buying it (worth more than its price), ▼ = worth less, fair = level; paired t-test over "
                "deals, 95% CI; " + V.caption(tab.height, margin),
        marked=shown["win_significant"].to_list(), data=tab, units={**GRANT_UNITS, **COST_UNITS}))
    opponents = field_columns(pairs)  # does each card's worth depend on the bots that played it?
    kept_apart = [c for c in pairs.columns if c.startswith("sweep_") and c not in opponents and c != "sweep_players"]
    section.tables += _robustness("A card's worth at its price, seek - avoid", "card, players, cost change", pairs,
                                  "win_seek", "win_avoid", ["card_id", "players", "cost_change", *kept_apart],
                                  opponents, margin)
    fair = W.fair_costs(pairs, components)
    if fair.height == 0:
        section.notes.append("No fair cost: no card was played at two or more costs (sweep `restrict.cost`, as "
                             "scenarios/card-worth.toml does).")
        return
    panel = ["players", *field]
    shown = pl.concat([part.head(top) for part in fair.partition_by(panel, maintain_order=True)])
    section.tables.append(Table(
        f"Printed cost against fair cost: the {top} largest gaps per player count{' and field' if field else ''}"
        + (f" (all {fair.height} in --format csv/json)" if shown.height < fair.height else ""),
        ["card", "players", *field, "printed cost", "costs swept", "n (deals)",
         "fair cost [95% CI]", "fair - printed", "slope (pp per coin)"],
        [[r["card_id"], str(r["players"]), *[r[c] for c in field], str(r["printed_cost"]), r["costs"],
          f"{r['n']:,}", W.gap_text(r), num(r["gap"], 1, sign=True), num(100 * r["slope"], 1, sign=True)]
         for r in shown.to_dicts()],
        caption="fair cost: where the line fitted to seek - avoid over the swept costs meets zero (seeking and "
                "avoiding level), 95% CI by the delta method, cluster-robust by deal (the fit of `report curve`); "
                "fair - printed above 0: the fitted line puts the card's worth above its cost, shown beyond the "
                "noise only where the 95% CI excludes the printed cost (marked: each row's own CI, not corrected "
                f"over the table ({fair.height} row{'s' * (fair.height != 1)}), so about 1 in 20 cards level at their price is marked by chance, and "
                "the rows shown are the largest gaps); no crossing where the slope is not significant; "
                + provenance.field_line(info).replace("these verdicts hold", "the marks hold"),
        marked=[bool(lo > p or hi < p) for lo, hi, p in zip(shown["fair_low"].fill_nan(None).fill_null(-1e9),
                                                              shown["fair_high"].fill_nan(None).fill_null(1e9),
                                                              shown["printed_cost"])],
        # the slope is a share per coin: bare, -0.04 sat beside the _pct and _pp columns as if in pp
        data=fair.rename({"slope": "slope_per_coin", "fair_low": "fair_cost_low", "fair_high": "fair_cost_high"}),
        units={"slope_per_coin": "pp", **COST_UNITS}))
    section.figures.append(("card-fair-cost", charts.fair_cost_chart(fair, info)))

"""The report statistics against hand computations on tiny hand-made datasets (tests/report_data.py).

Intervals of means are recomputed here with the textbook formula mean ± t(0.975, n-1) * sd / sqrt(n)
and those of rates with Wilson's (statsmodels), so these tests check that the library is called
the right way (and on the right unit: deals)."""

import json
import math

import numpy as np
import polars as pl
import pytest
from scipy import stats as sps
from statsmodels.stats.proportion import proportion_confint

from hadara_sim.report import component_sections
from hadara_sim.report import verdict as V
from hadara_sim.report.dataset import ReportError, dataset_info, in_group, resolve_by
from hadara_sim.report.estimates import paired_diff, with_verdicts
from hadara_sim.report.fields import field_columns, field_label, field_robustness
from hadara_sim.report.sections import ladder_table
from hadara_sim.report.grants import grant_effects, owner_effects, placebo_effects, placebo_spread
from hadara_sim.report.scores import leader_wins, running_scores, score_breakdown
from hadara_sim.report.setup import setup_card_balance, setup_field_pairs
from hadara_sim.report.wins import win_rates

import report_data as R


def t_interval(x, width=math.inf):
    """The t interval of the mean of `x`, inside [-width, width] (a difference of shares)."""
    x = np.asarray(x, dtype=float)
    half = sps.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x))
    return max(-width, x.mean() - half), min(width, x.mean() + half)


def wilson(count, n):
    return proportion_confint(count, n, alpha=0.05, method="wilson")


def row(df: pl.DataFrame, **key) -> dict:
    sub = df
    for k, v in key.items():
        sub = sub.filter(pl.col(k) == v)
    assert sub.height == 1, (key, sub)
    return sub.to_dicts()[0]


# --- win rates --------------------------------------------------------------------------------

def test_win_rate_by_policy_matches_hand_computation():
    df = R.four_games()
    out = win_rates(df, ["policy_label"])
    a, b = row(out, policy_label="A"), row(out, policy_label="B")
    assert (a["n"], a["rows"], b["n"]) == (4, 4, 4)
    assert a["mean"] == pytest.approx(0.625) and b["mean"] == pytest.approx(0.375)
    # Wilson's interval of 2.5 wins in 4 seats (one seat per deal: no clustering to correct for)
    assert (a["ci_low"], a["ci_high"]) == pytest.approx(wilson(2.5, 4))
    assert (b["ci_low"], b["ci_high"]) == pytest.approx(wilson(1.5, 4))
    assert a["fair"] == pytest.approx(0.5) and a["diff"] == pytest.approx(0.125)
    # p of the score test against 1/2, by hand: z = (p - 1/2) / sqrt(1/2 * 1/2 / n)
    z = (0.625 - 0.5) / math.sqrt(0.25 / 4)
    assert a["p"] == pytest.approx(2 * sps.norm.sf(z))


def test_zero_wins_of_200_has_an_upper_end_above_one_percent():
    rows = [dict(game=g, seat=0, players=2, win_share=0.0, policy_label="weak") for g in range(200)]
    r = win_rates(R.frame(rows), ["policy_label"]).to_dicts()[0]
    assert r["mean"] == 0 and r["ci_low"] == pytest.approx(0, abs=1e-12) and r["ci_high"] > 0.01
    assert r["ci_high"] == pytest.approx(wilson(0, 200)[1])  # 1.9 %
    assert r["p"] < 1e-6  # and the test against 1/2 still works at the edge


def test_paired_win_shares_that_never_differ_are_not_a_zero_width_interval_nor_fair_from_ten_deals():
    """Seeking a card its seat is never offered: every deal's pair is equal. Ten such deals cannot show
    the card level within ±2 pp (a mean at 2 pp needs one deal in 50 to differ: none of ten differing
    has chance 0.98^10 = 82 %); ten thousand can; the interval is the exact rule of three either way."""
    for deals, fair in ((10, False), (10_000, True)):
        pairs = pl.DataFrame({"game": range(deals), "seek": 0.0, "avoid": 0.0})
        r = with_verdicts(paired_diff(pairs, "seek", "avoid"), hints=True).to_dicts()[0]
        q = 1 - 0.025 ** (1 / deals)
        assert r["diff"] == 0 and r["low"] == pytest.approx(-q) and r["high"] == pytest.approx(q) and q > 0
        assert r["equiv_p"] == pytest.approx(0.98 ** deals)
        assert r["verdict"].startswith("fair") is fair, r["verdict"]
    scores = pl.DataFrame({"game": range(10), "a": 140.0, "b": 140.0})   # not win shares: no such bound
    r = paired_diff(scores, "a", "b", margin=2.0).to_dicts()[0]
    assert all(math.isnan(r[k]) for k in ("p", "low", "high", "equiv_p")), r


def test_one_policy_on_every_seat_is_at_one_third_by_construction_not_weaker():
    """A policy on all three seats wins a third of every deal: the deal means equal 1/3 up to their
    last bits, whose variance (1e-33) made the effective sample size endless, the CI [33.3, 33.3]
    and the verdict "weaker" by rounding. The CI is the seats' Wilson interval, and a group of every seat
    of its games is not tested: its verdict says 1/P by construction."""
    shares = [(1.0, 0.0, 0.0), (0.5, 0.5, 0.0), (0.0, 0.0, 1.0), (1 / 3, 1 / 3, 1 / 3), (0.0, 1.0, 0.0)] * 10
    rows = [dict(game=g, seat=s, players=3, win_share=w, policy_label="balanced")
            for g, deal in enumerate(shares) for s, w in enumerate(deal)]
    r = with_verdicts(win_rates(R.frame(rows), ["policy_label"])).to_dicts()[0]
    assert (r["ci_low"], r["ci_high"]) == pytest.approx(wilson(50, 150))
    assert r["p"] is None and r["verdict"] == "1/P by construction"


@pytest.mark.parametrize("deals, p, low, significant", [(3, 0.25, -0.416, False), (10, 2 * 2 ** -10, 0.383, True)])
def test_paired_win_shares_all_won_by_one_side_are_a_sign_test_not_p_zero(deals, p, low, significant):
    """Every deal won by the first side: the t test has no spread and said p = 0 at three deals
    (marked). A difference in [-1, 1] of mean 0 is +1 in at most half its deals, so all of n deals with
    chance 2^-n: the sign test's p, and the interval it inverts, [1 - 2q, 1] with q = 1 - 0.025^(1/n)."""
    pairs = pl.DataFrame({"game": range(deals), "a": 1.0, "b": 0.0})
    r = with_verdicts(paired_diff(pairs, "a", "b")).to_dicts()[0]
    q = 1 - 0.025 ** (1 / deals)
    assert r["p"] == pytest.approx(p) and r["low"] == pytest.approx(1 - 2 * q) and r["high"] == 1.0
    assert r["low"] == pytest.approx(low, abs=1e-3) and r["significant"] is significant


def test_a_difference_of_win_shares_has_its_interval_inside_plus_minus_100_pp():
    """Three deals gave a t interval of [-158.4, +91.7] pp for a difference that cannot pass ±100 pp;
    a difference of two effects (shares less 1/P, in [-1, 1]) cannot pass ±200 pp."""
    pairs = pl.DataFrame({"game": range(3), "a": [0.0, 0.0, 1.0], "b": [1.0, 0.0, 1.0]})
    r = paired_diff(pairs, "a", "b").to_dicts()[0]
    assert t_interval([-1, 0, 0])[0] < -1 and (r["low"], r["high"]) == pytest.approx(t_interval([-1, 0, 0], 1))
    effects = pairs.with_columns(pl.col("a") - 0.5, -pl.col("b"))
    r = paired_diff(effects, "a", "b").to_dicts()[0]
    assert (r["low"], r["high"]) == pytest.approx(t_interval([0.5, -0.5, 1.5], 2)) and r["high"] == 2



@pytest.mark.parametrize("margin", [2, 2.0, -0.02, 0, True, "0.02"])
def test_a_win_share_margin_is_a_fraction_from_python(margin):
    """margin=2 (the command line's spelling) meant ±200 pp from Python and called every row fair:
    a win share's margin is a fraction in (0, 0.5], refused otherwise with the spelling that works; a
    margin of another quantity (points) is its own unit."""
    df = R.four_games()
    with pytest.raises(ValueError, match=r"e\.g\. margin=0\.02 for ±2 pp \(the command line's --margin 2\)"):
        win_rates(df, ["policy_label"], margin=margin)
    with pytest.raises(ValueError, match="a fraction above 0 and at most 0.5"):
        V.judge([0.0], [1.0], [0.0], [10], margin)
    assert win_rates(df, ["policy_label"], margin=0.5).height


def test_a_group_from_python_is_resolved_as_from_the_command_line():
    """win_rates(df, "seat") grouped by the letters s, e, a, t and blamed "an older hadara-sim" for
    lacking them; a name or a list, an alias, a misspelling and an outcome now meet --by's rules."""
    df = R.four_games()
    assert win_rates(df, "seat").equals(win_rates(df, ["seat"]))
    assert win_rates(df, ["policy"]).equals(win_rates(df, ["policy_label"]))
    with pytest.raises(ReportError, match="cannot group by 'seet' \\(did you mean seat\\?\\)"):
        win_rates(df, ["seet"])
    with pytest.raises(ReportError, match="cannot group by 'total': it is a score or outcome"):
        score_breakdown(df, ["total"])

def test_rows_of_one_deal_widen_the_interval_by_the_design_effect():
    """One deal played under two combinations with the same outcome: 200 rows carry the
    information of 100 deals, so the interval is Wilson's for 50 of 100 (99: the deal means'
    variance has n - 1 degrees of freedom), not 100 of 200."""
    rows = [dict(game=g, seat=0, combo=c, players=2, win_share=float(g % 2), policy_label="p")
            for g in range(100) for c in (0, 1)]
    r = win_rates(R.frame(rows), ["policy_label"]).to_dicts()[0]
    assert (r["n"], r["rows"]) == (100, 200)
    assert (r["ci_low"], r["ci_high"]) == pytest.approx(wilson(49.5, 99))


def test_the_seats_of_one_deal_are_one_observation_not_a_verdict():
    """A tournament's single deal: "random" lost all 14 of its games, which were taken as 14 independent
    seats (score test p < 0.001, "weaker"); one deal cannot measure its clustering, so it counts once."""
    rows = [dict(game=0, seat=s, combo=c, players=2, win_share=float(s == 1),
                 policy_label="random" if s == 0 else f"p{c}") for c in range(14) for s in (0, 1)]
    r = row(with_verdicts(win_rates(R.frame(rows), ["policy_label"])), policy_label="random")
    assert (r["n"], r["rows"]) == (1, 14) and (r["ci_low"], r["ci_high"]) == pytest.approx(wilson(0, 1))
    assert r["p"] > 0.05 and r["verdict"] == "undecided"


def test_a_few_deal_means_that_agree_never_count_for_more_than_the_seats_played():
    """42 seats in 3 deals whose means happened to lie close (0.64, 0.57, 0.57) had a design effect of
    0.1 and counted as 425 observations: a 95% CI of ±5 pp and "stronger" from three deals."""
    shares = {0: [1] * 9 + [0] * 5, 1: [1] * 8 + [0] * 6, 2: [1] * 8 + [0] * 6}
    rows = [dict(game=g, seat=0, combo=c, players=2, win_share=float(w), policy_label="p")
            for g, ws in shares.items() for c, w in enumerate(ws)]
    r = win_rates(R.frame(rows), ["policy_label"]).to_dicts()[0]
    assert (r["n"], r["rows"]) == (3, 42)
    assert (r["ci_low"], r["ci_high"]) == pytest.approx(wilson(25, 42))


def test_win_rate_by_seat_and_aliases():
    df = R.four_games()
    out = win_rates(df, resolve_by(df, ["seat"]))
    assert row(out, seat=0)["mean"] == pytest.approx(0.625)
    assert row(out, seat=1)["mean"] == pytest.approx(0.375)
    assert resolve_by(df, ["policy"]) == ["policy_label"]
    assert resolve_by(df, ["setup"]) == ["setup_card", "setup_side"]
    assert resolve_by(df, ["policy,seat"]) == ["policy_label", "seat"]
    with pytest.raises(ReportError, match="cannot group by 'colour'"):
        resolve_by(df, ["colour"])


@pytest.mark.parametrize("column, words", [
    ("game", "it is the deal, which every report averages a game's seats within and pairs on"),
    ("win_share", "it is a score or outcome the reports measure"), ("total", "it is a score or outcome"),
    ("colonies", "it is a score"), ("patron_points", "it is a score"), ("total_epoch2", "it is a score"),
    ("rank", "it is a score or outcome"), ("bought", "it is a bit set of cards"), ("offered", "it is a bit set"),
    ("hand", "each of its values holds several"),
])
def test_what_the_reports_measure_or_pair_on_is_no_group(column, words):
    """Grouping by the deal, by a score or by a bit set of cards would split a report's own numbers or
    make a group per set of cards; refused with what can be grouped by."""
    df = R.four_games().with_columns(hand=pl.concat_list("seat", "players"))
    with pytest.raises(ReportError, match=f"cannot group by '{column}': {words}.*; group by an alias "
                                          r"\(policy, seat, setup"):
        resolve_by(df, [f"policy,{column}"])
    assert resolve_by(df, ["colour_order", "granted"]) == ["colour_order", "granted"]  # describe a seat: groups


def test_a_misspelt_group_is_never_pointed_at_a_column_that_is_no_group():
    with pytest.raises(ReportError, match=r"cannot group by 'totl': it is neither"):
        resolve_by(R.four_games(), ["totl"])


def test_a_missing_value_is_a_group_of_its_own():
    df = pl.DataFrame({"granted": [None, "I-P-01", None], "seat": [0, 0, 1], "x": [1, 2, 3]})
    assert in_group(df, ["granted"], {"granted": None})["x"].to_list() == [1, 3]
    assert in_group(df, ["granted", "seat"], {"granted": None, "seat": 1})["x"].to_list() == [3]
    assert in_group(df, [], {})["x"].to_list() == [1, 2, 3]


def test_rows_of_one_deal_are_averaged_before_the_test():
    """All seats of a 2-player game together always take exactly 1/2 on average: the deal means
    have no spread, so n counts deals, not seats, and the interval falls back to the seats'
    binomial one (never of zero width)."""
    out = win_rates(R.four_games(), ["players"])
    r = out.to_dicts()[0]
    assert (r["n"], r["rows"]) == (4, 8)
    assert r["mean"] == pytest.approx(0.5)
    assert (r["ci_low"], r["ci_high"]) == pytest.approx(wilson(4, 8))


def test_finishing_positions_without_spread_and_tie_rates_carry_honest_intervals():
    """A policy that came second in every deal was "2.00 ±0.00" (a hand-made normal half-width of zero
    spread) and the tie rate had no interval; now the position's interval is the t interval of the deal
    means (none without spread) and the tie rate, a rate, has its Wilson interval of positive width."""
    from hadara_sim.report import ratings

    rows = [dict(game=g, seat=s, players=2, policy_label=name, rank=1 + s, win_share=float(s == 0))
            for g in range(5) for s, name in enumerate(["strong", "weak"])]
    fin = ratings.finishing(R.frame(rows))
    weak = row(fin, policy="weak")
    assert (weak["n"], weak["rank"]) == (5, 2.0) and math.isnan(weak["rank_half"])
    assert weak["tie_rate"] == 0 and weak["tie_low"] == pytest.approx(0, abs=1e-12)
    assert weak["tie_high"] == pytest.approx(wilson(0, 5)[1])
    rows[0]["rank"] = 2  # one deal of another position: the t interval of the deal means
    strong = row(ratings.finishing(R.frame(rows)), policy="strong")
    assert 2 * strong["rank_half"] == pytest.approx(np.diff(t_interval([2, 1, 1, 1, 1]))[0])


# --- breakdown --------------------------------------------------------------------------------

def test_breakdown_splits_bonus_parts_and_sums_to_total():
    df = R.four_games()
    long = score_breakdown(df, ["policy_label"])
    a = long.filter(pl.col("policy_label") == "A")
    means = {r["part"]: r["mean"] for r in a.to_dicts()}
    # A's totals: 130, 110, 140, 150
    assert means["total"] == pytest.approx(132.5)
    # statues of A: 20, 20, 20, 20 with 4 patron points in game 0 -> base 19, patron 1
    assert means["statues"] == pytest.approx(19.0) and means["patron_points"] == pytest.approx(1.0)
    # gold of A: 14, 7, 14, 14 with 7 set_collector points in game 0
    assert means["gold"] == pytest.approx((7 + 7 + 14 + 14) / 4)
    assert means["set_collector_points"] == pytest.approx(7 / 4)
    assert means["silver_full_points"] == pytest.approx(5 / 4)
    assert sum(v for k, v in means.items() if k != "total") == pytest.approx(means["total"])
    tot = a.filter(pl.col("part") == "total").to_dicts()[0]
    assert (tot["ci_low"], tot["ci_high"]) == pytest.approx(t_interval([130, 110, 140, 150]))


def test_a_mean_without_spread_has_no_interval_rather_than_one_of_zero_width():
    """A bonus no deal scored was 0.0 [0.0, 0.0]: values without a bound say nothing of deals unseen."""
    from hadara_sim.report.estimates import mean_ci

    df = pl.DataFrame({"game": range(8), "seat": 0, "bonus": 0, "points": [3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 4.0]})
    none = mean_ci(df, "bonus").to_dicts()[0]
    assert none["n"] == 8 and none["mean"] == 0 and math.isnan(none["ci_low"]) and math.isnan(none["ci_high"])
    some = mean_ci(df, "points").to_dicts()[0]
    assert (some["ci_low"], some["ci_high"]) == pytest.approx(t_interval([3] * 7 + [4]))


# --- trajectory -------------------------------------------------------------------------------

def test_running_scores_and_leader_wins():
    df = R.four_games()
    run = running_scores(df, ["policy_label"])
    assert row(run, policy_label="A", epoch=1)["mean"] == pytest.approx((20 + 12 + 15 + 20) / 4)
    assert row(run, policy_label="B", epoch=2)["mean"] == pytest.approx((50 + 70 + 55 + 50) / 4)
    assert row(run, policy_label="A", epoch=3)["mean"] == pytest.approx(132.5)
    lead = leader_wins(df)
    e1, e2 = row(lead, epoch=1), row(lead, epoch=2)
    # epoch I leaders: seat 0 (won), seat 1 (lost), both (tied at the end: 1/2 + 1/2), seat 0 (lost)
    assert e1["n"] == 4 and e1["mean"] == pytest.approx(0.5)
    assert e1["fair"] == pytest.approx((0.5 + 0.5 + 1 + 0.5) / 4)  # chance: leaders / players
    assert (e1["ci_low"], e1["ci_high"]) == pytest.approx(wilson(2, 4))
    # epoch II leaders: seat 0 (won), seat 0 (won), seat 0 (tie: 1/2), seat 1 (won)
    assert e2["mean"] == pytest.approx(0.875)
    assert (e2["ci_low"], e2["ci_high"]) == pytest.approx(wilson(3.5, 4))


# --- purple effects ---------------------------------------------------------------------------

def test_grant_effects_pair_on_deal_and_seat():
    df, _ = R.grant_sweep()
    out = grant_effects(df)
    assert set(out["grant"]) == {"sell_bonus", "colony_bounty"}
    sell = row(out, grant="sell_bonus")
    assert sell["n"] == 4 and sell["control"] == "none"
    assert sell["win_a"] == pytest.approx(np.mean(R.SELL_WIN))
    assert sell["win_b"] == pytest.approx(np.mean(R.CONTROL_WIN))
    d = np.array(R.SELL_WIN) - np.array(R.CONTROL_WIN)
    assert sell["win_diff"] == pytest.approx(0.375)
    assert (sell["win_low"], sell["win_high"]) == pytest.approx(t_interval(d, 1))
    assert sell["win_p"] == pytest.approx(sps.ttest_rel(R.SELL_WIN, R.CONTROL_WIN).pvalue)
    ds = np.array(R.SELL_TOTAL) - np.array(R.CONTROL_TOTAL)
    assert sell["score_diff"] == pytest.approx(5.0)
    assert (sell["score_low"], sell["score_high"]) == pytest.approx(t_interval(ds))
    assert sell["epoch"] == 1
    same = row(out, grant="colony_bounty")
    q = 1 - 0.025 ** (1 / 4)  # four equal pairs: the rule of three's interval, not the t test's zero width
    assert same["win_diff"] == 0 and (same["win_low"], same["win_high"]) == pytest.approx((-q, q))
    assert out["grant"][0] == "sell_bonus"  # sorted by the win-share difference


def test_grant_effects_need_a_control():
    df, _ = R.grant_sweep()
    no_control = df.filter(pl.col("sweep_grants") != "none")
    with pytest.raises(ReportError, match="no control"):
        grant_effects(no_control)
    assert grant_effects(R.four_games()) is None


def test_owner_effects_are_within_game_differences():
    effects = {(0, 0): {"effect_sell_bonus": 1}, (1, 1): {"effect_sell_bonus": 1},
               (3, 1): {"effect_sell_bonus": 2}, (2, 0): {"effect_set_collector": 3}}
    df = R.four_games(effects)
    out = owner_effects(df)
    sell = row(out, effect="sell_bonus")
    # owner minus the other seat: game 0 (1 - 0), game 1 (0 - 1), game 3 (1 - 0)
    assert sell["n"] == 3 and sell["owned"] == pytest.approx(3 / 4)
    assert sell["win_diff"] == pytest.approx(1 / 3)
    assert (sell["win_low"], sell["win_high"]) == pytest.approx(t_interval([1, -1, 1], 1))
    assert sell["score_diff"] == pytest.approx(((130 - 120) + (110 - 125) + (150 - 100)) / 3)
    collector = row(out, effect="set_collector")
    assert collector["n"] == 1 and math.isnan(collector["win_low"])  # one game: no interval
    # grant games are left out of the observational comparison
    grants, _ = R.grant_sweep()
    assert owner_effects(grants) is None


def test_an_owner_is_compared_with_the_mean_of_every_other_seat_of_its_game():
    """At 3 players the others are two seats: their mean, from the game's sums (a mean of each seat
    filtered took 14 s and 4.4 GB of a card-worth run's summary), as from the seats themselves."""
    seats = [  # game, seat, win share, total, owns sell_bonus
        (0, 0, 1.0, 130, True), (0, 1, 0.0, 100, False), (0, 2, 0.0, 91, False),
        (1, 0, 0.0, 95, False), (1, 1, 0.5, 120, True), (1, 2, 0.5, 120, False),
        (2, 0, 1 / 3, 110, True), (2, 1, 1 / 3, 110, True), (2, 2, 1 / 3, 104, False)]
    df = R.frame([dict(game=g, seat=k, players=3, win_share=w, total=t, effect_sell_bonus=int(o)) for g, k, w, t, o in seats])
    sell = row(owner_effects(df), effect="sell_bonus")
    assert sell["n"] == 3 and sell["win_a"] == pytest.approx((1 + 0.5 + 1 / 3) / 3)
    assert sell["win_b"] == pytest.approx((0 + 0.25 + 1 / 3) / 3)
    assert sell["score_diff"] == pytest.approx(((130 - 95.5) + (120 - 107.5) + (110 - 104)) / 3)


# --- setup cards ------------------------------------------------------------------------------

def _setup_dataset(games: int = 20) -> pl.DataFrame:
    """2 players: card 1 always beats card 2 on side A; on side B they alternate."""
    rows = []
    for g in range(games):
        for seat, card in ((0, 1), (1, 2)):
            side = "A" if g < games // 2 else "B"
            if side == "A":
                win = 1.0 if card == 1 else 0.0
            else:
                win = float((g + seat) % 2)
            rows.append(dict(game=g, seat=seat, players=2, setup_card=card, setup_side=side, win_share=win,
                             total=100 + 10 * win, cards=100 + 10 * win, policy="p", policy_label="p"))
    return R.frame(rows)


def test_setup_card_balance_marks_significant_cards():
    out = setup_card_balance(_setup_dataset())
    assert out["design"][0] == "observational"
    strong, weak = row(out, setup_card=1, setup_side="A"), row(out, setup_card=2, setup_side="A")
    assert strong["win"] == 1.0 and weak["win"] == 0.0 and strong["n"] == 10
    assert strong["significant"] and weak["significant"]
    b1 = row(out, setup_card=1, setup_side="B")
    assert b1["win"] == pytest.approx(0.5) and not b1["significant"]
    assert (b1["win_low"], b1["win_high"]) == pytest.approx(wilson(5, 10))
    assert b1["score"] == pytest.approx(105.0)
    ps = out["p"].to_numpy()
    ok = np.isfinite(ps)
    assert out["q"].to_numpy()[ok] == pytest.approx(sps.false_discovery_control(ps[ok]))
    # 10 deals are too few to call anything fair within ±2 pp
    assert b1["verdict"] == "undecided" and strong["verdict"] == "stronger" and weak["verdict"] == "weaker"


def test_setup_grid_uses_the_focus_seat_only():
    combos = [{"index": 0, "sweep": {"setup.card": 1}}, {"index": 1, "sweep": {"setup.card": 2}}]
    rows = []
    for combo, card in ((0, 1), (1, 2)):
        for g in range(4):
            win0 = 1.0 if card == 1 else float(g % 2)
            rows += [dict(game=g, seat=0, players=2, combo=combo, setup_card=card, setup_side="A",
                          win_share=win0, total=100, policy_label="p"),
                     dict(game=g, seat=1, players=2, combo=combo, setup_card=3, setup_side="A",
                          win_share=1 - win0, total=100, policy_label="p")]
    out = setup_card_balance(R.frame(rows, combos))
    assert out["design"][0] == "experimental"
    assert sorted(out["setup_card"].to_list()) == [1, 2]  # card 3 (the other seat) is not studied
    assert row(out, setup_card=1)["win"] == 1.0 and row(out, setup_card=2)["win"] == 0.5
    # the verdict is absolute: card 1 wins every deal, 1/2 above the fair share 1/2
    one = row(out, setup_card=1)
    assert one["fair"] == 0.5 and one["diff"] == pytest.approx(0.5)
    assert (one["diff_low"], one["diff_high"]) == pytest.approx((one["win_low"] - 0.5, one["win_high"] - 0.5))
    # the relative contrast is paired on the deal against the average side (cards 1 and 2 of the same deal)
    assert one["rel_diff"] == pytest.approx(0.25)
    grid = [(1 + g % 2) / 2 for g in range(4)]
    assert (one["rel_low"], one["rel_high"]) == pytest.approx(t_interval([1 - m for m in grid]))


@pytest.mark.parametrize("focus, says, never", [
    ("rotate", "with the focus seat rotated over the seats with the deal, so seat advantages cancel.", "do not cancel"),
    ("0", "with the focus seat always seat 0 (setup.focus_seat), so seat advantages do not cancel: each verdict is "
          "that seat's result with the card and side", "advantages cancel."),
])
def test_the_setup_report_says_how_the_focus_seat_was_chosen(focus, says, never):
    """`--set setup.focus_seat=0`: the grid's cells are seat 0's, its seat advantage included."""
    df = R.setup_grid(np.random.default_rng(3), deals=20).with_columns(sweep_setup_focus_seat=pl.lit(focus))
    section = component_sections.setup_cards(df, dataset_info(df))
    intro = " ".join(section.intro.split())
    assert says in intro and never not in intro
    assert component_sections.focus_words(["0", "rotate"])[1].startswith("so seat advantages cancel only in the rotated")


# --- bad input --------------------------------------------------------------------------------

def test_missing_columns_are_named():
    df = R.four_games().drop("win_share", "total_epoch2")
    with pytest.raises(ReportError) as err:
        win_rates(df, ["policy_label"])
    assert "win_share" in str(err.value) and "hadara-sim simulate" in str(err.value)
    with pytest.raises(ReportError, match="total_epoch2"):
        running_scores(df)
    with pytest.raises(ReportError, match="no rows"):
        win_rates(R.four_games().head(0), ["policy_label"])


def test_the_ratings_section_names_a_missing_rank_not_the_policies():
    """A frame of four policies without `rank` was told 'ratings need a dataset with two or more policies'."""
    from hadara_sim.report.sections import ratings

    df = R.four_games()
    assert df["policy_label"].n_unique() > 1
    with pytest.raises(ReportError, match="lacks 1 column that `report ratings` needs: rank"):
        ratings(df.drop("rank"), dataset_info(df))


def test_the_head_to_head_of_two_policies_says_one_pair():
    """Its caption said "Holm correction over the 1 pairs"."""
    from hadara_sim.report.sections import ratings

    df = R.four_games()
    two = df.with_columns(pl.when(pl.col("seat") % 2 == 0).then(pl.lit("a")).otherwise(pl.lit("b"))
                          .alias("policy_label"))
    [h2h] = [t for t in ratings(two, dataset_info(two)).tables if t.title.startswith("Head to head")]
    assert h2h.caption.endswith("(Holm correction over the 1 pair)"), h2h.caption


def test_placebo_effects_pair_each_effect_with_the_plain_card_of_its_epoch():
    """The effect alone: sell_bonus (epoch I) minus the placebo I-P-07 on the same deal and seat."""
    combos = [{"index": 0, "sweep": {"grants": "none"}}, {"index": 1, "sweep": {"grants": "sell_bonus"}},
              {"index": 2, "sweep": {"grants": "I-P-07"}}, {"index": 3, "sweep": {"grants": "II-P-07"}}]
    placebo_win, placebo_total = [1.0, 0.0, 0.0, 1.0], [108, 115, 93, 112]
    outcomes = {0: (R.CONTROL_WIN, R.CONTROL_TOTAL, None, 0), 1: (R.SELL_WIN, R.SELL_TOTAL, "I-P-01", 1),
                2: (placebo_win, placebo_total, "I-P-07", 1), 3: (R.CONTROL_WIN, R.CONTROL_TOTAL, "II-P-07", 2)}
    rows = []
    for combo, (wins, totals, granted, epoch) in outcomes.items():
        for game in range(4):
            for seat in range(2):
                rows.append(dict(game=game, seat=seat, players=2, advanced=True, combo=combo,
                                 sweep=json.dumps(combos[combo]["sweep"]), policy="balanced",
                                 policy_label="balanced", policy_params="{}",
                                 granted=granted if seat == 0 else None,
                                 granted_epoch=epoch if granted and seat == 0 else 0,
                                 win_share=wins[game] if seat == 0 else 1 - wins[game],
                                 total=totals[game] if seat == 0 else 105))
    df = R.frame(rows, combos)
    out, refused = placebo_effects(df)
    assert out["grant"].to_list() == ["sell_bonus"]  # only effects are compared, with their epoch's placebo
    assert refused == []
    sell = row(out, grant="sell_bonus")
    assert sell["control"] == "mean of 1 plain epoch 1 cards" and sell["epoch"] == 1 and sell["n"] == 4
    d = np.array(R.SELL_WIN) - np.array(placebo_win)
    assert sell["win_diff"] == pytest.approx(d.mean())
    assert (sell["win_low"], sell["win_high"]) == pytest.approx(t_interval(d, 1))
    assert sell["score_diff"] == pytest.approx(np.mean(np.array(R.SELL_TOTAL) - placebo_total))
    assert placebo_effects(R.grant_sweep()[0]) == (None, [])  # no placebo in the sweep


def _placebo_sweep(grants: dict[str, tuple[str, int, list[float]]]) -> pl.DataFrame:
    """Seat 0 of 6 deals granted each card: value -> (card id, epoch, win shares); 'none' first."""
    combos = [{"index": i, "sweep": {"grants": v}} for i, v in enumerate(["none", *grants])]
    rows = []
    for combo in combos:
        value = combo["sweep"]["grants"]
        card, epoch, wins = grants.get(value, (None, 0, [0.5] * 6))
        for game in range(6):
            for seat in range(2):
                rows.append(dict(game=game, seat=seat, players=2, advanced=True, combo=combo["index"],
                                 sweep=json.dumps(combo["sweep"]), policy_label="p",
                                 granted=card if seat == 0 else None,
                                 granted_epoch=epoch if card and seat == 0 else 0,
                                 win_share=wins[game] if seat == 0 else 1 - wins[game], total=100))
    return R.frame(rows, combos)


def test_placebo_is_the_mean_of_every_plain_card_and_others_are_refused():
    a, b = [1, 0, 1, 0, 1, 0], [1, 1, 1, 0, 0, 0]
    df = _placebo_sweep({"I-P-07": ("I-P-07", 1, a), "I-P-08": ("I-P-08", 1, b),
                         "sell_bonus": ("I-P-01", 1, [1.0] * 6),
                         "I-Y-01": ("I-Y-01", 1, [1.0] * 6),          # a yellow card
                         "II-P-07": ("II-P-07", 3, [1.0] * 6),        # plain purple, wrong epoch
                         "colony_bounty": ("II-P-01", 2, [1.0] * 6)})  # an effect: not a placebo
    out, refused = placebo_effects(df)
    sell = row(out, grant="sell_bonus")
    mean = (np.array(a) + np.array(b)) / 2
    assert sell["control"] == "mean of 2 plain epoch 1 cards"
    assert sell["win_diff"] == pytest.approx(np.mean(1 - mean))
    assert "colony_bounty" not in out["grant"].to_list()  # no plain epoch II card to compare with
    assert len(refused) == 2
    assert any("I-Y-01 is a yellow card" in r for r in refused)
    assert any("II-P-07 is an epoch 2 card granted at the start of epoch 3" in r for r in refused)
    spread = placebo_spread(df)
    assert sorted(spread["grant"].to_list()) == ["I-P-07", "I-P-08"]
    # the run's component set is used when given; one that can no longer be read is an error naming it,
    # never silently replaced by the shipped set
    with pytest.raises(ReportError, match="component set at /no/such/components cannot be read"):
        placebo_effects(df, "/no/such/components")
    assert row(spread, grant="I-P-07")["win_diff"] == pytest.approx(np.mean(np.array(a) - mean))


# --- robustness to the opponent field ---------------------------------------------------------

def _redrawn(df: pl.DataFrame, rng, cell: tuple, effect: float) -> pl.DataFrame:
    """`df` with the focus seat's results of one cell drawn afresh at the deal's rate plus `effect`."""
    focus = (pl.col("seat") == pl.col("game") % pl.col("players")) & (pl.col("sweep_setup_card") == cell[0]) & (
        pl.col("sweep_setup_side") == cell[1])
    fresh = pl.Series((rng.random(df.height) < 0.5 + effect).astype(float))
    return df.with_columns(pl.when(focus).then(fresh).otherwise(pl.col("win_share")).alias("win_share"))


def test_an_effect_that_depends_on_the_field_is_marked_and_a_shared_one_is_robust():
    """Two fields on the same deals: card 3A is planted stronger under one field only (depends on
    the bots), 1B weaker under both with the same results (robust), 2B drawn afresh under the
    second field with the same rate (undecided at this size)."""
    rng = np.random.default_rng(11)
    strong = R.setup_grid(rng, deals=600, effect={(3, "A"): 0.3, (1, "B"): -0.3})
    plain = _redrawn(_redrawn(strong, rng, (3, "A"), 0.0), rng, (2, "B"), 0.0)
    df = R.fields({"balanced": strong, "balanced-v1": plain})
    assert field_columns(df) == ["sweep_policies"]
    pairs, a, b = setup_field_pairs(df)
    out = field_robustness(pairs, a, b, ["players", "setup_card", "setup_side"], ["sweep_policies"])
    three, one = row(out, setup_card=3, setup_side="A"), row(out, setup_card=1, setup_side="B")
    assert three["robust"] == "depends on the bots" and three["difference balanced-v1"] < -0.2
    assert three["low balanced-v1"] < three["difference balanced-v1"] < three["high balanced-v1"] < 0
    assert one["robust"] == "robust" and one["effect balanced"] == pytest.approx(one["effect balanced-v1"])
    assert row(out, setup_card=2, setup_side="B")["robust"] == "undecided"
    # the effect under a field is the table's own effect (win share minus 1/P) within that field
    alone = setup_card_balance(strong)
    assert three["effect balanced"] == pytest.approx(row(alone, setup_card=3, setup_side="A")["diff"])
    one_field = pairs.filter(pl.col("sweep_policies") == '["balanced"]')
    assert field_robustness(one_field, a, b, ["players", "setup_card", "setup_side"], ["sweep_policies"]) is None


def _null_fields(rng, cells: int, deals: int, shift: float = 0.0) -> pl.DataFrame:
    """Pairs of two fields that are the same policy: per cell and deal an independent result at
    the deal's rate under each field (`shift` added under the second)."""
    base = rng.uniform(0.2, 0.8, deals)
    parts = []
    for field, extra in (('["balanced"]', 0.0), ('["balanced-twin"]', shift)):
        win = (rng.random((cells, deals)) < base + extra).astype(float)
        parts.append(pl.DataFrame({"cell": np.repeat(np.arange(cells), deals), "game": np.tile(np.arange(deals), cells),
                                   "sweep_policies": field, "win_share": win.ravel(), "fair": 0.5}))
    return pl.concat(parts)


def test_identical_fields_say_depends_in_at_most_the_stated_share_of_tables():
    """Holm over the table: a table of ten cells under two fields that are the same policy says
    "depends on the bots" somewhere in at most 5 % of tables (binomial slack for 150 tables)."""
    rng = np.random.default_rng(2026)
    flagged = sum("depends on the bots" in field_robustness(
        _null_fields(rng, 10, 150), "win_share", "fair", ["cell"], ["sweep_policies"])["robust"].to_list()
        for _ in range(150))
    assert flagged <= 14, flagged  # P(Binomial(150, 0.05) > 14) < 2 %
    shifted = field_robustness(_null_fields(rng, 10, 3000, shift=0.1), "win_share", "fair", ["cell"],
                                     ["sweep_policies"])
    assert (shifted["robust"] == "depends on the bots").all()  # the test has power where there is an effect


def test_rows_planted_on_the_margin_are_called_fair_in_at_most_the_stated_share_of_tables():
    """Every row's true difference is exactly the margin (2 pp): with Holm over the table's TOSTs,
    a table says "fair" anywhere in at most 5 % of tables."""
    rng = np.random.default_rng(99)
    deals, rows_, tables = 400, 12, 200
    wrong = 0
    for _ in range(tables):
        d = rng.normal(0.02, 0.1, (rows_, deals)) * rng.choice([-1, 1], (rows_, 1))
        pairs = pl.DataFrame({"row": np.repeat(np.arange(rows_), deals), "game": np.tile(np.arange(deals), rows_),
                              "a": d.ravel(), "b": 0.0})
        out = with_verdicts(paired_diff(pairs, "a", "b", ["row"]))
        wrong += bool(out["verdict"].str.starts_with("fair").any())
    assert wrong / tables <= 0.05, wrong
    caption = V.caption(rows_)
    assert "Holm" in caption and "at most 5%" in caption


def test_the_setup_and_purple_reports_add_the_robustness_tables_with_two_fields():
    rng = np.random.default_rng(5)
    df = R.fields({"balanced": R.setup_grid(rng, deals=300, effect={(3, "A"): 0.3}),
                   "balanced-v1": R.setup_grid(rng, deals=300)})
    tables = component_sections.setup_cards(df, dataset_info(df)).tables
    robust = [t for t in tables if t.title.startswith("Does each effect hold under every opponent field?")]
    assert len(robust) == 2 and "Setup cards, win share minus 1/P:" in robust[0].title
    assert "(balanced vs balanced-v1)" in robust[0].title and "1 depend on the bots" in robust[0].title
    cell = next(r for r in robust[0].rows if r[0] == "2P 3A")
    # first level: the effect and its verdict under each field, the range of sizes, whether they agree
    assert cell[1].startswith("+") and cell[1].endswith("▲ stronger") and "stronger" not in cell[2]
    assert cell[3] == f"{cell[2].split(' pp')[0]} pp to {cell[1].split(' pp')[0]} pp"
    assert cell[4] in ("verdicts differ", "undecided under a field")
    # second level: the paired interaction test
    assert cell[-1] == "depends on the bots"
    assert "Holm" in robust[0].caption and robust[0].caption.index("first level") < robust[0].caption.index("interaction")
    one = R.setup_grid(rng, deals=50)
    assert not any(t.title.startswith("Does each effect hold")
                   for t in component_sections.setup_cards(one, dataset_info(one)).tables)

    both = R.fields({"balanced": R.grant_sweep()[0], "balanced-v1": R.grant_sweep(sell_win=R.CONTROL_WIN)[0]})
    purple = component_sections.purple(both, dataset_info(both))
    table = next(t for t in purple.tables if t.title.startswith("Does each effect hold"))
    sell = next(r for r in table.rows if r[0] == "sell_bonus")
    assert sell[1].startswith("+37.5 pp") and sell[2].startswith("+0.0 pp") and sell[5].startswith("-37.5 pp")


def test_an_effect_of_the_same_verdict_under_every_field_reads_so_with_its_range_of_sizes():
    """First level of robustness: a cell planted 20 pp stronger under one field and 10 pp under the other
    is "stronger" under both (same verdict under every field, sizes +10 to +20 pp) although the
    interaction test finds the sizes differ; a cell stronger under one field and weaker under the other
    reads "verdicts differ" and is marked."""
    rng = np.random.default_rng(8)
    df = R.fields({"balanced": R.setup_grid(rng, deals=2000, effect={(3, "A"): 0.2, (1, "B"): 0.15}),
                   "balanced-v1": R.setup_grid(rng, deals=2000, effect={(3, "A"): 0.1, (1, "B"): -0.15})})
    table = next(t for t in component_sections.setup_cards(df, dataset_info(df)).tables
                 if t.title.startswith("Does each effect hold"))
    rows = {r[0]: (r, m) for r, m in zip(table.rows, table.marked)}
    three, marked = rows["2P 3A"]
    assert three[4] == "same verdict under every field" and not marked
    assert three[1].endswith("▲ stronger") and three[2].endswith("▲ stronger") and three[-1] == "depends on the bots"
    low, high = (float(x.split(" pp")[0]) for x in three[3].split(" to "))
    assert 5 < low < 15 < high < 25
    one, marked = rows["2P 1B"]
    assert one[4] == "verdicts differ" and marked
    data = table.data.filter((pl.col("setup_card") == 3) & (pl.col("setup_side") == "A")).to_dicts()[0]
    assert data["verdict balanced"] == "stronger" and data["agreement"] == "same verdict under every field"


def test_the_purple_report_reads_three_fields_as_a_ladder():
    """A grant sweep under three fields (weakest first): the ladder table gives sell_bonus's effect under
    each field and each step between them."""
    three = R.fields({"balanced-v1": R.grant_sweep()[0], "balanced": R.grant_sweep(sell_win=R.CONTROL_WIN)[0],
                      "foresight": R.grant_sweep(sell_win=R.CONTROL_WIN)[0]})
    purple = component_sections.purple(three, dataset_info(three))
    ladder = next(t for t in purple.tables if t.title.startswith("Does each effect settle"))
    assert "balanced-v1 < balanced < foresight" in ladder.title
    sell = next(r for r in ladder.rows if r[0] == "sell_bonus")
    assert sell[1].startswith("+37.5 pp") and sell[2].startswith("+0.0 pp") and sell[3].startswith("+0.0 pp")
    assert sell[4].startswith("-37.5 pp") and sell[6].startswith("+0.0 pp")


def test_fields_are_named_by_their_policies_or_by_the_swept_parameter():
    assert field_label('["balanced"]') == "balanced"
    assert field_label('[{"policy": "search", "params": {"budget": 2}}, "random"]') == "search(budget=2)+random"
    rng = np.random.default_rng(2)
    df = pl.concat([R.setup_grid(rng, deals=40).with_columns(pl.lit(c).alias("sweep_policies_0_params_coin"))
                    for c in (0.4, 0.6)])
    assert field_columns(df) == ["sweep_policies_0_params_coin"]
    pairs, a, b = setup_field_pairs(df)
    out = field_robustness(pairs, a, b, ["players", "setup_card", "setup_side"], ["sweep_policies_0_params_coin"])
    assert [c for c in out.columns if c.startswith("effect ")] == [
        "effect policies_0_params_coin=0.4", "effect policies_0_params_coin=0.6"]


def test_a_field_is_labelled_once_per_distinct_value_not_once_per_row(monkeypatch):
    """Labelling each of a card-worth run's 5 million rows (parsing its field's JSON) took 40 s of the
    summary; the labels are those of `field_label`, a null stays null."""
    from hadara_sim.report import fields

    calls = []
    monkeypatch.setattr(fields, "field_label", lambda v: calls.append(v) or field_label(v))
    df = pl.DataFrame({"sweep_policies": ['["balanced"]', '["expert"]', None] * 1000})
    labels = df.select(fields.field_label_expr(["sweep_policies"]))["sweep_policies"]
    assert labels.head(3).to_list() == ["balanced", "expert", None] and labels.n_unique() == 3
    assert sorted(calls) == ['["balanced"]', '["expert"]']


def test_holm_adjusted_p_values_are_those_of_statsmodels():
    from statsmodels.stats.multitest import multipletests

    from hadara_sim.report import inference

    rng = np.random.default_rng(4)
    for size in (1, 2, 7, 40):
        p = rng.uniform(0, 0.2, size) ** 2
        p[rng.random(size) < 0.2] = 0.5
        assert inference.adjust(p, "holm") == pytest.approx(multipletests(p, method="holm")[1])
    with_nan = np.array([0.01, np.nan, 0.04])
    assert inference.adjust(with_nan, "holm")[[0, 2]] == pytest.approx(multipletests([0.01, 0.04], method="holm")[1])
    assert math.isnan(inference.adjust(with_nan, "holm")[1])


def _ladder(rng, deals: int, shifts) -> pl.DataFrame:
    """Pairs of one cell under fields in swept order (combo 0, 1, 2, ...), the win rate shifted by
    `shifts[k]` under field k; the fields' names sort against their order."""
    base = rng.uniform(0.2, 0.7, deals)
    parts = []
    for combo, (name, shift) in enumerate(zip(('["zeta"]', '["beta"]', '["alpha"]'), shifts)):
        win = (rng.random(deals) < base + shift).astype(float)
        parts.append(pl.DataFrame({"cell": 0, "game": np.arange(deals), "combo": combo, "sweep_policies": name,
                                   "win_share": win, "fair": 0.5}))
    return pl.concat(parts)


def test_a_ladder_compares_each_field_with_the_one_before_it_in_the_order_swept():
    rng = np.random.default_rng(5)
    moving = field_robustness(_ladder(rng, 20_000, (0.0, 0.05, 0.15)), "win_share", "fair", ["cell"],
                                    ["sweep_policies"], steps=True)
    assert moving["robust"][0] == "still moving"
    assert {"difference beta", "difference alpha"} <= set(moving.columns)
    assert abs(moving["difference beta"][0] - 0.05) < 0.02 and abs(moving["difference alpha"][0] - 0.10) < 0.02
    settled = field_robustness(_ladder(rng, 20_000, (0.0, 0.10, 0.10)), "win_share", "fair", ["cell"],
                                     ["sweep_policies"], steps=True)
    assert settled["robust"][0] == "settled"  # moved from the first field, not at the last step
    plain = field_robustness(_ladder(rng, 20_000, (0.0, 0.10, 0.10)), "win_share", "fair", ["cell"],
                                   ["sweep_policies"])
    assert plain["robust"][0] == "depends on the bots"  # against the first field it does depend
    assert math.isnan(settled["more"][0])  # decided: no hint


def test_an_undecided_last_step_says_how_many_more_deals_would_show_it_flat():
    """Few deals and a flat last step: undecided, with `inference.deals_to_decide`'s hint in the table."""
    rng = np.random.default_rng(8)
    few = field_robustness(_ladder(rng, 2000, (0.0, 0.10, 0.10)), "win_share", "fair", ["cell"],
                           ["sweep_policies"], steps=True)
    assert few["robust"][0] == "undecided"
    more = few["more"][0]
    assert 2000 < more < 100_000
    table = ladder_table("Side B minus side A", "card", few, lambda r: "cell")
    assert table.rows[0][-1] == f"undecided, about {more:,.0f} more deals"


def test_a_section_draws_its_chart_from_what_info_holds():
    """A notebook may pass an `info` without the scenario's name (or nothing in it): the chart's footer
    says what it has (it stopped with KeyError: 'scenario')."""
    from hadara_sim.report import sections

    section = sections.winrate(R.four_games(), {}, ["policy"])
    assert section.tables and section.figures


def test_the_leader_needs_every_seat_of_a_game():
    """A frame filtered to one seat made that seat the leader of every game, its win share "the
    leader's" against a chance of 1/P: refused, saying how to filter instead."""
    df = R.four_games()
    assert leader_wins(df).height
    with pytest.raises(ReportError, match="games hold only some of their seats: who leads needs every seat"):
        leader_wins(df.filter(pl.col("seat") == 0))
    with pytest.raises(ReportError, match="no rows to report on: a frame filtered to nothing"):
        win_rates(df.filter(pl.col("seat") == 9))


def test_a_long_label_wraps_in_the_charts_instead_of_running_into_its_neighbours():
    """A policy's label with its parameters, "greedy(coin=0.5, military=1.25, ...)", ran into the next
    bar's and pushed the win-rate chart's axes off the figure: it wraps at words."""
    from hadara_sim.report import sections

    long_label = "greedy(coin=0.5, military=1.25, culture=0.75, food=2.0, colours=3, focus=1)"
    df = R.four_games().with_columns(pl.when(pl.col("policy_label") == pl.col("policy_label").min())
                                     .then(pl.lit(long_label)).otherwise(pl.col("policy_label")).alias("policy_label"))
    for build, axis in ((sections.winrate, "y"), (sections.breakdown, "x")):
        fig = dict(build(df, {}, ["policy"]).figures)
        ticks = [t.get_text() for f in fig.values() for t in getattr(f.axes[0], f"get_{axis}ticklabels")()]
        wrapped = [t for t in ticks if t.startswith("greedy(coin=0.5,")]
        assert wrapped and all(max(map(len, t.split("\n"))) <= 40 for t in wrapped), ticks


def test_a_trajectory_of_many_groups_draws_the_extremes_each_in_its_own_colour():
    """44 groups (grants x seat) drew 44 lines in 10 cycled colours and a legend taller than the
    figure (matplotlib: "constrained_layout not applied"): it draws the 5 highest and 5 lowest final
    means and says so; the table keeps every group."""
    from hadara_sim.report import sections

    df = pl.concat([R.four_games().with_columns(pl.lit(f"arm{k:02d}").alias("arm"), pl.col("game") + 100 * k,
                                                *[(pl.col(c) + k).cast(pl.Int16) for c in ("total", "total_epoch3")])
                    for k in range(12)])
    section = sections.trajectory(df, {}, ["arm"])
    fig = dict(section.figures)["trajectory"]
    legend = [t.get_text().split(" ")[0] for t in fig.axes[0].get_legend().get_texts()]
    assert legend == [f"arm{k:02d}" for k in (0, 1, 2, 3, 4, 7, 8, 9, 10, 11)]
    assert len({line.get_color() for line in fig.axes[0].get_lines()}) == 10
    footer = fig._supxlabel.get_text()
    assert "10 of 12 groups drawn, the 5 highest and 5 lowest at the end (the table has all)" in footer
    assert any(row[0] == "arm05" for row in section.tables[0].rows)


def test_a_win_rate_or_score_chart_of_many_groups_draws_the_extremes_and_says_so():
    """A card-worth run's 2,616 seats drew a win-rate chart 300 inches tall (31 MB in the summary): a
    chart draws the 15 highest and 15 lowest groups (win share against 1/P; mean total) and says so
    in its footer; the table keeps every group."""
    from hadara_sim.report import sections

    df = pl.concat([R.four_games().with_columns(pl.lit(f"arm{k:02d}").alias("arm"), pl.col("game") + 100 * k,
                                                (pl.col("total") + k).cast(pl.Int16), (pl.col("gold") + k).cast(pl.Int16))
                    for k in range(40)])
    extremes = [f"arm{k:02d}" for k in (*range(15), *range(25, 40))]
    win = sections.winrate(df, {}, ["arm"])
    [fig] = [f for _, f in win.figures]
    assert len(fig.axes[0].get_yticklabels()) == 30 and len(win.tables[0].rows) == 40
    assert "30 of 40 groups drawn, the 15 highest and 15 lowest against the fair share" in fig._supxlabel.get_text()
    score = dict(sections.breakdown(df, {}, ["arm"]).figures)
    for fig in score.values():
        ticks = [t.get_text().split(" ")[0] for t in fig.axes[0].get_xticklabels()]
        assert ticks == extremes, ticks
        assert "30 of 40 groups drawn, the 15 highest and 15 lowest mean totals" in fig._supxlabel.get_text()


def test_a_notebook_s_other_frames_and_folders_are_told_what_to_pass(tmp_path):
    """A pandas frame or scan_results' LazyFrame stopped with AttributeError 'height'; a summary into
    an existing file with FileExistsError; a misspelt curve key without the keys swept."""
    from hadara_sim.report import curve, sections
    from hadara_sim.report.summary import write_summary

    df = R.four_games()
    with pytest.raises(TypeError, match="got a LazyFrame: call .collect\\(\\) on it"):
        sections.winrate(df.lazy(), {}, ["policy"])
    with pytest.raises(TypeError, match="got a DataFrame: polars.from_pandas\\(frame\\) converts it"):
        dataset_info(df.to_pandas())
    (tmp_path / "notes.py").write_text("x = 1\n")
    with pytest.raises(ReportError, match="notes.py is a file: give a folder for summary.html"):
        write_summary(df, {}, tmp_path / "notes.py")
    with pytest.raises(ReportError, match="'players.x' is not swept in this dataset; swept here: nothing"):
        curve.curve(df, "players.x")


def test_the_summary_s_how_to_read_states_the_margin_its_verdicts_used(tmp_path):
    """`report summary --margin 1` judged its tables within ±1 pp while its "How to read" said
    "'fair within ±2 pp' is an equivalence test"; it states the run's margin."""
    from hadara_sim.report.summary import write_summary

    page = write_summary(R.four_games(), {}, tmp_path, margin=0.01).read_text()
    assert "'fair within &plusmn;1 pp' is an equivalence test" in page and "&plusmn;2 pp" not in page


def test_card_worth_of_a_run_without_restricted_play_says_which_run_has_it():
    """restricted_pairs gives None for a run without restricted play, and the notebook passes it on:
    seek_avoid and fair_costs stopped with "'NoneType' object has no attribute 'group_by'"."""
    from hadara_sim.component_files import load_components
    from hadara_sim.report import worth

    df = R.four_games()
    assert worth.restricted_pairs(df) is None
    for measure in (worth.seek_avoid, worth.fair_costs):
        with pytest.raises(ReportError, match="no restricted play .* a run of scenarios/card-worth.toml has it"):
            measure(worth.restricted_pairs(df), load_components())


def test_an_estimate_of_a_column_the_frame_lacks_or_of_text_says_so():
    """mean_ci and paired_diff take any column: a missing one, text, or a group given as one name
    stopped inside polars (ColumnNotFoundError "s" for by="seat")."""
    from hadara_sim.report.estimates import mean_ci

    df = R.four_games()
    assert mean_ci(df, "total", "seat").equals(mean_ci(df, "total", ["seat"]))
    with pytest.raises(ReportError, match="no column 'totl' in the frame \\(did you mean total\\?\\)"):
        mean_ci(df, "totl", ["seat"])
    with pytest.raises(ReportError, match="column 'policy_label' holds String, not numbers"):
        mean_ci(df, "policy_label", ["seat"])
    with pytest.raises(ReportError, match="no column 'group' in the frame"):
        paired_diff(df, "total", "total", ["group"])


def test_a_forest_of_an_experiment_the_dataset_lacks_says_which_run_has_it():
    """grant_effects gives None without a grant sweep; the purple notebook's chart of it stopped with
    "'NoneType' object has no attribute 'to_dicts'"."""
    from hadara_sim.report import charts

    assert grant_effects(R.four_games()) is None
    with pytest.raises(ReportError, match="nothing to draw: the table is None.*purple-effects.toml has one"):
        charts.forest_chart(grant_effects(R.four_games()), str, {}, observational=False)


def test_a_notebook_s_mistakes_in_the_report_functions_get_a_clear_message_before_any_work():
    """Each of these stopped deep inside polars, pathlib, numpy or matplotlib, or gave a silently wrong
    answer (a misspelt p column: every row "undecided"; margin=5 on win shares: every contrast
    "equivalent"; a PDF chart embedded as a PNG; top=-1: "the -1 cards")."""
    from hadara_sim.report import charts, component_sections, estimates, ratings, sections, summary
    from hadara_sim.report.scores import leader_wins

    df = R.four_games()
    table = win_rates(df, ["policy_label"])
    pairs = df.filter(pl.col("seat") == 0).select("game", a="win_share").join(
        df.filter(pl.col("seat") == 1).select("game", b="win_share"), on="game")
    cases = [
        (lambda: V.with_verdicts(table, p="pval"), ReportError, "no column 'pval'"),
        (lambda: V.judge([0.1, 0.2], [0.01], [0.5], [100]), ValueError, "one value per row each"),
        (lambda: V.judge([0.1], [0.01], [0.5], [100], method="x"), ValueError, "method='x': a correction"),
        (lambda: paired_diff(pairs, "a", "b", margin=0), ValueError, "margin=0: an equivalence margin"),
        (lambda: paired_diff(pairs, "a", "b", margin=5), ValueError, "margin=5: a win share's"),
        (lambda: paired_diff(pairs, "a", "b", cluster="deal"), ReportError, "no column 'deal'"),
        (lambda: estimates.mean_ci(df, "win_share", ["seat"], fair="fare"), ReportError, "no column 'fare'"),
        (lambda: estimates.mean_ci(df, None, ["seat"]), TypeError, "a value is a column name"),
        (lambda: estimates.mean_ci(df, "total", None), TypeError, "by is a column name"),
        (lambda: ratings.bradley_terry(df), ReportError, "this takes the pairs of ratings.pairwise"),
        (lambda: ratings.finishing(df.to_pandas()), TypeError, "polars.from_pandas"),
        (lambda: leader_wins(df, epochs=[4]), ReportError, "epochs are the epochs"),
        (lambda: leader_wins(df, epochs=[]), ReportError, "epochs are the epochs"),
        (lambda: win_rates(df, 5), TypeError, "by is a column name or a list"),
        (lambda: charts.winrate_chart(table.head(0), str, {}, "policy"), ReportError, "nothing to draw"),
        (lambda: charts.breakdown_chart(table, ["policy_label"], str, {}, "policy"), ReportError,
         "nothing to draw from a table without part"),
        (lambda: charts.totals_chart(df, ["polcy"], str, {}, "policy"), ReportError, "no column polcy"),
        (lambda: summary.write_summary(df, {}, "x", fmt="pdf"), ReportError, "charts are png or svg"),
        (lambda: summary.write_summary(df, {}, 5), TypeError, "is a path"),
        (lambda: component_sections.cards(df, None, top=-1), ValueError, "top is how many cards"),
        (lambda: sections.overview({}), ReportError, "overview takes the whole info"),
        (lambda: dataset_info(df, 5), TypeError, "meta is a run's metadata.json"),
    ]
    for call, kind, words in cases:
        with pytest.raises(kind, match=words.replace("(", r"\(").replace(".", r"\.")):
            call()
    assert estimates.mean_ci(df, "win_share", ["seat"], fair=0.5)["fair"].to_list() == [0.5, 0.5]
    for info in (None, {}, {"scenario": "mine"}):  # a notebook's info: nothing, or a few keys of its own
        assert sections.winrate(df, info, ["policy"]).tables
    assert "mine" in sections.overview(sections.full_info(df, {"scenario": "mine"})).rows[0]


def test_a_table_by_combination_pools_over_no_swept_key():
    """`report winrate --by combo` (or --by sweep) was titled "(pooled over grants)" though each of its
    rows is one combination; by policy it does pool over the grants."""
    from hadara_sim.report import sections
    from hadara_sim.report.dataset import pooled_over

    combos = [{"index": k, "sweep": {"grants": grant}} for k, grant in enumerate(["none", "sell_bonus"])]
    rows = [dict(game=g, seat=s, players=2, combo=k, win_share=float(s == g % 2), policy_label="p",
                 sweep=json.dumps(combos[k]["sweep"])) for k in range(2) for g in range(4) for s in range(2)]
    df = R.frame(rows, combos)
    assert pooled_over(df, ["policy_label"]) == ["sweep_grants"]
    assert pooled_over(df, ["combo"]) == pooled_over(df, ["sweep"]) == []
    # the cli's --by combination (and --by combo) groups by the combination's name: one combination a row
    named = df.with_columns(pl.col("sweep").alias("combination"))
    assert pooled_over(named, ["combination"]) == []
    assert "pooled" not in sections.winrate(named, {}, ["combination"]).tables[0].title


def test_a_pooled_rate_over_deals_of_unequal_size_has_its_interval_around_it():
    """The share of a statue's carvings made points side up pools deals with one to four carvings: the
    mean of the per-deal shares (rate_interval's centre) left the pooled share outside its own interval
    (33.6 % against [27.3, 30.4])."""
    from hadara_sim.report import inference

    hits, trials = np.array([0, 0, 0, 3, 4, 4] * 20), np.array([1, 1, 1, 4, 4, 4] * 20)
    low, high = inference.ratio_interval(hits, trials)
    pooled = hits.sum() / trials.sum()
    assert low < pooled < high and abs(np.mean(hits / trials) - pooled) > 0.1
    # Deals of equal size: the same interval as the per-deal rates give.
    same = np.array([1, 0, 2, 2, 1, 0, 1, 2] * 10)
    assert inference.ratio_interval(same, np.full(80, 2)) == pytest.approx(inference.rate_interval(same / 2, 160))
    # One deal is one observation, and 0 of n is an interval of positive width.
    assert inference.ratio_interval([3], [4]) == pytest.approx(inference.rate_interval(np.array([0.75]), 1))
    low, high = inference.ratio_interval(np.zeros(50), np.full(50, 3))
    assert low == 0 and 0 < high < 0.05
    # Every interval holds its rate: statsmodels' Wilson bound for 0 of 200 was 1.7e-18, above the rate.
    assert inference.rate_interval(np.zeros(200))[0] == 0 and inference.rate_interval(np.ones(200))[1] == 1
    assert all(np.isnan(inference.ratio_interval([], [])))


def test_a_score_contrast_has_no_share_margin_or_deals_for_one_pp():
    """The score contrasts wrote score_needed in the millions (the deals for a CI of ±0.01 points: ±1 pp
    of a share taken as points) and score_equiv_p (a TOST within ±0.02 points): both are unknown for
    points, the win share's stay."""
    table = grant_effects(R.grant_sweep()[0])
    assert table["score_needed"].is_nan().all() and table["score_equiv_p"].is_nan().all()
    assert table["score_sd"].is_finite().all() and table["win_needed"].drop_nans().len() > 0


def test_paired_diffs_per_card_are_the_librarys_scalar_calls_whichever_way_the_deals_are_averaged():
    """The per-card contrasts of `report cards` (integer keys, a row per deal: the deals are sorted in
    numpy, each row its own deal's mean) are scipy's `ttest_rel` and statsmodels' `ttost_paired` called
    on each card's deals, bit for bit, and the same as a frame whose keys polars groups (text keys) or
    whose deals hold two rows (averaged by polars): the fast path changes no number."""
    from statsmodels.stats.weightstats import ttost_paired
    from hadara_sim.report.estimates import paired_diffs

    rng = np.random.default_rng(5)
    cards, deals = [3, 1, 7], 40  # hand-sized; card 7 has one deal less, rows shuffled
    rows = [dict(card=c, game=g, a=float(rng.integers(0, 2)), b=float(rng.integers(0, 4)) / 3,
                 s=float(rng.integers(100, 160)), t=float(rng.integers(100, 160)))
            for c in cards for g in range(deals - (c == 7))]
    pairs = pl.DataFrame(rows, schema_overrides={"card": pl.Int16}).sample(fraction=1.0, shuffle=True, seed=1)
    contrasts = [("a", "b", "win_", 0.02), ("s", "t", "score_", None)]
    win, score = paired_diffs(pairs, contrasts, ["card"])
    assert win["card"].to_list() == sorted(cards) and win.schema["card"] == pl.Int16
    for r, sc in zip(win.to_dicts(), score.to_dicts()):
        mine = pairs.filter(pl.col("card") == r["card"]).sort("game")
        a, b, s, t = (mine[k].to_numpy() for k in ("a", "b", "s", "t"))
        assert r["n"] == r["rows"] == len(a) == sc["n"]
        res = sps.ttest_rel(a, b)
        low, high = res.confidence_interval(0.95)
        assert (r["win_p"], r["win_low"], r["win_high"]) == (res.pvalue, max(low, -1.0), min(high, 1.0))
        assert r["win_equiv_p"] == ttost_paired(a, b, -0.02, 0.02)[0]
        assert (r["win_a"], r["win_b"], r["win_diff"]) == (a.mean(), b.mean(), (a - b).mean())
        assert r["win_sd"] == (a - b).std(ddof=1)
        res = sps.ttest_rel(s, t)
        assert (sc["score_p"], sc["score_low"], sc["score_high"]) == (res.pvalue, *res.confidence_interval(0.95))
        assert math.isnan(sc["score_equiv_p"]) and math.isnan(sc["score_needed"])
    by_text = paired_diffs(pairs.with_columns(pl.col("card").cast(pl.String)), contrasts, ["card"])
    twice = pl.concat([pairs, pairs])  # two rows a deal, whose mean is the row
    for fast, other in [*zip((win, score), by_text), *zip((win, score), paired_diffs(twice, contrasts, ["card"]))]:
        other = other.with_columns(pl.col("card").cast(pl.Int16))
        if other["rows"][0] != fast["rows"][0]:
            other = other.with_columns(pl.col("rows") // 2)
        assert fast.equals(other), (fast, other)

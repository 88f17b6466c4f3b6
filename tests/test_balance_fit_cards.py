"""`balance fit --card` on a synthetic game whose card worths are planted (no simulator: one rotating
seat seeks and avoids each card on the same deals; seeking wins `slope` x (cost - fair cost) more
often than avoiding): the fit finds the planted costs, names a card no cost in range brings level,
and gives the same set for the same seed; the command's refusals of bad input."""

import json
import shlex

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from hadara_sim.balance import read_overrides
from hadara_sim.balance_fit import CardPlan, card_chart, card_command_line, card_ids, fit_cards
from hadara_sim.balance_fit.cards import design, fit_lines, CardRun
from hadara_sim.balance_fit.plan import digest
from hadara_sim.cli import app
from hadara_sim.component_files import load_components

SLOPE = -0.015  # seek minus avoid per coin of cost: 1.5 pp of win share


def planted(fair: dict[str, dict[int, float]], slope: float = SLOPE):
    """Restricted play of a game of cards alone: per deal, avoiding wins with chance 1/P, seeking with
    1/P + slope x (cost - fair cost at P); half the deals share the avoiding seat's draw (paired deals
    are correlated, as in the real game). The draws come from the seed, the player count and the card,
    so every cost change of one seed plays the same deals."""
    now = {c.id: c.cost for c in load_components(None).cards}

    def play(players, change, seed, games, label):
        frames = []
        for k, card in enumerate(sorted(fair)):
            rng = np.random.default_rng([seed, players, k])
            u, v, same = rng.random(games), rng.random(games), rng.random(games) < 0.5
            worth = slope * (now[card] + change.get(card, 0) - fair[card][players])
            avoid = u < 1 / players
            seek = np.where(same, u, v) < 1 / players + worth
            frames.append(pl.DataFrame({"card_id": card, "game": np.arange(games), "win_seek": seek.astype(float),
                                        "win_avoid": avoid.astype(float)}))
        return pl.concat(frames)

    return play


def plan(**kw) -> CardPlan:
    return CardPlan(**{"cards": ["II-B-02", "II-P-03"], "players": [2, 4], "games": 4000, "points": 6,
                       "confirm_games": 40000, "rounds": 3, "seed": 1} | kw)


def test_the_fit_recovers_the_planted_costs_and_confirms_them():
    # II-B-02 (cost 6) is worth 8 coins at both counts: seeking beats avoiding by 3 pp; II-P-03 (cost 4)
    # is worth 3 at 2 players and 3.4 at 4 players: one coin less brings both within the aim
    result = fit_cards(plan(), planted({"II-B-02": {2: 8, 4: 8}, "II-P-03": {2: 3, 4: 3.4}}))
    assert result.status == "confirmed", result.reason
    assert result.change == {"II-B-02": 2, "II-P-03": -1}
    assert result.overrides == {"cards": {"II-B-02": {"cost": 8}, "II-P-03": {"cost": 3}}}
    assert result.after["fair"].all() and result.after.height == 4
    before = result.before.filter(pl.col("card_id") == "II-B-02")
    assert (before["verdict"] == "stronger").all()           # seeking it beat avoiding it at its printed cost
    assert (before["low"] > 0).all() and (before["high"] > before["low"]).all()


def test_a_card_already_worth_its_price_is_left_alone():
    result = fit_cards(plan(cards=["II-B-02"], rounds=1), planted({"II-B-02": {2: 6, 4: 6}}))
    assert result.change == {} and result.status == "confirmed", result.reason


def test_a_card_no_cost_in_range_brings_level_is_named_as_blocked():
    # II-P-03 would be level at 2 players at cost 0 and at 4 players at cost 9: no one cost serves both
    result = fit_cards(plan(rounds=2, confirm_games=10000),
                       planted({"II-B-02": {2: 8, 4: 8}, "II-P-03": {2: 0, 4: 9}}))
    assert result.status == "blocked", result.reason
    assert "II-P-03 is blocked" in result.reason and "II-B-02 is blocked" not in result.reason
    assert "2 players" in result.reason and "4 players" in result.reason
    assert result.change["II-B-02"] == 2


def test_the_same_seed_gives_the_same_set_and_the_set_reads_back_as_overrides(tmp_path):
    game = planted({"II-B-02": {2: 8, 4: 8}, "II-P-03": {2: 3, 4: 3.4}})
    small = plan(rounds=1, confirm_games=10000, games=2000, points=3)
    first, second = fit_cards(small, game), fit_cards(small, game)
    assert first.change == second.change
    assert first.after.equals(second.after) and first.before.equals(second.before)
    from hadara_sim.balance import fix_text

    path = tmp_path / "fix.toml"
    path.write_text(fix_text(first.overrides, card_command_line(first.plan)))
    assert read_overrides(path) == first.overrides
    assert load_components(None).with_overrides(read_overrides(path)).cards[
        load_components(None).card_index["II-B-02"]].cost == 6 + first.change["II-B-02"]


def test_the_design_moves_each_cost_two_coins_either_way_balanced_and_the_lines_find_the_planted_slope():
    p = plan(points=6)
    now = {"II-B-02": 6, "II-P-03": 4}
    points = design(p, now)
    for card in now:
        levels = sorted(point.get(card, 0) for point in points)
        assert levels == [-2, -2, 0, 0, 2, 2]
    assert design(p, now) == points  # from the seed
    game = planted({"II-B-02": {2: 8, 4: 8}, "II-P-03": {2: 3, 4: 3}})
    runs = [CardRun(4, c, 1, f"x{k}", game(4, c, 1, 20000, "")) for k, c in enumerate([{}] + points)]
    lines = fit_lines(runs, list(now), runs[0])
    for card, line in lines.items():
        assert not line.pooled and line.slope == pytest.approx(SLOPE, abs=0.004)
        assert line.predict(0) == pytest.approx(SLOPE * (now[card] - {"II-B-02": 8, "II-P-03": 3}[card]), abs=0.01)


def test_a_card_whose_cost_does_not_move_its_worth_takes_the_pooled_slope():
    game = planted({"II-B-02": {2: 8, 4: 8}, "II-P-03": {2: 3, 4: 3}})
    flat = planted({"II-Y-05": {2: 0, 4: 0}}, slope=0.0)

    def both(*args):
        return pl.concat([game(*args), flat(*args)])

    now = {"II-B-02": 6, "II-P-03": 4, "II-Y-05": 5}
    points = design(plan(cards=list(now)), now)
    runs = [CardRun(4, c, 1, f"x{k}", both(4, c, 1, 20000, "")) for k, c in enumerate([{}] + points)]
    lines = fit_lines(runs, list(now), runs[0])
    assert lines["II-Y-05"].pooled and lines["II-Y-05"].slope == pytest.approx(SLOPE, abs=0.004)
    assert not lines["II-B-02"].pooled


def test_card_names_expand_and_unknown_ones_are_refused_with_the_nearest():
    components = load_components(None)
    assert card_ids(["II-P"], components) == [f"II-P-{k:02d}" for k in range(1, 15)]
    assert card_ids(["ii-b-02", "II-B-02"], components) == ["II-B-02"]
    with pytest.raises(ValueError, match="did you mean II-B-02"):
        card_ids(["II-B-2"], components)
    with pytest.raises(ValueError, match="ids look like"):
        card_ids(["purple"], components)


def test_the_card_chart_draws_every_card_before_and_after():
    game = planted({"II-B-02": {2: 8, 4: 8}, "II-P-03": {2: 3, 4: 3.4}})
    result = fit_cards(plan(rounds=1, confirm_games=10000), game)
    fig = card_chart(result, {"scenario": "balance fit", "games": 40000})
    assert len(fig.axes) == 2
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["II-B-02*", "II-P-03*"]


def test_card_fit_bad_input():
    runner = CliRunner()
    for args, words in ((["--card", "II-X-99"], "did you mean"),
                        (["--card", "II-B-02", "--side", "3B"], "one kind at a time"),
                        (["--card", "II-B-02", "--values", "coins"], "one kind at a time"),
                        (["--card", "II-B-02", "--resweep", "4"], "--resweep")):
        result = runner.invoke(app, ["balance", "fit", "-p", "4", *args, "--dry-run"])
        assert result.exit_code != 0 and words in result.output, (args, result.output)
        assert "Traceback" not in result.output


def test_the_run_labels_name_the_change_set():
    assert digest({"II-B-02": 2}) != digest({"II-B-02": -2})


def test_the_command_plays_a_card_fit_and_writes_its_set_chart_and_runs(tmp_path):
    """The real game on a tiny budget: the command runs end to end, its fix.toml reads back as overrides
    and names the command that made it, and a rerun resumes from the runs written (nothing played)."""
    out = tmp_path / "costs"
    args = ["balance", "fit", "-p", "2", "--card", "II-Y-05", "--games", "30", "--points", "3", "--confirm-games", "60",
            "--rounds", "1", "--jobs", "1", "--out", str(out)]
    first = CliRunner().invoke(app, args)
    assert first.exit_code == 0, first.output
    assert "Before and after: seek - avoid" in first.output and "Traceback" not in first.output
    fix = (out / "fix.toml").read_text()
    assert fix.startswith("# hadara-sim balance fit -p 2 --policy balanced --card II-Y-05 --games 30")
    read_overrides(out / "fix.toml")
    assert (out / "fit.png").stat().st_size > 0
    runs = sorted(p.name for p in (out / "runs").iterdir())
    assert runs[0].startswith("p2-cards-before") and any(r.startswith("p2-cards-design-3") for r in runs)
    written = {p: p.stat().st_mtime_ns for p in (out / "runs").rglob("*.parquet")}
    again = CliRunner().invoke(app, args)
    # its tables and words alike; the progress above them says more where a loaded machine made the first slow
    def results(output):
        return output[output.index("The new costs"):output.index("games; took")]
    assert again.exit_code == 0 and results(again.output) == results(first.output)
    assert written and {p: p.stat().st_mtime_ns for p in (out / "runs").rglob("*.parquet")} == written
    # the command fix.toml names resumes too: it lacked --out, and played every run again into none
    named = shlex.split(fix.splitlines()[0].removeprefix("# "))
    assert named[-2:] == ["--out", str(out)]
    rerun = CliRunner().invoke(app, [*named[1:], "--jobs", "1"])
    assert rerun.exit_code == 0 and rerun.output.split("games; took")[0] == first.output.split("games; took")[0]
    assert {p: p.stat().st_mtime_ns for p in (out / "runs").rglob("*.parquet")} == written


def test_on_a_null_where_every_card_is_worth_its_price_the_fit_changes_nothing():
    """Six cards each level at its printed cost, three seeds: no cost moves and every set confirms (the
    proposer's aim of ±1 pp is not crossed by the anchored lines' noise at 20,000 deals; 20 seeds of ten
    cards, tried by hand, changed nothing either)."""
    now = {c.id: c.cost for c in load_components(None).cards}
    cards = ["II-B-06", "II-G-03", "II-P-03", "II-R-01", "II-Y-05", "II-Y-08"]
    game = planted({c: {2: now[c], 4: now[c]} for c in cards})
    for seed in range(1, 4):
        result = fit_cards(plan(cards=cards, rounds=1, confirm_games=20000, games=2000, points=3, seed=seed), game)
        assert result.change == {} and result.status == "confirmed", (seed, result.reason)


def test_balance_check_judges_cards_on_a_set_of_new_costs(tmp_path):
    fix = tmp_path / "fix.toml"
    fix.write_text('[components.cards."II-Y-05"]\ncost = 4\n')
    result = CliRunner().invoke(app, ["balance", "check", "-p", "2", "--card", "II-Y-05", "--card", "II-B-06", "-n", "40",
                                      "--overrides", str(fix), "--jobs", "1", "--format", "json"])
    assert result.exit_code == 0, result.output
    table = json.loads(result.output[result.output.index("{"):result.output.rindex("}") + 1])["tables"][0]
    assert "with II-Y-05 cost 4" in table["title"] and "against 0 (worth its price)" in table["caption"]
    assert [r["card_id"] for r in table["data"]] == ["II-B-06", "II-Y-05"] and all(r["n"] == 40 for r in table["data"])
    bad = CliRunner().invoke(app, ["balance", "check", "--card", "II-Q-05", "--dry-run"])
    assert bad.exit_code != 0 and "did you mean" in bad.output and "Traceback" not in bad.output


def test_a_card_plan_from_python_takes_the_names_the_command_line_takes():
    """CardPlan(cards=["II-P"]) stopped deep in the fit with KeyError 'II-P' (only --card resolved
    names), and FitPlan(players=4) with "'int' object is not iterable"."""
    from hadara_sim.balance_fit import FitPlan

    plan = CardPlan(cards="ii-b-02", players=4)
    assert plan.cards == ["II-B-02"] and plan.players == [4]
    assert CardPlan(cards=["II-P"]).cards == [f"II-P-{k:02d}" for k in range(1, 15)]
    with pytest.raises(ValueError, match="no card of the component set is 'II-Z-99'.*did you mean"):
        CardPlan(cards=["II-Z-99"])
    assert FitPlan(players=4).players == [4]


def test_the_difference_observed_at_the_last_set_does_not_depend_on_the_order_of_the_pairs():
    """A line's anchor is the mean seek - avoid of a card's pairs, which come out of a join in no fixed
    order: a polars group_by summed them in that order (and its threads'), so that the same runs
    anchored their lines at other last bits."""
    rng = np.random.default_rng(6)
    n = 20000
    pairs = pl.DataFrame({"card_id": np.where(np.arange(n) % 2, "II-B-02", "II-P-03"), "game": np.arange(n) // 2,
                          "win_seek": rng.random(n), "win_avoid": rng.random(n)})
    anchors = set()
    for seed in range(4):
        run = CardRun(4, {}, 1, "x", pairs.sample(fraction=1.0, shuffle=True, seed=seed) if seed else pairs)
        anchors.add(tuple(line.at for line in fit_lines([run], ["II-B-02", "II-P-03"], run).values()))
    assert len(anchors) == 1


def test_a_lines_slope_does_not_depend_on_the_order_of_the_pairs():
    """The slope is least squares over a card's pairs of every run, which come out of joins in no fixed
    order: summed in that order, the same runs gave slopes that differed in their last bits."""
    game = planted({"II-B-02": {2: 8, 4: 8}, "II-P-03": {2: 3, 4: 3}})
    now = {"II-B-02": 6, "II-P-03": 4}
    points = design(plan(points=6), now)
    runs = [CardRun(4, c, 1, f"x{k}", game(4, c, 1, 3000, "")) for k, c in enumerate([{}] + points)]
    slopes = set()
    for seed in range(4):
        shuffled = [CardRun(r.players, r.change, r.seed, r.label,
                            r.pairs.sample(fraction=1.0, shuffle=True, seed=seed + k) if seed else r.pairs)
                    for k, r in enumerate(runs)]
        slopes.add(tuple(line.slope for line in fit_lines(shuffled, list(now), shuffled[0]).values()))
    assert len(slopes) == 1

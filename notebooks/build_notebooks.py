"""Write the notebooks of this folder (without outputs) from the cells below.

    .venv/bin/python notebooks/build_notebooks.py

Edit the cells here rather than in Jupyter, so that the committed notebooks stay output-free and
reviewable; the test suite executes them (tests/test_notebooks.py).
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).parent

SETUP = '''\
%matplotlib inline
import os
from pathlib import Path

import polars as pl
import polars.selectors as cs
from IPython.display import display

from hadara_sim import load_scenario, simulate  # a shipped scenario by its name, from any folder
from hadara_sim.report import charts
from hadara_sim.report.dataset import dataset_info
from hadara_sim.report.table import UNIT_OF

GAMES = int(os.environ.get("HADARA_NOTEBOOK_GAMES", "{default}"))
pl.Config.set_tbl_rows(40)
pl.Config.set_tbl_cols(20)
print(f"{{GAMES}} games per combination (set HADARA_NOTEBOOK_GAMES to change)")


def rounded(frame, digits=3):
    """A DataFrame for reading: win shares in percent and their differences in percentage points, each
    with its interval (1 decimal; the units `hadara-sim report` gives each column, `UNIT_OF`), other
    decimals rounded. The frames of `hadara_sim.report` keep fractions; this is only how they are shown."""
    shares = [c for c in frame.columns if UNIT_OF.get(c) in ("%", "pp") and frame.schema[c].is_float()]
    return frame.with_columns(*[(pl.col(c) * 100).round(1) for c in shares],
                              cs.float().exclude(shares).round(digits))'''


def md(text: str):
    return new_markdown_cell(text.strip("\n"))


def code(text: str):
    return new_code_cell(text.strip("\n"))


QUICKSTART = [
    md("""
# Quickstart: simulate, load, plot

This notebook plays a small batch of Hadara games from Python, looks at the results with
[polars](https://pola.rs), and plots them, first by hand and then with the report functions that
`hadara-sim report` uses.

It plays `HADARA_NOTEBOOK_GAMES` games (default 4,000: well under a minute on two cores). Set the
variable before starting Jupyter for a larger or smaller run.
"""),
    code(SETUP.format(default=4000)),
    md("""
## 1. Simulate a scenario

A **scenario** (a TOML file in `scenarios/`) says who plays, how many players, which game, and
how many games. `scenarios/default.toml` seats four built-in styles at a 4-player basic game and
rotates the seats, so that each policy plays each seat equally often.

`simulate` plays it and returns a polars DataFrame; `games=` and `seed=` override the scenario's.
Without `out=` nothing is written to disk.
"""),
    code('''
scenario = load_scenario("default")
print(scenario.name, "-", scenario.description)
df = simulate(scenario, games=GAMES, seed=1)
df.shape'''),
    md("""
## 2. The results table

One row per game and seat. `game` is the deal number, `win_share` is 1 for a sole winner and 1/k
for each of k tied winners, and the score sheet columns (`colonies`, `statues`, `silver`, `gold`,
`cards`, `coins`) add up to `total`. Every column is described in `docs/results.md`.
"""),
    code('''
df.select("game", "seat", "policy_label", "setup_card", "colonies", "statues", "silver", "gold",
          "cards", "coins", "total", "rank", "win_share").head(8)'''),
    md("""
Plain polars answers simple questions. The mean win share per policy:
"""),
    code('''
(df.group_by("policy_label")
   .agg(games=pl.len(), win_share=pl.col("win_share").mean(), mean_total=pl.col("total").mean())
   .sort("win_share", descending=True))'''),
    md("""
## 3. With error bars

A mean from a few thousand games is still noisy. `hadara_sim.report` gives every estimate (here
`wins.win_rates`) with its sample size `n` (deals) and a 95% confidence interval (`ci_low`, `ci_high`), and tests
each win share against the fair share 1/P (`p`). These are the numbers behind
`hadara-sim report winrate`.
"""),
    code('''
from hadara_sim.report.wins import win_rates

wins = win_rates(df, ["policy_label"])
rounded(wins)'''),
    md("""
`rounded` shows win shares in percent, as the command line does; the frame itself keeps fractions
for computing. The table `hadara-sim report winrate` prints is there too, formatted the same way:
"""),
    code('''
from hadara_sim.report import sections

info = dataset_info(df, {"scenario": {"name": scenario.name}})
sections.winrate(df, info, ["policy_label"]).tables[0]'''),
    md("""
## 4. Plot

By hand with matplotlib: the distribution of final scores per policy.
"""),
    code('''
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(8, 4))
for name, group in df.group_by("policy_label", maintain_order=True):
    ax.hist(group["total"].to_numpy(), bins=40, histtype="step", lw=1.5,
            label=f"{name[0]} (n={group.height:,})")
ax.set_xlabel("final score (points)")
ax.set_ylabel("seats")
ax.set_title(f"Final scores by policy, scenario '{scenario.name}'")
ax.legend()
plt.show()'''),
    md("""
The report charts take the estimates and a small `info` dict (scenario name and sample size, for
the title and footer):
"""),
    code('''
label = lambda row: row["policy_label"]
display(charts.winrate_chart(wins, label, info, "policy"))'''),
    md("""
## 5. Save a dataset and write the HTML summary

With `out=`, `simulate` also writes a results directory (Parquet files plus `metadata.json`), the
same as `hadara-sim simulate scenarios/default.toml --out DIR`. `write_summary` writes the report
that `hadara-sim report summary DIR` writes. Here both go to a temporary folder.
"""),
    code('''
import tempfile

from hadara_sim.report.dataset import load_dataset
from hadara_sim.report.summary import write_summary

folder = Path(tempfile.mkdtemp(prefix="hadara-quickstart-"))
simulate(scenario, games=GAMES, seed=1, out=folder / "default")
saved, saved_info = load_dataset(folder / "default")
path = write_summary(saved, saved_info, folder / "report")
print(f"{saved.height:,} rows; summary report: {path} ({path.stat().st_size / 1024:,.0f} KiB)")'''),
    md("""
From here: `notebooks/setup-card-balance.ipynb` and `notebooks/purple-effects.ipynb` answer two
balance questions with designed experiments, and `docs/reports.md` explains every report.
"""),
]


SETUP_CARDS = [
    md("""
# Setup-card balance

**Question:** does the setup card you are dealt (initiative 1-5, side A or B) change your chances?
A fair card wins 1/P of the games at P players.

**Design:** `scenarios/setup-cards.toml` is a *setup grid*. The focus seat is given each card on
each side in turn, at 2, 3, 4 and 5 players, advanced game, with the `balanced` policy on every
seat. The focus seat rotates with the deal (game number mod players), so every seat is the focus
equally often. Every combination plays the same deals (common random numbers): only the focus
seat's card and side change. That makes the comparison experimental, and lets us pair the
combinations deal by deal.

**Against 1/P, and against the average side.** Each cell's verdict is against the fair share 1/P,
as in `hadara-sim report setup-cards`. Averaged over every card the focus seat wins less than 1/P
(4-6 pp under `balanced`): the other seats choose their sides while the focus seat's is forced. So
each cell is also compared, as a relative contrast, with the mean of all cells *on the same deal and
seat* (the grid mean, "the average side": `rel_diff`).

The notebook plays `HADARA_NOTEBOOK_GAMES` deals per combination (default 1,000; 40 combinations,
so 40,000 games and about a minute on two cores, and as many again at 2 players under four fields in
section 4). That is enough to see large effects;
for the real study run `hadara-sim simulate scenarios/setup-cards.toml --games 17000` (a 95% CI of
±1 pp per paired contrast) and `hadara-sim report setup-cards results/setup-cards`.
"""),
    code(SETUP.format(default=1000)),
    code('''
scenario = load_scenario("setup-cards")
print(scenario.description)
print(len(scenario.combinations), "combinations, e.g.", [c.sweep for c in scenario.combinations[:3]])
df = simulate(scenario, games=GAMES)
info = dataset_info(df, {"scenario": {"name": scenario.name}})
print(f"{info['games']:,} games, {df.height:,} rows")'''),
    md("""
## 1. Win share and score per card and side

`setup.setup_card_balance` keeps the focus seat's rows and estimates, per player count, card and
side:

- `win`: the mean win share, with `win_low`/`win_high` its 95% Wilson interval, `n` deals;
- `diff` (`diff_low`, `diff_high`): the win share minus the fair share 1/P (the focus seat rotates
  over the seats, so seat effects cancel), its score test (`p`), and `q` the Benjamini-Hochberg
  adjusted p-value over the whole table (with 40 cells, a few raw p < 0.05 are expected by chance);
- `verdict`: "stronger"/"weaker" than 1/P (q < 0.05), "fair within ±2 pp" (an equivalence test,
  TOST, Holm-corrected over the table: at most a 5 % chance of even one wrong "fair" in it) or
  "undecided" (neither: more games needed; `more` says about how many more deals);
- `rel_diff` (`rel_low`, `rel_high`, `rel_verdict`): a relative contrast, the cell minus the average
  side (the mean of every cell on the same deal and seat), paired; that average sits below 1/P
  because the other seats choose their sides, so "above the average side" is not "too strong";
- `needed`: the deals a 95% CI of ±1 pp would need;
- `score`: the mean final score.
"""),
    code('''
from hadara_sim.report.setup import setup_card_balance, setup_rows

bal = setup_card_balance(df)
rounded(bal).select("players", "setup_card", "setup_side", "n", "win", "win_low", "win_high", "diff", "diff_low",
                    "diff_high", "q", "verdict", "rel_diff", "rel_verdict", "needed", "score")'''),
    code('''
display(charts.setup_chart(bal, info))'''),
    md("""
Cells whose interval lies wholly above or below the fair share (the dashed line at 1/P), and that
survive the adjustment, are drawn as stars. The same table in the terminal: `hadara-sim report setup-cards
results/setup-cards`.

## 2. Side B against side A, deal by deal

Because every combination plays the same deals, side B and side A of one card can be compared on
identical deals: the paired difference removes the luck of the deal, so it needs far fewer games
than comparing two independent means. `estimates.paired_diff` averages the pairs of each deal and runs
`scipy.stats.ttest_rel` over deals; `setup.setup_side_contrasts` and `setup.setup_card_contrasts`
make the B-A and card-against-card tables of the report. By hand, for the win share and the score:
"""),
    code('''
from hadara_sim.report.estimates import paired_diff

focus, design = setup_rows(df)
keys = ["players", "setup_card", "game"]
side_a = focus.filter(pl.col("setup_side") == "A").select(*keys, win_a=pl.col("win_share"), total_a=pl.col("total"))
side_b = focus.filter(pl.col("setup_side") == "B").select(*keys, win_b=pl.col("win_share"), total_b=pl.col("total"))
pairs = side_b.join(side_a, on=keys)
b_vs_a = (paired_diff(pairs, "win_b", "win_a", ["players", "setup_card"], prefix="win_")
          .join(paired_diff(pairs, "total_b", "total_a", ["players", "setup_card"], prefix="score_")
                .drop("n", "rows"), on=["players", "setup_card"]))
print(design, "design;", pairs.height, "pairs")
rounded(b_vs_a).select("players", "setup_card", "n", "win_diff", "win_low", "win_high", "win_p",
              "score_diff", "score_low", "score_high")'''),
    md("""
`win_diff` > 0 means side B won more often than side A for that card (in percentage points, as
are all win shares shown here), `score_diff` is in points. An interval that excludes 0 is a difference at the 5% level.

## 3. Reading the result

- A cell far from the fair share at every player count is a balance problem of the card; one that
  moves with the player count (initiative decides the first player, and turn order matters more
  with fewer players) is an interaction with the table size.
- "Not significant" is not "fair": only the equivalence verdict says a card is fair within ±2 pp.
- These results hold for the `balanced` policy on every seat. Stronger or different play can
  change them: section 4 plays the same question under stronger fields.
- The component values are a reconstruction (see `docs/components.md`): with the printed values,
  pass `--components` (or `components =` in the scenario) and rerun.

## 4. Do the verdicts hold as the bots get stronger?

Every verdict above is the `balanced` field's. `scenarios/setup-cards-ladder.toml` plays the 2-player
grid under a *ladder* of fields on the same deals, weakest first by the round robin's ratings:
`balanced-v1` < `balanced` < `foresight` < `expert`. `component_sections.setup_cards` is what
`hadara-sim report setup-cards` prints: with three fields or more it reads them as a ladder and asks of
each side B - A whether its last step, from the second-strongest field to the strongest, is
equivalent to zero within ±2 pp (**settled**), differs from zero (**still moving**: a stronger field
might move the verdict again) or neither (**undecided**, with about how many more deals would tell).
`Table.machine()` gives a table's numbers with the unit in each column's name (`_pp`: percentage
points).
"""),
    code('''
from hadara_sim.report.component_sections import setup_cards

ladder = load_scenario("setup-cards-ladder")
ladder_df = simulate(ladder, games=GAMES)
ladder_info = dataset_info(ladder_df, {"scenario": {"name": ladder.name}})
section = setup_cards(ladder_df, ladder_info)
steps = next(t for t in section.tables if t.title.startswith("Does each effect settle") and "Side B" in t.title)
print(steps.title)
steps.machine().select("players", "setup_card", cs.starts_with("effect_pp"), cs.starts_with("difference_pp expert"),
                       cs.starts_with("low_pp expert"), cs.starts_with("high_pp expert"), "robust", "more")'''),
    code('''
display(dict(section.figures)["setup-sides-ladder"])'''),
    md("""
A line that is flat over the last two fields has settled: the side's edge is a property of the card
among good players, not of one bot. At 2 players every card's B - A settles between `foresight` and
`expert` at 48,000 deals; at 4 players (`setup-cards-ladder-4p`) cards 1 and 3 settle, 2 and 5 still move
by under 2 pp and card 4's halves under the expert (docs/policies.md, "Setup verdicts along the strength ladder"). A few hundred deals per cell, as here, decide
little: the real study is `hadara-sim simulate scenarios/setup-cards-ladder.toml --games 12000` and
`hadara-sim report setup-cards results/setup-cards-ladder`.
"""),
]


PURPLE = [
    md("""
# Purple effects: what is each card worth?

**Question:** how much does each purple effect card add to a player's chances and score?

**Design (experiment):** `scenarios/purple-effects.toml` sweeps over `grants`. In each combination
one seat, rotating with the deal (game number mod players), is *given* one purple card (free) at
the start of its epoch; the combination `"none"` is the control. The granted card is kept out of
that combination's decks and every other card keeps its place, so all 43 combinations play the
same deals but for the granted card (common random numbers). For each card, each deal gives one
pair: the seat with the card against the same seat without it, same deal, same opponents. The
paired difference is the card's causal effect, for these policies.

A granted card is also *one more purple card* (sets for gold medals, the purple discount, its
points), and that alone is worth a lot. So the sweep also grants every **plain purple card**
(no effect) of each epoch, by card id: the placebos. Comparing an effect card with the mean of the
plain cards of its epoch, deal by deal, asks whether the effect card beats a typical plain purple
card (section 2); the spread among the plain cards shows how much a plain card's own tracks and
points matter.

**Contrast (observational):** in ordinary games, players who end up owning an effect can be
compared with those who do not. That difference mixes the card's value with *why* it was taken and
kept, so it is not the card's effect. Section 3 shows both side by side.

The notebook plays `HADARA_NOTEBOOK_GAMES` deals per combination (default 800: 34,400 3-player
advanced games, about a minute on two cores). For the real study: `hadara-sim simulate
scenarios/purple-effects.toml` then `hadara-sim report purple results/purple-effects`.
"""),
    code(SETUP.format(default=800)),
    code('''
scenario = load_scenario("purple-effects")
print(scenario.description)
print("grants swept:", scenario.sweep["grants"])
df = simulate(scenario, games=GAMES)
info = dataset_info(df, {"scenario": {"name": scenario.name}})
print(f"{info['games']:,} games on {info['deals']:,} deals")'''),
    md("""
## 1. The paired differences

`grants.grant_effects` pairs every granted seat with the same seat on the same deal (`game`) in the
control, and runs `scipy.stats.ttest_rel` over deals: `win_diff` (win share, granted minus
control) and `score_diff` (points), each with its 95% interval and p-value, `n` deals.
"""),
    code('''
from hadara_sim.report.grants import grant_effects, owner_effects, placebo_effects, placebo_spread

grants = grant_effects(df)
rounded(grants).select("grant", "epoch", "n", "win_a", "win_b", "win_diff", "win_low", "win_high", "win_p",
              "score_diff", "score_low", "score_high")'''),
    code('''
label = lambda row: row["grant"]
display(charts.forest_chart(grants, label, info, observational=False))'''),
    md("""
## 2. Against a plain purple card of the same epoch

`grants.placebo_effects` pairs each effect grant with the mean of the plain purple cards of its epoch,
on the same deal and seat, and lists the grants it refuses as placebos (anything but a plain purple
card granted in its own epoch). Both are one more purple card, so the difference is the effect card
against a typical plain purple card. `grants.placebo_spread` shows each plain card against that mean.
"""),
    code('''
alone, refused = placebo_effects(df)
print("refused as placebos:", refused or "none")
rounded(alone).select("grant", "control", "n", "win_diff", "win_low", "win_high", "win_q", "win_verdict",
                      "score_diff")'''),
    code('''
rounded(placebo_spread(df)).select("grant", "epoch", "n", "win_diff", "win_low", "win_high", "score_diff")'''),
    md("""
## 3. The same test by hand, for one effect

The library does nothing more than this: join the granted seat's rows to the control's on deal
and seat, then a paired t-test.
"""),
    code('''
from scipy import stats as sps

effect = alone["grant"][0]
treated = df.filter((pl.col("sweep_grants") == effect) & pl.col("granted").is_not_null())
control = df.filter(pl.col("sweep_grants") == "none").select("game", "seat", control_total=pl.col("total"))
pairs = treated.select("game", "seat", "total").join(control, on=["game", "seat"])
test = sps.ttest_rel(pairs["total"].to_numpy(), pairs["control_total"].to_numpy())
ci = test.confidence_interval(0.95)
print(f"{effect}: {pairs.height} pairs, score difference "
      f"{(pairs['total'] - pairs['control_total']).mean():+.2f} points, 95% CI [{ci.low:+.2f}, {ci.high:+.2f}]")
print("library:", grants.filter(pl.col("grant") == effect)
      .select("score_diff", "score_low", "score_high").row(0))'''),
    md("""
## 4. Experimental vs observational

Now ordinary games without grants: the default scenario (basic game, four styles). Here
`grants.owner_effects` compares each owner of an effect at the end of the game with the other
seats of the same game. It is **observational**: owners chose the card, and kept it through
feeding, because it suited their game.
"""),
    code('''
plain = simulate("default", games=GAMES, seed=3)
owners = owner_effects(plain)
rounded(owners).select("effect", "n", "owned", "win_diff", "win_low", "win_high", "score_diff", "score_low", "score_high")'''),
    code('''
compare = (grants.select(effect=pl.col("grant"), experiment=pl.col("score_diff"),
                         experiment_n=pl.col("n"))
           .join(owners.select("effect", observational=pl.col("score_diff"), observational_n=pl.col("n")),
                 on="effect", how="inner"))
rounded(compare, 2)'''),
    md("""
Where the two columns disagree, the observational number is telling you about the players who
take the card (or the games in which it is taken), not about the card. Note also that the
experiment is advanced-game, 3 players, card given at the start of its epoch for free, while the
observational run is basic-game, cards bought during play: the questions differ as well.

## 5. Reading the result

- Win shares are shown in percent and `win_diff` in percentage points; a fair 3-player seat wins 33.3%.
- An interval that excludes 0 is an effect at the 5% level; with 18 effects, about one may do so
  by chance alone: the report marks only rows that survive the Benjamini-Hochberg correction
  (`win_q` < 0.05) and says "fair within ±2 pp" only when an equivalence test shows it.
- A free card is worth more than a bought one: the experiment measures the card's value, not the
  value of the decision to buy it at its price.
"""),
]


BALANCE_FIX = [
    md("""
# A balance fix, end to end

**Question:** a setup card side wins more (or less) than its fair share 1/P. How much of one of
its values (coins or one track) should change so that it is fair, and how sure are we?

**Design:** the advanced game at 4 players, the `balanced` policy on every seat, setup cards dealt
and every seat's side drawn at random, so each card side lands on a random seat.

1. A *baseline* run judges every card side with an equivalence test (TOST): is its win share
   within ±2 percentage points of 1/P?
2. `scenarios/balance-fix.toml` overrides nothing but **sweeps one value** of an unfair side,
   `"components.setup.{card}.{field}"`, on the same deals for every value; the curve of win share
   against the value, fitted with a cluster-robust logistic GLM, crosses fair at the fair value.
3. The nearest whole value is checked against the margin, and played as an override to confirm.

`hadara-sim balance suggest` does all of it for every unfair side and every value at once (see
`docs/reports.md`). This notebook plays `HADARA_NOTEBOOK_GAMES` games per combination (default
2,000, about a minute on two cores); a curve gets at least 400 deals per value, so that even a
tiny run fits.
""".replace("{card}", "5B").replace("{field}", "military")),
    code(SETUP.format(default=2000)),
    code('''
from hadara_sim import balance
from hadara_sim.report import curve as C

CARD, FIELD = "5B", "military"
KEY = f"components.setup.{CARD}.{FIELD}"
CURVE_GAMES = max(GAMES, 400)
plan = balance.Plan(players=4, games=GAMES, curve_games=CURVE_GAMES, margin=0.02, seed=1)'''),
    md("""
## 1. The baseline: which sides are fair?

`balance.sides_fairness` takes one value per deal for each card side (the win share of the seat
that holds it) and reports its mean with a 95% CI and the TOST p-value for "within ±margin of
1/P". `fair` is true when TOST rejects "not equivalent" at 5%. A side is *not fair* either because
it differs, or because there are too few deals to tell: a small run calls most sides not fair.
"""),
    code('''
base = simulate(balance.scenario(plan, plan.games))
sides = balance.sides_fairness(base, plan.margin)
rounded(pl.DataFrame([s.record() for s in sides]))'''),
    md("""
## 2. The curve of one value

`scenarios/balance-fix.toml` sweeps the starting military of setup card 5B (the change
`hadara-sim balance suggest` proposes for it, see section 4). Every value is played on the
same deals, so the differences between values are paired: the luck of the deal cancels.
`curve` keeps the rows of the seat holding 5B, gives per value the win share and the score
margin (the seat's total minus the mean of the other seats) with 95% CIs and the paired
difference to the smallest value, and fits both against the value.
"""),
    code('''
scenario = load_scenario("balance-fix")
print(scenario.description)
print(scenario.sweep)
df = simulate(scenario, games=CURVE_GAMES)
c = C.curve(df, KEY)
info = dataset_info(df, {"scenario": {"name": scenario.name}})
rounded(c.points.select("value", "n", "win", "win_low", "win_high", "win_diff", "win_diff_low",
                        "win_diff_high", "margin", "margin_low", "margin_high"))'''),
    code('''
print("win share = 1/P at", C.describe(c.win))
print("score margin = 0 at", C.describe(c.score))
display(C.chart(c, info))'''),
    md("""
## 3. The fix and its check

The crossing is a real number; a card prints whole numbers. `balance.candidate` takes the whole
value nearest the crossing whose fitted win share has its 90% CI inside 1/P ± margin (the TOST
criterion on the fit). Then the fix is played as an override, `[components.setup."5B"]`, on new
deals, and judged like the baseline.
"""),
    code('''
card = scenario.components.setup_cards[(5, "B")]
current = dict(zip(["income", "military", "culture", "food"], card.values))[FIELD]
fix = balance.candidate(FIELD, current, sorted(scenario.sweep[KEY]), c, plan.margin, plan.curve_games)
print(f"{CARD} {FIELD}: {fix.current} -> {fix.value}; fitted win share {fix.win:.3f} "
      f"(90% CI {fix.low:.3f} to {fix.high:.3f}); fair within the margin: {fix.fair}. {fix.note}")'''),
    code('''
if fix.value is None:  # a small run: the fitted slope is not significant, so there is no crossing to round
    print(f"no value to check at {CURVE_GAMES} deals per value: run more games (HADARA_NOTEBOOK_GAMES)")
else:
    fixed = balance.scenario(plan, CURVE_GAMES) | {"seed": 2, "components": {"setup": {CARD: {FIELD: fix.value}}}}
    after = simulate(fixed)
    check = [s for s in balance.sides_fairness(after, plan.margin) if s.name == CARD]
    display(rounded(pl.DataFrame([s.record() for s in check])))'''),
    md("""
## 4. Every side at once

    hadara-sim balance suggest --players 4 --games 20000 --curve-games 8000 --out results/balance

plays the baseline and, for each side that is not fair, the curve of its coins and of each track,
and proposes the change with the smallest worth (`coins + 2.5 x income + military + culture +
food`). `results/balance/fix.toml` holds the suggested overrides, ready to paste into a scenario;
the curve charts of every candidate are saved next to it as the evidence.

On the shipped set, with 20,000 baseline games and 8,000 deals per swept value, it found 9 of the
10 sides not fair at 4 players (only 4A is) and proposed for 5B `military 2 -> 3` (fair at 2.76,
95% CI 2.40 to 3.13); `hadara-sim balance check --overrides fix.toml --seed 2` plays the fixes on
new deals.

These numbers hold for the `balanced` policy on every seat, and for the reconstructed component
values (`docs/components.md`); a fix for human play needs the same check with other policies.
"""),
    md("""
## 5. One set for every side and player count: `balance fit`

`suggest` judges each side alone, but the sides share deals and opponents: weakening 3B moves every
other side's share. `balance_fit.fit` treats the set as a whole. It plays a designed sweep (every
changeable value moved by -1, 0 or +1 step at a dozen design points, on common deals), fits per
player count a softmax model of the winner (the seat holding a side wins with the softmax of the
seats' strengths, each side's strength linear in its changes, with squares and products, and its
response to the other seats' changes, only where the data demand them), proposes the change set with the fewest changed values and then the smallest
worth whose predicted shares are fair at every player count, plays it on fresh deals (TOST against
1/P, Holm over every side and player count), fits again with those games, anchored to the shares the
set just played (the model gives the step, the games the level), and stops when the set is
confirmed or a side is blocked (no value in range, or too few deals). The command line:

    hadara-sim balance fit -p 2 -p 3 -p 4 --games 4000 --confirm-games 50000 --out results/fit

Here a small walk-through: 5B's military and coins at 4 players, on a budget far too small to
confirm anything (the verdicts say how many more deals would decide them).
"""),
    code('''
from hadara_sim import balance_fit

fit_plan = balance_fit.FitPlan(sides=["5B"], fields=["military", "coins"], players=[4], games=max(GAMES, 300),
                               points=3, confirm_games=max(GAMES, 800), rounds=1, seed=1)
result = balance_fit.fit(fit_plan)
print(f"{result.status}: {result.reason}; {result.games:,} games")
display(balance_fit.change_table(result))
rounded(balance_fit.before_after(result))'''),
    code('''
display(balance_fit.chart(result, {"scenario": "balance fit, balanced on every seat",
                                   "games": fit_plan.confirm_games}))'''),
]


CARD_WORTH = [
    md("""
# What is a card worth at its price?

**Question:** which civilization cards are overpriced at 4 players, and what should they cost?

**Design:** restricted play (Jaffe et al., "Evaluating competitive game balance with restricted
play", AIIDE 2012). `scenarios/card-worth.toml` plays every epoch II card twice on the same
deals: once with one seat *seeking* it (its policy buys the card whenever it is offered and it can
pay) and once *avoiding* it (it never buys it: drawn or picked, the card is discarded or sold).
The seat rotates with the deal, every other seat plays `balanced` unchanged. Seek minus avoid,
paired on the deal and seat, is what buying the card when one can is worth **at its price**: a
free grant (`scenarios/card-grants.toml`) measures only what the card holds.

Each card is also played at its printed cost and 2 coins either side (`restrict.cost`, for every
seat). Seek minus avoid falls as the price rises; the **fair cost** is where the fitted line meets
zero, with its 95% CI (the cluster-robust fit and delta-method crossing of `report curve`).

This notebook plays the 4-player half with `HADARA_NOTEBOOK_GAMES` games per combination (default
600: 327 combinations, about 200,000 games, two to three minutes on two cores).
"""),
    code(SETUP.format(default=600)),
    code('''
import tomllib

from hadara_sim import load_components
from hadara_sim.report import worth as W

data = tomllib.loads(load_scenario("card-worth").text)  # a shipped scenario, from any folder
data["sweep"]["players"] = [4]  # the 4-player half
print(data["description"])
df = simulate(data, games=GAMES)
components = load_components()
info = dataset_info(df, {"scenario": {"name": data["name"]}})'''),
    md("""
## 1. Seek minus avoid at the printed price

`restricted_pairs` puts each seeking seat beside the same seat of the same deal avoiding the
card; `seek_avoid` gives per card and cost the paired difference of win share with its 95% CI and
a verdict (Benjamini-Hochberg for "differs", TOST within ±2 pp for "fair"). Above zero, buying the
card whenever one can beats never buying it: the card is worth more than its price.
"""),
    code('''
pairs = W.restricted_pairs(df)
worth = W.seek_avoid(pairs, components)
rounded(worth.filter(pl.col("cost_change") == 0)
        .select("card_id", "printed_cost", "n", "win_a", "win_b", "win_diff", "win_low", "win_high",
                "win_verdict"))'''),
    md("""
## 2. The fair cost of every card

`fair_costs` fits seek minus avoid against the cost played and finds where it crosses zero; a
card whose line is flat within its noise gets no crossing (more deals would place it). `gap` is
fair minus printed cost: below zero the card is **overpriced**.
"""),
    code('''
fair = W.fair_costs(pairs, components)
rounded(fair.select("card_id", "printed_cost", "n", "fair_cost", "fair_low", "fair_high", "gap", "slope",
                    "slope_p", "extrapolated"))'''),
    code('''
display(charts.fair_cost_chart(fair, info))'''),
    md("""
## 3. Overpriced at 4 players

A card is overpriced when its whole 95% CI of the fair cost lies below the printed cost; the
suggested cost is the whole number nearest the fair cost.
"""),
    code('''
overpriced = (fair.filter(pl.col("fair_high") < pl.col("printed_cost"))
              .with_columns(pl.col("fair_cost").round(0).cast(pl.Int64).clip(0).alias("suggested"))
              .sort("gap"))
print(f"{overpriced.height} of {fair.height} epoch II cards overpriced at 4 players (95% CI below the printed cost)")
rounded(overpriced.select("card_id", "printed_cost", "fair_cost", "fair_low", "fair_high", "suggested"))'''),
    md("""
## 4. The check on fresh deals

The fair cost came from a fit; played at that cost on new deals, seeking and avoiding the card
should be level. Here the card with the largest gap (any card with a crossing, when none is
overpriced in a small run) is played again at its printed and its suggested cost with a new seed.
"""),
    code('''
found = fair.filter(pl.col("fair_cost").is_not_nan())
if found.height == 0:
    print("no card has a crossing in this sample: run more games (HADARA_NOTEBOOK_GAMES)")
else:
    card = found.row(0, named=True)
    change = int(round(card["fair_cost"])) - card["printed_cost"]
    check = {**data, "seed": data["seed"] + 1,
             "sweep": {"players": [4], "restrict": [{"seek": [card["card_id"]]}, {"avoid": [card["card_id"]]}],
                       "restrict.cost": sorted({0, change})}}
    fresh = W.seek_avoid(W.restricted_pairs(simulate(check, games=max(GAMES, 200))), components)
    display(rounded(fresh.select("card_id", "printed_cost", "cost", "n", "win_diff", "win_low", "win_high",
                                 "win_verdict")))'''),
    md("""
## 5. Every cost at once: `balance fit --card`

A card's fair cost above is measured with every other card as printed; changing several costs at
once moves each other's worth (they compete for the same coins). `balance_fit.fit_cards` treats the
costs as one set: a designed sweep moves every named card's cost by -2, 0 or +2 coins on common
deals, a line per card and player count of seek minus avoid against its cost proposes the cost
nearest the printed one that is level at every player count, fresh deals confirm (TOST against 0,
Holm over every card and count), and it fits again until the set is confirmed or a card is blocked.
Purple effects are purple cards: `--card II-P` fits all of epoch II's. The command line:

    hadara-sim balance fit -p 2 -p 4 --card II-Y-05 --card II-B-06 --games 3000 --points 6 --confirm-games 20000 --out results/costs

Here the two cards with the largest gaps above, at 4 players, on a budget far too small to confirm
much (the verdicts say how many more deals would decide them).
"""),
    code('''
from hadara_sim import balance_fit

pick = found["card_id"][:2].to_list() if found.height else ["II-Y-05", "II-B-06"]
card_plan = balance_fit.CardPlan(cards=pick, players=[4], games=max(GAMES, 300), points=3,
                                 confirm_games=max(GAMES, 800), rounds=1, seed=1)
costs = balance_fit.fit_cards(card_plan)
print(f"{costs.status}: {costs.reason}; {costs.games:,} games")
display(balance_fit.card_change_table(costs))
rounded(balance_fit.card_before_after(costs))'''),
    code('''
display(balance_fit.card_chart(costs, {"scenario": "balance fit --card, balanced on every seat",
                                       "games": card_plan.confirm_games}))'''),
    md("""
## What the full run says

With 4,000 games per combination at 4 players (the shipped scenario's 4-player half, 1.3 million
games), 52 of the 54 epoch II cards get a fair cost. Its 95% CI lies below the printed cost for 18
cards (overpriced) and above it for 14, most by less than 2 coins. The most overpriced is II-Y-05
(cost 6, fair 3.8, 95% CI 3.0 to 4.7): on fresh deals at cost 4, seeking and avoiding it are level
(-0.7 pp, 95% CI -1.5 to +0.2), where at 6 seeking it costs -2.9 pp. A crossing outside the swept
costs is a linear extrapolation: II-B-06 (cost 4) came out at 7.0 (5.4 to 8.6), and on fresh deals
it is level at 6 and already below at 7. These costs hold for `balanced` on every other seat and for
the reconstructed component values (`docs/components.md`): what a card is worth depends on how well
the bots play it, and a price for human play needs the same check with stronger policies.
"""),
]


SURFACE = [
    md("""
# Two values at once: the fair trade-off surface

**Question:** setup card 3 side B gives culture and coins. Which *pairs* of the two make it fair at
4 players: how much culture is one more coin worth?

**Design:** `scenarios/3b-culture-coins.toml` sweeps both values together (4 x 4 pairs), the
advanced game at 4 players, `balanced` on every seat, every seat's side drawn at random, and every
pair played on the same deals. For the seats holding 3B, a binomial GLM (logit link, cluster-robust
by deal) fits the win share on both values and their product; where the fit equals the fair share
1/P is the **fair line**, and the whole-value pairs whose fitted share has its 90% CI inside
1/P ± 2 pp are the **fair pairs** (two one-sided tests, as `balance suggest` judges one value).

`hadara-sim report curve RESULTS` draws the same surface from the command line. This notebook plays
`HADARA_NOTEBOOK_GAMES` games per pair (default 1,000, a few minutes on two cores); the surface gets
at least 100 deals per pair so that even a tiny run fits.
"""),
    code(SETUP.format(default=1000)),
    code('''
from hadara_sim.report import surface as SF

scenario = load_scenario("3b-culture-coins")
KEY1, KEY2 = list(scenario.sweep)
print(scenario.description)
print(scenario.sweep)
df = simulate(scenario, games=max(GAMES, 100))
info = dataset_info(df, {"scenario": {"name": scenario.name}})
s = SF.surface(df, KEY1, KEY2)
print("rows:", s.where, "- fair share", round(s.fair, 3))'''),
    md("""
## The observed pairs

One row per swept pair: the deals, the win share of the seat holding 3B with its 95% (Wilson) CI,
its difference from 1/P and the verdict (corrected over the pairs, as the reports do).
"""),
    code('''
rounded(s.cells.select("value1", "value2", "n", "mean", "ci_low", "ci_high", "diff", "verdict"))'''),
    md("""
## The fair line and the fair pairs

For each culture value, the coins at which the fitted win share is 1/P, with a 95% CI (delta
method); then the whole-value pairs the fit calls fair. The product term's p-value says whether one
value changes what the other is worth; a large one means the two trade at a constant rate.
"""),
    code('''
print("product term p =", round(s.interaction_p, 3))
display(rounded(s.line.filter(pl.col("value1") == pl.col("value1").round(0))))
rounded(s.fair_pairs)'''),
    code('''
display(SF.chart(s, info))'''),
    md("""
These numbers hold for the `balanced` policy on every seat and for the reconstructed component
values; with a small `HADARA_NOTEBOOK_GAMES` the line is wide and few pairs (or none) are shown fair.
"""),
]

SENSITIVITY = [
    md("""
# Which verdicts rest on guesses: sensitivity to the estimated values

**Question:** most component values are reconstructed estimates (`docs/components.md` marks each
exact or estimated). Would the setup-card verdicts change if those estimates were off by one?

**Design:** a **draw** moves every estimated value that an override may change by -1, 0 or +1
(uniformly, each kept inside the range of its kind; exact values never move). The baseline of
`balance suggest` (every card side's win share with its TOST verdict against 1/P ± 2 pp) is played
on the set as given and under each draw, **on the same deals**, so the spread over draws is the
spread of the estimates alone. A verdict that holds in most draws does not rest on the guesses.

`hadara-sim balance sensitivity` does the same from the command line. This notebook uses the library
calls (`hadara_sim.sensitivity`), plays `HADARA_NOTEBOOK_GAMES` games per draw (default 2,000) and
`DRAWS` draws.
"""),
    code(SETUP.format(default=2000)),
    code('''
from hadara_sim import balance, sensitivity

DRAWS = int(os.environ.get("HADARA_NOTEBOOK_DRAWS", "5"))
plan = balance.Plan(players=4, games=GAMES, margin=0.02, seed=1)
base, runs, moved = sensitivity.replay(plan, DRAWS, seed=7, progress=print)'''),
    md("""
## Per side: the verdict as given, and how often the draws agree

`holds` is the share of draws whose verdict is the verdict on the set as given; `win_low` and
`win_high` the 5th and 95th percentiles of the side's win share over the draws.
"""),
    code('''
rows = sensitivity.table(base, runs)
table = pl.DataFrame([{"side": r.side, "verdict": r.verdict, "win": r.win, "holds": r.holds,
                       "win_low": r.win_low, "win_high": r.win_high,
                       **{f"share {w}": v for w, v in r.shares.items()}} for r in rows])
print("estimated values moved per draw:", moved)
rounded(table)'''),
    code('''
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(8, 4))
names = [r.side for r in rows]
x = range(len(rows))
ax.vlines(x, [100 * r.win_low for r in rows], [100 * r.win_high for r in rows], lw=6, alpha=0.4,
          label="the draws: 5th to 95th percentile")
ax.plot(x, [100 * r.win for r in rows], "o", color="black", label="the set as given")
ax.axhline(100 / plan.players, color="grey", lw=1, label="fair share 1/P")
ax.set_xticks(list(x), names)
ax.set_ylabel("win share of the side (%)")
ax.set_title(f"Setup card sides over {len(runs)} draws of the estimated values ({GAMES:,} games each)")
ax.legend(fontsize=8)
plt.show()'''),
    md("""
With few games per draw the verdicts are mostly "not shown fair" for want of deals, on the set and
in the draws alike; the question is answered by a run large enough for the set as given to be judged
(`hadara-sim balance sensitivity --games 20000 --draws 20`).
"""),
]


def write(name: str, cells) -> Path:
    nb = new_notebook(cells=cells, metadata={
        "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
        "language_info": {"name": "python"}})
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"{Path(name).stem}-{i:02d}"  # stable ids: regenerating gives no diff
    path = HERE / name
    nbformat.validate(nb)
    nbformat.write(nb, path)
    return path


def main():
    for name, cells in (("quickstart.ipynb", QUICKSTART), ("setup-card-balance.ipynb", SETUP_CARDS),
                        ("purple-effects.ipynb", PURPLE), ("balance-fix.ipynb", BALANCE_FIX),
                        ("card-worth.ipynb", CARD_WORTH), ("surface.ipynb", SURFACE),
                        ("sensitivity.ipynb", SENSITIVITY)):
        print("wrote", write(name, cells))


if __name__ == "__main__":
    main()

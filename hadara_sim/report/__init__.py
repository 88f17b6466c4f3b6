"""Reports over a results dataset: win rates, seats, policy ratings, score breakdowns, setup-card
and purple-effect balance, score trajectories, each with sample sizes, 95% confidence intervals,
corrected marks and verdicts. Nothing is imported here, so that the command line can use the table
model (`table`) without loading the statistics.

The estimates, pure functions from a results DataFrame to DataFrames (use them in notebooks):

- `dataset`: loading a results directory (`load_dataset`), the columns each report needs, --by;
- `inference`: intervals, corrections, equivalence tests and sample sizes on per-deal values;
- `estimates`: means with their CIs, paired differences and verdicts over a results table;
- `wins`, `scores`, `setup`, `fields`, `grants`, `cards`, `ratings`, `curve`, `surface`: the
  analyses (win rates and seats; score breakdown and trajectory; setup cards; robustness to the
  opponent field; grant experiments and purple effects; cards; Bradley-Terry ratings; component
  value curves and surfaces).

Their presentation:

- `table`: the one table model (cells, numbers, units) the terminal, the machine formats and HTML share;
- `charts`: matplotlib figures of the estimates;
- `sections`, `component_sections`: estimates + tables + charts per report, as the command line uses them;
- `summary`, `html`: the self-contained HTML summary (`write_summary`).

    from hadara_sim.report import dataset, wins
    df, info = dataset.load_dataset("results/default")
    wins.win_rates(df, ["policy_label"])
"""

"""Robustness to the opponent field: whether each effect of a report table holds under every
field a run swept (`policies`, `seats`), judged on the effects paired on the deal, and, for a
ladder of fields, whether it has settled by the strongest."""

from __future__ import annotations

import json
import math
from functools import partial
from typing import Sequence

import polars as pl

from . import inference as I
from . import verdict as V
from .dataset import fmt_value
from .estimates import CLUSTER, group_means, paired_diff

FIELD_KEYS = ("policies", "seats")


def field_columns(df: pl.DataFrame) -> list[str]:
    """The swept keys that change the opponent field (`policies`, `seats`, or a key inside them such
    as `policies.0.params.coin`) with two or more values in `df`."""
    return [c for c in df.columns if c.startswith(tuple(f"sweep_{k}" for k in FIELD_KEYS)) and df[c].n_unique() > 1]


def field_label(value) -> str:
    """A field value as a short label: a list of policies as their labels in results joined with
    '+' (`["balanced"]` -> "balanced", `[{"policy": "search", "params": {"budget": 2}}]` ->
    "search(budget=2)"), anything else as `fmt_value` shows it."""
    from ..scenario.policies import policy_label

    try:
        parsed = json.loads(value) if isinstance(value, str) else value
    except ValueError:
        parsed = value
    if not isinstance(parsed, list) or not parsed:
        return fmt_value(value)
    names = [p if isinstance(p, str) else p.get("label") or policy_label(p.get("policy", "?"), p.get("params") or {})
             for p in parsed if isinstance(p, (str, dict))]
    return "+".join(names) if len(names) == len(parsed) else fmt_value(value)


def value_label(col: str, value) -> str:
    """A group value as a label: seat 2 -> 'seat 2', players 4 -> '4 players'."""
    if col == "seat":
        return f"seat {value}"
    if col == "players":
        return f"{value} players"
    if col == "setup_card":
        return f"card {value}"
    if col == "setup_side":
        return f"side {value}"
    if col == "advanced":
        return "advanced" if value else "basic"
    if col.startswith("first_player_epoch"):
        return f"first player in epoch {col[-1]}: " + ("yes" if value else "no")
    if col == "focus_seat":
        return f"focus seat {value}"
    if col.startswith(tuple(f"sweep_{k}" for k in FIELD_KEYS)):
        return field_label(value)
    return fmt_value(value)


def field_label_expr(fields: Sequence[str]) -> pl.Expr:
    """One label per opponent field from its swept columns (`field_label` for a whole policy list)."""
    whole = tuple(f"sweep_{k}" for k in FIELD_KEYS)  # a whole list of policies; else one key inside it

    def label(f: str):
        return field_label if f in whole else lambda v: f"{f[len('sweep_'):]}={fmt_value(v)}"

    return pl.concat_str([pl.col(f).map_batches(partial(_labelled, label=label(f)), return_dtype=pl.String)
                          for f in fields], separator=", ")


def _labelled(values: pl.Series, label) -> pl.Series:
    """`label` of each value (null stays null), called once per distinct value: once per row, parsing
    a field's JSON took 40 s of a card-worth run's summary (5 million rows, two fields)."""
    distinct = values.drop_nulls().unique()
    return values.replace_strict(distinct, [label(v) for v in distinct], default=None, return_dtype=pl.String)


def field_count(df: pl.DataFrame, fields: Sequence[str]) -> int:
    """How many opponent fields a run played (1 when no field key was swept)."""
    return df.select(fields).n_unique() if fields else 1


AGREEMENT = ("same verdict under every field", "verdicts differ", "undecided under a field")


def field_verdicts(per_deal: pl.DataFrame, cell: Sequence[str], names: Sequence[str], margin: float) -> pl.DataFrame:
    """The first level of robustness: the verdict of each cell's effect under each field (the paired
    t-test and TOST over deals of the per-deal effect `_effect` against zero, `verdict.with_verdicts`
    over every cell and field of the table: Benjamini-Hochberg for the marks, Holm for "fair"), and
    whether they agree. Columns: `cell`, `verdict <field>` per field, `size_low` and `size_high` (the
    smallest and largest effect over the fields) and `agreement`: "same verdict under every field"
    (every field decided, all the same kind), "verdicts differ" (two fields decided differently), else
    "undecided under a field"."""
    zero = per_deal.with_columns(pl.lit(0.0).alias("_zero"))
    judged = V.with_verdicts(paired_diff(zero, "_effect", "_zero", [*cell, "_field"], margin=margin), margin=margin)
    kinds = judged.with_columns(pl.col("verdict").map_elements(V.kind_of, return_dtype=pl.String).alias("_kind"))
    wide = kinds.pivot(on="_field", index=list(cell), values="verdict")
    summary = kinds.group_by(list(cell)).agg(
        pl.col("diff").min().alias("size_low"), pl.col("diff").max().alias("size_high"),
        pl.col("_kind").filter(pl.col("_kind") != "undecided").n_unique().alias("_decided_kinds"),
        (pl.col("_kind") == "undecided").any().alias("_open"), pl.len().alias("_fields"))
    agreement = (pl.when(pl.col("_decided_kinds") > 1).then(pl.lit(AGREEMENT[1]))
                 .when(~pl.col("_open") & (pl.col("_fields") == len(names))).then(pl.lit(AGREEMENT[0]))
                 .otherwise(pl.lit(AGREEMENT[2])))
    return (wide.select(*cell, *[pl.col(n).alias(f"verdict {n}") for n in names if n in wide.columns])
            .join(summary.select(*cell, "size_low", "size_high", agreement.alias("agreement")), on=list(cell),
                  how="left"))


def field_robustness(pairs: pl.DataFrame, a: str, b: str, cell: Sequence[str], fields: Sequence[str],
                     margin: float = I.MARGIN, steps: bool = False) -> pl.DataFrame | None:
    """Whether each effect of a report table depends on the opponent field (None with fewer than two
    fields), judged on the effects, not on their verdicts.

    `pairs` holds the rows of the table's contrast (the effect of a row is a - b: a cell's win share
    minus 1/P, side B minus side A, a granted seat minus its control), with `cell` (the table's
    groups but the field), the `fields` columns and the deal. Every field plays the same deals, so
    the effect under each field is compared with the effect under the first field paired on the deal:
    per deal, (a - b) under the field minus (a - b) under the first, `scipy.stats.ttest_rel` over
    deals and the paired TOST within ±margin. Over the table's comparisons, the differences are
    corrected by Holm and the TOSTs by Holm, so each word is controlled family-wise at 5 %: a table
    of identical fields says "depends on the bots" in at most 5 % of tables.

    One row per cell: `cell`, `effect <field>` per field (mean of a - b), per field after the first
    `difference <field>`, `low <field>`, `high <field>`, `q <field>`, `q_equiv <field>` (that field
    minus the first), `fields` and `robust`: "robust" when every field's difference is equivalent to
    zero, "depends on the bots" when one differs significantly (and is not equivalent), else
    "undecided". Before that test, what a designer reads first (`field_verdicts`): `verdict <field>`,
    `size_low`, `size_high` and `agreement`, whether every field reaches the same verdict.

    With `steps`, a ladder: each field is compared with the one before it in the order swept (a
    strength ladder lists the weakest first), the columns are named as above, and `robust` says
    whether the effect has settled by the last, strongest field: "settled" when the last step is
    equivalent to zero, "still moving" when it differs from zero, else "undecided", and `more` how
    many more deals would make an undecided last step flat (`inference.deals_to_decide`; NaN when
    decided or its difference lies outside the margin)."""
    if not fields or pairs.select(fields).n_unique() < 2:
        return None
    labelled = pairs.with_columns(field_label_expr(fields).alias("_field"))
    names = (labelled.group_by("_field").agg(pl.col("combo").min()).sort(["combo", "_field"])["_field"].to_list()
             if "combo" in pairs.columns else sorted(labelled["_field"].unique().to_list()))
    # each deal's mean summed in a fixed order; polars' group_by of a card-worth run's 5 million rows took 3 GB more
    per_deal = group_means(labelled, [*cell, "_field", CLUSTER],
                           {"_effect": pl.col(a).cast(pl.Float64) - pl.col(b).cast(pl.Float64)})
    first, rest = names[0], names[1:]
    effects = (per_deal.group_by([*cell, "_field"]).agg(pl.col("_effect").mean())
               .pivot(on="_field", index=list(cell), values="_effect"))
    out = effects.select(*cell, *[pl.col(n).alias(f"effect {n}") for n in names if n in effects.columns])
    tables = []
    for before, name in zip(names if steps else [first] * len(rest), rest):
        base = per_deal.filter(pl.col("_field") == before).select(*cell, CLUSTER, pl.col("_effect").alias("_first"))
        joined = (per_deal.filter(pl.col("_field") == name).join(base, on=[*cell, CLUSTER], how="inner"))
        if joined.height:
            tables.append(paired_diff(joined, "_effect", "_first", cell, margin=margin)
                          .with_columns(pl.lit(name).alias("_field")))
    if not tables:
        return None
    long = pl.concat(tables)
    # a ladder's undecided last step gets the deals that would show it flat, under Holm over every step
    judged = V.judge(long["diff"], long["p"], long["equiv_p"], long["n"], margin, "holm",
                     sd=long["sd"].fill_null(math.nan).to_numpy() if steps else None,
                     hinted=(long["_field"] == rest[-1]).to_list())
    long = long.with_columns(pl.Series("q", [v.q for v in judged]), pl.Series("q_equiv", [v.q_equiv for v in judged]),
                             pl.Series("_word", [v.settling if steps else v.robustness for v in judged]),
                             pl.Series("more", [v.more for v in judged], dtype=pl.Float64))
    for name in rest:
        part = long.filter(pl.col("_field") == name).select(
            *cell, *[pl.col(c).alias(f"{c.replace('diff', 'difference')} {name}")
                     for c in ("diff", "low", "high", "q", "q_equiv")])
        out = out.join(part, on=list(cell), how="left", maintain_order="left")
    if steps:
        words = long.filter(pl.col("_field") == rest[-1]).select(*cell, pl.col("_word").alias("robust"), "more")
        out = out.join(words, on=list(cell), how="left", maintain_order="left")
        return (out.with_columns(pl.lit(len(names)).alias("fields"), pl.col("robust").fill_null("undecided"))
                .sort(list(cell), nulls_last=True))
    out = out.join(field_verdicts(per_deal, cell, names, margin), on=list(cell), how="left", maintain_order="left")
    words = long.group_by(list(cell)).agg(pl.col("_word"), pl.len().alias("_compared"))
    word = (pl.when(pl.col("_compared") < len(rest)).then(pl.lit("undecided"))
            .when(pl.col("_word").list.eval(pl.element() == "robust").list.all()).then(pl.lit("robust"))
            .when(pl.col("_word").list.contains("depends on the bots")).then(pl.lit("depends on the bots"))
            .otherwise(pl.lit("undecided")))
    out = (out.join(words.select(*cell, word.alias("robust")), on=list(cell), how="left", maintain_order="left")
           .with_columns(pl.lit(len(names)).alias("fields"), pl.col("robust").fill_null("undecided")))
    return out.sort(list(cell), nulls_last=True)

"""A results dataset as the reports read it: the columns each report needs (`check_columns`, or
ReportError), the groups --by names, the columns that keep a run's combinations apart, the component
set the run played, and the facts titles and summaries show (`load_dataset`, `dataset_info`)."""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Iterable, Sequence

import polars as pl

from .. import provenance
from ..component_files import load_components
from ..components import ComponentError, ComponentSet
from ..constants import EFFECT_IDS, EPOCHS
from ..invocation import program
from ..results import EXTRA_POINTS, SHEET_COLUMNS, load_results, polars_frame, read_metadata
from ..swept_key import sweep_column_name

# --by aliases: what the user types -> the columns grouped on.
BY_ALIASES: dict[str, tuple[str, ...]] = {
    "policy": ("policy_label",),
    "seat": ("seat",),
    "setup": ("setup_card", "setup_side"),
    "card": ("setup_card",),
    "side": ("setup_side",),
    "players": ("players",),
    "game-kind": ("advanced",),
}

# What each report needs from the dataset.
REQUIRED: dict[str, tuple[str, ...]] = {
    "winrate": ("game", "players", "win_share"),
    "ratings": ("combo", "game", "players", "seat", "policy_label", "rank"),
    "breakdown": ("game", "players", "total", *SHEET_COLUMNS, *EXTRA_POINTS),
    "setup-cards": ("game", "players", "setup_card", "setup_side", "win_share", "total"),
    "purple": ("game", "seat", "players", "advanced", "combo", "win_share", "total", "granted",
               *(f"effect_{e}" for e in EFFECT_IDS)),
    "trajectory": ("game", "combo", "players", "policy_label", "win_share",
                   *(f"total_epoch{e}" for e in EPOCHS)),
    "cards": ("combo", "game", "seat", "players", "win_share", "total", "granted", "bought", "bought_in_b",
              "sold", "fed_away", "offered", *(f"colony_tile{k}" for k in range(1, 6)),
              *(f"colony_level{k}" for k in range(1, 6)), *(f"statue{k}" for k in range(1, 5))),
}


def simulate_hint() -> str:
    """How to write a results dataset anew, the program named as it was started."""
    return (f"rerun the scenario with this version of hadara-sim: `{program()} simulate SCENARIO --out DIR` (add "
            "--overwrite to replace the old directory)")


# The swept keys of a setup grid, which the setup-card report analyses: the other reports pool over
# the grid's cells rather than split by them.
SETUP_SWEEPS = ("sweep_setup_card", "sweep_setup_side", "sweep_setup_focus_seat")


# What dataset_info tells of a dataset: the sections and the summary read these.
INFO_KEYS = frozenset(("scenario", "description", "rows", "deals", "games", "combinations", "players", "policies",
                       "advanced", "sweeps", "seed", "schema_version", "package_version", "status", "provenance"))


class ReportError(ValueError):
    """A dataset a report cannot be made from (missing columns, no rows, an unknown --by)."""


# --- checks and groups ------------------------------------------------------------------------

def check_columns(df: pl.DataFrame, report: str, extra: Iterable[str] = (), exclude: Iterable[str] = ()) -> None:
    """Raise ReportError naming every column `report` needs (but `exclude`, more with `extra`) that `df`
    lacks."""
    polars_frame(df)
    needed = [c for c in (*REQUIRED[report], *extra) if c not in exclude]
    missing = [c for c in dict.fromkeys(needed) if c not in df.columns]
    if missing:
        raise ReportError(f"the dataset lacks {len(missing)} column{'s' * (len(missing) > 1)} that "
                          f"`report {report}` needs: {', '.join(missing)}. It was probably written by an "
                          f"older hadara-sim (or is not a results dataset); {simulate_hint()}")
    if df.height == 0:
        raise ReportError("no rows to report on: a frame filtered to nothing, or a run that played no chunk "
                          f"(`{program()} simulate SCENARIO --out DIR` again completes it)")


# What the reports measure and the deal they pair on: a group by one of them would split a report's
# own numbers (a group per score or per deal), and some reports could not name their columns.
MEASURED = ("game", "win_share", "rank", "total", *SHEET_COLUMNS, *EXTRA_POINTS,
            *(f"total_epoch{e}" for e in EPOCHS))


def _not_a_group(df: pl.DataFrame, column: str) -> str | None:
    """Why `column` of `df` cannot be a --by group, or None when it can."""
    if column == "game":
        return "it is the deal, which every report averages a game's seats within and pairs on"
    if column in MEASURED:
        return "it is a score or outcome the reports measure (win share, rank, the score sheet), not a group"
    dtype = df.schema[column]
    if dtype == pl.Binary:
        return "it is a bit set of cards, a value per set of cards, not a group (`report cards` reports each card)"
    if dtype.is_nested() or dtype == pl.Object:
        return "each of its values holds several (a list), not one value per seat"
    return None


def groupable(df: pl.DataFrame) -> list[str]:
    """The columns of `df` that --by can group on."""
    return [c for c in df.columns if _not_a_group(df, c) is None]


def _group_choices(df: pl.DataFrame) -> str:
    """What --by takes in this dataset, in words."""
    sweeps = [c for c in df.columns if c.startswith("sweep_") and c in groupable(df)]
    return (f"group by an alias ({', '.join(BY_ALIASES)})" + (f", a swept key ({', '.join(sweeps)})" if sweeps else "")
            + " or a column that describes a seat or its game, such as colour_order, granted or cards_purple "
              "(docs/results.md lists them)")


def resolve_by(df: pl.DataFrame, by: Sequence[str] | str | None, default: Sequence[str] = ("policy",)) -> list[str]:
    """The columns behind --by values: aliases (policy, seat, setup, players, ...), column names,
    or swept keys without their `sweep_` prefix; comma-separated values are split. ReportError for a
    name that is no column, or a column that is no group (`_not_a_group`)."""
    polars_frame(df)
    if by is not None and not isinstance(by, (str, list, tuple)):  # 5 or pl.col("seat") stopped inside
        raise TypeError(f"by is a column name or a list of them, such as ['policy', 'players'], not "
                        f"{type(by).__name__} {by!r:.40}")
    items: list[str] = []
    for item in ([by] if isinstance(by, str) else list(by or default)):
        names = [p.strip() for p in str(item).split(",") if p.strip()]
        if not names:  # `--by ""` (an unset shell variable) pooled every seat into one row, unasked
            raise ReportError(f"cannot group by '{item}': it names no column; {_group_choices(df)}, or leave "
                              "--by out for the default grouping")
        items += names
    columns: list[str] = []
    for item in items:
        if item in BY_ALIASES and all(c in df.columns for c in BY_ALIASES[item]):
            found = list(BY_ALIASES[item])
        elif item in df.columns:
            found = [item]
        elif f"sweep_{item}" in df.columns:
            found = [f"sweep_{item}"]
        elif sweep_column_name(item) in df.columns:  # a dotted swept key: components.setup.3B.culture
            found = [sweep_column_name(item)]
        elif item.replace("-", "_") in df.columns:
            found = [item.replace("-", "_")]
        else:
            close = (difflib.get_close_matches(item, BY_ALIASES, n=1)  # an alias first: "seet" is seat, not seek
                     or difflib.get_close_matches(item, groupable(df), n=1))
            raise ReportError(f"cannot group by '{item}'{f' (did you mean {close[0]}?)' if close else ''}: "
                              f"it is neither an alias nor a column of the dataset; {_group_choices(df)}")
        for column in found:
            reason = _not_a_group(df, column)
            if reason:
                raise ReportError(f"cannot group by '{item}': {reason}; {_group_choices(df)}")
        columns += [c for c in found if c not in columns]
    return columns


def group_columns(df: pl.DataFrame, report: str, by: Sequence[str] | str | None = None) -> list[str]:
    """The columns a report function groups by, from Python as from --by (`resolve_by`: a name or a
    list, aliases, swept keys), once `df` has been checked to hold what `report` needs: a name given
    as a string was grouped letter by letter, an unknown one blamed on an older dataset. None: the
    command line's default for `report` (`default_groups`); an empty list pools every row."""
    check_columns(df, report)
    return default_groups(df, report) if by is None else resolve_by(df, by, default=())


def default_groups(df: pl.DataFrame, report: str) -> list[str]:
    """The groups of `report`'s table when none are asked for, from Python as from the command line:
    per policy and combination, in a mirror per seat (`natural_by`: a policy on every seat wins 1/P by
    construction); the trajectory per policy, whose running totals by seat say nothing new."""
    return default_by(df, sweeps=True) if report == "trajectory" else natural_by(df)


def in_group(frame: pl.DataFrame, keys: Sequence[str], group: dict) -> pl.DataFrame:
    """The rows of `frame` whose `keys` hold the values of `group`; a missing value (no grant, a seat
    that played freely) is a group of its own, as `group_by` makes it."""
    return frame.filter(*[pl.col(c).eq_missing(group[c]) for c in keys]) if keys else frame


def grant_sweep_column(df: pl.DataFrame) -> str | None:
    """The `sweep_*` column of a sweep over grants, if the dataset has one."""
    cols = [c for c in df.columns if c.startswith("sweep_grants")]
    return cols[0] if cols else None


def analysed_sweeps(df: pl.DataFrame) -> tuple[str, ...]:
    """Swept keys that a report of their own analyses (setup grid, grants)."""
    return (*SETUP_SWEEPS, *filter(None, [grant_sweep_column(df)]))


def default_by(df: pl.DataFrame, sweeps: bool = False) -> list[str]:
    """Group by policy, and by player count when the dataset mixes several; with `sweeps`, also by
    every swept key but those the setup-card and purple reports analyse (setup grid, grants)."""
    cols = ["policy_label"]
    if "players" in df.columns and df["players"].n_unique() > 1:
        cols.append("players")
    if sweeps:
        skip = ("sweep_players", *analysed_sweeps(df))
        cols += [c for c in df.columns if c.startswith("sweep_") and c not in skip and df[c].n_unique() > 1]
    return cols


def mirror(df: pl.DataFrame) -> bool:
    """Whether one policy plays every seat of every game: its win share is then 1/P by construction."""
    return df["policy_label"].n_unique() == 1


def natural_by(df: pl.DataFrame) -> list[str]:
    """The groups of a win-rate or score table: by policy (`default_by`), or in a mirror, where a
    policy's win share is 1/P by construction, by seat within each combination of the run."""
    return [*combination_by(df, skip=SETUP_SWEEPS), "seat"] if mirror(df) else default_by(df, sweeps=True)


def combination_by(df: pl.DataFrame, skip: Sequence[str] = ()) -> list[str]:
    """The player count and every swept key with several values (but `skip`): the columns that
    keep the combinations of a run apart."""
    cols = ["players"]
    cols += [c for c in df.columns if c.startswith("sweep_") and c != "sweep_players" and c not in skip
             and df[c].n_unique() > 1]
    return cols


def _varies(df: pl.DataFrame, column: str) -> bool:
    """Whether `df` has `column` with two values or more."""
    return column in df.columns and df[column].n_unique() > 1


def pooled_over(df: pl.DataFrame, by: Sequence[str]) -> list[str]:
    """Swept keys (and the player count) with several values that a grouping by `by` pools over: none
    when it groups by combination (`combo`; `combination`, its name, which `report --by combination` and
    `--by combo` group by; or `sweep`, the combination's swept values)."""
    if {"combo", "combination", "sweep"} & set(by):  # each row one combination, once titled "(pooled over grants)"
        return []
    cols = [c for c in combination_by(df) if c not in by and _varies(df, c)]
    if "players" in cols and "sweep_players" in by:
        cols.remove("players")
    return cols


# --- the run ----------------------------------------------------------------------------------

def run_components(components):
    """The component set a run played: a ComponentSet as it is, None for the shipped set, else the
    directory given to the run with --components; ReportError when that directory can no longer be
    read (the card tables need the run's own cards, and the shipped set may differ from them)."""
    if isinstance(components, ComponentSet):
        return components
    if components is None:
        return load_components()
    try:
        return load_components(components)
    except (ComponentError, OSError) as err:
        if not Path(components).is_dir():
            reason = "there is no folder there"
        else:
            reason = "; ".join(map(str, err.problems[:2])) if isinstance(err, ComponentError) else str(err)
        raise ReportError(f"the run's component set at {components} cannot be read ({reason}); the reports on "
                          "cards need it to tell its cards apart (colour, epoch, effect) and do not use the shipped "
                          f"set instead, whose cards may differ. Put the set back at {components}, then report "
                          "again") from err


def load_dataset(path) -> tuple[pl.DataFrame, dict]:
    """A results directory as (DataFrame, info): `info` has the scenario name, sizes and run facts.
    Raises ResultsError (unreadable, older schema) like `load_results`."""
    meta = read_metadata(path)
    df = load_results(path)
    return provenance.with_combination_labels(df, meta), dataset_info(df, meta)


def dataset_info(df: pl.DataFrame, meta: dict | None = None) -> dict:
    """Name, description and size of a dataset, for titles and the summary."""
    polars_frame(df)
    if meta is not None and not isinstance(meta, dict):
        raise TypeError(f"meta is a run's metadata.json as a dict (results.read_metadata), not {type(meta).__name__}")
    meta = meta or {}
    scenario = meta.get("scenario", {}) or {}
    scenario = {"name": scenario} if isinstance(scenario, str) else scenario
    info = {
        "scenario": scenario.get("name") or "unnamed dataset",
        "description": scenario.get("description") or (scenario.get("parsed") or {}).get("description") or "",
        "rows": df.height,
        "deals": df["game"].n_unique() if "game" in df.columns else 0,
        "games": df.select(pl.struct("combo", "game").n_unique()).item()
        if {"combo", "game"} <= set(df.columns) and df.height else 0,
        "combinations": df["combo"].n_unique() if "combo" in df.columns else 0,
        "players": sorted(df["players"].unique().to_list()) if "players" in df.columns else [],
        "policies": sorted(df["policy_label"].drop_nulls().unique().to_list()) if "policy_label" in df.columns else [],
        "advanced": sorted(df["advanced"].unique().to_list()) if "advanced" in df.columns else [],
        "sweeps": [c for c in df.columns if c.startswith("sweep_")],
        "seed": meta.get("seed"),
        "schema_version": meta.get("schema_version"),
        "package_version": meta.get("package_version"),
        "status": meta.get("status"),
        "finished": meta.get("finished"),
        "provenance": provenance.of_run({**meta, "scenario": scenario}),
        "components_path": (meta.get("components") or {}).get("path"),
    }
    return info


def full_info(df: pl.DataFrame, info: dict | None) -> dict:
    """`info` with what `dataset_info` says of `df` where it is silent: a notebook may pass None, {} or
    a few keys of its own (the sections stopped with AttributeError 'get' or KeyError 'scenario')."""
    if info is not None and not isinstance(info, dict):
        raise TypeError(f"info is the dict load_dataset or dataset_info(df) gives (or None), not {type(info).__name__}")
    if info and INFO_KEYS <= info.keys():
        return info
    return {**dataset_info(df), **(info or {})}


def fmt_value(value) -> str:
    """A group value for labels: None as "none", floats trimmed, JSON kept."""
    if value is None:
        return "none"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, dict)):
        return json.dumps(value)
    return str(value)

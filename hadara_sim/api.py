"""The Python API of runs, for notebooks and scripts: `simulate` a scenario into a polars DataFrame."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Sequence

import numpy as np
import pyarrow as pa

from .runner import run
from .scenario.model import Scenario
from .scenario.read import apply_settings, load_scenario, parse_scenario, scenario_from_dict, setting_list


def as_scenario(scenario, settings: Sequence[str] | str = ()) -> Scenario:
    """A Scenario from a Scenario, a path to a TOML file (or a shipped scenario's name), TOML text or a
    dict of its values; each of `settings` (KEY=VALUE, as `simulate --set` takes it) changes one value."""
    settings = setting_list(settings)
    if isinstance(scenario, Scenario):
        if settings:
            raise TypeError("settings change a scenario's file, text or dict; this Scenario is already read: "
                            "give its file, or load_scenario(path, settings=[...])")
        return scenario
    if isinstance(scenario, dict):
        plain = _as_toml_values(scenario)
        apply_settings(plain, settings)
        # Kept as JSON text in the run's metadata, so that `show-game` can rebuild the run; a value
        # JSON cannot hold is refused by the checks, which name its key.
        return scenario_from_dict(plain, file="<dict>", text=json.dumps(plain, default=repr))
    # A one-line string is a path unless it reads as TOML: a file that exists is a path whatever its
    # name holds (a folder may be called "a=b").
    if isinstance(scenario, Path) or (isinstance(scenario, str) and "\n" not in scenario
                                      and ("=" not in scenario or Path(scenario).is_file())):
        return load_scenario(scenario, settings=settings)
    if isinstance(scenario, str):
        return parse_scenario(scenario, file="<string>", settings=settings)
    raise TypeError(f"expected a Scenario, a path, TOML text or a dict, got {type(scenario).__name__}")


def _as_toml_values(value):
    """A notebook's values as TOML gives them: numpy numbers and arrays, tuples and paths in a scenario
    dict stopped in json.dumps ('Object of type int64 is not JSON serializable')."""
    if isinstance(value, dict):
        return {key: _as_toml_values(v) for key, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_as_toml_values(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return os.fspath(value) if isinstance(value, os.PathLike) else value


def simulate(scenario, games: int | None = None, seed: int | None = None, out: str | Path | None = None,
             jobs: int = -1, quiet: bool | None = None, *, backend: str = "local", scheduler: str | None = None,
             overwrite: bool = False, chunk: int | None = None, settings: Sequence[str] | str = ()):
    """Play a scenario and return its results as a polars DataFrame (one row per game and seat).

    `scenario`: a path to a scenario file (or a shipped scenario's name), TOML text, a dict, or a
    `Scenario`. `games`, `seed` and `chunk` override the scenario's; `settings` change any of its
    values as `simulate --set` does (["sweep.players=[4]", "game=advanced"]). With `out`, the dataset
    is also written there (and an interrupted run into the same directory resumes); without, nothing
    is written. `quiet`: None (the default) shows a progress bar in a notebook and nothing in a script.
    """
    import polars as pl

    from .results import SCHEMA, SORT_KEYS, add_sweep_columns, load_results

    sc = as_scenario(scenario, settings).with_overrides(games=games, seed=seed, chunk=chunk)
    if quiet is None:  # a progress bar in a notebook, silence in scripts
        quiet = "ipykernel" not in sys.modules
    summary = run(sc, out, jobs=jobs, backend=backend, scheduler=scheduler, overwrite=overwrite, quiet=quiet)
    if out is not None:
        return load_results(out)
    table = pa.concat_tables(summary.tables) if summary.tables else SCHEMA.empty_table()
    df = pl.from_arrow(table).sort(SORT_KEYS)
    return add_sweep_columns(df, [c.to_dict(sc.components) for c in sc.combinations])

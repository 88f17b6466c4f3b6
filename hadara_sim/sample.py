"""Any game of a results dataset, played again: rebuilt from the run's scenario, seed and chunk,
played alone in the batch engine with the policies of the run, and checked twice — its trace is
replayed by the reference engine, and its score sheet must equal the dataset's rows."""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .components import ComponentSet
from .deal import Deals, make_deals
from .engine.game import BatchGame
from .engine.record import BatchRecorder
from .forward import Forward
from .results import read_metadata
from .chunks import chunk_setup, plan_chunks, policy_seed, seat_table
from .scenario.checks import ScenarioError
from .scenario.identity import identity_digest, run_identity
from .scenario.model import Scenario, given_as_data
from .scenario.read import parse_scenario, scenario_from_dict


class SampleError(ValueError):
    """The game cannot be rebuilt (no such game, or the run's setup can no longer be reproduced)."""


class SampleMismatch(SampleError):
    """The game played again differs from the dataset or between the engines: a bug to report."""


@dataclass
class SampleGame:
    combo: int
    game: int
    deal: Deals                 # the game's deal (one game)
    names: list[str]            # policy label of each seat
    seats: list                 # the policy playing each seat, as the run made it
    scenario: Scenario          # the run's scenario
    records: list[dict]         # its trace, as `play --trace` writes it
    sheet: list[dict]           # the final score sheet (one dict per seat)


def outside_code(meta: dict) -> list[str]:
    """The policies a run's metadata names by code rather than by a registered name (file.py:attr
    or module:attr): replaying one of its games would import and run that code."""
    from .registry import available_policies, built_in_policies

    known = set(built_in_policies()) | set(available_policies())
    specs = {entry.get("policy") for combo in meta.get("combinations") or [] if isinstance(combo, dict)
             for entry in (combo.get("config") or {}).get("policies") or [] if isinstance(entry, dict)}
    specs |= set((meta.get("identity_fields") or {}).get("policy_code") or {})
    return sorted(spec for spec in specs if isinstance(spec, str) and ":" in spec and spec not in known)


def run_scenario(results: str | Path, meta: dict | None = None, allow_code: bool = False) -> Scenario:
    """The scenario of a results directory as it was run (its stored text, seed and game count);
    SampleError when it no longer gives the same run (another hadara-sim or component set), or when
    its policies are code from outside hadara-sim and `allow_code` is not given: a results directory
    is data, and only its owner can say that the code it names may run."""
    from . import __version__
    from .results import SCHEMA_VERSION

    meta = meta or read_metadata(Path(results))
    foreign = outside_code(meta)
    if foreign and not allow_code:  # before the scenario is read: reading it builds its policies
        raise SampleError(f"the games of {results} were played by policies given as code "
                          f"({', '.join(foreign)}); playing one again imports and runs it: pass "
                          "--allow-code if you trust that code")
    stored = meta.get("scenario") or {}
    path = stored.get("path")
    base = Path(stored.get("folder") or ".") if given_as_data(path) else Path(path).parent
    components = (meta.get("components") or {}).get("path")
    text = stored.get("text") or ""
    try:
        if path == "<dict>":
            data = json.loads(text)
            if components is not None:
                data["components"] = str(Path(components).resolve())
            sc = scenario_from_dict(data, file=path, base_dir=base)
        else:
            sc = parse_scenario(text, file=path or "<scenario>", base_dir=base,
                                default_name=stored.get("name") or "scenario", components=components,
                                settings=[str(x) for x in stored.get("settings") or ()])
    except (ScenarioError, OSError, ValueError) as err:
        raise SampleError(f"the run's scenario cannot be read again: {err}") from None
    sc = sc.with_overrides(games=meta.get("games"), seed=meta.get("seed"))
    if identity_digest(run_identity(sc, __version__, SCHEMA_VERSION)) != meta.get("identity"):
        raise SampleError(f"{results} was played by another hadara-sim version, component set or policy "
                          "settings; its games cannot be played again exactly")
    return sc


def sample_game(results: str | Path, game: int, combo: int = 0, scenario: Scenario | None = None,
                meta: dict | None = None, allow_code: bool = False) -> SampleGame:
    """Game `game` of combination `combo` of a results directory, played again and verified (see
    `run_scenario` for `allow_code`)."""
    from .trace import ReplayMismatch, replay

    meta = meta or read_metadata(Path(results))
    sc = scenario or run_scenario(results, meta, allow_code)
    if not 0 <= combo < len(sc.combinations):
        raise SampleError(f"--combo must be 0..{len(sc.combinations) - 1}, got {combo}")
    if not 0 <= game < sc.games:
        raise SampleError(f"--game must be 0..{sc.games - 1} (the run has {sc.games:,} games per combination), "
                          f"got {game}")
    chunk = next(c for c in plan_chunks(sc) if c.combo == combo and c.first_game <= game < c.first_game + c.games)
    combination = sc.combinations[combo]
    problem = unreplayable(combination)
    if problem:
        raise SampleError(problem)
    config = combination.config
    c: ComponentSet = sc.components
    deals = make_deals(c, config.players, chunk.games, seed=np.random.SeedSequence(sc.seed, spawn_key=(chunk.index,)),
                       advanced=config.advanced, first_game=chunk.first_game, exclude=combination.exclude)
    chunk_setup(combination, sc.seed, chunk, deals)  # its setup cards and board, placed in the deals
    i = game - chunk.first_game
    deal = deals[i:i + 1]
    table = seat_table(combination, deal.game_id)
    from .registry import make_policy

    policies = [make_policy(p.policy, seed=policy_seed(sc.seed, k), **p.params) for k, p in enumerate(config.policies)]
    names = [config.policies[k].label for k in table[0]]
    recorder = BatchRecorder(deal, c, [names])
    BatchGame(deal, c, policies, table, recorder, forward=Forward).play()
    records = recorder.trace(0)
    try:
        sheet = replay(records, c)
    except ReplayMismatch as err:
        raise SampleMismatch(f"the reference engine disagrees with the batch engine on game {game}: {err}") from None
    seats = [policies[k] for k in table[0]]
    return SampleGame(combo, game, deal, names, seats, sc, records, sheet)


def check_against_rows(sample: SampleGame, rows: list[dict]) -> list[str]:
    """Differences between a replayed game's score sheet and its rows in the dataset ([] = none)."""
    problems = []
    by_seat = {int(r["seat"]): r for r in rows}
    for line in sample.sheet:
        row = by_seat.get(line["seat"])
        if row is None:
            problems.append(f"seat {line['seat']} is not in the dataset")
            continue
        for key in ("total", "colonies", "statues", "silver", "gold", "cards", "coins"):
            if key in row and int(row[key]) != int(line[key]):
                problems.append(f"seat {line['seat']} {key}: dataset {row[key]}, replay {line[key]}")
    return problems


def verified_game(results: str | Path, game: int, combo: int = 0, scenario: Scenario | None = None,
                  meta: dict | None = None, allow_code: bool = False) -> tuple[SampleGame, int]:
    """`sample_game`, also checked against the dataset's rows of that game: (sample, rows checked).
    SampleError when the replay and the dataset differ."""
    import polars as pl

    from .results import scan_results

    sample = sample_game(results, game, combo, scenario, meta, allow_code)
    with warnings.catch_warnings():  # the missing chunks of other games are no concern; this game's is said below
        warnings.filterwarnings("ignore", message=r".*chunks are missing", category=UserWarning)
        found = scan_results(Path(results), sweep_columns=False)
    rows = found.filter((pl.col("combo") == combo) & (pl.col("game") == game)).collect().to_dicts()
    if not rows:  # its chunk is not there (an interrupted run, a deleted file): nothing to compare with
        raise SampleError(f"game {game} of combination {combo} is not in the dataset at {results}: its chunk "
                          "file is missing (an interrupted run? run the same simulate command again to "
                          "complete it)")
    problems = check_against_rows(sample, rows)
    if problems:
        raise SampleMismatch(f"game {game} of combination {combo} played again does not match the dataset: "
                          + "; ".join(problems))
    return sample, len(rows)


def unreplayable(combination) -> str | None:
    """Why the reference engine cannot play a combination's games again, or None when it can: it
    replays what the policies chose, not cards granted, play restricted or setup sides set by the run."""
    config = combination.config
    set_by_run = [what for what, present in (
        ("granted cards", bool(config.grants)), ("restricted play", config.restriction is not None),
        (f"setup sides set by the run (setup.sides = {config.setup.sides!r})",
         config.advanced and config.setup.sides != "policy")) if present]
    if not set_by_run:
        return None
    return (f"combination {combination.index} plays with {' and '.join(set_by_run)}, which the reference engine "
            "cannot replay (it plays again only what the policies chose): tracing and show-game take runs "
            "without them")


def sample_ids(games: int, combos: int, k: int) -> list[tuple[int, int]]:
    """k (combo, game) pairs spread evenly over a run: the first, the last and those between."""
    total = games * combos
    picks = np.unique(np.linspace(0, total - 1, num=min(k, total)).round().astype(np.int64))
    return [(int(p // games), int(p % games)) for p in picks]


__all__ = ["SampleError", "SampleGame", "SampleMismatch", "check_against_rows", "run_scenario", "sample_game", "sample_ids",
           "unreplayable", "verified_game"]

"""One digest per shipped scenario of its dataset at a small size: the check that a refactor changed
no decision and no score sheet.

    python scripts/dataset_digest.py --games 20 > before.txt      # on the old commit's install
    python scripts/dataset_digest.py --games 20 > after.txt       # on the new one
    diff before.txt after.txt

Each scenario in scenarios/ is played with `hadara-sim simulate --games N --seed S` into a temporary
directory (one process: the same rows for any number of jobs, but one is quickest for tiny runs);
its Parquet rows, sorted by combination, game and seat, are hashed column by column. Prints one
line per scenario: its name, rows and the digest (and the columns' names, so a renamed column shows).
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tempfile
from pathlib import Path

import polars as pl
import typer

from hadara_sim.cli.common import run_script

ROOT = Path(__file__).resolve().parent.parent


def digest(directory: Path) -> tuple[int, str]:
    """(rows, sha1) of every Parquet row under `directory`, in a fixed order."""
    frame = pl.concat([pl.read_parquet(path) for path in sorted(directory.glob("*.parquet"))], how="vertical")
    frame = frame.sort(["combo", "game", "seat"])
    sha = hashlib.sha1(",".join(frame.columns).encode())
    for name in frame.columns:
        if frame[name].dtype == pl.Binary:
            for value in frame[name]:
                sha.update(b"<null>" if value is None else len(value).to_bytes(4, "little") + value)
        else:
            sha.update(frame[name].cast(pl.String).fill_null("<null>").str.join("|").item().encode())
    return frame.height, sha.hexdigest()


def chosen(folder: Path, only: list[str]) -> list[Path]:
    """The scenario files to play: every one in `folder`, or those --only names. None to play is
    refused: it printed nothing and exited 0, and two empty digests diff as equal."""
    scenarios = sorted(folder.glob("*.toml"))
    if not scenarios:
        raise typer.BadParameter(f"{folder} holds no scenario files (*.toml); give the folder of scenario files",
                                 param_hint="--scenarios")
    names = [s.stem for s in scenarios]
    unknown = [name for name in only if name not in names]
    if unknown:
        raise typer.BadParameter(f"{', '.join(unknown)}: no such scenario in {folder}; its scenarios are "
                                 f"{', '.join(names)}", param_hint="--only")
    return [s for s in scenarios if not only or s.stem in only]


def main(games: int = typer.Option(20, "--games", "-n", min=1, help="Games (deals) per combination."),
         seed: int = typer.Option(11, "--seed", "-s", min=0),
         only: list[str] = typer.Option([], "--only", help="Scenario names to play (default: every one)."),
         folder: Path = typer.Option(ROOT / "scenarios", "--scenarios", help="The folder of scenario files.")):
    with tempfile.TemporaryDirectory() as tmp:
        for scenario in chosen(folder, only):
            out = Path(tmp) / scenario.stem
            run = subprocess.run([str(Path(sys.executable).parent / "hadara-sim"), "simulate", str(scenario), "--games",
                                  str(games), "--seed", str(seed), "--jobs", "1", "--quiet", "--out", str(out)],
                                 capture_output=True, text=True)
            if run.returncode:
                print(f"{scenario.stem}: failed\n{run.stderr[-2000:]}")
                continue
            rows, sha = digest(out)
            print(f"{scenario.stem}: {rows} rows {sha}", flush=True)


if __name__ == "__main__":
    run_script(main)

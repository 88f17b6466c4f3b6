"""The expert with learned kinds taken out: a weights file whose `draw`, `pick` or `statue` rows weigh nothing
(and, for statues, without their trees), so those decisions play as foresight plays them, to see which part of the learned correction moves an answer.

    python scripts/ablate_expert.py --zero draw --out no-draw.toml
    hadara-sim simulate scenarios/setup-cards-ladder-4p.toml --games 24000 --seed 59 -j 2 --set \\
        'sweep.policies=[["foresight"], ["expert"], [{policy = "expert", params = {weights = "no-draw.toml"}}]]'

Every weights table of the file is ablated alike (the shared weights and each player count's own); the file
written keeps the source's iterations and names this command.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import typer

from hadara_sim.cli.common import run_script, writable_file
from hadara_sim.kernels.expert import FEATURES, KINDS
from hadara_sim.learn import lineage, weights_toml
from hadara_sim.policies.expert import WEIGHTS_FILE, Weights, read_weights


def ablated(weights: Weights, zero: list[str]) -> Weights:
    """`weights` with the rows of the kinds in `zero` set to nothing, in every epoch and table (and
    without statue trees when the statues are taken out)."""
    def cut(vector):
        blocks = vector.reshape(3, len(KINDS), len(FEATURES)).copy()
        blocks[:, [KINDS.index(k) for k in zero], :] = 0.0
        return blocks.reshape(-1)
    return Weights(weights.path, weights.components, cut(weights.vector),
                   {players: cut(own) for players, own in weights.by_players.items()},
                   None if "statue" in zero else weights.trees)


def main(zero: list[str] = typer.Option(..., "--zero", help=f"A learned kind to take out ({', '.join(KINDS)}); "
                                        "give it again for more."),
         out: Path = typer.Option(..., "--out", help="The weights file to write."),
         weights: Path = typer.Option(WEIGHTS_FILE, "--weights", help="The weights to ablate (default: the shipped "
                                      "ones).")):
    if not set(zero) <= set(KINDS):
        raise typer.BadParameter(f"{', '.join(sorted(set(zero) - set(KINDS)))}: the expert learns "
                                 f"{', '.join(KINDS)}", param_hint="--zero")
    writable_file(out)
    try:
        source = read_weights(weights)
        history = lineage(weights)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        raise typer.Exit(2) from None
    command = "python " + shlex.join(["scripts/ablate_expert.py", *sys.argv[1:]])
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(weights_toml(ablated(source, zero), history, command, script="scripts/ablate_expert.py"),
                   encoding="utf-8")
    print(f"wrote {out}: {', '.join(zero)} as foresight plays them", file=sys.stderr)


if __name__ == "__main__":
    run_script(main)

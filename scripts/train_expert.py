"""Learn the expert's weights by expert iteration (hadara_sim/learn.py) and write them with this command.

    python scripts/train_expert.py --out policies/tuned/expert-weights.toml
    python scripts/train_expert.py --components my-set/ --out my-expert.toml   # then weights=my-expert.toml
    python scripts/train_expert.py --start my-expert.toml --out my-expert.toml --step 0.5   # go on from a file
    python scripts/train_expert.py --start my-expert.toml --out my-expert.toml -p 2 --alone   # 2 players' own
    python scripts/train_expert.py --out my-expert.toml --depth 1   # copies stopped at the position value
    python scripts/train_expert.py --start my-expert.toml --out my-expert.toml --kinds statue   # statues only
    python scripts/train_expert.py --start my-expert.toml --out my-expert.toml --kinds statue --statue-model trees

Starts from foresight (no correction) unless `--start FILE`, whose iterations the file written keeps (numbered
on from them, each with its command); each iteration labels a sample of the decisions of `--kinds` (draws,
picks and statues unless named) in self-play games by search (every legal option played on in determinised
copies by the current expert), fits new weights, moves `--step` of the way from the current weights to them,
and keeps them only if they beat the current ones head to head on fresh deals, seats rotated. With `--alone`
and one player count, the weights learned are that count's own (the expert plays them there; the shared
weights and other counts' stay as they were). With `--statue-model trees` the statues are valued by
regression trees fitted afresh each iteration (every statue face labelled, the player count one of their
inputs: shared by every count) instead of their weights. Same arguments, same weights. Progress goes to standard error
(`--quiet` silences it).
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import typer

from hadara_sim import load_components
from hadara_sim.cli.common import recordable, run_script, writable_file
from hadara_sim.components import ComponentError
from hadara_sim.kernels.expert import KINDS
from hadara_sim.learn import Budget, LearnError, lineage, train, weights_toml
from hadara_sim.policies.expert import read_weights


def main(out: Path = typer.Option(..., "--out", help="The weights file to write."),
         components: Path = typer.Option(None, "--components", help="A component set (default: the shipped one)."),
         players: list[int] = typer.Option([2, 4], "--players", "-p", min=2, max=5,
                                           help="Player counts learned together."),
         iterations: int = typer.Option(3, "--iterations", min=1,
                                        help="Iterations at most (fewer if one is not better)."),
         games: int = typer.Option(60, "--games", min=1,
                                   help="Self-play games per player count labelled per iteration."),
         rate: float = typer.Option(0.25, "--rate", help="Share of the card-decision steps labelled."),
         copies: int = typer.Option(8, "--copies", min=1, help="Determinised copies per option."),
         duel_games: int = typer.Option(2000, "--duel-games", min=2, help="Head-to-head games per player count."),
         start: Path = typer.Option(None, "--start", help="Weights to start from (default: foresight's, none)."),
         step: float = typer.Option(1.0, "--step", help="Share of the way from the current weights to the fitted ones "
                                                        "an iteration moves (below 1: damped)."),
         alone: bool = typer.Option(False, "--alone", help="Learn weights of the one player count given for it "
                                                          "alone (the other counts keep theirs)."),
         depth: int = typer.Option(3, "--depth", min=1, max=3,
                                   help="Epochs the labelling copies are played through, the current one "
                                        "counted (3: to the end; 1, 2: stopped at the learned position value, "
                                        "as search's depth)."),
         value: Path = typer.Option(None, "--value", help="The position value file for --depth below 3 (default: "
                                                          "the built-in policies/tuned/position-value.toml)."),
         kinds: list[str] = typer.Option(list(KINDS), "--kinds", help=f"Decision kinds labelled and learned "
                                         f"({', '.join(KINDS)}; the others' weights stay as they are)."),
         statue_model: str = typer.Option("linear", "--statue-model", help="How the statues are valued: "
                                          "\"linear\" (weights of their features) or \"trees\" (regression trees "
                                          "of their features and situation, fitted with scikit-learn)."),
         seed: int = typer.Option(0, "--seed", "-s", min=0),
         quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress.")):
    for option, share in (("--rate", rate), ("--step", step)):
        if not 0 < share <= 1:  # nan too
            raise typer.BadParameter(f"{share:g} is not a share above 0 and at most 1", param_hint=option)
    if alone and len(set(players)) != 1:
        raise typer.BadParameter(f"it learns the weights of one player count alone: give one -p, not "
                                 f"{len(set(players))}", param_hint="--alone")
    if not set(kinds) <= set(KINDS):
        raise typer.BadParameter(f"--kinds {', '.join(sorted(set(kinds) - set(KINDS)))}: the expert learns "
                                 f"{', '.join(KINDS)}")
    if statue_model not in ("linear", "trees"):
        raise typer.BadParameter(f"{statue_model!r} is not \"linear\" or \"trees\"", param_hint="--statue-model")
    writable_file(out)  # before the training, not after it
    command = recordable("python " + shlex.join(["scripts/train_expert.py", *sys.argv[1:]]), out)
    try:
        c = load_components(components) if components else load_components()
        begin = read_weights(start) if start else None
        earlier = lineage(start) if start else []
        if begin:
            begin.check(c)
        budget = Budget(tuple(players), iterations, games, rate, copies, duel_games, seed, step, alone, depth,
                        str(value or ""), tuple(k for k in KINDS if k in kinds), statue_model)
        weights, history = train(c, budget, begin, say=(lambda _: None) if quiet else
                                 (lambda line: print(line, file=sys.stderr, flush=True)),
                                 first=1 + max((it.number for it in earlier), default=0))
    except (ComponentError, ValueError, LearnError) as err:
        print(f"error: {err}", file=sys.stderr)
        raise typer.Exit(2) from None
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(weights_toml(weights, earlier + history, command), encoding="utf-8")
    if not quiet:
        print(f"wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    run_script(main)

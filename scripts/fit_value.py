"""Fit the position value search's depth-limited copies stop at (hadara_sim/value_fit.py), and write it
with this command.

    python scripts/fit_value.py --out policies/tuned/position-value.toml
    python scripts/fit_value.py --components my-set/ --set weights=my-expert.toml --out my-value.toml
        # your own set: its expert's self-play (scripts/train_expert.py), then search value=my-value.toml

Self-play games of `--field` (default: the expert, search's default rollout; a user's policy by
`module:attr` too) at each player count; each seat's board at the end of epochs I and II regressed on
its final total; the fit checked on fresh games (printed, and kept in the file). Same arguments, same
coefficients. Progress goes to standard error (`--quiet` silences it).
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import typer

from hadara_sim import load_components
from hadara_sim.cli.common import recordable, run_script, writable_file
from hadara_sim.components import ComponentError
from hadara_sim.constants import MAX_SEED
from hadara_sim.params import parse_value
from hadara_sim.registry import PolicyNotFound, make_policy
from hadara_sim.value_fit import fit_value, value_toml


def main(out: Path = typer.Option(..., "--out", help="The value file to write."),
         components: Path = typer.Option(None, "--components", help="A component set (default: the shipped one)."),
         players: list[int] = typer.Option([2, 3, 4, 5], "--players", "-p", min=2, max=5, help="Player counts fitted."),
         games: int = typer.Option(8000, "--games", min=20, help="Self-play games fitted per player count."),
         holdout: int = typer.Option(2000, "--holdout", min=20,
                                     help="Fresh games per player count the fit is checked on."),
         field: str = typer.Option("expert", "--field", help="The policy whose self-play games are fitted."),
         set_: list[str] = typer.Option([], "--set", help="A parameter of the field policy: name=value (e.g. "
                                                          "weights=my-expert.toml for an expert of your own set)."),
         seed: int = typer.Option(0, "--seed", "-s", min=0, max=MAX_SEED),
         quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress.")):
    writable_file(out)  # before the fit, not after it
    command = recordable("python " + shlex.join(["scripts/fit_value.py", *sys.argv[1:]]), out)
    try:
        c = load_components(components) if components else load_components()
        policy = make_policy(field, seed=seed, **{k: parse_value(v) for k, _, v in (x.partition("=") for x in set_)})
        if hasattr(policy, "weights"):
            policy.weights.check(c)
        value, quality = fit_value(c, policy, tuple(dict.fromkeys(players)), games, holdout, seed,
                                   say=(lambda _: None) if quiet else
                                   (lambda line: print(line, file=sys.stderr, flush=True)))
    except (ComponentError, PolicyNotFound, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        raise typer.Exit(2) from None
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(value_toml(value, quality, command), encoding="utf-8")
    if not quiet:
        print(f"wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    run_script(main)

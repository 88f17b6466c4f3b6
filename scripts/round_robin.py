"""The round robin behind the strength ladder: Bradley-Terry ratings of policies by head-to-head play.

    python scripts/round_robin.py --games 600 --games-of search=40 --seed 31

Policies are `name` or `name:key=value:key=value` (`search:rollout=expert`); the default pool is
balanced, foresight, expert and search with balanced and with expert rollouts. At each player count
(`--players`, 2 and 4 unless told) every pair meets one seat against the rest both ways round (1 v 1
at 2 players) and, at 4, in the mirrored 2 + 2; seats rotate and every design plays the same fresh
deals, advanced game (`hadara_sim.round_robin`). `--games-of name=N` plays N games in each design
where a policy of that name sits (search is slow). Prints per player count each design's win share
of the first policy with its 95 % Wilson interval and the fair share, then the Bradley-Terry ratings
(log-odds against the average policy, 95 % CI clustered on the deal), strongest first, and again
without the designs where a policy models its opponent exactly (search with the expert's rollouts
against the expert: they measure how well it exploits its model, not its strength), and the CPU
seconds the games took. The same seed gives the same tables.
"""

from __future__ import annotations

import time

import typer

from hadara_sim import load_components
from hadara_sim.constants import MAX_SEED
from hadara_sim.registry import make_policy, split_spec
from hadara_sim.round_robin import design_rates, modelled, ratings, round_robin
from hadara_sim.scenario.policies import policy_label
from hadara_sim.cli.common import run_script

POOL = ["balanced", "foresight", "expert", "search:rollout=balanced", "search:rollout=expert"]


def tables(frame, players: list[int], exploits=frozenset()) -> str:
    """The printed result: per player count the designs and the ratings, and with `exploits` (pairs of
    labels where the first models the second exactly, `modelled`) the ratings again without them."""
    lines = []
    for p in players:
        lines.append(f"\n{p} players: each design's share of the wins of its first policy (seats rotated, "
                     f"same deals), 95 % Wilson CI")
        for r in design_rates(frame, p).iter_rows(named=True):
            lines.append(f"  {r['a']:>24} {r['kind']:<6} {r['b']:<24} n {r['n']:>5}  "
                         f"{100 * r['share']:5.1f}% [{100 * r['low']:5.1f}, {100 * r['high']:5.1f}]  "
                         f"fair {100 * r['fair']:4.1f}%")
        heads = [(frozenset(), "")]
        if exploits:
            named = "; ".join(f"{a} v {b}" for a, b in sorted(exploits))
            heads.append((exploits, f" without the designs where a policy models its opponent exactly ({named}: "
                                    "they measure the exploit, not strength)"))
        for leave_out, why in heads:
            lines.append(f"{p} players: Bradley-Terry ratings{why} (log-odds of finishing ahead, against the average "
                         "policy; 95 % CI clustered on the deal)")
            for r in ratings(frame, p, leave_out).iter_rows(named=True):
                lines.append(f"  {r['policy']:>24} {r['rating']:+.2f} [{r['low']:+.2f}, {r['high']:+.2f}]  "
                             f"{r['comparisons']:>6} comparisons" + ("  (weak prior: a policy never or always won)"
                                                                      if r["prior"] else ""))
    return "\n".join(lines)


def main(policy: list[str] = typer.Option(POOL, "--policy", help="name or name:key=value:..., repeated."),
         players: list[int] = typer.Option([2, 4], "--players", "-p", min=2, max=5),
         games: int = typer.Option(600, "--games", "-n", min=2, help="Games per design."),
         games_of: list[str] = typer.Option([], "--games-of",
                                            help="name=N: N games in the designs where a policy of that name sits."),
         seed: int = typer.Option(0, "--seed", "-s", min=0, max=MAX_SEED),
         jobs: int = typer.Option(1, "--jobs", "-j", min=1, help="Processes to split each design's games over."),
         quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress lines.")):
    c = load_components()
    try:
        specs = [split_spec(s) for s in policy]
        pool = {policy_label(name, params): make_policy(name, seed=seed + k, **params)
                for k, (name, params) in enumerate(specs)}
    except (ValueError, LookupError) as err:  # an unknown policy or a bad parameter
        raise typer.BadParameter(str(err)) from None
    if len(pool) < 2:  # else it stopped in max() of no designs
        raise typer.BadParameter(f"a round robin needs two different policies at least, got {len(pool)} "
                                 f"({', '.join(pool)}): add another", param_hint="--policy")
    named = {policy_label(name, params): name for name, params in specs}
    slow = {}
    for item in games_of:
        name, sep, value = item.partition("=")
        if not sep or not value.isdigit() or int(value) < 2:
            raise typer.BadParameter(f"--games-of {item!r}: write name=N with N >= 2")
        if name not in named.values():  # a misspelt name played every design at --games, and was printed as set
            raise typer.BadParameter(f"--games-of {item!r}: no policy named {name!r} plays; the names are "
                                     f"{', '.join(dict.fromkeys(named.values()))}")
        slow[name] = int(value)

    def count(a: str, b: str, p: int) -> int:
        return min([games, *[slow[named[x]] for x in (a, b) if named[x] in slow]])

    def said(p, a, b, kind, n):
        if not quiet:
            print(f"  played {p}P {a} {kind} {b}: {n} games ({time.process_time() - start:.0f} CPU s so far)",
                  flush=True)

    start = time.process_time()
    frame = round_robin(c, pool, players, count, seed, True, jobs, said)
    took = time.process_time() - start
    print(tables(frame, players, frozenset(modelled(pool))))
    print(f"\n{took:.0f} CPU seconds of this process for the games (seed {seed}; --games {games}"
          + "".join(f", {k}: {v}" for k, v in slow.items()) + ")")


if __name__ == "__main__":
    run_script(main)

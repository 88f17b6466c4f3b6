"""Strength of bots as one seat against a field, at several player counts: the table behind issue notes.

    python scripts/strength.py balanced-v1 search --players 2 --players 3 --players 4 --players 5 \
        --games 2000 --games-of search=200 --seed 7

Each bot sits in one seat of every game, the seat rotating game by game, and every other seat is
played by the field (`--field`, tuned `balanced` unless told; `--field a,b` deals the other seats
from that list in turn, a mix). Advanced game, fresh deals from `--seed`. Prints per bot and player
count: games, the bot's win share (a shared win split) with its 95 % Wilson interval, the fair share
1/P, and games per second of the whole batch (the field's moves included; warm compiled code, the
games split over `--jobs` processes: the same results for any number).
"""

from __future__ import annotations

import time

import numpy as np
import typer

from hadara_sim import load_components
from hadara_sim.cli.common import run_script
from hadara_sim.constants import MAX_SEED
from hadara_sim.deal import make_deals
from hadara_sim.ladder import play_split
from hadara_sim.params import parse_value
from hadara_sim.registry import make_policy
from hadara_sim.report.inference import rate_interval


def one_seat(games: int, players: int, field: int) -> np.ndarray:
    """(games, P) policy index per seat: 0 (the bot) at seat g % P, the field's `field` policies
    (1..field) dealt to the other seats in turn."""
    table = np.empty((games, players), np.int64)
    for g in range(games):
        others = iter(1 + (np.arange(players - 1) + g) % field)
        table[g] = [0 if seat == g % players else next(others) for seat in range(players)]
    return table


def games_per_bot(games_of: list[str], bots: list[str], games: int) -> dict[str, int]:
    """Each bot's games: `games`, or N where --games-of says bot=N (a malformed one stopped in a
    traceback, N = 0 printed 'nan%', a bot not asked for was passed over)."""
    counts = dict.fromkeys(bots, games)
    for item in games_of:
        bot, _, number = item.partition("=")
        if bot not in counts or not number.isdigit() or int(number) < 1:
            raise typer.BadParameter(f"'{item}': write bot=N, a bot asked for ({', '.join(bots)}) and a whole number "
                                     f"of games of at least 1, e.g. {bots[0]}=200", param_hint="--games-of")
        counts[bot] = int(number)
    return counts


def params_per_policy(set_: list[str], names: list[str]) -> dict[str, dict]:
    """The --set parameters by policy: bot:name=value, the bot one of `names` (another, or one without
    name=value, was passed over and the run played without it)."""
    params: dict[str, dict] = {}
    for item in set_:
        bot, _, assignment = item.partition(":")
        name, equals, value = assignment.partition("=")
        if bot not in names or not name or not equals:
            raise typer.BadParameter(f"'{item}': write bot:name=value, the bot one of {', '.join(dict.fromkeys(names))}"
                                     f", e.g. {names[0]}:coin=0.5", param_hint="--set")
        params.setdefault(bot, {})[name] = parse_value(value)
    return params


def main(bots: list[str], players: list[int] = typer.Option([2, 4], "--players", "-p", min=2, max=5),
         games: int = typer.Option(1000, "--games", "-n", min=1, help="Games per bot and player count."),
         games_of: list[str] = typer.Option([], "--games-of", help="bot=N: another number of games for a bot."),
         field: str = typer.Option("balanced", "--field", help="The other seats: one policy, or a,b,c in turn."),
         set_: list[str] = typer.Option([], "--set", help="bot:name=value, a parameter of one bot (or field policy)."),
         seed: int = typer.Option(0, "--seed", "-s", min=0, max=MAX_SEED),
         jobs: int = typer.Option(1, "--jobs", "-j", min=1, help="Processes to split the games over.")):
    c = load_components()
    field_names = field.split(",")
    counts = games_per_bot(games_of, bots, games)
    params = params_per_policy(set_, [*bots, *field_names])
    for bot in bots:
        for p in players:
            n = counts[bot]
            try:
                policies = [make_policy(bot, seed=seed, **params.get(bot, {}))]
                policies += [make_policy(name, seed=seed + 1 + k, **params.get(name, {}))
                             for k, name in enumerate(field_names)]
            except (ValueError, LookupError) as err:  # an unknown policy or a bad --set
                raise typer.BadParameter(str(err)) from None
            deals = make_deals(c, p, n, seed=np.random.SeedSequence([seed, p]), advanced=True)
            table = one_seat(n, p, len(field_names))
            play_split(deals[:max(jobs, 2)], c, policies, table[:max(jobs, 2)], jobs)  # warm up
            start = time.perf_counter()
            sheet = play_split(deals, c, policies, table, jobs)
            took = time.perf_counter() - start
            shares = np.where(table == 0, sheet["win_share"], 0.0).sum(axis=1)
            low, high = rate_interval(shares)
            print(f"{bot:<14} {p}P vs {field}: {n:>6} games  win {100 * shares.mean():5.1f}% "
                  f"[{100 * low:5.1f}, {100 * high:5.1f}]  fair {100 / p:4.1f}%  {n / took:9.1f} games/s ({jobs} proc.)",
                  flush=True)


if __name__ == "__main__":
    run_script(main)

"""Tuning a policy's parameters against a field of opponents, with a held-out validation.

Every candidate plays the same training deals (common random numbers), so candidates differ by their
play and not by their luck; optuna's TPE sampler proposes the candidates. The training winner then
has to beat the starting parameters head to head on fresh deals, seats rotated: the win share's 95 %
Wilson interval must lie above one half. A candidate that only won on the training deals fails there.
"""

from __future__ import annotations

import json
import math
import re
import shlex
from dataclasses import dataclass, field

import numpy as np
import optuna

from .components import ComponentSet
from .invocation import program
from .ladder import play_head_to_head
from .params import check_params
from .registry import about_policy, make_policy
from .report.inference import rate_interval

SIDES = "sides"  # a per-setup-card side table: tuned as one categorical choice per card


@dataclass
class Range:
    """A parameter's search range: floats in [low, high], or one of `choices` per entry of a tuple."""

    low: float = 0.0
    high: float = 1.0
    choices: tuple = ()


def default_space(policy: str, advanced: bool = True) -> dict[str, Range]:
    """Every number parameter from half to one and a half times its default (0..1 if it is 0; whole
    numbers around a whole-number one), within its declared range, and a side table if the policy has
    one and the games are advanced (the basic game has no sides)."""
    about = about_policy(policy)
    declared = about.declared
    space = {}
    for name, value in about.params.items():
        if name == SIDES:
            if advanced:
                space[name] = Range(choices=(-1, 0, 1))
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            low, high = (0.5 * value, 1.5 * value) if value > 0 else (0.0, 1.0)
            limit = declared[name].limit if name in declared else None
            if isinstance(value, int):  # whole-number ends for a whole-number parameter
                low, high = math.floor(low), math.ceil(high)
            if isinstance(limit, tuple):
                low, high = max(low, limit[0]), min(high, limit[1])
            space[name] = Range(low, high)
    return space


def parse_range(text: str) -> tuple[str, Range]:
    """`name=low:high` or `name=a,b,c` (choices for every entry of a tuple parameter)."""
    name, sep, spec = text.partition("=")
    try:
        if not sep:
            raise ValueError
        if ":" in spec:
            low, high = (float(x) for x in spec.split(":"))
            if not (math.isfinite(low) and math.isfinite(high)) or low > high:
                raise ValueError
            return name.strip(), Range(low, high)
        return name.strip(), Range(choices=tuple(int(x) for x in spec.split(",")))
    except ValueError:
        raise ValueError(f"--param {text!r}: write name=low:high (a number range) or name=a,b,c "
                         "(whole-number choices for each entry of a tuple such as sides)") from None


def check_space(policy: str, space: dict[str, Range], defaults: dict) -> None:
    """ValueError, before any game, when an end of a range or a choice is not a value the policy
    takes (its type and declaration, `hadara_sim.params`)."""
    about = about_policy(policy)
    for name, r in space.items():
        if isinstance(defaults[name], (tuple, list)) and not r.choices:  # its trial stopped in float(tuple)
            raise ValueError(f"--param {name}={r.low:g}:{r.high:g}: {name} is a tuple of {len(defaults[name])} "
                             f"entries, tuned by choices for each entry: write {name}=a,b,c (e.g. {name}=0,1,2)")
        for value in (r.choices or (r.low, r.high)):
            shaped = tuple(value for _ in defaults[name]) if isinstance(defaults[name], (tuple, list)) else value
            if isinstance(defaults[name], int) and not isinstance(defaults[name], bool) and float(value).is_integer():
                shaped = int(value)
            wrong = check_params(about.params, {name: shaped}, about.declared, {name: shaped})
            if wrong:
                where, message = wrong[0]
                raise ValueError(f"--param {name}: {value:g} is not a value policy '{policy}' takes "
                                 f"({'.'.join(map(str, where))}: {message})")


@dataclass
class Match:
    """Head to head of `a` against `b` on the same deals, seats rotated: per game, a's win share."""

    players: int
    opponent: str
    shares: np.ndarray
    a_totals: np.ndarray  # totals of a's seats in the games a won
    b_totals: np.ndarray  # totals of b's seats in the games b won

    def wilson(self) -> tuple[float, float]:
        return rate_interval(self.shares)


def match(components: ComponentSet, a, b, players: int, games: int, seed, advanced: bool,
          opponent: str = "", jobs: int = 1) -> Match:
    """Policy instance `a` against `b` on `games` deals from `seed`, seats rotated."""
    seats, sheet = play_head_to_head(components, a, b, players, games, seed, advanced, jobs)
    mine = seats == 0
    shares = np.where(mine, sheet["win_share"], 0.0).sum(axis=1)
    won = sheet["win_share"] > 0
    return Match(players, opponent, shares, sheet["total"][mine & won], sheet["total"][~mine & won])


@dataclass
class Tuning:
    """What `tune` found: the chosen parameters, their training score and the held-out verdict."""

    policy: str
    params: dict
    training_score: float
    trials: list[dict]
    validation: list[Match] = field(default_factory=list)

    @property
    def validation_shares(self) -> np.ndarray:
        return np.concatenate([m.shares for m in self.validation])

    @property
    def passed(self) -> bool:
        """The pooled win share against the starting parameters is above one half (95 % Wilson), and
        no player count is significantly below it."""
        low, _ = rate_interval(self.validation_shares)
        return low > 0.5 and all(m.wilson()[1] >= 0.5 for m in self.validation)


def suggest(trial: optuna.Trial, space: dict[str, Range], defaults: dict) -> dict:
    params = {}
    for name, r in space.items():
        if r.choices:
            n = len(defaults[name]) if isinstance(defaults.get(name), (tuple, list)) else 1
            picks = tuple(trial.suggest_categorical(f"{name}[{i}]", list(r.choices)) for i in range(n))
            params[name] = picks if isinstance(defaults.get(name), (tuple, list)) else picks[0]
        elif isinstance(defaults.get(name), int) and not isinstance(defaults.get(name), bool):
            params[name] = trial.suggest_int(name, int(r.low), int(r.high))  # check_space: whole-number ends
        else:
            params[name] = trial.suggest_float(name, r.low, r.high)
    return params


def tune(components: ComponentSet, policy: str, opponents: list[str], players: list[int], trials: int,
         games: int, validation_games: int, seed: int = 0, advanced: bool = True,
         space: dict[str, Range] | None = None, start: dict | None = None, progress=None) -> Tuning:
    """Tune `policy` against the field `opponents` (names; "start" is the policy with its starting
    parameters), then validate the best candidate head to head against the start on fresh deals."""
    space = default_space(policy, advanced) if space is None else space
    start = dict(start or {})
    defaults = {**about_policy(policy).params, **start}
    unknown = set(space) - set(defaults)
    if unknown:
        raise ValueError(f"policy '{policy}' has no parameter {', '.join(sorted(unknown))}; its parameters: "
                         f"{', '.join(defaults)}")
    check_space(policy, space, defaults)
    if SIDES in space and not advanced:  # tuned a side table the basic game never plays, and kept its noise
        raise ValueError(f"{SIDES} is the setup side table, which only the advanced game plays: tune it with "
                         "advanced games (--advanced), or leave it out")
    make_policy(policy, seed=seed, **start)  # one that cannot be made stops here, not as a failed trial
    if not space:  # else its training and held-out games were played, to choose nothing
        how = (f"its {SIDES} table is tuned in the advanced game (--advanced)" if SIDES in defaults else
               f"tune a policy with number parameters (`{program()} policies show NAME` lists them)")
        raise ValueError(f"policy '{policy}' has nothing to tune: no number parameter (its parameters: "
                         f"{', '.join(defaults) or 'none'}); {how}")
    training, held_out = np.random.SeedSequence(seed).spawn(2)
    train = dict(zip(players, training.spawn(len(players))))
    fresh = dict(zip(players, held_out.spawn(len(players))))

    def field_of():
        return [(name, make_policy(policy, seed=seed, **start) if name == "start" else make_policy(name, seed=seed))
                for name in opponents]

    def objective(trial: optuna.Trial) -> float:
        candidate = make_policy(policy, seed=seed, **{**start, **suggest(trial, space, defaults)})
        scores = [match(components, candidate, opp, p, games, train[p], advanced).shares.mean()
                  for p in players for _, opp in field_of()]
        if progress:
            progress()
        return float(np.mean(scores))

    field_of()
    # A trial's failure (a user's policy raising, a Ctrl-C) comes out of optimize() and is named there; at
    # WARNING optuna logged it first, traceback and all ("Trial 0 failed ... Traceback (most recent call last)")
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    study = optuna.create_study(direction="maximize", sampler=optuna.samplers.TPESampler(seed=seed))
    study.enqueue_trial(_as_trial(space, defaults))  # the starting point is the first candidate
    study.optimize(objective, n_trials=trials)
    best = study.best_trial
    chosen = {**start, **_from_trial(best.params, space, defaults)}
    result = Tuning(policy, chosen, float(best.value),
                    [{"number": t.number, "score": t.value, **t.params} for t in study.trials])
    candidate = make_policy(policy, seed=seed, **chosen)
    baseline = make_policy(policy, seed=seed, **start)
    result.validation = [match(components, candidate, baseline, p, validation_games, fresh[p], advanced, "start")
                         for p in players]
    return result


def _as_trial(space: dict[str, Range], defaults: dict) -> dict:
    """The starting parameters as optuna trial values (clipped into the ranges)."""
    values = {}
    for name, r in space.items():
        if r.choices:
            entries = defaults[name] if isinstance(defaults[name], (tuple, list)) else (defaults[name],)
            for i, v in enumerate(entries):
                values[f"{name}[{i}]"] = v if v in r.choices else r.choices[0]
        else:
            values[name] = min(max(float(defaults[name]), r.low), r.high)
    return values


def _from_trial(values: dict, space: dict[str, Range], defaults: dict) -> dict:
    params = {}
    for name, r in space.items():
        if r.choices:
            if isinstance(defaults[name], (tuple, list)):
                params[name] = tuple(values[f"{name}[{i}]"] for i in range(len(defaults[name])))
            else:
                params[name] = values[f"{name}[0]"]
        else:
            params[name] = round(values[name], 4)
    return params


def to_toml(result: Tuning, argv: list[str]) -> str:
    """The tuned parameters with the command that produced them and the held-out verdict."""
    lines = ["# Written by `hadara-sim policies tune`; rerun the command below to retune.",
             f"command = {_toml(shlex.join(argv))}", f"policy = {_toml(result.policy)}",
             f"training_score = {result.training_score:.4f}  # mean win share against the field",
             f"validation_passed = {str(result.passed).lower()}", "", "[params]"]
    lines += [f"{k} = {_toml(v)}" for k, v in sorted(result.params.items())]
    for m in result.validation:
        low, high = m.wilson()
        lines += ["", "[[validation]]", f"players = {m.players}", f"games = {len(m.shares)}",
                  f"win_share = {m.shares.mean():.4f}", f"ci95 = [{low:.4f}, {high:.4f}]",
                  'against = "starting parameters"']
    return "\n".join(lines) + "\n"


def toml_string(text: str) -> str:
    """`text` as a TOML basic string: a command quoted by the shell for a path such as "Bob's set" holds
    a double quote, which written between bare double quotes ended the string and left the file
    unreadable. JSON's escapes are TOML's (non-ASCII written as it is: TOML has no surrogate pairs), but
    for DEL, which TOML also wants escaped and JSON writes as it is (the file did not read back). A lone
    surrogate (a byte of a file name that is not UTF-8, as Python reads it from the command line) is
    no Unicode character: neither TOML nor a UTF-8 file can hold it, so it is refused, a ValueError
    naming it (it stopped the writing of a tuned file, after the tuning, with a UnicodeEncodeError)."""
    lone = _SURROGATE.search(text)
    if lone:
        raise ValueError(f"{text[:lone.start()][-40:]!r}... holds U+{ord(lone.group()):04X}, a byte that is no "
                         "UTF-8 text (from a file or folder name?); a TOML file cannot hold it: rename it, or "
                         "name it otherwise")
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


_SURROGATE = re.compile("[\ud800-\udfff]")


def _toml(value) -> str:
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, bool):
        return str(value).lower()
    return repr(value)

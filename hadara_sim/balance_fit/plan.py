"""What a fit plays and may change: its plan, the values each side may change and the designed sweep
(see the package docstring)."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import polars as pl

from .. import balance
from ..components import RANGES, SETUP_VALUES, ComponentSet
from ..constants import MAX_GAMES
from ..problems import is_whole
from ..report import inference as I

SIDES = tuple(f"{card}{side}" for card in range(1, 6) for side in "AB")
REACH = 3            # steps of `balance.STEPS` a value may move from its current value (coins 6, tracks 3)
MAX_CHANGED = 2      # values of one side a proposal may change
AIM = 0.5            # the proposer's target: predicted win share within AIM x margin of 1/P
POINTS = 12          # design points besides the current set
REFERENCE_DEALS = 5000  # deals the surrogate averages its predicted shares over
SAMPLE_GAMES = 400      # games a design point of the random sample `fitting_seconds` times the fits on

Change = dict[str, dict[str, int]]   # side ("3B") -> field -> change from its current value
Play = Callable[[int, Change, int, int, str], pl.DataFrame]  # (players, change, seed, games, label) -> rows


class Confirming:
    """The fresh games a fit's confirmations play, one number or one per player count (a plan with
    `players` and `confirm_games`: `FitPlan`, `cards.CardPlan`)."""

    players: list[int]
    confirm_games: int | dict[int, int]
    margin: float
    aim: float

    def __post_init__(self):
        if isinstance(self.players, int):  # players=4 from Python, as -p 4 on the command line
            self.players = [self.players]
        self.check_numbers()
        if not isinstance(self.confirm_games, int):
            missing = [p for p in self.players if p not in self.confirm_games]
            if missing or any(g < 1 for g in self.confirm_games.values()):
                raise ValueError(f"--confirm-games {self.confirm_option()}: give the games of every player count "
                                 f"the fit plays ({', '.join(map(str, self.players))}) as P=GAMES, e.g. "
                                 f"2=160000,3=100000,4=60000, or one number for all")

    def check_numbers(self) -> None:
        """Every number of the plan in its range before anything plays: margin=0 was refused only after
        the designed sweep, rounds=0 stopped with an IndexError after it, reach=-1 was taken."""
        for name, low in (("games", 1), ("points", 1), ("resweep", 0), ("rounds", 1), ("reach", 1),
                          ("max_changed", 1), ("seed", 0)):
            value = getattr(self, name, low)
            if not is_whole(value) or value < low:
                raise ValueError(f"{name}={value!r}: a whole number of at least {low}")
        wrong = [p for p in self.players if isinstance(p, bool) or p not in (2, 3, 4, 5)]
        if not self.players or wrong:
            raise ValueError(f"players={self.players!r}: player counts from 2 to 5")
        self.margin = I.check_margin(self.margin)
        if isinstance(self.aim, bool) or not isinstance(self.aim, (int, float)) or not 0 < self.aim <= 1:
            raise ValueError(f"aim={self.aim!r}: a share of the margin above 0 and at most 1")

    def confirming(self, players: int) -> int:
        """The fresh games a confirmation plays at `players` (and the current set's run in the design)."""
        if isinstance(self.confirm_games, int):
            return self.confirm_games
        return self.confirm_games[players]

    def confirm_text(self) -> str:
        """The confirmation's games in words: "60,000 games per player count" or "160,000 / 60,000 games at 2 /
        4 players"."""
        if isinstance(self.confirm_games, int):
            return f"{self.confirm_games:,} games per player count"
        return (" / ".join(f"{self.confirming(p):,}" for p in self.players) + " games at "
                + " / ".join(str(p) for p in self.players) + " players")

    def confirm_option(self) -> str:
        """`--confirm-games` as the command line writes it: 60000, or 2=160000,4=60000."""
        if isinstance(self.confirm_games, int):
            return str(self.confirm_games)
        return ",".join(f"{p}={g}" for p, g in sorted(self.confirm_games.items()))


@dataclass
class FitPlan(Confirming):
    """What `fit` plays and aims at."""

    sides: list[str] = field(default_factory=lambda: list(SIDES))   # the sides to make fair
    fields: list[str] = field(default_factory=lambda: list(SETUP_VALUES))  # the values each may change
    players: list[int] = field(default_factory=lambda: [2, 3, 4])
    policy: str = "balanced"
    games: int = 3000            # games per design point and player count
    points: int = POINTS         # design points besides the current set
    resweep: int = 0             # design points played around the set last played before each later round, the
                                 # surrogate then fitted to the runs within one step of that set (0: the first
                                 # sweep's surrogate, refitted with every run)
    confirm_games: int | dict[int, int] = 30000   # fresh games for each confirmation: one number for every
                                                  # player count, or players -> games (2 players need ~2.7x 4's)
    rounds: int = 4              # proposals played at most
    margin: float = I.MARGIN     # equivalence margin on the win share
    aim: float = AIM             # the proposer's target, a share of the margin
    reach: int = REACH           # steps a value may move from its current value
    max_changed: int = MAX_CHANGED
    table: bool = True           # the surrogate may give a side terms for the other seats' changes
    seed: int = 1
    components: str | None = None
    overrides: dict = field(default_factory=dict)  # [components] overrides the set starts from
    jobs: int = 1
    out: str | None = None       # the results directory (runs/ inside it): resumable


def read_confirm_games(text: str) -> int | dict[int, int]:
    """`--confirm-games` read: one number of games, or P=GAMES pairs separated by commas."""
    def games(word: str) -> int:
        try:
            n = int(word.strip().replace("_", ""))
        except ValueError:
            n = 0
        if not 10 <= n <= MAX_GAMES:
            raise ValueError(f"--confirm-games {text}: {word.strip()!r} is not a number of games "
                             f"(10 to {MAX_GAMES:,})")
        return n

    if "=" not in text:
        return games(text)
    out: dict[int, int] = {}
    for pair in (w.strip() for w in text.split(",") if w.strip()):
        players, _, n = pair.partition("=")
        if players.strip() not in {"2", "3", "4", "5"}:
            raise ValueError(f"--confirm-games {text}: expected P=GAMES with P a player count 2 to 5, e.g. "
                             f"2=160000,3=100000,4=60000; got {pair!r}")
        if int(players) in out:
            raise ValueError(f"--confirm-games {text}: {players.strip()} players are given twice; give each "
                             "player count once")
        out[int(players)] = games(n)
    return out


# --- the values a fit may change -------------------------------------------------------------

def currents(components: ComponentSet) -> dict[str, dict[str, int]]:
    """Every setup card side's values by field name."""
    return {f"{i}{s}": {"coins": card.coins, **dict(zip(SETUP_VALUES[1:], card.values))}
            for (i, s), card in components.setup_cards.items()}


def value_range(field_: str) -> tuple[int, int]:
    return RANGES["coins" if field_ == "coins" else "track"]


def allowed(field_: str, current: int, reach: int) -> list[int]:
    """The changes of a value the proposer may choose: whole numbers within `reach` steps and its range."""
    low, high = value_range(field_)
    far = reach * balance.STEPS[field_]
    return [d for d in range(-far, far + 1) if low <= current + d <= high]


def design(plan: FitPlan, now: dict[str, dict[str, int]], centre: Change | None = None,
           number: int = 0) -> list[Change]:
    """The design points: every changeable value at -1, 0 or +1 step from `centre` (default the current
    set; moved inside its range at a bound), each level at about a third of the points, shuffled per
    value from the seed. Around the current set `plan.points` points; around a round's set (`number`)
    `plan.resweep` points, shuffled anew. Each point is a change from the current values."""
    centre = centre or {}
    rng = np.random.default_rng(np.random.SeedSequence([plan.seed, 35, number] if number else [plan.seed, 35]))
    size = plan.resweep if number else plan.points
    points: list[Change] = [copy_change(centre) for _ in range(size)]
    for side in plan.sides:
        for f in plan.fields:
            step = balance.STEPS[f]
            low, high = value_range(f)
            at = centre.get(side, {}).get(f, 0)
            levels = [d for d in (-step, 0, step) if low <= now[side][f] + at + d <= high]
            if len(levels) < 3:  # at a bound: two steps inwards instead
                inside = [d for d in (-2 * step, -step, step, 2 * step) if low <= now[side][f] + at + d <= high]
                levels = sorted({0, *inside}, key=abs)[:3]
            column = rng.permutation(np.resize(levels, size))
            for point, delta in zip(points, column):
                if at + delta:
                    point.setdefault(side, {})[f] = int(at + delta)
                else:
                    point.get(side, {}).pop(f, None)
    return [{s: c for s, c in point.items() if c} for point in points]


def copy_change(change: Change) -> Change:
    return {s: dict(c) for s, c in change.items()}


def apart(a: Change, b: Change) -> float:
    """How far apart two change sets lie: the largest difference of one value, in steps (`balance.STEPS`)."""
    keys = {(s, f) for c in (a, b) for s, values in c.items() for f in values}
    return max((abs(a.get(s, {}).get(f, 0) - b.get(s, {}).get(f, 0)) / balance.STEPS[f] for s, f in keys), default=0.0)


def worth(change: dict[str, int]) -> float:
    """The worth of one side's change (`balance.WORTH`)."""
    return sum(abs(d) * balance.WORTH[f] for f, d in change.items())


def count(change: Change) -> int:
    return sum(len(c) for c in change.values())


def as_overrides(change: Change, now: dict[str, dict[str, int]]) -> dict:
    """A change set as a `[components]` override table of the new values."""
    setup = {side: {f: now[side][f] + d for f, d in sorted(values.items(), key=lambda kv: SETUP_VALUES.index(kv[0]))}
             for side, values in sorted(change.items()) if values}
    return {"setup": setup} if setup else {}


def digest(change: dict) -> str:
    """A short name of a change set, so that a run directory holds one set (a resumed fit finds it)."""
    return hashlib.sha256(json.dumps(change, sort_keys=True).encode()).hexdigest()[:8]


def counts_text(players: list[int]) -> str:
    """Player counts in words: "2, 3 and 4"."""
    names = [str(p) for p in sorted(players)]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def cpu_seconds() -> float:
    """CPU seconds of this process and its finished children (the workers of a run)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system

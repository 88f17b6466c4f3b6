"""Setup sides that follow the components: each setup card's better side, found by play.

A side table tuned on one component set (1B, 2A, 3B, ...) is wrong once an override makes a side
better or worse, and a what-if would then be measured against opponents who play the changed card as
if it had not changed. `derived_sides` finds the table for the component set and player count at
hand instead: for each setup card the same deals are played twice, the card's holder on side A in
one and on side B in the other, every other seat choosing by the current table. Where the holder's
win share (a shared win split) is higher on one side, its 95 % interval clear of zero, the table takes
that side; where the trial cannot tell the sides apart it keeps its entry (the tuned side, or -1 for
the planner's valuation). The new table is then played against itself until it stops changing
(`ROUNDS` at most).

A trial is a pure function of the policy's settings, the component set, the player count and the
compiled rules, so its result is kept by those, in memory and on disk (`cache_dir`): the workers of a
run and later runs read it instead of playing it again. The file holds numbers only and is checked
before use; anything else in its place is ignored and the trial played again.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import stat
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from filelock import FileLock

from hadara_sim import jit_cache

CARDS = 5         # setup cards 1..5
DEALS = 2000      # most paired deals per card and round: the B - A difference to about +-2.5 pp (95 %)
STAGES = (250, 500, 1000)  # deals per card after which a card whose interval is clear of zero is decided
ROUNDS = 3        # tables played against themselves before the last one is kept
SEED = 20261125   # the trial's deals: the same for every run, so every process finds the same table
VERSION = 3       # of the trial's method and file; a change makes older files unread


@dataclass(frozen=True)
class SideTrial:
    """The side table a trial chose, and the evidence of its last round."""

    players: int
    sides: tuple[int, ...]     # (5,) side per setup card 1..5: 0 = A, 1 = B, -1 = the planner's valuation
    effect: tuple[float, ...]  # (5,) holder's win share on B minus on A, paired on deals
    low: tuple[float, ...]     # (5,) 95 % t-interval of the effect (paired)
    high: tuple[float, ...]
    deals: int                 # most paired deals a card needed
    rounds: int                # rounds played


def cache_dir() -> Path:
    """Where trials are kept: $HADARA_SIM_CACHE, else ~/.cache/hadara-sim."""
    root = os.environ.get("HADARA_SIM_CACHE")
    return (Path(root) if root else Path.home() / ".cache" / "hadara-sim") / "sides"


_MEMORY: dict[str, SideTrial] = {}


def derived_sides(policy, components, players: int) -> SideTrial:
    """The side table of `policy` (a planner with a side table) for `components` at `players`
    players: from memory, from the disk cache, or played now."""
    key = trial_key(policy, components, players)
    if key in _MEMORY:
        return _MEMORY[key]
    path = cache_dir() / f"{key}.json"
    trial = _read(path, players)
    if trial is None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with FileLock(str(path) + ".lock", timeout=600):  # one process plays, the others wait and read
                trial = _read(path, players)
                if trial is None:
                    start = time.perf_counter()
                    trial = play_trial(policy, components, players)
                    _write(path, trial, {**trial_inputs(policy, components, players),
                                         "seconds": round(time.perf_counter() - start, 2)})
        except OSError:  # no writable cache: play in memory only
            trial = play_trial(policy, components, players)
    _MEMORY[key] = trial
    return trial


def trial_key(policy, components, players: int) -> str:
    """What a trial's result depends on, as one digest."""
    what = json.dumps(trial_inputs(policy, components, players), sort_keys=True)
    return hashlib.sha256(what.encode()).hexdigest()[:24]


def trial_inputs(policy, components, players: int) -> dict:
    """What a trial's result depends on."""
    cls = type(policy)
    settings = {k: list(v) if isinstance(v, tuple) else v for k, v in sorted(_unrestricted(policy).items())}
    return {"policy": f"{cls.__module__}.{cls.__qualname__}", "settings": settings,
            "style_rules": sorted(cls.style_rules()),
            "components": components.digest, "players": players, "rules": _rules(),
            "deals": DEALS, "rounds": ROUNDS, "seed": SEED, "version": VERSION}


@functools.cache
def _rules() -> str:
    """The digest of the compiled rules and bots' sources, read once per process."""
    return jit_cache.sources_digest()


def play_trial(policy, components, players: int, deals: int | None = None, rounds: int = ROUNDS) -> SideTrial:
    """Best response side by side, played from the policy's own table until it repeats."""
    table = tuple(int(s) for s in policy.settings["sides"])
    deals = deals or DEALS
    for done in range(1, rounds + 1):
        trial = side_effects(table_player(policy, table), table, components, players, deals)
        if trial.sides == table:
            break
        table = trial.sides
    return SideTrial(**{**asdict(trial), "rounds": done})


def table_player(policy, table: tuple[int, ...]):
    """The policy with a fixed side table (the trial's players: they never run a trial themselves)."""
    return type(policy)(seed=policy.seed, **{**_unrestricted(policy), "side_choice": "table", "sides": table})


def _unrestricted(policy) -> dict:
    """The policy's settings without its restricted play (`avoid`, `seek`): a seat restricted in its
    purchases takes the sides its unrestricted self takes, so that it pairs with it on the same deals."""
    return {k: v for k, v in policy.settings.items() if k not in ("avoid", "seek")}


def side_effects(player, table: tuple[int, ...], components, players: int, deals: int) -> SideTrial:
    """Each setup card's holder on side A and on side B in the same deals, every seat played by
    `player`; per card the side with the higher win share where the interval is clear of zero, else
    the card's entry in `table`.

    Deals are added in stages (`STAGES`, up to `deals` per card) to the cards not yet decided, so a
    clear difference costs a few hundred deals and only a close one the whole budget."""
    # statsmodels takes a second or more to import: only a trial, played once per component set, needs it
    from statsmodels.stats.weightstats import DescrStatsW

    from hadara_sim.deal import make_deals
    from hadara_sim.engine.game import play_batch

    pool = make_deals(components, players, int(np.ceil(1.3 * deals * CARDS / players)),
                      seed=np.random.SeedSequence([SEED, players]), advanced=True)
    # the deals in which each card is dealt (at P < 5 not every deal has every card), and its holder
    has = [np.flatnonzero((pool.initiative == card).any(axis=1))[:deals] for card in range(1, CARDS + 1)]
    holder = np.argmax(pool.initiative[:, None, :] == np.arange(1, CARDS + 1)[None, :, None], axis=2)
    diffs = [np.zeros(0) for _ in range(CARDS)]
    decided = np.zeros(CARDS, bool)
    done = 0
    for stage in [n for n in STAGES if n < deals] + [deals]:
        cards = np.flatnonzero(~decided)
        rows = [has[k][done:stage] for k in cards]
        games = np.concatenate(rows)
        seat = np.concatenate([holder[r, k] for r, k in zip(rows, cards)])
        n = len(games)
        sides = np.full((2 * n, players), -1, np.int8)
        sides[np.arange(2 * n), np.tile(seat, 2)] = np.repeat([0, 1], n)
        sheet = play_batch(pool[np.tile(games, 2)], components, [player], np.zeros((2 * n, players), np.int64),
                           sides=sides)
        share = sheet["win_share"][np.arange(2 * n), np.tile(seat, 2)]
        gain = np.split(share[n:] - share[:n], np.cumsum([len(r) for r in rows])[:-1])
        for k, more in zip(cards, gain):
            diffs[k] = np.concatenate([diffs[k], more])
            low, high = DescrStatsW(diffs[k]).tconfint_mean()
            decided[k] = low > 0 or high < 0
        done = stage
        if decided.all():
            break
    stats = [DescrStatsW(d) for d in diffs]
    effect = tuple(float(d.mean) for d in stats)
    low, high = zip(*(tuple(map(float, d.tconfint_mean())) for d in stats))
    sides = tuple(1 if lo > 0 else 0 if hi < 0 else int(kept) for lo, hi, kept in zip(low, high, table))
    return SideTrial(players, sides, effect, low, high, max(len(d) for d in diffs), 1)


def _read(path: Path, players: int) -> SideTrial | None:
    """The trial kept at `path` if it is one, else None (then it is played again and rewritten)."""
    text = _small_file(path)
    try:
        data = json.loads(text) if text is not None else None
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or not all(_fits(data.get(k), kind) for k, kind in FIELDS.items()):
        return None
    trial = SideTrial(players=data["players"], sides=tuple(data["sides"]), effect=tuple(data["effect"]),
                      low=tuple(data["low"]), high=tuple(data["high"]), deals=data["deals"], rounds=data["rounds"])
    ok = (trial.players == players and set(trial.sides) <= {-1, 0, 1}
          and all(lo <= x <= hi for x, lo, hi in zip(trial.effect, trial.low, trial.high)))
    return trial if ok else None


MAX_BYTES = 1 << 16  # a trial file is about 1 KB
FIELDS = {"players": "count", "deals": "count", "rounds": "count", "sides": "cards", "effect": "shares",
          "low": "shares", "high": "shares"}


def _fits(value, kind: str) -> bool:
    """A trial file's value of its kind: a count (a whole number 1..10^9), a side per card (whole
    numbers), or a win-share difference per card (finite, -1..1)."""
    def whole(x):
        return isinstance(x, int) and not isinstance(x, bool)

    if kind == "count":
        return whole(value) and 1 <= value <= 10**9
    if not isinstance(value, list) or len(value) != CARDS:
        return False
    if kind == "cards":
        return all(whole(x) for x in value)
    return all(isinstance(x, (int, float)) and not isinstance(x, bool) and -1.0 <= x <= 1.0 for x in value)


def _small_file(path: Path) -> str | None:
    """The text of `path` if it is a regular file of at most MAX_BYTES, else None: a link to a device, a
    FIFO (opened without waiting for a writer) or a huge file is never read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_BYTES:
            return None
        data = os.read(fd, MAX_BYTES + 1)
        return data.decode("utf-8") if len(data) <= MAX_BYTES else None
    except (OSError, UnicodeDecodeError):
        return None
    finally:
        os.close(fd)


def _write(path: Path, trial: SideTrial, inputs: dict):
    """Keep `trial` at `path`, with what it was played for and how long it took (for a reader; the
    file name is its key)."""
    temporary = path.with_suffix(f".{os.getpid()}")
    temporary.write_text(json.dumps({**asdict(trial), "inputs": inputs}, indent=1), encoding="utf-8")
    os.replace(temporary, path)

"""Balance suggestions: for each setup card side that is not fair, the smallest single-value change
(its coins or one track) that makes it fair, found by running the curve of each value.

A **baseline** run plays the advanced game with the same policy on every seat, setup cards dealt and
every seat's side drawn at random, so each card side is held by a random seat in a random line-up.
A side is *fair* when the TOST equivalence test of report/inference.py (one value per deal) shows
its win share within `margin` of 1/P at the 5% level after the reports' correction of "fair" over
the sides (Holm; `report.verdict.judge`). For a side that is not, each of its five values is swept
over a few steps in the direction that corrects it (on the same deals), the curve (report/curve.py)
gives the value at which the side is fair, and the nearest whole value whose fitted win share is
fair (its 90% CI inside 1/P ± margin, the TOST criterion: `report.verdict.of_fit`) becomes a candidate;
one whose fit lies inside the margin but whose CI reaches past it is short of deals, with the
`--curve-games` that would decide it. The suggestion is
the candidate with the smallest worth of change, `coins + 2.5 x income + military + culture + food`
(the measure the default set's setup cards were built with, see docs/components.md); when that is the
current value (a curve finds the side fair as it is), nothing is proposed. When no single change is
fair, the two values whose curves move the win share most per unit of worth are swept together, and
the fair whole pair of their surface (report/surface.py) with the smallest worth is proposed instead
(nothing, again, when that pair is the current one).
"""

from __future__ import annotations

import math
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from .components import RANGES, SETUP_VALUES, ComponentError, override_problems
from .component_files import load_components
from .estimate import START_SECONDS, Estimate, estimate_run
from .report import inference as I
from .report.dataset import ReportError, check_columns
from .report.curve import Curve, curve, predict, slope_text
from .report.surface import surface
from .report.estimates import mean_ci
from .report.verdict import Verdict, games_for, judge, of_fit
from .api import simulate
from .scenario.read import scenario_from_dict

WORTH = {"coins": 1.0, "income": 2.5, "military": 1.0, "culture": 1.0, "food": 1.0}
STEPS = {"coins": 2, "income": 1, "military": 1, "culture": 1, "food": 1}  # sweep step per value
POINTS = 4  # swept values per curve: the current one and three steps towards fair
CURVE_RUN_SECONDS = 0.5  # a curve's run started in this process, loaded and fitted (measured: 3B at 4 players)


@dataclass(frozen=True)
class Side:
    """One setup card side's win share in the baseline, with its verdict against 1/P."""

    card: int
    side: str
    win: float
    low: float         # 95% CI
    high: float
    judged: Verdict    # as every report judges it (`report.verdict.judge`, corrected over the sides)
    games: int = 0     # games of the baseline run (the side was held in `n` of them)

    @property
    def name(self) -> str:
        return f"{self.card}{self.side}"

    @property
    def more_games(self) -> float:
        """The games of the baseline that would bring the verdict's more deals holding the side (nan:
        unknown)."""
        if not math.isfinite(self.judged.more) or not self.judged.n:
            return math.nan
        return float(games_for(self.judged.more, self.judged.n, self.games) - self.games)

    def record(self) -> dict:
        """The side's numbers and verdict as one flat row (a table's row in a notebook)."""
        v = self.judged
        return {"card": self.card, "side": self.side, "n": v.n, "win": self.win, "low": self.low, "high": self.high,
                "tost_p": v.equiv_p, "tost_q": v.q_equiv, "fair": v.equivalent, "verdict": v.words, "more": v.more,
                "games": self.games}


@dataclass
class Candidate:
    """One value of a side tried: where its curve crosses fair, and the whole value proposed."""

    field: str
    current: int
    swept: list[int]
    curve: Curve | None
    value: int | None = None     # the proposed whole value (None: no crossing, or none fair)
    win: float = math.nan        # fitted win share at `value`, with its 90% CI
    low: float = math.nan
    high: float = math.nan
    judged: Verdict | None = None  # the fit at `value` against 1/P (`report.verdict.of_fit`), with its hint
    note: str = ""

    @property
    def worth(self) -> float:
        return math.inf if self.value is None else abs(self.value - self.current) * WORTH[self.field]

    @property
    def changes(self) -> bool:
        """The whole value found differs from the current one: a fit that finds the current value fair
        changes nothing, and is never proposed."""
        return self.value is not None and self.value != self.current

    @property
    def fair(self) -> bool:
        """The proposed value is shown fair (its fit's 90% CI inside 1/P ± margin)."""
        return self.judged is not None and self.judged.equivalent

    @property
    def undecided(self) -> bool:
        """Fair by its fitted win share, but its 90% CI still reaches past the margin: more deals,
        not another value, would decide it."""
        return self.judged is not None and self.judged.short_of_deals


@dataclass
class Pair:
    """Two values changed together, when no single change is fair: the fair whole pair of the two
    values' surface (report/surface.py) with the smallest worth of change."""

    fields: tuple[str, str]
    current: tuple[int, int]
    swept: tuple[list[int], list[int]]
    value: tuple[int, int] | None = None
    win: float = math.nan        # fitted win share at `value`, with its 90% CI
    low: float = math.nan
    high: float = math.nan
    judged: Verdict | None = None  # the fit at `value` against 1/P (`report.verdict.of_fit`)
    note: str = ""

    @property
    def worth(self) -> float:
        if self.value is None:
            return math.inf
        return sum(abs(v - c) * WORTH[f] for f, v, c in zip(self.fields, self.value, self.current))


@dataclass
class Suggestion:
    side: Side
    candidates: list[Candidate]
    seconds: float
    pair: Pair | None = None      # tried only when no single change is fair

    @property
    def best(self) -> Candidate | None:
        """The fair candidate with the smallest worth of change; without one, the undecided candidate
        (fair by its fit, short of deals) of the smallest worth; None when neither exists, or when that
        candidate keeps the current value (`as_is`): proposed, "culture 5 → 5" went into fix.toml."""
        cheapest = self._cheapest()
        return cheapest if cheapest is not None and cheapest.changes else None

    @property
    def as_is(self) -> Candidate | None:
        """The candidate whose curve finds the current value fair (or fair by its fit, short of deals)
        when no change is cheaper, as none is: nothing to change, so nothing proposed; None otherwise."""
        cheapest = self._cheapest()
        return cheapest if cheapest is not None and not cheapest.changes else None

    def _cheapest(self) -> Candidate | None:
        for group in ([c for c in self.candidates if c.fair], [c for c in self.candidates if c.undecided]):
            if group:
                return min(group, key=lambda c: (c.worth, c.high - c.low))
        return None


@dataclass
class Plan:
    """What `suggest` plays: the baseline and every curve."""

    players: int = 4
    policy: str = "balanced"
    games: int = 20000        # baseline deals
    curve_games: int = 8000   # deals per swept value
    margin: float = 0.02      # equivalence margin on the win share
    seed: int = 1
    components: str | None = None
    jobs: int = -1
    only: list[str] = field(default_factory=list)  # card sides to look at ("3B"); empty = all unfair
    overrides: dict = field(default_factory=dict)  # [components] overrides played on top of the set

    def __post_init__(self):
        """Checked before the baseline plays: "3b" in `only` played it and then suggested nothing."""
        self.margin = I.check_margin(self.margin)
        if not isinstance(self.only, (str, list, tuple)):
            raise ValueError(f"only: a list of card sides like ['3B'], not {self.only!r:.40}")
        self.only = list(dict.fromkeys(side_name(name) for name in ([self.only] if isinstance(self.only, str)
                                                                       else self.only)))  # 3B and 3b: once


def side_name(name) -> str:
    """A setup card side as "3B" (initiative 1..5, side A or B; "3b" is the same), else a ValueError."""
    side = str(name).strip().upper()
    if len(side) != 2 or side[0] not in "12345" or side[1] not in "AB":
        raise ValueError(f"{name}: expected a card and side like 3B (initiative 1..5, side A or B)")
    return side


def scenario(plan: Plan, games: int, sweep: dict | None = None) -> dict:
    """The scenario of a baseline or curve run (a dict, as in a TOML file)."""
    data = {"name": "balance", "players": plan.players, "game": "advanced", "policies": [plan.policy],
            "games": games, "seed": plan.seed, "chunk": min(games, 2000), "setup": {"sides": "random"}}
    components = {"path": str(Path(plan.components).resolve())} if plan.components else {}
    if components or plan.overrides:
        data["components"] = components | plan.overrides
    if sweep:
        data["sweep"] = sweep
    return data


def sides_fairness(df: pl.DataFrame, margin: float) -> list[Side]:
    """Win share of every setup card side (one value per deal, Wilson CI) against 1/P, with the
    verdict every report gives (`report.verdict.judge`, corrected over the sides; an undecided side's
    hint in games of the run: each deal holds a side with its own chance)."""
    check_columns(df, "setup-cards", exclude=("total",))
    games = df["game"].n_unique()
    table = mean_ci(df, "win_share", ["setup_card", "setup_side"], fair=1.0 / pl.col("players").cast(pl.Float64),
                    rate=True, margin=margin)
    judged = judge(table["diff"], table["p"], table["equiv_p"], table["n"], margin, sd=table["sd"])
    return [Side(int(r["setup_card"]), r["setup_side"], r["mean"], r["ci_low"], r["ci_high"], v, games)
            for r, v in zip(table.to_dicts(), judged)]


def known_field(field_: str) -> None:
    """A ValueError unless `field_` is a value of a setup card side (a misspelt one was swept as given)."""
    if field_ not in STEPS:
        raise ValueError(f"{field_!r} is not a value of a setup card side: {', '.join(STEPS)}")


def swept_values(field_: str, current: int, too_strong: bool) -> list[int]:
    """The current value and up to three steps towards fair, inside the value's range."""
    known_field(field_)
    low, high = RANGES["coins" if field_ == "coins" else "track"]
    step = -STEPS[field_] if too_strong else STEPS[field_]
    values = [current + k * step for k in range(POINTS)]
    return sorted(v for v in values if low <= v <= high)


def candidate(field_: str, current: int, values: list[int], c: Curve, margin: float, curve_games: int) -> Candidate:
    """The whole value nearest the curve's crossing whose fitted win share is fair (90% CI inside 1/P ±
    margin); without one, the nearest whose fit lies inside the margin is undecided for want of deals,
    with the `curve_games` per swept value that would decide it."""
    known_field(field_)
    cand = Candidate(field_, current, values, c)
    if not c.win.found:
        cand.note = f"the win share does not move with {field_} ({slope_text(c.win)})"
        return cand
    low, high = RANGES["coins" if field_ == "coins" else "track"]
    centre = int(round(c.win.value))
    tried = sorted({v for v in (centre, centre - 1, centre + 1) if low <= v <= high},
                   key=lambda v: abs(v - c.win.value))
    if not tried:
        cand.note = f"fair at {c.win.value:.2f}, outside the range {low}..{high}"
        return cand
    fits = [(v, *predict(c, v, alpha=0.10)) for v in tried]
    judged = [of_fit(*f[1:], c.fair, margin, curve_games, "--curve-games", "swept value") for f in fits]
    fair = [(f, v) for f, v in zip(fits, judged) if v.equivalent]
    (cand.value, cand.win, cand.low, cand.high), cand.judged = (
        fair[0] if fair else min(zip(fits, judged), key=lambda fv: abs(fv[0][1] - c.fair)))
    if cand.fair and not cand.changes:
        cand.note = f"nothing to change: the curve finds {field_} {current}, the current value, fair"
    elif cand.undecided:
        cand.note = (f"short of deals, not of a value: {cand.value}{', the current value,' * (not cand.changes)} fits "
                     f"inside ±{100 * margin:g} pp but its 90% CI reaches past it; the deals of its verdict decide it "
                     f"with {100 * I.HINT_POWER:.0f} % chance")
    elif not cand.fair:
        cand.note = f"no whole value near {c.win.value:.2f} is fair within ±{100 * margin:g} pp; the closest is shown"
    if c.win.extrapolated and cand.value is not None:
        cand.note = "; ".join(filter(None, [cand.note, f"extrapolated beyond the swept values {min(values)} to "
                                            f"{max(values)}: confirm with a run at that value"]))
    return cand


def pair_fields(candidates: list[Candidate]) -> tuple[Candidate, Candidate] | None:
    """The two values whose curves move the win share most per unit of worth (None: fewer than two
    move it)."""
    def strength(c: Candidate) -> float:
        band = c.curve.band
        return abs(band["win"][-1] - band["win"][0]) / (band["x"][-1] - band["x"][0]) / WORTH[c.field]

    moving = [c for c in candidates if c.curve is not None and c.curve.win.found and len(c.swept) >= 2]
    if len(moving) < 2:
        return None
    first, second = sorted(moving, key=strength, reverse=True)[:2]
    return first, second


def pair_candidate(first: Candidate, second: Candidate, surf, margin: float) -> Pair:
    """The fair whole pair of `surf` (a surface over the two values) with the smallest worth."""
    pair = Pair((first.field, second.field), (first.current, second.current), (first.swept, second.swept))
    fair = surf.fair_pairs
    if fair.height == 0:
        pair.note = (f"no swept pair of {first.field} and {second.field} is shown fair within ±{100 * margin:g} pp "
                     "(more --curve-games, or a larger change)")
        return pair
    best = min(fair.to_dicts(), key=lambda r: (abs(r["value1"] - first.current) * WORTH[first.field]
                                               + abs(r["value2"] - second.current) * WORTH[second.field],
                                               r["high"] - r["low"]))
    if (int(best["value1"]), int(best["value2"])) == pair.current:  # the cheapest fair pair changes nothing
        pair.note = (f"the surface finds {first.field} {first.current} and {second.field} {second.current} fair as "
                     "they are: nothing to change")
        return pair
    pair.value = (int(best["value1"]), int(best["value2"]))
    pair.win, pair.low, pair.high = best["win"], best["low"], best["high"]
    pair.judged = of_fit(pair.win, pair.low, pair.high, surf.fair, margin)
    return pair


def estimate(plan: Plan, cold: bool | None = None) -> tuple[Estimate, Estimate | None]:
    """How long the baseline takes, and the curves of one side (each of its SETUP_VALUES swept over
    up to POINTS values, one run per value), before anything is played; no curves without
    `plan.curve_games`."""
    base = estimate_run(scenario_from_dict(scenario(plan, plan.games)), plan.jobs, cold=cold)
    if not plan.curve_games:
        return base, None
    one = estimate_run(scenario_from_dict(scenario(plan, plan.curve_games)), plan.jobs, cold=False)
    runs = len(SETUP_VALUES)  # one curve per value of the side, POINTS swept values each
    per_side = Estimate(runs * (POINTS * (one.seconds - START_SECONDS) + CURVE_RUN_SECONDS),
                        plan.curve_games * POINTS * runs, one.unknown, 0.0, one.workers)
    return base, per_side


def baseline(plan: Plan) -> list[Side]:
    """Every setup card side's win share and equivalence verdict in the plan's baseline run."""
    return sides_fairness(simulate(scenario(plan, plan.games), jobs=plan.jobs), plan.margin)


def read_overrides(path: str | Path, components: str | Path | None = None) -> dict:
    """The `[components.*]` override tables of a TOML file (such as the fix.toml `suggest` writes),
    checked against the shipped set; ComponentError names file, line and key of each problem."""
    from .problems import TOO_DEEP, NotText, Problem, as_path, not_a_file, read_text, toml_error_line
    from .tomlpos import key_lines, line_of

    path = as_path(path, "the overrides file")
    if path.is_dir():  # `--overrides out/` for out/fix.toml said "[Errno 21] Is a directory"
        fix = path / "fix.toml"
        example = f", e.g. {fix}" if fix.is_file() else " (such as the fix.toml `balance suggest --out` writes)"
        raise ComponentError([Problem(str(path), None, "", "is a folder, not an overrides file: give a TOML file of "
                                      f"[components.*] overrides{example}")])
    if not path.exists():
        raise ComponentError([Problem(str(path), None, "", "no such file: give the path of a TOML file of "
                                      "[components.*] overrides")])
    kind = not_a_file(path)
    if kind:
        raise ComponentError([Problem(str(path), None, "", f"is {kind}, not an overrides file: give a TOML file "
                                      "of [components.*] overrides")])
    try:
        text = read_text(path)
        data = tomllib.loads(text)
    except NotText as err:
        raise ComponentError([Problem(str(path), err.line, "", str(err))]) from None
    except RecursionError:
        raise ComponentError([Problem(str(path), None, "", TOO_DEEP)]) from None
    except OSError as err:
        raise ComponentError([Problem(str(path), None, "", f"cannot be read: {err}")]) from None
    except tomllib.TOMLDecodeError as err:
        raise ComponentError([Problem(str(path), toml_error_line(err, text), "", f"not valid TOML: {err}")]) from None
    overrides = data.get("components", {})
    lines = key_lines(text)
    stray = [Problem(str(path), line_of(lines, (key,)), key, "not an override: an overrides file holds only "
                     "[components.*] tables, e.g. [components.setup.\"3B\"] culture = 4") for key in data
             if key != "components"]
    if not isinstance(overrides, dict):
        stray.append(Problem(str(path), line_of(lines, ("components",)), "components",
                             f"expected [components.*] tables of overrides, got {overrides!r} (the component "
                             "set itself is chosen with --components)"))
    if stray:
        raise ComponentError(stray)
    problems = [Problem(str(path), line_of(lines, ("components", *key)), ".".join(map(str, ("components", *key))),
                        message) for key, message in override_problems(load_components(components), overrides)]
    if problems:
        raise ComponentError(problems)
    return overrides


def suggest(plan: Plan, progress=None) -> tuple[list[Side], list[Suggestion]]:
    """The baseline verdicts and a suggestion for each side that is not fair (or each in `only`).
    `progress(text)` is called before each run."""
    say = progress or (lambda text: None)
    components = load_components(plan.components).with_overrides(plan.overrides)
    say(f"baseline: {plan.games:,} games")
    sides = baseline(plan)
    fair_share = 1 / plan.players
    targets = [s for s in sides if (s.name in plan.only if plan.only else not s.judged.equivalent)]
    suggestions = []
    for s in targets:
        start = time.perf_counter()
        card = components.setup_cards[(s.card, s.side)]
        currents = {"coins": card.coins, **dict(zip(SETUP_VALUES[1:], card.values))}
        candidates = []
        for field_ in SETUP_VALUES:
            values = swept_values(field_, currents[field_], s.win > fair_share)
            if len(values) < 2:
                candidates.append(Candidate(field_, currents[field_], values, None,
                                            note=f"{field_} cannot move further ({currents[field_]})"))
                continue
            key = f"components.setup.{s.name}.{field_}"
            say(f"{s.name} {field_}: {values} x {plan.curve_games:,} games")
            df = simulate(scenario(plan, plan.curve_games, {key: values}), jobs=plan.jobs)
            try:
                candidates.append(candidate(field_, currents[field_], values, curve(df, key), plan.margin,
                                            plan.curve_games))
            except ReportError as err:  # a tiny run: too few deals held the side
                candidates.append(Candidate(field_, currents[field_], values, None, note=str(err)))
        suggestion = Suggestion(s, candidates, 0.0)
        # a curve that finds the current value fair leaves nothing for a pair to fix
        two = pair_fields(candidates) if suggestion.best is None and suggestion.as_is is None else None
        if two is not None:
            keys = [f"components.setup.{s.name}.{c.field}" for c in two]
            say(f"{s.name} {two[0].field} x {two[1].field}: {len(two[0].swept) * len(two[1].swept)} pairs x "
                f"{plan.curve_games:,} games")
            df = simulate(scenario(plan, plan.curve_games, {keys[0]: two[0].swept, keys[1]: two[1].swept}),
                          jobs=plan.jobs)
            try:
                suggestion.pair = pair_candidate(*two, surface(df, *keys, margin=plan.margin), plan.margin)
            except ReportError as err:
                suggestion.pair = Pair((two[0].field, two[1].field), (two[0].current, two[1].current),
                                       (two[0].swept, two[1].swept), note=str(err))
        suggestion.seconds = time.perf_counter() - start
        suggestions.append(suggestion)
    return sides, suggestions


def overlaid(base: dict, top: dict) -> dict:
    """Two `[components]` override tables as one, `top`'s values over `base`'s value by value: a fit's
    change on top of the overrides it started from (merged the other way round, the starting value had
    stayed wherever the fit changed it)."""
    out = {section: {item: dict(values) if isinstance(values, dict) else values for item, values in table.items()}
           for section, table in base.items()}
    for section, table in top.items():
        for item, values in table.items():
            if isinstance(values, dict):
                out.setdefault(section, {}).setdefault(item, {}).update(values)
            else:  # the board's prices: a list per key
                out.setdefault(section, {})[item] = values
    return out


def fix_overrides(suggestions: list[Suggestion]) -> dict:
    """The suggested changes as a `[components]` override table: only values that change (a pair's
    value kept as it is is no override)."""
    setup = {}
    for s in suggestions:
        if s.best is not None:
            setup.setdefault(s.side.name, {})[s.best.field] = s.best.value
        elif s.pair is not None and s.pair.value is not None:
            setup.setdefault(s.side.name, {}).update(pair_changes(s.pair))
    return {"setup": setup} if setup else {}


def pair_changes(pair: Pair) -> dict[str, int]:
    """The values a proposed pair changes, by name: one of the two may stay as it is."""
    return {f: v for f, c, v in zip(pair.fields, pair.current, pair.value or ()) if v != c}


def fix_text(overrides: dict, command: str) -> str:
    """A `[components]` override table as the TOML file `--overrides` reads (and a scenario's
    `[components]` table holds), headed by the command that made it: a table per setup card side, card
    or colony (`[components.setup."3B"]`), and the board's prices in `[components.board]`."""
    lines = [f"# {command}"]
    for section, table in overrides.items():
        if section == "board":
            lines += ["[components.board]", *(f"{k} = {v}" for k, v in table.items())]
            continue
        for name, values in table.items():
            lines += [f'[components.{section}."{name}"]', *(f"{k} = {v}" for k, v in values.items())]
    return "\n".join(lines) + "\n"

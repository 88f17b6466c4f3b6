"""Which verdicts rest on guesses: the setup-card verdicts played again over draws of the estimated
component values.

Most component values are estimates (docs/components.md labels each value exact or estimated). A
**draw** moves every estimated value that an override may change by -1, 0 or +1 coin, point or step
(uniformly and independently) and keeps it inside the range that values of its kind span in the set
(docs/components.md, "Sensitivity draws"):

- cards: cost and points within the range of the cards of the same epoch and kind (a track colour,
  plain purple, purple effect); a track value that is not zero within 1 and the highest value of that
  track among them, as long as the card's track sum stays inside theirs (a zero stays zero: which
  tracks a card raises is its design, not a guess of a number);
- colonies: plunder, integration cost, front and back points and the non-zero back tracks within the
  range of their level, back points never below front points;
- setup cards: coins and the non-zero tracks within the range of the same side.

Exact values never move, nor anything an override can not change (requirements, statues, prices).
Every draw plays the same deals, so the games' noise the draws share cancels between them; the part they
do not share (a changed value changes how a deal plays out) stays in their spread, and `FairSpread`
takes it out.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from .components import ComponentSet, Colony
from .constants import COLOURS, TRACKS
from .problems import is_whole

STEP = 1


def _card_kind(card) -> str:
    if card.colour != COLOURS.index("purple"):
        return COLOURS[card.colour]
    return "purple effect" if card.effect else "purple"


def _bounds(items, key, fields) -> dict:
    """(group, field) -> (lowest, highest) over `items`, grouped by `key(item)`; track fields over
    their non-zero values only, and `track_sum` over the items' sums."""
    bounds: dict = {}
    for item in items:
        values = _values(item)
        for name in (*fields, "track_sum"):
            v = sum(values[t] for t in _tracks(item)) if name == "track_sum" else values[name]
            if name in _tracks(item) and v == 0:
                continue
            low, high = bounds.get((key(item), name), (v, v))
            bounds[(key(item), name)] = (min(low, v), max(high, v))
    return bounds


def _tracks(item) -> tuple[str, ...]:
    return tuple(f"back_{t}" for t in TRACKS) if isinstance(item, Colony) else TRACKS


def _values(item) -> dict[str, int]:
    """Every value of a card, colony tile or setup card by its override field name."""
    if isinstance(item, Colony):
        return {"plunder": item.plunder, "integrate": item.integrate, "front_points": item.front_points,
                "back_points": item.back_points, **{f"back_{t}": v for t, v in zip(TRACKS, item.back_values)}}
    out = dict(zip(TRACKS, item.values))
    if hasattr(item, "cost"):
        out.update(cost=item.cost, points=item.points)
    else:
        out.update(coins=item.coins)
    return out


def _draw_one(item, group, bounds, rng, scalars) -> dict[str, int]:
    """New values for the estimated fields of one item (only those that changed)."""
    values = _values(item)
    new = dict(values)
    for name in scalars:
        if name in item.exact:
            continue
        low, high = bounds[(group, name)]
        new[name] = int(np.clip(values[name] + rng.integers(-STEP, STEP + 1), low, high))
    tracks = _tracks(item)
    moved = dict(new)
    for name in tracks:
        if name in item.exact or values[name] == 0:
            continue
        low, high = bounds[(group, name)]
        moved[name] = int(np.clip(values[name] + rng.integers(-STEP, STEP + 1), max(low, 1), high))
    low, high = bounds[(group, "track_sum")]
    if low <= sum(moved[t] for t in tracks) <= high:
        new = moved
    if isinstance(item, Colony) and new["back_points"] < new["front_points"]:
        new["back_points"], new["front_points"] = values["back_points"], values["front_points"]
    return {k: v for k, v in new.items() if v != values[k]}


def draw_overrides(c: ComponentSet, rng: np.random.Generator) -> dict:
    """One draw of the estimated values as a `[components]` override table (changed values only)."""
    card_bounds = _bounds(c.cards, lambda x: (x.epoch, _card_kind(x)), ("cost", "points", *TRACKS))
    colony_bounds = _bounds(c.colonies, lambda x: x.level, ("plunder", "integrate", "front_points", "back_points",
                                                           *(f"back_{t}" for t in TRACKS)))
    setup_bounds = _bounds(c.setup_cards.values(), lambda x: x.side, ("coins", *TRACKS))
    out: dict = defaultdict(dict)
    for card in c.cards:
        changed = _draw_one(card, (card.epoch, _card_kind(card)), card_bounds, rng, ("cost", "points"))
        if changed:
            out["cards"][card.id] = changed
    for tile in c.colonies:
        changed = _draw_one(tile, tile.level, colony_bounds, rng, ("plunder", "integrate", "front_points", "back_points"))
        if changed:
            out["colonies"][tile.id] = changed
    for (initiative, side), card in c.setup_cards.items():
        changed = _draw_one(card, side, setup_bounds, rng, ("coins",))
        if changed:
            out["setup"][f"{initiative}{side}"] = changed
    return dict(out)


def whole_numbers(**values) -> None:
    """A ValueError naming the first value that is not a whole number of at least 0."""
    for name, value in values.items():
        if not is_whole(value) or value < 0:
            raise ValueError(f"{name} is a whole number of at least 0, not {value!r}")


def draws(c: ComponentSet, k: int, seed: int) -> list[dict]:
    """k independent draws (one SeedSequence child each, so draw i is the same for any k)."""
    whole_numbers(k=k, seed=seed)
    return [draw_overrides(c, np.random.default_rng(child)) for child in np.random.SeedSequence(seed).spawn(k)]


@dataclass
class Row:
    """One setup card side: its verdict on the set as given and how the draws judged it."""

    side: str
    verdict: str                      # on the set as given
    win: float
    shares: dict[str, float]          # verdict word -> share of draws
    win_low: float                    # 5th and 95th percentile of the win share over draws
    win_high: float

    @property
    def holds(self) -> float:
        """Share of the draws whose verdict is the verdict on the set as given."""
        return self.shares.get(self.verdict, 0.0)


def table(base, runs) -> list[Row]:
    """Per side, from the sides of the set as given (`balance.Side`) and of each draw."""
    rows = []
    for s in base:
        found = [next((d for d in run if d.name == s.name), None) for run in runs]
        found = [d for d in found if d is not None]
        words = [d.judged.words for d in found]
        shares = {w: words.count(w) / len(words) for w in dict.fromkeys(words)} if words else {}
        wins = np.array([d.win for d in found]) if found else np.array([np.nan])
        rows.append(Row(s.name, s.judged.words, s.win, shares, float(np.nanpercentile(wins, 5)),
                        float(np.nanpercentile(wins, 95))))
    return rows


def replay(plan, k: int, seed: int, progress=None):
    """The setup card verdicts of `plan`'s baseline (`balance.baseline`) on the set as given and
    under k draws of its estimated values, on the same deals: (sides as given, sides per draw,
    the number of values each draw moved)."""
    from dataclasses import replace

    from .balance import baseline, overlaid
    from .component_files import load_components

    whole_numbers(k=k, seed=seed)  # before the baseline plays, not after
    say = progress or (lambda text: None)
    c = load_components(plan.components).with_overrides(plan.overrides)
    say(f"the set as given: {plan.games:,} games")
    base = baseline(plan)
    runs, moved = [], []
    for i, draw in enumerate(draws(c, k, seed)):
        moved.append(sum(len(values) for table in draw.values() for values in table.values()))
        say(f"draw {i + 1} of {k}: {moved[-1]} estimated values moved, {plan.games:,} games")
        runs.append(baseline(replace(plan, overrides=overlaid(draw, plan.overrides))))
    return base, runs, moved


@dataclass
class FairDraw:
    """One draw's fair value of a side's value: where its fitted win share meets 1/P, with the 95% CI
    of the fit (the sampling noise of this draw's games), and the whole values fair in it."""

    draw: int | None                  # None: the set as given
    value: float                      # the crossing (nan: the slope is not significant)
    low: float
    high: float
    extrapolated: bool
    fair_values: list[int]            # whole values whose fitted win share has its 90% CI inside 1/P ± margin
    inside_values: list[int]          # whole values whose fitted win share lies inside 1/P ± margin
    influence: dict[int, float] = field(default_factory=dict, repr=False)  # deal -> its share of value's noise

    @property
    def se(self) -> float:
        """The crossing's standard error, from its 95% CI (the sampling noise of one draw)."""
        return (self.high - self.low) / (2 * 1.959964) if np.isfinite(self.value) else float("nan")


@dataclass
class FairSpread:
    """The fair value of a side's value over the draws of the estimated values: the two sources of
    its spread. Every draw plays the same deals, so the games' noise they share cancels between them
    and their spread is that of the estimates; the noise of one draw's games is its CI."""

    given: FairDraw
    draws: list[FairDraw]
    swept: list[int]

    @property
    def found(self) -> list[FairDraw]:
        return [d for d in self.draws if np.isfinite(d.value)]

    @property
    def observed_sd(self) -> float:
        """Spread of the fair value over the draws (standard deviation), the games' noise they do not
        share included."""
        values = [d.value for d in self.found]
        return float(np.std(values, ddof=1)) if len(values) > 1 else float("nan")

    @property
    def noise_in_spread(self) -> float:
        """The variance the games' noise adds to the draws' spread (the expected sample variance over the
        draws of their noise alone): with Σ the covariance of the draws' noise, from the per-deal influences
        of their crossings on the deals they share (Σ_ij = sum over deals of influence_i x influence_j),
        (trace Σ - sum Σ / k) / (k - 1); what the draws share (sum Σ / k) does not spread them."""
        found = self.found
        k = len(found)
        if k < 2:
            return float("nan")
        deals = sorted(set().union(*(d.influence for d in found)))
        inf = np.array([[d.influence.get(g, 0.0) for g in deals] for d in found])
        sigma = inf @ inf.T
        return float((np.trace(sigma) - sigma.sum() / k) / (k - 1))

    @property
    def estimates_sd(self) -> float:
        """Spread of the fair value over the draws due to the estimates alone: the observed variance less
        the games' noise in it (`noise_in_spread`), at least 0; nan with fewer than two crossings."""
        excess = self.observed_sd ** 2 - self.noise_in_spread
        # max(0.0, nan) is 0.0: with no spread to measure, the table said the estimates moved nothing
        return float("nan") if math.isnan(excess) else float(np.sqrt(max(0.0, excess)))

    @property
    def sampling_se(self) -> float:
        """The fair value's standard error within one draw (root mean square over the draws)."""
        se = [d.se for d in self.found]
        return float(np.sqrt(np.mean(np.square(se)))) if se else float("nan")

    @property
    def total_sd(self) -> float:
        """Both together: how sure the fair value is, given the estimates and the games."""
        return float(np.hypot(self.estimates_sd, self.sampling_se))

    def share(self, value: int, inside: bool = False) -> float:
        """Share of the draws in which a whole value is fair (90% CI inside the margin; `inside`: its
        fitted win share inside the margin)."""
        return float(np.mean([value in (d.inside_values if inside else d.fair_values) for d in self.draws]))


def fair_draw(c, draw: int | None, margin: float) -> FairDraw:
    """One draw's fair value from its curve (`report.curve.Curve`): the crossing and the whole values
    between the swept ones whose fitted win share (90% CI) is fair."""
    from .report.curve import predict
    from .report.verdict import of_fit

    low, high = int(c.points["value"].min()), int(c.points["value"].max())
    fair, inside = [], []
    for v in range(low, high + 1):
        win, lo, hi = predict(c, v, alpha=0.10)
        if of_fit(win, lo, hi, c.fair, margin).equivalent:
            fair.append(v)
        if abs(win - c.fair) < margin:
            inside.append(v)
    return FairDraw(draw, c.win.value, c.win.low, c.win.high, c.win.extrapolated, fair, inside,
                    crossing_influence(c) if np.isfinite(c.win.value) else {})


def crossing_influence(c) -> dict[int, float]:
    """Each deal's influence on the curve's fair value (`report.curve.crossing`): the GLM's per-row
    influence on its coefficients, (X'WX)^-1 x (y - mu), summed over the deal's rows and carried to the
    crossing by the delta method. Their sum of squares is the crossing's cluster-robust variance (without
    the small-sample factor), and over the deals two curves share, their products sum to the covariance
    of the two curves' noise."""
    result = c.fits["win"]
    x, y, mu = result.model.exog, result.model.endog, result.fittedvalues
    weight = mu * (1 - mu)
    rows = (x * (y - mu)[:, None]) @ np.linalg.inv(x.T @ (x * weight[:, None]))
    b0, b1 = result.params
    target = np.log(c.fair / (1 - c.fair))
    per_row = rows @ np.array([-1 / b1, -(target - b0) / b1 ** 2])
    out: dict[int, float] = defaultdict(float)
    for deal, value in zip(result.cov_kwds["groups"].tolist(), per_row.tolist()):
        out[deal] += value
    return dict(out)


def fair_values(plan, side: str, field_: str, k: int, seed: int, swept: list[int], progress=None) -> FairSpread:
    """The fair value of `side`'s `field_` (e.g. 3B culture) on the set as given and under k draws of
    the estimated values (`draws`), each a curve over `swept` played on the same deals
    (`plan.games` per swept value)."""
    from .api import simulate
    from .balance import overlaid, scenario
    from .component_files import load_components
    from .report.curve import curve

    whole_numbers(k=k, seed=seed)  # before the set as given plays its curve, not after
    say = progress or (lambda text: None)
    key = f"components.setup.{side}.{field_}"
    c = load_components(plan.components).with_overrides(plan.overrides)

    def one(overrides: dict, draw: int | None) -> FairDraw:
        from dataclasses import replace

        df = simulate(scenario(replace(plan, overrides=overrides), plan.games, {key: swept}), jobs=plan.jobs)
        return fair_draw(curve(df, key), draw, plan.margin)

    say(f"the set as given: {len(swept)} values x {plan.games:,} games")
    given = one(plan.overrides, None)
    found = []
    for i, draw in enumerate(draws(c, k, seed)):
        say(f"draw {i + 1} of {k}: {len(swept)} values x {plan.games:,} games")
        draw.get("setup", {}).get(side, {}).pop(field_, None)  # the value solved for is swept, not drawn
        found.append(one(overlaid(draw, plan.overrides), i + 1))
    return FairSpread(given, found, list(swept))

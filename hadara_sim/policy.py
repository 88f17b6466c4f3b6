"""The policy interface: a policy decides one kind of decision for a whole batch of games at once.

The engine hands a policy a `Decision`: the kind, a legality mask over that kind's options
(`hadara_sim.actions`), and a `View` of what the acting player may see (RULINGS section 3: public
information and their own cards). The policy returns one legal option index per game. The
reference engine asks the same way with a batch of one game, so every policy runs in both engines.
"""

from __future__ import annotations

import sys
from collections import namedtuple
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numba import njit

from .actions import KINDS
from .components import ComponentSet
from .params import check_params
from .problems import is_whole, raised
from .signals import users_interrupt

# Fields of the game state a policy may read, all (games, ...) arrays. Shapes use P players,
# C cards, E effects. Hidden information (deck order, unseen colony backs, other players' sold
# cards, the box) is never among them.
VIEW_FIELDS = {
    "epoch": "(games,) int8: 1, 2 or 3",
    "phase": "(games,) int8: 0 = phase A, 1 = phase B",
    "first_player": "(games,) int8: seat of this epoch's first player",
    "initiative": "(games, P) int8: initiative 1..5 of each seat",
    "side": "(games, P) int8: setup side 0 = A, 1 = B, -1 not chosen yet",
    "coins": "(games, P) int32",
    "tracks": "(games, P, 4) int16: income, military, culture, food",
    "owned": "(games, P, C) bool: cards each player owns (public: bought cards lie face up)",
    "colour_count": "(games, P, 5) int16: owned cards per colour",
    "effects": "(games, P, E) bool: purple effects each player has",
    "tiles": "(games, P, 4) int8: unused bonus tiles per track",
    "colonies": "(games, P, 5) int8: per level 0 = none, 1 = plundered, 2 = integrated",
    "colony_points": "(games, P) int16: points of the colonies as they lie (fronts or backs)",
    "statues": "(games, P, 4) int8: -1 not carved, else 2 * tile track + side (0 coloured, 1 points)",
    "silver": "(games, P, 2) int8: track of each silver medal's tile, -1 none",
    "gold": "(games, P) int8: gold medals bought",
    "piles": "(games, 5, P) int16: discard pile of each colour, bottom to top, -1 empty",
    "pile_size": "(games, 5) int8: cards in each discard pile",
    "colony_left": "(games, 5) int8: tiles left in each level's stack",
    "colony_front": "(games, 5, 4) int16: top tile's requirement, plunder, integrate cost, points",
    "colour_order": "(games, 5) int8: deck colour at each board position",
    "rotation": "(games,) int8: board position seat 0 faced in draw round 1, -1 before set",
    "draw_round": "(games,) int8: 0..4 during phase A",
}
# Decision-specific fields, set by the engine for the acting player only.
PRIVATE_FIELDS = {
    "player": "(games,) int8: the acting seat",
    "hand": "(games, 2) int16: the two cards drawn (kind 'draw')",
    "card": "(games,) int16: the card just bought (kind 'tile')",
    "feed_need": "(games,) int16: cards still to remove or pay for (kind 'feed')",
}


class View:
    """What the acting player may see in each game of a batch; fields are read lazily."""

    def __init__(self, source, idx, players: int, components, **private):
        self._source, self._idx = source, idx
        self.players, self.components = players, components
        self.__dict__.update(private)

    def __getattr__(self, name):
        if name in VIEW_FIELDS:
            field = getattr(self._source, name)
            # `take` is several times faster than fancy indexing for the same rows
            value = field[self._idx] if isinstance(self._idx, slice) else field.take(self._idx, axis=0)
            self.__dict__[name] = value
            return value
        raise AttributeError(f"a policy cannot see {name!r}; visible fields: "
                             f"{', '.join([*VIEW_FIELDS, *PRIVATE_FIELDS])}")

    def own(self, name: str, *index) -> np.ndarray:
        """The acting player's row of a (games, P, ...) field, gathered in one step; `index`
        picks within the row (`view.own("effects", k)` is the (games,) column of effect k)."""
        key = ("own", name, *index)
        if key not in self.__dict__:
            if name not in VIEW_FIELDS:
                getattr(self, name)  # raises the helpful AttributeError
            field = getattr(self._source, name)
            # one `take` of (games * P, ...) rows is much faster than indexing games and seats
            value = field.reshape((-1,) + field.shape[2:]).take(self._rows, axis=0)
            self.__dict__[key] = value[(slice(None), *index)] if index else value
        return self.__dict__[key]

    @cached_property
    def _rows(self) -> np.ndarray:
        """Row of the acting player in fields reshaped to (games * P, ...)."""
        games = self._idx if not isinstance(self._idx, slice) else np.arange(len(self.player))
        return np.asarray(games, np.int64) * self.players + self.player

    def __len__(self) -> int:
        return len(self.player)


@dataclass
class Decision:
    """One decision in each game of a batch."""

    kind: str
    legal: np.ndarray    # (games, options) bool
    view: View
    game_id: np.ndarray  # (games,) int64: global game number (keys a policy's own randomness)
    serial: np.ndarray   # (games,) int32: decisions already asked in this game
    forward: object = None  # hadara_sim.forward.Forward: determinise and play on; None if unavailable

    def __len__(self) -> int:
        return len(self.legal)


# A built-in policy's decisions as a compiled function (hadara_sim/kernels/): `code` names the kernel,
# `params` and `table` are its settings, `kinds` the decision kinds it may decide for this policy
# instance (any other kind is asked through the policy's Python method).
Kernel = namedtuple("Kernel", ("code", "params", "table", "kinds"))


class IllegalChoice(Exception):
    """A policy returned an option that was not legal."""


class Policy:
    """Base class: `decide` calls the method named after the decision kind.

    A subclass implements the kinds it cares about; any other kind falls back to `default`,
    which takes the first legal option.
    """

    name = "base"
    description = ""
    params: dict = {}    # every parameter's default
    declared: dict = {}  # every parameter's values and meaning: name -> hadara_sim.params.Param

    def __init__(self, seed: int = 0, **params):
        # Keyed randomness takes the seed as a uint64: -1 or 2**70 stopped at the first decision as the
        # policy's own failure ("policy 'random' raised OverflowError").
        if not is_whole(seed) or not 0 <= seed < 2**64:
            raise ValueError(f"policy '{self.name}': seed is a whole number 0..2**64-1, got {seed!r:.40}")
        unknown = set(params) - set(self.params)
        if unknown:
            known = ", ".join(f"{k} (default {v!r})" for k, v in self.params.items()) or "none"
            raise ValueError(f"policy '{self.name}' has no parameter {', '.join(sorted(unknown))}; "
                             f"its parameters: {known}")
        settings = {**self.params, **params}
        # The declarations hold for every setting, so a subclass's own defaults are checked too.
        wrong = check_params(self.params, params) or check_params(self.params, {}, self.declared, settings)
        if wrong:
            where, message = wrong[0]
            raise ValueError(f"policy '{self.name}' parameter {'.'.join(map(str, where))}: {message}")
        both = sorted(set(settings.get("avoid", ())) & set(settings.get("seek", ())))
        if both:
            raise ValueError(f"policy '{self.name}': {', '.join(both)} in both avoid and seek; name each card in one")
        self.seed = seed
        self.settings = settings

    def decide(self, decision: Decision) -> np.ndarray:
        handler = getattr(self, decision.kind, None) if decision.kind in KINDS else None
        return (handler or self.default)(decision)

    def default(self, decision: Decision) -> np.ndarray:
        return decision.legal.argmax(axis=1)

    def check_components(self, components) -> None:
        """A ValueError saying why this policy cannot play games of `components`; none here. A scenario
        and the reference engine ask before the first game (the expert learned its weights on one set)."""

    def kernel(self, components, players: int | None = None, advanced: bool = True) -> Kernel | None:
        """The compiled function that decides for this policy in games of `components` at `players`
        players (basic or advanced game), if it has one."""
        return None

    def __repr__(self) -> str:
        return f"{self.name}({', '.join(f'{k}={v!r}' for k, v in self.settings.items())})"


def playable_on(policy, components) -> None:
    """`policy.check_components(components)`, where it has one (a user's policy need not subclass
    Policy): a ValueError says why it cannot play games of that set; any other failure of the check
    is the policy's own fault, a PolicyError naming it."""
    check = policy_attribute(policy, "check_components", None, policy_name(policy))
    if not callable(check):
        return
    try:
        with prints_apart():
            check(components)
    except (ValueError, PolicyError):  # PolicyError: a policy it plays with (search's rollout), named
        raise
    except BaseException as err:  # GeneratorExit was a traceback, the policy's own KeyboardInterrupt an exit 130
        if users_interrupt(err):
            raise
        raise PolicyError(f"policy '{policy_name(policy)}' failed checking the component set: "
                          f"{raised(err)}") from None


class StopGame(Exception):
    """Raised by a policy on purpose to stop the game with its own message (a trace's replay
    does); passed on as it is, where any other failure inside a policy becomes a PolicyError."""


class PolicyError(IllegalChoice):
    """A policy that failed while deciding: raised, exited, or wrote into what the engine lent it."""


def kernel_of(policy, components, players: int, advanced: bool) -> Kernel | None:
    """The policy's compiled decisions (`Policy.kernel`); None for a policy of decide() alone, which need not
    subclass Policy (the engine asked it, and `simulate`'s estimate of the compile stopped on an
    "unexpected AttributeError: 'P' object has no attribute 'kernel'")."""
    kernel = policy_attribute(policy, "kernel", None, policy_name(policy))
    if not callable(kernel):
        return None
    try:
        spec = kernel(components, players=players, advanced=advanced)
    except BaseException as err:  # a user's subclass of a built-in, its settings or its own kernel() at fault
        if users_interrupt(err) or _built_in(policy):
            raise
        raise PolicyError(f"policy '{policy_name(policy)}': its kernel(components, players={players}, "
                          f"advanced={advanced}) raised {raised(err)}") from None
    if spec is not None and not isinstance(spec, Kernel):
        raise PolicyError(f"policy '{policy_name(policy)}': its kernel() returned {type(spec).__name__}, not a "
                          "hadara_sim.policy.Kernel or None (leave kernel() to the built-in it subclasses)")
    return spec


def _built_in(policy) -> bool:
    """Whether `policy` is an instance of a policy class of this package itself (not a user's subclass)."""
    return type(policy).__module__.startswith("hadara_sim.")


class prints_apart:
    """Within the block, what a user's policy prints goes to standard error: standard output carries
    `--format json/csv/markdown`, which a print in a policy's module, constructor or `decide` broke. Made
    by hand, not with contextlib.redirect_stdout: `choose` enters it once per policy call in the batch
    loop (0.2 µs against 1.6 µs). Threads share sys.stdout: each block restores what it found."""

    __slots__ = ("saved",)

    def __enter__(self):
        self.saved = sys.stdout
        sys.stdout = sys.stderr

    def __exit__(self, *exc):
        sys.stdout = self.saved


def policy_attribute(policy, attr: str, default, who: str):
    """`getattr(policy, attr, default)` on a user's policy (a class, factory, instance or module): an
    attribute whose reading fails otherwise than by being absent (a property that raises) is the policy's
    fault, a PolicyError naming it (`who`) and the attribute; it reached the user as "unexpected"."""
    try:
        return getattr(policy, attr, default)
    except BaseException as err:  # noqa: BLE001 (a user's property may raise anything, sys.exit too)
        if users_interrupt(err):
            raise
        raise PolicyError(f"policy '{who}': reading its `{attr}` raised {raised(err)}") from None


def policy_name(policy) -> str:
    """The policy's `name` (optional: a policy needs only decide()) if it is a non-empty str and its own,
    else its class's name; a `name` that raises is a PolicyError naming the class. A name inherited (a
    user's subclass of greedy that names none) named the built-in where the subclass failed: "policy
    'greedy' raised KeyError", with greedy in the other seat; and every Policy subclass without one "base"."""
    cls = type(policy)
    name = policy_attribute(policy, "name", None, cls.__name__)
    inherited = "name" not in vars(cls) and "name" not in getattr(policy, "__dict__", {})
    return name if isinstance(name, str) and name and not inherited else cls.__name__


def choose(policy, decision: Decision) -> np.ndarray:
    """The policy's checked choices for `decision`. The policy is lent copies (the legality mask
    read-only), and any failure inside the policy (an exception, sys.exit, a KeyboardInterrupt it raised
    itself) becomes a PolicyError naming it; the user's Ctrl-C stays an interrupt."""
    try:
        with prints_apart():
            choices = policy.decide(_lent(decision, policy))
    except (IllegalChoice, StopGame):
        raise
    except BaseException as err:  # GeneratorExit or a bare BaseException too: each reached the user as a traceback
        if users_interrupt(err):
            raise
        what = ("called sys.exit" if isinstance(err, SystemExit)
                else f"raised {raised(err)}")
        if isinstance(err, ValueError) and "read-only" in str(err):
            what = ("tried to change the legality mask or the component set it was given (both are read-only; "
                    "copy what you change first)")
        raise PolicyError(f"policy '{policy_name(policy)}' {what} at decision '{decision.kind}' "
                          f"(games {int(decision.game_id.min())}..{int(decision.game_id.max())})") from None
    return check_choices(policy, decision, choices)


def _lent(decision: Decision, policy) -> Decision:
    """What a policy is handed: its own Decision holding copies of the engine's arrays. A read-only view
    of the mask could be made writeable again (its base is the engine's), and a policy that wrote into it
    or rebound `decision.legal` had its illegal choices checked against its own mask: accepted, then
    played (heap corruption in the compiled engine). A user's policy sees the component set's read-only
    copy (`ComponentSet.lent`); the built-ins keep the set itself, whose arrays their kernels are
    compiled for."""
    legal = decision.legal.copy()
    legal.flags.writeable = False
    view = decision.view
    if not _built_in(policy) and isinstance(view.components, ComponentSet):
        view.components = view.components.lent
    return Decision(decision.kind, legal, view, np.array(decision.game_id), np.array(decision.serial),
                    decision.forward)


def check_choices(policy, decision: Decision, choices) -> np.ndarray:
    """The policy's choices as an int array, or IllegalChoice naming the policy and decision."""
    n, options = decision.legal.shape
    name = policy_name(policy)
    original = choices
    try:
        choices = np.asarray(choices)
    except BaseException as err:  # whatever a policy returned, whatever its __array__ raises
        if users_interrupt(err):
            raise
        raise IllegalChoice(f"policy '{name}' returned {type(choices).__name__} for decision "
                            f"'{decision.kind}', not an array of options: {err}") from None
    # dtype kinds, not np.integer: numpy counts timedelta64 among the integers; and asarray drops a mask
    masked = np.ma.is_masked(original)
    if choices.shape != (n,) or choices.dtype.kind not in "iu" or masked:
        shown = ("a masked array with masked entries" if masked
                 else f"{choices.dtype}{list(choices.shape)}" if choices.dtype != object or choices.ndim
                 else "None (a missing return?)" if original is None else f"a {type(original).__name__}")
        raise IllegalChoice(f"policy '{name}' returned {shown} for decision '{decision.kind}'; expected {n} "
                            "whole numbers, one per game")
    raw, choices = choices, choices.astype(np.int64)  # an unsigned option past int64 is illegal, shown as given
    count, i = _illegal(decision.legal, choices)
    if count:
        legal = np.flatnonzero(decision.legal[i]).tolist()
        raise IllegalChoice(
            f"policy '{name}' chose option {int(raw[i])} at decision '{decision.kind}' for seat "
            f"{int(decision.view.player[i])} in game {int(decision.game_id[i])}, which is not legal "
            f"(legal options: {legal}); {count} of {n} choices in this batch were illegal")
    return choices


@njit(cache=True)
def _illegal(legal, choices):
    """(how many, index of the first) choices that are not a legal option."""
    count, first = 0, -1
    for i in range(len(choices)):
        if choices[i] < 0 or choices[i] >= legal.shape[1] or not legal[i, choices[i]]:
            first = i if count == 0 else first
            count += 1
    return count, first

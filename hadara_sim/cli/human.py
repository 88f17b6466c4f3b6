"""A seat for a person in `play --policy human`: the view, the legal options numbered, a short help.

It reads one line per decision from standard input, so a pipe or a file can play it too (tests
do). Only `play` offers it: a run of thousands of games has no one to ask.
"""

from __future__ import annotations

import re
import sys

import numpy as np

from ..constants import EPOCH_NAMES, TRACKS
from ..policy import Decision, Policy, StopGame
from .human_view import board_view, coins, option_text, table_view, wrap_phrases

HELP = """Type the number of an option and Enter. Other answers:
  b   the board: discard piles, colonies, statues, medal prices, your next deck
  v   everyone's coins, tracks, cards, colonies, statues and medals
  h   this help
  q   leave the game"""

ASKED = {"wheel": "how to turn the wheel", "side": "which side of your setup card to play",
         "draw": "which card to keep and whether to buy or sell it", "tile": "which bonus tile to take",
         "pick": "which discard pile to take from", "colony": "which colony to take",
         "statue": "which statue to carve", "feed": "how to feed your people", "medal": "which medal to buy"}


class LeftTheGame(StopGame):
    """The person at the table typed q (`by_choice`), or the input ended."""

    def __init__(self, message: str, by_choice: bool):
        super().__init__(message)
        self.by_choice = by_choice


class Human(Policy):
    name = "human"
    description = "You: each decision is shown with its legal options numbered; type a number (h for help)."

    def __init__(self, seed: int = 0, read=None, write=None, width: int = 100, stream=None):
        super().__init__(seed)
        self.read = read or _read_stdin
        # `stream` None: standard output; standard error while standard output carries a machine format.
        # Taken now: while a policy decides, sys.stdout is standard error (`policy.prints_apart`)
        stream = sys.stdout if stream is None else stream
        self.write = write or (lambda text: print(wrapped(text, width), file=stream, flush=True))

    def decide(self, decision: Decision) -> np.ndarray:
        options = np.flatnonzero(decision.legal[0])
        view = decision.view
        self.write(heading(decision))
        hand = getattr(view, "hand", None)
        for number, option in enumerate(options, 1):
            self.write(f"  {number:>2}. {option_text(decision.kind, int(option), view, hand)}")
        while True:
            self.write(f"your choice (1-{len(options)}, h for help):")
            line = read_line(self.read)
            if line is None:
                raise LeftTheGame("the input ended before the game did", by_choice=False)
            answer = line.strip().lower()
            if answer == "q":
                raise LeftTheGame("you left the game", by_choice=True)
            if answer in ("h", "?", "help"):
                self.write(HELP)
            elif answer == "v":
                self.write(table_view(view))
            elif answer == "b":
                self.write(board_view(view, setting_up=decision.kind == "side"))
            elif (number := option_number(answer, len(options))) is not None:
                return np.array([options[number - 1]])
            else:
                shown = line.strip() if len(line.strip()) <= 40 else line.strip()[:40] + "..."
                self.write(f"'{shown}' is not an option: type a number from 1 to {len(options)}")


def _read_stdin() -> str:
    """A line of standard input ('' when there is none: closed, or never opened)."""
    return sys.stdin.readline() if sys.stdin is not None else ""


def read_line(read) -> str | None:
    """One line typed, or None when the input is over, closed or cannot be read."""
    try:
        line = read()
    except (OSError, ValueError):  # a closed file, or bytes that are not text (UnicodeDecodeError)
        return None
    return line or None


def option_number(answer: str, count: int) -> int | None:
    """The option number typed (1..count), or None: only the digits 0-9 count ('²' is no number), and
    a number longer than `count` is none of the options without being read."""
    digits = answer.lstrip("0")
    if not (answer.isascii() and answer.isdigit()) or len(digits) > len(str(count)):
        return None
    number = int(digits or "0")
    return number if 1 <= number <= count else None


def heading(decision: Decision) -> str:
    """The line above the options: the seat, the moment, its coins and tracks, and what it chooses."""
    view = decision.view
    seat = int(view.player[0])
    if decision.kind == "side":
        return f"\nSeat {seat} (you), setup card {int(view.initiative[0, seat])}: choose {ASKED['side']}"
    return (f"\nSeat {seat} (you), epoch {EPOCH_NAMES[int(view.epoch[0])]}, phase {'AB'[int(view.phase[0])]}: "
            f"{coins(int(view.coins[0, seat]))}, "
            + ", ".join(f"{t} {int(v)}" for t, v in zip(TRACKS, view.tracks[0, seat]))
            + f"; choose {ASKED[decision.kind]}" + (feeding(view) if decision.kind == "feed" else ""))


def feeding(view) -> str:
    """How many cards the person still has to feed (RULINGS 4: cards beyond the food track)."""
    need = int(view.feed_need[0])
    return f" ({need} card{'s' * (need != 1)} more than your food track)"


def wrapped(text: str, width: int) -> str:
    """Each line of `text` wrapped at word boundaries to `width`; an option's continuation lines
    indented under its text, any other line's under its start and two more."""

    out = []
    for line in text.split("\n"):
        option = re.match(r" *\d+\. ", line)
        indent = " " * (option.end() if option else len(line) - len(line.lstrip()) + 2)
        out.append(wrap_phrases(line, width, indent) if line else line)
    return "\n".join(out)

"""A seat for a person in `play --policy human`: the view, the legal options numbered, a short help.

It reads one line per decision from standard input, so a pipe or a file can play it too (tests
do). Only `play` offers it: a run of thousands of games has no one to ask.
"""

from __future__ import annotations

import sys

import numpy as np

from ..actions import describe
from ..constants import COLOURS, TRACKS
from ..policy import Decision, Policy, StopGame

HELP = """Type the number of an option and Enter. Other answers:
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

    def __init__(self, seed: int = 0, read=None, write=None):
        super().__init__(seed)
        self.read = read or _read_stdin
        self.write = write or (lambda text: print(text, flush=True))

    def decide(self, decision: Decision) -> np.ndarray:
        options = np.flatnonzero(decision.legal[0])
        view, c = decision.view, decision.view.components
        seat = int(view.player[0])
        self.write(f"\nSeat {seat} (you), epoch {int(view.epoch[0])}, phase {'AB'[int(view.phase[0])]}: "
                   f"{int(view.coins[0, seat])} coins, " + ", ".join(
                       f"{t} {int(v)}" for t, v in zip(TRACKS, view.tracks[0, seat])) + f"; choose {ASKED[decision.kind]}")
        hand = getattr(view, "hand", None)
        for number, option in enumerate(options, 1):
            self.write(f"  {number:>2}. {option_text(decision.kind, int(option), view, c, hand)}")
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
            elif option_number(answer, len(options)) is not None:
                return np.array([options[option_number(answer, len(options)) - 1]])
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


def option_text(kind: str, option: int, view, components, hand) -> str:
    """An option in words, with what a person needs to judge it (the card on top of a pile)."""
    if kind == "draw" and hand is not None:
        discard, sell = divmod(option, 2)
        kept, dropped = (components.cards[int(hand[0][i])] for i in (1 - discard, discard))
        return f"{('buy', 'sell')[sell]} {kept.describe()}; discard {dropped.id}"
    text = describe(kind, option, components, hand[0] if hand is not None else None)
    if kind == "pick":
        colour = option // 2
        size = int(view.pile_size[0, colour])
        if size:
            text += f": {components.cards[int(view.piles[0, colour, size - 1])].describe()}"
    return text


def table_view(view) -> str:
    """Every seat's public state, one line each."""
    lines = []
    for seat in range(view.players):
        medals = int((view.silver[0, seat] >= 0).sum())
        colours = ", ".join(f"{n} {colour}" for colour, n in zip(COLOURS, view.colour_count[0, seat]) if n)
        lines.append(f"  seat {seat}: {int(view.coins[0, seat])} coins; "
                     + ", ".join(f"{t} {int(v)}" for t, v in zip(TRACKS, view.tracks[0, seat]))
                     + f"; cards {colours or 'none'}; colonies {int((view.colonies[0, seat] > 0).sum())}; "
                     f"statues {int((view.statues[0, seat] >= 0).sum())}; medals {medals} silver, "
                     f"{int(view.gold[0, seat])} gold")
    return "\n".join(lines)

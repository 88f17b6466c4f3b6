"""Does the forward model leak the past? A probe names the cards other seats sold face down.

A probing seat (greedy play) asks the forward model for one determinised copy at its first decision of
epochs II and III and names, from that copy alone, the cards of the earlier epochs that other seats
sold face down in draw rounds (the ones it never saw): the cards the copy's epoch start holds as sold
by another seat in a draw round. The referee (this script, which sees the true game) counts how many
it named right, and how many a blind guess would: for each epoch and colour, as many cards drawn at
random from the cards of that deck the probe never saw. A model that hides the past names no more than
chance; one that carries the true start names every card.

    python scripts/leak_probe.py --games 40 --players 3 --seed 1
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

import numpy as np

from hadara_sim import load_components, make_deals
from hadara_sim.cli.common import whole_number
from hadara_sim.constants import COLOURS, LOC_OWNED, LOC_PILE, LOC_REMOVED, LOC_SOLD
from hadara_sim.engine.game import play_batch
from hadara_sim.forward import Forward
from hadara_sim.registry import make_policy


@dataclass
class Tally:
    """Hidden past cards: how many there were, how many the probe named, how many of those right, and
    how many right a blind guess of as many cards would get on average."""

    hidden: int = 0
    named: int = 0
    right: int = 0
    chance: float = 0.0


def hidden_past(location, card_seat, card_when, seat: int, epoch: int) -> np.ndarray:
    """(C,) cards sold face down (in a draw round) by a seat other than `seat` before `epoch`."""
    return ((location == LOC_SOLD) & (card_seat != seat) & (card_seat >= 0) & (card_when % 2 == 0)
            & (card_when // 2 < epoch))


class Probe:
    """Plays greedy; at its first decision of epochs II and III names the hidden past cards."""

    name = "probe"

    def __init__(self, components, advanced: bool):
        self.c, self.advanced = components, advanced
        self.play = make_policy("greedy")
        self.asked: set[tuple[int, int]] = set()
        self.tally = Tally()

    def decide(self, d):
        epoch = int(d.view.epoch[0])
        games = d.game_id.astype(np.int64)
        new = [i for i, g in enumerate(games) if epoch >= 2 and (int(g), epoch) not in self.asked]
        if new and d.kind != "side":
            det = d.forward.determinise(1, seed=int(games[0]) * 7 + epoch)
            if det.start is not None:
                self.probe(d, det, new, epoch)
            self.asked.update((int(games[i]), epoch) for i in new)
        return self.play.decide(d)

    def probe(self, d, det, rows, epoch):
        real = d.view._source  # the referee's view of the true game
        idx = np.arange(len(d)) if isinstance(d.view._idx, slice) else np.asarray(d.view._idx)
        copy = det.start.state
        for i in rows:
            g, seat = idx[i], int(d.view.player[i])
            truth = hidden_past(real.location[g], real.card_seat[g], real.card_when[g], seat, epoch)
            named = hidden_past(copy["location"][i], copy["card_seat"][i], copy["card_when"][i], seat, epoch)
            loc = real.location[g]
            seen = (loc >= LOC_OWNED) | (loc == LOC_PILE) | (loc == LOC_REMOVED) | ((loc == LOC_SOLD) & ~truth)
            self.tally.hidden += int(truth.sum())
            self.tally.named += int(named.sum())
            self.tally.right += int((named & truth).sum())
            for e in range(1, epoch):
                for colour in range(len(COLOURS)):
                    pool = np.asarray(self.c.cards_of(e, colour, self.advanced))
                    pool = pool[~seen[pool]]
                    if len(pool):
                        self.tally.chance += named[pool].sum() * truth[pool].sum() / len(pool)


def probe(games: int, players: int, seed: int, advanced: bool = True) -> Tally:
    """The probe's tally over `games` games at `players` players (the probe in seat 0)."""
    c = load_components()
    deals = make_deals(c, players, games, seed=seed, advanced=advanced)
    seat = Probe(c, advanced)
    play_batch(deals, c, [seat] + [make_policy("greedy")] * (players - 1), forward=Forward)
    return seat.tally


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=whole_number(1), default=40)
    parser.add_argument("--players", type=whole_number(2, 5), default=3)
    parser.add_argument("--seed", type=whole_number(0), default=1)
    args = parser.parse_args()
    t = probe(args.games, args.players, args.seed)
    print(f"{args.games} games at {args.players} players (seed {args.seed}): {t.hidden} cards sold face down "
          f"by other seats before the probe's decision; the probe named {t.named}, {t.right} of them right "
          f"({t.right / max(t.hidden, 1):.0%} of the hidden cards); a blind guess of as many cards: "
          f"{t.chance:.1f} right on average")


if __name__ == "__main__":
    main()

"""Properties of whole games: 320 games (40 per player count 2-5, basic and advanced) between the
built-in random and greedy policies, recorded with a Recorder, checked after every step."""

import copy

import numpy as np
import pytest

from hadara_sim.constants import (
    EFFECT_INDEX, GOLD_MAX, LOC_BOX, LOC_DECK, LOC_OWNED, LOC_PILE, LOC_REMOVED, LOC_SOLD,
    PICKS_PER_PHASE_B, REQUIREMENT_CUT, SILVER_MAX, first_player_seats,
)
from hadara_sim.deal import make_deals
from hadara_sim.reference import Game
from hadara_sim.trace import Recorder, ReplayMismatch, replay
from hadara_sim.policies import Greedy, Random

from helpers import CULTURE, MILITARY, expected_tracks, tile_count

GAMES_PER_CASE = 20
CASES = [(players, advanced) for players in (2, 3, 4, 5) for advanced in (False, True)]
EPOCH_OF = {"I": 1, "II": 2, "III": 3}


class Spy:
    """Wraps a policy and logs what each decision showed: kind, seat, epoch, phase and hand."""

    def __init__(self, inner, log):
        self.inner, self.log, self.name = inner, log, inner.name

    def decide(self, decision):
        view = decision.view
        self.log.append(dict(kind=decision.kind, seat=int(view.player[0]), epoch=int(view.epoch[0]),
                             phase=int(view.phase[0]),
                             hand=view.hand[0].tolist() if decision.kind == "draw" else None))
        return self.inner.decide(decision)

    def __str__(self):
        return str(self.inner)


class Played:
    """One recorded game with its states as arrays."""

    def __init__(self, deal, records, log):
        self.deal, self.records, self.log = deal, records, log
        self.players = deal.players
        self.initiative = deal.initiative[0].tolist()
        self.firsts = first_player_seats(self.initiative)
        states = [r for r in records if r["type"] == "state"]
        self.steps = [r["step"] for r in states]
        self.states = [r["state"] for r in states]
        self.location = np.array([s["location"] for s in self.states])
        self.coins = np.array([s["coins"] for s in self.states])
        self.tracks = np.array([s["tracks"] for s in self.states])
        self.sheet = records[-1]["sheet"]
        self.dealt = {e: set(deal.decks[0, e - 1].ravel().tolist()) for e in (1, 2, 3)}

    def epoch(self, i):
        step = self.steps[i]
        return 0 if step == "setup" else EPOCH_OF[step.split(".")[0]]

    def owned_effects(self, i, seat):
        owned = np.flatnonzero(self.location[i] == LOC_OWNED + seat)
        return set(self.c.card_effect[owned].tolist()) - {-1}


def play_all(components):
    games = []
    for players, advanced in CASES:
        deals = make_deals(components, players, GAMES_PER_CASE, seed=1000 + 10 * players + advanced,
                           advanced=advanced)
        for g in range(GAMES_PER_CASE):
            deal = deals[g]
            log = []
            if g % 4 == 3:
                inner = [Greedy(seed=s) for s in range(players)]
            else:
                inner = [(Random if (g + s) % 2 else Greedy)(seed=7 * g + s) for s in range(players)]
            policies = [Spy(p, log) for p in inner]
            recorder = Recorder(deal, components, policies)
            Game(deal, components, policies, recorder=recorder).play()
            played = Played(deal, recorder.records, log)
            played.c = components
            games.append(played)
    return games


@pytest.fixture(scope="module")
def played(components):
    return play_all(components)


# --- cards ----------------------------------------------------------------------------------------

def test_every_card_ends_in_one_place(played, components):
    """Every dealt card of an epoch ends owned, sold or removed; no undealt card ever leaves the box."""
    for game in played:
        all_dealt = set().union(*game.dealt.values())
        undealt = np.array(sorted(set(range(components.n_cards)) - all_dealt))
        assert (game.location[:, undealt] == LOC_BOX).all()
        for i, step in enumerate(game.steps):
            epoch = game.epoch(i)
            loc = game.location[i]
            for later in range(epoch + 1, 4):  # later epochs still in the box
                assert (loc[sorted(game.dealt[later])] == LOC_BOX).all()
            valid = {LOC_BOX, LOC_DECK, LOC_PILE, LOC_SOLD, LOC_REMOVED,
                     *range(LOC_OWNED, LOC_OWNED + game.players)}
            assert set(loc.tolist()) <= valid
            if step.endswith(".A.draw5"):  # decks empty, one discard per draw on the piles
                assert not (loc == LOC_DECK).any()
                assert int((loc == LOC_PILE).sum()) == 5 * game.players
            if step.endswith(".B.medals"):  # end of the epoch: every card of it is somewhere final
                done = loc[sorted(game.dealt[epoch])]
                assert ((done == LOC_SOLD) | (done == LOC_REMOVED) | (done >= LOC_OWNED)).all()
                assert not ((loc == LOC_DECK) | (loc == LOC_PILE)).any()


def test_owned_cards_leave_only_at_feeding(played):
    """Owned cards leave only when removed at feeding; sold and removed cards never return."""
    for game in played:
        for i in range(1, len(game.steps)):
            before, after = game.location[i - 1], game.location[i]
            changed = before != after
            assert not (changed & ((before == LOC_SOLD) | (before == LOC_REMOVED))).any()
            lost = changed & (before >= LOC_OWNED)
            if game.steps[i].endswith(".B.feeding"):
                assert (after[lost] == LOC_REMOVED).all()
            else:
                assert not lost.any()
                assert not (after == LOC_REMOVED)[changed].any()


def test_each_seat_draws_twice_from_every_deck(played):
    """Each epoch every seat draws its 2 cards from each colour's deck exactly once."""
    for game in played:
        c = game.c
        draws = [d for d in game.log if d["kind"] == "draw"]
        assert len(draws) == 3 * 5 * game.players  # with 2 cards there are always >= 2 options
        for epoch in (1, 2, 3):
            drawn = []
            for seat in range(game.players):
                hands = [d["hand"] for d in draws if d["epoch"] == epoch and d["seat"] == seat]
                assert len(hands) == 5
                colours = [int(c.card_colour[h[0]]) for h in hands]
                assert all(int(c.card_colour[h[1]]) == col for h, col in zip(hands, colours))
                assert sorted(colours) == [0, 1, 2, 3, 4]
                drawn += [x for h in hands for x in h]
            assert sorted(drawn) == sorted(game.dealt[epoch])


def test_each_seat_takes_five_cards_in_phase_b(played):
    """Phase B: turns from the first player take one top card each; every seat takes 5."""
    for game in played:
        c, P = game.c, game.players
        for epoch, name in ((1, "I"), (2, "II"), (3, "III")):
            first = game.firsts[epoch - 1]
            taken = [0] * P
            for k in range(PICKS_PER_PHASE_B * P):
                i = game.steps.index(f"{name}.B.pick{k + 1}")
                seat = (first + k) % P
                before, after = game.location[i - 1], game.location[i]
                moved = np.flatnonzero(before != after)
                assert len(moved) == 1
                x = int(moved[0])
                assert before[x] == LOC_PILE
                pile = game.states[i - 1]["piles"][int(c.card_colour[x])]
                assert [v for v in pile if v >= 0][-1] == x  # the top card of its pile
                assert after[x] in (LOC_SOLD, LOC_OWNED + seat)
                others = [s for s in range(P) if s != seat]
                assert (game.coins[i, others] == game.coins[i - 1, others]).all()
                delta = game.coins[i, seat] - game.coins[i - 1, seat]
                if after[x] == LOC_SOLD:
                    bonus = EFFECT_INDEX["sell_bonus"] in game.owned_effects(i - 1, seat)
                    assert delta == c.sell[epoch - 1] + bonus
                else:
                    assert delta <= 0
                taken[seat] += 1
            assert taken == [PICKS_PER_PHASE_B] * P
            assert not (game.location[i] == LOC_PILE).any()


# --- tracks, tiles and coins --------------------------------------------------------------------

def test_tracks_match_their_sources(played, components):
    """Tracks = setup + cards + colony backs + coloured statues + purple effects, after every step."""
    for game in played:
        for i, state in enumerate(game.states):
            assert state["tracks"] == expected_tracks(components, state, game.initiative), game.steps[i]


def test_bonus_tiles_are_conserved(played, components):
    """Each player's 8 bonus tiles are unused, on statues, on silver medals or on the bonus-tile card."""
    for game in played:
        for state in game.states:
            for seat in range(game.players):
                assert tile_count(state, seat, components.tiles_per_colour) == [components.tiles_per_colour] * 4
                assert min(state["tiles"][seat]) >= 0


def test_coins_never_negative(played):
    """Coins are never negative after any step."""
    for game in played:
        assert (game.coins >= 0).all()


def test_setup_and_income(played, components):
    """Setup gives the setup card (+1 extra coin where due); income pays the income track (+diversity)."""
    for game in played:
        setup = game.states[0]
        for seat, init in enumerate(game.initiative):
            side = setup["side"][seat]
            assert side in ((0, 1) if game.deal.advanced else (0,))
            assert setup["tracks"][seat] == components.setup_values[init - 1, side].tolist()
            extra = game.coins[0, seat] - components.setup_coins[init - 1, side]
            assert extra in (0, 1)
        for i, step in enumerate(game.steps):
            if not step.endswith(".income"):
                continue
            assert (game.tracks[i] == game.tracks[i - 1]).all()
            for seat in range(game.players):
                income, *others = game.tracks[i - 1, seat].tolist()
                if EFFECT_INDEX["income_diversity"] in game.owned_effects(i - 1, seat):
                    income += min(6, 2 * sum(1 for v in others if v > income))
                assert game.coins[i, seat] - game.coins[i - 1, seat] == income


def test_feeding(played):
    """Feeding removes (or pays for) cards until cards = food, only if needed; food_surplus pays."""
    for game in played:
        for i, step in enumerate(game.steps):
            if not step.endswith(".B.feeding"):
                continue
            assert game.steps[i - 1].endswith(".B.statues")
            for seat in range(game.players):
                before, after = game.location[i - 1], game.location[i]
                n0, n1 = int((before == LOC_OWNED + seat).sum()), int((after == LOC_OWNED + seat).sum())
                food0, food1 = int(game.tracks[i - 1, seat, 3]), int(game.tracks[i, seat, 3])
                effects0, effects1 = game.owned_effects(i - 1, seat), game.owned_effects(i, seat)
                paid = 0
                if n0 <= food0:
                    assert n1 == n0
                else:
                    paid = n1 - food1  # cards paid for: the loop stops when cards = food + paid
                    assert 0 <= paid <= (6 if EFFECT_INDEX["feed_with_coins"] in effects0 else 0)
                surplus = 0
                if EFFECT_INDEX["food_surplus"] in effects1 and food1 > n1:
                    surplus = min(12, 3 * (food1 - n1))
                assert game.coins[i, seat] - game.coins[i - 1, seat] == surplus - 2 * paid


# --- colonies, statues, medals --------------------------------------------------------------------

def test_colony_limits(played, components):
    """Colonies: one per step (two with double_actions), one per level, top tile, military enough."""
    for game in played:
        c = game.c
        taken_at_level = {level: [] for level in range(5)}
        for i in range(1, len(game.steps)):
            before, after = game.states[i - 1], game.states[i]
            for seat in range(game.players):
                new = [lv for lv in range(5) if after["colonies"][seat][lv] and not before["colonies"][seat][lv]]
                for lv in range(5):
                    if before["colonies"][seat][lv]:  # never lost, never changed
                        assert after["colonies"][seat][lv] == before["colonies"][seat][lv]
                        assert after["colony_tile"][seat][lv] == before["colony_tile"][seat][lv]
                if not new:
                    continue
                assert game.steps[i].endswith(".colonies")
                effects = game.owned_effects(i - 1, seat)
                double = EFFECT_INDEX["double_actions"] in effects
                assert len(new) <= (2 if double else 1)
                for lv in new:
                    tile = after["colony_tile"][seat][lv]
                    assert c.colony_level[tile] == lv
                    taken_at_level[lv].append(tile)
                    req = int(c.colony_requirement[tile])
                    if EFFECT_INDEX["requirement_purchase"] in effects:
                        continue
                    if EFFECT_INDEX["requirement_cut"] in effects:
                        req -= REQUIREMENT_CUT
                    military = after["tracks"][seat][MILITARY] if double else before["tracks"][seat][MILITARY]
                    assert military >= req
        for lv, tiles in taken_at_level.items():
            stack = game.deal.colonies[0, lv].tolist()
            assert len(set(tiles)) == len(tiles) and set(tiles) == set(stack[:len(tiles)])


def test_statue_limits(played, components):
    """Statues: one per step (two with double_actions), each once, culture enough, never lost."""
    for game in played:
        c = game.c
        for i in range(1, len(game.steps)):
            before, after = game.states[i - 1], game.states[i]
            for seat in range(game.players):
                old, now = before["statues"][seat], after["statues"][seat]
                assert all(now[s] == old[s] for s in range(4) if old[s] >= 0)
                new = [s for s in range(4) if now[s] >= 0 and old[s] < 0]
                if not new:
                    continue
                assert game.steps[i].endswith(".statues")
                effects = game.owned_effects(i - 1, seat)
                double = EFFECT_INDEX["double_actions"] in effects
                assert len(new) <= (2 if double else 1)
                if EFFECT_INDEX["requirement_purchase"] in effects:
                    continue
                cut = REQUIREMENT_CUT if EFFECT_INDEX["requirement_cut"] in effects else 0
                culture = after["tracks"][seat][CULTURE] if double else before["tracks"][seat][CULTURE]
                assert all(culture >= c.statue_requirement[s] - cut for s in new)


def test_medal_limits(played):
    """At most 2 silver and 2 gold medals per game, bought only in the medal step, never lost."""
    for game in played:
        for i in range(1, len(game.steps)):
            before, after = game.states[i - 1], game.states[i]
            for seat in range(game.players):
                assert 0 <= after["gold"][seat] <= GOLD_MAX
                silver = [t for t in after["silver"][seat] if t >= 0]
                assert len(silver) <= SILVER_MAX
                assert after["silver"][seat][:len([t for t in before["silver"][seat] if t >= 0])] == \
                    [t for t in before["silver"][seat] if t >= 0]
                assert after["gold"][seat] >= before["gold"][seat]
                if after["silver"][seat] != before["silver"][seat] or after["gold"][seat] != before["gold"][seat]:
                    assert game.steps[i].endswith(".medals")


def test_basic_game_has_no_starred_cards(played, components):
    """Basic game: starred purple cards never leave the box."""
    starred = np.flatnonzero(components.card_starred)
    for game in played:
        if not game.deal.advanced:
            assert (game.location[:, starred] == LOC_BOX).all()


def test_final_sheet_matches_last_state(played, components):
    """The final sheet's win shares sum to 1; the winners have the best (total, leftover coins)."""
    for game in played:
        assert sum(r["win_share"] for r in game.sheet) == pytest.approx(1.0)
        best = max((r["total"], r["leftover_coins"]) for r in game.sheet)
        assert all((r["win_share"] > 0) == ((r["total"], r["leftover_coins"]) == best) for r in game.sheet)
        assert [r["leftover_coins"] for r in game.sheet] == [int(x) % 5 for x in game.coins[-1]]


# --- traces -------------------------------------------------------------------------------------

def test_every_trace_replays(played, components):
    """Every recorded game replays through the reference engine to the same score sheet."""
    for game in played:
        assert replay(game.records, components) == game.sheet


def test_same_deal_same_game(components):
    """A game is fixed by its deal and its policies: playing it twice gives the same records."""
    deal = make_deals(components, 4, 1, seed=9, advanced=True)[0]
    runs = []
    for _ in range(2):
        policies = [Random(seed=s) if s % 2 else Greedy() for s in range(4)]
        recorder = Recorder(deal, components, policies)
        Game(deal, components, policies, recorder=recorder).play()
        runs.append(recorder.records)
    assert runs[0] == runs[1]


def test_tampered_traces_fail(played, components):
    """A trace with one choice or one state value changed fails to replay (ReplayMismatch)."""
    for n, game in enumerate(played[::8]):
        decisions = [i for i, r in enumerate(game.records) if r["type"] == "decision"]
        records = copy.deepcopy(game.records)
        r = records[decisions[(37 * n) % len(decisions)]]
        r["choice"] = next(o for o in r["options"] if o != r["choice"])
        with pytest.raises(ReplayMismatch):
            replay(records, components)
        states = [i for i, r in enumerate(game.records) if r["type"] == "state"]
        records = copy.deepcopy(game.records)
        state = records[states[(53 * n) % len(states)]]["state"]
        state["coins"][n % game.players] += 1
        with pytest.raises(ReplayMismatch, match="differs in coins"):
            replay(records, components)

"""The reference engine: one game of Hadara, played step by step in plain Python.

This module states the rules as the rulebook and RULINGS.md do, in the same order, and is the
yardstick for the vectorised engine (`hadara_sim.engine`): both must agree on every game. Speed is
not a goal here; clarity is.

A game takes a deal (all its chance) and one policy per seat, and asks a policy at every decision
with more than one legal option (`hadara_sim.actions` lists the options of each kind).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import actions as A
from .component_files import as_component_set
from .components import ComponentSet, original
from .constants import (
    AFFINITY_TRACK, BONUS_TILE_CARD_VALUE, COINS_PER_POINT, COLONY_BOUNTY, COLONY_LEVELS, CULTURE,
    DIVERSITY_COINS, DIVERSITY_MAX, EFFECT_IDS, EFFECT_INDEX, EPOCH_NAMES, EPOCHS, FEED_COIN_MAX_CARDS,
    FEED_COIN_PRICE, FOOD, GOLD_MAX, GOLD_POINTS_PER_SET, INCOME, LOC_BOX, LOC_DECK, LOC_OWNED,
    LOC_PILE, LOC_REMOVED, LOC_SOLD, MEDAL_DISCOUNT_GOLD, MEDAL_DISCOUNT_SILVER, MILITARY,
    PATRON_BONUS, PICKS_PER_PHASE_B, PURPLE, REQUIREMENT_CUT, REQUIREMENT_MAX_COINS,
    REQUIREMENT_PRICE, SELL_BONUS, SET_COLLECTOR_POINTS, SILVER_MAX, STATUES, SURPLUS_COINS_PER_FOOD,
    SURPLUS_MAX, TRACKS, COLOURS, extra_coin_seats, first_player_seats,
)
from .deal import Deals
from .policy import Decision, View, choose, playable_on

SCORE_LINES = ("colonies", "statues", "silver", "gold", "cards", "coins")
# Purple bonuses, each already counted inside one of the score lines above.
BONUS_LINES = ("patron_points", "silver_full_points", "set_collector_points", "wildcard_points")


@dataclass
class Player:
    """One seat's belongings. Tracks are kept up to date as sources are gained and lost."""

    seat: int
    initiative: int
    tiles: list[int]                      # unused bonus tiles per track
    side: int = -1                        # setup side 0 = A, 1 = B
    coins: int = 0
    tracks: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    cards: list[int] = field(default_factory=list)                 # owned cards, in order gained
    colonies: dict[int, tuple[int, bool]] = field(default_factory=dict)  # level -> (tile, integrated)
    statues: dict[int, tuple[int, int]] = field(default_factory=dict)    # statue -> (track, side)
    silver: list[int] = field(default_factory=list)               # track of each silver medal
    gold: int = 0
    bonus_card_tile: int = -1             # track of the tile lying on the bonus-tile card


class Game:
    """One game of Hadara between `len(policies)` seats."""

    def __init__(self, deal: Deals, components: ComponentSet, policies, recorder=None, narrator=None, forward=None):
        if not isinstance(deal, Deals):  # a list of deals stopped with "'list' object has no attribute 'players'"
            raise TypeError(f"deal is a batch of one deal from hadara_sim.make_deals (deals[i]), not "
                            f"{type(deal).__name__} {deal!r:.40}")
        if len(deal) != 1:
            raise ValueError("the reference engine plays one deal at a time: pass deals[i]")
        components = as_component_set(components)
        self.deal, self.c = deal, original(components)
        self.players = deal.players
        self.advanced = deal.advanced
        self.policies = list(policies)
        if len(self.policies) != self.players:
            raise ValueError(f"{self.players} players need {self.players} policies, got {len(self.policies)}")
        for seat, policy in enumerate(self.policies):
            if not callable(getattr(policy, "decide", None)):  # a name "greedy" stopped at the first decision
                raise TypeError(f"seat {seat}'s policy is {policy!r:.40}, not a policy: "
                                "hadara_sim.registry.make_policy('greedy') makes one from a name")
            playable_on(policy, components)  # the expert's weights, say
        self.recorder = recorder
        self.narrator = narrator  # called with (seat or None, text) for a readable account
        self.forward = forward  # the forward model (hadara_sim.forward.Forward) behind decision.forward, or None
        self.serial = 0
        self.history: list[int] = []  # choice at each asked decision
        self.seats = [Player(s, int(deal.initiative[0, s]), [components.tiles_per_colour] * 4)
                      for s in range(self.players)]
        self.location = np.full(components.n_cards, LOC_BOX, np.int8)
        self.epoch, self.phase, self.first, self.rotation, self.draw_round = 1, 0, 0, -1, 0
        self.decks: list[list[int]] = [[] for _ in COLOURS]
        self.piles: list[list[int]] = [[] for _ in COLOURS]
        self.colony_stacks = [list(deal.colonies[0, level]) for level in range(COLONY_LEVELS)]

    # --- the whole game -------------------------------------------------------------------

    def play(self) -> list[dict]:
        """Set up, play three epochs, and return the final score sheet (one dict per seat)."""
        self.set_up()
        for epoch in EPOCHS:
            self.play_epoch(epoch)
        sheet = self.score_sheet()
        if self.recorder:
            self.recorder.final(sheet)
        return sheet

    def set_up(self):
        """Each player takes a setup card side, its coins and track values; some get an extra coin."""
        if self.advanced:
            sides = [self.ask("side", p, np.ones(2, bool)) for p in self.seats]
        else:
            sides = [0] * self.players
        for p, side in zip(self.seats, sides):
            p.side = side
            p.coins = int(self.c.setup_coins[p.initiative - 1, side])
            p.tracks = [int(v) for v in self.c.setup_values[p.initiative - 1, side]]
        for s in extra_coin_seats([p.initiative for p in self.seats]):
            self.seats[s].coins += 1
        self.record("setup")

    def play_epoch(self, epoch: int):
        """Phase A (draw rounds, income, colonies, statues), then phase B (picks, the same steps,
        feeding, medals)."""
        self.epoch, self.phase, self.draw_round = epoch, 0, 0
        self.lay_out_decks()
        self.first = first_player_seats([p.initiative for p in self.seats])[epoch - 1]
        self.tell(None, f"Epoch {EPOCH_NAMES[epoch]}: seat {self.first} is first player")
        self.set_wheel()
        for self.draw_round in range(len(COLOURS)):
            self.draw_round_of_phase_a()
            self.record(f"draw{self.draw_round + 1}")
        self.steps_after_phase()
        self.phase = 1
        self.tell(None, "Phase B")
        for turn in range(PICKS_PER_PHASE_B * self.players):
            self.pick_turn(self.seats[(self.first + turn) % self.players])
            self.record(f"pick{turn + 1}")
        self.steps_after_phase()
        for p in self.in_turn_order():
            self.feed_people(p)
        self.record("feeding")
        for p in self.in_turn_order():
            self.medal_step(p)
        self.record("medals")

    def steps_after_phase(self):
        """Income, then a colony step and a statue step, each from the first player clockwise."""
        for p in self.in_turn_order():
            self.collect_income(p)
        self.record("income")
        for p in self.in_turn_order():
            self.colony_step(p)
        self.record("colonies")
        for p in self.in_turn_order():
            self.statue_step(p)
        self.record("statues")

    def in_turn_order(self) -> list[Player]:
        """The players from the first player clockwise."""
        return [self.seats[(self.first + k) % self.players] for k in range(self.players)]

    # --- decks, wheel and phase A ---------------------------------------------------------

    def lay_out_decks(self):
        """Each colour deck gets the 2 x P cards the deal chose for this epoch, face down."""
        for colour in range(len(COLOURS)):
            self.decks[colour] = [int(x) for x in self.deal.decks[0, self.epoch - 1, colour]]
            self.location[self.decks[colour]] = LOC_DECK
            self.piles[colour] = []

    def set_wheel(self):
        """The first player turns the wheel: which board position seat 0 faces in round 1."""
        self.rotation = -1
        self.rotation = self.ask("wheel", self.seats[self.first], np.ones(5, bool))
        self.tell(self.first, f"turns the wheel: seat 0 faces the {COLOURS[self.faced_colour(0)]} deck")
        self.record("wheel")

    def faced_colour(self, seat: int) -> int:
        """The deck colour a seat faces in the current draw round (the wheel turns each round)."""
        position = (self.rotation + seat + self.draw_round) % len(COLOURS)
        return int(self.deal.colour_order[0, position])

    def draw_round_of_phase_a(self):
        """All players draw 2 from the deck they face, discard 1 face up, buy or sell the other.

        Players decide at the same time: every decision sees the state before anyone resolves.
        """
        hands = {}
        for p in self.seats:
            colour = self.faced_colour(p.seat)
            hands[p.seat] = (self.decks[colour].pop(0), self.decks[colour].pop(0))
        choices = {}
        for p in self.seats:
            hand = hands[p.seat]
            legal = np.zeros(4, bool)
            for discard in (0, 1):
                legal[A.draw_option(discard, A.BUY)] = self.can_buy(p, hand[1 - discard])
                legal[A.draw_option(discard, A.SELL)] = True
            choices[p.seat] = self.ask("draw", p, legal, hand=hand)
        for p in self.seats:
            discard, action = divmod(choices[p.seat], 2)
            hand = hands[p.seat]
            self.discard(hand[discard])
            self.tell(p.seat, f"discards {self.c.cards[hand[discard]].describe()}")
            self.buy_or_sell(p, hand[1 - discard], action)

    def discard(self, card: int):
        """Put a card face up on top of its colour's discard pile."""
        self.piles[self.c.cards[card].colour].append(card)
        self.location[card] = LOC_PILE

    # --- buying, selling and losing cards -------------------------------------------------

    def effects_of(self, p: Player) -> set[str]:
        return {self.c.cards[x].effect for x in p.cards if self.c.cards[x].effect}

    def has(self, p: Player, effect: str) -> bool:
        return effect in self.effects_of(p)

    def colour_count(self, p: Player, colour: int) -> int:
        return sum(1 for x in p.cards if self.c.cards[x].colour == colour)

    def price(self, p: Player, card: int) -> int:
        """Printed cost less 1 per owned card of the same colour, never below 0."""
        c = self.c.cards[card]
        return max(0, c.cost - self.colour_count(p, c.colour))

    def can_buy(self, p: Player, card: int) -> bool:
        """A card can be bought with enough coins (and a free tile for the bonus-tile card)."""
        if self.c.cards[card].effect == "bonus_tile_card" and sum(p.tiles) == 0:
            return False
        return p.coins >= self.price(p, card)

    def buy_or_sell(self, p: Player, card: int, action: int):
        if action == A.BUY:
            self.buy_card(p, card)
        else:
            self.sell_card(p, card)

    def sell_card(self, p: Player, card: int):
        """Selling pays 2 / 3 / 4 coins by epoch (+1 with sell_bonus); the card leaves the game."""
        coins = self.c.sell[self.epoch - 1] + (SELL_BONUS if self.has(p, "sell_bonus") else 0)
        p.coins += coins
        self.location[card] = LOC_SOLD
        self.tell(p.seat, f"sells {self.c.card_ids[card]} for {coins}")

    def buy_card(self, p: Player, card: int):
        """Pay the price, then gain the card."""
        price = self.price(p, card)
        p.coins -= price
        self.tell(p.seat, f"buys {self.c.cards[card].describe()} for {price}")
        self.gain_card(p, card)

    def gain_card(self, p: Player, card: int):
        """The card's track values and effect apply at once."""
        c = self.c.cards[card]
        p.cards.append(card)
        self.location[card] = LOC_OWNED + p.seat
        for t in range(4):
            p.tracks[t] += c.values[t]
        self.apply_affinity_for(p, c.colour, +1)
        if c.effect in ("affinity_income", "affinity_military", "affinity_culture", "affinity_food"):
            t = AFFINITY_TRACK[EFFECT_INDEX[c.effect]]
            p.tracks[t] += self.colour_count(p, t)
        elif c.effect == "bonus_tile_card" and any(p.tiles):  # no unused tile (a granted card): none placed
            t = self.ask("tile", p, np.array(p.tiles) > 0, card=card)
            p.tiles[t] -= 1
            p.bonus_card_tile = t
            p.tracks[t] += BONUS_TILE_CARD_VALUE
        elif c.effect == "statue_patron":
            self.apply_patron(p, +1)

    def remove_card(self, p: Player, card: int):
        """A removed card takes its track values and effect with it; no coins."""
        c = self.c.cards[card]
        self.tell(p.seat, f"cannot feed and removes {c.describe()}")
        p.cards.remove(card)
        self.location[card] = LOC_REMOVED
        for t in range(4):
            p.tracks[t] -= c.values[t]
        self.apply_affinity_for(p, c.colour, -1)
        if c.effect in ("affinity_income", "affinity_military", "affinity_culture", "affinity_food"):
            t = AFFINITY_TRACK[EFFECT_INDEX[c.effect]]
            p.tracks[t] -= self.colour_count(p, t)
        elif c.effect == "bonus_tile_card" and p.bonus_card_tile >= 0:  # a tile lies on it
            p.tracks[p.bonus_card_tile] -= BONUS_TILE_CARD_VALUE
            p.tiles[p.bonus_card_tile] += 1
            p.bonus_card_tile = -1
        elif c.effect == "statue_patron":
            self.apply_patron(p, -1)

    def apply_affinity_for(self, p: Player, colour: int, sign: int):
        """affinity_<track>: a card of the matching colour gained (or lost) moves that track by 1."""
        if colour != PURPLE and self.has(p, f"affinity_{('income', 'military', 'culture', 'food')[colour]}"):
            p.tracks[colour] += sign

    def apply_patron(self, p: Player, sign: int):
        """statue_patron: +2 on the tile's track of every statue carved coloured side up."""
        for track, side in p.statues.values():
            if side == A.COLOURED:
                p.tracks[track] += sign * PATRON_BONUS

    # --- phase B --------------------------------------------------------------------------

    def pick_turn(self, p: Player):
        """Take the top card of any non-empty discard pile, then buy or sell it."""
        legal = np.zeros(10, bool)
        for colour, pile in enumerate(self.piles):
            if pile:
                legal[A.pick_option(colour, A.BUY)] = self.can_buy(p, pile[-1])
                legal[A.pick_option(colour, A.SELL)] = True
        colour, action = divmod(self.ask("pick", p, legal), 2)
        self.buy_or_sell(p, self.piles[colour].pop(), action)

    # --- income, colonies, statues --------------------------------------------------------

    def collect_income(self, p: Player):
        """Gain coins equal to income (income_diversity: +2 per other track above income, max 6)."""
        income = p.tracks[INCOME]
        if self.has(p, "income_diversity"):
            above = sum(1 for t in (MILITARY, CULTURE, FOOD) if p.tracks[t] > p.tracks[INCOME])
            income += min(DIVERSITY_MAX, DIVERSITY_COINS * above)
        p.coins += income
        self.tell(p.seat, f"collects {income} income, now {p.coins} coin{'s' * (p.coins != 1)}")

    def requirement_payment(self, p: Player, requirement: int, track: int, budget: int) -> int | None:
        """Coins needed to meet a requirement: 0 if met (4 lower with requirement_cut); with
        requirement_purchase 3 per missing point within the step's budget; None if out of reach."""
        if self.has(p, "requirement_cut"):
            requirement -= REQUIREMENT_CUT
        lacking = max(0, requirement - p.tracks[track])
        if lacking == 0:
            return 0
        cost = REQUIREMENT_PRICE * lacking
        if self.has(p, "requirement_purchase") and cost <= min(budget, p.coins):
            return cost
        return None

    def actions_per_step(self, p: Player) -> int:
        return 2 if self.has(p, "double_actions") else 1

    def colony_step(self, p: Player):
        """Take at most one colony (two with double_actions), at most one per level per game."""
        budget = REQUIREMENT_MAX_COINS
        for _ in range(self.actions_per_step(p)):
            choice = self.ask("colony", p, self.colony_options(p, budget))
            if choice == A.NONE:
                return
            budget -= self.take_colony(p, choice)

    def colony_options(self, p: Player, budget: int) -> np.ndarray:
        legal = np.zeros(11, bool)
        legal[A.NONE] = True
        bounty = COLONY_BOUNTY if self.has(p, "colony_bounty") else 0
        for level in range(COLONY_LEVELS):
            if level in p.colonies or not self.colony_stacks[level]:
                continue
            tile = self.colony_stacks[level][0]
            pay = self.requirement_payment(p, int(self.c.colony_requirement[tile]), MILITARY, budget)
            if pay is None:
                continue
            legal[A.colony_option(level, A.PLUNDER)] = True
            legal[A.colony_option(level, A.INTEGRATE)] = (
                p.coins - pay + bounty >= self.c.colony_integrate[tile])
        return legal

    def take_colony(self, p: Player, option: int) -> int:
        """Take the top tile of a level: plunder its coins, or pay to integrate it (gain the back).
        colony_bounty pays 4 coins on taking. Returns the coins paid for the requirement."""
        level, action = divmod(option - 1, 2)
        tile = self.colony_stacks[level].pop(0)
        pay = self.requirement_payment(p, int(self.c.colony_requirement[tile]), MILITARY, REQUIREMENT_MAX_COINS)
        p.coins -= pay
        if self.has(p, "colony_bounty"):
            p.coins += COLONY_BOUNTY
        if action == A.PLUNDER:
            p.coins += int(self.c.colony_plunder[tile])
        else:
            p.coins -= int(self.c.colony_integrate[tile])
            for t in range(4):
                p.tracks[t] += int(self.c.colony_back_values[tile, t])
        p.colonies[level] = (tile, action == A.INTEGRATE)
        self.tell(p.seat, f"{('plunders', 'integrates')[action]} colony {self.c.colonies[tile].id}"
                          + (f" (paid {pay} for the requirement)" if pay else ""))
        return pay

    def statue_step(self, p: Player):
        """Carve at most one statue (two with double_actions), each statue once per game."""
        budget = REQUIREMENT_MAX_COINS
        for _ in range(self.actions_per_step(p)):
            choice = self.ask("statue", p, self.statue_options(p, budget))
            if choice == A.NONE:
                return
            budget -= self.carve_statue(p, choice)

    def statue_options(self, p: Player, budget: int) -> np.ndarray:
        legal = np.zeros(33, bool)
        legal[A.NONE] = True
        for s in range(STATUES):
            if s in p.statues:
                continue
            if self.requirement_payment(p, int(self.c.statue_requirement[s]), CULTURE, budget) is None:
                continue
            for track in range(4):
                if p.tiles[track] > 0:
                    legal[A.statue_option(s, track, A.COLOURED)] = True
                    legal[A.statue_option(s, track, A.POINTS_SIDE)] = True
        return legal

    def carve_statue(self, p: Player, option: int) -> int:
        """Place an unused tile on the statue: coloured side raises its track by the statue's bonus
        (+2 with statue_patron), points side scores the bonus at the end. Returns coins paid."""
        s, track, side = A.decode_statue(option)
        pay = self.requirement_payment(p, int(self.c.statue_requirement[s]), CULTURE, REQUIREMENT_MAX_COINS)
        p.coins -= pay
        p.tiles[track] -= 1
        p.statues[s] = (track, side)
        if side == A.COLOURED:
            p.tracks[track] += int(self.c.statue_bonus[s])
            if self.has(p, "statue_patron"):
                p.tracks[track] += PATRON_BONUS
        self.tell(p.seat, f"carves statue {s + 1} with its {A.statue_face(option)}"
                          + (f" (paid {pay} for the requirement)" if pay else ""))
        return pay

    # --- feeding and medals (phase B only) ------------------------------------------------

    def feed_people(self, p: Player):
        """While cards exceed food, remove a card (or pay 2 coins per card with feed_with_coins,
        at most 6); with food_surplus, 3 coins per surplus food (at most 12)."""
        paid = 0
        while (need := len(p.cards) - p.tracks[FOOD] - paid) > 0:
            legal = np.zeros(self.c.n_cards + 1, bool)
            legal[p.cards] = True
            legal[-1] = (self.has(p, "feed_with_coins") and paid < FEED_COIN_MAX_CARDS
                         and p.coins >= FEED_COIN_PRICE)
            choice = self.ask("feed", p, legal, feed_need=need)
            if choice == self.c.n_cards:
                p.coins -= FEED_COIN_PRICE
                paid += 1
                self.tell(p.seat, f"pays {FEED_COIN_PRICE} coins to feed a card")
            else:
                self.remove_card(p, choice)
        surplus = p.tracks[FOOD] - len(p.cards)
        if surplus > 0 and self.has(p, "food_surplus"):
            p.coins += min(SURPLUS_MAX, SURPLUS_COINS_PER_FOOD * surplus)

    def medal_prices(self, p: Player) -> tuple[int, int]:
        """Silver and gold prices this epoch (medal_discount lowers them in epochs II and III)."""
        if self.has(p, "medal_discount") and self.epoch in MEDAL_DISCOUNT_SILVER:
            return MEDAL_DISCOUNT_SILVER[self.epoch], MEDAL_DISCOUNT_GOLD[self.epoch]
        return self.c.silver_price[self.epoch - 1], self.c.gold_price[self.epoch - 1]

    def medal_step(self, p: Player):
        """Buy any number of medals, at most 2 silver and 2 gold per game."""
        while True:
            silver, gold = self.medal_prices(p)
            legal = np.zeros(6, bool)
            legal[A.MEDAL_STOP] = True
            if len(p.silver) < SILVER_MAX and p.coins >= silver:
                legal[1:5] = np.array(p.tiles) > 0
            legal[A.MEDAL_GOLD] = p.gold < GOLD_MAX and p.coins >= gold
            choice = self.ask("medal", p, legal)
            if choice == A.MEDAL_STOP:
                return
            if choice == A.MEDAL_GOLD:
                p.coins -= gold
                p.gold += 1
            else:
                p.coins -= silver
                p.tiles[choice - 1] -= 1
                p.silver.append(choice - 1)
            self.tell(p.seat, f"buys a gold medal for {gold}" if choice == A.MEDAL_GOLD
                      else f"buys a silver medal with {'an' if TRACKS[choice - 1][0] in 'aeiou' else 'a'} "
                           f"{TRACKS[choice - 1]} tile for {silver}")

    # --- scoring --------------------------------------------------------------------------

    def sets(self, p: Player, wildcard: bool = False) -> int:
        """Complete sets of 5 differently coloured cards; the wildcard fills one gap in one set."""
        counts = [self.colour_count(p, colour) for colour in range(len(COLOURS))]
        k = min(counts)
        if wildcard and sum(max(0, k + 1 - n) for n in counts) <= 1:
            k += 1
        return k

    def score(self, p: Player) -> dict:
        """The score pad for one player, as if the game ended now."""
        effects = self.effects_of(p)
        colonies = sum(int(self.c.colony_back_points[t] if integrated else self.c.colony_front_points[t])
                       for t, integrated in p.colonies.values())
        patron = "statue_patron" in effects
        statues = patron_points = 0
        for s, (track, side) in p.statues.items():
            statues += int(self.c.statue_points[s])
            if side == A.POINTS_SIDE:
                statues += int(self.c.statue_bonus[s])
                patron_points += PATRON_BONUS if patron else 0
        statues += patron_points
        halves = [(p.tracks[t] + 1) // 2 for t in p.silver]
        silver_full = max((p.tracks[t] - h for t, h in zip(p.silver, halves)), default=0) \
            if "silver_full" in effects else 0
        silver = sum(halves) + silver_full
        plain_sets = self.sets(p)
        gold_sets = self.sets(p, wildcard="gold_wildcard" in effects)
        set_collector = SET_COLLECTOR_POINTS * plain_sets if "set_collector" in effects else 0
        wildcard = GOLD_POINTS_PER_SET * p.gold * (gold_sets - plain_sets)
        gold = GOLD_POINTS_PER_SET * p.gold * gold_sets + set_collector
        cards = sum(self.c.cards[x].points for x in p.cards)
        coins = p.coins // COINS_PER_POINT
        lines = dict(colonies=colonies, statues=statues, silver=silver, gold=gold, cards=cards, coins=coins)
        return dict(seat=p.seat, **lines, total=sum(lines.values()), leftover_coins=p.coins % COINS_PER_POINT,
                    patron_points=patron_points, silver_full_points=silver_full,
                    set_collector_points=set_collector, wildcard_points=wildcard)

    def score_sheet(self) -> list[dict]:
        """Every player's score, rank and win share: most points wins, then most leftover coins;
        a remaining tie is shared."""
        sheet = [self.score(p) for p in self.seats]
        keys = [(row["total"], row["leftover_coins"]) for row in sheet]
        best = max(keys)
        winners = [i for i, k in enumerate(keys) if k == best]
        for i, row in enumerate(sheet):
            row["rank"] = 1 + sum(1 for k in keys if k > keys[i])
            row["win_share"] = 1.0 / len(winners) if i in winners else 0.0
        return sheet

    # --- decisions, observation and records -----------------------------------------------

    def ask(self, kind: str, p: Player, legal: np.ndarray, **private) -> int:
        """The policy of seat p picks one legal option; a single legal option is taken unasked."""
        options = np.flatnonzero(legal)
        if len(options) == 1:
            return int(options[0])
        policy = self.policies[p.seat]
        extra = {k: np.array([v]) for k, v in private.items()}
        view = View(_Observation(self), [0], self.players, self.c, player=np.array([p.seat]), **extra)
        forward = self.forward and self.forward(self.c, kind, np.array([p.seat]), self.past)
        decision = Decision(kind, legal[None, :], view, self.deal.game_id, np.array([self.serial]), forward)
        choice = int(choose(policy, decision)[0])
        self.history.append(choice)
        self.serial += 1
        if self.recorder:
            self.recorder.decision(kind, p.seat, options.tolist(), choice)
        return choice

    def past(self) -> dict:
        """The deal and the choices so far, for the forward model."""
        return {"deals": self.deal, "lengths": np.array([self.serial]), "sides": None, "grants": [],
                "history": np.array([self.history], np.int16).reshape(1, -1)}

    def tell(self, seat: int | None, text: str):
        if self.narrator:
            self.narrator(seat, text)

    def record(self, step: str):
        if self.recorder:
            label = f"{EPOCH_NAMES[self.epoch]}.{'AB'[self.phase]}.{step}" if step != "setup" else step
            self.recorder.state(label, self.snapshot())

    def snapshot(self) -> dict:
        """The full state as plain lists (the trace format; the batch engine exports the same)."""
        P = self.players
        colonies = [[0] * COLONY_LEVELS for _ in range(P)]
        colony_tile = [[-1] * COLONY_LEVELS for _ in range(P)]
        statues = [[-1] * STATUES for _ in range(P)]
        silver = [[-1, -1] for _ in range(P)]
        for p in self.seats:
            for level, (tile, integrated) in p.colonies.items():
                colonies[p.seat][level] = 2 if integrated else 1
                colony_tile[p.seat][level] = int(tile)
            for s, (track, side) in p.statues.items():
                statues[p.seat][s] = 2 * track + side
            for i, t in enumerate(p.silver):
                silver[p.seat][i] = t
        piles = [[int(x) for x in pile] + [-1] * (P - len(pile)) for pile in self.piles]
        return dict(
            coins=[p.coins for p in self.seats], tracks=[list(p.tracks) for p in self.seats],
            tiles=[list(p.tiles) for p in self.seats], side=[p.side for p in self.seats],
            colonies=colonies, colony_tile=colony_tile, statues=statues, silver=silver,
            gold=[p.gold for p in self.seats], bonus_card_tile=[p.bonus_card_tile for p in self.seats],
            piles=piles, rotation=self.rotation, location=self.location.tolist())


class _Observation:
    """The game's visible state as (1, ...) arrays named like `policy.VIEW_FIELDS`."""

    def __init__(self, game: Game):
        self.g = game

    def __getattr__(self, name):
        g, P = self.g, self.g.players
        seats = g.seats
        if name == "epoch":
            v = g.epoch
        elif name == "phase":
            v = g.phase
        elif name == "first_player":
            v = g.first
        elif name == "initiative":
            v = [p.initiative for p in seats]
        elif name == "side":
            v = [p.side for p in seats]
        elif name == "coins":
            v = [p.coins for p in seats]
        elif name == "tracks":
            v = [p.tracks for p in seats]
        elif name == "owned":
            v = np.zeros((P, g.c.n_cards), bool)
            for p in seats:
                v[p.seat, p.cards] = True
        elif name == "colour_count":
            v = [[g.colour_count(p, colour) for colour in range(len(COLOURS))] for p in seats]
        elif name == "effects":
            v = [[e in g.effects_of(p) for e in EFFECT_IDS] for p in seats]
        elif name == "tiles":
            v = [p.tiles for p in seats]
        elif name in ("colonies", "statues", "silver", "gold"):
            v = g.snapshot()[name]
        elif name == "colony_points":
            v = [g.score(p)["colonies"] for p in seats]
        elif name == "piles":
            v = g.snapshot()["piles"]
        elif name == "pile_size":
            v = [len(pile) for pile in g.piles]
        elif name == "colony_left":
            v = [len(stack) for stack in g.colony_stacks]
        elif name == "colony_front":
            c = g.c
            v = [[int(c.colony_requirement[s[0]]), int(c.colony_plunder[s[0]]), int(c.colony_integrate[s[0]]),
                  int(c.colony_front_points[s[0]])] if s else [0, 0, 0, 0] for s in g.colony_stacks]
        elif name == "colour_order":
            v = g.deal.colour_order[0]
        elif name == "rotation":
            v = g.rotation
        elif name == "draw_round":
            v = g.draw_round
        else:
            raise AttributeError(name)
        value = np.asarray(v)[None]
        setattr(self, name, value)
        return value


def play_game(deal: Deals, components: ComponentSet, policies, recorder=None, narrator=None,
              forward=None) -> list[dict]:
    """Play the single game of `deal` (a batch of one) and return its score sheet."""
    return Game(deal, components, policies, recorder, narrator, forward).play()

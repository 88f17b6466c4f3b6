"""The human seat shows what a player at the table sees: every option that moves the person's coins
names the price, and the coins it leaves, that the engine then charges or pays; the board on `b`."""

import re

import numpy as np
import pytest

from hadara_sim.cli.human import Human, wrapped
from hadara_sim.constants import first_player_seats
from hadara_sim.deal import make_deals
from hadara_sim.reference import LOC_OWNED, Game
from hadara_sim.registry import make_policy

# The engine's account of the person's own actions that move coins (RULINGS 3-4), as it tells them.
ACTION = re.compile(r"^(buys|sells|plunders|integrates|carves|pays) ")
EFFECTS = ("sell_bonus", "colony_bounty", "medal_discount", "feed_with_coins", "requirement_purchase")


class Table:
    """One game with a person in seat 0 answering at random (a seeded generator) through the
    human seat's own prompt, and every option's promise checked against the engine's coins."""

    def __init__(self, components, seed: int, effects=()):
        self.rng = np.random.default_rng(seed)
        self.lines: list[str] = []
        self.promise = None     # (option text, coins at the decision) of the person's last answer
        self.checked: list[str] = []  # option texts whose promise the engine kept
        exclude = [components.effect_card[e] for e in effects]
        deal = make_deals(components, 2, 1, seed=seed, advanced=True, exclude=exclude)[0]
        self.human = Human(read=self.answer, write=self.lines.append)
        self.game = Game(deal, components, [self.human, make_policy("greedy", seed=1)], narrator=self.told)
        for card in exclude:  # the person holds these effects from the start
            self.game.seats[0].cards.append(card)
            self.game.location[card] = LOC_OWNED

    def answer(self) -> str:
        """A random option number; the option's text and the coins now become the promise."""
        shown = "\n".join(self.lines[-60:])
        count = int(re.findall(r"your choice \(1-(\d+)", shown)[-1])
        number = int(self.rng.integers(1, count + 1))
        text = [line for line in self.lines if re.match(rf" *{number}\. ", line)][-1]
        self.promise = (text, self.game.seats[0].coins)
        return f"{number}\n"

    def told(self, seat, text):
        if seat != 0 or not ACTION.match(text) or self.promise is None:
            return  # (no promise: a decision with one legal option, which the engine takes unasked)
        (option, before), self.promise = self.promise, None
        then = re.search(r"\(then (\d+) coins?\)$", option)
        assert self.game.seats[0].coins == (int(then.group(1)) if then else before), (option, text)
        price = re.search(r" for (\d+)\b", option)
        if price and text.startswith(("buys", "sells")):  # the same price in the engine's words
            assert text.endswith(f" for {price.group(1)}"), (option, text)
        self.checked.append(option)

    def play(self):
        self.game.play()
        return self


@pytest.fixture(scope="module")
def tables(components):
    """Games without purple effects, and games where the person holds those that change a price."""
    return [Table(components, seed).play() for seed in range(6)] + \
           [Table(components, seed, EFFECTS).play() for seed in range(6, 12)]


def test_every_kind_of_price_shown_is_the_price_charged(tables):
    """Buying (with the colour discount), selling (with sell_bonus), plundering and integrating (with
    colony_bounty and a bought requirement), carving, feeding with coins and both medals (with
    medal_discount): the coins each option said it leaves are the coins the engine left."""
    checked = [option for table in tables for option in table.checked]
    wanted = {"buy with the colour discount": r"^ *\d+\. buy .* off for your",
              "sell from a draw": r"^ *\d+\. sell .*; discard", "sell from a pile": r"^ *\d+\. sell .* pile for",
              "buy from a pile": r"^ *\d+\. buy .* pile for", "plunder": r"plunder the level",
              "integrate": r"integrate the level", "colony bounty": r"bounty",
              "a requirement bought": r"you pay \d+ coins? for what you lack", "carve": r"carve statue",
              "feed with coins": r"pay 2 coins instead", "silver": r"silver medal for", "gold": r"gold medal for"}
    missing = [name for name, pattern in wanted.items() if not any(re.search(pattern, o) for o in checked)]
    assert not missing, missing


def test_sale_prices_follow_sell_bonus(tables):
    """Without effects a sale offers 2 / 3 / 4 by epoch; with sell_bonus held, one more (5 in epoch III)."""
    sales = lambda ts: {int(m) for t in ts for o in t.checked for m in re.findall(r"sell .* for (\d+)", o)}
    assert sales(tables[:6]) == {2, 3, 4} and 5 in sales(tables[6:])


def test_the_board_and_the_setup_sides_as_a_person_sees_them(components):
    """`b` shows the piles, colonies, statues, medal prices and the next deck; the side choice names
    the card and both sides' coins and tracks; long lines wrap at word boundaries."""
    answers = iter(["b\n", "1\n", "1\n", "b\n"] + ["1\n"] * 400)
    lines: list[str] = []
    deal = make_deals(components, 2, 1, seed=3, advanced=True)[0]
    human = Human(read=lambda: next(answers), write=lines.append)
    Game(deal, components, [human, make_policy("greedy", seed=1)]).play()
    text = "\n".join(lines)
    assert re.search(r"1\. side A of setup card \d: \d+ coins.*, income \d+, military \d+, culture \d+, food \d+", text)
    assert "2. side B of setup card" in text
    for part in ("discard piles (top card first):", "colonies (the top tile", "statue 1: culture",
                 "medals this epoch for you: silver 4, gold 6", "a card sells for 2 this epoch", "next deck:"):
        assert part in text, part
    # While the sides are chosen no epoch has begun: the board names epoch I's first player to come.
    first = first_player_seats([int(x) for x in np.ravel(deal.initiative)])[0]
    assert f"Board before epoch I (setup; seat {first}, the lowest initiative, will be its first player):" in text
    assert "medals in epoch I for you: silver 4, gold 6" in text and "a card sells for 2 in epoch I" in text
    assert re.search(rf"Board, epoch I phase A, first player seat {first}:", text)
    long = "   3. buy I-R-06 (red, +2 military +1 culture, cost 4, 3 pts) for 4; discard I-R-05 (then 5 coins)"
    assert wrapped(long, 64).split("\n") == ["   3. buy I-R-06 (red, +2 military +1 culture, cost 4, 3 pts)",
                                             "      for 4; discard I-R-05 (then 5 coins)"]


def test_play_names_the_seats_as_given_and_the_winner_with_their_policy():
    """Two policies for three seats are named as typed (not with the human seat's stand-in), and the
    winner line names the winning seat's policy."""
    from typer.testing import CliRunner

    from hadara_sim.cli import app

    runner = CliRunner()
    short = runner.invoke(app, ["play", "-p", "3", "--policy", "human,military"], env={"COLUMNS": "200"})
    assert short.exit_code == 2 and "got 2 for 3 players (human, military); give 3, or set the player count with --players 2" \
        in short.output
    six = runner.invoke(app, ["play", "-p", "2", "--policy", ",".join(["greedy"] * 6)], env={"COLUMNS": "200"})
    assert six.exit_code == 2 and "give 2 (a game seats 2 to 5 players)" in six.output and "--players 6" not in six.output
    typo = runner.invoke(app, ["play", "-p", "2", "--policy", "humn,military"], env={"COLUMNS": "200"})
    assert typo.exit_code == 2 and "unknown policy 'humn' (did you mean human?" in typo.output
    played = runner.invoke(app, ["play", "-p", "2", "--policy", "human,greedy"], input="1\n" * 300,
                           env={"COLUMNS": "200"})
    assert re.search(r"Winner: seat \d \((human|greedy)\)", played.output), played.output[-500:]


def test_the_human_seat_example_in_plays_help_runs_as_written():
    """The --policy help's example was `--policy human,greedy,greedy`: three policies for play's default
    of 4 players, refused."""
    import typer.main
    from typer.testing import CliRunner

    from hadara_sim.cli import app

    option = next(p for p in typer.main.get_command(app).commands["play"].params if p.name == "policy")
    example = re.search(r"\((-p \d --policy human[^:]*):", option.help).group(1).split()
    played = CliRunner().invoke(app, ["play", *example, "-q"], input="1\n" * 400, env={"COLUMNS": "200"})
    assert played.exit_code == 0 and "Winner: seat" in played.output, played.output[-500:]


def test_the_bonus_tile_and_feeding_decisions_as_a_person_sees_them(components):
    """Buying the bonus-tile card asks which tile, naming the card and the +2; feeding names how many
    cards are beyond the food track."""
    from helpers import gain, new_game, set_tracks

    lines: list[str] = []
    game = new_game(components, players=2)
    game.policies[0] = Human(read=lambda: "2\n", write=lines.append)
    gain(game, 0, "bonus_tile_card")
    text = "\n".join(lines)
    card = components.card_ids[components.effect_card["bonus_tile_card"]]
    assert f"1. an income tile on {card}: +2 income (2 such tiles unused)" in text
    assert f"2. a military tile on {card}: +2 military" in text
    assert game.seats[0].tracks[1] >= 2 and game.seats[0].bonus_card_tile == 1
    lines.clear()
    gain(game, 0, "I-Y-01", "I-R-01")
    set_tracks(game.seats[0], food=1)
    game.phase = 1
    game.feed_people(game.seats[0])
    assert "choose how to feed your people (2 cards more than your food track)" in " ".join(lines)


def test_the_told_game_says_an_income_tile_never_a_income_tile(components):
    """The account of a game (`play`'s lines, the reference engine's narration) uses the article and
    the number a person would: 'with an income tile', 'now 1 coin', never 'a income' or '1 coins'."""
    from hadara_sim.deal import make_deals
    from hadara_sim.reference import Game

    told: list[str] = []
    for seed in range(4):
        deal = make_deals(components, 2, 1, seed=seed, advanced=True)
        Game(deal, components, [make_policy("random", seed=seed), make_policy("random", seed=seed + 1)],
             narrator=lambda seat, text: told.append(text)).play()
    text = "\n".join(told)
    assert re.search(r"with an income tile", text)
    assert not re.search(r"\ba [aeiou]", text) and not re.search(r"\b1 coins\b", text)


def test_a_human_seat_with_a_machine_format_keeps_standard_output_for_the_score_pad():
    """`play --policy human,balanced --format json` put the prompts on standard output, before the JSON."""
    import json
    import subprocess
    import sys

    command = [sys.executable, "-c", "from hadara_sim.cli import main; main()", "play", "-p", "2", "--policy",
               "human,balanced", "--format", "json"]
    done = subprocess.run(command, input="1\n" * 300, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "score" in json.dumps(json.loads(done.stdout)) and "your choice" in done.stderr

"""Fixed vocabulary of the game: colours, tracks, purple effects and their rule constants.

Component values (card costs, colony tiles, ...) live in data files; what is here is fixed by the
rules (RULINGS sections 1-6) and is the same for every component set.
"""

COLOURS = ("yellow", "red", "blue", "green", "purple")
YELLOW, RED, BLUE, GREEN, PURPLE = range(5)
# Track t is raised mostly by cards of colour t (yellow income, red military, ...).
TRACKS = ("income", "military", "culture", "food")
INCOME, MILITARY, CULTURE, FOOD = range(4)
EPOCHS = (1, 2, 3)
EPOCH_NAMES = {1: "I", 2: "II", 3: "III"}
MIN_PLAYERS, MAX_PLAYERS = 2, 5
MAX_GAMES = 10**12  # games of a run or an option: game numbers and chunk counts stay within 64-bit integers
# A run's combinations (swept values x setup grid x seat permutations): each is read and checked on
# its own (about 1 ms), planned in chunks of its own and reported as a row; a sweep of eight keys of
# ten values each (10**8) would have been read for days before anything said so.
MAX_COMBINATIONS = 10_000
MAX_SEED = 2**63 - 1  # a command's --seed: it and the next (a second policy's) stay within 64-bit integers
CARDS_PER_COLOUR = 10          # yellow, red, blue, green per epoch
PURPLE_PER_EPOCH = 14          # 6 effect cards (4 starred) + 8 value cards
COLONY_LEVELS = 5
STATUES = 4
SILVER_MAX = 2
GOLD_MAX = 2
PICKS_PER_PHASE_B = 5          # each player takes exactly 5 cards in phase B

# Purple effects: id -> (epoch, starred). Starred effects exist only in the advanced game.
EFFECTS = {
    "sell_bonus": (1, False),
    "bonus_tile_card": (1, False),
    "affinity_income": (1, True),
    "affinity_military": (1, True),
    "affinity_culture": (1, True),
    "affinity_food": (1, True),
    "colony_bounty": (2, False),
    "medal_discount": (2, False),
    "feed_with_coins": (2, True),
    "food_surplus": (2, True),
    "income_diversity": (2, True),
    "statue_patron": (2, True),
    "silver_full": (3, False),
    "set_collector": (3, False),
    "gold_wildcard": (3, True),
    "double_actions": (3, True),
    "requirement_cut": (3, True),
    "requirement_purchase": (3, True),
}
EFFECT_IDS = tuple(EFFECTS)
EFFECT_INDEX = {name: i for i, name in enumerate(EFFECT_IDS)}
# affinity_<track> raises track t by one per owned card of colour t.
AFFINITY_TRACK = {EFFECT_INDEX[f"affinity_{track}"]: t for t, track in enumerate(TRACKS)}

# Effect constants, exactly as ruled in RULINGS section 6.
SELL_BONUS = 1
BONUS_TILE_CARD_VALUE = 2
COLONY_BOUNTY = 4
MEDAL_DISCOUNT_SILVER = {2: 4, 3: 15}
MEDAL_DISCOUNT_GOLD = {2: 6, 3: 22}
FEED_COIN_PRICE = 2
FEED_COIN_MAX_CARDS = 6
SURPLUS_COINS_PER_FOOD = 3
SURPLUS_MAX = 12
DIVERSITY_COINS = 2
DIVERSITY_MAX = 6
PATRON_BONUS = 2
SET_COLLECTOR_POINTS = 4
GOLD_POINTS_PER_SET = 7
REQUIREMENT_CUT = 4
REQUIREMENT_PRICE = 3
REQUIREMENT_MAX_COINS = 30
COINS_PER_POINT = 5


def first_player_seats(initiatives):
    """Seat of the first player in epochs I, II, III (RULINGS 1), from each seat's initiative."""
    order = sorted(range(len(initiatives)), key=lambda s: initiatives[s])
    if len(order) == 2:
        return (order[0], order[1], order[0])
    return (order[0], order[1], order[2])


def extra_coin_seats(initiatives):
    """Seats that get 1 extra coin at the start of epoch I (RULINGS 1)."""
    players = len(initiatives)
    if players == 3:
        return ()
    if players == 2:
        return (max(range(2), key=lambda s: initiatives[s]),)
    firsts = set(first_player_seats(initiatives))
    return tuple(s for s in range(players) if s not in firsts)

# Where a card is (the `location` array of a game, one entry per card of the component set).
LOC_BOX = 0        # not dealt this game, or its epoch has not come yet
LOC_DECK = 1       # face down in a deck on the board
LOC_PILE = 2       # face up in a discard pile
LOC_SOLD = 3       # sold: out of the game
LOC_REMOVED = 4    # removed when feeding: out of the game
LOC_OWNED = 8      # LOC_OWNED + seat: owned by that seat

TRACE_VERSION = 1  # the format of a game trace (hadara_sim/trace.py), written in its header

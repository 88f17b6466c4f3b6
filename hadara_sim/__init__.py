"""hadara-sim: Monte Carlo strategy analysis for the board game Hadara."""

from .components import ComponentError, load_components
from .deal import Deals, make_deals
from .reference import Game, play_game

__version__ = "0.1.0"
__all__ = ["ComponentError", "Deals", "Game", "load_components", "make_deals", "play_game"]

"""hadara-sim: Monte Carlo strategy analysis for the board game Hadara."""

from .components import ComponentError, load_components
from .deal import Deals, make_deals
from .reference import Game, play_game
from .results import load_results, scan_results
from .runner import simulate
from .scenario import Scenario, ScenarioError, load_scenario

__version__ = "0.1.0"
__all__ = ["ComponentError", "Deals", "Game", "load_components", "make_deals", "play_game",
           "load_results", "scan_results", "simulate", "Scenario", "ScenarioError", "load_scenario"]

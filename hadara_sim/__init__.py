"""hadara-sim: Monte Carlo strategy analysis for the board game Hadara."""

from importlib import import_module as _import_module

__version__ = "0.1.0"
# Public names and the module each comes from, imported on first use: `import hadara_sim` stays
# quick, so the command line starts (and a Ctrl-C while it starts stops it) without a traceback.
_EXPORTS = {
    "ComponentError": "components", "load_components": "component_files", "Deals": "deal",
    "make_deals": "deal", "Game": "reference", "play_game": "reference", "load_results": "results",
    "scan_results": "results", "card_events": "results", "simulate": "api", "Scenario": "scenario",
    "ScenarioError": "scenario", "load_scenario": "scenario",
}
__all__ = list(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        value = getattr(_import_module(f".{_EXPORTS[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'hadara_sim' has no attribute '{name}'")


def __dir__() -> list[str]:
    """The public names too, before their first use: what a notebook's tab completion offers."""
    return sorted({*globals(), *_EXPORTS})

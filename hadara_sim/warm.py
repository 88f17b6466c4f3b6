"""The engine's first compile on two cores.

numba compiles one function at a time, so the engine's first compile is cut into parts that share
nothing compiled, and two processes take them as they free, the longest first (`PARTS`): each bot's
kernel, the expert's training kernel (`option_table`: training and the tests call it from Python),
and the engine's steps, compiled by a game of `random` players. The steps call the bots' `decide`
through its address (hadara_sim/kernels/address.py), so they compile without the kernels; then a
game of built-in bots here compiles `decide` (linking the kernels, loaded from numba's cache) and
loads the rest.

    python -m hadara_sim.warm            # what `make` runs after an install: the whole engine
    python -m hadara_sim.warm --no-training   # the engine without the expert's training kernel
    python -m hadara_sim.warm expert     # one part (engine, planner, expert, greedy or training)
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

from . import jit_cache

KERNELS = ("planner", "greedy", "expert")
# The parts of a first compile, the longest first (CPU seconds of each on a cold cache, quiet 2-core
# machine, `scripts/compile_profile.py`): the engine's steps about 100, the training kernel 73, the
# planner's kernel 67, the expert's 47, greedy's 2; then `decide`, which joins the kernels, 3. On two
# cores the install's compile takes 145 s, without the training kernel 143 s (the planner's and the
# expert's kernels after each other, beside the steps).
PARTS = ("engine", "training", "planner", "expert", "greedy")


def kernel(name: str):
    """A bot's compiled kernel (`kernels.decide.decide` calls each with the same arguments)."""
    from .kernels import expert, greedy, planner

    return {"planner": planner._planner, "greedy": greedy._greedy, "expert": expert._expert}[name]


def kernel_signature() -> tuple:
    """The kernels' argument types as the built-ins' `decide` passes them on (see `decide` in
    hadara_sim/kernels/decide.py): `decide`'s own (`engine.decide.decide_types`) without the policy
    code, the card and the feeding need."""
    from .component_files import load_components
    from .deal import make_deals
    from .engine.decide import decide_types
    from .engine.game import BatchGame
    from .registry import make_policy

    components = load_components()
    game = BatchGame(make_deals(components, 2, 1), components, [make_policy("random"), make_policy("random")])
    types = decide_types(game.k)
    return (*types[1:10], *types[12:])


def option_table_signature(kernels: tuple) -> tuple:
    """The argument types of the expert's `option_table` as training passes them (`learned_options`):
    the kernels' own (`kernels`, from `kernel_signature`), without colony fronts, and the values and
    features it fills in."""
    typeof = kernel("planner").typeof_pyval
    signature = list(kernels)
    del signature[9]  # colony fronts
    return (*signature[:-1], typeof(np.zeros((1, 1))), typeof(np.zeros((1, 1, 1))))


def compile_kernels(names) -> None:
    """Compile the named kernels into numba's cache (loaded from it when already there)."""
    signature = kernel_signature()
    for name in names:
        if name == "training":
            from .kernels import expert

            expert.option_table.compile(option_table_signature(signature))
        else:
            kernel(name).compile(signature)


def compile_engine(play_one_game, training: bool = False) -> bool:
    """Fill numba's cache with the whole engine: its parts (`PARTS`, with or without `training`) on
    two cores when there are two, then `play_one_game()` here, which compiles what joins them.
    Returns whether there was anything to compile. A part that fails costs only time: what is
    missing compiles when first used, and fails there with its own message."""
    from .process import local_parallel

    if jit_cache.is_warm():
        return False
    parts = [(name,) for name in PARTS if training or name != "training"]
    for _ in local_parallel(_try_part, parts, jobs=min(2, os.cpu_count() or 1)):
        pass
    play_one_game()
    return True


def compile_part(name: str) -> None:
    """Compile one part of the engine into numba's cache (`PARTS`)."""
    if name == "engine":
        _play_one_game("random")
    else:
        compile_kernels([name])


def _try_part(name: str) -> bool:
    """`compile_part` in a worker of `compile_engine`; whether it compiled (what failed compiles
    again where it is used, and fails there with its own message)."""
    try:
        compile_part(name)
    except Exception:  # noqa: BLE001
        return False
    return True


def _play_one_game(policy: str = "greedy") -> None:
    """One game of `policy` as `simulate` plays it (a chunk of a scenario): the engine's compiled code
    is typed by its arguments, and a batch made otherwise (`play_batch` without a seat table passes a
    read-only one) would compile a variant that runs never use."""
    from .chunks import Chunk, play_chunk
    from .scenario.read import scenario_from_dict

    scenario = scenario_from_dict({"name": "warm", "players": 2, "policies": [policy], "games": 1, "chunk": 1})
    combo = scenario.combinations[0]
    play_chunk(combo.config.components, combo, scenario.seed, Chunk(combo.index, 0, 0, 1, combo.players, combo.advanced))


def main(argv: list[str]) -> int:
    training = "--no-training" not in argv
    argv = [arg for arg in argv if arg != "--no-training"]
    if argv:
        unknown = [name for name in argv if name not in PARTS]
        if unknown:
            print(f"unknown part {', '.join(unknown)}: the parts are {', '.join(PARTS)}", file=sys.stderr)
            return 2
        for name in argv:
            compile_part(name)
        return 0
    start = time.perf_counter()
    if compile_engine(_play_one_game, training=training):
        print(f"compiled the engine in {time.perf_counter() - start:.0f} s", flush=True)
    else:
        print("the engine is already compiled", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

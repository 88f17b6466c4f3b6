"""The engine's first compile on two cores.

numba compiles one function at a time, and two of the bots' kernels take most of the engine's first
compile: measured on a cold cache (file times of numba's cache, a loaded 2-core machine), the
planner's kernel 275 s and the expert's 341 s of 970 s, everything else (the rules, `ask`, the
epoch's steps) the rest. The two kernels do not call each other, so `compile_engine` compiles the
expert's in a second process while this one compiles the planner's and greedy's, each into numba's
cache, then plays one game here: the engine's compile loads the three kernels from the cache.

    python -m hadara_sim.warm            # what `make` runs after an install: the whole engine
    python -m hadara_sim.warm expert     # one kernel (the second process's part)
"""

from __future__ import annotations

import subprocess
import sys
import time

import numpy as np

from . import jit_cache

KERNELS = ("planner", "greedy", "expert")


def kernel(name: str):
    """A bot's compiled kernel (`kernels.decide.decide` calls each with the same arguments)."""
    from .kernels import expert, greedy, planner

    return {"planner": planner._planner, "greedy": greedy._greedy, "expert": expert._expert}[name]


def kernel_signature() -> tuple:
    """The kernels' argument types as the engine's `decide` passes them on (see `decide` in
    hadara_sim/kernels/decide.py): kind, the seen state, rows, games, seats, epoch, phase, legal
    options, hand, colony fronts, the components' arrays, parameters, value table, out. The arrays
    are a one-game batch's own (`engine.decide.Deciders`), so their types are the engine's. (Typed
    through a kernel: a file that imports numba counts as compiled code, `jit_cache`, and any edit
    of it would drop the compiled engine.)"""
    from .component_files import load_components
    from .deal import make_deals
    from .engine.game import BatchGame
    from .registry import make_policy

    components = load_components()
    game = BatchGame(make_deals(components, 2, 1), components, [make_policy("greedy"), make_policy("greedy")])
    k, typeof = game.k, kernel("planner").typeof_pyval
    vector, integer = typeof(np.zeros(1, np.int64)), typeof(np.int64(0))
    return (integer, typeof(k.seen), vector, vector, vector, integer, integer,
            typeof(np.zeros((1, 1), np.bool_)), typeof(np.zeros((1, 2), np.int64)), typeof(k.colony_front),
            typeof(k.policy_tables), typeof(k.params[0]), typeof(k.tables[0]), vector)


def compile_kernels(names) -> None:
    """Compile the named kernels into numba's cache (loaded from it when already there)."""
    signature = kernel_signature()
    for name in names:
        kernel(name).compile(signature)


def compile_engine(play_one_game) -> bool:
    """Fill numba's cache with the whole engine, on two cores when there are two: the expert's kernel
    in a second process, the planner's and greedy's here, then `play_one_game()` here compiles the
    rest. Returns whether there was anything to compile. A second process that fails costs only
    time: the game compiles whatever is missing."""
    import os

    if jit_cache.is_warm():
        return False
    helper = None
    if (os.cpu_count() or 1) > 1:
        helper = subprocess.Popen([sys.executable, "-m", "hadara_sim.warm", "expert"], stdin=subprocess.DEVNULL)
    try:
        compile_kernels([name for name in KERNELS if helper is None or name != "expert"])
        if helper is not None:
            helper.wait()
        play_one_game()
    finally:
        if helper is not None and helper.poll() is None:  # interrupted: the helper goes too
            helper.kill()
            helper.wait()
    return True


def _play_one_game() -> None:
    """One game as `simulate` plays it (a chunk of a scenario): the engine's compiled code is typed by
    its arguments, and a batch made otherwise (`play_batch` without a seat table passes a read-only
    one) would compile a variant that runs never use."""
    from .chunks import Chunk, play_chunk
    from .scenario.read import scenario_from_dict

    scenario = scenario_from_dict({"name": "warm", "players": 2, "policies": ["greedy"], "games": 1, "chunk": 1})
    combo = scenario.combinations[0]
    play_chunk(combo.config.components, combo, scenario.seed, Chunk(combo.index, 0, 0, 1, combo.players, combo.advanced))


def main(argv: list[str]) -> int:
    if argv:
        from .process import die_with_parent

        die_with_parent()
        unknown = [name for name in argv if name not in KERNELS]
        if unknown:
            print(f"unknown kernel {', '.join(unknown)}: the kernels are {', '.join(KERNELS)}", file=sys.stderr)
            return 2
        compile_kernels(argv)
        return 0
    start = time.perf_counter()
    if compile_engine(_play_one_game):
        print(f"compiled the engine in {time.perf_counter() - start:.0f} s", flush=True)
    else:
        print("the engine is already compiled", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

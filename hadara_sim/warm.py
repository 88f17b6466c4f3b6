"""The engine's first compile on two cores.

numba compiles one function at a time, and two of the bots' kernels take most of the engine's first
compile: measured on a cold cache (CPU seconds per function from numba's compile events, a loaded
2-core machine), the planner's kernel 178 s and the expert's 159 s of 535 s, the rules, `ask` and
the epoch's steps the rest (that was with kernels/basics.py's small helpers inlined at numba's IR
level: about 400 s in all since, on a loaded machine). The expert's kernel does not call the planner's (`decide` does, for the
decisions the expert leaves to foresight), so `compile_engine` compiles the expert's in a second
process while this one compiles the planner's and greedy's, each into numba's cache, then plays one
game here: the engine's compile loads the three kernels from the cache. At the install the second
process meanwhile compiles the expert's training kernel (`option_table`, 127 s: training and the
tests call it from Python).

    python -m hadara_sim.warm            # what `make` runs after an install: the whole engine
    python -m hadara_sim.warm --no-training   # the engine without the expert's training kernel
    python -m hadara_sim.warm expert     # one kernel (the second process's part; or training)
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


def _engine_types():
    """numba's `typeof` and a one-game batch's arrays, as the engine passes them to the kernels
    (`engine.decide.Deciders`). (Typed through a kernel: a file that imports numba counts as compiled
    code, `jit_cache`, and any edit of it would drop the compiled engine.)"""
    from .component_files import load_components
    from .deal import make_deals
    from .engine.game import BatchGame
    from .registry import make_policy

    components = load_components()
    game = BatchGame(make_deals(components, 2, 1), components, [make_policy("greedy"), make_policy("greedy")])
    return kernel("planner").typeof_pyval, game.k


def kernel_signature() -> tuple:
    """The kernels' argument types as the engine's `decide` passes them on (see `decide` in
    hadara_sim/kernels/decide.py): kind, the seen state, rows, games, seats, epoch, phase, legal
    options, hand, colony fronts, the components' arrays, parameters, value table, out."""
    typeof, k = _engine_types()
    vector, integer = typeof(np.zeros(1, np.int64)), typeof(np.int64(0))
    return (integer, typeof(k.seen), vector, vector, vector, integer, integer,
            typeof(np.zeros((1, 1), np.bool_)), typeof(np.zeros((1, 2), np.int64)), typeof(k.colony_front),
            typeof(k.policy_tables), typeof(k.params[0]), typeof(k.tables[0]), vector)


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
    """Fill numba's cache with the whole engine, on two cores when there are two: the expert's kernel
    in a second process while this one compiles the planner's and greedy's, then `play_one_game()`
    here compiles the rest (and, with `training`, the second process the expert's training kernel
    meanwhile). Returns whether there was anything to compile. A second process that fails costs only
    time: what is missing compiles when first used."""
    import os

    if jit_cache.is_warm():
        return False
    two = (os.cpu_count() or 1) > 1
    helper = _start("expert") if two else None
    try:
        compile_kernels([name for name in KERNELS if helper is None or name != "expert"])
        if helper is not None:
            helper.wait()
            helper = _start("training") if training else None
        play_one_game()
        if helper is not None:
            helper.wait()
    finally:
        if helper is not None and helper.poll() is None:  # interrupted: the helper goes too
            helper.kill()
            helper.wait()
    return True


def _start(name: str) -> subprocess.Popen:
    """A second process compiling one kernel into numba's cache."""
    return subprocess.Popen([sys.executable, "-m", "hadara_sim.warm", name], stdin=subprocess.DEVNULL)


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
    training = "--no-training" not in argv
    argv = [arg for arg in argv if arg != "--no-training"]
    if argv:
        from .process import die_with_parent

        die_with_parent()
        unknown = [name for name in argv if name not in (*KERNELS, "training")]
        if unknown:
            print(f"unknown kernel {', '.join(unknown)}: the kernels are {', '.join(KERNELS)} and training",
                  file=sys.stderr)
            return 2
        compile_kernels(argv)
        return 0
    start = time.perf_counter()
    if compile_engine(_play_one_game, training=training):
        print(f"compiled the engine in {time.perf_counter() - start:.0f} s", flush=True)
    else:
        print("the engine is already compiled", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

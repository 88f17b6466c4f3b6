"""The engine's first compile on two cores, of what a run plays.

numba compiles one function at a time, so the engine's first compile is cut into parts, and two
processes take them as they free, the longest first (`PARTS`): the engine's steps in three (an epoch,
`play_epoch`; the draw rounds and the policies' `ask`; the picks, the colony and statue steps and
the score pad: separate libraries, which `play_epoch` calls through their addresses), each bot's
kernel with its entry, the expert's training kernel (`option_table`: training and the tests
call it from Python), and the forward model's redeals with the check of a Python policy's choices
(what a `search` game compiles besides the engine and the kernels). Each part is compiled by the
signatures a run calls it with, taken from a batch made as `simulate` makes them. The policies'
`ask` calls each bot's entry (`kernels.decide.DECIDE`) through its address
(hadara_sim/kernels/address.py), so no kernel is compiled into the steps, and a run compiles (and
loads) only the kernels of the bots it seats (`parts_for`): `make demo`'s four styles need the steps
and the planner's kernel, not the expert's, greedy's, the training kernel or the forward model.
Last, here, the expert's entry (it joins two kernels) and one game, which compiles what a game calls
from Python (the set-up).

    python -m hadara_sim.warm                  # every part (`make test`)
    python -m hadara_sim.warm --no-training    # every part but the expert's training kernel
    python -m hadara_sim.warm --for scenarios/default.toml   # what a scenario plays (`make demo`)
    python -m hadara_sim.warm --bytecode MODULE ...   # and import the modules beside the parts
    python -m hadara_sim.warm --times ...      # and print each part's CPU seconds (`PART_SECONDS`)
    python -m hadara_sim.warm expert           # one part, here (see `PARTS`)
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time

import numpy as np

from . import jit_cache

KERNELS = ("planner", "greedy", "expert")
ENGINE = ("epoch", "draft", "turns")  # the engine's steps: `play_epoch`, and the steps it calls by address
# The parts of a first compile, the longest first, with the CPU seconds of each on a cold cache, in
# two processes (a fresh clone's `python -m hadara_sim.warm --times --for scenarios/default.toml` on a
# quiet 2-core machine; `scripts/compile_profile.py PART` for one alone, and for the expert's and the
# training kernel). The engine's three parts each compile the rules and card steps they call.
PART_SECONDS = {"epoch": 31.0, "turns": 21.0, "planner": 20.0, "training": 20.0, "expert": 17.0, "draft": 16.0,
                "forward": 9.0, "greedy": 3.0}
PARTS = tuple(PART_SECONDS)
JOIN_SECONDS = 8.0  # starting the processes, the expert's entry and the game that joins the parts
# `--bytecode`: importing the modules the commands import, in a worker beside the parts, writes their
# bytecode (about 2,300 files, 7-9 CPU s) while a core would wait for the longest part.
BYTECODE_SECONDS = 8.0
PLAYED = tuple(part for part in PARTS if part != "training")  # what games play: a run's first compile


def kernel(name: str):
    """A bot's compiled kernel (its entry in `kernels.decide` calls it with these arguments)."""
    from .kernels import expert, greedy, planner

    return {"planner": planner._planner, "greedy": greedy._greedy, "expert": expert._expert}[name]


def parts_for(scenario) -> tuple[str, ...]:
    """The parts the games of `scenario` play: the engine's steps and the kernels of its built-ins; a
    policy of Python code may play built-ins inside it (`search` in its rollouts) and ask the forward
    model: every kernel and the forward model."""
    from .kernels.decide import checked_kernel
    from .kernels.layout import EXPERT, GREEDY, PLANNER
    from .registry import make_policy

    uses = {PLANNER: {"planner"}, EXPERT: {"planner", "expert"}, GREEDY: {"greedy"}}
    needed, seen = set(ENGINE), set()
    for combo in scenario.combinations:
        config = combo.config
        for entry in config.policies:
            if (entry.policy, repr(entry.params)) in seen:
                continue
            seen.add((entry.policy, repr(entry.params)))
            policy = make_policy(entry.policy, **entry.params)
            spec = checked_kernel(policy, config.components, config.players, combo.advanced)
            needed |= uses.get(spec.code, set(KERNELS)) if spec is not None and spec.kinds else {*KERNELS, "forward"}
    return tuple(part for part in PARTS if part in needed)


def missing(parts) -> list[str]:
    """The `parts` numba's cache does not hold compiled for the current sources."""
    if not jit_cache.is_warm():
        return list(parts)
    return [part for part in parts if not jit_cache.holds(_standing_for(part))]


def compile_seconds(parts) -> float:
    """About how long compiling `parts` takes on two cores: the parts dealt to two processes, the
    longest first, each to the one that frees first, and the entries and the joining game after."""
    if not parts:
        return 0.0
    busy = [0.0, 0.0]
    for seconds in sorted((PART_SECONDS[part] for part in parts), reverse=True):
        busy[busy.index(min(busy))] += seconds
    return max(busy) + JOIN_SECONDS


def _standing_for(part: str):
    """The compiled function whose cached code says that `part` is compiled (its last)."""
    if part in ENGINE:
        return _steps_of(part)[-1]
    if part == "training":
        from .kernels import expert

        return expert.option_table
    if part == "forward":
        from .forward import redeal_start

        return redeal_start
    return kernel(part)


def entry_signature() -> tuple:
    """The argument types the engine passes to the bots' entries (`engine.decide.decide_types`), as
    `simulate` plays them (a batch made otherwise would compile a variant runs never use)."""
    from .engine.decide import decide_types

    return decide_types(_sample_batch().k)


def _sample_batch():
    """A batch of one game of two `random` players, made as `simulate` makes its batches: the types
    of its arrays are every batch's (nothing of it is compiled or played)."""
    from .component_files import load_components
    from .deal import make_deals
    from .engine.game import BatchGame
    from .registry import make_policy

    components = load_components()
    return BatchGame(make_deals(components, 2, 1), components, [make_policy("random"), make_policy("random")])


def compile_forward() -> None:
    """Compile the forward model's redeals and the check of a Python policy's choices by the types a
    `search` game passes them (`Forward.determinise`, `policy.check_choices`): its decks and state
    arrays are a batch's, the rest made there as C arrays of int64 and bool."""
    from numba import typeof

    from .component_files import load_components
    from .deal import make_deals
    from .forward import redeal_colonies, redeal_decks, redeal_start
    from .policy import _illegal

    deals, state = make_deals(load_components(), 2, 1), _sample_batch().s
    decks = typeof(np.ascontiguousarray(deals.decks))
    known, number = typeof(np.zeros((1, 1), bool)), typeof(1)
    seeds, ptr, pools = (typeof(np.zeros((1,) * dims, np.int64)) for dims in (1, 2, 3))
    redeal_decks.compile((decks, known, pools, number, seeds))
    redeal_colonies.compile((typeof(np.ascontiguousarray(deals.colonies)), ptr, pools, number, seeds))
    redeal_start.compile((decks, decks, known, number, number,
                          *(typeof(np.ascontiguousarray(getattr(state, name)))
                            for name in ("location", "card_seat", "card_when"))))
    _illegal.compile((known, seeds))


def kernel_signature() -> tuple:
    """The kernels' argument types as the entries pass them on (see `decide_planner` in
    hadara_sim/kernels/decide.py): the entry's own without the card and the feeding need."""
    types = entry_signature()
    return (*types[:9], *types[11:])


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


def compile_entries(names) -> None:
    """Compile the entries of the named kernels, which link them (loaded from the cache when there)."""
    from .kernels.decide import DECIDE
    from .kernels.layout import EXPERT, GREEDY, PLANNER

    signature = entry_signature()
    for name in names:
        DECIDE[{"planner": PLANNER, "expert": EXPERT, "greedy": GREEDY}[name]].compile(signature)


def compile_engine(play_one_game, parts=PARTS, bytecode=(), report=None) -> bool:
    """Fill numba's cache with `parts` of the engine (those it lacks) on two cores when there are two,
    importing the `bytecode` modules beside them, then compile their entries and `play_one_game()`
    here, which compiles what joins them. Returns whether there was anything to compile. A part that
    fails costs only time: what is missing compiles when first used, and fails there with its own
    message. `report(part, compiled, cpu_seconds)` hears of each part as it ends (`--times`)."""
    from .process import local_parallel

    todo = missing(parts)
    if not todo:
        _try_part("bytecode", *bytecode)  # a package installed anew since: cheap when written already
        return False
    tasks = sorted([(PART_SECONDS[part], (part,)) for part in todo] + [(BYTECODE_SECONDS, ("bytecode", *bytecode))]
                   * bool(bytecode), reverse=True)
    for part, compiled, seconds in local_parallel(_timed_part, [task for _, task in tasks],
                                                  jobs=min(2, os.cpu_count() or 1)):
        if report:
            report(part, compiled, seconds)
    compile_entries([part for part in parts if part in KERNELS])
    play_one_game()
    return True


def _steps_of(part: str) -> tuple:
    """The compiled steps of one of the engine's parts (`ENGINE`), in the order compiled."""
    from .engine import game
    from .engine.scoring import score_pad

    ask_policies, draw_round, pick_turn, act_in_step = game.CALLED_STEPS
    return {"epoch": (game.play_epoch,), "draft": (ask_policies, draw_round),
            "turns": (score_pad, pick_turn, act_in_step)}[part]


def compile_steps(part: str) -> None:
    """Compile the steps of one of the engine's parts by the signatures a run calls them with."""
    from numba import typeof

    from .engine.game import CALLED_STEPS, called_types, play_epoch
    from .engine.scoring import score_arguments, score_pad

    batch = _sample_batch()
    called = called_types(batch.s, batch.k)
    for step in _steps_of(part):
        if step is play_epoch:
            step.compile(tuple(typeof(value) for value in batch.epoch_arguments(1)))
        elif step is score_pad:
            step.compile(tuple(typeof(value) for value in score_arguments(batch.s)))
        else:
            step.compile(called[CALLED_STEPS.index(step)])


def compile_part(name: str) -> None:
    """Compile one part of the engine into numba's cache (`PARTS`)."""
    if name in ENGINE:
        compile_steps(name)
    elif name == "forward":
        compile_forward()
    else:
        compile_kernels([name])
        if name in ("planner", "greedy"):  # entries of one kernel each; the expert's joins two
            compile_entries([name])


def _try_part(name: str, *modules: str) -> bool:
    """`compile_part` in a worker of `compile_engine` (or, for "bytecode", the import of `modules`);
    whether it compiled (what failed compiles again where it is used, and fails there with its own
    message)."""
    try:
        if name == "bytecode":
            for module in modules:
                importlib.import_module(module)
        else:
            compile_part(name)
    except Exception:  # noqa: BLE001
        return False
    return True


def _timed_part(name: str, *modules: str) -> tuple[str, bool, float]:
    """`_try_part`, with its name and the CPU seconds it took in its worker."""
    start = time.process_time()
    compiled = _try_part(name, *modules)
    return name, compiled, time.process_time() - start


def play_one(scenario) -> None:
    """One game of the scenario's first combination as `simulate` plays it (a chunk): the engine's
    compiled code is typed by its arguments, and a batch made otherwise (`play_batch` without a seat
    table passes a read-only one) would compile a variant that runs never use."""
    from .chunks import Chunk, play_chunk

    combo = scenario.combinations[0]
    play_chunk(combo.config.components, combo, scenario.seed, Chunk(combo.index, 0, 0, 1, combo.players, combo.advanced))


def _play_one_game(policy: str = "greedy") -> None:
    """One 2-player game of `policy` (`play_one`)."""
    from .scenario.read import scenario_from_dict

    play_one(scenario_from_dict({"name": "warm", "players": 2, "policies": [policy], "games": 1, "chunk": 1}))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m hadara_sim.warm", description=__doc__.split("\n\n")[0])
    parser.add_argument("parts", nargs="*", help=f"compile only these parts, here ({', '.join(PARTS)})")
    parser.add_argument("--no-training", action="store_true", help="leave out the expert's training kernel")
    parser.add_argument("--for", dest="scenario", metavar="SCENARIO", help="only what this scenario plays")
    parser.add_argument("--bytecode", nargs="+", default=[], metavar="MODULE",
                        help="import these modules beside the parts (writing their bytecode)")
    parser.add_argument("--times", action="store_true",
                        help="print each part's CPU seconds as it ends (the figures of PART_SECONDS)")
    args = parser.parse_args(argv)
    unknown = [name for name in args.parts if name not in PARTS]
    if unknown:
        print(f"unknown part {', '.join(unknown)}: the parts are {', '.join(PARTS)}", file=sys.stderr)
        return 2
    for name in args.parts:
        compile_part(name)
    if args.parts:
        return 0
    parts, join = (PLAYED if args.no_training else PARTS), _play_one_game
    if args.scenario:
        from .scenario.read import load_scenario

        scenario = load_scenario(args.scenario)
        parts, join = parts_for(scenario), lambda: play_one(scenario)
    start = time.perf_counter()
    def report(part: str, compiled: bool, seconds: float):
        print(f"{part}: {seconds:.1f} CPU s{'' if compiled else ' (failed: compiles where it is used)'}", flush=True)

    if compile_engine(join, parts, args.bytecode, report if args.times else None):
        from .process import stop_local_workers

        stop_local_workers()  # their work is in the cache: not left for the exit to wind down
        print(f"compiled the engine in {time.perf_counter() - start:.0f} s", flush=True)
    else:
        print("the engine is already compiled", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

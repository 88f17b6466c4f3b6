"""CPU seconds numba spends compiling each function of the engine on a cold cache.

    python scripts/compile_profile.py            # the whole engine, as `python -m hadara_sim.warm` in one process
    python scripts/compile_profile.py expert     # one of warm's parts, as it compiles them (see warm.PARTS)
    python scripts/compile_profile.py engine     # the engine's steps alone, in one process

It compiles into a fresh temporary NUMBA_CACHE_DIR (the project's cache is left alone) and prints,
per function, the CPU seconds of its own compile ("own": less the functions it compiled on the way)
and with them ("with callees"), the largest first; then per numba pass, summed over every function
(its own: less the passes of the functions compiled inside it), and the time spent holding LLVM
(optimising and emitting machine code). The figures in hadara_sim/warm.py and kernels/basics.py come
from here.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import tempfile
import time


def main(argv: list[str]) -> int:
    # numba reads its cache folder once, when it is first imported (warm imports it)
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="hadara-compile-profile-")
    from hadara_sim.warm import PARTS

    summary, details = __doc__.split("\n\n", 1)
    parser = argparse.ArgumentParser(description=summary, epilog=details,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("parts", nargs="*", choices=[*PARTS, "engine"], metavar="PART",
                        help=f"what to compile: engine, or one of warm's parts ({', '.join(PARTS)}); "
                             "none: the whole engine")
    argv = parser.parse_args(argv).parts
    from numba.core import event

    class Nested(event.Listener):
        """CPU seconds of nested events by name: [count, own (less the events inside), whole]."""

        def __init__(self, name_of):
            self.name_of, self.stack = name_of, []
            self.totals = collections.defaultdict(lambda: [0, 0.0, 0.0])

        def on_start(self, ev):
            self.stack.append([time.process_time(), 0.0])

        def on_end(self, ev):
            start, inside = self.stack.pop()
            spent = time.process_time() - start
            if self.stack:
                self.stack[-1][1] += spent
            row = self.totals[self.name_of(ev)]
            row[0] += 1
            row[1] += spent - inside
            row[2] += spent

    def function_name(ev):
        func = getattr(ev.data["dispatcher"], "py_func", None)
        return f"{func.__module__}.{func.__qualname__}" if func else "?"

    functions = Nested(function_name)
    passes = Nested(lambda ev: ev.data["name"].split(" [")[0])
    llvm = [0.0]

    class LLVMTimer(event.Listener):
        def on_start(self, ev):
            self.start = time.process_time()

        def on_end(self, ev):
            llvm[0] += time.process_time() - self.start

    event.register("numba:compile", functions)
    event.register("numba:run_pass", passes)
    event.register("numba:llvm_lock", LLVMTimer())
    from hadara_sim import warm

    start = time.process_time()
    for part in argv:
        if part == "engine":
            warm._play_one_game("random")  # the engine's steps alone, compiled as a game calls them
        else:
            warm.compile_part(part)
    if not argv:
        warm.compile_kernels(warm.KERNELS)
        warm._play_one_game()
    print(f"{time.process_time() - start:.0f} CPU s in all (cache {os.environ['NUMBA_CACHE_DIR']})")
    print(f"{'own':>8} {'with callees':>13} {'compiles':>8}  function")
    for name, (count, own, whole) in sorted(functions.totals.items(), key=lambda item: -item[1][1])[:40]:
        print(f"{own:8.1f} {whole:13.1f} {count:8d}  {name}")
    print(f"\n{'own':>8}  numba pass (summed over functions); {llvm[0]:.0f} CPU s of the whole holding LLVM")
    for name, (_, own, _) in sorted(passes.totals.items(), key=lambda item: -item[1][1])[:12]:
        print(f"{own:8.1f}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

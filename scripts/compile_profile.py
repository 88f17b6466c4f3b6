"""CPU seconds numba spends compiling each function of the engine on a cold cache.

    python scripts/compile_profile.py            # the whole engine, as `python -m hadara_sim.warm` in one process
    python scripts/compile_profile.py expert     # one kernel (planner, greedy, expert or training)

It compiles into a fresh temporary NUMBA_CACHE_DIR (the project's cache is left alone) and prints,
per function, the CPU seconds of its own compile ("own": less the functions it compiled on the way)
and with them ("with callees"), the largest first; then per numba pass, summed over every function
(its own: less the passes of the functions compiled inside it), and the time spent holding LLVM
(optimising and emitting machine code). The figures in hadara_sim/warm.py and kernels/basics.py come
from here.
"""

from __future__ import annotations

import collections
import os
import sys
import tempfile
import time


def main(argv: list[str]) -> int:
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="hadara-compile-profile-")
    from numba.core import event

    stack, totals = [], collections.defaultdict(lambda: [0, 0.0, 0.0])

    class Timer(event.Listener):
        def on_start(self, ev):
            stack.append([time.process_time(), 0.0])

        def on_end(self, ev):
            start, callees = stack.pop()
            spent = time.process_time() - start
            if stack:
                stack[-1][1] += spent
            func = getattr(ev.data["dispatcher"], "py_func", None)
            row = totals[f"{func.__module__}.{func.__qualname__}" if func else "?"]
            row[0] += 1
            row[1] += spent - callees
            row[2] += spent

    passes, pass_stack, llvm = collections.defaultdict(float), [], [0.0]

    class PassTimer(event.Listener):
        def on_start(self, ev):
            pass_stack.append([time.process_time(), 0.0])

        def on_end(self, ev):
            start, inner = pass_stack.pop()
            spent = time.process_time() - start
            if pass_stack:
                pass_stack[-1][1] += spent
            passes[ev.data["name"].split(" [")[0]] += spent - inner

    class LLVMTimer(event.Listener):
        def on_start(self, ev):
            self.start = time.process_time()

        def on_end(self, ev):
            llvm[0] += time.process_time() - self.start

    event.register("numba:compile", Timer())
    event.register("numba:run_pass", PassTimer())
    event.register("numba:llvm_lock", LLVMTimer())
    from hadara_sim import warm

    start = time.process_time()
    warm.compile_kernels(argv or warm.KERNELS)
    if not argv:
        warm._play_one_game()
    print(f"{time.process_time() - start:.0f} CPU s in all (cache {os.environ['NUMBA_CACHE_DIR']})")
    print(f"{'own':>8} {'with callees':>13} {'compiles':>8}  function")
    for name, (count, own, whole) in sorted(totals.items(), key=lambda item: -item[1][1])[:40]:
        print(f"{own:8.1f} {whole:13.1f} {count:8d}  {name}")
    print(f"\n{'own':>8}  numba pass (summed over functions); {llvm[0]:.0f} CPU s of the whole holding LLVM")
    for name, own in sorted(passes.items(), key=lambda item: -item[1])[:12]:
        print(f"{own:8.1f}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

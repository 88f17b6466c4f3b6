"""How many places a verdict is assembled in: the call graph of `report setup-cards --margin M`, from
the section down to its words, counted between the report modules that take part in a verdict.

    python scripts/verdict_trace.py results/setup-cards --margin 3

Runs `component_sections.setup_cards` (the section the command prints, the dataset already loaded)
under `sys.setprofile` and counts the distinct call edges from one report module to another whose
callee lies in one of the verdict modules (estimates, inference, sections, fields, setup, verdict):
`visits`; of those, `back` are the edges into a module that is already on the stack below the caller
(control going back to a module it came through); `margin` are the edges whose callee takes the
margin. Each edge counts once however many rows call it. `word makers` are the report functions that
return a verdict's words (a string naming stronger, weaker, fair within, undecided, the average side,
robust or depends on the bots: verdicts, cells, hints, captions), and the modules they live in.
"""

from __future__ import annotations

import sys
import threading
from collections import Counter

import typer

from hadara_sim.cli.common import margin_in_pp, run_script

MODULES = ("estimates", "inference", "sections", "fields", "setup", "verdict")
WORDS = ("stronger", "weaker", "fair within", "undecided", "average side", "robust", "depends on the bots")
PACKAGE = "hadara_sim.report."


def module_of(frame) -> str | None:
    """The report module a frame runs in (None outside hadara_sim.report)."""
    name = frame.f_globals.get("__name__", "")
    return name[len(PACKAGE):] if name.startswith(PACKAGE) else None


def trace(fn, *args):
    """Call fn(*args) under a profiler: the set of (caller, callee, callee module on the stack, takes
    margin) edges between report modules, callee in MODULES, and the set of report functions that
    returned verdict words."""
    edges: set = set()
    makers: set = set()

    def profile(frame, event, arg):
        if event == "return" and isinstance(arg, str) and any(w in arg for w in WORDS) and module_of(frame):
            makers.add(f"{module_of(frame)}.{frame.f_code.co_name}")
        if event != "call":
            return
        callee = module_of(frame)
        caller = frame.f_back
        if callee not in MODULES or caller is None or module_of(caller) in (callee, None):
            return
        below, f = set(), caller.f_back
        while f is not None:
            below.add(module_of(f))
            f = f.f_back
        edges.add((f"{module_of(caller)}.{caller.f_code.co_name}", f"{callee}.{frame.f_code.co_name}",
                   callee in below, "margin" in frame.f_code.co_varnames[:frame.f_code.co_argcount
                                                                        + frame.f_code.co_kwonlyargcount]))

    sys.setprofile(profile)
    threading.setprofile(profile)  # polars runs map_elements' Python functions in its own threads
    try:
        fn(*args)
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
    return edges, makers


def main(results: str, margin: float = typer.Option(3.0, "--margin", "-m", max=50.0, callback=margin_in_pp,
                                                     help="Equivalence margin in pp."),
         show: bool = typer.Option(False, help="List every edge.")):
    from hadara_sim.report import component_sections
    from hadara_sim.report.dataset import load_dataset

    df, info = load_dataset(results)
    edges, makers = trace(component_sections.setup_cards, df, info, margin / 100)
    per_module = Counter(callee.split(".")[0] for _, callee, _, _ in edges)
    print(f"visits {len(edges)}, back {sum(b for *_, b, _ in edges)}, taking the margin "
          f"{sum(m for *_, m in edges)}; modules {len(per_module)}: "
          + ", ".join(f"{m} {k}" for m, k in sorted(per_module.items())))
    homes = Counter(name.split(".")[0] for name in makers)
    print(f"word makers {len(makers)} in {len(homes)} modules: " + ", ".join(sorted(makers)))
    if show:
        for caller, callee, back, takes in sorted(edges):
            print(f"  {caller} -> {callee}{'  (back)' if back else ''}{'  [margin]' if takes else ''}")


if __name__ == "__main__":
    run_script(main)

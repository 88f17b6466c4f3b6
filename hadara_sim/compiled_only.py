"""Compiled functions that only compiled code calls: built without a Python entry point.

numba compiles, with every function, a wrapper that Python calls it through (it unboxes each
argument from its Python object), and optimises and emits that wrapper again in every function
that links the first in. The engine's rules and the kernels' helpers take the state's tuples of
dozens of arrays and are called only from other compiled code: built without their wrappers
(numba's `no_cpython_wrapper`, as numba builds its own overloads), the planner's kernel compiled in
19-24 CPU s instead of 36, the engine's three parts together in 91 instead of 125
(`scripts/compile_profile.py PART`), and a fresh clone's `make demo` in 59 s instead of 69-79 (paired
on one machine). A call from Python would jump to no code: `CompiledOnly` refuses it with a message.
"""

from __future__ import annotations

from numba import njit
from numba.core.registry import CPUDispatcher


class CompiledOnly(CPUDispatcher):
    """A numba dispatcher with no Python entry point: compiled code calls it, Python may not."""

    def __call__(self, *args, **kwargs):
        name = f"{self.py_func.__module__}.{self.py_func.__qualname__}"
        raise TypeError(f"{name} is compiled without a Python entry point (hadara_sim/compiled_only.py): "
                        "call it from compiled code, or decorate it with numba's njit to call it from Python")


def compiled_only(**options):
    """`numba.njit(cache=True, **options)` without the wrappers Python and C call it through."""
    make = njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True, **options)

    def decorate(function):
        dispatcher = make(function)
        dispatcher.__class__ = CompiledOnly
        return dispatcher

    return decorate

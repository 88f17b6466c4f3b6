"""numba's first use in a process, without its BLAS probe.

The first compiled call loads numba's implementations, and one of them (`numba.np.arraymath`) imports
`scipy.linalg` only to learn whether a float inner product (np.cov, np.correlate) may call BLAS:
a third of a second of CPU, a third of a small run's start-up (issue 33). The engine and the bots'
kernels call no linear algebra (kernels/__init__.py), so that module is loaded here, before the
first compiled call of a chunk, with `scipy.linalg` hidden: those inner products then use numba's
own loop. numba's np.dot, np.linalg and matrix products still call BLAS: each imports scipy.linalg
itself when a function using it compiles. This module holds no compiled code, so it is not one of
`jit_cache.sources` (it names numba's module as a string).
"""

from __future__ import annotations

import importlib
import sys

IMPLEMENTATIONS = "numba.np.arraymath"  # the numba module that probes for BLAS when it is imported


def load_without_blas_probe() -> None:
    """Import numba's array implementations with scipy.linalg hidden, unless either is already there."""
    if IMPLEMENTATIONS in sys.modules or "scipy.linalg" in sys.modules:
        return
    sys.modules["scipy.linalg"] = None  # an import of it, or of a module under it, raises ImportError
    try:
        importlib.import_module(IMPLEMENTATIONS)
    finally:
        del sys.modules["scipy.linalg"]


load_without_blas_probe()

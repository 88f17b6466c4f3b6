"""numba's on-disk cache, kept honest across files.

numba keys a cached function to the file it is defined in, but compiles into it the code of the
functions it calls from other files (the epoch's steps call `ask`, which calls the bots' kernel):
after a change to one of those files a cached caller would go on running the old code. So all the
compiled code of the package is cached under one digest of the files it is compiled from; a new
digest (an edit, a `git pull`) drops the old cached code, and the next run compiles afresh.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The files compiled code is made from, and the folders whose __pycache__ holds numba's cache.
SOURCES = ("hadara_sim/engine/*.py", "hadara_sim/actions.py", "hadara_sim/constants.py", "hadara_sim/policy.py",
           "hadara_sim/forward.py",
           "hadara_sim/kernels/*.py", "policies/common.py")
CACHE_FOLDERS = ("hadara_sim/engine", "hadara_sim", "policies")
STAMP = ROOT / "hadara_sim" / "engine" / "__pycache__" / "numba-sources.sha1"


def sources_digest() -> str:
    """One digest of every source file compiled code is made from."""
    digest = hashlib.sha1()
    for pattern in SOURCES:
        for path in sorted(ROOT.glob(pattern)):
            digest.update(path.name.encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def is_warm() -> bool:
    """Whether numba's cache holds compiled code of the current sources (False on a read-only
    install, where numba caches elsewhere and nothing here can tell)."""
    try:
        return (STAMP.exists() and STAMP.read_text() == sources_digest()
                and any((ROOT / "hadara_sim" / "engine" / "__pycache__").glob("*.nbi")))
    except OSError:
        return False


def drop_stale_cache():
    """Delete numba's cached code of the package when its sources changed since it was cached."""
    try:
        digest = sources_digest()
        if STAMP.exists() and STAMP.read_text() == digest:
            return
        for folder in CACHE_FOLDERS:
            for path in (ROOT / folder / "__pycache__").glob("*.nb[ic]"):
                path.unlink(missing_ok=True)
        STAMP.parent.mkdir(exist_ok=True)
        temporary = STAMP.with_suffix(f".{os.getpid()}")
        temporary.write_text(digest)
        os.replace(temporary, STAMP)
    except OSError:  # a read-only install: numba caches elsewhere, and an install rewrites every file
        pass


drop_stale_cache()

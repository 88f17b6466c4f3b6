"""numba's cached code is dropped when any file it is compiled from changes."""

import hashlib
import importlib
import inspect
import os
import sys
import time
from pathlib import Path

import numba
import pytest
from numba.core import config
from numba.core.dispatcher import Dispatcher
from numba.core.extending import _Intrinsic
from numba.core.typing.templates import builtin_registry

from hadara_sim import jit_cache


def write(root, files):
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_the_sources_are_every_file_with_compiled_code_and_what_it_imports():
    """Found independently: every module of the packages imported, their compiled functions read."""
    by_file = {}
    for name, path in jit_cache._modules().items():  # `policies/` may be importable under one name only
        by_file.setdefault(path, []).append(name)
    for path, names in by_file.items():
        imported = []
        for name in names:
            try:
                imported.append(importlib.import_module(name))
            except ModuleNotFoundError:
                pass
        assert imported, path
    functions = [value.py_func for module in list(sys.modules.values())
                 for value in list(vars(module).values()) if isinstance(value, Dispatcher)]
    functions += [value._defn for module in list(sys.modules.values())
                  for value in list(vars(module).values()) if isinstance(value, _Intrinsic)]
    functions += [fn for fn, _ in builtin_registry.globals if inspect.isfunction(fn)]  # register_jitable
    holding = {Path(fn.__code__.co_filename).resolve() for fn in functions}  # hadara_sim/policies links to policies/
    holding = {path for path in holding if any(path.is_relative_to(jit_cache.ROOT / folder)
                                               for folder in ("hadara_sim", "policies"))}
    assert len(holding) >= 15  # the engine's steps, the bots' kernels, the policy's and forward's
    assert holding <= set(jit_cache.compiled_files())
    sources = {path.relative_to(jit_cache.ROOT).as_posix() for path in jit_cache.sources()}
    assert {path.relative_to(jit_cache.ROOT).as_posix() for path in holding} <= sources
    # the list once kept by hand, less the engine's files without compiled code (record.py)
    assert {"hadara_sim/actions.py", "hadara_sim/constants.py", "hadara_sim/policy.py", "hadara_sim/forward.py",
            "policies/common.py", "hadara_sim/kernels/planner.py", "hadara_sim/engine/state.py"} <= sources
    assert "hadara_sim/runner.py" not in sources  # calls compiled code, is not compiled into it


def test_the_rule_follows_aliases_splits_and_imports(tmp_path, monkeypatch):
    write(tmp_path, {
        "hadara_sim/__init__.py": "",
        "hadara_sim/engine/__init__.py": "",
        "hadara_sim/engine/state.py": "from numba import njit\ncompiled = njit(cache=True)\n",
        "hadara_sim/engine/game.py": "from ..constants import K\nfrom .state import compiled\n\n"
                                     "@compiled\ndef f():\n    return K\n",
        "hadara_sim/engine/split.py": "from .state import compiled as c\n\n@c\ndef g():\n    pass\n",
        "hadara_sim/engine/record.py": "from .game import f  # calls, compiles nothing\n",
        "hadara_sim/constants.py": "from .problems import Y\nK = Y\n",
        "hadara_sim/problems.py": "Y = 1\n",
        "hadara_sim/actions.py": "from numba.extending import register_jitable\n",
        "hadara_sim/runner.py": "import numpy\nfrom .engine import game\n",
        "policies/__init__.py": "",
        "policies/kernels.py": "import numba\nfrom hadara_sim import actions as A\n"
                               "helper = numba.njit(inline='always')\n",
        "policies/greedy.py": "from . import kernels\nfrom ..tuned import T  # installed as hadara_sim.policies\n\n"
                              "@kernels.helper\ndef h():\n    return T\n",
        "hadara_sim/tuned.py": "T = 2\n",
        "policies/planner.py": "from policies.kernels import (\n    helper,  # an alias\n)\n\n"
                               "@helper\ndef p():\n    pass\n",
    })
    monkeypatch.setattr(jit_cache, "ROOT", tmp_path)
    compiled = {path.relative_to(tmp_path).as_posix() for path in jit_cache.compiled_files()}
    assert compiled == {"hadara_sim/engine/state.py", "hadara_sim/engine/game.py", "hadara_sim/engine/split.py",
                        "hadara_sim/actions.py", "policies/kernels.py", "policies/greedy.py", "policies/planner.py"}
    sources = {path.relative_to(tmp_path).as_posix() for path in jit_cache.sources()}
    assert sources == compiled | {"hadara_sim/constants.py", "hadara_sim/problems.py", "hadara_sim/tuned.py"}


@pytest.fixture
def package(tmp_path, monkeypatch):
    """A package of one compiled file `game.py` reading `constants.py`, as jit_cache's only one."""
    name = f"jitcase_{tmp_path.name.replace('-', '_')}"
    write(tmp_path / "repo", {f"{name}/__init__.py": "", f"{name}/constants.py": "K = 1\n",
                              f"{name}/game.py": "from numba import njit\n\nfrom .constants import K\n\n\n"
                                                 "@njit(cache=True)\ndef a():\n    return K\n\n\n"
                                                 "@njit(cache=True)\ndef b():\n    return K + 1\n"})
    monkeypatch.setattr(jit_cache, "ROOT", tmp_path / "repo")
    monkeypatch.setattr(jit_cache, "PACKAGES", {name: name})
    monkeypatch.setattr(config, "CACHE_DIR", "")
    monkeypatch.syspath_prepend(str(tmp_path / "repo"))
    monkeypatch.setattr(jit_cache, "_imported", jit_cache.sources_digest())  # as this process imported it
    return tmp_path / "repo" / name


def test_a_changed_source_drops_the_cached_code(package):
    pycache = package / "__pycache__"
    cached = [pycache / "game.a-7.py311.nbi", pycache / "game.a-7.py311.0.nbc"]

    def cache():
        pycache.mkdir(exist_ok=True)
        for path in cached:
            path.write_text("compiled")

    cache()
    jit_cache.drop_stale_cache()  # no stamp yet: whatever was cached is of unknown sources
    assert not any(path.exists() for path in cached)
    cache()
    jit_cache.drop_stale_cache()  # nothing changed
    assert all(path.exists() for path in cached) and jit_cache.is_warm()
    (package / "constants.py").write_text("K = 2\n")  # a file compiled code reads, not compiled itself
    assert not jit_cache.is_warm()
    jit_cache.drop_stale_cache()
    assert not any(path.exists() for path in cached)


def test_numba_cache_dir_is_cleared_and_stamped_on_its_own(package, tmp_path, monkeypatch):
    pycache = package / "__pycache__"
    pycache.mkdir()
    (pycache / "game.a-7.py311.nbi").write_text("compiled elsewhere")
    monkeypatch.setattr(config, "CACHE_DIR", str(tmp_path / "cache"))
    jit_cache.drop_stale_cache()
    game = importlib.import_module(f"{package.name}.game")
    assert game.a() == 1
    written = list((tmp_path / "cache").rglob("*.nb[ic]"))  # where numba itself wrote
    assert written and jit_cache.cache_folders() == [written[0].parent]
    assert jit_cache.is_warm()
    jit_cache.drop_stale_cache()  # nothing changed
    assert all(path.exists() for path in written)
    (package / "constants.py").write_text("K = 2\n")
    jit_cache.drop_stale_cache()
    assert not any(path.exists() for path in written)
    assert (written[0].parent / jit_cache.STAMP).read_text() == jit_cache.sources_digest()
    assert (pycache / "game.a-7.py311.nbi").exists()  # another cache, with a stamp of its own (none yet)
    monkeypatch.setattr(config, "CACHE_DIR", "")
    jit_cache.drop_stale_cache()
    assert not (pycache / "game.a-7.py311.nbi").exists()
    assert (pycache / jit_cache.STAMP).read_text() == jit_cache.sources_digest()


def test_a_process_whose_sources_changed_stops_writing_to_the_cache(package, monkeypatch):
    jit_cache.drop_stale_cache()
    game = importlib.import_module(f"{package.name}.game")
    assert game.a() == 1
    assert list((package / "__pycache__").glob("game.a-*.nbi"))  # saved, as usual
    # another process: the sources are edited, the cache dropped and stamped afresh
    (package / "constants.py").write_text("K = 2\n")
    jit_cache.drop_stale_cache()
    assert game.b() == 2  # this process compiles its old code ...
    assert not list((package / "__pycache__").glob("game.*.nb[ic]"))  # ... and keeps it to itself
    assert numba.njit(lambda: 3)() == 3  # code of other files is not concerned


def content_digest(root: Path, names: list[str]) -> str:
    """The sources' digest as jit_cache defines it, computed here from the files' bytes."""
    digest = hashlib.sha1()
    for name in sorted(names):
        digest.update(name.encode())
        digest.update((root / name).read_bytes())
    return digest.hexdigest()


def test_a_remembered_scan_serves_the_next_process_until_a_file_changes(package, monkeypatch):
    """The scan is kept on disk by the files' stats: a new process reads no source while none changed;
    a file rewritten to the same size with its old mtime put back is scanned afresh (its ctime moved)."""
    sources = [f"{package.name}/constants.py", f"{package.name}/game.py"]
    monkeypatch.setattr(jit_cache, "SETTLED_NS", -10**18)  # planted: every file counts as long unchanged
    monkeypatch.setattr(jit_cache, "_settled_scans", {})
    digest = jit_cache.sources_digest()
    assert digest == content_digest(package.parent, sources)
    assert (package / "__pycache__" / jit_cache.SCAN).exists()

    monkeypatch.setattr(jit_cache, "_settled_scans", {})  # a new process: it reads no source
    with monkeypatch.context() as m:
        m.setattr(Path, "read_bytes", lambda self: pytest.fail(f"read {self}"))
        assert jit_cache.sources_digest() == digest and jit_cache.is_warm() is False

    constants = package / "constants.py"
    before = constants.stat()
    time.sleep(0.05)  # past the file system's timestamp resolution
    constants.write_text("K = 2\n")  # the same size ...
    os.utime(constants, ns=(before.st_atime_ns, before.st_mtime_ns))  # ... and the same mtime
    monkeypatch.setattr(jit_cache, "_settled_scans", {})
    assert jit_cache.sources_digest() == content_digest(package.parent, sources) != digest


def test_files_changed_just_now_are_read_at_every_scan(package):
    """Within a file's timestamp resolution a rewrite may keep every stat: such files are never
    remembered, in memory or on disk (the fixture wrote them just now)."""
    digest = jit_cache.sources_digest()
    (package / "constants.py").write_text("K = 2\n")  # at once, the same size
    assert jit_cache.sources_digest() != digest
    assert not (package / "__pycache__" / jit_cache.SCAN).exists()


def test_the_module_keeping_the_cache_is_none_of_its_sources():
    """jit_cache holds no compiled code and no value compiled code reads: editing it drops nothing."""
    assert Path(jit_cache.__file__).resolve() not in jit_cache.sources()
    assert Path(jit_cache.__file__).resolve() not in jit_cache.compiled_files()


SAVER = """
import sys, time
from numba.core import caching
from hadara_sim import jit_cache  # noqa: F401 (its save, one process at a time)

slow = caching.IndexDataCacheFile._save_index
def _save_index(self, overloads):  # a slow disk: the window between reading and writing the index
    time.sleep(0.01)
    slow(self, overloads)
caching.IndexDataCacheFile._save_index = _save_index

cache = caching.IndexDataCacheFile(sys.argv[1], "shared_function", "stamp")
for i in range(40):
    cache.save(f"{sys.argv[2]}-{i}", f"{sys.argv[2]}-{i}")
"""


def test_two_processes_saving_one_function_keep_each_others_entries(tmp_path):
    """Two processes compiling the same function (the install's two, two test workers) each save
    their own signatures: every entry of both is in the index, and each loads its own code."""
    import subprocess

    workers = [subprocess.Popen([sys.executable, "-c", SAVER, str(tmp_path), name]) for name in ("a", "b")]
    assert [w.wait(timeout=120) for w in workers] == [0, 0]
    cache = numba.core.caching.IndexDataCacheFile(str(tmp_path), "shared_function", "stamp")
    keys = [f"{name}-{i}" for name in ("a", "b") for i in range(40)]
    assert sorted(cache._load_index()) == sorted(keys)
    assert all(cache.load(key) == key for key in keys)

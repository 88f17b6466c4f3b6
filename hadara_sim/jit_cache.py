"""numba's on-disk cache, kept honest across files.

numba keys a cached function to the file it is defined in, but compiles into it the code of the
functions it calls from other files (the epoch's steps call `ask`, which calls the bots' kernel),
and freezes into it the module-level values it reads (constants, action codes): after a change to
one of those files a cached caller would go on running the old code. So all the compiled code of
the package is cached under one digest of the files it is made from (`sources`); a new digest (an
edit, a `git pull`) drops the old cached code, and the next run compiles afresh.

The files are found, not listed: a list kept by hand goes stale when a file is split or moved.
Each place numba caches in (a `__pycache__`, or NUMBA_CACHE_DIR) keeps its own stamp, and a
process whose sources changed under it stops writing to the cache (`_StaleSaves`). Reading and
hashing the files costs a tenth of a second, at every start: the result is kept on disk by the
files' stats, and read again only when one of them changed (`_found`).
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import re
import time
from pathlib import Path

from filelock import FileLock
from numba.core import caching, event

ROOT = Path(__file__).resolve().parent.parent
# Import names of the folders (under ROOT) whose files may hold compiled code: `policies/` is
# imported as `policies` or, installed inside the package, as `hadara_sim.policies`.
PACKAGES = {"hadara_sim": "hadara_sim", "policies": "policies", "hadara_sim.policies": "policies"}
STAMP = "numba-sources.sha1"  # in each cache folder: the digest of the sources its code is made from
SCAN = "numba-sources.scan.json"  # in the first package's __pycache__: the last scan, by the files' stats
SETTLED_NS = 2_000_000_000  # files changed this recently are read again at each scan (see `_settled`)
_settled_scans: dict = {}  # scans of this process, by the stats of the files scanned

# Read with patterns, not `ast`: parsing every file costs a few tenths of a second at each import.
# A match inside a docstring only adds a file to the digest, which is harmless.
_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|.*)|import[ \t]+(.*))", re.M)
_DECORATOR = re.compile(r"^[ \t]*@[ \t]*(\w+)", re.M)


def _modules() -> dict[str, Path]:
    """Every Python file of the packages, by the name it is imported as ('hadara_sim.engine.state').
    (Walked with `os` on strings: pathlib's rglob and relative_to took half of a scan's 6 ms, and
    each start scans twice.)"""
    modules = {}
    for package, folder in PACKAGES.items():
        top = os.path.join(ROOT, folder)
        for where, folders, files in os.walk(top):
            folders[:] = [f for f in folders if f != "__pycache__"]
            inside = os.path.relpath(where, top).split(os.sep) if where != top else []
            for file in files:
                if file.endswith(".py"):
                    parts = inside if file == "__init__.py" else [*inside, file[:-3]]
                    modules[".".join((package, *parts))] = Path(where, file)
    return modules


def _imports(text: str, name: str, modules: dict[str, Path]) -> tuple[bool, dict[str, Path]]:
    """Whether module `name` (its `text`) imports numba, and each name it imports from the
    packages -> the file it comes from (the module imported whole, or the one the name is in)."""
    uses_numba, bound = False, {}
    for match in _IMPORT.finditer(text):
        module, names, plain = match.groups()
        if module and module.startswith("."):  # from the package `name` is in, up one per extra dot
            dots = len(module) - len(module.lstrip("."))
            package = name.split(".")[:None if modules[name].name == "__init__.py" else -1]
            if dots > len(package):
                continue
            module = ".".join(package[:len(package) + 1 - dots] + [module[dots:]]).rstrip(".")
        for item in re.sub(r"#.*", "", names or plain).strip("()").split(","):
            item = item.split()  # 'a.b', or 'a.b as c'
            if not item:
                continue
            if plain is not None:  # import a.b [as c]
                wanted, local = [item[0]], item[-1] if len(item) == 3 else item[0].split(".")[0]
            else:  # from a import b [as c]: b is a submodule of a, or a name in a
                wanted, local = [f"{module}.{item[0]}", module], item[-1]
            uses_numba |= wanted[-1].split(".")[0] == "numba"
            found = next(filter(None, map(modules.get, wanted)), None)
            if found:
                bound[local] = found
    return uses_numba, bound


def _found() -> tuple[tuple[Path, ...], tuple[Path, ...], str]:
    """The files that hold compiled code, the sources and their digest (see `compiled_files`,
    `sources`, `sources_digest`): read and hashed again only when a file of the packages changed
    since they were last (compiled code asks at each compile, every process at its start)."""
    files = _stats()
    if files in _settled_scans:
        return _settled_scans[files]
    found, settled = _read_scan(files), _settled(files)
    if found is None:
        found = _scan(files)
        if settled:
            _write_scan(files, found)
    if settled:
        _settled_scans[files] = found
    return found


def _stats() -> tuple:
    """(import name, path, mtime_ns, ctime_ns, size, inode) of every file of the packages: any edit,
    replacement or `touch` of a file changes its ctime at least (which no program can set back)."""
    found = []
    for name, path in sorted(_modules().items()):
        stat = os.stat(path)
        found.append((name, path, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_size, stat.st_ino))
    return tuple(found)


def _settled(files: tuple) -> bool:
    """Whether no file changed in the last SETTLED_NS: a file's timestamps have a resolution (a few
    milliseconds, seconds on some file systems), so a file written again within it may keep its
    stats; a scan is remembered only when every file is older than that (as git trusts its index)."""
    now = time.time_ns()
    return all(max(mtime, ctime) < now - SETTLED_NS for _, _, mtime, ctime, *_ in files)


def _scan_file() -> Path:
    """Where the last scan is kept (beside the stamp of the package's own compiled code)."""
    return ROOT / next(iter(PACKAGES.values())) / "__pycache__" / SCAN


def _read_scan(files: tuple):
    """The scan remembered on disk for exactly these `files` (see `_found`), if any."""
    try:
        kept = json.loads(_scan_file().read_text())
        if kept["files"] != [[name, _relative(path), *numbers] for name, path, *numbers in files]:
            return None
        return (tuple(ROOT / path for path in kept["compiled"]), tuple(ROOT / path for path in kept["sources"]),
                kept["digest"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _relative(path: Path) -> str:
    """A package file's path from ROOT, with '/' (`relative_to`'s result, a tenth of its cost)."""
    return str(path)[len(str(ROOT)) + 1:].replace(os.sep, "/")


def _write_scan(files: tuple, found) -> None:
    """Remember a scan on disk for the next processes (not where the package may not be written to)."""
    compiled, sources, digest = found
    text = json.dumps({"files": [[name, _relative(path), *numbers] for name, path, *numbers in files],
                       "compiled": [path.relative_to(ROOT).as_posix() for path in compiled],
                       "sources": [path.relative_to(ROOT).as_posix() for path in sources], "digest": digest})
    where = _scan_file()
    try:
        where.parent.mkdir(exist_ok=True)
        temporary = where.with_name(f"{SCAN}.{os.getpid()}")
        temporary.write_text(text)
        os.replace(temporary, where)
    except OSError:
        pass


def _scan(files: tuple) -> tuple[tuple[Path, ...], tuple[Path, ...], str]:
    modules = {name: path for name, path, *_ in files}
    contents = {path: path.read_bytes() for path in modules.values()}
    texts = {path: content.decode("utf-8") for path, content in contents.items()}
    imports, compiled = {path: {} for path in texts}, set()
    for name, path in modules.items():  # a file of `policies/` has two names: the imports of both
        uses_numba, bound = _imports(texts[path], name, modules)
        imports[path].update(bound)
        if uses_numba:
            compiled.add(path)
    grown = True
    while grown:  # the users of an alias of `njit`, of an alias of those, ...
        grown = False
        for path in texts.keys() - compiled:
            if any(imports[path].get(name) in compiled for name in _DECORATOR.findall(texts[path])):
                compiled.add(path)
                grown = True
    found, todo = set(compiled), list(compiled)
    while todo:  # what they import, directly or not
        for imported in imports[todo.pop()].values():
            if imported not in found:
                found.add(imported)
                todo.append(imported)
    # this module keeps the cache: it holds no compiled code and no value compiled code reads, so
    # editing it drops nothing (numba's own modules are not sources either)
    sources = tuple(sorted(found - {Path(__file__).resolve()}))
    compiled.discard(Path(__file__).resolve())
    digest = hashlib.sha1()
    for path in sources:
        digest.update(path.relative_to(ROOT).as_posix().encode())
        digest.update(contents[path])
    return tuple(sorted(compiled)), sources, digest.hexdigest()


def compiled_files() -> list[Path]:
    """The files that hold compiled code: those that import numba (`@njit`, `@intrinsic`,
    `register_jitable`, ...), and those decorated with a name imported from such a file (the
    engine's `@compiled`, an alias of `njit` made in `state.py`)."""
    return list(_found()[0])


def sources() -> list[Path]:
    """The files compiled code is made from: those that hold it, and every package file they
    import, directly or not (module-level values read by compiled code are frozen into it)."""
    return list(_found()[1])


def sources_digest() -> str:
    """One digest of every source file compiled code is made from."""
    return _found()[2]


def _probe():
    """A stand-in function for asking numba where it caches the functions of a file."""


def cache_folders() -> list[Path]:
    """The folders numba caches the package's compiled code in: as numba picks them, for each
    folder holding compiled files (NUMBA_CACHE_DIR if set, else the folder's `__pycache__` if
    writable, else a folder of the user's). Each holds only the code of one source folder."""
    return _cache_folders(compiled_files())


def _cache_folders(compiled) -> list[Path]:
    found = set()
    for path in {path.parent: path for path in compiled}.values():
        for locator in caching.CacheImpl._locator_classes:
            where = locator.from_function(_probe, str(path))
            if where is not None:
                found.add(Path(where.get_cache_path()))
                break
    return sorted(found)


def is_warm() -> bool:
    """Whether numba's cache holds compiled code of the current sources."""
    try:
        digest, folders = sources_digest(), cache_folders()
        return (all(_stamp(folder) == digest for folder in folders)
                and any(any(folder.glob("*.nbi")) for folder in folders))
    except OSError:
        return False


def holds(dispatcher) -> bool:
    """Whether numba's cache holds compiled code of `dispatcher` for its file as it is now (the
    index that `dispatcher.compile` would load from; numba's own reading of it)."""
    try:
        return bool(dispatcher._cache._cache_file._load_index())
    except (OSError, EOFError, ValueError, pickle.UnpicklingError):  # an index being written, or cut short
        return False


def _stamp(folder: Path) -> str | None:
    """The digest of the sources the code cached in `folder` was compiled from, if known."""
    return (folder / STAMP).read_text() if (folder / STAMP).exists() else None


def drop_stale_cache():
    """Delete numba's cached code of the package where it was cached from other sources (or from
    sources of unknown digest: no stamp yet), and stamp it with the current digest."""
    try:
        compiled, _, digest = _found()  # one scan for both (each scan stats every file)
        folders = _cache_folders(compiled)
    except OSError:  # a file replaced while read: the next run will see
        return
    for folder in folders:
        try:
            if _stamp(folder) == digest:
                continue
            for path in folder.glob("*.nb[ic]"):
                path.unlink(missing_ok=True)
            temporary = folder / f"{STAMP}.{os.getpid()}"
            temporary.write_text(digest)
            os.replace(temporary, folder / STAMP)
        except OSError:  # a folder numba cannot write to either
            pass


class _StaleSaves(event.Listener):
    """Stops a process writing compiled code of sources that changed since it imported them.

    A long-lived process (a notebook's kernel) holds the code it imported; when another process
    has since renewed the stamp (the sources were edited, the cache dropped and filled afresh),
    what this process compiles now is made of the old code, and saved under the new stamp it would
    be loaded by every later run. numba broadcasts the end of each compile just before it saves
    the result: there, if the sources' digest is no longer the one this process imported, the
    function's cache is disabled (neither read nor written again by this process)."""

    def on_start(self, event):
        pass

    def on_end(self, event):
        dispatcher = event.data["dispatcher"]
        code = getattr(getattr(dispatcher, "py_func", None), "__code__", None)
        if code is None or not any(Path(code.co_filename).is_relative_to(ROOT / folder)
                                   for folder in set(PACKAGES.values())):
            return
        try:
            fresh = sources_digest() == _imported
        except OSError:  # a source is being replaced
            fresh = False
        cache = getattr(dispatcher, "_cache", None)  # an object-mode block lifted by numba has none
        if not fresh and cache is not None:
            cache.disable()


_numba_save = caching.IndexDataCacheFile.save


def _save_one_at_a_time(self, key, data):
    """numba's save of a compiled function, one process at a time per cache folder.

    numba reads a function's index, picks the first free data file name and writes both back: two
    processes compiling the same function at once (the install's two compiling processes, two test
    workers) could pick the same name, and the index of one would then point at the other's code."""
    lock = FileLock(os.path.join(self._cache_path, "numba-save.lock"))
    try:
        lock.acquire()
    except OSError:  # a folder numba may not write to: its own save meets the same error, as before
        return _numba_save(self, key, data)
    try:
        _numba_save(self, key, data)
    finally:
        lock.release()


caching.IndexDataCacheFile.save = _save_one_at_a_time

try:
    _imported = sources_digest()  # what the code this process compiles is made from
except OSError:  # a file replaced while read: this process's compiled code is not saved
    _imported = None
drop_stale_cache()
event.register("numba:compile", _StaleSaves())

"""numba's cached code is dropped when any file it is compiled from changes."""

from hadara_sim import jit_cache


def test_a_changed_source_drops_the_cached_code(tmp_path, monkeypatch):
    engine = tmp_path / "hadara_sim" / "engine"
    (engine / "__pycache__").mkdir(parents=True)
    (tmp_path / "policies" / "__pycache__").mkdir(parents=True)
    (engine / "game.py").write_text("x = 1\n")
    (tmp_path / "policies" / "kernels.py").write_text("y = 1\n")
    monkeypatch.setattr(jit_cache, "ROOT", tmp_path)
    monkeypatch.setattr(jit_cache, "STAMP", engine / "__pycache__" / "numba-sources.sha1")
    cached = [engine / "__pycache__" / "game.play-1.py311.nbi", tmp_path / "policies" / "__pycache__" / "k.d-2.nbc"]

    def cache():
        for path in cached:
            path.write_text("compiled")

    cache()
    jit_cache.drop_stale_cache()  # no stamp yet: whatever was cached is of unknown sources
    assert not any(path.exists() for path in cached)
    cache()
    jit_cache.drop_stale_cache()  # nothing changed
    assert all(path.exists() for path in cached)
    (tmp_path / "policies" / "kernels.py").write_text("y = 2\n")  # a callee in another file changed
    jit_cache.drop_stale_cache()
    assert not any(path.exists() for path in cached)

"""The engine's first compile (hadara_sim/warm.py): its parts and its command."""

from hadara_sim import warm


def test_the_parts_cover_every_kernel_the_training_kernel_and_the_engines_steps():
    assert set(warm.PARTS) == {*warm.KERNELS, "training", "engine"}


def test_a_warm_cache_compiles_nothing_more():
    played = []
    assert warm.compile_engine(lambda: played.append(1)) is False and played == []


def test_an_unknown_part_is_named_with_the_parts_there_are(capsys):
    assert warm.main(["planer"]) == 2
    assert "unknown part planer: the parts are engine, training, planner, expert, greedy" in capsys.readouterr().err


def _scenario(policies):
    from hadara_sim.scenario.read import scenario_from_dict

    return scenario_from_dict({"name": "parts", "players": 4, "policies": policies, "games": 4, "chunk": 4})


def test_a_run_compiles_only_the_kernels_of_the_bots_it_seats():
    assert warm.parts_for(_scenario(["balanced", "military", "culture", "economy"])) == ("engine", "planner")
    assert warm.parts_for(_scenario(["expert", "greedy"])) == ("engine", "planner", "expert", "greedy")
    assert warm.parts_for(_scenario(["greedy"])) == ("engine", "greedy")
    # Python code may play built-ins inside (search's rollouts): every kernel, never the training one
    assert warm.parts_for(_scenario(["random", "greedy"])) == warm.PLAYED


def test_only_what_the_cache_lacks_is_compiled(monkeypatch):
    from hadara_sim import jit_cache

    lacking = warm.kernel("expert")
    monkeypatch.setattr(jit_cache, "holds", lambda dispatcher: dispatcher is not lacking)
    assert warm.missing(warm.PARTS) == ["expert"]
    monkeypatch.setattr(jit_cache, "is_warm", lambda: False)  # other sources: every part afresh
    assert warm.missing(warm.PLAYED) == list(warm.PLAYED)


def test_the_compile_estimate_deals_the_parts_to_two_processes():
    alone = warm.PART_SECONDS["engine"] + warm.JOIN_SECONDS
    assert warm.compile_seconds(["engine", "planner"]) == alone  # the planner's kernel beside the steps
    assert warm.compile_seconds([]) == 0.0
    whole = sum(warm.PART_SECONDS.values())
    assert whole / 2 <= warm.compile_seconds(warm.PARTS) - warm.JOIN_SECONDS < whole


def test_the_bytecode_task_writes_the_bytecode_of_the_modules_it_imports(tmp_path, monkeypatch):
    import sys

    (tmp_path / "warm_probe_module.py").write_text("VALUE = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    assert warm._try_part("bytecode", "warm_probe_module") is True
    assert list((tmp_path / "__pycache__").glob("warm_probe_module.*.pyc"))
    assert warm._try_part("bytecode", "no_such_module_here") is False  # costs only time, as a part does

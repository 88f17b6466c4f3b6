"""The engine's first compile (hadara_sim/warm.py): its parts and its command."""

from hadara_sim import warm


def test_the_parts_cover_every_kernel_the_training_kernel_the_engines_steps_and_the_forward_model():
    assert set(warm.PARTS) == {*warm.KERNELS, "training", "forward", *warm.ENGINE}
    from hadara_sim.engine.game import CALLED_STEPS, play_epoch

    steps = [step for part in warm.ENGINE for step in warm._steps_of(part)]
    assert {play_epoch, *CALLED_STEPS} <= set(steps) and len(steps) == len(set(steps))


def test_the_engines_parts_compile_the_signatures_a_game_calls():
    for part in warm.ENGINE:
        warm.compile_part(part)  # loaded from the warm cache
    steps = [step for part in warm.ENGINE for step in warm._steps_of(part)]
    compiled = {step: set(step.overloads) for step in steps}
    warm._play_one_game("random")
    assert {step: set(step.overloads) for step in steps} == compiled  # nothing compiled afresh


def test_the_forward_part_compiles_the_signatures_a_search_game_calls():
    """What a `search` game compiled besides the engine and the kernels (15 s in the test run's first
    step, on one core): the forward model's redeals and the check of its choices."""
    from hadara_sim import forward, policy

    warm.compile_part("forward")  # loaded from the warm cache
    compiled = [forward.redeal_decks, forward.redeal_colonies, forward.redeal_start, policy._illegal]
    signatures = {dispatcher: set(dispatcher.overloads) for dispatcher in compiled}
    assert all(signatures.values())
    warm.play_one(_scenario([{"policy": "search", "params": {"budget": 1}}, "balanced"], players=2))
    assert {dispatcher: set(dispatcher.overloads) for dispatcher in compiled} == signatures  # nothing afresh


def test_a_warm_cache_compiles_nothing_more():
    played = []
    assert warm.compile_engine(lambda: played.append(1)) is False and played == []


def test_an_unknown_part_is_named_with_the_parts_there_are(capsys):
    assert warm.main(["planer"]) == 2
    assert ("unknown part planer: the parts are epoch, turns, planner, training, expert, draft, forward, greedy"
            in capsys.readouterr().err)


def _scenario(policies, players=4):
    from hadara_sim.scenario.read import scenario_from_dict

    return scenario_from_dict({"name": "parts", "players": players, "policies": policies, "games": 4, "chunk": 4})


def test_a_run_compiles_only_the_kernels_of_the_bots_it_seats():
    engine = set(warm.ENGINE)
    assert set(warm.parts_for(_scenario(["balanced", "military", "culture", "economy"]))) == {*engine, "planner"}
    assert set(warm.parts_for(_scenario(["expert", "greedy"]))) == {*engine, "planner", "expert", "greedy"}
    assert set(warm.parts_for(_scenario(["greedy"]))) == {*engine, "greedy"}
    # Python code may play built-ins inside (search's rollouts) and ask the forward model: every kernel
    # and the forward model, never the training kernel
    assert warm.parts_for(_scenario(["random", "greedy"])) == warm.PLAYED and "forward" in warm.PLAYED


def test_only_what_the_cache_lacks_is_compiled(monkeypatch):
    from hadara_sim import jit_cache

    lacking = warm.kernel("expert")
    monkeypatch.setattr(jit_cache, "holds", lambda dispatcher: dispatcher is not lacking)
    assert warm.missing(warm.PARTS) == ["expert"]
    monkeypatch.setattr(jit_cache, "is_warm", lambda: False)  # other sources: every part afresh
    assert warm.missing(warm.PLAYED) == list(warm.PLAYED)


def test_the_compile_estimate_deals_the_parts_to_two_processes(monkeypatch):
    monkeypatch.setattr(warm, "PART_SECONDS", {"a": 5.0, "b": 4.0, "c": 3.0, "d": 3.0})
    # the longest first, each to the process that frees first: a | b, c after b (4 < 5), d after a (5 < 7)
    assert warm.compile_seconds(["d", "c", "b", "a"]) == 8.0 + warm.JOIN_SECONDS
    assert warm.compile_seconds(["a"]) == 5.0 + warm.JOIN_SECONDS
    assert warm.compile_seconds([]) == 0.0
    monkeypatch.undo()
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
    name, compiled, seconds = warm._timed_part("bytecode", "warm_probe_module")  # as `--times` reports it
    assert name == "bytecode" and compiled is True and seconds >= 0.0


def test_a_run_of_one_chunk_says_it_compiles(monkeypatch):
    """A one-chunk run on a cold cache compiled for two minutes under "0 of 2,000 games, starting": it
    compiles first, on two cores, saying so, as a run of many chunks does."""
    import io

    from rich.console import Console

    from hadara_sim import runner
    from hadara_sim.scenario.read import load_scenario

    compiled = []
    monkeypatch.setattr(warm, "missing", lambda parts: list(parts))
    monkeypatch.setattr(warm, "compile_engine", lambda play_one, parts: compiled.append(parts))
    out = io.StringIO()
    runner.run(load_scenario("default").with_overrides(games=8, chunk=8), None, jobs=-1, quiet=False,
               console=Console(file=out, width=200))
    assert compiled and "compiling the engine (first run after an install or update" in out.getvalue()

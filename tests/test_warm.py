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

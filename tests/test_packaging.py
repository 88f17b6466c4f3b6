"""What a wheel of the project holds: every package of hadara_sim, the built-ins as hadara_sim.policies."""

import os
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_package_folder_is_in_the_install_list():
    """setuptools installs the packages pyproject.toml lists: a new subpackage missing there would be
    missing from a wheel (an editable install finds it anyway, so only this test would notice)."""
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    folders = {".".join(Path(folder).relative_to(ROOT).parts)  # following the link to policies/
               for folder, _, files in os.walk(ROOT / "hadara_sim", followlinks=True) if "__init__.py" in files}
    assert folders == listed


def test_the_built_ins_are_the_policies_folder_under_the_package_name():
    """The top-level folder `policies/` of the project layout is installed as `hadara_sim.policies`;
    hadara_sim/policies links to it, so tools that walk the package's folder see it in place."""
    import hadara_sim.policies

    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert setuptools["package-dir"]["hadara_sim.policies"] == "policies"
    assert (ROOT / "hadara_sim" / "policies").resolve() == (ROOT / "policies").resolve()
    assert Path(hadara_sim.policies.__file__).resolve() == (ROOT / "policies" / "__init__.py").resolve()


def test_the_public_names_are_offered_before_their_first_use():
    """`hadara_sim.<TAB>` in a notebook lists what the package exports (it offered only `import_module`,
    since the names are imported on first use), and every one of them resolves."""
    import hadara_sim

    offered = dir(hadara_sim)  # also the submodules imported so far, as for any package
    assert set(hadara_sim.__all__) <= set(offered) and "import_module" not in offered
    assert all(getattr(hadara_sim, name) is not None for name in hadara_sim.__all__)

"""The notebooks run top to bottom (with a small game count) and are committed without outputs.

They run in a kernel of this test's own Python (a kernelspec written to a temporary JUPYTER_PATH),
so that they import the hadara_sim under test, whatever kernels the machine has installed."""

import json
import sys
from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
NAMES = ["quickstart.ipynb", "setup-card-balance.ipynb", "purple-effects.ipynb", "balance-fix.ipynb",
         "card-worth.ipynb", "surface.ipynb", "sensitivity.ipynb"]
KERNEL = "hadara-sim-tests"
GAMES = "12"


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    """A kernelspec that starts this interpreter, found through JUPYTER_PATH."""
    root = tmp_path_factory.mktemp("jupyter")
    spec = root / "kernels" / KERNEL
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "hadara-sim tests", "language": "python"}))
    mp = pytest.MonkeyPatch()
    mp.setenv("JUPYTER_PATH", str(root))
    mp.setenv("HADARA_NOTEBOOK_GAMES", GAMES)
    yield KERNEL
    mp.undo()


@pytest.mark.parametrize("name", NAMES)
def test_notebook_is_committed_without_outputs(name):
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    nbformat.validate(nb)
    assert any(c.cell_type == "markdown" for c in nb.cells)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [], f"{name}: a cell has outputs (clear them before committing)"
            assert cell.execution_count is None, f"{name}: a cell has an execution count"


@pytest.mark.parametrize("name", NAMES)
def test_notebook_runs(name, kernel, tmp_path):
    """Each notebook runs to its end from a folder of its own, as a copy in a user's folder would: its
    scenarios are the shipped ones by name (it looked for the repository's scenarios/ above it)."""
    from nbclient import NotebookClient

    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    client = NotebookClient(nb, kernel_name=kernel, timeout=300,
                            resources={"metadata": {"path": str(tmp_path)}})
    client.execute()  # raises CellExecutionError, with the cell and its traceback, on any error
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert f"{GAMES} games per combination" in text
    images = [o for o in outputs if o.output_type in ("display_data", "execute_result") and "image/png" in o.data]
    assert images, f"{name} shows no chart"
    assert not [o for o in outputs if o.output_type == "error"]


def test_notebooks_match_their_build_script():
    """The committed notebooks are what notebooks/build_notebooks.py writes (edit the script, rerun it)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("build_notebooks", NOTEBOOKS / "build_notebooks.py")
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    for name, cells in (("quickstart.ipynb", build.QUICKSTART), ("setup-card-balance.ipynb", build.SETUP_CARDS),
                        ("purple-effects.ipynb", build.PURPLE), ("balance-fix.ipynb", build.BALANCE_FIX),
                        ("card-worth.ipynb", build.CARD_WORTH), ("surface.ipynb", build.SURFACE),
                        ("sensitivity.ipynb", build.SENSITIVITY)):
        nb = nbformat.read(NOTEBOOKS / name, as_version=4)
        assert [(c.cell_type, c.source) for c in nb.cells] == [(c.cell_type, c.source) for c in cells], (
            f"{name} differs from notebooks/build_notebooks.py: run `.venv/bin/python notebooks/build_notebooks.py`")


def test_the_notebooks_show_each_share_and_its_interval_in_one_unit():
    """`rounded` showed a difference in percentage points beside its CI in fractions (diff 10.2 with
    diff_low 0.082, a rel_diff of -0.127): every column the command line writes in % or pp is scaled."""
    import polars as pl
    import polars.selectors as cs

    from hadara_sim.report.table import UNIT_OF

    first = nbformat.read(NOTEBOOKS / "quickstart.ipynb", as_version=4).cells[1].source
    helper = first[first.index("def rounded"):]
    names = {"pl": pl, "cs": cs, "UNIT_OF": UNIT_OF}
    exec(helper, names)  # noqa: S102 (the notebook's own cell)
    table = pl.DataFrame({"mean": [0.352], "diff": [0.102], "diff_low": [0.082], "diff_high": [0.124],
                          "rel_diff": [-0.127], "win_diff_low": [-0.2], "total": [151.2345], "fair": [True]})
    shown = names["rounded"](table).row(0, named=True)
    assert shown == {"mean": 35.2, "diff": 10.2, "diff_low": 8.2, "diff_high": 12.4, "rel_diff": -12.7,
                     "win_diff_low": -20.0, "total": 151.234, "fair": True}  # a verdict's flag stays a flag

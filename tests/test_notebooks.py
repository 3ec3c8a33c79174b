"""The notebooks of ``notebooks/`` execute top to bottom on the small budget, and the saved copies hold
their outputs (plots included).

Each notebook runs in its own Jupyter kernel with ``ALLFOURS_NOTEBOOK_BUDGET=small`` (every budget
shrunk: the three together take about a minute on a 2-core machine) and ``ALLFOURS_NOTEBOOK_OUT`` set
to a temporary folder for the files they write. Any cell error fails the test.
"""

from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOK_DIR = Path(__file__).resolve().parent.parent / "notebooks"
NAMES = ["01_quickstart.ipynb", "02_train_and_evaluate.ipynb", "03_strategy_analysis.ipynb"]
PLOTTING = {"02_train_and_evaluate.ipynb", "03_strategy_analysis.ipynb"}


def _outputs(notebook) -> list[dict]:
    return [out for cell in notebook.cells if cell.cell_type == "code" for out in cell.get("outputs", [])]


def _has_image(notebook) -> bool:
    return any("image/png" in out.get("data", {}) for out in _outputs(notebook))


def test_the_notebooks_are_there():
    assert sorted(p.name for p in NOTEBOOK_DIR.glob("*.ipynb")) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_saved_notebook_holds_its_outputs(name):
    """The committed notebooks were executed in order, without errors, and kept their results."""
    notebook = nbformat.read(NOTEBOOK_DIR / name, as_version=4)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert code and all(cell.get("execution_count") for cell in code), "execute the notebook and save it"
    counts = [cell.execution_count for cell in code]
    assert counts == sorted(counts), "cells were executed out of order"
    assert not [out for out in _outputs(notebook) if out.output_type == "error"]
    assert all(cell.get("outputs") for cell in code[:2])
    if name in PLOTTING:
        assert _has_image(notebook), "the saved notebook lost its plots"


@pytest.mark.parametrize("name", NAMES)
def test_notebook_executes_on_small_budget(name, tmp_path, monkeypatch):
    monkeypatch.setenv("ALLFOURS_NOTEBOOK_BUDGET", "small")
    monkeypatch.setenv("ALLFOURS_NOTEBOOK_OUT", str(tmp_path))
    notebook = nbformat.read(NOTEBOOK_DIR / name, as_version=4)
    client = nbclient.NotebookClient(
        notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOK_DIR)}}
    )
    client.execute()  # raises CellExecutionError, naming the cell, on the first error
    assert not [out for out in _outputs(notebook) if out.output_type == "error"]
    assert any("budget: small" in out.get("text", "") for out in _outputs(notebook))
    if name in PLOTTING:
        assert _has_image(notebook)

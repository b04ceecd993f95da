"""nbval runs the four notebooks, in order, on their own defaults (the demo campaign).

The notebooks run in a separate pytest with ``--nbval-lax`` (the notebooks are committed
without outputs, so every code cell must run without error) and with the workbook root set
to a temporary directory, so results and the scratch file stay out of the repository.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from conftest import REPO, require_fio

NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_notebooks_are_committed_thin_and_without_outputs(notebook):
    book = json.loads(notebook.read_text())
    code = [c for c in book["cells"] if c["cell_type"] == "code"]
    assert all(not c.get("outputs") and c.get("execution_count") is None for c in code)
    assert "parameters" in code[0]["metadata"].get("tags", [])
    # thin: a parameters cell, then a handful of short library calls
    assert len(code) <= 10 and all(len("".join(c["source"]).splitlines()) <= 8 for c in code[1:])


def test_nbval_runs_the_four_notebooks(tmp_path):
    require_fio()
    env = dict(os.environ, FLASHPOC_ROOT=str(tmp_path))
    env.pop("FLASHPOC_RESULTS_DIR", None)
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "--nbval-lax", "-p", "no:cacheprovider", "-q",
         *[str(p) for p in NOTEBOOKS]],
        capture_output=True, text=True, timeout=1200, env=env, cwd=REPO)
    assert out.returncode == 0, out.stdout[-4000:]
    n_code = sum(1 for p in NOTEBOOKS for c in json.loads(p.read_text())["cells"] if c["cell_type"] == "code")
    assert re.search(rf"\b{n_code} passed\b", out.stdout), out.stdout[-2000:]
    campaign = tmp_path / "results" / "demo-local"
    assert (campaign / "probe.json").exists() and (campaign / "report" / "report.html").exists()

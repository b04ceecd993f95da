"""The four notebooks: thin, committed without outputs, their parameters cells held to the schema
(a key left out means the schema's default, in batch and in JupyterLab), no cell rebinding a
parameter name, and nbval running them in order on the demo campaign.

nbval runs in a separate pytest with ``--nbval-lax`` (the notebooks are committed without
outputs, so every code cell must run without error) on copies parameterized like ``flashpoc run``
parameterizes them (parameters/demo-local.yaml injected after the parameters cell), with the
workbook root set to a temporary directory, so results and the scratch file stay out of the
repository.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import papermill
import pytest
import yaml

from conftest import REPO, quick_campaign, require_fio
from flashpoc.params import (Campaign, campaign_from_dict, campaign_from_parameters, load_campaign,
                             notebook_parameters, read_parameters_file)

NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))
DEMO = REPO / "parameters" / "demo-local.yaml"
MINIMAL = {"campaign": "c1", "hosts": [{"name": "h1"}],
           "targets": [{"name": "t1", "path": "/tmp/flashpoc-t1.dat", "size": "1g", "create": True}]}


def partial_file(tmp_path) -> Path:
    """A parameters file of a quick campaign that leaves out sweep:, probe: and description:."""
    path = tmp_path / "partial.yaml"
    values = quick_campaign(tmp_path)
    path.write_text(yaml.safe_dump({k: v for k, v in values.items() if k not in ("sweep", "probe", "description")}))
    return path


def code_cells(notebook) -> list[dict]:
    return [c for c in json.loads(notebook.read_text())["cells"] if c["cell_type"] == "code"]


def parameterized(notebook, values: dict):
    """The notebook as ``flashpoc run`` executes it for a parameters file holding ``values``."""
    return papermill.parameterize.parameterize_notebook(papermill.iorw.load_notebook_node(str(notebook)),
                                                        notebook_parameters(values))


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_notebooks_are_committed_thin_and_without_outputs(notebook):
    code = code_cells(notebook)
    assert all(not c.get("outputs") and c.get("execution_count") is None for c in code)
    assert "parameters" in code[0]["metadata"].get("tags", [])
    # thin: a parameters cell, then a handful of short library calls
    assert len(code) <= 10 and all(len("".join(c["source"]).splitlines()) <= 8 for c in code[1:])


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_the_parameters_cell_is_the_schema(notebook):
    """Every name of the parameters cell is a campaign key, every campaign key is there, and each
    value is None or means what leaving the key out means: the schema's default. So a key left out
    of a parameters file (papermill injects only the file's keys) or not set in JupyterLab never
    takes a value of the notebook's own."""
    cell = papermill.inspect_notebook(str(notebook))
    assert set(cell) == set(Campaign.model_fields), set(cell) ^ set(Campaign.model_fields)
    default = campaign_from_dict(MINIMAL)
    for name, parameter in cell.items():
        value = ast.literal_eval(parameter["default"])
        if value is not None:
            assert campaign_from_dict({**MINIMAL, name: value}) == default, f"{notebook.name}: {name} = {value!r}"


def test_every_campaign_key_is_injected_by_a_batch_run():
    values = read_parameters_file(DEMO)
    injected = notebook_parameters(values)
    assert list(injected) == list(Campaign.model_fields)
    assert {k: v for k, v in injected.items() if v is not None} == values


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_a_key_left_out_of_the_parameters_file_means_the_schema_default(notebook, tmp_path):
    """Run the parameters cell and the injected cell of the parameterized notebook, as the kernel
    does: the campaign they make is the parameters file's, with the schema's defaults for the keys
    it leaves out (no sweep plan or description of the notebook's own)."""
    params = partial_file(tmp_path)
    book = parameterized(notebook, read_parameters_file(params))
    namespace: dict = {}
    for cell in book.cells[:3]:
        if cell.cell_type == "code" and {"parameters", "injected-parameters"} & set(cell.metadata.get("tags", [])):
            exec(cell.source, namespace)  # noqa: S102 - the notebook's own literal assignments
    cfg = campaign_from_parameters(namespace)
    assert cfg == load_campaign(params)
    assert cfg.sweep.plan == "guide" and cfg.sweep.points is None and cfg.description == ""


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_no_cell_assigns_a_parameter_name(notebook):
    """Re-running the setup cell in JupyterLab reads the parameters again from globals(): a cell that
    rebinds one (``probe = phases.run_probe(cfg)``) breaks it."""
    for cell in code_cells(notebook)[1:]:
        tree = ast.parse("".join(cell["source"]))
        bound = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}
        bound |= {(a.asname or a.name).split(".")[0] for n in ast.walk(tree)
                  if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
        bound |= {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        assert not bound & set(Campaign.model_fields), (notebook.name, bound & set(Campaign.model_fields))


def test_the_manifest_of_a_batch_run_records_the_schema_defaults(tmp_path):
    """`flashpoc run` on a file without sweep: or description: runs and records the schema's
    defaults (the check phase writes the manifest)."""
    require_fio()
    params = partial_file(tmp_path)
    out = subprocess.run([sys.executable, "-m", "flashpoc.cli", "run", "--phases", "check", str(params)],
                         capture_output=True, text=True, timeout=600,
                         env={**os.environ, "FLASHPOC_ROOT": str(tmp_path)})
    assert out.returncode == 0, out.stderr[-3000:]
    manifest = json.loads((tmp_path / "results" / "quick" / "manifest.json").read_text())
    schema = campaign_from_dict(MINIMAL).model_dump(mode="json")
    assert manifest["params"]["sweep"] == schema["sweep"] and manifest["params"]["description"] == ""
    assert manifest["params_hash"] == load_campaign(params).params_hash()


def test_nbval_runs_the_four_notebooks(batch_run, tmp_path):
    """nbval runs every cell of the four notebooks, parameterized as `flashpoc run` parameterizes
    them, in order, on a copy of a batch run's results: every point is reused (a notebook run again
    measures nothing it has), so nbval tests the notebooks, not the array."""
    root, params, _ = batch_run
    values = {**read_parameters_file(params), "results_dir": str(tmp_path / "results")}
    shutil.copytree(root / "results", tmp_path / "results")
    points = sorted(p.relative_to(tmp_path) for p in (tmp_path / "results").glob("*/points/*/*"))
    books = tmp_path / "notebooks"
    books.mkdir()
    for notebook in NOTEBOOKS:
        papermill.iorw.write_ipynb(parameterized(notebook, values), str(books / notebook.name))
    env = dict(os.environ, FLASHPOC_ROOT=str(root))
    env.pop("FLASHPOC_RESULTS_DIR", None)
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "--nbval-lax", "-p", "no:cacheprovider", "-q",
         *[str(books / p.name) for p in NOTEBOOKS]],
        capture_output=True, text=True, timeout=1200, env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stdout[-4000:]
    n_code = sum(len(code_cells(books / p.name)) for p in NOTEBOOKS)  # each with its injected cell
    assert n_code == sum(len(code_cells(p)) + 1 for p in NOTEBOOKS)
    assert re.search(rf"\b{n_code} passed\b", out.stdout), out.stdout[-2000:]
    campaign = tmp_path / "results" / "quick"
    assert (campaign / "probe.json").exists() and (campaign / "report" / "report.html").exists()
    assert sorted(p.relative_to(tmp_path) for p in (tmp_path / "results").glob("*/points/*/*")) == points

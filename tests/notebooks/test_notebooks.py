"""The four notebooks: thin, committed without outputs, their parameters cells held to the schema
(a key left out means the schema's default, in batch and in JupyterLab), one parameter naming a
parameters file (the interactive path and the batch share it), no cell rebinding a parameter name,
and nbval running them in order on the demo campaign.

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

import pandas as pd
import papermill
import pytest
import yaml

from conftest import REPO, quick_campaign, require_fio
from flashpoc.core.errors import ParameterError
from flashpoc.params import (PARAMETER_KEYS, PARAMETERS_FILE, campaign_from_dict, campaign_from_parameters, load_campaign,
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


def parameterized(notebook, values: dict, parameters_file: Path | None = None):
    """The notebook as ``flashpoc run`` executes it for ``parameters_file`` holding ``values``."""
    return papermill.parameterize.parameterize_notebook(papermill.iorw.load_notebook_node(str(notebook)),
                                                        notebook_parameters(values, parameters_file))


def run_parameter_cells(book) -> dict:
    """The namespace the kernel has after the parameters cell and the injected one."""
    namespace: dict = {}
    for cell in book.cells[:3]:
        if cell.cell_type == "code" and {"parameters", "injected-parameters"} & set(cell.metadata.get("tags", [])):
            exec(cell.source, namespace)  # noqa: S102 - the notebook's own literal assignments
    return namespace


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_notebooks_are_committed_thin_and_without_outputs(notebook):
    code = code_cells(notebook)
    assert all(not c.get("outputs") and c.get("execution_count") is None for c in code)
    assert "parameters" in code[0]["metadata"].get("tags", [])
    # thin: a parameters cell, then a handful of short library calls
    assert len(code) <= 10 and all(len("".join(c["source"]).splitlines()) <= 8 for c in code[1:])


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_the_parameters_cell_is_the_schema(notebook):
    """The parameters cell names a parameters file and every campaign key, nothing else, and every
    value is None: a key not set takes the file's value, else the schema's default. So a key left
    out of a parameters file or not set in JupyterLab never takes a value of the notebook's own,
    and a batch-executed notebook shows no value before the injected ones."""
    cell = papermill.inspect_notebook(str(notebook))
    assert list(cell)[0] == PARAMETERS_FILE and set(cell) == {PARAMETERS_FILE, *PARAMETER_KEYS}, \
        set(cell) ^ {PARAMETERS_FILE, *PARAMETER_KEYS}
    assert {name: ast.literal_eval(p["default"]) for name, p in cell.items() if p["default"] != "None"} == {}


def test_every_campaign_key_is_injected_by_a_batch_run():
    values = read_parameters_file(DEMO)
    injected = notebook_parameters(values, DEMO)
    assert list(injected) == [PARAMETERS_FILE, *PARAMETER_KEYS]
    assert injected[PARAMETERS_FILE] == str(DEMO.resolve())
    assert {k: v for k, v in injected.items() if v is not None and k != PARAMETERS_FILE} == values


def test_a_batch_run_injects_the_parameters_file_relative_to_the_workbook_root():
    """The demo's executed notebooks, handed to a customer, named the parameters file by its
    absolute path (the folder of the machine that ran it): under the workbook root the kernels
    resolve it against, it is injected relative to it, as a user names it in JupyterLab."""
    values = read_parameters_file(DEMO)
    assert notebook_parameters(values, DEMO, root=REPO)[PARAMETERS_FILE] == "parameters/demo-local.yaml"
    assert notebook_parameters(values, DEMO, root=REPO / "notebooks")[PARAMETERS_FILE] == str(DEMO.resolve())


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_a_notebook_takes_a_parameters_file(notebook, tmp_path):
    """In JupyterLab one line names the parameters file (relative to the workbook root, as every
    path of the parameters); a key set in the cell overrides the file's value of that key, and the
    keys left None take the file's values. Nothing set at all says what to set."""
    params = partial_file(tmp_path)  # FLASHPOC_ROOT is tmp_path: the workbook root
    book = papermill.parameterize.parameterize_notebook(papermill.iorw.load_notebook_node(str(notebook)),
                                                        {PARAMETERS_FILE: params.name, "slo_ms": 2.0})
    cfg = campaign_from_parameters(run_parameter_cells(book))
    assert cfg == load_campaign(params, overrides={"slo_ms": 2.0}) and cfg.campaign == "quick"
    namespace = run_parameter_cells(papermill.iorw.load_notebook_node(str(notebook)))
    with pytest.raises(ParameterError, match=r"^no parameters: set parameters_file in the parameters cell"):
        campaign_from_parameters(namespace)
    absent = (rf"^parameters_file: cannot read parameters file {tmp_path}/absent.yaml: No such file or directory "
              rf"\(relative to the workbook root {tmp_path}\)")
    with pytest.raises(ParameterError, match=absent):
        campaign_from_parameters({**namespace, PARAMETERS_FILE: "absent.yaml"})


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_a_key_left_out_of_the_parameters_file_means_the_schema_default(notebook, tmp_path):
    """Run the parameters cell and the injected cell of the parameterized notebook, as the kernel
    does: the campaign they make is the parameters file's, with the schema's defaults for the keys
    it leaves out (no sweep plan or description of the notebook's own)."""
    params = partial_file(tmp_path)
    cfg = campaign_from_parameters(run_parameter_cells(parameterized(notebook, read_parameters_file(params), params)))
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
        assert not bound & set(PARAMETER_KEYS), (notebook.name, bound & set(PARAMETER_KEYS))


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
    copy = tmp_path / "quick.yaml"
    copy.write_text(yaml.safe_dump(values))
    shutil.copytree(root / "results", tmp_path / "results")
    points = sorted(p.relative_to(tmp_path) for p in (tmp_path / "results").glob("*/points/*/*"))
    books = tmp_path / "notebooks"
    books.mkdir()
    for notebook in NOTEBOOKS:
        papermill.iorw.write_ipynb(parameterized(notebook, values, copy), str(books / notebook.name))
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


def test_the_interactive_path_runs_a_notebook_on_a_parameters_file(batch_run, tmp_path, monkeypatch):
    """As in JupyterLab: notebook 03 with one line set, ``parameters_file`` (relative to the
    workbook root) and ``results_dir`` overridden to a copy of a batch run's results, run in a
    real kernel outside a batch run: every point is reused, and the progress display keeps its
    final state as text (no widget), which says so."""
    root, params, _ = batch_run
    shutil.copytree(root / "results", tmp_path / "results")
    shutil.copy(params, tmp_path / "quick.yaml")
    notebook = REPO / "notebooks" / "03_thread_sweep.ipynb"
    out = tmp_path / "03_thread_sweep.ipynb"
    for name in ("FLASHPOC_BATCH", "FLASHPOC_PROGRESS"):  # not a batch run
        monkeypatch.delenv(name, raising=False)
    papermill.execute_notebook(str(notebook), str(out), cwd=str(REPO / "notebooks"), kernel_name="python3",
                               parameters={PARAMETERS_FILE: "quick.yaml", "results_dir": str(tmp_path / "results")},
                               progress_bar=False)
    outputs = [o for c in json.loads(out.read_text())["cells"] for o in c.get("outputs", [])]
    assert not [o for o in outputs if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
    shown = ["".join(o["data"]["text/plain"]) for o in outputs if "flashpoc-progress" in "".join(
        o.get("data", {}).get("text/html", ""))]
    assert len(shown) == 1 and re.match(r"sweep: 6 points \(6 stored, reused\) in \d+:\d\d(?::\d\d)?\n"
                                        r"last: randwrite-4k, 3 threads: [\d,]+ IOPS", shown[0]), shown
    stored = pd.read_csv(tmp_path / "results" / "quick" / "points.csv")
    last = stored[(stored["phase"] == "sweep") & (stored["workload"] == "randwrite-4k") & (stored["threads"] == 3)]
    assert f"{last['iops'].iloc[0]:,.0f} IOPS" in shown[0]


def test_make_lab_serves_the_workbook(tmp_path):
    """`make lab` starts JupyterLab on the workbook, as root too (where Jupyter refuses to start
    without --allow-root): it opens notebooks/, and parameters/ is in its file browser, so a
    notebook's parameters_file (relative to the workbook root) is a file one can open beside it."""
    import signal
    import time
    import urllib.request

    from ssh_server import free_port

    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    port, token = free_port(), "flashpoc-make-lab"
    bin_dir = Path(sys.executable).parent  # the test's environment; -o: no reinstall of the venv
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(tmp_path / "config"), JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"),
               JUPYTERLAB_SETTINGS_DIR=str(tmp_path / "settings"), JUPYTER_DATA_DIR=str(tmp_path / "data"))
    env.pop("FLASHPOC_ROOT", None)  # the workbook is the one make runs in, as for a user
    log = tmp_path / "lab.log"
    # PARAMS= : the lab of no campaign (with one it opens the campaign's working copies: tests/cli/test_lab.py)
    lab = subprocess.Popen(["make", "-C", str(REPO), "-o", f"{bin_dir}/flashpoc", "lab", f"BIN={bin_dir}", "PARAMS=",
                            f"LAB_ARGS=--no-browser --ip=127.0.0.1 --port={port} --IdentityProvider.token={token} "
                            "--LabApp.news_url= --LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
                           stdin=subprocess.DEVNULL, stdout=log.open("w"), stderr=subprocess.STDOUT, env=env,
                           start_new_session=True)
    try:
        deadline, listing = time.monotonic() + 120, None
        while time.monotonic() < deadline and lab.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/contents?token={token}", timeout=5) as r:
                    listing = json.load(r)
                break
            except OSError:
                time.sleep(0.5)
        assert listing is not None, f"make lab did not serve (exit {lab.poll()}): {log.read_text()[-2000:]}"
        assert {"notebooks", "parameters"} <= {item["name"] for item in listing["content"]}

        class NoRedirect(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *args):
                return None

        opener = urllib.request.build_opener(NoRedirect)
        with pytest.raises(urllib.error.HTTPError) as moved:
            opener.open(f"http://127.0.0.1:{port}/?token={token}", timeout=10)
        assert moved.value.code == 302 and moved.value.headers["Location"].startswith("/lab/tree/notebooks")
    finally:
        os.killpg(lab.pid, signal.SIGTERM)
        try:
            lab.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(lab.pid, signal.SIGKILL)
            lab.wait()

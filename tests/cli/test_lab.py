"""``flashpoc lab``'s save hooks without a browser (tests/system/test_browser.py runs them in JupyterLab).

JupyterLab saves what a notebook holds into the file it was opened from: run from notebooks/, the
templates came back with outputs, execution counts and the kernel's metadata, and the campaign kept
no record. The pre-save hook must save a template exactly as committed whatever a run added to it
(generated here), and record the run with its campaign.
"""

from __future__ import annotations

import json
import shutil

import nbformat
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import REPO, quick_campaign
from flashpoc.cli.lab import lab_command, post_save, pre_save, stripped, working_copies
from flashpoc.cli.notebooks import NOTEBOOKS

TEMPLATES = {stem: json.loads((REPO / "notebooks" / f"{stem}.ipynb").read_text()) for stem in NOTEBOOKS}

outputs = st.lists(st.fixed_dictionaries({
    "output_type": st.just("stream"), "name": st.sampled_from(["stdout", "stderr"]),
    "text": st.text(max_size=40)}), max_size=3)


class Manager:
    """What a pre-save hook is handed of JupyterLab's ContentsManager: its root folder."""

    def __init__(self, root):
        self.root_dir = str(root)


@pytest.fixture
def workbook(tmp_path, monkeypatch):
    monkeypatch.delenv("FLASHPOC_ROOT", raising=False)
    monkeypatch.delenv("FLASHPOC_PARAMETERS", raising=False)
    shutil.copytree(REPO / "notebooks", tmp_path / "notebooks")
    (tmp_path / "parameters").mkdir()
    values = quick_campaign(tmp_path, campaign="labunit", results_dir="results")
    (tmp_path / "parameters" / "quick.yaml").write_text(yaml.safe_dump(values))
    monkeypatch.chdir(tmp_path)
    return tmp_path


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(stem=st.sampled_from(NOTEBOOKS), data=st.data())
def test_a_template_saved_after_any_run_is_as_committed(stem, data):
    """Outputs, execution counts, cell metadata and the kernel's language_info, whatever a run adds, are
    gone from the saved template; its cells' sources are kept."""
    ran = json.loads(json.dumps(TEMPLATES[stem]))
    for cell in ran["cells"]:
        if cell["cell_type"] == "code":
            cell["outputs"] = data.draw(outputs)
            cell["execution_count"] = data.draw(st.none() | st.integers(1, 99))
            cell["metadata"]["execution"] = {"iopub.status.idle": data.draw(st.text(max_size=10))}
    ran["metadata"]["language_info"] = {"name": "python", "version": data.draw(st.text(max_size=8))}
    assert nbformat.writes(nbformat.from_dict(stripped(ran))) + "\n" == (
        REPO / "notebooks" / f"{stem}.ipynb").read_text()


def test_pre_save_strips_the_template_and_records_the_run_with_its_campaign(workbook, monkeypatch):
    monkeypatch.setenv("FLASHPOC_PARAMETERS", str(workbook / "parameters" / "quick.yaml"))
    ran = json.loads(json.dumps(TEMPLATES["04_report"]))
    code = next(c for c in ran["cells"] if c["cell_type"] == "code" and "parameters" not in c["metadata"].get("tags", []))
    code["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "measured 41,833 IOPS\n"}]
    code["execution_count"] = 3
    model = {"type": "notebook", "content": ran}
    pre_save(model, "notebooks/04_report.ipynb", Manager(workbook))
    assert model["content"] == stripped(ran) and not any(c.get("outputs") for c in model["content"]["cells"])
    recorded = workbook / "results" / "labunit" / "notebooks" / "04_report.ipynb"
    assert "measured 41,833 IOPS" in recorded.read_text()
    assert "measured 41,833 IOPS" in recorded.with_suffix(".html").read_text()

    other = {"type": "notebook", "content": json.loads(json.dumps(ran))}  # a notebook of the user's own
    pre_save(other, "mine/04_report.ipynb", Manager(workbook))
    assert other["content"] == ran


def test_a_template_never_run_records_nothing(workbook):
    model = {"type": "notebook", "content": json.loads(json.dumps(TEMPLATES["01_environment_check"]))}
    pre_save(model, "notebooks/01_environment_check.ipynb", Manager(workbook))
    assert not (workbook / "results").exists()


def test_working_copies_name_the_file_and_lab_opens_the_first(workbook):
    folder = working_copies(workbook / "parameters" / "quick.yaml")
    assert folder == workbook / "results" / "labunit" / "notebooks"
    for stem in NOTEBOOKS:
        cells = json.loads((folder / f"{stem}.ipynb").read_text())["cells"]
        injected = [c for c in cells if "injected-parameters" in c["metadata"].get("tags", [])]
        assert len(injected) == 1 and "parameters_file = \"parameters/quick.yaml\"" in "".join(injected[0]["source"])
    (folder / "01_environment_check.ipynb").write_text("{}")  # a copy already there is the user's: kept
    command, env = lab_command(workbook, workbook / "parameters" / "quick.yaml", ["--port=9"])
    assert (folder / "01_environment_check.ipynb").read_text() == "{}"
    assert f"--ServerApp.root_dir={workbook}" in command and command[-1] == "--port=9"
    assert "--LabApp.default_url=/lab/tree/results/labunit/notebooks/01_environment_check.ipynb" in command
    assert env["FLASHPOC_PARAMETERS"] == str(workbook / "parameters" / "quick.yaml")

    post_save({"type": "notebook"}, str(folder / "01_environment_check.ipynb"), Manager(workbook))
    assert not (folder / "01_environment_check.html").exists()  # never run: no HTML

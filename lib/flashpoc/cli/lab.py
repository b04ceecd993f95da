"""``flashpoc lab``: JupyterLab on the workbook, the phase notebooks kept clean, an interactive run recorded.

JupyterLab saves what a notebook holds (its outputs, its edits) into the file it was opened from, and
autosaves every two minutes: run from notebooks/, the four templates came back modified and the campaign
kept no record of the run. ``flashpoc lab [FILE]`` starts JupyterLab so that neither happens:

- with a parameters file, each phase notebook has a working copy in the campaign's
  ``results/<campaign>/notebooks/`` (where a batch run writes its executed notebooks; one already there is
  opened as it is), naming the file (:func:`working_copies`); JupyterLab opens the first one, and saving
  one there is the campaign's record of it, its offline HTML written beside it (:func:`post_save`);
- JupyterLab saves a phase notebook of the workbook's notebooks/ through :func:`pre_save`: the template
  keeps its cells' sources (an edit of the template is a developer's, for git to show) but no output,
  execution count or run metadata, and the notebook as it was run, outputs and all, is recorded with its
  campaign (the one its parameters cell names, else the lab's file) as a batch run's is: ``.ipynb`` and
  ``.html`` in ``results/<campaign>/notebooks/``.

The kernels run with ``$FLASHPOC_ROOT`` (the workbook) and ``$FLASHPOC_PARAMETERS`` (the lab's file: a
parameters cell that names none runs it) set.
"""

from __future__ import annotations

import ast
import copy
import json
import logging
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from flashpoc.core.errors import FlashpocError, ParameterError
from flashpoc.params import PARAMETERS_ENV, PARAMETERS_FILE, campaign_from_parameters, find_workbook, load_campaign
from flashpoc.params import under_workbook, workbook_root
from flashpoc.present.notebook_html import export_notebook_html
from flashpoc.core.store import StoreError, write_atomic
from flashpoc.cli.notebooks import NOTEBOOKS, _notebook_dir

log = logging.getLogger(__name__)

#: the cells whose assignments are a notebook's parameters: its own and the ones papermill injects
PARAMETER_TAGS = ("parameters", "injected-parameters")
#: notebook metadata a template keeps (JupyterLab adds the kernel's full language_info when it runs it)
TEMPLATE_METADATA = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                     "language_info": {"name": "python"}}


def working_copies(params_file: Path) -> Path:
    """The campaign's notebooks folder (``results/<campaign>/notebooks/``) with a working copy of each
    phase notebook that has none there yet: the template with ``parameters_file`` set to ``params_file``
    (relative to the workbook root when under it) in a cell of its own after the parameters cell, as
    papermill injects it. Returns the folder.

    Raises:
        ParameterError: the parameters file is invalid (one line naming the key).
        FlashpocError: a copy cannot be written.
    """
    import nbformat
    from papermill.iorw import load_notebook_node
    from papermill.parameterize import parameterize_notebook

    cfg = load_campaign(params_file)
    folder = cfg.resolved().results_path() / "notebooks"
    name = under_workbook(Path(params_file).resolve(), workbook_root())
    for stem in NOTEBOOKS:
        copy_path = folder / f"{stem}.ipynb"
        if copy_path.exists():
            continue
        template = load_notebook_node(str(_notebook_dir() / f"{stem}.ipynb"))
        try:
            write_atomic(copy_path, nbformat.writes(parameterize_notebook(template, {PARAMETERS_FILE: name})))
        except StoreError as error:
            raise FlashpocError(f"lab: {error}") from None
    return folder


def _template(root: Path, path: str) -> str | None:
    """The phase notebook's name (``01_environment_check``) when ``path`` (a Jupyter path under ``root``) is
    one of the workbook's templates in notebooks/, else None."""
    file = (root / path).resolve()
    workbook = find_workbook(file.parent)
    if workbook is None or file.parent != workbook / "notebooks" or file.suffix != ".ipynb":
        return None
    return file.stem if file.stem in NOTEBOOKS else None


def notebook_parameters(notebook: dict[str, Any]) -> dict[str, Any]:
    """The values a notebook's parameters cells assign (literals only: what papermill and a user write there)."""
    values: dict[str, Any] = {}
    for cell in notebook.get("cells", []):
        if cell.get("cell_type") != "code" or not set(PARAMETER_TAGS) & set(cell.get("metadata", {}).get("tags", [])):
            continue
        source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                try:
                    values[node.targets[0].id] = ast.literal_eval(node.value)
                except ValueError:
                    continue
    return values


def stripped(notebook: dict[str, Any]) -> dict[str, Any]:
    """``notebook`` as a template is kept: every cell's source and tags, no output, execution count or other
    cell metadata, the notebook's metadata the templates' (:data:`TEMPLATE_METADATA`)."""
    clean = copy.deepcopy(notebook)
    for cell in clean.get("cells", []):
        tags = cell.get("metadata", {}).get("tags")
        cell["metadata"] = {"tags": tags} if tags else {}
        if cell.get("cell_type") == "code":
            cell["outputs"], cell["execution_count"] = [], None
    clean["metadata"] = copy.deepcopy(TEMPLATE_METADATA)
    return clean


def _was_run(notebook: dict[str, Any]) -> bool:
    return any(c.get("outputs") or c.get("execution_count") for c in notebook.get("cells", [])
               if c.get("cell_type") == "code")


def record_run(notebook: dict[str, Any], stem: str) -> Path | None:
    """Record a phase notebook run in JupyterLab with its campaign, as a batch run's executed notebook is:
    ``results/<campaign>/notebooks/<stem>.ipynb`` and its offline ``.html``, written atomically. The
    campaign is the one the notebook's parameters cells name (else ``$FLASHPOC_PARAMETERS``). Returns the
    notebook written; None when nothing was run or the notebook names no campaign.

    Raises:
        StoreError: a file cannot be written.
    """
    import nbformat

    if not _was_run(notebook):
        return None
    try:
        cfg = campaign_from_parameters(notebook_parameters(notebook))
    except ParameterError as error:
        log.warning("flashpoc: %s was run but names no campaign to record it with: %s", stem, error)
        return None
    target = cfg.resolved().results_path() / "notebooks" / f"{stem}.ipynb"
    text = nbformat.writes(nbformat.from_dict(notebook))
    if target.exists() and target.read_text(encoding="utf-8") == text:
        return target  # autosaved again unchanged: recorded already
    write_atomic(target, text)
    export_notebook_html(target, target.with_suffix(".html"))
    return target


def pre_save(model: dict[str, Any], path: str, contents_manager: Any, **_: Any) -> None:
    """JupyterLab's pre-save hook (``ContentsManager.pre_save_hook``): a phase notebook of the workbook's
    notebooks/ is recorded with its campaign (:func:`record_run`) and saved stripped (:func:`stripped`);
    any other file as it is."""
    if model.get("type") != "notebook" or not model.get("content"):
        return
    stem = _template(Path(contents_manager.root_dir), path)
    if stem is None:
        return
    ran = model["content"]
    model["content"] = stripped(ran)  # first: whatever the recording meets, the template stays clean
    try:
        record_run(ran, stem)
    except Exception as error:  # noqa: BLE001 - the save goes on (JupyterLab's own rule for its hooks), logged
        log.error("flashpoc: the run of %s could not be recorded: %s", path, error)


def post_save(model: dict[str, Any], os_path: str, contents_manager: Any) -> None:
    """JupyterLab's post-save hook: a phase notebook saved in a campaign's notebooks folder (a working copy,
    or a batch run's executed notebook run again) gets its offline HTML beside it, as a batch run's has."""
    path = Path(os_path)
    if model.get("type") != "notebook" or path.stem not in NOTEBOOKS or path.parent.name != "notebooks":
        return
    if _template(path.parent, path.name) is not None:
        return  # the workbook's own notebooks/: saved stripped, recorded by pre_save
    if _was_run(json.loads(path.read_text(encoding="utf-8"))):
        export_notebook_html(path, path.with_suffix(".html"))


def lab_command(root: Path, params_file: Path | None, jupyter_args: list[str]) -> tuple[list[str], dict[str, str]]:
    """The JupyterLab command line and environment of ``flashpoc lab``: the workbook root served (or the
    campaign's folder, when its results lie outside it), the first working copy opened, the save hooks set."""
    env = {**os.environ, "FLASHPOC_ROOT": str(root)}
    served, opened = root, "notebooks"
    if params_file is not None:
        env[PARAMETERS_ENV] = str(Path(params_file).resolve())
        folder = working_copies(params_file)
        if not folder.resolve().is_relative_to(root):
            served = folder.parent
        opened = f"{folder.resolve().relative_to(served).as_posix()}/{NOTEBOOKS[0]}.ipynb"
    command = [sys.executable, "-m", "jupyter", "lab", f"--ServerApp.root_dir={served}",
               f"--LabApp.default_url=/lab/tree/{opened}",
               "--ContentsManager.pre_save_hook=flashpoc.cli.lab.pre_save",
               "--ContentsManager.post_save_hook=flashpoc.cli.lab.post_save",
               *(["--allow-root"] if os.geteuid() == 0 else []), *jupyter_args]
    return command, env


def run_lab(root: Path, params_file: Path | None, jupyter_args: list[str]) -> int:
    """Start JupyterLab (:func:`lab_command`) and wait for it. Ctrl-C is JupyterLab's to answer (the
    terminal sends it to both); a SIGTERM or SIGHUP sent to this command alone is passed on to
    JupyterLab, which stops its kernels and ends: before, it went on serving with no parent."""
    command, env = lab_command(root, params_file, jupyter_args)
    lab = subprocess.Popen(command, env=env, cwd=root)

    def pass_on(signum, _frame) -> None:
        lab.send_signal(signum)

    handlers = {signal.SIGINT: signal.SIG_IGN, signal.SIGTERM: pass_on, signal.SIGHUP: pass_on}
    previous = {signum: signal.signal(signum, handler) for signum, handler in handlers.items()}
    try:
        return lab.wait()
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)

"""The live view of a sweep in a real JupyterLab (the browser test's JupyterLab and Debian's chromium,
:mod:`test_browser`): notebook 03 runs a small real fio sweep with "Run All Cells"; the view's curve
gains points while it runs, its stop button stops the sweep before its next point, the points
done stay stored, and the executed notebook keeps the curve as a static SVG. Screenshots go to the
test's temporary directory."""

from __future__ import annotations

import json
import re
import shutil
import time

import pytest

from conftest import REPO, quick_campaign, require_fio
from test_browser import browser, lab  # noqa: F401  (fixtures: JupyterLab, chromium)

PLAN = {"plan": "guide", "max_threads": 6, "step": 1}  # 2 workloads x 6 counts: 12 points of 4 s


@pytest.fixture
def workbook(tmp_path, monkeypatch):
    """A workbook root with a checked campaign and notebook 03 parameterized for it."""
    require_fio()
    import papermill
    import yaml

    from flashpoc import phases
    from flashpoc.params import campaign_from_dict, notebook_parameters

    monkeypatch.setenv("FLASHPOC_ROOT", str(tmp_path))
    shutil.copytree(REPO / "notebooks", tmp_path / "notebooks")
    values = quick_campaign(tmp_path, campaign="live", fio={"runtime_s": 4, "ramp_s": 0}, sweep=PLAN)
    (tmp_path / "live.yaml").write_text(yaml.safe_dump(values))
    phases.run_check(campaign_from_dict(values))
    book = tmp_path / "notebooks" / "03_thread_sweep.ipynb"
    nb = papermill.parameterize.parameterize_notebook(papermill.iorw.load_notebook_node(str(book)),
                                                      notebook_parameters(values, tmp_path / "live.yaml"))
    papermill.iorw.write_ipynb(nb, str(book))
    return tmp_path


def _status(page) -> str:
    """The view's status text, "" once the view is gone (it goes when the sweep ends)."""
    texts = page.locator(".flashpoc-live .flashpoc-live-status").all_inner_texts()
    return texts[0] if texts else ""


def _done(status: str) -> int:
    match = re.search(r"(\d+) of (\d+) points", status)
    return int(match.group(1)) if match else -1


def _wait(page, what, seconds: float, tmp_path, name: str):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = what()
        if found:
            return found
        page.wait_for_timeout(500)
    page.screenshot(path=str(tmp_path / f"{name}.png"), full_page=True)
    pytest.fail(f"{name}: not within {seconds:g} s; the view says {_status(page)!r}")


def test_live_view_grows_and_stops_in_jupyterlab(lab, browser, workbook, tmp_path):
    base, token = lab
    page = browser.new_page(viewport={"width": 1500, "height": 1100})
    page.goto(f"{base}/lab/tree/notebooks/03_thread_sweep.ipynb?token={token}")
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=180_000)
    statusbar = page.locator("#jp-main-statusbar")
    _wait(page, lambda: re.search(r"Python 3 \(ipykernel\) \| Idle", statusbar.inner_text()), 300, tmp_path,
          "kernel-idle")
    page.locator(".jp-Notebook .jp-Cell").first.click()
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()

    # the curve gains points while the sweep runs
    first = _wait(page, lambda: _done(_status(page)) >= 1 and page.locator(".flashpoc-live .vega-embed").count(),
                  300, tmp_path, "first-point")
    assert first
    one = _done(_status(page))
    page.locator(".flashpoc-live").first.screenshot(path=str(tmp_path / "live-first.png"))
    _wait(page, lambda: _done(_status(page)) >= one + 2, 120, tmp_path, "more-points")
    # fio's seconds as they come, each with its latency, in the running point's chart
    status = _wait(page, lambda: (lambda s: s if "latest interval" in s and "latency" in s else "")(_status(page)), 60,
                   tmp_path, "latest-interval")
    assert re.search(r"latest interval: \d+ s: IOPS [\d,]+, Mean latency \(ms\) \d+\.\d{3}, "
                     r"Throughput \(MiB/s\) [\d,]+", status), status
    page.locator(".flashpoc-live").first.screenshot(path=str(tmp_path / "live-more.png"))
    assert page.locator(".flashpoc-live .vega-embed").count() == 2  # the curves and the running point's intervals

    # the stop button: the running point ends and is stored, none begins after it
    before = _done(_status(page))  # points done when the button is pressed: the next one runs
    page.locator(".flashpoc-live button", has_text="Stop after this point").click()
    _wait(page, lambda: "stop requested" in _status(page) or not page.locator(".flashpoc-live").count(), 30,
          tmp_path, "stop-requested")
    _wait(page, lambda: page.locator(".flashpoc-live").count() == 0, 120, tmp_path, "stopped")
    # then the finished curve (its SVG rendered in the kernel) and the stop, as the cell's error
    shown = _wait(page, lambda: (lambda t: t if "stopped with the stop button" in t else "")(
        " ".join(page.locator(".jp-OutputArea-output").all_inner_texts())), 120, tmp_path, "stopped-error")
    assert "Stopped: sweep: stopped with the stop button" in shown and "Traceback" not in shown  # its message only
    page.wait_for_timeout(1000)
    page.screenshot(path=str(tmp_path / "after-stop.png"), full_page=True)
    stored = list((workbook / "results" / "live" / "points" / "sweep").glob("*/point.json"))
    assert before + 1 <= len(stored) <= before + 2 < 12  # the running point kept, nothing after it

    # the executed notebook keeps the final state: the progress as text, the curve as SVG
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^File$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Save Notebook$")).click()
    page.wait_for_function("() => !document.querySelector('.lm-TabBar-tab.jp-mod-dirty')", timeout=30_000)
    saved = json.loads((workbook / "notebooks" / "03_thread_sweep.ipynb").read_text())
    outputs = [o for c in saved["cells"] for o in c.get("outputs", [])]
    svgs = ["".join(o["data"]["image/svg+xml"]) for o in outputs if "image/svg+xml" in o.get("data", {})]
    assert any(">Latency vs load</text>" in svg and f">sweep: {len(stored)} points in " in svg for svg in svgs)
    assert any(f"{len(stored)} points" in "".join(o.get("data", {}).get("text/plain", "")) for o in outputs)

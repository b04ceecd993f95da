"""The report a customer receives, from a real fio campaign on a scratch file: its JSON files,
its colours, its tables and its layout in Debian's chromium at a 992 px page, and its PDF.

One campaign (three workloads of the three kinds a POC runs: small-block random reads, an
8K OLTP mix, 128K sequential reads) is measured once for the module with real fio (2 s points
with 1 s intervals) and reported once; the tests read what that report wrote. Screenshots of
the page go to the test's temporary directory.
"""

from __future__ import annotations

import json
import re
import shutil
from html import escape as html_escape

import pandas as pd
import pytest

from conftest import quick_campaign, require_fio
from documents import chart_text_pt_in_print, pdf_problems, summary_problems

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
WORKLOADS = [{"name": "4k-randread", "rw": "randread", "bs": "4k"},
             {"name": "8k-oltp", "rw": "randrw", "bs": "8k", "rwmixread": 80},
             {"name": "128k-seqread", "rw": "read", "bs": "128k"}]


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    """(Report, campaign folder) of a measured three-workload campaign, its report written."""
    require_fio()
    from flashpoc import phases
    from flashpoc.params import campaign_from_dict

    root = tmp_path_factory.mktemp("document")
    values = quick_campaign(root, campaign="doc", description="libaio on a scratch file",
                            fio={"runtime_s": 2, "ramp_s": 0, "ioengine": "libaio", "interval_s": 1},
                            workloads=WORKLOADS, probe={"strategy": "linear", "min_threads": 1, "max_threads": 2,
                                                        "step": 1})
    cfg = campaign_from_dict(values)
    phases.run_check(cfg)
    phases.run_probe(cfg, progress=False)
    phases.run_sweep(cfg, {w.name: [1, 2] for w in cfg.workloads}, progress=False)
    report = phases.build_report(cfg, pdf=CHROMIUM is not None)
    return report, root / "results" / "doc"


def _strict(text: str):
    def refuse(name):
        raise ValueError(f"{name} is not JSON")
    return json.loads(text, parse_constant=refuse)


def _colour_scales(node, found):
    """Every colour encoding's (field, domain, range) anywhere in a spec."""
    if isinstance(node, dict):
        color = node.get("color")
        if isinstance(color, dict) and "scale" in color and "field" in color:
            found.append((color["field"], color["scale"].get("domain"), color["scale"].get("range")))
        for value in node.values():
            _colour_scales(value, found)
    elif isinstance(node, list):
        for value in node:
            _colour_scales(value, found)
    return found


def test_every_json_file_is_strict_and_every_chart_colours_a_workload_alike(campaign):
    """No NaN or Infinity in any JSON file of the report (interval_series.vl.json had NaN), and a
    workload has the same colour in every chart: the domain is the campaign's workloads in the
    order of its parameters, even in charts that show only some of them."""
    from flashpoc.present.chart import PALETTE

    report, root = campaign
    files = sorted((root / "report").glob("*.json"))
    assert {p.name for p in files} >= {"hockey_stick.vl.json", "interval_series.vl.json",
                                       "latency_histogram.vl.json", "latency_percentiles.vl.json"}
    names = [w["name"] for w in WORKLOADS]
    for path in files:
        spec = _strict(path.read_text())  # raises on NaN / Infinity
        scales = [s for s in _colour_scales(spec, []) if s[0] == "workload"]
        if path.name != "probe_curve.vl.json":
            assert scales, path.name
        for field, domain, colours in scales:
            assert domain == names and colours == list(PALETTE), path.name
    assert report.domain == names


def test_tables_read_like_a_report_with_the_measured_numbers(campaign):
    """Human headers with units, thousands separators, no machine names; the numbers those of
    summary.csv (which keeps the machine names), to their printed precision."""
    report, root = campaign
    csv = pd.read_csv(root / "report" / "summary.csv")
    results = report.sections[0].items[2]
    headers = list(results.frame.columns)
    assert headers[:3] == ["Workload", "Max IOPS", "MiB/s at max"] and "Caveats" in headers
    assert not [h for h in headers if "_" in h]
    assert [w.split("\n")[0] for w in results.frame["Workload"]] == [w["name"] for w in WORKLOADS]
    for row, (_, r) in zip(results.frame.to_dict("records"), csv.iterrows()):
        assert row["Max IOPS"].split("\n")[0] == f"{r['max_iops']:,.0f}"
        assert row["Mean latency at max (ms)"] == f"{r['max_iops_lat_mean_ms']:.3f}"
    html = (root / "report" / "report.html").read_text()
    assert "max_iops_lat_mean_ms" not in html and "slo_status" not in html
    # the files table: paths relative to the campaign folder, a chart's three files in one row
    files = next(s for s in report.sections if s.heading == "Appendix B: files").items[1].frame
    assert "report/hockey_stick.svg, .png, .vl.json" in list(files["File"])
    assert not [f for f in files["File"] if f.startswith("/")]


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")
def test_the_page_at_992_px_and_its_pdf(campaign, tmp_path):
    """In chromium at a 992 px viewport: the executive summary first, with the key results and
    verdicts above any chart; every chart drawn; no table or chart wider than the page. The PDF
    is a real multi-page PDF next to report.html."""
    from playwright.sync_api import sync_playwright

    report, root = campaign
    page_file = root / "report" / "report.html"
    with sync_playwright() as play:
        browser = play.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 992, "height": 1200})
            page.goto(page_file.as_uri())
            page.wait_for_load_state("load")
            width = page.evaluate("document.documentElement.clientWidth")
            wide = page.evaluate("""(w) => [...document.querySelectorAll('table, figure, svg, blockquote, p')]
                .filter(e => e.getBoundingClientRect().right > w + 0.5)
                .map(e => e.tagName + ' ' + Math.round(e.getBoundingClientRect().width))""", width)
            assert wide == [], wide
            headings = page.evaluate("[...document.querySelectorAll('h2')].map(h => h.innerText)")
            assert headings[:3] == ["Executive summary", "Test conditions", "Method"]
            order = page.evaluate("""() => {
                const key = document.querySelector('blockquote'), chart = document.querySelector('figure.chart');
                return [key.innerText, key.getBoundingClientRect().top, chart.getBoundingClientRect().top]; }""")
            assert "The answers" in order[0] and "Saturation probe" in order[0] and order[1] < order[2]
            drawn = page.evaluate("""() => new Set([...document.querySelectorAll('figure.chart svg')]
                .filter(s => s.getBoundingClientRect().width > 150 && s.getBoundingClientRect().height > 100
                             && s.querySelectorAll('path, line, rect').length > 10)
                .map(s => s.parentElement.dataset.chart)).size""")  # a chart printed in parts counts once
            assert drawn == len(report.charts) and drawn >= 6
            height = page.evaluate("document.body.scrollHeight")
            for n, top in enumerate(range(0, height, 2400)):
                page.screenshot(path=str(tmp_path / f"report-{n}.png"), full_page=True,
                                clip={"x": 0, "y": top, "width": width, "height": min(2400, height - top)})
        finally:
            browser.close()
    pdf = (root / "report" / "report.pdf").read_bytes()
    assert pdf.startswith(b"%PDF") and len(re.findall(rb"/Type\s*/Page[^s]", pdf)) >= 4
    assert report.files["report.pdf"] == root / "report" / "report.pdf"


def test_the_executive_summary_is_what_a_manager_repeats(campaign):
    """Issue 30, item 10: the answers first, one sentence per workload, at most 150 words, no parameter's
    name, the probe answered once. It held the probe's whole account (its fit, "raise probe.max_threads",
    the sweep's reach) and the hosts-or-array verdict's suggestion."""
    report, _ = campaign
    (summary,) = [s for s in report.sections if s.key == "summary"]
    assert summary_problems(summary.items) == [], summary.items[:2]
    answers = summary.items[0]
    assert answers.startswith("> **The answers**")
    for workload in ("4k-randread", "8k-oltp", "128k-seqread"):
        assert answers.count(f"**{workload}**") == 1
    row = report.summary.set_index("workload").loc["4k-randread"]
    assert f"{row['max_iops']:,.0f} IOPS" in answers  # the number measured, as the table prints it


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")
def test_the_pdf_reads_on_paper(campaign):
    """Issue 30, item 11: every page numbered, no heading alone at a page's foot, page 1 full, and no
    chart scaled on the page until its text is under 8 pt (the histogram's stacked panels printed at
    about 4 pt, the facet rows at 7.3 pt)."""
    pytest.importorskip("pypdf", reason="pypdf (the test extras) reads the PDF's text")
    from playwright.sync_api import sync_playwright

    report, root = campaign
    headings = [s.heading for s in report.sections] + ["Against the baseline", "Key results"]
    assert pdf_problems(root / "report" / "report.pdf", headings) == []
    with sync_playwright() as play:
        browser = play.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page()
            page.goto((root / "report" / "report.html").as_uri())
            sizes = chart_text_pt_in_print(page)
        finally:
            browser.close()
    assert len(sizes) >= len(report.charts) and min(sizes) >= 8.0, sizes


def test_report_pdf_false_prints_none_and_removes_an_earlier_one(campaign, tmp_path, monkeypatch):
    """``report: {pdf: false}``: no Chromium is started (one that fails would be named), the
    report.pdf of an earlier build is removed (it would not match report.html), and the report's
    files table says why there is none."""
    from flashpoc import phases
    from flashpoc.params import campaign_from_dict
    from flashpoc.present.reporting import PDF_OFF_NOTE

    _, root = campaign
    if not (root / "report" / "report.pdf").exists():
        pytest.skip("Debian's chromium is not installed: no earlier PDF to remove")
    shutil.copytree(root, tmp_path / "results" / "doc")
    params = json.loads((root / "manifest.json").read_text())["params"]
    params.update(results_dir=str(tmp_path / "results"), report={**params["report"], "pdf": False})
    monkeypatch.setenv("FLASHPOC_CHROMIUM", "/bin/false")
    report = phases.build_report(campaign_from_dict(params))
    out = tmp_path / "results" / "doc" / "report"
    assert not (out / "report.pdf").exists() and "report.pdf" not in report.files
    html = (out / "report.html").read_text()
    assert f"Not written: {PDF_OFF_NOTE}." in html or f"Not written: {html_escape(PDF_OFF_NOTE)}." in html

"""Report files: chart SVG/PNG/JSON, the standalone HTML report, the offline notebook export."""

from __future__ import annotations

import json
import re
from pathlib import Path

import altair as alt
import nbformat
import pandas as pd
import pytest

from flashpoc.present import chart, notebook_html, report
from flashpoc.core.errors import ParameterError

#: Any http(s) URL in a src= or href= attribute (the strict check: not even hyperlinks).
EXTERNAL_ATTR = re.compile(r"""\b(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", re.IGNORECASE)
#: A script or stylesheet loaded from a URL.
EXTERNAL_SCRIPT_OR_CSS = re.compile(
    r"""<script\b[^>]*\bsrc\s*=\s*["']?\s*(?:https?:)?//|<link\b[^>]*\bhref\s*=\s*["']?\s*(?:https?:)?//""",
    re.IGNORECASE,
)


@pytest.fixture(autouse=True)
def _restore_altair_state():
    theme, renderer = alt.theme.active, alt.renderers.active
    yield
    alt.theme.enable(theme)
    alt.renderers.enable(renderer)


@pytest.fixture
def points() -> pd.DataFrame:
    return pd.DataFrame({
        "workload": ["randread-8k"] * 3 + ["randwrite-8k"] * 3,
        "threads": [1, 2, 4] * 2,
        "iops": [12345.0, 23456.0, 30123.0, 5000.0, 9000.0, 11000.0],
        "lat_mean_ms": [0.081, 0.085, 0.133, 0.2, 0.222, 0.364],
    })


def test_save_chart_writes_svg_png_and_spec(tmp_path, points):
    paths = report.save_chart(chart.hockey_stick(points, slo_ms=0.5), tmp_path / "charts", "hockey_stick")
    assert paths == {
        "svg": tmp_path / "charts" / "hockey_stick.svg",
        "png": tmp_path / "charts" / "hockey_stick.png",
        "json": tmp_path / "charts" / "hockey_stick.vl.json",
    }
    svg = paths["svg"].read_text()
    assert svg.lstrip().startswith(("<svg", "<?xml"))
    assert "Mean latency (ms)" in svg and "SLO 0.5 ms" in svg
    png = paths["png"].read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 1000
    spec = json.loads(paths["json"].read_text())
    assert spec["$schema"].endswith(".json") and spec["layer"][0]["mark"]["type"] == "line"


def test_save_chart_refuses_a_path_as_name(tmp_path, points):
    with pytest.raises(ParameterError, match="name"):
        report.save_chart(chart.hockey_stick(points), tmp_path, "../escape")


def test_write_html_report_is_standalone(tmp_path, points):
    sections = [
        ("Summary", ["**Max IOPS** reached at `4` threads.\n\nSecond paragraph [docs](https://example.com).",
                     points]),
        ("Charts", [chart.hockey_stick(points, slo_ms=1), chart.probe_curve(points, saturation_threads=2)]),
    ]
    path = report.write_html_report(tmp_path / "out" / "report.html", "POC <report>", sections)
    page = path.read_text()
    assert page.startswith("<!DOCTYPE html>")
    assert "<title>POC &lt;report&gt;</title>" in page
    assert page.count("<svg") == 2 and "Mean latency (ms)" in page
    assert "<table" in page and "randwrite-8k" in page and "12,345" in page and "0.364" in page
    assert "<strong>Max IOPS</strong>" in page and "<code>4</code>" in page
    assert "docs (https://example.com)" in page  # printed, not linked
    assert not EXTERNAL_ATTR.search(page)
    assert "<script" not in page and "<link" not in page
    ids = re.findall(r'\bid="([^"]+)"', page)
    assert len(ids) == len(set(ids))  # inline SVGs do not share clip-path ids


def test_write_html_report_rejects_unknown_items(tmp_path):
    with pytest.raises(ParameterError, match=r"sections\[0\]\.items\[1\]"):
        report.write_html_report(tmp_path / "r.html", "t", [("A", ["text", 42])])


def test_namespace_svg_ids_rewrites_ids_and_references():
    svg = '<svg><clipPath id="clip1"/><g clip-path="url(#clip1)"/><use xlink:href="#clip1"/><a href="#other"/></svg>'
    out = report.namespace_svg_ids(svg, "x-")
    assert out == ('<svg><clipPath id="x-clip1"/><g clip-path="url(#x-clip1)"/><use xlink:href="#x-clip1"/>'
                   '<a href="#other"/></svg>')


def test_find_external_resources_lists_loaded_urls_not_links():
    page = """<a href="https://example.com">doc</a>
    <script src="https://cdnjs.cloudflare.com/require.js"></script>
    <link rel="stylesheet" href="//cdn.example.org/x.css">
    <img src="data:image/png;base64,AAAA">
    <script>paths = {"vega": "https://cdn.jsdelivr.net/npm/vega@6?noext"};</script>
    <style>@import "https://fonts.example.net/f.css"; .a { background: url(https://x.example/b.png) }</style>"""
    assert report.find_external_resources(page) == [
        "https://cdnjs.cloudflare.com/require.js",
        "//cdn.example.org/x.css",
        "https://x.example/b.png",
        "https://fonts.example.net/f.css",
        "https://cdn.jsdelivr.net/npm/vega@6?noext",
    ]


def _display(data: dict, metadata: dict | None = None) -> nbformat.NotebookNode:
    return nbformat.v4.new_output("display_data", data=data, metadata=metadata or {})


def test_offline_preprocessor_keeps_images_and_drops_frontend_outputs():
    svg = '<?xml version="1.0"?><svg><clipPath id="clip1"/></svg>'
    nb = nbformat.v4.new_notebook(metadata={"widgets": {"application/vnd.jupyter.widget-state+json": {}}})
    cell = nbformat.v4.new_code_cell("x")
    cell.outputs = [
        _display({"image/svg+xml": svg, chart.VEGALITE_MIME_TYPE: {"mark": "point"}, "text/plain": "<Chart>"},
                 {chart.VEGALITE_MIME_TYPE: {"embed_options": {}}}),
        _display({"application/vnd.jupyter.widget-view+json": {"model_id": "m", "version_major": 2,
                                                                "version_minor": 0},
                  "text/plain": "0%|"}),
        _display({"text/html": "<div id='v'></div><script>load('https://cdn.jsdelivr.net/npm/vega@6')</script>",
                  "image/png": "iVBORw0KGgo="}),
        _display({"text/html": "<table><tr><td>1</td></tr></table>", "text/plain": "1"}),
    ]
    nb.cells = [cell]
    nb, _ = notebook_html.OfflineOutputsPreprocessor().preprocess(nb, {})
    outputs = nb.cells[0].outputs
    assert "widgets" not in nb.metadata
    assert set(outputs[0].data) == {"image/svg+xml", "text/plain"} and outputs[0].metadata == {}
    assert outputs[0].data["image/svg+xml"] == '<svg><clipPath id="c0-0-clip1"/></svg>'
    assert set(outputs[1].data) == {"text/plain"}
    assert set(outputs[2].data) == {"image/png"}
    assert set(outputs[3].data) == {"text/html", "text/plain"}


def test_export_refuses_an_altair_cdn_chart(tmp_path):
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("chart")
    cell.outputs = [nbformat.v4.new_output("execute_result", execution_count=1, data={
        "text/html": '<div id="vis"></div><script>var paths = {"vega": "https://cdn.jsdelivr.net/npm/vega@6"};</script>'
    })]
    nb.cells = [cell]
    nbformat.write(nb, tmp_path / "cdn.ipynb")
    with pytest.raises(notebook_html.OfflineExportError, match=r"cdn\.jsdelivr\.net.*enable_offline_renderer"):
        notebook_html.export_notebook_html(tmp_path / "cdn.ipynb", tmp_path / "cdn.html")
    assert not (tmp_path / "cdn.html").exists()


def _python3_kernel() -> None:
    pytest.importorskip("nbclient")
    from jupyter_client.kernelspec import find_kernel_specs

    if "python3" not in find_kernel_specs():
        pytest.skip("no python3 kernelspec: python -m ipykernel install --sys-prefix")


def test_export_notebook_html_is_offline_with_inline_svg(tmp_path):
    _python3_kernel()
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Offline export\n\nMath $x^2$ and a [link](https://example.com)."),
        nbformat.v4.new_code_cell(
            "import altair as alt\n"
            "import pandas as pd\n"
            "import flashpoc.present.chart\n"
            "flashpoc.present.chart.use_theme()\n"
            "flashpoc.present.chart.enable_offline_renderer()\n"
            "df = pd.DataFrame({'workload': ['r', 'r', 'w', 'w'], 'threads': [1, 2, 1, 2],\n"
            "                   'iops': [1000.0, 1800.0, 800.0, 1200.0], 'lat_mean_ms': [0.2, 0.3, 0.4, 0.6]})\n"
            "df"
        ),
        nbformat.v4.new_code_cell("flashpoc.present.chart.hockey_stick(df, slo_ms=1)"),
        nbformat.v4.new_code_cell("alt.Chart(df).mark_bar().encode(x='workload:N', y='sum(iops):Q')"),
    ]
    NotebookClient(nb, timeout=60, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    chart_output = nb.cells[2].outputs[0]
    assert {"image/svg+xml", chart.VEGALITE_MIME_TYPE} <= set(chart_output.data)
    nbformat.write(nb, tmp_path / "executed.ipynb")

    path = notebook_html.export_notebook_html(tmp_path / "executed.ipynb", tmp_path / "html" / "executed.html")
    page = Path(path).read_text()
    assert page.count("<svg") == 2 and "Mean latency (ms)" in page and "SLO 1 ms" in page
    assert page.count("jp-Editor jp-InputArea-editor") == 3  # the code cells' inputs stay
    assert "enable_offline_renderer" in page
    assert "<table" in page  # the DataFrame output
    assert not EXTERNAL_SCRIPT_OR_CSS.search(page)
    assert report.find_external_resources(page) == []
    assert not any("https" in src for src in re.findall(r"""\bsrc\s*=\s*["']([^"']*)""", page))
    assert "require.min.js" not in page and "MathJax" not in page and "mermaid.esm" not in page
    assert "application/vnd.vegalite" not in page
    # the process's one exporter (templates compiled once) gives the page a new exporter gives
    reused = notebook_html.export_notebook_html(tmp_path / "executed.ipynb", tmp_path / "reused.html").read_text()
    notebook_html._exporter.cache_clear()
    fresh = notebook_html.export_notebook_html(tmp_path / "executed.ipynb", tmp_path / "fresh.html").read_text()
    assert reused == fresh == page


def test_print_pdf_says_why_there_is_no_pdf(tmp_path, monkeypatch):
    """No Chromium, or one that prints nothing: one clear ReportError, and no PDF file left behind."""
    from flashpoc.core.errors import ReportError

    page = report.write_html_report(tmp_path / "r.html", "t", [("S", ["text"])])
    monkeypatch.setenv("FLASHPOC_CHROMIUM", str(tmp_path / "no-such-browser"))
    assert report.find_browser() is None
    with pytest.raises(ReportError, match="no Chromium found to print it"):
        report.print_pdf(page, tmp_path / "r.pdf")
    with pytest.raises(ReportError, match=r"/bin/false exited with 1 and printed no PDF"):
        report.print_pdf(page, tmp_path / "r.pdf", browser="/bin/false")
    assert not (tmp_path / "r.pdf").exists()


def test_page_text_lists_headings_and_quotes(tmp_path):
    """The report's Markdown: numbered and bullet lists after a paragraph, sub-headings, highlighted blocks."""
    page = report.write_html_report(tmp_path / "r.html", "t", [("S", [
        "Intro line\n- one\n- two\n\n1. first\n2. second\n\n### Sub\n\n> **Key**\n>\n> - a"])]).read_text()
    assert "<p>Intro line</p>\n<ul><li>one</li><li>two</li></ul>" in page
    assert "<ol><li>first</li><li>second</li></ol>" in page and "<h3>Sub</h3>" in page
    assert "<blockquote><p><strong>Key</strong></p>\n<ul><li>a</li></ul></blockquote>" in page


def test_a_chart_is_made_once_for_its_files_and_report_html(tmp_path, points, monkeypatch):
    """The report saves each chart (SVG, PNG, spec) and then draws it in report.html: its spec is
    made once (Altair's to_dict, with the data, was made again for the page), and the page's figure
    is the saved SVG; a new chart of the same data is made anew."""
    made = []
    original = alt.LayerChart.to_dict

    def counted(self, *args, **kwargs):
        made.append(id(self))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(alt.LayerChart, "to_dict", counted)
    figure = chart.hockey_stick(points, slo_ms=0.5)
    paths = report.save_chart(figure, tmp_path, "hockey_stick")
    page = report.write_html_report(tmp_path / "report.html", "POC", [("Charts", [figure])]).read_text()
    assert made.count(id(figure)) == 1
    saved = report.namespace_svg_ids(report.strip_xml_prolog(paths["svg"].read_text()), "s1-0-")
    assert saved in page
    again = chart.hockey_stick(points, slo_ms=0.5)
    report.save_chart(again, tmp_path, "again")
    assert made.count(id(again)) == 1 and len(made) == 2

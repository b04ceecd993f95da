"""Offline HTML of an executed notebook: nbconvert's ``lab`` template minus its CDN scripts
(require.js, MathJax, mermaid, widgets), outputs made static, charts as inline SVG.

One exporter serves every export of a process (its templates compiled once: ``flashpoc run``
exports each phase's notebook)."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import nbformat
from nbconvert import HTMLExporter
from nbconvert.preprocessors import Preprocessor

from flashpoc.core.errors import OfflineExportError
from flashpoc.core.store import write_atomic
from flashpoc.present.report import find_external_resources, namespace_svg_ids, strip_xml_prolog

#: The lab template minus every CDN script; SVG outputs written inline (not as <img>).
OFFLINE_LAB_TEMPLATE = """\
{%- extends 'index.html.j2' -%}
{%- block html_head_js_requirejs -%}{%- endblock html_head_js_requirejs -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{% block data_svg scoped -%}
<div class="jp-RenderedSVG jp-OutputArea-output {{ extra_class }}" data-mime-type="image/svg+xml">
{{ output.data['image/svg+xml'] }}
</div>
{%- endblock data_svg %}
"""

def _needs_frontend(mime: str) -> bool:
    """Mimetypes a static page can never show: they need a live Jupyter frontend."""
    return mime.startswith(("application/vnd.vegalite", "application/vnd.vega.")) or mime in (
        "application/vnd.jupyter.widget-view+json",
        "application/vnd.jupyter.widget-state+json",
    )


def _is_scripted(mime: str, value: Any) -> bool:
    """Outputs that run JavaScript (which, for altair/plotly/widgets, loads from a CDN)."""
    if mime == "application/javascript":
        return True
    return mime == "text/html" and "<script" in "".join(value).lower()


class OfflineOutputsPreprocessor(Preprocessor):
    """Make outputs static: keep images, drop what needs a frontend or JavaScript.

    Per display/execute_result output: Vega/Vega-Lite and widget-view data are dropped (their
    text/plain or image twin stays); JavaScript and script-bearing HTML are dropped when any
    other representation remains. SVG loses its XML prolog and gets ids unique in the page.
    Notebook-level widget state is dropped (it would pull the widget manager from unpkg).
    """

    def preprocess(self, nb: nbformat.NotebookNode, resources: dict) -> tuple[nbformat.NotebookNode, dict]:
        nb.metadata.pop("widgets", None)
        for i, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            for j, output in enumerate(cell.get("outputs", [])):
                if output.get("output_type") in ("display_data", "execute_result"):
                    _clean_output(output, prefix=f"c{i}-{j}-")
        return nb, resources


def _clean_output(output: nbformat.NotebookNode, *, prefix: str) -> None:
    data = output.get("data", {})
    for mime in [m for m in data if _needs_frontend(m)]:
        del data[mime]
    scripted = [m for m in data if _is_scripted(m, data[m])]
    if len(data) > len(scripted):
        for mime in scripted:
            del data[mime]
    for mime in [m for m in output.get("metadata", {}) if m not in data and "/" in m]:
        del output["metadata"][mime]
    if "image/svg+xml" in data:
        svg = "".join(data["image/svg+xml"])
        data["image/svg+xml"] = namespace_svg_ids(strip_xml_prolog(svg), prefix)


def export_notebook_html(ipynb_path: str | Path, html_path: str | Path) -> Path:
    """Export an executed notebook to HTML that opens offline; return the HTML path.

    nbconvert's ``lab`` template, with the require.js, MathJax, mermaid and widget-manager
    scripts removed (see :data:`OFFLINE_LAB_TEMPLATE`), outputs made static by
    :class:`OfflineOutputsPreprocessor`, SVG inline, markdown images embedded. Input cells
    stay. LaTeX in markdown shows as source (no MathJax offline). Outputs are written
    unsanitised, as nbconvert does: export only notebooks you executed yourself.

    Raises :class:`OfflineExportError` (and writes nothing) if the page would still fetch
    anything from a URL, e.g. a markdown image ``![](https://...)``, and
    :class:`flashpoc.core.store.StoreError` if the page cannot be written (the file is written
    atomically: the old page or the new one, whole).
    """
    ipynb_path, html_path = Path(ipynb_path), Path(html_path)
    nb = nbformat.read(ipynb_path, as_version=4)
    resources = {"metadata": {"name": ipynb_path.stem, "path": str(ipynb_path.parent)}}
    page, _ = _exporter().from_notebook_node(nb, resources=resources)
    urls = find_external_resources(page)
    if urls:
        raise OfflineExportError(
            f"{ipynb_path}: export would load from the network: {', '.join(urls[:5])}"
            " (charts: call flashpoc.present.chart.enable_offline_renderer() and re-execute)"
        )
    return write_atomic(html_path, page)


@functools.lru_cache(maxsize=1)
def _exporter() -> HTMLExporter:
    """The process's exporter: the offline lab template and :class:`OfflineOutputsPreprocessor`
    (a new exporter compiles its dozen templates again: about 0.3 CPU-s an export)."""
    exporter = HTMLExporter(template_name="lab", embed_images=True)
    exporter.raw_template = OFFLINE_LAB_TEMPLATE
    exporter.register_preprocessor(OfflineOutputsPreprocessor(), enabled=True)
    return exporter

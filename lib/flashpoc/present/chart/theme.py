"""The house theme, the palette and colour domain, strict JSON specs and the offline renderer."""

from __future__ import annotations

import functools
import json
import math
import textwrap
import weakref
from collections.abc import Sequence
from typing import Any

import altair as alt
import pandas as pd
import vl_convert


THEME_NAME = "flashpoc"
RENDERER_NAME = "flashpoc_offline"

#: Okabe-Ito colours in print-safe order (the yellow #F0E442 is left out); grey last.
PALETTE: tuple[str, ...] = (
    "#0072B2",  # blue
    "#E69F00",  # orange
    "#009E73",  # bluish green
    "#D55E00",  # vermillion
    "#CC79A7",  # reddish purple
    "#56B4E9",  # sky blue
    "#000000",  # black
    "#7F7F7F",  # grey
)

#: Load hosts' colours (Paul Tol's "muted"), apart from the workloads' and configurations'.
HOST_PALETTE: tuple[str, ...] = ("#332288", "#88CCEE", "#44AA99", "#117733", "#999933", "#DDCC77", "#CC6677",
                                 "#882255", "#AA4499")

FONT = "Helvetica, Arial, 'DejaVu Sans', sans-serif"
ANNOTATION_COLOR = "#333333"

#: Vega-Lite version for vl-convert, from the schema Altair writes (e.g. "v6.4.1" -> "6.4").
VEGALITE_VERSION = ".".join(alt.SCHEMA_VERSION.lstrip("v").split(".")[:2])

#: The Vega-Lite mimetype JupyterLab 4 renders (its built-in vega5 extension knows v3 to v5).
#: Altair 6's own ``application/vnd.vegalite.v6.json`` is not used: JupyterLab 4.6 has no
#: renderer for it, and nbformat rejects a JSON object under a mimetype not ending in
#: ``+json`` (nbclient fails the cell). The spec itself stays Vega-Lite 6 (``$schema`` v6);
#: JupyterLab's Vega-Lite 5 draws the plain specs made here.
VEGALITE_MIME_TYPE = "application/vnd.vegalite.v5+json"

#: Rows a chart may embed; aggregate (one row per run-point) before charting bigger tables.
MAX_ROWS = 5000

# Axis titles: every one states its unit.
TITLE_IOPS = "IOPS"
#: IOPS on an axis as in the tables: whole, with thousands separators ("35,000"; an SI format drew "0k").
FORMAT_IOPS = ",.0f"
TITLE_LAT_MEAN = "Mean latency (ms)"
TITLE_CLAT = "Completion latency (ms)"
TITLE_CLAT_LOG = "Completion latency (ms, log scale)"
TITLE_THREADS = "Concurrency (threads)"
TITLE_CPU = "Host CPU (%)"
TITLE_MIBPS = "Throughput (MiB/s)"

_PERCENTILES = {
    "clat_p50_ms": "p50",
    "clat_p90_ms": "p90",
    "clat_p99_ms": "p99",
    "clat_p99_9_ms": "p99.9",
}
_CPU_METRICS = {
    "host_cpu_busy_pct": "busy",
    "host_cpu_iowait_pct": "iowait",
}


# --- theme --------------------------------------------------------------------------------


def theme_config() -> dict[str, Any]:
    """Return the house theme: white background, print-size fonts, the fixed palette."""
    return {
        "background": "white",
        "config": {
            "font": FONT,
            "title": {"fontSize": 16, "subtitleFontSize": 12, "anchor": "start", "offset": 10},
            "axis": {
                "labelFontSize": 12,
                "titleFontSize": 13,
                "titleFontWeight": "normal",
                "gridColor": "#e5e5e5",
                "domainColor": "#666666",
                "tickColor": "#666666",
                "labelColor": "#222222",
                "titleColor": "#222222",
            },
            "header": {"labelFontSize": 13, "titleFontSize": 13},
            "legend": {"labelFontSize": 12, "titleFontSize": 12, "symbolStrokeWidth": 2},
            "text": {"fontSize": 12},
            "mark": {"color": PALETTE[0]},
            "line": {"strokeWidth": 2},
            "point": {"size": 50, "filled": True},
            "range": {"category": list(PALETTE)},
            "view": {"continuousWidth": 560, "continuousHeight": 320, "stroke": None},
        },
    }


alt.theme.register(THEME_NAME, enable=False)(theme_config)


def use_theme() -> str:
    """Enable the house theme for every chart Altair draws from now on; return its name."""
    alt.theme.enable(THEME_NAME)
    return THEME_NAME


def themed_spec(chart: alt.TopLevelMixin | dict[str, Any], *, validate: bool = True) -> dict[str, Any]:
    """The Vega-Lite spec of ``chart`` in the house theme, whichever theme is active (a spec
    given as a dict is returned as it is), as strict JSON (:func:`json_safe`), its titles in lines
    (:func:`wrap_titles`); ``validate=False`` skips Altair's schema check (a third of the time: a
    chart redrawn again and again, checked once).

    A chart's spec is made once (the report saves each chart, then draws it in report.html: one
    spec, one SVG); a chart is not changed once made (Altair's methods return new charts), and the
    spec returned is not to be changed either."""
    if not isinstance(chart, alt.TopLevelMixin):
        return json_safe(chart)
    return _made(chart, validate)["spec"]


_MADE: dict[int, tuple[weakref.ref, dict[str, Any]]] = {}
"""What was made of each chart still alive, by its id: its spec and, once rendered, its SVG."""


def _made(chart: alt.TopLevelMixin, validate: bool = True) -> dict[str, Any]:
    key = id(chart)
    held = _MADE.get(key)
    if held is not None and held[0]() is chart:
        return held[1]
    with alt.theme.enable(THEME_NAME):
        made = {"spec": wrap_titles(json_safe(chart.to_dict(validate=validate)))}
    _MADE[key] = (weakref.ref(chart, lambda _dead: _MADE.pop(key, None)), made)
    return made


#: Characters per line of a chart's title and of its subtitle (:func:`wrap_titles`): a sentence of a
#: subtitle made a chart thousands of pixels wide.
TITLE_CHARS, SUBTITLE_CHARS = 70, 95
_DATA_KEYS = ("data", "datasets", "values")


def wrap_titles(spec: Any) -> Any:
    """``spec`` with every title's text and subtitle broken into lines of at most :data:`TITLE_CHARS`
    and :data:`SUBTITLE_CHARS` characters (Vega-Lite draws a list as lines), and every text drawn as
    written (:func:`_drawn_as_written`)."""
    if isinstance(spec, list):
        return [wrap_titles(item) for item in spec]
    if not isinstance(spec, dict):
        return spec
    out = {key: value if key in _DATA_KEYS else wrap_titles(value) for key, value in spec.items()}
    title = out.get("title")
    if isinstance(title, str) and len(title) > TITLE_CHARS:
        out["title"] = textwrap.wrap(title, TITLE_CHARS)
    elif isinstance(title, dict) and "text" in title:
        out["title"] = {**title, **{key: _drawn_as_written(_lines(title[key], width)) for key, width in
                                    (("text", TITLE_CHARS), ("subtitle", SUBTITLE_CHARS)) if key in title}}
    for key in _TEXT_KEYS & out.keys():
        out[key] = _drawn_as_written(out[key])
    return out


_TEXT_KEYS = {"title", "subtitle", "text"}
#: Texts Vega reads as an expression, not as the text written: a title, subtitle or mark text that
#: is exactly ``if`` stops the chart ("Unrecognized signal name: "if"", Vega 6).
_READ_AS_EXPRESSION = {"if"}


def _drawn_as_written(text: Any) -> Any:
    """``text`` (a str, lines, or anything else left as it is) with every line Vega would read as an
    expression followed by an invisible word joiner (U+2060), so that it is drawn as written."""
    if isinstance(text, list):
        return [_drawn_as_written(line) for line in text]
    if isinstance(text, str) and text in _READ_AS_EXPRESSION:
        return text + "\u2060"
    return text


def _lines(text: Any, width: int) -> Any:
    """A title's text (a str or lines) as lines of at most ``width`` characters."""
    lines = [text] if isinstance(text, str) else text if isinstance(text, list) else None
    if lines is None or all(len(str(line)) <= width for line in lines):
        return text
    return [wrapped for line in lines for wrapped in (textwrap.wrap(str(line), width) or [""])]


def json_safe(value: Any) -> Any:
    """``value`` with every NaN or infinite float (at any depth) replaced by None.

    Altair leaves NaN in a column of mixed or ``object`` type (a table read from CSV files of
    which one had no rows) as it is; JSON has no NaN, so Vega-Lite files would not parse and
    JupyterLab would warn "Out of range float values are not JSON compliant".
    """
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: json_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(item) for item in value]
    return value


def series_domain(points: pd.DataFrame, workloads: Sequence[str] = ()) -> list[str]:
    """The colour domain every chart of a report shares: the configurations in order of first
    appearance (the baseline first) when ``points`` has several, else the workloads: those of
    ``workloads`` (the campaign's, in the order of its parameters) first, then any other in
    order of first appearance."""
    if "config" in points and points["config"].nunique() > 1:
        return list(dict.fromkeys(points["config"].astype(str)))
    seen = list(dict.fromkeys(points["workload"].astype(str))) if "workload" in points else []
    return list(dict.fromkeys([*workloads, *seen]))


# --- offline display ----------------------------------------------------------------------


def render_svg(chart: alt.TopLevelMixin | dict[str, Any]) -> str:
    """Render a chart (in the house theme) or a Vega-Lite spec to an SVG string with vl-convert, locally.

    Each chart is rendered once (:func:`themed_spec`), and the last few specs given as dicts are
    kept: the report saves each chart as SVG and embeds the same SVG in report.html (and the
    notebook shows it).
    """
    if not isinstance(chart, alt.TopLevelMixin):
        return _svg_of(json.dumps(themed_spec(chart), sort_keys=True))
    made = _made(chart)
    if "svg" not in made:
        made["svg"] = _svg_of(json.dumps(made["spec"], sort_keys=True))
    return made["svg"]


@functools.lru_cache(maxsize=16)
def _svg_of(spec_json: str) -> str:
    return vl_convert.vegalite_to_svg(json.loads(spec_json), vl_version=VEGALITE_VERSION)


def offline_renderer(spec: dict[str, Any], **metadata: Any) -> tuple[dict, dict]:
    """Altair renderer: an inline SVG for static views plus Vega-Lite JSON for JupyterLab.

    The SVG (rendered here by vl-convert) is what nbconvert HTML and any offline viewer show;
    JupyterLab prefers the Vega-Lite mimetype and draws it interactively with its bundled
    Vega. No ``text/html`` is produced, so nothing loads vega from a CDN.
    """
    spec = json_safe(spec)
    bundle: dict[str, Any] = {
        "image/svg+xml": render_svg(spec),
        VEGALITE_MIME_TYPE: spec,
        "text/plain": f"<Chart: {_spec_title(spec) or 'untitled'}>",
    }
    meta: dict[str, Any] = {}
    embed_options = metadata.get("embed_options")
    if embed_options:
        meta = {VEGALITE_MIME_TYPE: {"embed_options": embed_options}}
    return bundle, meta


def enable_offline_renderer() -> str:
    """Make notebook charts display offline and in the house look: register and enable
    :func:`offline_renderer` and the house theme (:func:`use_theme`).

    Also pins the data transformer to ``default``: the data are inlined in the spec (never
    written to a side file or sent anywhere), and a chart over more than :data:`MAX_ROWS`
    rows fails, so aggregate first. Returns the renderer name.
    """
    use_theme()
    alt.renderers.register(RENDERER_NAME, offline_renderer)
    alt.renderers.enable(RENDERER_NAME)
    alt.data_transformers.enable("default", max_rows=MAX_ROWS)
    return RENDERER_NAME


def _spec_title(spec: dict[str, Any]) -> str:
    title = spec.get("title")
    if isinstance(title, dict):
        title = title.get("text")
    if isinstance(title, list):
        title = " ".join(str(t) for t in title)
    return str(title) if title else ""

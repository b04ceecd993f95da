"""Charts: pure functions from a tidy DataFrame to an Altair chart, plus the house theme.

Every function here takes a DataFrame (one row per run-point, the tidy table the parse/store
stages write) and returns an Altair chart; nothing reads or writes files. Test a chart through
``chart.to_dict()``.

The notebooks call, once::

    from flashpoc import chart
    chart.enable_offline_renderer()   # inline SVG + Vega-Lite JSON, no CDN; the house theme

Files (SVG, PNG, Vega-Lite JSON, report.html) are always drawn in the house theme
(:func:`themed_spec`), whatever theme is active.

Colours (:data:`PALETTE`, Okabe-Ito without the yellow that vanishes on paper): a series takes
the palette's colours in the order of the colour domain, and every chart of a report gets the
same domain (:func:`series_domain`): the campaign's workloads in the order of its parameters
(so the four default workloads are always blue, orange, green and vermillion), or, when
campaigns are compared, the configurations with the baseline first (the baseline blue). A chart
that shows only some series keeps the others' colours; load hosts take colours of their own
(:data:`HOST_PALETTE`), so that no host looks like a workload.

A series is a workload, or a configuration when ``df`` has a ``config`` column with more than one
value (or the colour domain names its configurations); the workload is then told apart by dash
(hockey stick) or by panel (percentiles, CPU, where dashes mark the percentile or CPU time).

Every spec handed out (files, the notebook's Vega-Lite, report.html) is strict JSON:
:func:`json_safe` turns NaN and infinities, which Vega-Lite and JupyterLab refuse, into null.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Sequence
from typing import Any

import altair as alt
import pandas as pd
import vl_convert

from flashpoc.errors import AnalysisError
from flashpoc.hostlimit import ALL_HOSTS
from flashpoc.analysis import SNIA_MAX_DATA_EXCURSION_PCT, SNIA_MAX_SLOPE_EXCURSION_PCT, SNIA_ROUNDS, snia_steady_state
from flashpoc.summary import KIND_RANDOM, KIND_THROUGHPUT, MIN_VERDICT_INTERVALS, verdict, workload_kinds

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


def themed_spec(chart: alt.TopLevelMixin | dict[str, Any]) -> dict[str, Any]:
    """The Vega-Lite spec of ``chart`` in the house theme, whichever theme is active (a spec
    given as a dict is returned as it is), as strict JSON (:func:`json_safe`)."""
    if not isinstance(chart, alt.TopLevelMixin):
        return json_safe(chart)
    with alt.theme.enable(THEME_NAME):
        return json_safe(chart.to_dict())


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

    The last few renderings are kept: the report saves each chart as SVG and embeds the same
    SVG in report.html (and the notebook shows it), so each is rendered once.
    """
    return _svg_of(json.dumps(themed_spec(chart), sort_keys=True))


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


# --- charts -------------------------------------------------------------------------------


KIND_TITLES = {KIND_RANDOM: "Small-block random I/O (blocks up to 32 KiB): IOPS vs mean latency",
               KIND_THROUGHPUT: "Sequential and large-block I/O: throughput vs mean latency"}


def hockey_stick(
    df: pd.DataFrame,
    knees: pd.DataFrame | None = None,
    slo_ms: float | None = None,
    *,
    title: str = "IOPS vs mean latency",
    color_domain: Sequence[str] | None = None,
    latency: str = "lat_mean_ms",
    latency_title: str = TITLE_LAT_MEAN,
) -> alt.LayerChart | alt.VConcatChart:
    """Latency against load, one line per series, points joined in thread order.

    Each kind of workload (:func:`io_kind`) gets its own panel and scales, so that 128K
    sequential reads at several ms do not flatten the small-block curves: small-block random
    I/O against IOPS, sequential and large-block I/O against throughput (MiB/s, ``bw_mibps``).
    One kind gives one layered chart, both a panel each, one above the other.

    ``df``: workload, threads, iops, ``latency`` (ms; default the mean latency), optional rw,
    bs (for the kind), bw_mibps and config; repeated run-points are averaged. ``knees``:
    workload, threads, iops, lat_mean_ms, drawn as dark diamonds named "knee" in the legend
    (no text beside them, which would overlap). ``slo_ms``: a dashed horizontal rule labelled
    e.g. "SLO 1 ms", drawn in a panel whose highest latency is at least half of it (else the
    panel's subtitle says every point is under it).
    """
    metrics = ["iops", latency, *(["bw_mibps"] if "bw_mibps" in df.columns else [])]
    data = _mean_per_point(df, metrics, "hockey_stick").dropna(subset=[latency])
    kinds = workload_kinds(df) if "bw_mibps" in data.columns else {}
    data["kind"] = [kinds.get(str(w), KIND_RANDOM) for w in data["workload"]] if "workload" in data else KIND_RANDOM
    color, dash = _series_channels(data, color_domain)
    parts = [(kind, data[data["kind"] == kind]) for kind in (KIND_RANDOM, KIND_THROUGHPUT)]
    parts = [(kind, part) for kind, part in parts if not part.empty] or [(KIND_RANDOM, data)]
    panels = [_hockey_panel(part.drop(columns="kind"), kind, knees, slo_ms, color, dash, latency, latency_title,
                            titled=len(parts) > 1) for kind, part in parts]
    lead = "Each point is one thread count; lines follow increasing threads."
    if len(panels) == 1:
        notes = panels[0].title.subtitle if isinstance(panels[0].title, alt.Title) else []
        return panels[0].properties(title=alt.Title(title, subtitle=[lead, *notes]))
    return alt.vconcat(*panels, spacing=28).properties(title=alt.Title(
        title, subtitle=[lead, "Small-block random and sequential I/O each on their own scales."]))


def _hockey_panel(part: pd.DataFrame, kind: str, knees: pd.DataFrame | None, slo_ms: float | None, color: Any,
                  dash: Any, latency: str, latency_title: str, *, titled: bool) -> alt.LayerChart:
    """One kind's layers: the curves, their knees and the SLO; titled by the kind when ``titled``."""
    load = "iops" if kind == KIND_RANDOM else "bw_mibps"
    x = _iops_x() if kind == KIND_RANDOM else alt.X("bw_mibps:Q", title=TITLE_MIBPS, axis=alt.Axis(format=",.0f"))
    y = alt.Y(f"{latency}:Q", title=latency_title)
    tooltip = [
        *_series_tooltip(part),
        alt.Tooltip("threads:Q", title="Threads"),
        alt.Tooltip("iops:Q", title="IOPS", format=",.0f"),
        *([alt.Tooltip("bw_mibps:Q", title=TITLE_MIBPS, format=",.1f")] if "bw_mibps" in part else []),
        alt.Tooltip(f"{latency}:Q", title=latency_title, format=".3f"),
    ]
    encodings = {"x": x, "y": y, "color": color, "order": alt.Order("threads:Q"), "tooltip": tooltip,
                 "strokeDash": dash}
    layers: list[alt.Chart] = [alt.Chart(part).mark_line(point=True).encode(**_present(encodings))]
    if knees is not None and len(knees):
        layers.extend(_knee_layers(_knees_of(knees, part), x, load))
    notes = []
    if slo_ms is not None:
        top = float(part[latency].max())
        if slo_ms <= 2 * top:
            layers.extend(_slo_layers(slo_ms))
        else:
            notes.append(f"Every point is under the {slo_ms:g} ms SLO (the highest at {top:.3g} ms): "
                         f"its line would be off the top of the chart.")
    panel = alt.layer(*layers).properties(title=alt.Title(KIND_TITLES[kind] if titled else "", subtitle=notes))
    return panel.properties(height=250) if titled else panel  # two panels, one above the other, fit a page


#: The panels of :func:`load_vs_threads`: what each kind of workload is measured in.
LOAD_TITLES = {KIND_RANDOM: "Small-block random I/O (blocks up to 32 KiB): IOPS vs threads",
               KIND_THROUGHPUT: "Sequential and large-block I/O: throughput vs threads"}


def load_vs_threads(df: pd.DataFrame, *, color_domain: Sequence[str] | None = None,
                    title: str = "IOPS and throughput vs threads") -> alt.LayerChart | alt.VConcatChart:
    """The sweep's load against threads, configurations overlaid: small-block random I/O in
    IOPS, sequential and large-block I/O in MiB/s (:func:`flashpoc.summary.io_kind`), each kind
    its own panel and scale. Colours as in every chart (:func:`_series_channels`: the
    configuration when there are several, the workload dashed; else the workload).

    ``df``: workload, threads, iops, optional bw_mibps, rw, bs, config; repeats are averaged."""
    metrics = ["iops", *(["bw_mibps"] if "bw_mibps" in df.columns else [])]
    data = _mean_per_point(df, metrics, "load_vs_threads")
    kinds = workload_kinds(df) if "bw_mibps" in data.columns else {}
    data["kind"] = [kinds.get(str(w), KIND_RANDOM) for w in data["workload"]] if "workload" in data else KIND_RANDOM
    color, dash = _series_channels(data, color_domain)
    parts = [(kind, data[data["kind"] == kind].drop(columns="kind")) for kind in (KIND_RANDOM, KIND_THROUGHPUT)]
    parts = [(kind, part) for kind, part in parts if not part.empty]
    panels = []
    for kind, part in parts:
        field, axis = ("iops", TITLE_IOPS) if kind == KIND_RANDOM else ("bw_mibps", TITLE_MIBPS)
        tooltip = [*_series_tooltip(part), alt.Tooltip("threads:Q", title="Threads"),
                   alt.Tooltip("iops:Q", title="IOPS", format=",.0f"),
                   *([alt.Tooltip("bw_mibps:Q", title=TITLE_MIBPS, format=",.1f")] if "bw_mibps" in part else [])]
        encodings = {"x": _threads_x(part["threads"]), "y": alt.Y(f"{field}:Q", title=axis, axis=alt.Axis(format=",.0f")),
                     "color": color, "strokeDash": dash, "order": alt.Order("threads:Q"), "tooltip": tooltip}
        panel = alt.Chart(part).mark_line(point=True).encode(**_present(encodings))
        panels.append(panel.properties(title=alt.Title(LOAD_TITLES[kind]), height=220) if len(parts) > 1 else panel)
    lead = "Each point is one thread count of the sweep."
    if len(panels) == 1:
        return panels[0].properties(title=alt.Title(title, subtitle=[lead, LOAD_TITLES[parts[0][0]] + "."]))
    return alt.vconcat(*panels, spacing=28).properties(title=alt.Title(
        title, subtitle=[lead, "Small-block random I/O in IOPS, sequential and large-block I/O in MiB/s."]))


def _knees_of(knees: pd.DataFrame, part: pd.DataFrame) -> pd.DataFrame:
    """The knees of the curves in ``part``, with their throughput (``bw_mibps``) where it has one."""
    _require(knees, ["iops", "lat_mean_ms"], "hockey_stick knees")
    keys = [c for c in ("config", "workload") if c in knees.columns and c in part.columns]
    mine = knees.merge(part[keys].drop_duplicates(), on=keys) if keys else knees
    if "bw_mibps" in part.columns and "threads" in mine.columns:
        mine = mine.merge(part[[*keys, "threads", "bw_mibps"]], on=[*keys, "threads"], how="left")
    return mine.reset_index(drop=True)


def rate_curve(df: pd.DataFrame, *, color_domain: Sequence[str] | None = None,
               title: str = "vdbench iorate=curve: mean latency at each requested I/O rate") -> alt.Chart:
    """The response-time curve (vdbench's ``iorate=curve``, or ``sweep.plan: rate-curve``): for each
    workload and thread count, the full-speed run and each ``curve`` step (a rate of % of that run's IOPS), latency against the IOPS reached,
    joined from the lowest rate to full speed.

    ``df``: workload, threads, iops, lat_mean_ms, curve_pct (None for the full-speed run),
    iorate_requested (IOPS asked for), optional config.
    """
    _require(df, ["workload", "threads", "iops", "lat_mean_ms", "curve_pct"], "rate_curve")
    data = df[[c for c in ("config", "workload", "threads", "iops", "lat_mean_ms", "curve_pct", "iorate_requested")
               if c in df]].copy()
    data["step"] = [f"{p:g} %" if pd.notna(p) else "full speed" for p in data["curve_pct"]]
    data["order"] = data["curve_pct"].fillna(1000.0)
    data["series"] = data["workload"] + " at " + data["threads"].astype(int).astype(str) + " threads"
    color, dash = _series_channels(data, color_domain)
    tooltip = [*_series_tooltip(data), alt.Tooltip("threads:Q", title="Threads"),
               alt.Tooltip("step:N", title="Curve step"),
               alt.Tooltip("iorate_requested:Q", title="Requested rate (IOPS)", format=",.0f"),
               alt.Tooltip("iops:Q", title="IOPS", format=",.0f"),
               alt.Tooltip("lat_mean_ms:Q", title=TITLE_LAT_MEAN, format=".3f")]
    encodings = {"x": _iops_x(), "y": alt.Y("lat_mean_ms:Q", title=TITLE_LAT_MEAN), "color": color,
                 "detail": "series:N", "order": alt.Order("order:Q"), "tooltip": tooltip, "strokeDash": dash}
    return alt.Chart(data).mark_line(point=True).encode(**_present(encodings)).properties(
        title=alt.Title(title, subtitle="One line per workload and thread count: each curve step (a % of the "
                                        "full-speed run's IOPS), then the full-speed run."))


def write_latency(df: pd.DataFrame, *, color_domain: Sequence[str] | None = None) -> alt.LayerChart:
    """Mean write latency (ms, ``write_lat_mean_ms``) against total IOPS for the points that wrote
    (``write_iops`` > 0)."""
    _require(df, ["iops", "write_iops", "write_lat_mean_ms"], "write_latency")
    wrote = df[(pd.to_numeric(df["write_iops"], errors="coerce").fillna(0) > 0) & df["write_lat_mean_ms"].notna()]
    return hockey_stick(wrote, title="IOPS vs write latency", color_domain=color_domain, latency="write_lat_mean_ms",
                        latency_title="Mean write latency (ms)")


def probe_curve(
    df: pd.DataFrame,
    saturation_threads: int | None = None,
    *,
    title: str = "Saturation probe: IOPS and latency vs threads",
    color_domain: Sequence[str] | None = None,
) -> alt.VConcatChart:
    """IOPS (top panel) and mean latency (bottom panel) against threads, shared x axis.

    ``df``: threads, iops, lat_mean_ms (optional workload, config). ``saturation_threads``
    draws a vertical dashed rule, labelled, on both panels.
    """
    data = _mean_per_point(df, ["iops", "lat_mean_ms"], "probe_curve")
    color, dash = _series_channels(data, color_domain)
    x = _threads_x(data["threads"])
    tooltip = [
        *_series_tooltip(data),
        alt.Tooltip("threads:Q", title="Threads"),
        alt.Tooltip("iops:Q", title="IOPS", format=",.0f"),
        alt.Tooltip("lat_mean_ms:Q", title="Mean latency (ms)", format=".3f"),
    ]
    extra: dict[str, Any] = {"tooltip": tooltip}
    if color is not None:
        extra["color"] = color
    if dash is not None:
        extra["strokeDash"] = dash
    base = alt.Chart(data).mark_line(point=True)
    top = base.encode(x=x, y=alt.Y("iops:Q", title=TITLE_IOPS, axis=alt.Axis(format="~s", tickCount=8)), **extra)
    bottom = base.encode(x=x, y=alt.Y("lat_mean_ms:Q", title=TITLE_LAT_MEAN), **extra)
    panels = []
    for panel, label_on in ((top, True), (bottom, False)):
        layers = [panel.properties(height=200)]
        if saturation_threads is not None:
            layers.extend(_saturation_layers(saturation_threads, x, label=label_on))
        panels.append(alt.layer(*layers))
    return alt.vconcat(*panels, spacing=12).properties(title=alt.Title(title))


def latency_percentiles(
    df: pd.DataFrame,
    *,
    log_y: bool = True,
    title: str = "Completion latency percentiles vs threads",
    color_domain: Sequence[str] | None = None,
) -> alt.Chart:
    """p50, p90, p99 and p99.9 completion latency against threads (dash = percentile), one
    panel per workload.

    ``df``: workload, threads, clat_p50_ms, clat_p90_ms, clat_p99_ms, clat_p99_9_ms (optional
    config); a missing percentile column is left out, at least one is needed. ``log_y`` (the
    default) uses a log scale, on which a p50 of 0.1 ms and a p99.9 of 100 ms both read; it
    drops non-positive values, which it cannot draw.
    """
    present = {k: v for k, v in _PERCENTILES.items() if k in df.columns}
    if not present:
        raise AnalysisError(f"latency_percentiles: needs one of the columns {', '.join(_PERCENTILES)}")
    long = _melt(df, present, "percentile", "latency_ms", "latency_percentiles")
    if log_y:
        long = long[long["latency_ms"] > 0]
    scale = alt.Scale(type="log") if log_y else alt.Scale(zero=True)
    y = alt.Y("latency_ms:Q", title=TITLE_CLAT_LOG if log_y else TITLE_CLAT, scale=scale)
    return _lines_vs_threads(long, y, ("percentile", "Percentile", list(present.values()), list(_PERCENTILES.values())),
                             alt.Tooltip("latency_ms:Q", title="Latency (ms)", format=".3f"), color_domain, title,
                             ["Each panel one workload; dashes mark the percentile."])


def host_cpu(
    df: pd.DataFrame,
    *,
    title: str = "Host CPU utilisation vs threads",
    color_domain: Sequence[str] | None = None,
    metrics: dict[str, str] | None = None,
) -> alt.Chart:
    """Host CPU % against threads: busy and iowait, or the columns ``metrics`` names.

    ``df``: workload, threads, the metric columns (default host_cpu_busy_pct, optional
    host_cpu_iowait_pct) and optional config. ``metrics``: column -> label, e.g.
    :data:`ORACLE_HOST_CPU` for SLOB points (%user, %system, %iowait of the DB host).
    Missing values (CPU not collected) are skipped, which may leave the chart empty.
    """
    known = metrics or _CPU_METRICS
    _require(df, [next(iter(known))], "host_cpu")
    present = {k: v for k, v in known.items() if k in df.columns}
    long = _melt(df, present, "metric", "cpu_pct", "host_cpu")
    y = alt.Y("cpu_pct:Q", title=TITLE_CPU, scale=alt.Scale(domain=[0, 100]))
    return _lines_vs_threads(long, y, ("metric", "CPU time", list(present.values()), list(known.values())),
                             alt.Tooltip("cpu_pct:Q", title="CPU (%)", format=".1f"), color_domain, title)


ORACLE_HOST_CPU = {
    "host_cpu_user_pct": "%user",
    "host_cpu_sys_pct": "%system",
    "host_cpu_iowait_pct": "%iowait",
}
"""Host CPU columns of SLOB points (AWR "Host CPU") and their labels."""

ORACLE_LATENCIES = {
    "read_lat_mean_ms": "db file sequential read",
    "redo_write_lat_ms": "log file parallel write",
    "dbwr_write_lat_ms": "db file parallel write",
}
"""Average wait (ms) columns of SLOB points and the AWR wait events they come from."""


def oracle_latencies(
    df: pd.DataFrame,
    *,
    title: str = "Oracle I/O wait latency vs threads per schema",
    color_domain: Sequence[str] | None = None,
) -> alt.Chart:
    """Average wait (ms, log scale) of the key I/O events against threads: the random read
    (``db file sequential read``), the redo write (``log file parallel write``) and the
    DBWR write (``db file parallel write``).

    ``df``: workload, threads and any of the :data:`ORACLE_LATENCIES` columns.
    """
    present = {k: v for k, v in ORACLE_LATENCIES.items() if k in df.columns}
    if not present:
        raise ValueError(f"oracle_latencies: the data has none of the columns {sorted(ORACLE_LATENCIES)}")
    long = _melt(df, present, "event", "latency_ms", "oracle_latencies")
    y = alt.Y("latency_ms:Q", title="Average wait (ms)", scale=alt.Scale(type="log"))
    return _lines_vs_threads(long, y, ("event", "Wait event", list(present.values()), list(ORACLE_LATENCIES.values())),
                             alt.Tooltip("latency_ms:Q", title="Average wait (ms)", format=".3f"), color_domain, title)


def db_cpu(
    df: pd.DataFrame,
    *,
    title: str = "DB CPU vs threads per schema",
    color_domain: Sequence[str] | None = None,
) -> alt.Chart:
    """DB CPU (CPU seconds per second, AWR "DB CPU(s)") against threads.

    ``df``: workload, threads, db_cpu_s_per_s and optional config.
    """
    long = _melt(df, {"db_cpu_s_per_s": "DB CPU"}, "metric", "cpu_s_per_s", "db_cpu")
    y = alt.Y("cpu_s_per_s:Q", title="DB CPU (CPU s per s)")
    return _lines_vs_threads(long, y, ("metric", "Metric", ["DB CPU"], ["DB CPU"]),
                             alt.Tooltip("cpu_s_per_s:Q", title="DB CPU (s/s)", format=".2f"), color_domain, title)


def _known_columns(df: pd.DataFrame, known: dict[str, str], who: str) -> dict[str, str]:
    """The columns of ``known`` (column -> label) that ``df`` has; ValueError naming ``who`` when none."""
    present = {k: v for k, v in known.items() if k in df.columns}
    if not present:
        raise ValueError(f"{who}: the data has none of the columns {sorted(known)}")
    return present


ORACLE_WRITE_LATENCIES = {
    "redo_write_lat_ms": "log file parallel write",
    "dbwr_write_lat_ms": "db file parallel write",
}
"""Write wait (ms) columns of SLOB points and their AWR events (background sessions' averages)."""


def oracle_write_latency(
    df: pd.DataFrame,
    *,
    title: str = "Oracle write latency vs IOPS",
    color_domain: Sequence[str] | None = None,
) -> alt.FacetChart:
    """Average wait (ms, log scale) of the redo write (``log file parallel write``) and the DBWR
    write (``db file parallel write``) against the point's IOPS, the hockey stick's axis: one
    panel per event, one line per workload (per configuration when campaigns are compared,
    the workload then dashed), so configurations read at equal IOPS.

    ``df``: workload, threads, iops and any of the :data:`ORACLE_WRITE_LATENCIES` columns
    (optional config).
    """
    present = _known_columns(df, ORACLE_WRITE_LATENCIES, "oracle_write_latency")
    wide = _mean_per_point(df, ["iops", *present], "oracle_write_latency")
    keys = _keys(wide)
    long = wide.melt(id_vars=[*keys, "iops"], value_vars=list(present), var_name="event", value_name="latency_ms")
    long["event"] = long["event"].map(present)
    long = long.dropna(subset=["latency_ms", "iops"]).sort_values([*keys]).reset_index(drop=True)
    color, dash = _series_channels(long, color_domain)
    encodings = {
        "x": alt.X("iops:Q", title=TITLE_IOPS, axis=alt.Axis(format="~s")),
        "y": alt.Y("latency_ms:Q", title="Average write wait (ms, log scale)", scale=alt.Scale(type="log")),
        "color": color, "strokeDash": dash, "order": alt.Order("threads:Q"),
        "tooltip": [*_series_tooltip(long), alt.Tooltip("event:N", title="Wait event"),
                    alt.Tooltip("threads:Q", title="Threads"), alt.Tooltip("iops:Q", title="IOPS", format=",.0f"),
                    alt.Tooltip("latency_ms:Q", title="Average wait (ms)", format=".3f")],
    }
    chart = alt.Chart(long).mark_line(point=True).encode(**_present(encodings)).properties(width=300, height=220)
    events = [v for v in ORACLE_WRITE_LATENCIES.values() if v in set(long["event"])]
    return chart.facet(column=alt.Column("event:N", title="Wait event", sort=events)).properties(title=title)


ORACLE_DB_TIME = {
    "db_cpu_pct_of_db_time": "DB CPU (% of DB time)",
    "buffer_hit_pct": "buffer hit (%)",
}
"""Database time and cache columns of SLOB points (AWR) and their labels."""


def db_time_shares(
    df: pd.DataFrame,
    *,
    title: str = "DB CPU share of DB time and buffer hit vs threads per schema",
    color_domain: Sequence[str] | None = None,
) -> alt.Chart:
    """DB CPU as a share of DB time and the buffer cache hit ratio (%) against threads: DB time
    mostly on CPU means the sessions were not waiting for storage; a high buffer hit means
    few reads reached it.

    ``df``: workload, threads and any of the :data:`ORACLE_DB_TIME` columns (optional config).
    """
    present = _known_columns(df, ORACLE_DB_TIME, "db_time_shares")
    long = _melt(df, present, "metric", "pct", "db_time_shares")
    y = alt.Y("pct:Q", title="Share (%)", scale=alt.Scale(domain=[0, 100]))
    return _lines_vs_threads(long, y, ("metric", "Measure", list(present.values()), list(ORACLE_DB_TIME.values())),
                             alt.Tooltip("pct:Q", title="Share (%)", format=".1f"), color_domain, title)


def wait_histogram(
    buckets: pd.DataFrame,
    *,
    title: str = "Single-block read wait histogram at the detail point (AWR)",
    color_domain: Sequence[str] | None = None,
) -> alt.VConcatChart:
    """Bars: the share (%) of an event's waits in each AWR histogram bucket (``<512us``,
    ``512us-1ms``, ... ``>=32ms``) at one point per workload, one panel per workload, the
    configurations side by side in their own colours (never added together).

    ``buckets``: [config,] workload, threads, iops, event, bucket, lower_us, share_pct,
    within_pct (:func:`flashpoc.oracle_report.wait_histograms`).
    """
    _require(buckets, ["workload", "bucket", "lower_us", "share_pct"], "wait_histogram")
    order = list(buckets.sort_values("lower_us")["bucket"].drop_duplicates())
    color, _ = _series_channels(buckets, color_domain, facet=True)
    panels = []
    for workload in _in_domain_order(buckets["workload"], color_domain):
        data = buckets[buckets["workload"] == workload]
        event = data["event"].iloc[0] if "event" in data else "wait"
        bars = alt.Chart(data).mark_bar().encode(**_present({
            "x": alt.X("bucket:N", title=f"{event} wait (AWR buckets; 1 ms = 1,024 us)", sort=order,
                       scale=alt.Scale(domain=order)),
            "xOffset": alt.XOffset("config:N") if "config" in data else None,
            "y": alt.Y("share_pct:Q", title="Share of waits (%)", scale=alt.Scale(domain=[0, 100])),
            "color": color,
            "tooltip": [*_series_tooltip(data), alt.Tooltip("bucket:N", title="Wait"),
                        alt.Tooltip("share_pct:Q", title="Share of waits (%)", format=".1f"),
                        alt.Tooltip("within_pct:Q", title="Waits within (%)", format=".1f")]}))
        panels.append(bars.properties(width=560, height=200, title=alt.Title(
            workload, subtitle=[_point_name(row) for row in data.drop_duplicates(_keys(data)).to_dict("records")])))
    return alt.vconcat(*panels, spacing=16).properties(title=alt.Title(title))


def per_host_iops(
    table: pd.DataFrame,
    *,
    title: str = "IOPS per load host vs threads",
) -> alt.Chart:
    """Each load host's IOPS against threads (per host), one column per workload (and one row
    per configuration when campaigns are compared): a host whose line flattens while the
    others still rise is the bottleneck; equal lines that flatten together point at the array.

    ``table``: :func:`flashpoc.hostlimit.per_host_table` (workload, threads, host, iops,
    iops_share_pct, host_cpu_busy_pct); its ``(all hosts)`` rows are left out.
    """
    _require(table, ["workload", "threads", "host", "iops"], "per_host_iops")
    data = table[table["host"] != ALL_HOSTS]
    keys = [k for k in ("config", "workload", "threads", "host") if k in data]
    data = data.groupby(keys, as_index=False, sort=True).mean(numeric_only=True)
    hosts = sorted(data["host"].astype(str).unique())
    encodings: dict[str, Any] = {
        "x": _threads_x(data["threads"]),
        "y": alt.Y("iops:Q", title=TITLE_IOPS, axis=alt.Axis(format="~s")),
        "color": alt.Color("host:N", title="Load host", sort=hosts,
                           scale=alt.Scale(domain=hosts, range=list(HOST_PALETTE))),
        "order": alt.Order("threads:Q"),
        "column": alt.Column("workload:N", title="Workload"),
        "row": alt.Row("config:N", title="Configuration") if _has_configs(data) else None,
        "tooltip": [*_series_tooltip(data), alt.Tooltip("host:N", title="Host"),
                    alt.Tooltip("threads:Q", title="Threads per host"),
                    alt.Tooltip("iops:Q", title="IOPS", format=",.0f"),
                    alt.Tooltip("iops_share_pct:Q", title="Share of the IOPS (%)", format=".1f"),
                    alt.Tooltip("host_cpu_busy_pct:Q", title="Host CPU busy (%)", format=".1f")],
    }
    chart = alt.Chart(data).mark_line(point=True).encode(**_present(encodings))
    return chart.properties(width=280, title=alt.Title(title))


def latency_shares(
    shares: pd.DataFrame,
    *,
    title: str = "Share of single-block reads under each latency",
) -> alt.Chart:
    """Bars: % of an event's waits shorter than each limit, at one point per workload.

    ``shares``: columns workload, limit (text such as ``<1ms``), limit_us (for the order)
    and share_pct; optional label (the point, e.g. ``16 threads, 80,000 IOPS``).
    """
    _require(shares, ["workload", "limit", "limit_us", "share_pct"], "latency_shares")
    order = list(shares.sort_values("limit_us")["limit"].drop_duplicates())
    tooltip = [alt.Tooltip("workload:N", title="Workload"), alt.Tooltip("limit:N", title="Latency"),
               alt.Tooltip("share_pct:Q", title="Share of waits (%)", format=".1f")]
    if "label" in shares:
        tooltip.append(alt.Tooltip("label:N", title="Point"))
    bars = alt.Chart(shares).mark_bar().encode(
        x=alt.X("limit:N", title="Wait shorter than", sort=order),
        xOffset=alt.XOffset("workload:N"),
        y=alt.Y("share_pct:Q", title="Share of waits (%)", scale=alt.Scale(domain=[0, 100])),
        color=alt.Color("workload:N", title="Workload"),
        tooltip=tooltip,
    )
    return bars.properties(title=title)


def _lines_vs_threads(long: pd.DataFrame, y: alt.Y, dash: tuple[str, str, list[str], list[str]],
                      value_tooltip: alt.Tooltip, color_domain: Sequence[str] | None, title: str,
                      subtitle: Sequence[str] = ()) -> alt.Chart | alt.FacetChart:
    """Lines against threads: colour per series (:func:`_series_channels`), dash per ``dash``
    field (name, title, values present, every known value), and with several workloads one
    panel per workload, two panels a row, in the colour domain's order."""
    field, field_title, present, known = dash
    color, _ = _series_channels(long, color_domain)
    encodings: dict[str, Any] = {
        "x": _threads_x(long["threads"]),
        "y": y,
        "color": color,
        "strokeDash": _dash_channel(field, field_title, present, known),
        "order": alt.Order("threads:Q"),
        "tooltip": [
            *_series_tooltip(long),
            alt.Tooltip("threads:Q", title="Threads"),
            alt.Tooltip(f"{field}:N", title=field_title),
            value_tooltip,
        ],
    }
    chart = alt.Chart(long).mark_line(point=True).encode(**_present(encodings))
    heading = alt.Title(title, subtitle=list(subtitle)) if subtitle else alt.Title(title)
    workloads = list(dict.fromkeys(long["workload"].astype(str))) if "workload" in long.columns else []
    if len(workloads) < 2:
        return chart.properties(title=heading)
    order = [w for w in (color_domain or ()) if w in workloads] + [w for w in workloads if w not in (color_domain or ())]
    return chart.properties(width=280, height=190).facet(
        facet=alt.Facet("workload:N", title=None, sort=order, header=alt.Header(labelFontWeight="bold")),
        columns=2, spacing={"row": 24, "column": 16}).properties(title=heading)


# --- one point in detail: time series and latency distribution ------------------------------

#: Most intervals drawn per series; longer series are averaged into this many buckets.
MAX_INTERVALS = 600

#: Latency buckets (upper edges, us) of the histogram: a 1-2-5 series, readable on an axis.
HISTOGRAM_EDGES_US: tuple[float, ...] = (10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000,
                                         50_000, 100_000, 200_000, 500_000, 1_000_000, float("inf"))

#: What each engine's warm-up is, for the interval chart's subtitle.
_WARM_UP = {"fio": "fio: ramp_time, not logged",
            "vdbench": "vdbench: the intervals its average leaves out; its histogram counts them",
            "slob": "SLOB: the intervals before the AWR begin snapshot"}

_DIRECTION_NAMES = {"read": "reads", "write": "writes", "trim": "trims"}

#: Reference latencies (ms) marked on the cumulative distribution.
SHARE_MARKS_MS: tuple[float, ...] = (0.512, 1.0, 2.0)


def interval_series(intervals: pd.DataFrame, detail: pd.DataFrame, *, color_domain: Sequence[str] | None = None,
                    title: str = "Each interval of the detail point: IOPS and mean latency") -> alt.VConcatChart:
    """IOPS and mean latency per interval of one point per workload, with the warm-up shaded
    (from 0 to the later of the ramp and the last warm-up interval).

    ``intervals``: [config,] workload, second (end of the interval, s since the point started),
    iops, lat_mean_ms, warmup. ``detail``: the points shown ([config,] workload, threads,
    ramp_s (unlogged warm-up seconds; 0 if absent), and the verdict columns intervals, interval_iops_cv_pct, interval_iops_drift_pct,
    interval_steady); each workload's subtitle gives the verdict. Series longer than
    :data:`MAX_INTERVALS` are averaged into that many buckets before charting; series of up
    to 60 intervals mark each one (a single interval is a dot, not an invisible line).
    """
    _require(intervals, ["workload", "second", "iops", "lat_mean_ms"], "interval_series")
    columns = [c for c in ("config", "workload", "second", "iops", "lat_mean_ms", "warmup") if c in intervals]
    frame = intervals[columns].copy()
    for column in ("second", "iops", "lat_mean_ms"):  # a table of CSV files, one of them empty, is of object type
        frame[column] = pd.to_numeric(frame[column], errors="coerce").astype(float)
    if "warmup" in frame:
        frame["warmup"] = frame["warmup"].map(lambda v: str(v).strip().lower() in ("true", "1", "1.0"))
    windows = snia_windows(frame)
    frame = _downsample(frame.dropna(subset=["second"]), MAX_INTERVALS)
    color, _ = _series_channels(frame, color_domain, facet=False)
    ramps = pd.to_numeric(detail["ramp_s"], errors="coerce") if "ramp_s" in detail else pd.Series(0.0, detail.index)
    end = max([float(frame["second"].max()), float(ramps.max()) if ramps.notna().any() else 0.0])
    x = alt.X("second:Q", title="Time since the point started (s)", scale=alt.Scale(domain=[0, max(end, 1.0)]),
              axis=alt.Axis(values=_whole_ticks(end), format="d"))
    panels = []
    for workload in _in_domain_order(frame["workload"], color_domain):
        series = frame[frame["workload"] == workload]
        points = detail[detail["workload"] == workload]
        ramp = float(ramps[points.index].max()) if not points.empty and ramps[points.index].notna().any() else 0.0
        warm_rows = series.loc[series["warmup"].astype(bool), "second"] if "warmup" in series else pd.Series([])
        warm = pd.DataFrame([{"start": 0.0, "end": max([ramp, *warm_rows.astype(float)])}])
        band = alt.Chart(warm[warm["end"] > 0]).mark_rect(color="#dddddd", opacity=0.6).encode(
            x="start:Q", x2="end:Q")
        tooltip = [*_series_tooltip(series), alt.Tooltip("second:Q", title="Time (s)"),
                   alt.Tooltip("iops:Q", title="IOPS", format=",.0f"),
                   alt.Tooltip("lat_mean_ms:Q", title="Mean latency (ms)", format=".3f")]
        lines = {"iops": TITLE_IOPS, "lat_mean_ms": TITLE_LAT_MEAN}
        dots = len(series) <= 60 * series["config"].nunique() if "config" in series else len(series) <= 60
        window = windows[windows["workload"] == workload] if not windows.empty else windows
        pair = [alt.layer(band, alt.Chart(series).mark_line(point=dots).encode(
                    **_present({"x": x, "y": alt.Y(f"{field}:Q", title=axis), "color": color,
                                "detail": "config:N" if "config" in series else None, "tooltip": tooltip})),
                          *(_snia_layers(window, color) if field == "iops" and not window.empty else [])
                          ).properties(width=300, height=180)
                for field, axis in lines.items()]
        panels.append(alt.hconcat(*pair).properties(title=alt.Title(
            f"{workload}", subtitle=[_verdict(r) for r in points.to_dict("records")])))
    engines = [e for e in _WARM_UP if "engine" not in detail or e in set(detail["engine"])]
    notes = "; ".join(_WARM_UP[e] for e in engines)
    subtitle = [f"Grey: warm-up, left out of the point's result ({notes}).",
                "Each dot is one interval's average, drawn at the interval's end: nothing is drawn before the "
                "first interval ends."]
    if not windows.empty:
        subtitle.append(f"SNIA PTS window ({SNIA_ROUNDS} rounds of the measured intervals), in each series' colour: "
                        "its mean (thin line), 90 % and 110 % of it (short dashes), each round's mean (squares) and the "
                        "least-squares line across the window (thick long dashes).")
    if "slob" in engines:
        # what each SLOB point's series counts: iostat's disks, the NFS mounts, or nothing (dNFS)
        sources = sorted(set(detail["intervals_source"].dropna())) if "intervals_source" in detail else []
        subtitle.append("SLOB: " + ("; ".join(sources) if sources else
                                    "the disk I/O iostat saw on the host that ran runit.sh (on RAC one node's share)")
                        + ".")
    return alt.vconcat(*panels, spacing=16).properties(title=alt.Title(title, subtitle=subtitle))


def snia_windows(intervals: pd.DataFrame) -> pd.DataFrame:
    """The SNIA PTS measurement window of each series' measured intervals
    (:func:`flashpoc.analysis.snia_steady_state`), one row per round: [config,] workload, round,
    start and end (s since the point started), round_iops, mean_iops, fit_iops (the
    least-squares line at the round; drawn at the round's end, as the intervals are). Empty when no series has 5 measured intervals.

    ``intervals``: [config,] workload, second (the end of each interval), iops[, warmup]."""
    keys = [c for c in ("config", "workload") if c in intervals]
    rows = []
    for values, series in intervals.groupby(keys, sort=False):
        measured = series[~series["warmup"].astype(bool)] if "warmup" in series else series
        measured = measured.dropna(subset=["second", "iops"]).sort_values("second")
        snia = snia_steady_state(measured["iops"].tolist())
        if snia["steady"] is None:
            continue
        ends = measured["second"].tolist()
        length = (ends[-1] - ends[0]) / (len(ends) - 1) if len(ends) > 1 else ends[0]
        per, first = snia["round_intervals"], snia["first_interval"]
        for i, value in enumerate(snia["round_iops"]):
            start = ends[first + i * per] - length
            rows.append({**dict(zip(keys, values if isinstance(values, tuple) else (values,))), "round": i + 1,
                         "start": start, "end": ends[first + (i + 1) * per - 1],
                         "round_iops": value, "mean_iops": snia["mean_iops"],
                         "fit_iops": snia["fit_intercept_iops"] + snia["fit_slope_iops"] * i})
    return pd.DataFrame(rows)


def _snia_layers(window: pd.DataFrame, color: Any) -> list[alt.Chart]:
    """The SNIA window of one workload's IOPS panel, in each series' colour (``color``): the mean
    and its 90 %/110 % lines over the window, each round's mean, the least-squares line through
    the rounds."""
    keys = [c for c in ("config", "workload") if c in window]
    spans = window.groupby(keys, as_index=False).agg(start=("start", "min"), end=("end", "max"),
                                                     mean_iops=("mean_iops", "first"))
    levels = pd.concat([spans.assign(level=name, level_iops=spans["mean_iops"] * share)
                        for name, share in (("mean", 1.0), ("90 %", 0.9), ("110 %", 1.1))], ignore_index=True)
    tooltip = [alt.Tooltip("level:N", title="SNIA window"), alt.Tooltip("level_iops:Q", title="IOPS", format=",.0f")]
    mean = alt.Chart(levels[levels["level"] == "mean"]).mark_rule(strokeWidth=1, opacity=0.6).encode(
        **_present({"x": alt.X("start:Q"), "x2": "end:Q", "y": "level_iops:Q", "color": color, "tooltip": tooltip}))
    bounds = alt.Chart(levels[levels["level"] != "mean"]).mark_rule(strokeDash=[4, 3]).encode(
        **_present({"x": alt.X("start:Q"), "x2": "end:Q", "y": "level_iops:Q", "color": color, "tooltip": tooltip}))
    rounds = alt.Chart(window).mark_point(shape="square", filled=True, size=40, stroke=ANNOTATION_COLOR).encode(
        **_present({"x": alt.X("end:Q"), "y": "round_iops:Q", "color": color, "tooltip": [
            alt.Tooltip("round:O", title="Round"), alt.Tooltip("round_iops:Q", title="Round IOPS", format=",.0f")]}))
    fit = alt.Chart(window).mark_line(strokeWidth=2.5, strokeDash=[10, 2]).encode(
        **_present({"x": alt.X("end:Q"), "y": "fit_iops:Q", "color": color,
                    "detail": "config:N" if "config" in window else None,
                    "tooltip": [alt.Tooltip("fit_iops:Q", title="Least-squares line (IOPS)", format=",.0f")]}))
    return [mean, bounds, rounds, fit]


def latency_histogram(histogram: pd.DataFrame, detail: pd.DataFrame | None = None, *,
                      color_domain: Sequence[str] | None = None,
                      title: str = "Completion-latency distribution at the detail point") -> alt.VConcatChart:
    """Per workload and direction: the share of I/Os in each latency bucket (bars, 1-2-5
    buckets) and the share completed within each latency (cumulative, log scale, with
    0.512, 1 and 2 ms marked).

    ``histogram``: [config,] workload, threads, direction, clat_us, count (fio's bins, or
    vdbench's buckets at their upper bound, see :data:`flashpoc.store.HISTOGRAM_COLUMNS`); a bin
    goes into the 1-2-5 bucket its value falls in, so vdbench's coarser buckets (400-600 us)
    land whole in one of them. ``detail``: the points shown ([config,]
    workload, threads, iops), named under each workload's title.
    """
    _require(histogram, ["workload", "direction", "clat_us", "count"], "latency_histogram")
    keys = [c for c in ("config", "workload", "direction") if c in histogram]
    frame = histogram.copy()
    frame["panel"] = frame["workload"] + " (" + frame["direction"].map(_DIRECTION_NAMES).fillna("all I/Os") + ")"
    totals = frame.groupby(keys)["count"].transform("sum")
    frame["share_pct"] = 100.0 * frame["count"] / totals
    edges = list(HISTOGRAM_EDGES_US)
    frame["bucket"] = pd.cut(frame["clat_us"], [0.0, *edges], right=True, labels=False)
    buckets = frame.groupby([*keys, "panel", "bucket"], as_index=False)["share_pct"].sum()
    labels = [_bucket_label(0.0 if i == 0 else edges[i - 1], edges[i]) for i in range(len(edges))]
    used = sorted(buckets["bucket"].unique())
    order = [labels[i] for i in range(int(used[0]), int(used[-1]) + 1)]
    buckets["latency"] = [labels[int(i)] for i in buckets["bucket"]]
    cumulative = frame.sort_values([*keys, "clat_us"])
    cumulative["within_pct"] = cumulative.groupby(keys)["share_pct"].cumsum()
    cumulative["clat_ms"] = cumulative["clat_us"] / 1000.0
    color, _ = _series_channels(frame, color_domain, facet=False)
    panels = []
    pairs = list(dict.fromkeys(zip(frame["workload"], frame["panel"])))
    rank = {w: i for i, w in enumerate(_in_domain_order(frame["workload"], color_domain))}
    for workload, panel in sorted(pairs, key=lambda pair: rank[pair[0]]):
        bars = alt.Chart(buckets[buckets["panel"] == panel]).mark_bar().encode(**_present({
            "x": alt.X("latency:N", title="Completion latency (us / ms)", sort=order, scale=alt.Scale(domain=order)),
            "xOffset": alt.XOffset("config:N") if "config" in buckets else None,
            "y": alt.Y("share_pct:Q", title="Share of I/Os (%)"),
            "color": color,
            "tooltip": [*_series_tooltip(buckets), alt.Tooltip("latency:N", title="Latency"),
                        alt.Tooltip("share_pct:Q", title="Share of I/Os (%)", format=".2f")]}))
        marks = pd.DataFrame({"clat_ms": SHARE_MARKS_MS, "label": ["512 us", "1 ms", "2 ms"],
                              "y": [110, 125, 140]})  # staggered: the marks are close on a log axis
        rules = alt.Chart(marks).mark_rule(color=ANNOTATION_COLOR, strokeDash=[3, 3]).encode(x="clat_ms:Q")
        rule_labels = alt.Chart(marks).mark_text(align="left", dx=3, color=ANNOTATION_COLOR).encode(
            x="clat_ms:Q", y=alt.Y("y:Q", scale=None), text="label:N")
        curve = alt.Chart(cumulative[cumulative["panel"] == panel]).mark_line(interpolate="step-after").encode(
            **_present({
                "x": alt.X("clat_ms:Q", title="Completion latency (ms, log scale)", scale=alt.Scale(type="log")),
                "y": alt.Y("within_pct:Q", title="I/Os completed within (%)", scale=alt.Scale(domain=[0, 100])),
                "color": color, "detail": "config:N" if "config" in cumulative else None,
                "tooltip": [*_series_tooltip(cumulative), alt.Tooltip("clat_ms:Q", title="Latency (ms)", format=".3f"),
                            alt.Tooltip("within_pct:Q", title="Within (%)", format=".2f")]}))
        panels.append(alt.hconcat(bars.properties(width=300, height=180),
                                  alt.layer(curve, rules, rule_labels).properties(width=300, height=180)
                                  ).properties(title=alt.Title(panel, subtitle=_point_lines(detail, workload))))
    return alt.vconcat(*panels, spacing=16).properties(title=alt.Title(title))


def _in_domain_order(workloads: pd.Series, color_domain: Sequence[str] | None) -> list[str]:
    """The workloads of a chart's panels in the colour domain's order (the campaign's), others after."""
    present = list(dict.fromkeys(workloads))
    known = [w for w in (color_domain or ()) if w in present]
    return known + [w for w in present if w not in known]


def _whole_ticks(end: float, most: int = 12) -> list[int]:
    """Axis ticks at whole seconds (or whole threads) from 0 to ``end``, 1, 2, 5, 10, 20, 50...
    apart, at most ``most`` + 1 of them (vl-convert ignores ``tickMinStep`` and would tick
    0, 0.5, 1 printed as "0, 1, 1")."""
    top = max(1, math.ceil(end))
    step = 1
    while top / step > most:
        step = step * 5 // 2 if str(step).startswith("2") else step * 2
    return list(range(0, top + 1, step))


def _point_name(row: dict[str, Any]) -> str:
    """'[config: ]16 threads, 80,000 IOPS'."""
    config = f"{row['config']}: " if row.get("config") else ""
    return f"{config}{int(row['threads'])} threads, {float(row['iops']):,.0f} IOPS"


def _point_lines(detail: pd.DataFrame | None, workload: str) -> list[str]:
    """The detail points of ``workload``, one line each."""
    if detail is None:
        return []
    return [_point_name(r) for r in detail[detail["workload"] == workload].to_dict("records")]


def _verdict(row: dict[str, Any]) -> str:
    """One line: the point, and whether its intervals were steady."""
    point = _point_name(row)
    steady = row.get("interval_steady")
    if steady is None or pd.isna(steady):
        count = row.get("intervals")
        count = 0 if count is None or pd.isna(count) else int(count)
        return (f"{point}; {count} measured interval{'s' if count != 1 else ''}: no steady-state verdict "
                f"(it needs {MIN_VERDICT_INTERVALS})")
    word = "steady" if bool(steady) else "NOT steady"
    line = (f"{point}; {word}: scatter {row['interval_iops_cv_pct']:.1f} %, drift "
            f"{row['interval_iops_drift_pct']:+.1f} % over {int(row['intervals'])} intervals")
    snia = verdict(row.get("snia_steady"))
    if snia is not None:
        line += (f"; SNIA {'steady' if snia else 'NOT steady'}: data excursion {row['snia_data_excursion_pct']:.1f} % "
                 f"({SNIA_MAX_DATA_EXCURSION_PCT:g} % allowed), slope excursion {row['snia_slope_excursion_pct']:.1f} % "
                 f"({SNIA_MAX_SLOPE_EXCURSION_PCT:g} %)")
    return line


def _downsample(frame: pd.DataFrame, limit: int) -> pd.DataFrame:
    """Average each series' intervals into at most ``limit`` equal time buckets."""
    keys = [c for c in ("config", "workload") if c in frame]
    parts = []
    for _, series in frame.groupby(keys, sort=False):
        if len(series) <= limit:
            parts.append(series)
            continue
        span = float(series["second"].max()) / limit
        bucket = (series["second"] / span).apply(math.ceil)
        averaged = series.groupby(bucket).agg({**{c: "first" for c in keys}, "second": "max", "iops": "mean",
                                               "lat_mean_ms": "mean", "warmup": "max"})
        parts.append(averaged.reset_index(drop=True))
    return pd.concat(parts, ignore_index=True)


def _bucket_label(low_us: float, high_us: float) -> str:
    """'200-500 us', '0.5-1 ms', '<10 us', '>1000 ms': both bounds in the upper bound's unit."""
    in_ms = high_us > 500

    def fmt(us: float) -> str:
        return f"{us / 1000:g}" if in_ms else f"{us:g}"

    if math.isinf(high_us):
        return f">{low_us / 1000:g} ms"
    unit = "ms" if in_ms else "us"
    return f"<{fmt(high_us)} {unit}" if low_us == 0 else f"{fmt(low_us)}-{fmt(high_us)} {unit}"


# --- helpers ------------------------------------------------------------------------------


def _require(df: pd.DataFrame, columns: Sequence[str], who: str) -> None:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise AnalysisError(f"{who}: missing column(s) {', '.join(map(repr, missing))}")
    if df.empty:
        raise AnalysisError(f"{who}: no rows to chart")


def _keys(df: pd.DataFrame) -> list[str]:
    """Columns that identify a run-point: [config], [workload], threads."""
    return [c for c in ("config", "workload", "threads") if c in df.columns]


def _mean_per_point(df: pd.DataFrame, metrics: list[str], who: str) -> pd.DataFrame:
    """One row per run-point (mean over repeats) with only the columns the chart needs."""
    _require(df, ["threads", *metrics], who)
    keys = _keys(df)
    data = df[keys + metrics].copy()
    for column in metrics:  # None (a metric not collected) -> NaN, which the charts skip
        data[column] = pd.to_numeric(data[column], errors="coerce").astype(float)
    out = data.groupby(keys, as_index=False, sort=True).mean()
    out["threads"] = out["threads"].astype(int)
    return out


def _melt(df: pd.DataFrame, columns: dict[str, str], var: str, value: str, who: str) -> pd.DataFrame:
    """Average per run-point, then long format: one row per (run-point, column)."""
    wide = _mean_per_point(df, [c for c in columns], who)
    keys = _keys(wide)
    long = wide.melt(id_vars=keys, value_vars=list(columns), var_name=var, value_name=value)
    long[var] = long[var].map(columns)
    return long.dropna(subset=[value]).reset_index(drop=True)


def _present(encodings: dict[str, Any]) -> dict[str, Any]:
    """The encodings that are set (no colour channel when there is no series column)."""
    return {channel: value for channel, value in encodings.items() if value is not None}


def _has_configs(df: pd.DataFrame) -> bool:
    return "config" in df.columns and df["config"].nunique() > 1


def _series_channels(
    df: pd.DataFrame, color_domain: Sequence[str] | None, *, facet: bool = False
) -> tuple[Any, Any]:
    """(colour channel, second channel) for the series in ``df``.

    Colour is the configuration when there are several (or ``color_domain`` names the ones
    there are: a selection of one compared campaign keeps its colour), else the workload. The
    second channel is then the workload, as a dash (or, with ``facet``, a column); else None.
    """
    names = set(df["config"].astype(str)) if "config" in df.columns else set()
    if _has_configs(df) or (names and color_domain is not None and names <= set(color_domain)):
        field, title = "config", "Configuration"
    elif "workload" in df.columns:
        field, title = "workload", "Workload"
    else:
        return None, None
    domain = list(color_domain) if color_domain is not None else sorted(df[field].astype(str).unique())
    present = set(df[field].astype(str))
    # the scale keeps every series' colour; the legend names only the series drawn
    legend = alt.Legend(values=[name for name in domain if name in present]) if present < set(domain) else alt.Undefined
    color = alt.Color(
        f"{field}:N", title=title, sort=domain, scale=alt.Scale(domain=domain, range=list(PALETTE)), legend=legend
    )
    second = None
    if field == "config" and "workload" in df.columns:
        if facet:
            second = alt.Column("workload:N", title="Workload")
        else:
            second = alt.StrokeDash("workload:N", title="Workload", legend=alt.Legend(symbolType="stroke"))
    return color, second


#: Dash patterns in legend order: solid, dashed, dotted, dash-dot.
_DASHES = ([1, 0], [6, 3], [2, 2], [6, 2, 2, 2])


def _dash_channel(field: str, title: str, values: list[str], known: list[str]) -> alt.StrokeDash:
    """Dashes fixed by position in ``known`` (p50 solid, p90 dashed, p99 dotted, p99.9 dash-dot), whichever
    of them ``values`` holds."""
    dashes = [list(_DASHES[known.index(v) % len(_DASHES)]) for v in values]
    return alt.StrokeDash(
        f"{field}:N", title=title, sort=values, scale=alt.Scale(domain=values, range=dashes),
        legend=alt.Legend(symbolType="stroke"),
    )


def _series_tooltip(df: pd.DataFrame) -> list[alt.Tooltip]:
    tips = []
    if "config" in df.columns:
        tips.append(alt.Tooltip("config:N", title="Configuration"))
    if "workload" in df.columns:
        tips.append(alt.Tooltip("workload:N", title="Workload"))
    return tips


def _threads_x(threads: Sequence[int] | pd.Series | None = None) -> alt.X:
    """The threads axis: whole numbers only. Over a span of at most 12 threads its ticks are
    every whole number of the span (vl-convert ignores ``tickMinStep`` and ticks 1, 1.5, 2...)."""
    axis = {"format": "d", "tickMinStep": 1}
    known = [int(t) for t in pd.Series(threads).dropna()] if threads is not None else []
    if known and max(known) - min(known) <= 12:
        axis["values"] = list(range(min(known), max(known) + 1))
    return alt.X("threads:Q", title=TITLE_THREADS, axis=alt.Axis(**axis))


def _iops_x() -> alt.X:
    return alt.X("iops:Q", title=TITLE_IOPS, axis=alt.Axis(format="~s", tickCount=8))


def _latency_y(field: str) -> alt.Y:
    return alt.Y(f"{field}:Q", title=TITLE_LAT_MEAN)


def _knee_layers(knees: pd.DataFrame, x: alt.X | None = None, load: str = "iops") -> list[alt.Chart]:
    """The knees as dark diamonds, named once in the legend ("knee"); no label beside each, so that
    close knees do not print over each other. ``load``: the x field (iops or bw_mibps)."""
    columns = [c for c in ("config", "workload", "threads", "iops", "bw_mibps", "lat_mean_ms") if c in knees.columns]
    data = knees[columns].dropna(subset=[load, "lat_mean_ms"]).assign(marker="knee").reset_index(drop=True)
    if data.empty:
        return []
    tooltip = [
        *_series_tooltip(data),
        *([alt.Tooltip("threads:Q", title="Threads")] if "threads" in data.columns else []),
        alt.Tooltip("iops:Q", title="Knee IOPS", format=",.0f"),
        *([alt.Tooltip("bw_mibps:Q", title=f"Knee {TITLE_MIBPS}", format=",.1f")] if "bw_mibps" in data else []),
        alt.Tooltip("lat_mean_ms:Q", title="Knee latency (ms)", format=".3f"),
    ]
    marks = alt.Chart(data).mark_point(size=170, filled=True, color=ANNOTATION_COLOR, opacity=1).encode(
        x=x if x is not None else _iops_x(), y=_latency_y("lat_mean_ms"), tooltip=tooltip,
        shape=alt.Shape("marker:N", title="Marks", scale=alt.Scale(domain=["knee"], range=["diamond"]),
                        legend=alt.Legend(symbolFillColor=ANNOTATION_COLOR, symbolStrokeColor=ANNOTATION_COLOR)))
    return [marks]


def _slo_layers(slo_ms: float) -> list[alt.Chart]:
    data = pd.DataFrame({"slo_ms": [float(slo_ms)], "label": [f"SLO {slo_ms:g} ms"]})
    y = _latency_y("slo_ms")
    rule = alt.Chart(data).mark_rule(color=ANNOTATION_COLOR, strokeDash=[6, 4], strokeWidth=1.5).encode(y=y)
    label = (
        alt.Chart(data)
        .mark_text(align="left", baseline="bottom", dx=4, dy=-3, color=ANNOTATION_COLOR)
        .encode(y=y, x=alt.value(0), text="label:N")
    )
    return [rule, label]


def _saturation_layers(threads: int, x: alt.X, *, label: bool) -> list[alt.Chart]:
    data = pd.DataFrame({"threads": [int(threads)], "label": [f"saturation: {int(threads)} threads"]})
    layers = [
        alt.Chart(data).mark_rule(color=ANNOTATION_COLOR, strokeDash=[6, 4], strokeWidth=1.5).encode(x=x)
    ]
    if label:
        layers.append(
            alt.Chart(data)
            .mark_text(align="left", baseline="top", dx=4, dy=4, color=ANNOTATION_COLOR)
            .encode(x=x, y=alt.value(0), text="label:N")
        )
    return layers



def precondition_rounds(df: pd.DataFrame, *, color_domain: Sequence[str] | None = None,
                        title: str = "Preconditioning: IOPS per round of each write workload") -> alt.LayerChart:
    """The write workloads' preconditioning converging (:func:`flashpoc.precondition.rounds_table`):
    IOPS against the round, one line per workload; over SNIA's measurement window (the last 5
    rounds) the window's mean (dashed), 90 % and 110 % of it (dotted) and the least-squares line
    through the window's rounds (thick long dashes, ``fit_iops``)."""
    _require(df, ["workload", "round", "iops", "window_mean_iops", "window_first", "window_last"], "precondition_rounds")
    color, _ = _series_channels(df, color_domain)
    x = alt.X("round:Q", title="Round (number)", axis=alt.Axis(tickMinStep=1, format="d"))
    tooltip = [alt.Tooltip("workload:N", title="Workload"), alt.Tooltip("round:Q", title="Round"),
               alt.Tooltip("iops:Q", title="IOPS", format=",.0f"),
               alt.Tooltip("lat_mean_ms:Q", title="Mean latency (ms)", format=".3f")]
    layers: list[alt.Chart] = [alt.Chart(df).mark_line(point=True).encode(
        x=x, y=alt.Y("iops:Q", title=TITLE_IOPS, axis=alt.Axis(format="~s")), color=color, tooltip=tooltip)]
    windows = df.dropna(subset=["window_mean_iops"]).drop_duplicates("workload")
    if not windows.empty:
        levels = pd.concat([windows.assign(level=name, level_iops=windows["window_mean_iops"] * share)
                            for name, share in (("window mean", 1.0), ("90 % of it", 0.9), ("110 % of it", 1.1))])
        layers.append(alt.Chart(levels).mark_rule(strokeWidth=1.5).encode(
            x=alt.X("window_first:Q"), x2="window_last:Q", y=alt.Y("level_iops:Q"), color=color,
            strokeDash=alt.StrokeDash("level:N", title="SNIA window", sort=["window mean", "90 % of it", "110 % of it"],
                                      scale=alt.Scale(range=[[6, 3], [2, 2], [2, 2]])),
            tooltip=[alt.Tooltip("workload:N", title="Workload"), alt.Tooltip("level:N", title="Line"),
                     alt.Tooltip("level_iops:Q", title="IOPS", format=",.0f")]))
    fit = df.dropna(subset=["fit_iops"]) if "fit_iops" in df else df.iloc[:0]
    if not fit.empty:
        layers.append(alt.Chart(fit).mark_line(strokeWidth=2.5, strokeDash=[10, 2]).encode(
            x=x, y=alt.Y("fit_iops:Q"), color=color, detail="workload:N",
            tooltip=[alt.Tooltip("workload:N", title="Workload"), alt.Tooltip("round:Q", title="Round"),
                     alt.Tooltip("fit_iops:Q", title="Least-squares line (IOPS)", format=",.0f")]))
    subtitle = ("SNIA window (the last 5 rounds), in each workload's colour: its mean (dashes), 90 % and 110 % of it "
                "(dots) and the least-squares line through its rounds (thick long dashes).")
    return alt.layer(*layers).properties(title=alt.Title(title, subtitle=subtitle))


def sql_runs(runs: pd.DataFrame, *, title: str = "A DBA's job: elapsed time and DB host CPU per run") -> alt.HConcatChart:
    """The runs of a DBA's job side by side: each run's elapsed time (min), and the DB host's
    %user and %iowait over its snapshot interval (AWR Host CPU), one colour per run (its label,
    a configuration: ``undo-on-hdd``, ``undo-on-ssd``).

    ``runs``: one row per run with ``config`` (its label), ``elapsed_s`` and optionally
    ``host_cpu_user_pct`` and ``host_cpu_iowait_pct``.
    """
    _require(runs, ["config", "elapsed_s"], "sql_runs")
    domain = list(dict.fromkeys(runs["config"].astype(str)))
    color = alt.Color("config:N", title="Configuration", sort=domain, scale=alt.Scale(domain=domain, range=list(PALETTE)))
    data = runs.assign(elapsed_min=runs["elapsed_s"] / 60.0)
    elapsed = alt.Chart(data).mark_bar().encode(
        x=alt.X("config:N", title="Run", sort=domain),
        y=alt.Y("elapsed_min:Q", title="Elapsed time (min)"),
        color=color,
        tooltip=[alt.Tooltip("config:N", title="Run"), alt.Tooltip("elapsed_min:Q", title="Elapsed (min)", format=".2f")],
    ).properties(width=220, title=alt.Title("Elapsed time per run"))
    cpu_columns = {"host_cpu_user_pct": "%user", "host_cpu_iowait_pct": "%iowait"}
    present = {k: v for k, v in cpu_columns.items() if k in runs and runs[k].notna().any()}
    if not present:
        return alt.hconcat(elapsed).properties(title=alt.Title(title))
    long = runs.melt(id_vars=["config"], value_vars=list(present), var_name="metric", value_name="pct")
    long["metric"] = long["metric"].map(present)
    cpu = alt.Chart(long).mark_bar().encode(
        x=alt.X("metric:N", title="DB host CPU", sort=list(present.values())),
        xOffset=alt.XOffset("config:N", sort=domain),
        y=alt.Y("pct:Q", title="Share of the DB host's CPU time (%)"),
        color=color,
        tooltip=[alt.Tooltip("config:N", title="Run"), alt.Tooltip("metric:N", title="CPU"),
                 alt.Tooltip("pct:Q", title="%", format=".1f")],
    ).properties(width=220, title=alt.Title("%user vs %iowait per run (AWR Host CPU)"))
    return alt.hconcat(elapsed, cpu).properties(title=alt.Title(title))

"""Sweep and probe charts: hockey stick, load and rate vs threads, percentiles, host CPU, per-host IOPS."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import altair as alt
import pandas as pd

from flashpoc.core.errors import AnalysisError
from flashpoc.analysis.hostlimit import ALL_HOSTS
from flashpoc.analysis.rows import KIND_RANDOM, KIND_THROUGHPUT, workload_kinds
from flashpoc.present.chart import intervals
from flashpoc.present.chart.encodings import (_dash_channel, _has_configs, _iops_x, _knee_layers, _mean_per_point, _melt, _present, _require,
                        _saturation_layers, _series_channels, _series_tooltip, _slo_layers, _threads_x, within_rows)
from flashpoc.present.chart.theme import (FORMAT_IOPS, HOST_PALETTE, MAX_ROWS, TITLE_THREADS, TITLE_CLAT, TITLE_CLAT_LOG, TITLE_CPU, TITLE_IOPS,
                    TITLE_LAT_MEAN, TITLE_MIBPS, _CPU_METRICS, _PERCENTILES)


# --- charts -------------------------------------------------------------------------------


KIND_TITLES = {KIND_RANDOM: "Small-block random I/O (blocks up to 32 KiB): IOPS vs mean latency",
               KIND_THROUGHPUT: "Sequential and large-block I/O: throughput vs mean latency"}


def hockey_stick(
    df: pd.DataFrame,
    knees: pd.DataFrame | None = None,
    slo_ms: float | None = None,
    *,
    title: str | None = None,
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
    panel's subtitle says every point is under it). ``title``: by default what the panels measure
    ("IOPS vs mean latency", "Throughput vs mean latency" or both).
    """
    metrics = ["iops", latency, *(["bw_mibps"] if "bw_mibps" in df.columns else [])]
    data = intervals.with_intervals(df, _mean_per_point(df, metrics, "hockey_stick"), metrics).dropna(subset=[latency])
    kinds = workload_kinds(df) if "bw_mibps" in data.columns else {}
    data["kind"] = [kinds.get(str(w), KIND_RANDOM) for w in data["workload"]] if "workload" in data else KIND_RANDOM
    color, dash = _series_channels(data, color_domain)
    parts = [(kind, data[data["kind"] == kind]) for kind in (KIND_RANDOM, KIND_THROUGHPUT)]
    parts = [(kind, part) for kind, part in parts if not part.empty] or [(KIND_RANDOM, data)]
    panels = [_hockey_panel(part.drop(columns="kind"), kind, knees, slo_ms, color, dash, latency, latency_title,
                            titled=len(parts) > 1) for kind, part in parts]
    lead = "Each point is one thread count; lines follow increasing threads."
    if intervals.has_intervals(data, "iops"):
        lead += " " + intervals.NOTE
    if title is None:
        measures = " and ".join({KIND_RANDOM: "IOPS", KIND_THROUGHPUT: "throughput"}[k] for k, _ in parts)
        title = f"{measures[0].upper()}{measures[1:]} vs mean latency"
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
    titles = (TITLE_IOPS if kind == KIND_RANDOM else TITLE_MIBPS, latency_title)
    layers += [*intervals.rules(part, load, latency, color, load, titles),
               *intervals.rules(part, load, latency, color, latency, titles)]
    panel = alt.layer(*layers).properties(title=alt.Title(KIND_TITLES[kind] if titled else "", subtitle=notes))
    return panel.properties(height=250) if titled else panel  # two panels, one above the other, fit a page


#: The panels of :func:`load_vs_threads`: what each kind of workload is measured in.
LOAD_TITLES = {KIND_RANDOM: "Small-block random I/O (blocks up to 32 KiB): IOPS vs threads",
               KIND_THROUGHPUT: "Sequential and large-block I/O: throughput vs threads"}


def load_vs_threads(df: pd.DataFrame, *, color_domain: Sequence[str] | None = None,
                    title: str = "IOPS and throughput vs threads") -> alt.LayerChart | alt.VConcatChart:
    """The sweep's load against threads, configurations overlaid: small-block random I/O in
    IOPS, sequential and large-block I/O in MiB/s (:func:`flashpoc.present.summary.io_kind`), each kind
    its own panel and scale. Colours as in every chart (:func:`_series_channels`: the
    configuration when there are several, the workload dashed; else the workload).

    ``df``: workload, threads, iops, optional bw_mibps, rw, bs, config; repeats are averaged."""
    metrics = ["iops", *(["bw_mibps"] if "bw_mibps" in df.columns else [])]
    data = intervals.with_intervals(df, _mean_per_point(df, metrics, "load_vs_threads"), metrics)
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
        bars = intervals.rules(part, "threads", field, color, field, (TITLE_THREADS, axis))
        panel = alt.layer(panel, *bars) if bars else panel
        panels.append(panel.properties(title=alt.Title(LOAD_TITLES[kind]), height=220) if len(parts) > 1 else panel)
    lead = "Each point is one thread count of the sweep." + (
        " " + intervals.NOTE if intervals.has_intervals(data, "iops") else "")
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
    top = base.encode(x=x, y=alt.Y("iops:Q", title=TITLE_IOPS, axis=alt.Axis(format=FORMAT_IOPS, tickCount=8)), **extra)
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


def per_host_iops(
    table: pd.DataFrame,
    *,
    title: str = "IOPS per load host vs threads",
) -> alt.Chart:
    """Each load host's IOPS against threads (per host), one column per workload (and one row
    per configuration when campaigns are compared): a host whose line flattens while the
    others still rise is the bottleneck; equal lines that flatten together point at the array.

    ``table``: :func:`flashpoc.analysis.hostlimit.per_host_table` (workload, threads, host, iops,
    iops_share_pct, host_cpu_busy_pct); its ``(all hosts)`` rows are left out. A table of more
    than :data:`MAX_ROWS` rows (16 hosts x 200 points, compared with another campaign) draws every
    n-th thread count of each workload (:func:`~.encodings.within_rows`), the subtitle says so;
    a mark on each point only while the chart draws at most :data:`POINT_MARKS` of them.
    """
    _require(table, ["workload", "threads", "host", "iops"], "per_host_iops")
    data = table[table["host"] != ALL_HOSTS]
    keys = [k for k in ("config", "workload", "threads", "host") if k in data]
    data = data.groupby(keys, as_index=False, sort=True).mean(numeric_only=True)
    data, step = within_rows(data, [k for k in ("config", "workload") if k in data], "threads")
    hosts = sorted(data["host"].astype(str).unique())
    encodings: dict[str, Any] = {
        "x": _threads_x(data["threads"]),
        "y": alt.Y("iops:Q", title=TITLE_IOPS, axis=alt.Axis(format=FORMAT_IOPS)),
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
    chart = alt.Chart(data).mark_line(point=len(data) <= POINT_MARKS).encode(**_present(encodings))
    subtitle = ([f"Every {_ordinal(step)} thread count of each workload drawn (a chart holds at most {MAX_ROWS:,} "
                 "points); per_host.csv has every one."] if step > 1 else [])
    return chart.properties(width=280, title=alt.Title(title, subtitle=subtitle) if subtitle else alt.Title(title))


#: a chart of lines draws a mark on each point while it has at most this many (beyond, the marks
#: hide the lines, and make the SVG, the PNG and the printed PDF slow and large)
POINT_MARKS = 1000


def _ordinal(n: int) -> str:
    """2nd, 3rd, 4th, 11th, 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


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

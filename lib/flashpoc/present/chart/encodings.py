"""Shared chart parts: column checks, long tables, series colours and dashes, axes and marker layers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import altair as alt
import pandas as pd

from flashpoc.core.errors import AnalysisError
from flashpoc.core.tables import threads_text
from flashpoc.present.chart.theme import (ANNOTATION_COLOR, FORMAT_IOPS, MAX_ROWS, PALETTE, TITLE_IOPS, TITLE_LAT_MEAN, TITLE_MIBPS,
                    TITLE_THREADS)


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
    return _in_given_order(out, df)


def _in_given_order(out: pd.DataFrame, given: pd.DataFrame) -> pd.DataFrame:
    """``out`` with its configurations and workloads in their order of first appearance in ``given``
    (the report's: the baseline first, workloads as the parameters list them), threads ascending."""
    series = [c for c in ("config", "workload") if c in out and c in given]
    if not series:
        return out
    rank = {c: {v: i for i, v in enumerate(dict.fromkeys(given[c].astype(str)))} for c in series}
    return out.sort_values([*series, "threads"], kind="stable", key=lambda column: column.astype(str).map(
        rank[column.name]) if column.name in rank else column).reset_index(drop=True)


def _melt(df: pd.DataFrame, columns: dict[str, str], var: str, value: str, who: str) -> pd.DataFrame:
    """Average per run-point, then long format: one row per (run-point, column)."""
    wide = _mean_per_point(df, [c for c in columns], who)
    keys = _keys(wide)
    long = wide.melt(id_vars=keys, value_vars=list(columns), var_name=var, value_name=value)
    long[var] = long[var].map(columns)
    return long.dropna(subset=[value]).reset_index(drop=True)


def within_rows(data: pd.DataFrame, panels: list[str], x: str, limit: int = MAX_ROWS) -> tuple[pd.DataFrame, int]:
    """``data`` cut to at most ``limit`` rows (a chart embeds at most :data:`MAX_ROWS`), and the
    step ``n`` it took: in each panel (the ``panels`` columns' values) every ``n``-th of its ``x``
    values is kept, its first and last always, for every series alike (each host's line at the same
    thread counts), with ``n`` the smallest that fits; ``n`` is 1 when every row fits. At fewer
    than two ``x`` values a panel keeps what it has."""
    if len(data) <= limit:
        return data, 1
    groups = data.groupby(panels, sort=False)[x] if panels else data[x]
    rank = (groups.rank(method="dense") - 1).astype(int)
    last = (groups.transform("nunique") if panels else pd.Series(data[x].nunique(), data.index)) - 1
    step = 2
    while True:
        keep = (rank % step == 0) | (rank == last)
        if keep.sum() <= limit or step > int(last.max()):
            return data[keep].reset_index(drop=True), step
        step += 1


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
        workloads = list(dict.fromkeys(df["workload"].astype(str)))  # as given: the parameters' order
        if facet:
            second = alt.Column("workload:N", title="Workload", sort=workloads)
        else:
            second = alt.StrokeDash("workload:N", title="Workload", sort=workloads, scale=alt.Scale(domain=workloads),
                                    legend=alt.Legend(symbolType="stroke"))
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
    return alt.X("iops:Q", title=TITLE_IOPS, axis=alt.Axis(format=FORMAT_IOPS, tickCount=8))


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
    data = pd.DataFrame({"threads": [int(threads)], "label": [f"saturation: {threads_text(int(threads))}"]})
    layers = [
        alt.Chart(data).mark_rule(color=ANNOTATION_COLOR, strokeDash=[6, 4], strokeWidth=1.5).encode(x=x)
    ]
    if label:  # at the foot of the rule: the curve is high there (at the top it ran through the label)
        layers.append(
            alt.Chart(data)
            .mark_text(align="left", baseline="bottom", dx=4, dy=-4, color=ANNOTATION_COLOR)
            .encode(x=x, y=alt.datum(0), text="label:N")  # the IOPS axis starts at 0
        )
    return layers


def _in_domain_order(workloads: pd.Series, color_domain: Sequence[str] | None) -> list[str]:
    """The workloads of a chart's panels in the colour domain's order (the campaign's), others after."""
    present = list(dict.fromkeys(workloads))
    known = [w for w in (color_domain or ()) if w in present]
    return known + [w for w in present if w not in known]


def _point_name(row: dict[str, Any]) -> str:
    """'[config: ]16 threads, 80,000 IOPS'."""
    config = f"{row['config']}: " if row.get("config") else ""
    return f"{config}{threads_text(int(row['threads']))}, {float(row['iops']):,.0f} IOPS"

"""The live view's charts (:mod:`flashpoc.present.live`): the points a probe or sweep has stored so far, and
the intervals of the point running now, in the engine's words and the report's colours."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import altair as alt
import pandas as pd

from flashpoc.present.chart.encodings import _mean_per_point, _present, _series_channels, _series_tooltip, _threads_x
from flashpoc.present.chart.sweep import hockey_stick, load_vs_threads
from flashpoc.present.chart.theme import PALETTE, TITLE_IOPS, TITLE_LAT_MEAN, TITLE_MIBPS

#: the columns of a row the curves draw (the others are left out of the chart's data)
CURVE_COLUMNS = ("config", "workload", "threads", "repeat", "rw", "bs", "iops", "bw_mibps", "lat_mean_ms")
#: a time series' columns (intervals.csv) in words; another column is named as it is
INTERVAL_TITLES = {"iops": TITLE_IOPS, "lat_mean_ms": TITLE_LAT_MEAN, "bw_mibps": TITLE_MIBPS,
                   "tpm": "Transactions per minute"}


def curve_frame(rows: Sequence[dict[str, Any]], words: dict[str, str]) -> pd.DataFrame:
    """The rows stored so far as the curves draw them: their keys, load and latency columns
    (``words``: :func:`flashpoc.present.progress.engine_words`), nothing else."""
    keep = [*CURVE_COLUMNS, words["rate"], words["latency"]]
    frame = pd.DataFrame([{k: r.get(k) for k in dict.fromkeys(keep) if k in r} for r in rows])
    return frame.dropna(axis=1, how="all")


def live_curves(points: pd.DataFrame, words: dict[str, str], *, title: str = "",
                color_domain: Sequence[str] | None = None) -> alt.HConcatChart:
    """The curve that matters, growing: latency against the engine's rate (the hockey stick: IOPS
    for small-block random I/O and MiB/s for sequential and large-block I/O, as the report draws
    it; another engine's rate, e.g. NOPM, against its own latency) beside the rate against
    threads, under ``title``. ``points``: :func:`curve_frame`; ``words``: :func:`flashpoc.present.progress.engine_words`."""
    if words["rate"] == "iops" and "lat_mean_ms" in points:
        curve = hockey_stick(points, color_domain=color_domain, title="Latency vs load")
        load = load_vs_threads(points, color_domain=color_domain, title="Load vs threads")
    else:
        curve, load = _rate_charts(points, words, color_domain)
    figure = alt.hconcat(curve, load, spacing=40).properties(title=alt.Title(title) if title else alt.Undefined)
    # side by side in a notebook's width, the workloads' legend under them (at the right it is cut off)
    return figure.configure_view(continuousWidth=440, continuousHeight=280).configure_legend(orient="bottom")


def _rate_charts(points: pd.DataFrame, words: dict[str, str], color_domain: Sequence[str] | None
                 ) -> tuple[alt.Chart, alt.Chart]:
    """The latency-against-rate and rate-against-threads charts of an engine whose rate is its own
    (``words``), or of points without a latency: the rate alone against threads."""
    rate, latency = words["rate"], words["latency"]
    metrics = [c for c in (rate, latency) if c in points]
    data = _mean_per_point(points, metrics, "live_curves")
    color, dash = _series_channels(data, color_domain)
    rate_axis = alt.Axis(format=",.0f")
    latency_title = f"{words['latency_word'][:1].upper()}{words['latency_word'][1:]} (ms)"
    threads_x = _threads_x(data["threads"])
    threads_x.title = f"Concurrency ({words['unit']})"
    tooltip = [*_series_tooltip(data), alt.Tooltip("threads:Q", title=words["unit"].capitalize()),
               *(alt.Tooltip(f"{c}:Q", title=t, format=f) for c, t, f in
                 ((rate, words["rate_word"], ",.0f"), (latency, latency_title, ".3f")) if c in data)]
    common = {"color": color, "strokeDash": dash, "order": alt.Order("threads:Q"), "tooltip": tooltip}
    load = alt.Chart(data).mark_line(point=True).encode(**_present({
        "x": threads_x, "y": alt.Y(f"{rate}:Q", title=words["rate_word"], axis=rate_axis), **common}))
    load = load.properties(title=f"{words['rate_word']} vs {words['unit']}")
    if latency not in data:
        return load, alt.Chart(data).mark_text().properties(title="No latency in these points")
    curve = alt.Chart(data.dropna(subset=[latency])).mark_line(point=True).encode(**_present({
        "x": alt.X(f"{rate}:Q", title=words["rate_word"], axis=rate_axis),
        "y": alt.Y(f"{latency}:Q", title=latency_title), **common}))
    return curve.properties(title=f"{latency_title} vs {words['rate_word']}"), load


def live_intervals(series: Sequence[dict[str, Any]], *, title: str, color: str = PALETTE[0]) -> alt.HConcatChart:
    """The intervals of the running point as the engine printed them: one small panel per value
    (IOPS, latency, the engine's rate), each interval a dot at its end, warm-up intervals grey.

    ``series``: ``{second, warmup, <column>: value}`` per interval (:meth:`flashpoc.present.progress.Progress.interval`).
    """
    frame = pd.DataFrame(list(series))
    values = [c for c in frame.columns if c not in ("second", "warmup") and frame[c].notna().any()]
    frame["interval"] = ["warm-up" if w else "measured" for w in frame.get("warmup", pd.Series(False, frame.index))]
    shade = alt.Color("interval:N", title="Interval", scale=alt.Scale(domain=["measured", "warm-up"],
                                                                     range=[color, "#aaaaaa"]))
    x = alt.X("second:Q", title="Time since the point began (s)", scale=alt.Scale(domainMin=0),
              axis=alt.Axis(format="d", tickMinStep=1))
    panels, width = [], 330 if len(values) < 3 else 250  # side by side within the curves' width
    for column in values:
        name = INTERVAL_TITLES.get(column, column)
        fmt = ".3f" if column.endswith("_ms") else ",.0f"
        tooltip = [alt.Tooltip("second:Q", title="Time (s)", format=".0f"), alt.Tooltip(f"{column}:Q", title=name,
                                                                                       format=fmt)]
        line = alt.Chart(frame).mark_line(color=color, opacity=0.5).encode(x=x, y=alt.Y(f"{column}:Q", title=name))
        dots = alt.Chart(frame).mark_point(filled=True, size=40).encode(
            x=x, y=alt.Y(f"{column}:Q", title=name), color=shade, tooltip=tooltip)
        panels.append(alt.layer(line, dots).properties(width=width, height=160))
    return alt.hconcat(*panels).properties(title=alt.Title(title))


def series_color(workload: str, color_domain: Sequence[str]) -> str:
    """The colour of ``workload`` in every chart of the report (its place in ``color_domain``)."""
    names = list(color_domain)
    return PALETTE[names.index(workload) % len(PALETTE)] if workload in names else PALETTE[0]

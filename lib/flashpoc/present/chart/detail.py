"""One point in detail: time series, SNIA steady-state windows, latency histogram, precondition rounds."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import altair as alt
import pandas as pd

from flashpoc.core.registry import engine_names, get_engine
from flashpoc.analysis import SNIA_MAX_DATA_EXCURSION_PCT, SNIA_MAX_SLOPE_EXCURSION_PCT, SNIA_ROUNDS, snia_steady_state
from flashpoc.analysis.rows import MIN_VERDICT_INTERVALS
from flashpoc.core.tables import verdict
from flashpoc.present.chart.encodings import _in_domain_order, _point_name, _present, _require, _series_channels, _series_tooltip
from flashpoc.present.chart.theme import ANNOTATION_COLOR, FORMAT_IOPS, TITLE_IOPS, TITLE_LAT_MEAN


# --- one point in detail: time series and latency distribution ------------------------------

#: Most intervals drawn per series; longer series are averaged into this many buckets.
MAX_INTERVALS = 600

#: Latency buckets (upper edges, us) of the histogram: a 1-2-5 series, readable on an axis.
HISTOGRAM_EDGES_US: tuple[float, ...] = (10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000,
                                         50_000, 100_000, 200_000, 500_000, 1_000_000, float("inf"))

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
    frame = _interval_frame(intervals)
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
    subtitle = _interval_subtitle(detail, windows)
    return alt.vconcat(*panels, spacing=16).properties(title=alt.Title(title, subtitle=subtitle))


def _interval_frame(intervals: pd.DataFrame) -> pd.DataFrame:
    """The columns :func:`interval_series` charts, as numbers, and ``warmup`` as a boolean."""
    columns = [c for c in ("config", "workload", "second", "iops", "lat_mean_ms", "warmup") if c in intervals]
    frame = intervals[columns].copy()
    for column in ("second", "iops", "lat_mean_ms"):  # a table of CSV files, one of them empty, is of object type
        frame[column] = pd.to_numeric(frame[column], errors="coerce").astype(float)
    if "warmup" in frame:
        frame["warmup"] = frame["warmup"].map(lambda v: str(v).strip().lower() in ("true", "1", "1.0"))
    return frame


def _interval_subtitle(detail: pd.DataFrame, windows: pd.DataFrame) -> list[str]:
    """The subtitle of :func:`interval_series`: the warm-up of each engine shown (its
    :attr:`~flashpoc.engines.base.Engine.warm_up_note`; every registered engine's when the points
    name none), the SNIA window, and what an engine's series count (its ``interval_note``)."""
    shown = set(detail["engine"].dropna().astype(str)) if "engine" in detail else None
    noted = [get_engine(name) for name in engine_names() if shown is None or name in shown]
    noted = [each for each in noted if each.warm_up_note]
    notes = "; ".join(each.warm_up_note for each in noted)
    subtitle = [f"Grey: warm-up, left out of the point's result ({notes}).",
                "Each dot is one interval's average, drawn at the interval's end: nothing is drawn before the "
                "first interval ends."]
    if not windows.empty:
        subtitle.append(f"SNIA PTS window ({SNIA_ROUNDS} rounds of the measured intervals), in each series' colour: "
                        "its mean (thin line), 90 % and 110 % of it (short dashes), each round's mean (squares) and the "
                        "least-squares line across the window (thick long dashes).")
    subtitle += [note for each in noted if (note := each.interval_note(detail))]
    return subtitle


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
    vdbench's buckets at their upper bound, see :data:`flashpoc.core.store.HISTOGRAM_COLUMNS`); a bin
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
        marks = pd.DataFrame({"clat_ms": SHARE_MARKS_MS, "label": ["512 us", "1 ms", "2 ms"]})
        rules = alt.Chart(marks).mark_rule(color=ANNOTATION_COLOR, strokeDash=[3, 3]).encode(x="clat_ms:Q")
        # each label above the panel, up along its rule: inside the panel the curve climbs through them
        rule_labels = alt.Chart(marks).mark_text(align="left", baseline="middle", angle=270, dx=4,
                                                 color=ANNOTATION_COLOR).encode(
            x="clat_ms:Q", y=alt.datum(100), text="label:N")
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


def _whole_ticks(end: float, most: int = 12) -> list[int]:
    """Axis ticks at whole seconds (or whole threads) from 0 to ``end``, 1, 2, 5, 10, 20, 50...
    apart, at most ``most`` + 1 of them (vl-convert ignores ``tickMinStep`` and would tick
    0, 0.5, 1 printed as "0, 1, 1")."""
    top = max(1, math.ceil(end))
    step = 1
    while top / step > most:
        step = step * 5 // 2 if str(step).startswith("2") else step * 2
    return list(range(0, top + 1, step))


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


def precondition_rounds(df: pd.DataFrame, *, color_domain: Sequence[str] | None = None,
                        title: str = "Preconditioning: IOPS per round of each write workload") -> alt.LayerChart:
    """The write workloads' preconditioning converging (:func:`flashpoc.campaign.precondition.rounds_table`):
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
        x=x, y=alt.Y("iops:Q", title=TITLE_IOPS, axis=alt.Axis(format=FORMAT_IOPS)), color=color, tooltip=tooltip)]
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

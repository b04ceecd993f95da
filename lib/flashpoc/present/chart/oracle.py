"""Oracle charts: latencies and CPU from AWR, DB time shares, wait histograms, a DBA's job."""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import pandas as pd

from flashpoc.present.chart.encodings import (_in_domain_order, _keys, _mean_per_point, _melt, _point_name, _present, _require,
                        _series_channels, _series_tooltip)
from flashpoc.present.chart.sweep import _lines_vs_threads
from flashpoc.present.chart.theme import FORMAT_IOPS, PALETTE, TITLE_IOPS


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
        "x": alt.X("iops:Q", title=TITLE_IOPS, axis=alt.Axis(format=FORMAT_IOPS)),
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
    title: str | None = None,
    color_domain: Sequence[str] | None = None,
) -> alt.VConcatChart:
    """Bars: the share (%) of an event's waits in each AWR histogram bucket (``<512us``,
    ``512us-1ms``, ... ``>=32ms``) at one point per workload, one panel per workload, the
    configurations side by side in their own colours (never added together). The title names
    the events it shows (by default: "Single-block read wait histogram ..." only for ``db file
    sequential read``; a scan's ``direct path read`` is a multiblock read).

    ``buckets``: [config,] workload, threads, iops, event, bucket, lower_us, share_pct,
    within_pct (:func:`flashpoc.present.oracle_report.wait_histograms`).
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
    return alt.vconcat(*panels, spacing=16).properties(title=alt.Title(title or _wait_histogram_title(buckets)))


def _wait_histogram_title(buckets: pd.DataFrame) -> str:
    """The title of :func:`wait_histogram` after the events its bars count."""
    events = list(dict.fromkeys(buckets["event"].dropna().astype(str))) if "event" in buckets else []
    if events == ["db file sequential read"]:
        return "Single-block read (db file sequential read) wait histogram at the detail points (AWR)"
    return f"Read wait histogram at the detail points (AWR): {', '.join(events) or 'reads'}"


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


SQL_CPU = {"us_pct": "%user", "sy_pct": "%sys", "wa_pct": "%iowait"}
"""vmstat's CPU columns drawn over a DBA's job, and their labels."""


def sql_cpu_over_time(runs: pd.DataFrame, *,
                      title: str = "The database host's CPU during the job (vmstat)") -> alt.FacetChart:
    """One panel per run of a DBA's job: the database host's %user, %sys and %iowait at each vmstat
    sample (seconds into the job), on one 0-100 % scale so the runs compare at a glance.

    ``runs``: one row per run with ``config`` (its label) and ``cpu_series`` (a list of samples with
    ``second`` and the :data:`SQL_CPU` columns; runs without are left out).
    """
    _require(runs, ["config", "cpu_series"], "sql_cpu_over_time")
    domain = list(dict.fromkeys(runs["config"].astype(str)))
    samples = [{"config": run["config"], "second": s["second"], "metric": label, "pct": s[key]}
               for run in runs.to_dict("records") if isinstance(run["cpu_series"], list)
               for s in run["cpu_series"] for key, label in SQL_CPU.items()]
    data = pd.DataFrame(samples, columns=["config", "second", "metric", "pct"])
    metrics = list(SQL_CPU.values())
    return alt.Chart(data).mark_line(point=True).encode(
        x=alt.X("second:Q", title="Seconds into the job"),
        y=alt.Y("pct:Q", title="Share of the host's CPU time (%)", scale=alt.Scale(domain=[0, 100])),
        color=alt.Color("metric:N", title="CPU", sort=metrics, scale=alt.Scale(domain=metrics, range=list(PALETTE))),
        tooltip=[alt.Tooltip("config:N", title="Run"), alt.Tooltip("second:Q", title="Second"),
                 alt.Tooltip("metric:N", title="CPU"), alt.Tooltip("pct:Q", title="%")],
    ).properties(width=520, height=160).facet(
        row=alt.Row("config:N", title=None, sort=domain, header=alt.Header(labelFontSize=12, labelFontWeight="bold")),
    ).properties(title=alt.Title(title))

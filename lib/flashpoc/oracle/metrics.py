"""Per-second storage metrics from the AWR rows of two snapshots (pure: rows in, numbers out).

The input is what :func:`flashpoc.oracle.db.awr_rows` returns: ``{table: rows}`` with rows of
``DBA_HIST_SNAPSHOT``, ``DBA_HIST_SYSSTAT``, ``DBA_HIST_SYSTEM_EVENT``,
``DBA_HIST_EVENT_HISTOGRAM``, ``DBA_HIST_OSSTAT`` and, optionally, ``DBA_HIST_SYS_TIME_MODEL``
for one instance, each carrying ``snap_id`` (or Statspack's ``STATS$`` rows of
:func:`flashpoc.oracle.db.statspack_rows`, which have the same columns). Counters in those views are cumulative since
instance startup, so every metric is ``(end - begin) / elapsed_s``, the way an AWR report
computes its "per Second" columns:

* ``elapsed_s``: ``end_interval_time`` of the end snapshot minus that of the begin snapshot
  (AWR's "Elapsed").
* ``read_iops`` / ``write_iops``: sysstat ``physical read IO requests`` /
  ``physical write IO requests`` per second (AWR Load Profile "Read/Write IO requests").
* ``read_mibps`` / ``write_mibps``: sysstat ``physical read bytes`` / ``physical write bytes``
  per second in MiB (2**20 bytes; AWR's "Read/Write IO (MB)").
* ``cpu_used_s_per_s``: sysstat ``CPU used by this session`` (centiseconds) in CPU seconds per
  second; ``db_cpu_s_per_s`` / ``background_cpu_s_per_s``: time model ``DB CPU`` /
  ``background cpu time`` (microseconds) per second (AWR's "DB CPU(s)", "Background CPU(s)"),
  ``None`` without time model rows.
* For each event of :data:`KEY_EVENTS` (``<event>`` is the name with ``_`` for spaces):
  ``<event>_waits_per_s``, ``<event>_avg_wait_us`` (all sessions: ``time_waited_micro`` delta /
  ``total_waits`` delta), ``<event>_fg_avg_wait_us`` (foreground sessions: the ``_fg``
  columns, AWR's "Foreground Wait Events") and ``<event>_bg_avg_wait_us`` (all minus
  foreground: "Background Wait Events"); ``None`` when there were no such waits.
* ``db_file_sequential_read_under_1ms_pct`` / ``_under_2ms_pct``: share of the event's waits in
  the ``DBA_HIST_EVENT_HISTOGRAM`` buckets ``wait_time_milli`` <= 1 / <= 2 (the bucket ``N``
  holds waits shorter than ``N`` ms); ``None`` without histogram rows.
* ``host_cpu_user_pct``, ``host_cpu_sys_pct``, ``host_cpu_iowait_pct``, ``host_cpu_idle_pct``,
  ``host_cpu_busy_pct``: ``DBA_HIST_OSSTAT`` ``USER_TIME``, ``SYS_TIME``, ``IOWAIT_TIME``,
  ``IDLE_TIME``, ``BUSY_TIME`` deltas over ``BUSY_TIME + IDLE_TIME`` deltas (AWR "Host CPU").

A counter that went down means the instance restarted between the snapshots (the counters
started again from zero): that raises :class:`~flashpoc.core.errors.AnalysisError`, as does a
changed ``startup_time``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import timedelta
from typing import Any

from flashpoc.core.errors import AnalysisError

MIB = 1024 * 1024
"""Bytes in AWR's "MB"."""

KEY_EVENTS: tuple[str, ...] = (
    "db file sequential read",
    "log file parallel write",
    "db file parallel write",
    "log file sync",
)
"""Wait events whose average wait is reported (see ENGINES.md, "Key events")."""

HISTOGRAM_EVENT = "db file sequential read"
"""The event whose latency distribution is reported (random single-block reads)."""

HISTOGRAM_LIMITS_MS: tuple[int, ...] = (1, 2)
"""Upper limits, in ms, of the histogram shares reported as ``..._under_<N>ms_pct``."""

SYSSTAT_RATES: dict[str, tuple[str, float]] = {
    "read_iops": ("physical read IO requests", 1.0),
    "write_iops": ("physical write IO requests", 1.0),
    "read_mibps": ("physical read bytes", 1.0 / MIB),
    "write_mibps": ("physical write bytes", 1.0 / MIB),
    "cpu_used_s_per_s": ("CPU used by this session", 0.01),
}
"""Metric name -> (sysstat name, scale to the metric's unit), each divided by ``elapsed_s``."""

TIME_MODEL_RATES: dict[str, tuple[str, float]] = {
    "db_cpu_s_per_s": ("DB CPU", 1e-6),
    "background_cpu_s_per_s": ("background cpu time", 1e-6),
}
"""Metric name -> (time model name, scale to seconds), each divided by ``elapsed_s``."""

OSSTAT_SHARES: dict[str, str] = {
    "host_cpu_user_pct": "USER_TIME",
    "host_cpu_sys_pct": "SYS_TIME",
    "host_cpu_iowait_pct": "IOWAIT_TIME",
    "host_cpu_idle_pct": "IDLE_TIME",
    "host_cpu_busy_pct": "BUSY_TIME",
}
"""Metric name -> DBA_HIST_OSSTAT name, as a share of ``BUSY_TIME + IDLE_TIME``."""


def event_key(event_name: str) -> str:
    """Metric prefix of a wait event: ``'db file sequential read'`` -> ``'db_file_sequential_read'``."""
    return re.sub(r"[^a-z0-9]+", "_", event_name.lower()).strip("_")


def _rows(rows: Mapping[str, Sequence[Mapping[str, Any]]], table: str, required: bool = True) -> Sequence[Mapping[str, Any]]:
    found = rows.get(table) or ()
    if required and not found:
        raise AnalysisError(f"AWR rows: no {table!r} rows (expected the output of sql/awr_{table}.sql or sql/stats_{table}.sql)")
    return found


def _by_snap(rows: Iterable[Mapping[str, Any]], key: str, value: str, snap: int) -> dict[Any, float]:
    out: dict[Any, float] = {}
    for row in rows:
        if int(row["snap_id"]) == snap and row.get(value) is not None:
            out[row[key]] = out.get(row[key], 0.0) + float(row[value])
    return out


def _delta(table: str, name: Any, column: str, begin: Mapping[Any, float], end: Mapping[Any, float],
           snaps: tuple[int, int], event: str | None = None) -> float | None:
    """end - begin of one counter; a counter absent at begin counts from 0, absent at end is None."""
    if name not in end:
        return None
    before = begin.get(name, 0.0)
    after = end[name]
    if after < before:
        raise AnalysisError(
            f"AWR {table} {event + ' bucket ' if event else ''}{name!r} {column} went down from {before:g} at snap {snaps[0]} to "
            f"{after:g} at snap {snaps[1]}: the instance restarted between the snapshots; "
            f"use two snapshots taken in one instance lifetime"
        )
    return after - before


def elapsed_seconds(snapshot_rows: Sequence[Mapping[str, Any]], begin_snap: int, end_snap: int) -> float:
    """Seconds between the two snapshots' ``end_interval_time`` (AWR's "Elapsed").

    Raises:
        AnalysisError: A snapshot row is missing, the instance restarted (``startup_time``
            differs) or the time does not advance.
    """
    snaps = {int(row["snap_id"]): row for row in snapshot_rows}
    for snap in (begin_snap, end_snap):
        if snap not in snaps:
            raise AnalysisError(f"AWR snapshot: no DBA_HIST_SNAPSHOT row for snap {snap}")
    begin, end = snaps[begin_snap], snaps[end_snap]
    if begin.get("startup_time") != end.get("startup_time"):
        raise AnalysisError(
            f"AWR snapshot: the instance restarted between snaps {begin_snap} and {end_snap} "
            f"(startup_time {begin.get('startup_time')} then {end.get('startup_time')}); "
            f"deltas across a restart are meaningless"
        )
    elapsed = end["end_interval_time"] - begin["end_interval_time"]
    seconds = elapsed.total_seconds() if isinstance(elapsed, timedelta) else float(elapsed)
    if not seconds > 0:
        raise AnalysisError(f"AWR snapshot: snap {end_snap} is not later than snap {begin_snap}")
    return seconds


def compute_awr_metrics(rows: Mapping[str, Sequence[Mapping[str, Any]]], begin_snap: int, end_snap: int) -> dict[str, Any]:
    """Per-second metrics and average waits of one instance between two snapshots.

    Args:
        rows: ``{table: rows}`` as returned by :func:`flashpoc.oracle.db.awr_rows` (keys
            ``snapshot``, ``sysstat``, ``system_event``, ``event_histogram``, ``osstat`` and
            optionally ``sys_time_model``; other keys are ignored).
        begin_snap: Snap id before the workload.
        end_snap: Snap id after the workload.

    Returns:
        A flat dict: ``begin_snap``, ``end_snap``, ``elapsed_s`` and the metrics listed in the
        module docstring, ``None`` where the rows do not carry the counter.

    Raises:
        AnalysisError: Rows are missing or a counter went down (instance restart).
    """
    snaps = (int(begin_snap), int(end_snap))
    elapsed_s = elapsed_seconds(_rows(rows, "snapshot"), *snaps)
    metrics: dict[str, Any] = {"begin_snap": snaps[0], "end_snap": snaps[1], "elapsed_s": elapsed_s}

    def rates(table: str, table_rows: Sequence[Mapping[str, Any]], spec: Mapping[str, tuple[str, float]]) -> None:
        begin = _by_snap(table_rows, "stat_name", "value", snaps[0])
        end = _by_snap(table_rows, "stat_name", "value", snaps[1])
        for metric, (stat, scale) in spec.items():
            delta = _delta(table, stat, "value", begin, end, snaps) if end else None
            metrics[metric] = None if delta is None else delta * scale / elapsed_s

    rates("sysstat", _rows(rows, "sysstat"), SYSSTAT_RATES)
    rates("sys_time_model", _rows(rows, "sys_time_model", required=False), TIME_MODEL_RATES)
    metrics.update(_event_metrics(_rows(rows, "system_event"), snaps, elapsed_s))
    metrics.update(_histogram_metrics(_rows(rows, "event_histogram", required=False), snaps))
    metrics.update(_host_cpu_metrics(_rows(rows, "osstat"), snaps))
    return metrics


def _event_metrics(event_rows: Sequence[Mapping[str, Any]], snaps: tuple[int, int], elapsed_s: float) -> dict[str, Any]:
    columns = ("total_waits", "time_waited_micro", "total_waits_fg", "time_waited_micro_fg")
    begin = {c: _by_snap(event_rows, "event_name", c, snaps[0]) for c in columns}
    end = {c: _by_snap(event_rows, "event_name", c, snaps[1]) for c in columns}
    out: dict[str, Any] = {}
    for event in KEY_EVENTS:
        d = {c: _delta("system_event", event, c, begin[c], end[c], snaps) or 0.0 for c in columns}
        key = event_key(event)
        bg_waits = d["total_waits"] - d["total_waits_fg"]
        bg_time = d["time_waited_micro"] - d["time_waited_micro_fg"]
        out[f"{key}_waits_per_s"] = d["total_waits"] / elapsed_s
        out[f"{key}_avg_wait_us"] = d["time_waited_micro"] / d["total_waits"] if d["total_waits"] else None
        out[f"{key}_fg_avg_wait_us"] = d["time_waited_micro_fg"] / d["total_waits_fg"] if d["total_waits_fg"] else None
        out[f"{key}_bg_avg_wait_us"] = bg_time / bg_waits if bg_waits > 0 else None
    return out


def _histogram_metrics(histogram_rows: Sequence[Mapping[str, Any]], snaps: tuple[int, int]) -> dict[str, Any]:
    event_rows = [row for row in histogram_rows if row["event_name"] == HISTOGRAM_EVENT]
    begin = _by_snap(event_rows, "wait_time_milli", "wait_count", snaps[0])
    end = _by_snap(event_rows, "wait_time_milli", "wait_count", snaps[1])
    counts = {int(bucket): _delta("event_histogram", bucket, "wait_count", begin, end, snaps, event=HISTOGRAM_EVENT) or 0.0
              for bucket in end}
    total = sum(counts.values())
    key = event_key(HISTOGRAM_EVENT)
    return {
        f"{key}_under_{limit}ms_pct": (
            100.0 * sum(n for bucket, n in counts.items() if bucket <= limit) / total if total else None
        )
        for limit in HISTOGRAM_LIMITS_MS
    }


def _host_cpu_metrics(osstat_rows: Sequence[Mapping[str, Any]], snaps: tuple[int, int]) -> dict[str, Any]:
    begin = _by_snap(osstat_rows, "stat_name", "value", snaps[0])
    end = _by_snap(osstat_rows, "stat_name", "value", snaps[1])
    deltas = {name: _delta("osstat", name, "value", begin, end, snaps) for name in (*OSSTAT_SHARES.values(),)}
    total = (deltas["BUSY_TIME"] or 0.0) + (deltas["IDLE_TIME"] or 0.0)
    out: dict[str, Any] = {
        metric: (100.0 * deltas[name] / total if total and deltas[name] is not None else None)
        for metric, name in OSSTAT_SHARES.items()
    }
    out["host_num_cpus"] = int(end["NUM_CPUS"]) if "NUM_CPUS" in end else None
    return out


"""Report tables from sweep rows (pure: DataFrame in, DataFrame out)."""

from __future__ import annotations

import pandas as pd

from . import analysis
from .rows import to_points


def curve_points(frame: pd.DataFrame) -> list[analysis.Point]:
    """The (threads, IOPS, mean latency ms, outstanding I/Os) points of one curve, by threads."""
    return to_points(frame.sort_values("threads").to_dict("records"))


def _series(frame: pd.DataFrame) -> list[str]:
    """The grouping of one curve: per configuration (when there is a ``config`` column) and workload."""
    return ["config", "workload"] if "config" in frame else ["workload"]


def knees(frame: pd.DataFrame) -> pd.DataFrame:
    """The knee of each curve's hockey stick: [config,] workload, threads, iops, lat_mean_ms."""
    keys = _series(frame)
    rows = []
    for values, group in frame.groupby(keys, sort=False):
        knee = analysis.find_knee(curve_points(group))
        if knee is not None:
            rows.append({**dict(zip(keys, values)), "threads": knee.threads, "iops": knee.iops,
                         "lat_mean_ms": knee.latency_ms})
    return pd.DataFrame(rows, columns=[*keys, "threads", "iops", "lat_mean_ms"])


def summary_table(frame: pd.DataFrame, slo_ms: float) -> pd.DataFrame:
    """One row per workload (and configuration, with a ``config`` column): max IOPS, IOPS at the
    latency SLO, knee, latency percentiles, CPU.

    Columns carry their units: ``*_iops``, ``*_ms``, ``*_pct``, ``*_mibps``.
    """
    slo_label = f"iops_at_{slo_ms:g}ms"
    keys = _series(frame)
    rows = []
    for values, group in frame.groupby(keys, sort=False):
        workload = values[-1]
        group = group.sort_values("threads")
        points = curve_points(group)
        best = group.loc[group["iops"].idxmax()]
        at_slo = analysis.iops_at_latency(points, slo_ms)
        knee = analysis.find_knee(points)
        law_off = int((~group["littles_law_ok"].astype(bool)).sum()) if "littles_law_ok" in group else 0
        rows.append({
            **({"config": values[0]} if len(keys) == 2 else {}),
            "workload": workload,
            "bs": best.get("bs"),
            "points": len(group),
            "threads_range": f"{int(group.threads.min())}-{int(group.threads.max())}",
            "max_iops": round(float(best["iops"])),
            "max_iops_threads": int(best["threads"]),
            "max_iops_lat_mean_ms": round(float(best["lat_mean_ms"]), 3),
            "max_bw_mibps": round(float(group["bw_mibps"].max()), 1),
            slo_label: None if at_slo["iops"] is None else round(at_slo["iops"]),
            "slo_status": at_slo["status"],
            "knee_threads": knee.threads if knee else None,
            "knee_iops": round(knee.iops) if knee else None,
            "knee_lat_mean_ms": round(knee.latency_ms, 3) if knee else None,
            "min_lat_mean_ms": round(float(group["lat_mean_ms"].min()), 3),
            "clat_p99_ms_at_max": _rounded(best.get("clat_p99_ms")),
            "clat_p99_9_ms_at_max": _rounded(best.get("clat_p99_9_ms")),
            "host_cpu_busy_pct_at_max": _rounded(best.get("host_cpu_busy_pct"), 1),
            "littles_law_flags": law_off,
        })
        for column, digits in AT_MAX_IF_PRESENT.items():
            if column in group and group[column].notna().any():
                rows[-1][f"{column}_at_max"] = _rounded(best.get(column), digits)
    return pd.DataFrame(rows)


AT_MAX_IF_PRESENT = {
    "redo_write_lat_ms": 3,
    "dbwr_write_lat_ms": 3,
    "db_cpu_s_per_s": 2,
    "host_cpu_user_pct": 1,
    "host_cpu_iowait_pct": 1,
    "db_file_sequential_read_under_1ms_pct": 1,
    "db_file_sequential_read_under_2ms_pct": 1,
}
"""Columns (SLOB/AWR points) added to the summary at the max-IOPS point when the points have them:
write latencies (ms), DB CPU (CPU s per s), host CPU (%) and shares of reads under 1/2 ms (%)."""

SHARE_LIMITS_US = {"512us": 512, "1ms": 1000, "2ms": 2000, "4ms": 4000}
"""Latency limits of the ``db_file_sequential_read_under_<limit>_pct`` columns, in us."""


def read_latency_shares(frame: pd.DataFrame) -> pd.DataFrame:
    """Share (%) of ``db file sequential read`` waits under 512 us, 1, 2 and 4 ms at each
    workload's highest-IOPS point: columns workload, threads, iops, limit, limit_us,
    share_pct, label. Empty when the points have no such histogram columns."""
    rows = []
    for workload, group in frame.groupby("workload", sort=False):
        best = group.loc[group["iops"].idxmax()]
        for limit, limit_us in SHARE_LIMITS_US.items():
            value = _rounded(best.get(f"db_file_sequential_read_under_{limit}_pct"), 1)
            if value is not None:
                rows.append({"workload": workload, "threads": int(best["threads"]), "iops": round(float(best["iops"])),
                             "limit": f"<{limit}", "limit_us": limit_us, "share_pct": value,
                             "label": f"{int(best['threads'])} threads, {float(best['iops']):,.0f} IOPS"})
    return pd.DataFrame(rows, columns=["workload", "threads", "iops", "limit", "limit_us", "share_pct", "label"])


def _rounded(value, digits: int = 3):
    try:
        return None if value is None or pd.isna(value) else round(float(value), digits)
    except (TypeError, ValueError):
        return None

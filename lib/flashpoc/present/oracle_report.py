"""The report's database results for engines that read AWR (SLOB): write waits against IOPS, the
read wait histogram at the detail points, DB CPU's share of DB time and the buffer hit, and the
sentence a DBA draws from them.

The histogram is read back from the AWR reports stored with each detail point
(:meth:`flashpoc.engines.base.Engine.wait_histogram`), so points stored before it existed get one too.
"""

from __future__ import annotations

from typing import Any

import pandas as pd


#: DB CPU at or above this share (%) of DB time: the sessions were busy on CPU, not waiting for storage.
DB_CPU_BOUND_PCT = 80.0

BUCKET_COLUMNS = ["workload", "threads", "iops", "event", "bucket", "lower_us", "upper_us", "share_pct",
                  "within_pct", "section"]


def wait_histograms(cfg, detail: pd.DataFrame) -> pd.DataFrame:
    """The wait histogram per AWR bucket of each detail point's read event (its
    ``latency_event``, else ``db file sequential read``).

    Args:
        cfg: the report's campaign (compared campaigns' points are read from their own folders).
        detail: :func:`flashpoc.present.summary.detail_points` ([config,] workload, threads, iops, point_id).

    Returns:
        One row per [config,] workload and bucket (:data:`BUCKET_COLUMNS`); empty when no point
        has a histogram.
    """
    from flashpoc.core.store import CampaignStore

    cfg = cfg.resolved()
    engine = cfg.engine_object
    roots = cfg.results_roots()
    rows: list[dict[str, Any]] = []
    for point in detail.to_dict("records"):
        root = roots.get(point.get("config"), cfg.results_path())
        event = point.get("latency_event") if isinstance(point.get("latency_event"), str) else None
        event = event or "db file sequential read"
        point_dir = CampaignStore(root).point_dir("sweep", str(point["point_id"]))
        keys = {k: point[k] for k in ("config", "workload", "threads", "iops") if k in point}
        rows += [{**keys, "event": event, **bucket} for bucket in engine.wait_histogram(point_dir, event)]
    columns = (["config"] if "config" in detail else []) + BUCKET_COLUMNS
    return pd.DataFrame(rows, columns=columns)


def db_cpu_text(points: pd.DataFrame) -> str:
    """Markdown: per [configuration and] workload, DB CPU's share of DB time and the buffer hit
    at its highest-IOPS point, and whether storage limited it (DB CPU at least
    :data:`DB_CPU_BOUND_PCT` % of DB time: "storage is not the limit"). Empty without the columns."""
    if "db_cpu_pct_of_db_time" not in points or points["db_cpu_pct_of_db_time"].isna().all():
        return ""
    keys = [k for k in ("config", "workload") if k in points]
    lines = []
    for name, group in points.groupby(keys, sort=False):
        group = group.dropna(subset=["iops"])
        if group.empty:
            continue
        best = group.loc[group["iops"].idxmax()]
        share = best.get("db_cpu_pct_of_db_time")
        if share is None or pd.isna(share):
            continue
        who = " / ".join(str(n) for n in (name if isinstance(name, tuple) else (name,)))
        hit = best.get("buffer_hit_pct")
        hit_text = "" if hit is None or pd.isna(hit) else f", buffer hit {float(hit):.2f} %"
        threads = int(best["threads"])
        at = f"at its highest IOPS ({float(best['iops']):,.0f}, {threads} thread{'s' if threads != 1 else ''} per schema)"
        if float(share) >= DB_CPU_BOUND_PCT:
            verdict = ("the sessions were busy on CPU, not waiting for I/O, so storage is not the limit: more "
                       "CPU (or fewer logical reads) would raise the IOPS, a faster array would not")
        else:
            verdict = (f"the rest of DB time is waits, so storage (or another wait) sets the pace; DB CPU would "
                       f"need {DB_CPU_BOUND_PCT:.0f} % or more to say the database, not the array, is the limit")
        lines.append(f"- `{who}` {at}: {float(share):.1f} % of DB time on DB CPU{hit_text}: {verdict}.")
    return "\n".join(lines)


def oracle_charts(cfg, points: pd.DataFrame, detail: pd.DataFrame, color_domain) -> dict[str, Any]:
    """The database charts of a report whose points have them: ``oracle_write_latency`` (write
    waits against IOPS), ``db_time_shares`` (DB CPU's share of DB time, buffer hit) and
    ``wait_histogram`` (the read wait histogram at the detail points)."""
    from flashpoc.present import chart

    charts: dict[str, Any] = {}
    if any(c in points and points[c].notna().any() for c in chart.ORACLE_WRITE_LATENCIES):
        charts["oracle_write_latency"] = chart.oracle_write_latency(points, color_domain=color_domain)
    if any(c in points and points[c].notna().any() for c in chart.ORACLE_DB_TIME):
        charts["db_time_shares"] = chart.db_time_shares(points, color_domain=color_domain)
    buckets = wait_histograms(cfg, detail) if not detail.empty else pd.DataFrame()
    if not buckets.empty:
        charts["wait_histogram"] = chart.wait_histogram(buckets, color_domain=color_domain)
    return charts

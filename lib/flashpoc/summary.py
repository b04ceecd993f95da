"""Report tables from sweep rows (pure: DataFrame in, DataFrame out)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from . import analysis, tables
from .params import parse_size
from .engines.fio.parse import SHARE_LIMITS_US  # the limits of the db_file_sequential_read_under_<limit>_pct columns too
from .rows import SNIA_COLUMNS, to_points

#: Block sizes up to this are small blocks (Oracle's largest ``db_block_size`` is 32 KiB).
SMALL_BLOCK_BYTES = 32 * 1024

#: Kinds of workload: small-block random I/O is measured in IOPS, the other kind in MiB/s.
KIND_RANDOM, KIND_THROUGHPUT = "random", "throughput"


#: The ``rw`` modes of sequential I/O (fio's, which vdbench workloads use too).
SEQUENTIAL_RW = frozenset({"read", "write", "rw", "readwrite", "trim", "trimwrite"})


def io_kind(rw: Any, bs: Any) -> str:
    """:data:`KIND_THROUGHPUT` for sequential I/O (:data:`SEQUENTIAL_RW`) or blocks over
    :data:`SMALL_BLOCK_BYTES`, whose measure is MiB/s; else :data:`KIND_RANDOM`, whose measure
    is IOPS (SLOB's sessions, single-block reads and updates of 8 KiB blocks, too)."""
    if rw in SEQUENTIAL_RW:
        return KIND_THROUGHPUT
    try:
        size = parse_size(str(bs).strip().lower()) if isinstance(bs, (str, int)) and str(bs).strip() else 0
    except ValueError:
        size = 0
    return KIND_THROUGHPUT if size > SMALL_BLOCK_BYTES else KIND_RANDOM


def workload_kinds(df: pd.DataFrame) -> dict[str, str]:
    """Each workload's :func:`io_kind`, from its first row's ``rw`` and ``bs``."""
    if "workload" not in df.columns:
        return {}
    firsts = df.drop_duplicates("workload")
    return {str(r["workload"]): io_kind(r.get("rw"), r.get("bs")) for r in firsts.to_dict("records")}


#: Intervals a steady-state verdict needs (:func:`flashpoc.analysis.interval_steadiness`).
MIN_VERDICT_INTERVALS = 3


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
        if "target_data" in group and group["target_data"].notna().any():  # vdbench: what the reads read
            rows[-1]["target_data"] = group["target_data"].dropna().iloc[-1]
    table = pd.DataFrame(rows)
    # engines without percentiles (vdbench, SLOB) leave no empty columns: distribution_text says why
    return table.drop(columns=[c for c in ("clat_p99_ms_at_max", "clat_p99_9_ms_at_max")
                               if c in table and table[c].isna().all()])


AT_MAX_IF_PRESENT = {
    "redo_write_lat_ms": 3,
    "dbwr_write_lat_ms": 3,
    "db_cpu_s_per_s": 2,
    "db_cpu_pct_of_db_time": 1,
    "buffer_hit_pct": 2,
    "host_cpu_user_pct": 1,
    "host_cpu_iowait_pct": 1,
    "db_file_sequential_read_under_1ms_pct": 1,
    "db_file_sequential_read_under_2ms_pct": 1,
}
"""Columns (SLOB/AWR points) added to the summary at the max-IOPS point when the points have them:
write latencies (ms), DB CPU (CPU s per s, and % of DB time), buffer hit (%), host CPU (%) and shares of
reads under 1/2 ms (%)."""



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


DISTRIBUTION_COLUMNS = {
    "lat_mean_ms": 3, "clat_p50_ms": 3, "clat_p90_ms": 3, "clat_p99_ms": 3, "clat_p99_9_ms": 3,
    "clat_under_512us_pct": 2, "clat_under_1ms_pct": 2, "clat_under_2ms_pct": 2, "clat_under_4ms_pct": 2,
}
"""Columns of :func:`distribution_table` and their decimals: mean and percentile latencies (ms),
shares of I/Os under 512 us, 1, 2 and 4 ms (%)."""

def detail_points(frame: pd.DataFrame, slo_ms: float, threads: int | None = None) -> pd.DataFrame:
    """The point of each curve whose time series and latency histogram the report shows.

    With ``threads``, the measured point nearest to it; otherwise the highest-IOPS point whose
    mean latency is within the SLO (the operating point a customer buys), or the highest-IOPS
    point when none is within it.

    Returns:
        One row per [config,] workload: the point's row (``point_id``, ``threads``, ``iops``,
        ``lat_mean_ms`` ...) plus ``detail_reason`` (why this point).
    """
    keys = _series(frame)
    chosen = []
    for _, group in frame.groupby(keys, sort=False):
        if threads is not None:
            row = group.loc[(group["threads"] - threads).abs().idxmin()].copy()
            row["detail_reason"] = f"nearest to the requested {threads} threads"
        else:
            within = group[group["lat_mean_ms"] <= slo_ms]
            if within.empty:
                row = group.loc[group["iops"].idxmax()].copy()
                row["detail_reason"] = f"max IOPS (no point within the {slo_ms:g} ms SLO)"
            else:
                row = within.loc[within["iops"].idxmax()].copy()
                row["detail_reason"] = f"max IOPS within the {slo_ms:g} ms SLO"
        chosen.append(row)
    return pd.DataFrame(chosen).reset_index(drop=True)


def distribution_table(detail: pd.DataFrame) -> pd.DataFrame:
    """Latency at each detail point: mean, p50/p90/p99/p99.9 (ms) and the shares of I/Os
    under 512 us, 1, 2 and 4 ms (%), where the engine gives them (fio's JSON+ bins; vdbench's
    histogram.html at its bucket bounds: 1, 2 and 4 ms); columns no point has are left out."""
    keys = [c for c in ("config", "workload", "threads", "iops") if c in detail]
    columns = [c for c in DISTRIBUTION_COLUMNS if c in detail and detail[c].notna().any()]
    table = detail[keys + columns].copy()
    table["iops"] = table["iops"].round()
    for column in columns:
        table[column] = table[column].astype(float).round(DISTRIBUTION_COLUMNS[column])
    return table


def distribution_text(detail: pd.DataFrame) -> str:
    """Markdown: what the latency distribution of the detail points rests on, where an engine
    gives less than fio's bins (vdbench: no percentiles, no bucket bound at 512 us, and the
    intervals its histogram counts, warm-up included); empty for fio."""
    if "engine" not in detail or "vdbench" not in set(detail["engine"]):
        return ""
    vdb = detail[detail["engine"] == "vdbench"]
    text = ("vdbench reports no latency percentiles (p50, p99, p99.9), and its response-time histogram has no "
            "bucket bound at 512 us (its buckets end at 0.4, 0.6, 0.8, 1, 2, 4 ms and so on): the shares of I/Os "
            "under 1, 2 and 4 ms are read at its bucket bounds, and none is given under 512 us. vdbench counts "
            "every I/O of a run in its histogram, warm-up included (it cannot leave the warm-up out), while the "
            "point's IOPS and mean latency are its average over the intervals after the warm-up (not shaded)")
    counted = [f"{r['config'] + ', ' if r.get('config') else ''}`{r['workload']}` at {int(r['threads'])} threads: "
               f"histogram intervals {r['histogram_intervals']}, average {r['avg_intervals']}"
               for r in vdb.to_dict("records") if isinstance(r.get("histogram_intervals"), str)
               and isinstance(r.get("avg_intervals"), str)]
    return text + (f" ({'; '.join(counted)})." if counted else ".")


#: The steady-state columns of a row: today's scatter-and-drift rule, the SNIA PTS rule
#: (:data:`flashpoc.rows.SNIA_COLUMNS`) and fio's own ``steadystate`` when it ended the point.
STEADY_COLUMNS = ("intervals", "interval_iops_cv_pct", "interval_iops_drift_pct", "interval_steady", *SNIA_COLUMNS,
                  "fio_steadystate", "steadystate_attained", "measured_s", "runtime_s",
                  "extended_runs_s", "steady_rule", "extended_steady")  # sweep.extend_until_steady (flashpoc.extend)


def steadiness_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Every point's steady-state verdicts: [config,] workload, threads, iops and
    :data:`STEADY_COLUMNS` (interval_steady None: fewer than 3 intervals; snia_steady None:
    fewer than 5). Empty when no point has a time series (an interval count above 0)."""
    columns = [*_series(frame), "threads", "iops", *STEADY_COLUMNS]
    if "intervals" not in frame or not (frame["intervals"].fillna(0) > 0).any():
        return pd.DataFrame(columns=columns)
    table = frame.reindex(columns=columns).copy()
    table["iops"] = table["iops"].round()
    return table.reset_index(drop=True)


def verdict(value: Any) -> bool | None:
    """A stored verdict (True, False, 'True', 'false', 1, 0) as a bool; None when there is none."""
    if value is None or (isinstance(value, float) and pd.isna(value)) or value is pd.NA:
        return None
    if isinstance(value, str):
        return {"true": True, "false": False}.get(value.strip().lower())
    return bool(value)


def judged_points(table: pd.DataFrame, column: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The points with a verdict (:func:`verdict`) in ``column``, and those of them not steady."""
    if table.empty or column not in table:
        return table.iloc[0:0], table.iloc[0:0]
    flags = table[column].map(verdict)
    judged = table[flags.notna()]
    return judged, judged[flags[flags.notna()] == False]  # noqa: E712 (a Series of bools)


def _where(r: dict[str, Any]) -> str:
    return f"{r['config'] + ', ' if r.get('config') else ''}`{r['workload']}` at {int(r['threads'])} threads"


def snia_rule_text() -> str:
    """The SNIA PTS rule in words."""
    return (f"SNIA PTS rule: over a window of {analysis.SNIA_ROUNDS} rounds (the point's measured intervals in "
            f"{analysis.SNIA_ROUNDS} equal consecutive rounds), max - min at most "
            f"{analysis.SNIA_MAX_DATA_EXCURSION_PCT:g} % and the least-squares line's change at most "
            f"{analysis.SNIA_MAX_SLOPE_EXCURSION_PCT:g} % of the window's mean IOPS")


def steadiness_text(table: pd.DataFrame, detail: pd.DataFrame | None = None) -> str:
    """Markdown: how many points were steady by each rule (scatter and drift; SNIA PTS; fio's own
    ``steadystate`` where it ended a point), which were not and by which rule, and which point of
    each curve is shown in detail (``detail``, from :func:`detail_points`)."""
    chosen = "" if detail is None or detail.empty else "\n\nPoints shown in detail: " + "; ".join(
        f"{_where(r)} ({r['detail_reason']})" for r in detail.to_dict("records")) + "."
    if table.empty:
        return "(no interval time series: the engine kept none for these points)" + chosen
    judged, unsteady = judged_points(table, "interval_steady")
    limits = (f"interval IOPS scatter (stdev/mean) at most {analysis.STEADY_MAX_CV_PCT:g} % and drift of the fitted "
              f"line over the point at most {analysis.STEADY_MAX_DRIFT_PCT:g} %")
    if judged.empty:
        return (f"No point ran the 3 intervals a steady-state verdict needs ({len(table)} points with fewer; "
                f"a longer runtime gives one).") + chosen
    lines = [f"{len(judged) - len(unsteady)} of {len(judged)} points were steady ({limits})."]
    if len(judged) < len(table):
        lines[0] += f" {len(table) - len(judged)} had fewer than 3 intervals and no verdict."
    snia, snia_unsteady = judged_points(table, "snia_steady")
    if snia.empty:
        lines.append(f"No point ran the {analysis.SNIA_ROUNDS} intervals the {snia_rule_text()} needs.")
    else:
        lines.append(f"{len(snia) - len(snia_unsteady)} of {len(snia)} points were steady by the {snia_rule_text()}"
                     + (f"; {len(table) - len(snia)} had fewer than {analysis.SNIA_ROUNDS} intervals and no SNIA "
                        "verdict." if len(snia) < len(table) else "."))
    ended = _ended_by_fio(table)
    if not ended.empty:
        missed = ended[ended["steadystate_attained"].map(verdict) == False]  # noqa: E712
        lines.append(f"fio's own steadystate decided how long {len(ended)} points ran "
                     f"({', '.join(sorted(set(ended['fio_steadystate'].astype(str))))}, one criterion on the slope "
                     f"or scatter of its per-second samples): {len(ended) - len(missed)} attained it and ended early, "
                     f"{len(missed)} ran their full length without it.")
    for r in unsteady.to_dict("records"):
        lines.append(f"- not steady: {_where(r)}: scatter {r['interval_iops_cv_pct']:.1f} %, drift "
                     f"{r['interval_iops_drift_pct']:+.1f} %")
    for r in snia_unsteady.to_dict("records"):
        lines.append(f"- not steady by SNIA: {_where(r)}: data excursion {r['snia_data_excursion_pct']:.1f} % "
                     f"({analysis.SNIA_MAX_DATA_EXCURSION_PCT:g} % allowed), slope excursion "
                     f"{r['snia_slope_excursion_pct']:.1f} % ({analysis.SNIA_MAX_SLOPE_EXCURSION_PCT:g} % allowed)")
    return "\n".join(lines) + chosen


def _ended_by_fio(table: pd.DataFrame) -> pd.DataFrame:
    """The points fio's own steadystate ended (or ran to their full length without attaining it)."""
    return table[table["fio_steadystate"].notna()] if "fio_steadystate" in table else table.iloc[0:0]


def unsteady_summary(table: pd.DataFrame) -> str | None:
    """One sentence for the executive summary: the points not steady, by rule; None when every
    judged point was steady (or none was judged)."""
    parts = []
    for points, column, rule in ((table, "snia_steady", "the SNIA PTS rule"),
                                 (table, "interval_steady", "interval scatter and drift"),
                                 (_ended_by_fio(table), "steadystate_attained", "fio's own steadystate")):
        judged, unsteady = judged_points(points, column)
        if not unsteady.empty:
            parts.append(f"by {rule}, {len(unsteady)} of {len(judged)} "
                         f"({'; '.join(_where(r) for r in unsteady.to_dict('records'))})")
    return ("Points not steady: " + "; ".join(parts) + ". Their averages hide a trend or swings: see "
            "Results: steady state.") if parts else None


# --- tables to read (flashpoc.tables.Table): the report's and notebook 04's -----------------

_RW_TEXT = {"randread": "random read", "randwrite": "random write", "read": "sequential read",
            "write": "sequential write", "trim": "sequential trim", "randtrim": "random trim"}


def io_text(row: dict[str, Any]) -> str:
    """What a workload does, in words: 'random read, 4 KiB', 'random 80 % read, 8 KiB',
    'sequential read, 128 KiB', 'SLOB, 10 % update, 8 KiB'; plus the queue depth per thread
    when it is above 1."""
    rw, block = row.get("rw"), _block_text(row.get("bs"))
    if rw == "slob":
        update, scan = _int_or_none(row.get("update_pct")), _int_or_none(row.get("scan_pct"))
        what = "SLOB" + (f", {update} % update" if update is not None else "") + (f", {scan} % scan" if scan else "")
    elif rw in ("randrw", "rw", "readwrite"):
        mix = _int_or_none(row.get("rwmixread"))
        what = f"{'random' if rw == 'randrw' else 'sequential'} {mix if mix is not None else '?'} % read"
    else:
        what = _RW_TEXT.get(str(rw), str(rw) if rw is not None else "")
    depth = _int_or_none(row.get("iodepth"))
    queue = f", queue depth {depth} per thread" if depth and depth > 1 and rw != "slob" else ""
    return ", ".join(p for p in (what, block) if p) + queue


def _block_text(bs: Any) -> str:
    try:
        value = parse_size(str(bs).strip().lower())
    except ValueError:
        return ""
    return tables.size(value)


def _int_or_none(value: Any) -> int | None:
    try:
        return None if value is None or pd.isna(value) else int(float(value))
    except (TypeError, ValueError):
        return None


def _point_caveats(group: pd.DataFrame, best: pd.Series) -> list[str]:
    """What qualifies a curve's numbers: its max-IOPS point's steady-state verdict, points off
    Little's law, and a maximum at the highest thread count measured."""
    notes = []
    steady = best.get("interval_steady")
    if steady is not None and not pd.isna(steady) and not bool(steady):
        notes.append(f"max point not steady (scatter {best['interval_iops_cv_pct']:.0f} %, drift "
                     f"{best['interval_iops_drift_pct']:+.0f} %)")
    elif "intervals" in group and (steady is None or pd.isna(steady)):
        count = _int_or_none(best.get("intervals")) or 0
        notes.append(f"max point: no steady-state verdict ({count} interval{'s' if count != 1 else ''}, "
                     f"{MIN_VERDICT_INTERVALS} needed)")
    if verdict(best.get("snia_steady")) is False:
        notes.append(f"max point not steady by SNIA (data excursion {best['snia_data_excursion_pct']:.0f} %, slope "
                     f"excursion {best['snia_slope_excursion_pct']:.0f} %)")
    if "littles_law_ok" in group:
        flagged = group["littles_law_ok"].map(lambda v: v is False or v == 0 or str(v).lower() == "false")
        if flagged.any():
            notes.append(f"{int(flagged.sum())} of {len(group)} points off Little's law")
    if len(group) > 1 and int(best["threads"]) == int(group["threads"].max()):
        notes.append("max at the highest thread count measured: IOPS may rise further")
    return notes


def results_table(table: pd.DataFrame, points: pd.DataFrame, slo_ms: float) -> tables.Table:
    """The report's key numbers per workload (and configuration): max IOPS and MiB/s with the
    threads and mean latency there, the IOPS within the SLO, the knee, and the caveats on them
    (steady state, Little's law, a maximum at the sweep's end). ``table``: :func:`summary_table`;
    ``points``: the sweep points it was made from."""
    slo_col = f"iops_at_{slo_ms:g}ms"
    kinds = workload_kinds(points)
    keys = _series(points)
    rows = []
    for r in table.to_dict("records"):
        mask = (points["workload"] == r["workload"]) & ((points["config"] == r["config"]) if "config" in keys else True)
        group = points[mask].sort_values("threads")
        best = group.loc[group["iops"].idxmax()]
        throughput = kinds.get(r["workload"]) == KIND_THROUGHPUT
        row = {"Configuration": r.get("config")} if "config" in keys else {}
        row["Workload"] = f"{r['workload']}\n{io_text(best.to_dict())}"
        row["Max IOPS"] = f"{tables.count(r['max_iops'])}\n{r['max_iops_threads']} threads"
        row["MiB/s at max"] = tables.mibps(best.get("bw_mibps"))
        row["Mean latency at max (ms)"] = tables.ms(r["max_iops_lat_mean_ms"])
        row[f"IOPS within the {slo_ms:g} ms SLO"] = _slo_cell(r.get(slo_col), r.get("slo_status"), group, slo_ms)
        row["Knee"] = _knee_cell(r, group, throughput)
        row["Caveats"] = "\n".join(_point_caveats(group, best)) or tables.MISSING
        rows.append(row)
    notes = [f"IOPS within the SLO are read off the curve between the two measured points around {slo_ms:g} ms, "
             "never extrapolated; 'at least' when every point was under it. The knee is where latency starts to "
             "climb faster than IOPS. Every column of every point: summary.csv and points.csv."]
    text_columns = [c for c in ("Configuration", "Workload", "Caveats") if rows and c in rows[0]]
    return tables.table(rows, notes=notes, text_columns=text_columns)


def _slo_cell(iops: Any, status: Any, group: pd.DataFrame, slo_ms: float) -> str:
    if status == "above_all":
        return f"none\n(lightest load {tables.ms(group['lat_mean_ms'].iloc[0])} ms)"
    if status == "below_all":
        return f"at least {tables.count(iops)}\n(every point under it)"
    return tables.count(iops)


def _knee_cell(row: dict[str, Any], group: pd.DataFrame, throughput: bool) -> str:
    if row.get("knee_threads") is None or pd.isna(row.get("knee_threads")):
        return "none\n(no bend in the curve)"
    at = f"at {tables.ms(row['knee_lat_mean_ms'])} ms, {int(row['knee_threads'])} threads"
    if throughput and "bw_mibps" in group:
        knee = group[group["threads"] == row["knee_threads"]]
        if not knee.empty:
            return f"{tables.mibps(knee['bw_mibps'].mean())} MiB/s\n{at}"
    return f"{tables.count(row['knee_iops'])} IOPS\n{at}"


def distribution_display(distribution: pd.DataFrame) -> tables.Table:
    """:func:`distribution_table` to read: the point, its mean and percentile latencies (ms) and
    the shares of I/Os under 0.5/1/2/4 ms (%) in one column."""
    rows = []
    shares = [c for c in ("clat_under_512us_pct", "clat_under_1ms_pct", "clat_under_2ms_pct", "clat_under_4ms_pct")
              if c in distribution]
    for r in distribution.to_dict("records"):
        row = {"Configuration": r.get("config")} if "config" in distribution else {}
        row.update({"Workload": r["workload"], "Threads": tables.count(r["threads"]), "IOPS": tables.count(r["iops"]),
                    "Mean (ms)": tables.ms(r.get("lat_mean_ms"))})
        for column, label in (("clat_p50_ms", "p50 (ms)"), ("clat_p90_ms", "p90 (ms)"), ("clat_p99_ms", "p99 (ms)"),
                              ("clat_p99_9_ms", "p99.9 (ms)")):
            if column in distribution:
                row[label] = tables.ms(r.get(column))
        if shares:
            bounds = " / ".join(c.removeprefix("clat_under_").removesuffix("_pct").replace("512us", "0.5ms")
                                .removesuffix("ms") for c in shares)
            row[f"Under {bounds} ms (%)"] = " / ".join(tables.pct(r.get(c)) for c in shares)
        rows.append(row)
    return tables.table(rows, text_columns=[c for c in ("Configuration", "Workload") if rows and c in rows[0]])


def steadiness_display(table: pd.DataFrame) -> tables.Table:
    """SNIA's steady-state determination table, one row per point with a time series: the
    window's mean, the allowed and measured data and slope excursions, the least-squares line and
    the verdict, next to today's scatter-and-drift verdict and what ended the point (fio's own
    ``steadystate``, or its full length). Every column: steadiness.csv."""
    rows = []
    ended = not _ended_by_fio(table).empty or ("extended_runs_s" in table and table["extended_runs_s"].notna().any())
    # no point ran the intervals SNIA's rule needs (short points): its columns would hold dashes only
    judged = "snia_steady" in table and table["snia_steady"].map(verdict).notna().any()
    for r in table.to_dict("records"):
        row = {"Configuration": r.get("config")} if "config" in table else {}
        snia = verdict(r.get("snia_steady"))
        scatter = verdict(r.get("interval_steady"))
        per = tables.count(r.get("snia_round_intervals"))
        row.update({"Workload": r["workload"], "Threads": tables.count(r["threads"])})
        if judged:
            row.update({
                "Intervals (per round)": tables.count(r["intervals"]) + ("" if per == tables.MISSING else f" ({per})"),
                "Window mean (IOPS)": tables.count(r.get("snia_mean_iops")),
                "Data excursion, allowed / measured (IOPS)": _pair(r.get("snia_data_allowed_iops"),
                                                                   r.get("snia_data_excursion_iops")),
                "Slope excursion, allowed / measured (IOPS)": _pair(r.get("snia_slope_allowed_iops"),
                                                                    r.get("snia_slope_excursion_iops")),
                "Least-squares line (IOPS, x: round 0-4)": _line(r.get("snia_fit_slope_iops"),
                                                                 r.get("snia_fit_intercept_iops")),
                "SNIA": "no verdict" if snia is None else ("steady" if snia else "NOT steady")})
        else:
            row["Intervals"] = tables.count(r["intervals"])
        row["Scatter rule (scatter / drift %)"] = "no verdict" if scatter is None else (
            f"{'steady' if scatter else 'NOT steady'} ({tables.pct(r['interval_iops_cv_pct'])} / "
            f"{float(r['interval_iops_drift_pct']):+.1f})")
        if ended:
            row["Ended by"] = _ended_by(r)
        rows.append(row)
    notes = [f"{snia_rule_text()[0].upper()}{snia_rule_text()[1:]}; no verdict with fewer than "
             f"{analysis.SNIA_ROUNDS} intervals" + (f". Allowed: {analysis.SNIA_MAX_DATA_EXCURSION_PCT:g} % and "
                                                    f"{analysis.SNIA_MAX_SLOPE_EXCURSION_PCT:g} % of the window mean."
                                                    if judged else ": no point had them, so its columns are left out."),
             f"Scatter rule: stdev / mean of the interval IOPS and the fitted line's drift over the point, each at most "
             f"{analysis.STEADY_MAX_CV_PCT:g} % ({MIN_VERDICT_INTERVALS} intervals needed).",
             ("Ended by: fio's own steadystate criterion (one criterion on its per-second samples) when it ended the "
              "point, else the point's full length; with `sweep.extend_until_steady`, a point not steady was measured "
              "again at twice its length and so on up to max_s: the lengths run and the rule that decided."
              if ended else "Every point ran its full length.")]
    caption = "Steady-state determination per point" if judged else "Steady state per point"
    return tables.table(rows, caption=caption, notes=notes, text_columns=[
        c for c in ("Configuration", "Workload", "Least-squares line (IOPS, x: round 0-4)", "SNIA",
                    "Scatter rule (scatter / drift %)", "Ended by") if rows and c in rows[0]])


def _pair(allowed: Any, measured: Any) -> str:
    return tables.MISSING if tables.count(measured) == tables.MISSING else f"{tables.count(allowed)} / {tables.count(measured)}"


def _line(slope: Any, intercept: Any) -> str:
    if tables.count(slope) == tables.MISSING or tables.count(intercept) == tables.MISSING:
        return tables.MISSING
    return f"{tables.count(intercept)} {'+' if float(slope) >= 0 else '-'} {abs(float(slope)):,.1f} x"


def _ended_by(r: dict[str, Any]) -> str:
    """What ended a point: extended until steady (:func:`flashpoc.extend.extension_text`), fio's
    steadystate (attained or not) or its full length."""
    from .extend import extension_text

    extended = extension_text(r)
    if extended:
        return extended
    criterion = r.get("fio_steadystate")
    if tables.text(criterion) == tables.MISSING:
        return "full length"
    attained = verdict(r.get("steadystate_attained"))
    if attained:
        return f"fio steadystate {criterion}: attained after {tables.pct(r.get('measured_s'))} s"
    return f"fio steadystate {criterion}: not attained in {tables.count(r.get('runtime_s'))} s"


#: The columns of the appendix's table of every point: (row column, header, formatter).
POINT_COLUMNS: tuple[tuple[str, str, Any], ...] = (
    ("threads", "Threads", tables.count),
    ("curve_pct", "Rate step (%)", lambda v: tables.pct(v, 0) if tables.text(v) != tables.MISSING else "full"),
    ("outstanding_ios", "Outstanding I/Os", tables.count),
    ("iops", "IOPS", tables.count),
    ("bw_mibps", "MiB/s", tables.mibps),
    ("lat_mean_ms", "Mean latency (ms)", tables.ms),
    ("clat_p99_ms", "p99 (ms)", tables.ms),
    ("redo_write_lat_ms", "Redo write (ms)", tables.ms),
    ("host_cpu_busy_pct", "Host CPU busy (%)", tables.pct),
)


def points_display(points: pd.DataFrame) -> tables.Table:
    """Every point in a few columns: threads, outstanding I/Os, IOPS, MiB/s, mean and p99
    latency, host CPU, and its steady-state and Little's-law verdicts (the columns the points
    have values in; every column: points.csv)."""
    present = [(c, h, f) for c, h, f in POINT_COLUMNS if c in points and points[c].notna().any()]
    rows = []
    for r in points.to_dict("records"):
        row = {"Configuration": r.get("config")} if "config" in points else {}
        row["Workload"] = r["workload"]
        row.update({header: fmt(r.get(column)) for column, header, fmt in present})
        row["Checks"] = _checks_cell(r)
        rows.append(row)
    notes = ["Checks: steady (its interval IOPS scatter and drift within 10 %) or not; 'no verdict' with fewer "
             f"than {MIN_VERDICT_INTERVALS} intervals; SNIA steady or not (the SNIA PTS rule, with at least "
             f"{analysis.SNIA_ROUNDS} intervals); 'Little's law off' when IOPS x latency is more than 20 % "
             "from the outstanding I/Os (the engine did not keep the I/Os it was asked to)."]
    return tables.table(rows, notes=notes, text_columns=[c for c in ("Configuration", "Workload", "Checks")
                                                          if rows and c in rows[0]])


def _checks_cell(row: dict[str, Any]) -> str:
    steady = verdict(row.get("interval_steady"))
    if steady is None:
        words = ["no verdict"] if "interval_steady" in row else []
    else:
        words = ["steady" if steady else "NOT steady"]
    snia = verdict(row.get("snia_steady"))
    if snia is not None:
        words.append("SNIA steady" if snia else "NOT steady by SNIA")
    law = row.get("littles_law_ok")
    if law is not None and not pd.isna(law) and not bool(law):
        words.append("Little's law off")
    return ", ".join(words) or tables.MISSING


def hosts_display(hosts: pd.DataFrame) -> tables.Table:
    """:func:`flashpoc.hostlimit.busiest_points` to read: each host's IOPS, share, mean latency
    and CPU at each workload's highest-IOPS point."""
    rows = []
    for r in hosts.to_dict("records"):
        row = {"Configuration": r.get("config")} if "config" in hosts else {}
        row.update({"Workload": r["workload"], "Threads": tables.count(r.get("threads")), "Host": r["host"]})
        if "outstanding_ios" in hosts and hosts["outstanding_ios"].notna().any():
            row["I/Os given"] = tables.count(r.get("outstanding_ios"))
        row.update({"IOPS": tables.count(r.get("iops")), "Share (%)": tables.pct(r.get("iops_share_pct")),
                    "Mean latency (ms)": tables.ms(r.get("lat_mean_ms")),
                    "CPU busy (%)": tables.pct(r.get("host_cpu_busy_pct"))})
        rows.append(row)
    return tables.table(rows, text_columns=[c for c in ("Configuration", "Workload", "Host") if rows and c in rows[0]])

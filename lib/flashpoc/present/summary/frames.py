"""Report tables from sweep rows: workload kinds, knees, the summary, distribution and steadiness tables, verdicts."""

from __future__ import annotations

from typing import Any

import pandas as pd

from flashpoc import analysis
from flashpoc.analysis import confidence
from flashpoc.analysis import bounds
from flashpoc.core.records import SHARE_LIMITS_US
from flashpoc.core.registry import get_engine
from flashpoc.analysis.rows import (KIND_RANDOM, KIND_THROUGHPUT, MIN_VERDICT_INTERVALS, SEQUENTIAL_RW, SLOB_SCAN_PCT, SMALL_BLOCK_BYTES,  # noqa: F401
                    SNIA_COLUMNS, curve_points, io_kind, to_points, workload_kinds)
from flashpoc.core.tables import number, verdict



_series = confidence.series_keys
"""The grouping of one curve: per configuration (when there is a ``config`` column) and workload."""


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


def _rate_at_slo(group: pd.DataFrame, column: str, slo_ms: float) -> float | None:
    """The most of ``column`` (MiB/s) within the SLO (:func:`flashpoc.analysis.iops_at_latency` on
    that rate: the same crossings, so the same kind of bound as the IOPS'), None without it."""
    if column not in group or group[column].isna().any():
        return None
    return analysis.iops_at_latency(to_points(group.to_dict("records"), rate=column), slo_ms).value


def slo_bound(row: dict[str, Any], slo_ms: float, rate: str = "iops") -> bounds.Bound:
    """The most ``rate`` (``iops`` or ``mibps``) within the SLO of a :func:`summary_table` row, as
    the value or bound it is."""
    return bounds.of(row.get(f"{rate}_at_{slo_ms:g}ms"), row.get("slo_status"), row.get("slo_note"))


def summary_table(frame: pd.DataFrame, slo_ms: float) -> pd.DataFrame:
    """One row per workload (and configuration, with a ``config`` column): max IOPS, IOPS at the
    latency SLO, knee, latency percentiles, CPU.

    Columns carry their units: ``*_iops``, ``*_ms``, ``*_pct``, ``*_mibps``. ``iops_at_<slo>ms``
    and ``mibps_at_<slo>ms`` are a value or a bound (:func:`flashpoc.analysis.iops_at_latency`):
    ``slo_status`` is its kind (``exact``, ``at_least``, ``at_most``: :mod:`flashpoc.analysis.bounds`),
    ``slo_note`` why it is a bound, or why the curve is uneven.
    """
    slo_label = f"iops_at_{slo_ms:g}ms"
    keys = _series(frame)
    rows = []
    for values, group in frame.groupby(keys, sort=False):
        workload = values[-1]
        measured, group = group, confidence.mean_rows(group).sort_values("threads")  # repeats: each point's mean
        points = curve_points(group)
        best = group.loc[group["iops"].idxmax()]
        at_slo = analysis.iops_at_latency(points, slo_ms)
        knee = analysis.find_knee(points)
        law_off = int((~measured["littles_law_ok"].astype(bool)).sum()) if "littles_law_ok" in measured else 0
        rows.append({
            **({"config": values[0]} if len(keys) == 2 else {}),
            "workload": workload,
            "bs": best.get("bs"),
            "points": len(group),
            "threads_range": f"{int(group.threads.min())}-{int(group.threads.max())}",
            "max_iops": round(float(best["iops"])),
            "max_iops_threads": int(best["threads"]),
            "max_iops_lat_mean_ms": float(best["lat_mean_ms"]),
            "max_bw_mibps": float(group["bw_mibps"].max()),
            slo_label: at_slo.value,  # as computed: a bound rounded to the nearest may say more than it bounds
            "slo_status": at_slo.kind,
            "slo_note": at_slo.why or None,
            f"mibps_at_{slo_ms:g}ms": _rate_at_slo(group, "bw_mibps", slo_ms),
            "knee_threads": knee.threads if knee else None,
            "knee_iops": round(knee.iops) if knee else None,
            "knee_lat_mean_ms": knee.latency_ms if knee else None,
            "min_lat_mean_ms": float(group["lat_mean_ms"].min()),
            "clat_p99_ms_at_max": number(best.get("clat_p99_ms")),
            "clat_p99_9_ms_at_max": number(best.get("clat_p99_9_ms")),
            "host_cpu_busy_pct_at_max": number(best.get("host_cpu_busy_pct")),
            "littles_law_flags": law_off,
        })
        for column in AT_MAX_IF_PRESENT:
            if column in group and group[column].notna().any():
                rows[-1][f"{column}_at_max"] = number(best.get(column))
        if "target_data" in group and group["target_data"].notna().any():  # vdbench: what the reads read
            rows[-1]["target_data"] = group["target_data"].dropna().iloc[-1]
    table = pd.DataFrame(rows)
    # engines without percentiles (vdbench, SLOB) leave no empty columns: distribution_text says why
    return table.drop(columns=[c for c in ("clat_p99_ms_at_max", "clat_p99_9_ms_at_max")
                               if c in table and table[c].isna().all()])


AT_MAX_IF_PRESENT = (
    "redo_write_lat_ms",
    "dbwr_write_lat_ms",
    "db_cpu_s_per_s",
    "db_cpu_pct_of_db_time",
    "buffer_hit_pct",
    "host_cpu_user_pct",
    "host_cpu_iowait_pct",
    "db_file_sequential_read_under_1ms_pct",
    "db_file_sequential_read_under_2ms_pct",
)
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
            value = number(best.get(f"db_file_sequential_read_under_{limit}_pct"))
            if value is not None:
                rows.append({"workload": workload, "threads": int(best["threads"]), "iops": round(float(best["iops"])),
                             "limit": f"<{limit}", "limit_us": limit_us, "share_pct": value,
                             "label": f"{int(best['threads'])} threads, {float(best['iops']):,.0f} IOPS"})
    return pd.DataFrame(rows, columns=["workload", "threads", "iops", "limit", "limit_us", "share_pct", "label"])


DISTRIBUTION_COLUMNS = ("lat_mean_ms", "clat_p50_ms", "clat_p90_ms", "clat_p99_ms", "clat_p99_9_ms",
                        "clat_under_512us_pct", "clat_under_1ms_pct", "clat_under_2ms_pct", "clat_under_4ms_pct")
"""Columns of :func:`distribution_table`: mean and percentile latencies (ms),
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
                row["detail_reason"] = f"max IOPS: no point within the {slo_ms:g} ms SLO"
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
        table[column] = table[column].astype(float)
    return table


def distribution_text(detail: pd.DataFrame) -> str:
    """Markdown: what the latency distribution of the detail points rests on, where an engine gives
    less than fio's bins (each engine's ``distribution_note`` of its own points); empty for fio."""
    if "engine" not in detail:
        return ""
    notes = (get_engine(name).distribution_note(detail[detail["engine"] == name])
             for name in dict.fromkeys(detail["engine"].dropna().astype(str)))
    return " ".join(note for note in notes if note)


#: The steady-state columns of a row: today's scatter-and-drift rule, the SNIA PTS rule
#: (:data:`flashpoc.analysis.rows.SNIA_COLUMNS`) and fio's own ``steadystate`` when it ended the point.
STEADY_COLUMNS = ("intervals", "interval_iops_cv_pct", "interval_iops_drift_pct", "interval_steady", *SNIA_COLUMNS,
                  "fio_steadystate", "steadystate_attained", "measured_s", "runtime_s",
                  "extended_runs_s", "steady_rule", "extended_steady")  # sweep.extend_until_steady (flashpoc.campaign.extend)


def steadiness_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Every point's steady-state verdicts: [config,] workload, threads, iops and
    :data:`STEADY_COLUMNS` (interval_steady None: fewer than 3 intervals; snia_steady None:
    fewer than 5). Empty when no point has a time series (an interval count above 0)."""
    columns = [*_series(frame), "threads", "iops", *STEADY_COLUMNS]
    if "intervals" not in frame or not (frame["intervals"].fillna(0) > 0).any():
        return pd.DataFrame(columns=columns)
    table = frame.reindex(columns=columns).copy()
    table["iops"] = table["iops"].round()
    # the series a damaged output cost (its lost columns named in ``damaged``): no verdict, though not short
    table["series_damaged"] = frame["damaged"].map(series_damaged) if "damaged" in frame else False
    return table.reset_index(drop=True)


def series_damaged(damaged: object) -> bool:
    """True when a point's ``damaged`` (:mod:`flashpoc.core.damage`) says a damaged output cost its time
    series' verdict: no verdict, though the point was not too short for one."""
    return isinstance(damaged, str) and "interval_steady" in damaged


def without_verdict(table: pd.DataFrame, judged: pd.DataFrame) -> tuple[int, int]:
    """Of the points of ``table`` (:func:`steadiness_table`) not in ``judged``: how many had too
    few intervals for a verdict, and how many lost their series to a damaged output."""
    rest = table.drop(index=judged.index)
    lost = int(rest["series_damaged"].astype(bool).sum()) if "series_damaged" in rest else 0
    return len(rest) - lost, lost


def _no_verdict_text(short: int, lost: int, needed: int, rule: str = "") -> str:
    """`` 2 had fewer than 3 intervals and no verdict; 1 lost its time series to a damaged output.``"""
    said = ([f"{short} had fewer than {needed} intervals and no {rule}verdict"] if short else []) + (
        [f"{lost} lost {'its' if lost == 1 else 'their'} time series to a damaged output (named under "
         f"Appendix A) and {'has' if lost == 1 else 'have'} no {rule}verdict"] if lost else [])
    return "; ".join(said) + "." if said else ""


def judged_points(table: pd.DataFrame, column: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The points with a verdict (:func:`verdict`) in ``column``, and those of them not steady."""
    if table.empty or column not in table:
        return table.iloc[0:0], table.iloc[0:0]
    flags = table[column].map(verdict)
    judged = table[flags.notna()]
    return judged, judged[flags[flags.notna()] == False]  # noqa: E712 (a Series of bools)


def _where(r: dict[str, Any]) -> str:
    threads = int(r["threads"])
    return f"{r['config'] + ', ' if r.get('config') else ''}`{r['workload']}` at {threads} thread{'' if threads == 1 else 's'}"


def snia_rule_text() -> str:
    """The SNIA PTS rule in words."""
    return (f"SNIA PTS rule: over a window of {analysis.SNIA_ROUNDS} rounds (the point's measured intervals in "
            f"{analysis.SNIA_ROUNDS} equal consecutive rounds), max - min at most "
            f"{analysis.SNIA_MAX_DATA_EXCURSION_PCT:g} % and the least-squares line's change at most "
            f"{analysis.SNIA_MAX_SLOPE_EXCURSION_PCT:g} % of the window's mean IOPS")


def steadiness_text(table: pd.DataFrame, detail: pd.DataFrame | None = None, own: Any = None) -> str:
    """Markdown: how many points were steady by each rule (scatter and drift; SNIA PTS; the engine's
    own, ``own``: :meth:`flashpoc.engines.base.Engine.own_steadiness`, where it ended a point), which
    were not and by which rule, and which point of each curve is shown in detail (``detail``, from
    :func:`detail_points`)."""
    chosen = "" if detail is None or detail.empty else "\n\nPoints shown in detail: " + "; ".join(
        f"{_where(r)} ({r['detail_reason']})" for r in detail.to_dict("records")) + "."
    if table.empty:
        return "(no interval time series: the engine kept none for these points)" + chosen
    judged, unsteady = judged_points(table, "interval_steady")
    limits = (f"interval IOPS scatter (stdev/mean) at most {analysis.STEADY_MAX_CV_PCT:g} % and drift of the fitted "
              f"line over the point at most {analysis.STEADY_MAX_DRIFT_PCT:g} %")
    short, lost = without_verdict(table, judged)
    if judged.empty and not lost:
        return (f"No point ran the 3 intervals a steady-state verdict needs ({len(table)} points with fewer; "
                f"a longer runtime gives one).") + chosen
    if judged.empty:  # some lost their series to a damaged output: not too short
        return "No point has a steady-state verdict: " + _no_verdict_text(short, lost, MIN_VERDICT_INTERVALS) + chosen
    lines = [f"{len(judged) - len(unsteady)} of {len(judged)} points were steady ({limits})."]
    if len(judged) < len(table):
        lines[0] += " " + _no_verdict_text(short, lost, MIN_VERDICT_INTERVALS)
    snia, snia_unsteady = judged_points(table, "snia_steady")
    if snia.empty:
        lines.append(f"No point ran the {analysis.SNIA_ROUNDS} intervals the SNIA PTS rule needs for its verdict (a "
                     "longer runtime gives them).")
    else:
        lines.append(f"{len(snia) - len(snia_unsteady)} of {len(snia)} points were steady by the {snia_rule_text()}"
                     + ("; " + _no_verdict_text(*without_verdict(table, snia), analysis.SNIA_ROUNDS, "SNIA ")
                        if len(snia) < len(table) else "."))
    ended = _ended_by_own(table, own)
    if not ended.empty:
        missed = ended[ended[own.attained].map(verdict) == False]  # noqa: E712
        lines.append(f"{own.rule} decided how long {len(ended)} points ran "
                     f"({', '.join(sorted(set(ended[own.column].astype(str))))}, {own.criterion}): "
                     f"{len(ended) - len(missed)} attained it and ended early, "
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


def _ended_by_own(table: pd.DataFrame, own: Any) -> pd.DataFrame:
    """The points the engine's own rule (``own``, or None) ended (or ran to their full length without attaining it)."""
    return table[table[own.column].notna()] if own is not None and own.column in table else table.iloc[0:0]


def unsteady_summary(table: pd.DataFrame, *, named: bool = True, own: Any = None) -> str | None:
    """One sentence (Markdown, its label in bold): the points not steady, by rule (``own``: the
    engine's own, :meth:`flashpoc.engines.base.Engine.own_steadiness`, or None), each named unless
    ``named`` is False (the executive summary counts them only); None when every judged point was
    steady (or none was judged)."""
    parts = []
    rules = [(table, "snia_steady", "the SNIA PTS rule"), (table, "interval_steady", "interval scatter and drift")]
    if own is not None:
        rules.append((_ended_by_own(table, own), own.attained, own.rule))
    for points, column, rule in rules:
        judged, unsteady = judged_points(points, column)
        if not unsteady.empty:
            where = f" ({'; '.join(_where(r) for r in unsteady.to_dict('records'))})" if named else ""
            parts.append(f"by {rule}, {len(unsteady)} of {len(judged)}{where}")
    return ("**Points not steady**: " + "; ".join(parts) + ". Their averages hide a trend or swings: see "
            "Results: steady state.") if parts else None

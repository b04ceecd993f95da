"""Tables to read (flashpoc.core.tables.Table): the report's and notebook 04's, with human headers and units."""

from __future__ import annotations

from typing import Any

import pandas as pd

from flashpoc import analysis
from flashpoc.core import tables
from flashpoc.core.registry import engine_names, get_engine
from flashpoc.core.damage import DAMAGED
from flashpoc.params import parse_size
from flashpoc.analysis import bounds
from flashpoc.present.summary.frames import (KIND_THROUGHPUT, MIN_VERDICT_INTERVALS, _ended_by_fio, _series, series_damaged, slo_bound, snia_rule_text,
                     verdict, workload_kinds)


# --- tables to read (flashpoc.core.tables.Table): the report's and notebook 04's -----------------

#: a max point whose hosts measured this far apart (``hosts_apart_pct``: how much longer their windows
#: together spanned than the shortest, over it, percent) is noted in its curve's caveats
HOSTS_APART_NOTED_PCT = 1.0

_RW_TEXT = {"randread": "random read", "randwrite": "random write", "read": "sequential read",
            "write": "sequential write", "trim": "sequential trim", "randtrim": "random trim"}


def io_text(row: dict[str, Any]) -> str:
    """What a workload does, in words: 'random read, 4 KiB', 'random 80 % read, 8 KiB',
    'sequential read, 128 KiB', 'SLOB, 10 % update, 8 KiB' (the row's engine's
    :meth:`~flashpoc.engines.base.Engine.workload_text`); plus the queue depth per thread when it is above 1."""
    rw, block = row.get("rw"), _block_text(row.get("bs"))
    name = row.get("engine")
    own = get_engine(name).workload_text(row) if isinstance(name, str) and name in engine_names() else None
    if own is not None:  # the engine's words for its workloads (SLOB's mix)
        what = own
    elif rw in ("randrw", "rw", "readwrite"):
        mix = _int_or_none(row.get("rwmixread"))
        what = f"{'random' if rw == 'randrw' else 'sequential'} {mix if mix is not None else '?'} % read"
    else:
        what = _RW_TEXT.get(str(rw), str(rw) if rw is not None else "")
    depth = _int_or_none(row.get("iodepth"))
    queue = f", queue depth {depth} per thread" if depth and depth > 1 and own is None else ""
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
    """What qualifies a curve's numbers: its max-IOPS point's steady-state verdict and hosts run apart
    (:data:`HOSTS_APART_NOTED_PCT`), points off Little's law, and a maximum at the highest thread count
    measured."""
    notes = []
    steady = best.get("interval_steady")
    if steady is not None and not pd.isna(steady) and not bool(steady):
        notes.append(f"max point not steady (scatter {best['interval_iops_cv_pct']:.0f} %, drift "
                     f"{best['interval_iops_drift_pct']:+.0f} %)")
    elif "intervals" in group and (steady is None or pd.isna(steady)):
        count = _int_or_none(best.get("intervals")) or 0
        why = ("its time series lost to a damaged output, named under Appendix A" if series_damaged(best.get("damaged"))
               else f"{count} interval{'s' if count != 1 else ''}, {MIN_VERDICT_INTERVALS} needed")
        notes.append(f"max point: no steady-state verdict ({why})")
    apart_pct = tables.number(best.get("hosts_apart_pct"))
    if apart_pct is not None and apart_pct >= HOSTS_APART_NOTED_PCT:
        notes.append(f"max point: its hosts, each started on its own, measured over windows that together spanned "
                     f"{best['hosts_apart_s']:.2f} s more than one: where they share a limit, its IOPS may read up to "
                     f"{apart_pct:.0f} % high")
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
        row[f"Within the {slo_ms:g} ms SLO"] = _slo_cell(slo_bound(r, slo_ms, "mibps" if throughput else "iops"),
                                                        throughput)
        row["Knee"] = _knee_cell(r, group, throughput)
        row["Caveats"] = "\n".join(_point_caveats(group, best)) or tables.MISSING
        rows.append(row)
    notes = [f"Within the SLO: the most IOPS (MiB/s for sequential and large-block I/O) at a mean latency of at "
             f"most {slo_ms:g} ms, read off the curve between the two measured points around {slo_ms:g} ms, never "
             "extrapolated: '≥' (at least) when the heaviest load measured was still under it, '≤' (at most) when "
             "the lightest was already over it. The knee is where latency starts to climb faster than IOPS. Every "
             "column of every point: summary.csv and points.csv."]
    text_columns = [c for c in ("Configuration", "Workload", "Caveats") if rows and c in rows[0]]
    return tables.table(rows, notes=notes, text_columns=text_columns)


def _slo_cell(bound: bounds.Bound, throughput: bool) -> str:
    """The most within the SLO, its unit, and why it is a bound or the curve is uneven."""
    text = bound.cell(tables.mibps if throughput else tables.count)
    if bound.known:
        text += " MiB/s" if throughput else " IOPS"
    return text + (f"\n({bound.why})" if bound.why else "")


def slo_words(row: dict[str, Any], slo_ms: float, throughput: bool, *, brief: bool = False) -> str:
    """What a :func:`flashpoc.present.summary.summary_table` row gives within the SLO, in a sentence's
    words: "12,267 IOPS within 0.5 ms", "under 1 ms at every point measured: at least 80,303 IOPS",
    "over 1 ms already at its lightest load (...): at most 2,345 IOPS"; MiB/s for ``throughput``.
    ``brief`` (the executive summary): the figure or bound with the first clause of why it is a bound,
    and an uneven curve only named (its account is the Results table's note)."""
    bound = slo_bound(row, slo_ms, "mibps" if throughput else "iops")
    said = bound.words(tables.mibps if throughput else tables.count, "MiB/s" if throughput else "IOPS")
    why = bound.why
    if brief and why:
        why = "an uneven curve: see Results" if bound.exact else why.split(";")[0]
    if bound.exact:
        return f"{said} within {slo_ms:g} ms" + (f" ({why})" if why else "")
    return f"{why}: {said}" if why else f"{said} within {slo_ms:g} ms"


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
    """What ended a point: extended until steady (:func:`flashpoc.campaign.extend.extension_text`), fio's
    steadystate (attained or not) or its full length."""
    from flashpoc.campaign.extend import extension_text

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
    notes += [f"Damaged output ({r['workload']}, {tables.count(r.get('threads'))} threads): {r[DAMAGED]}; the point "
              "lost these figures, no other is changed." for r in points.to_dict("records")
              if isinstance(r.get(DAMAGED), str) and r[DAMAGED]]
    return tables.table(rows, notes=notes, text_columns=[c for c in ("Configuration", "Workload", "Checks")
                                                          if rows and c in rows[0]])


#: The columns of the notebooks' tables of machine rows (the check, the probe's points and hosts,
#: the sweep's points): each one's header and formatter, in the report's words (POINT_COLUMNS).
FRAME_COLUMNS: dict[str, tuple[str, Any]] = {
    "config": ("Configuration", tables.text), "workload": ("Workload", tables.text), "host": ("Host", tables.text),
    **{column: (header, fmt) for column, header, fmt in POINT_COLUMNS},
    "check": ("Check", tables.text), "value": ("Value", tables.with_unit), "status": ("Status", tables.text),
    "detail": ("Detail", tables.text), "repeat": ("Repeat", tables.count),
    "iorate_requested": ("Requested rate (IOPS)", tables.count), "read_iops": ("Read IOPS", tables.count),
    "write_iops": ("Write IOPS", tables.count), "clat_p99_9_ms": ("p99.9 (ms)", tables.ms),
    "dbwr_write_lat_ms": ("DBWR write (ms)", tables.ms),
    "db_file_sequential_read_under_1ms_pct": ("Single-block reads under 1 ms (%)", tables.pct),
    "db_cpu_s_per_s": ("DB CPU (s/s)", lambda v: tables.pct(v, 2)), "iops_share_pct": ("Share (%)", tables.pct),
    "host_cpu_user_pct": ("Host CPU user (%)", tables.pct), "host_cpu_iowait_pct": ("Host CPU iowait (%)", tables.pct),
    "measured_s": ("Measured (s)", tables.pct),
    "steadystate_attained": ("fio steady state", tables.words("attained", "not attained")),
    "littles_law_ok": ("Little's law", tables.words("holds", "off")), "reused": ("Stored before", tables.words("yes", "no")),
}

#: The columns of :data:`FRAME_COLUMNS` that hold words (aligned left; the others are numbers).
_WORD_COLUMNS = {"config", "workload", "host", "check", "value", "status", "detail", "steadystate_attained",
                 "littles_law_ok", "reused"}


def frame_display(frame: pd.DataFrame, caption: str = "") -> tables.Table:
    """A table of machine rows (the environment check's, the probe's points or hosts, the sweep's
    points) to read in a notebook: the report's headers with units and its number formats, every
    cell whole (no truncated text), no index. A column not in :data:`FRAME_COLUMNS` keeps its name; a
    ``unit`` column (the check's) is folded into the value it qualifies (``23.5 GiB``, :func:`flashpoc.core.tables.with_unit`)."""
    if "unit" in frame and "value" in frame:
        frame = frame.assign(value=[tables.with_unit(v, u) for v, u in zip(frame["value"], frame["unit"])])
        frame = frame.drop(columns="unit")
    columns = [(c, *FRAME_COLUMNS.get(c, (c, tables.text))) for c in frame.columns]
    rows = [{header: fmt(r.get(column)) for column, header, fmt in columns} for r in frame.to_dict("records")]
    text = [header for column, header, _ in columns if column in _WORD_COLUMNS or column not in FRAME_COLUMNS]
    return tables.table(rows, columns=[header for _, header, _ in columns], caption=caption, text_columns=text)


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
    if isinstance(row.get(DAMAGED), str) and row[DAMAGED]:
        words.append("damaged output")
    return ", ".join(words) or tables.MISSING


def hosts_display(hosts: pd.DataFrame) -> tables.Table:
    """:func:`flashpoc.analysis.hostlimit.busiest_points` to read: each host's IOPS, share, mean latency
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

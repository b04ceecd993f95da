"""The tables and lines ``flashpoc run`` ends with, from stored points (the closing summary that reads
the phases' results is :mod:`flashpoc.cli.closing`)."""

from __future__ import annotations

from flashpoc.present.progress.texts import engine_words, threads_text


SUMMARY_COLUMNS = [("workload", "Workload"), ("max_iops", "Max IOPS", ",.0f"), ("max_bw_mibps", "MiB/s", ",.1f"),
                   ("max_iops_threads", "at threads"), ("max_iops_lat_mean_ms", "latency (ms)", ".3f"),
                   ("at_slo", "within SLO"), ("knee_threads", "knee at", ".0f"), ("knee_iops", "knee IOPS", ",.0f")]


def summary_lines(points, campaign: str, slo_ms: float, width: int = 100) -> list[str]:
    """The table a batch run ends with: each workload's max IOPS, the most within the SLO (MiB/s for
    sequential and large-block I/O, a bound where it is one) and knee, and what a bound means."""
    from flashpoc.present import summary
    from flashpoc.core.texttable import text_table

    kinds = summary.workload_kinds(points)
    rows = []
    for r in summary.summary_table(points, slo_ms).to_dict("records"):
        throughput = kinds.get(str(r["workload"])) == summary.KIND_THROUGHPUT
        bound = summary.slo_bound(r, slo_ms, "mibps" if throughput else "iops")
        cell = bound.cell(lambda v: f"{v:,.1f} MiB/s" if throughput else f"{v:,.0f} IOPS")
        rows.append({**r, "at_slo": cell.replace("≥ ", ">= ").replace("≤ ", "<= ")})
    lines = [f"Summary of {campaign} (SLO: mean latency {slo_ms:g} ms):", ""]
    lines += ["  " + line for line in text_table(rows, SUMMARY_COLUMNS, width - 2).splitlines()]
    notes = {"at_least": f">= : under {slo_ms:g} ms at the heaviest load measured: the array gives at "
                         f"least that within {slo_ms:g} ms",
             "at_most": f"<= : over {slo_ms:g} ms already at the lightest load measured: at most that"}
    return lines + [f"  {notes[s]}" for s in notes if s in {r.get("slo_status") for r in rows}]


def steadiness_line(points) -> str:
    """One line: how many of the sweep's ``points`` were steady, and each one that was not."""
    import pandas as pd

    from flashpoc.present.summary import judged_points, steadiness_table, without_verdict

    table = steadiness_table(points)
    unit = engine_words(points["engine"].iloc[0] if "engine" in points and len(points) else None)["unit"]
    if "intervals" not in points:
        return "steady state: no verdict: the engine kept no time series of these points"
    judged = table[table["interval_steady"].notna()] if not table.empty else table
    short, lost = without_verdict(table, judged)  # no verdict: a series too short, or one a damaged log cost
    if judged.empty and not lost:
        return "steady state: no verdict: no point kept the 3 intervals a verdict needs (a longer runtime gives them)"
    more = " more" if not judged.empty else ""
    others = "; ".join(([f"{short}{more} too short for a verdict"] if short else []) + (
        [f"{lost}{more} whose time series was damaged: points.csv's damaged column names what was lost"] if lost else []))
    if judged.empty:
        return f"steady state: no verdict: {others}"
    unsteady = judged[~judged["interval_steady"].astype(bool)]
    line = f"steady state: {len(judged) - len(unsteady)} of {len(judged)} points steady"
    line += f" ({others})" if others else ""
    if not unsteady.empty:
        line += "; not steady: " + "; ".join(
            f"{r['config'] + ', ' if r.get('config') else ''}{r['workload']} at "
            f"{threads_text(int(r['threads']), unit)}"
            + (f" (scatter {r['interval_iops_cv_pct']:.1f} %, drift {r['interval_iops_drift_pct']:+.1f} %)"
               if pd.notna(r.get("interval_iops_cv_pct")) else "")  # HammerDB's verdict is of TPM, not IOPS
            for r in unsteady.to_dict("records"))
    snia, missed = judged_points(table, "snia_steady")
    if not snia.empty:
        line += f"; by the SNIA PTS rule {len(snia) - len(missed)} of {len(snia)} steady" + (
            "" if missed.empty else " (not: " + "; ".join(
                f"{r['config'] + ', ' if r.get('config') else ''}{r['workload']} at "
                f"{threads_text(int(r['threads']), unit)}"
                for r in missed.to_dict("records")) + ")")
    return line

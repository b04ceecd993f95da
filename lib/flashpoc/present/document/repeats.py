"""The report's section on repeats: how sure each answer and each point is (:mod:`flashpoc.analysis.confidence`).

With repeats (``sweep.repeats``, or counts the probe measured again), the answers (max IOPS, IOPS
at the SLO, the knee) with their 95 % intervals from the repeat-wise answers, and every repeated
point's mean, spread and interval. Without repeats, one paragraph says plainly that no interval
can be computed and which point-to-point noise the comparison assumes instead.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from flashpoc.analysis import confidence
from flashpoc.core import tables
from flashpoc.analysis.compare import NOISE_PCT
from flashpoc.present.document.base import Context, DocSection


def _interval(low: Any, high: Any, fmt) -> str:
    if low is None or pd.isna(low):
        return "none: measured once"
    return f"{fmt(low)}..{fmt(high)}"


def _spread(row: dict[str, Any], fmt) -> str:
    return fmt(row["min"]) if row["n"] == 1 else f"{fmt(row['min'])}..{fmt(row['max'])}"


def answers_display(points: pd.DataFrame, slo_ms: float) -> tables.Table:
    """The answers of each curve with their intervals (:func:`flashpoc.analysis.confidence.answers`)."""
    found = confidence.answers(points, slo_ms)
    rows = []
    for r in found.to_dict("records"):
        if r["n"] is None or pd.isna(r["n"]):
            continue
        fmt = tables.count
        rows.append({**({"Configuration": r["config"]} if "config" in r else {}), "Workload": r["workload"],
                     "Answer": f"{r['answer']} ({r['unit']})" if r["unit"] == "threads" else r["answer"],
                     "Mean": fmt(r["mean"]), "95 % interval": _interval(r["ci_low"], r["ci_high"], fmt),
                     "Spread (min..max)": _spread(r, fmt), "CV (%)": tables.pct(r["cv_pct"]),
                     "Curves": f"{int(r['n'])} of {int(r['runs'])}"})
    keys = (["Configuration"] if "config" in found else []) + ["Workload", "Answer"]
    return tables.table(rows, text_columns=keys, notes=[
        "Each repeat of the sweep is one whole curve (every thread count once); each curve gives its own "
        "answer, and the interval is the 95 % Student t interval of the mean of those answers. "
        "Curves: how many repeats give the answer (a curve that never crosses the SLO gives none)."])


def points_display(points: pd.DataFrame, column: str = "iops") -> tables.Table:
    """Every point measured more than once: its mean, 95 % interval, spread and CV of ``column``."""
    table = confidence.point_table(points, column)
    table = table[table["n"] > 1]
    keys = [k for k in ("config", "workload") if k in table]
    names = {"config": "Configuration", "workload": "Workload"}
    rows = [{**{names[k]: r[k] for k in keys}, "Threads": tables.count(r["threads"]), "Runs": int(r["n"]),
             "Mean IOPS": tables.count(r["mean"]), "95 % interval (IOPS)": _interval(r["ci_low"], r["ci_high"],
                                                                                  tables.count),
             "Spread (IOPS)": _spread(r, tables.count), "CV (%)": tables.pct(r["cv_pct"])}
            for r in table.to_dict("records")]
    return tables.table(rows, text_columns=[names[k] for k in keys])


def repeats_section(report, context: Context) -> list[DocSection]:
    """The section "Results: repeats and intervals" (see the module's docstring)."""
    points, cfg = report.points, report.cfg
    noise = cfg.report.noise_pct if cfg is not None else NOISE_PCT
    items: list[Any] = []
    if confidence.has_repeats(points):
        runs = confidence.point_table(points)["n"]
        items += [f"Each sweep point was measured {int(runs.min())}"
                  + (f" to {int(runs.max())}" if runs.max() != runs.min() else "")
                  + " times, interleaved (every thread count once, then again), so that a drift of the array or "
                  "the hosts spreads over all the counts rather than bending the curve. The charts and the "
                  "tables above show each point's mean; here each answer and each point come with their spread "
                  "and the 95 % interval of the mean (Student t, n-1 degrees of freedom). A comparison calls a "
                  "difference **within measurement noise** when its 95 % interval (Welch) spans zero.",
                  answers_display(points, report.slo_ms), points_display(points)]
    else:
        items.append(f"Each sweep point was measured once (`sweep.repeats: 1`): no interval can be computed, and "
                     f"none is shown. On a lab host, points measured again differ by 10-15 %; the comparison "
                     f"therefore calls a difference smaller than {noise:g} % (`report.noise_pct`) **within "
                     f"measurement noise**. Set `sweep.repeats: 3` to measure every point three times and give "
                     f"each answer its 95 % interval.")
    probe_points = pd.DataFrame((context.probe or {}).get("points") or [])
    if not probe_points.empty and {"threads", "iops"} <= set(probe_points) and confidence.has_repeats(probe_points):
        items += ["The saturation probe measured some thread counts again (where its answer was uncertain); "
                  "their repeats:", points_display(probe_points)]
    return [DocSection("results", "Results: repeats and intervals", items)]

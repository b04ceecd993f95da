"""vdbench's own numbers in the report: which intervals its averages counted (:func:`averaged_text`) and
its totals per point (:func:`totals_display`), as its totals.html prints them."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pandas as pd

from flashpoc.core import tables

#: The columns of vdbench's totals a point's row keeps: (row column, header, formatter), in
#: totals.html's order.
TOTALS_COLUMNS: tuple[tuple[str, str, Any], ...] = (
    ("iops", "IOPS", tables.count),
    ("bw_mibps", "MiB/s", tables.mibps),
    ("lat_mean_ms", "Resp (ms)", tables.ms),
    ("read_lat_mean_ms", "Read resp (ms)", tables.ms),
    ("write_lat_mean_ms", "Write resp (ms)", tables.ms),
    ("lat_max_ms", "Resp max (ms)", tables.ms),
    ("lat_stddev_ms", "Resp stddev (ms)", tables.ms),
    ("queue_depth", "Queue depth", lambda v: tables.pct(v, 1)),
    ("host_cpu_busy_pct", "CPU sys+u (%)", tables.pct),
)


def _warm_words(first: int, last: int, warmup: int) -> str:
    """Which of the ``warmup`` first intervals the range ``first``-``last`` holds, in words."""
    held = max(0, min(warmup, last) - first + 1)
    if held == 0:
        return "none of it"
    if held == warmup:
        return "all of it" if warmup > 1 else "it"
    return "its last interval" if held == 1 else f"its last {held} intervals"


def averaged_text(points: pd.DataFrame, warmup_intervals: int) -> str:
    """Which intervals vdbench's average counted, over ``points`` (their ``avg_intervals``: read from
    vdbench's output, its ``avg_`` line checked against its interval lines), and how much of the
    warm-up (the first ``warmup_intervals``) that holds: "vdbench's average counted intervals 2-12 in
    41 of 43 points and 1-12 in 2; the warm-up was intervals 1-2: 2-12 holds its last interval, 1-12
    all of it." (vdbench's name is lower case, also first in a sentence.) Empty without the column."""
    if "avg_intervals" not in points:
        return ""
    ranges = Counter(str(v) for v in points["avg_intervals"].dropna())
    if not ranges:
        return ""
    total = sum(ranges.values())
    ordered = ranges.most_common()
    counted = (f"{ordered[0][0]} in all {total} points" if len(ordered) == 1 else
               f"{ordered[0][0]} in {ordered[0][1]} of {total} points and "
               + ", ".join(f"{r} in {n}" for r, n in ordered[1:]))
    text = f"vdbench's average (its `avg_` line) counted intervals {counted}"
    if not warmup_intervals:
        return text + "."
    spans = []
    for label, _ in ordered:
        first, _, last = label.partition("-")
        if first.isdigit() and last.isdigit():
            spans.append(f"{label} holds {_warm_words(int(first), int(last), warmup_intervals)}")
    warm = f"intervals 1-{warmup_intervals}" if warmup_intervals > 1 else "interval 1"
    return f"{text}; the warm-up was {warm}" + (f": {', '.join(spans)}." if spans else ".")


def totals_display(points: pd.DataFrame) -> tables.Table:
    """vdbench's totals of every point, as its totals.html prints them (the report's table of
    every point has fewer columns): the intervals its average counted, IOPS, MiB/s, response time
    in total, of reads and of writes, its maximum and standard deviation, vdbench's queue depth and
    the host CPU; the columns the points have values in."""
    present = [(c, h, f) for c, h, f in TOTALS_COLUMNS if c in points and points[c].notna().any()]
    rows = []
    for r in points.to_dict("records"):
        row = {"Configuration": r.get("config")} if "config" in points else {}
        row.update({"Workload": r["workload"], "Threads": tables.count(r.get("threads"))})
        if "curve_pct" in points and points["curve_pct"].notna().any():
            row["Rate step (%)"] = tables.pct(r.get("curve_pct"), 0) if tables.number(r.get("curve_pct")) else "full"
        row["Averaged (intervals)"] = tables.text(r.get("avg_intervals"))
        row.update({header: fmt(r.get(column)) for column, header, fmt in present})
        rows.append(row)
    return tables.table(rows, caption="vdbench's totals per point", text_columns=[
        c for c in ("Configuration", "Workload", "Averaged (intervals)") if rows and c in rows[0]], notes=[
        "As vdbench's totals.html prints each run's average line: response times in ms (max: the slowest I/O of "
        "the intervals averaged; stddev: their standard deviation), queue depth: the I/Os vdbench measured in "
        "flight, CPU: the load host's (sys+user). Every column: points.csv."])

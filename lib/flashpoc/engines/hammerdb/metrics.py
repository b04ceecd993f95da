"""A HammerDB point's row and time series from a run's files (pure).

The row holds HammerDB's own numbers (:func:`.parse.parse_files`, cross-checked): NOPM, the
database's TPM, the active virtual users, and per transaction (NEWORD, PAYMENT, DELIVERY, SLEV,
OSTAT) its calls and response times in milliseconds as the time profile printed them
(``neword_p95_ms``...), and the mean completion time of a transaction of any kind
(``txn_mean_ms``, :func:`completion_ms`).

The time series is the transaction counter's (``<N> <db> tpm`` every refresh): one interval per
sample, ``second`` since the counter's first sample. ``counted`` says whether the sample falls in
the timed test, between the timed driver's ``Rampup complete, Taking start ...`` and ``Test
complete, Taking end ...`` lines as the virtual-user log timestamps them (``vuset timestamps 1``);
the steady-state verdict (:func:`flashpoc.analysis.interval_steadiness`) is that of the counted
samples' TPM. Without timestamps the window is unknown: no sample is counted and there is no verdict.

The load host's CPU (``host_cpu_busy_pct``...) is that of the timed test too: between the first
and the last sample of ``hostcpu.log`` (:mod:`.run`) within the window (:func:`host_cpu`). On
Oracle the row also holds the AWR snapshot pair HammerDB printed and, when its rows were read
(``awr_rows.json``), AWR's metrics between them (:mod:`.awr`).
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from ...analysis import interval_steadiness
from ...errors import ParseError
from ...parse.host import cpu_utilisation
from .awr import awr_columns, snapshot_pair
from .parse import TIMESTAMP_LINE, VUSER_LINE, HammerdbResult, parse_files, read_files

#: the transaction fields a row carries, as ``<transaction>_<field>`` (milliseconds but calls)
ROW_FIELDS = ("calls", "min_ms", "avg_ms", "p50_ms", "p95_ms", "p99_ms", "max_ms", "sd_ms")
#: columns of a HammerDB point's ``intervals.csv``
INTERVAL_COLUMNS = ("point_id", "second", "time", "tpm", "counted")
_TIME_FORMATS = ("%Y-%m-%d %H:%M:%S", "%a %b %d %H:%M:%S UTC %Y", "%a %b %d %H:%M:%S GMT %Y")
_STAMP = re.compile(r"^Timestamp \d+ @ (.+?)\s*$")
_CPU_SAMPLE = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) (cpu .+?)\s*$")
#: the CPU columns of a HammerDB row (the load host's, over the timed test)
CPU_COLUMNS = ("host_cpu_busy_pct", "host_cpu_user_pct", "host_cpu_system_pct", "host_cpu_iowait_pct")
_WINDOW = {"start": re.compile(r"^Rampup complete, Taking start "), "end": re.compile(r"^Test complete, Taking end ")}


def parse_time(text: str) -> datetime | None:
    """A time as HammerDB prints it (job store ``2026-11-23 20:05:48``, logs ``Mon Nov 23
    20:05:48 UTC 2026``), or None."""
    for fmt in _TIME_FORMATS:
        try:
            return datetime.strptime(text.strip(), fmt)
        except ValueError:
            continue
    return None


def timed_window(files: dict[str, str]) -> tuple[datetime, datetime] | None:
    """When the timed test began counting and ended, from the timestamped virtual-user log, or
    None (no timestamps, or the lines are missing)."""
    found: dict[str, datetime] = {}
    for name, text in sorted(files.items()):
        if not (name.startswith("hammerdb") and name.endswith(".log")):
            continue
        stamp = None
        for line in text.splitlines():
            if TIMESTAMP_LINE.match(line):
                match = _STAMP.match(line)
                stamp = parse_time(match.group(1)) if match else None
                continue
            vuser = VUSER_LINE.match(line.rstrip())
            message = vuser.group(2) if vuser else line
            for which, pattern in _WINDOW.items():
                if stamp is not None and pattern.match(message):
                    found.setdefault(which, stamp)
    if "start" in found and "end" in found and found["end"] > found["start"]:
        return found["start"], found["end"]
    return None


def host_cpu(files: dict[str, str], window: tuple[datetime, datetime] | None) -> dict[str, float | None]:
    """The load host's CPU use (%) over the timed test: between the first and the last whole sample
    of ``hostcpu.log`` within ``window``; None values without a window or two samples in it."""
    samples = []
    for line in files.get("hostcpu.log", "").splitlines():
        match = _CPU_SAMPLE.match(line)
        when = parse_time(match.group(1)) if match else None
        if when is not None and window and window[0] <= when <= window[1]:
            samples.append(match.group(2))
    if len(samples) < 2:
        return dict.fromkeys(CPU_COLUMNS)
    try:
        return cpu_utilisation(samples[0], samples[-1])
    except ParseError:  # a sample cut short: no CPU rather than a wrong one
        return dict.fromkeys(CPU_COLUMNS)


def intervals(result: HammerdbResult, window: tuple[datetime, datetime] | None, point_id: str = ""
              ) -> list[dict[str, Any]]:
    """The transaction counter's samples as interval rows (:data:`INTERVAL_COLUMNS`)."""
    times = [parse_time(t) if t else None for t, _ in result.tcount]
    first = next((t for t in times if t is not None), None)
    rows = []
    for (text, tpm), when in zip(result.tcount, times):
        second = None if when is None or first is None else (when - first).total_seconds()
        counted = bool(window and when and window[0] < when <= window[1])
        rows.append({"point_id": point_id, "second": second, "time": text or None, "tpm": tpm, "counted": counted})
    return rows


def completion_ms(result: HammerdbResult) -> float | None:
    """A transaction's mean completion time (ms) over every transaction of the time profile: the
    sum of their TOTAL times over the sum of their CALLS (each one weighted by its calls), to
    HammerDB's 0.001 ms; None without a time profile."""
    calls = sum(t.calls for t in result.transactions)
    return round(sum(t.total_ms for t in result.transactions) / calls, 3) if calls else None


def point_metrics(result: HammerdbResult, window: tuple[datetime, datetime] | None,
                  files: dict[str, str] | None = None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A point's metrics (the row's columns HammerDB gives, and the load host's CPU from ``files``)
    and its interval rows."""
    metrics: dict[str, Any] = {"nopm": result.nopm, "tpm": result.tpm, "virtual_users": result.virtual_users,
                               "database": result.database, "jobid": result.jobid}
    for t in result.transactions:
        metrics.update({f"{t.name.lower()}_{f}": getattr(t, f) for f in ROW_FIELDS})
    metrics["txn_mean_ms"] = completion_ms(result)
    series = intervals(result, window)
    counted = [r["tpm"] for r in series if r["counted"]]
    steady = interval_steadiness(counted)
    metrics.update({
        "tcount_metric": result.tcount_metric,
        "test_start": window[0].isoformat() if window else None,
        "test_end": window[1].isoformat() if window else None,
        "test_s": (window[1] - window[0]).total_seconds() if window else None,
        "intervals": len(counted),
        "interval_tpm_cv_pct": steady["cv_pct"],
        "interval_tpm_drift_pct": steady["drift_pct"],
        "interval_steady": steady["steady"],
        "parse_problems": "; ".join(result.problems) or None,
    })
    metrics.update(host_cpu(files or {}, window))
    pair = snapshot_pair(result.snapshots)  # Oracle: the AWR snapshots HammerDB took, and AWR's metrics
    metrics.update(pair)
    metrics.update(awr_columns(files or {}, pair))
    return metrics, series


def read_run(path, jobid: str | None = None) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
    """A run's file or directory: the whole parse (JSON-ready), the point's metrics and its intervals.

    Raises:
        ParseError: as :func:`.parse.parse_files`.
    """
    files = read_files(path)
    result = parse_files(files, jobid)
    metrics, series = point_metrics(result, timed_window(files), files)
    return result.to_dict() | {"metrics": metrics, "intervals": series}, metrics, series

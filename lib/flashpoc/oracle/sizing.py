"""What a production database really needs, from one of its AWR reports (pure: a parsed report in,
a flat summary out): the I/O load and latencies a storage POC must meet, and the campaign target
they give.

The numbers are :func:`flashpoc.oracle.awr_metrics.point_metrics` of the report (instance or RAC
global), so they mean what they mean for a SLOB point: IOPS are Oracle's physical read + write
I/O requests per second, MB/s its read + write MiB/s, the read latency the ``db file sequential
read`` average (foreground), the write latencies the redo (``log file parallel write``) and DBWR
(``db file parallel write``) averages.

The target: ``slo_ms`` is the single-block read latency production sees today (to 0.001 ms, at
least 0.001; none where the report prints it in whole milliseconds, as Statspack and 11.2's AWR
do: a target is never finer than the report resolves), ``iops_levels`` its IOPS (whole): set them as the campaign's ``slo_ms`` and
``report: iops_levels:``, and the report gives each configuration's IOPS at that latency and
its latency and CPU at that load (README, "Sizing from a production AWR report").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flashpoc.core.numbers import tidy
from flashpoc.oracle.awr_metrics import point_metrics
from flashpoc.oracle.metrics import event_key

#: Wait classes of the I/O events listed as the top I/O events.
IO_WAIT_CLASSES = ("User I/O", "System I/O", "Commit")

#: How many top I/O events the summary lists.
TOP_IO_EVENTS = 5

#: The summary's latencies: key -> the key event whose average it is.
SUMMARY_LATENCIES = {"read_lat_ms": "db file sequential read", "redo_write_lat_ms": "log file parallel write",
                  "dbwr_write_lat_ms": "db file parallel write", "commit_lat_ms": "log file sync"}


def sizing_summary(report: Mapping[str, Any]) -> dict[str, Any]:
    """The sizing summary of a parsed AWR or Statspack report (:func:`flashpoc.oracle.awr.parse_awr`).

    Returns:
        ``db_name``, ``version``, ``scope``, ``begin_snap``, ``end_snap``, ``elapsed_s``,
        ``iops``, ``read_iops``, ``write_iops``, ``bw_mibps``, ``read_mibps``, ``write_mibps``,
        ``read_lat_ms``, ``redo_write_lat_ms``, ``dbwr_write_lat_ms``, ``commit_lat_ms`` (``log
        file sync``), ``latency_whole_ms`` (those of these latencies that are the report's whole
        milliseconds, as Statspack prints them: their 0 is under 0.5 ms), ``read_under_1ms_pct`` (the
        share of ``db file sequential read`` waits under 1 ms of the report's histogram, ``None``
        without), ``db_cpu_pct_of_db_time``, ``db_cpu_s_per_s``, ``buffer_hit_pct``, ``db_cpu_note``
        (where the report's DB CPU exceeds its DB time, else ``None``),
        ``top_io_events`` (at most :data:`TOP_IO_EVENTS` rows ``event``, ``wait_class``,
        ``waits``, ``avg_wait_ms``, ``pct_db_time`` of the report's Top events in
        :data:`IO_WAIT_CLASSES`, by DB time; a Statspack report's Top 5 gives
        ``pct_total_call_time`` instead, and ranks by it), ``latency_note`` (a read latency the report
        prints in whole milliseconds, 0 or more, as Statspack and 11.2's AWR do: no ``slo_ms`` then;
        else ``None``) and
        ``target`` (``slo_ms``, ``iops_levels``; a value the report lacks is ``None``).

    Raises:
        ParseError: the report has no I/O rates (:func:`flashpoc.oracle.awr_metrics.point_metrics`).
    """
    m = point_metrics(report)

    def ms(key: str) -> float | None:
        value = m.get(key)
        return None if value is None else tidy(value / 1000.0)

    latencies = {key: ms(f"{event_key(event)}_avg_wait_us") for key, event in SUMMARY_LATENCIES.items()}
    read_ms = latencies["read_lat_ms"]
    whole = set(report.get("key_events_whole_ms") or ())
    note = None
    if SUMMARY_LATENCIES["read_lat_ms"] in whole and read_ms is not None:  # printed whole ms: Statspack, 11.2 AWR
        printed = "under 0.5 ms" if read_ms == 0 else f"between {read_ms - 0.5:g} and {read_ms + 0.5:g} ms"
        note = (f"{'Statspack' if report.get('format') == 'statspack' else 'The report'} prints average waits in "
                f"whole milliseconds: a read latency of {read_ms:g} ms is {printed}, too coarse for a latency target "
                f"(set slo_ms yourself)")
    events = [e for e in report.get("top_events") or () if e.get("wait_class") in IO_WAIT_CLASSES]
    events.sort(key=lambda e: -(e.get("pct_db_time") or e.get("pct_total_call_time") or 0.0))
    top = [_top_event(e) for e in events[:TOP_IO_EVENTS]]
    keys = ("db_name", "version", "scope", "begin_snap", "end_snap", "elapsed_s", "iops", "read_iops", "write_iops",
            "bw_mibps", "read_mibps", "write_mibps")
    return {
        **{k: m.get(k) for k in keys},
        **latencies,
        "latency_whole_ms": [key for key, event in SUMMARY_LATENCIES.items() if event in whole],
        "read_under_1ms_pct": m.get("db_file_sequential_read_under_1ms_pct"),
        "db_cpu_pct_of_db_time": m.get("db_cpu_pct_of_db_time"),
        "db_cpu_s_per_s": m.get("db_cpu_s_per_s"),
        "buffer_hit_pct": m.get("buffer_hit_pct"),
        "db_cpu_note": _db_cpu_note(m),
        "top_io_events": top,
        "latency_note": note,
        "target": {"slo_ms": None if read_ms is None or note else max(read_ms, 0.001),
                   "iops_levels": None if m.get("iops") is None else [round(m["iops"])]},
    }


def _top_event(e: Mapping[str, Any]) -> dict[str, Any]:
    """A row of the summary's top I/O events from a report's Top events row."""
    return {"event": e["event"], "wait_class": e.get("wait_class"), "waits": e.get("waits"),
            "avg_wait_ms": None if e.get("avg_wait_us") is None else tidy(e["avg_wait_us"] / 1000.0),
            "pct_db_time": e.get("pct_db_time"),
            **({"pct_total_call_time": e["pct_total_call_time"]} if "pct_total_call_time" in e else {})}


def _db_cpu_note(m: Mapping[str, Any]) -> str | None:
    """A note where the report's own DB CPU exceeds its DB time (a share over 100 %: its counters do
    not hold together, as an 11.2 Time Model over a day can print), else ``None``."""
    share, cpu, db_time, elapsed = (m.get(k) for k in ("db_cpu_pct_of_db_time", "db_cpu_s_per_s", "db_time_s_per_s",
                                                        "elapsed_s"))
    if share is None or share <= 100.0:
        return None
    seconds = f" ({cpu * elapsed:,.1f} s against {db_time * elapsed:,.1f} s)" if cpu and db_time and elapsed else ""
    return (f"the report's own DB CPU exceeds its DB time{seconds}: its DB CPU share of {share:.1f} % cannot be read "
            f"as \"storage is not the limit\"")


#: The summary's measures as a table shows them: (key, label).
SUMMARY_ROWS: tuple[tuple[str, str], ...] = (
    ("db_name", "Database"), ("version", "Version"), ("scope", "Scope"), ("elapsed_s", "Elapsed (s)"),
    ("iops", "IOPS (read + write requests/s)"), ("read_iops", "Read IOPS"), ("write_iops", "Write IOPS"),
    ("bw_mibps", "MiB/s (read + write)"), ("read_mibps", "Read MiB/s"), ("write_mibps", "Write MiB/s"),
    ("read_lat_ms", "Read latency, db file sequential read (ms)"), ("read_under_1ms_pct", "Read waits under 1 ms (%)"),
    ("redo_write_lat_ms", "Redo write, log file parallel write (ms)"),
    ("dbwr_write_lat_ms", "DBWR write, db file parallel write (ms)"), ("commit_lat_ms", "Commit, log file sync (ms)"),
    ("db_cpu_pct_of_db_time", "DB CPU (% of DB time)"), ("buffer_hit_pct", "Buffer hit (%)"),
)


#: How a table shows a whole-millisecond latency of 0 (``latency_whole_ms``): an average under 0.5 ms.
UNDER_HALF_MS = "< 0.5"


def whole_ms_text(value_ms: float) -> str:
    """How a table shows an average printed in whole milliseconds (Statspack's), with its precision:
    0 as :data:`UNDER_HALF_MS`, another as printed, named (``1 (whole ms)``: 0.5 to 1.5 ms)."""
    return UNDER_HALF_MS if value_ms == 0 else f"{value_ms:,g} (whole ms)"


def summary_rows(summary: Mapping[str, Any], *, text: bool = False) -> list[dict[str, Any]]:
    """The summary as (measure, value) rows, the target last (what ``parse awr --summary`` prints);
    ``Read waits under 1 ms (%)`` only where the report's histogram gives it. With ``text`` (a table
    for people, not csv) a whole-millisecond latency shows with its precision (:func:`whole_ms_text`)."""
    whole = set(summary.get("latency_whole_ms") or ())

    def shown(key: str) -> Any:
        value = summary.get(key)
        if text and key in whole and value is not None:
            return whole_ms_text(value)
        if text and "_pct" in key and isinstance(value, (int, float)) and float(value).is_integer():
            return f"{value:.1f}"  # a whole share as the reports print it (100.0, not 100)
        return value

    rows = [{"measure": label, "value": shown(key)}
            for key, label in SUMMARY_ROWS if key != "read_under_1ms_pct" or summary.get(key) is not None]
    target = summary.get("target") or {}
    slo_ms = target.get("slo_ms")
    rows.append({"measure": "Target: slo_ms",
                 "value": "none (see the note)" if text and slo_ms is None and summary.get("latency_note") else slo_ms})
    levels = target.get("iops_levels")
    rows.append({"measure": "Target: report.iops_levels", "value": None if levels is None else levels[0]})
    return rows

"""The key wait events: their average waits, and the event whose latency a point reports."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flashpoc.core.numbers import tidy
from flashpoc.oracle.metrics import event_key
from flashpoc.oracle.awr_metrics.histograms import HISTOGRAM_EVENTS, histogram_shares


KEY_EVENTS: tuple[str, ...] = (
    "db file sequential read",
    "log file parallel write",
    "db file parallel write",
    "log file sync",
    "db file scattered read",
    "direct path read",
)
"""Wait events whose average wait is reported as ``<event>_avg_wait_us``."""


LATENCY_EVENTS: tuple[str, ...] = ("db file sequential read", "direct path read")
"""Candidates for ``latency_event`` (single-block random reads, else scan reads)."""




# --------------------------------------------------------------------------- events


def latency_event(key_events: Mapping[str, float], key_event_waits: Mapping[str, int] | None = None) -> str | None:
    """The event whose average wait is the point's read latency.

    Args:
        key_events: ``{event: average wait in us}`` (``parse_awr(...)["key_events"]``).
        key_event_waits: ``{event: waits}`` of the same rows, or ``None`` when unknown.

    Returns:
        ``"db file sequential read"`` unless ``"direct path read"`` has more waits (or is the
        only one of the two with an average); ``None`` when neither has an average.
    """
    present = [e for e in LATENCY_EVENTS if key_events.get(e) is not None]
    if not present:
        return None
    if len(present) == 1:
        return present[0]
    waits = key_event_waits or {}
    seq, scan = LATENCY_EVENTS
    if waits.get(scan) is not None and waits.get(scan, 0) > (waits.get(seq) or 0):
        return scan
    return seq


def _event_metrics(report: Mapping[str, Any]) -> dict[str, Any]:
    key_events = report.get("key_events") or {}
    out: dict[str, Any] = {}
    for event in KEY_EVENTS:
        out[f"{event_key(event)}_avg_wait_us"] = key_events.get(event)
    chosen = latency_event(key_events, report.get("key_event_waits"))
    out["latency_event"] = chosen
    out["lat_mean_ms"] = None if chosen is None else tidy(key_events[chosen] / 1000.0)
    rows = report.get("event_histograms") or ()
    waits = report.get("key_event_waits") or {}
    foreground_read = any(name.startswith("Foreground Wait Events")
                          for name in (report.get("sections") or {}).get("read", ()))
    # a histogram section lost (damaged) is not replaced by another's coarser cells: another figure
    histogram_lost = any(d.get("section", "").startswith("Wait Event Histogram")
                         for d in (report.get("sections") or {}).get("not_understood", ()))
    for event in HISTOGRAM_EVENTS:
        shares = histogram_shares(rows, event)
        if histogram_lost or (foreground_read and (event not in key_events or waits.get(event) == 0)):
            shares = dict.fromkeys(shares)  # no foreground wait: the histogram is other sessions' waits
        out.update({f"{event_key(event)}_under_{suffix}_pct": share for suffix, share in shares.items()})
    return out


def whole_ms_latencies(metrics: Mapping[str, Any], report: Mapping[str, Any],
                       exact: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """What a point keeps of the latencies of ``metrics`` (:func:`flashpoc.oracle.awr_metrics.point_metrics`
    of ``report``) that are printed in whole milliseconds (its ``key_events_whole_ms``: a Statspack report's,
    an 11.2 AWR report's ``Avg wait (ms)``:
    a 0 is under 0.5 ms, a 1 anywhere from 0.5 to 1.5 ms): not those figures, a precision they lack.

    Args:
        metrics: the point's metrics from the report.
        report: the parsed report.
        exact: the same interval's metrics from the snapshot rows (STATS$ or DBA_HIST, in microseconds:
            :func:`flashpoc.engines.slob.measure.metrics_from_sql`), or ``None``.

    Returns:
        The updates of ``metrics``: each such ``<event>_avg_wait_us``, and ``lat_mean_ms`` where the
        point's ``latency_event`` is one of them, the exact figure of ``exact`` where it has one, else
        ``None``; ``latency_note`` saying what was printed and what the point keeps. ``{}`` for a
        report without whole-millisecond averages.
    """
    whole = [e for e in report.get("key_events_whole_ms") or ()
             if metrics.get(f"{event_key(e)}_avg_wait_us") is not None]
    if not whole:
        return {}
    exact = exact or {}
    out: dict[str, Any] = {}
    for event in whole:
        out[f"{event_key(event)}_avg_wait_us"] = exact.get(f"{event_key(event)}_avg_wait_us")
    if metrics.get("latency_event") in whole:
        same = exact.get("latency_event") == metrics["latency_event"]
        out["lat_mean_ms"] = exact.get("lat_mean_ms") if same else None
    printed = ", ".join(f"{e} {metrics[f'{event_key(e)}_avg_wait_us'] / 1000.0:g} ms" for e in whole)
    taken = [e for e in whole if out[f"{event_key(e)}_avg_wait_us"] is not None]
    missing = [e for e in whole if e not in taken]
    kept = [f"the snapshot rows' exact averages ({exact.get('scope')}, the sql_* columns) stand for "
            + ("them" if not missing else ", ".join(taken))] if taken else []
    kept += [f"none is stored for {'them' if not taken else ', '.join(missing)}"] if missing else []
    kind = "Statspack" if report.get("format") == "statspack" else "AWR"  # 11.2's AWR prints whole ms too
    out["latency_note"] = (f"the {kind} report prints average waits in whole milliseconds ({printed}; a 0 is "
                           f"under 0.5 ms, a 1 from 0.5 to 1.5 ms): too coarse for a latency, {'; '.join(kept)}")
    return out

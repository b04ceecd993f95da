"""A HammerDB point's row and time series from a run's files (pure).

The row holds HammerDB's own numbers (:func:`.parse.parse_files`, cross-checked): NOPM, the
database's TPM, the active virtual users, and per transaction (NEWORD, PAYMENT, DELIVERY, SLEV,
OSTAT) its calls and response times in milliseconds as the time profile printed them
(``neword_p95_ms``...), the mean completion time of a transaction of any kind (``txn_mean_ms``,
:func:`completion_ms`), and the error lines HammerDB printed (``errors`` and per transaction
``neword_errors``..., :mod:`.lines`).

The time series is the transaction counter's (``<N> <db> tpm`` every refresh): one interval per
sample, ``second`` since the counter's first sample. ``counted`` says whether the sample falls in
the timed test, between the timed driver's ``Rampup complete, Taking start ...`` and ``Test
complete, Taking end ...`` lines as the virtual-user log timestamps them (:mod:`.window`); the
counter's first sample is never counted: HammerDB prints 0 for it, having no earlier count to take
it from (``src/postgresql/pgotc.tcl``). The steady-state verdict
(:func:`flashpoc.analysis.interval_steadiness`) is that of the counted samples' TPM. Without
timestamps the window is unknown: no sample is counted and there is no verdict.

The load host's CPU (``host_cpu_busy_pct``...) is that of the timed test too (:mod:`.window`).
A damaged file loses the numbers it gives, named in the row's ``damaged`` column
(:mod:`flashpoc.core.damage`). On Oracle the row also holds the AWR snapshot pair HammerDB printed and,
when its rows were read (``awr_rows.json``), AWR's metrics between them (:mod:`.awr`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flashpoc.analysis import interval_steadiness
from flashpoc.core.damage import Loss, note_losses
from flashpoc.engines.hammerdb.awr import awr_columns, snapshot_pair
from flashpoc.engines.hammerdb.parse import TRANSACTIONS, HammerdbResult, parse_files, read_files
from flashpoc.engines.hammerdb.window import CPU_COLUMNS, host_cpu, parse_time, read_host_cpu, read_window, timed_window

__all__ = ["CPU_COLUMNS", "ERROR_COLUMNS", "INTERVAL_COLUMNS", "ROW_FIELDS", "completion_ms", "host_cpu",
           "intervals", "parse_time", "point_metrics", "read_run", "run_metrics", "timed_window"]

#: the transaction fields a row carries, as ``<transaction>_<field>`` (milliseconds but calls)
ROW_FIELDS = ("calls", "min_ms", "avg_ms", "p50_ms", "p95_ms", "p99_ms", "max_ms", "sd_ms")
#: columns of a HammerDB point's ``intervals.csv``
INTERVAL_COLUMNS = ("point_id", "second", "time", "tpm", "counted")
#: the row's columns a result field costs when a damaged file lost it (:attr:`.parse.HammerdbResult.damaged`)
LOST_WITH = {"tcount": ("intervals", "interval_tpm_cv_pct", "interval_tpm_drift_pct", "interval_steady"),
             "transactions": ("txn_mean_ms",)}
#: the row's error counts: every transaction's and their sum
ERROR_COLUMNS = ("errors", *(f"{name.lower()}_errors" for name in TRANSACTIONS))


def intervals(result: HammerdbResult, window: tuple[datetime, datetime] | None, point_id: str = ""
              ) -> list[dict[str, Any]]:
    """The transaction counter's samples as interval rows (:data:`INTERVAL_COLUMNS`)."""
    times = [parse_time(t) if t else None for t, _ in result.tcount]
    first = next((t for t in times if t is not None), None)
    rows = []
    for (text, tpm), when in zip(result.tcount, times):
        second = None if when is None or first is None else (when - first).total_seconds()
        counted = bool(window and when and window[0] < when <= window[1]) and not (not rows and tpm == 0)
        rows.append({"point_id": point_id, "second": second, "time": text or None, "tpm": tpm, "counted": counted})
    return rows


def completion_ms(result: HammerdbResult) -> float | None:
    """A transaction's mean completion time (ms) over every transaction of the time profile: the
    sum of their TOTAL times over the sum of their CALLS (each one weighted by its calls), to
    HammerDB's 0.001 ms; None without a time profile."""
    calls = sum(t.calls for t in result.transactions)
    return sum(t.total_ms for t in result.transactions) / calls if calls else None


def point_metrics(result: HammerdbResult, files: dict[str, str]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A point's metrics (the row's columns HammerDB gives, the window's and the load host's CPU
    from ``files``, each loss of a damaged file named in ``damaged``) and its interval rows."""
    window, window_loss = read_window(files)
    metrics: dict[str, Any] = {"nopm": result.nopm, "tpm": result.tpm, "virtual_users": result.virtual_users,
                               "database": result.database, "jobid": result.jobid}
    for t in result.transactions:
        metrics.update({f"{t.name.lower()}_{f}": getattr(t, f) for f in ROW_FIELDS})
    metrics["txn_mean_ms"] = completion_ms(result)
    metrics.update(error_columns(result))
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
    })
    cpu, cpu_loss = read_host_cpu(files, window)
    metrics.update(cpu)
    pair = snapshot_pair(result.snapshots)  # Oracle: the AWR snapshots HammerDB took, and AWR's metrics
    metrics.update(pair)
    metrics.update(awr_columns(files, pair))
    note_losses(metrics, [loss for loss in (window_loss, cpu_loss) if loss] + [
        Loss(loss.file, loss.what, tuple(c for field in loss.lost for c in LOST_WITH[field])) for loss in result.damaged])
    return metrics, series


def error_columns(result: HammerdbResult) -> dict[str, int | None]:
    """The row's :data:`ERROR_COLUMNS`: each transaction's error lines and their sum (None when no
    source printed the virtual users' lines)."""
    if result.errors is None:
        return dict.fromkeys(ERROR_COLUMNS)
    counts = dict(result.errors)
    return {"errors": sum(counts.values()), **{f"{name.lower()}_errors": counts.get(name, 0) for name in TRANSACTIONS}}


def run_metrics(files: dict[str, str], jobid: str | None = None
                ) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
    """A run's files (name -> text): the whole parse (JSON-ready), the point's metrics and its intervals.

    Raises:
        ParseError: as :func:`.parse.parse_files`.
    """
    result = parse_files(files, jobid)
    metrics, series = point_metrics(result, files)
    return result.to_dict() | {"metrics": metrics, "intervals": series}, metrics, series


def read_run(path, jobid: str | None = None) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
    """A run's file or directory: :func:`run_metrics` of its files (:func:`.parse.read_files`).

    Raises:
        ParseError: as :func:`.parse.parse_files`.
    """
    return run_metrics(read_files(path), jobid)

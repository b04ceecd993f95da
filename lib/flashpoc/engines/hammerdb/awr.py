"""HammerDB on Oracle: the AWR snapshot pair its timed driver takes and prints, and the AWR
metrics between them in the point's row, as SLOB's points have them.

The timed driver takes an AWR snapshot after the rampup and another after the test, and prints
``Start Snapshot S taken at ... of instance I (n) of database D (dbid)`` and the same for ``End``
(:mod:`.parse` reads them). :func:`snapshot_pair` (pure) checks the pair and gives its columns;
:func:`read_awr_rows` reads that instance's DBA_HIST rows between the two snapshots through
python-oracledb (the campaign's ``oracle:`` block: dsn, user, password variable), stored with
the point as ``awr_rows.json``; :func:`awr_columns` (pure) turns the stored rows into the row's
metrics with :func:`flashpoc.oracle.metrics.compute_awr_metrics`: read and write IOPS and MiB/s,
the average waits of ``db file sequential read``, ``log file parallel write``, ``db file parallel
write`` and ``log file sync`` (us), DB CPU (s/s), and the database host's CPU (``db_host_cpu_*``,
apart from the load host's ``host_cpu_*``). On RAC the rows are those of the instance HammerDB's
monitor connected to (HammerDB's TPM sums every instance).

A point whose AWR rows cannot be read keeps HammerDB's numbers: ``awr_note`` says why.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from flashpoc.core.errors import AnalysisError, ParseError, RemoteError
from flashpoc.oracle.metrics import compute_awr_metrics
from flashpoc.oracle.snapshots import snapshot_rows_json
from flashpoc.engines.hammerdb.parse import Snapshot

#: the stored rows of a point's AWR interval
ROWS_FILE = "awr_rows.json"


def snapshot_pair(snapshots: Sequence[Snapshot]) -> dict[str, Any]:
    """The row's columns of the AWR snapshot pair HammerDB printed (``awr_begin_snap``,
    ``awr_end_snap``, ``awr_dbid``, ``awr_instance``, ``awr_instance_number``, ``awr_begin_time``,
    ``awr_end_time``); empty without snapshot lines (PostgreSQL).

    Raises:
        ParseError: not one Start and one End line, of one instance, the end after the start.
    """
    if not snapshots:
        return {}
    by = {s.which: s for s in snapshots}
    if len(snapshots) != 2 or set(by) != {"Start", "End"}:
        raise ParseError(f"the run printed {len(snapshots)} AWR snapshot lines "
                         f"({', '.join(s.which for s in snapshots)}), not one Start and one End")
    start, end = by["Start"], by["End"]
    if (start.dbid, start.instance_number) != (end.dbid, end.instance_number) or end.snap_id <= start.snap_id:
        raise ParseError(f"the AWR snapshots do not make a pair: Start {start.snap_id} of {start.instance} "
                         f"({start.dbid}), End {end.snap_id} of {end.instance} ({end.dbid})")
    return {"awr_begin_snap": start.snap_id, "awr_end_snap": end.snap_id, "awr_dbid": start.dbid,
            "awr_instance": start.instance, "awr_instance_number": start.instance_number,
            "awr_begin_time": start.taken_at, "awr_end_time": end.taken_at}


def read_awr_rows(oracle_params, pair: dict[str, Any], *, connect=None) -> tuple[dict[str, str], str | None]:
    """The AWR rows of ``pair``'s instance between its snapshots, as the point's raw file
    (``{ROWS_FILE: json}``), or no file and a note saying why (no ``oracle:`` block, or the
    database did not answer): the point is kept with HammerDB's numbers either way."""
    if not pair:
        return {}, None
    if oracle_params is None:
        return {}, ("no AWR metrics: the campaign has no oracle block (dsn, user) to read AWR's rows of "
                    f"snapshots {pair['awr_begin_snap']}-{pair['awr_end_snap']} through SQL")
    from flashpoc.oracle import db as oracle

    try:
        with (connect or oracle.connect)(oracle.OracleSettings.of(oracle_params)) as conn:
            rows = oracle.awr_rows(conn, pair["awr_dbid"], pair["awr_begin_snap"], pair["awr_end_snap"],
                                   pair["awr_instance_number"])
    except RemoteError as error:
        return {}, f"no AWR metrics: {error}"
    return {ROWS_FILE: snapshot_rows_json(rows)}, None


def _times(rows: dict[str, list[dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    """The stored rows with the snapshots' times as datetimes again (JSON keeps them as text)."""
    snapshots = [{k: datetime.fromisoformat(v) if k.endswith("_time") and isinstance(v, str) else v
                  for k, v in row.items()} for row in rows.get("snapshot", [])]
    return {**rows, "snapshot": snapshots}


def awr_columns(files: dict[str, str], pair: dict[str, Any]) -> dict[str, Any]:
    """The row's AWR metrics from the stored rows (``files[ROWS_FILE]``) between ``pair``'s
    snapshots; empty without them.

    Raises:
        ParseError: the rows are not JSON, or do not give the interval whole (a snapshot
            missing, an instance restart).
    """
    if not pair or ROWS_FILE not in files:
        return {}
    try:
        rows = _times(json.loads(files[ROWS_FILE]))
        metrics = compute_awr_metrics(rows, pair["awr_begin_snap"], pair["awr_end_snap"])
    except (ValueError, AttributeError) as error:
        raise ParseError(f"{ROWS_FILE}: not the AWR rows of a snapshot pair ({error})") from None
    except AnalysisError as error:
        raise ParseError(f"{ROWS_FILE}: {error}") from None
    return interval_columns(metrics)


def interval_columns(metrics: dict[str, Any]) -> dict[str, Any]:
    """The row's columns of :func:`flashpoc.oracle.metrics.compute_awr_metrics`' metrics: the
    database host's CPU as ``db_host_cpu_*`` (apart from the load host's), the snapshot interval
    as ``awr_elapsed_s``."""
    out = {("db_" + k if k.startswith("host_cpu_") else k): v for k, v in metrics.items()
           if k not in ("begin_snap", "end_snap", "elapsed_s", "snapshots")}
    out["awr_elapsed_s"] = metrics["elapsed_s"]  # the snapshot interval, not the timed test
    return out

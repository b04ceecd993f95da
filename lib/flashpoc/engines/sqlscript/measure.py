"""A DBA's own job as a workload: N sessions running one SQL*Plus script, timed, with AWR around it.

The seed case: 20 sessions each running the same insert script took 19 min 47 s, and 8 min
14 s after UNDO moved to flash. :func:`run_sql_workload` runs ``sql_workload.script`` in
``sql_workload.sessions`` concurrent sessions through python-oracledb, between two AWR
snapshots (Statspack when the Diagnostics Pack is off), stores the run under
``results/<campaign>/sql/`` with its label, and returns one row: the elapsed time, each
session's time, and the storage metrics of the snapshot interval (IOPS, MB/s, DB CPU, key
wait events' latencies, read latency histogram, host CPU) read through the DBA_HIST views
(the STATS$ tables with Statspack).
:func:`sql_runs_table` lines the stored runs up (e.g. ``undo-on-hdd`` vs ``undo-on-ssd``).

The script is read and split before anything connects: an unsupported SQL*Plus command
is a :class:`~flashpoc.errors.ParameterError` naming its line.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pandas as pd

from ...errors import ParameterError, RemoteError
from ...oracle_metrics import compute_awr_metrics
from ...params import Campaign, resolve_path
from .plan import script_summary, split_sql_script
from .profile import load_profile
from ...store import CampaignStore

PHASE = "sql"
TABLE_COLUMNS = ["label", "sessions", "elapsed_s", "session_elapsed_max_s", "statements_per_session",
                 "read_iops", "write_iops", "write_mibps", "db_cpu_s_per_s", "log_file_parallel_write_avg_wait_us",
                 "db_file_sequential_read_avg_wait_us", "db_file_parallel_write_avg_wait_us",
                 "host_cpu_iowait_pct", "snapshots", "completed_utc"]


def read_script(cfg: Campaign) -> tuple[str, list[Any]]:
    """The script text and its statements.

    Raises:
        ParameterError: no sql_workload, the file cannot be read, or the script has a
            command flashpoc does not run (naming the line).
    """
    if cfg.sql_workload is None:
        raise ParameterError("sql_workload: not set (script, sessions, label)")
    path = resolve_path(cfg.sql_workload.script)
    try:
        text = path.read_text()
    except OSError as error:
        raise ParameterError(f"sql_workload.script: cannot read {path}: {error.strerror}") from None
    return text, split_sql_script(text, source=str(path))


def run_definition(cfg: Campaign, text: str) -> dict[str, Any]:
    """What defines a SQL run (its hash names it on disk): label, sessions, script, database."""
    w = cfg.sql_workload
    return {"label": w.label, "sessions": w.sessions, "script_sha256": hashlib.sha256(text.encode()).hexdigest(),
            "dsn": cfg.oracle.dsn, "user": cfg.oracle.user}


def snapshot_rows_json(rows: dict[str, list[dict[str, Any]]]) -> str:
    """The rows of :func:`flashpoc.run.oracle.awr_rows` (or ``statspack_rows``) as JSON text
    (timestamps in ISO 8601)."""
    return json.dumps({table: [{k: v.isoformat() if isinstance(v, datetime) else v for k, v in row.items()}
                               for row in items] for table, items in rows.items()}, indent=1)


@dataclass(frozen=True)
class SnapshotInterval:
    """What :func:`between_snapshots` ran and read.

    Attributes:
        result: what the work returned.
        facts: :func:`flashpoc.run.oracle.database_facts` of the connected instance.
        begin_snap: the snapshot before the work.
        end_snap: the snapshot after it.
        rows: the instance's rows between them: DBA_HIST (:func:`flashpoc.run.oracle.awr_rows`)
            or, without the Diagnostics Pack, STATS$ (:func:`flashpoc.run.oracle.statspack_rows`).
        method: ``"awr"`` or ``"statspack"``.
    """

    result: Any
    facts: dict[str, Any]
    begin_snap: int
    end_snap: int
    rows: dict[str, list[dict[str, Any]]]
    method: str

    @property
    def rows_file(self) -> str:
        """Name of the rows' JSON file in the stored point: awr_rows.json or statspack_rows.json."""
        return f"{self.method}_rows.json"

    def metrics(self) -> dict[str, Any]:
        """:func:`flashpoc.oracle_metrics.compute_awr_metrics` of the interval, plus ``snapshots`` (the method)."""
        return {**compute_awr_metrics(self.rows, self.begin_snap, self.end_snap), "snapshots": self.method}


def between_snapshots(settings, work: Callable[[], Any], *, connect=None,
                      check: Callable[[Any, int, int], None] | None = None) -> SnapshotInterval:
    """Call ``work()`` between two snapshots of the database ``settings`` names, then read the
    rows of the connected instance between them.

    AWR snapshots and DBA_HIST rows with the Diagnostics Pack, Statspack snapshots and STATS$
    rows without it.

    Args:
        settings: :class:`flashpoc.run.oracle.OracleSettings`.
        work: the workload; its result is returned in the interval.
        connect: the connection context manager (default :func:`flashpoc.run.oracle.connect`).
        check: called with (result, begin snap, end snap) after the end snapshot and before
            the rows are read; it raises to stop there.

    Raises:
        RemoteError: the database cannot be reached (before ``work`` runs) or a query failed.
    """
    from ...run import oracle

    with (connect or oracle.connect)(settings) as conn:
        facts = oracle.database_facts(conn)
        use_awr = bool(facts.get("diagnostics_pack"))
        snapshot = oracle.create_snapshot if use_awr else oracle.statspack_snapshot
        begin = snapshot(conn)
        result = work()
        end = snapshot(conn)
        if check is not None:
            check(result, begin, end)
        read_rows = oracle.awr_rows if use_awr else oracle.statspack_rows
        rows = read_rows(conn, facts["dbid"], begin, end, facts["instance_number"])
    return SnapshotInterval(result, facts, begin, end, rows, "awr" if use_awr else "statspack")


def run_sql_workload(cfg: Campaign, *, connect=None) -> dict[str, Any]:
    """Run the campaign's ``sql_workload`` (or reuse the stored run of the same definition).

    Args:
        cfg: a campaign with ``oracle`` and ``sql_workload``.
        connect: the connection context manager (default :func:`flashpoc.run.oracle.connect`;
            tests pass a replay double).

    Returns:
        The stored row: label, sessions, elapsed_s (the whole run), session_elapsed_min_s /
        _max_s, statements_per_session, begin_snap, end_snap, snapshots ('awr' or
        'statspack'), the metrics of :func:`flashpoc.oracle_metrics.compute_awr_metrics` and the
        Load Profile of :func:`.profile.load_profile` (per second and per transaction).

    Raises:
        ParameterError: before any connection, for a missing or unsupported script.
        RemoteError: the database cannot be reached, or a session failed (its script line and
            Oracle's message); a failed run is not stored.
    """
    from ...run import oracle

    cfg = cfg.resolved()
    text, statements = read_script(cfg)
    definition = run_definition(cfg, text)
    digest = hashlib.sha256(json.dumps(definition, sort_keys=True).encode()).hexdigest()[:10]
    run_id = f"{cfg.sql_workload.label}_s{cfg.sql_workload.sessions:04d}_{digest}"
    store = CampaignStore(cfg.results_path())
    stored = store.reuse_point(PHASE, run_id)
    if stored is not None:
        return stored
    connect = connect or oracle.connect
    settings = cfg.oracle.settings()

    def failed_sessions(result, begin: int, end: int) -> None:
        errors = [s.error for s in result[1] if s.error]
        if errors:
            raise RemoteError(f"sql_workload {cfg.sql_workload.label}: {len(errors)} of {len(result[1])} "
                              f"session(s) failed (snapshots {begin}-{end}): " + "; ".join(errors[:3]))

    interval = between_snapshots(
        settings, lambda: oracle.run_sessions(settings, statements, cfg.sql_workload.sessions, connect=connect),
        connect=connect, check=failed_sessions)
    (elapsed, sessions), facts, begin, end = (interval.result, interval.facts, interval.begin_snap,
                                              interval.end_snap)
    times = [s.elapsed_s for s in sessions]
    row: dict[str, Any] = {
        "campaign": cfg.campaign, "phase": PHASE, "run_id": run_id, "label": cfg.sql_workload.label,
        "description": cfg.sql_workload.description, "sessions": len(sessions),
        "statements_per_session": len(statements), "elapsed_s": round(elapsed, 3),
        "session_elapsed_min_s": round(min(times), 3), "session_elapsed_max_s": round(max(times), 3),
        "script": script_summary(statements), "db_name": facts.get("db_name"), "version": facts.get("version"),
        "instance_number": facts.get("instance_number"), "rac": facts.get("rac"),
        "begin_snap": begin, "end_snap": end,
        "completed_utc": datetime.now().astimezone().isoformat(timespec="seconds"),
    }
    raw = {"script.sql": text, "sessions.json": json.dumps([s.__dict__ for s in sessions], indent=1)}
    metrics = interval.metrics()
    metrics["awr_elapsed_s"] = metrics.pop("elapsed_s", None)  # the snapshot interval, not the run
    row.update(metrics)
    row.update(load_profile(interval.rows, begin, end))
    raw[interval.rows_file] = snapshot_rows_json(interval.rows)
    store.save_point(PHASE, run_id, row, raw)
    row["reused"] = False
    return row


def sql_runs_table(cfg: Campaign) -> pd.DataFrame:
    """Every stored SQL run of the campaign, oldest first, with the key columns (s, IOPS, us, %)."""
    frame = CampaignStore(cfg.resolved().results_path()).load_points(PHASE)
    if frame.empty:
        return frame
    return frame[[c for c in TABLE_COLUMNS if c in frame]].reset_index(drop=True)


def sql_run_text(row: dict[str, Any]) -> str:
    """A Markdown sentence with the run's elapsed time and its storage numbers."""
    minutes, seconds = divmod(row["elapsed_s"], 60)
    text = (f"**{row['label']}**: {row['sessions']} sessions x {row['statements_per_session']} statements took "
            f"{int(minutes)} min {seconds:.1f} s (sessions {row['session_elapsed_min_s']:.1f}-"
            f"{row['session_elapsed_max_s']:.1f} s).")
    method = "Statspack" if row.get("snapshots") == "statspack" else "AWR"
    text += f" {method} snapshots {row['begin_snap']}-{row['end_snap']}"
    if row.get("read_iops") is not None:
        text += (f": {row['read_iops']:,.1f} read and {row['write_iops']:,.1f} write IO requests/s")
        lfpw = row.get("log_file_parallel_write_avg_wait_us")
        if lfpw is not None:
            text += f", log file parallel write {lfpw / 1000:.2f} ms"
    return text + "."

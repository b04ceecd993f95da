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

A run is a point of the one measure loop (:func:`flashpoc.campaign.loop.measure`): phase ``sql``, the
label as its workload (:class:`SqlJob`), the sessions as its threads; the loop owns its id
(:func:`run_id`, the sqlscript engine's ``storage_keys``), its reuse and its atomic save, and the
sqlscript engine runs it (:func:`run_job`) in a campaign of any engine.

The script is read and split before anything connects: an unsupported SQL*Plus command
is a :class:`~flashpoc.core.errors.ParameterError` naming its line.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pandas as pd

from flashpoc.core.errors import ParameterError, ParseError, RemoteError
from flashpoc.oracle.db.settings import OracleSettings
from flashpoc.oracle.metrics import compute_awr_metrics
from flashpoc.params import Campaign, resolve_path
from flashpoc.oracle.reports import AWR_REPORT_CHOICES, AWR_REPORT_FILES, awr_report
from flashpoc.jobs.sqlscript.hostcpu import HostCpu, cpu_series
from flashpoc.oracle.snapshots import between_snapshots, snapshot_rows_json
from flashpoc.jobs.sqlscript.plan import script_summary, split_sql_script
from flashpoc.jobs.sqlscript.profile import buffer_waits, file_io, load_profile
from flashpoc.core.store import CampaignStore

PHASE = "sql"
AWR_REPORT_FILE = AWR_REPORT_FILES["text"]
"""The AWR text report of a run's snapshot pair, stored with the run (as SLOB's runs keep theirs)."""
TABLE_COLUMNS = ["label", "sessions", "elapsed_s", "session_elapsed_max_s", "statements_per_session",
                 "read_iops", "write_iops", "write_mibps", "db_cpu_s_per_s", "log_file_parallel_write_avg_wait_us",
                 "db_file_sequential_read_avg_wait_us", "db_file_parallel_write_avg_wait_us",
                 "host_cpu_user_pct", "host_cpu_iowait_pct", "redo_bytes_per_s", "transactions_per_s", "snapshots",
                 "completed_utc"]


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


@dataclass(frozen=True)
class SqlJob:
    """The workload of a DBA's job as a point's (:class:`flashpoc.core.records.PointSpec`): the script
    run in ``threads`` sessions. ``name`` is the run's label; ``connect`` the connection context
    manager (None: :func:`flashpoc.oracle.db.connect`)."""

    name: str
    text: str
    statements: tuple[Any, ...]
    connect: Callable[..., Any] | None = None


def job_spec(cfg: Campaign, *, connect=None):
    """The point of the campaign's DBA job: phase ``sql``, its label, its sessions as threads.

    Raises:
        ParameterError: before any connection, for a missing or unsupported script.
    """
    from flashpoc.core.records import PointSpec

    text, statements = read_script(cfg)
    job = SqlJob(cfg.sql_workload.label, text, tuple(statements), connect)
    return PointSpec(PHASE, job, cfg.sql_workload.sessions, runtime_s=0)


def run_id(cfg: Campaign, spec) -> str:
    """The id a run is stored under: label, sessions and the hash of :func:`run_definition`
    (``undo-on-hdd_s0020_1a2b3c4d5e``, as runs have always been named)."""
    digest = hashlib.sha256(json.dumps(run_definition(cfg, spec.workload.text), sort_keys=True).encode()).hexdigest()
    return f"{spec.workload.name}_s{spec.threads:04d}_{digest[:10]}"


def run_sql_workload(cfg: Campaign, *, connect=None) -> dict[str, Any]:
    """Run the campaign's ``sql_workload`` (or reuse the stored run of the same definition) through
    the measure loop (:func:`flashpoc.campaign.loop.measure`, with the sqlscript engine whatever the
    campaign's engine): a run is the point of phase ``sql`` at ``sessions`` threads.

    Args:
        cfg: a campaign with ``oracle`` and ``sql_workload``.
        connect: the connection context manager (default :func:`flashpoc.oracle.db.connect`;
            tests pass a replay double).

    Returns:
        The stored row (``reused``: it was stored before): label, sessions, elapsed_s (the whole
        run), session_elapsed_min_s / _max_s, statements_per_session, begin_snap, end_snap,
        snapshots ('awr' or 'statspack'), the metrics of
        :func:`flashpoc.oracle.metrics.compute_awr_metrics` and the Load Profile of
        :func:`.profile.load_profile` (per second and per transaction), ``buffer_waits``
        (:func:`.profile.buffer_waits`: the buffer waits by block class), ``file_io``
        (:func:`.profile.file_io`: I/O and buffer waits per file, hottest first); ``awr_report``: the file
        of the run holding the AWR report of its snapshots (generated through SQL with the
        Diagnostics Pack; ``awr.txt``, or ``awr.html`` with ``awr_report: html``), or None and
        ``awr_report_note`` saying why; ``awr_reports``: every report file of the run.

    Raises:
        ParameterError: before any connection, for a missing or unsupported script.
        RemoteError: the database cannot be reached, or a session failed (its script line and
            Oracle's message); a failed run is not stored.
    """
    from flashpoc.engines import loop
    from flashpoc.hosts.workbench import Workbench

    cfg = cfg.resolved()
    spec = job_spec(cfg, connect=connect)
    wb = Workbench(cfg, CampaignStore(cfg.results_path()))
    (point,) = loop.measure(wb, [spec], engine=cfg.key_engine("sql_workload"))  # the job's engine, whatever the campaign's
    return point.as_row()


def _sessions_json(sessions) -> str:
    return json.dumps([s.__dict__ for s in sessions], indent=1)


def run_job(cfg: Campaign, spec, pid: str) -> tuple[dict[str, Any], dict[str, str | bytes]]:
    """Run the job ``spec`` (:func:`job_spec`) stored as ``pid``: its row and raw files (the loop stores them).

    Raises:
        RemoteError: the database cannot be reached, or a session failed.
    """
    from flashpoc.oracle import db as oracle

    job = spec.workload
    connect = job.connect or oracle.connect
    settings = OracleSettings.of(cfg.oracle)
    statements = list(job.statements)

    def failed_sessions(result, begin: int, end: int) -> None:
        errors = [s.error for s in result[1] if s.error]
        if errors:  # the script and every session's outcome kept (points/failed/)
            raise RemoteError(f"sql_workload {job.name}: {len(errors)} of {len(result[1])} "
                              f"session(s) failed (snapshots {begin}-{end}): " + "; ".join(errors[:3]),
                              files={"script.sql": job.text, "sessions.json": _sessions_json(result[1])})

    cpu = HostCpu(cfg.db_host, cfg.sql_workload.cpu_every_s)

    def sessions_with_vmstat():
        with cpu:
            return oracle.run_sessions(settings, statements, spec.threads, connect=connect)

    interval = between_snapshots(settings, sessions_with_vmstat, connect=connect, check=failed_sessions,
                                 report=cfg.sql_workload.awr_report)
    (elapsed, sessions), facts, begin, end = (interval.result, interval.facts, interval.begin_snap,
                                              interval.end_snap)
    times = [s.elapsed_s for s in sessions]
    row: dict[str, Any] = {
        "campaign": cfg.campaign, "phase": PHASE, "run_id": pid, "label": job.name,
        "description": cfg.sql_workload.description, "sessions": len(sessions),
        "statements_per_session": len(statements), "elapsed_s": elapsed,
        "session_elapsed_min_s": min(times), "session_elapsed_max_s": max(times),
        "script": script_summary(statements), "db_name": facts.get("db_name"), "version": facts.get("version"),
        "instance_number": facts.get("instance_number"), "rac": facts.get("rac"),
        "begin_snap": begin, "end_snap": end,
        "completed_utc": datetime.now().astimezone().isoformat(timespec="seconds"),
    }
    raw: dict[str, str | bytes] = {"script.sql": job.text,
                                   "sessions.json": _sessions_json(sessions)}
    metrics = interval.metrics()
    metrics["awr_elapsed_s"] = metrics.pop("elapsed_s", None)  # the snapshot interval, not the run
    row.update(metrics)
    row.update(load_profile(interval.rows, begin, end, interval.rows_file))
    row["buffer_waits"] = buffer_waits(interval.rows, begin, end)
    row["file_io"] = file_io(interval.rows, begin, end)
    raw[interval.rows_file] = snapshot_rows_json(interval.rows)
    files = {AWR_REPORT_FILES[rendering]: text for rendering, text in interval.reports.items()}
    row["awr_report"] = next(iter(files), None)
    row["awr_reports"] = list(files)
    row["awr_report_note"] = interval.report_note
    raw.update(files)
    row.update(host_cpu_row(cfg.db_host.name, cpu))
    if cpu.text is not None:
        raw["vmstat.out"] = cpu.text
    return row, raw


def host_cpu_row(host: str, cpu: HostCpu) -> dict[str, Any]:
    """A run's columns of the database host's CPU over the job: ``cpu_host``, ``cpu_series``
    (:func:`.hostcpu.cpu_series` of what vmstat printed) and ``cpu_note`` (why there is none)."""
    series: list[dict[str, Any]] = []
    note = cpu.note
    if cpu.text is not None:
        try:
            series = cpu_series(cpu.text)
        except ParseError as error:
            said = next(iter(cpu.text.strip().splitlines()), "(empty)")[:200]
            note = f"vmstat.out of {host} could not be read ({error}); it says: {said}"
        if not series and note is None:
            note = f"vmstat printed no sample on {host} during the job (shorter than sql_workload.cpu_every_s)"
    return {"cpu_host": host, "cpu_series": series, "cpu_note": note}


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

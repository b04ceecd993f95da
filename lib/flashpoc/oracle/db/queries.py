"""The queries: database and storage facts, I/O calibration, AWR or Statspack snapshots and the rows between them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flashpoc.core.errors import ParameterError, RemoteError
from flashpoc.oracle.db.settings import load_sql
from flashpoc.core.lazy import lazy_import

oracledb = lazy_import("oracledb")  # imported when a database is first reached


AWR_TABLES: tuple[str, ...] = (
    "snapshot",
    "sysstat",
    "system_event",
    "event_histogram",
    "osstat",
    "sys_time_model",
    "filestatxs",
    "waitstat",
    "tempstatxs",
)
"""Keys of :func:`awr_rows`' result; each is read by ``sql/awr_<key>.sql`` from ``DBA_HIST_<KEY>``
and, by :func:`statspack_rows`, by ``sql/stats_<key>.sql`` from Statspack's ``STATS$<KEY>``."""


KEY_PARAMETERS: tuple[str, ...] = (
    "sga_target",
    "db_cache_size",
    "db_writer_processes",
    "filesystemio_options",
    "disk_asynch_io",
    "control_management_pack_access",
    "log_buffer",
    "sga_max_size",
    "awr_pdb_autoflush_enabled",
)
"""Instance parameters :func:`database_facts` reports (``sql/facts_parameters.sql``)."""


SLOB_USER_PATTERN = "USER%"
"""``LIKE`` pattern of SLOB's schema names (``USER0`` ... ``USERn``)."""


def _execute(conn: Any, name: str, binds: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """Rows of ``sql/<name>.sql`` as dicts keyed by lower-case column name."""
    sql = load_sql(name)
    try:
        with conn.cursor() as cursor:
            cursor.execute(sql, dict(binds or {}))
            columns = [d[0].lower() for d in cursor.description]
            return [dict(zip(columns, row)) for row in cursor.fetchall()]
    except oracledb.Error as exc:
        raise RemoteError(f"Oracle query sql/{name}.sql failed: {exc}") from None


def _execute_snap(conn: Any, name: str) -> int:
    sql = load_sql(name)
    try:
        with conn.cursor() as cursor:
            snap_id = cursor.var(int)
            cursor.execute(sql, {"snap_id": snap_id})
            return int(snap_id.getvalue())
    except oracledb.Error as exc:
        raise RemoteError(f"Oracle snapshot sql/{name}.sql failed: {exc}") from None


def database_facts(conn: Any, slob_user_pattern: str = SLOB_USER_PATTERN) -> dict[str, Any]:
    """What the database is: version, RAC, CDB, key parameters, Direct NFS, ASM, SLOB schemas.

    Args:
        conn: An open connection (see :func:`connect`).
        slob_user_pattern: ``LIKE`` pattern of the SLOB schema names.

    Returns:
        A JSON-serialisable dict::

            {"version": "19.0.0.0.0", "instance_name": "p30sdb2", "instance_number": 2,
             "host_name": "db2", "instance_count": 2, "rac": True, "dbid": 1451622190,
             "db_name": "P30SDB", "cdb": False, "con_name": "P30SDB",
             "parameters": {"sga_target": "3221225472", ...},   # value as text, None if unset
             "diagnostics_pack": True, "snapshot_method": "awr",  # else "statspack"
             "dnfs_server_count": 0, "dnfs": False,
             "asm_diskgroups": [{"name": "DATA", "state": "MOUNTED", "type": "EXTERN",
                                 "total_mb": 1048576, "free_mb": 524288}],
             "slob_schemas": [{"username": "USER1", "segment_bytes": 8589934592,
                               "segment_count": 3}]}

    Raises:
        RemoteError: A query failed (e.g. missing privilege on a ``v$`` view).
    """
    (instance,) = _execute(conn, "facts_instance")
    parameters = {row["name"]: row["value"] for row in _execute(conn, "facts_parameters")}
    for name in KEY_PARAMETERS:
        parameters.setdefault(name, None)
    (dnfs,) = _execute(conn, "facts_dnfs")
    facts: dict[str, Any] = {
        "version": instance["version"],
        "instance_name": instance["instance_name"],
        "instance_number": int(instance["instance_number"]),
        "host_name": instance["host_name"],
        "instance_count": int(instance["instance_count"]),
        "rac": int(instance["instance_count"]) > 1,
        "dbid": int(instance["dbid"]),
        "db_name": instance["db_name"],
        "cdb": str(instance["cdb"]).upper() == "YES",
        "con_name": instance["con_name"],
        "parameters": parameters,
        "diagnostics_pack": diagnostics_pack_enabled(parameters),
        "dnfs_server_count": int(dnfs["dnfs_server_count"]),
        "dnfs": int(dnfs["dnfs_server_count"]) > 0,
        "asm_diskgroups": _execute(conn, "facts_asm"),
        "slob_schemas": _execute(conn, "facts_slob_schemas", {"user_pattern": slob_user_pattern}),
        **storage_facts(conn),
    }
    facts["snapshot_method"] = "awr" if facts["diagnostics_pack"] else "statspack"
    return facts


def storage_facts(conn: Any) -> dict[str, list[Any]]:
    """How the database reaches its storage: ``dnfs_servers`` (``v$dnfs_servers``: svrname,
    dirname, nfsversion, wtmax, rtmax), ``dnfs_channels`` (``v$dnfs_channels``: svrname, path,
    local, processes), ``asm_disks`` (``v$asm_disk``: diskgroup, name, path, total_mb,
    failgroup, mode_status, state), empty lists without Direct NFS or ASM, and ``datafile_names``
    (``v$datafile`` and ``v$tempfile``: each file's name).

    Raises:
        RemoteError: A query failed.
    """
    return {"dnfs_servers": _execute(conn, "facts_dnfs_servers"),
            "dnfs_channels": _execute(conn, "facts_dnfs_channels"),
            "asm_disks": _execute(conn, "facts_asm_disks"),
            "datafile_names": [row["name"] for row in _execute(conn, "facts_datafiles")]}


def calibrate_io(conn: Any, num_physical_disks: int, max_latency_ms: int) -> dict[str, Any]:
    """Run ``DBMS_RESOURCE_MANAGER.CALIBRATE_IO`` (minutes of read load on the array) and return
    ``{"max_iops", "max_mbps", "latency_ms", "num_physical_disks", "max_latency_ms", "recorded"}``,
    ``recorded`` being the row of ``DBA_RSRC_IO_CALIBRATE`` after the run (None when empty).

    Raises:
        RemoteError: The calibration failed (e.g. ORA-56708: no asynchronous I/O to the data files,
            or another calibration running).
    """
    sql = load_sql("calibrate_io")
    try:
        with conn.cursor() as cursor:
            out = {name: cursor.var(int) for name in ("max_iops", "max_mbps", "actual_latency")}
            cursor.execute(sql, {"num_physical_disks": int(num_physical_disks), "max_latency": int(max_latency_ms),
                                 **out})
            values = {name: var.getvalue() for name, var in out.items()}
    except oracledb.Error as exc:
        raise RemoteError(f"Oracle sql/calibrate_io.sql (DBMS_RESOURCE_MANAGER.CALIBRATE_IO) failed: {exc}") from None
    recorded = _execute(conn, "calibrate_io_status")
    return {"max_iops": values["max_iops"], "max_mbps": values["max_mbps"], "latency_ms": values["actual_latency"],
            "num_physical_disks": int(num_physical_disks), "max_latency_ms": int(max_latency_ms),
            "recorded": {k: (v.isoformat() if hasattr(v, "isoformat") else v) for k, v in recorded[0].items()}
            if recorded else None}


def diagnostics_pack_enabled(parameters: Mapping[str, Any]) -> bool:
    """Whether ``control_management_pack_access`` allows AWR (``DIAGNOSTIC`` or ``DIAGNOSTIC+TUNING``).

    When it does not, AWR views must not be queried (licensing): use :func:`statspack_snapshot`.
    """
    value = parameters.get("control_management_pack_access") or ""
    return "DIAGNOSTIC" in str(value).upper()


def create_snapshot(conn: Any) -> int:
    """Take an AWR snapshot (``DBMS_WORKLOAD_REPOSITORY.CREATE_SNAPSHOT``) and return its snap id.

    Needs the Diagnostics Pack (see :func:`diagnostics_pack_enabled`).

    Raises:
        RemoteError: The snapshot failed.
    """
    return _execute_snap(conn, "create_snapshot")


def statspack_snapshot(conn: Any) -> int:
    """Take a Statspack snapshot (``statspack.snap``) and return its snap id.

    The fallback when ``control_management_pack_access`` does not include ``DIAGNOSTIC``;
    Statspack must have been installed (``@?/rdbms/admin/spcreate``) and the user must be
    able to run the ``statspack`` package (usually ``PERFSTAT``).

    Raises:
        RemoteError: The snapshot failed (e.g. Statspack is not installed).
    """
    return _execute_snap(conn, "statspack_snapshot")


def awr_rows(conn: Any, dbid: int, begin_snap: int, end_snap: int, instance: int) -> dict[str, list[dict[str, Any]]]:
    """The AWR rows of one instance at two snapshots, for :func:`flashpoc.oracle.metrics.compute_awr_metrics`.

    Args:
        conn: An open connection.
        dbid: ``v$database.dbid`` (``database_facts(conn)["dbid"]``).
        begin_snap: Snap id before the workload.
        end_snap: Snap id after the workload.
        instance: ``instance_number`` (RAC: call once per instance).

    Returns:
        ``{table: rows}`` for each name in :data:`AWR_TABLES`; each row is a dict keyed by
        lower-case column name and carries ``snap_id`` (see the ``sql/awr_*.sql`` files)::

            {"snapshot": [{"snap_id": 47, "dbid": ..., "instance_number": 2,
                           "startup_time": datetime, "begin_interval_time": datetime,
                           "end_interval_time": datetime}, ...],
             "sysstat": [{"snap_id": 47, "instance_number": 2,
                          "stat_name": "physical read IO requests", "value": 123}, ...],
             "system_event": [{"snap_id", "instance_number", "event_name", "wait_class",
                               "total_waits", "time_waited_micro", "total_waits_fg",
                               "time_waited_micro_fg"}, ...],
             "event_histogram": [{"snap_id", "instance_number", "event_name",
                                  "wait_time_milli", "wait_count"}, ...],
             "osstat": [{"snap_id", "instance_number", "stat_name", "value"}, ...],
             "sys_time_model": [{"snap_id", "instance_number", "stat_name", "value"}, ...],
             "filestatxs": [{"snap_id", "instance_number", "file_no", "filename", "tsname",
                             "block_size", "phyrds", "phywrts", "singleblkrds", "readtim",
                             "writetim", "singleblkrdtim", "phyblkrd", "phyblkwrt", "wait_count",
                             "time"}, ...],   # "tempstatxs": the temp files, same columns
             "waitstat": [{"snap_id", "instance_number", "class", "wait_count", "time"}, ...]}

    Raises:
        ParameterError: ``end_snap`` is not after ``begin_snap``.
        RemoteError: A query failed.
    """
    return _interval_rows(conn, "awr", dbid, begin_snap, end_snap, instance)


def statspack_rows(conn: Any, dbid: int, begin_snap: int, end_snap: int, instance: int) -> dict[str, list[dict[str, Any]]]:
    """The Statspack rows of one instance at two Statspack snapshots, in the shape of :func:`awr_rows`.

    For sites without the Diagnostics Pack: ``sql/stats_*.sql`` read ``STATS$SNAPSHOT``,
    ``STATS$SYSSTAT``, ``STATS$SYSTEM_EVENT`` (with the ``_fg`` columns of Statspack 11.2 and
    later), ``STATS$EVENT_HISTOGRAM``, ``STATS$OSSTAT``, ``STATS$SYS_TIME_MODEL`` and
    ``STATS$FILESTATXS`` and alias their columns to the DBA_HIST names, so
    :func:`flashpoc.oracle.metrics.compute_awr_metrics` reads both. ``STATS$SNAPSHOT.snap_time``
    is a DATE: the interval, and so every per-second rate, has whole-second resolution (as in
    spreport.sql); ``file_no`` and ``block_size`` of the file rows are None.

    Raises:
        ParameterError: ``end_snap`` is not after ``begin_snap``.
        RemoteError: A query failed (e.g. the user cannot read the PERFSTAT tables).
    """
    return _interval_rows(conn, "stats", dbid, begin_snap, end_snap, instance)


def _interval_rows(conn: Any, prefix: str, dbid: int, begin_snap: int, end_snap: int,
                   instance: int) -> dict[str, list[dict[str, Any]]]:
    if not int(end_snap) > int(begin_snap):
        raise ParameterError(f"snapshot rows: end_snap ({end_snap}) must be after begin_snap ({begin_snap})")
    binds = {"dbid": int(dbid), "instance_number": int(instance),
             "begin_snap": int(begin_snap), "end_snap": int(end_snap)}
    return {table: _execute(conn, f"{prefix}_{table}", binds) for table in AWR_TABLES}


def awr_report_text(conn: Any, dbid: int, begin_snap: int, end_snap: int, instance: int) -> str:
    """The AWR text report of ``instance`` between two snapshots, generated by the database
    (``DBMS_WORKLOAD_REPOSITORY.AWR_REPORT_TEXT``, ``sql/awr_report_text.sql``), its lines joined.

    Needs the Diagnostics Pack (see :func:`diagnostics_pack_enabled`).

    Raises:
        ParameterError: ``end_snap`` is not after ``begin_snap``.
        RemoteError: The query failed (e.g. no EXECUTE on DBMS_WORKLOAD_REPOSITORY).
    """
    if not int(end_snap) > int(begin_snap):
        raise ParameterError(f"AWR report: end_snap ({end_snap}) must be after begin_snap ({begin_snap})")
    rows = _execute(conn, "awr_report_text", {"dbid": int(dbid), "instance_number": int(instance),
                                              "begin_snap": int(begin_snap), "end_snap": int(end_snap)})
    return "\n".join(row["output"] or "" for row in rows) + "\n"


def dbstat_sample(conn: Any) -> dict[str, Any]:
    """One sample of the database's cumulative I/O counters, per instance (``sql/dbstat_sample.sql``):
    ``{"clock", "epoch_s", "instances": [{"inst_id", "physical_read_io_requests",
    "physical_write_io_requests", "db_file_sequential_read_waits", "db_file_sequential_read_time_us"},
    ...]}``: ``clock`` the database clock (``HH24:MI:SS``), ``epoch_s`` seconds since the epoch (UTC,
    to the ms), one entry per instance in ``inst_id`` order (:mod:`flashpoc.oracle.dbstat` makes them
    a time series).

    Raises:
        RemoteError: The query failed, returned no row, or rows of different instants.
    """
    rows = _execute(conn, "dbstat_sample")
    if not rows or len({(row["clock"], row["epoch_s"]) for row in rows}) != 1:
        raise RemoteError(f"Oracle query sql/dbstat_sample.sql returned {len(rows)} rows, not one per instance "
                          "at one instant")
    return {"clock": rows[0]["clock"], "epoch_s": rows[0]["epoch_s"],
            "instances": [{key: value for key, value in row.items() if key not in ("clock", "epoch_s")}
                          for row in rows]}


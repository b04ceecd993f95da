"""Talk to an Oracle database: facts, AWR (or Statspack) snapshots and the AWR rows between them.

This is the only flashpoc module that imports :mod:`oracledb`, always in thin mode (no Oracle
client libraries). Every query is a file in ``flashpoc/sql/`` run with bind variables, never
built by string formatting; :func:`load_sql` reads one.

Settings come from :class:`OracleSettings`; the password never does: ``password_env`` names
an environment variable that :func:`connect` reads at connect time, so the password is in no
settings object, repr, exception message or log. Nothing here prompts (a prompt would hang a
notebook run by papermill):

* a missing password variable raises :class:`~flashpoc.errors.ParameterError` naming the
  variable, before any network I/O;
* an unreachable or silent listener raises :class:`~flashpoc.errors.RemoteError` naming the
  DSN within about ``2 * connect_timeout_s``;
* the pool is always closed (``pool.close(force=True)``), whatever happens in the block.

python-oracledb's thin mode bounds only the TCP connect by ``tcp_connect_timeout``: a peer that
accepts the connection and then never answers would block the first connection forever. So
:func:`connect` first sends the listener a TNS ``(COMMAND=ping)`` connect packet (what
``tnsping`` sends; for ``tcps`` it does a TLS handshake instead) and requires an answer within
``connect_timeout_s``.

Typical use::

    settings = OracleSettings(dsn="db1:1521/pdb1", user="system")
    with connect(settings) as conn:
        facts = database_facts(conn)
        begin = create_snapshot(conn)
        ...  # run the workload
        end = create_snapshot(conn)
        rows = awr_rows(conn, facts["dbid"], begin, end, facts["instance_number"])
    metrics = flashpoc.oracle_metrics.compute_awr_metrics(rows, begin, end)
"""

from __future__ import annotations

import contextlib
import os
import socket
import ssl
import struct
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

import oracledb

from ..errors import ParameterError, RemoteError

DEFAULT_PASSWORD_ENV = "FLASHPOC_ORACLE_PASSWORD"
"""Environment variable read for the password unless :attr:`OracleSettings.password_env` says otherwise."""

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


@dataclass(frozen=True)
class OracleSettings:
    """Where and how to connect; holds no secret.

    Attributes:
        dsn: Easy Connect string ``host:port/service`` (``tcps://host:port/service`` for TLS)
            or a ``tnsnames.ora`` alias found in ``wallet_dir``.
        user: Database user (e.g. ``system``; AWR views need SELECT_CATALOG_ROLE or DBA).
        password_env: NAME of the environment variable holding the password (not the password).
        wallet_dir: Directory holding the wallet (``ewallet.pem`` / ``cwallet.sso``) and
            ``tnsnames.ora``/``sqlnet.ora`` for TCPS; ``None`` for plain TCP.
        wallet_password_env: NAME of the environment variable holding the wallet password, for
            an encrypted PEM wallet; ``None`` when the wallet needs none.
        connect_timeout_s: Bound on the TCP connect and on the listener's first answer.
        acquire_timeout_s: Bound on getting a connection from the pool (login included).
        pool_min: Connections the pool opens at start.
        pool_max: Most connections the pool opens.
    """

    dsn: str
    user: str
    password_env: str = DEFAULT_PASSWORD_ENV
    wallet_dir: str | None = None
    wallet_password_env: str | None = None
    connect_timeout_s: float = 5.0
    acquire_timeout_s: float = 30.0
    pool_min: int = 1
    pool_max: int = 2

    def __post_init__(self) -> None:
        if not self.dsn or not self.dsn.strip():
            raise ParameterError("oracle.dsn: must not be empty (host:port/service)")
        if not self.user:
            raise ParameterError("oracle.user: must not be empty")
        if not self.password_env:
            raise ParameterError("oracle.password_env: must name an environment variable")
        if not self.connect_timeout_s > 0:
            raise ParameterError(f"oracle.connect_timeout_s: must be > 0, got {self.connect_timeout_s!r}")
        if not self.acquire_timeout_s > 0:
            raise ParameterError(f"oracle.acquire_timeout_s: must be > 0, got {self.acquire_timeout_s!r}")
        if self.pool_min < 0 or self.pool_max < 1 or self.pool_min > self.pool_max:
            raise ParameterError(
                f"oracle.pool_min/pool_max: need 0 <= pool_min <= pool_max >= 1, "
                f"got {self.pool_min}/{self.pool_max}"
            )

    @classmethod
    def from_env(cls, prefix: str = "FLASHPOC_ORACLE_", **overrides: Any) -> OracleSettings:
        """Settings from ``<prefix>DSN``, ``<prefix>USER``, ``<prefix>WALLET_DIR``, ``<prefix>CONNECT_TIMEOUT_S``.

        The password stays in ``<prefix>PASSWORD`` (the default ``password_env``) until
        :func:`connect` reads it.

        Args:
            prefix: Prefix of the environment variable names.
            **overrides: Fields given explicitly; they win over the environment.

        Raises:
            ParameterError: ``DSN`` or ``USER`` is missing, or a value is invalid.
        """
        values: dict[str, Any] = {}
        for field, cast in (("dsn", str), ("user", str), ("wallet_dir", str), ("connect_timeout_s", float)):
            name = prefix + field.upper()
            raw = os.environ.get(name)
            if raw:
                try:
                    values[field] = cast(raw)
                except ValueError:
                    raise ParameterError(f"{name}: not a {cast.__name__}: {raw!r}") from None
        values["password_env"] = prefix + "PASSWORD"
        values.update(overrides)
        for field in ("dsn", "user"):
            if not values.get(field):
                raise ParameterError(f"{prefix}{field.upper()}: environment variable is not set")
        return cls(**values)


def load_sql(name: str) -> str:
    """Text of ``flashpoc/sql/<name>.sql`` without its ``--`` comment lines, ready to execute.

    Raises:
        ParameterError: There is no such SQL file.
    """
    try:
        text = resources.files("flashpoc").joinpath("sql", f"{name}.sql").read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ParameterError(f"sql: no file flashpoc/sql/{name}.sql") from None
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("--")]
    return "\n".join(lines).strip()


def _read_secret(env_name: str) -> str:
    value = os.environ.get(env_name)
    if not value:
        raise ParameterError(
            f"oracle.password_env: environment variable {env_name} is not set or empty "
            f"(set it to the password; flashpoc never prompts)"
        )
    return value


def _endpoint(settings: OracleSettings) -> tuple[str, int, str]:
    """(host, port, protocol) of the first address of the DSN."""
    params = oracledb.ConnectParams(config_dir=settings.wallet_dir) if settings.wallet_dir else oracledb.ConnectParams()
    try:
        params.parse_connect_string(settings.dsn)
    except oracledb.Error as exc:
        raise ParameterError(f"oracle.dsn: cannot parse {settings.dsn!r}: {exc}") from None
    host, port, protocol = params.host, params.port, params.protocol
    if isinstance(host, list):
        host, port, protocol = host[0], port[0], protocol[0]
    return str(host), int(port), str(protocol or "tcp").lower()


def _tns_ping_packet(host: str, port: int) -> bytes:
    """A TNS CONNECT packet carrying ``(CONNECT_DATA=(COMMAND=ping))``, as ``tnsping`` sends."""
    data = f"(DESCRIPTION=(CONNECT_DATA=(COMMAND=ping))(ADDRESS=(PROTOCOL=TCP)(HOST={host})(PORT={port})))"
    payload = data.encode("ascii")
    offset = 58
    body = struct.pack(
        ">HHHHHHHHHHIBB",
        0x0136,  # version
        0x012C,  # lowest compatible version
        0x0000,  # service options
        0x0800,  # session data unit
        0x7FFF,  # transport data unit
        0x4F98,  # protocol characteristics
        0x0000,  # line turnaround
        0x0001,  # value of 1 in hardware byte order
        len(payload),
        offset,
        0,  # max receivable connect data
        0x41,  # connect flags 0
        0x41,  # connect flags 1
    )
    header_len = 8
    padding = offset - header_len - len(body)
    body += b"\x00" * padding
    header = struct.pack(">HHBBH", offset + len(payload), 0, 1, 0, 0)  # type 1: CONNECT
    return header + body + payload


def check_listener(settings: OracleSettings) -> None:
    """Require the listener behind ``settings.dsn`` to answer within ``connect_timeout_s``.

    Sends a TNS ping (plain TCP) or does a TLS handshake (``tcps``); any answer, even a refusal
    or a closed connection, counts: only silence and failed TCP connects fail.

    Raises:
        ParameterError: The DSN cannot be parsed.
        RemoteError: The TCP connect failed, or the listener did not answer in time.
    """
    host, port, protocol = _endpoint(settings)
    timeout_s = settings.connect_timeout_s
    where = f"Oracle listener {host}:{port} (dsn {settings.dsn})"
    try:
        sock = socket.create_connection((host, port), timeout=timeout_s)
    except OSError as exc:
        raise RemoteError(f"{where}: TCP connect failed within {timeout_s:g} s: {exc}") from None
    try:
        sock.settimeout(timeout_s)
        if protocol == "tcps":
            context = ssl.create_default_context()
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE  # liveness only; oracledb verifies the certificate
            try:
                with context.wrap_socket(sock, server_hostname=host, do_handshake_on_connect=False) as tls:
                    tls.do_handshake()
            except ssl.SSLError:
                return  # the server answered (with a TLS alert)
        else:
            sock.sendall(_tns_ping_packet(host, port))
            sock.recv(8)  # b"" (closed) is an answer too
    except (socket.timeout, TimeoutError):
        raise RemoteError(
            f"{where}: accepted the TCP connection but did not answer within {timeout_s:g} s "
            f"(not an Oracle listener, or hung)"
        ) from None
    except OSError as exc:
        if isinstance(exc, ConnectionResetError):
            return  # answered by resetting: alive, oracledb will report the real error
        raise RemoteError(f"{where}: {exc}") from None
    finally:
        sock.close()


def _scrub(text: str, secrets: tuple[str, ...]) -> str:
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return text


@contextlib.contextmanager
def connect(settings: OracleSettings) -> Iterator[Any]:
    """A connection from a fresh pool; the pool is closed (forcibly) when the block exits.

    Args:
        settings: Where to connect; the password is read from ``settings.password_env`` now.

    Yields:
        An ``oracledb.Connection``.

    Raises:
        ParameterError: The password variable (or wallet password variable) is unset, or the
            DSN cannot be parsed; raised before any network I/O.
        RemoteError: The listener or the database cannot be reached, or login failed; the
            message names the DSN and user, never the password.
    """
    password = _read_secret(settings.password_env)
    wallet_password = _read_secret(settings.wallet_password_env) if settings.wallet_password_env else None
    secrets = (password, wallet_password or "")
    check_listener(settings)
    where = f"Oracle {settings.user}@{settings.dsn}"
    wallet: dict[str, Any] = {}
    if settings.wallet_dir:
        wallet = {"config_dir": settings.wallet_dir, "wallet_location": settings.wallet_dir}
        if wallet_password:
            wallet["wallet_password"] = wallet_password
    pool = None
    error: str | None = None
    try:
        try:
            pool = oracledb.create_pool(
                user=settings.user,
                password=password,
                dsn=settings.dsn,
                min=settings.pool_min,
                max=settings.pool_max,
                increment=1,
                getmode=oracledb.POOL_GETMODE_TIMEDWAIT,
                wait_timeout=int(settings.acquire_timeout_s * 1000),
                tcp_connect_timeout=settings.connect_timeout_s,
                retry_count=0,
                **wallet,
            )
            conn = pool.acquire()
        except oracledb.Error as exc:
            error = f"{where}: cannot connect: {_scrub(str(exc), secrets)}"
        if error is not None:
            # Raised outside the except block: no __context__ keeps the driver's exception.
            raise RemoteError(error)
        try:
            yield conn
        finally:
            with contextlib.suppress(oracledb.Error):
                pool.release(conn)
    finally:
        if pool is not None:
            pool.close(force=True)


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


def storage_facts(conn: Any) -> dict[str, list[dict[str, Any]]]:
    """How the database reaches its storage: ``dnfs_servers`` (``v$dnfs_servers``: svrname,
    dirname, nfsversion, wtmax, rtmax), ``dnfs_channels`` (``v$dnfs_channels``: svrname, path,
    local, processes) and ``asm_disks`` (``v$asm_disk``: diskgroup, name, path, total_mb,
    failgroup, mode_status, state); empty lists without Direct NFS or ASM.

    Raises:
        RemoteError: A query failed.
    """
    return {"dnfs_servers": _execute(conn, "facts_dnfs_servers"),
            "dnfs_channels": _execute(conn, "facts_dnfs_channels"),
            "asm_disks": _execute(conn, "facts_asm_disks")}


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
    """The AWR rows of one instance at two snapshots, for :func:`flashpoc.oracle_metrics.compute_awr_metrics`.

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
    :func:`flashpoc.oracle_metrics.compute_awr_metrics` reads both. ``STATS$SNAPSHOT.snap_time``
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


@dataclass(frozen=True)
class SessionResult:
    """One session of :func:`run_sessions`.

    Attributes:
        session: 1-based session number.
        elapsed_s: seconds from the common start to this session's last commit (s).
        statements: statements executed.
        error: what failed (session, script line, first keyword, Oracle's message), or None.
    """

    session: int
    elapsed_s: float | None
    statements: int
    error: str | None = None


def session_text(statement: Any, number: int) -> str:
    """The text session ``number`` sends: ``statement.for_session(number).text`` when the
    statement fills per-session variables, else ``statement.text``."""
    for_session = getattr(statement, "for_session", None)
    return (for_session(number) if for_session is not None else statement).text


def run_sessions(settings: OracleSettings, statements: Sequence[Any], sessions: int, *,
                 connect: Callable[[OracleSettings], Any] = connect,
                 start_timeout_s: float = 300.0) -> tuple[float, list[SessionResult]]:
    """Run ``statements`` in ``sessions`` concurrent sessions, each its own connection.

    Every session logs in first; all start together (a barrier), run the statements in
    order and commit at the end. The elapsed time is from that common start to the end of
    the last session, the way a DBA times "20 sessions running the insert script".

    Args:
        settings: where to connect.
        statements: :class:`flashpoc.engines.sqlscript.plan.Statement` objects (``text``, ``line``,
            ``verb``), run with ``cursor.execute(text)``; session ``n`` runs ``for_session(n)``
            of each when it has one (``&session``/``&session_name`` filled in).
        sessions: number of concurrent sessions (>= 1).
        connect: the context manager giving one connection (tests pass a replay double).
        start_timeout_s: seconds the sessions may take to log in before the run is abandoned.

    Returns:
        ``(elapsed_s, results)``: wall seconds of the whole run and one result per session.

    Raises:
        ParameterError: ``sessions`` < 1 or no statements.
        RemoteError: a session could not connect (no statement ran then) or the sessions
            did not all log in within ``start_timeout_s``.
    """
    if sessions < 1:
        raise ParameterError(f"sessions must be >= 1, got {sessions}")
    if not statements:
        raise ParameterError("no statements to run")
    start = [0.0]
    barrier = threading.Barrier(sessions + 1, action=lambda: start.__setitem__(0, time.perf_counter()))
    results: list[SessionResult | None] = [None] * sessions
    connect_errors: list[str] = []

    def session(number: int) -> None:
        done = 0
        try:
            with connect(settings) as conn:
                barrier.wait(timeout=start_timeout_s)
                try:
                    with conn.cursor() as cursor:
                        for statement in statements:
                            cursor.execute(session_text(statement, number))
                            done += 1
                    conn.commit()
                except oracledb.Error as exc:
                    statement = statements[done]
                    results[number - 1] = SessionResult(
                        number, None, done, f"session {number}: script line {statement.line} "
                                            f"({statement.verb}): {str(exc).strip().splitlines()[0]}")
                    return
                results[number - 1] = SessionResult(number, time.perf_counter() - start[0], done)
        except (RemoteError, ParameterError) as error:
            connect_errors.append(f"session {number}: {error}")
            barrier.abort()
        except threading.BrokenBarrierError:
            results[number - 1] = SessionResult(number, None, 0, f"session {number}: not started")

    threads = [threading.Thread(target=session, args=(n,), name=f"flashpoc-sql-{n}") for n in range(1, sessions + 1)]
    for thread in threads:
        thread.start()
    with contextlib.suppress(threading.BrokenBarrierError):
        barrier.wait(timeout=start_timeout_s)
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - start[0]
    if connect_errors or start[0] == 0.0:
        raise RemoteError("the sessions could not all start: " + "; ".join(connect_errors or ["login timed out"]))
    return elapsed, [r for r in results if r is not None]

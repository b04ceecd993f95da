"""Oracle: SQL files, the AWR-rows-to-metrics mapping on recorded rows, and fast connect failures.

No Oracle server runs here. The metrics are checked on rows reconstructed from a real AWR
report (tests/data/oracle/README.md says where each number comes from); the connection path is
checked up to its real failure against 127.0.0.1 (a closed port and a silent listener).
"""

from __future__ import annotations

import copy
import json
import re
import socket
import threading
import time
from datetime import datetime
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from conftest import DATA
from flashpoc.oracle import metrics as oracle_metrics
from flashpoc.core.errors import AnalysisError, ParameterError, RemoteError
from flashpoc.oracle import db as oracle
from ssh_server import free_port

ROWS_FILE = DATA / "oracle" / "awr_rows_slob19c_rac2node_inst2_snap47_48.json"
AWR_TXT = DATA / "slob" / "slob2.5_19c_rac2node_s256_t1_wu4_update10" / "awr.txt"
SQL_DIR = Path(oracle_metrics.__file__).resolve().parent.parent / "sql"  # flashpoc/sql/, beside the oracle package
SECRET = "Tiger-Secret-4242!"  # a known test secret that must never leak
PASSWORD_ENV = "FLASHPOC_TEST_ORACLE_PASSWORD"

BIND_SQL = {
    "awr_snapshot": {"dbid", "instance_number", "begin_snap", "end_snap"},
    "awr_sysstat": {"dbid", "instance_number", "begin_snap", "end_snap"},
    "awr_system_event": {"dbid", "instance_number", "begin_snap", "end_snap"},
    "awr_event_histogram": {"dbid", "instance_number", "begin_snap", "end_snap"},
    "awr_osstat": {"dbid", "instance_number", "begin_snap", "end_snap"},
    "awr_sys_time_model": {"dbid", "instance_number", "begin_snap", "end_snap"},
    "awr_filestatxs": {"dbid", "instance_number", "begin_snap", "end_snap"},
    "awr_waitstat": {"dbid", "instance_number", "begin_snap", "end_snap"},
    "awr_tempstatxs": {"dbid", "instance_number", "begin_snap", "end_snap"},
    "awr_report_text": {"dbid", "instance_number", "begin_snap", "end_snap"},
    "awr_report_html": {"dbid", "instance_number", "begin_snap", "end_snap"},
    **{f"stats_{t}": {"dbid", "instance_number", "begin_snap", "end_snap"} for t in oracle.AWR_TABLES},
    "create_snapshot": {"snap_id"},
    "statspack_snapshot": {"snap_id"},
    "facts_instance": set(),
    "facts_parameters": set(),
    "facts_dnfs": set(),
    "facts_asm": set(),
    "facts_slob_schemas": {"user_pattern"},
    "facts_dnfs_servers": set(),
    "facts_dnfs_channels": set(),
    "facts_asm_disks": set(),
    "facts_datafiles": set(),
    "calibrate_io": {"num_physical_disks", "max_latency", "max_iops", "max_mbps", "actual_latency"},
    "calibrate_io_status": set(),
    "dbstat_sample": set(),
}
"""Every SQL file and the bind variables it must use (the parameters of its Python caller)."""


def load_rows() -> dict:
    rows = json.loads(ROWS_FILE.read_text())
    for row in rows["snapshot"]:
        for key in ("startup_time", "begin_interval_time", "end_interval_time"):
            row[key] = datetime.fromisoformat(row[key])
    return rows


def printed(value: float, digits: int) -> float:
    return round(value, digits)


# --- SQL files -------------------------------------------------------------------------------


def test_every_sql_file_is_known_and_present():
    assert {p.stem for p in SQL_DIR.glob("*.sql")} == set(BIND_SQL)
    assert {f"awr_{t}" for t in oracle.AWR_TABLES} <= set(BIND_SQL)


@pytest.mark.parametrize("table", oracle.AWR_TABLES)
def test_statspack_sql_reads_the_stats_table_into_the_awr_columns(table):
    """Each sql/stats_<table>.sql reads Statspack's STATS$<TABLE> (never a DBA_HIST view, which
    needs the Diagnostics Pack) and returns the columns of sql/awr_<table>.sql, in order."""
    def columns(sql: str) -> list[str]:
        select = re.search(r"SELECT(.*?)\bFROM\b", sql, flags=re.S | re.I).group(1)
        return [re.split(r"\s+AS\s+|\.", c.strip(), flags=re.I)[-1].strip().lower() for c in select.split(",")]

    stats, awr = oracle.load_sql(f"stats_{table}"), oracle.load_sql(f"awr_{table}")
    assert f"stats${table}" in stats.lower() and "dba_hist" not in stats.lower()
    assert columns(stats) == columns(awr)


@pytest.mark.parametrize("name", sorted(BIND_SQL))
def test_sql_uses_bind_variables_and_no_formatting(name):
    text = (SQL_DIR / f"{name}.sql").read_text()
    sql = oracle.load_sql(name)
    assert sql and "--" not in sql
    binds = set(re.findall(r"(?<![:\w]):([a-z_][a-z0-9_]*)", sql, flags=re.I))
    assert binds == BIND_SQL[name]
    # No Python / SQL*Plus substitution markers anywhere in the file.
    assert not re.search(r"[{}]|%[sdr(]|&\w|\?", text), name
    # Parameter values are never spliced in: no quoted literal holds a snap id, dbid or pattern.
    assert "USER%" not in sql
    assert not sql.rstrip().endswith(";") or sql.upper().rstrip().endswith("END;")


def test_the_counters_sample_is_one_row_per_instance_at_one_instant():
    """sql/dbstat_sample.sql (a Direct NFS point's time series): the GV$ views with no instance
    filter, grouped by inst_id (one row per instance: the parser sums them for a cluster's point,
    takes one for an instance's); the statistics of a point's IOPS (not the 'total' ones, which
    count redo, control file and archive I/O too) and the event, named as the AWR report prints
    them; SYSTIMESTAMP read once for the clock and the epoch of every row."""
    sql = oracle.load_sql("dbstat_sample")
    assert sql.count("SYSTIMESTAMP") == 1 and "TO_CHAR(utc.ts, 'HH24:MI:SS') AS clock" in sql
    assert re.findall(r"WHEN name = '([^']+)'", sql) == ["physical read IO requests", "physical write IO requests"]
    assert "WHERE name IN ('physical read IO requests', 'physical write IO requests')" in sql
    assert "GROUP BY inst_id" in sql and "ON waits.inst_id = stat.inst_id" in sql
    assert re.findall(r"FROM (gv\$\w+)", sql) == ["gv$sysstat", "gv$system_event"]
    assert "WHERE event = 'db file sequential read'" in sql and "total IO" not in sql.split("WITH now")[1]
    text = AWR_TXT.read_text()  # the names as the AWR report prints them
    for name in ("physical read IO requests", "physical write IO requests"):
        assert re.search(rf"^{name}\s+[\d,]+\s+[\d,.]+", text, flags=re.M)


def test_load_sql_unknown_file():
    with pytest.raises(ParameterError, match="no_such"):
        oracle.load_sql("no_such")


# --- metrics on recorded rows (AWR report slob2.5_19c_rac2node, instance 2, snaps 47-48) -------


def test_report_is_the_one_the_rows_come_from():
    text = AWR_TXT.read_text()
    assert "P30SDB        1451622190" in text
    assert re.search(r"Begin Snap:\s+47 17-Feb-20 09:26:07", text)
    assert re.search(r"physical read IO requests\s+10,815,881\s+29,792.8", text)
    assert re.search(r"db file sequential read\s+10,924,627\s+3,826\s+350.19us", text)


def test_metrics_match_the_awr_report():
    m = oracle_metrics.compute_awr_metrics(load_rows(), 47, 48)
    assert m["elapsed_s"] == pytest.approx(363.037)
    assert round(m["elapsed_s"] / 60, 2) == 6.05  # "Elapsed: 6.05 (mins)"
    # Load Profile / Instance Activity Stats "per Second"
    assert printed(m["read_iops"], 1) == 29_792.8
    assert printed(m["write_iops"], 1) == 3_118.2
    assert printed(m["read_mibps"], 1) == 232.8
    assert printed(m["write_mibps"], 1) == 25.8
    assert printed(m["cpu_used_s_per_s"] * 100, 1) == 905.4  # centiseconds per second
    assert printed(m["db_cpu_s_per_s"], 1) == 7.6  # DB CPU(s)
    assert printed(m["background_cpu_s_per_s"], 1) == 1.6  # Background CPU(s)
    # Foreground / Background Wait Events "Avg wait"
    assert printed(m["db_file_sequential_read_fg_avg_wait_us"], 2) == 350.19
    assert printed(m["db_file_sequential_read_bg_avg_wait_us"], 2) == 559.85
    assert printed(m["log_file_parallel_write_avg_wait_us"] / 1000, 2) == 18.79
    assert printed(m["log_file_parallel_write_bg_avg_wait_us"] / 1000, 2) == 18.79
    assert m["log_file_parallel_write_fg_avg_wait_us"] is None
    assert printed(m["db_file_parallel_write_avg_wait_us"] / 1000, 2) == 11.52
    assert printed(m["log_file_sync_fg_avg_wait_us"] / 1000, 2) == 46.37
    assert m["log_file_sync_bg_avg_wait_us"] is None
    # All sessions: (3,825,695,129 + 1,550,225) us / (10,924,627 + 2,769) waits
    assert m["db_file_sequential_read_avg_wait_us"] == pytest.approx(350.24, abs=0.005)
    # Wait Event Histogram: printed shares are rounded to 0.1 (two of them for < 1 ms)
    assert m["db_file_sequential_read_under_1ms_pct"] == pytest.approx(92.2 + 5.6, abs=0.1)
    assert m["db_file_sequential_read_under_2ms_pct"] == pytest.approx(92.2 + 5.6 + 1.2, abs=0.15)
    # Host CPU (%User %System %WIO %Idle) and OS Statistics Detail %busy
    assert printed(m["host_cpu_user_pct"], 1) == 6.0
    assert printed(m["host_cpu_sys_pct"], 1) == 7.9
    assert printed(m["host_cpu_iowait_pct"], 1) == 12.8
    assert printed(m["host_cpu_idle_pct"], 1) == 83.0
    assert printed(m["host_cpu_busy_pct"], 1) == 17.0
    assert m["host_num_cpus"] == 64


def test_metrics_without_time_model_or_histogram():
    rows = load_rows()
    del rows["sys_time_model"], rows["event_histogram"]
    m = oracle_metrics.compute_awr_metrics(rows, 47, 48)
    assert m["db_cpu_s_per_s"] is None
    assert m["db_file_sequential_read_under_1ms_pct"] is None
    assert printed(m["read_iops"], 1) == 29_792.8


def test_counter_going_down_is_an_instance_restart():
    rows = load_rows()
    end = next(r for r in rows["sysstat"] if r["snap_id"] == 48 and r["stat_name"] == "physical read IO requests")
    end["value"] = 1_000
    with pytest.raises(AnalysisError, match="physical read IO requests.*restarted"):
        oracle_metrics.compute_awr_metrics(rows, 47, 48)


def test_changed_startup_time_is_an_instance_restart():
    rows = load_rows()
    rows["snapshot"][1]["startup_time"] = datetime(2020, 2, 17, 9, 30)
    with pytest.raises(AnalysisError, match="restarted between snaps 47 and 48"):
        oracle_metrics.compute_awr_metrics(rows, 47, 48)


def test_missing_snapshot_rows():
    rows = load_rows()
    with pytest.raises(AnalysisError, match="snap 49"):
        oracle_metrics.compute_awr_metrics(rows, 47, 49)
    rows = copy.deepcopy(rows)
    rows["sysstat"] = []
    with pytest.raises(AnalysisError, match="sysstat"):
        oracle_metrics.compute_awr_metrics(rows, 47, 48)


# --- facts and snapshots through a fake connection (checks binds and the shapes) ---------------


class FakeCursor:
    def __init__(self, results, calls):
        self.results, self.calls, self.description = results, calls, None
        self._rows = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def var(self, typ):
        return FakeVar()

    def execute(self, sql, binds):
        self.calls.append((sql, binds))
        for marker, (columns, rows) in self.results.items():
            if marker in sql:
                self.description = [(c.upper(),) for c in columns]
                self._rows = rows
                break
        for value in binds.values():
            if isinstance(value, FakeVar):
                value.value = 48

    def fetchall(self):
        return self._rows


class FakeVar:
    value = None

    def getvalue(self):
        return self.value


class FakeConnection:
    def __init__(self, results):
        self.results, self.calls = results, []

    def cursor(self):
        return FakeCursor(self.results, self.calls)


def test_database_facts_shape():
    conn = FakeConnection({
        "gv$instance": (["version", "instance_name", "instance_number", "host_name", "instance_count",
                         "dbid", "db_name", "cdb", "con_name"],
                        [("19.0.0.0.0", "p30sdb2", 2, "db2", 2, 1451622190, "P30SDB", "NO", "P30SDB")]),
        "v$parameter": (["name", "value", "isdefault"],
                        [("control_management_pack_access", "DIAGNOSTIC+TUNING", "TRUE"),
                         ("filesystemio_options", "SETALL", "FALSE")]),
        "nfsversion": (["svrname", "dirname", "nfsversion", "wtmax", "rtmax"], []),
        "v$dnfs_servers": (["dnfs_server_count"], [(0,)]),
        "v$dnfs_channels": (["svrname", "path", "local", "processes"], []),
        "v$asm_disk d": (["diskgroup", "name", "path", "total_mb", "failgroup", "mode_status", "state"], []),
        "v$asm_diskgroup": (["name", "state", "type", "total_mb", "free_mb"],
                            [("DATA", "MOUNTED", "EXTERN", 1_048_576, 524_288)]),
        "dba_segments": (["username", "segment_bytes", "segment_count"], [("USER1", 8 << 30, 3)]),
        "v$datafile": (["name"], [("/u01/app/oracle/oradata/xydb/system01.dbf",),  # names as a real report prints
                                  ("/u01/app/oracle/oradata/xydb/users01.dbf",)]),  # them (tests/data/awr, 11.2.0.4)
    })
    facts = oracle.database_facts(conn)
    assert facts["rac"] is True and facts["cdb"] is False and facts["dbid"] == 1451622190
    assert facts["parameters"]["filesystemio_options"] == "SETALL"
    assert facts["parameters"]["sga_target"] is None
    assert facts["diagnostics_pack"] is True and facts["snapshot_method"] == "awr"
    assert facts["dnfs"] is False
    assert facts["dnfs_servers"] == facts["dnfs_channels"] == facts["asm_disks"] == []
    assert facts["asm_diskgroups"][0]["total_mb"] == 1_048_576
    assert facts["slob_schemas"] == [{"username": "USER1", "segment_bytes": 8 << 30, "segment_count": 3}]
    assert facts["datafile_names"] == ["/u01/app/oracle/oradata/xydb/system01.dbf",
                                       "/u01/app/oracle/oradata/xydb/users01.dbf"]
    slob_call = next(c for c in conn.calls if "dba_segments" in c[0])
    assert slob_call[1] == {"user_pattern": "USER%"}
    json.dumps(facts)


def test_pack_access_chooses_statspack():
    assert oracle.diagnostics_pack_enabled({"control_management_pack_access": "NONE"}) is False
    assert oracle.diagnostics_pack_enabled({"control_management_pack_access": "DIAGNOSTIC"}) is True


def test_snapshots_and_awr_rows_binds():
    conn = FakeConnection({"dba_hist": (["snap_id"], []), "stats$": (["snap_id"], [])})
    assert oracle.create_snapshot(conn) == 48
    assert "DBMS_WORKLOAD_REPOSITORY.CREATE_SNAPSHOT" in conn.calls[-1][0]
    assert oracle.statspack_snapshot(conn) == 48
    assert "statspack.snap" in conn.calls[-1][0]
    rows = oracle.awr_rows(conn, 1451622190, 47, 48, 2)
    assert set(rows) == set(oracle.AWR_TABLES)
    assert all(c[1] == {"dbid": 1451622190, "instance_number": 2, "begin_snap": 47, "end_snap": 48}
               for c in conn.calls[2:])
    with pytest.raises(ParameterError, match="end_snap"):
        oracle.awr_rows(conn, 1, 48, 47, 2)
    calls = len(conn.calls)
    rows = oracle.statspack_rows(conn, 1451622190, 47, 48, 2)
    assert set(rows) == set(oracle.AWR_TABLES)
    assert [c[0] for c in conn.calls[calls:]] == [oracle.load_sql(f"stats_{t}") for t in oracle.AWR_TABLES]
    with pytest.raises(ParameterError, match="end_snap"):
        oracle.statspack_rows(conn, 1, 48, 48, 2)


# --- connecting: fail fast, never leak the password -------------------------------------------


def settings_for(port: int, timeout_s: float = 1.0) -> oracle.OracleSettings:
    return oracle.OracleSettings(dsn=f"127.0.0.1:{port}/flashpoc", user="system",
                                 password_env=PASSWORD_ENV, connect_timeout_s=timeout_s)


def assert_no_secret(exc: BaseException, settings: oracle.OracleSettings) -> None:
    for text in (str(exc), repr(exc), repr(settings), str(exc.__cause__ or ""), str(exc.__context__ or "")):
        assert SECRET not in text


def test_settings_repr_has_no_password(monkeypatch):
    monkeypatch.setenv(PASSWORD_ENV, SECRET)
    settings = settings_for(1521)
    assert SECRET not in repr(settings) and PASSWORD_ENV in repr(settings)
    assert oracle.OracleSettings(dsn="h:1/s", user="u").password_env == "FLASHPOC_ORACLE_PASSWORD"


def test_settings_from_env(monkeypatch):
    monkeypatch.setenv("FLASHPOC_ORACLE_DSN", "db1:1521/pdb1")
    monkeypatch.setenv("FLASHPOC_ORACLE_USER", "system")
    monkeypatch.setenv("FLASHPOC_ORACLE_CONNECT_TIMEOUT_S", "2.5")
    settings = oracle.OracleSettings.from_env()
    assert (settings.dsn, settings.user, settings.connect_timeout_s) == ("db1:1521/pdb1", "system", 2.5)
    monkeypatch.delenv("FLASHPOC_ORACLE_USER")
    with pytest.raises(ParameterError, match="FLASHPOC_ORACLE_USER"):
        oracle.OracleSettings.from_env()


def test_missing_password_variable_fails_before_any_network(monkeypatch):
    monkeypatch.delenv(PASSWORD_ENV, raising=False)

    def no_network(*args, **kwargs):
        raise AssertionError("network I/O attempted")

    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(oracle.oracledb, "create_pool", no_network)
    with pytest.raises(ParameterError, match=PASSWORD_ENV) as info:
        with oracle.connect(settings_for(1521)):
            pass
    assert "never prompts" in str(info.value)


def test_closed_port_is_a_fast_remote_error(monkeypatch):
    monkeypatch.setenv(PASSWORD_ENV, SECRET)
    settings = settings_for(free_port())
    start = time.monotonic()
    with pytest.raises(RemoteError) as info:
        with oracle.connect(settings):
            pass
    assert time.monotonic() - start < settings.connect_timeout_s + 1.0
    assert settings.dsn in str(info.value)
    assert_no_secret(info.value, settings)


@pytest.fixture
def silent_listener():
    """A TCP server on 127.0.0.1 that accepts connections and never sends a byte."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept_loop():
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
                accepted.append(conn)
            except OSError:
                continue

    thread = threading.Thread(target=accept_loop, daemon=True)
    thread.start()
    yield server.getsockname()[1], accepted
    stop.set()
    thread.join(2)
    for conn in accepted:
        conn.close()
    server.close()


def test_silent_listener_is_a_remote_error_within_the_timeout(monkeypatch, silent_listener):
    port, accepted = silent_listener
    monkeypatch.setenv(PASSWORD_ENV, SECRET)
    settings = settings_for(port, timeout_s=1.0)
    start = time.monotonic()
    with pytest.raises(RemoteError, match="did not answer") as info:
        with oracle.connect(settings):
            pass
    elapsed = time.monotonic() - start
    assert settings.connect_timeout_s * 0.9 <= elapsed < settings.connect_timeout_s + 1.5
    assert accepted, "the probe should have reached the server"
    assert settings.dsn in str(info.value)
    assert_no_secret(info.value, settings)


def test_pool_is_closed_even_when_the_block_raises(monkeypatch):
    monkeypatch.setenv(PASSWORD_ENV, SECRET)
    events = []

    class FakePool:
        def acquire(self):
            events.append("acquire")
            return "conn"

        def release(self, conn):
            events.append("release")

        def close(self, force=False):
            events.append(("close", force))

    def fake_create_pool(**kwargs):
        assert kwargs["password"] == SECRET and kwargs["retry_count"] == 0
        assert kwargs["tcp_connect_timeout"] == 1.0
        return FakePool()

    monkeypatch.setattr(oracle, "check_listener", lambda settings: None)
    monkeypatch.setattr(oracle.oracledb, "create_pool", fake_create_pool)
    with pytest.raises(RuntimeError):
        with oracle.connect(settings_for(1521)) as conn:
            assert conn == "conn"
            raise RuntimeError("workload failed")
    assert events == ["acquire", "release", ("close", True)]


def test_login_failure_after_pool_creation_closes_the_pool(monkeypatch):
    monkeypatch.setenv(PASSWORD_ENV, SECRET)
    closed = []

    class FailingPool:
        def acquire(self):
            raise oracle.oracledb.DatabaseError(f"ORA-01017: invalid credential {SECRET}")

        def close(self, force=False):
            closed.append(force)

    monkeypatch.setattr(oracle, "check_listener", lambda settings: None)
    monkeypatch.setattr(oracle.oracledb, "create_pool", lambda **kwargs: FailingPool())
    settings = settings_for(1521)
    with pytest.raises(RemoteError, match="ORA-01017") as info:
        with oracle.connect(settings):
            pass
    assert closed == [True]
    assert_no_secret(info.value, settings)


def test_tns_ping_packet_layout():
    packet = oracle._tns_ping_packet("127.0.0.1", 1521)
    assert int.from_bytes(packet[:2], "big") == len(packet)
    assert packet[4] == 1  # CONNECT
    assert packet[58:].startswith(b"(DESCRIPTION=(CONNECT_DATA=(COMMAND=ping))")


def test_driver_error_on_closed_port_is_wrapped_and_the_pool_closed(monkeypatch):
    """Past the listener probe: python-oracledb's own failure (DPY-6005) becomes a RemoteError."""
    monkeypatch.setenv(PASSWORD_ENV, SECRET)
    monkeypatch.setattr(oracle, "check_listener", lambda settings: None)
    closed = []
    real_create_pool = oracle.oracledb.create_pool

    def recording_create_pool(**kwargs):
        pool = real_create_pool(**kwargs)
        real_close = pool.close

        def close(force=False):
            closed.append(force)
            real_close(force=force)

        pool.close = close
        return pool

    monkeypatch.setattr(oracle.oracledb, "create_pool", recording_create_pool)
    settings = settings_for(free_port())
    start = time.monotonic()
    with pytest.raises(RemoteError, match="DPY-6005") as info:
        with oracle.connect(settings):
            pass
    assert time.monotonic() - start < settings.connect_timeout_s + 1.0
    assert closed == [True]
    assert settings.dsn in str(info.value)
    assert_no_secret(info.value, settings)


@given(st.text(alphabet="xyz09$'-", min_size=1, max_size=12), st.text(alphabet="xyz09$'-", min_size=1, max_size=12))
def test_a_password_that_holds_the_other_leaves_nothing_of_either(password, wallet):
    """The user's and the wallet's passwords in one message (as the HammerDB run's files clean them,
    flashpoc.engines.hammerdb.run.SCRUB_AWK): each is *** whole, whichever holds the other."""
    settings = oracle.OracleSettings(dsn="h:1/s", user="u", password_env=PASSWORD_ENV,
                                     wallet_password_env="FLASHPOC_T_WALLET_PW")
    with pytest.MonkeyPatch.context() as env:
        env.setenv(PASSWORD_ENV, password)
        env.setenv("FLASHPOC_T_WALLET_PW", wallet)
        said = oracle.scrub_secrets(settings, f"user [{password}] wallet [{wallet}] both [{password} {wallet}]")
    assert said == "user [***] wallet [***] both [*** ***]"

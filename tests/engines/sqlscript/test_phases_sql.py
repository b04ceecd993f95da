"""The custom SQL workload: N sessions of a DBA's script between AWR snapshots.

No Oracle server runs here: the database is tests/replay/oracle_replay.py, a REPLAY DOUBLE
answering flashpoc's own SQL files with recorded rows (facts and AWR rows reconstructed from
the real 19c SLOB AWR report, see tests/data/oracle/README.md) and logging the script's
statements per session. The session threads, the barrier, the timing, the snapshot order
and the metrics arithmetic are real; so is the fast failure against a closed port.
"""

from __future__ import annotations

import json
import sys
import time

import pytest

from conftest import DATA, TESTS
from ssh_server import free_port
from flashpoc.core.errors import ParameterError, RemoteError
from flashpoc.params import campaign_from_dict
from flashpoc.jobs.sqlscript.measure import run_sql_workload, sql_run_text, sql_runs_table

sys.path.insert(0, str(TESTS / "replay"))
from oracle_replay import ReplayDatabase  # noqa: E402

SCRIPT = """REM the DBA's insert job
SET TIMING ON
INSERT INTO t1 (id, pad) SELECT level, RPAD('x', 100, 'x') FROM dual CONNECT BY level <= 1000;
BEGIN
  FOR i IN 1 .. 10 LOOP
    INSERT INTO t1 (id, pad) VALUES (i, 'y');
  END LOOP;
END;
/
COMMIT;
EXIT
"""


def sql_campaign(tmp_path, script=SCRIPT, sessions=20, label="undo-on-ssd", oracle=None):
    (tmp_path / "job.sql").write_text(script)
    return campaign_from_dict({
        "campaign": "undo", "engine": "slob", "hosts": [{"name": "db1"}],
        "slob": {"schemas": 1, "scale": "1G"},
        "oracle": oracle or {"dsn": "db1:1521/pdb1", "user": "system"},
        "sql_workload": {"script": "job.sql", "sessions": sessions, "label": label},
        "results_dir": str(tmp_path / "results"),
    })


#: the real AWR report of the recorded snapshot pair (instance 2, snaps 47-48), which the replay
#: double returns for DBMS_WORKLOAD_REPOSITORY.AWR_REPORT_TEXT
AWR_TXT = DATA / "slob" / "slob2.5_19c_rac2node_s256_t1_wu4_update10" / "awr.txt"


def replay(**kwargs) -> ReplayDatabase:
    return ReplayDatabase(DATA / "oracle" / "facts_slob19c_rac2node.json",
                          DATA / "oracle" / "awr_rows_slob19c_rac2node_inst2_snap47_48.json",
                          **{"awr_report": AWR_TXT, **kwargs})


def test_twenty_sessions_between_two_snapshots(tmp_path):
    db = replay(statement_delay_s=0.01)
    cfg = sql_campaign(tmp_path)
    row = run_sql_workload(cfg, connect=db.connect)

    assert row["sessions"] == 20 and row["statements_per_session"] == 3 and row["reused"] is False
    assert row["script"]["verbs"] == {"INSERT": 1, "BEGIN": 1, "COMMIT": 1}
    # every session ran the three statements in script order, then committed
    by_session: dict[int, list[str]] = {}
    for conn, sql, _ in db.log:
        by_session.setdefault(conn, []).append(sql.split()[0])
    script_sessions = {c: s for c, s in by_session.items() if s != ["<login>"]}
    assert len(script_sessions) == 20
    assert all(s == ["<login>", "INSERT", "BEGIN", "COMMIT", "<commit>"] for s in script_sessions.values())
    # all sessions started together: no statement ran before the last session had logged in
    logins = [t for _, sql, t in db.log if sql == "<login>"]
    statements = [t for _, sql, t in db.log if sql != "<login>"]
    assert max(logins) < min(statements)
    # the snapshots bracket the script: begin snapshot, script, end snapshot, then the AWR rows
    names = [name for name, _ in db.queries]
    assert names.index("create_snapshot") < names.index("awr_sysstat")
    assert names.count("create_snapshot") == 2 and row["begin_snap"] == 47 and row["end_snap"] == 48
    assert all(b["begin_snap"] == 47 and b["end_snap"] == 48 and b["instance_number"] == 2
               for n, b in db.queries if n.startswith("awr_"))
    # each session slept 10 ms in each of its 3 statements; the run lasts as long as the slowest
    assert row["session_elapsed_min_s"] >= 3 * 0.01 and row["session_elapsed_max_s"] <= row["elapsed_s"]
    assert round(row["awr_elapsed_s"], 3) == 363.037  # the snapshot interval
    # the metrics of the recorded snapshot interval: the AWR report's printed values
    assert round(row["read_iops"], 1) == 29792.8 and round(row["write_iops"], 1) == 3118.2
    assert round(row["db_file_sequential_read_fg_avg_wait_us"], 2) == 350.19
    assert round(row["log_file_parallel_write_avg_wait_us"] / 1000, 2) == 18.79
    # the Load Profile as awr.txt prints it, per second and per transaction
    assert round(row["redo_bytes_per_s"], 1) == 2944975.9 and round(row["redo_bytes_per_txn"], 1) == 2821.2
    assert round(row["block_changes_per_s"], 1) == 8504.0
    assert round(row["block_changes_per_txn"], 2) == 8.15  # printed 8.2: see tests/data/oracle/README.md
    assert abs(row["physical_write_blocks_per_s"] - 3302.4) <= 0.06  # 3,302.35: see tests/data/oracle/README.md
    assert round(row["physical_write_blocks_per_txn"], 1) == 3.2
    assert round(row["executes_per_s"], 1) == 10439.6 and round(row["executes_per_txn"], 1) == 10.0
    assert round(row["transactions_per_s"], 1) == 1043.9
    # Buffer Wait Statistics as awr.txt prints them (waits, total s, avg ms rounded half up): UNDO first
    assert [(w["class"], w["waits"], round(w["time_s"]), int(w["avg_ms"] + 0.5)) for w in row["buffer_waits"]] == [
        ("undo header", 19, 15, 764), ("file header block", 4, 2, 593), ("data block", 151, 0, 2)]
    # File IO Stats: awr.txt prints "No data exists", so the recorded file rows are none (both views were asked)
    assert row["file_io"] == [] and {"awr_filestatxs", "awr_tempstatxs"} <= {name for name, _ in db.queries}
    assert db.open_connections == 0

    text = sql_run_text(row)
    assert text.startswith("**undo-on-ssd**: 20 sessions x 3 statements took 0 min")
    assert "29,792.8 read and 3,118.2 write IO requests/s, log file parallel write 18.79 ms" in text
    stored = tmp_path / "results" / "undo" / "points" / "sql"
    run_dir = next(stored.iterdir())
    assert (run_dir / "script.sql").read_text() == SCRIPT
    assert (run_dir / "awr_rows.json").exists()
    # the AWR report of the run's snapshot pair, generated by the database through SQL, stored whole
    assert row["awr_report"] == "awr.txt" and row["awr_report_note"] is None
    assert (run_dir / "awr.txt").read_text() == AWR_TXT.read_text()
    assert [b for n, b in db.queries if n == "awr_report_text"] == [
        {"dbid": 1451622190, "instance_number": 2, "begin_snap": 47, "end_snap": 48}]

    again = run_sql_workload(cfg, connect=replay().connect)
    assert again["reused"] is True and again["elapsed_s"] == row["elapsed_s"]
    table = sql_runs_table(cfg)
    assert list(table["label"]) == ["undo-on-ssd"] and table.loc[0, "sessions"] == 20


def test_twenty_sessions_each_create_their_own_table(tmp_path):
    """The seed's job with its own table per session: &session_name and &session are filled
    per session before sending, so the 20 sessions send 20 different CREATE TABLEs (a fixed
    name would make 19 of them fail with ORA-00955)."""
    script = ("CREATE TABLE load_&session_name (id NUMBER, pad VARCHAR2(100));\n"
              "INSERT INTO load_&session_name SELECT level + &session * 1000000, 'x' FROM dual "
              "CONNECT BY level <= 1000;\n"
              "COMMIT;\n")
    db = replay()
    row = run_sql_workload(sql_campaign(tmp_path, script=script), connect=db.connect)
    assert row["sessions"] == 20
    creates = {conn: sql for conn, sql, _ in db.log if sql.startswith("CREATE TABLE")}
    assert len(creates) == 20 and len(set(creates.values())) == 20
    assert sorted(creates.values())[0] == "CREATE TABLE load_S0001 (id NUMBER, pad VARCHAR2(100))"
    assert sorted(creates.values())[-1] == "CREATE TABLE load_S0020 (id NUMBER, pad VARCHAR2(100))"
    inserts = sorted(sql for _, sql, _ in db.log if sql.startswith("INSERT"))
    assert inserts[0].startswith("INSERT INTO load_S0001 SELECT level + 1 * 1000000, 'x'")
    assert not any("&" in sql for _, sql, _ in db.log)
    # the stored script is the DBA's, with its variables
    run_dir = next((tmp_path / "results" / "undo" / "points" / "sql").iterdir())
    assert (run_dir / "script.sql").read_text() == script


def test_without_the_diagnostics_pack_statspack_snapshots_and_stats_rows(tmp_path):
    """control_management_pack_access NONE: no AWR view is touched; Statspack snapshots bracket
    the run and the metrics come from the STATS$ rows. The replay double serves the recorded
    counters with STATS$SNAPSHOT's whole-second snap_time, so the interval is 363 s (AWR:
    363.037 s): rates are the report's totals over 363 s, average waits are the report's."""
    db = replay(pack_access="NONE")
    row = run_sql_workload(sql_campaign(tmp_path, sessions=2), connect=db.connect)
    names = [name for name, _ in db.queries]
    assert names.count("statspack_snapshot") == 2 and "create_snapshot" not in names
    assert not any(n.startswith("awr_") for n in names)
    assert names.index("statspack_snapshot") < names.index("stats_sysstat")
    assert row["snapshots"] == "statspack" and (row["begin_snap"], row["end_snap"]) == (47, 48)
    assert row["awr_elapsed_s"] == 363.0
    # physical read IO requests Total 10,815,881 and write 1,132,021 (awr.txt) over 363 s
    assert round(row["read_iops"], 1) == 29795.8 and round(row["write_iops"], 1) == 3118.5
    assert round(row["db_file_sequential_read_fg_avg_wait_us"], 2) == 350.19
    assert round(row["log_file_parallel_write_avg_wait_us"] / 1000, 2) == 18.79
    assert round(row["db_file_sequential_read_under_1ms_pct"], 1) == 97.8
    # user commits Total 378,968 over 363 s; per transaction as printed (the interval cancels out)
    assert round(row["transactions_per_s"], 1) == 1044.0 and round(row["redo_bytes_per_txn"], 1) == 2821.2
    # STATS$WAITSTAT keeps the same counters: the same buffer waits, undo header first
    assert [(w["class"], w["waits"]) for w in row["buffer_waits"]] == [
        ("undo header", 19), ("file header block", 4), ("data block", 151)]
    assert "Statspack snapshots 47-48: 29,795.8 read and 3,118.5 write IO requests/s" in sql_run_text(row)
    run_dir = next((tmp_path / "results" / "undo" / "points" / "sql").iterdir())
    assert (run_dir / "statspack_rows.json").exists() and not (run_dir / "awr_rows.json").exists()
    # no Diagnostics Pack: no AWR report is asked for, and the run says why
    assert "awr_report_text" not in names and row["awr_report"] is None and not (run_dir / "awr.txt").exists()
    assert row["awr_report_note"].startswith("no AWR report: without the Diagnostics Pack the snapshots are "
                                             "Statspack's, whose report is spreport.sql")


def test_a_report_the_database_refuses_leaves_a_note_and_the_run(tmp_path):
    """No EXECUTE on DBMS_WORKLOAD_REPOSITORY: the run and its AWR rows are stored all the same."""
    db = replay(awr_report=None, report_error="ORA-01031: insufficient privileges")
    row = run_sql_workload(sql_campaign(tmp_path, sessions=2), connect=db.connect)
    assert row["awr_report"] is None and round(row["read_iops"], 1) == 29792.8
    assert row["awr_report_note"] == ("no AWR report: Oracle query sql/awr_report_text.sql failed: "
                                      "ORA-01031: insufficient privileges")
    run_dir = next((tmp_path / "results" / "undo" / "points" / "sql").iterdir())
    assert (run_dir / "awr_rows.json").exists() and not (run_dir / "awr.txt").exists()


def test_a_failing_statement_names_the_session_and_line_and_stores_nothing(tmp_path):
    db = replay(fail_on={"BEGIN": "ORA-01653: unable to extend table T1 by 128 in tablespace USERS"})
    cfg = sql_campaign(tmp_path, sessions=3)
    with pytest.raises(RemoteError) as error:
        run_sql_workload(cfg, connect=db.connect)
    message = str(error.value)
    assert "3 of 3 session(s) failed (snapshots 47-48)" in message
    assert "script line 4 (BEGIN): ORA-01653: unable to extend table T1" in message
    points = tmp_path / "results" / "undo" / "points"
    assert not list(points.glob("*/*/point.json"))
    (kept,) = (points / "failed").iterdir()  # the script and each session's outcome kept, and named
    assert message.endswith(f" (the run's files: {kept})")
    assert (kept / "script.sql").read_text() == (tmp_path / "job.sql").read_text()
    sessions = json.loads((kept / "sessions.json").read_text())
    assert len(sessions) == 3 and all("ORA-01653: unable to extend table T1" in s["error"] for s in sessions)


def test_a_session_that_cannot_log_in_stops_the_run_before_any_statement(tmp_path):
    db = replay(refuse_logins_after=3)  # the main connection + 2 sessions only
    cfg = sql_campaign(tmp_path, sessions=4)
    with pytest.raises(RemoteError, match="the sessions could not all start: session"):
        run_sql_workload(cfg, connect=db.connect)
    assert [sql for _, sql, _ in db.log if sql != "<login>"] == []  # no statement ran


def test_an_include_in_the_script_is_refused_before_connecting(tmp_path):
    db = replay()
    cfg = sql_campaign(tmp_path, script="@create_tables.sql\nCOMMIT;\n")
    with pytest.raises(ParameterError, match="job.sql line 1"):
        run_sql_workload(cfg, connect=db.connect)
    assert db.queries == []


def test_closed_port_fails_fast_and_names_the_dsn(tmp_path, monkeypatch):
    monkeypatch.setenv("FLASHPOC_ORACLE_PASSWORD", "not-the-real-one")
    port = free_port()
    cfg = sql_campaign(tmp_path, oracle={"dsn": f"127.0.0.1:{port}/pdb1", "user": "system", "connect_timeout_s": 2})
    start = time.perf_counter()
    with pytest.raises(RemoteError, match=f"127.0.0.1:{port}/pdb1") as error:
        run_sql_workload(cfg)
    assert time.perf_counter() - start < 10 and "not-the-real-one" not in str(error.value)


def test_sql_workload_needs_oracle(tmp_path):
    with pytest.raises(ParameterError, match="sql_workload: needs oracle"):
        campaign_from_dict({"campaign": "x", "engine": "slob", "hosts": [{"name": "db1"}],
                            "slob": {"schemas": 1, "scale": "1G"},
                            "sql_workload": {"script": "job.sql", "sessions": 2}})

"""Oracle REPLAY DOUBLE for tests: not a database; it serves recorded rows.

No Oracle server can run here. :class:`ReplayDatabase` stands in for
:func:`flashpoc.oracle.db.connect`: its connections answer flashpoc's own SQL files
(recognised by their exact text, :func:`flashpoc.oracle.db.load_sql`) from recordings:

* ``facts_*``: the rows behind a recorded facts dict (tests/data/oracle/facts_*.json, see
  the README there), laid out as each SQL file's columns;
* ``create_snapshot`` / ``statspack_snapshot``: the recorded snapshot ids, in order;
* ``awr_*``: the recorded AWR rows (tests/data/oracle/awr_rows_*.json);
* ``awr_report_text``: the lines of a real AWR text report given as ``awr_report`` (the report
  of the recorded snapshot pair: tests/data/slob/.../awr.txt), one row per line as
  ``DBMS_WORKLOAD_REPOSITORY.AWR_REPORT_TEXT`` returns them; without one, the driver's error
  with the message ``report_error`` (what a database refusing the report would answer);
* ``awr_report_html``: likewise, the lines of a real AWR HTML report given as ``awr_report_html``
  (the HTML rendering of the same report, tests/data/slob/.../awr.html.gz);
* ``dbstat_sample``: the next of the recorded samples of GV$SYSSTAT / GV$SYSTEM_EVENT given as
  ``dbstat_samples`` (tests/data/oracle/dbstat_samples_*.json: one row per sample and instance),
  one row per instance as the query's GROUP BY inst_id gives them (``dbstat_instances`` keeps
  some instances only: a database of those); once every sample has been served, the driver's
  error. ``dbstat_failure=(n, message[, exception type])`` answers sample n + 1 with that error
  (default the driver's) instead. ``dbstat_done``, a path, is created when no further sample
  will be served (a test's runit.sh replay waits for it, so that the run lasts as long as the
  recorded samples). ``dbstat_hold=(n, event)`` creates it once n samples are served instead, and
  holds every later sample until the test sets ``event``; a connection's ``call_timeout`` (ms)
  ends a held sample first with the driver's own error (DPY-4024), as python-oracledb does with a
  round trip that takes longer, unless ``dbstat_stall`` (a stall no call timeout ends);
* ``stats_*`` (Statspack): the same recorded rows, the way the STATS$ tables hold them:
  ``STATS$SNAPSHOT.snap_time`` is a DATE, so the snapshot times lose their fraction of a
  second, and there is no ``begin_interval_time``. Statspack keeps the same cumulative
  counters (STATS$SYSSTAT, STATS$SYSTEM_EVENT with its ``_fg`` columns, ...) as AWR.

Logins and any other statement (the DBA's script) are logged per connection with the
time they were executed and returns no rows; ``fail_on`` makes a statement containing a text raise the
driver's error type with the message the test gives. Nothing else is answered: an unknown
flashpoc query raises.
"""

from __future__ import annotations

import contextlib
import gzip
import itertools
import json
import threading
import time
from datetime import datetime
from pathlib import Path

import oracledb
from oracledb import errors as driver_errors

from flashpoc.core.errors import RemoteError
from flashpoc.oracle.db import load_sql

HOLD_LIMIT_S = 120
"""Seconds a held sample waits for its test's event at most (a test that never releases it fails)."""
SQL_FILES = sorted(p.stem for p in (Path(__file__).resolve().parents[2] / "lib" / "flashpoc" / "sql").glob("*.sql"))


def _facts_rows(facts: dict) -> dict[str, list[dict]]:
    instance = {k: facts[k] for k in ("version", "instance_name", "instance_number", "host_name", "instance_count",
                                      "dbid", "db_name", "con_name")}
    instance["cdb"] = "YES" if facts["cdb"] else "NO"
    parameters = dict(facts["parameters"])
    if facts.get("diagnostics_pack") and parameters.get("control_management_pack_access") is None:
        parameters["control_management_pack_access"] = "DIAGNOSTIC+TUNING"  # what "AWR in use" needs
    return {
        "facts_instance": [instance],
        "facts_parameters": [{"name": k, "value": v} for k, v in parameters.items() if v is not None],
        "facts_dnfs": [{"dnfs_server_count": facts["dnfs_server_count"]}],
        "facts_asm": facts["asm_diskgroups"],
        "facts_slob_schemas": facts["slob_schemas"],
        # the storage facts a recording may hold (none: no Direct NFS, no ASM disks, no file names recorded)
        "facts_dnfs_servers": facts.get("dnfs_servers") or [],
        "facts_dnfs_channels": facts.get("dnfs_channels") or [],
        "facts_asm_disks": facts.get("asm_disks") or [],
        "facts_datafiles": [{"name": name} for name in facts.get("datafile_names") or []],
    }


def _dbstat_answers(path: Path, instances: tuple[int, ...] | None) -> list[list[dict]]:
    """The rows sql/dbstat_sample.sql answers per recorded sample: one per instance (those of
    ``instances``, default all), in inst_id order, with the sample's clock and epoch."""
    answers: dict[int, list[dict]] = {}
    for row in json.loads(path.read_text()):
        if instances is None or row["inst_id"] in instances:
            answers.setdefault(row["sample"], []).append({k: v for k, v in row.items() if k != "sample"})
    return [sorted(answers[n], key=lambda row: row["inst_id"]) for n in sorted(answers)]


class ReplayDatabase:
    """The recorded database; :meth:`connect` replaces :func:`flashpoc.oracle.db.connect`."""

    def __init__(self, facts_file: Path, awr_rows_file: Path, *, statement_delay_s: float = 0.0,
                 fail_on: dict[str, str] | None = None, refuse_logins_after: int | None = None,
                 pack_access: str | None = None, storage: dict | None = None, calibrate_io_file: Path | None = None,
                 awr_report: Path | None = None, report_error: str = "ORA-01031: insufficient privileges",
                 awr_report_html: Path | None = None, dbstat_samples: Path | None = None,
                 dbstat_instances: tuple[int, ...] | None = None, dbstat_failure: tuple[int, str] | None = None,
                 dbstat_done: Path | None = None, dbstat_hold: tuple[int, threading.Event] | None = None,
                 dbstat_stall: bool = False):
        """``pack_access`` replaces the recorded ``control_management_pack_access`` (``"NONE"``:
        a site without the Diagnostics Pack, which flashpoc serves with Statspack); ``storage``
        adds recorded storage rows to the facts (``dnfs_servers``, ``dnfs_channels``,
        ``asm_disks``); ``calibrate_io_file`` is a recorded CALIBRATE_IO run (its out values and
        the DBA_RSRC_IO_CALIBRATE row), without which a calibration is refused."""
        rows = json.loads(awr_rows_file.read_text())
        facts = {**json.loads(facts_file.read_text()), **(storage or {})}
        self.calibration = json.loads(calibrate_io_file.read_text()) if calibrate_io_file else None
        if pack_access is not None:
            facts["parameters"]["control_management_pack_access"] = pack_access
            facts["diagnostics_pack"] = "DIAGNOSTIC" in pack_access
        for row in rows["snapshot"]:
            for key in ("startup_time", "begin_interval_time", "end_interval_time"):
                row[key] = datetime.fromisoformat(row[key])
        self.answers = {**_facts_rows(facts),
                        **{f"awr_{table}": items for table, items in rows.items()},
                        **{f"stats_{table}": items for table, items in rows.items()}}
        self.answers["stats_snapshot"] = [
            {**row, "begin_interval_time": None, "end_interval_time": row["end_interval_time"].replace(microsecond=0)}
            for row in rows["snapshot"]]
        for name, report in (("awr_report_text", awr_report), ("awr_report_html", awr_report_html)):
            if report is not None:
                text = gzip.decompress(report.read_bytes()).decode() if report.suffix == ".gz" else report.read_text()
                lines = text.removesuffix("\n").split("\n")  # its form feeds stay in their lines
                self.answers[name] = [{"output": line} for line in lines]
        self.report_error = report_error
        self.dbstat = _dbstat_answers(dbstat_samples, dbstat_instances) if dbstat_samples else []
        self.dbstat_served = 0
        self.dbstat_failure, self.dbstat_done = dbstat_failure, dbstat_done
        self.dbstat_hold, self.dbstat_stall = dbstat_hold, dbstat_stall
        self.connections: list[_Connection] = []
        self.snap_ids = iter(sorted({r["snap_id"] for r in rows["snapshot"]}))
        self.by_text = {load_sql(name): name for name in SQL_FILES}
        self.statement_delay_s = statement_delay_s
        self.fail_on = fail_on or {}
        self.refuse_logins_after = refuse_logins_after
        self.log: list[tuple[int, str, float]] = []  # (connection, statement, time)
        self.queries: list[tuple[str, dict]] = []
        self.lock = threading.Lock()
        self._numbers = itertools.count(1)
        self.open_connections = 0

    def next_dbstat_sample(self, call_timeout_ms: int) -> list[dict]:
        """The answer to sql/dbstat_sample.sql: the next recorded sample, or the driver's error."""
        limit = len(self.dbstat) if self.dbstat_failure is None else min(len(self.dbstat), self.dbstat_failure[0])
        with self.lock:
            served = self.dbstat_served
            done_at = limit if self.dbstat_hold is None else min(limit, self.dbstat_hold[0])
            if served + 1 >= done_at and self.dbstat_done is not None:
                self.dbstat_done.touch()  # the last sample served before the run may end
        if self.dbstat_hold is not None and served >= self.dbstat_hold[0]:
            self._hold(call_timeout_ms)
        with self.lock:
            served = self.dbstat_served
            if served >= limit:
                failing = self.dbstat_failure is not None and served >= self.dbstat_failure[0]
                error = self.dbstat_failure[2] if failing and len(self.dbstat_failure) > 2 else oracledb.DatabaseError
                raise error(self.dbstat_failure[1] if failing else "replay double: every recorded sample has been served")
            self.dbstat_served += 1
            return self.dbstat[served]

    def _hold(self, call_timeout_ms: int) -> None:
        """Hold a sample until the test's event; a call timeout first raises the driver's own error."""
        timeout_s = call_timeout_ms / 1000 if call_timeout_ms and not self.dbstat_stall else HOLD_LIMIT_S
        if not self.dbstat_hold[1].wait(timeout_s):
            if timeout_s == HOLD_LIMIT_S:
                raise oracledb.DatabaseError(f"replay double: a held sample was not released within {HOLD_LIMIT_S} s")
            driver_errors._raise_err(driver_errors.ERR_CALL_TIMEOUT_EXCEEDED, timeout=call_timeout_ms)

    @contextlib.contextmanager
    def connect(self, settings):
        number = next(self._numbers)
        if self.refuse_logins_after is not None and number > self.refuse_logins_after:
            raise RemoteError(f"Oracle {settings.user}@{settings.dsn}: cannot connect: (replay double refuses "
                              f"login {number})")
        with self.lock:
            self.open_connections += 1
            self.log.append((number, "<login>", time.perf_counter()))
        conn = _Connection(self, number)
        with self.lock:
            self.connections.append(conn)
        try:
            yield conn
        finally:
            with self.lock:
                self.open_connections -= 1


class _Var:
    def __init__(self):
        self.value = None

    def getvalue(self):
        return self.value


class _Connection:
    def __init__(self, db: ReplayDatabase, number: int):
        self.db, self.number, self.commits = db, number, 0
        self.call_timeout = 0  # ms, as python-oracledb's Connection.call_timeout (0: none)

    def cursor(self):
        return _Cursor(self)

    def commit(self):
        self.commits += 1
        with self.db.lock:
            self.db.log.append((self.number, "<commit>", time.perf_counter()))


class _Cursor:
    def __init__(self, conn: _Connection):
        self.conn, self.description, self._rows = conn, None, []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def var(self, typ):
        return _Var()

    def execute(self, sql, binds=None):
        db = self.conn.db
        name = db.by_text.get(sql)
        if name is None:  # the DBA's script
            for marker, message in db.fail_on.items():
                if marker in sql:
                    raise oracledb.DatabaseError(message)
            if db.statement_delay_s:
                time.sleep(db.statement_delay_s)
            with db.lock:
                db.log.append((self.conn.number, sql, time.perf_counter()))
            return
        with db.lock:
            db.queries.append((name, dict(binds or {})))
        if name in ("create_snapshot", "statspack_snapshot"):
            binds["snap_id"].value = next(db.snap_ids)
            return
        if name == "calibrate_io":
            if db.calibration is None:
                raise oracledb.DatabaseError("replay double: no CALIBRATE_IO run recorded")
            for out in ("max_iops", "max_mbps", "actual_latency"):
                binds[out].value = db.calibration[out]
            return
        if name == "calibrate_io_status":
            rows = [db.calibration["dba_rsrc_io_calibrate"]] if db.calibration else []
            columns = list(rows[0]) if rows else ["none"]
            self.description = [(c.upper(),) for c in columns]
            self._rows = [tuple(r.get(c) for c in columns) for r in rows]
            return
        if name == "dbstat_sample":
            rows = db.next_dbstat_sample(self.conn.call_timeout)
            self.description = [(c.upper(),) for c in rows[0]]
            self._rows = [tuple(row.values()) for row in rows]
            return
        if name in ("awr_report_text", "awr_report_html") and name not in db.answers:
            raise oracledb.DatabaseError(db.report_error)
        rows = db.answers[name]
        if name.startswith(("awr_", "stats_")) and name not in ("awr_snapshot", "stats_snapshot"):
            rows = [r for r in rows if r.get("instance_number", binds["instance_number"]) == binds["instance_number"]]
        columns = list(rows[0]) if rows else ["none"]
        self.description = [(c.upper(),) for c in columns]
        self._rows = [tuple(r.get(c) for c in columns) for r in rows]

    def fetchall(self):
        return self._rows

"""HammerDB on Oracle: the AWR snapshot pair HammerDB's timed driver prints, and AWR's metrics
between those snapshots in the point's row (as SLOB's points have them), the storage latency next
to NOPM in the report.

No Oracle database runs here. HammerDB's Oracle lines are its v6.0 format strings (src/oracle/
oraoltp.tcl, quoted in the shared fixtures' ORACLE_NOTES.md) with the snapshot ids, instance and
dbid of a real recorded AWR interval put in; the database is the Oracle REPLAY DOUBLE
(tests/replay/oracle_replay.py) serving that interval's real DBA_HIST rows (a SLOB run on 19c RAC,
instance 2, snapshots 47-48). Every AWR number asserted is the one its AWR report printed."""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import pytest

from conftest import DATA, TESTS
sys.path.insert(0, str(TESTS / "replay"))
from oracle_replay import ReplayDatabase  # noqa: E402

from flashpoc.present.chart import draw, themed_spec  # noqa: E402
from flashpoc.engines.hammerdb.awr import ROWS_FILE, read_awr_rows, snapshot_pair  # noqa: E402
from flashpoc.engines.hammerdb.compare import comparison_table  # noqa: E402
from flashpoc.engines.hammerdb.metrics import read_run  # noqa: E402
from flashpoc.engines.hammerdb.parse import parse_files  # noqa: E402
from flashpoc.engines.hammerdb.report import points_table, storage_latency_vs_nopm  # noqa: E402
from flashpoc.core.errors import ParseError  # noqa: E402
from flashpoc.params import OracleParams  # noqa: E402

FACTS = DATA / "oracle" / "facts_slob19c_rac2node.json"
ROWS = DATA / "oracle" / "awr_rows_slob19c_rac2node_inst2_snap47_48.json"

# HammerDB's Oracle timed driver's lines (format strings of oraoltp.tcl), numbers put in: the
# recorded interval's snapshots (47, 48), instance p30sdb2 (2) of P30SDB (1451622190)
ORACLE_LOG = """Hammerdb Log @ Mon Feb 17 09:18:00 UTC 2020
+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-
Vuser 1:DBVersion:19.0.0.0.0
Vuser 1:Beginning rampup time of 2 minutes
Vuser 1:Rampup 1 minutes complete ...
Vuser 1:Rampup 2 minutes complete ...
Vuser 1:Rampup complete, Taking start AWR snapshot.
Vuser 1:Start Snapshot 47 taken at 17 FEB 2020 09:26 of instance p30sdb2 (2) of database P30SDB (1451622190)
Vuser 1:Timing test period of 6 in minutes
Vuser 1:1 ...,
Vuser 1:Test complete, Taking end AWR snapshot.
Vuser 1:End Snapshot 48 taken at 17 FEB 2020 09:32 of instance p30sdb2 (2) of database P30SDB (1451622190)
Vuser 1:Test complete: view report from SNAPID  47 to 48
Vuser 1:{users} Active Virtual Users configured
Vuser 1:TEST RESULT : System achieved {nopm} NOPM from {tpm} Oracle TPM
"""
ORACLE = OracleParams(dsn="db1:1521/p30sdb", user="system")


def _run_dir(tmp_path: Path, name: str, users: int, nopm: int, tpm: int, *, connect) -> Path:
    """A run's files as the engine stores them: HammerDB's log, and AWR's rows read between its snapshots."""
    files = {"hammerdb.log": ORACLE_LOG.format(users=users, nopm=nopm, tpm=tpm)}
    pair = snapshot_pair(parse_files(files).snapshots)
    awr, note = read_awr_rows(ORACLE, pair, connect=connect)
    assert note is None and set(awr) == {ROWS_FILE}
    folder = tmp_path / name
    folder.mkdir()
    for file, text in {**files, **awr}.items():
        (folder / file).write_text(text)
    return folder


def test_the_snapshot_pair_and_awr_metrics_in_the_row(tmp_path):
    db = ReplayDatabase(FACTS, ROWS)
    _, row, _ = read_run(_run_dir(tmp_path, "run", 96, 250123, 575000, connect=db.connect))
    assert (row["nopm"], row["tpm"], row["virtual_users"], row["database"]) == (250123, 575000, 96, "Oracle")
    assert {k: row[k] for k in ("awr_begin_snap", "awr_end_snap", "awr_dbid", "awr_instance",
                                "awr_instance_number", "awr_begin_time", "awr_end_time")} == {
        "awr_begin_snap": 47, "awr_end_snap": 48, "awr_dbid": 1451622190, "awr_instance": "p30sdb2",
        "awr_instance_number": 2, "awr_begin_time": "17 FEB 2020 09:26", "awr_end_time": "17 FEB 2020 09:32"}
    # the AWR report of snapshots 47-48 (instance 2) prints: Load Profile "Read IO requests" 29,792.8,
    # "Write IO requests" 3,118.2, "Read IO (MB)" 232.8, "DB CPU(s)" 7.6; Background Wait Events
    # log file parallel write 18.79 ms; Host CPU %Idle 83.0 (busy 17.0); Elapsed 6.05 min
    assert (round(row["read_iops"], 1), round(row["write_iops"], 1), round(row["read_mibps"], 1)) == (
        29792.8, 3118.2, 232.8)
    assert round(row["db_cpu_s_per_s"], 1) == 7.6
    assert round(row["log_file_parallel_write_avg_wait_us"] / 1000, 2) == 18.79
    assert row["db_file_sequential_read_avg_wait_us"] == pytest.approx(350.24, abs=0.005)
    assert round(row["db_host_cpu_busy_pct"], 1) == 17.0  # the database host's, from AWR
    assert row["host_cpu_busy_pct"] is None  # the load host's is apart (no samples in these files)
    assert round(row["awr_elapsed_s"] / 60, 2) == 6.05
    queried = [name for name, _ in db.queries]
    assert queried and all(name.startswith("awr_") for name in queried)


def test_a_point_keeps_hammerdb_numbers_when_awr_cannot_be_read():
    pair = snapshot_pair(parse_files({"hammerdb.log": ORACLE_LOG.format(users=8, nopm=1, tpm=2)}).snapshots)
    files, note = read_awr_rows(None, pair)
    assert files == {} and note.startswith("no AWR metrics: the campaign has no oracle block")
    refusing = ReplayDatabase(FACTS, ROWS, refuse_logins_after=0)
    files, note = read_awr_rows(ORACLE, pair, connect=refusing.connect)
    assert files == {} and note.startswith("no AWR metrics: Oracle system@db1:1521/p30sdb: cannot connect")
    assert read_awr_rows(ORACLE, {}) == ({}, None)  # PostgreSQL: no snapshots, nothing read


def test_snapshot_lines_that_make_no_pair_are_refused():
    log = ORACLE_LOG.format(users=8, nopm=1, tpm=2)
    snapshots = parse_files({"hammerdb.log": log}).snapshots
    with pytest.raises(ParseError, match="not one Start and one End"):
        snapshot_pair(snapshots[:1])
    other = parse_files({"hammerdb.log": log.replace("(2) of database P30SDB (1451622190)\nVuser 1:Test complete:",
                                                     "(1) of database P30SDB (1451622190)\nVuser 1:Test complete:")})
    with pytest.raises(ParseError, match="do not make a pair"):
        snapshot_pair(other.snapshots)
    assert snapshot_pair(()) == {}


def test_storage_latency_next_to_nopm_in_the_report(tmp_path):
    db = ReplayDatabase(FACTS, ROWS)
    _, row, _ = read_run(_run_dir(tmp_path, "run", 96, 250123, 575000, connect=db.connect))
    points = pd.DataFrame([{**row, "threads": 96, "workload": "tprocc"}])
    table = points_table(points)
    assert list(table[["NOPM", "Read IOPS (AWR)", "Write IOPS (AWR)", "db file sequential read (ms)",
                       "log file parallel write (ms)", "DB host CPU (%, AWR)"]].iloc[0]) == [
        "250,123", "29,793", "3,118", "0.350", "18.8", "17.0"]
    spec = themed_spec(draw(storage_latency_vs_nopm(points)))
    assert (spec["encoding"]["x"]["title"], spec["encoding"]["y"]["title"]) == (
        "NOPM (new orders per minute)", "Average wait (ms, AWR)")
    drawn = {r["event"]: (r["nopm"], round(r["wait_ms"], 2)) for r in spec["datasets"][spec["data"]["name"]]}
    assert drawn == {"db file sequential read": (250123, 0.35), "log file parallel write": (250123, 18.79)}


def test_awr_measures_in_the_comparison(tmp_path):
    """Two configurations on the same recorded AWR interval (only HammerDB's numbers differ): the
    storage measures appear at equal users, equal where the interval is the same."""
    db = ReplayDatabase(FACTS, ROWS)
    rows = []
    for config, nopm in (("iscsi", 200000), ("nvmeof", 250123)):
        _, row, _ = read_run(_run_dir(tmp_path, config, 96, nopm, 575000, connect=db.connect))
        rows.append({**row, "threads": 96, "workload": "tprocc", "config": config})
    table = comparison_table(pd.DataFrame(rows))
    at = table[table["at"] == "96 virtual users"].set_index("metric")
    assert {"Read IOPS (AWR)", "Write IOPS (AWR)", "Read MiB/s (AWR)", "db file sequential read (AWR)",
            "log file parallel write (AWR)", "Database host CPU (AWR)"} <= set(at.index)
    assert round(at.loc["Read IOPS (AWR)", "baseline_value"], 1) == 29792.8 and at.loc["Read IOPS (AWR)", "delta"] == 0
    assert at.loc["NOPM", "delta_pct"] == pytest.approx((250123 - 200000) / 200000 * 100)

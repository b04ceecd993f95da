"""A SLOB run of ``database_statistics_type statspack``: runit.sh leaves statspack.txt and no AWR report.

No real SLOB run with Statspack was found: the run directory here pairs a real Statspack report
(tests/data/awr/11.2.0.4_single_prod_statspack.txt.gz, a production database's, see its PROVENANCE.md)
with the files of a real SLOB run (tests/data/slob/slob2.5_19c_rac2node_s256_t1_wu4_update10: tm.out,
mpstat.out, iostat.out, vmstat.out) in SLOB's layout. The numbers asserted are the report's, and tm.out's.
"""

from __future__ import annotations

import gzip
import json
from datetime import datetime

import pytest

from conftest import DATA
from flashpoc.engines.slob.measure import _read_point
from flashpoc.engines.slob.parse import point_wait_histogram, read_slob_run
from flashpoc.core.errors import ParseError
from flashpoc.oracle.metrics import compute_awr_metrics
from flashpoc.params import campaign_from_dict

SLOB_RUN = DATA / "slob" / "slob2.5_19c_rac2node_s256_t1_wu4_update10"
STATSPACK = DATA / "awr" / "11.2.0.4_single_prod_statspack.txt.gz"


def statspack_run() -> dict[str, bytes]:
    files = {name: (SLOB_RUN / name).read_bytes() for name in ("tm.out", "mpstat.out", "iostat.out", "vmstat.out")}
    return {**files, "statspack.txt": gzip.decompress(STATSPACK.read_bytes())}


def test_a_run_with_statspack_only_is_read_from_statspack_txt():
    metrics, intervals = read_slob_run(statspack_run())
    assert metrics["scope"] == "instance (Statspack report)" and metrics["awr_report"] == "statspack.txt"
    assert metrics["awr_rac_report"] is None and metrics["db_name"] == "IGT" and metrics["instances"] == 1
    # Instance Activity Stats per Second: "physical read IO requests 356,928 4.1", "physical write IO requests
    # 106,181 1.2"; Time Model "DB CPU 1,186.7 192.1"; Host CPU "... 98.56 ..."; tm.out "Tm 364"
    assert (metrics["read_iops"], metrics["write_iops"], metrics["iops"]) == (4.1, 1.2, 5.3)
    assert metrics["db_cpu_pct_of_db_time"] == 192.1 and metrics["host_cpu_idle_pct"] == 98.56
    assert metrics["tm_s"] == 364
    # the report's window (31-Jan-16 00:00:03 to 01-Feb-16 00:00:02) crosses midnight: no mpstat or iostat
    # figures are taken for it rather than a guessed day
    assert "mpstat_usr_pct" not in metrics and intervals == []


def test_a_whole_millisecond_latency_is_not_stored_as_one():
    """Foreground "db file sequential read  121,513  0  1  0" prints its average as 0 whole ms (under
    0.5 ms, 1 s of waits: too little to compute a finer one): the point stores no latency, and says why."""
    metrics, _ = read_slob_run(statspack_run())
    assert metrics["latency_event"] == "db file sequential read" and metrics["lat_mean_ms"] is None
    assert metrics["db_file_sequential_read_avg_wait_us"] is None
    assert metrics["log_file_parallel_write_avg_wait_us"] is None
    assert metrics["latency_note"] == (
        "the Statspack report prints average waits in whole milliseconds (db file sequential read 0 ms, db file "
        "scattered read 0 ms, log file sync 0 ms, log file parallel write 0 ms, db file parallel write 0 ms; a 0 is "
        "under 0.5 ms, a 1 from 0.5 to 1.5 ms): too coarse for a latency, none is stored for them")


def test_with_oracle_the_snapshot_rows_give_the_latency_a_statspack_report_prints_in_whole_ms(tmp_path):
    """With ``oracle:`` the point's snapshot rows (here the real DBA_HIST rows of tests/data/oracle, instance 2
    of the 19c RAC run: another database than the report's, paired only to read both) give the exact
    averages: db file sequential read 350.19 us, log file parallel write 18.79 ms (as that run's AWR report
    prints them); db file scattered read, which the rows' metrics lack, is stored as none."""
    cfg = campaign_from_dict({"campaign": "slob", "engine": "slob", "results_dir": str(tmp_path / "results"),
                              "hosts": [{"name": "db1", "address": "localhost", "workdir": str(tmp_path / "work")}],
                              "slob": {"home": str(tmp_path / "SLOB"), "schemas": 256, "scale": "32768",
                                       "workloads": [{"name": "slob-9010", "update_pct": 10}]}})
    rows = json.loads((DATA / "oracle" / "awr_rows_slob19c_rac2node_inst2_snap47_48.json").read_text())
    for snapshot in rows["snapshot"]:
        for key in ("startup_time", "begin_interval_time", "end_interval_time"):
            snapshot[key] = datetime.fromisoformat(snapshot[key])
    metrics, _ = _read_point(cfg, statspack_run(), {**compute_awr_metrics(rows, 47, 48), "snapshots": "awr"})
    assert metrics["scope"] == "instance (Statspack report)" and metrics["read_iops"] == 4.1  # the report's
    assert round(metrics["lat_mean_ms"] * 1000, 2) == 350.19
    assert round(metrics["db_file_sequential_read_avg_wait_us"], 2) == 350.19
    assert round(metrics["log_file_parallel_write_avg_wait_us"] / 1000, 2) == 18.79
    assert metrics["db_file_scattered_read_avg_wait_us"] is None
    assert metrics["latency_note"].endswith(
        "too coarse for a latency, the snapshot rows' exact averages (instance (DBA_HIST), the sql_* columns) "
        "stand for db file sequential read, log file sync, log file parallel write, db file parallel write; none is "
        "stored for db file scattered read")


def test_the_statspack_histogram_of_a_run():
    # "db file sequential read     237K 100.0" (the other buckets blank: "null is truly 0")
    buckets = point_wait_histogram(statspack_run(), "db file sequential read")
    assert [(b["bucket"], b["share_pct"]) for b in buckets] == [("<1ms", 100.0), ("1-2ms", 0.0), ("2-4ms", 0.0),
                                                                ("4-8ms", 0.0), ("8-16ms", 0.0), ("16-32ms", 0.0),
                                                                (">=32ms", 0.0)]
    assert {b["section"] for b in buckets} == {"Wait Event Histogram"}


def test_an_awr_report_is_read_before_statspack_txt():
    files = {**statspack_run(), "awr.txt": (SLOB_RUN / "awr.txt").read_bytes()}
    metrics, _ = read_slob_run(files)
    assert metrics["awr_report"] == "awr.txt" and metrics["scope"] == "instance"


def test_a_run_without_either_report_says_so():
    files = statspack_run()
    del files["statspack.txt"]
    with pytest.raises(ParseError, match="no AWR report .* nor statspack.txt"):
        read_slob_run(files)

"""The time series of a SLOB run that left no report: its window from the snapshot rows kept with the point
(tests/data/oracle/awr_rows_slob19c_rac2node_inst2_snap47_48.json, the rows recorded from the real run's
instance 2 report; tests/data/oracle/README.md says what they hold). A dNFS point through the replay
doubles: tests/engines/slob/test_phases_slob.py."""

from __future__ import annotations

import json

from conftest import DATA
from flashpoc.engines.slob.parse import INTERVAL_SOURCES, read_slob_run, read_sql_run_series

RUN = DATA / "slob" / "slob2.5_19c_rac2node_s256_t1_wu4_update10"
ROWS = (DATA / "oracle" / "awr_rows_slob19c_rac2node_inst2_snap47_48.json").read_text()


def test_the_snapshot_rows_give_the_window_the_report_gives():
    # snaps 47 and 48 end at 09:26:07.000 and 09:32:10.037; the report's Snap Time prints 09:26:07 and 09:32:10
    iostat = (RUN / "iostat.out").read_bytes()
    _, from_report = read_slob_run({"awr.txt": (RUN / "awr.txt").read_bytes(), "iostat.out": iostat})
    series, intervals = read_sql_run_series({"awr_rows.json": ROWS, "iostat.out": iostat}, 47, 48)
    assert series == {"intervals_source": INTERVAL_SOURCES["local"]}
    assert intervals == from_report and sum(not r["warmup"] for r in intervals) == 121


def test_without_the_snapshot_times_the_series_is_lost_with_its_reason():
    iostat = (RUN / "iostat.out").read_bytes()
    series, intervals = read_sql_run_series({"iostat.out": iostat}, 47, 48)
    assert intervals == [] and series["intervals_error"] == (
        "the run left no report and no snapshot rows (awr_rows.json, statspack_rows.json): its time series has no "
        "window")
    rows = json.loads(ROWS)
    rows["snapshot"] = [r for r in rows["snapshot"] if r["snap_id"] != 48]
    series, intervals = read_sql_run_series({"statspack_rows.json": json.dumps(rows), "iostat.out": iostat}, 47, 48)
    assert intervals == [] and series["intervals_error"] == (
        "statspack_rows.json: no snapshot row of snap 48: its time series has no window")
    rows["snapshot"] = [{**rows["snapshot"][0], "end_interval_time": "yesterday"}]
    series, _ = read_sql_run_series({"awr_rows.json": json.dumps(rows), "iostat.out": iostat}, 47, 48)
    assert series["intervals_error"].startswith("awr_rows.json: the snapshots' end_interval_time cannot be read")

"""The database's own counters sampled during a run (dbstat.json) and the per-interval series of a
SLOB point whose datafiles are on Direct NFS.

No Oracle server runs here: the samples are answered by the Oracle REPLAY DOUBLE
(tests/replay/oracle_replay.py) through the real query function, from the per-instance counters
reconstructed from the real 19c RAC SLOB run (tests/data/oracle/README.md, "Recorded samples of
the database's counters", says which values the AWR reports print and which are reconstructed).
Every expected figure is read from the reports themselves.
"""

from __future__ import annotations

import json
import re
import sys
from decimal import Decimal

import pytest

from conftest import DATA, TESTS
from flashpoc.engines.slob.parse import CLUSTER_SCOPE, INTERVAL_SOURCES, read_slob_run
from flashpoc.core.errors import ParseError
from flashpoc.oracle.dbstat import DBSTAT_FILE, dbstat_intervals, live_interval, read_samples, samples_text
from flashpoc.oracle import db as oracle

sys.path.insert(0, str(TESTS / "replay"))
from oracle_replay import ReplayDatabase  # noqa: E402

SLOB_RUN = DATA / "slob" / "slob2.5_19c_rac2node_s256_t1_wu4_update10"  # AWR window 09:26:07 - 09:32:10
SAMPLES = DATA / "oracle" / "dbstat_samples_slob19c_rac2node_snap47_48.json"
SETTINGS = oracle.OracleSettings(dsn="db1:1521/p30sdb", user="system")


def sampled(instances: tuple[int, ...] | None = None) -> list[dict]:
    """Every recorded sample, each taken by sql/dbstat_sample.sql on the replay double."""
    db = ReplayDatabase(DATA / "oracle" / "facts_slob19c_rac2node.json",
                        DATA / "oracle" / "awr_rows_slob19c_rac2node_inst2_snap47_48.json",
                        dbstat_samples=SAMPLES, dbstat_instances=instances)
    with db.connect(SETTINGS) as conn:
        return [oracle.dbstat_sample(conn) for _ in range(len(db.dbstat))]


def series(instance: int | None = None) -> list[dict]:
    """The series of both instances' samples: ``instance``'s, or (None) the cluster's."""
    return dbstat_intervals(samples_text(sampled(), 3, None), "09:26:07", "09:32:10", instance)


def measured(rows: list[dict]) -> list[tuple[dict, float]]:
    """The measured intervals (warm-up left out), each with its length (s)."""
    ends = [0.0] + [r["second"] for r in rows]
    return [(r, end - start) for r, start, end in zip(rows, ends, ends[1:]) if not r["warmup"]]


def window_mean(rows: list[dict], column: str) -> float:
    """The time-weighted mean of ``column`` over the measured intervals."""
    pairs = measured(rows)
    return sum(r[column] * s for r, s in pairs) / sum(s for _, s in pairs)


def printed(report: str, pattern: str) -> tuple[float, ...]:
    """The numbers ``pattern``'s groups match in ``report`` (a file of the SLOB run), as printed."""
    match = re.search(pattern, (SLOB_RUN / report).read_text())
    return tuple(float(g.replace(",", "")) for g in match.groups())


def read_latency_us(rows: list[dict]) -> float:
    """The measured intervals' db file sequential read average (us), weighted by their reads."""
    measured = [r for r in rows if not r["warmup"]]
    return sum(r["read_lat_mean_ms"] * r["read_iops"] for r in measured) / sum(r["read_iops"] for r in measured) * 1000


def test_an_instance_series_reproduces_its_awr_report_per_second():
    """Instance 2's series, averaged over the report's window, gives what its AWR report prints per
    second for the statistics of a point's IOPS (Load Profile Read / Write IO requests), to the
    printed precision; the 'total' statistics (with redo, control file and archive I/O) differ."""
    rows = series(2)
    assert printed("awr.txt", r"physical read IO requests\s+([\d,]+)\s+([\d,.]+)") == (10_815_881, 29_792.8)
    assert printed("awr.txt", r"physical write IO requests\s+([\d,]+)\s+([\d,.]+)") == (1_132_021, 3_118.2)
    assert printed("awr.txt", r"Read IO requests:\s+([\d,.]+)") == (29_792.8,)  # Load Profile
    assert round(window_mean(rows, "read_iops"), 1) == 29_792.8
    assert round(window_mean(rows, "write_iops"), 1) == 3_118.2
    assert printed("awr.txt", r"physical read total IO requests\s+[\d,]+\s+([\d,.]+)") == (29_802.3,)  # not these
    # db file sequential read, every wait of instance 2: the RAC report's Top Timed Events, instance 2
    assert printed("awr_rac.txt", r"db file sequential read\s+10,927,396\s+[\d.]+\s+([\d,.]+)\s+([\d.]+)us") == (
        3_827.22, 350.24)
    assert round(read_latency_us(rows), 2) == 350.24
    assert all(r["lat_mean_ms"] == r["read_lat_mean_ms"] and r["write_lat_mean_ms"] is None for r in rows)


def test_the_series_of_a_rac_database_is_the_sum_of_its_instances():
    """Summed over every instance the series of the two-node RAC database is the cluster's. Over
    the window its requests are the RAC report's printed totals and its read latency the
    cluster-wide db file sequential read average. (The report's "per Second" of the cluster,
    60,656.2, adds each instance's rate over its own snapshot interval: instance 1's total and
    rate, 11,204,315 and 30,863.4, give about 363.029 s; one series over one window, 363.037 s,
    gives 60,655.5 requests/s.)"""
    cluster, one, two = series(), series(1), series(2)
    assert printed("awr_rac.txt", r"physical read IO requests\s+([\d,]+)\s+([\d,.]+)") == (22_020_196, 60_656.2)
    assert printed("awr_rac.txt", r"physical write IO requests\s+([\d,]+)\s+([\d,.]+)") == (2_313_742, 6_373.4)
    assert round(sum(r["read_iops"] * s for r, s in measured(cluster))) == 22_020_196
    assert round(sum(r["write_iops"] * s for r, s in measured(cluster))) == 2_313_742
    assert [round(r["iops"], 6) for r in cluster] == [round(a["iops"] + b["iops"], 6) for a, b in zip(one, two)]
    assert round(window_mean(cluster, "read_iops"), 1) == 60_655.5
    assert window_mean(one, "read_iops") + window_mean(two, "read_iops") == pytest.approx(window_mean(cluster, "read_iops"))
    assert printed("awr_rac.txt", r"physical read IO requests(?:\s+[\d,.]+){5}\s+([\d,.]+)\s+([\d,.]+)") == (
        29_792.8, 30_863.4)  # the per-instance per Second, min and max
    assert round(window_mean(one, "read_iops"), 1) == 30_862.7  # over 363.037 s, not its own 363.029 s
    assert printed("awr_rac.txt", r"db file sequential read\s+22,242,758\s+[\d.]+\s+([\d,.]+)\s+([\d.]+)us") == (
        11_271.33, 506.74)
    assert round(read_latency_us(cluster), 2) == 506.74


def test_warmup_and_window():
    """The window rule of nfs_intervals: intervals ending at or before the AWR begin time
    (09:26:07) are warm-up, those ending after its end time (09:32:10) are left out."""
    rows = series()
    assert len(rows) == 136 and sum(r["warmup"] for r in rows) == 15  # every 3 s from 09:25:22
    first = next(r for r in rows if not r["warmup"])
    assert first["second"] == 48.0  # ends 09:26:10
    assert rows[14]["second"] == 45.0 and rows[14]["warmup"]  # ends 09:26:07, the begin snapshot
    assert round(rows[-1]["second"], 3) == 408.037  # ends 09:32:10.037; the sample at 09:32:13 is after the end
    assert dbstat_intervals(samples_text(sampled(), 3, None), "23:59:00", "00:05:00") == []  # across midnight
    assert dbstat_intervals(samples_text(sampled(), 3, None), None, "09:32:10") == []  # no window


def test_a_counter_that_goes_down_is_refused_and_the_point_keeps_its_awr_figures():
    """An instance restart sets its counters back: no difference holds, the series is refused
    (ParseError), never changed, even where the other instance's I/O would hide it in the sum; the
    series of the other instance alone stands; the SLOB point keeps the AWR report's figures and
    says why."""
    samples = sampled()
    one = samples[40]["instances"][0]
    assert one["inst_id"] == 1
    one["physical_read_io_requests"] = samples[39]["instances"][0]["physical_read_io_requests"] - 1
    text = samples_text(samples, 3, None)
    for instance in (None, 1):
        with pytest.raises(ParseError, match=r"physical_read_io_requests of instance 1 went down between 09:27:19 and "
                                             r"09:27:22"):
            dbstat_intervals(text, "09:26:07", "09:32:10", instance)
    assert len(dbstat_intervals(text, "09:26:07", "09:32:10", 2)) == 136
    files = {p.name: p.read_bytes() for p in SLOB_RUN.iterdir()}
    metrics, rows = read_slob_run({**files, DBSTAT_FILE: text}, datafiles="dnfs")
    assert rows == [] and "went down" in metrics["intervals_error"]
    assert metrics["read_iops"] == 60656.2 and metrics["intervals_source"] == INTERVAL_SOURCES["dnfs"]
    metrics, rows = read_slob_run({**files, DBSTAT_FILE: samples_text(sampled(), 3, None)}, datafiles="dnfs")
    assert len(rows) == 136 and "intervals_error" not in metrics


def test_the_series_has_the_scope_of_the_point_figures():
    """A point read with its RAC global report has the cluster's figures: its series sums every
    instance. Read from the instance report alone (awr.txt names Inst Num 2) its figures are
    instance 2's and so is its series. Either way the series averaged over the window is the
    point's IOPS (the cluster's within the 0.7 requests/s of the report's per-instance intervals,
    see test_the_series_of_a_rac_database_is_the_sum_of_its_instances)."""
    files = {p.name: p.read_bytes() for p in SLOB_RUN.iterdir()}
    files[DBSTAT_FILE] = samples_text(sampled(), 3, None)
    metrics, rows = read_slob_run(files, datafiles="dnfs")
    assert metrics["scope"].startswith("cluster") and metrics["intervals_scope"] == CLUSTER_SCOPE
    assert metrics["read_iops"] == 60_656.2 and round(window_mean(rows, "read_iops"), 1) == 60_655.5
    assert rows == series()
    instance = {name: data for name, data in files.items() if not name.startswith("awr_rac")}
    metrics, rows = read_slob_run(instance, datafiles="dnfs")
    assert metrics["intervals_scope"] == "instance 2" and rows == series(2)
    assert metrics["read_iops"] == round(window_mean(rows, "read_iops"), 1) == 29_792.8
    assert metrics["write_iops"] == round(window_mean(rows, "write_iops"), 1) == 3_118.2


@pytest.mark.parametrize("bad", [None, "12a", float("nan"), True, -1])
def test_a_sample_that_is_not_a_number_is_refused(bad):
    samples = sampled()[:3]
    samples[1]["instances"][1]["db_file_sequential_read_waits"] = bad
    text = samples_text(samples, 3, None)
    with pytest.raises(ParseError, match=r"sample 2: db_file_sequential_read_waits is .*not a number"):
        read_samples(text)


def test_numbers_as_the_driver_may_fetch_them_are_stored_whole():
    """python-oracledb may fetch a NUMBER as float or Decimal: an inst_id of 2.0 is stored as the
    instance 2 (a float would not name it), a whole Decimal counter as int."""
    sample = sampled((2,))[0]
    row = sample["instances"][0]
    sample["instances"] = [{**row, "inst_id": 2.0, "db_file_sequential_read_waits":
                            Decimal(row["db_file_sequential_read_waits"])}]
    stored = json.loads(samples_text([sample], 3, None))["samples"][0]["instances"][0]
    assert stored["inst_id"] == 2 and type(stored["inst_id"]) is int
    assert stored["db_file_sequential_read_waits"] == 172_345_678
    assert read_samples(samples_text([sample], 3, None), 2)[0][0]["inst_ids"] == [2]


def test_a_file_that_is_not_samples_is_refused():
    for text, said in (("{", "not JSON"), ("[]", "expected"), (json.dumps({"format": 1, "samples": []}), "expected"),
                       (samples_text([{"clock": "9:26", "epoch_s": 1.0}], 3, None), "clock '9:26'")):
        with pytest.raises(ParseError, match=said):
            read_samples(text)
    one = samples_text(sampled()[:1], 3, "the sampling ended after 1 sample(s): ORA-03113")
    with pytest.raises(ParseError, match="holds 1 sample.*ORA-03113"):
        dbstat_intervals(one, "09:26:07", "09:32:10")


def test_a_live_interval_is_the_stored_series_or_none_where_it_would_refuse():
    """Two samples as the live view gets them: the cluster's interval as the stored series reads it
    (reads + writes per second over their epoch difference, the read wait's average), or None where
    the series refuses them: a counter gone down, an instance gone, a time that did not move on."""
    samples = sampled()
    old, new = samples[15], samples[16]
    seconds = float(new["epoch_s"]) - float(old["epoch_s"])
    total = {key: sum(float(n[key]) - float(o[key]) for o, n in zip(old["instances"], new["instances"]))
             for key in ("physical_read_io_requests", "physical_write_io_requests",
                         "db_file_sequential_read_waits", "db_file_sequential_read_time_us")}
    values = live_interval(old, new)
    assert values["read_iops"] == pytest.approx(total["physical_read_io_requests"] / seconds, rel=1e-12)
    assert values["iops"] == pytest.approx(values["read_iops"] + total["physical_write_io_requests"] / seconds,
                                           rel=1e-12)
    assert values["lat_mean_ms"] == pytest.approx(
        total["db_file_sequential_read_time_us"] / total["db_file_sequential_read_waits"] / 1000, rel=1e-12)
    assert live_interval(new, old) is None  # counters gone down
    assert live_interval(old, {**new, "instances": new["instances"][:1]}) is None  # an instance gone
    assert live_interval(old, {**new, "epoch_s": old["epoch_s"]}) is None  # no time between them

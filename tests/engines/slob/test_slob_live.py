"""SLOB's intervals in the live view while a point runs: runit.sh's iostat reports, followed in
``iostat.out`` as iostat writes them. SLOB cannot run here: the runit.sh REPLAY DOUBLE
(tests/replay/slob_replay.py) writes the recorded iostat.out of a real 19c RAC run
(tests/data/slob/slob2.5_19c_rac2node_s256_t1_wu4_update10) report by report, and the point's
script, its follower, the feed and the view run for real."""

from __future__ import annotations

import sys
import time

import pandas as pd
import pytest

from conftest import DATA, TESTS
from flashpoc import phases
from flashpoc.present import live, progress
from flashpoc.engines.slob.intervals import IostatFeed
from flashpoc.params import campaign_from_dict

sys.path.insert(0, str(TESTS / "replay"))
import slob_replay  # noqa: E402

RAC = "19c-rac-s256-t1-wu4-update10"
IOSTAT = DATA / "slob" / "slob2.5_19c_rac2node_s256_t1_wu4_update10" / "iostat.out"


def campaign(tmp_path, pace):
    home = slob_replay.install(tmp_path / "SLOB", sys.executable, {1: [RAC]}, pace=pace)
    return campaign_from_dict({
        "campaign": "slob", "engine": "slob",
        "hosts": [{"name": "db1", "address": "localhost", "workdir": str(tmp_path / "work")}],
        "slob": {"home": str(home), "env_file": str(home / "slob.env"), "schemas": 256, "scale": "32768",
                 "run_time_s": 360, "workloads": [{"name": "slob-9010", "update_pct": 10, "work_unit": 4}]},
        "results_dir": str(tmp_path / "results")})


def test_iostat_reports_are_read_one_at_a_time_as_the_stored_series_reads_them():
    seen = []
    feed = IostatFeed(lambda values, second: seen.append((second, values)))
    for line in IOSTAT.read_text().split("\n"):
        feed(line)
    assert feed.reports == 138 and feed.skipped == 0 and len(seen) == 137  # the first counts since boot
    # iostat's printed r/s + w/s of the sd devices, and their awaits weighted by them (ms)
    assert [(s, round(v["iops"], 2), round(v["lat_mean_ms"], 3)) for s, v in seen[:3]] == [
        (3.0, 110.53, 8.612), (6.0, 62.3, 2.552), (9.0, 2146.89, 0.503)]
    assert (seen[-1][0], round(seen[-1][1]["iops"], 2)) == (411.0, 2669.4)


def test_a_slob_point_hands_each_iostat_report_to_the_live_view_while_it_runs(tmp_path, monkeypatch):
    cfg = campaign(tmp_path, pace=0.02)
    arrived, stored = [], []

    def view_of(bar):
        view = live.LiveView(bar, widgets=False)
        interval, point = view.interval, view.point
        view.interval = lambda *a: (arrived.append((time.monotonic(), a[2], dict(a[1]))), interval(*a))
        view.point = lambda *a: (stored.append(time.monotonic()), point(*a))
        return view
    monkeypatch.setattr(progress, "LIVE_VIEW", view_of)
    phases.run_sweep(cfg, {"slob-9010": [1]})
    assert len(arrived) == 137 and len(stored) == 1
    assert stored[0] - arrived[0][0] > 1.0  # the first report came while runit.sh still ran
    live_rows = {second: values for _, second, values in arrived}
    assert (round(live_rows[9.0]["iops"], 2), round(live_rows[9.0]["lat_mean_ms"], 3)) == (2146.89, 0.503)
    point = next((tmp_path / "results" / "slob" / "points" / "sweep").iterdir())
    series = pd.read_csv(point / "intervals.csv")
    assert len(series) == 136  # the stored series ends with the AWR window
    for row in series.itertuples():  # every stored interval was handed over with the same figures
        assert live_rows[row.second]["iops"] == pytest.approx(row.iops, abs=0.005)
        assert live_rows[row.second]["lat_mean_ms"] == pytest.approx(row.lat_mean_ms, abs=0.0005)
    assert "@@flashpoc" not in (point / "console.txt").read_text()  # the followed lines are not runit.sh's
    assert (point / "iostat.out").read_bytes() == IOSTAT.read_bytes()


def test_a_dnfs_point_hands_each_sample_of_the_database_counters_to_the_live_view(tmp_path, monkeypatch):
    """Datafiles on Direct NFS: neither iostat nor the kernel's NFS counters see the I/O, so the live
    view had nothing while the point ran. Now each interval of the database's counters, sampled
    through python-oracledb on the Oracle REPLAY DOUBLE (the recorded samples of a real 2-node RAC
    run, tests/data/oracle/README.md), goes to the view as it is sampled, the cluster's, and each
    stored interval was handed over with the same figures."""
    from test_phases_slob import dnfs_point

    arrived, stored = [], []

    def view_of(bar):
        view = live.LiveView(bar, widgets=False)
        interval, point = view.interval, view.point
        view.interval = lambda *a: (arrived.append((time.monotonic(), a[2], dict(a[1]))), interval(*a))
        view.point = lambda *a: (stored.append(time.monotonic()), point(*a))
        return view
    monkeypatch.setattr(progress, "LIVE_VIEW", view_of)
    _, point, _ = dnfs_point(tmp_path, monkeypatch, progress=True)
    assert len(arrived) == 137 and len(stored) == 1  # 138 samples served, 137 intervals between them
    assert arrived[0][0] < stored[0]  # the first came while runit.sh ran
    live_rows = {second: values for _, second, values in arrived}
    series = pd.read_csv(point / "intervals.csv")
    assert len(series) == 136  # the stored series ends with the AWR window
    for row in series.itertuples():  # read as the stored series reads the samples
        assert live_rows[row.second]["iops"] == pytest.approx(row.iops, rel=1e-12)
        assert live_rows[row.second]["lat_mean_ms"] == pytest.approx(row.lat_mean_ms, rel=1e-12)

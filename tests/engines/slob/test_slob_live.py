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
from flashpoc.engines.slob.intervals import IostatFeed, MountstatsFeed
from flashpoc.hosts.mountstats import SAMPLE_MARK, nfs_intervals
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


NFS_CAPTURE = DATA / "nfs" / "mountstats3.qa"  # a real NFSv3 client's /proc/self/mountstats (PROVENANCE.md)


def nfs_sample(epoch: int, clock: str, reads: int, exe_ms: int) -> str:
    """One sample of the point's mountstats.out: its mark, then the real capture with /nasbox/music's
    READ counters moved on by ``reads`` operations (and transmissions) and ``exe_ms`` of execute
    time (no capture of two samples with I/O between them exists: no NFS server runs here)."""
    lines = NFS_CAPTURE.read_text().split("\n")
    assert lines[37].endswith("mounted on /nasbox/music with fstype nfs statvers=1.1")
    ops, trans, timeouts, sent, received, queue, rtt, exe = map(int, lines[53].split(":")[1].split())
    lines[53] = (lines[53].split(":")[0] + ": " + " ".join(map(str, (
        ops + reads, trans + reads, timeouts, sent, received, queue, rtt, exe + exe_ms))))
    return f"{SAMPLE_MARK}{epoch} {clock}\n" + "\n".join(lines)


def test_nfs_samples_are_read_one_at_a_time_as_the_stored_series_reads_them():
    """Datafiles on the kernel's NFS client: each sample of mountstats.out, followed while runit.sh
    runs, hands the interval it ends to the live view once the next sample's mark shows it whole,
    with the stored series' figures (READ + WRITE operations per second, their execute time per
    operation); the last sample, perhaps cut by the end of the run, waits, as the stored series
    leaves a cut one out; an interval the series refuses (a counter gone down) is passed over."""
    capture = "".join([nfs_sample(5000, "09:26:04", 0, 0), nfs_sample(5003, "09:26:07", 300, 150),
                       nfs_sample(5006, "09:26:10", 900, 390), nfs_sample(5009, "09:26:13", 600, 390),
                       nfs_sample(5012, "09:26:16", 900, 450)])
    for mounts in (None, r"^/nasbox/music$"):
        seen = []
        feed = MountstatsFeed(lambda values, second: seen.append((second, values)), mounts)
        for line in capture.split("\n"):
            feed(line)
        assert feed.samples == 4 and feed.skipped == 1  # 09:26:13 went down; 09:26:16 is not known whole yet
        assert [(s, v["iops"], v["read_iops"], v["lat_mean_ms"]) for s, v in seen] == [
            (3.0, 100.0, 100.0, 0.5), (6.0, 200.0, 200.0, 0.4)]
        stored = nfs_intervals(capture[:capture.index(f"{SAMPLE_MARK}5009")], "09:26:04", "09:26:10", mounts)
        assert [{k: v for k, v in r.items() if k not in ("second", "warmup")} for r in stored] == [v for _, v in seen]


def test_a_knfs_point_follows_its_nfs_samples_while_it_runs(tmp_path):
    """Datafiles on the kernel's NFS client: the point's script follows its mountstats.out (this
    machine's real /proc/self/mountstats, sampled by the point's shell text every 3 s while the
    replayed runit.sh runs) as it follows iostat.out on local disks: every line of the file reaches
    the feed as it is written, none of runit.sh's console. This machine has no NFS mount (the check
    refuses knfs here, so the run is called as the measure loop calls it), so each interval is
    passed over."""
    from flashpoc.engines.slob.measure import point_conf
    from flashpoc.engines.slob.run import followed, run_slob
    from flashpoc.hosts.host import connect

    cfg = campaign(tmp_path, pace=0.05)
    lines, arrived = [], []
    feed = MountstatsFeed(lambda values, second: arrived.append(second))
    run_dir = str(tmp_path / "run")

    def follow(line):
        lines.append((time.monotonic(), line))
        feed(line)
    with connect(cfg.db_host) as host:
        run = run_slob(host, point_conf(cfg, cfg.settings.workloads[0], 1), run_dir, home=cfg.settings.home,
                       schemas=cfg.settings.schemas, threads=1, env_file=cfg.settings.env_file, timeout_s=120,
                       purpose="knfs", sample_nfs=True,
                       on_follow=follow, follow=followed(run_dir, "knfs"))
    assert run.exit_code == 0 and SAMPLE_MARK not in run.console
    assert [line for _, line in lines] == run.files["mountstats.out"].decode().splitlines()
    marks = [at for at, line in lines if line.startswith(SAMPLE_MARK)]
    assert len(marks) >= 2 and marks[1] - marks[0] > 1.0  # each sample as it was taken, not all at the end
    assert feed.samples == len(marks) - 1 and feed.skipped == feed.samples - 1 and arrived == []

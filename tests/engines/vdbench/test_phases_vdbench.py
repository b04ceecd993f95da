"""The phases with engine: vdbench, against the vdbench REPLAY DOUBLE.

The real vdbench runs in tests/engines/vdbench/test_vdbench_real.py; these tests replay real recorded outputs
(of other runs and other versions) through tests/replay/vdbench_replay.py, which accepts
vdbench's command line, refuses a parmfile whose definitions differ from the recorded run's,
and serves the recorded output set, here tests/data/vdbench/rr_threads_sweep (4 x 512 MiB
SDs, 4K random read, forthreads=(1-16,d), 10 s runs; see PROVENANCE.md there). The recorded
runs have no warmup=, so these campaigns set ``warmup_s: 0`` (vdbench's default), and their
targets are sparse files of the recorded size (the double reads none of them).
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

from conftest import DATA, require_java
from documents import html_chart_text_pt, summary_problems
from flashpoc import phases
from flashpoc.campaign.probe import _on_fewer_hosts as on_fewer_hosts
from flashpoc.present import progress
from flashpoc.engines.vdbench import measure as phases_vdbench
from flashpoc.core.errors import RemoteError
from flashpoc.params import campaign_from_dict
from test_run_vdbench import replay_install

RECORDED = DATA / "vdbench" / "rr_threads_sweep"


def sparse_luns(tmp_path, count=4, size=512 * 1024**2, **settings) -> list[dict]:
    """Targets on sparse files of ``size`` bytes (the replay double reads none of them)."""
    targets = []
    for i in range(1, count + 1):
        path = tmp_path / f"lun{i}"
        with open(path, "ab") as handle:
            handle.truncate(size)
        targets.append({"name": f"sd{i}", "path": str(path), "size": "512m", **settings})
    return targets


def vdbench_campaign(tmp_path, recorded=RECORDED, exit_code=0, **overrides):
    values = {
        "campaign": "vdb",
        "engine": "vdbench",
        "hosts": [{"name": "local", "address": "localhost", "workdir": str(tmp_path / "work"),
                   "vdbench": str(replay_install(tmp_path, recorded, exit_code))}],
        "targets": sparse_luns(tmp_path),
        "vdbench": {"elapsed_s": 10, "interval_s": 1, "warmup_s": 0, "iorate": "max", "openflags": "o_direct"},
        "workloads": [{"name": "wd1", "rw": "randread", "bs": "4k"}],
        "probe": {"strategy": "adaptive", "min_threads": 1, "max_threads": 16, "step": 4, "refine_points": 0},
        "results_dir": str(tmp_path / "results"),
    }
    values.update(overrides)
    # the recorded runs read LUNs filled outside flashpoc; the double reads none of these files
    values.setdefault("precondition", {"filled_elsewhere": [t["name"] for t in values["targets"]]})
    return campaign_from_dict(values)


def test_probe_sweep_and_report_on_vdbench(tmp_path, monkeypatch):
    require_java()  # the vdbench check's
    cfg = vdbench_campaign(tmp_path)
    monkeypatch.setenv(progress.EVENTS_ENV, str(tmp_path / "probe.jsonl"))
    table = phases.run_check(cfg)
    checks = dict(zip(table["check"], table["status"]))
    assert checks["vdbench"] == "pass" and checks["vdbench -s parmfile"] == "pass"
    assert "fio" not in checks  # fio is not needed for vdbench

    probe = phases.run_probe(cfg, progress=False)
    assert probe["runs"] == 5  # one invocation: forthreads=(1-16,d)
    points = {p["threads"]: p for p in probe["points"]}
    assert sorted(points) == [1, 2, 4, 8, 16]
    assert points[16]["iops"] == 72704.7 and points[16]["lat_mean_ms"] == 0.844  # totals.html avg_2-10
    assert points[16]["outstanding_ios"] == 64  # 16 threads x 4 SDs
    # 65,627.1 IOPS at 8 threads, 72,704.7 at 16 (+10.8 %, its limit): the probe never answers below a
    # count that measured more beyond the points' noise, so no plateau, and it says to probe further
    saturation = probe["saturation"]
    assert saturation["threads"] is None and saturation["kind"] == "still_rising"
    assert "(+10.8% over 8 threads)" in saturation["reason"] and "raise probe.max_threads" in probe["answer"]
    # progress: at most the 5 counts of the ladder (no refine points here); vdbench's runs counted as
    # they end, their numbers shown when the invocation ends
    events = progress.read_events(tmp_path / "probe.jsonl", 0)[0]
    assert events[0]["bound"] == 5 and events[-1]["event"] == "end" and events[-1]["done"] == 5
    assert sum(e["count"] for e in events if e["event"] == "advance") == 5
    shown = [e for e in events if e["event"] == "point"]
    assert [(e["point"]["threads"], e["point"]["iops"], e["done"]) for e in shown][-1] == (16, 72704.7, 5)
    assert [e["point"]["threads"] for e in shown] == [1, 2, 4, 8, 16]

    root = tmp_path / "results" / "vdb"
    group = next((root / "points" / "probe").iterdir())
    stored = json.loads((group / "points.json").read_text())
    assert [r["threads"] for r in stored] == [1, 2, 4, 8, 16]
    assert {r["opened_for_write"] for r in stored} == {False}  # the slaves logged "write: false"
    assert (group / "output__totals.html").read_text() == (RECORDED / "totals.html").read_text()
    assert "forthreads=(1-16,d)" in (group / "parmfile").read_text()
    row16 = stored[-1]
    assert row16["queue_depth"] == 61.4 and row16["host_cpu_busy_pct"] == 67.6
    assert row16["littles_law_ok"] is True  # 72704.7 IOPS x 0.844 ms = 61.4 ~ 64 outstanding
    assert row16["steadystate_attained"] in (True, False) and row16["interval_iops_cv_pct"] > 0
    # per interval, queue depth = IOPS x response time (median ratio over intervals 2-10)
    assert row16["interval_littles_law_ratio"] == pytest.approx(1.0, abs=0.02)
    # every interval line of summary.html; vdbench 5.04.06 counts interval 1 in its avg_2-10 (72704.7
    # is the mean of intervals 1-10), so none is warm-up: the intervals judged are the ones averaged
    intervals = pd.read_csv(group / "intervals.csv")
    run16 = intervals[intervals["point_id"] == row16["point_id"]].reset_index(drop=True)
    assert list(run16["second"]) == list(range(1, 11))
    assert run16.loc[0, ["iops", "lat_mean_ms"]].tolist() == [49210.0, 0.794] and not run16["warmup"].any()
    assert run16.loc[1, ["iops", "lat_mean_ms"]].tolist() == [72791.0, 0.872]
    assert round(run16["iops"].mean(), 1) == row16["iops"] == 72704.7
    assert row16["intervals"] == 10 and row16["avg_intervals"] == "1-10" and row16["ramp_s"] == 0
    assert sorted(intervals["point_id"].unique()) == sorted(r["point_id"] for r in stored)

    rows = phases.run_sweep(cfg, {"wd1": [1, 2, 4, 8, 16]}, progress=False)
    assert list(rows["threads"]) == [1, 2, 4, 8, 16] and not rows["reused"].any()
    monkeypatch.setenv(progress.EVENTS_ENV, str(tmp_path / "again.jsonl"))
    again = phases.run_sweep(cfg, {"wd1": [1, 2, 4, 8, 16]}, progress=False)
    assert again["reused"].all()
    events = progress.read_events(tmp_path / "again.jsonl", 0)[0]
    assert events[0]["total"] == 5 and [e["point"]["reused"] for e in events if e["event"] == "point"] == [True] * 5

    report = phases.build_report(cfg)
    assert report.summary.loc[0, "max_iops"] == 72705
    assert summary_problems(next(s for s in report.sections if s.key == "summary").items) == []
    sizes = html_chart_text_pt(report.files["report.html"].read_text())  # as printed: 8 pt or more
    assert len(sizes) >= len(report.charts) and min(sizes) >= 8.0, sizes
    assert "latency_percentiles" not in report.charts and "hockey_stick" in report.charts
    # vdbench keeps intervals (a time series and a verdict per point) and histogram.html's buckets
    assert {"interval_series", "latency_histogram"} <= set(report.charts)
    assert list(report.steadiness["threads"]) == [1, 2, 4, 8, 16]
    assert report.detail.loc[0, "threads"] == 16  # max IOPS, 0.844 ms within the 1 ms SLO
    # 512 us is no bucket bound of vdbench's histogram: no share under it
    assert list(report.distribution.columns) == ["workload", "threads", "iops", "lat_mean_ms", "clat_under_1ms_pct",
                                                 "clat_under_2ms_pct", "clat_under_4ms_pct"]
    row1 = next(r for r in stored if r["threads"] == 1)
    # histogram.html, threads=1: cum%% 98.5533 at "0.800 < 1.000", 99.6020 at "1.000 < 2.000"
    assert round(row1["clat_under_1ms_pct"], 4) == 98.5533 and round(row1["clat_under_2ms_pct"], 4) == 99.6020
    histogram = pd.read_csv(group / "histogram.csv")
    first = histogram[histogram["point_id"] == row1["point_id"]].iloc[0]
    assert (first["direction"], first["clat_us"], first["count"]) == ("read", 40.0, 40)  # "0.020 < 0.040  40"
    series = report.charts["interval_series"].to_dict()
    drawn = [row for data in series["datasets"].values() for row in data if "iops" in row]
    assert [r["iops"] for r in drawn][:2] == [49210.0, 72791.0]
    assert report.files["report.html"].exists()
    # what vdbench averaged, as its output shows (no warmup=: every interval, 1-10, though labelled avg_2-10)
    html = report.files["report.html"].read_text()
    assert ("no warm-up (<code>warmup=</code> not set). A point is one vdbench run (<code>rd=</code>) at one thread "
            "count. vdbench&#x27;s average (its <code>avg_</code> line) counted intervals 1-10 in all 5 points.") in html and "left out of its average" not in html
    # vdbench's totals of each point in a table: totals.html's avg_2-10 line at 16 threads,
    # "72704.70 284.00 4096 100.00 0.844 0.844 0.000 31.323 0.602 61.4 67.6 41.8"
    (totals,) = [i for s in report.sections for i in s.items if getattr(i, "caption", "") == "vdbench's totals per point"]
    row = totals.frame[totals.frame["Threads"] == "16"].iloc[0]
    assert [row[c] for c in ("Averaged (intervals)", "IOPS", "MiB/s", "Resp (ms)", "Read resp (ms)", "Resp max (ms)",
                             "Resp stddev (ms)", "Queue depth", "CPU sys+u (%)")] == [
        "1-10", "72,705", "284", "0.844", "0.844", "31.3", "0.602", "61.4", "67.6"]
    assert "Write resp (ms)" not in totals.frame  # reads only


def test_a_read_workload_is_planned_alone_so_vdbench_opens_read_only(tmp_path):
    """vdbench opens an sd for writing when any wd= of the parmfile writes to it (the recorded
    four_workloads run opened every sd with "write: true" for its random-read runs too), so a
    read-only workload's parmfile defines that workload only."""
    from flashpoc.engines.vdbench.measure import parmfile_for
    from flashpoc.engines.vdbench.plan import sweep_run

    cfg = vdbench_campaign(tmp_path, workloads=[{"name": "wd1", "rw": "randread", "bs": "4k"},
                                                {"name": "wd2", "rw": "randwrite", "bs": "4k"}],
                           targets=sparse_luns(tmp_path, allow_write=True))
    with phases.open_campaign(cfg) as wb:
        reads = parmfile_for(wb, sweep_run(wb.cfg, [1, 2], "wd1"))
        writes = parmfile_for(wb, sweep_run(wb.cfg, [1, 2], "wd2"))
    wds = [line for line in reads.splitlines() if line.startswith("wd=")]
    assert wds == ["wd=wd1,sd=sd*,rdpct=100,seekpct=100"]
    assert [line for line in writes.splitlines() if line.startswith("wd=")] == \
        ["wd=wd2,sd=sd*,rdpct=0,seekpct=100"]


def test_a_failed_vdbench_run_gives_vdbench_s_message(tmp_path, monkeypatch):
    """The recorded failure: an sd whose file does not exist and has no size. The planner
    refuses a file without a size before any run, so the recorded parmfile is fed directly."""
    from flashpoc.engines.vdbench import measure as phases_vdbench
    from flashpoc.engines.vdbench.plan import probe_run

    recorded = DATA / "vdbench" / "error_missing_lun"
    cfg = vdbench_campaign(tmp_path, recorded, exit_code=157)
    monkeypatch.setattr(phases_vdbench, "parmfile_for", lambda wb, rd: (recorded / "parmfile.txt").read_text())
    with phases.open_campaign(cfg) as wb:
        with pytest.raises(RemoteError) as info:
            phases_vdbench.run_invocation(wb, "probe", probe_run(wb.cfg))
        points = wb.store.root / "points"
        assert [p.parent.name for p in points.rglob("point*.json")] == []  # nothing stored as a point
        (kept,) = (points / "failed").iterdir()  # the failed run's files: vdbench's logfile, parmfile, console
        assert (kept / "parmfile").read_text() == (recorded / "parmfile.txt").read_text()
        assert "Undefined size for sd=sd1" in (kept / "output__logfile.html").read_text()
    message = str(info.value)
    assert "vdbench exited 157" in message
    assert "Undefined size for sd=sd1" in message and "No lun or file size available." in message
    assert "at Vdb.common.failure" not in message  # vdbench's words, not its Java stack trace
    assert f"Nothing was stored; vdbench's output directory: local:{tmp_path}/work/vdb/probe/wd1_" in message
    assert message.endswith(f"(the run's files: {kept})")


@pytest.mark.ssh
def test_two_hosts_hd_lines_and_checks(sshd, tmp_path):
    """Two load hosts as in the recorded multi_host run: hd1 is this machine (the controller),
    hd2 the real sshd on 127.0.0.1. The parmfile carries hd= lines and sd host=; vdbench (the
    replay double) runs on the controller and its per-host results are parsed per host."""
    recorded = DATA / "vdbench" / "multi_host"
    replay = str(replay_install(tmp_path, recorded))
    cfg = vdbench_campaign(
        tmp_path, recorded,
        hosts=[{"name": "hd1", "address": "localhost", "user": "root", "vdbench": replay,
                "workdir": str(tmp_path / "work")},
               sshd.host_params("hd2", address="127.0.0.1", user="root", vdbench=replay)],
        targets=[{**t, "hosts": ["hd1" if i < 3 else "hd2"]}
                 for i, t in enumerate(sparse_luns(tmp_path, allow_write=True), 1)],
        vdbench={"elapsed_s": 5, "interval_s": 1, "warmup_s": 0, "iorate": "max", "openflags": "o_direct",
                 "jvms": 2, "shell": "vdbench"},
        workloads=[{"name": "wd1", "rw": "randrw", "rwmixread": 70, "bs": "4k"}],
        probe={"strategy": "linear", "min_threads": 2, "max_threads": 4, "step": 2},
        # the double replays the recorded run only, no fill; that run's LUNs were filled outside flashpoc
        precondition={"fill": False, "filled_elsewhere": ["sd1", "sd2", "sd3", "sd4"]})
    table = phases.run_check(cfg)
    rows = {(h, c): s for h, c, s in zip(table["host"], table["check"], table["status"])}
    assert rows[("hd1", "vdbench -s parmfile")] == "pass"
    assert rows[("hd2", "reachable")] == "pass" and rows[("hd2", "vdbench")] == "pass"
    probe = phases.run_probe(cfg, progress=False)
    assert [p["threads"] for p in probe["points"]] == [2, 4]
    group = next((tmp_path / "results" / "vdb" / "points" / "probe").iterdir())
    parmfile = (group / "parmfile").read_text()
    assert "hd=hd2,system=127.0.0.1" in parmfile and "host=hd2" in parmfile
    assert (group / "output__hd2.html").read_text() == (recorded / "hd2.html").read_text()
    stored = {r["threads"]: r for r in json.loads((group / "points.json").read_text())}  # each host's share
    # hd1.html / hd2.html avg lines; the I/Os vdbench gave each host: threads x its 2 SDs
    assert stored[2]["per_host"]["hd1"] == {"iops": 21002.00, "lat_mean_ms": 0.172, "host_cpu_busy_pct": 74.9,
                                            "queue_depth": 3.6, "outstanding_ios": 4}
    assert stored[4]["per_host"]["hd2"] == {"iops": 30380.80, "lat_mean_ms": 0.247, "host_cpu_busy_pct": 56.1,
                                            "queue_depth": 7.5, "outstanding_ios": 8}
    assert probe["points"][1]["per_host"] == stored[4]["per_host"]
    assert probe["host_limit"]["verdict"] == "unclear"  # IOPS still rising at 4 threads: no plateau to judge
    assert "host_scaling" not in probe


@pytest.mark.ssh
def test_shell_ssh_is_checked_with_the_command_vdbench_runs(sshd, tmp_path):
    """With shell=ssh the check runs on the controller the command vdbench starts a remote slave
    with (``ssh ADDRESS -l USER ...``), through the ssh config the workbook writes from the
    host's parameters: the test sshd's port (not 22) and key pass; without the key (this
    machine's root has none authorized there) the row fails and says why."""
    from flashpoc.engines.vdbench.check import check_vdbench

    replay = str(replay_install(tmp_path, DATA / "vdbench" / "multi_host"))

    def ssh_row(**host):
        cfg = vdbench_campaign(
            tmp_path, hosts=[{"name": "hd1", "address": "localhost", "vdbench": replay,
                              "workdir": str(tmp_path / "work")},
                             sshd.host_params("hd2", address="127.0.0.1", user="root", vdbench=replay, **host)],
            vdbench={"elapsed_s": 10, "interval_s": 1, "shell": "ssh"})
        return {r["check"]: r for r in check_vdbench(cfg) if r["host"] == "hd1"}["ssh to hd2"]

    passed = ssh_row()
    assert passed["status"] == "pass" and passed["value"] == "ok"
    assert passed["detail"] == (f"ssh 127.0.0.1 -l root (with the ssh config the workbook writes: port, key, "
                                f"known_hosts): password-less; {replay}/vdbench is there")
    refused = ssh_row(key_file=None)
    assert refused["status"] == "fail" and refused["value"] == "refused"
    assert "Permission denied" in refused["detail"] and "password-less SSH from the controller" in refused["detail"]


def test_the_plateau_on_fewer_hosts_is_a_parmfile_of_those_hosts(tmp_path):
    """The probe's host scaling on vdbench: the controller (hd2 here) plus the first other
    hosts, only their hd= and sd= lines, the one plateau thread count."""
    cfg = vdbench_campaign(
        tmp_path,
        hosts=[{"name": n, "address": a, "user": "root"}
               for n, a in (("hd1", "10.0.0.1"), ("hd2", "localhost"), ("hd3", "10.0.0.3"))],
        targets=[{"name": f"sd{i}", "path": f"/dev/sd{'abc'[i - 1]}", "hosts": [f"hd{i}"]} for i in (1, 2, 3)],
        vdbench={"elapsed_s": 10, "interval_s": 1, "controller": "hd2", "shell": "ssh"})
    wb = phases.Workbench(cfg, store=None)
    one, two = (on_fewer_hosts(wb, n) for n in (1, 2))
    assert [h.name for h in one.cfg.hosts] == ["hd2"] and [t.name for t in one.cfg.targets] == ["sd2"]
    assert [h.name for h in two.cfg.hosts] == ["hd1", "hd2"] and [t.name for t in two.cfg.targets] == ["sd1", "sd2"]
    text = phases_vdbench.parmfile_for(two, phases_vdbench.probe_run_at(two.cfg, 24))
    assert [line.split(",")[0] for line in text.splitlines() if line.startswith(("hd=", "sd="))] == [
        "hd=default", "hd=hd1", "hd=hd2", "sd=sd1", "sd=sd2"]
    assert "forthreads=(24)" in text
    assert two.hosts is wb.hosts  # the connections are shared, not opened again
    # one SD per host: each host keeps 24 I/Os in flight on 3, 2 or 1 hosts alike
    assert [phases_vdbench.scaling_threads(cfg, sub.cfg, 24) for sub in (one, two)] == [24, 24]


def test_host_scaling_on_a_shared_lun_keeps_the_outstanding_ios_per_host(tmp_path):
    """vdbench's threads are per SD and spread over every host of the SD: on one LUN shared by
    three hosts, 24 threads are 8 per host, so the plateau on 2 hosts runs 16 threads, on 1 host 8."""
    cfg = vdbench_campaign(
        tmp_path, hosts=[{"name": f"hd{i}", "address": f"10.0.0.{i}", "user": "root"} for i in (1, 2, 3)],
        targets=[{"name": "lun1", "path": "/dev/sdx"}], vdbench={"elapsed_s": 10, "interval_s": 1})
    wb = phases.Workbench(cfg, store=None)
    assert [phases_vdbench.scaling_threads(cfg, on_fewer_hosts(wb, n).cfg, 24) for n in (1, 2)] == [8, 16]
    assert phases_vdbench.scaling_threads(cfg, on_fewer_hosts(wb, 1).cfg, 1) == 1  # at least one


def test_a_ladder_still_rising_at_its_limit_spends_no_refine_point(tmp_path):
    """The adaptive probe's whole ladder (1-16, the recorded run) is one invocation. Its IOPS still
    rise at 16 threads, the limit (+10.8 % over 8), so there is no plateau whose start a refine point
    could narrow: the budget of 3 is not spent and vdbench is not started again (a refine round's
    counts go to vdbench as one forthreads list: test_plan_vdbench's forthreads=(3,5,6))."""
    require_java()  # the vdbench check's
    cfg = vdbench_campaign(tmp_path, probe={"strategy": "adaptive", "min_threads": 1, "max_threads": 16, "step": 1,
                                            "refine_points": 3})
    probe = phases.run_probe(cfg, progress=False)
    assert probe["saturation"]["kind"] == "still_rising" and sorted(p["threads"] for p in probe["points"]) == [
        1, 2, 4, 8, 16]
    asked = [next(x for x in p.read_text().splitlines() if x.startswith("rd=")).split("forthreads=")[1]
             for p in (tmp_path / "work" / "vdb" / "probe").glob("*/parmfile")]
    assert asked == ["(1-16,d)"]


def test_an_interval_without_io_has_no_latency():
    """vdbench prints 0.000 ms for an interval without I/O (the recorded 5.04.07 sweep, run
    seq_read_128k: intervals 3, 10, 22... did no I/O): intervals.csv keeps the interval and its
    0 IOPS but no latency, and the chart draws none."""
    from flashpoc.present import chart
    from flashpoc.engines.vdbench.parse import parse_output_dir, read_output_dir
    from flashpoc.engines.vdbench.plan import RunDefinition

    parsed = parse_output_dir(read_output_dir(DATA / "vdbench-public" / "vdbench50407_8host_sd_37rds_xfersize_sweep"))
    total = next(t for t in parsed["totals"] if t["rd"] == "seq_read_128k")
    rd = RunDefinition("seq_read_128k", "wd1", (1,), elapsed_s=60, interval_s=1)
    table = pd.DataFrame(phases_vdbench.interval_table("p", rd.interval_s, total, parsed))
    idle = table[table["iops"] == 0]
    assert list(idle["second"]) == [3, 10, 22, 30, 34, 39, 53, 55, 57]
    assert idle[["lat_mean_ms", "read_lat_mean_ms"]].isna().all().all()
    assert table.loc[table["second"] == 1, "lat_mean_ms"].item() == 3.187  # "1  1736.0 ... 3.187" as printed
    detail = pd.DataFrame([{"workload": "seq", "threads": 1, "iops": total["iops"], "ramp_s": 0, "intervals": 59,
                            "interval_iops_cv_pct": None, "interval_iops_drift_pct": None, "interval_steady": None}])
    spec = chart.interval_series(table.assign(workload="seq"), detail).to_dict()
    drawn = [r for data in spec["datasets"].values() for r in data if r.get("iops") == 0]
    assert len(drawn) == 9 and all(r["lat_mean_ms"] is None for r in drawn)


def test_the_check_asks_every_host_and_runs_the_slaves_shells_side_by_side(tmp_path):
    """Five hosts: each one's vdbench-and-Java question waits until all five have been asked, and each
    of the four slaves' shells on the controller until all four run (a barrier): asked one after the
    other, as the check did, the first would wait alone and the check fail. Every row comes, in the
    hosts' order, each shell over a connection of its own to the controller."""
    import re
    import threading

    from flashpoc.engines.vdbench.check import check_vdbench
    from flashpoc.hosts.fake import FakeHost, Reply

    names = [f"hd{i}" for i in range(1, 6)]
    asked, shells = threading.Barrier(len(names), timeout=30), threading.Barrier(len(names) - 1, timeout=30)
    connections = []

    def together(barrier, reply):
        def answer(command, stdin):
            barrier.wait()
            return reply
        return answer

    def connect(params):
        connections.append(params.name)
        return FakeHost(params=params, commands={
            re.compile(r"echo vdbench=yes"): together(asked, "vdbench=yes\nopenjdk version \"17.0.13\"\n"),
            re.compile(r"vdbench -s -f"): Reply("Vdbench distribution: vdbench50406\n@@flashpoc rc 0\n"),
            re.compile(r"java FlashpocLocalHost\.java"): "flashpoc-localhost vm 10.0.0.1\nname=vm\nown=10.0.0.1\n",
            re.compile(r"/bin/bash --norc -c"): together(shells, Reply()),
        })

    cfg = vdbench_campaign(tmp_path, hosts=[{"name": n, "address": f"10.0.0.{i}", "user": "root", "vdbench": "/opt/vdbench"}
                                            for i, n in enumerate(names, 1)],
                           vdbench={"elapsed_s": 10, "interval_s": 1, "shell": "ssh", "controller_address": "10.0.0.1"})
    rows = check_vdbench(cfg, connect=connect)
    assert [(r["host"], r["check"], r["status"]) for r in rows] == [
        ("hd1", "vdbench", "pass"), ("hd1", "java", "pass"), ("hd1", "vdbench -s parmfile", "pass"),
        ("hd1", "slaves call back", "pass"), *[("hd1", f"ssh to {n}", "pass") for n in names[1:]],
        *[(n, check, "pass") for n in names[1:] for check in ("vdbench", "java")]]
    assert sorted(connections) == sorted(names + ["hd1"] * 4)


def test_the_slaves_shells_open_at_most_eight_connections_to_the_controller_at_once(tmp_path):
    """Sixteen hosts: the controller's sshd drops new connections at random beyond 10 not yet
    logged in (MaxStartups 10:30:100; 2 of 15 shells failed so on 16 namespace hosts), so the 15
    slaves' shells run at most 8 at a time; the first 8 wait for one another (a barrier), so 8 do run
    together, and every one gives its row."""
    import re
    import threading

    from flashpoc.engines.vdbench.check import SHELLS_AT_ONCE, check_vdbench
    from flashpoc.hosts.fake import FakeHost, Reply

    names = [f"hd{i:02d}" for i in range(1, 17)]
    together, lock = threading.Barrier(SHELLS_AT_ONCE, timeout=30), threading.Lock()
    state = {"started": 0, "running": 0, "most": 0}

    def shell(command, stdin):
        with lock:
            state["started"] += 1
            state["running"] += 1
            state["most"] = max(state["most"], state["running"])
            first = state["started"] <= SHELLS_AT_ONCE
        if first:
            together.wait()
        with lock:
            state["running"] -= 1
        return Reply()

    def connect(params):
        return FakeHost(params=params, commands={
            re.compile(r"echo vdbench=yes"): "vdbench=yes\nopenjdk version \"17.0.13\"\n",
            re.compile(r"vdbench -s -f"): Reply("Vdbench distribution: vdbench50406\n@@flashpoc rc 0\n"),
            re.compile(r"java FlashpocLocalHost\.java"): "flashpoc-localhost vm 10.0.0.1\nname=vm\nown=10.0.0.1\n",
            re.compile(r"/bin/bash --norc -c"): shell,
        })

    cfg = vdbench_campaign(tmp_path, hosts=[{"name": n, "address": f"10.0.0.{i}", "user": "root", "vdbench": "/opt/vdbench"}
                                            for i, n in enumerate(names, 1)],
                           vdbench={"elapsed_s": 10, "interval_s": 1, "shell": "ssh", "controller_address": "10.0.0.1"})
    rows = check_vdbench(cfg, connect=connect)
    assert SHELLS_AT_ONCE == 8 and state == {"started": 15, "running": 0, "most": 8}
    assert [(r["check"], r["status"]) for r in rows if r["check"].startswith("ssh to")] == [
        (f"ssh to {n}", "pass") for n in names[1:]]


def test_the_targets_are_read_on_every_host_side_by_side_before_vdbench_starts(tmp_path):
    """Sixteen hosts: each one's targets' sizes wait until all sixteen have been asked (a barrier):
    one after the other, as before, the first would wait alone. A missing and a short target are
    both named, in the hosts' order, and vdbench is not started."""
    import re
    import threading
    from types import SimpleNamespace

    from flashpoc.engines.vdbench.measure import require_targets
    from flashpoc.core.errors import CheckFailed
    from flashpoc.hosts.fake import FakeHost

    names = [f"hd{i:02d}" for i in range(1, 17)]
    asked = threading.Barrier(len(names), timeout=30)
    found = {"hd07": "missing", "hd12": "4096"}

    def sizes(name):
        def answer(command, stdin):
            asked.wait()
            return f"{found.get(name, 16 * 1024**2)}\n"
        return answer

    cfg = vdbench_campaign(tmp_path, hosts=[{"name": n, "address": f"10.0.0.{i}", "user": "root",
                                             "vdbench": "/opt/vdbench"}
                                            for i, n in enumerate(names, 1)],
                           targets=[{"name": "lun1", "path": "/dev/mapper/lun1", "size": "16m"}],
                           vdbench={"elapsed_s": 10, "interval_s": 1, "controller_address": "10.0.0.1"})
    hosts = {p.name: FakeHost(params=p, commands={re.compile(r"blockdev --getsize64"): sizes(p.name)})
             for p in cfg.hosts}
    with pytest.raises(CheckFailed) as failed:
        require_targets(SimpleNamespace(cfg=cfg, host=lambda p: hosts[p.name]), "sweep rr")
    assert str(failed.value).splitlines()[1:3] == [
        "- hd07: target lun1 (/dev/mapper/lun1) does not exist",
        "- hd12: target lun1 (/dev/mapper/lun1) is 4,096 bytes, smaller than its size 16m (16,777,216 bytes)"]

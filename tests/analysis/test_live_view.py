"""The live view's parts: each engine's intervals read as they are printed (fio's status reports, vdbench's
console intervals, HammerDB's transaction counter, from real outputs), the view's charts and texts
(:class:`flashpoc.present.live.LiveView`, outside a kernel), and its stop with real fio: the running point is
stored, none begins after it, and the next run reuses what was done."""

from __future__ import annotations

import json
import re
import threading
import time

import pytest

from conftest import DATA, quick_campaign, require_fio
from flashpoc.present import live, progress
from flashpoc import phases
from flashpoc.engines.fio.parse import parse_fio_output
from flashpoc.engines.fio.run import run_fio_job
from flashpoc.engines.fio.status import STATUS_MARK, HostSeconds, StatusFeed
from flashpoc.engines.fio.plan import render_job, render_layout_job
from flashpoc.engines.hammerdb.run import counter_reader
from flashpoc.engines.vdbench.run import IntervalProgress
from flashpoc.core.errors import Stopped
from flashpoc.params import campaign_from_dict
from flashpoc.campaign.probe import answer_so_far, summarize_probe
from flashpoc.hosts.host import connect



STATUS = DATA / "fio" / "status" / "fio-3.33_status_reports_randrw80_4k_2jobs_ramp1.txt"


def test_fio_status_reports_give_each_seconds_iops_latency_and_mibps_as_printed():
    """fio's status reports as a live point's command printed them (tests/data/fio/status,
    PROVENANCE-fio-local.md): each second is the difference of two reports' printed totals."""
    seen = []
    feed = StatusFeed(lambda values, **when: seen.append({**when, **values}), ramp_s=1)
    for line in STATUS.read_text().split("\n"):
        feed(line)
    assert feed.reports == 6 and feed.skipped == 0
    # the sixth report, 11 ms after the fifth as the jobs ended, makes no second of its own
    assert [(s["second"], s["warmup"]) for s in seen] == [(0.86, True), (2.003, False), (3.007, False),
                                                          (4.006, False), (5.004, False)]
    ramp = seen[0]  # fio counts the ramp's I/Os (read 3763, write 1000 in 860 ms) but no latency
    assert ramp["iops"] == pytest.approx((3763 + 1000) * 1000 / 860) and ramp["lat_mean_ms"] is None
    first = seen[1]  # from the ramp's end: read 7432 and write 1931 I/Os in 1003 ms, their lat_ns means
    assert first["iops"] == pytest.approx((7432 + 1931) * 1000 / 1003)
    assert first["lat_mean_ms"] == pytest.approx((207367.328175 * 7432 + 234437.643708 * 1931) / 9363 / 1e6)
    assert first["bw_mibps"] == pytest.approx((30277632 + 7860224) * 1000 / 1003 / 1024**2)
    second = seen[2]  # read 14021, write 3589 by 2007 ms: the second between the two reports
    assert second["iops"] == pytest.approx((14021 + 3589 - 9363) * 1000 / (2007 - 1003))
    assert second["lat_mean_ms"] == pytest.approx(
        (222896.132801 * 14021 + 240518.526888 * 3589 - 207367.328175 * 7432 - 234437.643708 * 1931) / 8247 / 1e6)
    assert (round(second["iops"], 1), round(second["lat_mean_ms"], 3)) == (8214.1, 0.242)


def test_several_hosts_seconds_are_one_series_once_every_host_gave_them():
    seen = []
    merged = HostSeconds(lambda values, **when: seen.append({**when, **values}), ["h1", "h2"])
    feeds = {name: StatusFeed(merged.of(name), ramp_s=1) for name in ("h1", "h2")}
    lines = STATUS.read_text().split("\n")
    for line in lines:
        feeds["h1"](line)
    assert seen == []  # h2 gave none yet
    for line in lines:  # the same recorded reports as a second host's
        feeds["h2"](line)
    assert len(seen) == 5 and seen[1]["second"] == 2.003 and seen[0]["warmup"]
    assert seen[1]["iops"] == pytest.approx(2 * (7432 + 1931) * 1000 / 1003)  # summed
    assert seen[1]["lat_mean_ms"] == pytest.approx((207367.328175 * 7432 + 234437.643708 * 1931) / 9363 / 1e6)


def test_a_host_whose_feed_ended_early_is_no_longer_awaited():
    """h2 gives the recorded report's first two seconds and its feed ends (its sampler gone): its
    seconds h1 gave too are handed over with both; the rest, with h1's alone, not held back."""
    seen = []
    merged = HostSeconds(lambda values, **when: seen.append({**when, **values}), ["h1", "h2", "h3"])
    merged.drop("h3")  # gone before it gave a second
    one = {"iops": 100.0, "lat_mean_ms": 0.5, "bw_mibps": 1.0}
    two = {"iops": 300.0, "lat_mean_ms": 1.0, "bw_mibps": 2.0}
    merged.of("h2")(two, second=1.0)
    merged.of("h2")(two, second=2.0)
    merged.of("h1")(one, second=1.0)
    assert [s["second"] for s in seen] == [1.0]
    merged.drop("h2")
    merged.of("h2")(two, second=3.0)  # a late line of a dropped host is not counted
    assert [s["second"] for s in seen] == [1.0]  # h1 has not given second 2 yet
    for second in (2.0, 3.0):
        merged.of("h1")(one, second=second)
    assert [(s["second"], s["iops"]) for s in seen] == [(1.0, 400.0), (2.0, 400.0), (3.0, 100.0)]
    assert seen[0]["lat_mean_ms"] == pytest.approx((100 * 0.5 + 300 * 1.0) / 400)


def test_a_live_fio_job_hands_its_seconds_over_while_it_runs_and_keeps_its_output(tmp_path):
    require_fio()
    cfg = campaign_from_dict(quick_campaign(tmp_path, fio={"runtime_s": 4, "ramp_s": 1}))
    host = connect(cfg.hosts[0])
    run_fio_job(host, render_layout_job(cfg.targets[0], cfg.settings), str(tmp_path / "layout"), readonly=False,
                timeout_s=120, purpose="layout")
    seen, lines = [], []
    feed = StatusFeed(lambda values, **when: seen.append((time.monotonic(), when, values)), ramp_s=1)
    job = render_job(cfg, cfg.workloads[0], 2, cfg.targets, runtime_s=4)
    run = run_fio_job(host, job, str(tmp_path / "p"), readonly=True, timeout_s=120, purpose="t",
                      on_line=lambda line: (lines.append(line), feed(line)))
    ended = time.monotonic()
    measured = [(when["second"], values) for _, when, values in seen if not when["warmup"]]
    assert len(measured) >= 3 and ended - seen[0][0] > 2.0  # fio's seconds, before the point ended
    assert all(v["iops"] > 0 and v["lat_mean_ms"] > 0 for _, v in measured)  # a latency each second
    document = json.loads(run.output)  # out.json: fio's last document, whole (its bins kept), alone
    assert run.output.startswith("{") and len(document["jobs"]) == 1 and document["jobs"][0]["read"]["clat_ns"]["bins"]
    assert parse_fio_output(run.output)[0]["total_ios"] == document["jobs"][0]["read"]["total_ios"]
    # the seconds add up to the I/Os of the status report that ended the last one (its printed total_ios)
    text = "\n".join(line[len(STATUS_MARK):] for line in lines if line.startswith(STATUS_MARK))
    reports = [json.loads("{" + part) for part in text.split("\n{")[1:]]
    last = next(r["jobs"][0]["read"] for r in reports
                if r["jobs"][0]["read"]["runtime"] / 1000 + 1 == pytest.approx(measured[-1][0]))
    starts = [1.0] + [second for second, _ in measured[:-1]]
    assert sum(v["iops"] * (second - start) for (second, v), start in zip(measured, starts)) == pytest.approx(
        last["total_ios"], abs=1e-6 * last["total_ios"])
    assert last["total_ios"] <= document["jobs"][0]["read"]["total_ios"]


def test_vdbench_console_intervals_are_read_as_printed():
    lines = (DATA / "vdbench" / "rr_3threads_2s" / "console.txt").read_text().splitlines()
    seen = []
    reader = IntervalProgress(lambda p: seen.append((p.run.split("threads=")[-1], p.values())))
    for line in lines:
        reader(line)
    got = [(run, v["interval"], v["iops"], v["mb_per_s"], v["resp_ms"]) for run, v in seen]
    assert got == [("1", 1, 18280.0, 71.41, 0.048), ("1", 2, 20236.0, 79.05, 0.048),
                   ("2", 1, 20459.0, 79.92, 0.068), ("2", 2, 31928.0, 124.72, 0.062),
                   ("4", 1, 30067.0, 117.45, 0.092), ("4", 2, 41926.0, 163.77, 0.095)]
    printed = [line.split() for line in lines if re.match(r"^\S+ +\d+ +[\d.]+ ", line)]
    assert [(int(t[1]), float(t[2]), float(t[3]), float(t[6])) for t in printed] == [g[1:] for g in got]


def test_hammerdb_counter_lines_are_handed_over_as_printed():
    lines = (DATA / "hammerdb" / "console" / "03_vu_sweep.txt").read_text().splitlines()
    seen = []
    on_line = counter_reader(lambda values, **when: seen.append(values["tpm"]), rampup_s=0)
    for line in lines:
        on_line(line)
    printed = [int(m.group(1)) for m in (re.match(r"^(\d+) PostgreSQL tpm$", line) for line in lines) if m]
    assert seen == printed and len(seen) == 27 and seen[:3] == [0, 11880, 14922]
    assert counter_reader(None, 0) is None


ROW = {"engine": "fio", "workload": "randread-4k", "rw": "randread", "bs": "4k", "iops": 23592.4,
       "bw_mibps": 92.2, "lat_mean_ms": 0.084, "repeat": 0}


def test_the_view_draws_each_point_and_the_running_points_intervals():
    bar = progress.Progress("sweep", "sweep", total=3, colors=["randwrite-4k", "randread-4k"])
    view = live.LiveView(bar, widgets=True)
    bar._view = bar._handle = view
    bar.answer(lambda: "IOPS stop rising at 8 threads")
    bar.begin("randread-4k", 1)
    for second, iops in ((1.0, 20000.0), (2.0, 21000.0)):
        bar.interval({"iops": iops, "bw_mibps": iops * 4 / 1024}, second=second)
        view.settle()  # the drawing thread has drawn it
        view._last["intervals"] = 0.0  # the next interval is drawn too (the test does not wait)
    assert view.series[-1] == {"second": 2.0, "warmup": False, "iops": 21000.0, "bw_mibps": 21000.0 * 4 / 1024}
    assert "latest interval: 2 s: IOPS 21,000" in view.status_html(bar)
    assert "answer so far: IOPS stop rising at 8 threads" in view.status_html(bar)
    for threads in (1, 2):
        bar.point({**ROW, "threads": threads, "iops": ROW["iops"] * threads})
        view.settle()
        view._last["curves"] = 0.0  # the next point is drawn too (the test does not wait)
    spec = view._box.curves.outputs[0]["data"]["application/vnd.vegalite.v5+json"]
    values = [v for d in spec["datasets"].values() for v in d if "iops" in v]
    assert sorted({v["iops"] for v in values}) == [23592.4, 47184.8]  # both points, as stored
    assert "#E69F00" in str(spec)  # randread-4k in its colour of the report (second in the domain)
    assert spec["config"]["legend"]["orient"] == "bottom"  # the workloads' legend within a notebook's width
    assert view.redraws["curves"] == 2 and view.redraws["intervals"] >= 2
    drawer = view._drawer._thread.native_id  # the drawing thread yields the CPU to the engine and the loop
    nice = {tid: int(open(f"/proc/self/task/{tid}/stat").read().rsplit(")", 1)[1].split()[16])
            for tid in (drawer, threading.get_native_id())}
    assert nice[drawer] == min(19, nice[threading.get_native_id()] + live.DRAWING_NICE)
    view.stop()
    with pytest.raises(Stopped, match="stopped with the stop button after 2 points"):
        bar.begin("randread-4k", 3)
    bar.close()
    assert re.fullmatch(r"sweep: 2 points in 0:\d\d", view.curves(bar).to_dict()["title"]["text"])


def test_the_stop_button_ends_a_real_sweep_between_points_and_the_next_run_reuses_them(tmp_path, monkeypatch):
    require_fio()
    monkeypatch.setenv("FLASHPOC_ROOT", str(tmp_path))
    cfg = campaign_from_dict(quick_campaign(tmp_path, fio={"runtime_s": 3, "ramp_s": 0}))
    phases.run_check(cfg)
    views = []

    def view_of(bar):
        views.append(live.LiveView(bar, widgets=False))
        threading.Timer(1.5, views[-1].stop).start()  # pressed while the first point runs
        return views[-1]
    monkeypatch.setattr(progress, "LIVE_VIEW", view_of)
    plan = {"randread-4k": [1, 2, 3]}
    with pytest.raises(Stopped):
        phases.run_sweep(cfg, plan)
    stored = sorted((tmp_path / "results" / "quick" / "points" / "sweep").glob("*/point.json"))
    assert len(stored) == 1 and len(views[0].rows) == 1  # the running point measured to its end, stored
    monkeypatch.setattr(progress, "LIVE_VIEW", None)
    rows = phases.run_sweep(cfg, plan)
    assert list(rows["reused"]) == [True, False, False]


def test_the_probes_answer_so_far_is_the_fit_of_the_points_measured(tmp_path):
    cfg = campaign_from_dict(quick_campaign(tmp_path))
    lines = (DATA / "seed_probe.csv").read_text().splitlines()[1:]
    rows = [{"threads": int(t), "iops": float(i), "lat_mean_ms": float(lat), "outstanding_ios": int(o),
             "runtime_s": 60, "wall_s": 61.0}
            for t, i, lat, o in (line.split(",") for line in lines)]
    sat = summarize_probe(cfg, rows)["saturation"]
    lo, hi = sat["range_threads"]
    assert answer_so_far(cfg, rows) == (f"IOPS stop rising at {sat['threads']} threads (plausible {lo}-{hi}, "
                                        f"confidence {sat['confidence']:.0%})")
    assert answer_so_far(cfg, rows[:2]).startswith("none yet: ")  # two counts give no fit


def test_a_stop_shows_its_message_in_a_notebook_not_a_traceback(capsys):
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shell.run_cell("from flashpoc.core.errors import Stopped\nraise Stopped('sweep: stopped with the stop button after 2 points')")
    shown = capsys.readouterr().out
    assert shown.strip() == "Stopped: sweep: stopped with the stop button after 2 points"


def test_a_slow_redraw_waits_longer_and_points_that_came_meanwhile_are_drawn_together_once_due():
    bar = progress.Progress("sweep", "sweep", total=3, colors=["randread-4k"])
    view = live.LiveView(bar, widgets=True)
    bar._view = bar._handle = view
    bar.begin("randread-4k", 1)
    bar.point({**ROW, "threads": 1})
    view.settle()
    assert view.redraws["curves"] == 1 and view._cost["curves"] > 0
    view._cost["curves"] = 50.0  # the last redraw took 50 s: the next one waits REDRAW_SHARE times that
    view._last["curves"] = time.monotonic() - 5.0  # 5 s ago: past INTERVAL_REDRAW_S, far short of it
    bar.begin("randread-4k", 2)
    bar.point({**ROW, "threads": 2})
    view.settle()
    assert view.redraws["curves"] == 1 and view._stale["curves"]  # not yet, and the loop did not wait
    view._last["curves"] -= 50.0 * live.REDRAW_SHARE  # now it is due
    bar.interval({"iops": 20000.0}, second=1.0)
    view.settle()
    assert view.redraws["curves"] == 2 and not view._stale["curves"]  # both points, in one redraw
    spec = view._box.curves.outputs[0]["data"]["application/vnd.vegalite.v5+json"]
    assert sorted({v["threads"] for d in spec["datasets"].values() for v in d if "threads" in v}) == [1, 2]

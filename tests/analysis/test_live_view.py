"""The live view's parts: each engine's intervals read as they are printed (fio's status line, vdbench's
console intervals, HammerDB's transaction counter, from real outputs), the view's charts and texts
(:class:`flashpoc.present.live.LiveView`, outside a kernel), and its stop with real fio: the running point is
stored, none begins after it, and the next run reuses what was done."""

from __future__ import annotations

import re
import threading
import time

import pytest

from conftest import DATA, quick_campaign, require_fio
from flashpoc.present import live, progress
from flashpoc import phases
from flashpoc.engines.fio.run import run_fio_job, status_rates, status_reader
from flashpoc.engines.fio.plan import render_job, render_layout_job
from flashpoc.engines.hammerdb.run import counter_reader
from flashpoc.engines.vdbench.run import IntervalProgress
from flashpoc.core.errors import Stopped
from flashpoc.params import campaign_from_dict
from flashpoc.campaign.probe import answer_so_far, summarize_probe
from flashpoc.hosts.host import connect



def test_fio_status_lines_give_each_seconds_iops_and_mibps_as_printed():
    """fio's status lines as fio 3.33 printed them (tests/data/fio/status, PROVENANCE-fio-local.md)."""
    seen = []
    reader = status_reader(seen.append)
    for line in (DATA / "fio" / "status" / "fio-3.33_status_lines_randrw80_4k_2jobs.txt").read_text().split("\n"):
        reader(line)
    assert seen == [{"iops": 1151.0 + 303.0, "bw_mibps": pytest.approx((4604 + 1213) / 1024), "done_pct": 60.0},
                    {"iops": 1955.0 + 498.0, "bw_mibps": pytest.approx((7820 + 1992) / 1024), "done_pct": 80.0},
                    {"iops": 1696.0 + 457.0, "bw_mibps": pytest.approx((6786 + 1829) / 1024), "done_pct": 100.0}]
    text = (DATA / "fio" / "status" / "fio-3.33_status_lines_randread_4k_2jobs.txt").read_text()
    assert [status_rates(s) for s in re.split(r"[\r\n]+", text) if s] == [
        None, {"iops": 89500.0, "bw_mibps": 350.0, "done_pct": 60.0}, {"iops": 75700.0, "bw_mibps": 296.0, "done_pct": 80.0},
        {"iops": 75600.0, "bw_mibps": 295.0, "done_pct": 100.0}]  # "Jobs: 2 (f=2)", before the jobs run: none
    text = (DATA / "fio" / "status" / "fio-3.33_status_lines_randread_4k_2jobs_2s.txt").read_text()
    assert [status_rates(s) for s in re.split(r"[\r\n]+", text) if s] == [  # a 2 s job: fio tells no share done
        None, {"iops": 87800.0, "bw_mibps": 343.0, "done_pct": None}]


def test_a_live_fio_job_hands_its_seconds_over_while_it_runs_and_keeps_its_output(tmp_path):
    require_fio()
    cfg = campaign_from_dict(quick_campaign(tmp_path, fio={"runtime_s": 4, "ramp_s": 0}))
    host = connect(cfg.hosts[0])
    run_fio_job(host, render_layout_job(cfg.targets[0], cfg.settings), str(tmp_path / "layout"), readonly=False,
                timeout_s=120, purpose="layout")
    seen, threads = [], []

    def on_rates(rates):
        seen.append(rates)
        threads.append(threading.current_thread())
    job = render_job(cfg, cfg.workloads[0], 2, cfg.targets, runtime_s=4)
    run = run_fio_job(host, job, str(tmp_path / "p"), readonly=True, timeout_s=120, purpose="t", on_rates=on_rates)
    assert len(seen) >= 2 and all(r["iops"] > 0 for r in seen)  # fio's seconds, before the point ended
    assert [r["done_pct"] for r in seen] == sorted(r["done_pct"] for r in seen)
    assert run.output.lstrip().startswith("{") and '"jobs"' in run.output  # out.json unchanged: clean JSON
    assert "Jobs:" not in run.stderr  # the status lines are not fio's warnings


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
        view._last["intervals"] = 0.0  # the next interval is drawn too (the test does not wait)
    assert view.series[-1] == {"second": 2.0, "warmup": False, "iops": 21000.0, "bw_mibps": 21000.0 * 4 / 1024}
    assert "latest interval: 2 s: IOPS 21,000" in view.status_html(bar)
    assert "answer so far: IOPS stop rising at 8 threads" in view.status_html(bar)
    for threads in (1, 2):
        bar.point({**ROW, "threads": threads, "iops": ROW["iops"] * threads})
        view._last["curves"] = 0.0  # the next point is drawn too (the test does not wait)
    spec = view._box.curves.outputs[0]["data"]["application/vnd.vegalite.v5+json"]
    values = [v for d in spec["datasets"].values() for v in d if "iops" in v]
    assert sorted({v["iops"] for v in values}) == [23592.4, 47184.8]  # both points, as stored
    assert "#E69F00" in str(spec)  # randread-4k in its colour of the report (second in the domain)
    assert spec["config"]["legend"]["orient"] == "bottom"  # the workloads' legend within a notebook's width
    assert view.redraws["curves"] == 2 and view.redraws["intervals"] >= 2
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


def test_a_slow_redraw_waits_longer_and_points_that_came_meanwhile_are_drawn_with_a_later_interval():
    bar = progress.Progress("sweep", "sweep", total=3, colors=["randread-4k"])
    view = live.LiveView(bar, widgets=True)
    bar._view = bar._handle = view
    bar.begin("randread-4k", 1)
    bar.point({**ROW, "threads": 1})
    assert view.redraws["curves"] == 1 and view._cost["curves"] > 0
    view._cost["curves"] = 0.5  # the last redraw took 0.5 s: the next one waits REDRAW_SHARE times that
    view._last["curves"] = time.monotonic() - 5.0  # 5 s ago: past INTERVAL_REDRAW_S, short of 10 s
    bar.begin("randread-4k", 2)
    bar.point({**ROW, "threads": 2})
    assert view.redraws["curves"] == 1 and view._stale  # not yet
    view._last["curves"] -= 0.5 * live.REDRAW_SHARE
    view._last["intervals"] = 0.0
    bar.interval({"iops": 20000.0}, second=1.0)
    assert view.redraws["curves"] == 2 and not view._stale  # drawn with the interval, both points
    spec = view._box.curves.outputs[0]["data"]["application/vnd.vegalite.v5+json"]
    assert sorted({v["threads"] for d in spec["datasets"].values() for v in d if "threads" in v}) == [1, 2]

"""Progress of the probe and the sweep: what is known and nothing more (points done of the total or
of at most the adaptive probe's bound, elapsed, time left only once a point was measured), the
events ``flashpoc run`` follows, and the sweep plan saying why it has the points it has."""

from __future__ import annotations

import json
import re

import pytest

from conftest import quick_campaign, require_fio
from flashpoc import analysis, phases
from flashpoc.present import progress
from flashpoc.params import campaign_from_dict
from flashpoc.analysis.sweep_plan import plan_note, plan_sweep


def events_of(path) -> list[dict]:
    return progress.read_events(path, 0)[0]


def test_no_time_left_before_a_point_was_measured_and_a_bound_is_said_as_one(tmp_path, monkeypatch):
    """An adaptive probe does not know how many points it measures, only at most how many: it
    says "2 points so far, at most 7" and an upper bound of the time left, never a count of "2/?"
    and an ETA of 0:00:00; a reused point gives no time per point; an engine that counts points
    before their rows (vdbench) counts each once."""
    monkeypatch.setenv(progress.EVENTS_ENV, str(tmp_path / "events.jsonl"))
    bar = progress.Progress("probe", "probe randread-4k (adaptive)", bound=7, enabled=False)
    assert bar.state()["left_s"] is None and "ETA" not in progress.time_text(bar.state(), short=True)
    bar.point({"workload": "randread-4k", "threads": 1, "iops": 1000.0, "lat_mean_ms": 0.1, "reused": True})
    assert bar.state()["left_s"] is None  # a reused point says nothing of how long one takes
    bar.begin("randread-4k", 2)
    bar.point({"workload": "randread-4k", "threads": 2, "iops": 1900.0, "bw_mibps": 7.4, "lat_mean_ms": 0.105})
    state = bar.state()
    assert state["done"] == 2 and state["reused"] == 1 and state["left_s"] is not None and state["left_is_bound"]
    assert re.fullmatch(r"2 points so far, at most 7 \(1 stored, reused\), \d+:\d\d(?::\d\d)? elapsed, "
                        r"up to \d+:\d\d(?::\d\d)? left", progress.summary_text(state))
    assert progress.count_text(state) == "2/<=7"
    assert bar.text().endswith("last: randread-4k, 2 threads: 1,900 IOPS, 7.4 MiB/s, 0.105 ms")
    bar.close()
    assert re.fullmatch(r"2 points \(1 stored, reused\) in \d+:\d\d(?::\d\d)?", progress.summary_text(bar.state()))
    kinds = [e["event"] for e in events_of(tmp_path / "events.jsonl")]
    assert kinds == ["start", "point", "begin", "point", "end"]

    sweep = progress.Progress("sweep", "sweep", total=5, enabled=False)
    sweep.begin("wd1", "forthreads (1-16,d)")
    sweep.advance(3)  # vdbench finished 3 runs; their rows come when the invocation ends
    sweep.advance(2)
    for threads in (1, 2, 4, 8, 16):
        sweep.point({"workload": "wd1", "threads": threads, "iops": 1.0, "lat_mean_ms": 1.0}, counted=True)
    assert sweep.state()["done"] == 5 and progress.count_text(sweep.state()) == "5/5"
    assert progress.Progress("probe", "x", enabled=False).state()["left_s"] is None  # no total, no bound


def test_a_real_adaptive_probe_reports_each_point_within_its_bound(tmp_path, monkeypatch):
    """Real fio: the adaptive probe (1 to 8 threads) says at its start that it measures at most 5
    points (its ladder of 4 counts, 1 refine point) and why, then one event per point with the numbers the
    probe stored, counted 1, 2, ... and never beyond the bound."""
    require_fio()
    events = tmp_path / "events.jsonl"
    monkeypatch.setenv(progress.EVENTS_ENV, str(events))
    cfg = campaign_from_dict(quick_campaign(tmp_path, probe={"strategy": "adaptive", "min_threads": 1,
                                                             "max_threads": 8}))
    phases.run_check(cfg)
    answer = phases.run_probe(cfg, progress=False)
    stepper = analysis.AdaptiveProbe(min_threads=1, max_threads=8)
    assert stepper.ladder() == [1, 2, 4, 8] and stepper.max_points() == 5 == phases.probe_point_bound(cfg)
    seen = events_of(events)
    start, points, end = seen[0], [e for e in seen if e["event"] == "point"], seen[-1]
    assert start["event"] == "start" and start["bound"] == 5 and start["total"] is None
    assert start["detail"] == ["from 2 threads, doubling up to 8 threads or halving down to 1 thread until IOPS "
                               "stop rising, then measuring where the answer is uncertain: at most 5 points; it "
                               "stops as soon as it has its answer"]
    assert [e["done"] for e in points] == list(range(1, answer["runs"] + 1)) and answer["runs"] <= 5
    assert [(e["point"]["threads"], e["point"]["iops"], e["point"]["lat_mean_ms"]) for e in points] == [
        (p["threads"], p["iops"], p["lat_mean_ms"]) for p in answer["points"]]
    assert all(e["left_is_bound"] and e["left_s"] is not None for e in points)
    assert end["event"] == "end" and end["closed"] and end["done"] == answer["runs"]
    again = tmp_path / "again.jsonl"
    monkeypatch.setenv(progress.EVENTS_ENV, str(again))
    phases.run_probe(cfg, progress=False)  # every point stored: reused
    assert [e["point"]["reused"] for e in events_of(again) if e["event"] == "point"] == [True] * answer["runs"]


@pytest.mark.parametrize(("kwargs", "threads", "why"), [
    ({"plan": "knee-dense", "points": 3, "extend_pct": 50}, [1, 6, 8, 9, 12],
     "knee-dense plan: 3 points up to 8 threads, denser towards it (sweep.points: 3), and 2 beyond it up to 12 "
     "to draw the curve past saturation (sweep.extend_pct: 50 %)"),
    ({"plan": "knee-dense", "points": 10}, [1, 2, 4, 5, 6, 7, 8],
     "knee-dense plan: 7 points up to 8 threads, denser towards it (sweep.points: 10; rounded to multiples of 1 "
     "thread, 3 of them fell on a thread count already in the plan)"),
    ({"plan": "guide", "step": 2}, [2, 4, 6, 8], "the guide's plan: every 2 threads from 2 to 8 (4 points)"),
])
def test_the_sweep_plan_says_why_it_has_its_points(kwargs, threads, why):
    """`sweep.points: 3` with `extend_pct: 50` measures 5 thread counts: 3 up to the probe's answer
    and 2 beyond it, and the plan says so; asking more points than there are thread counts says so."""
    assert plan_sweep(8, **kwargs) == threads
    assert plan_note(threads, 8, **kwargs) == why


def test_the_sweep_plan_text_of_a_campaign_says_why(tmp_path):
    cfg = campaign_from_dict(quick_campaign(tmp_path, sweep={"plan": "knee-dense", "max_threads": 8, "points": 3,
                                                             "extend_pct": 50}))
    plan = phases.plan_campaign_sweep(cfg)
    assert plan == {"randread-4k": [1, 6, 8, 9, 12], "randwrite-4k": [1, 6, 8, 9, 12]}
    assert phases.sweep_plan_text(cfg, plan).splitlines()[0] == (
        "**Sweep plan**: 10 points, about 10 s of I/O (1 s per point). Up to 8 threads (sweep.max_threads); "
        "knee-dense plan: 3 points up to 8 threads, denser towards it (sweep.points: 3), and 2 beyond it up to 12 "
        "to draw the curve past saturation (sweep.extend_pct: 50 %).")
    assert phases.sweep_plan_lines(cfg, {"randread-4k": [1, 2]}) == [  # a plan of its own: no why
        "2 points, about 2 s of I/O (1 s per point)", "randread-4k: threads 1, 2"]
    # the counts in words, not in vdbench's forthreads syntax: "(1,6,8,9,12)", "(10-300,10)"
    assert phases.sweep_plan_text(cfg, plan).splitlines()[2] == "- `randread-4k`: threads 1, 6, 8, 9, 12"
    assert phases.sweep_plan_lines(cfg, {"randread-4k": [10, 20, 30]})[-1] == "randread-4k: threads 10-30 step 10"


def test_events_cut_in_the_middle_of_a_line_wait_for_the_rest(tmp_path):
    path = tmp_path / "events.jsonl"
    path.write_text(json.dumps({"event": "start"}) + "\n" + '{"event": "po')
    events, offset = progress.read_events(path, 0)
    assert events == [{"event": "start"}] and offset == len(json.dumps({"event": "start"})) + 1
    with path.open("a") as handle:
        handle.write('int"}\n')
    assert progress.read_events(path, offset) == ([{"event": "point"}], path.stat().st_size)


def test_the_closing_steady_state_line_names_each_unsteady_point():
    """The summary of `flashpoc run` names every point that was not steady, with its scatter and
    drift, on the recorded vdbench sweep tests/data/vdbench/rr_threads_sweep (threads 1-16)."""
    import pandas as pd

    from conftest import DATA
    from flashpoc.engines.vdbench.parse import parse_totals

    totals = parse_totals((DATA / "vdbench" / "rr_threads_sweep" / "totals.html").read_text())
    points = pd.DataFrame({"workload": "wd1", "threads": [int(t["threads"]) for t in totals],
                           "iops": [t["iops"] for t in totals], "lat_mean_ms": [t["resp_ms"] for t in totals]})
    assert progress.steadiness_line(points) == "steady state: no verdict: the engine kept no time series of these points"
    judged = points.assign(intervals=[9, 9, 9, 9, 2], interval_iops_cv_pct=[15.47, 4.1, 2.0, 1.2, None],
                           interval_iops_drift_pct=[9.8, 1.0, -0.5, 0.1, None],
                           interval_steady=[False, True, True, True, None])
    assert progress.steadiness_line(judged) == ("steady state: 3 of 4 points steady (1 more too short for a verdict); "
                                                "not steady: wd1 at 1 thread (scatter 15.5 %, drift +9.8 %)")
    # a point whose series a damaged log cost is no point "too short": the line says which it was
    lost = "flashpoc_iops.3.log of local: has no line for window 1 (lost: intervals, interval_steady)"
    damaged = judged.assign(intervals=[9, 9, 9, None, 2], interval_steady=[False, True, True, None, None],
                            damaged=[None, None, None, lost, None])
    assert progress.steadiness_line(damaged) == (
        "steady state: 2 of 3 points steady (1 more too short for a verdict; 1 more whose time series was damaged: "
        "points.csv's damaged column names what was lost); not steady: wd1 at 1 thread (scatter 15.5 %, drift +9.8 %)")
    assert progress.steadiness_line(damaged.assign(interval_steady=None, damaged=lost)) == (
        "steady state: no verdict: 5 whose time series was damaged: points.csv's damaged column names what was lost")


def test_a_large_io_point_line_shows_mib_per_s_and_fits_100_columns():
    """A 128K point is read in MiB/s too (the recorded fio 3.36 randrw 128k run: read 401.019796
    IOPS, 50.126953125 MiB/s, mean latency 1473.687 us); the line, with the longest usual counts
    and times, fits a 100-column terminal."""
    from conftest import DATA
    from flashpoc.engines.fio.parse import parse_fio_output

    read = parse_fio_output((DATA / "fio" / "fio-3.36_randrw_128k_1job_file.json").read_text())[0]
    point = {"workload": "seqread-128k", "threads": 128, "iops": read["iops"], "bw_mibps": read["bw_mibps"],
             "lat_mean_ms": read["lat_mean_us"] / 1000}
    event = {"phase": "sweep", "done": 120, "total": 240, "elapsed_s": 3599.0, "left_s": 3599.0, "point": point}
    line = progress.point_line(event)
    assert line == ("[sweep] 120/240 seqread-128k  128 threads       401 IOPS 50.1 MiB/s  1.474 ms | 59:59, "
                    "ETA 59:59")
    assert len(progress.point_line(dict(event, point=dict(point, iops=9_978.0, bw_mibps=1_247.3)))) <= 100
    assert progress.duration_text(3600) == "1:00:00" and progress.duration_text(65) == "1:05"


def test_a_progress_line_takes_numbers_as_the_tables_do():
    """One "number or None" helper (tables.number) for the tables, the progress lines and the
    host-limit verdict: a yes/no value or an infinity is no measured number."""
    from flashpoc.analysis import hostlimit
    from flashpoc.core import tables

    assert progress.number is hostlimit.number is tables.number
    point = progress.point_numbers({"workload": "w", "threads": 2, "iops": "23592.5", "bw_mibps": float("inf"),
                                    "lat_mean_ms": True})
    assert (point["iops"], point["bw_mibps"], point["lat_mean_ms"]) == (23592.5, None, None)


def test_the_linear_probe_says_its_counts_as_the_guide_does(tmp_path):
    """The linear probe's progress names its counts in the POC guide's words, not in vdbench's syntax."""
    from flashpoc.campaign import probe

    cfg = campaign_from_dict(quick_campaign(tmp_path, probe={"strategy": "linear", "min_threads": 8,
                                                             "max_threads": 40, "step": 8}))
    assert probe._progress_plan(cfg, cfg.engine_object, None, [8, 16, 24, 32, 40]) == {
        "total": 5, "detail": ["threads 8-40 step 8 (5 points)"]}
    assert probe._progress_plan(cfg, cfg.engine_object, None, [1, 2, 4])["detail"] == ["threads 1, 2, 4 (3 points)"]

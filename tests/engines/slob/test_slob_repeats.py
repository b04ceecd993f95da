"""``sweep.repeats`` with engine: slob, through the SLOB runit.sh REPLAY DOUBLE.

SLOB and an Oracle server cannot run here (see tests/engines/slob/test_phases_slob.py). The double serves a
recorded run for each call of runit.sh: here the 12.2 single-instance SLOB run with UPDATE_PCT 0
(tests/data/awr/12.2.0.1_slob_update0_single_awr.html) for every thread count and every repeat.
Both repeats of a point therefore read the SAME recorded AWR report: their numbers are equal, and
what that honestly implies is asserted, never hidden: zero spread (min = max, CV 0 %), a 95 %
interval of zero width at the recorded value, and, between two campaigns served the same
recording, a difference of 0 whose zero-width Welch interval spans zero: "within measurement
noise". What the test checks for SLOB is the orchestration around the numbers: the interleaved
order of the repeats, their storage as repeats of one point, a rerun that measures nothing, and
statistics and comparisons computed from the stored rows.
"""

from __future__ import annotations

import json
import math
import statistics

import pytest

from test_phases_slob import SINGLE, slob_campaign
from flashpoc.analysis import compare, confidence
from flashpoc import phases

SWEEP = {"plan": "guide", "max_threads": 2, "step": 1, "repeats": 2}
THREADS = {"slob-read": [1, 2]}


def stored_rows(root) -> list[dict]:
    """The stored sweep rows of a campaign (point.json), in the order they were completed."""
    rows = [json.loads(p.read_text()) for p in (root / "points" / "sweep").glob("*/point.json")]
    return sorted(rows, key=lambda r: r["completed_utc"])


def replay_calls(home) -> list[list[str]]:
    return [json.loads(line)["argv"] for line in (home / "replay-calls.log").read_text().splitlines()]


@pytest.fixture(scope="module")
def slob_repeats(tmp_path_factory):
    """Two SLOB campaigns ("slob" and "slob-b") of slob-read at 1 and 2 threads per schema, two
    repeats each, measured through the replay double; the report of the first compares the second."""
    tmp_path = tmp_path_factory.mktemp("slobrep")
    cfg, home = slob_campaign(tmp_path, {1: [SINGLE], 2: [SINGLE]}, sweep=SWEEP)
    phases.run_check(cfg)
    frame = phases.run_sweep(cfg, THREADS, progress=False)
    calls = replay_calls(home)
    rows = stored_rows(tmp_path / "results" / "slob")
    again = phases.run_sweep(cfg, THREADS, progress=False)
    calls_after_rerun = replay_calls(home)
    by_threads = {1: [SINGLE], 2: [SINGLE]}
    other, _ = slob_campaign(tmp_path, by_threads, sweep=SWEEP, campaign="slob-b")
    phases.run_sweep(other, THREADS, progress=False)
    compared, _ = slob_campaign(tmp_path, by_threads, sweep=SWEEP,
                                report={"label": "slob", "compare": [{"campaign": "slob-b"}]})
    report = phases.build_report(compared, pdf=False)
    return {"frame": frame, "calls": calls, "rows": rows, "again": again, "calls_after_rerun": calls_after_rerun,
            "report": report, "results": tmp_path / "results"}


def test_slob_repeats_are_interleaved_stored_as_repeats_of_one_point_and_a_rerun_measures_nothing(slob_repeats):
    rows = slob_repeats["rows"]
    # interleaved: every thread count once, then again (as for fio)
    assert [(r["threads"], r["repeat"]) for r in rows] == [(1, 0), (2, 0), (1, 1), (2, 1)]
    assert slob_repeats["calls"] == [["-s", "256", "-t", t] for t in ("1", "2", "1", "2")]
    ids = [r["point_id"] for r in rows]
    assert ids[2] == ids[0] + "_r1" and ids[3] == ids[1] + "_r1"
    frame = slob_repeats["frame"]
    assert sorted(zip(frame["threads"], frame["repeat"])) == [(1, 0), (1, 1), (2, 0), (2, 1)]
    assert not frame["reused"].any()
    # each repeat kept its own copy of the run's files
    for pid in ids:
        assert (slob_repeats["results"] / "slob" / "points" / "sweep" / pid / "awr.html").exists()
    # a rerun measures nothing: every repeat reused, runit.sh not called again
    again = slob_repeats["again"]
    assert again["reused"].all() and len(again) == 4
    assert slob_repeats["calls_after_rerun"] == slob_repeats["calls"]


def test_the_replay_serves_one_recording_so_the_repeats_have_zero_spread(slob_repeats):
    rows = slob_repeats["rows"]
    by_threads = {t: [r["iops"] for r in rows if r["threads"] == t] for t in (1, 2)}
    # the same recorded AWR report for both repeats: the same numbers, not two measurements
    assert all(len(v) == 2 and v[0] == v[1] and v[0] > 0 for v in by_threads.values())
    # the recording's Load Profile: "Read IO requests" 8,047.3 per second, as printed
    assert [r["read_iops"] for r in rows] == [8047.3] * 4


def test_the_report_s_repeats_section_lists_slob_s_points_with_statistics_from_the_stored_rows(slob_repeats):
    report, rows = slob_repeats["report"], slob_repeats["rows"]
    points = report.points[report.points["config"] == "slob"] if "config" in report.points else report.points
    table = confidence.point_table(points).set_index("threads")
    for threads in (1, 2):
        values = [r["iops"] for r in rows if r["threads"] == threads]
        mean, sd = statistics.mean(values), statistics.stdev(values)
        half = 12.706 * sd / math.sqrt(2)  # t(0.975, 1 degree of freedom) from the printed table
        got = table.loc[threads]
        assert (got["n"], got["min"], got["max"]) == (2, min(values), max(values))
        assert got["mean"] == pytest.approx(mean, rel=1e-12)
        assert got["cv_pct"] == pytest.approx(sd / mean * 100, abs=1e-12) == 0  # one recording: no scatter
        assert (got["ci_low"], got["ci_high"]) == (pytest.approx(mean - half), pytest.approx(mean + half))
        assert got["ci_low"] == got["ci_high"] == mean  # a zero-width interval at the recorded value
    # max IOPS from the repeat-wise curves: each repeat's own maximum, summarized
    answers = confidence.answers(points, report.slo_ms)
    got = answers[answers["answer"] == "max IOPS"].iloc[0]
    per_repeat = [max(r["iops"] for r in rows if r["repeat"] == k) for k in (0, 1)]
    assert (got["runs"], got["n"], got["mean"]) == (2, 2, pytest.approx(statistics.mean(per_repeat)))
    assert got["ci_low"] == got["ci_high"] == got["mean"]
    html = report.files["report.html"].read_text()
    assert "Each sweep point was measured 2 times, interleaved" in html
    start = html.rindex("Results: repeats and intervals")
    section = html[start:html.index("Appendix A", start)]
    value = f"{rows[0]['iops']:,.0f}"
    assert "slob-read" in section and f"{value}..{value}" in section  # the zero-width interval, as printed


def test_a_comparison_of_two_slob_campaigns_served_the_same_recording_is_within_measurement_noise(slob_repeats):
    report = slob_repeats["report"]
    comparison = report.comparison
    at = comparison[comparison["metric"] == "IOPS at equal threads"]
    # SLOB's threads are per schema: the load is said in sessions (schemas x threads per schema)
    assert sorted(at["at"]) == ["256 sessions (256 schemas x 1 thread)", "512 sessions (256 schemas x 2 threads)"]
    for row in at.to_dict("records"):
        # equal numbers on both sides: a difference of 0 with a zero-width Welch interval, which spans zero
        assert row["runs"] == "2 vs 2"
        assert (row["delta"], row["delta_low"], row["delta_high"]) == (0, 0, 0)
        assert row["noise"] == confidence.NOISE and row["better"] == confidence.NOISE
    assert "within measurement noise" in report.files["report.html"].read_text()


def test_two_slob_recordings_that_differ_are_not_compared_as_the_same_workload(tmp_path):
    """Why no SLOB comparison here shows a difference beyond noise: the double's only other
    recording that runs at 1 thread (19c RAC, 67,029.6 IOPS) was made with UPDATE_PCT 10 and
    WORK_UNIT 4, so a campaign replaying it must define its workload so; the comparison then sees
    two different workloads under one name and refuses to compare them (rather than printing a
    difference of two different tests)."""
    by_threads = {1: [SINGLE]}
    single, _ = slob_campaign(tmp_path, by_threads, sweep=SWEEP)
    phases.run_sweep(single, {"slob-read": [1]}, progress=False)
    home = tmp_path / "SLOB"
    slob = {"home": str(home), "env_file": str(home / "slob.env"), "schemas": 256, "scale": "32768",
            "run_time_s": 360, "workloads": [{"name": "slob-read", "update_pct": 10, "work_unit": 4}]}
    rac, _ = slob_campaign(tmp_path, {1: ["19c-rac-s256-t1-wu4-update10"]}, sweep=SWEEP, campaign="rac", slob=slob)
    assert list(phases.run_sweep(rac, {"slob-read": [1]}, progress=False)["iops"]) == [pytest.approx(67029.6)] * 2
    report_cfg, _ = slob_campaign(tmp_path, by_threads, sweep=SWEEP,
                                  report={"label": "single", "compare": [{"campaign": "rac"}]})
    report = phases.build_report(report_cfg, pdf=False)
    assert sorted(report.points["iops"]) == [8048.3, 8048.3, pytest.approx(67029.6), pytest.approx(67029.6)]
    assert report.comparison.empty
    comparable, notes = compare.comparability(report.points)
    assert (comparable, notes) == ([], ["`slob-read` is **not compared**: SLOB UPDATE_PCT 0 (single) vs 10 (rac)."])

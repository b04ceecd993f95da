"""The detail point of each curve and the steady-state text (flashpoc.present.summary), on real numbers:
the recorded vdbench sweep tests/data/vdbench/rr_threads_sweep (totals.html avg_2-10 lines)."""

from __future__ import annotations

import pandas as pd
import pytest

from conftest import DATA
from flashpoc.present import summary
from flashpoc.engines.vdbench.parse import parse_totals


@pytest.fixture
def points() -> pd.DataFrame:
    totals = parse_totals((DATA / "vdbench" / "rr_threads_sweep" / "totals.html").read_text())
    return pd.DataFrame({"workload": "wd1", "threads": [int(t["threads"]) for t in totals],
                         "point_id": [f"p{t['threads']}" for t in totals],
                         "iops": [t["iops"] for t in totals], "lat_mean_ms": [t["resp_ms"] for t in totals]})


def test_detail_is_the_max_iops_within_the_slo(points):
    detail = summary.detail_points(points, 1.0)
    assert detail.loc[0, ["threads", "iops", "lat_mean_ms"]].tolist() == [16, 72704.7, 0.844]
    assert detail.loc[0, "detail_reason"] == "max IOPS within the 1 ms SLO"
    # 16 threads (0.844 ms) misses a 0.5 ms SLO: 8 threads, 65,627.1 IOPS at 0.468 ms
    tight = summary.detail_points(points, 0.5)
    assert tight.loc[0, ["threads", "iops"]].tolist() == [8, 65627.1]
    none = summary.detail_points(points, 0.2)  # the lowest mean is 0.334 ms
    assert none.loc[0, "threads"] == 16 and none.loc[0, "detail_reason"] == "max IOPS: no point within the 0.2 ms SLO"


def test_detail_at_requested_threads_takes_the_nearest_measured(points):
    assert summary.detail_points(points, 1.0, threads=5).loc[0, "threads"] == 4
    assert summary.detail_points(points, 1.0, threads=100).loc[0, "threads"] == 16


def test_detail_per_configuration(points):
    both = pd.concat([points.assign(config="A"), points.assign(config="C", lat_mean_ms=points["lat_mean_ms"] * 2)])
    detail = summary.detail_points(both, 1.0)
    assert list(zip(detail["config"], detail["threads"])) == [("A", 16), ("C", 8)]  # C: 0.936 ms at 8 threads


def test_steadiness_text_names_the_unsteady_points(points):
    judged = points.assign(intervals=9, interval_iops_cv_pct=[15.47, 4.1, 2.0, 1.2, 3.3],
                           interval_iops_drift_pct=[9.8, 1.0, -0.5, 0.1, 2.2],
                           interval_steady=[False, True, True, True, True])
    table = summary.steadiness_table(judged)
    text = summary.steadiness_text(table, summary.detail_points(points, 1.0))
    assert text.startswith("4 of 5 points were steady")
    assert "- not steady: `wd1` at 1 thread: scatter 15.5 %, drift +9.8 %" in text
    assert "Points shown in detail: `wd1` at 16 threads (max IOPS within the 1 ms SLO)." in text
    # no SNIA verdict: one plain sentence (the rule itself is in the table's note and the method)
    assert "No point ran the 5 intervals the SNIA PTS rule needs for its verdict (a longer runtime gives them)." in text
    assert summary.steadiness_table(points).empty
    short = summary.steadiness_table(points.assign(intervals=1, interval_iops_cv_pct=None, interval_iops_drift_pct=None,
                                                   interval_steady=None))
    assert summary.steadiness_text(short).startswith("No point ran the 3 intervals a steady-state verdict needs "
                                                     "(5 points with fewer")
    assert summary.steadiness_text(summary.steadiness_table(points)).startswith("(no interval time series")
    # a point whose series a damaged log cost has no verdict, but was not short: the text says which it was
    lost = "flashpoc_iops.{1-324}.log (324 logs) of local: has no line for window 1 (lost: intervals, interval_steady)"
    damaged = summary.steadiness_table(judged.assign(intervals=[9, 9, 9, None, 2], damaged=[None] * 3 + [lost, None],
                                                     interval_steady=[False, True, True, None, None]))
    assert summary.steadiness_text(damaged).startswith(
        "2 of 3 points were steady (interval IOPS scatter (stdev/mean) at most 10 % and drift of the fitted line over "
        "the point at most 10 %). 1 had fewer than 3 intervals and no verdict; 1 lost its time series to a damaged "
        "output (named under Appendix A) and has no verdict.\n")
    only_lost = damaged.assign(interval_steady=None, series_damaged=True)
    assert summary.steadiness_text(only_lost) == (
        "No point has a steady-state verdict: 5 lost their time series to a damaged output (named under Appendix A) "
        "and have no verdict.")


def test_a_max_point_whose_series_a_damaged_log_cost_is_not_called_short_in_the_caveats(points):
    """The summary's caveat of a curve whose max-IOPS point lost its series to a damaged log (a demo's
    seqread-128k at 324 threads, 4-s points) names the damage, not "0 intervals, 3 needed"."""
    lost = "flashpoc_iops.{1-324}.log (324 logs) of local: has no line for window 1 (lost: intervals, interval_steady)"
    top = points["iops"].idxmax()
    group = points.assign(intervals=9, interval_steady=True, damaged=None).astype({"interval_steady": object})
    group.loc[top, ["intervals", "interval_steady", "damaged"]] = [0, None, lost]
    assert summary._point_caveats(group, group.loc[top])[0] == (
        "max point: no steady-state verdict (its time series lost to a damaged output, named under Appendix A)")
    short = group.assign(damaged=None)
    assert summary._point_caveats(short, short.loc[top])[0] == "max point: no steady-state verdict (0 intervals, 3 needed)"


def test_the_all_points_table_says_which_point_s_output_was_damaged(points):
    """A stored point whose engine output was damaged (its ``damaged`` column): the report's table
    of every point says so in its Checks and names the file and what it cost in a note."""
    said = "totals.html: missing (lost: iops)"
    damaged = points.assign(damaged=[None, None, said, None, None])
    table = summary.points_display(damaged)
    checks = table.frame["Checks"].tolist()
    assert [c.endswith("damaged output") for c in checks] == [False, False, True, False, False]
    assert f"Damaged output (wd1, 4 threads): {said}; the point lost these figures, no other is changed." in table.notes
    assert not any("Damaged" in note for note in summary.points_display(points).notes)

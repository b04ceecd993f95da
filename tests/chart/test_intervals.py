"""The 95 % intervals of repeated points on the charts (flashpoc.present.chart.intervals): a point is what
flashpoc.analysis.confidence says it is, so each step of a rate curve gets its own interval."""

from __future__ import annotations

import pandas as pd

from flashpoc.present.chart import intervals


def test_two_rate_curve_steps_at_the_same_threads_get_their_own_intervals():
    """vdbench's iorate=curve (or sweep.plan: rate-curve) measured twice: the 50 % and the 90 %
    step at 4 threads are two points, not four repeats of one."""
    rows = [{"workload": "rr", "threads": 4, "curve_pct": pct, "iops": iops, "repeat": repeat}
            for pct, values in ((50.0, (10000.0, 10200.0)), (90.0, (18000.0, 18400.0)))
            for repeat, iops in enumerate(values)]
    df = pd.DataFrame(rows)
    means = pd.DataFrame({"workload": ["rr", "rr"], "threads": [4, 4], "curve_pct": [50.0, 90.0],
                          "iops": [10100.0, 18200.0]})
    data = intervals.with_intervals(df, means, ["iops"])
    assert len(data) == 2 and data["curve_pct"].tolist() == [50.0, 90.0]
    # t(0.975, 1) = 12.7062; s = 141.42 and 282.84; half width t x s / sqrt(2) = 1,270.6 and 2,541.2
    assert [round(v, 1) for v in data["iops_lo"]] == [8829.4, 15658.8]
    assert [round(v, 1) for v in data["iops_hi"]] == [11370.6, 20741.2]


def test_without_a_step_column_the_points_are_the_thread_counts():
    df = pd.DataFrame({"workload": ["rr"] * 3, "threads": [1, 2, 2], "iops": [100.0, 200.0, 220.0]})
    means = pd.DataFrame({"workload": ["rr", "rr"], "threads": [1, 2], "iops": [100.0, 210.0]})
    data = intervals.with_intervals(df, means, ["iops"])
    assert pd.isna(data["iops_lo"].iloc[0])  # measured once: no bar
    # s = 14.142; half width 12.7062 x 14.142 / sqrt(2) = 127.06
    assert (round(data["iops_lo"].iloc[1], 2), round(data["iops_hi"].iloc[1], 2)) == (82.94, 337.06)

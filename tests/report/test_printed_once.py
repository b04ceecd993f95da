"""Every figure is rounded once, where it is printed (flashpoc.core.numbers; tests/code checks that no module
below the present layer rounds to decimals). Rounded where it was computed and again where it was printed, a
SNIA slope of 676.5505 IOPS per round was stored as 676.55 (the float 676.549999...) and printed "+676.5".

The rounds here are generated so that their figures fall where a second rounding goes wrong: the least-squares
slope a few thousandths from a tie of its printed tenth (what rounding to 0.001 first would push over), the
excursions anywhere. Each printed figure must be the one computed from the rounds, rounded once.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, strategies as st

from flashpoc.analysis import rows
from flashpoc.campaign import precondition
from flashpoc.present import summary

#: residuals that move no least-squares line over 5 rounds: orthogonal to (1, 1, 1, 1, 1) and (-2, -1, 0, 1, 2)
FLAT = np.array([1.0, -2.0, 0.0, 2.0, -1.0])


@st.composite
def rounds_near_a_tie(draw) -> list[float]:
    """Five rounds' IOPS whose slope is within 0.0009 of a tie of its tenths (``k/10 + 0.05``)."""
    tenths = draw(st.integers(-20_000, 20_000))
    slope = tenths / 10 + 0.05 + draw(st.integers(-9, 9)) / 10_000
    mean = draw(st.floats(min_value=50_000.0, max_value=2_000_000.0, allow_nan=False))
    scatter = draw(st.floats(min_value=0.0, max_value=0.05)) * mean
    return [float(v) for v in mean + slope * np.arange(-2, 3) + scatter * FLAT / 2]


def _computed(iops: list[float]) -> dict[str, float]:
    """The window's figures from the rounds, as numpy computes them (the figures the workbook keeps)."""
    values = np.asarray(iops)
    mean, (slope, _) = values.mean(), np.polyfit(np.arange(5), values, 1)
    return {"mean": mean, "slope": slope, "data_pct": (values.max() - values.min()) / mean * 100,
            "slope_pct": abs(slope) * 4 / mean * 100}


@given(rounds_near_a_tie())
def test_snia_s_determination_of_the_write_rounds_prints_each_figure_rounded_once(iops):
    window = precondition.snia_window(iops)
    status = {"write_rounds": {"randwrite-4k": {"rounds": [{"round": i + 1, "iops": v} for i, v in enumerate(iops)],
                                                "round_s": 60, "threads": 4, "window": window, "steady": window["steady"]}}}
    (said,) = precondition.rounds_display(status).frame.to_dict("records")
    want = _computed(iops)
    assert said["Least-squares line (IOPS per round)"] == f"{want['slope']:+,.1f}"
    assert said["Window mean (IOPS)"] == f"{want['mean']:,.0f}"
    assert said["Data excursion, allowed / measured (%)"] == f"20 / {want['data_pct']:.1f}"
    assert said["Slope excursion, allowed / measured (%)"] == f"10 / {want['slope_pct']:.1f}"


@given(rounds_near_a_tie())
def test_a_point_s_steadiness_prints_each_figure_rounded_once(iops):
    """A point of five intervals (each a round): the verdicts the report prints of it."""
    verdict = rows.interval_verdict([{"iops": v} for v in iops])
    table = summary.steadiness_table(pd.DataFrame([{"workload": "randread-4k", "threads": 8, "iops": np.mean(iops),
                                                    **verdict}]))
    text = summary.steadiness_text(table)
    want = _computed(iops)
    values = np.asarray(iops)
    cv = values.std(ddof=1) / values.mean() * 100
    drift = want["slope"] * 4 / want["mean"] * 100
    if verdict["snia_steady"] is False:
        assert (f"data excursion {want['data_pct']:.1f} % (20 % allowed), slope excursion {want['slope_pct']:.1f} % "
                "(10 % allowed)") in text
    if verdict["interval_steady"] is False:
        assert f"scatter {cv:.1f} %, drift {drift:+.1f} %" in text
    assert verdict["snia_fit_slope_iops"] == want["slope"] and verdict["interval_iops_cv_pct"] == cv

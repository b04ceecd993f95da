"""A fall in IOPS past the peak (the load host overloaded) is not the array's plateau: recorded
probes whose 256-thread points fell 22-25 % below 128 threads (tests/data/probe/PROVENANCE.md)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from flashpoc.analysis import AdaptiveProbe, Point, find_saturation

DATA = Path(__file__).parent / "data" / "probe"


def recorded(name: str, method: str, repeat: int) -> list[Point]:
    """The probe points of one (method, repeat) of a recorded file, in the order measured."""
    with (DATA / name).open(newline="") as handle:
        return [Point(int(r["threads"]), float(r["iops"]), float(r["latency_ms"]), int(r["outstanding"]))
                for r in csv.DictReader(handle) if r["method"] == method and int(r["repeat"]) == repeat]


@pytest.mark.parametrize(("repeat", "fall_pct"), [(2, 24.7), (5, 22.5)])
def test_a_fall_past_the_peak_is_left_out_and_the_probe_does_not_halve(repeat, fall_pct):
    points = recorded("probe_fall_randread4k.csv", "default", repeat)
    doubling = points[:5]  # 16, 32, 64, 128, 256 threads: where the probe chose its next count
    assert [p.threads for p in doubling] == [16, 32, 64, 128, 256]
    sat = find_saturation(doubling)
    # 256 threads measured 69,394 / 69,698 IOPS against 92,152 / 89,945 at 128: not a plateau level
    assert sat.fall_threads == 128 and sat.fall_pct == fall_pct
    assert sat.kind == "plateau" and sat.threads == 128
    assert f"{sat.max_iops:,.0f}" == f"{doubling[3].iops:,.0f}"
    assert f"IOPS fall past 128 threads ({fall_pct:g} % below the peak)" in sat.reason
    # before: the fall pooled into the plateau, which then started at 16 threads, and the probe
    # halved down to 8 threads; now it measures between 64 and 128, where the answer is uncertain
    assert AdaptiveProbe(min_threads=1, max_threads=256, start=16).next_threads(doubling) == 96
    # the whole recorded probe: 256 threads stays out of the fit
    whole = find_saturation(points)
    assert whole.fall_threads == 128 and whole.fall_pct == fall_pct


@pytest.mark.parametrize("repeat", [1, 2, 5])
def test_a_top_count_a_few_percent_below_the_peak_is_no_fall(repeat):
    """The recorded probes' 256-thread points measured 1-5 % below 128 threads: the plateau."""
    sat = find_saturation(recorded("probe_repeats_randread4k.csv", "default", repeat))
    assert sat.fall_threads is None and sat.fall_pct is None and "fall" not in sat.reason

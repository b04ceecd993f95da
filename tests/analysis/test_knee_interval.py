"""How far the knee moves when the curve is measured again (analysis.knee_interval), on real curves:
the seed POC's probe and two sweeps of one disk recorded by benchmarks/probe_strategies.py
(tests/data/probe/PROVENANCE.md)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from conftest import DATA
from flashpoc.analysis import Point, find_knee, knee_interval
from flashpoc.core.errors import AnalysisError



def curve(path: Path, method: str | None = None) -> list[Point]:
    with path.open(newline="") as handle:
        return [Point(int(r["threads"]), float(r["iops"]), float(r["latency_ms"]), int(r["outstanding"]))
                for r in csv.DictReader(handle) if method is None or r["method"] == method]


def sweeps() -> tuple[list[Point], list[Point]]:
    """The default method's sweep (knee-dense, up to its answer of 32 threads) and the guide's (every
    count 1..40), measured one after the other on the same disk."""
    path = DATA / "probe" / "sweep_curves_randread4k.csv"
    return curve(path, "default"), curve(path, "guide")


def test_the_seeds_knee_lies_in_its_interval():
    seed = curve(DATA / "seed_probe.csv")
    assert find_knee(seed).threads == 200
    assert knee_interval(seed) == (200, 400)


def test_two_sweeps_of_one_disk_disagree_beyond_their_points_but_within_the_knees_own_uncertainty():
    """benchmarks/probe_strategies.py's knee test: the guide curve's knee (20 threads on the range both
    curves cover, 1-32) lies outside the default curve's points either side of its knee (12: 9 and 15
    threads), yet each knee lies in the other's bootstrap interval: the knee of this gently bending,
    noisy curve is not known to better than about 10 threads, whatever the method."""
    default, guide = sweeps()
    common = [p for p in guide if p.threads <= max(p.threads for p in default)]
    assert (find_knee(default).threads, find_knee(common).threads, find_knee(guide).threads) == (12, 20, 20)
    counts = sorted(p.threads for p in default)
    assert counts[counts.index(12) - 1:counts.index(12) + 2] == [9, 12, 15]
    assert knee_interval(default) == (12, 23) and knee_interval(common) == (5, 20)
    assert knee_interval(guide) == (11, 20)


def test_no_knee_no_interval_and_bad_input_is_named():
    straight = [Point(t, 1000.0 * t, 1.0 * t) for t in (1, 2, 3, 4)]
    assert find_knee(straight) is None and knee_interval(straight) is None
    with pytest.raises(AnalysisError, match="n_boot must be a whole number >= 1"):
        knee_interval(sweeps()[0], n_boot=0)
    with pytest.raises(AnalysisError, match="no points"):
        knee_interval([])

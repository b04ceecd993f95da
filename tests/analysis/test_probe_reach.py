"""Where the fitted curve reaches its plateau (analysis.reach_threads), and the adaptive probe that
refines by repeats of the two counts bracketing its answer, on real probe points
(tests/data/probe/PROVENANCE.md) and the seed POC's."""

from __future__ import annotations

import csv

import pytest

from flashpoc.analysis import AdaptiveProbe, Point, find_saturation, reach_threads
from flashpoc.core.errors import AnalysisError
from test_probe_repeats import SEED, recorded


def seed() -> list[Point]:
    return [Point(int(r["threads"]), float(r["iops"]), float(r["latency_ms"])) for r in csv.DictReader(SEED.open())]


def test_reach_on_the_seed_is_the_crossing_of_its_measured_curve():
    """The seed's concave fit goes through 100 and 200 threads and pools the three flat counts
    (test_probe_repeats): 90 % of the plateau is crossed between 100 and 200 threads, linearly."""
    plateau = (655968.63 + 655948.78 + 655956.88) / 3
    expected = 100 + 100 * (0.9 * plateau - 558627.66) / (638711.22 - 558627.66)
    assert reach_threads(seed(), 0.9) == pytest.approx(expected, rel=1e-9)
    assert round(reach_threads(seed(), 0.9), 2) == 139.63
    assert reach_threads(seed(), 1.0) == 300.0  # the first count at the plateau's level
    # within the noise: the seed lies on its curve (scatter of a few IOPS), so 98 % (gain_pct 2):
    # between 200 and 300 threads, where the fit's plateau starts (find_saturation: 300)
    assert round(reach_threads(seed()), 1) == 223.8
    assert find_saturation(seed()).threads == 300


@pytest.mark.parametrize(("repeat", "noise", "ninety", "plateau"), [
    (1, 31.2, 27.5, 32),
    (2, 44.5, 31.9, 48),
    (5, 49.5, 39.4, 64),
])
def test_reach_on_the_recorded_default_probes(repeat, noise, ninety, plateau):
    """Each recorded default probe: the curve reaches its plateau within the points' noise below
    the fit's plateau start, and 90 % of it lower still."""
    points = recorded()[("default", repeat)]
    assert round(reach_threads(points), 1) == noise
    assert round(reach_threads(points, 0.9), 1) == ninety
    assert find_saturation(points).threads == plateau


def test_reach_refuses_what_it_cannot_read():
    with pytest.raises(AnalysisError, match="3 or more distinct thread counts, got 2"):
        reach_threads(seed()[:2])
    with pytest.raises(AnalysisError, match="share must be > 0 and <= 1, got 1.5"):
        reach_threads(seed(), 1.5)
    with pytest.raises(AnalysisError, match="gain_pct must be > 0"):
        reach_threads(seed(), gain_pct=0)


def test_repeats_only_measures_again_the_answer_and_the_count_below_it():
    """Recorded default repeat 1 before its refine point (16..256): plateau from 64 threads. The
    default probe has its answer (a found plateau is not bisected); repeats_only measures 64 again,
    then 32 (the count below it), one round or one at a time."""
    ladder = [p for p in recorded()[("default", 1)] if p.threads != 96]
    assert find_saturation(ladder).threads == 64
    assert AdaptiveProbe(1, 256, budget=2).next_round(ladder) == []
    probe = AdaptiveProbe(1, 256, budget=2, repeats_only=True)
    assert probe.next_round(ladder) == [64, 32]
    again = [p for p in recorded()[("default", 2)] if p.threads == 64]  # a real point at 64 threads
    assert probe.next_threads(ladder) == 64 and probe.next_threads(ladder + again) == 32
    assert AdaptiveProbe(1, 256, budget=1, repeats_only=True).next_threads(ladder + again) is None  # budget spent

"""The probe never answers below a count that measured more (beyond the points' noise): a shape's
misfit is not noise (analysis.fit._curve_fit: a curve that bends upwards first, one rising at every
count), and an answer a later count beats moves up (analysis.saturation._unbeaten).

TPROCC_RAMP is issue 29's series: a real HammerDB 6.0 TPROC-C probe on PostgreSQL, NOPM at 1-4
virtual users as its run printed them; the probe answered "stop rising at 1 virtual user, plateau
26,028, confidence 77 %" (the concave curve's misfit at 1 virtual user, +51 %, taken for noise:
+-40.4 %), and the sweep ran 1 virtual user."""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from flashpoc.analysis import Point, find_saturation
from test_probe_repeats import recorded

TPROCC_RAMP = {1: 8305, 2: 15371, 3: 36686, 4: 50728}
GAIN = 0.02


def ramp_points(repeats: dict[int, list[float]] | None = None) -> list[Point]:
    """TPROCC_RAMP as points (latency: NEWORD p95 is not what the answer reads), each count once or
    at the relative deviations of ``repeats``."""
    factors = repeats or {}
    return [Point(t, nopm * (1.0 + f), 1.0) for t, nopm in TPROCC_RAMP.items() for f in factors.get(t, [0.0])]


def test_the_recorded_tprocc_ramp_is_still_rising():
    sat = find_saturation(ramp_points())
    assert not sat.supported and sat.threads is None and sat.kind == "still_rising"
    assert sat.reason == ("IOPS still rising at 4 threads, the highest measured (+38.3% over 3 threads): no later "
                          "point confirms a plateau; extend the probe beyond 4 threads.")
    assert sat.noise == 0.0  # every count measured more than the one below: no scatter left to call noise


def test_repeats_whose_scatter_cannot_explain_the_concave_misfit_reject_it():
    """Each count measured twice, 1 % apart: the concave curve misses 1 virtual user by half, which
    the repeats' scatter (the pure error of the lack-of-fit F test) cannot explain; the noise is the
    scatter around the isotonic curve, the repeats'."""
    sat = find_saturation(ramp_points({t: [-0.005, 0.005] for t in TPROCC_RAMP}))
    assert sat.kind == "still_rising"
    assert sat.noise == pytest.approx(0.005 * math.sqrt(8 / 4), rel=1e-4)  # +-0.5 % over 8 points - 4 levels


def test_the_ramp_then_its_plateau_answers_at_the_plateau():
    """The recorded ramp and a fifth count at 4 virtual users' level (50,100): an S, not a concave
    curve with +-40 % of noise; the plateau starts at 4 virtual users."""
    sat = find_saturation([*ramp_points(), Point(5, 50100.0, 1.0)])
    assert sat.kind == "plateau" and sat.threads == 4 and f"{sat.max_iops:,.0f}" == "50,414"
    assert sat.noise == pytest.approx((50728 / 50414 - 1) * math.sqrt(2), abs=1e-6)  # +-0.62 % at 4 and 5, 1 dof left


def test_a_recorded_combination_answers_where_it_stops_rising():
    """Ladder points of the recorded default probes (tests/data/probe: 16-64 threads of repeat 1, 128
    and 256 of repeat 2): 128 threads measured 93,467 IOPS, 10.1 % more than 64 (84,898), beyond the
    gain and the noise (+-2.7 %, one-sided 95 % over the two counts above 64: 2 % + 1.96 x 2.7 % x sqrt(2)
    = 9.4 %); the bootstrap's median said 64."""
    probes = recorded()
    pick = {16: 1, 32: 1, 64: 1, 128: 2, 256: 2}
    points = [p for t, r in pick.items() for p in probes[("default", r)] if p.threads == t]
    assert [round(p.iops) for p in points] == [67804, 83084, 84898, 93467, 88711]
    sat = find_saturation(points)
    assert sat.kind == "plateau" and sat.threads == 128 and sat.noise == pytest.approx(0.026771, abs=1e-6)
    assert f"{sat.max_iops:,.0f}" == "91,089" and sat.range_threads == (32, 128)
    assert beaten(points, sat) == []


def beaten(points: list[Point], sat) -> list[tuple[int, float]]:
    """The counts above the answer (up to a fall past the peak) whose mean IOPS exceed the answer
    count's by more than the gain and the noise (one-sided 95 % over the counts compared, Bonferroni):
    none, for a sound answer."""
    counts = sorted({p.threads for p in points if p.threads >= sat.threads and
                     (sat.fall_threads is None or p.threads <= sat.fall_threads)})
    z = NormalDist().inv_cdf(1.0 - 0.05 / max(1, len(counts) - 1))
    at = [p.iops for p in points if p.threads == sat.threads]
    out = []
    for c in counts[1:]:
        ys = [p.iops for p in points if p.threads == c]
        margin = GAIN + z * sat.noise * math.sqrt(1.0 / len(ys) + 1.0 / len(at))
        if np.mean(ys) > np.mean(at) * (1.0 + margin) * (1.0 + 1e-9):
            out.append((c, float(np.mean(ys))))
    return out


@st.composite
def rising_series(draw) -> list[Point]:
    """A curve that rises at every count by more than the gain beyond its noise: every point of a
    count measures more than every point of the count below it by over 2 %."""
    n = draw(st.integers(3, 9))
    first, step = draw(st.integers(1, 16)), draw(st.integers(1, 16))
    noise = draw(st.floats(0.0, 0.1))
    least = (1.0 + GAIN) * (1.0 + noise) / (1.0 - noise) - 1.0
    rises = draw(st.lists(st.floats(least + 1e-3, least + 2.0), min_size=n - 1, max_size=n - 1))
    levels = 1000.0 * np.cumprod([1.0, *(1.0 + r for r in rises)])
    points = []
    for j, level in enumerate(levels):
        for _ in range(draw(st.integers(1, 3))):
            points.append(Point(first + step * j, float(level * (1.0 + draw(st.floats(-noise, noise)))), 1.0))
    return draw(st.permutations(points))


@settings(max_examples=150, deadline=None)
@given(rising_series())
@example([Point(1, 1000.0, 1.0), Point(2, 2000.0, 1.0), Point(3, 4000.0, 1.0), Point(4, 8000.0, 1.0),
          Point(5, 16000.0, 1.0), Point(5, 17000.0, 1.0), Point(6, 24000.0, 1.0)])  # was: plateau from 5
@example([Point(1, 1000.0, 1.0), Point(2, 2000.0, 1.0), Point(3, 4000.0, 1.0), Point(3, 4250.0, 1.0),
          Point(4, 4687.5, 1.0)])  # was: plateau from 3
def test_a_rising_series_is_never_answered_below_its_best_point(points):
    sat = find_saturation(points)
    best = max(p.threads for p in points)
    assert not sat.supported or sat.threads == best, sat.reason
    assert not beaten(points, sat) if sat.supported else True


SHAPES = {
    "linear then flat": lambda t, knee, k: np.minimum(t, knee) / knee,
    "logistic": lambda t, knee, k: 1.0 / (1.0 + np.exp(-k * (t - knee / 2.0) / knee)),
    "power then flat": lambda t, knee, k: (np.minimum(t, knee) / knee) ** (1.0 + k / 5.0),
    "exponential approach": lambda t, knee, k: 1.0 - np.exp(-t * k / 3.0 / knee),
}


@st.composite
def saturating_curves(draw) -> list[Point]:
    """A saturating curve of one of SHAPES (flat from ``knee``; bending upwards first, for the
    logistic and the power), optionally declining past the knee, measured with up to 15 % noise."""
    n = draw(st.integers(3, 9))
    step = draw(st.integers(1, 20))
    threads = np.arange(1, n + 1) * step
    shape = SHAPES[draw(st.sampled_from(sorted(SHAPES)))]
    curve = shape(threads.astype(float), draw(st.floats(step, 1.3 * threads[-1])), draw(st.floats(2.0, 10.0)))
    curve = curve * (1.0 - draw(st.floats(0.0, 0.15)) * np.maximum(0, threads - threads[n // 2]) / threads[-1])
    noise, repeats = draw(st.floats(0.0, 0.15)), draw(st.integers(1, 2))
    return [Point(int(t), max(1.0, float(1e5 * y * (1.0 + draw(st.floats(-noise, noise))))), 1.0)
            for t, y in zip(threads, curve) for _ in range(repeats)]


@settings(max_examples=200, deadline=None)
@given(saturating_curves())
def test_no_count_above_the_answer_measured_more_beyond_the_noise(points):
    sat = find_saturation(points)
    if sat.supported:
        assert beaten(points, sat) == [], sat.reason

"""Tests of flashpoc.analysis: saturation, knee, IOPS at a latency SLO, Little's law, probes."""

from __future__ import annotations

import math

import numpy as np
import pytest

from flashpoc.analysis import (
    AT_LEAST,
    AT_MOST,
    EXACT,
    AdaptiveProbe,
    Bound,
    Point,
    Saturation,
    find_knee,
    find_saturation,
    iops_at_latency,
    linear_probe_threads,
    littles_law,
    start_threads,
)
from flashpoc.core.errors import AnalysisError

# The POC's vdbench probe: forthreads=(100-500,100), 4 SDs per thread.
SEED_THREADS = [100, 200, 300, 400, 500]
SEED_IOPS = [558627.66, 638711.22, 655968.63, 655948.78, 655956.88]
SEED_LATENCY_MS = [0.714, 1.250, 1.827, 2.437, 3.046]
SDS = 4


@pytest.fixture
def seed() -> list[Point]:
    return [Point(t, i, lat, t * SDS) for t, i, lat in zip(SEED_THREADS, SEED_IOPS, SEED_LATENCY_MS)]


def grid_points(threads: list[int], iops_thousands: list[int]) -> list[Point]:
    return [Point(t, y * 1000.0, 1.0) for t, y in zip(threads, iops_thousands)]


GRID8 = [8, 16, 24, 32, 40, 48, 56, 64]

# --- the seed POC data -----------------------------------------------------------------------


def test_seed_saturates_at_300_threads(seed):
    sat = find_saturation(seed)
    assert isinstance(sat, Saturation)
    assert sat.supported
    assert sat.threads == 300
    assert sat.rule_threads == 300
    assert f"{sat.max_iops:,.0f}" == "655,957"  # median of the 300/400/500 plateau points
    assert sat.range_threads == (300, 300)
    assert sat.confidence == 1.0
    assert sat.reason.startswith("IOPS plateau at 655,957 IOPS from 300 threads") and sat.kind == "plateau"
    assert "isotonic" in sat.method


def test_seed_answer_is_deterministic_and_order_free(seed):
    assert find_saturation(seed) == find_saturation(list(reversed(seed)))


def test_repeated_thread_counts_are_pooled(seed):
    # Each count measured twice, +-0.1 %: the means are the seed's, the answer too.
    repeated = [Point(p.threads, p.iops * f, p.latency_ms) for p in seed for f in (0.999, 1.001)]
    sat = find_saturation(repeated)
    assert sat.supported and sat.threads == 300 and sat.rule_threads == 300
    assert sat.max_iops == pytest.approx(655958, rel=1e-3)


def test_repeat_noise_widens_the_tolerance(seed):
    # +-0.5 % between repeats: 200 threads (2.6 % below the plateau) is no longer shown to be
    # more than 2 % below it, and the range says so.
    repeated = [Point(p.threads, p.iops * f, p.latency_ms) for p in seed for f in (0.995, 1.005)]
    sat = find_saturation(repeated)
    assert sat.supported and sat.threads == 200 and sat.range_threads == (200, 300)


def test_littles_law_on_the_seed(seed):
    check = littles_law(seed[0])
    assert check["expected"] == 400  # 100 threads x 4 SDs
    assert check["measured"] == pytest.approx(558627.66 * 0.714 / 1000)
    assert round(check["measured"], 2) == 398.86
    assert check["ratio"] == pytest.approx(398.86014924 / 400)
    assert check["ok"] is True


def test_littles_law_uses_threads_without_outstanding():
    check = littles_law(Point(100, 558627.66, 0.714))
    assert check["expected"] == 100
    assert check["ratio"] == pytest.approx(3.9886, abs=1e-4)
    assert check["ok"] is False


def test_littles_law_tolerance_bounds():
    point = Point(10, 10000.0, 1.2)  # 12 in flight vs 10 expected: +20 %
    assert littles_law(point, tolerance=0.25)["ok"] is True
    assert littles_law(point, tolerance=0.1)["ok"] is False
    with pytest.raises(AnalysisError, match="tolerance"):
        littles_law(point, tolerance=-0.1)


def test_knee_of_the_seed_is_200_threads(seed):
    knee = find_knee(seed)
    assert knee is seed[1]
    assert (knee.threads, knee.iops, knee.latency_ms) == (200, 638711.22, 1.25)


def test_knee_none_without_a_convex_bend(seed):
    assert find_knee(seed[:2]) is None
    straight = [Point(t, 1000.0 * t, 0.01 * t) for t in (10, 20, 30, 40)]  # latency linear in IOPS
    assert find_knee(straight) is None
    concave = [Point(t, 1000.0 * t, math.sqrt(t)) for t in (10, 20, 30, 40)]  # latency flattens
    assert find_knee(concave) is None


def test_iops_at_1ms_interpolates_between_100_and_200_threads(seed):
    result = iops_at_latency(seed, 1.0)
    expected = 558627.66 + (1 - 0.714) / (1.250 - 0.714) * (638711.22 - 558627.66)
    assert result.kind == EXACT and not result.why
    assert result.value == pytest.approx(expected)
    assert 558627.66 < result.value < 638711.22


def test_iops_at_latency_is_a_value_or_a_bound(seed):
    assert iops_at_latency(seed, 1.25) == Bound(638711.22)
    # every point under 10 ms: at least the most measured
    assert iops_at_latency(seed, 10.0) == Bound(655968.63, AT_LEAST, "under 10 ms at every point measured")
    # the lightest load (100 threads: 558,627.66 IOPS at 0.714 ms) is already over 0.5 ms: at most that
    assert iops_at_latency(seed, 0.5) == Bound(558627.66, AT_MOST,
                                               "over 0.5 ms already at its lightest load (100 threads, 0.714 ms)")
    with pytest.raises(AnalysisError, match="latency_ms"):
        iops_at_latency(seed, 0)


def test_iops_at_latency_is_never_below_a_point_measured_under_it():
    # Latency dips after crossing the SLO (1.1 ms at 30 threads, 0.8 at 40, 1.3 at 50): the most IOPS
    # within 1 ms is where 40 -> 50 threads crosses it, above the first crossing (250), and says why
    points = [Point(10, 100.0, 0.5), Point(20, 200.0, 0.9), Point(30, 300.0, 1.1), Point(40, 400.0, 0.8),
              Point(50, 450.0, 1.3)]
    result = iops_at_latency(list(reversed(points)), 1.0)
    assert result.kind == EXACT and result.value == pytest.approx(400 + 0.2 / 0.5 * 50)
    assert result.why == ("an uneven curve: over 1 ms at 30 threads (1.100 ms), under it again at 40 threads "
                          "(0.800 ms): the most IOPS measured within it count")
    # the heaviest load under the SLO again: at least its IOPS
    bound = iops_at_latency(points[:4], 1.0)
    assert (bound.value, bound.kind) == (400.0, AT_LEAST)
    assert bound.why.startswith("under 1 ms at its heaviest load measured; an uneven curve")


# --- noise: the fit against the neighbour rule ------------------------------------------------

TRUE_SATURATION = 36  # threads where the generating curve flattens


def noisy_curve(repeat: int, threads: list[int], decline_pct: float) -> list[Point]:
    """IOPS = 500k x min(t, 36)/36, declining decline_pct % from 36 to 72 threads, x U(-12 %, +12 %)."""
    t = np.asarray(threads, dtype=float)
    clean = 500_000 * np.minimum(t, TRUE_SATURATION) / TRUE_SATURATION
    clean *= 1 - decline_pct / 100 * np.maximum(t - TRUE_SATURATION, 0) / TRUE_SATURATION
    noise = np.random.default_rng(repeat).uniform(-0.12, 0.12, len(threads))
    return [Point(int(a), float(b), 1.0) for a, b in zip(threads, clean * (1 + noise))]


def spread(answers: np.ndarray) -> float:
    """Mean absolute deviation of the answers from their median (threads)."""
    return float(np.mean(np.abs(answers - np.median(answers))))


@pytest.mark.parametrize(("threads", "decline_pct"), [
    (GRID8, 0.0),
    (GRID8, 10.0),
    (list(range(4, 65, 4)), 0.0),
])
def test_fit_varies_less_than_the_neighbour_rule(threads, decline_pct):
    results = [find_saturation(noisy_curve(r, threads, decline_pct)) for r in range(50)]
    beyond = threads[-1] + threads[1] - threads[0]  # "no answer" counts as one step past the probe
    fit = np.array([s.threads if s.supported else beyond for s in results])
    rule = np.array([s.rule_threads if s.rule_threads is not None else beyond for s in results])
    step = threads[1] - threads[0]

    # Measured (seeds 0..49): spread 5.9 / 2.4 / 5.2 threads against the rule's 6.9 / 5.6 / 8.2.
    assert spread(fit) < spread(rule)
    # Within one probe step of the true 36 threads: fit 90 / 92 / 82 %, rule 22 / 44 / 40 %.
    near_fit = np.mean(np.abs(fit - TRUE_SATURATION) <= step)
    near_rule = np.mean(np.abs(rule - TRUE_SATURATION) <= step)
    assert near_fit >= 0.8
    assert near_fit >= near_rule + 0.3
    # The plausible range holds the true saturation in most repeats (88 / 88 / 92 %).
    covered = [s.supported and s.range_threads[0] <= TRUE_SATURATION <= s.range_threads[1] for s in results]
    assert np.mean(covered) >= 0.8
    assert np.mean([s.supported for s in results]) >= 0.9


def test_single_spike_on_the_plateau_does_not_make_it_rise():
    # The last point is 5 % high: the neighbour rule finds no confirmed point, the fit does.
    sat = find_saturation(grid_points(GRID8, [23, 44, 73, 96, 101, 104, 95, 102]))
    assert sat.supported and sat.threads == 32 and sat.range_threads == (32, 40)
    assert sat.rule_threads == 48


# --- unsupported answers -----------------------------------------------------------------------


def test_fewer_than_three_thread_counts_is_no_answer(seed):
    two = seed[:2] + [Point(200, 640000.0, 1.3)]
    sat = find_saturation(two)
    assert not sat.supported and sat.threads is None and sat.max_iops is None
    assert "2 distinct thread count" in sat.reason and "at least 3" in sat.reason
    assert sat.kind == "too_few"


def test_still_rising_at_the_top_asks_to_extend_the_probe():
    sat = find_saturation([Point(t, 1000.0 * t, 1.0) for t in (100, 200, 300, 400, 500)])
    assert not sat.supported and sat.threads is None and sat.range_threads is None
    assert sat.reason.startswith("IOPS still rising at 500 threads") and sat.kind == "still_rising"
    assert "extend the probe beyond 500 threads" in sat.reason
    assert sat.rule_threads is None


def test_maybe_still_rising_when_resamples_reach_the_top():
    # A noisy linear ramp, 48 threads 20 % low: the point estimate says 56, but the range reaches 64.
    sat = find_saturation(grid_points(GRID8, [38, 89, 115, 171, 218, 188, 276, 310]))
    assert not sat.supported and sat.threads is None
    assert sat.range_threads == (40, 64)
    assert sat.reason.startswith("IOPS may still be rising at 64 threads") and sat.kind == "maybe_rising"
    assert "extend the probe" in sat.reason


def test_a_ramp_rising_at_every_count_is_still_rising():
    # Each count measured more than the one below: no scatter is left to call noise (the concave
    # curve's misfit, +-8 %, once made this "may still be rising, from 56 threads").
    sat = find_saturation(grid_points(GRID8, [38, 89, 115, 171, 218, 234, 276, 310]))
    assert sat.kind == "still_rising" and sat.noise == 0.0
    assert sat.reason.startswith("IOPS still rising at 64 threads, the highest measured (+12.3% over 56 threads)")


def test_too_noisy_when_the_range_spans_most_of_the_probe():
    sat = find_saturation(grid_points(GRID8, [118, 266, 379, 383, 450, 593, 376, 580]))
    assert not sat.supported and sat.threads is None and sat.range_threads is not None
    lo, hi = sat.range_threads
    assert hi - lo > 0.5 * (64 - 8)
    assert sat.reason.startswith("Too noisy to locate the plateau") and sat.kind == "too_noisy"


def test_flat_from_the_first_point_says_so():
    sat = find_saturation(grid_points(GRID8, [100] * 8))
    assert sat.supported and sat.threads == 8
    assert "lowest count measured" in sat.reason


@pytest.mark.parametrize("points", [[], None, [(100, 1.0, 1.0)]])
def test_bad_point_lists_raise(points):
    with pytest.raises(AnalysisError):
        find_saturation(points)


@pytest.mark.parametrize(("kwargs", "name"), [
    ({"threads": 0, "iops": 1.0, "latency_ms": 1.0}, "threads"),
    ({"threads": 1.5, "iops": 1.0, "latency_ms": 1.0}, "threads"),
    ({"threads": 1, "iops": -1.0, "latency_ms": 1.0}, "iops"),
    ({"threads": 1, "iops": float("nan"), "latency_ms": 1.0}, "iops"),
    ({"threads": 1, "iops": 1.0, "latency_ms": float("inf")}, "latency_ms"),
    ({"threads": 1, "iops": "1", "latency_ms": 1.0}, "iops"),
    ({"threads": 1, "iops": 1.0, "latency_ms": 1.0, "outstanding": 0}, "outstanding"),
])
def test_invalid_points_raise_naming_the_field(kwargs, name):
    with pytest.raises(AnalysisError, match=name):
        Point(**kwargs)


def test_bad_saturation_arguments_raise(seed):
    with pytest.raises(AnalysisError, match="gain_pct"):
        find_saturation(seed, gain_pct=0)
    with pytest.raises(AnalysisError, match="n_boot"):
        find_saturation(seed, n_boot=0)


# --- probes ------------------------------------------------------------------------------------


def seed_curve(threads: int) -> Point:
    """The seed curve interpolated (IOPS from 0 at 0 threads, flat beyond 500)."""
    iops = float(np.interp(threads, [0] + SEED_THREADS, [0.0] + SEED_IOPS))
    latency = float(np.interp(threads, [0] + SEED_THREADS, [0.5] + SEED_LATENCY_MS))
    return Point(threads, iops, latency)


def run_probe(probe: AdaptiveProbe, measure) -> list[Point]:
    """The probe one point at a time (a count chosen again is measured again)."""
    points: list[Point] = []
    while (threads := probe.next_threads(points)) is not None:
        points.append(measure(threads))
        assert len(points) < 50
    return points


def test_linear_probe_threads_is_the_guide_forthreads():
    assert linear_probe_threads(100, 500, 100) == [100, 200, 300, 400, 500]
    assert linear_probe_threads(1, 9, 3) == [1, 4, 7]
    for args, name in (((100, 500, 0), "step"), ((0, 500, 100), "lo"), ((300, 200, 100), "hi")):
        with pytest.raises(AnalysisError, match=name):
            linear_probe_threads(*args)


def test_the_probe_starts_where_saturation_can_be():
    """The middle of the range on a log scale (on the doubling ladder from min_threads), at least
    one outstanding I/O per CPU of a host, at most max_threads."""
    assert start_threads(1, 256) == 16
    assert start_threads(1, 64) == 8
    assert start_threads(20, 500) == 80
    assert start_threads(8, 40) == 16
    assert start_threads(1, 256, cpus=64) == 64
    assert start_threads(1, 256, cpus=64, outstanding_per_thread=8) == 16  # iodepth 8: 8 threads fill 64 CPUs
    assert start_threads(1, 32, cpus=64) == 32
    assert start_threads(5, 5) == 5
    with pytest.raises(AnalysisError, match="max_threads"):
        start_threads(10, 5)


def test_adaptive_probe_brackets_the_linear_answer_with_fewer_runs():
    """From the middle of 20..500 (80 threads), the doubling brackets the plateau in 4 runs instead
    of 25: IOPS stop rising at 320 threads, 160 measured 92 % of the most; the linear probe's 240
    lies between them, in the range the sweep covers (up to 320), within 2x of the answer."""
    linear = [seed_curve(t) for t in linear_probe_threads(20, 500, 20)]
    adaptive = run_probe(AdaptiveProbe(min_threads=20, max_threads=500, step=20), seed_curve)
    assert [p.threads for p in adaptive] == [80, 160, 320, 500]
    sat = find_saturation(adaptive)
    assert (sat.threads, sat.reach_threads, sat.range_threads) == (320, 320, (320, 320))
    assert 160 < find_saturation(linear).threads == 240 < 320
    assert len(adaptive) == 4 < len(linear) == 25


def test_a_plateau_found_is_not_refined_whatever_the_budget():
    """The answer is the range from the fewest count reaching 95 % of the most measured to where
    IOPS stop rising, which the sweep measures at its own step: a refine budget is spent only
    where the probe has no answer (or on repeats, refine_repeats), never bisecting a found plateau."""
    for budget in (1, 5):
        refined = run_probe(AdaptiveProbe(min_threads=20, max_threads=500, step=20, budget=budget), seed_curve)
        assert [p.threads for p in refined] == [80, 160, 320, 500]
    assert AdaptiveProbe(min_threads=20, max_threads=500, step=20, budget=5).next_round(
        [seed_curve(t) for t in (80, 160, 320, 500)]) == []


def test_adaptive_probe_on_the_guide_grid_brackets_300():
    """On the guide's grid: IOPS stop rising at 400 threads, 200 already measured 97 % of the plateau:
    the range to sweep, 200 to 400 threads, holds the linear probe's 300."""
    adaptive = run_probe(AdaptiveProbe(min_threads=100, max_threads=500, step=100), seed_curve)
    assert [p.threads for p in adaptive] == [200, 400, 500]
    sat = find_saturation(adaptive)
    assert (sat.threads, sat.reach_threads, round(sat.reach_share, 4)) == (400, 200, 0.9737)


def test_adaptive_probe_without_refine_stops_at_confirmation():
    adaptive = run_probe(AdaptiveProbe(min_threads=20, max_threads=500, step=20, refine=False), seed_curve)
    assert [p.threads for p in adaptive] == [80, 160, 320, 500]
    assert find_saturation(adaptive).threads == 320


def test_adaptive_probe_stops_at_max_threads_when_still_rising():
    probe = AdaptiveProbe(min_threads=1, max_threads=100)
    points = run_probe(probe, lambda t: Point(t, 1000.0 * t, 1.0))
    assert [p.threads for p in points] == [8, 16, 32, 64, 100]  # never 1, 2 or 4 threads
    sat = find_saturation(points)
    assert not sat.supported and sat.kind == "still_rising"


def test_adaptive_probe_halves_when_the_plateau_starts_at_its_first_count():
    """IOPS flat from 2 threads: 8, 16 and 32 threads are all on the plateau, so the threads halve
    until 1 thread is below it."""
    flat = {1: 50e3}
    points = run_probe(AdaptiveProbe(min_threads=1, max_threads=64),
                       lambda t: Point(t, flat.get(t, 100e3), t / flat.get(t, 100e3) * 1000))
    assert [p.threads for p in points] == [8, 16, 32, 4, 2, 1]
    assert find_saturation(points).threads == 2


def littles_curve(threads: int, base_latency_ms: float = 1.0, max_iops: float = 500e3) -> Point:
    """An array that keeps its latency until it delivers max_iops (500 threads at 1 ms)."""
    iops = min(threads / base_latency_ms * 1000, max_iops)
    return Point(threads, iops, threads / iops * 1000)


def test_expected_iops_skip_what_littles_law_rules_out():
    """500K IOPS at the 1 ms measured at 64 threads take 500 I/Os in flight: 128 threads cannot
    be on the plateau, so the doubling goes from 64 to 256."""
    plain = run_probe(AdaptiveProbe(min_threads=1, max_threads=4096, step=32), littles_curve)
    told = run_probe(AdaptiveProbe(min_threads=1, max_threads=4096, step=32, expected_iops=500e3), littles_curve)
    assert [p.threads for p in plain] == [64, 128, 256, 512, 1024]
    assert [p.threads for p in told] == [64, 256, 512, 1024]
    assert find_saturation(plain).threads == find_saturation(told).threads == 512


def test_adaptive_probe_checks_its_arguments():
    assert AdaptiveProbe(min_threads=4).next_threads([]) == 32  # the middle of 4..256
    assert AdaptiveProbe(min_threads=4, start=4).next_threads([]) == 4
    assert AdaptiveProbe(max_threads=64, start=100).start == 64
    assert AdaptiveProbe(max_threads=256).max_points() == 9 + 1  # the ladder 1..256 and one refine point
    assert AdaptiveProbe(max_threads=256, budget=3).max_points(remeasure=True) == 2 * (9 + 3)
    for kwargs, name in (({"min_threads": 10, "max_threads": 5}, "max_threads"), ({"step": 0}, "step"),
                         ({"start": 0}, "start"), ({"budget": -1}, "budget"), ({"resolution": 0}, "resolution"),
                         ({"expected_iops": 0}, "expected_iops")):
        with pytest.raises(AnalysisError, match=name):
            AdaptiveProbe(**kwargs)


# Probe points measured on this kind of 2-vCPU machine (4K random read, 3 s points,
# benchmarks/probe_strategies.py; the adaptive and linear probes of one repeat, rounded to
# the printed K): thread count -> IOPS.
NOISY_DIP = {1: 17e3, 2: 30e3, 4: 50e3, 8: 72e3, 16: 101e3, 32: 83e3, 64: 100e3, 12: 85e3, 24: 99e3, 20: 96e3}
MARGINAL_TOP = {1: 17e3, 2: 30e3, 4: 48e3, 8: 75e3, 16: 92e3, 32: 99.0e3, 64: 101.1e3, 48: 105e3, 40: 108e3,
                56: 102e3, 24: 106e3, 28: 106e3, 20: 97e3, 36: 108e3, 44: 106e3, 12: 80e3}


def table_probe(table):
    return lambda t: Point(t, table[t], t / table[t] * 1000)


def test_a_noisy_dip_answers_a_range_without_refining():
    """16 threads peaked at 101K, 32 dipped to 83K: the plateau may start anywhere from 8 to 16
    threads. Found, it is not refined, with any budget: the range to sweep runs from 8 threads (where
    IOPS stop rising) to 16 (the fewest reaching 95 % of the most measured, 16's 101K)."""
    for budget in (1, 3):
        points = run_probe(AdaptiveProbe(min_threads=1, max_threads=64, step=4, budget=budget), table_probe(NOISY_DIP))
        assert [p.threads for p in points] == [8, 16, 32, 4]
    sat = find_saturation(points)
    assert (sat.threads, sat.range_threads, sat.reach_threads) == (8, (8, 16), 16)


def test_a_noisy_top_leaves_no_answer_until_refined():
    """32 -> 64 threads gained 2.1 % and 48 threads gave 105K: with one refine point the plateau
    could start anywhere from 16 to 48 (too noisy); with three the probe finds 24 threads (the
    linear probe of that run said 24) and stops there, a refine point to spare."""
    points = run_probe(AdaptiveProbe(min_threads=1, max_threads=64, step=4), table_probe(MARGINAL_TOP))
    assert [p.threads for p in points] == [8, 16, 32, 64, 48]
    sat = find_saturation(points)
    assert not sat.supported and sat.kind == "too_noisy" and sat.range_threads == (16, 48)
    points = run_probe(AdaptiveProbe(min_threads=1, max_threads=64, step=4, budget=3), table_probe(MARGINAL_TOP))
    assert [p.threads for p in points] == [8, 16, 32, 64, 48, 24]
    assert find_saturation(points).threads == 24


def test_a_round_holds_what_the_probe_can_choose_without_new_data():
    """next_round: the counts an engine such as vdbench measures in one invocation (no JVM
    restart per point): the three counts a fit needs, then each step of the doubling alone (it
    waits for the data of the step before), then the refine points of the uncertain interval
    together, within the budget; then nothing. The seed's plateau is found by the doubling; the
    marginal top (32 -> 64 threads: +2.1 %) is too noisy to answer, so its refine points bisect the
    uncertain interval, after which the plateau starts at 32 threads."""
    probe = AdaptiveProbe(min_threads=20, max_threads=500, step=20, budget=3)
    assert probe.next_round([]) == [80, 160, 320]
    three = [seed_curve(t) for t in (80, 160, 320)]
    assert probe.next_round(three) == [500]
    assert probe.next_threads(three, pending=[500]) is None
    assert probe.next_round(three + [seed_curve(500)]) == []
    probe, measure = AdaptiveProbe(min_threads=1, max_threads=64, step=4, budget=3), table_probe(MARGINAL_TOP)
    four = [measure(t) for t in (8, 16, 32, 64)]
    assert probe.next_round(four) == [48, 40, 56]
    assert probe.next_round(four + [measure(t) for t in (48, 40, 56)]) == []
    assert find_saturation(four + [measure(t) for t in (48, 40, 56)]).threads == 32

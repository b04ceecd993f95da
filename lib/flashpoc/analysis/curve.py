"""The curve as a whole: its knee (latency against IOPS) and how far the knee moves on noise, the
IOPS it delivers at a latency SLO, and Little's law for one point."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from flashpoc.core.errors import AnalysisError

from flashpoc.analysis.bounds import AT_LEAST, AT_MOST, EXACT, Bound
from flashpoc.analysis.fit import _central_range
from flashpoc.analysis.point import Point, _check_points, _finite, _whole


def _pooled_curve(points: Sequence[Point]) -> tuple[list[int], list[float], list[float]]:
    """Distinct thread counts ascending with mean IOPS and mean latency (ms) per count."""
    acc: dict[int, list[float]] = {}
    for p in points:
        a = acc.setdefault(p.threads, [0.0, 0.0, 0.0])
        a[0] += p.iops
        a[1] += p.latency_ms
        a[2] += 1
    threads = sorted(acc)
    return (threads, [acc[t][0] / acc[t][2] for t in threads], [acc[t][1] / acc[t][2] for t in threads])


def find_knee(points: Sequence[Point]) -> Point | None:
    """Knee of the hockey stick (latency in ms vs IOPS), Kneedle-style.

    Points are sorted by threads; IOPS and latency are each scaled to 0..1, and the knee is the
    point farthest below the chord from the first to the last point (latency starts to climb faster
    than IOPS).

    Args:
        points: Measured points (at least 3 for a knee).

    Returns:
        The knee point (the first one among equal thread counts), or None with fewer than 3
        distinct thread counts, a flat axis, or no point below the chord (no convex knee).

    Raises:
        AnalysisError: No points or a non-Point.
    """
    pts = sorted(_check_points(points), key=lambda p: p.threads)
    threads, iops, lat = _pooled_curve(pts)
    if len(threads) < 3:
        return None
    x, y = np.asarray(iops), np.asarray(lat)
    if np.ptp(x) <= 0 or np.ptp(y) <= 0:
        return None
    x = (x - x.min()) / np.ptp(x)
    y = (y - y.min()) / np.ptp(y)
    dx, dy = x[-1] - x[0], y[-1] - y[0]
    norm = math.hypot(dx, dy)
    if norm == 0:
        return None
    # Signed distance from the chord; positive below it (right of a chord going up).
    below = (dy * (x - x[0]) - dx * (y - y[0])) / norm
    below[[0, -1]] = 0.0
    k = int(np.argmax(below))
    if below[k] <= 1e-9:
        return None
    return next(p for p in pts if p.threads == threads[k])


def knee_interval(points: Sequence[Point], *, n_boot: int = 200, seed: int = 0) -> tuple[int, int] | None:
    """How far the knee (:func:`find_knee`) moves when the same curve is measured again: the central
    90 % of the knees of ``n_boot`` bootstrap resamples of ``points`` (drawn with replacement, a
    count drawn twice pooled), widened to include the curve's own knee.

    On a gently bending, noisy curve the knee's place is uncertain by more than the spacing of the
    points: two curves' knees agree when their intervals overlap (benchmarks/probe_strategies.py).
    Resamples without a knee (too few distinct counts drawn) are left out.

    Returns:
        ``(low, high)`` thread counts, or None when the curve has no knee.

    Raises:
        AnalysisError: No points, a non-Point, bad ``n_boot``.
    """
    pts = _check_points(points)
    n_boot = _whole("n_boot", n_boot)
    knee = find_knee(pts)
    if knee is None:
        return None
    rng = np.random.default_rng(seed)
    resamples = rng.integers(0, len(pts), size=(n_boot, len(pts)))
    knees = [k.threads for k in (find_knee([pts[i] for i in row]) for row in resamples) if k is not None]
    if not knees:
        return knee.threads, knee.threads
    return _central_range(knees, knee.threads)


def _threads(count: int) -> str:
    return f"{count} thread{'' if count == 1 else 's'}"


def iops_at_latency(points: Sequence[Point], latency_ms: float) -> Bound:
    """The most IOPS the curve delivers within a latency SLO, as measured or as a bound.

    The points are pooled by thread count (repeats averaged) and joined in thread order; where two
    neighbours lie either side of ``latency_ms`` the IOPS are interpolated linearly in latency
    between them. The answer is the most IOPS of a point within the SLO or of such a crossing, so it
    is never below a point measured under the SLO: on an uneven curve (latency over the SLO at one
    load and back under it at a heavier one) ``why`` says so. Nothing is extrapolated.

    Args:
        points: Measured points.
        latency_ms: The latency SLO in ms (> 0).

    Returns:
        A :class:`~flashpoc.analysis.bounds.Bound` of IOPS: exact (a point on the SLO, or
        interpolated); at least the most IOPS within it when the heaviest load measured is still
        within it (``why``: every point was, or the heaviest was); at most the lightest load's IOPS
        when every point is over the SLO.

    Raises:
        AnalysisError: No points, a non-Point, or ``latency_ms`` not finite and > 0.
    """
    pts = _check_points(points)
    slo = _finite("latency_ms", latency_ms)
    if slo <= 0:
        raise AnalysisError(f"latency_ms must be > 0 (ms), got {latency_ms!r}")
    threads, iops, lat = _pooled_curve(pts)
    under = [i for i, value in enumerate(lat) if value <= slo]
    if not under:
        return Bound(iops[0], AT_MOST, f"over {slo:g} ms already at its lightest load ({_threads(threads[0])}, "
                                       f"{lat[0]:.3f} ms)")
    found = [iops[i] for i in under]
    found += [iops[i - 1] + (slo - lat[i - 1]) / (lat[i] - lat[i - 1]) * (iops[i] - iops[i - 1])
              for i in range(1, len(lat)) if (lat[i - 1] - slo) * (lat[i] - slo) < 0]
    back = next(((i, j) for i in range(len(lat)) for j in range(i + 1, len(lat)) if lat[i] > slo >= lat[j]), None)
    why = "" if back is None else (
        f"an uneven curve: over {slo:g} ms at {_threads(threads[back[0]])} ({lat[back[0]]:.3f} ms), under it again at "
        f"{_threads(threads[back[1]])} ({lat[back[1]]:.3f} ms): the most IOPS measured within it count")
    if len(under) == len(lat):
        return Bound(max(found), AT_LEAST, f"under {slo:g} ms at every point measured")
    if under[-1] == len(lat) - 1:
        return Bound(max(found), AT_LEAST, f"under {slo:g} ms at its heaviest load measured; {why}")
    return Bound(max(found), EXACT, why)


def littles_law(point: Point, tolerance: float = 0.2) -> dict:
    """Check a point against Little's law: outstanding I/Os = IOPS x latency.

    Args:
        point: A measured point; ``outstanding`` (or ``threads``) is the expected I/Os in flight.
        tolerance: Allowed relative deviation of measured from expected (0.2 = ±20 %).

    Returns:
        ``{"expected": int, "measured": float, "ratio": float, "ok": bool}``: measured is
        IOPS x latency_ms / 1000 (I/Os in flight), ratio is measured / expected.

    Raises:
        AnalysisError: ``point`` is not a Point or ``tolerance`` is not finite and >= 0.
    """
    if not isinstance(point, Point):
        raise AnalysisError(f"point: expected a Point, got {type(point).__name__}")
    tol = _finite("tolerance", tolerance)
    if tol < 0:
        raise AnalysisError(f"tolerance must be >= 0, got {tolerance!r}")
    expected = point.outstanding if point.outstanding is not None else point.threads
    measured = point.iops * point.latency_ms / 1000.0
    ratio = measured / expected
    return {"expected": expected, "measured": measured, "ratio": ratio, "ok": abs(ratio - 1.0) <= tol}

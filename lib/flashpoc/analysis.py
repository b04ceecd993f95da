"""Pure analysis of probe and sweep points: saturation, knee, IOPS at a latency SLO, Little's law.

Numbers in, numbers and frozen dataclasses out: no I/O, no printing. IOPS are I/O operations per
second, latencies are in milliseconds (ms), thread counts are the engine's threads (fio numjobs,
vdbench threads).

Saturation (:func:`find_saturation`) is found from all the points at once, not by comparing
neighbours, because on a lab machine IOPS move by 10-15 % from one point to the next:

1. repeated thread counts are pooled and a monotone (isotonic, pool-adjacent-violators) curve of
   IOPS vs threads is fitted; the relative scatter of the residuals, corrected for the degrees of
   freedom the fit used, is the point-to-point noise;
2. the plateau grows down from the highest thread count: a lower level joins it unless the data
   show, one-sided at 95 %, that it is more than ``gain_pct`` % below the plateau; the saturation
   point is the first thread count of the plateau, the plateau level the median of its IOPS;
3. a seeded residual bootstrap repeats 1-2 to give the plausible range and the confidence.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from flashpoc.errors import AnalysisError

# One-sided 95 % Student t quantiles by degrees of freedom (normal beyond 30).
_T95 = {1: 6.314, 2: 2.920, 3: 2.353, 4: 2.132, 5: 2.015, 6: 1.943, 7: 1.895, 8: 1.860,
        9: 1.833, 10: 1.812, 11: 1.796, 12: 1.782, 13: 1.771, 14: 1.761, 15: 1.753,
        16: 1.746, 17: 1.740, 18: 1.734, 19: 1.729, 20: 1.725, 25: 1.708, 30: 1.697}
_Z95 = 1.645
# The plausible range covers the central 90 % of the bootstrap answers.
_RANGE_QUANTILES = [0.05, 0.95]
# Above this share of the probed thread range, the plausible range is no answer.
_MAX_RANGE_SHARE = 0.5
MIN_DISTINCT_THREADS = 3
MAX_REFINE_POINTS = 3


@dataclass(frozen=True)
class Point:
    """One measured run-point of a probe or sweep.

    Attributes:
        threads: Thread count (fio numjobs, vdbench threads), >= 1.
        iops: Measured IOPS, >= 0.
        latency_ms: Mean response time in ms, >= 0.
        outstanding: I/Os in flight the engine keeps (fio threads x iodepth, vdbench threads x
            SDs); None means ``threads``.
    """

    threads: int
    iops: float
    latency_ms: float
    outstanding: int | None = None

    def __post_init__(self) -> None:
        if isinstance(self.threads, bool) or not float(self.threads).is_integer() or self.threads < 1:
            raise AnalysisError(f"Point.threads must be a whole number >= 1, got {self.threads!r}")
        object.__setattr__(self, "threads", int(self.threads))
        for name in ("iops", "latency_ms"):
            value = float(getattr(self, name))
            if not math.isfinite(value) or value < 0:
                raise AnalysisError(f"Point.{name} must be finite and >= 0, got {getattr(self, name)!r}")
            object.__setattr__(self, name, value)
        if self.outstanding is not None:
            if (isinstance(self.outstanding, bool) or not float(self.outstanding).is_integer()
                    or self.outstanding < 1):
                raise AnalysisError(f"Point.outstanding must be None or a whole number >= 1, "
                                    f"got {self.outstanding!r}")
            object.__setattr__(self, "outstanding", int(self.outstanding))


@dataclass(frozen=True)
class Saturation:
    """Where IOPS stop rising, and how sure the data make us.

    Attributes:
        threads: Saturation thread count (a measured one), None when the data cannot tell.
        max_iops: Plateau IOPS level (median IOPS of the plateau points), None when unsupported.
        range_threads: Plausible (low, high) saturation thread counts: the central 90 % of the
            bootstrap answers; None when there is no answer to bootstrap.
        confidence: Share (0..1) of bootstrap resamples that give exactly ``threads``.
        supported: True when the data support an answer.
        reason: One sentence for a storage engineer: the answer, or why there is none.
        rule_threads: The POC guide's neighbour rule: the first measured thread count after which no
            later count gains more than ``gain_pct`` % IOPS (repeats averaged); None when only the
            last count qualifies (nothing confirms it) or fewer than 2 counts were measured.
        method: How the answer was computed.
    """

    threads: int | None
    max_iops: float | None
    range_threads: tuple[int, int] | None
    confidence: float
    supported: bool
    reason: str
    rule_threads: int | None
    method: str


class _Fit(NamedTuple):
    """One isotonic plateau fit (internal)."""

    threads: list[int]        # distinct thread counts, ascending
    means: list[float]        # mean IOPS per distinct count
    fitted_raw: list[float]   # fitted IOPS per raw point (input order)
    blocks: int               # number of distinct fitted levels (degrees of freedom used)
    sigma: float              # relative point-to-point noise (dof-corrected RMS of residuals)
    sat_index: int            # index in ``threads`` of the saturation point
    level: float              # plateau IOPS (median of the raw plateau points)


def _check_points(points: Sequence[Point], what: str = "points") -> list[Point]:
    """Return ``points`` as a list after checking it is a non-empty sequence of Point."""
    if points is None:
        raise AnalysisError(f"{what}: got None, expected a sequence of Point")
    pts = list(points)
    if not pts:
        raise AnalysisError(f"{what}: no points to analyse")
    for i, p in enumerate(pts):
        if not isinstance(p, Point):
            raise AnalysisError(f"{what}[{i}]: expected a Point, got {type(p).__name__}")
    return pts


def _check_gain(gain_pct: float) -> float:
    gain = float(gain_pct)
    if not math.isfinite(gain) or not 0 < gain < 100:
        raise AnalysisError(f"gain_pct must be > 0 and < 100 (%), got {gain_pct!r}")
    return gain / 100.0


def _t95(dof: int) -> float:
    """One-sided 95 % Student t quantile for ``dof`` degrees of freedom."""
    if dof <= 0:
        return _Z95
    if dof in _T95:
        return _T95[dof]
    below = [d for d in _T95 if d < dof]
    return _T95[max(below)] if dof <= 30 else _Z95


def _pava(y: list[float], w: list[float]) -> list[list[float]]:
    """Weighted pool-adjacent-violators: blocks ``[start, end, sum_wy, sum_w]`` of a non-decreasing fit."""
    blocks: list[list[float]] = []
    for i, (yi, wi) in enumerate(zip(y, w)):
        blocks.append([i, i + 1, yi * wi, wi])
        while len(blocks) > 1 and blocks[-2][2] * blocks[-1][3] >= blocks[-1][2] * blocks[-2][3]:
            last = blocks.pop()
            prev = blocks[-1]
            prev[1], prev[2], prev[3] = last[1], prev[2] + last[2], prev[3] + last[3]
    return blocks


def _fit_plateau(raw_threads: list[int], raw_iops: list[float], gain: float) -> _Fit:
    """Isotonic fit, noise and plateau of raw (threads, IOPS) pairs; needs >= 1 distinct count."""
    sums: dict[int, float] = {}
    counts: dict[int, int] = {}
    for t, y in zip(raw_threads, raw_iops):
        sums[t] = sums.get(t, 0.0) + y
        counts[t] = counts.get(t, 0) + 1
    threads = sorted(sums)
    means = [sums[t] / counts[t] for t in threads]
    weights = [float(counts[t]) for t in threads]
    blocks = _pava(means, weights)
    fitted = [0.0] * len(threads)
    for start, end, swy, sw in blocks:
        for j in range(int(start), int(end)):
            fitted[j] = swy / sw
    index = {t: j for j, t in enumerate(threads)}
    fitted_raw = [fitted[index[t]] for t in raw_threads]

    n, k = len(raw_iops), len(blocks)
    rss = sum(((y - f) / f) ** 2 for y, f in zip(raw_iops, fitted_raw) if f > 0)
    sigma = math.sqrt(rss / (n - k)) if n > k else 0.0
    if _VAR.get('ll') is not None and n - k < _VAR['ll']:
        sigma = max(sigma, _local_linear_noise(threads, means))

    # Grow the plateau down from the top block while the next level is not shown (one-sided 95 %)
    # to be more than ``gain`` below it.
    z = _t95(n - k) if not _VAR.get('z') else _Z95
    start, _, sum_y, sum_w = blocks[-1]
    for b_start, _, b_sum, b_w in reversed(blocks[:-1]):
        level = sum_y / sum_w
        if level <= 0:
            break
        shortfall = 1.0 - (b_sum / b_w) / level
        if shortfall > gain + z * sigma * math.sqrt(1.0 / b_w + 1.0 / sum_w):
            break
        start, sum_y, sum_w = b_start, sum_y + b_sum, sum_w + b_w
    sat_index = int(start)
    plateau = [y for t, y in zip(raw_threads, raw_iops) if t >= threads[sat_index]]
    return _Fit(threads, means, fitted_raw, k, sigma, sat_index, float(np.median(plateau)))


_VAR = {}
def _local_linear_noise(threads, means):
    e = []
    for i in range(1, len(threads) - 1):
        t0, t1, t2 = threads[i - 1:i + 2]
        a = (t2 - t1) / (t2 - t0)
        pred = a * means[i - 1] + (1 - a) * means[i + 1]
        if means[i] > 0:
            e.append((means[i] - pred) / means[i] / math.sqrt(1 + a * a + (1 - a) ** 2))
    return 1.4826 * float(np.median(np.abs(e))) if e else 0.0


def _neighbour_rule(threads: list[int], means: list[float], gain: float) -> int | None:
    """The POC guide's rule on pooled means: first count no later count beats by more than gain."""
    for i in range(len(threads) - 1):
        if max(means[i + 1:]) <= means[i] * (1.0 + gain):
            return threads[i]
    return None


def find_saturation(points: Sequence[Point], gain_pct: float = 2.0, *, n_boot: int = 200,
                    seed: int = 0) -> Saturation:
    """Find the thread count beyond which IOPS stop rising, robust to point-to-point noise.

    A monotone (isotonic) curve is fitted to all points; the plateau is the highest stretch of it
    that the noise cannot tell apart from flat within ``gain_pct`` %; the saturation point is the
    first measured thread count on the plateau. A residual bootstrap gives the plausible range.

    Args:
        points: Measured points; repeated thread counts are pooled (their IOPS averaged).
        gain_pct: An IOPS gain below this percentage is no gain (default 2 %).
        n_boot: Bootstrap resamples for the range and confidence (>= 1).
        seed: Seed of the numpy Generator drawing the resamples (the answer is deterministic).

    Returns:
        A :class:`Saturation`. ``supported`` is False, ``threads`` None and ``reason`` says why when
        fewer than 3 distinct thread counts were measured, when IOPS still rise at the highest
        count (extend the probe), or when the plausible range spans most of the probed range.

    Raises:
        AnalysisError: No points, a non-Point, bad ``gain_pct`` or ``n_boot``.
    """
    pts = _check_points(points)
    gain = _check_gain(gain_pct)
    if isinstance(n_boot, bool) or not isinstance(n_boot, (int, np.integer)) or n_boot < 1:
        raise AnalysisError(f"n_boot must be a whole number >= 1, got {n_boot!r}")
    method = (f"isotonic (PAVA) fit of IOPS vs threads, plateau = levels within {gain_pct:g} % "
              f"(one-sided 95 %), residual bootstrap n={n_boot} seed={seed}")
    raw_t = [p.threads for p in pts]
    raw_y = [p.iops for p in pts]
    fit = _fit_plateau(raw_t, raw_y, gain)
    threads, means = fit.threads, fit.means
    rule = _neighbour_rule(threads, means, gain)

    def unsupported(reason: str, rng: tuple[int, int] | None = None, conf: float = 0.0) -> Saturation:
        return Saturation(None, None, rng, conf, False, reason, rule, method)

    if len(threads) < MIN_DISTINCT_THREADS:
        listed = ", ".join(str(t) for t in threads)
        return unsupported(f"Only {len(threads)} distinct thread count(s) measured ({listed}); "
                           f"at least {MIN_DISTINCT_THREADS} are needed to locate an IOPS plateau.")
    if max(raw_y) <= 0:
        return unsupported("No IOPS were measured at any thread count (all points are 0 IOPS).")
    top = threads[-1]
    if fit.sat_index == len(threads) - 1:
        below = means[-2]
        gained = f" (+{means[-1] / below - 1:.1%} over {threads[-2]} threads)" if below > 0 else ""
        return unsupported(f"IOPS still rising at {top} threads, the highest measured{gained}: "
                           f"no later point confirms a plateau; extend the probe beyond {top} threads.")

    sat = threads[fit.sat_index]
    answers = _bootstrap(raw_t, raw_y, fit, gain, n_boot, seed)
    lo = int(np.quantile(answers, _RANGE_QUANTILES[0], method="inverted_cdf"))
    hi = int(np.quantile(answers, _RANGE_QUANTILES[1], method="inverted_cdf"))
    lo, hi = min(lo, sat), max(hi, sat)
    confidence = float(np.mean(answers == sat))
    probed = top - threads[0]
    if hi - lo > _MAX_RANGE_SHARE * probed:
        return unsupported(
            f"Too noisy to locate the plateau: it could start anywhere from {lo} to {hi} threads "
            f"({(hi - lo) / probed:.0%} of the probed {threads[0]}-{top} threads; point-to-point "
            f"noise ±{fit.sigma:.1%}); measure each point again or run it longer.",
            (lo, hi), confidence)
    reason = (f"IOPS plateau at {fit.level:,.0f} IOPS from {sat} threads (plausible {lo}-{hi} "
              f"threads, {confidence:.0%} of {n_boot} resamples agree; noise ±{fit.sigma:.1%}).")
    return Saturation(sat, fit.level, (lo, hi), confidence, True, reason, rule, method)


def _bootstrap(raw_t: list[int], raw_y: list[float], fit: _Fit, gain: float, n_boot: int,
               seed: int) -> np.ndarray:
    """Saturation thread counts of ``n_boot`` residual-bootstrap resamples around ``fit``."""
    f = np.asarray(fit.fitted_raw)
    y = np.asarray(raw_y)
    n = len(y)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(f > 0, y / f - 1.0, 0.0)
    if n > fit.blocks:  # undo the shrinkage of residuals towards a fit that used `blocks` dof
        rel = rel * math.sqrt(n / (n - fit.blocks))
    rel = rel - rel.mean()
    rng = np.random.default_rng(seed)
    draws = np.clip(f * (1.0 + rel[rng.integers(0, n, size=(n_boot, n))]), 0.0, None)
    answers = np.empty(n_boot, dtype=int)
    for b in range(n_boot):
        resample = _fit_plateau(raw_t, draws[b].tolist(), gain)
        answers[b] = resample.threads[resample.sat_index]
    return answers


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


def iops_at_latency(points: Sequence[Point], latency_ms: float) -> dict:
    """IOPS the curve delivers at a latency SLO, interpolated between measured points.

    The points are walked in thread order (repeats averaged) up to the first one at or above
    ``latency_ms``; IOPS are interpolated linearly in latency between it and the point before.
    Nothing is extrapolated.

    Args:
        points: Measured points.
        latency_ms: The latency SLO in ms (> 0).

    Returns:
        ``{"iops": float | None, "status": str}`` with status ``"interpolated"``, ``"exact"`` (a
        point sits on the SLO), ``"below_all"`` (every point is under the SLO: iops is the highest
        measured IOPS, meaning "at least") or ``"above_all"`` (the first point already exceeds the
        SLO: iops is None).

    Raises:
        AnalysisError: No points, a non-Point, or ``latency_ms`` not finite and > 0.
    """
    pts = _check_points(points)
    slo = float(latency_ms)
    if not math.isfinite(slo) or slo <= 0:
        raise AnalysisError(f"latency_ms must be finite and > 0 (ms), got {latency_ms!r}")
    _, iops, lat = _pooled_curve(pts)
    for i, (y, l) in enumerate(zip(iops, lat)):
        if l == slo:
            return {"iops": y, "status": "exact"}
        if l > slo:
            if i == 0:
                return {"iops": None, "status": "above_all"}
            y0, l0 = iops[i - 1], lat[i - 1]
            return {"iops": y0 + (slo - l0) / (l - l0) * (y - y0), "status": "interpolated"}
    return {"iops": max(iops), "status": "below_all"}


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
    tol = float(tolerance)
    if not math.isfinite(tol) or tol < 0:
        raise AnalysisError(f"tolerance must be finite and >= 0, got {tolerance!r}")
    expected = point.outstanding if point.outstanding is not None else point.threads
    measured = point.iops * point.latency_ms / 1000.0
    ratio = measured / expected
    return {"expected": expected, "measured": measured, "ratio": ratio, "ok": abs(ratio - 1.0) <= tol}


def linear_probe_threads(lo: int, hi: int, step: int) -> list[int]:
    """Thread counts of a linear probe, like vdbench ``forthreads=(lo-hi,step)``.

    Args:
        lo: First thread count (>= 1).
        hi: Highest thread count allowed (>= lo; included when on the step).
        step: Increment (>= 1).

    Returns:
        ``[lo, lo + step, ...]`` up to ``hi``: (100, 500, 100) -> [100, 200, 300, 400, 500].

    Raises:
        AnalysisError: A non-integer argument, ``lo`` <= 0, ``hi`` < ``lo`` or ``step`` <= 0.
    """
    for name, value in (("lo", lo), ("hi", hi), ("step", step)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise AnalysisError(f"{name} must be a whole number, got {value!r}")
    if step <= 0:
        raise AnalysisError(f"step must be >= 1, got {step}")
    if lo <= 0:
        raise AnalysisError(f"lo must be >= 1 thread, got {lo}")
    if hi < lo:
        raise AnalysisError(f"hi ({hi}) must be >= lo ({lo})")
    return list(range(int(lo), int(hi) + 1, int(step)))


class AdaptiveProbe:
    """Pure state machine of the adaptive saturation probe: which thread count to measure next.

    Doubling phase: ``min_threads``, 2x, 4x, ... (capped at ``max_threads``) until
    :func:`find_saturation` is supported, which means the highest count lies on the plateau with
    at least one measured count after the saturation point (the last doubling gained no more than
    ``gain_pct`` % beyond what the noise allows). Refine phase: bisect between the saturation point
    and the measured count below it, on multiples of ``step``, until they are adjacent or
    ``MAX_REFINE_POINTS`` refine points were measured. The state is the list of points, so a probe
    can resume from stored results.

    Args:
        min_threads: First thread count (>= 1).
        max_threads: Highest thread count to measure (>= min_threads).
        gain_pct: An IOPS gain below this percentage is no gain.
        step: Refine granularity in threads (>= 1).
        refine: Bisect below the saturation point once the plateau is confirmed.
    """

    def __init__(self, min_threads: int = 1, max_threads: int = 512, gain_pct: float = 2.0,
                 step: int = 1, refine: bool = True) -> None:
        for name, value in (("min_threads", min_threads), ("max_threads", max_threads), ("step", step)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise AnalysisError(f"{name} must be a whole number >= 1, got {value!r}")
        if max_threads < min_threads:
            raise AnalysisError(f"max_threads ({max_threads}) must be >= min_threads ({min_threads})")
        _check_gain(gain_pct)
        self.min_threads = int(min_threads)
        self.max_threads = int(max_threads)
        self.gain_pct = float(gain_pct)
        self.step = int(step)
        self.refine = bool(refine)

    def ladder(self) -> list[int]:
        """The doubling thread counts: min_threads, 2x, 4x, ... capped at max_threads."""
        counts = [self.min_threads]
        while counts[-1] < self.max_threads:
            counts.append(min(self.max_threads, 2 * counts[-1]))
        return counts

    def next_threads(self, points: Sequence[Point]) -> int | None:
        """Next thread count to measure given every point measured so far.

        Args:
            points: All points measured so far (any order; may be empty).

        Returns:
            The next thread count, or None when the probe is done (plateau confirmed and refined,
            or ``max_threads`` reached without a plateau: see :func:`find_saturation`'s reason).

        Raises:
            AnalysisError: A non-Point in ``points``.
        """
        if points is None or len(points) == 0:
            return self.min_threads
        pts = _check_points(points)
        measured = {p.threads for p in pts}
        sat = find_saturation(pts, self.gain_pct)
        if not sat.supported:
            top = max(measured)
            for t in self.ladder():
                if t > top:
                    return t
            return None
        if not self.refine:
            return None
        refined = measured - set(self.ladder())
        if len(refined) >= MAX_REFINE_POINTS:
            return None
        below = [t for t in measured if t < sat.threads]
        if not below:
            return None
        lo, hi = max(below), sat.threads
        first = (lo // self.step + 1) * self.step
        candidates = [t for t in range(first, hi, self.step) if t not in measured]
        if not candidates:
            return None
        mid = (lo + hi) / 2
        return min(candidates, key=lambda t: (abs(t - mid), t))

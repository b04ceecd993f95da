"""Pure analysis of probe and sweep points: saturation, knee, IOPS at a latency SLO, Little's law.

Numbers in, numbers and frozen dataclasses out: no I/O, no printing. IOPS are I/O operations per
second, latencies are in milliseconds (ms), thread counts are the engine's threads (fio numjobs,
vdbench threads).

Saturation (:func:`find_saturation`) is found from all the points at once, not by comparing
neighbours, because on a lab machine IOPS move by 10-15 % from one point to the next:

0. the highest counts whose IOPS fall more than ``FALL_SHARE`` and the points' noise below the
   peak (the count with the most IOPS) are an overload past the peak (of the load hosts, say), not
   the array's plateau: they are left out, and the curve is fitted up to the peak, which the fall
   confirms as a plateau's end;
1. repeated thread counts are pooled; the point-to-point noise is the relative scatter of the
   points around the least-squares non-decreasing concave curve (the shape of a saturating IOPS
   curve), corrected for the parameters that fit used;
2. a monotone (isotonic, pool-adjacent-violators) curve is fitted and its plateau grows down from
   the highest thread count: a lower level joins it unless the data show, one-sided at 95 %, that
   it is more than ``gain_pct`` % below the fitted maximum;
3. a seeded residual bootstrap around the concave curve repeats step 2. The saturation point is
   the median of the resamples' plateau starts (a measured count), the plateau level the median
   IOPS of the points from there up; the plausible range is their central 90 %, the confidence
   the share that agree with the answer. A range reaching the highest count means "maybe still
   rising", a range over half the probed span means "too noisy". Step 2's first count alone jumps
   between neighbouring counts on noise (on a curve that creeps up slowly, from one repeat of the
   probe to the next); the median of the resamples, a bagged estimate, is steadier
   (tests/analysis/test_probe_repeats.py, benchmarks/probe_replay.py).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from flashpoc.errors import AnalysisError

# One-sided 95 % normal quantile of the plateau test.
_Z95 = 1.645
# The plausible range covers the central 90 % of the bootstrap answers.
_RANGE_QUANTILES = (0.05, 0.95)
# Above this share of the probed thread range, the plausible range is no answer.
_MAX_RANGE_SHARE = 0.5
MIN_DISTINCT_THREADS = 3
MAX_REFINE_POINTS = 1
# IOPS past the peak more than this far below it (and beyond the points' noise) are an overload past
# the peak, not the array's plateau: recorded probes fell 21-33 % at 256 threads on 2 busy vCPUs; a
# plateau's highest count measured 1-5 % below its peak (tests/data/probe), and one noisy dip 18 %
# (NOISY_DIP in tests/analysis/test_analysis.py: 100K again at twice the threads).
FALL_SHARE = 0.20
# The adaptive probe doubles until the highest-IOPS count has this many measured counts above it
# (1 and 2 measured alike on this kind of machine: benchmarks/probe_strategies.py).
PLATEAU_CONFIRMATIONS = 1


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
        object.__setattr__(self, "threads", _whole("Point.threads", self.threads))
        for name in ("iops", "latency_ms"):
            value = getattr(self, name)
            if (isinstance(value, bool) or not isinstance(value, numbers.Real)
                    or not math.isfinite(value) or value < 0):
                raise AnalysisError(f"Point.{name} must be a finite number >= 0, got {value!r}")
            object.__setattr__(self, name, float(value))
        if self.outstanding is not None:
            object.__setattr__(self, "outstanding", _whole("Point.outstanding", self.outstanding))


def _whole(name: str, value: object, minimum: int = 1) -> int:
    """``value`` as an int when it is a whole number >= ``minimum``, else AnalysisError naming it."""
    if (isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value)
            or value != int(value) or value < minimum):
        raise AnalysisError(f"{name} must be a whole number >= {minimum}, got {value!r}")
    return int(value)


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
        kind: What the data show: ``plateau`` (an answer), ``still_rising`` or ``maybe_rising``
            (IOPS may still rise beyond the highest count: measure higher), ``too_noisy`` (the
            plateau could start almost anywhere: longer points or repeats), ``too_few`` (fewer than
            3 thread counts) or ``no_iops``.
        fall_threads: The highest-IOPS count past which IOPS fall clearly (over ``FALL_SHARE`` and
            the points' noise): the counts above it, an overload past the peak, are left out of the
            fit; None when IOPS do not fall.
        fall_pct: How far (%) below the peak IOPS the first count past ``fall_threads`` measured.
    """

    threads: int | None
    max_iops: float | None
    range_threads: tuple[int, int] | None
    confidence: float
    supported: bool
    reason: str
    rule_threads: int | None
    method: str
    kind: str = "plateau"
    fall_threads: int | None = None
    fall_pct: float | None = None


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


def _finite(name: str, value: object) -> float:
    """``value`` as a float when it is a finite real number, else AnalysisError naming it."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise AnalysisError(f"{name} must be a finite number, got {value!r}")
    return float(value)


def _check_gain(gain_pct: float) -> float:
    """``gain_pct`` (%) as a fraction, checked to be in (0, 100)."""
    gain = _finite("gain_pct", gain_pct)
    if not 0 < gain < 100:
        raise AnalysisError(f"gain_pct must be > 0 and < 100 (%), got {gain_pct!r}")
    return gain / 100.0


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


def _pool(raw_threads: Sequence[int],
          raw_iops: Sequence[float]) -> tuple[list[int], list[float], list[float]]:
    """Distinct thread counts ascending, mean IOPS and number of points per count."""
    sums: dict[int, float] = {}
    counts: dict[int, int] = {}
    for t, y in zip(raw_threads, raw_iops):
        sums[t] = sums.get(t, 0.0) + y
        counts[t] = counts.get(t, 0) + 1
    threads = sorted(sums)
    return threads, [sums[t] / counts[t] for t in threads], [float(counts[t]) for t in threads]


def _nnls(a: np.ndarray, b: np.ndarray, tol: float = 1e-12) -> np.ndarray:
    """Non-negative least squares min ||a x - b|| subject to x >= 0 (Lawson-Hanson active set)."""
    n = a.shape[1]
    active = np.zeros(n, dtype=bool)
    x = np.zeros(n)
    grad = a.T @ b
    for _ in range(3 * n + 10):
        if active.all() or grad[~active].max() <= tol:
            break
        free = np.flatnonzero(~active)
        active[free[np.argmax(grad[free])]] = True
        while True:
            z = np.zeros(n)
            z[active] = np.linalg.lstsq(a[:, active], b, rcond=None)[0]
            if z[active].min() > tol:
                x = z
                break
            neg = active & (z <= tol)
            alpha = float(np.min(x[neg] / (x[neg] - z[neg])))
            x = x + alpha * (z - x)
            active &= x > tol
            x[~active] = 0.0
        grad = a.T @ (b - a @ x)
    return x


def _concave_fit(threads: list[int], means: list[float], weights: list[float]) -> tuple[np.ndarray, int]:
    """Least-squares non-decreasing concave curve through (threads, means); fitted means and dof.

    The curve is ``c + sum_j b_j min(t, t_j)`` with ``b_j >= 0`` over the measured counts t_j, which
    spans every non-decreasing concave piecewise-linear curve with knots at the measured counts.
    """
    t = np.asarray(threads, dtype=float)
    y = np.asarray(means, dtype=float)
    w = np.asarray(weights, dtype=float)
    scale = float(y.max()) if y.max() > 0 else 1.0
    s = (t - t[0]) / (t[-1] - t[0])
    basis = np.minimum(s[:, None], s[None, 1:])
    ys = y / scale
    centred_basis = basis - np.average(basis, axis=0, weights=w)
    root_w = np.sqrt(w)
    beta = _nnls(centred_basis * root_w[:, None], (ys - np.average(ys, weights=w)) * root_w)
    intercept = np.average(ys - basis @ beta, weights=w)
    return (intercept + basis @ beta) * scale, int(np.count_nonzero(beta)) + 1


def _plateau_start(threads: list[int], means: list[float], weights: list[float], gain: float,
                   sigma: float) -> int:
    """Index in ``threads`` where the IOPS plateau starts (the last index: still rising).

    Isotonic fit of the means, then the plateau grows down from the top block (the fitted maximum)
    while the next block is not shown (one-sided 95 %, relative noise ``sigma`` per point) to be
    more than ``gain`` below the top block.
    """
    blocks = _pava(means, weights)
    start, _, top_sum, top_w = blocks[-1]
    top_level = top_sum / top_w
    if top_level <= 0:
        return int(start)
    for b_start, _, b_sum, b_w in reversed(blocks[:-1]):
        shortfall = 1.0 - (b_sum / b_w) / top_level
        if shortfall > gain + _Z95 * sigma * math.sqrt(1.0 / b_w + 1.0 / top_w):
            break
        start = b_start
    return int(start)


def _fall_past_peak(raw_t: list[int], raw_y: list[float], threads: list[int], means: list[float],
                    weights: list[float]) -> int:
    """Index in ``threads`` of the first count of the highest ones whose IOPS fall clearly below the
    peak (the count with the most IOPS): each more than ``FALL_SHARE`` and, one-sided at 95 %, the
    noise of the points up to the peak around their concave fit below it; ``len(threads)`` when
    none falls, or fewer than 3 counts lead up to the peak."""
    peak = int(np.argmax(means))
    cut = len(threads)
    if peak < MIN_DISTINCT_THREADS - 1:
        return cut
    fitted, dof = _concave_fit(threads[:peak + 1], means[:peak + 1], weights[:peak + 1])
    kept = [(t, y) for t, y in zip(raw_t, raw_y) if t <= threads[peak]]
    sigma = _residuals([t for t, _ in kept], [y for _, y in kept], threads[:peak + 1], fitted, dof)[2]
    for j in reversed(range(peak + 1, len(threads))):
        shortfall = 1.0 - means[j] / means[peak]
        if shortfall <= max(FALL_SHARE, _Z95 * sigma * math.sqrt(1.0 / weights[j] + 1.0 / weights[peak])):
            break
        cut = j
    return cut


def fall_text(threads: int, pct: float, rate: str = "IOPS", unit: str = "threads") -> str:
    """The words of a fall past the peak (:attr:`Saturation.fall_threads`, ``fall_pct``)."""
    return f"{rate} fall past {threads} {unit} ({pct:g} % below the peak): overload past the peak, left out of the fit"


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
    that the noise cannot tell apart from flat within ``gain_pct`` %, and starts at a measured
    thread count. The noise is the scatter of the points around the best non-decreasing concave
    curve (the shape of a saturating IOPS curve); a residual bootstrap around that curve finds the
    plateau's start again in each resample: the saturation point is their median (steadier from
    one probe to the next than the fit's own start), the plausible range their central 90 %.
    The highest counts whose IOPS fall clearly below the peak (``fall_threads``) are left out: an
    overload past the peak, not the plateau.

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
    n_boot = _whole("n_boot", n_boot)
    method = (f"isotonic fit; plateau = levels not shown (one-sided 95 %) to be over {gain_pct:g} % "
              f"below the fitted maximum; noise around a concave fit; residual bootstrap "
              f"n={n_boot} seed={seed}")
    raw_t = [p.threads for p in pts]
    raw_y = [p.iops for p in pts]
    threads, means, weights = _pool(raw_t, raw_y)
    rule = _neighbour_rule(threads, means, gain)

    fall = fall_pct = None
    cut = _fall_past_peak(raw_t, raw_y, threads, means, weights)
    if cut < len(threads):  # an overload past the peak: fit the curve up to the peak
        fall, fall_pct = threads[cut - 1], round(100.0 * (1.0 - means[cut] / max(means)), 1)
        raw_y = [y for t, y in zip(raw_t, raw_y) if t <= fall]
        raw_t = [t for t in raw_t if t <= fall]
        threads, means, weights = threads[:cut], means[:cut], weights[:cut]
    fell = " " + fall_text(fall, fall_pct) + "." if fall else ""

    def unsupported(kind: str, reason: str, rng: tuple[int, int] | None = None, conf: float = 0.0) -> Saturation:
        return Saturation(None, None, rng, conf, False, reason + fell, rule, method, kind, fall, fall_pct)

    if len(threads) < MIN_DISTINCT_THREADS:
        listed = ", ".join(str(t) for t in threads)
        return unsupported("too_few", f"Only {len(threads)} distinct thread count(s) measured ({listed}); "
                           f"at least {MIN_DISTINCT_THREADS} are needed to locate an IOPS plateau.")
    if max(raw_y) <= 0:
        return unsupported("no_iops", "No IOPS were measured at any thread count (all points are 0 IOPS).")

    fitted, dof = _concave_fit(threads, means, weights)
    fitted_raw, rel, sigma = _residuals(raw_t, raw_y, threads, fitted, dof)
    y = np.asarray(raw_y)
    n = len(y)

    start = _plateau_start(threads, means, weights, gain, sigma)
    top = threads[-1]
    if start == len(threads) - 1 and not fall:  # a fall past the top count confirms it as the peak
        below = means[-2]
        gained = f" (+{means[-1] / below - 1:.1%} over {threads[-2]} threads)" if below > 0 else ""
        return unsupported("still_rising", f"IOPS still rising at {top} threads, the highest measured{gained}: "
                           f"no later point confirms a plateau; extend the probe beyond {top} threads.")
    answers = _bootstrap(raw_t, fitted_raw, rel, dof, gain, sigma, n_boot, seed)
    # the answer is the median of the resamples' (bagging): the fitted breakpoint alone jumps
    # between neighbouring counts on noise
    sat = int(np.quantile(answers, 0.5, method="inverted_cdf")) if n > dof else threads[start]
    if sat == top and not fall:
        sat = threads[start]
    level = float(np.median(y[np.asarray(raw_t) >= sat]))
    lo = int(np.quantile(answers, _RANGE_QUANTILES[0], method="inverted_cdf"))
    hi = int(np.quantile(answers, _RANGE_QUANTILES[1], method="inverted_cdf"))
    lo, hi = min(lo, sat), max(hi, sat)
    confidence = float(np.mean(answers == sat))
    probed = top - threads[0]
    if hi == top and not fall:
        share = float(np.mean(answers == top))
        return unsupported(
            "maybe_rising", f"IOPS may still be rising at {top} threads, the highest measured: the plateau would "
            f"start at {sat} threads, but in {share:.0%} of resamples it starts only at {top} "
            f"(noise ±{sigma:.1%}); extend the probe beyond {top} threads.", (lo, hi), confidence)
    if hi - lo > _MAX_RANGE_SHARE * probed:
        return unsupported(
            "too_noisy", f"Too noisy to locate the plateau: it could start anywhere from {lo} to {hi} threads "
            f"({(hi - lo) / probed:.0%} of the probed {threads[0]}-{top} threads; point-to-point "
            f"noise ±{sigma:.1%}); measure each point again or run it longer.",
            (lo, hi), confidence)
    noise = (f"noise ±{sigma:.1%}" if n > dof
             else "noise not estimable: every point lies on the fitted curve")
    lowest = (f"; {sat} threads is the lowest count measured, so saturation may come earlier"
              if sat == threads[0] else "")
    plausible = f"plausible {lo}-{hi} threads" if lo != hi else "no other count plausible"
    reason = (f"IOPS plateau at {level:,.0f} IOPS from {sat} threads ({plausible}, "
              f"{confidence:.0%} of {n_boot} resamples agree; {noise}{lowest}).")
    return Saturation(sat, level, (lo, hi), confidence, True, reason + fell, rule, method, fall_threads=fall,
                      fall_pct=fall_pct)


def _residuals(raw_t: Sequence[int], raw_y: Sequence[float], threads: list[int], fitted: np.ndarray,
               dof: int) -> tuple[np.ndarray, np.ndarray, float]:
    """The fitted curve (at ``threads``) at each point, each point's relative residual, and their
    scatter corrected for the ``dof`` parameters of the fit (0 when it used them all)."""
    index = {t: j for j, t in enumerate(threads)}
    fitted_raw = fitted[[index[t] for t in raw_t]]
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(fitted_raw > 0, np.asarray(raw_y) / fitted_raw - 1.0, 0.0)
    n = len(rel)
    return fitted_raw, rel, float(np.sqrt(np.sum(rel ** 2) / (n - dof))) if n > dof else 0.0


def _bootstrap(raw_t: list[int], fitted_raw: np.ndarray, rel: np.ndarray, dof: int, gain: float,
               sigma: float, n_boot: int, seed: int) -> np.ndarray:
    """Saturation thread counts of ``n_boot`` resamples: the concave fit times resampled residuals."""
    n = len(rel)
    if n > dof:  # undo the shrinkage of residuals towards a fit that used `dof` parameters
        rel = rel * math.sqrt(n / (n - dof))
    rel = rel - rel.mean()
    rng = np.random.default_rng(seed)
    draws = np.clip(fitted_raw * (1.0 + rel[rng.integers(0, n, size=(n_boot, n))]), 0.0, None)
    threads = sorted(set(raw_t))
    column = {t: j for j, t in enumerate(threads)}
    member = np.zeros((n, len(threads)))
    member[np.arange(n), [column[t] for t in raw_t]] = 1.0
    weights = member.sum(axis=0)
    means = (draws @ member) / weights
    w = weights.tolist()
    return np.array([threads[_plateau_start(threads, row, w, gain, sigma)] for row in means.tolist()])


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
    lo, hi = (int(np.quantile(knees, q, method="inverted_cdf")) for q in _RANGE_QUANTILES)
    return min(lo, knee.threads), max(hi, knee.threads)


def plateau_share(points: Sequence[Point], threads: int) -> float:
    """The share (0..1) of the plateau's IOPS the curve reaches at ``threads``: the least-squares
    non-decreasing concave curve through ``points`` (:func:`find_saturation`'s model of the curve,
    repeats pooled) read at ``threads`` (linear between measured counts, the lowest count's value
    below it, the highest's above it), over the curve's highest value.

    What an answer means for IOPS: on a curve that creeps up slowly, answers far apart in threads
    reach nearly the same share (benchmarks/probe_replay.py compares probe methods this way).

    Raises:
        AnalysisError: No points, a non-Point, fewer than 3 distinct thread counts, no IOPS, or
            ``threads`` not a whole number >= 1.
    """
    pts = _check_points(points)
    at = _whole("threads", threads)
    counts, means, weights = _pool([p.threads for p in pts], [p.iops for p in pts])
    if len(counts) < MIN_DISTINCT_THREADS or max(means) <= 0:
        raise AnalysisError(f"plateau_share needs IOPS at {MIN_DISTINCT_THREADS} or more distinct thread counts, "
                            f"got {len(counts)}")
    fitted, _ = _concave_fit(counts, means, weights)
    return float(np.interp(at, counts, fitted) / fitted[-1])


def reach_threads(points: Sequence[Point], share: float | None = None, *, gain_pct: float = 2.0) -> float:
    """The fewest threads at which the curve reaches the plateau: the least-squares non-decreasing
    concave curve through ``points`` (repeats pooled, a fall past the peak left out:
    :func:`find_saturation`'s model of the curve),
    linear between measured counts, first reaching ``share`` (0..1) of its highest value; with no
    ``share``, the plateau within its measured noise: ``1 - gain_pct % - 1.645 x`` the points'
    relative scatter around the curve (one-sided 95 %).

    A threshold crossing, not a measured count: it moves by a fraction of the gap between counts when
    one point moves, where the plateau's first count jumps to the next count; and the lower the
    threshold, the steeper the curve where it is crossed and the less noise moves it
    (benchmarks/probe_strategies.py compares both with the probe's answer).

    Raises:
        AnalysisError: No points, a non-Point, fewer than 3 distinct thread counts, no IOPS, a
            ``share`` outside (0, 1] or bad ``gain_pct``.
    """
    pts = _check_points(points)
    gain = _check_gain(gain_pct)
    counts, means, weights = _pool([p.threads for p in pts], [p.iops for p in pts])
    cut = _fall_past_peak([p.threads for p in pts], [p.iops for p in pts], counts, means, weights)
    if cut < len(counts):  # the curve up to the peak, as find_saturation fits it
        return reach_threads([p for p in pts if p.threads < counts[cut]], share, gain_pct=gain_pct)
    if len(counts) < MIN_DISTINCT_THREADS or max(means) <= 0:
        raise AnalysisError(f"reach_threads needs IOPS at {MIN_DISTINCT_THREADS} or more distinct thread counts, "
                            f"got {len(counts)}")
    fitted, dof = _concave_fit(counts, means, weights)
    if share is None:
        sigma = _residuals([p.threads for p in pts], [p.iops for p in pts], counts, fitted, dof)[2]
        share = max(0.0, 1.0 - gain - _Z95 * sigma)
    elif not 0 < _finite("share", share) <= 1:
        raise AnalysisError(f"share must be > 0 and <= 1, got {share!r}")
    level = float(fitted.max()) * share
    j = int(np.argmax(fitted >= level - 1e-9 * float(fitted.max())))
    if j == 0:
        return float(counts[0])
    a, b, fa, fb = counts[j - 1], counts[j], float(fitted[j - 1]), float(fitted[j])
    return a + (b - a) * (level - fa) / (fb - fa)


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
    slo = _finite("latency_ms", latency_ms)
    if slo <= 0:
        raise AnalysisError(f"latency_ms must be > 0 (ms), got {latency_ms!r}")
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
    tol = _finite("tolerance", tolerance)
    if tol < 0:
        raise AnalysisError(f"tolerance must be >= 0, got {tolerance!r}")
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
    lo, step = _whole("lo", lo), _whole("step", step)
    hi = _whole("hi", hi, minimum=lo)
    return list(range(lo, hi + 1, step))


def start_threads(min_threads: int, max_threads: int, *, cpus: int | None = None,
                  outstanding_per_thread: int = 1) -> int:
    """The first thread count of the adaptive probe: where saturation can be, not 1 thread.

    The doubling ladder ``min_threads x 2^k`` count nearest the geometric middle of
    ``min_threads..max_threads`` (the saturation point is as likely to be anywhere on a log scale,
    and the probe goes both ways from there), raised so that the outstanding I/Os (threads x
    ``outstanding_per_thread``) keep every CPU of the host busy (``cpus``: fewer I/Os in flight than
    the host has CPUs load neither the host nor the array), at most ``max_threads``.

    Examples: 1..256 threads -> 16; 1..64 -> 8; 20..500 -> 80; 1..256 on a 64-CPU host -> 64.
    """
    lo = _whole("min_threads", min_threads)
    hi = _whole("max_threads", max_threads, minimum=lo)
    per_thread = _whole("outstanding_per_thread", outstanding_per_thread)
    middle = math.sqrt(lo * hi)
    ladder = [lo]
    while ladder[-1] * 2 <= hi:
        ladder.append(ladder[-1] * 2)
    start = min(ladder, key=lambda t: (round(abs(math.log(t / middle)), 9), t))  # a tie: the lower
    if cpus:
        busy = [t for t in ladder if t * per_thread >= _whole("cpus", cpus)]
        start = max(start, busy[0] if busy else ladder[-1])
    return start


class AdaptiveProbe:
    """Pure state machine of the adaptive saturation probe: which thread count to measure next.

    Bracket: from ``start`` (default :func:`start_threads`: the middle of the range on a log
    scale, not 1 thread) the threads double (capped at ``max_threads``) until
    :func:`find_saturation` is supported (a plateau with a measured count after its start) and the
    count with the most IOPS has ``PLATEAU_CONFIRMATIONS`` measured counts above it (one noisy high
    point does not end the doubling); when the plateau already starts at the lowest count measured,
    the threads halve (down to ``min_threads``) until a count below it is found. With
    ``expected_iops`` the doubling skips the counts Little's law rules out: reaching that many IOPS
    at the latency measured at the lowest count takes at least ``expected_iops x latency``
    outstanding I/Os. When the doubling reaches ``max_threads`` without an answer, the probe measures
    where the plateau may start (the plausible range), or between the two highest counts when the
    last gain was marginal, for more evidence.

    Refine, only where the answer is uncertain: the saturation lies between the highest count
    shown below the plateau and the top of the plausible range. While that interval is wider than
    ``resolution`` (the sweep's step: a finer answer changes no sweep) and fewer than ``budget``
    measurements were added to the ladder, the widest gap in it is bisected on multiples of
    ``step``; with no gap left, the count in it measured fewest times is measured again (a repeat),
    which shrinks the noise exactly where the plateau test decides. The state is the list of
    points, so a probe can resume from stored results.

    Args:
        min_threads: Lowest thread count (>= 1).
        max_threads: Highest thread count to measure (>= min_threads).
        gain_pct: An IOPS gain below this percentage is no gain.
        step: Refine granularity in threads (>= 1).
        refine: Refine once the plateau is bracketed.
        start: First thread count (default :func:`start_threads`).
        budget: Most measurements added to the bracketing ladder (refine points and repeats).
        resolution: Interval width (threads) narrow enough to stop refining: a whole number, or a
            function of the candidate saturation count (e.g. the sweep's step there); default ``step``.
        expected_iops: IOPS the array is expected to reach (e.g. its data sheet's), if known.
        cpus: CPUs of one load host, for the default ``start``.
        outstanding_per_thread: I/Os each thread keeps in flight (fio iodepth x hosts), for
            ``start`` and ``expected_iops``; a Point's own ``outstanding`` is used when it has one.
        repeats_only: Refine by measuring again only the two counts bracketing the answer (the
            candidate and the measured count below it), fewest measured first, never by bisecting:
            the plateau test decides whether these two levels differ.
    """

    def __init__(self, min_threads: int = 1, max_threads: int = 256, gain_pct: float = 2.0,
                 step: int = 1, refine: bool = True, *, start: int | None = None,
                 budget: int = MAX_REFINE_POINTS, resolution: int | Callable[[int], int] | None = None,
                 expected_iops: float | None = None, cpus: int | None = None,
                 outstanding_per_thread: int = 1, repeats_only: bool = False) -> None:
        self.min_threads = _whole("min_threads", min_threads)
        self.max_threads = _whole("max_threads", max_threads, minimum=self.min_threads)
        _check_gain(gain_pct)
        self.gain_pct = float(gain_pct)
        self.step = _whole("step", step)
        self.refine = bool(refine)
        self.per_thread = _whole("outstanding_per_thread", outstanding_per_thread)
        self.start = (start_threads(self.min_threads, self.max_threads, cpus=cpus,
                                    outstanding_per_thread=self.per_thread) if start is None
                      else min(self.max_threads, _whole("start", start, minimum=self.min_threads)))
        self.budget = _whole("budget", budget, minimum=0)
        if resolution is not None and not callable(resolution):
            resolution = _whole("resolution", resolution)
        self.resolution = resolution
        if expected_iops is not None and _finite("expected_iops", expected_iops) <= 0:
            raise AnalysisError(f"expected_iops must be > 0, got {expected_iops!r}")
        self.expected_iops = None if expected_iops is None else float(expected_iops)
        self.repeats_only = bool(repeats_only)

    def ladder(self) -> list[int]:
        """The bracketing thread counts, ascending: ``start`` halved down to ``min_threads`` and
        doubled up to ``max_threads``."""
        counts = [self.start]
        while counts[0] > self.min_threads:
            counts.insert(0, max(self.min_threads, counts[0] // 2))
        while counts[-1] < self.max_threads:
            counts.append(min(self.max_threads, 2 * counts[-1]))
        return counts

    def max_points(self, remeasure: bool = False) -> int:
        """An upper bound of the points the probe measures (what a progress bar can say before the
        probe knows where IOPS stop rising): every ladder count and the refine budget; twice that
        when each point may be measured again (``remeasure``: a point whose steady state was not
        attained)."""
        return (len(self.ladder()) + (self.budget if self.refine else 0)) * (2 if remeasure else 1)

    def next_threads(self, points: Sequence[Point], pending: Sequence[int] = ()) -> int | None:
        """Next thread count to measure given every point measured so far.

        Args:
            points: All points measured so far (any order; may be empty).
            pending: Counts chosen to be measured with it, not measured yet (see
                :meth:`next_round`): they count as measured when gaps are chosen, never as data.

        Returns:
            The next thread count (one already measured means: measure it again), or None when the
            probe is done (the answer is bracketed and refined, or the ladder and the budget are spent
            without one: see :func:`find_saturation`'s reason).

        Raises:
            AnalysisError: A non-Point in ``points``.
        """
        pts = _check_points(points) if points else []
        known = {p.threads for p in pts}
        measured = known | set(pending)
        if not measured:
            return self.start
        ladder = self.ladder()
        if len(known) < MIN_DISTINCT_THREADS:  # the counts a fit needs first, in one round
            if len(measured) >= MIN_DISTINCT_THREADS:
                return None
            up = self._up(pts, measured, ladder)
            below = [t for t in ladder if t < min(measured)]
            return up if up is not None else (below[-1] if below else None)
        # a step of the doubling (or halving) waits for the data of the step before it
        up = self._up(pts, known, ladder)
        below = [t for t in ladder if t < min(known)]
        down = below[-1] if below else None
        if (up is not None and up in pending) or (down is not None and down in pending):
            return None
        sat = find_saturation(pts, self.gain_pct)
        if not sat.supported:
            if up is not None:
                return up  # still rising, maybe rising or too noisy: more of the curve first
            if sat.range_threads is not None:
                return self._refine(pts, pending, measured, sat.range_threads)
            # still rising at max_threads: look between the two highest counts only when the last
            # gain was marginal (under 3 x gain_pct); a steep rise means max_threads is too low
            second, last = sorted(known)[-2:]
            iops = {t: np.mean([p.iops for p in pts if p.threads == t]) for t in (second, last)}
            if iops[second] <= 0 or iops[last] / iops[second] - 1.0 >= 3 * self.gain_pct / 100.0:
                return None
            return self._refine(pts, pending, measured, (last, last))
        lo, hi = sat.range_threads or (sat.threads, sat.threads)
        if min(lo, sat.threads) == min(known) and down is not None:
            return down  # the plateau may start lower still
        # one noisy high point must not end the doubling: the count with the most IOPS needs
        # PLATEAU_CONFIRMATIONS higher counts measured
        best = max(sorted(known), key=lambda t: np.mean([p.iops for p in pts if p.threads == t]))  # ties: the lowest
        if up is not None and len([t for t in known if t > best]) < PLATEAU_CONFIRMATIONS:
            return up
        return self._refine(pts, pending, measured, (lo, hi), sat.threads)

    def next_round(self, points: Sequence[Point]) -> list[int]:
        """The thread counts to measure next, together in one run of the engine (e.g. one
        vdbench ``forthreads`` list, which keeps the JVMs between them): :meth:`next_threads`'s
        choice, then each further count it chooses while the earlier ones are pending, until it
        has no more or chooses one again (the refine budget bounds a refine round; the first round
        holds the three counts a fit needs).

        Returns:
            The counts in the order chosen (each once); empty when the probe is done.
        """
        chosen: list[int] = []
        while (threads := self.next_threads(points, pending=chosen)) is not None and threads not in chosen:
            chosen.append(threads)
        return chosen

    def _up(self, pts: list[Point], measured: set[int], ladder: list[int]) -> int | None:
        """The next count of the doubling above every measured one; with ``expected_iops``, the
        highest ladder count Little's law shows to be still below the plateau, when that is higher:
        ``expected_iops`` at the lowest count's latency take ``expected_iops x latency``
        outstanding I/Os."""
        top = max(measured) if measured else 0
        higher = [t for t in ladder if t > top]
        if not higher:
            return None
        if self.expected_iops is not None and pts:
            first = min(pts, key=lambda p: p.threads)
            per_thread = (first.outstanding or first.threads * self.per_thread) / first.threads
            needed = self.expected_iops * first.latency_ms / 1000.0 / per_thread
            below = [t for t in higher if t <= needed]
            if below:
                return below[-1]
        return higher[0]

    def _extra(self, pts: list[Point], pending: Sequence[int]) -> int:
        """Measurements beyond the first of each ladder count: refine points and repeats."""
        ladder = set(self.ladder())
        counts: dict[int, int] = {}
        for t in [p.threads for p in pts] + list(pending):
            counts[t] = counts.get(t, 0) + 1
        return sum(n - (1 if t in ladder else 0) for t, n in counts.items())

    def _resolution(self, threads: int) -> int:
        if self.resolution is None:
            return self.step
        return self.resolution(threads) if callable(self.resolution) else self.resolution

    def _refine(self, pts: list[Point], pending: Sequence[int], measured: set[int],
                plausible: tuple[int, int], candidate: int | None = None) -> int | None:
        """Where the answer is uncertain: between the highest count below the plausible range and
        the range's top. The widest gap there bisected, else the count there measured fewest times
        again; None when the interval is narrower than the resolution or the budget is spent."""
        if not self.refine or self._extra(pts, pending) >= self.budget:
            return None
        lo, hi = plausible
        below = [p.threads for p in pts if p.threads < lo]  # measured, not pending: shown below the plateau
        edge = max(below) if below else lo
        if hi - edge <= self._resolution(candidate or hi):
            return None
        edges = sorted({t for t in measured if edge <= t <= hi})
        if self.repeats_only:  # the answer and the count below it: the levels the plateau test weighs
            target = candidate if candidate is not None else lo
            edges = sorted({target, max([p.threads for p in pts if p.threads < target], default=target)})
        gaps = [] if self.repeats_only else sorted(zip(edges, edges[1:]), key=lambda g: (g[0] - g[1], g[0]))
        for a, b in gaps:
            choice = self._bisect(measured, a, b)
            if choice is not None:
                return choice
        counts = {t: sum(p.threads == t for p in pts) + list(pending).count(t) for t in edges}
        target = candidate if candidate is not None else lo
        return min(edges, key=lambda t: (counts[t], abs(t - target), t))

    def _bisect(self, measured: set[int], lo: int, hi: int) -> int | None:
        """The unmeasured multiple of ``step`` nearest the middle of (lo, hi), or None."""
        first = (lo // self.step + 1) * self.step
        candidates = [t for t in range(first, hi, self.step) if t not in measured]
        if not candidates:
            return None
        mid = (lo + hi) / 2
        return min(candidates, key=lambda t: (abs(t - mid), t))


STEADY_MAX_CV_PCT = 10.0
"""Largest interval IOPS scatter (stdev / mean, %) of a steady point."""
STEADY_MAX_DRIFT_PCT = 10.0
"""Largest drift (%) of the fitted line over a steady point's intervals."""


def interval_steadiness(iops: Sequence[float], *, max_cv_pct: float = STEADY_MAX_CV_PCT,
                        max_drift_pct: float = STEADY_MAX_DRIFT_PCT) -> dict:
    """Whether a point's interval IOPS were steady: small scatter and no trend.

    Args:
        iops: IOPS of the measured intervals in time order (warm-up intervals left out).
        max_cv_pct: largest coefficient of variation (stdev / mean, %) still steady.
        max_drift_pct: largest change of the least-squares line from the first to the last
            interval, in % of the mean, still steady.

    Returns:
        ``{"cv_pct", "drift_pct", "steady"}``; ``steady`` is None with fewer than 3 intervals.
    """
    values = np.asarray([float(v) for v in iops], dtype=float)
    if len(values) < 3 or not np.all(np.isfinite(values)) or values.mean() <= 0:
        return {"cv_pct": None, "drift_pct": None, "steady": None}
    mean = float(values.mean())
    cv = float(values.std(ddof=1) / mean * 100.0)
    slope = float(np.polyfit(np.arange(len(values)), values, 1)[0])
    drift = slope * (len(values) - 1) / mean * 100.0
    return {"cv_pct": round(cv, 2), "drift_pct": round(drift, 2),
            "steady": bool(cv <= max_cv_pct and abs(drift) <= max_drift_pct)}


SNIA_ROUNDS = 5
"""Rounds of the SNIA PTS measurement window (steady-state determination)."""
SNIA_MAX_DATA_EXCURSION_PCT = 20.0
"""SNIA PTS: largest max - min of the window's rounds, in % of the window's mean, still steady."""
SNIA_MAX_SLOPE_EXCURSION_PCT = 10.0
"""SNIA PTS: largest change of the window's least-squares line over the window, in % of its mean, still steady."""


def snia_steady_state(iops: Sequence[float], *, rounds: int = SNIA_ROUNDS,
                      max_data_pct: float = SNIA_MAX_DATA_EXCURSION_PCT,
                      max_slope_pct: float = SNIA_MAX_SLOPE_EXCURSION_PCT) -> dict:
    """Steady state by the SNIA Solid State Storage PTS rule over a window of ``rounds`` rounds.

    The point's measured intervals (time order, warm-up left out) are cut into ``rounds``
    consecutive rounds of equal length, ``len(iops) // rounds`` intervals each, the latest
    intervals kept (the first ``len(iops) % rounds`` are left out); a round's value is the mean
    IOPS of its intervals. With exactly ``rounds`` intervals each interval is a round. The
    window is steady when its data excursion (max - min of the rounds) is at most ``max_data_pct``
    % of the window's mean and its slope excursion (the least-squares line's change from the first
    round to the last, ``|slope| x (rounds - 1)``) at most ``max_slope_pct`` % of the mean.

    Returns:
        SNIA's steady-state determination table: ``round_intervals`` (intervals per round),
        ``first_interval`` (index of the window's first interval in ``iops``), ``round_iops``
        (the rounds' values), ``mean_iops``, ``data_excursion_iops`` and its ``_pct``,
        ``data_allowed_iops``, ``slope_excursion_iops`` and its ``_pct``, ``slope_allowed_iops``,
        ``fit_slope_iops`` (IOPS per round) and ``fit_intercept_iops`` (the line at the first
        round), ``steady``; every value None with fewer than ``rounds`` intervals.
    """
    rounds = _whole("rounds", rounds, 2)
    keys = ("round_intervals", "first_interval", "round_iops", "mean_iops", "data_excursion_iops",
            "data_excursion_pct", "data_allowed_iops", "slope_excursion_iops", "slope_excursion_pct",
            "slope_allowed_iops", "fit_slope_iops", "fit_intercept_iops", "steady")
    values = np.asarray([float(v) for v in iops], dtype=float)
    if len(values) < rounds or not np.all(np.isfinite(values)):
        return dict.fromkeys(keys)
    per = len(values) // rounds
    first = len(values) - per * rounds
    window = values[first:].reshape(rounds, per).mean(axis=1)
    mean = float(window.mean())
    if mean <= 0:
        return dict.fromkeys(keys)
    slope, intercept = (float(v) for v in np.polyfit(np.arange(rounds), window, 1))
    data = float(window.max() - window.min())
    slope_excursion = abs(slope) * (rounds - 1)
    data_pct, slope_pct = data / mean * 100.0, slope_excursion / mean * 100.0
    return {"round_intervals": per, "first_interval": first, "round_iops": [round(float(v), 1) for v in window],
            "mean_iops": round(mean, 1), "data_excursion_iops": round(data, 1), "data_excursion_pct": round(data_pct, 2),
            "data_allowed_iops": round(mean * max_data_pct / 100.0, 1),
            "slope_excursion_iops": round(slope_excursion, 1), "slope_excursion_pct": round(slope_pct, 2),
            "slope_allowed_iops": round(mean * max_slope_pct / 100.0, 1),
            "fit_slope_iops": round(slope, 3), "fit_intercept_iops": round(intercept, 1),
            "steady": bool(data_pct <= max_data_pct and slope_pct <= max_slope_pct)}

"""The curve fits under the saturation answer (:mod:`flashpoc.analysis.saturation`): repeated
thread counts pooled, the isotonic (pool-adjacent-violators) fit and its plateau test, the
least-squares non-decreasing concave curve and S, the curve the points' noise is measured around
(the concave one unless the points reject its shape), the fall past the peak, and the residual
bootstrap around that curve."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from flashpoc.analysis.distributions import f_sf


# One-sided 95 % normal quantile of the plateau test.
_Z95 = 1.645
# The plausible range covers the central 90 % of the bootstrap answers.
_RANGE_QUANTILES = (0.05, 0.95)
MIN_DISTINCT_THREADS = 3
# IOPS past the peak more than this far below it (and beyond the points' noise) are an overload past
# the peak, not the array's plateau: recorded probes fell 21-33 % at 256 threads on 2 busy vCPUs; a
# plateau's highest count measured 1-5 % below its peak (tests/data/probe), and one noisy dip 18 %
# (NOISY_DIP in tests/analysis/test_analysis.py: 100K again at twice the threads).
FALL_SHARE = 0.20
# A shape of the curve is rejected when its misfit is beyond the points' scatter around a more
# general one at this level (the lack-of-fit F test).
LACK_OF_FIT_ALPHA = 0.05
# A sum of squared relative residuals under this per point is an exact fit (rounding only).
_EXACT = 1e-18


def _central_range(answers: Sequence[int], answer: int) -> tuple[int, int]:
    """The plausible (low, high) of bootstrap ``answers``: their central 90 %, widened to include ``answer``."""
    lo, hi = (int(np.quantile(answers, q, method="inverted_cdf")) for q in _RANGE_QUANTILES)
    return min(lo, answer), max(hi, answer)


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


def _basis_fit(basis: np.ndarray, means: list[float], weights: list[float]) -> tuple[np.ndarray, int]:
    """Weighted least squares of ``means`` on an intercept and the columns of ``basis`` with
    coefficients >= 0: fitted means and dof (the non-zero coefficients and the intercept)."""
    y = np.asarray(means, dtype=float)
    w = np.asarray(weights, dtype=float)
    scale = float(y.max()) if y.max() > 0 else 1.0
    ys = y / scale
    centred_basis = basis - np.average(basis, axis=0, weights=w)
    root_w = np.sqrt(w)
    beta = _nnls(centred_basis * root_w[:, None], (ys - np.average(ys, weights=w)) * root_w)
    intercept = np.average(ys - basis @ beta, weights=w)
    return (intercept + basis @ beta) * scale, int(np.count_nonzero(beta)) + 1


def _unit(threads: list[int]) -> np.ndarray:
    """The thread counts mapped onto 0..1."""
    t = np.asarray(threads, dtype=float)
    return (t - t[0]) / (t[-1] - t[0])


def _concave_fit(threads: list[int], means: list[float], weights: list[float]) -> tuple[np.ndarray, int]:
    """Least-squares non-decreasing concave curve through (threads, means); fitted means and dof.

    The curve is ``c + sum_j b_j min(t, t_j)`` with ``b_j >= 0`` over the measured counts t_j, which
    spans every non-decreasing concave piecewise-linear curve with knots at the measured counts.
    """
    s = _unit(threads)
    return _basis_fit(np.minimum(s[:, None], s[None, 1:]), means, weights)


def _ramp_fit(threads: list[int], means: list[float], weights: list[float]) -> tuple[np.ndarray, int]:
    """Least-squares non-decreasing curve through (threads, means) whose slope rises, then falls (an
    S: convex up to one measured count, concave from it; concave from the first is
    :func:`_concave_fit`): fitted means and dof of the best inflection count.

    Below the inflection count k the slope is ``sum_{j <= i} a_j`` over ``clip(t - t_j, 0, t_k - t_j)``
    (and ``min(t, t_k)``), from it ``sum_{j > i} b_j`` over ``clip(t - t_k, 0, t_j - t_k)`` (and
    ``max(0, t - t_k)``), every coefficient >= 0."""
    s = _unit(threads)
    n, best = len(s), None
    for k in range(1, n):
        rising = [np.minimum(s, s[k])] + [np.clip(s - s[j], 0.0, s[k] - s[j]) for j in range(1, k)]
        falling = [np.maximum(0.0, s - s[k])] + [np.clip(s - s[k], 0.0, s[j] - s[k]) for j in range(k + 1, n - 1)]
        fitted, dof = _basis_fit(np.stack(rising + (falling if k < n - 1 else []), axis=1), means, weights)
        rss = float(np.sum(np.asarray(weights) * (np.asarray(means) - fitted) ** 2))
        if best is None or rss < best[0] * (1.0 - 1e-9):
            best = (rss, fitted, dof)
    return best[1], best[2]


def _isotonic_fit(means: list[float], weights: list[float]) -> tuple[np.ndarray, int]:
    """The weighted isotonic fit of the pooled means (:func:`_pava`) and its degrees of freedom (its blocks)."""
    blocks = _pava(means, weights)
    fitted = np.empty(len(means))
    for start, end, total, weight in blocks:
        fitted[int(start):int(end)] = total / weight
    return fitted, len(blocks)


def _curve_fit(raw_t: Sequence[int], raw_y: Sequence[float], threads: list[int], means: list[float],
               weights: list[float]) -> tuple[np.ndarray, int]:
    """The curve the points' noise is measured around (fitted means at ``threads``) and its degrees of
    freedom: the simplest shape the points do not reject of the non-decreasing concave curve
    (:func:`_concave_fit`, a saturating curve), the S (:func:`_ramp_fit`: bending upwards first, as
    TPROC-C's NOPM over 1-4 virtual users, 8,305 to 50,728) and any non-decreasing curve (the
    isotonic fit). The relative residuals (the noise is relative) reject a shape when

    - the points are on a more general shape and not on it, or its misfit is beyond their scatter
      around the more general one (the lack-of-fit F test at :data:`LACK_OF_FIT_ALPHA`; the concave
      curve against the S);
    - its misfit is beyond the scatter of the counts measured more than once (the lack-of-fit F test
      against pure error); or, each count measuring more than the one below it, it misses a point
      and fewer points were measured again than :data:`_FEWEST_REPEATS` or than the shape leaves free
      (the test against so few repeats cannot tell: 1 k, 2 k, 4 k, 8 k, 16 k and 17 k, 24 k IOPS is
      no plateau at 25 % noise).

    A misfit taken for noise would call every level within it of the top a plateau."""
    shapes = [_concave_fit(threads, means, weights), _ramp_fit(threads, means, weights), _isotonic_fit(means, weights)]
    index = {t: j for j, t in enumerate(threads)}
    rows = [index[t] for t in raw_t]
    y, mean = np.asarray(raw_y, dtype=float), np.asarray(means, dtype=float)[rows]
    rss = [float(np.sum(_residuals(raw_t, raw_y, threads, fitted, dof)[1] ** 2)) for fitted, dof in shapes]
    with np.errstate(divide="ignore", invalid="ignore"):
        pure = float(np.sum(np.where(mean > 0, y / mean - 1.0, 0.0) ** 2))
    spare, strict = len(y) - len(threads), shapes[2][1] == len(threads)  # strict: each count above the one below
    for i in (0, 1):
        dof = shapes[i][1]
        if rss[i] <= _EXACT * len(y):
            return shapes[i]
        if i == 0 and _misfit(rss[0], dof, rss[1], shapes[1][1], len(y)):
            continue
        if strict and spare < max(_FEWEST_REPEATS, len(threads) - dof) or \
                spare > 0 and _misfit(rss[i], dof, pure, len(threads), len(y)):
            continue
        return shapes[i]
    return shapes[2]


#: Repeated points (pure-error degrees of freedom) under which the lack-of-fit test cannot tell a
#: shape's misfit from noise: a strictly rising series with fewer is judged as if measured once.
_FEWEST_REPEATS = 3


def _misfit(rss: float, dof: int, general_rss: float, general_dof: int, n: int) -> bool:
    """Whether a shape's residuals (sum of squares ``rss`` over ``n`` points, ``dof`` parameters) are
    beyond those of a more general one: it fits them exactly where the shape does not, or the lack-of-fit
    F test at :data:`LACK_OF_FIT_ALPHA` says so."""
    if general_dof <= dof or rss <= general_rss:
        return False
    if general_rss <= _EXACT * n or n <= general_dof:
        return True
    f = (rss - general_rss) / (general_dof - dof) / (general_rss / (n - general_dof))
    return f_sf(f, general_dof - dof, n - general_dof) < LACK_OF_FIT_ALPHA


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
    noise of the points up to the peak around their curve (:func:`_curve_fit`) below it; ``len(threads)`` when
    none falls, or fewer than 3 counts lead up to the peak."""
    peak = int(np.argmax(means))
    cut = len(threads)
    if peak < MIN_DISTINCT_THREADS - 1:
        return cut
    kept_t = [t for t in raw_t if t <= threads[peak]]
    kept_y = [y for t, y in zip(raw_t, raw_y) if t <= threads[peak]]
    fitted, dof = _curve_fit(kept_t, kept_y, threads[:peak + 1], means[:peak + 1], weights[:peak + 1])
    sigma = _residuals(kept_t, kept_y, threads[:peak + 1], fitted, dof)[2]
    for j in reversed(range(peak + 1, len(threads))):
        shortfall = 1.0 - means[j] / means[peak]
        if shortfall <= max(FALL_SHARE, _Z95 * sigma * math.sqrt(1.0 / weights[j] + 1.0 / weights[peak])):
            break
        cut = j
    return cut


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
    """Saturation thread counts of ``n_boot`` resamples: the fitted curve (:func:`_curve_fit`) times
    resampled residuals."""
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

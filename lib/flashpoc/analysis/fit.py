"""The curve fits under the saturation answer (:mod:`flashpoc.analysis.saturation`): repeated
thread counts pooled, the isotonic (pool-adjacent-violators) fit and its plateau test, the
least-squares non-decreasing concave curve and the points' noise around it, the fall past the peak,
and the residual bootstrap around the concave curve."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


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

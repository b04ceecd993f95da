"""Whether a point's interval IOPS were steady: their scatter and drift (:func:`interval_steadiness`),
and the SNIA Solid State Storage PTS steady-state window (:func:`snia_steady_state`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from flashpoc.analysis.point import _whole


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
    return {"cv_pct": cv, "drift_pct": drift,
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
    return {"round_intervals": per, "first_interval": first, "round_iops": [float(v) for v in window],
            "mean_iops": mean, "data_excursion_iops": data, "data_excursion_pct": data_pct,
            "data_allowed_iops": mean * max_data_pct / 100.0,
            "slope_excursion_iops": slope_excursion, "slope_excursion_pct": slope_pct,
            "slope_allowed_iops": mean * max_slope_pct / 100.0,
            "fit_slope_iops": slope, "fit_intercept_iops": intercept,
            "steady": bool(data_pct <= max_data_pct and slope_pct <= max_slope_pct)}

"""How sure a measured number is: mean, spread and 95 % confidence interval of repeated points
(``sweep.repeats``, the probe's re-measured counts), and of the answers read off the curves (pure:
numbers and DataFrames in, numbers and DataFrames out).

* A point measured n times (its repeats: the same workload, threads and rate step) has a mean, a
  spread (min..max, and the coefficient of variation, stdev/mean in %) and a 95 % confidence
  interval of the mean: mean +- t(0.975, n-1) * s / sqrt(n), Student's t with n-1 degrees of
  freedom (:func:`summarize`). One measurement gives no interval, and none is made up: the tables
  say so.
* The answers (max IOPS, IOPS at the SLO, the knee) come with intervals **from the repeat-wise
  answers**: repeat r of every thread count is one whole curve (the sweep measures them
  interleaved); each curve gives its own answer, and those answers are summarized like a point's
  repeats (:func:`answers`). No resampling: the interval is as wide as the curves disagree.
* A difference between two configurations has a 95 % interval by Welch's t (difference of means,
  unequal variances, Welch-Satterthwaite degrees of freedom; :func:`welch`). When it spans zero the
  difference is **within measurement noise**; without repeats no interval can be computed, and a
  difference smaller than the stated point-to-point noise (``report.noise_pct``) is called noise
  too (:func:`noise_verdict`): a 5 % "win" is never printed as a win.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from flashpoc.analysis.curve import find_knee, iops_at_latency
from flashpoc.analysis.distributions import t_critical
from flashpoc.analysis.rows import curve_points

#: the words of a difference that cannot be told from noise
NOISE = "within measurement noise"


# -- one set of repeats -----------------------------------------------------------------
@dataclass(frozen=True)
class Summary:
    """Repeated measurements of one number: how many, their mean, their spread (min, max and the
    coefficient of variation in %) and the 95 % interval of the mean (None with one measurement)."""

    n: int
    mean: float
    min: float
    max: float
    cv_pct: float | None
    ci_low: float | None
    ci_high: float | None

    @property
    def half_width(self) -> float | None:
        """The ``+-`` of the interval (t * s / sqrt(n)), or None without an interval."""
        return None if self.ci_high is None else self.ci_high - self.mean

    def text(self, fmt: str = ",.0f", unit: str = "") -> str:
        """'12,345 +- 456 (95 % interval 11,889..12,801; spread 12,001..12,700, CV 2.1 %; n=3)', or
        '12,345 (one run: no interval)'."""
        if self.n < 2:
            return f"{self.mean:{fmt}}{unit} (one run: no interval)"
        return (f"{self.mean:{fmt}}{unit} +- {self.half_width:{fmt}}{unit} (95 % interval {self.ci_low:{fmt}}.."
                f"{self.ci_high:{fmt}}{unit}; spread {self.min:{fmt}}..{self.max:{fmt}}{unit}, CV {self.cv_pct:.1f} %; "
                f"n={self.n})")


def summarize(values: Sequence[float]) -> Summary | None:
    """:class:`Summary` of ``values`` (None and NaN left out; None when nothing is left): the mean,
    min..max, CV (sample stdev / mean, %) and mean +- t(0.975, n-1) * s / sqrt(n). IOPS, MiB/s,
    latencies and thread counts cannot be negative: when no value is, the interval's low end stops
    at 0 rather than reading, say, -40 IOPS."""
    xs = [float(v) for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    if not xs:
        return None
    n, mean = len(xs), sum(xs) / len(xs)
    if n < 2:
        return Summary(1, mean, mean, mean, None, None, None)
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
    half = t_critical(n - 1) * sd / math.sqrt(n)
    low = max(0.0, mean - half) if min(xs) >= 0 else mean - half
    return Summary(n, mean, min(xs), max(xs), sd / mean * 100.0 if mean else None, low, mean + half)


# -- points and answers -----------------------------------------------------------------
POINT_COLUMNS = ["n", "mean", "min", "max", "cv_pct", "ci_low", "ci_high"]


def _row(summary: Summary | None) -> dict[str, Any]:
    if summary is None:
        return dict.fromkeys(POINT_COLUMNS)
    return {"n": summary.n, "mean": summary.mean, "min": summary.min, "max": summary.max,
            "cv_pct": summary.cv_pct, "ci_low": summary.ci_low, "ci_high": summary.ci_high}


def series_keys(frame: pd.DataFrame) -> list[str]:
    """The columns naming one curve: [config,] workload."""
    return [c for c in ("config", "workload") if c in frame]


def point_keys(frame: pd.DataFrame) -> list[str]:
    """The columns the repeats of one point share: [config,] workload, threads[, curve_pct]."""
    rate = ["curve_pct"] if "curve_pct" in frame and frame["curve_pct"].notna().any() else []
    return [*series_keys(frame), "threads", *rate]


def point_table(points: pd.DataFrame, column: str = "iops") -> pd.DataFrame:
    """One row per point (:func:`point_keys`) with the :class:`Summary` of ``column`` over its
    repeats: ``n``, ``mean``, ``min``, ``max``, ``cv_pct``, ``ci_low``, ``ci_high`` (the interval
    None for a point measured once)."""
    keys = point_keys(points)
    if points.empty or column not in points:
        return pd.DataFrame(columns=[*keys, *POINT_COLUMNS])
    rows = []
    for values, group in points.groupby(keys, sort=False, dropna=False):
        values = values if isinstance(values, tuple) else (values,)
        rows.append({**dict(zip(keys, values)), **_row(summarize(pd.to_numeric(group[column], errors="coerce")))})
    return pd.DataFrame(rows, columns=[*keys, *POINT_COLUMNS])


def mean_rows(points: pd.DataFrame) -> pd.DataFrame:
    """One row per point (:func:`point_keys`): its numbers (not yes/no values) the mean over its
    repeats, its other columns those of its first repeat; ``points`` itself when no point was
    measured more than once. The curve the tables read their maximum from: the best of a point's
    repeats is never its value."""
    if not has_repeats(points):
        return points
    keys = point_keys(points)
    numbers = [c for c in points.columns if c not in keys and pd.api.types.is_numeric_dtype(points[c])
               and not pd.api.types.is_bool_dtype(points[c]) and c != "repeat"]
    groups = points.groupby(keys, sort=False, dropna=False)
    out = groups.first()
    out[numbers] = groups[numbers].mean()
    return out.reset_index()[[c for c in points.columns if c in out.reset_index()]]


def repeat_curves(curve: pd.DataFrame) -> list[pd.DataFrame]:
    """The whole curves of one series, one per repeat (``repeat`` 0, 1, ...; all the rows as one
    curve when there is no ``repeat`` column)."""
    if "repeat" not in curve:
        return [curve]
    repeat = pd.to_numeric(curve["repeat"], errors="coerce").fillna(0).astype(int)
    return [curve[repeat == r] for r in sorted(set(repeat))]


def repeat_answers(curve: pd.DataFrame, answer: Callable[[pd.DataFrame], float | None]) -> list[float]:
    """``answer`` of each repeat's curve (:func:`repeat_curves`), those that give one."""
    values = (answer(c) for c in repeat_curves(curve))
    return [float(v) for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]


def max_iops(curve: pd.DataFrame) -> float | None:
    """The highest IOPS of a curve."""
    values = pd.to_numeric(curve["iops"], errors="coerce").dropna()
    return None if values.empty else float(values.max())


def iops_at_slo(slo_ms: float) -> Callable[[pd.DataFrame], float | None]:
    """The IOPS of a curve at ``slo_ms`` (:func:`flashpoc.analysis.iops_at_latency`, measured or
    interpolated; None when it is only a bound: an interval of bounds would say nothing)."""

    def at(curve: pd.DataFrame) -> float | None:
        found = iops_at_latency(curve_points(curve), slo_ms)
        return found.value if found.exact else None

    return at


def _knee(what: str) -> Callable[[pd.DataFrame], float | None]:

    def knee(curve: pd.DataFrame) -> float | None:
        point = find_knee(curve_points(curve))
        return None if point is None else float(getattr(point, what))

    return knee


ANSWER_COLUMNS = ["answer", "unit", "runs", *POINT_COLUMNS]


def answers(points: pd.DataFrame, slo_ms: float) -> pd.DataFrame:
    """The answers of each curve ([config,] workload) with intervals from the repeat-wise answers:
    ``max IOPS``, ``IOPS at <slo> ms``, ``knee threads`` and ``knee IOPS``; ``runs`` is the number
    of repeats (whole curves), ``n`` how many of them give the answer (a curve that never crosses the
    SLO gives none)."""
    keys = series_keys(points)
    measures = [("max IOPS", "IOPS", max_iops), (f"IOPS at {slo_ms:g} ms", "IOPS", iops_at_slo(slo_ms)),
                ("knee", "threads", _knee("threads")), ("knee IOPS", "IOPS", _knee("iops"))]
    rows = []
    for values, curve in points.groupby(keys, sort=False):
        values = values if isinstance(values, tuple) else (values,)
        runs = len(repeat_curves(curve))
        for name, unit, answer in measures:
            rows.append({**dict(zip(keys, values)), "answer": name, "unit": unit, "runs": runs,
                         **_row(summarize(repeat_answers(curve, answer)))})
    return pd.DataFrame(rows, columns=[*keys, *ANSWER_COLUMNS])


def has_repeats(points: pd.DataFrame) -> bool:
    """Whether some point of ``points`` was measured more than once."""
    if points.empty or "threads" not in points:
        return False
    return bool(points.groupby(point_keys(points), dropna=False).size().gt(1).any())


# -- differences ------------------------------------------------------------------------
@dataclass(frozen=True)
class Difference:
    """``b - a`` of two sets of repeats: the difference of their means and its 95 % interval by
    Welch's t (``df``: Welch-Satterthwaite)."""

    delta: float
    low: float
    high: float
    df: float

    @property
    def spans_zero(self) -> bool:
        """Whether the interval holds 0: the difference cannot be told from noise."""
        return self.low <= 0.0 <= self.high


def welch(a: Sequence[float], b: Sequence[float]) -> Difference | None:
    """The difference of the means of ``b`` and ``a`` with its 95 % Welch interval; None unless both
    have at least two values. Two sets without any scatter give a zero-width interval."""
    sa, sb = summarize(a), summarize(b)
    if sa is None or sb is None or sa.n < 2 or sb.n < 2:
        return None
    va = sum((x - sa.mean) ** 2 for x in map(float, a)) / (sa.n - 1) / sa.n
    vb = sum((x - sb.mean) ** 2 for x in map(float, b)) / (sb.n - 1) / sb.n
    delta = sb.mean - sa.mean
    if va + vb == 0:
        return Difference(delta, delta, delta, float(sa.n + sb.n - 2))
    df = (va + vb) ** 2 / (va**2 / (sa.n - 1) + vb**2 / (sb.n - 1))
    half = t_critical(df) * math.sqrt(va + vb)
    return Difference(delta, delta - half, delta + half, df)


def noise_verdict(delta_pct: float | None, difference: Difference | None, noise_pct: float) -> str | None:
    """Whether a difference is noise, in words: :data:`NOISE` when its 95 % interval spans zero
    (repeats on both sides), or, without an interval (no repeats, or fewer than two repeat-wise
    answers on a side), when it is smaller than ``noise_pct`` % (the stated point-to-point noise);
    "beyond noise (95 % interval)" or "beyond the N % point-to-point noise" otherwise; None when
    there is no difference."""
    if difference is not None:
        return NOISE if difference.spans_zero else "beyond noise (95 % interval)"
    if delta_pct is None or (isinstance(delta_pct, float) and math.isnan(delta_pct)):
        return None
    if abs(delta_pct) < noise_pct:
        return f"{NOISE} (below the {noise_pct:g} % point-to-point noise; no interval)"
    return f"beyond the {noise_pct:g} % point-to-point noise (no interval)"


def is_noise(verdict: Any) -> bool:
    """Whether a :func:`noise_verdict` says the difference is noise."""
    return isinstance(verdict, str) and verdict.startswith(NOISE)

"""The measured point every analysis takes, and the checks of the numbers an analysis is given:
a bad value raises :class:`~flashpoc.core.errors.AnalysisError` naming it."""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass

from flashpoc.core.errors import AnalysisError


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

"""Student's t and Fisher's F, from the regularized incomplete beta function (pure: numbers in,
numbers out): the intervals of :mod:`flashpoc.analysis.confidence` and the lack-of-fit test of
:mod:`flashpoc.analysis.fit`."""

from __future__ import annotations

import math

#: the level of every interval
LEVEL = 0.95


# -- Student's t ------------------------------------------------------------------------
def _betacf(a: float, b: float, x: float) -> float:
    """The continued fraction of the regularized incomplete beta function (modified Lentz)."""
    tiny, qab, qap, qam = 1e-300, a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        for aa in (m * (b - m) * x / ((qam + m2) * (a + m2)), -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1.0 + aa * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + aa / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def _betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with ``df`` (> 0, not necessarily whole) degrees of freedom."""
    tail = 0.5 * _betainc(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


def f_sf(f: float, df1: float, df2: float) -> float:
    """P(F > f) for Fisher's F with ``df1`` and ``df2`` (> 0) degrees of freedom: the p-value of an F
    test (1.0 for f <= 0)."""
    if f <= 0:
        return 1.0
    return _betainc(df2 / 2.0, df1 / 2.0, df2 / (df2 + df1 * f))


def t_critical(df: float, level: float = LEVEL) -> float:
    """The two-sided critical value of Student's t: P(|T| <= value) = ``level`` (12.706 for one
    degree of freedom, 4.303 for two, 1.960 as ``df`` grows)."""
    if not df > 0:
        raise ValueError(f"degrees of freedom must be above 0, not {df!r}")
    target = 1.0 - (1.0 - level) / 2.0
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < target:
        hi *= 2.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        lo, hi = (mid, hi) if t_cdf(mid, df) < target else (lo, mid)
        if hi - lo < 1e-12:
            break
    return (lo + hi) / 2.0



"""A figure read off a measured curve: a value, or a bound where the curve does not reach it.

A curve measured at a few loads answers "IOPS within 1 ms" or "latency at 50,000 IOPS" exactly only
between its lightest and its heaviest point. Outside them the answer is still known, as a bound:
every point under the SLO says the array gives *at least* the most IOPS measured; a level the
lightest load already exceeds has a latency *at most* that of the lightest point (latency does not
fall as load rises). A level above the heaviest point is *not reached*: the curve says nothing of it.

:class:`Bound` carries the value with its kind and the reason from the analysis to every table,
sentence and CSV, so that no formatter prints a bound as a value or drops it
(:meth:`Bound.cell`, :meth:`Bound.words`); the difference of two bounds is a bound too
(:func:`difference`), and so is the verdict on it (:func:`better`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

#: The kinds of a figure: measured or interpolated; a lower bound; an upper bound; a level the
#: curve never reached; no value at all (not measured, or a difference of two bounds that say nothing).
EXACT, AT_LEAST, AT_MOST, NOT_REACHED, MISSING = "exact", "at_least", "at_most", "not_reached", "missing"
KINDS = (EXACT, AT_LEAST, AT_MOST, NOT_REACHED, MISSING)

#: What a cell shows for each kind: ``>= 85,427``, ``<= 0.081``, "not reached", or a dash.
_SIGNS = {AT_LEAST: "≥ ", AT_MOST: "≤ "}
_WORDS = {AT_LEAST: "at least ", AT_MOST: "at most "}
_DASH = "–"
_FLIP = {EXACT: EXACT, AT_LEAST: AT_MOST, AT_MOST: AT_LEAST}


def _as_number(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


@dataclass(frozen=True)
class Bound:
    """A value and what it is: :data:`EXACT`, :data:`AT_LEAST`, :data:`AT_MOST`, :data:`NOT_REACHED`
    (``value`` None, or the most the curve reached) or :data:`MISSING` (``value`` None); ``why``
    says, in words, what makes it a bound ("every point under 1 ms")."""

    value: float | None
    kind: str = EXACT
    why: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"Bound.kind: {self.kind!r} is not one of {', '.join(KINDS)}")
        number = _as_number(self.value)
        object.__setattr__(self, "value", number)
        if number is None and self.kind in (EXACT, AT_LEAST, AT_MOST):
            object.__setattr__(self, "kind", MISSING)

    @property
    def known(self) -> bool:
        """Whether it says something of the value: exact, or a bound with a value."""
        return self.kind in (EXACT, AT_LEAST, AT_MOST)

    @property
    def exact(self) -> bool:
        return self.kind == EXACT

    def scaled(self, factor: float) -> Bound:
        """The same bound of ``value x factor`` (``factor`` > 0 keeps its direction)."""
        return self if self.value is None else replace(self, value=self.value * factor)

    def cell(self, fmt) -> str:
        """Cell text: ``85,427``, ``≥ 85,427``, ``≤ 0.081``, "not reached" or a dash (``fmt``
        formats the number)."""
        if self.kind == NOT_REACHED:
            return "not reached"
        if not self.known:
            return _DASH
        return _SIGNS.get(self.kind, "") + fmt(self.value)

    def words(self, fmt, unit: str = "") -> str:
        """Sentence text: "85,427 IOPS", "at least 85,427 IOPS", "at most 0.081 ms", "not reached"."""
        if self.kind == NOT_REACHED:
            return "not reached"
        if not self.known:
            return "not measured"
        return _WORDS.get(self.kind, "") + fmt(self.value) + (f" {unit}" if unit else "")


def of(value: Any, kind: Any = EXACT, why: Any = "") -> Bound:
    """A :class:`Bound` from stored cells (a CSV's value, kind and reason; a missing kind is exact)."""
    kind = kind if isinstance(kind, str) and kind in KINDS else EXACT
    return Bound(value, kind, why if isinstance(why, str) else "")


def difference(a: Bound, b: Bound) -> tuple[Bound, Bound]:
    """``b - a`` and ``(b - a) / a`` in %, as bounds: exact when both are, else the bound both
    directions allow (``b`` at least 85,427 against an exact 12,267: at least +73,160, at least
    +596 %); :data:`MISSING` when either is unknown or the two bounds point the same way (nothing
    follows from "at least 10" against "at least 20"). The percentage keeps the difference's
    kind (values >= 0, ``a`` > 0)."""
    if not (a.known and b.known):
        return Bound(None, MISSING), Bound(None, MISSING)
    kinds = {b.kind, _FLIP[a.kind]} - {EXACT}
    if len(kinds) > 1:
        return (Bound(None, MISSING, "both are bounds the same way"),) * 2
    kind = kinds.pop() if kinds else EXACT
    delta = b.value - a.value
    pct = None if a.value == 0 else delta / a.value * 100.0
    return Bound(delta, kind), Bound(pct, kind)


def better(delta: Bound, higher_is_better: bool) -> bool | None:
    """Whether the second of two compared values is the better (True), the worse (False), or
    neither can be said (None: equal, no difference, or a bound that allows both)."""
    if not delta.known or delta.value == 0:
        return None
    if delta.kind == AT_LEAST and delta.value < 0 or delta.kind == AT_MOST and delta.value > 0:
        return None
    return (delta.value > 0) == higher_is_better


def beyond(pct: Bound, noise_pct: float) -> bool:
    """Whether a bound of a change in % lies wholly beyond ``noise_pct`` % either way (an exact
    change: its size is at least ``noise_pct``)."""
    if not pct.known:
        return False
    if pct.kind == AT_LEAST:
        return pct.value >= noise_pct
    if pct.kind == AT_MOST:
        return pct.value <= -noise_pct
    return abs(pct.value) >= noise_pct

"""Numbers as stored: a derived figure is kept as computed and rounded once, where it is printed.

Rounding a figure where it is computed and again where it is printed rounds it twice, and twice
is wrong at the boundaries: a least-squares slope of 676.5505 IOPS stored as 676.55 (the float
676.549999...) printed "676.5", not "676.6"; a NOPM of 12,345.46 stored as 12,345.5 printed
"12,346". So below the present layer no figure is rounded to decimals (``tests/code`` checks it);
:func:`tidy` only drops the binary noise of arithmetic on printed figures, far below any printed
precision.
"""

from __future__ import annotations

SIGNIFICANT = 12
"""Significant digits :func:`tidy` keeps: binary noise sits at the 16th and 17th."""


def tidy(value: float) -> float:
    """``value`` without the binary noise of its arithmetic (``0.35019000000000003`` is ``0.35019``,
    ``12.3 * 1000`` is ``12300.0``): :data:`SIGNIFICANT` significant digits, never a printed precision."""
    return float(f"{value:.{SIGNIFICANT}g}")

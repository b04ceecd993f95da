"""The cells of an AWR or Statspack report as numbers: a latency in the unit its cell prints (or its
header names) to microseconds, an abbreviated count (``12.2K``, ``2.8E+04``) expanded, a data size
(``M``, ``G``: multiples of 1024) in MiB, a plain figure; a cell that is not one is refused."""

from __future__ import annotations

import re

from flashpoc.core.errors import ParseError
from flashpoc.core.numbers import tidy

_LATENCY_FACTORS_US: dict[str, float] = {
    "ns": 0.001,
    "us": 1.0,
    "ms": 1000.0,
    "m": 1000.0,  # RAC reports truncate "ms" to "m" in narrow columns (e.g. 3638.43m).
    "s": 1_000_000.0,
}
_COUNT_FACTORS: dict[str, float] = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}
_DATA_FACTORS_MB: dict[str, float] = {"K": 1 / 1024, "M": 1.0, "G": 1024.0, "T": 1024.0**2, "P": 1024.0**3}

_DIGITS = r"(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
"""Digits, a comma only between groups of three before the point (``1,174,558``, ``.9``, ``2.8E+04``):
a damaged ``38.4`` (``3,.4``) is not a number, never read as 3.4."""
_NUMBER = rf"\+?{_DIGITS}"
"""A count, latency, share or size as AWR prints it: never negative (a ``-`` there is a corrupted
report, refused rather than read as a number; only System Statistics deltas may be negative)."""
_LATENCY_RE = re.compile(rf"^({_NUMBER})\s*(ns|us|ms|m|s)?$")
_COUNT_RE = re.compile(rf"^({_NUMBER})\s*([KMGTP]?)$")
_PCT_RE = re.compile(r"^(\+?(?:\d+(?:\.\d*)?|\.\d+))(?:\((\d+)\)?)?$")  # no comma; text may cut the ")": 0.0(2066
_SIGNED_RE = re.compile(rf"[-+]?{_DIGITS}")


def parse_latency_us(cell: str, default_unit: str | None = None) -> float | None:
    """Convert a latency cell such as ``350.19us``, ``10.37ms`` or ``52.86 s`` to microseconds.

    Args:
        cell: The cell as printed.
        default_unit: Unit of a bare number (``"ms"`` for an ``Avg wait (ms)`` column);
            with ``None`` a bare number is an error.

    Returns:
        Microseconds, or ``None`` for a blank cell.

    Raises:
        ParseError: The cell is not a latency.
    """
    text = cell.strip()
    if not text:
        return None
    match = _LATENCY_RE.match(text)
    unit = (match.group(2) if match else None) or default_unit
    if not match or unit is None:
        raise ParseError(f"expected a latency with a unit (ns/us/ms/s), got {cell!r}")
    return tidy(float(match.group(1).replace(",", "")) * _LATENCY_FACTORS_US[unit])


def parse_count(cell: str) -> float | None:
    """Convert a count such as ``1,174,558``, ``12.2K``, ``10.2M`` or ``2.8E+04`` to a number.

    Args:
        cell: The cell as printed (K/M/G/T/P are multiples of 1000).

    Returns:
        The number, or ``None`` for a blank cell.

    Raises:
        ParseError: The cell is not a count.
    """
    text = cell.strip()
    if not text:
        return None
    match = _COUNT_RE.match(text)
    if not match:
        raise ParseError(f"expected a number (optionally suffixed K/M/G/T/P), got {cell!r}")
    return tidy(float(match.group(1).replace(",", "")) * _COUNT_FACTORS[match.group(2)])


def _whole(cell: str) -> int:
    """A whole-number cell (snapshot id, DB Id, instance number, CPUs): digits only."""
    text = str(cell).strip()
    if not text.isdecimal() or not text.isascii():
        raise ParseError(f"expected a whole number, got {cell!r}")
    return int(text)


def _int_or_none(value: float | None) -> int | None:
    return None if value is None else int(round(value))


def _data_mb(cell: str) -> float | None:
    """AWR IOStat 'Data' cell (``77.8G``, ``843M``, ``.036M``) in MiB; ``None`` without a suffix."""
    text = cell.strip()
    match = re.match(rf"^({_NUMBER})([KMGTP])$", text)
    if not match:
        return None
    return tidy(float(match.group(1).replace(",", "")) * _DATA_FACTORS_MB[match.group(2)])


def _float(cell: str, what: str, *, signed: bool = False) -> float | None:
    """A plain number cell (``1,234.5``, ``4.52E+08``); ``None`` when blank. Only ``signed``
    cells (statistic deltas such as ``session pga memory``) may be negative."""
    text = cell.strip()
    if not text:
        return None
    if not _SIGNED_RE.fullmatch(text) or (text[0] == "-" and not signed):
        raise ParseError(f"{what}: expected a {'' if signed else 'non-negative '}number, got {cell!r}")
    return float(text.replace(",", ""))


def _statistic_number(cell: str, what: str) -> float | None:
    """A System Statistics cell (``1,234.5``, ``4.5200871E+08``); ``None`` for blank or ``N/A``."""
    if cell.strip() in ("", "N/A"):
        return None
    return _float(cell, what, signed=True)

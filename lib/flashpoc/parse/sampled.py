"""Per-interval rows from cumulative counters sampled with the DB host's clock (pure): the window
rule a point's time series follows whichever counters were sampled (the NFS client's,
:mod:`flashpoc.parse.mountstats`, or the database's own, :mod:`flashpoc.parse.dbstat`).

Each sample carries ``epoch`` (seconds since the epoch, the interval lengths) and ``clock``
(``HH:MM:SS`` on the clock the AWR report prints its snapshot times in). An interval (a pair of
consecutive samples) ending at or before the report's begin time is ``warmup``; intervals ending
after its end time are left out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any


def known_window(begin_clock: str | None, end_clock: str | None) -> bool:
    """Whether the measured window is known and within one day (``begin < end``)."""
    return begin_clock is not None and end_clock is not None and begin_clock < end_clock


def window_intervals(samples: Sequence[Mapping[str, Any]], begin_clock: str | None, end_clock: str | None,
                     figures: Callable[[Mapping[str, Any], Mapping[str, Any], float], dict[str, Any]]
                     ) -> list[dict[str, Any]]:
    """One row per pair of consecutive ``samples`` up to the window's end.

    Args:
        samples: the samples in order, each with ``epoch`` and ``clock``.
        begin_clock: the window's start (``HH:MM:SS``), or None.
        end_clock: its end, or None.
        figures: ``(old sample, new sample, seconds) -> the interval's columns``; it raises
            :class:`~flashpoc.errors.ParseError` for counters it cannot difference.

    Returns:
        ``{"second", **figures, "warmup"}`` per interval; ``second`` is the interval's end in
        seconds since the first interval started. Empty when the window is unknown or the
        samples cross midnight (no guess).
    """
    if not known_window(begin_clock, end_clock):
        return []
    rows: list[dict[str, Any]] = []
    for old, new in zip(samples, samples[1:]):
        if new["clock"] < old["clock"]:
            return []  # the run crossed midnight: no guess
        if new["clock"] > end_clock:
            break
        rows.append({"second": float(new["epoch"] - samples[0]["epoch"]),
                     **figures(old, new, new["epoch"] - old["epoch"]), "warmup": new["clock"] <= begin_clock})
    return rows

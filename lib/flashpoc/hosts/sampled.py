"""Per-interval rows from cumulative counters sampled with the DB host's clock (pure): the window
rule a point's time series follows whichever counters were sampled (the NFS client's,
:mod:`flashpoc.hosts.mountstats`, or the database's own, :mod:`flashpoc.oracle.dbstat`).

Each sample carries ``epoch`` (seconds since the epoch, the interval lengths) and ``clock``
(``HH:MM:SS`` on the clock the AWR report prints its snapshot times in). An interval (a pair of
consecutive samples) ending at or before the report's begin time is ``warmup``; intervals ending
after its end time are left out.

A series whose samples do not cover the window (:func:`check_cover`: none at or before its begin
or none at or after its end, as a file cut short leaves it, a sample missing or printed twice, or
the times out of order) is damaged: it is refused (a ParseError naming the file), never averaged
or differenced over what remains.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from flashpoc.core.errors import ParseError

GAP_FACTOR = 1.5
"""A gap between two samples of a regularly sampled series longer than this many of its usual
intervals (the most common one) is a missing sample."""


def known_window(begin_clock: str | None, end_clock: str | None) -> bool:
    """Whether the measured window is known and within one day (``begin < end``)."""
    return begin_clock is not None and end_clock is not None and begin_clock < end_clock


def clock_seconds(clock: str) -> int:
    """``HH:MM:SS`` -> seconds since midnight."""
    hours, minutes, seconds = (int(part) for part in clock.split(":"))
    return hours * 3600 + minutes * 60 + seconds


def check_cover(clocks: Sequence[str], begin_clock: str, end_clock: str, what: str, *, regular: bool = True) -> None:
    """Refuse samples stamped ``clocks`` (``HH:MM:SS``, in the file's order) that do not cover the
    window ``begin_clock`` to ``end_clock`` (a known window, :func:`known_window`): the first at or
    before its begin, one at or after its end, their times increasing up to it and, for a
    ``regular`` series (a tool sampling every N seconds), no gap over :data:`GAP_FACTOR` times its
    most common interval between the last sample at or before the begin and the first at or after
    the end.

    Raises:
        ParseError: naming ``what`` (the file) and what is wrong.
    """
    if not clocks or clocks[0] > begin_clock:
        raise ParseError(f"{what}: its samples start {'at ' + clocks[0] if clocks else 'nowhere'}, after the "
                         f"window's begin {begin_clock}: they do not cover the window")
    last = next((i for i, clock in enumerate(clocks) if clock >= end_clock), None)
    if last is None:
        raise ParseError(f"{what}: its samples end at {clocks[-1]}, before the window's end {end_clock} (cut "
                         "short?): they do not cover the window")
    seconds = [clock_seconds(clock) for clock in clocks[:last + 1]]
    bad = next((i for i, (a, b) in enumerate(zip(seconds, seconds[1:])) if b <= a), None)
    if bad is not None:
        raise ParseError(f"{what}: a sample at {clocks[bad + 1]} follows one at {clocks[bad]} (a sample printed "
                         "twice or out of order): damaged")
    first = max(i for i, clock in enumerate(clocks[:last + 1]) if clock <= begin_clock)
    steps = [b - a for a, b in zip(seconds[first:], seconds[first + 1:])]
    usual = Counter(b - a for a, b in zip(map(clock_seconds, clocks), map(clock_seconds, clocks[1:]))
                    if b > a).most_common(1)
    gap = next((i for i, step in enumerate(steps) if regular and usual and step > GAP_FACTOR * usual[0][0]), None)
    if gap is not None:
        raise ParseError(f"{what}: no sample between {clocks[first + gap]} and {clocks[first + gap + 1]} (it samples "
                         f"every {usual[0][0]} s): a sample is missing")


def window_intervals(samples: Sequence[Mapping[str, Any]], begin_clock: str | None, end_clock: str | None,
                     figures: Callable[[Mapping[str, Any], Mapping[str, Any], float], dict[str, Any]],
                     cover: str | None = None, regular: bool = True) -> list[dict[str, Any]]:
    """One row per pair of consecutive ``samples`` up to the window's end.

    Args:
        samples: the samples in order, each with ``epoch`` and ``clock``.
        begin_clock: the window's start (``HH:MM:SS``), or None.
        end_clock: its end, or None.
        figures: ``(old sample, new sample, seconds) -> the interval's columns``; it raises
            :class:`~flashpoc.core.errors.ParseError` for counters it cannot difference.
        cover: the file's name, when the samples must cover the window (:func:`check_cover`; a
            report's snapshots, taken while the samples were); None: not checked (a window of
            snapshots taken before and after the sampling).
        regular: whether the samples are taken every N seconds (:func:`check_cover`).

    Returns:
        ``{"second", **figures, "warmup"}`` per interval; ``second`` is the interval's end in
        seconds since the first interval started. Empty when the window is unknown or the
        samples cross midnight (no guess).
    """
    if not known_window(begin_clock, end_clock):
        return []
    clocks = [sample["clock"] for sample in samples]
    if cover is not None and not crosses_midnight(clocks):
        check_cover(clocks, begin_clock, end_clock, cover, regular=regular)
    rows: list[dict[str, Any]] = []
    for old, new in zip(samples, samples[1:]):
        if new["clock"] < old["clock"]:
            return []  # the run crossed midnight: no guess
        if new["clock"] > end_clock:
            break
        rows.append({"second": float(new["epoch"] - samples[0]["epoch"]),
                     **figures(old, new, new["epoch"] - old["epoch"]), "warmup": new["clock"] <= begin_clock})
    return rows


def crosses_midnight(clocks: Sequence[str]) -> bool:
    """Whether samples stamped ``clocks`` (``HH:MM:SS``) go back by more than twelve hours: past
    midnight (their window is not guessed)."""
    seconds = [clock_seconds(clock) for clock in clocks]
    return any(a - b > 43200 for a, b in zip(seconds, seconds[1:]))

"""fio's per-job interval logs (``write_iops_log``, ``write_lat_log``, ``log_avg_msec``) into a
point's time series, and the series of several hosts merged.

fio logs each window at its end (``log_avg_msec`` after the last, on a fixed schedule: a millisecond
early, or late on a busy host), every direction a job does at once. A log cut short, emptied,
removed or with a line lost or damaged is told (:func:`read_interval_logs` names it), never
summed into a window with fewer jobs, directions or seconds than fio logged: each job logs every
window but (in its iops log) perhaps the run's last, so that is where the series ends.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from flashpoc.core.errors import ParseError

INTERVAL_KEYS: tuple[str, ...] = (
    "second",
    "iops",
    "read_iops",
    "write_iops",
    "lat_mean_ms",
    "read_lat_mean_ms",
    "write_lat_mean_ms",
)
"""Keys of every row returned by :func:`parse_fio_interval_logs` and :func:`merge_intervals`."""

LAST_SLACK = 0.25
"""A window that ends less than this share of a window before the run's end (4,000 ms of a 4,005
ms run) is the run's last, which some jobs do not log: the series ends before it. One that ends
earlier (1,000 ms of a 1,855 ms run that fio's steady state ended) is whole in every job's log."""

_LOG_NAME = re.compile(r"^(?P<prefix>.*)_(?P<kind>iops|lat)\.(?P<job>\d+)\.log$")
_DIRECTION_NAMES = {0: "read", 1: "write", 2: "trim"}

Damage = tuple[str, str]
"""A damaged log: its file name and what is wrong with it."""


def parse_fio_interval_logs(logs: Mapping[str, str], *, window_ms: int,
                            fio_version: str | None = None) -> list[dict[str, Any]]:
    """Per-second (per-window) IOPS and mean completion latency from fio's per-job logs.

    fio writes, with ``write_iops_log=NAME``, ``write_lat_log=NAME`` and
    ``log_avg_msec=<window_ms>``, one ``NAME_iops.<job>.log`` and one ``NAME_lat.<job>.log``
    per job (and ``_clat``/``_slat`` logs, not read). Each line is ``time (ms since the job's measurement start), value, direction
    (0 read, 1 write, 2 trim), block size, offset[, priority]``; an iops log's value is the
    job's IOPS averaged over the window, a lat log's value the job's mean total latency (submission
    to completion, as the point's ``lat_mean_ms``) in the window (ns in fio 3.x, us in fio 2.x). The ramp time is not logged.

    A line belongs to the window it ends (jobs' clocks differ by a millisecond or so, so
    999 ms and 1003 ms both end window 1). Only windows that every job logged, in every
    direction any job logged there and with a latency for each IOPS value, are kept: the last window of some jobs is cut by the end of
    the run, and a sum over fewer jobs would show a false dip.

    Args:
        logs: file name -> text; files other than ``*_iops.<job>.log`` and
            ``*_lat.<job>.log`` (e.g. the ``_clat`` and ``_slat`` logs) are ignored.
        window_ms: fio's ``log_avg_msec``.
        fio_version: e.g. ``fio-3.33`` (fio 2.x logs latencies in us; default fio 3.x, ns).

    Returns:
        Rows with :data:`INTERVAL_KEYS`: ``second`` (end of the window, seconds after the ramp),
        ``iops`` (all directions), ``read_iops``, ``write_iops`` (sums over jobs) and the
        IOPS-weighted mean latencies (ms) ``lat_mean_ms``, ``read_lat_mean_ms``,
        ``write_lat_mean_ms`` (None for a direction without I/O in the window).

    Raises:
        ParseError: no iops logs, or a damaged log (:func:`read_interval_logs`; the message
            names the file, and the line where it has one).
    """
    rows, damage = read_interval_logs(logs, window_ms=window_ms, fio_version=fio_version)
    if damage:
        raise ParseError(f"fio log {damage[0][0]}: {damage[0][1]}")
    return rows


def read_interval_logs(logs: Mapping[str, str], *, window_ms: int, fio_version: str | None = None,
                       runtime_ms: float | None = None, jobs: int | None = None, planned_ms: float | None = None
                       ) -> tuple[list[dict[str, Any]], list[Damage]]:
    """The rows of :func:`parse_fio_interval_logs` and the damaged logs, each named with what is
    wrong with it. A log that cannot be read whole loses the whole series (no rows): a line
    that is not fio log format (or a negative figure), an empty log (of a run long enough to log a
    window: a 1,000 ms run's logs are empty, its one window the run's last), a job whose iops or lat
    log is missing (of ``jobs`` jobs, when given). A log that lacks a window (a line lost, a
    window logged too late to tell, the log cut short) or a lat log without the latency of an
    iops log's window loses that window alone: the rows are the windows every log holds whole.

    Given the run's ``runtime_ms`` (as fio's JSON says it), the series is the windows before the
    run's last (:data:`LAST_SLACK`), which every job logs whole, and a line logged late (fio's
    timer thread starved on a busy host: 7,430 ms for the window ending at 7,000 of an 8,012 ms
    run) but before the run's end is the window's; without it, the windows before each log's
    last are checked and a line logged :data:`LAST_SLACK` of a window late is taken for the
    run's last, partial window. Given also the run's planned length (``planned_ms``, the point's
    runtime), the series ends before the planned run's last window too: fio's runtime runs past it
    while many jobs stop on a busy host (4,273 ms of a 4 s point at 128 threads, load 31), and the
    window that ends at the planned end is still the run's last, which fio may not log.

    Raises:
        ParseError: no logs at all and ``jobs`` not given, or ``window_ms`` is not positive.
    """
    if window_ms <= 0:
        raise ParseError(f"fio log window must be > 0 ms, got {window_ms}")
    found = _job_logs(logs, jobs)
    if isinstance(found, tuple) and isinstance(found[0], str):
        return [], [found]
    iops_logs, lat_logs = found
    flush_ms = None if runtime_ms is None else runtime_ms - window_ms * LAST_SLACK
    end_ms = None if runtime_ms is None else min(runtime_ms, math.inf if planned_ms is None else planned_ms)
    last = None if end_ms is None else math.floor((end_ms - window_ms * LAST_SLACK) / window_ms)
    values: dict[str, dict[tuple[int, int], float]] = {}
    for name, text in [*iops_logs.values(), *lat_logs.values()]:
        read = _log_values(text, name, window_ms, flush_ms)
        if isinstance(read, tuple):
            return [], [read]
        if not read and (last is None or last >= 1):
            return [], [(name, "is empty")]
        values[name] = read  # empty only where the run had no whole window to log (a 1-s run)
    lost, damage = _gaps(iops_logs, lat_logs, values, window_ms, last)
    lat_unit_us = 1.0 if (fio_version or "").startswith("fio-2.") else 0.001
    windows = _sum_windows(iops_logs, lat_logs, values, lat_unit_us)
    windows = {window: slot for window, slot in windows.items()
               if window not in lost and (last is None or window <= last)}
    return _rows(windows, len(iops_logs), window_ms), damage


def _rows(windows: Mapping[int, dict[str, Any]], jobs: int, window_ms: int) -> list[dict[str, Any]]:
    """The rows of the windows every job logged whole."""
    rows = []
    for window in sorted(windows):
        slot = windows[window]
        directions = set().union(*slot["jobs"].values())
        if (len(slot["jobs"]) < jobs or not slot["whole"]
                or any(seen != directions for seen in slot["jobs"].values())):
            continue  # a job missing from the window, or missing a direction or latency there
        row: dict[str, Any] = {"second": window * window_ms / 1000.0}
        for prefix, directions in (("", (0, 1, 2)), ("read_", (0,)), ("write_", (1,))):
            total = sum(slot["iops"][d] for d in directions)
            weighted = sum(slot["lat"][d] for d in directions)
            row[f"{prefix}iops"] = float(total)
            row[f"{prefix}lat_mean_ms"] = weighted / total if total > 0 else None
        rows.append({key: row[key] for key in INTERVAL_KEYS})
    return rows


def _job_logs(logs: Mapping[str, str], jobs: int | None
              ) -> tuple[dict[int, tuple[str, str]], dict[int, tuple[str, str]]] | Damage:
    """The iops and the lat log of each job among ``logs`` (``{job: (file name, text)}`` each),
    or the first one missing (of jobs 1..``jobs`` when given).

    Raises:
        ParseError: no iops or lat logs at all, and ``jobs`` not given.
    """
    by_job: dict[str, dict[int, tuple[str, str]]] = {"iops": {}, "lat": {}}
    prefix = "flashpoc"
    for name, text in logs.items():
        match = _LOG_NAME.search(name)
        if match:
            by_job[match["kind"]][int(match["job"])] = (name, text)
            prefix = match["prefix"]
    if not by_job["iops"] and not by_job["lat"] and jobs is None:
        raise ParseError("no fio interval logs (NAME_iops.<job>.log) to parse")
    every = sorted(set(range(1, (jobs or 0) + 1)) | set(by_job["iops"]) | set(by_job["lat"]))
    for job in every:
        for kind in ("iops", "lat"):
            if job not in by_job[kind]:
                other = "the lat" if kind == "iops" else "the iops"
                said = f"job {job} has {other} log" if job in by_job["lat" if kind == "iops" else "iops"] else (
                    f"fio ran {jobs} jobs")
                return f"{prefix}_{kind}.{job}.log", f"missing ({said})"
    return by_job["iops"], by_job["lat"]


def _log_values(text: str, name: str, window_ms: int, flush_ms: float | None
                ) -> dict[tuple[int, int], float] | Damage:
    """{(window, direction): value} of one fio log (the first line of a window counts), or what
    is wrong with the log; a late line before ``flush_ms`` (the run's end less :data:`LAST_SLACK`
    of a window, when known) is its window's."""
    values: dict[tuple[int, int], float] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        fields = [field.strip() for field in line.split(",")]
        try:
            if len(fields) < 3:
                raise ValueError
            time_ms, value, direction = int(fields[0]), float(fields[1]), int(fields[2])
            if time_ms < 0 or not value >= 0 or math.isinf(value) or direction not in _DIRECTION_NAMES:
                raise ValueError
        except ValueError:
            return name, f"line {number} is not 'time, value, direction, ...': {line!r:.80}"
        # fio logs a window at its end (1000 ms, 999 as its clock goes) or later on a busy host (2150
        # ms is window 2's, 7430 ms window 7's when the run went on to 8012). A line logged at the
        # run's end, or without the run's length LAST_SLACK or more after a window's end, is the
        # run's last, partial window (4400 ms, 1766 ms), logged when the job ended: not a window of the series
        window = math.floor((time_ms + window_ms / 10) / window_ms)
        late = time_ms - window * window_ms >= window_ms * LAST_SLACK
        if not late or (flush_ms is not None and time_ms < flush_ms):
            values.setdefault((window, direction), value)
    return values


def _gaps(iops_logs: Mapping[int, tuple[str, str]], lat_logs: Mapping[int, tuple[str, str]],
          values: Mapping[str, Mapping[tuple[int, int], float]], window_ms: int, last: int | None
          ) -> tuple[set[int], list[Damage]]:
    """The windows up to ``last`` (each log's own last window but one when None) that a log lacks
    (a window or a direction missing) or whose latency a lat log lacks, and each such log named
    with the windows it lacks."""
    lost: set[int] = set()
    damage: list[Damage] = []
    for job in sorted(iops_logs):
        iops_name, lat_name = iops_logs[job][0], lat_logs[job][0]
        for name in (iops_name, lat_name):
            logged = values[name]
            directions = sorted({d for _, d in logged})
            end = last if last is not None else max((w for w, _ in logged), default=0) - 1
            lacking = {w: [d for d in directions or [0] if (w, d) not in logged] for w in range(1, end + 1)}
            lacking = {w: ds for w, ds in lacking.items() if ds}
            if lacking:
                missed = sorted(set().union(*lacking.values()))
                line = ("line" if not directions or missed == directions
                        else f"{' or '.join(_DIRECTION_NAMES[d] for d in missed)} line")
                damage.append((name, f"has no {line} for {_windows(lacking)} of {window_ms} ms (a line lost, "
                                     "logged too late, or the log cut short?); the series leaves it out"))
                lost |= set(lacking)
        end = last if last is not None else max((w for w, _ in values[iops_name]), default=0) - 1
        uncovered = {w for w, d in values[iops_name] if w <= end and (w, d) not in values[lat_name]}
        if uncovered - lost:
            damage.append((lat_name, f"has no latency for {_windows(uncovered - lost)} of {iops_name} (a line "
                                     "lost?); the series leaves it out"))
        lost |= uncovered
    return lost, _together(damage)


_JOB_LOG = re.compile(r"^(?P<log>.+)\.(?P<job>\d+)\.log$")


def _together(damage: list[Damage]) -> list[Damage]:
    """The jobs' logs damaged alike said once: ``flashpoc_iops.{1-324}.log (324 logs)`` for 324
    jobs' iops logs that lack the same windows (a starved host: every job's first line late), in
    the order each kind was first seen."""
    kinds: dict[tuple[str, str], list[int] | None] = {}  # (log, what) -> its jobs; None: a name of its own
    for name, what in damage:
        match = _JOB_LOG.match(name)
        if match:
            kinds.setdefault((match["log"], what), []).append(int(match["job"]))
        else:
            kinds[(name, what)] = None
    return [(log if jobs is None else f"{log}.{jobs[0]}.log" if len(jobs) == 1
             else f"{log}.{{{_ranges(jobs)}}}.log ({len(jobs)} logs)", what) for (log, what), jobs in kinds.items()]


def _ranges(numbers: Iterable[int]) -> str:
    """``3, 5-7``: the numbers in order, runs of them as ranges."""
    runs: list[list[int]] = []
    for number in sorted(numbers):
        if runs and number == runs[-1][-1] + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    return ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)


def _windows(windows: Iterable[int]) -> str:
    """``window 7`` or ``windows 3, 5-7``: the windows, runs of them as ranges."""
    ordered = sorted(windows)
    return f"window{'s' if len(ordered) > 1 else ''} {_ranges(ordered)}"


def _sum_windows(iops_logs: Mapping[int, tuple[str, str]], lat_logs: Mapping[int, tuple[str, str]],
                 values: Mapping[str, Mapping[tuple[int, int], float]], lat_unit_us: float) -> dict[int, dict[str, Any]]:
    """Per window: the jobs that logged it (with their directions), the IOPS and the IOPS x
    latency (ms) summed per direction, and whether every I/O had its latency."""
    windows: dict[int, dict[str, Any]] = {}
    for job in sorted(iops_logs):
        iops, lat = values[iops_logs[job][0]], values[lat_logs[job][0]]
        for (window, direction), value in iops.items():
            slot = windows.setdefault(window, {"jobs": {}, "iops": Counter(), "lat": Counter(), "whole": True})
            slot["jobs"].setdefault(job, set()).add(direction)
            slot["iops"][direction] += value
            if (window, direction) in lat:
                slot["lat"][direction] += value * lat[(window, direction)] * lat_unit_us / 1000.0
            elif value:
                slot["whole"] = False  # I/O without its latency (the last window): no mean to give
    return windows


def merge_intervals(per_host: Sequence[Sequence[Mapping[str, Any]]]) -> list[dict[str, Any]]:
    """Combine the interval rows of several hosts: IOPS summed, latencies IOPS-weighted.

    Only seconds every host reported are kept (hosts start within a second of each other;
    their windows are matched by ``second``).
    """
    if len(per_host) == 1:
        return [dict(row) for row in per_host[0]]
    by_second = [{row["second"]: row for row in host_rows} for host_rows in per_host]
    merged = []
    for second in sorted(set.intersection(*(set(index) for index in by_second)) if by_second else ()):
        rows = [index[second] for index in by_second]
        out: dict[str, Any] = {"second": second}
        for prefix in ("", "read_", "write_"):
            total = sum(row[f"{prefix}iops"] for row in rows)
            weighted = sum(row[f"{prefix}iops"] * row[f"{prefix}lat_mean_ms"] for row in rows
                           if row[f"{prefix}lat_mean_ms"] is not None)
            out[f"{prefix}iops"] = total
            out[f"{prefix}lat_mean_ms"] = weighted / total if total > 0 else None
        merged.append({key: out[key] for key in INTERVAL_KEYS})
    return merged

"""The database's own cumulative I/O counters sampled during a run (``dbstat.json``) and the
per-interval series they give (pure: text in, numbers out).

A point whose datafiles are on Oracle Direct NFS has no other time series: its I/O is seen by
neither iostat nor the kernel's NFS counters. While such a point runs, flashpoc samples
``sql/dbstat_sample.sql`` every few seconds through python-oracledb (one row per instance: on RAC
every instance of the cluster) and stores the samples as the point's ``dbstat.json``::

    {"format": 2, "every_s": 3, "note": null,
     "samples": [{"clock": "09:26:07", "epoch_s": 1581931567.0,
                  "instances": [{"inst_id": 1, "physical_read_io_requests": 123,
                                 "physical_write_io_requests": 45, "db_file_sequential_read_waits": 120,
                                 "db_file_sequential_read_time_us": 60000},
                                {"inst_id": 2, ...}]},
                 ...]}

``note`` says why the sampling ended early (a sample or the connection failed), else null.
A series is either the cluster's (every instance summed: a point whose figures are a RAC global
report's) or one instance's (a point read from its instance's report or snapshot rows).
An interval's figures are the differences of the counters between two samples: read / write
IOPS = physical read / write IO requests / seconds (the statistics of a point's IOPS, so the
series averaged over the point's window is its IOPS); the read latency (ms) = ``db file
sequential read`` time waited / waits / 1000, which is also the interval's latency (a SLOB
point's latency is that event's).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from flashpoc.core.errors import ParseError
from flashpoc.hosts.sampled import known_window, window_intervals

DBSTAT_FILE = "dbstat.json"
"""A point's samples of the database's counters."""
FORMAT = 2
"""The ``format`` of :data:`DBSTAT_FILE` written and read (1, of an earlier flashpoc, summed other
statistics over the instances: refused)."""
COUNTERS = ("physical_read_io_requests", "physical_write_io_requests",
            "db_file_sequential_read_waits", "db_file_sequential_read_time_us")
"""The cumulative counters of a sample (the columns of ``sql/dbstat_sample.sql``)."""

_CLOCK_RE = re.compile(r"^\d\d:\d\d:\d\d$")


def samples_text(samples: list[Mapping[str, Any]], every_s: float, note: str | None) -> str:
    """The text of :data:`DBSTAT_FILE` for ``samples`` (of :func:`flashpoc.oracle.db.dbstat_sample`)."""
    rows = [{"clock": _plain(sample.get("clock")), "epoch_s": _plain(sample.get("epoch_s")),
             "instances": [{key: _plain(row.get(key)) for key in ("inst_id", *COUNTERS)}
                           for row in sample.get("instances") or ()]} for sample in samples]
    return json.dumps({"format": FORMAT, "every_s": every_s, "note": note, "samples": rows}, indent=1) + "\n"


def _plain(value: Any) -> Any:
    """A value of the driver as JSON keeps it: a whole number (a Decimal, a float such as an inst_id
    fetched as 1.0) as int, another number as float, the rest unchanged."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    number = float(value)
    return int(value) if number.is_integer() else number


def read_samples(text: str, instance: int | None = None) -> tuple[list[dict[str, Any]], str | None]:
    """The samples of a :data:`DBSTAT_FILE` text, in order, as ``{"epoch", "clock", *COUNTERS}``
    (and ``inst_ids``, ``rows``: the instances counted and their own counters), and its note: the
    counters of ``instance``, or (None) summed over every instance.

    Raises:
        ParseError: the text is not such a file; a sample's clock, epoch or counter is not what it
            should be (a counter that is not a number is refused, never read as 0); a sample has no
            row of ``instance``, or (the sum) not the same instances as the first sample (an
            instance that joined or left would make a step that is no I/O).
    """
    try:
        data = json.loads(text)
    except ValueError as error:
        raise ParseError(f"{DBSTAT_FILE} is not JSON: {error}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("samples"), list):
        raise ParseError(f"{DBSTAT_FILE}: expected {{\"format\": {FORMAT}, \"samples\": [...]}}")
    samples: list[dict[str, Any]] = []
    for number, raw in enumerate(data["samples"], 1):
        if not isinstance(raw, dict):
            raise ParseError(f"{DBSTAT_FILE}: sample {number} is not an object")
        clock = raw.get("clock")
        if not isinstance(clock, str) or not _CLOCK_RE.match(clock):
            raise ParseError(f"{DBSTAT_FILE}: sample {number}: clock {clock!r} is not HH:MM:SS")
        rows = _instance_rows(raw, number)
        if instance is not None:
            rows = {instance: rows[instance]} if instance in rows else {}
            if not rows:
                raise ParseError(f"{DBSTAT_FILE}: sample {number} has no row of instance {instance}")
        elif samples and sorted(rows) != samples[0]["inst_ids"]:
            raise ParseError(f"{DBSTAT_FILE}: sample {number} holds instances {sorted(rows)}, the first "
                             f"{samples[0]['inst_ids']}: the cluster's sum cannot be differenced")
        if samples:
            _not_down(samples[-1], clock, rows)
        sample = {"clock": clock, "epoch": _number(raw, "epoch_s", number), "inst_ids": sorted(rows), "rows": rows}
        sample.update({key: sum(row[key] for row in rows.values()) for key in COUNTERS})
        samples.append(sample)
    note = data.get("note")
    return samples, note if isinstance(note, str) else None


def _not_down(old: Mapping[str, Any], clock: str, rows: Mapping[int, Mapping[str, float]]) -> None:
    """Refuse a counter of an instance that went down (the instance restarted: no difference holds,
    and in a sum over the instances another's I/O could hide it)."""
    for inst_id, row in rows.items():
        down = [key for key in COUNTERS if row[key] < old["rows"][inst_id][key]]
        if down:
            raise ParseError(f"{DBSTAT_FILE}: {', '.join(down)} of instance {inst_id} went down between "
                             f"{old['clock']} and {clock} (the instance restarted?): the series cannot be differenced")


def _instance_rows(raw: Mapping[str, Any], number: int) -> dict[int, dict[str, float]]:
    """A sample's counters by instance number."""
    rows = raw.get("instances")
    if not isinstance(rows, list) or not rows or not all(isinstance(row, dict) for row in rows):
        raise ParseError(f"{DBSTAT_FILE}: sample {number}: no instance rows")
    out: dict[int, dict[str, float]] = {}
    for row in rows:
        inst_id = row.get("inst_id")
        if isinstance(inst_id, bool) or not isinstance(inst_id, int) or inst_id in out:
            raise ParseError(f"{DBSTAT_FILE}: sample {number}: inst_id {inst_id!r} is not a distinct instance number")
        out[inst_id] = {key: _number(row, key, number) for key in COUNTERS}
    return out


def _number(raw: Mapping[str, Any], key: str, number: int) -> float:
    value = raw.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise ParseError(f"{DBSTAT_FILE}: sample {number}: {key} is {value!r}, not a number of 0 or more")
    return value


def dbstat_intervals(text: str, begin_clock: str | None, end_clock: str | None,
                     instance: int | None = None, *, cover: bool = False) -> list[dict[str, Any]]:
    """The per-interval I/O of a :data:`DBSTAT_FILE`, in the columns of a point's time series (as
    :func:`flashpoc.hosts.mountstats.nfs_intervals` gives them, with the same window rule:
    :func:`flashpoc.hosts.sampled.window_intervals`).

    ``read_iops`` / ``write_iops``: physical read / write IO requests per second;
    ``lat_mean_ms`` and ``read_lat_mean_ms``: the ``db file sequential read`` average wait (ms;
    None in an interval without such a wait); ``write_lat_mean_ms``: None (the database times no
    write request so).

    Args:
        text: the file.
        begin_clock: the measured window's start (``HH:MM:SS``, the database's clock), or None.
        end_clock: its end, or None.
        instance: the instance whose counters make the series; None: every instance summed (the
            cluster's).
        cover: whether the samples must cover the window (a report's snapshots, taken while they were:
            :func:`flashpoc.hosts.sampled.check_cover`; not every N seconds, the last one is after the run),
            but where the file's note says the sampling ended early (the samples taken are kept).

    Returns:
        The rows; empty when the window is unknown or crosses midnight.

    Raises:
        ParseError: the file cannot be read, holds fewer than two samples (its note says why),
            a counter went down between two samples (an instance restarted: no difference holds)
            or the samples' times do not increase, or the instances are not there (see
            :func:`read_samples`), or (``cover``) the samples do not cover the window.
    """
    if not known_window(begin_clock, end_clock):
        return []
    samples, note = read_samples(text, instance)
    if len(samples) < 2:
        raise ParseError(f"{DBSTAT_FILE} holds {len(samples)} sample(s), no interval" + (f": {note}" if note else ""))
    # a sampling that ended early says so in its note: its samples are whole as far as they go
    return window_intervals(samples, begin_clock, end_clock, _interval,
                            cover=DBSTAT_FILE if cover and note is None else None, regular=False)


def live_interval(old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any] | None:
    """The interval between two samples as :func:`flashpoc.oracle.db.dbstat_sample` takes them
    (every instance summed: the cluster's), in the columns of :func:`dbstat_intervals`, read as the
    stored series reads them (:func:`read_samples`); None where that would refuse them (a counter
    that is not a number or went down, the instances changed, the time did not move on): a live
    view passes over what the stored series will name."""
    try:
        first, second = read_samples(samples_text([old, new], 0, None))[0]
        return _interval(first, second, second["epoch"] - first["epoch"])
    except ParseError:
        return None


def _interval(old: Mapping[str, Any], new: Mapping[str, Any], seconds: float) -> dict[str, Any]:
    delta = {key: new[key] - old[key] for key in COUNTERS}  # none went down (read_samples)
    if seconds <= 0:
        raise ParseError(f"{DBSTAT_FILE}: the sample at {new['clock']} is not later than the one before it")
    reads = delta["physical_read_io_requests"] / seconds
    writes = delta["physical_write_io_requests"] / seconds
    waits = delta["db_file_sequential_read_waits"]
    latency = delta["db_file_sequential_read_time_us"] / waits / 1000 if waits else None
    return {"iops": reads + writes, "read_iops": reads, "write_iops": writes, "lat_mean_ms": latency,
            "read_lat_mean_ms": latency, "write_lat_mean_ms": None}

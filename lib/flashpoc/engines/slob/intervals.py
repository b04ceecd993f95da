"""What SLOB hands the live view while a point runs: each report of the ``iostat -t -xm 3`` that
runit.sh starts (``iostat.out`` in the SLOB directory), as iostat writes it; for datafiles on the
kernel's NFS client, each sample of the NFS mounts' counters (``mountstats.out``, :class:`MountstatsFeed`).

runit.sh prints nothing per interval on its console; its iostat does, every 3 s, into
``iostat.out``. The point's script follows that file while runit.sh runs
(:func:`flashpoc.engines.slob.run.follow_script`) and prints each complete line after
:data:`~flashpoc.engines.slob.run.FOLLOW_MARK`; :class:`IostatFeed` reads them one at a time and hands each report after the
first (which counts since boot) to the live view with the figures the stored series gives it
(:func:`flashpoc.engines.slob.parse.iostat_intervals`): IOPS are ``r/s + w/s`` of the devices of
the series, the latency their ``r_await``/``w_await`` weighted by ``r/s``/``w/s``. The stored
series stays the one read from the whole file when the point ends (its window is the AWR
snapshots', which are known only then).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from flashpoc.core.errors import ParseError
from flashpoc.engines.slob.parse import PHYSICAL_DEVICES
from flashpoc.hosts.mountstats import SAMPLE_MARK, nfs_intervals
from flashpoc.hosts.osstat import clock_24h, parse_iostat
from flashpoc.hosts.sampled import clock_seconds
from flashpoc.params import compile_pattern

DAY_S = 86400


class IostatFeed:
    """A line handler of ``iostat -t -x`` output that calls ``on_interval(values, second=...)`` with
    each report after the first, as soon as its last device line has come (the blank line after it).

    ``values``: ``iops`` and ``lat_mean_ms`` (None without I/O) of the devices matching ``devices``
    (default :data:`~flashpoc.engines.slob.parse.PHYSICAL_DEVICES`); ``second``: the report's time
    stamp since the first report's (iostat's start). A report that cannot be read (cut, damaged) is
    passed over: the live view never stops a point; the point's stored series says what is wrong.

    Attributes:
        reports: the reports read so far, the first (since boot) included.
        skipped: the reports passed over (damaged, or without a time stamp).
    """

    def __init__(self, on_interval: Callable[..., None], devices: str | None = None) -> None:
        self.on_interval = on_interval
        self.pattern = compile_pattern(devices or PHYSICAL_DEVICES, "engine.slob.iostat_devices")
        self.reports = self.skipped = 0
        self._lines: list[str] = []
        self._devices = False  # the report being read has its Device header
        self._start: int | None = None

    def __call__(self, line: str) -> None:
        line = line.rstrip("\r\n")
        if not line.strip():
            if self._devices:
                self._report()
            return
        if line.split()[0].rstrip(":") == "Device":
            self._devices = True
        self._lines.append(line)

    def _report(self) -> None:
        """The report read so far handed over (the first one only starts the clock)."""
        text, self._lines, self._devices = "\n".join(self._lines), [], False
        first = self.reports == 0
        self.reports += 1
        try:
            rows = parse_iostat(text)
        except ParseError:
            self.skipped += 1
            return
        clock = clock_24h(rows[0].get("timestamp") or "")
        if clock is None:
            self.skipped += 1
            return
        at = clock_seconds(clock)
        if first or self._start is None:
            self._start = at
            return
        second = (at - self._start) % DAY_S  # a run that passes midnight
        self.on_interval(report_values(rows, self.pattern), second=float(second))


def report_values(rows: list[dict[str, Any]], pattern: Any) -> dict[str, float | None]:
    """IOPS and mean latency (ms) of one iostat report's device ``rows`` whose name matches ``pattern``,
    summed and weighted as :func:`flashpoc.engines.slob.parse.iostat_intervals` does."""
    rows = [r for r in rows if pattern.search(r["device"]) and "r_await_ms" in r and "w_await_ms" in r]
    reads, writes = math.fsum(r["r_per_s"] for r in rows), math.fsum(r["w_per_s"] for r in rows)
    read_lat = math.fsum(r["r_per_s"] * r["r_await_ms"] for r in rows)
    write_lat = math.fsum(r["w_per_s"] * r["w_await_ms"] for r in rows)
    total = reads + writes
    return {"iops": total, "lat_mean_ms": (read_lat + write_lat) / total if total else None}


class MountstatsFeed:
    """A line handler of a ``mountstats.out`` capture (:func:`flashpoc.engines.slob.run.mountstats_sampler`)
    that calls ``on_interval(values, second=...)`` with each interval between two samples once the
    second is whole (the next sample's mark has come): the NFS mounts' READ + WRITE operations per
    second and their execute time per operation, as the stored series reads them
    (:func:`flashpoc.hosts.mountstats.nfs_intervals`, ``mounts`` choosing the mounts); ``second``:
    the interval's end since the first sample. An interval the stored series would refuse (a
    counter gone down, a sample damaged) or one across midnight is passed over: the live view never
    stops a point, and the stored series says what is wrong.

    Attributes:
        samples: the whole samples read so far.
        skipped: the intervals passed over.
    """

    def __init__(self, on_interval: Callable[..., None], mounts: str | None = None) -> None:
        self.on_interval, self.mounts = on_interval, mounts
        self.samples = self.skipped = 0
        self._last: list[str] = []  # the last whole sample's lines, its mark first
        self._lines: list[str] = []  # the sample being read
        self._start: int | None = None

    def __call__(self, line: str) -> None:
        line = line.rstrip("\r\n")
        if line.startswith(SAMPLE_MARK):
            if self._lines:
                self._whole(self._lines)
            self._lines = [line]
        elif self._lines:
            self._lines.append(line)

    def _whole(self, lines: list[str]) -> None:
        """A sample read whole: the interval from the one before it handed over."""
        self.samples += 1
        last, self._last = self._last, lines
        try:
            epoch = int(lines[0][len(SAMPLE_MARK):].split()[0])
        except (IndexError, ValueError):
            self.skipped += 1
            return
        if self._start is None:
            self._start = epoch
        if not last:
            return
        try:
            clocks = [block[0].split()[-1] for block in (last, lines)]
            rows = nfs_intervals("\n".join(last + lines), clocks[0], clocks[1], self.mounts)
        except ParseError:
            rows = []
        if len(rows) != 1:
            self.skipped += 1
            return
        values = {key: value for key, value in rows[0].items() if key not in ("second", "warmup")}
        self.on_interval(values, second=float(epoch - self._start))

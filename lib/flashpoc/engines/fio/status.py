"""What fio hands the live view while a point runs: its status reports (``--status-interval``).

fio writes its interval logs when a job ends, and its status line has no latency. Its status
report does: with ``--status-interval=1`` fio writes, every second, the whole JSON output so far
(the same document as at the end, every figure counted since the job began or since its ramp
ended). The point's command sends fio's output through a pipe (:data:`STATUS_AWK`), which keeps
fio's last document, the result, as ``out.json`` (unchanged) and prints each earlier one as it
ends, each line after :data:`STATUS_MARK` and without its histogram bins and percentiles (the
bulk of a JSON+ document). :class:`StatusFeed` reads them back one line at a time and hands
each second's difference to the live view:

- ``iops``: the I/Os completed (``total_ios``, every direction) in the second, per second of
  fio's own ``runtime``;
- ``lat_mean_ms``: their mean total latency (submission to completion, as the point's
  ``lat_mean_ms``), from ``lat_ns``'s mean times its count ``N`` before and after;
- ``bw_mibps``: the bytes moved (``io_bytes``) per second, in MiB/s.

During fio's ``ramp_time`` fio counts I/Os but no latency (``N`` stays 0); when the ramp ends
fio starts counting again from zero: the seconds before are warm-up, and the first after it
counts from the ramp's end.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from threading import Lock
from typing import Any

STATUS_MARK = "@@flashpoc status "
"""Start of each line of a status report printed while fio runs."""

STATUS_AWK = (
    # a document begins at a line "{" and ends at a line "}"; text before the first stays with it
    '/^\\{$/ { if (done) buf = ""; live = "" } { buf = buf $0 "\\n" } '
    'skip && $0 ~ endre { skip = 0 } '
    f'!skip {{ live = live "{STATUS_MARK}" $0 "\\n" }} '
    # a histogram's bins and the percentiles: their braces kept, their lines left out
    '/"(bins|percentile)" : \\{$/ { skip = 1; match($0, /^ */); endre = "^" substr($0, 1, RLENGTH) "},?$" } '
    '/^\\}$/ { done = 1; printf "%s", live; fflush(); live = "" } '
    'END { printf "%s", buf > "out.json" }'
)
"""The awk program that reads fio's output (``--output`` a pipe, ``--status-interval``): it keeps
the last document fio writes in ``out.json``, byte for byte, and prints every document as it ends,
each line after :data:`STATUS_MARK`, the histogram's bins and the percentiles left out."""

MIN_INTERVAL_MS = 500
"""A status report less than this after the one before (fio's last, printed as its jobs end, 11 ms
after the one before: a few I/Os, their bytes counted before their count) makes no second of its own."""

_DIRECTIONS = ("read", "write", "trim")


class StatusFeed:
    """A line handler of a live point's output: each status report (:data:`STATUS_MARK` lines)
    read as it ends and ``on_interval(values, second=..., warmup=...)`` called with the second
    since the one before (see the module). ``second``: fio's runtime since the job began, its ramp
    (``ramp_s``) included; ``warmup``: a second of the ramp. The last document (the result) is
    never printed: it is ``out.json``.

    Attributes:
        reports: the status reports read so far; ``skipped``: those that were no JSON (cut short).
    """

    def __init__(self, on_interval: Callable[..., None], ramp_s: int = 0) -> None:
        self.on_interval, self.ramp_s = on_interval, ramp_s
        self.reports = self.skipped = 0
        self._lines: list[str] = []
        self._before: dict[str, dict[str, float]] | None = None  # the last report's totals, per direction
        self._ramp = False  # the last report was of the ramp

    def __call__(self, line: str) -> None:
        if not line.startswith(STATUS_MARK):
            return
        text = line[len(STATUS_MARK):]
        if text == "{":
            self._lines = []
        self._lines.append(text)
        if text == "}":
            self._report("\n".join(self._lines))

    def _report(self, text: str) -> None:
        self.reports += 1
        try:
            now = totals(json.loads(text[text.find("{"):]))
        except (ValueError, KeyError, TypeError, AttributeError):
            self.skipped += 1
            return
        ramp = bool(self.ramp_s) and now["all"]["ios"] > 0 and now["all"]["n"] == 0
        before = self._before
        if before is None or (self._ramp and not ramp) or now["all"]["runtime"] < before["all"]["runtime"]:
            before = self._before = ZERO  # the job's start, or the ramp's end: fio counts from zero again
        self._ramp = ramp
        if now["all"]["runtime"] - before["all"]["runtime"] < MIN_INTERVAL_MS:
            return  # a report right after the last (fio's as its jobs end): its second comes with the next
        self._before = now
        values = difference(before, now)
        if values is None:
            return
        second = now["all"]["runtime"] / 1000.0 + (self.ramp_s if self.ramp_s and not ramp else 0)
        self.on_interval(values, second=second, warmup=ramp)


def totals(document: Mapping[str, Any]) -> dict[str, dict[str, float]]:
    """Per direction and for ``all`` of them: the I/Os, bytes, latency count ``n`` and summed
    latency (ns) of a fio JSON document's jobs (one with ``group_reporting``), and fio's runtime (ms)."""
    out = {d: {"ios": 0.0, "bytes": 0.0, "n": 0.0, "lat_ns": 0.0, "runtime": 0.0} for d in (*_DIRECTIONS, "all")}
    for job in document["jobs"]:
        for direction in _DIRECTIONS:
            stats = job.get(direction) or {}
            lat = stats.get("lat_ns") or {}
            figures = {"ios": stats.get("total_ios", 0), "bytes": stats.get("io_bytes", 0), "n": lat.get("N", 0),
                       "lat_ns": lat.get("mean", 0.0) * lat.get("N", 0)}
            for key, value in figures.items():
                out[direction][key] += value
                out["all"][key] += value
            for name in (direction, "all"):
                out[name]["runtime"] = max(out[name]["runtime"], stats.get("runtime", 0))
    return out


ZERO = totals({"jobs": []})


def difference(before: Mapping[str, Mapping[str, float]], now: Mapping[str, Mapping[str, float]]
               ) -> dict[str, float | None] | None:
    """The second between two status reports' :func:`totals`: IOPS, MiB/s and mean latency (ms,
    None without a completed I/O); None when fio's runtime did not advance."""
    ms = now["all"]["runtime"] - before["all"]["runtime"]
    if ms <= 0:
        return None
    ios, n = now["all"]["ios"] - before["all"]["ios"], now["all"]["n"] - before["all"]["n"]
    latency = (now["all"]["lat_ns"] - before["all"]["lat_ns"]) / n / 1e6 if n > 0 else None
    return {"iops": ios * 1000.0 / ms, "lat_mean_ms": latency,
            "bw_mibps": (now["all"]["bytes"] - before["all"]["bytes"]) * 1000.0 / ms / 1024**2}


class HostSeconds:
    """The seconds of several hosts' :class:`StatusFeed` as one series: a second is handed to
    ``on_interval`` once every host gave it (by its whole second; a host dropped, :meth:`drop`, is
    no longer awaited), IOPS and MiB/s summed over the hosts that gave it, latency weighted by their
    IOPS, warm-up when any host's was. Thread-safe: each host's command runs in a thread of its own."""

    def __init__(self, on_interval: Callable[..., None], hosts: list[str]) -> None:
        self.on_interval, self.hosts = on_interval, list(hosts)
        self._seen: dict[int, dict[str, tuple[dict[str, Any], float, bool]]] = {}
        self._lock = Lock()

    def of(self, host: str) -> Callable[..., None]:
        """The ``on_interval`` of ``host``'s feed."""
        def on_interval(values: dict[str, Any], *, second: float, warmup: bool = False) -> None:
            self._add(host, values, second, warmup)
        return on_interval

    def drop(self, host: str) -> None:
        """``host`` gives no more seconds (its feed ended before the point did): the seconds the
        other hosts gave, and give from now on, are handed over without it."""
        with self._lock:
            if host not in self.hosts:
                return
            self.hosts.remove(host)
            whole = sorted(key for key, slot in self._seen.items() if self.hosts and set(self.hosts) <= set(slot))
            slots = [self._seen.pop(key) for key in whole]  # with what it gave of them
        for slot in slots:
            self._hand_over(slot)

    def _add(self, host: str, values: dict[str, Any], second: float, warmup: bool) -> None:
        with self._lock:
            if host not in self.hosts:
                return
            slot = self._seen.setdefault(round(second), {})
            slot[host] = (values, second, warmup)
            if not set(self.hosts) <= set(slot):
                return
            del self._seen[round(second)]
        self._hand_over(slot)

    def _hand_over(self, slot: dict[str, tuple[dict[str, Any], float, bool]]) -> None:
        """One second of every host, summed and weighted (see the class)."""
        given = list(slot.values())
        iops = sum(v["iops"] for v, _, _ in given)
        timed = [(v["iops"], v["lat_mean_ms"]) for v, _, _ in given if v["lat_mean_ms"] is not None]
        latency = (sum(i * lat for i, lat in timed) / sum(i for i, _ in timed)
                   if len(timed) == len(given) and sum(i for i, _ in timed) > 0 else None)
        self.on_interval({"iops": iops, "lat_mean_ms": latency, "bw_mibps": sum(v["bw_mibps"] for v, _, _ in given)},
                         second=max(s for _, s, _ in given), warmup=any(w for _, _, w in given))

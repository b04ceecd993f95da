"""The Linux NFS client's per-mount counters (``/proc/self/mountstats``) and the per-interval
I/O of the NFS mounts that hold a database's datafiles (pure: text in, numbers out).

``/proc/self/mountstats`` has one section per mount (``device SERVER:/EXPORT mounted on
/MOUNT with fstype nfs4 statvers=1.1``); an NFS section lists, after ``per-op statistics``, one
line per RPC operation of cumulative counters since the mount::

    READ: ops transmissions major_timeouts bytes_sent bytes_recv queue_ms rtt_ms execute_ms [errors]

A run's capture (``mountstats.out``) holds one copy of the NFS sections per sample, each after
a line ``@@flashpoc mountstats EPOCH HH:MM:SS`` (the DB host's clock when it was read). The
arithmetic of an interval is nfsiostat's (nfs-utils): the difference of each counter between
two samples; ops/s = ops / seconds; kB/s = (bytes sent + received) / 1024 / seconds; retrans =
transmissions - ops; avg RTT = rtt_ms / ops and avg exe = execute_ms / ops (ms per operation;
exe, from the request's queueing to its completion, is what the application waited, like
iostat's await).

These counters see the kernel NFS client's I/O (kNFS) only: Oracle's Direct NFS client (dNFS)
talks to the server itself, so its I/O is in neither these counters nor iostat's (a dNFS point's
series is the database's own counters: :mod:`flashpoc.oracle.dbstat`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from flashpoc.core.errors import ParseError
from flashpoc.hosts.sampled import known_window, window_intervals

SAMPLE_MARK = "@@flashpoc mountstats "
"""Start of the line before each sample of a capture: ``@@flashpoc mountstats EPOCH HH:MM:SS``."""

NFS_FSTYPES = ("nfs", "nfs4")

_DEVICE_RE = re.compile(r"^device (\S+) mounted on (\S+) with fstype (\S+)(?: statvers=(\S+))?\s*$")
_OP_RE = re.compile(r"^([A-Z][A-Z0-9_]*):((?:\s+\d+){8,9})\s*$")
_MARK_RE = re.compile(rf"^{re.escape(SAMPLE_MARK)}(\d+) (\d\d:\d\d:\d\d)\s*$")

#: positions in a per-op counter line
OPS, TRANS, TIMEOUTS, BYTES_SENT, BYTES_RECV, QUEUE_MS, RTT_MS, EXE_MS = range(8)


def parse_mountstats(text: str) -> dict[str, dict[str, Any]]:
    """The NFS mounts of one ``/proc/self/mountstats`` text, by mount point.

    Returns:
        ``{mount point: {"device", "mountpoint", "fstype", "statvers", "age_s", "opts", "ops"}}``
        (a mount point listed again is keyed ``"/mnt (2)"``, in the order of the file);
        ``ops`` maps an RPC operation (``READ``, ``WRITE``, ...) to its counters (8 or 9 whole
        numbers, see the module's doc), ``age_s`` is the seconds since the mount (None when not
        printed), ``opts`` the mount options as printed. Other file systems are left out.

    Raises:
        ParseError: an NFS section's per-op line or ``age`` is not understood (a corrupt copy
            is refused, not half read).
    """
    mounts: dict[str, dict[str, Any]] = {}
    current: dict[str, Any] | None = None
    empty_since = 0  # the line of the NFS section's device line while nothing followed it
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if raw.startswith("device "):
            _refuse_an_empty_section(current, empty_since)
            match = _DEVICE_RE.match(raw.rstrip())
            current, empty_since = None, number
            if match and match.group(3) in NFS_FSTYPES:
                current = {"device": match.group(1), "mountpoint": match.group(2), "fstype": match.group(3),
                           "statvers": match.group(4), "age_s": None, "opts": "", "ops": {}}
                key, n = match.group(2), 1
                while key in mounts:  # the same mount point listed again (another mount over it): kept apart
                    n += 1
                    key = f"{match.group(2)} ({n})"
                mounts[key] = current
            continue
        if current is None or not line:
            continue
        empty_since = 0
        key, _, value = line.partition(":")
        if key == "age":
            if not value.strip().isdecimal():
                raise ParseError(f"mountstats line {number}: expected 'age: SECONDS', got {line!r}")
            current["age_s"] = int(value)
        elif key == "opts":
            current["opts"] = value.strip()
        elif re.match(r"^[A-Z][A-Z0-9_]*:", line):
            match = _OP_RE.match(line)
            if not match:
                raise ParseError(f"mountstats line {number}: expected 'OP: 8 or 9 counters', got {line!r}")
            if match.group(1) in current["ops"]:  # a section lists each operation once: its device line lost?
                raise ParseError(f"mountstats line {number}: {match.group(1)} listed twice under {current['mountpoint']}")
            current["ops"][match.group(1)] = tuple(int(v) for v in match.group(2).split())
    _refuse_an_empty_section(current, empty_since)
    return mounts


def _refuse_an_empty_section(section: dict[str, Any] | None, device_line: int) -> None:
    """The kernel prints an NFS mount's options, age and counters under its device line: one with
    nothing under it is a copy whose lines were lost or repeated (a device line twice would make an
    empty mount whose counters, read as zero, change the next interval's rates)."""
    if section is not None and device_line:
        raise ParseError(f"mountstats line {device_line}: the NFS mount {section['mountpoint']} has nothing under its "
                         "device line (a line lost or repeated)")


def read_capture(text: str) -> list[dict[str, Any]]:
    """The samples of a ``mountstats.out`` capture, in order: ``{"epoch", "clock", "mounts"}``
    (``mounts`` as :func:`parse_mountstats`). A last sample cut short (fewer mounts, or a
    mount with fewer operations, than the sample before it) is left out.

    Raises:
        ParseError: the capture holds no sample line, or a sample is not understood.
    """
    raw: list[tuple[re.Match[str], list[str]]] = []
    for line in text.splitlines():
        if line.startswith(SAMPLE_MARK):
            mark = _MARK_RE.match(line)
            if mark is None:
                raise ParseError(f"mountstats.out: expected '{SAMPLE_MARK}EPOCH HH:MM:SS', got {line!r}")
            raw.append((mark, []))
        elif raw:
            raw[-1][1].append(line)
    if not raw:
        raise ParseError(f"mountstats.out holds no '{SAMPLE_MARK.strip()}' sample")
    samples = []
    for i, (mark, body) in enumerate(raw):
        try:
            mounts = parse_mountstats("\n".join(body))
        except ParseError:
            if i == len(raw) - 1 and i > 0:
                break  # the last sample, cut mid-line
            raise
        samples.append({"epoch": int(mark.group(1)), "clock": mark.group(2), "mounts": mounts})
    if len(samples) >= 2 and not _complete(samples[-1], samples[-2]):
        samples.pop()
    return samples


def _complete(sample: Mapping[str, Any], before: Mapping[str, Any]) -> bool:
    mounts, previous = sample["mounts"], before["mounts"]
    return set(previous) <= set(mounts) and all(
        set(previous[m]["ops"]) <= set(mounts[m]["ops"]) for m in previous)


def op_interval(old: tuple[int, ...], new: tuple[int, ...], seconds: float) -> dict[str, float | None]:
    """One RPC operation's figures over an interval, as nfsiostat computes them.

    Args:
        old: the operation's counters at the interval's start.
        new: at its end.
        seconds: the interval's length (s).

    Returns:
        ``ops``, ``ops_per_s``, ``kb_per_s``, ``kb_per_op``, ``retrans``, ``rtt_ms`` and
        ``exe_ms`` (averages per operation; None without operations), ``queue_ms``.

    Raises:
        ParseError: a counter went down (the file system was remounted: no difference holds).
    """
    delta = [b - a for a, b in zip(old[:8], new[:8])]
    if any(d < 0 for d in delta) or seconds <= 0:
        raise ParseError("mountstats: a counter went down between two samples (remounted?)")
    ops = delta[OPS]
    kilobytes = (delta[BYTES_SENT] + delta[BYTES_RECV]) / 1024
    return {
        "ops": ops,
        "ops_per_s": ops / seconds,
        "kb_per_s": kilobytes / seconds,
        "kb_per_op": kilobytes / ops if ops else None,
        "retrans": delta[TRANS] - ops,
        "rtt_ms": delta[RTT_MS] / ops if ops else None,
        "exe_ms": delta[EXE_MS] / ops if ops else None,
        "queue_ms": delta[QUEUE_MS] / ops if ops else None,
    }


def nfs_intervals(text: str, begin_clock: str | None, end_clock: str | None,
                  mounts: str | re.Pattern[str] | None = None, *, cover: bool = False) -> list[dict[str, Any]]:
    """The per-interval I/O of the NFS mounts of a ``mountstats.out`` capture, in the columns of
    a point's time series (as :func:`flashpoc.engines.slob.parse.iostat_intervals`).

    For each pair of consecutive samples: ``read_iops`` / ``write_iops`` are the READ / WRITE
    operations per second summed over the mounts, ``lat_mean_ms`` (``read_`` / ``write_``) their
    average execute time per operation (weighted by operations); ``second`` is the interval's end
    in seconds since the first interval started. Intervals ending at or before ``begin_clock``
    are ``warmup``; intervals ending after ``end_clock`` are left out
    (:func:`flashpoc.hosts.sampled.window_intervals`).

    Args:
        text: the capture.
        begin_clock: the measured window's start (``HH:MM:SS``, the DB host's clock), or None.
        end_clock: its end, or None.
        mounts: regular expression of the mount points to add up, as text or compiled (default: every NFS
            mount).
        cover: whether the samples must cover the window (:func:`flashpoc.hosts.sampled.check_cover`: the
            window of a report's snapshots, taken while the capture ran).

    Returns:
        The rows; empty when the window is unknown or crosses midnight, or no sample pair is left.

    Raises:
        ParseError: the capture cannot be read, no NFS mount (of ``mounts``) is in it, a counter
            went down, a sample lacks a mount or an operation the samples around it have (a
            damaged capture), or (``cover``) the samples do not cover the window.
    """
    if not known_window(begin_clock, end_clock):
        return []
    samples = read_capture(text)
    pattern = re.compile(mounts) if mounts else None
    chosen = sorted({m for s in samples for m in s["mounts"] if pattern is None or pattern.search(m)})
    if not chosen:
        raise ParseError("mountstats.out holds no NFS mount"
                         + (f" matching {getattr(mounts, 'pattern', mounts)!r}" if mounts else ""))
    _no_holes(samples, chosen)

    def figures(old: Mapping[str, Any], new: Mapping[str, Any], seconds: float) -> dict[str, Any]:
        totals = {"READ": [0.0, 0.0], "WRITE": [0.0, 0.0]}  # ops/s, ops/s x exe ms
        for mount in chosen:
            a, b = old["mounts"].get(mount), new["mounts"].get(mount)
            if a is None or b is None:
                continue
            for op, total in totals.items():
                if op in a["ops"] and op in b["ops"]:
                    interval = op_interval(a["ops"][op], b["ops"][op], seconds)
                    total[0] += interval["ops_per_s"]
                    total[1] += interval["ops_per_s"] * (interval["exe_ms"] or 0.0)
        (r, r_lat), (w, w_lat) = totals["READ"], totals["WRITE"]
        return {"iops": r + w, "read_iops": r, "write_iops": w,
                "lat_mean_ms": (r_lat + w_lat) / (r + w) if r + w else None,
                "read_lat_mean_ms": r_lat / r if r else None,
                "write_lat_mean_ms": w_lat / w if w else None}

    return window_intervals(samples, begin_clock, end_clock, figures, cover="mountstats.out" if cover else None)


def _no_holes(samples: list[dict[str, Any]], chosen: list[str]) -> None:
    """Refuse a capture where a mount, or one of its READ / WRITE operations, is missing from a
    sample between samples that have it: a damaged sample, whose interval would count no I/O
    (a mount mounted or unmounted during the run is in a run of samples, with no hole)."""
    for mount in chosen:
        for op in (None, "READ", "WRITE"):
            have = [i for i, s in enumerate(samples) if mount in s["mounts"]
                    and (op is None or op in s["mounts"][mount]["ops"])]
            present = set(have)
            hole = next((i for i in range(have[0], have[-1] + 1) if i not in present), None) if have else None
            if hole is not None:
                raise ParseError(f"mountstats.out: the sample at {samples[hole]['clock']} has no "
                                 f"{mount if op is None else op + ' of ' + mount}, the samples around it have: damaged")

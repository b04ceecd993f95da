"""The load hosts' device counters while a point runs (``/proc/diskstats``): what a live view shows
of a point whose engine prints nothing before it ends (fio's client/server mode).

The kernel counts, per block device, the reads and writes it completed, their sectors and the
milliseconds they took (``/proc/diskstats``, what iostat reads). Sampled every second, two samples
give a second's IOPS, MiB/s and mean device latency (``await``: the milliseconds spent over the
I/Os completed), every I/O the device served in it: the engine's and any other of the host's.

- :func:`devices_command` finds, once, the device behind each target of a host (a block device's
  own, a file's file system's) among the kernel's disks, and the kernel's boot id: hosts that share
  a kernel (containers, network namespaces) share its counters, which :func:`owned_devices` gives
  to the first of them only, so that no I/O is counted twice.
- :func:`sampler_command` prints a sample of those devices' lines every second, on the second,
  until a stop file appears (or a time limit passes);
- :class:`DiskstatsFeed` reads them back one line at a time and hands each second to the view;
- :class:`DeviceSampler` runs a sampler on each host while a point runs.

A sample cut short or a line damaged makes no second (it is passed over): the view never shows a
figure the counters do not give, and never stops a point. Nothing here is stored: the point's own
results are the engine's.
"""

from __future__ import annotations

import math
import re
import secrets
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from flashpoc.hosts.group import Group
from flashpoc.hosts.host import quote

MARK = "@@flashpoc diskstats "
"""Start of each sample's first line: ``@@flashpoc diskstats EPOCH.NANOSECONDS``."""

_MARK_RE = re.compile(rf"^{re.escape(MARK)}(\d+)\.(\d{{9}})$")

GAP_S = 1.5
"""Two samples further apart than this (a sample missing, a host too busy to sample on time) make no second."""

SECTOR_BYTES = 512
"""/proc/diskstats counts sectors of 512 bytes whatever the device's own sector size."""

# A device number from stat's decimal %d (a file's file system) or hex %t/%T (a block device's own):
# Linux's dev_t split as the kernel's MAJOR()/MINOR() of new_decode_dev().
_DEVICE_OF = (
    'if [ -b "$p" ]; then n=$(stat -L -c "%t %T" "$p" 2>/dev/null) && d="$((0x${n% *})):$((0x${n#* }))"; '
    'else n=$(stat -L -c %d "$p" 2>/dev/null || stat -L -c %d "$(dirname "$p")" 2>/dev/null) && '
    'd="$(( ((n >> 8) & 0xfff) | ((n >> 32) & ~0xfff) )):$(( (n & 0xff) | ((n >> 12) & ~0xff) ))"; fi; '
    '[ -n "$d" ] && name=$(awk -v k="$d" \'$1 ":" $2 == k { print $3; exit }\' /proc/diskstats) && [ -n "$name" ] '
    '&& printf "dev %s %s\\n" "$d" "$name" || printf "none %s\\n" "$p"'
)


def devices_command(paths: Sequence[str]) -> str:
    """Shell text that prints the host's kernel boot id (``boot ID``), then for each of ``paths`` the
    device the kernel counts its I/O on: ``dev MAJOR:MINOR NAME``, or ``none PATH`` where the
    kernel's disks have none (a file on NFS or tmpfs, a path that does not exist)."""
    return ("printf 'boot %s\\n' \"$(cat /proc/sys/kernel/random/boot_id 2>/dev/null)\"; "
            f"for p in {' '.join(quote(p) for p in paths)}; do d=; {_DEVICE_OF}; done")


def parse_devices(text: str) -> tuple[str, list[str]]:
    """The boot id and the ``MAJOR:MINOR`` devices (each once, in order) :func:`devices_command` printed."""
    boot, devices = "", []
    for line in text.splitlines():
        words = line.split()
        if words[:1] == ["boot"] and len(words) == 2:
            boot = words[1]
        elif words[:1] == ["dev"] and len(words) == 3 and words[1] not in devices:
            devices.append(words[1])
    return boot, devices


def owned_devices(found: Mapping[str, tuple[str, list[str]]]) -> dict[str, list[str]]:
    """Which host counts which device: ``found`` is each host's (boot id, devices), in the hosts'
    order; a device of a kernel already counted by an earlier host (the same boot id) is that
    host's. Hosts left with no device are left out. A host without a boot id shares with none."""
    owners: set[tuple[str, str]] = set()
    owned: dict[str, list[str]] = {}
    for host, (boot, devices) in found.items():
        mine = [d for d in devices if not boot or (boot, d) not in owners]
        owners.update((boot, d) for d in mine if boot)
        if mine:
            owned[host] = mine
    return owned


def sampler_command(devices: Sequence[str], stop_file: str, max_s: float) -> str:
    """Shell text that prints, every second on the second (from the next), :data:`MARK` with the time and the
    ``/proc/diskstats`` lines of ``devices`` (``MAJOR:MINOR``), until ``stop_file`` exists or
    ``max_s`` seconds have passed; it removes the stop file as it ends."""
    wanted = quote(" " + " ".join(devices) + " ")
    stop = quote(stop_file)
    return (f"end=$(( $(date +%s) + {int(max_s) + 1} )); "
            f"while ns=$(date +%N); left=$(( 2000000000 - 1$ns )); [ \"$left\" -lt 1000000000 ] || left=999999999; "
            "sleep \"0.$(printf '%09d' \"$left\")\"; "
            f"[ ! -e {stop} ] && [ \"$(date +%s)\" -lt \"$end\" ]; do "
            f"printf '%s%s\\n' {quote(MARK)} \"$(date +%s.%N)\"; "
            f"awk -v w={wanted} 'index(w, \" \" $1 \":\" $2 \" \")' /proc/diskstats; done; rm -f " + stop)


_READS, _READ_SECTORS, _READ_MS, _WRITES, _WRITE_SECTORS, _WRITE_MS = 3, 5, 6, 7, 9, 10
"""Fields of a /proc/diskstats line (major, minor and name first): reads completed, sectors read,
milliseconds reading, writes completed, sectors written, milliseconds writing."""


def device_counters(line: str) -> tuple[str, tuple[int, int, int]] | None:
    """``MAJOR:MINOR`` and (I/Os completed, sectors, milliseconds) of one /proc/diskstats line,
    reads and writes together; None for a line that is not one whole (fewer than 11 fields, or a
    counter that is no whole number)."""
    words = line.split()
    if len(words) < 14:  # every kernel since 2.6 prints 11 counters after the name
        return None
    try:
        reads, read_sectors, read_ms, writes, write_sectors, write_ms = (
            int(words[i]) for i in (_READS, _READ_SECTORS, _READ_MS, _WRITES, _WRITE_SECTORS, _WRITE_MS))
    except ValueError:
        return None
    return f"{words[0]}:{words[1]}", (reads + writes, read_sectors + write_sectors, read_ms + write_ms)


def second_values(before: Mapping[str, tuple[int, int, int]], after: Mapping[str, tuple[int, int, int]],
                  seconds: float) -> dict[str, float | None] | None:
    """IOPS, MiB/s and mean latency (ms, None without an I/O completed) of the devices between two
    samples ``seconds`` apart; None when they are not the same devices or a counter went down."""
    if seconds <= 0 or set(before) != set(after):
        return None
    deltas = [tuple(b - a for a, b in zip(before[d], after[d])) for d in after]
    if any(value < 0 for delta in deltas for value in delta):
        return None
    ios, sectors, ms = (sum(delta[i] for delta in deltas) for i in range(3))
    return {"iops": ios / seconds, "lat_mean_ms": ms / ios if ios else None,
            "bw_mibps": sectors * SECTOR_BYTES / seconds / 1024**2}


class DiskstatsFeed:
    """A line handler of :func:`sampler_command`'s output that calls ``on_interval(values,
    second=...)`` with each second between two whole samples (:func:`second_values`): ``second``,
    the later sample's whole second (the one it was taken on, however late) since ``start``
    (seconds since the epoch, when the sampling began: the controller's clock, which the hosts'
    keep), rounded half up: one second per whole second of the host, where its sample's exact time,
    rounded, gave a late sample and the next one the same second. A sample is whole when the
    next one's mark comes and it has one line of each of ``devices``; an interval whose samples
    are not both whole, longer than :data:`GAP_S`, or whose counters disagree, is passed over.

    Attributes:
        samples: the samples read so far; ``skipped``: the intervals passed over.
    """

    def __init__(self, on_interval: Callable[..., None], devices: Sequence[str], start: float) -> None:
        self.on_interval, self.devices, self.start = on_interval, set(devices), start
        self.samples = self.skipped = 0
        self._at: int | None = None  # the sample being read: its time (ns since the epoch), its devices' counters
        self._counters: dict[str, tuple[int, int, int]] = {}
        self._last: tuple[int, dict[str, tuple[int, int, int]]] | None = None

    def __call__(self, line: str) -> None:
        line = line.rstrip("\r\n")
        if line.startswith(MARK):
            self._whole()
            stamp = _MARK_RE.match(line)
            self._at = int(stamp.group(1)) * 10**9 + int(stamp.group(2)) if stamp else None
            self._counters = {}
        elif self._at is not None:
            read = device_counters(line)
            if read is None or read[0] in self._counters:  # a damaged or repeated line spoils the sample
                self._at = None
            else:
                self._counters[read[0]] = read[1]

    def _whole(self) -> None:
        """The sample read so far has ended: the second from the one before handed over."""
        at, counters = self._at, self._counters
        self._at = None
        if at is None or set(counters) != self.devices:
            if self.samples or at is not None:
                self.skipped += 1
            self._last = None
            return
        self.samples += 1
        last, self._last = self._last, (at, counters)
        if last is None:
            return
        seconds = (at - last[0]) / 1e9
        values = second_values(last[1], counters, seconds) if seconds <= GAP_S else None
        if values is None:
            self.skipped += 1
            return
        self.on_interval(values, second=float(math.floor(at // 10**9 - self.start + 0.5)))


class DeviceSampler:
    """While a point runs (a ``with`` block), a :func:`sampler_command` on each host of ``devices``
    (host name -> its devices, :func:`owned_devices`), each in a thread of its own, its lines read
    by a :class:`DiskstatsFeed` whose seconds go to ``on_interval_of(host name)``. Leaving the
    block stops handing seconds over at once and asks each sampler to stop, without waiting (a stop
    file of its own in the host's ``workdir``, which the sampler removes; it ends within a second);
    a sampler that fails or ends before the block does (a host gone, a shell without ``date +%N``)
    only ends its seconds, and ``on_gone(host name)`` says so (the other hosts' seconds go on
    without it): the point goes on.

    Attributes:
        errors: each failed sampler's error, by host name.
    """

    def __init__(self, hosts: Sequence[Any], devices: Mapping[str, list[str]],
                 on_interval_of: Callable[[str], Callable[..., None]], max_s: float,
                 on_gone: Callable[[str], None] | None = None) -> None:
        self.hosts = [h for h in hosts if h.name in devices]
        self.devices, self.on_interval_of, self.max_s, self.on_gone = devices, on_interval_of, max_s, on_gone
        self.stop_name = f".flashpoc-diskstats-stop-{secrets.token_hex(4)}"
        self.errors: dict[str, str] = {}
        self._open = threading.Event()
        self._start = 0.0
        self._threads: list[threading.Thread] = []

    def __enter__(self) -> DeviceSampler:
        self._open.set()
        self._start = time.time()
        for host in self.hosts:
            thread = threading.Thread(target=self._sample, args=(host,), daemon=True,
                                      name=f"flashpoc-diskstats-{host.name}")
            thread.start()
            self._threads.append(thread)
        return self

    def _sample(self, host: Any) -> None:
        on_interval = self.on_interval_of(host.name)
        feed = DiskstatsFeed(lambda values, **kw: self._open.is_set() and on_interval(values, **kw),
                             self.devices[host.name], self._start)
        try:
            host.run(sampler_command(self.devices[host.name], self.stop_file(host), self.max_s),
                     purpose="sample its devices' counters", timeout_s=self.max_s + 60, check=False,
                     on_line=lambda line: self._open.is_set() and feed(line))
        except Exception as error:  # noqa: BLE001 - the live view never stops a point
            self.errors[host.name] = str(error)
        if self._open.is_set() and self.on_gone is not None:  # ended before the point did
            self.on_gone(host.name)

    def stop_file(self, host: Any) -> str:
        """The file that tells ``host``'s sampler to stop."""
        return f"{host.params.workdir}/{self.stop_name}"

    def __exit__(self, *exc: object) -> None:
        self._open.clear()
        threading.Thread(target=self._stop, daemon=True, name="flashpoc-diskstats-stop").start()

    def _stop(self) -> None:
        """The stop files written, in a thread of its own: a host that does not answer (the point's
        failure, maybe) must not hold up the point's end. A sampler not told ends at its time limit,
        or sooner when its connection closes."""
        stopped = Group(self.hosts).map(lambda host: host.run(
            f"touch {quote(self.stop_file(host))}", purpose="stop sampling its devices", timeout_s=10, check=False),
            purpose="stop sampling the devices")
        for name, error in stopped.failed.items():
            self.errors.setdefault(name, str(error))

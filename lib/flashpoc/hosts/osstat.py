"""Parse the OS statistics a SLOB run leaves behind: iostat, mpstat, vmstat and tm.out.

Pure functions: text in, rows (dicts) out. Nothing here reads files, prints or exits;
every problem with the input raises :class:`flashpoc.core.errors.ParseError`.

What the parsers expect (from real SLOB 2.5 run directories, sysstat 10.1 on EL7):

* ``iostat -t -xm 3``: a ``Linux ...`` banner, then per report a timestamp line as printed
  (``02/17/2020 09:25:22 AM``; the format follows the locale / ``S_TIME_FORMAT``), an
  ``avg-cpu:`` header and one value line, a ``Device:`` header and one line per device.
  Column names differ between sysstat versions (``avgqu-sz`` vs ``aqu-sz``, ``rMB/s`` vs
  ``rkB/s``, ``Device:`` vs ``Device``): rows are keyed by the printed header made
  identifier-safe with units (:func:`column_key`), never renamed to another version's names.
* ``mpstat -P ALL 3``: one header per report, rows ``<time> <CPU> <values>`` where the time is
  ``09:25:25 AM`` (12-hour locale) or ``09:25:25``; ``Average:`` lines when mpstat ends normally.
* ``vmstat -t 3``: a two-line header repeated every 21 samples; with ``-t`` the second header
  line ends with the time zone (``CST``) and each row with ``YYYY-MM-DD HH:MM:SS``.
* ``tm.out``: one line ``Tm <seconds>`` written by SLOB's ``runit.sh``.

The first iostat report and the first vmstat row hold averages since boot (neither tool was run
with a "skip first report" option in SLOB), not the first 3-second interval; mpstat's first
report already covers the first interval. Callers that average intervals should drop iostat
interval 0 and vmstat sample 0.

Truncated input: if the text does not end with a newline, its last (possibly cut) line is
ignored, so a file cut mid-line gives a correct prefix. A complete line that does not fit its
header (wrong field count, non-numeric value) raises ParseError naming the line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from flashpoc.core.errors import ParseError

_TIMESTAMP_RE = re.compile(
    r"^\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}[ T]\d{1,2}:\d{2}:\d{2}(?:\s*[AP]M)?(?:[+-]\d{4}|Z)?$"
)
_CLOCK_RE = re.compile(r"^\d{1,2}:\d{2}:\d{2}$")
_NUMBER_RE = re.compile(r"^\+?(?:\d+\.?\d*|\.\d+)$", re.ASCII)
"""Every iostat, mpstat, vmstat and tm.out value is a count, rate, share or time: never negative
(a ``-`` there is a corrupted file, refused rather than read as a number)."""

# Units of iostat / mpstat / vmstat columns whose header does not say them.
_MS_COLUMNS = {"await", "r_await", "w_await", "d_await", "f_await", "svctm"}
_SECTOR_COLUMNS = {"avgrq-sz"}  # sysstat < 11.6: average request size in 512-byte sectors
_KB_COLUMNS = {"rareq-sz", "wareq-sz", "dareq-sz"}  # sysstat >= 11.6: average request size, kB
_VMSTAT_KEYS = {
    "swpd": "swpd_kib",
    "free": "free_kib",
    "buff": "buff_kib",
    "cache": "cache_kib",
    "inact": "inact_kib",
    "active": "active_kib",
    "si": "si_kib_per_s",
    "so": "so_kib_per_s",
    "bi": "bi_blocks_per_s",
    "bo": "bo_blocks_per_s",
    "in": "in_per_s",
    "cs": "cs_per_s",
    "us": "us_pct",
    "sy": "sy_pct",
    "id": "id_pct",
    "wa": "wa_pct",
    "st": "st_pct",
    "gu": "gu_pct",
}
"""vmstat column -> row key. Memory in KiB is vmstat's default unit (no ``-S``)."""

MPSTAT_SUMMARY_COLUMNS: tuple[str, ...] = ("usr_pct", "sys_pct", "iowait_pct", "idle_pct")
"""Columns averaged by :func:`cpu_summary`."""


def column_key(header: str) -> str:
    """Return the identifier-safe row key of an iostat/mpstat column header, with its unit.

    ``r/s`` -> ``r_per_s``, ``rMB/s`` -> ``r_mb_per_s``, ``rkB/s`` -> ``r_kb_per_s``,
    ``%util`` -> ``util_pct``, ``r_await`` -> ``r_await_ms``, ``avgrq-sz`` ->
    ``avgrq_sz_sectors``, ``rareq-sz`` -> ``rareq_sz_kb``, ``avgqu-sz`` -> ``avgqu_sz``,
    ``aqu-sz`` -> ``aqu_sz``, ``%usr`` -> ``usr_pct``.

    Raises:
        ParseError: if the header cannot be made into an identifier.
    """
    name = header.strip()
    if name in _MS_COLUMNS:
        key = f"{name}_ms"
    elif name in _SECTOR_COLUMNS:
        key = name.replace("-", "_") + "_sectors"
    elif name in _KB_COLUMNS:
        key = name.replace("-", "_") + "_kb"
    elif name.startswith("%"):
        key = name[1:].replace("-", "_").replace("/", "_") + "_pct"
    elif name.endswith("/s"):
        stem = name[:-2]
        unit = re.search(r"(MB|kB|KB|sec)$", stem)
        if unit and len(stem) > len(unit.group(1)):
            stem = stem[: -len(unit.group(1))] + "_" + unit.group(1)
        key = stem.replace("-", "_") + "_per_s"
    else:
        key = name.replace("-", "_")
    key = key.lower()
    if not key.isidentifier():
        raise ParseError(f"column header {header!r} cannot be made into a row key")
    return key


_CLOCK_RE = re.compile(r"(?P<clock>\d{1,2}:\d{2}:\d{2})(?:\s*(?P<half>AM|PM))?")


def _lines(text: str) -> list[str]:
    """Split text into lines, dropping a last line that is not newline-terminated (cut)."""
    if not isinstance(text, str):
        raise ParseError(f"expected text (str), got {type(text).__name__}")
    lines = text.splitlines()
    if lines and not text.endswith(("\n", "\r")):
        lines.pop()
    return lines


def _number(token: str, where: str) -> float:
    if not _NUMBER_RE.match(token):
        raise ParseError(f"{where}: expected a number (not negative), got {token!r}")
    return float(token)


_NUMBERS_RE = re.compile(r"\+?(?:\d+\.?\d*|\.\d+)(?: \+?(?:\d+\.?\d*|\.\d+))*", re.ASCII)
"""A run of :data:`_NUMBER_RE` numbers separated by single spaces: a whole line checked at once."""


def _values(keys: Sequence[str], tokens: Sequence[str], where: str) -> dict[str, float]:
    """``{key: number}`` of a line's tokens, every token checked as :func:`_number` does (one
    match for the line; the token at fault named when it fails)."""
    if _NUMBERS_RE.fullmatch(" ".join(tokens)) is None:
        for token in tokens:
            _number(token, where)
    return dict(zip(keys, map(float, tokens)))


def _keys(headers: Sequence[str], where: str) -> list[str]:
    keys = [column_key(h) for h in headers]
    if len(set(keys)) != len(keys):
        raise ParseError(f"{where}: duplicate column names in header {list(headers)}")
    return keys


def parse_iostat(text: str) -> list[dict[str, Any]]:
    """Parse ``iostat -x`` output into one row per (report, device).

    Args:
        text: the whole output (e.g. SLOB's ``iostat.out`` from ``iostat -t -xm 3``).

    Returns:
        Rows with ``interval`` (0-based report index; report 0 is since boot), ``timestamp``
        (as printed, or None without ``-t``), ``device``, then one float per column keyed by
        :func:`column_key` (e.g. ``r_per_s``, ``r_mb_per_s``, ``r_await_ms``, ``util_pct``).

    Raises:
        ParseError: no device header found, or a line does not fit its header.
    """
    device_rows, _ = _parse_iostat(text)
    if not device_rows:
        raise ParseError("iostat: no 'Device' header with device rows found")
    return device_rows


def parse_iostat_cpu(text: str) -> list[dict[str, Any]]:
    """Parse the ``avg-cpu`` lines of ``iostat`` output: one row per report.

    Returns:
        Rows with ``interval``, ``timestamp`` (as printed or None) and ``user_pct``,
        ``nice_pct``, ``system_pct``, ``iowait_pct``, ``steal_pct``, ``idle_pct`` (keys
        follow the printed header).

    Raises:
        ParseError: no ``avg-cpu:`` section found, or a line does not fit its header.
    """
    _, cpu_rows = _parse_iostat(text)
    if not cpu_rows:
        raise ParseError("iostat: no 'avg-cpu:' section found")
    return cpu_rows


def _parse_iostat(text: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The device rows and the avg-cpu rows of ``iostat`` output, in one pass over its lines.
    Long because it is one pass keeping the state of the report being read (its number and
    timestamp, the section and its header), which helpers would have to pass back and forth."""
    devices: list[dict[str, Any]] = []
    cpus: list[dict[str, Any]] = []
    interval = -1
    timestamp: str | None = None
    seen_cpu = seen_dev = False
    section: str | None = None  # "cpu" after an avg-cpu header, "dev" after a Device header
    cpu_keys: list[str] = []
    dev_keys: list[str] = []

    def new_interval(ts: str | None) -> None:
        nonlocal interval, timestamp, seen_cpu, seen_dev
        interval += 1
        timestamp = ts
        seen_cpu = seen_dev = False

    for number, raw in enumerate(_lines(text), start=1):
        where = f"iostat line {number}"
        line = raw.strip()
        if not line:
            section = None
            continue
        tokens = line.split()
        if number == 1 and tokens[0] == "Linux":
            continue
        if _TIMESTAMP_RE.match(line):
            new_interval(line)
            section = None
            continue
        if tokens[0] == "avg-cpu:":
            if interval < 0 or seen_cpu or seen_dev:
                new_interval(None)
            cpu_keys = _keys(tokens[1:], where)
            seen_cpu = True
            section = "cpu"
            continue
        if tokens[0].rstrip(":") == "Device":
            if interval < 0 or seen_dev:
                new_interval(None)
            dev_keys = _keys(tokens[1:], where)
            seen_dev = True
            section = "dev"
            continue
        if section == "cpu":
            if len(tokens) != len(cpu_keys):
                raise ParseError(f"{where}: expected {len(cpu_keys)} avg-cpu values, "
                                 f"got {len(tokens)}")
            row: dict[str, Any] = {"interval": interval, "timestamp": timestamp}
            row.update(_values(cpu_keys, tokens, where))
            cpus.append(row)
            section = None
            continue
        if section == "dev":
            if len(tokens) != len(dev_keys) + 1:
                raise ParseError(f"{where}: expected a device name and {len(dev_keys)} values, "
                                 f"got {len(tokens)} fields")
            row = {"interval": interval, "timestamp": timestamp, "device": tokens[0]}
            row.update(_values(dev_keys, tokens[1:], where))
            devices.append(row)
            continue
        raise ParseError(f"{where}: unexpected line {line[:60]!r}")
    return devices, cpus


def clock_24h(timestamp: str) -> str | None:
    """The 24-hour ``HH:MM:SS`` of a printed timestamp (``02/17/2020 09:25:22 AM``,
    ``2020-02-17T09:25:22``), or None when it has no clock time."""
    match = _CLOCK_RE.search(timestamp)
    if match is None:
        return None
    return _to_24h(match["clock"], match["half"])


def _to_24h(clock: str, half: str | None) -> str:
    hours, rest = clock.split(":", 1)
    h = int(hours)
    if half is not None:
        if not 1 <= h <= 12:
            raise ParseError(f"12-hour time {clock} {half} has hour {h}")
        h = h % 12 + (12 if half == "PM" else 0)
    return f"{h:02d}:{rest}"


def parse_mpstat(text: str) -> list[dict[str, Any]]:
    """Parse ``mpstat -P ALL <interval>`` output into one row per (report, CPU).

    Args:
        text: the whole output (e.g. SLOB's ``mpstat.out``).

    Returns:
        Rows with ``interval`` (0-based report index; None on ``Average:`` rows), ``time``
        (as printed, e.g. ``09:25:25 AM``; None on averages), ``time_24h`` (``HH:MM:SS``),
        ``is_average``, ``cpu`` (as printed: ``all``, ``0``, ``1``...) and one float per
        column: ``usr_pct``, ``nice_pct``, ``sys_pct``, ``iowait_pct``, ``irq_pct``,
        ``soft_pct``, ``steal_pct``, ``guest_pct``, ``gnice_pct``, ``idle_pct`` (as printed).

    Raises:
        ParseError: no header found, or a line does not fit its header.
    """
    rows: list[dict[str, Any]] = []
    interval = -1
    keys: list[str] | None = None
    for number, raw in enumerate(_lines(text), start=1):
        where = f"mpstat line {number}"
        tokens = raw.split()
        if not tokens:
            continue
        if number == 1 and tokens[0] == "Linux":
            continue
        if tokens[0] == "Average:":
            is_average, time, time_24h, rest = True, None, None, tokens[1:]
        elif _CLOCK_RE.match(tokens[0]):
            half = tokens[1] if len(tokens) > 1 and tokens[1] in ("AM", "PM") else None
            time = f"{tokens[0]} {half}" if half else tokens[0]
            time_24h = _to_24h(tokens[0], half)
            is_average, rest = False, tokens[2:] if half else tokens[1:]
        else:
            raise ParseError(f"{where}: expected a time or 'Average:' first, got {raw[:60]!r}")
        if rest and rest[0] == "CPU":
            keys = _keys(rest[1:], where)
            if not is_average:
                interval += 1
            continue
        if keys is None:
            raise ParseError(f"{where}: data before any 'CPU' header")
        if len(rest) != len(keys) + 1:
            raise ParseError(f"{where}: expected a CPU and {len(keys)} values, "
                             f"got {len(rest)} fields")
        row: dict[str, Any] = {
            "interval": None if is_average else interval,
            "time": time,
            "time_24h": time_24h,
            "is_average": is_average,
            "cpu": rest[0],
        }
        row.update(_values(keys, rest[1:], where))
        rows.append(row)
    if keys is None:
        raise ParseError("mpstat: no 'CPU %usr ...' header found")
    return rows


def cpu_summary(mpstat_rows: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Mean CPU use over the ``all`` rows of :func:`parse_mpstat`, ``Average:`` rows excluded.

    Returns:
        ``{"intervals": n, "usr_pct_mean": ..., "sys_pct_mean": ..., "iowait_pct_mean": ...,
        "idle_pct_mean": ...}`` (plain arithmetic means of the per-interval values).

    Raises:
        ParseError: no interval ``all`` rows, or one lacks a summarized column.
    """
    picked = [r for r in mpstat_rows if r.get("cpu") == "all" and not r.get("is_average")]
    if not picked:
        raise ParseError("mpstat rows hold no interval 'all' CPU rows to summarize")
    summary: dict[str, Any] = {"intervals": len(picked)}
    for column in MPSTAT_SUMMARY_COLUMNS:
        if any(column not in r for r in picked):
            raise ParseError(f"mpstat rows lack column {column!r}")
        summary[f"{column}_mean"] = sum(float(r[column]) for r in picked) / len(picked)
    return summary


def parse_vmstat(text: str) -> list[dict[str, Any]]:
    """Parse ``vmstat [-t] <interval>`` output into one row per sample line.

    Args:
        text: the whole output (e.g. SLOB's ``vmstat.out`` from ``vmstat -t 3``).

    Returns:
        Rows with ``sample`` (0-based; sample 0 is since boot), ``timestamp`` (``YYYY-MM-DD
        HH:MM:SS`` as printed, None without ``-t``), ``timezone`` (the header's zone, e.g.
        ``CST``, or None), ``r``, ``b`` (ints) and the other columns as ints keyed with units:
        ``swpd_kib``, ``free_kib``, ``buff_kib``, ``cache_kib``, ``si_kib_per_s``,
        ``so_kib_per_s``, ``bi_blocks_per_s``, ``bo_blocks_per_s``, ``in_per_s``, ``cs_per_s``,
        ``us_pct``, ``sy_pct``, ``id_pct``, ``wa_pct``, ``st_pct``. Memory units assume
        vmstat's default (KiB, no ``-S``).

    Raises:
        ParseError: no header found, or a line does not fit its header.
    """
    rows: list[dict[str, Any]] = []
    keys: list[str] | None = None
    has_timestamp = False
    timezone: str | None = None
    for number, raw in enumerate(_lines(text), start=1):
        where = f"vmstat line {number}"
        tokens = raw.split()
        if not tokens:
            continue
        if tokens[0] == "procs":
            has_timestamp = "timestamp" in raw
            keys = None
            continue
        if tokens[:2] == ["r", "b"]:
            names = tokens[:-1] if has_timestamp else tokens
            timezone = tokens[-1] if has_timestamp else None
            keys = [_VMSTAT_KEYS.get(n, n.replace("-", "_")) for n in names]
            continue
        if keys is None:
            raise ParseError(f"{where}: data before the 'r b swpd ...' header")
        expected = len(keys) + (2 if has_timestamp else 0)
        if len(tokens) != expected:
            raise ParseError(f"{where}: expected {expected} fields, got {len(tokens)}")
        row: dict[str, Any] = {
            "sample": len(rows),
            "timestamp": " ".join(tokens[-2:]) if has_timestamp else None,
            "timezone": timezone,
        }
        for key, token in zip(keys, tokens):
            if not (token.isascii() and token.isdigit()):
                raise ParseError(f"{where}: expected an integer for {key}, got {token!r}")
            row[key] = int(token)
        rows.append(row)
    if not rows:
        raise ParseError("vmstat: no sample rows found")
    return rows


def parse_tm(text: str) -> dict[str, float | int]:
    """Parse SLOB's ``tm.out``: one line ``Tm <seconds>``.

    Returns:
        ``{"tm_s": seconds}``: the elapsed seconds runit.sh recorded (int when printed as one).

    Raises:
        ParseError: the text is not exactly one ``Tm <number>`` line.
    """
    lines = [line for line in _lines(text) if line.strip()]
    if len(lines) != 1:
        raise ParseError(f"tm.out: expected one 'Tm <seconds>' line, got {len(lines)} lines")
    tokens = lines[0].split()
    if len(tokens) != 2 or tokens[0] != "Tm" or not _NUMBER_RE.match(tokens[1]):
        raise ParseError(f"tm.out: expected 'Tm <seconds>', got {lines[0][:40]!r}")
    value = float(tokens[1])
    return {"tm_s": int(tokens[1]) if tokens[1].isascii() and tokens[1].isdigit() else value}

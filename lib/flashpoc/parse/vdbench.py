"""Parse vdbench output directories (totals, summary, flatfile, histograms) into tidy rows.

Pure functions: text in, rows (dicts) out. The only file reading is :func:`read_output_dir`
(and :func:`parse_vdbench_dir`, which calls it); every problem with the input raises
:class:`flashpoc.errors.ParseError` naming the file and what was expected.

Units follow the key names: ``iops`` (I/O per second), ``mb_per_s`` (vdbench MB/s, where
MB = 1024**2 bytes), ``bytes_per_io``, ``*_ms`` (milliseconds), ``*_pct`` (percent),
``*_us`` (microseconds, histogram bounds), ``elapsed_s``/``warmup_s`` (seconds),
``lunsize_gb`` (vdbench GB = 1024**3 bytes).

What the files look like (checked on real outputs of vdbench 5.04.01, 5.04.06 and 5.04.07):

* Every report (totals.html, summary.html, the per-host ``hd1.html`` / per-slave
  ``hd1-0.html`` reports) is HTML around a ``<pre>`` block. Each run starts with a line
  ``<time> Starting RD=<name>; I/O rate: Uncontrolled MAX; elapsed=10; For loops: threads=8``
  (file-system runs: ``Starting RD=rd1; elapsed=20; fwdrate=max. For loops: None``).
* The column header is two lines: a localized date (never used), ``interval``, then column
  names stacked over two lines (``i/o`` over ``rate``...). File-system (fsd/fwd) reports
  use dotted group labels over several columns (``.ReqstdOps...`` over ``rate resp``).
  Both header lines end at the same column, so the labels are matched to the columns by
  position from the right. totals.html prints the header once, after the first run's start
  line (5.04.07 prints it again every ~15 runs); summary.html every 30 lines. 5.04.07 SD
  reports have 15 columns (``read max`` and ``write max`` instead of ``resp max``).
* An ``avg_2-10`` line closes each run; file-system reports add ``std_`` and ``max_`` lines
  with blank fields, which are matched to their columns by position.
* vdbench 5.04.06 labels the average ``avg_2-N`` but its numbers are the mean of intervals
  1..N (interval 1 included); 5.04.01 and 5.04.07 average 2..N as labelled. The parser
  reports the label as printed (``interval_start``, ``interval_end``).

Runs are told apart by ``run_index`` (0-based order of the ``Starting RD`` lines, the same in
every report of a directory); the loop values come from the ``For loops:`` text. Dates and
times of day are localized or meaningless across files and are never used as keys.

A text whose last line has no line end is taken as cut off and refused: its last number
may be cut short. A cut exactly at a line end parses to the rows before the cut.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from flashpoc.errors import ParseError

LOOP_KEYS: tuple[str, ...] = (
    "threads",
    "rdpct",
    "xfersize",
    "iorate",
    "seekpct",
    "rhpct",
    "whpct",
    "hitarea",
    "compratio",
)
"""vdbench ``for...`` loop parameters flattened into every row (None when not looped).

Loop keys printed by vdbench that are not in this list are flattened too, after these.
"""

RUN_KEYS: tuple[str, ...] = (
    "rd",
    "run_index",
    "loop",
    *LOOP_KEYS,
    "iorate_setting",
    "elapsed_s",
    "warmup_s",
    "report_format",
)
"""Run context that starts every totals/summary row (extra loop keys follow ``LOOP_KEYS``)."""

SD_METRIC_KEYS: tuple[str, ...] = (
    "iops",
    "mb_per_s",
    "bytes_per_io",
    "read_pct",
    "resp_ms",
    "read_resp_ms",
    "write_resp_ms",
    "resp_max_ms",
    "resp_stddev_ms",
    "queue_depth",
    "cpu_sys_user_pct",
    "cpu_sys_pct",
)
"""The metric columns of vdbench's SD (raw I/O) reports; present in every row (None if absent).

Other columns a header has (5.04.07 ``read_resp_max_ms``/``write_resp_max_ms``, the
file-system columns such as ``reqstdops_rate``, ``open_resp_ms``) follow them.
"""

DEFAULT_SD_COLUMNS: tuple[str, ...] = ("tod", "interval", *SD_METRIC_KEYS)
"""vdbench's documented 14-column order, used only for data lines before any header."""

TOTALS_KEYS: tuple[str, ...] = (
    *RUN_KEYS,
    "tod",
    "interval_label",
    "interval_start",
    "interval_end",
    *SD_METRIC_KEYS,
)
"""Keys every :func:`parse_totals` row starts with (header-specific columns follow)."""

SUMMARY_KEYS: tuple[str, ...] = (
    *RUN_KEYS,
    "tod",
    "interval",
    "row_type",
    "is_avg",
    "interval_start",
    "interval_end",
    *SD_METRIC_KEYS,
)
"""Keys every :func:`parse_summary` row starts with (header-specific columns follow)."""

HISTOGRAM_KEYS: tuple[str, ...] = (
    "rd",
    "run_index",
    "loop",
    *LOOP_KEYS,
    "section",
    "direction",
    "bucket_index",
    "bucket_lo_us",
    "bucket_hi_us",
    "count",
    "pct",
    "cum_pct",
)
"""Keys of every :func:`parse_histogram` row, in order (extra loop keys after LOOP_KEYS)."""

HISTOGRAM_SECTIONS: dict[str, str] = {
    "reads and writes": "total",
    "reads": "read",
    "writes": "write",
    "only reads done for this workload": "read",
    "only writes done for this workload": "write",
    "total of all requested operations": "total",
    "total of all requested operations since warmup": "total",
}
"""Histogram section titles (lower-cased, without the colon) and their ``direction``.

An unknown title still gives rows, with ``direction`` None and ``section`` as printed.
"""

SD_HEADER_NAMES: dict[tuple[str, str], str] = {
    ("i/o", "rate"): "iops",
    ("mb/sec", "1024**2"): "mb_per_s",
    ("bytes", "i/o"): "bytes_per_io",
    ("read", "pct"): "read_pct",
    ("resp", "time"): "resp_ms",
    ("read", "resp"): "read_resp_ms",
    ("write", "resp"): "write_resp_ms",
    ("resp", "max"): "resp_max_ms",
    ("resp", "stddev"): "resp_stddev_ms",
    ("queue", "depth"): "queue_depth",
    ("cpu%", "sys+u"): "cpu_sys_user_pct",
    ("cpu%", "sys"): "cpu_sys_pct",
    ("read", "max"): "read_resp_max_ms",
    ("write", "max"): "write_resp_max_ms",
}
"""Report header labels (upper word, lower word; lower-cased, dots stripped) -> row keys.

Other labels are named by :func:`report_column_key`: ``<group>_<name>``, with ``_ms`` after
``resp``, ``cpu_<name>_pct`` under ``cpu%``, ``mb_<name>_per_s`` under ``mb/sec`` and
``xfer_size_bytes`` (e.g. ``.ReqstdOps...`` over ``rate`` -> ``reqstdops_rate``).
"""

FLATFILE_NAMES: dict[str, str] = {
    "mb/sec": "mb_per_s",
    "mb_read": "mb_read_per_s",
    "mb_write": "mb_write_per_s",
    "bytes/io": "bytes_per_io",
    "read%": "read_pct",
    "lunsize": "lunsize_gb",
}
"""flatfile column names (lower-cased) renamed for their unit; see :func:`flatfile_column_key`."""

FLATFILE_TEXT_COLUMNS: tuple[str, ...] = ("tod", "timestamp", "run", "interval", "version")
"""flatfile columns kept as text (``interval`` becomes an int when it is a number)."""

FLATFILE_DUPLICATES: dict[str, str] = {
    "rate": "iops",
    "resp_std_ms": "resp_stddev_ms",
    "read_max_ms": "read_resp_max_ms",
    "write_max_ms": "write_resp_max_ms",
    "cpu_used_pct": "cpu_sys_user_pct",
    "cpu_kernel_pct": "cpu_sys_pct",
}
"""flatfile columns that repeat a totals column; :func:`parse_vdbench_dir` does not add them."""

_TAG = re.compile(r"<\s*/?\s*[A-Za-z][A-Za-z0-9]*(?:\s[^<>]*)?>")
_STARTING = re.compile(r"Starting RD=(?P<rd>[^;\s]+)(?P<rest>.*)$")
_DATA = re.compile(r"^\s*\d{1,2}:\d{2}:\d{2}(?:\.\d+)?\s+(?P<label>\S+)(?:\s|$)")
_LABEL = re.compile(r"^(?P<kind>[a-z]+)_(?P<lo>\d+)-(?P<hi>\d+)$")
_INT = re.compile(r"^[-+]?\d+$")
_FLOAT = re.compile(r"^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$")
_BUCKET = re.compile(
    r"^\s*(?P<lo>\d+(?:\.\d+)?)\s*<\s*(?P<hi>\d+(?:\.\d+)?|max)\s+(?P<count>\d{1,3}(?:,\d{3})*)"
    r"\s+(?P<pct>\d+(?:\.\d+)?)\s+(?P<cum>\d+(?:\.\d+)?)(?:\s+[-+]*)?\s*$"
)
_STAMP = re.compile(r"^\d{1,2}:\d{2}:\d{2}\.\d{3}(?: (?P<msg>.*))?$")
_EXCEPTION = re.compile(  # java.lang.RuntimeException: ..., Exception in thread "main" ...
    r"^(?:Exception in thread \"[^\"]*\" )?(?:[a-zA-Z_$][\w$]*\.)+\w*(?:Exception|Error)\b"
)
_SPARSE_TOLERANCE = 2  # columns a sparse std_/max_ value may sit off its header column


# --- public API -----------------------------------------------------------------------------


def parse_totals(text: str) -> list[dict[str, Any]]:
    """Parse totals.html into one row per run (its ``avg_`` line).

    Args:
        text: The text of totals.html.

    Returns:
        One row per run, in file order. Keys: :data:`TOTALS_KEYS` (``rd``, ``run_index``,
        ``loop`` as a dict such as ``{"rdpct": 100, "threads": 2}``, the flattened loop keys
        (None when not looped), ``iorate_setting`` (``"max"`` for ``Uncontrolled MAX``,
        ``"controlled_max"`` for ``Controlled MAX``, a number for a set rate, fsd
        ``fwdrate=`` as printed), ``elapsed_s``, ``warmup_s``, ``report_format`` (``"sd"`` or
        ``"fsd"``), ``tod``, ``interval_label`` (``"avg_2-10"``), ``interval_start``,
        ``interval_end`` and :data:`SD_METRIC_KEYS`), then the header's other columns.
        Empty when vdbench started no run (a failed run leaves ``Run totals`` only). A run
        without its ``avg_`` line at the very end of the text (cut off) is left out.

    Raises:
        ParseError: The text is empty, is not a vdbench totals report, is cut mid-line, a
            run other than the last has no ``avg_`` line or several, or a line does not
            match its header.
    """
    runs = _parse_report(text, "totals.html", marker="Run totals")
    rows: list[dict[str, Any]] = []
    for position, run in enumerate(runs):
        averages = [row for row in run["rows"] if row["row_type"] == "avg"]
        if len(averages) > 1:
            raise ParseError(
                f"totals.html run {run['run_index']} (rd={run['rd']}) has {len(averages)} avg_ "
                "lines; expected one per run (is the 'Starting RD' line missing?)"
            )
        if not averages:
            if position == len(runs) - 1:
                continue  # the text ends before this run's average: cut off
            raise ParseError(
                f"totals.html run {run['run_index']} (rd={run['rd']}) has no avg_ line; "
                "expected one per run"
            )
        avg = averages[0]
        row = {key: avg[key] for key in RUN_KEYS}
        row.update(_extra_loop_keys(avg))
        row["tod"] = avg["tod"]
        row["interval_label"] = avg["interval"]
        row["interval_start"] = avg["interval_start"]
        row["interval_end"] = avg["interval_end"]
        row.update(_metric_items(avg))
        rows.append(row)
    return rows


def parse_summary(text: str, name: str = "summary.html") -> list[dict[str, Any]]:
    """Parse summary.html (or a per-host / per-slave report) into one row per printed line.

    Args:
        text: The text of summary.html, ``<host>.html`` or ``<host>-<n>.html`` (same format).
        name: The file name, for error messages.

    Returns:
        Every interval line and every ``avg_``/``std_``/``max_`` line of every run, in file
        order. Keys: :data:`SUMMARY_KEYS` (run context as in :func:`parse_totals`, ``tod``,
        ``interval`` (int, or the label such as ``"avg_2-10"``), ``row_type``
        (``"interval"``, ``"avg"``, ``"std"``, ``"max"``), ``is_avg``, ``interval_start`` and
        ``interval_end`` of a label (None on interval lines), :data:`SD_METRIC_KEYS`), then
        the header's other columns. ``n/a`` and blank fields give None. Empty when no run
        started.

    Raises:
        ParseError: Empty or foreign text, cut mid-line, interval numbers that do not follow
            each other, an average whose range does not end at the last interval, or a line
            that does not match its header.
    """
    runs = _parse_report(text, name, marker="summary report")
    rows: list[dict[str, Any]] = []
    for run in runs:
        for parsed in run["rows"]:
            row = {key: parsed[key] for key in RUN_KEYS}
            row.update(_extra_loop_keys(parsed))
            row["tod"] = parsed["tod"]
            row["interval"] = parsed["interval"]
            row["row_type"] = parsed["row_type"]
            row["is_avg"] = parsed["row_type"] == "avg"
            row["interval_start"] = parsed["interval_start"]
            row["interval_end"] = parsed["interval_end"]
            row.update(_metric_items(parsed))
            rows.append(row)
    return rows


def parse_flatfile(text: str) -> list[dict[str, Any]]:
    """Parse flatfile.html: one row per data line, keyed by the printed column names.

    Keys are the header names lower-cased, renamed for units by :func:`flatfile_column_key`:
    ``MB/sec`` -> ``mb_per_s``, ``MB_read`` -> ``mb_read_per_s``, ``bytes/io`` ->
    ``bytes_per_io``, ``read%`` -> ``read_pct``, every name with ``resp`` gets ``_ms``
    (``resp_ms``, ``read_resp_ms``, ``resp_max_ms``, ``resp_std_ms``, ``open_resp_ms``...),
    5.04.07's ``read_max``/``write_max``/``read_std``/``write_std`` get ``_ms``, ``cpu_*``
    get ``_pct`` (``cpu_used_pct``...), ``lunsize`` -> ``lunsize_gb``; the rest stay as
    printed (``rate``, ``reqrate``, ``xfersize``, ``threads``, ``rdpct``, ``queue_depth``,
    ``compratio``, ``read_rate``, ``rate_std``...).

    Args:
        text: The text of flatfile.html.

    Returns:
        One row per data line in file order: ``run_index`` first (0-based loop iteration:
        a new one starts at a new ``Run`` name, after an ``avg_`` line, when ``Interval``
        restarts at 1, or when ``threads``/``rdpct``/``reqrate`` change), ``is_avg``, then
        the columns. Numbers are int or float as printed, ``n/a`` is None, ``interval`` is
        an int or the label (``"avg_2-10"``); ``tod``, ``timestamp``, ``run``, ``version``
        stay text. Empty for a flatfile with no header (a failed run).

    Raises:
        ParseError: Empty or foreign text, cut mid-line, a line whose field count differs
            from the header's, a non-number in a number column, or intervals out of order.
    """
    lines = _lines(text, "flatfile.html")
    header: list[str] | None = None
    names: list[str] = []
    rows: list[dict[str, Any]] = []
    state: dict[str, Any] = {"run_index": -1, "run": None, "last": None, "closed": True}
    saw_vdbench = False
    for number, raw in enumerate(lines, start=1):
        if "<title>" in raw.lower() or "<pre>" in raw.lower():
            saw_vdbench = True
        line = _strip_tags(raw)
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("*"):
            continue
        if header is None:
            tokens = stripped.split()
            lowered = [token.lower() for token in tokens]
            if "run" in lowered and "interval" in lowered:
                header = tokens
                names = [flatfile_column_key(token) for token in tokens]
                if len(set(names)) != len(names):
                    raise ParseError(f"flatfile.html line {number}: duplicate column names")
                continue
            if number == 1 and saw_vdbench:
                continue  # the <title> line
            raise ParseError(
                f"flatfile.html line {number}: expected '*' comments or the column header "
                f"(with Run and Interval), got {stripped[:60]!r}"
            )
        tokens = stripped.split()
        if len(tokens) != len(header):
            raise ParseError(
                f"flatfile.html line {number}: {len(tokens)} fields, the header has "
                f"{len(header)} (cut or damaged line?)"
            )
        row = {name: _flat_value(name, token, number) for name, token in zip(names, tokens)}
        _assign_flat_iteration(row, state, number)
        rows.append({"run_index": state["run_index"], "is_avg": _is_label(row["interval"], "avg"),
                     **row})
    if header is None and not saw_vdbench:
        raise ParseError("flatfile.html has no column header: expected vdbench's flatfile")
    return rows


def parse_histogram(text: str, name: str = "histogram.html") -> list[dict[str, Any]]:
    """Parse a vdbench response time histogram (``histogram.html``, ``*.histogram.html``).

    Args:
        text: The histogram file's text.
        name: The file name, for error messages.

    Returns:
        One row per latency bucket with the keys in :data:`HISTOGRAM_KEYS`: run context
        (``rd``, ``run_index``, ``loop``, flattened loop keys), ``section`` (the title as
        printed, e.g. ``"Reads and writes"``), ``direction`` (``"total"``, ``"read"`` or
        ``"write"``, see :data:`HISTOGRAM_SECTIONS`), ``bucket_index`` (0-based in its
        section), ``bucket_lo_us``/``bucket_hi_us`` (microseconds; ``bucket_hi_us`` is None
        for the open ``max`` bucket), ``count``, ``pct`` and ``cum_pct`` as printed. Empty
        when no run has a histogram.

    Raises:
        ParseError: Empty or foreign text, cut mid-line, or a bucket line that does not
            follow the previous one.
    """
    lines = _lines(text, name)
    run: dict[str, Any] | None = None
    run_index = -1
    section: str | None = None
    in_table = False
    rows: list[dict[str, Any]] = []
    previous: dict[str, Any] | None = None
    sections: set[str] = set()
    recognized = False
    for number, raw in enumerate(lines, start=1):
        line = _strip_tags(raw)
        stripped = line.strip()
        if "response time histogram" in stripped.lower():
            recognized = True
        starting = _STARTING.search(line)
        if starting:
            _check_section_complete(previous, name, number)
            run_index += 1
            run = _run_context(starting, run_index, name, number)
            section, in_table, previous, sections = None, False, None, set()
            recognized = True
            continue
        if not stripped:
            continue
        if stripped.endswith(":") and not _BUCKET.match(line) and "min(ms)" not in stripped:
            if run is None:
                continue  # 'Link to Run Definitions:' and other preamble
            _check_section_complete(previous, name, number)
            section = stripped[:-1].strip()
            only = [title for title in (*sections, section) if title.lower().startswith("only ")]
            if section in sections or (only and sections):
                raise ParseError(
                    f"{name} line {number}: {section!r} cannot follow {sorted(sections)} in run "
                    f"{run_index} (is a 'Starting RD' line missing?)"
                )
            sections.add(section)
            in_table, previous = False, None
            continue
        if stripped.startswith("min(ms)"):
            if run is None or section is None:
                raise ParseError(f"{name} line {number}: histogram header before a run/section")
            in_table = True
            continue
        if not in_table:
            continue
        bucket = _BUCKET.match(line)
        if bucket is None:
            if stripped.startswith("No statistics generated"):
                continue
            raise ParseError(
                f"{name} line {number}: expected a bucket line 'min < max count % cum%', "
                f"got {stripped[:60]!r}"
            )
        lo_us = _ms_to_us(bucket["lo"])
        hi_us = None if bucket["hi"] == "max" else _ms_to_us(bucket["hi"])
        pct, cum = float(bucket["pct"]), float(bucket["cum"])
        if previous is None and lo_us != 0:
            raise ParseError(f"{name} line {number}: the first bucket starts at {bucket['lo']} ms, "
                             "expected 0 (lines missing?)")
        if previous is not None:
            if previous["bucket_hi_us"] is None or previous["bucket_hi_us"] != lo_us:
                raise ParseError(
                    f"{name} line {number}: bucket starts at {bucket['lo']} ms but the previous "
                    "one did not end there"
                )
            if cum + 1e-9 < previous["cum_pct"]:
                raise ParseError(f"{name} line {number}: cumulative % decreases")
        assert run is not None and section is not None
        row = {key: run[key] for key in ("rd", "run_index", "loop", *LOOP_KEYS)}
        row.update(_extra_loop_keys(run))
        row.update(
            {
                "section": section,
                "direction": HISTOGRAM_SECTIONS.get(section.lower()),
                "bucket_index": 0 if previous is None else previous["bucket_index"] + 1,
                "bucket_lo_us": lo_us,
                "bucket_hi_us": hi_us,
                "count": int(bucket["count"].replace(",", "")),
                "pct": pct,
                "cum_pct": cum,
            }
        )
        rows.append(row)
        previous = row
        if hi_us is None:
            in_table = False
    if not recognized:
        raise ParseError(f"{name} is not a vdbench histogram: no 'response time histogram' title")
    return rows



def histogram_shares(rows: list[Mapping[str, Any]], limits_us: Mapping[str, int]) -> dict[str, float | None]:
    """Share (%) of I/Os faster than each limit, from one run's histogram rows.

    Args:
        rows: one run's rows of :func:`parse_histogram`.
        limits_us: name -> limit in microseconds (e.g. ``{"1ms": 1000}``).

    Returns:
        ``<prefix>clat_under_<name>_pct`` for the prefixes ``""`` (the total section, or read
        and write added up), ``read_`` and ``write_`` with a section: the buckets whose upper
        bound is at most the limit, exact when the limit is a bucket bound (1, 2, 4 ms are;
        512 us is not, and gives None).
    """
    by_direction: dict[str, list[Mapping[str, Any]]] = {}
    for row in rows:
        by_direction.setdefault(row["direction"], []).append(row)
    if "total" not in by_direction and by_direction:
        by_direction["total"] = [r for part in by_direction.values() for r in part]
    out: dict[str, float | None] = {}
    for direction, prefix in (("total", ""), ("read", "read_"), ("write", "write_")):
        part = by_direction.get(direction, [])
        total = sum(r["count"] for r in part)
        if not total:
            continue
        bounds = {r["bucket_hi_us"] for r in part}
        for name, limit in limits_us.items():
            under = sum(r["count"] for r in part if r["bucket_hi_us"] is not None and r["bucket_hi_us"] <= limit)
            out[f"{prefix}clat_under_{name}_pct"] = 100.0 * under / total if limit in bounds else None
    return out


def parse_output_dir(files: Mapping[str, str]) -> dict[str, Any]:
    """Parse the files of one vdbench output directory.

    Args:
        files: File name -> text, as from :func:`read_output_dir`. ``totals.html`` is
            required; other files are parsed when present.

    Returns:
        ``{"totals": parse_totals rows, "summary": parse_summary rows, "flatfile":
        parse_flatfile rows, "hosts": {host: rows}, "slaves": {slave: rows},
        "histograms": {name: rows}, "errors": [...]}``. Host and slave reports are found by
        their first line (``Host summary report(s) for host=`` / ``Slave summary report for
        slave=``) and keyed by file name without ``.html`` (``hd1``, ``hd1-0``,
        ``localhost-0``); they have summary.html's format. Histograms are keyed ``histogram``
        (histogram.html) or by the name before ``.histogram.html`` (``sd1``, ``hd1``,
        ``hd1-0``, ``wd1``). ``errors`` holds the lines vdbench wrote to errorlog.html after
        its preamble (data validation and I/O errors; empty for a clean run). ``opened`` is
        :func:`open_modes`.

    Raises:
        ParseError: totals.html is missing, or any file fails to parse (the message names it).
    """
    if "totals.html" not in files:
        raise ParseError(
            f"no totals.html among {len(files)} files: not a vdbench output directory"
        )
    result: dict[str, Any] = {
        "totals": parse_totals(files["totals.html"]),
        "summary": parse_summary(files["summary.html"]) if "summary.html" in files else [],
        "flatfile": parse_flatfile(files["flatfile.html"]) if "flatfile.html" in files else [],
        "hosts": {},
        "slaves": {},
        "histograms": {},
        "errors": _errorlog_lines(files.get("errorlog.html", "")),
        "opened": open_modes(files),
    }
    for name in sorted(files):
        text = files[name]
        if not name.endswith(".html"):
            continue
        if name == "histogram.html":
            result["histograms"]["histogram"] = parse_histogram(text, name)
        elif name.endswith(".histogram.html"):
            result["histograms"][name[: -len(".histogram.html")]] = parse_histogram(text, name)
        else:
            kind = _report_kind(text)
            if kind == "host":
                result["hosts"][name[: -len(".html")]] = parse_summary(text, name)
            elif kind == "slave":
                result["slaves"][name[: -len(".html")]] = parse_summary(text, name)
    return result


OPENING_LINE = re.compile(r"Opening sd=([^,;\s<]+),lun=([^;<]+); write: (true|false)")


def open_modes(files: Mapping[str, str]) -> dict[str, bool]:
    """How vdbench opened each storage definition: sd name -> True if any slave opened it
    for writing (``Opening sd=sd1,lun=...; write: true`` in ``*.stdout.html``), False if every
    opening was read-only. vdbench opens an sd read-only only when no workload of the
    parmfile writes to it. Empty when no slave stdout file is there.
    """
    modes: dict[str, bool] = {}
    for name in sorted(files):
        if name.endswith(".stdout.html"):
            for sd, _lun, write in OPENING_LINE.findall(files[name]):
                modes[sd] = modes.get(sd, False) or write == "true"
    return modes


def vdbench_failure(files: Mapping[str, str], console_text: str | None = None) -> str | None:
    """Return vdbench's own error message for a failed run, or None if it did not fail.

    A run failed when the console (or logfile.html) shows a Java exception, or status.html
    does not reach ``Vdbench complete``. The message is the text vdbench printed between
    blank time-stamped lines just before the exception (time stamps, the Java stack trace
    and ``killCommand:`` bookkeeping lines left out), then ``failed at: <last status>``
    (from status.html: the last step before ``Shutting down slaves``).

    Args:
        files: File name -> text of the output directory (status.html, logfile.html used).
        console_text: vdbench's stdout+stderr, if captured (preferred to logfile.html).

    Returns:
        The message lines joined by newlines, or None when nothing shows a failure.
    """
    sources = [text for text in (console_text, _plain(files.get("logfile.html", ""))) if text]
    messages: list[str] = []
    failed = False
    for source in sources:
        found = _failure_messages(source)
        if found is not None:
            failed = True
            messages = found
            break
    status = _status_lines(files.get("status.html", ""))
    if status and not any(line.startswith("Vdbench complete") for line in status):
        failed = True
    if not failed:
        return None
    point = None
    for line in reversed(status):
        if not line.startswith(("Shutting down slaves", "Vdbench complete")):
            point = line
            break
    if point is not None:
        messages.append(f"failed at: {point}")
    elif not messages:
        messages.append("vdbench did not complete (no status.html and no message found)")
    messages += slave_errors(files, "\n".join(sources))
    return "\n".join(messages)


_SLAVE_NAMED = re.compile(r"\bSlave (\S+) (?:prematurely terminated|aborted)|\bLook at file (\S+?)\.stdout\.html")
_SLAVE_LINES = 5
_TITLE = re.compile(r"<title>.*?</title>", re.IGNORECASE | re.DOTALL)


def slave_errors(files: Mapping[str, str], text: str) -> list[str]:
    """What the slaves that ``text`` (the console, logfile.html) names as failed printed last:
    ``slave hd2-0 (hd2-0.stdout.html): ssh: connect to host 10.0.0.2 port 22: Connection refused``.

    vdbench's master says only "Slave hd2-0 prematurely terminated" and points at the slave's
    ``<slave>.stdout.html``, which holds the slave's (or its ssh's) own words: its last
    :data:`_SLAVE_LINES` lines are quoted, time stamps left out.
    """
    names = dict.fromkeys(a or b for a, b in _SLAVE_NAMED.findall(text))
    out = []
    for name in names:
        stdout = files.get(f"{name}.stdout.html")
        if stdout is None:
            continue
        lines = []
        for line in _plain(_TITLE.sub("", stdout)).split("\n"):
            line = line.strip()
            while (match := _STAMP.match(line)) is not None:  # the master's time stamp, then the slave's
                line = (match["msg"] or "").strip()
            if line and not line.startswith("stdout/stderr for slave="):
                lines.append(line)
        if lines:
            out.append(f"slave {name} ({name}.stdout.html): " + " / ".join(lines[-_SLAVE_LINES:]))
    return out


def read_output_dir(path: str | Path) -> dict[str, str]:
    """Read the ``*.html`` and ``*.txt`` files of a vdbench output directory as text.

    Bytes are decoded as UTF-8 (BOMs honoured), else GB18030 (a Chinese-locale Java), else
    Latin-1; vdbench's numbers are ASCII in all of them. Line ends become ``\\n``.

    Args:
        path: The output directory (``vdbench -o OUTDIR``).

    Returns:
        File name -> text for every ``*.html`` and ``*.txt`` file directly in ``path``
        (``console.txt`` if the run's console was saved there).

    Raises:
        ParseError: ``path`` is not a directory.
    """
    directory = Path(path)
    if not directory.is_dir():
        raise ParseError(f"vdbench output directory not found: {directory}")
    files: dict[str, str] = {}
    for entry in sorted(directory.iterdir()):
        if entry.is_file() and entry.suffix.lower() in (".html", ".txt"):
            files[entry.name] = _decode(entry.read_bytes())
    return files


def parse_vdbench_dir(path: str | Path) -> list[dict[str, Any]]:
    """Parse an output directory into one row per run: totals enriched from the flatfile.

    Each :func:`parse_totals` row gets, from the flatfile's ``avg_`` row of the same run
    (same ``run_index``, checked against ``rd`` and the ``avg_`` label): the loop keys that
    are None (the requested ``threads``, ``xfersize``, ``rdpct``, ``seekpct``... of a run
    without loops; whole numbers as int), and the flatfile columns the row does not have
    (``reqrate``, ``lunsize_gb``, ``dedupratio``, ``cpu_user_pct``, ``cpu_wait_pct``, the fsd
    ``*_std``/``*_max`` columns...), except those in :data:`FLATFILE_DUPLICATES`. The row's
    own values (e.g. ``queue_depth`` as printed in totals.html) are kept.
    ``flatfile_matched`` tells whether the run had a flatfile ``avg_`` row.

    Args:
        path: The output directory.

    Returns:
        One row per run (what ``flashpoc parse vdbench OUTDIR`` prints); empty when vdbench
        started no run and nothing shows a failure.

    Raises:
        ParseError: A file does not parse, the flatfile and totals disagree on a run, or the
            run failed (the message is vdbench's, from :func:`vdbench_failure`).
    """
    files = read_output_dir(path)
    parsed = parse_output_dir(files)
    totals = parsed["totals"]
    if not totals:
        failure = vdbench_failure(files, files.get("console.txt"))
        if failure is not None:
            raise ParseError(f"vdbench run in {path} failed:\n{failure}")
        return []
    averages = {row["run_index"]: row for row in parsed["flatfile"] if row["is_avg"]}
    rows = []
    for total in totals:
        row = dict(total)
        flat = averages.get(total["run_index"])
        row["flatfile_matched"] = flat is not None
        if flat is not None:
            if flat.get("run") != total["rd"] or flat.get("interval") != total["interval_label"]:
                raise ParseError(
                    f"flatfile run {total['run_index']} is {flat.get('run')} "
                    f"{flat.get('interval')}, totals.html has {total['rd']} "
                    f"{total['interval_label']}: the files disagree"
                )
            for key, value in flat.items():
                if key in ("tod", "timestamp", "run", "interval", "run_index", "is_avg"):
                    continue
                if FLATFILE_DUPLICATES.get(key) in row:
                    continue
                if key in LOOP_KEYS and row[key] is None:
                    whole = isinstance(value, float) and value.is_integer()
                    row[key] = int(value) if whole else value
                elif key not in row:
                    row[key] = value
        rows.append(row)
    return rows


# --- naming -----------------------------------------------------------------------------------


def report_column_key(upper: str, lower: str) -> str:
    """Return the row key of a report column from its two header labels.

    Args:
        upper: The label above (``i/o``, ``.ReqstdOps...``, ``..mb/sec...``); dots stripped.
        lower: The label below (``rate``, ``resp``, ``read``).
    """
    group = upper.strip(".").lower()
    name = lower.strip(".").lower()
    if (group, name) in SD_HEADER_NAMES:
        return SD_HEADER_NAMES[group, name]
    if group == "cpu%":
        return f"cpu_{_slug(name)}_pct"
    if group == "mb/sec":
        return f"mb_{_slug(name)}_per_s"
    if (group, name) == ("xfer", "size"):
        return "xfer_size_bytes"
    if name == "resp":
        return f"{_slug(group)}_resp_ms"
    if name == "pct":
        return f"{_slug(group)}_pct"
    return f"{_slug(group)}_{_slug(name)}"


def flatfile_column_key(name: str) -> str:
    """Return the row key of a flatfile column (see :func:`parse_flatfile` for the mapping)."""
    low = name.lower()
    if low in FLATFILE_NAMES:
        return FLATFILE_NAMES[low]
    parts = low.split("_")
    if parts[0] == "cpu" and len(parts) > 1:
        return f"{_slug(low)}_pct"
    if "resp" in parts:
        return f"{_slug(low)}_ms"
    if len(parts) == 2 and parts[0] in ("read", "write") and parts[1] in ("max", "std"):
        return f"{low}_ms"
    return _slug(low)


def _slug(text: str) -> str:
    """Return ``text`` as a lower-case identifier (``%`` -> ``pct``, ``/`` -> ``_per_``)."""
    text = text.lower().replace("%", "_pct").replace("/", "_per_")
    return re.sub(r"[^a-z0-9]+", "_", text).strip("_") or "column"


# --- reports (totals, summary, host, slave) -------------------------------------------------


def _parse_report(text: str, name: str, marker: str) -> list[dict[str, Any]]:
    """Parse a report into runs: ``[{rd, run_index, ..., "rows": [parsed lines]}]``."""
    lines = _lines(text, name)
    runs: list[dict[str, Any]] = []
    header: _Header | None = None
    headers: dict[tuple[str, str], _Header] = {}
    recognized = False
    index = 0
    while index < len(lines):
        number = index + 1
        line = _strip_tags(lines[index])
        index += 1
        if marker and marker in line:
            recognized = True
        if not line.strip():
            continue
        starting = _STARTING.search(line)
        if starting:
            context = _run_context(starting, len(runs), name, number)
            runs.append({**context, "rows": [], "last_interval": 0, "averaged": False})
            recognized = True
            continue
        data = _DATA.match(line)
        if data and (data["label"].isdigit() or _LABEL.match(data["label"])):
            if not runs:
                raise ParseError(f"{name} line {number}: data line before any 'Starting RD' line")
            _add_report_row(runs[-1], line, header, name, number)
            continue
        if data is None and _is_header_top(line):
            if index >= len(lines):
                break  # the header's second line is missing: cut off, nothing follows
            bottom = _strip_tags(lines[index])
            key = (line, bottom)
            if key not in headers:
                headers[key] = _Header.parse(line, bottom, name, number)
            header = headers[key]
            index += 1
            recognized = True
            continue
    if not recognized:
        what = f"'{marker}'" if marker else "'Starting RD' lines or a column header"
        raise ParseError(f"{name} is not a vdbench report: expected {what}")
    return runs


class _Header:
    """The columns of a report header: row keys and where each column's values end."""

    def __init__(self, keys: list[str], ends: list[int], report_format: str) -> None:
        self.keys = keys  # one per value column after tod and interval
        self.ends = ends  # end position of each value column in data lines
        self.report_format = report_format

    @classmethod
    def parse(cls, top: str, bottom: str, name: str, number: int) -> _Header:
        """Match the upper labels to the lower ones by position, both lines right-aligned."""
        upper = [(m.start(), m.end(), m.group()) for m in re.finditer(r"\S+", top)]
        lower = [(m.start(), m.end(), m.group()) for m in re.finditer(r"\S+", bottom)]
        position = next(i for i, token in enumerate(upper) if _is_interval(token[2]))
        groups = upper[position + 1 :]
        if not lower or not groups:
            raise ParseError(f"{name} line {number}: incomplete column header")
        shift = upper[-1][1] - lower[-1][1]
        keys: list[str] = []
        for start, end, word in lower:
            best, best_overlap = None, 0
            for g_start, g_end, g_word in groups:
                overlap = min(end, g_end - shift) - max(start, g_start - shift)
                if overlap > best_overlap:
                    best, best_overlap = g_word, overlap
            if best is None:
                raise ParseError(
                    f"{name} line {number + 1}: column {word!r} has no label above it"
                )
            keys.append(report_column_key(best, word))
        if len(set(keys)) != len(keys):
            raise ParseError(f"{name} line {number}: header gives duplicate columns {keys}")
        dotted = upper[position][2].startswith(".")  # '.Interval.' heads file-system reports
        return cls(keys, [end for _, end, _ in lower], "fsd" if dotted else "sd")


_DEFAULT_HEADER = _Header(list(SD_METRIC_KEYS), [], "sd")


def _is_interval(word: str) -> bool:
    """Return True for the ``interval`` / ``.Interval.`` / ``..Interval..`` header label."""
    return word.strip(".").lower() == "interval"


def _is_header_top(line: str) -> bool:
    """Return True if ``line`` is the first line of a report column header."""
    return any(_is_interval(word) for word in line.split()) and "=" not in line


def _add_report_row(
    run: dict[str, Any], line: str, header: _Header | None, name: str, number: int
) -> None:
    """Parse one data line of a report and append it to ``run['rows']`` after checks."""
    tokens = line.split()
    label = tokens[1]
    current = header or _DEFAULT_HEADER
    values = tokens[2:]
    where = f"{name} line {number}"
    if label.isdigit():
        row_type, interval, lo, hi = "interval", int(label), None, None
    else:
        match = _LABEL.match(label)
        assert match is not None
        row_type, interval = match["kind"], label
        lo, hi = int(match["lo"]), int(match["hi"])
        if row_type not in ("avg", "std", "max"):
            raise ParseError(f"{where}: unknown interval label {label!r}")
    if len(values) == len(current.keys):
        cells = dict(zip(current.keys, values))
    elif row_type in ("std", "max") and header is not None and len(values) < len(header.keys):
        cells = _sparse_cells(line, header, where)
    else:
        raise ParseError(
            f"{where}: {len(values)} values, the column header has {len(current.keys)} "
            "(cut or damaged line?)"
            + ("" if header else "; no header seen, vdbench's 14-column order assumed")
        )
    parsed = {key: _number(value, key, where) for key, value in cells.items()}
    last = run["last_interval"]
    averaged = run["averaged"]
    if row_type == "interval":
        if averaged or interval != last + 1:
            expected = "no interval after the average" if averaged else f"interval {last + 1}"
            raise ParseError(
                f"{where}: interval {interval} where {expected} was expected "
                "(lines missing or out of order?)"
            )
        run["last_interval"] = interval
    elif row_type == "avg":
        if averaged:
            raise ParseError(f"{where}: second avg_ line in run {run['run_index']}")
        if last and last != hi:
            raise ParseError(f"{where}: {label} but the last interval was {last}")
        run["averaged"] = True
    elif not averaged:
        raise ParseError(f"{where}: {label} before the run's avg_ line")
    row = {key: run[key] for key in run if key not in ("rows", "last_interval", "averaged")}
    row.update(
        {
            "tod": tokens[0],
            "interval": interval,
            "row_type": row_type,
            "interval_start": lo,
            "interval_end": hi,
            "report_format": current.report_format,
            "_cells": parsed,
        }
    )
    run["rows"].append(row)


def _sparse_cells(line: str, header: _Header, where: str) -> dict[str, str]:
    """Match the values of a ``std_``/``max_`` line with blank fields to columns by position."""
    tokens = [(m.end(), m.group()) for m in re.finditer(r"\S+", line)][2:]
    cells: dict[str, str] = {}
    last = -1
    for end, token in tokens:
        column = min(range(len(header.ends)), key=lambda k: abs(header.ends[k] - end))
        if abs(header.ends[column] - end) > _SPARSE_TOLERANCE or column <= last:
            raise ParseError(f"{where}: value {token!r} is not under a column of the header")
        cells[header.keys[column]] = token
        last = column
    return {key: cells.get(key, "n/a") for key in header.keys}


def _metric_items(parsed: dict[str, Any]) -> dict[str, Any]:
    """Return the SD metric keys (None if absent) followed by the header's other columns."""
    cells = parsed["_cells"]
    items = {key: cells.get(key) for key in SD_METRIC_KEYS}
    items.update({key: value for key, value in cells.items() if key not in items})
    return items


def _extra_loop_keys(context: Mapping[str, Any]) -> dict[str, Any]:
    """Return the loop keys of ``context['loop']`` that are not in :data:`LOOP_KEYS`."""
    return {key: value for key, value in context["loop"].items() if key not in LOOP_KEYS}


def _run_context(match: re.Match[str], run_index: int, name: str, number: int) -> dict[str, Any]:
    """Return the run context from a ``Starting RD=...`` line."""
    rest = match["rest"]
    loop: dict[str, Any] = {}
    loops = re.search(r"For loops:\s*(.*)$", rest)
    if loops:
        rest = rest[: loops.start()]
        text = loops.group(1).strip()
        if text and text != "None":
            for item in text.split():
                key, sep, value = item.partition("=")
                if not sep or not key or not value:
                    raise ParseError(
                        f"{name} line {number}: loop value {item!r} is not key=value"
                    )
                loop[key.lower()] = _loose_number(value)
    rate = re.search(r"I/O rate:\s*([^;]+?)\s*(?:;|$)", rest)
    fwdrate = re.search(r"fwdrate=(\S+?)\.?(?:\s|;|$)", rest)
    if rate:
        printed = rate.group(1).strip()
        setting: Any = {"uncontrolled max": "max", "controlled max": "controlled_max"}.get(
            printed.lower(), _loose_number(printed)
        )
        if isinstance(setting, str) and setting not in ("max", "controlled_max"):
            setting = setting.lower().replace(" ", "_")
    elif fwdrate:
        setting = _loose_number(fwdrate.group(1))
    else:
        setting = None
    elapsed = re.search(r"\belapsed=(\d+)", rest)
    warmup = re.search(r"\bwarmup=(\d+)", rest)
    context: dict[str, Any] = {"rd": match["rd"], "run_index": run_index, "loop": loop}
    for key in LOOP_KEYS:
        context[key] = loop.get(key)
    context.update(_extra_loop_keys(context))
    context["iorate_setting"] = setting
    context["elapsed_s"] = int(elapsed.group(1)) if elapsed else None
    context["warmup_s"] = int(warmup.group(1)) if warmup else None
    context["report_format"] = None
    return context


def _report_kind(text: str) -> str | None:
    """Return ``"host"`` or ``"slave"`` from a report's first lines, else None."""
    head = text[:600]
    if "Host summary report(s) for host=" in head:
        return "host"
    if "Slave summary report for slave=" in head:
        return "slave"
    return None


def _check_section_complete(previous: dict[str, Any] | None, name: str, number: int) -> None:
    """Raise ParseError if the histogram section before ``number`` stops before its max bucket."""
    if previous is not None and previous["bucket_hi_us"] is not None:
        raise ParseError(
            f"{name} line {number}: the {previous['section']!r} section ends at "
            f"{previous['bucket_hi_us']} us, before its 'max' bucket (lines missing?)"
        )


# --- flatfile helpers ---------------------------------------------------------------------


def _flat_value(name: str, token: str, number: int) -> Any:
    """Convert one flatfile field: numbers, ``n/a`` -> None, text columns kept."""
    if token == "n/a":
        return None
    if name == "interval":
        return int(token) if token.isdigit() else token
    if name in FLATFILE_TEXT_COLUMNS:
        return token
    return _number(token, name, f"flatfile.html line {number}")


def _assign_flat_iteration(row: dict[str, Any], state: dict[str, Any], number: int) -> None:
    """Advance ``state['run_index']`` when ``row`` starts a new loop iteration; check order."""
    interval = row.get("interval")
    if interval is None or (not isinstance(interval, int) and not _LABEL.match(str(interval))):
        raise ParseError(f"flatfile.html line {number}: Interval {interval!r} is not a number "
                         "or a label like avg_2-10")
    last = state["last"]
    if isinstance(interval, int):
        new = (
            state["closed"]
            or last is None
            or row.get("run") != state["run"]
            or interval == 1
            or any(row.get(key) != last.get(key) for key in ("threads", "rdpct", "reqrate"))
        )
        if new:
            if interval != 1:
                raise ParseError(
                    f"flatfile.html line {number}: a new run starts at interval {interval}, "
                    "expected 1 (lines missing?)"
                )
            state["run_index"] += 1
            state["closed"] = False
        elif interval != last["interval"] + 1:
            raise ParseError(
                f"flatfile.html line {number}: interval {interval} follows "
                f"{last['interval']} (lines missing or out of order?)"
            )
        state["run"] = row.get("run")
        state["last"] = row
        return
    match = _LABEL.match(interval)
    assert match is not None
    if match["kind"] != "avg":
        return  # other labels belong to the current iteration
    if state["closed"] or last is None or row.get("run") != state["run"]:
        state["run_index"] += 1  # an average without interval lines
    elif last["interval"] != int(match["hi"]):
        raise ParseError(
            f"flatfile.html line {number}: {interval} but the last interval was "
            f"{last['interval']}"
        )
    state["run"] = row.get("run")
    state["last"] = None
    state["closed"] = True


def _is_label(value: Any, kind: str) -> bool:
    """Return True if ``value`` is an interval label of ``kind`` (``avg``)."""
    return isinstance(value, str) and value.startswith(f"{kind}_")


# --- failures and errorlog ----------------------------------------------------------------


def _failure_messages(text: str) -> list[str] | None:
    """Return vdbench's message lines before the first Java exception, or None if none."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    position = next((i for i, line in enumerate(lines) if _EXCEPTION.match(line)), None)
    if position is None:
        return None
    stamped: list[str | None] = []  # message text, None for a blank time-stamped line
    for line in reversed(lines[:position]):
        match = _STAMP.match(line.rstrip())
        if match is None:
            break
        message = (match["msg"] or "").strip()
        stamped.append(message or None)
    stamped.reverse()
    groups: list[list[str]] = []
    current: list[str] = []
    framed = False
    for message in stamped:  # groups of lines between blank time-stamped lines
        if message is None:
            if current and framed:
                groups.append(current)
            current, framed = [], True
        else:
            current.append(message)
    if current and framed:
        groups.append(current)
    messages = [
        line for group in groups for line in group if not line.startswith("killCommand:")
    ]
    if not messages:
        exception = lines[position]
        messages = [exception.split(":", 1)[1].strip() if ":" in exception else exception]
    return messages


def _status_lines(text: str) -> list[str]:
    """Return status.html's steps (``Starting slaves``...), tab-separated parts joined."""
    steps = []
    for line in _plain(text).split("\n"):
        if "\t" not in line or line.startswith("*"):
            continue
        parts = [part.strip() for part in line.split("\t")[1:] if part.strip()]
        if parts:
            steps.append(" ".join(parts))
    return steps


def _errorlog_lines(text: str) -> list[str]:
    """Return errorlog.html's lines after its 'Error log. If there ...' preamble."""
    lines = _plain(text).split("\n")
    for index, line in enumerate(lines):
        if line.startswith("Error log."):
            return [entry.rstrip() for entry in lines[index + 1 :] if entry.strip()]
    return []


# --- text helpers -------------------------------------------------------------------------


def _lines(text: str, name: str) -> list[str]:
    """Split a file's text into lines; refuse non-text, empty and cut-off text."""
    if not isinstance(text, str):
        raise ParseError(f"{name} must be text (str), got {type(text).__name__}")
    if not text.strip():
        raise ParseError(f"{name} is empty: expected vdbench output")
    if "\x00" in text:
        raise ParseError(f"{name} contains NUL bytes: not a vdbench text report")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines[-1].strip():
        raise ParseError(
            f"{name} ends in the middle of a line ({lines[-1][-60:]!r}): the file looks cut "
            "off, and its last number could be cut short"
        )
    return lines[:-1]


def _strip_tags(line: str) -> str:
    """Return ``line`` without HTML tags (a ``<`` followed by a space, as in histograms, stays)."""
    return _TAG.sub("", line) if "<" in line else line


def _plain(text: str) -> str:
    """Return ``text`` with normalized line ends and no HTML tags."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return "\n".join(_strip_tags(line) for line in text.split("\n"))


def _number(token: str, key: str, where: str) -> int | float | None:
    """Return a printed number as int or float (``n/a`` -> None), else raise ParseError."""
    if token == "n/a":
        return None
    if _INT.match(token):
        return int(token)
    if not _FLOAT.match(token):
        raise ParseError(f"{where}: {key} is {token!r}, not a number")
    return float(token)


def _loose_number(token: str) -> Any:
    """Return ``token`` as int or float when it is a plain number, else unchanged."""
    if _INT.match(token):
        return int(token)
    if re.match(r"^[-+]?\d*\.\d+$", token):
        return float(token)
    return token


def _ms_to_us(text: str) -> int | float:
    """Convert a printed millisecond bound (``0.020``) to microseconds exactly (20)."""
    try:
        value = Decimal(text) * 1000
    except InvalidOperation:  # pragma: no cover - the regex admits digits only
        raise ParseError(f"histogram bound {text!r} is not a number") from None
    return int(value) if value == value.to_integral_value() else float(value)


def _decode(data: bytes) -> str:
    """Decode a vdbench file: UTF-8 (BOM aware), UTF-16 with BOM, GB18030, else Latin-1."""
    if data.startswith(codecs.BOM_UTF8):
        text = data[len(codecs.BOM_UTF8) :].decode("utf-8", errors="replace")
    elif data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        text = data.decode("utf-16", errors="replace")
    else:
        for encoding in ("utf-8", "gb18030", "latin-1"):
            try:
                text = data.decode(encoding)
                break
            except UnicodeDecodeError:
                continue
    return text.replace("\r\n", "\n").replace("\r", "\n")

"""Parse vdbench output directories (totals, summary, flatfile, histograms) into tidy rows.

Pure functions: text in, rows (dicts) out. The only file reading is :func:`read_output_dir`
(and :func:`parse_vdbench_dir`, which calls it); every problem with the input raises
:class:`flashpoc.core.errors.ParseError` naming the file and what was expected.

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
may be cut short. A cut exactly at a line end parses to the rows before the cut; only
:func:`parse_output_dir`, which has the other files, can tell such a cut.

Damage is refused rather than read as another number: values are unsigned and without
exponent, tags are blanked (not removed, which would join a number's halves), an SD header
label that is not vdbench's, a line with numbers that is neither data nor header, and an
unknown histogram section are errors. :func:`parse_output_dir` then checks the files against
each other (every number that vdbench prints twice, every run that each file lists), so that
a damaged or cut output set is refused, naming the file and what disagrees, or gives the
undamaged numbers: never another number, never a run dropped unsaid.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Mapping, Sequence
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from flashpoc.core.damage import DAMAGED, Loss
from flashpoc.core.errors import ParseError

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
"""Histogram section titles (lower-cased, without the colon) and their ``direction``; any
other title is refused (a damaged title would file its buckets under no direction)."""

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

_TAG = re.compile(  # the tags vdbench writes (and common HTML ones); no other '<...>' is a tag
    r"<\s*/?\s*(?:a|b|i|u|p|pre|title|br|hr|html|head|body|font|center|h[1-6])(?:\s[^<>]*)?\s*/?>",
    re.IGNORECASE,
)
_STARTING = re.compile(r"Starting RD=(?P<rd>[^;\s]+)(?P<rest>.*)$")
_DATA = re.compile(r"^\s*\d{1,2}:\d{2}:\d{2}(?:\.\d+)?\s+(?P<label>\S+)(?:\s|$)")
_LABEL = re.compile(r"^(?P<kind>[a-z]+)_(?P<lo>\d+)-(?P<hi>\d+)$")
_INT = re.compile(r"^[-+]?\d+$")
_UNSIGNED_INT = re.compile(r"^\d+$")
_UNSIGNED_FLOAT = re.compile(r"^(?:\d+\.?\d*|\.\d+)$")
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
    return _totals_rows(_parse_report(text, "totals.html", marker="Run totals"))


def _totals_rows(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows of :func:`parse_totals` from totals.html's runs."""
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
    return _summary_rows(_parse_report(text, name, marker="summary report"))


def _summary_rows(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows of :func:`parse_summary` from a report's runs."""
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
    return _parse_flatfile(text)[0]


def _parse_flatfile(text: str) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """Return the rows of :func:`parse_flatfile` and, for each, its fields as printed."""
    lines = _lines(text, "flatfile.html")
    header: list[str] | None = None
    names: list[str] = []
    rows: list[dict[str, Any]] = []
    printed: list[dict[str, str]] = []
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
        printed.append(dict(zip(names, tokens)))
    if header is None and not saw_vdbench:
        raise ParseError("flatfile.html has no column header: expected vdbench's flatfile")
    return rows, printed


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
        ParseError: Empty or foreign text, cut mid-line, a section title that is not one of
            :data:`HISTOGRAM_SECTIONS`, or a bucket line that does not follow the previous one.
    """
    return _parse_histogram(text, name)[0]


def _parse_histogram(text: str, name: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Return the rows of :func:`parse_histogram` and the context of every run (with or
    without statistics), in file order. Long because it is one pass over the lines, each kind
    (a run's start, a section's title, a table's header, a bucket) taken in turn with its checks."""
    lines = _lines(text, name)
    runs: list[dict[str, Any]] = []
    run: dict[str, Any] | None = None
    run_index = -1
    section: str | None = None
    in_table = False
    rows: list[dict[str, Any]] = []
    shares: list[tuple[int, str]] = []
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
            runs.append(run)
            section, in_table, previous, sections = None, False, None, set()
            recognized = True
            continue
        if not stripped:
            continue
        if stripped.endswith(":") and not _BUCKET.match(line) and "min(ms)" not in stripped:
            if run is None:
                continue  # 'Link to Run Definitions:' and other preamble
            _check_section_complete(previous, name, number)
            section = _histogram_section(stripped, sections, run_index, name, number)
            in_table, previous = False, None
            continue
        if stripped.startswith("min(ms)"):
            if run is None or section is None:
                raise ParseError(f"{name} line {number}: histogram header before a run/section")
            in_table = True
            continue
        if not in_table:
            if _BUCKET.match(line):
                raise ParseError(f"{name} line {number}: a bucket line outside a table (its section's "
                                 "'min(ms) < max(ms)' header or title lost?)")
            continue
        bucket = _BUCKET.match(line)
        if bucket is None:
            if stripped.startswith("No statistics generated"):
                continue
            raise ParseError(
                f"{name} line {number}: expected a bucket line 'min < max count % cum%', "
                f"got {stripped[:60]!r}"
            )
        assert run is not None and section is not None
        row = _histogram_row(bucket, run, section, previous, f"{name} line {number}")
        rows.append(row)
        shares.append((number, bucket["pct"]))
        previous = row
        if row["bucket_hi_us"] is None:
            in_table = False
    if not recognized:
        raise ParseError(f"{name} is not a vdbench histogram: no 'response time histogram' title")
    _check_whole(rows, shares, name, section)
    return rows, runs


def _check_whole(rows: Sequence[Mapping[str, Any]], shares: Sequence[tuple[int, str]], name: str,
                 section: str | None) -> None:
    """Refuse a histogram whose last section (``section``, None when none is open) ends before its
    max bucket (cut off: vdbench writes a run's histogram whole), or with a bucket whose count is
    not its printed share (%, ``shares``: line number and the share as printed, one per row) of its
    section's I/Os to the precision printed: vdbench prints every count twice, so a changed count
    (or a bucket line lost) is told."""
    last = rows[-1] if rows else None
    if section is not None and (last is None or last["section"] != section or last["bucket_hi_us"] is not None):
        run = "" if last is None else f" of run {last['run_index']}"
        raise ParseError(f"{name} ends in the {section!r} section{run}, before its 'max' bucket (cut off?): vdbench "
                         "writes a run's histogram whole")
    totals: dict[tuple[int, str], int] = {}
    for row in rows:
        totals[(row["run_index"], row["section"])] = totals.get((row["run_index"], row["section"]), 0) + row["count"]
    for row, (number, printed) in zip(rows, shares):
        total = totals[(row["run_index"], row["section"])]
        share = 100.0 * row["count"] / total if total else 0.0
        if abs(share - float(printed)) > _half_unit(printed) + 1e-9:
            raise ParseError(f"{name} line {number}: {row['count']:,} I/Os are {share:.4f} % of the section's "
                             f"{total:,}, vdbench printed {printed} % (a damaged count, or a bucket line lost?)")


def _histogram_section(title: str, sections: set[str], run_index: int, name: str, number: int) -> str:
    """The section a ``title:`` line opens in run ``run_index``, added to the run's ``sections``.

    Raises:
        ParseError: a title that is not one of :data:`HISTOGRAM_SECTIONS`, or one that cannot
            follow the run's sections (a repeat, or an ``Only ...`` section beside another).
    """
    section = title[:-1].strip()
    if section.lower() not in HISTOGRAM_SECTIONS:
        raise ParseError(f"{name} line {number}: unknown histogram section {section!r} "
                         f"(vdbench's are {sorted(set(HISTOGRAM_SECTIONS))}; damaged?)")
    only = [title for title in (*sections, section) if title.lower().startswith("only ")]
    if section in sections or (only and sections):
        raise ParseError(
            f"{name} line {number}: {section!r} cannot follow {sorted(sections)} in run "
            f"{run_index} (is a 'Starting RD' line missing?)"
        )
    sections.add(section)
    return section


def _histogram_row(bucket: re.Match, run: Mapping[str, Any], section: str, previous: Mapping[str, Any] | None,
                   where: str) -> dict[str, Any]:
    """The row of one bucket line (at ``where``) of ``section`` in ``run``.

    Raises:
        ParseError: a first bucket that does not start at 0, a bucket that does not start where
            the ``previous`` one ended, or a cumulative % that decreases.
    """
    lo_us = _ms_to_us(bucket["lo"])
    hi_us = None if bucket["hi"] == "max" else _ms_to_us(bucket["hi"])
    pct, cum = float(bucket["pct"]), float(bucket["cum"])
    if previous is None and lo_us != 0:
        raise ParseError(f"{where}: the first bucket starts at {bucket['lo']} ms, "
                         "expected 0 (lines missing?)")
    if previous is not None:
        if previous["bucket_hi_us"] is None or previous["bucket_hi_us"] != lo_us:
            raise ParseError(
                f"{where}: bucket starts at {bucket['lo']} ms but the previous "
                "one did not end there"
            )
        if cum + 1e-9 < previous["cum_pct"]:
            raise ParseError(f"{where}: cumulative % decreases")
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
    return row



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


def parse_output_dir(
    files: Mapping[str, str], expected_runs: Mapping[str, Sequence[int]] | None = None
) -> dict[str, Any]:
    """Parse the files of one vdbench output directory and check them against each other.

    Args:
        files: File name -> text, as from :func:`read_output_dir`. ``totals.html`` is
            required; other files are parsed when present.
        expected_runs: rd name -> the thread counts of its ``forthreads=``, as the parmfile
            that was run has them (the workbook passes its own). Each such rd must have run
            exactly these counts in this order, once or once per value of its outer loops
            (``forxfersize``...); other rds (vdbench's own ``SD_format``, curve steps) are
            not checked against it.

    Returns:
        ``{"totals": parse_totals rows, "summary": parse_summary rows, "flatfile":
        parse_flatfile rows, "hosts": {host: rows}, "slaves": {slave: rows},
        "histograms": {name: rows}, "errors": [...], "opened": {...}, "unfinished": [...]}``.
        Host and slave reports are found by their first line (``Host summary report(s) for
        host=`` / ``Slave summary report for slave=``) and keyed by file name without
        ``.html`` (``hd1``, ``hd1-0``, ``localhost-0``); they have summary.html's format.
        Histograms are keyed ``histogram`` (histogram.html) or by the name before
        ``.histogram.html`` (``sd1``, ``hd1``, ``hd1-0``, ``wd1``). ``errors`` holds the lines
        vdbench wrote to errorlog.html after its preamble (data validation and I/O errors;
        empty for a clean run). ``opened`` is :func:`open_modes`. ``unfinished`` names the
        runs that started but that no file has an average of (vdbench stopped during them),
        e.g. ``["rd1 threads=16"]``; they have no row. ``missing`` names the files vdbench wrote
        that ``files`` lacks (:func:`missing_files`), and ``damaged`` (only when some are, or a
        run has no histogram: :func:`runs_without_histogram`) says so, as :mod:`flashpoc.core.damage`
        does: what they held is not in the result.

    Raises:
        ParseError: totals.html is missing, a file fails to parse, or the files disagree
            (the message names the files and what differs): every file must hold the same
            runs (rd, loop values, rate, elapsed) in the same order, and the same ones
            finished; totals.html's ``avg_`` lines must be summary.html's as printed, the
            logfile's copy of every summary line the same, and flatfile.html's ``avg_`` rows
            the same numbers to the precision printed; a host or slave report that
            summary.html or a host report links to must be one; and with ``expected_runs``,
            a run the parmfile asked for that is missing; a histogram bucket's count that is not
            its printed share, a histogram section cut off before its max bucket. A damaged or
            cut file is refused rather than a run lost or a number changed.
    """
    if "totals.html" not in files:
        raise ParseError(
            f"no totals.html among {len(files)} files: not a vdbench output directory"
        )
    result, reports, flat_printed, histogram_runs = _parse_files(files)
    flat_rows = result["flatfile"]
    _check_report_kinds(files)
    logged = _logfile_runs(files["logfile.html"]) if "logfile.html" in files else None
    result["unfinished"] = _check_runs(files, reports, logged, flat_rows, histogram_runs)
    _check_numbers(reports, logged, flat_rows, flat_printed)
    if expected_runs is not None:
        _check_expected_runs(result["totals"], result["unfinished"], expected_runs)
    return _name_losses(result, files)


def _name_losses(result: dict[str, Any], files: Mapping[str, str]) -> dict[str, Any]:
    """``result`` with its ``missing`` files (:func:`missing_files`) and, when some are or a run
    has no histogram (:func:`runs_without_histogram`), its ``damaged`` text."""
    missing = missing_files(files)
    result["missing"] = [loss.file for loss in missing]
    bare = [Loss("histogram.html", f"no bucket of run {index} (cut off, or vdbench wrote none)")
            for index in runs_without_histogram(result)]
    if missing or bare:
        result[DAMAGED] = "; ".join(loss.text() for loss in [*missing, *bare])
    return result


def runs_without_histogram(result: Mapping[str, Any]) -> list[int]:
    """The runs of a parsed output directory (:func:`parse_output_dir`) that did I/O (their
    totals.html average) but have no bucket in histogram.html: its end cut off, or a run vdbench
    wrote no histogram for (one that ended at its files' end, its own format run)."""
    if "histogram" not in result["histograms"]:
        return []
    have = {row["run_index"] for row in result["histograms"]["histogram"]}
    return [total["run_index"] for total in result["totals"] if total["run_index"] not in have
            and (total.get("iops") if total.get("iops") is not None else total.get("reqstdops_rate"))]


READ_FILES = ("totals.html", "summary.html", "flatfile.html", "histogram.html", "logfile.html", "status.html",
              "errorlog.html")
"""The files of an output directory that :func:`parse_output_dir` reads by name (besides the host and
slave reports, the ``*.histogram.html`` histograms and the slaves' ``*.stdout.html``)."""


WRITTEN = ("summary.html", "flatfile.html", "histogram.html", "logfile.html", "errorlog.html")
"""The files vdbench 5.04.01 to 5.04.07 writes with every totals.html, whatever the run."""


def missing_files(files: Mapping[str, str]) -> list[Loss]:
    """The files vdbench wrote that :func:`parse_output_dir` would read but ``files`` lacks (removed
    or not copied): those it writes with every totals.html (:data:`WRITTEN`) and those another file
    links to (summary.html its host reports, a host report its slaves' reports and stdout, a report
    its histogram, ...); each a :class:`~flashpoc.core.damage.Loss` naming the file and why it should be there."""
    reports = set(_links(files.get("summary.html", ""), "Link to HOST reports:"))
    reports |= {name for host in files if host.endswith(".html") and _report_kind(files[host]) == "host"
                for name in _links(files[host], "Link to slave summary report:")}
    linked = {name: "vdbench writes it with totals.html" for name in WRITTEN if name not in files} if (
        "totals.html" in files) else {}
    for name in sorted(files):
        if name.endswith(".html"):
            for target in _HREF.findall(files[name]):
                read = target in READ_FILES or target in reports or target.endswith((".histogram.html", ".stdout.html"))
                if read and target not in files:
                    linked.setdefault(target, f"{name} links it")
    return [Loss(name, f"missing ({why})") for name, why in sorted(linked.items())]


def _parse_files(files: Mapping[str, str]) -> tuple[dict[str, Any], dict[str, list[dict[str, Any]]],
                                                     list[dict[str, str]], dict[str, list[dict[str, Any]]]]:
    """Parse each file of an output directory on its own, before they are checked against each
    other: the result of :func:`parse_output_dir` (``unfinished`` still empty), the parsed summary
    reports by file name, flatfile.html's values as printed, and the runs of each histogram
    (histogram.html and every ``*.histogram.html``) by file name."""
    reports = {"totals.html": _parse_report(files["totals.html"], "totals.html", marker="Run totals")}
    flat_rows, flat_printed = (
        _parse_flatfile(files["flatfile.html"]) if "flatfile.html" in files else ([], [])
    )
    result: dict[str, Any] = {
        "totals": _totals_rows(reports["totals.html"]),
        "summary": [],
        "flatfile": flat_rows,
        "hosts": {},
        "slaves": {},
        "histograms": {},
        "errors": _errorlog_lines(files.get("errorlog.html", "")),
        "opened": open_modes(files),
        "unfinished": [],
    }
    histogram_runs: dict[str, list[dict[str, Any]]] = {}
    for name in sorted(files):
        text = files[name]
        if not name.endswith(".html"):
            continue
        if name == "summary.html":
            reports[name] = _parse_report(text, name, marker="summary report")
            result["summary"] = _summary_rows(reports[name])
        elif name == "histogram.html":
            result["histograms"]["histogram"], histogram_runs[name] = _parse_histogram(text, name)
        elif name.endswith(".histogram.html"):
            result["histograms"][name[: -len(".histogram.html")]], histogram_runs[name] = _parse_histogram(text, name)
        else:
            kind = _report_kind(text)
            if kind is not None:
                reports[name] = _parse_report(text, name, marker="summary report")
                result[f"{kind}s"][name[: -len(".html")]] = _summary_rows(reports[name])
    return result, reports, flat_printed, histogram_runs


OPENING_LINE = re.compile(r"Opening sd=([^,;\s<]+),lun=([^;<]+); write: (true|false)")


def open_modes(files: Mapping[str, str]) -> dict[str, bool]:
    """How vdbench opened each storage definition: sd name -> True if any slave opened it
    for writing (``Opening sd=sd1,lun=...; write: true`` in ``*.stdout.html``), False if every
    opening was read-only. vdbench opens an sd read-only only when no workload of the
    parmfile writes to it. Empty when no slave stdout file is there.

    Raises:
        ParseError: a line that has a part of an opening line (``Opening sd=``, ``; write: ``,
            ``OpenFlags:``) but not the whole (damaged: a lost ``write: true`` would read as
            read-only).
    """
    modes: dict[str, bool] = {}
    for name in sorted(files):
        if name.endswith(".stdout.html"):
            for number, line in enumerate(files[name].split("\n"), start=1):
                if not any(part in line for part in ("Opening sd=", "; write: ", "OpenFlags:")):
                    continue
                match = OPENING_LINE.search(line)
                if match is None:
                    raise ParseError(f"{name} line {number}: a damaged 'Opening sd=...; write: ...' "
                                     f"line ({line.strip()[:80]!r})")
                sd, _lun, write = match.groups()
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
        (``console.txt`` if the run's console was saved there). A point folder of a campaign
        (``points/<phase>/<point>/``) holds the output directory flattened (:func:`stored_output_files`):
        its files are read under their own names again, with the run's ``console.txt``.

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
    if any(name.startswith(STORED_PREFIX) for name in files):  # a stored point: its output/, and its console
        files = {name[len(STORED_PREFIX):] if name.startswith(STORED_PREFIX) else name: text
                 for name, text in files.items() if name.startswith(STORED_PREFIX) or name == "console.txt"}
    return files


STORED_PREFIX = "output__"
"""How a stored point keeps vdbench's output directory: each file ``output/<name>`` as ``output__<name>``
beside the point's own files (its row, parmfile, console, intervals)."""


def stored_output_files(files: dict[str, str]) -> dict[str, str]:
    """vdbench's output directory (name -> text) as a stored point keeps it (:data:`STORED_PREFIX`)."""
    return {f"{STORED_PREFIX}{name}": text for name, text in files.items()}


def parse_vdbench_dir(path: str | Path) -> list[dict[str, Any]]:
    """Parse an output directory into one row per run: totals enriched from the flatfile
    (:func:`vdbench_rows` of its files, :func:`read_output_dir`).

    Args:
        path: The output directory.

    Returns:
        One row per run (what ``flashpoc parse vdbench OUTDIR`` prints); empty when vdbench
        started no run and nothing shows a failure.

    Raises:
        ParseError: as :func:`vdbench_rows` says.
    """
    return vdbench_rows(read_output_dir(path), str(path))


def vdbench_rows(files: Mapping[str, str], where: str) -> list[dict[str, Any]]:
    """One row per run of an output directory's ``files`` (:func:`read_output_dir`; ``where``
    says where they are, for messages): totals enriched from the flatfile.

    Each :func:`parse_totals` row gets, from the flatfile's ``avg_`` row of the same run
    (same ``run_index``, checked against ``rd`` and the ``avg_`` label): the loop keys that
    are None (the requested ``threads``, ``xfersize``, ``rdpct``, ``seekpct``... of a run
    without loops; whole numbers as int), and the flatfile columns the row does not have
    (``reqrate``, ``lunsize_gb``, ``dedupratio``, ``cpu_user_pct``, ``cpu_wait_pct``, the fsd
    ``*_std``/``*_max`` columns...), except those in :data:`FLATFILE_DUPLICATES`. The row's
    own values (e.g. ``queue_depth`` as printed in totals.html) are kept.
    ``flatfile_matched`` tells whether the run had a flatfile ``avg_`` row. A run that
    vdbench did not finish (:func:`parse_output_dir`'s ``unfinished``) is refused. A file the
    directory lacks (:func:`missing_files`, e.g. a removed flatfile.html) is named in every row's
    ``damaged`` column.

    Raises:
        ParseError: A file does not parse, the files disagree (see :func:`parse_output_dir`),
            or the run failed or stopped (the message is vdbench's, from
            :func:`vdbench_failure`, where it has one, its lines joined by `` / ``).
    """

    def refuse_a_failed_run() -> None:
        failure = vdbench_failure(files, files.get("console.txt"))
        if failure is not None:  # one line: vdbench's lines joined
            raise ParseError(f"vdbench run in {where} failed: {' / '.join(failure.splitlines())}")

    try:
        parsed = parse_output_dir(files)
    except ParseError:
        refuse_a_failed_run()  # a failed run's files may well disagree: say why it failed
        raise
    totals = parsed["totals"]
    if not totals or parsed["unfinished"]:
        refuse_a_failed_run()
    if parsed["unfinished"]:
        raise ParseError(f"vdbench in {where} did not finish {', '.join(parsed['unfinished'])}: "
                         "no file has its average")
    if not totals:
        return []
    averages = {row["run_index"]: row for row in parsed["flatfile"] if row["is_avg"]}
    damaged = {DAMAGED: parsed[DAMAGED]} if parsed.get(DAMAGED) else {}
    return [{**_with_flatfile(total, averages.get(total["run_index"])), **damaged} for total in totals]


def _with_flatfile(total: Mapping[str, Any], flat: Mapping[str, Any] | None) -> dict[str, Any]:
    """A totals row with what the flatfile's ``avg_`` row of its run adds (see
    :func:`parse_vdbench_dir`) and ``flatfile_matched``."""
    row = dict(total)
    row["flatfile_matched"] = flat is not None
    if flat is not None:  # the same run: parse_output_dir checked rd, label and numbers
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
    return row


# --- cross-checks between the files of one output directory --------------------------------

FLATFILE_TWINS: dict[str, dict[str, str]] = {
    "sd": {
        "rate": "iops", "mb_per_s": "mb_per_s", "bytes_per_io": "bytes_per_io",
        "read_pct": "read_pct", "resp_ms": "resp_ms", "read_resp_ms": "read_resp_ms",
        "write_resp_ms": "write_resp_ms", "resp_max_ms": "resp_max_ms",
        "read_max_ms": "read_resp_max_ms", "write_max_ms": "write_resp_max_ms",
        "resp_std_ms": "resp_stddev_ms", "queue_depth": "queue_depth",
    },
    "fsd": {
        "rate": "reqstdops_rate", "resp_ms": "reqstdops_resp_ms", "mb_per_s": "mb_total_per_s",
        "read_rate": "read_rate", "read_resp_ms": "read_resp_ms",
        "write_rate": "write_rate", "write_resp_ms": "write_resp_ms",
        "mb_read_per_s": "mb_read_per_s", "mb_write_per_s": "mb_write_per_s",
    },
}
"""flatfile column -> the totals.html column that prints the same average (by report format);
:func:`parse_output_dir` checks that they agree to the precision both print. SD reports round
to the last digit printed, file-system reports cut the digits off (``1104872`` for
1104872.7091), so the latter may differ by one unit. The CPU columns are not the same
average (flatfile ``cpu_used`` 20.06 where totals.html prints 63.3) and are not compared."""

#: logfile.html: vdbench spread an SD's threads over the slaves and left this one without any
_REMOVED_SLAVE = re.compile(r"Workload removed, not enough threads for slave=([^,\s]+),")
_HREF = re.compile(r'<A HREF="([^"#][^"]*)">', re.IGNORECASE)


def _describe(run: Mapping[str, Any]) -> str:
    """``rd1 threads=16`` (the rd and its loop values) for messages."""
    loop = " ".join(f"{key}={value}" for key, value in run.get("loop", {}).items())
    return f"{run['rd']} {loop}".strip()


def _runs_text(runs: Sequence[Mapping[str, Any]]) -> str:
    """``3 runs (rd1 threads=1, ..., rd1 threads=4)`` for messages."""
    if not runs:
        return "no run"
    names = [_describe(run) for run in runs]
    shown = names if len(names) <= 3 else [names[0], "...", names[-1]]
    return f"{len(runs)} run{'s' if len(runs) != 1 else ''} ({', '.join(shown)})"


def _same_run(ref: Mapping[str, Any], other: Mapping[str, Any], level: str) -> bool:
    """Whether two files' runs are the same run: ``report`` compares everything a
    ``Starting RD`` line prints, ``status`` the rd and loop values, ``flatfile`` the rd and
    the thread count (when totals.html prints one)."""
    if ref["rd"] != other["rd"]:
        return False
    if level == "flatfile":
        threads, printed = ref["loop"].get("threads"), other.get("threads")
        return threads is None or printed is None or float(printed) == threads
    keys = ("loop",) if level == "status" else ("loop", "iorate_setting", "elapsed_s", "warmup_s")
    return all(ref[key] == other[key] for key in keys)


def _check_runs(
    files: Mapping[str, str],
    reports: Mapping[str, list[dict[str, Any]]],
    logged: list[dict[str, Any]] | None,
    flat_rows: list[dict[str, Any]],
    histogram_runs: Mapping[str, list[dict[str, Any]]],
) -> list[str]:
    """Check that every file holds the same runs, finished alike; return the unfinished ones.

    A file may stop before the runs that no file finished (vdbench stopped during them);
    any other difference is refused, naming the file that differs from most others (on a tie,
    from totals.html, or from the one with more runs finished: a cut loses runs) and the run.
    """
    sources = _run_sources(files, reports, logged, flat_rows, histogram_runs)
    runs_of = {name: runs for name, _, runs, _ in sources}
    longest = max((runs for _, level, runs, _ in sources if level == "report"), key=len)
    for index in range(len(longest)):
        held = [(name, level, runs[index]) for name, level, runs, _ in sources if index < len(runs)]
        ref = _majority([run for _, level, run in held if level == "report"], _run_identity)
        agree = [name for name, level, run in held if _same_run(ref, run, level)]
        for name, level, run in held:
            if not _same_run(ref, run, level):
                raise ParseError(
                    f"{name} has run {index} as {_run_text(run, ref, level)}, {_names(agree)} as "
                    f"{_run_text(ref, run, level)} (a damaged 'Starting RD' line?)"
                )
    done_lists = [(name, tuple(i for i, flag in enumerate(done) if flag))
                  for name, _, _, done in sources if done is not None]
    finished = _majority([done for _, done in done_lists], lambda done: done, prefer=len)
    agree = [name for name, done in done_lists if done == finished]
    for name, done in done_lists:
        if done != finished:
            raise ParseError(
                f"{name} has an average for {_runs_text([runs_of[name][i] for i in done])}, "
                f"{_names(agree)} for {_runs_text([longest[i] for i in finished])}: {name} looks "
                "cut off or damaged"
            )
    for name, _, runs, _ in sources:
        if finished and len(runs) <= finished[-1]:
            raise ParseError(
                f"{name} has {_runs_text(runs)}, {_names(agree)} an average for "
                f"{_runs_text([longest[i] for i in finished])}: {name} looks cut off"
            )
    return [_describe(run) for index, run in enumerate(longest) if index not in finished]


def _run_sources(
    files: Mapping[str, str],
    reports: Mapping[str, list[dict[str, Any]]],
    logged: list[dict[str, Any]] | None,
    flat_rows: list[dict[str, Any]],
    histogram_runs: Mapping[str, list[dict[str, Any]]],
) -> list[tuple[str, str, list[dict[str, Any]], list[bool] | None]]:
    """The files :func:`_check_runs` compares: ``(file name, level of :func:`_same_run`, its runs,
    whether each run has an average (None for a file that prints no averages))``."""
    sources: list[tuple[str, str, list[dict[str, Any]], list[bool] | None]] = []
    for name in ("totals.html", "summary.html"):
        if name in reports:
            sources.append((name, "report", reports[name], [run["averaged"] for run in reports[name]]))
    if logged is not None:
        sources.append(("logfile.html", "report", logged, [run["averaged"] for run in logged]))
    for name, runs in sorted(histogram_runs.items()):  # every histogram (of the run, an sd, a host...) lists every run
        sources.append((name, "report", runs, None))
    if "status.html" in files:
        sources.append(("status.html", "status", _status_runs(files["status.html"]), None))
    if "flatfile.html" in files:
        flat_runs: list[dict[str, Any]] = []
        for row in flat_rows:
            if row["run_index"] == len(flat_runs):
                flat_runs.append({"rd": row.get("run"), "threads": row.get("threads"),
                                  "loop": {"threads": row.get("threads")}})
        averaged = {row["run_index"] for row in flat_rows if row["is_avg"]}
        sources.append(("flatfile.html", "flatfile", flat_runs,
                        [index in averaged for index in range(len(flat_runs))]))
    idle = set(_REMOVED_SLAVE.findall(files.get("logfile.html", "")))
    for name, runs in reports.items():  # host and slave reports
        if name not in ("totals.html", "summary.html"):
            # a slave vdbench gave no thread of a run (and a host whose slaves all got none)
            # starts the run and reports no interval: that run counts as finished alike
            report = name.removesuffix(".html")
            given_none = report in idle or (bool(idle) and any(s.rsplit("-", 1)[0] == report for s in idle))
            sources.append((name, "report", runs, [run["averaged"] or (given_none and not run["last_interval"])
                                                   for run in runs]))
    return sources


def _majority(values: Sequence[Any], key: Any, prefer: Any = lambda value: 0) -> Any:
    """The value most files hold (by ``key``); on a tie the one ``prefer`` ranks higher, else
    the first (totals.html's)."""
    counts: dict[Any, int] = {}
    for value in values:
        counts[key(value)] = counts.get(key(value), 0) + 1
    return max(values, key=lambda value: (counts[key(value)], prefer(value)))


def _run_identity(run: Mapping[str, Any]) -> tuple:
    """What a ``Starting RD`` line says of a run, hashable."""
    return (run["rd"], tuple(run["loop"].items()), run["iorate_setting"], run["elapsed_s"], run["warmup_s"])


def _run_text(run: Mapping[str, Any], other: Mapping[str, Any], level: str) -> str:
    """``'rd1 threads=4'``, with the rate, elapsed and warmup when only they differ."""
    text = repr(_describe(run))
    if level == "report" and _describe(run) == _describe(other):
        text += "".join(f", {key}={run[key]}" for key in ("iorate_setting", "elapsed_s", "warmup_s")
                        if run[key] != other[key])
    return text


def _names(names: Sequence[str]) -> str:
    """``totals.html, summary.html and 3 more`` for messages."""
    if len(names) <= 3:
        return ", ".join(names) or "no file"
    return f"{', '.join(names[:2])} and {len(names) - 2} more"


def _check_numbers(
    reports: Mapping[str, list[dict[str, Any]]],
    logged: list[dict[str, Any]] | None,
    flat_rows: list[dict[str, Any]],
    flat_printed: list[dict[str, str]],
) -> None:
    """Check the numbers printed twice: totals.html's ``avg_`` lines against summary.html's,
    every summary line against the logfile's copy, and flatfile.html's ``avg_`` rows against
    totals.html to the precision both print. Call after :func:`_check_runs`."""
    totals = [_only_avg(run) for run in reports["totals.html"] if run["averaged"]]
    if "summary.html" in reports:
        summary = reports["summary.html"]
        for total, run in zip(totals, (run for run in summary if run["averaged"])):
            avg = _only_avg(run)
            if total["_tokens"] != avg["_tokens"]:
                raise ParseError(
                    f"totals.html and summary.html disagree on run {total['run_index']} "
                    f"({_describe(total)}): {_first_difference(total['_tokens'], avg['_tokens'])}"
                )
        copies = [row["_line"] for run in summary for row in run["rows"]]
    else:
        copies = [row["_line"] for row in totals]
    if logged is not None:
        lines = [line for run in logged for line in run["lines"]]
        if "summary.html" not in reports:
            lines = [line for line in lines if line[0].startswith("avg_")]
        source = "summary.html" if "summary.html" in reports else "totals.html"
        for ours, theirs in zip(copies, lines):
            if ours != theirs:
                raise ParseError(
                    f"logfile.html and {source} disagree on the line {ours[0]!r}: "
                    f"{' '.join(theirs)!r} in logfile.html, {' '.join(ours)!r} in {source}"
                )
        if len(copies) != len(lines):
            raise ParseError(f"logfile.html has {len(lines)} report lines, {source} "
                             f"{len(copies)}: one of them is cut off or damaged")
    averages = [(row, printed) for row, printed in zip(flat_rows, flat_printed) if row["is_avg"]]
    if averages and not {"rate", "resp_ms"} <= set(averages[0][1]):
        raise ParseError("flatfile.html has no 'rate' or no 'resp' column (a damaged header?)")
    for total, (row, printed) in zip(totals, averages):
        twins = FLATFILE_TWINS.get(total["report_format"], {})
        if total["rd"] != row.get("run") or total["interval"] != row.get("interval"):
            raise ParseError(
                f"flatfile.html and totals.html disagree on run {total['run_index']}: "
                f"{row.get('run')} {row.get('interval')} in flatfile.html, {total['rd']} "
                f"{total['interval']} in totals.html"
            )
        for flat_key, key in twins.items():
            ours, theirs = total["_tokens"].get(key), printed.get(flat_key)
            if ours is None or theirs is None or "n/a" in (ours, theirs):
                continue
            slack = _half_unit(ours) * (2 if total["report_format"] == "fsd" else 1)
            if abs(float(ours) - float(theirs)) > slack + _half_unit(theirs) + 1e-9:
                raise ParseError(
                    f"flatfile.html and totals.html disagree on run {total['run_index']} "
                    f"({_describe(total)}): {flat_key} is {theirs} in flatfile.html, {key} is "
                    f"{ours} in totals.html"
                )


def _check_report_kinds(files: Mapping[str, str]) -> None:
    """Refuse a host or slave report that summary.html or a host report links to but whose
    first lines do not say what it is (a damaged title would drop its rows unseen)."""
    linked = [(name, "host", "summary.html")
              for name in _links(files.get("summary.html", ""), "Link to HOST reports:")]
    linked += [(name, "slave", host)
               for host in sorted(files) if host.endswith(".html") and _report_kind(files[host]) == "host"
               for name in _links(files[host], "Link to slave summary report:")
               if not name.endswith(".stdout.html")]
    for name, kind, source in linked:
        if name in files and _report_kind(files[name]) != kind:
            raise ParseError(f"{source} links {name} as a {kind} report, but {name} does not start "
                             f"like one (a damaged first line?)")


def _check_expected_runs(
    totals: list[dict[str, Any]], unfinished: list[str], expected: Mapping[str, Sequence[int]]
) -> None:
    """Refuse when an rd of ``expected`` did not run its thread counts in order, whole."""
    for rd, threads in expected.items():
        want = list(threads)
        got = [row["threads"] for row in totals if row["rd"] == rd]
        if not want or not got or len(got) % len(want) or got != want * (len(got) // len(want)):
            stopped = [name for name in unfinished if name.split()[0] == rd]
            raise ParseError(
                f"totals.html has rd={rd} at threads {got}, the parmfile asked for forthreads "
                f"{tuple(want)}: "
                + (f"vdbench did not finish {', '.join(stopped)}" if stopped else
                   "runs are missing or damaged")
            )


def _only_avg(run: Mapping[str, Any]) -> dict[str, Any]:
    """The ``avg_`` row of a finished run."""
    return next(row for row in run["rows"] if row["row_type"] == "avg")


def _first_difference(ours: Mapping[str, str], theirs: Mapping[str, str]) -> str:
    """``resp_ms is 0.844 in totals.html, 0.845 in summary.html`` (or the columns that differ)."""
    if list(ours) != list(theirs):
        return f"columns {list(ours)} in totals.html, {list(theirs)} in summary.html"
    key = next(key for key in ours if ours[key] != theirs[key])
    return f"{key} is {ours[key]} in totals.html, {theirs[key]} in summary.html"


def _half_unit(token: str) -> float:
    """Half a unit of the last printed digit of ``token`` (``0.844`` -> 0.0005)."""
    decimals = len(token.partition(".")[2])
    return 0.5 * 10.0**-decimals


def _links(text: str, label: str) -> list[str]:
    """The file names linked on the lines that start with ``label``."""
    names: list[str] = []
    for line in text.split("\n"):
        if line.startswith(label):
            names += _HREF.findall(line)
    return names


def _logfile_runs(text: str) -> list[dict[str, Any]]:
    """The runs of logfile.html: the context of each ``Starting RD`` line vdbench marked as a
    report line (inside a tag; 5.04.01 prints it once more without), whether the run has an
    ``avg_`` line, and the report lines (label and values, split) it copied from summary.html."""
    runs: list[dict[str, Any]] = []
    if not text.strip():
        return runs
    for number, raw in enumerate(_lines(text, "logfile.html"), start=1):
        line = _strip_tags(raw)
        starting = _STARTING.search(line)
        if starting and line != raw:
            runs.append({**_run_context(starting, len(runs), "logfile.html", number),
                         "averaged": False, "lines": []})
            continue
        data = _DATA.match(line)
        if runs and data and (data["label"].isdigit() or _LABEL.match(data["label"])):
            tokens = line.split()[1:]
            runs[-1]["lines"].append(tokens)
            runs[-1]["averaged"] |= tokens[0].startswith("avg_")
    return runs


def _status_runs(text: str) -> list[dict[str, Any]]:
    """The runs status.html started (``Starting<TAB>rd=rd1<TAB>For loops: threads=1``)."""
    runs: list[dict[str, Any]] = []
    if not text.strip():
        return runs
    for number, line in enumerate(_lines(text, "status.html"), start=1):
        parts = [part.strip() for part in line.split("\t")[1:]]
        if len(parts) >= 2 and parts[0] == "Starting" and parts[1].startswith("rd="):
            loops = parts[2] if len(parts) > 2 else ""
            if loops and not loops.startswith("For loops:"):
                raise ParseError(f"status.html line {number}: expected 'For loops:', got {loops[:40]!r}")
            runs.append({"rd": parts[1][3:],
                         "loop": _parse_loops(loops[len("For loops:"):], f"status.html line {number}")})
    return runs


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
    first_header = 0
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
            if header is not None and headers[key].keys != header.keys:
                raise ParseError(
                    f"{name} line {number}: this column header gives {headers[key].keys}, the one "
                    f"on line {first_header} gave {header.keys} (a damaged header?)"
                )
            header, first_header = headers[key], first_header or number
            index += 1
            recognized = True
            continue
        if runs and sum(1 for token in line.split() if _UNSIGNED_FLOAT.match(token)) >= 3:
            raise ParseError(
                f"{name} line {number}: numbers on a line that is no data line, header or "
                f"'Starting RD' line ({line.strip()[:60]!r}): a damaged time or interval label?"
            )
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
        dotted = upper[position][2].startswith(".")  # '.Interval.' heads file-system reports
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
            if not dotted and (best.strip(".").lower(), word.strip(".").lower()) not in SD_HEADER_NAMES:
                raise ParseError(
                    f"{name} line {number}: column '{best} {word}' is not a column of vdbench's "
                    "SD reports (a damaged header?)"
                )
            keys.append(report_column_key(best, word))
        if len(set(keys)) != len(keys):
            raise ParseError(f"{name} line {number}: header gives duplicate columns {keys}")
        if not dotted and not {"iops", "resp_ms"} <= set(keys):
            raise ParseError(f"{name} line {number}: the column header has no 'i/o rate' or no "
                             "'resp time' column (a damaged header?)")
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
    _follow_run(run, row_type, interval, label, hi, where)
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
            "_tokens": cells,
            "_line": tokens[1:],
        }
    )
    run["rows"].append(row)


def _follow_run(run: dict[str, Any], row_type: str, interval: int | str, label: str, hi: int | None,
                where: str) -> None:
    """Check that a data line comes where it should in ``run`` (intervals in order, then one
    ``avg_`` line ending at the last interval, then ``std_``/``max_``) and note it in the run.

    Raises:
        ParseError: a line out of that order (lines missing, repeated or out of order).
    """
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
        loop = _parse_loops(loops.group(1), f"{name} line {number}")
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
    elapsed = re.search(r"\belapsed=(\d+)(?=[;\s]|$)", rest)
    warmup = re.search(r"\bwarmup=(\d+)(?=[;\s]|$)", rest)
    context: dict[str, Any] = {"rd": match["rd"], "run_index": run_index, "loop": loop}
    for key in LOOP_KEYS:
        context[key] = loop.get(key)
    context.update(_extra_loop_keys(context))
    context["iorate_setting"] = setting
    context["elapsed_s"] = int(elapsed.group(1)) if elapsed else None
    context["warmup_s"] = int(warmup.group(1)) if warmup else None
    context["report_format"] = None
    return context


def _parse_loops(text: str, where: str) -> dict[str, Any]:
    """Return the ``For loops:`` values (``threads=8 rdpct=70``; ``None`` gives ``{}``)."""
    loop: dict[str, Any] = {}
    text = text.strip()
    if text and text != "None":
        for item in text.split():
            key, sep, value = item.partition("=")
            if not sep or not key or not value:
                raise ParseError(f"{where}: loop value {item!r} is not key=value")
            loop[key.lower()] = _loose_number(value)
    threads = loop.get("threads")
    if threads is not None and (not isinstance(threads, int) or threads < 1):
        raise ParseError(f"{where}: threads={threads} is not a thread count (damaged line?)")
    return loop


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
    """Return ``line`` with its HTML tags blanked out, each by as many spaces, so that the
    columns keep their positions and a tag inside a number splits it rather than joining its
    halves (a ``<`` followed by a space, as in histograms, is no tag)."""
    return _TAG.sub(lambda m: " " * len(m.group()), line) if "<" in line else line


def _plain(text: str) -> str:
    """Return ``text`` with normalized line ends and no HTML tags (for messages)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return "\n".join(_TAG.sub("", line) for line in text.split("\n"))


def _number(token: str, key: str, where: str) -> int | float | None:
    """Return a printed number as int or float (``n/a`` -> None), else raise ParseError.

    vdbench prints every measured value unsigned and without exponent: a sign or an exponent
    is damage (a ``-`` over a digit would otherwise give another number)."""
    if token == "n/a":
        return None
    if _UNSIGNED_INT.match(token):
        return int(token)
    if not _UNSIGNED_FLOAT.match(token):
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

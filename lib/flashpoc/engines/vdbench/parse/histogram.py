"""histogram.html and the ``*.histogram.html`` files: each run's latency buckets by section, each
bucket's count checked against its printed share, and the share of I/Os under given limits."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from flashpoc.core.errors import ParseError
from flashpoc.engines.vdbench.parse.keys import HISTOGRAM_SECTIONS, LOOP_KEYS
from flashpoc.engines.vdbench.parse.text import (_STARTING, _extra_loop_keys, _half_unit, _lines, _ms_to_us,
                                                 _run_context, _strip_tags)

_BUCKET = re.compile(
    r"^\s*(?P<lo>\d+(?:\.\d+)?)\s*<\s*(?P<hi>\d+(?:\.\d+)?|max)\s+(?P<count>\d{1,3}(?:,\d{3})*)"
    r"\s+(?P<pct>\d+(?:\.\d+)?)\s+(?P<cum>\d+(?:\.\d+)?)(?:\s+[-+]*)?\s*$"
)


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


def _check_section_complete(previous: dict[str, Any] | None, name: str, number: int) -> None:
    """Raise ParseError if the histogram section before ``number`` stops before its max bucket."""
    if previous is not None and previous["bucket_hi_us"] is not None:
        raise ParseError(
            f"{name} line {number}: the {previous['section']!r} section ends at "
            f"{previous['bucket_hi_us']} us, before its 'max' bucket (lines missing?)"
        )

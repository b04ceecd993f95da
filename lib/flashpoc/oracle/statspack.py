"""Parse Oracle Statspack reports (``spreport.sql`` output, text) into the dict of an AWR report.

Databases without the Diagnostics Pack (Standard Edition, many production sites) have Statspack,
not AWR: a DBA sizing an array from production brings a Statspack report, and SLOB with
``database_statistics_type statspack`` leaves ``statspack.txt`` in its run directory.
:func:`parse_statspack` gives what :func:`flashpoc.oracle.awr.parse_awr` gives for an instance
report, for what Statspack prints, with ``format`` ``"statspack"``; :func:`flashpoc.oracle.awr.parse_awr`
hands a report that starts with ``STATSPACK report for`` to it, so a Statspack report is read
wherever an AWR report is.

The tables are read as :mod:`flashpoc.oracle.awr` reads a text AWR report, by the parts both readers share
(:mod:`flashpoc.oracle.reportparse`; its ``_TextReport``: columns
are the runs of ``-``/``~`` of the rule under the header, found by meaning), with these differences:

* header: ``Database  DB Id  Instance  Inst Num  Startup Time  Release  RAC`` (the database name is
  printed blank by some releases: then it is the ``DB/Inst: NAME/inst`` of the section titles);
  ``DB time:`` and ``DB CPU:`` in minutes beside the snapshot lines.
* ``Top 5 Timed Events``: the title line holds the upper words of the column headers (``Avg``,
  ``%Total``); ``% Total Call Time`` is the share of CPU time plus non-idle waits (``pct_total_call_time``,
  ``pct_db_time`` is ``None``: Statspack prints no DB time share there). Statspack prints no wait class:
  ``wait_class`` is Oracle's fixed class of the event (:data:`EVENT_CLASSES`, as ``V$EVENT_NAME`` names it)
  for the I/O events, else ``None``.
* Wait events: ``Avg wait (ms)`` in whole milliseconds (an average under 0.5 ms prints 0): a key
  event with at least 50 s of ``Total Wait Time (s)`` has its average taken as that time over its
  waits (:func:`_key_event_figures`), others keep the printed one (named in ``key_events_whole_ms``: their
  ``0`` is an average under 0.5 ms); an overflowed cell (``######``) of an idle event is never read.
* ``Wait Event Histogram``: buckets ``<1ms`` ... ``>1s`` under a ``% of Waits`` group header.
* ``Time Model System Stats`` (``time_model``: ``statistic``, ``time_s``, ``pct_db_time``) and
  ``Instance Activity Stats`` (``instance_activity``: ``statistic``, ``total``, ``per_second``,
  ``per_transaction``; names cut to 33 characters as printed), cross-checked: each row's Total over
  the report's elapsed time is its per Second, to the printed precision, else the section is refused.
* ``Tablespace IO Stats`` / ``File IO Stats``: read by the reader of a text AWR report's two-line rows
  (the names, then the figures; a blank or ``N/A`` cell is ``None``), which also skips the blank lines
  between File IO rows (``io_rows_apart``) and reads ``Mx Rd Bkt`` (``max_read_bucket_ms``: the upper
  bound of the slowest single-block read bucket with reads). Checked as AWR's: per-second columns
  against the counts, tablespace sums against the files; never in 11.2.0.4 AWR's shifted order.
* ``Host CPU  (CPUs: 12  Cores: 6  Sockets: 1)``: the CPUs in its title, ``User``, ``System``,
  ``Idle``, ``WIO`` columns (read as AWR's, each column by its header's last word without its ``%``).

* ``IO Stat by Function - summary`` is read as AWR's ``IOStat by Function summary`` (``iostat_by_function``).
Seen on one real report (11.2.0.4.0, single instance; tests/data/awr/PROVENANCE.md).
"""

from __future__ import annotations

import re
from typing import Any

from flashpoc.core.errors import ParseError
from flashpoc.oracle.reportparse.events import (KEY_EVENTS_FOREGROUND, _histograms, _key_event_names, _key_event_rows,
                                                _key_event_waits, _top_event_rows)
from flashpoc.oracle.reportparse.iostats import _io_sections, _iostat_by_function
from flashpoc.oracle.reportparse.sections import (STATSPACK_TITLE, TRUNCATED, _SNAP_LINE_RE, _Sections,
                                                  _database_identity, _host_cpu, _instance_efficiency, _load_profile,
                                                  _require, _section, _wait_event_tables, is_truncated,
                                                  transactions_checked)
from flashpoc.oracle.reportparse.tables import _Table, _TextReport, _cell, _norm
from flashpoc.oracle.reportparse.values import _float, _statistic_number, parse_count

EVENT_CLASSES: dict[str, str] = {
    **{name: "User I/O" for name in (
        "db file sequential read", "db file scattered read", "db file parallel read", "db file single write",
        "direct path read", "direct path read temp", "direct path write", "direct path write temp",
        "direct path sync", "read by other session", "Disk file operations I/O", "local write wait",
        "utl_file I/O", "Datapump dump file I/O", "BFILE read")},
    **{name: "System I/O" for name in (
        "log file parallel write", "db file parallel write", "db file async I/O submit",
        "control file parallel write", "control file sequential read", "control file single write",
        "log file sequential read", "log file single write", "RMAN backup & recovery I/O", "Log archive I/O",
        "io done")},
    "log file sync": "Commit",
}
"""Oracle's wait class (``V$EVENT_NAME.WAIT_CLASS``, fixed by the release) of the I/O events a
Statspack Top 5 lists without one; an event not named here has no class (``None``)."""

_STATSPACK_TITLES = {"IOStat by Function summary": "IO Stat by Function - summary"}
"""AWR's title of a section -> Statspack's, where :mod:`flashpoc.oracle.awr` reads the section by its AWR title
(the columns are the same: 11.2's ``Avg Tm(ms)``, data volumes suffixed ``M`` in MiB)."""
_DB_INST_RE = re.compile(r"DB/Inst:\s+([^/\s]+)/")
_MINUTES_RE = re.compile(r"^\s*DB time:\s+([\d,.]+) \(mins\)(?:\s+DB CPU:\s+([\d,.]+) \(mins\))?")
_ELAPSED_RE = re.compile(r"^\s*Elapsed:\s+([\d,.]+) \(mins\)")


def is_statspack(text: str) -> bool:
    """Whether ``text`` is a Statspack report: ``STATSPACK report for`` among its first lines."""
    return STATSPACK_TITLE in text[:2000] and not re.search(r"<html", text[:2000], re.IGNORECASE)


class _StatspackText(_TextReport):
    """A text report whose section titles may be followed by one space before ``DB/Inst:``
    (``Wait Events (fg and bg) DB/Inst:``), whose histogram buckets sit under a group header and whose
    File IO Stats rows are separated by blank lines."""

    io_rows_apart = True

    def __init__(self, text: str):
        super().__init__(text)
        lines: list[str] = []
        for line in self.lines:
            if lines and lines[-1].strip() and line[:1] not in (" ", "") and "DB/Inst:" in line:
                lines.append("")  # a page's title right under the last row of the previous page
            lines.append(line)
        self.lines = lines

    def title_lines(self, title: str) -> list[int]:
        return [i for i, line in enumerate(self.lines) if line.startswith(title)
                and (not line[len(title):].strip() or re.match(r"\s+DB/Inst:", line[len(title):]))]

    def table(self, title: str) -> _Table | None:
        table = super().table(_STATSPACK_TITLES.get(title, title))
        if table is not None and title.startswith("Wait Event Histogram"):
            # "Total ------ % of Waits ------" above "Waits <1ms <2ms": a bucket is its last word
            table.header = table.header[:2] + [h.split()[-1] if h else h for h in table.header[2:]]
        return table


def parse_statspack(text: str, *, allow_truncated: bool = False) -> dict[str, Any]:
    """Parse a Statspack report (text).

    Args:
        text: The whole report, decoded (:func:`flashpoc.oracle.awr.read_awr_file` reads a ``.gz``).
        allow_truncated: Accept a report without its closing ``End of Report`` line; its last line
            (perhaps cut in the middle of a row) is then left out.

    Returns:
        The dict of :func:`flashpoc.oracle.awr.parse_awr` for an instance report (``format``
        ``"statspack"``, ``kind`` ``"instance"``), plus ``time_model``, ``instance_activity`` and
        ``key_events_whole_ms`` (see the module docstring); sections Statspack does not print, or
        that could not be read, are ``None`` and named in ``sections``.

    Raises:
        ParseError: not a Statspack report, truncated, or no section could be read.
    """
    if not is_statspack(text):
        raise ParseError(f"not a Statspack report: expected {STATSPACK_TITLE!r} at its top")
    truncated = is_truncated(text, "Statspack", allow_truncated)
    report = _StatspackText(text)
    if truncated:
        report.lines = report.lines[:-1]  # the line at the cut may be a row cut short
    sections = _Sections()
    fg, bg = _wait_event_tables(report, sections)
    header = sections.read("header", lambda: _header(report))
    elapsed_s = None if header is None else header["elapsed_min"] * 60
    # Statspack prints its tablespace cells under their header (every release): no AWR version's order
    files, tablespaces = _io_sections(report, sections, elapsed_s, None)
    key_events = sections.read("key events", lambda: _key_event_figures(fg, bg)) or {
        "key_events": {}, "key_events_whole_ms": [], "key_event_waits": {}, "key_event_names": {}}
    out = {
        "format": "statspack",
        "kind": "instance",
        "header": header,
        "load_profile": sections.read("Load Profile", lambda: _load_profile(report)),
        "top_events": sections.read("Top 5 Timed Events", lambda: _top_events(report)),
        **key_events,
        "event_histograms": _histograms(report, sections, ("Wait Event Histogram",)),
        "iostat_by_function": sections.read("IO Stat by Function - summary", lambda: _iostat_by_function(report)),
        "tablespace_io": tablespaces,
        "file_io": files,
        "host_cpu": sections.read("Host CPU", lambda: _host_cpu(report)),
        "time_model": sections.read("Time Model System Stats", lambda: _time_model(report)),
        "instance_activity": sections.read("Instance Activity Stats",
                                           lambda: _instance_activity(report, elapsed_s)),
        "instance_efficiency": _instance_efficiency(text),
    }
    printed = [row["per_second"] for row in out["load_profile"] or () if row["statistic"] == "Transactions"]
    if out["instance_activity"] and printed and printed[0] is not None:  # printed twice: Load Profile, the stats
        out["instance_activity"] = transactions_checked(out["instance_activity"], printed[0], 0.1,
                                                        "Instance Activity Stats", "the Load Profile's Transactions",
                                                        sections)
    return {**out, "sections": {**sections.result(), **({"truncated": TRUNCATED} if truncated else {})}}


FINER_AVERAGE_MIN_S = 50.0
"""The least Total Wait Time (s) of an event whose average is taken as that time over its waits: the
time is printed to the second, so the average is then known within 1 %."""


def _key_event_figures(fg: _Table | None, bg: _Table | None,
                       min_total_s: float = FINER_AVERAGE_MIN_S) -> dict[str, Any] | None:
    """The report's ``key_events`` (average waits, us), ``key_events_whole_ms`` (those that keep the
    printed whole-millisecond average: a ``0`` there is an average under 0.5 ms, not none),
    ``key_event_waits`` and ``key_event_names`` (as :mod:`flashpoc.oracle.awr` reads them); ``None``
    without wait event tables. Statspack prints the averages in whole milliseconds (``0`` for any
    flash read), so an event with at least ``min_total_s`` of Total Wait Time (s) has its average
    computed as that time over its Waits (``3,826`` s over ``10,924,627`` waits: 350.22 us), checked
    against the printed average (it must round to it, within 1 %); one that does not has its cells
    out of their columns and is left out. Other events keep the printed whole-millisecond average.

    Raises:
        ParseError: a wait events table has no event, average or Total Wait Time column, or a key
            event's cell there is not a number.
    """
    if fg is None and bg is None:
        return None
    rows = _key_event_rows(fg, bg)
    out: dict[str, float] = {}
    whole: list[str] = []
    for key, (name, printed, waits) in rows.items():
        table = fg if key in KEY_EVENTS_FOREGROUND else bg  # the table the event was read from: not None
        c_event, c_time = table.col_by("event"), table.col_by("total_time")
        row = next((r for r in table.rows if _cell(r, c_event) == name), None)
        if row is None:
            raise ParseError(f"section {table.title!r}: no row of {name.strip()!r}")
        total_s = parse_count(_cell(row, c_time))
        if total_s is None or total_s < min_total_s or not waits:
            out[key] = printed
            whole.append(key)
            continue
        finer = total_s * 1e6 / waits
        if abs(finer - printed) <= 500.0 + 0.01 * finer:  # the printed cell is the average to the ms
            out[key] = finer
    return {"key_events": out, "key_events_whole_ms": whole, "key_event_waits": _key_event_waits(fg, bg),
            "key_event_names": _key_event_names(fg, bg)}


def _header(report: _StatspackText) -> dict[str, Any]:
    """The database, the instance, the snapshots and the elapsed, DB time and DB CPU minutes."""
    at = report.find(r"^Database\s+DB Id\s+Instance\s", 60)
    db = _require(report.table_at(at[0], "Database", title_is_header=True) if at else None,
                  "database information (Database, DB Id, Release)")
    snap: dict[str, Any] = {}
    for line in report.lines[:60]:
        for regex in (_SNAP_LINE_RE, _ELAPSED_RE, _MINUTES_RE):
            match = regex.match(line)
            if match:
                snap[match.group(1) if regex is _SNAP_LINE_RE else regex.pattern] = match.groups()
    if not {"Begin", "End", _ELAPSED_RE.pattern, _MINUTES_RE.pattern} <= set(snap):
        raise ParseError("Statspack report: snapshot lines (Begin Snap / End Snap / Elapsed / DB time) not found")
    named = next((m for m in map(_DB_INST_RE.search, report.lines) if m), None)
    minutes = snap[_MINUTES_RE.pattern]
    database = _database_identity(db, None, name_column="Database")
    return {
        **{key: database[key] for key in ("db_id", "version", "instances")},
        "db_name": database["db_name"] or (named.group(1) if named else None),
        "instance_count": None,
        "rac": database["rac"],
        "cdb": database["cdb"],
        "begin_snap": int(snap["Begin"][1]),
        "end_snap": int(snap["End"][1]),
        "begin_time": snap["Begin"][2],
        "end_time": snap["End"][2],
        "elapsed_min": _float(snap[_ELAPSED_RE.pattern][0], "Elapsed"),
        "db_time_min": _float(minutes[0], "DB time"),
        "db_cpu_min": None if minutes[1] is None else _float(minutes[1], "DB CPU"),
    }


def _top_events(report: _StatspackText) -> list[dict[str, Any]]:
    """``Top 5 Timed Events``, whose title line carries the header's first words (``Avg``, ``%Total``)."""
    title = "Top 5 Timed Events"
    starts = report.find(rf"^{title}\s", 200)
    table = _require(report.table_at(starts[0], title, title_is_header=True) if starts else None, title)
    table.header = [re.sub(r"~+", "", head.replace(title, "")).strip() for head in table.header]
    rows = _top_event_rows(table)
    for row in rows:
        row["pct_total_call_time"], row["pct_db_time"] = row["pct_db_time"], None
        row["wait_class"] = row["wait_class"] or EVENT_CLASSES.get(row["event"].strip())
    return rows


def _time_model(report: _StatspackText) -> list[dict[str, Any]] | None:
    table = _section(report, "Time Model System Stats")
    if table is None:
        return None
    c_stat, c_time, c_pct = table.col("Statistic"), table.col("Time (s)"), table.col("% DB time")
    return [{"statistic": row[c_stat], "time_s": _float(row[c_time], f"Time Model {row[c_stat]!r}"),
             "pct_db_time": _float(row[c_pct], f"Time Model {row[c_stat]!r} % DB time")} for row in table.rows]


def _instance_activity(report: _StatspackText, elapsed_s: float | None) -> list[dict[str, Any]] | None:
    """The pages of ``Instance Activity Stats`` that print Total, per Second and per Trans (not the
    absolute values, nor the per Hour ones), each row's per Second checked against its Total."""
    tables = report.tables("Instance Activity Stats")
    if tables is None:
        return None
    out = []
    for table in tables:
        if [_norm(h) for h in table.header] != ["statistic", "total", "per second", "per trans"]:
            continue
        for row in table.rows:
            stat = " ".join(row[0].split())
            what = f"Instance Activity Stats {stat!r}"
            entry = {"statistic": stat, "total": _statistic_number(row[1], f"{what} Total"),
                     "per_second": _statistic_number(row[2], f"{what} per Second"),
                     "per_transaction": _statistic_number(row[3], f"{what} per Trans")}
            _check_rate(entry, elapsed_s, what)
            out.append(entry)
    return out


def _check_rate(entry: dict[str, Any], elapsed_s: float | None, what: str) -> None:
    """Refuse a row whose per Second is not its Total over the elapsed seconds (printed to 0.01 min,
    so known to 0.3 s). Statspack rounds the rate twice, to 0.01 then to 0.1 (41.5465 prints 41.6,
    0.0455 prints 0.1), so a printed rate is within 0.055 of the rate."""
    total, rate = entry["total"], entry["per_second"]
    if not elapsed_s or total is None or rate is None:
        return
    computed = total / elapsed_s
    if abs(computed - rate) > 0.055 + abs(computed) * 0.3 / elapsed_s + 1e-9:
        raise ParseError(f"{what}: Total {total:,.0f} over {elapsed_s:g} s is {computed:.2f}/s, the report prints "
                         f"{rate:g} per Second: its cells are not under their header")

"""An AWR instance report (single instance or one RAC instance), text or HTML: its header and snapshots,
and every section it prints, what it prints twice cross-checked (the Top 10 events and the Foreground
Wait Events, the Load Profile rows every report prints)."""

from __future__ import annotations

import re
from typing import Any

from flashpoc.core.errors import ParseError
from flashpoc.oracle.reportparse.events import (KEY_EVENTS_FOREGROUND, _histograms, _key_event_names, _key_event_rows,
                                                _key_event_waits, _top_event_rows)
from flashpoc.oracle.reportparse.iostats import _io_sections, _iostat_by_function
from flashpoc.oracle.reportparse.sections import (_SNAP_LINE_RE, _Absent, _Sections, _database_identity, _host_cpu,
                                                  _load_profile, _require, _section, _wait_event_tables)
from flashpoc.oracle.reportparse.tables import _HtmlReport, _Table, _TextReport, _cell, header_unit
from flashpoc.oracle.reportparse.values import _COUNT_RE, _float, _statistic_number, _whole, parse_count


def _always_printed(reader: Any, report: _TextReport | _HtmlReport) -> Any:
    """``reader(report)`` of a section every report of its kind prints (its header): one not found
    is damaged (its title line lost?), never absent."""
    try:
        return reader(report)
    except _Absent as exc:
        raise ParseError(f"{exc}: every such report prints it, its lines lost?") from None


def _parse_instance(report: _TextReport | _HtmlReport) -> dict[str, Any]:
    sections = _Sections()
    fg, bg = _wait_event_tables(report, sections)
    header = sections.read("header", lambda: _always_printed(_instance_header, report))
    version = None if header is None else header["version"]
    profile = sections.read("Load Profile", lambda: _complete_load_profile(_load_profile(report), version))
    top = sections.read(_TOP_EVENTS, lambda: _top_events(report))
    if top is not None and fg is None and _FOREGROUND in sections.absent:  # printed beside its Top 10
        sections.lose(_FOREGROUND, f"not found beside the {_TOP_EVENTS} it details: its title lost?")
    if top is not None and fg is not None and (unlike := _top_events_unlike(top, fg)):
        top, fg = sections.lose(_TOP_EVENTS, unlike), sections.lose(_FOREGROUND, unlike)
    out = {
        "header": header,
        "load_profile": profile,
        "top_events": top,
        "key_events": _key_events(fg, bg),
        "key_events_whole_ms": _key_events_whole_ms(fg, bg),
        "event_histograms": _histograms(report, sections, [t for t in _HISTOGRAM_TITLES if "(Global)" not in t]
                                        + [t for t in _HISTOGRAM_DETAIL_TITLES if report.has(t)]),
        "iostat_by_function": sections.read("IOStat by Function summary", lambda: _iostat_by_function(report)),
        "tablespace_io": None,
        "file_io": None,
        "host_cpu": sections.read("Host CPU", lambda: _host_cpu(report)),
        "key_event_waits": _key_event_waits(fg, bg),
        "key_event_names": _key_event_names(fg, bg),
    }
    if not _has_io_requests(out["load_profile"]) and _before_11204(version):  # the same statistics, in full
        out["instance_activity"] = sections.read("Instance Activity Stats", lambda: _system_statistics_global(
            report, "Instance Activity Stats"))
    elapsed_s = None if header is None else header["elapsed_min"] * 60
    out["file_io"], out["tablespace_io"] = _io_sections(report, sections, elapsed_s, version)
    return {**out, "sections": sections.result()}


_TOP_EVENTS = "Top 10 Foreground Events by Total Wait Time"
_FOREGROUND = "Foreground Wait Events"
_LOAD_PROFILE_ROWS = {(): ("DB Time(s)", "DB CPU(s)", "Transactions"),
                      ("Read IO requests",): ("Read IO requests", "Write IO requests", "Read IO (MB)", "Write IO (MB)"),
                      (12,): ("Background CPU(s)", "Redo size (bytes)")}
"""Load Profile rows an AWR report prints whatever its workload: in every release (the key ``()``),
as a group (the key names one of them: 11.2.0.4 on) and from a release on (the key ``(12,)``)."""


def _complete_load_profile(rows: list[dict[str, Any]], version: str | None) -> list[dict[str, Any]]:
    """The Load Profile ``rows``, when it has every row AWR prints (:data:`_LOAD_PROFILE_ROWS`): a
    row lost (a line removed) would leave a point's figure empty unsaid."""
    names = {row["statistic"] for row in rows}
    major = int(version.split(".")[0]) if version and version.split(".")[0].isdigit() else None
    for when, needed in _LOAD_PROFILE_ROWS.items():
        due = (not when or (isinstance(when[0], str) and when[0] in names)
               or (isinstance(when[0], int) and major is not None and major >= when[0]))
        missing = [name for name in needed if due and name not in names]
        if missing:
            raise ParseError(f"section 'Load Profile': no row of {missing[0]!r}, which AWR prints in every report"
                             + (f" of release {version}" if when else "") + ": a line lost?")
    return rows


def _top_events_unlike(top: list[dict[str, Any]], fg: _Table) -> str | None:
    """Why the Top 10 events and the Foreground Wait Events table (which print the same events'
    waits twice) disagree, or None: each Top 10 event (but DB CPU) is in the table with its waits,
    to the Top 10's printed precision (``10.9M``)."""
    c_event, c_waits = fg.col_by("event"), fg.col_by("waits", required=False)
    if c_waits is None:
        return None
    waits = {" ".join(row[c_event].split()): parse_count(_cell(row, c_waits)) for row in reversed(fg.rows)}
    for event in top:
        name = " ".join(str(event["event"]).split())
        if name == "DB CPU" or event["waits"] is None or not event["total_time_s"]:
            continue  # a wait table shows only events of 1 ms or more in all
        listed = [count for printed, count in waits.items() if printed.startswith(name) or name.startswith(printed)]
        if not listed or all(count is None or abs(count - event["waits"]) > _count_precision(event["waits_printed"])
                             for count in listed):
            return (f"the Top 10 event {name!r} ({event['waits_printed']} waits) is not in the Foreground Wait "
                    "Events with its waits: one of them is damaged")
    return None


def _count_precision(printed: str) -> float:
    """Half the last printed unit of a count (``10.9M``: 50,000; ``3,216``: 0.5)."""
    match = _COUNT_RE.match(printed.strip())
    if match is None:
        return 0.5
    number, suffix = match.groups()
    mantissa, _, exponent = number.lower().partition("e")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    scale = 1000 ** ("KMGTP".index(suffix) + 1 if suffix else 0) * 10 ** int(exponent or 0)
    return 0.5 * scale / 10 ** decimals


def _instance_header(report: _TextReport | _HtmlReport) -> dict[str, Any]:
    """The report's header: the database (name, id, release, RAC, CDB), the instance, the snapshots
    (ids, times, instance count) and the elapsed and DB time in minutes."""
    if isinstance(report, _TextReport):
        db, inst = _text_header_tables(report)
        snap, instance_count = _text_snapshots(report)
    else:
        db, inst = _html_header_tables(report)
        snap, instance_count = _html_snapshots(report)
    db = _require(db, "database information (DB Name, DB Id, Release)")
    if "begin" not in snap or "end" not in snap or "Elapsed" not in snap or "DB Time" not in snap:
        raise ParseError("AWR report: snapshot table (Begin Snap / End Snap / Elapsed / DB Time) not found")
    database = _database_identity(db, inst)
    return {
        **{key: database[key] for key in ("db_name", "db_id", "version", "instances")},
        "instance_count": instance_count,
        "rac": database["rac"],
        "cdb": database["cdb"],
        "begin_snap": snap["begin"][0],
        "end_snap": snap["end"][0],
        "begin_time": snap["begin"][1],
        "end_time": snap["end"][1],
        "elapsed_min": snap["Elapsed"],
        "db_time_min": snap["DB Time"],
    }


def _text_header_tables(report: _TextReport) -> tuple[_Table | None, _Table | None]:
    """The database table (``DB Name  DB Id ...``) and the instance table (``Instance  Inst Num ...``)
    at the top of a text report; ``None`` for one it does not print."""
    db_at = report.find(r"^DB Name\s+DB Id\s", 200)
    inst_at = report.find(r"^Instance\s+Inst Num\s", 200)
    db = report.table_at(db_at[0], "DB Name", title_is_header=True) if db_at else None
    inst = report.table_at(inst_at[0], "Instance", title_is_header=True) if inst_at else None
    return db, inst


def _html_header_tables(report: _HtmlReport) -> tuple[_Table | None, _Table | None]:
    """The database table and the instance table of an HTML report (``None`` where absent)."""
    db = report.by_summary(r"database instance information")
    inst = next((t for _, s, t in report.tables_list if t.header[:2] == ["Instance", "Inst Num"]), None)
    return db, inst


_SNAP_MINUTES_RE = re.compile(r"^\s*(Elapsed|DB Time):\s+([\d,.]+) \(mins\)")


def _text_snapshots(report: _TextReport) -> tuple[dict[str, Any], int | None]:
    """``({"begin": (id, time), "end": (id, time), "Elapsed": min, "DB Time": min}, instance count)``
    from the snapshot lines of a text report; the count is read only where the table has an
    ``Instances`` column (RAC instance reports add it, as the last one)."""
    snap: dict[str, Any] = {}
    begin_cells: list[str] = []
    for line in report.lines[:200]:
        m = _SNAP_LINE_RE.match(line)
        if m:
            snap[m.group(1).lower()] = (int(m.group(2)), m.group(3))
            if m.group(1) == "Begin":
                begin_cells = line.split()
        m = _SNAP_MINUTES_RE.match(line)
        if m:
            snap[m.group(1)] = _float(m.group(2), m.group(1))
    snap_head = next((ln for ln in report.lines[:200] if re.match(r"^\s+Snap Id\s+Snap Time", ln)), "")
    instance_count = _whole(begin_cells[-1]) if snap_head.rstrip().endswith("Instances") and begin_cells else None
    return snap, instance_count


def _html_snapshots(report: _HtmlReport) -> tuple[dict[str, Any], int | None]:
    """The same as :func:`_text_snapshots`, from the HTML snapshot table."""
    table = report.by_summary(r"snapshot information")
    snap: dict[str, Any] = {}
    instance_count = None
    if table is None:
        return snap, instance_count
    inst_col = table.col("Instances", required=False)
    for row in table.rows:
        label = row[0].strip().rstrip(":")
        if label in ("Begin Snap", "End Snap"):
            key = label.split()[0].lower()
            snap[key] = (_whole(row[1]), row[2])
            if inst_col is not None and key == "begin" and _cell(row, inst_col):
                instance_count = _whole(_cell(row, inst_col))
        elif label in ("Elapsed", "DB Time"):
            m = re.match(r"([\d,.]+) \(mins\)", " ".join(row[1:]).strip())
            if m:
                snap[label] = _float(m.group(1), label)
    return snap, instance_count


def _top_events(report: _TextReport | _HtmlReport) -> list[dict[str, Any]]:
    if isinstance(report, _TextReport):
        table = None
        for title in ("Top 10 Foreground Events by Total Wait Time", "Top 5 Timed Foreground Events"):
            if report.title_lines(title):
                table = report.table(title)
                break
    else:
        table = report.by_summary(r"top 10 wait events by total wait time|top 5 timed")
    return _top_event_rows(_require(table, "Top 10 Foreground Events by Total Wait Time"))


def _key_events(fg: _Table, bg: _Table) -> dict[str, float]:
    return {name: avg for name, (_, avg, _) in _key_event_rows(fg, bg).items()}


def _key_events_whole_ms(fg: _Table | None, bg: _Table | None) -> list[str]:
    """The key events whose average the report prints in whole milliseconds (11.2's ``Avg wait (ms)``
    column: ``0`` for any average under 0.5 ms), as a Statspack report's ``key_events_whole_ms``:
    a latency no finer than 1 ms. Later reports print ``Avg wait`` cells with their unit and decimals."""
    whole = []
    for name, (printed, _, _) in _key_event_rows(fg, bg).items():
        table = fg if name in KEY_EVENTS_FOREGROUND else bg
        c_event, c_avg = table.col_by("event"), table.col_by("avg_wait")
        cell = next((_cell(r, c_avg) for r in table.rows if r[c_event] == printed), "")
        if header_unit(table.header[c_avg]) == "ms" and re.fullmatch(r"\s*\d[\d,]*\s*", cell):
            whole.append(name)
    return whole


_HISTOGRAM_TITLES: tuple[str, ...] = (
    "Wait Event Histogram",
    "Wait Event Histogram (up to 64 us)",
    "Wait Event Histogram (up to 32 ms)",
    "Wait Event Histogram (up to 2 sec)",
    "Wait Event Histogram (up to 2 min)",
    "Wait Event Histogram (up to 1 hr)",
    "Wait Event Histogram (Global)",
)

_HISTOGRAM_DETAIL_TITLES: tuple[str, ...] = (
    "Wait Event Histogram Detail (64 msec to 2 sec)",
    "Wait Event Histogram Detail (4 sec to 2 min)",
    "Wait Event Histogram Detail (4 min to 1 hr)",
)
"""The longer waits' pages of 11.2 and 12.1 (``Waits 64ms to 2s``, buckets ``<32ms`` ... ``>=2s``):
read where a report prints them, never named absent (later versions print the ``(up to ...)`` pages)."""


def _before_11204(version: str | None) -> bool:
    """Whether ``version`` (the header's, ``11.2.0.3.0``) is a release whose Load Profile has no
    ``Read IO requests`` row (before 11.2.0.4): in a later one that row is lost, not absent."""
    numbers = [int(n) for n in re.findall(r"\d+", version or "")[:4]]
    return bool(numbers) and numbers < [11, 2, 0, 4]


def _has_io_requests(profile: list[dict[str, Any]] | None) -> bool:
    """Whether a Load Profile has its ``Read IO requests`` row (11.2.0.4 and later print it; 11.2.0.3's
    has only ``Physical reads``, blocks, and its Instance Activity Stats the requests)."""
    return any(row.get("statistic") == "Read IO requests" for row in profile or ())


def _system_statistics_global(report: _TextReport | _HtmlReport,
                              title: str = "System Statistics (Global)") -> list[dict[str, Any]] | None:
    """``System Statistics (Global)``: cluster-wide Total, per Second and per Trans of each statistic;
    with ``title`` another table of those columns (an instance report's ``Instance Activity Stats``)."""
    table = _section(report, title)
    if table is None:
        return None
    c_stat = table.col("Statistic")
    c_total = table.col("Total")
    c_second = table.col("per Second")
    c_trans = table.col("per Trans")
    out = []
    for row in table.rows:
        stat = " ".join(_cell(row, c_stat).split())  # as HTML shows it: "count ( 2ms)"
        if not stat:
            continue
        out.append(
            {
                "statistic": stat,
                "total": _statistic_number(_cell(row, c_total), f"{title} {stat!r} Total"),
                "per_second": _statistic_number(_cell(row, c_second), f"{title} {stat!r} per Second"),
                "per_transaction": _statistic_number(_cell(row, c_trans), f"{title} {stat!r} per Trans"),
            }
        )
    return out

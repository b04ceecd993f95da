"""The sections of an instance report that AWR and Statspack print alike, and how a reader reads one:
a section absent, not understood or disagreeing with another is named in the result's ``sections``
(:class:`_Sections`), never the whole report lost; the header's database identity and snapshot lines,
the Load Profile, host CPU, ``Buffer Hit %``, the transactions checked against their statistics, and
the check for a report cut short (no ``End of Report``: :data:`TRUNCATED`)."""

from __future__ import annotations

import re
from typing import Any

from flashpoc.core.errors import ParseError
from flashpoc.oracle.reportparse.tables import (_HtmlReport, _Table, _TextReport, _cell, _dash_runs, _is_dash, _norm,
                                                _slice_cells)
from flashpoc.oracle.reportparse.values import _float, _whole

STATSPACK_TITLE = "STATSPACK report for"
"""The first line of a Statspack report (:func:`parse_awr` hands it to :mod:`flashpoc.oracle.statspack`)."""

TRUNCATED = "no 'End of Report': the report is cut short, what was after the cut is not read"
"""``sections["truncated"]`` of a report read with ``allow_truncated`` that is cut short (its named loss)."""


def is_truncated(text: str, what: str, allow_truncated: bool) -> bool:
    """Whether the report ``text`` lacks its closing ``End of Report`` line (a text report's last
    line is then left out by its reader: a row cut short would read as other numbers).

    Raises:
        ParseError: it does, and ``allow_truncated`` is not set (``what`` names the report).
    """
    truncated = "End of Report" not in text[-2000:]
    if truncated and not allow_truncated:
        raise ParseError(f"{what} report is truncated: its last line 'End of Report' was not found "
                         "(pass allow_truncated=True to parse the sections before the cut)")
    return truncated


#: the whole printed number (up to a space, a tag or the line's end): a damaged one ("4-.92") is not read
_BUFFER_HIT_RE = re.compile(r"Buffer\s+Hit\s+%:(?:\s|<[^>]*>)*(\d+(?:\.\d+)?)(?=\s|<|$)", re.IGNORECASE | re.MULTILINE)


def _instance_efficiency(text: str) -> dict[str, float] | None:
    """``{"buffer_hit_pct": ...}`` from "Instance Efficiency Percentages" (``Buffer  Hit   %:   45.92``,
    in HTML the next cell); ``None`` when the report does not print it."""
    match = _BUFFER_HIT_RE.search(text)
    return None if match is None else {"buffer_hit_pct": float(match.group(1))}


class _Absent(ParseError):
    """A section the report does not have (or prints without rows)."""


class _Disagree(ParseError):
    """Two sections that print the same figures disagree: either may be damaged."""


def _require(table: _Table | None, what: str) -> _Table:
    """``table`` (its rows whole: :func:`_whole_rows`); a section the report does not print is
    :class:`_Absent`, one printed with its header but no row is damaged (its rows lost)."""
    if table is None:
        raise _Absent(f"AWR report: section {what!r} not found (truncated report?)")
    if not table.rows:
        raise ParseError(f"AWR report: section {what!r} printed without a row: its lines lost?")
    return _whole_rows(table)


def _section(report: _TextReport | _HtmlReport, title: str) -> _Table | None:
    return _whole_or_none(report.table(title))


def _whole_or_none(table: _Table | None) -> _Table | None:
    """:func:`_whole_rows` of a table the report may not print (None)."""
    return None if table is None else _whole_rows(table)


def _whole_rows(table: _Table) -> _Table:
    """The table, when every row has as many cells as its header names: a row that lost a cell
    (a damaged tag) would move its numbers into the wrong columns."""
    for row in table.rows:
        if table.header and len(row) != len(table.header):
            raise ParseError(f"section {table.title!r}: a row of {len(row)} cells under a header of "
                             f"{len(table.header)} ({row[:2]}...): damaged report")
    return table


def _wait_event_tables(report: _TextReport | _HtmlReport, sections: _Sections,
                       suffix: str = "") -> tuple[_Table | None, _Table | None]:
    """The ``Foreground Wait Events`` and ``Background Wait Events`` tables (with ``suffix``: a RAC
    global report's ``(Global)`` ones), each ``None`` where it cannot be read (named in ``sections``)."""
    fg, bg = (sections.read(title, lambda t=title: _named_events(_require(_section(report, t), t)))
              for title in (f"Foreground Wait Events{suffix}", f"Background Wait Events{suffix}"))
    return fg, bg


_EVENT_NAME_RE = re.compile(r"[A-Za-z0-9 &()*/:_.,'+-]*", re.ASCII)
"""The characters of Oracle's wait event names (V$EVENT_NAME): a name with another byte is a
damaged row, whose figures would be filed under no event or another one."""


def _named_events(table: _Table) -> _Table:
    """``table`` (of wait events), when each row's event name is one Oracle could print."""
    c_event = table.col_by("event")
    for row in table.rows:
        _event_name(row[c_event], table.title)
    return table


def _event_name(name: str, title: str) -> str:
    """``name``, a wait event's as printed, refused (ParseError) when it holds a byte no event name has."""
    if not _EVENT_NAME_RE.fullmatch(name.strip()):
        raise ParseError(f"section {title!r}: the event name {name.strip()[:40]!r} holds a byte no event name has: "
                         "damaged")
    return name


class _Sections:
    """Which sections of a report were read, which are absent and which were not understood:
    a section that cannot be read is left out (``None``) and named, never the whole report lost."""

    def __init__(self) -> None:
        self.read_ok: list[str] = []
        self.absent: list[str] = []
        self.not_understood: list[dict[str, str]] = []

    def read(self, name: str, reader: Any, empty: Any = None) -> Any:
        try:
            value = reader()
        except _Absent:
            self.absent.append(name)
            return empty
        except ParseError as exc:
            self.not_understood.append({"section": name, "reason": str(exc)})
            return empty
        if value is None:
            self.absent.append(name)
            return empty
        self.read_ok.append(name)
        return value

    def lose(self, name: str, reason: str) -> None:
        """Name a section read before, or found absent, as not understood after all (a cross-check
        with another failed); returns None, what the section then is."""
        for found in (self.read_ok, self.absent):
            if name in found:
                found.remove(name)
        self.not_understood.append({"section": name, "reason": reason})

    def result(self) -> dict[str, Any]:
        if not self.read_ok:
            reasons = "; ".join(f"{d['section']}: {d['reason']}" for d in self.not_understood)
            raise ParseError("AWR report: no section could be read"
                             + (f" ({reasons})" if reasons else f" (absent: {', '.join(self.absent)})"))
        return {"read": self.read_ok, "absent": self.absent, "not_understood": self.not_understood}


_SNAP_LINE_RE = re.compile(r"^\s*(Begin|End) Snap:\s+(\d+)\s+(\d{2}-\w{3}-\d{2} \d{2}:\d{2}:\d{2})")


def _database_identity(db: _Table, inst: _Table | None, name_column: str = "DB Name") -> dict[str, Any]:
    """``db_name``, ``db_id``, ``version``, ``rac``, ``cdb`` from the database table's first row and
    ``instances`` (``[{"instance", "inst_num"}]``) from the instance table, or where there is none
    (11.2 prints ``Instance`` and ``Inst num`` in the database table) from the database table. A PDB
    report whose container does not see system data ("System Data Visible: NO") prints the
    database's name, id, release and RAC blank: those are ``None``, not a failure. Statspack names the
    database's column ``Database`` (``name_column``)."""
    row = db.rows[0]
    cdb_col = db.col("CDB", required=False)
    if inst is None or not inst.rows:
        inst = db if db.col("Inst Num", required=False) is not None else None
    instances = []
    if inst is not None:
        i_row = inst.rows[0]
        instances.append({"instance": i_row[inst.col("Instance")], "inst_num": _whole(i_row[inst.col("Inst Num")])})
    rac = _cell(row, db.col("RAC")).strip()
    return {
        "db_name": _cell(row, db.col(name_column)).strip() or None,
        "db_id": _whole(row[db.col("DB Id")]) if _cell(row, db.col("DB Id")).strip() else None,
        "version": _cell(row, db.col("Release")).strip() or None,
        "instances": instances,
        "rac": (rac == "YES") if rac else None,
        "cdb": None if cdb_col is None else row[cdb_col] == "YES",
    }


def _load_profile(report: _TextReport | _HtmlReport) -> list[dict[str, Any]]:
    if isinstance(report, _TextReport):
        starts = report.find(r"^Load Profile\s+Per Second\s+Per Transaction")
        table = None
        if starts and starts[0] + 1 < len(report.lines) and _is_dash(report.lines[starts[0] + 1]):
            # The statistic names are wider than their '~' rule: cut them at the ':'.
            sep = starts[0] + 1
            runs = _dash_runs(report.lines[sep])
            rows = []
            for line in report.lines[sep + 1 :]:
                if not line.strip():
                    break
                if ":" not in line:
                    raise ParseError(f"section 'Load Profile': unexpected line {line!r}")
                colon = line.index(":") + 1
                rows.append(_slice_cells(line, [(0, colon)] + runs[1:]))
            names = ["Statistic", "Per Second", "Per Transaction", "Per Exec", "Per Call"]
            table = _Table("Load Profile", names[:len(runs)] + [f"column {i + 1}" for i in range(len(names), len(runs))],
                           rows)
    else:
        table = report.by_summary(r"load profile")
    table = _require(table, "Load Profile")
    out = []
    for row in table.rows:
        stat = row[0].strip().rstrip(":").strip()
        if not re.search(r"[A-Za-z]", stat):  # a row that lost its first cell: its numbers moved left
            raise ParseError(f"section 'Load Profile': a row without its statistic name: {row[:3]}")
        out.append(
            {
                "statistic": stat,
                "per_second": _float(_cell(row, 1), f"Load Profile {stat!r} per second"),
                "per_transaction": _float(_cell(row, 2), f"Load Profile {stat!r} per transaction"),
            }
        )
    return out


def _host_cpu(report: _TextReport | _HtmlReport) -> dict[str, Any] | None:
    """``Host CPU``: the CPUs, load average at begin and end, %User, %System, %WIO, %Idle, each
    column known by its header's last word (``%User``, Statspack's ``User``). The CPUs are a column
    (11.2.0.4 and later) or in the title (11.2.0.3, Statspack: ``Host CPU  (CPUs: 12  Cores: 6 ...)``)."""
    titled = report.find(r"^Host CPU\s+\(CPUs:", 200) if isinstance(report, _TextReport) else []
    if titled:
        table = report.table_at(titled[0], "Host CPU")
    elif isinstance(report, _TextReport):
        table = _section(report, "Host CPU")
    else:
        table = _whole_or_none(report.by_summary(r"system load statistics"))
    if table is None or not table.rows:
        return None
    row = table.rows[0]
    last = {(_norm(head).split() or [""])[-1].lstrip("%"): i for i, head in enumerate(table.header)}

    def pick(name: str) -> str:
        if name not in last:
            raise ParseError(f"section 'Host CPU': expected a column {name!r}, found {table.header}")
        return _cell(row, last[name])

    if "cpus" in last:
        cpus: int | None = _whole(pick("cpus"))
    elif titled:
        in_title = re.search(r"CPUs:\s*(\d+)", report.lines[titled[0]])
        cpus = _whole(in_title.group(1)) if in_title else None
    else:
        # 11.2.0.3's HTML: the host information table at the top of the report has them
        host = None if isinstance(report, _TextReport) else report.by_summary(r"host information")
        cpus = _whole(_cell(host.rows[0], host.col("CPUs"))) if host is not None and host.rows else None
    return {
        "cpus": cpus,
        **{key: _float(pick(name), f"Host CPU {name}") for key, name in (
            ("load_begin", "begin"), ("load_end", "end"), ("user_pct", "user"), ("system_pct", "system"),
            ("wio_pct", "wio"), ("idle_pct", "idle"))},
    }


_TRANSACTIONS = ("user commits", "user rollbacks")


def transactions_checked(rows: list[dict[str, Any]], printed: float, precision: float, section: str, what: str,
                         sections: _Sections) -> list[dict[str, Any]]:
    """``rows`` (statistics with ``per_second``) where ``user commits`` + ``user rollbacks`` per second
    are the transactions per second the report prints again (``printed``, as ``what``, each figure
    to ``precision``); else without those two rows, named as not understood in ``section`` (a line
    lost would count fewer transactions)."""
    stats = {row["statistic"]: row["per_second"] or 0.0 for row in rows}
    listed = sum(stats.get(name, 0.0) for name in _TRANSACTIONS)
    if ("user commits" in stats or printed) and abs(listed - printed) > precision + 0.001 * printed:
        sections.not_understood.append({"section": section, "reason": (
            f"user commits + user rollbacks {listed:g}/s are not {what} ({printed:g}/s): a line lost? "
            "(both left out)")})
        return [row for row in rows if row["statistic"] not in _TRANSACTIONS]
    return rows

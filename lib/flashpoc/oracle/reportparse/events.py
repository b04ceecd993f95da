"""Wait events: the key events (:data:`KEY_EVENTS` in their wait class, or an event standing for one on
another platform), read from the foreground and background wait event tables with their waits and the
event each was read from, the Top events' rows, and the event histograms, each checked against the wait
event section its waits reach."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from flashpoc.core.errors import ParseError
from flashpoc.oracle.reportparse.sections import _Sections, _event_name, _section
from flashpoc.oracle.reportparse.tables import _HtmlReport, _Table, _TextReport, _cell, header_unit
from flashpoc.oracle.reportparse.values import _PCT_RE, _float, _int_or_none, parse_count, parse_latency_us

KEY_EVENTS_FOREGROUND: tuple[str, ...] = (
    "db file sequential read",
    "db file scattered read",
    "direct path read",
    "log file sync",
)
"""Key events read from the foreground wait events section (what sessions wait for)."""

KEY_EVENTS_BACKGROUND: tuple[str, ...] = (
    "log file parallel write",
    "db file parallel write",
)
"""Key events read from the background wait events section (LGWR / DBWR writes)."""

KEY_EVENTS: tuple[str, ...] = KEY_EVENTS_FOREGROUND + KEY_EVENTS_BACKGROUND
"""All key events, in the order they are reported."""

KEY_EVENT_CLASSES: dict[str, str] = {
    "db file sequential read": "User I/O",
    "db file scattered read": "User I/O",
    "direct path read": "User I/O",
    "log file sync": "Commit",
    "log file parallel write": "System I/O",
    "db file parallel write": "System I/O",
}
"""The wait class of each key event (what Oracle files it under in every version)."""

EQUIVALENT_EVENTS: dict[str, str] = {
    "cell single block physical read": "db file sequential read",
    "cell multiblock physical read": "db file scattered read",
}
"""Events that stand for a key event on another platform: on Exadata the database's
single-block reads wait on ``cell single block physical read`` (class User I/O) where other
storage shows ``db file sequential read``, and buffered multiblock reads on ``cell multiblock
physical read``. A report that prints both uses the one with the most waits (wait events and
histograms alike): the event that carries the database's reads. Smart scans
(``cell smart table scan``) are offloaded to the cells and are not ``direct path read``."""


def key_event(name: str, wait_class: str | None = None) -> str | None:
    """The key event a printed wait event stands for, or ``None``.

    Args:
        name: The event as printed; a text report cuts long names to its column width
            (``cell single block physica``): a cut name of 20 characters or more that starts
            exactly one equivalent's name counts as that event.
        wait_class: The row's wait class where the table prints one; a row of another class
            than the key event's is not that event.

    Returns:
        One of :data:`KEY_EVENTS`, or ``None``.
    """
    name = name.strip()
    key = name if name in KEY_EVENT_CLASSES else EQUIVALENT_EVENTS.get(name)
    if key is None and len(name) >= 20:
        matches = {k for full, k in EQUIVALENT_EVENTS.items() if full.startswith(name)}
        matches |= {k for k in KEY_EVENT_CLASSES if k.startswith(name)}
        key = matches.pop() if len(matches) == 1 else None
    if key is not None and wait_class and wait_class.strip() != KEY_EVENT_CLASSES[key]:
        return None
    return key


def _top_event_rows(table: _Table) -> list[dict[str, Any]]:
    """The rows of a Top events table, its columns found by meaning (also Statspack's Top 5)."""
    c_event = table.col_by("event")
    c_waits = table.col_by("waits")
    c_time = table.col_by("total_time")
    c_avg = table.col_by("avg_wait")
    default_unit = header_unit(table.header[c_avg])
    c_pct = table.col_by("pct_time")
    c_class = table.col_by("wait_class", required=False)
    out = []
    for row in table.rows:
        waits_text = _cell(row, c_waits)
        time_text = _cell(row, c_time)
        out.append(
            {
                "event": row[c_event],
                "waits": _int_or_none(parse_count(waits_text)),
                "waits_printed": waits_text,
                "total_time_s": parse_count(time_text),
                "total_time_printed": time_text,
                "avg_wait_us": parse_latency_us(_cell(row, c_avg), default_unit),
                "avg_wait_printed": _cell(row, c_avg),
                "pct_db_time": _float(_cell(row, c_pct), "top events % DB time"),
                "wait_class": _wait_class(_cell(row, c_class)),
            }
        )
    return out


WAIT_CLASSES: tuple[str, ...] = ("Administrative", "Application", "Cluster", "Commit", "Concurrency",
                                 "Configuration", "Idle", "Network", "Other", "Queueing", "Scheduler",
                                 "System I/O", "User I/O")
"""Oracle's wait classes."""


def _wait_class(cell: str) -> str | None:
    """A wait class as printed, whole where a text report cut it to its column (``Concurrenc``,
    ``Applicatio``, ``Configurat``); ``None`` when blank."""
    text = cell.strip()
    if len(text) >= 10 and text not in WAIT_CLASSES:
        whole = [name for name in WAIT_CLASSES if name.startswith(text)]
        text = whole[0] if len(whole) == 1 else text
    return text or None


def _key_event_rows(fg: _Table | None, bg: _Table | None) -> dict[str, tuple[str, float, int | None]]:
    """``{key event: (event as printed, average wait in us, waits)}`` from the foreground rows
    for foreground key events and the background rows for background ones: the first row of each
    printed event that has an average and, where both a key event and its equivalent are printed
    (Exadata), the one with the most waits (:func:`_most_waits`)."""
    out: dict[str, tuple[str, float, int | None]] = {}
    for table, names in ((fg, KEY_EVENTS_FOREGROUND), (bg, KEY_EVENTS_BACKGROUND)):
        if table is None:
            continue
        c_event = table.col_by("event")
        c_avg = table.col_by("avg_wait")
        unit = header_unit(table.header[c_avg])
        c_waits = table.col_by("waits", required=False)
        c_class = table.col_by("wait_class", required=False)
        found: dict[str, dict[str, tuple[str, float, int | None]]] = {}
        for row in table.rows:
            key = key_event(row[c_event], _cell(row, c_class) or None)
            if key not in names or row[c_event].strip() in found.get(key, {}):
                continue  # an event printed again (a later page): its first row
            value = parse_latency_us(_cell(row, c_avg), unit)
            if value is None:
                continue
            waits = None if c_waits is None else _int_or_none(parse_count(_cell(row, c_waits)))
            found.setdefault(key, {})[row[c_event].strip()] = (row[c_event], value, waits)
        out.update({key: _most_waits(key, rows) for key, rows in found.items()})
    return {name: out[name] for name in KEY_EVENTS if name in out}


def _most_waits(key: str, rows: dict[str, tuple[str, Any, int | None]]) -> tuple[str, Any, int | None]:
    """Of the printed events that stand for ``key`` (the event itself, its Exadata equivalent), the
    one with the most waits: on Exadata a few thousand ``db file sequential read`` of local files
    (3.15 ms) are printed next to hundreds of millions of ``cell single block physical read``
    (490 us), the database's single-block reads. Without waits, the event itself."""
    return max(rows.values(), key=lambda row: (row[2] if row[2] is not None else -1, row[0].strip() == key))


def _key_event_waits(fg: _Table | None, bg: _Table | None) -> dict[str, int]:
    """Waits of the rows :func:`_key_events` takes its averages from (same row selection)."""
    return {name: waits for name, (_, _, waits) in _key_event_rows(fg, bg).items() if waits is not None}


def _key_event_names(fg: _Table | None, bg: _Table | None) -> dict[str, str]:
    """The event each key event was read from, as printed (``cell single block physical read``
    on Exadata for ``db file sequential read``)."""
    return {name: printed for name, (printed, _, _) in _key_event_rows(fg, bg).items()}


def _event_histograms(report: _TextReport | _HtmlReport, titles: Iterable[str]) -> list[dict[str, Any]] | None:
    """The key events' rows of the sections ``titles``; ``None`` when the report has none of them."""
    out: list[dict[str, Any]] = []
    found = False
    for title in titles:
        table = _section(report, title)
        if table is None:
            continue
        found = True
        c_event = table.col("Event")
        c_waits = 1
        for row in table.rows:
            key = key_event(_event_name(row[c_event], title))
            if key is None:
                continue
            for i in range(c_waits + 1, len(table.header)):
                printed = _cell(row, i)
                match = _PCT_RE.match(printed) if printed else None
                if printed and not match:
                    raise ParseError(f"section {title!r}: bad percentage {printed!r} for {row[c_event]!r}")
                out.append(
                    {
                        "section": title,
                        "event": key,
                        "event_printed": row[c_event],
                        "waits_printed": row[c_waits],
                        "waits": _int_or_none(parse_count(row[c_waits])),
                        "bucket": table.header[i],
                        # The reports say: "value of null is truly 0".
                        "pct": float(match.group(1)) if match else 0.0,
                        "pct_printed": printed,
                    }
                )
    return _one_event_per_key(out) if found else None


def _one_event_per_key(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The histogram rows of one printed event per key event and section: where a key event and its
    equivalent are both printed, the one with the most waits (:func:`_most_waits`)."""
    events: dict[tuple[str, str], dict[str, tuple[str, None, int | None]]] = {}
    for row in rows:
        printed = row["event_printed"].strip()
        events.setdefault((row["section"], row["event"]), {}).setdefault(printed, (printed, None, row["waits"]))
    chosen = {place: _most_waits(place[1], found)[0] for place, found in events.items()}
    return [row for row in rows if row["event_printed"].strip() == chosen[(row["section"], row["event"])]]


def _histograms(report: _TextReport | _HtmlReport, sections: _Sections, titles: Iterable[str]) -> list[dict[str, Any]]:
    """The key events' rows of each histogram section, each section read on its own; an event
    missing from a section its waits reach (:func:`_histogram_gap`) loses its rows, named."""
    rows: list[dict[str, Any]] = []
    for title in titles:
        rows += sections.read(title, lambda t=title: _event_histograms(report, (t,)), empty=[]) or []
    for event in dict.fromkeys(row["event"] for row in rows):
        gap = _histogram_gap(rows, event)
        if gap:
            sections.not_understood.append({"section": gap[0], "reason": gap[1]})
            rows = [row for row in rows if row["event"] != event]
    return rows


_BOUND_RE = re.compile(r"(\d+)")


def _histogram_gap(rows: list[dict[str, Any]], event: str) -> tuple[str, str] | None:
    """``(section, why)`` where ``event`` has waits beyond a section's last bucket (``>=512us``
    above 0) but no row in the section printed (with rows) that starts at that bound (``<512us``):
    a line lost, whose share would be taken from coarser cells; else None."""
    by_section: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_section.setdefault(row["section"], []).append(row)
    starts = {_BOUND_RE.search(cells[0]["bucket"]).group(1): title for title, cells in by_section.items()
              if _BOUND_RE.search(cells[0]["bucket"])}
    for title, cells in by_section.items():
        mine = [c for c in cells if c["event"] == event]
        last = mine[-1] if mine else None
        bound = _BOUND_RE.search(last["bucket"]) if last and last["bucket"].startswith(">") else None
        following = starts.get(bound.group(1)) if bound and last["pct"] > 0 else None
        if following and following != title and not any(c["event"] == event for c in by_section[following]):
            return following, (f"no row of {event!r}, whose waits of {last['bucket']} {title!r} prints "
                               f"({last['pct_printed']} %): a line lost?")
    return None

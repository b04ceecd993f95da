"""The tables of vdbench's reports: totals.html and summary.html (and the host and slave reports, in
summary.html's layout) read by their two-line column headers, flatfile.html by its column names, and
the row key of each column."""

from __future__ import annotations

import re
from typing import Any

from flashpoc.core.errors import ParseError
from flashpoc.engines.vdbench.parse.keys import (FLATFILE_NAMES, FLATFILE_TEXT_COLUMNS, RUN_KEYS, SD_HEADER_NAMES,
                                                 SD_METRIC_KEYS)
from flashpoc.engines.vdbench.parse.text import (_DATA, _LABEL, _STARTING, _UNSIGNED_FLOAT, _extra_loop_keys, _lines,
                                                 _number, _run_context, _strip_tags)

_SPARSE_TOLERANCE = 2  # columns a sparse std_/max_ value may sit off its header column


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

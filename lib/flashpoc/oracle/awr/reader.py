"""Reading an AWR report: the file (gunzipped, decoded), its format and kind, and :func:`parse_awr`, which
hands a Statspack report to :mod:`flashpoc.oracle.statspack` and an AWR report to the reader of its kind."""

from __future__ import annotations

import gzip
import re
from pathlib import Path
from typing import Any

from flashpoc.core.errors import ParseError
from flashpoc.oracle.awr.instance import _parse_instance
from flashpoc.oracle.awr.rac import _parse_rac_global
from flashpoc.oracle.reportparse.sections import STATSPACK_TITLE, TRUNCATED, _instance_efficiency, is_truncated
from flashpoc.oracle.reportparse.tables import _HtmlReport, _TextReport


def read_awr_file(path: str | Path) -> str:
    """Read an AWR report file, gunzipping ``*.gz``, and decode it.

    Args:
        path: Path of a ``.txt``, ``.html``, ``.htm`` or ``*.gz`` report.

    Returns:
        The report text (UTF-8, undecodable bytes replaced; CRLF kept as read).

    Raises:
        ParseError: The file is a ``.gz`` that is not valid gzip.
    """
    path = Path(path)
    return decode_report(path.read_bytes(), str(path), what="AWR report ")


def decode_report(data: bytes, name: str, *, what: str = "") -> str:
    """Decode a report's bytes, gunzipping them when ``name`` ends in ``.gz``.

    Args:
        data: the file's contents.
        name: its name or path (for the suffix and messages).
        what: words put before ``name`` in the error message.

    Returns:
        The text (UTF-8, undecodable bytes replaced; CRLF kept as read).

    Raises:
        ParseError: a ``.gz`` that is not valid gzip.
    """
    if name.endswith(".gz"):
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise ParseError(f"{what}{name}: not a valid gzip file ({exc})") from exc
    return data.decode("utf-8", errors="replace")


def detect_awr_format(text: str) -> tuple[str, str]:
    """Tell the rendering and the kind of an AWR report.

    Args:
        text: The whole report.

    Returns:
        ``(format, kind)``: format ``"text"`` or ``"html"``, kind ``"instance"`` or
        ``"rac_global"``.

    Raises:
        ParseError: The text is not an AWR report.
    """
    if not text or not text.strip():
        raise ParseError("AWR report is empty")
    html_at = re.search(r"<html", text, re.IGNORECASE)
    if html_at:
        head = text[html_at.start() : html_at.start() + 4000]
        if re.search(r"AWR RAC Report for DB:|WORKLOAD REPOSITORY REPORT \(RAC\)", head):
            return "html", "rac_global"
        if re.search(r"AWR Report for DB:|WORKLOAD REPOSITORY report for", head):
            return "html", "instance"
        raise ParseError("HTML without an AWR title ('AWR Report for DB:' / 'AWR RAC Report for DB:')")
    head = text[:4000]
    if "WORKLOAD REPOSITORY REPORT (RAC)" in head:
        return "text", "rac_global"
    if re.search(r"WORKLOAD REPOSITORY (?:PDB )?report", head):  # "report for", "PDB report (...)"
        return "text", "instance"
    raise ParseError(
        "not an AWR report: expected 'WORKLOAD REPOSITORY report for', "
        "'WORKLOAD REPOSITORY REPORT (RAC)' or an HTML 'AWR Report for DB:' title"
    )


def parse_awr(text: str, *, allow_truncated: bool = False) -> dict[str, Any]:
    """Parse an AWR report (text or HTML, instance or RAC global), or a Statspack report (text: one
    that starts with ``STATSPACK report for`` is read by :func:`flashpoc.oracle.statspack.parse_statspack`,
    into the same dict with ``format`` ``"statspack"``).

    Args:
        text: The whole report, decoded (see :func:`read_awr_file` for ``.gz``).
        allow_truncated: Accept a report without its closing ``End of Report`` line. By
            default such a report is refused, since a cut in the middle of a row could
            otherwise yield a wrong number.

    Returns:
        A dict with ``format``, ``kind``, ``header``, ``load_profile``, ``top_events``,
        ``key_events``, ``key_events_whole_ms`` (those printed in whole milliseconds, 11.2's
        ``Avg wait (ms)``), ``event_histograms``, ``iostat_by_function``, ``tablespace_io``,
        ``file_io``, ``host_cpu``, ``key_event_waits``, for instance reports whose Load Profile has no
        ``Read IO requests`` (11.2.0.3 and older) ``instance_activity`` (the ``Instance Activity Stats``,
        rows as ``system_statistics_global``'s), for instance reports
        ``instance_efficiency`` (``buffer_hit_pct``: "Buffer Hit %", or ``None``), and for RAC global reports
        ``host_cpu_by_instance``, ``system_statistics_per_second``,
        ``time_model_by_instance`` and ``system_statistics_global`` (rows ``statistic``,
        ``total``, ``per_second``, ``per_transaction``), ``key_event_names`` (the event each
        key event was read from) and ``sections`` (``read``, ``absent``: section names;
        ``not_understood``: ``{"section", "reason"}``, also where two sections that print the same
        figures disagree; ``truncated``: :data:`TRUNCATED`, only in a report read with
        ``allow_truncated`` that is cut short). Sections a kind of report does not have, or that
        could not be read, are ``None`` (see the module docstring).

    Raises:
        ParseError: The input is empty, not an AWR report, truncated (no ``End of Report``),
            or no section of it could be read.
    """
    if STATSPACK_TITLE in text[:2000]:  # a Statspack report reads the same (flashpoc.oracle.statspack)
        from flashpoc.oracle.statspack import is_statspack, parse_statspack

        if is_statspack(text):
            return parse_statspack(text, allow_truncated=allow_truncated)
    fmt, kind = detect_awr_format(text)
    truncated = is_truncated(text, f"AWR {fmt}", allow_truncated)
    report: _TextReport | _HtmlReport = _TextReport(text) if fmt == "text" else _HtmlReport(text)
    if truncated and isinstance(report, _TextReport):
        report.lines = report.lines[:-1]  # the line at the cut may be a row cut short: "40" read as "4"
    if kind == "rac_global":
        result = _parse_rac_global(report)
    else:
        result = _parse_instance(report)
        result["instance_efficiency"] = _instance_efficiency(text)
    if truncated:
        result["sections"]["truncated"] = TRUNCATED
    return {"format": fmt, "kind": kind, **result}

"""Parse Oracle AWR reports (text or HTML) into a dict of tidy rows.

Pure functions: text in, dicts/rows out. Nothing here prints or exits. Each section is read
on its own: one that is absent or cannot be understood is ``None`` (``[]`` for histograms)
and named in the result's ``sections`` (``read``, ``absent``, ``not_understood`` with the
reason), so one odd section never loses the report; input that is not an AWR report, is cut
(no ``End of Report``) or has no readable section at all raises
:class:`flashpoc.core.errors.ParseError` in one line. The one helper that touches the file system
is :func:`read_awr_file` (gunzip + decode).

Versions differ in wording, not in meaning: columns are found by what they hold
(:func:`column_meaning`: ``Avg wait``, ``Avg Wait (ms)``, ``Wait Avg(ms)``, ``Avg Wt(ms)`` are
all the average wait) and a bare number takes the unit its header names
(:func:`header_unit`). Key events are the names of :data:`KEY_EVENTS` in their wait class
(:data:`KEY_EVENT_CLASSES`), or an event that stands for one on another platform
(:data:`EQUIVALENT_EVENTS`: Exadata's ``cell single block physical read`` for ``db file
sequential read``); ``key_event_names`` says which event each was read from.

HTML is indexed by regular expressions (table start/end, ``summary`` attribute, the heading
above) and a table is cut into cells only when a section reads it (html.parser spent most of
the parse on the hundreds of tables no section reads). A cell counts only when closed by its
``</td>``; a re-saved report with doubled quotes (``summary=""..""``) is undone first.

Both renderings are first reduced to the same shape -- a titled table with a header (one
string per column) and rows (one string per cell, as printed) -- and every section is then
read by its column names, so the text and HTML renderings of one report give the same numbers.

A damaged report loses numbers, never changes one: an HTML row short of a cell is refused (its
numbers would move a column), and what a report prints twice is cross-checked, both figures lost
(named in ``not_understood``) where they disagree: the Top 10 events' waits and the Foreground Wait
Events' (:func:`_top_events_unlike`), the Load Profile rows every report prints
(:data:`_LOAD_PROFILE_ROWS`), a tablespace's I/O and its files' (both tables), a file's single-block
reads and its reads, a RAC global report's transactions and its instances' (:func:`transactions_checked`,
Statspack's with its Load Profile's), an event's histogram rows and the section its waits reach
(:func:`_histogram_gap`); a wait event name with a byte no event name has is a damaged row
(:data:`_EVENT_NAME_RE`), and a section every report prints not found is not understood, not absent.

* Text: a table is located under its section title (a form feed before the title, as 11.2 spools
  each page, is dropped); its columns are the runs of ``-`` (or
  ``~``) of the separator line under the header; a cell is the text between the end of the
  previous column and the end of its own column (numbers are right-aligned). Event names
  are truncated to the column width in text (e.g. ``gc current grant read-most``); the key
  events are short enough to be complete.
* HTML: tables come with a ``summary`` attribute and/or follow an ``<h3>`` section title;
  SQL*Plus prompt text before ``<html>``, uppercase tags and CRLF line ends are accepted.
* A text report printed by a SQL*Plus query (``SELECT * FROM TABLE(AWR_REPORT_TEXT(...))``) has
  a blank line and the column heading ``OUTPUT`` atop each page, inside tables: both are dropped.

Units follow the key names: ``*_us`` microseconds, ``*_s`` seconds, ``*_min`` minutes,
``*_pct`` percent, ``*_mb`` MiB (AWR's ``M``/``G`` data suffixes are multiples of 1024).
Latency cells carry their own unit (``350.19us``, ``10.37ms``, ``52.86 s``, ``.00ns``; RAC
reports truncate ``ms`` to ``m`` in narrow columns: ``3638.43m``) and are converted to
microseconds; a column headed ``(ms)`` without units in the cells is read as milliseconds.
Abbreviated counts (``12.2K``, ``10.2M``, ``2.8E+04``) are expanded by powers of 1000 and
the printed text is kept next to the number.

Coverage, as seen in the fixtures (11.2.0.3, 11.2.0.4 (HTML and text), 12.1.0.2, 12.2.0.1, 18c
and 19c, single instance, RAC instance and global, container databases (root and PDB reports,
HTML and text), Exadata; no 21c or 23ai report was found):

* instance reports (single instance or one RAC instance), text and HTML: header, load
  profile, top foreground events, key events, event histograms, IOStat by function, host
  CPU, tablespace/file IO (:func:`_io_stats`: reads, writes, buffer waits and their averages
  per tablespace and per file, and their container in a CDB; ``[]`` when the report prints "No
  data exists", as most 12.2, 18c and 19c reports here do; a text report prints each row on two
  lines, names then figures; 11.2.0.4 prints the tablespace table's cells in another order than
  its header, read in that order where they add up to the files').
* RAC global reports (``WORKLOAD REPOSITORY REPORT (RAC)``), text and HTML: header
  (database summary + instance list), key events from the ``(Global)`` foreground /
  background wait events (cluster-wide average), key-event histograms from ``Wait Event
  Histogram (Global)``, per-instance host CPU (``host_cpu_by_instance``), per-instance
  ``system_statistics_per_second`` and ``time_model_by_instance`` (``Time Model``: DB time,
  DB CPU, bg CPU ... in seconds), and the cluster-wide ``System Statistics (Global)``
  (``system_statistics_global``: every statistic's Total, per Second and per Trans; the text
  report prints it on several pages with the same title, which are merged; large values are
  printed like ``4.5200871E+08``; the HTML prints two decimals where the text prints one;
  runs of spaces in statistic names are collapsed, as in HTML).
  Not parsed for RAC global: load profile (there is none),
  top events, IOStat, tablespace/file IO, the per-instance ``Top Timed Events`` breakdown,
  global cache / interconnect sections.
* Both kinds: ``key_event_waits`` -- the ``Waits`` count of the same wait-event rows the
  ``key_events`` averages come from (foreground rows for foreground key events, background
  rows for background ones).
"""

from __future__ import annotations

import gzip
import html
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from flashpoc.core.errors import ParseError

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

_LATENCY_FACTORS_US: dict[str, float] = {
    "ns": 0.001,
    "us": 1.0,
    "ms": 1000.0,
    "m": 1000.0,  # RAC reports truncate "ms" to "m" in narrow columns (e.g. 3638.43m).
    "s": 1_000_000.0,
}
_COUNT_FACTORS: dict[str, float] = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}
_DATA_FACTORS_MB: dict[str, float] = {"K": 1 / 1024, "M": 1.0, "G": 1024.0, "T": 1024.0**2, "P": 1024.0**3}

_DIGITS = r"(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
"""Digits, a comma only between groups of three before the point (``1,174,558``, ``.9``, ``2.8E+04``):
a damaged ``38.4`` (``3,.4``) is not a number, never read as 3.4."""
_NUMBER = rf"\+?{_DIGITS}"
"""A count, latency, share or size as AWR prints it: never negative (a ``-`` there is a corrupted
report, refused rather than read as a number; only System Statistics deltas may be negative)."""
_LATENCY_RE = re.compile(rf"^({_NUMBER})\s*(ns|us|ms|m|s)?$")
_COUNT_RE = re.compile(rf"^({_NUMBER})\s*([KMGTP]?)$")
_PCT_RE = re.compile(r"^(\+?(?:\d+(?:\.\d*)?|\.\d+))(?:\((\d+)\)?)?$")  # no comma; text may cut the ")": 0.0(2066
_SIGNED_RE = re.compile(rf"[-+]?{_DIGITS}")
_DASH_LINE_RE = re.compile(r"^[ \-~]*[-~]{2,}[ \-~]*$")
_NO_DATA = "No data exists for this section of the report"
STATSPACK_TITLE = "STATSPACK report for"
"""The first line of a Statspack report (:func:`parse_awr` hands it to :mod:`flashpoc.oracle.statspack`)."""


# --------------------------------------------------------------------------- file reading


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


# --------------------------------------------------------------------------- cell values


def parse_latency_us(cell: str, default_unit: str | None = None) -> float | None:
    """Convert a latency cell such as ``350.19us``, ``10.37ms`` or ``52.86 s`` to microseconds.

    Args:
        cell: The cell as printed.
        default_unit: Unit of a bare number (``"ms"`` for an ``Avg wait (ms)`` column);
            with ``None`` a bare number is an error.

    Returns:
        Microseconds, or ``None`` for a blank cell.

    Raises:
        ParseError: The cell is not a latency.
    """
    text = cell.strip()
    if not text:
        return None
    match = _LATENCY_RE.match(text)
    unit = (match.group(2) if match else None) or default_unit
    if not match or unit is None:
        raise ParseError(f"expected a latency with a unit (ns/us/ms/s), got {cell!r}")
    return round(float(match.group(1).replace(",", "")) * _LATENCY_FACTORS_US[unit], 6)


def parse_count(cell: str) -> float | None:
    """Convert a count such as ``1,174,558``, ``12.2K``, ``10.2M`` or ``2.8E+04`` to a number.

    Args:
        cell: The cell as printed (K/M/G/T/P are multiples of 1000).

    Returns:
        The number, or ``None`` for a blank cell.

    Raises:
        ParseError: The cell is not a count.
    """
    text = cell.strip()
    if not text:
        return None
    match = _COUNT_RE.match(text)
    if not match:
        raise ParseError(f"expected a number (optionally suffixed K/M/G/T/P), got {cell!r}")
    return round(float(match.group(1).replace(",", "")) * _COUNT_FACTORS[match.group(2)], 6)


def _whole(cell: str) -> int:
    """A whole-number cell (snapshot id, DB Id, instance number, CPUs): digits only."""
    text = str(cell).strip()
    if not text.isdecimal() or not text.isascii():
        raise ParseError(f"expected a whole number, got {cell!r}")
    return int(text)


def _int_or_none(value: float | None) -> int | None:
    return None if value is None else int(round(value))


def _data_mb(cell: str) -> float | None:
    """AWR IOStat 'Data' cell (``77.8G``, ``843M``, ``.036M``) in MiB; ``None`` without a suffix."""
    text = cell.strip()
    match = re.match(rf"^({_NUMBER})([KMGTP])$", text)
    if not match:
        return None
    return round(float(match.group(1).replace(",", "")) * _DATA_FACTORS_MB[match.group(2)], 6)


def _float(cell: str, what: str, *, signed: bool = False) -> float | None:
    """A plain number cell (``1,234.5``, ``4.52E+08``); ``None`` when blank. Only ``signed``
    cells (statistic deltas such as ``session pga memory``) may be negative."""
    text = cell.strip()
    if not text:
        return None
    if not _SIGNED_RE.fullmatch(text) or (text[0] == "-" and not signed):
        raise ParseError(f"{what}: expected a {'' if signed else 'non-negative '}number, got {cell!r}")
    return float(text.replace(",", ""))


# --------------------------------------------------------------------------- tables


class _Table:
    """A table as printed: a title, column names and rows of cell strings."""

    def __init__(self, title: str, header: list[str], rows: list[list[str]]):
        self.title = title
        self.header = header
        self.rows = rows

    def col(self, *names: str, required: bool = True) -> int | None:
        """Index of the first column whose normalized name equals one of ``names``."""
        wanted = [_norm(n) for n in names]
        for name in wanted:
            for i, head in enumerate(self.header):
                if _norm(head) == name:
                    return i
        if required:
            raise ParseError(
                f"section {self.title!r}: expected a column named {names[0]!r}, "
                f"found {self.header}"
            )
        return None

    def col_by(self, meaning: str, required: bool = True) -> int | None:
        """Index of the first column whose header has ``meaning`` (see :func:`column_meaning`)."""
        for i, head in enumerate(self.header):
            if column_meaning(head) == meaning:
                return i
        if required:
            raise ParseError(f"section {self.title!r}: expected a column of {meaning!r}, found {self.header}")
        return None

    def dicts(self) -> list[dict[str, str]]:
        return [dict(zip(self.header, row)) for row in self.rows]


_HEADER_UNIT_RE = re.compile(r"\(\s*(ns|us|ms|s|sec|secs)\s*\)\s*$")


def header_unit(header: str) -> str | None:
    """The time unit a column header names at its end (``Avg Wait (ms)``, ``Wait Avg(ms)``,
    ``Time (s)``, ``Total Wait Time (sec)``): ``"ns"``, ``"us"``, ``"ms"`` or ``"s"``; ``None``
    without one (``Avg wait``, whose cells carry their unit)."""
    match = _HEADER_UNIT_RE.search(_norm(header))
    if not match:
        return None
    return "s" if match.group(1).startswith("s") else match.group(1)


def column_meaning(header: str) -> str | None:
    """What a column holds, read from its header whatever the version's wording.

    ``"event"``, ``"waits"`` (a count), ``"avg_wait"`` (``Avg wait``, ``Avg Wait (ms)``,
    ``Wait Avg(ms)``, ``Avg Wt(ms)``, ``Avg wait (ms)``), ``"total_time"`` (``Time (s)``,
    ``Time(s)``, ``Total Wait Time (sec)``, ``Total Wait Time (s)``, and 11.2's text ``Tota
    Time``, the cut ``Total Wait Time (sec)``: in seconds, as every total wait time), ``"pct_time"`` (``% DB
    time``, ``%Total Call Time``, ``% bg time``), ``"wait_class"``; ``None`` for any other.
    """
    text = re.sub(r"[^a-z%/]+", " ", _norm(header)).strip()
    words = text.split()
    if text == "event":
        return "event"
    if text == "waits":
        return "waits"
    if text == "wait class":
        return "wait_class"
    if "avg" in words and ("wait" in words or "wt" in words) and "/" not in text:
        return "avg_wait"
    if "%" in text and "time" in words:
        return "pct_time"
    if "time" in words and "avg" not in words and "%" not in text and header_unit(header) == "s":
        return "total_time"
    if words[:1] in (["tot"], ["tota"], ["total"]) and words[-1:] == ["time"] and header_unit(header) is None:
        return "total_time"  # 11.2's text Top 10 cuts "Total Wait Time (sec)" to its 4 columns: "Tota Time"
    return None


def _norm(name: str) -> str:
    return re.sub(r"\s+", " ", name).strip().lower()


def _cell(row: Sequence[str], index: int | None) -> str:
    if index is None or index >= len(row):
        return ""
    return row[index]


# --------------------------------------------------------------------------- text reports


def _dash_runs(line: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(r"[-~]+", line)]


def _is_dash(line: str) -> bool:
    return bool(_DASH_LINE_RE.match(line))


def _is_title(line: str) -> bool:
    """A section title line of a text report (``Foreground Wait Events   DB/Inst: ORCL/orcl1  Snaps: 2-3``)."""
    return "DB/Inst:" in line and not line.startswith((" ", "-", "~"))


def _column_names(header_lines: list[str], runs: list[tuple[int, int]]) -> list[str]:
    """The name of each column (``runs`` of its rule), its header's words on every line joined."""
    cells = [_slice_cells(line, runs) for line in header_lines]
    return [" ".join(c[i] for c in cells if c[i]) for i in range(len(runs))]


_FIGURE = r"(?:[\d,.]+[KMGTP]?|N/A|#+)"
_FIGURES_RE = re.compile(rf"^\s*{_FIGURE}(?:\s+{_FIGURE})*\s*$")
"""A line of figures only (counts, averages, ``N/A``, SQL*Plus's ``###`` for a number too wide)."""


def _slice_cells(line: str, runs: list[tuple[int, int]]) -> list[str]:
    cells = []
    prev_end = 0
    for i, (_, end) in enumerate(runs):
        stop = len(line) if i == len(runs) - 1 else end
        cells.append(line[prev_end:stop].strip())
        prev_end = end
    return cells


_SQLPLUS_HEADING = "OUTPUT"
"""The column heading SQL*Plus prints atop each page of ``SELECT * FROM
TABLE(DBMS_WORKLOAD_REPOSITORY.AWR_REPORT_TEXT(...))`` (the function's one column)."""


def _without_sqlplus_pages(lines: list[str]) -> list[str]:
    """The report's lines without the page breaks of a SQL*Plus query that printed it: each page
    starts with a blank line and the column heading ``OUTPUT``, which cut tables in two (a Top 10
    header, a Load Profile read up to the first break). Both lines are dropped."""
    if _SQLPLUS_HEADING not in lines:
        return lines
    out: list[str] = []
    for line in lines:
        if line == _SQLPLUS_HEADING:
            if out and not out[-1].strip():
                out.pop()
            continue
        out.append(line)
    return out


class _TextReport:
    """Index of a text report: section titles and the tables under them."""

    io_rows_apart = False
    """Whether the two-line rows of "Tablespace IO Stats" / "File IO Stats" may be separated by blank
    lines (Statspack's File IO Stats): then only a rule or the next title ends the table."""

    def __init__(self, text: str):
        # A report spooled to a file starts each page with a form feed (^L) before its section
        # title (11.2's awrrpt): dropped, or no title would start its line.
        text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\f", "")
        self.lines = _without_sqlplus_pages(text.split("\n"))

    def title_lines(self, title: str) -> list[int]:
        """Line numbers where a section with exactly this title starts."""
        found = []
        for i, line in enumerate(self.lines):
            if not line.startswith(title):
                continue
            rest = line[len(title) :]
            # 11.2 runs a long title into its "DB/Inst:" ("... (64 msec to 2 sec)DB/Inst: ...")
            if rest.strip() == "" or rest.startswith("DB/Inst:") or (rest.startswith("  ") and "DB/Inst:" in rest):
                found.append(i)
        return found

    def has(self, title: str) -> bool:
        """Whether the report prints a section of this title (with rows or "No data exists")."""
        return bool(self.title_lines(title))

    def no_data(self, start: int) -> bool:
        for line in self.lines[start + 1 : start + 6]:
            if _NO_DATA in line:
                return True
        return False

    def find(self, pattern: str, limit: int | None = None) -> list[int]:
        """Line numbers matching a regex (searched in the first ``limit`` lines)."""
        regex = re.compile(pattern)
        lines = self.lines if limit is None else self.lines[:limit]
        return [i for i, line in enumerate(lines) if regex.match(line)]

    def table_at(self, start: int, title: str, title_is_header: bool = False) -> _Table | None:
        """The table under the title line ``start`` (``None`` when the report has no data).

        With ``title_is_header`` the title line is itself the (first) header line.
        """
        if self.no_data(start):
            return None
        lines = self.lines
        sep = None
        for j in range(start + (0 if title_is_header else 1), min(start + 40, len(lines))):
            line = lines[j]
            if _is_title(line):
                break  # the next section started
            if not _is_dash(line) or len(_dash_runs(line)) < 2:
                continue
            if any(_is_dash(lines[k]) and len(_dash_runs(lines[k])) >= 2
                   for k in range(j + 1, min(j + 3, len(lines)))):
                continue  # a group header rule; the column rule comes later (a one-run rule
                # there is the rule closing a table of one row, not a column rule)
            sep = j
            break
        if sep is None:
            raise ParseError(f"section {title!r} (line {start + 1}): no column header rule found")
        runs = _dash_runs(lines[sep])
        header_lines = []
        lowest = start if title_is_header else start + 1
        k = sep - 1
        while k >= lowest:
            line = lines[k]
            if not line.strip() or _is_dash(line) or line.lstrip().startswith("->"):
                break
            header_lines.insert(0, line)
            k -= 1
        header = _column_names(header_lines, runs)
        rows = []
        for line in lines[sep + 1 :]:
            if not line.strip() or _is_dash(line) or _is_title(line):
                break  # 11.2 starts a continuation page right under the last row, without a blank line
            rows.append(_slice_cells(line, runs))
        return _Table(title, header, rows)

    def tables(self, title: str) -> list[_Table] | None:
        """All pages of a section; ``[]`` if it prints no data, ``None`` if it is absent."""
        starts = self.title_lines(title)
        if not starts:
            return None
        tables = [self.table_at(s, title) for s in starts]
        return [t for t in tables if t is not None]

    def table(self, title: str) -> _Table | None:
        """One section with its continuation pages merged."""
        tables = self.tables(title)
        if not tables:
            return None
        return _Table(title, tables[0].header, [r for t in tables for r in t.rows])


# --------------------------------------------------------------------------- HTML reports


_BLOCK_RE = re.compile(r"<(table|h[123])\b([^>]*)>", re.IGNORECASE)
_END_HEADING_RE = {n: re.compile(rf"</h{n}\s*>", re.IGNORECASE) for n in "123"}
_END_TABLE_RE = re.compile(r"</table\s*>", re.IGNORECASE)
_ANY_TAG_RE = re.compile(r"""<[^>"']*(?:(?:"[^"]*"|'[^']*')[^>"']*)*>""")
_SUMMARY_RE = re.compile(r"""\bsummary\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.IGNORECASE)
_DOUBLED_QUOTES_RE = re.compile(r'=""([^"<>]*)""')
_HIDDEN_RE = re.compile(r"<!--.*?-->|<(script|style)\b.*?</\1\s*>", re.IGNORECASE | re.DOTALL)


def _html_text(fragment: str) -> str:
    """The text of a piece of markup, as a browser shows it on one line."""
    if "<" in fragment:
        fragment = _ANY_TAG_RE.sub("", fragment)
    if "&" in fragment:
        fragment = fragment.replace("&#160;", " ").replace("&nbsp;", " ")  # AWR's empty cells
        if "&" in fragment:
            fragment = html.unescape(fragment)
    return " ".join(fragment.split())


class _LazyTable(_Table):
    """A table of the HTML report, cut into rows and cells the first time it is read: a report
    has hundreds of tables and the parser reads a handful (most of the time of parsing a whole
    2 MB report went into tables never read)."""

    def __init__(self, title: str, markup: str):
        self.title = title
        self._markup: str | None = markup

    def _cut(self) -> None:
        header, rows = _html_rows(self._markup or "")
        self._header, self._rows, self._markup = header, rows, None

    @property
    def header(self) -> list[str]:  # type: ignore[override]
        if self._markup is not None:
            self._cut()
        return self._header

    @property
    def rows(self) -> list[list[str]]:  # type: ignore[override]
        if self._markup is not None:
            self._cut()
        return self._rows


_ROW_CELL_RE = re.compile(r"""<(?:([tT][rR])|(/[tT][rR])|([tT][dDhH])|(/[tT][dDhH]))\b[^>"']*(?:(?:"[^"]*"|'[^']*')[^>"']*)*>""")
"""A row or cell tag; a quoted attribute may hold a ``>`` (a re-saved report's ``<TD
headers="%ofTotalWaits >=512us" align=right>``)."""


def _html_rows(markup: str) -> tuple[list[str], list[list[str]]]:
    """Header and rows of a table's inner markup. A cell is kept only when it is closed by its
    ``</td>``/``</th>`` (a damaged cell is lost, never merged into its neighbour); the header is
    the last row of ``<th>`` cells before the first data row."""
    raw_rows: list[list[tuple[bool, str]]] = []
    row: list[tuple[bool, str]] | None = None
    is_th, cell_start = False, -1
    text = _html_text
    for match in _ROW_CELL_RE.finditer(markup):
        kind = match.lastindex
        if kind == 4:  # </td>, </th>
            if cell_start >= 0 and row is not None:
                row.append((is_th, text(markup[cell_start:match.start()])))
            cell_start = -1
        elif kind == 3:  # <td>, <th>
            if row is not None:
                is_th, cell_start = match.group(3)[1] in "hH", match.end()
        else:  # <tr>, </tr>
            cell_start = -1
            if kind == 1:
                row = []
                raw_rows.append(row)
    header: list[str] = []
    rows: list[list[str]] = []
    for cells in raw_rows:
        if not cells:
            continue
        if not rows and any(th for th, _ in cells):
            header = [value for _, value in cells]  # the last header row names the columns
        else:
            rows.append([value for _, value in cells])
    return header, rows


class _HtmlReport:
    """Index of an HTML report: tables by summary text or by the heading above them."""

    def __init__(self, text: str):
        if '=""' in text[:20000]:
            # Saved through a tool that doubled every quote (summary=""This table ..."",
            # class=""awr""): undo it, or no attribute and so no table summary can be read.
            text = _DOUBLED_QUOTES_RE.sub(r'="\1"', text)
        if re.search(r"<!--|<script|<style", text, re.IGNORECASE):
            text = _HIDDEN_RE.sub(lambda m: " " * len(m.group(0)), text)
        self.tables_list: list[tuple[str, str, _Table]] = []  # (heading, summary, table)
        self.headings: list[str] = []
        heading = ""
        pos = 0
        while True:
            match = _BLOCK_RE.search(text, pos)
            if match is None:
                break
            tag = match.group(1).lower()
            if tag == "table":
                end = _END_TABLE_RE.search(text, match.end())
                stop = end.start() if end else len(text)
                summary = _SUMMARY_RE.search(match.group(2))
                summary_text = _html_text((summary.group(1) or summary.group(2) or "") if summary else "")
                self.tables_list.append(
                    (heading, summary_text, _LazyTable(heading or summary_text, text[match.end():stop])))
                pos = end.end() if end else len(text)
            else:
                end = _END_HEADING_RE[tag[1]].search(text, match.end())
                stop = end.start() if end else len(text)
                heading = _html_text(text[match.end():stop])
                self.headings.append(heading)
                pos = end.end() if end else len(text)

    def has(self, heading: str) -> bool:
        """Whether the report prints a section under this heading."""
        return heading in self.headings

    def by_summary(self, pattern: str) -> _Table | None:
        for _, summary, table in self.tables_list:
            if re.search(pattern, summary, re.IGNORECASE):
                return table
        return None

    def under_heading(self, heading: str) -> list[_Table] | None:
        """Tables under an exact heading; ``[]`` if it prints no data, ``None`` if absent."""
        if heading not in self.headings:
            return None
        return [t for h, _, t in self.tables_list if h == heading]

    def table(self, heading: str) -> _Table | None:
        tables = self.under_heading(heading)
        if not tables:
            return None
        return _Table(heading, tables[0].header, [r for t in tables for r in t.rows])


# --------------------------------------------------------------------------- detection


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


# --------------------------------------------------------------------------- entry point


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


# --------------------------------------------------------------------------- instance reports


class _Absent(ParseError):
    """A section the report does not have (or prints without rows)."""


class _Disagree(ParseError):
    """Two sections that print the same figures disagree: either may be damaged."""


def _always_printed(reader: Any, report: _TextReport | _HtmlReport) -> Any:
    """``reader(report)`` of a section every report of its kind prints (its header): one not found
    is damaged (its title line lost?), never absent."""
    try:
        return reader(report)
    except _Absent as exc:
        raise ParseError(f"{exc}: every such report prints it, its lines lost?") from None


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


def _io_sections(report: _TextReport | _HtmlReport, sections: _Sections, elapsed_s: float | None,
                 version: str | None) -> tuple[list[dict[str, Any]] | None, list[dict[str, Any]] | None]:
    """"File IO Stats" and "Tablespace IO Stats" (:func:`_tablespace_io`): where a tablespace does
    not add up to its files, either table may be the damaged one, so both are not understood."""
    files = sections.read("File IO Stats", lambda: _io_stats(report, "File IO Stats", elapsed_s))
    disagree: list[str] = []

    def tablespaces() -> list[dict[str, Any]] | None:
        try:
            return _tablespace_io(report, elapsed_s, files, version)
        except _Disagree as exc:
            disagree.append(str(exc))
            raise

    rows = sections.read("Tablespace IO Stats", tablespaces)
    if disagree and files is not None:
        files = sections.lose("File IO Stats", disagree[0])
    return files, rows


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


_SNAP_LINE_RE = re.compile(r"^\s*(Begin|End) Snap:\s+(\d+)\s+(\d{2}-\w{3}-\d{2} \d{2}:\d{2}:\d{2})")
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


def _key_event_waits(fg: _Table | None, bg: _Table | None) -> dict[str, int]:
    """Waits of the rows :func:`_key_events` takes its averages from (same row selection)."""
    return {name: waits for name, (_, _, waits) in _key_event_rows(fg, bg).items() if waits is not None}


def _key_event_names(fg: _Table | None, bg: _Table | None) -> dict[str, str]:
    """The event each key event was read from, as printed (``cell single block physical read``
    on Exadata for ``db file sequential read``)."""
    return {name: printed for name, (printed, _, _) in _key_event_rows(fg, bg).items()}


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


def _iostat_by_function(report: _TextReport | _HtmlReport) -> list[dict[str, Any]] | None:
    table = _section(report, "IOStat by Function summary")
    if table is None:
        return None
    # 'Avg Time' (12c+: cells carry their unit) or 'Avg Tm(ms)' (11.2: bare milliseconds)
    unit = header_unit(table.header[8]) if len(table.header) > 8 else None
    out = []
    for row in table.rows:
        cells = [c for c in row]
        if len(cells) < 9:
            cells += [""] * (9 - len(cells))
        name = cells[0].rstrip(":")
        out.append(
            {
                "function": name,
                "read_data_printed": cells[1],
                "read_data_mb": _data_mb(cells[1]),
                "read_reqs_per_s": parse_count(cells[2]),
                "read_data_per_s_printed": cells[3],
                "read_mb_per_s": _data_mb(cells[3]),
                "write_data_printed": cells[4],
                "write_data_mb": _data_mb(cells[4]),
                "write_reqs_per_s": parse_count(cells[5]),
                "write_data_per_s_printed": cells[6],
                "write_mb_per_s": _data_mb(cells[6]),
                "waits_count": _int_or_none(parse_count(cells[7])),
                "avg_time_us": parse_latency_us("" if cells[8] == "N/A" else cells[8], unit),  # text: no waits
            }
        )
    return out


IO_STATS_COLUMNS: dict[str, str] = {
    "tablespace": "tablespace",
    "filename": "filename",
    "reads": "reads",
    "avreads/s": "reads_per_s",
    "avrds/s": "reads_per_s",
    "avrd(ms)": "avg_read_ms",
    "avblks/rd": "blocks_per_read",
    "1-bkrds/s": "single_block_reads_per_s",
    "av1-bkrd(ms)": "avg_single_block_read_ms",
    "%optreads": "optimized_reads_pct",
    "writes": "writes",
    "avwrites/s": "writes_per_s",
    "writesavg/s": "writes_per_s",
    "avwrites(ms)": "avg_write_ms",
    "bufferwaits": "buffer_waits",
    "avbufwt(ms)": "avg_buffer_wait_ms",
    "pdbname": "pdb_name",
    "mxrdbkt": "max_read_bucket_ms",
}
"""The columns of "Tablespace IO Stats" and "File IO Stats" (their header with every space taken
out, in lower case: 11.2.0.3 prints ``Av Reads/s``, 11.2.0.4 and later ``Av Rds/s`` and
``Writes avg/s``, 12.2 and later's tablespace table ``Av Writes(ms)``; a CDB or PDB report names
each row's container in ``PDB Name``; Statspack's File IO Stats prints ``Mx Rd Bkt``, the upper
bound in ms of the slowest single-block read bucket with reads) -> the row key.
A column of another name is left out."""

_IO_STATS_REQUIRED = ("tablespace", "reads", "avg_read_ms", "writes", "buffer_waits", "avg_buffer_wait_ms")
_IO_STATS_COUNTS = ("reads", "writes", "buffer_waits")
_IO_STATS_WHOLE = (*_IO_STATS_COUNTS, "max_read_bucket_ms")
_IO_STATS_NAMES = ("tablespace", "filename", "pdb_name")
_PLAIN_NUMBER_RE = re.compile(r"\d{1,3}(?:,\d{3})*(?:\.\d+)?")


_SHIFTED_11204 = {"single_block_reads_per_s": "writes", "avg_single_block_read_ms": "single_block_reads_per_s",
                  "writes": "avg_single_block_read_ms"}
"""11.2.0.4's Tablespace IO Stats (text and HTML) prints each row's cells in another order than its
header: under ``1-bk Rds/s`` its writes, under ``Av 1-bk Rd(ms)`` its single-block reads per second,
under ``Writes`` its average single-block read (each in the format of the column it stands under:
``917,089``, ``544.81``, ``0``). Header key -> the key of the cell printed under it."""


def _io_stats(report: _TextReport | _HtmlReport, title: str, elapsed_s: float | None,
              shifted: bool = False) -> list[dict[str, Any]] | None:
    """The rows of "Tablespace IO Stats" or "File IO Stats" (``title``), in the report's order:
    ``tablespace`` (and ``filename``), ``reads``, ``writes``, ``buffer_waits`` (counts over the
    interval), ``avg_read_ms``, ``avg_buffer_wait_ms`` (milliseconds, as printed), and where the
    version prints them ``reads_per_s``, ``writes_per_s``, ``avg_write_ms``, ``blocks_per_read``,
    ``single_block_reads_per_s``, ``avg_single_block_read_ms``, ``optimized_reads_pct``,
    ``max_read_bucket_ms`` (Statspack), and in a CDB or PDB report the row's container ``pdb_name``
    (``PDB Name``). A blank
    cell (a file without reads has no average) or ``N/A`` (text) is None. ``[]`` when the report
    prints "No data exists"; ``None`` when it has no such section. With ``shifted`` the cells are
    read in 11.2.0.4's tablespace order (:data:`_SHIFTED_11204`).

    Cross-check: a row's printed ``reads_per_s`` and ``writes_per_s`` are its reads and writes over
    the report's elapsed time (``elapsed_s``, from the header), to their printed precision; a row
    where they are not has its numbers under the wrong columns and the section is refused.
    """
    if isinstance(report, _TextReport):
        starts = report.title_lines(title)
        tables = None if not starts else [t for t in (_text_io_table(report, s, title) for s in starts) if t]
    else:
        tables = report.under_heading(title)
    if tables is None:
        return None
    out: list[dict[str, Any]] = []
    for table in tables:
        table = _whole_rows(table)
        columns = {i: IO_STATS_COLUMNS.get(re.sub(r"\s+", "", head).lower()) for i, head in enumerate(table.header)}
        missing = [key for key in _IO_STATS_REQUIRED if key not in columns.values()]
        if missing:
            raise ParseError(f"section {title!r}: no column of {missing} in {table.header}")
        if shifted:
            if not set(_SHIFTED_11204) <= set(columns.values()):
                raise ParseError(f"section {title!r}: not in 11.2.0.4's order, which has columns of "
                                 f"{sorted(_SHIFTED_11204)}: {table.header}")
            columns = {i: _SHIFTED_11204.get(key, key) if key else None for i, key in columns.items()}
        read = [(i, key) for i, key in columns.items() if key is not None]
        for row in table.rows:
            entry: dict[str, Any] = {}
            for i, key in read:
                cell = row[i]
                if key in _IO_STATS_NAMES:
                    entry[key] = cell
                elif _PLAIN_NUMBER_RE.fullmatch(cell):  # most cells (hundreds of files): read at once
                    value = float(cell.replace(",", ""))
                    entry[key] = int(value) if key in _IO_STATS_WHOLE and value.is_integer() else value
                elif cell == "N/A":  # text: a file without reads has no average
                    entry[key] = None
                elif key in _IO_STATS_COUNTS:
                    entry[key] = _int_or_none(parse_count(cell))
                else:
                    entry[key] = _float(cell, f"{title} {table.header[i]}")
            _check_io_rates(title, entry, elapsed_s)
            out.append(entry)
    return out


def _text_io_table(report: _TextReport, start: int, title: str) -> _Table | None:
    """One page of "Tablespace IO Stats" or "File IO Stats" of a text report (``None`` when it prints
    "No data exists"): a row is printed on two lines, its names (``Tablespace``, ``Filename``)
    under a first rule, its figures on the next line under a second rule; one table with the names'
    columns first is returned, as the HTML rendering prints it. Where the report's rows may be apart
    (:attr:`_TextReport.io_rows_apart`) blank lines between them are skipped. A names line that is the
    text's last line (a report cut there, its cut line dropped) ends the table: that row is lost."""
    if report.no_data(start):
        return None
    lines = report.lines
    rules = [j for j in range(start + 1, min(start + 20, len(lines))) if _is_dash(lines[j])][:2]
    if len(rules) < 2 or rules[1] - rules[0] < 2 or not lines[rules[0] - 1].strip():
        raise ParseError(f"section {title!r} (line {start + 1}): expected a names rule and a figures rule")
    name_runs, figure_runs = _dash_runs(lines[rules[0]]), _dash_runs(lines[rules[1]])
    header = (_slice_cells(lines[rules[0] - 1], name_runs)
              + _column_names(lines[rules[0] + 1: rules[1]], figure_runs))
    rows = []
    j = rules[1] + 1
    while j < len(lines) and not _is_dash(lines[j]) and not _is_title(lines[j]):
        if not lines[j].strip():
            if not report.io_rows_apart:
                break
            j += 1
            continue
        if j + 1 == len(lines):
            break
        names, figures = lines[j], lines[j + 1]
        if _FIGURES_RE.match(names) or not _FIGURES_RE.match(figures):
            raise ParseError(f"section {title!r} (line {j + 1}): expected a line of names, then its figures, "
                             f"got {names.strip()!r}, {figures.strip()!r}")
        rows.append(_slice_cells(names, name_runs) + _slice_cells(figures, figure_runs))
        j += 2
    return _Table(title, header, rows)


def _check_io_rates(title: str, row: dict[str, Any], elapsed_s: float | None) -> None:
    """Refuse a row whose per-second columns are not its counts over the interval (the elapsed
    time is printed to 0.01 min, the rates to a whole number or 0.01)."""
    if not elapsed_s:
        return
    for count, rate in (("reads", "reads_per_s"), ("writes", "writes_per_s")):
        if row.get(count) is None or row.get(rate) is None:
            continue
        computed = row[count] / elapsed_s
        if abs(computed - row[rate]) > 0.5 + 0.001 * computed:
            raise ParseError(f"section {title!r}: {row.get('filename') or row['tablespace']!r} prints {row[count]:,} "
                             f"{count} and {row[rate]:g} {rate.replace('_per_s', '/s')}, not {computed:.1f}/s over "
                             f"the report's {elapsed_s:g} s: its cells are not under their header")
    single, reads = row.get("single_block_reads_per_s"), row.get("reads_per_s")
    if single is not None and reads is not None and single > reads + 0.5:  # each rounded: to 1, or to 0.01
        raise ParseError(f"section {title!r}: {row.get('filename') or row['tablespace']!r} prints {single:g} "
                         f"single-block reads/s of {reads:g} reads/s: its cells are not under their header")


def _tablespace_io(report: _TextReport | _HtmlReport, elapsed_s: float | None,
                   files: list[dict[str, Any]] | None, version: str | None) -> list[dict[str, Any]] | None:
    """"Tablespace IO Stats" (:func:`_io_stats`), cross-checked with "File IO Stats": a
    tablespace's reads, writes and buffer waits are the sums of its files'. A tablespace is known by
    its name and its container (``pdb_name``): the PDBs of a CDB each have a SYSTEM, a SYSAUX.
    A table whose cells are not under their header is refused, but in an AWR report of 11.2.0.4
    (``version``), which may print 11.2.0.4's order (:data:`_SHIFTED_11204`), read that way only
    when every one of its tablespaces then adds up to its files. An 11.2.0.4 report's table is read
    only where every tablespace adds up to its files (without them its shifted cells could pass for
    others: small counts, rates of 0). Another release's table (and a Statspack report's, ``version``
    ``None``: its cells are under their header) is read in its header's order only."""
    in_11204 = (version or "").startswith("11.2.0.4")
    try:
        return _summed_tablespaces(_io_stats(report, "Tablespace IO Stats", elapsed_s), files, partial=not in_11204)
    except ParseError as exc:
        if not in_11204:
            raise
        try:
            return _summed_tablespaces(_io_stats(report, "Tablespace IO Stats", elapsed_s, shifted=True), files,
                                       partial=False)
        except ParseError:
            raise exc from None


def _summed_tablespaces(rows: list[dict[str, Any]] | None, files: list[dict[str, Any]] | None,
                        partial: bool) -> list[dict[str, Any]] | None:
    """``rows``, when each tablespace's reads, writes and buffer waits are its files' sums; unless
    ``partial``, every tablespace must have files to add up."""
    sums: dict[tuple[str | None, str], list[int]] = {}
    for row in files or []:
        total = sums.setdefault((row.get("pdb_name"), row["tablespace"]), [0, 0, 0])
        for i, key in enumerate(_IO_STATS_COUNTS):
            total[i] += row[key] or 0
    for row in rows or []:
        total = sums.get((row.get("pdb_name"), row["tablespace"]))
        printed = [row[key] or 0 for key in _IO_STATS_COUNTS]
        if total is None and not partial:
            raise ParseError(f"section 'Tablespace IO Stats': {row['tablespace']!r} has no files in 'File IO Stats' "
                             f"to add up to: its cells may not be under their header (as 11.2.0.4 prints them)")
        if total is not None and total != printed:
            raise _Disagree(f"section 'Tablespace IO Stats': {row['tablespace']!r} prints reads, writes and buffer "
                             f"waits {printed}, its files in 'File IO Stats' {total}: its cells are not under their "
                             f"header")
    return rows


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


# --------------------------------------------------------------------------- RAC global reports


def _parse_rac_global(report: _TextReport | _HtmlReport) -> dict[str, Any]:
    sections = _Sections()
    fg, bg = _wait_event_tables(report, sections, " (Global)")
    out = {
        "header": sections.read("header", lambda: _always_printed(_rac_header, report)),
        "load_profile": None,
        "top_events": None,
        "key_events": _key_events(fg, bg),
        "key_events_whole_ms": _key_events_whole_ms(fg, bg),
        "event_histograms": _histograms(report, sections, ("Wait Event Histogram (Global)",)),
        "iostat_by_function": None,
        "tablespace_io": None,
        "file_io": None,
        "host_cpu": None,
        "host_cpu_by_instance": sections.read("OS Statistics By Instance", lambda: _rac_host_cpu(report)),
        "system_statistics_per_second": sections.read(
            "System Statistics - Per Second", lambda: _rac_per_instance(report, "System Statistics - Per Second")),
        "key_event_waits": _key_event_waits(fg, bg),
        "key_event_names": _key_event_names(fg, bg),
        "time_model_by_instance": sections.read("Time Model", lambda: _rac_per_instance(report, "Time Model")),
        "system_statistics_global": sections.read("System Statistics (Global)",
                                                  lambda: _system_statistics_global(report)),
    }
    if out["system_statistics_global"]:
        out["system_statistics_global"] = _global_statistics_checked(out["system_statistics_global"],
                                                                     out["system_statistics_per_second"], sections)
    return {**out, "sections": sections.result()}


_PAIRED_STATISTICS = (("physical read IO requests", "physical read bytes"),
                      ("physical write IO requests", "physical write bytes"))
"""Statistics that come in pairs: requests that moved moved bytes (AWR lists no statistic of 0)."""


def _global_statistics_checked(rows: list[dict[str, Any]], per_instance: list[dict[str, Any]] | None,
                               sections: _Sections) -> list[dict[str, Any]]:
    """``System Statistics (Global)`` cross-checked with what the report prints twice: its
    transactions against the instances' ``Txns/s`` summed (:func:`transactions_checked`), and each
    statistic of :data:`_PAIRED_STATISTICS` with its pair (a lost one is named)."""
    txns = [row.get("Txns/s") for row in per_instance or ()]
    if txns and all(isinstance(v, (int, float)) for v in txns):
        rows = transactions_checked(rows, sum(txns), 0.05 * (len(txns) + 1), "System Statistics (Global)",
                                    "the instances' Txns/s summed", sections)
    stats = {row["statistic"]: row for row in rows}
    for first, second in _PAIRED_STATISTICS:
        lone = [(a, b) for a, b in ((first, second), (second, first)) if (stats.get(a) or {}).get("total") and b not in stats]
        if lone:
            sections.not_understood.append({"section": "System Statistics (Global)", "reason": (
                f"{lone[0][0]!r} is listed, {lone[0][1]!r} is not: a line lost?")})
    return rows


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


def _rac_header(report: _TextReport | _HtmlReport) -> dict[str, Any]:
    if isinstance(report, _TextReport):
        summary = _section(report, "Database Summary")
        instances = _section(report, "Database Instances Included In Report")
    else:
        summary = _whole_or_none(report.by_summary(r"^Database Summary"))
        instances = _whole_or_none(report.by_summary(r"^Database Instances Included In Report"))
    summary = _require(summary, "Database Summary")
    instances = _require(instances, "Database Instances Included In Report")
    row = summary.rows[0]
    # Column names repeat (Begin/End, In Report/Total), so read them by position: the
    # layout is the same in text and HTML (Id Name ... Begin End, In Report Total, In Report
    # Total, DB time, Elapsed time).
    names = [_norm(h).split()[-1] if h else "" for h in summary.header]
    expected = ["id", "name", "name", "role", "edition", "rac", "cdb", "size", "begin", "end"]
    if names[:10] != expected or len(row) < 16:
        raise ParseError(f"section 'Database Summary': unexpected columns {summary.header}")
    inst_rows = [r for r in instances.rows if r and r[0].strip().isdigit()]
    c_num, c_inst = instances.col("I#"), instances.col("Instance")
    c_host, c_rel = instances.col("Host"), instances.col("Release")
    c_begin, c_end = instances.col("Begin Snap Time"), instances.col("End Snap Time")
    c_ela, c_dbt = instances.col("Elapsed Time(min)"), instances.col("DB time(min)")
    inst_list = [
        {
            "inst_num": _whole(r[c_num]),
            "instance": r[c_inst],
            "host": r[c_host],
            "elapsed_min": _float(r[c_ela], "instance elapsed"),
            "db_time_min": _float(r[c_dbt], "instance DB time"),
        }
        for r in inst_rows
    ]
    return {
        "db_name": row[1],
        "db_id": _whole(row[0]),
        "version": inst_rows[0][c_rel] if inst_rows else None,
        "instances": inst_list,
        "instance_count": _whole(row[10]),
        "rac": row[5] == "YES",
        "cdb": row[6] == "YES",
        "begin_snap": _whole(row[8]),
        "end_snap": _whole(row[9]),
        # The RAC report prints snapshot times to the minute, per instance.
        "begin_time": inst_rows[0][c_begin] if inst_rows else None,
        "end_time": inst_rows[0][c_end] if inst_rows else None,
        "elapsed_min": _float(row[15], "Report Total elapsed time"),
        "db_time_min": _float(row[14], "Report Total DB time"),
    }


def _rac_host_cpu(report: _TextReport | _HtmlReport) -> list[dict[str, Any]] | None:
    table = _section(report, "OS Statistics By Instance")
    if table is None:
        return None
    heads = [_norm(h).split()[-1] if h else "" for h in table.header]
    # 'Begin'/'End' (load) and '#CPUs' occur once before the end-value columns.
    def idx(name: str) -> int:
        if name not in heads:
            raise ParseError(f"section 'OS Statistics By Instance': expected column {name!r}, found {table.header}")
        return heads.index(name)

    out = []
    for row in table.rows:
        if not row[0].strip().isdigit():
            continue
        out.append(
            {
                "inst_num": _whole(row[0]),
                "cpus": _whole(row[idx("#cpus")]),
                "load_begin": _float(row[idx("begin")], "load begin"),
                "load_end": _float(row[idx("end")], "load end"),
                "busy_pct": _float(row[idx("busy")], "% Busy"),
                "user_pct": _float(row[idx("usr")], "% Usr"),
                "system_pct": _float(row[idx("sys")], "% Sys"),
                "wio_pct": _float(row[idx("wio")], "% WIO"),
                "idle_pct": _float(row[idx("idl")], "% Idl"),
            }
        )
    return out


def _rac_per_instance(report: _TextReport | _HtmlReport, title: str) -> list[dict[str, Any]] | None:
    table = _section(report, title)
    if table is None:
        return None
    out = []
    for row in table.rows:
        if not row[0].strip().isdigit():
            continue
        entry: dict[str, Any] = {"inst_num": _whole(row[0])}
        for head, cell in zip(table.header[1:], row[1:]):
            entry[head] = _float(cell, f"{title} {head}")
        out.append(entry)
    return out


def _statistic_number(cell: str, what: str) -> float | None:
    """A System Statistics cell (``1,234.5``, ``4.5200871E+08``); ``None`` for blank or ``N/A``."""
    if cell.strip() in ("", "N/A"):
        return None
    return _float(cell, what, signed=True)


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

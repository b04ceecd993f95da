"""A report reduced to titled tables, as the AWR and Statspack readers read it: a table's header (one
string per column, a column found by what it holds: :func:`column_meaning`, :func:`header_unit`) and its
rows (one string per cell, as printed), from the text rendering (:class:`_TextReport`: a table under its
section title, its columns the runs of ``-``/``~`` of the rule under the header) or the HTML one
(:class:`_HtmlReport`: tables indexed by regular expressions, cut into cells only when a section reads them)."""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from flashpoc.core.errors import ParseError

_DASH_LINE_RE = re.compile(r"^[ \-~]*[-~]{2,}[ \-~]*$")
_NO_DATA = "No data exists for this section of the report"


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

"""I/O sections: ``IOStat by Function summary``, and the tablespace and file I/O tables (a text report
prints each row on two lines, names then figures; 11.2.0.4's cells in another order than its header),
their per-second columns checked against their counts and the tablespaces against their files."""

from __future__ import annotations

import re
from typing import Any

from flashpoc.core.errors import ParseError
from flashpoc.oracle.reportparse.sections import _Disagree, _Sections, _section, _whole_rows
from flashpoc.oracle.reportparse.tables import (_FIGURES_RE, _HtmlReport, _Table, _TextReport, _column_names,
                                                _dash_runs, _is_dash, _is_title, _slice_cells, header_unit)
from flashpoc.oracle.reportparse.values import _data_mb, _float, _int_or_none, parse_count, parse_latency_us


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

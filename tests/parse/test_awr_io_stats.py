"""Tablespace IO Stats and File IO Stats of real AWR reports (tests/data/awr, see PROVENANCE.md).

Five of the real reports print rows there (11.2.0.3, 11.2.0.4 and 12.1.0.2 HTML, and the 11.2.0.4
text reports of tests/parse/test_awr_11204_text.py); every 12.2, 18c and 19c report here, text and
HTML, prints "No data exists for this section of the report".
Expected values are the printed cells (the printed text in a comment).
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from awr_reports import parsed
from conftest import TESTS
from flashpoc.core.errors import ParseError
from flashpoc.oracle.awr import parse_awr
from flashpoc.oracle.reportparse.iostats import _io_stats
from flashpoc.oracle.reportparse.tables import _HtmlReport

DATA = TESTS / "data" / "awr"
F_11203 = DATA / "11.2.0.3_single_prod_awr_aix.html.gz"
F_11204 = DATA / "11.2.0.4_single_prod_awr.html.gz"
F_121 = DATA / "12.1.0.2_single_prod_awr.html.gz"

def row(rows: list[dict], **where) -> dict:
    found = [r for r in rows if all(r.get(k) == v for k, v in where.items())]
    assert len(found) == 1, where
    return found[0]


def test_11203_tablespace_and_file_rows():
    """11.2.0.3 prints 'Av Reads/s' and 'Av Writes/s' and no single-block columns."""
    report = parsed(F_11203)
    assert "Tablespace IO Stats" in report["sections"]["read"] and "File IO Stats" in report["sections"]["read"]
    assert len(report["tablespace_io"]) == 148 and len(report["file_io"]) == 565
    # "USERS  2,195,142  607  1.83  41.23  84,199  23  15,839  3.36" (the first: ordered by IOs)
    assert report["tablespace_io"][0] == {
        "tablespace": "USERS", "reads": 2195142, "reads_per_s": 607.0, "avg_read_ms": 1.83, "blocks_per_read": 41.23,
        "writes": 84199, "writes_per_s": 23.0, "buffer_waits": 15839, "avg_buffer_wait_ms": 3.36}
    # "AGRI  /oradb2/DB1UAT/DATA/agri01.dbf  7  0  0.00  1.00  1  0  0  0.00" (ordered by tablespace, file)
    assert report["file_io"][0] == {
        "tablespace": "AGRI", "filename": "/oradb2/DB1UAT/DATA/agri01.dbf", "reads": 7, "reads_per_s": 0.0,
        "avg_read_ms": 0.0, "blocks_per_read": 1.0, "writes": 1, "writes_per_s": 0.0, "buffer_waits": 0,
        "avg_buffer_wait_ms": 0.0}


def test_12102_single_block_and_optimized_reads_columns():
    """12.1.0.2 adds '1-bk Rds/s', 'Av 1-bk Rd(ms)' and '% Opt Reads' (blank for TEMP: None)."""
    report = parsed(F_121)
    # "RECEIPT  1,780,774  493  22,110.07  4.75  328  33,210.77  0.00  10,605  3  196,267  2.64"
    assert row(report["tablespace_io"], tablespace="RECEIPT") == {
        "tablespace": "RECEIPT", "reads": 1780774, "reads_per_s": 493.0, "avg_read_ms": 22110.07,
        "blocks_per_read": 4.75, "single_block_reads_per_s": 328.0, "avg_single_block_read_ms": 33210.77,
        "optimized_reads_pct": 0.0, "writes": 10605, "writes_per_s": 3.0, "buffer_waits": 196267,
        "avg_buffer_wait_ms": 2.64}
    assert row(report["tablespace_io"], tablespace="TEMP")["optimized_reads_pct"] is None  # "&#160;"
    # "RECEIPT  /dboradata2/oradata/RECEIPT/receipt_27.dbf  5,607  2  195.84  3.55  1  284.16  0.00  75  0  1,769  2.94"
    f27 = row(report["file_io"], filename="/dboradata2/oradata/RECEIPT/receipt_27.dbf")
    assert (f27["reads"], f27["avg_read_ms"], f27["avg_single_block_read_ms"], f27["writes"], f27["buffer_waits"],
            f27["avg_buffer_wait_ms"]) == (5607, 195.84, 284.16, 75, 1769, 2.94)
    # the temporary file is a row of File IO Stats too: "TEMP  /dboradata4/oradata/RECEIPT/temp01.dbf  1  0  10.00"
    assert row(report["file_io"], tablespace="TEMP")["filename"] == "/dboradata4/oradata/RECEIPT/temp01.dbf"


def test_tablespace_rows_are_the_sums_of_their_files():
    for path in (F_11203, F_121):
        report = parsed(path)
        for ts in report["tablespace_io"]:
            files = [f for f in report["file_io"] if f["tablespace"] == ts["tablespace"]]
            assert files, ts["tablespace"]
            for key in ("reads", "writes", "buffer_waits"):
                assert sum(f[key] for f in files) == ts[key], (path.name, ts["tablespace"], key)


def test_11204_tablespace_table_read_in_its_printed_order():
    """11.2.0.4's HTML prints the Tablespace IO Stats cells in another order than its header: the
    writes (917,089 for TS_UNIAUTH) under '1-bk Rds/s', the single-block reads per second under 'Av
    1-bk Rd(ms)', the single-block read time (in whole ms) under 'Writes'. The section was refused;
    it is read in that order, since then every tablespace's reads, writes and buffer waits are its
    files'. UNDOTBS1 has the job's shape: no reads, 9,498 writes, the second most buffer waits."""
    report = parsed(F_11204)
    assert report["sections"]["not_understood"] == []
    assert len(report["tablespace_io"]) == 12 and len(report["file_io"]) == 18
    # "TS_UNIAUTH  4,075,643  1,130  0.01  63.21  917,089  544.81  0  254  9  0.00"
    assert report["tablespace_io"][0] == {
        "tablespace": "TS_UNIAUTH", "reads": 4075643, "reads_per_s": 1130.0, "avg_read_ms": 0.01,
        "blocks_per_read": 63.21, "writes": 917089, "single_block_reads_per_s": 544.81,
        "avg_single_block_read_ms": 0.0, "writes_per_s": 254.0, "buffer_waits": 9, "avg_buffer_wait_ms": 0.0}
    # "SYSAUX  137  0  0.44  1.00  1,008  0.04  1  0  1  0.00": its two files 787 + 221 writes
    sysaux = row(report["tablespace_io"], tablespace="SYSAUX")
    assert (sysaux["writes"], sysaux["single_block_reads_per_s"], sysaux["avg_single_block_read_ms"]) == (1008, 0.04, 1.0)
    # "UNDOTBS1  /u01/app/oracle/oradata/xydb/undotbs01.dbf  0  0  &#160;  &#160;  0  &#160;  9,498  3  1,984  0.11"
    assert row(report["file_io"], tablespace="UNDOTBS1") == {
        "tablespace": "UNDOTBS1", "filename": "/u01/app/oracle/oradata/xydb/undotbs01.dbf", "reads": 0,
        "reads_per_s": 0.0, "avg_read_ms": None, "blocks_per_read": None, "single_block_reads_per_s": 0.0,
        "avg_single_block_read_ms": None, "writes": 9498, "writes_per_s": 3.0, "buffer_waits": 1984,
        "avg_buffer_wait_ms": 0.11}
    # "TS_UNIAUTH  .../TS_UNIAUTH.DBF  4,075,643  1,130  0.01  63.21  545  0.02  917,089  254  9  0.00"
    uniauth = row(report["file_io"], tablespace="TS_UNIAUTH")
    assert (uniauth["reads"], uniauth["reads_per_s"], uniauth["writes"], uniauth["writes_per_s"]) == (
        4075643, 1130.0, 917089, 254.0)


def test_11204_order_is_read_only_where_the_files_add_up():
    """Without File IO Stats to add up to, 11.2.0.4's tablespace table is refused, as before (read
    in its header's order, TS_UNIAUTH's 0 writes and 254 writes/s do not agree)."""
    text = gzip.decompress(F_11204.read_bytes()).decode("utf-8")
    heading = '<h3 class="awr">File IO Stats</h3>'
    assert text.count(heading) == 1
    report = parse_awr(text.replace(heading, '<h3 class="awr">File IO Stats (hidden)</h3>'))
    assert report["tablespace_io"] is None and report["file_io"] is None
    (refused,) = report["sections"]["not_understood"]
    assert refused["section"] == "Tablespace IO Stats" and "'TS_UNIAUTH' prints 0 writes and 254 writes/s" in refused[
        "reason"]


def _edited(path: Path, old: str, new: str) -> dict:
    text = gzip.decompress(path.read_bytes()).decode("utf-8")
    assert text.count(old) == 1, old
    return parse_awr(text.replace(old, new))


def test_a_changed_count_loses_the_section_never_changes_a_number():
    """A tablespace's writes that no longer add up to its files' (one digit changed in the
    tablespace row) refuse Tablespace IO Stats and File IO Stats: which of the two printed the
    figures wrong cannot be told (a file's buffer waits have no rate to check them by); a file's
    reads that no longer match its printed reads per second refuse File IO Stats (and so the
    tablespace cross-check is left without files: the tablespace rows are still checked against
    their own rates)."""
    ts_row = ("<td align=\"right\" class='awrc'>1,780,774</td><td align=\"right\" class='awrc'>493</td>")
    report = _edited(F_121, ts_row, ts_row.replace("1,780,774", "1,780,775"))
    assert report["tablespace_io"] is None and report["file_io"] is None
    reasons = {n["section"]: n["reason"] for n in report["sections"]["not_understood"]}
    assert reasons["Tablespace IO Stats"] == reasons["File IO Stats"]
    assert "'RECEIPT' prints reads, writes and buffer waits [1780775, 10605, 196267], its files" in (
        reasons["File IO Stats"])

    file_cells = ("receipt_27.dbf</td>\n<td align=\"right\" class='awrc'>5,607</td>")
    report = _edited(F_121, file_cells, file_cells.replace("5,607", "56,070"))
    assert report["file_io"] is None
    assert [n["section"] for n in report["sections"]["not_understood"]] == ["File IO Stats"]
    assert "prints 56,070 reads and 2 reads/s" in report["sections"]["not_understood"][0]["reason"]


def test_11203_buffer_waits_with_a_leading_digit_lose_the_section_not_the_report():
    """USERS' buffer waits with a leading digit (15,839 read 115,839) no longer add up to its files':
    11.2.0.3 prints no single-block columns, so its table is never read in 11.2.0.4's order (which
    would map its writes away): Tablespace IO Stats and File IO Stats (either may be the damaged one)
    are lost, the report read."""
    cell = "<td align=\"right\" class='awrc'>15,839</td>"
    report = _edited(F_11203, cell, cell.replace("15,839", "115,839"))
    assert report["tablespace_io"] is None and report["file_io"] is None and report["load_profile"]
    assert [n["section"] for n in report["sections"]["not_understood"]] == ["Tablespace IO Stats", "File IO Stats"]
    assert "'USERS' prints reads, writes and buffer waits [2195142, 84199, 115839]" in (
        report["sections"]["not_understood"][0]["reason"])


def test_11204_order_needs_its_single_block_columns():
    """A table without '1-bk Rds/s' and 'Av 1-bk Rd(ms)' (11.2.0.3's) is not in 11.2.0.4's order:
    read that way it would lose its writes, so it is refused."""
    text = gzip.decompress(F_11203.read_bytes()).decode("utf-8")
    with pytest.raises(ParseError, match="not in 11.2.0.4's order"):
        _io_stats(_HtmlReport(text), "Tablespace IO Stats", None, shifted=True)

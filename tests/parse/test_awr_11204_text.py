"""11.2.0.4 text AWR reports (tests/data/awr, see PROVENANCE.md): the two instances of a two-node
RAC database on ASM, snapshots 2-3. Their section titles start with a form feed, continuation pages
start right under the last row, the Top 10 heads its total wait time ``Tota Time``, and Tablespace
and File IO Stats print each row on two lines. Expected values are the printed cells (the printed
text in a comment when a unit is converted).
"""

from __future__ import annotations


from awr_reports import parsed
from conftest import TESTS
from flashpoc.oracle.awr import parse_awr, read_awr_file
from flashpoc.oracle.reportparse.tables import _TextReport

DATA = TESTS / "data" / "awr"
F_INST1 = DATA / "11.2.0.4_rac_inst1_text_awr.txt.gz"
F_INST2 = DATA / "11.2.0.4_rac_inst2_text_awr.txt.gz"

def top_event(report: dict, event: str) -> dict:
    (row,) = [r for r in report["top_events"] if r["event"] == event]
    return row


def one(rows: list[dict], **where) -> dict:
    (found,) = [r for r in rows if all(r.get(k) == v for k, v in where.items())]
    return found


def histogram(report: dict, section: str, event: str) -> dict[str, str]:
    return {r["bucket"]: r["pct_printed"] for r in report["event_histograms"]
            if r["section"] == section and r["event"] == event}


def test_every_section_is_read():
    """Each title starts with a form feed (^L): every section but the header, Load Profile, IOStat and
    Host CPU was 'absent', the Top 10 'not understood' (`Tota Time`)."""
    for path in (F_INST1, F_INST2):
        sections = parsed(path)["sections"]
        assert sections["not_understood"] == [], path.name
        assert {"header", "Load Profile", "Top 10 Foreground Events by Total Wait Time", "Foreground Wait Events",
                "Background Wait Events", "Wait Event Histogram", "Wait Event Histogram Detail (64 msec to 2 sec)",
                "Host CPU", "File IO Stats", "Tablespace IO Stats"} <= set(sections["read"]), path.name
        # 11.2 has the "Detail" pages, not 12c's "(up to ...)" ones
        assert "Wait Event Histogram (up to 32 ms)" in sections["absent"]
    # instance 1 prints the "(4 sec to 2 min)" page with one row, instance 2 "No data exists"
    assert "Wait Event Histogram Detail (4 sec to 2 min)" in parsed(F_INST1)["sections"]["read"]
    assert "Wait Event Histogram Detail (4 sec to 2 min)" in parsed(F_INST2)["sections"]["absent"]


def test_header():
    # "ORCL  1380142923 orcl1  1 10-Jul-14 03:10 11.2.0.4.0  YES"; "Begin Snap:  2 10-Jul-14 04:00:45  37  1.0  2"
    assert parsed(F_INST1)["header"] == {
        "db_name": "ORCL", "db_id": 1380142923, "version": "11.2.0.4.0",
        "instances": [{"instance": "orcl1", "inst_num": 1}], "instance_count": 2, "rac": True, "cdb": None,
        "begin_snap": 2, "end_snap": 3, "begin_time": "10-Jul-14 04:00:45", "end_time": "10-Jul-14 05:00:58",
        "elapsed_min": 60.22, "db_time_min": 0.03}
    assert parsed(F_INST2)["header"]["instances"] == [{"instance": "orcl2", "inst_num": 2}]


def test_top_10_with_its_cut_total_time_heading():
    """'Tota Time' is the total wait time in seconds, 'Wait Avg(ms)' whole milliseconds; the wait
    class cut to 10 characters is read whole."""
    report = parsed(F_INST1)
    assert [r["event"] for r in report["top_events"]][:3] == [
        "DB CPU", "name-service call wait", "IPC send completion sync"]
    # "name-service call wait  12  .6  49  31.1 Other"
    ns = top_event(report, "name-service call wait")
    assert (ns["waits"], ns["total_time_s"], ns["total_time_printed"], ns["avg_wait_us"], ns["pct_db_time"],
            ns["wait_class"]) == (12, 0.6, ".6", 49000.0, 31.1, "Other")
    # "log file sync  2  0  21  2.2 Commit"
    sync = top_event(report, "log file sync")
    assert (sync["waits"], sync["total_time_s"], sync["avg_wait_us"], sync["pct_db_time"]) == (2, 0.0, 21000.0, 2.2)
    # "DB CPU  1.1  58.0"
    cpu = top_event(report, "DB CPU")
    assert (cpu["waits"], cpu["total_time_s"], cpu["avg_wait_us"], cpu["pct_db_time"]) == (None, 1.1, None, 58.0)
    # "row cache lock  41  0  1  1.5 Concurrenc"
    assert top_event(report, "row cache lock")["wait_class"] == "Concurrency"
    # instance 2: "db file sequential read  4  0  10  2.1 User I/O"; "SQL*Net break/reset to client ... Applicatio"
    report2 = parsed(F_INST2)
    seq = top_event(report2, "db file sequential read")
    assert (seq["waits"], seq["total_time_s"], seq["avg_wait_us"], seq["wait_class"]) == (4, 0.0, 10000.0, "User I/O")
    assert top_event(report2, "SQL*Net break/reset to client")["wait_class"] == "Application"


def test_key_events_from_foreground_and_background_pages():
    report = parsed(F_INST1)
    # Foreground: "log file sync  2  0  0  21  0.1  2.2"; Background: "log file parallel write  196  0  0  2  6.8  .5",
    # "db file parallel write  446  0  0  0  15.4  .1"
    assert report["key_events"] == {"log file sync": 21000.0, "log file parallel write": 2000.0,
                                    "db file parallel write": 0.0}
    assert report["key_event_waits"] == {"log file sync": 2, "log file parallel write": 196,
                                         "db file parallel write": 446}
    # instance 2, foreground: "db file sequential read  4  0  0  10  0.0  2.1" (background: 1,173 waits, 4 ms)
    report2 = parsed(F_INST2)
    assert (report2["key_events"]["db file sequential read"], report2["key_event_waits"]["db file sequential read"]) == (
        10000.0, 4)
    # background "log file parallel write  568  0  1  1  2.5  .8"
    assert (report2["key_events"]["log file parallel write"], report2["key_event_waits"]["log file parallel write"]) == (
        1000.0, 568)


def test_continuation_page_right_under_the_last_row_is_not_a_row():
    """Page 2 of Background Wait Events starts on the line after page 1's last row, without a blank
    line: its title and '->' notes were read as rows of page 1."""
    table = _TextReport(read_awr_file(F_INST1)).table("Background Wait Events")
    events = [row[0] for row in table.rows]
    assert len(events) == 60 + 31  # the rows printed on the two pages
    assert events[59:61] == ["gc current split", "enq: SW - contention"]
    assert not [e for e in events if e.startswith(("Background Wait Events", "->"))]


def test_wait_event_histograms_on_two_pages_and_the_detail_page():
    report = parsed(F_INST1)
    # page 1: "db file sequential read  70  47.1  14.3  2.9  12.9  17.1  5.7"
    assert histogram(report, "Wait Event Histogram", "db file sequential read") == {
        "<1ms": "47.1", "<2ms": "14.3", "<4ms": "2.9", "<8ms": "12.9", "<16ms": "17.1", "<32ms": "5.7", "<=1s": "",
        ">1s": ""}
    # page 2 (its title right under page 1's last row): "log file parallel write  184  72.8  14.7  3.8  1.6  2.2  2.7  2.2"
    assert histogram(report, "Wait Event Histogram", "log file parallel write") == {
        "<1ms": "72.8", "<2ms": "14.7", "<4ms": "3.8", "<8ms": "1.6", "<16ms": "2.2", "<32ms": "2.7", "<=1s": "2.2",
        ">1s": ""}
    # "Wait Event Histogram Detail (64 msec to 2 sec)DB/Inst: ..." (no space before DB/Inst):
    # "log file parallel write  4  97.8  2.2"
    detail = [r for r in report["event_histograms"] if r["section"] == "Wait Event Histogram Detail (64 msec to 2 sec)"]
    assert {r["event"] for r in detail} == {"log file parallel write"}
    assert (detail[0]["waits"], detail[0]["bucket"], detail[0]["pct"], detail[1]["bucket"], detail[1]["pct"]) == (
        4, "<32ms", 97.8, "<64ms", 2.2)


def test_file_io_rows_on_two_lines_with_na_cells():
    report = parsed(F_INST1)
    assert [f["tablespace"] for f in report["file_io"]] == ["SYSAUX", "SYSTEM", "TEMP", "UNDOTBS1"]
    # "SYSAUX  +DATA/orcl/datafile/sysaux.257.852362089"
    # "    39       0     3.3     1.0       0     3.6     348       0        0     0.0"
    assert report["file_io"][0] == {
        "tablespace": "SYSAUX", "filename": "+DATA/orcl/datafile/sysaux.257.852362089", "reads": 39,
        "reads_per_s": 0.0, "avg_read_ms": 3.3, "blocks_per_read": 1.0, "single_block_reads_per_s": 0.0,
        "avg_single_block_read_ms": 3.6, "writes": 348, "writes_per_s": 0.0, "buffer_waits": 0,
        "avg_buffer_wait_ms": 0.0}
    # "SYSTEM ... 31  0  5.2  1.0  0  5.2  40  0  2  5.0"
    system = one(report["file_io"], tablespace="SYSTEM")
    assert (system["reads"], system["writes"], system["buffer_waits"], system["avg_buffer_wait_ms"]) == (31, 40, 2, 5.0)
    # "UNDOTBS1 ... 0  0  N/A  N/A  0  N/A  121  0  0  0.0": no reads, no average (None, not 0)
    undo = one(report["file_io"], tablespace="UNDOTBS1")
    assert (undo["filename"], undo["reads"], undo["avg_read_ms"], undo["blocks_per_read"],
            undo["avg_single_block_read_ms"], undo["writes"]) == (
        "+DATA/orcl/datafile/undotbs1.258.852362091", 0, None, None, None, 121)
    # "TEMP ... 1  0  0.0  1.0  0  0.0  0  0  0  N/A"
    assert one(report["file_io"], tablespace="TEMP")["avg_buffer_wait_ms"] is None
    # instance 2: "SYSTEM ... 1,014  0  4.0  2.1  0  3.9  48  0  2  0.0"
    system2 = one(parsed(F_INST2)["file_io"], tablespace="SYSTEM")
    assert (system2["reads"], system2["avg_read_ms"], system2["blocks_per_read"], system2["writes"]) == (
        1014, 4.0, 2.1, 48)


def test_tablespace_io_in_its_11204_order():
    """11.2.0.4 prints a tablespace's writes under '1-bk Rds/s', its single-block reads per second
    under 'Av 1-bk Rd(ms)' and its single-block read time (whole ms) under 'Writes': read that way,
    since then every tablespace's reads, writes and buffer waits are its files'."""
    report = parsed(F_INST1)
    # "SYSAUX" / "    39       0     3.3     1.0     348     0.0       4       0        0     0.0"
    assert report["tablespace_io"][0] == {
        "tablespace": "SYSAUX", "reads": 39, "reads_per_s": 0.0, "avg_read_ms": 3.3, "blocks_per_read": 1.0,
        "writes": 348, "single_block_reads_per_s": 0.0, "avg_single_block_read_ms": 4.0, "writes_per_s": 0.0,
        "buffer_waits": 0, "avg_buffer_wait_ms": 0.0}
    # "SYSTEM" / "    31       0     5.2     1.0      40     0.0       5       0        2     5.0"
    system = one(report["tablespace_io"], tablespace="SYSTEM")
    assert (system["writes"], system["avg_single_block_read_ms"], system["buffer_waits"],
            system["avg_buffer_wait_ms"]) == (40, 5.0, 2, 5.0)
    # instance 2 "SYSTEM" / "  1,014       0     4.0     2.1      48     0.3       4       0        2     0.0"
    system2 = one(parsed(F_INST2)["tablespace_io"], tablespace="SYSTEM")
    assert (system2["reads"], system2["writes"], system2["single_block_reads_per_s"],
            system2["avg_single_block_read_ms"]) == (1014, 48, 0.3, 4.0)
    for path in (F_INST1, F_INST2):
        report = parsed(path)
        for ts in report["tablespace_io"]:
            files = [f for f in report["file_io"] if f["tablespace"] == ts["tablespace"]]
            for key in ("reads", "writes", "buffer_waits"):
                assert sum(f[key] for f in files) == ts[key], (path.name, ts["tablespace"], key)


def test_iostat_na_average_is_none():
    """Instance 2's IOStat by Function summary prints 'N/A' as the average of functions without
    waits: that section was not understood ('expected a latency')."""
    iostat = {r["function"]: r for r in parsed(F_INST2)["iostat_by_function"]}
    # "Direct Reads  18M  0.0  .005M  1M  0.0  0M  0  N/A"; "LGWR  0M  0.0  0M  4M  0.3  .001M  547  1.4"
    assert (iostat["Direct Reads"]["waits_count"], iostat["Direct Reads"]["avg_time_us"]) == (0, None)
    assert (iostat["LGWR"]["write_reqs_per_s"], iostat["LGWR"]["waits_count"], iostat["LGWR"]["avg_time_us"]) == (
        0.3, 547, 1400.0)
    assert iostat["Buffer Cache Re"]["read_data_mb"] == 20.0  # "Buffer Cache Re  20M" (the name cut)


def test_a_file_row_without_its_figures_loses_both_io_sections():
    """A names line whose figures line is gone: File IO Stats is refused, never read out of step,
    and the 11.2.0.4 tablespace table, with no files to add up to, is refused too (read in its
    header's order, SYSAUX's writes, 348, stand under single-block reads/s: more than its reads)."""
    text = read_awr_file(F_INST1)
    figures = "     39       0     3.3     1.0       0     3.6     348       0        0     0.0\n"
    assert text.count(figures) == 1
    report = parse_awr(text.replace(figures, ""))
    assert (report["file_io"], report["tablespace_io"]) == (None, None)
    reasons = {n["section"]: n["reason"] for n in report["sections"]["not_understood"]}
    assert "expected a line of names, then its figures, got 'SYSAUX" in reasons["File IO Stats"]
    assert "'SYSAUX' prints 348 single-block reads/s of 0 reads/s" in reasons["Tablespace IO Stats"]


def test_a_report_cut_in_the_middle_of_a_row_loses_the_row_never_changes_it():
    """Read with allow_truncated, a text report cut inside File IO Stats' SYSTEM figures line
    ("     31       0     5.2     1.0       0     5.2      40 ...", cut after "4" of "40") leaves that row
    out: its writes are never read as 4."""
    text = read_awr_file(F_INST1)
    row = "     31       0     5.2     1.0       0     5.2      40"
    cut = parse_awr(text[:text.index(row) + len(row) - 1], allow_truncated=True)
    assert [(f["tablespace"], f["writes"]) for f in cut["file_io"]] == [("SYSAUX", 348)]

"""Damaged AWR and Statspack reports: what the report prints twice is cross-checked, and a
disagreement loses both figures, named in ``sections`` (``not_understood``), never one picked.

Each case was found by generated damage (tests/parse/test_parse_awr.py's generator, tests/damage.py)
or is a figure printed twice that a damaged line would leave unsaid; each test failed before its fix.
"""

from __future__ import annotations

import pytest

from awr_reports import parsed
from conftest import DATA
from flashpoc.oracle.awr_metrics import point_metrics
from flashpoc.oracle.awr import TRUNCATED, parse_awr, read_awr_file

RUN = DATA / "slob" / "slob2.5_19c_rac2node_s256_t1_wu4_update10"
INSTANCE = RUN / "awr.txt"
RAC = RUN / "awr_rac.txt"


def without(path, line: str) -> dict:
    """The report ``path`` with the line ``line`` (once in it) removed, parsed."""
    text = read_awr_file(path)
    assert text.count(line) == 1, line
    return parse_awr(text.replace(line, ""))


def not_understood(report: dict) -> dict[str, str]:
    return {d["section"]: d["reason"] for d in report["sections"]["not_understood"]}


def test_two_swapped_lines_of_an_html_file_row_lose_the_file_rows():
    """Found by the generator: two lines of one HTML File IO Stats row swapped put its reads (4)
    under single-block reads/s and read 0 reads; the tablespace row, which no longer added up to
    its files, was refused but the files were kept. A file can read no more single blocks than it
    reads, so File IO Stats is refused; the tablespaces, which add up, are kept."""
    path = DATA / "awr" / "12.2.0.1_rac_cdb_pdb_report_awr.html.gz"
    lines = read_awr_file(path).splitlines(keepends=True)
    assert lines[1920].startswith("<td align=\"right\" class='awrnc'>4</td>")
    report = parse_awr("".join(lines[:1920] + [lines[1921], lines[1920]] + lines[1922:]))
    assert report["file_io"] is None and report["tablespace_io"] == parsed(path)["tablespace_io"]
    assert "idc_data_api_test01.dbf' prints 4 single-block reads/s of 0 reads/s" in (
        not_understood(report)["File IO Stats"])


def test_tablespaces_that_do_not_add_up_to_their_files_lose_both_io_sections():
    """Which of the two tables printed a figure wrong cannot be told (a file's buffer waits have no
    rate to check them by): both are lost. A RECEIPT file's buffer waits with a digit added."""
    path = DATA / "awr" / "12.1.0.2_single_prod_awr.html.gz"
    clean = parsed(path)
    row = next(r for r in clean["file_io"] if r["tablespace"] == "RECEIPT" and r["buffer_waits"])
    text = read_awr_file(path)
    cell = f"<td align=\"right\" class='awrc'>{row['buffer_waits']:,}</td>"
    at = text.index(cell, text.index(row["filename"]))
    report = parse_awr(text[:at] + cell.replace(">", ">1", 1) + text[at + len(cell):])
    assert report["file_io"] is None and report["tablespace_io"] is None
    reasons = not_understood(report)
    assert reasons["File IO Stats"] == reasons["Tablespace IO Stats"] and "'RECEIPT' prints" in reasons["File IO Stats"]


def test_a_cell_tag_damaged_in_the_global_statistics_loses_the_section_not_a_column():
    """Found by the generator: a ``<td`` tag overwritten ran its quoted attribute into the next
    cell, which vanished: 'consistent gets direct' read its per Trans (521,031.55) as its per
    Second (64,077.39). A row short of a cell is refused, as in the instance report's sections."""
    path = DATA / "awr" / "12.2.0.1_rac_global_slob_single_instance_awr_rac.html.gz"
    text = read_awr_file(path)
    at = text.index("consistent gets direct</td>") + 83  # in the per Second cell's <td> tag
    assert text[at:at + 18] == "=\"right\" class='aw"
    report = parse_awr(text[:at] + "#" * 18 + text[at + 18:])
    assert report["system_statistics_global"] is None
    assert "a row of 7 cells under a header of 8" in not_understood(report)["System Statistics (Global)"]


def test_a_key_event_row_lost_from_the_wait_events_loses_them_with_the_top_10():
    """The Top 10 and the Foreground Wait Events print an event's waits twice: 'db file sequential
    read' removed from the table would leave the point's latency empty, unsaid (or another event's)."""
    line = "db file sequential read     10,924,627          3,826  350.19us     28.8   13.4\n"
    report = without(INSTANCE, line)
    assert report["top_events"] is None and "db file sequential read" not in report["key_events"]
    assert set(not_understood(report)) == {"Top 10 Foreground Events by Total Wait Time", "Foreground Wait Events"}
    metrics = point_metrics(report)
    assert metrics["lat_mean_ms"] is None and metrics["latency_event"] is None
    assert metrics["read_iops"] == 29792.8


def test_a_load_profile_row_every_report_prints_lost_is_named():
    report = without(INSTANCE, "           Transactions:           1,043.9\n")
    assert report["load_profile"] is None
    assert "no row of 'Transactions', which AWR prints in every report" in not_understood(report)["Load Profile"]


def test_a_global_statistic_line_lost_leaves_no_fewer_transactions_unsaid():
    """The RAC global report prints the cluster's transactions twice: user commits + user
    rollbacks, and each instance's Txns/s (1,051.9 + 1,043.9 = 2,095.8/s)."""
    line = next(ln for ln in read_awr_file(RAC).splitlines(keepends=True) if ln.startswith("user commits "))
    report = without(RAC, line)
    assert "user commits + user rollbacks 0/s are not the instances' Txns/s summed (2095.8/s)" in (
        not_understood(report)["System Statistics (Global)"])
    metrics = point_metrics(report)
    assert metrics["transactions_per_s"] is None and metrics["read_iops"] == 60656.2
    assert point_metrics(parsed(RAC))["transactions_per_s"] == 2095.8


def test_a_printed_db_cpu_share_lost_is_not_replaced_by_a_computed_one():
    """Found by the generator: the Top 10's DB CPU '% DB time' damaged (9.6 read as nothing) was
    replaced by DB CPU / DB time from the Load Profile, another figure (7.6 / 78.9 = 9.6 here,
    41.9 for 41.7 in another report)."""
    text = read_awr_file(INSTANCE)
    line = "DB CPU                                         2747.9              9.6\n"
    assert point_metrics(parsed(INSTANCE))["db_cpu_pct_of_db_time"] == 9.6
    report = parse_awr(text.replace(line, line.replace("9.6", "9-6")))
    assert point_metrics(report)["db_cpu_pct_of_db_time"] is None


@pytest.mark.parametrize("name", ["19c_rac_cdb_pdb_report_text_sqlplus_pages_excerpt.txt",
                                  "11.2.0.4_single_prod_statspack.txt.gz"])
def test_a_report_read_with_allow_truncated_says_it_was_cut(name):
    text = read_awr_file(DATA / "awr" / name)
    cut = parse_awr(text[:len(text) // 3], allow_truncated=True)
    assert cut["sections"]["truncated"] == TRUNCATED
    assert "truncated" not in parsed(RAC)["sections"]


def test_a_header_title_line_lost_is_named_not_absent():
    """Found by the generator: the RAC global report's 'Database Instances Included In Report'
    title removed ran its rows into the database summary, and the header (snapshots, elapsed
    time: every cluster figure) was reported absent, as if the report had none."""
    report = without(RAC, "Database Instances Included In Report\n")
    assert report["header"] is None and "header" in not_understood(report)
    assert "every such report prints it" in not_understood(report)["header"]


def test_a_report_cut_right_after_a_section_title_loses_what_follows_not_the_parse():
    """Found by the generator: a report read with allow_truncated and cut right after the Load
    Profile's title raised IndexError out of parse_awr."""
    text = read_awr_file(DATA / "awr" / "19c_rac_cdb_pdb_report_text_sqlplus_pages_excerpt.txt")
    lines = text.splitlines(keepends=True)
    assert lines[29].startswith("Load Profile")
    report = parse_awr("".join(lines[:30]), allow_truncated=True)
    assert report["load_profile"] is None and report["sections"]["truncated"] == TRUNCATED


def test_a_wait_event_name_with_a_byte_no_event_name_has_loses_its_table():
    """Found by the generator: 'db file parallel write' of the global background events overwritten
    ('db file p#####l write') filed its average under no key event: the point's DBWR latency was
    empty, unsaid. Oracle's event names hold letters, digits, spaces and a few signs."""
    line = next(ln for ln in read_awr_file(RAC).splitlines(keepends=True)
                if ln.startswith("System I/O db file parallel write "))
    text = read_awr_file(RAC).replace(line, line.replace("parallel", "p#####l"))
    report = parse_awr(text)
    assert "byte no event name has" in not_understood(report)["Background Wait Events (Global)"]
    assert point_metrics(report)["db_file_parallel_write_avg_wait_us"] is None
    assert point_metrics(parsed(RAC))["db_file_parallel_write_avg_wait_us"] == 11070.0


def test_a_histogram_section_lost_is_not_replaced_by_another_s_coarser_cells():
    """Found by the generator: a line of "Wait Event Histogram (up to 32 ms)" removed (a cell of
    'gc cr block 2-way') lost the section, and the share of direct path reads under 512 us was
    taken from "Wait Event Histogram"'s seven cells (12.9) for the lost section's one (13.0)."""
    path = DATA / "awr" / "12.2.0.1_rac_cdb_exadata_resaved_html_awr.html.gz"
    lines = read_awr_file(path).splitlines(keepends=True)
    assert lines[13529].startswith('<TD class=awrc headers="%ofTotalWaits <16ms"')
    report = parse_awr("".join(lines[:13529] + lines[13530:]))
    assert "Wait Event Histogram (up to 32 ms)" in not_understood(report)
    assert point_metrics(parsed(path))["direct_path_read_under_512us_pct"] == 13.0
    assert point_metrics(report)["direct_path_read_under_512us_pct"] is None


def test_an_event_missing_from_a_histogram_section_its_waits_reach_loses_its_rows():
    """'db file sequential read' waits 7.8 % of the time 512 us or more ("Wait Event Histogram"
    '>=512'): "(up to 32 ms)" lists it; its line removed there, the share under 512 us would be
    added up from seven coarser cells."""
    line = "db file sequential read   824.2K  92.2   5.6   1.2    .7    .1    .0    .0    .0\n"
    report = without(INSTANCE, line)
    assert "no row of 'db file sequential read', whose waits of >=512" in (
        not_understood(report)["Wait Event Histogram (up to 32 ms)"])
    assert point_metrics(report)["db_file_sequential_read_under_512us_pct"] is None

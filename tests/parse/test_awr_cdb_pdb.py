"""AWR reports of container databases and of their PDBs, and report headers of 11.2 and 12.1, on
real reports (tests/data/awr, see PROVENANCE.md there).

Expected values are the numbers printed in the reports (the printed text in a comment when a
unit is converted).
"""

from __future__ import annotations

import pytest

from flashpoc.oracle.awr_metrics import point_metrics
from flashpoc.oracle.awr import parse_awr, read_awr_file
from test_awr_variants import DATA, F_121, F_11203, F_11204, parsed

F_PDB_122_RAC = DATA / "12.2.0.1_rac_cdb_pdb_report_awr.html.gz"
F_CDB_19C_RAC = DATA / "19c_rac_cdb_root_awr.html.gz"


# --------------------------------------------------------------------------- 11.2 and 12.1 headers


@pytest.mark.parametrize(("path", "instance", "db_name"), [
    # "XYDB  1932768254  xydb  1  22-Jun-23 09:06  11.2.0.4.0  NO"
    (F_11204, "xydb", "XYDB"),
    # "DB1UAT  3002120671  DB1UAT  1  07-Sep-18 23:09  11.2.0.3.0  NO"
    (F_11203, "DB1UAT", "DB1UAT"),
    # "RECEIPT  1431238624  RECEIPT  1  06-Dec-17 21:12  12.1.0.2.0  NO"
    (F_121, "RECEIPT", "RECEIPT"),
])
def test_instance_printed_in_the_database_table_is_read(path, instance, db_name):
    """11.2 and 12.1 print the instance and its number in the database table ('DB Name  DB Id
    Instance  Inst num  Startup Time  Release  RAC'), not in a table of their own: the header
    listed no instance."""
    header = parsed(path)["header"]
    assert header["db_name"] == db_name
    assert header["instances"] == [{"instance": instance, "inst_num": 1}]


# --------------------------------------------------------------------------- PDB report of a RAC CDB (HTML)


def test_pdb_report_of_a_rac_cdb_html():
    """A 12.2 PDB report of one instance of a RAC CDB: the database, its instance and snapshots,
    the sections a PDB report prints (no background events, histograms or host CPU: named
    absent), and its IO stats with the container each row belongs to ('PDB Name')."""
    report = parsed(F_PDB_122_RAC)
    assert "WORKLOAD REPOSITORY PDB report (root snapshots)" in read_awr_file(F_PDB_122_RAC)
    # "IDCDB  4102709851  idcdb  PRIMARY  EE  12.2.0.1.0  YES  YES"; "idcdb1  1  10-Aug-22 00:08";
    # "Begin Snap: 56288 09-Dec-24 10:00:09 ... 2"; "Elapsed: 59.97 (mins)"; "DB Time: 21,229.53 (mins)"
    assert report["header"] == {
        "db_name": "IDCDB", "db_id": 4102709851, "version": "12.2.0.1.0",
        "instances": [{"instance": "idcdb1", "inst_num": 1}], "instance_count": 2, "rac": True, "cdb": True,
        "begin_snap": 56288, "end_snap": 56289, "begin_time": "09-Dec-24 10:00:09", "end_time": "09-Dec-24 11:00:07",
        "elapsed_min": 59.97, "db_time_min": 21229.53,
    }
    sections = report["sections"]
    assert sections["not_understood"] == []
    assert {"Background Wait Events", "Wait Event Histogram", "IOStat by Function summary",
            "Host CPU"} <= set(sections["absent"])
    # "gc buffer busy acquire  6,990,874  938.9K  134.31ms  73.7  Cluster" (Top 10)
    top = report["top_events"][0]
    assert (top["event"], top["waits"], top["total_time_s"], top["total_time_printed"], top["avg_wait_us"],
            top["pct_db_time"], top["wait_class"]) == (
        "gc buffer busy acquire", 6990874, 938900.0, "938.9K", 134310.0, 73.7, "Cluster")
    # Foreground: "db file sequential read  1,007,625  222  219.94us"; "direct path read  231,136  229  .99ms"
    assert (report["key_events"]["db file sequential read"], report["key_event_waits"]["db file sequential read"]) == (
        219.94, 1007625)
    assert (report["key_events"]["direct path read"], report["key_event_waits"]["direct path read"]) == (990.0, 231136)
    assert "log file parallel write" not in report["key_events"]
    # "TS_DC  377,670  105  1.85  101.70  12  0.22  0.00  63  0  0.00  31,006  19.22  SJJH" (12.2 adds 'Av Writes(ms)')
    ts_dc = [row for row in report["tablespace_io"] if row["tablespace"] == "TS_DC"]
    assert ts_dc == [{"tablespace": "TS_DC", "reads": 377670, "reads_per_s": 105.0, "avg_read_ms": 1.85,
                      "blocks_per_read": 101.7, "single_block_reads_per_s": 12.0, "avg_single_block_read_ms": 0.22,
                      "optimized_reads_pct": 0.0, "writes": 63, "writes_per_s": 0.0, "avg_write_ms": 0.0,
                      "buffer_waits": 31006, "avg_buffer_wait_ms": 19.22, "pdb_name": "SJJH"}]
    files = report["file_io"]
    assert (len(report["tablespace_io"]), len(files), {row["pdb_name"] for row in files}) == (16, 107, {"SJJH"})
    # "TS_DC  +DATA/IDCDB/71A2...5412/DATAFILE/ts_dc.335.1074524023  8,958  2  1.87  104.95 ... 272  3.46  SJJH"
    first = next(row for row in files if row["filename"].endswith("/ts_dc.335.1074524023"))
    assert (first["reads"], first["avg_read_ms"], first["buffer_waits"], first["avg_buffer_wait_ms"]) == (
        8958, 1.87, 272, 3.46)
    # the tablespace's printed reads and buffer waits are the sums of its 79 files'
    assert sum(row["reads"] for row in files if row["tablespace"] == "TS_DC") == 377670
    metrics = point_metrics(report)
    # "Read IO requests: 467.4"; "Read IO (MB): 109.7"; "DB CPU ... 1.7" % DB time
    assert (metrics["read_iops"], metrics["read_mibps"], metrics["db_cpu_pct_of_db_time"], metrics["lat_mean_ms"]) == (
        467.4, 109.7, 1.7, 0.21994)


# --------------------------------------------------------------------------- a RAC CDB's root (HTML)


def test_root_report_of_a_rac_cdb_html():
    """A 19c RAC instance report taken in the root of a container database: a whole instance
    report, every section read; its IO stats print no data."""
    report = parsed(F_CDB_19C_RAC)
    header = report["header"]
    # "XYDB  1971498938  xydb  PRIMARY  EE  19.0.0.0.0  YES  YES"; "xydb1  1  12-Dec-22 11:58"
    assert (header["db_name"], header["db_id"], header["version"], header["rac"], header["cdb"]) == (
        "XYDB", 1971498938, "19.0.0.0.0", True, True)
    assert (header["instances"], header["instance_count"], header["elapsed_min"], header["db_time_min"]) == (
        [{"instance": "xydb1", "inst_num": 1}], 2, 59.93, 557.32)
    assert report["sections"]["not_understood"] == [] and report["sections"]["absent"] == []
    assert (report["tablespace_io"], report["file_io"]) == ([], [])
    # Foreground: "log file sync  143,534  490  3.42ms"; background "log file parallel write  433,468  0  243  560.75us"
    assert (report["key_events"]["log file sync"], report["key_event_waits"]["log file sync"]) == (3420.0, 143534)
    assert (report["key_events"]["log file parallel write"],
            report["key_event_waits"]["log file parallel write"]) == (560.75, 433468)
    assert report["key_events"]["db file parallel write"] == 834.03  # "36,487  0  30  834.03us"
    metrics = point_metrics(report)
    # "Read IO requests: 36.4"; "Write IO requests: 74.0"; "160 ... 2.4 2.0 0.0 95.5" (Host CPU)
    assert (metrics["read_iops"], metrics["write_iops"], metrics["cpus"], metrics["host_cpu_idle_pct"]) == (
        36.4, 74.0, 160, 95.5)
    # "db file sequential read  2331  20.4  31.5  34.3  10.2  2.8  .4  .2  .0" (up to 32 ms)
    assert (metrics["db_file_sequential_read_under_512us_pct"], metrics["db_file_sequential_read_under_1ms_pct"],
            metrics["db_file_sequential_read_under_2ms_pct"]) == (20.4, 51.9, 86.2)


# --------------------------------------------------------------------------- text PDB report through SQL*Plus


F_PDB_TEXT_SQLPLUS = DATA / "19c_rac_cdb_pdb_report_text_sqlplus_pages_excerpt.txt"


def test_text_pdb_report_printed_by_a_sqlplus_query():
    """A 19c text PDB report of a RAC CDB printed by ``SELECT * FROM TABLE(AWR_REPORT_TEXT(...))``
    in SQL*Plus (an excerpt: up to Foreground Wait Events): each page starts with a blank line and
    the column heading 'OUTPUT'. The Load Profile was read up to the first page break (1 row of
    25, no IO requests) and the Top 10 not understood (its header cut in two)."""
    text = read_awr_file(F_PDB_TEXT_SQLPLUS)
    assert text.count("\nOUTPUT\n") == 13
    report = parse_awr(text, allow_truncated=True)
    assert report["sections"]["not_understood"] == []
    assert {"header", "Load Profile", "Top 10 Foreground Events by Total Wait Time",
            "Foreground Wait Events"} <= set(report["sections"]["read"])
    # "RACDB  1231980070 racdb  PRIMARY  EE  19.0.0.0.0 YES YES"; "racdb1  1 10-Jun-26 08:22";
    # "Begin Snap:  37 10-Jun-26 10:00:07  1  11.0  1"; "Elapsed: 60.00 (mins)"; "DB Time: 0.89 (mins)"
    assert report["header"] == {
        "db_name": "RACDB", "db_id": 1231980070, "version": "19.0.0.0.0",
        "instances": [{"instance": "racdb1", "inst_num": 1}], "instance_count": 1, "rac": True, "cdb": True,
        "begin_snap": 37, "end_snap": 38, "begin_time": "10-Jun-26 10:00:07", "end_time": "10-Jun-26 11:00:08",
        "elapsed_min": 60.0, "db_time_min": 0.89,
    }
    profile = {row["statistic"]: (row["per_second"], row["per_transaction"]) for row in report["load_profile"]}
    assert len(profile) == 25
    # "DB Time(s): 0.0  26.7"; "Read IO requests: 0.0  10.0" (after a break); "Executes (SQL): 0.6  1,062.5"
    assert (profile["DB Time(s)"], profile["Read IO requests"], profile["Executes (SQL)"],
            profile["Transactions"]) == ((0.0, 26.7), (0.0, 10.0), (0.6, 1062.5), (0.0, None))
    top = {row["event"]: row for row in report["top_events"]}
    assert len(top) == 10
    # "enq: TX - row lock contention  1  52.9  52.86 s  98.9 Applicat"
    lock = top["enq: TX - row lock contention"]
    assert (lock["waits"], lock["total_time_s"], lock["avg_wait_us"], lock["avg_wait_printed"], lock["pct_db_time"],
            lock["wait_class"]) == (1, 52.9, 52860000.0, "52.86 s", 98.9, "Applicat")
    # "library cache pin  4  0  564.00us  .0 Concurre" (the row after the break)
    assert (top["library cache pin"]["avg_wait_us"], top["library cache pin"]["wait_class"]) == (564.0, "Concurre")
    # Foreground Wait Events: "db file sequential read  13  0  3.23ms"; "log file sync  2  0  19.72ms"
    assert report["key_events"] == {"db file sequential read": 3230.0, "log file sync": 19720.0}
    assert report["key_event_waits"] == {"db file sequential read": 13, "log file sync": 2}
    metrics = point_metrics(report)
    assert (metrics["read_iops"], metrics["lat_mean_ms"], metrics["db_cpu_pct_of_db_time"]) == (0.0, 3.23, 0.8)

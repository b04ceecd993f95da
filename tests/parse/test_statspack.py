"""A real Statspack report (tests/data/awr/11.2.0.4_single_prod_statspack.txt.gz, see PROVENANCE.md) read
like an AWR report: :func:`flashpoc.oracle.statspack.parse_statspack`, reached through ``parse_awr``.

Expected values are the printed cells (the printed text in a comment).
"""

from __future__ import annotations

import pytest

from conftest import TESTS
from flashpoc.oracle.awr_metrics import point_metrics
from flashpoc.core.errors import ParseError
from flashpoc.oracle.awr import parse_awr, read_awr_file
from flashpoc.oracle.reportparse.sections import _section
from flashpoc.oracle.statspack import _key_event_figures, _StatspackText, is_statspack, parse_statspack
from flashpoc.oracle.sizing import sizing_summary

REPORT = TESTS / "data" / "awr" / "11.2.0.4_single_prod_statspack.txt.gz"
TEXT = read_awr_file(REPORT)
PARSED = parse_awr(TEXT)


def row(rows: list[dict], **where) -> dict:
    found = [r for r in rows if all(r.get(k) == v for k, v in where.items())]
    assert len(found) == 1, where
    return found[0]


def test_a_statspack_report_is_read_where_an_awr_report_is():
    assert is_statspack(TEXT) and PARSED["format"] == "statspack" and PARSED["kind"] == "instance"
    assert PARSED == parse_statspack(TEXT)
    assert PARSED["sections"] == {
        "read": ["Foreground Wait Events", "Background Wait Events", "header", "File IO Stats", "Tablespace IO Stats",
                 "key events", "Load Profile", "Top 5 Timed Events", "Wait Event Histogram",
                 "IO Stat by Function - summary", "Host CPU", "Time Model System Stats", "Instance Activity Stats"],
        "absent": [], "not_understood": []}


def test_header():
    # "          1066102538 igt                 1 15-Sep-15 08:45 11.2.0.4.0  NO" (the Database cell is blank:
    # the name is in "DB/Inst: IGT/igt"); "Begin Snap:       6693 31-Jan-16 00:00:03"; "Elapsed:   1,439.98 (mins)";
    # "DB time:      10.30 (mins)      DB CPU:      19.78 (mins)"
    assert PARSED["header"] == {
        "db_name": "IGT", "db_id": 1066102538, "version": "11.2.0.4.0",
        "instances": [{"instance": "igt", "inst_num": 1}], "instance_count": None, "rac": False, "cdb": None,
        "begin_snap": 6693, "end_snap": 6723, "begin_time": "31-Jan-16 00:00:03", "end_time": "01-Feb-16 00:00:02",
        "elapsed_min": 1439.98, "db_time_min": 10.3, "db_cpu_min": 19.78}


def test_load_profile():
    profile = {r["statistic"]: (r["per_second"], r["per_transaction"]) for r in PARSED["load_profile"]}
    assert profile["Redo size"] == (11431.3, 20020.5)  # "Redo size:           11,431.3           20,020.5"
    assert profile["Physical reads"] == (17.5, 30.7)
    assert profile["Transactions"] == (0.6, None)  # "Transactions:                0.6"
    assert len(profile) == 15
    assert PARSED["instance_efficiency"] == {"buffer_hit_pct": 98.68}  # "Buffer  Hit   %:   98.68"


def test_top_5_timed_events():
    top = PARSED["top_events"]
    assert [e["event"] for e in top] == ["CPU time", "control file parallel write", "log file parallel write",
                                         "log file sync", "db file async I/O submit"]
    # "control file parallel write                     74,394          24      0    4.1"
    assert row(top, event="control file parallel write") == {
        "event": "control file parallel write", "waits": 74394, "waits_printed": "74,394", "total_time_s": 24.0,
        "total_time_printed": "24", "avg_wait_us": 0.0, "avg_wait_printed": "0", "pct_db_time": None,
        "pct_total_call_time": 4.1, "wait_class": "System I/O"}
    # "CPU time                                                       524          88.6"
    cpu = row(top, event="CPU time")
    assert (cpu["waits"], cpu["total_time_s"], cpu["avg_wait_us"]) == (None, 524.0, None)
    assert cpu["pct_total_call_time"] == 88.6
    assert cpu["wait_class"] is None
    assert row(top, event="db file async I/O submit")["avg_wait_us"] == 2000.0  # "3,216   6   2   1.0"


def test_key_events_from_the_foreground_and_background_wait_events():
    # foreground "db file sequential read  121,513  0  1  0"; background "log file parallel write  61,304 ... 0"
    assert PARSED["key_event_waits"] == {"db file sequential read": 121513, "db file scattered read": 8143,
                                         "log file sync": 27042, "log file parallel write": 61304,
                                         "db file parallel write": 3235}
    assert PARSED["key_events"] == dict.fromkeys(PARSED["key_event_waits"], 0.0)  # whole milliseconds: "0"


def _wait_events(text: str) -> tuple:
    report = _StatspackText(text)
    return _section(report, "Foreground Wait Events"), _section(report, "Background Wait Events")


def test_an_average_from_the_total_wait_time_where_it_is_long_enough():
    # at least 50 s of total wait time is needed: no key event of this report has it, so the averages
    # above are the printed whole milliseconds; at 5 s, background "log file parallel write  61,304  0  10  0"
    # gives 10 s / 61,304 waits and foreground "log file sync  27,042  0  6  0" 6 s / 27,042 waits
    fg, bg = _wait_events(TEXT)
    assert _key_event_figures(fg, bg) == {key: PARSED[key] for key in (
        "key_events", "key_events_whole_ms", "key_event_waits", "key_event_names")}
    finer = _key_event_figures(fg, bg, min_total_s=5)["key_events"]
    assert (finer["log file parallel write"], finer["log file sync"]) == (pytest.approx(10e6 / 61304), pytest.approx(6e6 / 27042))
    assert finer["db file sequential read"] == 0.0  # 1 s: the printed "0"
    # a printed average the total time does not give (cells out of their columns): the event is left out
    damaged = TEXT.replace("log file parallel write            61,304    0         10      0",
                           "log file parallel write            61,304    0         10      9")
    assert damaged != TEXT
    assert "log file parallel write" not in _key_event_figures(*_wait_events(damaged), min_total_s=5)["key_events"]


def test_the_key_events_read_in_whole_milliseconds_are_named():
    # none has 50 s of waits: all five keep the printed whole milliseconds (their 0 is under 0.5 ms)
    assert PARSED["key_events_whole_ms"] == ["db file sequential read", "db file scattered read", "log file sync",
                                             "log file parallel write", "db file parallel write"]
    # log file sync (6 s) and log file parallel write (10 s) computed finer; the others printed
    assert _key_event_figures(*_wait_events(TEXT), min_total_s=5)["key_events_whole_ms"] == [
        "db file sequential read", "db file scattered read", "db file parallel write"]
    summary = sizing_summary(PARSED)
    assert summary["latency_whole_ms"] == ["read_lat_ms", "redo_write_lat_ms", "dbwr_write_lat_ms", "commit_lat_ms"]
    # Wait Event Histogram "db file sequential read     237K 100.0"; Time Model "DB CPU  1,186.7  192.1"
    assert summary["read_under_1ms_pct"] == 100.0
    assert summary["db_cpu_note"] == ("the report's own DB CPU exceeds its DB time (1,186.7 s against 617.8 s): its DB "
                                      "CPU share of 192.1 % cannot be read as \"storage is not the limit\"")


def test_a_damaged_key_event_cell_loses_the_key_events_not_the_report():
    """A key event's Total Wait Time that is not a number ('10' read '1x') is not read as one: the
    key events are not understood, the rest of the report (its wait event tables too) is read."""
    damaged = TEXT.replace("log file parallel write            61,304    0         10      0",
                           "log file parallel write            61,304    0         1x      0")
    assert damaged != TEXT
    report = parse_awr(damaged)
    assert (report["key_events"], report["key_events_whole_ms"], report["key_event_waits"]) == ({}, [], {})
    (refused,) = report["sections"]["not_understood"]
    assert refused == {"section": "key events", "reason": "expected a number (optionally suffixed K/M/G/T/P), got '1x'"}
    assert "Background Wait Events" in report["sections"]["read"] and report["header"] == PARSED["header"]


def test_wait_event_histogram():
    # "log file parallel write      61K  99.3    .4    .3    .0    .0"
    rows = [r for r in PARSED["event_histograms"] if r["event"] == "log file parallel write"]
    assert [(r["bucket"], r["pct"]) for r in rows] == [("<1ms", 99.3), ("<2ms", 0.4), ("<4ms", 0.3), ("<8ms", 0.0),
                                                        ("<16ms", 0.0), ("<32ms", 0.0), ("<=1s", 0.0), (">1s", 0.0)]
    assert {(r["waits_printed"], r["waits"]) for r in rows} == {("61K", 61000)}
    seq = row(PARSED["event_histograms"], event="db file sequential read", bucket="<1ms")
    assert (seq["waits"], seq["pct"]) == (237000, 100.0)  # "db file sequential read     237K 100.0"


def test_time_model_and_instance_activity_stats():
    model = {r["statistic"]: (r["time_s"], r["pct_db_time"]) for r in PARSED["time_model"]}
    assert model["DB CPU"] == (1186.7, 192.1) and model["DB time"] == (617.8, None)
    activity = PARSED["instance_activity"]
    # five pages (each next title right under a row); the absolute values and the per Hour page left out
    assert len(activity) == 56 * 4 + 26
    # "physical read total IO requests              641,372            7.4         13.0"
    assert row(activity, statistic="physical read total IO requests") == {
        "statistic": "physical read total IO requests", "total": 641372.0, "per_second": 7.4, "per_transaction": 13.0}
    assert row(activity, statistic="physical write IO requests")["per_second"] == 1.2  # "106,181  1.2  2.2"
    # names cut to 33 characters, as printed
    assert row(activity, statistic="cell physical IO interconnect byt")["total"] == 35763218944.0


def test_file_io_rows_on_two_lines():
    files = PARSED["file_io"]
    assert len(files) == 11
    # "SYSTEM                   /oracle_db/db1/db_igt/ora_system_01.dbf"
    # "        55,301       1   0.0   1     3.2        1,535        0         29    0.0"
    assert row(files, tablespace="SYSTEM") == {
        "tablespace": "SYSTEM", "filename": "/oracle_db/db1/db_igt/ora_system_01.dbf", "reads": 55301,
        "reads_per_s": 1.0, "avg_read_ms": 0.0, "max_read_bucket_ms": 1, "blocks_per_read": 3.2, "writes": 1535,
        "writes_per_s": 0.0, "buffer_waits": 29, "avg_buffer_wait_ms": 0.0}
    # "           155       0   0.0         5.2           98        0          0": no Mx Rd Bkt, no Av BufWt
    temp = row(files, tablespace="TEMPORARY")
    assert (temp["reads"], temp["max_read_bucket_ms"], temp["blocks_per_read"], temp["avg_buffer_wait_ms"]) == (
        155, None, 5.2, None)
    assert row(files, tablespace="GININDEX")["avg_read_ms"] == 1.7


def test_tablespace_io_rows():
    spaces = PARSED["tablespace_io"]
    assert [r["tablespace"] for r in spaces][:3] == ["IGT_TABLE", "WORKAREA", "SYSTEM"] and len(spaces) == 11
    # "UNDOTBS" / "         1,334       0    1.4    48.2        5,146        0         17    0.0"
    assert row(spaces, tablespace="UNDOTBS") == {
        "tablespace": "UNDOTBS", "reads": 1334, "reads_per_s": 0.0, "avg_read_ms": 1.4, "blocks_per_read": 48.2,
        "writes": 5146, "writes_per_s": 0.0, "buffer_waits": 17, "avg_buffer_wait_ms": 0.0}


def test_io_stat_by_function():
    # "LGWR             2462M     1.8       .0M  3002M     2.6       .0M   262K    0.0" (M: MiB)
    lgwr = row(PARSED["iostat_by_function"], function="LGWR")
    assert (lgwr["read_data_mb"], lgwr["read_reqs_per_s"], lgwr["write_data_mb"], lgwr["write_reqs_per_s"]) == (
        2462.0, 1.8, 3002.0, 2.6)
    assert (lgwr["waits_count"], lgwr["avg_time_us"]) == (262000, 0.0)
    # "Direct Reads     8110M      .8       .1M                                    0.0": no writes
    direct = row(PARSED["iostat_by_function"], function="Direct Reads")
    assert (direct["read_mb_per_s"], direct["write_data_mb"], direct["waits_count"]) == (0.1, None, None)
    assert [r["function"] for r in PARSED["iostat_by_function"]][-1] == "Streams AQ"


def test_host_cpu():
    # "Host CPU  (CPUs: 12  Cores: 6  Sockets: 1)" / "0.01    0.00      0.93    0.49   98.56    0.00"
    assert PARSED["host_cpu"] == {"cpus": 12, "load_begin": 0.01, "load_end": 0.0, "user_pct": 0.93,
                                  "system_pct": 0.49, "wio_pct": 0.0, "idle_pct": 98.56}


def test_point_metrics_of_a_statspack_report():
    m = point_metrics(PARSED)
    assert m["scope"] == "instance (Statspack report)" and m["elapsed_s"] == 86398.8
    # Instance Activity Stats per Second: physical read/write IO requests 4.1 / 1.2, bytes 143,652.5 / 16,158.5
    assert (m["read_iops"], m["write_iops"], m["iops"]) == (4.1, 1.2, 5.3)
    assert m["read_mibps"] == pytest.approx(143652.5 / 2**20) and m["write_mibps"] == pytest.approx(16158.5 / 2**20)
    assert m["transactions_per_s"] == 0.6  # user commits 0.6, user rollbacks 0.0
    # Time Model: DB CPU 1,186.7 s (192.1 % of DB time 617.8 s) over 86,398.8 s
    assert m["db_cpu_pct_of_db_time"] == 192.1 and m["db_cpu_s_per_s"] == pytest.approx(1186.7 / 86398.8)
    assert m["buffer_hit_pct"] == 98.68 and m["cpus"] == 12 and m["host_cpu_idle_pct"] == 98.56
    assert m["db_file_sequential_read_under_1ms_pct"] == 100.0 and m["db_file_sequential_read_under_512us_pct"] is None
    assert m["direct_path_read_avg_wait_us"] is None  # no direct path read in the wait events


def test_sizing_summary_of_a_statspack_report():
    summary = sizing_summary(PARSED)
    assert (summary["iops"], summary["read_iops"], summary["write_iops"]) == (5.3, 4.1, 1.2)
    assert summary["read_lat_ms"] == 0.0 and summary["latency_note"].startswith("Statspack prints average waits")
    assert summary["target"] == {"slo_ms": None, "iops_levels": [5]}  # 0 whole ms is no latency target
    assert [e["event"] for e in summary["top_io_events"]] == [
        "control file parallel write", "log file parallel write", "log file sync", "db file async I/O submit"]
    assert summary["top_io_events"][0] == {"event": "control file parallel write", "wait_class": "System I/O",
                                           "waits": 74394, "avg_wait_ms": 0.0, "pct_db_time": None,
                                           "pct_total_call_time": 4.1}


def test_truncated_report_is_refused_or_loses_the_cut_rows():
    cut = TEXT[:TEXT.index("        17,357       0   0.2   1") + 50]  # in the middle of File IO Stats
    with pytest.raises(ParseError, match="Statspack report is truncated"):
        parse_awr(cut)
    partial = parse_awr(cut, allow_truncated=True)
    # the IGT_INDEX figures line is cut ("17,357  0  0.2  1  8.3  3,3"): left out with the line, never read as 33
    assert [f["tablespace"] for f in partial["file_io"]] == ["DWH_INDEX", "DWH_TABLE", "GIN", "GININDEX"]
    assert partial["host_cpu"]["cpus"] == 12


def test_cells_out_of_their_columns_refuse_the_section_not_the_report():
    # a damaged Instance Activity row: the per Second moved into Total's place
    damaged = TEXT.replace("physical read IO requests                    356,928            4.1",
                           "physical read IO requests                          4            4.1")
    report = parse_awr(damaged)
    assert damaged != TEXT
    assert report["instance_activity"] is None and report["load_profile"] is not None
    assert [d["section"] for d in report["sections"]["not_understood"]] == ["Instance Activity Stats"]
    # a File IO row whose reads lost a digit: the per-second rate does not match any more
    damaged = TEXT.replace("       183,162       2   0.0   1     7.5", "        18,162       2   0.0   1     7.5")
    report = parse_awr(damaged)
    assert damaged != TEXT
    assert report["file_io"] is None and "File IO Stats" in {d["section"] for d in report["sections"]["not_understood"]}


def test_not_a_statspack_report():
    with pytest.raises(ParseError, match="not a Statspack report"):
        parse_statspack("WORKLOAD REPOSITORY report for\n")


def test_a_printed_whole_millisecond_read_latency_of_1_sets_no_slo_ms():
    """A read latency printed '1' (whole ms: 0.5 to 1.5 ms) is as coarse as a printed 0: no slo_ms,
    a note saying what it means, and the text table shows it as printed with its precision."""
    from flashpoc.oracle.sizing import summary_rows

    # Foreground Wait Events "db file sequential read  121,513  0  1  0  2.5  .1" with its Avg wait (ms) '1'
    printed = "db file sequential read           121,513    0          1      0      2.5     .1"
    assert TEXT.count(printed) == 1
    summary = sizing_summary(parse_awr(TEXT.replace(printed, printed.replace("1      0", "1      1"))))
    assert summary["read_lat_ms"] == 1.0 and "read_lat_ms" in summary["latency_whole_ms"]
    assert summary["target"]["slo_ms"] is None
    assert summary["latency_note"] == ("Statspack prints average waits in whole milliseconds: a read latency of 1 ms "
                                       "is between 0.5 and 1.5 ms, too coarse for a latency target (set slo_ms "
                                       "yourself)")
    shown = {r["measure"]: r["value"] for r in summary_rows(summary, text=True)}
    assert shown["Read latency, db file sequential read (ms)"] == "1 (whole ms)"
    assert shown["Redo write, log file parallel write (ms)"] == "< 0.5"  # "log file parallel write ... 0"
    assert {r["measure"]: r["value"] for r in summary_rows(summary)}["Read latency, db file sequential read (ms)"] == 1

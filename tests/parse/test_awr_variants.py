"""AWR report variants on real reports (tests/data/awr, see PROVENANCE.md there): tables of one
row, a PDB report that hides the database's identity and was saved with doubled quotes, Exadata
events, column headers of other versions, an 11.2.0.4 text report next to its HTML twin, a report
re-saved by a browser, and reports mechanically re-saved with CRLF line ends, upper-cased tags or
SQL*Plus spool text before them.

Expected values are the numbers printed in the reports (the printed text in a comment when a
unit is converted).
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import pytest

from awr_reports import parsed
from conftest import TESTS
from flashpoc.oracle.awr_metrics import point_metrics
from flashpoc.core.errors import ParseError
from flashpoc.oracle.awr import column_meaning, header_unit, key_event, parse_awr, read_awr_file

DATA = TESTS / "data" / "awr"
F_64US = DATA / "19c_rac_instance_slob_d8s_s40_histogram_64us_one_row_awr.txt.gz"
F_FG_ONE_ROW = DATA / "19c_rac_instance_slob_update3_foreground_one_row_awr.txt.gz"
F_RAC_ONE_ROW = DATA / "19c_rac_global_slob_p80x2_wu16_awr_rac.txt.gz"
F_PDB = DATA / "pdb_exadata_awr_doubled_quotes.html.gz"
F_RAC_122_HTML = DATA / "12.2.0.1_rac_global_slob_single_instance_awr_rac.html.gz"
F_18C_EXADATA = DATA / "18c_rac_instance_prod_awr.htm"
F_122 = DATA / "12.2.0.1_single_prod_awr.html"
F_19C_PREAMBLE = DATA / "19c_single_awrrpt_with_sqlplus_prompt_preamble.html"
F_11204 = DATA / "11.2.0.4_single_prod_awr.html.gz"
F_121 = DATA / "12.1.0.2_single_prod_awr.html.gz"
F_11203 = DATA / "11.2.0.3_single_prod_awr_aix.html.gz"

def histogram(report: dict, section: str, event: str) -> dict[str, str]:
    return {r["bucket"]: r["pct_printed"] for r in report["event_histograms"]
            if r["section"] == section and r["event"] == event}


def top_event(report: dict, event: str) -> dict:
    (row,) = [r for r in report["top_events"] if r["event"] == event]
    return row


# --------------------------------------------------------------------------- tables of one row


def test_histogram_section_of_one_row_is_read():
    """'Wait Event Histogram (up to 64 us)' holds one row and its closing rule: the report was
    refused whole ('no column header rule found')."""
    text = read_awr_file(F_64US)
    assert "undo_retention publish re      2                   100.0" in text
    report = parsed(F_64US)
    assert report["sections"]["not_understood"] == []
    assert "Wait Event Histogram (up to 64 us)" in report["sections"]["read"]
    assert (report["header"]["version"], report["header"]["db_time_min"]) == ("19.0.0.0.0", 199.49)
    seq = top_event(report, "db file sequential read")  # 2,102,388  10.8K  5.13ms  90.0 User I/O
    assert (seq["waits"], seq["total_time_s"], seq["avg_wait_us"], seq["pct_db_time"]) == (2102388, 10800.0, 5130.0, 90.0)
    assert report["key_events"]["db file sequential read"] == 5130.0
    assert report["key_events"]["log file parallel write"] == 4680.0  # 100,209 ... 4.68ms (background)
    # "db file sequential read     2.1M                    61.8  31.6   3.2   2.6    .8"
    assert histogram(report, "Wait Event Histogram (up to 32 ms)", "db file sequential read") == {
        "<512": "", "<1ms": "", "<2ms": "", "<4ms": "61.8", "<8ms": "31.6", "<16ms": "3.2", "<32ms": "2.6",
        ">=32m": ".8"}
    metrics = point_metrics(report)
    assert metrics["db_file_sequential_read_under_4ms_pct"] == 61.8
    assert metrics["read_iops"] == 3483.5  # Read IO requests: 3,483.5


def test_continuation_page_of_one_row_is_read():
    """'Foreground Wait Events' continues on a second page holding one row ('PX Deq: Msg
    Fragment'): the report was refused whole."""
    report = parsed(F_FG_ONE_ROW)
    assert report["sections"]["not_understood"] == []
    # "db file sequential read     20,149,357         14,221  705.79us     99.5   50.8"
    assert report["key_events"]["db file sequential read"] == 705.79
    assert report["key_event_waits"]["db file sequential read"] == 20149357
    # Background: "db file parallel write 87,242 0 1,460 16.73ms", "log file parallel write 14,300 0 265 18.56ms"
    assert report["key_events"]["db file parallel write"] == 16730.0
    assert report["key_events"]["log file parallel write"] == 18560.0
    # "db file sequential read     6.7M  66.4  25.4   5.1   1.2    .6   1.4    .0    .0"
    metrics = point_metrics(report)
    assert (metrics["db_file_sequential_read_under_512us_pct"], metrics["db_file_sequential_read_under_1ms_pct"],
            metrics["db_file_sequential_read_under_2ms_pct"]) == (66.4, 91.8, 96.9)
    assert metrics["read_iops"] == 60709.6  # Read IO requests: 60,709.6


def test_rac_global_histogram_page_of_one_row_is_read():
    """The last 'Wait Event Histogram (Global)' page of this awrgrpt text report holds one row:
    the report was refused whole."""
    report = parsed(F_RAC_ONE_ROW)
    assert report["kind"] == "rac_global"
    assert report["sections"]["not_understood"] == [] and report["sections"]["absent"] == []
    assert (report["header"]["db_name"], report["header"]["db_time_min"], report["header"]["elapsed_min"]) == (
        "P80DB", 1213.44, 10.18)
    # "User I/O   db file sequential read   4,978,727   0.0   35,394.27   7.11ms   48.61 ..."
    assert report["key_events"]["db file sequential read"] == 7110.0
    assert report["key_event_waits"]["db file sequential read"] == 4978727
    # "db file sequential read  5M ... 0.0(3)  60.2  21.9  4.3  10.9  2.6  0.0(99)  0.0(8)"
    assert histogram(report, "Wait Event Histogram (Global)", "db file sequential read")["<4ms"] == "60.2"
    assert histogram(report, "Wait Event Histogram (Global)", "db file sequential read")["<2ms"] == "0.0(3)"
    metrics = point_metrics(report)
    assert (metrics["scope"], metrics["db_file_sequential_read_under_4ms_pct"]) == ("cluster", 60.2)


def test_rac_global_html_122():
    """awrgrpt HTML of 12.2 (every key event row prefixed by a hidden instance cell)."""
    report = parsed(F_RAC_122_HTML)
    assert report["kind"] == "rac_global" and report["sections"]["not_understood"] == []
    header = report["header"]
    assert (header["db_name"], header["version"], header["begin_snap"], header["elapsed_min"]) == (
        "SLOB2", "12.2.0.1.0", 400, 21.82)
    # Foreground Wait Events (Global): "User I/O  db file sequential read  109  0.00  0.08  749.07us"
    assert report["key_events"]["db file sequential read"] == 749.07
    assert report["key_event_waits"]["db file sequential read"] == 109
    # "db file sequential read 653 ... 15.3 74.0 8.1 1.4 0.9 0.2 0.2" (<256us ... <16ms)
    assert histogram(report, "Wait Event Histogram (Global)", "db file sequential read")["<512us"] == "74.0"
    metrics = point_metrics(report)
    # "physical read IO requests 10,535,057 8,047.33 ..."; 15.3 + 74.0 + 8.1 under 1 ms
    assert (metrics["read_iops"], metrics["db_file_sequential_read_under_1ms_pct"]) == (8047.33, 97.4)


# --------------------------------------------------------------------------- 11.2.0.4


def test_11204_html_report():
    """An 11.2.0.4 HTML report: its Top 10 names the column 'Wait Avg(ms)' and prints whole
    milliseconds, its wait events 'Avg wait (ms)', its 'IOStat by Function summary' 'Avg Tm(ms)'
    with bare numbers (that section was not understood: 'expected a latency with a unit')."""
    report = parsed(F_11204)
    header = report["header"]
    assert (header["version"], header["db_name"], header["rac"], header["elapsed_min"], header["db_time_min"]) == (
        "11.2.0.4.0", "XYDB", False, 60.09, 111.32)
    # its Tablespace IO Stats prints its cells in another order than its header: read in that order
    # (tests/parse/test_awr_io_stats.py)
    assert report["sections"]["not_understood"] == []
    assert {"Top 10 Foreground Events by Total Wait Time", "Wait Event Histogram", "IOStat by Function summary",
            "Host CPU"} <= set(report["sections"]["read"])
    # "db file sequential read  1,938,901  40.7  0  .6  User I/O"; "log file sync  77,395  176.8  2  2.6  Commit"
    seq = top_event(report, "db file sequential read")
    assert (seq["waits"], seq["total_time_s"], seq["avg_wait_us"], seq["pct_db_time"], seq["wait_class"]) == (
        1938901, 40.7, 0.0, 0.6, "User I/O")
    assert top_event(report, "log file sync")["avg_wait_us"] == 2000.0
    # Background: "log file parallel write  92,374  0  168  2  1.01  39.65"
    assert report["key_events"]["log file parallel write"] == 2000.0
    assert report["key_event_waits"]["log file parallel write"] == 92374
    # "db file sequential read  1940.1K  99.9  .1  .0  .0  .0  .0  .0"
    assert histogram(report, "Wait Event Histogram", "db file sequential read") == {
        "<1ms": "99.9", "<2ms": ".1", "<4ms": ".0", "<8ms": ".0", "<16ms": ".0", "<32ms": ".0", "<=1s": ".0", ">1s": ""}
    # "36  36  36  1.31  1.18  2.8  1.5  0.2  95.6"
    assert report["host_cpu"] == {"cpus": 36, "load_begin": 1.31, "load_end": 1.18, "user_pct": 2.8,
                                  "system_pct": 1.5, "wio_pct": 0.2, "idle_pct": 95.6}
    # "LGWR  12M  0.24  .003M  18.1G  30.61  5.147M  186.5K  1.29"; "DBWR ... 8897  11.40"
    iostat = {r["function"]: r for r in report["iostat_by_function"]}
    assert (iostat["LGWR"]["avg_time_us"], iostat["LGWR"]["waits_count"]) == (1290.0, 186500)
    assert iostat["DBWR"]["avg_time_us"] == 11400.0
    metrics = point_metrics(report)
    # "Read IO requests: 1,132.7"; "Buffer  Hit   %: 100.00"; DB CPU "78.4" % DB time
    assert (metrics["read_iops"], metrics["buffer_hit_pct"], metrics["db_cpu_pct_of_db_time"]) == (1132.7, 100.0, 78.4)
    assert metrics["db_file_sequential_read_under_1ms_pct"] == 99.9


def test_11203_html_report_host_cpu_and_its_io_requests():
    """An 11.2.0.3 HTML report: 'Top 5 Timed Foreground Events' ('Avg wait (ms)'), a Host CPU
    table without a CPUs column (the title prints 'Host CPU (CPUs: 8 Cores: 2 Sockets: )'; the
    section was not understood) and a Load Profile without IO requests (only 'Physical reads',
    blocks): its IOPS are the same statistics 11.2.0.4's Load Profile prints, read from its
    Instance Activity Stats, never guessed from blocks."""
    report = parsed(F_11203)
    assert (report["header"]["version"], report["header"]["db_time_min"]) == ("11.2.0.3.0", 721.35)
    assert report["sections"]["not_understood"] == []
    # "direct path read  332,492  6,911  21  15.97  User I/O"
    top = top_event(report, "direct path read")
    assert (top["waits"], top["total_time_s"], top["avg_wait_us"], top["pct_db_time"]) == (332492, 6911.0, 21000.0, 15.97)
    # "Load Average Begin 14.47, End 17.52, %User 57.3, %System 35.0, %WIO 3.3, %Idle 7.8"; CPUs 8 (host table)
    assert report["host_cpu"] == {"cpus": 8, "load_begin": 14.47, "load_end": 17.52, "user_pct": 57.3,
                                  "system_pct": 35.0, "wio_pct": 3.3, "idle_pct": 7.8}
    # Instance Activity Stats per Second: "physical read IO requests 4,089,416 1,130.82", "physical write IO
    # requests 235,497 65.12", "physical read bytes ... 439,040,074.19", "physical write bytes ... 746,155.23"
    metrics = point_metrics(report)
    assert (metrics["read_iops"], metrics["write_iops"], metrics["iops"]) == (1130.82, 65.12, 1195.94)
    assert metrics["read_mibps"] == pytest.approx(439040074.19 / 2**20) and \
        metrics["write_mibps"] == pytest.approx(746155.23 / 2**20)
    assert "Instance Activity Stats" in report["sections"]["read"]
    # its averages are whole milliseconds ('Avg wait (ms)' "1" for db file sequential read): said so
    assert "db file sequential read" in report["key_events_whole_ms"]
    without = {**report, "instance_activity": None}
    with pytest.raises(ParseError, match="no 'Read IO requests'") as info:
        point_metrics(without)
    assert "\n" not in str(info.value)


def test_121_html_report():
    """A 12.1.0.2 HTML report: 'Wait Avg(ms)' with two decimals in the Top 10, 'Avg Tm(ms)' in
    IOStat by Function (not understood before, as in 11.2), one 'Wait Event Histogram'."""
    report = parsed(F_121)
    header = report["header"]
    assert (header["version"], header["db_name"], header["begin_snap"], header["end_snap"], header["elapsed_min"],
            header["db_time_min"]) == ("12.1.0.2.0", "RECEIPT", 173494, 173496, 60.24, 229.98)
    assert report["sections"]["not_understood"] == []
    # "db file sequential read  928,041  1918.4  2.07  13.9  User I/O"
    seq = top_event(report, "db file sequential read")
    assert (seq["waits"], seq["total_time_s"], seq["avg_wait_us"], seq["pct_db_time"]) == (928041, 1918.4, 2070.0, 13.9)
    assert top_event(report, "direct path read")["avg_wait_us"] == 3900.0  # "524,921  2048.1  3.90  14.8"
    assert report["key_event_waits"]["log file parallel write"] == 102228  # background "102,228  0  286 ..."
    # "db file sequential read  938.5K  45.3  27.6  14.3  10.1  2.2  .4  .1"
    assert histogram(report, "Wait Event Histogram", "db file sequential read") == {
        "<1ms": "45.3", "<2ms": "27.6", "<4ms": "14.3", "<8ms": "10.1", "<16ms": "2.2", "<32ms": ".4", "<=1s": ".1",
        ">1s": ""}
    # "12  ...  2.62  2.85  16.4  3.7  4.8  79.9"
    assert (report["host_cpu"]["cpus"], report["host_cpu"]["user_pct"], report["host_cpu"]["wio_pct"]) == (12, 16.4, 4.8)
    # "Buffer Cache Reads  35.2G  415.80  9.97M  0M  0.00  0M  1.2M  2.63"; "Direct Reads ... 0  " (blank)
    iostat = {r["function"]: r for r in report["iostat_by_function"]}
    assert (iostat["Buffer Cache Reads"]["avg_time_us"], iostat["Direct Reads"]["avg_time_us"]) == (2630.0, None)
    metrics = point_metrics(report)
    # "Read IO requests: 744.9"; "Buffer  Hit   %: 97.27"
    assert (metrics["read_iops"], metrics["buffer_hit_pct"], metrics["latency_event"], metrics["lat_mean_ms"]) == (
        744.9, 97.27, "db file sequential read", 2.07)
    assert (metrics["db_file_sequential_read_under_1ms_pct"], metrics["db_file_sequential_read_under_2ms_pct"]) == (
        45.3, 72.9)


# --------------------------------------------------------------------------- PDB report, doubled quotes


def test_pdb_report_with_doubled_quotes_and_hidden_database():
    """A PDB report of an Exadata database, saved with every quote doubled (summary=""...""),
    whose container does not see system data (DB Name, DB Id, Release printed blank): the
    sections it has are read, the database's identity is None, and it names the sections it
    does not have."""
    text = read_awr_file(F_PDB)
    assert "WORKLOAD REPOSITORY PDB report (root snapshots)" in text
    assert 'summary=""This table displays load profile""' in text
    report = parsed(F_PDB)
    header = report["header"]
    assert (header["db_name"], header["db_id"], header["version"], header["cdb"]) == (None, None, None, True)
    assert (header["begin_snap"], header["end_snap"], header["elapsed_min"], header["db_time_min"]) == (
        15178, 15179, 60.07, 3081.56)
    sections = report["sections"]
    assert sections["not_understood"] == []
    assert {"header", "Load Profile", "Top 10 Foreground Events by Total Wait Time",
            "Foreground Wait Events"} <= set(sections["read"])
    assert {"Background Wait Events", "Host CPU", "Wait Event Histogram"} <= set(sections["absent"])
    rows = {r["statistic"]: r["per_second"] for r in report["load_profile"]}
    assert (rows["Read IO requests"], rows["DB Time(s)"]) == (583.9, 51.3)
    # "cell single block physical read  773  9.9  12.83ms  .0  User I/O" (Top 10)
    cell = top_event(report, "cell single block physical read")
    assert (cell["waits"], cell["total_time_s"], cell["avg_wait_us"], cell["wait_class"]) == (773, 9.9, 12830.0, "User I/O")
    assert report["key_events"]["db file sequential read"] == 12830.0
    assert report["key_event_names"]["db file sequential read"] == "cell single block physical read"
    assert "log file parallel write" not in report["key_events"]  # no background section in a PDB report
    metrics = point_metrics(report)
    # More direct path reads than single-block reads: the point's read latency is theirs (300.66us).
    assert report["key_event_waits"]["direct path read"] > report["key_event_waits"]["db file sequential read"]
    assert (metrics["read_iops"], metrics["latency_event"], metrics["lat_mean_ms"], metrics["db_name"]) == (
        583.9, "direct path read", 0.30066, None)


# --------------------------------------------------------------------------- Exadata


def test_exadata_events_stand_for_the_key_events():
    report = parsed(F_18C_EXADATA)
    assert report["key_event_names"] == {
        "db file sequential read": "cell single block physical read",
        "db file scattered read": "cell multiblock physical read",
        "direct path read": "direct path read",
        "log file sync": "log file sync",
        "log file parallel write": "log file parallel write",
        "db file parallel write": "db file parallel write",
    }
    assert report["key_event_waits"]["db file sequential read"] == 1075359  # 1,075,359 ... 420.51us
    # "cell single block physical read  94.5K  91.4  6.8  1.1  .4 ..." (up to 32 ms)
    assert histogram(report, "Wait Event Histogram (up to 32 ms)", "db file sequential read")["<1ms"] == "6.8"
    metrics = point_metrics(report)
    assert (metrics["db_file_sequential_read_under_512us_pct"], metrics["db_file_sequential_read_under_1ms_pct"]) == (
        91.4, 98.2)
    assert metrics["lat_mean_ms"] == 0.42051


@pytest.mark.parametrize(("name", "wait_class", "key"), [
    ("db file sequential read", None, "db file sequential read"),
    ("cell single block physical read", "User I/O", "db file sequential read"),
    ("cell single block physica", None, "db file sequential read"),  # cut to a text column
    ("cell multiblock physical read", None, "db file scattered read"),
    ("cell smart table scan", None, None),  # offloaded scans are not direct path reads
    ("db file sequential read", "System I/O", None),  # same name, another class: not the event
    ("log file sync", "Commit", "log file sync"),
    ("db file", None, None),
])
def test_key_event(name, wait_class, key):
    assert key_event(name, wait_class) == key


# --------------------------------------------------------------------------- headers of other versions


@pytest.mark.parametrize(("header", "meaning", "unit"), [
    ("Avg Wait", "avg_wait", None),  # 12.2+ Top 10 (cells carry units)
    ("Wait Avg(ms)", "avg_wait", "ms"),  # 11.2.0.4 / 12.1 Top 10
    ("Avg wait (ms)", "avg_wait", "ms"),  # 11.2 wait events
    ("Avg Wait (ms)", "avg_wait", "ms"),  # Wait Classes by Total Wait Time
    ("Avg Wt(ms)", "avg_wait", "ms"),  # IOStat
    ("Avg wait", "avg_wait", None),
    ("Total Wait Time (sec)", "total_time", "s"),
    ("Time (s)", "total_time", "s"),
    ("Time(s)", "total_time", "s"),
    ("Total Wait Time (s)", "total_time", "s"),
    ("Tota Time", "total_time", None),  # 11.2's text Top 10: "Total Wait Time (sec)" cut to 4 columns
    ("Total Time", "total_time", None),
    ("% DB time", "pct_time", None),
    ("%Total Call Time", "pct_time", None),
    ("Waits", "waits", None),
    ("Waits /txn", None, None),
    ("%Time -outs", None, None),
    ("Wait Class", "wait_class", None),
])
def test_columns_by_meaning_and_unit_from_header(header, meaning, unit):
    assert column_meaning(header) == meaning
    assert header_unit(header) == unit


# --------------------------------------------------------------------------- re-saved reports


def _same_numbers(a: dict, b: dict, *, printed: bool = False) -> None:
    """``a`` and ``b`` give the same values. With ``printed`` (``a`` a text report, ``b`` its HTML
    twin): both read the same sections, and every number of ``a`` and ``b`` are roundings of one
    value to the decimals each has (the text prints ``0.3`` where HTML prints ``0.35``; a time in us
    is compared in the ms the report prints); names are not compared (the text cuts them to its
    columns)."""
    if not printed:
        for key in ("header", "load_profile", "top_events", "key_events", "key_event_waits", "event_histograms",
                    "host_cpu", "iostat_by_function"):
            assert a[key] == b[key], key
        return
    assert a["sections"] == b["sections"]
    for key in a:
        if key not in ("format", "sections"):
            _printed_numbers(a[key], b[key], key)


def _last_place(number: Decimal) -> Decimal:
    """The unit of a number's last decimal as Python writes it (1 for an int; a float has at least
    one decimal, stricter than a whole number the report printed)."""
    return Decimal(1).scaleb(min(0, number.as_tuple().exponent))


def _printed_numbers(text: Any, html: Any, path: str) -> None:
    if isinstance(text, dict):
        assert isinstance(html, dict) and text.keys() == html.keys(), path
        for key in text:
            _printed_numbers(text[key], html[key], f"{path}.{key}")
    elif isinstance(text, list):
        assert isinstance(html, list) and len(text) == len(html), path
        for i, (t, h) in enumerate(zip(text, html)):
            _printed_numbers(t, h, f"{path}[{i}]")
    elif isinstance(text, (int, float)) and not isinstance(text, bool):
        assert isinstance(html, (int, float)), (path, text, html)
        scale = 1000 if path.endswith("_us") else 1
        t, h = Decimal(repr(text / scale)), Decimal(repr(html / scale))
        assert abs(t - h) <= (_last_place(t) + _last_place(h)) / 2, (path, text, html)
    elif text is None or html is None:
        assert text is None and html is None, path


def test_text_report_with_crlf_and_sqlplus_spool_text():
    """A text report saved with CRLF line ends, after the real SQL*Plus prompt text that precedes
    the 19c HTML fixture (mechanically prepended)."""
    spool = read_awr_file(F_19C_PREAMBLE)
    spool = spool[: spool.lower().index("<html")]
    assert "Enter value for report_name:" in spool
    text = read_awr_file(F_64US)
    resaved = (spool + text).replace("\r\n", "\n").replace("\n", "\r\n")
    _same_numbers(parse_awr(resaved), parsed(F_64US))


@pytest.mark.parametrize("instance", [1, 2])
def test_11204_text_report_and_its_html_twin_give_the_same_numbers(instance):
    """Every section both renderings of one 11.2.0.4 report read (all of them) gives the same
    numbers, to the text's printed precision: header, load profile, Top 10, key events, histograms,
    IOStat, host CPU, tablespace and file IO."""
    text = parsed(DATA / f"11.2.0.4_rac_inst{instance}_text_awr.txt.gz")
    html = parsed(DATA / f"11.2.0.4_rac_inst{instance}_html_twin_awr.html.gz")
    assert text["sections"]["not_understood"] == [] and len(text["file_io"]) == 4
    _same_numbers(text, html, printed=True)


def test_html_report_with_upper_case_tags_and_crlf():
    text = read_awr_file(F_122)
    upper = re.sub(r"</?[a-zA-Z][a-zA-Z0-9]*", lambda m: m.group(0).upper(), text).replace("\n", "\r\n")
    assert "<TABLE" in upper and "</TD>" in upper
    _same_numbers(parse_awr(upper), parsed(F_122))


# --------------------------------------------------------------------------- no section at all


def test_a_report_with_no_readable_section_fails_with_one_line():
    text = read_awr_file(F_64US)
    head = text[: text.index("Load Profile")]  # title and DB Name lines only, no snapshot table
    head = head[: head.index("Begin Snap")]
    with pytest.raises(ParseError, match="no section could be read") as info:
        parse_awr(head, allow_truncated=True)
    assert "\n" not in str(info.value)


# --------------------------------------------------------------------------- start-up


def test_flashpoc_parse_awr_loads_no_pydantic():
    """``flashpoc parse awr`` needs neither the campaign schema nor pydantic (most of its start-up
    time was importing them through ``import flashpoc``); ``flashpoc.Campaign`` still works."""
    import subprocess
    import sys

    code = ("import sys, flashpoc.cli, flashpoc.oracle.awr; assert 'pydantic' not in sys.modules, 'pydantic'; "
            "import flashpoc; assert flashpoc.Campaign.__name__ == 'Campaign'; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


# --------------------------------------------------------------------------- Exadata lab reports (Azure)


F_122_EXADATA_RESAVED = DATA / "12.2.0.1_rac_cdb_exadata_resaved_html_awr.html.gz"
F_19C_GLOBAL_EXADATA = DATA / "19c_rac_global_cdb_exadata_awr_rac.html.gz"


def test_resaved_html_with_a_quoted_greater_than_in_a_cell_tag():
    """Histogram cells ``<TD class=awrnc headers="%ofTotalWaits <512us" align=right>18.9</TD>``: the
    cell was cut at the '>' inside the quoted attribute, and every histogram section was not
    understood ('bad percentage '=512us" align=right>81.1'')."""
    report = parsed(F_122_EXADATA_RESAVED)
    assert report["sections"]["not_understood"] == [] and report["sections"]["absent"] == ["File IO Stats"]
    header = report["header"]
    assert (header["version"], header["db_name"], header["rac"], header["cdb"], header["instance_count"]) == (
        "12.2.0.1.0", "DBS", True, True, 2)
    # "cell single block physical read  99M  (blank x5)  15.8  80.0  4.2"
    assert histogram(report, "Wait Event Histogram", "db file sequential read") == {
        "<8us": "", "<16us": "", "<32us": "", "<64us": "", "<128us": "", "<256us": "15.8", "<512us": "80.0",
        ">=512us": "4.2"}
    # "(up to 32 ms)": "4.1M  95.8  1.9  1.0  1.0  .2  .1  .0  .0"
    assert histogram(report, "Wait Event Histogram (up to 32 ms)", "db file sequential read")["<1ms"] == "1.9"
    # Foreground: "cell single block physical read  98,875,012  35K  353.90us  7.9"
    assert (report["key_events"]["db file sequential read"], report["key_event_waits"]["db file sequential read"],
            report["key_event_names"]["db file sequential read"]) == (353.9, 98875012, "cell single block physical read")
    # "STAGING_TBS  73,663,346  284  0.46  5.65  260  0.31  0.00  5,608,614  22  8.70  9,449  2.98  WWPCONT1"
    staging = report["tablespace_io"][0]
    assert (staging["tablespace"], staging["reads"], staging["writes"], staging["avg_write_ms"], staging["buffer_waits"],
            staging["pdb_name"]) == ("STAGING_TBS", 73663346, 5608614, 8.7, 9449, "WWPCONT1")


def test_exadata_event_with_the_most_waits_stands_for_the_key_event():
    """The global foreground events print 'cell single block physical read' (276,639,951 waits,
    490.48us) and 'db file sequential read' (4,798 waits of local files, 3.15ms): the single-block
    read latency is the cell reads', not the 3.15 ms of the few local reads (the row that was read)."""
    report = parsed(F_19C_GLOBAL_EXADATA)
    assert report["kind"] == "rac_global" and report["sections"]["not_understood"] == []
    assert (report["key_events"]["db file sequential read"], report["key_event_waits"]["db file sequential read"],
            report["key_event_names"]["db file sequential read"]) == (490.48, 276639951, "cell single block physical read")
    # "User I/O  cell multiblock physical read  25,145,169 ... 940.23us"
    assert (report["key_events"]["db file scattered read"], report["key_event_names"]["db file scattered read"]) == (
        940.23, "cell multiblock physical read")
    # the histograms of the same event: one printed event per section
    printed = {(r["section"], r["event_printed"]) for r in report["event_histograms"]
               if r["event"] == "db file sequential read"}
    assert printed == {("Wait Event Histogram (Global)", "cell single block physical read")}
    assert point_metrics(report)["lat_mean_ms"] == 0.49048
    header = report["header"]
    assert (header["version"], header["db_name"], header["cdb"], [i["instance"] for i in header["instances"]]) == (
        "19.0.0.0.0", "DBU", True, ["DBU1", "DBU2"])

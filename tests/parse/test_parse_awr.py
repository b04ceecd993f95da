"""Tests for flashpoc.oracle.awr on real AWR reports (tests/data/awr, tests/data/slob).

The files are byte-for-byte copies of the project's recorded fixtures (see the PROVENANCE.md files next to
them; the duplicate copies of the SLOB run's text reports in fixtures/awr were not copied; the
12.2.0.1 SLOB HTML is used by tests/parse/test_awr_metrics.py). Expected values are the numbers printed in the reports; when a
unit is converted, the printed text is given in a comment next to the number.
"""

from __future__ import annotations

import gzip

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from awr_reports import parsed
from conftest import DATA
from damage import assert_loses_never_changes, damage_text
from flashpoc.oracle.awr_metrics import point_metrics
from flashpoc.core.errors import ParseError
from flashpoc.oracle.awr import (
    KEY_EVENTS,
    detect_awr_format,
    parse_awr,
    parse_count,
    parse_latency_us,
    read_awr_file,
)

SLOB_RUN = DATA / "slob" / "slob2.5_19c_rac2node_s256_t1_wu4_update10"
F_TXT_INST = SLOB_RUN / "awr.txt"  # 19c RAC instance 2, text
F_HTML_INST = SLOB_RUN / "awr.html.gz"  # the same report, HTML
F_TXT_RAC = SLOB_RUN / "awr_rac.txt"  # 19c RAC global, text
F_HTML_RAC = SLOB_RUN / "awr_rac.html.gz"  # the same report, HTML
F_122 = DATA / "awr" / "12.2.0.1_single_prod_awr.html"
F_18C = DATA / "awr" / "18c_rac_instance_prod_awr.htm"
F_19C_PREAMBLE = DATA / "awr" / "19c_single_awrrpt_with_sqlplus_prompt_preamble.html"
F_121 = DATA / "awr" / "12.1.0.2_single_prod_awr.html.gz"

def load_row(report: dict, statistic: str) -> tuple:
    rows = [r for r in report["load_profile"] if r["statistic"] == statistic]
    assert len(rows) == 1, statistic
    return rows[0]["per_second"], rows[0]["per_transaction"]


def top_event(report: dict, event: str) -> dict:
    rows = [r for r in report["top_events"] if r["event"] == event]
    assert len(rows) == 1, event
    return rows[0]


def histogram(report: dict, section: str, event: str) -> list[tuple[str, float, str]]:
    return [
        (r["bucket"], r["pct"], r["pct_printed"])
        for r in report["event_histograms"]
        if r["section"] == section and r["event"] == event
    ]


# --------------------------------------------------------------------------- detection


@pytest.mark.parametrize(
    ("path", "fmt", "kind"),
    [
        (F_TXT_INST, "text", "instance"),
        (F_HTML_INST, "html", "instance"),
        (F_TXT_RAC, "text", "rac_global"),
        (F_HTML_RAC, "html", "rac_global"),
        (F_122, "html", "instance"),
        (F_18C, "html", "instance"),
        (F_19C_PREAMBLE, "html", "instance"),
    ],
)
def test_detects_format_and_kind(path, fmt, kind):
    text = read_awr_file(path)
    assert detect_awr_format(text) == (fmt, kind)
    assert parsed(path)["format"] == fmt
    assert parsed(path)["kind"] == kind


def test_preamble_file_really_has_sqlplus_text_and_crlf():
    text = read_awr_file(F_19C_PREAMBLE)
    assert text.startswith("Specify the Report Name\r\n")
    assert text.index("<html") > 0


# --------------------------------------------------------------------------- 19c RAC instance, text


def test_text_instance_header():
    assert parsed(F_TXT_INST)["header"] == {
        "db_name": "P30SDB",
        "db_id": 1451622190,
        "version": "19.0.0.0.0",
        "instances": [{"instance": "p30sdb2", "inst_num": 2}],
        "instance_count": 2,
        "rac": True,
        "cdb": False,
        "begin_snap": 47,
        "end_snap": 48,
        "begin_time": "17-Feb-20 09:26:07",
        "end_time": "17-Feb-20 09:32:10",
        "elapsed_min": 6.05,
        "db_time_min": 477.46,
    }


def test_text_instance_load_profile():
    report = parsed(F_TXT_INST)
    assert len(report["load_profile"]) == 25
    assert load_row(report, "DB Time(s)") == (78.9, 0.1)
    assert load_row(report, "DB CPU(s)") == (7.6, 0.0)
    assert load_row(report, "Background CPU(s)") == (1.6, 0.0)
    assert load_row(report, "Redo size (bytes)") == (2944975.9, 2821.2)  # 2,944,975.9 / 2,821.2
    assert load_row(report, "Physical read (blocks)") == (29798.7, 28.6)
    assert load_row(report, "Read IO requests") == (29792.8, 28.5)
    assert load_row(report, "Write IO requests") == (3118.2, 3.0)
    assert load_row(report, "Read IO (MB)") == (232.8, 0.2)
    assert load_row(report, "Write IO (MB)") == (25.8, 0.0)
    assert load_row(report, "Session Logical Read IM") == (0.0, 0.0)
    assert load_row(report, "Transactions") == (1043.9, None)  # per transaction is blank


def test_text_instance_top_events_units():
    report = parsed(F_TXT_INST)
    assert [r["event"] for r in report["top_events"]][:3] == [
        "gc cr grant busy",
        "db file sequential read",
        "DB CPU",
    ]
    assert top_event(report, "gc cr grant busy") == {
        "event": "gc cr grant busy",
        "waits": 1174558,  # 1,174,558
        "waits_printed": "1,174,558",
        "total_time_s": 12200.0,  # 12.2K
        "total_time_printed": "12.2K",
        "avg_wait_us": 10370.0,  # 10.37ms
        "avg_wait_printed": "10.37ms",
        "pct_db_time": 42.5,
        "wait_class": "Cluster",
    }
    seq = top_event(report, "db file sequential read")
    assert (seq["waits"], seq["total_time_s"], seq["avg_wait_us"]) == (10924627, 3825.7, 350.19)  # 350.19us
    assert top_event(report, "write complete waits")["avg_wait_us"] == 2222720.0  # 2222.72ms
    assert top_event(report, "write complete waits")["wait_class"] == "Configur"  # truncated in text
    cpu = top_event(report, "DB CPU")
    assert (cpu["waits"], cpu["total_time_s"], cpu["avg_wait_us"], cpu["wait_class"]) == (None, 2747.9, None, None)


def test_text_instance_key_events():
    # Foreground: 350.19us, 415.75us, 46.37ms; background: 18.79ms, 11.52ms. 'direct path
    # read' is only in the background section of this report, so it is not a key event here.
    assert parsed(F_TXT_INST)["key_events"] == {
        "db file sequential read": 350.19,
        "db file scattered read": 415.75,
        "log file sync": 46370.0,
        "log file parallel write": 18790.0,
        "db file parallel write": 11520.0,
    }


def test_text_instance_histograms():
    report = parsed(F_TXT_INST)
    # "db file sequential read    10.6M                           1.3  35.4  55.5   7.8"
    rows = histogram(report, "Wait Event Histogram", "db file sequential read")
    assert rows == [
        ("<8us", 0.0, ""),
        ("<16us", 0.0, ""),
        ("<32us", 0.0, ""),
        ("<64us", 0.0, ""),
        ("<128u", 1.3, "1.3"),
        ("<256u", 35.4, "35.4"),
        ("<512u", 55.5, "55.5"),
        (">=512", 7.8, "7.8"),
    ]
    waits = {r["waits"] for r in report["event_histograms"] if r["event"] == "db file sequential read"
             and r["section"] == "Wait Event Histogram (up to 32 ms)"}
    assert waits == {824200}  # 824.2K
    # "log file parallel write    11.9K                    22.5  41.6  26.5   4.4   5.0"
    lfpw = histogram(report, "Wait Event Histogram (up to 32 ms)", "log file parallel write")
    assert [(b, p) for b, p, _ in lfpw] == [
        ("<512", 0.0), ("<1ms", 0.0), ("<2ms", 0.0), ("<4ms", 22.5),
        ("<8ms", 41.6), ("<16ms", 26.5), ("<32ms", 4.4), (">=32m", 5.0),
    ]


def test_text_instance_host_cpu_and_iostat():
    report = parsed(F_TXT_INST)
    assert report["host_cpu"] == {
        "cpus": 64,
        "load_begin": 22.72,
        "load_end": 7.24,
        "user_pct": 6.0,
        "system_pct": 7.9,
        "wio_pct": 12.8,
        "idle_pct": 83.0,
    }
    functions = {r["function"]: r for r in report["iostat_by_function"]}
    assert list(functions) == ["Buffer Cache Re", "DBWR", "LGWR", "Others", "Direct Writes", "Direct Reads", "TOTAL"]
    lgwr = functions["LGWR"]
    assert lgwr["write_data_printed"] == "1005M"
    assert lgwr["write_data_mb"] == 1005.0
    assert lgwr["write_reqs_per_s"] == 55.2
    assert lgwr["write_mb_per_s"] == 2.768  # 2.768M
    assert lgwr["waits_count"] == 12100  # 12.1K
    assert lgwr["avg_time_us"] == 18560.0  # 18.56ms
    bc = functions["Buffer Cache Re"]
    assert bc["read_data_mb"] == 79667.2  # 77.8G (x1024)
    assert bc["read_reqs_per_s"] == 28000.0  # 2.8E+04
    assert bc["read_data_per_s_printed"] == "219.311"  # suffix cut off in text: no MB value
    assert bc["read_mb_per_s"] is None
    assert report["tablespace_io"] == []  # "No data exists for this section of the report."
    assert report["file_io"] == []


# --------------------------------------------------------------------------- same report, text vs HTML


def test_text_and_html_renderings_agree():
    txt, html = parsed(F_TXT_INST), parsed(F_HTML_INST)
    assert txt["header"] == html["header"]
    # Same numbers; the renderings name one row differently ("RAC GC blocks received" in
    # text, "Global Cache blocks received" in HTML), so compare the values by position.
    assert [(r["per_second"], r["per_transaction"]) for r in txt["load_profile"]] == [
        (r["per_second"], r["per_transaction"]) for r in html["load_profile"]]
    assert load_row(txt, "RAC GC blocks received") == load_row(html, "Global Cache blocks received") == (12.3, 0.0)
    assert txt["key_events"] == html["key_events"]
    assert txt["host_cpu"] == html["host_cpu"]
    for a, b in zip(txt["top_events"], html["top_events"], strict=True):
        # Text truncates names and classes to the column width ("Configur").
        assert b["event"].startswith(a["event"])
        assert (a["waits"], a["total_time_s"], a["avg_wait_us"], a["pct_db_time"]) == (
            b["waits"], b["total_time_s"], b["avg_wait_us"], b["pct_db_time"])

    def hist(report):
        return [(r["section"], r["event"], r["waits"], r["pct"]) for r in report["event_histograms"]]

    assert hist(txt) == hist(html)
    for a, b in zip(txt["iostat_by_function"], html["iostat_by_function"], strict=True):
        assert b["function"].startswith(a["function"])
        assert (a["read_data_mb"], a["write_data_mb"], a["waits_count"], a["avg_time_us"]) == (
            b["read_data_mb"], b["write_data_mb"], b["waits_count"], b["avg_time_us"])


def test_html_instance_prints_more_precision_than_text():
    functions = {r["function"]: r for r in parsed(F_HTML_INST)["iostat_by_function"]}
    assert functions["Buffer Cache Reads"]["read_reqs_per_s"] == 28068.79  # text: 2.8E+04
    assert functions["Buffer Cache Reads"]["read_mb_per_s"] == 219.311  # 219.311M
    assert top_event(parsed(F_HTML_INST), "write complete waits")["wait_class"] == "Configuration"


# --------------------------------------------------------------------------- RAC global


def test_rac_global_header_text_and_html():
    expected_instances = [
        {"inst_num": 1, "instance": "p30sdb1", "elapsed_min": 6.05, "db_time_min": 606.42},
        {"inst_num": 2, "instance": "p30sdb2", "elapsed_min": 6.05, "db_time_min": 477.46},
    ]
    for path, hosts in ((F_TXT_RAC, ["mcracpoc1.", "mcracpoc2."]),  # truncated in text
                        (F_HTML_RAC, ["mcracpoc1.example.com", "mcracpoc2.example.com"])):
        header = parsed(path)["header"]
        assert [{k: v for k, v in i.items() if k != "host"} for i in header["instances"]] == expected_instances
        assert [i["host"] for i in header["instances"]] == hosts
        assert {k: v for k, v in header.items() if k != "instances"} == {
            "db_name": "P30SDB",
            "db_id": 1451622190,
            "version": "19.0.0.0.0",
            "instance_count": 2,
            "rac": True,
            "cdb": False,
            "begin_snap": 47,
            "end_snap": 48,
            "begin_time": "17-Feb-20 09:26",
            "end_time": "17-Feb-20 09:32",
            "elapsed_min": 6.05,
            "db_time_min": 1083.88,  # 1,083.88
        }


def test_rac_global_key_events_are_cluster_wide():
    # "User I/O   db file sequential read   22,237,980  0.0  11,268.44 506.72us ..." (Avg Wait
    # over both instances; instance 2 alone printed 350.19us).
    for path in (F_TXT_RAC, F_HTML_RAC):
        assert parsed(path)["key_events"] == {
            "db file sequential read": 506.72,
            "db file scattered read": 415.75,
            "log file sync": 71850.0,  # 71.85ms
            "log file parallel write": 22520.0,  # 22.52ms (background)
            "db file parallel write": 11070.0,  # 11.07ms (background)
        }


def test_rac_global_histogram_with_counts_in_parentheses():
    txt = histogram(parsed(F_TXT_RAC), "Wait Event Histogram (Global)", "db file sequential read")
    html = histogram(parsed(F_HTML_RAC), "Wait Event Histogram (Global)", "db file sequential read")
    assert [(b, p) for b, p, _ in txt] == [(b, p) for b, p, _ in html]
    nonzero = [(b, p, s) for b, p, s in html if s]
    assert nonzero == [
        ("<128us", 0.8, "0.8"),
        ("<256us", 24.1, "24.1"),
        ("<512us", 56.8, "56.8"),
        ("<1ms", 11.8, "11.8"),
        ("<2ms", 3.6, "3.6"),
        ("<4ms", 1.8, "1.8"),
        ("<8ms", 0.6, "0.6"),
        ("<16ms", 0.4, "0.4"),
        ("<32ms", 0.0, "0.0(2066)"),
        ("<64ms", 0.0, "0.0(1009)"),
        ("<128ms", 0.0, "0.0(214)"),
        ("<256ms", 0.0, "0.0(273)"),
    ]
    assert ("<32ms", 0.0, "0.0(2066") in txt  # the text column cuts the ")"


def test_rac_global_per_instance_cpu_and_system_statistics():
    html = parsed(F_HTML_RAC)
    assert html["host_cpu_by_instance"][1] == {
        "inst_num": 2, "cpus": 64, "load_begin": 22.72, "load_end": 7.24, "busy_pct": 16.98,
        "user_pct": 6.01, "system_pct": 7.88, "wio_pct": 12.77, "idle_pct": 83.02,
    }
    txt = parsed(F_TXT_RAC)
    assert txt["host_cpu_by_instance"][0] == {  # text prints one decimal
        "inst_num": 1, "cpus": 64, "load_begin": 20.4, "load_end": 10.7, "busy_pct": 17.3,
        "user_pct": 5.9, "system_pct": 8.0, "wio_pct": 17.3, "idle_pct": 82.7,
    }
    assert [r["Physical Reads/s"] for r in html["system_statistics_per_second"]] == [30864.91, 29798.68]
    assert [r["Physical Reads/s"] for r in txt["system_statistics_per_second"]] == [30864.9, 29798.7]
    assert [r["Txns/s"] for r in txt["system_statistics_per_second"]] == [1051.9, 1043.9]
    for report in (txt, html):
        assert report["load_profile"] is None
        assert report["top_events"] is None


# --------------------------------------------------------------------------- other HTML versions


def test_122_single_instance_html():
    report = parsed(F_122)
    header = report["header"]
    assert (header["db_name"], header["db_id"], header["version"]) == ("AIMSDB", 4253805188, "12.2.0.1.0")
    assert (header["rac"], header["cdb"], header["instance_count"]) == (False, False, None)
    assert (header["begin_snap"], header["end_snap"]) == (38483, 38484)
    assert (header["begin_time"], header["end_time"]) == ("27-Sep-20 11:00:13", "27-Sep-20 12:00:28")
    assert header["elapsed_min"] == 60.25
    assert load_row(report, "Redo size (bytes)") == (13437.2, 19617.7)
    assert load_row(report, "Read IO requests") == (0.5, 0.7)
    assert load_row(report, "Write IO requests") == (1.6, 2.4)
    ack = top_event(report, "acknowledge over PGA limit")
    assert (ack["waits"], ack["total_time_s"], ack["avg_wait_us"], ack["wait_class"]) == (3583, 35.0, 9770.0, "Scheduler")  # 9.77ms
    assert top_event(report, "PGA memory operation")["avg_wait_us"] == 14.94  # 14.94us
    assert report["key_events"] == {
        "db file sequential read": 1700.0,  # 1.70ms
        "db file scattered read": 13960.0,  # 13.96ms
        "log file sync": 1130.0,  # 1.13ms
        "log file parallel write": 990.0,  # .99ms
    }
    assert histogram(report, "Wait Event Histogram", "db file sequential read")[2] == ("<32us", 52.3, "52.3")
    assert report["host_cpu"] == {
        "cpus": 8, "load_begin": 0.24, "load_end": 0.2, "user_pct": 2.6,
        "system_pct": 0.9, "wio_pct": 0.2, "idle_pct": 96.5,
    }


def test_18c_rac_instance_htm():
    report = parsed(F_18C)
    header = report["header"]
    assert (header["db_name"], header["version"], header["rac"], header["instance_count"]) == ("PRDG", "18.0.0.0.0", True, 2)
    assert header["instances"] == [{"instance": "PRDG1", "inst_num": 1}]
    assert (header["elapsed_min"], header["db_time_min"]) == (499.99, 128.14)
    assert load_row(report, "Read IO requests") == (42.6, 41.2)
    assert load_row(report, "Read IO (MB)") == (5.4, 5.2)
    assert load_row(report, "Global Cache blocks received") == (8.1, 7.8)
    cell = top_event(report, "cell single block physical read")
    assert (cell["waits"], cell["total_time_s"], cell["avg_wait_us"]) == (1075359, 452.2, 420.51)  # 420.51us
    # Exadata: single-block reads wait on "cell single block physical read 1,075,359 ... 420.51us",
    # multiblock reads on "cell multiblock physical read 6,266 ... 1.02ms" (foreground wait events).
    assert report["key_events"] == {
        "db file sequential read": 420.51,
        "db file scattered read": 1020.0,
        "direct path read": 702.96,  # 702.96us
        "log file sync": 2450.0,  # 2.45ms
        "log file parallel write": 288.84,  # 288.84us
        "db file parallel write": 201.62,
    }
    lfpw = histogram(report, "Wait Event Histogram", "log file parallel write")
    assert ("<256us", 85.4, "85.4") in lfpw
    assert report["host_cpu"]["user_pct"] == 35.0
    assert report["host_cpu"]["idle_pct"] == 54.9
    smart = [r for r in report["iostat_by_function"] if r["function"] == "Smart Scan"][0]
    assert (smart["read_data_mb"], smart["read_reqs_per_s"]) == (138240.0, 4.91)  # 135G


def test_19c_html_with_sqlplus_preamble():
    report = parsed(F_19C_PREAMBLE)
    header = report["header"]
    assert (header["db_name"], header["db_id"], header["version"]) == ("DVK", 2742271753, "19.0.0.0.0")
    assert (header["begin_snap"], header["end_snap"], header["elapsed_min"], header["db_time_min"]) == (5, 7, 117.66, 0.24)
    assert load_row(report, "Background CPU(s)") == (0.0, 3.4)
    assert load_row(report, "Redo size (bytes)") == (1454.9, 427966.0)
    assert load_row(report, "Read IO requests") == (0.4, 107.2)
    seq = top_event(report, "db file sequential read")
    assert (seq["waits"], seq["total_time_s"], seq["avg_wait_us"], seq["pct_db_time"]) == (780, 1.1, 1430.0, 7.8)  # 1.43ms
    assert report["key_events"] == {
        "db file sequential read": 1430.0,  # 1.43ms
        "db file scattered read": 2260.0,  # 2.26ms
        "direct path read": 842.0,  # 842.00us
        "log file parallel write": 32350.0,  # 32.35ms
    }
    rows = histogram(report, "Wait Event Histogram (up to 32 ms)", "db file sequential read")
    assert rows[:2] == [("<512us", 61.6, "61.6"), ("<1ms", 1.5, "1.5")]
    assert report["host_cpu"] == {
        "cpus": 3, "load_begin": 1.74, "load_end": 0.0, "user_pct": 2.5,
        "system_pct": 1.1, "wio_pct": 0.1, "idle_pct": 95.8,
    }


def test_key_event_names_are_the_documented_ones():
    assert KEY_EVENTS == (
        "db file sequential read", "db file scattered read", "direct path read",
        "log file sync", "log file parallel write", "db file parallel write",
    )


# --------------------------------------------------------------------------- cell values


@pytest.mark.parametrize(
    ("cell", "expected"),
    [("350.19us", 350.19), ("10.37ms", 10370.0), ("52.86 s", 52860000.0), (".97ms", 970.0),
     (".00ns", 0.0), ("3638.43m", 3638430.0), ("", None)],
)
def test_parse_latency_us(cell, expected):
    assert parse_latency_us(cell) == expected


def test_parse_latency_bare_number_needs_a_column_unit():
    assert parse_latency_us("7.25", default_unit="ms") == 7250.0
    with pytest.raises(ParseError, match="latency with a unit"):
        parse_latency_us("7.25")


@pytest.mark.parametrize(
    ("cell", "expected"),
    [("1,174,558", 1174558.0), ("12.2K", 12200.0), ("10.2M", 10200000.0), ("2.8E+04", 28000.0), ("", None)],
)
def test_parse_count(cell, expected):
    assert parse_count(cell) == expected


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("text", ["", "   \n", "hello world\n", '{"jobs": []}'])
def test_garbage_is_refused(text):
    with pytest.raises(ParseError, match="AWR report|not an AWR report"):
        parse_awr(text)


def test_html_that_is_not_awr_is_refused():
    with pytest.raises(ParseError, match="AWR title"):
        parse_awr("<html><head><title>Something else</title></head><body></body></html>")


@pytest.mark.parametrize("path", [F_TXT_INST, F_HTML_INST, F_TXT_RAC, F_HTML_RAC])
def test_truncated_report_is_refused(path):
    text = read_awr_file(path)
    with pytest.raises(ParseError, match="truncated"):
        parse_awr(text[: len(text) // 2])


def test_truncated_text_names_the_missing_section():
    """A report cut before a section (read with allow_truncated) gives the sections before the
    cut and names the ones it does not have, instead of failing whole."""
    text = read_awr_file(F_TXT_INST)
    cut = parse_awr(text[: text.index("Top 10 Foreground Events by Total Wait Time")], allow_truncated=True)
    assert "Top 10 Foreground Events by Total Wait Time" in cut["sections"]["absent"]
    assert cut["top_events"] is None and cut["key_events"] == {}
    assert load_row(cut, "Read IO requests") == load_row(parsed(F_TXT_INST), "Read IO requests")
    cut = parse_awr(text[: text.index("Background Wait Events")], allow_truncated=True)
    assert "Background Wait Events" in cut["sections"]["absent"]
    assert cut["key_events"] == {"db file sequential read": 350.19, "db file scattered read": 415.75,
                                 "log file sync": 46370.0}  # foreground rows only: 350.19us, 415.75us, 46.37ms
    cut = parse_awr(text[: text.index("Load Profile")], allow_truncated=True)
    assert cut["sections"]["read"] == ["header"]
    assert "Load Profile" in cut["sections"]["absent"]


def test_truncated_html_names_the_missing_section():
    text = read_awr_file(F_HTML_INST)
    cut = parse_awr(text[: text.index("Foreground Wait Events</h3>")], allow_truncated=True)
    # its Top 10 is printed, so the table that details it was lost, not absent
    assert "Foreground Wait Events" in [d["section"] for d in cut["sections"]["not_understood"]]
    assert cut["header"] == parsed(F_HTML_INST)["header"]


def test_header_only_is_refused():
    text = read_awr_file(F_TXT_INST)
    with pytest.raises(ParseError):
        parse_awr(text[:600], allow_truncated=True)


def test_bad_gzip_is_refused(tmp_path):
    bad = tmp_path / "awr.html.gz"
    bad.write_bytes(b"not gzip at all")
    with pytest.raises(ParseError, match="gzip"):
        read_awr_file(bad)


# --------------------------------------------------------------------------- additions: global system statistics


def stat_row(report: dict, statistic: str) -> tuple:
    rows = [r for r in report["system_statistics_global"] if r["statistic"] == statistic]
    assert len(rows) == 1, statistic
    return rows[0]["total"], rows[0]["per_second"], rows[0]["per_transaction"]


def test_rac_global_system_statistics_text():
    # Six pages titled "System Statistics (Global)", merged.
    txt = parsed(F_TXT_RAC)
    assert len(txt["system_statistics_global"]) == 311
    assert txt["system_statistics_global"][0] == {
        "statistic": "ASSM cbk:blocks examined", "total": 1631.0, "per_second": 4.5, "per_transaction": 0.0}
    assert stat_row(txt, "physical read IO requests") == (22020196.0, 60656.2, 28.9)
    assert stat_row(txt, "physical write IO requests") == (2313742.0, 6373.4, 3.0)
    assert stat_row(txt, "physical read bytes") == (180411269120.0, 496955659.8, 237122.7)
    assert stat_row(txt, "user commits") == (760835.0, 2095.8, 1.0)
    # "file io wait time  7,607,018,337,442 2.09541159E+10  9,998,249.7"
    assert stat_row(txt, "file io wait time") == (7607018337442.0, 2.09541159e10, 9998249.7)
    assert txt["system_statistics_global"][-1]["statistic"] == "write clones created in foreground"
    assert stat_row(txt, "write clones created in foreground") == (75794.0, 208.8, 0.1)
    assert stat_row(txt, "redo synch time overhead count ( 2ms)") == (131.0, 0.4, 0.0)  # "(  2ms)"


def test_rac_global_system_statistics_text_and_html_agree():
    txt, html = parsed(F_TXT_RAC)["system_statistics_global"], parsed(F_HTML_RAC)["system_statistics_global"]
    assert [r["statistic"] for r in txt] == [r["statistic"] for r in html]
    assert stat_row(parsed(F_HTML_RAC), "physical read IO requests") == (22020196.0, 60656.19, 28.94)
    assert stat_row(parsed(F_HTML_RAC), "file io wait time") == (7607018337442.0, 20954115895.07, 9998249.74)
    for a, b in zip(txt, html, strict=True):
        assert a["total"] == b["total"], a["statistic"]
        for key in ("per_second", "per_transaction"):
            # The HTML prints 2 decimals, the text 1 (or 9 significant digits as 2.09541159E+10).
            assert abs(a[key] - b[key]) <= max(0.05, 5e-9 * abs(b[key])) + 1e-9, (a["statistic"], key)


def test_rac_global_time_model_by_instance():
    txt, html = parsed(F_TXT_RAC)["time_model_by_instance"], parsed(F_HTML_RAC)["time_model_by_instance"]
    assert [r["inst_num"] for r in txt] == [r["inst_num"] for r in html] == [1, 2]  # Sum/Avg/Std left out
    assert (txt[0]["DB time (s)"], txt[0]["DB CPU (s)"], txt[0]["bg CPU (s)"]) == (36385.3, 2949.6, 728.9)
    assert (html[1]["DB time (s)"], html[1]["DB CPU (s)"], html[1]["bg CPU (s)"]) == (28647.57, 2747.87, 591.52)


def test_key_event_waits_come_from_the_key_event_rows():
    # Foreground "db file sequential read 10,924,627 ... 350.19us"; background "log file
    # parallel write 12,849 ... 18.79ms" etc.
    for path in (F_TXT_INST, F_HTML_INST):
        assert parsed(path)["key_event_waits"] == {
            "db file sequential read": 10924627, "db file scattered read": 128, "log file sync": 39,
            "log file parallel write": 12849, "db file parallel write": 12462,
        }
    for path in (F_TXT_RAC, F_HTML_RAC):
        assert parsed(path)["key_event_waits"] == {
            "db file sequential read": 22237980, "db file scattered read": 128, "log file sync": 146,
            "log file parallel write": 22311, "db file parallel write": 21706,
        }
    assert parsed(F_18C)["key_event_waits"]["direct path read"] == 1330  # "direct path read 1,330 ... 702.96us"


def test_instance_reports_have_no_global_sections():
    for key in ("system_statistics_global", "time_model_by_instance"):
        assert key not in parsed(F_TXT_INST)


_REPORTS = {path.name: path.read_text(errors="replace")
            for path in (SLOB_RUN / "awr.txt", SLOB_RUN / "awr_rac.txt", F_122, F_18C, F_19C_PREAMBLE)}


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_cut_awr_report_is_refused_not_read_short(data):
    """A report cut anywhere before its last line (a copy that stopped, a full disk) is a
    ParseError naming the cut, never numbers read from a row cut in the middle."""
    name = data.draw(st.sampled_from(sorted(_REPORTS)), label="report")
    text = _REPORTS[name]
    end = text.rindex("End of Report")
    cut = data.draw(st.integers(min_value=0, max_value=end), label="cut")
    with pytest.raises(ParseError):
        parse_awr(text[:cut])


EVERY_REPORT = sorted(p for p in (DATA / "awr").iterdir() if p.name != "PROVENANCE.md")
"""Every AWR and Statspack report of tests/data/awr (the SLOB run's are damaged in test_slob_damage)."""


def _allow_truncated(path) -> bool:
    return "excerpt" in path.name  # a report's first pages, published without its end


def _metrics(report: dict) -> dict | None:
    """The point's figures of a report (flashpoc.oracle.awr_metrics.point_metrics), None where it gives none."""
    try:
        return point_metrics(report)
    except ParseError:
        return None


def _loss_named(report: dict, _file: str) -> bool:
    """A report names its losses in its sections: not understood, or (read with allow_truncated) cut."""
    return bool(report["sections"]["not_understood"]) or "truncated" in report["sections"]


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_a_damaged_awr_report_loses_numbers_never_changes_one(data):
    """Every report of tests/data/awr damaged: a digit, separator or point overwritten (a minus sign,
    a letter, markup: conftest.corrupt), or one damage of tests/damage.py (cut at any offset or at a
    line's end, emptied, a line removed, repeated or swapped, bytes that cannot form a number). The
    report is refused in one line, or no number of it changes (a row's numbers never move to
    another row or column; a row may be missing: AWR lists no statistic of 0, so a lost row is no
    evidence) and the point's figures from it are the clean ones, or lost with the loss named in
    its sections (not understood, or cut). Found: a row that lost a <td> moved its numbers one
    column left; two lines of an HTML File IO row swapped moved its reads under another column."""
    from conftest import corrupt

    path = data.draw(st.sampled_from(EVERY_REPORT), label="report")
    text = read_awr_file(path)
    if data.draw(st.booleans(), label="in a number"):
        damaged = corrupt(data, text)
    else:
        damaged, _ = damage_text(data, text)
    clean = parse_awr(text, allow_truncated=True) if _allow_truncated(path) else parsed(path)
    report = assert_loses_never_changes(lambda: parse_awr(damaged, allow_truncated=_allow_truncated(path)), clean,
                                        path.name, loss_named=lambda *_: True)
    if report is not None and _metrics(clean) is not None:
        assert_loses_never_changes(lambda: _metrics(report) or _refused(), _metrics(clean), path.name,
                                   loss_named=lambda _, f: _loss_named(report, f))


def _refused():
    raise ParseError("the report gives no point's figures")


def test_a_damaged_buffer_hit_is_lost_not_read_short():
    """Found by the corruption test: "45.92" overwritten to "4-.92" was read as a buffer hit of 4.0."""
    text = _REPORTS["awr.txt"]
    at = text.index("Buffer  Hit   %:   45.92") + len("Buffer  Hit   %:   4")
    assert parse_awr(text)["instance_efficiency"] == {"buffer_hit_pct": 45.92}
    assert parse_awr(text[:at] + "-" + text[at + 1:])["instance_efficiency"] is None


def test_a_damaged_histogram_share_loses_the_section_not_the_report():
    """Found by corrupting reports: "38.4" (12.1.0.2's Wait Event Histogram, log file sync <2ms) with
    its 8 overwritten by a comma, "3,.4", raised ValueError out of parse_awr; it is no number (never
    3.4): the histogram is not understood, the rest of the report is read."""
    text = gzip.decompress(F_121.read_bytes()).decode("utf-8")
    cell = "headers=\"%ofWaits &lt;2ms\" class='awrc'>38.4</td>"
    assert text.count(cell) == 1
    report = parse_awr(text.replace(cell, cell.replace("38.4", "3,.4")))
    (refused,) = report["sections"]["not_understood"]
    assert refused["section"] == "Wait Event Histogram" and "bad percentage '3,.4'" in refused["reason"]
    assert report["load_profile"] == parsed(F_121)["load_profile"]
    assert parse_count("3,216") == 3216 and parse_count("1,174,558") == 1174558
    for damaged in ("3,.16", "31,6", "3,2166"):  # a comma out of its place: not a count
        with pytest.raises(ParseError, match="expected a number"):
            parse_count(damaged)

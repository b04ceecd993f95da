"""Tests for flashpoc.oracle.awr_metrics on real AWR reports (tests/data/slob, tests/data/awr).

Every expected number is printed in the fixture named next to it (the printed text is in the
comment when the unit changes); sums and quotients are written out as the printed operands.
"""

from __future__ import annotations

import pytest

from awr_reports import parsed
from conftest import DATA
from flashpoc.oracle.awr_metrics import (
    HISTOGRAM_LIMITS,
    bucket_bound,
    histogram_buckets,
    histogram_shares,
    latency_event,
    point_metrics,
)
from flashpoc.core.errors import ParseError
from flashpoc.oracle.metrics import MIB

SLOB_RUN = DATA / "slob" / "slob2.5_19c_rac2node_s256_t1_wu4_update10"
F_TXT_INST = SLOB_RUN / "awr.txt"  # 19c RAC instance 2 (p30sdb2), snaps 47-48, text
F_HTML_INST = SLOB_RUN / "awr.html.gz"  # the same report, HTML
F_TXT_RAC = SLOB_RUN / "awr_rac.txt"  # 19c RAC global, snaps 47-48, text
F_HTML_RAC = SLOB_RUN / "awr_rac.html.gz"  # the same report, HTML
F_SCAN = DATA / "awr" / "12.2.0.1_slob_update0_single_awr.html"  # 12.2 single instance SLOB scan run

# --------------------------------------------------------------------------- 19c RAC instance 2


def test_instance_metrics_19c_text():
    m = point_metrics(parsed(F_TXT_INST))
    expected = {
        "scope": "instance",
        "db_name": "P30SDB",
        "version": "19.0.0.0.0",
        "begin_snap": 47,
        "end_snap": 48,
        "elapsed_s": 6.05 * 60,  # "Elapsed: 6.05 (mins)"
        "rac": True,
        "instances": 1,
        # Load Profile, per Second
        "read_iops": 29792.8,  # "Read IO requests: 29,792.8"
        "write_iops": 3118.2,  # "Write IO requests: 3,118.2"
        "read_mibps": 232.8,  # "Read IO (MB): 232.8"
        "write_mibps": 25.8,  # "Write IO (MB): 25.8"
        "transactions_per_s": 1043.9,  # "Transactions: 1,043.9"
        "db_time_s_per_s": 78.9,  # "DB Time(s): 78.9"
        "db_cpu_s_per_s": 7.6,  # "DB CPU(s): 7.6"
        "background_cpu_s_per_s": 1.6,  # "Background CPU(s): 1.6"
        # Foreground / Background Wait Events
        "db_file_sequential_read_avg_wait_us": 350.19,  # 350.19us
        "log_file_parallel_write_avg_wait_us": 18790.0,  # 18.79ms
        "db_file_parallel_write_avg_wait_us": 11520.0,  # 11.52ms
        "log_file_sync_avg_wait_us": 46370.0,  # 46.37ms
        "db_file_scattered_read_avg_wait_us": 415.75,  # 415.75us
        "direct_path_read_avg_wait_us": None,  # background only (149.93us), not a foreground wait
        "latency_event": "db file sequential read",
        # Host CPU: "64 32 2 22.72 7.24 6.0 7.9 12.8 83.0"
        "host_cpu_user_pct": 6.0,
        "host_cpu_sys_pct": 7.9,
        "host_cpu_iowait_pct": 12.8,
        "host_cpu_idle_pct": 83.0,
        "host_cpu_busy_pct": 100 - 83.0,
        "cpus": 64,
    }
    assert {k: m[k] for k in expected} == pytest.approx(expected)
    assert m["iops"] == pytest.approx(29792.8 + 3118.2)
    assert m["bw_mibps"] == pytest.approx(232.8 + 25.8)
    assert m["redo_mibps"] == pytest.approx(2944975.9 / MIB)  # "Redo size (bytes): 2,944,975.9"
    assert m["lat_mean_ms"] == pytest.approx(0.35019)  # 350.19us


def test_instance_histogram_shares_19c():
    # "Wait Event Histogram (up to 32 ms)": "db file sequential read 824.2K 92.2 5.6 1.2 .7 .1 .0 .0 .0"
    # (<512us <1ms <2ms <4ms ...; % of all the event's waits). tests/data/oracle/README.md: under
    # 1 ms 92.2 + 5.6 = 97.8 %, under 2 ms 99.0 %.
    m = point_metrics(parsed(F_TXT_INST))
    assert m["db_file_sequential_read_under_512us_pct"] == 92.2
    assert m["db_file_sequential_read_under_1ms_pct"] == round(92.2 + 5.6, 1)
    assert m["db_file_sequential_read_under_2ms_pct"] == round(92.2 + 5.6 + 1.2, 1)
    assert m["db_file_sequential_read_under_4ms_pct"] == round(92.2 + 5.6 + 1.2 + 0.7, 1)
    # "direct path read 14   14.3   28.6  35.7  21.4" with a blank ">=512" (truly 0): all under 512 us
    # in the histogram, which counts every session...
    shares = histogram_shares(parsed(F_TXT_INST)["event_histograms"], "direct path read")
    assert shares == {suffix: 100.0 for suffix in HISTOGRAM_LIMITS}
    # ...but the SLOB sessions read none: "Foreground Wait Events" has no direct path read, its 14 waits are
    # in "Background Wait Events" ("direct path read  14  0  0  149.93us"): no scan share, not 100 %
    assert "direct path read" not in parsed(F_TXT_INST)["key_events"]
    for suffix in HISTOGRAM_LIMITS:
        assert m[f"direct_path_read_under_{suffix}_pct"] is None


def test_direct_path_read_shares_kept_when_foreground_sessions_waited():
    # 19c single instance report: Foreground Wait Events lists "direct path read" with 14 waits, so its
    # shares stand ("(up to 32 ms)": <512us 71.4, <4ms 28.6)
    report = parsed(DATA / "awr" / "19c_single_awrrpt_with_sqlplus_prompt_preamble.html")
    assert report["key_event_waits"]["direct path read"] == 14
    m = point_metrics(report)
    assert [m[f"direct_path_read_under_{s}_pct"] for s in HISTOGRAM_LIMITS] == [71.4, 71.4, 71.4, 100.0]


def test_buffer_hit_and_db_cpu_share_of_db_time():
    # awr.txt: "Buffer  Hit   %:   45.92"; Top 10 Foreground Events "DB CPU  2747.9  9.6" (% DB time)
    m = point_metrics(parsed(F_TXT_INST))
    assert (m["buffer_hit_pct"], m["db_cpu_pct_of_db_time"]) == (45.92, 9.6)
    assert point_metrics(parsed(F_HTML_INST))["buffer_hit_pct"] == 45.92  # the HTML's next cell
    # 12.2 production report: "DB CPU 296.8 84.0": the database spent its time on CPU, "Buffer Hit %: 99.99"
    prod = point_metrics(parsed(DATA / "awr" / "12.2.0.1_single_prod_awr.html"))
    assert (prod["buffer_hit_pct"], prod["db_cpu_pct_of_db_time"]) == (99.99, 84.0)
    # the cluster: System Statistics (Global) "physical reads cache 22,022,861", "session logical reads
    # 40,065,632"; Time Model DB CPU of both instances over DB time 179.15 s/s
    rac = point_metrics(parsed(F_TXT_RAC))
    assert rac["buffer_hit_pct"] == pytest.approx(100 * (1 - 22022861 / 40065632)) and f"{rac['buffer_hit_pct']:.2f}" == "45.03"
    assert rac["db_cpu_pct_of_db_time"] == pytest.approx(100 * rac["db_cpu_s_per_s"] / rac["db_time_s_per_s"])
    assert f"{rac['db_cpu_pct_of_db_time']:.1f}" == "8.8"


def test_read_histogram_per_bucket():
    # "(up to 32 ms)": "db file sequential read 824.2K 92.2 5.6 1.2 .7 .1 .0 .0 .0" (<512us <1ms ... >=32ms)
    buckets = histogram_buckets(parsed(F_TXT_INST)["event_histograms"], "db file sequential read")
    assert [(b["bucket"], b["share_pct"]) for b in buckets] == [
        ("<512us", 92.2), ("512us-1ms", 5.6), ("1-2ms", 1.2), ("2-4ms", 0.7), ("4-8ms", 0.1), ("8-16ms", 0.0),
        ("16-32ms", 0.0), (">=32ms", 0.0)]
    assert [b["within_pct"] for b in buckets][:3] == [92.2, 97.8, 99.0]
    assert buckets[0]["section"] == "Wait Event Histogram (up to 32 ms)"
    # the global report's <1us ... <512us buckets add up to <512us, <64ms ... >=1s to >=32ms
    cluster = histogram_buckets(parsed(F_TXT_RAC)["event_histograms"], "db file sequential read")
    assert [b["bucket"] for b in cluster] == [b["bucket"] for b in buckets]
    assert [b["share_pct"] for b in cluster][:4] == [81.7, 11.8, 3.6, 1.8]
    assert cluster[0]["section"] == "Wait Event Histogram (Global)"
    assert histogram_buckets(parsed(F_TXT_INST)["event_histograms"], "no such event") == []


def test_histogram_main_section_alone_gives_512us_only():
    # Without the "(up to 32 ms)" rows, <512us is the sum of "<8us" ... "<512u" of "Wait Event
    # Histogram" ("10.6M  1.3 35.4 55.5 7.8"); ">=512" is 7.8 (not 0), so the ms shares are unknown.
    rows = [r for r in parsed(F_TXT_INST)["event_histograms"]
            if r["section"] != "Wait Event Histogram (up to 32 ms)"]
    shares = histogram_shares(rows, "db file sequential read")
    assert shares == {"512us": round(1.3 + 35.4 + 55.5, 1), "1ms": None, "2ms": None, "4ms": None}


def test_text_and_html_instance_reports_give_the_same_metrics():
    assert point_metrics(parsed(F_TXT_INST)) == point_metrics(parsed(F_HTML_INST))


# --------------------------------------------------------------------------- 19c RAC global (cluster)


def test_cluster_metrics_19c_text():
    m = point_metrics(parsed(F_TXT_INST), parsed(F_TXT_RAC))
    expected = {
        "scope": "cluster",
        "db_name": "P30SDB",
        "version": "19.0.0.0.0",
        "begin_snap": 47,
        "end_snap": 48,
        "elapsed_s": 6.05 * 60,  # Report Total elapsed "6.05" (minutes)
        "rac": True,
        "instances": 2,
        # System Statistics (Global), per Second
        "read_iops": 60656.2,  # "physical read IO requests 22,020,196 60,656.2"
        "write_iops": 6373.4,  # "physical write IO requests 2,313,742 6,373.4"
        "read_mibps": 496955659.8 / MIB,  # "physical read bytes ... 496,955,659.8"
        "write_mibps": 54663006.0 / MIB,  # "physical write bytes ... 54,663,006.0"
        "redo_mibps": 5901451.8 / MIB,  # "redo size ... 5,901,451.8"
        "transactions_per_s": 2095.8,  # "user commits 760,835 2,095.8" (no user rollbacks listed)
        "db_time_s_per_s": 1083.88 / 6.05,  # Report Total DB time 1,083.88 min / elapsed 6.05 min
        "db_cpu_s_per_s": (2949.6 + 2747.9) / (6.05 * 60),  # Time Model "DB CPU (s)" of I# 1 and 2
        "background_cpu_s_per_s": (728.9 + 591.5) / (6.05 * 60),  # Time Model "bg CPU (s)"
        # Foreground / Background Wait Events (Global), "Avg Wait"
        "db_file_sequential_read_avg_wait_us": 506.72,  # 506.72us
        "log_file_parallel_write_avg_wait_us": 22520.0,  # 22.52ms
        "db_file_parallel_write_avg_wait_us": 11070.0,  # 11.07ms
        "log_file_sync_avg_wait_us": 71850.0,  # 71.85ms
        "db_file_scattered_read_avg_wait_us": 415.75,  # 415.75us
        "direct_path_read_avg_wait_us": None,
        "latency_event": "db file sequential read",
        # OS Statistics By Instance: I# 1 "64 ... 5.9 8.0 17.3 82.7", I# 2 "64 ... 6.0 7.9 12.8 83.0"
        "host_cpu_user_pct": (5.9 + 6.0) / 2,
        "host_cpu_sys_pct": (8.0 + 7.9) / 2,
        "host_cpu_iowait_pct": (17.3 + 12.8) / 2,
        "host_cpu_idle_pct": (82.7 + 83.0) / 2,
        "host_cpu_busy_pct": 100 - (82.7 + 83.0) / 2,
        "cpus": 64 + 64,
    }
    assert {k: m[k] for k in expected} == pytest.approx(expected)
    assert m["iops"] == pytest.approx(60656.2 + 6373.4)
    assert m["lat_mean_ms"] == pytest.approx(0.50672)  # 506.72us
    # ADDM prints the cluster's average active sessions: "Interconnect Latency 179.15"
    assert round(m["db_time_s_per_s"], 2) == 179.15


def test_cluster_histogram_shares_from_the_global_histogram():
    # "Wait Event Histogram (Global)": "db file sequential read 21.7M ... 0.8 24.1 56.8 11.8 3.6
    # 1.8 0.6 0.4 0.0(2066 ..." in buckets <128us <256us <512us <1ms <2ms <4ms <8ms <16ms <32ms.
    m = point_metrics(parsed(F_TXT_INST), parsed(F_TXT_RAC))
    assert m["db_file_sequential_read_under_512us_pct"] == round(0.8 + 24.1 + 56.8, 1)
    assert m["db_file_sequential_read_under_1ms_pct"] == round(0.8 + 24.1 + 56.8 + 11.8, 1)
    assert m["db_file_sequential_read_under_2ms_pct"] == round(0.8 + 24.1 + 56.8 + 11.8 + 3.6, 1)
    assert m["db_file_sequential_read_under_4ms_pct"] == round(0.8 + 24.1 + 56.8 + 11.8 + 3.6 + 1.8, 1)


def test_cluster_from_the_global_report_alone():
    with_instance = point_metrics(parsed(F_TXT_INST), parsed(F_TXT_RAC))
    assert point_metrics(parsed(F_TXT_RAC)) == with_instance


def test_text_and_html_global_reports_give_the_same_metrics():
    # The HTML prints one more decimal (e.g. physical read IO requests 60,656.19 per second,
    # % Usr 6.01): equal to the text's printed precision.
    txt = point_metrics(parsed(F_TXT_INST), parsed(F_TXT_RAC))
    html = point_metrics(parsed(F_HTML_INST), parsed(F_HTML_RAC))
    assert list(txt) == list(html)
    assert html["read_iops"] == 60656.19
    for key, value in txt.items():
        if isinstance(value, float):
            assert html[key] == pytest.approx(value, abs=0.051), key
        else:
            assert html[key] == value, key


# --------------------------------------------------------------------------- 12.2 scan run


def test_scan_run_uses_direct_path_read():
    m = point_metrics(parsed(F_SCAN))
    expected = {
        "scope": "instance",
        "db_name": "SLOB2",
        "version": "12.2.0.1.0",
        "begin_snap": 400,
        "end_snap": 401,
        "elapsed_s": 21.82 * 60,  # "21.82 (mins)"
        "rac": False,
        "instances": 1,
        "read_iops": 8047.3,  # "Read IO requests: 8,047.3"
        "write_iops": 1.0,  # "Write IO requests: 1.0"
        "read_mibps": 500.6,  # "Read IO (MB): 500.6"
        "db_time_s_per_s": 62.7,
        # Foreground Wait Events: "direct path read 6,904,693 ... 3.82ms", "db file sequential
        # read 109 ... 749.07us": the scan reads carry the point's latency.
        "direct_path_read_avg_wait_us": 3820.0,
        "db_file_sequential_read_avg_wait_us": 749.07,
        "latency_event": "direct path read",
        "lat_mean_ms": 3.82,
        # Host CPU "96 48 2 0.07 24.37 0.2 0.2 18.5 99.6"
        "cpus": 96,
        "host_cpu_user_pct": 0.2,
        "host_cpu_iowait_pct": 18.5,
        "host_cpu_idle_pct": 99.6,
    }
    assert {k: m[k] for k in expected} == pytest.approx(expected)
    assert m["redo_mibps"] == pytest.approx(4567.7 / MIB)  # "Redo size (bytes): 4,567.7"


def test_scan_run_histogram_shares_12c():
    # "(up to 32 ms)": "direct path read 6.1M 11.8 9.4 14.1 17.9 45.1 1.6 .0"; "db file sequential
    # read 70 89.3 8.1 1.4 .9 .2 .2"; the <512us cells equal the sums of "Wait Event Histogram"
    # (".0 .0 .1 .4 2.0 3.4 5.9" -> 11.8; "15.3 74.0" -> 89.3).
    m = point_metrics(parsed(F_SCAN))
    assert [m[f"direct_path_read_under_{s}_pct"] for s in HISTOGRAM_LIMITS] == [
        11.8, round(11.8 + 9.4, 1), round(11.8 + 9.4 + 14.1, 1), round(11.8 + 9.4 + 14.1 + 17.9, 1)]
    assert [m[f"db_file_sequential_read_under_{s}_pct"] for s in HISTOGRAM_LIMITS] == [
        89.3, round(89.3 + 8.1, 1), round(89.3 + 8.1 + 1.4, 1), round(89.3 + 8.1 + 1.4 + 0.9, 1)]
    assert round(0.1 + 0.4 + 2.0 + 3.4 + 5.9, 1) == 11.8 and round(15.3 + 74.0, 1) == 89.3


# --------------------------------------------------------------------------- helpers


def test_latency_event_rule():
    both = {"db file sequential read": 749.07, "direct path read": 3820.0}
    assert latency_event(both, {"db file sequential read": 109, "direct path read": 6904693}) == "direct path read"
    assert latency_event(both, {"db file sequential read": 6904693, "direct path read": 109}) == "db file sequential read"
    assert latency_event(both, None) == "db file sequential read"
    assert latency_event({"direct path read": 3820.0}) == "direct path read"
    assert latency_event({"log file sync": 46370.0}) is None


@pytest.mark.parametrize(
    ("label", "bound"),
    [("<512us", ("<", 512.0)), ("<128u", ("<", 128.0)), ("<512", ("<", 512.0)), (">=512", (">=", 512.0)),
     ("<1ms", ("<", 1024.0)), (">=32m", (">=", 32 * 1024.0)), ("<1/8s", ("<", 1024.0**2 / 8)),
     ("<=1s", ("<=", 1024.0**2)), (" <1us", ("<", 1.0)), ("Waits", None)],
)
def test_bucket_bound(label, bound):
    assert bucket_bound(label) == bound


def test_no_histogram_rows_give_none():
    report = parsed(F_TXT_INST)
    report["event_histograms"] = []
    m = point_metrics(report)
    assert all(m[f"db_file_sequential_read_under_{s}_pct"] is None for s in HISTOGRAM_LIMITS)


# --------------------------------------------------------------------------- errors


def test_instance_report_without_io_requests_is_refused():
    report = parsed(F_TXT_INST)
    report["load_profile"] = [r for r in report["load_profile"] if r["statistic"] != "Write IO requests"]
    with pytest.raises(ParseError, match="Write IO requests"):
        point_metrics(report)
    report["load_profile"] = None
    with pytest.raises(ParseError, match="Load Profile"):
        point_metrics(report)


def test_global_report_without_system_statistics_is_refused():
    rac = parsed(F_TXT_RAC)
    rac["system_statistics_global"] = None
    with pytest.raises(ParseError, match=r"System Statistics \(Global\)"):
        point_metrics(parsed(F_TXT_INST), rac)


def test_reports_of_other_snapshots_are_refused():
    rac = parsed(F_TXT_RAC)
    rac["header"]["end_snap"] = 49
    with pytest.raises(ParseError, match="end_snap 48 in the instance report, 49"):
        point_metrics(parsed(F_TXT_INST), rac)


def test_rac_global_must_be_a_global_report():
    with pytest.raises(ParseError, match="RAC global report"):
        point_metrics(parsed(F_TXT_INST), parsed(F_HTML_INST))

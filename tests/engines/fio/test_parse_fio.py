"""Tests for flashpoc.engines.fio.parse on real fio outputs (tests/data/fio, see PROVENANCE-*.md).

Expected numbers are copied from the fixture files; latencies printed in ns are divided by
1000 (to us) or 1e6 (to ms) the same way the parser does, so they compare exactly.
"""

from __future__ import annotations

import json
import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import TESTS
from flashpoc.core.errors import ParseError
from flashpoc.engines.fio import intervals
from flashpoc.engines.fio import parse as fio
from flashpoc.engines.fio.parse import (
    HISTOGRAM_KEYS,
    ROW_KEYS,
    parse_fio_histogram,
    parse_fio_output,
    parse_fio_point,
    summarize_fio_point,
)

DATA = TESTS / "data" / "fio"

F_31_GROUP = "fio-3.1_randread_4k_iodepth16_numjobs8_group_reporting.json"
F_214_LEGACY = "fio-2.1.4_legacy_5jobs_usec_clat.json"
F_319_NVME = "fio-3.19_rw_nvme_8jobs_no_group_reporting.json"
F_336_RANDRW = "fio-3.36_randrw_128k_1job_file.json"
F_37_CLIENTS = "fio-3.7_client_server_2hosts_5jobs_client_stats_with_text_preamble.txt"
F_333_CS_GROUP = "fio-3.33_client_server_2hosts_group_reporting.json"
F_333_CS_PER_JOB = "fio-3.33_client_server_2hosts_per_job.json"
F_333_CS_STDOUT = "fio-3.33_client_server_stdout_with_text_lines.txt"
F_333_JSONPLUS = "fio-3.33_randread_4k_numjobs4_group_reporting_jsonplus.json"
F_333_STEADY = "fio-3.33_randread_steadystate_iops_slope.json"
F_333_RANDRW = "fio-3.33_randrw70_8k_2jobs_io_uring.json"

FIXTURES = sorted(
    path.name for path in DATA.iterdir() if path.suffix in (".json", ".txt")
)


def load(name: str) -> str:
    """Return a fixture's text exactly (bytes decoded, no newline translation: 3.7 has \\r)."""
    return (DATA / name).read_bytes().decode("utf-8")


def json_span(text: str) -> tuple[int, int]:
    """Return (start, end) of the fio JSON object in a fixture, found independently."""
    start = re.search(r"(?:\A|[\r\n])\{", text).end() - 1
    _, end = json.JSONDecoder().raw_decode(text, start)
    return start, end


def only(rows: list[dict], **match) -> dict:
    """Return the single row whose items include ``match``."""
    found = [row for row in rows if all(row[key] == value for key, value in match.items())]
    assert len(found) == 1, (match, found)
    return found[0]


# --- every fixture ----------------------------------------------------------------------------


def test_all_fixtures_present():
    assert len(FIXTURES) == 11


@pytest.mark.parametrize("name", FIXTURES)
def test_every_fixture_parses(name):
    text = load(name)
    rows = parse_fio_output(text)
    assert rows
    for row in rows:
        assert tuple(row) == ROW_KEYS
        assert row["direction"] in ("read", "write", "trim")
        assert row["iops"] > 0 or row["io_bytes"] > 0
        assert row["fio_version"].startswith("fio-")
    histogram = parse_fio_histogram(text)
    for bin_row in histogram:
        assert tuple(bin_row) == HISTOGRAM_KEYS
    summary = summarize_fio_point(rows, histogram or None)
    assert summary["iops"] > 0
    assert summary["n_entries"] >= 1


# --- fio 3.x, jobs[] ----------------------------------------------------------------------------


def test_fio31_group_reporting_exact_values():
    rows = parse_fio_output(load(F_31_GROUP))
    assert len(rows) == 1  # write/trim did no I/O (fio 3.1 prints 0 percentiles for them)
    row = rows[0]
    assert row["fio_version"] == "fio-3.1"
    assert (row["entry_index"], row["jobname"], row["groupid"]) == (0, "iotest", 0)
    assert row["hostname"] is None and row["is_aggregate"] is False
    assert row["direction"] == "read"
    assert row["iops"] == 42327.534493
    assert row["bw_mibps"] == 169310 / 1024
    assert row["io_bytes"] == 10404495360
    assert row["runtime_ms"] == 60012
    assert row["total_ios"] == 2540160
    assert row["lat_mean_us"] == 3021574.233784 / 1000
    assert row["lat_max_us"] == 362890930 / 1000
    assert row["clat_mean_us"] == 3015168.701922 / 1000
    assert row["clat_stddev_us"] == 26084377.993042 / 1000
    assert row["clat_p50_us"] == 358400 / 1000
    assert row["clat_p90_us"] == 518144 / 1000
    assert row["clat_p95_us"] == 552960 / 1000
    assert row["clat_p99_us"] == 173015040 / 1000
    assert row["clat_p99_9_us"] == 265289728 / 1000
    assert row["clat_p99_99_us"] == 291504128 / 1000
    assert (row["usr_cpu_pct"], row["sys_cpu_pct"], row["error"]) == (1.826715, 4.34212, 0)
    assert (row["rw"], row["bs"], row["iodepth"], row["numjobs"], row["ioengine"]) == (
        "randread",
        "4k",
        16,
        8,
        "libaio",
    )
    assert row["steadystate_attained"] is None and row["steadystate_criterion"] is None


def test_fio31_summary_single_row_is_exact():
    summary = summarize_fio_point(parse_fio_output(load(F_31_GROUP)))
    assert summary["iops"] == summary["read_iops"] == 42327.534493
    assert summary["write_iops"] == 0.0 and summary["write_bw_mibps"] == 0.0
    assert summary["write_lat_mean_ms"] is None and summary["write_clat_p99_ms"] is None
    assert summary["read_bw_mibps"] == 169310 / 1024
    assert summary["lat_mean_ms"] == pytest.approx(3021574.233784 / 1e6, rel=1e-12)
    assert summary["clat_p50_ms"] == pytest.approx(358400 / 1e6, rel=1e-12)
    assert summary["read_clat_p99_ms"] == pytest.approx(173015040 / 1e6, rel=1e-12)
    assert summary["clat_p99_9_ms"] == pytest.approx(265289728 / 1e6, rel=1e-12)
    assert summary["percentiles_exact"] is True
    assert summary["runtime_ms"] == 60012
    assert (summary["usr_cpu_pct"], summary["sys_cpu_pct"]) == (1.826715, 4.34212)
    assert summary["steadystate_attained"] is None
    assert (summary["fio_version"], summary["n_entries"]) == ("fio-3.1", 1)


def test_fio319_global_options_fallback_and_per_job_rows():
    rows = parse_fio_output(load(F_319_NVME))
    assert len(rows) == 16  # 8 job entries x (read, write); trim did no I/O
    assert [(row["entry_index"], row["direction"]) for row in rows[:4]] == [
        (0, "read"),
        (0, "write"),
        (1, "read"),
        (1, "write"),
    ]
    first = rows[0]
    assert first["iops"] == 96.779410
    assert first["io_bytes"] == 34249953280  # 3.x: bytes (io_kbytes 33447220 beside it)
    assert first["bw_mibps"] == 387 / 1024
    assert first["runtime_ms"] == 86400289
    assert first["clat_p99_us"] == 985661440 / 1000
    # rw and numjobs from "job options"; bs, iodepth, ioengine from "global options"
    assert (first["rw"], first["numjobs"]) == ("rw", 8)
    assert (first["bs"], first["iodepth"], first["ioengine"]) == ("4k", 64, "libaio")
    summary = summarize_fio_point(rows)
    assert summary["n_entries"] == 8
    assert summary["iops"] == pytest.approx(sum(row["iops"] for row in rows))
    assert summary["percentiles_exact"] is False  # 8 rows per direction: weighted estimate


def test_fio336_randrw_single_job():
    rows = parse_fio_output(load(F_336_RANDRW))
    read, write = only(rows, direction="read"), only(rows, direction="write")
    assert (read["iops"], write["iops"]) == (401.019796, 409.818036)
    assert (read["total_ios"], write["total_ios"]) == (4011, 4099)
    assert (read["io_bytes"], write["io_bytes"]) == (525729792, 537264128)
    assert read["clat_p99_us"] == 11337728 / 1000
    assert write["clat_p99_9_us"] == 113770496 / 1000
    assert (read["bs"], read["iodepth"], read["ioengine"]) == ("128k", 1, None)
    summary = summarize_fio_point(rows)
    assert summary["iops"] == pytest.approx(401.019796 + 409.818036, rel=1e-12)
    # one row per direction: exact per direction; the all-direction one is a weighted mean
    assert summary["read_clat_p50_ms"] == pytest.approx(798720 / 1e6, rel=1e-12)
    assert summary["write_clat_p50_ms"] == pytest.approx(552960 / 1e6, rel=1e-12)
    expected = (401.019796 * 798.720 + 409.818036 * 552.960) / (401.019796 + 409.818036)
    assert summary["clat_p50_ms"] == pytest.approx(expected / 1000, rel=1e-12)
    assert summary["percentiles_exact"] is False


def test_fio333_randrw70_io_uring_two_entries_read_and_write():
    rows = parse_fio_output(load(F_333_RANDRW))
    assert [(row["entry_index"], row["direction"]) for row in rows] == [
        (0, "read"),
        (0, "write"),
        (1, "read"),
        (1, "write"),
    ]
    iops = {(row["entry_index"], row["direction"]): row["iops"] for row in rows}
    assert iops == {
        (0, "read"): 17814.637073,
        (0, "write"): 7622.275545,
        (1, "read"): 17805.038992,
        (1, "write"): 7656.868626,
    }
    assert all(row["ioengine"] == "io_uring" and row["iodepth"] == 8 for row in rows)
    assert all(row["rw"] == "randrw" and row["bs"] == "8k" for row in rows)
    summary = summarize_fio_point(rows)
    assert summary["read_iops"] == pytest.approx(17814.637073 + 17805.038992, rel=1e-12)
    assert summary["write_iops"] == pytest.approx(7622.275545 + 7656.868626, rel=1e-12)
    assert summary["iops"] == pytest.approx(
        17814.637073 + 17805.038992 + 7622.275545 + 7656.868626, rel=1e-12
    )
    assert summary["read_bw_mibps"] == (142517 + 142440) / 1024
    read_lat_us = (17814.637073 * 304263.774669 + 17805.038992 * 303994.278124) / 1000 / (
        17814.637073 + 17805.038992
    )
    assert summary["read_lat_mean_ms"] == pytest.approx(read_lat_us / 1000, rel=1e-12)
    assert summary["usr_cpu_pct"] == pytest.approx((2.38 + 2.8) / 2)
    assert summary["sys_cpu_pct"] == pytest.approx((13.98 + 13.58) / 2)
    assert summary["n_entries"] == 2
    assert summary["percentiles_exact"] is False


def test_fio333_steadystate_attained():
    rows = parse_fio_output(load(F_333_STEADY))
    (row,) = rows
    assert row["steadystate_attained"] is True
    assert row["steadystate_criterion"] == "-0.002276%"
    assert row["iops"] == 53318.723081
    assert row["runtime_ms"] == 7894  # ended early (runtime=60)
    summary = summarize_fio_point(rows)
    assert summary["steadystate_attained"] is True


def test_steadystate_not_attained_in_any_entry_gives_false():
    document = json.loads(load(F_333_STEADY))
    document["jobs"][0]["steadystate"].update(attained=0, ss="iops_slope:0.001000%")  # as fio with that limit
    rows = parse_fio_output(json.dumps(document))
    assert rows[0]["steadystate_attained"] is False
    assert summarize_fio_point(rows)["steadystate_attained"] is False


# --- fio 2.x ------------------------------------------------------------------------------------


def test_fio2_usec_latencies_and_kib_io_bytes():
    rows = parse_fio_output(load(F_214_LEGACY))
    assert [(row["jobname"], row["direction"]) for row in rows] == [
        ("sequential_write", "write"),
        ("sequential_read", "read"),
        ("random_write_test", "write"),
        ("random_read_test", "read"),
        ("random_read_test_parallel", "read"),
    ]
    row = only(rows, jobname="sequential_read")
    assert row["fio_version"] == "fio-2.1.4"
    assert row["iops"] == 253
    assert row["bw_mibps"] == 129836 / 1024
    # io_bytes is printed in KiB by fio 2.x: 361984 KiB at 129836 KiB/s over 2788 ms
    assert row["io_bytes"] == 361984 * 1024
    assert row["io_bytes"] / 1024 == pytest.approx(129836 * 2788 / 1000, rel=1e-5)
    assert row["runtime_ms"] == 2788
    assert row["total_ios"] is None  # not in 2.x
    # clat/lat are microseconds already: kept as printed
    assert row["clat_mean_us"] == 250667.06
    assert row["clat_stddev_us"] == 70403.4
    assert row["lat_mean_us"] == 250770.05
    assert row["lat_max_us"] == 528583
    assert row["clat_p50_us"] == 264192
    assert row["clat_p99_us"] == 473088
    assert row["clat_p99_9_us"] == 528384
    assert (row["rw"], row["bs"], row["iodepth"], row["numjobs"]) == (None, None, None, None)
    small = only(rows, jobname="random_write_test")
    assert (small["iops"], small["clat_p50_us"], small["clat_p99_us"]) == (1610, 510, 1688)
    assert small["io_bytes"] == 36244 * 1024


# --- client/server --------------------------------------------------------------------------------


def test_fio37_client_stats_with_text_preamble():
    text = load(F_37_CLIENTS)
    assert text.startswith("hostname=perf84")
    rows = parse_fio_output(text)
    assert len(rows) == 11
    per_job = [row for row in rows if not row["is_aggregate"]]
    assert len(per_job) == 10
    assert [row["hostname"] for row in per_job] == ["perf36"] * 5 + ["perf84"] * 5
    assert all(row["rw"] == "read" and row["numjobs"] == 5 for row in per_job)
    assert only(rows, entry_index=0)["iops"] == 7951.016328
    aggregate = only(rows, is_aggregate=True)
    assert aggregate["entry_index"] == 10
    assert aggregate["jobname"] == "All clients"
    assert aggregate["iops"] == 93198.150858
    assert aggregate["io_bytes"] == 5740351488
    assert aggregate["total_ios"] == 1401141
    assert aggregate["clat_p99_us"] is None  # fio prints no percentiles for All clients
    assert (aggregate["rw"], aggregate["iodepth"], aggregate["bs"]) == (None, 32, "4k")

    summary = summarize_fio_point(rows)
    assert summary["iops"] == summary["read_iops"] == 93198.150858
    assert summary["bw_mibps"] == 372875 / 1024
    assert summary["lat_mean_ms"] == pytest.approx(3428080.742536 / 1e6, rel=1e-12)
    assert summary["n_entries"] == 1
    assert summary["runtime_ms"] == 15034
    assert (summary["usr_cpu_pct"], summary["sys_cpu_pct"]) == (1.629769, 4.775416)
    # percentiles estimated from the per-client rows, flagged as such
    assert summary["percentiles_exact"] is False
    assert 5668864 / 1e6 > summary["clat_p50_ms"] > 2768896 / 1e6


@pytest.mark.parametrize(
    ("name", "hostname", "iops"),
    [
        (F_333_CS_GROUP, "127.0.0.1", [40475.904819]),
        (F_333_CS_STDOUT, "127.0.0.1", [33843.831234]),
        (F_333_CS_PER_JOB, "127.0.0.2", [16325.334933, 16344.931014]),
    ],
)
def test_fio333_client_server_same_hostname_everywhere(name, hostname, iops):
    rows = parse_fio_output(load(name))
    assert [row["iops"] for row in rows] == iops
    assert {row["hostname"] for row in rows} == {hostname}  # as printed, not per client
    assert not any(row["is_aggregate"] for row in rows)
    # rw/bs/iodepth come from global options, numjobs from the entry's job options
    assert all(
        (row["rw"], row["bs"], row["iodepth"], row["numjobs"], row["ioengine"])
        == ("randread", "4k", 2, 2, "libaio")
        for row in rows
    )
    summary = summarize_fio_point(rows)
    assert summary["iops"] == pytest.approx(sum(iops), rel=1e-12)
    assert summary["n_entries"] == len(iops)


def test_fio333_stdout_text_lines_precede_json():
    text = load(F_333_CS_STDOUT)
    assert text.startswith("<vm> randread: (g=0)")
    (row,) = parse_fio_output(text)
    assert row["clat_p99_us"] == 242688 / 1000
    assert row["lat_mean_us"] == 117560.339226 / 1000


# --- JSON+ histogram ------------------------------------------------------------------------------


def test_histogram_bins_match_fio_totals():
    text = load(F_333_JSONPLUS)
    bins = parse_fio_histogram(text)
    assert len(bins) == 452
    assert {(row["entry_index"], row["jobname"], row["direction"]) for row in bins} == {
        (0, "randread4k", "read")
    }
    assert sum(row["count"] for row in bins) == 146495  # read.total_ios
    values = [row["clat_ns"] for row in bins]
    assert values == sorted(values)
    assert bins[0]["hostname"] is None


def test_histogram_percentiles_equal_fio_printed_percentiles():
    text = load(F_333_JSONPLUS)
    rows = parse_fio_output(text)
    summary = summarize_fio_point(rows, parse_fio_histogram(text))
    assert summary["percentiles_exact"] is True
    # clat_ns.percentile as printed by fio
    assert summary["clat_p50_ms"] == 116224 / 1e6
    assert summary["clat_p99_ms"] == 222208 / 1e6
    assert summary["clat_p99_9_ms"] == 468992 / 1e6
    assert summary["read_clat_p99_ms"] == 222208 / 1e6
    assert summary["write_clat_p99_ms"] is None
    assert rows[0]["clat_p99_9_us"] == 468992 / 1000


def test_histogram_reproduces_every_printed_percentile():
    document = json.loads(load(F_333_JSONPLUS))
    printed = document["jobs"][0]["read"]["clat_ns"]["percentile"]
    bins = {row["clat_ns"]: row["count"] for row in parse_fio_histogram(load(F_333_JSONPLUS))}
    assert len(printed) == 17
    for percent, value in printed.items():
        assert fio._bins_percentile(bins, float(percent)) == value, percent


def test_histogram_empty_without_json_plus():
    assert parse_fio_histogram(load(F_31_GROUP)) == []
    assert parse_fio_histogram(load(F_37_CLIENTS)) == []


# --- edge cases on real documents -----------------------------------------------------------------


def test_zero_percentile_with_io_is_unknown():
    document = json.loads(load(F_31_GROUP))
    document["jobs"][0]["read"]["clat_ns"]["percentile"]["99.000000"] = 0
    (row,) = parse_fio_output(json.dumps(document))
    assert row["clat_p99_us"] is None
    assert row["clat_p50_us"] == 358400 / 1000


def test_trailing_text_after_json_is_ignored():
    text = load(F_31_GROUP) + "fio: some trailing line {\n{not json\n"
    assert parse_fio_output(text) == parse_fio_output(load(F_31_GROUP))


# --- errors --------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "   \n\t\n"])
def test_empty_output(text):
    with pytest.raises(ParseError, match="fio output is empty"):
        parse_fio_output(text)


def test_random_bytes():
    text = random.Random(1234).randbytes(4096).decode("latin-1")
    with pytest.raises(ParseError, match="fio"):
        parse_fio_output(text)


def test_text_without_json_names_first_line():
    expected = r"no JSON object found in fio output \(first line: 'fio: terminating on signal 2'\)"
    with pytest.raises(ParseError, match=expected):
        parse_fio_output("fio: terminating on signal 2\nRun status group 0:\n")


def test_preamble_only_is_no_json():
    text = load(F_37_CLIENTS)
    start, _ = json_span(text)
    with pytest.raises(ParseError, match=r"no JSON object found .*'hostname=perf84"):
        parse_fio_output(text[: start - 5])


@pytest.mark.parametrize("name", [F_31_GROUP, F_37_CLIENTS, F_333_JSONPLUS])
def test_truncated_in_the_middle(name):
    text = load(name)
    start, end = json_span(text)
    cut = text[: (start + end) // 2]
    with pytest.raises(ParseError, match=rf"fio JSON is truncated at char {len(cut)}\b"):
        parse_fio_output(cut)
    with pytest.raises(ParseError, match="truncated"):
        parse_fio_histogram(cut)


def test_invalid_json_is_not_called_truncated():
    text = load(F_31_GROUP).replace('"groupid" : 0,', '"groupid" : 0,,', 1)
    expected = r"fio JSON is invalid at line 9 column 21 \(char 199\): Expecting property name"
    with pytest.raises(ParseError, match=expected):
        parse_fio_output(text)


def test_json_without_jobs():
    with pytest.raises(ParseError, match="fio JSON has neither 'jobs' nor 'client_stats'"):
        parse_fio_output('{"fio version" : "fio-3.33"}\n')


def test_no_io_at_all():
    document = json.loads(load(F_31_GROUP))
    document["jobs"][0]["read"].update(io_bytes=0, iops=0.0)
    with pytest.raises(ParseError, match="fio output has no I/O"):
        parse_fio_output(json.dumps(document))
    with pytest.raises(ParseError, match="fio output has no I/O"):
        parse_fio_output('{"jobs": []}')


def test_wrong_type_names_the_field():
    document = json.loads(load(F_333_RANDRW))
    document["jobs"][1]["write"]["iops"] = "fast"
    with pytest.raises(ParseError, match=r"fio JSON jobs\[1\]\.write\.iops is not a number"):
        parse_fio_output(json.dumps(document))


def test_not_text():
    with pytest.raises(ParseError, match="must be text"):
        parse_fio_output(b"{}")  # type: ignore[arg-type]


def test_summarize_nothing():
    with pytest.raises(ParseError, match="no fio rows"):
        summarize_fio_point([])


# --- property tests ------------------------------------------------------------------------------

_TEXTS = {name: load(name) for name in FIXTURES}
_SPANS = {name: json_span(text) for name, text in _TEXTS.items()}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_prefix_before_json_end_raises_parse_error(data):
    name = data.draw(st.sampled_from(FIXTURES), label="fixture")
    _, end = _SPANS[name]
    cut = data.draw(st.integers(min_value=0, max_value=end - 1), label="cut")
    prefix = _TEXTS[name][:cut]
    with pytest.raises(ParseError):
        parse_fio_output(prefix)
    with pytest.raises(ParseError):
        parse_fio_histogram(prefix)


@settings(max_examples=100, deadline=None)
@given(text=st.text())
def test_arbitrary_text_raises_only_parse_error(text):
    try:
        rows = parse_fio_output(text)
    except ParseError:
        return
    assert rows  # only a real fio document with I/O returns rows


# --- per-job interval logs and the latency distribution (tests/data/fio/intervals-fio-3.33) ---

INTERVALS = DATA / "intervals-fio-3.33"


def _interval_logs() -> dict[str, str]:
    return {path.name: path.read_text() for path in sorted(INTERVALS.glob("*.log"))}


def test_interval_logs_sum_jobs_and_weight_latency_by_iops():
    rows = intervals.parse_fio_interval_logs(_interval_logs(), window_ms=1000, fio_version="fio-3.33")
    # job 2 alone logged a 4000 ms IOPS window: only windows 1-3, which all three jobs logged, count
    assert [r["second"] for r in rows] == [1.0, 2.0, 3.0]
    first = rows[0]
    assert first["read_iops"] == 7599 + 7594 + 7529  # the 999 ms lines of the three iops logs
    assert first["write_iops"] == 3182 + 3154 + 3185
    assert first["iops"] == 32243
    # lat logs print ns: (7599 x 88679 + 7594 x 89287 + 7529 x 90058) / 22722 ns
    assert first["read_lat_mean_ms"] == pytest.approx((7599 * 88679 + 7594 * 89287 + 7529 * 90058) / 22722 / 1e6)
    assert first["write_lat_mean_ms"] == pytest.approx((3182 * 99998 + 3154 * 99724 + 3185 * 98718) / 9521 / 1e6)
    assert first["lat_mean_ms"] == pytest.approx(
        (22722 * first["read_lat_mean_ms"] + 9521 * first["write_lat_mean_ms"]) / 32243)
    assert rows[2]["read_iops"] == 6941 + 6953 + 6987
    assert list(first) == list(intervals.INTERVAL_KEYS)


def test_interval_series_agrees_with_the_run_summary():
    rows = intervals.parse_fio_interval_logs(_interval_logs(), window_ms=1000, fio_version="fio-3.33")
    summary = summarize_fio_point(parse_fio_output((INTERVALS / "out.json").read_text()))
    mean_read = sum(r["read_iops"] for r in rows) / len(rows)
    # the JSON's 21,197.8 read IOPS include the last, slower part-second the windows leave out
    assert summary["read_iops"] == pytest.approx(21197.752809)
    assert mean_read == pytest.approx(summary["read_iops"], rel=0.06)


def test_interval_logs_of_fio_2_are_read_in_microseconds():
    logs = {"a_iops.1.log": "1000, 100, 0, 4096\n", "a_lat.1.log": "1000, 250, 0, 4096\n"}
    assert intervals.parse_fio_interval_logs(logs, window_ms=1000, fio_version="fio-2.1.4")[0]["lat_mean_ms"] == 0.25
    assert intervals.parse_fio_interval_logs(logs, window_ms=1000)[0]["lat_mean_ms"] == 0.00025


@pytest.mark.parametrize("logs, message", [
    ({}, "no fio interval logs"),
    ({"flashpoc_clat.1.log": "1000, 5, 0, 0, 0\n"}, "no fio interval logs"),
    ({"flashpoc_iops.1.log": "1000, 5, 0, 0, 0\n"}, "fio log flashpoc_lat.1.log: missing (job 1 has the iops log)"),
    ({"flashpoc_iops.1.log": "1000, 5, 0, 0, 0\n", "flashpoc_lat.1.log": "fio: short read\n"},
     "flashpoc_lat.1.log: line 1 is not"),
    ({"flashpoc_iops.1.log": "1000, 5\n", "flashpoc_lat.1.log": "1000, 5, 0\n"}, "flashpoc_iops.1.log: line 1 is not"),
    ({"flashpoc_iops.1.log": "1000, -5, 0, 0, 0\n", "flashpoc_lat.1.log": "1000, 5, 0\n"},
     "flashpoc_iops.1.log: line 1 is not"),  # a minus sign over the space before a figure
])
def test_interval_logs_refuse_what_is_not_fio_log_format(logs, message):
    with pytest.raises(ParseError, match=re.escape(message)):
        intervals.parse_fio_interval_logs(logs, window_ms=1000)


def test_merge_intervals_sums_hosts_and_keeps_common_seconds():
    rows = intervals.parse_fio_interval_logs(_interval_logs(), window_ms=1000, fio_version="fio-3.33")
    merged = intervals.merge_intervals([rows, rows[:2]])
    assert [r["second"] for r in merged] == [1.0, 2.0]
    assert merged[0]["iops"] == 2 * 32243
    assert merged[0]["read_lat_mean_ms"] == pytest.approx(rows[0]["read_lat_mean_ms"])
    assert intervals.merge_intervals([rows]) == rows


def test_latency_distribution_matches_fio_printed_percentiles():
    text = (INTERVALS / "out.json").read_text()
    bins = parse_fio_histogram(text)
    distribution = fio.latency_distribution(bins)
    # fio computes its printed percentiles from the same bins: they agree to the nanosecond
    assert distribution["read_clat_p90_ms"] == 128512 / 1e6
    assert distribution["write_clat_p90_ms"] == 142336 / 1e6
    assert distribution["read_clat_p99_9_ms"] == 452608 / 1e6
    assert distribution["write_clat_p99_9_ms"] == 423936 / 1e6
    # shares, counted independently from the JSON's bins
    job = json.loads(text)["jobs"][0]
    for direction in ("read", "write"):
        counts = {int(ns): n for ns, n in job[direction]["clat_ns"]["bins"].items()}
        assert sum(counts.values()) == job[direction]["total_ios"]
        for limit, limit_ns in (("512us", 512_000), ("1ms", 1_000_000), ("2ms", 2_000_000)):
            under = sum(n for ns, n in counts.items() if ns < limit_ns)
            assert distribution[f"{direction}_clat_under_{limit}_pct"] == pytest.approx(
                100 * under / job[direction]["total_ios"])
    assert 99.0 < distribution["read_clat_under_1ms_pct"] < 100.0
    summary = summarize_fio_point(parse_fio_output(text), bins)
    assert summary["clat_under_1ms_pct"] == distribution["clat_under_1ms_pct"]
    assert summary["read_clat_p90_ms"] == 128512 / 1e6


def test_histogram_table_merges_hosts_bin_by_bin():
    bins = parse_fio_histogram((INTERVALS / "out.json").read_text())
    one = fio.histogram_table(bins)
    two = fio.histogram_table(bins + bins)
    assert [r["count"] * 2 for r in one] == [r["count"] for r in two]
    assert sum(r["count"] for r in one if r["direction"] == "read") == 84897  # read total_ios
    assert one[0]["direction"] == "read" and one[-1]["direction"] == "write"


@settings(max_examples=120, deadline=None)
@given(data=st.data())
def test_a_cut_interval_log_gives_an_error_or_the_same_numbers(data):
    """One job's log cut anywhere: a ParseError, or windows with exactly the whole logs'
    numbers (a window the cut job no longer has is left out, not summed short)."""
    logs = _interval_logs()
    whole = {r["second"]: r for r in intervals.parse_fio_interval_logs(logs, window_ms=1000, fio_version="fio-3.33")}
    name = data.draw(st.sampled_from(sorted(n for n in logs if "_clat." not in n)), label="log")
    cut = data.draw(st.integers(min_value=0, max_value=len(logs[name])), label="cut")
    try:
        rows = intervals.parse_fio_interval_logs({**logs, name: logs[name][:cut]}, window_ms=1000, fio_version="fio-3.33")
    except ParseError:
        return
    for row in rows:
        assert row == whole[row["second"]]



@pytest.mark.parametrize("name", FIXTURES)
def test_a_point_is_parsed_in_one_pass_as_in_two(name):
    """parse_fio_point (one JSON read, each direction's bins checked once) gives the rows and the
    bins of parse_fio_output and parse_fio_histogram, or refuses what either refuses, in its words."""
    text = load(name)
    try:
        expected = (parse_fio_output(text, source=name), parse_fio_histogram(text))
    except ParseError as error:
        with pytest.raises(ParseError, match=re.escape(str(error))):
            parse_fio_point(text, source=name)
        return
    assert parse_fio_point(text, source=name) == expected
    assert bool(expected[1]) == (name == F_333_JSONPLUS) and expected[0][0]["iops"] > 0

"""Tests for flashpoc.engines.vdbench.parse on real vdbench output directories.

Inputs: tests/data/vdbench (our own 5.04.06 runs, whole directories) and
tests/data/vdbench-public (5.04.01, 5.04.06 and 5.04.07 outputs from public repositories, the
files listed in COPIED.md); see the PROVENANCE.md files. Expected numbers are copied from the
files as printed, so parsed floats compare exactly.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import DATA
from flashpoc.core.errors import ParseError
from flashpoc.engines.vdbench.parse import (
    LOOP_KEYS,
    SD_METRIC_KEYS,
    SUMMARY_KEYS,
    TOTALS_KEYS,
    flatfile_column_key,
    parse_flatfile,
    parse_histogram,
    parse_output_dir,
    parse_summary,
    parse_totals,
    parse_vdbench_dir,
    read_output_dir,
    report_column_key,
    vdbench_failure,
)

OWN = "vdbench"
PUBLIC = "vdbench-public"
SETS = sorted(
    f"{group}/{path.name}"
    for group in (OWN, PUBLIC)
    for path in (DATA / group).iterdir()
    if path.is_dir()
)
RR = f"{OWN}/rr_threads_sweep"
FOUR = f"{OWN}/four_workloads"
MULTI = f"{OWN}/multi_host"
ERROR = f"{OWN}/error_missing_lun"
FRESH = f"{OWN}/rr_3threads_2s"
FORMAT = f"{OWN}/sd_format_then_rr_3threads"
IORATE = f"{PUBLIC}/vdbench50401_2host_sd_3rds_iorate_steps"
FSD_FORMAT = f"{PUBLIC}/vdbench50406_1host_fsd_format_then_randread"
FSD_12HOST = f"{PUBLIC}/vdbench50407_12host_fsd_randrw70_8k_warmup"
FSD_NVME = f"{PUBLIC}/vdbench50407_1host_nvme_fsd_4k_32t"
FSD_8HOST = f"{PUBLIC}/vdbench50407_8host_fsd_randread_4k_128t"
SWEEP = f"{PUBLIC}/vdbench50407_8host_sd_37rds_xfersize_sweep"

# vdbench 5.04.06 prints avg_2-N but averages (and histograms) intervals 1..N.
V50406 = {RR, FOUR, MULTI, ERROR, FSD_FORMAT, FRESH, FORMAT}


def load(set_name: str, file_name: str) -> str:
    """Return a fixture file's text exactly."""
    return (DATA / set_name / file_name).read_bytes().decode("utf-8")


@lru_cache(maxsize=None)
def files_of(set_name: str) -> dict[str, str]:
    """Return read_output_dir of a fixture set (cached; do not mutate)."""
    return read_output_dir(DATA / set_name)


@lru_cache(maxsize=None)
def parsed(set_name: str) -> dict:
    """Return parse_output_dir of a fixture set (cached; do not mutate)."""
    return parse_output_dir(files_of(set_name))


def only(rows: list[dict], **match) -> dict:
    """Return the single row whose items include ``match``."""
    found = [row for row in rows if all(row.get(key) == value for key, value in match.items())]
    assert len(found) == 1, (match, len(found))
    return found[0]


def metrics(row: dict, keys=SD_METRIC_KEYS) -> tuple:
    """Return the values of ``keys`` in ``row``."""
    return tuple(row[key] for key in keys)


def starting_count(text: str) -> int:
    """Count the runs of a report independently of the parser."""
    return text.count("Starting RD=")


def avg_lines(text: str) -> list[list[str]]:
    """Return the whitespace-split avg_ lines of a report, in file order (parser-free)."""
    return [line.split() for line in text.splitlines() if re.match(r"^\S+\s+avg_\d+-\d+\s", line)]


def decimals(tokens: list[str], value: float) -> int:
    """Return how many decimals the token printing ``value`` on a line has."""
    places = [
        len(token.partition(".")[2])
        for token in tokens[2:]
        if re.fullmatch(r"[\d.]+", token) and float(token) == value
    ]
    assert places, (value, tokens)
    return max(places)


# --- every set parses ---------------------------------------------------------------------

EXPECTED_REPORTS = {
    RR: ({"localhost"}, {f"localhost-{n}" for n in range(4)}),
    FOUR: ({"localhost"}, {f"localhost-{n}" for n in range(4)}),
    MULTI: ({"hd1", "hd2"}, {"hd1-0", "hd1-1", "hd2-0", "hd2-1"}),
    ERROR: ({"localhost"}, {"localhost-0"}),
    FRESH: ({"localhost"}, {"localhost-0"}),
    FORMAT: ({"localhost"}, {"localhost-0"}),
    IORATE: ({"hd1"}, {"hd1-0"}),
    FSD_FORMAT: ({"hd0"}, {"hd0-0"}),
    FSD_12HOST: ({"cpu01"}, set()),
    FSD_NVME: ({"localhost"}, {"localhost-0"}),
    FSD_8HOST: ({"n1"}, {"n1-0"}),
    SWEEP: (set(), set()),
}


def test_every_fixture_set_is_covered():
    assert set(SETS) == set(EXPECTED_REPORTS)


@pytest.mark.parametrize("set_name", SETS)
def test_every_output_set_parses(set_name):
    out = parsed(set_name)
    files = files_of(set_name)
    runs = starting_count(files["totals.html"])
    hosts, slaves = EXPECTED_REPORTS[set_name]
    assert set(out["hosts"]) == hosts
    assert set(out["slaves"]) == slaves
    assert "histogram" in out["histograms"]
    assert out["errors"] == []  # every errorlog.html is clean
    if set_name == ERROR:
        assert runs == 0 and out["totals"] == [] and out["summary"] == [] and out["flatfile"] == []
        return
    totals = out["totals"]
    assert [row["run_index"] for row in totals] == list(range(runs))
    for row in totals:
        assert tuple(row)[: len(TOTALS_KEYS)] == TOTALS_KEYS
    # summary.html and every host/slave report have one avg_ line per run, the summary's
    # equal to totals.html's; the flatfile has one avg row per run with the same rd.
    for rows in (out["summary"], *out["hosts"].values(), *out["slaves"].values()):
        averages = [row for row in rows if row["is_avg"]]
        assert [row["run_index"] for row in averages] == list(range(runs))
        for row in rows:
            assert tuple(row)[: len(SUMMARY_KEYS)] == SUMMARY_KEYS
    summary_avg = [row for row in out["summary"] if row["is_avg"]]
    for total, avg in zip(totals, summary_avg):
        assert total["rd"] == avg["rd"] and total["interval_label"] == avg["interval"]
        own = [key for key in total if key not in TOTALS_KEYS]
        keys = SD_METRIC_KEYS + tuple(own)
        assert metrics(total, keys) == metrics(avg, keys)
    flat_avg = [row for row in out["flatfile"] if row["is_avg"]]
    assert [(row["run_index"], row["run"], row["interval"]) for row in flat_avg] == [
        (row["run_index"], row["rd"], row["interval_label"]) for row in totals
    ]


@pytest.mark.parametrize("set_name", [name for name in SETS if name != ERROR])
def test_parse_vdbench_dir_joins_every_run_with_its_flatfile_average(set_name):
    rows = parse_vdbench_dir(DATA / set_name)
    assert len(rows) == len(parsed(set_name)["totals"])
    assert all(row["flatfile_matched"] for row in rows)
    for row, total in zip(rows, parsed(set_name)["totals"]):
        assert {key: row[key] for key in total if key not in LOOP_KEYS} == {
            key: value for key, value in total.items() if key not in LOOP_KEYS
        }
    assert json.loads(json.dumps(rows)) == rows  # what `flashpoc parse vdbench` prints


# --- exact numbers --------------------------------------------------------------------------


def test_rr_threads_sweep_totals():
    totals = parsed(RR)["totals"]
    assert [row["threads"] for row in totals] == [1, 2, 4, 8, 16]
    assert [row["loop"] for row in totals] == [{"threads": n} for n in (1, 2, 4, 8, 16)]
    row = only(totals, threads=16)
    assert row["rd"] == "rd1" and row["run_index"] == 4
    assert row["iorate_setting"] == "max" and row["elapsed_s"] == 10
    assert row["interval_label"] == "avg_2-10"
    assert (row["interval_start"], row["interval_end"]) == (2, 10)
    # 07:22:44.072  avg_2-10   72704.70   284.00    4096 100.00    0.844    0.844    0.000
    #    31.323    0.602  61.4  67.6  41.8
    assert metrics(row) == (
        72704.70, 284.00, 4096, 100.00, 0.844, 0.844, 0.000, 31.323, 0.602, 61.4, 67.6, 41.8
    )
    assert row["rdpct"] is None and row["xfersize"] is None and row["iorate"] is None


def test_rr_threads_sweep_summary_interval_and_flatfile_average():
    summary = parsed(RR)["summary"]
    row = only(summary, threads=16, interval=4)
    assert row["row_type"] == "interval" and row["is_avg"] is False
    assert metrics(row) == (
        66629.00, 260.27, 4096, 100.00, 0.972, 0.972, 0.000, 31.323, 1.024, 64.8, 66.0, 44.8
    )
    flat = only(parsed(RR)["flatfile"], run_index=4, is_avg=True)
    assert flat["interval"] == "avg_2-10" and flat["threads"] == 16.0
    assert (flat["rate"], flat["mb_per_s"], flat["resp_ms"], flat["resp_max_ms"]) == (
        72704.7, 284.0027, 0.8439, 31.323
    )
    assert (flat["queue_depth"], flat["reqrate"], flat["version"]) == (61.3623, 9999988.0, None)


def test_four_workloads_with_dedup_and_compression():
    totals = parsed(FOUR)["totals"]
    assert [row["rd"] for row in totals[::3]] == [
        "rd1_randread", "rd2_randwrite", "rd3_seqread", "rd4_seqwrite"
    ]
    assert [row["interval_label"] for row in totals] == ["avg_2-5"] * 12
    assert metrics(only(totals, rd="rd2_randwrite", threads=4)) == (
        45752.40, 178.72, 4096, 0.00, 0.326, 0.000, 0.326, 13.317, 0.344, 14.9, 69.2, 33.5
    )
    assert metrics(only(totals, rd="rd3_seqread", threads=4)) == (
        8200.80, 1025.10, 131072, 100.00, 1.768, 1.768, 0.000, 8.106, 0.560, 14.5, 24.5, 10.0
    )
    flat = parsed(FOUR)["flatfile"]
    assert {row["compratio"] for row in flat} == {2.0}  # compratio=2 was applied
    assert {row["dedupratio"] for row in flat} == {None}  # printed n/a although dedupratio=2
    assert sorted({row["run_index"] for row in flat}) == list(range(12))
    assert only(flat, run="rd2_randwrite", interval=3, threads=4.0)["rate"] == 41022.0
    slave = only(parsed(FOUR)["slaves"]["localhost-2"], rd="rd1_randread", threads=8, is_avg=True)
    assert metrics(slave)[:5] == (16864.20, 65.88, 4096, 100.00, 0.429)


def test_multi_host_per_host_and_per_slave_rows():
    out = parsed(MULTI)
    total = only(out["totals"], threads=2)
    assert metrics(total) == (
        41721.60, 162.98, 4096, 69.79, 0.171, 0.169, 0.175, 123.654, 0.668, 7.1, 74.8, 26.1
    )
    hd1 = only(out["hosts"]["hd1"], threads=2, is_avg=True)
    assert metrics(hd1) == (
        21002.00, 82.04, 4096, 69.80, 0.172, 0.170, 0.176, 71.767, 0.564, 3.6, 74.9, 26.1
    )
    hd2 = only(out["hosts"]["hd2"], threads=4, is_avg=True)
    assert metrics(hd2) == (
        30380.80, 118.68, 4096, 69.76, 0.247, 0.246, 0.249, 25.162, 0.264, 7.5, 56.1, 24.6
    )
    slave = only(out["slaves"]["hd1-0"], threads=4, is_avg=True)
    assert metrics(slave) == (
        14538.80, 56.79, 4096, 69.72, 0.254, 0.254, 0.253, 23.696, 0.276, 3.7, 55.9, 24.7
    )
    assert only(out["slaves"]["hd1-0"], threads=2, interval=1)["iops"] == 3819.00
    # Hosts add up to the total and slaves to their host (IOPS printed to 0.01 each).
    for run_index in (0, 1):
        def iops(rows):
            return only(rows, run_index=run_index, is_avg=True)["iops"]

        host_sum = iops(out["hosts"]["hd1"]) + iops(out["hosts"]["hd2"])
        assert host_sum == pytest.approx(iops(out["summary"]), abs=0.02)
        for host in ("hd1", "hd2"):
            slave_sum = iops(out["slaves"][f"{host}-0"]) + iops(out["slaves"][f"{host}-1"])
            assert slave_sum == pytest.approx(iops(out["hosts"][host]), abs=0.02)


def test_iorate_steps_controlled_rates():
    totals = parsed(IORATE)["totals"]
    # The fixture's loops are threads only; the rates are set per rd (I/O rate: 50/500/5000).
    assert [(row["rd"], row["loop"], row["iorate_setting"]) for row in totals] == [
        ("rd1", {"threads": 2}, 50),
        ("rd2", {"threads": 2}, 500),
        ("rd3", {"threads": 2}, 5000),
    ]
    assert [row["iorate"] for row in totals] == [None, None, None]
    assert metrics(totals[0]) == (
        50.02, 0.20, 4096, 75.91, 5.395, 6.944, 0.516, 96.066, 10.097, 0.3, 1.2, 0.2
    )
    flat = parsed(IORATE)["flatfile"]
    assert "timestamp" not in flat[0]  # 5.04.01 has no timestamp column
    assert [row["reqrate"] for row in flat if row["is_avg"]] == [50.0, 500.0, 5000.0]
    assert only(flat, run="rd1", interval=2)["rate"] == 46.0
    assert metrics(only(parsed(IORATE)["hosts"]["hd1"], rd="rd2", is_avg=True))[:5] == (
        140.47, 0.55, 4096, 75.08, 7.106
    )
    assert parse_vdbench_dir(DATA / IORATE)[2]["iorate_setting"] == 5000


def test_sweep_of_38_runs_with_repeated_15_column_header():
    text = load(SWEEP, "totals.html")
    assert text.count("interval        i/o") == 3  # the header is printed again twice
    totals = parsed(SWEEP)["totals"]
    assert len(totals) == 38  # the set's name says 37: it holds 38 rds
    assert totals[0]["iorate_setting"] == "controlled_max" and totals[2]["iorate_setting"] == "max"
    assert all(row["loop"] == {} for row in totals)
    # 5.04.07 prints read max / write max instead of resp max: parsed by name.
    row = only(totals, rd="ran_write_4k")
    assert row["resp_max_ms"] is None
    assert (row["read_resp_max_ms"], row["write_resp_max_ms"]) == (0.00, 393.76)
    assert metrics(row) == (
        19192.8, 74.97, 4096, 0.00, 0.415, 0.000, 0.415, None, 2.280, 8.0, 0.1, 0.1
    )
    row = only(totals, rd="seq_read_8k")  # right after the second header
    assert metrics(row) == (
        16967.5, 132.56, 8192, 100.00, 0.471, 0.471, 0.000, None, 0.856, 8.0, 0.5, 0.4
    )
    assert row["read_resp_max_ms"] == 255.79
    # The CLI rows take the requested threads and xfersize from the flatfile.
    sizes = {"4k": 4096, "8k": 8192, "16k": 16384, "32k": 32768, "64k": 65536,
             "128k": 131072, "512k": 524288, "1m": 1048576, "2m": 2097152}
    for cli in parse_vdbench_dir(DATA / SWEEP):
        assert cli["threads"] == 8
        size = cli["rd"].rsplit("_", 1)[1]
        if size in sizes:
            assert cli["xfersize"] == sizes[size] == cli["bytes_per_io"]
        else:  # the 'various' runs: flatfile shows the first xfersize of the distribution
            assert cli["xfersize"] == 512 and cli["bytes_per_io"] in (7830, 7892)


def test_fsd_runs_keep_their_own_columns():
    format_run, read_run = parsed(FSD_FORMAT)["totals"]
    assert (format_run["rd"], format_run["interval_label"], format_run["elapsed_s"]) == (
        "format_for_rd1", "avg_2-1", None
    )
    assert format_run["report_format"] == "fsd" and format_run["iops"] is None
    assert {key: format_run[key] for key in (
        "reqstdops_rate", "reqstdops_resp_ms", "cpu_total_pct", "cpu_sys_pct", "read_pct",
        "write_rate", "write_resp_ms", "mb_write_per_s", "mb_total_per_s", "xfer_size_bytes",
        "mkdir_rate", "mkdir_resp_ms", "create_resp_ms", "delete_rate",
    )} == {
        "reqstdops_rate": 400.0, "reqstdops_resp_ms": 0.598, "cpu_total_pct": 4.4,
        "cpu_sys_pct": 0.65, "read_pct": 0.0, "write_rate": 400.0, "write_resp_ms": 0.598,
        "mb_write_per_s": 50.00, "mb_total_per_s": 50.00, "xfer_size_bytes": 131072,
        "mkdir_rate": 1.0, "mkdir_resp_ms": 3.297, "create_resp_ms": 250.62, "delete_rate": 0.0,
    }
    assert (read_run["iorate_setting"], read_run["reqstdops_rate"], read_run["read_rate"]) == (
        "max", 11471, 11471
    )
    flat = only(parsed(FSD_FORMAT)["flatfile"], run="rd1", is_avg=True)
    # 09:10:45.074 ... rd1 avg_2-20 9999988.0000 11471.3000 0.0801 44.8098 11471.3000 0.0801
    assert (flat["rate"], flat["resp_ms"], flat["mb_per_s"], flat["read_rate"],
            flat["read_resp_ms"], flat["open_rate"], flat["open_resp_ms"]) == (
        11471.3, 0.0801, 44.8098, 11471.3, 0.0801, 0.9, 1.1056
    )


def test_fsd_std_and_max_lines_are_matched_by_position():
    rows = parsed(FSD_8HOST)["summary"]
    avg, std, peak = rows[-3:]
    assert [row["row_type"] for row in rows[-3:]] == ["avg", "std", "max"]
    assert (avg["reqstdops_rate"], avg["reqstdops_resp_ms"], avg["mb_total_per_s"]) == (
        1104872, 0.115, 4313.7
    )
    # 16:24:27.017     std_2-12  34738  5.154                   34738  5.154     ...
    #   56.8  0.033  56.3  0.008
    printed = ("reqstdops_rate", "reqstdops_resp_ms", "read_rate", "read_resp_ms", "open_rate",
               "open_resp_ms", "close_rate", "close_resp_ms")
    assert {key: std[key] for key in printed} == {
        "reqstdops_rate": 34738, "reqstdops_resp_ms": 5.154, "read_rate": 34738,
        "read_resp_ms": 5.154, "open_rate": 56.8, "open_resp_ms": 0.033, "close_rate": 56.3,
        "close_resp_ms": 0.008,
    }
    assert [key for key in avg if key not in SUMMARY_KEYS[:-len(SD_METRIC_KEYS)]
            and key not in printed and std[key] is not None] == []
    assert (peak["reqstdops_rate"], peak["reqstdops_resp_ms"], peak["open_rate"],
            peak["close_resp_ms"], peak["cpu_total_pct"]) == (1148549, 3542.8, 1451, 1.452, None)
    std = only(parsed(FSD_12HOST)["summary"], row_type="std")
    assert (std["reqstdops_rate"], std["read_rate"], std["read_resp_ms"], std["write_rate"],
            std["write_resp_ms"], std["open_resp_ms"]) == (
        None, 2034.6, 32.243, 875.9, 55.123, 1.804
    )
    slave = only(parsed(FSD_8HOST)["slaves"]["n1-0"], is_avg=True)
    assert (slave["reqstdops_rate"], slave["mb_total_per_s"], slave["open_rate"]) == (
        108527, 423.72, 137.6
    )


def test_fsd_warmup_and_nvme_sets():
    (row,) = parsed(FSD_12HOST)["totals"]
    assert (row["rd"], row["elapsed_s"], row["warmup_s"], row["interval_label"]) == (
        "rd_rnd_8rw", 600, 60, "avg_61-660"
    )
    assert (row["reqstdops_rate"], row["read_pct"], row["read_rate"], row["write_rate"],
            row["read_resp_ms"], row["write_resp_ms"], row["mb_total_per_s"]) == (
        99323, 70.0, 69532, 29790, 1.197, 1.733, 775.96
    )
    host = parsed(FSD_12HOST)["hosts"]["cpu01"]
    assert [row["interval"] for row in host[:2]] == [1, 2] and len(host) == 663
    (nvme,) = parsed(FSD_NVME)["totals"]
    assert (nvme["reqstdops_rate"], nvme["mb_read_per_s"], nvme["open_rate"],
            nvme["close_rate"]) == (
        2348508, 9169, 2937, 2938
    )
    assert only(parsed(FSD_NVME)["hosts"]["localhost"], is_avg=True)["reqstdops_rate"] == 2348508


def test_histogram_buckets():
    rows = parsed(RR)["histograms"]["histogram"]
    first = [row for row in rows if row["run_index"] == 0]
    assert len(first) == 27 and {row["direction"] for row in first} == {"read"}
    assert first[0]["section"] == "Only reads done for this workload"
    bucket = only(first, bucket_lo_us=100)
    assert (bucket["bucket_hi_us"], bucket["count"], bucket["pct"], bucket["cum_pct"]) == (
        200, 19018, 16.9314, 20.0607
    )
    assert (first[-1]["bucket_lo_us"], first[-1]["bucket_hi_us"], first[-1]["cum_pct"]) == (
        2000000, None, 100.0
    )
    assert first[1]["bucket_lo_us"] == 20 and first[1]["bucket_hi_us"] == 40
    assert first[0]["threads"] == 1 and first[0]["rd"] == "rd1"
    # Reads and writes, Reads, Writes: reads + writes = total in every bucket.
    iorate = parsed(IORATE)["histograms"]["histogram"]
    for run_index in range(3):
        by = {d: [r["count"] for r in iorate if r["run_index"] == run_index and r["direction"] == d]
              for d in ("total", "read", "write")}
        assert [r + w for r, w in zip(by["read"], by["write"])] == by["total"]
    assert only(iorate, run_index=0, direction="total", bucket_lo_us=400)["count"] == 1339
    sweep = parsed(SWEEP)["histograms"]["histogram"]
    assert only(sweep, run_index=0, bucket_lo_us=200)["count"] == 1285336  # printed 1,285,336
    wd3 = parsed(FOUR)["histograms"]["wd3"]  # 'No statistics generated' runs give no rows
    assert {row["rd"] for row in wd3} == {"rd3_seqread"}


@pytest.mark.parametrize("set_name", [name for name in SETS if name != ERROR])
def test_histogram_counts_match_the_averaged_intervals(set_name):
    """The total histogram counts the I/Os of the intervals the average covers.

    5.04.06 counts intervals 1..N (like its avg_2-N numbers); the others 2..N as labelled.
    Tolerance: rates are printed rounded to at most 0.5, times the seconds summed.
    """
    out = parsed(set_name)
    for total in out["totals"]:
        run = total["run_index"]
        buckets = [row for row in out["histograms"]["histogram"]
                   if row["run_index"] == run and row["direction"] in ("total", None)]
        if not buckets:  # single-direction runs only have a read or a write section
            buckets = [row for row in out["histograms"]["histogram"] if row["run_index"] == run]
        if not buckets:  # vdbench's own SD_format run: "No statistics generated for this run."
            assert total["rd"] == "SD_format" and set_name == FORMAT
            continue
        intervals = [row for row in out["summary"]
                     if row["run_index"] == run and row["row_type"] == "interval"]
        first = 1 if set_name in V50406 else total["interval_start"]
        counted = [row for row in intervals if first <= row["interval"] <= total["interval_end"]]
        run_seconds = (total["elapsed_s"] or len(intervals)) + (total["warmup_s"] or 0)
        seconds = run_seconds / len(intervals)  # 5 s per interval in the 8-host set
        rate = "iops" if total["report_format"] == "sd" else "reqstdops_rate"
        ios = sum(row[rate] for row in counted) * seconds
        assert sum(row["count"] for row in buckets) == pytest.approx(
            ios, abs=0.5 * seconds * len(counted) + 1
        )


# --- averages, Little's law -----------------------------------------------------------------


@pytest.mark.parametrize("set_name", [name for name in SETS if name != ERROR])
def test_avg_rows_agree_with_the_intervals_they_summarise(set_name):
    """avg_ = mean of interval rates, IOPS-weighted mean of response times, max of maxima.

    Tolerance 10**-d, d the decimals the avg_ value is printed with: half a unit for the
    rounding of the avg_ value plus at most half a unit from the rounding of the interval
    values (printed with the same decimals). Queue depth (0.1) is a mean within 0.1 too.
    CPU is not checked: vdbench averages its own CPU samples, not the printed intervals.
    5.04.06 covers intervals 1..N under its avg_2-N label (checked to differ from 2..N).
    """
    out = parsed(set_name)
    text = files_of(set_name)["summary.html"]
    printed = avg_lines(text)
    averages = [row for row in out["summary"] if row["is_avg"]]
    assert len(printed) == len(averages)
    for avg, tokens in zip(averages, printed):
        intervals = [row for row in out["summary"]
                     if row["run_index"] == avg["run_index"] and row["row_type"] == "interval"]
        first = 1 if set_name in V50406 else avg["interval_start"]
        rows = [row for row in intervals if first <= row["interval"] <= avg["interval_end"]]
        if avg["report_format"] == "sd":
            rate, resp = "iops", "resp_ms"
            extra = ["mb_per_s"]
        else:
            rate, resp = "reqstdops_rate", "reqstdops_resp_ms"
            extra = ["mb_total_per_s", "read_rate", "write_rate"]
        for key in [rate, *extra]:
            mean = sum(row[key] for row in rows) / len(rows)
            assert avg[key] == pytest.approx(mean, abs=10 ** -decimals(tokens, avg[key])), key
        weight = sum(row[rate] for row in rows)
        if weight:
            mean_resp = sum(row[rate] * row[resp] for row in rows) / weight
            assert avg[resp] == pytest.approx(mean_resp, abs=10 ** -decimals(tokens, avg[resp]))
        if avg["report_format"] == "sd":
            queue = sum(row["queue_depth"] for row in rows) / len(rows)
            assert avg["queue_depth"] == pytest.approx(queue, abs=0.1)
            for key in ("resp_max_ms", "read_resp_max_ms", "write_resp_max_ms"):
                if avg.get(key) is not None:
                    assert avg[key] == max(row[key] for row in rows)
    if set_name in (RR, MULTI):  # the difference is far beyond the tolerance
        avg = averages[0]
        rows = [row for row in out["summary"] if row["run_index"] == 0
                and row["row_type"] == "interval" and row["interval"] >= avg["interval_start"]]
        assert abs(avg["iops"] - sum(row["iops"] for row in rows) / len(rows)) > 400


def test_littles_law_queue_depth_is_iops_times_response_time():
    flat = only(parsed(RR)["flatfile"], run_index=4, is_avg=True)
    # 61.3623 vs 72704.7 x 0.8439 ms = 61.3555: within the rounding of resp (0.00005/0.84).
    assert flat["queue_depth"] == pytest.approx(flat["rate"] * flat["resp_ms"] / 1000, rel=2e-4)
    total = only(parsed(RR)["totals"], threads=16)
    assert total["queue_depth"] == pytest.approx(total["iops"] * total["resp_ms"] / 1000, abs=0.06)
    for set_name in (RR, FOUR, MULTI, IORATE, SWEEP):  # every SD average: within 1 %
        for row in parsed(set_name)["flatfile"]:
            if row["is_avg"]:
                assert row["queue_depth"] == pytest.approx(
                    row["rate"] * row["resp_ms"] / 1000, rel=0.01
                )


# --- localized dates, encodings ------------------------------------------------------------


LOCAL_DATES = ["十一月 21, 2026", "2026年11月21日", "21 nov. 2026", "Samstag, 21. November 2026"]


@pytest.mark.parametrize("date", LOCAL_DATES)
def test_localized_dates_do_not_matter(date):
    """No fixture has a localized month; replace the header's date like a localized Java would."""
    for set_name, name, original in ((RR, "summary.html", "Nov 21, 2026"),
                                     (FSD_8HOST, "summary.html", "Mar 08, 2019")):
        text = load(set_name, name)
        assert original in text
        assert parse_summary(text.replace(original, date)) == parse_summary(text)
    text = load(MULTI, "totals.html")
    assert parse_totals(text.replace("Nov 21, 2026", date)) == parse_totals(text)


def test_read_output_dir_tolerates_encodings(tmp_path):
    for name in ("totals.html", "summary.html", "flatfile.html"):
        text = load(MULTI, name).replace("Nov 21, 2026", "十一月 21, 2026")
        (tmp_path / name).write_bytes(text.replace("\n", "\r\n").encode("gb18030"))
    (tmp_path / "console.txt").write_bytes("\ufeffconsole\n".encode("utf-16"))
    (tmp_path / "ignored.csv").write_text("x\n")
    files = read_output_dir(tmp_path)
    assert sorted(files) == ["console.txt", "flatfile.html", "summary.html", "totals.html"]
    assert "十一月" in files["summary.html"] and "\r" not in files["summary.html"]
    assert files["console.txt"].strip("\ufeff") == "console\n"
    assert parse_output_dir(files)["summary"] == parsed(MULTI)["summary"]
    with pytest.raises(ParseError, match="not found"):
        read_output_dir(tmp_path / "missing")


# --- failed run -----------------------------------------------------------------------------

ERROR_MESSAGE = (
    "Undefined size for sd=sd1,lun=/srv/poc/luns/does_not_exist/lun_missing\n"
    "Either the lun or file does not exist, or you do not have permission to open the lun or "
    "file.\n"
    "No lun or file size available.\n"
    "failed at: Query host configuration started"
)


def test_vdbench_failure_gives_vdbench_message_without_stack_trace():
    files = files_of(ERROR)
    assert parse_totals(files["totals.html"]) == []
    assert parse_flatfile(files["flatfile.html"]) == []
    assert vdbench_failure(files, files["console.txt"]) == ERROR_MESSAGE
    without_console = {name: text for name, text in files.items() if name != "console.txt"}
    assert vdbench_failure(without_console) == ERROR_MESSAGE  # from logfile.html
    with pytest.raises(ParseError, match="No lun or file size available"):
        parse_vdbench_dir(DATA / ERROR)


@pytest.mark.parametrize("set_name", [name for name in SETS if name != ERROR])
def test_vdbench_failure_is_none_for_completed_runs(set_name):
    files = files_of(set_name)
    assert vdbench_failure(files, files.get("console.txt")) is None


def test_a_slave_s_own_error_is_quoted():
    """A real two-host run whose second host's sshd was down (vdbench-ssh/, see its
    PROVENANCE.md): vdbench says only "Slave h2-0 prematurely terminated"; the cause is in the
    slave's h2-0.stdout.html, quoted without its time stamp."""
    files = files_of("vdbench-ssh/two_hosts_slave_unreachable")
    assert "Connection refused" not in files["console.txt"] and "Connection refused" not in files["logfile.html"]
    failure = vdbench_failure(files, files["console.txt"])
    assert failure.splitlines() == [
        "Slave h2-0 prematurely terminated.",
        "Look at file h2-0.stdout.html for more information.",
        "Slave h2-0 prematurely terminated.",
        "failed at: Slave h1-0 (pid    915) connected to master 685",
        "slave h2-0 (h2-0.stdout.html): ssh: connect to host 10.231.29.12 port 2222: Connection refused"]
    without_console = {name: text for name, text in files.items() if name != "console.txt"}
    assert vdbench_failure(without_console).endswith("\nslave h2-0 (h2-0.stdout.html): ssh: connect to host "
                                                     "10.231.29.12 port 2222: Connection refused")  # logfile.html


def test_vdbench_failure_from_an_unfinished_status():
    status = load(RR, "status.html").splitlines(keepends=True)
    cut = [line for line in status if "Workload done" not in line][:14]
    failure = vdbench_failure({"status.html": "".join(cut)})
    assert failure is not None and failure.startswith("failed at: ")
    assert failure == "failed at: " + " ".join(cut[-1].split("\t")[1:]).strip()


# --- names ----------------------------------------------------------------------------------


def test_column_names():
    assert report_column_key("i/o", "rate") == "iops"
    assert report_column_key("MB/sec", "1024**2") == "mb_per_s"
    assert report_column_key("cpu%", "sys+u") == "cpu_sys_user_pct"
    assert report_column_key(".ReqstdOps...", "resp") == "reqstdops_resp_ms"
    assert report_column_key("..mb/sec...", "read") == "mb_read_per_s"
    assert report_column_key("...getattr...", "rate") == "getattr_rate"
    assert report_column_key(".xfer..", "size") == "xfer_size_bytes"
    expected = {"MB/sec": "mb_per_s", "bytes/io": "bytes_per_io", "read%": "read_pct",
                "resp": "resp_ms", "read_resp": "read_resp_ms", "resp_std": "resp_std_ms",
                "read_max": "read_max_ms", "Read_resp_max": "read_resp_max_ms",
                "Rate_std": "rate_std", "MB_read": "mb_read_per_s", "cpu_used": "cpu_used_pct",
                "lunsize": "lunsize_gb", "queue_depth": "queue_depth", "Xfersize": "xfersize"}
    assert {name: flatfile_column_key(name) for name in expected} == expected


# --- bad input ------------------------------------------------------------------------------


@pytest.mark.parametrize("parser", [parse_totals, parse_summary, parse_flatfile, parse_histogram])
@pytest.mark.parametrize("text", ["", "  \n\n", "hello world\n", "1 2 3\n4 5 6\n", "<html>\n"])
def test_empty_or_foreign_text_raises(parser, text):
    with pytest.raises(ParseError):
        parser(text)


def test_cut_mid_line_and_missing_lines_raise():
    text = load(MULTI, "summary.html")
    with pytest.raises(ParseError, match="middle of a line"):
        parse_summary(text[: text.index("189.45") + 3])
    lines = text.splitlines(keepends=True)
    third = next(i for i, line in enumerate(lines) if re.match(r"^\S+\s+3\s", line))
    with pytest.raises(ParseError, match="interval 4 where interval 3 was expected"):
        parse_summary("".join(lines[:third] + lines[third + 1:]))
    totals = load(MULTI, "totals.html").splitlines(keepends=True)
    start = [i for i, line in enumerate(totals) if "Starting RD" in line]
    with pytest.raises(ParseError, match="second avg_ line"):
        parse_totals("".join(totals[: start[1]] + totals[start[1] + 1:]))
    avg = next(i for i, line in enumerate(totals) if "avg_2-5" in line)
    with pytest.raises(ParseError, match="no avg_ line"):
        parse_totals("".join(totals[:avg] + totals[avg + 1:]))
    flat = load(MULTI, "flatfile.html").replace(
        "         3 9999988.0000", "         7 9999988.0000", 1
    )
    with pytest.raises(ParseError, match="interval 7 follows 2"):
        parse_flatfile(flat)
    with pytest.raises(ParseError, match="not a number"):
        parse_summary(text.replace("48500.00", "48500,00"))


def test_totals_without_header_use_the_documented_14_columns():
    text = load(MULTI, "totals.html")
    headerless = re.sub(r"Nov 21, 2026  interval.*\n.*\n", "", text)
    assert "interval" not in headerless
    assert parse_totals(headerless) == parse_totals(text)
    sweep = load(SWEEP, "totals.html")
    with pytest.raises(ParseError, match="14-column order"):  # 5.04.07 has 15 columns
        parse_totals(re.sub(r"Apr 18, 2019    interval.*\n.*\n", "", sweep))


CUT_CASES = [
    (MULTI, "totals.html", parse_totals),
    (MULTI, "summary.html", parse_summary),
    (MULTI, "hd1-0.html", parse_summary),
    (MULTI, "flatfile.html", parse_flatfile),
    (MULTI, "hd2.histogram.html", parse_histogram),
    (FSD_8HOST, "summary.html", parse_summary),
    (FSD_8HOST, "flatfile.html", parse_flatfile),
    (FSD_FORMAT, "totals.html", parse_totals),
    (IORATE, "totals.html", parse_totals),
]


@lru_cache(maxsize=None)
def full_parse(index: int) -> tuple[str, list[dict]]:
    set_name, name, parser = CUT_CASES[index]
    text = load(set_name, name)
    return text, parser(text)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_cut_fixtures_raise_or_parse_to_a_prefix(data):
    index = data.draw(st.integers(0, len(CUT_CASES) - 1), label="case")
    text, full = full_parse(index)
    ends = [match.end() for match in re.finditer("\n", text)]
    cut = data.draw(st.one_of(st.integers(0, len(text)), st.sampled_from(ends)), label="cut")
    parser = CUT_CASES[index][2]
    try:
        rows = parser(text[:cut])
    except ParseError:
        return
    assert rows == full[: len(rows)]


@settings(max_examples=150, deadline=None)
@given(raw=st.binary(max_size=400), pick=st.integers(0, 3))
def test_random_bytes_raise_parse_error(raw, pick):
    parser = (parse_totals, parse_summary, parse_flatfile, parse_histogram)[pick]
    text = raw.decode("latin-1")
    try:
        rows = parser(text)
    except ParseError:
        return
    assert rows == []  # e.g. a bare '<pre>' line is an empty vdbench file


def test_histogram_shares_from_the_printed_buckets():
    """multi_host/histogram.html, first run: the cum%% column at the 1, 2 and 4 ms bucket bounds."""
    from flashpoc.engines.vdbench.parse import histogram_shares, parse_histogram

    rows = parse_histogram((DATA / "vdbench" / "multi_host" / "histogram.html").read_text())
    first = [r for r in rows if r["run_index"] == 0]
    shares = histogram_shares(first, {"512us": 512, "1ms": 1000, "2ms": 2000, "4ms": 4000})
    rounded = {k: None if v is None else round(v, 4) for k, v in shares.items()}
    assert rounded["clat_under_1ms_pct"] == 99.5662 and rounded["clat_under_2ms_pct"] == 99.8533
    assert rounded["read_clat_under_1ms_pct"] == 99.5632 and rounded["write_clat_under_4ms_pct"] == 99.9318
    assert rounded["clat_under_512us_pct"] is None  # 0.400 < 0.600: 512 us is no bucket bound


def test_open_modes_from_the_slaves_stdout():
    """rr_threads_sweep (reads only): every "Opening sd=..." line says "write: false";
    four_workloads (random write in the same parmfile): "write: true", for all four sds."""
    from flashpoc.engines.vdbench.parse import open_modes, read_output_dir

    assert open_modes(read_output_dir(DATA / "vdbench" / "rr_threads_sweep")) == \
        {"sd1": False, "sd2": False, "sd3": False, "sd4": False}
    assert open_modes(read_output_dir(DATA / "vdbench" / "four_workloads")) == \
        {"sd1": True, "sd2": True, "sd3": True, "sd4": True}
    assert open_modes(read_output_dir(DATA / "vdbench" / "error_missing_lun")) == {}


# --- the fresh real runs ----------------------------------------------------------------------


def test_fresh_forthreads_run_of_the_real_vdbench():
    """rr_3threads_2s: the workbook's kind of parmfile (rd1 xfersize=4k forthreads=(1,2,4),
    elapsed=2) on a 32 MiB file; 5.04.06's avg_2-2 is the mean of intervals 1 and 2."""
    out = parse_output_dir(files_of(FRESH), expected_runs={"rd1": (1, 2, 4)})
    totals = out["totals"]
    assert [row["loop"] for row in totals] == [{"xfersize": "4k", "threads": n} for n in (1, 2, 4)]
    assert [row["iops"] for row in totals] == [19258.00, 26193.50, 35996.50]
    # 02:15:54.054   avg_2-2   35996.50   140.61    4096 100.00    0.094    0.094    0.000
    #    4.745    0.063   3.4  19.4  14.7
    assert metrics(totals[2]) == (
        35996.50, 140.61, 4096, 100.00, 0.094, 0.094, 0.000, 4.745, 0.063, 3.4, 19.4, 14.7
    )
    assert (totals[2]["interval_label"], totals[2]["elapsed_s"]) == ("avg_2-2", 2)
    intervals = [row["iops"] for row in out["summary"] if row["run_index"] == 0 and not row["is_avg"]]
    assert intervals == [18280.00, 20236.00] and sum(intervals) / 2 == totals[0]["iops"]
    assert out["opened"] == {"scratch": False} and out["unfinished"] == []


def test_fresh_run_with_vdbench_s_own_sd_format_run():
    """sd_format_then_rr_3threads: the same parmfile on a missing file; vdbench first runs its
    own RD=SD_format (128 KiB sequential writes: 256 x 128 KiB = the 32 MiB) and opens the
    file for writing, then rd1's three runs. SD_format is not in the parmfile's rds."""
    out = parse_output_dir(files_of(FORMAT), expected_runs={"rd1": (1, 2, 4)})
    totals = out["totals"]
    assert [row["rd"] for row in totals] == ["SD_format", "rd1", "rd1", "rd1"]
    fmt = totals[0]
    assert fmt["loop"] == {"threads": 2, "iorate": "max"} and fmt["elapsed_s"] is None  # elapsed=(none)
    assert fmt["interval_label"] == "avg_2-1"
    assert metrics(fmt) == (256.00, 32.00, 131072, 0.00, 0.258, 0.000, 0.258, 0.662, 0.135, 0.1, 12.5, 3.4)
    assert [row["iops"] for row in totals[1:]] == [17589.00, 26413.00, 36977.00]
    assert out["opened"] == {"scratch": True}
    sd_format_histogram = [row for row in out["histograms"]["histogram"] if row["run_index"] == 0]
    assert sd_format_histogram == []  # "No statistics generated for this run."


# --- corrupt, cut and disagreeing output sets ---------------------------------------------------
#
# A damaged output set must be refused, naming the file and what disagrees, or parse to the clean
# parse's numbers with some missing: never another number, never a run dropped without a word.


def replaced(set_name: str, name: str, old: str, new: str, count: int = 1) -> dict[str, str]:
    """The set's files with ``old`` replaced by ``new`` in ``name`` (``old`` must be there)."""
    text = files_of(set_name)[name]
    assert text.count(old) >= count, (name, old)
    return {**files_of(set_name), name: text.replace(old, new, count)}


def keyed(out: dict) -> dict:
    """parse_output_dir's rows keyed by what they are (run, interval, section, bucket), so that
    conftest.assert_no_other_number compares each number with the clean parse's same number."""
    def rows(found, *keys):
        return {"/".join(str(row.get(key)) for key in keys): row for row in found}

    return {
        "totals": rows(out["totals"], "run_index"),
        "summary": rows(out["summary"], "run_index", "interval"),
        "flatfile": rows(out["flatfile"], "run_index", "interval"),
        "hosts": {name: rows(found, "run_index", "interval") for name, found in out["hosts"].items()},
        "slaves": {name: rows(found, "run_index", "interval") for name, found in out["slaves"].items()},
        "histograms": {name: rows(found, "run_index", "section", "bucket_index")
                       for name, found in out["histograms"].items()},
    }


def assert_same_or_less(clean: dict, out: dict) -> None:
    """``out`` keeps every run of ``clean`` (or names it unfinished), the same hosts, slaves and
    open modes, and no number other than the clean parse's."""
    from conftest import assert_no_other_number

    runs = [(row["rd"], row["loop"]) for row in out["totals"]]
    lost = [(row["rd"], row["loop"]) for row in clean["totals"] if (row["rd"], row["loop"]) not in runs]
    assert len(lost) == len(out.get("unfinished", [])) - len(clean.get("unfinished", [])), f"runs dropped unnamed: {lost}"
    assert (set(out["hosts"]), set(out["slaves"])) == (set(clean["hosts"]), set(clean["slaves"]))
    assert any(out["opened"].values()) == any(clean["opened"].values())
    assert_no_other_number(keyed(clean), keyed(out))


HEADER = "interval        i/o   MB/sec   bytes   read"


@pytest.mark.parametrize(("set_name", "name", "old", "new", "which"), [
    (FRESH, "totals.html", HEADER, HEADER.replace("i/o", "i/p"), 0),  # issue 15: null IOPS, exit 0
    (FRESH, "summary.html", HEADER, HEADER.replace("MB/sec", "MB/seQ"), 0),
    (FRESH, "totals.html", "resp     resp queue", "resp     resp qu#ue", 0),
    (FSD_FORMAT, "totals.html", ".ReqstdOps.", ".ReqstdOpQ.", 0),  # file-system columns: any name
    (SWEEP, "totals.html", "read    write", "read    writQ", 1),  # the second of three headers
])
def test_a_renamed_header_column_is_refused(set_name, name, old, new, which):
    text = files_of(set_name)[name]
    at = -1
    for _ in range(which + 1):
        at = text.index(old, at + 1)
    with pytest.raises(ParseError, match=re.escape(name)):
        parse_output_dir({**files_of(set_name), name: text[:at] + new + text[at + len(old):]})


@lru_cache(maxsize=None)
def main_files(set_name: str) -> dict[str, str]:
    """The files that hold runs and numbers (no per-SD, per-host or per-slave reports)."""
    keep = ("totals.html", "summary.html", "flatfile.html", "logfile.html", "status.html", "histogram.html")
    return {name: text for name, text in files_of(set_name).items() if name in keep}


def test_every_byte_of_the_totals_header_flipped_is_refused_or_harmless():
    """Each byte of totals.html's two header lines overwritten by a letter or '#': refused, or
    (a byte of the date, a space that splits nothing) the clean numbers."""
    for set_name in (FRESH, FSD_FORMAT):
        files = main_files(set_name)
        clean = parse_output_dir(files)
        text = files["totals.html"]
        top = text.rindex("\n", 0, re.search(r"\.?interval\.?\s", text, re.IGNORECASE).start()) + 1
        end = text.index("\n", text.index("\n", top) + 1)
        for at in range(top, end):
            if text[at] == "\n":
                continue
            junk = "Q#"[at % 2]
            try:
                out = parse_output_dir({**files, "totals.html": text[:at] + junk + text[at + 1:]})
            except ParseError as error:
                assert "totals.html" in str(error)
                continue
            assert_same_or_less(clean, out)
            assert [row["iops"] for row in out["totals"]] == [row["iops"] for row in clean["totals"]]


def line_ends(text: str) -> list[int]:
    return [match.end() for match in re.finditer("\n", text)]


CUT_SETS = [FRESH, FORMAT, RR, MULTI, FSD_FORMAT, IORATE]


@pytest.mark.parametrize("name", ["totals.html", "summary.html"])
def test_a_file_cut_at_any_line_end_is_refused_or_loses_whole_runs_it_names(name):
    """Issue 15: a totals.html cut at a line end silently dropped runs (6 to 1, 3 to 0). Every
    cut of totals.html or summary.html is now refused naming the file, unless it cut only the
    lines after the last run (then the numbers are the clean ones)."""
    refused = 0
    for set_name in CUT_SETS:
        files = main_files(set_name)
        clean = parse_output_dir(files)
        text = files[name]
        for cut in line_ends(text):
            try:
                out = parse_output_dir({**files, name: text[:cut]})
            except ParseError as error:
                assert name in str(error), (set_name, cut, str(error))
                refused += 1
                continue
            assert_same_or_less(clean, out)
            assert out["unfinished"] == [] and len(out["totals"]) == len(clean["totals"])
    assert refused > 100


def test_a_cut_totals_alone_is_refused_against_the_parmfile_s_runs():
    """With no other file to compare, the runs the parmfile asked for (forthreads=(1,2,4)) still
    tell a cut: every cut before the last avg_ line is refused."""
    text = files_of(FRESH)["totals.html"]
    last_avg = text.rindex("avg_2-2")
    for cut in line_ends(text):
        files = {"totals.html": text[:cut]}
        if cut > last_avg:
            assert len(parse_output_dir(files, expected_runs={"rd1": (1, 2, 4)})["totals"]) == 3
            continue
        expected = (r"rd=rd1 at threads \[(1(, 2)?)?\], the parmfile asked for forthreads \(1, 2, 4\)"
                    if "Run totals" in files["totals.html"] else "not a vdbench report")
        with pytest.raises(ParseError, match=expected):
            parse_output_dir(files, expected_runs={"rd1": (1, 2, 4)})


def test_a_run_vdbench_stopped_during_is_named_not_dropped(tmp_path):
    """vdbench stopped during its last run (killed, a lost host): every file ends before that
    run's average. The run is named as unfinished, the others keep their numbers, and the
    workbook (which knows the parmfile's runs) and the CLI refuse the output."""
    stopped = {}
    for name, text in main_files(FRESH).items():
        if name in ("totals.html", "summary.html", "logfile.html", "flatfile.html"):
            cut = text.rindex("\n", 0, text.rindex("avg_2-2")) + 1
        elif name == "histogram.html":  # written at the end of each run
            cut = text.rindex("\n", 0, text.rindex("Starting RD=")) + 1
        elif name == "status.html":
            cut = text.index("\n", text.rindex("\tStarting\t")) + 1
        stopped[name] = text[:cut]
    out = parse_output_dir(stopped)
    assert out["unfinished"] == ["rd1 xfersize=4k threads=4"]
    assert [row["threads"] for row in out["totals"]] == [1, 2]
    assert_same_or_less(parse_output_dir(main_files(FRESH)), out)
    with pytest.raises(ParseError, match="did not finish rd1 xfersize=4k threads=4"):
        parse_output_dir(stopped, expected_runs={"rd1": (1, 2, 4)})
    for name, text in stopped.items():
        (tmp_path / name).write_text(text)
    with pytest.raises(ParseError, match="failed at: Starting rd=rd1 For loops: xfersize=4k threads=4"):
        parse_vdbench_dir(tmp_path)


def without_run(set_name: str, name: str, starting: str, following: str) -> dict[str, str]:
    """The set's files with one run's lines taken out of ``name``: from the first line with
    ``starting`` to the first line with ``following`` (the next run's start)."""
    text = files_of(set_name)[name]
    lines = text.splitlines(keepends=True)
    first = next(i for i, line in enumerate(lines) if starting in line)
    after = next(i for i, line in enumerate(lines) if following in line and i > first)
    return {**files_of(set_name), name: "".join(lines[:first] + lines[after:])}


@pytest.mark.parametrize("name", [
    "totals.html", "summary.html", "logfile.html", "histogram.html", "localhost.html",
    "localhost-0.html", "status.html", "flatfile.html",
])
def test_a_run_missing_from_one_file_is_refused_naming_it(name):
    """The middle run (threads=2) taken out of one file, present in all the others."""
    if name == "flatfile.html":
        rows = [row for row in parsed(FRESH)["flatfile"] if row["run_index"] == 1]
        lines = files_of(FRESH)[name].splitlines(keepends=True)
        damaged = "".join(line for line in lines if not any(line.startswith(row["tod"]) for row in rows))
        files = {**files_of(FRESH), name: damaged}
    elif name == "status.html":
        files = without_run(FRESH, name, "For loops: xfersize=4k threads=2", "For loops: xfersize=4k threads=4")
    else:
        files = without_run(FRESH, name, "Starting RD=rd1; I/O rate: Uncontrolled MAX; elapsed=2; For loops: "
                            "xfersize=4k threads=2", "xfersize=4k threads=4</b>" if name == "logfile.html"
                            else "Starting RD=rd1; I/O rate: Uncontrolled MAX; elapsed=2; For loops: "
                            "xfersize=4k threads=4")
    with pytest.raises(ParseError, match=re.escape(name)):
        parse_output_dir(files)


AVG_4 = "avg_2-2   35996.50   140.61    4096 100.00    0.094"


@pytest.mark.parametrize(("names", "old", "new", "message"), [
    (["totals.html"], AVG_4, AVG_4.replace("35996.50", "35996.58"),
     "totals.html and summary.html disagree on run 2 (rd1 xfersize=4k threads=4): "
     "iops is 35996.58 in totals.html, 35996.50 in summary.html"),
    (["summary.html"], AVG_4, AVG_4.replace("0.094", "0.095"), "totals.html and summary.html disagree"),
    (["summary.html"], "2   41926.00", "2   41929.00", "logfile.html and summary.html disagree on the line '2'"),
    (["totals.html", "summary.html"], AVG_4, AVG_4.replace("140.61", "140.81"),
     "logfile.html and summary.html disagree on the line 'avg_2-2'"),
    (["totals.html", "summary.html", "logfile.html"], AVG_4, AVG_4.replace("0.094", "0.095"),
     "flatfile.html and totals.html disagree on run 2 (rd1 xfersize=4k threads=4): resp_ms is 0.0938 "
     "in flatfile.html, resp_ms is 0.095 in totals.html"),
    (["flatfile.html"], "35996.5000", "35996.9000",
     "flatfile.html and totals.html disagree on run 2 (rd1 xfersize=4k threads=4): rate is 35996.9000 "
     "in flatfile.html, iops is 35996.50 in totals.html"),
])
def test_numbers_that_disagree_between_files_are_refused(names, old, new, message):
    """One number changed to another valid number (a digit for a digit), in one file or the same
    way in several: the other copies of that number tell, to the precision they print."""
    files = dict(files_of(FRESH))
    for name in names:
        assert old in files[name]
        files[name] = files[name].replace(old, new)
    with pytest.raises(ParseError, match=re.escape(message)):
        parse_output_dir(files)


@pytest.mark.parametrize(("name", "old", "new", "message"), [
    ("summary.html", "2   20236.00", "2   -0236.00", "not a number"),  # a minus sign over a digit
    ("summary.html", "2   20236.00", "2   2<b>6.00", "values, the column header has"),  # a tag
    ("summary.html", "2   20236.00", "2   2<x>6.00", "not a number"),
    ("totals.html", "elapsed=2; For loops: xfersize=4k threads=4",
     "elapsed=2#; For loops: xfersize=4k threads=4", "totals.html has run 2 as 'rd1 xfersize=4k threads=4', "
     "elapsed_s=None, summary.html, logfile.html and 6 more as 'rd1 xfersize=4k threads=4', elapsed_s=2"),
    ("totals.html", "For loops: xfersize=4k threads=4", "For loops: xfersize=4k threads=#4", "not a thread count"),
    ("summary.html", "02:15:51.052         2", "02:15:51.0#2         2", "a damaged time or interval label"),
    ("totals.html", "02:15:54.054   avg_2-2", "02:15:54.054   avg_2-#", "a damaged time or interval label"),
    ("histogram.html", "Only reads done for this workload:", "Only reads done for this workloaQ:",
     "unknown histogram section"),
    ("localhost-0.stdout.html", "write: false", "write: fQlse", "a damaged 'Opening sd=...; write: ...' line"),
    ("localhost.html", "Host summary report(s) for host=", "Host summQry report(s) for host=",
     "summary.html links localhost.html as a host report"),
    ("localhost-0.html", "Slave summary report for slave=", "Slave summQry report for slave=",
     "localhost.html links localhost-0.html as a slave report"),
])
def test_damage_that_used_to_change_or_drop_a_number_is_refused(name, old, new, message):
    """Damage the parser used to read as another number or skip: a minus sign (-236.0), an HTML
    tag inside a number (its halves joined: 26.00), a cut-short elapsed= (2# read as 2), a
    damaged time or label (the line skipped), an unknown histogram section (its buckets under no
    direction), a damaged Opening line or report title (skipped)."""
    files = replaced(FRESH, name, old, new)
    with pytest.raises(ParseError, match=re.escape(message)):
        parse_output_dir(files)


HYPOTHESIS_SETS = [FRESH, FORMAT, RR, MULTI, FSD_FORMAT, IORATE, FSD_8HOST, FSD_NVME]


@lru_cache(maxsize=None)
def number_files(set_name: str) -> dict[str, str]:
    """Every file that the parse reads (the per-SD and per-workload reports are not read)."""
    skip = re.compile(r"^(sd\d|wd\d|scratch|randread|SD_format|parm|skew|swat|errorlog)|var_adm")
    return {name: text for name, text in files_of(set_name).items() if not skip.search(name)}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_corrupted_output_set_loses_numbers_never_changes_one(data):
    """A byte (or a span of up to 32) of any file the parse reads overwritten as in the fio and
    AWR tests (conftest.corrupt), half of the time in totals.html, summary.html or flatfile.html:
    a ParseError, or the clean parse's numbers and runs."""
    from conftest import corrupt

    set_name = data.draw(st.sampled_from(HYPOTHESIS_SETS), label="set")
    files = number_files(set_name)
    name = data.draw(st.one_of(st.sampled_from(["totals.html", "summary.html", "flatfile.html"]),
                               st.sampled_from(sorted(files))), label="file")
    damaged = {**files, name: corrupt(data, files[name])}
    try:
        out = parse_output_dir(damaged)
    except ParseError:
        return
    assert_same_or_less(clean_parse(set_name), out)


@lru_cache(maxsize=None)
def clean_parse(set_name: str) -> dict:
    return parse_output_dir(number_files(set_name))


def test_a_host_vdbench_gave_no_thread_is_not_read_as_cut_off():
    """Real vdbench on two hosts, one SD, threads=1: vdbench spread the thread to h1's slave and
    logged "Workload removed, not enough threads for slave=h2-0"; h2's reports start that run
    and print no interval. That is not a cut file; without the logfile's line it would be."""
    files = read_output_dir(DATA / "vdbench-ssh" / "two_hosts_probe")
    out = parse_output_dir(files)
    assert [t["threads"] for t in out["totals"]] == [1, 2, 3]
    assert not any(r["is_avg"] and r["run_index"] == 0 for r in out["hosts"]["h2"])
    assert only(out["hosts"]["h1"], run_index=0, is_avg=True)["iops"] == only(out["totals"], threads=1)["iops"]
    unexplained = {**files, "logfile.html": files["logfile.html"].replace("Workload removed", "Workload kept")}
    with pytest.raises(ParseError, match=r"h2.*looks cut off"):
        parse_output_dir(unexplained)

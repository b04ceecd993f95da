"""Generated damage to every real fio output (tests/data/fio) through the readers the workbook
uses, with the one invariant of tests/damage.py: refused in one line, or exactly the clean
read's numbers, or a loss named in the result's ``damaged`` text.

Three readers: a fio JSON(+) document (every fixture, client/server ones included) parsed to
rows, histogram and the point's summary; a point as the measure loop reads it (fio's JSON+ and
its interval logs, any of which may be cut or removed); a fill's output.
"""

from __future__ import annotations

import csv
import json
import io
from functools import lru_cache
from pathlib import Path

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import TESTS, flat_numbers, quick_campaign
from damage import SIGN, TEXT_DAMAGE, assert_loses_never_changes, damage_files, damage_text
from flashpoc.engines.fio import measure as fio_measure
from flashpoc.engines.fio.intervals import read_interval_logs
from flashpoc.engines.fio.parse import (parse_fill_output, parse_fio_histogram, parse_fio_output,
                                        summarize_fio_point)
from flashpoc.engines.fio.run import FioRun
from flashpoc.core.errors import ParseError
from flashpoc.params import campaign_from_dict
from flashpoc.core.store import HISTOGRAM_FILE, INTERVALS_FILE

DATA = TESTS / "data" / "fio"
POINT_JOBS = {DATA / "point-fio-3.33": 3, DATA / "intervals-fio-3.33": 3, DATA / "steady-fio-3.33": 1}
"""Each point folder and the jobs fio ran (``numjobs``)."""
POINTS = sorted(POINT_JOBS)
DOCUMENTS = sorted([p for p in DATA.iterdir() if p.suffix in (".json", ".txt")] + [p / "out.json" for p in POINTS])
FILL = DATA / "fill-fio-3.33" / "fill.json"
OPTION_ECHOES = ("iodepth", "numjobs")
"""Row columns that echo the job file's options (``job options`` over ``global options``), not
measurements: a removed option line cannot be told, so they are left out of the comparison."""

KINDS = TEXT_DAMAGE + (SIGN,)
"""Every damage of tests/damage.py, a minus sign before a number too."""

def generated(examples: int):
    """Seeded (derandomized, no example database) and bounded: the whole module takes a few seconds."""
    return settings(max_examples=examples, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])


def source(path: Path) -> str:
    """The file name the damaged text names: the fixture's (``<folder>/out.json`` for a folder's)."""
    return path.name if path.parent == DATA else f"{path.parent.name}/{path.name}"


def read_document(text: str, name: str) -> dict:
    """What the workbook reads of one fio output: its rows, keyed by entry and direction, and the
    point's summary (with the JSON+ bins, when it has them)."""
    rows = parse_fio_output(text, source=name)
    histogram = parse_fio_histogram(text)
    return {"rows": {f"{r['entry_index']}/{r['direction']}": counted({k: v for k, v in r.items()
                                                                     if k not in OPTION_ECHOES})
                     for r in rows},
            "summary": counted(summarize_fio_point(rows, histogram))}


def counted(row: dict) -> dict:
    """``row`` with fio's steady-state verdict as 0 or 1, so that the invariant compares it too."""
    attained = row.get("steadystate_attained")
    return {**row, "steadystate_attained": None if attained is None else int(attained)}


@lru_cache(maxsize=None)
def clean_document(path: Path) -> tuple[str, dict]:
    text = path.read_bytes().decode("utf-8")
    return text, read_document(text, source(path))


@generated(150)
@given(data=st.data())
def test_a_damaged_fio_output_loses_numbers_and_says_so_never_changes_one(data):
    path = data.draw(st.sampled_from(DOCUMENTS), label="fixture")
    text, clean = clean_document(path)
    damaged, _ = damage_text(data, text, KINDS)
    assert_loses_never_changes(lambda: read_document(damaged, source(path)), clean, source(path))


@lru_cache(maxsize=None)
def interval_campaign():
    """A campaign whose points log fio's intervals every second after a 1 s ramp, as both folders'."""
    return campaign_from_dict(quick_campaign(Path("/nonexistent"), fio={"runtime_s": 4, "ramp_s": 1, "interval_s": 1}))


def point_files(folder: Path) -> dict[str, str]:
    """What the measure loop reads of one host's point: fio's JSON+ and its interval logs."""
    return {p.name: p.read_text() for p in sorted(folder.iterdir()) if p.name == "out.json" or p.suffix == ".log"}


def read_point(files: dict[str, str], jobs: int) -> dict:
    """The point as the measure loop reads it (:func:`flashpoc.engines.fio.measure._host_results`,
    host ``local``, fio's ``jobs`` jobs): its metrics, and its interval and histogram tables, keyed
    by their second and bin."""
    run = FioRun("local", "", files.get("out.json", ""), "", "cpu  1 0 1 8 0 0 0 0 0 0", "cpu  2 0 2 16 0 0 0 0 0 0",
                 5.0, {name: text for name, text in files.items() if name.endswith(".log")})
    _, metrics, raw = fio_measure._host_results(interval_campaign(), [run], "p", jobs=jobs)
    tables = {name: list(csv.DictReader(io.StringIO(text))) for name, text in raw.items()
              if name in (INTERVALS_FILE, HISTOGRAM_FILE)}
    return {"metrics": metrics,
            "intervals": {r["second"]: {k: float(v) for k, v in r.items() if k not in ("point_id", "warmup") and v}
                          for r in tables.get(INTERVALS_FILE, [])},
            "histogram": {f"{r['direction']}/{r['clat_us']}": float(r["count"]) for r in tables.get(HISTOGRAM_FILE, [])}}


@lru_cache(maxsize=None)
def clean_point(folder: Path) -> tuple[dict[str, str], dict]:
    files = point_files(folder)
    return files, read_point(files, POINT_JOBS[folder])


@generated(60)
@given(data=st.data())
def test_a_damaged_point_loses_numbers_and_names_the_file_never_changes_one(data):
    """fio's JSON+ of a point or one of its interval logs cut, emptied, changed or removed: the
    point is refused, or keeps the clean numbers, or names the damaged file (a log as
    ``<log> of <host>``, the output as ``<host>.json``)."""
    folder = data.draw(st.sampled_from(POINTS), label="point")
    files, clean = clean_point(folder)
    damaged, name, _ = damage_files(data, files, kinds=KINDS)
    named = "local.json" if name == "out.json" else name
    assert_loses_never_changes(lambda: read_point(damaged, POINT_JOBS[folder]), clean, named)


def test_both_points_are_read_whole():
    """The clean folders: no damage said, every window before the run's last (fio ran 4,005 and
    4,002 ms after its ramp: windows 1-3 of 1 s, seconds 2-4 after the ramp), the histogram
    holding every I/O fio counted."""
    for folder in (DATA / "point-fio-3.33", DATA / "intervals-fio-3.33"):
        files, point = clean_point(folder)
        assert "damaged" not in point["metrics"] and point["metrics"]["intervals"] == 3
        assert sorted(point["intervals"]) == ["2.0", "3.0", "4.0"]
        assert sum(point["histogram"].values()) == sum(r["total_ios"] for r in parse_fio_output(files["out.json"]))


def test_a_point_that_fio_s_steady_state_ended_between_two_windows_keeps_its_whole_window():
    """fio attained its steady state after 1,767 ms: window 1 (logged at 1,009 ms) is whole, the
    partial one after it is the run's last (not logged). The series was empty (every window
    before floor(1.767) - 1 = 0), so the point had no interval verdict; now it holds window 1, its
    IOPS as logged (2,397) and its latency (416,757 ns)."""
    files, point = clean_point(DATA / "steady-fio-3.33")
    assert "damaged" not in point["metrics"] and point["metrics"]["intervals"] == 1
    (window,) = point["intervals"].values()
    assert window["iops"] == 2397.0 and window["lat_mean_ms"] == 0.416757
    series, damage = read_interval_logs({n: t for n, t in files.items() if n.endswith(".log")}, window_ms=1000,
                                        runtime_ms=1767, jobs=1)
    assert damage == [] and [(r["second"], r["iops"]) for r in series] == [(1.0, 2397.0)]


def test_a_run_that_ends_late_as_its_many_jobs_stop_keeps_every_window_before_the_planned_run_s_last():
    """A 4 s demo point at 128 threads on a busy host (load 31): fio's JSON said 4,273 ms, and no
    job logged window 4 (the planned run's last). Taken as a 4,273 ms run, window 4 was a whole
    window every log lacked: the series and the verdict were lost. The real logs of a 4,005 ms run
    without their window-4 lines, read as that run: windows 1-3 as the whole logs give them, no
    damage; the planned length is what says window 4 is the run's last."""
    logs = {n: t for n, t in point_files(DATA / "point-fio-3.33").items() if n.endswith(".log")}
    clean, none = read_interval_logs(logs, window_ms=1000, runtime_ms=4005, jobs=3)
    assert none == [] and [r["second"] for r in clean] == [1.0, 2.0, 3.0]
    cut = {n: "".join(line for line in t.splitlines(keepends=True) if not line.startswith("4001,"))
           for n, t in logs.items()}
    assert cut != logs
    assert read_interval_logs(cut, window_ms=1000, runtime_ms=4273, jobs=3, planned_ms=4000) == (clean, [])
    _, damage = read_interval_logs(cut, window_ms=1000, runtime_ms=4273, jobs=3)
    # the jobs' logs that lack the same window are said once per kind of log, not once per job (324 jobs'
    # logs were 324 sentences a point, repeated in the report); job 3's iops log stamped window 4 at
    # 4,000 ms, kept by the cut
    lacks = ("has no line for window 4 of 1000 ms (a line lost, logged too late, or the log cut short?); "
             "the series leaves it out")
    assert damage == [("flashpoc_iops.{1-2}.log (2 logs)", lacks), ("flashpoc_lat.{1-3}.log (3 logs)", lacks)]


def test_an_empty_log_is_damage_only_where_the_run_was_long_enough_to_log_a_window():
    """fio 3.33 leaves the logs of a 1-s run with 1-s windows empty (the one window is the run's
    last): no series and nothing damaged. A run of 2 s should have logged window 1: its empty log
    is damage, named."""
    logs = {"flashpoc_iops.1.log": "", "flashpoc_lat.1.log": ""}
    assert read_interval_logs(logs, window_ms=1000, runtime_ms=1000, jobs=1) == ([], [])
    assert read_interval_logs(logs, window_ms=1000, runtime_ms=2001, jobs=1) == (
        [], [("flashpoc_iops.1.log", "is empty")])
    assert read_interval_logs(logs, window_ms=1000, jobs=1) == ([], [("flashpoc_iops.1.log", "is empty")])


@lru_cache(maxsize=None)
def clean_fill() -> tuple[str, dict]:
    text = FILL.read_text()
    return text, parse_fill_output(text)


@generated(40)
@given(data=st.data())
def test_a_damaged_fill_output_is_refused_or_read_whole(data):
    """The fill's output cut, emptied or changed: refused, or exactly the bytes fio wrote (a
    fill is never taken as done on another number)."""
    text, clean = clean_fill()
    damaged, _ = damage_text(data, text, KINDS)
    assert_loses_never_changes(lambda: parse_fill_output(damaged), clean, "fill.json",
                               numbers=lambda result: flat_numbers(result), loss_named=lambda result, name: False)


#: two hosts of a ``per-host`` point (after a 1 s ramp), each its own real recording
TWO_HOSTS = {"a": DATA / "point-fio-3.33" / "out.json", "b": DATA / "intervals-fio-3.33" / "out.json"}


def read_two_hosts(outputs: dict[str, str]) -> dict:
    """A ``per-host`` point of the two hosts as the measure loop reads it: its metrics (how far apart
    the hosts measured among them) and each host's summary. Each host's clock around its fio brackets
    its clean recording's measured window: 1.25 s before it (the ramp, and fio's start), 0.05 s after."""
    cfg = campaign_from_dict(quick_campaign(Path("/nonexistent"), hosts=[
        {"name": name, "address": "localhost", "workdir": "/nonexistent"} for name in TWO_HOSTS],
        fio={"runtime_s": 4, "ramp_s": 1, "interval_s": 0, "multi_host": "per-host"}))
    runs = []
    for name, path in TWO_HOSTS.items():
        clean = json.loads(path.read_text())
        runtime_ms = max(clean["jobs"][0][d]["runtime"] for d in ("read", "write"))
        window = ((clean["timestamp_ms"] - runtime_ms - 1250) * 1_000_000, (clean["timestamp_ms"] + 50) * 1_000_000)
        runs.append(FioRun(name, "", outputs.get(name, ""), "", "cpu  1 0 1 8 0 0 0 0 0 0",
                           "cpu  2 0 2 16 0 0 0 0 0 0", 5.0, {}, window))
    per_host, metrics, _ = fio_measure._host_results(cfg, runs, "p")
    return {"metrics": metrics, "hosts": per_host}


def test_two_hosts_measured_apart_by_their_recordings_own_figures():
    """The clean recordings: each host's window is fio's ``timestamp_ms`` less its runtime, and how far
    apart they measured is their windows' span less the shorter (the two were recorded days apart)."""
    point = read_two_hosts({name: path.read_text() for name, path in TWO_HOSTS.items()})
    assert "damaged" not in point["metrics"]
    assert (point["hosts"]["a"]["measured_from_s"], point["hosts"]["a"]["measured_to_s"]) == (1795784011.332,
                                                                                              1795784015.334)
    assert (point["hosts"]["b"]["measured_from_s"], point["hosts"]["b"]["measured_to_s"]) == (1795264214.426,
                                                                                              1795264218.431)
    apart_ms = 1795784015334 - 1795264214426 - 4002  # the later end less the earlier start, less the shorter window
    assert point["metrics"]["hosts_apart_s"] == apart_ms / 1000
    assert point["metrics"]["hosts_apart_pct"] == pytest.approx(100 * apart_ms / 4002)


@generated(40)
@given(data=st.data())
def test_a_damaged_host_output_loses_how_far_apart_the_hosts_measured_never_changes_it(data):
    """One host's fio output of a two-host ``per-host`` point cut, emptied or changed, anywhere or in
    its first lines (its version and its time stamps, which a damage drawn anywhere seldom hits):
    refused, or how far apart the hosts measured exactly as the clean outputs give it, or lost with
    the damaged output (``<host>.json``) named."""
    files = {name: path.read_text() for name, path in TWO_HOSTS.items()}
    clean = read_two_hosts(files)
    if data.draw(st.booleans(), label="in its first lines"):
        name = data.draw(st.sampled_from(sorted(files)), label="file")
        head = files[name].index('"global options"')
        damaged = {**files, name: damage_text(data, files[name][:head], KINDS)[0] + files[name][head:]}
    else:
        damaged, name, _ = damage_files(data, files, removable=False, kinds=KINDS)
    assert_loses_never_changes(lambda: read_two_hosts(damaged), clean, f"{name}.json")


# --- each defect found, kept as a test (each failed before its fix) ------------------------------

F_37_CLIENTS = "fio-3.7_client_server_2hosts_5jobs_client_stats_with_text_preamble.txt"
F_31_GROUP = "fio-3.1_randread_4k_iodepth16_numjobs8_group_reporting.json"
F_333_JSONPLUS = "fio-3.33_randread_4k_numjobs4_group_reporting_jsonplus.json"
F_333_RANDRW = "fio-3.33_randrw70_8k_2jobs_io_uring.json"


def edited(name: str, old: str, new: str = "", count: int = 1) -> str:
    """The fixture ``name`` with ``old`` (which must be there) replaced by ``new``."""
    text = (DATA / name).read_bytes().decode("utf-8")
    assert text.count(old) >= count, old
    return text.replace(old, new, count)


def without_line(name: str, line: str) -> str:
    """The fixture ``name`` with its first line holding ``line`` removed (``line removed``)."""
    text = (DATA / name).read_bytes().decode("utf-8")
    lines = text.splitlines(keepends=True)
    at = next(i for i, text_line in enumerate(lines) if line in text_line)
    return "".join(lines[:at] + lines[at + 1:])


@pytest.mark.parametrize(("name", "old", "new", "message"), [
    # issue 28: 7951 changed to 7151 while total_ios (119305) and runtime (15005 ms) are unchanged
    (F_37_CLIENTS, '"iops" : 7951.016328', '"iops" : 7151.016328',
     "client_stats[0].read: iops 7151.016328 is not 1000 x total_ios / runtime (1000 x 119305 / 15005 ms = "
     "7951.016328)"),
    (F_37_CLIENTS, '"iops" : 7951.016328', '"iops" : 7951.016338', "iops 7951.016338 is not"),  # its last digit
    (F_37_CLIENTS, '"bw" : 31812', '"bw" : 31872', "client_stats[0].read: bw 31872 KiB/s is not 1000 x io_bytes"),
    (F_37_CLIENTS, '"bw_bytes" : 32576098', '"bw_bytes" : 32576598', "bw_bytes 32576598 is not"),
    (F_37_CLIENTS, '"io_kbytes" : 477348', '"io_kbytes" : 477848', "io_kbytes 477848 is not io_bytes"),
    (F_333_RANDRW, '"total_ios" : 89091', '"total_ios" : 89591', "jobs[0].read: iops 17814.637073 is not 1000 x total_ios"),
    (F_37_CLIENTS, '"runtime" : 15005', '"runtime" : 15085', "is not 1000 x io_bytes / runtime"),
    # a minus sign over the space before a figure: valid JSON, another number
    (F_333_RANDRW, '"usr_cpu" : 2.380000', '"usr_cpu" :-2.380000', "jobs[0].usr_cpu is -2.38: fio prints it unsigned"),
    (F_333_JSONPLUS, '"stddev" : 97571.072342', '"stddev" :-97571.072342', "is -97571.072342: fio prints it unsigned"),
    ("fio-2.1.4_legacy_5jobs_usec_clat.json", '"groupid" : 1,', '"groupid" :-1,',  # found by the generated test
     "jobs[1].groupid is -1: fio prints it unsigned"),
])
def test_a_figure_fio_prints_twice_changed_is_refused(name, old, new, message):
    """A figure changed into another valid number where fio derives it from others it prints
    (iops from total_ios and runtime, bw and bw_bytes from io_bytes and runtime, io_kbytes from
    io_bytes, All clients from the clients), or made negative: refused, naming the figure. Each
    was read as printed before."""
    with pytest.raises(ParseError, match=re.escape(message)):
        parse_fio_output(edited(name, old, new))


def test_all_clients_that_is_not_the_clients_sum_or_whose_name_is_damaged_is_refused():
    """fio's All clients entry counts the clients' I/Os; with its total changed (and its iops to
    match) it is refused, and with its name damaged it is not counted as a twelfth client."""
    total = edited(F_37_CLIENTS, '"total_ios" : 1401141', '"total_ios" : 1401142')
    with pytest.raises(ParseError, match=r"client_stats\[10\]\.read\.total_ios 1401142 is not the clients' sum \(1401141\)"):
        parse_fio_output(total.replace('"iops" : 93198.150858', '"iops" : 93198.217367'))
    with pytest.raises(ParseError, match=r"client_stats\[10\] \('All c#ients'\) counts the other entries' I/Os"):
        parse_fio_output(edited(F_37_CLIENTS, '"jobname" : "All clients"', '"jobname" : "All c#ients"'))
    with pytest.raises(ParseError, match=r"client_stats\[10\] has no jobname"):
        parse_fio_output(without_line(F_37_CLIENTS, '"jobname" : "All clients"'))


def test_a_removed_io_kbytes_line_no_longer_reads_bytes_as_kib():
    """fio 3.1's ``io_kbytes`` line removed: io_bytes was taken for fio 2.x's KiB (10,404,495,360
    read as 10,654,203,248,640 bytes); bw against runtime says bytes."""
    (row,) = parse_fio_output(without_line(F_31_GROUP, '"io_kbytes" : 10160640'), source=F_31_GROUP)
    assert row["io_bytes"] == 10404495360 and row["damaged"] is None


@pytest.mark.parametrize(("line", "lost", "said"), [
    ('"99.900000" : 468992', "clat_p99_9_us", "jobs[0].read.clat_ns.percentile has no 99.9 (lost: clat_p99_9_us)"),
    ('"99.900000" : 468992', "clat_p99_9_us", None),  # the key overwritten: '-9.900000' was skipped as padding
    ('"max" : 22661957', "lat_max_us", "jobs[0].read.lat_ns has no 'max' (lost: lat_max_us)"),
    ('"mean" : 119747.565180', "clat_mean_us", "jobs[0].read.clat_ns has no 'mean' (lost: clat_mean_us)"),
    ('"total_ios" : 146495', "total_ios", "jobs[0].read has no 'total_ios' (iops not cross-checked) (lost: total_ios)"),
    ('"usr_cpu" : ', "usr_cpu_pct", "jobs[0] has no 'usr_cpu' (lost: usr_cpu_pct)"),
    ('"error" : 0', "error", "jobs[0] has no 'error' (lost: error)"),
])
def test_a_figure_whose_line_is_lost_is_lost_and_named(line, lost, said):
    """A line of fio's JSON+ removed (or its key damaged) where fio prints the figure in every
    output: the row's figure is None and its ``damaged`` names the file and the figure (each
    was a silent None before)."""
    text = (without_line(F_333_JSONPLUS, line) if said is not None
            else edited(F_333_JSONPLUS, '"99.900000" : 468992', '"-9.900000" : 468992'))
    (row,) = parse_fio_output(text, source="local.json")
    assert row[lost] is None
    assert row["damaged"].startswith("local.json: ")
    assert (said or "has key '-9.900000', not a percent") in row["damaged"]
    clean = parse_fio_output((DATA / F_333_JSONPLUS).read_text())[0]
    assert {k: v for k, v in row.items() if k not in (lost, "damaged")} == {
        k: v for k, v in clean.items() if k not in (lost, "damaged")}


def test_a_line_moved_into_another_object_loses_its_figure_and_says_so():
    """Lines 19 and 20 swapped (found by the generated test): ``"error" : 0`` lands in ``job
    options`` (valid JSON): the entry's error is lost and named, not read as no error."""
    name = "fio-3.33_client_server_2hosts_group_reporting.json"
    lines = (DATA / name).read_text().splitlines(keepends=True)
    assert '"error" : 0' in lines[18] and '"job options"' in lines[19]
    rows = parse_fio_output("".join(lines[:18] + [lines[19], lines[18]] + lines[20:]), source=name)
    assert rows[0]["error"] is None
    assert rows[0]["damaged"] == f"{name}: client_stats[0] has no 'error' (lost: error)"


def test_a_lost_figure_of_one_job_is_lost_in_the_summary_not_the_others_mean():
    """Job 1's sys_cpu line removed: the point's sys CPU was job 0's alone (13.98 for 13.78); now
    it is lost, and the summary names the file. Job 0's p90 line removed: the p90 estimate over
    the jobs is lost, not job 1's alone."""
    rows = parse_fio_output(without_line(F_333_RANDRW, '"sys_cpu" : 13.580000'), source="out.json")
    summary = summarize_fio_point(rows)
    assert summary["sys_cpu_pct"] is None and summary["usr_cpu_pct"] == pytest.approx((2.38 + 2.8) / 2)
    assert summary["damaged"] == "out.json: jobs[1] has no 'sys_cpu' (lost: sys_cpu_pct)"
    clean = summarize_fio_point(parse_fio_output((DATA / F_333_RANDRW).read_text()))
    rows = parse_fio_output(without_line(F_333_RANDRW, '"90.000000"'), source="out.json")
    summary = summarize_fio_point(rows)
    assert summary["clat_p90_ms"] is None and clean["clat_p90_ms"] is not None
    assert summary["read_clat_p99_ms"] == clean["read_clat_p99_ms"]


def test_a_lost_json_plus_bin_leaves_the_histogram_out_and_says_so():
    """One bin line of fio's JSON+ removed: its bins no longer count total_ios (146,495) I/Os.
    They were merged as they were (the shares and p99.9 from 146,491 I/Os); now the histogram is
    left out, the shares are lost, the printed percentiles stand, and the row says why."""
    text = without_line(F_333_JSONPLUS, '"788" : 1,')
    rows = parse_fio_output(text, source="local.json")
    assert parse_fio_histogram(text) == []
    assert rows[0]["damaged"] == ("local.json: jobs[0].read.clat_ns.bins hold 146494 I/Os, total_ios 146495: "
                                  "the histogram is left out")
    summary = summarize_fio_point(rows, parse_fio_histogram(text))
    assert summary["clat_under_1ms_pct"] is None and summary["clat_p99_9_ms"] == 468992 / 1e6
    changed = edited(F_333_JSONPLUS, '"99.900000" : 468992', '"99.900000" : 460992')
    assert "jobs[0].read.clat_ns.bins give percentile 99.9 as 468992, fio printed 460992" in parse_fio_output(
        changed)[0]["damaged"]


F_333_STEADY = "fio-3.33_randread_steadystate_iops_slope.json"


@pytest.mark.parametrize(("old", "new", "said"), [
    ('"attained" : 1', '"attained" : 0', "attained 0 but the criterion -0.002276% is below iops_slope:0.300000%"),
    ('"ss" : "iops_slope:0.300000%"', '"ss" : "iops_slope:0.000300%"',
     "attained 1 but the criterion -0.002276% is not below iops_slope:0.000300%"),
    ('"criterion" : "-0.002276%"', '"criterion" : "-0.002876%"',
     "criterion -0.002876 is not slope -1.200000 in percent of the mean"),
    ('"criterion" : "-0.002276%"', '"criterion" : "-0.0022#6%"', "criterion '-0.0022#6%' is not a criterion fio"),
    ('"attained" : 1', '"attained" :-1', "attained -1 is not 0 or 1"),
    ('"slope" : -1.200000', '"slope" : -1.800000', "slope -1.8 is not the data's (-1.200000)"),
    ('54633', '54933', "data.iops_mean 52722 is not the mean of its 5 values"),
    ('"iops_mean" : 52722', '"iops_mean" : 52782', "data.iops_mean 52782 is not the mean"),
])
def test_a_changed_steady_state_figure_loses_the_verdict_and_says_so(old, new, said):
    """fio's steady state (``--ss``) prints its verdict (attained), the criterion and the data it
    computed it from: one of them changed (a digit, a sign) loses the point's fio verdict and the
    criterion, named; each was read as printed before (a point said steady that fio did not)."""
    (row,) = parse_fio_output(edited(F_333_STEADY, old, new), source="out.json")
    assert row["steadystate_attained"] is None and row["steadystate_criterion"] is None
    assert row["damaged"].startswith("out.json: jobs[0].steadystate")
    assert said in row["damaged"] and row["damaged"].endswith("(lost: steadystate_attained, steadystate_criterion)")
    assert summarize_fio_point([row])["steadystate_attained"] is None
    assert parse_fio_output(edited(F_333_STEADY, old, old))[0]["steadystate_attained"] is True


def test_a_zero_percentile_among_printed_ones_is_lost_and_named():
    """fio prints 0 for percentiles it did not compute, all of them; one 0 among the others (p99
    at 0 after p95 at 552,960 ns) is damage: that one is lost and the row says so (it was a
    silent None)."""
    (row,) = parse_fio_output(edited(F_31_GROUP, '"99.000000" : 173015040', '"99.000000" : 0'), source="out.json")
    assert row["clat_p99_us"] is None and row["clat_p95_us"] == 552.96
    assert row["damaged"] == ("out.json: jobs[0].read.clat_ns.percentile: percentile 99 (0) is below percentile "
                              "95 (552960) (lost: clat_p99_us)")


def test_a_fill_whose_error_key_is_damaged_is_refused():
    """A fill job's ``error`` key damaged: it was read as no error (the fill taken as done)."""
    with pytest.raises(ParseError, match=r"jobs\[1\] \(data2\): error is None, not fio's error number"):
        parse_fill_output(edited("fill-fio-3.33/fill.json", '"error" : 0', '"err#r" : 0', 2).replace(
            '"err#r" : 0', '"error" : 0', 1))


def test_a_fill_whose_bytes_disagree_with_its_bandwidth_is_refused():
    """A fill's write.io_bytes changed (8 MiB to 18 MiB): its bw over its runtime tells."""
    with pytest.raises(ParseError, match=r"jobs\[0\]\.write: bw 315076 KiB/s is not 1000 x io_bytes / runtime "
                                         r"\(18388608 bytes in 26 ms, 690677 KiB/s\)"):
        parse_fill_output(edited("fill-fio-3.33/fill.json", '"io_bytes" : 8388608', '"io_bytes" : 18388608'))


VERDICT_LOST = ("(lost: intervals, interval_iops_cv_pct, interval_iops_drift_pct, interval_steady, "
                "snia_round_intervals, snia_mean_iops, snia_data_excursion_iops, snia_data_excursion_pct, "
                "snia_data_allowed_iops, snia_slope_excursion_iops, snia_slope_excursion_pct, "
                "snia_slope_allowed_iops, snia_fit_slope_iops, snia_fit_intercept_iops, snia_steady)")
"""What the row says a damaged interval log lost: the interval verdict, which is over the whole series."""


@pytest.mark.parametrize(("name", "damage", "said"), [
    ("flashpoc_lat.2.log", lambda text: "", "flashpoc_lat.2.log of local: is empty"),
    ("flashpoc_lat.3.log", lambda text: text.replace("2001, 1112287, 1", "2001, 11#2287, 1"),
     "flashpoc_lat.3.log of local: line 4 is not 'time, value, direction, ...': '2001, 11#2287, 1, 0, 0'"),
])
def test_an_unreadable_interval_log_loses_the_series_and_names_the_log(name, damage, said):
    """One job's log emptied or with a line damaged: the point keeps its numbers, and loses its
    interval series and verdict, which the row names. They were computed over the windows left
    (an emptied log: 0 intervals) unsaid."""
    files, clean = clean_point(DATA / "point-fio-3.33")
    point = read_point({**files, name: damage(files[name])}, 3)
    assert point["metrics"]["damaged"] == f"{said} {VERDICT_LOST}"
    assert point["metrics"]["intervals"] is None and point["intervals"] == {}
    assert point["metrics"]["iops"] == clean["metrics"]["iops"] and point["histogram"] == clean["histogram"]


@pytest.mark.parametrize(("name", "damage", "said", "kept"), [
    ("flashpoc_iops.3.log", lambda text: "".join(text.splitlines(keepends=True)[:5]),  # cut after window 3's read
     "flashpoc_iops.3.log of local: has no write line for window 3 of 1000 ms", ["2.0", "3.0"]),
    ("flashpoc_iops.3.log", lambda text: "".join(text.splitlines(keepends=True)[:2]),  # cut after window 1
     "flashpoc_iops.3.log of local: has no line for windows 2-3 of 1000 ms", ["2.0"]),
    ("flashpoc_iops.1.log", lambda text: text.replace("2000, 559, 1, 0, 0\n", ""),
     "flashpoc_iops.1.log of local: has no write line for window 2 of 1000 ms", ["2.0", "4.0"]),
])
def test_an_interval_log_that_lacks_windows_loses_them_and_the_verdict(name, damage, said, kept):
    """One job's log cut short or with a line lost: the windows it lacks are lost, named; the
    other windows are kept with their numbers as the whole logs give them; the verdict, over the
    whole series, is lost. The whole series was lost."""
    files, clean = clean_point(DATA / "point-fio-3.33")
    point = read_point({**files, name: damage(files[name])}, 3)
    assert point["metrics"]["damaged"].startswith(said)
    assert point["metrics"]["damaged"].endswith(f"the series leaves it out {VERDICT_LOST}")
    assert point["metrics"]["intervals"] is None
    assert point["intervals"] == {second: clean["intervals"][second] for second in kept}
    assert point["metrics"]["iops"] == clean["metrics"]["iops"] and point["histogram"] == clean["histogram"]


def test_a_window_fio_logged_late_is_its_own_window():
    """fio logs a window at its end, later on a busy host (2150 ms for the window ending at 2000):
    that line is window 2's. It was filed under window 3, whose sum then held job 1's window 2
    (200 + 30 for 300 + 30), and window 2 was left out."""
    logs = {"a_iops.1.log": "1000, 100, 0\n2150, 200, 0\n3000, 300, 0\n4000, 400, 0\n",
            "a_iops.2.log": "1000, 10, 0\n2000, 20, 0\n3000, 30, 0\n4000, 40, 0\n",
            "a_lat.1.log": "1000, 1000, 0\n2150, 1000, 0\n3000, 1000, 0\n4000, 1000, 0\n",
            "a_lat.2.log": "1000, 1000, 0\n2000, 1000, 0\n3000, 1000, 0\n4000, 1000, 0\n"}
    rows, damage = read_interval_logs(logs, window_ms=1000, runtime_ms=4001)
    assert damage == []
    assert [(r["second"], r["iops"]) for r in rows] == [(1.0, 110.0), (2.0, 220.0), (3.0, 330.0)]


def test_a_figure_one_host_lost_is_lost_for_the_point_not_the_other_host_s():
    """Two hosts, one whose output lost its mean latency: the point's was the other host's alone;
    now it is lost, and the point's ``damaged`` carries the host's."""
    a = {"iops": 100.0, "lat_mean_ms": 1.0, "clat_p99_ms": 2.0, "fio_version": "fio-3.33"}
    b = {"iops": 300.0, "lat_mean_ms": None, "clat_p99_ms": 4.0, "fio_version": "fio-3.33",
         "damaged": "b.json: jobs[0].read.lat_ns has no 'mean' (lost: lat_mean_us)"}
    point = fio_measure._aggregate_hosts({"a": a, "b": b})
    assert point["lat_mean_ms"] is None and point["clat_p99_ms"] == 3.5 and point["iops"] == 400.0
    assert point["damaged"] == b["damaged"]


# --- the real fio: a point whose output arrives damaged, through the measure loop --------------------


def test_a_real_fio_point_whose_output_is_damaged_is_refused_or_stored_with_its_loss_named(tmp_path, monkeypatch):
    """Real fio runs each point; what it printed is damaged on its way back (an interval log
    emptied, the JSON cut short) before the measure loop reads it. The point with the damaged
    log is stored with its numbers, no series and a ``damaged`` that names the log (points.csv
    too); the one with the cut JSON is refused and nothing is stored for it."""
    import dataclasses

    import pandas as pd

    from conftest import require_fio
    from flashpoc import phases

    require_fio()
    cfg = campaign_from_dict(quick_campaign(tmp_path, fio={"runtime_s": 3, "ramp_s": 1, "interval_s": 1}))
    assert phases.run_check(cfg).query("status == 'fail'").empty
    real, damage = fio_measure.run_fio_job, {}

    def run_damaged(*args, **kwargs):
        return damage["now"](real(*args, **kwargs))

    monkeypatch.setattr(fio_measure, "run_fio_job", run_damaged)
    damage["now"] = lambda run: dataclasses.replace(run, logs={**run.logs, "flashpoc_lat.1.log": ""})
    row = phases.run_sweep(cfg, {"randread-4k": [1]}, progress=False).iloc[0]
    assert row["damaged"].startswith("flashpoc_lat.1.log of local: is empty (lost: intervals, ")
    assert pd.isna(row["intervals"]) and row["iops"] > 0
    points_dir = tmp_path / "results" / "quick" / "points" / "sweep" / row["point_id"]
    stored = json.loads((points_dir / "point.json").read_text())
    assert stored["damaged"] == row["damaged"] and not (points_dir / "intervals.csv").exists()
    assert "damaged" in pd.read_csv(tmp_path / "results" / "quick" / "points.csv").columns

    damage["now"] = lambda run: dataclasses.replace(run, output=run.output[: len(run.output) // 2])
    with pytest.raises(ParseError, match="fio JSON is truncated"):
        phases.run_sweep(cfg, {"randread-4k": [2]}, progress=False)
    assert [p.name for p in points_dir.parent.iterdir()] == [row["point_id"]]


def test_a_window_fio_logged_late_on_a_busy_host_before_the_run_s_end_is_its_window():
    """Real logs of a starved fio (tests/data/fio/late-window-fio-3.33): both iops logs log the
    window ending at 7,000 ms at 7,430 ms, 582 ms before the run's end (8,012 ms). That line was
    taken for the run's last, partial window, so window 7 was missing and the whole series lost:
    now it is window 7's, and the series holds windows 1-7 as the logs give them."""
    folder = DATA / "late-window-fio-3.33"
    logs = {p.name: p.read_text() for p in folder.glob("*.log")}
    rows, damage = read_interval_logs(logs, window_ms=1000, fio_version="fio-3.33", runtime_ms=8012, jobs=2)
    assert damage == [] and [r["second"] for r in rows] == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
    seventh = rows[-1]
    assert (seventh["read_iops"], seventh["write_iops"], seventh["iops"]) == (2185 + 2126, 964 + 912, 6187)
    assert seventh["read_lat_mean_ms"] == pytest.approx((2185 * 192386 + 2126 * 197564) / 4311 / 1e6, rel=1e-12)
    assert seventh["write_lat_mean_ms"] == pytest.approx((964 * 589669 + 912 * 625302) / 1876 / 1e6, rel=1e-12)
    assert rows[0]["iops"] == 2874 + 1188 + 2701 + 1121
    # a line that late at the run's end is the run's last window; the series ends before it
    ended = {name: text.replace("7430, ", "7850, ") if "_iops." in name else text for name, text in logs.items()}
    rows, damage = read_interval_logs(ended, window_ms=1000, fio_version="fio-3.33", runtime_ms=8012, jobs=2)
    assert [r["second"] for r in rows] == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    assert damage == [("flashpoc_iops.{1-2}.log (2 logs)", "has no line for window 7 of 1000 ms (a line lost, "
                                                           "logged too late, or the log cut short?); the series leaves it out")]

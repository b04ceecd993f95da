"""The REAL vdbench (tests/conftest.py ``real_vdbench()``: `make test` installs it from the
engine kit; without it, or without Java, these tests skip saying so) on local scratch files.

Kept short: 2-second runs of 1-second intervals, 1-2 threads, files of 16 MiB. What they show
is vdbench's own behaviour: the numbers the workbook stores are those of vdbench's totals.html,
its histogram counts the warm-up its average leaves out, it formats (writes) a missing or short
file even in a read-only parmfile, and it names its curve steps ``rd1_(50%)``.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import zlib
from pathlib import Path

import pandas as pd
import pytest
import yaml

from conftest import ctrl_c_once, processes_in, real_vdbench, running_in
from flashpoc import phases
from flashpoc.engines.vdbench import measure as phases_vdbench
from flashpoc.core.errors import CheckFailed, RemoteError
from flashpoc.params import campaign_from_dict
from flashpoc.engines.vdbench.plan import sweep_run

MIB = 1024**2


def campaign_values(tmp_path: Path, **overrides) -> dict:
    """A read-only campaign of 4K random reads on two 16 MiB scratch files, 2-second points."""
    values = {
        "campaign": "real",
        "engine": "vdbench",
        "hosts": [{"name": "local", "address": "localhost", "vdbench": str(real_vdbench()),
                   "workdir": str(tmp_path / "work")}],
        "targets": [{"name": f"sd{i}", "path": str(tmp_path / f"sd{i}.dat"), "size": "16m", "create": True}
                    for i in (1, 2)],
        "vdbench": {"elapsed_s": 2, "interval_s": 1, "openflags": "o_direct"},
        "workloads": [{"name": "rr", "rw": "randread", "bs": "4k"}],
        "probe": {"strategy": "adaptive", "min_threads": 1, "max_threads": 2},
        "sweep": {"plan": "guide", "max_threads": 2, "step": 1},
        "results_dir": str(tmp_path / "results"),
        "report": {"pdf": False},  # the PDF is read where it is tested (tests/report)
    }
    values.update(overrides)
    return values


def totals_avg_lines(totals_html: str) -> dict[tuple[str, int], list[str]]:
    """vdbench's own avg lines, as printed, keyed by (run name, threads) from the ``Starting
    RD=`` line above each: [rate, MB/s, bytes/io, read %, resp, read resp, write resp, resp max,
    resp stddev, queue depth, cpu% sys+u, cpu% sys]."""
    out, run = {}, None
    for line in re.sub(r"<[^>]+>", "", totals_html).splitlines():
        start = re.search(r"Starting RD=([^;]+);.*For loops:.*threads=(\d+)", line)
        if start:
            run = (start.group(1), int(start.group(2)))
        elif re.match(r"^\S+\s+avg_\d+-\d+\s", line):
            out[run] = line.split()[2:]
    return out


def test_the_four_phases_through_flashpoc_run(tmp_path):
    """check, probe, sweep and report through `flashpoc run` (papermill) on the real vdbench, with
    compratio 2 and iorate: curve. Every stored number is vdbench's own avg line; the probe is a
    thread fit at full speed with a warm-up; each curve step is its own point; the scratch files
    hold vdbench's compressible data; the rows say which intervals the average and the histogram
    count (the histogram counts the warm-up too)."""
    values = campaign_values(tmp_path, vdbench={"elapsed_s": 2, "interval_s": 1, "openflags": "o_direct",
                                                "compratio": 2, "iorate": "curve", "curve": [50]})
    params = tmp_path / "real.yaml"
    params.write_text(yaml.safe_dump(values))
    out = subprocess.run([sys.executable, "-m", "flashpoc.cli", "run", str(params)], capture_output=True, text=True,
                         timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    root = tmp_path / "results" / "real"
    groups = {phase: sorted((root / "points" / phase).iterdir()) for phase in ("probe", "sweep")}
    rows = {phase: [r for g in dirs for r in json.loads((g / "points.json").read_text())]
            for phase, dirs in groups.items()}

    # every number is vdbench's own, from totals.html's avg line of the same run
    for phase, dirs in groups.items():
        for group in dirs:
            printed = totals_avg_lines((group / "output__totals.html").read_text())
            for row in json.loads((group / "points.json").read_text()):
                line = printed[(row["vdbench_rd"], row["threads"])]
                assert [row[k] for k in ("iops", "bw_mibps", "lat_mean_ms", "read_lat_mean_ms", "lat_max_ms",
                                         "lat_stddev_ms", "queue_depth", "host_cpu_busy_pct")] == \
                    [float(line[i]) for i in (0, 1, 4, 5, 7, 8, 9, 10)], (phase, row["point_id"])
                assert row["read_iops"] == row["iops"] and row["opened_for_write"] is False

    # the probe: iorate=max whatever the sweep's iorate; warmup= on every invocation
    for group in groups["probe"]:
        rd_line = next(x for x in (group / "parmfile").read_text().splitlines() if x.startswith("rd="))
        assert ",iorate=max," in rd_line and ",warmup=2," in rd_line and "curve" not in rd_line
    assert ",warmup=2," in (groups["sweep"][0] / "parmfile").read_text()
    probe = json.loads((root / "probe.json").read_text())
    assert sorted(p["threads"] for p in probe["points"]) == [1, 2]
    assert {r["vdbench_rd"] for r in rows["probe"]} == {"rd1"} and len(groups["probe"]) == 1

    # the sweep: each thread count at full speed, then at 50 % of it: four points, each its own
    sweep = {(r["threads"], r["curve_pct"]): r for r in rows["sweep"]}
    assert sorted(sweep, key=str) == sorted([(1, None), (1, 50.0), (2, None), (2, 50.0)], key=str)
    assert len({r["point_id"] for r in rows["sweep"]}) == 4
    for threads in (1, 2):
        step, full = sweep[(threads, 50.0)], sweep[(threads, None)]
        assert step["point_id"] == full["point_id"] + "_c50" and step["vdbench_rd"] == "rd1_(50%)"
        assert full["iorate_requested"] is None and step["iorate_requested"] > 0
        starting = re.search(rf"Starting RD=rd1_\(50%\); I/O rate: (\d+);.*threads={threads}\b",
                             (groups["sweep"][0] / "output__totals.html").read_text())
        assert step["iorate_requested"] == int(starting.group(1))

    # warm-up (2 intervals): vdbench 5.04.06 counts the last warm-up interval in its average (avg_3-4 is
    # the mean of intervals 2-4; on a loaded host, where its slaves learn late that the warm-up is over,
    # it has been seen to count all four), and its histogram counts every I/O of the run, warm-up
    # included: the rows say both, and the intervals before the first one counted are marked warm-up
    for phase, dirs in groups.items():
        for group in dirs:
            intervals = pd.read_csv(group / "intervals.csv")
            histogram = pd.read_csv(group / "histogram.csv")
            for row in json.loads((group / "points.json").read_text()):
                mine = intervals[intervals["point_id"] == row["point_id"]]
                counted = mine[~mine["warmup"]]
                assert round(counted["iops"].mean(), 2) == round(row["iops"], 2)
                assert histogram[histogram["point_id"] == row["point_id"]]["count"].sum() == mine["iops"].sum()
                first = int(row["avg_intervals"].split("-")[0])
                assert first in (1, 2) and row["avg_intervals"] == f"{first}-4"
                assert (row["histogram_intervals"], row["ramp_s"]) == ("1-4", first - 1)
                assert list(mine["warmup"]) == [second < first for second in mine["second"]]

    # the reads read vdbench's data of compratio 2, written once by vdbench when the files were made
    for name in ("sd1", "sd2"):
        record = json.loads((root / "targets" / "local" / f"{name}.json").read_text())
        assert record["data"] == "compratio=2" and record["size_bytes"] == 16 * MIB
        data = (tmp_path / f"{name}.dat").read_bytes()
        assert len(data) == 16 * MIB and len(data) / len(zlib.compress(data, 1)) > 1.5  # /dev/urandom: 1.0
    assert "compratio=2" in (root / "targets" / "local" / "fill.parmfile").read_text()
    assert {r["target_data"] for phase in rows for r in rows[phase]} == {"vdbench fill: compratio=2"}

    # the report: the curves, the curve steps, and what vdbench's distribution rests on
    report = (root / "report" / "report.html").read_text()
    for section in ("Executive summary", "Results: latency percentiles", "Results: saturation probe",
                    "Results: latency distribution at the detail points"):
        assert re.search(f"<h2[^>]*>{re.escape(section)}</h2>", report), section
    assert "vdbench iorate=curve: mean latency at each requested I/O rate" in report
    assert "with vdbench 5.04.06 from 1 load host" in report  # the version, from the check
    assert report.count("<svg") >= 6
    assert "vdbench reports no latency percentiles" in report and "no bucket bound at 512 us" in report
    assert "warm-up included" in report
    # what vdbench's averages counted, as its output shows (never "the warm-up left out"): the warm-up
    # (warmup=2, 1-second intervals) was intervals 1-2; 2-4 holds its last interval, 1-4 all of it
    counted = {r["avg_intervals"] for r in rows["sweep"]}
    assert "<code>avg_</code> line) counted intervals " in report and "left out of its average" not in report
    assert "; the warm-up was intervals 1-2: " in report
    words = {"2-4": "2-4 holds its last interval", "1-4": "1-4 holds all of it"}
    assert all(words[r] in report for r in counted)
    assert "vdbench&#x27;s totals per point" in report and "Resp stddev (ms)" in report
    summary = pd.read_csv(root / "report" / "summary.csv")
    assert summary.loc[0, "target_data"] == "vdbench fill: compratio=2" and "clat_p99_ms_at_max" not in summary
    assert summary.loc[0, "max_iops"] == round(max(sweep[(t, None)]["iops"] for t in (1, 2)))
    assert len(pd.read_csv(root / "report" / "points.csv")) == 4


def test_a_run_vdbench_refuses_gives_its_own_words_and_its_output_directory(tmp_path):
    """vdbench accepts the parmfile (`vdbench -s` passes in the check) but refuses to run 1 MiB
    transfers on a 1 MiB file: the user gets vdbench's words and its output directory, and
    nothing is stored."""
    cfg = campaign_from_dict(campaign_values(
        tmp_path, targets=[{"name": "sd1", "path": str(tmp_path / "sd1.dat"), "size": "1m", "create": True}],
        workloads=[{"name": "big", "rw": "randread", "bs": "1m"}]))
    with pytest.raises(RemoteError) as info:
        phases.run_probe(cfg, progress=False)
    message = str(info.value)
    assert "vdbench exited 157" in message and "Insufficient amount of lun size specified" in message
    assert "must be at least twice the xfersize (1048576)" in message
    assert "at Vdb." not in message  # vdbench's words, not its Java stack trace
    output = re.search(r"vdbench's output directory: local:(\S+)", message).group(1)
    assert "Insufficient amount of lun size" in (Path(output) / "logfile.html").read_text()
    assert not (tmp_path / "results" / "real" / "points" / "probe").exists()


def test_a_target_made_short_after_the_check_is_refused_before_vdbench_writes_it(tmp_path):
    """A read-only campaign on an existing 16 MiB file: after the check it is cut to 8 MiB.
    vdbench would extend it by writing it (its own SD_format run, in a read-only parmfile); the
    probe refuses before vdbench starts and the file stays as it was."""
    lun = tmp_path / "lun.dat"
    lun.write_bytes(b"\x5a" * (16 * MIB))
    cfg = campaign_from_dict(campaign_values(tmp_path, targets=[{"name": "lun", "path": str(lun), "size": "16m"}],
                                             precondition={"filled_elsewhere": ["lun"]}))
    assert phases.run_check(cfg).query("status == 'fail'").empty
    manifest = json.loads((tmp_path / "results" / "real" / "manifest.json").read_text())
    assert manifest["engine_versions"] == {"local": "5.04.06"}  # vdbench -s on the controller: the kit's release
    with open(lun, "r+b") as handle:
        handle.truncate(8 * MIB)
    with pytest.raises(CheckFailed) as info:
        phases.run_probe(cfg, progress=False)
    assert (f"local: target lun ({lun}) is 8,388,608 bytes, smaller than its size 16m (16,777,216 bytes)"
            in str(info.value))
    assert "vdbench was not started" in str(info.value)
    assert lun.stat().st_size == 8 * MIB and lun.read_bytes() == b"\x5a" * (8 * MIB)
    assert not (tmp_path / "results" / "real" / "points").exists()


def test_vdbench_s_own_format_run_is_never_a_point_and_never_writes_a_read_only_campaign(tmp_path, monkeypatch):
    """With the guard before each invocation switched off, vdbench formats the missing files
    itself (RD=SD_format, threads=2): for a write workload its run stores no point (the rows are
    rd1's only, threads 1 and 2); for a read-only one, its opening the files for writing fails the
    invocation and nothing is stored."""
    monkeypatch.setattr(phases_vdbench, "require_targets", lambda wb, purpose: None, raising=False)
    cfg = campaign_from_dict(campaign_values(tmp_path, workloads=[{"name": "rw", "rw": "randwrite", "bs": "4k"},
                                                                  {"name": "rr", "rw": "randread", "bs": "4k"}],
                                             vdbench={"elapsed_s": 2, "interval_s": 1, "warmup_s": 0}))
    with phases.open_campaign(cfg) as wb:  # no prepare_targets: the files are missing
        rows = phases_vdbench.run_invocation(wb, "sweep", sweep_run(wb.cfg, [1, 2], "rw"))
        group = wb.store.point_dir("sweep", rows[0]["point_id"].rsplit("_t", 1)[0])
        assert "Starting RD=SD_format" in (group / "output__totals.html").read_text()  # vdbench did format
        assert [r["threads"] for r in rows] == [1, 2] and len({r["point_id"] for r in rows}) == 2
        assert [r["vdbench_rd"] for r in rows] == ["rd1", "rd1"]
        assert sorted(pd.read_csv(group / "intervals.csv")["point_id"].unique()) == [r["point_id"] for r in rows]
        assert set(pd.read_csv(group / "histogram.csv")["point_id"]) == {r["point_id"] for r in rows}
        printed = totals_avg_lines((group / "output__totals.html").read_text())
        assert [r["iops"] for r in rows] == [float(printed[("rd1", t)][0]) for t in (1, 2)]

        for name in ("sd1", "sd2"):
            (tmp_path / f"{name}.dat").unlink()
        with pytest.raises(RemoteError) as info:
            phases_vdbench.run_invocation(wb, "sweep", sweep_run(wb.cfg, [1], "rr"))
        assert "vdbench opened sd1, sd2 for writing although rr only reads" in str(info.value)
        assert "vdbench's output directory: local:" in str(info.value)
        assert [p.name for p in (tmp_path / "results" / "real" / "points" / "sweep").iterdir()] == [group.name]


def test_the_fill_records_the_bytes_vdbench_wrote_to_each_target(tmp_path):
    """One vdbench invocation fills two scratch files of 16 and 8 MiB: each record holds the bytes
    vdbench's own SD report of that file counts (16 and 8 MiB), not the invocation's 24 MiB, and
    the report's fill table and conditions say so."""
    from flashpoc.engines.vdbench.parse import parse_summary
    from flashpoc.campaign.precondition import fill_table, read_status, status_text

    targets = [{"name": "sd1", "path": str(tmp_path / "sd1.dat"), "size": "16m", "create": True},
               {"name": "sd2", "path": str(tmp_path / "sd2.dat"), "size": "8m", "create": True}]
    cfg = campaign_from_dict(campaign_values(tmp_path, targets=targets))
    phases.run_check(cfg)
    with phases.open_campaign(cfg) as wb:
        phases.prepare_targets(wb)
    folder = tmp_path / "results" / "real" / "targets" / "local"
    for name, size in (("sd1", 16 * MIB), ("sd2", 8 * MIB)):
        record = json.loads((folder / f"{name}.json").read_text())
        rows = parse_summary((folder / f"fill.{name}.html").read_text(), f"fill.{name}.html")
        counted = sum(r["iops"] * 1 * r["bytes_per_io"] for r in rows if r["rd"] == "fill" and r["row_type"] == "interval")
        assert record["written_bytes"] == round(counted) == size and "written_with" not in record
        assert record["output"] == f"targets/local/fill.{name}.html"
    root = tmp_path / "results" / "real"
    shown = fill_table(root, read_status(root)).frame.set_index("Target")
    assert (shown.loc["sd1", "Written"], shown.loc["sd2", "Written"]) == ("16 MiB", "8 MiB")
    assert "sd2 on local: 8 MiB written by vdbench" in status_text(root, read_status(root))


def test_ctrl_c_in_a_vdbench_sweep_leaves_no_jvm_and_the_next_run_measures_it(tmp_path):
    """Ctrl-C 2 s after vdbench's master started the sweep's invocation (1 and 2 threads, 2-s runs): the
    sweep stops within seconds, no vdbench process is left in the campaign's work folder (its master
    and slave JVMs, where a kill of the command's process group alone would leave what vdbench
    started), nothing of the invocation is stored (vdbench stores an invocation whole), and the
    sweep run again measures both thread counts and stores them."""
    import time

    cfg = campaign_from_dict(campaign_values(tmp_path))
    phases.run_check(cfg)
    plan, work = {"rr": [1, 2]}, tmp_path / "work"
    running: list = []
    jvm = lambda: [p for p in processes_in(work) if "java" in p]  # noqa: E731
    measuring = lambda: any("/real/sweep/" in p and "Vdbmain" in p for p in jvm())  # noqa: E731  (not the fill)
    with ctrl_c_once(measuring, 2.0, running, jvm):
        start = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            phases.run_sweep(cfg, plan, progress=False)
        took = time.monotonic() - start
    assert running and running[0], "vdbench's JVMs never started"
    assert running_in(work) == [], "vdbench left running"
    sweep = tmp_path / "results" / "real" / "points" / "sweep"
    assert not sweep.exists() or not list(sweep.glob("*/points.json"))
    rows = phases.run_sweep(cfg, plan, progress=False)
    assert sorted(rows["threads"]) == [1, 2] and not rows["reused"].any() and (rows["iops"] > 0).all()
    (stored,) = sweep.glob("*/points.json")  # the invocation's two points, stored together
    assert sorted(r["threads"] for r in json.loads(stored.read_text())) == [1, 2]
    print(f"stopped after {took:.1f} s, JVMs then: {running[0]}")

"""The precondition (flashpoc.campaign.precondition): every target filled once with the campaign's data before
anything is measured, by the REAL engine (fio; vdbench from `make engines`), on files of a few MiB.

What it shows: the record's numbers are the engine's own (fio's write.io_bytes, vdbench's intervals),
its sample checksum is that of the target's bytes, a rerun skips the fill, a changed target is filled
again, a read of an unfilled target is refused before any I/O (or warned about), and the safety gate
refuses a fill of a target that holds data.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import warnings
from pathlib import Path

import pytest

from conftest import quick_campaign, real_vdbench, require_fio
from flashpoc import phases
from flashpoc.campaign import precondition
from flashpoc.core.errors import CheckFailed
from flashpoc.params import campaign_from_dict

MIB = 1024**2


def prepare(cfg) -> list[dict]:
    with phases.open_campaign(cfg) as wb:
        return phases.prepare_targets(wb)


def record_of(cfg, host: str, target: str) -> dict:
    return json.loads((cfg.resolved().results_path() / "targets" / host / f"{target}.json").read_text())


def sample_of(path: Path, offsets: list[int]) -> bytes:
    data = path.read_bytes()
    return b"".join(data[o:o + MIB] for o in offsets)


def test_fio_fills_a_scratch_file_once_with_its_data_and_records_what_fio_says_it_wrote(tmp_path):
    require_fio()
    scratch = tmp_path / "scratch.dat"
    values = quick_campaign(tmp_path, targets=[{"name": "scratch", "path": str(scratch), "size": "6m", "create": True}],
                            fio={"runtime_s": 1, "buffer_compress_percentage": 50})
    cfg = campaign_from_dict(values)
    done = prepare(cfg)
    assert [d["action"] for d in done] == ["created", "filled"]

    record = record_of(cfg, "local", "scratch")
    output = json.loads((cfg.resolved().results_path() / record["output"]).read_text())
    (job,) = output["jobs"]
    assert job["jobname"] == "scratch" and output["global options"]["rw"] == "write"
    assert record["written_bytes"] == job["write"]["io_bytes"] == 6 * MIB == record["working_set_bytes"]
    assert record["data"] == "fio buffer_compress_percentage=50, refill_buffers" and record["engine"] == "fio"
    assert record["block_bytes"] == MIB and re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", record["completed_utc"])
    stat = scratch.stat()
    assert record["identity"].startswith(f"file {stat.st_dev}:{stat.st_ino}:")
    sample = record["sample"]
    assert sample["offsets_bytes"] == [0, 3 * MIB, 5 * MIB] and sample["bytes"] == 3 * MIB
    assert sample["sha256"] == hashlib.sha256(sample_of(scratch, sample["offsets_bytes"])).hexdigest()
    assert 0.4 < sample["gzip_bytes"] / sample["bytes"] < 0.7  # half compressible, as asked
    root = cfg.resolved().results_path()
    assert precondition.status_text(root, precondition.load_status(cfg)) == (
        f"scratch on local: 6 MiB written by fio (fio buffer_compress_percentage=50, refill_buffers) on "
        f"{record['completed_utc'][:10]} {record['completed_utc'][11:19]} UTC; a 3 MiB sample compresses to {100 * sample['gzip_bytes'] / sample['bytes']:.0f} % "
        "with gzip -1.")

    # the next run skips it: nothing changed, nothing is written
    before = (scratch.read_bytes(), (cfg.resolved().results_path() / record["output"]).stat().st_mtime_ns)
    assert [d["action"] for d in prepare(cfg)] == ["reused", "fill reused"]
    assert (scratch.read_bytes(), (cfg.resolved().results_path() / record["output"]).stat().st_mtime_ns) == before

    # other data asked: filled again, with incompressible data this time
    again = campaign_from_dict({**values, "fio": {"runtime_s": 1}})
    assert [d["action"] for d in prepare(again)] == ["reused", "filled"]
    redone = record_of(again, "local", "scratch")
    assert redone["data"] == "fio random data (incompressible, no dedup), refill_buffers"
    assert redone["sample"]["gzip_bytes"] > 0.95 * redone["sample"]["bytes"]  # fio 3.33: about 98.5 %

    # another file put in its place (another inode): filled again
    (tmp_path / "new.dat").write_bytes(b"\0" * 6 * MIB)
    os.replace(tmp_path / "new.dat", scratch)
    assert [d["action"] for d in prepare(again)] == ["reused", "filled"]
    assert record_of(again, "local", "scratch")["identity"] != redone["identity"]

    # deleted, then made anew by the workbook: filled again, whatever inode it gets
    scratch.unlink()
    assert [d["action"] for d in prepare(again)] == ["created", "filled"]
    assert record_of(again, "local", "scratch")["sample"]["gzip_bytes"] > 0.95 * 3 * MIB


def existing_lun(tmp_path: Path, name: str = "lun1.dat") -> Path:
    """A 4 MiB file of random data written by the test: a LUN flashpoc did not write."""
    lun = tmp_path / name
    lun.write_bytes(os.urandom(4 * MIB))
    return lun


def test_a_read_of_a_target_never_filled_is_refused_before_any_io_unless_the_parameters_say_otherwise(tmp_path):
    require_fio()
    lun = existing_lun(tmp_path)
    values = quick_campaign(tmp_path, targets=[{"name": "lun1", "path": str(lun)}],
                            workloads=[{"name": "randread-4k", "rw": "randread", "bs": "4k"}])
    cfg = campaign_from_dict(values)
    with pytest.raises(CheckFailed) as info:
        phases.run_probe(cfg, progress=False)
    message = str(info.value)
    assert "nothing was measured" in message and "target lun1 on host local is not filled" in message
    assert "randread-4k" in message and "precondition.filled_elsewhere" in message
    results = cfg.resolved().results_path()
    assert not (results / "points").exists() and not (results / "probe.json").exists()
    status = json.loads((results / "precondition.json").read_text())
    assert status["targets"] == [{"host": "local", "target": "lun1", "action": "unfilled"}]
    assert status["unfilled_read_by"] == ["randread-4k"]

    # refused before anything is written: a target that allows writing is not filled first
    lun2 = existing_lun(tmp_path, "lun2.dat")
    before = lun2.read_bytes()
    both = campaign_from_dict({**values, "campaign": "both", "targets": [
        {"name": "lun1", "path": str(lun)}, {"name": "lun2", "path": str(lun2), "allow_write": True}]})
    with pytest.raises(CheckFailed, match="target lun1 on host local is not filled"):
        prepare(both)
    assert lun2.read_bytes() == before and not (both.resolved().results_path() / "targets").exists()

    # data written otherwise (a copy of the database): said so, not refused
    elsewhere = campaign_from_dict({**values, "precondition": {"filled_elsewhere": ["lun1"]}})
    assert prepare(elsewhere) == [{"host": "local", "target": "lun1", "action": "filled elsewhere"}]
    (row,) = precondition.fill_table(results, precondition.load_status(elsewhere)).frame.to_dict("records")
    assert (row["Fill"], row["Written"], row["Sample SHA-256"]) == ("filled elsewhere (declared)", "–", "–")

    # warn: goes on, loudly
    warned = campaign_from_dict({**values, "precondition": {"unfilled": "warn"}})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert prepare(warned) == [{"host": "local", "target": "lun1", "action": "unfilled"}]
    assert [w.category for w in caught] == [precondition.UnfilledTargetWarning]
    assert str(caught[0].message).startswith("WARNING: the workloads randread-4k read targets never written")
    (row,) = precondition.fill_table(results, precondition.load_status(warned)).frame.to_dict("records")
    assert (row["Host"], row["Target"], row["Fill"]) == ("local", "lun1", "not filled: reads warned")

    # a target that allows writing is filled instead (a read-only campaign), then read
    filled = campaign_from_dict({**values, "targets": [{"name": "lun2", "path": str(lun2), "allow_write": True}]})
    assert prepare(filled) == [{"host": "local", "target": "lun2", "action": "filled", "written_bytes": 4 * MIB,
                                "seconds": record_of(filled, "local", "lun2")["seconds"]}]
    assert record_of(filled, "local", "lun2")["size_bytes"] is None  # the whole file: its size read on the host


def test_the_safety_gate_refuses_to_fill_a_target_that_holds_data(tmp_path):
    """A read-only campaign on a target that allows writing but holds an XFS file system: the fill
    would destroy it, so nothing is written (destroy_data_on would allow it)."""
    require_fio()
    lun = tmp_path / "lun1.dat"
    lun.write_bytes(b"XFSB" + os.urandom(4 * MIB - 4))
    before = lun.read_bytes()
    cfg = campaign_from_dict(quick_campaign(tmp_path, targets=[{"name": "lun1", "path": str(lun), "allow_write": True}],
                                            workloads=[{"name": "randread-4k", "rw": "randread", "bs": "4k"}]))
    with pytest.raises(CheckFailed) as info:
        prepare(cfg)
    assert "target lun1 on host local holds data: an XFS file system" in str(info.value)
    assert "destroy_data_on: [lun1]" in str(info.value)
    assert lun.read_bytes() == before
    assert not (cfg.resolved().results_path() / "targets").exists()


def vdbench_values(tmp_path: Path, **overrides) -> dict:
    """A local campaign of the REAL vdbench (skips without it) on a 4 MiB scratch file, 2 s points."""
    values = {
        "campaign": "vdb", "engine": "vdbench",
        "hosts": [{"name": "local", "address": "localhost", "vdbench": str(real_vdbench()),
                   "workdir": str(tmp_path / "work")}],
        "targets": [{"name": "sd1", "path": str(tmp_path / "sd1.dat"), "size": "4m", "create": True}],
        "vdbench": {"elapsed_s": 2, "interval_s": 1, "warmup_s": 0},
        "workloads": [{"name": "rr", "rw": "randread", "bs": "4k"}],
        "results_dir": str(tmp_path / "results"),
    }
    return {**values, **overrides}


def test_vdbench_fills_a_lun_once_with_its_compratio_and_records_what_vdbench_says_it_wrote(tmp_path):
    lun = existing_lun(tmp_path)
    cfg = campaign_from_dict(vdbench_values(tmp_path, targets=[{"name": "lun1", "path": str(lun), "size": "4m",
                                                                "allow_write": True}],
                                            vdbench={"elapsed_s": 2, "interval_s": 1, "compratio": 2}))
    assert [d["action"] for d in prepare(cfg)] == ["filled"]
    record = record_of(cfg, "local", "lun1")
    root = cfg.resolved().results_path()
    # vdbench's own intervals of the fill in its SD report of the target: rate x bytes per I/O x interval, summed
    summary = re.sub(r"<[^>]+>", "", (root / record["output"]).read_text())
    intervals = [line.split() for line in summary.splitlines() if re.match(r"^\S+\s+\d+\s+\d", line)]
    assert sum(round(float(f[2]) * float(f[4])) for f in intervals) == record["written_bytes"]
    assert record["written_bytes"] >= 4 * MIB * 0.99 and "written_with" not in record  # its own bytes
    assert record["output"] == "targets/local/fill.lun1.html"  # vdbench's SD report of the target
    assert record["data"] == "compratio=2" and record["engine"] == "vdbench" and record["size_bytes"] == 4 * MIB
    assert "compratio=2" in (root / "targets" / "local" / "fill.parmfile").read_text()
    sample = record["sample"]
    assert sample["sha256"] == hashlib.sha256(sample_of(lun, sample["offsets_bytes"])).hexdigest()
    assert sample["gzip_bytes"] < 0.75 * sample["bytes"]  # compratio=2: about half
    assert [d["action"] for d in prepare(cfg)] == ["fill reused"]

    # a LUN shorter than its size: vdbench would extend it (its own format run), so it is not started
    short = tmp_path / "short.dat"
    short.write_bytes(b"\x5a" * MIB)
    cut = campaign_from_dict(vdbench_values(tmp_path, campaign="short", targets=[
        {"name": "lun2", "path": str(short), "size": "4m", "allow_write": True}]))
    with pytest.raises(CheckFailed, match=r"vdbench was not started: .*lun2 \(.*short\.dat\): 1048576"):
        prepare(cut)
    assert short.read_bytes() == b"\x5a" * MIB


@pytest.mark.parametrize("iops, steady, excursion, slope", [
    ([100, 100, 100, 100, 100], True, 0.0, 0.0),
    ([50, 100, 90, 110, 100, 100], True, 20.0, 4.0),  # the window is the last 5 rounds: 90..110 about 100
    ([80, 90, 100, 110, 120], False, 40.0, 40.0),
    ([95, 97.5, 100, 102.5, 105], True, 10.0, 10.0),  # at SNIA's bounds: steady
    ([94, 97, 100, 103, 106], False, 12.0, 12.0),  # the slope excursion is over 10 %
])
def test_snia_s_steady_state_window_over_the_last_five_rounds(iops, steady, excursion, slope):
    verdict = precondition.snia_window(iops)
    assert verdict["steady"] is steady and verdict["rounds"] == [len(iops) - 4, len(iops)]
    assert verdict["excursion_pct"] == pytest.approx(excursion) and verdict["slope_excursion_pct"] == pytest.approx(slope)
    assert (verdict["allowed_excursion_pct"], verdict["allowed_slope_excursion_pct"]) == (20.0, 10.0)
    assert precondition.snia_window(iops[:4]) is None


def test_write_workloads_run_rounds_until_steady_kept_as_points_and_charted(tmp_path):
    require_fio()
    cfg = campaign_from_dict(quick_campaign(
        tmp_path, targets=[{"name": "scratch", "path": str(tmp_path / "s.dat"), "size": "4m", "create": True}],
        precondition={"write_rounds": 5, "round_s": 1, "threads": 1}))
    prepare(cfg)
    status = precondition.load_status(cfg)
    done = status["write_rounds"]
    assert list(done) == ["randwrite-4k"]  # the write workloads only
    rounds = done["randwrite-4k"]["rounds"]
    assert len(rounds) == 5 and [r["round"] for r in rounds] == list(range(1, len(rounds) + 1))
    root = cfg.resolved().results_path() / "points" / "precondition"
    for r in rounds:  # each round is a stored point: its IOPS are fio's own
        (job,) = json.loads((root / r["point_id"] / "local.json").read_text())["jobs"]
        assert r["iops"] == pytest.approx(job["write"]["iops"]) and r["iops"] > 0
    verdict = done["randwrite-4k"]["window"]
    assert verdict == precondition.snia_window([r["iops"] for r in rounds])
    assert done["randwrite-4k"]["steady"] is verdict["steady"] and verdict["rounds"] == [1, 5]
    said = precondition.status_text(cfg.resolved().results_path(), status).split("; randwrite-4k: ", 1)[1]
    assert said.startswith("5 preconditioning rounds of 1 s at 1 thread, ")
    if verdict["steady"]:
        assert f"excursion {verdict['excursion_pct']:.1f} % of 20 % allowed" in said
    else:
        assert said.endswith("not steady by SNIA's rule within the bound.")
    assert "points" not in json.loads(json.dumps(status))  # the rounds are not the probe's or the sweep's points
    assert not (cfg.resolved().results_path() / "points.csv").exists()

    # the next run reuses the rounds
    prepare(cfg)
    again = precondition.load_status(cfg)["write_rounds"]["randwrite-4k"]["rounds"]
    assert [r["iops"] for r in again] == [r["iops"] for r in rounds] and all(r["reused"] for r in again)

    # the convergence chart: one line per workload, SNIA's window and its 90 % / 110 % lines
    from flashpoc.present import chart

    table = precondition.rounds_table(precondition.load_status(cfg))
    assert table["iops"].tolist() == [r["iops"] for r in rounds]
    spec = chart.precondition_rounds(table, color_domain=cfg.workload_names).to_dict()
    lines, window, _ = spec["layer"]
    assert lines["encoding"]["y"]["title"] == "IOPS" and lines["encoding"]["x"]["title"] == "Round (number)"
    levels = spec["datasets"][window["data"]["name"]]
    mean = verdict["mean_iops"]
    assert sorted(level["level_iops"] for level in levels) == pytest.approx([0.9 * mean, mean, 1.1 * mean])
    assert {(level["window_first"], level["window_last"]) for level in levels} == {tuple(verdict["rounds"])}
    # the least-squares line through the window's rounds, fitted here again from fio's IOPS
    import numpy as np

    slope, intercept = np.polyfit(range(1, 6), [r["iops"] for r in rounds], 1)
    fit = spec["datasets"][spec["layer"][2]["data"]["name"]]
    assert [f["fit_iops"] for f in fit] == pytest.approx([intercept + slope * n for n in range(1, 6)], abs=0.1)
    assert spec["layer"][2]["encoding"]["y"]["field"] == "fit_iops"

    # the report shows what notebook 02 shows: the fill of each target, the rounds' chart, SNIA's determination
    phases.run_sweep(cfg, {"randwrite-4k": [1]}, progress=False)
    report = phases.build_report(cfg, pdf=False)
    (section,) = [s for s in report.sections if s.heading == "Results: fill and preconditioning"]
    lead, fills, drawn, determination = section.items
    assert drawn is report.charts["precondition_rounds"] and "report/precondition_rounds.svg" in \
        {f"report/{p.name}" for p in report.files.values()}
    record = record_of(cfg, "local", "scratch")
    (row,) = fills.frame.to_dict("records")
    assert row == {"Host": "local", "Target": "scratch", "Fill": "filled by this campaign (an earlier run)",
                   "Written": "4 MiB", "Data (reducibility)": "fio random data (incompressible, no dedup), refill_buffers",
                   "Engine": "fio", "Filled (UTC)": record["completed_utc"][:19].replace("T", " "),
                   "Sample SHA-256": record["sample"]["sha256"][:16] + "...",
                   "Sample after gzip -1 (%)": f"{100 * record['sample']['gzip_bytes'] / record['sample']['bytes']:.1f}"}
    (said,) = determination.frame.to_dict("records")
    assert said["Workload"] == "randwrite-4k" and said["Rounds (s each)"] == "5 (1)" and said["Window (rounds)"] == "1-5"
    assert said["Window mean (IOPS)"] == f"{verdict['mean_iops']:,.0f}"
    assert said["Data excursion, allowed / measured (%)"] == f"20 / {verdict['excursion_pct']:.1f}"
    assert said["Slope excursion, allowed / measured (%)"] == f"10 / {verdict['slope_excursion_pct']:.1f}"
    # to its printed precision: the stored fit and numpy's may differ in the last bits, at a rounding boundary
    assert float(said["Least-squares line (IOPS per round)"].replace(",", "")) == pytest.approx(slope, abs=0.05 + 1e-6)
    assert said["SNIA"] == ("steady" if verdict["steady"] else "NOT steady")
    html = (cfg.resolved().results_path() / "report" / "report.html").read_text()
    assert "Fill of each target before measuring" in html and "SNIA&#x27;s steady-state determination" in html


def test_vdbench_write_rounds_are_vdbench_s_own_runs_one_invocation_each(tmp_path):
    cfg = campaign_from_dict(vdbench_values(
        tmp_path, workloads=[{"name": "rr", "rw": "randread", "bs": "4k"}, {"name": "rw", "rw": "randwrite", "bs": "4k"}],
        precondition={"write_rounds": 2, "threads": 1}))  # two rounds: the window is fio's test's
    assert [d["action"] for d in prepare(cfg)] == ["created", "filled"]
    done = precondition.load_status(cfg)["write_rounds"]
    assert list(done) == ["rw"] and done["rw"]["round_s"] == 2 and len(done["rw"]["rounds"]) == 2
    root = cfg.resolved().results_path() / "points" / "precondition"
    groups = sorted(p for p in root.iterdir() if p.is_dir())  # fill.json: the fills the rounds followed
    assert len(groups) == 2  # one vdbench invocation per round
    for r in done["rw"]["rounds"]:
        (group,) = [g for g in groups if any(p["point_id"] == r["point_id"] and p["iops"] == r["iops"]
                                             for p in json.loads((g / "points.json").read_text()))]
        rd = next(x for x in (group / "parmfile").read_text().splitlines() if x.startswith("rd="))
        assert ",iorate=max," in rd and "forthreads=(1)" in rd and ",elapsed=2," in rd
    assert done["rw"]["window"] is None and done["rw"]["steady"] is False  # fewer rounds than SNIA's window
    assert precondition.status_text(cfg.resolved().results_path(), precondition.load_status(cfg)).endswith(
        "; rw: 2 preconditioning rounds of 2 s at 1 thread, too few rounds for SNIA's 5-round window.")


def test_a_lun_two_hosts_see_is_filled_once(tmp_path):
    """A loop device (a LUN of one identity: its backing file) used by two load hosts (both this
    machine, so that the test stays quick): the first host fills it, the second takes its record."""
    require_fio()
    from netns import loop_device

    backing = tmp_path / "lun1.img"
    backing.write_bytes(b"\0" * 4 * MIB)
    with loop_device(backing) as device:
        cfg = campaign_from_dict(quick_campaign(
            tmp_path, hosts=[{"name": "h1", "address": "localhost"}, {"name": "h2", "address": "localhost"}],
            targets=[{"name": "lun1", "path": device, "allow_write": True}],
            workloads=[{"name": "randread-4k", "rw": "randread", "bs": "4k"}], fio={"runtime_s": 1, "multi_host": "per-host"}))
        done = prepare(cfg)
        assert sorted((d["host"], d["action"]) for d in done) == [("h1", "filled"), ("h2", "fill reused")]
        first, second = record_of(cfg, "h1", "lun1"), record_of(cfg, "h2", "lun1")
        assert first["identity"] == f"block {Path(device).name} {backing}" == second["identity"]
        assert second["filled_from"] == "h1" and second["written_bytes"] == first["written_bytes"] == 4 * MIB
        assert second["sample"]["sha256"] == hashlib.sha256(sample_of(backing, first["sample"]["offsets_bytes"])).hexdigest()


def test_the_sample_is_read_from_the_target_once(tmp_path, monkeypatch):
    """Each of the sample's three pieces is read by one dd: a dd on the PATH before the real one
    counts the reads of the target (before, the sample was read three times: for its checksum,
    its length and its compressed size)."""
    import shutil

    from flashpoc.params import HostParams, TargetParams
    from flashpoc.hosts.host import connect

    target = tmp_path / "t.dat"
    target.write_bytes(os.urandom(6 * MIB))
    shim, log = tmp_path / "bin", tmp_path / "dd.log"
    shim.mkdir()
    (shim / "dd").write_text(f'#!/bin/sh\necho "$*" >> {log}\nexec {shutil.which("dd")} "$@"\n')
    (shim / "dd").chmod(0o755)
    monkeypatch.setenv("PATH", f"{shim}:{os.environ['PATH']}")
    host = connect(HostParams(name="local", address="localhost", workdir=str(tmp_path / "work")))
    sample = precondition.read_sample(host, TargetParams(name="t", path=str(target)), 6 * MIB)
    assert sample["offsets_bytes"] == [0, 3 * MIB, 5 * MIB] and sample["bytes"] == 3 * MIB
    assert sample["sha256"] == hashlib.sha256(sample_of(target, sample["offsets_bytes"])).hexdigest()
    assert sample["gzip_bytes"] > 0.95 * 3 * MIB  # random data: incompressible
    reads = log.read_text().splitlines()
    assert len(reads) == 3 and all(f"if={target}" in r for r in reads)


def test_write_rounds_are_measured_again_after_the_targets_are_filled_again(tmp_path):
    """The rounds condition the targets as the fill left them: once a target is filled again (here
    deleted and made anew, with the same data: the rounds' point ids are the same), the stored
    rounds of the earlier fill are not reused but kept aside, and every round runs again."""
    require_fio()
    scratch = tmp_path / "s.dat"
    cfg = campaign_from_dict(quick_campaign(
        tmp_path, targets=[{"name": "scratch", "path": str(scratch), "size": "4m", "create": True}],
        workloads=[{"name": "randwrite-4k", "rw": "randwrite", "bs": "4k"}],
        precondition={"write_rounds": 2, "round_s": 1, "threads": 1}))
    root = cfg.resolved().results_path()
    prepare(cfg)
    first = precondition.load_status(cfg)["write_rounds"]["randwrite-4k"]
    assert [r["reused"] for r in first["rounds"]] == [False, False] and "superseded" not in first

    prepare(cfg)  # nothing filled again: the rounds are reused
    assert all(r["reused"] for r in precondition.load_status(cfg)["write_rounds"]["randwrite-4k"]["rounds"])

    scratch.unlink()
    assert [d["action"] for d in prepare(cfg)] == ["created", "filled"]
    again = precondition.load_status(cfg)["write_rounds"]["randwrite-4k"]
    assert [r["reused"] for r in again["rounds"]] == [False, False]
    assert [r["point_id"] for r in again["rounds"]] == [r["point_id"] for r in first["rounds"]]
    kept = root / again["superseded"]
    assert again["superseded"].startswith("points/precondition-superseded/")
    for r in first["rounds"]:  # the earlier fill's rounds, whole, with fio's own numbers
        (job,) = json.loads((kept / r["point_id"] / "local.json").read_text())["jobs"]
        assert job["write"]["iops"] == pytest.approx(r["iops"])
    for r in again["rounds"]:
        (job,) = json.loads((root / "points" / "precondition" / r["point_id"] / "local.json").read_text())["jobs"]
        assert job["write"]["iops"] == pytest.approx(r["iops"])
    assert f"(measured again after the targets were filled again; the earlier fill's rounds are kept in " \
           f"`{again['superseded']}`)" in precondition.status_text(root, precondition.load_status(cfg))
    fill = record_of(cfg, "local", "scratch")  # the fill the rounds now follow, recorded with them
    assert json.loads((root / "points" / "precondition" / "fill.json").read_text()) == {"local/scratch": {
        "completed_utc": fill["completed_utc"], "written_bytes": 4 * MIB, "sha256": fill["sample"]["sha256"]}}

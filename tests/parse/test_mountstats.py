"""The NFS client's per-mount counters (/proc/self/mountstats) and the per-interval series of a
SLOB point whose datafiles are on NFS.

Real captures (tests/data/nfs, see PROVENANCE.md there) and this machine's own
/proc/self/mountstats, sampled by the same shell text a SLOB point runs on the DB host. No NFS
server can run here (the kernel has no NFS client or server), so no capture of two samples with
I/O between them exists: the arithmetic is checked on a real capture taken as nfsiostat's first
report (the counters since the mount, over the mount's age), the series on real captures.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from conftest import DATA, REPO
from flashpoc.engines.slob.parse import INTERVAL_SOURCES, read_slob_run
from flashpoc.engines.slob.run import mountstats_sampler
from flashpoc.core.errors import ParseError
from flashpoc.hosts.mountstats import SAMPLE_MARK, nfs_intervals, op_interval, parse_mountstats, read_capture

RDMA = DATA / "nfs" / "mountstats-el8.7-rdma.qa"
V3_RPC10 = DATA / "nfs" / "mountstats3.qa"
NO_NFS = DATA / "nfs" / "nonfsmounts.qa"
SLOB_RUN = DATA / "slob" / "slob2.5_19c_rac2node_s256_t1_wu4_update10"  # AWR window 09:26:07 - 09:32:10


def test_nfs_mounts_of_a_real_capture():
    mounts = parse_mountstats(RDMA.read_text())
    # the same mount point listed again is kept apart, in the file's order
    assert list(mounts) == ["/storage/prod", "/storage/test", "/storage/icds", "/storage/group", "/storage/home",
                            "/storage/icds (2)", "/storage/work", "/storage/prod (2)", "/storage/test (2)",
                            "/storage/pcp-data"]
    group = mounts["/storage/group"]
    assert (group["device"], group["fstype"], group["statvers"], group["age_s"]) == (
        "example.com:/group", "nfs", "1.1", 1166720)
    assert "proto=rdma,nconnect=8" in group["opts"]
    # "READ: 36019499 36019499 0 4279070464 1735446589952 406570 26116356 27160896 0"
    assert group["ops"]["READ"] == (36019499, 36019499, 0, 4279070464, 1735446589952, 406570, 26116356, 27160896, 0)
    assert mounts["/storage/icds"]["ops"]["READ"][0] == 49 and mounts["/storage/icds (2)"]["ops"]["READ"][0] == 106156


def test_rpc_iostats_10_has_eight_counters_and_other_file_systems_are_left_out():
    mounts = parse_mountstats(V3_RPC10.read_text())
    assert all(m["fstype"] == "nfs" for m in mounts.values()) and "/boot" not in mounts
    assert mounts["/nasbox/music"]["ops"]["READ"] == (1, 1, 0, 136, 296, 0, 4, 4)  # "READ: 1 1 0 136 296 0 4 4"
    assert parse_mountstats(NO_NFS.read_text()) == {}


def test_since_mount_figures_are_nfsiostats_first_report():
    """nfsiostat's first report covers the time since the mount: counters over the mount's age."""
    group = parse_mountstats(RDMA.read_text())["/storage/group"]
    read = op_interval((0,) * 9, group["ops"]["READ"], group["age_s"])
    assert read["ops"] == 36019499
    assert read["ops_per_s"] == 36019499 / 1166720
    assert read["kb_per_s"] == (4279070464 + 1735446589952) / 1024 / 1166720
    assert (read["rtt_ms"], read["exe_ms"], read["queue_ms"]) == (26116356 / 36019499, 27160896 / 36019499,
                                                                   406570 / 36019499)
    assert read["retrans"] == 0
    # "WRITE: 3304938 3304938 0 212624926960 528790080 1195907908 50317800 1246575394 0"
    write = op_interval((0,) * 9, group["ops"]["WRITE"], group["age_s"])
    assert (write["rtt_ms"], write["exe_ms"]) == (50317800 / 3304938, 1246575394 / 3304938)
    idle = op_interval(*[parse_mountstats(RDMA.read_text())["/storage/test"]["ops"]["READ"]] * 2, 3)
    assert (idle["ops_per_s"], idle["exe_ms"]) == (0.0, None)  # no operation: no average, not 0


def test_a_counter_that_goes_down_is_refused():
    counters = parse_mountstats(RDMA.read_text())["/storage/group"]["ops"]["READ"]
    with pytest.raises(ParseError, match="went down"):
        op_interval(counters, (0,) * 9, 3)


def _capture(*samples: tuple[int, str, str]) -> str:
    return "".join(f"{SAMPLE_MARK}{epoch} {clock}\n{text}" for epoch, clock, text in samples)


def test_series_window_and_cut_last_sample():
    """Samples of a real capture: every interval at or before the AWR begin snapshot is warm-up,
    the ones after its end are left out, and a last sample cut mid-line is dropped, not read."""
    text = RDMA.read_text()
    capture = _capture((1000, "09:26:04", text), (1003, "09:26:07", text), (1006, "09:26:10", text),
                       (1009, "09:32:13", text), (1012, "09:32:16", text[: text.index("READ: 36019499") + 14]))
    samples = read_capture(capture)
    assert [s["clock"] for s in samples] == ["09:26:04", "09:26:07", "09:26:10", "09:32:13"]
    rows = nfs_intervals(capture, "09:26:07", "09:32:10")
    assert [(r["second"], r["warmup"], r["iops"], r["lat_mean_ms"]) for r in rows] == [
        (3.0, True, 0.0, None), (6.0, False, 0.0, None)]
    with pytest.raises(ParseError, match="no NFS mount matching"):
        nfs_intervals(capture, "09:26:07", "09:32:10", mounts=r"^/u0\d")
    assert nfs_intervals(capture, "23:59:00", "00:05:00") == []  # a window across midnight: no guess


def _slob_files(**extra: str) -> dict[str, bytes | str]:
    files: dict[str, bytes | str] = {p.name: p.read_bytes() for p in SLOB_RUN.iterdir() if p.is_file()}
    files.update(extra)
    return files


def test_knfs_point_series_comes_from_the_nfs_mounts_not_the_local_disks():
    """Over kNFS the local sd/nvme disks iostat counts are not the database's I/O: the series is
    the NFS mounts'. The run's iostat.out (real, about 60k IOPS on its disks) is not used."""
    text = RDMA.read_text()
    capture = _capture((5000, "09:26:04", text), (5003, "09:26:07", text), (5006, "09:26:10", text),
                       *((5006 + 3 * i, f"09:{26 + (10 + 3 * i) // 60:02d}:{(10 + 3 * i) % 60:02d}", text)
                         for i in range(1, 122)))  # up to 09:32:13, after the report's end snapshot
    local, iostat_rows = read_slob_run(_slob_files())
    assert local["intervals_source"] == INTERVAL_SOURCES["local"] and max(r["iops"] for r in iostat_rows) > 10000
    metrics, rows = read_slob_run(_slob_files(**{"mountstats.out": capture}), datafiles="knfs",
                                  nfs_mounts=r"^/storage/group$")
    assert metrics["intervals_source"] == INTERVAL_SOURCES["knfs"] and "intervals_error" not in metrics
    assert [(r["second"], r["iops"], r["warmup"]) for r in rows[:2]] == [(3.0, 0.0, True), (6.0, 0.0, False)]
    assert len(rows) == 122 and rows[-1]["second"] == 366.0  # the interval ending 09:32:10
    cut = capture[:capture.index(f"{SAMPLE_MARK}5366 09:32:10")]  # a capture that ends before the window does
    short, none = read_slob_run(_slob_files(**{"mountstats.out": cut}), datafiles="knfs")
    assert none == [] and short["damaged"].startswith("mountstats.out: its samples end at 09:32:07")
    assert metrics["read_iops"] == local["read_iops"]  # the point's figures stay the AWR report's
    missing, none = read_slob_run(_slob_files(), datafiles="knfs")
    assert none == [] and "no mountstats.out" in missing["intervals_error"]
    assert missing["damaged"].startswith("mountstats.out: the run left no mountstats.out")


def test_dnfs_point_without_the_database_counters_keeps_no_series_and_says_why():
    """A dNFS point's series is the database's counters (dbstat.json, sampled through oracle:): a
    run without them keeps no series, and the row says in one line that it needs oracle:."""
    metrics, rows = read_slob_run(_slob_files(), datafiles="dnfs")
    assert rows == [] and metrics["intervals_source"] == INTERVAL_SOURCES["dnfs"]
    assert metrics["intervals_error"] == ("a Direct NFS point's time series is the database's own counters, sampled "
                                          "through python-oracledb: set oracle: (no dbstat.json)")
    assert metrics["read_iops"] == 60656.2  # the (RAC global) AWR report's figures are kept


def test_sampler_on_this_machines_mountstats(tmp_path):
    """The shell text a kNFS point runs on the DB host, run here for real against this kernel's
    /proc/self/mountstats (which lists no NFS mount): samples with their marks, no NFS section."""
    out = tmp_path / "mountstats.out"
    # wait for a third mark (two whole samples), however busy the machine, then stop the sampler
    script = mountstats_sampler(str(tmp_path), every_s=1) + (
        f"for i in $(seq 1200); do [ \"$(grep -c '^{SAMPLE_MARK.strip()}' {out} 2>/dev/null)\" -ge 3 ] && break; "
        'sleep 0.1; done; kill "$sampler"')
    subprocess.run(["bash", "-c", script], check=True, timeout=60)
    capture = out.read_text()
    samples = read_capture(capture)
    assert len(samples) >= 2 and all(s["mounts"] == {} for s in samples)
    assert samples[-1]["epoch"] - samples[0]["epoch"] >= 1 and abs(samples[0]["epoch"] - time.time()) < 3600
    with pytest.raises(ParseError, match="no NFS mount"):
        nfs_intervals(capture, "00:00:00", "23:59:59")


def test_sampler_keeps_the_nfs_sections_of_a_real_capture():
    """The awk program a kNFS point samples with, run on real captures: every NFS section and
    nothing else, so the capture parses to the same mounts as the whole file."""
    from flashpoc.engines.slob.run import NFS_SECTIONS_AWK

    for path in (RDMA, V3_RPC10, NO_NFS):
        kept = subprocess.run(["awk", NFS_SECTIONS_AWK, str(path)], capture_output=True, text=True, check=True).stdout
        assert parse_mountstats(kept) == parse_mountstats(path.read_text())
        assert all(" with fstype nfs" in line for line in kept.splitlines() if line.startswith("device "))


def _host_mounts(path: Path) -> str:
    """The ``nfs_mounts`` fact the SLOB check's host script prints, from a real capture."""
    from flashpoc.engines.slob.run import host_facts_script

    script = host_facts_script("SLOB", None, None).replace("/proc/self/mountstats", str(path))
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60).stdout
    return next(line.partition("=")[2] for line in out.splitlines() if line.startswith("nfs_mounts="))


@pytest.mark.parametrize(("datafiles", "nfs_mounts", "capture", "oracle", "status", "words"), [
    ("local", None, NO_NFS, False, "pass", "iostat's local disks"),
    ("local", None, RDMA, False, "warn", "set database.datafiles: knfs"),
    (None, None, RDMA, False, "warn", "set database.datafiles: knfs"),  # unset counts as local
    ("knfs", None, RDMA, False, "pass", "/storage/group"),
    ("knfs", r"^/u0\d$", RDMA, False, "fail", "no NFS mount matching"),
    ("knfs", None, NO_NFS, False, "fail", "has no NFS mount"),
    ("dnfs", None, RDMA, True, "pass", "Direct NFS: each point's time series: the database's own I/O counters, "
                                       "sampled through oracle:"),
    ("dnfs", None, RDMA, False, "warn", "Direct NFS: without oracle: points keep no time series"),
])
def test_check_row_says_whether_datafiles_fits_the_hosts_nfs_mounts(datafiles, nfs_mounts, capture, oracle, status,
                                                                      words):
    from types import SimpleNamespace

    from flashpoc.engines.slob.check import _datafiles_row

    facts = _host_mounts(capture)
    row = _datafiles_row(SimpleNamespace(datafiles=datafiles, nfs_mounts=nfs_mounts), "db1", facts, oracle)
    assert row["status"] == status and words in row["detail"], row
    if capture is RDMA:
        assert facts.split(",")[:4] == ["/storage/prod", "/storage/test", "/storage/icds", "/storage/group"]


def test_the_report_says_why_a_dnfs_point_has_no_time_series():
    """A dNFS point run without oracle: has no series: the report says why."""
    import pandas as pd

    from flashpoc.present.reporting import Report

    metrics, _ = read_slob_run(_slob_files(), datafiles="dnfs")
    empty = pd.DataFrame()
    report = Report("", empty, empty, empty, {}, {}, detail=pd.DataFrame([metrics]))
    note = report.chart("interval_series").data
    assert "SLOB detail points: a Direct NFS point's time series is the database's own counters" in note
    knfs, _ = read_slob_run(_slob_files(), datafiles="knfs")  # a run that left no mountstats.out
    report = Report("", empty, empty, empty, {}, {}, detail=pd.DataFrame([knfs]))
    assert "the run left no mountstats.out" in report.chart("interval_series").data


def test_datafiles_keeps_the_hash_of_earlier_campaigns_unless_set():
    """``database.datafiles``/``nfs_mounts`` came later: left at their defaults, a campaign keeps
    its measurement hash (its stored points are reused); kNFS points are other points. The hashes
    are those of the SLOB seed campaign when the keys were ``slob.datafiles``/``slob.nfs_mounts``
    (computed with that code): points stored then keep their ids."""
    from flashpoc.params import campaign_from_dict, load_campaign

    seed = load_campaign(REPO / "parameters" / "slob-seed-8020.yaml")
    dumped = seed.model_dump(mode="json", exclude={"workloads"})

    def with_database(**keys):
        return campaign_from_dict({**dumped, "database": keys})

    assert seed.measurement_hash() == "68d1d849b49f0ab3"
    assert with_database(datafiles="local", nfs_mounts=None).measurement_hash() == seed.measurement_hash()
    assert with_database().measurement_hash() == seed.measurement_hash()
    assert with_database(datafiles="knfs").measurement_hash() == "f7b1f2bfa24979e7"
    assert with_database(datafiles="knfs", nfs_mounts="^/oradata").measurement_hash() == "313ccc7ee81da3a9"
    assert with_database(datafiles="dnfs").measurement_hash() == "590ec8ae146feaa7"
    assert with_database(nfs_mounts="^/x").measurement_hash() == "8224ffce1db1e40b"


def test_the_datafiles_keys_are_the_databases_not_slobs():
    """Where the datafiles are is stated once, as ``database:``; the engine's block refuses the
    keys with one line naming the new one, and so does ``oracle.nfs_client``."""
    from flashpoc.core.errors import ParameterError
    from flashpoc.params import campaign_from_dict, load_campaign

    seed = load_campaign(REPO / "parameters" / "slob-seed-8020.yaml")
    dumped = seed.model_dump(mode="json", exclude={"workloads"})
    for key, value in (("datafiles", "knfs"), ("nfs_mounts", "^/oradata")):
        with pytest.raises(ParameterError, match=rf"{key}: state it once as database\.{key}"):
            campaign_from_dict({**dumped, "engine": {"slob": {**seed.settings.model_dump(mode="json"), key: value}}})
    with pytest.raises(ParameterError, match=r"nfs_client: state it once as database\.datafiles"):
        campaign_from_dict({**dumped, "oracle": {"dsn": "db1:1521/p30sdb", "nfs_client": "knfs"}})

"""Data safety on real files with real signatures: mkfs.ext4, sfdisk and mkswap write them into
files here, an ASM-style header is ORCLDISK at byte 32 (what blkid reads as oracleasm), and the
probes are the real read-only ones (od, blkid -p, /proc/mounts, /sys holders, /proc/*/fd)."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import time

import pytest

from conftest import quick_campaign, require_fio
from flashpoc.campaign import check
from flashpoc import phases
from flashpoc.hosts import safety
from flashpoc.core.errors import CheckFailed, ParameterError
from flashpoc.params import HostParams, campaign_from_dict
from flashpoc.hosts.facts import collect_host_facts
from flashpoc.hosts.host import connect

MIB = 1024**2


def tool(name: str) -> str:
    path = shutil.which(name) or shutil.which(name, path="/usr/sbin:/sbin")
    if path is None:
        pytest.skip(f"{name} is not installed")
    return path


def blank(path, size=16 * MIB):
    with open(path, "wb") as handle:
        handle.truncate(size)
    return path


def ext4(path):
    subprocess.run([tool("mkfs.ext4"), "-q", "-F", str(blank(path))], check=True)
    return path


def partitioned(path, label):
    subprocess.run([tool("sfdisk"), "-q", str(blank(path))], input=f"label: {label}\n,8M\n", text=True, check=True,
                   stdout=subprocess.DEVNULL)
    return path


def swap(path):
    subprocess.run([tool("mkswap"), "-q", str(blank(path))], check=True, stdout=subprocess.DEVNULL)
    return path


def asm(path):
    blank(path)
    with open(path, "r+b") as handle:
        handle.seek(32)
        handle.write(b"ORCLDISK")
    return path


def random_data(path):
    with open(path, "wb") as handle:
        handle.write(os.urandom(1 * MIB))
    return path


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def probe(paths):
    host = connect(HostParams(name="local", address="localhost"))
    return collect_host_facts(host, [str(p) for p in paths])["targets"]


@pytest.mark.parametrize("make, expected", [
    (ext4, "an ext2/3/4 file system"),
    (lambda p: partitioned(p, "gpt"), "a GPT partition table"),
    (lambda p: partitioned(p, "dos"), "an MBR partition table (partition types 0x83)"),
    (swap, "a Linux swap area"),
    (asm, "an Oracle ASM disk header"),
])
def test_real_signatures_are_found_by_header_and_by_blkid(tmp_path, make, expected):
    path = make(tmp_path / "target.img")
    facts = probe([path])[0]
    found = [f.text for f in safety.findings(facts)]
    assert any(text.startswith(expected) for text in found), found
    if shutil.which("blkid") or shutil.which("blkid", path="/usr/sbin:/sbin"):
        assert any(text.startswith("blkid: ") for text in found), found  # e.g. TYPE=ext4, PTTYPE=gpt, TYPE=oracleasm


def test_blank_and_random_files_hold_nothing(tmp_path):
    facts = probe([blank(tmp_path / "zeros.img"), random_data(tmp_path / "random.img")])
    assert [safety.findings(f) for f in facts] == [[], []]


def test_a_file_open_by_a_process_is_in_use(tmp_path):
    path = blank(tmp_path / "datafile.dbf")
    holder = subprocess.Popen(["sh", "-c", f'exec 3<"{path}"; sleep 30'])
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            found = safety.findings(probe([path])[0])
            if found:
                break
            time.sleep(0.2)
    finally:
        holder.kill()
        holder.wait()
    assert [f.kind for f in found] == ["in use"] and f"{holder.pid}:sh" in found[0].text
    status, detail = safety.verdict("db", "local", found, destroy_allowed=True)
    assert status == "fail" and "never writes to a target in use, even one listed in destroy_data_on" in detail


def test_mounted_and_unreadable_targets(tmp_path):
    """What /proc/mounts and an unreadable device give, as the probe prints them."""
    mounted = safety.findings({"type": "block", "header_hex": "00" * 8192, "mounted": "sdb1:/u01", "holders": "none",
                               "open_by": "none", "blkid": "PTTYPE=dos"})
    assert [(f.kind, f.text) for f in mounted] == [("in use", "mounted at sdb1:/u01"), ("data", "blkid: PTTYPE=dos")]
    unreadable = safety.findings({"type": "block", "header_hex": None})
    assert unreadable[0].kind == "data" and "could not be read" in unreadable[0].text


def write_campaign(tmp_path, path, **overrides):
    values = quick_campaign(tmp_path, targets=[{"name": "lun7", "path": str(path), "size": "16m", "allow_write": True}],
                            workloads=[{"name": "randwrite-4k", "rw": "randwrite", "bs": "4k"}],
                            sweep={"plan": "guide", "max_threads": 1, "step": 1}, **overrides)
    return campaign_from_dict(values)


def test_check_refuses_to_write_over_a_file_system_and_nothing_is_written(tmp_path):
    require_fio()
    path = ext4(tmp_path / "lun7.img")
    before = digest(path)
    cfg = write_campaign(tmp_path, path)
    table = phases.run_check(cfg)
    row = table[table["check"] == "target lun7: data safety"].iloc[0]
    assert row["status"] == "fail" and row["host"] == "local"
    assert "target lun7 on host local holds data: an ext2/3/4 file system" in row["detail"]
    assert "destroy_data_on: [lun7]" in row["detail"]
    with pytest.raises(CheckFailed):
        phases.run_sweep(cfg, progress=False)
    assert digest(path) == before


def test_destroy_data_on_by_name_lets_the_write_run(tmp_path):
    require_fio()
    path = ext4(tmp_path / "lun7.img")
    before = digest(path)
    cfg = write_campaign(tmp_path, path, destroy_data_on=["lun7"])
    table = phases.run_check(cfg)
    row = table[table["check"] == "target lun7: data safety"].iloc[0]
    assert row["status"] == "warn" and "will be destroyed (destroy_data_on)" in row["detail"]
    rows = phases.run_sweep(cfg, progress=False)
    assert rows["write_iops"].gt(0).all() and digest(path) != before


def test_a_target_formatted_after_the_check_is_refused_before_any_io(tmp_path):
    require_fio()
    path = blank(tmp_path / "lun7.img")
    cfg = write_campaign(tmp_path, path)
    assert check.verdict(phases.run_check(cfg)) in ("pass", "warn")
    ext4(path)  # someone formats the LUN between the check and the sweep
    before = digest(path)
    with pytest.raises(CheckFailed, match="nothing was written:\n- target lun7 on host local holds data: an ext2/3/4"):
        phases.run_sweep(cfg, progress=False)
    assert digest(path) == before
    assert not (tmp_path / "results" / "quick" / "points").exists()


def test_read_only_campaigns_only_report_what_is_there(tmp_path):
    require_fio()
    path = ext4(tmp_path / "lun7.img")
    before = digest(path)
    values = quick_campaign(tmp_path, targets=[{"name": "lun7", "path": str(path), "size": "16m"}],
                            workloads=[{"name": "randread-4k", "rw": "randread", "bs": "4k"}],
                            sweep={"plan": "guide", "max_threads": 1, "step": 1},
                            precondition={"filled_elsewhere": ["lun7"]})  # the file system's own data
    cfg = campaign_from_dict(values)
    table = phases.run_check(cfg)
    row = table[table["check"] == "target lun7: data safety"].iloc[0]
    assert row["status"] == "pass" and row["value"] == "read-only" and "ext2/3/4" in row["detail"]
    phases.run_sweep(cfg, progress=False)
    assert digest(path) == before


@pytest.mark.parametrize("destroy, message", [
    (["lun9"], "destroy_data_on: no target named 'lun9'"),
    (["ro"], "destroy_data_on: target 'ro' does not allow writes"),
])
def test_destroy_data_on_names_writable_targets(tmp_path, destroy, message):
    values = quick_campaign(tmp_path, targets=[{"name": "ro", "path": str(tmp_path / "ro.img"), "size": "16m"}],
                            workloads=[{"name": "randread-4k", "rw": "randread", "bs": "4k"}], destroy_data_on=destroy)
    with pytest.raises(ParameterError, match=message):
        campaign_from_dict(values)


@pytest.fixture
def immutable(tmp_path):
    """A 16 MiB file of random data made immutable (chattr +i): the kernel refuses to open it
    for writing, even to root, so a workload that opens it read-write fails."""
    path = tmp_path / "lun3.img"
    with open(path, "wb") as handle:
        for _ in range(16):
            handle.write(os.urandom(MIB))
    if subprocess.run([tool("chattr"), "+i", str(path)], capture_output=True).returncode != 0:
        pytest.skip("this file system does not support chattr +i")
    try:
        yield path
    finally:
        subprocess.run([tool("chattr"), "-i", str(path)], check=True)


def test_read_only_workloads_never_open_targets_for_writing(tmp_path, immutable):
    """The whole read sweep (probe for the layout, then every point) on a file the kernel will
    not open for writing: it runs, and the same campaign's write workload is refused by the kernel."""
    require_fio()
    target = {"name": "lun3", "path": str(immutable), "size": "16m"}
    read_only = quick_campaign(tmp_path, targets=[target], workloads=[{"name": "randread-4k", "rw": "randread",
                                                                       "bs": "4k"}],
                               sweep={"plan": "guide", "max_threads": 2, "step": 1},
                               precondition={"filled_elsewhere": ["lun3"]})  # the test's random data
    rows = phases.run_sweep(campaign_from_dict(read_only), progress=False)
    assert rows["threads"].tolist() == [1, 2] and (rows["iops"] > 0).all() and (rows["write_iops"] == 0).all()
    writing = quick_campaign(tmp_path, campaign="w", targets=[{**target, "allow_write": True}],
                             workloads=[{"name": "randwrite-4k", "rw": "randwrite", "bs": "4k"}],
                             sweep={"plan": "guide", "max_threads": 1, "step": 1}, destroy_data_on=["lun3"])
    with pytest.raises(Exception, match=r"error 1 \(Operation not permitted\)"):
        phases.run_sweep(campaign_from_dict(writing), progress=False)

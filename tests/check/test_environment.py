"""Environment facts: transport, multipath paths, NFS mounts and link speeds of each target and host.

The facts script runs for real: on this machine's /sys and /proc (locally and through sshd, and in
network namespaces, whose veth links report a real speed), and on sysfs/procfs entries captured by
prometheus/node_exporter for the transports this machine lacks (FC, NVMe/FC, InfiniBand,
dm-multipath, NFS; see tests/data/sysfs/PROVENANCE.md).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from conftest import TESTS
from flashpoc.campaign import check, environment
from flashpoc.params import HostParams, campaign_from_dict
from flashpoc.hosts.facts import collect_host_facts, facts_script, parse_facts
from flashpoc.hosts.host import LocalHost, connect, quote

DATA = TESTS / "data" / "sysfs"


def unpack_ttar(archive: Path, into: Path) -> None:
    """Unpack a node_exporter ``ttar`` text archive (Directory/Path/Lines/Mode/SymlinkTo entries)."""
    lines = archive.read_text().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("Directory: "):
            (into / line[11:]).mkdir(parents=True, exist_ok=True)
        elif line.startswith("Path: "):
            path = into / line[6:]
            path.parent.mkdir(parents=True, exist_ok=True)
            i += 1
            if lines[i].startswith("SymlinkTo: "):
                path.symlink_to(lines[i][11:])
            else:
                count = int(lines[i].removeprefix("Lines: "))
                body = lines[i + 1:i + 1 + count]
                i += count
                text = "\n".join(body)
                path.write_text(text[:-3] if text.endswith("EOF") else text + "\n")
        i += 1


@pytest.fixture(scope="module")
def captured(tmp_path_factory):
    """(sys root, proc root) of the captured entries."""
    root = tmp_path_factory.mktemp("captured")
    unpack_ttar(DATA / "node_exporter_sys.ttar", root)
    (root / "proc" / "self").mkdir(parents=True)
    shutil.copy(DATA / "node_exporter_proc_10_mountinfo", root / "proc" / "self" / "mountinfo")
    return root / "sys", root / "proc"


def run_functions(sys_root, proc_root, calls: list[str]) -> dict:
    """Run the facts script's own functions (``calls``) on a captured tree and parse the output."""
    script = facts_script("fio", [], sys_root=str(sys_root), proc_root=str(proc_root)).replace("exit 0\n", "")
    script += "\n".join(calls) + "\n"
    result = LocalHost(HostParams(name="local")).run(f"sh -c {quote(script)}", purpose="facts")
    return parse_facts(result.stdout)


def test_multipath_nvme_fc_and_nfs_facts_of_captured_trees(captured):
    facts = run_functions(*captured, [
        "printf 'target.0.path=/dev/mapper/mpatha\\n'", "transport_facts target.0 dm-5",
        "printf 'target.1.path=/dev/mapper/mpathb\\n'", "transport_facts target.1 dm-6",
        "printf 'target.2.path=/dev/nvme0n1\\n'", "transport_facts target.2 nvme0n1",
        "printf 'target.3.path=/mnt/nfs/test/data01.dbf\\n'", "mount_facts target.3 /mnt/nfs/test/data01.dbf",
        "printf 'target.4.path=/mnt/nfs/test-dupe/redo01.log\\n'", "mount_facts target.4 /mnt/nfs/test-dupe/redo01.log",
    ])
    mpatha, mpathb, nvme, nfs4, nfs3 = facts["targets"]
    assert (mpatha["paths"], mpatha["paths_live"], mpatha["multipath"], mpatha["transport"]) == (4, 3, "dm mpathA", "scsi")
    assert (mpathb["paths"], mpathb["paths_live"], mpathb["multipath"]) == (2, 2, "dm mpathB")
    assert (nvme["transport"], nvme["paths"], nvme["paths_live"]) == ("nvme-fc", 4, 3)
    assert nvme["multipath"] == "nvme nvme-subsys0 round-robin"
    assert (nfs4["fstype"], nfs4["mount_source"]) == ("nfs4", "192.168.1.1:/srv/test")
    assert nfs4["mount_options"].startswith("rw,vers=4.0,rsize=1048576,wsize=1048576,")
    # /mnt/nfs/test-dupe holds two mounts: the NFSv3 one mounted over the NFSv4 one is what a file sees
    assert (nfs3["fstype"], nfs3["mount_options"].split(",")[1]) == ("nfs", "vers=3")
    assert [environment.transport_label(t) for t in facts["targets"]] == [
        "SCSI", "SCSI", "NVMe/FC", "NFS v4.0", "NFS v3"]

    links = facts["links"]
    assert links["fc"] == [{"name": "host0", "speed": "16 Gbit", "state": "Online"}]
    assert links["ib"] == [{"name": "mlx4_0/1", "rate": "40 Gb/sec (4X QDR)", "state": "4: ACTIVE",
                            "link_layer": "InfiniBand"}]
    assert links["net"] == [{"name": "bond0", "speed_mbps": None, "state": "up"},
                            {"name": "dmz", "speed_mbps": 1000, "state": "up"},
                            {"name": "int", "speed_mbps": 1000, "state": "up"}]

    rows = {r["check"]: r for r in environment.target_rows("db1", "target a", mpatha)}
    assert rows["target a: paths"]["status"] == "warn" and rows["target a: paths"]["value"] == "3 of 4"
    rows = {r["check"]: r for r in environment.target_rows("db1", "target n", nvme)}
    assert rows["target n: transport"]["value"] == "NVMe/FC"
    assert rows["target n: paths"]["status"] == "warn"
    assert environment.target_rows("db1", "target b", mpathb)[1]["status"] == "pass"
    # NFS on hosts whose fastest link is 1 Gb/s: a warning; FC and InfiniBand ports online pass
    link_rows = {r["check"]: r for r in environment.link_rows("db1", links, ["nfs"])}
    assert (link_rows["network"]["status"], link_rows["network"]["value"]) == ("warn", "1 Gb/s")
    assert "NFS over links of at most 1 Gb/s" in link_rows["network"]["detail"]
    assert link_rows["fc ports"]["status"] == link_rows["infiniband"]["status"] == "pass"
    assert environment.link_rows("db1", links, ["fc"])[0]["status"] == "pass"


def test_a_single_path_to_a_multipath_lun_warns():
    rows = environment.target_rows("db1", "target a", {"transport": "iscsi", "paths": 1, "paths_live": 1,
                                                       "multipath": "dm mpathC", "device": "dm-3"})
    assert rows[0]["value"] == "iSCSI"
    assert rows[1]["status"] == "warn" and "single path" in rows[1]["detail"]


def test_this_machine_s_disk_and_links(tmp_path):
    """The real /sys of this machine: a file target's disk gets a transport (virtio, SCSI, NVMe...)
    and the file system it is on; the links listed are /sys/class/net's, lo left out."""
    data = tmp_path / "t.dat"
    data.write_bytes(b"\0" * 4096)
    # Other tests running beside this one add and remove veth pairs in network namespaces:
    # a link present both before and after the collection must be listed, no other may be.
    before = {n for n in os.listdir("/sys/class/net") if n != "lo"}
    facts = collect_host_facts(LocalHost(HostParams(name="local")), [str(data)])
    after = {n for n in os.listdir("/sys/class/net") if n != "lo"}
    target = facts["targets"][0]
    if target["device"] is not None:
        assert target["transport"] is not None
        assert environment.transport_label(target) is not None
    mounts = [line.split() for line in Path("/proc/self/mountinfo").read_text().splitlines()]
    best = max((m for m in mounts if str(data).startswith(m[4].rstrip("/") + "/") or m[4] == "/"),
               key=lambda m: len(m[4]))
    assert target["fstype"] == best[best.index("-") + 1]
    names = {n["name"] for n in facts["links"]["net"]}
    assert before & after <= names <= before | after
    assert "lo" not in names


@pytest.mark.ssh
def test_check_through_sshd_shows_transport_rows(sshd, tmp_path):
    data = tmp_path / "t.dat"
    data.write_bytes(b"\0" * 65536)
    campaign = campaign_from_dict({"campaign": "env", "hosts": [sshd.host_params(name="h1")],
                                   "targets": [{"name": "t", "path": str(data), "allow_write": True}],
                                   "results_dir": str(tmp_path / "results")})
    table = check.check_environment(campaign)
    rows = {r.check: r for r in table.itertuples(index=False)}
    facts = table.attrs["facts"]["h1"]
    assert rows["target t: transport"].value == environment.transport_label(facts["targets"][0])
    assert rows["target t: transport"].status == "pass"


@pytest.mark.netns
def test_hosts_in_network_namespaces_report_their_veth_speed(tmp_path):
    """A namespace host sees only its own links: the veth end (10 Gb/s, what the kernel reports for
    veth) and no other; a loop device target is reached as a loop device."""
    from netns import loop_device, netns_hosts

    backing = tmp_path / "lun.img"
    backing.write_bytes(b"\0" * (4 << 20))
    with netns_hosts(tmp_path / "ns", 1) as (host,), loop_device(backing) as device:
        with connect(HostParams(**host.host_params())) as ssh_host:
            facts = collect_host_facts(ssh_host, [device])
    assert facts["links"]["net"] == [{"name": "eth0", "speed_mbps": 10000, "state": "up"}]
    assert facts["targets"][0]["transport"] == "loop"
    rows = environment.link_rows(host.name, facts["links"], ["iscsi"])
    assert (rows[0]["check"], rows[0]["value"], rows[0]["status"]) == ("network", "10 Gb/s", "pass")


def test_conditions_and_what_differs_between_campaigns():
    base = {"hosts": {"db1": {"links": {"net": [{"name": "eth0", "speed_mbps": 10000, "state": "up"}]},
                              "targets": {"/dev/mapper/a": {"transport": "iSCSI", "paths": 4, "paths_live": 4}}}},
            "database": {"dnfs": False, "parameters": {"log_buffer": "134217728"}}}
    other = {"hosts": {"db1": {"links": {"net": [{"name": "eth0", "speed_mbps": 25000, "state": "up"}]},
                               "targets": {"/dev/nvme0n1": {"transport": "NVMe/TCP", "paths": 4, "paths_live": 4}}}},
             "database": {"dnfs": True, "dnfs_servers": [{"svrname": "anf1"}],
                          "dnfs_channels": [{"svrname": "anf1"}, {"svrname": "anf1"}],
                          "parameters": {"log_buffer": "134217728"}}}
    conds = environment.conditions(base)
    assert conds["transport"] == "iSCSI" and conds["multipath paths"] == "4 of 4 live"
    assert conds["network"] == "fastest link 10 Gb/s"
    assert conds["Direct NFS"] == "off (kernel NFS, or no NFS)"
    on_nfs = {"hosts": {"db1": {"targets": {"/u02/oradata/x.dbf": {"transport": "NFS v3", "fstype": "nfs",
                                                                  "mount_options": "rw,vers=3,hard"}}}},
              "database": {"dnfs": False}}
    assert environment.conditions(on_nfs)["Direct NFS"] == "off: kernel NFS"
    diff = environment.differences({"iscsi": conds, "nvme": environment.conditions(other)})
    assert diff == ["transport: iSCSI (iscsi) vs NVMe/TCP (nvme)",
                    "network: fastest link 10 Gb/s (iscsi) vs fastest link 25 Gb/s (nvme)",
                    "Direct NFS: off (kernel NFS, or no NFS) (iscsi) vs on: 1 server(s), 2 channel(s) (nvme)"]


# --- the database side (no Oracle server here: tests/replay/oracle_replay.py serves recordings) ---
ORACLE_DATA = TESTS / "data" / "oracle"


def replay_database(**kwargs):
    import sys

    sys.path.insert(0, str(TESTS / "replay"))
    from oracle_replay import ReplayDatabase

    return ReplayDatabase(ORACLE_DATA / "facts_slob19c_rac2node.json",
                          ORACLE_DATA / "awr_rows_slob19c_rac2node_inst2_snap47_48.json", **kwargs)


def fio_campaign_with_oracle(tmp_path, database=None, **oracle):
    from conftest import quick_campaign

    extra = {"database": database} if database else {}
    return campaign_from_dict(quick_campaign(tmp_path, oracle={"dsn": "db1:1521/p30sdb", "user": "system", **oracle},
                                             **extra))


def test_direct_nfs_servers_and_calibrate_io_in_the_check_and_the_manifest(tmp_path, monkeypatch):
    """The recorded v$dnfs_servers of a public 12cR2 dNFS run and a public CALIBRATE_IO run (see
    tests/data/oracle/README.md): the check shows them, and the manifest's environment section keeps
    them with the transport of each target, whatever the engine."""
    import json

    from conftest import require_fio
    from flashpoc import phases
    from flashpoc.oracle import db as oracle

    require_fio()
    servers = json.loads((ORACLE_DATA / "dnfs_servers_ronekins_12cR2.json").read_text())["dnfs_servers"]
    db = replay_database(storage={"dnfs_servers": servers, "dnfs": True},
                         calibrate_io_file=ORACLE_DATA / "calibrate_io_dbwhisperer_18c.json")
    monkeypatch.setattr(oracle, "connect", db.connect)
    cfg = fio_campaign_with_oracle(tmp_path, calibrate_io={"num_physical_disks": 1, "max_latency_ms": 20})
    table = phases.run_check(cfg)
    rows = {r.check: r for r in table[table["host"] == "database"].itertuples()}
    assert (rows["direct nfs servers"].value, rows["direct nfs servers"].status) == (3, "pass")
    assert "?:/z-fbhosts_oradata NFS wtmax 524288 rtmax 524288" in rows["direct nfs servers"].detail
    assert rows["calibrate_io"].value == 154
    assert ("max 154 IOPS, 18,579 MB/s, latency 19 ms (num_physical_disks 1, max_latency 20 ms)"
            in rows["calibrate_io"].detail)
    assert ("calibrate_io", {"num_physical_disks": 1, "max_latency": 20}) in [
        (name, {k: v for k, v in binds.items() if k in ("num_physical_disks", "max_latency")})
        for name, binds in db.queries]

    manifest = json.loads((cfg.resolved().results_path() / "manifest.json").read_text())
    database = manifest["environment"]["database"]
    assert [s["dirname"] for s in database["dnfs_servers"]] == ["/z-fbhosts_oradata", "/z-fbhosts_orafra",
                                                                 "/z-fbhosts_oraconfig"]
    assert database["calibrate_io"]["max_iops"] == 154 and database["calibrate_io"]["recorded"]["max_mbps"] == 18579
    assert database["parameters"]["sga_max_size"] == "21474836480"
    conds = environment.conditions(manifest["environment"])
    assert conds["Direct NFS"] == "on: 3 server(s), 0 channel(s)"
    assert conds["CALIBRATE_IO"].startswith("max 154 IOPS, 18,579 MB/s, latency 19 ms")
    (host,) = manifest["environment"]["hosts"].values()
    assert all(t["transport"] for t in host["targets"].values())  # this machine's disk under the scratch file


def test_calibrate_io_is_off_unless_asked(tmp_path, monkeypatch):
    from conftest import require_fio
    from flashpoc import phases
    from flashpoc.oracle import db as oracle

    require_fio()
    db = replay_database()
    monkeypatch.setattr(oracle, "connect", db.connect)
    table = phases.run_check(fio_campaign_with_oracle(tmp_path))
    assert "calibrate_io" not in set(table["check"])
    assert not [q for q, _ in db.queries if q.startswith("calibrate_io")]


def test_calibrate_io_parameters_are_checked_before_any_io(tmp_path):
    from flashpoc.core.errors import ParameterError

    with pytest.raises(ParameterError, match=r"oracle\.calibrate_io\.num_physical_disks"):
        fio_campaign_with_oracle(tmp_path, calibrate_io={"num_physical_disks": 0})


def test_a_small_direct_nfs_write_size_and_unequal_asm_disks_warn():
    rows = {r["check"]: r for r in environment.database_rows({
        "dnfs_servers": [{"svrname": "nas1", "dirname": "/ora", "nfsversion": "3.0", "wtmax": 16384, "rtmax": 16384}],
        "asm_diskgroups": [{"name": "DATA", "type": "EXTERN"}],
        "asm_disks": [{"diskgroup": "DATA", "path": "/dev/mapper/a", "total_mb": 102400},
                      {"diskgroup": "DATA", "path": "/dev/mapper/b", "total_mb": 204800}]})}
    assert rows["direct nfs servers"]["status"] == "warn" and "wtmax under 32768" in rows["direct nfs servers"]["detail"]
    assert rows["asm disks DATA"]["status"] == "warn"
    assert rows["asm disks DATA"]["detail"].startswith("2 disks of 100.0 GiB / 200.0 GiB (EXTERN)")


def test_the_report_states_what_differed_between_compared_campaigns(tmp_path, monkeypatch):
    """Two real checks on this machine: one campaign's scratch file on the disk under tmp_path, the
    other's on /dev/shm (tmpfs): the conditions of the first's report name the file systems of both."""
    import uuid

    from conftest import quick_campaign, require_fio
    from flashpoc import phases

    require_fio()  # the check of a fio campaign asks fio its version
    if not os.path.isdir("/dev/shm") or not os.access("/dev/shm", os.W_OK):
        pytest.skip("needs a writable /dev/shm (tmpfs)")
    monkeypatch.setenv("FLASHPOC_ROOT", str(tmp_path))
    shm = Path("/dev/shm") / f"flashpoc-test-{uuid.uuid4().hex}"
    shm.mkdir()
    (shm / "scratch.dat").touch()
    os.truncate(shm / "scratch.dat", 64 * 1024**2)
    (tmp_path / "in-memory").symlink_to(shm)  # nothing is created under /dev, even through a link: only read
    try:
        disk = quick_campaign(tmp_path, campaign="disk")
        memory = quick_campaign(tmp_path, campaign="memory", workloads=[{"name": "randread-4k", "rw": "randread"}],
                                targets=[{"name": "scratch", "path": str(tmp_path / "in-memory" / "scratch.dat"),
                                          "size": "64m"}])
        manifests = {}
        for values in (disk, memory):
            cfg = campaign_from_dict(values)
            phases.run_check(cfg)
            manifests[values["campaign"]] = json.loads((cfg.resolved().results_path() / "manifest.json").read_text())
    finally:
        shutil.rmtree(shm, ignore_errors=True)
    on_disk = environment.conditions(manifests["disk"]["environment"])["file system"]
    assert on_disk == manifests["disk"]["host_facts"]["local"]["targets"][0]["fstype"]
    assert environment.conditions(manifests["memory"]["environment"])["file system"] == "tmpfs"
    cfg = campaign_from_dict({**disk, "report": {"label": "disk", "compare": [{"campaign": "memory",
                                                                              "label": "memory"}]}}).resolved()
    lines = environment.condition_lines(cfg, manifests["disk"])
    assert lines[0].startswith("- **Storage path and database**: ")
    assert f"file system: {on_disk} (disk) vs tmpfs (memory)" in lines[1]
    alone = campaign_from_dict(disk).resolved()
    assert len(environment.condition_lines(alone, manifests["disk"])) == 1


def test_nfs_mount_options_of_the_captured_mounts():
    """The captured NFS mounts (node_exporter's mountinfo): the NFSv4.0 mount is hard with 1 MiB
    transfers (passes); the NFSv3 one over it uses 32 KiB transfers, Oracle's minimum (passes);
    a soft mount, as Oracle forbids for data files, warns."""
    lines = (DATA / "node_exporter_proc_10_mountinfo").read_text().splitlines()
    options = [line.split(" - ")[1].split()[2] for line in lines if " - nfs" in line]
    v4, v3 = options[0], options[-1]
    assert environment.nfs_option_rows("db1", "target a", v4)[0]["status"] == "pass"
    assert environment.nfs_option_rows("db1", "target a", v4)[0]["detail"] == \
        "hard, rsize=1048576, wsize=1048576, proto=tcp"
    assert environment.nfs_option_rows("db1", "target a", v3)[0]["status"] == "pass"
    soft = environment.nfs_option_rows("db1", "target a", v3.replace("hard", "soft").replace("rsize=32768",
                                                                                               "rsize=16384"))[0]
    assert (soft["status"], soft["value"]) == ("warn", "soft, rsize=16384")


def test_the_stated_datafiles_against_v_dnfs_servers(tmp_path, monkeypatch):
    """database.datafiles: a campaign stating kNFS on a database whose v$dnfs_servers lists the
    recorded FlashBlade exports fails, stating local datafiles there warns; stating dNFS passes;
    stating dNFS on the recorded RAC database (ASM, no Direct NFS) warns. The report's conditions
    state where the datafiles are."""
    from conftest import require_fio
    from flashpoc import phases
    from flashpoc.oracle import db as oracle

    require_fio()
    servers = json.loads((ORACLE_DATA / "dnfs_servers_ronekins_12cR2.json").read_text())["dnfs_servers"]
    expected = {("knfs", True): "fail", ("dnfs", True): "pass", ("dnfs", False): "warn", ("local", True): "warn",
                ("local", False): "pass", ("knfs", False): "pass"}
    for (stated, dnfs), status in expected.items():
        db = replay_database(storage={"dnfs_servers": servers, "dnfs": True} if dnfs else None)
        monkeypatch.setattr(oracle, "connect", db.connect)
        cfg = fio_campaign_with_oracle(tmp_path / f"{stated}-{dnfs}", database={"datafiles": stated})
        table = phases.run_check(cfg)
        row = table[table["check"] == "nfs client"].iloc[0]
        assert row["status"] == status, (stated, dnfs, row["detail"])
    manifest = json.loads((cfg.resolved().results_path() / "manifest.json").read_text())
    assert environment.manifest_conditions(manifest)["datafiles (stated)"] == "NFS, kernel client"


def test_put_and_firstline_keep_a_values_first_line_without_carriage_returns(tmp_path):
    """The script's put and firstline (shell builtins only): the first line of a value, every carriage
    return removed, ``unknown`` for an empty one; the first line of a file (CRLF or without a newline),
    nothing for a missing one."""
    (tmp_path / "crlf").write_bytes(b"Red Hat\r\nsecond\r\n")
    (tmp_path / "bare").write_bytes(b"no newline")
    script = facts_script("fio", [], sys_root=str(tmp_path), proc_root=str(tmp_path)).replace("exit 0\n", "")
    script += "\n".join([
        "put a \"$(printf 'Oracle Linux 9\\r\\nsecond line')\"", "put b ''", "put c \"$(printf 'd\\rb\\r1\\r')\"",
        f"put d \"$(firstline {tmp_path / 'crlf'})\"", f"put e \"$(firstline {tmp_path / 'bare'})\"",
        f"put f \"[$(firstline {tmp_path / 'missing'})]\"", "exit 0"]) + "\n"
    out = LocalHost(HostParams(name="local")).run(f"sh -c {quote(script)}", purpose="facts").stdout
    assert out.splitlines()[-6:] == ["a=Oracle Linux 9", "b=unknown", "c=db1", "d=Red Hat", "e=no newline", "f=[]"]

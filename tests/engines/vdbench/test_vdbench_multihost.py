"""The REAL vdbench driving two load hosts over SSH: network namespaces with their own address
and sshd (tests/netns.py), vdbench's master on h1 and its slaves started with ``hd=`` lines
and ``shell=ssh``. h2's sshd listens on port 2222 only: vdbench's ``hd=`` lines have no port,
so the workbook's ssh config must carry it. This machine's host name resolves to a loopback
address, as many do, so vdbench.controller_address gives the slaves h1's address to call.
Every namespace sees the same files: the vdbench install, the shared LUN (a file) and the
workdirs are at the same paths on every host."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from pathlib import Path

import pytest

from conftest import real_vdbench
from flashpoc import phases
from flashpoc.engines.vdbench import measure as phases_vdbench
from flashpoc.core.errors import RemoteError
from flashpoc.params import campaign_from_dict
from netns import netns_hosts
from ssh_server import start_sshd

pytestmark = pytest.mark.netns

MIB = 1024**2
SSH_PORT = 2222


@pytest.fixture(scope="module")
def hosts(tmp_path_factory):
    """h1 (sshd on port 22) and h2, whose sshd listens on port 2222 and not on 22."""
    real_vdbench()
    tmp = tmp_path_factory.mktemp("netns")
    with netns_hosts(tmp, 2) as (h1, h2):
        h2.sshd.stop()
        h2.sshd = start_sshd(tmp / "h2-2222", address=h2.sshd.address, netns=h2.netns,
                             user_key=tmp / "id_ed25519", port=SSH_PORT)
        try:
            yield h1, h2
        finally:
            h2.sshd.stop()


@pytest.fixture(scope="module")
def lun(tmp_path_factory):
    """A 32 MiB file of random data both hosts see at the same path (one file system)."""
    path = tmp_path_factory.mktemp("lun") / "lun1.dat"
    path.write_bytes(os.urandom(32 * MIB))
    return path


def campaign(tmp_path, hosts, lun, **overrides):
    vdbench = str(real_vdbench())
    h1, h2 = hosts
    values = {
        "campaign": "vdb2h",
        "engine": "vdbench",
        "hosts": [h.host_params(vdbench=vdbench, workdir=str(tmp_path / "work"), connect_timeout_s=3,
                                command_timeout_s=120) for h in (h1, h2)],
        "targets": [{"name": "lun1", "path": str(lun), "size": "32m"}],
        "precondition": {"filled_elsewhere": ["lun1"]},  # the fixture's random data
        "vdbench": {"elapsed_s": 2, "interval_s": 1, "controller_address": h1.sshd.address},
        "workloads": [{"name": "randread-4k", "rw": "randread", "bs": "4k"}],
        "probe": {"strategy": "linear", "min_threads": 1, "max_threads": 3, "step": 1, "host_scaling": False},
        "sweep": {"plan": "guide", "max_threads": 2, "step": 1},
        "results_dir": str(tmp_path / "results"),
    }
    values.update(overrides)
    return campaign_from_dict(values)


def avg_lines(html: str) -> list[list[str] | None]:
    """vdbench's own report, read apart from the workbook's parser: per ``Starting RD=`` block the
    columns of its ``avg_`` line (None for a block without one: a host given no thread)."""
    blocks = re.split(r"Starting RD=", html)[1:]
    out = []
    for block in blocks:
        line = next((line for line in block.splitlines() if re.match(r"^\S+\s+avg_\d+-\d+\s", line)), None)
        out.append(line.split() if line else None)
    return out


def stored_group(tmp_path, phase):
    (group,) = (tmp_path / "results" / "vdb2h" / "points" / phase).iterdir()
    return group, json.loads((group / "points.json").read_text())


def test_probe_and_sweep_on_two_hosts_equal_vdbench_s_own_reports(hosts, tmp_path, lun):
    """The check runs on h1 (the controller) exactly what vdbench will: h1's Java resolves the
    host name to vdbench.controller_address, and ``ssh H2 -l root`` reaches h2 on port 2222
    through the workbook's ssh config. The probe and the sweep each run one vdbench invocation
    over both hosts; every stored total and per-host number is the avg line of vdbench's
    totals.html, hd1.html and hd2.html, and the I/Os each host was given follow vdbench's
    spread of the threads (at 1 thread h2 gets none and prints no avg line)."""
    h1, h2 = hosts
    cfg = campaign(tmp_path, hosts, lun)
    started = time.monotonic()
    table = phases.run_check(cfg)
    rows = {(r.host, r.check): r for r in table.itertuples(index=False)}
    assert rows[("h1", "vdbench -s parmfile")].status == "pass"
    callback = rows[("h1", "slaves call back")]
    assert (callback.status, callback.value) == ("pass", h1.sshd.address)
    assert callback.detail.startswith("vdbench's Java resolves the host name ")
    assert callback.detail.endswith(f" to {h1.sshd.address} (vdbench.controller_address); the slaves call the "
                                    "master there")
    ssh = rows[("h1", "ssh to h2")]
    assert ssh.status == "pass" and ssh.detail.startswith(f"ssh {h2.sshd.address} -l root (with the ssh config")

    probe = phases.run_probe(cfg, progress=False)
    assert [p["threads"] for p in probe["points"]] == [1, 2, 3]
    group, stored = stored_group(tmp_path, "probe")
    parmfile = (group / "parmfile").read_text()
    assert f"hd=h2,system={h2.sshd.address}" in parmfile and "shell=ssh" in parmfile and "2222" not in parmfile
    console = (group / "console.txt").read_text()
    assert f"Starting slave: ssh {h2.sshd.address} -l root " in console  # vdbench's own command, no port
    assert f"Using file 'override_ip.txt': {h1.sshd.address}" in console
    run_dir = Path(cfg.hosts[0].workdir) / "vdb2h" / "probe" / group.name
    assert f"Host {h2.sshd.address}\n  Port {SSH_PORT}\n" in (run_dir / "ssh" / "config").read_text()

    totals = avg_lines((group / "output__totals.html").read_text())
    per_host = {name: avg_lines((group / f"output__{name}.html").read_text()) for name in ("h1", "h2")}
    assert per_host["h2"][0] is None  # threads=1: vdbench gave h2's slave no thread ("Workload removed")
    for i, row in enumerate(stored):
        assert row["iops"] == float(totals[i][2]) and row["lat_mean_ms"] == float(totals[i][6])
        assert row["queue_depth"] == float(totals[i][11])
        for name in ("h1", "h2"):
            mine, theirs = row["per_host"][name], per_host[name][i]
            if theirs is None:
                assert mine == {"outstanding_ios": 0}
                continue
            assert (mine["iops"], mine["lat_mean_ms"], mine["queue_depth"], mine["host_cpu_busy_pct"]) == (
                float(theirs[2]), float(theirs[6]), float(theirs[11]), float(theirs[12]))
        # the hosts' reports add up to the total (each printed to 0.01 IOPS)
        assert sum(h.get("iops", 0.0) for h in row["per_host"].values()) == pytest.approx(row["iops"], abs=0.02)
    # vdbench's spread: threads=1 -> 1 and 0, threads=2 -> 1 and 1, threads=3 -> 2 and 1
    assert [(r["per_host"]["h1"]["outstanding_ios"], r["per_host"]["h2"]["outstanding_ios"]) for r in stored] == [
        (1, 0), (1, 1), (2, 1)]
    assert probe["points"][0]["per_host"]["h2"] == {"outstanding_ios": 0}

    rows = phases.run_sweep(cfg, progress=False)
    assert rows["threads"].tolist() == [1, 2] and not rows["reused"].any()
    group, stored = stored_group(tmp_path, "sweep")
    totals = avg_lines((group / "output__totals.html").read_text())
    hd1 = avg_lines((group / "output__h1.html").read_text())
    assert [r["iops"] for r in stored] == [float(t[2]) for t in totals]
    assert [r["per_host"]["h1"]["iops"] for r in stored] == [float(t[2]) for t in hd1]
    print(f"check, probe (3 points) and sweep (2 points) on two hosts: {time.monotonic() - started:.1f} s")


def test_a_host_that_cannot_be_reached_is_named_with_its_ssh_error(hosts, tmp_path, lun):
    """h2's sshd stops after the check: the probe stops before vdbench starts, naming h2 (the
    parameters' paths are made canonical and the targets read on every host right before each
    invocation). With h2 back but out of the
    controller's reach (h1 has no route to it), vdbench's master says only "Slave h2-0
    prematurely terminated"; the error quotes the slave's own output (its ssh's words, from
    h2-0.stdout.html) and says where vdbench's output directory is."""
    h1, h2 = hosts
    cfg = campaign(tmp_path, hosts, lun, probe={"strategy": "linear", "min_threads": 2, "max_threads": 2, "step": 1})
    assert phases.run_check(cfg).query("status == 'fail'").empty
    h2.sshd.stop()
    try:
        with pytest.raises(RemoteError, match=rf"^h2: cannot connect to {re.escape(h2.sshd.address)}:{SSH_PORT} "
                                              "to (make the parameters' paths canonical|read the targets' (identities|sizes))"):
            phases.run_probe(cfg, progress=False)
    finally:
        h2.revive()  # the same sshd (port, host key) again
    assert not (Path(cfg.hosts[0].workdir) / "vdb2h" / "probe").exists()  # vdbench never started
    route = ["ip", "-n", h1.netns, "route", "add", "unreachable", f"{h2.sshd.address}/32"]
    subprocess.run(route, check=True, capture_output=True)
    try:
        with pytest.raises(RemoteError) as info:
            phases.run_probe(cfg, progress=False)
    finally:
        subprocess.run(["ip", "-n", h1.netns, "route", "del", "unreachable", f"{h2.sshd.address}/32"],
                       check=True, capture_output=True)
    message = str(info.value)
    assert "vdbench exited" in message and "Slave h2-0 prematurely terminated." in message
    assert (f"slave h2-0 (h2-0.stdout.html): ssh: connect to host {h2.sshd.address} port {SSH_PORT}: "
            "No route to host") in message
    output = re.search(r"vdbench's output directory: h1:(\S+) \(the run's files: (\S+)\)$", message)
    assert output is not None and Path(output.group(1), "h2-0.stdout.html").is_file()
    points = tmp_path / "results" / "vdb2h" / "points"
    assert [p.parent.name for p in points.rglob("point*.json")] == []  # nothing stored as a point
    (kept,) = (points / "failed").iterdir()  # the run's files kept here too, the slave's words with them
    assert str(kept) == output.group(2) and kept.name.startswith("probe-")
    assert (f"ssh: connect to host {h2.sshd.address} port {SSH_PORT}: No route to host"
            in (kept / "output__h2-0.stdout.html").read_text())


def test_a_loopback_controller_address_fails_the_check_as_it_fails_vdbench(hosts, tmp_path, lun):
    """Without vdbench.controller_address the check resolves the host name as vdbench's Java does;
    where that gives 127.0.0.1 it fails, naming the parameter, and vdbench itself refuses to
    start the slaves."""
    h1, _ = hosts
    cfg = campaign(tmp_path, hosts, lun, vdbench={"elapsed_s": 2, "interval_s": 1})
    table = phases.run_check(cfg)
    row = next(r for r in table.itertuples(index=False) if r.check == "slaves call back")
    if row.value != "127.0.0.1":
        pytest.skip(f"this machine's host name resolves to {row.value}, not to 127.0.0.1")
    assert row.status == "fail" and "Invalid network definition for multi-host processing" in row.detail
    assert "set vdbench.controller_address to this host's address that the other hosts reach" in row.detail
    assert h1.sshd.address in row.detail  # one of the controller's own addresses, offered
    with phases.open_campaign(cfg) as wb, pytest.raises(RemoteError) as info:
        phases_vdbench.run_invocation(wb, "probe", phases_vdbench.probe_run_at(wb.cfg, 1))
    assert "Current system IP address is '127.0.0.1'. Invalid network definition" in str(info.value)

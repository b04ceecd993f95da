"""Three real load hosts on this machine: network namespaces with their own address and sshd
(tests/netns.py). The check fans out to all of them; a sweep runs fio on all three at once;
one host loses its network (its link taken down) during the check and during a sweep."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
import traceback

import pytest

from conftest import quick_campaign, require_fio
from flashpoc import phases
from flashpoc.errors import RemoteError
from flashpoc.params import campaign_from_dict
from netns import netns_hosts

pytestmark = pytest.mark.netns

MIB = 1024**2


@pytest.fixture(scope="module")
def hosts(tmp_path_factory):
    with netns_hosts(tmp_path_factory.mktemp("netns"), 3) as made:
        yield made


@pytest.fixture
def shared_lun(tmp_path):
    """A 32 MiB file of random data all three hosts see at the same path (one file system)."""
    path = tmp_path / "lun1.dat"
    with open(path, "wb") as handle:
        for _ in range(32):
            handle.write(os.urandom(MIB))
    return path


def campaign(tmp_path, hosts, lun, **overrides):
    values = quick_campaign(
        tmp_path, campaign="three",
        hosts=[h.host_params(workdir=str(tmp_path / "work" / h.name), command_timeout_s=8, connect_timeout_s=3)
               for h in hosts],
        targets=[{"name": "lun1", "path": str(lun)}],
        workloads=[{"name": "randread-4k", "rw": "randread", "bs": "4k"}],
        sweep={"plan": "guide", "max_threads": 3, "step": 1})
    values.update(overrides)
    return campaign_from_dict(values)


def test_the_check_runs_on_every_host_and_a_dead_one_is_a_failed_row(hosts, tmp_path, shared_lun):
    require_fio()
    cfg = campaign(tmp_path, hosts, shared_lun)
    hosts[2].cut()
    try:
        table = phases.run_check(cfg)
    finally:
        hosts[2].mend()
    rows = {(r.host, r.check): r for r in table.itertuples(index=False)}
    for name in ("h1", "h2"):
        assert rows[(name, "reachable")].status == "pass"
        assert rows[(name, "target lun1: exists")].status == "pass"
        assert rows[(name, "clock")].status == "pass"  # the same kernel clock: within the round-trip
    dead = rows[("h3", "reachable")]
    assert dead.status == "fail" and f"cannot connect to {hosts[2].sshd.address}:22" in dead.detail
    assert not any(host == "h3" and check != "reachable" for host, check in rows)
    assert rows[("(campaign)", "clock skew between hosts")].status == "pass"
    same = rows[("(campaign)", "target lun1: same on all hosts")]
    assert same.value == "partly" and same.detail.endswith("32.0 MiB on 2 of 3 hosts")


def test_a_sweep_on_three_hosts_and_a_host_that_loses_its_network(hosts, tmp_path, shared_lun):
    """fio runs on the three hosts at once and every point has each host's IOPS. The link of
    h3 goes down after the first point: the sweep ends naming h3 and the point, within the
    command timeout; the point done stays stored, and with the link back the rerun measures
    only the rest."""
    require_fio()
    cfg = campaign(tmp_path, hosts, shared_lun)
    points = tmp_path / "results" / "three" / "points" / "sweep"
    outcome: dict[str, object] = {}

    def sweep():
        try:
            phases.run_sweep(cfg, progress=False)
        except RemoteError as error:
            outcome["error"] = error
            outcome["at"] = time.monotonic()

    worker = threading.Thread(target=sweep)
    worker.start()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (points.exists() and any(points.glob("*/point.json"))):
        time.sleep(0.1)
    hosts[2].cut()
    cut_at = time.monotonic()
    try:
        worker.join(timeout=90)
        if worker.is_alive():  # say where it waits
            print("".join(traceback.format_stack(sys._current_frames()[worker.ident])))
        assert not worker.is_alive()
    finally:
        hosts[2].mend()
    message = str(outcome["error"])
    # the point's command timed out, or its channel never opened and the watchdog ended it
    assert message.startswith("h3: ") and "sweep randread-4k " in message and "threads" in message
    print(f"the sweep ended {outcome['at'] - cut_at:.1f} s after the cut: {message}")
    # at worst: the client's 8 s plus the 25 s watchdog, then asking each host the same way
    assert outcome["at"] - cut_at < 2 * (8 + 25) + 5
    done = {p.name: json.loads((p / "point.json").read_text()) for p in points.iterdir() if (p / "point.json").exists()}
    assert len(done) >= 1 and all(r["hosts"] == "h1,h2,h3" for r in done.values())
    first = next(iter(done.values()))
    assert set(first["per_host"]) == {"h1", "h2", "h3"}
    assert first["iops"] == pytest.approx(sum(h["iops"] for h in first["per_host"].values()))

    rows = phases.run_sweep(cfg, progress=False)
    assert rows["threads"].tolist() == [1, 2, 3]
    for name, row in done.items():
        again = json.loads((points / name / "point.json").read_text())
        assert again["completed_utc"] == row["completed_utc"]  # not measured again

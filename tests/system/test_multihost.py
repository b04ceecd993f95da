"""Three real load hosts on this machine: network namespaces with their own address and sshd
(tests/netns.py). The check fans out to all of them; a sweep runs fio on all three at once;
one host loses its network (its link taken down) during the check and during a sweep."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import traceback

import pandas as pd
import pytest
import yaml

from conftest import Seconds, ctrl_c_once, processes_naming, quick_campaign, require_fio, running_in, still_running
from flashpoc import phases
from flashpoc.core.errors import RemoteError
from flashpoc.engines.fio.parse import parse_fio_output
from flashpoc.params import campaign_from_dict
from netns import netns_hosts

pytestmark = pytest.mark.netns

MIB = 1024**2
COMMAND_TIMEOUT_S, CONNECT_TIMEOUT_S = 16, 3
"""The hosts' timeouts: a point of 3 s on three hosts ends well within 16 s on a busy machine."""
ANSWER_S = min(CONNECT_TIMEOUT_S, COMMAND_TIMEOUT_S / 4)
"""How long, after fio's client failed, each host is given to answer (flashpoc.engines.fio.run)."""


@pytest.fixture(scope="module")
def hosts(tmp_path_factory):
    with netns_hosts(tmp_path_factory.mktemp("netns"), 3) as made:
        yield made


def test_hosts_made_side_by_side_get_a_bridge_and_a_subnet_of_their_own(tmp_path):
    """Test sessions and pytest-xdist workers make namespace hosts at the same time: each set gets
    its own bridge and /24 (they were named after the pid, so a second set in one process failed
    and two sessions could share a subnet), and each host answers SSH on its own address."""
    from flashpoc.params import HostParams
    from flashpoc.hosts.host import connect

    with netns_hosts(tmp_path / "a", 1) as (first,), netns_hosts(tmp_path / "b", 1) as (second,):
        assert first.netns != second.netns and first.link != second.link
        assert first.sshd.address.rsplit(".", 1)[0] != second.sshd.address.rsplit(".", 1)[0]
        for host in (first, second):
            with connect(HostParams(**host.host_params())) as ssh_host:
                assert ssh_host.run("echo up", purpose="reach").stdout == "up\n"


@pytest.fixture
def shared_lun(tmp_path):
    """A 32 MiB file of random data all three hosts see at the same path (one file system)."""
    path = tmp_path / "lun1.dat"
    with open(path, "wb") as handle:
        for _ in range(32):
            handle.write(os.urandom(MIB))
    return path


def campaign_values(tmp_path, hosts, lun, **overrides):
    values = quick_campaign(
        tmp_path, campaign="three",
        hosts=[h.host_params(workdir=str(tmp_path / "work" / h.name), command_timeout_s=COMMAND_TIMEOUT_S,
                             connect_timeout_s=CONNECT_TIMEOUT_S)
               for h in hosts],
        targets=[{"name": "lun1", "path": str(lun)}],
        precondition={"filled_elsewhere": ["lun1"]},  # the test's random data
        workloads=[{"name": "randread-4k", "rw": "randread", "bs": "4k"}],
        sweep={"plan": "guide", "max_threads": 3, "step": 1})
    values.update(overrides)
    return values


def campaign(tmp_path, hosts, lun, **overrides):
    return campaign_from_dict(campaign_values(tmp_path, hosts, lun, **overrides))


def sweep_and_fail(cfg, points, fail, *, after_first_s: float = 0.0) -> tuple[str, float]:
    """Run the sweep in a thread, call ``fail()`` ``after_first_s`` seconds after its first point is
    stored, wait for the sweep to end with a RemoteError; return its message and the seconds
    from ``fail()`` to the error."""
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
    time.sleep(after_first_s)
    fail()
    failed_at = time.monotonic()
    worker.join(timeout=90)
    if worker.is_alive():  # say where it waits
        print("".join(traceback.format_stack(sys._current_frames()[worker.ident])))
    assert not worker.is_alive()
    return str(outcome["error"]), float(outcome["at"]) - failed_at


def assert_all_clients_bounds_the_sum(clients_output: str, row: dict) -> None:
    """fio's ``All clients`` entry sums the hosts' I/Os over the LONGEST host's runtime (stat.c
    sum_thread_stats keeps the max runtime; iops = 1000 x total_ios / runtime), while each host's
    IOPS (its jobs summed by group_reporting) are its I/Os over its OWN runtime, and the point's
    ``iops`` is their sum. So that sum is at least fio's aggregate and at most the aggregate x
    longest / shortest runtime; the two are equal only when every host ran equally long, which a
    busy machine does not give (hosts started a few ms apart differ by a few % over a 1 s run)."""
    entries = [r for r in parse_fio_output(clients_output) if r["direction"] == "read"]
    hosts = [r for r in entries if not r["is_aggregate"]]
    (aggregate,) = [r for r in entries if r["is_aggregate"]]
    assert len(hosts) == 3
    runtimes = [r["runtime_ms"] for r in hosts]
    assert aggregate["total_ios"] == sum(r["total_ios"] for r in hosts) and aggregate["runtime_ms"] == max(runtimes)
    assert aggregate["iops"] == pytest.approx(1000 * aggregate["total_ios"] / aggregate["runtime_ms"], abs=1e-6)
    assert row["all_clients_iops"] == aggregate["iops"]
    assert row["iops"] == pytest.approx(sum(r["iops"] for r in hosts), rel=1e-12)
    printed = 0.5e-6 * (len(hosts) + 1)  # fio prints each IOPS value to 6 decimals
    assert aggregate["iops"] - printed <= row["iops"] <= aggregate["iops"] * max(runtimes) / min(runtimes) + printed
    print(f"host runtimes {runtimes} ms: hosts' sum {row['iops']:.1f} IOPS, All clients {aggregate['iops']:.1f}")


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
    controller = rows[("(campaign)", "fio on the controller")]
    assert controller.status == "pass" and controller.detail.endswith("the same release as every host")
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
    try:
        message, seconds = sweep_and_fail(cfg, points, hosts[2].cut)
    finally:
        hosts[2].mend()
    # the point's command timed out, or its channel never opened and the watchdog ended it
    assert message.startswith("h3: ") and "sweep randread-4k " in message and "threads" in message
    print(f"the sweep ended {seconds:.1f} s after the cut: {message}")
    assert seconds < COMMAND_TIMEOUT_S + 5  # within the command timeout (5: slack for a loaded machine)
    done = {p.name: json.loads((p / "point.json").read_text()) for p in points.iterdir() if (p / "point.json").exists()}
    assert len(done) >= 1 and all(r["hosts"] == "h1,h2,h3" for r in done.values())
    first = next(iter(done.values()))
    assert set(first["per_host"]) == {"h1", "h2", "h3"}
    assert first["iops"] == pytest.approx(sum(h["iops"] for h in first["per_host"].values()))
    # fio's own All clients aggregate agrees with the hosts' sum; the client's whole output is kept
    clients = (points / first["point_id"] / "clients.json").read_text()
    assert '"jobname" : "All clients"' in clients
    assert_all_clients_bounds_the_sum(clients, first)

    rows = phases.run_sweep(cfg, progress=False)
    assert rows["threads"].tolist() == [1, 2, 3]
    for name, row in done.items():
        again = json.loads((points / name / "point.json").read_text())
        assert again["completed_utc"] == row["completed_utc"]  # not measured again

    # the report shows each host: the busiest point's hosts add up to its total
    report = phases.build_report(cfg)
    best = rows.loc[rows["iops"].idxmax()]
    assert report.hosts["threads"].tolist() == [best["threads"]] * 4
    assert report.hosts["host"].tolist() == ["h1", "h2", "h3", "(all hosts)"]
    assert report.hosts["iops"].tolist() == pytest.approx([best["per_host"][h]["iops"] for h in ("h1", "h2", "h3")] + [
        best["iops"]])
    assert report.hosts["iops_share_pct"].iloc[:3].sum() == pytest.approx(100.0, abs=0.2)
    assert "per_host_iops" in report.charts and report.files["per_host.csv"].is_file()
    assert len(pd.read_csv(report.files["per_host.csv"])) == 3 * 4  # 3 points x (3 hosts + total)


def test_a_host_killed_during_a_sweep(hosts, tmp_path, shared_lun):
    """Every process of h3 (its sshd and its fio server) is killed while the second point runs,
    as a crash does. The sweep ends naming h3 and the point, the completed point stays stored,
    and once h3 is back (its sshd started again) the rerun measures only the rest."""
    require_fio()
    cfg = campaign(tmp_path, hosts, shared_lun, fio={"runtime_s": 3, "ramp_s": 0})
    points = tmp_path / "results" / "three" / "points" / "sweep"
    try:
        message, seconds = sweep_and_fail(cfg, points, hosts[2].kill, after_first_s=1.0)  # into the second point
    finally:
        hosts[2].revive()
    print(f"the sweep ended {seconds:.1f} s after the kill: {message}")
    assert "h3" in message and "sweep randread-4k 2 threads" in message
    assert seconds < COMMAND_TIMEOUT_S + 5  # well within the command timeout: the connection is refused
    done = {p.name: json.loads((p / "point.json").read_text()) for p in points.iterdir() if (p / "point.json").exists()}
    assert [r["threads"] for r in done.values()] == [1]

    rows = phases.run_sweep(cfg, progress=False)
    assert rows["threads"].tolist() == [1, 2, 3] and rows["reused"].tolist() == [True, False, False]
    assert all(set(r) == {"h1", "h2", "h3"} for r in rows["per_host"])


@pytest.mark.parametrize("multi_host", ["client-server", "per-host"])
def test_a_hung_host_is_named_within_the_command_timeout(hosts, tmp_path, shared_lun, multi_host):
    """Every process of h3 is frozen (SIGSTOP: its sshd, its fio server, the point's fio) a second
    into the second point: a hung host, whose link is up and whose TCP connections stay open. The
    sweep ends naming h3 within the hosts' command timeout, and says for how long it went
    unanswered; the point done stays stored, and once h3 runs again the rerun measures the rest."""
    require_fio()
    cfg = campaign(tmp_path, hosts, shared_lun, fio={"runtime_s": 3, "ramp_s": 0, "multi_host": multi_host})
    points = tmp_path / "results" / "three" / "points" / "sweep"
    frozen: list[int] = []
    try:
        message, seconds = sweep_and_fail(cfg, points, lambda: frozen.extend(hosts[2].hang()), after_first_s=1.0)
    finally:
        hosts[2].wake(frozen)
    print(f"the sweep ended {seconds:.1f} s after h3 froze: {message}")
    assert message.startswith("h3: sweep randread-4k 2 threads")
    assert seconds < COMMAND_TIMEOUT_S + 5  # the point started before h3 froze (5: slack for a loaded machine)
    if multi_host == "per-host":  # h3's own command: the point's timeout
        assert f"did not finish within {COMMAND_TIMEOUT_S} s (no answer from the host by then" in message
    else:  # fio --client here, then each host asked whether it answers, within the point's timeout
        assert f"no answer from this host within {ANSWER_S:g} s (down or hung" in message
    done = [json.loads(p.read_text()) for p in points.glob("*/point.json")]
    assert [r["threads"] for r in done] == [1]
    rows = phases.run_sweep(cfg, progress=False)
    assert rows["threads"].tolist() == [1, 2, 3] and rows["reused"].tolist() == [True, False, False]


@pytest.fixture
def loop_lun(shared_lun):
    """The shared LUN as a block device (a loop device over its file)."""
    from netns import loop_device

    with loop_device(shared_lun) as device:
        yield device


THROTTLE_SLACK = 0.2  # a cgroup throttle over short runs lets through more than its limit: ~10 % quiet, 18 % seen at load 19
#: each host's limit: low enough that one thread reaches it even when the machine is busy (at 300 IOPS a
#: busy machine's I/O at queue depth 1 was seen to take over 3.3 ms, 471 IOPS where two hosts give 600)
HOST_LIMIT_IOPS = 100
#: a throttle's plateau is flat but for its burst: 1-s points were seen up to 18 % above the limit (707 IOPS of 600),
#: so 1, 4 and 7 threads rising by chance by over 5 % each were "still rising" (the probe then has no plateau to
#: measure on fewer hosts: failed once in about ten full runs). A gain within the throttle's slack is no gain, and a
#: fourth point confirms the plateau: in a simulation of find_saturation on flat points with +-10 % noise, 3 points
#: and a 5 % gain were "still rising" 68 times in 1,000, 3 points and 20 % 5 times, 4 points and 20 % once.
#: Points of 2 s: hosts sharing one limit whose fio runs start apart (each host's point starts when its SSH
#: command does) each read more than their share while another has not started or has ended, and their
#: IOPS summed count that time twice: 2 hosts read 753 IOPS of 600 once in 1-s points, under load
LIMITED_PROBE = {"fio": {"runtime_s": 2, "ramp_s": 1},
                 "probe": {"strategy": "linear", "min_threads": 1, "max_threads": 10, "step": 3,
                           "gain_pct": 100 * THROTTLE_SLACK}}


def test_hosts_that_limit_themselves_are_named_and_more_hosts_suggested(hosts, tmp_path, loop_lun):
    """Each host may read only HOST_LIMIT_IOPS (100) IOPS from the LUN (a cgroup I/O throttle on everything the host
    runs, as a slow HBA or too few paths would): the plateau is the hosts', not the array's.
    ``flashpoc run`` runs the four notebooks over the three hosts: the probe measures its plateau
    again on 1 and 2 hosts, the IOPS grow with the hosts, so it says the hosts are the limit and
    suggests adding hosts; the report shows each host's IOPS."""
    from netns import iops_limited

    require_fio()
    params = tmp_path / "three.yaml"
    params.write_text(yaml.safe_dump(campaign_values(tmp_path, hosts, loop_lun, **LIMITED_PROBE,
                                                     sweep={"plan": "guide", "max_threads": 1, "step": 1})))
    with iops_limited(hosts, loop_lun, HOST_LIMIT_IOPS):
        out = subprocess.run([sys.executable, "-m", "flashpoc.cli", "run", str(params)], capture_output=True,
                             text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    results = tmp_path / "results" / "three"
    probe = json.loads((results / "probe.json").read_text())
    plateau = probe["saturation"]["threads"]
    assert plateau in (1, 4)  # the throttle holds from 1 thread; its few % of slack may show at 4
    scaling, limit = probe["host_scaling"], probe["host_limit"]
    assert [(r["n_hosts"], r["hosts"], r["threads"]) for r in scaling] == [(1, "h1", plateau), (2, "h1,h2", plateau)]
    assert [s["iops"] for s in limit["scaling"]] == pytest.approx([HOST_LIMIT_IOPS * n for n in (1, 2, 3)], rel=THROTTLE_SLACK)
    assert limit["verdict"] == "hosts"
    assert any(sign.startswith("adding hosts still adds IOPS: 1 to 3 hosts took the IOPS from") for sign in limit["signs"])
    assert limit["suggestion"].startswith("Add load hosts (or faster ones) and probe again")

    def outputs(name):
        notebook = json.loads((results / "notebooks" / f"{name}.ipynb").read_text())
        return "\n".join("".join(o.get("data", {}).get(kind, "")) for c in notebook["cells"]
                         for o in c.get("outputs", []) for kind in ("text/markdown", "text/html"))

    probe_nb = outputs("02_saturation_probe")
    assert "**The load hosts are the limit, not the array.**" in probe_nb
    assert f"3 hosts: {limit['scaling'][2]['iops']:,.0f} IOPS" in probe_nb
    table = phases.probe_hosts_table(probe)
    top = table[table["threads"] == LIMITED_PROBE["probe"]["max_threads"]]
    per_host = top[top["host"].isin(["h1", "h2", "h3"])]
    assert per_host["iops"].tolist() == pytest.approx([HOST_LIMIT_IOPS] * 3, rel=THROTTLE_SLACK)
    assert per_host["iops"].sum() == pytest.approx(top[top["host"] == "(all hosts)"]["iops"].iloc[0], abs=2)
    report_nb = outputs("04_report")
    assert "Saturation probe: **The load hosts are the limit, not the array.**" in report_nb
    hosts_table = pd.read_csv(results / "report" / "per_host.csv")
    assert hosts_table["host"].tolist() == ["h1", "h2", "h3", "(all hosts)"]  # the sweep's one point
    one_thread = hosts_table[hosts_table["threads"] == 1]
    assert max(one_thread["iops"][:3]) <= HOST_LIMIT_IOPS * (1 + THROTTLE_SLACK)  # each host within its limit
    assert one_thread["iops"][:3].sum() == pytest.approx(one_thread["iops"].iloc[3], abs=2)
    assert ">h3</td>" in report_nb and "IOPS per load host vs threads" in (
        results / "report" / "report.html").read_text()


def test_hosts_on_a_saturated_array_are_not_named_as_the_limit(hosts, tmp_path, loop_lun):
    """The three hosts together may read 600 IOPS from the LUN, as from an array at its limit:
    one host alone gets as many as three, so the probe says the array is the limit. Each thread
    keeps 4 I/Os outstanding: one host's one thread reaches 600 IOPS even where a busy machine
    takes 2 ms an I/O (at queue depth 1 it got 461 on a loaded machine, the array not its limit)."""
    from netns import iops_limited

    require_fio()
    deep = [{"name": "randread-4k", "rw": "randread", "bs": "4k", "iodepth": 4}]
    with iops_limited(hosts, loop_lun, 600, shared=True):
        probe = phases.run_probe(campaign(tmp_path, hosts, loop_lun, **LIMITED_PROBE, workloads=deep), progress=False)
    limit = probe["host_limit"]
    assert [s["iops"] for s in limit["scaling"]] == pytest.approx([600, 600, 600], rel=THROTTLE_SLACK), (
        probe["saturation"]["reason"], [(p["threads"], p["iops"]) for p in probe["points"]])
    assert limit["verdict"] == "array" and limit["suggestion"] is None, (limit["signs"], limit["scaling"])
    assert any(sign.startswith("adding hosts adds no IOPS: 1 to 3 hosts") and sign.endswith("the array is the limit")
               for sign in limit["signs"])



@pytest.mark.parametrize("multi_host", ["per-host", "client-server"])
def test_the_live_view_gets_every_hosts_seconds_with_their_latency(hosts, tmp_path, shared_lun, monkeypatch,
                                                                   multi_host):
    """One fio point on the three hosts, watched by a live view: one fio per host hands over each
    second (IOPS summed over the hosts, latency weighted by them) while the point runs. fio's client
    writes nothing per second with a JSON output: a client/server point hands over the hosts' device
    counters (/proc/diskstats) each second while it runs, and its hosts' interval logs, the stored
    series, when it ends. The three hosts share this machine's kernel: its disk is counted once."""
    from flashpoc.present import live, progress

    require_fio()
    cfg = campaign(tmp_path, hosts, shared_lun, fio={"runtime_s": 4, "ramp_s": 0, "multi_host": multi_host})
    arrived, stored = [], []

    def view_of(bar):
        view = live.LiveView(bar, widgets=False)
        interval, point = view.interval, view.point
        view.interval = lambda *a: (arrived.append((time.monotonic(), a[2], dict(a[1]), a[3])), interval(*a))
        view.point = lambda *a: (stored.append(time.monotonic()), point(*a))
        return view
    monkeypatch.setattr(progress, "LIVE_VIEW", view_of)
    phases.run_sweep(cfg, {"randread-4k": [1]})
    (point,) = (tmp_path / "results" / "three" / "points" / "sweep").iterdir()
    series = pd.read_csv(point / "intervals.csv")
    row = json.loads((point / "point.json").read_text())
    devices = [a for a in arrived if "device counters" in a[3]]
    fios = [a for a in arrived if "device counters" not in a[3]]
    assert len(stored) == 1 and len(fios) >= 3
    assert all(values["iops"] > 0 and values["lat_mean_ms"] > 0 for _, _, values, _ in fios)
    if multi_host == "per-host":
        assert not devices
        assert stored[0] - fios[0][0] > 1.5  # the first second came while the point ran
        per_host = row["per_host"]  # each second's IOPS sum over the three hosts: about the point's
        mean = sum(v["iops"] for _, _, v, _ in fios) / len(fios)
        assert 0.5 * row["iops"] < mean < 1.5 * row["iops"] and len(per_host) == 3
    else:
        # the device's seconds while the point ran, a second apart: at least fio's I/Os (other
        # programs' I/O on this machine's disk adds to them), fio's read once, not once per host
        # (a second that ends after the client is not handed over: these came while it ran)
        assert devices and devices[-1][0] < fios[0][0] < stored[0], devices
        seconds = [s for _, s, _, _ in devices]  # on the controller's clock, since the client started
        assert seconds == sorted(set(seconds)) and all(s == int(s) and 0 < s <= 6 for s in seconds), seconds
        assert max(v["iops"] for _, _, v, _ in devices) > 0.5 * row["iops"], (devices, row["iops"])
        assert all((v["lat_mean_ms"] is None) == (v["iops"] == 0) for _, _, v, _ in devices), devices
        assert stored[0] - fios[0][0] < 1.0  # fio's own at once, as the point ended
        assert [(s, v["iops"], v["lat_mean_ms"]) for _, s, v, _ in fios] == [
            (r.second, pytest.approx(r.iops, rel=1e-12), pytest.approx(r.lat_mean_ms, rel=1e-12))
            for r in series.itertuples()]


def samplers_of(folder) -> list[str]:
    """The device samplers whose stop file is under ``folder`` (their command lines name it)."""
    return processes_naming(".flashpoc-diskstats-stop", str(folder))


def test_ctrl_c_in_a_watched_client_server_point_leaves_no_sampler_and_no_fio(hosts, tmp_path, shared_lun):
    """Ctrl-C in a 60-s client/server point on the three hosts, watched by a live view, once the hosts'
    device counters have given it a second: the point stops within seconds, the device samplers end
    within their next second and no fio is left on any host."""
    from flashpoc.core.records import PointSpec
    from flashpoc.engines.fio.measure import run_point

    require_fio()
    cfg = campaign(tmp_path, hosts, shared_lun, fio={"runtime_s": 60, "ramp_s": 0, "multi_host": "client-server"})
    bar, noted = Seconds(), []
    with phases.open_campaign(cfg) as wb, ctrl_c_once(lambda: bool(bar.seconds), 0.5, noted,
                                                      lambda: samplers_of(tmp_path / "work")):
        start = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            run_point(wb, PointSpec("sweep", cfg.workload("randread-4k"), 2, 60), "stopped", bar)
        took = time.monotonic() - start
    assert noted and noted[0], "no device sampler ran on a host at the Ctrl-C"
    assert took < 30, f"the point took {took:.1f} s to stop"
    assert still_running(lambda: samplers_of(tmp_path / "work")) == []
    assert running_in(tmp_path / "work") == [], "fio left running on a host"


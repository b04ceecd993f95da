"""Real fio runs through the host interface: one round-trip per point, host CPU, errors."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from conftest import quick_campaign, require_fio, running_in
from flashpoc.core.errors import RemoteError
from flashpoc.params import campaign_from_dict
from flashpoc.engines.fio.parse import parse_fio_output, summarize_fio_point
from flashpoc.hosts.metrics import cpu_utilisation
from flashpoc.engines.fio.plan import render_job, render_layout_job
from flashpoc.engines.fio.run import run_fio_job
from flashpoc.hosts.host import connect


@pytest.fixture
def local(tmp_path):
    require_fio()
    cfg = campaign_from_dict(quick_campaign(tmp_path))
    host = connect(cfg.hosts[0])
    run_fio_job(host, render_layout_job(cfg.targets[0], cfg.settings), str(tmp_path / "layout"),
                readonly=False, timeout_s=60, purpose="layout")
    return cfg, host


def test_layout_creates_the_scratch_file(local, tmp_path):
    assert (tmp_path / "scratch.dat").stat().st_size == 64 * 1024**2


def test_real_randread_point(local, tmp_path):
    cfg, host = local
    job = render_job(cfg, cfg.workload("randread-4k"), 2, cfg.targets)
    run = run_fio_job(host, job, str(tmp_path / "p"), readonly=True, timeout_s=60, purpose="t")
    doc = json.loads(run.output)
    assert doc["jobs"][0]["job options"]["numjobs"] == "2"
    summary = summarize_fio_point(parse_fio_output(run.output))
    assert summary["iops"] > 100 and summary["write_iops"] == 0
    assert 0 < summary["lat_mean_ms"] < 1000
    cpu = cpu_utilisation(run.cpu_before, run.cpu_after)
    assert 0 <= cpu["host_cpu_busy_pct"] <= 100
    assert run.wall_s >= 1.0  # runtime_s=1
    assert (tmp_path / "p" / "job.fio").read_text() == job
    # the host's clock just before fio started and after it ended holds fio's measured window
    started_ns, ended_ns = run.window_ns
    assert started_ns / 1e6 <= doc["timestamp_ms"] - doc["jobs"][0]["read"]["runtime"] < doc["timestamp_ms"] <= ended_ns / 1e6


def test_a_host_whose_date_prints_no_nanoseconds_still_measures(local, tmp_path):
    """A host whose ``date`` knows no ``%N`` (busybox prints the letter), or has no ``date``: the point
    runs and measures, without the clock around fio (a per-host point of several hosts then says
    nothing of how far apart they measured)."""
    cfg, host = local
    job = render_job(cfg, cfg.workload("randread-4k"), 1, cfg.targets)
    for name, script in (("letter", "#!/bin/sh\necho 1795000000N\n"), ("none", None)):
        bin_dir = tmp_path / f"bin-{name}"
        bin_dir.mkdir()
        if script is not None:
            (bin_dir / "date").write_text(script)
            (bin_dir / "date").chmod(0o755)
        for tool in ("fio", "mkdir", "rm", "cat", "head", "awk", "mkfifo", "sh"):
            source = shutil.which(tool)
            if source:
                (bin_dir / tool).symlink_to(source)
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("PATH", str(bin_dir))
            run = run_fio_job(host, job, str(tmp_path / f"p-{name}"), readonly=True, timeout_s=60, purpose="t")
        assert run.window_ns is None and summarize_fio_point(parse_fio_output(run.output))["iops"] > 0


def test_readonly_point_cannot_write(local, tmp_path):
    cfg, host = local
    before = (tmp_path / "scratch.dat").read_bytes()[:65536]
    job = render_job(cfg, cfg.workload("randwrite-4k"), 1, cfg.targets)
    with pytest.raises(RemoteError, match="fio exited"):
        run_fio_job(host, job, str(tmp_path / "w"), readonly=True, timeout_s=60, purpose="write point")
    assert (tmp_path / "scratch.dat").read_bytes()[:65536] == before


def test_fio_error_reaches_the_user(local, tmp_path):
    cfg, host = local
    job = render_job(cfg, cfg.workload("randread-4k"), 1, cfg.targets).replace("bs=4k", "bs=banana")
    with pytest.raises(RemoteError) as info:
        run_fio_job(host, job, str(tmp_path / "e"), readonly=True, timeout_s=60, purpose="randread 1 thread")
    message = str(info.value)
    assert message.startswith("local: randread 1 thread: fio exited")
    assert "bs" in message  # fio's own complaint about the option


LEAVING_ONE = """#!/bin/sh
# the real fio, after leaving a process of its own in the point's folder, in a session of its own (as
# fio's job processes are): what a fio that ended on its own left once, a host frozen mid-point then woken
setsid sleep 300 </dev/null >/dev/null 2>&1 &
exec {fio} "$@"
"""


@pytest.mark.parametrize("live", [False, True], ids=["fio-writes-its-output", "fio-status-reports-live"])
def test_what_fio_leaves_in_the_point_s_folder_ends_with_the_point(local, tmp_path, live):
    """fio ends, on its own and measured, but a process forked in the point's folder lives on: the
    point's command ends it, whatever fio's exit status (it did so only after a fio killed by a
    signal: three of fio's job processes once waited forever after their fio had ended)."""
    cfg, _ = local
    wrapper = tmp_path / "fio-leaving-one"
    wrapper.write_text(LEAVING_ONE.format(fio=shutil.which("fio")))
    wrapper.chmod(0o755)
    host = connect(cfg.hosts[0].model_copy(update={"fio": str(wrapper)}))
    job = render_job(cfg, cfg.workload("randread-4k"), 2, cfg.targets)
    run = run_fio_job(host, job, str(tmp_path / "p"), readonly=True, timeout_s=60, purpose="randread 2 threads",
                      on_line=(lambda line: None) if live else None)
    assert json.loads(run.output)["jobs"][0]["read"]["io_bytes"] > 0  # measured
    assert running_in(tmp_path / "p") == [], "a process left in the point's folder"


def test_missing_fio_is_a_clear_error(tmp_path):
    cfg = campaign_from_dict(quick_campaign(tmp_path, hosts=[{"name": "local", "fio": "/nonexistent/fio"}]))
    with pytest.raises(RemoteError, match="local: t: fio exited 127"):
        run_fio_job(connect(cfg.hosts[0]), "[x]\n", str(tmp_path / "n"), readonly=True, timeout_s=10, purpose="t")


def test_cpu_utilisation_arithmetic():
    before = "cpu  7611 0 2308 53927 463 0 66 14 0 0"
    after = "cpu  7641 0 2447 54133 463 0 91 15 0 0"
    cpu = cpu_utilisation(before, after)
    # deltas: user 30, system 139, idle 206, iowait 0, softirq 25, steal 1 -> total 401
    assert cpu["host_cpu_busy_pct"] == pytest.approx(100 * 195 / 401)
    assert cpu["host_cpu_user_pct"] == pytest.approx(100 * 30 / 401)
    assert cpu["host_cpu_iowait_pct"] == 0.0


def test_client_server_on_this_machine_and_a_read_only_server_refuses_writes(tmp_path):
    """A real fio --server on 127.0.0.1 and one fio --client run: the host's entries come out as
    its own fio JSON; a server started --readonly refuses a write job, and the error names the
    host with fio's own words, although fio --client exits 0."""
    from flashpoc.engines.fio.run import run_clients, start_server, stop_server
    from ssh_server import free_port

    require_fio()
    cfg = campaign_from_dict(quick_campaign(tmp_path, hosts=[{"name": "db1", "address": "localhost",
                                                              "workdir": str(tmp_path / "srv")}]))
    prepare = connect(cfg.hosts[0])
    run_fio_job(prepare, render_layout_job(cfg.targets[0], cfg.settings), str(tmp_path / "layout"),
                readonly=False, timeout_s=60, purpose="layout")
    port = free_port()
    host, controller = connect(cfg.hosts[0]), connect(cfg.hosts[0].model_copy(update={"name": "controller"}))
    start_server(host, port, readonly=True)
    try:
        job = render_job(cfg, cfg.workload("randread-4k"), 2, cfg.targets, host="db1")
        (run,), output = run_clients(controller, [host], {"db1": job}, str(tmp_path / "c"), port, timeout_s=60,
                                     purpose="p")
        rows = parse_fio_output(run.output)
        assert [r["jobname"] for r in rows] == ["db1.randread-4k"] and rows[0]["iops"] > 100
        aggregate = [e for e in json.loads((tmp_path / "c" / "out.json").read_text())["client_stats"]
                     if e["jobname"] == "All clients"]
        if aggregate:  # fio adds it for more than one job entry
            assert aggregate[0]["read"]["iops"] == pytest.approx(rows[0]["iops"])
        assert run.cpu_before.startswith("cpu ") and any(name.startswith("flashpoc_iops.") for name in run.logs)
        write = render_job(cfg, cfg.workload("randwrite-4k"), 1, cfg.targets, host="db1")
        # fio --client exits 0 or 1 here (both seen); either way the error has fio's words
        with pytest.raises(RemoteError, match=r"p: fio --client (output has no job of db1: |exited 1:\n).*read-only mode"):
            run_clients(controller, [host], {"db1": write}, str(tmp_path / "w"), port, timeout_s=60, purpose="p")
    finally:
        stop_server(host)
    assert not (tmp_path / "srv" / "fio-server.pid").exists()


def _fake_hosts(answers: dict[str, object]) -> list:
    from flashpoc.hosts.fake import FakeHost

    return [FakeHost(name, commands={"head -n1 /proc/stat": answer, "true": ""}) for name, answer in answers.items()]


def test_client_server_hosts_whose_counters_cannot_be_read_are_all_named():
    """Two hosts of three fail to read /proc/stat before a client/server point: the error names
    both (the thread pool before the host Group raised the first host's error only)."""
    from flashpoc.engines.fio.run import run_clients
    from flashpoc.hosts.fake import FakeHost, Reply

    cannot = Reply(stderr="head: cannot open '/proc/stat' for reading: No such file or directory", exited=1)
    hosts = _fake_hosts({"db1": cannot, "db2": "cpu  4705 356 584 3699176 23060 0 277 0 0 0\n", "db3": cannot})
    controller = FakeHost("controller", commands={re.compile(r"^mkdir -p "): ""})
    with pytest.raises(RemoteError) as raised:
        run_clients(controller, hosts, {h.name: "[job]\n" for h in hosts}, "/run/c", 8765, timeout_s=60, purpose="p")
    message = str(raised.value)
    assert message.startswith("p: read the CPU counters failed on 2 of 3 hosts (db1, db3):\n")
    assert "- db1: p: read the CPU counters failed (exit 1):\n  head: cannot open" in message
    assert "- db3: p: read the CPU counters failed (exit 1):\n  head: cannot open" in message
    assert "db2" not in message.split("\n", 1)[1]
    assert controller.files == {f"/run/c/job-{h.name}.fio": "[job]\n" for h in hosts}
    assert not any("--client" in c for c in controller.commands_run)  # no point run without every host's counters


def test_after_a_failed_client_run_every_host_that_no_longer_answers_is_named():
    from flashpoc.engines.fio.run import run_clients
    from flashpoc.hosts.fake import FakeHost

    stat = "cpu  4705 356 584 3699176 23060 0 277 0 0 0\n"
    hosts = _fake_hosts({"db1": stat, "db2": stat, "db3": stat})
    for host in hosts[1:]:
        host.commands["true"] = RemoteError(f"{host.name}: see whether it answers did not finish within 3 s")
    controller = FakeHost("controller", commands={re.compile(r"^mkdir -p "): "",
                                                  re.compile(r" --client="): RemoteError("controller: p: lost")})
    with pytest.raises(RemoteError, match=r"^db2, db3: p: no answer from these hosts within 10 s "):
        run_clients(controller, hosts, {h.name: "[job]\n" for h in hosts}, "/run/c", 8765, timeout_s=60, purpose="p")
    assert [h.commands_run for h in hosts] == [["head -n1 /proc/stat", "true"]] * 3
    assert [h.calls[1].timeout_s for h in hosts] == [10.0] * 3  # the hosts' connect timeout, within 60 / 4 s


def test_fio_servers_that_do_not_start_are_all_named_and_the_others_stopped(tmp_path):
    """Two hosts of three have no fio: starting the servers names both; the third host's real
    server is stopped again."""
    from flashpoc.engines.fio.run import SERVER_PIDFILE, start_servers, stop_servers
    from flashpoc.params import HostParams
    from ssh_server import free_port

    require_fio()
    hosts = [connect(HostParams(name=n, workdir=str(tmp_path / n), **({"fio": str(tmp_path / "no-fio")} if n != "db2"
                                                                       else {})))
             for n in ("db1", "db2", "db3")]
    port = free_port()
    try:
        with pytest.raises(RemoteError) as raised:
            start_servers(hosts, port, readonly=True)
        message = str(raised.value)
        assert message.startswith(f"start fio --server on port {port} failed on 2 of 3 hosts (db1, db3):\n- db1: ")
        assert f"\n- db3: start fio --server on port {port} failed (exit 127):" in message
        assert (tmp_path / "db2" / SERVER_PIDFILE).exists()
    finally:
        stop_servers(hosts)
    assert not (tmp_path / "db2" / SERVER_PIDFILE).exists()

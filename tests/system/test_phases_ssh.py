"""The check and a short probe through a real sshd on 127.0.0.1, with real fio behind it."""

from __future__ import annotations

import json
import threading
import time

import pytest

from conftest import Seconds, ctrl_c_after, holders, quick_campaign, require_fio, running_in
from flashpoc import phases
from flashpoc.core.errors import RemoteError
from flashpoc.params import campaign_from_dict

pytestmark = pytest.mark.ssh


def test_check_and_probe_over_ssh(sshd, tmp_path):
    require_fio()
    values = quick_campaign(tmp_path, hosts=[sshd.host_params("remote", workdir=str(tmp_path / "work"))],
                            probe={"strategy": "linear", "min_threads": 1, "max_threads": 3, "step": 1})
    cfg = campaign_from_dict(values)

    table = phases.run_check(cfg)
    by_check = dict(zip(table["check"], table["status"]))
    assert by_check["reachable"] == "pass" and by_check["fio"] == "pass"
    assert by_check["target scratch: exists"] == "pass"  # missing, will be created

    probe = phases.run_probe(cfg, progress=False)
    assert [p["threads"] for p in probe["points"]] == [1, 2, 3]
    assert all(p["iops"] > 0 for p in probe["points"])
    # the job file and fio's output went through SSH to the host's workdir and back
    point = tmp_path / "results" / "quick" / "points" / "probe" / probe["points"][0]["point_id"]
    raw = json.loads((point / "remote.json").read_text())
    assert raw["jobs"][0]["job options"]["numjobs"] == "1"
    assert list((tmp_path / "work" / "quick" / "probe").iterdir())
    row = json.loads((point / "point.json").read_text())
    assert row["hosts"] == "remote" and row["overhead_s"] < 5


def wait_until_released(path: str, timeout_s: float) -> None:
    """Wait until no process holds ``path`` open, at most ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while holders(path):
        assert time.monotonic() < deadline, f"{path} still open by {holders(path)} after {timeout_s} s"
        time.sleep(0.2)


def test_a_host_that_stops_answering_mid_sweep_is_named_within_the_timeout_and_the_rerun_continues(sshd, tmp_path):
    """The host freezes (its sshd and everything under it stopped, SIGSTOP) in the middle of a
    point: the sweep ends within the host's command timeout with an error naming the host and
    the point; the points done stay stored; once the host answers again the rerun measures only
    the rest."""
    require_fio()
    values = quick_campaign(tmp_path, fio={"runtime_s": 2, "ramp_s": 0},
                            hosts=[sshd.host_params("db7", workdir=str(tmp_path / "work"), command_timeout_s=12)],
                            workloads=[{"name": "randread-4k", "rw": "randread", "bs": "4k"}])
    cfg = campaign_from_dict(values)
    phases.run_check(cfg)
    plan = {"randread-4k": [1, 2, 3, 4]}
    outcome: dict[str, object] = {}

    def sweep():
        try:
            phases.run_sweep(cfg, plan, progress=False)
        except Exception as error:  # noqa: BLE001 - the test inspects it
            outcome["error"] = error
        outcome["ended"] = time.monotonic()

    worker = threading.Thread(target=sweep)
    worker.start()
    points = tmp_path / "results" / "quick" / "points" / "sweep"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(list(points.glob("*/point.json"))) < 2:
        time.sleep(0.1)
    time.sleep(0.5)  # into the third point
    stopped = time.monotonic()
    frozen = sshd.hang()
    try:
        worker.join(timeout=60)
        assert not worker.is_alive(), "the sweep hung on a frozen host"
    finally:
        sshd.wake(frozen)
    error = outcome.get("error")
    assert isinstance(error, RemoteError), error
    assert "db7" in str(error) and "sweep randread-4k" in str(error) and "threads" in str(error)
    # within the command timeout (12 s), which started before the host froze, and saying so
    assert outcome["ended"] - stopped < 12 + 5  # (5: slack for a loaded 2-core machine)
    assert "did not finish within 12 s (no answer from the host" in str(error)
    done = {p.parent.name for p in points.glob("*/point.json")}
    assert len(done) >= 2
    # the woken host's fio finishes the point it was running (2 s, longer on a loaded machine);
    # until then the target is in use and the safety gate rightly refuses to write it
    wait_until_released(cfg.targets[0].path, timeout_s=60)
    rows = phases.run_sweep(cfg, plan, progress=False)
    assert sorted(rows["threads"]) == [1, 2, 3, 4]
    assert set(rows.loc[rows["reused"], "point_id"]) == done  # only the missing points were measured
    # and nothing of the frozen point is left on the host (three of its fio's job processes once
    # waited forever, their fio ended)
    assert running_in(tmp_path / "work") == []


@pytest.mark.parametrize("live", [False, True], ids=["fio-writes-its-output", "fio-status-reports-live"])
def test_ctrl_c_in_a_point_over_ssh_ends_fio_on_the_host(sshd, tmp_path, live):
    """Ctrl-C 3 s into a 60-s point on a host over SSH: the controller stops, and so does fio on the host
    (its job processes release the target within seconds), where before the command ran on without
    the controller for the point's whole runtime (the channel closed, no terminal, no SIGHUP)."""
    from flashpoc.core.records import PointSpec
    from flashpoc.engines.fio.measure import run_point

    require_fio()
    values = quick_campaign(tmp_path, hosts=[sshd.host_params("remote", workdir=str(tmp_path / "work"))])
    cfg = campaign_from_dict(values)
    scratch = tmp_path / "scratch.dat"
    with open(scratch, "wb") as laid_out:
        laid_out.truncate(64 * 1024**2)

    running = []  # fio on the host in its I/O at the Ctrl-C
    with phases.open_campaign(cfg) as wb, ctrl_c_after(3, running, lambda: bool(holders(str(scratch)))):
        start = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            run_point(wb, PointSpec("sweep", cfg.workload("randread-4k"), 4, 60), "stopped", Seconds() if live else None)
        took = time.monotonic() - start
    assert running == [True]
    assert took < 3 + 15, f"Ctrl-C took {took - 3:.1f} s to stop the point (fabric waited for the command's end)"
    wait_until_released(str(scratch), 15)

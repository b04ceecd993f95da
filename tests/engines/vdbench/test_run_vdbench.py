"""vdbench orchestration against the REPLAY DOUBLE (tests/replay/vdbench_replay.py).

The real vdbench runs in tests/engines/vdbench/test_vdbench_real.py; the double replays the recorded outputs
of other runs: it accepts vdbench's command line, checks the parmfile, and serves a real
recorded output set (tests/data/vdbench, see PROVENANCE.md).
"""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import pytest

from conftest import DATA, TESTS
from flashpoc.params import HostParams
from flashpoc.hosts.host import connect
from flashpoc.engines.vdbench.run import IntervalProgress, run_vdbench

REPLAY = TESTS / "replay" / "vdbench_replay.py"
RECORDED = DATA / "vdbench"


def replay_install(tmp_path: Path, recorded: Path, exit_code: int = 0) -> Path:
    """A directory holding a ``vdbench`` script that runs the replay double on ``recorded``."""
    directory = tmp_path / "vdbench-replay"
    directory.mkdir(exist_ok=True)
    script = directory / "vdbench"
    script.write_text(f"#!/bin/sh\nexec {sys.executable} {REPLAY} --recorded {recorded} "
                      f"--exit-code {exit_code} \"$@\"\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return directory


def test_successful_run_streams_progress_and_fetches_the_output(tmp_path):
    recorded = RECORDED / "rr_threads_sweep"
    host = connect(HostParams(name="ctl", vdbench=str(replay_install(tmp_path, recorded))))
    progress = IntervalProgress()
    run = run_vdbench(host, (recorded / "parmfile.txt").read_text(), str(tmp_path / "run"), timeout_s=300,
                      purpose="probe", on_line=progress)
    assert run.exit_code == 0
    assert progress.runs == 5 and progress.intervals == 50  # forthreads=(1-16,d): 5 runs x 10 intervals
    assert progress.run == "rd1 threads=16"
    assert run.console == (recorded / "console.txt").read_text()
    assert (tmp_path / "run" / "console.txt").read_text().startswith(run.console.rstrip("\n")[:200])
    expected = {p.name for p in recorded.iterdir()} - {"console.txt", "parmfile.txt", "PROVENANCE.md"}
    assert set(run.files) == expected
    assert run.files["totals.html"] == (recorded / "totals.html").read_text()


def test_changed_parmfile_is_refused_by_the_double(tmp_path):
    recorded = RECORDED / "rr_threads_sweep"
    host = connect(HostParams(name="ctl", vdbench=str(replay_install(tmp_path, recorded))))
    parm = (recorded / "parmfile.txt").read_text().replace("xfersize=4k", "xfersize=8k")
    run = run_vdbench(host, parm, str(tmp_path / "run"), timeout_s=300, purpose="probe")
    assert run.exit_code == 2 and "parmfile differs" in run.console and run.files == {}


def test_failed_run_keeps_vdbench_s_own_message(tmp_path):
    recorded = RECORDED / "error_missing_lun"
    host = connect(HostParams(name="ctl", vdbench=str(replay_install(tmp_path, recorded, exit_code=157))))
    run = run_vdbench(host, (recorded / "parmfile.txt").read_text(), str(tmp_path / "run"), timeout_s=300,
                      purpose="probe")
    assert run.exit_code == 157
    assert "Undefined size for sd=sd1,lun=/srv/poc/luns/does_not_exist/lun_missing" in run.console
    assert run.files["totals.html"] == (recorded / "totals.html").read_text()


def test_simulate_checks_the_parmfile_only(tmp_path):
    recorded = RECORDED / "four_workloads"
    host = connect(HostParams(name="ctl", vdbench=str(replay_install(tmp_path, recorded))))
    run = run_vdbench(host, (recorded / "parmfile.txt").read_text(), str(tmp_path / "run"), timeout_s=300,
                      purpose="check", simulate=True)
    assert run.exit_code == 0 and run.files == {} and not (tmp_path / "run" / "output").exists()


@pytest.mark.ssh
def test_run_over_ssh_streams_the_console(sshd, tmp_path):
    recorded = RECORDED / "rr_threads_sweep"
    params = HostParams(**sshd.host_params("ctl", vdbench=str(replay_install(tmp_path, recorded))))
    lines: list[str] = []
    with connect(params) as host:
        run = run_vdbench(host, (recorded / "parmfile.txt").read_text(), str(tmp_path / "run"), timeout_s=300,
                          purpose="probe", on_line=lines.append)
    assert run.exit_code == 0 and run.files["flatfile.html"] == (recorded / "flatfile.html").read_text()
    assert sum(1 for line in lines if "Starting RD=rd1" in line) == 5


def test_vdbench_s_ssh_is_openssh_with_the_hosts_settings(tmp_path):
    """vdbench runs ``ssh ADDRESS -l USER ...`` through ``/bin/bash -c``: the workbook's ``ssh``,
    first on vdbench's PATH, is the real OpenSSH with the hosts' config (``ssh -G`` prints what
    it would use), also when a start-up file put another directory before it."""
    import shutil

    from flashpoc.params import campaign_from_dict
    from flashpoc.engines.vdbench.run import master_prelude, master_setup, write_setup

    if shutil.which("ssh") is None:
        pytest.skip("needs the OpenSSH client (ssh)")
    cfg = campaign_from_dict({
        "campaign": "c", "engine": "vdbench",
        "hosts": [{"name": "ctl"}, {"name": "h2", "address": "10.0.0.2", "port": 2222, "user": "poc",
                                    "key_file": "/keys/id_poc", "known_hosts": "/keys/known_hosts"}],
        "targets": [{"name": "lun1", "path": "/dev/sdx"}],
        "workloads": [{"name": "randread-4k", "rw": "randread", "bs": "4k"}]})
    setup = master_setup(cfg)
    host = connect(HostParams(name="ctl"))
    run_dir = str(tmp_path / "run")
    write_setup(host, run_dir, setup, purpose="test")
    for before in ("", "PATH=/nonexistent:$PATH; "):
        out = host.run(f"cd {run_dir} && {master_prelude(setup)}/bin/bash -c '{before}ssh -G 10.0.0.2 -l poc'",
                       purpose="ssh -G", timeout_s=30).stdout.splitlines()
        assert {"port 2222", "user poc", "identityfile /keys/id_poc", "userknownhostsfile /keys/known_hosts",
                "batchmode yes", "stricthostkeychecking true", "gssapiauthentication no"} <= set(out)

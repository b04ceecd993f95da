"""Resume after SIGKILL: a real sweep (real fio) is killed at random moments many times; every rerun skips the points already stored, and the last run finishes the
sweep with each point stored once, whole, and never measured twice. A second run of the same
campaign while one runs is refused."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time

import pytest
import yaml

from conftest import REPO, holders, quick_campaign, require_fio
from flashpoc import phases
from flashpoc.params import campaign_from_dict
from flashpoc.core.store import StoreError
from ssh_server import freeze, process_tree, thaw

PLAN = {"randread-4k": [1, 2, 3, 4], "randwrite-4k": [1, 2, 3, 4]}

RUNNER = """
import sys, yaml
from flashpoc import phases
from flashpoc.params import campaign_from_dict
values = yaml.safe_load(open(sys.argv[1]))
phases.run_sweep(campaign_from_dict(values), {plan!r}, progress=False)
"""


def kill_group(run, target) -> None:
    """SIGKILL the runner (its process group), then wait until no process has the target open:
    each point's fio runs in a session of its own, so, as after a crash of the controller, it
    finishes its point as an orphan, and the next run's safety probe refuses a target in use."""
    os.killpg(run.pid, signal.SIGKILL)
    run.wait()
    deadline, free_since = time.monotonic() + 60, None
    while time.monotonic() < deadline:
        if holders(target):
            free_since = None
        elif free_since is None:
            free_since = time.monotonic()
        elif time.monotonic() - free_since > 2.0:  # a fio just starting opens it within that
            return
        time.sleep(0.1)
    raise AssertionError(f"{target} is still open by {holders(target)}")


def stored_points(root):
    """{point id: completed_utc} of the whole points stored; fails on a torn point.json. A point is
    written in a temporary ``.<point id>.*`` directory renamed into place: one a kill interrupted
    before the rename is no stored point (the store reads points by id), so it is passed over."""
    points = {}
    for path in sorted((root / "points" / "sweep").glob("*/point.json")):
        if path.parent.name.startswith("."):
            continue
        row = json.loads(path.read_text())
        assert row["point_id"] == path.parent.name and row["iops"] > 0
        # a point whose interval logs give no whole window keeps no series, and says so in damaged
        assert (path.parent / "local.json").exists()
        assert (path.parent / "intervals.csv").exists() or "log" in (row.get("damaged") or ""), row.get("damaged")
        points[row["point_id"]] = row["completed_utc"]
    return points


def checked_campaign(tmp_path, runtime_s: int, plan: dict):
    """A checked local campaign, and a function starting a separate process that sweeps ``plan``."""
    require_fio()
    values = quick_campaign(tmp_path, fio={"runtime_s": runtime_s, "ramp_s": 0})
    cfg = campaign_from_dict(values)
    phases.run_check(cfg)
    params = tmp_path / "params.yaml"
    params.write_text(yaml.safe_dump(values))
    script = tmp_path / "runner.py"
    script.write_text(RUNNER.format(plan=plan))
    env = dict(os.environ, PYTHONPATH=str(REPO / "lib"))

    def start():
        return subprocess.Popen([sys.executable, str(script), str(params)], env=env, start_new_session=True,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    return cfg, start


def test_sweep_killed_at_random_moments_resumes_without_lost_repeated_or_torn_points(tmp_path):
    cfg, start = checked_campaign(tmp_path, 1, PLAN)
    root = tmp_path / "results" / "quick"
    rng = random.Random(20261121)
    seen: dict[str, str] = {}
    kills = 0
    for _ in range(8):
        run = start()
        time.sleep(rng.uniform(0.5, 3.5))
        if run.poll() is None:
            kill_group(run, tmp_path / "scratch.dat")  # mid-point
            kills += 1
        run.wait()
        now = stored_points(root)
        assert {k: now[k] for k in seen} == seen  # nothing stored was measured again or lost
        seen = now
        if len(seen) == 8:
            break
    assert kills >= 3
    rows = phases.run_sweep(cfg, PLAN, progress=False)
    final = stored_points(root)
    assert len(final) == 8 and {k: final[k] for k in seen} == seen
    assert sorted(zip(rows["workload"], rows["threads"])) == sorted((w, t) for w, ts in PLAN.items() for t in ts)
    assert rows["point_id"].is_unique
    assert int(rows["reused"].sum()) == len(seen)  # the last run measured only what was missing
    assert not [p for p in (root / "points" / "sweep").iterdir() if p.name.startswith(".")]  # partial ones removed


def test_a_second_run_of_the_same_campaign_is_refused_while_one_runs(tmp_path):
    cfg, start = checked_campaign(tmp_path, 3, {"randread-4k": [1, 2]})
    run = start()
    try:
        lock = tmp_path / "results" / "quick" / ".lock"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not (lock.exists() and lock.read_text().strip() == str(run.pid)):
            time.sleep(0.1)
        with pytest.raises(StoreError, match=f"is being run by another process \\(pid {run.pid}\\)"):
            phases.run_sweep(cfg, {"randread-4k": [1]}, progress=False)
    finally:
        kill_group(run, tmp_path / "scratch.dat")
    phases.run_sweep(cfg, {"randread-4k": [1]}, progress=False)  # the kernel released the dead run's lock


def test_a_second_flashpoc_run_is_refused_before_it_writes_anything(tmp_path):
    """Two `flashpoc run` of one campaign. The first holds the campaign for its whole run, its
    notebook kernels let in; the second (plain, then --fresh) is refused at once, naming the first,
    and changes nothing: not the check's files, not the manifest, not the first's notebooks. The
    first is frozen (SIGSTOP) while the second tries, so the first cannot end in the meantime."""
    require_fio()
    values = quick_campaign(tmp_path, workloads=[{"name": "randread-4k", "rw": "randread", "bs": "4k"}],
                            probe={"strategy": "linear", "min_threads": 1, "max_threads": 2, "step": 1},
                            sweep={"plan": "guide", "max_threads": 2, "step": 1})
    params = tmp_path / "params.yaml"
    params.write_text(yaml.safe_dump(values))
    run = [sys.executable, "-m", "flashpoc.cli", "run", str(params)]
    env = dict(os.environ, PYTHONPATH=str(REPO / "lib"))
    first = subprocess.Popen(run, env=env, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    root = tmp_path / "results" / "quick"
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and first.poll() is None and not list(root.glob("points/probe/*/point.json")):
            time.sleep(0.1)  # the first run is in its probe: its check, manifest and check notebook are written
        frozen = freeze(lambda: process_tree(first.pid))  # its kernel and fio run in sessions of their own
        try:
            before = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in root.rglob("*") if p.is_file()}
            assert {"check.csv", "check.json", "manifest.json", "01_environment_check.html"} <= {p.name for p in before}
            for extra in ([], ["--fresh"]):
                second = subprocess.run(run + extra, env=env, capture_output=True, text=True, timeout=300)
                assert second.returncode == 1 and second.stdout == ""
                assert second.stderr == (f"flashpoc: error: campaign quick is being run by another process "
                                         f"(pid {first.pid}); wait for it to end, or stop it: its completed points "
                                         "are kept\n")
            after = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in root.rglob("*") if p.is_file()}
            assert after == before
        finally:
            thaw(frozen)
        out, err = first.communicate(timeout=600)
    finally:
        if first.poll() is None:
            kill_group(first, tmp_path / "scratch.dat")
    assert first.returncode == 0, err[-3000:]
    assert "[report] running 04_report.ipynb" in out and (root / "report" / "report.html").is_file()
    probe = json.loads((root / "notebooks" / "02_saturation_probe.ipynb").read_text())
    assert not [o for c in probe["cells"] for o in c.get("outputs", []) if o["output_type"] == "error"]
    assert (root / ".lock").read_text() == str(first.pid)  # the run held it, not its kernels

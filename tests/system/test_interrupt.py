"""Ctrl-C on a real ``flashpoc run`` (real fio, papermill and the notebooks' kernels) at several moments:
before the first notebook, while a kernel starts, while a probe point runs, while the report is written.
A terminal's Ctrl-C is SIGINT to the whole foreground process group (flashpoc and its kernels), sent so
here. Each time: exit 130, the one line saying what was kept, no traceback, no process of the run left
(fio's job processes included, in sessions of their own), and the campaign free for the next run."""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import signal
import subprocess
import sys
import time

import pytest
import yaml

from conftest import quick_campaign, require_fio, running_in

INTERRUPTED = "flashpoc: error: interrupted; completed points are stored and reused on the next run"

#: (a pattern of the line of flashpoc's output after which Ctrl-C is pressed, seconds later): before any
#: notebook, while the check's kernel starts, during the probe's second point (1 s) at a moment drawn
#: for each run (fio starting, forking its jobs, measuring, ending), while the report is written
MOMENTS = [(r"flashpoc run ", 0.0), (r"\[check\] running", 0.5),
           (r"\[probe\] +1/", round(random.Random(time.time_ns()).uniform(0.0, 1.2), 2)), (r"\[report\] running", 3.0)]


def _interrupted_run(params, root, marker: str, delay: float) -> tuple[int, str, str]:
    """``flashpoc run`` in a process group of its own, SIGINT to the group ``delay`` s after it printed a
    line matching ``marker``; returns (exit code, stdout, stderr) once every process of it ended."""
    env = {**os.environ, "FLASHPOC_ROOT": str(root)}
    run = subprocess.Popen([sys.executable, "-m", "flashpoc.cli", "run", str(params)], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
    seen = []
    for line in run.stdout:
        seen.append(line)
        if re.match(marker, line):
            time.sleep(delay)
            os.killpg(run.pid, signal.SIGINT)
            break
    else:
        pytest.fail(f"the run ended before {marker!r}: {''.join(seen)[-2000:]} {run.stderr.read()[-2000:]}")
    out, err = run.communicate(timeout=300)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            os.killpg(run.pid, 0)  # a process of the run (a kernel) is still there
        except ProcessLookupError:
            break
        time.sleep(0.2)
    else:
        left = subprocess.run(["ps", "-g", str(run.pid)], capture_output=True, text=True).stdout
        pytest.fail(f"processes of the interrupted run are left: {left}")
    return run.returncode, "".join(seen) + out, err


def test_ctrl_c_at_any_moment_ends_the_run_in_one_line(tmp_path):
    require_fio()
    params = tmp_path / "quick.yaml"
    params.write_text(yaml.safe_dump(quick_campaign(tmp_path, probe={"strategy": "linear", "min_threads": 1,
                                                                     "max_threads": 3, "step": 1},
                                                    sweep={"plan": "guide", "max_threads": 2, "step": 1})))
    for marker, delay in MOMENTS:
        code, out, err = _interrupted_run(params, tmp_path, marker, delay)
        assert "Traceback" not in out + err, (marker, err[-3000:])
        assert (code, err.strip().splitlines()[-1]) == (130, INTERRUPTED), (marker, code, err[-2000:])
        # fio's job processes (sessions of their own, beyond the run's process group) ended with it
        assert running_in(tmp_path / "work") == [], (marker, delay)
    # the probe interrupted while it wrote the scratch file still recorded what it left there (the next
    # safety gate knows the campaign's own data; the report, interrupted last, writes no target)
    left = json.loads((tmp_path / "results" / "quick" / "written.json").read_text())["hosts"]["local"]
    with open(tmp_path / "scratch.dat", "rb") as scratch:
        assert left[str(tmp_path / "scratch.dat")]["header_sha256"] == hashlib.sha256(scratch.read(8192)).hexdigest()
    done = subprocess.run([sys.executable, "-m", "flashpoc.cli", "run", str(params), "--phases", "check"],
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "FLASHPOC_ROOT": str(tmp_path)})
    assert done.returncode == 0, done.stderr[-2000:]  # nothing left holding the campaign

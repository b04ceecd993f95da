"""Helpers shared by the benchmarks: a scratch campaign in a temporary workbook root."""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))  # ssh_server: a real sshd on 127.0.0.1


def scratch_root() -> Path:
    """A fresh temporary workbook root (results and scratch files go there)."""
    root = Path(tempfile.mkdtemp(prefix="flashpoc-bench-"))
    os.environ["FLASHPOC_ROOT"] = str(root)
    return root


def campaign_values(root: Path, **overrides) -> dict:
    """A local campaign on a 256 MiB scratch file under ``root``."""
    values = {
        "campaign": "bench",
        "hosts": [{"name": "local", "address": "localhost"}],
        "targets": [{"name": "scratch", "path": str(root / "scratch.dat"), "size": "256m", "create": True}],
        "fio": {"runtime_s": 2, "ramp_s": 0},
        "workloads": [{"name": "randread-4k", "rw": "randread", "bs": "4k"}],
        "results_dir": str(root / "results"),
    }
    values.update(overrides)
    return values


def summary(values: list[float]) -> str:
    """``mean +- stdev (n=N)`` of seconds."""
    sd = statistics.stdev(values) if len(values) > 1 else 0.0
    return f"{statistics.mean(values):.3f} s +- {sd:.3f} (n={len(values)})"


def load_average() -> str:
    """This machine's load average over 1, 5 and 15 minutes, as ``uptime`` prints it."""
    return ", ".join(f"{value:.2f}" for value in os.getloadavg())

"""A full file system under the results: `flashpoc run` on a real small file system (a tmpfs of a
few MiB) that fills up. The run stops with one clear error naming the file it could not write;
every file already there is whole (each is written to a temporary name and renamed); once
there is space again, a rerun completes and reuses the points stored."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import nbformat
import pandas as pd
import pytest
import yaml

from conftest import REPO, quick_campaign, require_fio


@pytest.fixture
def small_fs(tmp_path):
    """A tmpfs mounted in ``tmp_path``; the test sets its size (``mount -o remount,size=``)."""
    if os.geteuid() != 0:
        pytest.skip("needs root to mount a small file system (tmpfs)")
    mount = tmp_path / "small"
    mount.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "flashpoc-test", str(mount)],
                          capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {made.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def resize(mount, size: str) -> None:
    subprocess.run(["mount", "-o", f"remount,size={size}", str(mount)], check=True, capture_output=True)


def assert_whole(root) -> None:
    """Every file under ``root`` is whole and no temporary file of a write is left."""
    for path in root.rglob("*"):
        if not path.is_file():
            continue
        assert not path.name.startswith(".") or path.name == ".lock", f"left half-written: {path}"
        data = path.read_bytes()
        if path.suffix == ".ipynb":
            nbformat.reads(data.decode(), as_version=4)
        elif path.suffix == ".json":
            json.loads(data)
        elif path.suffix == ".html":
            assert data.rstrip().endswith(b"</html>"), path
        elif path.suffix == ".svg":
            assert data.rstrip().endswith(b"</svg>"), path
        elif path.suffix == ".png":
            assert data.endswith(b"IEND\xaeB`\x82"), path
        elif path.suffix == ".csv":
            pd.read_csv(path)


def points_stored(root) -> dict[str, str]:
    """{phase/point id: completed_utc} of every point stored under ``root``."""
    return {f"{p.parent.parent.name}/{p.parent.name}": json.loads(p.read_text())["completed_utc"]
            for p in root.glob("points/*/*/point.json")}


def test_a_full_file_system_stops_the_run_with_one_clear_error_and_a_rerun_completes(tmp_path, small_fs):
    """The file system is 400 KiB (full in the probe: a point's directory, then the notebook's
    HTML export cannot be written), then 3 MiB (full again later on, e.g. in the report: the
    executed notebook papermill saves), then 64 MiB (the run completes, reusing every point)."""
    require_fio()
    values = quick_campaign(tmp_path, workloads=[{"name": "randread-4k", "rw": "randread", "bs": "4k"}],
                            probe={"strategy": "linear", "min_threads": 1, "max_threads": 2, "step": 1},
                            sweep={"plan": "guide", "max_threads": 2, "step": 1},
                            results_dir=str(small_fs / "results"))
    params = tmp_path / "params.yaml"
    params.write_text(yaml.safe_dump(values))
    run = [sys.executable, "-m", "flashpoc.cli", "run", str(params)]
    env = dict(os.environ, PYTHONPATH=str(REPO / "lib"))
    root = small_fs / "results" / "quick"
    stored: dict[str, str] = {}
    for size in ("400k", "3m"):
        resize(small_fs, size)
        full = subprocess.run(run, env=env, capture_output=True, text=True, timeout=600)
        print(f"{size}: {full.stderr}")
        assert full.returncode == 1
        assert full.stderr.startswith("flashpoc: ") and "Traceback" not in full.stderr
        assert f"cannot write {root}/" in full.stderr
        assert "No space left on device: free space on its file system and run again" in full.stderr
        assert_whole(root)
        now = points_stored(root)
        assert {k: now[k] for k in stored} == stored  # the points stored before were reused
        stored = now
    assert stored

    resize(small_fs, "64m")
    again = subprocess.run(run, env=env, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr[-3000:]
    assert_whole(root)
    now = points_stored(root)
    assert {k: now[k] for k in stored} == stored and len(now) == 4  # 2 probe and 2 sweep points
    assert (root / "report" / "report.html").is_file()
    print(f"{len(stored)} points were stored when the disk was full; the whole campaign takes "
          f"{sum(p.stat().st_size for p in root.rglob('*') if p.is_file()) / 1024:.0f} KiB")

"""Results store: atomic points, tidy table, manifest format version."""

from __future__ import annotations

import json
import os

import pandas as pd
import pytest

from flashpoc.core.store import FORMAT_VERSION, CampaignStore, StoreError


def test_points_round_trip_and_table(tmp_path):
    store = CampaignStore(tmp_path / "c")
    store.save_point("sweep", "w_t00002_abc", {"workload": "w", "threads": 2, "iops": 1234.5,
                                               "completed_utc": "2026-01-01T00:00:02", "measurement_hash": "m1"},
                     {"local.json": "{}"})
    store.save_point("sweep", "w_t00001_abc", {"workload": "w", "threads": 1, "iops": 1000.0,
                                               "completed_utc": "2026-01-01T00:00:01", "measurement_hash": "m1"}, {})
    frame = store.load_points("sweep")
    assert list(frame["threads"]) == [1, 2] and list(frame["iops"]) == [1000.0, 1234.5]
    assert (store.point_dir("sweep", "w_t00002_abc") / "local.json").read_text() == "{}"
    assert store.load_point("sweep", "w_t00001_abc")["iops"] == 1000.0
    assert store.load_point("sweep", "missing") is None
    path = store.write_points_table("m1")
    assert path.read_text().splitlines()[0].split(",") == ["workload", "threads", "iops", "completed_utc",
                                                           "measurement_hash"]


def test_points_csv_holds_only_the_current_measurements_points(tmp_path):
    """Rows of other measurement settings, and probe rows the current probe.json does not list,
    stay on disk but are left out of points.csv and of what the report reads."""
    store = CampaignStore(tmp_path / "c")

    def point(phase, point_id, threads, measurement, second):
        store.save_point(phase, point_id, {"point_id": point_id, "workload": "w", "threads": threads,
                                           "measurement_hash": measurement,
                                           "completed_utc": f"2026-01-01T00:00:{second:02d}"}, {})

    point("probe", "w_t00001_old", 1, "old", 1)  # a probe of earlier settings
    point("probe", "w_t00002_old", 2, "old", 2)
    point("probe", "w_t00008_new", 8, "new", 3)  # an earlier probe of these settings, up to 8 threads
    point("probe", "w_t00001_new", 1, "new", 4)  # the current probe
    point("probe", "w_t00002_new", 2, "new", 5)
    point("sweep", "w_t00001_s_old", 1, "old", 6)
    point("sweep", "w_t00001_s_new", 1, "new", 7)
    store.write_json("probe.json", {"measurement_hash": "new", "points": [{"point_id": "w_t00001_new"},
                                                                         {"point_id": "w_t00002_new"}]})
    table = pd.read_csv(store.write_points_table("new"))
    assert list(table["point_id"]) == ["w_t00001_new", "w_t00002_new", "w_t00001_s_new"]
    assert len(store.load_points()) == 7  # the others stay on disk
    assert store.current_probe("old") is None and list(store.current_points("old", "sweep")["point_id"]) == [
        "w_t00001_s_old"]
    # a probe.json written before it recorded its settings: its points' rows tell
    store.write_json("probe.json", {"points": [{"point_id": "w_t00001_old"}, {"point_id": "w_t00002_old"}]})
    assert store.current_probe("new") is None and store.current_probe("old") is not None
    assert list(pd.read_csv(store.write_points_table("new"))["point_id"]) == ["w_t00001_s_new"]


def test_a_failed_point_write_leaves_nothing(tmp_path):
    store = CampaignStore(tmp_path / "c")

    class Boom(dict):
        def items(self):
            raise RuntimeError("killed mid-write")

    with pytest.raises(RuntimeError):
        store.save_point("probe", "p1", {"threads": 1}, Boom())
    assert store.load_point("probe", "p1") is None
    assert list((tmp_path / "c" / "points" / "probe").iterdir()) == []


def test_manifest_and_format_version(tmp_path):
    store = CampaignStore(tmp_path / "c")
    store.write_manifest({"campaign": "c"}, "abc", engine="fio", engine_versions={"h": "fio-3.33"},
                         host_facts={"h": {"cpus": "2"}}, workbook=tmp_path)
    manifest = json.loads((tmp_path / "c" / "manifest.json").read_text())
    assert manifest["format_version"] == FORMAT_VERSION
    assert manifest["engine_versions"] == {"h": "fio-3.33"} and manifest["params_hash"] == "abc"
    manifest["format_version"] = 99
    (tmp_path / "c" / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(StoreError, match="format version 99"):
        store.check_format()


def test_taking_the_campaign_removes_what_a_killed_run_left_half_written(tmp_path):
    store = CampaignStore(tmp_path / "c")
    store.save_point("sweep", "p1", {"threads": 1}, {"local.json": "{}"})
    partial = tmp_path / "c" / "points" / "sweep" / ".p2.k3j4l5"  # a save cut by SIGKILL
    partial.mkdir()
    (partial / "local.json").write_text("{")
    torn = tmp_path / "c" / ".manifest.json.x8y9z0"  # an atomic write cut the same way
    torn.write_text("{")
    notebook_tmp = tmp_path / "c" / "notebooks" / ".03_thread_sweep.ipynb.d4e5f6"  # papermill's save, cut
    notebook_tmp.parent.mkdir()
    notebook_tmp.write_text("{")
    report_tmp = tmp_path / "c" / "report" / ".summary.csv.a1b2c3"
    report_tmp.parent.mkdir()
    report_tmp.write_text("x")
    with store.lock():
        assert not partial.exists() and not torn.exists() and not notebook_tmp.exists()
        assert store.load_point("sweep", "p1") == {"threads": 1}
        assert report_tmp.exists()  # a report may be written while a phase runs: left alone
        with store.lock():  # re-entrant within the process
            pass
    assert (tmp_path / "c" / ".lock").read_text() == str(os.getpid())


LOCKER = """
import sys
from flashpoc.core.store import CampaignStore, StoreError
try:
    with CampaignStore(sys.argv[1]).lock():
        print("let in")
except StoreError as error:
    print(error)
"""


def test_the_holders_own_processes_are_let_in_and_any_other_is_refused(tmp_path):
    """While this process holds the campaign, a process it started (as `flashpoc run` starts its
    notebook kernels) is let in; a process it did not start (a child whose parent exited, so it
    was handed to init) is refused, naming the holder."""
    import subprocess
    import sys
    import time

    from conftest import REPO

    root = tmp_path / "c"
    env = dict(os.environ, PYTHONPATH=str(REPO / "lib"))
    script = tmp_path / "locker.py"
    script.write_text(LOCKER)
    with CampaignStore(root).lock():
        child = subprocess.run([sys.executable, str(script), str(root)], capture_output=True, text=True, env=env,
                               timeout=60)
        assert child.stdout == "let in\n", child.stderr
        grandchild = subprocess.run(["sh", "-c", f"{sys.executable} {script} {root}"], capture_output=True,
                                    text=True, env=env, timeout=60)
        assert grandchild.stdout == "let in\n", grandchild.stderr
        out = tmp_path / "orphan.txt"
        subprocess.run(["sh", "-c", f"{sys.executable} {script} {root} > {out} 2>&1 &"], env=env, timeout=60)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (out.exists() and out.read_text().endswith("\n")):
            time.sleep(0.1)
        assert out.read_text() == (f"campaign c is being run by another process (pid {os.getpid()}); wait for it "
                                   "to end, or stop it: its completed points are kept\n")
    assert (root / ".lock").read_text() == str(os.getpid())

"""``sweep.repeats``: every sweep point measured N times, interleaved (repeat r of every thread count
before repeat r+1), stored as repeats of one point; a rerun measures only the missing repeats. With
the real fio through `flashpoc run`, and with the real vdbench's sweep (one invocation of the thread
list per repeat)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import yaml

from conftest import quick_campaign, real_vdbench, require_fio
from flashpoc import phases
from flashpoc.params import campaign_from_dict
from flashpoc.campaign.results import load_results


def sweep_rows(root) -> list[dict]:
    """The stored sweep rows (a fio point's point.json, a vdbench group's points.json), in the order
    they were completed."""
    base = root / "points" / "sweep"
    rows = [json.loads(p.read_text()) for p in base.glob("*/point.json")]
    rows += [r for p in base.glob("*/points.json") for r in json.loads(p.read_text())]
    return sorted(rows, key=lambda r: r["completed_utc"])


def test_fio_repeats_through_flashpoc_run_interleaved_and_a_rerun_measures_only_the_missing(tmp_path):
    require_fio()
    values = quick_campaign(tmp_path, workloads=[{"name": "randread-4k", "rw": "randread", "bs": "4k"}],
                            probe={"strategy": "linear", "min_threads": 1, "max_threads": 2, "step": 1},
                            sweep={"plan": "guide", "max_threads": 2, "step": 1, "repeats": 2})
    params = tmp_path / "quick.yaml"
    params.write_text(yaml.safe_dump(values))
    out = subprocess.run([sys.executable, "-m", "flashpoc.cli", "run", str(params)], capture_output=True,
                         text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    root = tmp_path / "results" / "quick"
    rows = sweep_rows(root)
    # interleaved: every thread count once, then again
    assert [(r["threads"], r["repeat"]) for r in rows] == [(1, 0), (2, 0), (1, 1), (2, 1)]
    ids = [r["point_id"] for r in rows]
    assert ids[2] == ids[0] + "_r1" and ids[3] == ids[1] + "_r1"
    assert all(r["iops"] > 0 for r in rows)
    # the results keep every repeat (not only the latest of a thread count)
    cfg = campaign_from_dict(values)
    table = load_results(cfg, "sweep")
    assert sorted(zip(table["threads"], table["repeat"])) == [(1, 0), (1, 1), (2, 0), (2, 1)]
    assert sorted(table["iops"]) == sorted(r["iops"] for r in rows)

    # a kill after the first repeats: the second repeat of 2 threads never stored; then repeats: 3
    shutil.rmtree(root / "points" / "sweep" / ids[3])
    kept = {r["point_id"]: r["completed_utc"] for r in rows[:3]}
    cfg = campaign_from_dict({**values, "sweep": {**values["sweep"], "repeats": 3}})
    frame = phases.run_sweep(cfg, progress=False)
    assert sorted(zip(frame["threads"], frame["repeat"])) == [(1, 0), (1, 1), (1, 2), (2, 0), (2, 1), (2, 2)]
    assert sorted(frame.loc[frame["reused"], "point_id"]) == sorted(kept)
    after = {r["point_id"]: r for r in sweep_rows(root)}
    assert all(after[pid]["completed_utc"] == done for pid, done in kept.items())  # never measured again
    assert len(after) == 6
    new = sorted((r for r in after.values() if r["point_id"] not in kept), key=lambda r: r["completed_utc"])
    assert [(r["threads"], r["repeat"]) for r in new] == [(2, 1), (1, 2), (2, 2)]


def test_vdbench_repeats_are_one_invocation_of_the_thread_list_per_repeat(tmp_path):
    vdbench = str(real_vdbench())
    values = {
        "campaign": "rep", "engine": "vdbench",
        "hosts": [{"name": "local", "address": "localhost", "vdbench": vdbench, "workdir": str(tmp_path / "work")}],
        "targets": [{"name": "sd1", "path": str(tmp_path / "sd1.dat"), "size": "16m", "create": True}],
        "vdbench": {"elapsed_s": 2, "interval_s": 1, "openflags": "o_direct"},
        "workloads": [{"name": "rr", "rw": "randread", "bs": "4k"}],
        "probe": {"strategy": "adaptive", "min_threads": 1, "max_threads": 2},
        "sweep": {"plan": "guide", "max_threads": 2, "step": 1, "repeats": 2},
        "results_dir": str(tmp_path / "results"),
    }
    cfg = campaign_from_dict(values)
    phases.run_check(cfg)
    phases.run_sweep(cfg, progress=False)
    root = tmp_path / "results" / "rep"
    groups = sorted(p.name for p in (root / "points" / "sweep").iterdir())
    assert len(groups) == 2 and groups[1] == groups[0] + "_r1"  # one invocation of [1, 2] per repeat
    for group in groups:
        rows = json.loads((root / "points" / "sweep" / group / "points.json").read_text())
        assert sorted(r["threads"] for r in rows) == [1, 2]
        assert {r["repeat"] for r in rows} == {1 if group.endswith("_r1") else 0}
    table = load_results(cfg, "sweep")
    assert sorted(zip(table["threads"], table["repeat"])) == [(1, 0), (1, 1), (2, 0), (2, 1)]
    assert table["point_id"].is_unique

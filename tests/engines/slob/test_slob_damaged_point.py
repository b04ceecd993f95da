"""A SLOB point whose run left a damaged file, measured through the runit.sh REPLAY DOUBLE
(tests/replay/slob_replay.py) and the engine's measure loop: the stored row loses that file's
numbers, keeps the others and names the file in its ``damaged`` column (points.csv too)."""

from __future__ import annotations

import json

import pandas as pd

from flashpoc import phases
from test_phases_slob import RAC, RAC_DIR, slob_campaign

MPSTAT = ("mpstat_usr_pct", "mpstat_sys_pct", "mpstat_iowait_pct", "mpstat_idle_pct", "mpstat_intervals")


def test_a_point_whose_mpstat_out_was_cut_stores_no_cpu_figures_and_names_the_file(tmp_path):
    """runit.sh's mpstat.out cut after its sample of 09:29:16, before the AWR end snapshot
    (09:32:10): the point keeps the report's figures and the time series, loses mpstat's CPU
    (once averaged over the 64 intervals left: %iowait 23.65 for the window's 17.79)."""
    text = (RAC_DIR / "mpstat.out").read_bytes()
    cfg, _ = slob_campaign(tmp_path, {1: [RAC]}, cut={"mpstat.out": text.index(b"09:29:16 AM  CPU")},
                           probe={"workload": "slob-9010", "strategy": "linear", "min_threads": 1, "max_threads": 1,
                                  "step": 1})
    phases.run_probe(cfg, progress=False)
    (point_dir,) = (tmp_path / "results" / "slob" / "points" / "probe").iterdir()
    row = json.loads((point_dir / "point.json").read_text())
    assert (point_dir / "mpstat.out").read_bytes() == text[:text.index(b"09:29:16 AM  CPU")]  # kept as left
    assert all(row[column] is None for column in MPSTAT)
    assert row["damaged"] == ("mpstat.out: its samples end at 09:29:16, before the window's end 09:32:10 (cut "
                              "short?): they do not cover the window (lost: mpstat_usr_pct, mpstat_sys_pct, "
                              "mpstat_iowait_pct, mpstat_idle_pct, mpstat_intervals)")
    assert (row["iops"], row["tm_s"], row["scope"]) == (67029.6, 364, "cluster")
    assert (point_dir / "intervals.csv").exists()
    table = pd.read_csv(tmp_path / "results" / "slob" / "points.csv")
    assert table.loc[0, "damaged"] == row["damaged"] and pd.isna(table.loc[0, "mpstat_iowait_pct"])

"""The report's database results from real AWR reports: write waits compared at equal IOPS, and the
sentence drawn from DB CPU's share of DB time (tests/data/awr, tests/data/slob: see PROVENANCE.md)."""

from __future__ import annotations

import pandas as pd
import pytest

from conftest import DATA
from flashpoc.oracle.awr_metrics import point_metrics
from flashpoc.analysis.compare import comparison_table
from flashpoc.present.oracle_report import db_cpu_text
from flashpoc.oracle.awr import parse_awr, read_awr_file

RAC_INSTANCE = DATA / "slob" / "slob2.5_19c_rac2node_s256_t1_wu4_update10" / "awr.txt"
PROD = DATA / "awr" / "12.2.0.1_single_prod_awr.html"
SCAN = DATA / "awr" / "12.2.0.1_slob_update0_single_awr.html"


def metrics(path) -> dict:
    return point_metrics(parse_awr(read_awr_file(path)))


def row(path, **extra) -> dict:
    m = metrics(path)
    m["redo_write_lat_ms"] = m["log_file_parallel_write_avg_wait_us"] / 1000.0
    m["dbwr_write_lat_ms"] = m["db_file_parallel_write_avg_wait_us"] / 1000.0
    return {**m, "lat_mean_ms": m["lat_mean_ms"], **extra}


def test_redo_and_dbwr_waits_compared_at_equal_iops():
    # two points of a curve from two real reports: the 12.2 scan run (IOPS 2,000-odd) and the 19c RAC
    # instance (32,911 IOPS; log file parallel write 18.79ms, db file parallel write 11.52ms)
    low, high = row(SCAN, threads=1, outstanding_ios=1), row(RAC_INSTANCE, threads=2, outstanding_ios=2)
    assert high["redo_write_lat_ms"] == pytest.approx(18.79) and high["dbwr_write_lat_ms"] == pytest.approx(11.52)
    common = dict(workload="oltp", engine="slob", update_pct=10, scan_pct=0)
    points = pd.DataFrame([{**low, **common, "config": "A"}, {**high, **common, "config": "A"},
                           {**low, **common, "config": "B"}, {**high, **common, "config": "B"}])
    level = (low["iops"] + high["iops"]) / 2
    table = comparison_table(points, slo_ms=1.0, iops_levels=[level])
    redo = table[table["metric"] == "redo write (log file parallel write) at equal IOPS"].iloc[0]
    expected = (low["redo_write_lat_ms"] + high["redo_write_lat_ms"]) / 2  # halfway in IOPS
    assert redo["baseline_value"] == pytest.approx(expected) and redo["config_value"] == pytest.approx(expected)
    assert redo["unit"] == "ms" and redo["delta"] == pytest.approx(0)
    dbwr = table[table["metric"] == "DBWR write (db file parallel write) at equal IOPS"].iloc[0]
    assert dbwr["baseline_value"] == pytest.approx((low["dbwr_write_lat_ms"] + high["dbwr_write_lat_ms"]) / 2)


def test_db_cpu_dominating_says_storage_is_not_the_limit():
    # 12.2 production report: Top events "DB CPU 296.8 84.0" (% DB time), "Buffer Hit %: 99.99"
    points = pd.DataFrame([{**metrics(PROD), "workload": "prod", "threads": 4},
                           {**metrics(RAC_INSTANCE), "workload": "slob", "threads": 1}])
    text = db_cpu_text(points)
    lines = text.splitlines()
    assert lines[0].startswith("- `prod` at its highest IOPS (")
    assert "84.0 % of DB time on DB CPU, buffer hit 99.99 %" in lines[0] and "storage is not the limit" in lines[0]
    # the SLOB RAC instance: "DB CPU 2747.9 9.6", "Buffer  Hit   %:   45.92": the waits set the pace
    assert "9.6 % of DB time on DB CPU, buffer hit 45.92 %" in lines[1] and "storage is not the limit" not in lines[1]
    assert db_cpu_text(pd.DataFrame({"workload": ["x"], "iops": [1.0], "threads": [1]})) == ""

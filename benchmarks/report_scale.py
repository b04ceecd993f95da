"""Report at scale: two compared campaigns of 200 sweep points each (4 workloads x 50 thread
counts), each point with 600 one-second intervals (intervals.csv) and a fio latency histogram
(histogram.csv), built into the report (summary, comparison, steady-state verdicts, time series
and histogram of the detail points, charts, PNG/SVG, report.html).

Prints the seconds of ``build_report`` and the size of report.html against the targets
(seconds, under 5 MB), and the seconds to read every point's intervals (what the report avoids
by charting only the detail points). The points are synthetic curves (IOPS rising to a plateau,
latency by Little's law) with per-second noise; the histogram is the recorded fio 3.33 run's
bins (tests/data/fio/intervals-fio-3.33) scaled to each point's latency. Everything is written
through the store as a sweep would write it; no I/O is measured.

Usage: python benchmarks/report_scale.py
"""

from __future__ import annotations

import random
import time
from pathlib import Path

from _common import campaign_values, scratch_root

from flashpoc import phases
from flashpoc.params import campaign_from_dict
from flashpoc.engines.fio.parse import histogram_table, parse_fio_histogram
from flashpoc.rows import interval_verdict
from flashpoc.store import (HISTOGRAM_COLUMNS, HISTOGRAM_FILE, INTERVAL_COLUMNS, INTERVALS_FILE, CampaignStore,
                            table_text)

INTERVALS = 600  # one-second intervals per point
RECORDED = Path(__file__).resolve().parent.parent / "tests" / "data" / "fio" / "intervals-fio-3.33" / "out.json"

WORKLOADS = [("4k-randread", "randread", "4k"), ("4k-randwrite", "randwrite", "4k"),
             ("8k-oltp", "randrw", "8k"), ("128k-seqread", "read", "128k")]
THREADS = list(range(4, 201, 4))  # 50 thread counts


def write_campaign(root, name: str, peak_iops: float) -> dict:
    values = campaign_values(root, campaign=name, workloads=[
        {"name": w, "rw": rw, "bs": bs, **({"rwmixread": 70} if rw == "randrw" else {})} for w, rw, bs in WORKLOADS])
    cfg = campaign_from_dict(values).resolved()
    store = CampaignStore(cfg.results_path())
    store.write_manifest(cfg.model_dump(mode="json"), cfg.params_hash(), engine="fio", engine_versions={},
                         host_facts={})
    bins = histogram_table(parse_fio_histogram(RECORDED.read_text()))
    recorded_mean_us = sum(b["clat_us"] * b["count"] for b in bins) / sum(b["count"] for b in bins)
    noise = random.Random(name)
    for workload, rw, bs in WORKLOADS:
        for t in THREADS:
            iops = peak_iops * t / (t + 40.0)
            row = {"campaign": name, "phase": "sweep", "point_id": f"{workload}_t{t:05d}", "engine": "fio",
                   "workload": workload, "rw": rw, "bs": bs, "rwmixread": 70 if rw == "randrw" else None,
                   "iodepth": 1, "threads": t, "outstanding_ios": t, "ramp_s": 0, "working_set_bytes": 256 * 2**20,
                   "iops": iops, "read_iops": iops, "write_iops": iops * 0.3 if "write" in rw or rw == "randrw" else 0,
                   "bw_mibps": iops * 4 / 1024, "lat_mean_ms": t / iops * 1000,
                   "write_lat_mean_ms": t / iops * 1200 if "write" in rw or rw == "randrw" else None,
                   "clat_p50_ms": t / iops * 900, "clat_p99_ms": t / iops * 3000, "clat_p99_9_ms": t / iops * 6000,
                   "host_cpu_busy_pct": min(100.0, iops / peak_iops * 80), "host_cpu_iowait_pct": 5.0,
                   "measurement_hash": cfg.measurement_hash(), "params_hash": cfg.params_hash()}
            intervals = [{"point_id": row["point_id"], "second": float(s), "iops": iops * noise.uniform(0.95, 1.05),
                          "read_iops": iops, "write_iops": row["write_iops"], "lat_mean_ms": row["lat_mean_ms"],
                          "warmup": False} for s in range(1, INTERVALS + 1)]
            row.update(interval_verdict(intervals))
            scale = row["lat_mean_ms"] * 1000 / recorded_mean_us
            histogram = [{**b, "point_id": row["point_id"], "clat_us": b["clat_us"] * scale} for b in bins]
            store.save_point("sweep", row["point_id"], row, {INTERVALS_FILE: table_text(intervals, INTERVAL_COLUMNS),
                                                             HISTOGRAM_FILE: table_text(histogram, HISTOGRAM_COLUMNS)})
    return values


def main() -> None:
    root = scratch_root()
    base = write_campaign(root, "a-series", 650_000)
    write_campaign(root, "c-series", 480_000)
    cfg = campaign_from_dict({**base, "report": {"label": "A-series TLC",
                                                 "compare": [{"campaign": "c-series", "label": "C-series QLC"}]}})
    started = time.perf_counter()
    report = phases.build_report(cfg)
    seconds = time.perf_counter() - started
    size_mb = report.files["report.html"].stat().st_size / 1e6
    points = len(report.points)
    started = time.perf_counter()
    every = CampaignStore(cfg.resolved().results_path()).load_point_tables("sweep", INTERVALS_FILE)
    load_s = time.perf_counter() - started
    print(f"report of {points} points ({points // 2} per campaign, 2 campaigns compared, {INTERVALS} intervals "
          f"and a latency histogram per point): {seconds:.1f} s (target: seconds); report.html {size_mb:.2f} MB "
          f"(target < 5 MB, ratio {size_mb / 5:.2f}); {len(report.charts)} charts, {len(report.comparison)} "
          f"comparison rows, {len(report.steadiness)} steady-state verdicts; reading all {len(every):,} intervals "
          f"of one campaign takes {load_s:.1f} s (the report reads only the {len(report.detail)} detail points')")


if __name__ == "__main__":
    main()

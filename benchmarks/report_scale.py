"""Report at scale: two compared campaigns of 200 sweep points each (4 workloads x 50 thread
counts), built into the report (summary, comparison, charts, PNG/SVG, report.html).

Prints the seconds of ``build_report`` and the size of report.html against the targets
(seconds, under 5 MB). The points are synthetic curves (IOPS rising to a plateau, latency by
Little's law), written through the store as a sweep would write them; no I/O is measured.

Usage: python benchmarks/report_scale.py
"""

from __future__ import annotations

import time

from _common import campaign_values, scratch_root

from flashpoc import phases
from flashpoc.params import campaign_from_dict
from flashpoc.store import CampaignStore

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
    for workload, rw, bs in WORKLOADS:
        for t in THREADS:
            iops = peak_iops * t / (t + 40.0)
            row = {"campaign": name, "phase": "sweep", "point_id": f"{workload}_t{t:05d}", "engine": "fio",
                   "workload": workload, "rw": rw, "bs": bs, "rwmixread": 70 if rw == "randrw" else None,
                   "iodepth": 1, "threads": t, "outstanding_ios": t, "working_set_bytes": 256 * 2**20,
                   "iops": iops, "read_iops": iops, "write_iops": iops * 0.3 if "write" in rw or rw == "randrw" else 0,
                   "bw_mibps": iops * 4 / 1024, "lat_mean_ms": t / iops * 1000,
                   "write_lat_mean_ms": t / iops * 1200 if "write" in rw or rw == "randrw" else None,
                   "clat_p50_ms": t / iops * 900, "clat_p99_ms": t / iops * 3000, "clat_p99_9_ms": t / iops * 6000,
                   "host_cpu_busy_pct": min(100.0, iops / peak_iops * 80), "host_cpu_iowait_pct": 5.0,
                   "measurement_hash": cfg.measurement_hash(), "params_hash": cfg.params_hash()}
            store.save_point("sweep", row["point_id"], row, {})
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
    print(f"report of {points} points ({points // 2} per campaign, 2 campaigns compared): {seconds:.1f} s "
          f"(target: seconds); report.html {size_mb:.2f} MB (target < 5 MB, ratio {size_mb / 5:.2f}); "
          f"{len(report.charts)} charts, {len(report.comparison)} comparison rows")


if __name__ == "__main__":
    main()

"""The report at a real POC's size: 16 load hosts x 64 targets x 200 sweep points, alone and
compared with a second campaign of the same size; seconds, report.html's size and the memory peak
of each (goals: at most 60 s and 10 MB).

The stored campaigns are real recorded rows scaled out, never an invented format: first a real
campaign runs here (one local host, 64 scratch files of 1 MiB, the real check and fio 2-second
points of the four workloads at 1 and 8 threads, fio's interval logs and JSON+ histograms), then
each of its files is copied for the big campaigns: the check's rows and host facts once per host
(target paths renamed), each point 50 times per workload (thread counts 4..200) with its rates
scaled by a curve that rises to a plateau and 16 hosts, its latencies by Little's law, its
``per_host`` numbers one per host, each host's fio output and job file, its intervals repeated
to 300 one-second intervals and its histogram's bins scaled. Each report is built in its own
process (the peak is that process's ``ru_maxrss``), with the PDF as ``flashpoc run`` makes it.

Usage: python benchmarks/report_scale.py [--keep] [--base DIR]   (--keep leaves the scratch directory;
--base DIR takes the real run from such a directory instead of running it again)
"""

from __future__ import annotations

import time

STARTED = time.perf_counter()  # before the imports: a report's process pays them once

import csv
import io
import json
import os
import random
import resource
import shutil
import subprocess
import sys
from pathlib import Path

from _common import REPO, campaign_values, load_average, scratch_root

from flashpoc.engines.fio.measure import measure_point
from flashpoc import phases
from flashpoc.params import campaign_from_dict
from flashpoc.analysis.rows import interval_verdict
from flashpoc.campaign.session import manifest_params
from flashpoc.core.store import (HISTOGRAM_COLUMNS, HISTOGRAM_FILE, INTERVAL_COLUMNS, INTERVALS_FILE, CampaignStore,
                            table_text, write_atomic)

HOSTS, TARGETS, INTERVALS = 16, 64, 300
WORKLOADS = [("4k-randread", "randread", "4k"), ("4k-randwrite", "randwrite", "4k"),
             ("8k-oltp", "randrw", "8k"), ("128k-seqread", "read", "128k")]
BASE_THREADS = (1, 8)
THREADS = list(range(4, 201, 4))  # 50 counts x 4 workloads = 200 points
GOAL_S, GOAL_MB = 60.0, 10.0


def workloads() -> list[dict]:
    return [{"name": w, "rw": rw, "bs": bs, **({"rwmixread": 70} if rw == "randrw" else {})}
            for w, rw, bs in WORKLOADS]


def base_campaign(root: Path) -> Path:
    """The real run: check, fill and 8 points on one local host over 64 scratch files; its results."""
    targets = [{"name": f"lun{i:02d}", "path": str(root / "luns" / f"lun{i:02d}.dat"), "size": "1m", "create": True}
               for i in range(1, TARGETS + 1)]
    (root / "luns").mkdir()
    cfg = campaign_from_dict(campaign_values(root, campaign="base", targets=targets, workloads=workloads(),
                                             fio={"runtime_s": 2, "ramp_s": 0}))
    phases.run_check(cfg)
    with phases.open_campaign(cfg) as wb:
        phases.prepare_targets(wb)
        for workload in wb.cfg.workloads:
            for threads in BASE_THREADS:
                measure_point(wb, "sweep", workload, threads)
    return cfg.resolved().results_path()


def scaled_values(root: Path, name: str) -> dict:
    """The big campaign's parameters: 16 SSH hosts, 64 LUNs each host sees (no I/O is done)."""
    hosts = [{"name": f"h{i:02d}", "address": f"10.20.0.{10 + i}", "user": "root"} for i in range(1, HOSTS + 1)]
    targets = [{"name": f"lun{i:02d}", "path": f"/dev/mapper/lun{i:02d}", "size": "100g", "allow_write": True}
               for i in range(1, TARGETS + 1)]
    return campaign_values(root, campaign=name, hosts=hosts, targets=targets, workloads=workloads(),
                           fio={"runtime_s": INTERVALS, "ramp_s": 0})


def renamed(text: str, base: Path) -> str:
    """A real file of the base run with the big campaign's target paths (longest first: lun1 is in lun10)."""
    targets = json.loads((base / "manifest.json").read_text())["params"]["targets"]
    for target in sorted(targets, key=lambda t: -len(t["path"])):
        text = text.replace(target["path"], f"/dev/mapper/{target['name']}")
    return text


def scale_check(base: Path, store: CampaignStore, cfg) -> None:
    """check.csv, check.json and manifest.json: the real check's rows and facts once per host."""
    lines = (base / "check.csv").read_text().splitlines(keepends=True)
    head, rows = lines[0], lines[1:]
    own = [r for r in rows if r.startswith("local,")]
    campaign_rows = [r for r in rows if not r.startswith("local,")]
    text = renamed(head + "".join(h.name + r[len("local"):] for h in cfg.hosts for r in own) + "".join(campaign_rows),
                   base)
    write_atomic(store.root / "check.csv", text)
    manifest = json.loads((base / "manifest.json").read_text())
    facts = manifest["host_facts"]["local"]
    manifest["params"] = manifest_params(cfg)
    manifest["params_hash"] = cfg.params_hash()
    manifest["host_facts"] = {h.name: json.loads(renamed(json.dumps(facts), base)) for h in cfg.hosts}
    manifest["engine_versions"] = {h.name: v for h in cfg.hosts for v in manifest["engine_versions"].values()}
    if manifest.get("environment", {}).get("hosts"):
        one = json.dumps(manifest["environment"]["hosts"]["local"])
        manifest["environment"]["hosts"] = {h.name: json.loads(renamed(one, base)) for h in cfg.hosts}
    write_atomic(store.root / "manifest.json", json.dumps(manifest, indent=2))
    write_atomic(store.root / "check.json", json.dumps({"params_hash": cfg.params_hash(), "verdict": "pass"}))


def _scaled(row: dict, rate: float, latency: float) -> dict:
    """``row`` with its rates times ``rate`` and its latencies times ``latency``."""
    out = dict(row)
    for key, value in row.items():
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            continue
        if "iops" in key or "bw_mibps" in key:
            out[key] = value * rate
        elif key.endswith("_ms") and ("lat" in key or "clat" in key):
            out[key] = value * latency
    return out


def _table(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def scale_points(base: Path, store: CampaignStore, cfg, peak: float, seed: str) -> None:
    """The 200 sweep points, each from the real point of its workload at 8 threads."""
    noise = random.Random(seed)
    hosts = [h.name for h in cfg.hosts]
    for workload, _, _ in WORKLOADS:
        source = next(p for p in (base / "points" / "sweep").iterdir()
                      if p.name.startswith(f"{workload}_t{BASE_THREADS[-1]:05d}_"))
        real = json.loads((source / "point.json").read_text())
        intervals, histogram = (_table((source / f).read_text()) for f in (INTERVALS_FILE, HISTOGRAM_FILE))
        output, job = (renamed((source / f"local.{f}").read_text(), base) for f in ("json", "job.fio"))
        raw = {**{f"{h}.json": output for h in hosts}, **{f"{h}.job.fio": job for h in hosts}}
        for threads in THREADS:
            outstanding = threads * real["iodepth"] * HOSTS
            iops = real["iops"] * HOSTS * peak * threads / (threads + 40) * noise.uniform(0.97, 1.03)
            rate = iops / real["iops"]
            latency = (outstanding / iops * 1000) / real["lat_mean_ms"]
            pid = f"{workload}_t{threads:05d}_{cfg.measurement_hash()[:10]}"
            row = _scaled(real, rate, latency)
            row.update(campaign=cfg.campaign, point_id=pid, threads=threads, outstanding_ios=outstanding, hosts=hosts,
                       measurement_hash=cfg.measurement_hash(), params_hash=cfg.params_hash(),
                       runtime_s=INTERVALS, percentiles_exact=True)
            row["per_host"] = {h: {"iops": iops / HOSTS * noise.uniform(0.95, 1.05), "lat_mean_ms": row["lat_mean_ms"],
                                   "host_cpu_busy_pct": real.get("host_cpu_busy_pct")} for h in hosts}
            series = []
            for second in range(1, INTERVALS + 1):
                r = intervals[(second - 1) % len(intervals)]
                series.append({**{k: (float(v) * rate if "iops" in k and v else float(v) * latency
                                      if k.endswith("_ms") and v else v) for k, v in r.items()},
                               "point_id": pid, "second": float(second), "warmup": False})
            row.update(interval_verdict([{**r, "iops": float(r["iops"])} for r in series]))
            bins = [{**b, "point_id": pid, "clat_us": float(b["clat_us"]) * latency,
                     "count": round(int(b["count"]) * rate)} for b in histogram]
            store.save_point("sweep", pid, row, {**raw,
                                                 INTERVALS_FILE: table_text(series, INTERVAL_COLUMNS),
                                                 HISTOGRAM_FILE: table_text(bins, HISTOGRAM_COLUMNS)})


def scaled_campaign(root: Path, base: Path, name: str, peak: float) -> dict:
    values = scaled_values(root, name)
    cfg = campaign_from_dict(values).resolved()
    store = CampaignStore(cfg.results_path())
    store.root.mkdir(parents=True)
    scale_check(base, store, cfg)
    scale_points(base, store, cfg, peak, name)
    store.write_points_table(cfg.measurement_hash())
    return values


def measure(values_file: Path) -> None:
    """In a process of its own: build the report of the campaign in ``values_file``; print seconds
    (and those of its steps: importing the chart library, writing the chart files, report.html and
    the PDF), report.html's bytes and this process's memory peak as one JSON line."""
    from flashpoc.present import report as report_module

    steps: dict[str, float] = {}

    def timed(name, function):
        def run(*args, **kwargs):
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                steps[name] = steps.get(name, 0.0) + time.perf_counter() - started
        return run

    for name in ("save_charts", "write_html_report", "print_pdf"):
        setattr(report_module, name, timed(name, getattr(report_module, name)))
    cfg = campaign_from_dict(json.loads(values_file.read_text()))
    import altair  # noqa: F401 - every process that charts imports it once

    steps["imports (flashpoc, altair)"] = time.perf_counter() - STARTED
    report = phases.build_report(cfg)
    seconds = time.perf_counter() - STARTED
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
    print(json.dumps({"seconds": seconds, "cpu_s": cpu, "steps": steps, "html_bytes": report.files["report.html"].stat().st_size,
                      "pdf": "report.pdf" in report.files, "charts": len(report.charts), "points": len(report.points),
                      "peak_mib": own.ru_maxrss / 1024, "child_peak_mib": children.ru_maxrss / 1024}))


def run_measure(root: Path, label: str, values: dict) -> dict:
    path = root / f"{label}.json"
    path.write_text(json.dumps(values))
    load = load_average()
    done = subprocess.run([sys.executable, __file__, "--measure", str(path)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO / "benchmarks")})
    if done.returncode != 0:
        print(f"{label}: FAILED: {done.stderr.strip().splitlines()[-1]}; load average {load}", flush=True)
        return {}
    result = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"{label}: {result['points']} points, {result['seconds']:.1f} s, {result['cpu_s']:.1f} CPU-s (goal <= {GOAL_S:g} s, ratio "
          f"{result['seconds'] / GOAL_S:.2f}); report.html {result['html_bytes'] / 1e6:.2f} MB (goal <= {GOAL_MB:g} MB, "
          f"ratio {result['html_bytes'] / 1e6 / GOAL_MB:.2f}); {result['charts']} charts; PDF "
          f"{'printed' if result['pdf'] else 'not printed'}; memory peak {result['peak_mib']:.0f} MiB "
          f"(its largest child, Chromium printing the PDF: {result['child_peak_mib']:.0f} MiB); "
          f"load average {load}\n  of which: " + ", ".join(f"{k} {v:.1f} s" for k, v in result["steps"].items())
          + f", the rest (reading the points, tables, charts) {result['seconds'] - sum(result['steps'].values()):.1f} s",
          flush=True)
    return result


def main() -> None:
    if "--measure" in sys.argv:
        measure(Path(sys.argv[sys.argv.index("--measure") + 1]))
        return
    root = scratch_root()
    started, load = time.perf_counter(), load_average()
    if "--base" in sys.argv:  # the real run of an earlier --keep run, copied
        shutil.copytree(Path(sys.argv[sys.argv.index("--base") + 1]), root / "base-run")
        base = root / "base-run" / "results" / "base"
    else:
        base = base_campaign(root)
    print(f"real base run (check, fill, {len(WORKLOADS) * len(BASE_THREADS)} points on one host, {TARGETS} targets): "
          f"{time.perf_counter() - started:.0f} s; load average {load}", flush=True)
    started = time.perf_counter()
    a = scaled_campaign(root, base, "a-series", 1.0)
    c = scaled_campaign(root, base, "c-series", 0.74)
    size = sum(f.stat().st_size for f in (root / "results").rglob("*") if f.is_file()) / 1e6
    print(f"two campaigns of {HOSTS} hosts x {TARGETS} targets x {len(THREADS) * len(WORKLOADS)} points written in "
          f"{time.perf_counter() - started:.0f} s ({size:,.0f} MB on disk)", flush=True)
    run_measure(root, "report of one campaign", a)
    compared = {**a, "report": {"label": "A-series", "compare": [{"campaign": "c-series", "label": "C-series"}]}}
    run_measure(root, "comparison of two campaigns", compared)
    if "--keep" in sys.argv:
        print(f"kept: {root}")
    else:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()

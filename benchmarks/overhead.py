"""Orchestration overhead per point: wall time minus fio's runtime, local and over SSH.

Compares a bare ``fio job --output-format=json+ --output=FILE`` invocation with a whole
workbook point (job upload, fio, /proc/stat, parse, atomic store) on the same job, locally
and through a real sshd on 127.0.0.1. Prints the overheads and their differences.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

from _common import campaign_values, scratch_root, summary

from flashpoc.engines.fio.measure import measure_point
from flashpoc import phases
from flashpoc.params import campaign_from_dict
from flashpoc.engines.fio.plan import render_job

REPEATS = 5


def bare_fio(job_path, out_path, runtime_s):
    start = time.perf_counter()
    subprocess.run(["fio", str(job_path), "--output-format=json+", f"--output={out_path}"], check=True,
                   capture_output=True)
    return time.perf_counter() - start - runtime_s


def workbook_points(cfg, runtime_s):
    overheads = []
    with phases.open_campaign(cfg) as wb:
        phases.prepare_targets(wb)
        workload = wb.cfg.workloads[0]
        measure_point(wb, "bench", workload, 4, repeat=1000)  # warm-up: connection, fio version
        for i in range(REPEATS):
            start = time.perf_counter()
            measure_point(wb, "bench", workload, 4, repeat=i + 1)
            overheads.append(time.perf_counter() - start - runtime_s)
    return overheads


def main() -> int:
    root = scratch_root()
    local = campaign_from_dict(campaign_values(root))
    runtime = local.fio.runtime_s
    wb_local = workbook_points(local, runtime)
    job = root / "bare.fio"
    job.write_text(render_job(local, local.workloads[0], 4, local.resolved().targets))
    bare = [bare_fio(job, root / f"bare{i}.json", runtime) for i in range(REPEATS)]

    print(f"bare fio overhead beyond runtime:        {summary(bare)}")
    print(f"workbook point overhead (local):         {summary(wb_local)}")
    print(f"  local minus bare:                      {statistics.mean(wb_local) - statistics.mean(bare):+.3f} s "
          f"(target: within +0.1 s)")
    try:
        from ssh_server import start_sshd
    except ImportError:
        print("ssh: tests/ssh_server.py not importable; skipped")
        return 0
    server = start_sshd(root / "sshd")
    try:
        remote = campaign_from_dict(campaign_values(root, campaign="bench-ssh", hosts=[{
            "name": "ssh", "address": server.address, "port": server.port, "user": server.user,
            "key_file": str(server.key_file), "known_hosts": str(server.known_hosts)}]))
        wb_ssh = workbook_points(remote, runtime)
    finally:
        server.stop()
    print(f"workbook point overhead (SSH 127.0.0.1): {summary(wb_ssh)}")
    print(f"  SSH minus bare:                        {statistics.mean(wb_ssh) - statistics.mean(bare):+.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

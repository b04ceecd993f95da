"""Workbook fio vs the same fio job run by hand: IOPS ratio (target >= 0.98).

Alternates a workbook point and a hand-run ``fio JOB --output-format=json`` of the identical
job file, several times, so drift on a noisy machine affects both alike.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys

from _common import campaign_values, scratch_root

from flashpoc.engines.fio.measure import measure_point
from flashpoc import phases
from flashpoc.params import campaign_from_dict
from flashpoc.engines.fio.plan import render_job

REPEATS = 4
THREADS = 8


def main() -> int:
    root = scratch_root()
    cfg = campaign_from_dict(campaign_values(root, fio={"runtime_s": 3, "ramp_s": 0}))
    workbook, by_hand = [], []
    with phases.open_campaign(cfg) as wb:
        phases.prepare_targets(wb)
        workload = wb.cfg.workloads[0]
        job = root / "hand.fio"
        job.write_text(render_job(wb.cfg, workload, THREADS, wb.cfg.targets))
        for i in range(REPEATS):
            workbook.append(measure_point(wb, "bench", workload, THREADS, repeat=i + 1)["iops"])
            out = subprocess.run(["fio", str(job), "--output-format=json"], capture_output=True, text=True,
                                 check=True)
            by_hand.append(json.loads(out.stdout)["jobs"][0]["read"]["iops"])
    w, h = statistics.mean(workbook), statistics.mean(by_hand)
    print(f"workbook IOPS: {w:,.0f} (points: {', '.join(f'{v:,.0f}' for v in workbook)})")
    print(f"by hand IOPS:  {h:,.0f} (points: {', '.join(f'{v:,.0f}' for v in by_hand)})")
    print(f"ratio workbook/by hand: {w / h:.3f} (target >= 0.98)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Where a vdbench point's time goes beyond vdbench's own: the real vdbench (.engines/vdbench) on
one local scratch file, a workbook point (``elapsed`` seconds) against the same parmfile run by
hand (``vdbench -f parmfile -o DIR``), interleaved so that the machine's load weighs on both alike.

Prints, for each, the wall seconds beyond ``elapsed`` (mean of the runs), the workbook's steps
(the targets' size check, writing the parmfile, vdbench itself as the controller ran it, fetching
its output, parsing it, the rest: rows, the store) and the machine's load average. What vdbench
itself adds beyond ``elapsed`` (the JVMs' start, its slave's connection, its reports) is the
run by hand's figure; the workbook's own cost is the difference.

Usage: python benchmarks/vdbench_overhead.py [RUNS]   (default 3)
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections import defaultdict

from _common import REPO, load_average, scratch_root, summary

from flashpoc import phases
from flashpoc.engines import get_engine
from flashpoc.engines.vdbench import measure as vdb_measure
from flashpoc.engines.vdbench import run as vdb_run
from flashpoc.params import campaign_from_dict

ELAPSED = 5
VDBENCH = REPO / ".engines" / "vdbench"


def timed(steps: dict, name: str, module, attr: str) -> None:
    """Wrap ``module.attr`` so that each call adds its seconds to ``steps[name]``."""
    function = getattr(module, attr)

    def run(*args, **kwargs):
        started = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            steps[name].append(time.perf_counter() - started)
    setattr(module, attr, run)


def main() -> int:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    if not (VDBENCH / "vdbench").exists():
        print(f"no vdbench at {VDBENCH}: `make test` installs it from the engine kit")
        return 1
    root = scratch_root()
    cfg = campaign_from_dict({
        "campaign": "vdbench-overhead", "engine": "vdbench",
        "hosts": [{"name": "local", "address": "localhost", "vdbench": str(VDBENCH), "workdir": str(root / "work")}],
        "targets": [{"name": "sd1", "path": str(root / "sd1.dat"), "size": "16m", "create": True}],
        "vdbench": {"elapsed_s": ELAPSED, "interval_s": 1, "warmup_s": 0, "openflags": "o_direct"},
        "workloads": [{"name": "rr", "rw": "randread", "bs": "4k"}],
        "results_dir": str(root / "results")})
    engine = get_engine("vdbench")
    steps: dict[str, list[float]] = defaultdict(list)
    timed(steps, "targets' size check", vdb_measure, "require_targets")
    timed(steps, "fetch the output", vdb_run, "fetch_output")
    timed(steps, "parse the output", vdb_measure, "parse_output_dir")
    timed(steps, "whole invocation (run_vdbench)", vdb_measure, "run_vdbench")
    workbook, by_hand, load = [], [], load_average()
    with phases.open_campaign(cfg) as wb:
        phases.prepare_targets(wb)
        for i in range(runs):
            started = time.perf_counter()
            engine.measure_point(wb, "bench", wb.cfg.workloads[0], 2, runtime_s=ELAPSED, repeat=i + 1)
            workbook.append(time.perf_counter() - started - ELAPSED)
            parm = sorted((root / "work" / cfg.campaign / "bench").rglob("parmfile"), key=lambda p: p.stat().st_mtime)[-1]
            started = time.perf_counter()
            subprocess.run([str(VDBENCH / "vdbench"), "-f", str(parm), "-o", str(root / f"by-hand-{i}")],
                           check=True, capture_output=True)
            by_hand.append(time.perf_counter() - started - ELAPSED)
    print(f"vdbench run by hand, seconds beyond elapsed={ELAPSED}: {summary(by_hand)}")
    print(f"workbook point, seconds beyond elapsed={ELAPSED}:     {summary(workbook)}")
    print(f"  workbook minus by hand: {sum(workbook) / runs - sum(by_hand) / runs:+.2f} s; its steps (mean):")
    for name, values in steps.items():
        print(f"    {name}: {sum(values) / len(values):.2f} s (n={len(values)})")
    print(f"load average {load} before, {load_average()} after")
    return 0


if __name__ == "__main__":
    sys.exit(main())

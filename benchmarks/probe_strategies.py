"""Adaptive vs linear saturation probe on this machine's disk: runs, device time, answers.

Both probes run 4K random read (3 s points after 1 s of ramp) on a scratch file, linear over
4..64 step 4 (the guide's method at this machine's scale) and adaptive from 1 to 64, twice
each. Prints each answer with its curve, and the ratio of runs and device time.
"""

from __future__ import annotations

import sys

from _common import campaign_values, scratch_root

from flashpoc import phases
from flashpoc.params import campaign_from_dict


def probe(root, strategy, **settings):
    values = campaign_values(root, campaign=f"probe-{strategy}", fio={"runtime_s": 3, "ramp_s": 1},
                             probe={"strategy": strategy, "max_threads": 64, **settings})
    return phases.run_probe(campaign_from_dict(values), progress=False)


def describe(name, result):
    sat = result["saturation"]
    answer = f"{sat['threads']} threads ({sat['max_iops']:,.0f} IOPS, range {sat.get('range_threads')})" \
        if sat.get("threads") else f"no answer: {sat.get('reason')}"
    print(f"{name:12s} runs={result['runs']:3d} device_time={result['device_time_s']:4d} s  -> {answer}")
    curve = ", ".join(f"{p['threads']}:{p['iops'] / 1000:.0f}K" for p in sorted(result["points"],
                                                                               key=lambda p: p["threads"]))
    print(f"{'':12s} threads:IOPS {curve}")


def main() -> int:
    runs = {"linear": [], "adaptive": []}
    for repeat in (1, 2):
        root = scratch_root()
        runs["linear"].append(probe(root, "linear", min_threads=4, step=4))
        runs["adaptive"].append(probe(root, "adaptive", min_threads=1, step=4))
        describe(f"linear #{repeat}", runs["linear"][-1])
        describe(f"adaptive #{repeat}", runs["adaptive"][-1])
    lin_runs = sum(r["runs"] for r in runs["linear"])
    ada_runs = sum(r["runs"] for r in runs["adaptive"])
    lin_time = sum(r["device_time_s"] for r in runs["linear"])
    ada_time = sum(r["device_time_s"] for r in runs["adaptive"])
    print(f"adaptive/linear runs: {ada_runs / lin_runs:.2f}  device time: {ada_time / lin_time:.2f}")
    ranges = [r["saturation"].get("range_threads") for rs in runs.values() for r in rs]
    ranges = [r for r in ranges if r]
    if len(ranges) > 1:
        overlap = max(r[0] for r in ranges) <= min(r[1] for r in ranges)
        print(f"all plausible ranges overlap: {overlap}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

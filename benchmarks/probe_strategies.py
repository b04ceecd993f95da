"""Adaptive vs linear saturation probe on this machine's disk: runs, device time, answers.

Both probes run 4K random read on a scratch file, linear over 4..64 step 4 (the guide's
method at this machine's scale) and adaptive from 1 to 64. Prints each answer and the ratio
of runs and device time.
"""

from __future__ import annotations

import sys

from _common import campaign_values, scratch_root

from flashpoc import phases
from flashpoc.params import campaign_from_dict


def probe(root, strategy, **settings):
    values = campaign_values(root, campaign=f"probe-{strategy}",
                             probe={"strategy": strategy, "max_threads": 64, **settings})
    return phases.run_probe(campaign_from_dict(values), progress=False)


def describe(name, result):
    sat = result["saturation"]
    answer = f"{sat['threads']} threads ({sat['max_iops']:,.0f} IOPS, range {sat.get('range_threads')})" \
        if sat.get("threads") else f"no answer: {sat.get('reason')}"
    print(f"{name:8s} runs={result['runs']:3d} device_time={result['device_time_s']:4d} s  -> {answer}")


def main() -> int:
    root = scratch_root()
    linear = probe(root, "linear", min_threads=4, step=4)
    adaptive = probe(root, "adaptive", min_threads=1, step=4)
    describe("linear", linear)
    describe("adaptive", adaptive)
    print(f"adaptive/linear runs: {adaptive['runs'] / linear['runs']:.2f}  "
          f"device time: {adaptive['device_time_s'] / linear['device_time_s']:.2f}")
    a, b = linear["saturation"].get("range_threads"), adaptive["saturation"].get("range_threads")
    if a and b:
        overlap = max(a[0], b[0]) <= min(a[1], b[1])
        print(f"plausible ranges overlap: {overlap}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

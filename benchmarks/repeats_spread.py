"""Does ``sweep.repeats`` make the answers hold up? On this machine's disk with real fio: three
independent small campaigns with ``sweep.repeats: 1`` and three with ``sweep.repeats: 3`` (run
alternately, so that a drift of the disk touches both alike), each a sweep of 4K random reads at
a few thread counts; the spread over the three campaigns of max IOPS and of IOPS at the SLO (the
answers as the report gives them: the mean of the repeat-wise answers, :mod:`flashpoc.confidence`).
The answer's spread should shrink as the repeats grow (by about sqrt(3) for independent noise).

    .venv/bin/python benchmarks/repeats_spread.py [--threads 1,2,4] [--runtime 1] [--campaigns 3]

Not a timed test: a few minutes of real I/O on a 256 MiB scratch file.
"""

from __future__ import annotations

import argparse
import statistics

from _common import campaign_values, scratch_root

from flashpoc import confidence, phases
from flashpoc.params import campaign_from_dict
from flashpoc.results import load_results


def answers(values: dict, slo_ms: float) -> tuple[float | None, float | None]:
    """(max IOPS, IOPS at ``slo_ms``) of a measured campaign, as the report's repeats section gives them."""
    found = confidence.answers(load_results(campaign_from_dict(values), "sweep"), slo_ms).set_index("answer")
    at_slo = found.loc[f"IOPS at {slo_ms:g} ms", "mean"]
    return float(found.loc["max IOPS", "mean"]), (None if at_slo is None or at_slo != at_slo else float(at_slo))


def spread(values: list[float | None]) -> str:
    """min..max, range in % of the mean, and CV of the answers over the campaigns."""
    xs = [v for v in values if v is not None]
    if len(xs) < 2:
        return f"{len(xs)} answers: no spread"
    mean = statistics.mean(xs)
    return (f"{min(xs):,.0f}..{max(xs):,.0f} IOPS: range {(max(xs) - min(xs)) / mean * 100:.1f} % of the mean, "
            f"CV {statistics.stdev(xs) / mean * 100:.1f} % (n={len(xs)})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", default="1,2,4", help="the sweep's thread counts")
    parser.add_argument("--runtime", type=int, default=1, help="seconds per point")
    parser.add_argument("--campaigns", type=int, default=3, help="independent campaigns per setting")
    parser.add_argument("--slo-ms", type=float, default=None,
                        help="the SLO (default: the mean latency of the first campaign's middle thread count)")
    args = parser.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    root = scratch_root()
    found: dict[int, list[tuple[float | None, float | None]]] = {1: [], 3: []}
    slo_ms = args.slo_ms
    for i in range(args.campaigns):
        for repeats in (1, 3):
            values = campaign_values(root, campaign=f"r{repeats}-c{i}", fio={"runtime_s": args.runtime, "ramp_s": 0},
                                     sweep={"plan": "guide", "max_threads": max(threads), "repeats": repeats})
            cfg = campaign_from_dict(values)
            phases.run_check(cfg)
            rows = phases.run_sweep(cfg, {"randread-4k": threads}, progress=False)
            if slo_ms is None:
                middle = rows[rows["threads"] == threads[len(threads) // 2]]
                slo_ms = round(float(middle["lat_mean_ms"].mean()), 3)
            found[repeats].append(answers(values, slo_ms))
            top, at_slo = found[repeats][-1]
            said = "none (no curve crosses it)" if at_slo is None else f"{at_slo:,.0f}"
            print(f"campaign {i + 1}, repeats {repeats}: max IOPS {top:,.0f}, IOPS at {slo_ms:g} ms {said}", flush=True)
    print(f"\n4K random reads at threads {args.threads}, {args.runtime} s points, SLO {slo_ms:g} ms, "
          f"{args.campaigns} campaigns each:")
    for repeats, results in found.items():
        print(f"repeats {repeats}: max IOPS {spread([r[0] for r in results])}")
        print(f"repeats {repeats}: IOPS at {slo_ms:g} ms {spread([r[1] for r in results])}")


if __name__ == "__main__":
    main()

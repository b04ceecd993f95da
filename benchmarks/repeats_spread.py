"""Does ``sweep.repeats`` make the answers hold up? On this machine's disk with real fio:
independent small campaigns with ``sweep.repeats: 1`` and as many with ``sweep.repeats: 3`` (run
alternately, so that a drift of the disk touches both alike), each a sweep of 4K random reads at
a few thread counts; the spread over the campaigns of max IOPS and of IOPS at the SLO (the
answers as the report gives them: the mean of the repeat-wise answers, :mod:`flashpoc.analysis.confidence`).
The answer's spread should shrink as the repeats grow (by about sqrt(3) for independent noise).

    .venv/bin/python benchmarks/repeats_spread.py [--threads 1,4,16,64] [--runtime 2] [--campaigns 6]

The thread counts reach past this disk's saturation (about 32 threads here) so that latency climbs
and every curve crosses the SLO: by default the SLO is half-way between the first campaign's mean
latencies at its two highest counts, on the climbing part of the curve. With counts that stay
below saturation (1, 2, 4) latency hardly moves, and most curves never cross an SLO.

Not a timed test: about 4 minutes of real I/O on a 256 MiB scratch file. One run on a quiet
2-vCPU machine (no other job; 2 s points, SLO 0.4 ms), 6 campaigns each:

    repeats 1: max IOPS 78,452..99,660 IOPS: range 23.3 % of the mean, CV 8.0 % (n=6)
    repeats 1: IOPS at 0.4 ms 69,511..87,389 IOPS: range 22.0 % of the mean, CV 7.6 % (n=6)
    repeats 3: max IOPS 86,117..97,149 IOPS: range 12.1 % of the mean, CV 4.3 % (n=6)
    repeats 3: IOPS at 0.4 ms 75,215..84,582 IOPS: range 11.7 % of the mean, CV 4.3 % (n=6)

Both spreads shrink by 0.54-0.57 with three repeats, close to 1/sqrt(3) = 0.58. With only 3
campaigns each (the same machine, a few minutes earlier) the CVs were 3.7 -> 4.0 % (max IOPS) and
4.2 -> 3.3 % (at 0.4 ms): three answers are too few to estimate a spread of a few per cent.
"""

from __future__ import annotations

import argparse
import statistics

from _common import campaign_values, scratch_root

from flashpoc.analysis import confidence
from flashpoc import phases
from flashpoc.params import campaign_from_dict
from flashpoc.campaign.results import load_results


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
    parser.add_argument("--threads", default="1,4,16,64", help="the sweep's thread counts")
    parser.add_argument("--runtime", type=int, default=2, help="seconds per point")
    parser.add_argument("--campaigns", type=int, default=6, help="independent campaigns per setting")
    parser.add_argument("--slo-ms", type=float, default=None,
                        help="the SLO (default: half-way between the first campaign's mean latencies at its two "
                        "highest thread counts)")
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
                top_two = [float(rows.loc[rows["threads"] == t, "lat_mean_ms"].mean()) for t in sorted(threads)[-2:]]
                slo_ms = round(sum(top_two) / len(top_two), 3)
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

"""The answer spread of both probe methods over many replayed repeats, from a run's recorded points.

One run of probe_strategies.py gives 3 repeats of each method: one spread each, which a single
noisy point can double. This replays both methods many times on the points that run recorded
(its workbook root is the argument): each time a method measures a thread count, the replay draws
one of the points recorded at that count in that run (probe or sweep points, of either method), so
every value is a real one and the adaptive probe chooses its next count from the drawn values
exactly as it would on the disk. A replay that reaches a count
never recorded is left out (and counted).

Prints, for each run (its workbook root) and the probe's ``gain_pct`` (and each given with
``--gain``): each method's answers (a probe without one counts as the count its sweep would go up
to, as in probe_strategies.py) and the points it measured, then the mean spread over random
triples of replays in the three yardsticks of probe_strategies.spreads (threads, the issue's;
relative to the median answer; the share of the plateau's IOPS reached at the answer, on a curve
fitted to every point of the run) and each ratio default/guide (the goal: at most 0.5). The device
time is probe_strategies.py's to measure: a drawn sweep point ran longer than a probe point would
have.

Usage: probe_replay.py ROOT [ROOT ...] [--gain PCT ...] [--replays N]

Three runs of probe_strategies.py on this machine's disk, 300 replays each at the default gain_pct
of 2 %, ratios default/guide in threads, relative, share of the plateau:

- run 1 (its probe points are in tests/data/probe; load 7-15): 13.4/16.5 threads = 0.81, 0.39,
  0.013/0.116 = 0.11 (the default answered 64 threads in 209 replays, 48 in 71, 32 in 17);
- run 2 (load 10-29): 24.4/20.7 = 1.18, 0.61, 0.105/0.252 = 0.42 (32: 114, 64: 91, 48: 82);
- run 3 (load 0.6 rising to 24 from other jobs): 35.1/9.3 = 3.78, 3.11, 0.074/0.055 = 1.35 (the
  default 32: 146, 96: 40, 48: 35, 64: 34; the guide found no plateau by 40 threads in 192 of 300
  and so answered 40: a small spread; 41 default replays reached a count the run never measured).

With the fit's own plateau start as the answer (before the bootstrap's median) run 1 gave 1.34 in
threads. Rules tried on the three runs and not adopted: the fewest threads at which the fitted
concave curve reaches 95 % of the plateau level (1.08, 1.08, 2.39 in threads) or 90 % (0.59, 0.78,
1.17; shares 0.30, 0.44, 0.80, but its answers reach only 89-92 % of the plateau, where the sweep
would stop); gain_pct raised to the measured noise (one or two sigma: 1.11-1.33 in threads,
worse). A larger refine budget (``probe.refine_points`` 3: bisections and repeats around the
candidate) narrows the spread in threads to 0.93, 0.64 and 0.72 on runs 3, 1 and 2, but measures
7.7-8.1 points instead of 5.9-6.1 (an estimated 0.45 of the guide's device time, 0.34 x 7.8 / 5.9,
over the 0.35 goal), and 140 to 252 of its 300 replays reached counts the runs never measured
(left out), so the replay cannot vouch for it. No rule meets the goal in threads on every run:
this disk's IOPS creep up by about 10 % from 32 to 128 threads, so where the last 2 % are gained
moves by tens of threads with 2-4 % of point-to-point noise, while the guide's grid cannot answer
above 40. A count the run measured only once or twice (a refine point) varies less in the replay
than on the disk.

A fall past the peak left out of the fit (analysis.FALL_SHARE; 100 replays each, default before ->
after, on four runs whose probes met falls of 21-46 % at 256 threads): the third run (load 18-41)
spread 19.6 -> 17.0 threads, share 0.124 -> 0.058, 5.6 -> 4.8 points (no more halving to 8 and 4
threads; 36 replays asked for 96 threads, never recorded, against 7); two earlier runs on a machine
loaded to 80 spread more in threads (37.3 -> 61.3, 56.7 -> 68.7): where the fall was folded into
the plateau they answered low counts, now the curve up to the peak is often too noisy to answer
and the sweep goes to the peak (128); shares 0.411 -> 0.391 and 0.381 -> 0.501; a fourth, whose
256-thread points fell 13 % (under FALL_SHARE), did not change.

It also reads each default replay's points by the answer rules of probe_strategies.py (:data:`RULES`:
where the fitted curve reaches the plateau within the points' noise, or 90 % of it; the count its
sweep goes to where the probe found no plateau). Run 1's probe points alone (tests/data/probe as a
workbook root, 300 replays; its sweep points not in the bank, so the plateau rule's 0.81 above reads
0.85 here), ratios in threads, relative, share: plateau 0.85, 0.40, 0.33; within the noise 0.84,
0.46, 0.36; 90 % 0.79, 0.55, 0.37: no rule steadier than the plateau's start in two yardsticks of three.

Since the noise is measured around an S or any rising curve where the points reject the concave
shape, and no answer lies below a count that measured more beyond the noise, the replay of run 1's
probe points gives the same answers but one (the default 64: 169, 48: 113, 32: 17, and 128 where it
answered 96: 128 threads measured more than 96 beyond the noise; the guide's unchanged): spreads in
threads, relative, share 0.88, 0.41, 0.33 (were 0.85, 0.40, 0.33); the rules' unchanged.

Issue 32's goal (probe_strategies.share_goal): in every repeat the answer's count measured at least
95 % of the best point of its probe, and it is at most 2x the fewest threads that did. Each replay's
answer is read by two rules, a probe without an answer counting as the count its sweep goes to: the
plateau's start (``saturation.threads``) and the fewest measured count reaching 95 % of the most a
count measured (``saturation.reach_threads``, the answer's other end since issue 32). Run 1's probe
points (tests/data/probe, 300 replays; load 24-27 while replaying, which moves no figure): the
plateau's start met the goal in 100 of 300 default replays (its share of the best point 88.9 % at
least, 93.1 % median) and in 195 of 300 guide replays (80.6 % at least); the 95 % rule in 300 of 300
of each (default 95.3 % at least, 97.8 % median; guide 95.9 %, 100.0 %).

Device time (:func:`device_s`: the guide's its plan's, 5 points of 11 s; the default's the drawn
points' own, a drawn fixed-length point of the guide's costing what its count's steady points did)
and ``--set KEY=VALUE`` (a probe setting of the default, to replay a variant). Every recorded probe
(tests/data/probe's two files, each probe a campaign of one workbook root: its three guide and five
default probes), 200 replays, load 3-6 while replaying: before, the default measured 5.8 points, 20.8 s,
0.38 of the guide's 55 s, answering no plateau in 52 of 200 (its refine point, bisecting a found
plateau's range at 48 or 96 threads, measured below both neighbours); with a found plateau no longer
refined, 4.8 points, 17.3 s, 0.31 (at most 27.5 s), no answer missing; issue 32's goal met by the
95 % rule in 200 of 200 replays either way (its share of the best point 95.2-95.7 % at least,
100.0 % median; the guide's 200 of 200), and the spread in the share of the plateau 0.0261 against
the guide's 0.101 (ratio 0.26; 0.53 before).
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import random
import statistics
import sys
from pathlib import Path

from probe_strategies import (DEFAULT, GUIDE, REPEATS, SPREADS, campaign, plateau_share, print_spreads, recorded,
                              share_goal, spreads)

from flashpoc import analysis, phases
from flashpoc.core.errors import FlashpocError


class Unrecorded(Exception):
    """The replay reached a thread count the run never measured."""


def draw(bank: dict[int, list[dict]], threads: int, rnd: random.Random) -> dict:
    if threads not in bank:
        raise Unrecorded(threads)
    return rnd.choice(bank[threads])


def replay(cfg, bank, rnd: random.Random) -> tuple[int | None, int, list[dict], int | None]:
    """One probe of ``cfg`` on drawn points: its answer, the count its sweep goes up to, the rows and
    the fewest threads reaching 95 % of the most measured (analysis.Saturation.reach_threads).
    A repeat of a count draws one of its recorded points (it may draw the same one again)."""
    if cfg.probe.strategy == "linear":
        counts = analysis.linear_probe_threads(cfg.probe.min_threads, cfg.probe.max_threads, cfg.probe.step)
        rows = [draw(bank, t, rnd) for t in counts]
    else:
        stepper, rows = phases.adaptive_probe(cfg), []
        while (t := stepper.next_threads([point(r) for r in rows])) is not None:
            rows.append(draw(bank, t, rnd))
    try:
        sat = analysis.find_saturation([point(r) for r in rows], gain_pct=cfg.probe.gain_pct)
    except FlashpocError:
        return None, max(int(r["threads"]) for r in rows), rows, None
    reach = sat.threads or phases.sweep_reach(cfg, {
        "saturation": {"threads": None, "fall_threads": sat.fall_threads},
        "points": [{"threads": int(r["threads"]), "iops": float(r["iops"])} for r in rows]})[0]
    return sat.threads, reach, rows, sat.reach_threads


# answer rules read on the default probe's drawn points (probe_strategies.RULES): the fewest threads at
# which the fitted curve reaches the plateau within the points' noise, or 90 % of it
RULES = {"noise": None, "90 %": 0.9}


def rule_answer(rows: list[dict], share: float | None, gain: float, reach: int) -> int:
    """:func:`analysis.reach_threads` of the drawn rows in whole threads; where the probe has no
    answer, the count its sweep goes up to (as for the probe's own answer)."""
    try:
        sat = analysis.find_saturation([point(r) for r in rows], gain_pct=gain)
    except FlashpocError:
        return reach
    if not sat.supported:
        return reach
    return math.ceil(analysis.reach_threads([point(r) for r in rows], share, gain_pct=gain) - 1e-9)


def device_s(cfg, rows: list[dict], bank: dict[int, list[dict]]) -> float:
    """Seconds of device time of one replayed probe: the guide's its plan's (each point its fixed
    length and ramp); an adaptive probe's the drawn points' own (``measured_s``: a point that ended
    once steady ran less than its length) and their ramp, where a drawn point of fixed length (the
    guide's, at a count both measured) costs the mean of the points recorded at its count that
    ended once steady (its full length when none did)."""
    point_s = cfg.settings.runtime_s + cfg.settings.ramp_s
    if cfg.probe.strategy == "linear":
        return len(rows) * point_s

    def seconds(row: dict) -> float:
        measured, length = float(row.get("measured_s") or row["runtime_s"]), float(row["runtime_s"])
        steady = [float(r["measured_s"]) for r in bank[int(row["threads"])]
                  if r.get("measured_s") and float(r["measured_s"]) < float(r["runtime_s"])]
        return statistics.mean(steady) if measured >= length and steady else measured

    return sum(seconds(r) + float(r.get("ramp_s") or 0) for r in rows)


def point(row: dict) -> analysis.Point:
    return analysis.Point(int(row["threads"]), float(row["iops"]), float(row["lat_mean_ms"]))


def mean_spreads(reaches: list[int], share, rnd: random.Random,
                 triples: int = 3000) -> dict[str, float]:
    """Mean of each of :func:`probe_strategies.spreads` over random sets of REPEATS replays."""
    sets = [spreads(rnd.sample(reaches, REPEATS), share) for _ in range(triples)]
    return {key: statistics.mean(s[key] for s in sets) for key in SPREADS}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("roots", type=Path, nargs="+", help="workbook roots of probe_strategies.py runs")
    parser.add_argument("--gain", type=float, action="append", default=[], help="gain_pct to replay (%%)")
    parser.add_argument("--replays", type=int, default=300)
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="a probe setting of the default method (e.g. refine_points=0), to replay a variant")
    args = parser.parse_args()
    DEFAULT["probe"].update({k: json.loads(v) for k, v in (item.split("=", 1) for item in args.set)})
    for root in args.roots:
        default_gain = campaign(root, "replay", DEFAULT).probe.gain_pct
        for gain in [default_gain] + [g for g in args.gain if g != default_gain]:
            spread, device = {}, {}
            for method, settings in (("guide", GUIDE), ("default", DEFAULT)):
                cfg = campaign(root, f"replay-{method}", {**settings, "probe": {**settings["probe"], "gain_pct": gain}})
                bank = recorded(root, cfg.probe_workload.name)
                rnd, reaches, answers, runs, skipped = random.Random(0), [], collections.Counter(), [], 0
                seconds: list[float] = []
                goals: dict[str, list[dict]] = {"plateau": [], "95 % of the most": []}
                reached: dict[str, list[int]] = {rule: [] for rule in RULES}
                for _ in range(args.replays):
                    try:
                        answer, reach, rows, reach95 = replay(cfg, bank, rnd)
                    except Unrecorded:
                        skipped += 1
                        continue
                    reaches.append(reach)
                    for rule, share in RULES.items():
                        reached[rule].append(rule_answer(rows, share, gain, reach))
                    answers[answer or f"none ({reach})"] += 1
                    drawn = [(int(r["threads"]), float(r["iops"]), float(r["lat_mean_ms"])) for r in rows]
                    goals["plateau"].append(share_goal(drawn, answer or reach))
                    goals["95 % of the most"].append(share_goal(drawn, reach95 or reach))
                    runs.append(len(rows))
                    seconds.append(device_s(cfg, rows, bank))
                if len(reaches) < REPEATS:
                    print(f"{root.name}: {method}: fewer than {REPEATS} replays reached recorded counts only")
                    return 1
                spread[method] = mean_spreads(reaches, plateau_share(bank), rnd)
                shown = ", ".join(f"{a}: {n}" for a, n in sorted(answers.items(), key=lambda kv: -kv[1]))
                print(f"{root.name} gain {gain:g} %  {method:8s} {len(reaches)} replays ({skipped} reached an "
                      f"unrecorded count): answers {shown}; {statistics.mean(runs):.1f} points, device time "
                      f"{statistics.mean(seconds):.1f} s (at most {max(seconds):.1f})", flush=True)
                device[method] = statistics.mean(seconds)
                for rule, got in goals.items():
                    print(f"  answer by rule {rule}: issue 32's goal met in {sum(g['met'] for g in got)} of {len(got)} "
                          f"replays; its share of the best point {min(g['share'] for g in got):.1%} at least, "
                          f"{statistics.median(g['share'] for g in got):.1%} median")
                if method == "default":
                    for rule, values in reached.items():
                        spread[rule] = mean_spreads(values, plateau_share(bank), rnd)
            print(f"{root.name} gain {gain:g} %  device time default/guide: {device['default'] / device['guide']:.2f} "
                  f"(goal <= 0.35)")
            print_spreads(spread["default"], spread["guide"], f"{root.name} gain {gain:g} %  mean spread of {REPEATS}")
            for rule in RULES:
                print_spreads(spread[rule], spread["guide"], f"{root.name} gain {gain:g} %  mean spread of {REPEATS}, "
                              f"the default's points read by rule {rule}", "default")
    return 0


if __name__ == "__main__":
    sys.exit(main())

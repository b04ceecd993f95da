"""The answer spread of both probe methods over many replayed repeats, from a run's recorded points.

One run of probe_strategies.py gives 3 repeats of each method: one spread each, which a single
noisy point can double. This replays both methods many times on the points that run recorded
(its workbook root is the argument): each time a method measures a thread count, the replay draws
one of the points recorded at that count in that run (probe or sweep points, of either method), so
every value is a real one and the adaptive probe chooses its next count from the drawn values
exactly as it would on the disk. A replay that reaches a count
never recorded is left out (and counted).

Prints, for the probe's ``gain_pct`` (and each given with ``--gain``): each method's answers
(a probe without one counts as the count its sweep would go up to, as in probe_strategies.py), the
mean spread over random triples of replays (the goal: the default's at most half the guide's), and
the points each method measured (the device time is probe_strategies.py's to measure: a drawn sweep
point ran longer than a probe point would have).

Usage: probe_replay.py ROOT [--gain PCT ...] [--replays N]

Replayed on the run whose probe points are in tests/data/probe (load 7-15), 300 replays at the default gain_pct
of 2 %: the guide 16 (92), 24 (4), 32 (47) threads or none (157: still rising at 40), mean spread
16.5 threads; the default with the fit's own plateau start as its answer 64 (196), 32 (56),
48 (42) or 128 (6), spread 22.1, ratio 1.34 (probe_strategies.py measured 1.33 on that run's 3
repeats); with the median of the bootstrap's plateau starts 64 (209), 48 (71), 32 (17) or 96 (3),
spread 13.4, ratio 0.81. A larger gain_pct steadies both methods, the guide's finer 8-thread grid
more: at 8 % the ratio is 1.53. A count the run measured only once or twice (a refine point)
varies less in the replay than on the disk.
"""

from __future__ import annotations

import argparse
import collections
import csv
import random
import statistics
import sys
from pathlib import Path

from probe_strategies import DEFAULT, GUIDE, REPEATS, campaign

from flashpoc import analysis, phases
from flashpoc.errors import FlashpocError


def recorded(root: Path, workload: str) -> dict[int, list[dict]]:
    """Rows of ``workload`` recorded under ``root``'s results (probe and sweep points), by thread count."""
    bank: dict[int, list[dict]] = collections.defaultdict(list)
    for path in sorted((root / "results").glob("*/points.csv")):
        with path.open(newline="") as handle:
            for row in csv.DictReader(handle):
                if row["workload"] == workload and row["phase"] in ("probe", "sweep") and row["iops"]:
                    bank[int(row["threads"])].append(row)
    return bank


class Unrecorded(Exception):
    """The replay reached a thread count the run never measured."""


def draw(bank: dict[int, list[dict]], threads: int, rnd: random.Random) -> dict:
    if threads not in bank:
        raise Unrecorded(threads)
    return rnd.choice(bank[threads])


def replay(cfg, bank, rnd: random.Random) -> tuple[int | None, int, list[dict]]:
    """One probe of ``cfg`` on drawn points: its answer, the count its sweep goes up to, the rows."""
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
        return None, max(int(r["threads"]) for r in rows), rows
    reach = sat.threads or phases.sweep_reach(cfg, {"saturation": {"threads": None}, "points": [
        {"threads": int(r["threads"]), "iops": float(r["iops"])} for r in rows]})[0]
    return sat.threads, reach, rows


def point(row: dict) -> analysis.Point:
    return analysis.Point(int(row["threads"]), float(row["iops"]), float(row["lat_mean_ms"]))


def mean_spread(reaches: list[int], rnd: random.Random, triples: int = 3000) -> float:
    """Mean of (largest - smallest) over random sets of REPEATS replays."""
    return statistics.mean(max(s) - min(s) for s in (rnd.sample(reaches, REPEATS) for _ in range(triples)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path, help="workbook root of a probe_strategies.py run")
    parser.add_argument("--gain", type=float, action="append", default=[], help="gain_pct to replay (%%)")
    parser.add_argument("--replays", type=int, default=300)
    args = parser.parse_args()
    default_gain = campaign(args.root, "replay", DEFAULT).probe.gain_pct
    ratio = None
    for gain in [default_gain] + [g for g in args.gain if g != default_gain]:
        spreads = {}
        for method, settings in (("guide", GUIDE), ("default", DEFAULT)):
            cfg = campaign(args.root, f"replay-{method}", {**settings, "probe": {**settings["probe"], "gain_pct": gain}})
            bank = recorded(args.root, cfg.probe_workload.name)
            rnd, reaches, answers, runs, skipped = random.Random(0), [], collections.Counter(), [], 0
            for _ in range(args.replays):
                try:
                    answer, reach, rows = replay(cfg, bank, rnd)
                except Unrecorded:
                    skipped += 1
                    continue
                reaches.append(reach)
                answers[answer or f"none ({reach})"] += 1
                runs.append(len(rows))
            spreads[method] = mean_spread(reaches, rnd) if len(reaches) >= REPEATS else float("nan")
            shown = ", ".join(f"{a}: {n}" for a, n in sorted(answers.items(), key=lambda kv: -kv[1]))
            print(f"gain {gain:g} %  {method:8s} {len(reaches)} replays ({skipped} reached an unrecorded count): "
                  f"answers {shown}; mean spread of {REPEATS} {spreads[method]:.1f} threads; "
                  f"{statistics.mean(runs):.1f} points", flush=True)
        ratio = spreads["default"] / spreads["guide"] if spreads["guide"] else float("nan")
        print(f"gain {gain:g} %  spread ratio default/guide {ratio:.2f} (goal <= 0.5)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A fall in IOPS past the peak (the load host overloaded) is not the array's plateau: recorded
probes whose 256-thread points fell 22-25 % below 128 threads (tests/data/probe/PROVENANCE.md)."""

from __future__ import annotations

import csv

import pytest

from conftest import TESTS, quick_campaign
from flashpoc import phases
from flashpoc.analysis import AdaptiveProbe, Point, find_saturation, reach_threads
from flashpoc.params import campaign_from_dict

DATA = TESTS / "data" / "probe"


def recorded(name: str, method: str, repeat: int) -> list[Point]:
    """The probe points of one (method, repeat) of a recorded file, in the order measured."""
    with (DATA / name).open(newline="") as handle:
        return [Point(int(r["threads"]), float(r["iops"]), float(r["latency_ms"]), int(r["outstanding"]))
                for r in csv.DictReader(handle) if r["method"] == method and int(r["repeat"]) == repeat]


@pytest.mark.parametrize(("repeat", "fall_pct"), [(2, 24.7), (5, 22.5)])
def test_a_fall_past_the_peak_is_left_out_and_the_probe_does_not_halve(repeat, fall_pct):
    points = recorded("probe_fall_randread4k.csv", "default", repeat)
    doubling = points[:5]  # 16, 32, 64, 128, 256 threads: where the probe chose its next count
    assert [p.threads for p in doubling] == [16, 32, 64, 128, 256]
    sat = find_saturation(doubling)
    # 256 threads measured 69,394 / 69,698 IOPS against 92,152 / 89,945 at 128: not a plateau level
    assert sat.fall_threads == 128 and sat.fall_pct == pytest.approx(100 * (1 - doubling[4].iops / doubling[3].iops))
    assert f"{sat.fall_pct:.1f}" == f"{fall_pct:.1f}"
    assert sat.kind == "plateau" and sat.threads == 128
    assert f"{sat.max_iops:,.0f}" == f"{doubling[3].iops:,.0f}"
    assert f"IOPS fall past 128 threads ({fall_pct:g} % below the peak)" in sat.reason
    # before: the fall pooled into the plateau, which then started at 16 / 32 threads (plausible
    # from 16), and the probe halved down to 8 threads; now it has its answer (the plateau is not
    # refined: the sweep covers the range up to it)
    assert AdaptiveProbe(min_threads=1, max_threads=256, start=16).next_threads(doubling) is None
    # the whole recorded probe: 256 threads stays out of the fit
    whole = find_saturation(points)
    assert whole.fall_threads == 128 and f"{whole.fall_pct:.1f}" == f"{fall_pct:.1f}"


@pytest.mark.parametrize("repeat", [1, 2, 5])
def test_a_top_count_a_few_percent_below_the_peak_is_no_fall(repeat):
    """The recorded probes' 256-thread points measured 1-5 % below 128 threads: the plateau."""
    sat = find_saturation(recorded("probe_repeats_randread4k.csv", "default", repeat))
    assert sat.fall_threads is None and sat.fall_pct is None and "fall" not in sat.reason


def answer_of(tmp_path, repeat: int, count: int) -> dict:
    """The probe's result (:func:`flashpoc.phases.summarize_probe`) on the first ``count`` recorded
    points of a repeat, in a local fio campaign probing up to 256 threads."""
    cfg = campaign_from_dict(quick_campaign(tmp_path, probe={"strategy": "adaptive", "min_threads": 1,
                                                              "max_threads": 256},
                                             sweep={"plan": "guide", "step": 8}))
    rows = [{"threads": p.threads, "outstanding_ios": p.outstanding, "iops": p.iops, "lat_mean_ms": p.latency_ms,
             "runtime_s": 2, "ramp_s": 0, "wall_s": 2.3, "hosts": ["local"], "point_id": f"p{p.threads}-{i}"}
            for i, p in enumerate(recorded("probe_fall_randread4k.csv", "default", repeat)[:count])]
    return phases.summarize_probe(cfg, rows)


def test_the_answer_says_the_fall_was_left_out_and_what_the_verdict_says(tmp_path):
    result = answer_of(tmp_path, 2, 5)
    answer = result["answer"]
    assert answer.startswith("IOPS stop rising and reach 95% of the most measured at 128 threads, 100.0% of the "
                             "plateau: a plateau of 92,152 IOPS")
    # the recorded points hold no host CPU figures: the verdict rests on the plateau alone
    assert result["host_limit"]["verdict"] == "array"
    assert ("IOPS fall past 128 threads (24.7 % below the peak): overload past the peak, left out of the fit; "
            "the hosts-or-array verdict points at the array, not the load hosts.") in answer
    assert answer.count("fall past") == 1


def test_no_answer_after_a_fall_says_the_fall_once(tmp_path):
    result = answer_of(tmp_path, 5, 7)  # the whole probe: 64 and 128 threads too close to tell
    answer = result["answer"]
    assert result["saturation"]["kind"] == "too_noisy"
    assert answer.startswith("No saturation found: Too noisy to locate the plateau: it could start anywhere from "
                             "32 to 128 threads")
    assert answer.count("IOPS fall past 128 threads (22.5 % below the peak)") == 1
    # the sweep goes up to the peak, not into the overload past it (256 threads before)
    assert result["followup_sweep"]["up_to"] == 128 and max(result["followup_sweep"]["threads"]) <= 128


@pytest.mark.parametrize(("repeat", "noise", "ninety"), [(2, "106.5", "38.9"), (5, "114.7", "63.9")])
def test_the_reach_rules_read_the_curve_up_to_the_peak(repeat, noise, ninety):
    """Before, the fall pooled into the top level put the curve's reach at 16 / 20.5 threads (within
    noise) and 22.4 / 28.6 (90 %)."""
    doubling = recorded("probe_fall_randread4k.csv", "default", repeat)[:5]
    assert f"{reach_threads(doubling):.1f}" == noise == f"{reach_threads(doubling[:4]):.1f}"
    assert f"{reach_threads(doubling, 0.9):.1f}" == ninety

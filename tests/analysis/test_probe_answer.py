"""The probe's answer in words, and the sweep planned from it: never a dead end (pure: rows in,
text and thread counts out; the real-fio runs are in test_phases_local.py)."""

from __future__ import annotations

import json

import pytest

from conftest import quick_campaign
from flashpoc import phases
from flashpoc.core.errors import AnalysisError
from flashpoc.params import campaign_from_dict


def rows(levels: dict[int, float], runtime_s: int = 1) -> list[dict]:
    """Probe rows of a local fio campaign with these IOPS per thread count (latency by Little's law)."""
    return [{"threads": t, "outstanding_ios": t, "iops": y, "lat_mean_ms": t / y * 1000, "runtime_s": runtime_s,
             "ramp_s": 0, "wall_s": runtime_s + 0.3, "hosts": ["local"], "point_id": f"p{t}"}
            for t, y in levels.items()]


def campaign(tmp_path, **probe):
    return campaign_from_dict(quick_campaign(tmp_path, probe={"strategy": "adaptive", "min_threads": 1,
                                                              "max_threads": 8, **probe},
                                             sweep={"plan": "guide", "step": 1}))


# The case of issue 16: the fit says 5 threads with low confidence while the most IOPS were
# measured at 8, the probe's max_threads.
WEAK = {1: 21e3, 2: 39e3, 3: 50e3, 4: 57e3, 5: 64e3, 6: 60e3, 7: 63e3, 8: 66.5e3}


def test_a_weak_answer_at_the_probes_limit_says_so_and_what_to_do(tmp_path):
    result = phases.summarize_probe(campaign(tmp_path), rows(WEAK))
    sat = result["saturation"]
    assert (sat["threads"], sat["range_threads"], f"{sat['confidence']:.0%}") == (5, (4, 7), "39%")
    answer = result["answer"]
    assert answer.startswith("IOPS stop rising and reach 95% of the most measured at 5 threads, 100.8% of the plateau "
                             "(90% interval 92.4-109.2%): a plateau of 63,500 IOPS (the median of its points; "
                             "plausible 4-7 threads, confidence 39%).")
    assert "More IOPS were measured at 8 threads (66,500, +4.7% over the plateau level)" in answer
    assert "8 threads is the probe's limit (probe.max_threads)" in answer and "raise probe.max_threads" in answer
    assert "The confidence is low (39%)" in answer and "probe.runtime_s" in answer
    assert answer.endswith("The sweep runs up to 5 threads (the answer).")
    # stated once, the same way: notebook 02's text opens with the same words
    text = phases.probe_text(result)
    assert text.startswith("**IOPS stop rising and reach 95% of the most measured at 5 threads, 100.8% of the plateau "
                           "(90% interval 92.4-109.2%): a plateau of 63,500 IOPS")
    assert text.count("IOPS stop rising") == 1 and "More IOPS were measured at 8 threads" in text


def test_a_clear_answer_adds_no_warning(tmp_path):
    clear = {1: 21e3, 2: 40e3, 3: 55e3, 4: 64e3, 5: 64.2e3, 6: 64.1e3, 7: 64.3e3, 8: 64.0e3}
    result = phases.summarize_probe(campaign(tmp_path), rows(clear))
    assert result["saturation"]["threads"] == 4 and result["saturation"]["confidence"] >= phases.LOW_CONFIDENCE
    assert "low" not in result["answer"] and "limit" not in result["answer"]
    assert result["answer"] == ("IOPS stop rising and reach 95% of the most measured at 4 threads, 99.8% of the plateau "
                                "(90% interval 99.5-100.2%): a plateau of 64,100 IOPS (the median of its points; "
                                "no other count plausible, "
                                "confidence 100%). The sweep runs up to 4 threads (the answer).")


def test_a_sweep_beyond_the_answer_says_how_far_it_goes(tmp_path):
    """sweep.extend_pct sweeps past the answer (the demo: 48 threads, swept to 60): the answer's
    last sentence says both, not only the answer."""
    clear = {1: 21e3, 2: 40e3, 3: 55e3, 4: 64e3, 5: 64.2e3, 6: 64.1e3, 7: 64.3e3, 8: 64.0e3}
    values = quick_campaign(tmp_path, probe={"strategy": "adaptive", "min_threads": 1, "max_threads": 8},
                            sweep={"plan": "guide", "step": 1, "extend_pct": 50})
    result = phases.summarize_probe(campaign_from_dict(values), rows(clear))
    assert max(result["followup_sweep"]["threads"]) == 6
    assert result["answer"].endswith("The sweep runs up to 4 threads (the answer), and beyond it to 6 threads "
                                     "(sweep.extend_pct).")


def test_still_rising_at_max_threads_sweeps_the_probed_range(tmp_path):
    """No plateau up to max_threads: the answer says so, why and what to do; the sweep goes on up
    to the highest count probed instead of stopping the run."""
    cfg = campaign(tmp_path)
    result = phases.summarize_probe(cfg, rows({t: 10e3 * t for t in (2, 4, 8)}))
    assert result["saturation"]["kind"] == "still_rising" and result["saturation"]["threads"] is None
    assert result["answer"].startswith("No saturation found: IOPS still rising at 8 threads")
    assert "raise probe.max_threads (the probe stopped at its limit, 8 threads)" in result["answer"]
    assert result["answer"].endswith("The sweep runs up to 8 threads (the probed range, as no saturation was found).")
    assert result["followup_sweep"]["threads"] == list(range(1, 9))
    (tmp_path / "results" / "quick").mkdir(parents=True)
    (tmp_path / "results" / "quick" / "probe.json").write_text(json.dumps(result))
    assert phases.plan_campaign_sweep(cfg)["randwrite-4k"] == list(range(1, 9))
    assert phases.probe_text(result).startswith("**No saturation found: IOPS still rising at 8 threads")


def test_too_noisy_says_to_measure_longer_and_strict_stops(tmp_path):
    """Points measured on this kind of machine (test_analysis.MARGINAL_TOP's ladder and one refine
    point): too noisy for an answer. probe.strict turns that into an error naming the setting."""
    noisy = {1: 17e3, 2: 30e3, 4: 48e3, 8: 75e3, 16: 92e3, 32: 99.0e3, 64: 101.1e3, 48: 105e3}
    result = phases.summarize_probe(campaign(tmp_path, max_threads=64), rows(noisy))
    assert result["saturation"]["kind"] == "too_noisy"
    assert result["answer"].startswith("No saturation found: Too noisy to locate the plateau")
    assert "To find it: longer points (probe.runtime_s)" in result["answer"]
    assert result["followup_sweep"]["up_to"] == 64
    strict = campaign(tmp_path, max_threads=64, strict=True)
    with pytest.raises(AnalysisError, match=r"^probe.strict: the probe found no saturation \(Too noisy"):
        phases.sweep_reach(strict, result)
    assert phases.sweep_reach(campaign(tmp_path, max_threads=64), result) == (64, "probed range")


def test_the_probes_point_count_is_bounded(tmp_path):
    """probe_point_bound: an upper bound for a progress bar: the adaptive ladder 1..8 from its
    start and its refine point; twice that when a point may be measured again (points long enough
    to end once steady, which may not be attained)."""
    cfg = campaign(tmp_path)  # 1 s points: no steady-state criterion fits, none is measured again
    assert phases.adaptive_probe(cfg).ladder() == [1, 2, 4, 8]
    assert phases.probe_point_bound(cfg) == 4 + 1
    steady = campaign_from_dict(quick_campaign(tmp_path, fio={"runtime_s": 4, "ramp_s": 0},
                                               probe={"strategy": "adaptive", "max_threads": 8}))
    assert phases.probe_point_bound(steady) == 2 * (4 + 1)
    linear = campaign_from_dict(quick_campaign(tmp_path))
    assert phases.probe_point_bound(linear) == 4

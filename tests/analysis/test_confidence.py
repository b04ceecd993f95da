"""Repeats with confidence (flashpoc.analysis.confidence): Student's t against its published table, the
statistics of real repeated fio points against a computation from the stored rows, intervals on
the charts, and comparisons that say when a difference is noise, in the table, the text and the
rendered report."""

from __future__ import annotations

import json
import math
import statistics

import pandas as pd
import pytest

from conftest import quick_campaign, require_fio
from flashpoc.present import chart
from flashpoc.analysis import compare, confidence, distributions

#: Student's t, two-sided 95 % (published tables, 3 decimals): degrees of freedom -> value
T_TABLE = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 10: 2.228, 20: 2.086, 30: 2.042, 120: 1.980}


@pytest.mark.parametrize("df, value", sorted(T_TABLE.items()))
def test_t_critical_equals_the_published_table(df, value):
    assert round(distributions.t_critical(df), 3) == value


def test_t_critical_tends_to_the_normal_and_takes_fractional_degrees_of_freedom():
    assert round(distributions.t_critical(1e6), 3) == 1.960
    assert T_TABLE[3] > distributions.t_critical(3.5) > T_TABLE[4]  # Welch's degrees of freedom are not whole


#: Fisher's F, upper 5 % points (published tables): (df1, df2) -> value
F_TABLE = {(1, 1): 161.45, (2, 1): 199.50, (1, 2): 18.51, (3, 2): 19.16, (1, 10): 4.96, (5, 20): 2.71}


@pytest.mark.parametrize("dfs, value", sorted(F_TABLE.items()))
def test_f_sf_at_the_published_upper_5_percent_points(dfs, value):
    """The p-value of the lack-of-fit F test (analysis.fit._curve_fit): 5 % at the table's value (to
    its two decimals), 1 at or below 0."""
    assert distributions.f_sf(value, *dfs) == pytest.approx(0.05, abs=2e-4)
    assert distributions.f_sf(value * 1.1, *dfs) < 0.05 < distributions.f_sf(value / 1.1, *dfs)
    assert distributions.f_sf(0.0, *dfs) == 1.0


def test_one_measurement_has_no_interval_and_says_so():
    one = confidence.summarize([12345.0])
    assert (one.n, one.mean, one.cv_pct, one.ci_low, one.ci_high) == (1, 12345.0, None, None, None)
    assert one.text() == "12,345 (one run: no interval)"
    assert confidence.summarize([None, float("nan")]) is None


def test_summary_of_three_values_by_hand():
    s = confidence.summarize([100.0, 110.0, 120.0])
    # mean 110, s = 10, half width = 4.3027 x 10 / sqrt(3) = 24.84
    assert (s.n, s.mean, s.min, s.max) == (3, 110.0, 100.0, 120.0)
    assert round(s.cv_pct, 4) == round(10 / 110 * 100, 4)
    assert (round(s.ci_low, 2), round(s.ci_high, 2)) == (85.16, 134.84)
    assert s.text() == "110 +- 25 (95 % interval 85..135; spread 100..120, CV 9.1 %; n=3)"


def test_welch_by_hand_and_noise_words():
    # equal variances (100) and sizes (3): df = 4, half width = 2.776 x sqrt(100/3 + 100/3) = 22.67
    d = confidence.welch([100, 110, 120], [130, 140, 150])
    assert (d.delta, round(d.df, 6), round(d.low, 2), round(d.high, 2)) == (30.0, 4.0, 7.33, 52.67)
    assert not d.spans_zero and confidence.noise_verdict(30.0, d, 10) == "beyond noise (95 % interval)"
    close = confidence.welch([100, 110, 120], [105, 115, 125])
    assert close.spans_zero and confidence.noise_verdict(4.5, close, 10) == confidence.NOISE
    assert confidence.welch([100], [105, 110]) is None  # one side measured once: no interval
    assert confidence.noise_verdict(5.0, None, 10) == \
        "within measurement noise (below the 10 % point-to-point noise; no interval)"
    assert confidence.noise_verdict(-12.0, None, 10) == "beyond the 10 % point-to-point noise (no interval)"


def test_a_five_percent_win_without_repeats_is_never_printed_as_a_win():
    common = {"engine": "fio", "workload": "4k-randread", "rw": "randread", "bs": "4k", "rwmixread": 100,
              "iodepth": 1, "outstanding_ios": 1, "bw_mibps": 100.0}
    a = pd.DataFrame({"threads": [1, 2, 4], "iops": [10000.0, 19000.0, 30000.0], "lat_mean_ms": [0.1, 0.105, 0.133]})
    b = a.assign(iops=a["iops"] * 1.05)
    points = pd.concat([a.assign(config="A", **common), b.assign(config="B", **common)], ignore_index=True)
    table = compare.comparison_table(points, slo_ms=1.0)
    row = table[table["metric"] == "max IOPS"].iloc[0]
    assert (row["baseline_value"], row["config_value"], round(row["delta_pct"], 1)) == (30000.0, 31500.0, 5.0)
    assert row["better"] == confidence.NOISE and confidence.is_noise(row["noise"])
    assert "IOPS max 30,000 -> 31,500 (+5.0 %): **within measurement noise (below the 10 % point-to-point noise; " \
           "no interval)**" in compare.comparison_text(table)
    cell = compare.comparison_display(table).frame.set_index("Measure").loc["Max IOPS", "B vs A"]
    assert cell == "+5.0 %\nwithin measurement noise" and "better" not in cell
    # a stated noise of 4 %: the same 5 % is a difference
    strict = compare.comparison_table(points, slo_ms=1.0, noise_pct=4)
    assert strict[strict["metric"] == "max IOPS"].iloc[0]["better"] == "B"


def test_the_hockey_stick_draws_the_interval_of_a_repeated_point():
    rows = [{"workload": "w", "threads": t, "iops": 10000.0 * t, "lat_mean_ms": 0.1 * t} for t in (1, 2)]
    rows.append({**rows[1], "iops": 22000.0, "lat_mean_ms": 0.3})  # 2 threads measured twice
    spec = chart.hockey_stick(pd.DataFrame(rows)).to_dict()
    bars = [layer for layer in spec["layer"] if "x2" in layer.get("encoding", {})]
    (bar,) = bars
    (drawn,) = spec["datasets"][bar["data"]["name"]]
    # mean 21,000, s = 1,414.2; half width 12.706 x 1,414.2 / sqrt(2) = 12,706.2
    assert (drawn["threads"], drawn["iops"]) == (2, 21000.0)
    assert (round(drawn["iops_lo"], 1), round(drawn["iops_hi"], 1)) == (8293.8, 33706.2)
    assert bar["encoding"]["color"]["field"] == spec["layer"][0]["encoding"]["color"]["field"] == "workload"
    assert any(confidence.__name__ and "95 % interval" in line for line in spec["title"]["subtitle"])


# --- real repeats: two small fio campaigns, each point measured three times ----------------

@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    """Two real fio campaigns (psync and libaio) of 4K random reads at 1 and 2 threads, three
    repeats of 1 s points each, and the report of the first comparing the second."""
    require_fio()
    from flashpoc import phases
    from flashpoc.params import campaign_from_dict

    root = tmp_path_factory.mktemp("confidence")
    base = quick_campaign(root, campaign="psync", fio={"runtime_s": 1, "ramp_s": 0, "ioengine": "psync"},
                          workloads=[{"name": "4k-randread", "rw": "randread", "bs": "4k"}],
                          sweep={"plan": "guide", "max_threads": 2, "step": 1, "repeats": 3})
    other = {**base, "campaign": "libaio", "fio": {**base["fio"], "ioengine": "libaio"}}
    for values in (base, other):
        cfg = campaign_from_dict(values)
        phases.run_check(cfg)
        phases.run_sweep(cfg, progress=False)
    cfg = campaign_from_dict({**base, "report": {"label": "psync", "compare": [{"campaign": "libaio"}]}})
    return phases.build_report(cfg, pdf=False), root / "results"


def stored(results, campaign: str) -> pd.DataFrame:
    """The stored sweep rows of a campaign, from its point.json files."""
    return pd.DataFrame([json.loads(p.read_text()) for p in (results / campaign / "points" / "sweep").glob(
        "*/point.json")])


def test_point_statistics_equal_a_computation_from_the_stored_rows(compared):
    report, results = compared
    rows = stored(results, "psync")
    assert sorted(zip(rows["threads"], rows["repeat"])) == [(t, r) for t in (1, 2) for r in (0, 1, 2)]
    table = confidence.point_table(report.points[report.points["config"] == "psync"]).set_index("threads")
    for threads, group in rows.groupby("threads"):
        values = list(group["iops"])
        mean, sd = statistics.mean(values), statistics.stdev(values)
        half = T_TABLE[2] * sd / math.sqrt(3)
        got = table.loc[threads]
        assert (got["n"], got["min"], got["max"]) == (3, min(values), max(values))
        assert got["mean"] == pytest.approx(mean, rel=1e-12)
        assert got["cv_pct"] == pytest.approx(sd / mean * 100, rel=1e-12)
        assert got["ci_high"] - got["mean"] == pytest.approx(half, rel=1e-4)  # the table's t to 3 decimals
        # symmetric, its low end stopping at 0 (IOPS are never negative: a busy machine's repeats can
        # spread wider than their mean)
        low = max(0.0, got["mean"] - (got["ci_high"] - got["mean"]))
        assert got["ci_low"] == pytest.approx(low, rel=1e-9, abs=1e-9)


def test_max_iops_interval_is_from_the_repeat_wise_curves(compared):
    report, results = compared
    rows = stored(results, "libaio")
    per_repeat = [float(rows[rows["repeat"] == r]["iops"].max()) for r in (0, 1, 2)]  # each curve's own max
    answers = confidence.answers(report.points, report.slo_ms)
    got = answers[(answers["config"] == "libaio") & (answers["answer"] == "max IOPS")].iloc[0]
    s = confidence.summarize(per_repeat)
    assert (got["runs"], got["n"], got["mean"], got["min"], got["max"]) == (3, 3, s.mean, min(per_repeat),
                                                                             max(per_repeat))
    assert (got["ci_low"], got["ci_high"]) == (s.ci_low, s.ci_high)
    half = T_TABLE[2] * statistics.stdev(per_repeat) / math.sqrt(3)
    assert got["ci_high"] - got["mean"] == pytest.approx(half, rel=1e-4)


def test_comparison_deltas_carry_welch_intervals_and_the_noise_words(compared):
    report, results = compared
    a, b = stored(results, "psync"), stored(results, "libaio")
    at2 = report.comparison[(report.comparison["metric"] == "IOPS at equal threads")
                            & (report.comparison["at"] == "2 threads")].iloc[0]
    xa, xb = list(a[a["threads"] == 2]["iops"]), list(b[b["threads"] == 2]["iops"])
    va, vb = statistics.variance(xa) / 3, statistics.variance(xb) / 3
    df = (va + vb) ** 2 / (va**2 / 2 + vb**2 / 2)
    half = distributions.t_critical(df) * math.sqrt(va + vb)
    delta = statistics.mean(xb) - statistics.mean(xa)
    assert at2["delta"] == pytest.approx(delta, rel=1e-9) and at2["runs"] == "3 vs 3"
    assert (at2["delta_low"], at2["delta_high"]) == (pytest.approx(delta - half, rel=1e-9),
                                                     pytest.approx(delta + half, rel=1e-9))
    noise = at2["delta_low"] <= 0 <= at2["delta_high"]
    assert at2["noise"] == (confidence.NOISE if noise else "beyond noise (95 % interval)")
    assert at2["better"] == (confidence.NOISE if noise else ("libaio" if delta > 0 else "psync"))
    html = report.files["report.html"].read_text()
    assert "Results: repeats and intervals" in html and "95 % interval" in html
    assert "Each sweep point was measured 3 times, interleaved" in html
    for row in report.comparison.to_dict("records"):  # every noisy delta says so in the report's table
        if row["better"] == confidence.NOISE:
            assert "within measurement noise" in html
            break


def test_the_summary_reads_max_iops_off_each_point_s_mean_never_its_best_repeat():
    from flashpoc.present import summary

    rows = [{"workload": "w", "threads": t, "iops": 10000.0 * t, "lat_mean_ms": 0.1 * t, "bw_mibps": 40.0 * t,
             "bs": "4k", "outstanding_ios": t, "repeat": 0, "littles_law_ok": True} for t in (1, 2)]
    rows.append({**rows[1], "iops": 30000.0, "bw_mibps": 120.0, "repeat": 1, "littles_law_ok": False})
    table = summary.summary_table(pd.DataFrame(rows), 1.0).iloc[0]
    # 2 threads: 20,000 and 30,000 IOPS measured, 25,000 their mean; the second repeat's flag is counted
    assert (table["points"], table["max_iops"], table["max_bw_mibps"], table["littles_law_flags"]) == (2, 25000, 100.0, 1)


def test_the_comparison_s_max_iops_is_the_mean_curve_s_never_a_best_repeat():
    common = {"engine": "fio", "workload": "w", "rw": "randread", "bs": "4k", "rwmixread": 100, "iodepth": 1,
              "outstanding_ios": 1, "bw_mibps": 100.0, "lat_mean_ms": 0.2}
    rows = [{"config": c, "threads": 2, "iops": v, "repeat": r, **common}
            for c, values in (("A", (20000.0, 30000.0)), ("B", (24000.0, 26000.0))) for r, v in enumerate(values)]
    table = compare.comparison_table(pd.DataFrame(rows), slo_ms=1.0)
    row = table[table["metric"] == "max IOPS"].iloc[0]
    # A: 25,000 on average (30,000 was one repeat); B: 25,000; Welch: the difference spans zero
    assert (row["baseline_value"], row["config_value"], row["delta"]) == (25000.0, 25000.0, 0.0)
    assert row["runs"] == "2 vs 2" and row["delta_low"] < 0 < row["delta_high"] and row["better"] == confidence.NOISE


def test_without_repeats_the_report_says_there_is_no_interval_and_shows_the_probe_s_repeats():
    from types import SimpleNamespace

    from flashpoc.present.document import Context
    from flashpoc.present.document.repeats import repeats_section
    from flashpoc.params import campaign_from_dict

    cfg = campaign_from_dict(quick_campaign(__import__("pathlib").Path("/nonexistent"),
                                            report={"noise_pct": 12}))
    points = pd.DataFrame({"workload": ["w", "w"], "threads": [1, 2], "iops": [1000.0, 1900.0],
                           "lat_mean_ms": [0.1, 0.2], "outstanding_ios": [1, 2]})
    probe = {"points": [{"threads": 4, "iops": 3000.0, "repeat": 0}, {"threads": 4, "iops": 3300.0, "repeat": 1},
                        {"threads": 8, "iops": 3500.0, "repeat": 0}]}
    (section,) = repeats_section(SimpleNamespace(points=points, cfg=cfg, slo_ms=1.0), Context(probe=probe))
    first, lead, table = section.items
    assert "measured once (`sweep.repeats: 1`): no interval can be computed" in first
    assert "smaller than 12 % (`report.noise_pct`) **within measurement noise**" in first
    assert "measured some thread counts again" in lead
    (row,) = table.frame.to_dict("records")  # only 4 threads was measured twice
    # mean 3,150; s = 212.1; half width 12.706 x 212.1 / sqrt(2) = 1,906
    assert (row["Threads"], row["Runs"], row["Mean IOPS"], row["95 % interval (IOPS)"], row["Spread (IOPS)"]) == \
        ("4", 2, "3,150", "1,244..5,056", "3,000..3,300")


def test_an_interval_of_a_quantity_that_cannot_be_negative_stops_at_zero():
    """Two very different repeats (16,503 and 39,548 IOPS, as a busy machine gave): the t interval
    would reach below 0 IOPS; it stops at 0, and its upper end and +- stay t * s / sqrt(n)."""
    s = confidence.summarize([16503, 39548])
    half = distributions.t_critical(1) * statistics.stdev([16503, 39548]) / math.sqrt(2)
    assert s.ci_low == 0.0 and s.ci_high == pytest.approx(28025.5 + half) and s.half_width == pytest.approx(half)
    signed = confidence.summarize([-5.0, 5.0])  # a difference may be negative: not clipped
    assert signed.ci_low == pytest.approx(-distributions.t_critical(1) * statistics.stdev([-5.0, 5.0]) / math.sqrt(2))

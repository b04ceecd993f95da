"""Steady state by the SNIA Solid State Storage PTS rule (issue 19, part 3), on real outputs:
fio's own steady-state window (tests/data/fio/fio-3.33_randread_steadystate_iops_slope.json)
and vdbench's interval lines (tests/data/vdbench/rr_threads_sweep/summary.html)."""

from __future__ import annotations

import json

import pytest

from conftest import DATA
from flashpoc import analysis
from flashpoc.analysis import rows
from flashpoc.core.errors import AnalysisError
from flashpoc.core import registry



def test_snia_rule_on_fios_own_steady_state_window():
    """fio 3.33's steadystate kept the IOPS of its 5 one-second samples: 54633, 50656, 50562,
    55608, 52151. Mean 52722; data excursion 55608 - 50562 = 5046 (9.57 %, 20 % allowed); the
    least-squares slope -1.2 IOPS per round, so the line moves 4.8 IOPS (0.01 %, 10 % allowed)
    over the window: steady. fio's own slope (% of the mean per sample) is the same line."""
    job = json.loads((DATA / "fio" / "fio-3.33_randread_steadystate_iops_slope.json").read_text())["jobs"][0]
    samples = job["steadystate"]["data"]["iops"]
    assert samples == [54633, 50656, 50562, 55608, 52151]
    snia = analysis.snia_steady_state(samples)
    assert snia["round_intervals"] == 1 and snia["round_iops"] == [54633.0, 50656.0, 50562.0, 55608.0, 52151.0]
    assert snia["mean_iops"] == 52722.0
    assert (snia["data_excursion_iops"], snia["data_allowed_iops"]) == (5046.0, pytest.approx(52722.0 * 0.2))
    assert snia["data_excursion_pct"] == pytest.approx(100 * 5046 / 52722) and f"{snia['data_excursion_pct']:.2f}" == "9.57"
    assert snia["fit_slope_iops"] == pytest.approx(-1.2)
    assert (snia["slope_excursion_iops"], snia["slope_allowed_iops"]) == (pytest.approx(4.8), pytest.approx(5272.2))
    assert snia["slope_excursion_pct"] == pytest.approx(100 * 4.8 / 52722)
    assert snia["steady"] is True
    # fio's own numbers: slope -1.2 IOPS per sample, criterion "-0.002276%" of the mean
    assert snia["fit_slope_iops"] == pytest.approx(job["steadystate"]["slope"])
    assert f'{snia["fit_slope_iops"] / snia["mean_iops"] * 100:.6f}%' == job["steadystate"]["criterion"]


def _vdbench_intervals(threads: int) -> list[dict]:
    from flashpoc.engines.vdbench.measure import interval_table
    from flashpoc.engines.vdbench.parse import parse_output_dir, read_output_dir
    from flashpoc.engines.vdbench.plan import RunDefinition

    parsed = parse_output_dir(read_output_dir(DATA / "vdbench" / "rr_threads_sweep"))
    total = next(t for t in parsed["totals"] if t["threads"] == threads)
    rd = RunDefinition("rd1", "wd1", (1, 2, 4, 8, 16), elapsed_s=10, interval_s=1)
    return interval_table("p", rd.interval_s, total, parsed)


def test_snia_rule_on_vdbench_interval_lines():
    """The 1-thread run: vdbench 5.04.06 counts all 10 one-second intervals in its avg_2-10
    (11232.40 IOPS); 5 rounds of 2: 10328, 12121, 9084, 10792, 13837 IOPS. Data excursion
    13837 - 9084 = 4753 IOPS (42.32 % of 11232.4: more than 20 %); slope 568.9 IOPS per
    round, 2275.6 over the window (20.26 %: more than 10 %): not steady by either criterion."""
    table = _vdbench_intervals(1)
    measured = [r["iops"] for r in table if not r["warmup"]]
    assert measured == [7312.0, 13344.0, 11864.0, 12378.0, 9983.0, 8185.0, 10322.0, 11262.0, 13432.0, 14242.0]
    verdict = rows.interval_verdict(table)
    assert verdict["snia_round_intervals"] == 2 and verdict["snia_mean_iops"] == pytest.approx(11232.4)
    assert (verdict["snia_data_excursion_iops"], verdict["snia_data_excursion_pct"]) == (
        4753.0, pytest.approx(100 * 4753 / 11232.4))
    assert (verdict["snia_slope_excursion_iops"], verdict["snia_slope_excursion_pct"]) == (
        pytest.approx(2275.6), pytest.approx(100 * 2275.6 / 11232.4))
    assert (verdict["snia_data_allowed_iops"], verdict["snia_slope_allowed_iops"]) == (
        pytest.approx(2246.48), pytest.approx(1123.24))
    assert verdict["snia_fit_slope_iops"] == pytest.approx(568.9)
    assert verdict["snia_steady"] is False
    assert verdict["interval_steady"] is False  # today's rule agrees: scatter 20.37 %
    assert f"{verdict['interval_iops_cv_pct']:.2f}" == "20.37"


def test_snia_window_keeps_the_latest_intervals():
    """7 intervals make 5 rounds of 1: the first 2 are left out of the window."""
    snia = analysis.snia_steady_state([1.0, 50.0, 100, 100, 100, 100, 100])
    assert snia["first_interval"] == 2 and snia["round_iops"] == [100.0] * 5 and snia["steady"] is True
    assert snia["data_excursion_pct"] == 0.0 and snia["slope_excursion_pct"] == pytest.approx(0.0, abs=1e-9)


def test_snia_rule_refuses_a_trend_the_scatter_rule_lets_pass():
    """A steady rise of 3 % a round: data excursion 12 % (within 20 %) but slope excursion
    12 % (over 10 %): not steady by SNIA."""
    snia = analysis.snia_steady_state([100.0, 103, 106, 109, 112])
    assert snia["data_excursion_pct"] == pytest.approx(12 / 106 * 100, abs=0.01)
    assert snia["slope_excursion_pct"] == pytest.approx(12 / 106 * 100, abs=0.01)
    assert snia["steady"] is False


def test_snia_rule_has_no_verdict_under_five_intervals():
    assert analysis.snia_steady_state([1.0, 2, 3, 4])["steady"] is None
    assert rows.interval_verdict([{"iops": 5.0}] * 4)["snia_steady"] is None
    with pytest.raises(AnalysisError, match="rounds"):
        analysis.snia_steady_state([1.0] * 5, rounds=1)


@pytest.fixture
def vdbench_sweep():
    """The recorded vdbench sweep's 5 points (1-16 threads), each with its verdicts."""
    import pandas as pd

    records = []
    for threads in (1, 2, 4, 8, 16):
        table = _vdbench_intervals(threads)
        records.append({"workload": "wd1", "threads": threads, "iops": 0.0, **rows.interval_verdict(table)})
    return pd.DataFrame(records)


def test_report_says_which_points_were_not_steady_by_which_rule(vdbench_sweep):
    from flashpoc.present import summary

    table = summary.steadiness_table(vdbench_sweep)
    text = summary.steadiness_text(table)
    assert "1 of 5 points were steady by the SNIA PTS rule" in text
    assert ("- not steady by SNIA: `wd1` at 1 thread: data excursion 42.3 % (20 % allowed), slope excursion "
            "20.3 % (10 % allowed)") in text
    assert "not steady by SNIA: `wd1` at 8 threads" not in text  # 8 threads: 11.6 % and 5.1 %
    assert [f"{v:.2f}" for v in table.loc[3, ["snia_data_excursion_pct", "snia_slope_excursion_pct"]]] == ["11.58", "5.09"]
    line = summary.unsteady_summary(table)
    assert line.startswith("**Points not steady**: by the SNIA PTS rule, 4 of 5 (`wd1` at 1 thread; `wd1` at 2 threads; "
                           "`wd1` at 4 threads; `wd1` at 16 threads); by interval scatter and drift, 4 of 5")
    assert summary.unsteady_summary(table[table["threads"] == 8]) is None


def test_snia_determination_table_has_allowed_and_measured_excursions(vdbench_sweep):
    from flashpoc.present import summary

    shown = summary.steadiness_display(summary.steadiness_table(vdbench_sweep)).frame
    first = shown.iloc[0].to_dict()
    assert first["Window mean (IOPS)"] == "11,232" and first["Intervals (per round)"] == "10 (2)"
    assert first["Data excursion, allowed / measured (IOPS)"] == "2,246 / 4,753"
    assert first["Slope excursion, allowed / measured (IOPS)"] == "1,123 / 2,276"
    assert first["Least-squares line (IOPS, x: round 0-4)"] == "10,095 + 568.9 x"
    assert (first["SNIA"], first["Scatter rule (scatter / drift %)"]) == ("NOT steady", "NOT steady (20.4 / +25.3)")
    assert "Ended by" not in shown  # every point ran its full length
    assert shown.iloc[3]["SNIA"] == "steady"


def test_short_points_leave_the_snia_columns_out():
    """Points of 4 intervals (the recorded vdbench run's last 4 of each thread count, as a demo's
    short points have): no SNIA verdict anywhere, so the table has no columns of dashes, only the
    scatter rule's verdict, and its note says why."""
    import pandas as pd
    from flashpoc.present import summary

    records = []
    for threads in (1, 2):
        table = [r for r in _vdbench_intervals(threads) if r["second"] > 6]
        records.append({"workload": "wd1", "threads": threads, "iops": 0.0, **rows.interval_verdict(table)})
    shown = summary.steadiness_display(summary.steadiness_table(pd.DataFrame(records)))
    assert list(shown.frame.columns) == ["Workload", "Threads", "Intervals", "Scatter rule (scatter / drift %)"]
    assert shown.frame["Intervals"].tolist() == ["4", "4"]
    assert any("no point had them" in note for note in shown.notes)


def test_fio_steadystate_says_it_ended_the_point():
    import pandas as pd
    from flashpoc.present import summary

    row = {"workload": "w", "threads": 4, "iops": 52722.0, "intervals": 5, **rows.snia_verdict(
        [54633, 50656, 50562, 55608, 52151]), "interval_iops_cv_pct": 4.3, "interval_iops_drift_pct": -0.1,
        "interval_steady": True, "fio_steadystate": "iops_slope:0.3% over 5 s", "steadystate_attained": True,
        "measured_s": 9.87, "runtime_s": 60}
    missed = {**row, "threads": 8, "steadystate_attained": False}
    table = summary.steadiness_table(pd.DataFrame([row, missed]))
    shown = summary.steadiness_display(table).frame
    assert shown["Ended by"].tolist() == ["fio steadystate iops_slope:0.3% over 5 s: attained after 9.9 s",
                                          "fio steadystate iops_slope:0.3% over 5 s: not attained in 60 s"]
    own = registry.get_engine("fio").own_steadiness()  # the words are the engine's
    assert "fio's own steadystate decided how long 2 points ran" in summary.steadiness_text(table, own=own)
    assert "by fio's own steadystate, 1 of 2 (`w` at 8 threads)" in summary.unsteady_summary(table, own=own)


def test_detail_chart_draws_the_snia_window_of_the_vdbench_intervals():
    """The 1-thread run's window: 5 rounds of 2 one-second intervals (0-2 s ... 8-10 s), the
    rounds' means, 90 % and 110 % of the window mean 11,232.4 (10,109.2 and 12,355.6) and the
    least-squares line from 10,094.6 (the mean less 2 x 568.9) rising 568.9 a round."""
    import pandas as pd
    from flashpoc.present import chart

    table = pd.DataFrame(_vdbench_intervals(1)).assign(workload="wd1")
    window = chart.snia_windows(table)
    assert window["round_iops"].tolist() == [10328.0, 12121.0, 9084.0, 10792.0, 13837.0]
    assert list(zip(window["start"], window["end"])) == [(0, 2), (2, 4), (4, 6), (6, 8), (8, 10)]
    assert window["fit_iops"].round(1).tolist() == pytest.approx([10094.6, 10663.5, 11232.4, 11801.3, 12370.2], abs=0.05)
    detail = pd.DataFrame([{"workload": "wd1", "threads": 1, "iops": 11232.4, "ramp_s": 0,
                            **rows.interval_verdict(table.to_dict("records"))}])
    spec = chart.interval_series(table, detail).to_dict()
    drawn = [r for data in spec["datasets"].values() for r in data]
    levels = sorted(round(r["level_iops"], 1) for r in drawn if "level_iops" in r)
    assert levels == [10109.2, 11232.4, 12355.6]
    subtitle = spec["vconcat"][0]["title"]["subtitle"][0]
    assert subtitle.endswith("SNIA NOT steady: data excursion 42.3 % (20 % allowed), slope excursion 20.3 % (10 %)")
    assert "SNIA PTS window" in " ".join(spec["title"]["subtitle"])
    assert "<svg" in chart.render_svg(chart.interval_series(table, detail))
    assert chart.snia_windows(table[table["second"] <= 4]).empty  # 4 intervals: no window


def test_the_cli_line_counts_the_snia_verdicts(vdbench_sweep):
    from flashpoc.present import progress

    line = progress.steadiness_line(vdbench_sweep)
    assert line.startswith("steady state: 1 of 5 points steady; not steady: wd1 at 1 thread (scatter 20.4 %")
    assert line.endswith("; by the SNIA PTS rule 1 of 5 steady (not: wd1 at 1 thread; wd1 at 2 threads; "
                         "wd1 at 4 threads; wd1 at 16 threads)")

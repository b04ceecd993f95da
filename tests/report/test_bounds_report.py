"""The sentences a decision rests on, on real recorded vdbench runs (tests/data/vdbench, PROVENANCE.md):
the 4K random-read thread sweep ``rr_threads_sweep`` (threads 1-16) and the 4K random reads of
``four_workloads`` (threads 1, 4, 8) of the same VM and LUNs, read by the project's own parser.

Their totals.html ``avg_`` lines (IOPS, mean response time in ms):

- rr_threads_sweep: 1: 11,232.40 at 0.334; 2: 15,838.90 at 0.478; 4: 34,595.40 at 0.443;
  8: 65,627.10 at 0.468; 16: 72,704.70 at 0.844 (uneven: 2 threads slower than 4);
- four_workloads rd1_randread: 1: 25,909.20 at 0.142; 4: 59,780.80 at 0.251; 8: 67,783.80 at 0.428.

Every figure asserted is computed here from those printed numbers by the rule the report states.
"""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd
import pytest

from conftest import DATA
from documents import summary_problems
from flashpoc.analysis import compare
from flashpoc.present import document, progress, summary
from flashpoc.engines.vdbench.parse import parse_totals
from flashpoc.present.document.base import Context
from flashpoc.params import campaign_from_dict

LUNS = 4 * 512 * 2**20  # 4 SDs of 512 MiB, both runs


def _curve(name: str, rd: str, config: str) -> pd.DataFrame:
    totals = [t for t in parse_totals((DATA / "vdbench" / name / "totals.html").read_text()) if t["rd"] == rd]
    return pd.DataFrame({"config": config, "workload": "randread-4k", "engine": "vdbench", "rw": "randread", "bs": "4k",
                         "rwmixread": 100, "iodepth": 1, "working_set_bytes": LUNS,
                         "threads": [int(t["threads"]) for t in totals], "iops": [t["iops"] for t in totals],
                         "lat_mean_ms": [t["resp_ms"] for t in totals], "bw_mibps": [t["mb_per_s"] for t in totals],
                         "outstanding_ios": [4 * int(t["threads"]) for t in totals]})


def _crossing(y0: float, l0: float, y1: float, l1: float, slo: float) -> float:
    """IOPS where the segment from (y0 IOPS, l0 ms) to (y1, l1) reaches ``slo`` ms."""
    return y0 + (slo - l0) / (l1 - l0) * (y1 - y0)


SWEEP = _curve("rr_threads_sweep", "rd1", "sweep")
FOUR = _curve("four_workloads", "rd1_randread", "four")


def _key_results(points: pd.DataFrame, slo: float) -> list[str]:
    values = {"campaign": "c", "hosts": [{"name": "h"}], "slo_ms": slo,
              "targets": [{"name": "t", "path": "/srv/t.dat", "size": "1g", "create": True}]}
    report = SimpleNamespace(cfg=campaign_from_dict(values), points=points, summary=summary.summary_table(points, slo))
    return document.key_results(report)


def test_a_curve_under_the_slo_at_every_point_says_what_holds():
    """Item 1: every point under 1 ms (the slowest 0.844 ms): at least the most measured, never
    "the SLO was not reached"."""
    points = SWEEP.drop(columns="config")
    (line,) = _key_results(points, 1.0)
    assert line.endswith("up to 72,705 IOPS at 0.844 ms; under 1 ms at every point measured: at least 72,705 IOPS.")
    table = summary.summary_table(points, 1.0)
    assert (table.loc[0, "iops_at_1ms"], table.loc[0, "slo_status"]) == (points["iops"].max(), "at_least")
    cell = summary.results_table(table, points, 1.0).frame.loc[0, "Within the 1 ms SLO"]
    assert cell == "≥ 72,705 IOPS\n(under 1 ms at every point measured)"
    # over 0.3 ms already at 1 thread (0.334 ms): at most its 11,232 IOPS
    (line,) = _key_results(points, 0.3)
    assert line.endswith("over 0.3 ms already at its lightest load (1 thread, 0.334 ms): at most 11,232 IOPS.")


def test_the_figure_at_the_slo_is_never_below_a_point_measured_under_it():
    """Item 4: at 0.45 ms the first crossing (1 -> 2 threads) gives 14,943 IOPS, but 4 threads ran
    34,595 IOPS at 0.443 ms and 4 -> 8 threads crosses 0.45 ms at 43,284: that is the figure, and
    the report says the curve is uneven."""
    points = SWEEP.drop(columns="config")
    first = _crossing(11232.40, 0.334, 15838.90, 0.478, 0.45)
    most = _crossing(34595.40, 0.443, 65627.10, 0.468, 0.45)
    assert round(first) == 14943 and round(most) == 43284
    table = summary.summary_table(points, 0.45)
    assert (table.loc[0, "iops_at_0.45ms"], table.loc[0, "slo_status"]) == (pytest.approx(most), "exact")
    uneven = ("an uneven curve: over 0.45 ms at 2 threads (0.478 ms), under it again at 4 threads (0.443 ms): "
              "the most IOPS measured within it count")
    assert table.loc[0, "slo_note"] == uneven
    (line,) = _key_results(points, 0.45)
    assert line.endswith(f"; 43,284 IOPS within 0.45 ms ({uneven}).")


def test_a_comparison_keeps_a_bound_as_a_bound():
    """Items 2 and 3: at 0.45 ms the sweep reaches 43,284 IOPS (above); four_workloads' random reads
    stayed under 0.45 ms at every point: at least 67,783.8 IOPS, at least +56.6 %. At 20,000 IOPS,
    below four_workloads' lightest load (25,909.2 IOPS at 0.142 ms): at most 0.142 ms there, against
    the sweep's 0.470 ms (between 2 and 4 threads): at most -69.8 %, four the better."""
    points = pd.concat([SWEEP, FOUR], ignore_index=True)
    table = compare.comparison_table(points, slo_ms=0.45, iops_levels=[20000])
    at_slo = table[table["metric"] == "IOPS at latency"].iloc[0].to_dict()
    most = _crossing(34595.40, 0.443, 65627.10, 0.468, 0.45)
    assert at_slo["baseline_value"] == pytest.approx(most) and at_slo["config_value"] == 67783.8
    assert (at_slo["baseline_bound"], at_slo["config_bound"], at_slo["delta_bound"]) == ("exact", "at_least",
                                                                                         "at_least")
    assert round(at_slo["delta_pct"], 1) == round((67783.8 - most) / most * 100, 1) == 56.6
    assert at_slo["better"] == "four"
    shown = compare.comparison_display(table).frame.set_index("Measure")
    assert tuple(shown.loc["IOPS at 0.45 ms", ["sweep", "four", "four vs sweep"]]) == (
        "43,284", "≥ 67,784", "≥ +56.6 %\nbetter")
    text = compare.comparison_text(table)
    assert "IOPS at 0.45 ms 43,284 -> ≥ 67,784 (≥ +56.6 %; sweep: an uneven curve" in text
    assert "four: under 0.45 ms at every point measured)" in text and "not reached" not in text
    # item 3: a level below the lightest load is a bound too
    level = table[table["metric"] == "mean latency at equal IOPS"].iloc[0].to_dict()
    sweep_at = 0.478 + (20000 - 15838.90) / (34595.40 - 15838.90) * (0.443 - 0.478)
    assert level["baseline_value"] == pytest.approx(sweep_at) and level["config_value"] == 0.142
    assert (level["config_bound"], level["delta_bound"], level["better"]) == ("at_most", "at_most", "four")
    assert level["bound_note"] == "four: already above 20,000 IOPS at its lightest load (25,909 IOPS)"
    assert tuple(shown.loc["Mean latency (ms) at 20,000 IOPS", ["sweep", "four", "four vs sweep"]]) == (
        "0.470", "≤ 0.142", "≤ -69.8 %\nbetter")
    # what makes each a bound, under the table in plain text (its notes are not markdown)
    notes = compare.comparison_display(table).notes
    assert "randread-4k, Mean latency (ms) at 20,000 IOPS: " + level["bound_note"] + "." in notes
    assert not [note for note in notes if "`" in note]


def test_the_csv_keeps_the_bound(tmp_path):
    points = pd.concat([SWEEP, FOUR], ignore_index=True)
    path = tmp_path / "comparison.csv"
    compare.comparison_table(points, slo_ms=0.45).to_csv(path, index=False)
    stored = pd.read_csv(path)
    row = stored[stored["metric"] == "IOPS at latency"].iloc[0]
    assert (row["config_value"], row["config_bound"], row["delta_bound"]) == (67783.8, "at_least", "at_least")
    # read back, the bound prints as one
    assert compare.comparison_display(stored).frame.set_index("Measure").loc["IOPS at 0.45 ms", "four"] == "≥ 67,784"


def test_sequential_reads_are_read_in_mibps_within_the_slo_too():
    """Item 6: four_workloads' 128K sequential reads ("rd3_seqread": 1 thread 856.30 MB/sec at 0.529 ms,
    4 threads 1025.10 at 1.768, 8 threads 989.23 at 3.695): the figure within 1 ms is in MiB/s, 1 -> 4
    threads crossing it at 920 MiB/s."""
    points = _curve("four_workloads", "rd3_seqread", "seq").drop(columns="config").assign(
        workload="seqread-128k", rw="read", bs="128k")
    within = _crossing(856.30, 0.529, 1025.10, 1.768, 1.0)
    assert round(within) == 920
    (line,) = _key_results(points, 1.0)
    assert line.endswith("up to 1,025 MiB/s (8,201 IOPS) at 1.768 ms; 920 MiB/s within 1 ms.")
    table = summary.summary_table(points, 1.0)
    assert table.loc[0, "mibps_at_1ms"] == pytest.approx(within)
    assert summary.results_table(table, points, 1.0).frame.loc[0, "Within the 1 ms SLO"] == "920 MiB/s"


def test_the_run_s_closing_summary_gives_the_figure_within_the_slo_in_the_workload_s_unit():
    """Item 6 in what `flashpoc run` ends with: the sequential reads' figure within 1 ms in MiB/s
    (920, as above), not their 7,362 IOPS there; the random reads (25,909.2 at 0.142 ms to 67,783.8
    at 0.428) under 1 ms at every point: at least 67,784 IOPS."""
    seq = _curve("four_workloads", "rd3_seqread", "seq").drop(columns="config").assign(
        workload="seqread-128k", rw="read", bs="128k")
    points = pd.concat([seq, FOUR.drop(columns="config")], ignore_index=True)
    lines = progress.summary_lines(points, "four", 1.0)
    within = _crossing(856.30, 0.529, 1025.10, 1.768, 1.0)
    (seq_line,) = [line for line in lines if line.startswith("  seqread-128k ")]
    (rand_line,) = [line for line in lines if line.startswith("  randread-4k ")]
    assert f" {within:,.1f} MiB/s " in seq_line and "IOPS" not in seq_line
    assert " >= 67,784 IOPS " in rand_line
    assert "  >= : under 1 ms at the heaviest load measured: the array gives at least that within 1 ms" in lines


def test_the_conditions_say_the_slo_figure_is_in_mibps_where_a_workload_is_measured_so():
    seq = _curve("four_workloads", "rd3_seqread", "seq").drop(columns="config").assign(
        workload="seqread-128k", rw="read", bs="128k")
    values = {"campaign": "c", "hosts": [{"name": "h"}], "slo_ms": 1.0,
              "targets": [{"name": "t", "path": "/srv/t.dat", "size": "1g", "create": True}]}

    def slo_line(points: pd.DataFrame) -> str:
        report = SimpleNamespace(cfg=campaign_from_dict(values), measured=points, points=points, configs=[])
        (line,) = [i for i in document.front.conditions(report, Context()) if isinstance(i, str)]
        return next(s for s in line.splitlines() if s.startswith("- **Latency SLO**"))

    assert slo_line(seq).endswith("the IOPS within it (MiB/s for sequential and large-block I/O) are the customer's "
                                  "usable performance.")
    assert slo_line(FOUR.drop(columns="config")).endswith("the IOPS within it are the customer's usable performance.")


def test_a_comparison_s_executive_summary_answers_in_a_sentence_with_its_bound():
    """Issue 30, item 10: a comparison's summary is one sentence per workload and configuration, the
    bound kept ("≥ 67,784 ... ≥ +57 %", from the printed 67,783.8 IOPS against the sweep's 43,284 at
    0.45 ms), in at most 150 words without a parameter's name. It held every configuration's key
    results and every delta of "Against the baseline" (now in the comparison's section)."""
    points = pd.concat([SWEEP, FOUR], ignore_index=True)
    cfg = campaign_from_dict({"campaign": "c", "hosts": [{"name": "h"}], "slo_ms": 0.45, "targets": [
        {"name": "t", "path": "/srv/t.dat", "size": "1g", "create": True}]})
    table = compare.comparison_table(points, slo_ms=0.45)
    report = SimpleNamespace(cfg=cfg, points=points, measured=points, summary=summary.summary_table(points, 0.45),
                             configs=["sweep", "four"], comparison=table, steadiness=pd.DataFrame(), host_limit=None,
                             comparison_text=compare.comparison_text(table))
    items = document.executive_summary(report, Context())
    assert summary_problems(items) == []
    most = _crossing(34595.40, 0.443, 65627.10, 0.468, 0.45)
    change = (67783.8 - most) / most * 100
    assert f"> - **randread-4k**: four ≥ 67,784 IOPS within 0.45 ms against {most:,.0f} for sweep (≥ +{change:.0f} %)." \
        in items[0].splitlines()
    assert not [item for item in items if isinstance(item, str) and "Against the baseline" in item]

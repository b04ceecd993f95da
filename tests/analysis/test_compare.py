"""Comparisons at equal latency and equal IOPS: the arithmetic on two small curves worked out by
hand, the refusal to compare different tests, and the comparison report of two real fio campaigns."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from flashpoc.analysis import compare
from flashpoc import phases
from flashpoc.analysis.bounds import AT_MOST, MISSING, NOT_REACHED, Bound
from flashpoc.core.errors import AnalysisError
from flashpoc.params import campaign_from_dict, load_campaign
from flashpoc.core.store import CampaignStore

from conftest import REPO, quick_campaign, require_fio


def curves(**overrides) -> pd.DataFrame:
    """Config A (baseline) and B, one workload, four thread counts each."""
    common = {"engine": "fio", "outstanding_ios": 1, "bw_mibps": 100.0, "workload": "4k-randread", "rw": "randread", "bs": "4k", "rwmixread": 100,
              "iodepth": 1, "working_set_bytes": 100 * 2**30}
    a = pd.DataFrame({"threads": [1, 2, 4, 8], "iops": [10000, 19000, 30000, 32000],
                      "lat_mean_ms": [0.1, 0.105, 0.133, 0.25], "host_cpu_busy_pct": [10, 18, 27, 30]})
    b = pd.DataFrame({"threads": [1, 2, 4, 8], "iops": [12000, 23000, 40000, 45000],
                      "lat_mean_ms": [0.083, 0.087, 0.1, 0.178], "host_cpu_busy_pct": [6, 11, 18, 20]})
    return pd.concat([a.assign(config="A", **common), b.assign(config="B", **{**common, **overrides})],
                     ignore_index=True)


def value(table: pd.DataFrame, metric: str, at: str = "") -> tuple:
    row = table[(table["metric"] == metric) & (table["at"] == at)].iloc[0]
    return tuple(None if pd.isna(row[c]) else row[c] for c in ("baseline_value", "config_value", "delta_pct", "better"))


def test_iops_at_equal_latency_latency_and_cpu_at_equal_iops():
    table = compare.comparison_table(curves(), slo_ms=0.15, latencies_ms=[0.09])
    assert value(table, "max IOPS") == (32000, 45000, pytest.approx(40.625), "B")
    # 0.15 ms: A between 30,000 IOPS at 0.133 ms and 32,000 at 0.25 ms; B between 40,000 at 0.1 and 45,000 at 0.178
    a, b, pct, better = value(table, "IOPS at latency", "0.15 ms")
    assert (round(a, 1), round(b, 1), round(pct, 2), better) == (30290.6, 43205.1, 42.64, "B")
    # 0.09 ms: A's lightest point (10,000 IOPS at 0.1 ms) is already above it: at most 10,000 IOPS
    # within it, so B's 26,923 is at least +169 %, beyond the 10 % noise: B is better
    a, b, pct, better = value(table, "IOPS at latency", "0.09 ms")
    assert (a, round(b, 1), round(pct, 1), better) == (10000, 26923.1, 169.2, "B")
    row = table[table["at"] == "0.09 ms"].iloc[0]
    assert (row["baseline_bound"], row["config_bound"], row["delta_bound"]) == ("at_most", "exact", "at_least")
    assert row["bound_note"] == "A: over 0.09 ms already at its lightest load (1 thread, 0.100 ms)"
    # equal IOPS: half and all of the lower max IOPS (32,000)
    assert sorted(set(table.loc[table["metric"] == "mean latency at equal IOPS", "at"])) == \
        ["16,000 IOPS", "32,000 IOPS"]
    a, b, _, better = value(table, "mean latency at equal IOPS", "16,000 IOPS")
    assert (round(a, 6), round(b, 7), better) == (0.103333, 0.0844545, "B")
    a, b, _, _ = value(table, "mean latency at equal IOPS", "32,000 IOPS")
    assert (a, round(b, 7)) == (0.25, 0.0938824)
    # host CPU busy % per 10K IOPS at 32,000 IOPS: 30 / 3.2 vs (11 + 9/17 x 7) / 3.2
    a, b, pct, better = value(table, "host CPU per 10K IOPS", "32,000 IOPS")
    assert (a, round(b, 4), round(pct, 1), better) == (9.375, 4.5956, -51.0, "B")
    text = compare.comparison_text(table)
    assert "`4k-randread`, **B** vs A: IOPS max 32,000 -> 45,000 (+40.6 %)" in text
    assert ("IOPS at 0.09 ms ≤ 10,000 -> 26,923 (≥ +169.2 %; A: over 0.09 ms already at its lightest load "
            "(1 thread, 0.100 ms))") in text


def test_equal_load_per_direction_and_in_mibps():
    """At the same threads (the seeds: DB-host CPU at 128 and 256 users): by default the highest
    count both measured (8) and the one nearest half of it (4); per direction where the rows have it."""
    points = curves()
    points["read_iops"], points["write_iops"] = points["iops"] * 0.7, points["iops"] * 0.3
    points["bw_mibps"] = points["iops"] * 8 / 1024  # 8 KiB
    table = compare.comparison_table(points, slo_ms=0.15)
    assert sorted(set(table.loc[table["metric"] == "IOPS at equal threads", "at"])) == ["4 threads", "8 threads"]
    assert value(table, "IOPS at equal threads", "8 threads") == (32000, 45000, pytest.approx(40.625), "B")
    assert value(table, "read IOPS at equal threads", "8 threads") == (22400, pytest.approx(31500), pytest.approx(40.625), "B")
    assert value(table, "write IOPS at equal threads", "4 threads") == (9000, 12000, pytest.approx(100 / 3), "B")
    assert value(table, "MiB/s at equal threads", "8 threads")[:2] == (250, pytest.approx(351.5625))
    assert value(table, "mean latency at equal threads", "8 threads") == (0.25, 0.178, pytest.approx(-28.8), "B")
    assert value(table, "host CPU at equal threads", "4 threads") == (27, 18, pytest.approx(-100 / 3), "B")
    assert value(table, "max MiB/s") == (250, pytest.approx(351.5625), pytest.approx(40.625), "B")
    assert "read latency at equal threads" not in set(table["metric"])  # the rows have no read latency
    asked = compare.comparison_table(points, slo_ms=0.15, threads=[2, 3])  # 3: not measured, left out
    assert sorted(set(asked.loc[asked["metric"] == "IOPS at equal threads", "at"])) == ["2 threads"]
    shown = compare.comparison_display(table).frame
    assert {"Read IOPS at 8 threads", "MiB/s at 8 threads", "Mean latency (ms) at 8 threads", "Max MiB/s"} <= set(
        shown["Measure"])
    assert "IOPS at 8 threads 32,000 -> 45,000 (+40.6 %)" in compare.comparison_text(table)


def test_values_are_never_extrapolated_and_outside_the_curve_are_bounds():
    a = curves().query("config == 'A'")
    # 5,000 IOPS: A's lightest load (10,000 IOPS at 0.1 ms) already does more: at most 0.1 ms there
    assert compare.value_at_iops(a, "lat_mean_ms", 5000) == Bound(
        0.1, AT_MOST, "already above 5,000 IOPS at its lightest load (10,000 IOPS)")
    assert compare.value_at_iops(a, "lat_mean_ms", 40000) == Bound(None, NOT_REACHED, "at most 32,000 IOPS measured")
    assert compare.value_at_iops(a, "lat_mean_ms", 19000) == Bound(0.105)
    assert compare.value_at_iops(a, "write_lat_mean_ms", 19000).kind == MISSING
    table = compare.comparison_table(curves(), slo_ms=1.0, iops_levels=[40000])
    a, b, pct, better = value(table, "mean latency at equal IOPS", "40,000 IOPS")
    assert (a, b, pct, better) == (None, 0.1, None, None)  # A never reached 40,000 IOPS
    assert "Mean latency at 40,000 IOPS not reached -> 0.100 ms (A: at most 32,000 IOPS measured)" in \
        compare.comparison_text(table).replace("mean latency", "Mean latency")
    # every point of both curves is under 1 ms: both "at least", so no change can be read
    assert value(table, "IOPS at latency", "1 ms")[:3] == (32000, 45000, None)
    shown = compare.comparison_display(table).frame.set_index("Measure")
    assert tuple(shown.loc["IOPS at 1 ms", ["A", "B", "B vs A"]]) == ("≥ 32,000", "≥ 45,000", "–")


@pytest.mark.parametrize("change, what", [
    ({"bs": "8k"}, "block size 4k (A) vs 8k (B)"),
    ({"rwmixread": 70}, "read share (%) 100 (A) vs 70 (B)"),
    ({"engine": "vdbench"}, "engine fio (A) vs vdbench (B)"),
    ({"working_set_bytes": 50 * 2**30}, "working set 100.0 GiB (A) vs 50.0 GiB (B)"),
])
def test_different_tests_are_not_compared_and_the_report_says_why(change, what):
    points = curves(**change)
    workloads, notes = compare.comparability(points)
    assert workloads == [] and notes == [f"`4k-randread` is **not compared**: {what}."]
    assert compare.comparison_table(points, slo_ms=1.0).empty


def test_working_sets_within_ten_percent_and_missing_workloads():
    points = curves(working_set_bytes=95 * 2**30)
    extra = points[points["config"] == "A"].assign(workload="8k-oltp")
    workloads, notes = compare.comparability(pd.concat([points, extra]))
    assert workloads == ["4k-randread"]
    assert notes == ["`8k-oltp` was measured only in A: nothing to compare it with."]


def test_two_real_fio_campaigns_compared_in_the_report(tmp_path, monkeypatch):
    """Two campaigns on this machine's scratch file: fio's psync vs libaio engine. Both are
    measured with real fio; the report of the first overlays the second and writes the deltas."""
    require_fio()
    monkeypatch.setenv("FLASHPOC_ROOT", str(tmp_path))
    base = quick_campaign(tmp_path, campaign="psync", fio={"runtime_s": 1, "ramp_s": 0, "ioengine": "psync"})
    base["workloads"] = [{"name": "4k-randread", "rw": "randread", "bs": "4k"},
                         {"name": "4k-randwrite", "rw": "randwrite", "bs": "4k"}]
    base["sweep"] = {"plan": "guide", "max_threads": 3, "step": 1}
    other = {**base, "campaign": "libaio", "fio": {**base["fio"], "ioengine": "libaio"},
             "workloads": [{"name": "4k-randread", "rw": "randread", "bs": "4k"},
                           {"name": "4k-randwrite", "rw": "randwrite", "bs": "8k"}]}
    for values in (base, other):
        cfg = campaign_from_dict(values)
        phases.run_check(cfg)
        phases.run_sweep(cfg, {w.name: [1, 2, 3] for w in cfg.workloads}, progress=False)
    cfg = campaign_from_dict({**base, "report": {"label": "psync", "compare": [{"campaign": "libaio",
                                                                                 "label": "libaio"}]}})
    report = phases.build_report(cfg)
    assert report.configs == ["psync", "libaio"]
    assert set(report.comparison["workload"]) == {"4k-randread"}
    assert report.comparison_notes == ["`4k-randwrite` is **not compared**: block size 4k (psync) vs 8k (libaio)."]
    stored = phases.load_comparison(cfg)
    max_iops = stored[stored["workload"] == "4k-randread"].groupby("config")["iops"].max()  # the compared workload
    row = report.comparison[report.comparison["metric"] == "max IOPS"].iloc[0]
    assert (row["baseline_value"], row["config_value"]) == (max_iops["psync"], max_iops["libaio"])
    assert "**libaio** vs psync" in report.comparison_text
    # equal load: 1 and 3 threads (the highest both measured and the nearest half of it), per direction
    at3 = stored[(stored["workload"] == "4k-randread") & (stored["threads"] == 3)].set_index("config")
    for metric, column in (("IOPS at equal threads", "iops"), ("MiB/s at equal threads", "bw_mibps"),
                           ("mean latency at equal threads", "lat_mean_ms")):
        row = report.comparison[(report.comparison["metric"] == metric) & (report.comparison["at"] == "3 threads")]
        assert (row.iloc[0]["baseline_value"], row.iloc[0]["config_value"]) == (at3.loc["psync", column],
                                                                                at3.loc["libaio", column])
    assert set(report.comparison.loc[report.comparison["metric"] == "IOPS at equal threads", "at"]) == \
        {"1 thread", "3 threads"}
    # a read workload: its total is its reads, and it has no writes
    assert not {"read IOPS at equal threads", "write IOPS at equal threads"} & set(report.comparison["metric"])
    csv = pd.read_csv(report.files["comparison.csv"])
    assert len(csv) == len(report.comparison)
    html = report.files["report.html"].read_text()
    assert "<h2" in html and "Comparison" in html and "is <strong>not compared</strong>" in html
    assert "Storage path and database" in html  # both checks recorded how the scratch file is reached
    assert set(report.summary["config"]) == {"psync", "libaio"}

    missing = campaign_from_dict({**base, "report": {"compare": [{"campaign": "nvme-of"}]}})
    with pytest.raises(AnalysisError, match=r"report.compare\[0\] \(nvme-of\): no campaign results in .*nvme-of"):
        phases.build_report(missing)


def test_explorer_controls_redraw_the_view(tmp_path):
    """The ipywidgets explorer in a real IPython kernel (nbclient; no browser, see test_browser.py
    for that): changing the SLO, the workload or the campaigns redraws the chart and the
    IOPS-at-SLO table of its output area."""
    import nbformat
    from nbclient import NotebookClient

    points = pd.concat([curves(), curves().assign(workload="8k-oltp")], ignore_index=True)
    points.to_json(tmp_path / "points.json", orient="records")
    code = f"""
import json, pandas as pd
from flashpoc.present import chart, explore
from flashpoc import phases
chart.enable_offline_renderer()  # as notebook 04 does
points = pd.read_json({str(tmp_path / "points.json")!r}, orient="records")
box = explore.explorer(phases.Report("", pd.DataFrame(), points, pd.DataFrame(), {{}}, {{}}, slo_ms=0.15))
pick_configs, pick_workload, slo, pick_point = box.children[0].children
def shown():
    spec = [o["data"]["application/vnd.vegalite.v5+json"] for o in box.children[1].outputs
            if "application/vnd.vegalite.v5+json" in o.get("data", {{}})]
    table = [o["data"]["text/plain"] for o in box.children[1].outputs if "text/html" in o.get("data", {{}})]
    return {{"title": spec[0]["title"]["text"] if spec else None, "table": table[0] if table else
             str(box.children[1].outputs), "detail": table[1] if len(table) > 1 else None,
             "points": list(pick_point.options)}}
states = [shown()]
pick_workload.value = "4k-randread"; states.append(shown())
slo.value = 0.09; states.append(shown())
pick_point.value = pick_point.options[1]; states.append(shown())
pick_configs.value = ("B",); states.append(shown())
pick_configs.value = (); states.append(shown())
print(json.dumps(states))
"""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)])
    NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    states = json.loads(nb.cells[0].outputs[-1]["text"])
    tables = [s["table"].replace(",", "") for s in states]
    assert states[0]["title"] == "IOPS vs mean latency, SLO 0.15 ms"
    assert "8k-oltp" in tables[0] and "30291" in tables[0]
    assert "8k-oltp" not in tables[1] and "4k-randread" in tables[1]
    # A has no point under 0.09 ms; B reaches 26,923 IOPS there
    assert states[2]["title"].endswith("SLO 0.09 ms") and "lightest load" in tables[2] and "26923" in tables[2]
    # the detail point: by default each curve's max IOPS within the SLO, or the chosen thread count
    assert states[2]["points"] == ["max IOPS within the SLO", "1 thread", "2 threads", "4 threads", "8 threads"]
    # at 0.09 ms: A has no point within it (its max IOPS, 32,000 at 8 threads), B 23,000 IOPS at 2 threads
    assert "32000" in states[2]["detail"].replace(",", "") and "23000" in states[2]["detail"].replace(",", "")
    assert "10000" in states[3]["detail"].replace(",", "") and "12000" in states[3]["detail"].replace(",", "")
    assert "lightest load" not in tables[4] and " A " not in tables[4]
    assert states[5]["title"] is None and "(nothing selected)" in tables[5]


@pytest.mark.parametrize("name", sorted(p.name for p in (REPO / "parameters").glob("*.yaml")))
def test_the_manifest_gives_back_the_campaign_of_every_parameters_file(name, tmp_path):
    """What manifest.json records reads back as the same campaign (every engine: the files are fio,
    vdbench and SLOB campaigns), so a comparison finds the compared campaign's current points."""
    cfg = load_campaign(REPO / "parameters" / name)
    store = CampaignStore(tmp_path / cfg.campaign)
    store.write_manifest(phases.manifest_params(cfg), cfg.params_hash(), engine=cfg.engine, engine_versions={},
                         host_facts={})
    again = phases.campaign_from_manifest(store.read_json("manifest.json"), name)
    assert again == cfg
    assert (again.params_hash(), again.measurement_hash()) == (cfg.params_hash(), cfg.measurement_hash())


def test_a_slob_manifest_written_before_still_reads():
    """Manifests written before held the schema's fio workloads in a SLOB campaign's parameters."""
    cfg = load_campaign(REPO / "parameters" / "slob-seed-8020.yaml")
    old = {"params": cfg.model_dump(mode="json")}
    assert "workloads" in old["params"]
    assert phases.campaign_from_manifest(old, "old manifest.json") == cfg


def test_workloads_keep_their_order_and_a_change_across_them_is_the_mean_of_theirs(tmp_path, monkeypatch):
    """Two real fio campaigns (psync, libaio) of two workloads listed write first: the comparison, its
    sentences and the charts keep that order (not the alphabet's), and the change of host CPU at equal
    threads across the two workloads is the mean of the two workloads' changes."""
    require_fio()
    monkeypatch.setenv("FLASHPOC_ROOT", str(tmp_path))
    workloads = [{"name": "randwrite-4k", "rw": "randwrite", "bs": "4k"}, {"name": "randread-4k", "rw": "randread", "bs": "4k"}]
    base = quick_campaign(tmp_path, campaign="psync", fio={"runtime_s": 1, "ramp_s": 0, "ioengine": "psync"},
                          workloads=workloads, sweep={"plan": "guide", "max_threads": 2, "step": 1})
    other = {**base, "campaign": "libaio", "fio": {**base["fio"], "ioengine": "libaio"}}
    for values in (base, other):
        cfg = campaign_from_dict(values)
        phases.run_check(cfg)
        phases.run_sweep(cfg, {w.name: [1, 2] for w in cfg.workloads}, progress=False)
    cfg = campaign_from_dict({**base, "report": {"compare": [{"campaign": "libaio"}]}})
    report = phases.build_report(cfg, pdf=False)
    table = report.comparison
    assert list(dict.fromkeys(table["workload"])) == ["randwrite-4k", "randread-4k"]
    assert list(report.summary["workload"].drop_duplicates()) == ["randwrite-4k", "randread-4k"]
    text = report.comparison_text
    assert text.index("`randwrite-4k`, **libaio**") < text.index("`randread-4k`, **libaio**")
    cpu = table[(table["metric"] == "host CPU at equal threads") & (table["at"] == "2 threads")]
    assert list(cpu["workload"]) == ["randwrite-4k", "randread-4k"]
    changes = list(cpu["delta_pct"])
    mean = sum(changes) / 2
    assert (f"- Across 2 workloads, **libaio** vs psync: Host CPU (%) at 2 threads {mean:+.1f} % on average (the "
            f"mean of the per-workload changes: `randwrite-4k` {changes[0]:+,.1f} %, `randread-4k` "
            f"{changes[1]:+,.1f} %; from {min(changes):+.1f} to {max(changes):+.1f} %).") in text
    for name in ("hockey_stick", "load_vs_threads"):
        dashes = [node for node in _encodings(report.charts[name].to_dict(), "strokeDash")]
        assert dashes and all(d["sort"] == ["randwrite-4k", "randread-4k"] for d in dashes), name


def _encodings(node, channel: str) -> list[dict]:
    """Every ``channel`` encoding anywhere in a chart's spec."""
    found = []
    if isinstance(node, dict):
        encoding = node.get("encoding")
        if isinstance(encoding, dict) and isinstance(encoding.get(channel), dict):
            found.append(encoding[channel])
        for value in node.values():
            found += _encodings(value, channel)
    elif isinstance(node, list):
        for value in node:
            found += _encodings(value, channel)
    return found

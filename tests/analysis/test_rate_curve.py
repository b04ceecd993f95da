"""The rate-curve sweep (sweep.plan: rate-curve): the uncontrolled maximum, then fixed fractions of it,
with the REAL fio (rate_iops on each job) and the REAL vdbench (its own iorate=curve, stopcurve=), on
small files and 1-2 s points."""

from __future__ import annotations

import json
import re

import pytest

from conftest import quick_campaign, require_fio
from flashpoc import phases
from flashpoc.core.errors import ParameterError
from flashpoc.params import campaign_from_dict
from flashpoc.analysis.sweep_plan import plan_note, plan_sweep
from test_precondition import vdbench_values


def test_the_rate_curve_plan_is_one_count_and_its_rates_are_checked(tmp_path):
    assert plan_sweep(12, plan="rate-curve") == [12]
    assert plan_note([12], 12, plan="rate-curve") == (
        "rate-curve plan: the uncontrolled maximum at 12 threads, then each rate of sweep.curve_pct of it, until a "
        "step's mean latency passes sweep.stop_ms")
    cfg = campaign_from_dict(quick_campaign(tmp_path, sweep={"plan": "rate-curve", "max_threads": 4}))
    assert cfg.sweep.rate_steps == [10, 50, 70, 80, 90, 100] and phases.plan_points(cfg, {"a": [4]}) == 7
    with pytest.raises(ParameterError, match=r"sweep: curve_pct applies to the rate-curve plan"):
        campaign_from_dict(quick_campaign(tmp_path, sweep={"plan": "guide", "curve_pct": [50]}))
    with pytest.raises(ParameterError, match=r"sweep\.curve_pct: 0\.0 is not a % of the maximum"):
        campaign_from_dict(quick_campaign(tmp_path, sweep={"plan": "rate-curve", "curve_pct": [0, 50]}))
    with pytest.raises(ParameterError, match=r"vdbench\.iorate: sweep\.plan rate-curve runs iorate=curve"):
        campaign_from_dict(quick_campaign(tmp_path, engine="vdbench", sweep={"plan": "rate-curve"},
                                          vdbench={"iorate": 500}))


def test_fio_rate_curve_asks_each_job_its_share_of_each_fraction_of_the_maximum(tmp_path):
    require_fio()
    cfg = campaign_from_dict(quick_campaign(
        tmp_path, targets=[{"name": "scratch", "path": str(tmp_path / "s.dat"), "size": "8m", "create": True}],
        workloads=[{"name": "randread-4k", "rw": "randread", "bs": "4k"}],
        sweep={"plan": "rate-curve", "max_threads": 2, "curve_pct": [50, 20]}))
    rows = phases.run_sweep(cfg, {"randread-4k": [2]}, progress=False)
    full, *steps = rows.to_dict("records")
    assert [s["curve_pct"] for s in steps] == [20, 50] and full.get("curve_pct") != full.get("curve_pct")  # NaN
    root = cfg.resolved().results_path() / "points" / "sweep"
    for step in steps:
        assert step["point_id"].endswith(f"_c{step['curve_pct']:g}") and step["threads"] == 2
        per_job = round(full["iops"] * step["curve_pct"] / 100 / 2)
        assert step["iorate_requested"] == 2 * per_job
        job = (root / step["point_id"] / "local.job.fio").read_text()
        assert f"rate_iops={per_job}\n" in job and "numjobs=2\n" in job
        (output,) = json.loads((root / step["point_id"] / "local.json").read_text())["jobs"]
        assert step["iops"] == pytest.approx(output["read"]["iops"])  # fio's own number, not the request
    points = phases.load_results(cfg)
    assert sorted(points["curve_pct"].fillna(0)) == [0, 20, 50]  # stored with the sweep, as vdbench's steps
    report = phases.build_report(cfg, write_files=False, pdf=False)  # charted as latency against IOPS
    spec = report.chart("rate_curve").to_dict()
    assert spec["title"]["text"] == "Rate curve: mean latency at each requested I/O rate"
    drawn = spec["datasets"][spec["data"]["name"]]
    assert sorted((d["step"], d["iops"]) for d in drawn) == sorted(
        [("full speed", full["iops"])] + [(f"{s['curve_pct']:g} %", s["iops"]) for s in steps])

    # a stop latency no step can meet: the curve ends after its first step
    stopped = campaign_from_dict(quick_campaign(
        tmp_path, campaign="stop", targets=cfg.model_dump(mode="json")["targets"],
        workloads=[{"name": "randread-4k", "rw": "randread", "bs": "4k"}],
        sweep={"plan": "rate-curve", "max_threads": 2, "curve_pct": [20, 50], "stop_ms": 0.000001}))
    rows = phases.run_sweep(stopped, {"randread-4k": [2]}, progress=False)
    assert rows["curve_pct"].fillna(0).tolist() == [0, 20]


def test_vdbench_rate_curve_is_its_own_iorate_curve_with_stopcurve(tmp_path):
    cfg = campaign_from_dict(vdbench_values(
        tmp_path, sweep={"plan": "rate-curve", "max_threads": 1, "curve_pct": [50], "stop_ms": 1000}))
    rows = phases.run_sweep(cfg, {"rr": [1]}, progress=False)
    (group,) = (cfg.resolved().results_path() / "points" / "sweep").iterdir()
    rd = next(x for x in (group / "parmfile").read_text().splitlines() if x.startswith("rd="))
    assert ",iorate=curve,curve=(50),stopcurve=1000," in rd
    full, step = rows.to_dict("records")
    assert step["point_id"] == full["point_id"] + "_c50" and step["curve_pct"] == 50
    started = re.search(r"Starting RD=rd1_\(50%\); I/O rate: (\d+);", (group / "output__totals.html").read_text())
    assert step["iorate_requested"] == int(started.group(1))

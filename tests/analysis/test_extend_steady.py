"""A sweep point extended until steady (``sweep.extend_until_steady``, flashpoc.campaign.extend): the lengths
it is measured again at, the rule that decides, and real runs of fio (its own steadystate ends a
longer run once steady) and vdbench (judged by the SNIA PTS rule on its intervals)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from conftest import quick_campaign, require_fio
from flashpoc.analysis import extension
from flashpoc.campaign import extend
from flashpoc.engines import loop
from flashpoc import phases
from flashpoc.params import campaign_from_dict


@pytest.mark.parametrize("runtime, max_s, lengths", [(60, 300, [120, 240, 300]), (1, 4, [2, 4]), (5, 5, []),
                                                      (10, 3, []), (3, 7, [6, 7])])
def test_a_point_is_measured_again_at_twice_its_length_up_to_the_limit(runtime, max_s, lengths):
    assert extension.extension_lengths(runtime, max_s) == lengths


def test_the_rule_that_decides_is_fio_s_own_steadystate_when_it_ended_the_point_else_snia():
    assert extension.steady_verdict({"fio_steadystate": "iops:3% over 2 s", "steadystate_attained": False,
                                  "snia_steady": True}) == (False, "fio steadystate (iops:3% over 2 s)")
    assert extension.steady_verdict({"snia_steady": "True", "steadystate_attained": None}) == (True, extension.SNIA_RULE)
    steady, why = extension.steady_verdict({"snia_steady": None})
    assert steady is None and why.startswith("no verdict")


def fio_point(tmp_path, fio: dict, max_s: int):
    require_fio()
    cfg = campaign_from_dict(quick_campaign(
        tmp_path, targets=[{"name": "scratch", "path": str(tmp_path / "s.dat"), "size": "4m", "create": True}],
        workloads=[{"name": "randread-4k", "rw": "randread", "bs": "4k"}], fio={"ramp_s": 0, **fio},
        sweep={"plan": "guide", "max_threads": 1, "step": 1, "extend_until_steady": {"max_s": max_s}}))
    phases.run_check(cfg)
    (row,) = phases.run_sweep(cfg, {"randread-4k": [1]}, progress=False).to_dict("records")
    return cfg, row


def fio_job(cfg, row) -> dict:
    root = cfg.resolved().results_path() / "points" / "sweep" / row["point_id"]
    (job,) = json.loads((root / "local.json").read_text())["jobs"]
    return job


def test_fio_measures_a_point_not_steady_again_longer_and_its_steadystate_ends_it(tmp_path):
    """fio's steadystate over 2 s cannot be attained in a 1 s point: it runs again for 2 s, then
    4 s, until fio says it is steady (a criterion any two positive samples meet: within 100 % of
    their mean), and the row and the stored record say so."""
    cfg, row = fio_point(tmp_path, {"runtime_s": 1, "steadystate": "iops:100%", "ss_dur_s": 2}, max_s=8)
    assert row["steady_rule"] == "fio steadystate (iops:100% over 2 s)" and row["extended_steady"] is True
    runs = row["extended_runs_s"]
    assert runs[0] == 1 and runs == [1, 2, 4, 8][:len(runs)] and len(runs) >= 2
    job = fio_job(cfg, row)
    assert bool(job["steadystate"]["attained"]) is True and row["runtime_s"] == runs[-1]
    assert row["measured_s"] == pytest.approx(job["read"]["runtime"] / 1000.0, abs=0.001)
    stored = json.loads((cfg.resolved().results_path() / "points" / "sweep" / row["point_id"] / "point.json").read_text())
    assert {k: stored[k] for k in ("extended_runs_s", "steady_rule", "extended_steady")} == {
        "extended_runs_s": runs, "steady_rule": row["steady_rule"], "extended_steady": True}
    points = phases.load_results(cfg, "sweep")
    assert points["point_id"].tolist() == [row["point_id"]]  # the longer point stands for its thread count
    from flashpoc.present.summary import steadiness_display, steadiness_table

    (said,) = steadiness_display(steadiness_table(points)).frame.to_dict("records")
    assert said["Ended by"] == (f"extended until steady: {', '.join(map(str, runs))} s run; fio steadystate "
                                f"(iops:100% over 2 s) decided: steady after {row['measured_s']:g} s")
    report = phases.build_report(cfg, pdf=False)  # the report says so too: its method and its determination table
    (method,) = [s for s in report.sections if s.key == "method"]
    assert "measured again at twice its length, up to 8 s" in method.items[0]
    (shown,) = [i for s in report.sections for i in s.items
                if getattr(i, "caption", "").startswith("Steady") and "Ended by" in i.frame]
    assert shown.frame["Ended by"].tolist() == [said["Ended by"]]


def test_fio_stops_at_the_limit_when_the_point_never_becomes_steady(tmp_path):
    """A criterion fio's samples cannot meet (all within 0.0001 % of their mean): 1, 2 and 4 s run,
    still not steady at the limit, and said so."""
    cfg, row = fio_point(tmp_path, {"runtime_s": 1, "steadystate": "iops:0.0001%", "ss_dur_s": 2}, max_s=4)
    assert row["extended_runs_s"] == [1, 2, 4] and row["extended_steady"] is False
    job = fio_job(cfg, row)
    assert not job["steadystate"]["attained"] and row["runtime_s"] == 4
    assert extend.extension_text(row).endswith(f"decided: still NOT steady after {row['measured_s']:g} s")


def test_vdbench_runs_a_point_again_longer_when_the_snia_rule_on_its_intervals_says_it_is_not_steady(tmp_path):
    """vdbench has no steadystate of its own: its point of 5 one-second intervals is judged by the
    SNIA PTS rule; not steady, it runs again for 10 s (the limit). Whichever happens on this
    machine, the decision is the rule's on vdbench's own intervals, and the row says which lengths ran."""
    from flashpoc.analysis import snia_steady_state
    from flashpoc.core.store import CampaignStore

    from test_precondition import vdbench_values

    cfg = campaign_from_dict(vdbench_values(tmp_path, vdbench={"elapsed_s": 5, "interval_s": 1, "warmup_s": 0},
                                            sweep={"plan": "guide", "max_threads": 1, "step": 1,
                                                   "extend_until_steady": {"max_s": 10}}))
    phases.run_check(cfg)
    (row,) = phases.run_sweep(cfg, {"rr": [1]}, progress=False).to_dict("records")
    store = CampaignStore(cfg.resolved().results_path())
    first = [r for r in store.load_points("sweep").to_dict("records") if r["runtime_s"] == 5]
    assert len(first) == 1
    intervals = store.load_point_tables("sweep", "intervals.csv", [first[0]["point_id"]])
    snia = snia_steady_state(intervals[~intervals["warmup"].astype(bool)]["iops"].tolist())
    assert first[0]["snia_steady"] is snia["steady"] and row["steady_rule"] == extension.SNIA_RULE
    if snia["steady"]:
        assert row["extended_runs_s"] == [5] and row["point_id"] == first[0]["point_id"]
    else:
        assert row["extended_runs_s"] == [5, 10] and row["runtime_s"] == 10 and row["intervals"] == 10
        longer = store.load_point_tables("sweep", "intervals.csv", [row["point_id"]])
        assert row["extended_steady"] is snia_steady_state(longer[~longer["warmup"].astype(bool)]["iops"].tolist())["steady"]
    stored = [r for r in store.load_points("sweep").to_dict("records") if r["point_id"] == row["point_id"]]
    assert stored[0]["extended_runs_s"] == row["extended_runs_s"]


def test_extend_until_steady_unset_leaves_the_hashes_of_earlier_campaigns_and_bad_values_get_one_line(tmp_path):
    import hashlib

    from flashpoc.core.errors import ParameterError

    cfg = campaign_from_dict(quick_campaign(tmp_path))
    earlier = cfg.model_dump(mode="json")
    earlier.pop("array")
    del earlier["sweep"]["extend_until_steady"]
    earlier.pop("database")  # added later too (database.datafiles)
    assert cfg.params_hash() == hashlib.sha256(json.dumps(earlier, sort_keys=True).encode()).hexdigest()[:16]
    extended = campaign_from_dict(quick_campaign(tmp_path, sweep={"extend_until_steady": {"max_s": 600}}))
    assert extended.params_hash() != cfg.params_hash() and extended.measurement_hash() == cfg.measurement_hash()
    with pytest.raises(ParameterError, match=r"sweep\.extend_until_steady\.max_s: Input should be greater than or "
                                             r"equal to 1 \(got 0\)"):
        campaign_from_dict(quick_campaign(tmp_path, sweep={"extend_until_steady": {"max_s": 0}}))


def test_a_rate_curve_is_kept_as_measured(tmp_path):
    """Steps of a rate curve are fractions of its full-speed run: neither is measured again longer
    (nothing is measured here: the rows are given, and a measurement would fail without hosts)."""
    from types import SimpleNamespace

    cfg = campaign_from_dict(quick_campaign(tmp_path, sweep={"extend_until_steady": {"max_s": 8}}))
    rows = [{"workload": "randread-4k", "threads": 1, "runtime_s": 1, "snia_steady": False, "point_id": "a"},
            {"workload": "randread-4k", "threads": 1, "runtime_s": 1, "snia_steady": False, "curve_pct": 50.0,
             "point_id": "a_c50"}]
    assert extend.extend_rows(SimpleNamespace(cfg=cfg, store=None, engine=cfg.engine_object), "sweep", rows) == rows


@pytest.mark.parametrize("steady, runtime, more", [(False, 1, 2), (False, 2, 4), (False, 8, None),  # at the limit
                                                    (True, 1, None), (None, 1, None)])  # steady, no verdict
def test_a_point_is_done_when_steady_without_a_verdict_or_at_the_limit(steady, runtime, more):
    assert extension.next_length({"snia_steady": steady, "runtime_s": runtime}, 1, 8) == more


def test_the_lengths_run_are_the_planned_one_then_each_longer_one_asked_for():
    assert extension.runs_until(1, 8, 1) == [1] and extension.runs_until(1, 8, 4) == [1, 2, 4]
    assert extension.runs_until(5, 12, 15) == [5, 10, 12]  # vdbench rounds 12 s up to three 5 s intervals


def test_only_the_last_run_of_a_sweep_point_outside_rate_curves_gets_the_columns(tmp_path):
    from flashpoc.core.records import PointSpec

    cfg = campaign_from_dict(quick_campaign(tmp_path, sweep={"extend_until_steady": {"max_s": 4}}))
    sweep = PointSpec("sweep", cfg.workload("randread-4k"), 1, 1)
    assert loop.extended(cfg, sweep, {"snia_steady": False, "runtime_s": 2}) == {}  # measured again at 4 s
    assert loop.extended(cfg, sweep, {"snia_steady": False, "runtime_s": 4}) == {
        "extended_runs_s": [1, 2, 4], "steady_rule": extension.SNIA_RULE, "extended_steady": False}
    assert loop.extended(cfg, PointSpec("probe", sweep.workload, 1, 1), {"snia_steady": True, "runtime_s": 1}) == {}
    curves = campaign_from_dict(quick_campaign(tmp_path, sweep={"plan": "rate-curve", "extend_until_steady": {"max_s": 4}}))
    assert loop.extended(curves, sweep, {"snia_steady": True, "runtime_s": 1}) == {}


def test_each_run_is_stored_once_with_its_columns(tmp_path, monkeypatch):
    """The measure loop stores the last run of an extended point with the extension's columns: no
    stored record is written again (fio: 1 s, then 2 s, never steady by a criterion it cannot meet)."""
    from flashpoc.core.store import CampaignStore

    saved, rewritten = [], []
    save_point = CampaignStore.save_point
    monkeypatch.setattr(CampaignStore, "save_point",
                        lambda self, phase, pid, *a, **k: saved.append((phase, pid)) or save_point(self, phase, pid, *a, **k))
    monkeypatch.setattr(CampaignStore, "annotate_point", lambda self, *a: rewritten.append(a))
    cfg, row = fio_point(tmp_path, {"runtime_s": 1, "steadystate": "iops:0.0001%", "ss_dur_s": 2}, max_s=2)
    assert row["extended_runs_s"] == [1, 2] and row["extended_steady"] is False and not rewritten
    sweep = [pid for phase, pid in saved if phase == "sweep"]
    assert len(sweep) == len(set(sweep)) == 2 and sweep[-1] == row["point_id"]
    stored = {r["point_id"]: r for r in CampaignStore(cfg.resolved().results_path()).load_points("sweep").to_dict("records")}
    assert pd.isna(stored[sweep[0]].get("extended_runs_s")) and stored[sweep[1]]["extended_runs_s"] == [1, 2]


def test_a_point_stored_before_extend_until_steady_was_set_gets_its_columns_when_the_sweep_reuses_it(tmp_path):
    """The sweep run again with the setting reuses its stored point (1 s: too few intervals for the
    SNIA rule, so no verdict and no longer run), and its stored record says so."""
    require_fio()
    values = quick_campaign(tmp_path, workloads=[{"name": "randread-4k", "rw": "randread", "bs": "4k"}],
                            sweep={"plan": "guide", "max_threads": 1, "step": 1})
    before = campaign_from_dict(values)
    phases.run_check(before)
    (first,) = phases.run_sweep(before, {"randread-4k": [1]}, progress=False).to_dict("records")
    assert "extended_runs_s" not in first
    cfg = campaign_from_dict({**values, "sweep": {**values["sweep"], "extend_until_steady": {"max_s": 4}}})
    phases.run_check(cfg)
    (row,) = phases.run_sweep(cfg, {"randread-4k": [1]}, progress=False).to_dict("records")
    assert row["point_id"] == first["point_id"] and row["reused"]
    assert (row["extended_runs_s"], row["extended_steady"]) == ([1], None) and row["steady_rule"].startswith("no verdict")
    stored = phases.load_results(cfg, "sweep").to_dict("records")
    assert [(r["point_id"], r["extended_runs_s"]) for r in stored] == [(first["point_id"], [1])]

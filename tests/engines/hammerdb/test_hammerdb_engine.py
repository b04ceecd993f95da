"""HammerDB as a registered engine (issue 21): its ``engine: {hammerdb: ...}`` block, its check rows
and the version the manifest records, and ``flashpoc parse hammerdb`` on the real recorded outputs
(PostgreSQL 15, tests/data/hammerdb) into the rows a point stores."""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest
from test_cli import run_cli

from conftest import TESTS
from flashpoc import engines
from flashpoc.engines.hammerdb.check import check_rows
from flashpoc.engines.hammerdb.settings import settings_from_dict
from flashpoc.core.errors import ParameterError
from flashpoc.params import campaign_from_dict

DATA = TESTS / "data" / "hammerdb"
SETTINGS = {"database": "postgresql", "password_env": "TPCC_PW", "superuser_password_env": "PG_PW", "warehouses": 1}


def campaign(**settings):
    return campaign_from_dict({"campaign": "oltp", "hosts": [{"name": "load1", "address": "localhost"}],
                               "engine": {"hammerdb": {**SETTINGS, **settings}}})


def test_the_engine_block_names_hammerdb_and_its_one_workload():
    cfg = campaign(rampup_minutes=0, duration_minutes=1)
    assert cfg.engine == "hammerdb" and cfg.engine_object is engines.get_engine("hammerdb")
    assert (cfg.settings.database, cfg.settings.warehouses, cfg.settings.duration_minutes) == ("postgresql", 1, 1)
    assert cfg.workload_names == ["tprocc"] and cfg.probe_workload.rw == "tproc-c"
    assert cfg.engine_object.threads_word == "virtual users"
    assert cfg.engine_object.point_seconds(cfg, cfg.engine_object.point_runtime_s(cfg)) == 60


@pytest.mark.parametrize("settings,message", [
    ({"warehouses": 0}, r"engine\.hammerdb\.warehouses: Input should be greater than or equal to 1"),
    ({"database": "mysql"}, r"engine\.hammerdb\.database: Input should be 'oracle' or 'postgresql'"),
    ({"rampup_minnutes": 1}, r"engine\.hammerdb\.rampup_minnutes: unknown key"),
    ({"database": "oracle"}, r"engine\.hammerdb\.service: required key is missing"),
])
def test_bad_settings_are_one_line_naming_the_key(settings, message):
    with pytest.raises(ParameterError, match=message) as error:
        campaign(**settings)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("key", ["password", "superuser_password", "pg_pass"])
def test_a_password_in_the_file_is_refused_without_showing_it(key):
    with pytest.raises(ParameterError, match=rf"engine\.hammerdb\.{key}: no password in the parameters") as error:
        campaign(**{key: "Secr3t-value"})
    assert "Secr3t" not in str(error.value)
    with pytest.raises(ParameterError, match=r"engine\.hammerdb\.password_env: give the NAME") as error:
        campaign(password_env="Secr3t value!")
    assert "Secr3t" not in str(error.value)


def test_workloads_are_refused_with_hammerdb():
    with pytest.raises(ParameterError, match=r"workloads: with engine hammerdb the workload is HammerDB's TPROC-C"):
        campaign_from_dict({"campaign": "oltp", "hosts": [{"name": "load1", "address": "localhost"}],
                            "engine": {"hammerdb": SETTINGS}, "workloads": [{"name": "x", "rw": "randread"}]})


#: the facts the check script printed on the real HammerDB 6.0 / PostgreSQL 15 (test_hammerdb_real)
FACTS = {"tcl": "9.0.1", "hammerdb": "v6.0", "driver": "Pgtcl 2.1.1", "connect": "ok", "version": "15.20",
         "database": "1", "warehouses": "1"}


def test_check_rows_and_the_version_the_manifest_records():
    s = settings_from_dict(SETTINGS)
    rows = check_rows(s, "load1", FACTS)
    assert [(r["check"], r["value"], r["status"]) for r in rows] == [
        ("HammerDB", "v6.0", "pass"), ("database", "15.20", "pass"), ("TPROC-C schema", "1 warehouses", "pass")]
    engine = engines.get_engine("hammerdb")
    assert engine.check_versions(pd.DataFrame(rows)) == {"load1": "v6.0"}
    wrong = check_rows(s.model_copy(update={"warehouses": 2}), "load1", FACTS)
    assert wrong[-1]["status"] == "fail" and "has 1 warehouses; the settings say warehouses: 2" in wrong[-1]["detail"]
    refused = check_rows(s, "load1", {k: v for k, v in FACTS.items() if k not in ("connect", "version", "database",
                                                                                  "warehouses")}
                         | {"connect_error": "password authentication failed for user \"postgres\""})
    assert [(r["check"], r["status"]) for r in refused] == [("HammerDB", "pass"), ("database", "fail")]
    assert "cannot connect to 127.0.0.1:5432 as postgres: password authentication failed" in refused[-1]["detail"]
    absent = check_rows(s, "load1", {})
    assert [(r["check"], r["status"]) for r in absent] == [("HammerDB", "fail")]
    assert engine.check_versions(pd.DataFrame(absent)) == {}


def test_parse_hammerdb_directory_into_the_point_row(capsys):
    code, out, _ = run_cli(capsys, "parse", "hammerdb", str(DATA / "sweep_4vu"), "--format", "json")
    whole = json.loads(out)
    row = whole["metrics"]
    assert code == 0 and (whole["nopm"], whole["tpm"], whole["virtual_users"]) == (6594, 15260, 4)
    # TEST RESULT and the time profile's SUMMARY OF 4 ACTIVE VIRTUAL USERS, as printed
    assert (row["nopm"], row["tpm"], row["virtual_users"], row["jobid"]) == (6594, 15260, 4, "6B049C9C1EB203E203832333")
    assert (row["neword_calls"], row["neword_p50_ms"], row["neword_p95_ms"], row["neword_p99_ms"]) == (
        16898, 9.623, 35.172, 82.737)
    assert (row["payment_p95_ms"], row["delivery_max_ms"], row["ostat_avg_ms"]) == (35.199, 282.804, 2.48)
    # the timed test as the virtual-user log stamps it: 20:06:48 to 20:07:49; six counter samples in it
    assert (row["test_start"], row["test_end"], row["test_s"]) == ("2026-11-23T20:06:48", "2026-11-23T20:07:49", 61.0)
    counted = [i["tpm"] for i in whole["intervals"] if i["counted"]]
    assert counted == [21450, 17196, 18444, 12408, 9126, 12924] and row["intervals"] == 6
    assert row["interval_steady"] is False and row["interval_tpm_drift_pct"] < -25
    assert len(whole["intervals"]) == 14 and whole["intervals"][1] == {
        "point_id": "", "second": 10.0, "time": "2026-11-23 20:05:58", "tpm": 21978, "counted": False}


def test_parse_hammerdb_one_log_and_a_table(capsys):
    log = DATA / "sweep_1vu" / "hammerdb_6B049B94EF6003E213237323.log"
    code, out, _ = run_cli(capsys, "parse", "hammerdb", str(log), "--format", "json")
    row = json.loads(out)["metrics"]
    assert code == 0 and (row["nopm"], row["tpm"], row["virtual_users"]) == (11088, 25984, 1)
    assert row["intervals"] == 0 and row["interval_steady"] is None  # a log alone has no counter series
    code, out, _ = run_cli(capsys, "parse", "hammerdb", str(DATA / "timed_2vu"))
    assert code == 0 and "NEWORD p95 (ms)" in out and "5,533" in out and "19.915" in out


def test_parse_hammerdb_refuses_a_failed_run_and_what_is_not_a_run(capsys, tmp_path):
    code, out, err = run_cli(capsys, "parse", "hammerdb", str(DATA / "failed_password"))
    assert code == 2 and out == "" and err.startswith("flashpoc: error: the run failed: HammerDB virtual users")
    assert "password authentication failed" in err and "Traceback" not in err
    code, _, err = run_cli(capsys, "parse", "hammerdb", str(tmp_path / "missing"))
    assert code == 2 and "cannot read" in err and err.count("\n") == 1
    cut = tmp_path / "cut"
    shutil.copytree(DATA / "sweep_4vu", cut)
    log = cut / "hammerdb_6B049C9C1EB203E223734353.log"
    log.write_text(log.read_text().replace("6594 NOPM from 15260", "6595 NOPM from 15260"))
    code, out, err = run_cli(capsys, "parse", "hammerdb", str(cut))  # a changed number is refused, not chosen
    assert code == 2 and out == "" and "the sources disagree on the NOPM" in err


def _recorded_rows(cfg, users=(1, 2, 4)):
    """Probe rows as the engine stores them, with the recorded runs' metrics (1, 2 and 4 virtual users)."""
    from flashpoc.engines.hammerdb.engine import TPROCC
    from flashpoc.engines.hammerdb.metrics import read_run
    from flashpoc.analysis.rows import base_row

    rows = []
    for n in users:
        row = base_row(cfg, phase="probe", point_id=f"tprocc_t{n:05d}", engine="hammerdb", workload=TPROCC, iodepth=1,
                       threads=n, outstanding=n, hosts=["load1"], runtime_s=60, ramp_s=60, repeat=0, wall_s=130.0)
        rows.append(row | read_run(DATA / f"sweep_{n}vu")[1])
    return rows


def test_the_probe_looks_for_the_nopm_plateau_in_virtual_users():
    from flashpoc import analysis
    from flashpoc.campaign.probe import summarize_probe

    cfg = campaign_from_dict({"campaign": "oltp", "hosts": [{"name": "load1", "address": "localhost"}],
                              "engine": {"hammerdb": SETTINGS},
                              "probe": {"strategy": "linear", "max_threads": 4, "host_scaling": False}})
    result = summarize_probe(cfg, _recorded_rows(cfg))
    assert [(p["threads"], p["nopm"], p["neword_p95_ms"]) for p in result["points"]] == [
        (1, 11088, 8.804), (2, 9341, 11.331), (4, 6594, 35.172)]  # TEST RESULT and the xtprof summaries
    expected = analysis.find_saturation([analysis.Point(1, 11088, 8.804, 1), analysis.Point(2, 9341, 11.331, 2),
                                         analysis.Point(4, 6594, 35.172, 4)], gain_pct=cfg.probe.gain_pct)
    assert result["saturation"]["threads"] == expected.threads == 1
    assert (result["rate"], result["rate_word"], result["threads_word"]) == ("nopm", "NOPM", "virtual users")
    assert result["answer"].startswith(f"NOPM stop rising and reach 95% of the most measured at 1 virtual user, "
                                       f"118.7% of the plateau (90% interval 62.0-175.4%): a plateau of "
                                       f"{expected.max_iops:,.0f} NOPM")  # 11,088 over the median, 9,341
    assert "IOPS" not in result["answer"] and " threads" not in result["answer"]
    assert result["host_limit"] is None  # the hosts-or-array verdict weighs I/O per host: none for NOPM
    two = summarize_probe(cfg, _recorded_rows(cfg, (1, 2)))  # too few counts for an answer: still no I/O verdict
    assert two["saturation"]["threads"] is None and two["host_limit"] is None
    assert two["answer"].startswith("No saturation found: Only 2 distinct counts of virtual users measured (1, 2); at least 3 "
                                    "are needed to locate an NOPM plateau")

"""HammerDB's fixed-work driver (issue 29, "The Pure seed's method"): every virtual user a number
of iterations of a number of transactions with user and repeat delays, the test completion time
the point's headline, beside the database's CPU, IOPS, MB/s and latencies (Oracle, AWR) and its
improvement between configurations.

On two real recorded fixed works of HammerDB 6.0's test driver against PostgreSQL 15
(tests/data/hammerdb/fixedwork_sync_{on,off}_2vu: 2 virtual users, 1 iteration of 300
transactions, 500 ms delays; synchronous_commit on and off). No Oracle database runs here: an
Oracle campaign runs through HammerDB's hammerdbcli REPLAY DOUBLE, serving the PostgreSQL
recording (the test driver prints the same lines on Oracle), and the Oracle REPLAY DOUBLE, serving
a real recorded AWR interval (snapshots 47-48 of a 19c RAC instance) for the snapshots flashpoc
takes around the work. The real HammerDB runs one in tests/engines/hammerdb/test_hammerdb_failures_real.py."""

from __future__ import annotations

import re
import sys

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import TESTS
sys.path.insert(0, str(TESTS / "replay"))
import hammerdb_replay  # noqa: E402
from damage import assert_loses_never_changes, damage_files  # noqa: E402
from oracle_replay import ReplayDatabase  # noqa: E402

from flashpoc.engines.hammerdb.compare import comparison_table  # noqa: E402
from flashpoc.engines.hammerdb.fixedwork import fixed_work_files  # noqa: E402
from flashpoc.engines.hammerdb.parse import read_files  # noqa: E402
from flashpoc.engines.hammerdb.plan import run_script  # noqa: E402
from flashpoc.engines.hammerdb.report import points_table  # noqa: E402
from flashpoc.engines.hammerdb.settings import settings_from_dict  # noqa: E402
from flashpoc.core.errors import ParameterError, ParseError  # noqa: E402
from flashpoc.params import campaign_from_dict  # noqa: E402
from flashpoc.phases import open_campaign  # noqa: E402
from flashpoc.oracle import db as oracle  # noqa: E402

DATA = TESTS / "data" / "hammerdb"
ON, OFF = DATA / "fixedwork_sync_on_2vu", DATA / "fixedwork_sync_off_2vu"
AWR = TESTS / "data" / "oracle"
WORK = {"driver": "test", "total_iterations": 300, "iterations": 1, "user_delay_ms": 500, "repeat_delay_ms": 500}
KINDS = {"new order": "neword", "payment": "payment", "delivery": "delivery", "stock level": "slev",
         "order status": "ostat"}


def test_a_recorded_fixed_work_read_as_printed():
    files = read_files(ON)
    row = fixed_work_files(files, 2)
    (elapsed,) = re.findall(r"^@@flashpoc elapsed_ms (\d+)$", files["console.txt"], re.M)
    assert row["completion_s"] == int(elapsed) / 1000 == 4.011  # vurun as the script timed it
    assert (row["virtual_users"], row["iterations"], row["transactions_per_iteration"]) == (2, 1, 300)
    log = next(t for n, t in files.items() if n.startswith("hammerdb_"))
    for kind, column in KINDS.items():  # each kind line of the log, the work done
        assert row[f"{column}_calls"] == len(re.findall(rf"^Vuser \d:{kind}$", log, re.M))
    assert row["transactions"] == 600 == 2 * 1 * 300 and row["errors"] == 0
    assert row["nopm"] == pytest.approx(row["neword_calls"] / 4.011 * 60) and row["tpm"] == pytest.approx(600 / 4.011 * 60)
    stamps = re.findall(r"^Timestamp \d @ (.+)$", log, re.M)
    assert (row["test_start"], row["test_end"]) == ("2026-11-27T14:31:10", "2026-11-27T14:31:13")
    assert stamps[0].startswith("Fri Nov 27 14:31:10") and stamps[-1].startswith("Fri Nov 27 14:31:13")
    assert row["host_cpu_busy_pct"] == 100.0 and not row.get("damaged")


@pytest.mark.parametrize("change,why", [
    (lambda f: {**f, "console.txt": f["console.txt"].replace("@@flashpoc elapsed_ms 4011\n", "")},
     "no completion time"),
    (lambda f: {**f, "console.txt": f["console.txt"].replace("@@flashpoc elapsed_ms 4011", "@@flashpoc elapsed_ms 1011")},
     "spans 3 s, more than the completion time 1.011 s"),
    (lambda f: {n: (t.replace("Vuser 2:payment\n", "Vuser 2:paym\n", 1) if n.startswith("hammerdb_") else t)
                for n, t in f.items()}, "disagree on the transactions done"),
    (lambda f: {**f, "console.txt": f["console.txt"].replace("Vuser 2:FINISHED SUCCESS", "Vuser 2:FINISHED FAILED")},
     "the run failed: HammerDB virtual users 2 FINISHED FAILED")])
def test_a_fixed_work_that_does_not_add_up_is_refused(change, why):
    with pytest.raises(ParseError, match=why):
        fixed_work_files(change(read_files(ON)), 2)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_damaged_fixed_works_lose_numbers_never_change_them(data):
    folder = data.draw(st.sampled_from([ON, OFF]), label="run")
    files = read_files(folder)
    clean = fixed_work_files(files, 2)
    damaged, name, _ = damage_files(data, files)
    assert_loses_never_changes(lambda: fixed_work_files(damaged, 2), clean, name)


def _settings(**changes):
    return settings_from_dict({"database": "postgresql", "password_env": "P", "superuser_password_env": "S",
                               "warehouses": 1, **WORK, **changes})


def test_the_fixed_work_settings_and_script():
    script = run_script(_settings(), 96)
    for line in ("diset tpcc pg_driver test", "diset tpcc pg_total_iterations 300", "vuset iterations 1",
                 "vuset delay 500", "vuset repeat 500", "vuset vu 96", "diset tpcc pg_allwarehouse false",
                 "diset tpcc pg_timeprofile false", "set flashpoc_ran [ vurun ]"):
        assert line in script.splitlines()
    assert "pg_rampup" not in script and "pg_duration" not in script and "flashpoc::answers" not in script
    assert 'puts "@@flashpoc elapsed_ms [ expr { [ clock milliseconds ] - $flashpoc_t0 } ]"' in script
    ora = run_script(_settings(database="oracle", service="db1:1521/pdb1"), 4)
    assert "diset tpcc ora_driver test" in ora and "diset tpcc raiseerror true" in ora
    for values, key in (({"total_iterations": None}, "total_iterations"), ({"duration_minutes": 2}, "duration_minutes"),
                        ({"time_profile": True}, "time_profile"), ({"all_warehouses": True}, "all_warehouses"),
                        ({"driver": "timed", "iterations": 10}, "iterations")):
        given = {**WORK, **values}
        with pytest.raises(ParameterError, match=rf"hammerdb\.{key}: "):
            settings_from_dict({"database": "postgresql", "password_env": "P", "superuser_password_env": "S",
                                "warehouses": 1, **{k: v for k, v in given.items() if v is not None}})


def _campaign(tmp_path, recorded, *, hosts=("load1",), **engine):
    home = hammerdb_replay.install(tmp_path / "HammerDB", sys.executable, {2: recorded})
    port = int(re.search(r"^diset connection pg_port (\d+)$", (DATA / recorded / "script.tcl").read_text(),
                         re.M).group(1))
    values = {"database": "postgresql", **engine}
    if values["database"] == "postgresql":  # Oracle connects to its service: host and port are refused there
        values.update(host="127.0.0.1", port=port)
    return campaign_from_dict({
        "campaign": "fixed", "results_dir": str(tmp_path / "results"),
        "hosts": [{"name": h, "address": "localhost", "workdir": str(tmp_path / h)} for h in hosts],
        "engine": {"hammerdb": {"hammerdb_dir": str(home), "password_env": "TPCC_PW", "superuser_password_env": "PG_PW",
                                "warehouses": 1, **WORK, **values}},
        "probe": {"strategy": "linear", "min_threads": 2, "max_threads": 2, "step": 1},
        **({"oracle": {"dsn": "db1:1521/p30sdb", "user": "system"}} if values["database"] == "oracle" else {})})


def _measure(cfg) -> dict:
    with open_campaign(cfg) as wb:
        return cfg.engine_object.measure_point(wb, "probe", cfg.probe_workload, 2, runtime_s=60)


def test_an_oracle_fixed_work_with_awr_between_flashpocs_snapshots(tmp_path, monkeypatch):
    db = ReplayDatabase(AWR / "facts_slob19c_rac2node.json", AWR / "awr_rows_slob19c_rac2node_inst2_snap47_48.json")
    monkeypatch.setattr(oracle, "connect", db.connect)
    monkeypatch.setenv("FLASHPOC_ORACLE_PASSWORD", "replay-only")
    cfg = _campaign(tmp_path, "fixedwork_sync_on_2vu", database="oracle", service="db1:1521/p30sdb")
    row = _measure(cfg)
    assert (row["completion_s"], row["transactions"], row["threads"]) == (4.011, 600, 2)
    # the AWR report of snapshots 47-48 of instance 2 prints Read IO requests 29,792.8/s, Write IO
    # requests 3,118.2/s, Read IO (MB) 232.8/s, log file parallel write 18.79 ms, Host CPU %Idle 83.0
    assert (row["awr_begin_snap"], row["awr_end_snap"], row["awr_instance_number"]) == (47, 48, 2)
    assert (round(row["read_iops"], 1), round(row["write_iops"], 1), round(row["read_mibps"], 1)) == (
        29792.8, 3118.2, 232.8)
    assert round(row["log_file_parallel_write_avg_wait_us"] / 1000, 2) == 18.79
    assert round(row["db_host_cpu_busy_pct"], 1) == 17.0  # the database host's, from AWR
    # the load host's: the run command sampled this machine now, not when the recording ran: lost, named
    assert row["host_cpu_busy_pct"] is None and row["damaged"].startswith("hostcpu.log: its samples do not span")
    assert [name for name, _ in db.queries].count("create_snapshot") == 2
    point = cfg.results_path() / "points" / "probe" / row["point_id"]
    assert (point / "awr_rows.json").is_file() and "diset tpcc ora_driver test" in (point / "script.tcl").read_text()


def test_two_load_hosts_a_fixed_work_ends_with_the_last(tmp_path):
    row = _measure(_campaign(tmp_path, "fixedwork_sync_on_2vu", hosts=("load1", "load2")))
    assert (row["completion_s"], row["virtual_users"], row["transactions"]) == (4.011, 4, 1200)
    assert {h: p["completion_s"] for h, p in row["per_host"].items()} == {"load1": 4.011, "load2": 4.011}


def test_the_improvement_between_configurations():
    """Two configurations' fixed works: the completion time at equal virtual users, and its change."""
    rows = [{**fixed_work_files(read_files(folder), 2), "threads": 2, "workload": "tprocc", "config": config}
            for config, folder in (("sync on", ON), ("sync off", OFF))]
    points = pd.DataFrame(rows)
    table = comparison_table(points)
    at = table[(table["at"] == "2 virtual users")].set_index("metric")
    completion = at.loc["Test completion time (fixed work)"]
    assert (completion["baseline_value"], completion["config_value"]) == (4.011, 6.062)
    assert completion["delta_pct"] == pytest.approx((6.062 - 4.011) / 4.011 * 100) and completion["unit"] == "s"
    assert completion["better"] in ("sync on", "within noise")
    assert not table["at"].str.endswith("NOPM").any() or "Test completion time (fixed work)" not in set(
        table[table["at"].str.endswith("NOPM")]["metric"])
    shown = points_table(points)
    assert list(shown["Completion time (s)"]) == ["6.1", "4.0"] and list(shown["Transactions"]) == ["600", "600"]


def test_a_fixed_work_campaign_probe_sweep_and_report(tmp_path):
    """A campaign of fixed works through the probe, the sweep and the report (1 and 2 virtual
    users, the recordings at each): the probe weighs NOPM and the completion time, the report's
    headline is the shortest completion time, its chart the completion time against virtual users."""
    from flashpoc import phases
    from flashpoc.present import reporting

    cfg = _campaign(tmp_path, "fixedwork_sync_on_2vu")
    hammerdb_replay.install(tmp_path / "HammerDB", sys.executable, {1: "fixedwork_sync_on_1vu", 2: "fixedwork_sync_on_2vu"})
    cfg = campaign_from_dict({**cfg.model_dump(mode="json", exclude={"workloads"}),
                              "probe": {"strategy": "linear", "min_threads": 1, "max_threads": 2, "step": 1}})
    with open_campaign(cfg) as wb:  # the check's verdict as stored: the replay double is no database to check
        wb.store.write_json("check.json", {"params_hash": cfg.params_hash(), "verdict": "pass"})
    probe = phases.run_probe(cfg, progress=False)
    assert [(p["threads"], f"{p['nopm']:.1f}") for p in probe["points"]] == [(1, "1240.0"), (2, "3964.1")]
    rows = phases.run_sweep(cfg, {"tprocc": [1, 2]}, progress=False)
    assert list(rows["completion_s"]) == [6.532, 4.011] and list(rows["transactions"]) == [300, 600]
    report = reporting.build_report(cfg, pdf=False)
    assert "The shortest test completion time: 4.0 s at 2 virtual users (600 transactions, 0 error lines)" in \
        report.headline
    assert "completion_vs_users" in report.charts and (cfg.results_path() / "report" / "completion_vs_users.svg").is_file()
    assert "Test completion time (s)" in (cfg.results_path() / "report" / "report.html").read_text()

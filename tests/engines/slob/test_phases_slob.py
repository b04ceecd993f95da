"""The phases with engine: slob, against the SLOB runit.sh REPLAY DOUBLE.

SLOB and an Oracle server cannot run here. The double (tests/replay/slob_replay.py) is the
runit.sh of a scratch SLOB directory: it checks ``-s``/``-t`` and ./slob.conf against what
is known of the recorded runs and copies their real files (tests/data/slob/...: 19c
two-node RAC, 256 schemas, 1 thread, WORK_UNIT 4, UPDATE_PCT 10; tests/data/awr/...: a
12.2 single-instance SLOB run with UPDATE_PCT 0) where runit.sh leaves them. The shell
script around it, the file moves, the fetch and the parsing all run for real, locally
and through a real sshd.
"""

from __future__ import annotations

import json
import os
import sys
import threading

import pandas as pd
import pytest

from conftest import DATA, TESTS, assert_secret_absent
from documents import html_chart_text_pt, summary_problems
from ssh_server import free_port
from flashpoc import phases
from flashpoc.present import summary
from flashpoc.engines.slob.check import check_slob
from flashpoc.core.errors import CheckFailed, ParameterError, RemoteError
from flashpoc.params import campaign_from_dict

sys.path.insert(0, str(TESTS / "replay"))
import slob_replay  # noqa: E402

RAC = "19c-rac-s256-t1-wu4-update10"
SINGLE = "12.2-single-update0"
RAC_DIR = DATA / "slob" / "slob2.5_19c_rac2node_s256_t1_wu4_update10"
SECRET = "Dnfs-Sampler-Secret-77!"  # a test password that must never be stored


def slob_campaign(tmp_path, by_threads, host=None, hold=None, cut=None, **overrides):
    home = slob_replay.install(tmp_path / "SLOB", sys.executable, by_threads, hold=hold, cut=cut)
    values = {
        "campaign": "slob",
        "engine": "slob",
        "hosts": [host or {"name": "db1", "address": "localhost", "workdir": str(tmp_path / "work")}],
        "slob": {"home": str(home), "env_file": str(home / "slob.env"), "schemas": 256, "scale": "32768",
                 "run_time_s": 360,
                 "workloads": [{"name": "slob-9010", "update_pct": 10, "work_unit": 4},
                               {"name": "slob-read", "update_pct": 0}]},
        "probe": {"workload": "slob-read", "strategy": "linear", "min_threads": 1, "max_threads": 2, "step": 1},
        "results_dir": str(tmp_path / "results"),
    }
    values.update(overrides)
    return campaign_from_dict(values), home


def test_check_probe_sweep_and_report_on_slob(tmp_path):
    cfg, home = slob_campaign(tmp_path, {1: [RAC, SINGLE], 2: [SINGLE]})
    (home / "slob.conf").write_text("UPDATE_PCT=25\n")  # the DBA's own file

    table = phases.run_check(cfg)
    checks = dict(zip(table["check"], table["status"]))
    assert checks["SLOB home"] == "pass" and checks["runit.sh"] == "pass" and checks["sqlplus"] == "pass"
    assert checks["database"] == "warn"  # no oracle: connection given
    assert "fio" not in checks
    data_set = table[table["check"] == "SLOB data set"].iloc[0]
    assert data_set["value"] == 256 * 32768 * 8192 and "64.0 GiB" in data_set["detail"]
    cache = table[table["check"] == "working set vs array cache"]  # SLOB's data set, said once
    assert len(cache) == 1 and cache.iloc[0]["status"] == "warn"
    assert cache.iloc[0]["detail"].startswith("no array_cache given and the working set (64 GiB) is under 1 TB")

    probe = phases.run_probe(cfg, progress=False)
    assert [p["threads"] for p in probe["points"]] == [1, 2]
    assert [p["outstanding_ios"] for p in probe["points"]] == [256, 512]  # sessions = schemas x threads
    assert (home / "slob.conf.before-flashpoc").read_text() == "UPDATE_PCT=25\n"
    calls = [json.loads(line) for line in (home / "replay-calls.log").read_text().splitlines()]
    assert [c["argv"] for c in calls] == [["-s", "256", "-t", "1"], ["-s", "256", "-t", "2"]]
    assert "THREADS_PER_SCHEMA=2" in calls[1]["slob.conf"] and "UPDATE_PCT=0" in calls[1]["slob.conf"]
    assert not (home / "awr.html").exists()  # the run's files were moved to the point's directory

    point_dirs = sorted((tmp_path / "results" / "slob" / "points" / "probe").iterdir())
    assert len(point_dirs) == 2
    stored = point_dirs[0]
    assert (stored / "awr.html").read_bytes() == (DATA / "awr" / "12.2.0.1_slob_update0_single_awr.html").read_bytes()
    assert "THREADS_PER_SCHEMA=1" in (stored / "slob.conf").read_text()

    rows = phases.run_sweep(cfg, {"slob-9010": [1], "slob-read": [1, 2]}, progress=False)
    assert list(rows["workload"]) == ["slob-9010", "slob-read", "slob-read"]
    assert not rows["reused"].any()  # probe points are not sweep points
    rac = rows.iloc[0]
    # the RAC global report's System Statistics (Global), per Second: the cluster's IOPS
    assert rac["read_iops"] == 60656.2 and rac["write_iops"] == 6373.4
    assert rac["iops"] == pytest.approx(67029.6)
    assert rac["lat_mean_ms"] == pytest.approx(0.50672)  # db file sequential read 506.72us (global)
    assert rac["redo_write_lat_ms"] == pytest.approx(22.52)  # log file parallel write 22.52ms (global)
    assert rac["dbwr_write_lat_ms"] == pytest.approx(11.07)  # db file parallel write 11.07ms (global)
    assert rac["tm_s"] == 364  # tm.out
    assert rac["scope"] == "cluster" and rac["schemas"] == 256 and rac["sessions"] == 256
    # the run's binary file came back intact
    rac_dir = next((tmp_path / "results" / "slob" / "points" / "sweep").glob("slob-9010_t00001_*"))
    assert (rac_dir / "awr.html.gz").read_bytes() == (RAC_DIR / "awr.html.gz").read_bytes()
    # the time series: iostat.out's 3 s reports of the sd* disks; the AWR window opens at 09:26:07
    intervals = pd.read_csv(rac_dir / "intervals.csv")
    first = intervals[~intervals["warmup"]].iloc[0]  # the report stamped 09:26:10
    assert (round(first["read_iops"], 2), round(first["write_iops"], 2)) == (42440.33, 13072.68)  # sums of the printed r/s, w/s
    assert intervals["warmup"].sum() == 15 and first["second"] == 48.0  # 09:25:22 - 3 s to 09:26:10
    assert rac["intervals"] == len(intervals) - 15 and rac["interval_steady"] is False
    # the SNIA PTS window over the same iostat series: 5 equal rounds of the latest measured reports
    measured = intervals.loc[~intervals["warmup"], "iops"].to_numpy(dtype=float)
    per = len(measured) // 5
    rounds = measured[len(measured) - 5 * per:].reshape(5, per).mean(axis=1)
    assert rac["snia_round_intervals"] == per and rac["snia_mean_iops"] == pytest.approx(rounds.mean())
    assert rac["snia_data_excursion_pct"] == pytest.approx((rounds.max() - rounds.min()) / rounds.mean() * 100)
    assert rac["snia_steady"] == (rac["snia_data_excursion_pct"] <= 20 and rac["snia_slope_excursion_pct"] <= 10)

    again = phases.run_sweep(cfg, {"slob-9010": [1], "slob-read": [1, 2]}, progress=False)
    assert again["reused"].all()

    # Instance Efficiency is not in the global report: the cluster's buffer hit from System Statistics (Global)
    assert (f"{rac['buffer_hit_pct']:.2f}", f"{rac['db_cpu_pct_of_db_time']:.1f}") == ("45.03", "8.8")

    report = phases.build_report(cfg)
    assert {"hockey_stick", "oracle_latency", "host_cpu", "db_cpu", "read_latency_shares",
            "interval_series", "oracle_write_latency", "db_time_shares", "wait_histogram"} <= set(report.charts)
    assert report.files["report.html"].exists()
    assert summary_problems(next(s for s in report.sections if s.key == "summary").items) == []
    sizes = html_chart_text_pt(report.files["report.html"].read_text())  # as printed: 8 pt or more
    assert len(sizes) >= len(report.charts) and min(sizes) >= 8.0, sizes
    # the read wait histogram per AWR bucket at each workload's detail point, from the reports stored with it
    bars = {(v["workload"], v["bucket"]): v["share_pct"] for v in _chart_values(report.charts["wait_histogram"])}
    # RAC: Wait Event Histogram (Global) of db file sequential read, <1us ... <512us added up to 81.7
    assert [bars["slob-9010", b] for b in ("<512us", "512us-1ms", "1-2ms", "2-4ms")] == [81.7, 11.8, 3.6, 1.8]
    # the 12.2 scan run reads by direct path read: "(up to 32 ms)" "6.1M 11.8 9.4 14.1 17.9 45.1 1.6 .0"
    assert [bars["slob-read", b] for b in ("<512us", "512us-1ms", "1-2ms", "2-4ms", "4-8ms", "8-16ms")] == [
        11.8, 9.4, 14.1, 17.9, 45.1, 1.6]
    writes = _chart_values(report.charts["oracle_write_latency"])
    redo = [v for v in writes if v["workload"] == "slob-9010" and v["event"] == "log file parallel write"]
    assert [(round(v["iops"], 1), v["latency_ms"]) for v in redo] == [(67029.6, pytest.approx(22.52))]
    html = report.files["report.html"].read_text()
    assert "% of DB time on DB CPU" in html and "storage (or another wait) sets the pace" in html
    summary = report.summary.set_index("workload")
    assert summary.loc["slob-9010", "max_iops"] == 67030


def test_a_runit_failure_names_the_host_and_point_and_stores_nothing(tmp_path):
    cfg, home = slob_campaign(tmp_path, {1: [RAC]}, probe={"workload": "slob-read", "strategy": "linear",
                                                           "min_threads": 1, "max_threads": 1})
    phases.run_check(cfg)
    with pytest.raises(RemoteError) as error:
        phases.run_probe(cfg, progress=False)
    message = str(error.value)
    assert message.startswith("db1: probe slob-read runit.sh -s 256 -t 1: runit.sh exited 1")
    assert "ran with WORK_UNIT=4, slob.conf says WORK_UNIT=64" in message  # the double's refusal (stderr)
    points = tmp_path / "results" / "slob" / "points"
    assert not list(points.glob("*/*/point.json"))
    (kept,) = (points / "failed").iterdir()  # the run's slob.conf and console kept, and named
    assert message.endswith(f" (the run's files: {kept})") and kept.name.startswith("probe-slob-read_t00001_")
    assert "WORK_UNIT=64" in (kept / "slob.conf").read_text()
    assert "ran with WORK_UNIT=4, slob.conf says WORK_UNIT=64" in (kept / "console.txt").read_text()


def test_the_check_fails_without_slob_or_sqlplus(tmp_path):
    cfg, home = slob_campaign(tmp_path, {1: [RAC]})
    (home / "runit.sh").unlink()
    (home / "slob.env").write_text("PATH=/usr/bin:/bin; export PATH\n")
    table = phases.run_check(cfg)
    failed = set(table[table["status"] == "fail"]["check"])
    assert failed == {"runit.sh", "sqlplus"}
    with pytest.raises(CheckFailed, match="environment check of slob failed"):
        phases.run_probe(cfg, progress=False)


def test_sysdba_password_variable_is_checked_without_reading_it(tmp_path, monkeypatch):
    monkeypatch.delenv("FLASHPOC_TEST_SYSDBA", raising=False)
    cfg, home = slob_campaign(tmp_path, {1: [RAC]})
    cfg = campaign_from_dict({**cfg.model_dump(mode="json", exclude={"workloads"}),
                              "engine": {"slob": {**cfg.settings.model_dump(mode="json"),
                                                         "sysdba_passwd_env": "FLASHPOC_TEST_SYSDBA"}}})
    rows = check_slob(cfg)
    row = next(r for r in rows if r["check"] == "SYSDBA password variable")
    assert row["status"] == "fail" and "export FLASHPOC_TEST_SYSDBA" in row["detail"]
    (home / "slob.env").write_text((home / "slob.env").read_text() + "FLASHPOC_TEST_SYSDBA='s3cret!'; export FLASHPOC_TEST_SYSDBA\n")
    rows = check_slob(cfg)
    row = next(r for r in rows if r["check"] == "SYSDBA password variable")
    assert row["status"] == "pass" and "s3cret" not in json.dumps(rows)


def test_slob_point_over_ssh(sshd, tmp_path):
    host = sshd.host_params("db1", workdir=str(tmp_path / "remote-work"))
    cfg, home = slob_campaign(tmp_path, {1: [RAC]}, host=host)
    phases.run_check(cfg)
    rows = phases.run_sweep(cfg, {"slob-9010": [1]}, progress=False)
    assert rows.loc[0, "read_iops"] == 60656.2 and rows.loc[0, "hosts"] == "db1"
    stored = next((tmp_path / "results" / "slob" / "points" / "sweep").iterdir())
    assert (stored / "awr.html.gz").read_bytes() == (RAC_DIR / "awr.html.gz").read_bytes()
    assert (stored / "mpstat.out").read_bytes() == (RAC_DIR / "mpstat.out").read_bytes()


def test_database_check_against_a_closed_port_fails_fast(tmp_path, monkeypatch):
    import time

    monkeypatch.setenv("FLASHPOC_ORACLE_PASSWORD", "not-used")
    port = free_port()
    cfg, _ = slob_campaign(tmp_path, {1: [RAC]}, oracle={"dsn": f"127.0.0.1:{port}/slobpdb", "user": "system",
                                                         "connect_timeout_s": 2})
    start = time.perf_counter()
    rows = check_slob(cfg)
    assert time.perf_counter() - start < 10
    row = next(r for r in rows if r["check"] == "database")
    assert row["status"] == "fail" and f"127.0.0.1:{port}/slobpdb" in row["detail"]
    assert "not-used" not in json.dumps(rows)


def test_flashpoc_run_executes_the_four_notebooks_on_slob(tmp_path):
    """`flashpoc run` on a SLOB parameters file: papermill runs check, probe, sweep and report
    against the runit.sh replay double; the report notebook shows the SLOB charts."""
    import re
    import subprocess

    import yaml

    cfg, home = slob_campaign(tmp_path, {1: [RAC, SINGLE], 2: [SINGLE]})
    values = cfg.model_dump(mode="json", exclude={"workloads", "fio", "vdbench", "targets"}, exclude_none=True)
    values["probe"] = {"workload": "slob-read", "strategy": "linear", "min_threads": 1, "max_threads": 2}
    values["sweep"] = {"plan": "guide", "max_threads": 1, "step": 1, "workloads": ["slob-9010"]}
    values["report"] = {"pdf": False}  # the PDF is read where it is tested (tests/report)
    values["engine"]["slob"]["sysdba_passwd_env"] = "FLASHPOC_SYSDBA_PASSWD"
    params = tmp_path / "slob.yaml"
    params.write_text(yaml.safe_dump(values))
    secret = "Sysdba-Secret-7731!"  # SYSDBA_PASSWD comes from the DB host's environment, never a file
    out = subprocess.run([sys.executable, "-m", "flashpoc.cli", "run", str(params)], capture_output=True,
                         text=True, timeout=900, env=dict(os.environ, FLASHPOC_SYSDBA_PASSWD=secret))
    assert out.returncode == 0, out.stderr[-3000:]
    results = tmp_path / "results" / "slob"
    # every produced artifact: executed notebooks and their HTML, point files, slob.conf, report
    assert assert_secret_absent(secret, results, out.stdout, out.stderr) > 40
    assert "${FLASHPOC_SYSDBA_PASSWD" in next(results.glob("points/sweep/*/slob.conf")).read_text()
    report_nb = json.loads((results / "notebooks" / "04_report.ipynb").read_text())
    text = json.dumps(report_nb)
    assert "67,030 IOPS" in text  # the headline: 60,656.2 + 6,373.4 (RAC global, per second)
    for name in ("oracle_latency", "host_cpu", "db_cpu", "read_latency_shares"):
        assert (results / "report" / f"{name}.svg").exists(), name
    assert "not a SLOB campaign" not in text
    html = (results / "notebooks" / "04_report.html").read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?https?://""", html)


def test_database_rows_of_the_check_from_recorded_facts(tmp_path):
    """The check's database rows, from the facts recorded for the 19c RAC SLOB run
    (tests/data/oracle/facts_slob19c_rac2node.json: 256 schemas of 32768 blocks)."""
    facts = json.loads((DATA / "oracle" / "facts_slob19c_rac2node.json").read_text())
    cfg, _ = slob_campaign(tmp_path, {1: [RAC]}, oracle={"dsn": "db1:1521/p30sdb", "user": "system"})
    rows = check_slob(cfg, oracle_facts=lambda params: facts)
    by_check = {r["check"]: r for r in rows}
    assert by_check["database"]["value"] == "19.0.0.0.0"
    assert by_check["slob schemas"]["value"] == "256 of 256" and by_check["slob schemas"]["status"] == "pass"
    assert by_check["statistics"]["status"] == "pass"
    assert by_check["buffer cache"]["status"] == "pass"  # 3.0 GiB sga_target, 4.7% of 64.0 GiB
    cfg, _ = slob_campaign(tmp_path, {1: [RAC]}, oracle={"dsn": "db1:1521/p30sdb", "user": "system"},
                           slob={**cfg.settings.model_dump(mode="json"), "schemas": 300})
    rows = check_slob(cfg, oracle_facts=lambda params: facts)
    assert next(r for r in rows if r["check"] == "slob schemas")["status"] == "fail"


def test_hostile_slob_paths_are_quoted_on_the_db_host(tmp_path, monkeypatch):
    """A SLOB home or environment file with shell syntax is a path, never a command."""
    monkeypatch.chdir(tmp_path)
    marker = tmp_path / "pwned"
    cfg, home = slob_campaign(tmp_path, {1: [RAC]})
    hostile = f"{home}; touch {marker} $(touch {marker}) `touch {marker}`"
    with pytest.raises(ParameterError, match=r"slob.home: .*shell syntax or spaces \(found space \$ \( \) ; `\)"):
        campaign_from_dict({**cfg.model_dump(mode="json", exclude={"workloads"}),
                            "engine": {"slob": {**cfg.settings.model_dump(mode="json"), "home": hostile, "env_file": hostile}}})
    # the parameters refuse it; past them (a value built in code), every command still quotes it
    cfg = cfg.model_copy(update={"settings": cfg.settings.model_copy(update={"home": hostile, "env_file": hostile})})
    rows = check_slob(cfg)
    assert next(r for r in rows if r["check"] == "SLOB home")["status"] == "fail"
    with pytest.raises(CheckFailed, match="SLOB home: no directory"):  # the check stops the sweep
        phases.run_sweep(cfg, {"slob-9010": [1]}, progress=False)
    from flashpoc.hosts.host import connect
    from flashpoc.engines.slob.run import run_slob

    with connect(cfg.db_host) as host, pytest.raises(RemoteError, match="no runit.sh in"):
        run_slob(host, "UPDATE_PCT=10\n", str(tmp_path / "run"), home=hostile, schemas=1, threads=1,
                 env_file=hostile, timeout_s=60, purpose="hostile")
    assert not marker.exists()


def test_awr_through_sql_around_each_point(tmp_path, monkeypatch):
    """With oracle: set, snapshots are taken through python-oracledb around runit.sh (the Oracle
    REPLAY DOUBLE serves the rows recorded from the same run's instance-2 AWR report), the
    DBA_HIST metrics come along as sql_* columns, and a run without a report uses them."""
    from flashpoc.oracle import db as oracle

    sys.path.insert(0, str(TESTS / "replay"))
    from oracle_replay import ReplayDatabase

    def database():
        return ReplayDatabase(DATA / "oracle" / "facts_slob19c_rac2node.json",
                              DATA / "oracle" / "awr_rows_slob19c_rac2node_inst2_snap47_48.json")

    db = database()
    monkeypatch.setattr(oracle, "connect", db.connect)
    cfg, home = slob_campaign(tmp_path, {1: [RAC]}, oracle={"dsn": "db1:1521/p30sdb", "user": "system"})
    row = phases.run_sweep(cfg, {"slob-9010": [1]}, progress=False).iloc[0]
    assert row["read_iops"] == 60656.2  # from the RAC global report
    assert round(row["sql_read_iops"], 1) == 29792.8  # instance 2 through DBA_HIST, as its report prints
    assert [q for q, _ in db.queries].count("create_snapshot") == 2
    stored = next((tmp_path / "results" / "slob" / "points" / "sweep").iterdir())
    assert (stored / "awr_rows.json").exists()

    db = database()
    monkeypatch.setattr(oracle, "connect", db.connect)
    cfg, home = slob_campaign(tmp_path / "b", {1: ["19c-rac-s256-t1-wu4-update10-no-report"]},
                              oracle={"dsn": "db1:1521/p30sdb", "user": "system"})
    row = phases.run_sweep(cfg, {"slob-9010": [1]}, progress=False).iloc[0]
    assert row["scope"] == "instance (DBA_HIST)"
    assert round(row["read_iops"], 1) == 29792.8 and round(row["write_iops"], 1) == 3118.2
    assert round(row["lat_mean_ms"] * 1000, 2) == 350.19  # foreground db file sequential read
    assert round(row["redo_write_lat_ms"], 2) == 18.79

    # no Diagnostics Pack: Statspack snapshots, and the STATS$ rows stand in for the missing report
    db = ReplayDatabase(DATA / "oracle" / "facts_slob19c_rac2node.json",
                        DATA / "oracle" / "awr_rows_slob19c_rac2node_inst2_snap47_48.json", pack_access="NONE")
    monkeypatch.setattr(oracle, "connect", db.connect)
    cfg, home = slob_campaign(tmp_path / "c", {1: ["19c-rac-s256-t1-wu4-update10-no-report"]},
                              oracle={"dsn": "db1:1521/p30sdb", "user": "system"})
    cfg = cfg.model_copy(update={"settings": cfg.settings.model_copy(update={"database_statistics_type": "statspack"})})
    row = phases.run_sweep(cfg, {"slob-9010": [1]}, progress=False).iloc[0]
    assert [q for q, _ in db.queries].count("statspack_snapshot") == 2
    assert row["scope"] == "instance (STATS$)" and row["sql_snapshots"] == "statspack"
    assert round(row["read_iops"], 1) == 29795.8  # 10,815,881 requests over STATS$SNAPSHOT's 363 s
    assert round(row["lat_mean_ms"] * 1000, 2) == 350.19


def _chart_values(chart) -> list[dict]:
    """Every data row of an altair chart's datasets."""
    return [row for rows in chart.to_dict()["datasets"].values() for row in rows]


def test_two_slob_campaigns_compared_in_the_report(tmp_path):
    """A SLOB campaign compared with another: the other's parameters are read back from its
    manifest.json (written by its check), and its points are those of these parameters."""
    results = str(tmp_path / "results")
    cfg_b, _ = slob_campaign(tmp_path / "b", {1: [RAC]}, campaign="slob-b", results_dir=results)
    cfg_a, _ = slob_campaign(tmp_path / "a", {1: [RAC]}, campaign="slob-a", results_dir=results,
                             report={"label": "A", "compare": [{"campaign": "slob-b", "label": "B"}]})
    for cfg in (cfg_b, cfg_a):
        phases.run_check(cfg)
        phases.run_sweep(cfg, {"slob-9010": [1]}, progress=False)
    report = phases.build_report(cfg_a)
    assert report.configs == ["A", "B"]
    row = report.comparison[report.comparison["metric"] == "max IOPS"].iloc[0]
    # both replay the same RAC run: 60,656.2 + 6,373.4 physical IO requests per second
    assert (row["workload"], row["baseline_value"], row["config_value"]) == ("slob-9010", pytest.approx(67029.6),
                                                                             pytest.approx(67029.6))
    assert row["delta_pct"] == 0
    assert report.files["comparison.csv"].is_file()
    # the read wait histogram keeps the configurations apart: one bar per configuration and bucket
    bars = [(v["config"], v["bucket"], v["share_pct"]) for v in _chart_values(report.charts["wait_histogram"])]
    assert [b for b in bars if b[1] == "<512us"] == [("A", "<512us", 81.7), ("B", "<512us", 81.7)]
    assert len(bars) == 2 * 8
    manifest = json.loads((tmp_path / "results" / "slob-b" / "manifest.json").read_text())
    assert "workloads" not in manifest["params"] and manifest["params"]["engine"]["slob"]["workloads"][0]["name"] == "slob-9010"


def test_calibrate_io_of_the_check_is_shown_next_to_the_slob_results(tmp_path, monkeypatch):
    """oracle.calibrate_io: the check runs CALIBRATE_IO (the replay double answers with a public 18c
    run, tests/data/oracle/README.md), the manifest keeps it and the report shows it with the SLOB
    latencies and in its conditions."""
    from flashpoc.oracle import db as oracle

    sys.path.insert(0, str(TESTS / "replay"))
    from oracle_replay import ReplayDatabase

    db = ReplayDatabase(DATA / "oracle" / "facts_slob19c_rac2node.json",
                        DATA / "oracle" / "awr_rows_slob19c_rac2node_inst2_snap47_48.json",
                        calibrate_io_file=DATA / "oracle" / "calibrate_io_dbwhisperer_18c.json")
    monkeypatch.setattr(oracle, "connect", db.connect)
    cfg, _ = slob_campaign(tmp_path, {1: [RAC]}, oracle={"dsn": "db1:1521/p30sdb", "user": "system",
                                                         "calibrate_io": {"num_physical_disks": 1,
                                                                          "max_latency_ms": 20}})
    table = phases.run_check(cfg)
    row = table[table["check"] == "calibrate_io"].iloc[0]
    assert (row["value"], row["status"]) == (154, "pass")
    phases.run_sweep(cfg, {"slob-9010": [1]}, progress=False)
    report = phases.build_report(cfg)
    html = report.files["report.html"].read_text()
    text = "max 154 IOPS, 18,579 MB/s, latency 19 ms (num_physical_disks 1, max_latency 20 ms)"
    assert html.count(text) == 2  # the conditions, and next to the SLOB latencies
    assert html.index("CALIBRATE_IO</strong> (<code>DBMS_RESOURCE_MANAGER.CALIBRATE_IO</code>") > html.index(
        "Results: latency percentiles")
def test_a_dnfs_point_samples_the_nfs_counters_and_keeps_no_disk_series(tmp_path):
    """database.datafiles: dnfs. The point samples this machine's real /proc/self/mountstats while the
    replayed runit.sh runs (stored as mountstats.out); the run's iostat.out (the local disks) does
    not become its time series, and the row says why. The check's datafiles row reads the real
    mounts (this machine has no NFS mount: a warning, Direct NFS needs one)."""
    cfg, home = slob_campaign(tmp_path, {1: [RAC]})
    cfg = campaign_from_dict({**cfg.model_dump(mode="json", exclude={"workloads"}), "database": {"datafiles": "dnfs"}})
    table = phases.run_check(cfg)
    row = table[table["check"] == "datafiles"].iloc[0]
    assert row["status"] == "warn" and "Direct NFS" in row["detail"]
    rows = phases.run_sweep(cfg, {"slob-9010": [1]}, progress=False)
    assert rows.loc[0, "read_iops"] == 60656.2  # the AWR report's, as on local disks
    assert "Direct NFS" in rows.loc[0, "intervals_source"]
    stored = next((tmp_path / "results" / "slob" / "points" / "sweep").iterdir())
    assert (stored / "iostat.out").exists() and not (stored / "intervals.csv").exists()
    assert (stored / "mountstats.out").read_text().startswith("@@flashpoc mountstats ")
    # its series would be the database's own counters, which need oracle: (it says so in one line)
    assert rows.loc[0, "intervals_error"] == ("a Direct NFS point's time series is the database's own counters, "
                                              "sampled through python-oracledb: set oracle: (no dbstat.json)")
    assert not (stored / "dbstat.json").exists()


def dnfs_point(tmp_path, monkeypatch, run=RAC, statspack=False, progress=False, **replay):
    """One SLOB point with database.datafiles dnfs and oracle: set, on the Oracle REPLAY DOUBLE
    serving the recorded samples of the database's counters (tests/data/oracle/README.md). The
    sampler samples back to back (SAMPLE_S 0) and the replayed runit.sh (the replay run ``run``)
    lasts until the double has served its last sample: the point takes every recorded sample,
    however busy the machine. With ``statspack`` the database has no Diagnostics Pack and SLOB
    takes Statspack snapshots; with ``progress`` the sweep shows its progress (and a live view, where
    one is set). Returns the row, the point's directory and the double."""
    from flashpoc.engines.slob import measure
    from flashpoc.oracle import db as oracle
    from oracle_replay import ReplayDatabase

    served = tmp_path / "samples-served"
    db = ReplayDatabase(DATA / "oracle" / "facts_slob19c_rac2node.json",
                        DATA / "oracle" / "awr_rows_slob19c_rac2node_inst2_snap47_48.json",
                        dbstat_samples=DATA / "oracle" / "dbstat_samples_slob19c_rac2node_snap47_48.json",
                        dbstat_done=served, **({"pack_access": "NONE"} if statspack else {}), **replay)
    monkeypatch.setattr(oracle, "connect", db.connect)
    monkeypatch.setattr(measure, "SAMPLE_S", 0)
    monkeypatch.setenv("FLASHPOC_ORACLE_PASSWORD", SECRET)
    cfg, _ = slob_campaign(tmp_path, {1: [run]}, hold=served, oracle={"dsn": "db1:1521/p30sdb", "user": "system"},
                           database={"datafiles": "dnfs"})
    if statspack:
        cfg = cfg.model_copy(update={"settings": cfg.settings.model_copy(update={"database_statistics_type":
                                                                                 "statspack"})})
    row = phases.run_sweep(cfg, {"slob-9010": [1]}, progress=progress).iloc[0]
    return row, next((tmp_path / "results" / "slob" / "points" / "sweep").iterdir()), db


def test_a_dnfs_point_has_the_database_counters_as_its_time_series(tmp_path, monkeypatch):
    """database.datafiles dnfs with oracle: set: while runit.sh runs, a thread with its own
    connection samples the database's counters (stored as dbstat.json); they make the point's
    intervals.csv and its steadiness verdicts, the cluster's (summed over the GV$ views). The
    point's figures stay the AWR report's."""
    sys.path.insert(0, str(TESTS / "replay"))
    from flashpoc.engines.slob.parse import CLUSTER_SCOPE, INTERVAL_SOURCES

    row, stored, db = dnfs_point(tmp_path, monkeypatch)
    assert row["read_iops"] == 60656.2 and row["intervals_source"] == INTERVAL_SOURCES["dnfs"]
    assert "intervals_error" not in row or pd.isna(row["intervals_error"])
    dbstat = json.loads((stored / "dbstat.json").read_text())
    assert len(dbstat["samples"]) == row["dbstat_samples"] == 138  # every recorded sample
    assert dbstat["samples"][15]["clock"] == "09:26:07"
    assert row["dbstat_note"] == ("the sampling of the database's counters ended after 138 sample(s): RemoteError: "
                                  "Oracle query sql/dbstat_sample.sql failed: replay double: every recorded sample has "
                                  "been served")
    assert row["intervals_scope"] == CLUSTER_SCOPE  # the point's figures are the RAC global report's
    intervals = pd.read_csv(stored / "intervals.csv")
    assert len(intervals) == 136 and intervals["warmup"].sum() == 15 and row["intervals"] == 121
    first = intervals[~intervals["warmup"]].iloc[0]  # 09:26:07 to 09:26:10, both instances
    assert first["second"] == 48.0 and first["read_iops"] + first["write_iops"] == pytest.approx(first["iops"])
    assert first["lat_mean_ms"] == first["read_lat_mean_ms"] and pd.isna(first["write_lat_mean_ms"])
    measured = intervals.loc[~intervals["warmup"], "iops"].to_numpy(dtype=float)
    cv = measured.std(ddof=1) / measured.mean() * 100
    assert row["interval_iops_cv_pct"] == pytest.approx(cv, abs=0.01)
    rounds = measured[len(measured) - 5 * 24:].reshape(5, 24).mean(axis=1)  # SNIA: 5 rounds of 24 intervals
    assert row["snia_round_intervals"] == 24 and row["snia_mean_iops"] == pytest.approx(rounds.mean())
    # the run's real shape (its iostat.out): the I/O falls away before the end snapshot, as the iostat
    # series of the same run says for local datafiles: steady by neither rule
    assert not row["interval_steady"] and not row["snia_steady"] and row["snia_data_excursion_pct"] > 20
    assert [q for q, _ in db.queries].count("dbstat_sample") == 139 and db.open_connections == 0  # 138, one refused
    assert_secret_absent(SECRET, tmp_path / "results")


def test_a_dnfs_point_without_a_report_takes_its_window_from_the_snapshot_rows(tmp_path, monkeypatch):
    """A dNFS run that left no AWR report: the DBA_HIST rows give its figures and the end_interval_time
    of its snapshots (47: 09:26:07.000, 48: 09:32:10.037) the window of its series, as the report's
    Snap Time would (09:26:07 to 09:32:10); with Statspack, STATS$SNAPSHOT's snap_time the same."""
    sys.path.insert(0, str(TESTS / "replay"))
    for statspack in (False, True):
        row, stored, _ = dnfs_point(tmp_path / str(statspack), monkeypatch,
                                    run="19c-rac-s256-t1-wu4-update10-no-report", statspack=statspack)
        assert row["scope"] == ("instance (STATS$)" if statspack else "instance (DBA_HIST)")
        assert round(row["read_iops"], 1) == (29795.8 if statspack else 29792.8)  # instance 2's rows
        assert "intervals_error" not in row or pd.isna(row["intervals_error"])
        assert row["intervals_scope"] == "instance 2"  # the connected instance's, as its figures
        intervals = pd.read_csv(stored / "intervals.csv")
        measured = intervals[~intervals["warmup"]]
        seconds = measured["second"].diff().fillna(measured["second"].iloc[0] - 45.0)  # the first ends 3 s after 45 s
        assert round((measured["read_iops"] * seconds).sum() / seconds.sum(), 1) == 29792.8  # the point's IOPS
        # the same 136 intervals as from the report's window: 15 before 09:26:07, 121 in it
        assert len(intervals) == 136 and intervals["warmup"].sum() == 15 and row["intervals"] == 121
        assert intervals[~intervals["warmup"]].iloc[0]["second"] == 48.0  # 09:26:07 to 09:26:10


def test_a_sample_that_fails_mid_run_keeps_the_point(tmp_path, monkeypatch):
    """The database answers the 41st sample with an error: the sampling ends with a note, the
    point is kept with its AWR figures and the series of the 40 samples taken."""
    sys.path.insert(0, str(TESTS / "replay"))
    row, stored, _ = dnfs_point(tmp_path, monkeypatch,
                                dbstat_failure=(40, "ORA-03113: end-of-file on communication channel"))
    assert row["read_iops"] == 60656.2 and row["iops"] == pytest.approx(67029.6)
    assert row["dbstat_samples"] == 40 and row["dbstat_note"] == (
        "the sampling of the database's counters ended after 40 sample(s): RemoteError: Oracle query "
        "sql/dbstat_sample.sql failed: ORA-03113: end-of-file on communication channel")
    assert json.loads((stored / "dbstat.json").read_text())["note"] == row["dbstat_note"]
    intervals = pd.read_csv(stored / "intervals.csv")
    assert len(intervals) == 39 and intervals["warmup"].sum() == 15 and row["intervals"] == 24


def test_a_dnfs_point_whose_run_ends_before_the_samples_run_out(tmp_path, monkeypatch):
    """The normal finish: runit.sh ends once 136 samples are served (the last at 09:32:07, in the
    window) while the database has more; the samples asked for after that are answered only once
    the run is over. The sampler ends with the sample due then and the one after the run (09:32:10
    and 09:32:13): no note, every sample kept, no sample refused, the series whole."""
    from flashpoc.engines.slob import measure

    run_over = threading.Event()
    end_block = measure.DbstatSampler.__exit__

    def after_the_run(sampler, *exc):
        run_over.set()  # run() has returned: the sampler's block ends
        return end_block(sampler, *exc)

    monkeypatch.setattr(measure.DbstatSampler, "__exit__", after_the_run)
    monkeypatch.setattr(measure, "CALL_TIMEOUT_MIN_S", 600.0)  # a held sample waits for the run, however slow
    row, stored, db = dnfs_point(tmp_path, monkeypatch, dbstat_hold=(136, run_over))
    assert "dbstat_note" not in row or pd.isna(row["dbstat_note"])
    dbstat = json.loads((stored / "dbstat.json").read_text())
    assert dbstat["note"] is None and len(dbstat["samples"]) == row["dbstat_samples"] == 138
    assert [sample["clock"] for sample in dbstat["samples"][135:]] == ["09:32:07", "09:32:10", "09:32:13"]
    assert [q for q, _ in db.queries].count("dbstat_sample") == 138 and db.open_connections == 0
    intervals = pd.read_csv(stored / "intervals.csv")
    assert len(intervals) == 136 and intervals["warmup"].sum() == 15 and row["intervals"] == 121


def test_a_sample_that_takes_too_long_ends_at_the_call_timeout(tmp_path, monkeypatch):
    """The sampling connection has a call timeout (3 sampling intervals, at least
    CALL_TIMEOUT_MIN_S): the 41st sample, which the database never answers, ends with the
    driver's own error when it passes; the point is kept with the 40 samples taken."""
    from flashpoc.engines.slob import measure

    monkeypatch.setattr(measure, "CALL_TIMEOUT_MIN_S", 0.5)
    monkeypatch.setattr(measure, "JOIN_MARGIN_S", 120.0)  # the call timeout ends the sampling, not the wait for it
    row, stored, db = dnfs_point(tmp_path, monkeypatch, dbstat_hold=(40, threading.Event()))
    assert row["read_iops"] == 60656.2 and row["dbstat_samples"] == 40
    assert row["dbstat_note"] == ("the sampling of the database's counters ended after 40 sample(s): RemoteError: "
                                  "Oracle query sql/dbstat_sample.sql failed: DPY-4024: call timeout of 500 ms exceeded")
    sampling = [conn for conn in db.connections if conn.call_timeout]
    assert [conn.call_timeout for conn in sampling] == [500]  # the sampler's own connection, in ms
    assert len(pd.read_csv(stored / "intervals.csv")) == 39


def test_a_sampler_that_does_not_end_is_left_behind(tmp_path, monkeypatch):
    """A stall no call timeout ends: the point waits for the sampling thread at most two call
    timeouts and JOIN_MARGIN_S after the run, then goes on with a note and the samples taken (the
    thread is a daemon)."""
    from flashpoc.engines.slob import measure

    monkeypatch.setattr(measure, "CALL_TIMEOUT_MIN_S", 0.1)
    monkeypatch.setattr(measure, "JOIN_MARGIN_S", 0.0)
    release = threading.Event()
    try:
        row, stored, _ = dnfs_point(tmp_path, monkeypatch, dbstat_hold=(40, release), dbstat_stall=True)
    finally:
        release.set()  # let the left thread end
    assert row["read_iops"] == 60656.2 and row["dbstat_samples"] == 40
    assert row["dbstat_note"] == ("the sampling of the database's counters did not end within 0.2 s after the run: "
                                  "the point goes on with the 40 sample(s) taken")
    assert json.loads((stored / "dbstat.json").read_text())["note"] == row["dbstat_note"]


def test_any_error_of_a_sample_ends_the_sampling_with_its_type_and_no_secret(tmp_path, monkeypatch):
    """Not only flashpoc's errors: whatever a sample raises ends the sampling with a note naming
    its type; a password in its message is never stored."""
    row, stored, _ = dnfs_point(tmp_path, monkeypatch, dbstat_failure=(40, f"driver fault near {SECRET}", TypeError))
    assert row["dbstat_samples"] == 40 and row["dbstat_note"] == (
        "the sampling of the database's counters ended after 40 sample(s): TypeError: driver fault near ***")
    assert len(pd.read_csv(stored / "intervals.csv")) == 39
    assert_secret_absent(SECRET, tmp_path / "results")


def test_a_dnfs_point_sampled_through_a_pdb_says_its_series_may_be_the_container_s(tmp_path, monkeypatch):
    """The Oracle Database Reference documents V$SYSSTAT and V$SYSTEM_EVENT as instance-wide when
    queried from the root of a CDB and says nothing of a PDB's session: a point sampled through a
    PDB's service says its series may be that container's alone; through the root, no such note."""
    for con_name, noted in (("P30PDB", True), ("CDB$ROOT", False)):
        row, _, _ = dnfs_point(tmp_path / con_name.replace("$", ""), monkeypatch,
                               storage={"cdb": True, "con_name": con_name})
        note = row.get("dbstat_container_note")
        assert (isinstance(note, str) and note.startswith(f"sampled through container {con_name} of a CDB")) == noted
        assert row["read_iops"] == 60656.2


def test_datafiles_dnfs_against_a_database_without_direct_nfs(tmp_path):
    """The recorded facts of the 19c RAC SLOB run say v$dnfs_servers is empty: database.datafiles
    dnfs is warned about; local datafiles are not. The one comparison with v$dnfs_servers is the
    database's ``nfs client`` row, the same for every engine."""
    facts = json.loads((DATA / "oracle" / "facts_slob19c_rac2node.json").read_text())
    cfg, _ = slob_campaign(tmp_path, {1: [RAC]}, oracle={"dsn": "db1:1521/p30sdb", "user": "system"})
    rows = check_slob(cfg, oracle_facts=lambda params: facts)
    assert not [r for r in rows if r["check"] == "nfs client" and r["status"] != "pass"]
    cfg, _ = slob_campaign(tmp_path, {1: [RAC]}, oracle={"dsn": "db1:1521/p30sdb", "user": "system"},
                           database={"datafiles": "dnfs"})
    rows = check_slob(cfg, oracle_facts=lambda params: facts)
    row = next(r for r in rows if r["check"] == "nfs client")
    assert row["status"] == "warn" and "v$dnfs_servers is empty" in row["detail"]
    assert len([r for r in rows if "dnfs" in r["detail"].lower() and r["status"] != "pass"]) == 1


def test_a_slob_scan_is_read_in_mibps_and_its_histogram_is_of_direct_path_reads(tmp_path):
    """SLOB at SCAN_PCT=100 reads by multiblock reads: the replayed 12.2 scan run ("direct path read
    6,904,693 waits, 3.82ms"; Load Profile "Read IO (MB): 500.6", "Write IO (MB): 0.0" per second) is measured in
    MiB/s in the key results, its SLO figure and its charts, and its wait histogram is not titled a
    single-block read's."""
    home = tmp_path / "SLOB"
    slob = {"home": str(home), "env_file": str(home / "slob.env"), "schemas": 256, "scale": "32768", "run_time_s": 360,
            "workloads": [{"name": "slob-scan", "update_pct": 0, "scan_pct": 100, "scan_table_sz": "1G"}]}
    cfg, _ = slob_campaign(tmp_path, {1: [SINGLE], 2: [SINGLE]}, slob=slob,
                           probe={"workload": "slob-scan", "strategy": "linear", "min_threads": 1, "max_threads": 2,
                                  "step": 1})
    phases.run_check(cfg)
    rows = phases.run_sweep(cfg, {"slob-scan": [1, 2]}, progress=False)
    assert set(rows["latency_event"]) == {"direct path read"} and set(rows["lat_mean_ms"]) == {3.82}
    mibps = rows["bw_mibps"].iloc[0]
    assert mibps == 500.6
    report = phases.build_report(cfg, pdf=False)
    (line,) = [line for line in report.headline.splitlines() if "slob-scan" in line]
    assert f"up to {mibps:,.0f} MiB/s" in line
    # 3.82 ms at the lightest load already: at most its MiB/s within the 1 ms SLO, in MiB/s
    assert line.endswith(f"over 1 ms already at its lightest load (1 thread, 3.820 ms): at most {mibps:,.0f} MiB/s.")
    cell = summary.results_table(report.summary, report.points, 1.0).frame.loc[0, "Within the 1 ms SLO"]
    assert cell.startswith(f"≤ {mibps:,.0f} MiB/s")
    spec = report.charts["hockey_stick"].to_dict()
    assert spec["title"]["text"] == "Throughput vs mean latency" and spec["layer"][0]["encoding"]["x"]["field"] == \
        "bw_mibps"
    load = report.charts["load_vs_threads"].to_dict()
    assert load["encoding"]["y"]["field"] == "bw_mibps"
    title = report.charts["wait_histogram"].to_dict()["title"]["text"]
    assert title == "Read wait histogram at the detail points (AWR): direct path read"

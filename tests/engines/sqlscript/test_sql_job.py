"""A campaign that runs only a DBA's job (``engine: sqlscript``): its parameters, its check, its
runs under two labels and its report (speed-up, %user vs %iowait, the AWR Load Profile), in
process and through ``flashpoc run`` (papermill).

No Oracle server runs here: the database is tests/replay/oracle_replay.py, a REPLAY DOUBLE
serving rows reconstructed from the real 19c SLOB AWR report (tests/data/oracle/README.md). For
``flashpoc run`` the notebooks' kernels load it through a ``sitecustomize`` module put first on
their PYTHONPATH by the test (it replaces :func:`flashpoc.oracle.db.connect`); the notebooks,
papermill, the check of this machine, the sessions and the report are real.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from conftest import DATA, REPO, TESTS
from documents import summary_problems
from flashpoc import phases
from flashpoc.core.errors import ParameterError
from flashpoc.params import campaign_from_dict, load_campaign
from flashpoc.jobs.sqlscript.measure import run_sql_workload
from flashpoc.jobs.sqlscript.plan import split_sql_script
from flashpoc.jobs.sqlscript.report import (buffer_waits_table, latest_runs, load_profile_table, speedup_table,
                                               speedup_text)

sys.path.insert(0, str(TESTS / "replay"))
from oracle_replay import ReplayDatabase  # noqa: E402

FACTS = DATA / "oracle" / "facts_slob19c_rac2node.json"
ROWS = DATA / "oracle" / "awr_rows_slob19c_rac2node_inst2_snap47_48.json"
AWR_TXT = DATA / "slob" / "slob2.5_19c_rac2node_s256_t1_wu4_update10" / "awr.txt"  # the same snapshot pair's
SCRIPT = ("CREATE TABLE load_&session_name (id NUMBER);\n"
          "INSERT INTO load_&session_name SELECT level FROM dual CONNECT BY level <= 1000;\n"
          "COMMIT;\n")
SMALLEST = {"campaign": "undo", "engine": "sqlscript", "oracle": {"dsn": "db1:1521/pdb1"},
            "sql_workload": {"script": "job.sql", "sessions": 20, "label": "undo-on-hdd"}}


def test_the_smallest_campaign_is_the_job_and_the_database():
    """No hosts, targets, workloads or engine settings: the check looks at this machine (where the
    sessions run) and the database; nothing is probed or swept."""
    cfg = campaign_from_dict(SMALLEST)
    assert cfg.engine == "sqlscript" and cfg.targets == [] and cfg.engine_workloads == []
    assert [(h.name, h.address) for h in cfg.hosts] == [("local", "localhost")]
    engine = cfg.engine_object
    assert engine.skipped_text(cfg, "sweep") and engine.data_elsewhere(cfg)
    assert "Skipped" in engine.skipped_text(cfg, "probe")
    slob = campaign_from_dict({**SMALLEST, "engine": "slob", "hosts": [{"name": "db1"}],
                               "slob": {"schemas": 1, "scale": "1G"}})
    assert slob.engine_object.skipped_text(slob, "probe") is None
    # the shipped example and its script
    example = load_campaign(REPO / "parameters" / "dba-job-undo.yaml")
    assert example.engine == "sqlscript" and example.sql_workload.sessions == 20
    statements = split_sql_script((REPO / example.sql_workload.script).read_text())
    assert statements[0].for_session(20).text.startswith("CREATE TABLE load_S0020 ")


@pytest.mark.parametrize("change, message", [
    ({"sql_workload": None}, "sql_workload: required for engine sqlscript (script, sessions, label): the DBA's job "
                             "is all this campaign runs"),
    ({"oracle": None}, "sql_workload: needs oracle (dsn, user) to run the script and take AWR snapshots"),
    ({"targets": [{"name": "t", "path": "x.dat", "size": "1g", "create": True}]},
     "targets: engine sqlscript writes no target (the DBA's job writes the database)"),
    ({"workloads": [{"name": "w", "rw": "randread", "bs": "8k"}]},
     "workloads: engine sqlscript runs the DBA's script (sql_workload), not I/O workloads"),
    ({"engine": {"sqlscript": {"sessions": 20}}},
     "engine.sqlscript.sessions: unknown key (check the spelling; see the notebooks' parameters cell)"),
])
def test_bad_input_is_one_line_naming_the_key(change, message):
    values = {k: v for k, v in {**SMALLEST, **change}.items() if v is not None}
    with pytest.raises(ParameterError) as error:
        campaign_from_dict(values, source="job.yaml")
    assert str(error.value) == f"invalid parameters in job.yaml: {message}"


def test_the_seed_speedup_and_times():
    """The seed's two runs: 19 min 47 s with UNDO on disk, 8 min 14 s on flash: 2.4x."""
    runs = pd.DataFrame([{"label": "undo-on-hdd", "sessions": 20, "elapsed_s": 1187.0},
                         {"label": "undo-on-ssd", "sessions": 20, "elapsed_s": 494.0}])
    table = speedup_table(runs).frame
    assert list(table["Elapsed"]) == ["19 min 47 s", "8 min 14 s"]
    assert list(table["Speed-up over undo-on-hdd (x)"]) == ["1.0", "2.4"]
    assert speedup_text(runs) == ("The DBA's job in 20 concurrent sessions: **undo-on-hdd** (the baseline) took "
                                  "19 min 47 s; **undo-on-ssd** 8 min 14 s: 2.4x as fast.")


def test_check_two_labelled_runs_and_their_report(tmp_path, monkeypatch):
    """The check (this machine, the database), the job under two labels, then the report: the
    runs' times and speed-up, the DB host's %user and %iowait and the Load Profile as the AWR
    report of the recorded interval prints them (Host CPU %User 6.0, %WIO 12.8; Redo size
    2,944,975.9/s and 2,821.2 per transaction; Executes 10,439.6/s; Transactions 1,043.9/s)."""
    from flashpoc.oracle import db as oracle

    (tmp_path / "job.sql").write_text(SCRIPT)
    for label, delay in (("undo-on-hdd", 0.02), ("undo-on-ssd", 0.005)):
        cfg = campaign_from_dict({**SMALLEST, "sql_workload": {"script": str(tmp_path / "job.sql"), "sessions": 4,
                                                               "label": label},
                                  "results_dir": str(tmp_path / "results")})
        monkeypatch.setattr(oracle, "connect", ReplayDatabase(FACTS, ROWS, statement_delay_s=delay,
                                                              awr_report=AWR_TXT).connect)
        check = phases.run_check(cfg)
        assert set(check["host"]) == {"local", "database", "(campaign)"}  # no target, no working set rows
        assert "working set" not in set(check["check"])
        # no database.host: the database's storage path is not read, and the check says so
        assert check[check["host"] == "(campaign)"]["check"].tolist() == ["database storage"]
        run_sql_workload(cfg)
    runs = latest_runs(cfg)
    assert list(runs["label"]) == ["undo-on-hdd", "undo-on-ssd"]
    table = speedup_table(runs).frame
    hdd, ssd = runs["elapsed_s"]
    assert table.iloc[1]["Speed-up over undo-on-hdd (x)"] == f"{hdd / ssd:.1f}"
    assert list(table["DB host %user"]) == ["6.0", "6.0"] and list(table["DB host %iowait"]) == ["12.8", "12.8"]
    assert list(table["Transactions per s"]) == ["1,043.9", "1,043.9"]
    profile = load_profile_table(runs).frame.set_index("Load Profile")
    assert profile.loc["Redo size (bytes)", "undo-on-ssd per s"] == "2,944,975.9"
    assert profile.loc["Redo size (bytes)", "undo-on-ssd per transaction"] == "2,821.2"
    assert profile.loc["Executes (SQL)", "undo-on-hdd per s"] == "10,439.6"
    assert profile.loc["Transactions", "undo-on-hdd per s"] == "1,043.9"

    waits = buffer_waits_table(runs).frame
    assert list(waits.iloc[0]) == ["undo-on-hdd", "undo header", "19", "14.5", "764.2"]  # printed: 19, 15 s, 764 ms
    report = phases.build_report(cfg, pdf=False)
    assert report.points.empty and report.configs == []
    assert [s.key for s in report.sections] == ["summary", "conditions", "method", "results", "appendix"]
    assert summary_problems(report.sections[0].items) == []
    page = (tmp_path / "results" / "undo" / "report" / "report.html").read_text()
    for printed in ("Speed-up over undo-on-hdd (x)", "DB host %iowait", "2,944,975.9", "2,821.2", "Elapsed time (min)",
                    "Buffer waits by block class", "undo header",
                    "CPU time (%)", "P30SDB",
                    "<strong>Database storage</strong> (the devices under the database&#x27;s data, read on its host): "
                    "not read (the database&#x27;s host is not known: name it in database.host"):
        assert printed in page, printed
    assert (tmp_path / "results" / "undo" / "report" / "sql_runs.svg").exists()
    for run in runs.itertuples():  # each run keeps the AWR report of its snapshots, and the report says where
        assert f"points/sql/{run.run_id}/awr.txt" in page
        assert (tmp_path / "results" / "undo" / "points" / "sql" / run.run_id / "awr.txt").read_text() == \
            AWR_TXT.read_text()
    stored = pd.read_csv(tmp_path / "results" / "undo" / "report" / "sql_runs.csv")
    assert list(stored["label"]) == ["undo-on-hdd", "undo-on-ssd"]


def vmstat_lines(text: str) -> list[list[str]]:
    """The sample lines of ``vmstat -t -n`` output, split (its two header lines left out)."""
    return [line.split() for line in text.splitlines()[2:]]


def test_the_database_hosts_cpu_over_the_job(tmp_path, monkeypatch):
    """Seed 003 shows the DB host's CPU and iowait during the job: vmstat runs on the database host (here
    this machine, for real) while the sessions run; each sample after vmstat's first (since boot) is a row
    of the run as vmstat printed it, vmstat.out is stored with the run, and the report has the table and
    the chart of them. Without vmstat (or with cpu_every_s 0) the job runs and the report says why."""
    from flashpoc.jobs.sqlscript import hostcpu
    from flashpoc.jobs.sqlscript.report import host_cpu_table
    from flashpoc.oracle import db as oracle

    (tmp_path / "job.sql").write_text(SCRIPT)
    for label, every, command in (("undo-on-hdd", 1, "vmstat"), ("undo-on-ssd", 1, "flashpoc-no-such-vmstat"),
                                  ("no-vmstat", 0, "vmstat")):
        cfg = campaign_from_dict({**SMALLEST, "sql_workload": {"script": str(tmp_path / "job.sql"), "sessions": 2,
                                                               "label": label, "cpu_every_s": every},
                                  "results_dir": str(tmp_path / "results")})
        monkeypatch.setattr(oracle, "connect", ReplayDatabase(FACTS, ROWS, statement_delay_s=0.9).connect)
        monkeypatch.setattr(hostcpu, "VMSTAT", command)
        run_sql_workload(cfg)
    runs = latest_runs(cfg)
    hdd = runs.iloc[0]
    stored = (tmp_path / "results" / "undo" / "points" / "sql" / hdd["run_id"] / "vmstat.out").read_text()
    lines = vmstat_lines(stored)[1:]  # the first: since boot
    assert len(lines) >= 2 and len(hdd["cpu_series"]) == len(lines) and hdd["cpu_host"] == "local"
    for sample, line in zip(hdd["cpu_series"], lines):
        assert [sample[k] for k in ("us_pct", "sy_pct", "id_pct", "wa_pct")] == [int(v) for v in line[12:16]]
        assert sample["clock"] == line[-1]
    seconds = [s["second"] for s in hdd["cpu_series"]]
    assert 0 < seconds[0] and all(b > a for a, b in zip(seconds, seconds[1:])) and seconds[-1] <= hdd["elapsed_s"] + 2
    table = host_cpu_table(runs)
    row = table.frame.set_index("Run").loc["undo-on-hdd"]
    wa, us = [int(line[15]) for line in lines], [int(line[12]) for line in lines]
    assert (row["Samples"], row["%iowait max"], row["%user mean"]) == (str(len(lines)), str(max(wa)),
                                                                      f"{sum(us) / len(us):.1f}")
    assert list(table.frame["Run"]) == ["undo-on-hdd"]  # the others have no samples, and say why
    assert any(n.startswith("undo-on-ssd: vmstat.out of local could not be read") and "not found" in n
               for n in table.notes), table.notes
    assert "no-vmstat: sql_workload.cpu_every_s is 0: no vmstat during the job." in table.notes
    phases.build_report(cfg, pdf=False)
    page = (tmp_path / "results" / "undo" / "report" / "report.html").read_text()
    assert "The database host&#x27;s CPU during the job (vmstat), per run" in page or \
        "The database host's CPU during the job (vmstat), per run" in page
    assert (tmp_path / "results" / "undo" / "report" / "sql_cpu.svg").exists()


SITECUSTOMIZE = """\
# Test only: the notebooks' kernels reach the Oracle REPLAY DOUBLE instead of a database.
import os
import sys
from pathlib import Path

if os.environ.get("FLASHPOC_TEST_ORACLE_REPLAY"):
    sys.path.insert(0, os.environ["FLASHPOC_TEST_ORACLE_REPLAY"])
    from oracle_replay import ReplayDatabase

    import flashpoc.oracle.db

    facts, rows, report = map(Path, os.environ["FLASHPOC_TEST_ORACLE_FILES"].split(os.pathsep))
    flashpoc.oracle.db.connect = ReplayDatabase(facts, rows, awr_report=report).connect
"""


def test_flashpoc_run_runs_the_check_the_job_and_the_report(tmp_path):
    """`flashpoc run` on the smallest file: the check passes, notebooks 02 and 03 say the probe and
    the sweep were skipped, 03 runs the job, 04 writes its report; the password is nowhere."""
    secret = "Undo-0n-Fl4sh-secret"
    boot = tmp_path / "boot"
    boot.mkdir()
    (boot / "sitecustomize.py").write_text(SITECUSTOMIZE)
    (tmp_path / "job.sql").write_text(SCRIPT)
    params = tmp_path / "job.yaml"
    params.write_text(yaml.safe_dump({**SMALLEST, "sql_workload": {"script": "job.sql", "sessions": 3,
                                                                   "label": "undo-on-ssd"}}))
    env = {**os.environ, "FLASHPOC_ROOT": str(tmp_path), "FLASHPOC_ORACLE_PASSWORD": secret,
           "PYTHONPATH": os.pathsep.join([str(boot), str(REPO / "lib")]),
           "FLASHPOC_TEST_ORACLE_REPLAY": str(TESTS / "replay"),
           "FLASHPOC_TEST_ORACLE_FILES": os.pathsep.join([str(FACTS), str(ROWS), str(AWR_TXT)])}
    env.pop("FLASHPOC_RESULTS_DIR", None)
    out = subprocess.run([sys.executable, "-m", "flashpoc.cli", "run", str(params)], capture_output=True, text=True,
                         timeout=900, env=env, cwd=tmp_path)
    assert out.returncode == 0, (out.stdout + out.stderr)[-4000:]
    campaign = tmp_path / "results" / "undo"
    books = campaign / "notebooks"

    def outputs(name: str) -> str:
        cells = json.loads((books / f"{name}.ipynb").read_text())["cells"]
        return json.dumps([c.get("outputs", []) for c in cells])

    assert "**Skipped**: this campaign runs only a DBA's own job" in outputs("02_saturation_probe")
    assert "no probe of the hosts" in outputs("02_saturation_probe")
    sweep = outputs("03_thread_sweep")
    assert "no sweep of the hosts" in sweep and "**undo-on-ssd**: 3 sessions x 3 statements took" in sweep
    assert not (campaign / "probe.json").exists() and not (campaign / "points" / "sweep").exists()
    assert (campaign / "report" / "report.html").exists() and "2,944,975.9" in outputs("04_report")
    found = [str(p) for p in campaign.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]
    assert found == [] and secret not in out.stdout + out.stderr


def test_a_sweep_report_has_a_dba_job_section_when_the_campaign_ran_the_job(tmp_path, monkeypatch):
    """A fio campaign (real fio, two 1 s points) that also ran its sql_workload: its report has the
    DBA-job section after the results, with the runs table, the chart and the Load Profile."""
    from conftest import quick_campaign, require_fio
    from flashpoc.oracle import db as oracle

    require_fio()
    (tmp_path / "job.sql").write_text(SCRIPT)
    cfg = campaign_from_dict(quick_campaign(
        tmp_path, workloads=[{"name": "randread-4k", "rw": "randread", "bs": "4k"}], oracle={"dsn": "db1:1521/pdb1"},
        sql_workload={"script": str(tmp_path / "job.sql"), "sessions": 2, "label": "undo-on-ssd"}))
    monkeypatch.setattr(oracle, "connect", ReplayDatabase(FACTS, ROWS, awr_report=AWR_TXT).connect)
    phases.run_check(cfg)
    phases.run_sweep(cfg, {"randread-4k": [1, 2]}, progress=False)
    run_sql_workload(cfg)
    report = phases.build_report(cfg, pdf=False)
    headings = [s.heading for s in report.sections]
    assert "A DBA's own job" in headings and headings.index("A DBA's own job") < headings.index("Appendix A: every point")
    section = next(s for s in report.sections if s.heading == "A DBA's own job")
    assert [type(i).__name__ for i in section.items] == ["str", "Table", "HConcatChart", "Table", "Table", "Table",
                                                              "Table", "Table", "str"]
    page = report.files["report.html"].read_text()
    assert "Speed-up over undo-on-ssd (x)" in page and "2,944,975.9" in page

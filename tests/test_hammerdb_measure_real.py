"""HammerDB through the phases' interface, for real: ``flashpoc``'s check on a real HammerDB 6.0 and
a PostgreSQL 15 cluster the test starts on 127.0.0.1 (its rows, the manifest's HammerDB version),
then points measured by the engine object (the schema built once, one timed run per point at N
virtual users, stored and reused); a run whose virtual users fail is an error, never a point.
Slow (a 1-warehouse build and a 1-minute timed run, HammerDB's shortest): marked ``hammerdb``."""

from __future__ import annotations

import csv
import json
import re

import pytest
from pg_server import postgres_server, real_hammerdb  # noqa: F401

from flashpoc.errors import RemoteError
from flashpoc.params import campaign_from_dict
from flashpoc.phases import open_campaign, run_check

pytestmark = pytest.mark.hammerdb
PASSWORD_ENV, SUPERUSER_ENV = "FLASHPOC_TEST_TPCC_PASSWORD", "FLASHPOC_TEST_PG_PASSWORD"


def hammerdb_campaign(server, tmp_path, **settings):
    return campaign_from_dict({
        "campaign": "oltp", "results_dir": str(tmp_path / "results"),
        "hosts": [{"name": "load1", "address": "localhost", "workdir": str(tmp_path / "work")}],
        "engine": {"hammerdb": {
            "database": "postgresql", "hammerdb_dir": str(real_hammerdb()), "host": server.host, "port": server.port,
            "superuser": server.superuser, "superuser_password_env": SUPERUSER_ENV, "password_env": PASSWORD_ENV,
            "warehouses": 1, "build_schema": True, "build_virtual_users": 1, "rampup_minutes": 0,
            "duration_minutes": 1, **settings}}})


def test_check_then_a_point_at_two_virtual_users(postgres_server, tmp_path, monkeypatch):  # noqa: F811
    monkeypatch.setenv(PASSWORD_ENV, "tpcc-" + postgres_server.password[:8])
    monkeypatch.setenv(SUPERUSER_ENV, postgres_server.password)
    cfg = hammerdb_campaign(postgres_server, tmp_path)

    table = run_check(cfg)
    rows = {r.check: r for r in table.itertuples() if r.host == "load1"}
    assert (rows["HammerDB"].value, rows["HammerDB"].status) == ("v6.0", "pass")
    assert rows["database"].value.startswith("15.") and rows["database"].status == "pass"
    assert (rows["TPROC-C schema"].value, rows["TPROC-C schema"].status) == ("none", "pass")
    manifest = json.loads((tmp_path / "results" / "oltp" / "manifest.json").read_text())
    assert manifest["engine_versions"] == {"load1": "v6.0"}

    engine = cfg.engine_object
    with open_campaign(cfg) as wb:
        row = engine.measure_point(wb, "probe", cfg.probe_workload, 2, runtime_s=60)
        again = engine.measure_point(wb, "probe", cfg.probe_workload, 2, runtime_s=60)
    points = tmp_path / "results" / "oltp" / "points"
    point = points / "probe" / row["point_id"]
    console = (point / "console.txt").read_text()
    printed = re.findall(r"TEST RESULT : System achieved (\d+) NOPM from (\d+) PostgreSQL TPM", console)
    assert len(printed) == 1 and (row["nopm"], row["tpm"]) == tuple(map(int, printed[0]))
    assert (row["threads"], row["virtual_users"], row["workload"], row["engine"]) == (2, 2, "tprocc", "hammerdb")
    assert row["nopm"] > 0 and row["reused"] is False and again["reused"] is True and again["nopm"] == row["nopm"]
    timing = json.loads((point / f"{row['jobid']}_timing.json").read_text())
    assert row["neword_p95_ms"] == float(timing["NEWORD"]["p95_ms"]) and row["neword_calls"] == int(
        timing["NEWORD"]["calls"])
    assert 55 <= row["test_s"] <= 70  # the 1-minute timed test, as HammerDB's log stamps it
    with (point / "intervals.csv").open() as f:
        series = list(csv.DictReader(f))
    assert sum(r["counted"] == "True" for r in series) == row["intervals"] >= 4
    assert (points / "build" / "schema" / "console.txt").is_file()
    assert not list((tmp_path / "results").rglob("*.db"))
    for path in (tmp_path / "results").rglob("*"):  # no password kept with the results
        if path.is_file():
            assert postgres_server.password not in path.read_text(errors="replace")

    monkeypatch.setenv(PASSWORD_ENV, "not-the-password")
    with open_campaign(cfg) as wb, pytest.raises(RemoteError, match=r"load1: probe TPROC-C at 1 virtual users: the "
                                                                   r"run failed: HammerDB virtual user.*password "
                                                                   r"authentication failed"):
        engine.measure_point(wb, "probe", cfg.probe_workload, 1, runtime_s=60)
    assert [p.name for p in (points / "probe").iterdir()
            if not p.name.startswith(".")] == [row["point_id"]]


def test_flashpoc_run_check_probe_sweep_report(postgres_server, tmp_path):  # noqa: F811
    """parameters/hammerdb-postgres-local.yaml, pointed at the test's cluster, through ``flashpoc run``
    (the four notebooks by papermill): the schema built by the first point, a probe of 1 and 2
    virtual users, a sweep of 1, the report's NOPM charts; every NOPM is HammerDB's printed one."""
    import subprocess
    import sys
    from pathlib import Path

    import yaml

    values = yaml.safe_load((Path(__file__).parent.parent / "parameters" / "hammerdb-postgres-local.yaml").read_text())
    values["engine"]["hammerdb"].update({"hammerdb_dir": str(real_hammerdb()), "host": postgres_server.host,
                                         "port": postgres_server.port, "superuser": postgres_server.superuser})
    values.update({"results_dir": str(tmp_path / "results"), "probe": {**values["probe"], "max_threads": 2},
                   "sweep": {**values["sweep"], "max_threads": 1}})
    values["hosts"][0]["workdir"] = str(tmp_path / "work")
    params = tmp_path / "oltp.yaml"
    params.write_text(yaml.safe_dump(values))
    env = {**__import__("os").environ, "FLASHPOC_TPCC_PASSWORD": "tpcc-" + postgres_server.password[:8],
           "FLASHPOC_PG_PASSWORD": postgres_server.password}
    out = subprocess.run([sys.executable, "-m", "flashpoc.cli", "run", str(params)], capture_output=True, text=True,
                         timeout=1500, env=env)
    assert out.returncode == 0, out.stderr[-3000:]
    root = tmp_path / "results" / values["campaign"]
    rows = {phase: [json.loads((d / "point.json").read_text()) for d in sorted((root / "points" / phase).iterdir())
                    if (d / "point.json").is_file()] for phase in ("probe", "sweep")}
    assert sorted(r["threads"] for r in rows["probe"]) == [1, 2] and [r["threads"] for r in rows["sweep"]] == [1]
    for phase, phase_rows in rows.items():
        for row in phase_rows:
            console = (root / "points" / phase / row["point_id"] / "console.txt").read_text()
            printed = re.findall(r"TEST RESULT : System achieved (\d+) NOPM from (\d+) PostgreSQL TPM", console)
            assert [(row["nopm"], row["tpm"])] == [tuple(map(int, p)) for p in printed]
            assert row["virtual_users"] == row["threads"] and row["neword_p95_ms"] > 0
    probe = json.loads((root / "probe.json").read_text())
    assert probe["rate_word"] == "NOPM" and "virtual users" in probe["answer"] and "IOPS" not in probe["answer"]
    assert (root / "points" / "build" / "schema" / "console.txt").is_file()
    html = (root / "report" / "report.html").read_text()
    assert "NOPM (new orders per minute)" in html and "Virtual users (count)" in html
    best = max(rows["sweep"], key=lambda r: r["nopm"])
    assert f"{best['nopm']:,.0f} NOPM" in html
    assert (root / "report" / "nopm_vs_users.svg").is_file() and (root / "report" / "neword_p95_vs_nopm.svg").is_file()
    print(f"measured: probe {[(r['threads'], r['nopm'], r['neword_p95_ms']) for r in rows['probe']]}, "
          f"sweep {[(r['threads'], r['nopm'], r['neword_p95_ms']) for r in rows['sweep']]}")

"""HammerDB as a campaign engine, for real: ``flashpoc run`` (the four notebooks by papermill) on
parameters/hammerdb-postgres-local.yaml pointed at a real HammerDB 6.0 and a PostgreSQL 15 cluster
the test starts on 127.0.0.1: the check's rows and the manifest's HammerDB version, the schema built
by the first point, a probe of 1 and 2 virtual users, a sweep of 1, the report's NOPM charts, every
NOPM HammerDB's printed one; then a run whose virtual users fail is an error, never a point. Slow
(a 1-warehouse build and three 1-minute timed runs, HammerDB's shortest): marked ``hammerdb``."""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys

import pytest
import yaml
from pg_server import postgres_server, real_hammerdb  # noqa: F401

from conftest import REPO
from flashpoc.core.errors import RemoteError
from flashpoc.params import load_campaign
from flashpoc.phases import open_campaign

pytestmark = pytest.mark.hammerdb
PARAMS = REPO / "parameters" / "hammerdb-postgres-local.yaml"


def test_flashpoc_run_check_probe_sweep_report(postgres_server, tmp_path, monkeypatch):  # noqa: F811
    values = yaml.safe_load(PARAMS.read_text())
    values["engine"]["hammerdb"].update({"hammerdb_dir": str(real_hammerdb()), "host": postgres_server.host,
                                         "port": postgres_server.port, "superuser": postgres_server.superuser})
    values.update({"results_dir": str(tmp_path / "results"), "probe": {**values["probe"], "max_threads": 2},
                   "sweep": {**values["sweep"], "max_threads": 1}})
    values["hosts"][0]["workdir"] = str(tmp_path / "work")
    params = tmp_path / "oltp.yaml"
    params.write_text(yaml.safe_dump(values))
    tpcc_password = "tpcc-" + postgres_server.password[:8]
    monkeypatch.setenv("FLASHPOC_TPCC_PASSWORD", tpcc_password)
    monkeypatch.setenv("FLASHPOC_PG_PASSWORD", postgres_server.password)
    out = subprocess.run([sys.executable, "-m", "flashpoc.cli", "run", str(params)], capture_output=True, text=True,
                         timeout=1500, env=dict(os.environ))
    assert out.returncode == 0, out.stderr[-3000:]
    root = tmp_path / "results" / values["campaign"]

    # the check: HammerDB's version (in the manifest too), the database, no schema yet (build_schema)
    with (root / "check.csv").open() as f:
        check = {r["check"]: r for r in csv.DictReader(f) if r["host"] == "load1"}
    assert (check["HammerDB"]["value"], check["HammerDB"]["status"]) == ("v6.0", "pass")
    assert check["database"]["value"].startswith("15.") and check["database"]["status"] == "pass"
    assert (check["TPROC-C schema"]["value"], check["TPROC-C schema"]["status"]) == ("none", "pass")
    assert json.loads((root / "manifest.json").read_text())["engine_versions"] == {"load1": "v6.0"}

    # every point: HammerDB's printed result and job store; the counter series within the timed test
    rows = {phase: [json.loads((d / "point.json").read_text()) for d in sorted((root / "points" / phase).iterdir())
                    if (d / "point.json").is_file()] for phase in ("probe", "sweep")}
    assert sorted(r["threads"] for r in rows["probe"]) == [1, 2] and [r["threads"] for r in rows["sweep"]] == [1]
    for phase, phase_rows in rows.items():
        for row in phase_rows:
            point = root / "points" / phase / row["point_id"]
            printed = re.findall(r"TEST RESULT : System achieved (\d+) NOPM from (\d+) PostgreSQL TPM",
                                 (point / "console.txt").read_text())
            assert [(row["nopm"], row["tpm"])] == [tuple(map(int, p)) for p in printed]
            timing = json.loads((point / f"{row['jobid']}_timing.json").read_text())
            assert row["neword_p95_ms"] == float(timing["NEWORD"]["p95_ms"]) > 0
            assert (row["virtual_users"], row["workload"], row["engine"]) == (row["threads"], "tprocc", "hammerdb")
            assert 55 <= row["test_s"] <= 180  # the 1-minute timed test as HammerDB's log stamps it (a busy
            # machine stretches the timed driver's 1-second steps)
            with (point / "intervals.csv").open() as f:
                assert sum(r["counted"] == "True" for r in csv.DictReader(f)) == row["intervals"] >= 4
    assert (root / "points" / "build" / "schema" / "console.txt").is_file()

    # the probe and the report speak of NOPM and virtual users
    probe = json.loads((root / "probe.json").read_text())
    assert probe["rate_word"] == "NOPM" and "virtual user" in probe["answer"] and "IOPS" not in probe["answer"]
    assert "thread count" not in probe["answer"] and "thread range" not in probe["answer"]
    html = (root / "report" / "report.html").read_text()
    assert "NOPM (new orders per minute)" in html and "Virtual users (count)" in html
    assert f"{rows['sweep'][0]['nopm']:,.0f} NOPM" in html
    assert (root / "report" / "report.pdf").read_bytes().startswith(b"%PDF")  # an engine's own report printed too
    assert (root / "report" / "nopm_vs_users.svg").is_file() and (root / "report" / "neword_p95_vs_nopm.svg").is_file()

    # no secret kept: HammerDB's SQLite stores removed, neither password in any file of the results
    assert not list(root.rglob("*.db"))
    for path in root.rglob("*"):
        if path.is_file():
            text = path.read_text(errors="replace")
            assert postgres_server.password not in text and tpcc_password not in text, path

    # a run whose virtual users cannot log in is an error naming why, and no point
    monkeypatch.setenv("FLASHPOC_TPCC_PASSWORD", "not-the-password")
    cfg = load_campaign(params)
    with open_campaign(cfg) as wb, pytest.raises(RemoteError, match=r"load1: probe TPROC-C at 3 virtual users: the "
                                                                   r"run failed: HammerDB virtual user.*password "
                                                                   r"authentication failed"):
        cfg.engine_object.measure_point(wb, "probe", cfg.probe_workload, 3, runtime_s=60)
    assert not [p for p in (root / "points" / "probe").iterdir() if "_t00003_" in p.name]
    print(f"measured: probe {[(r['threads'], r['nopm'], r['tpm'], r['neword_p95_ms']) for r in rows['probe']]}, "
          f"sweep {[(r['threads'], r['nopm'], r['tpm'], r['neword_p95_ms']) for r in rows['sweep']]}")

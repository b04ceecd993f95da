"""Real HammerDB TPROC-C against a real PostgreSQL 15 cluster the test starts on 127.0.0.1: a
1-warehouse schema build and the shortest timed run HammerDB's CLI allows (no rampup, 1 minute: it
takes whole minutes only), scripted by the planner, run through the host interface and parsed; the
parsed NOPM and TPM are HammerDB's printed result and its job store's answer. Slow (about two
minutes): marked ``hammerdb``; skipped, saying why, without the kit or PostgreSQL 15."""

from __future__ import annotations

import json
import re

import pytest
from pg_server import postgres_server, real_hammerdb  # noqa: F401  (a real PostgreSQL 15 cluster on 127.0.0.1)

from flashpoc.engines.hammerdb.check import check_hammerdb, check_problems
from flashpoc.engines.hammerdb.parse import parse_files
from flashpoc.engines.hammerdb.plan import build_script, run_script
from flashpoc.engines.hammerdb.run import run_hammerdb
from flashpoc.engines.hammerdb.settings import settings_from_dict
from flashpoc.core.errors import ParseError
from flashpoc.params import HostParams
from flashpoc.hosts.host import LocalHost

pytestmark = pytest.mark.hammerdb
PASSWORD_ENV, SUPERUSER_ENV = "FLASHPOC_TEST_TPCC_PASSWORD", "FLASHPOC_TEST_PG_PASSWORD"


def _printed_result(console: str) -> tuple[int, int]:
    """NOPM and TPM of the one TEST RESULT line HammerDB printed."""
    lines = re.findall(r"TEST RESULT : System achieved (\d+) NOPM from (\d+) PostgreSQL TPM", console)
    assert len(lines) == 1, console
    return int(lines[0][0]), int(lines[0][1])


def test_build_and_timed_run(postgres_server, tmp_path, monkeypatch):  # noqa: F811
    hammerdb = real_hammerdb()
    tpcc_password = "tpcc-" + postgres_server.password[:8]
    monkeypatch.setenv(PASSWORD_ENV, tpcc_password)
    monkeypatch.setenv(SUPERUSER_ENV, postgres_server.password)
    settings = settings_from_dict({
        "database": "postgresql", "hammerdb_dir": str(hammerdb), "host": postgres_server.host,
        "port": postgres_server.port, "superuser": postgres_server.superuser, "superuser_password_env": SUPERUSER_ENV,
        "password_env": PASSWORD_ENV, "warehouses": 1, "build_schema": True, "build_virtual_users": 1,
        "rampup_minutes": 0, "duration_minutes": 1})
    host = LocalHost(HostParams(name="load1"))
    common = {"hammerdb_dir": settings.hammerdb_dir, "timeout_s": 900}

    facts, problems = check_hammerdb(host, settings, str(tmp_path / "check-before"))
    assert (facts["connect"], facts["database"], problems) == ("ok", "0", [])
    assert facts["version"].startswith("15.") and facts["hammerdb"] == "v6.0"
    without_build = settings.model_copy(update={"build_schema": False})
    assert check_problems(without_build, facts)[0].startswith(
        f"no TPROC-C schema on 127.0.0.1:{postgres_server.port} (no database tpcc): set build_schema: true")

    build = run_hammerdb(host, build_script(settings), str(tmp_path / "build"), purpose="build the schema", **common)
    assert build.exit_code == 0 and "TPCC SCHEMA COMPLETE" in build.console, build.console

    facts, problems = check_hammerdb(host, settings, str(tmp_path / "check-after"))
    assert (facts["database"], facts["warehouses"]) == ("1", "1")
    assert problems == [f"load1: build_schema is set but the TPROC-C database tpcc already exists on 127.0.0.1:"
                        f"{postgres_server.port}: HammerDB never builds over a schema; drop it first or set "
                        "build_schema: false"]
    assert check_problems(without_build, facts) == []
    assert check_problems(without_build.model_copy(update={"warehouses": 2}), facts) == [
        f"the TPROC-C schema on 127.0.0.1:{postgres_server.port} has 1 warehouses; the settings say warehouses: 2"]

    run = run_hammerdb(host, run_script(settings, 2), str(tmp_path / "run"), purpose="timed run 2 VU", **common)
    assert run.exit_code == 0
    result = parse_files({"console.txt": run.console, **run.files})
    nopm, tpm = _printed_result(run.console)
    answer = json.loads(run.files["jobs_result.json"])[result.jobid]
    assert (result.nopm, result.tpm, result.virtual_users) == (nopm, tpm, 2) == (
        int(answer["nopm"]), int(answer["tpm"]), int(answer["activevu"]))
    assert nopm > 0 and tpm > 0 and result.database == "PostgreSQL"
    assert [t.name for t in result.transactions] == ["NEWORD", "PAYMENT", "DELIVERY", "SLEV", "OSTAT"]
    timing = json.loads(run.files[f"{result.jobid}_timing.json"])
    assert result.transactions[0].calls == int(timing["NEWORD"]["calls"]) > 0
    assert result.tcount and result.tcount_metric == "PostgreSQL tpm"
    # no secret kept: neither password in the console or any file, HammerDB's SQLite stores removed
    for text in (run.console, build.console, *run.files.values(), *build.files.values()):
        assert tpcc_password not in text and postgres_server.password not in text
    assert not (tmp_path / "run").exists()  # the attempt's folder, with HammerDB's settings stores, removed

    # the same run with a wrong password: every virtual user fails, and the parse says so
    monkeypatch.setenv(PASSWORD_ENV, "not-the-password")
    failed = run_hammerdb(host, run_script(settings, 2), str(tmp_path / "failed"), purpose="timed run", **common)
    with pytest.raises(ParseError, match=r"virtual users 1, 2, 3 FINISHED FAILED.*password authentication failed"):
        parse_files({"console.txt": failed.console, **failed.files})

"""HammerDB settings (one clear line per bad key, before any I/O) and the Tcl scripts (golden files;
every value quoted for Tcl; no password in a script, only the name of its environment variable)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from conftest import DATA, REPO
from flashpoc.engines.hammerdb.plan import build_script, check_script, run_script, tcl_word
from flashpoc.engines.hammerdb.settings import settings_from_dict
from flashpoc.core.errors import ParameterError

GOLDEN = DATA / "golden" / "hammerdb"
ENGINE = REPO / ".engines" / "hammerdb" / "HammerDB-6.0"

POSTGRES = {"database": "postgresql", "host": "db1.example.com", "port": 5433, "dbname": "tpcc",
            "user": "tpcc", "password_env": "TPCC_PASSWORD", "superuser_password_env": "PG_SUPERUSER_PASSWORD",
            "warehouses": 100, "build_schema": True, "build_virtual_users": 8,
            "rampup_minutes": 2, "duration_minutes": 5}
ORACLE = {"database": "oracle", "service": "dbhost:1521/PDB1", "user": "tpcc", "password_env": "TPCC_PASSWORD",
          "superuser": "system", "superuser_password_env": "ORACLE_SYSTEM_PASSWORD", "tablespace": "TPCCTAB",
          "warehouses": 1000, "build_schema": True, "build_virtual_users": 16,
          "rampup_minutes": 5, "duration_minutes": 10}


@pytest.mark.parametrize("values,name", [(POSTGRES, "postgresql"), (ORACLE, "oracle")])
def test_golden(values, name):
    settings = settings_from_dict(values)
    assert run_script(settings, 96) == (GOLDEN / f"{name}_run_96vu.tcl").read_text()
    assert build_script(settings) == (GOLDEN / f"{name}_build.tcl").read_text()
    assert check_script(settings) == (GOLDEN / f"{name}_check.tcl").read_text()


def test_defaults_are_a_storage_test():
    s = settings_from_dict({"database": "postgresql", "password_env": "P", "superuser_password_env": "S",
                            "warehouses": 10})
    assert (s.driver, s.time_profile, s.all_warehouses, s.keying_and_thinking, s.build_schema) == (
        "timed", True, True, False, False)
    script = run_script(s, 4)
    for line in ("diset tpcc pg_driver timed", "diset tpcc pg_timeprofile true", "diset tpcc pg_allwarehouse true",
                 "diset tpcc pg_keyandthink false", "vuset vu 4", "vuset unique 1", "vuset timestamps 1",
                 "tcset unique 1", "tcset timestamps 1", "giset timeprofile xt_unique_log_name 1"):
        assert line in script.splitlines()
    assert "buildschema" not in script


def test_oracle_keys_from_hammerdb_config():
    """Oracle's TPROC-C keys as config/oracle.xml names them (most without a prefix)."""
    script = run_script(settings_from_dict(ORACLE), 8)
    for line in ("dbset db ora", "diset connection system_user system", "diset connection instance dbhost:1521/PDB1",
                 "diset tpcc tpcc_user tpcc", "diset tpcc ora_driver timed", "diset tpcc rampup 5",
                 "diset tpcc duration 10", "diset tpcc allwarehouse true", "diset tpcc ora_timeprofile true",
                 "diset tpcc keyandthink false", "diset tpcc tpcc_def_tab TPCCTAB"):
        assert line in script.splitlines()
    assert "pg_" not in script


def test_no_password_in_scripts(monkeypatch):
    monkeypatch.setenv("TPCC_PASSWORD", "S3cret-Value")
    for values in (POSTGRES, ORACLE):
        s = settings_from_dict(values)
        for script in (build_script(s), run_script(s, 4), check_script(s)):
            assert "S3cret-Value" not in script
            # a password key is only ever set from its environment variable, never by diset with a value
            assert not re.search(r"^diset \S+ \S*pass", script, re.MULTILINE)
            assert re.search(r"^flashpoc::secret \S+ \S*pass\S* (TPCC_PASSWORD|\S+_PASSWORD)$", script,
                             re.MULTILINE) or script.count("[ flashpoc::env ") >= 1
            assert "jobs $jobid dict" not in script and " dict ]" not in script


@pytest.mark.parametrize("value,word", [
    ("plain-1.2", "plain-1.2"), ("a b", '"a b"'), ("$x[exec rm]", '"\\$x\\[exec rm\\]"'),
    ('q"{}\\;', '"q\\"\\{\\}\\\\\\;"'), ("line\nnext", '"line\\nnext"'), ("", '""')])
def test_tcl_word(value, word):
    assert tcl_word(value) == word


def test_tcl_word_round_trips_through_real_tcl(tmp_path):
    """What Tcl reads back from each quoted word is the value (HammerDB's own Tcl 9 when installed)."""
    tclsh = ENGINE / "bin" / "tclsh9.0"
    if not tclsh.is_file():
        tclsh = shutil.which("tclsh")
        if tclsh is None:
            pytest.skip("no Tcl here: `make engines` installs HammerDB's Tcl 9 into .engines/hammerdb")
    values = ["a b", "$x[exec rm -rf /]", 'q"{}\\;', "line\nnext\ttab", "#c", "}{", "ok"]
    script = "".join(f"set v {tcl_word(v)}\nputs -nonewline \"[string length $v]:$v\"\n" for v in values)
    out = subprocess.run([str(tclsh)], input=script, capture_output=True, text=True, timeout=60, check=True,
                         env=os.environ | {"TMP": str(tmp_path)}).stdout
    expected = "".join(f"{len(v)}:{v}" for v in values)
    assert out == expected


@pytest.mark.parametrize("change,message", [
    ({"database": "mysql"}, "hammerdb.database: Input should be 'oracle' or 'postgresql'"),
    ({"password_env": "my secret!"}, "hammerdb.password_env: give the NAME of an environment variable"),
    ({"warehouses": 0}, "hammerdb.warehouses: Input should be greater than or equal to 1"),
    ({"virtual_users": [96]}, "hammerdb.virtual_users: the probe and the sweep choose each point's virtual users"),
    ({"duration_minutes": 0.5}, "hammerdb.duration_minutes: Input should be a valid integer"),
    ({"duration_minutes": 0}, "hammerdb.duration_minutes: Input should be greater than or equal to 1"),
    ({"host": "db1; rm -rf /"}, "hammerdb.host: 'db1; rm -rf /' is not a host name"),
    ({"dbname": "tpcc;drop"}, "hammerdb.dbname: 'tpcc;drop' is not a database name"),
    ({"service": "PDB1"}, "hammerdb.service: only for Oracle"),
    ({"hammerdb_dir": "/opt/hammer db"}, "hammerdb.hammerdb_dir: a path may not contain"),
    ({"driver": "tpcc"}, "hammerdb.driver: Input should be 'timed' or 'test'"),
    ({"driver": "test"}, "hammerdb.total_iterations: with driver: test give the transactions of each iteration"),
    ({"build_schema": "maybe"}, "hammerdb.build_schema: Input should be a valid boolean"),
    ({"warehouse": 5}, "hammerdb.warehouse: unknown key"),
    ({"superuser_password_env": None}, "hammerdb.superuser_password_env: required key is missing"),
])
def test_bad_settings_one_line(change, message):
    values = {k: v for k, v in (POSTGRES | change).items() if k not in change or change[k] is not None}
    if change.get("superuser_password_env", 1) is None:
        values.pop("superuser_password_env", None)
    with pytest.raises(ParameterError) as error:
        settings_from_dict(values)
    text = str(error.value)
    assert message in text and "\n" not in text and text.startswith("invalid parameters in parameters: ")


def test_oracle_needs_its_service():
    with pytest.raises(ParameterError, match="hammerdb.service: required key is missing"):
        settings_from_dict({k: v for k, v in ORACLE.items() if k != "service"})


def test_a_password_typed_as_the_variable_is_not_echoed():
    with pytest.raises(ParameterError) as error:
        settings_from_dict(POSTGRES | {"password_env": "Tiger$Secret-42"})
    assert "Tiger" not in str(error.value)

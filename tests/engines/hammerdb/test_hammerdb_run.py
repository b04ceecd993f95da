"""Running HammerDB through the host interface (locally and over SSH), with the real HammerDB and
no database: the planner's scripts stop at once, by name, when a password variable is missing, and
fail fast on a closed port; no secret reaches the console or the files, and HammerDB's SQLite
stores (which hold the settings, passwords included) are removed before the files come back."""

from __future__ import annotations

import re
import socket

import pytest
from pg_server import real_hammerdb

from flashpoc.engines.hammerdb.check import check_hammerdb
from flashpoc.engines.hammerdb.parse import parse_files
from flashpoc.engines.hammerdb.plan import build_script, run_script
from flashpoc.engines.hammerdb.run import run_command, run_hammerdb
from flashpoc.engines.hammerdb.settings import settings_from_dict
from flashpoc.errors import ParseError, RemoteError
from flashpoc.params import HostParams
from flashpoc.run.hosts import LocalHost, connect

SECRET = "Tiger$Secret-42 'x'"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again when this returns: nothing listens there


def _settings(hammerdb, **changes):
    return settings_from_dict({"database": "postgresql", "hammerdb_dir": str(hammerdb), "port": _closed_port(),
                               "password_env": "FLASHPOC_T_PW", "superuser_password_env": "FLASHPOC_T_SUPER",
                               "warehouses": 1, "build_schema": True, "build_virtual_users": 1,
                               "rampup_minutes": 0, "duration_minutes": 1} | changes)


@pytest.mark.hammerdb
def test_missing_password_variable_stops_the_script(tmp_path, monkeypatch):
    hammerdb = real_hammerdb()
    monkeypatch.delenv("FLASHPOC_T_PW", raising=False)
    monkeypatch.setenv("FLASHPOC_T_SUPER", SECRET)
    run = run_hammerdb(LocalHost(HostParams(name="load1")), run_script(_settings(hammerdb), 1), str(tmp_path / "r"),
                       hammerdb_dir=str(hammerdb), timeout_s=120, purpose="timed run")
    assert run.exit_code == 1
    with pytest.raises(ParseError, match="script stopped: environment variable FLASHPOC_T_PW is not set on this host"):
        parse_files({"console.txt": run.console, **run.files})
    assert SECRET not in run.console


def test_run_dir_must_be_new(tmp_path):
    (tmp_path / "r").mkdir()
    with pytest.raises(RemoteError, match="already exists"):
        run_hammerdb(LocalHost(HostParams(name="load1")), "exit\n", str(tmp_path / "r"), hammerdb_dir="/nowhere",
                     timeout_s=10, purpose="timed run")


def test_run_command_quotes_every_value():
    command = run_command("/opt/hammer db", "/srv/run; rm -rf /", "/etc/x'y")
    assert "'/opt/hammer db'" in command and "'/srv/run; rm -rf /'/script.tcl" in command
    assert "'/etc/x'\"'\"'y'" in command


@pytest.mark.ssh
@pytest.mark.hammerdb
def test_build_over_ssh_reads_passwords_from_the_env_file(sshd, tmp_path):
    """Over SSH the variables come from ``env_file``; a closed port fails the build's virtual user
    by name, and neither password is in the console or a file."""
    hammerdb = real_hammerdb()
    env_file = tmp_path / "hammerdb.env"
    env_file.write_text("export FLASHPOC_T_PW='tpcc-pw-1234'\nexport FLASHPOC_T_SUPER='super-pw-5678'\n")
    env_file.chmod(0o600)
    settings = _settings(hammerdb, env_file=str(env_file))
    with connect(HostParams(**sshd.host_params("load1"))) as host:
        run = run_hammerdb(host, build_script(settings), str(tmp_path / "build"), hammerdb_dir=settings.hammerdb_dir,
                           env_file=settings.env_file, timeout_s=120, purpose="build the schema")
    assert run.exit_code == 0
    with pytest.raises(ParseError, match=r"virtual user 1 FINISHED FAILED.*(?i:connection)"):
        parse_files({"console.txt": run.console, **run.files})
    for text in (run.console, *run.files.values()):
        assert "tpcc-pw-1234" not in text and "super-pw-5678" not in text
    left = sorted(p.name for p in (tmp_path / "build").iterdir())
    assert not [n for n in left if n.lower().endswith(".db")], left


@pytest.mark.hammerdb
def test_check_without_a_database(tmp_path, monkeypatch):
    """The check on this machine: PostgreSQL's driver loads and a closed port is named; Oracle's
    driver (Oratcl) is not in the HammerDB kit, which the check says; a wrong directory too."""
    hammerdb = real_hammerdb()
    monkeypatch.setenv("FLASHPOC_T_PW", SECRET)
    monkeypatch.setenv("FLASHPOC_T_SUPER", SECRET)
    host = LocalHost(HostParams(name="load1"))
    settings = _settings(hammerdb)
    facts, problems = check_hammerdb(host, settings, str(tmp_path / "pg-space"))
    assert problems == ["load1: the password in FLASHPOC_T_SUPER holds a space, quote, brace or backslash, which "
                        "HammerDB's PostgreSQL connection string cannot carry: choose a password without them"]
    monkeypatch.setenv("FLASHPOC_T_PW", "Tiger$Secret-42")
    monkeypatch.setenv("FLASHPOC_T_SUPER", "Tiger$Secret-42")
    facts, problems = check_hammerdb(host, settings, str(tmp_path / "pg"))
    assert facts["driver"].startswith("Pgtcl ") and facts["hammerdb"] == "v6.0"
    assert len(problems) == 1 and problems[0].startswith(
        f"load1: cannot connect to 127.0.0.1:{settings.port} as postgres: ")
    assert "Connection refused" in problems[0] and "Secret" not in problems[0]

    oracle = settings_from_dict({"database": "oracle", "hammerdb_dir": str(hammerdb), "service": "db:1521/PDB1",
                                 "password_env": "FLASHPOC_T_PW", "superuser_password_env": "FLASHPOC_T_SUPER",
                                 "warehouses": 1})
    facts, problems = check_hammerdb(host, oracle, str(tmp_path / "ora"))
    assert problems == [f"load1: HammerDB's oracle driver does not load: {facts['driver_error']}"]
    assert "Oratcl" in facts["driver_error"]

    missing = settings.model_copy(update={"hammerdb_dir": str(tmp_path / "nowhere")})
    facts, problems = check_hammerdb(host, missing, str(tmp_path / "none"))
    assert problems == [f"load1: HammerDB does not run from {tmp_path / 'nowhere'} (hammerdb_dir: install it there, "
                        "e.g. with the HammerDB kit's install.sh)"]

    monkeypatch.delenv("FLASHPOC_T_SUPER")
    facts, problems = check_hammerdb(host, settings, str(tmp_path / "noenv"))
    assert problems == ["load1: environment variable FLASHPOC_T_SUPER is not set on this host (the HammerDB scripts "
                        "read the passwords there; env_file may export them)"]


@pytest.mark.hammerdb
def test_the_cpu_sampler_stops_when_hammerdb_ends(tmp_path, monkeypatch):
    """The load host's CPU is sampled beside HammerDB and the sampler is stopped when HammerDB exits:
    with ten minutes between two samples, the run still ends when HammerDB does (polled, as it was,
    the command waited out the sampler's sleep and was cut short), with a sample before and after."""
    from flashpoc.engines.hammerdb import run as hammerdb_run

    hammerdb = real_hammerdb()
    monkeypatch.setattr(hammerdb_run, "CPU_EVERY_S", 600)
    run = run_hammerdb(LocalHost(HostParams(name="load1")), "puts flashpoc-ran\nexit\n", str(tmp_path / "r"),
                       hammerdb_dir=str(hammerdb), timeout_s=120, purpose="timed run")
    assert run.exit_code == 0 and "flashpoc-ran" in run.console
    samples = run.files[hammerdb_run.CPU_LOG].splitlines()
    assert len(samples) == 2 and all(re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d cpu( +\d+)+", s) for s in samples)

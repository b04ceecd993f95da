"""Running HammerDB through the host interface (locally and over SSH), with the real HammerDB and
no database: the planner's scripts stop at once, by name, when a password variable is missing, and
fail fast on a closed port; no secret reaches the console or the files, and HammerDB's SQLite
stores (which hold the settings, passwords included) are removed before the files come back."""

from __future__ import annotations

import socket

import pytest
from pg_server import real_hammerdb

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
                               "rampup_minutes": 0, "duration_minutes": 1, "virtual_users": [1]} | changes)


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
    command = run_command("/opt/hammer db", "/tmp/run; rm -rf /", "/etc/x'y")
    assert "'/opt/hammer db'" in command and "'/tmp/run; rm -rf /'/script.tcl" in command
    assert "'/etc/x'\"'\"'y'" in command


@pytest.mark.ssh
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

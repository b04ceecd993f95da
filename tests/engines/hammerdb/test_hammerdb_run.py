"""Running HammerDB through the host interface (locally and over SSH), with the real HammerDB and
no database: the planner's scripts stop at once, by name, when a password variable is missing, and
fail fast on a closed port; no secret reaches the console or the files, and HammerDB's SQLite
stores (which hold the settings, passwords included) are removed before the files come back."""

from __future__ import annotations

import re
import socket
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pg_server import real_hammerdb

from flashpoc.engines.hammerdb.check import check_hammerdb
from flashpoc.engines.hammerdb.parse import parse_files
from flashpoc.engines.hammerdb.plan import build_script, run_script
from flashpoc.engines.hammerdb.run import run_command, run_hammerdb
from flashpoc.engines.hammerdb.settings import settings_from_dict
from flashpoc.core.errors import ParseError, RemoteError
from flashpoc.params import HostParams
from flashpoc.hosts.host import LocalHost, connect, split_exit_status

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


FAKE_CLI = """#!/bin/sh
# a stand-in for hammerdbcli: what it was given, and a settings store as HammerDB writes one
printf 'argv=%s|TMP=%s|ENVED=%s\\n' "$2" "$TMP" "$ENVED"
echo secret > "$TMP/postgresql.db"
exit 3
"""


@settings(max_examples=6, deadline=None)
@given(st.text(alphabet="ab $;'\"`\\&|*?~!{}()<>#=", min_size=1, max_size=12))
def test_run_command_quotes_every_value(tmp_path_factory, name):
    """Every path in the command is quoted: run by a real shell with a stand-in hammerdbcli in
    folders named with shell metacharacters, the stand-in gets exactly its paths, the env file is
    sourced, the exit status comes back, and the settings store it wrote is gone."""
    base = tmp_path_factory.mktemp("q")
    home, run_dir, env_file = base / f"hdb {name}", base / f"run {name}", base / f"env {name}"
    home.mkdir()
    (home / "hammerdbcli").write_text(FAKE_CLI)
    (home / "hammerdbcli").chmod(0o755)
    env_file.write_text("export ENVED=yes\n")
    run_dir.mkdir()
    out = LocalHost(HostParams(name="load1")).run(run_command(str(home), str(run_dir), str(env_file)),
                                                   purpose="quoting", timeout_s=60, check=False)
    code, console = split_exit_status(out.stdout)
    assert (code, console.strip()) == (3, f"argv={run_dir}/script.tcl|TMP={run_dir}|ENVED=yes")
    assert sorted(p.name for p in run_dir.iterdir()) == ["console.txt", "hammerdb.pid", "hostcpu.log"]
    assert all(p.stat().st_mode & 0o077 == 0 for p in run_dir.iterdir())  # 0600: only the load host's user


CUT_SHORT_CLI = """#!/bin/sh
# a stand-in for hammerdbcli that prints a password (as HammerDB's stack traces do) and is then killed
# with the whole command (as by a signal from outside): the command never prints the exit status
echo "connecting as postgres"
echo "read_more tid0x1 Pgtcl 127.0.0.1 5432 disable postgres $FLASHPOC_T_PW postgres"
sleep 1
kill -TERM 0
"""


def _stand_in(tmp_path: Path, script: str) -> Path:
    home = tmp_path / "hdb"
    home.mkdir()
    (home / "hammerdbcli").write_text(script)
    (home / "hammerdbcli").chmod(0o755)
    return home


def test_a_run_cut_short_quotes_its_last_lines_cleaned_of_passwords(tmp_path, monkeypatch):
    """A run that ends without HammerDB's exit status is one error quoting the console's last lines,
    as the load host's copy has them cleaned (the lines the workbook received hold the password)."""
    monkeypatch.setenv("FLASHPOC_T_PW", SECRET)
    home = _stand_in(tmp_path, CUT_SHORT_CLI)
    seen: list[str] = []
    with pytest.raises(RemoteError) as error:
        run_hammerdb(LocalHost(HostParams(name="load1")), "exit\n", str(tmp_path / "r"), hammerdb_dir=str(home),
                     secret_names=("FLASHPOC_T_PW",), timeout_s=60, purpose="timed run", on_line=seen.append)
    assert any(SECRET in line for line in seen)  # the live lines held it; the message must not
    assert str(error.value) == ("load1: timed run: HammerDB did not complete (exit 129): connecting as postgres | "
                                "read_more tid0x1 Pgtcl 127.0.0.1 5432 disable postgres *** postgres")
    assert not (tmp_path / "r").exists()


UNENDED_CLI = """#!/bin/sh
# a stand-in for hammerdbcli that ends as the real HammerDB 6.0 once did, its PostgreSQL server slow: the
# transaction counter's thread, still in its query when the timed run ended, failed to reach the exited
# main thread, and the stack trace stopped mid-line, without a newline (these are its last lines)
echo "Vuser 1:TEST RESULT : System achieved 1174 NOPM from 2714 PostgreSQL TPM"
printf '%s\\n' 'invoked from within' \\
  '"eval  [ subst {thread::send -async $MASTER { post_kill_transcount_cleanup }} ]"' \\
  '    (procedure "read_more" line 102)' '    invoked from within'
printf '%s' '"read_more tid0x7f9942074740 Pgtcl 127.0.0.1 10508 disable postgres *** postgres postgres postgres'
"""


def test_a_console_that_does_not_end_its_last_line_still_gives_hammerdb_s_exit_status(tmp_path):
    """HammerDB's output without a final newline left the exit status on its last line, where it
    was not looked for: a run that ended (exit 0) was "HammerDB did not complete". The status is
    read, and the unended line kept, whole, in the console."""
    home = _stand_in(tmp_path, UNENDED_CLI)
    run = run_hammerdb(LocalHost(HostParams(name="load1")), "exit\n", str(tmp_path / "r"), hammerdb_dir=str(home),
                       timeout_s=60, purpose="timed run")
    assert run.exit_code == 0
    assert run.console.endswith("\n    invoked from within\n\"read_more tid0x7f9942074740 Pgtcl 127.0.0.1 10508 "
                                "disable postgres *** postgres postgres postgres\n")
    assert "TEST RESULT : System achieved 1174 NOPM" in run.console and "@@flashpoc" not in run.console


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(st.characters(blacklist_characters="\n\r"), max_size=30), max_size=6), st.booleans(),
       st.integers(0, 255), st.lists(st.text(st.characters(blacklist_characters="\n\r"), min_size=1, max_size=10),
                                     max_size=2))
def test_the_exit_status_is_read_wherever_its_line_began(lines, ended, code, after):
    """Whatever an engine printed, ended with a newline or not, the exit status printed after it
    is read and the output is what was printed, each line whole, and no line of the mark (an
    unended empty line is nothing printed)."""
    lines = [line for line in lines if "@@flashpoc rc" not in line]
    printed = "\n".join(lines) + ("\n" if ended and lines else "")
    found, output = split_exit_status(printed + f"@@flashpoc rc {code}\n" + "".join(a + "\n" for a in after))
    whole = (lines[:-1] if lines and not ended and not lines[-1] else lines) + after
    assert found == code
    assert output == ("".join(line + "\n" for line in whole) or "\n")
    assert split_exit_status(printed) == (None, printed)


def test_a_load_host_without_awk_is_refused_before_hammerdb_runs(tmp_path, monkeypatch):
    """awk removes the passwords from a run's files: without it no run starts (no folder is made)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "mkdir").symlink_to("/bin/mkdir")
    monkeypatch.setenv("PATH", str(bin_dir))
    with pytest.raises(RemoteError) as error:
        run_hammerdb(LocalHost(HostParams(name="load1")), "exit\n", str(tmp_path / "r"), hammerdb_dir="/nowhere",
                     timeout_s=10, purpose="timed run")
    assert str(error.value) == ("load1: timed run: there is no awk on this host, with which the workbook removes the "
                                "passwords from every file of a HammerDB run: install awk (e.g. mawk or gawk)")
    assert not (tmp_path / "r").exists()


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
    assert not (tmp_path / "build").exists()  # the attempt's folder, with HammerDB's settings stores, removed


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


def test_what_a_killed_attempt_left_is_cleared_at_the_next_start(tmp_path):
    """A workbook killed outright leaves its attempt: HammerDB still running (its pid file), its
    settings stores with the passwords; an older flashpoc's run directories left stores too. The
    next start stops it and removes them, but another load host's live attempt."""
    import subprocess
    import sys

    from flashpoc.engines.hammerdb.run import PID_FILE, attempts_root, clear_stale

    work = tmp_path / "work"
    mine, other = Path(attempts_root(str(work), "oltp", "load1")), Path(attempts_root(str(work), "oltp", "load2"))
    left = mine / "probe-tprocc_t00001_ab-20261127T000000-0a0b0c"
    left.mkdir(parents=True)
    hammerdb = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", "./hammerdbcli", "auto"])
    (left / PID_FILE).write_text(f"{hammerdb.pid}\n")
    for store in ("hammer.DB", "postgresql.db", "generic.db-journal"):
        (left / store).write_text(SECRET)
    older = work / "oltp" / "probe" / "tprocc_t00001_ab"  # an earlier flashpoc's run directory
    older.mkdir(parents=True)
    (older / "postgresql.db").write_text(SECRET)
    (older / "console.txt").write_text("kept")
    (other / "probe-x").mkdir(parents=True)
    (other / "probe-x" / "hammer.DB").write_text("another host's attempt, running")
    try:
        clear_stale(LocalHost(HostParams(name="load1")), str(mine), purpose="probe")
        assert hammerdb.wait(timeout=30) == -9  # stopped
    finally:
        hammerdb.kill()
    assert not left.exists() and list(mine.iterdir()) == []
    assert sorted(str(p.relative_to(work)) for p in work.rglob("*") if p.is_file()) == [
        "oltp/hammerdb/load2/probe-x/hammer.DB", "oltp/probe/tprocc_t00001_ab/console.txt"]


@pytest.mark.hammerdb
def test_the_cpu_sampler_sees_hammerdb_end_without_sleeping_out_its_interval(tmp_path, monkeypatch):
    """The sampler, in the command's own loop, looks every CPU_POLL_S whether HammerDB still runs:
    with ten minutes between two samples the run still ends when HammerDB does (a whole sleep of the
    interval would outlast the run's 120 s timeout), with its first sample and the one after HammerDB."""
    from flashpoc.engines.hammerdb import run as hammerdb_run

    hammerdb = real_hammerdb()
    monkeypatch.setattr(hammerdb_run, "CPU_EVERY_S", 600)
    run = run_hammerdb(LocalHost(HostParams(name="load1")), "puts flashpoc-ran\nexit\n", str(tmp_path / "r"),
                       hammerdb_dir=str(hammerdb), timeout_s=120, purpose="timed run")
    assert run.exit_code == 0 and "flashpoc-ran" in run.console
    samples = run.files[hammerdb_run.CPU_LOG].splitlines()
    assert len(samples) == 2 and all(re.fullmatch(rf"\d{{4}}-\d\d-\d\d \d\d:\d\d:\d\d {n} cpu( +\d+)+", s)
                                   for n, s in enumerate(samples))


@pytest.mark.hammerdb
def test_a_password_hammerdb_prints_is_in_no_console_and_no_file(tmp_path, monkeypatch):
    """Seen in a real run on a busy machine: HammerDB's transaction counter outlived the run and printed a
    Tcl stack trace whose ``read_more`` call carries the database password, into the console the workbook
    keeps. Here the real HammerDB prints both passwords (one holding the other) to its console and into a log."""
    hammerdb = real_hammerdb()
    monkeypatch.setenv("FLASHPOC_T_PW", SECRET + "-user")
    monkeypatch.setenv("FLASHPOC_T_SUPER", SECRET)
    script = ('puts "read_more tid0x1 Pgtcl 127.0.0.1 5432 disable postgres $::env(FLASHPOC_T_SUPER) tpcc '
              '$::env(FLASHPOC_T_PW) TPC-C"\nset f [open [file join $::env(TMP) trace.log] w]\n'
              'puts $f "pass=$::env(FLASHPOC_T_PW)"\nclose $f\nputs "Vuser 1:FINISHED SUCCESS"\nexit\n')
    run = run_hammerdb(LocalHost(HostParams(name="load1")), script, str(tmp_path / "r"), hammerdb_dir=str(hammerdb),
                       secret_names=_settings(hammerdb).password_variables, timeout_s=120, purpose="timed run")
    assert run.exit_code == 0 and "Vuser 1:FINISHED SUCCESS" in run.console
    assert "5432 disable postgres *** tpcc *** TPC-C" in run.console and SECRET not in run.console
    assert run.files["trace.log"] == "pass=***\n" and not any(SECRET in text for text in run.files.values())

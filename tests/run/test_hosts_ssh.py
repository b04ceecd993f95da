"""SSHHost and the environment check against a real OpenSSH server on 127.0.0.1."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import time
from pathlib import Path

import pytest

from flashpoc.campaign.check import check_environment, verdict
from flashpoc.core.errors import RemoteError
from flashpoc.params import HostParams, campaign_from_dict
from flashpoc.hosts.host import SSHHost, connect, join, quote
from ssh_server import free_port  # the sshd fixture comes from conftest.py

pytestmark = pytest.mark.ssh


def params(server, **overrides) -> HostParams:
    return HostParams(**server.host_params(**overrides))


@pytest.fixture()
def host(sshd):
    with connect(params(sshd)) as ssh_host:
        yield ssh_host


def accepted_logins(server) -> int:
    return server.log.read_text(errors="replace").count("Accepted publickey")


def test_connect_gives_an_ssh_host(sshd):
    assert isinstance(connect(params(sshd)), SSHHost)


def test_run_returns_stdout_over_one_connection(sshd, host):
    before = accepted_logins(sshd)
    result = host.run("echo hello; whoami; echo oops >&2", purpose="say hello")
    assert result.ok and result.stdout == f"hello\n{sshd.user}\n"
    assert result.stderr == "oops\n"
    assert host.run("hostname", purpose="name").stdout.strip() == os.uname().nodename
    assert host.run("exit 3", purpose="fail", check=False).exited == 3
    assert accepted_logins(sshd) == before + 1  # the connection is reused


def test_failed_command_names_host_purpose_and_stderr(host):
    with pytest.raises(RemoteError, match=r"ssh: list the void failed \(exit 2\):\n.*No such file"):
        host.run("ls /nonexistent-flashpoc", purpose="list the void")


def test_hostile_value_reaches_the_command_as_one_argument(host, tmp_path):
    marker = tmp_path / "x"
    hostile = f"a b; touch {marker}$(id) `touch {marker}2` 'q' \"d\" \\ $HOME *"
    result = host.run(f"printf '%s\\n' {quote(hostile)}", purpose="echo a hostile value")
    assert result.stdout == hostile + "\n"
    result = host.run(join(["printf", "<%s>\\n", hostile, "two"]), purpose="echo an argv")
    assert result.stdout == f"<{hostile}>\n<two>\n"
    assert list(tmp_path.iterdir()) == []


def test_put_text_read_text_round_trip(host, tmp_path):
    path = tmp_path / "sub dir" / "job's file.fio"
    text = "[global]\nioengine=libaio\n; ünïcode and $(not expanded) `nor this`\n\n"
    host.put_text(text, str(path))
    assert path.read_text() == text  # the server is this machine
    assert host.read_text(str(path)) == text


def test_large_input_goes_over_sftp_and_small_input_is_fast(host, tmp_path):
    big = "".join(f"line {i} $(x) `y` 'z'\n" for i in range(20000))  # ~400 KB: over the inline limit
    host.put_text(big, str(tmp_path / "big.txt"))
    assert (tmp_path / "big.txt").read_text() == big
    assert not list(Path("/tmp").glob(f".flashpoc-stdin-{os.getpid()}-*"))  # this process's (tests run side by side)
    started = time.monotonic()
    assert host.run("wc -c", purpose="count", stdin="x" * 2000).stdout.strip() == "2000"
    assert time.monotonic() - started < 10  # not one byte per 10 ms (that would be 20 s; 10: a loaded machine)


def test_timeout_is_reported_and_the_next_command_reconnects(host):
    started = time.monotonic()
    with pytest.raises(RemoteError, match="ssh: wait did not finish within 0.5 s"):
        host.run("sleep 10", purpose="wait", timeout_s=0.5)
    assert time.monotonic() - started < 5
    assert host.run("echo back", purpose="after a timeout").stdout == "back\n"


def test_a_hung_host_is_named_within_the_command_timeout(sshd):
    """The host freezes (sshd and everything under it stopped: its TCP connection stays open and
    nothing answers). A command on the open connection, and one that has to connect first (the
    connect timeout is longer), each end at their timeout and say it."""
    with connect(params(sshd, name="frozen", connect_timeout_s=20)) as ssh_host:
        assert ssh_host.run("echo up", purpose="before").stdout == "up\n"
        frozen = sshd.hang()
        try:
            for what in ("open connection", "new connection"):
                started = time.monotonic()
                with pytest.raises(RemoteError) as info:
                    ssh_host.run("true", purpose=f"ask on an {what}", timeout_s=2)
                assert time.monotonic() - started < 2 + 3, what  # (3: slack for a loaded machine)
                assert str(info.value).startswith(f"frozen: ask on an {what} did not finish within 2 s (no answer "
                                                  "from the host by then")
                assert ssh_host.silent
        finally:
            sshd.wake(frozen)
        assert ssh_host.run("echo back", purpose="after").stdout == "back\n" and not ssh_host.silent


def test_unknown_host_key_is_refused_by_default(sshd, tmp_path):
    empty = tmp_path / "known_hosts"
    empty.write_text("")
    for known_hosts in (empty, tmp_path / "absent_known_hosts"):
        with connect(params(sshd, known_hosts=str(known_hosts))) as ssh_host:
            with pytest.raises(RemoteError) as info:
                ssh_host.run("true", purpose="probe")
        message = str(info.value)
        assert f"ssh: the SSH host key of 127.0.0.1:{sshd.port} is unknown" in message
        assert str(known_hosts) in message and "trust_unknown_host_key" in message
    assert empty.read_text() == ""
    assert not (tmp_path / "absent_known_hosts").exists()


def test_trust_unknown_host_key_records_it(sshd, tmp_path):
    known_hosts = tmp_path / "ssh" / "known_hosts"
    with connect(params(sshd, known_hosts=str(known_hosts), trust_unknown_host_key=True)) as ssh_host:
        assert ssh_host.run("echo first", purpose="first contact").stdout == "first\n"
    recorded = known_hosts.read_text()
    assert f"[127.0.0.1]:{sshd.port} {sshd.host_key_pub}" in recorded
    with connect(params(sshd, known_hosts=str(known_hosts))) as ssh_host:  # known now: no trust needed
        assert ssh_host.run("echo again", purpose="second contact").stdout == "again\n"


def test_changed_host_key_is_refused_even_with_trust(sshd, tmp_path):
    other = tmp_path / "other_key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(other)], check=True, timeout=30)
    key_type, key = (tmp_path / "other_key.pub").read_text().split()[:2]
    known_hosts = tmp_path / "known_hosts"
    known_hosts.write_text(f"[127.0.0.1]:{sshd.port} {key_type} {key}\n")
    with connect(params(sshd, known_hosts=str(known_hosts), trust_unknown_host_key=True)) as ssh_host:
        with pytest.raises(RemoteError, match="has CHANGED"):
            ssh_host.run("true", purpose="probe")


def test_wrong_key_is_refused(sshd, tmp_path):
    stranger = tmp_path / "stranger"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(stranger)], check=True, timeout=30)
    with connect(params(sshd, key_file=str(stranger))) as ssh_host:
        with pytest.raises(RemoteError, match=f"ssh: cannot connect to 127.0.0.1:{sshd.port} to probe"):
            ssh_host.run("true", purpose="probe")


def test_closed_port_names_the_host_within_the_connect_timeout(sshd):
    port = free_port()
    started = time.monotonic()
    with connect(params(sshd, name="gone", port=port, connect_timeout_s=2)) as ssh_host:
        with pytest.raises(RemoteError, match=f"gone: cannot connect to 127.0.0.1:{port} to probe"):
            ssh_host.run("true", purpose="probe")
    assert time.monotonic() - started < 3


def test_a_group_of_ssh_hosts_names_every_host_it_cannot_reach(sshd):
    """Three SSH hosts, two on closed ports: one error names both with their address, and the
    host that answers gives its output."""
    from flashpoc.hosts.group import Group, GroupError

    p1, p2 = free_port(), free_port()
    hosts = [connect(params(sshd, name="gone1", port=p1, connect_timeout_s=2)), connect(params(sshd)),
             connect(params(sshd, name="gone2", port=p2, connect_timeout_s=2))]
    with Group(hosts) as group:
        result = group.run("echo up", purpose="probe")
    assert [r.stdout for r in result] == ["up\n"] and list(result.failed) == ["gone1", "gone2"]
    with pytest.raises(GroupError) as raised:
        result.raise_failed()
    assert re.fullmatch(rf"probe failed on 2 of 3 hosts \(gone1, gone2\):\n"
                        rf"- gone1: cannot connect to 127\.0\.0\.1:{p1} to probe: [^\n]+\n"
                        rf"- gone2: cannot connect to 127\.0\.0\.1:{p2} to probe: [^\n]+", str(raised.value))


def test_mute_port_names_the_host_within_the_connect_timeout():
    """A port that accepts TCP but never sends an SSH banner (a hung daemon, a firewall proxy)."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        hp = HostParams(name="mute", address="127.0.0.1", port=port, connect_timeout_s=1)
        started = time.monotonic()
        with connect(hp) as ssh_host:
            with pytest.raises(RemoteError, match=f"mute: cannot connect to 127.0.0.1:{port} to probe"):
                ssh_host.run("true", purpose="probe")
        assert time.monotonic() - started < 3


def test_check_environment_over_ssh(sshd, tmp_path):
    campaign = campaign_from_dict({
        "campaign": "ssh-check",
        "hosts": [
            {"name": "local", "address": "localhost"},
            sshd.host_params("ssh"),
            sshd.host_params("down", port=free_port(), connect_timeout_s=2),
        ],
        "targets": [{"name": "t1", "path": str(tmp_path / "f.dat"), "size": "16m", "create": True}],
    })
    df = check_environment(campaign)
    assert verdict(df) == "fail"
    value = df.set_index(["host", "check"])["value"]
    assert value["ssh", "reachable"] == "yes"
    assert value["ssh", "cpus"] == value["local", "cpus"] == os.cpu_count()
    assert value["ssh", "kernel"] == os.uname().release
    assert value["ssh", "fio"] == value["local", "fio"]
    assert value["ssh", "target t1: exists"] == "missing"
    ssh_rows = df[df.host == "ssh"].drop(columns="host").reset_index(drop=True)
    local_rows = df[df.host == "local"].drop(columns="host").reset_index(drop=True)
    same = ssh_rows.drop(columns=["value", "detail"]).equals(local_rows.drop(columns=["value", "detail"]))
    assert same, (ssh_rows.to_string(), local_rows.to_string())
    down = df[df.host == "down"]
    assert list(down.check) == ["reachable"] and list(down.status) == ["fail"]
    assert "down: cannot connect to 127.0.0.1" in down.iloc[0].detail
    assert (df[df.host != "down"].status != "fail").all(), df.to_string()


PASSPHRASE = "Key-Passphrase-8086?"


@pytest.fixture(scope="module")
def protected_key(sshd, tmp_path_factory):
    """An ed25519 key protected by PASSPHRASE, authorized on the test sshd."""
    key = tmp_path_factory.mktemp("protected") / "id_protected"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", PASSPHRASE, "-C", "protected", "-f", str(key)],
                   check=True, timeout=30)
    authorized = Path(sshd.key_file).parent / "authorized_keys"
    authorized.write_text(authorized.read_text() + Path(f"{key}.pub").read_text())
    return str(key)


def test_a_key_with_a_passphrase_from_an_environment_variable(sshd, protected_key, monkeypatch):
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    monkeypatch.delenv("POC_SSH_PASSPHRASE", raising=False)
    with connect(params(sshd, key_file=protected_key)) as ssh_host:
        with pytest.raises(RemoteError, match="is protected by a passphrase: load it into ssh-agent"):
            ssh_host.run("true", purpose="probe")
    with connect(params(sshd, key_file=protected_key, key_passphrase_env="POC_SSH_PASSPHRASE")) as ssh_host:
        with pytest.raises(RemoteError, match="environment variable POC_SSH_PASSPHRASE, which is not set"):
            ssh_host.run("true", purpose="probe")
        monkeypatch.setenv("POC_SSH_PASSPHRASE", "not-the-passphrase")
        with pytest.raises(RemoteError, match="ssh: cannot connect") as info:
            ssh_host.run("true", purpose="probe")
        assert "not-the-passphrase" not in str(info.value)
        monkeypatch.setenv("POC_SSH_PASSPHRASE", PASSPHRASE)
        assert ssh_host.run("echo in", purpose="probe").stdout == "in\n"


def test_a_key_with_a_passphrase_in_ssh_agent(sshd, protected_key, tmp_path, monkeypatch):
    """The key loaded into a real ssh-agent (ssh-add asks SSH_ASKPASS for the passphrase); the
    parameters name no key at all."""
    socket_path = tmp_path / "agent.sock"
    agent = subprocess.Popen(["ssh-agent", "-D", "-a", str(socket_path)], stdout=subprocess.DEVNULL)
    try:
        askpass = tmp_path / "askpass"
        askpass.write_text(f"#!/bin/sh\necho '{PASSPHRASE}'\n")
        askpass.chmod(0o700)
        for _ in range(100):
            if socket_path.exists():
                break
            time.sleep(0.05)
        env = dict(os.environ, SSH_AUTH_SOCK=str(socket_path), SSH_ASKPASS=str(askpass),
                   SSH_ASKPASS_REQUIRE="force", DISPLAY=":0")
        subprocess.run(["ssh-add", protected_key], env=env, check=True, capture_output=True, timeout=30,
                       stdin=subprocess.DEVNULL)
        monkeypatch.setenv("SSH_AUTH_SOCK", str(socket_path))
        monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.ssh/id_* to fall back on
        with connect(params(sshd, key_file=None)) as ssh_host:
            assert ssh_host.run("echo agent", purpose="probe").stdout == "agent\n"
    finally:
        agent.terminate()
        agent.wait(timeout=10)


def test_a_passphrase_variable_needs_a_key_file_and_a_name(tmp_path):
    from conftest import quick_campaign
    from flashpoc.core.errors import ParameterError

    def hosts(**fields):
        return quick_campaign(tmp_path, hosts=[{"name": "db1", "address": "10.0.0.7", **fields}])

    with pytest.raises(ParameterError, match="key_passphrase_env is the passphrase of key_file"):
        campaign_from_dict(hosts(key_passphrase_env="POC_SSH_PASSPHRASE"))
    with pytest.raises(ParameterError, match=r"hosts\[0\].key_passphrase_env: must be the NAME") as info:
        campaign_from_dict(hosts(key_file="/k", key_passphrase_env=PASSPHRASE))
    assert PASSPHRASE not in str(info.value)

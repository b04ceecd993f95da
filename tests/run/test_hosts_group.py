"""Several hosts through one Group (flashpoc.hosts.group) and the library's FakeHost (flashpoc.hosts.fake)."""

from __future__ import annotations

import re
import threading

import pytest

from conftest import require_fio
from flashpoc.engines.fio.run import fio_version
from flashpoc.core.errors import ParseError, RemoteError
from flashpoc.params import HostParams
from flashpoc.hosts.fake import Call, FakeHost, Reply, UnexpectedCommand
from flashpoc.hosts.group import MAX_PARALLEL_HOSTS, Group, GroupError
from flashpoc.hosts.host import CommandResult, LocalHost


def local(name: str, **params) -> LocalHost:
    return LocalHost(HostParams(name=name, **params))


def test_every_failed_host_is_named_with_its_reason_on_real_local_hosts(tmp_path):
    """Two hosts of three without fio: the error names both, each with the shell's own reason,
    in the hosts' order; the third host's version is still there."""
    require_fio()
    hosts = [local("db1", fio=str(tmp_path / "no-fio")), local("db2"), local("db3", fio=str(tmp_path / "gone"))]
    result = Group(hosts).map(fio_version, purpose="read the fio version")
    assert list(result.failed) == ["db1", "db3"] and list(result.succeeded) == ["db2"]
    assert re.fullmatch(r"fio-\d+\.\d+\S*", result["db2"])
    with pytest.raises(GroupError) as raised:
        result.raise_failed()
    message = str(raised.value)
    first, *items = message.split("\n- ")
    assert first == "read the fio version failed on 2 of 3 hosts (db1, db3):"
    assert items[0].startswith("db1: read the fio version failed (exit 127):\n  ")
    assert items[1].startswith("db3: read the fio version failed (exit 127):\n  ")
    assert str(tmp_path / "no-fio") in items[0] and str(tmp_path / "gone") in items[1]
    assert isinstance(raised.value, RemoteError) and raised.value.result is result
    with pytest.raises(RemoteError, match="db3: read the fio version failed"):
        result["db3"]


def test_one_failed_host_keeps_its_own_message_and_a_run_goes_to_every_host():
    hosts = [local("a"), local("b")]
    result = Group(hosts).run("echo $((6 * 7))", purpose="compute")
    assert [r.stdout for r in result] == ["42\n", "42\n"] and result.ok
    with pytest.raises(GroupError) as raised:
        Group([FakeHost("a", commands={"x": "1\n"}), FakeHost("b", commands={"x": Reply(stderr="boom", exited=2)})],
              strict=True).run("x", purpose="do x")
    assert str(raised.value) == "b: do x failed (exit 2):\nboom"
    assert raised.value.result["a"].stdout == "1\n"


def test_results_keep_the_hosts_order_whatever_order_they_finish_in():
    """The first host answers last (it waits until the others have answered)."""
    done, answered = threading.Condition(), []

    def slow_first(host):
        with done:
            if host.name == "h0":
                assert done.wait_for(lambda: len(answered) == 2, timeout=30)
            answered.append(host.name)
            done.notify_all()
        return host.name.upper()

    hosts = [FakeHost(f"h{i}") for i in range(3)]
    result = Group(hosts).map(slow_first)
    assert answered[-1] == "h0"
    assert list(result) == ["H0", "H1", "H2"] and result.names == ("h0", "h1", "h2")


def test_a_group_serves_at_most_max_workers_hosts_at_once():
    threads, lock = set(), threading.Lock()
    active, most = [0], [0]

    def work(host):
        with lock:
            threads.add(threading.current_thread().name)
            active[0] += 1
            most[0] = max(most[0], active[0])
        try:
            return host.run("true", purpose="answer").exited
        finally:
            with lock:
                active[0] -= 1

    hosts = [FakeHost(f"h{i}", commands={"true": ""}) for i in range(7)]
    assert list(Group(hosts, max_workers=2).map(work)) == [0] * 7
    assert len(threads) <= 2 and most[0] <= 2
    assert MAX_PARALLEL_HOSTS == 32


def test_an_exception_not_of_flashpoc_is_named_with_its_type_and_other_hosts_still_run():
    def parse(host):
        if host.name == "b":
            raise ValueError("bad number")
        if host.name == "c":
            raise ParseError("c: the fio JSON is truncated")
        return 1

    result = Group([FakeHost("a"), FakeHost("b"), FakeHost("c")]).map(parse, purpose="parse")
    assert list(result.succeeded) == ["a"]
    message = str(GroupError(result))
    assert "- b: ValueError: bad number\n- c: the fio JSON is truncated" in message


def test_a_group_refuses_two_hosts_of_one_name_and_closes_every_host():
    with pytest.raises(ValueError, match="distinct names"):
        Group([FakeHost("a"), FakeHost("a")])
    hosts = [FakeHost("a"), FakeHost("b")]
    with Group(hosts):
        pass
    assert [h.closed for h in hosts] == [1, 1]


def test_fake_host_answers_scripted_commands_records_them_and_refuses_others():
    host = FakeHost("db1", commands={
        "fio --version": "fio-3.33\n",
        re.compile(r"^cat "): Reply(stderr="cat: x: No such file or directory", exited=1),
        re.compile(r"^wc -c$"): lambda command, stdin: Reply(f"{len(stdin)}\n"),
        "true": RemoteError("db1: see whether it answers: no answer"),
    })
    assert host.name == "db1" and host.params.name == "db1" and not host.silent
    assert fio_version(host) == "fio-3.33"
    assert host.run("wc -c", purpose="count", stdin="abc").stdout == "3\n"
    assert host.run("cat x", purpose="read", check=False) == CommandResult("", "cat: x: No such file or directory", 1)
    with pytest.raises(RemoteError, match=r"db1: read x failed \(exit 1\):\ncat: x: No such file"):
        host.run("cat x", purpose="read x")
    with pytest.raises(RemoteError, match="no answer"):
        host.run("true", purpose="see whether it answers")
    with pytest.raises(UnexpectedCommand, match="db1: no scripted answer for 'rm -rf /'"):
        host.run("rm -rf /", purpose="clean up")
    assert host.calls[1] == Call("wc -c", "count", "abc", host.params.command_timeout_s)
    assert host.commands_run == ["fio --version", "wc -c", "cat x", "cat x", "true", "rm -rf /"]


def test_an_unexpected_command_is_not_hidden_by_a_group():
    with pytest.raises(UnexpectedCommand):
        Group([FakeHost("a"), FakeHost("b")]).run("anything", purpose="try")


def test_fake_host_files_round_trip():
    host = FakeHost("h", files={"/etc/x": "one\n"})
    host.put_text("two\n", "/tmp/y")
    assert host.read_text("/etc/x") == "one\n" and host.read_text("/tmp/y") == "two\n"
    with pytest.raises(RemoteError, match="h: read a file failed"):
        host.read_text("/missing")


def test_closing_a_campaign_stops_the_fio_servers_ignoring_hosts_that_fail_or_are_silent(tmp_path):
    """The session's policy: stopping fio's servers asks every host that still answers, one that
    fails is ignored (closing must not hide why the phase ended), a silent one is not asked, and
    every connection is closed and the campaign released."""
    from conftest import quick_campaign
    from flashpoc.params import campaign_from_dict
    from flashpoc.campaign.session import open_campaign
    from flashpoc.engines.fio.settings import SERVERS

    cfg = campaign_from_dict(quick_campaign(tmp_path, hosts=[{"name": n, "address": "localhost"} for n in "abc"]))
    stop = re.compile(r"^cd .* && if \[ -f fio-server\.pid \]")
    wb = open_campaign(cfg)
    wb.hosts = {"a": FakeHost(params=cfg.hosts[0], commands={stop: Reply(stderr="pkill: killing pid 7 failed", exited=1)}),
                "b": FakeHost(params=cfg.hosts[1], commands={stop: RemoteError("b: stop fio --server: lost")}),
                "c": FakeHost(params=cfg.hosts[2], commands={stop: ""})}
    wb.hosts["c"].silent = True
    wb.engine_state[SERVERS] = True
    hosts = dict(wb.hosts)
    wb.close()
    assert [len(hosts[n].calls) for n in "abc"] == [1, 1, 0] and [hosts[n].closed for n in "abc"] == [1, 1, 1]
    with open_campaign(cfg):  # released: it opens again
        pass


def test_the_local_host_writes_a_file_whole_without_a_shell(tmp_path, monkeypatch):
    """This machine's put_text writes through the atomic write (parents made, the old file replaced
    whole, nothing half-written left beside it) and starts no process; a file that cannot be
    written is a RemoteError naming the host and the purpose."""
    import subprocess

    from flashpoc.hosts.host import LocalHost

    def no_process(*args, **kwargs):
        raise AssertionError(f"a process was started: {args}")

    host = LocalHost(HostParams(name="controller"))
    target = tmp_path / "clients" / "p1" / "job-h01.fio"
    monkeypatch.setattr(subprocess, "Popen", no_process)
    host.put_text("old\n", str(target))
    host.put_text("[global]\nrw=randread\n", str(target), purpose="write a client job file")
    assert target.read_text() == "[global]\nrw=randread\n" and sorted(p.name for p in target.parent.iterdir()) == [
        "job-h01.fio"]
    (tmp_path / "file").write_text("x")
    with pytest.raises(RemoteError, match=r"^controller: write a client job file failed: cannot write .*file/job"):
        host.put_text("y", str(tmp_path / "file" / "job"), purpose="write a client job file")

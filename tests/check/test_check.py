"""Environment check: pure evaluation of fact dicts, the facts script run locally, and a
whole local check (no SSH here; see test_hosts_ssh.py)."""

from __future__ import annotations

import copy
import os
import re
import shutil
import subprocess

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import require_fio
from flashpoc.campaign.check import (
    check_environment,
    evaluate_facts,
    require_pass,
    verdict,
)
from flashpoc.core.records import CAMPAIGN_ROW_HOST, COLUMNS, format_bytes
from flashpoc.engines.checks import evaluate_campaign
from flashpoc.engines.fio.check import controller_fio_row, parse_fio_version
from flashpoc.hosts import safety
from flashpoc.core.errors import CheckFailed, ParseError, RemoteError
from flashpoc.params import HostParams, campaign_from_dict
from flashpoc.hosts.facts import collect_host_facts, facts_script, parse_facts
from flashpoc.hosts.fake import FakeHost
from flashpoc.hosts.host import LocalHost, quote

MIB = 1024**2
GIB = 1024**3

# Facts as parse_facts returns them for a database host with one multipath LUN and one
# missing scratch file (hand-written after a real run; see test_parse_facts_local).
LUN = {
    "path": "/dev/mapper/lun1", "exists": True, "type": "block", "size_bytes": 100 * GIB,
    "parent_exists": True, "parent_writable": True, "free_bytes": None, "direct": True,
    "direct_error": None, "source": "/dev/mapper/lun1", "device": "dm-3", "slaves": "sdb sdc",
    "scheduler": "none", "queue_depth": None, "nr_requests": 256, "rotational": False,
    "header_hex": "00" * 8192, "blkid": "none", "mounted": "none", "holders": "none", "open_by": "none",
}
SCRATCH = {
    "path": "/data/scratch.dat", "exists": False, "type": "missing", "size_bytes": None,
    "parent_exists": True, "parent_writable": True, "free_bytes": 50 * GIB, "direct": True,
    "direct_error": None, "source": "/dev/sda2", "device": "sda", "slaves": None,
    "scheduler": "mq-deadline", "queue_depth": 32, "nr_requests": 64, "rotational": False,
}
FACTS = {
    "facts_version": 1, "hostname": "db1", "os": "Oracle Linux Server 8.9", "kernel": "5.15.0-200.el8uek",
    "cpus": 32, "mem_total_bytes": 256 * GIB, "fio_path": "/usr/bin/fio", "fio_version": "fio-3.35",
    "targets": [LUN, SCRATCH], "clock_offset_ms": 12.5, "clock_rtt_ms": 3.0, "tools_missing": "none",
}


def make_campaign(**overrides):
    values = {
        "campaign": "unit",
        "hosts": [{"name": "db1", "address": "db1.example.com"}],
        "targets": [
            {"name": "lun1", "path": "/dev/mapper/lun1", "allow_write": True},
            {"name": "scratch", "path": "/data/scratch.dat", "size": "10g", "create": True},
        ],
    }
    values.update(overrides)
    return campaign_from_dict(values)


def facts_with(**target_changes):
    """FACTS with the scratch target's facts changed."""
    facts = copy.deepcopy(FACTS)
    facts["targets"][1].update(target_changes)
    return facts


def rows_by_check(rows):
    return {r["check"]: r for r in rows}


def evaluate(facts, campaign=None):
    campaign = campaign or make_campaign()
    return rows_by_check(evaluate_facts(campaign, campaign.hosts[0], facts))


# -- pure evaluation -------------------------------------------------------------------
def test_a_host_without_procps_is_warned_of_what_it_costs(tmp_path):
    """The facts script on a real shell whose PATH has every command of this machine's but pkill and
    pgrep (a host without procps): the check warns, saying what each missing tool is needed for."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for folder in os.environ["PATH"].split(os.pathsep):
        for command in (os.listdir(folder) if os.path.isdir(folder) else []):
            if command not in ("pkill", "pgrep") and not (bin_dir / command).exists():
                (bin_dir / command).symlink_to(os.path.join(folder, command))
    script = facts_script("fio", [str(tmp_path)])
    out = subprocess.run([shutil.which("sh"), "-c", script], capture_output=True, text=True, timeout=120,
                         env={"PATH": str(bin_dir)})
    facts = parse_facts(out.stdout)
    assert facts["tools_missing"] == "pkill pgrep"
    row = evaluate(facts)["host tools"]
    assert (row["value"], row["status"]) == ("pkill pgrep", "warn")
    assert row["detail"].startswith("no pkill: Ctrl-C and a point past its timeout end the command on the host with "
                                    "it") and "; no pgrep: fio's server is waited for with it" in row["detail"]
    here = parse_facts(subprocess.run(["sh", "-c", script], capture_output=True, text=True, timeout=120).stdout)
    assert here["tools_missing"] == "none" and evaluate(here)["host tools"]["status"] == "pass"
    assert evaluate({**FACTS, "tools_missing": None})["host tools"]["status"] == "warn"


def test_evaluate_good_host_passes():
    rows = evaluate(FACTS)
    assert {r["status"] for r in rows.values()} == {"pass"}
    assert rows["cpus"]["value"] == 32
    assert rows["fio"]["value"] == "3.35"
    assert rows["target lun1: exists"]["value"] == "block"
    assert rows["target lun1: size"]["value"] == 100 * GIB
    assert "target lun1: free space" not in rows  # no file system to fill on a device
    assert rows["target lun1: device"]["value"] == "dm-3"
    assert "sdb sdc" in rows["target lun1: device"]["detail"]
    assert rows["target scratch: exists"]["detail"] == "will be created (10.0 GiB)"
    assert rows["target scratch: queue depth"]["value"] == 32
    assert all(set(r) == set(COLUMNS) for r in rows.values())


def test_missing_fio_fails():
    facts = dict(FACTS, fio_path="missing", fio_version="missing")
    row = evaluate(facts)["fio"]
    assert (row["status"], row["value"]) == ("fail", "missing")
    assert "'fio' was not found" in row["detail"]


def test_old_fio_warns_and_garbled_version_warns():
    assert evaluate(dict(FACTS, fio_version="fio-2.1.4"))["fio"]["status"] == "warn"
    assert evaluate(dict(FACTS, fio_version="fio-2.1.4"))["fio"]["value"] == "2.1"
    assert evaluate(dict(FACTS, fio_version=None))["fio"]["status"] == "warn"
    assert parse_fio_version("fio-3.36-45-gabcdef") == (3, 36)
    assert parse_fio_version("fio-10.2") == (10, 2)
    assert parse_fio_version(None) is None


def test_missing_target_with_create_depends_on_free_space():
    enough = evaluate(facts_with(free_bytes=10 * GIB))  # exactly the size is enough
    assert enough["target scratch: exists"]["status"] == "pass"
    short = evaluate(facts_with(free_bytes=10 * GIB - 1))
    assert short["target scratch: exists"]["status"] == "fail"
    assert "needs 10.0 GiB" in short["target scratch: exists"]["detail"]
    assert short["target scratch: free space"]["status"] == "fail"
    unknown = evaluate(facts_with(free_bytes=None))
    assert unknown["target scratch: exists"]["status"] == "warn"


def test_missing_target_with_create_needs_its_directory():
    rows = evaluate(facts_with(parent_exists=False, parent_writable=False, free_bytes=None))
    assert rows["target scratch: exists"]["status"] == "fail"
    assert "/data does not exist" in rows["target scratch: exists"]["detail"]
    rows = evaluate(facts_with(parent_writable=False))
    assert "not writable" in rows["target scratch: exists"]["detail"]


def test_missing_target_without_create_fails():
    campaign = make_campaign(targets=[{"name": "data", "path": "/data/scratch.dat", "size": "10g"}],
                             workloads=[{"name": "r", "rw": "randread"}])
    rows = evaluate(FACTS, campaign)
    assert rows["target data: exists"]["status"] == "fail"
    assert "does not exist" in rows["target data: exists"]["detail"]
    assert "target data: O_DIRECT" not in rows


def test_a_missing_lun_is_not_told_to_be_created():
    """A /dev path the host does not have (facts collected for real on this machine): the hint is
    the LUN's mapping, never ``create: true``, which a /dev path refuses."""
    path = "/dev/mapper/flashpoc-absent-lun"
    with local_host() as host:
        facts = collect_host_facts(host, [path])
    assert facts["targets"][0]["type"] == "missing"
    campaign = make_campaign(targets=[{"name": "lun9", "path": path}], workloads=[{"name": "r", "rw": "randread"}])
    row = evaluate(facts, campaign)["target lun9: exists"]
    assert row["status"] == "fail" and "create: true" not in row["detail"]
    assert row["detail"] == (f"{path} does not exist on db1: a device is never created; is the LUN mapped to this host "
                             "and its path up (lsblk, multipath -ll, the array's host mapping), or is the path misspelt?")
    with pytest.raises(Exception, match="create: true is for files"):  # the hint it gave before cannot be followed
        make_campaign(targets=[{"name": "lun9", "path": path, "size": "1g", "create": True}])


def test_directory_target_fails():
    rows = evaluate(facts_with(type="directory", exists=True))
    assert rows["target scratch: exists"]["status"] == "fail"
    assert "a directory" in rows["target scratch: exists"]["detail"]


def test_target_smaller_than_size_fails():
    facts = copy.deepcopy(FACTS)
    facts["targets"][0]["size_bytes"] = 8 * GIB
    campaign = make_campaign(targets=[{"name": "lun1", "path": "/dev/mapper/lun1", "size": "10g",
                                       "allow_write": True}])
    row = evaluate(facts, campaign)["target lun1: size"]
    assert (row["status"], row["value"]) == ("fail", 8 * GIB)
    assert "smaller than size 10g" in row["detail"]
    facts["targets"][0]["size_bytes"] = 10 * GIB
    assert evaluate(facts, campaign)["target lun1: size"]["status"] == "pass"


def test_o_direct_failure_fails_only_with_direct_io():
    facts = copy.deepcopy(FACTS)
    facts["targets"][0].update(direct=False, direct_error="dd: failed to open '/dev/mapper/lun1': Invalid argument")
    row = evaluate(facts)["target lun1: O_DIRECT"]
    assert row["status"] == "fail"
    assert "does not support O_DIRECT" in row["detail"] and "Invalid argument" in row["detail"]
    buffered = make_campaign(fio={"direct": False})
    assert evaluate(facts, buffered)["target lun1: O_DIRECT"]["status"] == "warn"
    facts["targets"][0].update(direct=None, direct_error=None)
    assert evaluate(facts)["target lun1: O_DIRECT"]["status"] == "warn"


def test_rotational_device_warns_and_unknown_device_warns():
    rows = evaluate(facts_with(rotational=True))
    assert rows["target scratch: device"]["status"] == "warn"
    assert rows["target scratch: scheduler"]["status"] == "pass"
    rows = evaluate(facts_with(device=None, source="overlay", scheduler=None))
    assert rows["target scratch: device"]["status"] == "warn"
    assert "overlay" in rows["target scratch: device"]["detail"]
    assert "target scratch: scheduler" not in rows


def test_target_without_facts_fails():
    facts = dict(FACTS, targets=[LUN])
    row = evaluate(facts)["target scratch: exists"]
    assert row["status"] == "fail" and "no facts" in row["detail"]


def test_working_set_sums_sizes_and_whole_devices():
    campaign = make_campaign()
    row, cache = evaluate_campaign(campaign, {"db1": FACTS})
    assert row["host"] == CAMPAIGN_ROW_HOST
    assert (row["check"], row["value"], row["status"]) == ("working set", 110 * GIB, "pass")
    assert (cache["check"], cache["status"]) == ("working set vs array cache", "warn")  # under 1 TB, no array_cache
    row, cache = evaluate_campaign(campaign, {"db1": None})
    assert (row["value"], row["status"]) == (10 * GIB, "warn")
    assert "size unknown: lun1" in row["detail"] and "targets lun1 have no known size" in cache["detail"]


def test_verdict_and_require_pass():
    rows = [
        {"host": "a", "check": "fio", "value": "missing", "status": "fail", "detail": "fio not found"},
        {"host": "b", "check": "reachable", "value": "no", "status": "fail", "detail": "connection refused"},
        {"host": "a", "check": "cpus", "value": 4, "status": "warn", "detail": ""},
    ]
    df = pd.DataFrame(rows, columns=COLUMNS)
    assert verdict(df) == "fail"
    assert verdict(df.iloc[2:]) == "warn"
    assert verdict(df.iloc[0:0]) == "pass"
    with pytest.raises(CheckFailed) as info:
        require_pass(df)
    message = str(info.value)
    assert "a / fio: fio not found" in message and "b / reachable: connection refused" in message
    assert "cpus" not in message
    require_pass(df.iloc[2:])  # warnings pass


def test_format_bytes():
    assert format_bytes(512) == "512 B"
    assert format_bytes(16 * MIB) == "16.0 MiB"
    assert format_bytes(3 * 1024**5) == "3072.0 TiB"
    assert format_bytes(None) == "unknown"


# -- facts script and parser -----------------------------------------------------------
def local_host(**params) -> LocalHost:
    return LocalHost(HostParams(name="local", **params))


def test_parse_facts_local(tmp_path):
    data = tmp_path / "f.dat"
    data.write_bytes(b"\0" * 65536)
    missing = tmp_path / "new dir"
    missing.mkdir()
    paths = [str(data), str(missing / "n.dat"), str(tmp_path / "absent" / "x.dat")]
    result = local_host().run(f"sh -c {quote(facts_script('fio', paths, creating=paths[1:]))}", purpose="facts")
    facts = parse_facts(result.stdout)

    assert facts["facts_version"] == 1
    assert facts["hostname"] == os.uname().nodename
    assert facts["kernel"] == os.uname().release
    assert facts["cpus"] == os.cpu_count()
    assert facts["mem_total_bytes"] > 0 and facts["mem_total_bytes"] % 1024 == 0
    if shutil.which("fio"):
        assert facts["fio_path"] == shutil.which("fio")
        assert facts["fio_version"].startswith("fio-")

    existing, to_create, nowhere = facts["targets"]
    assert existing["path"] == str(data)
    assert (existing["exists"], existing["type"], existing["size_bytes"]) == (True, "file", 65536)
    assert existing["free_bytes"] == pytest.approx(shutil.disk_usage(tmp_path).free, rel=0.05)
    assert existing["direct"] in (True, False)  # tmpfs before Linux 6.6 has no O_DIRECT
    assert (to_create["exists"], to_create["type"], to_create["size_bytes"]) == (False, "missing", None)
    assert to_create["parent_exists"] is True and to_create["free_bytes"] > 0
    assert to_create["direct"] == existing["direct"]
    assert sorted(p.name for p in missing.iterdir()) == []  # the O_DIRECT probe file is gone
    assert data.read_bytes() == b"\0" * 65536  # and the existing target untouched
    # a file in missing directories: they are created with it, so the facts describe the
    # nearest existing directory (tmp_path): its free space and O_DIRECT
    assert (nowhere["exists"], nowhere["parent_exists"]) == (False, True)
    assert nowhere["free_bytes"] == pytest.approx(shutil.disk_usage(tmp_path).free, rel=0.05)
    assert nowhere["direct"] == existing["direct"]
    assert not (tmp_path / "absent").exists()
    for target in facts["targets"]:
        if target["device"] is not None:  # a real disk behind the file system
            assert os.path.isdir(f"/sys/block/{target['device']}")
            assert target["rotational"] in (True, False)


def test_the_o_direct_probe_writes_only_next_to_a_file_the_campaign_creates(tmp_path):
    folder = tmp_path / "d"
    folder.mkdir()
    os.utime(folder, ns=(0, 0))
    path = str(folder / "x.dat")
    read = collect_host_facts(local_host(), [path])["targets"][0]
    assert read["direct"] is None and folder.stat().st_mtime_ns == 0  # no file was made there
    made = collect_host_facts(local_host(), [path], creating=[path])["targets"][0]
    assert made["direct"] in (True, False) and folder.stat().st_mtime_ns > 0 and not list(folder.iterdir())


def test_collect_host_facts_quotes_paths_and_honours_fio_param(tmp_path):
    hostile = str(tmp_path / "it's a \"file\"; $(touch pwned) `touch pwned2`")
    facts = collect_host_facts(local_host(fio=str(tmp_path / "no-fio")), [hostile])
    assert facts["targets"][0]["path"] == hostile
    assert facts["targets"][0]["type"] == "missing"
    assert (facts["fio_path"], facts["fio_version"]) == ("missing", "missing")
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    assert not os.path.exists("pwned") and not os.path.exists("pwned2")


@pytest.mark.parametrize("header_bytes", [8192, 4096])
def test_the_facts_read_as_much_of_a_target_as_the_safety_gate_judges(tmp_path, monkeypatch, header_bytes):
    """The facts script reads ``safety.HEADER_BYTES`` of a target's beginning (one number, not a
    second one written in the shell script)."""
    monkeypatch.setattr(safety, "HEADER_BYTES", header_bytes)
    data = tmp_path / "f.dat"
    data.write_bytes(bytes(range(256)) * 64)  # 16 KiB
    facts = collect_host_facts(local_host(), [str(data)])
    header = bytes.fromhex(facts["targets"][0]["header_hex"])
    assert header == data.read_bytes()[:header_bytes]


def test_collect_host_facts_rejects_multiline_path():
    with pytest.raises(ValueError, match="spans lines"):
        facts_script("fio", ["/tmp/a\nb"])


def test_parse_facts_unknowns_and_noise():
    text = "\n".join([
        "Welcome to db1!",  # a noisy login shell
        "facts_version=1", "hostname=db1", "os=unknown", "cpus=unknown", "mem_total_bytes=1024",
        "fio_path=missing", "fio_version=missing", "PATH=/usr/bin",
        "target.0.path=/data/a=b.dat", "target.0.exists=yes", "target.0.type=file",
        "target.0.size_bytes=4096", "target.0.direct=no", "target.0.direct_error=dd: x: Invalid argument",
        "target.0.rotational=unknown", "target.0.bogus=1", "target.x.path=/nope",
    ])
    facts = parse_facts(text)
    assert facts["os"] is None and facts["cpus"] is None and facts["kernel"] is None
    assert facts["mem_total_bytes"] == 1024 and facts["fio_version"] == "missing"
    assert "PATH" not in facts
    (target,) = facts["targets"]
    assert target["path"] == "/data/a=b.dat"
    assert (target["exists"], target["size_bytes"], target["direct"]) == (True, 4096, False)
    assert target["direct_error"] == "dd: x: Invalid argument"
    assert target["rotational"] is None and target["device"] is None and "bogus" not in target


def test_parse_facts_refuses_other_output():
    with pytest.raises(ParseError, match="no facts_version line"):
        parse_facts("bash: sh: command not found\n")
    with pytest.raises(ParseError, match="version 2"):
        parse_facts("facts_version=2\n")


# -- whole check, locally --------------------------------------------------------------
def local_campaign(tmp_path, **overrides):
    values = {
        "campaign": "local-check",
        "hosts": [{"name": "local", "address": "localhost"}],
        "targets": [{"name": "t1", "path": str(tmp_path / "f.dat"), "size": "16m", "create": True}],
    }
    values.update(overrides)
    return campaign_from_dict(values)


def test_check_environment_local(tmp_path):
    require_fio()  # the check's fio row
    df = check_environment(local_campaign(tmp_path))
    assert list(df.columns) == COLUMNS
    assert verdict(df) in ("pass", "warn"), df[df.status == "fail"].to_string()
    require_pass(df)
    value = df.set_index(["host", "check"])["value"]
    assert value["local", "reachable"] == "yes"
    assert value["local", "cpus"] == os.cpu_count()
    assert value["local", "kernel"] == os.uname().release
    assert value["local", "target t1: exists"] == "missing"
    detail = df.set_index(["host", "check"])["detail"]
    assert detail["local", "target t1: exists"] == "will be created (16.0 MiB)"
    assert value[CAMPAIGN_ROW_HOST, "working set"] == 16 * MIB
    assert df.attrs["facts"]["local"]["cpus"] == os.cpu_count()
    assert not (tmp_path / "f.dat").exists()  # checking creates nothing


def test_the_parameters_warnings_are_warn_rows_of_the_check(tmp_path):
    """Validation's warnings (one machine named as two hosts, one workload under two names) are rows
    of the check's table: host (campaign), check parameters, the key as the value, warn."""
    twice = [{"name": "r", "rw": "randread"}, {"name": "r2", "rw": "randread"}]
    df = check_environment(local_campaign(tmp_path, hosts=[{"name": "local", "address": "localhost"},
                                                           {"name": "again", "address": "localhost"}], workloads=twice))
    rows = df[df.check == "parameters"]
    assert rows[["host", "value", "status"]].values.tolist() == [[CAMPAIGN_ROW_HOST, "hosts[1].address", "warn"],
                                                                  [CAMPAIGN_ROW_HOST, "workloads[1]", "warn"]]
    assert rows.detail.tolist() == [
        "again is at the same address and port as hosts[0] (local), this machine: one machine runs both, and its "
        "load counts as two hosts'",
        "r2 is the same workload as workloads[0] (r) under another name: both are measured, the same I/O twice"]
    assert verdict(df) != "pass"  # a warning is no clean pass


@pytest.mark.skipif(shutil.which("fio") is None, reason="needs fio installed")
def test_check_environment_local_fio_version(tmp_path):
    df = check_environment(local_campaign(tmp_path))
    row = df[(df.host == "local") & (df.check == "fio")].iloc[0]
    assert row.status == "pass" and parse_fio_version("fio-" + row.value) >= (3, 0)


def test_check_environment_one_dead_host_does_not_hide_the_others(tmp_path):
    require_fio()  # the live host's fio row
    from flashpoc.hosts.host import connect as real_connect

    def connect(params):
        if params.name.startswith("down"):  # every command ends as on a host that does not answer
            unreachable = RemoteError(f"{params.name}: cannot connect to {params.address}:22 to collect host facts: "
                                      "timed out")
            return FakeHost(params=params, commands={re.compile(""): unreachable})
        return real_connect(params)

    campaign = local_campaign(tmp_path, hosts=[{"name": "down", "address": "10.9.9.9"},
                                               {"name": "local", "address": "localhost"},
                                               {"name": "down2", "address": "10.9.9.8"}])
    df = check_environment(campaign, connect=connect)
    assert list(df.host.unique()) == ["down", "local", "down2", CAMPAIGN_ROW_HOST]
    for name in ("down", "down2"):
        down = df[df.host == name]
        assert len(down) == 1 and down.iloc[0].check == "reachable" and down.iloc[0].status == "fail"
        assert "timed out" in down.iloc[0].detail
        assert df.attrs["facts"][name] is None
    assert (df[df.host == "local"].status != "fail").all()
    with pytest.raises(CheckFailed, match="down / reachable(.|\n)*down2 / reachable"):
        require_pass(df)


def test_check_environment_unexpected_error_is_a_facts_row(tmp_path):
    def garbled(params):  # a host that answers every command with text that is not facts
        return FakeHost(params=params, commands={re.compile(""): "not facts\n"})

    df = check_environment(local_campaign(tmp_path), connect=garbled)
    row = df[df.host == "local"].iloc[0]
    assert (row.check, row.status) == ("facts", "fail")
    assert "ParseError" in row.detail


def test_a_host_clock_far_from_the_controller_or_the_other_hosts_is_a_warning():

    assert evaluate(FACTS)["clock"]["status"] == "pass"
    assert evaluate(FACTS)["clock"]["detail"] == "12 ms ahead of the controller (+/- 2 ms)"
    late = {**FACTS, "clock_offset_ms": -1800.0}
    assert evaluate(late)["clock"]["status"] == "warn" and "1,800 ms behind" in evaluate(late)["clock"]["detail"]
    assert evaluate({**FACTS, "clock_offset_ms": None, "clock_rtt_ms": None})["clock"]["status"] == "warn"
    campaign = make_campaign(hosts=[{"name": "db1", "address": "db1.example.com"},
                                    {"name": "db2", "address": "db2.example.com"}])
    rows = rows_by_check(evaluate_campaign(campaign, {"db1": FACTS, "db2": late}))
    skew = rows["clock skew between hosts"]
    assert skew["status"] == "warn" and skew["value"] == 1812.5
    assert skew["detail"].startswith("db1 is 1,812 ms ahead of db2 (+/- 3 ms)")
    assert rows_by_check(evaluate_campaign(campaign, {"db1": FACTS, "db2": FACTS}))[
        "clock skew between hosts"]["status"] == "pass"


def test_a_target_of_another_size_on_one_host_is_a_warning():

    campaign = make_campaign(hosts=[{"name": "db1", "address": "db1.example.com"},
                                    {"name": "db2", "address": "db2.example.com"}])
    rows = rows_by_check(evaluate_campaign(campaign, {"db1": FACTS, "db2": FACTS}))
    assert rows["target lun1: same on all hosts"]["status"] == "pass"
    assert rows["target lun1: same on all hosts"]["detail"] == "/dev/mapper/lun1: 100.0 GiB on 2 of 2 hosts"
    other = copy.deepcopy(FACTS)
    other["targets"][0]["size_bytes"] = 50 * GIB
    row = rows_by_check(evaluate_campaign(campaign, {"db1": FACTS, "db2": other}))["target lun1: same on all hosts"]
    assert row["status"] == "warn" and "100.0 GiB on db1, 50.0 GiB on db2" in row["detail"]
    row = rows_by_check(evaluate_campaign(campaign, {"db1": FACTS, "db2": None}))["target lun1: same on all hosts"]
    assert row["status"] == "warn" and row["value"] == "partly"


def test_fio_client_and_servers_must_be_the_same_release():
    """fio --client and fio --server speak a protocol that changes between releases: the
    controller's fio (this machine's, really run) against the releases recorded in fio outputs."""
    import json
    import subprocess

    from conftest import DATA, require_fio

    require_fio()
    here = subprocess.run(["fio", "--version"], capture_output=True, text=True, check=True).stdout.strip()
    other = json.loads((DATA / "fio" / "fio-3.36_randrw_128k_1job_file.json").read_text())["fio version"]
    assert here != other  # this machine's fio is not 3.36
    same = controller_fio_row(here, {"srv1": here, "srv2": here, "srv3": None})
    assert same["status"] == "pass" and same["detail"].endswith("the same release as every host")
    mixed = controller_fio_row(here, {"srv1": here, "srv2": other, "srv3": "missing"})
    assert mixed["status"] == "fail"
    assert mixed["detail"].startswith(f"{here} here, fio-3.36 on srv2: fio --client and fio --server must be the same")
    assert controller_fio_row("sh: 1: fio: not found", {"srv1": here})["value"] == "missing"


# -- vdbench: the address its slaves call back ------------------------------------------------

# The address check's output on this development VM (its host name "vm" is 127.0.0.1 in /etc/hosts),
# without and with vdbench.controller_address's hosts file
LOOPBACK_OUTPUT = ("flashpoc-localhost vm 127.0.0.1\nname=vm\nown=192.0.2.2 10.231.172.1 fd00::2 \n"
                   "getent=127.0.0.1       STREAM vm\ngetent=127.0.0.1       DGRAM  \ngetent=127.0.0.1       RAW    \n")
OVERRIDDEN_OUTPUT = LOOPBACK_OUTPUT.replace("flashpoc-localhost vm 127.0.0.1", "flashpoc-localhost vm 192.0.2.2")


def test_a_loopback_controller_address_fails_naming_the_parameter():
    from flashpoc.engines.vdbench.check import controller_address_row

    row = controller_address_row("ctl", LOOPBACK_OUTPUT, None, ["10.0.0.2"])
    assert (row["check"], row["value"], row["status"]) == ("slaves call back", "127.0.0.1", "fail")
    assert row["detail"] == (
        "vdbench's Java resolves the host name vm to 127.0.0.1: vdbench refuses remote hosts then (\"Invalid network "
        "definition for multi-host processing\"); set vdbench.controller_address to this host's address that the "
        "other hosts reach (this host's: 192.0.2.2, 10.231.172.1, fd00::2), or map vm to it in /etc/hosts")
    # Debian's 127.0.1.1 passes vdbench's own test, but a slave elsewhere would call itself
    debian = controller_address_row("ctl", LOOPBACK_OUTPUT.replace(" 127.0.0.1\n", " 127.0.1.1\n", 1), None,
                                    ["10.0.0.2", "127.0.0.1"])
    assert debian["status"] == "fail" and "the slaves on 10.0.0.2 would call themselves" in debian["detail"]
    # the recorded multi_host run: master 127.0.1.1, hd2 at 127.0.0.1, both this machine
    same = controller_address_row("ctl", LOOPBACK_OUTPUT.replace(" 127.0.0.1\n", " 127.0.1.1\n", 1), None,
                                  ["127.0.0.1"])
    assert same["status"] == "pass"
    assert controller_address_row("ctl", LOOPBACK_OUTPUT, None, ["127.0.0.1"])["detail"].endswith(
        "vdbench starts every slave on this host (127.0.0.1)")


def test_the_controller_address_must_be_what_vdbench_s_java_resolves():
    from flashpoc.engines.vdbench.check import controller_address_row

    row = controller_address_row("ctl", OVERRIDDEN_OUTPUT, "192.0.2.2", ["10.0.0.2"])
    assert row["status"] == "pass" and row["detail"] == (
        "vdbench's Java resolves the host name vm to 192.0.2.2 (vdbench.controller_address); the slaves call the "
        "master there")
    ignored = controller_address_row("ctl", LOOPBACK_OUTPUT, "192.0.2.2", ["10.0.0.2"])  # a Java 8 ignores the file
    assert ignored["status"] == "fail" and "not vdbench.controller_address 192.0.2.2" in ignored["detail"]
    elsewhere = controller_address_row("ctl", OVERRIDDEN_OUTPUT.replace("192.0.2.2", "198.51.100.7", 1),
                                       "198.51.100.7", ["10.0.0.2"])
    assert elsewhere["status"] == "warn" and "not among this host's addresses" in elsewhere["detail"]


def test_without_a_java_compiler_the_check_resolves_as_java_does_with_getent():
    from flashpoc.engines.vdbench.check import controller_address_row

    no_compiler = ("Error: Could not find or load main class FlashpocLocalHost.java\nname=db1\nown=10.0.0.5\n"
                   "getent=fe80::1         STREAM db1\ngetent=10.0.0.5        STREAM db1\n")
    row = controller_address_row("ctl", no_compiler, None, ["10.0.0.6"])
    assert (row["value"], row["status"]) == ("10.0.0.5", "pass")  # IPv4 first, as Java orders them
    assert row["detail"].startswith("getent (Java could not run the check program) resolves the host name db1")
    failed = controller_address_row("ctl", "Error: Could not find or load main class FlashpocLocalHost.java\n"
                                           "name=db1\nown=10.0.0.5\n", "10.0.0.5", ["10.0.0.6"])
    assert failed["status"] == "fail" and failed["detail"].startswith(
        "could not resolve the host name db1 as vdbench's Java does: Error: Could not find or load main class")


def _shown(rows) -> dict[str, str]:
    """The check's Value column as the notebook's table shows it (summary.frame_display), by check."""
    from flashpoc.present import summary

    table = summary.frame_display(pd.DataFrame(rows, columns=COLUMNS)).frame
    return dict(zip(table["Check"], table["Value"]))


@settings(max_examples=60, deadline=None)
@given(memory=st.integers(1, 2**50), lun=st.integers(10 * GIB, 2**50), free=st.integers(0, 2**50),
       offset=st.floats(-5000, 5000, allow_nan=False), other=st.floats(-5000, 5000, allow_nan=False))
def test_the_check_table_shows_every_number_in_its_unit(memory, lun, free, offset, other):
    """The check table showed memory as 25,276,510,208 and the clock as -0.8: a number of bytes, or of
    milliseconds, without its unit. Every number of a row that has a unit is shown in it (bytes in binary
    units as the report's sizes, milliseconds and ratios with theirs), a number without one is a count
    (under 10,000 here: CPUs, queue depths); check.csv keeps the number and its unit."""
    from flashpoc.core import tables

    facts = copy.deepcopy(FACTS)
    facts.update(mem_total_bytes=memory, clock_offset_ms=offset)
    facts["targets"][0]["size_bytes"], facts["targets"][1]["free_bytes"] = lun, free
    campaign = make_campaign(hosts=[{"name": "db1", "address": "db1.example.com"},
                                    {"name": "db2", "address": "db2.example.com"}], array_cache="64g")
    rows = evaluate_facts(campaign, campaign.hosts[0], facts)
    rows += evaluate_campaign(campaign, {"db1": facts, "db2": {**facts, "clock_offset_ms": other}})
    shown, by_check = _shown(rows), rows_by_check(rows)
    assert shown["memory"] == tables.size(memory) and re.fullmatch(r"[\d,.]+ (B|KiB|MiB|GiB|TiB)", shown["memory"])
    assert shown["target lun1: size"] == tables.size(lun) and shown["target scratch: free space"] == tables.size(free)
    assert shown["working set"] == tables.size(lun + 10 * GIB)
    assert shown["clock"] == f"{offset:,.1f} ms"
    assert shown["clock skew between hosts"] == f"{by_check['clock skew between hosts']['value']:,.1f} ms"
    assert shown["working set vs array cache"].endswith("x")
    for row in rows:
        value = row["value"]
        if isinstance(value, (int, float)) and not isinstance(value, bool) and row["unit"] is None:
            assert abs(value) < 10_000 and shown[row["check"]] == f"{value:,}", row  # a count
    frame = pd.DataFrame(rows, columns=COLUMNS)
    assert frame.set_index("check").loc["memory", ["value", "unit"]].tolist() == [memory, "bytes"]  # check.csv's


def test_the_check_of_this_machine_shows_its_memory_in_gib(tmp_path):
    """A real check of this machine: its memory as /proc/meminfo's MemTotal in GiB, the clock in ms."""
    with open("/proc/meminfo") as meminfo:
        kib = next(int(line.split()[1]) for line in meminfo if line.startswith("MemTotal:"))
    table = check_environment(local_campaign(tmp_path))
    shown = _shown(table.to_dict("records"))
    assert shown["memory"] == f"{kib * 1024 / GIB:,.1f} GiB"
    assert re.fullmatch(r"-?[\d,]+\.\d ms", shown["clock"])
    assert table.set_index("check").loc["memory", "unit"] == "bytes"

"""Paths made canonical on the host where they live (flashpoc.hosts.paths), through the real host
interface: this machine and a real sshd on 127.0.0.1. A symbolic link into a system directory,
``~user`` and one file named as two targets are refused, naming the key, before anything is written
(the file system is compared before and after); ``~`` is expanded by the host's own rules and the
job files land where it points."""

from __future__ import annotations

import hashlib
import os
import pwd
import re
import shutil
import tempfile
import uuid
from pathlib import Path

import pytest

from conftest import quick_campaign, require_fio
from flashpoc import phases
from flashpoc.core.errors import CheckFailed
from flashpoc.params import HostParams, campaign_from_dict
from flashpoc.hosts.host import LocalHost, connect
from flashpoc.hosts.paths import canonical_paths, settle_campaign


def home_of(user: str) -> str:
    """``user``'s home on this machine (the test is skipped without such a user)."""
    try:
        return pwd.getpwnam(user).pw_dir
    except KeyError:
        pytest.skip(f"no user {user} on this machine")


def snapshot(path: Path) -> tuple[str, int]:
    """What a write would change: the file's SHA-256 and modification time."""
    return hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns


@pytest.fixture
def victim():
    """A 2 MiB file in a system directory (under /var/spool), made for the test and removed after: no
    campaign may write it."""
    if not os.access("/var/spool", os.W_OK):
        pytest.skip("needs to write a file under /var/spool (root)")
    folder = Path(tempfile.mkdtemp(prefix="flashpoc-test-", dir="/var/spool"))
    path = folder / "victim.dat"
    path.write_bytes(os.urandom(2 * 1024**2))
    yield path
    shutil.rmtree(folder)


def refused(cfg, key: str, shown: str) -> None:
    """The check has one fail row for ``key`` that shows ``shown``; the phases' preparation (scratch
    files, fills, job files) raises CheckFailed naming it, before any write."""
    table = phases.run_check(cfg)
    rows = table[table["check"] == f"path {key}"]
    assert list(rows["status"]) == ["fail"], table.to_string()
    assert rows.iloc[0]["detail"].startswith(f"{key}: ") and shown in rows.iloc[0]["detail"]
    assert not table["check"].str.startswith("target ").any()  # nothing more was done on that host
    with phases.open_campaign(cfg) as wb, pytest.raises(CheckFailed, match=rf"(?m)^- {re.escape(key)}: "):
        phases.prepare_targets(wb)


def test_a_target_linked_into_a_system_directory_is_refused_before_any_write(tmp_path, victim):
    link = tmp_path / "x.dat"
    link.symlink_to(victim)
    before = snapshot(victim)
    cfg = campaign_from_dict(quick_campaign(tmp_path, targets=[{"name": "t", "path": str(link), "allow_write": True}]))
    refused(cfg, "targets[0].path", f"({victim} on host local) is in the system directory /var")
    assert snapshot(victim) == before


def test_a_scratch_file_in_the_home_of_a_system_user_is_refused_before_it_is_made(tmp_path):
    home = Path(home_of("news"))  # /var/spool/news
    existed = home.exists()
    cfg = campaign_from_dict(quick_campaign(tmp_path, targets=[{"name": "t", "path": "~news/x.dat", "size": "16m",
                                                                  "create": True}]))
    refused(cfg, "targets[0].path", f"{home}/x.dat is in the system directory /var, and the workbook creates there")
    assert not (home / "x.dat").exists() and home.exists() == existed


def test_a_workdir_in_a_system_user_s_home_is_expanded_and_refused(tmp_path, monkeypatch):
    home = Path(home_of("mail"))  # /var/mail
    monkeypatch.chdir(tmp_path)
    before = sorted(home.iterdir()) if home.exists() else None
    cfg = campaign_from_dict(quick_campaign(tmp_path, hosts=[{"name": "local", "workdir": "~mail/flashpoc"}]))
    refused(cfg, "hosts[0].workdir", f"~mail/flashpoc ({home}/flashpoc on host local) is in the system directory /var")
    assert (sorted(home.iterdir()) if home.exists() else None) == before
    assert not list(tmp_path.rglob("~mail*")) and not list(Path(__file__).parents[2].glob("**/~mail"))


def test_job_files_go_to_the_workdir_as_the_host_expands_it(tmp_path, monkeypatch):
    require_fio()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    cfg = campaign_from_dict(quick_campaign(tmp_path, hosts=[{"name": "local", "workdir": "~/jobs"}]))
    phases.run_check(cfg)
    with phases.open_campaign(cfg) as wb:
        phases.prepare_targets(wb)  # the fill's job file goes to the workdir
        assert wb.cfg.hosts[0].workdir == str(tmp_path / "home" / "jobs")
        assert wb.host(wb.cfg.hosts[0]).params.workdir == str(tmp_path / "home" / "jobs")
        assert wb.cfg.measurement_hash() == cfg.resolved().measurement_hash()  # the parameters' identity, as given
    assert [p.name for p in (tmp_path / "home" / "jobs" / "quick").iterdir()][0].startswith("fill-")
    assert not list(tmp_path.rglob("~*"))


def test_a_link_and_its_file_are_one_target(tmp_path):
    (tmp_path / "y.dat").symlink_to(tmp_path / "x.dat")  # x.dat is made by the campaign: the link dangles until then
    cfg = campaign_from_dict(quick_campaign(tmp_path, targets=[
        {"name": "x", "path": str(tmp_path / "x.dat"), "size": "16m", "create": True},
        {"name": "y", "path": str(tmp_path / "y.dat"), "allow_write": True}]))
    refused(cfg, "targets[1].path", f"is the file of targets[0].path ({tmp_path / 'x.dat'} on host local)")
    assert not (tmp_path / "x.dat").exists()


@pytest.mark.parametrize("where", ["local", "ssh"])
def test_the_host_expands_and_resolves_as_this_machine_does(where, tmp_path, request):
    """The same machine, through its shell and through sshd: ~, ~user, '..', '//' and links are what
    Python's expanduser and realpath make of them (relative: to the user's home)."""
    host = LocalHost(HostParams(name="here")) if where == "local" else connect(
        HostParams(**request.getfixturevalue("sshd").host_params("there")))
    (tmp_path / "link").symlink_to("/etc")
    paths = ["~", "~/a//b/../c", "~root/../tmp/x", "~mail/flashpoc", f"{tmp_path}/link/../link/ssh//x", "rel/x",
             "/dev/../boot/x.dat"]
    with host:
        found = canonical_paths(host, [(p, "") for p in paths])
    home = os.path.expanduser("~")
    for path, canonical in zip(paths, found):
        expected = os.path.expanduser(path) if path.startswith("~") else path
        expected = expected if expected.startswith("/") else f"{home}/{expected}"
        assert (canonical.expanded, canonical.real) == (expected, os.path.realpath(expected)), path
    assert canonical_paths(LocalHost(HostParams(name="here")), [("~nosuchuser9/x", "")])[0].problem == (
        "no user nosuchuser9 on the host, so ~nosuchuser9/x names nothing")


@pytest.mark.ssh
def test_over_ssh_a_linked_target_and_a_user_s_workdir_are_judged_on_the_host(sshd, tmp_path, victim):
    link = tmp_path / "x.dat"
    link.symlink_to(victim)
    before = snapshot(victim)
    host = sshd.host_params("remote")
    cfg = campaign_from_dict(quick_campaign(tmp_path, hosts=[host],
                                            targets=[{"name": "t", "path": str(link), "allow_write": True}]))
    refused(cfg, "targets[0].path", f"({victim} on host remote) is in the system directory /var")
    assert snapshot(victim) == before
    cfg = campaign_from_dict(quick_campaign(tmp_path, hosts=[{**host, "workdir": "~mail/flashpoc"}]))
    refused(cfg, "hosts[0].workdir", f"({home_of('mail')}/flashpoc on host remote) is in the system directory /var")
    assert not Path(home_of(sshd.user), "~mail").exists()


@pytest.mark.ssh
def test_over_ssh_the_job_files_go_to_the_workdir_as_the_host_expands_it(sshd, tmp_path):
    require_fio()
    work = f"flashpoc-test-{uuid.uuid4().hex}"
    host = {**sshd.host_params("remote"), "workdir": f"~{sshd.user}/../tmp/{work}"}
    cfg = campaign_from_dict(quick_campaign(tmp_path, hosts=[host]))
    try:
        phases.run_check(cfg)
        with phases.open_campaign(cfg) as wb:
            phases.prepare_targets(wb)
            assert wb.cfg.hosts[0].workdir == f"{home_of(sshd.user)}/../tmp/{work}"
        assert [p.name for p in Path("/tmp", work, "quick").iterdir()][0].startswith("fill-")
        assert not Path(home_of(sshd.user), f"~{sshd.user}").exists()  # no literal folder in the login directory
    finally:
        shutil.rmtree(Path("/tmp", work), ignore_errors=True)


def test_settled_paths_keep_the_campaign_s_identity(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    cfg = campaign_from_dict(quick_campaign(tmp_path, hosts=[{"name": "local", "workdir": "~/w", "fio": "~/bin/fio"}]))
    settled = settle_campaign(cfg.resolved(), {"local": LocalHost(cfg.hosts[0])})
    assert (settled.hosts[0].workdir, settled.hosts[0].fio) == (f"{tmp_path}/w", f"{tmp_path}/bin/fio")
    assert settled.params_hash() == cfg.resolved().params_hash()
    assert settled.resolved().measurement_hash() == cfg.resolved().measurement_hash()


def test_a_settled_campaign_on_fewer_hosts_has_the_identity_of_those_hosts_as_given(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    cfg = campaign_from_dict(quick_campaign(tmp_path, hosts=[{"name": "a", "workdir": "~/a"},
                                                             {"name": "b", "workdir": "~/b"}])).resolved()
    settled = settle_campaign(cfg, {h.name: LocalHost(h) for h in cfg.hosts})
    assert [h.workdir for h in settled.hosts] == [f"{tmp_path}/a", f"{tmp_path}/b"]
    fewer = settled.model_copy(update={"hosts": settled.hosts[1:]})  # as the probe's host scaling makes it
    assert fewer.measurement_hash() == cfg.model_copy(update={"hosts": cfg.hosts[1:]}).measurement_hash()
    assert fewer.measurement_hash() != cfg.measurement_hash()
    assert fewer.as_given().hosts[0].workdir == "~/b"

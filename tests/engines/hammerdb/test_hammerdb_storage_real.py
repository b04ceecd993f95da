"""A HammerDB campaign's database storage path, for real: a PostgreSQL 15 cluster whose data
directory the test puts on a loop device it makes (an ext4 file system on /dev/loopN), the real
HammerDB's check reading ``data_directory``, and the facts read from this machine's sysfs and procfs
on the load host the database runs on. A second campaign's cluster in the system's temporary
directory (this machine's disk) is what the first is compared with: the comparison names the
differing transport. Marked ``hammerdb``; skipped, saying why, without root, losetup and mkfs.ext4,
PostgreSQL 15 or the HammerDB kit."""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from pg_server import postgres_cluster, real_hammerdb

from flashpoc.campaign import environment
from flashpoc import phases
from flashpoc.engines.hammerdb.report import _conditions_and_method
from flashpoc.present.document import Context
from flashpoc.present.document.views import render_items
from flashpoc.params import campaign_from_dict

pytestmark = pytest.mark.hammerdb
PASSWORD_ENV, SUPERUSER_ENV = "FLASHPOC_TEST_TPCC_PASSWORD", "FLASHPOC_TEST_PG_PASSWORD"


@contextlib.contextmanager
def loop_file_system():
    """An ext4 file system on a new loop device (a 64 MiB file in a new directory of the system's
    temporary directory, which the PostgreSQL server's user can reach) mounted there on ``mnt``, owned
    by that user; yields (mount point, device); all undone at the end."""
    tools = [t for t in ("losetup", "mkfs.ext4", "mount", "umount") if shutil.which(t) is None]
    if os.geteuid() != 0 or tools:
        pytest.skip("a loop device needs root and losetup, mkfs.ext4, mount" + (f" (missing {tools})" if tools else ""))
    where = Path(tempfile.mkdtemp(prefix="flashpoc-loop-"))
    where.chmod(0o755)
    image, mount = where / "fs.img", where / "mnt"
    with image.open("wb") as handle:
        handle.truncate(64 << 20)
    device = subprocess.run(["losetup", "--find", "--show", str(image)], check=True, capture_output=True,
                            text=True).stdout.strip()
    try:
        subprocess.run(["mkfs.ext4", "-q", device], check=True, capture_output=True)
        mount.mkdir()
        subprocess.run(["mount", device, str(mount)], check=True, capture_output=True)
        try:
            owner = pwd.getpwnam("postgres")
            os.chown(mount, owner.pw_uid, owner.pw_gid)
            yield mount, device
        finally:
            subprocess.run(["umount", str(mount)], capture_output=True)
    finally:
        subprocess.run(["losetup", "--detach", device], capture_output=True)
        shutil.rmtree(where, ignore_errors=True)


def hammerdb_campaign(tmp_path: Path, name: str, server, **overrides):
    values = {"campaign": name, "engine": {"hammerdb": {
                  "database": "postgresql", "hammerdb_dir": str(real_hammerdb()), "host": server.host,
                  "port": server.port, "superuser": server.superuser, "superuser_password_env": SUPERUSER_ENV,
                  "password_env": PASSWORD_ENV, "warehouses": 1, "build_schema": True}},
              "hosts": [{"name": "load1", "address": "localhost", "workdir": str(tmp_path / "work")}],
              "results_dir": str(tmp_path / "results"), **overrides}
    return campaign_from_dict(values)


def mountinfo_of(path: Path) -> tuple[str, str]:
    """(file system type, source) of the mount holding ``path``, read from /proc/self/mountinfo."""
    best = None
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        fields = line.split()
        point = fields[4]
        if str(path) == point or str(path).startswith(point.rstrip("/") + "/"):
            if best is None or len(point) >= len(best[0]):
                rest = fields[fields.index("-") + 1:]
                best = (point, rest[0], rest[1])
    return best[1], best[2]


def test_the_data_directory_on_a_loop_device_and_what_differed(tmp_path, monkeypatch):
    monkeypatch.setenv(PASSWORD_ENV, "tpcc-storage-test")
    with loop_file_system() as (mount, device), postgres_cluster(mount) as server:
        monkeypatch.setenv(SUPERUSER_ENV, server.password)
        with postgres_cluster() as other:
            monkeypatch.setenv(SUPERUSER_ENV, other.password)
            phases.run_check(hammerdb_campaign(tmp_path, "on-disk", other))
            disk = json.loads((tmp_path / "results" / "on-disk" / "manifest.json").read_text())
            disk_source = mountinfo_of(other.data_dir)[1]
        monkeypatch.setenv(SUPERUSER_ENV, server.password)
        cfg = hammerdb_campaign(tmp_path, "on-loop", server,
                                report={"label": "loop", "compare": [{"campaign": "on-disk", "label": "disk"}]})
        table = phases.run_check(cfg)
        loop = json.loads((tmp_path / "results" / "on-loop" / "manifest.json").read_text())
        loop_mount = mountinfo_of(server.data_dir)

    data = str(mount / "data")
    rows = {r.check: r for r in table.itertuples()}
    row = rows[f"database data directory {data}: transport"]
    # what this machine's sysfs and procfs say of the device the test made
    assert (row.host, row.value, row.status) == ("load1", "loop device", "pass")
    assert row.detail == f"{Path(device).name}, file system ext4"
    assert rows[f"database WAL {data}/pg_wal: transport"].value == "loop device"
    storage = loop["environment"]["database_storage"]
    (directory, wal) = storage["devices"]
    assert (directory["path"], directory["role"], directory["type"]) == (data, "data directory", "directory")
    assert (directory["device"], directory["fstype"], directory["mount_source"]) == (Path(device).name, "ext4", device)
    assert loop_mount == ("ext4", device)  # as /proc/self/mountinfo says it, read by the test
    assert wal["path"] == f"{data}/pg_wal" and wal["transport"] == "loop"
    disk_dir = disk["environment"]["database_storage"]["devices"][0]
    assert disk_dir["mount_source"] == disk_source and disk_dir["transport"] not in (None, "loop")
    disk_label = environment.transport_label(disk_dir)

    lines = environment.condition_lines(cfg, loop)
    storage_line = next(line for line in lines if line.startswith("- **Database storage**"))
    assert f"on load1: data directory {data}: loop device, ext4 on {device}" in storage_line
    differed = next(line for line in lines if line.startswith("- **What differed"))
    assert f"database transport: loop device (loop) vs {disk_label} (disk)" in differed
    conditions = _conditions_and_method(cfg)[0]  # the HammerDB report's Test conditions, as the report renders them
    items = render_items(cfg, conditions.items, Context(manifest=loop))
    assert conditions.heading == "Test conditions" and storage_line in items[0]
    assert differed in items[0]

"""Host I/O on targets (flashpoc.hosts.targets) on this machine through the real LocalHost."""

from __future__ import annotations

import hashlib
import os
import re

from flashpoc.params import HostParams, TargetParams
from flashpoc.hosts.host import LocalHost

KIB = 1024


def test_sizes_identities_scratch_files_and_a_sample_read_back(tmp_path):
    from flashpoc.hosts.targets import make_scratch_files, make_target_directory, read_back, target_identities, target_sizes

    host = LocalHost(HostParams(name="local"))
    data = os.urandom(256 * KIB)
    (tmp_path / "lun.dat").write_bytes(data)
    (tmp_path / "dir").mkdir()
    lun = TargetParams(name="lun", path=str(tmp_path / "lun.dat"))
    odd = TargetParams(name="odd", path=str(tmp_path / "dir"))
    scratch = TargetParams(name="scratch", path=str(tmp_path / "new-dir" / "s1.dat"), size="1m", create=True)
    assert target_sizes(host, [lun, odd, scratch]) == {lun.path: 256 * KIB, odd.path: "other", scratch.path: "missing"}
    make_target_directory(host, scratch)
    assert (tmp_path / "new-dir").is_dir() and not os.path.exists(scratch.path)
    make_scratch_files(host, [scratch])
    assert os.stat(scratch.path).st_size == 1024 * KIB and target_sizes(host, [scratch]) == {scratch.path: 1024 * KIB}
    stat = os.stat(lun.path)
    identities = target_identities(host, [lun, odd])
    assert re.fullmatch(rf"file {stat.st_dev}:{stat.st_ino}:\d+", identities["lun"]) and identities["odd"] == "missing"
    sample = read_back(host, lun, [0, 128 * KIB], block=64 * KIB, count=2)
    expected = data[:128 * KIB] + data[128 * KIB:]
    assert sample["bytes"] == 256 * KIB and sample["sha256"] == hashlib.sha256(expected).hexdigest()
    assert sample["gzip_bytes"] > 256 * KIB  # random data does not compress

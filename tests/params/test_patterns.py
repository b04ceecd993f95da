"""Every regular expression a user gives (``database.nfs_mounts``, ``engine.slob.iostat_devices``) is
compiled by one guard, at validation and where it is used: whatever ``re.compile`` raises is one line
naming the key (issue 28: ``a{4294967296}`` raised an OverflowError traceback in validate, run and check)."""

from __future__ import annotations

import pytest

from flashpoc.engines.slob.datafiles import is_datafiles_mount
from flashpoc.engines.slob.parse import iostat_intervals
from flashpoc.core.errors import ParameterError
from flashpoc.params import DatabaseParams, compile_pattern


@pytest.mark.parametrize("pattern", ["a{4294967296}", "sd{99999999999}", "(" * 200, "[z-a]", "x" * 10 + "(?P<"])
def test_every_user_pattern_is_compiled_under_one_guard(pattern):
    with pytest.raises(ParameterError, match=r"^invalid parameters: database\.nfs_mounts: .* is not a regular "
                                             r"expression flashpoc can use: ") as error:
        compile_pattern(pattern, "database.nfs_mounts")
    assert "\n" not in str(error.value)
    database = DatabaseParams.model_construct(datafiles="knfs", nfs_mounts=pattern)  # as a stored campaign might hold
    with pytest.raises(ParameterError, match=r"database\.nfs_mounts"):
        is_datafiles_mount(database, "/u02")
    with pytest.raises(ParameterError, match=r"engine\.slob\.iostat_devices"):
        iostat_intervals("", {}, pattern)


def test_user_patterns_match_ascii_classes():
    assert compile_pattern(r"nvme\d+n1", "engine.slob.iostat_devices").fullmatch("nvme0n1")
    assert not compile_pattern(r"nvme\d+n1", "engine.slob.iostat_devices").fullmatch("nvme٠n1")

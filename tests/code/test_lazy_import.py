"""python-oracledb is imported when a database is first reached, not by every notebook kernel that
imports flashpoc (0.1 CPU-s each, four kernels a run, most of them never reaching a database)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from flashpoc.core.lazy import lazy_import

SCRIPT = """
import sys
from flashpoc import phases
print("oracledb.exceptions" in sys.modules)
import flashpoc.oracle.db as db
print(db.oracledb.Error.__module__, db.oracledb.DatabaseError.__mro__[1].__name__)
print("oracledb.exceptions" in sys.modules)
"""


def test_oracledb_runs_when_first_used_and_is_then_the_driver_itself():
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:3] == ["False", "oracledb.exceptions Error", "True"]


def test_a_package_that_is_not_installed_fails_at_once_as_import_does():
    with pytest.raises(ImportError, match="No module named 'flashpoc_no_such_package'"):
        lazy_import("flashpoc_no_such_package")
    assert lazy_import("json") is sys.modules["json"]

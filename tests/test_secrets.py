"""No secret in any artifact: a database password in the environment, a batch run of the
check (papermill, the executed notebook and its HTML export, check.csv, the manifest with its
parameters and host facts) against a database that cannot be reached, and the command's own
output: the password is in none of them. (The SYSDBA password of a whole SLOB run is scanned
the same way in test_phases_slob.py.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import yaml

from conftest import assert_secret_absent, quick_campaign, require_fio
from ssh_server import free_port


def test_a_database_password_reaches_no_notebook_result_or_output(tmp_path):
    require_fio()
    secret = "Oracle-Secret-5150!"
    port = free_port()  # nothing listens: the database check fails, naming the DSN, not the password
    values = quick_campaign(tmp_path, oracle={"dsn": f"127.0.0.1:{port}/pocpdb", "user": "system",
                                              "password_env": "POC_DB_PASSWORD", "connect_timeout_s": 2})
    params = tmp_path / "poc.yaml"
    params.write_text(yaml.safe_dump(values))
    out = subprocess.run([sys.executable, "-m", "flashpoc.cli", "run", str(params), "--phases", "check"],
                         capture_output=True, text=True, timeout=600,
                         env=dict(os.environ, POC_DB_PASSWORD=secret, FLASHPOC_ROOT=str(tmp_path)))
    results = tmp_path / "results" / "quick"
    check = json.loads((results / "notebooks" / "01_environment_check.ipynb").read_text())
    text = json.dumps(check)
    assert f"127.0.0.1:{port}/pocpdb" in text  # the failed database row names where it tried
    assert "POC_DB_PASSWORD" in (results / "manifest.json").read_text()  # the variable's name, not its value
    assert assert_secret_absent(secret, results, out.stdout, out.stderr) >= 4
    assert assert_secret_absent(secret, tmp_path / "results")

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
from pathlib import Path

import pytest
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


@pytest.mark.ssh
def test_an_ssh_key_passphrase_reaches_no_notebook_result_or_output(sshd, tmp_path):
    """The check and the sweep over SSH with a passphrase-protected key, the passphrase in the
    environment: it is in no produced file and not in the command's output."""
    require_fio()
    secret = "Ssh-Passphrase-6502#"
    key = tmp_path / "id_poc"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", secret, "-f", str(key)], check=True, timeout=30)
    authorized = Path(sshd.key_file).parent / "authorized_keys"
    authorized.write_text(authorized.read_text() + Path(f"{key}.pub").read_text())
    host = sshd.host_params("load1", key_file=str(key), key_passphrase_env="POC_SSH_PASSPHRASE",
                            workdir=str(tmp_path / "work"))
    params = tmp_path / "poc.yaml"
    params.write_text(yaml.safe_dump(quick_campaign(tmp_path, hosts=[host])))
    out = subprocess.run([sys.executable, "-m", "flashpoc.cli", "run", str(params), "--phases", "check,sweep"],
                         capture_output=True, text=True, timeout=600,
                         env=dict(os.environ, POC_SSH_PASSPHRASE=secret, FLASHPOC_ROOT=str(tmp_path)))
    assert out.returncode == 0, out.stdout + out.stderr
    results = tmp_path / "results" / "quick"
    assert len(list((results / "points" / "sweep").iterdir())) == 4  # 2 workloads x 2 thread counts
    assert "POC_SSH_PASSPHRASE" in (results / "manifest.json").read_text()  # the variable's name, not its value
    assert assert_secret_absent(secret, results, out.stdout, out.stderr) >= 8
    assert assert_secret_absent(secret, tmp_path / "work")

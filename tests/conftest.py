"""Shared test fixtures: isolated workbook roots, a real sshd, quick campaigns."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ssh_server import sshd  # noqa: F401  (a real OpenSSH server on 127.0.0.1)

REPO = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(autouse=True)
def _isolated_environment(monkeypatch, tmp_path):
    """Keep tests away from the user's results dir and SSH agent/config."""
    monkeypatch.delenv("FLASHPOC_RESULTS_DIR", raising=False)
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    monkeypatch.setenv("FLASHPOC_ROOT", str(tmp_path))


def require_fio() -> None:
    """Skip unless fio is installed (CI installs it; a skip here is visible in the summary)."""
    if shutil.which("fio") is None:
        pytest.skip("fio is not installed (apt-get install fio)")


def quick_campaign(tmp_path: Path, **overrides) -> dict:
    """Parameters of a tiny local campaign on a 64 MiB scratch file in ``tmp_path``."""
    values = {
        "campaign": "quick",
        "hosts": [{"name": "local", "address": "localhost"}],
        "targets": [{"name": "scratch", "path": str(tmp_path / "scratch.dat"), "size": "64m", "create": True}],
        "fio": {"runtime_s": 1, "ramp_s": 0},
        "workloads": [{"name": "randread-4k", "rw": "randread", "bs": "4k"},
                      {"name": "randwrite-4k", "rw": "randwrite", "bs": "4k"}],
        "probe": {"strategy": "linear", "min_threads": 1, "max_threads": 4, "step": 1},
        "sweep": {"plan": "guide", "max_threads": 2, "step": 1},
        "results_dir": str(tmp_path / "results"),
    }
    values.update(overrides)
    return values


@pytest.fixture
def repo() -> Path:
    """The repository root."""
    return REPO


def assert_secret_absent(secret: str, root: Path, *texts: str) -> int:
    """Fail if ``secret`` is in any file under ``root`` (``.gz`` files read unzipped) or in
    ``texts`` (a command's output); return the number of files read."""
    import gzip

    assert len(secret) >= 8
    needle = secret.encode()
    files = [p for p in root.rglob("*") if p.is_file()]
    for path in files:
        data = path.read_bytes()
        if path.suffix == ".gz":
            data = gzip.decompress(data)
        assert needle not in data, f"the secret is in {path}"
    for text in texts:
        assert secret not in text, "the secret is in the command's output"
    return len(files)

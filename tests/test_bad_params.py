"""A corpus of malformed parameter files (tests/data/bad-params, one mistake each; the first
line says what the message must name): every one is refused by ``flashpoc validate`` and by
``flashpoc run`` before anything runs, with exit code 2, a message naming the key, and no
traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import DATA
from flashpoc import cli

CORPUS = sorted((DATA / "bad-params").glob("*.yaml"))


def expected(path) -> str:
    first = path.read_text().splitlines()[0]
    assert first.startswith("# expect: "), path.name
    return first[len("# expect: "):]


def test_the_corpus_is_large_enough():
    assert len(CORPUS) >= 30


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
@pytest.mark.parametrize("command", ["validate", "run"])
def test_malformed_parameters_are_refused_before_anything_runs(path, command, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("FLASHPOC_ROOT", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    assert cli.main([command, str(path)]) == 2
    out, err = capsys.readouterr()
    assert expected(path) in err, err
    assert err.startswith("flashpoc: error: ") and str(path.name) in err
    assert "Traceback" not in out + err
    assert "Tiger-Secret" not in out + err  # a password typed where a variable name goes is never echoed
    assert list(tmp_path.iterdir()) == []  # no results, no notebooks, no scratch file: nothing ran


def test_no_traceback_reaches_the_user_of_the_installed_command():
    path = DATA / "bad-params" / "17-path-shell-metachar.yaml"
    done = subprocess.run([sys.executable, "-m", "flashpoc.cli", "run", str(path)], capture_output=True, text=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert expected(path) in done.stderr

"""A corpus of malformed parameter files (tests/data/bad-params, one mistake each; the first line,
``# expect: ...``, is the exact line the user must get, ``{path}`` standing for the file): every one
is refused by ``flashpoc validate``, ``flashpoc run`` and ``flashpoc check`` before anything runs,
with exit code 2, that one line naming the key (or the file, for one that cannot be read), no
traceback, and nothing written. Files that cannot be committed (a directory, a missing file, a
symbolic link loop, a pipe, a 50 MB file, a results_dir that is a file) are made by the tests."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import DATA
from flashpoc import cli

CORPUS = sorted((DATA / "bad-params").glob("*.yaml"), key=lambda p: int(p.name.split("-")[0]))
COMMANDS = ["validate", "run", "check"]


def expected(path: Path) -> str:
    """The file's ``# expect:`` line (the file may be UTF-16 or hold binary data after it)."""
    data = path.read_bytes()
    for encoding in ("utf-16", "utf-16-le", "utf-8"):
        first = data.decode(encoding, errors="replace").splitlines()[0]
        if first.startswith("# expect: "):
            return first[len("# expect: "):].replace("{path}", str(path))
    raise AssertionError(f"{path.name} has no '# expect:' line")


def results_named_in(path: Path, root: Path) -> Path | None:
    """Where the file's campaign would write its results, when it names both (else None)."""
    text = path.read_bytes().decode("utf-8", errors="replace")
    campaign = re.search(r"^campaign: (\S+)$", text, re.M)
    results = re.search(r"^results_dir: (\S+)$", text, re.M)
    if not (campaign and results):
        return None
    base = Path(results.group(1))
    return (base if base.is_absolute() else root / base).resolve() / campaign.group(1)


def refuse(command: str, path: Path | str, tmp_path: Path, capsys) -> str:
    """Run ``flashpoc COMMAND PATH`` in an empty workbook root; return its one line of error."""
    before = sorted(tmp_path.rglob("*"))
    assert cli.main([command, str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1, err
    assert "Traceback" not in err and "Tiger-Secret" not in err  # a password typed as a variable name: not echoed
    assert sorted(tmp_path.rglob("*")) == before  # no results, no notebooks, no scratch file: nothing ran
    return err.removeprefix("flashpoc: error: ").removesuffix("\n")


@pytest.fixture
def root(tmp_path, monkeypatch):
    monkeypatch.setenv("FLASHPOC_ROOT", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_corpus_covers_every_kind_of_mistake():
    assert len(CORPUS) >= 110
    names = " ".join(p.stem for p in CORPUS)
    for kind in ("not-utf8", "utf16", "binary", "deep-nesting", "list-as-key", "mapping-as-key", "alias-bomb",
                 "tab", "two-documents", "python-object-tag", "nan", "inf", "negative", "huge", "quoted",
                 "bool-max-threads", "size-exponent", "working-set-10-bytes", "workloads-empty", "results-dir-etc",
                 "results-dir-escape", "empty-file", "leading-zero", "base-60", "yaml-1-1-directive", "fullwidth-digit",
                 "arabic-indic-digit", "devanagari-digit", "kelvin-sign", "dsn-with-password", "user-with-password",
                 "description-nul", "label-ansi", "bidi-override", "empty-key", "nfs-mounts-overflow",
                 "iostat-devices-overflow", "hex", "digit-groups", "beyond-double"):
        assert kind in names, kind


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
@pytest.mark.parametrize("command", COMMANDS)
def test_malformed_parameters_are_refused_before_anything_runs(path, command, root, capsys):
    assert refuse(command, path, root, capsys) == expected(path)
    written = results_named_in(path, root)
    if written is not None:
        assert not written.exists()


def test_a_results_dir_that_is_a_file_is_refused(root, capsys):
    (root / "results").write_text("not a directory\n")
    params = root / "p.yaml"
    params.write_text("campaign: c\nhosts: [{name: h}]\ntargets: [{name: t, path: /tmp/flashpoc-t.dat, size: 1g, "
                      "create: true}]\n")
    for command in COMMANDS:
        assert refuse(command, params, root, capsys) == (
            f"invalid parameters in {params}: results_dir: {root / 'results'} is a file, so "
            f"{root / 'results' / 'c'} cannot be created")


def test_a_results_dir_through_a_link_to_a_system_directory_is_refused(root, capsys):
    (root / "data").symlink_to("/etc")
    params = root / "p.yaml"
    params.write_text("campaign: flashpoc-link-test\nhosts: [{name: h}]\n"
                      "targets: [{name: t, path: /tmp/flashpoc-t.dat, size: 1g, create: true}]\nresults_dir: data\n")
    for command in COMMANDS:
        assert refuse(command, params, root, capsys) == (
            f"invalid parameters in {params}: results_dir: {root / 'data'} is in the system directory /etc "
            "(resolved: /etc); choose a directory of your own")
    assert not Path("/etc/flashpoc-link-test").exists()


def test_files_that_are_not_parameters_files(root, capsys):
    (root / "a-directory.yaml").mkdir()
    os.symlink("loop-b.yaml", root / "loop-a.yaml")
    os.symlink("loop-a.yaml", root / "loop-b.yaml")
    os.mkfifo(root / "pipe.yaml")  # reading it would wait forever for a writer
    cases = {
        "a-directory.yaml": "it is a directory",
        "missing.yaml": "No such file or directory",
        "loop-a.yaml": "Too many levels of symbolic links",
        "pipe.yaml": "it is not a regular file (a device, pipe or socket)",
        "/dev/zero": "it is not a regular file (a device, pipe or socket)",
    }
    for name, reason in cases.items():
        path = root / name
        for command in COMMANDS:
            assert refuse(command, path, root, capsys) == f"cannot read parameters file {path}: {reason}"


def test_a_50_mb_file_is_refused_by_its_size_without_being_parsed(root, capsys):
    big = root / "big.yaml"
    line = "# " + "x" * 97 + "\n"
    with big.open("w") as handle:
        handle.write("campaign: big\n")
        for _ in range(50 * 1024 * 1024 // len(line) // 1024):
            handle.write(line * 1024)
    size = big.stat().st_size
    assert size > 50_000_000
    for command in COMMANDS:
        assert refuse(command, big, root, capsys) == (
            f"cannot read parameters file {big}: it holds {size:,} bytes; a parameters file is at most 1 MiB")


def test_a_long_key_and_a_long_number_are_named_in_a_readable_line(root, capsys):
    head = ("campaign: bad\nhosts:\n  - {name: h1, address: localhost}\ntargets:\n  - {name: scratch, path: "
            "/tmp/flashpoc-bad/scratch.dat, size: 1g, create: true}\n")
    cases = {
        "long-key.yaml": (head + "? " + "k" * 200_000 + "\n: 1\n",
                          "'" + "k" * 40 + "...' (200,000 characters): unknown key (check the spelling; see the "
                          "notebooks' parameters cell)"),
        "long-number.yaml": (head + "probe: {max_threads: " + "7" * 5001 + "}\n",
                             "probe.max_threads: " + "7" * 20 + "... is a number of 5,001 digits: no parameter is near "
                             "that; check the value; quote it if it is text"),
    }
    for name, (text, message) in cases.items():
        path = root / name
        path.write_text(text)
        for command in COMMANDS:
            assert refuse(command, path, root, capsys) == f"invalid parameters in {path}: {message}"


def test_several_files_are_validated_each(root, capsys, repo):
    good = repo / "parameters" / "demo-local.yaml"
    bad = DATA / "bad-params" / "65-bool-max-threads.yaml"
    assert cli.main(["validate", str(bad), str(good)]) == 2
    out, err = capsys.readouterr()
    assert out == f"{good}: ok (campaign demo-local, engine fio, 1 hosts, 1 targets, 4 workloads)\n"
    assert err == f"flashpoc: error: {expected(bad)}\n"


def test_no_traceback_reaches_the_user_of_the_installed_command(tmp_path):
    for name in ("17-path-shell-metachar.yaml", "45-deep-nesting-flow.yaml", "47-list-as-key.yaml",
                 "42-utf16-with-bom.yaml"):
        path = DATA / "bad-params" / name
        done = subprocess.run([sys.executable, "-m", "flashpoc.cli", "run", str(path)], capture_output=True,
                              text=True, cwd=tmp_path, env={**os.environ, "FLASHPOC_ROOT": str(tmp_path)})
        assert done.returncode == 2 and done.stderr == f"flashpoc: error: {expected(path)}\n"

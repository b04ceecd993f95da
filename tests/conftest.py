"""Shared test fixtures: isolated workbook roots, a real sshd, quick campaigns."""

from __future__ import annotations

import contextlib
import functools
import os
import re
import shutil
import signal
import threading
import time
from pathlib import Path

import pytest
from hypothesis import settings

from ssh_server import sshd  # noqa: F401  (a real OpenSSH server on 127.0.0.1)

# A shell without job control starts a background command with Ctrl-C (SIGINT) ignored, and every process
# the tests start would inherit that: the tests that press Ctrl-C on `flashpoc run` or HammerDB would see
# nothing happen. A handler here (not inherited across exec) gives those processes a terminal's Ctrl-C.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# vdbench's JVMs (its kit's launcher takes the java command from $VDBENCH_JAVA) compile with the first JIT tier
# only and collect garbage in one thread: a test's vdbench run lasts seconds, in which the full JIT and the
# parallel collector's threads cost a fifth of each invocation's CPU (2.8 CPU-s a 2-s run here) and measure
# nothing the tests read. Unset where the caller set it.
os.environ.setdefault("VDBENCH_JAVA", "java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC")

# Generated inputs: `make test` draws the same examples every run (a suite that passes passes again:
# never a failure found by chance on one run and gone on the next); HYPOTHESIS_PROFILE=explore draws new
# ones each run, to look for the next class of defects (a case found is kept as an @example of its test).
# no deadline: a generated example's time is the machine's load, not the code's (speed is measured in benchmarks/);
# a test with hypothesis's 200 ms deadline failed once beside a demo (517 ms, then 28 ms)
settings.register_profile("fixed", derandomize=True, database=None, print_blob=True, deadline=None)
settings.register_profile("explore", database=None, print_blob=True, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fixed"))

REPO = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
TESTS = DATA.parent
SHARED_PER_WORKER = {"sshd", "import_server"}
"""Fixtures of session scope that each pytest-xdist worker may make for itself (a few seconds at most)."""


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """For pytest-xdist's ``--dist loadgroup`` (`make test` runs the tests in parallel): tests that
    use a costly fixture of module scope, or of session scope (``batch_run``), are put in one
    ``xdist_group`` so that one worker makes it once and the others do not make it again; and the
    slowest tests and groups (:data:`SLOW_FIRST`) come first, so that they start at once and
    overlap the rest instead of leaving one worker busy at the end.
    Without xdist, the marks do nothing and the order changes nothing a test relies on."""
    for item in items:
        for name, definitions in getattr(item, "_fixtureinfo").name2fixturedefs.items():
            definition = definitions[-1]
            if definition.scope not in ("module", "session") or name in SHARED_PER_WORKER:
                continue
            if not _in_tests(definition.func.__code__.co_filename):
                continue  # pytest's own (tmp_path_factory, ...)
            group = item.module.__name__ if definition.scope == "module" else name
            item.add_marker(pytest.mark.xdist_group(group))
            break
    for item in items:
        _mark_what_it_runs(item)
    items.sort(key=_start_order)


RUNS = {"fio": ("require_fio(", 'which("fio") is None'), "vdbench": ("real_vdbench(",), "hammerdb": ("real_hammerdb(",),
        "ssh": ("start_sshd(", "netns_hosts("), "netns": ("netns_hosts(",)}
"""The marker of a real part and the calls a test (or a fixture it uses) makes to find or start it:
a real engine (or a test's own skip without fio), an sshd of its own (``ssh_server.start_sshd``), hosts
in network namespaces, each with its sshd (``netns.netns_hosts``)."""
FIXTURE_MARKS = {"sshd": "ssh", "postgres_server": "hammerdb"}
"""The marker a test gets for using a fixture: the real sshd on 127.0.0.1, HammerDB's PostgreSQL."""


def _mark_what_it_runs(item) -> None:
    """Mark ``item`` with what it runs, so that ``-m "not fio"`` (and ``ssh``, ``netns``, ``vdbench``,
    ``hammerdb``) leaves out every test that needs the part, whether or not the test says so: the
    part's marker when the test function, a fixture of these tests it uses, or a function of its
    module they call finds or starts it (:data:`RUNS`), ``ssh`` or ``hammerdb`` for the fixtures
    that start a server (:data:`FIXTURE_MARKS`). A test whose engine is found elsewhere (a parametrized case) carries
    the marker itself."""
    import inspect

    fixtures = getattr(item, "_fixtureinfo").name2fixturedefs
    todo = [getattr(item, "function", None)] + [defs[-1].func for defs in fixtures.values()]
    helpers = {name: f for name, f in vars(item.module).items() if inspect.isfunction(f)}
    seen, marks = set(), set()
    while todo:  # the test, its fixtures and the functions of its module they call, in turn
        function = todo.pop()
        if function in seen or not inspect.isfunction(function):
            continue
        seen.add(function)
        source, runs, imported = _read_function(function)
        marks |= runs
        helpers |= imported
        todo += [f for name, f in helpers.items() if f"{name}(" in source]
    marks |= {mark for name, mark in FIXTURE_MARKS.items() if name in fixtures}
    for mark in sorted(marks - {m.name for m in item.iter_markers()}):
        item.add_marker(getattr(pytest.mark, mark))


@functools.cache
def _read_function(function) -> tuple[str, frozenset, dict]:
    """The source of ``function`` (empty when it is not the tests' own), the :data:`RUNS` markers
    its calls name and the functions it imports (:func:`_imported_here`): read once per function,
    not again for each of the tests that use it (each pytest-xdist worker collects every test)."""
    import inspect

    if not _in_tests(function.__code__.co_filename):
        return "", frozenset(), {}
    source = _sources_in(function.__code__.co_filename).get(function.__code__.co_firstlineno)
    if source is None:
        try:
            source = inspect.getsource(function)
        except OSError:
            return "", frozenset(), {}
    runs = frozenset(mark for mark, calls in RUNS.items() if any(call in source for call in calls))
    return source, runs, _imported_here(source)


@functools.cache
def _in_tests(filename: str) -> bool:
    return Path(filename).resolve().is_relative_to(TESTS)


@functools.cache
def _sources_in(filename: str) -> dict[int, str]:
    """The source of each function and lambda of the file ``filename``, by its code's first line (its
    first decorator's): one parse of the file, where ``inspect.getsource`` tokenizes the file again for
    each function (1,600 functions: 2 CPU-s of each worker's collection)."""
    import ast

    text = Path(filename).read_text()
    lines = text.splitlines(keepends=True)
    found: dict[int, str] = {}
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            first = min([d.lineno for d in getattr(node, "decorator_list", [])] + [node.lineno])
            found.setdefault(first, "".join(lines[first - 1:node.end_lineno]))
    return found


def _imported_here(source: str) -> dict:
    """The functions of the tests' own modules that ``source`` imports inside a function
    (``from test_precondition import vdbench_values``), so that their calls are followed too."""
    import importlib
    import inspect

    found = {}
    for module_name, names in re.findall(r"^\s+from (\w+) import ([\w, ]+)$", source, re.M):
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        if not Path(getattr(module, "__file__", None) or "/").resolve().is_relative_to(TESTS):
            continue
        for name in (n.strip() for n in names.split(",")):
            if inspect.isfunction(getattr(module, name, None)):
                found[name] = getattr(module, name)
    return found


SLOW_FIRST = ("test_hammerdb_failures_real", "test_hammerdb_measure_real", "test_hammerdb_real", "test_multihost",
              "test_hammerdb_hosts", "test_cli", "test_notebooks", "test_vdbench_real", "test_disk_full", "test_browser", "test_resume",
              "test_vdbench_multihost")
"""Modules whose tests (or groups: the network namespace hosts, the batch run) take longest, longest
first: HammerDB's whole campaign, its build and minute-long run, the three hosts' module, HammerDB on
two hosts, the batch run that test_cli and test_notebooks read, vdbench's four phases, a disk that
fills up three times, JupyterLab in chromium, ..."""


def _start_order(item) -> tuple[int, bool]:
    """The modules of :data:`SLOW_FIRST` in its order, then the tests that run a real part (an engine,
    an sshd, network namespace hosts: a :data:`RUNS` marker), then the others (in-process: parsers, plans, reports)."""
    name = item.module.__name__
    if name in SLOW_FIRST:
        return SLOW_FIRST.index(name), False
    return len(SLOW_FIRST), not any(item.get_closest_marker(mark) for mark in RUNS)


def pytest_xdist_make_scheduler(config, log):
    """pytest-xdist's ``loadgroup`` scheduler, the tests sent in :func:`_start_order`, with one change.

    A worker runs a test only once it holds the next one (it needs it to know which fixtures end), so
    it is sent another test (or group) before the one it runs ends. Sent the next one in the order,
    a slow test waited behind another for minutes (HammerDB's 162-s test_build_and_timed_run started
    7 minutes late, behind test_flashpoc_run_check_probe_sweep_report), and tests of a minute started
    in the suite's last minute (Ctrl-C at any moment, JupyterLab's live view).
    Behind a test or group from the order's head, a worker is now sent the last one (the quickest);
    behind one of those, the next from the head."""
    if config.getoption("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class HeadThenTail(LoadGroupScheduling):
        def __init__(self, config, log=None):
            super().__init__(config, log)
            self.from_tail: set[str] = set()

        def _assign_work_unit(self, node) -> None:
            held = self.assigned_work.get(node, {})
            if any(not done for scope, tests in held.items() if scope not in self.from_tail for done in tests.values()):
                last = next(reversed(self.workqueue))
                self.workqueue.move_to_end(last, last=False)
                self.from_tail.add(last)
            super()._assign_work_unit(node)

    return HeadThenTail(config, log)


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


def require_java() -> None:
    """Skip unless a Java runtime is installed: the vdbench engine's environment check needs one,
    even against the vdbench replay double."""
    if shutil.which("java") is None:
        pytest.skip("the vdbench check needs a Java runtime (apt-get install default-jre-headless)")


def real_vdbench() -> Path:
    """The directory of the REAL vdbench (its ``vdbench`` launcher): the one `make test` installs
    into ``.engines/vdbench`` from an engine kit folder, else ``$FLASHPOC_TEST_VDBENCH``, else a
    ``vdbench`` on the PATH. Skips the test, saying how to get one, when there is none or no Java."""
    candidates = [REPO / ".engines" / "vdbench", os.environ.get("FLASHPOC_TEST_VDBENCH")]
    on_path = shutil.which("vdbench")
    if on_path:
        candidates.append(Path(on_path).resolve().parent)
    for candidate in candidates:
        if candidate and (Path(candidate) / "vdbench").is_file():
            if shutil.which("java") is None:
                pytest.skip("real vdbench needs Java (apt-get install default-jre-headless)")
            return Path(candidate)
    pytest.skip("real vdbench is not installed: `make test ENGINES=DIR` installs it from DIR/vdbench/install.sh, "
                "or set FLASHPOC_TEST_VDBENCH to a vdbench directory")


def quick_campaign(tmp_path: Path, **overrides) -> dict:
    """Parameters of a tiny local campaign on a 64 MiB scratch file in ``tmp_path``, whose job files
    go to ``tmp_path/work`` (not the default workdir all tests would share: tests run side by side).
    Its report prints no PDF (``report.pdf: false``): Chromium's print costs about 3 CPU-s a report,
    and the PDF is read where it is tested (the batch run's, tests/report/test_report_document.py)."""
    values = {
        "campaign": "quick",
        "hosts": [{"name": "local", "address": "localhost", "workdir": str(tmp_path / "work")}],
        "targets": [{"name": "scratch", "path": str(tmp_path / "scratch.dat"), "size": "64m", "create": True}],
        "fio": {"runtime_s": 1, "ramp_s": 0},
        "workloads": [{"name": "randread-4k", "rw": "randread", "bs": "4k"},
                      {"name": "randwrite-4k", "rw": "randwrite", "bs": "4k"}],
        "probe": {"strategy": "linear", "min_threads": 1, "max_threads": 4, "step": 1},
        "sweep": {"plan": "guide", "max_threads": 2, "step": 1},
        "results_dir": str(tmp_path / "results"),
        "report": {"pdf": False},
    }
    values.update(overrides)
    return values


BATCH_CAMPAIGN = {"probe": {"strategy": "adaptive", "min_threads": 1, "max_threads": 8},
                  "sweep": {"plan": "guide", "max_threads": 3, "step": 1}, "report": {"pdf": True}}


@pytest.fixture(scope="session")
def import_server():
    """Imports a flashpoc module first, as a fresh interpreter would, for a fork's cost
    (:class:`fresh_import.ImportServer`): ``import_server.error("flashpoc.x")`` is empty when it imports."""
    from fresh_import import ImportServer

    server = ImportServer()
    yield server
    server.close()


@pytest.fixture(scope="session")
def batch_run(tmp_path_factory):
    """One ``flashpoc run`` of the four notebooks (papermill) on a quick campaign with real fio,
    shared by the tests that read what a batch run leaves (its output, the executed notebooks and
    their HTML, the report) and by nbval, which runs the notebooks again on its stored points.
    Returns ``(workbook root, parameters file, completed process)``; the files are for reading."""
    import subprocess
    import sys

    import yaml

    require_fio()
    root = tmp_path_factory.mktemp("batch")
    params = root / "quick.yaml"
    params.write_text(yaml.safe_dump(quick_campaign(root, **BATCH_CAMPAIGN)))
    out = subprocess.run([sys.executable, "-m", "flashpoc.cli", "run", str(params)], capture_output=True,
                         text=True, timeout=900, env={**os.environ, "FLASHPOC_ROOT": str(root)})
    assert out.returncode == 0, out.stderr[-3000:]
    return root, params, out


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


def flat_numbers(value, prefix: str = "") -> dict[str, float]:
    """Every number in a parse result, keyed by its path; a list item is keyed by its text fields
    (an event or statistic name) and its ``second`` rather than its position, so a row that went
    missing does not shift the others. For comparing a corrupted input's parse with the clean one."""
    out: dict[str, float] = {}
    if isinstance(value, dict):
        for key, item in value.items():
            out.update(flat_numbers(item, f"{prefix}/{key}"))
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            texts = [str(v) for v in item.values() if isinstance(v, str)] if isinstance(item, dict) else []
            if isinstance(item, dict) and "second" in item:  # a time series row: keyed by its time
                texts.append(f"second={item['second']}")
            out.update(flat_numbers(item, f"{prefix}[{'|'.join(texts) or i}]"))
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        out[prefix] = value
    return out


def assert_no_other_number(clean, corrupted) -> None:
    """A corrupted input may lose numbers (or a name, which files its numbers under another key),
    never change one: every number kept under its name is the clean parse's."""
    before, after = flat_numbers(clean), flat_numbers(corrupted)
    changed = {k: (before[k], v) for k, v in after.items() if k in before and before[k] != v}
    assert not changed, f"corruption changed numbers: {dict(list(changed.items())[:5])}"


NOT_IN_A_NUMBER = bytes(b for b in range(256)
                        if not chr(b).isalnum() and not chr(b).isspace() and chr(b) not in ".,:+%()/") + b"Qx-"
"""Bytes that cannot turn one printed number into another (no digit, letter of a unit or
exponent, separator, space or bracket; a minus sign, since no count may be negative).
Corruption by other bytes can make a valid different number that no parser could tell."""


def corrupt(data, text: str, number_chars: str = r"[\d,.]") -> str:
    """``text`` with one corruption drawn by hypothesis (``data``): a character of a number
    (matching ``number_chars``) overwritten by a minus sign, a letter or markup, or a span
    overwritten by 1-32 bytes of :data:`NOT_IN_A_NUMBER`."""
    from hypothesis import strategies as st

    if data.draw(st.booleans(), label="in a number"):
        numbers = [m.start() for m in re.finditer(number_chars, text)]
        at = numbers[data.draw(st.integers(0, len(numbers) - 1), label="at")]
        junk = data.draw(st.sampled_from("-Q#x;|<>&"), label="junk")
    else:
        at = data.draw(st.integers(0, len(text) - 1), label="at")
        junk = data.draw(st.lists(st.sampled_from(NOT_IN_A_NUMBER), min_size=1, max_size=32).map(
            lambda values: bytes(values).decode("latin-1")), label="junk")
    return text[:at] + junk + text[at + len(junk):]


class Seconds:
    """A progress bar that takes a live point's seconds (:meth:`flashpoc.present.progress.Progress.interval`),
    which makes a fio point live (its status reports read while it runs)."""

    def __init__(self):
        self.seconds = []

    def interval(self, values, **where):
        self.seconds.append(values)


def ctrl_c_after(seconds: float, noted: list, note=lambda: None):
    """Ctrl-C ``seconds`` into the block, as a terminal's: a KeyboardInterrupt in this (the main)
    thread, whatever it waits on; ``note()`` is appended to ``noted`` at that moment (what was running)."""
    return ctrl_c_once(lambda: True, seconds, noted, note)


@contextlib.contextmanager
def ctrl_c_once(ready, then_s: float, noted: list, note=lambda: None, *, within_s: float = 120):
    """Ctrl-C ``then_s`` seconds after ``ready()`` first holds (looked at every 0.1 s, for at most
    ``within_s``), as a terminal's: a KeyboardInterrupt in this (the main) thread, whatever it waits on
    (SIGALRM, sent by a watching thread); ``note()`` is appended to ``noted`` at that moment. For a
    moment that a fixed delay would miss on a busy machine (a JVM started)."""
    def press(signum, frame):
        noted.append(note())
        raise KeyboardInterrupt

    def watch():
        deadline = time.monotonic() + within_s
        while not done.is_set() and time.monotonic() < deadline:
            if ready():
                if not done.wait(then_s):
                    os.kill(os.getpid(), signal.SIGALRM)
                return
            time.sleep(0.1)

    done = threading.Event()
    before = signal.signal(signal.SIGALRM, press)
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
        watcher.join()
        signal.signal(signal.SIGALRM, before)


def holders(target) -> list[str]:
    """Pids of the processes that have ``target`` open. A process may end while its /proc entry
    is read (listing its fd directory then fails): it holds nothing, so it is skipped."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") == str(target):
                    found.append(pid)
                    break
            except OSError:
                continue
    return found


def running_in(folder, *, within_s: float = 5) -> list[str]:
    """The processes whose working directory is under ``folder`` (pid and command line) once none is,
    or ``within_s`` has passed (a process killed with SIGKILL ends soon after, not at once)."""
    return still_running(lambda: processes_in(folder), within_s=within_s)


def still_running(find, *, within_s: float = 5) -> list[str]:
    """What ``find()`` gives (processes) once it gives none, or when ``within_s`` has passed."""
    deadline = time.monotonic() + within_s
    while (found := find()) and time.monotonic() < deadline:
        time.sleep(0.1)
    return found


def processes_in(folder) -> list[str]:
    """The processes whose working directory is under ``folder``: a point's fio and its job processes
    (each in a session of its own) run in the point's folder under the host's workdir."""
    return _processes(lambda pid: Path(os.readlink(f"/proc/{pid}/cwd")).is_relative_to(folder))


def processes_naming(*texts: str) -> list[str]:
    """The processes whose command line holds every one of ``texts`` (pid and command line)."""
    return _processes(lambda pid: all(text in command_line(pid) for text in texts))


def _processes(chosen) -> list[str]:
    """Pid and command line of each process for whose pid ``chosen`` is true (one that ends while
    it is read is left out)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        with contextlib.suppress(OSError):
            if chosen(pid):
                found.append(f"{pid}: {command_line(pid)}")
    return found


def command_line(pid: str) -> str:
    """A process's command line, its arguments joined by spaces."""
    return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")

"""A real PostgreSQL 15 cluster on 127.0.0.1, and the real HammerDB, for the tests that run it.

``postgres_server`` (a fixture; :func:`postgres_cluster` in a directory the test chooses) makes a
throwaway cluster with Debian's PostgreSQL 15 binaries (``initdb`` into a fresh directory, a
password for the superuser ``postgres`` with scram-sha-256, ``pg_ctl start`` on a free port of
127.0.0.1, no Unix socket outside the cluster's own directory) and removes it at teardown. Running
as root, the server runs as the unprivileged ``postgres`` user (``setpriv``), as PostgreSQL refuses
to run as root, in a CPU cgroup of its own capped at :data:`PG_CPUS` where the tests may make one
(:func:`_cpu_cgroup`). Skips, saying why, where PostgreSQL 15 is absent.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pwd
import secrets
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from ssh_server import free_port

REPO = Path(__file__).resolve().parent.parent
PG_BIN = Path(os.environ.get("FLASHPOC_TEST_PG_BIN", "/usr/lib/postgresql/15/bin"))


@dataclass(frozen=True)
class PostgresServer:
    """A running cluster: where it listens and its superuser's password."""

    host: str
    port: int
    superuser: str
    password: str
    data_dir: Path


def _as_server_user(argv: list[str], owner: pwd.struct_passwd | None) -> list[str]:
    if owner is None:
        return argv
    return ["setpriv", f"--reuid={owner.pw_uid}", f"--regid={owner.pw_gid}", "--init-groups", *argv]


@pytest.fixture
def postgres_server() -> Iterator[PostgresServer]:
    """A PostgreSQL 15 cluster on 127.0.0.1 for this test, removed afterwards."""
    with postgres_cluster() as server:
        yield server


@contextlib.contextmanager
def postgres_cluster(base: Path | None = None) -> Iterator[PostgresServer]:
    """A PostgreSQL 15 cluster on 127.0.0.1 in ``data`` of ``base`` (an existing, empty directory;
    default a new one under the system's temporary directory), for a fixture of any scope
    (:func:`postgres_server`), stopped and its files removed at the end; skips the test, saying why,
    where it cannot run."""
    if not (PG_BIN / "initdb").is_file():
        pytest.skip(f"PostgreSQL 15 is not installed ({PG_BIN}/initdb is missing; apt-get install postgresql-15)")
    owner = _server_user()
    base = base or Path(tempfile.mkdtemp(prefix="flashpoc-pg-"))
    data = base / "data"
    password = secrets.token_hex(12)
    (base / "pw").write_text(password + "\n")
    if owner is not None:
        os.chown(base, owner.pw_uid, owner.pw_gid)
        os.chown(base / "pw", owner.pw_uid, owner.pw_gid)
    try:
        subprocess.run(_as_server_user([str(PG_BIN / "initdb"), "-D", str(data), "-U", "postgres",
                                        "--auth=scram-sha-256", f"--pwfile={base / 'pw'}", "--no-sync",
                                        "--encoding=UTF8", "--locale=C"], owner),
                       check=True, capture_output=True, timeout=120)
        for attempt in range(3):  # a test running beside this one may take the free port before the server binds it
            port = free_port()
            started = _pg_ctl(data, port, "start")
            if started.returncode == 0 or attempt == 2:
                started.check_returncode()
                break
        yield PostgresServer("127.0.0.1", port, "postgres", password, data)
    except subprocess.CalledProcessError as error:
        log = (base / "server.log").read_text() if (base / "server.log").exists() else ""
        raise RuntimeError(f"PostgreSQL did not start: {error.stderr!r}\n{log}") from None
    finally:
        subprocess.run(_as_server_user([str(PG_BIN / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w",
                                        "stop"], owner), capture_output=True, timeout=60)
        _remove_cgroup(data)
        shutil.rmtree(base, ignore_errors=True)


def _server_user() -> pwd.struct_passwd | None:
    """The user the server runs as: ``postgres`` when running as root (PostgreSQL refuses root)."""
    if os.geteuid() != 0:
        return None
    try:
        return pwd.getpwnam("postgres")
    except KeyError:
        pytest.skip("running as root and there is no 'postgres' user to run the server as")


def _pg_ctl(data: Path, port: int, action: str) -> subprocess.CompletedProcess:
    options = f"-c listen_addresses=127.0.0.1 -p {port} -k {data} -c fsync=off -c max_connections=50"
    argv = _as_server_user([str(PG_BIN / "pg_ctl"), "-D", str(data), "-o", options, "-w", "-t", "60",
                            "-l", str(data.parent / "server.log"), action], _server_user())
    procs = _cpu_cgroup(data) if action == "start" else None
    if procs is not None:  # the server, started from a shell that first moves itself into the cgroup
        argv = ["sh", "-c", 'echo $$ > "$0" && exec "$@"', str(procs), *argv]
    return subprocess.run(argv, capture_output=True, timeout=90)


PG_CPUS = 0.5
"""The CPUs a test's PostgreSQL server may use (the CPU quota of its cgroup). A timed HammerDB run
drives transactions as fast as the server answers for its whole fixed minute, so that unbounded it
took one CPU per virtual user from the tests beside it (1.7 of this machine's 2 for a 2-user run)
and, bounded, it measures fewer transactions in the same minute. nice does not bound it: pg_ctl's
server starts a session of its own, and where the kernel groups the CPU by session (autogroup) a
nice counts only within it. No test asserts how fast the database is."""
CGROUP_PERIOD_US = 20_000
"""The cgroup's quota period: short, so that a throttled statement waits milliseconds, not 100."""


def _cpu_cgroup(data: Path, *, make: bool = True) -> Path | None:
    """The ``cgroup.procs`` file of a CPU cgroup for the server of ``data``, capped at
    :data:`PG_CPUS` (cgroup v2's ``cpu.max``, or v1's CFS quota), made on first use (``make``; else
    only found) and removed with the cluster (:func:`_remove_cgroup`); None where no CPU controller
    is mounted or it is not writable (not root): the server then runs without a cap."""
    quota = int(PG_CPUS * CGROUP_PERIOD_US)
    name = "flashpoc-test-pg-" + hashlib.sha256(str(data).encode()).hexdigest()[:16]
    for line in Path("/proc/self/mounts").read_text().splitlines():
        _, mount, kind, options, *_ = line.split()
        root = Path(mount)
        if kind == "cgroup2" and "cpu" in _read(root / "cgroup.controllers").split():
            limits = {"cpu.max": f"{quota} {CGROUP_PERIOD_US}"}
            with contextlib.suppress(OSError):
                (root / "cgroup.subtree_control").write_text("+cpu")
        elif kind == "cgroup" and "cpu" in options.split(","):
            limits = {"cpu.cfs_period_us": str(CGROUP_PERIOD_US), "cpu.cfs_quota_us": str(quota)}
        else:
            continue
        if not make:
            return root / name / "cgroup.procs" if (root / name).is_dir() else None
        try:
            (root / name).mkdir(exist_ok=True)
            for file, value in limits.items():
                (root / name / file).write_text(value)
        except OSError:
            return None
        return root / name / "cgroup.procs"
    return None


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def _remove_cgroup(data: Path) -> None:
    """Remove the cgroup :func:`_cpu_cgroup` made for ``data``'s server, once its processes have ended."""
    procs = _cpu_cgroup(data, make=False)
    if procs is None:
        return
    deadline = time.monotonic() + 10
    while _read(procs).strip() and time.monotonic() < deadline:
        time.sleep(0.1)
    with contextlib.suppress(OSError):
        procs.parent.rmdir()


def stop_postgres(server: PostgresServer) -> None:
    """Stop ``server`` (fast shutdown), as a database that went down."""
    _pg_ctl(server.data_dir, server.port, "stop").check_returncode()


def start_postgres(server: PostgresServer) -> None:
    """Start ``server`` again on its port."""
    _pg_ctl(server.data_dir, server.port, "start").check_returncode()


def real_hammerdb() -> Path:
    """HammerDB's directory (holding ``hammerdbcli``): the one `make engines` installs into
    ``.engines/hammerdb``, else ``$FLASHPOC_TEST_HAMMERDB``. Skips when absent or not runnable."""
    for candidate in (REPO / ".engines" / "hammerdb" / "HammerDB-6.0", os.environ.get("FLASHPOC_TEST_HAMMERDB")):
        if candidate and (Path(candidate) / "hammerdbcli").is_file():
            directory = Path(candidate)
            break
    else:
        pytest.skip("real HammerDB is not installed: `make engines` installs it from the engine kits' "
                    "hammerdb/install.sh, or set FLASHPOC_TEST_HAMMERDB to a HammerDB-6.0 directory")
    probe = subprocess.run([str(directory / "bin" / "tclsh9.0")], input="puts ok\n", capture_output=True,
                           text=True, timeout=60)
    if probe.stdout.strip() != "ok":
        pytest.skip(f"HammerDB's Tcl does not start here ({probe.stderr.strip()[:200]}); on Debian it needs "
                    "libtommath1 (apt-get install libtommath1)")
    return directory

"""A real OpenSSH server on 127.0.0.1 for tests, with generated keys and a known_hosts file.

``start_sshd(tmp_dir)`` starts ``/usr/sbin/sshd -D -e`` on a free port with its own
sshd_config, host key and authorized_keys (key authentication only), and returns an
:class:`SSHServer` whose fields map onto ``HostParams`` (address, port, user, key_file,
known_hosts). The ``sshd`` fixture (session scope) starts one server for the whole test
session and skips when openssh-server is not installed.

Cost measured on the development VM (2 vCPU, fabric 3.2, OpenSSH 9.2, user root, reused
connection): ``SSHHost.run("true")`` took about 190 ms per command (median; 150-290 ms),
of which about 165 ms was the remote login shell: sshd runs every command with
``bash -c`` and bash then read ``~/.bashrc``, which there runs ``pyenv init``. The SSH
channel plus fabric/invoke cost about 25-30 ms; the first command (TCP connect, key
exchange, public-key authentication) adds about 25 ms. ``LocalHost.run("true")``: 1 ms.
The test server sets ``SHLVL=1`` for its sessions, so bash skips ``~/.bashrc``: what a
user's shell start-up does is no part of the tests, and ``pyenv init`` takes a lock of its
own on the machine, which a test that freezes or kills a host's processes (a hung or
crashed host) held or left behind, stalling every other SSH command of every test session.
"""

from __future__ import annotations

import contextlib
import getpass
import os
import random
import signal
import shutil
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

SSHD = "/usr/sbin/sshd"
START_TIMEOUT_S = 10.0


@dataclass
class SSHServer:
    """A running sshd and what a client needs to reach it."""

    address: str
    port: int
    user: str
    key_file: str
    known_hosts: str
    host_key_pub: str
    log: Path
    process: subprocess.Popen = field(repr=False)

    def host_params(self, name: str = "ssh", **overrides: object) -> dict[str, object]:
        """Return a ``hosts`` entry (a dict for ``campaign_from_dict``) for this server; its workdir
        is this server's own (not the default one, which tests running side by side would share)."""
        values: dict[str, object] = {
            "name": name, "address": self.address, "port": self.port, "user": self.user,
            "key_file": self.key_file, "known_hosts": self.known_hosts, "connect_timeout_s": 5,
            "workdir": str(self.log.parent / "work"),
        }
        values.update(overrides)
        return values

    def hang(self) -> list[int]:
        """Freeze sshd and everything under it (SIGSTOP), as a hung host: its TCP connections
        stay open, nothing answers on them. Returns the frozen pids, for :meth:`wake`."""
        return freeze(lambda: process_tree(self.process.pid))

    @staticmethod
    def wake(frozen: list[int]) -> None:
        """Let the processes :meth:`hang` froze run again."""
        thaw(frozen)

    def stop(self) -> None:
        """Stop sshd (and wait for it)."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)


def process_tree(root: int) -> list[int]:
    """``root`` and every process under it (for sshd: each connection's sshd, its shell, fio).
    A process that ends while /proc is read is left out."""
    children: dict[int, list[int]] = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as stat:
                parent = int(stat.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(parent, []).append(int(pid))
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo += children.get(pid, [])
    return tree


def freeze(pids: Callable[[], list[int]]) -> list[int]:
    """SIGSTOP the processes ``pids()`` lists, again until it lists none that is new (one may
    fork while the others are being stopped); return the frozen pids, for :func:`thaw`."""
    frozen: list[int] = []
    while new := [pid for pid in pids() if pid not in frozen]:
        for pid in new:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGSTOP)
        frozen += new
    return frozen


def thaw(frozen: list[int]) -> None:
    """Let the processes :func:`freeze` stopped run again (SIGCONT)."""
    for pid in frozen:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGCONT)


FIRST_TEST_PORT = 10000
"""The lowest port :func:`free_port` gives."""
TEST_WORKERS_MAX = 16
"""The pytest-xdist workers whose ports :func:`free_port` keeps apart."""


def port_share(worker: str | None = None) -> range:
    """The ports :func:`free_port` gives to pytest-xdist's ``worker`` (default: this one's,
    ``PYTEST_XDIST_WORKER``): its share of those below the kernel's ephemeral range."""
    with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
        ephemeral = int(f.read().split()[0])
    worker = worker or os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    index = int(worker.removeprefix("gw") or 0) % TEST_WORKERS_MAX
    share = (ephemeral - FIRST_TEST_PORT) // TEST_WORKERS_MAX
    return range(FIRST_TEST_PORT + index * share, FIRST_TEST_PORT + (index + 1) * share)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free now, and that no server of a test running beside this
    one takes before this one's server binds it: below the kernel's ephemeral range (which a
    port-0 bind and every outgoing connection draw from), in the share of this pytest-xdist
    worker (:func:`port_share`). A port picked by a port-0 bind was once taken, between the
    pick and the bind, by another worker's sshd: JupyterLab found its port in use and exited, and
    the test spoke HTTP to the sshd."""
    ports = list(port_share())
    random.shuffle(ports)
    for port in ports:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free TCP port in {ports[0]}-{ports[-1]}")


def _keygen(path: Path, comment: str) -> None:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", str(path)],
                   check=True, capture_output=True, timeout=30)


def _wait_for_port(address: str, port: int, process: subprocess.Popen, log: Path, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"sshd exited with {process.returncode}:\n{log.read_text(errors='replace')}")
        try:
            with socket.create_connection((address, port), timeout=0.5) as sock:
                sock.settimeout(1.0)
                if sock.recv(64).startswith(b"SSH-"):
                    return
        except OSError:
            time.sleep(0.05)
    process.kill()
    process.wait(timeout=5)
    raise RuntimeError(f"sshd did not accept connections on {address}:{port} within {timeout_s:g} s:\n"
                       f"{log.read_text(errors='replace')}")


def start_sshd(tmp_dir: str | Path, *, address: str = "127.0.0.1", netns: str | None = None,
               user_key: Path | None = None, port: int | None = None) -> SSHServer:
    """Start sshd on ``address`` with keys and configuration generated in ``tmp_dir``.

    Args:
        tmp_dir: directory for its keys, configuration and log.
        address: the address it listens on (127.0.0.1 on a free port; any other address, which
            must belong to ``netns``, on port 22).
        netns: network namespace to run it in (``ip netns exec``).
        user_key: an existing client key to authorize (default: a new one).
        port: the port to listen on (default: as said for ``address``).

    Raises:
        RuntimeError: when sshd exits or does not answer within 10 s (with its log).
    """
    tmp = Path(tmp_dir)
    tmp.mkdir(parents=True, exist_ok=True)
    host_key = tmp / "ssh_host_ed25519_key"
    _keygen(host_key, "flashpoc-test-host")
    if user_key is None:
        user_key = tmp / "id_ed25519"
        _keygen(user_key, "flashpoc-test-user")
    authorized = tmp / "authorized_keys"
    authorized.write_text(Path(f"{user_key}.pub").read_text())
    authorized.chmod(0o600)
    if os.geteuid() == 0:
        Path("/run/sshd").mkdir(mode=0o755, parents=True, exist_ok=True)  # privilege separation dir
    host_key_pub = Path(f"{host_key}.pub").read_text().split()
    log = tmp / "sshd.log"
    last_error: RuntimeError | None = None
    prefix = ["ip", "netns", "exec", netns] if netns else []
    for _ in range(3):  # another process may take the free port before sshd binds it
        port = port or (free_port() if address == "127.0.0.1" else 22)
        config = tmp / "sshd_config"
        config.write_text("\n".join([
            f"ListenAddress {address}",
            f"Port {port}",
            f"HostKey {host_key}",
            f"AuthorizedKeysFile {authorized}",
            "PubkeyAuthentication yes",
            "PasswordAuthentication no",
            "KbdInteractiveAuthentication no",
            "PermitRootLogin prohibit-password",
            "StrictModes no",
            "UsePAM no",
            f"PidFile {tmp / 'sshd.pid'}",
            "LogLevel VERBOSE",
            "Subsystem sftp internal-sftp",
            # bash reads ~/.bashrc for a command sshd starts only as a top-level shell: with SHLVL=1
            # it is one level down and skips it (see the module docstring)
            "SetEnv SHLVL=1",
            "",
        ]))
        with log.open("ab") as out:
            process = subprocess.Popen([*prefix, SSHD, "-D", "-e", "-f", str(config)], stdin=subprocess.DEVNULL,
                                       stdout=out, stderr=subprocess.STDOUT)
        try:
            _wait_for_port(address, port, process, log, START_TIMEOUT_S)
        except RuntimeError as error:
            last_error = error
            continue
        known_hosts = tmp / "known_hosts"
        where = address if port == 22 else f"[{address}]:{port}"
        known_hosts.write_text(f"{where} {host_key_pub[0]} {host_key_pub[1]}\n")
        return SSHServer(address=address, port=port, user=getpass.getuser(), key_file=str(user_key),
                         known_hosts=str(known_hosts), host_key_pub=" ".join(host_key_pub[:2]),
                         log=log, process=process)
    raise last_error  # type: ignore[misc]


@pytest.fixture(scope="session")
def sshd(tmp_path_factory: pytest.TempPathFactory):
    """A running :class:`SSHServer` shared by the session (skipped without openssh-server)."""
    if not os.access(SSHD, os.X_OK) or shutil.which("ssh-keygen") is None:
        pytest.skip(f"needs openssh-server ({SSHD}) and ssh-keygen to start a test SSH server")
    server = start_sshd(tmp_path_factory.mktemp("sshd"))
    yield server
    server.stop()

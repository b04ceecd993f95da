"""Several real load hosts on one machine: network namespaces, each with its own address and sshd.

``netns_hosts(tmp_dir, count)`` creates a bridge with an address for this (controller) side,
then per host a network namespace joined to the bridge by a veth pair, with its own address
on a private /24 and its own sshd on port 22 (own host key, one shared client key). Every
namespace sees the same file system (only the network is separate), so the hosts share the
target files, as hosts share a LUN of an array. ``NetnsHost.cut()`` takes the host's link down:
its sshd and processes live on, but no packet reaches it (a pulled cable, a dead switch port);
``mend()`` brings it back. ``hang()`` freezes every process of the host (SIGSTOP), ``wake()``
thaws them. ``kill()`` kills every process of the host (a crash), ``revive()``
starts its sshd again. ``iops_limited()`` caps the IOPS hosts may read from a (``loop_device()``)
block device, each or together. Everything is removed on exit. Needs root and iproute2
(``netns_hosts`` skips otherwise); traffic stays on the bridge this creates.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from ssh_server import SSHD, SSHServer, _keygen, _wait_for_port, freeze, start_sshd, thaw


@dataclass
class NetnsHost:
    """One host: its namespace, the host end of its link and its sshd."""

    name: str
    netns: str
    link: str  # the veth end on the controller's bridge
    sshd: SSHServer

    def host_params(self, **overrides: object) -> dict[str, object]:
        """A ``hosts`` entry for this host."""
        return self.sshd.host_params(self.name, **overrides)

    def cut(self) -> None:
        """Take the host's network down (its processes keep running)."""
        _ip("link", "set", self.link, "down")

    def mend(self) -> None:
        """Bring the host's network back."""
        _ip("link", "set", self.link, "up")

    def hang(self) -> list[int]:
        """Freeze every process of the host (SIGSTOP: its sshd, commands and fio server), as a hung
        host: the link stays up and its TCP connections open, but nothing answers on them."""
        return freeze(lambda: [int(pid) for pid in _netns_pids(self.netns)])

    @staticmethod
    def wake(frozen: list[int]) -> None:
        """Let the processes :meth:`hang` froze run again."""
        thaw(frozen)

    def kill(self) -> None:
        """Kill every process of the host (its sshd, commands and fio server), as a crash or a
        power cut does; the link stays up, so connections to it are refused or reset."""
        for pid in _netns_pids(self.netns):
            with contextlib.suppress(ProcessLookupError, ValueError):
                os.kill(int(pid), 9)
        self.sshd.process.wait(timeout=10)

    def revive(self) -> None:
        """Start the host's sshd again, with its configuration and host key (a reboot)."""
        config = self.sshd.log.parent / "sshd_config"
        with self.sshd.log.open("ab") as out:
            process = subprocess.Popen(["ip", "netns", "exec", self.netns, SSHD, "-D", "-e", "-f", str(config)],
                                       stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
        _wait_for_port(self.sshd.address, self.sshd.port, process, self.sshd.log, 10)
        self.sshd.process = process


@contextlib.contextmanager
def iops_limited(hosts: list[NetnsHost], device: str, iops: int, *, shared: bool = False) -> Iterator[None]:
    """Let every process of each host (its sshd, and so every command and fio server started
    through it) read at most ``iops`` I/Os per second from the block ``device``, as a load host
    limited by its HBA or paths is; with ``shared``, the hosts together get that many, as hosts
    on an array at its limit do. A blkio cgroup with a read IOPS throttle (cgroup v1
    ``blkio.throttle.read_iops_device`` or v2 ``io.max``), removed on exit. Skips the test when
    neither can be used."""
    major_minor = f"{os.major(os.stat(device).st_rdev)}:{os.minor(os.stat(device).st_rdev)}"
    v1, v2 = Path("/sys/fs/cgroup/blkio"), Path("/sys/fs/cgroup")
    made: list[tuple[Path, Path]] = []  # (cgroup, where its processes go back to)

    def group_for(name: str) -> Path:
        if (v1 / "blkio.throttle.read_iops_device").exists():
            group, limit, line = v1 / f"flashpoc-{name}", "blkio.throttle.read_iops_device", f"{major_minor} {iops}"
        elif (v2 / "cgroup.subtree_control").exists() and "io" in (v2 / "cgroup.subtree_control").read_text().split():
            group, limit, line = v2 / f"flashpoc-{name}", "io.max", f"{major_minor} riops={iops}"
        else:
            pytest.skip("needs a cgroup I/O controller (v1 blkio throttle or v2 io.max) to limit a host's IOPS")
        group.mkdir()
        made.append((group, group.parent))
        (group / limit).write_text(line)
        return group

    try:
        common = group_for(f"{hosts[0].netns}-shared") if shared else None
        for host in hosts:
            group = common or group_for(host.netns)
            for pid in _netns_pids(host.netns):
                (group / "cgroup.procs").write_text(pid)
        yield
    finally:
        for group, parent in made:
            for pid in (group / "cgroup.procs").read_text().split():
                with contextlib.suppress(OSError):
                    (parent / "cgroup.procs").write_text(pid)
            with contextlib.suppress(OSError):
                group.rmdir()


@contextlib.contextmanager
def loop_device(backing: Path) -> Iterator[str]:
    """A loop block device over the file ``backing`` (every host sees it: one /dev), detached on
    exit. Skips the test when no loop device can be set up."""
    made = subprocess.run(["losetup", "--find", "--show", str(backing)], capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(f"needs a loop device (losetup): {made.stderr.strip()}")
    device = made.stdout.strip()
    try:
        yield device
    finally:
        subprocess.run(["losetup", "-d", device], capture_output=True)


def _netns_pids(netns: str) -> list[str]:
    return subprocess.run(["ip", "netns", "pids", netns], capture_output=True, text=True).stdout.split()


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=30)


def netns_available() -> str | None:
    """None when namespaces can be made here, else why not."""
    if os.geteuid() != 0:
        return "needs root to create network namespaces"
    if shutil.which("ip") is None or not os.access("/usr/sbin/sshd", os.X_OK):
        return "needs iproute2 (ip) and openssh-server"
    return None


@contextlib.contextmanager
def netns_hosts(tmp_dir: Path, count: int) -> Iterator[list[NetnsHost]]:
    """``count`` hosts in network namespaces (see the module docstring), removed on exit."""
    reason = netns_available()
    if reason:
        pytest.skip(reason)
    tmp_dir.mkdir(parents=True, exist_ok=True)
    user_key = tmp_dir / "id_ed25519"
    _keygen(user_key, "flashpoc-test-user")
    hosts: list[NetnsHost] = []
    namespaces: list[str] = []
    bridge = None
    try:
        bridge, subnet = _new_bridge()
        tag = bridge.removeprefix("fpbr")
        for i in range(1, count + 1):
            netns, link, address = f"fpns{tag}-{i}", f"fpv{tag}-{i}", f"{subnet}.{10 + i}"
            _ip("netns", "add", netns)
            namespaces.append(netns)
            _ip("link", "add", link, "type", "veth", "peer", "name", "eth0", "netns", netns)
            _ip("link", "set", link, "master", bridge, "up")
            _ip("-n", netns, "addr", "add", f"{address}/24", "dev", "eth0")
            _ip("-n", netns, "link", "set", "eth0", "up")
            _ip("-n", netns, "link", "set", "lo", "up")
            server = start_sshd(tmp_dir / f"h{i}", address=address, netns=netns, user_key=user_key)
            hosts.append(NetnsHost(f"h{i}", netns, link, server))
        yield hosts
    finally:
        for host in hosts:
            host.sshd.stop()
            subprocess.run(["ip", "link", "del", host.link], capture_output=True)  # the pair goes now, not later
        for netns in namespaces:
            for pid in _netns_pids(netns):
                with contextlib.suppress(ProcessLookupError, ValueError):
                    os.kill(int(pid), 9)
            subprocess.run(["ip", "netns", "del", netns], capture_output=True)
        if bridge:
            subprocess.run(["ip", "link", "del", bridge], capture_output=True)


def _new_bridge() -> tuple[str, str]:
    """A new bridge, up, with the address .1 on a /24 of 10.231.0.0/16 that no interface of this
    machine uses; returns (its name, the /24's first three octets). Test sessions (and pytest-xdist
    workers) run side by side: a lock file serializes the choice, and the name and subnet are ones
    no bridge holds yet, so two sessions never share a subnet (which would mix up their routes)."""
    with open(Path(tempfile.gettempdir()) / "flashpoc-test-netns.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        shown = subprocess.run(["ip", "-o", "-4", "addr", "show"], capture_output=True, text=True, check=True)
        used = set(re.findall(r"\binet 10\.231\.(\d+)\.", shown.stdout))
        links = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True, check=True).stdout
        free = [n for n in range(250) if str(n) not in used]
        if not free:
            raise RuntimeError("every /24 of 10.231.0.0/16 is in use by a test bridge")
        subnet = f"10.231.{free[0]}"
        # a name no bridge or host link holds: a namespace's veth pair outlives `ip netns del` for a
        # while (the kernel removes it asynchronously), so a tag whose links linger is skipped
        tag = next(t for t in (f"{os.getpid() % 100000}{c}" for c in "abcdefghijklmnopqrstuvwxyz")
                   if f"fpbr{t}:" not in links and f"fpv{t}-" not in links)
        bridge = f"fpbr{tag}"
        _ip("link", "add", bridge, "type", "bridge")
        try:
            _ip("addr", "add", f"{subnet}.1/24", "dev", bridge)
            _ip("link", "set", bridge, "up")
        except BaseException:
            subprocess.run(["ip", "link", "del", bridge], capture_output=True)
            raise
        return bridge, subnet

"""Several real load hosts on one machine: network namespaces, each with its own address and sshd.

``netns_hosts(tmp_dir, count)`` creates a bridge with an address for this (controller) side,
then per host a network namespace joined to the bridge by a veth pair, with its own address
on a private /24 and its own sshd on port 22 (own host key, one shared client key). Every
namespace sees the same file system (only the network is separate), so the hosts share the
target files, as hosts share a LUN of an array. ``NetnsHost.cut()`` takes the host's link down:
its sshd and processes live on, but no packet reaches it (a pulled cable, a dead switch port);
``mend()`` brings it back. Everything is removed on exit. Needs root and iproute2
(``netns_hosts`` skips otherwise); traffic stays on the bridge this creates.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from ssh_server import SSHServer, _keygen, start_sshd


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
    tag = f"{os.getpid() % 100000}"
    subnet = f"10.231.{os.getpid() % 250}"
    bridge = f"fpbr{tag}"
    tmp_dir.mkdir(parents=True, exist_ok=True)
    user_key = tmp_dir / "id_ed25519"
    _keygen(user_key, "flashpoc-test-user")
    hosts: list[NetnsHost] = []
    namespaces: list[str] = []
    try:
        _ip("link", "add", bridge, "type", "bridge")
        _ip("addr", "add", f"{subnet}.1/24", "dev", bridge)
        _ip("link", "set", bridge, "up")
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
        for netns in namespaces:
            pids = subprocess.run(["ip", "netns", "pids", netns], capture_output=True, text=True).stdout.split()
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, ValueError):
                    os.kill(int(pid), 9)
            subprocess.run(["ip", "netns", "del", netns], capture_output=True)
        subprocess.run(["ip", "link", "del", bridge], capture_output=True)

"""The tests' own servers (sshd, JupyterLab, PostgreSQL, fio's) take ports that no test running
beside them and no outgoing connection takes first (tests/ssh_server.py's free_port)."""

from __future__ import annotations

import socket

from ssh_server import FIRST_TEST_PORT, TEST_WORKERS_MAX, free_port, port_share


def test_each_worker_has_its_own_ports_below_the_ephemeral_range():
    with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
        ephemeral = int(f.read().split()[0])
    shares = [port_share(f"gw{worker}") for worker in range(TEST_WORKERS_MAX)]
    assert shares[0].start == FIRST_TEST_PORT and shares[-1].stop <= ephemeral
    assert all(a.stop <= b.start and len(a) > 1000 for a, b in zip(shares, shares[1:]))  # disjoint, in order
    assert port_share(f"gw{TEST_WORKERS_MAX}") == shares[0]


def test_a_port_a_server_holds_is_never_given():
    """Ports of this worker's own share only: another worker's servers are never raced."""
    held = []
    try:
        for _ in range(50):
            sock = socket.socket()
            sock.bind(("127.0.0.1", free_port()))
            sock.listen()
            held.append(sock)
        ports = {s.getsockname()[1] for s in held}
        assert len(ports) == 50 and all(port in port_share() for port in ports)
    finally:
        for sock in held:
            sock.close()

"""The tests' own servers (sshd, JupyterLab, PostgreSQL, fio's) take ports that no test running
beside them and no outgoing connection takes first (tests/ssh_server.py's free_port)."""

from __future__ import annotations

import socket

from ssh_server import FIRST_TEST_PORT, TEST_WORKERS_MAX, free_port


def test_each_worker_picks_free_ports_of_its_own_below_the_ephemeral_range(monkeypatch):
    with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
        ephemeral = int(f.read().split()[0])
    share = (ephemeral - FIRST_TEST_PORT) // TEST_WORKERS_MAX
    for worker in range(6):
        monkeypatch.setenv("PYTEST_XDIST_WORKER", f"gw{worker}")
        ports = {free_port() for _ in range(20)}
        assert all(FIRST_TEST_PORT + worker * share <= p < FIRST_TEST_PORT + (worker + 1) * share for p in ports)
    # a port a server holds is never given
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    held = []
    try:
        for _ in range(50):
            sock = socket.socket()
            sock.bind(("127.0.0.1", free_port()))
            sock.listen()
            held.append(sock)
        assert len({s.getsockname()[1] for s in held}) == 50
    finally:
        for sock in held:
            sock.close()

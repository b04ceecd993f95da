"""Several hosts: the slaves' hosts, their ssh configuration, and the I/Os each host keeps in flight."""

from __future__ import annotations

import math

from flashpoc.core.errors import ParameterError
from flashpoc.params import Campaign, HostParams
from flashpoc.engines.vdbench.plan.checks import _whole


def remote_hosts(campaign: Campaign) -> list[HostParams]:
    """The hosts vdbench's master may start its slaves on through ``shell=`` (ssh, rsh): those
    of the ``hd=`` lines whose address is not ``localhost`` (vdbench starts those itself, and
    also any whose address is its own, which it tells from its host name's address)."""
    hosts = campaign.hosts
    if len(hosts) == 1 and hosts[0].is_local:
        return []
    return [h for h in hosts if not h.is_local]


def ssh_config(campaign: Campaign) -> str | None:
    """The OpenSSH client configuration for vdbench's ``shell=ssh`` (None without a remote
    host or with another shell).

    vdbench starts a remote slave as ``ssh ADDRESS -l USER VDBENCH_DIR/vdbench SlaveJvm ...``
    (``Vdb/SlaveStarter.java``): no port, no key, no known_hosts file. The workbook runs that
    ``ssh`` with ``-F`` this file, one ``Host ADDRESS`` block per remote host with the settings
    of its parameters: ``Port``, ``User``, ``IdentityFile`` (``key_file``), ``UserKnownHostsFile``
    (``known_hosts``), ``StrictHostKeyChecking`` (``yes``, or ``accept-new`` with
    ``trust_unknown_host_key``), ``ConnectTimeout``, ``BatchMode yes`` (a prompt would hang
    vdbench) and ``GSSAPIAuthentication no`` (keys only, as the workbook's own SSH: Kerberos
    look-ups can stall a connection for tens of seconds). File paths are read on the controller.
    The ssh client's own configuration files follow, for anything the parameters do not set.

    Raises:
        ParameterError: two hosts at one address with other SSH settings (vdbench names a host by
            its address only, so ssh could not tell them apart).
    """
    if campaign.settings.shell != "ssh":
        return None
    hosts = remote_hosts(campaign)
    if not hosts:
        return None
    blocks: dict[str, list[str]] = {}
    for host in hosts:
        lines = [f"Host {host.address}", f"  Port {host.port}"]
        if host.user:
            lines.append(f"  User {host.user}")
        if host.key_file:
            lines += [f"  IdentityFile {host.key_file}", "  IdentitiesOnly yes"]
        if host.known_hosts:
            lines.append(f"  UserKnownHostsFile {host.known_hosts}")
        lines += [f"  StrictHostKeyChecking {'accept-new' if host.trust_unknown_host_key else 'yes'}",
                  f"  ConnectTimeout {math.ceil(host.connect_timeout_s)}", "  BatchMode yes",
                  "  GSSAPIAuthentication no"]
        seen = blocks.setdefault(host.address, lines)
        if seen != lines:
            i = campaign.hosts.index(host)
            raise ParameterError(f"hosts[{i}].address: {host.address} is also another host's address, with other "
                                 "SSH settings; vdbench names a remote host by its address only")
    out = ["# flashpoc: the OpenSSH client settings of vdbench's shell=ssh, from the hosts' parameters "
           "(generated)", ""]
    for lines in blocks.values():
        out += lines + [""]
    out += ["# the ssh client's own configuration, for anything not set above", "Match all",
            "  Include ~/.ssh/config", "  Include /etc/ssh/ssh_config"]
    return "\n".join(out) + "\n"


def threads_per_host(campaign: Campaign, threads: int) -> dict[str, int]:
    """The I/Os each host is asked to keep in flight at ``threads`` (per SD), as vdbench spreads
    them: each SD's threads go round-robin over the hosts that use it, one counter running on
    over the SDs (``RD_entry.spreadSdThreadsAcrossSlaves``), so at low counts some hosts get
    none (threads=1 on one SD shared by two hosts: 1 and 0) and the hosts' shares differ by a
    thread. Exact when every SD is on the same hosts; vdbench's own SD order decides ties
    otherwise. Host names in the parameters' order.
    """
    threads = _whole("threads", threads)
    hosts = [h.name for h in campaign.hosts]
    given = dict.fromkeys(hosts, 0)
    robin = 0
    for target in campaign.targets:
        on = [h for h in hosts if target.hosts is None or h in target.hosts]
        for _ in range(threads if on else 0):
            given[on[robin % len(on)]] += 1
            robin += 1
    return given


# -- sizing ---------------------------------------------------------------------------

def outstanding_ios(threads: int, campaign: Campaign) -> int:
    """I/Os in flight at a run point: threads x SDs (vdbench's threads are per SD).

    Every wd uses ``sd=`` all of the campaign's targets, so ``threads x len(targets)``: the
    guide's 100 threads on 4 LUNs are 400 (558,627 IOPS x 0.714 ms = 399), 300 threads 1200
    (totals.html queue depth 1198).
    """
    return _whole("threads", threads) * len(campaign.targets)

"""What valid parameters hold that is no reason to refuse them but worth a look (validation's
warnings, :attr:`flashpoc.params.Campaign.warnings`): one line each, naming the key. Library code
returns them; ``flashpoc validate`` and ``flashpoc run`` print them and the environment check shows
them as ``warn`` rows."""

from __future__ import annotations

import ipaddress
from typing import Any

from flashpoc.params.models import HostParams


def campaign_warnings(cfg: Any) -> list[str]:
    """The warnings of ``cfg`` (a :class:`flashpoc.params.Campaign`, which calls this while it is
    validated: so this module does not import it): one machine named as two hosts, one workload under two names, then
    the engine's own (:meth:`flashpoc.engines.base.Engine.param_warnings`)."""
    return [*_same_machine(cfg), *_same_workload(cfg), *cfg.engine_object.param_warnings(cfg)]


def _machine(host: HostParams) -> tuple[str, ...]:
    """Where ``host`` runs: this machine for a local host, else its address (an IP address in one
    spelling, a name in lower case) and SSH port. Two hosts of one key are one machine (names that
    resolve to one address are not told apart: that would need the name service)."""
    if host.is_local:
        return ("localhost",)
    try:
        address = ipaddress.ip_address(host.address).compressed
    except ValueError:
        address = host.address.lower().rstrip(".")
    return address, str(host.port)


def _same_machine(cfg: Any) -> list[str]:
    """A host at the address and port of an earlier one: allowed (two HammerDB load hosts on one
    machine are a test of the workbook), but its load is that machine's, counted as two hosts'."""
    seen: dict[tuple[str, ...], int] = {}
    out = []
    for i, host in enumerate(cfg.hosts):
        j = seen.setdefault(_machine(host), i)
        if j != i:
            where = "this machine" if host.is_local else f"{host.address}:{host.port}"
            out.append(f"hosts[{i}].address: {host.name} is at the same address and port as hosts[{j}] "
                       f"({cfg.hosts[j].name}), {where}: one machine runs both, and its load counts as two hosts'")
    return out


def _same_workload(cfg: Any) -> list[str]:
    """A workload defined as an earlier one under another name: each is measured, the same I/O twice."""
    workloads = cfg.engine_workloads
    key = "workloads" if workloads is cfg.workloads else f"engine.{cfg.engine}.workloads"
    seen: dict[str, int] = {}
    out = []
    for i, workload in enumerate(workloads):
        definition = workload.model_dump_json(exclude={"name", "description"})
        j = seen.setdefault(definition, i)
        if j != i:
            out.append(f"{key}[{i}]: {workload.name} is the same workload as {key}[{j}] ({workloads[j].name}) under "
                       "another name: both are measured, the same I/O twice")
    return out

"""Environment facts the POCs report: how each target is reached and what the database is set up with.

The facts come from the check: the host facts script (:mod:`flashpoc.run.facts`: transport,
multipath paths, NFS mount, NIC/FC/InfiniBand link speeds) and the database facts
(:func:`flashpoc.run.oracle.database_facts`: Direct NFS servers and channels, ASM disk groups
and disks, log_buffer, sga_max_size, awr_pdb_autoflush_enabled, CALIBRATE_IO). This module is
pure: it turns them into

* check rows (:func:`host_rows`, :func:`database_rows`), with the columns of
  :data:`flashpoc.check.COLUMNS`;
* the manifest's engine-blind ``environment`` section (:func:`environment_section`);
* the conditions a report states (:func:`conditions`) and, between the report's campaign and
  the compared ones, the conditions that differ (:func:`differences`), e.g.
  ``transport: iSCSI (base) vs NVMe/TCP (nvme)``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

Row = dict[str, Any]

TRANSPORT_NAMES = {
    "nvme-pcie": "NVMe (PCIe)", "nvme-tcp": "NVMe/TCP", "nvme-rdma": "NVMe/RDMA", "nvme-fc": "NVMe/FC",
    "nvme-loop": "NVMe (loop)", "fc": "FC", "iscsi": "iSCSI", "sas": "SAS", "sata": "SATA", "usb": "USB",
    "virtio-scsi": "virtio-scsi", "virtio-blk": "virtio-blk", "xen-blk": "Xen block", "scsi": "SCSI",
    "loop": "loop device", "md": "MD RAID", "zram": "zram",
}
"""The words for the facts script's ``transport`` values."""
NETWORK_TRANSPORTS = frozenset({"iscsi", "nvme-tcp", "nvme-rdma", "nfs"})
"""Transports over the host's network links (where a slow NIC caps the result)."""
SLOW_LINK_MBPS = 1000
"""A network transport on hosts whose fastest link is this slow or slower is a warning."""
DATABASE_PARAMETERS = ("log_buffer", "sga_max_size", "sga_target", "db_cache_size", "awr_pdb_autoflush_enabled",
                       "filesystemio_options", "disk_asynch_io", "db_writer_processes")
"""The instance parameters a report's conditions list (those the database facts hold)."""


def _row(host: str, check: str, value: Any, status: str, detail: str = "") -> Row:
    return {"host": host, "check": check, "value": value, "status": status, "detail": detail}


# -- host side -----------------------------------------------------------------------------
def nfs_version(fstype: str | None, options: str | None) -> str | None:
    """``4.1`` from mount options ``vers=4.1`` (``nfsvers=``), ``4`` for an nfs4 mount without
    one; None for a file system other than NFS."""
    if not fstype or not fstype.startswith("nfs"):
        return None
    match = re.search(r"(?:^|,)(?:nfs)?vers=([0-9.]+)", options or "")
    return match.group(1) if match else ("4" if fstype == "nfs4" else None)


def transport_label(target: Mapping[str, Any]) -> str | None:
    """How a target is reached, in words: ``NVMe/TCP``, ``iSCSI``, ``NFS v4.1``, ``virtio-blk``
    (None when the facts do not say)."""
    fstype = target.get("fstype")
    if fstype and fstype.startswith("nfs"):
        version = nfs_version(fstype, target.get("mount_options"))
        return f"NFS v{version}" if version else "NFS"
    transport = target.get("transport")
    if transport:
        return TRANSPORT_NAMES.get(transport, transport)
    return None


def _transport_kind(target: Mapping[str, Any]) -> str | None:
    fstype = target.get("fstype") or ""
    return "nfs" if fstype.startswith("nfs") else target.get("transport")


def target_rows(host: str, name: str, target: Mapping[str, Any]) -> list[Row]:
    """The ``transport`` and ``paths`` rows of one target's facts (the ``paths`` row only for a
    multipath device)."""
    label = transport_label(target)
    rows = []
    if label is None:
        rows.append(_row(host, f"{name}: transport", None, "pass", "not found (no block device or mount behind it)"))
    elif label.startswith("NFS"):
        rows.append(_row(host, f"{name}: transport", label, "pass",
                         f"kernel NFS mount of {target.get('mount_source')} ({target.get('mount_options')})"))
    else:
        via = f"{target.get('device')}" + (f" on {target['slaves']}" if target.get("slaves") else "")
        if target.get("fstype"):
            via += f", file system {target['fstype']}"
        rows.append(_row(host, f"{name}: transport", label, "pass", via))
    paths, live = target.get("paths"), target.get("paths_live")
    if paths is None:
        return rows
    what = target.get("multipath") or "multipath"
    if paths <= 1:
        rows.append(_row(host, f"{name}: paths", paths, "warn",
                         f"{what} has a single path: no redundancy, and one path's bandwidth and queue; "
                         f"check the zoning or the sessions (multipath -ll, nvme list-subsys)"))
    elif live is not None and live < paths:
        rows.append(_row(host, f"{name}: paths", f"{live} of {paths}", "warn",
                         f"{what}: {paths - live} of {paths} paths are not live (failed or offline): "
                         f"the load runs on fewer paths than the configuration has"))
    else:
        rows.append(_row(host, f"{name}: paths", paths, "pass", f"{what}: {paths} paths, all live"))
    return rows


def _speed_text(mbps: int | None) -> str:
    if mbps is None:
        return "speed unknown"
    return f"{mbps / 1000:g} Gb/s" if mbps >= 1000 else f"{mbps} Mb/s"


def link_rows(host: str, links: Mapping[str, Any], kinds: Iterable[str | None]) -> list[Row]:
    """The ``network``, ``fc ports`` and ``infiniband`` rows of a host's links: a warning when
    a network transport (``kinds`` of the host's targets) runs over links of at most
    :data:`SLOW_LINK_MBPS`, or when an FC or InfiniBand port is not online."""
    rows = []
    up = [n for n in links.get("net") or [] if n.get("state") == "up" and n.get("speed_mbps")]
    over_network = sorted({k for k in kinds if k in NETWORK_TRANSPORTS})
    if up:
        fastest = max(n["speed_mbps"] for n in up)
        listed = ", ".join(f"{n['name']} {_speed_text(n['speed_mbps'])}" for n in up)
        if over_network and fastest <= SLOW_LINK_MBPS:
            rows.append(_row(host, "network", _speed_text(fastest), "warn",
                             f"{', '.join(TRANSPORT_NAMES.get(k, k.upper()) for k in over_network)} over links of at "
                             f"most {_speed_text(fastest)} ({listed}): about {fastest / 8:,.0f} MB/s per link "
                             f"caps the result before the array does"))
        else:
            rows.append(_row(host, "network", _speed_text(fastest), "pass", f"links up: {listed}"))
    elif over_network:
        rows.append(_row(host, "network", None, "warn",
                         "no link up with a known speed (/sys/class/net/*/speed): the network under "
                         f"{', '.join(over_network)} cannot be judged"))
    for key, check in (("fc", "fc ports"), ("ib", "infiniband")):
        ports = links.get(key) or []
        if not ports:
            continue
        speed = "speed" if key == "fc" else "rate"
        listed = ", ".join(f"{p['name']} {p.get(speed) or 'speed unknown'} {p.get('state') or ''}".strip()
                           for p in ports)
        down = [p["name"] for p in ports if not _port_up(p.get("state"))]
        status = "warn" if down else "pass"
        detail = listed + (f"; not online: {', '.join(down)}" if down else "")
        rows.append(_row(host, check, ports[0].get(speed), status, detail))
    return rows


def _port_up(state: str | None) -> bool:
    text = (state or "").upper()
    return text == "ONLINE" or text.endswith("ACTIVE")


def host_rows(campaign: Any, host_params: Any, facts: Mapping[str, Any]) -> list[Row]:
    """The environment rows of one host's facts: per target its transport and paths, then the
    host's links (see :func:`target_rows`, :func:`link_rows`)."""
    host = host_params.name
    by_path = {t.get("path"): t for t in facts.get("targets") or []}
    rows, kinds = [], []
    for target in campaign.targets_of(host_params):
        tfacts = by_path.get(target.path)
        if not tfacts or tfacts.get("type") == "missing" and not tfacts.get("fstype"):
            continue
        rows += target_rows(host, f"target {target.name}", tfacts)
        kinds.append(_transport_kind(tfacts))
    return rows + link_rows(host, facts.get("links") or {}, kinds)


# -- the manifest's section and the report's conditions ------------------------------------
def environment_section(host_facts: Mapping[str, Any], database: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The manifest's ``environment`` section: per host its links and, per target path, how it
    is reached; the database's storage facts when there is a database."""
    hosts = {}
    for name, facts in host_facts.items():
        if not facts:
            continue
        targets = {t["path"]: {"transport": transport_label(t), "paths": t.get("paths"),
                               "paths_live": t.get("paths_live"), "multipath": t.get("multipath"),
                               "fstype": t.get("fstype"), "mount_options": t.get("mount_options")}
                   for t in facts.get("targets") or [] if t.get("path")}
        hosts[name] = {"links": facts.get("links") or {}, "targets": targets}
    section: dict[str, Any] = {"hosts": hosts}
    if database:
        section["database"] = database_section(database)
    return section


def database_section(facts: Mapping[str, Any]) -> dict[str, Any]:
    """The storage-relevant part of the database facts (for the manifest and the conditions)."""
    parameters = facts.get("parameters") or {}
    return {"dnfs": bool(facts.get("dnfs")), "dnfs_servers": list(facts.get("dnfs_servers") or []),
            "dnfs_channels": list(facts.get("dnfs_channels") or []),
            "asm_diskgroups": list(facts.get("asm_diskgroups") or []),
            "asm_disks": list(facts.get("asm_disks") or []),
            "parameters": {k: parameters.get(k) for k in DATABASE_PARAMETERS if k in parameters},
            "calibrate_io": facts.get("calibrate_io")}


def conditions(section: Mapping[str, Any] | None) -> dict[str, str]:
    """The conditions of a campaign in words, by name (a name per host when hosts differ):
    ``transport``, ``multipath paths``, ``NFS mount``, ``network``, ``FC ports``,
    ``Direct NFS``, ``ASM``, one per database parameter, ``CALIBRATE_IO``."""
    out: dict[str, str] = {}
    section = section or {}
    hosts = section.get("hosts") or {}
    for key, values in _host_conditions(hosts).items():
        distinct = sorted(set(values.values()))
        if len(distinct) == 1:
            out[key] = distinct[0]
        else:
            out[key] = "; ".join(f"{v} on {h}" for h, v in values.items())
    database = section.get("database")
    if database:
        out.update(_database_conditions(database))
    return out


def _host_conditions(hosts: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    found: dict[str, dict[str, str]] = {}
    for host, facts in hosts.items():
        targets = list((facts.get("targets") or {}).values())
        labels = sorted({t["transport"] for t in targets if t.get("transport")})
        if labels:
            found.setdefault("transport", {})[host] = ", ".join(labels)
        paths = sorted({f"{t['paths_live'] if t.get('paths_live') is not None else t['paths']} of {t['paths']} live"
                        for t in targets if t.get("paths") is not None})
        if paths:
            found.setdefault("multipath paths", {})[host] = ", ".join(paths)
        mounts = sorted({t["mount_options"] for t in targets
                         if (t.get("fstype") or "").startswith("nfs") and t.get("mount_options")})
        if mounts:
            found.setdefault("NFS mount options", {})[host] = "; ".join(mounts)
        links = facts.get("links") or {}
        up = [n["speed_mbps"] for n in links.get("net") or [] if n.get("state") == "up" and n.get("speed_mbps")]
        if up:
            found.setdefault("network", {})[host] = f"fastest link {_speed_text(max(up))}"
        fc = sorted({p.get("speed") for p in links.get("fc") or [] if p.get("speed")})
        if fc:
            found.setdefault("FC ports", {})[host] = ", ".join(fc)
        ib = sorted({p.get("rate") for p in links.get("ib") or [] if p.get("rate")})
        if ib:
            found.setdefault("InfiniBand ports", {})[host] = ", ".join(ib)
    return found


def dnfs_text(database: Mapping[str, Any]) -> str:
    """``on: 2 servers, 4 channels`` or ``off (kernel NFS or no NFS)``."""
    servers, channels = database.get("dnfs_servers") or [], database.get("dnfs_channels") or []
    if not database.get("dnfs") and not servers:
        return "off (kernel NFS, or no NFS)"
    count = len(servers) or len({c.get("svrname") for c in channels})
    return f"on: {count} server(s), {len(channels)} channel(s)"


def _database_conditions(database: Mapping[str, Any]) -> dict[str, str]:
    out = {"Direct NFS": dnfs_text(database)}
    disks = database.get("asm_disks") or []
    groups = database.get("asm_diskgroups") or []
    if groups:
        parts = []
        for group in groups:
            count = len([d for d in disks if d.get("diskgroup") == group.get("name")])
            redundancy = f" {group['type']}" if group.get("type") else ""
            parts.append(f"{group.get('name')}{redundancy}" + (f" ({count} disks)" if disks else ""))
        out["ASM"] = ", ".join(parts)
    for name, value in (database.get("parameters") or {}).items():
        if value is not None:
            out[name] = str(value)
    calibrated = database.get("calibrate_io")
    if calibrated:
        out["CALIBRATE_IO"] = calibrate_text(calibrated)
    return out


def calibrate_text(result: Mapping[str, Any]) -> str:
    """``max 154 IOPS, 18,579 MB/s, latency 19 ms (num_physical_disks 1, max_latency 20 ms)``."""
    def number(value: Any) -> str:
        return "unknown" if value is None else f"{int(value):,}"
    return (f"max {number(result.get('max_iops'))} IOPS, {number(result.get('max_mbps'))} MB/s, latency "
            f"{number(result.get('latency_ms'))} ms (num_physical_disks {result.get('num_physical_disks')}, "
            f"max_latency {result.get('max_latency_ms')} ms)")


def differences(by_label: Mapping[str, Mapping[str, str]]) -> list[str]:
    """The conditions that differ between campaigns (``{label: conditions(...)}``, the baseline
    first), one text each: ``transport: iSCSI (base) vs NVMe/TCP (nvme)``; a condition only
    one campaign recorded is listed as ``not recorded`` in the others."""
    labels = list(by_label)
    if len(labels) < 2:
        return []
    keys: list[str] = []
    for conds in by_label.values():
        keys += [k for k in conds if k not in keys]
    out = []
    for key in keys:
        values = {label: by_label[label].get(key, "not recorded") for label in labels}
        if len(set(values.values())) > 1:
            out.append(f"{key}: " + " vs ".join(f"{value} ({label})" for label, value in values.items()))
    return out

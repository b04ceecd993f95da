"""The manifest's ``environment`` section and the conditions a report states (only
:func:`condition_lines` reads files)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flashpoc.hosts.environment import DATABASE_PARAMETERS, TRANSPORT_NAMES, speed_text, nfs_version, transport_label
from flashpoc.hosts.storage import storage_conditions, storage_text
from flashpoc.oracle.environment import calibrate_text


def environment_section(host_facts: Mapping[str, Any], database: Mapping[str, Any] | None = None,
                        storage: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The manifest's ``environment`` section: per host its links and, per target path, how it
    is reached; the database's storage facts when there is a database; the database's storage path
    read on its host (``database_storage``, :mod:`.storage`) for a database campaign."""
    hosts = {}
    for name, facts in host_facts.items():
        if not facts:
            continue
        targets = {t["path"]: {"transport": transport_label(t), "paths": t.get("paths"),
                               "paths_live": t.get("paths_live"), "multipath": t.get("multipath"),
                               "fstype": t.get("fstype"), "mount_options": t.get("mount_options")}
                   for t in facts.get("targets") or [] if t.get("path")}
        hosts[name] = {"links": facts.get("links") or {}, "targets": targets}
        if facts.get("datafiles"):  # a SLOB campaign's DB host: how the database reaches its datafiles
            hosts[name]["datafiles"] = facts["datafiles"]
    section: dict[str, Any] = {"hosts": hosts}
    if database:
        section["database"] = database_section(database)
    if storage:
        section["database_storage"] = dict(storage)
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
    """The conditions of a campaign in words, by name (values per host when hosts differ):
    ``transport``, ``file system``, ``multipath paths``, ``NFS mount options``, ``network``, ``FC ports``,
    ``datafiles`` (a SLOB campaign's: ``kNFS: nas:/oradata on /u02 (NFS v3, tcp)``), ``Direct NFS``,
    ``ASM``, one per database parameter, ``CALIBRATE_IO``; the database storage's (``database
    transport``, ..., :func:`.storage.storage_conditions`)."""
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
        nfs = any((t.get("fstype") or "").startswith("nfs") for h in hosts.values()
                  for t in (h.get("targets") or {}).values()) or any(
            (h.get("datafiles") or {}).get("mounts") for h in hosts.values())
        out.update(_database_conditions(database, nfs))
    out.update(storage_conditions(section.get("database_storage")))
    return out


def _host_conditions(hosts: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    found: dict[str, dict[str, str]] = {}
    for host, facts in hosts.items():
        targets = list((facts.get("targets") or {}).values())
        labels = sorted({t["transport"] for t in targets if t.get("transport")})
        if labels:
            found.setdefault("transport", {})[host] = ", ".join(labels)
        systems = sorted({t["fstype"] for t in targets if t.get("fstype")})
        if systems:
            found.setdefault("file system", {})[host] = ", ".join(systems)
        paths = sorted({f"{t['paths_live'] if t.get('paths_live') is not None else t['paths']} of {t['paths']} live"
                        for t in targets if t.get("paths") is not None})
        if paths:
            found.setdefault("multipath paths", {})[host] = ", ".join(paths)
        mounts = sorted({t["mount_options"] for t in targets
                         if (t.get("fstype") or "").startswith("nfs") and t.get("mount_options")})
        if mounts:
            found.setdefault("NFS mount options", {})[host] = "; ".join(mounts)
        _link_conditions(found, host, facts, labels)
        if facts.get("datafiles"):
            found.setdefault("datafiles", {})[host] = datafiles_text(facts["datafiles"])
    return found


#: How the targets are reached over the host's network links (:data:`TRANSPORT_NAMES` of the
#: network transports, and NFS of any version) and over its FC ports.
_OVER_NETWORK = tuple(TRANSPORT_NAMES[k] for k in ("iscsi", "nvme-tcp", "nvme-rdma")) + ("NFS",)
_OVER_FC = (TRANSPORT_NAMES["fc"], TRANSPORT_NAMES["nvme-fc"])


def _link_conditions(found: dict[str, dict[str, str]], host: str, facts: Mapping[str, Any], labels: list[str]) -> None:
    """The links a host's storage went over: its network (and InfiniBand) links when a target is
    reached over the network (``labels``: its targets' transports) or its database's datafiles are
    (NFS, Direct NFS), its FC ports when a target is on FC; a link nothing in the test used is no condition of it."""
    links = facts.get("links") or {}
    datafiles = facts.get("datafiles") or {}
    network = any(label.startswith(_OVER_NETWORK) for label in labels) or bool(
        datafiles.get("mounts") or datafiles.get("stated") in ("knfs", "dnfs"))
    up = [n["speed_mbps"] for n in links.get("net") or [] if n.get("state") == "up" and n.get("speed_mbps")]
    if up and network:
        found.setdefault("network", {})[host] = f"fastest link {speed_text(max(up))}"
    fc = sorted({p.get("speed") for p in links.get("fc") or [] if p.get("speed")})
    if fc and any(label in _OVER_FC for label in labels):
        found.setdefault("FC ports", {})[host] = ", ".join(fc)
    ib = sorted({p.get("rate") for p in links.get("ib") or [] if p.get("rate")})
    if ib and network:
        found.setdefault("InfiniBand ports", {})[host] = ", ".join(ib)


def datafiles_text(datafiles: Mapping[str, Any]) -> str:
    """A SLOB campaign's datafiles (:func:`flashpoc.engines.slob.datafiles.datafiles_facts`) in words:
    ``kNFS: nas:/oradata on /u02 (NFS v3, tcp)``; ``local``; ``dNFS`` without a mount."""
    label = {"knfs": "kNFS", "dnfs": "dNFS"}.get(datafiles.get("stated"), "local")
    parts = []
    for mount in datafiles.get("mounts") or []:
        options = dict(o.partition("=")[::2] for o in (mount.get("mount_options") or "").split(",") if o)
        version = nfs_version(mount.get("fstype"), mount.get("mount_options"))
        how = ", ".join(x for x in (f"NFS v{version}" if version else "NFS", options.get("proto")) if x)
        parts.append(f"{mount['mount_source']} on {mount['path']} ({how})")
    return f"{label}: " + "; ".join(parts) if parts else label


def dnfs_text(database: Mapping[str, Any], nfs_mounts: bool = False) -> str:
    """``on: 2 server(s), 4 channel(s)``, or off: ``off: kernel NFS`` when the hosts' targets are on
    NFS mounts (``nfs_mounts``), else ``off (kernel NFS, or no NFS)``."""
    servers, channels = database.get("dnfs_servers") or [], database.get("dnfs_channels") or []
    if not database.get("dnfs") and not servers:
        return "off: kernel NFS" if nfs_mounts else "off (kernel NFS, or no NFS)"
    count = len(servers) or len({c.get("svrname") for c in channels})
    return f"on: {count} server(s), {len(channels)} channel(s)"


def _database_conditions(database: Mapping[str, Any], nfs_mounts: bool) -> dict[str, str]:
    out = {"Direct NFS": dnfs_text(database, nfs_mounts)}
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


# -- the report ------------------------------------------------------------------------------
def _read_manifest(root: Any) -> dict[str, Any]:
    """The manifest in ``root`` ({} when there is none)."""
    try:
        return json.loads((Path(root) / "manifest.json").read_text())
    except (OSError, ValueError):
        return {}


def manifest_conditions(manifest: Mapping[str, Any]) -> dict[str, str]:
    """:func:`conditions` of a manifest's environment section, with the NFS client the campaign
    stated (``database.datafiles`` of its parameters)."""
    out = conditions(manifest.get("environment"))
    stated = ((manifest.get("params") or {}).get("database") or {}).get("datafiles")
    if stated:
        out["datafiles (stated)"] = {"knfs": "NFS, kernel client", "dnfs": "NFS, Direct NFS",
                                     "local": "local disks or LUNs"}.get(stated, stated)
    return out


def condition_lines(cfg: Any, manifest: Mapping[str, Any], data: Mapping[str, str | None] | None = None) -> list[str]:
    """The report's condition bullets about the environment: how the targets were reached and the
    database set up (from ``manifest``'s environment section) and, with ``report.compare``, the
    conditions that differed between the configurations (read from each campaign's manifest), the
    data on their targets too (``data``: each configuration's, by label, in its engine's words:
    its reducibility, which an array's data reduction answers to)."""
    own = manifest_conditions(manifest)
    storage = storage_text((manifest.get("environment") or {}).get("database_storage"))
    shown = {k: v for k, v in own.items() if not (storage and k.startswith("database "))}  # said below
    lines = []
    if shown:
        lines.append("- **Storage path and database**: " + "; ".join(f"{k}: {v}" for k, v in shown.items()) + ".")
    if storage:
        lines.append(f"- **Database storage** (the devices under the database's data, read on its host): {storage}.")
    if not cfg.report.compare:
        return lines
    roots = cfg.results_roots()
    labels = list(roots)
    by_label = {labels[0]: dict(own)}
    by_label.update({label: manifest_conditions(_read_manifest(roots[label])) for label in labels[1:]})
    for label, said in (data or {}).items():
        if said and label in by_label:
            by_label[label]["data on the targets"] = said
    differ = differences(by_label)
    if differ:
        lines.append("- **What differed between the configurations** (as the checks recorded it): "
                     + "; ".join(differ) + ".")
    elif any(by_label.values()):
        lines.append("- **Environment**: the checks recorded the same transport, paths, links and database "
                     "settings in every configuration.")
    return lines


def calibrate_items(manifest: Mapping[str, Any]) -> list[str]:
    """The CALIBRATE_IO result as a paragraph next to the SLOB results (none when not run)."""
    calibrated = ((manifest.get("environment") or {}).get("database") or {}).get("calibrate_io")
    if not calibrated:
        return []
    return [f"**CALIBRATE_IO** (`DBMS_RESOURCE_MANAGER.CALIBRATE_IO` in the check, before the runs): "
            f"{calibrate_text(calibrated)}. Oracle's own estimate from random db_block_size reads and 1 MiB "
            f"sequential reads (no writes): read it against the physical read IOPS and the `db file sequential "
            f"read` latency SLOB measured above."]

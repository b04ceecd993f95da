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

Only :func:`condition_lines` reads files (the compared campaigns' manifests).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
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
FACTS_KEY = "_database_facts"
"""The key under which :func:`flashpoc.check.check_database` hands the database facts to the check
table's ``attrs`` (for the manifest), on its first row; not a column."""
NFS_MIN_TRANSFER = 32768
"""Oracle's minimum rsize and wsize for data files on a kernel NFS mount."""
DNFS_MIN_WTMAX = 32768
"""Direct NFS needs NFS servers whose write size (wtmax) is at least this (Oracle's requirement)."""
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
                         f"NFS mount of {target.get('mount_source')} ({target.get('mount_options')})"))
        rows += nfs_option_rows(host, name, target.get("mount_options"))
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


def nfs_option_rows(host: str, name: str, options: str | None) -> list[Row]:
    """The ``nfs options`` row of an NFS mount: a warning on a ``soft`` mount (an I/O that times
    out returns an error to the database instead of being retried) and on ``rsize``/``wsize``
    under :data:`NFS_MIN_TRANSFER` (Oracle's minimum for data files on NFS)."""
    found = dict(o.partition("=")[::2] for o in (options or "").split(",") if o)
    problems = []  # (option, why)
    if "soft" in found:
        problems.append(("soft", "mounted soft: a timed-out I/O fails instead of being retried (Oracle wants hard)"))
    for key in ("rsize", "wsize"):
        if found.get(key, "").isdigit() and int(found[key]) < NFS_MIN_TRANSFER:
            problems.append((f"{key}={found[key]}", f"{key}={found[key]} is under {NFS_MIN_TRANSFER} (Oracle's "
                                                    f"minimum for data files)"))
    if problems:
        return [_row(host, f"{name}: nfs options", ", ".join(o for o, _ in problems), "warn",
                     "; ".join(why for _, why in problems))]
    shown = ", ".join(f"{k}={found[k]}" if found[k] else k for k in ("hard", "rsize", "wsize", "proto", "nconnect")
                      if k in found)
    return [_row(host, f"{name}: nfs options", "ok", "pass", shown or (options or ""))]


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


# -- database side -------------------------------------------------------------------------
def database_rows(facts: Mapping[str, Any], host: str = "database", datafiles: str | None = None) -> list[Row]:
    """The storage rows of the database facts: the stated ``datafiles`` (``local``/``knfs``/``dnfs``,
    ``database.datafiles``) against what the database uses, Direct NFS servers and channels, ASM
    disks per disk group, log_buffer, sga_max_size, awr_pdb_autoflush_enabled and CALIBRATE_IO's
    result."""
    rows = [nfs_client_row(facts, datafiles, host)] if datafiles else []
    servers = facts.get("dnfs_servers") or []
    if servers:
        small = [s for s in servers if s.get("wtmax") is not None and int(s["wtmax"]) < DNFS_MIN_WTMAX]
        listed = "; ".join(f"{s.get('svrname') or '?'}:{s.get('dirname')} NFS{s.get('nfsversion') or ''} "
                           f"wtmax {s.get('wtmax')} rtmax {s.get('rtmax')}" for s in servers)
        if small:
            rows.append(_row(host, "direct nfs servers", len(servers), "warn",
                             f"{listed}: a wtmax under {DNFS_MIN_WTMAX} is below what Direct NFS needs; raise the "
                             f"server's NFS write size"))
        else:
            rows.append(_row(host, "direct nfs servers", len(servers), "pass", listed))
    channels = facts.get("dnfs_channels") or []
    if channels:
        paths: dict[str, set[str]] = {}
        for channel in channels:
            paths.setdefault(str(channel.get("svrname")), set()).add(f"{channel.get('local')} -> {channel.get('path')}")
        listed = "; ".join(f"{server}: {', '.join(sorted(p))}" for server, p in paths.items())
        single = [server for server, p in paths.items() if len(p) == 1]
        detail = f"network paths per NFS server (v$dnfs_channels): {listed}"
        if single:
            detail += (f"; one path to {', '.join(single)}: oranfstab can give Direct NFS up to four "
                       f"(path:/local: lines), spreading the I/O over several links")
        rows.append(_row(host, "direct nfs channels", sum(len(p) for p in paths.values()), "pass", detail))
    disks = facts.get("asm_disks") or []
    for group in facts.get("asm_diskgroups") or []:
        members = [d for d in disks if d.get("diskgroup") == group.get("name")]
        if not members:
            continue
        sizes = sorted({d.get("total_mb") for d in members if d.get("total_mb") is not None})
        shown = ", ".join(str(d.get("path")) for d in members[:5]) + (f" and {len(members) - 5} more"
                                                                        if len(members) > 5 else "")
        size = " / ".join(f"{mb / 1024:,.1f} GiB" for mb in sizes)
        detail = f"{len(members)} disks of {size} ({group.get('type') or 'redundancy unknown'}): {shown}"
        if len(sizes) > 1:
            rows.append(_row(host, f"asm disks {group.get('name')}", len(members), "warn",
                             f"{detail}; disks of different sizes: ASM fills them by size, so the larger ones "
                             f"take more of the I/O"))
        else:
            rows.append(_row(host, f"asm disks {group.get('name')}", len(members), "pass", detail))
    parameters = facts.get("parameters") or {}
    for name, default in (("log_buffer", "derived from the SGA and CPU_COUNT"),
                          ("sga_max_size", "sga_target or memory_target"),
                          ("awr_pdb_autoflush_enabled", "FALSE: no automatic AWR snapshots in a PDB")):
        if name not in parameters:
            continue
        value = parameters.get(name)
        rows.append(_row(host, name, value if value is not None else "default", "pass",
                         f"{name} = {value}" if value is not None else f"not set: Oracle's default ({default})"))
    calibrated = facts.get("calibrate_io")
    if calibrated:
        rows.append(_row(host, "calibrate_io", calibrated.get("max_iops"), "pass",
                         f"DBMS_RESOURCE_MANAGER.CALIBRATE_IO: {calibrate_text(calibrated)}; reads only, one run: "
                         f"a second run on a warm array cache can read much higher"))
    return rows


def nfs_client_row(facts: Mapping[str, Any], stated: str, host: str = "database") -> Row:
    """The ``nfs client`` row, the one comparison of ``database.datafiles`` with v$dnfs_servers: a
    campaign stating kNFS on a database whose v$dnfs_servers lists servers fails (its results
    would be labelled with the wrong client); one stating local datafiles there warns (a SLOB
    point's iostat series would not see that I/O); one stating dNFS with none listed warns, since
    the view stays empty until the instance opens a file on NFS."""
    servers = facts.get("dnfs_servers") or []
    in_use = bool(servers) or bool(facts.get("dnfs")) or int(facts.get("dnfs_server_count") or 0) > 0
    if stated == "knfs" and in_use:
        return _row(host, "nfs client", "dNFS in use", "fail",
                    f"database.datafiles is knfs, but the instance talks to {len(servers) or 'some'} NFS server(s) "
                    f"through Direct NFS (v$dnfs_servers): turn Direct NFS off (make -f ins_rdbms.mk dnfs_off, "
                    f"restart) or state datafiles: dnfs")
    if stated == "local" and in_use:
        return _row(host, "nfs client", "dNFS in use", "warn",
                    f"database.datafiles is local, but the instance talks to {len(servers) or 'some'} NFS server(s) "
                    f"through Direct NFS (v$dnfs_servers), whose I/O neither iostat nor the kernel's NFS counters "
                    f"see: state datafiles: dnfs")
    if stated == "dnfs" and not in_use:
        return _row(host, "nfs client", "no dNFS server", "warn",
                    "database.datafiles is dnfs, but v$dnfs_servers is empty: Direct NFS lists a server only once "
                    "the instance has opened a file on it, so check again after the first run; if it stays empty, "
                    "Direct NFS is off (make -f ins_rdbms.mk dnfs_on) or oranfstab does not match the mounts")
    return _row(host, "nfs client", {"dnfs": "dNFS", "knfs": "kNFS"}.get(stated, "local"), "pass",
                "Direct NFS in use, as stated" if stated == "dnfs" else
                f"no Direct NFS server, as stated ({'kernel NFS' if stated == 'knfs' else 'local datafiles'})")


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
        if facts.get("datafiles"):  # a SLOB campaign's DB host: how the database reaches its datafiles
            hosts[name]["datafiles"] = facts["datafiles"]
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
    """The conditions of a campaign in words, by name (values per host when hosts differ):
    ``transport``, ``file system``, ``multipath paths``, ``NFS mount options``, ``network``, ``FC ports``,
    ``datafiles`` (a SLOB campaign's: ``kNFS: nas:/oradata on /u02 (NFS v3, tcp)``), ``Direct NFS``,
    ``ASM``, one per database parameter, ``CALIBRATE_IO``."""
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
        if facts.get("datafiles"):
            found.setdefault("datafiles", {})[host] = datafiles_text(facts["datafiles"])
    return found


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


def condition_lines(cfg: Any, manifest: Mapping[str, Any]) -> list[str]:
    """The report's condition bullets about the environment: how the targets were reached and the
    database set up (from ``manifest``'s environment section) and, with ``report.compare``, the
    conditions that differed between the configurations (read from each campaign's manifest)."""
    own = manifest_conditions(manifest)
    lines = []
    if own:
        lines.append("- **Storage path and database**: " + "; ".join(f"{k}: {v}" for k, v in own.items()) + ".")
    if not cfg.report.compare:
        return lines
    from .results import campaign_roots

    roots = campaign_roots(cfg)
    labels = list(roots)
    by_label = {labels[0]: own}
    by_label.update({label: manifest_conditions(_read_manifest(roots[label])) for label in labels[1:]})
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

"""The database's storage path (pure): the paths under its data, as the database names them (ASM
disks, the directories of its datafiles, PostgreSQL's data directory and WAL), and what the target
facts of the database's host (:func:`flashpoc.hosts.facts.collect_host_facts`) say of them: check
rows, the manifest's ``database_storage`` section, the conditions a report states and compares.

The section (JSON, the manifest's ``environment.database_storage``)::

    {"host": "db1", "why": None,
     "devices": [{"path": "/u02/oradata/ORCL", "role": "datafiles", "type": "directory", "exists": True,
                  "transport": "nvme-tcp", "paths": 2, "paths_live": 2, "multipath": "nvme nvme-subsys0 numa",
                  "device": "nvme0n1", "slaves": None, "fstype": "xfs", "mount_source": "/dev/nvme0n1",
                  "mount_options": "rw,noatime"}],
     "links": {"net": [...], "fc": [...], "ib": [...]}}

``why`` says why no device was read (no database host known, nothing named by the database).
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from typing import Any

from flashpoc.core.records import Row, check_row
from flashpoc.hosts.environment import speed_text, transport_kind, link_rows, target_rows, transport_label

STORAGE_KEY = "_database_storage"
"""The key under which the database storage section reaches the check table's ``attrs`` (for the
manifest), on the first of its rows; not a column."""
DEVICE_KEYS = ("type", "exists", "transport", "paths", "paths_live", "multipath", "device", "slaves", "fstype",
               "mount_source", "mount_options")
"""The target facts kept of each of the database's paths."""
ASM_PREFIXES = {"ORCL:": "/dev/oracleasm/disks/", "AFD:": "/dev/oracleafd/disks/"}
"""ASM disk paths that name a label, and the device directory of their driver (ASMLib, ASM Filter Driver)."""


def oracle_paths(facts: Mapping[str, Any]) -> list[dict[str, str]]:
    """The paths under an Oracle database's data, from its facts (:func:`flashpoc.oracle.db.database_facts`):
    each ASM disk (``v$asm_disk.path``; an ASMLib ``ORCL:NAME`` or ASM Filter Driver ``AFD:NAME``
    label as its device, ``/dev/oracleasm/disks/NAME`` or ``/dev/oracleafd/disks/NAME``), then each
    directory holding data or temp files outside ASM (``v$datafile``, ``v$tempfile``), in order."""
    out: list[dict[str, str]] = []
    for disk in facts.get("asm_disks") or []:
        path = str(disk.get("path") or "")
        for prefix, directory in ASM_PREFIXES.items():
            if path.upper().startswith(prefix):
                path = directory + path[len(prefix):]
        if path.startswith("/"):
            out.append({"path": path, "role": f"ASM disk ({disk.get('diskgroup')})"})
    directories = dict.fromkeys(posixpath.dirname(str(n)) for n in facts.get("datafile_names") or []
                                if str(n).startswith("/"))
    return out + [{"path": d, "role": "datafiles"} for d in directories if d]


def oracle_unread(facts: Mapping[str, Any]) -> str:
    """Why an Oracle database named no path to read (:func:`oracle_paths` empty)."""
    groups = ", ".join(str(g.get("name")) for g in facts.get("asm_diskgroups") or [])
    if groups:
        return (f"its data is in ASM (disk groups {groups}) and v$asm_disk lists none of their disks as this "
                "instance sees them: read them on the ASM instance (v$asm_disk.path)")
    if facts.get("dnfs") or facts.get("dnfs_servers"):
        return "its data files are on Direct NFS: the NFS servers and channels rows say how it reaches them"
    return "v$datafile and v$tempfile name no file outside ASM, and v$asm_disk no disk"


def postgresql_paths(data_directory: str | None) -> list[dict[str, str]]:
    """PostgreSQL's data directory (``SHOW data_directory``) and its WAL (``pg_wal`` in it, often a
    link to another file system)."""
    if not data_directory or not data_directory.startswith("/"):
        return []
    return [{"path": data_directory, "role": "data directory"},
            {"path": posixpath.join(data_directory, "pg_wal"), "role": "WAL"}]


def storage_section(host: str | None, paths: list[dict[str, str]], facts: Mapping[str, Any] | None,
                    why: str | None = None) -> dict[str, Any]:
    """The section of the database's storage read on ``host``: each of ``paths`` with its target
    facts (from ``facts``, the host facts of those paths), the host's links; ``why`` no device was read."""
    by_path = {t.get("path"): t for t in (facts or {}).get("targets") or []}
    devices = [{**p, **{k: by_path.get(p["path"], {}).get(k) for k in DEVICE_KEYS}} for p in paths] if facts else []
    return {"host": host, "why": why, "devices": devices, "links": dict((facts or {}).get("links") or {})}


def _found(device: Mapping[str, Any]) -> bool:
    return device.get("type") not in (None, "missing")


def storage_rows(section: Mapping[str, Any]) -> list[Row]:
    """The check rows of the database's storage: each path's transport and multipath paths (as a
    target's, :func:`flashpoc.campaign.environment.target_rows`, named ``database <role> <path>``; a path
    missing on the host warns), then the host's links against the network transports found
    (``database network``, ...); one ``database storage`` warning when nothing was read."""
    host = section.get("host") or "(campaign)"
    devices = section.get("devices") or []
    if not devices:
        return [check_row(host, "database storage", "not read", "warn", section.get("why") or "no path to read")]
    rows = []
    for device in devices:
        name = f"database {device['role']} {device['path']}"
        if not _found(device):
            rows.append(check_row(host, name, "missing", "warn",
                             f"{device['path']} (the database's {device['role']}) is not on {host}: name the "
                             f"database's own host in database.host, where its devices are read"))
            continue
        rows += target_rows(host, name, device)
    kinds = [transport_kind(d) for d in devices if _found(d)]
    return rows + [{**r, "check": f"database {r['check']}"} for r in link_rows(host, section.get("links") or {}, kinds)]


def storage_conditions(section: Mapping[str, Any] | None) -> dict[str, str]:
    """The database storage's conditions by name, compared between configurations:
    ``database transport`` (``NVMe/TCP``), ``database multipath paths`` (``2 of 2 live``),
    ``database file system``, ``database network`` (its host's fastest link)."""
    found = [d for d in (section or {}).get("devices") or [] if _found(d)]
    out: dict[str, str] = {}
    labels = sorted({transport_label(d) or "unknown" for d in found})
    if labels:
        out["database transport"] = ", ".join(labels)
    paths = sorted({f"{d['paths_live'] if d.get('paths_live') is not None else d['paths']} of {d['paths']} live"
                    for d in found if d.get("paths") is not None})
    if paths:
        out["database multipath paths"] = ", ".join(paths)
    systems = sorted({d["fstype"] for d in found if d.get("fstype")})
    if systems:
        out["database file system"] = ", ".join(systems)
    net = ((section or {}).get("links") or {}).get("net") or []
    up = [n["speed_mbps"] for n in net if n.get("state") == "up" and n.get("speed_mbps")]
    if found and up:
        out["database network"] = f"fastest link {speed_text(max(up))}"
    return out


def storage_text(section: Mapping[str, Any] | None) -> str | None:
    """The report's ``Database storage`` condition in words: each path, its role and how it is
    reached; why nothing was read; None without a section (a campaign checked before it existed)."""
    if not section:
        return None
    host, devices = section.get("host"), section.get("devices") or []
    if not devices:
        return f"not read ({section.get('why') or 'no path to read'})"
    parts = []
    for d in devices:
        if not _found(d):
            parts.append(f"{d['role']} {d['path']}: not on {host}")
            continue
        how = [transport_label(d) or "transport unknown"]
        if d.get("paths") is not None:
            live = d["paths_live"] if d.get("paths_live") is not None else d["paths"]
            how.append(f"{d.get('multipath') or 'multipath'}, {live} of {d['paths']} paths live")
        if d.get("fstype"):
            how.append(f"{d['fstype']} on {d.get('mount_source') or d.get('device')}")
        elif d.get("device"):
            how.append(str(d["device"]))
        parts.append(f"{d['role']} {d['path']}: {', '.join(how)}")
    network = storage_conditions(section).get("database network")
    return f"on {host}: " + "; ".join(parts) + (f"; {network}" if network else "")

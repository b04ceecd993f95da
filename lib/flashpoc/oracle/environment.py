"""The database side of the environment facts: the check rows of the database's storage and the words of
its CALIBRATE_IO result."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flashpoc.core.records import Row, check_row
from flashpoc.hosts.environment import DNFS_MIN_WTMAX


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
            rows.append(check_row(host, "direct nfs servers", len(servers), "warn",
                             f"{listed}: a wtmax under {DNFS_MIN_WTMAX} is below what Direct NFS needs; raise the "
                             f"server's NFS write size"))
        else:
            rows.append(check_row(host, "direct nfs servers", len(servers), "pass", listed))
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
        rows.append(check_row(host, "direct nfs channels", sum(len(p) for p in paths.values()), "pass", detail))
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
            rows.append(check_row(host, f"asm disks {group.get('name')}", len(members), "warn",
                             f"{detail}; disks of different sizes: ASM fills them by size, so the larger ones "
                             f"take more of the I/O"))
        else:
            rows.append(check_row(host, f"asm disks {group.get('name')}", len(members), "pass", detail))
    parameters = facts.get("parameters") or {}
    for name, default, unit in (("log_buffer", "derived from the SGA and CPU_COUNT", "bytes"),
                                ("sga_max_size", "sga_target or memory_target", "bytes"),
                                ("awr_pdb_autoflush_enabled", "FALSE: no automatic AWR snapshots in a PDB", None)):
        if name not in parameters:
            continue
        value = parameters.get(name)
        rows.append(check_row(host, name, value if value is not None else "default", "pass",
                         f"{name} = {value}" if value is not None else f"not set: Oracle's default ({default})", unit))
    calibrated = facts.get("calibrate_io")
    if calibrated:
        rows.append(check_row(host, "calibrate_io", calibrated.get("max_iops"), "pass",
                         f"DBMS_RESOURCE_MANAGER.CALIBRATE_IO: {calibrate_text(calibrated)}; reads only, one run: "
                         f"a second run on a warm array cache can read much higher", "IOPS"))
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
        return check_row(host, "nfs client", "dNFS in use", "fail",
                    f"database.datafiles is knfs, but the instance talks to {len(servers) or 'some'} NFS server(s) "
                    f"through Direct NFS (v$dnfs_servers): turn Direct NFS off (make -f ins_rdbms.mk dnfs_off, "
                    f"restart) or state datafiles: dnfs")
    if stated == "local" and in_use:
        return check_row(host, "nfs client", "dNFS in use", "warn",
                    f"database.datafiles is local, but the instance talks to {len(servers) or 'some'} NFS server(s) "
                    f"through Direct NFS (v$dnfs_servers), whose I/O neither iostat nor the kernel's NFS counters "
                    f"see: state datafiles: dnfs")
    if stated == "dnfs" and not in_use:
        return check_row(host, "nfs client", "no dNFS server", "warn",
                    "database.datafiles is dnfs, but v$dnfs_servers is empty: Direct NFS lists a server only once "
                    "the instance has opened a file on it, so check again after the first run; if it stays empty, "
                    "Direct NFS is off (make -f ins_rdbms.mk dnfs_on) or oranfstab does not match the mounts")
    return check_row(host, "nfs client", {"dnfs": "dNFS", "knfs": "kNFS"}.get(stated, "local"), "pass",
                "Direct NFS in use, as stated" if stated == "dnfs" else
                f"no Direct NFS server, as stated ({'kernel NFS' if stated == 'knfs' else 'local datafiles'})")


def calibrate_text(result: Mapping[str, Any]) -> str:
    """``max 154 IOPS, 18,579 MB/s, latency 19 ms (num_physical_disks 1, max_latency 20 ms)``."""
    def number(value: Any) -> str:
        return "unknown" if value is None else f"{int(value):,}"
    return (f"max {number(result.get('max_iops'))} IOPS, {number(result.get('max_mbps'))} MB/s, latency "
            f"{number(result.get('latency_ms'))} ms (num_physical_disks {result.get('num_physical_disks')}, "
            f"max_latency {result.get('max_latency_ms')} ms)")

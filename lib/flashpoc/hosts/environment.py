"""The host side of the environment facts: the constants, and the check rows of each host's targets and links."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from flashpoc.core.records import Row, check_row


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
"""The key under which :func:`flashpoc.campaign.check.check_database` hands the database facts to the check
table's ``attrs`` (for the manifest), on its first row; not a column."""
NFS_MIN_TRANSFER = 32768
"""Oracle's minimum rsize and wsize for data files on a kernel NFS mount."""
DNFS_MIN_WTMAX = 32768
"""Direct NFS needs NFS servers whose write size (wtmax) is at least this (Oracle's requirement)."""
DATABASE_PARAMETERS = ("log_buffer", "sga_max_size", "sga_target", "db_cache_size", "awr_pdb_autoflush_enabled",
                       "filesystemio_options", "disk_asynch_io", "db_writer_processes")
"""The instance parameters a report's conditions list (those the database facts hold)."""


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


def transport_kind(target: Mapping[str, Any]) -> str | None:
    fstype = target.get("fstype") or ""
    return "nfs" if fstype.startswith("nfs") else target.get("transport")


def target_rows(host: str, name: str, target: Mapping[str, Any]) -> list[Row]:
    """The ``transport`` and ``paths`` rows of one target's facts (the ``paths`` row only for a
    multipath device)."""
    label = transport_label(target)
    rows = []
    if label is None:
        rows.append(check_row(host, f"{name}: transport", None, "pass", "not found (no block device or mount behind it)"))
    elif label.startswith("NFS"):
        rows.append(check_row(host, f"{name}: transport", label, "pass",
                         f"NFS mount of {target.get('mount_source')} ({target.get('mount_options')})"))
        rows += nfs_option_rows(host, name, target.get("mount_options"))
    else:
        via = f"{target.get('device')}" + (f" on {target['slaves']}" if target.get("slaves") else "")
        if target.get("fstype"):
            via += f", file system {target['fstype']}"
        rows.append(check_row(host, f"{name}: transport", label, "pass", via))
    paths, live = target.get("paths"), target.get("paths_live")
    if paths is None:
        return rows
    what = target.get("multipath") or "multipath"
    if paths <= 1:
        rows.append(check_row(host, f"{name}: paths", paths, "warn",
                         f"{what} has a single path: no redundancy, and one path's bandwidth and queue; "
                         f"check the zoning or the sessions (multipath -ll, nvme list-subsys)"))
    elif live is not None and live < paths:
        rows.append(check_row(host, f"{name}: paths", f"{live} of {paths}", "warn",
                         f"{what}: {paths - live} of {paths} paths are not live (failed or offline): "
                         f"the load runs on fewer paths than the configuration has"))
    else:
        rows.append(check_row(host, f"{name}: paths", paths, "pass", f"{what}: {paths} paths, all live"))
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
        return [check_row(host, f"{name}: nfs options", ", ".join(o for o, _ in problems), "warn",
                     "; ".join(why for _, why in problems))]
    shown = ", ".join(f"{k}={found[k]}" if found[k] else k for k in ("hard", "rsize", "wsize", "proto", "nconnect")
                      if k in found)
    return [check_row(host, f"{name}: nfs options", "ok", "pass", shown or (options or ""))]


def speed_text(mbps: int | None) -> str:
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
        listed = ", ".join(f"{n['name']} {speed_text(n['speed_mbps'])}" for n in up)
        if over_network and fastest <= SLOW_LINK_MBPS:
            rows.append(check_row(host, "network", speed_text(fastest), "warn",
                             f"{', '.join(TRANSPORT_NAMES.get(k, k.upper()) for k in over_network)} over links of at "
                             f"most {speed_text(fastest)} ({listed}): about {fastest / 8:,.0f} MB/s per link "
                             f"caps the result before the array does"))
        else:
            rows.append(check_row(host, "network", speed_text(fastest), "pass", f"links up: {listed}"))
    elif over_network:
        rows.append(check_row(host, "network", None, "warn",
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
        rows.append(check_row(host, check, ports[0].get(speed), status, detail))
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
        kinds.append(transport_kind(tfacts))
    return rows + link_rows(host, facts.get("links") or {}, kinds)

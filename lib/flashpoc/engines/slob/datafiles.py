"""How a SLOB campaign's database reaches its datafiles, as the DB host shows it (pure but for the
script text): the NFS mounts behind ``database: datafiles: knfs`` or ``dnfs`` (``nfs_mounts``
picks them), with their server export, NFS version, protocol and options.

- :func:`nfs_mounts_script`: the shell line the SLOB check's host script ends with: one
  ``nfs_mount_<n>=<mount point> <export> <fstype> <options>`` line per NFS mount of
  ``/proc/self/mountstats``.
- :func:`datafiles_facts`: the stated transport and the mounts it means, for the check's rows
  (:func:`datafiles_rows`: each mount's transport and options, as a target's) and the manifest's
  environment (the DB host's ``datafiles``, shown in the report's conditions).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from flashpoc.params import compile_pattern
from flashpoc.hosts.host import quote

NFS_MOUNTS_AWK = ('$1 == "device" && / with fstype nfs4? / {m = $5; d = $2; f = $8; next} '
                  '$1 == "device" {m = ""; next} '
                  'm != "" && $1 == "opts:" {printf "nfs_mount_%d=%s %s %s %s\\n", ++n, m, d, f, $2; m = ""}')
"""awk over ``/proc/self/mountstats``: each NFS mount's point, export, file system type and options."""


def nfs_mounts_script(mountstats: str = "/proc/self/mountstats") -> str:
    """The shell command printing the ``nfs_mount_<n>`` facts (nothing without NFS mounts)."""
    return f"awk {quote(NFS_MOUNTS_AWK)} {quote(mountstats)} 2>/dev/null || true"


def nfs_mounts(facts: Mapping[str, str]) -> list[dict[str, Any]]:
    """The NFS mounts the script printed, in its order, each in the keys of a target's facts
    (``path``, ``mount_source``, ``fstype``, ``mount_options``)."""
    mounts = []
    for key in sorted((k for k in facts if re.fullmatch(r"nfs_mount_\d+", k)), key=lambda k: int(k.rsplit("_", 1)[1])):
        parts = facts[key].split(" ", 3)
        if len(parts) == 4:
            mounts.append({"path": parts[0], "mount_source": parts[1], "fstype": parts[2], "mount_options": parts[3]})
    return mounts


def is_datafiles_mount(database: Any, path: str) -> bool:
    """True when the NFS mount point ``path`` is one of the datafiles': it matches ``database.nfs_mounts``
    (compiled under the parameters' guard), or any when that is unset.

    Raises:
        ParameterError: ``database.nfs_mounts`` is no regular expression (naming the key).
    """
    return not database.nfs_mounts or bool(compile_pattern(database.nfs_mounts, "database.nfs_mounts").search(path))


def datafiles_facts(database: Any, facts: Mapping[str, str]) -> dict[str, Any]:
    """``{"stated": "local"|"knfs"|"dnfs", "mounts": [...]}``: the campaign's
    ``database.datafiles`` and, for NFS, the DB host's NFS mounts it means (those matching
    ``database.nfs_mounts``, else all; a point mounted twice, its later mount)."""
    stated = database.datafiles or "local"
    by_path: dict[str, dict[str, Any]] = {}
    for mount in [] if stated == "local" else nfs_mounts(facts):
        if is_datafiles_mount(database, mount["path"]):
            by_path[mount["path"]] = mount  # mounted again over the same point: the later one is seen
    return {"stated": stated, "mounts": list(by_path.values())}


def datafiles_rows(host: str, datafiles: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Each datafile mount's ``transport`` and ``nfs options`` rows, as a target's."""
    from flashpoc.hosts.environment import target_rows

    return [row for mount in datafiles.get("mounts") or []
            for row in target_rows(host, f"datafiles {mount['path']}", mount)]


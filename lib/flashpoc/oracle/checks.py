"""Database check: how is the Oracle database set up, in rows an engine's check completes?

:func:`evaluate_database_facts` turns the facts dict of
:func:`flashpoc.oracle.db.database_facts` into rows of the environment-check table
(:data:`flashpoc.campaign.check.COLUMNS`: host, check, value, status, detail)::

    host      check                 value        status  detail
    database  database              19.0.0.0.0   pass    P30SDB (DBID 1451622190), instance p30sdb2 ...
    database  rac                   2 instances  pass    RAC with 2 open instances ...
    database  cdb                   no           pass    non-CDB: ...
    database  filesystemio_options  not set      pass    data files are in ASM ...
    database  disk_asynch_io        not set      pass    not set: the default TRUE applies ...
    database  db_writer_processes   default      pass    ...
    database  statistics            awr          pass    a sql_workload runs between two AWR snapshots ...
    database  direct nfs            0            pass    Direct NFS not in use ...
    database  asm P30S              CONNECTED    pass    ...

The rows name no engine: the caller (an engine's
:meth:`flashpoc.engines.base.Engine.check_database_facts`) gives the words for the data its load
reads (:class:`DataWords`), and may put its own rows in the slots the table keeps for them (a
buffer cache row after disk_asynch_io, its statistics row instead of the snapshots one, its rows
after the ASM ones). ``status`` is ``pass``, ``warn`` or ``fail``; every row that does not pass
says what to do. The module is pure (no database access): it works on recorded fact dicts, so
the rows can be tested and shown again from a manifest. :func:`facts_text` is a one-line
Markdown summary for notebooks.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from flashpoc.core.records import COLUMNS, check_row

__all__ = ["COLUMNS", "DataWords", "evaluate_database_facts", "facts_text", "gib", "int_param", "param"]

GIB = 1024**3
MIB = 1024**2
ASM_OK_STATES = ("MOUNTED", "CONNECTED")
"""Disk group states that serve I/O: MOUNTED (seen from the ASM instance), CONNECTED (in use by
the database instance: what ``v$asm_diskgroup`` shows in a database instance)."""

Row = dict[str, Any]


@dataclass(frozen=True)
class DataWords:
    """How the cdb and filesystemio_options rows name the data the campaign's load reads."""

    schemas: str
    """The schemas holding it, e.g. ``"the load's schemas"``: the container they are in."""
    listed: str
    """The same schemas as the caller's rows below list them (the root's when connected to CDB$ROOT)."""
    reads: str
    """The load's reads, which the OS page cache may serve without SETALL."""


def gib(value: float) -> str:
    """``3.0 GiB``."""
    return f"{value / GIB:.1f} GiB"


def param(facts: dict[str, Any], name: str) -> str | None:
    """A parameter's text, or None when it is unset (None or empty)."""
    value = (facts.get("parameters") or {}).get(name)
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def int_param(facts: dict[str, Any], name: str) -> int | None:
    """A parameter's value in bytes (text such as ``'3221225472'``), or None when unset or not a number."""
    text = param(facts, name)
    if text is None:
        return None
    try:
        return int(text)
    except ValueError:
        return None


def _asm_names(facts: dict[str, Any]) -> list[str]:
    return [str(d.get("name")) for d in facts.get("asm_diskgroups") or []]


# -- rows --------------------------------------------------------------------------------
def evaluate_database_facts(
    facts: dict[str, Any],
    *,
    words: DataWords,
    host: str = "database",
    cache: Row | None = None,
    statistics: Row | None = None,
    after: Iterable[Row] = (),
) -> list[Row]:
    """Evaluate the database's own settings (no I/O), with the caller's rows in their slots.

    Args:
        facts: the dict of :func:`flashpoc.oracle.db.database_facts` (or a recorded one).
        words: how the cdb and filesystemio_options rows name the data the load reads.
        host: text of the ``host`` column.
        cache: a buffer cache row, put after disk_asynch_io; None: none.
        statistics: the statistics row; None: the snapshots a ``sql_workload`` takes.
        after: rows put after the ASM rows.

    Returns:
        Rows (dicts with the keys of :data:`~flashpoc.campaign.check.COLUMNS`): database, rac, cdb,
        filesystemio_options, disk_asynch_io, (``cache``), db_writer_processes, statistics,
        direct nfs, one ``asm NAME`` row per disk group (or one ``asm`` row), then ``after``.
    """
    rows = _database_rows(facts, host, words)
    rows.append(_filesystemio_row(facts, host, words))
    rows.append(_asynch_row(facts, host))
    if cache is not None:
        rows.append(cache)
    rows.append(_dbwr_row(facts, host))
    rows.append(statistics if statistics is not None else _snapshots_row(facts, host))
    rows.append(_dnfs_row(facts, host))
    rows.extend(_asm_rows(facts, host))
    rows.extend(after)
    return rows


def _database_rows(facts: dict[str, Any], host: str, words: DataWords) -> list[Row]:
    where = (f"{facts.get('db_name') or 'unknown database'} (DBID {facts.get('dbid')}), "
             f"instance {facts.get('instance_name')} (number {facts.get('instance_number')}) "
             f"on {facts.get('host_name')}")
    rows = [check_row(host, "database", facts.get("version") or "unknown", "pass", where)]

    count = facts.get("instance_count")
    if facts.get("rac") or (count or 0) > 1:
        rows.append(check_row(host, "rac", f"{count} instances", "pass",
                         f"RAC with {count} open instances (gv$instance); these facts come from "
                         f"instance {facts.get('instance_name')}: read the AWR of every instance "
                         f"(or the RAC-wide report) for the load of the whole database"))
    else:
        rows.append(check_row(host, "rac", "no", "pass", "single instance"))

    con_name = facts.get("con_name")
    if not facts.get("cdb"):
        rows.append(check_row(host, "cdb", "no", "pass", f"non-CDB: {words.schemas} are in the database itself"))
    elif str(con_name).upper() == "CDB$ROOT":
        rows.append(check_row(host, "cdb", "CDB$ROOT", "warn",
                         f"connected to the root container CDB$ROOT: {words.schemas} belong in a "
                         f"pluggable database; connect to the PDB's service ({words.listed} "
                         f"are the root's)"))
    else:
        rows.append(check_row(host, "cdb", f"PDB {con_name}", "pass",
                         f"container database; connected to the pluggable database {con_name}, "
                         f"which holds {words.schemas}"))
    return rows


def _filesystemio_row(facts: dict[str, Any], host: str, words: DataWords) -> Row:
    value = param(facts, "filesystemio_options")
    shown = value or "not set"
    if value is not None and value.upper() == "SETALL":
        return check_row(host, "filesystemio_options", "SETALL", "pass",
                    "direct and asynchronous I/O to data files on file systems (the OS page cache "
                    "is bypassed)")
    asm = _asm_names(facts)
    if asm:
        return check_row(host, "filesystemio_options", shown, "pass",
                    f"data files are in ASM (disk groups {', '.join(asm)}), which does direct, "
                    f"asynchronous I/O to its disks whatever filesystemio_options says; the "
                    f"parameter only matters for files on a file system (set SETALL if any are)")
    what = ("not set (the platform default applies)" if value is None else f"{value}")
    return check_row(host, "filesystemio_options", shown, "warn",
                f"{what}: without SETALL, reads and writes of data files on a file system go "
                f"through the OS page cache ({words.reads} may be served from host memory, not the "
                f"array) and asynchronous I/O may be off; set filesystemio_options=SETALL in the "
                f"spfile and restart the instance(s)")


def _asynch_row(facts: dict[str, Any], host: str) -> Row:
    value = param(facts, "disk_asynch_io")
    if value is None:
        return check_row(host, "disk_asynch_io", "not set", "pass",
                    "not set: the default TRUE applies (asynchronous I/O to data files)")
    if value.upper() == "TRUE":
        return check_row(host, "disk_asynch_io", "TRUE", "pass", "asynchronous I/O to data files")
    if value.upper() == "FALSE":
        return check_row(host, "disk_asynch_io", "FALSE", "warn",
                    "asynchronous I/O to data files is off: DBWR and multiblock reads wait on "
                    "each I/O, so the array sees a lower queue depth; set disk_asynch_io=TRUE in "
                    "the spfile and restart the instance(s)")
    return check_row(host, "disk_asynch_io", value, "warn",
                f"unexpected value {value!r}: set disk_asynch_io=TRUE")


def _dbwr_row(facts: dict[str, Any], host: str) -> Row:
    value = param(facts, "db_writer_processes")
    hint = ("; if update-heavy runs show 'free buffer waits', add database writers "
            "(db_writer_processes)")
    if value is None:
        return check_row(host, "db_writer_processes", "default", "pass",
                    f"not set: Oracle's default (derived from CPU_COUNT) applies{hint}")
    return check_row(host, "db_writer_processes", value, "pass", f"{value} database writer process(es){hint}")


def _snapshots_row(facts: dict[str, Any], host: str) -> Row:
    """The snapshots a ``sql_workload`` takes around its script: AWR with the Diagnostics Pack,
    else Statspack (:func:`flashpoc.oracle.db.diagnostics_pack_enabled` decides the same way)."""
    if facts.get("diagnostics_pack"):
        return check_row(host, "statistics", "awr", "pass",
                    "a sql_workload runs between two AWR snapshots (the Diagnostics Pack is enabled)")
    return check_row(host, "statistics", "statspack", "pass",
                "a sql_workload runs between two Statspack snapshots (no Diagnostics Pack): Statspack must be "
                "installed (@?/rdbms/admin/spcreate.sql as SYSDBA, user PERFSTAT) before the runs")


def _dnfs_row(facts: dict[str, Any], host: str) -> Row:
    count = int(facts.get("dnfs_server_count") or 0)
    if count > 0 or facts.get("dnfs"):
        return check_row(host, "direct nfs", str(count), "pass",
                    f"Direct NFS in use: the instance talks to {count} NFS server(s) (v$dnfs_servers)")
    return check_row(host, "direct nfs", str(count), "pass", "Direct NFS not in use (v$dnfs_servers is empty)")


def _asm_rows(facts: dict[str, Any], host: str) -> list[Row]:
    groups = facts.get("asm_diskgroups") or []
    if not groups:
        return [check_row(host, "asm", "none", "pass", "no ASM (file system or raw devices)")]
    rows = []
    for group in groups:
        name = group.get("name")
        state = group.get("state")
        total, free = group.get("total_mb"), group.get("free_mb")
        redundancy = f"{group['type']} redundancy" if group.get("type") else "redundancy unknown"
        if total is not None and free is not None:
            share = f" ({free / total * 100:.1f}% free)" if total else ""
            size = f"{gib(total * MIB)} total, {gib(free * MIB)} free{share}"
        else:
            size = "size unknown"
        if state is None:
            rows.append(check_row(host, f"asm {name}", "unknown", "warn",
                             f"state unknown ({redundancy}, {size}): check v$asm_diskgroup"))
        elif str(state).upper() in ASM_OK_STATES:
            rows.append(check_row(host, f"asm {name}", state, "pass", f"{redundancy}, {size}"))
        else:
            rows.append(check_row(host, f"asm {name}", state, "warn",
                             f"disk group {name} is {state} ({redundancy}, {size}): mount it "
                             f"(ALTER DISKGROUP {name} MOUNT in the ASM instance) if the database "
                             f"uses it"))
    return rows


# -- summary -----------------------------------------------------------------------------
def facts_text(facts: dict[str, Any]) -> str:
    """One Markdown line about the database: version, RAC, CDB, ASM / Direct NFS, snapshots.

    Example: ``**P30SDB** Oracle 19.0.0.0.0 · RAC, 2 instances (facts from p30sdb2) · non-CDB ·
    ASM: FRA, P30S · Direct NFS not in use · AWR``
    """
    parts = [f"**{facts.get('db_name') or 'database'}** Oracle {facts.get('version') or 'unknown'}"]
    count = facts.get("instance_count")
    if facts.get("rac") or (count or 0) > 1:
        parts.append(f"RAC, {count} instances (facts from {facts.get('instance_name')})")
    else:
        parts.append(f"single instance {facts.get('instance_name')}")
    parts.append(f"CDB, container {facts.get('con_name')}" if facts.get("cdb") else "non-CDB")
    asm = _asm_names(facts)
    parts.append(f"ASM: {', '.join(asm)}" if asm else "no ASM")
    count_nfs = int(facts.get("dnfs_server_count") or 0)
    parts.append(f"Direct NFS: {count_nfs} server(s)" if count_nfs or facts.get("dnfs")
                 else "Direct NFS not in use")
    method = facts.get("snapshot_method")
    if method:
        parts.append("AWR" if method == "awr" else "Statspack")
    return " · ".join(parts)

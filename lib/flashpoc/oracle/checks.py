"""Database check: is the Oracle database ready for a SLOB storage POC (and, for the other
engines, how is it set up)?

:func:`evaluate_database_facts` turns the facts dict of
:func:`flashpoc.oracle.db.database_facts` into rows of the environment-check table
(:data:`flashpoc.campaign.check.COLUMNS`: host, check, value, status, detail)::

    host      check                 value        status  detail
    database  database              19.0.0.0.0   pass    P30SDB (DBID 1451622190), instance p30sdb2 ...
    database  rac                   2 instances  pass    RAC with 2 open instances ...
    database  cdb                   no           pass    non-CDB: ...
    database  filesystemio_options  not set      pass    data files are in ASM ...
    database  disk_asynch_io        not set      pass    not set: the default TRUE applies ...
    database  buffer cache          3.0 GiB      pass    sga_target 3.0 GiB (...) is 4.7% of the SLOB data ...
    database  db_writer_processes   default      pass    ...
    database  statistics            awr          pass    AWR snapshots: ...
    database  direct nfs            0            pass    Direct NFS not in use ...
    database  asm P30S              CONNECTED    pass    ...
    database  slob schemas          256 of 256   pass    USER1..USER256 exist
    database  slob schema size      256 of 256   pass    ...
    database  slob data             64.0 GiB     pass    ...

``status`` is ``pass``, ``warn`` or ``fail``; every row that does not pass says what to do.
The module is pure (no database access): it works on recorded fact dicts, so the rows can be
tested and shown again from a manifest. :func:`facts_text` is a one-line Markdown summary for
notebooks.
"""

from __future__ import annotations

import re
from typing import Any

from flashpoc.core.records import COLUMNS, check_row, format_bytes

__all__ = ["COLUMNS", "evaluate_database_facts", "facts_text"]

GIB = 1024**3
MIB = 1024**2
CACHE_SHARE_WARN = 0.10
"""Warn when the buffer cache is at least this share of the SLOB data (reads would hit the cache)."""
SCHEMA_SIZE_SHARE = 0.90
"""Warn about SLOB schemas whose segments are smaller than this share of SCALE."""
MAX_NAMES = 5
"""At most this many schema names are listed in a detail."""
ASM_OK_STATES = ("MOUNTED", "CONNECTED")
"""Disk group states that serve I/O: MOUNTED (seen from the ASM instance), CONNECTED (in use by
the database instance: what ``v$asm_diskgroup`` shows in a database instance)."""
STATISTICS_TYPES = ("awr", "statspack")
SLOB_USER_RE = re.compile(r"^USER(\d+)$", re.IGNORECASE)

Row = dict[str, Any]




def _gib(value: float) -> str:
    return f"{value / GIB:.1f} GiB"


def _param(facts: dict[str, Any], name: str) -> str | None:
    """A parameter's text, or None when it is unset (None or empty)."""
    value = (facts.get("parameters") or {}).get(name)
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def _int_param(facts: dict[str, Any], name: str) -> int | None:
    """A parameter's value in bytes (text such as ``'3221225472'``), or None when unset or not a number."""
    text = _param(facts, name)
    if text is None:
        return None
    try:
        return int(text)
    except ValueError:
        return None


def _names(numbers: list[int]) -> str:
    """``USER3, USER7, ...`` (at most :data:`MAX_NAMES`, then how many more)."""
    shown = ", ".join(f"USER{n}" for n in numbers[:MAX_NAMES])
    more = len(numbers) - MAX_NAMES
    return f"{shown} and {more} more" if more > 0 else shown


def _slob_users(facts: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """SLOB schemas by number (USER1 -> 1); other users matching ``USER%`` are ignored."""
    users: dict[int, dict[str, Any]] = {}
    for row in facts.get("slob_schemas") or []:
        match = SLOB_USER_RE.match(str(row.get("username") or ""))
        if match:
            users[int(match.group(1))] = row
    return users


def _asm_names(facts: dict[str, Any]) -> list[str]:
    return [str(d.get("name")) for d in facts.get("asm_diskgroups") or []]


# -- rows --------------------------------------------------------------------------------
def evaluate_database_facts(
    facts: dict[str, Any],
    *,
    host: str = "database",
    schemas: int | None = None,
    scale_bytes: int | None = None,
    statistics_type: str | None = None,
    scan_table_bytes: int | None = None,
    slob: bool = True,
) -> list[Row]:
    """Evaluate the database facts for a SLOB storage POC, or for another engine's (no I/O).

    Args:
        facts: the dict of :func:`flashpoc.oracle.db.database_facts` (or a recorded one).
        host: text of the ``host`` column.
        schemas: SLOB schemas the runs use (USER1..USERn, ``runit.sh -s``); None skips the
            schema count and size checks.
        scale_bytes: SCALE per schema in bytes (:attr:`flashpoc.engines.slob.settings.SlobSettings.scale_bytes`).
        statistics_type: slob.conf ``DATABASE_STATISTICS_TYPE`` (``awr`` or ``statspack``);
            None: the snapshot method the facts chose.
        scan_table_bytes: SCAN_TABLE_SZ per schema in bytes, counted in the expected data size.
        slob: False for a campaign of another engine (fio, vdbench), whose load does not go
            through the database: the buffer cache and SLOB schema rows are left out, and the
            statistics row is about the snapshots a ``sql_workload`` takes.

    Returns:
        Rows (dicts with the keys of :data:`~flashpoc.campaign.check.COLUMNS`): database, rac, cdb,
        filesystemio_options, disk_asynch_io, buffer cache, db_writer_processes, statistics,
        direct nfs, one ``asm NAME`` row per disk group (or one ``asm`` row), then
        ``slob schemas``, ``slob schema size`` (with ``schemas`` and ``scale_bytes``) and
        ``slob data`` (or one ``slob schemas`` row listing what was found without ``schemas``).

    Raises:
        ValueError: ``statistics_type`` is neither ``awr`` nor ``statspack``.
    """
    if statistics_type is not None and statistics_type not in STATISTICS_TYPES:
        raise ValueError(f"statistics_type must be one of {STATISTICS_TYPES} or None, got {statistics_type!r}")
    rows = _database_rows(facts, host)
    rows.append(_filesystemio_row(facts, host))
    rows.append(_asynch_row(facts, host))
    if slob:
        rows.append(_cache_row(facts, host, schemas, scale_bytes))
    rows.append(_dbwr_row(facts, host))
    rows.append(_statistics_row(facts, host, statistics_type) if slob else _snapshots_row(facts, host))
    rows.append(_dnfs_row(facts, host))
    rows.extend(_asm_rows(facts, host))
    if slob:
        rows.extend(_slob_rows(facts, host, schemas, scale_bytes, scan_table_bytes))
    return rows


def _database_rows(facts: dict[str, Any], host: str) -> list[Row]:
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
        rows.append(check_row(host, "cdb", "no", "pass", "non-CDB: SLOB's schemas are in the database itself"))
    elif str(con_name).upper() == "CDB$ROOT":
        rows.append(check_row(host, "cdb", "CDB$ROOT", "warn",
                         "connected to the root container CDB$ROOT: SLOB's schemas belong in a "
                         "pluggable database; connect to the PDB's service (the SLOB schemas below "
                         "are the root's)"))
    else:
        rows.append(check_row(host, "cdb", f"PDB {con_name}", "pass",
                         f"container database; connected to the pluggable database {con_name}, "
                         f"which holds SLOB's schemas"))
    return rows


def _filesystemio_row(facts: dict[str, Any], host: str) -> Row:
    value = _param(facts, "filesystemio_options")
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
                f"through the OS page cache (SLOB's reads may be served from host memory, not the "
                f"array) and asynchronous I/O may be off; set filesystemio_options=SETALL in the "
                f"spfile and restart the instance(s)")


def _asynch_row(facts: dict[str, Any], host: str) -> Row:
    value = _param(facts, "disk_asynch_io")
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


def _cache_row(facts: dict[str, Any], host: str, schemas: int | None, scale_bytes: int | None) -> Row:
    db_cache = _int_param(facts, "db_cache_size")
    sga = _int_param(facts, "sga_target")
    if db_cache:
        cache, upper = db_cache, False
        described = f"db_cache_size {_gib(db_cache)}"
    elif sga:
        cache, upper = sga, True
        described = (f"sga_target {_gib(sga)} (an upper bound of the buffer cache: "
                     f"db_cache_size is not set)")
    else:
        return check_row(host, "buffer cache", "unknown", "warn",
                    "buffer cache size unknown: neither db_cache_size nor sga_target is set "
                    "(memory_target?); SLOB needs a small buffer cache so that reads go to "
                    "storage: set db_cache_size (SLOB guidance: a small SGA, e.g. a few hundred MB)")
    if not schemas or not scale_bytes:
        return check_row(host, "buffer cache", _gib(cache), "warn",
                    f"{described}; the SLOB data size is unknown (give schemas and SCALE), so "
                    f"cannot tell whether reads go to storage")
    data = schemas * scale_bytes
    share = cache / data
    sized = (f"{share * 100:.1f}% of the SLOB data ({_gib(data)} = {schemas} schemas x "
             f"{format_bytes(scale_bytes)} SCALE)")
    if share >= CACHE_SHARE_WARN:
        hits = "reads may hit the cache" if upper else "reads will hit the cache"
        return check_row(host, "buffer cache", _gib(cache), "warn",
                    f"{described} is {sized}, at least {CACHE_SHARE_WARN:.0%}: {hits}; shrink "
                    f"db_cache_size (SLOB guidance: a small SGA, e.g. a few hundred MB) or grow SCALE")
    return check_row(host, "buffer cache", _gib(cache), "pass",
                f"{described} is {sized}: reads go to storage")


def _dbwr_row(facts: dict[str, Any], host: str) -> Row:
    value = _param(facts, "db_writer_processes")
    hint = ("; if update-heavy runs show 'free buffer waits', add database writers "
            "(db_writer_processes)")
    if value is None:
        return check_row(host, "db_writer_processes", "default", "pass",
                    f"not set: Oracle's default (derived from CPU_COUNT) applies{hint}")
    return check_row(host, "db_writer_processes", value, "pass", f"{value} database writer process(es){hint}")


def _statistics_row(facts: dict[str, Any], host: str, statistics_type: str | None) -> Row:
    pack = _param(facts, "control_management_pack_access")
    # the parameter decides when it is known; else the facts' flag (a recorded report)
    diag = "DIAGNOSTIC" in pack.upper() if pack else bool(facts.get("diagnostics_pack"))
    pack_text = (f"control_management_pack_access={pack}" if pack else
                 "control_management_pack_access not set; its default is DIAGNOSTIC+TUNING on "
                 "Enterprise Edition, NONE on other editions")
    statspack_note = ("Statspack must be installed (@?/rdbms/admin/spcreate.sql as SYSDBA, user "
                      "PERFSTAT) before the runs")
    if statistics_type == "statspack":
        return check_row(host, "statistics", "statspack", "pass", f"Statspack snapshots: {statspack_note}")
    if statistics_type == "awr":
        if diag:
            return check_row(host, "statistics", "awr", "pass",
                        f"AWR snapshots: the Diagnostics Pack is enabled ({pack_text})")
        return check_row(host, "statistics", "awr", "fail",
                    f"AWR needs the Diagnostics Pack, which is not enabled ({pack_text}): set "
                    f"database_statistics_type: statspack ({statspack_note}), or license the pack "
                    f"and set control_management_pack_access=DIAGNOSTIC+TUNING")
    method = "awr" if diag else "statspack"
    if not pack and facts.get("snapshot_method") in STATISTICS_TYPES:
        method = facts["snapshot_method"]
    if method == "awr":
        return check_row(host, "statistics", "awr", "pass",
                    f"DATABASE_STATISTICS_TYPE not given: AWR snapshots will be taken (Diagnostics "
                    f"Pack enabled, {pack_text})")
    return check_row(host, "statistics", "statspack", "pass",
                f"DATABASE_STATISTICS_TYPE not given: Statspack snapshots will be taken (no "
                f"Diagnostics Pack, {pack_text}); {statspack_note}")


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
            size = f"{_gib(total * MIB)} total, {_gib(free * MIB)} free{share}"
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


def _slob_rows(facts: dict[str, Any], host: str, schemas: int | None, scale_bytes: int | None,
               scan_table_bytes: int | None) -> list[Row]:
    users = _slob_users(facts)
    if not schemas:
        if not users:
            return [check_row(host, "slob schemas", "0", "warn",
                         "no SLOB schemas (USER1..USERn): run SLOB's setup.sh TABLESPACE N")]
        found = sorted(users)
        return [check_row(host, "slob schemas", str(len(found)), "pass",
                     f"{len(found)} SLOB schemas found (USER{found[0]}..USER{found[-1]}, "
                     f"{_gib(sum(int(users[n].get('segment_bytes') or 0) for n in found))}); give "
                     f"schemas to check them against the runs")]

    wanted = range(1, schemas + 1)
    missing = [n for n in wanted if n not in users]
    present = [n for n in wanted if n in users]
    rows = []
    if missing:
        rows.append(check_row(host, "slob schemas", f"{len(present)} of {schemas}", "fail",
                         f"{len(missing)} of the {schemas} SLOB schemas are missing "
                         f"({_names(missing)}): run SLOB's setup.sh TABLESPACE {schemas}"))
    else:
        extra = len([n for n in users if n > schemas])
        more = f" ({extra} more SLOB schemas exist, unused)" if extra else ""
        rows.append(check_row(host, "slob schemas", f"{schemas} of {schemas}", "pass",
                         f"USER1..USER{schemas} exist{more}"))

    sizes = {n: int(users[n].get("segment_bytes") or 0) for n in present}
    if scale_bytes and present:
        limit = SCHEMA_SIZE_SHARE * scale_bytes
        small = [n for n in present if sizes[n] < limit]
        if small:
            listed = ", ".join(f"USER{n} ({format_bytes(sizes[n])})" for n in small[:MAX_NAMES])
            more = f" and {len(small) - MAX_NAMES} more" if len(small) > MAX_NAMES else ""
            rows.append(check_row(host, "slob schema size", f"{len(small)} of {len(present)} small", "warn",
                             f"{listed}{more} hold less than {SCHEMA_SIZE_SHARE:.0%} of SCALE "
                             f"{format_bytes(scale_bytes)}: the load did not finish or used another "
                             f"SCALE; reload with SLOB's setup.sh (same SCALE as the runs)"))
        else:
            smallest = min(sizes.values())
            rows.append(check_row(host, "slob schema size", f"{len(present)} of {len(present)}", "pass",
                             f"every schema holds at least {SCHEMA_SIZE_SHARE:.0%} of SCALE "
                             f"{format_bytes(scale_bytes)} (smallest {format_bytes(smallest)})"))

    if present:
        total = sum(sizes.values())
        if missing:
            detail = f"segments of the {len(present)} SLOB schemas present: {_gib(total)}"
        else:
            detail = f"segments of USER1..USER{schemas}: {_gib(total)}"
        if scale_bytes:
            per_schema = scale_bytes + (scan_table_bytes or 0)
            what = "SCALE + SCAN_TABLE_SZ" if scan_table_bytes else "SCALE"
            detail += (f" (expected about {_gib(schemas * per_schema)} = {schemas} x "
                       f"{format_bytes(per_schema)} {what})")
        rows.append(check_row(host, "slob data", _gib(total), "pass", detail))
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

"""SLOB's rows of the environment check: SLOB, sqlplus and the OS tools on the database host, the
database, and the SLOB data set against the array cache."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from flashpoc.engines.checks import check_database, database_facts, working_set_row
from flashpoc.core.records import CAMPAIGN_ROW_HOST, Row, check_row, format_bytes
from flashpoc.hosts.dbstorage import oracle_storage_rows
from flashpoc.core.errors import RemoteError
from flashpoc.params import Campaign, HostParams
from flashpoc.hosts import host as _hosts
from flashpoc.engines.slob.datafiles import datafiles_facts, datafiles_rows, is_datafiles_mount
from flashpoc.oracle.checks import DataWords, evaluate_database_facts, gib, int_param, param



def evaluate_slob_host(campaign: Campaign, facts: dict[str, str]) -> list[Row]:
    """Rows for the DB host's SLOB facts (:func:`flashpoc.engines.slob.run.slob_host_facts`); pure."""
    slob, host = campaign.settings, campaign.db_host.name
    if facts.get("home") in (None, "missing"):
        return [check_row(host, "SLOB home", slob.home, "fail",
                     f"no directory {slob.home!r} on the DB host: install SLOB there or set slob.home")]
    rows = [check_row(host, "SLOB home", facts["home"], "pass", "")]
    has = {name: facts.get(f"file_{name}") == "yes" for name in ("runit.sh", "setup.sh", "slob.conf")}
    rows.append(check_row(host, "runit.sh", "yes" if has["runit.sh"] else "missing", "pass" if has["runit.sh"] else "fail",
                     "" if has["runit.sh"] else f"{facts['home']} has no runit.sh: is it SLOB 2.5's directory?"))
    rows.append(check_row(host, "slob.conf", "exists" if has["slob.conf"] else "none", "pass",
                     "the existing slob.conf is kept as slob.conf.before-flashpoc before the first run"
                     if has["slob.conf"] else "flashpoc writes slob.conf for every point"))
    writable = facts.get("writable") == "yes"
    rows.append(check_row(host, "SLOB home writable", "yes" if writable else "no", "pass" if writable else "fail",
                     "" if writable else "runit.sh writes slob.conf and its reports there: give the SSH user "
                                         "write access"))
    if slob.env_file:
        ok = facts.get("env_file") == "yes"
        rows.append(check_row(host, "environment file", slob.env_file, "pass" if ok else "fail",
                         "sourced before runit.sh" if ok else f"{slob.env_file} does not exist on the DB host"))
    sqlplus = facts.get("sqlplus", "missing")
    rows.append(check_row(host, "sqlplus", sqlplus, "fail" if sqlplus == "missing" else "pass",
                     "runit.sh needs sqlplus: set slob.env_file to a file that sets ORACLE_HOME, ORACLE_SID "
                     "and PATH" if sqlplus == "missing" else ""))
    missing = [t for t in ("mpstat", "iostat", "vmstat") if facts.get(f"tool_{t}") != "yes"]
    rows.append(check_row(host, "mpstat/iostat/vmstat", "missing " + ", ".join(missing) if missing else "yes",
                     "warn" if missing else "pass",
                     "SLOB records host CPU and device statistics with them: install sysstat" if missing else ""))
    if "nfs_mounts" in facts:
        rows.append(_datafiles_row(campaign.database, host, facts["nfs_mounts"], campaign.oracle is not None))
        rows += datafiles_rows(host, datafiles_facts(campaign.database, facts))
    if slob.sysdba_passwd_env:
        set_ = facts.get("passwd_env") == "set"
        rows.append(check_row(host, "SYSDBA password variable", slob.sysdba_passwd_env, "pass" if set_ else "fail",
                         "set on the DB host (value not read)" if set_ else
                         f"export {slob.sysdba_passwd_env} on the DB host (e.g. in slob.env_file); slob.conf "
                         "refers to it and the password is never written"))
    return rows


def _datafiles_row(database, host: str, nfs_mounts: str, database_connected: bool) -> Row:
    """Whether ``database.datafiles`` (what each point's time series counts) fits the DB host's NFS
    mounts: local datafiles beside NFS mounts warn (the series would count the local disks),
    kNFS without a matching NFS mount fails (the series would be empty), dNFS without ``oracle:``
    (``database_connected``) warns (its series is the database's counters, sampled through it)."""
    mounts = list(dict.fromkeys(m for m in nfs_mounts.split(",") if m))  # a mount point listed twice, once
    chosen = [m for m in mounts if is_datafiles_mount(database, m)]
    shown = ", ".join(mounts) if mounts else "no NFS mount"
    if database.datafiles in (None, "local"):
        return check_row(host, "datafiles", f"local ({shown})", "warn" if mounts else "pass",
                    f"the DB host has NFS mounts ({', '.join(mounts)}): if the datafiles are there, set "
                    "database.datafiles: knfs (or dnfs for Direct NFS), else each point's time series counts the local "
                    "disks, not the database's I/O" if mounts else "each point's time series: iostat's local disks")
    if database.datafiles == "knfs":
        return check_row(host, "datafiles", f"knfs ({shown})", "pass" if chosen else "fail",
                    f"each point's time series: the READ/WRITE of {', '.join(chosen)} (/proc/self/mountstats)"
                    if chosen else "database.datafiles is knfs but the DB host has no NFS mount"
                                   + (f" matching {database.nfs_mounts!r}" if database.nfs_mounts and mounts else "")
                                   + ": mount the datafiles' file system or fix database.nfs_mounts")
    series = ("each point's time series: the database's own I/O counters, sampled through oracle: (neither "
              "iostat nor the kernel's NFS counters see Direct NFS I/O)" if database_connected else
              "without oracle: points keep no time series (neither iostat nor the kernel's NFS counters see Direct "
              "NFS I/O; set oracle: to sample the database's own counters)")
    return check_row(host, "datafiles", f"dnfs ({shown})", "pass" if mounts and database_connected else "warn",
                "Direct NFS: " + series
                + ("" if mounts else "; the DB host has no NFS mount, which Direct NFS needs (oranfstab aside)"))


def check_slob(campaign: Campaign, *, connect: Callable[[HostParams], Any] = _hosts.connect,
               oracle_facts: Callable[[Any], dict[str, Any]] = database_facts,
               facts_by_host: dict[str, Any] | None = None) -> list[Row]:
    """SLOB rows of the check: SLOB, sqlplus and the OS tools on the DB host, the database
    itself through python-oracledb when ``oracle`` is set, and the SLOB data set size.

    Args:
        campaign: a campaign with ``engine: slob``.
        connect: returns a host object for a ``HostParams``.
        oracle_facts: returns the database facts for ``campaign.oracle`` (tests pass recorded ones).
        facts_by_host: the hosts' facts of the check: the DB host's gets ``datafiles``
            (:func:`.datafiles.datafiles_facts`), which the manifest's environment records.
    """
    from flashpoc.engines.slob.run import slob_host_facts

    slob, db = campaign.settings, campaign.db_host
    try:
        with connect(db) as host:
            facts = slob_host_facts(host, slob.home, slob.env_file, slob.sysdba_passwd_env)
        rows = evaluate_slob_host(campaign, facts)
        if (facts_by_host or {}).get(db.name) is not None:
            facts_by_host[db.name]["datafiles"] = datafiles_facts(campaign.database, facts)
    except (RemoteError, OSError, EOFError) as error:
        rows = [check_row(db.name, "SLOB home", None, "fail", str(error))]
    data_bytes = slob.schemas * slob.scale_bytes
    detail = f"{slob.schemas} schemas x SCALE {slob.scale} = {format_bytes(data_bytes)}"
    rows.append(check_row(CAMPAIGN_ROW_HOST, "SLOB data set", data_bytes, "pass", detail, "bytes"))
    ws = working_set_row(data_bytes, campaign.array_cache)
    if ws["status"] == "warn":
        ws["detail"] += "; load more or larger schemas (setup.sh)"
    rows.append(ws)
    if campaign.oracle is None:
        rows.append(check_row(CAMPAIGN_ROW_HOST, "database", "not checked", "warn",
                         "no oracle: connection given, so the database (version, filesystemio_options, buffer "
                         "cache, AWR licence, SLOB schemas) is not checked; set oracle.dsn and oracle.user"))
        return rows + oracle_storage_rows(campaign, [], connect)
    database = check_database(campaign, oracle_facts=oracle_facts)
    return rows + database + oracle_storage_rows(campaign, database, connect)


# -- the database against SLOB's schemas and SCALE ------------------------------------------
CACHE_SHARE_WARN = 0.10
"""Warn when the buffer cache is at least this share of the SLOB data (reads would hit the cache)."""
SCHEMA_SIZE_SHARE = 0.90
"""Warn about SLOB schemas whose segments are smaller than this share of SCALE."""
MAX_NAMES = 5
"""At most this many schema names are listed in a detail."""
STATISTICS_TYPES = ("awr", "statspack")
SLOB_USER_RE = re.compile(r"^USER(\d+)$", re.IGNORECASE)
SLOB_WORDS = DataWords(schemas="SLOB's schemas", listed="the SLOB schemas below", reads="SLOB's reads")
"""How the database's cdb and filesystemio_options rows name SLOB's data."""


def evaluate_slob_database(
    facts: dict[str, Any],
    *,
    host: str = "database",
    schemas: int | None = None,
    scale_bytes: int | None = None,
    statistics_type: str | None = None,
    scan_table_bytes: int | None = None,
) -> list[Row]:
    """Evaluate the database facts for a SLOB storage POC (no I/O): the oracle layer's rows
    (:func:`flashpoc.oracle.checks.evaluate_database_facts`) with SLOB's in their slots.

    Args:
        facts: the dict of :func:`flashpoc.oracle.db.database_facts` (or a recorded one).
        host: text of the ``host`` column.
        schemas: SLOB schemas the runs use (USER1..USERn, ``runit.sh -s``); None skips the
            schema count and size checks.
        scale_bytes: SCALE per schema in bytes (:attr:`flashpoc.engines.slob.settings.SlobSettings.scale_bytes`).
        statistics_type: slob.conf ``DATABASE_STATISTICS_TYPE`` (``awr`` or ``statspack``);
            None: the snapshot method the facts chose.
        scan_table_bytes: SCAN_TABLE_SZ per schema in bytes, counted in the expected data size.

    Returns:
        Rows: database, rac, cdb, filesystemio_options, disk_asynch_io, buffer cache,
        db_writer_processes, statistics, direct nfs, one ``asm NAME`` row per disk group (or one
        ``asm`` row), then ``slob schemas``, ``slob schema size`` (with ``schemas`` and
        ``scale_bytes``) and ``slob data`` (or one ``slob schemas`` row listing what was found
        without ``schemas``).

    Raises:
        ValueError: ``statistics_type`` is neither ``awr`` nor ``statspack``.
    """
    if statistics_type is not None and statistics_type not in STATISTICS_TYPES:
        raise ValueError(f"statistics_type must be one of {STATISTICS_TYPES} or None, got {statistics_type!r}")
    return evaluate_database_facts(
        facts, words=SLOB_WORDS, host=host, cache=_cache_row(facts, host, schemas, scale_bytes),
        statistics=_statistics_row(facts, host, statistics_type),
        after=_slob_rows(facts, host, schemas, scale_bytes, scan_table_bytes))


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


def _cache_row(facts: dict[str, Any], host: str, schemas: int | None, scale_bytes: int | None) -> Row:
    db_cache = int_param(facts, "db_cache_size")
    sga = int_param(facts, "sga_target")
    if db_cache:
        cache, upper = db_cache, False
        described = f"db_cache_size {gib(db_cache)}"
    elif sga:
        cache, upper = sga, True
        described = (f"sga_target {gib(sga)} (an upper bound of the buffer cache: "
                     f"db_cache_size is not set)")
    else:
        return check_row(host, "buffer cache", "unknown", "warn",
                    "buffer cache size unknown: neither db_cache_size nor sga_target is set "
                    "(memory_target?); SLOB needs a small buffer cache so that reads go to "
                    "storage: set db_cache_size (SLOB guidance: a small SGA, e.g. a few hundred MB)")
    if not schemas or not scale_bytes:
        return check_row(host, "buffer cache", gib(cache), "warn",
                    f"{described}; the SLOB data size is unknown (give schemas and SCALE), so "
                    f"cannot tell whether reads go to storage")
    data = schemas * scale_bytes
    share = cache / data
    sized = (f"{share * 100:.1f}% of the SLOB data ({gib(data)} = {schemas} schemas x "
             f"{format_bytes(scale_bytes)} SCALE)")
    if share >= CACHE_SHARE_WARN:
        hits = "reads may hit the cache" if upper else "reads will hit the cache"
        return check_row(host, "buffer cache", gib(cache), "warn",
                    f"{described} is {sized}, at least {CACHE_SHARE_WARN:.0%}: {hits}; shrink "
                    f"db_cache_size (SLOB guidance: a small SGA, e.g. a few hundred MB) or grow SCALE")
    return check_row(host, "buffer cache", gib(cache), "pass",
                f"{described} is {sized}: reads go to storage")


def _statistics_row(facts: dict[str, Any], host: str, statistics_type: str | None) -> Row:
    pack = param(facts, "control_management_pack_access")
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
                     f"{gib(sum(int(users[n].get('segment_bytes') or 0) for n in found))}); give "
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
            detail = f"segments of the {len(present)} SLOB schemas present: {gib(total)}"
        else:
            detail = f"segments of USER1..USER{schemas}: {gib(total)}"
        if scale_bytes:
            per_schema = scale_bytes + (scan_table_bytes or 0)
            what = "SCALE + SCAN_TABLE_SZ" if scan_table_bytes else "SCALE"
            detail += (f" (expected about {gib(schemas * per_schema)} = {schemas} x "
                       f"{format_bytes(per_schema)} {what})")
        rows.append(check_row(host, "slob data", gib(total), "pass", detail))
    return rows

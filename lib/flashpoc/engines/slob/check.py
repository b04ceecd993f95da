"""SLOB's rows of the environment check: SLOB, sqlplus and the OS tools on the database host, the
database, and the SLOB data set against the array cache."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flashpoc.engines.checks import check_database, database_facts, working_set_row
from flashpoc.core.records import CAMPAIGN_ROW_HOST, Row, check_row, format_bytes
from flashpoc.hosts.dbstorage import oracle_storage_rows
from flashpoc.core.errors import RemoteError
from flashpoc.params import Campaign, HostParams
from flashpoc.hosts import host as _hosts
from flashpoc.engines.slob.datafiles import datafiles_facts, datafiles_rows, is_datafiles_mount



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


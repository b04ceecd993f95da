"""The storage path of the database a HammerDB campaign drives (:mod:`flashpoc.hosts.dbstorage`):
PostgreSQL's data directory and WAL, as the check script read ``data_directory`` through a load
host; on Oracle, the ASM disks and datafiles' directories through ``oracle:``."""

from __future__ import annotations

from typing import Any

LOOPBACK = frozenset({"localhost", "127.0.0.1", "::1"})
"""Addresses of a PostgreSQL on the load host itself."""


def database_host(campaign) -> Any:
    """The load host a PostgreSQL runs on: the first, for a server at localhost; the one whose
    address is the server's; None otherwise (an Oracle service, or a host that is no load host)."""
    s = campaign.settings
    if s.database != "postgresql":
        return None
    if s.host in LOOPBACK:
        return campaign.hosts[0]
    return next((h for h in campaign.hosts if h.address == s.host), None)


def storage_rows(campaign, seen: dict[str, dict], connect) -> list:
    """The database's storage rows: PostgreSQL's data directory as the first load host's check read
    it (``seen``: each load host's check facts); Oracle's storage through ``oracle:``."""
    from flashpoc.hosts.dbstorage import check_database_storage, oracle_storage_rows
    from flashpoc.hosts.storage import postgresql_paths
    from flashpoc.core.errors import FlashpocError
    from flashpoc.oracle import db as oracle

    if campaign.settings.database == "oracle":
        try:
            if campaign.oracle is None:
                facts = None
            else:
                with oracle.connect(oracle.OracleSettings.of(campaign.oracle)) as conn:
                    facts = oracle.database_facts(conn)
        except FlashpocError as error:
            return oracle_storage_rows(campaign, None, connect, unread=f"the database could not be read: {error}")
        return oracle_storage_rows(campaign, facts, connect)
    facts = next(iter(seen.values()), {})
    why = "the check could not read PostgreSQL's data_directory (the database rows say why)"
    return check_database_storage(campaign, postgresql_paths(facts.get("data_directory")), connect, why=why)

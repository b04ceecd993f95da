"""The database's storage path in the environment check, for every database campaign: on the
database's own host (``database.host``, else the engine's default: SLOB's DB host, the load host of
a HammerDB campaign on a PostgreSQL at localhost), the transport, multipath paths and links of the
paths under its data (:mod:`flashpoc.hosts.storage`), read with the target facts
(:func:`flashpoc.hosts.facts.collect_host_facts`); nothing is written there."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flashpoc.hosts.environment import FACTS_KEY
from flashpoc.hosts.storage import STORAGE_KEY, oracle_paths, oracle_unread, storage_rows, storage_section
from flashpoc.core.errors import RemoteError
from flashpoc.params import Campaign, HostParams
from flashpoc.hosts.facts import collect_host_facts

Row = dict[str, Any]


def storage_host(campaign: Campaign) -> HostParams | None:
    """The host the database runs on: ``database.host``, else the engine's
    (:meth:`flashpoc.engines.base.Engine.database_host`); None when unknown."""
    return campaign.database.host or campaign.engine_object.database_host(campaign)


def check_database_storage(campaign: Campaign, paths: list[dict[str, str]], connect: Callable[[HostParams], Any],
                           *, why: str | None = None) -> list[Row]:
    """The rows of the database's storage (:func:`flashpoc.hosts.storage.storage_rows`) for
    ``paths`` (:func:`~flashpoc.hosts.storage.oracle_paths`, ``postgresql_paths``) read on the
    database's host; ``why`` none were named. The first row carries the section (``STORAGE_KEY``)."""
    host = storage_host(campaign)
    if host is None:
        section = storage_section(None, [], None, "the database's host is not known: name it in database.host "
                                                  "(its address and SSH user, as a host of hosts:)")
    elif not paths:
        section = storage_section(host.name, [], None, f"the database named no path to read ({why or 'none found'})")
    else:
        try:
            with connect(host) as reached:
                facts = collect_host_facts(reached, [p["path"] for p in paths], data_safety=False)
        except (RemoteError, OSError, EOFError) as error:
            section = storage_section(host.name, [], None, f"cannot read {host.name}: {error or type(error).__name__}")
        else:
            section = storage_section(host.name, paths, facts)
    rows = storage_rows(section)
    return [{**rows[0], STORAGE_KEY: section}, *rows[1:]]


def oracle_storage_rows(campaign: Campaign, database: list[Row] | dict[str, Any] | None,
                        connect: Callable[[HostParams], Any], *, unread: str | None = None) -> list[Row]:
    """The storage rows of an Oracle database: its ASM disks and datafiles' directories
    (:func:`~flashpoc.hosts.storage.oracle_paths`) from its facts, given as they are or as the
    check rows carrying them (:func:`flashpoc.campaign.check.check_database`); ``unread`` says why there are none."""
    facts = next((r[FACTS_KEY] for r in database if FACTS_KEY in r), None) if isinstance(database, list) else database
    if facts is None:
        why = unread or ("no oracle: connection names its ASM disks and datafiles" if campaign.oracle is None
                         else "the database could not be read (its row says why)")
        return check_database_storage(campaign, [], connect, why=why)
    return check_database_storage(campaign, oracle_paths(facts), connect, why=oracle_unread(facts))

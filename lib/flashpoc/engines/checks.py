"""The engine-free rows of the environment check the engines add to theirs
(:meth:`flashpoc.engines.base.Engine.check_campaign`): the campaign's working set against the array
cache and the host memory, the targets several hosts share, the hosts' clocks, and the database's
(:func:`check_database`: its facts, evaluated the engine's way, and its storage path).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flashpoc.analysis.workingset import CHECK_NAME, judge_working_set
from flashpoc.core.errors import FlashpocError
from flashpoc.core.records import CAMPAIGN_ROW_HOST, Row, check_row, format_bytes
from flashpoc.core.registry import get_engine
from flashpoc.hosts.environment import FACTS_KEY
from flashpoc.oracle import db as oracle
from flashpoc.oracle.db.settings import OracleSettings
from flashpoc.oracle.environment import database_rows
from flashpoc.params import Campaign

CLOCK_SKEW_WARN_MS = 500.0
"""A host clock further than this from the controller's or another host's (beyond the error
of the reading) is a warning: per-second time series of the hosts no longer line up."""


def working_set_row(total: int | None, array_cache: str | None, unsized: list[str] = ()) -> Row:
    """The working set against the array cache, every engine's (:func:`flashpoc.analysis.workingset.judge_working_set`)."""
    verdict = judge_working_set(total, array_cache, list(unsized))
    ratio = verdict["ratio"]
    return check_row(CAMPAIGN_ROW_HOST, CHECK_NAME, ratio, verdict["status"],
                verdict["detail"], "x")


def evaluate_campaign(campaign: Campaign, facts_by_host: dict[str, dict[str, Any] | None]) -> list[Row]:
    """Return the campaign-level rows: the working set (sum of the target sizes) and it against
    the array cache (:func:`working_set_row`).

    A target without a ``size`` counts with the size found on the first host that has it.
    """
    total = 0
    parts, unknown = [], []
    for target in campaign.targets:
        size = target.size_bytes
        if size is None:
            found = [_target_facts(f, target.path).get("size_bytes") for f in facts_by_host.values()]
            size = next((s for s in found if s), None)
        if size is None:
            unknown.append(target.name)
        else:
            total += size
            parts.append(f"{target.name} {format_bytes(size)}")
    detail = f"{len(campaign.targets)} target(s): {format_bytes(total)} ({', '.join(parts)})"
    rows = [working_set_row(total, campaign.array_cache, unknown)]
    rows += _shared_target_rows(campaign, facts_by_host) + _clock_skew_rows(facts_by_host)
    if unknown:
        return [check_row(CAMPAIGN_ROW_HOST, "working set", total, "warn",
                     f"{detail}; size unknown: {', '.join(unknown)}", "bytes")] + rows
    memories = [f.get("mem_total_bytes") for f in facts_by_host.values() if f and f.get("mem_total_bytes")]
    if not campaign.engine_object.direct_io(campaign) and memories and total <= max(memories):
        return [check_row(CAMPAIGN_ROW_HOST, "working set", total, "warn",
                     f"{detail}; fits in host memory ({format_bytes(max(memories))}) and fio.direct is false",
                     "bytes")] + rows
    return [check_row(CAMPAIGN_ROW_HOST, "working set", total, "pass", detail, "bytes")] + rows


def _shared_target_rows(campaign: Campaign, facts_by_host: dict[str, dict[str, Any] | None]) -> list[Row]:
    """One row per target used by several hosts: the same size on every host that has it (a
    different size means a different LUN or file behind the same path)."""
    rows = []
    for target in campaign.targets:
        users = [h.name for h in campaign.hosts if target.hosts is None or h.name in target.hosts]
        if len(users) < 2:
            continue
        sizes = {}
        for host in users:
            found = _target_facts(facts_by_host.get(host), target.path)
            if found.get("type") in ("block", "file") and found.get("size_bytes") is not None:
                sizes[host] = found["size_bytes"]
        name = f"target {target.name}: same on all hosts"
        if len(set(sizes.values())) > 1:
            listed = ", ".join(f"{format_bytes(size)} on {host}" for host, size in sizes.items())
            rows.append(check_row(CAMPAIGN_ROW_HOST, name, "no", "warn",
                             f"{target.path} is {listed}: not the same LUN or file on every host?"))
        elif sizes:
            seen = f"{format_bytes(next(iter(sizes.values())))} on {len(sizes)} of {len(users)} hosts"
            rows.append(check_row(CAMPAIGN_ROW_HOST, name, "yes" if len(sizes) == len(users) else "partly",
                             "pass" if len(sizes) == len(users) else "warn", f"{target.path}: {seen}"))
    return rows


def _target_facts(facts: dict[str, Any] | None, path: str) -> dict[str, Any]:
    """The facts of the target at ``path`` in one host's facts ({} when the host or target has none)."""
    return next((t for t in (facts or {}).get("targets") or [] if t.get("path") == path), {})


def _clock_skew_rows(facts_by_host: dict[str, dict[str, Any] | None]) -> list[Row]:
    """The spread of the host clocks (each read against the controller's), when two or more were read."""
    offsets = {h: f["clock_offset_ms"] for h, f in facts_by_host.items() if f and f.get("clock_offset_ms") is not None}
    if len(offsets) < 2:
        return []
    error = max(f.get("clock_rtt_ms") or 0.0 for f in facts_by_host.values() if f) / 2
    early, late = min(offsets, key=offsets.get), max(offsets, key=offsets.get)
    spread = offsets[late] - offsets[early]
    detail = f"{late} is {spread:,.0f} ms ahead of {early} (+/- {error * 2:,.0f} ms)"
    status = "warn" if spread - 2 * error > CLOCK_SKEW_WARN_MS else "pass"
    return [check_row(CAMPAIGN_ROW_HOST, "clock skew between hosts", spread, status,
                 detail + ("; sync the clocks (chrony, NTP)" if status == "warn" else ""), "ms")]


def database_facts(oracle_params: Any) -> dict[str, Any]:
    """Connect with ``oracle_params`` (python-oracledb, thin) and return the database facts.

    Raises:
        ParameterError: the password variable is not set (before any network I/O).
        RemoteError: the database cannot be reached or a query failed.
    """
    with oracle.connect(OracleSettings.of(oracle_params)) as conn:
        facts = oracle.database_facts(conn)
        if oracle_params.calibrate_io is not None:  # minutes of reads on the array: only when asked
            facts["calibrate_io"] = oracle.calibrate_io(conn, oracle_params.calibrate_io.num_physical_disks,
                                                        oracle_params.calibrate_io.max_latency_ms)
        return facts


def check_database(campaign: Campaign, *,
                   oracle_facts: Callable[[Any], dict[str, Any]] = database_facts) -> list[Row]:
    """The database rows of the check, for every engine with ``oracle`` set: connect through
    python-oracledb (fast failure: one ``fail`` row naming the DSN) and evaluate the facts
    the engine's way (:meth:`flashpoc.engines.base.Engine.check_database_facts`): for SLOB against its schemas and
    SCALE, for fio and vdbench the database's own settings (version, RAC, CDB,
    filesystemio_options, disk_asynch_io, snapshots for a ``sql_workload``, Direct NFS, ASM).
    """
    try:
        dbfacts = oracle_facts(campaign.oracle)
    except FlashpocError as error:
        return [check_row(CAMPAIGN_ROW_HOST, "database", campaign.oracle.dsn, "fail", str(error))]
    rows = get_engine(campaign.engine).check_database_facts(campaign, dbfacts) + database_rows(
        dbfacts, datafiles=campaign.database.datafiles)
    return [{**rows[0], FACTS_KEY: dbfacts}, *rows[1:]] if rows else rows

"""The fill of every target the campaign may write, once, with the engine's data, and its records."""

from __future__ import annotations

import json
import warnings
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from flashpoc.core.errors import CheckFailed, RemoteError
from flashpoc.hosts.targets import make_scratch_files, read_back, target_identities, target_sizes

if TYPE_CHECKING:
    from flashpoc.params import HostParams, TargetParams
    from flashpoc.hosts.workbench import Workbench


#: the records' folder in the campaign's results (one JSON per host and target), as vdbench's fills
RECORD_DIR = "targets"
#: the campaign-level status of the fills: what was filled, reused, or left unfilled
STATUS_FILE = "precondition.json"
#: the sample read back after a fill: this many bytes at the start, middle and end of the working set
SAMPLE_BYTES = 1024 * 1024
_SAMPLE_BLOCK = 64 * 1024


def record_path(host: str, target: str) -> str:
    """Where the record of ``target``'s fill on ``host`` lives, relative to the campaign's folder."""
    return f"{RECORD_DIR}/{host}/{target}.json"


class UnfilledTargetWarning(UserWarning):
    """A read workload runs on a target never filled (``precondition.unfilled: warn``)."""


def create_scratch(wb: Workbench, host_params: HostParams, scratch: list, short: list) -> list[dict[str, Any]]:
    """With ``precondition.fill`` the scratch files are only made (sparse, :func:`make_scratch_files`):
    the fill writes them once, recorded (:func:`fill_targets`); the record of a file made anew is dropped."""
    make_scratch_files(wb.host(host_params), short)
    for target in short:  # made anew (a file system may give it the inode of the one it replaces): fill it again
        (wb.store.root / record_path(host_params.name, target.name)).unlink(missing_ok=True)
    return [{"host": host_params.name, "target": t.name, "action": "created" if t in short else "reused"}
            for t in scratch]


def sample_offsets(working_set: int) -> list[int]:
    """Byte offsets of the sample read back after a fill: the start, the middle and the last
    :data:`SAMPLE_BYTES` of the working set (fewer when they overlap), block-aligned."""
    last = max(0, working_set - SAMPLE_BYTES) // _SAMPLE_BLOCK * _SAMPLE_BLOCK
    middle = min(last, working_set // 2 // _SAMPLE_BLOCK * _SAMPLE_BLOCK)
    return sorted({0, middle, last})


def read_sample(host, target: TargetParams, working_set: int) -> dict[str, Any]:
    """The sample of ``target`` (:func:`sample_offsets`) read back on ``host``: its offsets, its
    length, its SHA-256 and its size compressed by ``gzip -1`` (None without gzip), so the record
    shows the data's reducibility as written, not only as asked (:func:`flashpoc.hosts.targets.read_back`)."""
    offsets = sample_offsets(working_set)
    count = min(SAMPLE_BYTES, working_set) // _SAMPLE_BLOCK
    return {"offsets_bytes": offsets, **read_back(host, target, offsets, block=_SAMPLE_BLOCK, count=count)}


def fill_record(wb: Workbench, host_params: HostParams, target: TargetParams, identity: str | None = None
                ) -> dict[str, Any] | None:
    """The stored record of ``target``'s fill on ``host_params``, or None when there is none that
    matches the campaign now (path, working set, engine, data and, when given, identity)."""
    engine = wb.engine
    try:
        record = json.loads((wb.store.root / record_path(host_params.name, target.name)).read_text())
    except (OSError, ValueError):
        return None
    wanted = {"path": target.path, "size_bytes": target.size_bytes, "engine": engine.name,
              "data": engine.fill_data(wb.cfg)}
    if identity is not None:
        wanted["identity"] = identity
    return record if all(record.get(key) == value for key, value in wanted.items()) else None


def _shareable(identity: str) -> bool:
    """True for a LUN known by its WWID: the same on every host that sees it, so filled once."""
    parts = identity.split(" ", 2)
    return parts[0] == "block" and len(parts) == 3 and parts[2] not in ("unknown", "")


def _reads(wb: Workbench) -> list[str]:
    """The campaign's workloads that read."""
    return [w.name for w in wb.cfg.engine_workloads if getattr(w, "read_pct", 0) > 0]


def fill_targets(wb: Workbench) -> list[dict[str, Any]]:
    """Fill every target the campaign may write that has no matching record (after the safety
    gate, which :func:`flashpoc.phases.prepare_targets` runs first) and record each fill; before
    anything is written, refuse (or warn about) reads of targets that would stay unfilled. What
    was done, one dict per host and target; ``precondition.json`` has the same.

    Raises:
        CheckFailed: a read workload would run on an unfilled target (``precondition.unfilled:
            refuse``, the default), naming each host and target and what to do, before any I/O.
        RemoteError: the engine failed or wrote less than a working set.
    """
    cfg = wb.cfg
    engine = cfg.engine_object
    if engine.data_elsewhere(cfg) is not None:
        return []
    settings = cfg.precondition
    data = engine.fill_data(cfg)
    done, shared, plans, copies = _plan_fills(wb, data)
    unfilled = [d for d in done if d["action"] == "unfilled"]
    reads = _reads(wb)
    if unfilled and reads:
        message = unfilled_message(unfilled, reads, settings.unfilled)
        if settings.unfilled == "refuse":
            wb.store.write_json(STATUS_FILE, {"engine": engine.name, "data": data, "targets": done,
                                              "unfilled_read_by": reads})
            raise CheckFailed(message)
        warnings.warn(message, UnfilledTargetWarning, stacklevel=2)
    for host_params, wanted, identities in plans:
        for record in _fill_host(wb, host_params, wanted, identities):
            done.append({"host": host_params.name, "target": record["target"], "action": "filled",
                         "written_bytes": record["written_bytes"], "seconds": record["seconds"]})
            if _shareable(record["identity"]):
                shared[record["identity"]] = record
    for host_params, target, identity in copies:
        record = {**shared[identity], "host": host_params.name, "filled_from": shared[identity]["host"]}
        wb.store.write_json(record_path(host_params.name, target.name), record)
    wb.store.write_json(STATUS_FILE, {"engine": engine.name, "data": data, "targets": done,
                                      "unfilled_read_by": reads if unfilled else []})
    return done


def _plan_fills(wb: Workbench, data: str | None) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]], list, list]:
    """What :func:`fill_targets` does to each target of each host (``data``: the engine's fill data, None
    when it cannot fill), decided before anything is written: each target's status, the records of the
    LUNs filled once for every host that sees them (by WWID), the targets to fill per host with their
    identities, and the targets another host's fill serves."""
    cfg = wb.cfg
    settings = cfg.precondition
    done: list[dict[str, Any]] = []
    shared: dict[str, dict[str, Any]] = {}  # a LUN's WWID -> its fill's record: one fill serves every host
    plans, copies = [], []  # (host, its targets to fill, their identities); (host, target, identity) filled elsewhere
    for host_params in cfg.hosts:
        targets = cfg.targets_of(host_params)
        if not targets:
            continue
        identities = target_identities(wb.host(host_params), targets)
        wanted = []
        for target in targets:
            status = {"host": host_params.name, "target": target.name}
            identity = identities[target.name]
            record = fill_record(wb, host_params, target, identity)
            if record is None and identity in shared and shared[identity]["path"] == target.path:
                copies.append((host_params, target, identity))
                done.append({**status, "action": "fill reused"})
            elif record is not None:
                done.append({**status, "action": "fill reused"})
                if _shareable(identity):
                    shared.setdefault(identity, record)
            elif settings.fill and target.writable and data is not None:
                wanted.append(target)
                if _shareable(identity):
                    shared.setdefault(identity, {"host": host_params.name, "path": target.path})  # filled below
            elif target.name in settings.filled_elsewhere:
                done.append({**status, "action": "filled elsewhere"})
            elif target.create and not settings.fill:
                done.append({**status, "action": "laid out"})  # the engine's layout wrote it with its data
            else:
                done.append({**status, "action": "unfilled"})
        if wanted:
            plans.append((host_params, wanted, identities))
    return done, shared, plans, copies


def _fill_host(wb: Workbench, host_params: HostParams, wanted: list[TargetParams], identities: dict[str, str]
               ) -> list[dict[str, Any]]:
    """Fill ``wanted`` on one host by the engine, read a sample of each back and record it; the records."""
    engine = wb.engine
    host = wb.host(host_params)
    sizes = target_sizes(host, wanted)
    working = {t.name: t.size_bytes or sizes[t.path] for t in wanted}
    for target in wanted:
        if not isinstance(working[target.name], int):
            raise RemoteError(f"{host_params.name}: the size of {target.name} ({target.path}) cannot be read "
                              f"({working[target.name]}): nothing was filled")
    results = engine.fill_targets(wb, host_params, wanted, working)
    completed = datetime.now(timezone.utc).isoformat(timespec="seconds")
    records = []
    for target in wanted:
        record = {"host": host_params.name, "target": target.name, "path": target.path,
                  "size_bytes": target.size_bytes, "working_set_bytes": working[target.name],
                  "identity": identities[target.name], "engine": engine.name, "data": engine.fill_data(wb.cfg),
                  **results[target.name], "completed_utc": completed,
                  "sample": read_sample(host, target, working[target.name])}
        wb.store.write_json(record_path(host_params.name, target.name), record)
        records.append(record)
    return records


def unfilled_message(unfilled: list[dict[str, Any]], reads: list[str], mode: str) -> str:
    """The refusal (or warning) of reads on targets never filled, naming each and what to do."""
    head = ("nothing was measured: " if mode == "refuse" else "WARNING: ") + (
        f"the workloads {', '.join(reads)} read targets never written by this campaign; an all-flash array answers "
        "reads of never-written blocks from its metadata, without touching flash (fantasy IOPS):")
    lines = [f"target {d['target']} on host {d['host']} is not filled" for d in unfilled]
    tail = ("fill it (allow_write: true; precondition.fill: true, the default), or name it in "
            "precondition.filled_elsewhere if it holds data written otherwise (a copy of the database)"
            + (", or set precondition.unfilled: warn" if mode == "refuse" else ""))
    return head + "\n- " + "\n- ".join(lines) + "\n" + tail

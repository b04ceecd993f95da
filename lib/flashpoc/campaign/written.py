"""What the campaign left on the targets it writes, so that its own data is known as its own.

When a phase that passed the safety gate ends (also on an error or Ctrl-C), the SHA-256 of the
first bytes of every target it may have written is recorded in ``written.json``, per host and
path, with the time (:func:`record`). The next safety gate and check hand that record to the
probes' judgement (:func:`with_left`, :func:`flashpoc.hosts.safety.findings`): bytes exactly as the
campaign left them are the campaign's, whatever blkid reads in them. Bytes the phase did not
change are recorded only when the gate found nothing in them (or found them to be the campaign's
own already), so another owner's signature never becomes the campaign's.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from flashpoc.core.store import StoreError
from flashpoc.hosts.group import Group
from flashpoc.hosts.safety import header_digest
from flashpoc.hosts.targets import header_digests

if TYPE_CHECKING:
    from flashpoc.hosts.workbench import Workbench
    from flashpoc.params import HostParams, TargetParams

#: the record in the campaign's results: ``{"hosts": {host: {path: {"target", "header_sha256", "at"}}}}``
WRITTEN_FILE = "written.json"


def left_records(store) -> dict[str, dict[str, dict[str, Any]]]:
    """The recorded first bytes of the targets, by host and path; {} when none is recorded or the
    record is unreadable (then every target is judged as found)."""
    try:
        hosts = store.read_json(WRITTEN_FILE).get("hosts")
    except (StoreError, AttributeError):
        return {}
    if not isinstance(hosts, dict):
        return {}
    return {host: {path: entry for path, entry in paths.items() if isinstance(entry, dict)}
            for host, paths in hosts.items() if isinstance(paths, dict)}


def with_left(targets_facts: Iterable[dict[str, Any]], left: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """``targets_facts`` (one host's, :func:`flashpoc.hosts.facts.collect_host_facts`), each with the
    record of what the campaign left at its path (``left_by_campaign``) where there is one."""
    return [{**facts, "left_by_campaign": left[facts.get("path")]} if facts.get("path") in left else facts
            for facts in targets_facts]


def gated(host_params: HostParams, target: TargetParams, facts: dict[str, Any], found: list) -> tuple:
    """What :func:`record` needs of a target the safety gate let through: its host, itself, the
    digest of its first bytes then (None when unread or missing) and whether another owner's data
    was found in them (``found``: :func:`flashpoc.hosts.safety.findings`)."""
    header_hex = facts.get("header_hex")
    before = header_digest(bytes.fromhex(header_hex)) if header_hex else None
    return host_params, target, before, any(f.kind == "data" for f in found)


#: seconds the record waits for a host's answer: it runs as the phase ends, also after Ctrl-C or a
#: host that stopped answering, and must not hold the end up for a host's whole command timeout
RECORD_TIMEOUT_S = 20.0


class RecordWarning(UserWarning):
    """What the phase left on its targets could not be recorded (the next gate judges what it finds)."""


def record(wb: Workbench, gated_targets: list[tuple]) -> None:
    """Record the first bytes of each of ``gated_targets`` (:func:`gated`) as the phase leaves them
    (:func:`left_after`), every host at once, each within :data:`RECORD_TIMEOUT_S`. A host that does
    not answer is left as recorded before: the record only spares the campaign's own data, so without
    it the next gate judges what it finds; a record that cannot be written is a :class:`RecordWarning`."""
    if not gated_targets:
        return
    records = left_records(wb.store)
    at = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    by_host: dict[str, list[tuple]] = {}
    for item in gated_targets:
        by_host.setdefault(item[0].name, []).append(item)
    hosts = [items[0][0] for items in by_host.values()]

    def digests(params: HostParams) -> dict[str, str | None]:
        return header_digests(wb.host(params), [t for _, t, _, _ in by_host[params.name]], timeout_s=RECORD_TIMEOUT_S)

    read = Group(hosts).map(digests, purpose="read the targets' first bytes")
    for name, after in read.succeeded.items():
        records[name] = left_after(records.get(name, {}), [(t, before, foreign, after.get(t.path))
                                                           for _, t, before, foreign in by_host[name]], at)
    try:
        wb.store.write_json(WRITTEN_FILE, {"hosts": {host: paths for host, paths in records.items() if paths}})
    except (OSError, StoreError) as error:
        warnings.warn(f"what the phase left on its targets was not recorded ({error}): the next safety gate "
                      "judges them as it finds them", RecordWarning, stacklevel=2)


def left_after(recorded: dict[str, dict[str, Any]], targets: list[tuple], at: str) -> dict[str, dict[str, Any]]:
    """One host's record (by path) once a phase ends (pure): ``targets`` are ``(target, digest
    before, another owner's data found before, digest after)``. A target is recorded with its
    digest after unless that is None (unread), or another owner's data was found before in bytes the
    phase left unchanged or that could not be read then (so cannot be shown changed); then its
    record is dropped."""
    out = dict(recorded)
    for target, before, foreign, after in targets:
        if after is None or (foreign and (before is None or after == before)):
            out.pop(target.path, None)
        else:
            out[target.path] = {"target": target.name, "header_sha256": after, "at": at}
    return out

"""Environment check: can every host run the campaign's engine and workloads on its targets?

``check_environment(campaign)`` collects the facts of every host in parallel
(:func:`flashpoc.hosts.facts.collect_host_facts`, one command per host), evaluates them and
returns a table with one row per (host, check)::

    host   check                value        status  detail
    db1    reachable            yes          pass    root@10.0.0.5:22
    db1    fio                  3.33         pass    /usr/bin/fio (fio-3.33)
    db1    target lun1: exists  block        pass    /dev/mapper/lun1
    ...
    (campaign) working set      107374182400 pass    1 target: 100.0 GiB

``status`` is ``pass``, ``warn`` or ``fail``. A host that cannot be reached gives one
``fail`` row (``reachable``; ``facts`` when it answered but the facts could not be
collected) and the other hosts are still checked. :func:`verdict` sums
the table up; :func:`require_pass` raises :class:`~flashpoc.core.errors.CheckFailed` listing
every failed row, so no I/O runs on a broken setup. Evaluation (:func:`evaluate_facts`,
:func:`flashpoc.engines.checks.evaluate_campaign`) is pure and works on recorded fact dicts. The facts per host
are kept in ``df.attrs["facts"]`` (``{host name: facts dict or None}``) for the manifest.
Each engine adds its own rows (``engines/<name>/check.py``, through
:meth:`flashpoc.engines.base.Engine.check_host` and :meth:`~flashpoc.engines.base.Engine.check_campaign`):
fio's version per host, vdbench and Java, SLOB and its database.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pandas as pd

from flashpoc.campaign import environment, written
from flashpoc.hosts import safety
from flashpoc.core.records import CAMPAIGN_ROW_HOST, COLUMNS, Row, check_row, format_bytes
from flashpoc.engines.checks import CLOCK_SKEW_WARN_MS
from flashpoc.core.errors import CheckFailed, RemoteError
from flashpoc.params import Campaign, HostParams, TargetParams
from flashpoc.hosts import host as _hosts
from flashpoc.hosts.facts import HOST_TOOLS, collect_host_facts
from flashpoc.hosts.group import MAX_PARALLEL_HOSTS, Group
from flashpoc.hosts.paths import Settled, controller, merged, settle_host, with_paths

# -- pure evaluation -------------------------------------------------------------------
def evaluate_facts(campaign: Campaign, host_params: HostParams, facts: dict[str, Any]) -> list[Row]:
    """Evaluate one host's facts against the campaign (no I/O).

    Args:
        campaign: the campaign; its targets used by ``host_params`` are checked.
        host_params: the host the facts come from.
        facts: parsed facts (:func:`flashpoc.hosts.facts.parse_facts`) of that host.

    Returns:
        Rows (dicts with the keys of :data:`COLUMNS`): os, kernel, cpus, memory, fio, then
        per target: exists, size, free space, O_DIRECT, device, scheduler, queue depth
        (rows that do not apply, such as the size of a missing file, are left out).
    """
    host = host_params.name
    rows = [
        check_row(host, "os", facts.get("os") or "unknown", "pass", facts.get("hostname") or ""),
        check_row(host, "kernel", facts.get("kernel") or "unknown", "pass"),
    ]
    cpus = facts.get("cpus")
    rows.append(check_row(host, "cpus", cpus, "pass" if cpus else "warn",
                     "online CPUs" if cpus else "could not count the CPUs"))
    memory = facts.get("mem_total_bytes")
    rows.append(check_row(host, "memory", memory, "pass" if memory else "warn",
                     "MemTotal (/proc/meminfo)" if memory else "could not read MemTotal from /proc/meminfo", unit="bytes"))
    rows.append(_clock_row(host, facts))
    rows.append(_tools_row(host, facts))
    rows += campaign.engine_object.check_host(campaign, host, host_params, facts)
    by_path = {t["path"]: t for t in facts.get("targets") or []}
    for target in campaign.targets_of(host_params):
        tfacts = by_path.get(target.path)
        if tfacts is None:
            rows.append(check_row(host, f"target {target.name}: exists", None, "fail",
                             f"no facts were collected for {target.path}"))
            continue
        rows.extend(_evaluate_target(campaign, host, target, tfacts))
    return rows + environment.host_rows(campaign, host_params, facts)


def _tools_row(host: str, facts: dict[str, Any]) -> Row:
    """Whether the host has the tools the workbook calls on it (:data:`flashpoc.hosts.facts.HOST_TOOLS`)."""
    missing = str(facts.get("tools_missing") or "").split()
    if not missing:
        return check_row(host, "host tools", None, "warn", "could not tell which tools the host has")
    if missing == ["none"]:
        return check_row(host, "host tools", "all found", "pass", ", ".join(HOST_TOOLS))
    return check_row(host, "host tools", " ".join(missing), "warn",
                     "; ".join(f"no {tool}: {HOST_TOOLS.get(tool, 'needed')}" for tool in missing))


def _clock_row(host: str, facts: dict[str, Any]) -> Row:
    offset, rtt = facts.get("clock_offset_ms"), facts.get("clock_rtt_ms")
    if offset is None:
        return check_row(host, "clock", None, "warn", "could not read the host clock (date +%s%N)")
    detail = (f"{abs(offset):,.0f} ms {'ahead of' if offset >= 0 else 'behind'} the controller "
              f"(+/- {rtt / 2:,.0f} ms)")
    if abs(offset) - rtt / 2 > CLOCK_SKEW_WARN_MS:
        return check_row(host, "clock", offset, "warn",
                    f"{detail}: time series and the times in results are off by as much; sync it (chrony, NTP)", "ms")
    return check_row(host, "clock", offset, "pass", detail, "ms")


def _evaluate_target(campaign: Campaign, host: str, target: TargetParams, facts: dict[str, Any]) -> list[Row]:
    """The rows of one target on one host: exists, data safety, size, free space, O_DIRECT, then
    its device; a target that is missing (and not to be created) or of another kind stops at exists."""
    kind = facts.get("type")
    creating = kind == "missing" and bool(target.create)
    rows = [_exists_row(host, target, facts, creating)]
    if kind not in ("block", "file") and not creating:
        return rows
    if not creating:
        # data safety: what a write would destroy (read-only probes)
        rows += [_safety_row(campaign, host, target, facts), _size_row(host, target, facts)]
    if kind != "block":  # a block device has no file system to fill
        rows.append(_free_space_row(host, target, facts, creating))
    rows.append(_direct_row(campaign, host, target, facts, creating))
    return rows + _device_rows(host, target, facts)


def _exists_row(host: str, target: TargetParams, facts: dict[str, Any], creating: bool) -> Row:
    """The ``exists`` row: a block device or file, a file to create (with room for it), else a fail."""
    check, path, kind = f"target {target.name}: exists", target.path, facts.get("type")
    if kind in ("block", "file"):
        return check_row(host, check, kind, "pass", path)
    if creating:
        wanted, free = target.size_bytes, facts.get("free_bytes")
        assert wanted is not None  # the schema requires a size with create: true
        if not facts.get("parent_exists"):
            status, detail = "fail", f"{path}: the directory {_parent(path)} does not exist"
        elif facts.get("parent_writable") is False:
            status, detail = "fail", f"{path}: the directory {_parent(path)} is not writable"
        elif free is None:
            status, detail = "warn", f"will be created ({format_bytes(wanted)}); free space unknown"
        elif free < wanted:
            status, detail = "fail", (f"cannot be created: needs {format_bytes(wanted)}, "
                                      f"{format_bytes(free)} free in {_parent(path)}")
        else:
            status, detail = "pass", f"will be created ({format_bytes(wanted)})"
        return check_row(host, check, "missing", status, detail)
    if kind == "missing" and path.startswith("/dev/"):
        return check_row(host, check, "missing", "fail",
                    f"{path} does not exist on {host}: a device is never created; is the LUN mapped to this "
                    "host and its path up (lsblk, multipath -ll, the array's host mapping), or is the path "
                    "misspelt?")
    if kind == "missing":
        return check_row(host, check, "missing", "fail",
                    f"{path} does not exist (set create: true and a size for a scratch file)")
    return check_row(host, check, kind, "fail",
                f"{path} is {'a ' + kind if kind else 'of unknown type'}, not a block device or file")


def _size_row(host: str, target: TargetParams, facts: dict[str, Any]) -> Row:
    """The ``size`` row of an existing target, against the working set it must hold."""
    check, path, kind = f"target {target.name}: size", target.path, facts.get("type")
    actual, wanted = facts.get("size_bytes"), target.size_bytes
    if actual is None:
        return check_row(host, check, None, "warn", f"cannot read the size of {path}")
    if wanted is not None and actual < wanted:
        hint = "; remove it to have it created again" if target.create and kind == "file" else ""
        return check_row(host, check, actual, "fail",
                    f"{format_bytes(actual)} is smaller than size {target.size} ({format_bytes(wanted)}){hint}", "bytes")
    if wanted is None and actual == 0:
        return check_row(host, check, actual, "fail", "empty, and no size parameter to lay it out", "bytes")
    if wanted is None:
        return check_row(host, check, actual, "pass", f"{format_bytes(actual)}, all of it used", "bytes")
    return check_row(host, check, actual, "pass", f"{format_bytes(actual)}; working set {format_bytes(wanted)}", "bytes")


def _free_space_row(host: str, target: TargetParams, facts: dict[str, Any], creating: bool) -> Row:
    """The ``free space`` row of a file target (room to create it when it is to be created)."""
    check, free, wanted = f"target {target.name}: free space", facts.get("free_bytes"), target.size_bytes
    if free is None:
        return check_row(host, check, None, "warn", "cannot read the free space (df)")
    if creating and wanted is not None and free < wanted:
        return check_row(host, check, free, "fail",
                    f"{format_bytes(free)} free, {format_bytes(wanted)} needed to create {target.path}", "bytes")
    return check_row(host, check, free, "pass", f"free on the file system of {_parent(target.path)}", "bytes")


def _direct_row(campaign: Campaign, host: str, target: TargetParams, facts: dict[str, Any], creating: bool) -> Row:
    """The ``O_DIRECT`` row: whether the target (or a file next to one to create) reads with iflag=direct."""
    check, direct, error = f"target {target.name}: O_DIRECT", facts.get("direct"), facts.get("direct_error") or ""
    tested = "a temporary file next to it" if creating else target.path
    if not campaign.engine_object.direct_io(campaign):
        return check_row(host, check, direct, "warn", "fio.direct is false: reads may be served from the host's page cache")
    if direct is True:
        return check_row(host, check, True, "pass", f"read with iflag=direct from {tested}")
    if direct is False:
        hint = ("the file system does not support O_DIRECT"
                if "Invalid argument" in error else "reading with iflag=direct failed")
        return check_row(host, check, False, "fail", f"{hint} ({tested}){': ' + error if error else ''}; fio.direct is true")
    return check_row(host, check, None, "warn", f"could not test O_DIRECT on {tested}")


def _device_rows(host: str, target: TargetParams, facts: dict[str, Any]) -> list[Row]:
    """The device, scheduler and queue depth rows of the block device behind a target (information)."""
    name, device = f"target {target.name}", facts.get("device")
    if device is None:
        return [check_row(host, f"{name}: device", None, "warn",
                     f"no block device found behind {target.path} (source {facts.get('source') or 'unknown'})")]
    detail = f"source {facts.get('source')}"
    if facts.get("slaves"):
        detail += f"; on {facts['slaves']}"
    if facts.get("rotational"):
        rows = [check_row(host, f"{name}: device", device, "warn",
                     f"{detail}; reports rotational=1 (a spinning disk, or a virtual disk that says so)")]
    else:
        rows = [check_row(host, f"{name}: device", device, "pass", detail)]
    rows.append(check_row(host, f"{name}: scheduler", facts.get("scheduler"), "pass",
                     f"/sys/block/{device}/queue/scheduler"))
    depth, requests = facts.get("queue_depth"), facts.get("nr_requests")
    rows.append(check_row(host, f"{name}: queue depth", depth if depth is not None else requests, "pass",
                     f"device queue_depth={depth if depth is not None else 'n/a'}, nr_requests={requests}"))
    return rows


def write_verdict(campaign: Campaign, host: str, target: TargetParams, found: list[safety.Finding]
                  ) -> tuple[str, str]:
    """``(status, detail)`` of writing to ``target`` on ``host`` given what its probes found
    (:func:`flashpoc.hosts.safety.findings`): what :func:`flashpoc.hosts.safety.verdict` says, with
    the campaign's ``destroy_data_on``."""
    return safety.verdict(target.name, host, found, destroy_allowed=target.name in campaign.destroy_data_on)


def _safety_row(campaign: Campaign, host: str, target: TargetParams, facts: dict[str, Any]) -> Row:
    """The ``data safety`` row of an existing target (see :mod:`flashpoc.hosts.safety`)."""
    name = f"target {target.name}: data safety"
    found = safety.findings(facts)
    if not campaign.written(target):
        detail = "; ".join(f.text for f in found) or "nothing found"
        return check_row(host, name, "read-only", "pass", f"only read (no workload writes); {detail}")
    return check_row(host, name, "written", *write_verdict(campaign, host, target, found))


def _parent(path: str) -> str:
    return path.rsplit("/", 1)[0] or "/"


def parameter_rows(campaign: Campaign) -> list[Row]:
    """One ``warn`` row per warning of the parameters (:attr:`flashpoc.params.Campaign.warnings`):
    check ``parameters``, the key as its value."""
    return [check_row(CAMPAIGN_ROW_HOST, "parameters", key, "warn", text)
            for key, _, text in (warning.partition(": ") for warning in campaign.warnings)]


# -- collection ------------------------------------------------------------------------
def _where(params: HostParams) -> str:
    if params.is_local:
        return f"{params.address} (local)"
    return f"{params.user + '@' if params.user else ''}{params.address}:{params.port}"


def _check_host(campaign: Campaign, params: HostParams, connect: Callable[[HostParams], Any],
                left: dict[str, dict[str, Any]]) -> tuple[list[Row], dict[str, Any] | None, Settled | None]:
    """The rows of one host, its facts and its paths (:func:`flashpoc.hosts.paths.settle_host`): its
    paths are made canonical and judged first; a refused one is a ``fail`` row, and nothing more is
    done on the host (the facts' O_DIRECT probe writes next to a file to create). ``left``: what the
    campaign left at the host's paths (:mod:`flashpoc.campaign.written`)."""
    try:
        with connect(params) as host:
            settled = settle_host(campaign, host)
            if settled.problems:
                return [check_row(params.name, "reachable", "yes", "pass", _where(params))] + _path_rows(
                    params.name, settled.problems), None, settled
            mine = with_paths(campaign, settled.expanded)  # the paths as expanded on this host
            params = next(h for h in mine.hosts if h.name == params.name)
            targets = mine.targets_of(params)
            facts = collect_host_facts(host, [t.path for t in targets],
                                       creating=[t.path for t in targets if t.create and mine.written(t)])
            facts["targets"] = written.with_left(facts["targets"], left)
    except (RemoteError, OSError, EOFError) as error:
        return [check_row(params.name, "reachable", "no", "fail", str(error) or type(error).__name__)], None, None
    except Exception as error:  # noqa: BLE001 - one host's failure must not hide the others
        return [check_row(params.name, "facts", None, "fail",
                     f"collecting the host facts failed: {type(error).__name__}: {error}")], None, None
    rows = [check_row(params.name, "reachable", "yes", "pass", _where(params))]
    return rows + evaluate_facts(mine, params, facts), facts, settled


def _path_rows(host: str, problems: list[str]) -> list[Row]:
    """One ``fail`` row per refused path (:mod:`flashpoc.hosts.paths`), named after its key."""
    return [check_row(host, f"path {line.partition(': ')[0]}", None, "fail", line) for line in problems]


def check_environment(campaign: Campaign, *, connect: Callable[[HostParams], Any] = _hosts.connect,
                      left: dict[str, dict[str, dict[str, Any]]] | None = None) -> pd.DataFrame:
    """Check every host of ``campaign`` (in parallel) and return one row per (host, check).

    Args:
        campaign: the campaign; relative target paths and key files are resolved first.
        connect: returns a host object for a ``HostParams`` (tests pass a fake).
        left: what the campaign left on its targets, by host and path
            (:func:`flashpoc.campaign.written.left_records`): its own data is not another owner's.

    Returns:
        A DataFrame with columns host, check, value, status ('pass', 'warn' or 'fail') and
        detail, hosts in parameter order, then the campaign-level rows;
        ``df.attrs["facts"]`` maps each host name to its facts (None when unreachable).
    """
    campaign = campaign.resolved()
    # a host that fails is its rows (_check_host answers for every host), so the others are still checked
    left = left or {}
    results = list(Group(campaign.hosts, max_workers=MAX_PARALLEL_HOSTS, strict=True).map(
        lambda params: _check_host(campaign, params, connect, left.get(params.name, {})), purpose="check the host"))
    rows = [row for host_rows, _, _ in results for row in host_rows]
    facts_by_host = {params.name: facts for params, (_, facts, _) in zip(campaign.hosts, results)}
    own = settle_host(campaign, controller(), own=True)  # results, key files, the SQL script: this machine's
    settled = [own] + [s for _, _, s in results if s is not None]
    expanded, conflicts = merged(campaign, settled)
    rows += _path_rows(CAMPAIGN_ROW_HOST, own.problems + conflicts)
    if not any(s.problems for s in settled) and not conflicts:  # the engine's checks write job files in the workdirs
        rows += campaign.engine_object.check_campaign(expanded, facts_by_host, connect)
    rows += parameter_rows(campaign)
    df = pd.DataFrame(rows, columns=COLUMNS)
    df.attrs["facts"] = facts_by_host
    df.attrs["database_facts"] = next((r[environment.FACTS_KEY] for r in rows if environment.FACTS_KEY in r), None)
    df.attrs["database_storage"] = next((r[environment.STORAGE_KEY] for r in rows if environment.STORAGE_KEY in r), None)
    return df


# -- verdict ---------------------------------------------------------------------------
def verdict(df: pd.DataFrame) -> str:
    """Return 'fail' when any row failed, else 'warn' when any row warned, else 'pass'."""
    statuses = set(df["status"])
    return "fail" if "fail" in statuses else "warn" if "warn" in statuses else "pass"


def require_pass(df: pd.DataFrame) -> None:
    """Raise when any check failed (warnings are allowed).

    Raises:
        CheckFailed: listing every failed row as ``host / check: detail``.
    """
    failed = df[df["status"] == "fail"]
    if failed.empty:
        return
    lines = [f"  {r.host} / {r.check}: {r.detail}" for r in failed.itertuples(index=False)]
    raise CheckFailed(f"environment check failed ({len(failed)} failure(s)):\n" + "\n".join(lines))


def verdict_text(df: pd.DataFrame) -> str:
    """A Markdown sentence with the verdict and what to look at."""
    result = verdict(df)
    hosts = sorted(h for h in set(df["host"]) if h != "(campaign)")
    counts = df["status"].value_counts()
    tally = ", ".join(f"{counts.get(s, 0)} {s}" for s in ("pass", "warn", "fail"))
    if result == "fail":
        failed = df[df["status"] == "fail"]
        items = "; ".join(f"{r.host} / {r.check}: {r.detail}" for r in failed.itertuples(index=False))
        return f"**Verdict: FAIL** ({tally}) on {len(hosts)} host(s). Fix before any I/O: {items}"
    if result == "warn":
        warned = df[df["status"] == "warn"]
        items = "; ".join(f"{r.host} / {r.check}: {r.detail}" for r in warned.itertuples(index=False))
        return f"**Verdict: PASS with warnings** ({tally}) on {len(hosts)} host(s): {items}"
    return f"**Verdict: PASS** ({tally}) on {len(hosts)} host(s)."

"""Environment check: can every host run the campaign's fio workloads on its targets?

``check_environment(campaign)`` collects the facts of every host in parallel
(:func:`flashpoc.run.facts.collect_host_facts`, one command per host), evaluates them and
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
the table up; :func:`require_pass` raises :class:`~flashpoc.errors.CheckFailed` listing
every failed row, so no I/O runs on a broken setup. Evaluation (:func:`evaluate_facts`,
:func:`evaluate_campaign`) is pure and works on recorded fact dicts. The facts per host
are kept in ``df.attrs["facts"]`` (``{host name: facts dict or None}``) for the manifest.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pandas as pd

from . import safety
from .engines import get_engine
from .errors import CheckFailed, RemoteError
from .params import Campaign, HostParams, TargetParams, parse_size
from .run import hosts as _hosts
from .run.facts import collect_host_facts

COLUMNS = ["host", "check", "value", "status", "detail"]
CAMPAIGN_ROW_HOST = "(campaign)"  # not a valid host name, so it cannot collide with one
MIN_FIO_VERSION = (3, 0)
MAX_PARALLEL_HOSTS = 32
CLOCK_SKEW_WARN_MS = 500.0
"""A host clock further than this from the controller's or another host's (beyond the error
of the reading) is a warning: per-second time series of the hosts no longer line up."""
FIO_VERSION_RE = re.compile(r"fio-(\d+)\.(\d+)")

Row = dict[str, Any]


def _row(host: str, check: str, value: Any, status: str, detail: str = "") -> Row:
    return {"host": host, "check": check, "value": value, "status": status, "detail": detail}


def format_bytes(value: int | None) -> str:
    """Return ``value`` as ``16.0 MiB``-style text (binary units), or ``unknown``."""
    if value is None:
        return "unknown"
    size = float(value)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(size) < 1024 or unit == "TiB":
            return f"{int(size)} B" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")


def parse_fio_version(text: str | None) -> tuple[int, int] | None:
    """Return (major, minor) from ``fio --version`` output such as ``fio-3.33``, or None."""
    match = FIO_VERSION_RE.search(text or "")
    return (int(match.group(1)), int(match.group(2))) if match else None


# -- pure evaluation -------------------------------------------------------------------
def evaluate_facts(campaign: Campaign, host_params: HostParams, facts: dict[str, Any]) -> list[Row]:
    """Evaluate one host's facts against the campaign (no I/O).

    Args:
        campaign: the campaign; its targets used by ``host_params`` are checked.
        host_params: the host the facts come from.
        facts: parsed facts (:func:`flashpoc.run.facts.parse_facts`) of that host.

    Returns:
        Rows (dicts with the keys of :data:`COLUMNS`): os, kernel, cpus, memory, fio, then
        per target: exists, size, free space, O_DIRECT, device, scheduler, queue depth
        (rows that do not apply, such as the size of a missing file, are left out).
    """
    host = host_params.name
    rows = [
        _row(host, "os", facts.get("os") or "unknown", "pass", facts.get("hostname") or ""),
        _row(host, "kernel", facts.get("kernel") or "unknown", "pass"),
    ]
    cpus = facts.get("cpus")
    rows.append(_row(host, "cpus", cpus, "pass" if cpus else "warn",
                     "online CPUs" if cpus else "could not count the CPUs"))
    memory = facts.get("mem_total_bytes")
    rows.append(_row(host, "memory", memory, "pass" if memory else "warn",
                     format_bytes(memory) if memory else "could not read MemTotal from /proc/meminfo"))
    rows.append(_clock_row(host, facts))
    rows += get_engine(campaign.engine).check_host(campaign, host, host_params, facts)
    by_path = {t["path"]: t for t in facts.get("targets") or []}
    for target in campaign.targets_of(host_params):
        tfacts = by_path.get(target.path)
        if tfacts is None:
            rows.append(_row(host, f"target {target.name}: exists", None, "fail",
                             f"no facts were collected for {target.path}"))
            continue
        rows.extend(_evaluate_target(campaign, host, target, tfacts))
    return rows


def _clock_row(host: str, facts: dict[str, Any]) -> Row:
    offset, rtt = facts.get("clock_offset_ms"), facts.get("clock_rtt_ms")
    if offset is None:
        return _row(host, "clock", None, "warn", "could not read the host clock (date +%s%N)")
    detail = (f"{abs(offset):,.0f} ms {'ahead of' if offset >= 0 else 'behind'} the controller "
              f"(+/- {rtt / 2:,.0f} ms)")
    if abs(offset) - rtt / 2 > CLOCK_SKEW_WARN_MS:
        return _row(host, "clock", offset, "warn",
                    f"{detail}: time series and the times in results are off by as much; sync it (chrony, NTP)")
    return _row(host, "clock", offset, "pass", detail)


def _evaluate_fio(host: str, host_params: HostParams, facts: dict[str, Any]) -> Row:
    raw = facts.get("fio_version")
    if raw == "missing" or facts.get("fio_path") == "missing":
        return _row(host, "fio", "missing", "fail",
                    f"{host_params.fio!r} was not found on the host (install fio >= 3.0, or set the host's fio: path)")
    version = parse_fio_version(raw)
    where = f"{facts.get('fio_path')} ({raw or 'no version output'})"
    if version is None:
        return _row(host, "fio", raw, "warn", f"cannot tell the fio version: {where}")
    value = f"{version[0]}.{version[1]}"
    if version < MIN_FIO_VERSION:
        return _row(host, "fio", value, "warn",
                    f"{where} is older than 3.0: JSON output and latency units differ; upgrade fio")
    return _row(host, "fio", value, "pass", where)


def _evaluate_target(campaign: Campaign, host: str, target: TargetParams, facts: dict[str, Any]) -> list[Row]:
    name = f"target {target.name}"
    path = target.path
    kind = facts.get("type")
    wanted = target.size_bytes
    free = facts.get("free_bytes")
    rows: list[Row] = []

    # exists
    creating = False
    if kind in ("block", "file"):
        rows.append(_row(host, f"{name}: exists", kind, "pass", path))
    elif kind == "missing" and target.create:
        creating = True
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
        rows.append(_row(host, f"{name}: exists", "missing", status, detail))
    elif kind == "missing" and path.startswith("/dev/"):
        rows.append(_row(host, f"{name}: exists", "missing", "fail",
                         f"{path} does not exist on {host}: a device is never created; is the LUN mapped to this "
                         "host and its path up (lsblk, multipath -ll, the array's host mapping), or is the path "
                         "misspelt?"))
        return rows
    elif kind == "missing":
        rows.append(_row(host, f"{name}: exists", "missing", "fail",
                         f"{path} does not exist (set create: true and a size for a scratch file)"))
        return rows
    else:
        rows.append(_row(host, f"{name}: exists", kind, "fail",
                         f"{path} is {'a ' + kind if kind else 'of unknown type'}, not a block device or file"))
        return rows

    # data safety: what a write would destroy (read-only probes)
    if kind in ("block", "file"):
        rows.append(_safety_row(campaign, host, target, facts))

    # size
    actual = facts.get("size_bytes")
    if not creating:
        if actual is None:
            rows.append(_row(host, f"{name}: size", None, "warn", f"cannot read the size of {path}"))
        elif wanted is not None and actual < wanted:
            hint = "; remove it to have it created again" if target.create and kind == "file" else ""
            rows.append(_row(host, f"{name}: size", actual, "fail",
                             f"{format_bytes(actual)} is smaller than size {target.size} ({format_bytes(wanted)}){hint}"))
        elif wanted is None and actual == 0:
            rows.append(_row(host, f"{name}: size", actual, "fail", "empty, and no size parameter to lay it out"))
        elif wanted is None:
            rows.append(_row(host, f"{name}: size", actual, "pass", f"{format_bytes(actual)}, all of it used"))
        else:
            rows.append(_row(host, f"{name}: size", actual, "pass",
                             f"{format_bytes(actual)}; working set {format_bytes(wanted)}"))

    # free space (files only; a block device has no file system to fill)
    if kind != "block":
        if free is None:
            rows.append(_row(host, f"{name}: free space", None, "warn", "cannot read the free space (df)"))
        elif creating and wanted is not None and free < wanted:
            rows.append(_row(host, f"{name}: free space", free, "fail",
                             f"{format_bytes(free)} free, {format_bytes(wanted)} needed to create {path}"))
        else:
            rows.append(_row(host, f"{name}: free space", free, "pass", format_bytes(free)))

    # O_DIRECT
    direct = facts.get("direct")
    error = facts.get("direct_error") or ""
    tested = "a temporary file next to it" if creating else path
    if not campaign.engine_object.direct_io(campaign):
        rows.append(_row(host, f"{name}: O_DIRECT", direct, "warn",
                         "fio.direct is false: reads may be served from the host's page cache"))
    elif direct is True:
        rows.append(_row(host, f"{name}: O_DIRECT", True, "pass", f"read with iflag=direct from {tested}"))
    elif direct is False:
        hint = ("the file system does not support O_DIRECT"
                if "Invalid argument" in error else "reading with iflag=direct failed")
        rows.append(_row(host, f"{name}: O_DIRECT", False, "fail",
                         f"{hint} ({tested}){': ' + error if error else ''}; fio.direct is true"))
    else:
        rows.append(_row(host, f"{name}: O_DIRECT", None, "warn", f"could not test O_DIRECT on {tested}"))

    # device, scheduler, queue depth (information)
    device = facts.get("device")
    if device is None:
        rows.append(_row(host, f"{name}: device", None, "warn",
                         f"no block device found behind {path} (source {facts.get('source') or 'unknown'})"))
        return rows
    rotational = facts.get("rotational")
    detail = f"source {facts.get('source')}"
    if facts.get("slaves"):
        detail += f"; on {facts['slaves']}"
    if rotational:
        rows.append(_row(host, f"{name}: device", device, "warn",
                         f"{detail}; reports rotational=1 (a spinning disk, or a virtual disk that says so)"))
    else:
        rows.append(_row(host, f"{name}: device", device, "pass", detail))
    rows.append(_row(host, f"{name}: scheduler", facts.get("scheduler"), "pass",
                     f"/sys/block/{device}/queue/scheduler"))
    depth, requests = facts.get("queue_depth"), facts.get("nr_requests")
    rows.append(_row(host, f"{name}: queue depth", depth if depth is not None else requests, "pass",
                     f"device queue_depth={depth if depth is not None else 'n/a'}, nr_requests={requests}"))
    return rows


def write_verdict(campaign: Campaign, host: str, target: TargetParams, facts: dict[str, Any]) -> tuple[str, str]:
    """``(status, detail)`` of writing to ``target`` on ``host`` given its probed facts: what
    :func:`flashpoc.safety.verdict` says, with the campaign's ``destroy_data_on``."""
    return safety.verdict(target.name, host, safety.findings(facts),
                          destroy_allowed=target.name in campaign.destroy_data_on)


def _safety_row(campaign: Campaign, host: str, target: TargetParams, facts: dict[str, Any]) -> Row:
    """The ``data safety`` row of an existing target (see :mod:`flashpoc.safety`)."""
    name = f"target {target.name}: data safety"
    if not campaign.written(target):
        detail = "; ".join(f.text for f in safety.findings(facts)) or "nothing found"
        return _row(host, name, "read-only", "pass", f"only read (no workload writes); {detail}")
    return _row(host, name, "written", *write_verdict(campaign, host, target, facts))


def _parent(path: str) -> str:
    return path.rsplit("/", 1)[0] or "/"


def evaluate_campaign(campaign: Campaign, facts_by_host: dict[str, dict[str, Any] | None]) -> list[Row]:
    """Return the campaign-level rows: the working set (sum of the target sizes).

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
    rows = _shared_target_rows(campaign, facts_by_host) + _clock_skew_rows(facts_by_host)
    if unknown:
        return [_row(CAMPAIGN_ROW_HOST, "working set", total, "warn",
                     f"{detail}; size unknown: {', '.join(unknown)}")] + rows
    memories = [f.get("mem_total_bytes") for f in facts_by_host.values() if f and f.get("mem_total_bytes")]
    if not campaign.engine_object.direct_io(campaign) and memories and total <= max(memories):
        return [_row(CAMPAIGN_ROW_HOST, "working set", total, "warn",
                     f"{detail}; fits in host memory ({format_bytes(max(memories))}) and fio.direct is false")] + rows
    return [_row(CAMPAIGN_ROW_HOST, "working set", total, "pass", detail)] + rows


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
            rows.append(_row(CAMPAIGN_ROW_HOST, name, "no", "warn",
                             f"{target.path} is {listed}: not the same LUN or file on every host?"))
        elif sizes:
            seen = f"{format_bytes(next(iter(sizes.values())))} on {len(sizes)} of {len(users)} hosts"
            rows.append(_row(CAMPAIGN_ROW_HOST, name, "yes" if len(sizes) == len(users) else "partly",
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
    return [_row(CAMPAIGN_ROW_HOST, "clock skew between hosts", round(spread, 1), status,
                 detail + ("; sync the clocks (chrony, NTP)" if status == "warn" else ""))]


# -- collection ------------------------------------------------------------------------
def _where(params: HostParams) -> str:
    if params.is_local:
        return f"{params.address} (local)"
    return f"{params.user + '@' if params.user else ''}{params.address}:{params.port}"


def _check_host(campaign: Campaign, params: HostParams,
                connect: Callable[[HostParams], Any]) -> tuple[list[Row], dict[str, Any] | None]:
    paths = [t.path for t in campaign.targets_of(params)]
    try:
        with connect(params) as host:
            facts = collect_host_facts(host, paths)
    except (RemoteError, OSError, EOFError) as error:
        return [_row(params.name, "reachable", "no", "fail", str(error) or type(error).__name__)], None
    except Exception as error:  # noqa: BLE001 - one host's failure must not hide the others
        return [_row(params.name, "facts", None, "fail",
                     f"collecting the host facts failed: {type(error).__name__}: {error}")], None
    rows = [_row(params.name, "reachable", "yes", "pass", _where(params))]
    return rows + evaluate_facts(campaign, params, facts), facts


def check_environment(campaign: Campaign, *,
                      connect: Callable[[HostParams], Any] = _hosts.connect) -> pd.DataFrame:
    """Check every host of ``campaign`` (in parallel) and return one row per (host, check).

    Args:
        campaign: the campaign; relative target paths and key files are resolved first.
        connect: returns a host object for a ``HostParams`` (tests pass a fake).

    Returns:
        A DataFrame with columns host, check, value, status ('pass', 'warn' or 'fail') and
        detail, hosts in parameter order, then the campaign-level rows;
        ``df.attrs["facts"]`` maps each host name to its facts (None when unreachable).
    """
    campaign = campaign.resolved()
    workers = max(1, min(len(campaign.hosts), MAX_PARALLEL_HOSTS))
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="flashpoc-check") as pool:
        futures = [pool.submit(_check_host, campaign, params, connect) for params in campaign.hosts]
        results = [future.result() for future in futures]
    rows = [row for host_rows, _ in results for row in host_rows]
    facts_by_host = {params.name: facts for params, (_, facts) in zip(campaign.hosts, results)}
    rows += get_engine(campaign.engine).check_campaign(campaign, facts_by_host, connect)
    df = pd.DataFrame(rows, columns=COLUMNS)
    df.attrs["facts"] = facts_by_host
    return df


def _controller_fio_row(connect: Callable[[HostParams], Any], facts_by_host: dict[str, Any]) -> Row:
    """fio on this machine, which runs ``fio --client`` for several hosts: present, and the same
    release as on every host (fio's client/server protocol changes between releases, and a
    server drops a command of another protocol version: ``fio: bad server cmd version``)."""
    try:
        with connect(HostParams(name="controller", address="localhost")) as host:
            raw = host.run("fio --version", purpose="read the controller's fio version", check=False).stdout.strip()
    except (RemoteError, OSError) as error:
        raw = str(error)
    return controller_fio_row(raw, {name: (facts or {}).get("fio_version") for name, facts in facts_by_host.items()})


def controller_fio_row(raw: str, host_versions: dict[str, str | None]) -> Row:
    """The "fio on the controller" row from the controller's ``fio --version`` output and each
    host's (None for a host that was not reached; "missing" when it has no fio)."""
    version = parse_fio_version(raw)
    if version is None:
        return _row(CAMPAIGN_ROW_HOST, "fio on the controller", "missing", "fail",
                    "several hosts run through fio --client from this machine: install fio here "
                    "(or set fio.multi_host: per-host)")
    others = {name: seen for name, seen in host_versions.items()
              if parse_fio_version(seen) is not None and seen.strip() != raw}
    value = f"{version[0]}.{version[1]}"
    if others:
        listed = ", ".join(f"{seen.strip()} on {name}" for name, seen in others.items())
        return _row(CAMPAIGN_ROW_HOST, "fio on the controller", value, "fail",
                    f"{raw} here, {listed}: fio --client and fio --server must be the same release (their "
                    "protocol changes between releases); install the same fio on every host and here, or set "
                    "fio.multi_host: per-host")
    return _row(CAMPAIGN_ROW_HOST, "fio on the controller", value, "pass",
                f"{raw}: runs fio --client for the hosts, the same release as every host")


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


# -- vdbench -----------------------------------------------------------------------------
VDBENCH_BANNER_RE = re.compile(r"Vdbench distribution: (\S+)")


def check_vdbench(campaign: Campaign, *,
                  connect: Callable[[HostParams], Any] = _hosts.connect) -> list[Row]:
    """vdbench rows of the check: vdbench and Java on every host, ``vdbench -s`` accepting the
    probe's parmfile on the controller, the working set against the array cache, and with
    remote hosts, on the controller as vdbench's master will run: the address its slaves will
    call back ("slaves call back") and, for ``shell=ssh``/``rsh``, the command that starts each
    remote slave ("ssh to HOST").
    """
    from .errors import ParameterError
    from .engines.vdbench.plan import probe_run, render_parmfile, working_set
    from .engines.vdbench.run import run_vdbench, vdbench_executable

    campaign = campaign.resolved()
    rows: list[Row] = []
    ws = working_set(campaign)
    rows.append(_row(CAMPAIGN_ROW_HOST, "working set vs array cache",
                     None if ws["ratio"] is None else round(ws["ratio"], 1),
                     "warn" if ws["warning"] else "pass",
                     ws["warning"] or ("no array_cache given" if ws["ratio"] is None
                                       else f"{format_bytes(ws['working_set_bytes'])} is "
                                            f"{ws['ratio']:.1f}x the array cache")))
    try:
        parmfile = render_parmfile(campaign, [w.name for w in campaign.workloads], probe_run(campaign))
    except ParameterError as error:
        return rows + [_row(CAMPAIGN_ROW_HOST, "vdbench parmfile", None, "fail", str(error))]
    ctl_name = campaign.settings.controller or campaign.hosts[0].name
    for params in campaign.hosts:
        try:
            with connect(params) as host:
                exe = vdbench_executable(host)
                lines = host.run(f"if test -x {_hosts.quote(exe)} || command -v {_hosts.quote(exe)} >/dev/null; "
                                 "then echo vdbench=yes; else echo vdbench=no; fi; java -version 2>&1 | head -n 1",
                                 purpose="look for vdbench and Java", check=False).stdout.splitlines()
                found = "vdbench=yes" in lines
                java = next((line.strip() for line in lines if "version" in line), None)
                rows.append(_row(params.name, "vdbench", exe if found else "missing", "pass" if found else "fail",
                                 exe if found else f"{exe} not found: install vdbench or set the host's vdbench: dir"))
                rows.append(_row(params.name, "java", java or "missing", "pass" if java else "fail",
                                 "" if java else "java not found: vdbench needs a Java runtime"))
                if params.name == ctl_name and found:
                    rows += _vdbench_controller_rows(campaign, params, host, parmfile, run_vdbench)
        except (RemoteError, OSError, EOFError) as error:
            rows.append(_row(params.name, "vdbench", None, "fail", str(error)))
    return rows


def _vdbench_controller_rows(campaign: Campaign, params: HostParams, host: Any, parmfile: str,
                             run_vdbench: Callable[..., Any]) -> list[Row]:
    """The controller's rows: ``vdbench -s`` on the parmfile, then, with remote hosts, the
    address vdbench gives its slaves and the very command it starts each remote slave with."""
    from .engines.vdbench.plan import remote_hosts
    from .engines.vdbench.run import master_setup

    run_dir = f"{params.workdir}/{campaign.campaign}/check"
    setup = master_setup(campaign)
    run = run_vdbench(host, parmfile, run_dir, timeout_s=300, purpose="vdbench -s (simulate)", simulate=True,
                      setup=setup)
    banner = VDBENCH_BANNER_RE.search(run.console)
    tail = "\n".join(run.console.strip().splitlines()[-6:])
    rows = [_row(params.name, "vdbench -s parmfile", "accepted" if run.exit_code == 0 else f"exit {run.exit_code}",
                 "pass" if run.exit_code == 0 else "fail",
                 (banner.group(1) if banner else "simulate run") if run.exit_code == 0 else tail)]
    remote = remote_hosts(campaign)
    if not remote:
        return rows
    rows.append(_controller_address_row(campaign, params, host, run_dir, setup))
    if campaign.settings.shell == "vdbench":
        return rows
    for other in remote:
        if other.name != params.name:
            rows.append(_slave_shell_row(campaign, params, other, host, run_dir, setup))
    return rows


#: vdbench's master gives its slaves the address of its host name: Java's InetAddress.getLocalHost()
LOCALHOST_PROGRAM = """public class FlashpocLocalHost {
    public static void main(String[] args) throws Exception {
        java.net.InetAddress local = java.net.InetAddress.getLocalHost();
        System.out.println("flashpoc-localhost " + local.getHostName() + " " + local.getHostAddress());
    }
}
"""


def _controller_address_row(campaign: Campaign, params: HostParams, host: Any, run_dir: str, setup: Any) -> Row:
    """The address vdbench's master gives its slaves, as its Java resolves the host name (a
    one-line Java program run the way vdbench runs, with ``vdbench.controller_address``'s hosts
    file; ``getent ahosts`` where Java cannot run a source file, as Java 8 or a JRE without its
    compiler cannot)."""
    from .engines.vdbench.plan import remote_hosts
    from .engines.vdbench.run import master_prelude

    host.put_text(LOCALHOST_PROGRAM, f"{run_dir}/FlashpocLocalHost.java", purpose="write the address check")
    d = _hosts.quote(run_dir)
    out = host.run(f"cd {d} && {master_prelude(setup)}java FlashpocLocalHost.java 2>&1; echo \"name=$(hostname)\"; "
                   "echo \"own=$(hostname -I 2>/dev/null)\"; getent ahosts \"$(hostname)\" | sed 's/^/getent=/'",
                   purpose="resolve the controller's host name as vdbench does", check=False, timeout_s=120).stdout
    return controller_address_row(params.name, out, campaign.settings.controller_address,
                                  [h.address for h in remote_hosts(campaign)])


def controller_address_row(host: str, output: str, controller_address: str | None, addresses: list[str]) -> Row:
    """The "slaves call back" row from the address check's output (pure; see
    :func:`_controller_address_row`).

    vdbench starts a slave of each ``hd=`` host (``addresses``) whose address is not the one its
    Java resolves the host name to over ``shell=``, and gives it that address to call back:
    exactly 127.0.0.1 it refuses ("Invalid network definition for multi-host processing"), and
    another loopback address would make a slave on another machine call itself. With
    ``vdbench.controller_address`` Java must have resolved the host name to it.
    """
    lines = output.splitlines()
    name = next((line[5:] for line in lines if line.startswith("name=")), "") or "(unknown)"
    own = next((line[4:].split() for line in lines if line.startswith("own=")), [])
    java = next((line.split() for line in lines if line.startswith("flashpoc-localhost ")), None)
    resolved = [line[7:].split()[0] for line in lines if line.startswith("getent=") and len(line) > 7]
    if java is not None and len(java) == 3:
        address, how = java[2], "vdbench's Java resolves"
    elif resolved and controller_address is None:
        # Java's order: IPv4 addresses first (java.net.preferIPv6Addresses=false)
        address = next((a for a in resolved if ":" not in a), resolved[0])
        how = "getent (Java could not run the check program) resolves"
    else:
        error = " ".join(line.strip() for line in lines if line.strip() and not line.startswith(("name=", "own=",
                                                                                                  "getent=")))[-300:]
        return _row(host, "slaves call back", None, "fail",
                    f"could not resolve the host name {name} as vdbench's Java does: {error or 'no output'}")
    where = f"{how} the host name {name} to {address}"
    own_text = ", ".join(a for a in own if not _loopback(a)) or "none found"
    remote = [a for a in addresses if a != address]  # vdbench starts the others as local slaves
    if not remote:
        return _row(host, "slaves call back", address, "pass",
                    f"{where}: vdbench starts every slave on this host ({', '.join(addresses)})")
    if controller_address is not None and address != controller_address:
        return _row(host, "slaves call back", address, "fail",
                    f"{where}, not vdbench.controller_address {controller_address}: vdbench's Java did not read the "
                    "hosts file given to it (-Djdk.net.hosts.file needs Java 9 or later); map the host name to the "
                    "address in /etc/hosts instead")
    fix = (f"set vdbench.controller_address to this host's address that the other hosts reach (this host's: "
           f"{own_text}), or map {name} to it in /etc/hosts")
    if address == "127.0.0.1":
        return _row(host, "slaves call back", address, "fail",
                    f"{where}: vdbench refuses remote hosts then (\"Invalid network definition for multi-host "
                    f"processing\"); {fix}")
    if _loopback(address) and not all(_loopback(a) for a in remote):
        return _row(host, "slaves call back", address, "fail",
                    f"{where}, a loopback address: the slaves on {', '.join(a for a in remote if not _loopback(a))} "
                    f"would call themselves; {fix}")
    given = " (vdbench.controller_address)" if controller_address is not None else ""
    if own and address not in own and not _loopback(address):
        return _row(host, "slaves call back", address, "warn",
                    f"{where}{given}, which is not among this host's addresses ({own_text}): the slaves call it "
                    "back there")
    return _row(host, "slaves call back", address, "pass", f"{where}{given}; the slaves call the master there")


def _loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def _slave_shell_row(campaign: Campaign, params: HostParams, other: HostParams, host: Any, run_dir: str,
                     setup: Any) -> Row:
    """Run on the controller the command vdbench starts a slave of ``other`` with (``SHELL
    ADDRESS -l USER VDBENCH_DIR/vdbench SlaveJvm ...`` through ``/bin/bash -c``, stdin not a
    terminal, with the ssh wrapper first on the PATH), its remote part replaced by
    ``test -x VDBENCH_DIR/vdbench``."""
    from .engines.vdbench.run import master_prelude

    shell = campaign.settings.shell
    name = f"{shell} to {other.name}"
    i = campaign.hosts.index(other)
    if not other.user:
        return _row(params.name, name, None, "fail",
                    f"vdbench starts the slaves of {other.name} with '{shell} {other.address} -l USER': set "
                    f"hosts[{i}].user (vdbench's hd user=; without it vdbench stops)")
    directory = other.vdbench or params.vdbench
    launcher = f"{directory.rstrip('/')}/vdbench" if directory else None
    remote = ["test", "-x", launcher] if launcher else ["true"]
    command = _hosts.join([shell, other.address, "-l", other.user, *remote])
    d = _hosts.quote(run_dir)
    shown = f"{shell} {other.address} -l {other.user}"
    how = " (with the ssh config the workbook writes: port, key, known_hosts)" if setup.ssh_config else ""
    try:
        # vdbench's bash reads no ~/.bashrc (bash reads it when started, as here, right under sshd)
        result = host.run(f"cd {d} && {master_prelude(setup)}/bin/bash --norc -c {_hosts.quote(command)} </dev/null",
                          purpose=f"{shell} to {other.name} as vdbench does", check=False,
                          timeout_s=other.connect_timeout_s + 30)
    except RemoteError as error:
        return _row(params.name, name, "no answer", "fail", f"{shown}{how}: {error}")
    if result.ok:
        found = f"; {launcher} is there" if launcher else ""
        return _row(params.name, name, "ok", "pass", f"{shown}{how}: password-less{found}")
    error = (result.stderr.strip() or result.stdout.strip())[-300:]
    if result.exited != 255 and launcher:
        return _row(params.name, name, "no vdbench", "fail",
                    f"{shown}{how}: {launcher} is not there (vdbench starts its slaves with it; set hosts[{i}].vdbench)"
                    + (f": {error}" if error else ""))
    return _row(params.name, name, "refused", "fail",
                f"{shown}{how}: {error or 'failed'} (vdbench's shell={shell} needs password-less SSH from the "
                "controller)")


# -- SLOB and the database -----------------------------------------------------------------
def database_facts(oracle_params: Any) -> dict[str, Any]:
    """Connect with ``oracle_params`` (python-oracledb, thin) and return the database facts.

    Raises:
        ParameterError: the password variable is not set (before any network I/O).
        RemoteError: the database cannot be reached or a query failed.
    """
    from .run import oracle

    with oracle.connect(oracle_params.settings()) as conn:
        return oracle.database_facts(conn)


def evaluate_slob_host(campaign: Campaign, facts: dict[str, str]) -> list[Row]:
    """Rows for the DB host's SLOB facts (:func:`flashpoc.engines.slob.run.slob_host_facts`); pure."""
    slob, host = campaign.settings, campaign.db_host.name
    if facts.get("home") in (None, "missing"):
        return [_row(host, "SLOB home", slob.home, "fail",
                     f"no directory {slob.home!r} on the DB host: install SLOB there or set slob.home")]
    rows = [_row(host, "SLOB home", facts["home"], "pass", "")]
    has = {name: facts.get(f"file_{name}") == "yes" for name in ("runit.sh", "setup.sh", "slob.conf")}
    rows.append(_row(host, "runit.sh", "yes" if has["runit.sh"] else "missing", "pass" if has["runit.sh"] else "fail",
                     "" if has["runit.sh"] else f"{facts['home']} has no runit.sh: is it SLOB 2.5's directory?"))
    rows.append(_row(host, "slob.conf", "exists" if has["slob.conf"] else "none", "pass",
                     "the existing slob.conf is kept as slob.conf.before-flashpoc before the first run"
                     if has["slob.conf"] else "flashpoc writes slob.conf for every point"))
    writable = facts.get("writable") == "yes"
    rows.append(_row(host, "SLOB home writable", "yes" if writable else "no", "pass" if writable else "fail",
                     "" if writable else "runit.sh writes slob.conf and its reports there: give the SSH user "
                                         "write access"))
    if slob.env_file:
        ok = facts.get("env_file") == "yes"
        rows.append(_row(host, "environment file", slob.env_file, "pass" if ok else "fail",
                         "sourced before runit.sh" if ok else f"{slob.env_file} does not exist on the DB host"))
    sqlplus = facts.get("sqlplus", "missing")
    rows.append(_row(host, "sqlplus", sqlplus, "fail" if sqlplus == "missing" else "pass",
                     "runit.sh needs sqlplus: set slob.env_file to a file that sets ORACLE_HOME, ORACLE_SID "
                     "and PATH" if sqlplus == "missing" else ""))
    missing = [t for t in ("mpstat", "iostat", "vmstat") if facts.get(f"tool_{t}") != "yes"]
    rows.append(_row(host, "mpstat/iostat/vmstat", "missing " + ", ".join(missing) if missing else "yes",
                     "warn" if missing else "pass",
                     "SLOB records host CPU and device statistics with them: install sysstat" if missing else ""))
    if slob.sysdba_passwd_env:
        set_ = facts.get("passwd_env") == "set"
        rows.append(_row(host, "SYSDBA password variable", slob.sysdba_passwd_env, "pass" if set_ else "fail",
                         "set on the DB host (value not read)" if set_ else
                         f"export {slob.sysdba_passwd_env} on the DB host (e.g. in slob.env_file); slob.conf "
                         "refers to it and the password is never written"))
    return rows


def check_slob(campaign: Campaign, *, connect: Callable[[HostParams], Any] = _hosts.connect,
               oracle_facts: Callable[[Any], dict[str, Any]] = database_facts) -> list[Row]:
    """SLOB rows of the check: SLOB, sqlplus and the OS tools on the DB host, the database
    itself through python-oracledb when ``oracle`` is set, and the SLOB data set size.

    Args:
        campaign: a campaign with ``engine: slob``.
        connect: returns a host object for a ``HostParams``.
        oracle_facts: returns the database facts for ``campaign.oracle`` (tests pass recorded ones).
    """
    from .engines.slob.run import slob_host_facts

    slob, db = campaign.settings, campaign.db_host
    try:
        with connect(db) as host:
            facts = slob_host_facts(host, slob.home, slob.env_file, slob.sysdba_passwd_env)
        rows = evaluate_slob_host(campaign, facts)
    except (RemoteError, OSError, EOFError) as error:
        rows = [_row(db.name, "SLOB home", None, "fail", str(error))]
    data_bytes = slob.schemas * slob.scale_bytes
    detail = f"{slob.schemas} schemas x SCALE {slob.scale} = {format_bytes(data_bytes)}"
    status = "pass"
    if campaign.array_cache:
        ratio = data_bytes / parse_size(campaign.array_cache)
        detail += f", {ratio:.1f}x the array cache"
        if ratio < 10:
            status = "warn"
            detail += ": the array cache will serve reads; load more or larger schemas (setup.sh)"
    rows.append(_row(CAMPAIGN_ROW_HOST, "SLOB data set", data_bytes, status, detail))
    if campaign.oracle is None:
        rows.append(_row(CAMPAIGN_ROW_HOST, "database", "not checked", "warn",
                         "no oracle: connection given, so the database (version, filesystemio_options, buffer "
                         "cache, AWR licence, SLOB schemas) is not checked; set oracle.dsn and oracle.user"))
        return rows
    return rows + check_database(campaign, oracle_facts=oracle_facts)


def check_database(campaign: Campaign, *,
                   oracle_facts: Callable[[Any], dict[str, Any]] = database_facts) -> list[Row]:
    """The database rows of the check, for every engine with ``oracle`` set: connect through
    python-oracledb (fast failure: one ``fail`` row naming the DSN) and evaluate the facts
    the engine's way (:meth:`flashpoc.engines.base.Engine.check_database_facts`): for SLOB against its schemas and
    SCALE, for fio and vdbench the database's own settings (version, RAC, CDB,
    filesystemio_options, disk_asynch_io, snapshots for a ``sql_workload``, Direct NFS, ASM).
    """
    from .errors import FlashpocError

    try:
        dbfacts = oracle_facts(campaign.oracle)
    except FlashpocError as error:
        return [_row(CAMPAIGN_ROW_HOST, "database", campaign.oracle.dsn, "fail", str(error))]
    return get_engine(campaign.engine).check_database_facts(campaign, dbfacts)

"""fio's points: one fio job per host at once (or through fio's client/server mode), its
outputs parsed, the hosts combined into one row and stored."""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from flashpoc.engines import loop
from flashpoc.analysis import rows as rows_mod
from flashpoc.core.damage import DAMAGED, Loss, carry, note_loss
from flashpoc.core.errors import ParseError, RemoteError
from flashpoc.params import Campaign, HostParams, Workload
from flashpoc.core.records import Measured, PointSpec
from flashpoc.hosts.metrics import cpu_utilisation
from flashpoc.hosts import host as hostlib
from flashpoc.hosts.diskstats import DeviceSampler, devices_command, owned_devices, parse_devices
from flashpoc.hosts.group import Group
from flashpoc.hosts.targets import fill_timeout_s, make_target_directory
from flashpoc.core.store import HISTOGRAM_COLUMNS, HISTOGRAM_FILE, INTERVAL_COLUMNS, INTERVALS_FILE, table_text, write_atomic
from flashpoc.engines.fio import run as run_fio
from flashpoc.engines.fio.intervals import merge_intervals, read_interval_logs
from flashpoc.engines.fio.parse import (histogram_table, histogram_whole, latency_distribution, parse_fill_output,
                                        parse_fio_output, parse_fio_point, summarize_fio_point, written_ms)
from flashpoc.engines.fio.plan import FILL_BS, outstanding_ios, rate_per_job, render_fill_job, render_job, render_layout_job
from flashpoc.engines.fio.run import FioRun, fio_version, run_fio_job
from flashpoc.engines.fio.settings import SERVERS
from flashpoc.engines.fio.status import HostSeconds, StatusFeed

if TYPE_CHECKING:
    from flashpoc.hosts.workbench import Workbench

#: metrics summed over hosts; the other metrics are IOPS-weighted means over hosts
_SUMMED = ("iops", "read_iops", "write_iops", "bw_mibps", "read_bw_mibps", "write_bw_mibps")


def _engine_versions(wb: Workbench) -> dict[str, str]:
    if not wb.engine_versions:
        hosts = Group([wb.host(h) for h in wb.cfg.hosts], strict=True)  # every host without fio named
        wb.engine_versions = hosts.map(fio_version, purpose="read the fio version").succeeded
    return wb.engine_versions


def point_definition(wb: Workbench, spec: PointSpec) -> dict[str, Any]:
    """Everything that defines a run point; its hash names the point on disk. A point that ends
    once its IOPS are steady (``spec.steady``: fio's criterion and window) is another point than
    one of fixed length; the phase is not part of it (a probe point is the sweep's point of the
    same definition)."""
    cfg = wb.cfg
    steady, rate_iops = spec.steady, _rate_per_job(cfg, spec)
    until = {"until_steady": f"{steady[0]} over {steady[1]} s"} if steady else {}
    return {
        "engine": cfg.engine,
        "engine_versions": _engine_versions(wb),
        "workload": spec.workload.model_dump(mode="json", exclude={"description"}),
        "threads": spec.threads,
        "runtime_s": spec.runtime_s,
        "fio": cfg.settings.model_dump(mode="json"),
        "hosts": [h.model_dump(mode="json", include={"name", "address", "port"}) for h in cfg.hosts],
        "targets": [t.model_dump(mode="json", include={"name", "path", "size", "hosts"}) for t in cfg.targets],
        **until,
        **({"rate_iops": rate_iops} if rate_iops is not None else {}),
    }


def _rate_per_job(cfg: Campaign, spec: PointSpec) -> int | None:
    """fio's ``rate_iops`` of each job of a rate step (:func:`.plan.rate_per_job`), else None."""
    return rate_per_job(spec.rate[1], spec.threads, len(cfg.hosts)) if spec.rate is not None else None


def _aggregate_hosts(per_host: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Combine per-host summaries: rates summed, latencies and CPU IOPS-weighted; a figure some
    host lost (a damaged output, its ``damaged`` text carried) is lost, not the others' alone."""
    if len(per_host) == 1:
        return dict(next(iter(per_host.values())))
    out: dict[str, Any] = {}
    weights = {h: (s.get("iops") or 0.0) for h, s in per_host.items()}
    total_w = sum(weights.values()) or 1.0
    keys = set().union(*(s.keys() for s in per_host.values())) - {DAMAGED}
    for key in sorted(keys):
        values = {h: s.get(key) for h, s in per_host.items()}
        numbers = {h: v for h, v in values.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
        if numbers and len(numbers) < len(values):
            out[key] = None  # a host lost it: the others' figure would be another number
        elif key in _SUMMED:
            out[key] = sum(numbers.values())
        elif key == "steadystate_attained":
            flags = [v for v in values.values() if v is not None]
            out[key] = None if not flags else all(flags)
        elif numbers:
            out[key] = sum(v * weights[h] for h, v in numbers.items()) / total_w
        else:
            out[key] = next((v for v in values.values() if v is not None), None)
    out["percentiles_exact"] = False
    return carry(out, *(s.get(DAMAGED) for s in per_host.values()))


def measure_point(wb: Workbench, phase: str, workload: Workload, threads: int, *,
                  runtime_s: int | None = None, repeat: int = 0, steady: tuple[str, int] | None = None,
                  rate: tuple[float, float] | None = None) -> dict[str, Any]:
    """One point through the loop (:func:`flashpoc.campaign.loop.measure`); its row. ``runtime_s``
    defaults to ``fio.runtime_s``; see :class:`flashpoc.core.records.PointSpec` for the rest."""
    spec = PointSpec(phase, workload, threads, runtime_s or wb.cfg.settings.runtime_s, repeat=repeat, steady=steady,
                     rate=rate)
    return loop.measure_one(wb, spec)


def run_points(wb: Workbench, specs: list[PointSpec], keys: list[str], bar: Any = None) -> Iterator[Measured]:
    """fio measures its points one by one (:func:`run_point`), each second's figures handed to ``bar``."""
    return loop.each(specs, keys, bar, lambda spec, pid: run_point(wb, spec, pid, bar))


def run_point(wb: Workbench, spec: PointSpec, pid: str, bar: Any = None) -> tuple[dict[str, Any], dict[str, str]]:
    """Run one point on every host at once (fio's client/server mode with ``fio.multi_host:
    client-server``); its row and raw files.

    A rate step (``spec.rate``: ``(pct, total IOPS)``, at ``pct`` % of the uncontrolled maximum)
    runs fio's ``rate_iops`` on each job (:func:`.plan.rate_per_job`); its row has ``curve_pct``
    and ``iorate_requested`` (the IOPS asked for). A point that ends once steady (``spec.steady``,
    :func:`flashpoc.engines.fio.plan.until_steady`) says in ``measured_s`` when it did. While it runs,
    fio's status reports give ``bar`` (:meth:`flashpoc.present.progress.Progress.interval`) each second's IOPS,
    latency and MiB/s (every host's together, :func:`_live_feeds`); in client/server mode the hosts'
    device counters give each second's while it runs (:func:`_device_seconds`), and their interval
    logs fio's own seconds when the point ends (:func:`_logged_intervals`).

    Raises:
        RemoteError: naming the host and point when a host fails.
    """
    cfg = wb.cfg
    phase, workload, threads, runtime_s, steady, rate = (spec.phase, spec.workload, spec.threads, spec.runtime_s,
                                                         spec.steady, spec.rate)
    per_job = _rate_per_job(cfg, spec)
    purpose = f"{phase} {workload.name} {threads} threads" + (f" at {rate[0]:g} % of its maximum" if rate else "")
    started = time.perf_counter()
    runs, clients_output = _run_on_hosts(wb, spec, pid, per_job, purpose, _live_feeds(bar, cfg), bar)
    wall_s = time.perf_counter() - started
    try:
        per_host, metrics, raw = _host_results(cfg, runs, pid, threads, runtime_s)
    except ParseError as error:  # an output refused: kept with the error, not stored as a point
        raise ParseError(str(error), files={n: t for run in runs for n, t in run.files(logs=True).items()}
                         | ({"clients.json": clients_output} if clients_output is not None else {})) from None
    outstanding = outstanding_ios(workload, threads) * len(cfg.hosts)
    row = rows_mod.base_row(cfg, phase=phase, point_id=pid, engine=cfg.engine, workload=workload,
                            iodepth=workload.iodepth, threads=threads, outstanding=outstanding,
                            hosts=sorted(per_host), runtime_s=runtime_s, ramp_s=cfg.settings.ramp_s, repeat=spec.repeat,
                            wall_s=wall_s, overhead_s=wall_s - runtime_s - cfg.settings.ramp_s)
    row.update(metrics)
    if per_job is not None:
        row.update(curve_pct=rate[0], iorate_requested=per_job * threads * len(cfg.hosts))
    if steady is not None or cfg.settings.steadystate:  # ended early once steady: how long it ran
        row["until_steady"] = True
        row["fio_steadystate"] = (f"{cfg.settings.steadystate} over {cfg.settings.ss_dur_s} s" if cfg.settings.steadystate
                                  else f"{steady[0]} over {steady[1]} s")  # the rule that ended it
        row["measured_s"] = metrics["runtime_ms"] / 1000.0 if metrics.get("runtime_ms") else runtime_s
    rows_mod.add_littles_law(row)
    if len(per_host) > 1:
        row["per_host"] = {h: {k: s.get(k) for k in ("iops", "lat_mean_ms", "host_cpu_busy_pct")}
                           | {k: s[k] for k in _WINDOW if k in s} for h, s in per_host.items()}
    if clients_output is not None and len(cfg.hosts) > 1:
        _logged_intervals(bar, cfg, spec, raw)
    if clients_output is not None:
        raw["clients.json"] = clients_output
        row["all_clients_iops"] = summarize_fio_point(parse_fio_output(clients_output, source="clients.json"))["iops"]
    return row, raw


#: a host's measured window in a ``per-host`` point of several hosts (:func:`_hosts_apart`)
_WINDOW = ("measured_from_s", "measured_to_s")


def _hosts_apart(runs: list[FioRun], per_host: dict[str, dict[str, Any]], ramp_s: float
                 ) -> tuple[dict[str, Any], list[Loss]]:
    """How far apart the hosts of a ``per-host`` point measured, each host's fio started by a command of
    its own: each host's summary gets its measured window, ``measured_from_s`` and ``measured_to_s``
    (seconds since the epoch by the host's clock: when fio wrote its output, its jobs ended, less its
    runtime), and the row ``hosts_apart_s``, by how much the hosts' windows together outlast the
    shortest of them, and ``hosts_apart_pct``, that over the shortest, in percent: the most by which
    the hosts' summed IOPS can exceed a limit they share (an array's), each host counting alone the
    time it measured without the others. A window must lie within the host's clock read before its fio
    started (plus the ramp) and after it ended (:attr:`.run.FioRun.window_ns`); an output whose window
    does not, or whose ``timestamp_ms`` disagrees with its ``timestamp``, is damaged: the figures are
    lost and the file named. Nothing for one host, in client/server mode (fio's client starts the
    hosts together) or where a host gave no clock or runtime."""
    lost, windows, losses = ("hosts_apart_s", "hosts_apart_pct"), {}, []
    if len(runs) < 2 or any(run.window_ns is None or not per_host[run.host].get("runtime_ms") for run in runs):
        return {}, []  # before reading the outputs' stamps again: client/server points stop here
    for run in runs:
        runtime_ms, (written, why) = per_host[run.host]["runtime_ms"], written_ms(run.output)
        if written is None and why is None:
            return {}, []
        if written is not None:  # in ms (fio's stamps are whole ms)
            window = (written - runtime_ms, written)
            after, before = run.window_ns[0] / 1e6 + ramp_s * 1000, run.window_ns[1] / 1e6
            if not (after - 1 <= window[0] and window[1] <= before + 1):
                why = (f"its 'timestamp_ms' less its runtime ({window[0] / 1000:.3f} to {window[1] / 1000:.3f} s) is "
                       f"not within the host's clock around fio after its ramp ({after / 1000:.3f} to "
                       f"{before / 1000:.3f} s)")
            windows[run.host] = window
        if why is not None:
            losses.append(Loss(f"{run.host}.json", why, lost))
    if losses:
        return {}, losses
    for host, (start, end) in windows.items():
        per_host[host].update(measured_from_s=start / 1000.0, measured_to_s=end / 1000.0)
    shortest = min(end - start for start, end in windows.values())
    apart = max(end for _, end in windows.values()) - min(start for start, _ in windows.values()) - shortest
    return {"hosts_apart_s": apart / 1000.0, "hosts_apart_pct": 100.0 * apart / shortest}, []


def _live_feeds(bar: Any, cfg: Campaign) -> dict[str, StatusFeed] | None:
    """Each host's reader of fio's status reports (:class:`.status.StatusFeed`) whose seconds go to
    ``bar`` (:meth:`flashpoc.present.progress.Progress.interval`; several hosts' seconds as one series,
    :class:`.status.HostSeconds`), by host name; None without a bar that takes intervals, and in
    fio's client/server mode, whose client writes no status report before the point ends (its
    hosts' interval logs are handed over then: :func:`_logged_intervals`)."""
    interval = getattr(bar, "interval", None)
    names = [h.name for h in cfg.hosts]
    if interval is None or (len(names) > 1 and cfg.settings.multi_host == "client-server"):
        return None
    if len(names) == 1:
        return {names[0]: StatusFeed(interval, cfg.settings.ramp_s)}
    merged = HostSeconds(interval, names)
    return {name: StatusFeed(merged.of(name), cfg.settings.ramp_s) for name in names}


def _logged_intervals(bar: Any, cfg: Campaign, spec: PointSpec, raw: dict[str, Any]) -> None:
    """A client/server point's seconds from its hosts' interval logs (the stored series, IOPS and
    latency of every host together), handed to ``bar`` when the point ends: fio's client writes
    nothing per second with a JSON output (:func:`.run.client_command`)."""
    interval = getattr(bar, "interval", None)
    if interval is None or INTERVALS_FILE not in raw or cfg.settings.multi_host != "client-server":
        return
    run = f"{spec.workload.name} at {spec.threads} threads, from fio's interval logs of every host"
    for row in csv.DictReader(io.StringIO(raw[INTERVALS_FILE])):
        values = {key: float(row[key]) if row.get(key) not in (None, "") else None for key in ("iops", "lat_mean_ms")}
        interval(values, second=float(row["second"]), run=run, warmup=row.get("warmup") == "True")


def _run_on_hosts(wb: Workbench, spec: PointSpec, pid: str, per_job: int | None,
                  purpose: str, feeds: dict[str, StatusFeed] | None = None,
                  bar: Any = None) -> tuple[list[FioRun], str | None]:
    """Run the point's fio job on every host (at once; through fio's client/server mode when
    ``fio.multi_host`` says so): the hosts' runs and fio --client's whole output (with its All
    clients aggregate), None when there was no client. ``feeds`` reads each host's status reports
    while it runs (:func:`_live_feeds`; none in client/server mode, where the hosts' device
    counters give ``bar`` its seconds: :func:`_device_seconds`)."""
    cfg = wb.cfg

    def on_host(host_params: HostParams) -> FioRun:
        targets = cfg.targets_of(host_params)
        job = render_job(cfg, spec.workload, spec.threads, targets, runtime_s=spec.runtime_s, steady=spec.steady,
                         rate_iops=per_job)
        run_dir = f"{host_params.workdir}/{cfg.campaign}/{spec.phase}/{pid}"
        return run_fio_job(wb.host(host_params), job, run_dir, readonly=not spec.workload.writes,
                           timeout_s=_point_timeout_s(cfg, [host_params], spec.runtime_s), purpose=purpose,
                           on_line=feeds.get(host_params.name) if feeds else None)

    if len(cfg.hosts) == 1:
        return [on_host(cfg.hosts[0])], None
    if cfg.settings.multi_host == "client-server":
        return _client_server_runs(wb, spec.phase, spec.workload, spec.threads, spec.runtime_s, pid, purpose,
                                   spec.steady, per_job, bar)
    # every host at once: the point fails when a host fails, every failed host named
    return list(Group(cfg.hosts, strict=True).map(on_host, purpose=purpose)), None


def _host_results(cfg: Campaign, runs: list[FioRun], pid: str, jobs: int | None = None,
                  runtime_s: float | None = None) -> tuple[dict[str, dict], dict[str, Any], dict[str, str]]:
    """Parse the hosts' runs of point ``pid`` (``jobs``: fio's jobs on each host, its threads;
    ``runtime_s``: the point's planned length, where its interval series ends at most): each
    host's summary, the point's metrics (the hosts aggregated, their latency bins merged, the
    interval verdict) and its raw files (each host's job, output and stderr, the histogram and
    interval tables). A damaged output or interval log loses what it holds (a log that lacks a
    window: that window, and the interval verdict over the series) and the row's ``damaged`` names
    it (:mod:`flashpoc.core.damage`); an output that disagrees with itself in its
    IOPS, bandwidth or bytes is refused (ParseError)."""
    per_host, raw, bins, host_intervals, losses, whole = {}, {}, [], [], [], True
    for run in runs:
        rows, histogram = parse_fio_point(run.output, source=f"{run.host}.json")
        summary = summarize_fio_point(rows, histogram)
        summary.update(cpu_utilisation(run.cpu_before, run.cpu_after))
        per_host[run.host] = summary
        bins += histogram
        whole = whole and histogram_whole(rows, histogram)
        if cfg.settings.interval_s:
            series, damage = read_interval_logs(run.logs, window_ms=cfg.settings.interval_s * 1000,
                                                fio_version=summary.get("fio_version"),
                                                runtime_ms=summary.get("runtime_ms"), jobs=jobs,
                                                planned_ms=None if runtime_s is None else runtime_s * 1000)
            host_intervals.append(series)
            losses += [Loss(f"{name} of {run.host}", what, _VERDICT) for name, what in damage]
        raw.update(run.files())
    metrics = _aggregate_hosts(per_host)
    apart, apart_losses = _hosts_apart(runs, per_host, cfg.settings.ramp_s)
    metrics.update(apart)
    if len(per_host) > 1 and bins:  # exact: the hosts' bins merged, when no host lost some
        distribution = latency_distribution(bins)
        metrics.update(distribution if whole else dict.fromkeys(distribution), percentiles_exact=whole)
    if bins and whole:
        raw[HISTOGRAM_FILE] = table_text([{**r, "point_id": pid} for r in histogram_table(bins)], HISTOGRAM_COLUMNS)
    intervals = [{**r, "point_id": pid, "second": r["second"] + cfg.settings.ramp_s, "warmup": False}
                 for r in merge_intervals(host_intervals)] if host_intervals else []
    if host_intervals and (intervals or not losses):  # the windows every host's logs hold whole
        raw[INTERVALS_FILE] = table_text(intervals, INTERVAL_COLUMNS)
    if host_intervals and not losses:
        metrics.update(rows_mod.interval_verdict(intervals))
    for loss in losses + apart_losses:  # a window lost: no verdict over the windows that are left
        note_loss(metrics, loss)
    return per_host, metrics, raw


#: the row columns of a point's interval series (:func:`flashpoc.analysis.rows.interval_verdict`), lost with a damaged log
_VERDICT = tuple(rows_mod.interval_verdict([]))


def _client_server_runs(wb: Workbench, phase: str, workload: Workload, threads: int, runtime_s: int,
                       pid: str, purpose: str, steady: tuple[str, int] | None = None,
                       rate_iops: int | None = None, bar: Any = None) -> tuple[list[FioRun], str]:
    """One point on every host through fio's own client/server mode: a ``fio --server`` on each
    host (started once per phase, read-only for read-only workloads), one ``fio --client`` here;
    the hosts' runs and the client's whole output. While the client runs, the hosts' device
    counters give ``bar`` each second (:func:`_device_seconds`)."""
    cfg = wb.cfg
    readonly = not workload.writes
    hosts = [wb.host(h) for h in cfg.hosts]
    if wb.engine_state.get(SERVERS) is not readonly:
        run_fio.start_servers(hosts, cfg.settings.server_port, readonly=readonly)
        wb.engine_state[SERVERS] = readonly
    jobs = {h.name: render_job(cfg, workload, threads, cfg.targets_of(h), runtime_s=runtime_s, host=h.name,
                               steady=steady, rate_iops=rate_iops) for h in cfg.hosts}
    controller = hostlib.connect(HostParams(name="controller", address="localhost"))
    timeout_s = _point_timeout_s(cfg, cfg.hosts, runtime_s)
    label = f"{workload.name} at {threads} threads, the hosts' device counters (/proc/diskstats)"
    return run_fio.run_clients(controller, hosts, jobs, f"{controller.params.workdir}/{cfg.campaign}/clients/{phase}/{pid}",
                               cfg.settings.server_port, timeout_s=timeout_s, purpose=purpose,
                               during=_device_seconds(wb, hosts, bar, label, timeout_s))


DEVICES = "diskstats devices"
""":attr:`Workbench.engine_state` key: which host's device counters the live view reads (:func:`_device_seconds`)."""


def _device_seconds(wb: Workbench, hosts: list, bar: Any, label: str,
                    max_s: float) -> contextlib.AbstractContextManager[Any]:
    """What samples the hosts' device counters while a client/server point runs and hands each second
    to ``bar`` as the series ``label`` (:class:`flashpoc.hosts.diskstats.DeviceSampler`; the
    seconds of ``fio.ramp_s`` as warm-up): every device behind a target, counted on one host of those
    that share a kernel (:func:`flashpoc.hosts.diskstats.owned_devices`), the hosts' seconds
    summed (:class:`.status.HostSeconds`; a host whose sampler ended early left out). The devices are
    found once, at the first such point, on each host that answers. Nothing without a bar that takes intervals, or without a device
    (targets on NFS or tmpfs)."""
    interval = getattr(bar, "interval", None)
    if interval is None:
        return contextlib.nullcontext()
    cfg = wb.cfg
    if DEVICES not in wb.engine_state:
        paths = {h.name: [t.path for t in cfg.targets_of(h)] for h in cfg.hosts}
        found = Group(hosts).map(lambda host: parse_devices(host.run(
            devices_command(paths[host.name]), purpose="find its targets' devices", timeout_s=30).stdout),
            purpose="find the targets' devices")
        wb.engine_state[DEVICES] = owned_devices(found.succeeded)
    owned = wb.engine_state[DEVICES]
    if not owned:
        return contextlib.nullcontext()
    ramp_s = cfg.settings.ramp_s

    def on_interval(values: dict[str, Any], *, second: float, warmup: bool = False) -> None:
        interval(values, second=second, run=label, warmup=warmup or second <= ramp_s)

    merged = HostSeconds(on_interval, list(owned))
    return DeviceSampler(hosts, owned, merged.of, max_s, on_gone=merged.drop)


def _point_timeout_s(cfg: Campaign, hosts: list[HostParams], runtime_s: int) -> float:
    """Seconds a fio point may take on ``hosts``: three times its run plus two minutes, at most
    the hosts' command timeout."""
    return min(min(h.command_timeout_s for h in hosts), 3 * (runtime_s + cfg.settings.ramp_s) + 120)


def create_scratch(wb: Workbench, host_params: HostParams, scratch: list, short: list) -> list[dict[str, Any]]:
    """Lay the ``short`` scratch files of ``host_params`` out with fio's own job (its
    ``buffer_compress_percentage`` data); the others are reused. What was done, per target."""
    host = wb.host(host_params)
    done = []
    for target in scratch:
        if target not in short:
            done.append({"host": host_params.name, "target": target.name, "action": "reused"})
            continue
        start = time.perf_counter()
        make_target_directory(host, target)
        run_fio_job(host, render_layout_job(target, wb.cfg.settings),
                    f"{host_params.workdir}/layout-{target.name}", readonly=False,
                    timeout_s=host_params.command_timeout_s, purpose=f"create scratch file {target.path}")
        done.append({"host": host_params.name, "target": target.name, "action": "created",
                     "seconds": time.perf_counter() - start})
    return done


def fill_targets(wb: Workbench, host_params: HostParams, targets: list, sizes: dict[str, int]) -> dict[str, Any]:
    """Fill ``targets`` of one host once with the campaign's data (:func:`.plan.render_fill_job`),
    keeping the job and fio's output under ``targets/<host>/``; per target: the bytes fio says it
    wrote, the block size and the seconds taken.

    Raises:
        RemoteError: fio failed, or wrote less than a target's working set (it is not filled).
    """
    host = wb.host(host_params)
    names = ", ".join(t.name for t in targets)
    purpose = f"fill {names} with fio"
    start = time.perf_counter()
    job = render_fill_job(wb.cfg, targets, sizes)
    # named by its job (the targets' paths): two campaigns of one name never share the directory
    run_dir = f"{host_params.workdir}/{wb.cfg.campaign}/fill-{hashlib.sha256(job.encode()).hexdigest()[:10]}"
    run = run_fio_job(host, job, run_dir, readonly=False,
                      timeout_s=fill_timeout_s(host_params, sum(sizes.values())), purpose=purpose)
    seconds = time.perf_counter() - start
    write_atomic(wb.store.root / "targets" / host_params.name / "fill.fio", job)
    write_atomic(wb.store.root / "targets" / host_params.name / "fill.json", run.output)
    try:
        written = parse_fill_output(run.output)
    except ParseError as error:
        raise RemoteError(f"{host_params.name}: {purpose}: {error}") from None
    done = {}
    for target in targets:
        expected = sizes[target.name] // FILL_BS * FILL_BS
        if written.get(target.name, 0) < expected:
            raise RemoteError(f"{host_params.name}: {purpose}: fio wrote {written.get(target.name, 0):,} bytes of "
                              f"{expected:,} to {target.name}; it is not filled")
        done[target.name] = {"written_bytes": written[target.name], "block_bytes": FILL_BS, "seconds": seconds,
                             "output": f"targets/{host_params.name}/fill.json"}
    return done

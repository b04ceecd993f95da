"""The probe and sweep phases on vdbench: one invocation per forthreads loop.

vdbench runs a whole thread list in one invocation (``forthreads=``), without restarting
its JVMs per point; each run of the loop becomes one stored point. The controller host
(``vdbench.controller``, default the first host) runs vdbench; with several hosts the
parmfile's ``hd=`` lines make vdbench drive the others itself.

vdbench's ``threads`` are per SD: a point's outstanding I/Os are threads x SDs, which the
charts and Little's law check use, while the rows keep the thread parameter as set.

What real vdbench does that the workbook guards against: it creates or extends a missing or
short file target by writing it (its own ``RD=SD_format`` run), even when the parmfile only
reads, so every target must exist at its size right before each invocation
(:func:`require_targets`), a read-only invocation that opened a target for writing fails, and
rows come only from the rd names the workbook wrote (:meth:`RunDefinition.owns`).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator
from datetime import datetime, timezone
from typing import Any

from ... import points
from ...errors import CheckFailed, RemoteError
from ...params import HostParams, TargetParams, Workload
from ...points import Measured, PointSpec
from ..fio.parse import SHARE_LIMITS_US
from .parse import histogram_shares, parse_output_dir, vdbench_failure
from .plan import (RunDefinition, data_text, fill_xfersize, outstanding_ios, probe_run, render_fill_parmfile,
                   render_parmfile, round_run, sweep_run, threads_per_host)
from ...rows import add_littles_law, base_row, interval_verdict
from ...precondition import fill_timeout_s, make_scratch_files
from .run import IntervalProgress, master_setup, run_vdbench
from ...store import HISTOGRAM_COLUMNS, HISTOGRAM_FILE, INTERVAL_COLUMNS, INTERVALS_FILE, table_text, write_atomic

#: where the records of the scratch-file fills live in the campaign's results (one JSON per host and target)
FILL_DIR = "targets"


def controller(wb):
    """The host parameters of the vdbench controller (master)."""
    name = wb.cfg.settings.controller or wb.cfg.hosts[0].name
    return next(h for h in wb.cfg.hosts if h.name == name)


def parmfile_for(wb, rd: RunDefinition) -> str:
    """The parmfile of one invocation: only ``rd``'s workload is defined, so that vdbench opens
    the targets read-only for a read-only workload (it opens an sd for writing as soon as any
    ``wd=`` of the parmfile writes to it)."""
    return render_parmfile(wb.cfg, [rd.workload], rd)


def run_definition(cfg, phase: str, workload: Workload, threads: list[int], runtime_s: int) -> RunDefinition:
    """The run definition of one invocation of ``phase`` over ``threads`` (the probe's, with its
    warm-up; the sweep's, at ``vdbench.iorate`` or its curve; a precondition round's at ``runtime_s``)."""
    if phase == "sweep":
        return sweep_run(cfg, threads, workload)
    if phase == "precondition":
        (count,) = threads
        return round_run(cfg, workload, count, runtime_s)
    return probe_run(cfg, threads=threads)


def invocations(wb, specs: list[PointSpec]) -> list[tuple[str, RunDefinition, dict[int, int], list[PointSpec]]]:
    """The invocations that measure ``specs``: one per phase and workload over its thread counts,
    in the specs' order; each with its group id (:func:`group_id`), run definition, repeats (threads
    -> the spec's repeat) and specs."""
    batches: dict[tuple[str, str], list[PointSpec]] = {}
    for spec in specs:
        batches.setdefault((spec.phase, spec.workload.name), []).append(spec)
    out = []
    for (phase, _), batch in batches.items():
        rd = run_definition(wb.cfg, phase, batch[0].workload, [s.threads for s in batch], batch[0].runtime_s)
        repeats = {s.threads: s.repeat for s in batch}
        out.append((group_id(wb, rd, repeats), rd, repeats, batch))
    return out


def group_id(wb, rd: RunDefinition, repeats: dict[int, int] | None = None) -> str:
    """The stored group of one invocation: the workload and the hash of its parmfile, and ``_r<n>``
    when it measures counts again (``repeats``: threads -> earlier measurements of that count)."""
    again = max((repeats or {}).values(), default=0)
    parmfile = parmfile_for(wb, rd)
    return f"{rd.workload}_{hashlib.sha256(parmfile.encode()).hexdigest()[:10]}" + (f"_r{again}" if again else "")


def run_points(wb, specs: list[PointSpec], keys: list[str], bar=None) -> Iterator[Measured]:
    """One invocation per phase and workload (:func:`invocations`), its runs' rows stored together."""
    for group, rd, repeats, batch in invocations(wb, specs):
        rows, raw = invoke(wb, batch[0].phase, rd, group, bar=bar, repeats=repeats)
        yield Measured(group, tuple(rows), raw, counted=bar is not None)


def run_invocation(wb, phase: str, rd: RunDefinition, *, bar=None,
                   repeats: dict[int, int] | None = None) -> list[dict[str, Any]]:
    """The rows of the invocation ``rd`` (measured, or reused when stored) through the loop
    (:func:`flashpoc.points.measure`): ``rd`` is the run definition of ``phase`` at its thread counts
    (:func:`run_definition`). ``repeats`` (threads -> earlier measurements of that count) makes it a
    repeat."""
    workload: Workload = wb.cfg.workload(rd.workload)
    specs = [PointSpec(phase, workload, t, rd.elapsed_s, repeat=(repeats or {}).get(t, 0)) for t in rd.threads]
    if run_definition(wb.cfg, phase, workload, list(rd.threads), rd.elapsed_s) != rd:
        raise ValueError(f"{phase}: {rd.line()} is not the run definition of the phase at its thread counts")
    return points.rows_of(points.measure(wb, specs, bar))


def invoke(wb, phase: str, rd: RunDefinition, group: str, *, bar=None,
           repeats: dict[int, int] | None = None) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """Run one vdbench invocation; one row per loop run, and the raw files stored with them.

    ``repeats`` (threads -> earlier measurements of that count) gives the rows' ``repeat``.

    Right before vdbench starts, every target must exist at its size on every host of the
    invocation (:func:`require_targets`). Rows come only from the runs of ``rd`` (its name and
    its curve steps), never from a run vdbench adds itself (``SD_format``).

    Raises:
        CheckFailed: a target is missing or short (vdbench would write it); nothing was run.
        RemoteError: with vdbench's own error message, the point it failed at and where its
            output directory is, when vdbench exits non-zero or a read-only invocation opened
            a target for writing; nothing is stored for a failed invocation.
    """
    cfg = wb.cfg
    parmfile = parmfile_for(wb, rd)
    host_params = controller(wb)
    runs = rd.runs
    intervals_per_run = rd.elapsed_s // rd.interval_s + (rd.warmup_s or 0) // rd.interval_s
    done_runs = 0

    def on_interval(progress: IntervalProgress) -> None:
        nonlocal done_runs
        if bar is not None:
            finished = min(progress.intervals // max(1, intervals_per_run), runs)
            if finished > done_runs:
                bar.advance(finished - done_runs, f"vdbench finished {finished} of the {runs} runs of {rd.workload}: "
                                                  "its numbers come when the last one ends")
                done_runs = finished
            else:
                bar.status(f"vdbench {progress.run}: interval {progress.intervals - done_runs * intervals_per_run} "
                           f"of {intervals_per_run}")

    timeout = min(host_params.command_timeout_s * runs,
                  runs * 3 * (rd.elapsed_s + (rd.warmup_s or 0)) + 600)
    forthreads = f"forthreads {rd.line().split('forthreads=')[-1]}"
    purpose = f"{phase} {rd.workload} {forthreads}"
    require_targets(wb, purpose)
    if bar is not None:
        bar.begin(rd.workload, forthreads)
    run_dir = f"{host_params.workdir}/{cfg.campaign}/{phase}/{group}"
    run = run_vdbench(wb.host(host_params), parmfile, run_dir, timeout_s=timeout, purpose=purpose,
                      on_line=IntervalProgress(on_interval), setup=master_setup(cfg))
    where = f"vdbench's output directory: {host_params.name}:{run_dir}/output"
    if run.exit_code != 0:
        raise failure(run, purpose, f"Nothing was stored; {where}")
    parsed = parse_output_dir(run.files, expected_runs={rd.name: rd.threads})
    workload: Workload = cfg.workload(rd.workload)
    opened = sorted(sd for sd, write in parsed["opened"].items() if write)
    if opened and not workload.writes:
        raise RemoteError(f"{host_params.name}: {purpose}: vdbench opened {', '.join(opened)} for writing although "
                          f"{workload.name} only reads ('Opening sd=...; write: true' in its *.stdout.html): a "
                          f"read-only workload must not write. Nothing was stored; {where}")
    totals = [total for total in parsed["totals"] if rd.owns(total["rd"])]
    if not totals:
        raise RemoteError(f"{host_params.name}: {purpose}: vdbench finished but reported no run of rd={rd.name} in "
                          f"totals.html; {where}")
    ids = [(point_id(group, rd, total), total) for total in totals]
    if len({pid for pid, _ in ids}) != len(ids):
        raise RemoteError(f"{host_params.name}: {purpose}: totals.html has two runs with the same loop values "
                          f"({[pid for pid, _ in ids]}); nothing was stored; {where}")
    data = target_data(wb)
    rows = [point_row(wb, phase, pid, rd, total, parsed, run.wall_s / max(1, len(ids)), data,
                      (repeats or {}).get(int(total["threads"]), 0)) for pid, total in ids]
    raw = {f"output__{name}": text for name, text in run.files.items()}  # output/<name>, flattened
    raw.update({"parmfile": parmfile, "console.txt": run.console})
    raw[INTERVALS_FILE] = table_text([r for pid, total in ids for r in interval_table(pid, rd, total, parsed)],
                                     INTERVAL_COLUMNS)
    histograms = [r for pid, total in ids for r in histogram_table(pid, total, parsed)]
    if histograms:
        raw[HISTOGRAM_FILE] = table_text(histograms, HISTOGRAM_COLUMNS)
    if bar is not None and done_runs < runs:
        bar.advance(runs - done_runs)
    return rows, raw


def failure(run, purpose: str, where: str) -> RemoteError:
    """The error of a vdbench run that exited non-zero: vdbench's own message (not its Java stack
    trace) and the step it failed at, else the console's last lines, then ``where`` (its output)."""
    message = vdbench_failure(run.files, run.console) or "\n".join(run.console.strip().splitlines()[-15:])
    return RemoteError(f"{run.host}: {purpose}: vdbench exited {run.exit_code}:\n{message}\n{where}")


def point_id(group: str, rd: RunDefinition, total: dict[str, Any]) -> str:
    """A run's point id: the invocation's group and its thread count, and its curve step
    (``_c50`` for ``rd1_(50%)``) for the runs of ``iorate=curve`` after the full-speed one."""
    pct = rd.curve_pct(total["rd"])
    return f"{group}_t{int(total['threads']):05d}" + (f"_c{pct:g}" if pct is not None else "")


def require_targets(wb, purpose: str) -> None:
    """Every target of every host of the invocation exists at its size (a file or block device
    at least its ``size``), read through the host interface right before vdbench starts.

    vdbench creates or extends a missing or short file by writing it, its own ``RD=SD_format``
    run, even when the parmfile only reads: the workbook never lets it.

    Raises:
        CheckFailed: naming each host, target and what was found; vdbench was not started.
    """
    from ...phases import target_sizes

    problems = []
    for host_params in wb.cfg.hosts:
        targets = wb.cfg.targets_of(host_params)
        if not targets:
            continue
        sizes = target_sizes(wb.host(host_params), targets)
        for target in targets:
            size = sizes[target.path]
            name = f"{host_params.name}: target {target.name} ({target.path})"
            if size == "missing":
                problems.append(f"{name} does not exist")
            elif size == "other":
                problems.append(f"{name} is neither a file nor a block device")
            elif isinstance(size, int) and target.size_bytes and size < target.size_bytes:
                problems.append(f"{name} is {size:,} bytes, smaller than its size {target.size} "
                                f"({target.size_bytes:,} bytes)")
    if problems:
        scratch = any(t.create for t in wb.cfg.targets)
        raise CheckFailed(f"{purpose}: vdbench was not started: it would create or extend these targets by writing "
                          "them (its own SD_format run), even for a read-only workload:\n- " + "\n- ".join(problems)
                          + ("\n(scratch files, create: true, are made when a phase starts: was one removed or "
                             "truncated since?)" if scratch else ""))


def point_row(wb, phase: str, pid: str, rd: RunDefinition, total: dict[str, Any], parsed: dict[str, Any],
              wall_s: float, data: str | None = None, repeat: int = 0) -> dict[str, Any]:
    """The tidy row of one vdbench run (totals avg line + its interval rows).

    Besides the metrics: ``vdbench_rd`` (the run's name as vdbench printed it: ``rd1``, or a
    curve step ``rd1_(50%)``), ``iorate_requested`` (the I/O rate asked for; None at
    ``iorate=max`` and for the full-speed run of a curve), ``curve_pct`` (the curve step, %
    of the full-speed run's IOPS), ``avg_intervals`` (the intervals vdbench's average counts,
    see :func:`first_counted`), ``histogram_intervals`` (those its histogram counts: every one,
    warm-up included, see :func:`histogram_first`) and ``target_data`` (what the targets hold,
    :func:`target_data`).
    """
    cfg = wb.cfg
    workload: Workload = cfg.workload(rd.workload)
    threads = int(total["threads"])
    outstanding = outstanding_ios(threads, cfg)
    table = interval_table(pid, rd, total, parsed)
    shares = histogram_shares(run_histogram(total, parsed), SHARE_LIMITS_US)
    first = first_counted(total, parsed)
    hist_first = histogram_first(total, parsed, rd.interval_s)
    intervals = [r for r in run_intervals(total, parsed) if r["interval"] >= first]
    verdict = interval_verdict(table)
    # Little's law per interval: vdbench's measured queue depth against IOPS x response time
    law_ratios = sorted(r["queue_depth"] / (r["iops"] * r["resp_ms"] / 1000.0) for r in intervals
                        if r.get("queue_depth") and r.get("iops") and r.get("resp_ms"))
    read_share = (total.get("read_pct") or 0.0) / 100.0
    row = base_row(cfg, phase=phase, point_id=pid, engine="vdbench", workload=workload,
                   iodepth=1, threads=threads, outstanding=outstanding, hosts=[h.name for h in cfg.hosts],
                   runtime_s=rd.elapsed_s, ramp_s=(first - 1) * rd.interval_s, repeat=repeat, wall_s=wall_s)
    rate = total.get("iorate_setting")
    row.update({
        "iops": total["iops"],
        "read_iops": total["iops"] * read_share,
        "write_iops": total["iops"] * (1.0 - read_share),
        "bw_mibps": total.get("mb_per_s"),
        "lat_mean_ms": total.get("resp_ms"),
        "read_lat_mean_ms": total.get("read_resp_ms") if read_share > 0 else None,
        "write_lat_mean_ms": total.get("write_resp_ms") if read_share < 1 else None,
        "lat_max_ms": total.get("resp_max_ms"),
        "lat_stddev_ms": total.get("resp_stddev_ms"),
        "queue_depth": total.get("queue_depth"),
        "host_cpu_busy_pct": total.get("cpu_sys_user_pct"),
        "host_cpu_system_pct": total.get("cpu_sys_pct"),
        "interval_label": total.get("interval_label"),
        "avg_intervals": f"{first}-{total.get('interval_end')}",
        "histogram_intervals": f"{hist_first}-{total.get('interval_end')}" if hist_first is not None else None,
        **verdict,
        "steadystate_attained": verdict["interval_steady"],
        "interval_littles_law_ratio": round(law_ratios[len(law_ratios) // 2], 3) if law_ratios else None,
        "vdbench_loop": total.get("loop"),
        "vdbench_rd": total.get("rd"),
        "iorate_requested": rate if isinstance(rate, (int, float)) else None,
        "curve_pct": rd.curve_pct(total["rd"]),
        "opened_for_write": any(parsed["opened"].values()) if parsed["opened"] else None,
        "target_data": data,
        **shares,
    })
    add_littles_law(row)
    if len(cfg.hosts) > 1:
        row["per_host"] = per_host(total, parsed, threads_per_host(cfg, threads))
    return row


def per_host(total: dict[str, Any], parsed: dict[str, Any],
             asked: dict[str, int] | None = None) -> dict[str, dict[str, Any]]:
    """Each host's share of one run, from its host report (``<hd>.html``, the average line):
    IOPS, mean response time (ms), the host's CPU busy % (user + system) and vdbench's queue
    depth, keyed by the ``hd=`` name, which is the host's name in the parameters.

    With ``asked`` (host -> the I/Os vdbench gave it to keep in flight,
    :func:`~flashpoc.engines.vdbench.plan.threads_per_host`), each host also has ``outstanding_ios``;
    a host vdbench gave no thread prints no average line and has ``outstanding_ios`` 0 only.
    """
    out: dict[str, dict[str, Any]] = {}
    for host, rows in sorted(parsed["hosts"].items()):
        avg = next((r for r in rows if r.get("run_index") == total["run_index"] and r.get("is_avg")), None)
        if avg is not None:
            out[host] = {"iops": avg.get("iops"), "lat_mean_ms": avg.get("resp_ms"),
                         "host_cpu_busy_pct": avg.get("cpu_sys_user_pct")}
            if asked is not None:
                out[host].update(queue_depth=avg.get("queue_depth"), outstanding_ios=asked.get(host))
    for host, ios in (asked or {}).items():
        if host not in out and ios == 0:
            out[host] = {"outstanding_ios": 0}
    return out


def run_histogram(total: dict[str, Any], parsed: dict[str, Any]) -> list[dict[str, Any]]:
    """histogram.html's rows of one run: its read and write sections, or its total section
    when vdbench printed no per-direction section."""
    rows = [r for r in parsed["histograms"].get("histogram", []) if r["run_index"] == total["run_index"]]
    split = [r for r in rows if r["direction"] in ("read", "write")]
    return split or rows


def histogram_table(point_id: str, total: dict[str, Any], parsed: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows of one run's ``histogram.csv``: vdbench's non-empty response-time buckets, each
    at its upper bound in ``clat_us`` (the open last bucket at its lower bound); ``direction``
    read, write or total (all I/Os). It counts every interval of the run, warm-up included
    (:func:`histogram_first`)."""
    return [{"point_id": point_id, "direction": r["direction"], "count": r["count"],
             "clat_us": float(r["bucket_hi_us"] if r["bucket_hi_us"] is not None else r["bucket_lo_us"])}
            for r in run_histogram(total, parsed) if r["count"]]


def run_intervals(total: dict[str, Any], parsed: dict[str, Any]) -> list[dict[str, Any]]:
    """summary.html's interval lines of one run (not its avg/std/max lines), in order."""
    return [r for r in parsed["summary"]
            if r.get("run_index") == total["run_index"] and r.get("row_type", "interval") == "interval"
            and not r.get("is_avg") and isinstance(r.get("interval"), int)]


def first_counted(total: dict[str, Any], parsed: dict[str, Any]) -> int:
    """The first interval vdbench's average counts (its IOPS, latency and CPU).

    The label says ``avg_<first>-<last>``, but vdbench 5.04.06 counts one interval more: the
    last warm-up interval (the first without ``warmup=``), as its numbers show (the average of
    intervals 1-10 under the label ``avg_2-10``); 5.04.01 and 5.04.07 count as labelled. And on a
    loaded host, where the slaves learn late that the warm-up is over (vdbench collects their
    statistics asynchronously), it can count from another interval still (seen: every interval,
    1-4, under the label ``avg_3-4``). The interval whose mean IOPS over ``first..last`` matches
    the average line to its printed precision is taken (the nearest match; on a tie the label's
    neighbour, then the label, then the others nearest the label); the label when none does (a rate not printed to the
    IOPS' precision, a damaged summary).
    """
    start = total.get("interval_start") or 2
    end = total.get("interval_end")
    lines = {r["interval"]: r.get("iops") for r in run_intervals(total, parsed)}
    avg = total.get("iops")
    if not isinstance(avg, (int, float)) or not end:
        return start

    def gap(first: int) -> float | None:
        values = [lines.get(i) for i in range(first, end + 1)]
        if not values or any(not isinstance(v, (int, float)) for v in values):
            return None
        return abs(sum(values) / len(values) - avg)

    tolerance = max(0.051, 1e-4 * abs(avg))  # the average's printed precision
    order = sorted(range(1, end + 1), key=lambda first: (first != start - 1, abs(first - start), first))
    matching = [(g, rank, first) for rank, first in enumerate(order)
                if (g := gap(first)) is not None and g <= tolerance]
    return min(matching)[2] if matching else start


def histogram_first(total: dict[str, Any], parsed: dict[str, Any], interval_s: int) -> int | None:
    """The first interval histogram.html counts for one run, from its I/O count: vdbench sends
    the histogram only at the end of a run and counts every I/O of it, warm-up included (its
    source says it cannot tell the warm-up's I/Os apart), so it is usually interval 1, also when
    the average leaves the warm-up out. The interval from which the summary's I/O counts (rate x
    interval) add up to the histogram's, to their printed precision; None without a histogram
    or when no start adds up."""
    count = sum(r["count"] for r in run_histogram(total, parsed))
    lines = [r for r in run_intervals(total, parsed) if isinstance(r.get("iops"), (int, float))]
    if not count or not lines:
        return None
    for first in sorted({r["interval"] for r in lines}):
        counted = [r["iops"] * interval_s for r in lines if r["interval"] >= first]
        if abs(sum(counted) - count) <= 0.01 * interval_s * len(counted) + 1:
            return first
    return None


def interval_table(point_id: str, rd: RunDefinition, total: dict[str, Any], parsed: dict[str, Any]) -> list[dict]:
    """The rows of one vdbench run's ``intervals.csv``: every interval line of summary.html,
    those before the first interval vdbench's average counts (:func:`first_counted`) marked
    warm-up; ``second`` is the interval number x ``interval=`` seconds. An interval without
    I/O has no latency (None, not vdbench's printed 0.000)."""
    first = first_counted(total, parsed)
    out = []
    for r in run_intervals(total, parsed):
        read_share = (r.get("read_pct") or 0.0) / 100.0
        iops = r["iops"]
        out.append({"point_id": point_id, "second": r["interval"] * rd.interval_s, "iops": iops,
                    "read_iops": iops * read_share, "write_iops": iops * (1.0 - read_share),
                    "lat_mean_ms": r.get("resp_ms") if iops else None,
                    "read_lat_mean_ms": r.get("read_resp_ms") if iops and read_share > 0 else None,
                    "write_lat_mean_ms": r.get("write_resp_ms") if iops and read_share < 1 else None,
                    "warmup": r["interval"] < first})
    return out


def probe_run_at(cfg, threads: int) -> RunDefinition:
    """The probe's run definition at one thread count (e.g. the plateau, again on fewer hosts)."""
    return probe_run(cfg, threads=[threads])


def scaling_threads(cfg, fewer, threads: int) -> int:
    """The threads (per SD) that give each host of the campaign ``fewer`` (the same, on fewer
    hosts) the I/Os in flight each host of ``cfg`` had at ``threads``: vdbench's threads are per
    SD and spread over all the hosts, so the same threads on fewer hosts would load each host
    more. ``threads x SDs / hosts`` per host, rounded to the nearest whole thread (at least 1)."""
    per_host = outstanding_ios(threads, cfg) / len(cfg.hosts)
    return max(1, round(per_host * len(fewer.hosts) / len(fewer.targets)))


# -- the data on the targets ----------------------------------------------------------

def fill_record(wb, host_params: HostParams, target: TargetParams) -> dict[str, Any] | None:
    """The stored record of the fill of ``target`` on ``host_params`` (:func:`fill_targets`), or
    None when the workbook has not filled it with this campaign's data and size."""
    path = wb.store.root / FILL_DIR / host_params.name / f"{target.name}.json"
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    current = (target.path, target.size_bytes, data_text(wb.cfg))
    return record if (record.get("path"), record.get("size_bytes"), record.get("data")) == current else None


def fill_targets(wb, host_params: HostParams, targets: list[TargetParams], sizes: dict[str, int] | None = None
                 ) -> dict[str, Any]:
    """Fill the scratch files ``targets`` of one host with vdbench's own data, of the campaign's
    ``compratio``/``dedupratio``/``dedupunit``: each file is made (or extended) at its size,
    then written once from start to end (:func:`flashpoc.engines.vdbench.plan.render_fill_parmfile`),
    and the fill is recorded under ``targets/<host>/`` (parmfile, console, totals, summary and
    one ``<target>.json`` each), so that the rows can say what the reads read. LUNs that allow
    writing are filled the same way (``sizes``: the working set of a target without a ``size``).

    Returns:
        The record written for each target: ``{"host", "target", "path", "size_bytes", "data",
        "xfersize_bytes", "written_bytes", "seconds", "completed_utc"}``.

    Raises:
        RemoteError: vdbench failed (its own words and where its output is), or wrote less than
            the files' sizes.
    """
    cfg = wb.cfg
    host = wb.host(host_params)
    names = ", ".join(t.name for t in targets)
    purpose = f"fill {names} with vdbench data"
    start = time.perf_counter()
    # scratch files made at their size first (sparse): vdbench would otherwise run its own format before the fill
    make_scratch_files(host, [t for t in targets if t.create])
    from ...phases import target_sizes

    found = target_sizes(host, targets)  # a missing or short target would be extended by vdbench's own format run
    short = [f"{t.name} ({t.path}): {found[t.path]}" for t in targets
             if not isinstance(found[t.path], int) or (t.size_bytes and found[t.path] < t.size_bytes)]
    if short:
        raise CheckFailed(f"{host_params.name}: {purpose}: vdbench was not started: these targets are missing or "
                          f"smaller than their size, and vdbench would write them to extend them: {'; '.join(short)}")
    parmfile = render_fill_parmfile(cfg, targets, sizes)
    # named by its parmfile (the targets' paths): two campaigns of one name never share the directory
    run_dir = f"{host_params.workdir}/{cfg.campaign}/fill-{hashlib.sha256(parmfile.encode()).hexdigest()[:10]}"
    xfer = fill_xfersize(cfg, targets, sizes)
    expected = sum((t.size_bytes or (sizes or {})[t.name]) // xfer * xfer for t in targets)
    run = run_vdbench(host, parmfile, run_dir, timeout_s=fill_timeout_s(host_params, expected), purpose=purpose)
    where = f"vdbench's output directory: {host_params.name}:{run_dir}/output"
    if run.exit_code != 0:
        raise failure(run, purpose, where)
    parsed = parse_output_dir(run.files)
    totals = [t for t in parsed["totals"] if t["rd"] == "fill"]
    written = round(sum((r.get("iops") or 0) * cfg.settings.interval_s * (r.get("bytes_per_io") or 0)
                        for total in totals for r in run_intervals(total, parsed)))
    if not totals or written < 0.99 * expected:
        raise RemoteError(f"{host_params.name}: {purpose}: vdbench wrote {written:,} bytes of {expected:,}; the files "
                          f"are not filled; {where}")
    folder = wb.store.root / FILL_DIR / host_params.name
    for name, text in (("fill.parmfile", parmfile), ("fill.console.txt", run.console),
                       ("fill.totals.html", run.files.get("totals.html", "")),
                       ("fill.summary.html", run.files.get("summary.html", ""))):
        write_atomic(folder / name, text)
    completed = datetime.now(timezone.utc).isoformat(timespec="seconds")
    records = {}
    for target in targets:
        records[target.name] = {"host": host_params.name, "target": target.name, "path": target.path,
                                "size_bytes": target.size_bytes, "data": data_text(cfg), "xfersize_bytes": xfer,
                                "written_bytes": written, "seconds": round(time.perf_counter() - start, 1),
                                "completed_utc": completed}
        wb.store.write_json(f"{FILL_DIR}/{host_params.name}/{target.name}.json", records[target.name])
    return records


def target_data(wb) -> str:
    """What the targets hold, in one line for the rows: ``vdbench fill: compratio=2`` for the
    scratch files the workbook filled with this campaign's data (:func:`fill_targets`), ``not
    written by flashpoc`` for the others (their own data: compratio and dedupratio apply only to
    what vdbench writes); several kinds are listed with their targets."""
    kinds: dict[str, list[str]] = {}
    for target in wb.cfg.targets:
        hosts = [h for h in wb.cfg.hosts if target in wb.cfg.targets_of(h)]
        filled = hosts and all(fill_record(wb, h, target) is not None for h in hosts)
        kinds.setdefault(f"vdbench fill: {data_text(wb.cfg)}" if filled else "not written by flashpoc",
                         []).append(target.name)
    if len(kinds) == 1:
        return next(iter(kinds))
    return "; ".join(f"{', '.join(names)}: {kind}" for kind, names in kinds.items())

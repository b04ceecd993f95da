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
from collections.abc import Iterator
from typing import Any

from flashpoc.engines import loop
from flashpoc.core.errors import CheckFailed, FlashpocError, RemoteError
from flashpoc.params import Workload
from flashpoc.core.records import Measured, PointSpec
from flashpoc.hosts.group import Group
from flashpoc.hosts.targets import target_sizes
from flashpoc.engines.vdbench.parse import parse_output_dir, stored_output_files
from flashpoc.engines.vdbench.plan import RunDefinition, outstanding_ios, probe_run, longer_run, render_parmfile, round_run, sweep_run
from flashpoc.engines.vdbench.run import IntervalProgress, master_setup, run_vdbench
from flashpoc.core.store import HISTOGRAM_COLUMNS, HISTOGRAM_FILE, INTERVAL_COLUMNS, INTERVALS_FILE, table_text

# Every name keeps its old path (flashpoc.engines.vdbench.measure.X): the package re-exports its modules' names.
from flashpoc.engines.vdbench.measure.fill import FILL_DIR, fill_record, fill_targets, make_fill_targets, target_data, written_per_target
from flashpoc.engines.vdbench.measure.output import (failure, first_counted, histogram_first, histogram_table, interval_table, measured_columns,
                     per_host, point_row, run_histogram, run_intervals, total_columns)


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
    warm-up; the sweep's, at ``vdbench.iorate`` or its curve, or longer at full speed when a point is
    measured again until steady; a precondition round's at ``runtime_s``)."""
    if phase == "sweep":
        rd = sweep_run(cfg, threads, workload)
        if len(threads) == 1 and runtime_s > rd.elapsed_s:  # measured again longer (sweep.extend_until_steady)
            return longer_run(cfg, workload, threads[0], runtime_s)
        return rd
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
    (:func:`flashpoc.campaign.loop.measure`): ``rd`` is the run definition of ``phase`` at its thread counts
    (:func:`run_definition`). ``repeats`` (threads -> earlier measurements of that count) makes it a
    repeat."""
    workload: Workload = wb.cfg.workload(rd.workload)
    specs = [PointSpec(phase, workload, t, rd.elapsed_s, repeat=(repeats or {}).get(t, 0)) for t in rd.threads]
    if run_definition(wb.cfg, phase, workload, list(rd.threads), rd.elapsed_s) != rd:
        raise ValueError(f"{phase}: {rd.line()} is not the run definition of the phase at its thread counts")
    return loop.rows_of(loop.measure(wb, specs, bar))


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
    progress = RunsProgress(bar, rd)
    timeout = min(host_params.command_timeout_s * runs,
                  runs * 3 * (rd.elapsed_s + (rd.warmup_s or 0)) + 600)
    forthreads = f"forthreads {rd.line().split('forthreads=')[-1]}"
    purpose = f"{phase} {rd.workload} {forthreads}"
    require_targets(wb, purpose)
    if bar is not None:
        bar.begin(rd.workload, forthreads)
    run_dir = f"{host_params.workdir}/{cfg.campaign}/{phase}/{group}"
    run = run_vdbench(wb.host(host_params), parmfile, run_dir, timeout_s=timeout, purpose=purpose,
                      on_line=IntervalProgress(progress), setup=master_setup(cfg))
    where = f"vdbench's output directory: {host_params.name}:{run_dir}/output"
    raw = stored_output_files(run.files)  # output/<name>, flattened
    raw.update({"parmfile": parmfile, "console.txt": run.console})
    try:
        if run.exit_code != 0:
            raise failure(run, purpose, f"Nothing was stored; {where}")
        parsed = parse_output_dir(run.files, expected_runs={rd.name: rd.threads})
        ids = run_totals(cfg.workload(rd.workload), rd, group, parsed, f"{host_params.name}: {purpose}", where)
    except FlashpocError as error:  # the measure loop keeps the run's files (points/failed/) and says where
        error.files = raw
        raise
    data = target_data(wb)
    rows = [point_row(wb, phase, pid, rd, total, parsed, run.wall_s / max(1, len(ids)), data,
                      (repeats or {}).get(int(total["threads"]), 0)) for pid, total in ids]
    raw[INTERVALS_FILE] = table_text([r for pid, total in ids
                                      for r in interval_table(pid, rd.interval_s, total, parsed)], INTERVAL_COLUMNS)
    histograms = [r for pid, total in ids for r in histogram_table(pid, total, parsed)]
    if histograms:
        raw[HISTOGRAM_FILE] = table_text(histograms, HISTOGRAM_COLUMNS)
    progress.finish()
    return rows, raw


class RunsProgress:
    """The progress of one invocation on ``bar`` (None: none): a step per finished run of ``rd``
    (vdbench prints its numbers only when the last one ends), the current run's interval in between,
    and each interval's numbers as the console prints them (:meth:`interval`)."""

    def __init__(self, bar, rd: RunDefinition) -> None:
        self.bar, self.rd, self.done_runs = bar, rd, 0
        self.intervals_per_run = rd.elapsed_s // rd.interval_s + (rd.warmup_s or 0) // rd.interval_s

    def __call__(self, progress: IntervalProgress) -> None:
        bar, runs, intervals_per_run = self.bar, self.rd.runs, self.intervals_per_run
        if bar is not None:
            finished = min(progress.intervals // max(1, intervals_per_run), runs)
            if finished > self.done_runs:
                bar.advance(finished - self.done_runs, f"vdbench finished {finished} of the {runs} runs of "
                                                       f"{self.rd.workload}: its numbers come when the last one ends")
                self.done_runs = finished
            else:
                run_interval = progress.intervals - self.done_runs * intervals_per_run
                bar.status(f"vdbench {progress.run}: interval {run_interval} of {intervals_per_run}")
            self.interval(progress)

    def interval(self, progress: IntervalProgress) -> None:
        """The latest interval's IOPS, MiB/s and response time to the bar (a run's own series; the
        intervals vdbench's average leaves out as warm-up, those up to ``warmup=``)."""
        values = progress.values()
        if values is None or not hasattr(self.bar, "interval"):
            return
        iops = values.get("iops")
        second = int(values["interval"]) * self.rd.interval_s
        self.bar.interval({"iops": iops, "bw_mibps": values.get("mb_per_s"),
                           "lat_mean_ms": values.get("resp_ms") if iops else None},
                          second=second, run=f"vdbench {progress.run}",
                          warmup=second <= (self.rd.warmup_s or self.rd.interval_s))

    def finish(self) -> None:
        """The runs not yet counted, once the invocation has ended."""
        if self.bar is not None and self.done_runs < self.rd.runs:
            self.bar.advance(self.rd.runs - self.done_runs)


def run_totals(workload: Workload, rd: RunDefinition, group: str, parsed: dict[str, Any], name: str,
               where: str) -> list[tuple[str, dict[str, Any]]]:
    """The point id and totals line of each run of ``rd`` in a finished invocation's output
    (``name``: the host and purpose its errors begin with, ``where``: where its output is).

    Raises:
        RemoteError: a read-only workload opened a target for writing (or a slave's stdout,
            which says how it opened them, is missing), no run of ``rd`` was reported, or two
            runs have the same point id.
    """
    opened = sorted(sd for sd, write in parsed["opened"].items() if write)
    if opened and not workload.writes:
        raise RemoteError(f"{name}: vdbench opened {', '.join(opened)} for writing although "
                          f"{workload.name} only reads ('Opening sd=...; write: true' in its *.stdout.html): a "
                          f"read-only workload must not write. Nothing was stored; {where}")
    unknown = [file for file in parsed.get("missing") or () if file.endswith(".stdout.html")]
    if unknown and not workload.writes:
        raise RemoteError(f"{name}: {', '.join(unknown)} missing: whether vdbench opened a target for writing "
                          f"although {workload.name} only reads cannot be told. Nothing was stored; {where}")
    totals = [total for total in parsed["totals"] if rd.owns(total["rd"])]
    if not totals:
        raise RemoteError(f"{name}: vdbench finished but reported no run of rd={rd.name} in "
                          f"totals.html; {where}")
    ids = [(point_id(group, rd, total), total) for total in totals]
    if len({pid for pid, _ in ids}) != len(ids):
        raise RemoteError(f"{name}: totals.html has two runs with the same loop values "
                          f"({[pid for pid, _ in ids]}); nothing was stored; {where}")
    return ids


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
    problems = []
    hosts = [wb.host(h) for h in wb.cfg.hosts if wb.cfg.targets_of(h)]  # asked side by side, every failure named
    found = Group(hosts, strict=True).map(lambda host: target_sizes(host, wb.cfg.targets_of(host.params)),
                                          purpose=f"{purpose}: read the targets' sizes")
    for host in hosts:
        host_params, sizes = host.params, found[host.name]
        for target in wb.cfg.targets_of(host_params):
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

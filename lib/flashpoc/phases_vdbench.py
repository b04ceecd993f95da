"""The probe and sweep phases on vdbench: one invocation per forthreads loop.

vdbench runs a whole thread list in one invocation (``forthreads=``), without restarting
its JVMs per point; each run of the loop becomes one stored point. The controller host
(``vdbench.controller``, default the first host) runs vdbench; with several hosts the
parmfile's ``hd=`` lines make vdbench drive the others itself.

vdbench's ``threads`` are per SD: a point's outstanding I/Os are threads x SDs, which the
charts and Little's law check use, while the rows keep the thread parameter as set.
"""

from __future__ import annotations

import hashlib
from typing import Any

from . import analysis
from .errors import RemoteError
from .params import Workload
from .parse.fio import SHARE_LIMITS_US
from .parse.vdbench import histogram_shares, parse_output_dir, vdbench_failure
from .plan.vdbench import RunDefinition, outstanding_ios, probe_run, render_parmfile, sweep_run, threads_per_host
from .rows import add_littles_law, base_row, interval_verdict, to_points
from .store import HISTOGRAM_COLUMNS, HISTOGRAM_FILE, INTERVAL_COLUMNS, INTERVALS_FILE, table_text
from .run.vdbench import IntervalProgress, master_setup, run_vdbench


def controller(wb):
    """The host parameters of the vdbench controller (master)."""
    name = wb.cfg.vdbench.controller or wb.cfg.hosts[0].name
    return next(h for h in wb.cfg.hosts if h.name == name)


def parmfile_for(wb, rd: RunDefinition) -> str:
    """The parmfile of one invocation: only ``rd``'s workload is defined, so that vdbench opens
    the targets read-only for a read-only workload (it opens an sd for writing as soon as any
    ``wd=`` of the parmfile writes to it)."""
    return render_parmfile(wb.cfg, [rd.workload], rd)


def run_invocation(wb, phase: str, rd: RunDefinition, *, bar=None) -> list[dict[str, Any]]:
    """Run one vdbench invocation (or reuse it when stored) and return one row per loop run.

    Raises:
        RemoteError: with vdbench's own error message and the point it failed at when
            vdbench exits non-zero; nothing is stored for a failed invocation.
    """
    cfg = wb.cfg
    parmfile = parmfile_for(wb, rd)
    group = f"{rd.workload}_{hashlib.sha256(parmfile.encode()).hexdigest()[:10]}"
    stored = wb.store.load_group(phase, group)
    if stored is not None:
        for row in stored:
            row["reused"] = True
        if bar is not None:
            bar.update(len(stored))
        return stored
    host_params = controller(wb)
    runs = len(rd.threads)
    intervals_per_run = rd.elapsed_s // rd.interval_s + (rd.warmup_s or 0) // rd.interval_s
    done_runs = 0

    def on_interval(progress: IntervalProgress) -> None:
        nonlocal done_runs
        if bar is not None:
            bar.set_postfix_str(progress.run)
            finished = min(progress.intervals // max(1, intervals_per_run), runs)
            if finished > done_runs:
                bar.update(finished - done_runs)
                done_runs = finished

    timeout = min(host_params.command_timeout_s * runs,
                  runs * 3 * (rd.elapsed_s + (rd.warmup_s or 0)) + 600)
    purpose = f"{phase} {rd.workload} forthreads {rd.line().split('forthreads=')[-1]}"
    run = run_vdbench(wb.host(host_params), parmfile, f"{host_params.workdir}/{cfg.campaign}/{phase}/{group}",
                      timeout_s=timeout, purpose=purpose, on_line=IntervalProgress(on_interval),
                      setup=master_setup(cfg))
    if run.exit_code != 0:
        message = vdbench_failure(run.files, run.console) or "\n".join(run.console.strip().splitlines()[-15:])
        raise RemoteError(f"{host_params.name}: {purpose}: vdbench exited {run.exit_code}:\n{message}\n"
                          f"vdbench's output (its logfile and each slave's stdout): {run.output_dir} on "
                          f"{host_params.name}")
    parsed = parse_output_dir(run.files, expected_runs={rd.name: rd.threads})
    rows = [point_row(wb, phase, group, rd, total, parsed, run.wall_s / max(1, runs))
            for total in parsed["totals"]]
    if not rows:
        raise RemoteError(f"{host_params.name}: {purpose}: vdbench finished but reported no run in totals.html")
    raw = {f"output__{name}": text for name, text in run.files.items()}  # output/<name>, flattened
    raw.update({"parmfile": parmfile, "console.txt": run.console})
    ids = [(f"{group}_t{int(total['threads']):05d}", total) for total in parsed["totals"]]
    raw[INTERVALS_FILE] = table_text([r for pid, total in ids for r in interval_table(pid, rd, total, parsed)],
                                     INTERVAL_COLUMNS)
    histograms = [r for pid, total in ids for r in histogram_table(pid, total, parsed)]
    if histograms:
        raw[HISTOGRAM_FILE] = table_text(histograms, HISTOGRAM_COLUMNS)
    wb.store.save_points(phase, group, rows, raw)
    if bar is not None and done_runs < runs:
        bar.update(runs - done_runs)
    for row in rows:
        row["reused"] = False
    return rows


def point_row(wb, phase: str, group: str, rd: RunDefinition, total: dict[str, Any],
              parsed: dict[str, Any], wall_s: float) -> dict[str, Any]:
    """The tidy row of one vdbench run (totals avg line + its interval rows)."""
    cfg = wb.cfg
    workload: Workload = cfg.workload(rd.workload)
    threads = int(total["threads"])
    outstanding = outstanding_ios(threads, cfg)
    point_id = f"{group}_t{threads:05d}"
    table = interval_table(point_id, rd, total, parsed)
    shares = histogram_shares(run_histogram(total, parsed), SHARE_LIMITS_US)
    intervals = [r for r in parsed["summary"]
                 if r.get("run_index") == total["run_index"] and r.get("row_type", "interval") == "interval"
                 and not r.get("is_avg") and isinstance(r.get("interval"), int)
                 and r["interval"] >= (total.get("interval_start") or 2)]
    verdict = interval_verdict(table)
    # Little's law per interval: vdbench's measured queue depth against IOPS x response time
    law_ratios = sorted(r["queue_depth"] / (r["iops"] * r["resp_ms"] / 1000.0) for r in intervals
                        if r.get("queue_depth") and r.get("iops") and r.get("resp_ms"))
    read_share = (total.get("read_pct") or 0.0) / 100.0
    row = base_row(cfg, phase=phase, point_id=point_id, engine="vdbench", workload=workload,
                   iodepth=1, threads=threads, outstanding=outstanding, hosts=[h.name for h in cfg.hosts],
                   runtime_s=rd.elapsed_s, ramp_s=rd.warmup_s or rd.interval_s, repeat=0, wall_s=wall_s)
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
        **verdict,
        "steadystate_attained": verdict["interval_steady"],
        "interval_littles_law_ratio": round(law_ratios[len(law_ratios) // 2], 3) if law_ratios else None,
        "vdbench_loop": total.get("loop"),
        "opened_for_write": any(parsed["opened"].values()) if parsed["opened"] else None,
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
    :func:`~flashpoc.plan.vdbench.threads_per_host`), each host also has ``outstanding_ios``;
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
    read, write or total (all I/Os)."""
    return [{"point_id": point_id, "direction": r["direction"], "count": r["count"],
             "clat_us": float(r["bucket_hi_us"] if r["bucket_hi_us"] is not None else r["bucket_lo_us"])}
            for r in run_histogram(total, parsed) if r["count"]]


def interval_table(point_id: str, rd: RunDefinition, total: dict[str, Any], parsed: dict[str, Any]) -> list[dict]:
    """The rows of one vdbench run's ``intervals.csv``: every interval line of summary.html,
    those before the average's first interval (``avg_2-N``: interval 1) marked warm-up;
    ``second`` is the interval number x ``interval=`` seconds."""
    start = total.get("interval_start") or 2
    out = []
    for r in parsed["summary"]:
        if (r.get("run_index") != total["run_index"] or r.get("row_type", "interval") != "interval"
                or r.get("is_avg") or not isinstance(r.get("interval"), int)):
            continue
        read_share = (r.get("read_pct") or 0.0) / 100.0
        out.append({"point_id": point_id, "second": r["interval"] * rd.interval_s, "iops": r["iops"],
                    "read_iops": r["iops"] * read_share, "write_iops": r["iops"] * (1.0 - read_share),
                    "lat_mean_ms": r.get("resp_ms"),
                    "read_lat_mean_ms": r.get("read_resp_ms") if read_share > 0 else None,
                    "write_lat_mean_ms": r.get("write_resp_ms") if read_share < 1 else None,
                    "warmup": r["interval"] < start})
    return out


def probe(wb, bar=None) -> list[dict[str, Any]]:
    """The probe on vdbench: one invocation over the probe's thread list (linear, or the
    doubling ladder), then, for the adaptive strategy, one invocation per refine point."""
    cfg = wb.cfg
    first = probe_run(cfg)
    rows = run_invocation(wb, "probe", first, bar=bar)
    if cfg.probe.strategy == "adaptive":
        stepper = analysis.AdaptiveProbe(min_threads=cfg.probe.min_threads, max_threads=cfg.probe.max_threads,
                                         gain_pct=cfg.probe.gain_pct, step=cfg.probe.step)
        measured = {int(r["threads"]) for r in rows}
        while (threads := stepper.next_threads(to_points(rows))) is not None and threads not in measured:
            rows += run_invocation(wb, "probe", probe_run_at(cfg, threads), bar=bar)
            measured.add(threads)
    return rows


def probe_run_at(cfg, threads: int) -> RunDefinition:
    """The probe's run definition at one thread count (e.g. the plateau, again on fewer hosts)."""
    return RunDefinition(**{**_rd_fields(probe_run(cfg)), "threads": (threads,)})


def scaling_threads(cfg, fewer, threads: int) -> int:
    """The threads (per SD) that give each host of the campaign ``fewer`` (the same, on fewer
    hosts) the I/Os in flight each host of ``cfg`` had at ``threads``: vdbench's threads are per
    SD and spread over all the hosts, so the same threads on fewer hosts would load each host
    more. ``threads x SDs / hosts`` per host, rounded to the nearest whole thread (at least 1)."""
    per_host = outstanding_ios(threads, cfg) / len(cfg.hosts)
    return max(1, round(per_host * len(fewer.hosts) / len(fewer.targets)))


def sweep(wb, plan: dict[str, list[int]], bar=None) -> list[dict[str, Any]]:
    """The sweep on vdbench: one invocation per workload over its thread list."""
    rows = []
    for name, threads in plan.items():
        rows += run_invocation(wb, "sweep", sweep_run(wb.cfg, threads, name), bar=bar)
    return rows


def _rd_fields(rd: RunDefinition) -> dict[str, Any]:
    return {f: getattr(rd, f) for f in rd.__dataclass_fields__}




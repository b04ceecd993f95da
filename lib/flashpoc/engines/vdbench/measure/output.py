"""One vdbench invocation's output read back: the error of a failed run, each run's row and each host's share, its
intervals and histogram."""

from __future__ import annotations

from typing import Any

from flashpoc.core.damage import DAMAGED, Loss, carry, note_loss
from flashpoc.core.errors import RemoteError
from flashpoc.params import Workload
from flashpoc.core.records import SHARE_LIMITS_US
from flashpoc.engines.vdbench.parse import histogram_shares, runs_without_histogram, vdbench_failure
from flashpoc.engines.vdbench.plan import RunDefinition, outstanding_ios, threads_per_host
from flashpoc.analysis.rows import add_littles_law, base_row, interval_verdict


def failure(run, purpose: str, where: str) -> RemoteError:
    """The error of a vdbench run that exited non-zero: vdbench's own message (not its Java stack
    trace) and the step it failed at, else the console's last lines, then ``where`` (its output)."""
    message = vdbench_failure(run.files, run.console) or "\n".join(run.console.strip().splitlines()[-15:])
    return RemoteError(f"{run.host}: {purpose}: vdbench exited {run.exit_code}:\n{message}\n{where}")


def point_row(wb, phase: str, pid: str, rd: RunDefinition, total: dict[str, Any], parsed: dict[str, Any],
              wall_s: float, data: str | None = None, repeat: int = 0) -> dict[str, Any]:
    """The tidy row of one vdbench run (totals avg line + its interval rows).

    Besides the metrics (:func:`measured_columns`): ``vdbench_rd`` (the run's name as vdbench
    printed it: ``rd1``, or a curve step ``rd1_(50%)``), ``iorate_requested`` (the I/O rate asked
    for; None at ``iorate=max`` and for the full-speed run of a curve), ``curve_pct`` (the curve
    step, % of the full-speed run's IOPS) and ``target_data`` (what the targets hold,
    :func:`target_data`).
    """
    cfg = wb.cfg
    workload: Workload = cfg.workload(rd.workload)
    threads = int(total["threads"])
    outstanding = outstanding_ios(threads, cfg)
    measured = measured_columns(total, parsed, rd.interval_s)
    first = first_counted(total, parsed)
    ramp_s = None if measured["avg_intervals"] is None else (first - 1) * rd.interval_s  # None: summary.html lost
    row = base_row(cfg, phase=phase, point_id=pid, engine="vdbench", workload=workload,
                   iodepth=1, threads=threads, outstanding=outstanding, hosts=[h.name for h in cfg.hosts],
                   runtime_s=rd.elapsed_s, ramp_s=ramp_s, repeat=repeat, wall_s=wall_s)
    rate = total.get("iorate_setting")
    row.update({
        **measured,
        "vdbench_loop": total.get("loop"),
        "vdbench_rd": total.get("rd"),
        "iorate_requested": rate if isinstance(rate, (int, float)) else None,
        "curve_pct": rd.curve_pct(total["rd"]),
        "target_data": data,
    })
    add_littles_law(row)
    if len(cfg.hosts) > 1:
        row["per_host"] = per_host(total, parsed, threads_per_host(cfg, threads))
    return row


def measured_columns(total: dict[str, Any], parsed: dict[str, Any], interval_s: int) -> dict[str, Any]:
    """What one run of a vdbench output directory (``parsed``: :func:`~..parse.parse_output_dir`)
    measured, as a point's columns: its totals.html average (:func:`total_columns`),
    ``avg_intervals`` (the intervals vdbench's average counts, see :func:`first_counted`),
    ``histogram_intervals`` (those its histogram counts: every one, warm-up included, see
    :func:`histogram_first`), the interval verdict of its summary.html intervals, the median
    Little's-law ratio of its intervals, whether vdbench opened an sd for writing and the
    histogram's latency shares. ``interval_s`` is vdbench's ``interval=``."""
    table = interval_table("", interval_s, total, parsed)
    shares = histogram_shares(run_histogram(total, parsed), SHARE_LIMITS_US)
    first = first_counted(total, parsed)
    hist_first = histogram_first(total, parsed, interval_s)
    intervals = [r for r in run_intervals(total, parsed) if first is not None and r["interval"] >= first]
    verdict = interval_verdict(table)
    # Little's law per interval: vdbench's measured queue depth against IOPS x response time
    law_ratios = sorted(r["queue_depth"] / (r["iops"] * r["resp_ms"] / 1000.0) for r in intervals
                        if r.get("queue_depth") and r.get("iops") and r.get("resp_ms"))
    row = {
        **total_columns(total),
        "avg_intervals": f"{first}-{total.get('interval_end')}",
        "histogram_intervals": f"{hist_first}-{total.get('interval_end')}" if hist_first is not None else None,
        **verdict,
        "steadystate_attained": verdict["interval_steady"],
        "interval_littles_law_ratio": law_ratios[len(law_ratios) // 2] if law_ratios else None,
        "opened_for_write": any(parsed["opened"].values()) if parsed["opened"] else None,
        **shares,
    }
    missing = set(parsed.get("missing") or ())
    series = (*verdict, "steadystate_attained", "avg_intervals", "interval_littles_law_ratio", "histogram_intervals")
    if first is None:
        note_loss(row, Loss("summary.html", f"the intervals of run {total['run_index']} do not average to its "
                                            f"{total.get('interval_label')} line, to its precision", series))
    lost = {"summary.html": series,
            "histogram.html": (*(f"{prefix}clat_under_{limit}_pct" for prefix in ("", "read_", "write_")
                                 for limit in SHARE_LIMITS_US), "histogram_intervals")}
    for name, columns in lost.items():
        if name in missing:
            note_loss(row, Loss(name, "missing", columns))
    if total["run_index"] in runs_without_histogram(parsed):
        note_loss(row, Loss("histogram.html", f"no bucket of run {total['run_index']}", lost["histogram.html"]))
    if any(name.endswith(".stdout.html") for name in missing):
        row["opened_for_write"] = None  # a slave's openings unknown
    return carry(row, parsed.get(DAMAGED))


def total_columns(total: dict[str, Any]) -> dict[str, Any]:
    """The row's metrics from one run's totals.html average line: IOPS (read and write by its read
    share), MiB/s, response times (ms), vdbench's queue depth, the host CPU and the interval label."""
    read_share = (total.get("read_pct") or 0.0) / 100.0
    return {
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
    }


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


def first_counted(total: dict[str, Any], parsed: dict[str, Any]) -> int | None:
    """The first interval vdbench's average counts (its IOPS, latency and CPU).

    The label says ``avg_<first>-<last>``, but vdbench 5.04.06 counts one interval more: the
    last warm-up interval (the first without ``warmup=``), as its numbers show (the average of
    intervals 1-10 under the label ``avg_2-10``); 5.04.01 and 5.04.07 count as labelled. And on a
    loaded host, where the slaves learn late that the warm-up is over (vdbench collects their
    statistics asynchronously), it can count from another interval still (seen: every interval,
    1-4, under the label ``avg_3-4``). The interval whose mean IOPS over ``first..last`` matches
    the average line to its printed precision is taken (the nearest match; on a tie the label's
    neighbour, then the label, then the others nearest the label); the label when summary.html
    has no interval of the run (it is missing); None when no start matches (the intervals or the
    average damaged: every real output matches).
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
    if matching:
        return min(matching)[2]
    return None if any(isinstance(v, (int, float)) for v in lines.values()) else start


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


def interval_table(point_id: str, interval_s: int, total: dict[str, Any], parsed: dict[str, Any]) -> list[dict]:
    """The rows of one vdbench run's ``intervals.csv``: every interval line of summary.html,
    those before the first interval vdbench's average counts (:func:`first_counted`) marked
    warm-up; ``second`` is the interval number x ``interval=`` seconds (``interval_s``). An
    interval without I/O has no latency (None, not vdbench's printed 0.000)."""
    first = first_counted(total, parsed)
    if first is None:
        return []  # its intervals do not add up to its average: lost (measured_columns says so)
    out = []
    for r in run_intervals(total, parsed):
        read_share = (r.get("read_pct") or 0.0) / 100.0
        iops = r["iops"]
        out.append({"point_id": point_id, "second": r["interval"] * interval_s, "iops": iops,
                    "read_iops": iops * read_share, "write_iops": iops * (1.0 - read_share),
                    "lat_mean_ms": r.get("resp_ms") if iops else None,
                    "read_lat_mean_ms": r.get("read_resp_ms") if iops and read_share > 0 else None,
                    "write_lat_mean_ms": r.get("write_resp_ms") if iops and read_share < 1 else None,
                    "warmup": r["interval"] < first})
    return out

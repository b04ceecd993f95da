"""fio job files from campaign parameters (pure: parameters in, job text out).

Thread semantics: a run point's ``threads`` is fio's ``numjobs`` (one process per thread),
each keeping the workload's ``iodepth`` I/Os in flight, spread over every target of the
host (fio's ``filename=a:b`` list). Outstanding I/Os per host = threads x iodepth.
"""

from __future__ import annotations

from flashpoc.params import Campaign, TargetParams, Workload
from flashpoc.engines.fio.settings import FioSettings

PERCENTILES = "1:5:10:25:50:75:90:95:99:99.5:99.9:99.95:99.99"

LOG_NAME = "flashpoc"
"""Base name of fio's per-job interval logs (``flashpoc_iops.<job>.log``, ``flashpoc_lat.<job>.log``),
written in the point's run directory."""


def outstanding_ios(workload: Workload, threads: int) -> int:
    """I/Os in flight per host at a point: threads x iodepth."""
    return threads * workload.iodepth


UNTIL_STEADY = ("iops:3%", 2)
"""fio's steady-state criterion and window (s) of a point that ends once its IOPS are steady
(``probe.until_steady``, ``sweep.until_steady``) when ``fio.steadystate`` sets none: every 1 s
IOPS sample of the last 2 s within 3 % of their mean."""


def until_steady(fio: FioSettings, runtime_s: int) -> tuple[str, int] | None:
    """The steady-state criterion and window (s) that end a point of at most ``runtime_s`` seconds
    early: ``fio.steadystate`` (every point has it already: None) or :data:`UNTIL_STEADY`; None
    when the window does not fit in the point (fio could never end it early)."""
    criterion, window = UNTIL_STEADY
    if fio.steadystate is not None or runtime_s <= window:
        return None
    return criterion, window


def render_job(campaign: Campaign, workload: Workload, threads: int, targets: list[TargetParams],
               *, runtime_s: int | None = None, host: str | None = None,
               steady: tuple[str, int] | None = None, rate_iops: int | None = None) -> str:
    """Return the fio job file text for one run point on one host.

    Args:
        campaign: validated campaign (its ``fio`` settings are used).
        workload: the I/O pattern.
        threads: fio ``numjobs`` (>= 1).
        targets: the targets of the host this job runs on (absolute paths).
        runtime_s: measured seconds (default ``campaign.settings.runtime_s``).
        host: the host's name, for a client/server run: the job is named ``<host>.<workload>``
            so the output says which host ran it.
        steady: ``(criterion, window_s)`` that ends the point once its IOPS are steady (fio
            ``steadystate``/``ss_dur``, see :func:`until_steady`), at most ``runtime_s``.
        rate_iops: a rate-controlled point: fio's ``rate_iops``, the IOPS of each thread (job).

    Raises:
        ValueError: on threads < 1 or no targets (the parameters schema prevents both).
    """
    if threads < 1:
        raise ValueError(f"threads must be >= 1, got {threads}")
    if not targets:
        raise ValueError("a fio job needs at least one target")
    fio: FioSettings = campaign.settings
    header = (f"; flashpoc {campaign.campaign}: workload {workload.name}, {threads} threads"
              f" x iodepth {workload.iodepth}")
    lines = [header, *_global_section(fio, targets, runtime_s or fio.runtime_s, steady),
             "", *_job_section(workload, threads, host, rate_iops)]
    return "\n".join(lines)


def _global_section(fio: FioSettings, targets: list[TargetParams], runtime: int,
                    steady: tuple[str, int] | None) -> list[str]:
    """The ``[global]`` section of a point's job: engine, timing, reporting, the targets, and the
    optional steady-state, interval-log and data-reduction lines."""
    sizes = [t.size_bytes for t in targets]
    lines = [
        "[global]",
        f"ioengine={fio.ioengine}",
        f"direct={int(fio.direct)}",
        "time_based=1",
        f"runtime={runtime}",
    ]
    if fio.ramp_s:
        lines.append(f"ramp_time={fio.ramp_s}")
    lines += [
        "group_reporting=1",
        f"randrepeat={int(fio.randrepeat)}",
        "norandommap=1",
        "clat_percentiles=1",
        f"percentile_list={PERCENTILES}",
        f"filename={':'.join(t.path for t in targets)}",
    ]
    if all(s is not None for s in sizes):
        lines.append(f"size={sum(sizes)}")
    if fio.steadystate:
        lines += [f"steadystate={fio.steadystate}", f"ss_dur={fio.ss_dur_s}", f"ss_ramp={fio.ss_ramp_s}"]
    elif steady is not None:
        lines += [f"steadystate={steady[0]}", f"ss_dur={steady[1]}"]
    if fio.interval_s:
        lines += [f"write_iops_log={LOG_NAME}", f"write_lat_log={LOG_NAME}", f"log_avg_msec={fio.interval_s * 1000}"]
    if fio.buffer_compress_percentage is not None:
        lines += [f"buffer_compress_percentage={fio.buffer_compress_percentage}", "refill_buffers=1"]
    if fio.dedupe_percentage is not None:
        lines.append(f"dedupe_percentage={fio.dedupe_percentage}")
    return lines


def _job_section(workload: Workload, threads: int, host: str | None, rate_iops: int | None) -> list[str]:
    """The point's job section: the workload's pattern, its rate (a rate step) and the threads."""
    lines = [
        f"[{host + '.' if host else ''}{workload.name}]",
        f"rw={workload.rw}",
        f"bs={workload.bs}",
    ]
    if workload.rwmixread is not None:
        lines.append(f"rwmixread={workload.rwmixread}")
    if rate_iops is not None:
        lines.append(f"rate_iops={rate_iops}")
    lines += [f"iodepth={workload.iodepth}", f"numjobs={threads}", ""]
    return lines


def rate_per_job(total_iops: float, threads: int, hosts: int) -> int:
    """fio's ``rate_iops`` (per job) that asks ``total_iops`` of ``threads`` jobs on each of
    ``hosts`` hosts: rounded to the nearest whole I/O per second, at least 1."""
    return max(1, round(total_iops / (threads * hosts)))


def render_layout_job(target: TargetParams, fio: FioSettings) -> str:
    """Return the fio job that creates and fills a scratch file target with data.

    Written sequentially in 1 MiB blocks with the campaign's compress/dedupe settings, so
    reads later hit real, non-zero data.
    """
    if not target.create or target.size_bytes is None:
        raise ValueError(f"target {target.name} is not a scratch file to create")
    lines = [
        f"; flashpoc: create scratch file for target {target.name}",
        "[layout]",
        f"filename={target.path}",
        f"size={target.size_bytes}",
        "rw=write",
        "bs=1m",
        "ioengine=psync",
        f"direct={int(fio.direct)}",
        "end_fsync=1",
    ]
    if fio.buffer_compress_percentage is not None:
        lines.append(f"buffer_compress_percentage={fio.buffer_compress_percentage}")
    if fio.dedupe_percentage is not None:
        lines.append(f"dedupe_percentage={fio.dedupe_percentage}")
    return "\n".join(lines) + "\n"


FILL_BS = 1024 * 1024
"""The fill's block size (bytes): sequential writes of 1 MiB, as the layout's."""


def fill_data(fio: FioSettings) -> str:
    """The data fio's fill (and every write) writes, in fio's own words: its reducibility."""
    parts = [f"{key}={value}" for key, value in (("buffer_compress_percentage", fio.buffer_compress_percentage),
                                                 ("dedupe_percentage", fio.dedupe_percentage)) if value is not None]
    return "fio " + (" ".join(parts) if parts else "random data (incompressible, no dedup)") + ", refill_buffers"


def render_fill_job(campaign: Campaign, targets: list[TargetParams], sizes: dict[str, int]) -> str:
    """The fio job that fills ``targets`` of one host once, before the probe: one job per target
    (named after it, so fio's output says what each wrote), each writing its working set
    (``sizes``: bytes per target name) sequentially from start to end in :data:`FILL_BS` blocks
    of the campaign's data (``buffer_compress_percentage``, ``dedupe_percentage``), every
    buffer refilled so that nothing dedups but what the settings ask for.

    Raises:
        ValueError: no targets, or a working set smaller than one block.
    """
    if not targets:
        raise ValueError("a fill needs at least one target")
    fio: FioSettings = campaign.settings
    lines = [f"; flashpoc {campaign.campaign}: fill of {', '.join(t.name for t in targets)} ({fill_data(fio)})",
             "[global]", f"ioengine={fio.ioengine}", f"direct={int(fio.direct)}", "rw=write", f"bs={FILL_BS}",
             "iodepth=8", "refill_buffers=1", "end_fsync=1"]
    if fio.buffer_compress_percentage is not None:
        lines.append(f"buffer_compress_percentage={fio.buffer_compress_percentage}")
    if fio.dedupe_percentage is not None:
        lines.append(f"dedupe_percentage={fio.dedupe_percentage}")
    for target in targets:
        size = sizes[target.name] // FILL_BS * FILL_BS
        if size < FILL_BS:
            raise ValueError(f"target {target.name}: a working set of {sizes[target.name]} bytes is below one "
                             f"fill block ({FILL_BS})")
        lines += ["", f"[{target.name}]", f"filename={target.path}", f"size={size}"]
    return "\n".join(lines) + "\n"

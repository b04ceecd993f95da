"""The metrics of one SLOB run from the files runit.sh left (pure: file contents in, numbers out).

A SLOB point is read from its AWR reports (:mod:`flashpoc.oracle.awr_metrics`): the instance report
(``awr.txt``, else ``awr.html.gz`` / ``awr.html``) and, on RAC, the global report of the same
snapshots (``awr_rac.txt``, else ``awr_rac.html.gz`` / ``awr_rac.html``), which makes the
point's IOPS the whole cluster's. A run of ``database_statistics_type statspack`` leaves
``statspack.txt`` instead: without an AWR report the point is read from it (``scope``
``instance (Statspack report)``, :mod:`flashpoc.oracle.statspack`). Host CPU comes from the AWR
"Host CPU" section (exactly the snapshot window); ``mpstat.out`` adds the DB host's CPU use seen
by the OS over the same window (``mpstat_*_pct``: means of the ``all`` rows whose clock time lies
between the snapshots' begin and end times), and ``tm.out`` the seconds runit.sh measured (``tm_s``).
A damaged file costs its own numbers, never another's, and the point says so in its ``damaged``
column (:mod:`flashpoc.core.damage`): a missing, empty or unreadable ``tm.out`` loses ``tm_s``; an
``mpstat.out`` whose samples do not cover the snapshot window (cut short, a sample missing or
printed twice: :func:`flashpoc.hosts.sampled.check_cover`) or whose ``Average:`` line is not the
mean of its samples loses the ``mpstat_*`` columns, never averaged over what remains; a series
file that cannot be read, or does not cover the window, loses the time series
(``intervals_error``); a report that cannot be read is passed over for its twin
(``awr.txt`` for ``awr.html.gz``), named, else the point is refused.
``iostat.out`` gives the point's time series (:func:`iostat_intervals`), or, when the datafiles
are on NFS through the kernel's client (``database: datafiles: knfs``), ``mountstats.out`` does
(the NFS mounts' READ/WRITE, :func:`flashpoc.hosts.mountstats.nfs_intervals`): the local disks
are not the database's I/O then. Direct NFS (``dnfs``) I/O is in neither: a dNFS point's series
is the database's own counters sampled during the run through python-oracledb (``dbstat.json``,
:func:`flashpoc.oracle.dbstat.dbstat_intervals`), which needs ``oracle:``; its figures stay the
AWR report's.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from flashpoc.oracle.awr_metrics import histogram_buckets, point_metrics, whole_ms_latencies
from flashpoc.core.damage import Loss, note_losses
from flashpoc.core.errors import ParseError
from flashpoc.params import compile_pattern
from flashpoc.oracle.awr import decode_report, parse_awr
from flashpoc.oracle.dbstat import DBSTAT_FILE, dbstat_intervals
from flashpoc.hosts.mountstats import nfs_intervals
from flashpoc.hosts.osstat import MPSTAT_SUMMARY_COLUMNS, clock_24h, cpu_summary, parse_iostat, parse_mpstat, parse_tm
from flashpoc.hosts.sampled import check_cover, clock_seconds, crosses_midnight, known_window

INSTANCE_REPORTS = ("awr.txt", "awr.html.gz", "awr.html")

PHYSICAL_DEVICES = r"^(sd[a-z]+|nvme\d+n\d+|vd[a-z]+|xvd[a-z]+|hd[a-z]+)$"
"""Default devices of :func:`iostat_intervals`: whole physical disks (not partitions, not
device-mapper or md devices, which would count the same I/O twice over multipath or LVM)."""
INTERVAL_SOURCES = {
    "local": "iostat: the disks of the host that ran runit.sh (on RAC one node's share)",
    "knfs": "NFS client: READ/WRITE of the datafiles' NFS mounts (/proc/self/mountstats, as nfsiostat)",
    "dnfs": "database: physical read/write IO requests and db file sequential read waits (gv$sysstat, "
            "gv$system_event sampled per instance through oracle:), as Direct NFS I/O is seen by neither iostat nor "
            "the kernel's NFS counters",
}
"""What a SLOB point's time series counts, by ``database: datafiles:`` (the point's ``intervals_source``)."""
CLUSTER_SCOPE = "cluster (every instance summed, as the RAC global report)"
"""A dNFS series' ``intervals_scope`` when the point's figures are the RAC global report's; else
``instance N`` (the instance of the point's report or snapshot rows)."""
STATSPACK_REPORT = "statspack.txt"
"""The report runit.sh leaves with ``database_statistics_type statspack`` (read when there is no AWR report)."""
RAC_REPORTS = ("awr_rac.txt", "awr_rac.html.gz", "awr_rac.html")
SNAPSHOT_ROWS_FILES = ("awr_rows.json", "statspack_rows.json")
"""The snapshot rows a point taken through ``oracle:`` keeps (DBA_HIST, or STATS$ without the Diagnostics Pack)."""
MPSTAT_COLUMNS = (*(f"mpstat_{column}" for column in MPSTAT_SUMMARY_COLUMNS), "mpstat_intervals")
"""The point's columns from ``mpstat.out`` (lost together when it is damaged)."""
AVERAGE_TOLERANCE_PCT = 0.5
"""How far (percentage points) mpstat's ``Average:`` line may be from the mean of its samples:
mpstat averages its CPU ticks, not its printed two-decimal shares, so they differ a little."""
SERIES_FILES = {"local": "iostat.out", "knfs": "mountstats.out", "dnfs": DBSTAT_FILE}
"""The file of a point's time series, by ``database: datafiles:``."""
RUN_FILES = (*INSTANCE_REPORTS, *RAC_REPORTS, STATSPACK_REPORT, "iostat.out", "mpstat.out", "vmstat.out", "tm.out")
"""The files SLOB's runit.sh leaves in a run directory that flashpoc reads (a directory with none
of them is not a SLOB run)."""


def file_text(name: str, data: bytes | str) -> str:
    """Text of a run file; ``*.gz`` contents are gunzipped (:func:`flashpoc.oracle.awr.decode_report`).

    Raises:
        ParseError: a ``.gz`` file that is not valid gzip.
    """
    return data if isinstance(data, str) else decode_report(data, name)


def _first(files: Mapping[str, bytes | str], names: tuple[str, ...]) -> str | None:
    return next((n for n in names if files.get(n)), None)


def slob_point_metrics(files: Mapping[str, bytes | str]) -> dict[str, Any]:
    """Metrics of one SLOB run from its files (name -> contents); see :func:`read_slob_run`."""
    return read_slob_run(files)[0]


def read_slob_run(files: Mapping[str, bytes | str], devices: str | None = None, *, datafiles: str = "local",
                  nfs_mounts: str | None = None, exact: Mapping[str, Any] | None = None
                  ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Metrics and time series of one SLOB run from its files (name -> contents), its AWR
    report read once.

    Args:
        files: the run's files.
        devices: regular expression of the iostat devices of the time series (default
            :data:`PHYSICAL_DEVICES`).
        datafiles: ``local``, ``knfs`` or ``dnfs`` (``database: datafiles:``): which counters make
            the time series (:data:`INTERVAL_SOURCES`).
        nfs_mounts: regular expression of the datafiles' NFS mount points (``knfs``; default all).
        exact: the interval's metrics from its snapshot rows (``oracle:``), whose exact averages stand
            for a Statspack report's whole milliseconds (:func:`flashpoc.oracle.awr_metrics.whole_ms_latencies`).

    Returns:
        ``(metrics, intervals)``. ``metrics``: the keys of
        :func:`flashpoc.oracle.awr_metrics.point_metrics` (IOPS, MB/s, latencies in us and ms,
        histogram shares, DB and host CPU), plus ``awr_report`` / ``awr_rac_report`` (the file
        names read), ``latency_note`` (a Statspack report's whole-millisecond averages: not stored as
        latencies, :func:`flashpoc.oracle.awr_metrics.whole_ms_latencies`), ``mpstat_usr_pct``, ``mpstat_sys_pct``,
        ``mpstat_iowait_pct``, ``mpstat_idle_pct``, ``mpstat_intervals`` (when mpstat.out covers the
        snapshot window), ``tm_s`` (tm.out), ``intervals_source`` and
        ``intervals_error`` (when iostat.out, mountstats.out or dbstat.json could not be read: the time series
        is lost, not the point; ``dnfs`` without dbstat.json: the point ran without ``oracle:``), and
        ``damaged`` (:mod:`flashpoc.core.damage`) naming each file missing, empty or damaged, what was wrong
        and the columns it cost (those are None).
        ``intervals``: :func:`iostat_intervals` of iostat.out (``knfs``: the NFS mounts' of
        mountstats.out; ``dnfs``: the database's counters of dbstat.json) in the report's window
        ([] without the file).

    Raises:
        ParseError: there is neither an AWR report nor statspack.txt, or none of a report's twins
            can be read.
    """
    losses: list[Loss] = []
    name, report = _read_report(files, (*INSTANCE_REPORTS, STATSPACK_REPORT), losses)
    rac_name, rac = _read_report(files, RAC_REPORTS, losses, required=False)
    if rac is not None and rac.get("kind") != "rac_global":
        rac, rac_name = None, None
    metrics = point_metrics(report, rac)
    if rac is None:
        metrics.update(whole_ms_latencies(metrics, report, exact))
    metrics["awr_report"] = name
    metrics["awr_rac_report"] = rac_name
    header = report.get("header") or {}
    metrics.update(_run_file(files, "mpstat.out", MPSTAT_COLUMNS, lambda text: mpstat_window(text, header), losses))
    metrics.update(_run_file(files, "tm.out", ("tm_s",), parse_tm, losses))
    instance = None if rac is not None else _report_instance(header) or 0  # 0: the report names none
    series, intervals = _series(lambda: _run_intervals(files, header, devices, datafiles, nfs_mounts, instance, True),
                                datafiles, instance, losses)
    return note_losses({**metrics, **series}, losses), intervals


def _read_report(files: Mapping[str, bytes | str], names: tuple[str, ...], losses: list[Loss], *,
                 required: bool = True) -> tuple[str | None, dict[str, Any] | None]:
    """``(name, parse)`` of the first of ``names`` the run left that can be read: one that is
    empty or refused is passed over for the next (its twin in another rendering), with a
    :class:`~flashpoc.core.damage.Loss` naming it in ``losses``.

    Raises:
        ParseError: none of them can be read (the first's reason), or (``required``) the run left none.
    """
    errors = []
    for name in (n for n in names if n in files):
        if not files[name]:
            losses.append(Loss(name, "empty"))
            continue
        try:
            report = parse_awr(file_text(name, files[name]))
        except ParseError as error:
            errors.append(error)
            losses.append(Loss(name, f"not read ({error})"))
            continue
        return name, report
    if errors:
        raise errors[0]
    if required:
        raise ParseError("the run left no AWR report (awr.txt or awr.html.gz) nor statspack.txt: see console.txt "
                         "and slob_debug.out of the point")
    return None, None


def _run_file(files: Mapping[str, bytes | str], name: str, columns: tuple[str, ...],
              read: Callable[[str], dict[str, Any]], losses: list[Loss]) -> dict[str, Any]:
    """``read`` of the run's file ``name``; a file missing, empty or that cannot be read loses
    ``columns``, named in ``losses``."""
    if name not in files:
        losses.append(Loss(name, "missing", columns))
        return {}
    try:
        text = file_text(name, files[name])
        if not text.strip():
            raise ParseError("empty")
        return read(text)
    except ParseError as error:
        losses.append(Loss(name, str(error).removeprefix(f"{name}: "), columns))
        return {}


class _DamagedSeries(ParseError):
    """A point's time series lost to its file (``file``): missing, or not read."""

    def __init__(self, file: str, message: str):
        super().__init__(message)
        self.file = file


def read_sql_run_series(files: Mapping[str, bytes | str], begin_snap: int, end_snap: int, devices: str | None = None,
                        *, datafiles: str = "local", nfs_mounts: str | None = None, instance: int | None = None
                        ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The time series of a run that left no report, its figures read from the snapshot rows
    (``awr_rows.json``, ``statspack_rows.json``) of ``instance`` (the connected instance): its
    window is the ``end_interval_time`` of the begin and end snapshots (the database's clock, to
    the second, as a report prints its Snap Time); a dNFS series is that instance's.

    Returns:
        ``({"intervals_source", and "intervals_error" when the series is lost}, intervals)`` as
        :func:`read_slob_run` gives them.
    """
    losses: list[Loss] = []
    series, intervals = _series(lambda: _run_intervals(files, _snapshot_window(files, begin_snap, end_snap), devices,
                                                       datafiles, nfs_mounts, instance, False), datafiles, instance,
                                losses)
    return note_losses(series, losses), intervals


def _series(intervals: Callable[[], list[dict[str, Any]]], datafiles: str, instance: int | None,
            losses: list[Loss]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """``({"intervals_source"[, "intervals_scope"][, "intervals_error"]}, intervals())``: a series that
    cannot be read is lost with its reason, never the point; one lost to its file (missing, damaged,
    not covering the window) is also named in ``losses``. A dNFS series' scope is the cluster's
    (``instance`` None) or ``instance N``'s."""
    source = {"intervals_source": INTERVAL_SOURCES[datafiles]}
    if datafiles == "dnfs":
        source["intervals_scope"] = (CLUSTER_SCOPE if instance is None else f"instance {instance}" if instance
                                     else "instance (not named by the report)")
    try:
        return source, intervals()
    except ParseError as error:
        if isinstance(error, _DamagedSeries):
            losses.append(Loss(error.file, f"{str(error).removeprefix(error.file + ': ')} (the time series is lost)"))
        return {**source, "intervals_error": str(error)}, []


def _snapshot_window(files: Mapping[str, bytes | str], begin_snap: int, end_snap: int) -> dict[str, str]:
    """``{"begin_time", "end_time"}`` as a report's header prints them (``17-Feb-20 09:26:07``): the
    ``end_interval_time`` of the snapshot rows of ``begin_snap`` and ``end_snap``."""
    name = _first(files, SNAPSHOT_ROWS_FILES)
    if name is None:
        raise ParseError("the run left no report and no snapshot rows (awr_rows.json, statspack_rows.json): "
                         "its time series has no window")
    try:
        times = {int(row["snap_id"]): datetime.fromisoformat(str(row["end_interval_time"])[:19])
                 for row in json.loads(file_text(name, files[name]))["snapshot"]}
    except (ValueError, KeyError, TypeError) as error:
        raise _DamagedSeries(name, f"{name}: the snapshots' end_interval_time cannot be read ({error}): "
                                   "its time series has no window") from None
    missing = [snap for snap in (begin_snap, end_snap) if snap not in times]
    if missing:
        raise _DamagedSeries(name, f"{name}: no snapshot row of snap {missing[0]}: its time series has no window")
    return {"begin_time": times[begin_snap].strftime("%d-%b-%y %H:%M:%S"),
            "end_time": times[end_snap].strftime("%d-%b-%y %H:%M:%S")}


def _report_instance(header: Mapping[str, Any]) -> int | None:
    """The instance number an instance report's header prints (``Inst Num``), or None (not printed)."""
    instances = header.get("instances") or []
    number = instances[0].get("inst_num") if len(instances) == 1 else None
    return number if isinstance(number, int) else None


def _run_intervals(files: Mapping[str, bytes | str], header: Mapping[str, Any], devices: str | None,
                   datafiles: str, nfs_mounts: str | None, instance: int | None, cover: bool) -> list[dict[str, Any]]:
    """The run's time series (see :func:`read_slob_run`): iostat.out's for local datafiles,
    mountstats.out's NFS mounts' for ``knfs``, dbstat.json's database counters for ``dnfs`` (of
    ``instance``, or every instance summed); with ``cover``, its samples must cover the window (a
    report's snapshots, taken while the run's samplers ran).

    Raises:
        _DamagedSeries: the series' file is missing or cannot be read (naming it).
        ParseError: the series cannot be the point's (a report that names no instance).
    """
    name = SERIES_FILES[datafiles]
    if datafiles == "dnfs" and instance == 0:
        raise ParseError("the report names no instance (Inst Num): the series cannot be its instance's")
    if name in files and not files[name]:
        raise _DamagedSeries(name, f"{name} is empty")
    if name not in files:
        raise _DamagedSeries(name, {
            "local": "the run left no iostat.out (iostat -x of the DB host's disks)",
            "knfs": "the run left no mountstats.out (the NFS client's counters)",
            "dnfs": "a Direct NFS point's time series is the database's own counters, sampled through "
                    "python-oracledb: set oracle: (no dbstat.json)"}[datafiles])
    begin, end = _clock(header.get("begin_time")), _clock(header.get("end_time"))
    try:
        text = file_text(name, files[name])
        if datafiles == "local":
            return iostat_intervals(text, header, devices or PHYSICAL_DEVICES, cover=cover)
        if datafiles == "knfs":
            mounts = compile_pattern(nfs_mounts, "database.nfs_mounts") if nfs_mounts else None
            return nfs_intervals(text, begin, end, mounts, cover=cover)
        return dbstat_intervals(text, begin, end, instance, cover=cover)
    except _DamagedSeries:
        raise
    except ParseError as error:
        raise _DamagedSeries(name, str(error)) from None


def point_wait_histogram(files: Mapping[str, bytes | str], event: str) -> list[dict[str, Any]]:
    """``event``'s wait histogram per bucket (:func:`flashpoc.oracle.awr_metrics.histogram_buckets`) from
    a run's files: the RAC global report's when there is one, else the instance report's; ``[]``
    without a report or a histogram of the event."""
    for names in (RAC_REPORTS, (*INSTANCE_REPORTS, STATSPACK_REPORT)):
        name = _first(files, names)
        if name is not None:
            report = parse_awr(file_text(name, files[name]))
            if names is not RAC_REPORTS or report.get("kind") == "rac_global":
                return histogram_buckets(report.get("event_histograms") or (), event)
    return []


def _clock(awr_time: str | None) -> str | None:
    """``17-Feb-20 09:26:07`` -> ``09:26:07`` (None when it does not parse)."""
    for fmt in ("%d-%b-%y %H:%M:%S", "%d-%b-%y %H:%M"):
        try:
            return datetime.strptime(str(awr_time).strip(), fmt).strftime("%H:%M:%S")
        except ValueError:
            continue
    return None


def mpstat_window(text: str, header: Mapping[str, Any]) -> dict[str, Any]:
    """Mean CPU use (%) of mpstat's ``all`` rows inside the AWR snapshot window.

    The window is the clock time from ``header["begin_time"]`` to ``header["end_time"]``; a
    window that crosses midnight, samples that do, or times that do not parse, give ``{}`` (no guess).

    Raises:
        ParseError: mpstat.out cannot be read; its samples do not cover the window
            (:func:`flashpoc.hosts.sampled.check_cover`: cut short, a sample missing or printed
            twice), or its ``Average:`` line is not the mean of its samples (within
            :data:`AVERAGE_TOLERANCE_PCT`): never a mean of what remains.
    """
    begin, end = _clock(header.get("begin_time")), _clock(header.get("end_time"))
    if not known_window(begin, end):
        return {}
    rows = parse_mpstat(text)
    samples = [r for r in rows if r.get("cpu") == "all" and not r.get("is_average")]
    clocks = [str(r["time_24h"]) for r in samples]
    if crosses_midnight(clocks):
        return {}
    check_cover(clocks, begin, end, "mpstat.out")
    _check_average(rows, samples)
    summary = cpu_summary([r for r in samples if begin <= str(r["time_24h"]) <= end])
    out: dict[str, Any] = {"mpstat_intervals": summary["intervals"]}
    for column in MPSTAT_SUMMARY_COLUMNS:
        out[f"mpstat_{column}"] = summary[f"{column}_mean"]
    return out


def _check_average(rows: list[dict[str, Any]], samples: list[dict[str, Any]]) -> None:
    """Refuse an ``Average: all`` line (mpstat ended normally) that is not the mean of the file's
    ``all`` samples: what mpstat prints twice disagrees."""
    averages = [r for r in rows if r.get("is_average") and r.get("cpu") == "all"]
    if not averages:
        return
    if len(averages) > 1:
        raise ParseError("mpstat.out: its 'Average:' line of all CPUs is printed twice")
    mean = cpu_summary(samples)
    for column in MPSTAT_SUMMARY_COLUMNS:
        if abs(mean[f"{column}_mean"] - averages[0][column]) > AVERAGE_TOLERANCE_PCT:
            raise ParseError(f"mpstat.out: its Average {column} {averages[0][column]:g} is not the mean of its "
                             f"{len(samples)} samples ({mean[f'{column}_mean']:.2f})")


def iostat_intervals(text: str, header: Mapping[str, Any], devices: str = PHYSICAL_DEVICES, *,
                     cover: bool = False) -> list[dict[str, Any]]:
    """The DB host's device I/O per iostat report of a SLOB run (``iostat -t -xm 3``).

    Report 0 (averages since boot) is left out. For each later report, IOPS are ``r/s + w/s``
    summed over the devices whose name matches ``devices`` and the mean latency is their
    ``r_await`` / ``w_await`` weighted by ``r/s`` / ``w/s``. ``iostat -t`` stamps a report at
    its end: reports stamped at or before the AWR begin snapshot are marked ``warmup``, and
    reports stamped after the end snapshot are left out. These are the devices of the host
    that ran runit.sh: on RAC, one node's share of the cluster's I/O.

    Args:
        text: iostat.out.
        header: the AWR report's header (``begin_time``/``end_time``, e.g. ``17-Feb-20 09:26:07``).
        devices: regular expression of the device names to add up.
        cover: whether the reports must cover the window (:func:`flashpoc.hosts.sampled.check_cover`:
            a report's snapshots, taken while iostat ran).

    Returns:
        Rows ``second`` (end of the report, seconds after the first one started; the first
        report's length is the gap to the second), ``iops``, ``read_iops``, ``write_iops``,
        ``lat_mean_ms``, ``read_lat_mean_ms``, ``write_lat_mean_ms``, ``warmup``. Empty when the
        reports carry no ``-t`` timestamps, the window's times do not parse or it crosses midnight.

    Raises:
        ParseError: iostat.out cannot be read, or it has no ``r/s``, ``w/s``, ``r_await`` or
            ``w_await`` column (``iostat -x`` of a sysstat that prints them is needed); a report
            lists a device twice, has no timestamp where the others have one, or (but the file's
            last, cut short) lists fewer of the devices than the others; (``cover``) the reports
            do not cover the window. A damaged file loses the series, never a report of it unsaid.
        ParameterError: ``devices`` is no regular expression (naming ``engine.slob.iostat_devices``).
    """
    pattern = compile_pattern(devices, "engine.slob.iostat_devices")
    begin, end = _clock(header.get("begin_time")), _clock(header.get("end_time"))
    if not known_window(begin, end):
        return []
    reports = _iostat_reports(text, pattern)
    every = [reports[i] for i in sorted(reports)]
    if not _in_order(every, begin, end, cover) or len(every) < 2:
        return []
    seconds = [clock_seconds(report["clock"]) for report in every]
    start = seconds[0] - (seconds[1] - seconds[0])
    full = max(r["devices"] for r in every)
    rows = []
    for number, (report, at) in enumerate(zip(every, seconds)):
        if report["clock"] > end:
            break
        if report["devices"] < full:
            if number < len(every) - 1:
                raise ParseError(f"iostat.out: its report at {report['clock']} lists {report['devices']} of the "
                                 f"{full} devices the others list: damaged")
            continue  # the file's last report, cut short
        rows.append(_iostat_row(report, at - start, begin))
    return rows


def _in_order(reports: list[dict[str, Any]], begin: str, end: str, cover: bool) -> bool:
    """Whether iostat ``reports`` can be read in the window: False without ``-t`` timestamps or
    across midnight (no guess).

    Raises:
        ParseError: (``cover``) there are none or they do not cover the window, or a report up to
            its end is stamped no later than the one before it.
    """
    if not reports and cover:
        raise ParseError("iostat.out: it holds no report after its first (since boot): cut short?")
    if not reports or reports[0]["clock"] is None:
        return False
    clocks = [r["clock"] for r in reports]
    if crosses_midnight(clocks):
        return False
    if cover:
        check_cover(clocks, begin, end, "iostat.out")
    used = clocks[:next((i + 1 for i, clock in enumerate(clocks) if clock > end), len(clocks))]
    back = next((i for i, (a, b) in enumerate(zip(used, used[1:])) if b <= a), None)
    if back is not None:
        raise ParseError(f"iostat.out: its report at {used[back + 1]} follows one at {used[back]}: damaged")
    return True


def _iostat_row(report: Mapping[str, Any], second: float, begin: str) -> dict[str, Any]:
    """The time series row of one iostat report (:func:`_iostat_reports`)."""
    total = report["r"] + report["w"]
    return {
        "second": float(second), "iops": total, "read_iops": report["r"], "write_iops": report["w"],
        "lat_mean_ms": (report["r_lat"] + report["w_lat"]) / total if total else None,
        "read_lat_mean_ms": report["r_lat"] / report["r"] if report["r"] else None,
        "write_lat_mean_ms": report["w_lat"] / report["w"] if report["w"] else None,
        "warmup": report["clock"] <= begin,
    }


def _iostat_reports(text: str, pattern: re.Pattern[str]) -> dict[int, dict[str, Any]]:
    """Per iostat report after the first: its clock time (None without ``-t`` timestamps), the
    devices matching ``pattern`` it lists, their r/s and w/s summed and weighted by their awaits.
    Raises ParseError as :func:`iostat_intervals` says."""
    reports: dict[int, dict[str, Any]] = {}
    for row in parse_iostat(text):
        if row["interval"] == 0 or not pattern.search(row["device"]):
            continue
        missing = [k for k in ("r_per_s", "w_per_s", "r_await_ms", "w_await_ms") if k not in row]
        if missing:
            raise ParseError(f"iostat.out has no {', '.join(missing)} column: run iostat -x with await columns")
        clock = clock_24h(row.get("timestamp") or "")
        slot = reports.setdefault(row["interval"], {"clock": clock, "rows": {}})
        if row["device"] in slot["rows"]:
            raise ParseError(f"iostat.out: its report at {clock} lists {row['device']} twice: damaged")
        slot["rows"][row["device"]] = row
    stamped = {slot["clock"] is not None for slot in reports.values()}
    if len(stamped) > 1:
        raise ParseError("iostat.out: a report has no timestamp where the others have one: damaged")
    for slot in reports.values():  # exact sums, whatever the order the devices are listed in
        rows = slot.pop("rows").values()
        slot.update(devices=len(rows), r=math.fsum(r["r_per_s"] for r in rows), w=math.fsum(r["w_per_s"] for r in rows),
                    r_lat=math.fsum(r["r_per_s"] * r["r_await_ms"] for r in rows),
                    w_lat=math.fsum(r["w_per_s"] * r["w_await_ms"] for r in rows))
    return reports

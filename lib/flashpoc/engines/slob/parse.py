"""The metrics of one SLOB run from the files runit.sh left (pure: file contents in, numbers out).

A SLOB point is read from its AWR reports (:mod:`flashpoc.awr_metrics`): the instance report
(``awr.txt``, else ``awr.html.gz`` / ``awr.html``) and, on RAC, the global report of the same
snapshots (``awr_rac.txt``, else ``awr_rac.html.gz`` / ``awr_rac.html``), which makes the
point's IOPS the whole cluster's. A run of ``database_statistics_type statspack`` leaves
``statspack.txt`` instead: without an AWR report the point is read from it (``scope``
``instance (Statspack report)``, :mod:`flashpoc.parse.statspack`). Host CPU comes from the AWR
"Host CPU" section (exactly the snapshot window); ``mpstat.out`` adds the DB host's CPU use seen
by the OS over the same window (``mpstat_*_pct``: means of the ``all`` rows whose clock time lies
between the snapshots' begin and end times), and ``tm.out`` the seconds runit.sh measured (``tm_s``).
``iostat.out`` gives the point's time series (:func:`iostat_intervals`), or, when the datafiles
are on NFS through the kernel's client (``database: datafiles: knfs``), ``mountstats.out`` does
(the NFS mounts' READ/WRITE, :func:`flashpoc.parse.mountstats.nfs_intervals`): the local disks
are not the database's I/O then. Direct NFS (``dnfs``) I/O is in neither: a dNFS point's series
is the database's own counters sampled during the run through python-oracledb (``dbstat.json``,
:func:`flashpoc.parse.dbstat.dbstat_intervals`), which needs ``oracle:``; its figures stay the
AWR report's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from ...awr_metrics import histogram_buckets, point_metrics, whole_ms_latencies
from ...errors import ParseError
from ...params import compile_pattern
from ...parse.awr import decode_report, parse_awr
from ...parse.dbstat import DBSTAT_FILE, dbstat_intervals
from ...parse.mountstats import nfs_intervals
from ...parse.osstat import MPSTAT_SUMMARY_COLUMNS, clock_24h, cpu_summary, parse_iostat, parse_mpstat, parse_tm

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
RUN_FILES = (*INSTANCE_REPORTS, *RAC_REPORTS, STATSPACK_REPORT, "iostat.out", "mpstat.out", "vmstat.out", "tm.out")
"""The files SLOB's runit.sh leaves in a run directory that flashpoc reads (a directory with none
of them is not a SLOB run)."""


def file_text(name: str, data: bytes | str) -> str:
    """Text of a run file; ``*.gz`` contents are gunzipped (:func:`flashpoc.parse.awr.decode_report`).

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
            for a Statspack report's whole milliseconds (:func:`flashpoc.awr_metrics.whole_ms_latencies`).

    Returns:
        ``(metrics, intervals)``. ``metrics``: the keys of
        :func:`flashpoc.awr_metrics.point_metrics` (IOPS, MB/s, latencies in us and ms,
        histogram shares, DB and host CPU), plus ``awr_report`` / ``awr_rac_report`` (the file
        names read), ``latency_note`` (a Statspack report's whole-millisecond averages: not stored as
        latencies, :func:`flashpoc.awr_metrics.whole_ms_latencies`), ``mpstat_usr_pct``, ``mpstat_sys_pct``,
        ``mpstat_iowait_pct``, ``mpstat_idle_pct``, ``mpstat_intervals`` (when mpstat.out has intervals inside the
        snapshot window), ``tm_s`` (when tm.out is present), ``intervals_source`` and
        ``intervals_error`` (when iostat.out, mountstats.out or dbstat.json could not be read: the time series
        is lost, not the point; ``dnfs`` without dbstat.json: the point ran without ``oracle:``).
        ``intervals``: :func:`iostat_intervals` of iostat.out (``knfs``: the NFS mounts' of
        mountstats.out; ``dnfs``: the database's counters of dbstat.json) in the report's window
        ([] without the file).

    Raises:
        ParseError: there is neither an AWR report nor statspack.txt, or a report, mpstat.out or
            tm.out cannot be read.
    """
    name = _instance_report(files)
    report = parse_awr(file_text(name, files[name]))
    rac_name = _first(files, RAC_REPORTS)
    rac = parse_awr(file_text(rac_name, files[rac_name])) if rac_name else None
    if rac is not None and rac.get("kind") != "rac_global":
        rac, rac_name = None, None
    metrics = point_metrics(report, rac)
    if rac is None:
        metrics.update(whole_ms_latencies(metrics, report, exact))
    metrics["awr_report"] = name
    metrics["awr_rac_report"] = rac_name
    header = report.get("header") or {}
    if files.get("mpstat.out"):
        metrics.update(mpstat_window(file_text("mpstat.out", files["mpstat.out"]), header))
    if files.get("tm.out"):
        metrics.update(parse_tm(file_text("tm.out", files["tm.out"])))
    instance = None if rac is not None else _report_instance(header) or 0  # 0: the report names none
    series, intervals = _series(lambda: _run_intervals(files, header, devices, datafiles, nfs_mounts, instance),
                                datafiles, instance)
    return {**metrics, **series}, intervals


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
    return _series(lambda: _run_intervals(files, _snapshot_window(files, begin_snap, end_snap), devices, datafiles,
                                          nfs_mounts, instance), datafiles, instance)


def _series(intervals: Callable[[], list[dict[str, Any]]], datafiles: str, instance: int | None
            ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """``({"intervals_source"[, "intervals_scope"][, "intervals_error"]}, intervals())``: a series that
    cannot be read is lost with its reason, never the point. A dNFS series' scope is the cluster's
    (``instance`` None) or ``instance N``'s."""
    source = {"intervals_source": INTERVAL_SOURCES[datafiles]}
    if datafiles == "dnfs":
        source["intervals_scope"] = (CLUSTER_SCOPE if instance is None else f"instance {instance}" if instance
                                     else "instance (not named by the report)")
    try:
        return source, intervals()
    except ParseError as error:
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
        raise ParseError(f"{name}: the snapshots' end_interval_time cannot be read ({error}): "
                         "its time series has no window") from None
    missing = [snap for snap in (begin_snap, end_snap) if snap not in times]
    if missing:
        raise ParseError(f"{name}: no snapshot row of snap {missing[0]}: its time series has no window")
    return {"begin_time": times[begin_snap].strftime("%d-%b-%y %H:%M:%S"),
            "end_time": times[end_snap].strftime("%d-%b-%y %H:%M:%S")}


def _report_instance(header: Mapping[str, Any]) -> int | None:
    """The instance number an instance report's header prints (``Inst Num``), or None (not printed)."""
    instances = header.get("instances") or []
    number = instances[0].get("inst_num") if len(instances) == 1 else None
    return number if isinstance(number, int) else None


def _instance_report(files: Mapping[str, bytes | str]) -> str:
    """The name of the run's instance report: its AWR report, else its Statspack report
    (``database_statistics_type statspack``); a ParseError when the run left neither."""
    name = _first(files, (*INSTANCE_REPORTS, STATSPACK_REPORT))
    if name is None:
        raise ParseError("the run left no AWR report (awr.txt or awr.html.gz) nor statspack.txt: see console.txt "
                         "and slob_debug.out of the point")
    return name


def _run_intervals(files: Mapping[str, bytes | str], header: Mapping[str, Any], devices: str | None,
                   datafiles: str, nfs_mounts: str | None, instance: int | None) -> list[dict[str, Any]]:
    """The run's time series (see :func:`read_slob_run`): iostat.out's for local datafiles,
    mountstats.out's NFS mounts' for ``knfs``, dbstat.json's database counters for ``dnfs`` (of
    ``instance``, or every instance summed)."""
    begin, end = _clock(header.get("begin_time")), _clock(header.get("end_time"))
    if datafiles == "local" and files.get("iostat.out"):
        return iostat_intervals(file_text("iostat.out", files["iostat.out"]), header, devices or PHYSICAL_DEVICES)
    if datafiles == "knfs":
        if not files.get("mountstats.out"):
            raise ParseError("the run left no mountstats.out (the NFS client's counters)")
        mounts = compile_pattern(nfs_mounts, "database.nfs_mounts") if nfs_mounts else None
        return nfs_intervals(file_text("mountstats.out", files["mountstats.out"]), begin, end, mounts)
    if datafiles == "dnfs":
        if not files.get(DBSTAT_FILE):
            raise ParseError("a Direct NFS point's time series is the database's own counters, sampled through "
                             "python-oracledb: set oracle: (no dbstat.json)")
        if instance == 0:
            raise ParseError("the report names no instance (Inst Num): the series cannot be its instance's")
        return dbstat_intervals(file_text(DBSTAT_FILE, files[DBSTAT_FILE]), begin, end, instance)
    return []


def point_wait_histogram(files: Mapping[str, bytes | str], event: str) -> list[dict[str, Any]]:
    """``event``'s wait histogram per bucket (:func:`flashpoc.awr_metrics.histogram_buckets`) from
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
    window that crosses midnight, or times that do not parse, give ``{}`` (no guess).
    """
    begin, end = _clock(header.get("begin_time")), _clock(header.get("end_time"))
    if begin is None or end is None or end <= begin:
        return {}
    rows = [r for r in parse_mpstat(text) if r.get("cpu") == "all" and not r.get("is_average")
            and begin <= str(r.get("time_24h")) <= end]
    if not rows:
        return {}
    summary = cpu_summary(rows)
    out: dict[str, Any] = {"mpstat_intervals": summary["intervals"]}
    for column in MPSTAT_SUMMARY_COLUMNS:
        out[f"mpstat_{column}"] = round(summary[f"{column}_mean"], 2)
    return out


def iostat_intervals(text: str, header: Mapping[str, Any], devices: str = PHYSICAL_DEVICES) -> list[dict[str, Any]]:
    """The DB host's device I/O per iostat report of a SLOB run (``iostat -t -xm 3``).

    Report 0 (averages since boot) is left out. For each later report, IOPS are ``r/s + w/s``
    summed over the devices whose name matches ``devices`` and the mean latency is their
    ``r_await`` / ``w_await`` weighted by ``r/s`` / ``w/s``; a report listing fewer of those
    devices than the others (a file cut mid-report) is left out. ``iostat -t`` stamps a report at
    its end: reports stamped at or before the AWR begin snapshot are marked ``warmup``, and
    reports stamped after the end snapshot are left out. These are the devices of the host
    that ran runit.sh: on RAC, one node's share of the cluster's I/O.

    Args:
        text: iostat.out.
        header: the AWR report's header (``begin_time``/``end_time``, e.g. ``17-Feb-20 09:26:07``).
        devices: regular expression of the device names to add up.

    Returns:
        Rows ``second`` (end of the report, seconds after the first one started; the first
        report's length is the gap to the second), ``iops``, ``read_iops``, ``write_iops``,
        ``lat_mean_ms``, ``read_lat_mean_ms``, ``write_lat_mean_ms``, ``warmup``. Empty when the
        reports carry no ``-t`` timestamps, the window's times do not parse or it crosses midnight.

    Raises:
        ParseError: iostat.out cannot be read, or it has no ``r/s``, ``w/s``, ``r_await`` or
            ``w_await`` column (``iostat -x`` of a sysstat that prints them is needed).
        ParameterError: ``devices`` is no regular expression (naming ``engine.slob.iostat_devices``).
    """
    pattern = compile_pattern(devices, "engine.slob.iostat_devices")
    begin, end = _clock(header.get("begin_time")), _clock(header.get("end_time"))
    if begin is None or end is None or end <= begin:
        return []
    reports = _iostat_reports(text, pattern)
    if reports is None:
        return []
    # a report with fewer devices than the others was cut short (the file ends mid-report): its
    # sums would be too low, so it is left out
    # (the time axis comes from every report, so one left out leaves a gap rather than moving the others)
    every = [reports[i] for i in sorted(reports)]
    if len(every) < 2:
        return []
    seconds = [_seconds(r["clock"]) for r in every]
    if any(b < a for a, b in zip(seconds, seconds[1:])):
        return []  # the run crossed midnight: no guess
    start = seconds[0] - (seconds[1] - seconds[0])
    full = max(r["devices"] for r in every)
    rows = []
    for report, at in zip(every, seconds):
        if report["clock"] > end:
            break
        if report["devices"] < full:
            continue
        total = report["r"] + report["w"]
        rows.append({
            "second": float(at - start), "iops": total, "read_iops": report["r"], "write_iops": report["w"],
            "lat_mean_ms": (report["r_lat"] + report["w_lat"]) / total if total else None,
            "read_lat_mean_ms": report["r_lat"] / report["r"] if report["r"] else None,
            "write_lat_mean_ms": report["w_lat"] / report["w"] if report["w"] else None,
            "warmup": report["clock"] <= begin,
        })
    return rows


def _iostat_reports(text: str, pattern: re.Pattern[str]) -> dict[int, dict[str, Any]] | None:
    """Per iostat report after the first: its clock time, the devices matching ``pattern`` it
    lists, their r/s and w/s summed and weighted by their awaits; None when a report has no
    ``-t`` timestamp. Raises ParseError as :func:`iostat_intervals` says."""
    reports: dict[int, dict[str, Any]] = {}
    for row in parse_iostat(text):
        if row["interval"] == 0 or not pattern.search(row["device"]):
            continue
        missing = [k for k in ("r_per_s", "w_per_s", "r_await_ms", "w_await_ms") if k not in row]
        if missing:
            raise ParseError(f"iostat.out has no {', '.join(missing)} column: run iostat -x with await columns")
        clock = clock_24h(row.get("timestamp") or "")
        if clock is None:
            return None
        slot = reports.setdefault(row["interval"], {"clock": clock, "r": 0.0, "w": 0.0, "r_lat": 0.0, "w_lat": 0.0,
                                                    "devices": 0})
        slot["devices"] += 1
        slot["r"] += row["r_per_s"]
        slot["w"] += row["w_per_s"]
        slot["r_lat"] += row["r_per_s"] * row["r_await_ms"]
        slot["w_lat"] += row["w_per_s"] * row["w_await_ms"]
    return reports


def _seconds(clock: str) -> int:
    hours, minutes, seconds = (int(part) for part in clock.split(":"))
    return hours * 3600 + minutes * 60 + seconds

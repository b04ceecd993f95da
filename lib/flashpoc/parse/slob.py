"""The metrics of one SLOB run from the files runit.sh left (pure: file contents in, numbers out).

A SLOB point is read from its AWR reports (:mod:`flashpoc.awr_metrics`): the instance report
(``awr.txt``, else ``awr.html.gz`` / ``awr.html``) and, on RAC, the global report of the same
snapshots (``awr_rac.txt``, else ``awr_rac.html.gz`` / ``awr_rac.html``), which makes the
point's IOPS the whole cluster's. Host CPU comes from the AWR "Host CPU" section (exactly
the snapshot window); ``mpstat.out`` adds the DB host's CPU use seen by the OS over the same
window (``mpstat_*_pct``: means of the ``all`` rows whose clock time lies between the
snapshots' begin and end times), and ``tm.out`` the seconds runit.sh measured (``tm_s``).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from ..awr_metrics import point_metrics
from ..errors import ParseError
from .awr import decode_report, parse_awr
from .osstat import MPSTAT_SUMMARY_COLUMNS, cpu_summary, parse_mpstat, parse_tm

INSTANCE_REPORTS = ("awr.txt", "awr.html.gz", "awr.html")
RAC_REPORTS = ("awr_rac.txt", "awr_rac.html.gz", "awr_rac.html")


def file_text(name: str, data: bytes | str) -> str:
    """Text of a run file; ``*.gz`` contents are gunzipped (:func:`flashpoc.parse.awr.decode_report`).

    Raises:
        ParseError: a ``.gz`` file that is not valid gzip.
    """
    return data if isinstance(data, str) else decode_report(data, name)


def _first(files: Mapping[str, bytes | str], names: tuple[str, ...]) -> str | None:
    return next((n for n in names if files.get(n)), None)


def slob_point_metrics(files: Mapping[str, bytes | str]) -> dict[str, Any]:
    """Metrics of one SLOB run from its files (name -> contents).

    Returns:
        The keys of :func:`flashpoc.awr_metrics.point_metrics` (IOPS, MB/s, latencies in
        us and ms, histogram shares, DB and host CPU), plus ``awr_report`` /
        ``awr_rac_report`` (the file names read), ``mpstat_usr_pct``, ``mpstat_sys_pct``,
        ``mpstat_iowait_pct``, ``mpstat_idle_pct``, ``mpstat_intervals`` (when mpstat.out
        has intervals inside the snapshot window) and ``tm_s`` (when tm.out is present).

    Raises:
        ParseError: there is no AWR report (a Statspack-only run is named as such), or a
            report or OS file cannot be read.
    """
    name = _first(files, INSTANCE_REPORTS)
    if name is None:
        if files.get("statspack.txt"):
            raise ParseError("the run left statspack.txt only: flashpoc reads SLOB points from AWR reports; "
                             "with database_statistics_type statspack configure oracle: to read the "
                             "statistics through SQL")
        raise ParseError("the run left no AWR report (awr.txt or awr.html.gz): see console.txt and "
                         "slob_debug.out of the point")
    report = parse_awr(file_text(name, files[name]))
    rac_name = _first(files, RAC_REPORTS)
    rac = parse_awr(file_text(rac_name, files[rac_name])) if rac_name else None
    if rac is not None and rac.get("kind") != "rac_global":
        rac, rac_name = None, None
    metrics = point_metrics(report, rac)
    metrics["awr_report"] = name
    metrics["awr_rac_report"] = rac_name
    if files.get("mpstat.out"):
        metrics.update(mpstat_window(file_text("mpstat.out", files["mpstat.out"]), report.get("header") or {}))
    if files.get("tm.out"):
        metrics.update(parse_tm(file_text("tm.out", files["tm.out"])))
    return metrics


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

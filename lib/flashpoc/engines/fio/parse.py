"""Parse fio ``--output-format=json`` / ``json+`` output into tidy rows.

Pure functions: text in, rows (dicts) out. Nothing here reads files, prints or exits;
every problem with the input raises :class:`flashpoc.errors.ParseError`.

Units in the rows follow the key names: ``iops``, ``bw_mibps`` (MiB/s), ``io_bytes``,
``*_ms`` (milliseconds), ``*_us`` (microseconds), ``*_pct`` (percent), ``clat_ns``.

fio versions differ in units, and the parser normalizes them:

* fio 3.x: ``clat_ns`` / ``lat_ns`` (and their percentiles) are in nanoseconds,
  ``io_bytes`` is in bytes (next to ``io_kbytes``).
* fio 2.x (e.g. fio-2.1.4): ``clat`` / ``lat`` and their percentiles are in microseconds,
  and ``io_bytes`` is in KiB (there is no ``io_kbytes``): 361984 at ``bw`` 129836 KiB/s over
  ``runtime`` 2788 ms is KiB, not bytes. There is no ``total_ios``.
* ``bw`` is KiB/s in every version; ``runtime`` is milliseconds.

Client/server runs (``fio --client=...``) report ``client_stats[]`` instead of ``jobs[]``; each
entry carries a ``hostname``, and some versions add an ``All clients`` aggregate entry. fio 3.33
was seen giving every entry the last client's hostname, so hostnames are reported as printed.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from flashpoc.errors import ParseError
from flashpoc.records import SHARE_LIMITS_US

DIRECTIONS: tuple[str, ...] = ("read", "write", "trim")
"""fio's I/O directions, in the order rows are emitted."""

AGGREGATE_JOBNAME = "All clients"
"""Job name of the aggregate entry fio adds to ``client_stats`` in client/server mode."""

PERCENTILES: dict[str, float] = {
    "p50": 50.0,
    "p90": 90.0,
    "p95": 95.0,
    "p99": 99.0,
    "p99_9": 99.9,
    "p99_99": 99.99,
}
"""Completion-latency percentiles kept in each row, as ``clat_<name>_us``."""

SUMMARY_PERCENTILES: tuple[str, ...] = ("p50", "p90", "p99", "p99_9")
"""Percentiles reported by :func:`summarize_fio_point`, as ``clat_<name>_ms``."""

ROW_KEYS: tuple[str, ...] = (
    "fio_version",
    "entry_index",
    "jobname",
    "groupid",
    "hostname",
    "is_aggregate",
    "direction",
    "iops",
    "bw_mibps",
    "io_bytes",
    "runtime_ms",
    "total_ios",
    "lat_mean_us",
    "lat_max_us",
    "clat_mean_us",
    "clat_stddev_us",
    *(f"clat_{name}_us" for name in PERCENTILES),
    "usr_cpu_pct",
    "sys_cpu_pct",
    "error",
    "rw",
    "bs",
    "iodepth",
    "numjobs",
    "ioengine",
    "steadystate_attained",
    "steadystate_criterion",
)
"""Keys of every row returned by :func:`parse_fio_output`, in order."""

INTERVAL_KEYS: tuple[str, ...] = (
    "second",
    "iops",
    "read_iops",
    "write_iops",
    "lat_mean_ms",
    "read_lat_mean_ms",
    "write_lat_mean_ms",
)
"""Keys of every row returned by :func:`parse_fio_interval_logs` and :func:`merge_intervals`."""

HISTOGRAM_KEYS: tuple[str, ...] = (
    "entry_index",
    "jobname",
    "hostname",
    "direction",
    "clat_ns",
    "count",
)
"""Keys of every row returned by :func:`parse_fio_histogram`, in order."""

# The JSON object starts at the first line beginning with "{"; progress lines end in "\r".
_LOG_NAME = re.compile(r"_(?P<kind>iops|lat)\.(?P<job>\d+)\.log$")
_JSON_START = re.compile(r"(?:\A|[\r\n])\{")
# Strings (possibly unterminated at the end of the text) and brackets, to tell truncation
# from other syntax errors.
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*("?)|[{}\[\]]', re.DOTALL)


def parse_fio_output(text: str) -> list[dict[str, Any]]:
    """Parse fio JSON or JSON+ output into one row per job entry and direction with I/O.

    Args:
        text: fio's output. Clean JSON (``--output=FILE``) or JSON preceded by text lines
            (progress lines, ``hostname=...`` or ``<host> job: (g=0) ...`` lines printed when
            the JSON goes to stdout); the JSON starts at the first line beginning with ``{``
            and any text after it is ignored.

    Returns:
        Rows with the keys in :data:`ROW_KEYS` (``None`` where fio did not report a value),
        one per entry of ``jobs`` (or ``client_stats``) and per direction (read, write, trim)
        whose ``io_bytes`` or ``iops`` is above zero, in entry order then direction order.
        Latencies are microseconds whatever the fio version; ``is_aggregate`` marks the
        ``All clients`` entry of client/server output.

    Raises:
        ParseError: The text holds no JSON object, the JSON is truncated or invalid, it has
            neither ``jobs`` nor ``client_stats``, a value has the wrong type, or no entry
            did any I/O.
    """
    document = _load_fio_json(text)
    fio_version = _fio_version(document)
    section, entries = _entries(document)
    global_options = _options(document.get("global options"), "'global options'")
    rows: list[dict[str, Any]] = []
    for index, entry in enumerate(entries):
        where = f"{section}[{index}]"
        entry_facts = _entry_facts(entry, where, section, global_options)
        for direction in DIRECTIONS:
            stats = entry.get(direction)
            if stats is None:
                continue
            direction_where = f"{where}.{direction}"
            if not isinstance(stats, Mapping):
                raise ParseError(f"fio JSON {direction_where} is not an object: {stats!r:.80}")
            metrics = _direction_metrics(stats, direction_where)
            if metrics is None:
                continue
            row = {
                "fio_version": fio_version,
                "entry_index": index,
                **entry_facts,
                "direction": direction,
                **metrics,
            }
            rows.append({key: row[key] for key in ROW_KEYS})
    if not rows:
        raise ParseError(
            f"fio output has no I/O: none of the {len(entries)} {section} entries has "
            "read, write or trim with io_bytes > 0 or iops > 0"
        )
    return rows


def parse_fio_histogram(text: str) -> list[dict[str, Any]]:
    """Parse the completion-latency histogram of fio JSON+ output.

    Args:
        text: fio output made with ``--output-format=json+`` (preceding text lines allowed, as
            in :func:`parse_fio_output`).

    Returns:
        Rows with the keys in :data:`HISTOGRAM_KEYS`, one per bin of ``clat_ns.bins``:
        ``clat_ns`` is the bin's latency in nanoseconds and ``count`` the number of I/Os in
        it. Sorted by entry index, direction (read, write, trim) and ``clat_ns``. Empty when
        the output has no bins (plain JSON output).

    Raises:
        ParseError: The text is not fio JSON (see :func:`parse_fio_output`), a bin is not
            ``"<ns>": <count>``, or the bins are fio 2.x's index-keyed ``clat.bins``, which
            this parser does not convert.
    """
    document = _load_fio_json(text)
    section, entries = _entries(document)
    rows: list[dict[str, Any]] = []
    for index, entry in enumerate(entries):
        where = f"{section}[{index}]"
        jobname = _optional_str(entry.get("jobname"), f"{where}.jobname")
        hostname = (
            _optional_str(entry.get("hostname"), f"{where}.hostname")
            if section == "client_stats"
            else None
        )
        for order, direction in enumerate(DIRECTIONS):
            for clat_ns, count in _direction_bins(entry.get(direction), f"{where}.{direction}"):
                rows.append(
                    {
                        "entry_index": index,
                        "jobname": jobname,
                        "hostname": hostname,
                        "direction": direction,
                        "clat_ns": clat_ns,
                        "count": count,
                        "_order": order,
                    }
                )
    rows.sort(key=lambda row: (row["entry_index"], row["_order"], row["clat_ns"]))
    return [{key: row[key] for key in HISTOGRAM_KEYS} for row in rows]


def _direction_bins(stats: Any, where: str) -> list[tuple[int, int]]:
    """``(clat_ns, count)`` of each bin of one direction's ``clat_ns.bins`` (``stats`` is the
    direction's object at ``where``); none when it has no bins. Raises ParseError as
    :func:`parse_fio_histogram` says."""
    if not isinstance(stats, Mapping):
        return []
    legacy = stats.get("clat")
    if isinstance(legacy, Mapping) and "bins" in legacy:
        raise ParseError(
            f"fio JSON {where}.clat.bins is fio 2.x's index-keyed "
            "histogram; only fio 3.x clat_ns.bins (keys in ns) is supported"
        )
    clat = stats.get("clat_ns")
    if not isinstance(clat, Mapping) or clat.get("bins") is None:
        return []
    bins = clat["bins"]
    bins_where = f"{where}.clat_ns.bins"
    if not isinstance(bins, Mapping):
        raise ParseError(f"fio JSON {bins_where} is not an object: {bins!r:.80}")
    out = []
    for key, count in bins.items():
        try:
            clat_ns = int(key)
        except ValueError:
            raise ParseError(
                f"fio JSON {bins_where} has key {key!r}; expected a latency in ns"
            ) from None
        count = _number(count, f"{bins_where}[{key!r}]")
        if count < 0 or count != int(count):
            raise ParseError(
                f"fio JSON {bins_where}[{key!r}] is {count!r}; expected a count >= 0"
            )
        out.append((clat_ns, int(count)))
    return out


def summarize_fio_point(
    rows: Sequence[Mapping[str, Any]],
    histogram: Iterable[Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """Aggregate the rows of one fio run (one run point) into one record.

    If any row is an aggregate (``All clients``), only aggregate rows are counted, so clients
    are not counted twice; otherwise every row is.

    Percentiles: with a JSON+ ``histogram`` the bins of the counted entries are merged per
    direction (all directions for the unprefixed keys) and the percentile is, as fio computes
    it, the first bin value where the cumulative count reaches the percentile of the total:
    exact. Without bins, one row gives its own value; several rows give the IOPS-weighted
    mean of their percentiles (an estimate: ``percentiles_exact`` is then False). If the
    aggregate rows carry no percentiles (fio prints none for ``All clients``), the estimate
    uses the per-client rows.

    Args:
        rows: Rows from :func:`parse_fio_output` for one run.
        histogram: Rows from :func:`parse_fio_histogram` for the same run, or None.

    Returns:
        ``iops``, ``read_iops``, ``write_iops`` (IOPS; unprefixed sums every direction),
        ``bw_mibps``, ``read_bw_mibps``, ``write_bw_mibps``, ``lat_mean_ms``,
        ``read_lat_mean_ms``, ``write_lat_mean_ms`` (IOPS-weighted mean of the rows' total
        latency), ``clat_p50_ms``, ``clat_p90_ms``, ``clat_p99_ms``, ``clat_p99_9_ms``, the
        shares ``clat_under_{512us,1ms,2ms,4ms}_pct`` (JSON+ bins only, else None; see
        :func:`latency_distribution`) and their ``read_`` / ``write_`` variants,
        ``percentiles_exact``, ``usr_cpu_pct``, ``sys_cpu_pct`` (mean
        over entries, percent of one CPU as fio reports), ``steadystate_attained`` (True if
        every entry that reports it attained it, False if any did not, None if none reports
        it), ``runtime_ms`` (max), ``fio_version`` and ``n_entries``. A direction without I/O
        gives 0 IOPS and bandwidth and None latencies.

    Raises:
        ParseError: ``rows`` is empty.
    """
    if not rows:
        raise ParseError("no fio rows to summarize: parse_fio_output returned nothing")
    aggregate_indices = {row["entry_index"] for row in rows if row["is_aggregate"]}
    if aggregate_indices:
        counted = [row for row in rows if row["is_aggregate"]]
        fallback = [row for row in rows if not row["is_aggregate"]]
    else:
        counted, fallback = list(rows), []
    bins = _select_histogram(histogram, counted, aggregate_indices)

    summary: dict[str, Any] = {}
    exact = True
    for prefix, directions in (("", DIRECTIONS), ("read_", ("read",)), ("write_", ("write",))):
        exact = _summarize_directions(summary, counted, fallback, bins, prefix, directions) and exact
    summary["percentiles_exact"] = exact
    summary.update(_summarize_entries(counted))
    return summary


def _summarize_entries(counted: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """What :func:`summarize_fio_point` gives per fio entry (job or client) of the counted rows:
    mean CPU, steady state attained, runtime, fio's version and the number of entries."""
    summary: dict[str, Any] = {}
    entries = {row["entry_index"]: row for row in counted}
    summary["usr_cpu_pct"] = _mean(row["usr_cpu_pct"] for row in entries.values())
    summary["sys_cpu_pct"] = _mean(row["sys_cpu_pct"] for row in entries.values())
    attained = [
        row["steadystate_attained"]
        for row in entries.values()
        if row["steadystate_attained"] is not None
    ]
    summary["steadystate_attained"] = all(attained) if attained else None
    runtimes = [row["runtime_ms"] for row in counted if row["runtime_ms"] is not None]
    summary["runtime_ms"] = max(runtimes) if runtimes else None
    summary["fio_version"] = counted[0]["fio_version"]
    summary["n_entries"] = len(entries)
    return summary


def _summarize_directions(summary: dict[str, Any], counted: Sequence[Mapping[str, Any]],
                          fallback: Sequence[Mapping[str, Any]], bins: Sequence[Mapping[str, Any]], prefix: str,
                          directions: Sequence[str]) -> bool:
    """Add the ``<prefix>`` IOPS, bandwidth, mean latency, percentiles and shares of the counted
    rows in ``directions`` to ``summary`` (see :func:`summarize_fio_point`); whether the
    percentiles are exact."""
    exact = True
    part = [row for row in counted if row["direction"] in directions]
    summary[f"{prefix}iops"] = float(sum(row["iops"] for row in part))
    summary[f"{prefix}bw_mibps"] = float(sum(row["bw_mibps"] for row in part))
    lat_mean_us = _weighted_mean(part, "lat_mean_us")
    summary[f"{prefix}lat_mean_ms"] = None if lat_mean_us is None else lat_mean_us / 1000
    from_bins = _distribution(bins, directions, prefix) if part else {}
    for name in SUMMARY_PERCENTILES:
        key = f"{prefix}clat_{name}_ms"
        if not part or key in from_bins:
            summary[key] = from_bins.get(key)
        else:
            value_us, value_exact = _rows_percentile(
                part, fallback, directions, f"clat_{name}_us"
            )
            summary[key] = None if value_us is None else value_us / 1000
            exact = exact and value_exact
    for limit in SHARE_LIMITS_US:
        summary[f"{prefix}clat_under_{limit}_pct"] = from_bins.get(f"{prefix}clat_under_{limit}_pct")
    return exact


def latency_distribution(histogram: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Completion-latency percentiles and shares of JSON+ bins (of one or several hosts).

    The bins of every row are merged per direction. A percentile is, as fio computes it, the
    first bin value whose cumulative count reaches it. A bin counts under a limit when its
    value is below the limit; fio's bin value is within 1/64 (1.6 %) of the latencies it holds,
    so a share is exact except for I/Os that close to the limit.

    Args:
        histogram: rows from :func:`parse_fio_histogram`.

    Returns:
        For the prefixes ``""`` (all directions), ``read_`` and ``write_``:
        ``<prefix>clat_<p>_ms`` (ms) for :data:`SUMMARY_PERCENTILES` and
        ``<prefix>clat_under_<limit>_pct`` (% of I/Os) for :data:`SHARE_LIMITS_US`. A prefix
        whose directions have no bins is left out.
    """
    rows = list(histogram)
    out: dict[str, Any] = {}
    for prefix, directions in (("", DIRECTIONS), ("read_", ("read",)), ("write_", ("write",))):
        out.update(_distribution(rows, directions, prefix))
    return out


def histogram_table(histogram: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Merge JSON+ bins (of one or several hosts) into one histogram per direction.

    Returns:
        Rows ``{"direction", "clat_us", "count"}`` sorted by direction then ``clat_us`` (fio's
        bin value in microseconds), one per non-empty bin.
    """
    merged: Counter = Counter()
    for row in histogram:
        merged[(row["direction"], row["clat_ns"])] += row["count"]
    order = {direction: index for index, direction in enumerate(DIRECTIONS)}
    return [{"direction": direction, "clat_us": clat_ns / 1000.0, "count": count}
            for (direction, clat_ns), count in sorted(merged.items(), key=lambda item: (order[item[0][0]], item[0][1]))
            if count]


def parse_fio_interval_logs(logs: Mapping[str, str], *, window_ms: int,
                            fio_version: str | None = None) -> list[dict[str, Any]]:
    """Per-second (per-window) IOPS and mean completion latency from fio's per-job logs.

    fio writes, with ``write_iops_log=NAME``, ``write_lat_log=NAME`` and
    ``log_avg_msec=<window_ms>``, one ``NAME_iops.<job>.log`` and one ``NAME_lat.<job>.log``
    per job (and ``_clat``/``_slat`` logs, not read). Each line is ``time (ms since the job's measurement start), value, direction
    (0 read, 1 write, 2 trim), block size, offset[, priority]``; an iops log's value is the
    job's IOPS averaged over the window, a lat log's value the job's mean total latency (submission
    to completion, as the point's ``lat_mean_ms``) in the window (ns in fio 3.x, us in fio 2.x). The ramp time is not logged.

    A line belongs to the window it ends (jobs' clocks differ by a millisecond or so, so
    999 ms and 1003 ms both end window 1). Only windows that every job logged, in every
    direction any job logged there and with a latency for each IOPS value, are kept: the last window of some jobs is cut by the end of
    the run, and a sum over fewer jobs would show a false dip.

    Args:
        logs: file name -> text; files other than ``*_iops.<job>.log`` and
            ``*_lat.<job>.log`` (e.g. the ``_clat`` and ``_slat`` logs) are ignored.
        window_ms: fio's ``log_avg_msec``.
        fio_version: e.g. ``fio-3.33`` (fio 2.x logs latencies in us; default fio 3.x, ns).

    Returns:
        Rows with :data:`INTERVAL_KEYS`: ``second`` (end of the window, seconds after the ramp),
        ``iops`` (all directions), ``read_iops``, ``write_iops`` (sums over jobs) and the
        IOPS-weighted mean latencies (ms) ``lat_mean_ms``, ``read_lat_mean_ms``,
        ``write_lat_mean_ms`` (None for a direction without I/O in the window).

    Raises:
        ParseError: no iops logs, a job with an iops log but no lat log, or a line that is
            not fio log format (the message names the file and line).
    """
    iops_logs, lat_logs = _job_logs(logs)
    lat_unit_us = 1.0 if (fio_version or "").startswith("fio-2.") else 0.001
    if window_ms <= 0:
        raise ParseError(f"fio log window must be > 0 ms, got {window_ms}")
    windows = _sum_windows(iops_logs, lat_logs, window_ms, lat_unit_us)
    rows = []
    for window in sorted(windows):
        slot = windows[window]
        directions = set().union(*slot["jobs"].values())
        if (len(slot["jobs"]) < len(iops_logs) or not slot["whole"]
                or any(seen != directions for seen in slot["jobs"].values())):
            continue  # a job missing from the window, or missing a direction or latency there
        row: dict[str, Any] = {"second": window * window_ms / 1000.0}
        for prefix, directions in (("", (0, 1, 2)), ("read_", (0,)), ("write_", (1,))):
            total = sum(slot["iops"][d] for d in directions)
            weighted = sum(slot["lat"][d] for d in directions)
            row[f"{prefix}iops"] = float(total)
            row[f"{prefix}lat_mean_ms"] = weighted / total if total > 0 else None
        rows.append({key: row[key] for key in INTERVAL_KEYS})
    return rows


def _job_logs(logs: Mapping[str, str]) -> tuple[dict[int, tuple[str, str]], dict[int, tuple[str, str]]]:
    """The iops and the lat log of each job among ``logs``: ``{job: (file name, text)}`` each.

    Raises:
        ParseError: no iops logs, or a job with one log but not the other.
    """
    by_job: dict[str, dict[int, tuple[str, str]]] = {"iops": {}, "lat": {}}
    for name, text in logs.items():
        match = _LOG_NAME.search(name)
        if match:
            by_job[match["kind"]][int(match["job"])] = (name, text)
    iops_logs, lat_logs = by_job["iops"], by_job["lat"]
    if not iops_logs:
        raise ParseError("no fio interval logs (NAME_iops.<job>.log) to parse")
    if set(iops_logs) != set(lat_logs):
        raise ParseError(f"fio interval logs: jobs {sorted(iops_logs)} have iops logs but jobs "
                         f"{sorted(lat_logs)} have lat logs")
    return iops_logs, lat_logs


def _sum_windows(iops_logs: Mapping[int, tuple[str, str]], lat_logs: Mapping[int, tuple[str, str]],
                 window_ms: int, lat_unit_us: float) -> dict[int, dict[str, Any]]:
    """Per window: the jobs that logged it (with their directions), the IOPS and the IOPS x
    latency (ms) summed per direction, and whether every I/O had its latency."""
    windows: dict[int, dict[str, Any]] = {}
    for job in sorted(iops_logs):
        iops = _log_values(iops_logs[job][1], iops_logs[job][0], window_ms)
        lat = _log_values(lat_logs[job][1], lat_logs[job][0], window_ms)
        for (window, direction), value in iops.items():
            slot = windows.setdefault(window, {"jobs": {}, "iops": Counter(), "lat": Counter(), "whole": True})
            slot["jobs"].setdefault(job, set()).add(direction)
            slot["iops"][direction] += value
            if (window, direction) in lat:
                slot["lat"][direction] += value * lat[(window, direction)] * lat_unit_us / 1000.0
            elif value:
                slot["whole"] = False  # I/O without its latency (a cut lat log): no mean to give
    return windows


def merge_intervals(per_host: Sequence[Sequence[Mapping[str, Any]]]) -> list[dict[str, Any]]:
    """Combine the interval rows of several hosts: IOPS summed, latencies IOPS-weighted.

    Only seconds every host reported are kept (hosts start within a second of each other;
    their windows are matched by ``second``).
    """
    if len(per_host) == 1:
        return [dict(row) for row in per_host[0]]
    by_second = [{row["second"]: row for row in host_rows} for host_rows in per_host]
    merged = []
    for second in sorted(set.intersection(*(set(index) for index in by_second)) if by_second else ()):
        rows = [index[second] for index in by_second]
        out: dict[str, Any] = {"second": second}
        for prefix in ("", "read_", "write_"):
            total = sum(row[f"{prefix}iops"] for row in rows)
            weighted = sum(row[f"{prefix}iops"] * row[f"{prefix}lat_mean_ms"] for row in rows
                           if row[f"{prefix}lat_mean_ms"] is not None)
            out[f"{prefix}iops"] = total
            out[f"{prefix}lat_mean_ms"] = weighted / total if total > 0 else None
        merged.append({key: out[key] for key in INTERVAL_KEYS})
    return merged


# --- decoding -------------------------------------------------------------------------------


def split_client_output(text: str, hosts: Sequence[str]) -> dict[str, str]:
    """Split the output of a ``fio --client`` run into one fio JSON document per host.

    Each host's job sections are named ``<host>.<workload>`` (job names say which host ran
    them: fio 3.33 was seen printing the last client's hostname on every entry), so the
    ``client_stats`` entries go to the host their job name starts with; the ``All clients``
    aggregate is left out. A host's document is ``{"fio version", "global options", "jobs"}``,
    which :func:`parse_fio_output` and :func:`parse_fio_histogram` read as a one-host run.

    Raises:
        ParseError: the output is not fio JSON, an entry's job name names no host, or a host
            has no entry (its server refused or lost the job; fio's own words, which it puts
            before the JSON, are quoted).
    """
    document = _load_fio_json(text)
    section, entries = _entries(document)
    if section != "client_stats":
        raise ParseError("fio --client output has no 'client_stats'")
    per_host: dict[str, list[Mapping[str, Any]]] = {host: [] for host in hosts}
    for index, entry in enumerate(entries):
        jobname = _optional_str(entry.get("jobname"), f"client_stats[{index}].jobname") or ""
        if jobname == AGGREGATE_JOBNAME:
            continue
        host = jobname.split(".", 1)[0]
        if host not in per_host:
            raise ParseError(f"fio --client output: job {jobname!r} is not named after one of the hosts {list(hosts)}")
        per_host[host].append(entry)
    missing = [host for host, found in per_host.items() if not found]
    if missing:
        said = text_before_json(text)
        raise ParseError(f"fio --client output has no job of {', '.join(missing)}"
                         + (": " + " / ".join(said) if said else ""))
    head = {key: document[key] for key in ("fio version", "global options") if key in document}
    return {host: json.dumps({**head, "jobs": found}) for host, found in per_host.items()}


def text_before_json(text: str, limit: int = 6) -> list[str]:
    """The first ``limit`` non-blank lines fio printed before its JSON (or in place of it):
    where a client/server run puts a server's own complaint."""
    match = _JSON_START.search(text)
    head = text if match is None else text[: match.start()]
    return [line.strip() for line in head.splitlines() if line.strip()][:limit]


def _load_fio_json(text: str) -> dict[str, Any]:
    """Find and decode the fio JSON object in ``text``; see :func:`parse_fio_output`."""
    if not isinstance(text, str):
        raise ParseError(f"fio output must be text (str), got {type(text).__name__}")
    if not text.strip():
        raise ParseError("fio output is empty: expected a JSON object")
    match = _JSON_START.search(text)
    if match is None:
        first_line = (text.lstrip().splitlines() or [""])[0]
        raise ParseError(
            f"no JSON object found in fio output (first line: {first_line[:80]!r}): "
            "expected a line starting with '{'; was fio run with --output-format=json?"
        )
    start = match.end() - 1
    try:
        document, _end = json.JSONDecoder().raw_decode(text, start)
    except json.JSONDecodeError as exc:
        if _is_unclosed(text, start):
            raise ParseError(
                f"fio JSON is truncated at char {len(text)}: the object starting at char "
                f"{start} never closes (fio killed, or output cut short?)"
            ) from None
        raise ParseError(
            f"fio JSON is invalid at line {exc.lineno} column {exc.colno} (char {exc.pos}): "
            f"{exc.msg}"
        ) from None
    except RecursionError:
        raise ParseError(f"fio JSON starting at char {start} is nested too deeply") from None
    if not isinstance(document, dict):  # pragma: no cover - raw_decode of "{" gives a dict
        raise ParseError(f"fio JSON at char {start} is not an object")
    return document


def _is_unclosed(text: str, start: int) -> bool:
    """Return True if the JSON value starting at ``start`` runs off the end of ``text``."""
    depth = 0
    for match in _JSON_TOKEN.finditer(text, start):
        token = match.group(0)
        if token[0] == '"':
            if not match.group(1):
                return True  # a string still open at the end of the text
        elif token in "{[":
            depth += 1
        else:
            depth -= 1
            if depth <= 0:
                return False
    return depth > 0


def _fio_version(document: Mapping[str, Any]) -> str | None:
    """Return the ``fio version`` string (e.g. ``"fio-3.33"``) or None."""
    return _optional_str(document.get("fio version"), "'fio version'")


def _entries(document: Mapping[str, Any]) -> tuple[str, list[Mapping[str, Any]]]:
    """Return (section name, entries) from ``client_stats`` if present, else ``jobs``."""
    for section in ("client_stats", "jobs"):
        if section in document:
            entries = document[section]
            if not isinstance(entries, list):
                raise ParseError(f"fio JSON '{section}' is not a list: {entries!r:.80}")
            for index, entry in enumerate(entries):
                if not isinstance(entry, Mapping):
                    raise ParseError(
                        f"fio JSON {section}[{index}] is not an object: {entry!r:.80}"
                    )
            return section, entries
    raise ParseError(
        "fio JSON has neither 'jobs' nor 'client_stats' "
        f"(top-level keys: {sorted(document)[:10]})"
    )


# --- one entry ------------------------------------------------------------------------------


def _entry_facts(
    entry: Mapping[str, Any],
    where: str,
    section: str,
    global_options: Mapping[str, str],
) -> dict[str, Any]:
    """Return the per-entry row values: names, CPU, error, options and steady state."""
    jobname = _optional_str(entry.get("jobname"), f"{where}.jobname")
    options = {**global_options, **_options(entry.get("job options"), f"{where}.'job options'")}
    steadystate = entry.get("steadystate")
    attained = criterion = None
    if steadystate is not None:
        if not isinstance(steadystate, Mapping):
            raise ParseError(f"fio JSON {where}.steadystate is not an object")
        if steadystate.get("attained") is not None:
            attained = bool(_number(steadystate["attained"], f"{where}.steadystate.attained"))
        criterion = _optional_str(steadystate.get("criterion"), f"{where}.steadystate.criterion")
    return {
        "jobname": jobname,
        "groupid": _optional_int(entry.get("groupid"), f"{where}.groupid"),
        "hostname": (
            _optional_str(entry.get("hostname"), f"{where}.hostname")
            if section == "client_stats"
            else None
        ),
        "is_aggregate": section == "client_stats" and jobname == AGGREGATE_JOBNAME,
        "usr_cpu_pct": _optional_float(entry.get("usr_cpu"), f"{where}.usr_cpu"),
        "sys_cpu_pct": _optional_float(entry.get("sys_cpu"), f"{where}.sys_cpu"),
        "error": _optional_int(entry.get("error"), f"{where}.error"),
        "rw": options.get("rw"),
        "bs": options.get("bs"),
        "iodepth": _option_int(options, "iodepth", where),
        "numjobs": _option_int(options, "numjobs", where),
        "ioengine": options.get("ioengine"),
        "steadystate_attained": attained,
        "steadystate_criterion": criterion,
    }


def _direction_metrics(stats: Mapping[str, Any], where: str) -> dict[str, Any] | None:
    """Return one direction's metrics, or None when the direction did no I/O."""
    for key in ("io_bytes", "iops", "bw", "runtime"):
        if key not in stats:
            raise ParseError(f"fio JSON {where} has no '{key}'")
    io_bytes = _number(stats["io_bytes"], f"{where}.io_bytes")
    iops = _number(stats["iops"], f"{where}.iops")
    if io_bytes <= 0 and iops <= 0:
        return None
    if io_bytes != int(io_bytes):
        raise ParseError(f"fio JSON {where}.io_bytes is not an integer: {io_bytes!r}")
    io_bytes = int(io_bytes)
    if "io_kbytes" not in stats:
        io_bytes *= 1024  # fio 2.x: io_bytes is KiB (no io_kbytes next to it)

    if "clat_ns" in stats or "lat_ns" in stats:
        clat_key, lat_key, per_us = "clat_ns", "lat_ns", 1000  # fio 3.x: nanoseconds
    else:
        clat_key, lat_key, per_us = "clat", "lat", 1  # fio 2.x: microseconds
    clat_where, lat_where = f"{where}.{clat_key}", f"{where}.{lat_key}"
    clat = _optional_mapping(stats.get(clat_key), clat_where)
    lat = _optional_mapping(stats.get(lat_key), lat_where)

    def latency(block: Mapping[str, Any], key: str, block_where: str) -> float | None:
        value = _optional_float(block.get(key), f"{block_where}.{key}")
        return None if value is None else value / per_us

    metrics: dict[str, Any] = {
        "iops": float(iops),
        "bw_mibps": float(_number(stats["bw"], f"{where}.bw")) / 1024,
        "io_bytes": io_bytes,
        "runtime_ms": _number(stats["runtime"], f"{where}.runtime"),
        "total_ios": _optional_int(stats.get("total_ios"), f"{where}.total_ios"),
        "lat_mean_us": latency(lat, "mean", lat_where),
        "lat_max_us": latency(lat, "max", lat_where),
        "clat_mean_us": latency(clat, "mean", clat_where),
        "clat_stddev_us": latency(clat, "stddev", clat_where),
    }
    percentiles = _percentiles(clat.get("percentile"), f"{clat_where}.percentile")
    for name, percent in PERCENTILES.items():
        value = percentiles.get(percent)
        # fio prints 0 for percentiles it did not compute; a direction with I/O has none at 0.
        metrics[f"clat_{name}_us"] = value / per_us if value else None
    return metrics


def _percentiles(block: Any, where: str) -> dict[float, float]:
    """Return fio's ``percentile`` object as {percent: value}; keys like ``"99.900000"``."""
    if block is None:
        return {}
    if not isinstance(block, Mapping):
        raise ParseError(f"fio JSON {where} is not an object: {block!r:.80}")
    out: dict[float, float] = {}
    for key, value in block.items():
        try:
            percent = float(key)
        except ValueError:
            raise ParseError(f"fio JSON {where} has key {key!r}; expected a percent") from None
        if percent <= 0:
            continue  # fio 2.x pads the list with "0.00" : 0 entries
        value = _number(value, f"{where}[{key!r}]")
        for wanted in PERCENTILES.values():
            if abs(percent - wanted) < 1e-6:
                out[wanted] = value
    return out


def _options(block: Any, where: str) -> dict[str, str]:
    """Return a fio options object (``job options``/``global options``) as a dict of str."""
    if block is None:
        return {}
    if not isinstance(block, Mapping):
        raise ParseError(f"fio JSON {where} is not an object: {block!r:.80}")
    return {str(key): str(value) for key, value in block.items()}


def _option_int(options: Mapping[str, str], key: str, where: str) -> int | None:
    """Return an integer job option (``iodepth``, ``numjobs``) or None when absent."""
    if key not in options:
        return None
    try:
        return int(options[key])
    except ValueError:
        raise ParseError(
            f"fio JSON {where} option {key}={options[key]!r} is not an integer"
        ) from None


# --- summary helpers ------------------------------------------------------------------------


def _select_histogram(
    histogram: Iterable[Mapping[str, Any]] | None,
    counted: Sequence[Mapping[str, Any]],
    aggregate_indices: set[int],
) -> list[Mapping[str, Any]]:
    """Return the histogram rows of the counted entries.

    If the aggregate entries have no bins, the per-client bins are used (their merge is the
    aggregate's histogram).
    """
    if histogram is None:
        return []
    histogram = list(histogram)
    counted_indices = {row["entry_index"] for row in counted}
    selected = [row for row in histogram if row["entry_index"] in counted_indices]
    if not selected and aggregate_indices:
        selected = [row for row in histogram if row["entry_index"] not in aggregate_indices]
    return selected


def _distribution(bins: Iterable[Mapping[str, Any]], directions: Sequence[str], prefix: str) -> dict[str, Any]:
    """Percentiles (ms) and shares (%) of the bins of ``directions``; {} when they have none."""
    merged: Counter = Counter()
    for bin_row in bins:
        if bin_row["direction"] in directions:
            merged[bin_row["clat_ns"]] += bin_row["count"]
    total = sum(merged.values())
    if total <= 0:
        return {}
    out: dict[str, Any] = {f"{prefix}clat_{name}_ms": _bins_percentile(merged, PERCENTILES[name]) / 1e6
                           for name in SUMMARY_PERCENTILES}
    for limit, limit_us in SHARE_LIMITS_US.items():
        under = sum(count for value, count in merged.items() if value < limit_us * 1000)
        out[f"{prefix}clat_under_{limit}_pct"] = 100.0 * under / total
    return out


def _log_values(text: str, where: str, window_ms: int) -> dict[tuple[int, int], float]:
    """{(window, direction): value} of one fio log (the first line of a window counts)."""
    values: dict[tuple[int, int], float] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        fields = [field.strip() for field in line.split(",")]
        try:
            if len(fields) < 3:
                raise ValueError
            time_ms, value, direction = int(fields[0]), float(fields[1]), int(fields[2])
        except ValueError:
            raise ParseError(f"fio log {where} line {number} is not 'time, value, direction, ...': {line!r:.80}") from None
        # a line at the end of its window (1000 ms, or 999/1003 as clocks go) is window 1; a
        # shorter last window of a job (e.g. 4400 ms) is the next one (5)
        key = (math.ceil((time_ms - window_ms / 10) / window_ms), direction)
        values.setdefault(key, value)
    return values


def _bins_percentile(bins: Mapping[int, int], percent: float) -> int:
    """Return fio's percentile of a histogram: the first bin whose cumulative count reaches it."""
    total = sum(bins.values())
    threshold = percent / 100.0 * total
    cumulative = 0
    value = 0
    for value in sorted(bins):
        cumulative += bins[value]
        if cumulative >= threshold:
            return value
    return value  # pragma: no cover - the last bin always reaches 100 %


def _rows_percentile(
    part: Sequence[Mapping[str, Any]],
    fallback: Sequence[Mapping[str, Any]],
    directions: Sequence[str],
    key: str,
) -> tuple[float | None, bool]:
    """Return (percentile in us, exact) from rows: one row's value, else an IOPS-weighted mean."""
    with_value = [row for row in part if row[key] is not None]
    if not with_value:
        with_value = [
            row for row in fallback if row["direction"] in directions and row[key] is not None
        ]
        if not with_value:
            return None, True
        return _weighted_mean(with_value, key), False
    if len(part) == 1:
        return with_value[0][key], True
    return _weighted_mean(with_value, key), False


def _weighted_mean(rows: Sequence[Mapping[str, Any]], key: str) -> float | None:
    """Return the IOPS-weighted mean of ``row[key]`` (plain mean if no row has IOPS)."""
    pairs = [(row["iops"], row[key]) for row in rows if row[key] is not None]
    if not pairs:
        return None
    weight = sum(iops for iops, _ in pairs)
    if weight <= 0:
        return sum(value for _, value in pairs) / len(pairs)
    return sum(iops * value for iops, value in pairs) / weight


def _mean(values: Iterable[float | None]) -> float | None:
    """Return the mean of the values that are not None, or None."""
    present = [value for value in values if value is not None]
    return sum(present) / len(present) if present else None


# --- typed access ---------------------------------------------------------------------------


def _number(value: Any, where: str) -> int | float:
    """Return ``value`` if it is a finite JSON number, else raise ParseError naming ``where``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ParseError(f"fio JSON {where} is not a number: {value!r:.80}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ParseError(f"fio JSON {where} is not finite: {value!r}")
    return value


def _optional_float(value: Any, where: str) -> float | None:
    """Return a JSON number as float, None when absent."""
    return None if value is None else float(_number(value, where))


def _optional_int(value: Any, where: str) -> int | None:
    """Return an integral JSON number as int, None when absent."""
    if value is None:
        return None
    number = _number(value, where)
    if number != int(number):
        raise ParseError(f"fio JSON {where} is not an integer: {number!r}")
    return int(number)


def _optional_str(value: Any, where: str) -> str | None:
    """Return a JSON string, None when absent."""
    if value is None or isinstance(value, str):
        return value
    raise ParseError(f"fio JSON {where} is not a string: {value!r:.80}")


def _optional_mapping(value: Any, where: str) -> Mapping[str, Any]:
    """Return a JSON object, an empty one when absent."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ParseError(f"fio JSON {where} is not an object: {value!r:.80}")
    return value


def parse_fill_output(text: str) -> dict[str, int]:
    """Bytes each job of a fill (:func:`flashpoc.engines.fio.plan.render_fill_job`) wrote, by job
    name (the target's), from fio's own ``write.io_bytes``; a job that fio reports with an error,
    or without a whole number of bytes written, is refused rather than counted.

    Raises:
        ParseError: the output is not fio's JSON, or a job's figures are missing or broken.
    """
    document = _load_fio_json(text)
    jobs = document.get("jobs")
    if not isinstance(jobs, list) or not jobs:
        raise ParseError("fio fill output has no jobs[]")
    written: dict[str, int] = {}
    for i, job in enumerate(jobs):
        where = f"jobs[{i}]"
        if not isinstance(job, dict) or not isinstance(job.get("jobname"), str):
            raise ParseError(f"{where}: no jobname")
        if job.get("error"):
            raise ParseError(f"{where} ({job['jobname']}): fio reports error {job['error']}")
        io_bytes = (job.get("write") or {}).get("io_bytes") if isinstance(job.get("write"), dict) else None
        if not isinstance(io_bytes, int) or isinstance(io_bytes, bool) or io_bytes < 0:
            raise ParseError(f"{where} ({job['jobname']}): write.io_bytes is {io_bytes!r}, not a byte count")
        written[job["jobname"]] = written.get(job["jobname"], 0) + io_bytes
    return written

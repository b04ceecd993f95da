"""The metrics of one SLOB run point from parsed AWR reports (pure: dicts in, a flat dict out).

The input is what :func:`flashpoc.parse.awr.parse_awr` returns for the instance report of the
run's snapshots and, on RAC, for the RAC global report of the same snapshots. Key names carry
their unit and are those of :mod:`flashpoc.oracle_metrics` where the two overlap.

Scope
    ``scope`` is ``"instance"`` for an instance report alone (a single instance, or one RAC
    instance) and ``"cluster"`` when the RAC global report is given: IOPS, MiB/s, CPU and
    latencies are then the whole cluster's.

IO rates (per second)
    * Instance: Load Profile ``Read IO requests`` / ``Write IO requests`` (Oracle's
      ``physical read/write IO requests`` per second) give ``read_iops`` / ``write_iops``;
      ``Read IO (MB)`` / ``Write IO (MB)`` give ``read_mibps`` / ``write_mibps`` (AWR's MB is
      2**20 bytes); ``Redo size (bytes)`` / 2**20 gives ``redo_mibps``; ``Transactions``
      gives ``transactions_per_s``; ``DB Time(s)``, ``DB CPU(s)``, ``Background CPU(s)``
      give ``db_time_s_per_s``, ``db_cpu_s_per_s``, ``background_cpu_s_per_s`` (seconds per
      second; ``None`` when the row is absent).
    * Cluster: ``System Statistics (Global)`` per Second of ``physical read IO requests``,
      ``physical write IO requests``, ``physical read bytes`` / 2**20, ``physical write
      bytes`` / 2**20 and ``redo size`` / 2**20; ``transactions_per_s`` is ``user commits``
      + ``user rollbacks`` per second (a statistic AWR does not list counts as 0);
      ``db_time_s_per_s`` is the report's total DB time over its elapsed time (header);
      ``db_cpu_s_per_s`` / ``background_cpu_s_per_s`` are the per-instance ``Time Model``
      ``DB CPU (s)`` / ``bg CPU (s)`` summed over the instances, over the elapsed seconds.
    * ``iops`` = ``read_iops + write_iops``; ``bw_mibps`` = ``read_mibps + write_mibps``
      (``None`` when either part is).

Database time and cache
    ``db_cpu_pct_of_db_time``: the instance report's Top events ``DB CPU`` ``% DB time``
    (printed to 0.1), else ``db_cpu_s_per_s`` / ``db_time_s_per_s`` x 100 to 0.1 (the
    cluster's: Time Model DB CPU over the header's DB time). A run whose DB time is mostly DB
    CPU is not waiting for storage. ``buffer_hit_pct``: the
    instance report's "Instance Efficiency Percentages" ``Buffer Hit %``; the cluster's is
    100 x (1 - ``physical reads cache`` / ``session logical reads``) of ``System Statistics
    (Global)``, to 0.01 (the same formula gives 45.93 on the instance report that prints 45.92).

Latencies
    ``<event>_avg_wait_us`` for each event of :data:`KEY_EVENTS` (``<event>`` is
    :func:`flashpoc.oracle_metrics.event_key` of the name), ``None`` when the report lists no
    such wait. These are AWR's printed averages: foreground sessions for the foreground events
    (``db file sequential read``, ``db file scattered read``, ``direct path read``, ``log file
    sync``; what :mod:`flashpoc.oracle_metrics` calls ``<event>_fg_avg_wait_us``) and
    background sessions for ``log file parallel write`` / ``db file parallel write``; the
    cluster's come from the ``(Global)`` wait event sections (averages over all instances).

    ``lat_mean_ms`` is the point's read latency in milliseconds: the average wait of
    ``latency_event``, which is ``db file sequential read`` (random single-block reads, the
    POC's main latency) unless ``direct path read`` has more waits (a scan run, e.g. SLOB
    with SCAN_PCT; the waits are the ``Waits`` of the same wait-event rows). Without wait
    counts the sequential read is taken whenever it has an average.

Histogram shares
    ``<event>_under_512us_pct``, ``_under_1ms_pct``, ``_under_2ms_pct``, ``_under_4ms_pct``
    for ``db file sequential read`` and ``direct path read``: percent of all the event's waits
    shorter than the limit. AWR prints, per event, sections whose cells are percentages of
    *all* the event's waits in non-overlapping buckets, the first bucket of each section
    holding every wait below its limit (checked on the fixtures: 19c ``<8us`` ... ``<512us``
    in ``Wait Event Histogram`` add up to the ``<512us`` cell of ``(up to 32 ms)``, 92.2; the
    same holds in 12.2). The share under a limit ``L`` is therefore, in a section that has a
    bucket ending at ``L``, the sum of its buckets ending at or below ``L``; when several
    sections have such a bucket the one needing the fewest printed cells is used (each cell is
    rounded to 0.1). So for 19c/12.2 instance reports ``under_512us`` is the ``<512us`` cell
    of ``Wait Event Histogram (up to 32 ms)`` and ``under_1ms`` = that + ``<1ms`` etc.; for the
    RAC global report the buckets ``<1us`` ... ``<4ms`` of ``Wait Event Histogram (Global)``
    are added up (cells like ``0.0(2066)`` count as 0.0). The histograms count the waits of
    all sessions (foreground and background), unlike the foreground averages above. An event
    with no bucket ending at ``L`` gets 100.0 when a section's overflow bucket (``>=X`` with
    ``X <= L``) is blank ("value of null is truly 0"), else ``None`` (e.g. ``under_512us`` of
    an 11g report, whose buckets start at ``<1ms``). AWR's histogram "ms" is 1024 us, so ``under_1ms`` really is
    "under 1.024 ms" (``under_2ms`` 2.048 ms, ``under_4ms`` 4.096 ms). Shares are ``None``
    when the report has no histogram row of the event, and when the report's Foreground Wait
    Events table lists no wait of it (a SLOB run without scans: the histogram's few ``direct path
    read`` waits are background sessions', so the shares would read 100 for reads that never
    happened); the cluster's come from the global report only (never from the instance report).

Host CPU
    ``host_cpu_user_pct``, ``host_cpu_sys_pct``, ``host_cpu_iowait_pct``,
    ``host_cpu_idle_pct`` (AWR "Host CPU" %User, %System, %WIO, %Idle), ``host_cpu_busy_pct``
    = 100 - idle, and ``cpus``. Cluster: the per-instance ``OS Statistics By Instance`` rows
    averaged with the instances' CPU counts as weights (the plain mean when all hosts have the
    same number of CPUs), and ``cpus`` is the cluster's total.

Header
    ``db_name``, ``version``, ``begin_snap``, ``end_snap``, ``elapsed_s`` (AWR's elapsed
    minutes x 60, printed to 0.01 min), ``rac`` and ``instances`` (1 for an instance report,
    the number of instances in the global report for the cluster).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from flashpoc.errors import ParseError
from flashpoc.oracle_metrics import MIB, event_key

KEY_EVENTS: tuple[str, ...] = (
    "db file sequential read",
    "log file parallel write",
    "db file parallel write",
    "log file sync",
    "db file scattered read",
    "direct path read",
)
"""Wait events whose average wait is reported as ``<event>_avg_wait_us``."""

LATENCY_EVENTS: tuple[str, ...] = ("db file sequential read", "direct path read")
"""Candidates for ``latency_event`` (single-block random reads, else scan reads)."""

HISTOGRAM_EVENTS: tuple[str, ...] = ("db file sequential read", "direct path read")
"""Events whose histogram shares are reported."""

HISTOGRAM_LIMITS: dict[str, float] = {"512us": 512.0, "1ms": 1024.0, "2ms": 2048.0, "4ms": 4096.0}
"""Key suffix -> limit in AWR histogram microseconds (AWR's histogram ms is 1024 us)."""

_HISTOGRAM_SECTIONS: tuple[str, ...] = (
    "Wait Event Histogram",
    "Wait Event Histogram (up to 64 us)",
    "Wait Event Histogram (up to 32 ms)",
    "Wait Event Histogram (Global)",
)
# Sections whose bucket labels are read. The longer-range sections ("up to 2 sec/2 min/1 hr")
# are left out: their buckets start at 32 ms, and in text "m" there means minutes.

_BUCKET_RE = re.compile(r"^(<=|<|>=|>)(\d+(?:\.\d+)?(?:/\d+)?)([a-z]*)$")
_BUCKET_UNITS: dict[str, float] = {"": 1.0, "u": 1.0, "us": 1.0, "m": 1024.0, "ms": 1024.0, "s": 1024.0**2}
# In the sections above a label without unit is in us ("<512" and ">=512" where the text cuts
# the column), and "m" is a cut "ms" (">=32m").

_SYSSTAT_RATES: dict[str, tuple[str, float]] = {
    "read_iops": ("physical read IO requests", 1.0),
    "write_iops": ("physical write IO requests", 1.0),
    "read_mibps": ("physical read bytes", 1.0 / MIB),
    "write_mibps": ("physical write bytes", 1.0 / MIB),
    "redo_mibps": ("redo size", 1.0 / MIB),
}
"""Cluster metric -> (``System Statistics (Global)`` statistic, scale of its per Second)."""

_LOAD_PROFILE_RATES: dict[str, tuple[str, float]] = {
    "read_iops": ("Read IO requests", 1.0),
    "write_iops": ("Write IO requests", 1.0),
    "read_mibps": ("Read IO (MB)", 1.0),
    "write_mibps": ("Write IO (MB)", 1.0),
    "redo_mibps": ("Redo size (bytes)", 1.0 / MIB),
    "transactions_per_s": ("Transactions", 1.0),
    "db_time_s_per_s": ("DB Time(s)", 1.0),
    "db_cpu_s_per_s": ("DB CPU(s)", 1.0),
    "background_cpu_s_per_s": ("Background CPU(s)", 1.0),
}
"""Instance metric -> (Load Profile statistic, scale of its per Second)."""


def point_metrics(report: Mapping[str, Any], rac_global: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Metrics of one SLOB run point from its parsed AWR report(s).

    Args:
        report: :func:`flashpoc.parse.awr.parse_awr` of the instance report. A RAC global
            report is accepted here too (with ``rac_global`` ``None``): it is then the
            cluster's report.
        rac_global: ``parse_awr`` of the RAC global report of the same snapshots, or
            ``None``. When given, the metrics are the cluster's (``scope`` ``"cluster"``).

    Returns:
        A flat dict (units in the key names: ``_iops`` and ``_per_s`` per second, ``_mibps``
        MiB/s, ``_s_per_s`` seconds per second, ``_us`` microseconds, ``_ms``
        milliseconds, ``_pct`` percent, ``_s`` seconds): ``scope``, ``db_name``, ``version``,
        ``begin_snap``, ``end_snap``, ``elapsed_s``, ``rac``, ``instances``, ``read_iops``,
        ``write_iops``, ``iops``, ``read_mibps``, ``write_mibps``, ``bw_mibps``,
        ``redo_mibps``, ``transactions_per_s``, ``db_time_s_per_s``, ``db_cpu_s_per_s``,
        ``background_cpu_s_per_s``, ``db_cpu_pct_of_db_time``, ``buffer_hit_pct``, ``<event>_avg_wait_us`` for each of :data:`KEY_EVENTS`,
        ``latency_event``, ``lat_mean_ms``, ``<event>_under_{512us,1ms,2ms,4ms}_pct`` for
        each of :data:`HISTOGRAM_EVENTS`, ``host_cpu_user_pct``, ``host_cpu_sys_pct``,
        ``host_cpu_iowait_pct``, ``host_cpu_idle_pct``, ``host_cpu_busy_pct`` and ``cpus``;
        ``None`` where the report does not carry the value (see the module docstring).

    Raises:
        ParseError: An instance report without Load Profile ``Read IO requests`` / ``Write
            IO requests``; a RAC global report without ``System Statistics (Global)``
            physical read/write IO requests; a ``rac_global`` that is not a RAC global
            report or covers another database or other snapshots than ``report``.
    """
    if rac_global is None and report.get("kind") == "rac_global":
        rac_global = report
    elif rac_global is not None:
        _check_pair(report, rac_global)
    if rac_global is not None:
        return _cluster_metrics(rac_global)
    return _instance_metrics(report)


# --------------------------------------------------------------------------- scopes


def _check_pair(report: Mapping[str, Any], rac_global: Mapping[str, Any]) -> None:
    if rac_global.get("kind") != "rac_global":
        raise ParseError(
            f"AWR metrics: rac_global must be a RAC global report (kind 'rac_global'), "
            f"got kind {rac_global.get('kind')!r}"
        )
    if report.get("kind") != "instance":
        raise ParseError(f"AWR metrics: report must be an instance report, got kind {report.get('kind')!r}")
    inst, glob = report.get("header") or {}, rac_global.get("header") or {}
    for key in ("db_id", "begin_snap", "end_snap"):
        if inst.get(key) != glob.get(key):
            raise ParseError(
                f"AWR metrics: the instance and RAC global reports do not cover the same run: "
                f"{key} {inst.get(key)!r} in the instance report, {glob.get(key)!r} in the global one"
            )


def _header_metrics(header: Mapping[str, Any]) -> dict[str, Any]:
    elapsed_min = header.get("elapsed_min")
    return {
        "db_name": header.get("db_name"),
        "version": header.get("version"),
        "begin_snap": header.get("begin_snap"),
        "end_snap": header.get("end_snap"),
        "elapsed_s": None if elapsed_min is None else round(elapsed_min * 60.0, 3),
        "rac": header.get("rac"),
    }


def _instance_metrics(report: Mapping[str, Any]) -> dict[str, Any]:
    profile = {row["statistic"]: row["per_second"] for row in report.get("load_profile") or ()}
    missing = [name for name in ("Read IO requests", "Write IO requests") if profile.get(name) is None]
    if missing:
        raise ParseError(
            f"AWR metrics: the instance report's Load Profile has no {' / '.join(repr(m) for m in missing)} "
            f"row (kind {report.get('kind')!r}; a report older than 11.2, or not an AWR instance report?)"
        )
    out: dict[str, Any] = {"scope": "instance", **_header_metrics(report.get("header") or {}), "instances": 1}
    for metric, (stat, scale) in _LOAD_PROFILE_RATES.items():
        value = profile.get(stat)
        out[metric] = None if value is None else _round(value * scale)
    out.update(_io_sums(out))
    out["buffer_hit_pct"] = (report.get("instance_efficiency") or {}).get("buffer_hit_pct")
    printed = [e.get("pct_db_time") for e in report.get("top_events") or () if e.get("event") == "DB CPU"]
    out["db_cpu_pct_of_db_time"] = printed[0] if printed and printed[0] is not None else _cpu_share(out)
    out.update(_event_metrics(report))
    out.update(_host_cpu_instance(report.get("host_cpu")))
    return _ordered(out)


def _cluster_metrics(rac: Mapping[str, Any]) -> dict[str, Any]:
    stats = {row["statistic"]: row["per_second"] for row in rac.get("system_statistics_global") or ()}
    missing = [s for s in ("physical read IO requests", "physical write IO requests") if stats.get(s) is None]
    if missing:
        raise ParseError(
            f"AWR metrics: the RAC global report has no System Statistics (Global) "
            f"{' / '.join(repr(m) for m in missing)} (a report without that section, or parsed "
            f"by an older flashpoc.parse.awr?)"
        )
    header = rac.get("header") or {}
    count = header.get("instance_count") or len(header.get("instances") or ()) or None
    out: dict[str, Any] = {"scope": "cluster", **_header_metrics(header), "instances": count}
    for metric, (stat, scale) in _SYSSTAT_RATES.items():
        value = stats.get(stat)
        out[metric] = None if value is None else _round(value * scale)
    commits = stats.get("user commits")
    out["transactions_per_s"] = None if commits is None else _round(commits + (stats.get("user rollbacks") or 0.0))
    elapsed_s = out["elapsed_s"]
    db_time_min = header.get("db_time_min")
    out["db_time_s_per_s"] = (
        _round(db_time_min * 60.0 / elapsed_s) if db_time_min is not None and elapsed_s else None
    )
    time_model = rac.get("time_model_by_instance") or ()
    for metric, column in (("db_cpu_s_per_s", "DB CPU (s)"), ("background_cpu_s_per_s", "bg CPU (s)")):
        values = [row.get(column) for row in time_model]
        usable = bool(values) and all(v is not None for v in values) and bool(elapsed_s)
        out[metric] = _round(sum(values) / elapsed_s) if usable else None
    out.update(_io_sums(out))
    logical, cache = stats.get("session logical reads"), stats.get("physical reads cache")
    out["buffer_hit_pct"] = round(100.0 * (1.0 - cache / logical), 2) if logical and cache is not None else None
    out["db_cpu_pct_of_db_time"] = _cpu_share(out)
    out.update(_event_metrics(rac))
    out.update(_host_cpu_cluster(rac.get("host_cpu_by_instance")))
    return _ordered(out)


def _cpu_share(out: Mapping[str, Any]) -> float | None:
    """DB CPU as a percentage of DB time, to 0.1 (``None`` without both)."""
    cpu, time = out.get("db_cpu_s_per_s"), out.get("db_time_s_per_s")
    return round(100.0 * cpu / time, 1) if cpu is not None and time else None


_ORDER: tuple[str, ...] = (
    "scope", "db_name", "version", "begin_snap", "end_snap", "elapsed_s", "rac", "instances",
    "read_iops", "write_iops", "iops", "read_mibps", "write_mibps", "bw_mibps", "redo_mibps",
    "transactions_per_s", "db_time_s_per_s", "db_cpu_s_per_s", "background_cpu_s_per_s", "db_cpu_pct_of_db_time",
    "buffer_hit_pct",
)


def _ordered(out: dict[str, Any]) -> dict[str, Any]:
    """The same dict with the header and rate keys first (stable column order in tables)."""
    return {**{k: out[k] for k in _ORDER if k in out}, **{k: v for k, v in out.items() if k not in _ORDER}}


def _round(value: float) -> float:
    """Drop binary noise (``0.35019000000000003``) and keep 12 significant digits."""
    return float(f"{value:.12g}")


def _io_sums(out: Mapping[str, Any]) -> dict[str, Any]:
    def add(a: float | None, b: float | None) -> float | None:
        return None if a is None or b is None else _round(a + b)

    return {
        "iops": add(out.get("read_iops"), out.get("write_iops")),
        "bw_mibps": add(out.get("read_mibps"), out.get("write_mibps")),
    }


# --------------------------------------------------------------------------- events


def latency_event(key_events: Mapping[str, float], key_event_waits: Mapping[str, int] | None = None) -> str | None:
    """The event whose average wait is the point's read latency.

    Args:
        key_events: ``{event: average wait in us}`` (``parse_awr(...)["key_events"]``).
        key_event_waits: ``{event: waits}`` of the same rows, or ``None`` when unknown.

    Returns:
        ``"db file sequential read"`` unless ``"direct path read"`` has more waits (or is the
        only one of the two with an average); ``None`` when neither has an average.
    """
    present = [e for e in LATENCY_EVENTS if key_events.get(e) is not None]
    if not present:
        return None
    if len(present) == 1:
        return present[0]
    waits = key_event_waits or {}
    seq, scan = LATENCY_EVENTS
    if waits.get(scan) is not None and waits.get(scan, 0) > (waits.get(seq) or 0):
        return scan
    return seq


def _event_metrics(report: Mapping[str, Any]) -> dict[str, Any]:
    key_events = report.get("key_events") or {}
    out: dict[str, Any] = {}
    for event in KEY_EVENTS:
        out[f"{event_key(event)}_avg_wait_us"] = key_events.get(event)
    chosen = latency_event(key_events, report.get("key_event_waits"))
    out["latency_event"] = chosen
    out["lat_mean_ms"] = None if chosen is None else _round(key_events[chosen] / 1000.0)
    rows = report.get("event_histograms") or ()
    waits = report.get("key_event_waits") or {}
    foreground_read = any(name.startswith("Foreground Wait Events")
                          for name in (report.get("sections") or {}).get("read", ()))
    for event in HISTOGRAM_EVENTS:
        shares = histogram_shares(rows, event)
        if foreground_read and (event not in key_events or waits.get(event) == 0):
            shares = dict.fromkeys(shares)  # no foreground wait: the histogram is other sessions' waits
        out.update({f"{event_key(event)}_under_{suffix}_pct": share for suffix, share in shares.items()})
    return out


# --------------------------------------------------------------------------- histograms


def bucket_bound(label: str) -> tuple[str, float] | None:
    """Read an AWR histogram bucket label as ``(operator, limit)``, the limit in AWR us.

    Args:
        label: The column header as parsed (``<512us``, ``<128u``, ``<512``, ``>=512``,
            ``<1ms``, ``>=32m``, ``<1/8s``, ``<=1s``), from the sections listed in the module
            docstring (unitless and ``u`` are us, ``m``/``ms`` are AWR ms = 1024 us, ``s`` is
            1024 AWR ms).

    Returns:
        ``("<", limit)`` for a bucket of waits below ``limit`` (``"<="`` for 11g's
        ``<=1s``), ``(">=", limit)`` / ``(">", limit)`` for the overflow bucket, or ``None``
        when the label is not a bucket.
    """
    match = _BUCKET_RE.match(label.replace(" ", "").lower())
    if not match or match.group(3) not in _BUCKET_UNITS:
        return None
    number = match.group(2)
    if "/" in number:
        num, den = number.split("/")
        value = float(num) / float(den)
    else:
        value = float(number)
    return match.group(1), value * _BUCKET_UNITS[match.group(3)]


def histogram_shares(rows: Iterable[Mapping[str, Any]], event: str,
                     limits: Mapping[str, float] | None = None) -> dict[str, float | None]:
    """Percent of an event's waits below each limit, from AWR's wait event histograms.

    Args:
        rows: ``parse_awr(...)["event_histograms"]`` (section, event, bucket, pct,
            pct_printed).
        event: The wait event.
        limits: Key suffix -> limit in AWR us; :data:`HISTOGRAM_LIMITS` by default.

    Returns:
        ``{suffix: percent or None}`` (see "Histogram shares" in the module docstring),
        rounded to 3 decimals (the printed cells have one).
    """
    limits = HISTOGRAM_LIMITS if limits is None else limits
    sections: dict[str, list[tuple[tuple[str, float], Mapping[str, Any]]]] = {}
    seen: dict[str, set[str]] = {}
    unreadable: set[str] = set()
    for row in rows:
        section = row.get("section")
        if row.get("event") != event or section not in _HISTOGRAM_SECTIONS:
            continue
        if row["bucket"] in seen.setdefault(section, set()):
            continue  # the event printed again on a later page: keep the first row
        seen[section].add(row["bucket"])
        bound = bucket_bound(row["bucket"])
        if bound is None:
            unreadable.add(section)
            continue
        sections.setdefault(section, []).append((bound, row))
    for section in unreadable:
        sections.pop(section, None)
    return {suffix: _share_below(list(sections.values()), limit) for suffix, limit in limits.items()}


def _share_below(sections: Sequence[Sequence[tuple[tuple[str, float], Mapping[str, Any]]]],
                 limit: float) -> float | None:
    best: tuple[int, float] | None = None
    for buckets in sections:
        uppers = [(bound, float(row["pct"])) for (op, bound), row in buckets if op in ("<", "<=")]
        if not any(abs(bound - limit) < 1e-9 for bound, _ in uppers):
            continue
        terms = [pct for bound, pct in uppers if bound <= limit + 1e-9]
        if best is None or len(terms) < best[0]:
            best = (len(terms), sum(terms))
    if best is not None:
        return round(best[1], 3)
    for buckets in sections:
        for (op, bound), row in buckets:
            if op in (">=", ">") and bound <= limit and not str(row.get("pct_printed", "")).strip():
                return 100.0  # no wait at or above a lower bound ("value of null is truly 0")
    return None


# --------------------------------------------------------------------------- host CPU


_CPU_KEYS: dict[str, str] = {
    "host_cpu_user_pct": "user_pct",
    "host_cpu_sys_pct": "system_pct",
    "host_cpu_iowait_pct": "wio_pct",
    "host_cpu_idle_pct": "idle_pct",
}


def _busy(out: dict[str, Any]) -> dict[str, Any]:
    idle = out.get("host_cpu_idle_pct")
    out["host_cpu_busy_pct"] = None if idle is None else round(100.0 - idle, 3)
    return out


def _host_cpu_instance(cpu: Mapping[str, Any] | None) -> dict[str, Any]:
    cpu = cpu or {}
    out: dict[str, Any] = {metric: cpu.get(key) for metric, key in _CPU_KEYS.items()}
    _busy(out)
    out["cpus"] = cpu.get("cpus")
    return out


def _host_cpu_cluster(rows: Sequence[Mapping[str, Any]] | None) -> dict[str, Any]:
    rows = list(rows or ())
    out: dict[str, Any] = {}
    weights = [row.get("cpus") for row in rows]
    weighted = bool(rows) and all(w for w in weights)
    for metric, key in _CPU_KEYS.items():
        values = [row.get(key) for row in rows]
        if not values or any(v is None for v in values):
            out[metric] = None
        elif weighted:
            out[metric] = round(sum(v * w for v, w in zip(values, weights)) / sum(weights), 3)
        else:
            out[metric] = round(sum(values) / len(values), 3)
    _busy(out)
    out["cpus"] = sum(weights) if weighted else None
    return out


# --------------------------------------------------------------------------- buckets


def histogram_buckets(rows: Iterable[Mapping[str, Any]], event: str, *, low: float = 512.0,
                      high: float = 32768.0) -> list[dict[str, Any]]:
    """An event's wait histogram per bucket, as AWR prints it: the share (%) of all the event's
    waits in each bucket from ``<512us`` to ``>=32ms``.

    The section read is, of those listing the event, one with a ``<1ms`` bucket and the most
    buckets ("(up to 32 ms)" in 19c/12.2 instance reports, "(Global)" in RAC global reports, the
    single "Wait Event Histogram" of 11g), else the one with the most buckets. Its buckets below
    ``low`` (AWR us) add up to one ``<512us`` bucket and those at or above ``high`` to one
    ``>=32ms`` bucket, so that every report gives the same buckets; AWR's "ms" is 1024 us, so
    ``512us-1ms`` really ends at 1.024 ms (``upper_us`` holds AWR's bound).

    Returns:
        Rows ``bucket`` (label), ``lower_us``, ``upper_us`` (None for the last), ``share_pct``
        (the printed cells added, to 0.1), ``within_pct`` (cumulative, at most 100: the cells are
        rounded), ``section``; ``[]``
        when no section lists the event or its buckets cannot be read.
    """
    sections: dict[str, list[tuple[tuple[str, float], float]]] = {}
    seen: set[tuple[str, str]] = set()
    for row in rows:
        section = row.get("section")
        if row.get("event") != event or section not in _HISTOGRAM_SECTIONS or (section, row["bucket"]) in seen:
            continue
        seen.add((section, row["bucket"]))
        bound = bucket_bound(row["bucket"])
        if bound is None:
            sections[section] = []
            sections.setdefault(f"!{section}", [])  # unreadable: never chosen
            continue
        if f"!{section}" not in sections:
            sections.setdefault(section, []).append((bound, float(row["pct"])))
    usable = {name: buckets for name, buckets in sections.items() if buckets and not name.startswith("!")
              and f"!{name}" not in sections}
    if not usable:
        return []
    with_1ms = {n: b for n, b in usable.items() if any(op in ("<", "<=") and abs(v - 1024.0) < 1e-9
                                                         for (op, v), _ in b)}
    pool = with_1ms or usable
    name = max(pool, key=lambda n: len(pool[n]))
    merged: dict[tuple[float, float | None], float] = {}
    previous = 0.0
    for (op, bound), pct in pool[name]:
        if op in ("<", "<="):
            lower, upper = previous, bound
            previous = bound
        else:
            lower, upper = bound, None
        if upper is not None and upper <= low:
            key = (0.0, low)
        elif upper is None or lower >= high:
            key = (high, None)
        else:
            key = (lower, upper)
        merged[key] = merged.get(key, 0.0) + pct
    out, within = [], 0.0
    for (lower, upper), share in sorted(merged.items(), key=lambda item: item[0][0]):
        within += share
        out.append({"bucket": _bucket_text(lower, upper), "lower_us": lower, "upper_us": upper,
                    "share_pct": round(share, 1), "within_pct": min(round(within, 1), 100.0), "section": name})
    return out


def _awr_time(us: float) -> str:
    return f"{us / 1024.0:g}ms" if us >= 1024.0 else f"{us:g}us"


def _bucket_text(lower: float, upper: float | None) -> str:
    if upper is None:
        return f">={_awr_time(lower)}"
    if lower == 0.0:
        return f"<{_awr_time(upper)}"
    if lower >= 1024.0:
        return f"{lower / 1024.0:g}-{upper / 1024.0:g}ms"
    return f"{_awr_time(lower)}-{_awr_time(upper)}"

"""The metrics of one SLOB run point from parsed AWR reports (pure: dicts in, a flat dict out).

The input is what :func:`flashpoc.oracle.awr.parse_awr` returns for the instance report of the
run's snapshots and, on RAC, for the RAC global report of the same snapshots. Key names carry
their unit and are those of :mod:`flashpoc.oracle.metrics` where the two overlap.

Scope
    ``scope`` is ``"instance"`` for an instance report alone (a single instance, or one RAC
    instance) and ``"cluster"`` when the RAC global report is given: IOPS, MiB/s, CPU and
    latencies are then the whole cluster's. A Statspack report (``format`` ``"statspack"``,
    :mod:`flashpoc.oracle.statspack`) gives ``"instance (Statspack report)"``.

Statspack
    IO rates, MiB/s, redo and ``transactions_per_s`` come from its ``Instance Activity Stats``
    per Second (the statistics of the cluster's ``System Statistics (Global)``, below);
    ``db_time_s_per_s``, ``db_cpu_s_per_s`` and ``background_cpu_s_per_s`` are its ``Time Model
    System Stats`` seconds (``DB time``, ``DB CPU``, ``background cpu time``) over the elapsed
    seconds, and ``db_cpu_pct_of_db_time`` that model's printed DB CPU ``% DB time`` (Statspack's
    own figure, which can exceed 100). Averages are printed in whole milliseconds (a wait under
    0.5 ms prints 0): an event with 50 s or more of total wait time has its average taken as that
    time over its waits instead (:mod:`flashpoc.oracle.statspack`). A Statspack point has every key of an instance report's; ``_under_512us_pct``
    is ``None`` (the histogram starts at ``<1ms``), as for an 11g AWR report.

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
    :func:`flashpoc.oracle.metrics.event_key` of the name), ``None`` when the report lists no
    such wait. These are AWR's printed averages: foreground sessions for the foreground events
    (``db file sequential read``, ``db file scattered read``, ``direct path read``, ``log file
    sync``; what :mod:`flashpoc.oracle.metrics` calls ``<event>_fg_avg_wait_us``) and
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

from collections.abc import Mapping
from typing import Any

# Every name keeps its old path (flashpoc.oracle.awr_metrics.X): the package re-exports its modules' names.
from flashpoc.oracle.awr_metrics.events import KEY_EVENTS, LATENCY_EVENTS, _event_metrics, latency_event, whole_ms_latencies
from flashpoc.oracle.awr_metrics.histograms import (HISTOGRAM_EVENTS, HISTOGRAM_LIMITS, _BUCKET_RE, _BUCKET_UNITS, _HISTOGRAM_SECTIONS, _awr_time,
                         _bucket_text, _histogram_section, _share_below, bucket_bound, histogram_buckets,
                         histogram_shares)
from flashpoc.oracle.awr_metrics.scopes import (_CPU_KEYS, _LOAD_PROFILE_RATES, _ORDER, _SYSSTAT_RATES, _busy, _check_pair, _cluster_metrics,
                     _cpu_share, _header_metrics, _host_cpu_cluster, _host_cpu_instance, _instance_metrics, _io_sums,
                     _ordered, _statspack_metrics, _sysstat_rates)


def point_metrics(report: Mapping[str, Any], rac_global: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Metrics of one SLOB run point from its parsed AWR report(s).

    Args:
        report: :func:`flashpoc.oracle.awr.parse_awr` of the instance report. A RAC global
            report is accepted here too (with ``rac_global`` ``None``): it is then the
            cluster's report; so is a Statspack report (``rac_global`` ``None``).
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
    if report.get("format") == "statspack" and rac_global is None:
        return _statspack_metrics(report)
    if rac_global is None and report.get("kind") == "rac_global":
        rac_global = report
    elif rac_global is not None:
        _check_pair(report, rac_global)
    if rac_global is not None:
        return _cluster_metrics(rac_global)
    return _instance_metrics(report)

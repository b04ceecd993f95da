"""The probe and sweep phases on SLOB: one ``runit.sh`` run per point, read through AWR.

A point's threads are SLOB's threads per schema (``runit.sh -t``); every point uses all
``slob.schemas`` (``-s``), so the working set stays the whole SLOB data set and only the
concurrency changes: sessions = schemas x threads, which is the point's outstanding I/Os
(each SLOB session waits for one single-block read at a time).

A point's IOPS are Oracle's physical read + write IO requests per second and its latency the
``db file sequential read`` average (``direct path read`` for a pure scan run), from the
AWR reports runit.sh leaves (the RAC global report, when there is one, makes them the
cluster's); see :mod:`flashpoc.engines.slob.parse`.

With ``oracle`` set, each point also runs between two snapshots taken through python-oracledb,
and the interval's metrics are read from the DBA_HIST views (``sql_*`` columns, a cross-check
of the report); a run that leaves no AWR report (a site where runit.sh cannot produce text
reports) takes its metrics from those rows instead (scope ``instance (DBA_HIST)``), and its time
series the window of their snapshot times. When the
datafiles are on Direct NFS (``database: datafiles: dnfs``), the database's own cumulative I/O
counters are also sampled while runit.sh runs (:class:`DbstatSampler`, ``dbstat.json``): they
make the point's time series (:mod:`flashpoc.oracle.dbstat`).
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from flashpoc.engines import loop
from flashpoc.core.errors import FlashpocError, ParseError, RemoteError
from flashpoc.oracle.db.settings import OracleSettings
from flashpoc.oracle.dbstat import DBSTAT_FILE, live_interval, samples_text
from flashpoc.engines.slob.intervals import IostatFeed, MountstatsFeed
from flashpoc.engines.slob.settings import SlobWorkload
from flashpoc.engines.slob.parse import read_slob_run, read_sql_run_series
from flashpoc.engines.slob.plan import render_slob_conf
from flashpoc.core.records import Measured, PointSpec
from flashpoc.analysis.rows import base_row, interval_verdict
from flashpoc.oracle.snapshots import between_snapshots, snapshot_rows_json
from flashpoc.core.store import INTERVAL_COLUMNS, INTERVALS_FILE, table_text
from flashpoc.engines.slob.run import SAMPLE_S, SlobRun, followed, run_slob

#: seconds allowed beyond RUN_TIME for runit.sh's start, AWR snapshots and reports
REPORT_MARGIN_S = 1800


def point_conf(cfg, workload: SlobWorkload, threads: int, run_time_s: int | None = None) -> str:
    """The slob.conf of one point: THREADS_PER_SCHEMA ``threads``, RUN_TIME ``run_time_s``
    (default ``slob.run_time_s``)."""
    conf = cfg.settings.conf(workload, threads)
    if run_time_s is not None:
        conf = dataclasses.replace(conf, run_time=run_time_s)
    return render_slob_conf(conf, comment=f"campaign {cfg.campaign}, workload {workload.name}")


def point_definition(cfg, workload: SlobWorkload, threads: int, run_time_s: int | None = None) -> dict[str, Any]:
    """Everything that defines a SLOB point; its hash names the point on disk."""
    db = cfg.db_host
    return {
        "engine": "slob",
        "conf": point_conf(cfg, workload, threads, run_time_s),
        "schemas": cfg.settings.schemas,
        "threads": threads,
        "home": cfg.settings.home,
        "db_host": db.model_dump(mode="json", include={"name", "address", "port"}),
    }


def run_points(wb, specs: list[PointSpec], keys: list[str], bar=None) -> Iterator[Measured]:
    """SLOB measures its points one by one (:func:`run_point`), each iostat report handed to ``bar``."""
    return loop.each(specs, keys, bar, lambda spec, pid: run_point(wb, spec, pid, bar=bar))


def live_feed(cfg, bar) -> IostatFeed | MountstatsFeed | None:
    """What reads the running point's intervals for ``bar`` (:meth:`flashpoc.present.progress.Progress.interval`)
    from the lines of the file the point's script follows (:func:`flashpoc.engines.slob.run.followed`):
    runit.sh's iostat reports of the series' devices (:class:`.intervals.IostatFeed`) when the point's
    series is iostat's (local datafiles), the NFS mounts' samples (:class:`.intervals.MountstatsFeed`)
    on the kernel's NFS client; None without a bar that takes intervals, or on Direct NFS, which
    neither sees (the database's counters go to the bar as they are sampled: :class:`DbstatSampler`)."""
    interval = getattr(bar, "interval", None)
    datafiles = cfg.database.datafiles or "local"
    if interval is None or datafiles == "dnfs":
        return None
    if datafiles == "knfs":
        return MountstatsFeed(interval, cfg.database.nfs_mounts)
    return IostatFeed(interval, cfg.settings.iostat_devices)


def run_point(wb, spec: PointSpec, pid: str, on_line=None, bar=None) -> tuple[dict[str, Any], dict[str, str | bytes]]:
    """Run one SLOB point on the DB host; its row and raw files. While it runs, its intervals go to
    ``bar`` as they come (:func:`_execute`: runit.sh's iostat reports, the NFS mounts' or the
    database's counters).

    Raises:
        RemoteError: naming the DB host and the point when runit.sh fails or leaves no
            readable AWR report.
    """
    cfg = wb.cfg
    phase, workload, threads, run_time_s, repeat = spec.phase, spec.workload, spec.threads, spec.runtime_s, spec.repeat
    definition = point_definition(cfg, workload, threads, run_time_s)
    db = cfg.db_host
    schemas = cfg.settings.schemas
    purpose = f"{phase} {workload.name} runit.sh -s {schemas} -t {threads}"
    run, sql_metrics, sql_files = _execute(wb, f"{db.workdir}/{cfg.campaign}/{phase}/{pid}", definition["conf"],
                                           threads, run_time_s, purpose, on_line, bar)
    files = {**run.files, **sql_files}
    kept = {"slob.conf": run.conf, "console.txt": run.console, **files}  # a failed run's, kept (points/failed/)
    if run.exit_code != 0:
        tail = "\n".join(run.console.strip().splitlines()[-15:])
        raise RemoteError(f"{db.name}: {purpose}: runit.sh exited {run.exit_code}:\n{tail}", files=kept)
    try:
        metrics, intervals = _read_point(cfg, files, sql_metrics)
    except (ParseError, FlashpocError) as error:
        raise RemoteError(f"{db.name}: {purpose}: {error}", files=kept) from None
    if sql_metrics is not None:
        sampling = {key: sql_metrics.pop(key) for key in ("dbstat_samples", "dbstat_note", "dbstat_container_note")
                    if key in sql_metrics}
        metrics.update({f"sql_{k}": v for k, v in sql_metrics.items()}, **sampling)
    sessions = schemas * threads
    row = base_row(cfg, phase=phase, point_id=pid, engine="slob", workload=workload, iodepth=1,
                   threads=threads, outstanding=sessions, hosts=[db.name], runtime_s=run_time_s,
                   ramp_s=0, repeat=repeat, wall_s=run.wall_s)
    row.update({"schemas": schemas, "sessions": sessions, "update_pct": workload.update_pct,
                "scan_pct": workload.scan_pct})
    row.update(metrics)
    row["read_lat_mean_ms"] = row.get("lat_mean_ms")
    lpw = row.get("log_file_parallel_write_avg_wait_us")
    dpw = row.get("db_file_parallel_write_avg_wait_us")
    row["redo_write_lat_ms"] = None if lpw is None else lpw / 1000.0
    row["dbwr_write_lat_ms"] = None if dpw is None else dpw / 1000.0
    raw: dict[str, str | bytes] = {"slob.conf": run.conf, "console.txt": run.console}
    if intervals:
        intervals = [{**r, "point_id": pid} for r in intervals]
        raw[INTERVALS_FILE] = table_text(intervals, INTERVAL_COLUMNS)
        row.update(interval_verdict(intervals))
    raw.update(sql_files)
    raw.update({name: data for name, data in run.files.items() if name != "slob.conf"})
    return row, raw


def _execute(wb, run_dir: str, conf: str, threads: int, run_time_s: int, purpose: str, on_line, bar
             ) -> tuple[SlobRun, dict[str, Any] | None, dict[str, str]]:
    """runit.sh with ``conf`` in ``run_dir`` on the DB host, its intervals to ``bar`` as they come
    (:func:`live_feed`); with ``oracle:`` between two snapshots (:func:`with_snapshots`). The run,
    the snapshots' metrics (None without ``oracle:``) and their files."""
    cfg = wb.cfg
    db = cfg.db_host
    timeout = min(db.command_timeout_s, 2 * run_time_s + REPORT_MARGIN_S)

    def run() -> SlobRun:
        return run_slob(wb.host(db), conf, run_dir, home=cfg.settings.home, schemas=cfg.settings.schemas,
                        threads=threads, env_file=cfg.settings.env_file, timeout_s=timeout, purpose=purpose,
                        on_line=on_line, sample_nfs=cfg.database.datafiles not in (None, "local"),
                        on_follow=live_feed(cfg, bar), follow=followed(run_dir, cfg.database.datafiles))

    if cfg.oracle is None:
        return run(), None, {}
    sample_every_s = SAMPLE_S if cfg.database.datafiles == "dnfs" else None
    return with_snapshots(cfg, run, sample_every_s=sample_every_s, on_interval=getattr(bar, "interval", None))


def _read_point(cfg, files: dict[str, str | bytes], sql_metrics: dict[str, Any] | None
                ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The point's metrics and time series from its files (:func:`read_slob_run`); where the run left
    no report, from the snapshot rows' metrics (:func:`metrics_from_sql`), the series in the window of
    their snapshot times (:func:`read_sql_run_series`).

    Raises:
        ParseError, FlashpocError: no report could be read, and no snapshot rows were taken.
    """
    series_of = {"devices": cfg.settings.iostat_devices, "datafiles": cfg.database.datafiles or "local",
                 "nfs_mounts": cfg.database.nfs_mounts}
    from_sql = None if sql_metrics is None else metrics_from_sql(sql_metrics)
    try:  # the rows' exact averages stand for a Statspack report's whole milliseconds
        return read_slob_run(files, exact=from_sql, **series_of)
    except (ParseError, FlashpocError):
        if sql_metrics is None:
            raise
    series, intervals = read_sql_run_series(files, sql_metrics["begin_snap"], sql_metrics["end_snap"], **series_of,
                                            instance=sql_metrics.get("instance_number"))
    return {**from_sql, **series}, intervals


def with_snapshots(cfg, run, sample_every_s: float | None = None, on_interval: Callable[..., None] | None = None
                   ) -> tuple[SlobRun, dict[str, Any], dict[str, str]]:
    """Call ``run()`` between two snapshots taken through python-oracledb (``cfg.oracle``): AWR,
    or Statspack without the Diagnostics Pack (see :func:`flashpoc.oracle.snapshots.between_snapshots`).
    With ``sample_every_s``, the database's counters are sampled while ``run()`` runs
    (:class:`DbstatSampler`) and kept as :data:`~flashpoc.oracle.dbstat.DBSTAT_FILE`; a sampling that
    ended early says why in the metrics' ``dbstat_note`` (the point is kept), ``dbstat_samples``
    counts the samples, and ``dbstat_container_note`` says when they were taken through a PDB;
    each interval goes to ``on_interval`` as it is sampled (:class:`DbstatSampler`).

    Returns:
        ``(run result, the interval's metrics, {file name: JSON text})``: the snapshot rows'
        file, and dbstat.json when sampled.
    """
    settings = OracleSettings.of(cfg.oracle)
    sampler = DbstatSampler(settings, sample_every_s, on_interval) if sample_every_s is not None else None

    def sampled_run() -> SlobRun:
        with sampler:
            return run()

    interval = between_snapshots(settings, run if sampler is None else sampled_run)
    metrics = interval.metrics()
    metrics["instance_number"] = interval.facts["instance_number"]
    files = {interval.rows_file: snapshot_rows_json(interval.rows)}
    if sampler is not None:
        files[DBSTAT_FILE] = samples_text(sampler.samples, sample_every_s, sampler.note)
        metrics["dbstat_samples"] = len(sampler.samples)
        if sampler.note:
            metrics["dbstat_note"] = sampler.note
        if interval.facts.get("cdb") and str(interval.facts.get("con_name")).upper() != "CDB$ROOT":
            metrics["dbstat_container_note"] = (
                f"sampled through container {interval.facts.get('con_name')} of a CDB: the Oracle Database Reference "
                "says V$SYSSTAT and V$SYSTEM_EVENT return instance-wide data from the root, not what a PDB's session "
                "sees, so the series may be this container's I/O alone (connect to the root's service for the "
                "instance's)")
    return interval.result, metrics, files


CALL_TIMEOUT_MIN_S = 10.0
"""The least call timeout of the sampling connection (s): a few sampling intervals, at least this."""
JOIN_MARGIN_S = 5.0
"""Seconds the end of a point waits for the sampler beyond two call timeouts (a sample under way
and the one after the run) before it goes on without it."""


class DbstatSampler:
    """Samples the database's cumulative I/O counters (:func:`flashpoc.oracle.db.dbstat_sample`)
    in a background (daemon) thread with its own connection while its ``with`` block runs: one
    sample before the block starts, one every ``every_s`` seconds, one after it ends.

    Nothing it meets stops or hangs the block: every round trip of its connection has a call
    timeout (``Connection.call_timeout``: 3 x ``every_s``, at least :data:`CALL_TIMEOUT_MIN_S`);
    the end of the block waits for the thread at most :attr:`join_s`, then goes on with a note.
    Any exception ends the sampling and leaves :attr:`note` saying why (its type and message, the
    password scrubbed: :func:`flashpoc.oracle.db.scrub_secrets`); the samples taken so far are kept.

    With ``on_interval`` (:meth:`flashpoc.present.progress.Progress.interval`), each interval between two
    samples goes to it as soon as the second is taken, the cluster's, read as the stored series reads
    it (:func:`flashpoc.oracle.dbstat.live_interval`; one it would refuse is passed over), ``second``
    its end since the first sample.

    Attributes:
        samples: the samples of ``sql/dbstat_sample.sql``, in order.
        note: why the sampling ended early, or None.
        call_timeout_s: the sampling connection's call timeout (s).
        join_s: how long the end of the block waits for the thread (s).
    """

    def __init__(self, settings, every_s: float, on_interval: Callable[..., None] | None = None):
        self.settings, self.every_s, self.on_interval = settings, every_s, on_interval
        self.samples: list[dict[str, Any]] = []
        self.note: str | None = None
        self._taken: list[dict[str, Any]] = []  # the thread's; samples and note are set when the block ends
        self._ended: str | None = None
        self.call_timeout_s = max(CALL_TIMEOUT_MIN_S, 3 * every_s)
        self.join_s = 2 * self.call_timeout_s + JOIN_MARGIN_S
        self._stop, self._first = threading.Event(), threading.Event()
        self._thread = threading.Thread(target=self._sample, name="flashpoc-dbstat", daemon=True)

    def __enter__(self) -> DbstatSampler:
        self._thread.start()
        self._first.wait(self.join_s)  # the sample before the run is taken (or has failed)
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(self.join_s)
        self.samples, self.note = list(self._taken), self._ended
        if self._thread.is_alive():  # a daemon: it ends on its own, or with flashpoc
            self.note = (f"the sampling of the database's counters did not end within {self.join_s:g} s after the "
                         f"run: the point goes on with the {len(self.samples)} sample(s) taken")

    def _sample(self) -> None:
        from flashpoc.oracle import db as oracle

        try:
            with oracle.connect(self.settings) as conn:
                conn.call_timeout = int(self.call_timeout_s * 1000)
                self._taken.append(oracle.dbstat_sample(conn))
                self._first.set()
                due = time.monotonic()
                while True:  # on a fixed grid: a slow answer does not push the later samples back
                    due += self.every_s
                    if self._stop.wait(max(0.0, due - time.monotonic())):
                        break
                    self._take(oracle.dbstat_sample(conn))
                self._take(oracle.dbstat_sample(conn))  # the one after the run
        except Exception as error:  # noqa: BLE001 - whatever it is, the point goes on with a note
            said = oracle.scrub_secrets(self.settings, f"{type(error).__name__}: {error}")
            self._ended = f"the sampling of the database's counters ended after {len(self._taken)} sample(s): {said}"
        finally:
            self._first.set()

    def _take(self, sample: dict[str, Any]) -> None:
        """Keep ``sample``, and hand the interval it ends to :attr:`on_interval`."""
        before = self._taken[-1]
        self._taken.append(sample)
        values = None if self.on_interval is None else live_interval(before, sample)
        if values is None:
            return
        try:
            self.on_interval(values, second=float(sample["epoch_s"]) - float(self._taken[0]["epoch_s"]))
        except Exception:  # noqa: BLE001 - a view that fails gets no more intervals; the sampling goes on
            self.on_interval = None


def metrics_from_sql(sql: dict[str, Any]) -> dict[str, Any]:
    """A point's metrics from :func:`flashpoc.oracle.metrics.compute_awr_metrics` output, for a run
    that left no AWR report: the connected instance's IOPS (read + write IO requests/s), MiB/s,
    the foreground ``db file sequential read`` average as the latency (ms), the background
    write events, the read histogram shares and host CPU."""
    def avg(event: str) -> float | None:
        fg = sql.get(f"{event}_fg_avg_wait_us")
        return fg if fg is not None else sql.get(f"{event}_avg_wait_us")

    read_us = avg("db_file_sequential_read")
    out = {key: sql.get(key) for key in (
        "read_iops", "write_iops", "read_mibps", "write_mibps", "db_cpu_s_per_s", "background_cpu_s_per_s",
        "db_file_sequential_read_under_1ms_pct", "db_file_sequential_read_under_2ms_pct", "host_cpu_user_pct",
        "host_cpu_sys_pct", "host_cpu_iowait_pct", "host_cpu_idle_pct", "host_cpu_busy_pct",
        "begin_snap", "end_snap", "elapsed_s")}
    out.update({
        "scope": "instance (STATS$)" if sql.get("snapshots") == "statspack" else "instance (DBA_HIST)",
        "iops": (sql.get("read_iops") or 0.0) + (sql.get("write_iops") or 0.0),
        "bw_mibps": (sql.get("read_mibps") or 0.0) + (sql.get("write_mibps") or 0.0),
        "latency_event": "db file sequential read",
        "lat_mean_ms": None if read_us is None else read_us / 1000.0,
        "db_file_sequential_read_avg_wait_us": read_us,
        "log_file_parallel_write_avg_wait_us": avg("log_file_parallel_write"),
        "db_file_parallel_write_avg_wait_us": avg("db_file_parallel_write"),
        "log_file_sync_avg_wait_us": avg("log_file_sync"),
    })
    return out

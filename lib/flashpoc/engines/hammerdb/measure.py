"""The probe and sweep phases on HammerDB: a point is one timed TPROC-C run at N virtual users.

The point's ``threads`` are HammerDB's virtual users (``vuset vu N``, the monitor not counted); the
probe and the sweep vary them as other engines vary threads. The run goes through
:mod:`.run` on the campaign's load host, its files are parsed and cross-checked
(:mod:`.parse`), and the row holds HammerDB's own numbers (:mod:`.metrics`): NOPM, the database's
TPM, per-transaction response times, and the transaction counter's series as the point's
``intervals.csv`` with the steady-state verdict. A run that failed (a virtual user ``FINISHED
FAILED``, no ``TEST RESULT`` line, a script that stopped itself) raises naming what failed: it is
never stored as a point.

With ``build_schema`` the TPROC-C schema is built once, before the campaign's first point, and
its outputs stored (atomically) in ``points/build/schema`` (a rerun finds it and does not build again),
from the first load host.

With several load hosts each one runs HammerDB at the point's virtual users, all started together
(:class:`flashpoc.hosts.group.Group`: the point fails when one host fails, every failed host named);
the row combines them (:func:`.hosts.combine_hosts`) and each host's files are stored under its
name (``load1.console.txt``...).

Each run is an attempt in a folder of its own on the load host (:mod:`.run`), what earlier attempts
left there removed first: a failed or interrupted point is run again as a new attempt. A point
whose error lines (:mod:`.lines`, every transaction's summed over the load hosts) are more than
``max_errors`` is refused as a measurement: an error names them and the run's files are kept in
``points/refused/`` (so is a run that failed); a stored point with more errors than the
parameters now allow (or one stored before errors were counted, whose files say how many) is not
reused but moved there and measured again (:func:`reusable`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from flashpoc.engines import loop
from flashpoc.core.errors import ParseError, RemoteError
from flashpoc.core.records import Measured, PointSpec
from flashpoc.hosts.group import Group
from flashpoc.analysis.rows import base_row
from flashpoc.core.store import table_text
from flashpoc.oracle.db.settings import OracleSettings
from flashpoc.oracle.snapshots import between_snapshots, snapshot_rows_json
from flashpoc.engines.hammerdb.awr import ROWS_FILE, interval_columns, read_awr_rows, snapshot_pair
from flashpoc.engines.hammerdb.fixedwork import fixed_work_hosts
from flashpoc.engines.hammerdb.engine import TPROCC
from flashpoc.engines.hammerdb.hosts import combine_hosts
from flashpoc.engines.hammerdb.metrics import ERROR_COLUMNS, INTERVAL_COLUMNS, error_columns, point_metrics
from flashpoc.engines.hammerdb.parse import errors_text, parse_files
from flashpoc.engines.hammerdb.plan import build_script, run_script
from flashpoc.engines.hammerdb.run import HammerdbRun, attempt_dir, attempts_root, clear_stale, counter_reader, run_hammerdb

#: seconds allowed beyond the rampup and duration for HammerDB's start, the virtual users' logins,
#: the time profile's report and the job store's answers
RUN_MARGIN_S = 600
#: seconds a schema build may take per warehouse (HammerDB loads about 100 MB per warehouse)
BUILD_S_PER_WAREHOUSE = 600
BUILD_PHASE, BUILD_POINT = "build", "schema"
#: where the files of a refused attempt, or of a stored point no longer taken, are kept (``points/refused/``)
REFUSED_PHASE = "refused"


def point_definition(cfg, virtual_users: int) -> dict[str, Any]:
    """Everything that defines a HammerDB point; its hash names the point on disk."""
    other = {"rampup_minutes", "duration_minutes"} if cfg.settings.fixed_work else {"iterations", "user_delay_ms",
                                                                                    "repeat_delay_ms"}
    settings = cfg.settings.model_dump(mode="json", exclude={"build_schema", "build_virtual_users", "max_errors", *other})
    return {"engine": "hammerdb", "virtual_users": virtual_users, "hammerdb": settings,
            "hosts": [h.model_dump(mode="json", include={"name", "address", "port"}) for h in cfg.hosts]}


def _run(wb, script: str, what: str, purpose: str, timeout_s: float, host=None, on_line=None) -> HammerdbRun:
    """Run ``script`` on ``host`` (the first load host) as a new attempt named ``what``, what
    earlier attempts of the campaign left on that host removed first (:mod:`.run`); ``on_line``
    gets each console line as HammerDB prints it."""
    cfg, host = wb.cfg, host or wb.cfg.hosts[0]
    remote = wb.host(host)
    clear_stale(remote, attempts_root(host.workdir, cfg.campaign, host.name), purpose=purpose)
    return run_hammerdb(remote, script, attempt_dir(host.workdir, cfg.campaign, host.name, what),
                        hammerdb_dir=cfg.settings.hammerdb_dir, env_file=cfg.settings.env_file,
                        secret_names=cfg.settings.password_variables,
                        timeout_s=min(host.command_timeout_s, timeout_s), purpose=purpose, on_line=on_line)


def ensure_schema(wb) -> None:
    """Build the TPROC-C schema when the settings ask for it and this campaign has not built it.

    Raises:
        RemoteError: the build failed (HammerDB's console says why); nothing is stored.
    """
    s = wb.cfg.settings
    if not s.build_schema or wb.store.point_dir(BUILD_PHASE, BUILD_POINT).is_dir():
        return
    purpose = f"build the {s.warehouses}-warehouse TPROC-C schema"
    run = _run(wb, build_script(s), f"{BUILD_PHASE}-{BUILD_POINT}", purpose, BUILD_S_PER_WAREHOUSE * s.warehouses)
    if run.exit_code != 0 or "SCHEMA COMPLETE" not in run.console:
        tail = " | ".join(line for line in run.console.strip().splitlines()[-8:] if line.strip())
        raise RemoteError(f"{run.host}: {purpose}: HammerDB did not complete the build (exit {run.exit_code}): {tail}")
    wb.store.save_point(BUILD_PHASE, BUILD_POINT, None, {"console.txt": run.console, "script.tcl": run.script,
                                                         **run.files})


def run_points(wb, specs: list[PointSpec], keys: list[str], bar=None) -> Iterator[Measured]:
    """HammerDB measures its points one by one (:func:`run_point`), through the loop (:mod:`flashpoc.engines.loop`)."""
    return loop.each(specs, keys, bar, lambda spec, pid: run_point(wb, spec, pid, bar))


def run_point(wb, spec: PointSpec, pid: str, bar: Any = None) -> tuple[dict[str, Any], dict[str, str | bytes]]:
    """Run one TPROC-C point at ``spec.threads`` virtual users, a timed run or a fixed work
    (:mod:`.fixedwork`), on every load host together (the schema built first when the settings ask
    for it and the campaign has not built it); its row and raw files. The first load host's
    transaction counter goes to ``bar`` as it prints it (:func:`.run.counter_reader`: every host
    counts the database's transactions).

    Raises:
        RemoteError: naming the load host and the point when HammerDB fails, its outputs do not
            give the point whole, or it printed more error lines than ``max_errors`` (nothing of
            it is stored as a point; a run's files are kept in ``points/refused/``).
    """
    cfg = wb.cfg
    s = cfg.settings
    phase, threads = spec.phase, spec.threads
    ensure_schema(wb)
    several = len(cfg.hosts) > 1
    purpose = (f"{phase} {'fixed-work ' if s.fixed_work else ''}TPROC-C at {threads} virtual users"
               + (" per load host" if several else ""))
    what = f"{phase}-{pid}"
    counter = counter_reader(getattr(bar, "interval", None), 0 if s.fixed_work else s.rampup_minutes * 60)
    interval, runs = _run_hosts(wb, run_script(s, threads), what, purpose, counter)
    raw: dict[str, str | bytes] = {}
    for run in runs:
        prefix = f"{run.host}." if several else ""
        raw.update({f"{prefix}{name}": text for name, text in {"script.tcl": run.script, "console.txt": run.console,
                                                                **run.files}.items()})
    try:
        if s.fixed_work:
            metrics, series, files = fixed_work_hosts(runs, purpose, threads), [], {}
            metrics.update(_interval_metrics(cfg, interval, raw))
        else:
            measured = {run.host: _host_metrics(cfg, run, purpose, threads) for run in runs}
            metrics, series = combine_hosts({h: (m, v) for h, (m, v, _) in measured.items()})
            files = {f"{run.host}." * several + n: t for run in runs for n, t in measured[run.host][2].items()}
        _within_errors(metrics, s.max_errors, purpose)
    except RemoteError as error:  # the measure loop keeps the run's files in points/refused/ and says where
        raise RemoteError(str(error), files=raw, kept_in=REFUSED_PHASE) from None
    length = round(metrics["completion_s"]) if s.fixed_work else s.duration_minutes * 60
    row = base_row(cfg, phase=phase, point_id=pid, engine="hammerdb", workload=TPROCC, iodepth=1, threads=threads,
                   outstanding=threads * len(runs), hosts=[run.host for run in runs], runtime_s=length,
                   ramp_s=0 if s.fixed_work else s.rampup_minutes * 60, repeat=spec.repeat,
                   wall_s=max(run.wall_s for run in runs))
    row.update(metrics)
    raw.update(files)  # with AWR's rows, read after the run
    if series:
        raw["intervals.csv"] = table_text([{**r, "point_id": pid} for r in series], INTERVAL_COLUMNS)
    return row, raw


def _run_hosts(wb, script: str, what: str, purpose: str, counter=None) -> tuple[Any, list[HammerdbRun]]:
    """The runs of ``script`` on every load host, started together (one on one host), the first
    host's console lines handed to ``counter`` (:func:`.run.counter_reader`); a fixed work
    on Oracle with an ``oracle:`` block between two snapshots (:func:`.sqlscript.measure.between_snapshots`,
    whose interval is returned too; else None)."""
    cfg = wb.cfg
    s = cfg.settings
    timeout_s = (10**9 if s.fixed_work  # a fixed work ends when done: the load host's command_timeout_s bounds it
                 else (s.rampup_minutes + s.duration_minutes) * 60 + RUN_MARGIN_S)

    def run_all() -> list[HammerdbRun]:
        if len(cfg.hosts) > 1:
            return list(Group(cfg.hosts, strict=True).map(
                lambda h: _run(wb, script, what, purpose, timeout_s, host=h,
                               on_line=counter if h is cfg.hosts[0] else None), purpose=purpose))
        return [_run(wb, script, what, purpose, timeout_s, on_line=counter)]

    if s.fixed_work and s.database == "oracle" and cfg.oracle is not None:
        interval = between_snapshots(OracleSettings.of(cfg.oracle), run_all)
        return interval, interval.result
    return None, run_all()


def _interval_metrics(cfg, interval, raw: dict[str, str | bytes]) -> dict[str, Any]:
    """A fixed work's database metrics: on Oracle AWR's (or Statspack's) between the snapshots
    flashpoc took around it, their rows kept in ``raw``; an ``awr_note`` where there are none."""
    if cfg.settings.database != "oracle":
        return {}
    if interval is None:
        return {"awr_note": "no AWR metrics: the campaign has no oracle block (dsn, user) to take the snapshots "
                            "around the fixed work"}
    raw[interval.rows_file] = snapshot_rows_json(interval.rows)
    return {"awr_begin_snap": interval.begin_snap, "awr_end_snap": interval.end_snap,
            "awr_dbid": interval.facts.get("dbid"), "awr_instance": interval.facts.get("instance_name"),
            "awr_instance_number": interval.facts.get("instance_number"), "snapshots": interval.method,
            **interval_columns(interval.metrics())}


def _within_errors(metrics: dict[str, Any], max_errors: int, purpose: str) -> None:
    """Refuse a point whose error lines are more than ``max_errors`` (or cannot be counted).

    Raises:
        RemoteError: naming the errors per transaction and the threshold.
    """
    if metrics.get("errors") is None:
        raise RemoteError(f"{purpose}: no file of the run gives its virtual users' lines, so its errors cannot be "
                          "counted: not a measurement")
    if metrics["errors"] > max_errors:
        counts = tuple((c.removesuffix("_errors").upper(), metrics.get(c) or 0) for c in ERROR_COLUMNS[1:])
        raise RemoteError(f"{purpose}: HammerDB printed {errors_text(counts)}, more than max_errors "
                          f"({max_errors}): not a measurement")


def reusable(wb, phase: str, key: str, row: dict[str, Any]) -> bool:
    """Whether a stored point stands for a measurement with ``max_errors`` now: its error lines
    (counted from its stored files when it was stored before they were, and written into its row)
    are within it. A point that is not is moved to ``points/refused/`` (to be measured again)."""
    errors = row.get("errors")
    if errors is None:
        errors = _stored_errors(wb, phase, key)
        if errors is not None:
            wb.store.annotate_point(phase, key, _stored_columns(wb, phase, key))
    if errors is not None and errors <= wb.cfg.settings.max_errors:
        return True
    stored = wb.store.point_dir(phase, key)
    archive = wb.store.point_dir(REFUSED_PHASE, loop.kept_name(f"{phase}-{key}"))
    archive.parent.mkdir(parents=True, exist_ok=True)
    os.replace(stored, archive)
    return False


def _stored_columns(wb, phase: str, key: str) -> dict[str, int | None]:
    """The error columns of a stored point's files, summed over its load hosts' (all None when a
    host's files do not give them)."""
    folder = wb.store.point_dir(phase, key)
    files = {p.name: p.read_text(errors="replace") for p in folder.iterdir() if p.is_file()}
    hosts = sorted({n.split(".", 1)[0] for n in files if n.endswith(".console.txt")}) or [None]
    columns: dict[str, int | None] = dict.fromkeys(ERROR_COLUMNS, 0)
    for host in hosts:
        mine = {n.split(".", 1)[1]: t for n, t in files.items() if n.startswith(f"{host}.")} if host else files
        try:
            counted = error_columns(parse_files(mine))
        except ParseError:
            return dict.fromkeys(ERROR_COLUMNS)
        for column in ERROR_COLUMNS:
            columns[column] = None if counted[column] is None or columns[column] is None else (
                columns[column] + counted[column])
    return columns


def _stored_errors(wb, phase: str, key: str) -> int | None:
    return _stored_columns(wb, phase, key)["errors"]


def _host_metrics(cfg, run: HammerdbRun, purpose: str, threads: int
                  ) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, str]]:
    """One load host's run: its metrics, its counter series and its files (with AWR's rows on Oracle).

    Raises:
        RemoteError: naming the host when HammerDB failed or its outputs do not give the point whole.
    """
    files = {"console.txt": run.console, **run.files}
    try:
        result = parse_files(files)
    except ParseError as error:
        raise RemoteError(f"{run.host}: {purpose}: {error}") from None
    if run.exit_code != 0:
        raise RemoteError(f"{run.host}: {purpose}: hammerdbcli exited {run.exit_code}")
    if result.virtual_users != threads:
        raise RemoteError(f"{run.host}: {purpose}: HammerDB ran {result.virtual_users} active virtual users, "
                          f"not {threads}")
    try:
        pair = snapshot_pair(result.snapshots)
    except ParseError as error:
        raise RemoteError(f"{run.host}: {purpose}: {error}") from None
    awr_files, awr_note = read_awr_rows(cfg.oracle, pair)  # Oracle: AWR's rows between HammerDB's snapshots
    files.update(awr_files)
    try:
        metrics, series = point_metrics(result, files)
    except ParseError as error:  # AWR's rows do not give the interval: the point keeps HammerDB's numbers
        awr_note = f"no AWR metrics: {error}"
        without = {k: v for k, v in files.items() if k != ROWS_FILE}
        metrics, series = point_metrics(result, without)
    if pair:
        metrics["awr_note"] = awr_note
    return metrics, series, files

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
(:class:`flashpoc.run.group.Group`: the point fails when one host fails, every failed host named);
the row combines them (:func:`.hosts.combine_hosts`) and each host's files are stored under its
name (``load1.console.txt``...).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ... import points
from ...errors import ParseError, RemoteError
from ...points import Measured, PointSpec
from ...run.group import Group
from ...rows import base_row
from ...store import table_text
from .awr import ROWS_FILE, read_awr_rows, snapshot_pair
from .engine import TPROCC
from .hosts import combine_hosts
from .metrics import INTERVAL_COLUMNS, point_metrics, timed_window
from .parse import parse_files
from .plan import build_script, run_script
from .run import HammerdbRun, counter_reader, run_hammerdb

#: seconds allowed beyond the rampup and duration for HammerDB's start, the virtual users' logins,
#: the time profile's report and the job store's answers
RUN_MARGIN_S = 600
#: seconds a schema build may take per warehouse (HammerDB loads about 100 MB per warehouse)
BUILD_S_PER_WAREHOUSE = 600
BUILD_PHASE, BUILD_POINT = "build", "schema"


def point_definition(cfg, virtual_users: int) -> dict[str, Any]:
    """Everything that defines a HammerDB point; its hash names the point on disk."""
    settings = cfg.settings.model_dump(mode="json", exclude={"build_schema", "build_virtual_users"})
    return {"engine": "hammerdb", "virtual_users": virtual_users, "hammerdb": settings,
            "hosts": [h.model_dump(mode="json", include={"name", "address", "port"}) for h in cfg.hosts]}


def _run(wb, script: str, phase: str, pid: str, purpose: str, timeout_s: float, host=None,
         on_line=None) -> HammerdbRun:
    cfg, host = wb.cfg, host or wb.cfg.hosts[0]
    return run_hammerdb(wb.host(host), script, f"{host.workdir}/{cfg.campaign}/{phase}/{pid}",
                        hammerdb_dir=cfg.settings.hammerdb_dir, env_file=cfg.settings.env_file,
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
    run = _run(wb, build_script(s), BUILD_PHASE, BUILD_POINT, purpose, BUILD_S_PER_WAREHOUSE * s.warehouses)
    if run.exit_code != 0 or "SCHEMA COMPLETE" not in run.console:
        tail = " | ".join(line for line in run.console.strip().splitlines()[-8:] if line.strip())
        raise RemoteError(f"{run.host}: {purpose}: HammerDB did not complete the build (exit {run.exit_code}): {tail}")
    wb.store.save_point(BUILD_PHASE, BUILD_POINT, None, {"console.txt": run.console, "script.tcl": run.script,
                                                         **run.files})


def run_points(wb, specs: list[PointSpec], keys: list[str], bar=None) -> Iterator[Measured]:
    """HammerDB measures its points one by one (:func:`run_point`), through the loop (:mod:`flashpoc.points`)."""
    return points.each(specs, keys, bar, lambda spec, pid: run_point(wb, spec, pid, bar))


def run_point(wb, spec: PointSpec, pid: str, bar: Any = None) -> tuple[dict[str, Any], dict[str, str | bytes]]:
    """Run one timed TPROC-C point at ``spec.threads`` virtual users (the schema built first when
    the settings ask for it and the campaign has not built it); its row and raw files. The first load
    host's transaction counter goes to ``bar`` as it prints it (:func:`.run.counter_reader`: every
    host counts the database's transactions).

    Raises:
        RemoteError: naming the load host and the point when HammerDB fails or its outputs do not
            give the point whole (nothing of it is stored).
    """
    cfg = wb.cfg
    s = cfg.settings
    phase, threads, repeat = spec.phase, spec.threads, spec.repeat
    ensure_schema(wb)
    several = len(cfg.hosts) > 1
    purpose = f"{phase} TPROC-C at {threads} virtual users" + (" per load host" if several else "")
    script, timeout_s = run_script(s, threads), (s.rampup_minutes + s.duration_minutes) * 60 + RUN_MARGIN_S
    counter = counter_reader(getattr(bar, "interval", None), s.rampup_minutes * 60)
    if several:  # one run per load host, started together, each in its own run directory
        runs = list(Group(cfg.hosts, strict=True).map(
            lambda h: _run(wb, script, phase, f"{pid}/{h.name}", purpose, timeout_s, host=h,
                           on_line=counter if h is cfg.hosts[0] else None), purpose=purpose))
    else:
        runs = [_run(wb, script, phase, pid, purpose, timeout_s, on_line=counter)]
    measured = {run.host: _host_metrics(cfg, run, purpose, threads) for run in runs}
    metrics, series = combine_hosts({h: (m, v) for h, (m, v, _) in measured.items()})
    row = base_row(cfg, phase=phase, point_id=pid, engine="hammerdb", workload=TPROCC, iodepth=1, threads=threads,
                   outstanding=threads * len(runs), hosts=list(measured), runtime_s=s.duration_minutes * 60,
                   ramp_s=s.rampup_minutes * 60, repeat=repeat, wall_s=max(run.wall_s for run in runs))
    row.update(metrics)
    raw: dict[str, str | bytes] = {}
    for run in runs:
        prefix = f"{run.host}." if several else ""
        files = {"script.tcl": run.script, **measured[run.host][2]}
        raw.update({f"{prefix}{name}": text for name, text in files.items()})
    if series:
        raw["intervals.csv"] = table_text([{**r, "point_id": pid} for r in series], INTERVAL_COLUMNS)
    return row, raw


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
        metrics, series = point_metrics(result, timed_window(files), files)
    except ParseError as error:  # AWR's rows do not give the interval: the point keeps HammerDB's numbers
        awr_note = f"no AWR metrics: {error}"
        without = {k: v for k, v in files.items() if k != ROWS_FILE}
        metrics, series = point_metrics(result, timed_window(without), without)
    if pair:
        metrics["awr_note"] = awr_note
    return metrics, series, files

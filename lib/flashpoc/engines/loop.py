"""The one measure loop of every engine, below the engines that call it.

A :class:`~flashpoc.core.records.PointSpec` says what to measure (phase, workload, threads, length,
repeat, ...); a :class:`~flashpoc.core.records.Point` is what was measured (or found stored).
:func:`measure` owns what every engine shares: point ids, reuse of stored points (a steady sweep
point is the probe's point of the same definition; a stored point the engine no longer takes,
:meth:`~flashpoc.engines.base.Engine.reusable`, is measured again), saving each point atomically as
the engine hands it over, complete (with the columns its phase adds, :func:`extended`), and the
records in the specs' order; what a failed point's run left (its job, the engine's output and
error text, carried by the error) is kept in ``points/failed/`` and named in the error
(:func:`keep_failed`). An engine provides only what is its own (:class:`flashpoc.engines.base.Engine`):
what defines a point (the hash that names it on disk) and ``run_points``, which measures a list of
specs, one at a time or several in one invocation (vdbench's thread list), yielding each result as
it comes. Here too are a point's length and steadiness as the phases set them (:func:`point_spec`).

Rows on disk keep their format: a point's ``point.json`` (or, for an engine that stores an
invocation's points together, the group's ``points.json``) without ``reused``.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from flashpoc.analysis import rows as rows_mod
from flashpoc.analysis.extension import extension_fields, next_length, rate_step, runs_until, steady_verdict
from flashpoc.core.errors import FlashpocError
from flashpoc.core.records import Measured, Point, PointSpec

if TYPE_CHECKING:
    from flashpoc.params import Campaign
    from flashpoc.hosts.workbench import Workbench


def point_id(spec: PointSpec, definition: dict[str, Any]) -> str:
    """A point's id: workload, threads and the hash of its ``definition``, then ``_c<pct>`` for a
    rate step and ``_r<n>`` for a repeat (the ids stored points have always had)."""
    return (rows_mod.point_id(spec.workload, spec.threads, definition)
            + (f"_c{spec.rate[0]:g}" if spec.rate is not None else "") + (f"_r{spec.repeat}" if spec.repeat else ""))


def measure(wb: Workbench, specs: Iterable[PointSpec], bar: Any = None, *, engine: Any = None) -> list[Point]:
    """Measure ``specs`` with the campaign's engine (or ``engine``: a DBA's job is the sqlscript
    engine's point in a campaign of any engine), reusing the stored ones; the records in the
    specs' order (several for a spec whose engine measures steps of it, e.g. vdbench's curve).

    The engine measures the specs not stored in one call (:meth:`~flashpoc.engines.base.Engine.run_points`),
    or one per run of them between stored ones, so that the progress tells every point in the specs'
    order; each result is stored atomically as it comes, so a failure keeps the points done before it.

    Raises:
        RemoteError, CheckFailed: from the engine; the points stored before stay stored, and the
            files of the point's failed run that the error carries are kept (:func:`keep_failed`).
    """
    specs = list(specs)
    engine = engine or wb.engine
    keys = engine.storage_keys(wb, specs)
    units: dict[str, list[PointSpec]] = {}
    for spec, key in zip(specs, keys):
        units.setdefault(key, []).append(spec)
    done: dict[str, list[Point]] = {}
    block: list[str] = []  # units not stored, in a row: the engine measures them in one call

    def run_block() -> None:
        todo = [(spec, key) for spec, key in zip(specs, keys) if key in block]
        block.clear()
        if not todo:
            return
        try:
            for result in engine.run_points(wb, [s for s, _ in todo], [k for _, k in todo], bar):
                unit = units[result.key]
                result = dataclasses.replace(result, rows=tuple(_completed(wb, _spec_of(unit, row), row)
                                                                for row in result.rows))
                engine.save_rows(wb, unit[0].phase, result)
                done[result.key] = [Point.of(_spec_of(unit, row), row, result.key, reused=False)
                                    for row in result.rows]
                _tell(bar, done[result.key], counted=result.counted)
        except FlashpocError as error:
            if error.files:
                spec, key = next((s, k) for s, k in todo if k not in done)  # the first not stored failed
                keep_failed(wb, error, f"{spec.phase}-{key}")
            raise

    for key, unit in units.items():  # in the specs' order, so that the progress says them in it
        rows = engine.stored_rows(wb, unit[0], key)
        if rows is None:
            block.append(key)
            continue
        run_block()
        done[key] = [Point.of(_spec_of(unit, row), _reused(wb, _spec_of(unit, row), row, key), key, reused=True)
                     for row in rows]
        _tell(bar, done[key])
    run_block()
    return [point for key in units for point in done[key]]


def keep_failed(wb: Workbench, error: FlashpocError, what: str) -> None:
    """Keep what a failed point's run left (``error.files``: its job, the engine's output and
    error text) in ``points/<error.kept_in>/<what>-<UTC time>/`` (atomically), and name the folder at the
    end of the error's message (the error is changed in place; its files are dropped from it)."""
    where = wb.store.save_point(error.kept_in, kept_name(what), None, error.files)
    error.args = (f"{error} (the run's files: {where})", *error.args[1:])
    error.files = {}


def kept_name(what: str) -> str:
    """The folder name of files kept aside under ``points/<folder>/`` (a failed run's, a stored point no
    longer taken): ``what`` and the UTC time, ``probe-<point>-20261128T142230``."""
    return f"{what}-{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}"


def _tell(bar: Any, done: list[Point], *, counted: bool = False) -> None:
    if bar is not None:
        for point in done:
            bar.point(point.row, counted=counted)


def measure_one(wb: Workbench, spec: PointSpec, bar: Any = None) -> dict[str, Any]:
    """The row of one point (:func:`measure`), for the callers that take rows."""
    (point, *more) = measure(wb, [spec], bar)
    return point.as_row()


def rows_of(points: Iterable[Point]) -> list[dict[str, Any]]:
    """The rows of ``points`` as plain dicts."""
    return [p.as_row() for p in points]


def repeats(points: Iterable[Point]) -> dict[tuple[str, str, int, float | None], list[Point]]:
    """The records of each point (:attr:`Point.key`) with its repeats, by repeat index."""
    out: dict[tuple[str, str, int, float | None], list[Point]] = {}
    for point in points:
        out.setdefault(point.key, []).append(point)
    return {key: sorted(group, key=lambda p: int(p.row.get("repeat") or 0)) for key, group in out.items()}


def _spec_of(unit: list[PointSpec], row: Mapping[str, Any]) -> PointSpec:
    """The spec of ``unit`` a row answers (by threads; a group holds several)."""
    if len(unit) == 1:
        return unit[0]
    return next((s for s in unit if s.threads == int(row["threads"])), unit[0])


def _completed(wb: Workbench, spec: PointSpec, row: dict[str, Any]) -> dict[str, Any]:
    """``row`` as the point ``spec`` is stored: with the columns its phase adds (the last run of a
    sweep point extended until steady says so, :func:`extended`)."""
    return {**row, **extended(wb.cfg, spec, row)}


def _reused(wb: Workbench, spec: PointSpec, row: dict[str, Any], key: str) -> dict[str, Any]:
    """The stored ``row`` of ``spec``, completed (:func:`_completed`); its stored record too when it
    lacks what its phase adds now (a point stored before ``sweep.extend_until_steady`` was set)."""
    added = extended(wb.cfg, spec, row)
    missing = {k: v for k, v in added.items() if k not in row or row[k] != v}
    if missing:
        wb.store.annotate_point(spec.phase, str(row.get("point_id", key)), missing)
    return {**row, **added}


def stored_point(wb: Workbench, engine: Any, spec: PointSpec, key: str) -> list[dict[str, Any]] | None:
    """The stored point ``key`` as a list of its row, or None (:meth:`flashpoc.engines.base.Engine.stored_rows`).
    A sweep point that ends once steady, of the same definition as a stored probe point, is that
    point: stored for the sweep as well (its files copied; ``reused_from: probe``)."""
    row = wb.store.load_point(spec.phase, key)
    if row is not None and not engine.reusable(wb, spec.phase, key, row):
        return None  # stored, but not a measurement by the parameters now: measured again
    if row is None and spec.phase == "sweep" and spec.steady is not None:
        row = _from_probe(wb, engine, spec, key)
    return None if row is None else [row]


def _from_probe(wb: Workbench, engine: Any, spec: PointSpec, pid: str) -> dict[str, Any] | None:
    """The probe's stored point ``pid``, stored for the sweep too (as ``spec``, :func:`_completed`),
    or None when the probe has none (or one the engine does not reuse)."""
    row = wb.store.load_point("probe", pid)
    if row is None or not engine.reusable(wb, "probe", pid, row):
        return None
    source = wb.store.point_dir("probe", pid)
    raw = {p.name: p.read_bytes() for p in sorted(source.iterdir()) if p.is_file() and p.name != "point.json"}
    row = _completed(wb, spec, {**row, "phase": "sweep", "reused_from": "probe"})
    wb.store.save_point("sweep", pid, row, raw)
    return row


def each(specs: Iterable[PointSpec], keys: Iterable[str], bar: Any,
         run_one: Any) -> Iterator[Measured]:
    """``run_points`` of an engine that measures one point at a time: ``run_one(spec, key)`` gives
    ``(row, raw)``; the bar is told when each point begins."""
    for spec, key in zip(specs, keys):
        if bar is not None:
            bar.begin(spec.workload.name, spec.threads)
        row, raw = run_one(spec, key)
        yield Measured(key, (row,), raw)


def extended(cfg: Any, spec: Any, row: dict[str, Any]) -> dict[str, Any]:
    """The columns the point ``spec`` (:class:`flashpoc.core.records.PointSpec`) of ``row`` is stored
    with: :func:`~flashpoc.analysis.extension.extension_fields` when it is the last run of a sweep point extended until steady
    (``sweep.extend_until_steady``; :func:`~flashpoc.analysis.extension.next_length` says it is done); {} for any other point:
    a run measured again longer, a point of another phase or without the setting, or of a rate
    curve (kept as measured, :func:`flashpoc.campaign.extend.extend_rows`)."""
    settings = cfg.sweep.extend_until_steady
    if spec.phase != "sweep" or settings is None or not row.get("runtime_s") or rate_step(row) \
            or cfg.engine_object.points_per_count(cfg) > 1:  # a sweep of rate curves
        return {}
    planned = sweep_runtime_s(cfg)
    if next_length(row, planned, settings.max_s) is not None:
        return {}
    return extension_fields(runs_until(planned, settings.max_s, int(row["runtime_s"])), *steady_verdict(row))


def _point_runtime_s(cfg: Campaign) -> int:
    """Measured seconds of a point unless the phase says otherwise (the engine's, e.g. fio's runtime)."""
    return cfg.engine_object.point_runtime_s(cfg)


def sweep_runtime_s(cfg: Campaign) -> int:
    """Measured seconds of a sweep point: ``sweep.runtime_s``, else the engine's (:func:`_point_runtime_s`)."""
    return cfg.sweep.runtime_s or _point_runtime_s(cfg)


def probe_runtime_s(cfg: Campaign) -> int:
    """Measured seconds of a probe point: ``probe.runtime_s``, else the engine's (:func:`_point_runtime_s`)."""
    return cfg.probe.runtime_s or _point_runtime_s(cfg)


def point_spec(cfg: Campaign, phase: str, workload, threads: int, runtime_s: int, repeat: int = 0) -> PointSpec:
    """The spec of a ``phase`` point (:class:`~flashpoc.core.records.PointSpec`), ending once steady when
    the phase says so (:func:`point_steadiness`)."""
    return PointSpec(phase, workload, threads, runtime_s, repeat=repeat, steady=point_steadiness(cfg, phase, runtime_s))


def point_steadiness(cfg: Campaign, phase: str, runtime_s: int) -> tuple[str, int] | None:
    """The engine's criterion and window (s) that end a ``phase`` point once its IOPS are steady
    (``probe.until_steady``, ``sweep.until_steady``; :meth:`flashpoc.engines.base.Engine.steadiness`,
    e.g. :func:`flashpoc.engines.fio.plan.until_steady`), or None for points of fixed length."""
    wanted = cfg.probe.until_steady if phase == "probe" else cfg.sweep.until_steady
    return cfg.engine_object.steadiness(cfg, runtime_s) if wanted else None

"""A point extended until steady (``sweep.extend_until_steady: {max_s: N}``), rather than only judged.

A sweep point that is not steady at its length is measured again, longer: twice its length, then
twice that, up to ``max_s`` (:func:`extension_lengths`), until a rule says it is steady
(:func:`steady_verdict`): fio's own ``steadystate`` when it ended the point (it ends a job early
once steady, so a longer run ends as soon as it is, and costs no more than it needs), else the
SNIA PTS rule over the point's measured intervals (fio's interval logs, vdbench's intervals). A
point without a time series (no verdict) is not extended. Each run is a point of its own length,
stored as every point is; the row kept is the last one, saying which rule decided, the lengths run
and whether it became steady (:func:`extension_fields`). The lengths and the rule are pure;
the measure loop (:func:`flashpoc.campaign.points.measure`) gives the last run its columns before it stores
it (:func:`extended`), so each run is written once, complete; :func:`extend_rows` measures again
through the engine (:meth:`flashpoc.engines.base.Engine.measure_longer`) while :func:`next_length`
says a point is not done.
"""

from __future__ import annotations

from typing import Any

from flashpoc.analysis import SNIA_ROUNDS
from flashpoc.core.tables import verdict

#: each longer run is this many times the one before (the last one: ``max_s``)
GROWTH = 2
#: the rule that decides from the intervals when fio's own steadystate did not end the point
SNIA_RULE = f"SNIA PTS ({SNIA_ROUNDS} rounds of its intervals)"


def extension_lengths(runtime_s: int, max_s: int) -> list[int]:
    """The lengths (s) a point of ``runtime_s`` is measured again at, longest last: doubling,
    the last one ``max_s``; [] when ``max_s`` is not longer than ``runtime_s``."""
    lengths: list[int] = []
    length = runtime_s
    while length < max_s:
        length = min(max_s, length * GROWTH)
        lengths.append(length)
    return lengths


def steady_verdict(row: dict[str, Any]) -> tuple[bool | None, str]:
    """Whether the point of ``row`` is steady, and the rule that says so: fio's own steadystate
    when it ended the point (``fio_steadystate``: attained or not), else the SNIA PTS rule over
    its measured intervals (``snia_steady``); (None, why) when neither can judge it."""
    criterion = row.get("fio_steadystate")
    attained = verdict(row.get("steadystate_attained"))
    if criterion and attained is not None:
        return attained, f"fio steadystate ({criterion})"
    snia = verdict(row.get("snia_steady"))
    if snia is not None:
        return snia, SNIA_RULE
    return None, f"no verdict (fewer than {SNIA_ROUNDS} measured intervals, and fio's steadystate did not end it)"


def extension_fields(lengths_run: list[int], steady: bool | None, rule: str) -> dict[str, Any]:
    """The row's columns of an extended point: the lengths run (s, the first the planned one),
    the rule that decided and whether the point ended steady."""
    return {"extended_runs_s": list(lengths_run), "steady_rule": rule, "extended_steady": steady}


def runs_until(planned_s: int, max_s: int, length_s: int) -> list[int]:
    """The lengths (s) a point planned at ``planned_s`` has run at once its run of ``length_s`` is
    done: ``planned_s``, then each of :func:`extension_lengths` up to ``length_s`` (a run an engine
    rounded up, vdbench's to whole intervals, counts as the length asked for)."""
    return [planned_s, *(length for length in extension_lengths(planned_s, max_s) if length <= length_s)]


def next_length(row: dict[str, Any], planned_s: int, max_s: int) -> int | None:
    """The length (s) the point of ``row`` (planned at ``planned_s``) is measured again at: the next
    of :func:`extension_lengths` after the row's own when the rule says it is not steady
    (:func:`steady_verdict`); None when the point is done (steady, no verdict, or run at the limit)."""
    if steady_verdict(row)[0] is not False:
        return None
    return next((length for length in extension_lengths(planned_s, max_s) if length > int(row["runtime_s"])), None)


def extended(cfg: Any, spec: Any, row: dict[str, Any]) -> dict[str, Any]:
    """The columns the point ``spec`` (:class:`flashpoc.campaign.points.PointSpec`) of ``row`` is stored
    with: :func:`extension_fields` when it is the last run of a sweep point extended until steady
    (``sweep.extend_until_steady``; :func:`next_length` says it is done); {} for any other point:
    a run measured again longer, a point of another phase or without the setting, or of a rate
    curve (kept as measured, :func:`extend_rows`)."""
    from flashpoc.engines import get_engine
    from flashpoc.campaign.session import sweep_runtime_s

    settings = cfg.sweep.extend_until_steady
    if spec.phase != "sweep" or settings is None or not row.get("runtime_s") or _rate_step(row) \
            or get_engine(cfg.engine).points_per_count(cfg) > 1:  # a sweep of rate curves
        return {}
    planned = sweep_runtime_s(cfg)
    if next_length(row, planned, settings.max_s) is not None:
        return {}
    return extension_fields(runs_until(planned, settings.max_s, int(row["runtime_s"])), *steady_verdict(row))


def _rate_step(row: dict[str, Any]) -> bool:
    """Whether ``row`` is a step of a rate curve (its ``curve_pct``, not NaN)."""
    return row.get("curve_pct") is not None and row["curve_pct"] == row["curve_pct"]


def extension_text(row: dict[str, Any]) -> str | None:
    """What extending did to a point, in words ('extended until steady: 1, 2, 4 s run; SNIA PTS
    (...) decided: steady after 4 s'), or None for a point not extended."""
    runs = row.get("extended_runs_s")
    if not isinstance(runs, (list, tuple)) or not runs:
        return None
    steady = verdict(row.get("extended_steady"))
    measured = row.get("measured_s")  # fio's steadystate ended it: when; else the run's full length
    ran = measured if isinstance(measured, (int, float)) and measured == measured else runs[-1]
    said = ("steady" if steady else "still NOT steady" if steady is False else "no verdict")
    return (f"extended until steady: {', '.join(str(int(r)) for r in runs)} s run; {row.get('steady_rule')} "
            f"decided: {said} after {float(ran):g} s")


def extend_rows(wb: Any, phase: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``rows`` of ``phase`` with each point that is not steady measured again longer (at each
    :func:`next_length` up to ``sweep.extend_until_steady.max_s``, by the engine's
    :meth:`flashpoc.engines.base.Engine.measure_longer`): the last row of each, which the measure
    loop stored with which rule decided and the lengths run (:func:`extended`). A rate curve (its
    rate-controlled steps and the full-speed run they are fractions of) is kept as it is: a longer
    full-speed run would no longer be what its steps were measured against. ``rows`` unchanged
    without ``sweep.extend_until_steady``."""
    from flashpoc.engines import get_engine
    from flashpoc.campaign.session import sweep_runtime_s

    settings = wb.cfg.sweep.extend_until_steady
    if settings is None:
        return rows
    engine, planned = get_engine(wb.cfg.engine), sweep_runtime_s(wb.cfg)
    curves = {(r["workload"], r["threads"]) for r in rows if _rate_step(r)}
    out = []
    for row in rows:
        if (row["workload"], row["threads"]) not in curves and row.get("runtime_s"):
            workload, threads, asked = wb.cfg.workload(row["workload"]), int(row["threads"]), planned
            while (length := next_length(row, planned, settings.max_s) or 0) > asked:  # each length once
                row, asked = engine.measure_longer(wb, phase, workload, threads, length), length
        out.append(row)
    return out

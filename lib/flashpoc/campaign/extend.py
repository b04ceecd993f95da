"""A point extended until steady (``sweep.extend_until_steady: {max_s: N}``), rather than only judged;
the lengths and the rule are pure (:mod:`flashpoc.analysis.extension`), the columns of the last run
are the measure loop's (:func:`flashpoc.engines.loop.extended`).

:func:`extend_rows` measures a sweep point again, longer, through the engine
(:meth:`flashpoc.engines.base.Engine.measure_longer`) while
:func:`~flashpoc.analysis.extension.next_length` says it is not done.
"""

from __future__ import annotations

from typing import Any

from flashpoc.analysis.extension import next_length, rate_step
from flashpoc.core.tables import verdict
from flashpoc.engines.loop import sweep_runtime_s


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
    loop stored with which rule decided and the lengths run (:func:`flashpoc.engines.loop.extended`). A rate curve (its
    rate-controlled steps and the full-speed run they are fractions of) is kept as it is: a longer
    full-speed run would no longer be what its steps were measured against. ``rows`` unchanged
    without ``sweep.extend_until_steady``."""

    settings = wb.cfg.sweep.extend_until_steady
    if settings is None:
        return rows
    engine, planned = wb.engine, sweep_runtime_s(wb.cfg)
    curves = {(r["workload"], r["threads"]) for r in rows if rate_step(r)}
    out = []
    for row in rows:
        if (row["workload"], row["threads"]) not in curves and row.get("runtime_s"):
            workload, threads, asked = wb.cfg.workload(row["workload"]), int(row["threads"]), planned
            while (length := next_length(row, planned, settings.max_s) or 0) > asked:  # each length once
                row, asked = engine.measure_longer(wb, phase, workload, threads, length), length
        out.append(row)
    return out

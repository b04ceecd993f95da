"""A point extended until steady (``sweep.extend_until_steady: {max_s: N}``), rather than only judged.

A sweep point that is not steady at its length is measured again, longer: twice its length, then
twice that, up to ``max_s`` (:func:`extension_lengths`), until a rule says it is steady
(:func:`steady_verdict`): fio's own ``steadystate`` when it ended the point (it ends a job early
once steady, so a longer run ends as soon as it is, and costs no more than it needs), else the
SNIA PTS rule over the point's measured intervals (fio's interval logs, vdbench's intervals). A
point without a time series (no verdict) is not extended. Each run is a point of its own length,
stored as every point is; the row kept is the last one, saying which rule decided, the lengths run
and whether it became steady (:func:`extension_fields`). The lengths and the rule are pure;
:func:`measure_until_steady` measures through the function it is given, :func:`extend_rows` through
the engine (:meth:`flashpoc.engines.base.Engine.measure_longer`), and the store
(:meth:`flashpoc.store.CampaignStore.annotate_point`) adds the extension's columns to the stored record.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .analysis import SNIA_ROUNDS
from .summary import verdict

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


def measure_until_steady(measure: Callable[[int], dict[str, Any]], runtime_s: int, max_s: int | None
                         ) -> dict[str, Any]:
    """The row of a point measured by ``measure(length_s)`` at ``runtime_s``, then, while a rule
    says it is not steady, again at each of :func:`extension_lengths` up to ``max_s``; the last
    row, with :func:`extension_fields` (none without ``max_s``)."""
    row = measure(runtime_s)
    if not max_s:
        return row
    run = [runtime_s]
    steady, rule = steady_verdict(row)
    for length in extension_lengths(runtime_s, max_s):
        if steady is not False:
            break
        row = measure(length)
        run.append(length)
        steady, rule = steady_verdict(row)
    return {**row, **extension_fields(run, steady, rule)}


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
    """``rows`` of ``phase`` with each point that is not steady measured again longer
    (:func:`measure_until_steady` up to ``sweep.extend_until_steady.max_s``, by the engine's
    :meth:`flashpoc.engines.base.Engine.measure_longer`): the last row of each, with which rule
    decided and the lengths run, also in its stored record. A rate curve (its rate-controlled steps
    and the full-speed run they are fractions of) is kept as it is: a longer full-speed run would
    no longer be what its steps were measured against. ``rows`` unchanged without
    ``sweep.extend_until_steady``."""
    from .engines import get_engine

    settings = wb.cfg.sweep.extend_until_steady
    if settings is None:
        return rows
    engine = get_engine(wb.cfg.engine)
    curves = {(r["workload"], r["threads"]) for r in rows if r.get("curve_pct") is not None and r["curve_pct"] == r["curve_pct"]}
    out = []
    for row in rows:
        if (row["workload"], row["threads"]) in curves or not row.get("runtime_s"):
            out.append(row)
            continue
        workload, threads, planned = wb.cfg.workload(row["workload"]), int(row["threads"]), int(row["runtime_s"])

        def measure(length: int, first: dict[str, Any] = row) -> dict[str, Any]:
            return first if length == planned else engine.measure_longer(wb, phase, workload, threads, length)

        done = measure_until_steady(measure, planned, settings.max_s)
        wb.store.annotate_point(phase, done["point_id"],
                                {k: done[k] for k in ("extended_runs_s", "steady_rule", "extended_steady")})
        out.append(done)
    return out

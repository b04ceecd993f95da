"""The pure rules of a point extended until steady (``sweep.extend_until_steady: {max_s: N}``), rather than only judged.

A sweep point that is not steady at its length is measured again, longer: twice its length, then
twice that, up to ``max_s`` (:func:`extension_lengths`), until a rule says it is steady
(:func:`steady_verdict`): fio's own ``steadystate`` when it ended the point (it ends a job early
once steady, so a longer run ends as soon as it is, and costs no more than it needs), else the
SNIA PTS rule over the point's measured intervals (fio's interval logs, vdbench's intervals). A
point without a time series (no verdict) is not extended. Each run is a point of its own length,
stored as every point is; the row kept is the last one, saying which rule decided, the lengths run
and whether it became steady (:func:`extension_fields`). The lengths and the rule are pure;
the measure loop (:func:`flashpoc.engines.loop.measure`) gives the last run its columns before it stores
it (:func:`flashpoc.engines.loop.extended`), so each run is written once, complete;
:func:`flashpoc.campaign.extend.extend_rows` measures again through the engine
(:meth:`flashpoc.engines.base.Engine.measure_longer`) while :func:`next_length` says a point is not done.
"""

from __future__ import annotations

from typing import Any

from flashpoc.analysis.steady import SNIA_ROUNDS
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


def rate_step(row: dict[str, Any]) -> bool:
    """Whether ``row`` is a step of a rate curve (its ``curve_pct``, not NaN)."""
    return row.get("curve_pct") is not None and row["curve_pct"] == row["curve_pct"]

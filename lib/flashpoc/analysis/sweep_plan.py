"""Plan the fine thread sweep that follows the saturation probe (pure: numbers in, numbers out).

The POC guide sweeps ``forthreads=(step-max,step)`` up to the probe's saturation thread count, e.g.
``(10-300,10)``: 30 runs, 30 minutes at one minute each. The ``knee-dense`` plan measures fewer
points, spaced more densely towards ``max_threads`` where the knee of the hockey stick is.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence

from flashpoc.core.errors import ParameterError
from flashpoc.core.numbers import tidy

PLANS = ("guide", "knee-dense", "rate-curve")
# The guide's follow-up sweep: about 30 points up to the saturation thread count.
GUIDE_POINTS = 30
MIN_KNEE_DENSE_POINTS = 5


def _whole(name: str, value: object, minimum: int = 1) -> int:
    """``value`` as an int when it is a whole number >= ``minimum``, else ParameterError naming it."""
    if (isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value)
            or value != int(value) or value < minimum):
        raise ParameterError(f"{name} must be a whole number >= {minimum}, got {value!r}")
    return int(value)


def _round_half_up(x: float) -> int:
    return int(math.floor(x + 0.5))


def plan_sweep(max_threads: int, *, plan: str = "guide", step: int | None = None,
               points: int | None = None, min_threads: int | None = None,
               extend_pct: float = 0.0) -> list[int]:
    """Thread counts of the fine sweep up to (and optionally beyond) the saturation point.

    Args:
        max_threads: Saturation thread count from the probe; always in the plan.
        plan: ``"guide"``: ``min_threads, min_threads + step, ...`` (the guide's
            ``forthreads=(step-max,step)``); ``"knee-dense"``: ``points`` counts placed at
            ``lo + (max_threads - lo) * (1 - (1 - i/(points-1))**2)``, rounded to multiples of
            ``step``, so denser towards max_threads (the knee); an extension beyond max_threads
            gets the mirrored spacing, dense next to max_threads; ``"rate-curve"``: max_threads
            alone (its uncontrolled maximum, then fixed rates below it).
        step: Thread increment (guide) or rounding granularity (knee-dense); default
            ``max(1, round(max_threads / 30))``, the guide's 30 points.
        points: knee-dense only: number of points up to max_threads before duplicates are
            dropped; default half the guide plan's count up to max_threads, at least 5.
        min_threads: Lowest thread count (default ``step``, capped at ``max_threads``).
        extend_pct: Also sweep this % beyond ``max_threads`` (top rounded up to a multiple of
            ``step``) to measure the hockey-stick tail past saturation.

    Returns:
        Unique thread counts, ascending. ``plan_sweep(300, step=10)`` is 10, 20, ..., 300.

    Raises:
        ParameterError: A bad argument; the message names it.
    """
    max_threads = _whole("max_threads", max_threads)
    if plan not in PLANS:
        raise ParameterError(f"plan must be one of {', '.join(PLANS)}, got {plan!r}")
    if plan == "rate-curve":  # one count, its uncontrolled maximum, then rates below it
        return [max_threads]
    step = max(1, round(max_threads / GUIDE_POINTS)) if step is None else _whole("step", step)
    if points is not None:
        if plan != "knee-dense":
            raise ParameterError(f"points applies to the knee-dense plan only, got points={points!r} "
                                 f"with plan={plan!r}")
        points = _whole("points", points, minimum=2)
    lo = min(step, max_threads) if min_threads is None else _whole("min_threads", min_threads)
    if lo > max_threads:
        raise ParameterError(f"min_threads ({lo}) must be <= max_threads ({max_threads})")
    if (isinstance(extend_pct, bool) or not isinstance(extend_pct, numbers.Real)
            or not math.isfinite(extend_pct) or extend_pct < 0):
        raise ParameterError(f"extend_pct must be a finite number >= 0 (%), got {extend_pct!r}")
    top = max_threads
    if extend_pct > 0:
        # round() first so 300 * 1.1 = 330.00000000000006 does not become 340.
        top = max(max_threads, math.ceil(tidy(max_threads * (1 + extend_pct / 100) / step)) * step)

    guide = sorted(set(range(lo, top + 1, step)) | {max_threads, top})
    if plan == "guide":
        return guide
    guide_to_max = sum(1 for t in guide if t <= max_threads)
    n = points if points is not None else max(MIN_KNEE_DENSE_POINTS, guide_to_max // 2)
    return _knee_dense(lo, max_threads, top, step, n)


def _knee_dense(lo: int, max_threads: int, top: int, step: int, n: int) -> list[int]:
    """The knee-dense plan's counts (see :func:`plan_sweep`): ``n`` counts from ``lo`` to
    ``max_threads``, denser towards it, and the mirrored tail up to ``top``, rounded to ``step``."""
    counts = {lo, max_threads, top}
    span = max_threads - lo
    for i in range(n):
        x = lo + span * (1.0 - (1.0 - i / (n - 1)) ** 2)
        counts.add(min(max_threads, max(lo, _round_half_up(x / step) * step)))
    if top > max_threads:
        # The tail past saturation mirrors the warp: dense next to max_threads, sparse outwards.
        tail = top - max_threads
        m = max(1, _round_half_up(n * tail / span)) if span > 0 else 1
        for j in range(1, m + 1):
            x = max_threads + tail * (j / m) ** 2
            counts.add(min(top, max(max_threads, _round_half_up(x / step) * step)))
    return sorted(counts)


def threads_list_text(threads_list: Sequence[int]) -> str:
    """A thread list in words, for a reader rather than vdbench: ``"10-300 step 10"`` for an
    increasing arithmetic sequence of 3 or more counts (the POC guide's wording), else the counts
    listed: ``"2, 28, 42, 48, 60"`` (:func:`format_forthreads` is vdbench's ``(2,28,42,48,60)``)."""
    counts, step = _counts_and_step(threads_list)
    return f"{counts[0]}-{counts[-1]} step {step}" if step else ", ".join(str(t) for t in counts)


def format_forthreads(threads_list: Sequence[int]) -> str:
    """Vdbench-style ``forthreads`` text of a thread list.

    Args:
        threads_list: Thread counts (whole numbers >= 1).

    Returns:
        ``"(10-300,10)"`` for an increasing arithmetic sequence of 3 or more counts, else the
        counts listed: ``"(10,20,40)"``.

    Raises:
        ParameterError: An empty list or a count that is not a whole number >= 1.
    """
    counts, step = _counts_and_step(threads_list)
    return f"({counts[0]}-{counts[-1]},{step})" if step else "(" + ",".join(str(t) for t in counts) + ")"


def _counts_and_step(threads_list: Sequence[int]) -> tuple[list[int], int | None]:
    """The validated counts of ``threads_list`` and, when they are an increasing arithmetic
    sequence of 3 or more, its step (else None): what :func:`format_forthreads` and
    :func:`threads_list_text` write, each in its own words."""
    if isinstance(threads_list, (str, bytes)) or not isinstance(threads_list, Sequence):
        raise ParameterError(f"threads_list must be a sequence of thread counts, got {threads_list!r}")
    counts = [_whole(f"threads_list[{i}]", t) for i, t in enumerate(threads_list)]
    if not counts:
        raise ParameterError("threads_list is empty")
    diffs = {b - a for a, b in zip(counts, counts[1:])}
    return counts, (diffs.pop() if len(counts) >= 3 and len(diffs) == 1 and min(diffs) > 0 else None)


def plan_note(threads_list: Sequence[int], max_threads: int, *, plan: str = "guide", step: int | None = None,
              points: int | None = None, extend_pct: float = 0.0) -> str:
    """Why a plan of :func:`plan_sweep` has the thread counts it has, in one sentence.

    Args:
        threads_list: the plan (:func:`plan_sweep` of the other arguments).
        max_threads, plan, step, points, extend_pct: the arguments it was made with.

    Returns:
        e.g. ``"knee-dense plan: 3 points up to 8 threads, denser towards it (sweep.points: 3), and 2
        beyond it up to 12 ... (sweep.extend_pct: 50 %)"``: the points up to ``max_threads`` and those
        beyond it counted apart, and when ``points`` asked more than the plan has, why.
    """
    step = max(1, round(max_threads / GUIDE_POINTS)) if step is None else step
    below = [t for t in threads_list if t <= max_threads]
    beyond = [t for t in threads_list if t > max_threads]
    if plan == "rate-curve":
        return (f"rate-curve plan: the uncontrolled maximum at {max_threads} threads, then each rate of "
                "sweep.curve_pct of it, until a step's mean latency passes sweep.stop_ms")
    if plan == "guide":
        text = (f"the guide's plan: every {step} thread{'s' if step > 1 else ''} from {min(threads_list)} to "
                f"{max_threads} ({len(below)} point{'s' if len(below) != 1 else ''})")
    else:
        text = (f"knee-dense plan: {len(below)} point{'s' if len(below) != 1 else ''} up to {max_threads} threads, "
                "denser towards it")
        asked = f"sweep.points: {points}" if points is not None else "sweep.points not set: half the guide's"
        if points is not None and len(below) < points:
            merged = points - len(below)
            asked += (f"; rounded to multiples of {step} thread{'s' if step > 1 else ''}, {merged} of them fell on a "
                      f"thread count already in the plan")
        text += f" ({asked})"
    if beyond:
        text += (f", and {len(beyond)} beyond it up to {max(beyond)} to draw the curve past saturation "
                 f"(sweep.extend_pct: {extend_pct:g} %)")
    return text

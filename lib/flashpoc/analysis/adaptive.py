"""Which thread counts a probe measures: the linear probe's list (vdbench's ``forthreads``), the
adaptive probe's first count and its state machine (:class:`AdaptiveProbe`)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from flashpoc.core.errors import AnalysisError
from flashpoc.core.numbers import tidy

from flashpoc.analysis.fit import MIN_DISTINCT_THREADS
from flashpoc.analysis.point import Point, _check_gain, _check_points, _finite, _whole
from flashpoc.analysis.saturation import find_saturation


MAX_REFINE_POINTS = 1
# The adaptive probe doubles until the highest-IOPS count has this many measured counts above it
# (1 and 2 measured alike on this kind of machine: benchmarks/probe_strategies.py).
PLATEAU_CONFIRMATIONS = 1


def linear_probe_threads(lo: int, hi: int, step: int) -> list[int]:
    """Thread counts of a linear probe, like vdbench ``forthreads=(lo-hi,step)``.

    Args:
        lo: First thread count (>= 1).
        hi: Highest thread count allowed (>= lo; included when on the step).
        step: Increment (>= 1).

    Returns:
        ``[lo, lo + step, ...]`` up to ``hi``: (100, 500, 100) -> [100, 200, 300, 400, 500].

    Raises:
        AnalysisError: A non-integer argument, ``lo`` <= 0, ``hi`` < ``lo`` or ``step`` <= 0.
    """
    lo, step = _whole("lo", lo), _whole("step", step)
    hi = _whole("hi", hi, minimum=lo)
    return list(range(lo, hi + 1, step))


def start_threads(min_threads: int, max_threads: int, *, cpus: int | None = None,
                  outstanding_per_thread: int = 1) -> int:
    """The first thread count of the adaptive probe: where saturation can be, not 1 thread.

    The doubling ladder ``min_threads x 2^k`` count nearest the geometric middle of
    ``min_threads..max_threads`` (the saturation point is as likely to be anywhere on a log scale,
    and the probe goes both ways from there), raised so that the outstanding I/Os (threads x
    ``outstanding_per_thread``) keep every CPU of the host busy (``cpus``: fewer I/Os in flight than
    the host has CPUs load neither the host nor the array), at most ``max_threads``.

    Examples: 1..256 threads -> 16; 1..64 -> 8; 20..500 -> 80; 1..256 on a 64-CPU host -> 64.
    """
    lo = _whole("min_threads", min_threads)
    hi = _whole("max_threads", max_threads, minimum=lo)
    per_thread = _whole("outstanding_per_thread", outstanding_per_thread)
    middle = math.sqrt(lo * hi)
    ladder = [lo]
    while ladder[-1] * 2 <= hi:
        ladder.append(ladder[-1] * 2)
    start = min(ladder, key=lambda t: (tidy(abs(math.log(t / middle))), t))  # a tie: the lower
    if cpus:
        busy = [t for t in ladder if t * per_thread >= _whole("cpus", cpus)]
        start = max(start, busy[0] if busy else ladder[-1])
    return start


class AdaptiveProbe:
    """Pure state machine of the adaptive saturation probe: which thread count to measure next.

    Bracket: from ``start`` (default :func:`start_threads`: the middle of the range on a log
    scale, not 1 thread) the threads double (capped at ``max_threads``) until
    :func:`find_saturation` is supported (a plateau with a measured count after its start) and the
    count with the most IOPS has ``PLATEAU_CONFIRMATIONS`` measured counts above it (one noisy high
    point does not end the doubling); when the plateau already starts at the lowest count measured,
    the threads halve (down to ``min_threads``) until a count below it is found. With
    ``expected_iops`` the doubling skips the counts Little's law rules out: reaching that many IOPS
    at the latency measured at the lowest count takes at least ``expected_iops x latency``
    outstanding I/Os. When the doubling reaches ``max_threads`` without an answer, the probe measures
    where the plateau may start (the plausible range), or between the two highest counts when the
    last gain was marginal, for more evidence.

    A plateau found is the answer: the range from the fewest count reaching 95 % of the most
    measured to where IOPS stop rising, which the follow-up sweep measures at its own step; it is not
    refined (on a disk whose IOPS creep up a few % a doubling, a point bisecting that range is as
    likely to leave the probe without an answer as to narrow it: benchmarks/probe_replay.py).

    Refine, only where the doubling found no answer (IOPS may still rise at ``max_threads``, or the
    last gain was marginal), or with ``repeats_only`` around the answer: the saturation lies between
    the highest count shown below the plateau and the top of the plausible range. While that interval is wider than
    ``resolution`` (the sweep's step: a finer answer changes no sweep) and fewer than ``budget``
    measurements were added to the ladder, the widest gap in it is bisected on multiples of
    ``step``; with no gap left, the count in it measured fewest times is measured again (a repeat),
    which shrinks the noise exactly where the plateau test decides. The state is the list of
    points, so a probe can resume from stored results.

    Args:
        min_threads: Lowest thread count (>= 1).
        max_threads: Highest thread count to measure (>= min_threads).
        gain_pct: An IOPS gain below this percentage is no gain.
        step: Refine granularity in threads (>= 1).
        refine: Refine where the doubling found no answer (and with ``repeats_only``, around it).
        start: First thread count (default :func:`start_threads`).
        budget: Most measurements added to the bracketing ladder (refine points and repeats).
        resolution: Interval width (threads) narrow enough to stop refining: a whole number, or a
            function of the candidate saturation count (e.g. the sweep's step there); default ``step``.
        expected_iops: IOPS the array is expected to reach (e.g. its data sheet's), if known.
        cpus: CPUs of one load host, for the default ``start``.
        outstanding_per_thread: I/Os each thread keeps in flight (fio iodepth x hosts), for
            ``start`` and ``expected_iops``; a Point's own ``outstanding`` is used when it has one.
        repeats_only: Refine by measuring again only the two counts bracketing the answer (the
            candidate and the measured count below it), fewest measured first, never by bisecting:
            the plateau test decides whether these two levels differ; also once a plateau is found.
    """

    def __init__(self, min_threads: int = 1, max_threads: int = 256, gain_pct: float = 2.0,
                 step: int = 1, refine: bool = True, *, start: int | None = None,
                 budget: int = MAX_REFINE_POINTS, resolution: int | Callable[[int], int] | None = None,
                 expected_iops: float | None = None, cpus: int | None = None,
                 outstanding_per_thread: int = 1, repeats_only: bool = False) -> None:
        self.min_threads = _whole("min_threads", min_threads)
        self.max_threads = _whole("max_threads", max_threads, minimum=self.min_threads)
        _check_gain(gain_pct)
        self.gain_pct = float(gain_pct)
        self.step = _whole("step", step)
        self.refine = bool(refine)
        self.per_thread = _whole("outstanding_per_thread", outstanding_per_thread)
        self.start = (start_threads(self.min_threads, self.max_threads, cpus=cpus,
                                    outstanding_per_thread=self.per_thread) if start is None
                      else min(self.max_threads, _whole("start", start, minimum=self.min_threads)))
        self.budget = _whole("budget", budget, minimum=0)
        if resolution is not None and not callable(resolution):
            resolution = _whole("resolution", resolution)
        self.resolution = resolution
        if expected_iops is not None and _finite("expected_iops", expected_iops) <= 0:
            raise AnalysisError(f"expected_iops must be > 0, got {expected_iops!r}")
        self.expected_iops = None if expected_iops is None else float(expected_iops)
        self.repeats_only = bool(repeats_only)

    def ladder(self) -> list[int]:
        """The bracketing thread counts, ascending: ``start`` halved down to ``min_threads`` and
        doubled up to ``max_threads``."""
        counts = [self.start]
        while counts[0] > self.min_threads:
            counts.insert(0, max(self.min_threads, counts[0] // 2))
        while counts[-1] < self.max_threads:
            counts.append(min(self.max_threads, 2 * counts[-1]))
        return counts

    def max_points(self, remeasure: bool = False) -> int:
        """An upper bound of the points the probe measures (what a progress bar can say before the
        probe knows where IOPS stop rising): every ladder count and the refine budget; twice that
        when each point may be measured again (``remeasure``: a point whose steady state was not
        attained)."""
        return (len(self.ladder()) + (self.budget if self.refine else 0)) * (2 if remeasure else 1)

    def next_threads(self, points: Sequence[Point], pending: Sequence[int] = ()) -> int | None:
        """Next thread count to measure given every point measured so far.

        Args:
            points: All points measured so far (any order; may be empty).
            pending: Counts chosen to be measured with it, not measured yet (see
                :meth:`next_round`): they count as measured when gaps are chosen, never as data.

        Returns:
            The next thread count (one already measured means: measure it again), or None when the
            probe is done (the answer is bracketed and refined, or the ladder and the budget are spent
            without one: see :func:`find_saturation`'s reason).

        Raises:
            AnalysisError: A non-Point in ``points``.
        """
        pts = _check_points(points) if points else []
        known = {p.threads for p in pts}
        measured = known | set(pending)
        if not measured:
            return self.start
        ladder = self.ladder()
        if len(known) < MIN_DISTINCT_THREADS:  # the counts a fit needs first, in one round
            if len(measured) >= MIN_DISTINCT_THREADS:
                return None
            up = self._up(pts, measured, ladder)
            below = [t for t in ladder if t < min(measured)]
            return up if up is not None else (below[-1] if below else None)
        # a step of the doubling (or halving) waits for the data of the step before it
        up = self._up(pts, known, ladder)
        below = [t for t in ladder if t < min(known)]
        down = below[-1] if below else None
        if (up is not None and up in pending) or (down is not None and down in pending):
            return None
        sat = find_saturation(pts, self.gain_pct)
        if not sat.supported:
            if up is not None:
                return up  # still rising, maybe rising or too noisy: more of the curve first
            if sat.range_threads is not None:
                return self._refine(pts, pending, measured, sat.range_threads)
            # still rising at max_threads: look between the two highest counts only when the last
            # gain was marginal (under 3 x gain_pct); a steep rise means max_threads is too low
            second, last = sorted(known)[-2:]
            iops = {t: np.mean([p.iops for p in pts if p.threads == t]) for t in (second, last)}
            if iops[second] <= 0 or iops[last] / iops[second] - 1.0 >= 3 * self.gain_pct / 100.0:
                return None
            return self._refine(pts, pending, measured, (last, last))
        lo, hi = sat.range_threads or (sat.threads, sat.threads)
        if min(lo, sat.threads) == min(known) and down is not None:
            return down  # the plateau may start lower still
        # one noisy high point must not end the doubling: the count with the most IOPS needs
        # PLATEAU_CONFIRMATIONS higher counts measured
        best = max(sorted(known), key=lambda t: np.mean([p.iops for p in pts if p.threads == t]))  # ties: the lowest
        if up is not None and len([t for t in known if t > best]) < PLATEAU_CONFIRMATIONS:
            return up
        if not self.repeats_only:  # the answer: the range to sweep, which the sweep measures at its own step
            return None
        return self._refine(pts, pending, measured, (lo, hi), sat.threads)

    def next_round(self, points: Sequence[Point]) -> list[int]:
        """The thread counts to measure next, together in one run of the engine (e.g. one
        vdbench ``forthreads`` list, which keeps the JVMs between them): :meth:`next_threads`'s
        choice, then each further count it chooses while the earlier ones are pending, until it
        has no more or chooses one again (the refine budget bounds a refine round; the first round
        holds the three counts a fit needs).

        Returns:
            The counts in the order chosen (each once); empty when the probe is done.
        """
        chosen: list[int] = []
        while (threads := self.next_threads(points, pending=chosen)) is not None and threads not in chosen:
            chosen.append(threads)
        return chosen

    def _up(self, pts: list[Point], measured: set[int], ladder: list[int]) -> int | None:
        """The next count of the doubling above every measured one; with ``expected_iops``, the
        highest ladder count Little's law shows to be still below the plateau, when that is higher:
        ``expected_iops`` at the lowest count's latency take ``expected_iops x latency``
        outstanding I/Os."""
        top = max(measured) if measured else 0
        higher = [t for t in ladder if t > top]
        if not higher:
            return None
        if self.expected_iops is not None and pts:
            first = min(pts, key=lambda p: p.threads)
            per_thread = (first.outstanding or first.threads * self.per_thread) / first.threads
            needed = self.expected_iops * first.latency_ms / 1000.0 / per_thread
            below = [t for t in higher if t <= needed]
            if below:
                return below[-1]
        return higher[0]

    def _extra(self, pts: list[Point], pending: Sequence[int]) -> int:
        """Measurements beyond the first of each ladder count: refine points and repeats."""
        ladder = set(self.ladder())
        counts: dict[int, int] = {}
        for t in [p.threads for p in pts] + list(pending):
            counts[t] = counts.get(t, 0) + 1
        return sum(n - (1 if t in ladder else 0) for t, n in counts.items())

    def _resolution(self, threads: int) -> int:
        if self.resolution is None:
            return self.step
        return self.resolution(threads) if callable(self.resolution) else self.resolution

    def _refine(self, pts: list[Point], pending: Sequence[int], measured: set[int],
                plausible: tuple[int, int], candidate: int | None = None) -> int | None:
        """Where the answer is uncertain: between the highest count below the plausible range and
        the range's top. The widest gap there bisected, else the count there measured fewest times
        again; None when the interval is narrower than the resolution or the budget is spent."""
        if not self.refine or self._extra(pts, pending) >= self.budget:
            return None
        lo, hi = plausible
        below = [p.threads for p in pts if p.threads < lo]  # measured, not pending: shown below the plateau
        edge = max(below) if below else lo
        if hi - edge <= self._resolution(candidate or hi):
            return None
        edges = sorted({t for t in measured if edge <= t <= hi})
        if self.repeats_only:  # the answer and the count below it: the levels the plateau test weighs
            target = candidate if candidate is not None else lo
            edges = sorted({target, max([p.threads for p in pts if p.threads < target], default=target)})
        gaps = [] if self.repeats_only else sorted(zip(edges, edges[1:]), key=lambda g: (g[0] - g[1], g[0]))
        for a, b in gaps:
            choice = self._bisect(measured, a, b)
            if choice is not None:
                return choice
        counts = {t: sum(p.threads == t for p in pts) + list(pending).count(t) for t in edges}
        target = candidate if candidate is not None else lo
        return min(edges, key=lambda t: (counts[t], abs(t - target), t))

    def _bisect(self, measured: set[int], lo: int, hi: int) -> int | None:
        """The unmeasured multiple of ``step`` nearest the middle of (lo, hi), or None."""
        first = (lo // self.step + 1) * self.step
        candidates = [t for t in range(first, hi, self.step) if t not in measured]
        if not candidates:
            return None
        mid = (lo + hi) / 2
        return min(candidates, key=lambda t: (abs(t - mid), t))

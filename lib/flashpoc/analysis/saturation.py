"""Where IOPS stop rising: :func:`find_saturation`, the curve's share of its plateau at a count
(:func:`plateau_share`) and the threads at which it reaches it (:func:`reach_threads`).

Saturation (:func:`find_saturation`) is found from all the points at once, not by comparing
neighbours, because on a lab machine IOPS move by 10-15 % from one point to the next:

0. the highest counts whose IOPS fall more than ``FALL_SHARE`` and the points' noise below the
   peak (the count with the most IOPS) are an overload past the peak (of the load hosts, say), not
   the array's plateau: they are left out, and the curve is fitted up to the peak, which the fall
   confirms as a plateau's end;
1. repeated thread counts are pooled; the point-to-point noise is the relative scatter of the
   points around the least-squares non-decreasing concave curve (the shape of a saturating IOPS
   curve), corrected for the parameters that fit used; where the points reject that shape (lack-of-fit
   F tests), around an S (a curve that bends upwards first, as TPROC-C's NOPM can over the first
   virtual users) or the isotonic fit (:func:`~flashpoc.analysis.fit._curve_fit`): a shape's misfit
   is no noise;
2. a monotone (isotonic, pool-adjacent-violators) curve is fitted and its plateau grows down from
   the highest thread count: a lower level joins it unless the data show, one-sided at 95 %, that
   it is more than ``gain_pct`` % below the fitted maximum;
3. a seeded residual bootstrap around that curve repeats step 2. The saturation point is
   the median of the resamples' plateau starts (a measured count), the plateau level the median
   IOPS of the points from there up; the plausible range is their central 90 %, the confidence
   the share that agree with the answer. A range reaching the highest count means "maybe still
   rising", a range over half the probed span means "too noisy". The answer is never below a count
   that measured more than the answer's count by over ``gain_pct`` % and the noise (step 2's margin,
   over the counts compared): the plateau then starts higher (:func:`_unbeaten`). Step 2's first
   count alone jumps between neighbouring counts on noise (on a curve that creeps up slowly, from one
   repeat of the probe to the next); the median of the resamples, a bagged estimate, is steadier
   (tests/analysis/test_probe_repeats.py, benchmarks/probe_replay.py);
4. where IOPS reach the plateau is a range, not one count: on a curve that creeps up a few % over a
   doubling of threads, where the last 2 % are gained moves by a doubling from one repeat to the next.
   With a plateau, the answer also names the fewest measured count whose IOPS (pooled) reach
   ``REACH_SHARE`` of the most any count measured (``reach_threads``), and its IOPS as a share of
   the plateau level with an interval (``reach_share``, ``reach_share_range``): the range to sweep
   runs from it to the plateau's start.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from statistics import NormalDist

import numpy as np

from flashpoc.core import tables
from flashpoc.core.errors import AnalysisError
from flashpoc.core.tables import threads_text

from flashpoc.analysis.fit import (_Z95, MIN_DISTINCT_THREADS, _bootstrap, _central_range, _concave_fit, _curve_fit, _fall_past_peak,
                  _plateau_start, _pool, _residuals)
from flashpoc.analysis.point import Point, _check_gain, _check_points, _finite, _whole


# Above this share of the probed thread range, the plausible range is no answer.
_MAX_RANGE_SHARE = 0.5
# The answer's count reaches this share of the most IOPS any count measured (Saturation.reach_threads).
REACH_SHARE = 0.95


@dataclass(frozen=True)
class Saturation:
    """Where IOPS stop rising, and how sure the data make us.

    Attributes:
        threads: Saturation thread count (a measured one), None when the data cannot tell.
        max_iops: Plateau IOPS level (median IOPS of the plateau points), None when unsupported.
        range_threads: Plausible (low, high) saturation thread counts: the central 90 % of the
            bootstrap answers; None when there is no answer to bootstrap.
        confidence: Share (0..1) of bootstrap resamples that give exactly ``threads``.
        supported: True when the data support an answer.
        reason: One sentence for a storage engineer: the answer, or why there is none.
        rule_threads: The POC guide's neighbour rule: the first measured thread count after which no
            later count gains more than ``gain_pct`` % IOPS (repeats averaged); None when only the
            last count qualifies (nothing confirms it) or fewer than 2 counts were measured.
        method: How the answer was computed.
        kind: What the data show: ``plateau`` (an answer), ``still_rising`` or ``maybe_rising``
            (IOPS may still rise beyond the highest count: measure higher), ``too_noisy`` (the
            plateau could start almost anywhere: longer points or repeats), ``too_few`` (fewer than
            3 thread counts) or ``no_iops``.
        fall_threads: The highest-IOPS count past which IOPS fall clearly (over ``FALL_SHARE`` and
            the points' noise): the counts above it, an overload past the peak, are left out of the
            fit; None when IOPS do not fall.
        fall_pct: How far (%) below the peak IOPS the first count past ``fall_threads`` measured.
        noise: The points' relative noise (sigma) the answer was judged with: their scatter around the
            fitted curve, to 6 decimals (0 when every point lies on it); None when no curve was fitted.
        reach_threads: With a plateau, the fewest measured count whose IOPS (its points' mean) reach
            ``REACH_SHARE`` of the most IOPS a count measured (up to a fall past the peak); None without one.
        reach_share: That count's IOPS over the plateau level (``max_iops``), to 4 decimals.
        reach_share_range: Its 90 % interval (low, high): the normal approximation of the ratio of the
            two means with the points' noise (``noise``), to 4 decimals; the share itself twice when
            the noise is not estimable.
    """

    threads: int | None
    max_iops: float | None
    range_threads: tuple[int, int] | None
    confidence: float
    supported: bool
    reason: str
    rule_threads: int | None
    method: str
    kind: str = "plateau"
    fall_threads: int | None = None
    fall_pct: float | None = None
    noise: float | None = None
    reach_threads: int | None = None
    reach_share: float | None = None
    reach_share_range: tuple[float, float] | None = None


def fall_text(threads: int, pct: float, rate: str = "IOPS", unit: str = "threads") -> str:
    """The words of a fall past the peak (:attr:`Saturation.fall_threads`, ``fall_pct``)."""
    return f"{rate} fall past {threads} {unit} ({pct:.1f} % below the peak): overload past the peak, left out of the fit"


def _neighbour_rule(threads: list[int], means: list[float], gain: float) -> int | None:
    """The POC guide's rule on pooled means: first count no later count beats by more than gain."""
    for i in range(len(threads) - 1):
        if max(means[i + 1:]) <= means[i] * (1.0 + gain):
            return threads[i]
    return None


def find_saturation(points: Sequence[Point], gain_pct: float = 2.0, *, n_boot: int = 200,
                    seed: int = 0) -> Saturation:
    """Find the thread count beyond which IOPS stop rising, robust to point-to-point noise.

    A monotone (isotonic) curve is fitted to all points; the plateau is the highest stretch of it
    that the noise cannot tell apart from flat within ``gain_pct`` %, and starts at a measured
    thread count. The noise is the scatter of the points around the best non-decreasing concave
    curve (the shape of a saturating IOPS curve); a residual bootstrap around that curve finds the
    plateau's start again in each resample: the saturation point is their median (steadier from
    one probe to the next than the fit's own start), the plausible range their central 90 %.
    The highest counts whose IOPS fall clearly below the peak (``fall_threads``) are left out: an
    overload past the peak, not the plateau. With a plateau, ``reach_threads`` is the fewest measured
    count whose IOPS reach ``REACH_SHARE`` of the most a count measured, with its share of the plateau.

    Args:
        points: Measured points; repeated thread counts are pooled (their IOPS averaged).
        gain_pct: An IOPS gain below this percentage is no gain (default 2 %).
        n_boot: Bootstrap resamples for the range and confidence (>= 1).
        seed: Seed of the numpy Generator drawing the resamples (the answer is deterministic).

    Returns:
        A :class:`Saturation`. ``supported`` is False, ``threads`` None and ``reason`` says why when
        fewer than 3 distinct thread counts were measured, when IOPS still rise at the highest
        count (extend the probe), or when the plausible range spans most of the probed range.

    Raises:
        AnalysisError: No points, a non-Point, bad ``gain_pct`` or ``n_boot``.
    """
    pts = _check_points(points)
    gain = _check_gain(gain_pct)
    n_boot = _whole("n_boot", n_boot)
    method = (f"isotonic fit; plateau = levels not shown (one-sided 95 %) to be over {gain_pct:g} % "
              f"below the fitted maximum; noise around a concave fit (an S or isotonic one where the points "
              f"reject it); no answer below a count measuring more beyond the noise; residual bootstrap "
              f"n={n_boot} seed={seed}")
    pts = sorted(pts, key=lambda p: (p.threads, p.iops))  # order-free to the last bit, not only to a rounding
    raw_t = [p.threads for p in pts]
    raw_y = [p.iops for p in pts]
    threads, means, _ = _pool(raw_t, raw_y)
    rule = _neighbour_rule(threads, means, gain)
    raw_t, raw_y, fall, fall_pct = _up_to_peak(raw_t, raw_y)
    sat = _fit_plateau(raw_t, raw_y, gain, n_boot, seed, fell=fall is not None)
    fell = " " + fall_text(fall, fall_pct) + "." if fall else ""
    return replace(sat, reason=sat.reason + fell, rule_threads=rule, method=method, fall_threads=fall,
                   fall_pct=fall_pct)


def _up_to_peak(raw_t: list[int], raw_y: list[float]) -> tuple[list[int], list[float], int | None, float | None]:
    """The points up to the peak when the highest counts' IOPS fall clearly below it (an overload past
    the peak, :func:`~flashpoc.analysis.fit._fall_past_peak`), the peak's count and how far (%) below
    the peak the first count past it measured; all the points, None and None when IOPS do not fall."""
    threads, means, weights = _pool(raw_t, raw_y)
    cut = _fall_past_peak(raw_t, raw_y, threads, means, weights)
    if cut == len(threads):
        return raw_t, raw_y, None, None
    fall = threads[cut - 1]
    fall_pct = 100.0 * (1.0 - means[cut] / max(means))
    return [t for t in raw_t if t <= fall], [y for t, y in zip(raw_t, raw_y) if t <= fall], fall, fall_pct


def _fit_plateau(raw_t: list[int], raw_y: list[float], gain: float, n_boot: int, seed: int, *,
                 fell: bool) -> Saturation:
    """:func:`find_saturation`'s answer from the points up to the peak (``fell``: IOPS fell past the
    highest of them, which confirms it as the peak), without the rule, method and fall it adds."""
    threads, means, weights = _pool(raw_t, raw_y)
    if len(threads) < MIN_DISTINCT_THREADS:
        listed = ", ".join(str(t) for t in threads)
        return _unsupported("too_few", f"Only {len(threads)} distinct thread count(s) measured ({listed}); "
                            f"at least {MIN_DISTINCT_THREADS} are needed to locate an IOPS plateau.")
    if max(raw_y) <= 0:
        return _unsupported("no_iops", "No IOPS were measured at any thread count (all points are 0 IOPS).")
    fitted, dof = _curve_fit(raw_t, raw_y, threads, means, weights)
    fitted_raw, rel, sigma = _residuals(raw_t, raw_y, threads, fitted, dof)
    start = threads.index(_unbeaten(threads, means, weights, threads[_plateau_start(threads, means, weights, gain,
                                                                                      sigma)], gain, sigma))
    top = threads[-1]
    if start == len(threads) - 1 and not fell:  # a fall past the top count confirms it as the peak
        return replace(_unsupported("still_rising", _still_rising_text(threads, means)), noise=sigma)
    answers = _bootstrap(raw_t, fitted_raw, rel, dof, gain, sigma, n_boot, seed)
    # the answer is the median of the resamples' (bagging): the fitted breakpoint alone jumps
    # between neighbouring counts on noise
    estimable = len(raw_y) > dof
    sat = int(np.quantile(answers, 0.5, method="inverted_cdf")) if estimable else threads[start]
    if sat == top and not fell:
        sat = threads[start]
    sat = _unbeaten(threads, means, weights, sat, gain, sigma)
    lo, hi = _central_range(answers, sat)
    confidence = float(np.mean(answers == sat))
    if hi == top and not fell:
        share = float(np.mean(answers == top))
        return replace(_unsupported("maybe_rising", _maybe_rising_text(sat, top, share, sigma), (lo, hi), confidence),
                       noise=sigma)
    if hi - lo > _MAX_RANGE_SHARE * (top - threads[0]):
        return replace(_unsupported("too_noisy", _too_noisy_text(threads, lo, hi, sigma), (lo, hi), confidence),
                       noise=sigma)
    level = float(np.median(np.asarray(raw_y)[np.asarray(raw_t) >= sat]))
    reason = _plateau_text(level, sat, (lo, hi), confidence, n_boot, sigma if estimable else None,
                           lowest=sat == threads[0])
    plateau_points = int(np.sum(np.asarray(raw_t) >= sat))
    return Saturation(sat, level, (lo, hi), confidence, True, reason, None, "", noise=sigma,
                      **_reach(threads, means, weights, level, plateau_points, sigma if estimable else 0.0))


def _reach(threads: list[int], means: list[float], weights: list[float], level: float, plateau_points: int,
           sigma: float) -> dict:
    """:attr:`Saturation.reach_threads`, ``reach_share`` and ``reach_share_range`` of the pooled
    ``means`` up to the peak, the plateau ``level`` (the median of its ``plateau_points`` points) and
    the points' relative noise ``sigma``: the fewest count measuring at least ``REACH_SHARE`` of the
    highest mean, its mean over the level, and that share times 1 -+ 1.645 x sigma x sqrt(1/n + 1/m)
    over its n points and the plateau's m (90 %, the two means taken as independent)."""
    i = next(j for j, m in enumerate(means) if m >= REACH_SHARE * max(means))
    if level <= 0:
        return {"reach_threads": threads[i]}
    share = means[i] / level
    half = _Z95 * sigma * math.sqrt(1.0 / weights[i] + 1.0 / plateau_points)
    return {"reach_threads": threads[i], "reach_share": share,
            "reach_share_range": (share * (1.0 - half), share * (1.0 + half))}


def _unbeaten(threads: list[int], means: list[float], weights: list[float], answer: int, gain: float,
              sigma: float) -> int:
    """The lowest measured count from ``answer`` up that no count above it beats: none measured more
    (pooled) than it by over ``gain`` and the noise ``sigma``, one-sided at 95 % over the counts
    above it (Bonferroni); the highest count when every lower one is beaten. What the answer's count
    measured is what a sweep up to it reaches: a count above it that measured clearly more is where
    the plateau starts, at the earliest."""
    for i in range(threads.index(answer), len(threads)):
        z = NormalDist().inv_cdf(1.0 - 0.05 / max(1, len(threads) - i - 1))  # over the counts above it
        if all(m <= means[i] * (1.0 + gain + z * sigma * math.sqrt(1.0 / w + 1.0 / weights[i]))
               for m, w in zip(means[i + 1:], weights[i + 1:])):
            return threads[i]
    return threads[-1]


def _unsupported(kind: str, reason: str, plausible: tuple[int, int] | None = None,
                 confidence: float = 0.0) -> Saturation:
    """No answer, of ``kind``, and why (:attr:`Saturation.kind`, ``reason``)."""
    return Saturation(None, None, plausible, confidence, False, reason, None, "", kind)


def _still_rising_text(threads: list[int], means: list[float]) -> str:
    """The reason of a ``still_rising`` answer: the last gain, and what to do."""
    top, below = threads[-1], means[-2]
    gained = f" (+{means[-1] / below - 1:.1%} over {threads[-2]} threads)" if below > 0 else ""
    return (f"IOPS still rising at {top} threads, the highest measured{gained}: "
            f"no later point confirms a plateau; extend the probe beyond {top} threads.")


def _maybe_rising_text(sat: int, top: int, share: float, sigma: float) -> str:
    """The reason of a ``maybe_rising`` answer: ``share`` of the resamples start the plateau at ``top``."""
    return (f"IOPS may still be rising at {top} threads, the highest measured: the plateau would "
            f"start at {sat} threads, but in {share:.0%} of resamples it starts only at {top} "
            f"(noise ±{sigma:.1%}); extend the probe beyond {top} threads.")


def _too_noisy_text(threads: list[int], lo: int, hi: int, sigma: float) -> str:
    """The reason of a ``too_noisy`` answer: the plausible range ``lo``-``hi`` against the probed one."""
    probed = threads[-1] - threads[0]
    return (f"Too noisy to locate the plateau: it could start anywhere from {lo} to {hi} threads "
            f"({(hi - lo) / probed:.0%} of the probed {threads[0]}-{threads[-1]} threads; point-to-point "
            f"noise ±{sigma:.1%}); measure each point again or run it longer.")


def _plateau_text(level: float, sat: int, plausible: tuple[int, int], confidence: float, n_boot: int,
                  sigma: float | None, *, lowest: bool) -> str:
    """The answer in words; ``sigma`` None when the noise is not estimable (every point on the curve),
    ``lowest`` when the answer is the lowest count measured."""
    lo, hi = plausible
    noise = f"noise ±{sigma:.1%}" if sigma is not None else "noise not estimable: every point lies on the fitted curve"
    earlier = f"; {sat} threads is the lowest count measured, so saturation may come earlier" if lowest else ""
    others = f"plausible {lo}-{hi} threads" if lo != hi else "no other count plausible"
    return (f"IOPS plateau at {level:,.0f} IOPS from {sat} threads ({others}, "
            f"{confidence:.0%} of {n_boot} resamples agree; {noise}{earlier}).")


def plateau_share(points: Sequence[Point], threads: int) -> float:
    """The share (0..1) of the plateau's IOPS the curve reaches at ``threads``: the least-squares
    non-decreasing concave curve through ``points`` (:func:`find_saturation`'s model of the curve,
    repeats pooled) read at ``threads`` (linear between measured counts, the lowest count's value
    below it, the highest's above it), over the curve's highest value.

    What an answer means for IOPS: on a curve that creeps up slowly, answers far apart in threads
    reach nearly the same share (benchmarks/probe_replay.py compares probe methods this way).

    Raises:
        AnalysisError: No points, a non-Point, fewer than 3 distinct thread counts, no IOPS, or
            ``threads`` not a whole number >= 1.
    """
    pts = _check_points(points)
    at = _whole("threads", threads)
    counts, means, weights = _pool([p.threads for p in pts], [p.iops for p in pts])
    if len(counts) < MIN_DISTINCT_THREADS or max(means) <= 0:
        raise AnalysisError(f"plateau_share needs IOPS at {MIN_DISTINCT_THREADS} or more distinct thread counts, "
                            f"got {len(counts)}")
    fitted, _ = _concave_fit(counts, means, weights)
    return float(np.interp(at, counts, fitted) / fitted[-1])


def reach_threads(points: Sequence[Point], share: float | None = None, *, gain_pct: float = 2.0) -> float:
    """The fewest threads at which the curve reaches the plateau: the least-squares non-decreasing
    concave curve through ``points`` (repeats pooled, a fall past the peak left out:
    :func:`find_saturation`'s model of the curve),
    linear between measured counts, first reaching ``share`` (0..1) of its highest value; with no
    ``share``, the plateau within its measured noise: ``1 - gain_pct % - 1.645 x`` the points'
    relative scatter around the curve (one-sided 95 %).

    A threshold crossing, not a measured count: it moves by a fraction of the gap between counts when
    one point moves, where the plateau's first count jumps to the next count; and the lower the
    threshold, the steeper the curve where it is crossed and the less noise moves it
    (benchmarks/probe_strategies.py compares both with the probe's answer).

    Raises:
        AnalysisError: No points, a non-Point, fewer than 3 distinct thread counts, no IOPS, a
            ``share`` outside (0, 1] or bad ``gain_pct``.
    """
    pts = _check_points(points)
    gain = _check_gain(gain_pct)
    counts, means, weights = _pool([p.threads for p in pts], [p.iops for p in pts])
    cut = _fall_past_peak([p.threads for p in pts], [p.iops for p in pts], counts, means, weights)
    if cut < len(counts):  # the curve up to the peak, as find_saturation fits it
        return reach_threads([p for p in pts if p.threads < counts[cut]], share, gain_pct=gain_pct)
    if len(counts) < MIN_DISTINCT_THREADS or max(means) <= 0:
        raise AnalysisError(f"reach_threads needs IOPS at {MIN_DISTINCT_THREADS} or more distinct thread counts, "
                            f"got {len(counts)}")
    fitted, dof = _concave_fit(counts, means, weights)
    if share is None:
        sigma = _residuals([p.threads for p in pts], [p.iops for p in pts], counts, fitted, dof)[2]
        share = max(0.0, 1.0 - gain - _Z95 * sigma)
    elif not 0 < _finite("share", share) <= 1:
        raise AnalysisError(f"share must be > 0 and <= 1, got {share!r}")
    level = float(fitted.max()) * share
    j = int(np.argmax(fitted >= level - 1e-9 * float(fitted.max())))
    if j == 0:
        return float(counts[0])
    a, b, fa, fb = counts[j - 1], counts[j], float(fitted[j - 1]), float(fitted[j])
    return a + (b - a) * (level - fa) / (fb - fa)


def probe_sentence(probe) -> str:
    """The probe's answer (``probe``: its probe.json) in a sentence a manager can repeat: where the rate
    stops rising and at how much, or that it did not stop within the counts probed (the fit's account
    and what to do are in the report's Results)."""
    sat = probe.get("saturation") or {}
    rate, unit = probe.get("rate_word", "IOPS"), probe.get("threads_word", "threads")
    if sat.get("threads"):
        return (f"{rate} stop rising at {threads_text(int(sat['threads']), unit)}, at about "
                f"{tables.count(sat.get('max_iops'))} {rate}.")
    counts = [int(p["threads"]) for p in probe.get("points") or [] if p.get("threads") is not None]
    upto = f" up to {threads_text(max(counts), unit)}" if counts else ""
    return f"no saturation found{upto} (Results: saturation probe says why)."

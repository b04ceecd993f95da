"""The probe's answer in words (pure: the probe's result in, one paragraph out): what
:func:`flashpoc.campaign.probe.with_host_limit` stores as ``probe.json``'s ``answer``, and what
notebook 02, the report and the batch summary state."""

from __future__ import annotations

from typing import Any

from flashpoc import analysis
from flashpoc.campaign.sweep import _levels
from flashpoc.core.tables import threads_text

LOW_CONFIDENCE = 0.6
"""Below this share of agreeing resamples the probe's answer is called weak, and says what would firm it up."""


def probe_answer_text(probe: dict[str, Any]) -> str:
    """The probe's answer in words, one paragraph (plain text, also valid Markdown): where IOPS
    stop rising with its plausible range and confidence and where they reach 95 % of the most measured,
    with that count's share of the plateau and its interval, or that no saturation was found and
    why; when the most IOPS were measured elsewhere than at the answer, that they are within the
    noise of the plateau; when IOPS fall past the peak, that they were left out of the fit and what
    the hosts-or-array verdict says; when the probe reached its own limit (``probe.max_threads``) or the
    confidence is low, what to do; and how far the sweep goes. Notebook 02, the report and the
    batch summary all state the answer with this one function (``probe.json``'s ``answer``)."""
    sat = probe["saturation"]
    rate, unit = probe.get("rate_word", "IOPS"), probe.get("threads_word", "threads")
    levels = _levels(probe)
    top = max(levels) if levels else None
    limit = probe.get("max_threads")
    at_limit = top is not None and limit is not None and top >= limit
    if sat.get("threads"):
        words = _answer_words(probe, levels, rate, unit, at_limit)
    else:
        words = _no_answer_words(probe, rate, unit, top if at_limit else None)
    if sat.get("fall_threads"):
        words.append(_fall_words(probe, rate, unit))
    if probe.get("followup_sweep"):
        words.append(_sweep_words(probe["followup_sweep"], unit))
    return " ".join(words)


def _answer_words(probe: dict[str, Any], levels: dict[int, float], rate: str, unit: str, at_limit: bool) -> list[str]:
    """The sentences of an answer (:func:`probe_answer_text`): where the rate stops rising, more
    measured elsewhere within the noise (and, at the probe's limit, that it may still rise), and
    what firms up a low confidence."""
    sat = probe["saturation"]
    top = max(levels) if levels else None
    best = max(levels, key=levels.get) if levels else None
    n, conf = int(sat["threads"]), float(sat.get("confidence") or 0.0)
    lo, hi = sat.get("range_threads") or (n, n)
    plausible = f"plausible {lo}-{hi} {unit}" if lo != hi else "no other count plausible"
    words = [f"{rate} {_reach_words(sat, n, rate, unit)}: a plateau of {sat['max_iops']:,.0f} {rate} (the median of its "
             f"points; {plausible}, confidence {conf:.0%})."]
    over = levels[best] / sat["max_iops"] - 1.0 if best is not None and sat.get("max_iops") else 0.0
    if best is not None and best != n and over * 100 >= float(probe.get("gain_pct") or 2.0):
        words.append(f"More {rate} were measured at {threads_text(best, unit)} ({levels[best]:,.0f}, {over:+.1%} over the "
                     f"plateau level): the fit counts that within the points' noise, not as a rise.")
        if at_limit and best == top:
            words.append(f"{threads_text(top, unit)} is the probe's limit (probe.max_threads): {rate} may still rise beyond "
                         f"it; raise probe.max_threads to see the plateau end.")
    if conf < LOW_CONFIDENCE:
        words.append(f"The confidence is low ({conf:.0%}): the plateau could start anywhere from {lo} to "
                     f"{hi} {unit}; longer points (probe.runtime_s) or repeats of the answer and the count below it "
                     f"(probe.refine_repeats, probe.refine_points) firm it up.")
    return words


def _reach_words(sat: dict[str, Any], n: int, rate: str, unit: str) -> str:
    """Where the rate stops rising (``n``) and where it first reaches ``analysis.REACH_SHARE`` of the most
    measured, with that count's share of the plateau and its 90 % interval (:attr:`analysis.Saturation.reach_threads`);
    where it stops rising only, for a probe.json written before the share was kept."""
    reach = sat.get("reach_threads")
    if not reach or sat.get("reach_share") is None:
        return f"stop rising at {threads_text(n, unit)}"
    low, high = sat["reach_share_range"]
    share = f"{sat['reach_share']:.1%} of the plateau"
    if low < high:
        share += f" (90% interval {100 * low:.1f}-{high:.1%})"
    most = f"reach {analysis.REACH_SHARE:.0%} of the most measured"
    if reach == n:
        return f"stop rising and {most} at {threads_text(n, unit)}, {share}"
    return f"stop rising at {threads_text(n, unit)} and {most} at {threads_text(reach, unit)}, {share}"


def _no_answer_words(probe: dict[str, Any], rate: str, unit: str, stopped_at: int | None) -> list[str]:
    """The sentences of no answer (:func:`probe_answer_text`): the fit's reason in the engine's words
    and what would find it; ``stopped_at`` is the highest count when the probe stopped at its limit
    (probe.max_threads), else None."""
    sat = probe["saturation"]
    hosts = (probe.get("host_limit") or {}).get("verdict") == "hosts"
    reason = sat.get("reason", "").replace("IOPS", rate)  # the fit's words name its rate IOPS
    if sat.get("fall_threads"):  # said below, with the verdict
        reason = reason.replace(" " + analysis.fall_text(sat["fall_threads"], sat["fall_pct"], rate) + ".", "")
    if unit != "threads":  # and its counts threads
        reason = reason.replace(" distinct thread count(s)", f" distinct counts of {unit}").replace(" threads", f" {unit}")
    words = [f"No saturation found: {reason}".rstrip()]
    kind = sat.get("kind")
    if kind in ("still_rising", "maybe_rising"):
        more = (f"raise probe.max_threads (the probe stopped at its limit, {threads_text(stopped_at, unit)})"
                if stopped_at else "measure higher thread counts")
        words.append(f"To find it: {more}" + ("; the load hosts look like the limit: add load hosts." if hosts
                                              else ", or add load hosts if their CPUs are busy."))
    elif kind == "too_noisy":
        words.append("To find it: longer points (probe.runtime_s), more repeats where it is uncertain "
                     "(probe.refine_points), or load hosts doing nothing else.")
    elif kind == "too_few":
        words.append(f"To find it: a wider {unit.removesuffix('s')} range (probe.min_threads to probe.max_threads).")
    return words


def _sweep_words(follow: dict[str, Any], unit: str) -> str:
    """How far the follow-up sweep goes (:func:`probe_answer_text`), and on what basis."""
    basis = {"answer": "the answer", "sweep.max_threads": "sweep.max_threads",
             "probed range": "the probed range, as no saturation was found"}.get(follow.get("basis"), "")
    up_to, swept = follow.get("up_to", max(follow["threads"])), max(follow["threads"])
    beyond = f", and beyond it to {threads_text(swept, unit)} (sweep.extend_pct)" if swept > up_to else ""
    return f"The sweep runs up to {threads_text(up_to, unit)}" + (f" ({basis})" if basis else "") + beyond + "."


def _fall_words(probe: dict[str, Any], rate: str, unit: str) -> str:
    """The fall past the peak (:func:`flashpoc.analysis.fall_text`) with what the hosts-or-array
    verdict says about it."""
    sat, verdict = probe["saturation"], (probe.get("host_limit") or {}).get("verdict")
    why = {"hosts": "the hosts-or-array verdict points at the load hosts",
           "array": "the hosts-or-array verdict points at the array, not the load hosts"}.get(
        verdict, "the hosts-or-array verdict cannot tell whether the load hosts or the array fell")
    return analysis.fall_text(sat["fall_threads"], sat["fall_pct"], rate, unit) + f"; {why}."

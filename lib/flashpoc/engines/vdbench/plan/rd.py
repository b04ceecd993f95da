"""Run definitions (``rd=`` lines): the probe's, the sweep's, a preconditioning round's and a longer run's."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from flashpoc.core.errors import ParameterError
from flashpoc.params import Campaign, Workload
from flashpoc.analysis.sweep_plan import format_forthreads
from flashpoc.engines.vdbench.plan.checks import _check_iorate, _check_name, _check_timing, _nonempty, _num, _seq, _whole, _xfer


#: intervals of ``warmup=`` on every run when ``vdbench.warmup_s`` is not set: vdbench 5.04.06
#: counts the last warm-up interval in its average, so two leave the first one out
WARMUP_INTERVALS = 2


# -- run definitions ------------------------------------------------------------------

@dataclass(frozen=True)
class RunDefinition:
    """One ``rd=`` line: a workload run at each thread count (vdbench's ``forthreads``).

    Attributes:
        name: rd name, e.g. ``rd1`` (printed in ``Starting RD=rd1`` and flatfile's ``Run``).
        workload: the wd (campaign workload) the run uses.
        threads: thread counts per SD, in run order: ``forthreads=(lo-hi,step)`` for an
            arithmetic sequence, ``(lo-hi,d)`` for a doubling one, else the list ``(a,b,c)``.
        xfersize: transfer size on the rd line (e.g. ``4k``, as the guide does); None leaves
            it to the wd (which then carries the workload's ``bs``).
        forxfersize: transfer sizes to loop over (excludes ``xfersize``).
        forrdpct: read percentages to loop over (override the wd's ``rdpct``).
        iorate: ``max``, ``curve`` (with ``curve``) or a fixed I/O rate.
        curve: ``iorate=curve`` points: % of the measured maximum.
        stopcurve_ms: ``stopcurve=``: vdbench stops the curve once a step's response time passes it (ms).
        elapsed_s, interval_s, warmup_s: rd ``elapsed=``, ``interval=``, ``warmup=`` (s).
    """

    name: str
    workload: str
    threads: tuple[int, ...]
    xfersize: str | None = None
    forxfersize: tuple[str, ...] | None = None
    forrdpct: tuple[int, ...] | None = None
    iorate: Literal["max", "curve"] | int = "max"
    curve: tuple[float, ...] | None = None
    elapsed_s: int = 60
    interval_s: int = 1
    warmup_s: int | None = None
    stopcurve_ms: float | None = None

    def __post_init__(self) -> None:
        key = "RunDefinition"
        _check_name(self.name, f"{key}.name")
        _check_name(self.workload, f"{key}.workload")
        if isinstance(self.threads, (str, bytes)) or not isinstance(self.threads, Sequence) or not self.threads:
            raise ParameterError(f"{key}.threads: a non-empty list of thread counts, got {self.threads!r}")
        object.__setattr__(self, "threads",
                           tuple(_whole(f"{key}.threads[{i}]", t) for i, t in enumerate(self.threads)))
        if self.xfersize is not None:
            object.__setattr__(self, "xfersize", _xfer(self.xfersize, f"{key}.xfersize"))
        if self.forxfersize is not None:
            if self.xfersize is not None:
                raise ParameterError(f"{key}.forxfersize: give xfersize or forxfersize, not both "
                                     "(vdbench would keep only the last)")
            sizes = _seq(self.forxfersize, f"{key}.forxfersize")
            object.__setattr__(self, "forxfersize", _nonempty(
                [_xfer(x, f"{key}.forxfersize[{i}]") for i, x in enumerate(sizes)], f"{key}.forxfersize"))
        if self.forrdpct is not None:
            object.__setattr__(self, "forrdpct", _nonempty(
                [_whole(f"{key}.forrdpct[{i}]", p, minimum=0, maximum=100)
                 for i, p in enumerate(_seq(self.forrdpct, f"{key}.forrdpct"))], f"{key}.forrdpct"))
        _check_iorate(self.iorate, self.curve, key)
        if self.curve is not None:
            object.__setattr__(self, "curve", tuple(float(c) for c in self.curve))
        _check_timing(self.elapsed_s, self.interval_s, self.warmup_s,
                      (f"{key}.elapsed_s", f"{key}.interval_s", f"{key}.warmup_s"))

    def line(self) -> str:
        """The ``rd=`` line."""
        parts = [f"rd={self.name}", f"wd={self.workload}", f"iorate={self.iorate}"]
        if self.curve is not None:
            parts.append("curve=(" + ",".join(_num(c) for c in self.curve) + ")")
        if self.stopcurve_ms is not None:
            parts.append(f"stopcurve={_num(self.stopcurve_ms)}")
        parts += [f"elapsed={self.elapsed_s}", f"interval={self.interval_s}"]
        if self.warmup_s is not None:
            parts.append(f"warmup={self.warmup_s}")
        # for-loops nest in the order given: xfersize and rdpct outside, threads innermost
        if self.xfersize is not None:
            parts.append(f"xfersize={self.xfersize}")
        if self.forxfersize is not None:
            parts.append("forxfersize=(" + ",".join(self.forxfersize) + ")")
        if self.forrdpct is not None:
            parts.append("forrdpct=(" + ",".join(str(p) for p in self.forrdpct) + ")")
        parts.append(f"forthreads={format_threads(self.threads)}")
        return ",".join(parts)

    @property
    def carries_xfersize(self) -> bool:
        """True when the rd sets the transfer size (``xfersize=`` or ``forxfersize=``)."""
        return self.xfersize is not None or self.forxfersize is not None

    @property
    def runs(self) -> int:
        """The runs vdbench makes of this rd: one per thread count (and per transfer size and
        read percentage looped), each followed by one run per ``curve`` step."""
        loops = len(self.forxfersize or (None,)) * len(self.forrdpct or (None,))
        return len(self.threads) * loops * (1 + len(self.curve or ()))

    def owns(self, printed: str) -> bool:
        """True when ``printed`` (a ``Starting RD=`` name) is a run of this rd: its name, or a
        curve step ``rd1_(50%)``; not vdbench's own ``SD_format`` run or another rd's."""
        return printed == self.name or self.curve_pct(printed) is not None

    def curve_pct(self, printed: str) -> float | None:
        """The curve step (% of the measured maximum) of the run printed as ``printed``
        (``rd1_(50%)`` -> 50.0); None for the rd's own (uncontrolled) runs and other names."""
        step = re.fullmatch(re.escape(self.name) + r"_\((\d+(?:\.\d+)?)%\)", printed)
        return float(step.group(1)) if step and self.curve is not None else None


def format_threads(threads: Sequence[int]) -> str:
    """vdbench ``forthreads`` text: ``(1-16,d)`` for doubling counts, else as
    :func:`~flashpoc.analysis.sweep_plan.format_forthreads` (``(10-300,10)`` or ``(2,4,6,10)``)."""
    counts = list(threads)
    if len(counts) >= 3 and all(b == 2 * a for a, b in zip(counts, counts[1:])):
        return f"({counts[0]}-{counts[-1]},d)"
    return format_forthreads(counts)


def probe_run(campaign: Campaign, *, name: str = "rd1", threads: Sequence[int] | None = None) -> RunDefinition:
    """The saturation probe of ``campaign.probe_workload`` as one rd.

    ``linear``: ``forthreads=(min-max,step)`` (the guide's ``(100-500,100)``); ``adaptive``:
    the doubling ladder ``min, 2 min, 4 min, ...`` capped at max_threads, ``(1-16,d)`` when
    max_threads is on the ladder. vdbench runs every count (it cannot stop at the plateau).
    ``threads`` gives other counts (the adaptive probe's refine points, the plateau on fewer
    hosts). Each point runs ``probe.runtime_s``, else ``vdbench.elapsed_s``, seconds.

    The probe fits IOPS against threads, so it always runs ``iorate=max`` (``iorate: curve``
    and a fixed rate are the sweep's), with the warm-up of :func:`warmup_s`.
    """
    probe = campaign.probe
    if threads is not None:
        counts = list(threads)
    elif probe.strategy == "linear":
        counts = list(range(probe.min_threads, probe.max_threads + 1, probe.step))
    else:
        counts = [probe.min_threads]
        while counts[-1] < probe.max_threads:
            counts.append(min(probe.max_threads, 2 * counts[-1]))
    return _run(campaign, name, campaign.probe_workload, counts, probe.runtime_s, "probe.runtime_s",
                iorate="max", curve=None)


def sweep_run(campaign: Campaign, threads: Sequence[int], workload: Workload | str, *,
              name: str = "rd1") -> RunDefinition:
    """The fine sweep of ``workload`` over ``threads`` (e.g. :func:`~flashpoc.analysis.sweep_plan.plan_sweep`'s
    ``10, 20, ..., 300``: ``forthreads=(10-300,10)``), ``sweep.runtime_s`` (else
    ``vdbench.elapsed_s``) seconds per point, at ``vdbench.iorate`` (with ``iorate: curve``,
    each thread count's full-speed run is followed by one run per ``curve`` step), with the
    warm-up of :func:`warmup_s`. ``sweep.plan: rate-curve`` runs ``iorate=curve`` at
    ``sweep.curve_pct``, with ``stopcurve=`` at ``sweep.stop_ms``."""
    wl = campaign.workload(workload) if isinstance(workload, str) else workload
    vd = campaign.settings
    if campaign.sweep.rate_steps:  # sweep.plan: rate-curve, vdbench's own iorate=curve
        return replace(_run(campaign, name, wl, threads, campaign.sweep.runtime_s, "sweep.runtime_s", iorate="curve",
                            curve=tuple(campaign.sweep.rate_steps)), stopcurve_ms=campaign.sweep.stop_ms)
    return _run(campaign, name, wl, threads, campaign.sweep.runtime_s, "sweep.runtime_s", iorate=vd.iorate,
                curve=tuple(vd.curve) if vd.curve is not None else None)


def round_run(campaign: Campaign, workload: Workload, threads: int, runtime_s: int) -> RunDefinition:
    """One round of the write workloads' preconditioning: ``workload`` at ``threads`` at full
    speed for ``runtime_s`` seconds (``precondition.round_s``)."""
    return _run(campaign, "rd1", workload, [threads], runtime_s, "precondition.round_s", iorate="max", curve=None)


def warmup_s(campaign: Campaign) -> int | None:
    """The ``warmup=`` of every run (s): ``vdbench.warmup_s``, else :data:`WARMUP_INTERVALS`
    intervals, so that no point is measured cold (the first run in a new JVM, the first interval
    after the thread count changed); ``warmup_s: 0`` gives None, no ``warmup=`` (vdbench's default
    of one interval, which vdbench 5.04.06 counts in its average)."""
    vd = campaign.settings
    return (WARMUP_INTERVALS * vd.interval_s if vd.warmup_s is None else vd.warmup_s) or None


def longer_run(campaign: Campaign, workload: Workload, threads: int, runtime_s: int) -> RunDefinition:
    """A sweep point measured again longer (``sweep.extend_until_steady``): ``workload`` at
    ``threads`` at full speed for ``runtime_s`` rounded up to whole intervals."""
    interval = campaign.settings.interval_s
    return _run(campaign, "rd1", workload, [threads], -(-runtime_s // interval) * interval,
                "sweep.extend_until_steady.max_s", iorate="max", curve=None)


def _run(campaign: Campaign, name: str, workload: Workload, threads: Sequence[int], runtime_s: int | None,
         runtime_key: str, *, iorate: str | int, curve: tuple[float, ...] | None) -> RunDefinition:
    vd = campaign.settings
    elapsed = runtime_s or vd.elapsed_s
    warmup = warmup_s(campaign)
    _check_timing(elapsed, vd.interval_s, warmup,
                  (runtime_key if runtime_s else "vdbench.elapsed_s", "vdbench.interval_s", "vdbench.warmup_s"))
    return RunDefinition(name=name, workload=workload.name, threads=tuple(threads), xfersize=workload.bs,
                         iorate=iorate, curve=curve, elapsed_s=elapsed, interval_s=vd.interval_s, warmup_s=warmup)

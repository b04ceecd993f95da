"""Phase 2, the saturation probe: the thread count beyond which IOPS stop rising
(:func:`run_probe`), the adaptive probe's settings, the plateau measured again on fewer hosts,
and the answer as a result (probe.json), in words and as tables for the notebooks.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any


from flashpoc import analysis
from flashpoc.analysis import hostlimit
from flashpoc.engines import loop
from flashpoc.analysis import rows as rows_mod
from flashpoc.core.errors import AnalysisError, FlashpocError
from flashpoc.params import Campaign
from flashpoc.analysis.sweep_plan import format_forthreads, threads_list_text
from flashpoc.campaign.display import QuietProgress
from flashpoc.core.tables import threads_text
from flashpoc.campaign.session import _require_checked, open_campaign, prepare_targets
from flashpoc.engines.loop import point_spec, point_steadiness, probe_runtime_s
from flashpoc.hosts.workbench import Workbench
from flashpoc.core.store import StoreError
from flashpoc.campaign.probe_words import probe_answer_text
from flashpoc.campaign.sweep import sweep_reach, sweep_threads


# -- phase 2: saturation probe ----------------------------------------------------------


def run_probe(cfg: Campaign, *, progress: bool = True, display: Any = QuietProgress) -> dict[str, Any]:
    """Find the thread count beyond which IOPS stop rising, and store probe.json.

    fio probe points end once their IOPS are steady (``probe.until_steady``), at most the
    point's length; the adaptive probe starts near where saturation can be and measures more
    only where the doubling found no answer (:class:`flashpoc.analysis.AdaptiveProbe`).

    Returns:
        A dict with the strategy, the probe points (threads, IOPS, latency in ms), the
        saturation answer (threads, max IOPS, plausible range, confidence, reason), the
        runs and device time (s) the probe used, the follow-up sweep (up to the answer, or
        over the probed range when there is none) and the answer in words (``answer``).

    ``display`` makes the live progress the caller shows (:class:`flashpoc.present.progress.Progress`
    from the phases' face; ``progress``: shown in the notebook); by default none.

    Raises:
        AnalysisError: with ``probe.strict``, when the probe found no saturation (probe.json
            is stored first).
    """
    with open_campaign(cfg) as wb:
        _require_checked(wb)
        prepare_targets(wb)
        probe, workload = wb.cfg.probe, wb.cfg.probe_workload
        runtime = probe_runtime_s(wb.cfg)
        rows: list[dict[str, Any]] = []

        def measure(counts: list[int]) -> None:
            # a count chosen again is a repeat
            specs = [point_spec(wb.cfg, "probe", workload, t, runtime, repeat=sum(int(r["threads"]) == t for r in rows))
                     for t in counts]
            rows.extend(loop.rows_of(loop.measure(wb, specs, bar)))
            if len(specs) == 1 and probe.remeasure_unsteady and rows[-1].get("steadystate_attained") is False:
                rows.append(loop.measure_one(wb, specs[0].again(specs[0].repeat + 1), bar))  # once more
            bar.answer(lambda: answer_so_far(wb.cfg, rows))

        engine = wb.engine
        stepper = adaptive_probe(wb.cfg, _host_cpus(wb))
        plan = engine.linear_probe_threads(wb.cfg) if probe.strategy == "linear" else None
        with display("probe", f"probe {workload.name} ({probe.strategy})", **_progress_plan(wb.cfg, engine, stepper, plan),
                      enabled=progress, engine=engine, colors=wb.cfg.workload_names) as bar:
            rounds = (engine.probe_batches(plan) if plan is not None else
                      engine.probe_rounds(stepper, lambda: point_values(wb.cfg, rows), bar))
            for counts in rounds:
                measure(counts)
        result = summarize_probe(wb.cfg, rows)
        _save_probe(wb, result)  # the answer stays if the host scaling fails
        steady = point_steadiness(wb.cfg, "probe", runtime)
        scaling = _host_scaling(wb, workload, result["saturation"].get("threads"), runtime, progress, steady, display)
        if scaling:
            result = with_host_limit(result, rows, scaling, expected_iops=wb.cfg.array.expected_iops)
            _save_probe(wb, result)
        if probe.strict and not result["saturation"].get("threads"):
            raise AnalysisError(f"probe.strict: {result['answer']}")
        return result


def _progress_plan(cfg: Campaign, engine, stepper: analysis.AdaptiveProbe, plan: list[int] | None) -> dict[str, Any]:
    """What the probe's progress knows before it starts (:class:`~flashpoc.present.progress.Progress`'s
    keywords): the linear probe's number of points (``total``, those of ``plan``) or the most points
    the adaptive probe measures (``bound``), and what it will do (``detail``)."""
    probe, unit = cfg.probe, engine.threads_word
    if plan is not None:
        return {"total": len(plan), "detail": [f"{unit} {threads_list_text(plan)} ({len(plan)} points)"]}
    bound = probe_point_bound(cfg)
    return {"bound": bound,
            "detail": [f"from {threads_text(stepper.start, unit)}, doubling up to "
                       f"{threads_text(probe.max_threads, unit)} or halving down to "
                       f"{threads_text(probe.min_threads, unit)} until {engine.rate_word} stop rising, then measuring "
                       f"where the answer is uncertain: at most {bound} points; it stops as soon as it has its answer"]}


def _save_probe(wb: Workbench, result: dict[str, Any]) -> None:
    """Store the probe's answer (probe.json) and the campaign's points table."""
    wb.store.write_json("probe.json", result)
    wb.store.write_points_table(wb.cfg.measurement_hash())


def adaptive_probe(cfg: Campaign, cpus: int | None = None) -> analysis.AdaptiveProbe:
    """The adaptive probe of ``cfg``: its thread range, refine budget and start (``probe``
    settings; the default start at least one thread per CPU of a host, ``cpus``), refined no
    finer than the sweep's step at the answer (a finer answer changes no sweep)."""
    probe = cfg.probe
    return analysis.AdaptiveProbe(
        min_threads=probe.min_threads, max_threads=probe.max_threads, gain_pct=probe.gain_pct, step=probe.step,
        start=probe.start_threads, budget=probe.refine_points, resolution=lambda t: _sweep_step(cfg, t),
        expected_iops=probe.expected_iops or cfg.array.expected_iops, cpus=cpus, outstanding_per_thread=_outstanding_per_thread(cfg),
        repeats_only=probe.refine_repeats)


def probe_point_bound(cfg: Campaign) -> int:
    """The most points the probe of ``cfg`` measures (an upper bound, for a progress bar): the
    linear probe's points, or every count of the adaptive probe's ladder and its refine points,
    twice when a point may be measured again (fio with a steady-state criterion: one not attained);
    for vdbench, the adaptive probe's counts. Host scaling adds its own points
    (:func:`flashpoc.analysis.hostlimit.scaling_host_counts`)."""
    probe = cfg.probe
    runtime = probe_runtime_s(cfg)
    remeasure = bool(probe.remeasure_unsteady
                     and cfg.engine_object.remeasures_unsteady(cfg, point_steadiness(cfg, "probe", runtime)))
    if probe.strategy == "linear":
        count = len(analysis.linear_probe_threads(probe.min_threads, probe.max_threads, probe.step))
        return count * (2 if remeasure else 1)
    return adaptive_probe(cfg).max_points(remeasure=remeasure)


def _outstanding_per_thread(cfg: Campaign) -> int:
    """I/Os in flight per thread on one load host (the engine's: fio's iodepth, vdbench's SDs over
    its hosts, SLOB's schemas)."""
    return cfg.engine_object.outstanding_per_thread(cfg)


def _host_cpus(wb: Workbench) -> int | None:
    """The fewest CPUs of a load host, from the check's host facts in manifest.json (None unknown)."""
    try:
        facts = wb.store.read_json("manifest.json").get("host_facts") or {}
    except StoreError:
        return None
    counts = [f.get("cpus") for f in facts.values() if isinstance(f, dict) and isinstance(f.get("cpus"), int)]
    return min(counts) if counts else None


def _sweep_step(cfg: Campaign, threads: int) -> int:
    """The step of the sweep planned up to ``threads`` just below it: an answer finer than this
    changes no sweep."""
    try:
        plan = sweep_threads(cfg, threads)
    except FlashpocError:
        return 1
    below = [t for t in plan if t < threads]
    return max(1, threads - below[-1]) if below else 1


def _host_scaling(wb: Workbench, workload, threads: int | None, runtime_s: int, progress: bool,
                  steady: tuple[str, int] | None = None, display: Any = QuietProgress) -> list[dict]:
    """The probe's plateau point (``threads`` per host) measured again on fewer hosts
    (:func:`flashpoc.analysis.hostlimit.scaling_host_counts`) with the same outstanding I/Os per host
    (for vdbench, whose threads are per SD and spread over the hosts, fewer threads:
    :func:`flashpoc.engines.vdbench.measure.scaling_threads`): the rows, fewest hosts first; none for
    one host, SLOB, ``probe.host_scaling: false`` or a probe without an answer."""
    cfg = wb.cfg
    counts = hostlimit.scaling_host_counts(len(cfg.hosts))
    engine = wb.engine
    first = engine.first_host(wb)  # None: the engine measures no plateau on fewer hosts (one database host)
    if not (threads and counts and cfg.probe.host_scaling and first is not None):
        return []
    rows = []
    detail = [f"the plateau ({threads_text(threads)}) again on {', '.join(str(c) for c in counts)} of the "
              f"{len(cfg.hosts)} hosts: do more hosts give more IOPS?"]
    with display("probe", f"probe {workload.name} on fewer hosts", total=len(counts), detail=detail,
                  enabled=progress) as bar:
        for count in counts:
            sub = _on_fewer_hosts(wb, count, first)
            bar.begin(workload.name, f"{threads_text(threads)} on {count} host{'' if count == 1 else 's'}")
            done = engine.measure_on_fewer_hosts(sub, cfg, workload, threads, runtime_s, steady)
            rows += done
            for row in done:
                bar.point(row)
    return rows


def _on_fewer_hosts(wb: Workbench, count: int, first: str | None = None) -> Workbench:
    """The campaign on its first ``count`` hosts (``first`` first, by default the engine's
    :meth:`~flashpoc.engines.base.Engine.first_host`: the vdbench controller) and the targets they
    use, sharing ``wb``'s connections, engine state (fio's servers) and store (never closed on its own)."""
    cfg = wb.cfg
    first = first if first is not None else wb.engine.first_host(wb)
    ordered = sorted(cfg.hosts, key=lambda h: h.name != first)[:count]
    names = {h.name for h in ordered}
    targets = [t.model_copy(update={"hosts": [n for n in t.hosts if n in names]}) if t.hosts else t
               for t in cfg.targets if t.hosts is None or names & set(t.hosts)]
    sub_cfg = cfg.model_copy(update={"hosts": [h for h in cfg.hosts if h.name in names], "targets": targets})
    return Workbench(sub_cfg, wb.store, hosts=wb.hosts, engine_versions={}, engine_state=wb.engine_state,
                     engine=wb.engine)


def point_values(cfg: Campaign, rows: list[dict[str, Any]]) -> list[analysis.Point]:
    """The probe's view of ``rows``: threads, the engine's rate (IOPS; HammerDB's NOPM) and latency."""
    engine = cfg.engine_object
    return rows_mod.to_points(rows, engine.rate_column, engine.probe_latency_column(cfg))


def answer_so_far(cfg: Campaign, rows: list[dict[str, Any]]) -> str:
    """The probe's answer from the points measured so far, in one line (the live view's): where
    the rate stops rising, its plausible range and confidence, or why the points give none yet."""
    engine = cfg.engine_object
    try:
        sat = analysis.find_saturation(point_values(cfg, rows), gain_pct=cfg.probe.gain_pct)
    except AnalysisError as error:
        return f"none yet: {error}"
    if not sat.threads:
        return f"none yet: {sat.reason}"
    lo, hi = sat.range_threads or (sat.threads, sat.threads)
    return (f"{engine.rate_word} stop rising at {threads_text(sat.threads, engine.threads_word)} "
            f"(plausible {lo}-{hi}, confidence {sat.confidence:.0%})")


def summarize_probe(cfg: Campaign, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The probe's answer from its measured rows, with the hosts-or-array verdict and the
    follow-up sweep (pure). ``device_time_s`` counts the seconds each point ran (a point that
    ended once steady ran less than its length) and its ramp."""
    probe = cfg.probe
    try:
        sat = analysis.find_saturation(point_values(cfg, rows), gain_pct=probe.gain_pct)
        saturation = asdict(sat)
    except AnalysisError as error:
        saturation = {"threads": None, "supported": False, "reason": str(error), "kind": "too_few"}
    engine = cfg.engine_object
    words = {} if engine.rate_column == "iops" else {"rate": engine.rate_column, "rate_word": engine.rate_word,
                                                      "threads_word": engine.threads_word}
    extra = (engine.rate_column, engine.probe_latency_column(cfg)) if words else ()  # the engine's own columns
    result = {
        "campaign": cfg.campaign,
        "measurement_hash": cfg.measurement_hash(),
        **words,
        "workload": cfg.probe_workload.name,
        "strategy": probe.strategy,
        "gain_pct": probe.gain_pct,
        "max_threads": probe.max_threads,
        "points": [{k: r.get(k) for k in ("threads", "outstanding_ios", "iops", "lat_mean_ms", "clat_p99_ms",
                                          "host_cpu_busy_pct", "steadystate_attained", "measured_s", "repeat",
                                          "point_id", "hosts", "per_host", *extra) if k != "per_host" or r.get(k)}
                   for r in rows],
        "runs": len(rows),
        "device_time_s": sum(float(r.get("measured_s") or r["runtime_s"]) + float(r.get("ramp_s") or 0)
                             for r in rows),
        "wall_time_s": sum(float(r["wall_s"]) for r in rows),
        "saturation": saturation,
    }
    if rows and (saturation.get("threads") or cfg.sweep.max_threads or not probe.strict):  # strict: no sweep
        reach, basis = sweep_reach(cfg, result)
        sweep = sweep_threads(cfg, reach)
        result["followup_sweep"] = {"threads": sweep, "forthreads": format_forthreads(sweep), "points": len(sweep),
                                    "up_to": reach, "basis": basis}
    return with_host_limit(result, rows, expected_iops=cfg.array.expected_iops)


def with_host_limit(result: dict[str, Any], rows: list[dict[str, Any]], scaling: list[dict[str, Any]] = (),
                    expected_iops: float | None = None) -> dict[str, Any]:
    """``result`` (:func:`summarize_probe`) with the hosts-or-array verdict of the probe's rows
    and of its plateau measured on fewer hosts (``scaling``, stored as ``host_scaling``), and the
    answer in words (``answer``, :func:`probe_answer_text`) (pure)."""
    limit = None if result.get("rate", "iops") != "iops" else hostlimit.host_limit(  # a verdict on I/O only
        rows, result["saturation"].get("threads"), scaling=scaling, expected_iops=expected_iops)
    result = {**result, "host_limit": limit}
    if scaling:
        result["host_scaling"] = [{k: r.get(k) for k in ("threads", "n_hosts", "hosts", "iops", "lat_mean_ms",
                                                         "point_id")} for r in scaling]
    result["answer"] = probe_answer_text(result)
    return result

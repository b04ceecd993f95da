"""The four phases of a POC campaign, as the notebooks (and ``flashpoc run``) call them.

check -> probe -> sweep -> report. Each phase takes a validated :class:`Campaign`, stores
what it measured under ``results/<campaign>/`` and returns tables for display. Points that
are already stored with the same defining parameters are reused, not measured again.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from . import analysis, check, hostlimit, precondition, ratecurve
from .engines import get_engine
from .engines.fio.measure import measure_point  # noqa: F401 - phases.measure_point, as before
from . import rows as rows_mod
from .errors import AnalysisError, CheckFailed, FlashpocError, ReportError
from .params import Campaign, HostParams, check_results_dir, workbook_root
from .plan.sweep import format_forthreads, plan_note, plan_sweep
from .progress import Progress, threads_text
from .run import hosts as hostlib
from .run.facts import collect_host_facts, target_lines
from .engines.fio import run as run_fio
from .store import HISTOGRAM_FILE, INTERVALS_FILE, CampaignStore, StoreError


@dataclass
class Workbench:
    """A campaign opened for running: parameters, host connections and its results store."""

    cfg: Campaign
    store: CampaignStore
    hosts: dict[str, Any] = field(default_factory=dict)
    engine_versions: dict[str, str] = field(default_factory=dict)
    lock: Any = None
    fio_servers: bool | None = None  # running fio --server on every host: True read-only, False read-write

    def host(self, params: HostParams):
        """The (cached) connection to ``params``."""
        if params.name not in self.hosts:
            self.hosts[params.name] = hostlib.connect(params)
        return self.hosts[params.name]

    def close(self) -> None:
        """Stop the fio servers (not on a host that stopped answering: the next start replaces its
        server), close every host connection and release the campaign."""
        if self.fio_servers is not None:
            self.fio_servers = None
            answering = [self.host(h) for h in self.cfg.hosts if not self.host(h).silent]
            with ThreadPoolExecutor(max_workers=len(self.cfg.hosts)) as pool:
                list(pool.map(lambda host: _quietly(run_fio.stop_server, host), answering))
        for host in self.hosts.values():
            host.close()
        self.hosts.clear()
        if self.lock is not None:
            self.lock.__exit__(None, None, None)
            self.lock = None

    def __enter__(self) -> Workbench:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_campaign(cfg: Campaign) -> Workbench:
    """Resolve relative paths, open the campaign's results directory and hold it for this run
    (:meth:`flashpoc.store.CampaignStore.lock`; released by :meth:`Workbench.close`).

    Raises:
        ParameterError: the results directory may not be written (:func:`flashpoc.params.check_results_dir`).
        StoreError: another process is running a phase of this campaign, or the directory
            holds another format's results.
    """
    cfg = cfg.resolved()
    store = CampaignStore(check_results_dir(cfg))
    if (store.root / "manifest.json").exists():
        store.check_format()
    lock = store.lock()
    lock.__enter__()
    return Workbench(cfg, store, lock=lock)


# -- phase 1: environment check ------------------------------------------------------
def run_check(cfg: Campaign, *, connect=hostlib.connect) -> pd.DataFrame:
    """Check every host and target; store check.csv and the manifest; return the table.

    The table has one row per (host, check) with a ``status`` of pass, warn or fail; use
    :func:`flashpoc.check.require_pass` to stop before any I/O when something failed.
    """
    with open_campaign(cfg) as wb:
        table = check.check_environment(wb.cfg, connect=connect)
        wb.store.write_table("check.csv", table)
        versions = get_engine(wb.cfg.engine).check_versions(table)
        facts = table.attrs.get("facts") or {}
        wb.store.write_manifest(manifest_params(wb.cfg), wb.cfg.params_hash(), engine=wb.cfg.engine,
                                engine_versions=versions, host_facts=facts, workbook=workbook_root())
        wb.store.write_json("check.json", {"params_hash": wb.cfg.params_hash(), "verdict": check.verdict(table)})
        return table


def manifest_params(cfg: Campaign) -> dict[str, Any]:
    """The parameters as manifest.json stores them: every key, with its value or default, that
    :func:`campaign_from_manifest` reads back into the same campaign. A SLOB campaign's fio
    ``workloads`` are left out (SLOB's are ``slob.workloads``; the schema refuses both)."""
    return cfg.model_dump(mode="json", exclude=set(get_engine(cfg.engine).manifest_exclude) or None)


def campaign_from_manifest(manifest: dict[str, Any], source: str) -> Campaign:
    """The campaign whose parameters ``manifest`` (manifest.json) records.

    Raises:
        ParameterError: the recorded parameters are not valid parameters (named by ``source``).
        KeyError: the manifest records no parameters.
    """
    from .params import campaign_from_dict

    params = dict(manifest["params"])
    engine = manifest.get("engine") or params.get("engine") or "fio"  # params: a name, or the engine block
    for key in get_engine(engine if isinstance(engine, str) else next(iter(engine), "fio")).manifest_exclude:
        params.pop(key, None)  # manifests written before manifest_params held the fio default
    return campaign_from_dict(params, source=source)


def _require_checked(wb: Workbench) -> None:
    """Refuse to run I/O unless a passing check of these exact parameters is stored."""
    try:
        stored = wb.store.read_json("check.json")
    except StoreError:
        stored = None
    if not stored or stored.get("params_hash") != wb.cfg.params_hash():
        table = run_check(wb.cfg)
        check.require_pass(table)
    elif stored.get("verdict") == "fail":
        raise CheckFailed(f"the environment check of {wb.cfg.campaign} failed; see {wb.store.root / 'check.csv'} "
                          "and run the check again after fixing it")


def safety_gate(wb: Workbench) -> None:
    """Probe every target the campaign may write, on every host that uses it, right before the
    phase writes anything: the check may be hours old, and a LUN may have been mapped, formatted
    or mounted since (see :mod:`flashpoc.safety`).

    Raises:
        CheckFailed: naming each host, target and what was found, before any I/O.
    """
    problems = []
    for host_params in wb.cfg.hosts:
        targets = [t for t in wb.cfg.targets_of(host_params) if wb.cfg.written(t)]
        if not targets:
            continue
        facts = collect_host_facts(wb.host(host_params), [t.path for t in targets])["targets"]
        for target, target_facts in zip(targets, facts):
            status, detail = check.write_verdict(wb.cfg, host_params.name, target, target_facts)
            if status == "fail":
                problems.append(detail)
    if problems:
        raise CheckFailed("nothing was written:\n- " + "\n- ".join(problems))


def target_sizes(host, targets: list) -> dict[str, int | str | None]:
    """Each target's size on ``host``, read-only, in one command: bytes of a block device
    (``blockdev --getsize64``, else ``/sys/class/block``) or of a file, ``"missing"``,
    ``"other"`` (a directory or another kind of file), or None when it cannot be read."""
    probe = ('if [ -b "$p" ]; then s=$(blockdev --getsize64 "$p" 2>/dev/null); if [ -z "$s" ]; then '
             'n=$(readlink -f "$p"); n=${n##*/}; s=$(cat "/sys/class/block/$n/size" 2>/dev/null) && s=$((s * 512)); '
             'fi; echo "${s:-?}"; elif [ -f "$p" ]; then stat -L -c %s "$p" 2>/dev/null || echo "?"; '
             'elif [ -e "$p" ]; then echo other; else echo missing; fi')
    lines = target_lines(host, targets, probe, "read the targets' sizes")
    return {t.path: int(v) if v.isdigit() else v if v in ("missing", "other") else None
            for t, v in zip(targets, lines)}


def prepare_targets(wb: Workbench) -> list[dict[str, Any]]:
    """Check the targets the campaign writes (:func:`safety_gate`), then create the scratch-file
    targets that are missing or too small; return what was done.

    fio lays a scratch file out with its own job (its ``buffer_compress_percentage`` data);
    vdbench fills it with its own data of the campaign's ``compratio``/``dedupratio`` once,
    recorded (:func:`flashpoc.engines.vdbench.measure.fill_targets`), and again when those change.
    SLOB's data lives in the database (setup.sh loads it), so SLOB campaigns create nothing.
    With ``precondition.fill`` the scratch files are only made, then every target that allows it is
    filled once, recorded, and reads of unfilled targets are refused (:mod:`flashpoc.precondition`).
    """
    done: list[dict[str, Any]] = []
    engine = get_engine(wb.cfg.engine)
    if not engine.uses_targets:
        return done
    safety_gate(wb)
    for host_params in wb.cfg.hosts:
        scratch = [t for t in wb.cfg.targets_of(host_params) if t.create]
        if not scratch:
            continue
        sizes = target_sizes(wb.host(host_params), scratch)
        short = [t for t in scratch if not isinstance(sizes[t.path], int) or sizes[t.path] < t.size_bytes]
        done += (precondition.create_scratch if wb.cfg.precondition.fill else engine.create_scratch)(
            wb, host_params, scratch, short)
    return done + precondition.precondition_targets(wb)


# -- run points -----------------------------------------------------------------------
def _quietly(action, *args) -> None:
    try:
        action(*args)
    except Exception:  # noqa: BLE001 - clean-up must not hide the error that ended the phase
        pass


def _point_runtime_s(cfg: Campaign) -> int:
    """Measured seconds of a point unless the phase says otherwise (the engine's, e.g. fio's runtime)."""
    return get_engine(cfg.engine).point_runtime_s(cfg)


def _measure(wb: Workbench, phase: str, workload, threads: int, runtime_s: int, repeat: int = 0) -> dict[str, Any]:
    """One point of the campaign's engine (:meth:`flashpoc.engines.base.Engine.measure_point`)."""
    return get_engine(wb.cfg.engine).measure_point(wb, phase, workload, threads, runtime_s=runtime_s, repeat=repeat,
                                                   steady=point_steadiness(wb.cfg, phase, runtime_s))


def point_steadiness(cfg: Campaign, phase: str, runtime_s: int) -> tuple[str, int] | None:
    """The engine's criterion and window (s) that end a ``phase`` point once its IOPS are steady
    (``probe.until_steady``, ``sweep.until_steady``; :meth:`flashpoc.engines.base.Engine.steadiness`,
    e.g. :func:`flashpoc.engines.fio.plan.until_steady`), or None for points of fixed length."""
    wanted = cfg.probe.until_steady if phase == "probe" else cfg.sweep.until_steady
    return get_engine(cfg.engine).steadiness(cfg, runtime_s) if wanted else None


# -- phase 2: saturation probe ----------------------------------------------------------
LOW_CONFIDENCE = 0.6
"""Below this share of agreeing resamples the probe's answer is called weak, and says what would firm it up."""


def run_probe(cfg: Campaign, *, progress: bool = True) -> dict[str, Any]:
    """Find the thread count beyond which IOPS stop rising, and store probe.json.

    fio probe points end once their IOPS are steady (``probe.until_steady``), at most the
    point's length; the adaptive probe starts near where saturation can be and measures again
    only where the answer is uncertain (:class:`flashpoc.analysis.AdaptiveProbe`).

    Returns:
        A dict with the strategy, the probe points (threads, IOPS, latency in ms), the
        saturation answer (threads, max IOPS, plausible range, confidence, reason), the
        runs and device time (s) the probe used, the follow-up sweep (up to the answer, or
        over the probed range when there is none) and the answer in words (``answer``).

    Raises:
        AnalysisError: with ``probe.strict``, when the probe found no saturation (probe.json
            is stored first).
    """
    with open_campaign(cfg) as wb:
        _require_checked(wb)
        prepare_targets(wb)
        probe, workload = wb.cfg.probe, wb.cfg.probe_workload
        runtime = probe.runtime_s or _point_runtime_s(wb.cfg)
        rows: list[dict[str, Any]] = []

        def measure(threads: int) -> None:
            bar.begin(workload.name, threads)
            repeat = sum(int(r["threads"]) == threads for r in rows)  # a count chosen again is a repeat
            row = _measure(wb, "probe", workload, threads, runtime, repeat=repeat)
            if probe.remeasure_unsteady and row.get("steadystate_attained") is False:
                rows.append(row)
                bar.point(row)
                bar.begin(workload.name, threads)
                row = _measure(wb, "probe", workload, threads, runtime, repeat=repeat + 1)
            rows.append(row)
            bar.point(row)

        title = f"probe {workload.name} ({probe.strategy})"
        stepper = adaptive_probe(wb.cfg, _host_cpus(wb))
        if probe.strategy == "linear":
            plan = get_engine(wb.cfg.engine).linear_probe_threads(wb.cfg)
            counts = {"total": len(plan)}
            detail = [f"threads {format_forthreads(plan)}, {len(plan)} points"]
        else:
            bound = probe_point_bound(wb.cfg)
            counts = {"bound": bound}
            detail = [f"from {threads_text(stepper.start)}, doubling up to {threads_text(probe.max_threads)} or "
                      f"halving down to {threads_text(probe.min_threads)} until IOPS stop rising, then measuring "
                      f"where the answer is uncertain: at most {bound} points; it stops as soon as it has its answer"]
        with Progress("probe", title, **counts, detail=detail, enabled=progress) as bar:
            batch = get_engine(wb.cfg.engine).measure_probe(wb, bar, stepper)
            if batch is not None:
                rows = batch
            elif probe.strategy == "linear":
                for threads in plan:
                    measure(threads)
            else:
                while (threads := stepper.next_threads(rows_mod.to_points(rows))) is not None:
                    measure(threads)
        result = summarize_probe(wb.cfg, rows)
        wb.store.write_json("probe.json", result)  # the answer stays if the host scaling fails
        wb.store.write_points_table(wb.cfg.measurement_hash())
        steady = point_steadiness(wb.cfg, "probe", runtime)
        scaling = _host_scaling(wb, workload, result["saturation"].get("threads"), runtime, progress, steady)
        if scaling:
            result = with_host_limit(result, rows, scaling, expected_iops=wb.cfg.array.expected_iops)
            wb.store.write_json("probe.json", result)
            wb.store.write_points_table(wb.cfg.measurement_hash())
        if probe.strict and not result["saturation"].get("threads"):
            raise AnalysisError(f"probe.strict: {result['answer']}")
        return result


def adaptive_probe(cfg: Campaign, cpus: int | None = None) -> analysis.AdaptiveProbe:
    """The adaptive probe of ``cfg``: its thread range, refine budget and start (``probe``
    settings; the default start at least one thread per CPU of a host, ``cpus``), refined no
    finer than the sweep's step at the answer (a finer answer changes no sweep)."""
    probe = cfg.probe
    return analysis.AdaptiveProbe(
        min_threads=probe.min_threads, max_threads=probe.max_threads, gain_pct=probe.gain_pct, step=probe.step,
        start=probe.start_threads, budget=probe.refine_points, resolution=lambda t: _sweep_step(cfg, t),
        expected_iops=probe.expected_iops or cfg.array.expected_iops, cpus=cpus, outstanding_per_thread=_outstanding_per_thread(cfg))


def probe_point_bound(cfg: Campaign) -> int:
    """The most points the probe of ``cfg`` measures (an upper bound, for a progress bar): the
    linear probe's points, or every count of the adaptive probe's ladder and its refine points,
    twice when a point may be measured again (fio with a steady-state criterion: one not attained);
    for vdbench, the adaptive probe's counts. Host scaling adds its own points
    (:func:`flashpoc.hostlimit.scaling_host_counts`)."""
    probe = cfg.probe
    runtime = probe.runtime_s or _point_runtime_s(cfg)
    remeasure = bool(probe.remeasure_unsteady
                     and get_engine(cfg.engine).remeasures_unsteady(cfg, point_steadiness(cfg, "probe", runtime)))
    if probe.strategy == "linear":
        count = len(analysis.linear_probe_threads(probe.min_threads, probe.max_threads, probe.step))
        return count * (2 if remeasure else 1)
    return adaptive_probe(cfg).max_points(remeasure=remeasure)


def _outstanding_per_thread(cfg: Campaign) -> int:
    """I/Os in flight per thread on one load host (the engine's: fio's iodepth, vdbench's SDs over
    its hosts, SLOB's schemas)."""
    return get_engine(cfg.engine).outstanding_per_thread(cfg)


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
                  steady: tuple[str, int] | None = None) -> list[dict]:
    """The probe's plateau point (``threads`` per host) measured again on fewer hosts
    (:func:`flashpoc.hostlimit.scaling_host_counts`) with the same outstanding I/Os per host
    (for vdbench, whose threads are per SD and spread over the hosts, fewer threads:
    :func:`flashpoc.engines.vdbench.measure.scaling_threads`): the rows, fewest hosts first; none for
    one host, SLOB, ``probe.host_scaling: false`` or a probe without an answer."""
    cfg = wb.cfg
    counts = hostlimit.scaling_host_counts(len(cfg.hosts))
    engine = get_engine(cfg.engine)
    if not (threads and counts and cfg.probe.host_scaling and engine.scales_hosts):
        return []
    rows = []
    detail = [f"the plateau ({threads_text(threads)}) again on {', '.join(str(c) for c in counts)} of the "
              f"{len(cfg.hosts)} hosts: do more hosts give more IOPS?"]
    with Progress("probe", f"probe {workload.name} on fewer hosts", total=len(counts), detail=detail,
                  enabled=progress) as bar:
        for count in counts:
            sub = _on_fewer_hosts(wb, count)
            bar.begin(workload.name, f"{threads_text(threads)} on {count} host{'' if count == 1 else 's'}")
            done = engine.measure_on_fewer_hosts(sub, cfg, workload, threads, runtime_s, steady)
            rows += done
            wb.fio_servers = sub.fio_servers
            for row in done:
                bar.point(row)
    return rows


def _on_fewer_hosts(wb: Workbench, count: int) -> Workbench:
    """The campaign on its first ``count`` hosts (the vdbench controller first) and the targets
    they use, sharing ``wb``'s connections, fio servers and store (never closed on its own)."""
    cfg = wb.cfg
    first = get_engine(cfg.engine).first_host(wb)
    ordered = sorted(cfg.hosts, key=lambda h: h.name != first)[:count]
    names = {h.name for h in ordered}
    targets = [t.model_copy(update={"hosts": [n for n in t.hosts if n in names]}) if t.hosts else t
               for t in cfg.targets if t.hosts is None or names & set(t.hosts)]
    sub_cfg = cfg.model_copy(update={"hosts": [h for h in cfg.hosts if h.name in names], "targets": targets})
    return Workbench(sub_cfg, wb.store, hosts=wb.hosts, engine_versions={}, fio_servers=wb.fio_servers)


def summarize_probe(cfg: Campaign, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The probe's answer from its measured rows, with the hosts-or-array verdict and the
    follow-up sweep (pure). ``device_time_s`` counts the seconds each point ran (a point that
    ended once steady ran less than its length) and its ramp."""
    probe = cfg.probe
    try:
        sat = analysis.find_saturation(rows_mod.to_points(rows), gain_pct=probe.gain_pct)
        saturation = asdict(sat)
    except AnalysisError as error:
        saturation = {"threads": None, "supported": False, "reason": str(error), "kind": "too_few"}
    result = {
        "campaign": cfg.campaign,
        "measurement_hash": cfg.measurement_hash(),
        "workload": cfg.probe_workload.name,
        "strategy": probe.strategy,
        "gain_pct": probe.gain_pct,
        "max_threads": probe.max_threads,
        "points": [{k: r.get(k) for k in ("threads", "outstanding_ios", "iops", "lat_mean_ms", "clat_p99_ms",
                                          "host_cpu_busy_pct", "steadystate_attained", "measured_s", "repeat",
                                          "point_id", "hosts", "per_host") if k != "per_host" or r.get(k)}
                   for r in rows],
        "runs": len(rows),
        "device_time_s": round(sum(float(r.get("measured_s") or r["runtime_s"]) + float(r.get("ramp_s") or 0)
                                   for r in rows), 1),
        "wall_time_s": round(sum(float(r["wall_s"]) for r in rows), 1),
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
    limit = hostlimit.host_limit(rows, result["saturation"].get("threads"), scaling=scaling, expected_iops=expected_iops)
    result = {**result, "host_limit": limit}
    if scaling:
        result["host_scaling"] = [{k: r.get(k) for k in ("threads", "n_hosts", "hosts", "iops", "lat_mean_ms",
                                                         "point_id")} for r in scaling]
    result["answer"] = probe_answer_text(result)
    return result


def _levels(probe: dict[str, Any]) -> dict[int, float]:
    """Mean IOPS per thread count of the probe's points (repeats averaged)."""
    sums: dict[int, list[float]] = {}
    for p in probe.get("points") or []:
        if p.get("iops") is not None:
            sums.setdefault(int(p["threads"]), []).append(float(p["iops"]))
    return {t: sum(v) / len(v) for t, v in sorted(sums.items())}


def probe_answer_text(probe: dict[str, Any]) -> str:
    """The probe's answer in words, one paragraph (plain text, also valid Markdown): where IOPS
    stop rising with its plausible range and confidence, or that no saturation was found and
    why; when the most IOPS were measured elsewhere than at the answer, that they are within the
    noise of the plateau; when the probe reached its own limit (``probe.max_threads``) or the
    confidence is low, what to do; and how far the sweep goes. Notebook 02, the report and the
    batch summary all state the answer with this one function (``probe.json``'s ``answer``)."""
    sat = probe["saturation"]
    levels = _levels(probe)
    top = max(levels) if levels else None
    best = max(levels, key=levels.get) if levels else None
    limit = probe.get("max_threads")
    at_limit = top is not None and limit is not None and top >= limit
    hosts = (probe.get("host_limit") or {}).get("verdict") == "hosts"
    words = []
    if sat.get("threads"):
        n, conf = int(sat["threads"]), float(sat.get("confidence") or 0.0)
        lo, hi = sat.get("range_threads") or (n, n)
        plausible = f"plausible {lo}-{hi} threads" if lo != hi else "no other count plausible"
        words.append(f"IOPS stop rising at {n} threads: a plateau of {sat['max_iops']:,.0f} IOPS ({plausible}, "
                     f"confidence {conf:.0%}).")
        over = levels[best] / sat["max_iops"] - 1.0 if best is not None and sat.get("max_iops") else 0.0
        if best is not None and best != n and over * 100 >= float(probe.get("gain_pct") or 2.0):
            words.append(f"More IOPS were measured at {best} threads ({levels[best]:,.0f}, {over:+.1%} over the "
                         f"plateau level): the fit counts that within the points' noise, not as a rise.")
            if at_limit and best == top:
                words.append(f"{top} threads is the probe's limit (probe.max_threads): IOPS may still rise beyond "
                             f"it; raise probe.max_threads to see the plateau end.")
        if conf < LOW_CONFIDENCE:
            words.append(f"The confidence is low ({conf:.0%}): the plateau could start anywhere from {lo} to "
                         f"{hi} threads; longer points (probe.runtime_s) or more repeats where it is uncertain "
                         f"(probe.refine_points) firm it up.")
    else:
        words.append(f"No saturation found: {sat.get('reason', '')}".rstrip())
        kind = sat.get("kind")
        if kind in ("still_rising", "maybe_rising"):
            more = f"raise probe.max_threads (the probe stopped at its limit, {top} threads)" if at_limit else \
                "measure higher thread counts"
            words.append(f"To find it: {more}" + ("; the load hosts look like the limit: add load hosts." if hosts
                                                  else ", or add load hosts if their CPUs are busy."))
        elif kind == "too_noisy":
            words.append("To find it: longer points (probe.runtime_s), more repeats where it is uncertain "
                         "(probe.refine_points), or load hosts doing nothing else.")
        elif kind == "too_few":
            words.append("To find it: a wider thread range (probe.min_threads to probe.max_threads).")
    follow = probe.get("followup_sweep")
    if follow:
        basis = {"answer": "the answer", "sweep.max_threads": "sweep.max_threads",
                 "probed range": "the probed range, as no saturation was found"}.get(follow.get("basis"), "")
        up_to, swept = follow.get("up_to", max(follow["threads"])), max(follow["threads"])
        beyond = f", and beyond it to {swept} threads (sweep.extend_pct)" if swept > up_to else ""
        words.append(f"The sweep runs up to {up_to} threads" + (f" ({basis})" if basis else "") + beyond + ".")
    return " ".join(words)


# -- phase 3: thread sweep --------------------------------------------------------------
def sweep_threads(cfg: Campaign, max_threads: int) -> list[int]:
    """The thread counts of the fine sweep up to ``max_threads`` (the sweep settings' plan)."""
    s = cfg.sweep
    return plan_sweep(max_threads, plan=s.plan, step=s.step, points=s.points, extend_pct=s.extend_pct)


def sweep_reach(cfg: Campaign, probe: dict[str, Any] | None) -> tuple[int, str]:
    """How far the sweep goes, and why: ``sweep.max_threads`` when set, else the probe's answer,
    else (no saturation found: never a dead end) the highest thread count the probe measured.

    Raises:
        AnalysisError: no ``sweep.max_threads`` and no probe; or no answer with ``probe.strict``.
    """
    if cfg.sweep.max_threads is not None:
        return cfg.sweep.max_threads, "sweep.max_threads"
    if probe is None:
        raise AnalysisError(f"no probe result in {cfg.resolved().results_path()}: run the saturation probe (02) "
                            "first, or set sweep.max_threads")
    sat = probe["saturation"]
    if sat.get("threads"):
        return int(sat["threads"]), "answer"
    if cfg.probe.strict:
        raise AnalysisError(f"probe.strict: the probe found no saturation ({sat.get('reason')}); extend the probe "
                            "or set sweep.max_threads")
    return max(_levels(probe) or {cfg.probe.max_threads: 0}), "probed range"


def _stored_probe(cfg: Campaign) -> dict[str, Any] | None:
    """probe.json of the campaign, or None (none stored, or not needed: ``sweep.max_threads``)."""
    if cfg.sweep.max_threads is not None:
        return None
    store = CampaignStore(cfg.resolved().results_path())
    return store.read_json("probe.json") if (store.root / "probe.json").exists() else None


def sweep_top(cfg: Campaign) -> tuple[int, str]:
    """The thread count the sweep goes up to (:func:`sweep_reach` of the stored probe), and where it
    comes from in words.

    Raises:
        AnalysisError: see :func:`sweep_reach`.
    """
    reach, basis = sweep_reach(cfg, _stored_probe(cfg))
    return reach, {"answer": "the probe's answer",
                   "probed range": "the probed range: the probe found no saturation"}.get(basis, basis)


def plan_campaign_sweep(cfg: Campaign) -> dict[str, list[int]]:
    """Thread counts per workload up to :func:`sweep_reach` (``sweep.max_threads``, the probe's
    answer or the probed range). The probe's workload also gets the probe's thread counts up
    there when its points are the sweep's (fio points of the same length and way of ending,
    :func:`measure_point` reuses them): free points on its curve.

    Raises:
        AnalysisError: see :func:`sweep_reach`.
    """
    probe = _stored_probe(cfg)
    reach, _ = sweep_reach(cfg, probe)
    threads = sweep_threads(cfg, reach)
    plan = {w.name: threads for w in cfg.sweep_workloads}
    name = cfg.probe_workload.name
    if name in plan and probe is not None and probe_points_reused(cfg):
        top = max(threads)
        plan[name] = sorted(set(threads) | {t for t in _levels(probe) if t <= top})
    return plan


def probe_points_reused(cfg: Campaign) -> bool:
    """True when the sweep's points of the probe's workload are the probe's points (fio, the same
    point length, both ending once steady: ``probe.until_steady`` and ``sweep.until_steady``)."""
    probe_runtime = cfg.probe.runtime_s or _point_runtime_s(cfg)
    sweep_runtime = cfg.sweep.runtime_s or _point_runtime_s(cfg)
    sweep_steady = point_steadiness(cfg, "sweep", sweep_runtime)
    return (probe_runtime == sweep_runtime and sweep_steady is not None
            and point_steadiness(cfg, "probe", probe_runtime) == sweep_steady)


def run_sweep(cfg: Campaign, plan: dict[str, list[int]] | None = None, *, progress: bool = True) -> pd.DataFrame:
    """Run the fine sweep (every workload x thread count) and return its rows.

    Completed points are stored one by one; a rerun reuses them.
    """
    plan = plan or plan_campaign_sweep(cfg)
    with open_campaign(cfg) as wb:
        _require_checked(wb)
        prepare_targets(wb)
        runtime = wb.cfg.sweep.runtime_s or _point_runtime_s(wb.cfg)
        rows = []
        with Progress("sweep", "sweep", total=plan_points(wb.cfg, plan), detail=sweep_plan_lines(wb.cfg, plan),
                      enabled=progress) as bar:
            batch = get_engine(wb.cfg.engine).measure_sweep(wb, plan, bar)
            if batch is None and wb.cfg.sweep.rate_steps:
                batch = ratecurve.measure_rate_curves(wb, plan, bar, runtime)
            if batch is not None:
                return _finish_sweep(wb, batch)
            for name, threads_list in plan.items():
                workload = wb.cfg.workload(name)
                for threads in threads_list:
                    bar.begin(name, threads)
                    rows.append(_measure(wb, "sweep", workload, threads, runtime))
                    bar.point(rows[-1])
        return _finish_sweep(wb, rows)


def plan_points(cfg: Campaign, plan: dict[str, list[int]]) -> int:
    """The points a sweep plan measures: one per thread count, and with vdbench's ``iorate:
    curve`` or ``sweep.plan: rate-curve`` one more per curve step (each thread count runs at full
    speed, then at each step; ``sweep.stop_ms`` may end a curve sooner)."""
    return sum(len(v) for v in plan.values()) * get_engine(cfg.engine).points_per_count(cfg)


def _finish_sweep(wb: Workbench, rows: list[dict[str, Any]]) -> pd.DataFrame:
    wb.store.write_points_table(wb.cfg.measurement_hash())
    return pd.DataFrame(rows)


def load_results(cfg: Campaign, phase: str = "sweep") -> pd.DataFrame:
    """Stored rows of ``phase`` measured with this campaign's current measurement settings.

    Points measured with other settings (another block size, target or fio option) stay on
    disk but are never mixed in; of repeated measurements of a point the latest is used.
    """
    return CampaignStore(cfg.resolved().results_path()).current_points(cfg.resolved().measurement_hash(), phase)


def _no_sweep(cfg: Campaign) -> AnalysisError:
    return AnalysisError(f"no sweep results for {cfg.campaign} in {cfg.results_path()}: run the sweep (03) first")


def load_comparison(cfg: Campaign) -> pd.DataFrame:
    """The sweep points of this campaign and of every ``report.compare`` campaign, with a
    ``config`` column holding each campaign's label (this campaign, the baseline, first).

    Each other campaign's points are those of the parameters in its ``manifest.json`` (its
    latest environment check), so points it measured with older settings are not mixed in.

    Raises:
        AnalysisError: a campaign has no results or no sweep points, naming it and its directory.
    """
    cfg = cfg.resolved()
    own = load_results(cfg, "sweep")
    if own.empty:
        raise _no_sweep(cfg)
    frames = [own.assign(config=cfg.report.label or cfg.campaign)]
    for i, other in enumerate(cfg.report.compare):
        root = _compared_root(cfg, other)
        key = f"report.compare[{i}] ({other.campaign})"
        if not (root / "manifest.json").is_file():
            raise AnalysisError(f"{key}: no campaign results in {root} (no manifest.json): run that campaign's "
                                f"phases first, or fix results_dir")
        store = CampaignStore(root)
        try:
            manifest = store.read_json("manifest.json")
            measurement = campaign_from_manifest(manifest, str(root / "manifest.json")).resolved().measurement_hash()
        except (FlashpocError, KeyError, ValueError) as error:
            raise AnalysisError(f"{key}: unreadable manifest.json in {root}: {error}") from None
        points = store.current_points(measurement, "sweep")
        if points.empty:
            raise AnalysisError(f"{key}: no sweep points in {root} for its current parameters: run its sweep (03)")
        frames.append(points.assign(config=other.label or other.campaign))
    return pd.concat(frames, ignore_index=True)


def _compared_root(cfg: Campaign, other) -> Path:
    """The results directory of a ``report.compare`` campaign."""
    from .params import resolve_path

    return (resolve_path(other.results_dir) if other.results_dir else cfg.results_path().parent) / other.campaign


def campaign_roots(cfg: Campaign) -> dict[str, Path]:
    """The results directory of the report's campaign and of each ``report.compare`` campaign,
    by its configuration label (the ``config`` of compared points); ``cfg`` resolved."""
    roots = {cfg.report.label or cfg.campaign: cfg.results_path()}
    roots.update({other.label or other.campaign: _compared_root(cfg, other) for other in cfg.report.compare})
    return roots


def load_point_details(cfg: Campaign, detail: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The interval time series and latency histograms of the ``detail`` points.

    Args:
        cfg: the report's campaign (its ``report.compare`` campaigns are read too).
        detail: points to load, with ``point_id``, ``workload``, ``threads`` (and ``config``
            when campaigns are compared), e.g. from :func:`flashpoc.summary.detail_points`.

    Returns:
        ``(intervals, histogram)``: the rows of the points' ``intervals.csv`` and
        ``histogram.csv`` (see :mod:`flashpoc.store`) with the detail columns [config,]
        workload and threads added; empty frames for points without them (SLOB keeps no
        histogram, fio with ``interval_s: 0`` no time series).
    """
    cfg = cfg.resolved()
    roots = campaign_roots(cfg)
    keys = [c for c in ("config", "workload", "threads") if c in detail]
    tables = {INTERVALS_FILE: [], HISTOGRAM_FILE: []}
    groups = detail.groupby("config", sort=False) if "config" in detail else [(None, detail)]
    for config, points in groups:
        store = CampaignStore(roots[config] if config is not None else cfg.results_path())
        ids = list(points["point_id"])
        for name, frames in tables.items():
            frame = store.load_point_tables("sweep", name, ids)
            if not frame.empty:
                frames.append(frame.merge(points[["point_id", *keys]], on="point_id"))
    return tuple(pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
                 for frames in tables.values())


# -- texts and tables for the notebooks ------------------------------------------------
SWEEP_COLUMNS = ["workload", "threads", "curve_pct", "iorate_requested", "outstanding_ios", "iops", "read_iops",
                 "write_iops", "bw_mibps",
                 "lat_mean_ms", "clat_p99_ms", "clat_p99_9_ms", "redo_write_lat_ms", "dbwr_write_lat_ms",
                 "db_file_sequential_read_under_1ms_pct", "db_cpu_s_per_s", "host_cpu_busy_pct", "host_cpu_user_pct",
                 "host_cpu_iowait_pct", "littles_law_ok", "reused"]


def probe_table(probe: dict[str, Any]) -> pd.DataFrame:
    """The probe's points as a table (threads, outstanding I/Os, IOPS, latency ms, ...)."""
    frame = pd.DataFrame(probe["points"]).drop(columns=["point_id", "hosts", "per_host"], errors="ignore")
    return _rounded(frame.sort_values(["threads", "repeat"]).reset_index(drop=True))


def probe_hosts_table(probe: dict[str, Any]) -> pd.DataFrame:
    """Each load host's IOPS, share (%), mean latency (ms) and CPU busy (%) at every probe
    point by threads, each point's total (``(all hosts)``) after its hosts; then the plateau
    point on fewer hosts, if measured."""
    rows = sorted(({**p, "workload": probe["workload"]} for p in probe["points"]), key=lambda p: p["threads"])
    frame = pd.DataFrame(hostlimit.per_host_rows(rows))
    scaling = probe.get("host_scaling") or []
    if scaling:
        frame = pd.concat([frame, pd.DataFrame([{"workload": probe["workload"], "threads": r["threads"],
                                                 "host": f"{r['n_hosts']} of the hosts ({r['hosts']})",
                                                 "iops": r["iops"], "lat_mean_ms": r["lat_mean_ms"]}
                                                for r in scaling])], ignore_index=True)
    return _rounded(frame)


def sweep_table(rows: pd.DataFrame) -> pd.DataFrame:
    """The sweep rows to show: the key columns the rows have values in (vdbench has no
    percentiles, fio no curve steps), rounded (IOPS to 1, ms to 0.001)."""
    return _rounded(rows[[c for c in SWEEP_COLUMNS if c in rows and rows[c].notna().any()]])


def _rounded(frame: pd.DataFrame) -> pd.DataFrame:
    digits = {c: 0 if c.endswith("iops") else 3 if c.endswith("_ms") else 1
              for c in frame.columns if c.endswith(("iops", "_ms", "_pct", "_mibps"))}
    return frame.round(digits)


def probe_text(probe: dict[str, Any]) -> str:
    """Markdown: the probe's answer (:func:`probe_answer_text`), the fit's own account of it,
    what the probe cost, the POC guide's neighbour rule, the follow-up sweep and the hosts-or-array
    verdict."""
    sat = probe["saturation"]
    cost = (f"{probe['runs']} runs, {probe['device_time_s']:g} s of device time "
            f"({probe['strategy']} strategy, workload {probe['workload']})")
    if any(p.get("measured_s") is not None for p in probe.get("points") or []):
        cost += "; each point ended once its IOPS were steady"
    if probe.get("host_scaling"):
        cost += f", then {len(probe['host_scaling'])} runs on fewer hosts"
    limit = ["", hostlimit.host_limit_text(probe["host_limit"])] if probe.get("host_limit") else []
    first, _, rest = probe_answer_text(probe).partition(". ")
    lines = [f"**{first}.** {rest}".rstrip() if rest else f"**{first}**", ""]
    if sat.get("threads"):
        lines += [f"Fit: {sat.get('reason', '')}", ""]
    lines.append(f"Probe: {cost}. The POC guide's neighbour rule (first point after which no later point gains "
                 f"more than {probe['gain_pct']:g}%) " + (f"says {sat['rule_threads']} threads."
                                                          if sat.get("rule_threads") else "finds no such point."))
    if probe.get("followup_sweep"):
        f = probe["followup_sweep"]
        lines += ["", f"Follow-up sweep: threads {f['forthreads']} ({f['points']} points per workload)."]
    return "\n".join(lines + limit)


def _sweep_plan_summary(cfg: Campaign, plan: dict[str, list[int]]) -> tuple[str, str | None]:
    """The points and estimated duration of a sweep plan, and why it has these thread counts
    (None unless the plan is the campaign's own, :func:`plan_campaign_sweep`)."""
    engine = get_engine(cfg.engine)
    runtime = engine.point_seconds(cfg, cfg.sweep.runtime_s or engine.point_runtime_s(cfg))
    total = plan_points(cfg, plan)
    seconds = total * runtime
    duration = f"{seconds / 60:.1f} min" if seconds >= 120 else f"{seconds} s"
    head = f"{total} points, about {duration} of I/O ({runtime} s per point)"
    try:
        top, source = sweep_top(cfg)
    except (AnalysisError, StoreError):
        return head, None
    threads, s = sweep_threads(cfg, top), cfg.sweep
    if any(planned != threads for planned in plan.values()):
        return head, None
    why = plan_note(threads, top, plan=s.plan, step=s.step, points=s.points, extend_pct=s.extend_pct)
    return head, f"up to {threads_text(top)} ({source}); {why}"


def sweep_plan_lines(cfg: Campaign, plan: dict[str, list[int]]) -> list[str]:
    """The sweep plan in lines: points, estimated duration, why these thread counts, and each
    workload's thread counts."""
    head, why = _sweep_plan_summary(cfg, plan)
    return [head, *([why] if why else []), *(f"{name}: threads {format_forthreads(t)}" for name, t in plan.items())]


def sweep_plan_text(cfg: Campaign, plan: dict[str, list[int]]) -> str:
    """A Markdown summary of the sweep plan: points, estimated duration, why these thread counts,
    and each workload's thread counts."""
    head, why = _sweep_plan_summary(cfg, plan)
    lines = [f"**Sweep plan**: {head}." + (f" {why[0].upper()}{why[1:]}." if why else ""), ""]
    return "\n".join(lines + [f"- `{name}`: threads {format_forthreads(t)}" for name, t in plan.items()])


@dataclass
class Report:
    """What the report phase shows and wrote.

    Attributes:
        headline: Markdown: the campaign and its key results per workload (:func:`flashpoc.document.headline`).
        summary: one row per workload (and configuration) (max IOPS, IOPS at SLO, knee,
            percentiles, CPU).
        points: every sweep point used (with a ``config`` column when campaigns are compared).
        knees: the knee per workload (and configuration).
        charts: name -> altair chart.
        files: name -> path of every file written under report/.
        comparison: :func:`flashpoc.compare.comparison_table` (empty without ``report.compare``).
        comparison_notes: what was not compared, and why.
        slo_ms: the latency SLO (ms) of the report.
        detail: the point of each curve shown in detail (:func:`flashpoc.summary.detail_points`).
        distribution: latency percentiles and shares under 512 us/1/2/4 ms at the detail points.
        steadiness: every point's steady-state verdict (:func:`flashpoc.summary.steadiness_table`).
        cfg: the campaign, to load the time series and histogram of other points on demand.
        hosts: each load host's IOPS, share, latency and CPU at each workload's highest-IOPS
            point run on several hosts (:func:`flashpoc.hostlimit.busiest_points`).
        host_limit: the probe's verdict on hosts or array (:func:`flashpoc.hostlimit.host_limit`).
        measured: every point of the report, vdbench's ``iorate=curve`` steps included.
        domain: the colour domain every chart shares (:func:`flashpoc.chart.series_domain`).
        sections: the report as a document (:func:`flashpoc.document.compose`): what report.html
            prints and :meth:`show` displays, in the same order.
        context: what the campaign recorded besides its points (:class:`flashpoc.document.Context`).
    """

    headline: str
    summary: pd.DataFrame
    points: pd.DataFrame
    knees: pd.DataFrame
    charts: dict[str, Any]
    files: dict[str, Path]
    comparison: pd.DataFrame = field(default_factory=pd.DataFrame)
    comparison_notes: list[str] = field(default_factory=list)
    slo_ms: float = 1.0
    detail: pd.DataFrame = field(default_factory=pd.DataFrame)
    distribution: pd.DataFrame = field(default_factory=pd.DataFrame)
    steadiness: pd.DataFrame = field(default_factory=pd.DataFrame)
    cfg: Campaign | None = None
    hosts: pd.DataFrame = field(default_factory=pd.DataFrame)
    host_limit: dict[str, Any] | None = None
    measured: pd.DataFrame = field(default_factory=pd.DataFrame)
    domain: list[str] = field(default_factory=list)
    sections: list[Any] = field(default_factory=list)
    context: Any = None

    def show(self, key: str) -> None:
        """Display the sections of ``key`` (summary, conditions, method, comparison, results,
        appendix) in the notebook as report.html prints them: headings, text, tables, charts."""
        from IPython.display import Markdown, display

        known = list(dict.fromkeys(s.key for s in self.sections))
        if key not in known:
            raise AnalysisError(f"report section {key!r}: this report has {', '.join(known)}")
        for section in (s for s in self.sections if s.key == key):
            display(Markdown(f"## {section.heading}"))
            for item in section.items:
                display(Markdown(item) if isinstance(item, str) else item)

    @property
    def hosts_text(self) -> str:
        """Markdown: what the load hosts table shows, and the probe's verdict on hosts or array."""
        return hosts_text(self.hosts, self.host_limit)

    def point_details(self, detail: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
        """The interval series and latency histograms of ``detail`` points (see :func:`load_point_details`)."""
        if self.cfg is None:
            return pd.DataFrame(), pd.DataFrame()
        return load_point_details(self.cfg, detail)

    @property
    def steadiness_text(self) -> str:
        """Markdown: how many points had steady intervals, which did not, and the detail points."""
        from .summary import steadiness_text

        return steadiness_text(self.steadiness, self.detail)

    @property
    def configs(self) -> list[str]:
        """The compared configurations, the baseline first ([] for a single campaign)."""
        from .compare import configs

        return configs(self.points)

    @property
    def comparison_text(self) -> str:
        """Markdown: the deltas against the baseline and what was not compared."""
        from .compare import comparison_text

        if not self.configs:
            return ("(one campaign: list other campaigns under `report: compare:` to compare configurations "
                    "at equal latency and equal IOPS)")
        return comparison_text(self.comparison, self.comparison_notes) or "(nothing comparable)"

    @property
    def comparison_display(self):
        """The comparison to read (:func:`flashpoc.compare.comparison_display`): the baseline's
        value, each configuration's and its change, per workload and measure."""
        from .compare import comparison_display

        return comparison_display(self.comparison)

    def chart(self, name: str):
        """The chart called ``name``, or a Markdown note saying why there is none."""
        from IPython.display import Markdown

        from .summary import distribution_text

        why = distribution_text(self.detail) if not self.detail.empty else ""  # vdbench: what it has instead
        notes = {"latency_percentiles": "(no latency percentiles: the engine does not report them)"
                                        + (f"\n\n{why}" if why else ""),
                 "interval_series": "(no interval time series: fio ran without interval logs (fio.interval_s: 0), "
                                    "or SLOB runs left no iostat.out with timestamps)",
                 "latency_histogram": "(no latency histogram: fio's JSON+ output and vdbench's histogram.html have one; "
                                      "for SLOB see the read latency distribution from AWR below)",
                 "probe_curve": "(no saturation probe was run)",
                 "write_latency": "(no write latency: no workload wrote)",
                 "oracle_latency": "(no Oracle wait latencies: not a SLOB campaign)",
                 "db_cpu": "(no DB CPU: not a SLOB campaign, or AWR did not report it)",
                 "read_latency_shares": "(no read latency histogram: not a SLOB campaign, or AWR did not "
                                        "report one)",
                 "oracle_write_latency": "(no Oracle write waits: not a SLOB campaign, or AWR listed none)",
                 "db_time_shares": "(no DB CPU share or buffer hit: not a SLOB campaign, or AWR did not report them)",
                 "wait_histogram": "(no read wait histogram at the detail points: not a SLOB campaign, or their "
                                   "AWR reports have none)",
                 "per_host_iops": ""}  # hosts_text says it
        if name in self.charts:
            return self.charts[name]
        return Markdown(notes.get(name, f"(no {name} chart)"))

    @property
    def files_table(self):
        """What each file of the campaign's folder is for, paths relative to it (the appendix's table)."""
        from . import document

        return document.files_table(self, self.context or document.Context())


def build_report(cfg: Campaign, *, write_files: bool = True, pdf: bool = True) -> Report:
    """Build the report of a campaign's sweep and write it under ``results/<campaign>/report``:
    charts (SVG, PNG, Vega-Lite JSON), CSV tables, report.html and, with ``pdf`` and a Chromium
    to print it, report.pdf (without one the report's file table says why there is none).

    Raises:
        AnalysisError: when no sweep point of the current settings is stored.
    """
    from . import chart, compare, document, report, summary

    cfg = cfg.resolved()
    if not get_engine(cfg.engine).sweeps:  # a campaign of a DBA's job alone: the report of its runs
        return get_engine(cfg.engine).build_report(cfg, write_files=write_files, pdf=pdf)
    points = load_comparison(cfg) if cfg.report.compare else load_results(cfg, "sweep")
    if points.empty:
        raise _no_sweep(cfg)
    order = ["config", "workload", "threads"] if "config" in points else ["workload", "threads"]
    measured = points.sort_values(order, key=_baseline_first(points, cfg.workload_names), kind="stable").reset_index(drop=True)
    # vdbench's iorate=curve steps are a response-time curve at each thread count: charted apart;
    # the thread curves (knee, SLO, detail) are the full-speed runs
    steps = measured["curve_pct"].notna() if "curve_pct" in measured else pd.Series(False, index=measured.index)
    points = measured[~steps].reset_index(drop=True)
    table = summary.summary_table(points, cfg.slo_ms)
    knee_frame = summary.knees(points)
    configs = compare.configs(points)
    domain = chart.series_domain(points, [] if configs else cfg.workload_names)
    comparison, notes = pd.DataFrame(columns=compare.COMPARISON_COLUMNS), []
    if configs:
        comparison = compare.comparison_table(points, slo_ms=cfg.slo_ms, latencies_ms=cfg.report.latencies_ms,
                                              iops_levels=cfg.report.iops_levels, threads=cfg.report.equal_threads)
        notes = compare.comparability(points)[1]
    charts = {"hockey_stick": chart.hockey_stick(points, knees=knee_frame, slo_ms=cfg.slo_ms, color_domain=domain),
              "load_vs_threads": chart.load_vs_threads(points, color_domain=domain)}
    if steps.any():
        curved = measured.set_index(["workload", "threads"]).index.isin(
            measured[steps].set_index(["workload", "threads"]).index)
        charts["rate_curve"] = chart.rate_curve(measured[curved], color_domain=domain,
                                                title=get_engine(cfg.engine).rate_curve_title)
    if compare.has_writes(points):
        charts["write_latency"] = chart.write_latency(points, color_domain=domain)
    percentiles = [c for c in ("clat_p50_ms", "clat_p99_ms", "clat_p99_9_ms") if c in points]
    if percentiles and points[percentiles].notna().any().any():  # fio has them, vdbench does not
        charts["latency_percentiles"] = chart.latency_percentiles(points, color_domain=domain)
    if get_engine(cfg.engine).measures_oracle:
        charts["oracle_latency"] = chart.oracle_latencies(points, color_domain=domain)
        charts["host_cpu"] = chart.host_cpu(points, metrics=chart.ORACLE_HOST_CPU, color_domain=domain,
                                            title="DB host CPU vs threads per schema (AWR Host CPU)")
        if "db_cpu_s_per_s" in points and points["db_cpu_s_per_s"].notna().any():
            charts["db_cpu"] = chart.db_cpu(points, color_domain=domain)
        shares = summary.read_latency_shares(points)
        if not shares.empty:
            charts["read_latency_shares"] = chart.latency_shares(shares)
    else:
        charts["host_cpu"] = chart.host_cpu(points, color_domain=domain)
    detail = summary.detail_points(points, cfg.slo_ms, cfg.report.detail_threads)
    if get_engine(cfg.engine).measures_oracle:
        from .oracle_report import oracle_charts

        charts.update(oracle_charts(cfg, points, detail, domain))
    intervals, histogram = load_point_details(cfg, detail)
    if not intervals.empty:
        charts["interval_series"] = chart.interval_series(intervals, detail, color_domain=domain)
    if not histogram.empty:
        charts["latency_histogram"] = chart.latency_histogram(histogram, detail, color_domain=domain)
    steadiness = summary.steadiness_table(points)
    distribution = summary.distribution_table(detail)
    per_host = hostlimit.per_host_table(points)
    if not per_host.empty:
        charts["per_host_iops"] = chart.per_host_iops(per_host)
    hosts = _rounded(hostlimit.busiest_points(per_host))
    store = CampaignStore(cfg.results_path())
    limit = None
    probe = store.current_probe(cfg.measurement_hash())  # a probe of other settings is not this array's
    if probe is not None:
        probe_rows = probe_table(probe)
        charts["probe_curve"] = chart.probe_curve(probe_rows, probe["saturation"].get("threads"),
                                                  color_domain=None if configs else domain)
        limit = probe.get("host_limit")
    files: dict[str, Path] = {}
    out = store.root / "report"
    if write_files:
        for name, item in charts.items():
            for kind, path in report.save_chart(item, out, name).items():
                files[f"{name}.{kind}"] = path
        files["summary.csv"] = store.write_table("report/summary.csv", table)
        if configs:
            files["comparison.csv"] = store.write_table("report/comparison.csv", comparison)
        files["points.csv"] = store.write_table("report/points.csv",
                                                measured.drop(columns=["per_host"], errors="ignore"))
        files["distribution.csv"] = store.write_table("report/distribution.csv", distribution)
        if not per_host.empty:
            files["per_host.csv"] = store.write_table("report/per_host.csv", _rounded(per_host))
        if not steadiness.empty:
            files["steadiness.csv"] = store.write_table("report/steadiness.csv", steadiness)
        files["report.html"] = out / "report.html"
        if pdf:
            files["report.pdf"] = out / "report.pdf"
    context = document.Context(manifest=_read_or_empty(store, "manifest.json"), check=_check_table(store),
                               probe=probe, root=store.root)
    result = Report("", table, points, knee_frame, charts, files, comparison, notes, cfg.slo_ms,
                    detail, distribution, steadiness, cfg, hosts, limit, measured, domain, [], context)
    result.sections = document.compose(result, context)
    result.headline = document.headline(result)
    if write_files:
        sections = [(s.heading, s.items) for s in result.sections]
        report.write_html_report(files["report.html"], f"Storage performance report: {cfg.campaign}", sections,
                                 subtitle=document.title_lines(result, context))
        if pdf:
            try:
                report.print_pdf(files["report.html"], files["report.pdf"])
            except ReportError as error:
                del files["report.pdf"]
                context.pdf_note = str(error).removeprefix("no PDF: ")
                result.sections = document.compose(result, context)  # the files table says why there is none
                sections = [(s.heading, s.items) for s in result.sections]
                report.write_html_report(files["report.html"], f"Storage performance report: {cfg.campaign}",
                                         sections, subtitle=document.title_lines(result, context))
    return result


def _read_or_empty(store: CampaignStore, name: str) -> dict[str, Any]:
    """``name`` of the campaign's folder as JSON, or {} when it is missing or broken (the report
    then says "not recorded" where it would quote it)."""
    try:
        found = store.read_json(name)
    except StoreError:
        return {}
    return found if isinstance(found, dict) else {}


def _check_table(store: CampaignStore) -> pd.DataFrame:
    """check.csv, or an empty table when the check left none."""
    path = store.root / "check.csv"
    try:
        return pd.read_csv(path) if path.is_file() else pd.DataFrame()
    except (OSError, ValueError):
        return pd.DataFrame()


def hosts_text(hosts: pd.DataFrame, limit: dict[str, Any] | None) -> str:
    """Markdown: what the load hosts table (:func:`flashpoc.hostlimit.busiest_points`) shows,
    and the probe's verdict on hosts or array (``limit``, from probe.json)."""
    if hosts.empty:
        text = ("(one load host per point: with several hosts this section shows each host's IOPS, so that "
                "a host bottleneck is visible)")
    else:
        text = ("Each load host's IOPS, its share of the total, its mean latency and CPU at each workload's "
                "highest-IOPS point; the chart has every thread count. ")
        if "outstanding_ios" in hosts and hosts["outstanding_ios"].notna().any():
            text += ("vdbench's threads are per SD and spread over the hosts' JVMs: outstanding_ios is the I/Os "
                     "it gave each host, and hosts given the same should have about equal shares: a host well "
                     "below the others limits itself.")
        else:
            text += ("The same threads run on every host, so the shares should be about equal: a host well below "
                     "the others limits itself.")
    if limit:
        text += "\n\nSaturation probe: " + hostlimit.host_limit_text(limit)
    return text


def _baseline_first(points: pd.DataFrame, workloads: list[str] = ()):
    """Sort key: configurations in their given order (the baseline first), workloads in the
    order of the parameters (``workloads``; others after them, by name), other columns as they are."""
    from .compare import configs

    rank = {name: i for i, name in enumerate(configs(points))}
    order = {name: i for i, name in enumerate(workloads)}

    def key(column: pd.Series) -> pd.Series:
        if column.name == "config":
            return column.map(rank)
        if column.name == "workload" and order:
            return column.map(lambda w: (order.get(w, len(order)), str(w))).map(lambda t: f"{t[0]:06d}{t[1]}")
        return column
    return key

"""Phase 3, the thread sweep: how far it goes and at which thread counts (its plan, from
the probe's answer), measuring it (:func:`run_sweep`), and its plan and rows as text and tables
for the notebooks.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from flashpoc.campaign import extend, ratecurve
from flashpoc.core.errors import AnalysisError
from flashpoc.params import Campaign
from flashpoc.analysis.sweep_plan import plan_note, plan_sweep, threads_list_text
from flashpoc.campaign.display import QuietProgress
from flashpoc.core.tables import threads_text
from flashpoc.campaign.session import _require_checked, open_campaign, prepare_targets
from flashpoc.core.records import Point, PointSpec
from flashpoc.engines import loop
from flashpoc.engines.loop import point_spec, point_steadiness, probe_runtime_s, sweep_runtime_s
from flashpoc.hosts.workbench import Workbench
from flashpoc.core.store import CampaignStore, StoreError


# -- phase 3: thread sweep --------------------------------------------------------------
def sweep_threads(cfg: Campaign, max_threads: int) -> list[int]:
    """The thread counts of the fine sweep up to ``max_threads`` (the sweep settings' plan)."""
    s = cfg.sweep
    return plan_sweep(max_threads, plan=s.plan, step=s.step, points=s.points, extend_pct=s.extend_pct)


def _levels(probe: dict[str, Any]) -> dict[int, float]:
    """Mean IOPS (the probe's ``rate``: HammerDB's NOPM) per thread count of the probe's points (repeats averaged)."""
    sums: dict[int, list[float]] = {}
    rate = probe.get("rate", "iops")
    for p in probe.get("points") or []:
        if p.get(rate) is not None:
            sums.setdefault(int(p["threads"]), []).append(float(p[rate]))
    return {t: sum(v) / len(v) for t, v in sorted(sums.items())}


def sweep_reach(cfg: Campaign, probe: dict[str, Any] | None) -> tuple[int, str]:
    """How far the sweep goes, and why: ``sweep.max_threads`` when set, else the probe's answer (the
    higher of where the rate stops rising and where it reaches ``REACH_SHARE`` of the most measured),
    else (no saturation found: never a dead end) the highest thread count the probe measured, or
    the peak when IOPS fell past it.

    Raises:
        AnalysisError: no ``sweep.max_threads`` and no probe; or no answer with ``probe.strict``.
    """
    if cfg.sweep.max_threads is not None:
        return cfg.sweep.max_threads, "sweep.max_threads"
    if probe is None:
        raise AnalysisError(f"no probe result in {cfg.resolved().results_path()}: run the saturation probe (02) "
                            "first, or set sweep.max_threads")
    sat = probe["saturation"]
    if sat.get("threads"):  # the range from where the rate stops rising to where it reaches REACH_SHARE of the most
        return max(int(sat["threads"]), int(sat.get("reach_threads") or 0)), "answer"
    if cfg.probe.strict:
        raise AnalysisError(f"probe.strict: the probe found no saturation ({sat.get('reason')}); extend the probe "
                            "or set sweep.max_threads")
    # counts past a fall in IOPS (an overload past the peak) are no part of the curve to sweep
    return int(sat.get("fall_threads") or max(_levels(probe) or {cfg.probe.max_threads: 0})), "probed range"


def _stored_probe(cfg: Campaign, store: CampaignStore | None = None) -> dict[str, Any] | None:
    """probe.json of the campaign (in ``store``, its results, when open), or None (none stored, or not
    needed: ``sweep.max_threads``)."""
    if cfg.sweep.max_threads is not None:
        return None
    store = store or CampaignStore(cfg.resolved().results_path())
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


def plan_campaign_sweep(cfg: Campaign, store: CampaignStore | None = None) -> dict[str, list[int]]:
    """Thread counts per workload up to :func:`sweep_reach` (``sweep.max_threads``, the probe's
    answer or the probed range). The probe's workload also gets the probe's thread counts up
    there when its points are the sweep's (fio points of the same length and way of ending,
    :func:`measure_point` reuses them): free points on its curve. ``store``: the campaign's results,
    when it is open.

    Raises:
        AnalysisError: see :func:`sweep_reach`.
    """
    probe = _stored_probe(cfg, store)
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
    probe_runtime = probe_runtime_s(cfg)
    sweep_runtime = sweep_runtime_s(cfg)
    sweep_steady = point_steadiness(cfg, "sweep", sweep_runtime)
    return (probe_runtime == sweep_runtime and sweep_steady is not None
            and point_steadiness(cfg, "probe", probe_runtime) == sweep_steady)


def run_sweep(cfg: Campaign, plan: dict[str, list[int]] | None = None, *, progress: bool = True,
              display: Any = QuietProgress) -> pd.DataFrame:
    """Run the fine sweep (every workload x thread count) and return its rows.

    Completed points are stored one by one; a rerun reuses them. ``display`` makes the live progress
    the caller shows (:class:`flashpoc.present.progress.Progress` from the phases' face; ``progress``:
    shown in the notebook); by default none.
    """
    with open_campaign(cfg) as wb:
        plan = plan or plan_campaign_sweep(wb.cfg, wb.store)
        _require_checked(wb)
        prepare_targets(wb)
        runtime = sweep_runtime_s(wb.cfg)
        engine = wb.engine
        with display("sweep", "sweep", total=plan_points(wb.cfg, plan), detail=sweep_plan_lines(wb.cfg, plan),
                      enabled=progress, engine=engine, colors=wb.cfg.workload_names) as bar:
            if engine.phase_rate_steps(wb.cfg):
                return _finish_sweep(wb, ratecurve.measure_rate_curves(wb, plan, bar, runtime))
            specs = [point_spec(wb.cfg, "sweep", wb.cfg.workload(name), threads, runtime)
                     for name, threads_list in plan.items() for threads in threads_list]
            return _finish_sweep(wb, loop.rows_of(measure_repeats(wb, specs, wb.cfg.sweep.repeats, bar)))


def measure_repeats(wb: Workbench, specs: list[PointSpec], repeats: int, bar: Any = None
                    ) -> list[Point]:
    """The records of ``specs`` each measured ``repeats`` times, interleaved: repeat r of every
    spec before repeat r+1 (an engine that runs a thread list per invocation, vdbench, runs the
    whole list once per repeat). Each round is one :func:`flashpoc.campaign.loop.measure`, so a stored
    repeat is reused and only the missing ones are measured, also after a kill."""
    return [point for r in range(repeats) for point in loop.measure(wb, [s.again(r) for s in specs], bar)]


def plan_points(cfg: Campaign, plan: dict[str, list[int]]) -> int:
    """The points a sweep plan measures: one per thread count, and with vdbench's ``iorate:
    curve`` or ``sweep.plan: rate-curve`` one more per curve step (each thread count runs at full
    speed, then at each step; ``sweep.stop_ms`` may end a curve sooner)."""
    return sum(len(v) for v in plan.values()) * cfg.engine_object.points_per_count(cfg) * _rounds(cfg)


def _rounds(cfg: Campaign) -> int:
    """How many times the sweep measures each point: ``sweep.repeats``, once on a rate-curve plan
    the engine does not run itself (its curve steps are measured once)."""
    return 1 if cfg.engine_object.phase_rate_steps(cfg) else cfg.sweep.repeats


def _finish_sweep(wb: Workbench, rows: list[dict[str, Any]]) -> pd.DataFrame:
    rows = extend.extend_rows(wb, "sweep", rows)  # sweep.extend_until_steady: unsteady points measured again longer
    wb.store.write_points_table(wb.cfg.measurement_hash())
    return pd.DataFrame(rows)


# -- texts and tables for the notebooks ------------------------------------------------
SWEEP_COLUMNS = ["workload", "threads", "repeat", "curve_pct", "iorate_requested", "outstanding_ios", "iops", "read_iops",
                 "write_iops", "bw_mibps",
                 "lat_mean_ms", "clat_p99_ms", "clat_p99_9_ms", "redo_write_lat_ms", "dbwr_write_lat_ms",
                 "db_file_sequential_read_under_1ms_pct", "db_cpu_s_per_s", "host_cpu_busy_pct", "host_cpu_user_pct",
                 "host_cpu_iowait_pct", "littles_law_ok", "reused"]


def sweep_table(rows: pd.DataFrame) -> pd.DataFrame:
    """The sweep rows to show: the key columns the rows have values in (vdbench has no
    percentiles, fio no curve steps; the repeat only with ``sweep.repeats``), as measured: a
    notebook shows them with :func:`flashpoc.present.summary.frame_display`, which rounds each once."""
    shown = [c for c in SWEEP_COLUMNS if c in rows and rows[c].notna().any()
             and (c != "repeat" or (rows[c].fillna(0) > 0).any())]
    return rows[shown]


def _sweep_plan_summary(cfg: Campaign, plan: dict[str, list[int]]) -> tuple[str, str | None]:
    """The points and estimated duration of a sweep plan, and why it has these thread counts
    (None unless the plan is the campaign's own, :func:`plan_campaign_sweep`)."""
    engine = cfg.engine_object
    runtime = engine.point_seconds(cfg, sweep_runtime_s(cfg))
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
    return head, f"up to {threads_text(top, engine.threads_word)} ({source}); {why}"


def sweep_plan_lines(cfg: Campaign, plan: dict[str, list[int]]) -> list[str]:
    """The sweep plan in lines: points, estimated duration, why these thread counts, and each
    workload's thread counts."""
    head, why = _sweep_plan_summary(cfg, plan)
    return [head, *([why] if why else []), *(f"{name}: threads {threads_list_text(t)}" for name, t in plan.items())]


def sweep_plan_text(cfg: Campaign, plan: dict[str, list[int]]) -> str:
    """A Markdown summary of the sweep plan: points, estimated duration, why these thread counts,
    and each workload's thread counts."""
    head, why = _sweep_plan_summary(cfg, plan)
    lines = [f"**Sweep plan**: {head}." + (f" {why[0].upper()}{why[1:]}." if why else ""), ""]
    return "\n".join(lines + [f"- `{name}`: threads {threads_list_text(t)}" for name, t in plan.items()])

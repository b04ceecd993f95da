"""HammerDB's engine object: a point is one TPROC-C run at N virtual users (:mod:`.measure`), a
timed run or a fixed work (``driver: test``, :mod:`.fixedwork`); the probe and the sweep vary the
virtual users as other engines vary threads."""

from __future__ import annotations

import math
from typing import Any

from flashpoc.analysis.sweep_plan import GUIDE_POINTS, plan_sweep
from flashpoc.engines.base import Engine, LazyModule
from flashpoc.engines.hammerdb.settings import MAX_VIRTUAL_USERS, HammerdbSettings, HammerdbWorkload

measure = LazyModule(f"{__package__}.measure")

#: HammerDB's one workload
TPROCC = HammerdbWorkload()


def most_virtual_users(cfg) -> tuple[int, str]:
    """The most virtual users a point of ``cfg`` may run on a load host, and the key that sets it:
    the probe's ``max_threads``, or the top of the sweep (:func:`flashpoc.analysis.sweep_plan.plan_sweep`) up
    to ``sweep.max_threads``, else up to any answer the probe can give (at most its ``max_threads``)."""
    s, reach = cfg.sweep, cfg.sweep.max_threads or cfg.probe.max_threads
    if reach > MAX_VIRTUAL_USERS:
        return reach, "sweep.max_threads" if s.max_threads else "probe.max_threads"

    def top(answer: int) -> int:
        return plan_sweep(answer, plan=s.plan, step=s.step, points=s.points, extend_pct=s.extend_pct)[-1]

    # a top is below answer x (1 + extend_pct) + step: only the answers this close to the reach can pass its top
    step = s.step or max(1, round(reach / GUIDE_POINTS))
    answers = [reach] if s.max_threads else range(max(1, reach - math.ceil(step / (1 + s.extend_pct / 100))),
                                                   reach + 1)
    most = max(top(answer) for answer in answers)
    if most > cfg.probe.max_threads:
        return most, "sweep.extend_pct" if s.extend_pct else "sweep.max_threads"
    return cfg.probe.max_threads, "probe.max_threads"


class HammerdbEngine(Engine):
    name = "hammerdb"
    settings_model = HammerdbSettings
    manifest_exclude = frozenset({"workloads"})  # one workload, TPROC-C
    #: what the threads column counts, in the report's words
    threads_word = "virtual users"
    rate_column, rate_word = "nopm", "NOPM"  # the probe finds where new orders per minute stop rising
    latency_column = "neword_p95_ms"
    parse_table_columns = [("virtual_users", "Virtual users"), ("completion_s", "Completion (s)"), ("nopm", "NOPM"),
                           ("tpm", "TPM"), ("errors", "Errors"),
                           ("neword_p50_ms", "NEWORD p50 (ms)"), ("neword_p95_ms", "NEWORD p95 (ms)"),
                           ("neword_p99_ms", "NEWORD p99 (ms)"), ("payment_p95_ms", "PAYMENT p95 (ms)"),
                           ("intervals", "Counter samples"), ("interval_steady", "Steady")]
    method_note = ("HammerDB: a point is one timed TPROC-C run at N virtual users; NOPM (new orders per minute) and "
                   "the database's TPM are HammerDB's TEST RESULT, response times its time profile's (xtprof).")
    fixed_work_note = ("HammerDB's test driver: a point is one fixed work at N virtual users, its headline the test "
                       "completion time (how long HammerDB's vurun took, every virtual user's every iteration "
                       "done); NOPM and TPM are the new orders and transactions done without error per minute of "
                       "it, as HammerDB printed them (the virtual users' side, not the database's count).")

    def data_elsewhere(self, cfg) -> str:
        """Its data is the TPROC-C schema in the database."""
        return "its data is the database's"

    def check_params(self, cfg, host_names: set[str]) -> None:
        """HammerDB's one workload is TPROC-C: no ``workloads`` key; several load hosts each run
        HammerDB at the point's virtual users (:mod:`.measure`), at most :data:`.settings.MAX_VIRTUAL_USERS`
        (:func:`most_virtual_users`); a point's length is HammerDB's own (whole minutes), never a
        phase's ``runtime_s``."""
        if "workloads" in cfg.model_fields_set:
            raise ValueError("workloads: with engine hammerdb the workload is HammerDB's TPROC-C; leave workloads out")
        for phase in ("probe", "sweep"):
            if getattr(cfg, phase).runtime_s is not None:
                raise ValueError(f"{phase}.runtime_s: a HammerDB point runs hammerdb.rampup_minutes, then "
                                 f"duration_minutes counted (whole minutes); leave {phase}.runtime_s out")
        most, key = most_virtual_users(cfg)
        if most > MAX_VIRTUAL_USERS:
            raise ValueError(f"{key}: a point could run {most:,} virtual users per load host, and a HammerDB run "
                             f"takes at most {MAX_VIRTUAL_USERS:,}")

    def param_warnings(self, cfg) -> list[str]:
        """``build_virtual_users`` without ``build_schema``: no schema is built, so none load it."""
        s = cfg.settings
        if not s.build_schema and s.build_virtual_users != type(s).model_fields["build_virtual_users"].default:
            return ["engine.hammerdb.build_virtual_users: only a schema build uses it, and build_schema is false"]
        return []

    def workloads(self, cfg) -> list:
        return [TPROCC]

    def check_campaign(self, campaign, facts_by_host, connect) -> list:
        """HammerDB, the database and the TPROC-C schema, as each load host sees them; the
        database's storage path (:func:`.storage.storage_rows`)."""
        from flashpoc.engines.hammerdb.check import check_campaign_hosts
        from flashpoc.engines.hammerdb.storage import storage_rows

        seen: dict[str, dict] = {}
        return check_campaign_hosts(campaign, connect, seen) + storage_rows(campaign, seen, connect)

    def database_host(self, campaign):
        """A PostgreSQL at localhost runs on the (first) load host; else the load host at its address."""
        from flashpoc.engines.hammerdb.storage import database_host

        return database_host(campaign)

    def check_versions(self, check) -> dict[str, str]:
        """HammerDB's version per load host as its banner printed it (``v6.0``)."""
        from flashpoc.engines.hammerdb.check import VERSION_ROW

        if check.empty or "check" not in check:
            return {}
        return {str(r.host): str(r.value) for r in check[check["check"] == VERSION_ROW].itertuples()
                if r.value is not None and r.status == "pass"}

    def read_output(self, path) -> tuple[Any, list[dict[str, Any]]]:
        """A timed run's console or logs, a job-store answer, or a run directory (a fixed work's
        too: its console marks the completion time): the whole parse and the point's row."""
        from flashpoc.core.errors import ParameterError
        from flashpoc.engines.hammerdb.fixedwork import fixed_work_files, is_fixed_work
        from flashpoc.engines.hammerdb.metrics import run_metrics
        from flashpoc.engines.hammerdb.parse import read_files

        if not path.exists():
            raise ParameterError(f"cannot read {path}: no such file or directory")
        files = read_files(path)
        if is_fixed_work(files):
            metrics = fixed_work_files(files)
            return {"fixed_work": True, "metrics": metrics}, [metrics]
        whole, metrics, _ = run_metrics(files)
        return whole, [metrics]

    def describe(self, cfg, version: str, points) -> str:
        work = " (fixed work, HammerDB's test driver)" if cfg.settings.fixed_work else ""
        return f"HammerDB {version} TPROC-C{work} on {cfg.settings.database}"

    def point_length_text(self, cfg, runtime: str) -> str:
        s = cfg.settings
        if s.fixed_work:
            return (f"one fixed work per point (HammerDB's test driver): every virtual user {s.iterations} "
                    f"iteration{'s' if s.iterations != 1 else ''} of {s.total_iterations:,} transactions, "
                    f"{s.user_delay_ms} ms user delay, {s.repeat_delay_ms} ms repeat delay; the point lasts as long "
                    "as the work takes (the test completion time).")
        return (f"one timed run per point: {s.rampup_minutes} min rampup, then {s.duration_minutes} min counted "
                "(HammerDB's timed driver).")

    def interval_text(self, cfg, min_intervals: int) -> str:
        if cfg.settings.fixed_work:
            return "none: a fixed work's measure is its completion time (HammerDB's test driver has no timed test)."
        return ("HammerDB's transaction counter (TPM every 10 s); the samples within the timed test make the "
                "steady-state verdict.")

    def own_data_text(self, cfg) -> str:
        s = cfg.settings
        return f"the {s.warehouses}-warehouse TPROC-C schema ({s.database})"

    def report_view(self, cfg, points):
        """An OLTP report: NOPM against virtual users, NEWORD p95 against NOPM (:func:`.report.report_view`)."""
        from flashpoc.engines.hammerdb.report import report_view

        return report_view(cfg, points)

    def point_runtime_s(self, cfg) -> int:
        """Seconds a point measures; for a fixed work an estimate for the time left (its delays)."""
        s = cfg.settings
        if s.fixed_work:
            return max(60, (s.iterations * s.repeat_delay_ms + s.user_delay_ms) // 1000)
        return s.duration_minutes * 60

    def point_seconds(self, cfg, runtime_s: int) -> int:
        return runtime_s + (0 if cfg.settings.fixed_work else cfg.settings.rampup_minutes * 60)

    def probe_latency_column(self, cfg) -> str:
        """NEWORD p95; a fixed work (no time profile) its test completion time."""
        return "completion_s" if cfg.settings.fixed_work else self.latency_column

    def reusable(self, wb, phase: str, key: str, row: dict[str, Any]) -> bool:
        """A stored point stands only with no more error lines than ``max_errors`` allows now
        (:func:`.measure.reusable`)."""
        return measure.reusable(wb, phase, key, row)

    def point_definition(self, wb, spec) -> dict[str, Any]:
        return measure.point_definition(wb.cfg, spec.threads)

    def run_points(self, wb, specs, keys, bar=None):
        """One timed run per point (:func:`.measure.run_point`)."""
        return measure.run_points(wb, specs, keys, bar)

    def first_host(self, wb) -> None:
        """None: no plateau again on fewer hosts (every load host drives the one database)."""
        return None


ENGINE = HammerdbEngine()

"""vdbench's engine object: one invocation measures a list of thread counts (:mod:`.measure`)."""

from __future__ import annotations

import re
from typing import Any

from flashpoc.engines.base import Engine, LazyModule
from flashpoc.engines.vdbench.settings import VdbenchSettings

measure = LazyModule(f"{__package__}.measure")
plan = LazyModule(f"{__package__}.plan")
report = LazyModule(f"{__package__}.report")


class VdbenchEngine(Engine):
    name = "vdbench"
    warm_up_note = "vdbench: the intervals its average leaves out; its histogram counts them"
    rate_curve_title = "vdbench iorate=curve: mean latency at each requested I/O rate"
    settings_model = VdbenchSettings
    parse_table_columns = [("rd", "Run"), ("threads", "Threads"), ("xfersize", "xfersize (bytes)"),
                           ("rdpct", "Read (%)"), ("iops", "IOPS"), ("mb_per_s", "MB/s"), ("resp_ms", "Resp (ms)"),
                           ("read_resp_ms", "Read (ms)"), ("write_resp_ms", "Write (ms)"), ("resp_max_ms", "Max (ms)"),
                           ("queue_depth", "Queue"), ("cpu_sys_user_pct", "CPU (%)")]

    def distribution_note(self, rows: Any) -> str:
        """No percentiles, no bucket bound at 512 us, and the intervals its histogram counts (warm-up
        included) against those its average counts, per point."""
        text = ("vdbench reports no latency percentiles (p50, p99, p99.9), and its response-time histogram has no "
                "bucket bound at 512 us (its buckets end at 0.4, 0.6, 0.8, 1, 2, 4 ms and so on): the shares of "
                "I/Os under 1, 2 and 4 ms are read at its bucket bounds, and none is given under 512 us. vdbench "
                "counts every I/O of a run in its histogram, warm-up included (it cannot leave the warm-up out), "
                "while the point's IOPS and mean latency are its average over the intervals its average line counts "
                "(not shaded; vdbench 5.04.06 counts one interval more than its label says, the last of the warm-up)")
        counted = [f"{r['config'] + ', ' if isinstance(r.get('config'), str) and r['config'] else ''}"
                   f"`{r['workload']}` at {int(r['threads'])} threads: "
                   f"histogram intervals {r['histogram_intervals']}, average {r['avg_intervals']}"
                   for r in rows.to_dict("records") if isinstance(r.get("histogram_intervals"), str)
                   and isinstance(r.get("avg_intervals"), str)]
        return text + (f" ({'; '.join(counted)})." if counted else ".")

    def check_campaign(self, campaign, facts_by_host, connect) -> list:
        """Also vdbench itself: Java, a simulated parmfile, SSH between the hosts."""
        from flashpoc.engines.vdbench.check import check_vdbench

        return super().check_campaign(campaign, facts_by_host, connect) + check_vdbench(campaign, connect=connect)

    def check_params(self, cfg, host_names: set[str]) -> None:
        """A controller among the hosts; block sizes that are whole multiples of ``vdbench.dedupunit``; the
        rate-curve plan sets the rates; every rule of the parmfile on the parameters (:func:`.plan.check_params`)."""
        from flashpoc.params import parse_size

        vd = cfg.settings
        if vd.controller is not None and vd.controller not in host_names:
            raise ValueError(f"vdbench.controller: no host named {vd.controller!r} (hosts: {sorted(host_names)})")
        if vd.dedupunit is not None:
            unit = parse_size(vd.dedupunit)
            for i, workload in enumerate(cfg.workloads):
                if parse_size(workload.bs) % unit:
                    raise ValueError(f"workloads[{i}].bs: {workload.bs} is not a multiple of vdbench.dedupunit "
                                     f"({vd.dedupunit}): vdbench dedups in dedupunit blocks")
        if cfg.sweep.rate_steps and vd.iorate != "max":
            raise ValueError(f"vdbench.iorate: sweep.plan rate-curve runs iorate=curve at sweep.curve_pct itself; "
                             f"leave iorate at max (got {vd.iorate!r})")
        plan.check_params(cfg)

    def param_warnings(self, cfg) -> list[str]:
        """Settings of remote slaves (``controller_address``, ``shell``) given to a campaign without one."""
        defaults = type(cfg.settings).model_fields
        return [f"engine.vdbench.{key}: no host is remote, so vdbench starts every slave on its own machine "
                "without it" for key in ("controller_address", "shell")
                if not plan.remote_hosts(cfg) and getattr(cfg.settings, key) != defaults[key].default]

    def read_output(self, path) -> tuple[Any, list[dict[str, Any]]]:
        """A vdbench output directory."""
        from flashpoc.core.errors import ParameterError
        from flashpoc.engines.vdbench.parse import parse_vdbench_dir

        if not path.is_dir():
            raise ParameterError(f"{path} is not a vdbench output directory")
        rows = parse_vdbench_dir(path)
        return rows, rows

    def check_versions(self, check) -> dict[str, str]:
        """``vdbench -s``'s 'vdbench50406' on the controller in the check table -> '5.04.06'."""
        if check.empty or "check" not in check:
            return {}
        said = check[(check["check"] == "vdbench -s parmfile") & check["detail"].notna()]
        found = {str(r.host): re.fullmatch(r"vdbench(\d)(\d\d)(\d\d)", str(r.detail).strip())
                 for r in said.itertuples()}
        return {host: f"{m[1]}.{m[2]}.{m[3]}" for host, m in found.items() if m}

    def recorded_version(self, check) -> str | None:
        """The versions :meth:`check_versions` finds (for a manifest written before it recorded them)."""
        return " / ".join(sorted(set(self.check_versions(check).values()))) or None

    def point_length_text(self, cfg, runtime: str) -> str:
        warm = plan.warmup_s(cfg)
        said = f"vdbench's own warm-up first (`warmup={warm}`)" if warm else "no warm-up (`warmup=` not set)"
        return f"{runtime}; {said}. A point is one vdbench run (`rd=`) at one thread count."

    def averaged_text(self, cfg, points) -> str:
        """Which intervals vdbench's average counted, as its output shows (:func:`.report.averaged_text`)."""
        return report.averaged_text(points, (plan.warmup_s(cfg) or 0) // cfg.settings.interval_s)

    def point_tables(self, points) -> list:
        """vdbench's totals per point (:func:`.report.totals_display`)."""
        return [report.totals_display(points)]

    def interval_text(self, cfg, min_intervals: int) -> str:
        return (f"vdbench reports every {cfg.settings.interval_s} s (`interval=`); a steady-state verdict needs "
                f"{min_intervals} intervals after the warm-up.")

    def point_runtime_s(self, cfg) -> int:
        return cfg.settings.elapsed_s

    def point_seconds(self, cfg, runtime_s: int) -> int:
        return runtime_s + (plan.warmup_s(cfg) or 0)

    def outstanding_per_thread(self, cfg) -> int:
        """vdbench's threads are per SD, spread over its hosts."""
        return max(1, measure.outstanding_ios(1, cfg) // len(cfg.hosts))

    def create_scratch(self, wb, host_params, scratch: list, short: list) -> list[dict[str, Any]]:
        """vdbench fills a scratch file with its own data of the campaign's ``compratio``/``dedupratio``
        once, recorded (:func:`.measure.fill_targets`), and again when those change."""
        unfilled = [t for t in scratch if t in short or measure.fill_record(wb, host_params, t) is None]
        records = measure.fill_targets(wb, host_params, unfilled) if unfilled else {}
        return [{"host": host_params.name, "target": t.name,
                 "action": ("created" if t in short else "filled") if t.name in records else "reused",
                 **({"seconds": records[t.name]["seconds"]} if t.name in records else {})} for t in scratch]

    def fill_data(self, cfg) -> str:
        return plan.data_text(cfg)

    def fill_targets(self, wb, host_params, targets: list, sizes: dict[str, int]) -> dict[str, dict[str, Any]]:
        """One vdbench invocation fills every target of the host (:func:`.measure.fill_targets`):
        each record has the bytes vdbench's SD report of that target counts (``output``), or, without
        SD reports, the whole invocation's and which targets they were written to together (``written_with``)."""
        records = measure.fill_targets(wb, host_params, targets, sizes)
        folder = f"targets/{host_params.name}"
        return {name: {"written_bytes": r["written_bytes"], **({"written_with": r["written_with"]}
                                                               if r.get("written_with") else {}),
                       "seconds": r["seconds"], "block_bytes": r["xfersize_bytes"],
                       "output": f"{folder}/fill.summary.html" if r.get("written_with") else f"{folder}/fill.{name}.html"}
                for name, r in records.items()}

    def storage_keys(self, wb, specs) -> list[str]:
        """The group of each spec's invocation (:func:`.measure.invocations`)."""
        keys = {id(s): group for group, _, _, batch in measure.invocations(wb, specs) for s in batch}
        return [keys[id(s)] for s in specs]

    def stored_rows(self, wb, spec, key):
        """One invocation's runs are stored together: the group ``key``."""
        return wb.store.load_group(spec.phase, key)

    def save_rows(self, wb, phase: str, result) -> None:
        """The runs of one invocation, as its group."""
        wb.store.save_points(phase, result.key, list(result.rows), dict(result.raw))

    def host_shares_text(self, hosts) -> str | None:
        """vdbench spreads its threads over the hosts' JVMs: the shares follow the I/Os each was given."""
        if "outstanding_ios" in hosts and hosts["outstanding_ios"].notna().any():
            return ("vdbench's threads are per SD and spread over the hosts' JVMs: outstanding_ios is the I/Os "
                    "it gave each host, and hosts given the same should have about equal shares: a host well "
                    "below the others limits itself.")
        return None

    def rate_curve_refusal(self, cfg) -> None:
        """None: vdbench runs its own ``iorate=curve`` in its sweep."""
        return None

    def run_points(self, wb, specs, keys, bar=None):
        """One invocation per phase and workload over its thread counts (a precondition round: one count)."""
        return measure.run_points(wb, specs, keys, bar)

    def measure_longer(self, wb, phase: str, workload, threads: int, runtime_s: int) -> dict[str, Any]:
        """One invocation at ``threads`` per SD and full speed for ``runtime_s`` (up to whole intervals)."""
        (row,) = measure.run_invocation(wb, phase, plan.longer_run(wb.cfg, workload, threads, runtime_s))
        return row

    def probe_batches(self, counts: list[int]) -> list[list[int]]:
        """Every count of the linear probe in one invocation."""
        return [counts]

    def probe_rounds(self, stepper, measured, bar):
        """The adaptive probe in rounds of one invocation each: its whole doubling ladder at once (an
        invocation starts its JVMs anew, which costs more than the few counts a start mid-range would
        save), then round by round the refine points of the uncertain interval
        (:meth:`~flashpoc.analysis.AdaptiveProbe.next_round`); a count measured again is a repeat."""
        counts, first = stepper.ladder(), True
        while counts:
            if not first:  # the ladder is the probe's plan; a refine round adds to it
                bar.grow(len(counts))
            yield sorted(counts)
            counts, first = stepper.next_round(measured()), False

    def phase_rate_steps(self, cfg) -> list[float]:
        """None: sweep.plan rate-curve is its own iorate=curve, in the sweep's invocations."""
        return []

    def first_host(self, wb) -> str:
        return measure.controller(wb).name

    def linear_probe_threads(self, cfg) -> list[int]:
        return plan.probe_run(cfg).threads

    def measure_on_fewer_hosts(self, sub, cfg, workload, threads: int, runtime_s: int, steady) -> list[dict[str, Any]]:
        """Threads per SD, spread over the hosts: fewer threads for the same I/Os per host."""
        return super().measure_on_fewer_hosts(sub, cfg, workload, measure.scaling_threads(cfg, sub.cfg, threads),
                                              runtime_s, None)

    def points_per_count(self, cfg) -> int:
        """With ``iorate: curve`` (or ``sweep.plan: rate-curve``) each thread count runs at full speed, then
        at each step."""
        if cfg.sweep.rate_steps:
            return 1 + len(cfg.sweep.rate_steps)
        return 1 + len(cfg.settings.curve) if cfg.settings.curve else 1


ENGINE = VdbenchEngine()

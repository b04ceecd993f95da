"""vdbench's engine object: one invocation measures a list of thread counts (:mod:`.measure`)."""

from __future__ import annotations

import re
from typing import Any

from ..base import Engine
from . import measure
from .plan import data_text, probe_run, round_run, warmup_s


class VdbenchEngine(Engine):
    name = "vdbench"
    rate_curves = True  # its own iorate=curve, in its sweep
    rate_curve_title = "vdbench iorate=curve: mean latency at each requested I/O rate"

    def check_campaign(self, campaign, facts_by_host, connect) -> list:
        """Also vdbench itself: Java, a simulated parmfile, SSH between the hosts."""
        from ...check import check_vdbench

        return super().check_campaign(campaign, facts_by_host, connect) + check_vdbench(campaign, connect=connect)

    def check_params(self, cfg, host_names: set[str]) -> None:
        """Block sizes that are whole multiples of ``vdbench.dedupunit``; the rate-curve plan sets the rates."""
        cfg._check_dedupunit()
        if cfg.sweep.rate_steps and cfg.vdbench.iorate != "max":
            raise ValueError(f"vdbench.iorate: sweep.plan rate-curve runs iorate=curve at sweep.curve_pct itself; "
                             f"leave iorate at max (got {cfg.vdbench.iorate!r})")

    def read_output(self, path) -> tuple[Any, list[dict[str, Any]]]:
        """A vdbench output directory."""
        from ...errors import ParameterError
        from .parse import parse_vdbench_dir

        if not path.is_dir():
            raise ParameterError(f"{path} is not a vdbench output directory")
        rows = parse_vdbench_dir(path)
        return rows, rows

    def recorded_version(self, check) -> str | None:
        """``vdbench -s``'s 'vdbench50406' in the check table -> '5.04.06'."""
        if check.empty or "check" not in check:
            return None
        said = check.loc[check["check"] == "vdbench -s parmfile", "detail"].dropna()
        found = [re.fullmatch(r"vdbench(\d)(\d\d)(\d\d)", str(v).strip()) for v in said]
        versions = sorted({f"{m[1]}.{m[2]}.{m[3]}" for m in found if m})
        return " / ".join(versions) or None

    def point_length_text(self, cfg, runtime: str) -> str:
        warm = "vdbench's own warm-up intervals (`warmup=`), left out of its average"
        return f"{runtime}; {warm}. A point is one vdbench run (`rd=`) at one thread count."

    def interval_text(self, cfg, min_intervals: int) -> str:
        return (f"vdbench reports every {cfg.vdbench.interval_s} s (`interval=`); a steady-state verdict needs "
                f"{min_intervals} intervals after the warm-up.")

    def point_runtime_s(self, cfg) -> int:
        return cfg.vdbench.elapsed_s

    def point_seconds(self, cfg, runtime_s: int) -> int:
        return runtime_s + (warmup_s(cfg) or 0)

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
        return data_text(cfg)

    def fill_targets(self, wb, host_params, targets: list, sizes: dict[str, int]) -> dict[str, dict[str, Any]]:
        """One vdbench invocation fills every target of the host (:func:`.measure.fill_targets`);
        vdbench counts the bytes of the whole invocation, so each record says which targets they
        were written to together (``written_with``)."""
        records = measure.fill_targets(wb, host_params, targets, sizes)
        return {name: {"written_bytes": r["written_bytes"], "written_with": sorted(records), "seconds": r["seconds"],
                       "block_bytes": r["xfersize_bytes"], "output": f"targets/{host_params.name}/fill.summary.html"}
                for name, r in records.items()}

    def measure_round(self, wb, workload, threads: int, runtime_s: int, round_no: int) -> dict[str, Any]:
        """One invocation at ``threads`` per SD and full speed; each round its own stored group."""
        (row,) = measure.run_invocation(wb, "precondition", round_run(wb.cfg, workload, threads, runtime_s),
                                        repeats={threads: round_no})
        return row

    def first_host(self, wb) -> str:
        return measure.controller(wb).name

    def linear_probe_threads(self, cfg) -> list[int]:
        return probe_run(cfg).threads

    def measure_probe(self, wb, bar, stepper) -> list[dict[str, Any]]:
        return measure.probe(wb, bar, None if wb.cfg.probe.strategy == "linear" else stepper)

    def measure_sweep(self, wb, plan: dict[str, list[int]], bar) -> list[dict[str, Any]]:
        return measure.sweep(wb, plan, bar)

    def measure_on_fewer_hosts(self, sub, cfg, workload, threads: int, runtime_s: int, steady) -> list[dict[str, Any]]:
        """Threads per SD, spread over the hosts: fewer threads for the same I/Os per host."""
        rd = measure.probe_run_at(sub.cfg, measure.scaling_threads(cfg, sub.cfg, threads))
        return measure.run_invocation(sub, "probe", rd)

    def points_per_count(self, cfg) -> int:
        """With ``iorate: curve`` (or ``sweep.plan: rate-curve``) each thread count runs at full speed, then
        at each step."""
        if cfg.sweep.rate_steps:
            return 1 + len(cfg.sweep.rate_steps)
        return 1 + len(cfg.vdbench.curve) if cfg.vdbench.curve else 1


ENGINE = VdbenchEngine()

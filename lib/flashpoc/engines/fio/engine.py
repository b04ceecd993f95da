"""fio's engine object: a point is one fio job per host (:mod:`.measure`)."""

from __future__ import annotations

from typing import Any

from flashpoc.engines.base import Engine, LazyModule, OwnSteadiness
from flashpoc.engines.fio.settings import SERVERS, FioSettings

measure = LazyModule(f"{__package__}.measure")
plan = LazyModule(f"{__package__}.plan")
run = LazyModule(f"{__package__}.run")

#: workload keys only vdbench reads
VDBENCH_WORKLOAD_KEYS = ("seekpct", "skew")


class FioEngine(Engine):
    name = "fio"
    warm_up_note = "fio: ramp_time, not logged"
    glossary = (("JSON+", "fio's output format with the full latency histogram (its bins), from which percentiles "
                          "and shares are read exactly."),)
    settings_model = FioSettings
    parse_table_columns = [("hostname", "Host"), ("jobname", "Job"), ("direction", "Direction"), ("rw", "Pattern"),
                           ("bs", "Block"), ("numjobs", "Jobs"), ("iodepth", "Depth"), ("iops", "IOPS"),
                           ("bw_mibps", "MiB/s"), ("lat_mean_us", "Mean lat (us)"), ("clat_p50_us", "p50 (us)"),
                           ("clat_p99_us", "p99 (us)"), ("clat_p99_9_us", "p99.9 (us)"), ("usr_cpu_pct", "usr CPU (%)"),
                           ("sys_cpu_pct", "sys CPU (%)")]

    def own_steadiness(self) -> OwnSteadiness:
        """fio's ``steadystate`` (``steady_state`` of its settings) ends a point once attained."""
        return OwnSteadiness("fio's own steadystate", "fio_steadystate",
                             "one criterion on the slope or scatter of its per-second samples")

    def rate_curve_refusal(self, cfg) -> None:
        """None: fio's points run at a requested rate (``rate_iops``)."""
        return None

    def check_params(self, cfg, host_names: set[str]) -> None:
        """What fio's job files need: each host runs one job over its own targets, so every host uses
        a target; vdbench's workload keys (``seekpct``, ``skew``) have no place in a fio job and are
        refused rather than silently left out (fio's ``rw`` says random or sequential)."""
        for i, host in enumerate(cfg.hosts):
            if not cfg.targets_of(host):
                raise ValueError(f"hosts[{i}] ({host.name}): no target is used by this host (the targets' hosts "
                                 "leave it out), and fio runs one job per host over its targets: give it a target "
                                 "or leave the host out")
        for i, workload in enumerate(cfg.workloads):
            for key in VDBENCH_WORKLOAD_KEYS:
                if getattr(workload, key) is not None:
                    raise ValueError(f"workloads[{i}].{key}: vdbench's {key}, which fio has no place for (its rw "
                                     f"{workload.rw} says random or sequential, and each point runs one workload): "
                                     f"leave {key} out, or use engine: vdbench")

    def param_warnings(self, cfg) -> list[str]:
        """Settings of several hosts (``multi_host``, ``server_port``) given to a campaign of one."""
        defaults = type(cfg.settings).model_fields
        return [f"engine.fio.{key}: one host runs its points alone, without fio's client and servers"
                for key in ("multi_host", "server_port")
                if len(cfg.hosts) == 1 and getattr(cfg.settings, key) != defaults[key].default]

    def check_host(self, campaign, host: str, host_params, facts) -> list:
        """fio on the host: present, its version."""
        from flashpoc.engines.fio.check import _evaluate_fio

        return [_evaluate_fio(host, host_params, facts)]

    def check_campaign(self, campaign, facts_by_host, connect) -> list:
        """With several hosts in client/server mode, also fio on this machine (the client)."""
        from flashpoc.engines.fio.check import _controller_fio_row

        rows = super().check_campaign(campaign, facts_by_host, connect)
        if len(campaign.hosts) > 1 and campaign.settings.multi_host == "client-server":
            rows.append(_controller_fio_row(connect, facts_by_host))
        return rows

    host_version_fact = "fio_version"

    def direct_io(self, cfg) -> bool:
        """``fio.direct``."""
        return cfg.settings.direct

    def read_output(self, path) -> tuple[Any, list[dict[str, Any]]]:
        """A fio JSON(+) output file."""
        from flashpoc.core.errors import ParameterError
        from flashpoc.engines.fio.parse import parse_fio_output

        try:
            text = path.read_text(errors="replace")
        except OSError as error:
            raise ParameterError(f"cannot read {path}: {error.strerror}") from None
        rows = parse_fio_output(text, source=path.name)
        return rows, rows

    def describe(self, cfg, version: str, points) -> str:
        mode = f"{cfg.settings.ioengine}, {'direct I/O' if cfg.settings.direct else 'buffered I/O'}"
        return f"fio {version} ({mode})"

    def point_length_text(self, cfg, runtime: str) -> str:
        return (f"{runtime} (`fio.runtime_s`, `fio.ramp_s`): fio's ramp is not measured. "
                "A point is one fio run at one thread count.")

    def interval_text(self, cfg, min_intervals: int) -> str:
        if not cfg.settings.interval_s:
            return "none (`fio.interval_s: 0`): no steady-state verdict."
        return (f"fio logs IOPS and latency every {cfg.settings.interval_s} s of each point; a steady-state verdict "
                f"needs {min_intervals} intervals.")

    def point_runtime_s(self, cfg) -> int:
        return cfg.settings.runtime_s

    def point_seconds(self, cfg, runtime_s: int) -> int:
        return runtime_s + cfg.settings.ramp_s

    def outstanding_per_thread(self, cfg) -> int:
        return cfg.probe_workload.iodepth

    def steadiness(self, cfg, runtime_s: int) -> tuple[str, int] | None:
        return plan.until_steady(cfg.settings, runtime_s)

    def remeasures_unsteady(self, cfg, steady: tuple[str, int] | None) -> bool:
        """fio's own steady-state criterion (``fio.steadystate``) or one of the phase (``steady``)."""
        return bool(cfg.settings.steadystate or steady)

    def point_definition(self, wb, spec) -> dict[str, Any]:
        return measure.point_definition(wb, spec)

    def run_points(self, wb, specs, keys, bar=None):
        """One by one (:func:`.measure.run_point`); a rate step runs fio's ``rate_iops`` on each job."""
        return measure.run_points(wb, specs, keys, bar)

    def create_scratch(self, wb, host_params, scratch: list, short: list) -> list[dict[str, Any]]:
        return measure.create_scratch(wb, host_params, scratch, short)

    def fill_data(self, cfg) -> str:
        return plan.fill_data(cfg.settings)

    def close(self, wb) -> None:
        """Stop the fio servers (not on a host that stopped answering: the next start replaces its
        server); a host that fails to stop its server is ignored on purpose (:func:`.run.stop_servers`)."""
        if wb.engine_state.pop(SERVERS, None) is not None:
            run.stop_servers([wb.host(h) for h in wb.cfg.hosts])

    def fill_targets(self, wb, host_params, targets: list, sizes: dict[str, int]) -> dict[str, dict[str, Any]]:
        return measure.fill_targets(wb, host_params, targets, sizes)


ENGINE = FioEngine()

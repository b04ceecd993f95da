"""SLOB's engine object: a point is one runit.sh run at N threads per schema (:mod:`.measure`)."""

from __future__ import annotations

from typing import Any

from ..base import Engine
from . import measure


class SlobEngine(Engine):
    name = "slob"
    uses_targets = False  # its data lives in the database (setup.sh loads it)
    scales_hosts = False  # one database host
    manifest_exclude = frozenset({"workloads"})  # SLOB's are slob.workloads; the schema refuses both

    def point_runtime_s(self, cfg) -> int:
        return cfg.slob.run_time_s

    def outstanding_per_thread(self, cfg) -> int:
        """Sessions per thread: the schemas."""
        return cfg.slob.schemas or 1

    def measure_point(self, wb, phase: str, workload, threads: int, *, runtime_s: int, repeat: int = 0,
                      steady: tuple[str, int] | None = None) -> dict[str, Any]:
        return measure.measure_point(wb, phase, workload, threads, run_time_s=runtime_s, repeat=repeat)


ENGINE = SlobEngine()
